"""The pattern tables evaluated in numba, from a position's two bitboards: for the compiled search, for
play (``NTupleNet``) and for training (``features``, the indices the JAX model gathers).

``value`` gives a position's value (46 lookups on 8x8, a few tenths of a microsecond) and
``child_logits`` its legal moves' logits (``patterns`` defines both; ``evaluate``: both), a
microsecond or two for all the children: all children of a position have one more disc, so one phase,
and the opponent's view; the position's lookups are read once in both views (``_read``), their sum
from the opponent's view taken once (``base``), and each child adds only the change of the lookups
that hold its new disc or a disc it flips (``_changes``: a flipped disc's digit goes from 1 to 2 in
the opponent's view, the new disc's from 0 to 2). The plain evaluation, one
lookup at a time on ``Othello`` states, is ``reference``; a test ties the two.

Bitboards are those of ``azcourse.othello.compiled`` (bit ``r * n + c`` for square ``(r, c)``), seen from
the player to move: ``own`` and ``opp`` uint64, ``moves`` the mover's placing moves.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from azcourse.othello import compiled as othello_rules

from .patterns import NEG, NTupleSpec, check_params

ONE = np.uint64(1)


class Layout(NamedTuple):
    """Where the lookups read (a ``Geometry``'s arrays, int64) and the evaluation's work space.

    Attributes:
        squares, lengths, raw_offset, members, member_count: the ``Geometry``'s.
        size: n; phases: P.
        work: int64 ``(4, L)``: the lookups' raw indices in the mover's and the opponent's view, a child's
            changes (0 where it changes none), the lookups it changes; digits:
            int64 ``(n * n,)``, each square's digits in both views (``_read``); entry: float64 ``(L,)``, the
            entries of the position's lookups seen by the opponent, in the children's phase.
    """

    squares: np.ndarray
    lengths: np.ndarray
    raw_offset: np.ndarray
    members: np.ndarray
    member_count: np.ndarray
    size: int
    phases: int
    work: np.ndarray
    digits: np.ndarray
    entry: np.ndarray


class Tables(NamedTuple):
    """A network's parameters laid out for the compiled evaluation (``tables_of``).

    Attributes:
        expanded: float32 ``(P, R)``: each phase's tables by raw index (``tables/kernel[:, canon]``).
        bias, scale: float64 ``(P,)``: ``tables/bias`` and ``prior/scale``.
        prior: float64 ``(P, A)``: ``prior/kernel`` by action (each square's class).
        layout: the ``Layout``.
    """

    expanded: np.ndarray
    bias: np.ndarray
    scale: np.ndarray
    prior: np.ndarray
    layout: Layout


def layout_of(spec: NTupleSpec) -> Layout:
    """A ``Layout`` of the spec's geometry, with its own work space."""
    g = spec.geometry
    return Layout(g.squares, g.lengths, g.raw_offset, g.members, g.member_count, spec.size, spec.phases,
                  np.zeros((4, len(g.lengths)), np.int64), np.zeros(spec.size * spec.size, np.int64),
                  np.zeros(len(g.lengths)))


def tables_of(spec: NTupleSpec, params) -> Tables:
    """The ``Tables`` of ``params`` (numpy or JAX arrays; copied).

    Raises:
        ValueError: a parameter's shape is not the spec's.
    """
    check_params(spec, params)
    g = spec.geometry
    kernel = np.asarray(params["tables"]["kernel"], np.float32)
    prior = np.asarray(params["prior"]["kernel"], np.float64)
    return Tables(np.ascontiguousarray(kernel[:, g.canon]), np.asarray(params["tables"]["bias"], np.float64).copy(),
                  np.asarray(params["prior"]["scale"], np.float64).copy(), np.ascontiguousarray(prior[:, g.square_class]),
                  layout_of(spec))


@numba.njit(cache=True)
def phase(layout, discs):
    """``patterns.phase_of`` in compiled code."""
    n = layout.size
    return (discs - 4) * layout.phases // (n * n - 3)


@numba.njit(cache=True)
def _read(layout, own, opp, out_own, out_opp):
    """Each lookup's raw index from the mover's view into ``out_own`` and from the opponent's into
    ``out_opp`` (int64 ``(L,)``): digits 1 for ``own``'s discs and 2 for ``opp``'s, and the other way round.
    Both views at once: a square's two digits are packed in one int64 (the opponent's from bit 32 on: a
    tuple's raw index, below ``3 ** 10`` on 8x8, must stay below ``2 ** 32``, ``patterns.MAX_SQUARES``)."""
    digits = layout.digits
    for square in range(len(digits)):
        bit = np.uint64(square)
        o, p = np.int64((own >> bit) & ONE), np.int64((opp >> bit) & ONE)
        digits[square] = o + 2 * p + ((2 * o + p) << 32)
    for lookup in range(len(layout.lengths)):
        both, weight = 0, 1
        for j in range(layout.lengths[lookup]):
            both += digits[layout.squares[lookup, j]] * weight
            weight *= 3
        out_own[lookup], out_opp[lookup] = both & 0xFFFFFFFF, both >> 32


@numba.njit(cache=True)
def _sum(tables, p, raw):
    """The summed entries of the lookups' raw indices ``raw`` in phase ``p`` (float64)."""
    total, offset = 0.0, tables.layout.raw_offset
    for lookup in range(len(raw)):
        total += tables.expanded[p, offset[lookup] + raw[lookup]]
    return total


@numba.njit(cache=True)
def _touch(layout, square, digit, count):
    """Add ``digit`` at ``square`` to the changes of the lookups that hold it; the number of lookups changed."""
    delta, touched = layout.work[2], layout.work[3]
    for i in range(layout.member_count[square]):
        lookup = layout.members[square, i, 0]
        if delta[lookup] == 0:  # a change only grows: 0 is a lookup not touched yet
            touched[count] = lookup
            count += 1
        delta[lookup] += digit * layout.members[square, i, 1]
    return count


@numba.njit(cache=True)
def _changes(tables, pc, move, flipped):
    """How much a child's sum in phase ``pc`` differs from the parent's seen by the opponent (``work[1]``,
    its entries in ``entry``): the new disc on ``move`` (0 -> 2) and the ``flipped`` discs (1 -> 2) change
    the lookups that hold them."""
    layout = tables.layout
    count = _touch(layout, move, 2, 0)
    rest = flipped
    while rest:
        low = rest & (~rest + ONE)
        count = _touch(layout, np.int64(othello_rules.popcount(low - ONE)), 1, count)
        rest ^= low
    theirs, delta, touched = layout.work[1], layout.work[2], layout.work[3]
    total = 0.0
    for i in range(count):
        lookup = touched[i]
        total += np.float64(tables.expanded[pc, layout.raw_offset[lookup] + theirs[lookup] + delta[lookup]]) \
            - layout.entry[lookup]
        delta[lookup] = 0
    return total


@numba.njit(cache=True)
def value(tables, own, opp):
    """The value of the position (``own``, ``opp``: uint64, the mover's and the opponent's discs) for the
    player to move (float64)."""
    layout = tables.layout
    p = phase(layout, np.int64(othello_rules.popcount(own | opp)))
    _read(layout, own, opp, layout.work[0], layout.work[1])
    return math.tanh(tables.bias[p] + _sum(tables, p, layout.work[0]))


@numba.njit(cache=True)
def child_logits(tables, rules_table, own, opp, actions, k, logits):
    """The logits of the position's ``k`` legal actions ``actions[:k]`` (increasing, as
    ``othello.compiled.legal_actions`` gives them) into ``logits[:k]`` (float64); the pass, when it is the
    only one, gets 0 (``patterns`` defines them)."""
    layout = tables.layout
    n = layout.size
    if k == 1 and actions[0] == n * n:
        logits[0] = 0.0
        return
    discs = np.int64(othello_rules.popcount(own | opp))
    p, pc = phase(layout, discs), phase(layout, discs + 1)
    theirs = layout.work[1]
    _read(layout, own, opp, layout.work[0], theirs)
    base = 0.0
    for lookup in range(len(theirs)):
        layout.entry[lookup] = tables.expanded[pc, layout.raw_offset[lookup] + theirs[lookup]]
        base += layout.entry[lookup]
    for j in range(k):
        move = actions[j]
        flipped = othello_rules.flips(own, opp, move, rules_table)
        child = math.tanh(tables.bias[pc] + base + _changes(tables, pc, move, flipped))
        logits[j] = -tables.scale[p] * child + tables.prior[p, move]


@numba.njit(cache=True)
def evaluate(tables, rules_table, own, opp, actions, k, logits):
    """``value`` of the position, returned, and its ``child_logits`` into ``logits[:k]``."""
    child_logits(tables, rules_table, own, opp, actions, k, logits)
    return value(tables, own, opp)


@numba.njit(cache=True)
def _forward(tables, rules_table, own, opp, moves, logits, values):
    """``evaluate`` on a batch of positions (uint64 ``(B,)`` each): logits into ``logits`` float64 ``(B, A)``
    (prefilled with ``NEG``), values into ``values`` float64 ``(B,)``."""
    n = tables.layout.size
    actions, row = np.zeros(n * n + 1, np.int64), np.zeros(n * n + 1)
    for i in range(len(own)):
        k = othello_rules.legal_actions(n, moves[i], -1, actions)
        values[i] = evaluate(tables, rules_table, own[i], opp[i], actions, k, row)
        for j in range(k):
            logits[i, actions[j]] = row[j]


def from_card(architecture: dict, params) -> tuple[NTupleSpec, "NTupleNet"]:
    """The spec and forward pass of a checkpoint card's ``architecture`` and its parameters
    (``checkpoints.NETWORK_KINDS``).

    Raises:
        ValueError: the card's tuples are not this pack's, or a parameter's shape is not the spec's.
    """
    spec = NTupleSpec.from_dict(architecture)
    return spec, NTupleNet(spec, params)


def bitboards(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Othello.encode``'s planes ``x`` float32 ``(B, 3, n, n)`` -> the mover's discs, the opponent's and
    the mover's placing moves, uint64 ``(B,)`` each."""
    x = np.asarray(x)
    bits = (x.reshape(len(x), 3, -1) > 0.5).astype(np.uint64) << np.arange(x.shape[-1] ** 2, dtype=np.uint64)
    own, opp, moves = bits.sum(axis=-1, dtype=np.uint64).T
    return own.copy(), opp.copy(), moves.copy()


class NTupleNet:
    """The pattern tables' forward pass on encodings, for search and play (``NumpyNet``'s signature).

    Args:
        spec: the network's shape; params: its parameters (numpy or JAX arrays, copied once).
    Raises:
        ValueError: a parameter's shape is not the spec's.
    """

    def __init__(self, spec: NTupleSpec, params):
        self.spec, self.tables = spec, tables_of(spec, params)
        self.rules_table = othello_rules.table(spec.size)

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``x`` float32 ``(B, 3, n, n)`` (decision states) -> ``(logits float64 (B, A), value float64 (B,))``;
        an illegal action's logit is ``NEG``."""
        own, opp, moves = bitboards(x)
        logits, values = np.full((len(own), self.spec.actions), NEG), np.zeros(len(own))
        _forward(self.tables, self.rules_table, own, opp, moves, logits, values)
        return logits, values

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, float]:
        """One position: ``x`` float32 ``(3, n, n)`` -> ``(logits float64 (A,), value float)``."""
        logits, value = self.forward(x[None])
        return logits[0], float(value[0])


@numba.njit(cache=True)
def _features(layout, canon, entries, rules_table, own, opp, moves, index, phases, child_index, child_phase,
              child_action):
    """The training model's gathers (``features``) for a batch of positions (uint64 ``(N,)`` each) into the
    int32 arrays ``index`` ``(N, L)``, ``phases`` ``(N,)``, ``child_index`` ``(N, M, L)``, ``child_phase``
    ``(N,)`` and ``child_action`` ``(N, M)`` (prefilled with A)."""
    n = layout.size
    mine, theirs = layout.work[0], layout.work[1]
    for i in range(len(own)):
        discs = np.int64(othello_rules.popcount(own[i] | opp[i]))
        p, pc = phase(layout, discs), phase(layout, discs + 1)
        phases[i], child_phase[i] = p, pc
        _read(layout, own[i], opp[i], mine, theirs)
        for lookup in range(len(mine)):
            index[i, lookup] = p * entries + canon[layout.raw_offset[lookup] + mine[lookup]]
        j = 0
        for move in range(n * n):
            if not (moves[i] >> np.uint64(move)) & ONE:
                continue
            flipped = othello_rules.flips(own[i], opp[i], move, rules_table)
            _read(layout, opp[i] & ~flipped, own[i] | flipped | (ONE << np.uint64(move)), mine, theirs)
            for lookup in range(len(mine)):
                child_index[i, j, lookup] = pc * entries + canon[layout.raw_offset[lookup] + mine[lookup]]
            child_action[i, j] = move
            j += 1


def features(spec: NTupleSpec, x: np.ndarray) -> dict:
    """What the JAX model (``ntuple.model``) reads of encoded decision states ``x`` float32
    ``(..., 3, n, n)``: a dict of int32 arrays with the same leading shape ``...``:

    * ``index`` ``(..., L)``: each lookup's entry in the flattened ``tables/kernel`` (``phase * T + compact``);
    * ``phase`` ``(...)``: the position's phase;
    * ``child_index`` ``(..., M, L)``: the same for each placing move's child, seen by the opponent; M is the
      most placing moves of a position in ``x``, rounded up to a multiple of 8 (so few shapes compile);
    * ``child_phase`` ``(...)``: the children's phase (one disc more);
    * ``child_action`` ``(..., M)``: each child's move, increasing; A past the position's last.
    """
    lead = x.shape[:-3]
    own, opp, moves = bitboards(np.asarray(x).reshape(-1, *spec.encoding_shape))
    count = len(own)
    most = int(np.bitwise_count(moves).max(initial=0))
    width = max(8, -(-most // 8) * 8)
    g, lookups = spec.geometry, len(spec.geometry.lengths)
    out = {"index": np.zeros((count, lookups), np.int32), "phase": np.zeros(count, np.int32),
           "child_index": np.zeros((count, width, lookups), np.int32), "child_phase": np.zeros(count, np.int32),
           "child_action": np.full((count, width), spec.actions, np.int32)}
    _features(layout_of(spec), g.canon, g.entries, othello_rules.table(spec.size), own, opp, moves,
              out["index"], out["phase"], out["child_index"], out["child_phase"], out["child_action"])
    return {key: value.reshape(*lead, *value.shape[1:]) for key, value in out.items()}

