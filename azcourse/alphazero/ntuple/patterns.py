"""The pattern-table network's shape: its tuples of squares, their images under the board's symmetries,
the game phases, and the layout of its parameters (``NTupleSpec``). numpy only.

The tuples (``base_patterns(n)``, for an n x n Othello board; on 8x8 the classic set of Buro's
Logistello, which Edax and most strong programs refine)
    ``edge+2X``: the first row and the two X squares next to its corners (n + 2 squares);
    ``corner3x3``: the 3 x 3 block at a corner (9);
    ``corner2x5``: 2 rows by ``n // 2 + 1`` columns at a corner (2 x 5 on 8x8: 10);
    ``row1``, ``row2``, ...: each row from the second to the last above the middle, whole (n each;
    8x8: the 2nd, 3rd and 4th rows);
    ``diag0``, ``diag1``, ...: the diagonal ``(i, i + d)`` for ``d = 0 .. n - 4`` (lengths n down to 4).
    Each tuple is applied in every image under the board's 8 symmetries (``square_permutation``), one
    lookup per distinct set of squares, and all images of a tuple share one table: on 8x8 that is 46
    lookups (the edge, the 3x3 corner, each row and the shorter diagonals 4 each, the 2x5 corner 8, the
    long diagonal 2) into 11 tables.
A lookup
    Each square of a tuple is a base-3 digit seen from the player to move: 0 empty, 1 own disc, 2 the
    opponent's; the tuple's *raw index* is ``sum_j digit(square_j) * 3 ** j`` in the tuple's order. Where a
    symmetry maps a tuple onto itself (an edge reversed, a corner block mirrored along its diagonal), the
    raw indices of a configuration and of its mirror image must read the same entry, or the sum would
    change under that symmetry: ``canon`` maps every raw index to one entry shared by all of them (the
    table's *compact index*). So the evaluation is exactly invariant under the 8 symmetries.
Game phases
    ``phases`` sets of tables, by the number of discs on the board: ``phase = (discs - 4) * phases //
    (n * n - 3)`` (``phase_of``), from 0 at the start to ``phases - 1`` on a full board.
Parameters (``init_params``; float32, Flax's ``{layer: {name: array}}`` tree, as the MLP's)
    ``tables/kernel`` ``(phases, T)``: every table of a phase side by side (T entries in all; the
    pattern ``i``'s compact entries start at ``Geometry.compact_offset[i]``); ``tables/bias``
    ``(phases,)``; ``prior/kernel`` ``(phases, C)``: a learned prior bias per class of squares (the
    squares a symmetry maps onto each other share one; the pass has its own); ``prior/scale``
    ``(phases,)``: the children's values' inverse temperature, from ``1 / temperature``.
The outputs (``azcourse.alphazero.ntuple`` explains them)
    value: ``tanh(bias[p] + sum of the lookups' entries in phase p)``, the result the player to move
    expects; logits: for each placing move ``a``, ``-scale[p] * value(child_a) + prior[p, class(a)]``,
    ``value(child_a)`` the value the same tables give the position after ``a`` for the opponent, then to
    move (so ``-value`` is the mover's), ``p`` the position's own phase; the pass, when it is the only legal
    action, 0; every illegal action ``NEG``.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import numpy as np

from azcourse.core.square_symmetry import NUM_SYMMETRIES, square_permutation

NEG = -1e9  # the logit of an illegal action: exp() of it, less the largest, is 0 in float32 and float64
MAX_SQUARES = 20  # the longest tuple: its raw index stays below 2 ** 32 (the compiled lookups pack two in an int64)
KIND = "ntuple"  # a checkpoint card's architecture "network"


class Pattern(NamedTuple):
    """A tuple of squares (numbered ``r * n + c``), in the order of its raw index's digits."""

    name: str
    squares: tuple


