"""An independent Azul yardstick: depth-limited alpha-beta with a hand-made evaluation.

    python benchmarks/azul_alphabeta.py --opponent greedy --depth 3 --games 400 --seed 0 [--workers 2]
    python benchmarks/azul_alphabeta.py --opponent strong+search:800 --depth 3 --width 7 --time-limit 1

A yardstick for benchmarks only: it is not used in training and nothing in ``azcourse/`` imports it.
It plays like a good student's competition entry, built on the engine's public functions
(``Azul_Simulator``) and nothing of the pack's own players (no network, no
``azcourse.azul.heuristics``), so that "the model beats it" means something of its own.

Search
    Negamax with alpha-beta inside the current round only. The refill that ends a round is the only
    chance step, so a round is a deterministic two-player game with strictly alternating turns; a
    position whose offer is exhausted (the round's end) or at depth 0 is evaluated, never expanded.
    At each node the takes are ordered by a one-ply score and only the best ``width`` are searched:
    the mover's evaluation right after the take plus ``DENIAL`` times what the opponent would have
    gained from the same tiles (so taking what the opponent needs is not pruned away). Floor takes
    are ranked like any other, and a node keeps every legal take when it has ``width`` or fewer. On
    the last ply every take is scored, not just the best ``width``: one numba pass gives the
    evaluation of every child without building a board. ``depth`` is 1 to 5 plies; with
    ``time_limit`` the search deepens from 1 ply and plays the move of the deepest finished
    iteration. The agent is deterministic (ties go to the take ordered first); ``rng`` is unused.
Evaluation (points; my value minus the opponent's, so swapping the viewpoint negates it)
    A player's value is the *projected score*, the score if wall-tiling happened now (complete pattern
    lines tiled top to bottom, each scored with its adjacency, then the floor penalty with the
    first-player marker counted, clamped at 0), plus credits for what is not scored yet:

    * end-game bonuses (rule 19) of the projected wall: a complete row, column or colour counts in
      full (2, 7, 10); one missing ``m`` tiles counts ``BONUS_HOPE * (1 - m / (speed * R + 1))`` of
      its bonus, or nothing when ``m > speed * R``, where ``R`` = rounds the game lasts at least after
      this one (5 minus the fullest projected row of either wall) and ``speed`` = tiles an item can
      gain a round (1 for a row, 2 for a column or a colour);
    * ``LINE_CREDIT`` times a partly filled pattern line's fill fraction times the points its tile
      would score on the projected wall (nothing when ``R`` is 0: the game ends with this round);
    * ``MARKER_CREDIT`` for holding the first-player marker (starting the next round), when ``R > 0``.

    A finished game is worth the final score difference.
"""
from __future__ import annotations

import argparse
import functools
import time

import numba
import numpy as np

import Azul_Simulator as az
from Azul_Simulator import (
    CENTRE, FACTORIES, GAME_OVER, MARKER_IN_CENTRE, N_TAKES, NOOP, P_FLOOR, P_MARKER, P_PATTERN, P_SCORE,
    P_WALL, SEAT,
)

ME, OPP = az.PLAYER  # section of the player to move, of the opponent
ROW_BONUS, COLUMN_BONUS, COLOUR_BONUS = 2.0, 7.0, 10.0  # rule 19
BONUS_HOPE = 0.6  # the most an incomplete bonus item is credited, as a fraction of its bonus
LINE_CREDIT = 0.5  # credit of a partly filled pattern line, per fill fraction and placement point
MARKER_CREDIT = 0.5  # starting the next round
DENIAL = 0.5  # weight of the opponent's lost gain in the move ordering
MAX_DEPTH = 5


# ----------------------------------------------------------------------------------------------
# Evaluation (numba): boards are the engine's (160,) int16 vectors; p, q are section offsets
# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _project(board, p, tiled):
    """Score (int) of section ``p`` if wall-tiling happened now (rules 11-13); ``tiled``, an int64
    (5, 5) scratch array, receives the wall after that tiling."""
    for row in range(5):
        for col in range(5):
            tiled[row, col] = board[p + P_WALL + 5 * row + col]
    score = np.int64(board[p + P_SCORE])
    for row in range(5):
        for colour in range(5):
            if board[p + P_PATTERN + 5 * row + colour] == row + 1:
                col = (colour + row) % 5
                score += az.score_placement(tiled, row, col)
                tiled[row, col] = 1
    items = np.int64(board[p + P_MARKER])
    for colour in range(5):
        items += board[p + P_FLOOR + colour]
    return max(score + az.floor_penalty(items), 0)


