"""Hex's rules as numba functions of plain integers, for the compiled self-play search.

``azcourse.alphazero.compiled_search`` plays moves inside its compiled tree search with these
functions instead of ``Hex`` (``game.py``), whose states are Python objects. The board is kept as
two bitboards (boards up to 8 x 8 fit in 64 bits) and a win is found by growing the placed stone's
group over its neighbours with shifts. ``tests/test_compiled_search.py`` checks that both agree on
random games (legal moves, next states, the end, the results, the encoding).

A position is five numbers, its *words*:
    ``first``, ``second``: uint64 bitboards of the stones of player 0 (``X``, cell value 1) and
    player 1 (``O``, cell value 2), bit ``r * n + c`` for cell ``(r, c)``;
    ``moves``: uint64, the empty cells while the game goes on, 0 once it is over;
    ``player``: the player to move;
    ``result``: -1 while the game goes on, then the winner (0 or 1; Hex has no draws).

``table(n)`` holds what the functions need to know of the board size: uint64 ``(7,)``, the full
board, the board without its first column and without its last column (where a sideways step may
land without wrapping around a row), then player 0's sides (the first and last rows) and player 1's
(the first and last columns).
"""
from __future__ import annotations

import numba
import numpy as np

from .game import HexState

FULL, NOT_FIRST_COL, NOT_LAST_COL, SIDES = 0, 1, 2, 3  # SIDES + 2 * player: that player's first side, then its last
ONE, ZERO = np.uint64(1), np.uint64(0)


def table(n: int) -> np.ndarray:
    """The uint64 ``(7,)`` table of an ``n`` x ``n`` board (see the module docstring)."""
    full = (1 << n * n) - 1
    first_col = sum(1 << r * n for r in range(n))
    last_col = first_col << (n - 1)
    first_row = (1 << n) - 1
    last_row = first_row << n * (n - 1)
    return np.array([full, full & ~first_col, full & ~last_col, first_row, last_row, first_col, last_col],
                    dtype=np.uint64)


def words(state: HexState) -> tuple[int, int, int, int, int]:
    """``(first, second, moves, player, result)`` of a ``HexState`` (see the module docstring)."""
    first = sum(1 << i for i, cell in enumerate(state.cells) if cell == 1)
    second = sum(1 << i for i, cell in enumerate(state.cells) if cell == 2)
    empty = sum(1 << i for i, cell in enumerate(state.cells) if cell == 0)
    return first, second, empty if state.winner < 0 else 0, state.player, state.winner


@numba.njit(cache=True)
def neighbours(bits, n, tab):
    """uint64: the cells next to a cell of ``bits`` (up, up-right, left, right, down-left, down)."""
    size, side = np.uint64(n), np.uint64(n - 1)
    return ((bits >> size) | ((bits >> side) & tab[NOT_FIRST_COL]) | ((bits >> ONE) & tab[NOT_LAST_COL])
            | ((bits << ONE) & tab[NOT_FIRST_COL]) | ((bits << side) & tab[NOT_LAST_COL]) | (bits << size)) & tab[FULL]


@numba.njit(cache=True)
def play(n, tab, first, second, player, action):
    """The words ``(first, second, moves, player, result)`` after ``player`` plays on the empty cell ``action``."""
    bit = ONE << np.uint64(action)
    if player == 0:
        first |= bit
        own = first
    else:
        second |= bit
        own = second
    start, end = tab[SIDES + 2 * player], tab[SIDES + 2 * player + 1]
    group, won = bit, False
    while True:  # grow the new stone's group until it joins both sides or stops growing
        if group & start and group & end:
            won = True
            break
        grown = (group | neighbours(group, n, tab)) & own
        if grown == group:
            break
        group = grown
    if won:
        return first, second, ZERO, 1 - player, player
    return first, second, tab[FULL] & ~(first | second), 1 - player, -1


@numba.njit(cache=True)
def legal_actions(n, moves, result, out):
    """Write the legal actions (the empty cells), increasing, into ``out`` (int64, ``n * n`` long); their number."""
    k = 0
    for i in range(n * n):
        if (moves >> np.uint64(i)) & ONE:
            out[k] = i
            k += 1
    return k


@numba.njit(cache=True)
def encode(n, first, second, player, out):
    """``Hex.encode`` into ``out``, float32 ``(2 + 2 * n * n,)``: who moves, then two bits per cell."""
    out[0] = player == 0
    out[1] = player == 1
    for i in range(n * n):
        bit = np.uint64(i)
        out[2 + 2 * i] = (first >> bit) & ONE
        out[3 + 2 * i] = (second >> bit) & ONE
