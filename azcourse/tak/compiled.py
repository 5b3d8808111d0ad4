"""Tak's rules as numba functions on an int64 array, for compiled search (the classical yardstick,
``azcourse.tak.yardstick``; later perhaps compiled self-play).

The reference is ``Tak`` (``game.py``): the same sizes (3x3 to 6x6), pieces, opening, moves, ends and
komi, the same action ids (``Tak.action_space_size``: placements ``square * K + kind``, then the stack
moves in ``MOVES`` order), the same legal actions and the same network input (``Tak.encode``).
``tests/test_tak_compiled.py`` holds the two together on random games and by perft counts.

A position is one int64 array of ``state_size(n) = 3 N + 7`` entries (``N = n * n`` squares, square
``rank * n + file`` as in the reference):
    ``[0, N)`` (``HEIGHT``): the height of each square's stack (0: empty);
    ``[N, 2N)`` (``COLOURS``): the stack's colours as bits, bit ``i`` the colour (0 White, 1 Black) of
    the ``i``-th stone from the bottom (a stack holds at most ``2 * (stones + capstones)`` = 62 stones,
    so the bits fit);
    ``[2N, 3N)`` (``KIND``): the kind of the stack's top stone, 0 flat, 1 wall, 2 capstone (0 when empty;
    every stone below a top is a flat, as in the reference);
    ``3N + 0 .. 3N + 3`` (``RESERVES``): White's stones, White's capstones, Black's stones, Black's capstones;
    ``3N + 4`` (``PLY``): plies played; the player to move is ``ply & 1``, and plies 0 and 1 place the
    opponent's flat;
    ``3N + 5`` (``WINNER``): -1 while the game goes on, then 0, 1 or ``DRAW`` (2);
    ``3N + 6`` (``REASON``): the index into ``game.END_REASONS`` (0 while the game goes on).
Offsets are ``k * N`` or ``3 N + field``; ``state_array`` and ``tak_state`` convert from and to ``TakState``.

``rules(game)`` holds what the functions need to know of the game (``Rules``: the size, the reserves,
komi, the move cap, and the move tables of ``game._tables``); every function takes it first.
"""
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .game import CAP, FLAT, ONGOING, WALL, Tak, TakState

DRAW = 2
RESERVES, PLY, WINNER, REASON = 0, 4, 5, 6  # fields after the three per-square planes, at 3N + field
ROAD, FULL_BOARD, LAST_PIECE, MOVE_CAP = 1, 2, 3, 4  # END_REASONS indices


class Rules(NamedTuple):
    """A Tak game as the compiled functions see it (``n`` the side, ``N = n * n``, ``M`` stack moves).

    Attributes:
        n, squares (N), kinds (2 or 3), placements (``N * kinds``), actions (A), stones, capstones,
        depth (``2 * (stones + capstones)``, the encoding's stack levels), move_cap: ints; komi: float.
        paths: int64 ``(N, 4, n - 1)``: ``game.path(square, direction)``, -1 beyond its ``path_len``.
        path_len: int64 ``(N, 4)``.
        block: int64 ``(N, 4)``: the first action of a square's stack moves in a direction; ``prefix``
            int64 ``(N, 4, n + 1)``: how many of that block's actions carry at most ``c`` stones (the block
            runs by stones carried, so those come first).
        move_square, move_dir, move_count (stones carried), move_len (drops), move_last (the last drop):
            int64 ``(M,)``, for action ``placements + i``; move_drops: int64 ``(M, n - 1)``, 0-padded.
        left, right, bottom, top, full: int64 bitmasks of the board's edges and of every square.
    """

    n: int
    squares: int
    kinds: int
    placements: int
    actions: int
    stones: int
    capstones: int
    depth: int
    move_cap: int
    komi: float
    paths: np.ndarray
    path_len: np.ndarray
    block: np.ndarray
    prefix: np.ndarray
    move_square: np.ndarray
    move_dir: np.ndarray
    move_count: np.ndarray
    move_len: np.ndarray
    move_last: np.ndarray
    move_drops: np.ndarray
    left: int
    right: int
    bottom: int
    top: int
    full: int


def state_size(n: int) -> int:
    """Entries of a position's array on an ``n`` x ``n`` board."""
    return 3 * n * n + 7


