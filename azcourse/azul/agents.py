"""Baseline Azul agents: the yardsticks for every later strength figure.

An *agent* is a callable ``agent(board, rng) -> int``: ``board`` is a canonical ``Azul_Simulator``
board (the player to move owns the first section), ``rng`` a ``numpy.random.Generator`` the agent may
draw from, and the result an action index (0-180) that is legal on ``board``. Play loops apply the
``NOOP`` refill themselves; an agent asked to move when ``NOOP`` is the only legal action returns it.
Asking an agent to move after the game is over raises ``ValueError``.

``greedy_agent`` scores every legal take in one numba pass over the decoded board (no board copies
through ``get_next_state``), using the engine's own ``score_placement`` and ``floor_penalty``; a move
costs about 25 microseconds on the course machine (``benchmarks/bench_azul_engine.py``), and the
tests check it against ``get_next_state`` followed by ``wall_tiling`` on thousands of positions.

``AGENTS`` maps a name to a zero-argument factory that builds the agent, so that agents which are
costly to build (a trained model loaded from ``ckpts/``) are built only when chosen; later modules
add their names to it. ``make_agent(name)`` builds one.
"""
from __future__ import annotations

from typing import Callable

import numba
import numpy as np

from Azul_Simulator import (
    FLOOR, N_COLOURS, N_DESTINATIONS, N_TAKES, NOOP, AzulState, floor_penalty, get_valid_mask,
    score_placement,
)

Agent = Callable[[np.ndarray, np.random.Generator], int]

_GAME_OVER = "The game is over: an agent has no move to choose."


def _legal_actions(board: np.ndarray) -> np.ndarray:
    """Indices of the legal actions; raises ValueError once the game is over (none are legal)."""
    legal = np.flatnonzero(get_valid_mask(board))
    if legal.size == 0:
        raise ValueError(_GAME_OVER)
    return legal


def random_agent(board: np.ndarray, rng: np.random.Generator) -> int:
    """A legal action drawn uniformly at random with ``rng`` (``NOOP`` when it is the only one)."""
    legal = _legal_actions(board)
    return int(legal[int(rng.random() * legal.size)])


# ----------------------------------------------------------------------------------------------
# Greedy: the take that maximises the score the player would have if wall-tiling happened now
# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _score_if_tiled_now(score, pattern, wall, n_floor, tiled):
    """Score after a wall-tiling of ``pattern`` against ``wall`` with ``n_floor`` floor items, as the
    engine's rules 11-13 give it: complete lines top to bottom, each scored by ``score_placement``
    on the wall as it stands, then ``floor_penalty``, clamped at 0. ``wall`` is not modified;
    ``tiled`` is a (5, 5) bool scratch array that receives the wall after tiling."""
    tiled[:, :] = wall
    for row in range(5):
        for colour in range(N_COLOURS):
            if pattern[row, colour] == row + 1:
                col = (colour + row) % 5
                score += score_placement(tiled, row, col)
                tiled[row, col] = True
    return max(score + floor_penalty(n_floor), 0)


@numba.njit(cache=True)
def _evaluate_takes(mask, factories, centre, marker_in_centre, score, pattern, wall, n_floor):
    """Kernel of ``evaluate_takes`` on the decoded parts of a board (see there)."""
    values = np.full(N_TAKES, -1, dtype=np.int64)
    line_tiles = np.full(N_TAKES, -1, dtype=np.int64)
    after = pattern.copy()
    tiled = np.empty((5, 5), dtype=np.bool_)
    for action in range(N_TAKES):
        if not mask[action]:
            continue
        source = action // (N_COLOURS * N_DESTINATIONS)
        colour = (action // N_DESTINATIONS) % N_COLOURS
        destination = action % N_DESTINATIONS
        n = centre[colour] if source == 0 else factories[source - 1, colour]
        placed = 0
        if destination != FLOOR:  # rule 7: fill the line, the excess goes to the floor
            placed = min(n, destination + 1 - pattern[destination, colour])
            after[destination, colour] += placed
        takes_marker = 1 if source == 0 and marker_in_centre else 0  # rule 6
        values[action] = _score_if_tiled_now(score, after, wall, n_floor + takes_marker + n - placed,
                                             tiled)
        line_tiles[action] = placed
        if placed:
            after[destination, colour] -= placed
    return values, line_tiles


def evaluate_takes(board: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What each take would give the player to move if wall-tiling happened right after it.

    Args:
        board: (160,) canonical board.
    Returns:
        ``(values, line_tiles)``, each an int64 array of shape (180,) indexed by take action, -1 where
        the take is illegal. ``values[a]``: the player's score after take ``a`` followed at once by
        wall-tiling (every complete pattern line tiled top to bottom, the floor penalty with the
        marker counted, clamped at 0). ``line_tiles[a]``: tiles take ``a`` puts on a pattern line
        (the rest go to the floor or the lid).
    """
    return _evaluate_legal_takes(board, get_valid_mask(board))


def _evaluate_legal_takes(board: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``evaluate_takes`` with the legal mask already computed."""
    state = AzulState.decode(board)
    me = state.players[0]
    n_floor = int(me.floor.sum()) + int(me.has_marker)
    return _evaluate_takes(mask, state.factories, state.centre, state.marker_in_centre,
                           me.score, me.pattern, me.wall, n_floor)


def greedy_candidates(board: np.ndarray) -> np.ndarray:
    """The takes the greedy agent chooses among: those with the highest ``values`` of
    ``evaluate_takes``, and among them the most ``line_tiles``. Sorted action indices; ``[NOOP]``
    when the refill is the only legal action. Raises ValueError once the game is over."""
    mask = get_valid_mask(board)
    if mask[NOOP]:
        return np.array([NOOP])
    if not mask.any():
        raise ValueError(_GAME_OVER)
    return _best_takes(*_evaluate_legal_takes(board, mask))


@numba.njit(cache=True)
def _best_takes(values, line_tiles):
    """Actions with the highest ``values``, and among them the most ``line_tiles`` (sorted)."""
    key = values * N_DESTINATIONS + line_tiles  # line_tiles <= 5: orders by value, then tiles
    return np.flatnonzero(key == key.max())


def greedy_agent(board: np.ndarray, rng: np.random.Generator) -> int:
    """The take that maximises the score the player would have if wall-tiling happened right after
    it (floor and marker included, clamped at 0); ties go to the take that puts more tiles on pattern
    lines, and remaining ties are broken uniformly at random with ``rng`` (drawn from only then)."""
    candidates = greedy_candidates(board)
    if candidates.size == 1:
        return int(candidates[0])
    return int(candidates[int(rng.random() * candidates.size)])


AGENTS: dict[str, Callable[[], Agent]] = {
    "random": lambda: random_agent,
    "greedy": lambda: greedy_agent,
}
# Trained models from ckpts/ ("baseline", "strong", "strong+search"), loaded only when chosen.
from azcourse.azul.checkpoints import MODEL_AGENTS  # noqa: E402

AGENTS.update(MODEL_AGENTS)


def make_agent(name: str) -> Agent:
    """The agent registered as ``name`` in ``AGENTS``; raises ValueError listing the known names."""
    if name not in AGENTS:
        raise ValueError(f"Unknown agent {name!r}; choose one of {', '.join(sorted(AGENTS))}.")
    return AGENTS[name]()
