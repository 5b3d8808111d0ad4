"""A classical Othello engine: a yardstick for benchmarks, never used in training.

Nothing of the AlphaZero trainer reads this module; it exists to measure networks against a player
that nobody trained (``benchmarks/classical_strength.py``). It is a hand-made engine of the classic
kind, written here on the compiled bitboards (``azcourse.othello.compiled``), and in numba so that
it searches 4 to 6 plies in milliseconds: ``azcourse.core.alphabeta`` (generic, pure Python, corners
and mobility) is far weaker and slower.

Search
    Negamax alpha-beta to a fixed ``depth`` in plies (a pass is not counted: a side without a move
    passes and the search goes on at the same depth). Where two or more plies remain, the moves are
    searched best first by the evaluation of the position each leaves, so the pruning cuts most of
    the tree. A finished game is worth ``WIN`` plus its disc margin to the winner, more than any
    evaluation. Once ``endgame_empties`` or fewer squares are empty (12 by default), the move is the
    exact endgame's instead (``azcourse.othello.endgame``, the largest final disc margin). The
    engine is deterministic: among moves of equal value it plays the first in its search order (the
    evaluation's, ties by the lowest square), so games against it differ by the openings and the
    other side's choices.
Evaluation (from the mover's view, an int; ``WEIGHTS``)
    mobility            placing moves of the mover minus the opponent's;
    potential mobility  empty squares next to an opponent disc minus those next to a mover's disc
                        (a frontier of the mover's discs gives the opponent moves later);
    corners             corners held by the mover minus the opponent's;
    X-squares           the diagonal neighbours of an empty corner held, the opponent's minus the
                        mover's (they give the corner away);
    C-squares           the edge neighbours of an empty corner held, likewise;
    stable edge discs   discs in an unbroken run of one colour along an edge from a corner of that
                        colour (they can never be flipped), the mover's minus the opponent's;
    parity              +1 when an odd number of squares is empty (the mover would play the last
                        move if nobody passes), else -1.
"""
from __future__ import annotations

import numba
import numpy as np

from .compiled import FULL, ONE, ZERO, flips, placing_moves, popcount, shifted, table
from .endgame import MAX_EMPTIES, lowest_square, solve
from .game import Othello, OthelloState

DEFAULT_DEPTH = 6  # plies of ``play.py othello --opponent classical``; about 2 ms a move on 8x8
ENDGAME_EMPTIES = 12  # the exact endgame plays from this many empty squares (8x8: a few ms a move)
WIN = 1_000_000  # a won game's value before its margin: beyond every evaluation
# the evaluation's weights: mobility, potential mobility, corners, X-squares, C-squares, stable edge discs, parity
WEIGHTS = np.array([10, 6, 100, 50, 10, 20, 6], dtype=np.int64)
TERMS = ("mobility", "potential mobility", "corners", "X-squares", "C-squares", "stable edge discs", "parity")


def geometry(n: int) -> np.ndarray:
    """int64 ``(4, 2 * n + 2)``: per corner, its square, its X-square, its two C-squares, then its two
    edges' squares from the corner outwards (``n - 1`` each, the corner excluded)."""
    out = np.zeros((4, 2 * n + 2), dtype=np.int64)
    for k, (r, c) in enumerate(((0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1))):
        dr, dc = (1 if r == 0 else -1), (1 if c == 0 else -1)
        out[k, :4] = (r * n + c, (r + dr) * n + c + dc, r * n + c + dc, (r + dr) * n + c)
        out[k, 4:n + 3] = [r * n + c + i * dc for i in range(1, n)]  # along the row
        out[k, n + 3:] = [(r + i * dr) * n + c for i in range(1, n)]  # along the column
    return out


@numba.njit(cache=True)
def _bit(square):
    return ONE << np.uint64(square)


@numba.njit(cache=True)
def _held(colour, bit):
    """int64: 1 when ``colour`` holds the square ``bit``, else 0."""
    return np.int64(1) if colour & bit else np.int64(0)


@numba.njit(cache=True)
def neighbours(bits, tab):
    """uint64: the squares next to a square of ``bits`` in any of the eight directions."""
    out = ZERO
    for d in range(8):
        out |= shifted(bits, d, tab)
    return out


@numba.njit(cache=True)
def _run(colour, geo, k, first, length):
    """Discs of ``colour`` in an unbroken run along corner ``k``'s edge that starts at ``geo[k, first]``."""
    count = 0
    for i in range(first, first + length):
        if not colour & _bit(geo[k, i]):
            break
        count += 1
    return count


