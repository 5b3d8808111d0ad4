"""The perfect tic-tac-toe player (``minimax.Solver``) as an agent of the game layer.

``minimax`` works on the notebooks' mover-view boards through a ``GameRules``; ``LAYER_RULES``
gives it rules of its own (no notebook needed), and ``PerfectAgent`` reads a ``TicTacToeState`` as
such a board, so it can sit in ``azcourse.core.arena.play_match`` against any agent of the layer.
"""
from __future__ import annotations

import functools

import numpy as np

from .game import LINES, TicTacToeState
from .minimax import Solver
from .rules import GameRules

_LINES = np.asarray(LINES)


def _next_state(board: np.ndarray, action: int) -> np.ndarray:
    board = np.array(board, dtype=np.int8)
    board[action] = 1
    return board


def _reward(board: np.ndarray) -> tuple[int, bool]:
    sums = np.asarray(board, dtype=np.int8).reshape(9)[_LINES].sum(axis=1)
    if (sums == 3).any():
        return 1, True
    if (sums == -3).any():
        return -1, True
    return 0, bool(np.all(np.asarray(board) != 0))


LAYER_RULES = GameRules(next_state=_next_state, reward=_reward,
                        valid_mask=lambda board: np.asarray(board).reshape(9) == 0,
                        flip=lambda board: -np.asarray(board, dtype=np.int8))


@functools.lru_cache(maxsize=1)
def solver() -> Solver:
    """The process's one solver on ``LAYER_RULES`` (its table fills as positions are asked)."""
    return Solver(LAYER_RULES)


def mover_board(state: TicTacToeState) -> np.ndarray:
    """int8 ``(9,)``: 1 for the mover's marks, -1 for the opponent's, 0 for an empty square."""
    cells = np.frombuffer(state.cells, dtype=np.uint8)
    return (np.where(cells == state.player + 1, 1, 0) - np.where(cells == 2 - state.player, 1, 0)).astype(np.int8)


class PerfectAgent:
    """A uniformly random move among the optimal ones (so games vary), for ``TicTacToe`` states.

    Args:
        rng: draws among equally good moves.
    """

    def __init__(self, rng: np.random.Generator | None = None, name: str = "perfect"):
        self.rng, self.name = rng or np.random.default_rng(), name

    def choose(self, state: TicTacToeState) -> int:
        values = solver().action_values(mover_board(state))
        return int(self.rng.choice(np.flatnonzero(values == np.nanmax(values))))

    def observe(self, action: int) -> None:
        """Nothing to remember."""
