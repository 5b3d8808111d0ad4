"""A classical Tak engine, for benchmarks only: fixed-depth alpha-beta in numba with a hand-made evaluation.

A yardstick, never used in training: no network, no self-play, no learned number. It plays on the
compiled rules (``azcourse.tak.compiled``, held to ``game.py`` by ``tests/test_tak_compiled.py``), so
what it says about an agent does not depend on anything the agent learned from. ``azcourse.registry``
names it ``classical:<depth>`` (``make_classical``), and ``play.py tak --opponent classical:3`` plays it.

The evaluation (``horizon``), in flats, from the mover's view: each term is the mover's minus the
opponent's, with the weights of ``WEIGHTS``:
    flats       flats on top, komi added to Black's, as the flat win counts them (1 a flat);
    road        road potential: with ``d`` the fewest placements that would complete a road (a shortest
                path between opposite edges in which a square of one's road pieces costs 0, an empty
                square 1, an opponent's flat 2 (it can be covered by a stack move) and any wall or
                capstone other than one's own capstone blocks), ``((n - d) / (n - 1))^2`` (3 flats at
                ``d = 1``);
    captives    the opponent's stones under one's tops (0.4 each) and one's own stones under one's tops,
                which cannot be taken back (0.2 each);
    reserves    stones and capstones left in hand (0.1 each);
    capstone    one's capstone on the board (0.5) and nearer the centre (0.3 at the centre);
    walls       one's walls on top (-0.3 each: a wall is no flat; what it blocks shows in the road term);
    centre      one's flats nearer the centre (up to 0.1 each).
Roads and threats
    A finished game is worth ``WIN - plies from the root`` to its winner (the quickest win, the slowest
    loss) and 0 when drawn. At the search horizon a position where the mover's ``d`` is 1 and a piece is
    left in hand is a win one ply later (placing that flat completes the road), so it is scored as one;
    a position where the opponent has two or more squares that each complete its road (by a placement)
    costs the mover ``DOUBLE_THREAT`` flats unless the mover wins first.
Search
    Negamax with alpha-beta to ``depth`` plies. Where at least two plies remain, the children are searched
    best first by their value at the horizon (stable: ties keep the action order). A root move that wins
    at once is played without search. Every root move is searched with a window just below the best value
    found so far, so the ties for the best are exact; the agent plays the lowest tied action, or draws one
    with its ``rng`` when given (a seeded tiebreak: games differ, reproducibly).
"""
from __future__ import annotations

import numba
import numpy as np

from . import compiled
from .compiled import DRAW, PLY, RESERVES, WINNER, legal_actions, play
from .game import CAP, FLAT, ONGOING, WALL, Tak, TakState

WIN = 1_000_000.0  # a finished game: more than any evaluation
DOUBLE_THREAT = 50.0  # flats: the opponent has two road-completing placements and the mover no win
TIE = 1e-9  # root values this close to the best are ties
BLOCKED = 1 << 20  # a square no road of that colour can use
FLATS, ROAD, CAPTIVE, HARD, RESERVE, CAPSTONE, CAP_CENTRE, WALLS, CENTRE = range(9)  # indices into WEIGHTS
WEIGHTS = np.array([1.0, 3.0, 0.4, 0.2, 0.1, 0.5, 0.3, -0.3, 0.1])


@numba.njit(cache=True)
def centrality(n, square):
    """1 at the centre of the board, 0 in a corner (Manhattan distance to the centre, scaled)."""
    rank, file = square // n, square % n
    half = (n - 1) / 2.0
    return 1.0 - (abs(rank - half) + abs(file - half)) / (2.0 * half)


@numba.njit(cache=True)
def masks(r, s):
    """int64 bitmasks of the position: each colour's road squares (a flat or capstone on top), each colour's
    flats on top, and the empty squares: ``(road_0, road_1, flat_0, flat_1, empty)``."""
    N = r.squares
    road0 = road1 = flat0 = flat1 = empty = 0
    for square in range(N):
        bit = 1 << square
        if s[square] == 0:
            empty |= bit
            continue
        kind, black = s[2 * N + square], compiled.top_colour(r, s, square)
        if kind != WALL:
            if black:
                road1 |= bit
            else:
                road0 |= bit
        if kind == FLAT:
            if black:
                flat1 |= bit
            else:
                flat0 |= bit
    return road0, road1, flat0, flat1, empty


@numba.njit(cache=True)
def popcount(x):
    """Set bits of a non-negative int64."""
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@numba.njit(cache=True)
def spread(r, x):
    """The squares next to a square of bitmask ``x``."""
    return ((((x << 1) & ~r.left) | ((x >> 1) & ~r.right)) | (x << r.n) | (x >> r.n)) & r.full


@numba.njit(cache=True)
def grow(r, x, own):
    """``x`` and every square of ``own`` joined to it through ``own``."""
    while True:
        grown = x | (spread(r, x) & own)
        if grown == x:
            return x
        x = grown


