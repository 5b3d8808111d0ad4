"""Fast hand-written evaluation of Azul positions (numba), used as a teacher and as a search leaf.

The *projected score* of a player is what the score would be if the round ended now: every complete
pattern line is tiled top to bottom and scored against the wall as it stands (rule 11-12), the floor
penalty is applied and the score clamped at 0 (rule 13). On top of that exact part it adds small,
documented credits for what is not yet scored:

* ``PARTIAL_LINE``: per incomplete pattern line, ``PARTIAL_LINE * held / capacity`` (a line that is
  almost full is worth something next round),
* ``BONUS_WEIGHT`` times the end-game bonuses (rule 19) of the projected wall, counted fractionally:
  a row with k of 5 tiles counts ``2 (k/5)^2``, a column ``7 (k/5)^2``, a colour ``10 (k/5)^2``
  (complete items count in full; they will be scored when the game ends).

On a finished game the projection is the real final score. ``evaluate(board)`` turns the projected
score difference into a value in [-1, 1] with ``tanh(diff / VALUE_SCALE)`` from the viewpoint of the
player to move, the same convention as ``Azul_Simulator.get_reward``; ``prior(board)`` turns the projected
score after each take into move probabilities. Both guide a search (``Azul.guide``).

``heuristic_greedy_action`` is the one-ply greedy reference used to warm-start training: it plays the
take that maximises the mover's projected score after the move (ties: fewest tiles to the floor,
then the lowest index). The course's ``greedy`` opponent is the one in ``azcourse.azul.agents``;
this function only exists so that training does not depend on it.
"""
from __future__ import annotations

import numba
import numpy as np

import Azul_Simulator as az

PARTIAL_LINE = 0.6
BONUS_WEIGHT = 0.5
VALUE_SCALE = 12.0
PRIOR_TEMPERATURE = 2.0  # of ``prior``'s softmax over projected scores

_P_SCORE = az.P_SCORE
_P_PATTERN = az.P_PATTERN
_P_WALL = az.P_WALL
_P_FLOOR = az.P_FLOOR
_P_MARKER = az.P_MARKER
_ME, _OPP = az.PLAYER
_GAME_OVER = az.GAME_OVER
_SEAT = az.SEAT
_FLOOR_PEN = np.array([0, -1, -2, -4, -6, -8, -11, -14], dtype=np.int64)  # cumulative, 0..7 items


@numba.njit(cache=True)
def projected_score(board, p, partial_line, bonus_weight):
    """Projected score (float) of the player section starting at ``p`` (44 or 102)."""
    wall = np.zeros((5, 5), dtype=np.int64)
    for r in range(5):
        for c in range(5):
            wall[r, c] = board[p + _P_WALL + 5 * r + c]
    score = np.int64(board[p + _P_SCORE])
    if board[_GAME_OVER]:
        return float(score)
    partial = 0.0
    for row in range(5):
        for colour in range(5):
            held = board[p + _P_PATTERN + 5 * row + colour]
            if held == row + 1:
                col = (colour + row) % 5
                score += az.score_placement(wall, row, col)
                wall[row, col] = 1
            elif held > 0:
                partial += partial_line * held / (row + 1)
    items = board[p + _P_MARKER]
    for c in range(5):
        items += board[p + _P_FLOOR + c]
    if items > 7:
        items = 7
    score += _FLOOR_PEN[items]
    if score < 0:
        score = 0
    bonus = 0.0
    for r in range(5):
        k = 0
        for c in range(5):
            k += wall[r, c]
        bonus += 2.0 * (k / 5.0) ** 2
    for c in range(5):
        k = 0
        for r in range(5):
            k += wall[r, c]
        bonus += 7.0 * (k / 5.0) ** 2
    for colour in range(5):
        k = 0
        for r in range(5):
            k += wall[r, (colour + r) % 5]
        bonus += 10.0 * (k / 5.0) ** 2
    return score + partial + bonus_weight * bonus


@numba.njit(cache=True)
def projected_diff(board):
    """Projected score of the player to move minus the opponent's (float)."""
    return (projected_score(board, _ME, PARTIAL_LINE, BONUS_WEIGHT)
            - projected_score(board, _OPP, PARTIAL_LINE, BONUS_WEIGHT))


@numba.njit(cache=True)
def evaluate(board):
    """Value in [-1, 1] for the player to move: exact +-1/0 on a finished game, else
    ``tanh(projected_diff / VALUE_SCALE)``."""
    if board[_GAME_OVER]:
        reward, _ = az.get_reward(board)
        return float(reward)
    return np.tanh(projected_diff(board) / VALUE_SCALE)


@numba.njit(cache=True)
def _own_section(board, seat):
    return _ME if board[_SEAT] == seat else _OPP


@numba.njit(cache=True)
def greedy_scores(board):
    """(181,) float: for each legal take, the mover's projected score after it; -inf if illegal.
    Ties are broken by a small penalty per tile sent to the floor."""
    mask = az.get_valid_mask(board)
    out = np.full(az.ACTION_DIM, -np.inf)
    seat = board[_SEAT]
    for a in range(az.N_TAKES):
        if mask[a]:
            nxt = az._take(board, a)
            p = _own_section(nxt, seat)
            floor = 0
            for c in range(5):
                floor += nxt[p + _P_FLOOR + c]
            out[a] = projected_score(nxt, p, PARTIAL_LINE, BONUS_WEIGHT) - 1e-3 * floor
    if mask[az.NOOP]:
        out[az.NOOP] = 0.0
    return out


def prior(board: np.ndarray, temperature: float = PRIOR_TEMPERATURE) -> np.ndarray:
    """float64 (181,): softmax of the mover's projected score after each take (``greedy_scores``) over
    ``temperature``, zero on illegal takes (a search prior)."""
    scores = greedy_scores(board)
    legal = np.isfinite(scores)
    p = np.exp(np.where(legal, (scores - scores[legal].max()) / temperature, -np.inf))
    return p / p.sum()


@numba.njit(cache=True)
def heuristic_greedy_action(board):
    """Index of the greedy reference move (see the module docstring); NOOP when it is the only move."""
    return int(np.argmax(greedy_scores(board)))