def rules(game: Tak) -> Rules:
    """The ``Rules`` of ``game`` (its size, komi and move cap; the tables of ``game.py``)."""
    if not isinstance(game, Tak):
        raise TypeError(f"compiled Tak rules need a Tak game, got {type(game).__name__}")
    n, t = game.size, game._t
    N, width = n * n, max(n - 1, 1)
    paths = np.full((N, 4, width), -1, np.int64)
    path_len = np.zeros((N, 4), np.int64)
    for square in range(N):
        for direction in range(4):
            path = t.paths[square][direction]
            paths[square, direction, :len(path)] = path
            path_len[square, direction] = len(path)
    M = len(t.moves)
    move_square, move_dir, move_count, move_len, move_last = (np.zeros(M, np.int64) for _ in range(5))
    move_drops = np.zeros((M, width), np.int64)
    block = np.full((N, 4), -1, np.int64)
    prefix = np.zeros((N, 4, n + 1), np.int64)
    for i, (square, direction, drops) in enumerate(t.moves):
        move_square[i], move_dir[i], move_count[i] = square, direction, sum(drops)
        move_len[i], move_last[i] = len(drops), drops[-1]
        move_drops[i, :len(drops)] = drops
        if block[square, direction] < 0:
            block[square, direction] = game.placements + i
        prefix[square, direction, sum(drops):] += 1
    return Rules(n, N, game.kinds, game.placements, game.action_space_size, game.stones, game.capstones,
                 game.depth, game.move_cap, game.komi, paths, path_len, block, prefix, move_square, move_dir,
                 move_count, move_len, move_last, move_drops, t.left, t.right, t.bottom, t.top, t.full)


def state_array(game: Tak, state: TakState) -> np.ndarray:
    """The int64 ``(state_size(n),)`` array of a ``TakState`` (see the module docstring)."""
    N = game.size * game.size
    s = np.zeros(state_size(game.size), np.int64)
    for square, stack in enumerate(state.board):
        s[square] = len(stack)
        s[N + square] = sum((code & 1) << i for i, code in enumerate(stack))
        s[2 * N + square] = stack[-1] >> 1 if stack else 0
    s[3 * N + RESERVES:3 * N + RESERVES + 4] = state.reserves
    s[3 * N + PLY], s[3 * N + WINNER], s[3 * N + REASON] = state.ply, state.winner, state.reason
    return s


def tak_state(game: Tak, s: np.ndarray) -> TakState:
    """The ``TakState`` of a position's array (``state_array``'s inverse)."""
    N = game.size * game.size
    board = []
    for square in range(N):
        height, colours, kind = int(s[square]), int(s[N + square]), int(s[2 * N + square])
        stack = [(colours >> i) & 1 for i in range(height)]
        if stack:
            stack[-1] += 2 * kind
        board.append(tuple(stack))
    r = 3 * N + RESERVES
    return TakState(tuple(board), tuple(int(v) for v in s[r:r + 4]), int(s[3 * N + PLY]), int(s[3 * N + WINNER]),
                    int(s[3 * N + REASON]))


def initial_array(game: Tak) -> np.ndarray:
    """The array of ``game.initial_state()``."""
    return state_array(game, game.initial_state())


@numba.njit(cache=True)
def top_colour(r, s, square):
    """The colour of the top stone of ``square``'s stack (which must not be empty)."""
    return (s[r.squares + square] >> (s[square] - 1)) & 1


@numba.njit(cache=True)
def road_squares(r, s, colour):
    """int64 bitmask: the squares whose top is a flat or capstone of ``colour`` (``Tak._road``'s ``mine``)."""
    N, mine = r.squares, 0
    for square in range(N):
        if s[square] > 0 and s[2 * N + square] != WALL and top_colour(r, s, square) == colour:
            mine |= 1 << square
    return mine


@numba.njit(cache=True)
def connects(r, mine):
    """Whether the squares of bitmask ``mine`` join the left and right or the bottom and top edges
    (``Tak._road``: a flood fill from the left and from the bottom edge)."""
    if not (mine & r.left and mine & r.right) and not (mine & r.bottom and mine & r.top):
        return False
    not_left, not_right = r.full & ~r.left, r.full & ~r.right
    for axis in range(2):
        start, goal = (r.left, r.right) if axis == 0 else (r.bottom, r.top)
        reached = mine & start
        while True:
            grown = mine & (reached | ((reached << 1) & not_left) | ((reached >> 1) & not_right)
                            | (reached << r.n) | (reached >> r.n))
            if grown & goal:
                return True
            if grown == reached:
                break
            reached = grown
    return False


