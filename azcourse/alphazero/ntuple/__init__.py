"""A pattern-table (n-tuple) evaluator for Othello: a network kind of the one trainer (``network = "ntuple"``).

Strong Othello programs (Logistello, Edax) evaluate a position by summing the entries that tuples of
squares read in tables, one table per tuple, tied under the board's symmetries and split by game phase.
Here those tables are the AlphaZero network: a value head (the sum through ``tanh``, for the player to
move) and a policy, the softmax of the children's values (each legal move's resulting position evaluated
by the same tables, from the mover's view, at a learned temperature), corrected by a learned prior per
class of squares and phase. It is trained on the trainer's own self-play targets by its own loss
(``learn``), and evaluated inside the compiled search in numba, a microsecond or so a leaf with its
children, so that a simulation costs a few microseconds instead of an MLP's 9-23.

Modules
    ``patterns``: the tuples, their symmetry images, the phases and the parameters' shapes (``NTupleSpec``);
    ``kernels``: the evaluation in numba (``evaluate``, ``NTupleNet`` for play, ``features`` for training);
    ``reference``: the same evaluation written plainly on ``Othello`` states (the tests' reference);
    ``model``: the JAX model that training differentiates (imports JAX; the others do not).
docs/alphazero.md ("The pattern-table evaluator") says when it fits and how it is trained.
"""
from .patterns import KIND, NTupleSpec, init_params  # noqa: F401