def base_patterns(n: int) -> tuple[Pattern, ...]:
    """The tuples of an n x n board (the module docstring): on 8x8 the classic set."""
    if n < 4 or n % 2:
        raise ValueError(f"the pattern tables are for even boards from 4 up, got n = {n}")
    square = lambda r, c: r * n + c  # noqa: E731
    out = [Pattern("edge+2X", tuple(square(0, c) for c in range(n)) + (square(1, 1), square(1, n - 2))),
           Pattern("corner3x3", tuple(square(r, c) for r in range(3) for c in range(3))),
           Pattern(f"corner2x{n // 2 + 1}", tuple(square(r, c) for r in range(2) for c in range(n // 2 + 1)))]
    out += [Pattern(f"row{r}", tuple(square(r, c) for c in range(n))) for r in range(1, n // 2)]
    out += [Pattern(f"diag{d}", tuple(square(i, i + d) for i in range(n - d))) for d in range(n - 3)]
    return tuple(out)


def phase_of(discs, n: int, phases: int):
    """The game phase of a position with ``discs`` discs (an int or an int array): ``0 .. phases - 1``."""
    return (discs - 4) * phases // (n * n - 3)


class Geometry(NamedTuple):
    """Everything the evaluations need to know of the tuples on an n x n board (``geometry(n)``).

    Attributes:
        patterns: ``base_patterns(n)``.
        squares: int64 ``(L, K)``: each lookup's squares in its digits' order, -1 past its length (L lookups,
            K the longest tuple); pattern: int64 ``(L,)``: its pattern; lengths: int64 ``(L,)``.
        raw_offset: int64 ``(L,)``: where its pattern's raw indices start in the expanded table (all the
            patterns' ``3 ** k`` raw indices side by side, R in all).
        canon: int64 ``(R,)``: an expanded raw index -> the compact index of its entry in the tables (T in all).
        compact_offset: int64 ``(patterns,)``: where each pattern's compact entries start.
        members: int64 ``(n * n, M, 2)``: for each square, the ``(lookup, 3 ** digit position)`` of each lookup
            that holds it (``member_count`` of them, the rest -1).
        member_count: int64 ``(n * n,)``.
        square_class: int64 ``(n * n + 1,)``: each action's class of squares (the pass last, a class of its own).
        classes: C, the number of classes.
    """

    patterns: tuple
    squares: np.ndarray
    pattern: np.ndarray
    lengths: np.ndarray
    raw_offset: np.ndarray
    canon: np.ndarray
    compact_offset: np.ndarray
    members: np.ndarray
    member_count: np.ndarray
    square_class: np.ndarray
    classes: int

    @property
    def entries(self) -> int:
        """T: the compact entries of one phase's tables."""
        return int(self.canon.max()) + 1


def _canonical(length: int, orders: list) -> np.ndarray:
    """int64 ``(3 ** length,)``: each raw index -> the least raw index of the same squares' contents read in
    each of ``orders`` (permutations of the digit positions that map the tuple onto itself)."""
    raw = np.arange(3 ** length)
    digits = (raw[:, None] // 3 ** np.arange(length)) % 3  # (3^k, k)
    powers = 3 ** np.arange(length)
    return np.min([digits[:, list(order)] @ powers for order in orders], axis=0)


@functools.lru_cache(maxsize=None)
def geometry(n: int) -> Geometry:
    """The ``Geometry`` of the n x n board's tuples (computed once per size)."""
    images = [square_permutation(n, g) for g in range(NUM_SYMMETRIES)]
    lookups, owners, canon_blocks = [], [], []
    raw_start = compact_start = 0
    raw_offset, compact_offset = [], []
    for index, pattern in enumerate(base_patterns(n)):
        k = len(pattern.squares)
        by_set: dict = {}  # the distinct sets of squares, each with its first image's order
        orders = []  # the digit permutations of the symmetries that keep the tuple's set
        for image in images:
            ordered = tuple(int(image[s]) for s in pattern.squares)
            by_set.setdefault(frozenset(ordered), ordered)
            if frozenset(ordered) == frozenset(pattern.squares):
                orders.append([pattern.squares.index(s) for s in ordered])
        least = _canonical(k, orders)
        _, compact = np.unique(least, return_inverse=True)
        canon_blocks.append(compact + compact_start)
        compact_offset.append(compact_start)
        compact_start += int(compact.max()) + 1
        for ordered in by_set.values():
            lookups.append(ordered)
            owners.append(index)
            raw_offset.append(raw_start)
        raw_start += 3 ** k
    width = max(len(t) for t in lookups)
    if width > MAX_SQUARES:
        raise ValueError(f"a tuple of {width} squares: at most {MAX_SQUARES}")
    squares = np.full((len(lookups), width), -1, np.int64)
    for i, ordered in enumerate(lookups):
        squares[i, :len(ordered)] = ordered
    holding = [[(i, 3 ** j) for i, ordered in enumerate(lookups) for j, s in enumerate(ordered) if s == q]
               for q in range(n * n)]
    members = np.full((n * n, max(map(len, holding)), 2), -1, np.int64)
    for q, held in enumerate(holding):
        members[q, :len(held)] = held
    orbit = np.min(np.stack(images), axis=0)  # a square's class: the least square of its orbit
    _, square_class = np.unique(orbit, return_inverse=True)
    square_class = np.append(square_class, square_class.max() + 1)  # the pass
    return Geometry(base_patterns(n), squares, np.asarray(owners, np.int64), np.asarray([len(t) for t in lookups]),
                    np.asarray(raw_offset, np.int64), np.concatenate(canon_blocks).astype(np.int64),
                    np.asarray(compact_offset, np.int64), members, np.asarray([len(h) for h in holding], np.int64),
                    square_class.astype(np.int64), int(square_class.max()) + 1)


@dataclasses.dataclass(frozen=True)
class NTupleSpec:
    """The shape of a pattern-table network: what a checkpoint card's ``architecture`` records.

    Attributes:
        size: the Othello board's side n.
        phases: sets of tables, by the number of discs (``phase_of``).
        temperature: the children's values' softmax temperature at the start (``prior/scale`` starts at
            its inverse, then learns).
    """

    size: int
    phases: int = 6
    temperature: float = 0.25

    def __post_init__(self):
        object.__setattr__(self, "size", int(self.size))
        object.__setattr__(self, "phases", int(self.phases))
        object.__setattr__(self, "temperature", float(self.temperature))
        base_patterns(self.size)  # a ValueError for a board it has no tuples for
        if not 1 <= self.phases <= self.size * self.size - 3:
            raise ValueError(f"ntuple_phases must lie between 1 and {self.size * self.size - 3} (one a disc count)")
        if not self.temperature > 0:
            raise ValueError("ntuple_temperature must be positive")

    @property
    def encoding_shape(self) -> tuple:
        """``Othello.encode``'s ``(3, n, n)``: what the replay window stores."""
        return (3, self.size, self.size)

    @property
    def actions(self) -> int:
        return self.size * self.size + 1

    @property
    def geometry(self) -> Geometry:
        return geometry(self.size)

    @classmethod
    def for_game(cls, game, phases: int = 6, temperature: float = 0.25) -> "NTupleSpec":
        """The shape for ``game``, an Othello board (ValueError for another game)."""
        from azcourse.othello.game import Othello

        if not isinstance(game, Othello):
            raise ValueError(f"network = \"ntuple\" has tuples for Othello boards, not {game.name}: "
                             "use network = \"mlp\"")
        return cls(game.size, phases, temperature)

    def as_dict(self) -> dict:
        """The card's record: the settings, the tuples' squares and the number of entries."""
        g = self.geometry
        return {"network": KIND, "size": self.size, "phases": self.phases, "temperature": self.temperature,
                "encoding_shape": list(self.encoding_shape), "actions": self.actions,
                "patterns": {p.name: list(p.squares) for p in g.patterns}, "lookups": len(g.squares),
                "entries_per_phase": g.entries}

    @classmethod
    def from_dict(cls, record: dict) -> "NTupleSpec":
        """The spec a card's ``as_dict`` record describes.

        Raises:
            ValueError: the card's tuples are not this pack's for that board (another version's).
        """
        spec = cls(record["size"], record["phases"], record["temperature"])
        ours = {p.name: list(p.squares) for p in spec.geometry.patterns}
        if record.get("patterns", ours) != ours:
            raise ValueError(f"the card's tuples {sorted(record['patterns'])} are not this pack's for an "
                             f"{spec.size} x {spec.size} board ({sorted(ours)})")
        return spec


def init_params(spec: NTupleSpec) -> dict:
    """The parameters at the start: zero tables and prior bias (value 0, priors the softmax of zeros, i.e.
    uniform), ``prior/scale`` ``1 / temperature``; float32 (see the module docstring for the shapes)."""
    g = spec.geometry
    return {"tables": {"kernel": np.zeros((spec.phases, g.entries), np.float32),
                       "bias": np.zeros(spec.phases, np.float32)},
            "prior": {"kernel": np.zeros((spec.phases, g.classes), np.float32),
                      "scale": np.full(spec.phases, 1.0 / spec.temperature, np.float32)}}


def check_params(spec: NTupleSpec, params) -> None:
    """A ValueError naming the first parameter whose shape is not the spec's."""
    g = spec.geometry
    shapes = {("tables", "kernel"): (spec.phases, g.entries), ("tables", "bias"): (spec.phases,),
              ("prior", "kernel"): (spec.phases, g.classes), ("prior", "scale"): (spec.phases,)}
    for (layer, name), shape in shapes.items():
        leaves = params.get(layer, {})
        have = np.shape(leaves[name]) if name in leaves else None
        if have != shape:
            raise ValueError(f"pattern-table parameter {layer}/{name} has shape {have}, the spec needs {shape}")