@numba.njit(cache=True)
def has_road(r, s, colour):
    """``Tak.has_road``."""
    return connects(r, road_squares(r, s, colour))


@numba.njit(cache=True)
def flats(r, s, colour):
    """The flats of ``colour`` on top (komi not added)."""
    N, count = r.squares, 0
    for square in range(N):
        if s[square] > 0 and s[2 * N + square] == FLAT and top_colour(r, s, square) == colour:
            count += 1
    return count


@numba.njit(cache=True)
def legal_actions(r, s, out):
    """Write ``Tak.legal_actions`` in increasing order into ``out`` (int64, at least A long); their number.

    The same generation as the reference: empty squares for placements (flats only in the opening); for
    each stack the mover controls and each direction, the walk to the first wall, capstone or edge (the
    reach), then the block's actions that carry at most ``min(height, n)`` stones and drop on at most
    reach squares, and, for a capstone stopped by a wall, those whose last drop is the capstone alone on it.
    """
    N, n, k = r.squares, r.n, 0
    base = 3 * N
    if s[base + WINNER] != ONGOING:
        return 0
    ply = s[base + PLY]
    player = ply & 1
    stones, caps = s[base + RESERVES + 2 * player], s[base + RESERVES + 2 * player + 1]
    for square in range(N):
        if s[square] == 0:
            a = square * r.kinds
            if ply < 2:
                out[k] = a
                k += 1
                continue
            if stones:
                out[k], out[k + 1] = a, a + 1
                k += 2
            if caps:
                out[k] = a + 2
                k += 1
    if ply < 2:
        return k
    for square in range(N):
        height = s[square]
        if height == 0 or top_colour(r, s, square) != player:
            continue
        carry = min(height, n)
        capstone = s[2 * N + square] == CAP
        for direction in range(4):
            length, reach = r.path_len[square, direction], 0
            while reach < length:
                target = r.paths[square, direction, reach]
                if s[target] > 0 and s[2 * N + target] != FLAT:
                    break
                reach += 1
            flattening = capstone and reach < length and s[2 * N + r.paths[square, direction, reach]] == WALL
            first = r.block[square, direction]
            for a in range(first, first + r.prefix[square, direction, carry]):
                m = a - r.placements
                drops = r.move_len[m]
                if drops <= reach or (flattening and drops == reach + 1 and r.move_last[m] == 1):
                    out[k] = a
                    k += 1
    return k


@numba.njit(cache=True)
def play(r, s, action):
    """Play the legal ``action`` on ``s`` in place (``Tak._play``), the end checked in the reference's
    order: roads (the mover's first: the dragon clause; not after a wall placement), then a full board
    or a player without pieces (flats on top, komi to Black), then the move cap."""
    N = r.squares
    base = 3 * N
    ply = s[base + PLY]
    player = ply & 1
    roads_may_change = True
    if action < r.placements:
        square, kind = action // r.kinds, action % r.kinds
        colour = 1 - player if ply < 2 else player
        s[square], s[N + square], s[2 * N + square] = 1, colour, kind
        s[base + RESERVES + 2 * colour + (1 if kind == CAP else 0)] -= 1
        roads_may_change = kind != WALL
    else:
        m = action - r.placements
        square, direction = r.move_square[m], r.move_dir[m]
        height, kind = s[square], s[2 * N + square]
        left = height - r.move_count[m]
        carried = s[N + square] >> left
        s[square], s[N + square], s[2 * N + square] = left, s[N + square] & ((1 << left) - 1), FLAT
        last = r.move_len[m] - 1
        for i in range(last + 1):
            target, drop = r.paths[square, direction, i], r.move_drops[m, i]
            s[N + target] |= (carried & ((1 << drop) - 1)) << s[target]
            s[target] += drop
            carried >>= drop
            s[2 * N + target] = kind if i == last else FLAT  # a wall under the capstone is flattened
    ply += 1
    s[base + PLY] = ply
    if roads_may_change:
        for colour in (player, 1 - player):
            if has_road(r, s, colour):
                s[base + WINNER], s[base + REASON] = colour, ROAD
                return
    full = True
    for square in range(N):
        if s[square] == 0:
            full = False
            break
    res = base + RESERVES
    if full or (s[res] == 0 and s[res + 1] == 0) or (s[res + 2] == 0 and s[res + 3] == 0):
        white, black = flats(r, s, 0), flats(r, s, 1) + r.komi
        s[base + WINNER] = 0 if white > black else 1 if black > white else DRAW
        s[base + REASON] = FULL_BOARD if full else LAST_PIECE
    elif ply >= r.move_cap:
        s[base + WINNER], s[base + REASON] = DRAW, MOVE_CAP