@numba.njit(cache=True)
def terms(own, opponent, own_moves, n, tab, geo):
    """int64 ``(7,)``: the evaluation's terms for ``own``, the mover (see the module docstring);
    ``own_moves``: the mover's placing moves."""
    out = np.zeros(7, dtype=np.int64)
    empty = ~(own | opponent) & tab[FULL]
    out[0] = np.int64(popcount(own_moves)) - np.int64(popcount(placing_moves(opponent, own, n, tab)))
    out[1] = np.int64(popcount(neighbours(opponent, tab) & empty)) - np.int64(popcount(neighbours(own, tab) & empty))
    for k in range(4):
        corner = _bit(geo[k, 0])
        if own & corner:
            out[2] += 1
            out[5] += _run(own, geo, k, 4, n - 1) + _run(own, geo, k, n + 3, n - 1)
        elif opponent & corner:
            out[2] -= 1
            out[5] -= _run(opponent, geo, k, 4, n - 1) + _run(opponent, geo, k, n + 3, n - 1)
        else:
            x = _bit(geo[k, 1])
            out[3] += _held(opponent, x) - _held(own, x)
            for i in (2, 3):
                c = _bit(geo[k, i])
                out[4] += _held(opponent, c) - _held(own, c)
    out[6] = 1 if popcount(empty) & ONE else -1
    return out


@numba.njit(cache=True)
def evaluate(own, opponent, own_moves, n, tab, geo, weights):
    """int64: what the unfinished position is worth to ``own``, the mover: ``weights @ terms``."""
    return np.int64(np.sum(weights * terms(own, opponent, own_moves, n, tab, geo)))


@numba.njit(cache=True)
def _finished(own, opponent):
    """The value of a finished game to ``own``: ``WIN`` plus the margin to the winner, 0 for a draw."""
    margin = np.int64(popcount(own)) - np.int64(popcount(opponent))
    if margin > 0:
        return WIN + margin
    if margin < 0:
        return -WIN + margin
    return np.int64(0)


@numba.njit(cache=True)
def _static(own, opponent, n, tab, geo, weights):
    """The value of the position to ``own`` (mover) at depth 0: the evaluation, or a finished game's value."""
    moves = placing_moves(own, opponent, n, tab)
    if moves == ZERO and placing_moves(opponent, own, n, tab) == ZERO:
        return _finished(own, opponent)
    return evaluate(own, opponent, moves, n, tab, geo, weights)


@numba.njit(cache=True)
def _children(own, opponent, moves, ordered, n, tab, geo, weights, squares, mine, theirs):
    """Write the moves' squares and the children's boards (``mine``: the mover's discs after each,
    ``theirs``: the opponent's) into the work rows, best first for the mover by ``_static`` when
    ``ordered`` (ties by the lowest square), else by square; their number."""
    keys = np.empty(squares.shape[0], dtype=np.int64)
    k = 0
    while moves != ZERO:
        square = lowest_square(moves)
        moves &= moves - ONE
        flipped = flips(own, opponent, square, tab)
        after_own, after_opponent = own | _bit(square) | flipped, opponent & ~flipped
        key = -_static(after_opponent, after_own, n, tab, geo, weights) if ordered else np.int64(0)
        j = k
        while j > 0 and keys[j - 1] < key:
            keys[j], squares[j], mine[j], theirs[j] = keys[j - 1], squares[j - 1], mine[j - 1], theirs[j - 1]
            j -= 1
        keys[j], squares[j], mine[j], theirs[j] = key, square, after_own, after_opponent
        k += 1
    return k


@numba.njit(cache=True)
def _negamax(own, opponent, depth, alpha, beta, ply, n, tab, geo, weights, squares, mine, theirs, nodes):
    """The value to ``own`` (mover) searched ``depth`` plies, fail-soft in ``(alpha, beta)``; the work
    rows are indexed by ``ply``, the moves and passes from the root."""
    nodes[0] += 1
    moves = placing_moves(own, opponent, n, tab)
    if moves == ZERO:
        if placing_moves(opponent, own, n, tab) == ZERO:
            return _finished(own, opponent)
        return -_negamax(opponent, own, depth, -beta, -alpha, ply + 1, n, tab, geo, weights, squares, mine,
                         theirs, nodes)  # the pass, not a ply of the depth
    if depth == 0:
        return evaluate(own, opponent, moves, n, tab, geo, weights)
    k = _children(own, opponent, moves, depth >= 2, n, tab, geo, weights, squares[ply], mine[ply], theirs[ply])
    best = -2 * WIN
    for i in range(k):
        value = -_negamax(theirs[ply, i], mine[ply, i], depth - 1, -beta, -alpha, ply + 1, n, tab, geo, weights,
                          squares, mine, theirs, nodes)
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