@numba.njit(cache=True)
def road_distance(r, own, empty, covered):
    """The fewest placements that would complete a road, for the player whose road squares are ``own``:
    the cheapest path between opposite edges where a square of ``own`` costs 0, of ``empty`` 1 and of
    ``covered`` (the opponent's flats) 2, every other square blocked; 0 for a road, ``BLOCKED`` when none
    can be made. Bit-parallel: ``reach[d]``, the squares a path of cost at most ``d`` from the first edge
    reaches, grows from ``reach[d - 1]`` by an empty neighbour and from ``reach[d - 2]`` by a covered one."""
    best = BLOCKED
    for axis in range(2):
        start, goal = (r.left, r.right) if axis == 0 else (r.bottom, r.top)
        before, last = 0, grow(r, start & own, own)  # reach[d - 2], reach[d - 1]
        d = 0
        while d < best:
            if last & goal:
                best = d
                break
            d += 1
            entered = ((spread(r, last) | start) & empty) | ((spread(r, before) | start) & covered if d >= 2 else 0)
            now = grow(r, last | entered, own)
            if d >= 2 and now == last and last == before:  # stuck: the next entries come from these two
                break
            before, last = last, now
    return best


@numba.njit(cache=True)
def completions(r, own, empty):
    """The empty squares on which a road piece would complete the road of the player whose road squares are
    ``own``."""
    count, rest = 0, empty
    while rest:
        bit = rest & -rest
        rest ^= bit
        if compiled.connects(r, own | bit):
            count += 1
    return count


@numba.njit(cache=True)
def side_terms(r, w, s, colour, distance):
    """The evaluation's terms for ``colour`` but flats: road potential (``distance`` its road distance),
    captives, reserves, capstone, walls, centre; weighted and summed."""
    N, n = r.squares, r.n
    value = 0.0
    if distance < n:
        value += w[ROAD] * ((n - distance) / (n - 1)) ** 2
    for square in range(N):
        height = s[square]
        if height == 0 or compiled.top_colour(r, s, square) != colour:
            continue
        blacks = popcount(s[N + square] & ((1 << (height - 1)) - 1))  # below the top
        theirs = blacks if colour == 0 else height - 1 - blacks
        value += w[CAPTIVE] * theirs + w[HARD] * (height - 1 - theirs)
        kind = s[2 * N + square]
        if kind == CAP:
            value += w[CAPSTONE] + w[CAP_CENTRE] * centrality(n, square)
        elif kind == WALL:
            value += w[WALLS]
        else:
            value += w[CENTRE] * centrality(n, square)
    res = 3 * N + RESERVES + 2 * colour
    value += w[RESERVE] * (s[res] + s[res + 1])
    return value


@numba.njit(cache=True)
def horizon(r, w, s, level):
    """The value to its mover of a position ``level`` plies below the root where the search stops: exact if
    the game is over or the mover completes a road with its next placement, else the evaluation (the module
    docstring's terms, in flats), less ``DOUBLE_THREAT`` when the opponent has two road-completing squares."""
    base = 3 * r.squares
    mover = s[base + PLY] & 1
    winner = s[base + WINNER]
    if winner != ONGOING:
        if winner == DRAW:
            return 0.0
        return WIN - level if winner == mover else -(WIN - level)
    road0, road1, flat0, flat1, empty = masks(r, s)
    own, other = (road0, road1) if mover == 0 else (road1, road0)
    own_flats, other_flats = (flat0, flat1) if mover == 0 else (flat1, flat0)
    mine = road_distance(r, own, empty, other_flats)
    if mine == 1 and s[base + RESERVES + 2 * mover] + s[base + RESERVES + 2 * mover + 1] > 0:
        return WIN - level - 1
    theirs = road_distance(r, other, empty, own_flats)
    komi = r.komi if mover == 1 else -r.komi
    value = w[FLATS] * (popcount(own_flats) - popcount(other_flats) + komi)
    value += side_terms(r, w, s, mover, mine) - side_terms(r, w, s, 1 - mover, theirs)
    if theirs == 1 and completions(r, other, empty) >= 2:
        value -= DOUBLE_THREAT
    return value