@numba.njit(cache=True)
def _fullest_row(tiled):
    """Most tiles in one row of a (5, 5) wall."""
    best = 0
    for row in range(5):
        best = max(best, tiled[row].sum())
    return best


@numba.njit(cache=True)
def _hope(missing, rounds, speed):
    """Fraction of a bonus credited to an item ``missing`` tiles short (see the module docstring)."""
    if missing == 0:
        return 1.0
    reach = speed * rounds
    if missing > reach:
        return 0.0
    return BONUS_HOPE * (1.0 - missing / (reach + 1.0))


@numba.njit(cache=True)
def _outlook(board, p, tiled, score, rounds):
    """Value (float, points) of section ``p``: projected ``score`` with wall ``tiled`` (``_project``)
    plus the credits for bonuses, partial lines and the marker, the game lasting ``rounds`` more."""
    value = float(score)
    for i in range(5):
        row = col = colour = 0
        for j in range(5):
            row += tiled[i, j]
            col += tiled[j, i]
            colour += tiled[j, (i + j) % 5]
        value += (ROW_BONUS * _hope(5 - row, rounds, 1) + COLUMN_BONUS * _hope(5 - col, rounds, 2)
                  + COLOUR_BONUS * _hope(5 - colour, rounds, 2))
    if rounds == 0:
        return value
    for row in range(5):
        for colour in range(5):
            held = board[p + P_PATTERN + 5 * row + colour]
            if 0 < held < row + 1:  # its wall cell is empty, or the line could not hold the colour
                points = az.score_placement(tiled, row, (colour + row) % 5)
                value += LINE_CREDIT * points * held / (row + 1)
    if board[p + P_MARKER]:
        value += MARKER_CREDIT
    return value


@numba.njit(cache=True)
def _value(board, p, q):
    """Section ``p``'s value minus section ``q``'s (float, points)."""
    if board[GAME_OVER]:
        return float(board[p + P_SCORE]) - float(board[q + P_SCORE])
    tiled_p = np.empty((5, 5), dtype=np.int64)
    tiled_q = np.empty((5, 5), dtype=np.int64)
    score_p, score_q = _project(board, p, tiled_p), _project(board, q, tiled_q)
    rounds = 5 - max(_fullest_row(tiled_p), _fullest_row(tiled_q))
    return _outlook(board, p, tiled_p, score_p, rounds) - _outlook(board, q, tiled_q, score_q, rounds)


@numba.njit(cache=True)
def _accepts(board, p, row, colour):
    """Whether pattern line ``row`` of section ``p`` may take ``colour`` (rules 7 and 9)."""
    if board[p + P_WALL + 5 * row + (colour + row) % 5]:
        return False
    for other in range(5):
        held = board[p + P_PATTERN + 5 * row + other]
        if held > 0 and (other != colour or held == row + 1):
            return False
    return True