@numba.njit(cache=True)
def search_words(n, tab, geo, weights, black, white, player, depth, nodes):
    """``(value, action)`` of the unfinished position ``(black, white, player)`` (``compiled.py``'s
    words) searched ``depth >= 1`` plies: the mover's best value and the first move in search order
    that reaches it (the pass ``n * n`` when the mover has no placing move)."""
    own, opponent = (black, white) if player == 0 else (white, black)
    moves = placing_moves(own, opponent, n, tab)
    if moves == ZERO:
        return np.int64(0), np.int64(n * n)
    rows = 2 * n * n + 2
    squares = np.zeros((rows, n * n), dtype=np.int64)
    mine = np.zeros((rows, n * n), dtype=np.uint64)
    theirs = np.zeros((rows, n * n), dtype=np.uint64)
    nodes[0] += 1
    k = _children(own, opponent, moves, depth >= 2, n, tab, geo, weights, squares[0], mine[0], theirs[0])
    best, action, alpha = -2 * WIN, squares[0, 0], -2 * WIN
    for i in range(k):
        value = -_negamax(theirs[0, i], mine[0, i], depth - 1, -2 * WIN, -alpha, np.int64(1), n, tab, geo, weights,
                          squares, mine, theirs, nodes)
        if value > best:
            best, action, alpha = value, squares[0, i], value
    return best, action


class ClassicalAgent:
    """The classical engine as an agent (``name``, ``choose``, ``observe``; see the module docstring).

    Args:
        game: an ``Othello`` game (any size).
        depth: plies of the alpha-beta search, at least 1.
        endgame_empties: at most this many empty squares, the exact endgame plays (0: never).
        weights: int64 ``(7,)``, the evaluation's weights in the order of ``TERMS`` (default ``WEIGHTS``).
        name: label in match summaries (default ``classical:<depth>``).
    Attributes:
        nodes: positions searched by the last ``choose``; value: the value it found (the exact final
            margin for the mover when the endgame played, else the search's value).
    """

    def __init__(self, game: Othello, depth: int = DEFAULT_DEPTH, endgame_empties: int = ENDGAME_EMPTIES,
                 weights=WEIGHTS, name: str | None = None):
        if not isinstance(game, Othello):
            raise TypeError(f"the classical yardstick plays Othello, got {type(game).__name__}")
        if int(depth) < 1:
            raise ValueError(f"the classical yardstick searches at least 1 ply, got depth {depth}")
        if not 0 <= int(endgame_empties) <= MAX_EMPTIES:
            raise ValueError(f"endgame_empties is a number of empty squares from 0 to {MAX_EMPTIES} (the solver's "
                             f"limit), got {endgame_empties}")
        self.weights = np.asarray(weights, dtype=np.int64)
        if self.weights.shape != (len(TERMS),):
            raise ValueError(f"the evaluation has {len(TERMS)} weights ({', '.join(TERMS)}), got shape "
                             f"{self.weights.shape}")
        self.game, self.depth, self.endgame_empties = game, int(depth), int(endgame_empties)
        self.name = name or f"classical:{self.depth}"
        n = game.size
        self._tab, self._geo = table(n), geometry(n)
        self.nodes, self.value = 0, 0

    def choose(self, state: OthelloState) -> int:
        game = self.game
        if state.over:
            raise ValueError("the game is over: there is no move to choose")
        if not state.moves:
            self.nodes, self.value = 0, 0
            return game.pass_action
        n = game.size
        if n * n - (state.black | state.white).bit_count() <= self.endgame_empties:
            solution = solve(game, state)
            self.nodes, self.value = solution.nodes, solution.margin
            return solution.action
        nodes = np.zeros(1, dtype=np.int64)
        value, action = search_words(n, self._tab, self._geo, self.weights, np.uint64(state.black),
                                     np.uint64(state.white), np.int64(state.player), np.int64(self.depth), nodes)
        self.nodes, self.value = int(nodes[0]), int(value)
        return int(action)

    def observe(self, action: int) -> None:
        """Nothing to remember: every move is searched afresh."""


def classical_agent(game: Othello, depth: int, rng=None) -> ClassicalAgent:
    """``ClassicalAgent(game, depth)``, the builder that ``azcourse.registry.make_classical`` calls for
    ``classical:<depth>``; ``rng`` is unused (the engine is deterministic)."""
    return ClassicalAgent(game, depth)
