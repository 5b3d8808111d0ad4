"""Othello's exact endgame: perfect play from a position to the end, in numba on the compiled bitboards.

The rules are ``azcourse.othello.compiled``'s (the same as ``game.py``'s, tested against them): a
player without a placing move passes (action ``n * n``), and the game ends when neither player has
one. The result counts discs only: the *margin* is the mover's discs minus the opponent's on the
final board, empty squares counting for nobody (``Othello.returns``: its sign is the result).

Search
    Negamax with fail-soft alpha-beta on the margin. A window of ``(-1, 1)`` (``exact=False``) only
    decides win, draw or loss and searches far fewer positions; the full window gives the exact
    margin. Moves are tried fastest first, by the replies each leaves the opponent (corner replies
    counting double), a move into a quadrant with an odd number of empty squares counted as
    ``PARITY_BONUS`` replies fewer (parity: there the mover can have the region's last move); ties
    keep the squares' order. With ``SHALLOW`` or
    fewer empty squares the moves are found square by square (a square is a move when it flips
    something), odd quadrants first, and the last empty square is played without generating moves.
    A pass leaves the empty squares as they are and searches on with the window negated; two passes
    in a row (no move for either side) end the game.
Words
    ``solve_words(n, tab, black, white, player, alpha, beta, nodes)`` is the compiled entry point, on
    the words of ``compiled.py`` (``black``, ``white`` uint64, ``player`` 0 or 1, ``tab =
    compiled.table(n)``) and a window ``alpha < beta`` of margins: it returns ``(value, action)``, the
    value exact when it lies strictly inside the window and otherwise a bound on that side (fail
    soft), the action a move that reaches it (the pass ``n * n`` when the mover has none; -1 when the
    game is over, the value then its final margin). ``nodes`` (int64 ``(1,)``) counts the positions
    searched. A compiled search can call it on its own words, e.g. with the window ``(-1, 1)`` at a
    node with few empty squares to prove its result.
``solve(game, state, exact=True)`` is the same from Python, on an ``OthelloState``.
``Endgame(game, empties)``
    What a player needs of it from a number of empty squares on (``azcourse.alphazero.agent`` with
    ``endgame_empties``): ``move(state)``, the exact margin's best move, and ``proof(state)``, the result
    with perfect play (win/draw/loss) as the players' returns, for ``azcourse.core.proofs``.
"""
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .compiled import FULL, ONE, ZERO, flips, placing_moves, popcount, table
from .game import Othello, OthelloState

SHALLOW = 6  # at most this many empty squares: moves found square by square, ordered by parity only
MAX_EMPTIES = 22  # ``solve`` refuses positions with more empty squares (the search's time grows exponentially)
INFINITY = 1000  # beyond every margin
PARITY_BONUS = 1  # a move into an odd quadrant is ordered as if it left the opponent this many replies fewer


class Solution(NamedTuple):
    """The solved position, from the view of the player to move.

    Attributes:
        result: +1 the mover wins with perfect play, 0 a draw, -1 the mover loses.
        margin: the exact final disc difference (mover's minus opponent's) with perfect play from both
            sides, or None when only the result was asked (``exact=False``).
        action: a best move (the pass ``n * n`` when the mover has no placing move); with
            ``exact=False`` a move that keeps the result (any move of a lost position).
        nodes: positions searched.
    """

    result: int
    margin: int | None
    action: int
    nodes: int


@numba.njit(cache=True)
def lowest_square(bits):
    """The index of the lowest set bit of a non-zero uint64."""
    return np.int64(popcount((bits & (~bits + ONE)) - ONE))


@numba.njit(cache=True)
def final_margin(own, opponent):
    """int64: ``own``'s discs minus ``opponent``'s."""
    return np.int64(popcount(own)) - np.int64(popcount(opponent))


@numba.njit(cache=True)
def layout(n):
    """uint64 ``(5,)``: the four quadrants of an ``n`` x ``n`` board (``n / 2`` squares a side, the
    parity's regions), then the four corners."""
    out = np.zeros(5, dtype=np.uint64)
    half = n // 2
    for r in range(n):
        for c in range(n):
            out[(r >= half) * 2 + (c >= half)] |= ONE << np.uint64(r * n + c)
    for square in (0, n - 1, n * (n - 1), n * n - 1):
        out[4] |= ONE << np.uint64(square)
    return out


@numba.njit(cache=True)
def _last(own, opponent, empty, tab):
    """The margin for ``own`` when one square, ``empty``, is left: the mover plays it if it flips
    anything, else the opponent does if it can, else the game ends."""
    square = lowest_square(empty)
    flipped = flips(own, opponent, square, tab)
    if flipped != ZERO:
        gained = np.int64(popcount(flipped))
        return final_margin(own, opponent) + 2 * gained + 1
    flipped = flips(opponent, own, square, tab)
    if flipped != ZERO:
        gained = np.int64(popcount(flipped))
        return final_margin(own, opponent) - 2 * gained - 1
    return final_margin(own, opponent)