@numba.njit(cache=True)
def _take_values(board, p, q):
    """(180,) float64: ``_value(child, p, q)`` of the child after each take section ``p`` could make
    now (as if it were to move), -inf for the takes it could not make. Builds no child board: only
    ``p``'s pattern line, floor and marker change, and they are set and restored on one copy."""
    values = np.full(N_TAKES, -np.inf)
    work = board.copy()
    tiled_p = np.empty((5, 5), dtype=np.int64)
    tiled_q = np.empty((5, 5), dtype=np.int64)
    score_q = _project(board, q, tiled_q)
    fullest_q = _fullest_row(tiled_q)
    theirs = np.empty(6)
    for rounds in range(6):
        theirs[rounds] = _outlook(board, q, tiled_q, score_q, rounds)
    floor = p + P_FLOOR
    for source in range(6):
        start = CENTRE if source == 0 else FACTORIES + 5 * (source - 1)
        marker = 1 if source == 0 and board[MARKER_IN_CENTRE] else 0  # rule 6
        for colour in range(5):
            n = board[start + colour]
            if n == 0:
                continue
            for destination in range(6):
                cell = p + P_PATTERN + 5 * destination + colour if destination < 5 else floor + colour
                if destination < 5 and not _accepts(board, p, destination, colour):
                    continue
                placed = min(n, destination + 1 - board[cell]) if destination < 5 else 0
                work[cell] += placed
                work[floor + colour] += n - placed  # past 7 items the floor penalty stops growing
                work[p + P_MARKER] += marker
                score_p = _project(work, p, tiled_p)
                rounds = 5 - max(_fullest_row(tiled_p), fullest_q)
                action = (source * 5 + colour) * 6 + destination
                values[action] = _outlook(work, p, tiled_p, score_p, rounds) - theirs[rounds]
                work[cell] = board[cell]
                work[floor + colour] = board[floor + colour]
                work[p + P_MARKER] = board[p + P_MARKER]
    return values


@numba.njit(cache=True)
def _ordering_keys(board, values):
    """(180,) float64 one-ply ordering score of the mover's takes: ``values`` (``_take_values`` of the
    mover) plus ``DENIAL`` times the opponent's best gain from the same source and colour."""
    theirs = _take_values(board, OPP, ME)
    now = _value(board, OPP, ME)
    keys = values.copy()
    for first in range(0, N_TAKES, 6):  # one source and colour: six destinations
        gain = max(theirs[first:first + 6].max() - now, 0.0)
        for action in range(first, first + 6):
            keys[action] += DENIAL * gain
    return keys


def evaluate(board: np.ndarray, seat: int | None = None) -> float:
    """The evaluation of ``board`` for absolute ``seat`` (default: the player to move), in points.

    Args:
        board: (160,) int16 canonical board (``Azul_Simulator``).
        seat: 0 or 1; ``evaluate(b, s) == -evaluate(b, 1 - s)``.
    """
    mine = ME if seat is None or seat == board[SEAT] else OPP
    return float(_value(board, mine, OPP if mine == ME else ME))


# ----------------------------------------------------------------------------------------------
# Search
# ----------------------------------------------------------------------------------------------
class _OutOfTime(Exception):
    """The time cap passed during an iteration of the deepening."""


def _candidates(board: np.ndarray, values: np.ndarray, width: int) -> np.ndarray:
    """The ``width`` best legal takes by ``_ordering_keys`` (all of them if fewer), best first."""
    keys = _ordering_keys(board, values)
    legal = int(np.isfinite(values).sum())
    return np.argsort(-keys, kind="stable")[:min(width, legal)]


