"""Othello's rules as numba functions of plain integers, for the compiled self-play search.

``azcourse.alphazero.compiled_search`` plays moves inside its compiled tree search with these
functions instead of ``Othello`` (``game.py``), whose states are Python objects. They are the same
rules on the same bitboards; ``tests/test_compiled_search.py`` checks that both agree on random
games (legal moves, next states, the end, the results, the encoding).

A position is five numbers, its *words*:
    ``black``, ``white``: uint64 bitboards, bit ``r * n + c`` set for a disc on ``(r, c)``;
    ``moves``: uint64, the mover's placing moves (0 when the mover must pass or the game is over);
    ``player``: the player to move (0 black, 1 white);
    ``result``: -1 while the game goes on, then the winner (0 or 1), or ``DRAW`` (2).
The pass is action ``n * n``, legal exactly when ``moves`` is 0 and the game goes on.

``table(n)`` holds what the functions need to know of the board size: uint64 ``(17,)``, the eight
directions' masks (entries 0-7, the squares a shift may land on without wrapping around a row),
their shift distances (8-15; the first four directions shift towards lower indices, the last four
towards higher ones) and the full board (16).
"""
from __future__ import annotations

import numba
import numpy as np

from .game import DIRECTIONS, OthelloState

DRAW = 2
FULL = 16  # index of the full board in a table
ONE, ZERO = np.uint64(1), np.uint64(0)


def table(n: int) -> np.ndarray:
    """The uint64 ``(17,)`` table of an ``n`` x ``n`` board (see the module docstring)."""
    full = (1 << n * n) - 1
    first_col = sum(1 << r * n for r in range(n))
    last_col = first_col << (n - 1)
    out = np.zeros(17, dtype=np.uint64)
    for d, (dr, dc) in enumerate(DIRECTIONS):  # DIRECTIONS: four steps back, then four forward
        out[d] = full & ~(first_col if dc == 1 else last_col if dc == -1 else 0)
        out[8 + d] = abs(dr * n + dc)
    out[FULL] = full
    return out


def words(state: OthelloState) -> tuple[int, int, int, int, int]:
    """``(black, white, moves, player, result)`` of an ``OthelloState`` (see the module docstring)."""
    result = -1
    if state.over:
        black, white = state.black.bit_count(), state.white.bit_count()
        result = 0 if black > white else 1 if white > black else DRAW
    return state.black, state.white, state.moves, state.player, result


@numba.njit(cache=True)
def popcount(x):
    """Set bits of a uint64."""
    x = x - ((x >> ONE) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(cache=True)
def shifted(bits, d, tab):
    """``bits`` moved one square in direction ``d``, what falls off the board or wraps dropped."""
    if d < 4:
        return (bits >> tab[8 + d]) & tab[d]
    return (bits << tab[8 + d]) & tab[d]


@numba.njit(cache=True)
def placing_moves(own, opponent, n, tab):
    """uint64: the empty squares where ``own``'s owner outflanks at least one disc of ``opponent``."""
    moves = ZERO
    for d in range(8):
        line = shifted(own, d, tab) & opponent
        for _ in range(n - 3):  # a line holds at most n - 2 opponent discs
            line |= shifted(line, d, tab) & opponent
        moves |= shifted(line, d, tab)
    return moves & ~(own | opponent) & tab[FULL]


@numba.njit(cache=True)
def flips(own, opponent, square, tab):
    """uint64: the opponent discs that a disc of ``own``'s owner on ``square`` turns over."""
    flipped = ZERO
    for d in range(8):
        line, x = ZERO, shifted(ONE << np.uint64(square), d, tab)
        while x & opponent:
            line |= x
            x = shifted(x, d, tab)
        if x & own:
            flipped |= line
    return flipped


@numba.njit(cache=True)
def play(n, tab, black, white, player, action):
    """The words ``(black, white, moves, player, result)`` after ``player`` plays the legal ``action``."""
    own, opponent = (black, white) if player == 0 else (white, black)
    if action != n * n:
        flipped = flips(own, opponent, action, tab)
        own |= (ONE << np.uint64(action)) | flipped
        opponent &= ~flipped
    moves = placing_moves(opponent, own, n, tab)  # the next mover's
    result = -1
    if moves == ZERO and placing_moves(own, opponent, n, tab) == ZERO:
        mine, theirs = popcount(own), popcount(opponent)
        result = player if mine > theirs else 1 - player if theirs > mine else DRAW
    if player == 0:
        return own, opponent, moves, 1, result
    return opponent, own, moves, 0, result


@numba.njit(cache=True)
def legal_actions(n, moves, result, out):
    """Write the legal actions, increasing, into ``out`` (int64, at least ``n * n + 1`` long); their number."""
    k = 0
    for i in range(n * n):
        if (moves >> np.uint64(i)) & ONE:
            out[k] = i
            k += 1
    if k == 0 and result < 0:
        out[0] = n * n
        k = 1
    return k


@numba.njit(cache=True)
def encode(n, black, white, moves, player, out):
    """``Othello.encode`` into ``out``, float32 ``(3 * n * n,)``: the mover's discs, the opponent's, its moves."""
    own, opponent = (black, white) if player == 0 else (white, black)
    size = n * n
    for i in range(size):
        bit = np.uint64(i)
        out[i] = (own >> bit) & ONE
        out[size + i] = (opponent >> bit) & ONE
        out[2 * size + i] = (moves >> bit) & ONE