@numba.njit(cache=True)
def next_state(r, s, action):
    """A new array: ``s`` after ``action`` (``s`` unchanged)."""
    out = s.copy()
    play(r, out, action)
    return out


@numba.njit(cache=True)
def encode(r, s, out):
    """``Tak.encode`` into ``out``, float32 ``(C * N,)`` (``C = encoding_shape[0]``), from the mover's view."""
    N, depth = r.squares, r.depth
    base = 3 * N
    ply = s[base + PLY]
    player = ply & 1
    out[:] = 0.0
    for square in range(N):
        height, colours = s[square], s[N + square]
        for k in range(height):  # k stones below the top
            colour = (colours >> (height - 1 - k)) & 1
            out[(2 * k + (1 if colour != player else 0)) * N + square] = 1.0
        kind = s[2 * N + square]
        if height > 0 and kind != FLAT:
            theirs = 1 if top_colour(r, s, square) != player else 0
            out[(2 * depth + 2 * (kind - 1) + theirs) * N + square] = 1.0
    res, c = base + RESERVES, 2 * depth + 4
    planes = np.empty(7)
    planes[0] = s[res + 2 * player] / r.stones
    planes[1] = s[res + 2 - 2 * player] / r.stones
    count = 2
    if r.capstones:
        planes[2] = s[res + 2 * player + 1] / r.capstones
        planes[3] = s[res + 3 - 2 * player] / r.capstones
        count = 4
    planes[count] = 1.0 if ply < 2 else 0.0
    planes[count + 1] = ply / r.move_cap
    planes[count + 2] = (r.komi if player else -r.komi) / N
    for j in range(count + 3):
        value = np.float32(planes[j])
        for square in range(N):
            out[(c + j) * N + square] = value


@numba.njit(cache=True)
def perft(r, s, depth):
    """The number of leaf positions ``depth`` plies below ``s`` (a finished game is a leaf where it ends),
    walking the tree without recursion; ``s`` is left unchanged."""
    if depth == 0 or s[3 * r.squares + WINNER] != ONGOING:
        return 1
    boards = np.empty((depth + 1, s.shape[0]), np.int64)
    moves = np.empty((depth, r.actions), np.int64)
    count, index = np.zeros(depth, np.int64), np.zeros(depth, np.int64)
    boards[0] = s
    count[0] = legal_actions(r, boards[0], moves[0])
    level, total = 0, 0
    while level >= 0:
        if index[level] == count[level]:
            level -= 1
            continue
        child = boards[level + 1]
        child[:] = boards[level]
        play(r, child, moves[level, index[level]])
        index[level] += 1
        if level + 1 == depth or child[3 * r.squares + WINNER] != ONGOING:
            total += 1
        else:
            level += 1
            count[level] = legal_actions(r, child, moves[level])
            index[level] = 0
    return total


@numba.njit(cache=True)
def random_games(r, s, games, seed):
    """Play ``games`` uniformly random games from ``s`` (numba's generator seeded with ``seed``), generating
    the legal actions and playing one each ply; ``(plies played, legal actions generated)`` in all, for
    speed figures (``benchmarks/tak_compiled_speed.py``)."""
    np.random.seed(seed)
    moves = np.empty(r.actions, np.int64)
    board = np.empty_like(s)
    plies, generated = 0, 0
    for _ in range(games):
        board[:] = s
        while board[3 * r.squares + WINNER] == ONGOING:
            k = legal_actions(r, board, moves)
            play(r, board, moves[np.random.randint(k)])
            plies += 1
            generated += k
    return plies, generated