@numba.njit(cache=True)
def negamax(r, w, boards, moves, order, start, stop, alpha0, beta0, nodes):
    """The value of ``boards[start]`` to its mover searched down to level ``stop`` (``stop - start`` plies),
    exact strictly between ``alpha0`` and ``beta0`` (else a bound on that side).

    Written as a loop over an explicit stack of levels, not as recursion (numba's cache cannot reload a
    recursive function): ``boards`` int64 ``(D + 1, S)``, ``moves`` and ``order`` int64 ``(D + 1, A)`` hold
    each level's position, its legal actions and the order they are searched in; ``nodes[0]`` counts the
    positions visited.
    """
    alpha, beta, best = np.empty(stop + 1), np.empty(stop + 1), np.empty(stop + 1)
    count, done = np.zeros(stop + 1, np.int64), np.zeros(stop + 1, np.int64)
    level, value, entering = start, 0.0, True
    alpha[level], beta[level] = alpha0, beta0
    while True:
        if entering:  # a new node at ``level``: a value at once, or its first child
            s = boards[level]
            nodes[0] += 1
            if level == stop or s[3 * r.squares + WINNER] != ONGOING:
                value, entering = horizon(r, w, s, level), False
                continue
            k = legal_actions(r, s, moves[level])
            count[level], done[level], best[level] = k, 0, -np.inf
            if stop - level >= 2:  # children best first: lowest value to their mover
                guess = np.empty(k)
                for i in range(k):
                    boards[level + 1] = s
                    play(r, boards[level + 1], moves[level, i])
                    guess[i] = horizon(r, w, boards[level + 1], level + 1)
                order[level, :k] = np.argsort(guess, kind="mergesort")
            else:
                order[level, :k] = np.arange(k)
        else:  # ``value`` is the finished node's at ``level``: fold it into its parent
            if level == start:
                return value
            level -= 1
            value = -value
            if value > best[level]:
                best[level] = value
            if value > alpha[level]:
                alpha[level] = value
            if alpha[level] >= beta[level] or done[level] == count[level]:
                value = best[level]
                continue
        boards[level + 1] = boards[level]  # the next child of ``level``
        play(r, boards[level + 1], moves[level, order[level, done[level]]])
        done[level] += 1
        alpha[level + 1], beta[level + 1] = -beta[level], -alpha[level]
        level += 1
        entering = True


@numba.njit(cache=True)
def root_values(r, w, s, depth, actions, values, nodes):
    """Search the root ``s`` to ``depth`` plies: its legal actions into ``actions`` (increasing) and their
    values to the mover into ``values`` (exact for every action within ``TIE`` of the best, an upper bound
    for the others); their number. A move that wins at once ends the search (the others get ``-inf``)."""
    N = r.squares
    boards = np.empty((depth + 1, s.shape[0]), np.int64)
    moves, order = np.empty((depth + 1, r.actions), np.int64), np.empty((depth + 1, r.actions), np.int64)
    boards[0] = s
    k = legal_actions(r, s, actions)
    mover = s[3 * N + PLY] & 1
    guess = np.empty(k)
    values[:k] = -np.inf
    for i in range(k):
        boards[1] = s
        play(r, boards[1], actions[i])
        if boards[1][3 * N + WINNER] == mover:
            values[i] = WIN - 1
            return k
        guess[i] = horizon(r, w, boards[1], 1)
    best = -np.inf
    for j in np.argsort(guess, kind="mergesort"):
        boards[1] = s
        play(r, boards[1], actions[j])
        alpha = best - TIE if best > -np.inf else -np.inf
        values[j] = -negamax(r, w, boards, moves, order, 1, depth, -np.inf, -alpha, nodes)
        if values[j] > best:
            best = values[j]
    return k


class ClassicalAgent:
    """The classical yardstick as an agent of the game layer (``choose``/``observe``, see the module docstring).

    Args:
        game: a ``Tak`` game (any size, komi and move cap).
        depth: plies searched, at least 1.
        rng: a ``numpy.random.Generator`` that breaks ties among the best root moves; None: the lowest action.
        name: label in match summaries (default ``classical:<depth>``).
    Attributes:
        nodes: positions visited by the last ``choose``; value: the chosen move's value to the mover, in flats
            (``WIN`` minus plies for a found win).
    """

    def __init__(self, game: Tak, depth: int = 3, rng: np.random.Generator | None = None, name: str | None = None):
        if not isinstance(game, Tak):
            raise TypeError(f"the classical yardstick plays Tak, not {getattr(game, 'name', type(game).__name__)}")
        if not (isinstance(depth, (int, np.integer)) and depth >= 1):
            raise ValueError(f"the classical yardstick needs a depth of at least 1 ply, got {depth!r}")
        self.game, self.depth, self.rng = game, int(depth), rng
        self.name = name or f"classical:{depth}"
        self.rules = compiled.rules(game)
        self.nodes, self.value = 0, 0.0
        self._actions = np.empty(game.action_space_size, np.int64)
        self._values = np.empty(game.action_space_size)

    def choose(self, state: TakState) -> int:
        if self.game.is_terminal(state):
            raise ValueError("the game is over: there is no move to choose")
        nodes = np.zeros(1, np.int64)
        k = root_values(self.rules, WEIGHTS, compiled.state_array(self.game, state), self.depth, self._actions,
                        self._values, nodes)
        values = self._values[:k]
        self.nodes, self.value = int(nodes[0]), float(values.max())
        tied = np.flatnonzero(values > self.value - TIE)
        pick = tied[0] if self.rng is None else tied[int(self.rng.integers(len(tied)))]
        return int(self._actions[pick])

    def observe(self, action: int) -> None:
        """Nothing to remember: every search starts from the position."""


def classical_agent(game: Tak, depth: int, rng: np.random.Generator | None = None) -> ClassicalAgent:
    """``ClassicalAgent(game, depth, rng)``: the builder that ``azcourse.registry.CLASSICAL`` names."""
    return ClassicalAgent(game, depth, rng)