@numba.njit(cache=True)
def _shallow(own, opponent, alpha, beta, n, tab, regions, nodes):
    """The margin for ``own`` (mover) with at most ``SHALLOW`` empty squares, fail-soft in
    ``(alpha, beta)``: moves found square by square, odd quadrants first."""
    nodes[0] += 1
    empty = ~(own | opponent) & tab[FULL]
    if popcount(empty) == ONE:
        return _last(own, opponent, empty, tab)
    best, moved = -INFINITY, False
    for odd in (1, 0):
        for q in range(4):
            region = empty & regions[q]
            if np.int64(popcount(region) & ONE) != odd:
                continue
            while region != ZERO:
                square = lowest_square(region)
                region &= region - ONE
                flipped = flips(own, opponent, square, tab)
                if flipped == ZERO:
                    continue
                moved = True
                value = -_shallow(opponent & ~flipped, own | (ONE << np.uint64(square)) | flipped,
                                  -beta, -alpha, n, tab, regions, nodes)
                if value > best:
                    best = value
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            return best
    if moved:
        return best
    if placing_moves(opponent, own, n, tab) == ZERO:
        return final_margin(own, opponent)
    return -_shallow(opponent, own, -beta, -alpha, n, tab, regions, nodes)  # the pass


@numba.njit(cache=True)
def _order(own, opponent, moves, empty, n, tab, regions, squares, flipped_of):
    """Write ``moves``' squares into ``squares`` (int64) and their flips into ``flipped_of`` (uint64),
    fastest first (see the module docstring); their number."""
    keys = np.empty(squares.shape[0], dtype=np.int64)
    k = 0
    while moves != ZERO:
        square = lowest_square(moves)
        moves &= moves - ONE
        bit = ONE << np.uint64(square)
        flipped = flips(own, opponent, square, tab)
        replies = placing_moves(opponent & ~flipped, own | bit | flipped, n, tab)
        key = np.int64(popcount(replies)) + np.int64(popcount(replies & regions[4]))
        for q in range(4):
            if bit & regions[q] and popcount(empty & regions[q]) & ONE:
                key -= PARITY_BONUS
        j = k  # insertion, stable: equal keys keep the squares' order
        while j > 0 and keys[j - 1] > key:
            keys[j], squares[j], flipped_of[j] = keys[j - 1], squares[j - 1], flipped_of[j - 1]
            j -= 1
        keys[j], squares[j], flipped_of[j] = key, square, flipped
        k += 1
    return k


@numba.njit(cache=True)
def _negamax(own, opponent, alpha, beta, n, tab, regions, squares, flipped_of, nodes):
    """The margin for ``own`` (mover), fail-soft in ``(alpha, beta)``; ``squares`` and ``flipped_of``
    are the work rows, one per number of empty squares."""
    empty = ~(own | opponent) & tab[FULL]
    e = np.int64(popcount(empty))
    if e <= SHALLOW:
        return _shallow(own, opponent, alpha, beta, n, tab, regions, nodes)
    nodes[0] += 1
    moves = placing_moves(own, opponent, n, tab)
    if moves == ZERO:
        if placing_moves(opponent, own, n, tab) == ZERO:
            return final_margin(own, opponent)
        return -_negamax(opponent, own, -beta, -alpha, n, tab, regions, squares, flipped_of, nodes)  # the pass
    k = _order(own, opponent, moves, empty, n, tab, regions, squares[e], flipped_of[e])
    best = -INFINITY
    for i in range(k):
        square, flipped = squares[e, i], flipped_of[e, i]
        value = -_negamax(opponent & ~flipped, own | (ONE << np.uint64(square)) | flipped, -beta, -alpha,
                          n, tab, regions, squares, flipped_of, nodes)
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