def _ends_round(board: np.ndarray, action: int) -> bool:
    """Whether take ``action`` empties the offer (every factory and the centre)."""
    source, colour = divmod(action // 6, 5)
    start = CENTRE if source == 0 else FACTORIES + 5 * (source - 1)
    return int(board[FACTORIES:CENTRE + 5].sum()) == int(board[start + colour])


def _child_value(board, action, values, depth, alpha, beta, width, deadline) -> float:
    """Value for the mover of ``board`` of playing ``action`` with ``depth`` plies in all."""
    if depth == 1 or _ends_round(board, action):
        return float(values[action])
    # inside a round turns alternate, so the child's mover is the opponent
    return -_negamax(az.get_next_state(board, action), depth - 1, -beta, -alpha, width, deadline)


def _negamax(board, depth: int, alpha: float, beta: float, width: int, deadline: float | None) -> float:
    """Value of ``board`` (a take is legal) for the player to move, ``depth`` plies deep, within the
    window ``(alpha, beta)`` (fail-soft)."""
    values = _take_values(board, ME, OPP)
    if depth == 1:
        return float(values.max())
    if deadline is not None and time.perf_counter() > deadline:
        raise _OutOfTime
    best = -np.inf
    for action in _candidates(board, values, width):
        best = max(best, _child_value(board, int(action), values, depth, alpha, beta, width, deadline))
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best


def _root(board, depth: int, width: int, deadline: float | None, first: int | None = None) -> int:
    """The best take at ``depth`` plies; ``first`` (the previous iteration's choice) is searched first."""
    values = _take_values(board, ME, OPP)
    moves = [int(a) for a in _candidates(board, values, width)]
    if first in moves:
        moves.remove(first)
        moves.insert(0, first)
    best, alpha = moves[0], -np.inf
    for action in moves:
        value = _child_value(board, action, values, depth, -np.inf, -alpha, width, deadline)
        if value > alpha:
            best, alpha = action, value
    return best


def alphabeta_agent(depth: int = 3, width: int = 7, time_limit: float | None = None):
    """The yardstick as an agent ``agent(board, rng) -> int`` (``rng`` unused).

    Args:
        depth: plies searched, 1 to 5 (fewer where the round ends first).
        width: takes searched at each node (at least 1), the best by the one-ply ordering.
        time_limit: seconds a move; deepens from 1 ply and plays the deepest finished iteration's
            choice (1 ply always finishes). None searches ``depth`` plies at once.
    Returns:
        A legal action for any unfinished (160,) board; ``NOOP`` when it is the only legal action.
        Raises ValueError once the game is over.
    """
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 1..{MAX_DEPTH}, got {depth}")
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    if time_limit is not None and time_limit <= 0:
        raise ValueError(f"time_limit must be positive seconds, got {time_limit}")

    def agent(board: np.ndarray, rng: np.random.Generator | None = None) -> int:
        if board[GAME_OVER]:
            raise ValueError("The game is over: an agent has no move to choose.")
        if az.get_valid_mask(board)[NOOP]:
            return NOOP
        if time_limit is None:
            return _root(board, depth, width, None)
        deadline = time.perf_counter() + time_limit
        choice = _root(board, 1, width, None)
        for plies in range(2, depth + 1):
            try:
                choice = _root(board, plies, width, deadline, first=choice)
            except _OutOfTime:
                break
        return choice

    agent.name = f"alphabeta-d{depth}w{width}" + (f"@{time_limit:g}s" if time_limit else "")
    return agent


# ----------------------------------------------------------------------------------------------
# Command line: matches refereed by the pack's arena
# ----------------------------------------------------------------------------------------------
def yardstick_player(depth: int, width: int, time_limit: float | None, rng: np.random.Generator):
    """The yardstick for one game of ``azcourse.core.arena.play_match`` (module level: workers build it)."""
    from azcourse.core.arena import FunctionAgent
    agent = alphabeta_agent(depth, width, time_limit)
    return FunctionAgent(agent, rng, agent.name)


def match(opponent: str, depth: int = 3, width: int = 7, games: int = 400, seed: int = 0,
          workers: int | None = None, time_limit: float | None = None, progress: bool = True):
    """The yardstick (A) against the arena agent ``opponent`` (``azcourse.azul.arena.build_agent``):
    ``games`` games, seats alternating, each deal played twice; returns the ``MatchSummary``."""
    from azcourse.azul.arena import arena_agent
    from azcourse.azul.game import Azul
    from azcourse.core.arena import play_match
    name = alphabeta_agent(depth, width, time_limit).name
    return play_match(Azul, functools.partial(yardstick_player, depth, width, time_limit),
                      functools.partial(arena_agent, opponent), games, seed, paired_deals=True,
                      workers=workers, progress=progress, names=(name, opponent))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="greedy",
                        help="an arena agent (azcourse.azul.arena): greedy, random, strong, strong+search:800")
    parser.add_argument("--depth", type=int, default=3, help=f"plies, 1..{MAX_DEPTH} (default 3)")
    parser.add_argument("--width", type=int, default=7, help="takes searched at each node (default 7)")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds a move (default: none)")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    args = parser.parse_args(argv)
    from azcourse.core.arena import wilson_interval
    summary = match(args.opponent, args.depth, args.width, args.games, args.seed, args.workers, args.time_limit)
    lo, hi = wilson_interval(summary.wins + 0.5 * summary.draws, summary.games)
    print(summary.text())
    print(f"  score rate {100 * summary.score_rate:.1f}% (a draw counts half; 95% Wilson CI "
          f"{100 * lo:.1f}-{100 * hi:.1f}%)")
    return summary


if __name__ == "__main__":
    main()
