"""The pattern tables' evaluation written plainly, one lookup at a time on ``Othello`` states (numpy): the
reference that ``kernels.evaluate`` (compiled, incremental) and ``model`` (JAX) are tested against."""
from __future__ import annotations

import math

import numpy as np

from .patterns import NEG, NTupleSpec, phase_of


def _digits(spec: NTupleSpec, own: int, opp: int) -> np.ndarray:
    """int64 ``(n * n,)``: each square's digit from the view of the player whose discs are ``own``: 0 empty,
    1 own, 2 the opponent's (``opp``)."""
    return np.array([((own >> s) & 1) + 2 * ((opp >> s) & 1) for s in range(spec.size * spec.size)])


def _sum(spec: NTupleSpec, params, digits: np.ndarray, p: int) -> float:
    """``tables/bias[p]`` plus the entry of every lookup's contents in phase ``p``."""
    g = spec.geometry
    kernel = np.asarray(params["tables"]["kernel"], np.float64)
    total = float(params["tables"]["bias"][p])
    for lookup, length in enumerate(g.lengths):
        raw = sum(int(digits[g.squares[lookup, j]]) * 3 ** j for j in range(length))
        total += kernel[p, g.canon[g.raw_offset[lookup] + raw]]
    return total


def _view(state) -> tuple[int, int]:
    """The mover's discs and the opponent's of an ``OthelloState``."""
    return (state.black, state.white) if state.player == 0 else (state.white, state.black)


def evaluate(spec: NTupleSpec, params, game, state) -> tuple[np.ndarray, float]:
    """``(logits float64 (A,), value float)`` of a decision state of ``game`` (an ``Othello`` of the spec's size)
    for its player to move, as ``patterns`` defines them: each child played by ``game.next_state``."""
    n, phases = spec.size, spec.phases
    own, opp = _view(state)
    p = int(phase_of((own | opp).bit_count(), n, phases))
    value = math.tanh(_sum(spec, params, _digits(spec, own, opp), p))
    logits = np.full(spec.actions, NEG)
    legal = np.flatnonzero(game.legal_mask(state))
    if list(legal) == [game.pass_action]:
        logits[game.pass_action] = 0.0
        return logits, value
    scale, prior = params["prior"]["scale"], params["prior"]["kernel"]
    for action in legal:
        child = game.next_state(state, int(action))
        child_own, child_opp = _view(child)
        pc = int(phase_of((child_own | child_opp).bit_count(), n, phases))
        child_value = math.tanh(_sum(spec, params, _digits(spec, child_own, child_opp), pc))
        logits[action] = -float(scale[p]) * child_value + float(prior[p, spec.geometry.square_class[action]])
    return logits, value