@numba.njit(cache=True)
def solve_words(n, tab, black, white, player, alpha, beta, nodes):
    """``(value, action)`` of the position ``(black, white, player)`` for the player to move, searched in
    the window ``(alpha, beta)`` of margins (see the module docstring); ``nodes[0]`` grows by the
    positions searched."""
    own, opponent = (black, white) if player == 0 else (white, black)
    regions = layout(n)
    rows = n * n + 1
    squares = np.zeros((rows, n * n), dtype=np.int64)
    flipped_of = np.zeros((rows, n * n), dtype=np.uint64)
    moves = placing_moves(own, opponent, n, tab)
    if moves == ZERO:
        if placing_moves(opponent, own, n, tab) == ZERO:
            return final_margin(own, opponent), np.int64(-1)
        value = -_negamax(opponent, own, -beta, -alpha, n, tab, regions, squares, flipped_of, nodes)
        return value, np.int64(n * n)
    nodes[0] += 1
    empty = ~(own | opponent) & tab[FULL]
    e = np.int64(popcount(empty))
    k = _order(own, opponent, moves, empty, n, tab, regions, squares[e], flipped_of[e])
    best, action = -INFINITY, np.int64(squares[e, 0])
    for i in range(k):
        square, flipped = squares[e, i], flipped_of[e, i]
        value = -_negamax(opponent & ~flipped, own | (ONE << np.uint64(square)) | flipped, -beta, -alpha,
                          n, tab, regions, squares, flipped_of, nodes)
        if value > best:
            best, action = value, square
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best, action


def solve(game: Othello, state: OthelloState, exact: bool = True, max_empties: int = MAX_EMPTIES) -> Solution:
    """The ``Solution`` of ``state`` (not finished) with perfect play from both sides.

    Args:
        exact: the exact margin (full window); False: only win, draw or loss (the window ``(-1, 1)``).
        max_empties: refuse positions with more empty squares than this.
    Raises:
        ValueError: the game is over, or more than ``max_empties`` squares are empty.
    """
    if not isinstance(game, Othello):
        raise TypeError(f"the endgame solver plays Othello, got {type(game).__name__}")
    if state.over:
        raise ValueError("the game is over: there is nothing to solve")
    n = game.size
    empties = n * n - (state.black | state.white).bit_count()
    if empties > max_empties:
        raise ValueError(f"{empties} empty squares is more than the solver's limit of {max_empties} "
                         "(its time grows about threefold with each square)")
    bound = n * n + 1 if exact else 1
    nodes = np.zeros(1, dtype=np.int64)
    value, action = solve_words(n, _table(n), np.uint64(state.black), np.uint64(state.white),
                                np.int64(state.player), np.int64(-bound), np.int64(bound), nodes)
    value = int(value)
    return Solution(int(np.sign(value)), value if exact else None, int(action), int(nodes[0]))


def empty_squares(game: Othello, state: OthelloState) -> int:
    """The empty squares of ``state``'s board."""
    return game.size * game.size - (state.black | state.white).bit_count()


class Endgame:
    """The exact endgame of positions with at most ``empties`` empty squares (``azcourse.registry.make_endgame``).

    Args:
        game: the ``Othello`` game.
        empties: the most empty squares it solves (1 to ``MAX_EMPTIES``).
    Raises:
        TypeError: not Othello. ValueError: ``empties`` out of range.
    """

    def __init__(self, game: Othello, empties: int):
        if not isinstance(game, Othello):
            raise TypeError(f"the endgame solver plays Othello, got {type(game).__name__}")
        if not 1 <= int(empties) <= MAX_EMPTIES:
            raise ValueError(f"the exact endgame solves 1 to {MAX_EMPTIES} empty squares, got {empties}")
        self.game, self.empties = game, int(empties)
        self.proofs: dict = {}  # (black, white, player) -> proof(state), solved once

    def solves(self, state: OthelloState) -> bool:
        """Whether ``state`` is a position it solves: unfinished, with at most ``empties`` empty squares."""
        return not state.over and empty_squares(self.game, state) <= self.empties

    def move(self, state: OthelloState) -> int | None:
        """A move of the largest final margin with perfect play (``solve(exact=True)``); None where it does not
        solve ``state``."""
        return solve(self.game, state, exact=True).action if self.solves(state) else None

    def proof(self, state: OthelloState) -> tuple[np.ndarray, int] | None:
        """``(returns, plies)`` of ``state`` with perfect play where it solves it (the window (-1, 1)), else None:
        ``returns`` the players' results as ``game.returns`` gives them; ``plies`` the empty squares, the placing
        moves left if the board fills (a game can end sooner, and passes add plies: an estimate of the line's
        length)."""
        if not self.solves(state):
            return None
        key = (state.black, state.white, state.player)
        if key not in self.proofs:
            result = solve(self.game, state, exact=False).result
            returns = np.zeros(2)
            returns[state.player], returns[1 - state.player] = result, -result
            self.proofs[key] = returns, empty_squares(self.game, state)
        returns, plies = self.proofs[key]
        return returns.copy(), plies


_TABLES: dict[int, np.ndarray] = {}


def _table(n: int) -> np.ndarray:
    """``compiled.table(n)``, built once a size."""
    if n not in _TABLES:
        _TABLES[n] = table(n)
    return _TABLES[n]
