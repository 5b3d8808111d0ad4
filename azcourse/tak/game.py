"""Tak on an n x n board (3 <= n <= 6), standard rules, on the game layer (``azcourse.core.protocol``).

Pieces
    Each player has ``STONES[n]`` stones and ``CAPSTONES[n]`` capstones: 10 + 0 on 3x3, 15 + 0 on
    4x4, 21 + 1 on 5x5, 30 + 1 on 6x6. A stone is placed flat or standing (a *wall*).
Players
    Protocol player 0 is White (PTN player 1, who opens), player 1 is Black (PTN player 2).
Board and squares
    Square ``rank * n + file``: files ``a..`` left to right, ranks ``1..n`` bottom to top, so ``a1``
    is square 0 and the square above it (``a2``) is square ``n``.
State
    ``TakState(board, reserves, ply, winner, reason)``:
    ``board`` is a tuple of ``n * n`` stacks, each a tuple of stone codes from bottom to top; a code
    is ``2 * kind + colour`` with kind 0 flat, 1 wall, 2 capstone and colour 0 White, 1 Black (so
    0/1 flats, 2/3 walls, 4/5 capstones; only a stack's top can be a wall or a capstone).
    ``reserves`` is ``(White's stones, White's capstones, Black's stones, Black's capstones)``.
    ``ply`` counts the moves played; White moves at even plies. ``winner`` is ``ONGOING`` (-1),
    0, 1 or ``DRAW`` (2); ``reason`` indexes ``END_REASONS`` (0 while the game goes on).
A turn
    Place a flat, a wall or (if one is left) a capstone on an empty square; or move a stack whose top
    is yours: pick up 1 to ``min(height, n)`` stones from its top (the carry limit is n), go in one
    straight line and drop at least one stone on each square passed, the lowest carried stones first.
    Nothing moves onto a wall or a capstone, except a capstone dropped alone as the last drop onto a
    wall, which flattens the wall (it becomes a flat of its colour).
The opening
    On each player's first turn (plies 0 and 1) they place one of the opponent's flats on an empty
    square, taken from the opponent's reserve; no walls, capstones or stack moves then.
The end (checked after every move, in this order)
    *road*: a player's flats and capstones on top (not walls) connect the left and right edges or
    the bottom and top edges, orthogonally; that player wins, and the mover wins when a move
    completes roads for both (the "dragon" clause). *full board* (no empty square) or *last piece*
    (a player has no stone and no capstone left): the player with more flats on top wins, ``komi``
    added to Black's count; equal counts draw. *move cap*: ``move_cap`` plies have been played: a
    draw, so that agents shuffling stacks cannot play forever.
Actions (fixed per size; ``action_space_size``: 126, 480, 1575, 4572 for n = 3..6)
    First the placements, action ``square * K + kind`` with ``K`` the piece kinds of the size (2:
    flat, wall; 3 with the capstone on 5x5 and 6x6). Then the stack moves in ``MOVES`` order: by
    square, direction (``+`` up, ``-`` down, ``>`` right, ``<`` left), number of stones picked up
    (1 to n), then the drop sequences in lexicographic order, keeping exactly the sequences whose
    drops stay on the board. ``move_of(action)`` gives ``(square, direction, drops)``.
Move text (Portable Tak Notation)
    ``a1`` (flat), ``Sb2`` (wall), ``Cc3`` (capstone); a stack move is ``[count]square direction
    [drops]``, e.g. ``3a1>12``: the count is left out when it is 1 and the drops when all stones go
    to one square. ``parse_action`` also reads ``Fa1``, explicit counts and drops (``1a1>1``), a
    trailing ``*`` on a move that flattens a wall, and trailing ``'``, ``!`` and ``?`` marks.
Encoding (``encode``): float32 ``(C, n, n)`` from the mover's view, ``C = 2 H + 4 + R + 3`` with
    ``H = 2 * (stones + capstones)`` (every piece of the game: so every stack fits, nothing is lost)
    and ``R`` 2 without capstones, 4 with. Channel ``2k`` is 1 where the mover's stone lies ``k``
    stones below the top of a stack (``k = 0``: the top), ``2k + 1`` the opponent's; channels
    ``2H .. 2H + 3``: the mover's wall on top, the opponent's wall, the mover's capstone, the
    opponent's capstone. Constant planes: the mover's stones left / ``stones``, the opponent's
    (then the same for capstones, with capstones), 1 during the opening, ``ply / move_cap``, and the
    komi from the mover's side (``+komi`` for Black, ``-komi`` for White) / ``n * n``.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..core.protocol import IllegalAction, quoted
from ..core.square_symmetry import NUM_SYMMETRIES, square_permutation, transform_planes

MIN_SIZE, MAX_SIZE = 3, 6
STONES = {3: 10, 4: 15, 5: 21, 6: 30}
CAPSTONES = {3: 0, 4: 0, 5: 1, 6: 1}
DEFAULT_MOVE_CAP = {3: 100, 4: 200, 5: 400, 6: 600}
FLAT, WALL, CAP = 0, 1, 2
KIND_LETTERS = "FSC"
DIRECTIONS = "+-><"
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))  # (rank, file) step of each direction
ONGOING, DRAW = -1, 2
END_REASONS = (None, "road", "full board", "last piece", "move cap")
PLAYER_NAMES = ("White (player 1)", "Black (player 2)")
MAX_TEXT = 40  # longest move text read; anything longer is refused before parsing
_PLACEMENT = re.compile(r"([fsc]?)([a-z])([0-9]+)", re.ASCII | re.IGNORECASE)
_MOVEMENT = re.compile(r"([0-9]*)([a-z])([0-9]+)([-+<>])([0-9]*)(\*?)", re.ASCII | re.IGNORECASE)
_MARKS = "'!?"


class TakState(NamedTuple):
    """A position (see "State" in the module docstring)."""

    board: tuple
    reserves: tuple
    ply: int
    winner: int
    reason: int


def compositions(total: int, parts_max: int):
    """Every sequence of positive integers summing to ``total`` with at most ``parts_max`` terms,
    in lexicographic order (``compositions(3, 2)``: (1, 2), (2, 1), (3,))."""
    if total == 0:
        return [()]
    if parts_max == 0:
        return []
    return [(first, *rest) for first in range(1, total + 1) for rest in compositions(total - first, parts_max - 1)]


class _Tables(NamedTuple):
    """Everything about a size that does not depend on the position (built once per size)."""
    paths: tuple  # paths[square][direction]: the squares from the next one to the edge
    moves: tuple  # moves[i] = (square, direction, drops) of action placements + i
    move_index: dict  # (square, direction, drops) -> action
    reachable: tuple  # reachable[square][direction][carry][reach]: actions carrying <= carry, <= reach drops
    flattening: tuple  # flattening[square][direction][carry][reach]: carry <= carry, reach + 1 drops, last 1
    left: int  # bitmask of the file-a squares (and right, bottom, top)
    right: int
    bottom: int
    top: int
    full: int


@lru_cache(maxsize=None)
def _tables(n: int) -> _Tables:
    kinds = 3 if CAPSTONES[n] else 2
    placements = n * n * kinds
    paths, moves, reachable, flattening = [], [], [], []
    for square in range(n * n):
        rank, file = divmod(square, n)
        paths.append(tuple(
            tuple((rank + dr * k) * n + file + df * k for k in range(1, n)
                  if 0 <= rank + dr * k < n and 0 <= file + df * k < n)
            for dr, df in STEPS))
        per_direction_r, per_direction_f = [], []
        for direction, path in enumerate(paths[square]):
            mine = []  # (action, count, drops) of this square and direction
            for count in range(1, n + 1):
                for drops in compositions(count, len(path)):
                    mine.append((placements + len(moves), count, drops))
                    moves.append((square, direction, drops))
            per_direction_r.append(tuple(
                tuple(tuple(a for a, c, d in mine if c <= carry and len(d) <= reach) for reach in range(len(path) + 1))
                for carry in range(n + 1)))
            per_direction_f.append(tuple(
                tuple(tuple(a for a, c, d in mine if c <= carry and len(d) == reach + 1 and d[-1] == 1)
                      for reach in range(len(path)))
                for carry in range(n + 1)))
        reachable.append(tuple(per_direction_r))
        flattening.append(tuple(per_direction_f))
    move_index = {move: placements + i for i, move in enumerate(moves)}
    bits = [1 << square for square in range(n * n)]
    return _Tables(tuple(paths), tuple(moves), move_index, tuple(reachable), tuple(flattening),
                   left=sum(bits[r * n] for r in range(n)), right=sum(bits[r * n + n - 1] for r in range(n)),
                   bottom=sum(bits[:n]), top=sum(bits[-n:]), full=(1 << n * n) - 1)


@lru_cache(maxsize=None)
def _action_images(n: int) -> np.ndarray:
    """int64 ``(8, A)``: the action that symmetry ``g`` makes of each action of size ``n``."""
    t, kinds = _tables(n), 3 if CAPSTONES[n] else 2
    images = np.empty((NUM_SYMMETRIES, n * n * kinds + len(t.moves)), dtype=np.int64)
    for g in range(NUM_SYMMETRIES):
        square = square_permutation(n, g)
        # a direction's image: where the step from b2 (square n + 1) to its neighbour goes
        direction = [STEPS.index(tuple(int(v) for v in np.subtract(divmod(int(square[(1 + dr) * n + 1 + df]), n),
                                                                    divmod(int(square[n + 1]), n))))
                     for dr, df in STEPS]
        for action in range(images.shape[1]):
            if action < n * n * kinds:
                at, kind = divmod(action, kinds)
                images[g, action] = square[at] * kinds + kind
            else:
                at, way, drops = t.moves[action - n * n * kinds]
                images[g, action] = t.move_index[(int(square[at]), direction[way], drops)]
    return images


class Tak:
    """Tak on a ``size`` x ``size`` board: 2 players, the fixed action space of the module docstring.

    Args:
        size: 3 to 6.
        komi: added to Black's flat count when the game is decided on flats (0 or more; 0.5 avoids
            draws).
        move_cap: plies after which an undecided game is a draw (default ``DEFAULT_MOVE_CAP[size]``:
            100, 200, 400, 600 for 3x3 to 6x6; see docs/tak.md).
    """

    num_players = 2

    def __init__(self, size: int = 3, komi: float = 0, move_cap: int | None = None):
        if not (isinstance(size, (int, np.integer)) and MIN_SIZE <= size <= MAX_SIZE):
            raise ValueError(f"Tak board size must be an integer from {MIN_SIZE} to {MAX_SIZE}, got {size!r}")
        n = self.size = int(size)
        if not (isinstance(komi, (int, float, np.integer, np.floating)) and 0 <= komi <= n * n):
            raise ValueError(f"komi must be a number from 0 to {n * n}, got {komi!r}")
        move_cap = DEFAULT_MOVE_CAP[n] if move_cap is None else move_cap
        if not (isinstance(move_cap, (int, np.integer)) and move_cap >= 2):
            raise ValueError(f"move_cap must be an integer of at least 2 plies, got {move_cap!r}")
        self.komi, self.move_cap = float(komi), int(move_cap)
        self.stones, self.capstones = STONES[n], CAPSTONES[n]
        self.kinds = 3 if self.capstones else 2
        self._t = _tables(n)
        self.placements = n * n * self.kinds
        self.action_space_size = self.placements + len(self._t.moves)
        self.depth = 2 * (self.stones + self.capstones)
        self.encoding_shape = (2 * self.depth + 4 + (4 if self.capstones else 2) + 3, n, n)
        self.name = f"tak{n}"
        self._symmetry_maps = None  # symmetry_maps(), built on first use

    # -- the protocol's rules ---------------------------------------------------------------------------
    def initial_state(self, rng=None) -> TakState:
        n = self.size
        return TakState(((),) * (n * n), (self.stones, self.capstones) * 2, 0, ONGOING, 0)

    def to_move(self, state: TakState) -> int:
        return state.ply & 1

    def legal_actions(self, state: TakState) -> list[int]:
        """The legal actions (placements in square order, then stack moves), generated from the
        position: empty squares for placements; for each stack the mover controls, in each direction,
        the drop sequences within the carry limit that reach no wall or capstone (plus a capstone's
        lone last drop onto a wall)."""
        if state.winner != ONGOING:
            return []
        board, player, kinds = state.board, state.ply & 1, self.kinds
        stones, caps = state.reserves[2 * player], state.reserves[2 * player + 1]
        empty = [square for square, stack in enumerate(board) if not stack]
        if state.ply < 2:
            return [square * kinds for square in empty]
        actions = []
        for square in empty:
            base = square * kinds
            if stones:
                actions += (base, base + 1)
            if caps:
                actions.append(base + 2)
        t, n = self._t, self.size
        for square, stack in enumerate(board):
            if not stack or stack[-1] & 1 != player:
                continue
            carry = min(len(stack), n)
            capstone = stack[-1] >= 4
            for direction, path in enumerate(t.paths[square]):
                reach = 0
                for target in path:
                    top = board[target]
                    if top and top[-1] >= 2:
                        break
                    reach += 1
                actions += t.reachable[square][direction][carry][reach]
                if capstone and reach < len(path) and board[path[reach]][-1] >> 1 == WALL:
                    actions += t.flattening[square][direction][carry][reach]
        return actions

    def legal_mask(self, state: TakState) -> np.ndarray:
        mask = np.zeros(self.action_space_size, dtype=bool)
        mask[self.legal_actions(state)] = True
        return mask

    def next_state(self, state: TakState, action: int) -> TakState:
        action = int(action)
        if not 0 <= action < self.action_space_size:
            raise ValueError(f"illegal action: {action} is outside 0..{self.action_space_size - 1}")
        move = self._decode(action)
        problem = self._problem(state, move)
        if problem:
            raise ValueError(f"illegal action {self.action_to_text(state, action)}: {problem}")
        return self._play(state, move)

    def is_terminal(self, state: TakState) -> bool:
        return state.winner != ONGOING

    def returns(self, state: TakState) -> np.ndarray:
        result = np.zeros(2)
        if state.winner in (0, 1):
            result[state.winner], result[1 - state.winner] = 1.0, -1.0
        return result

    def is_chance(self, state) -> bool:
        return False

    def resolve_chance(self, state, rng):
        raise ValueError("Tak has no chance steps")

    def state_key(self, state: TakState):
        return state

    # -- what else a game may say about a position -----------------------------------------------------
    def end_reason(self, state: TakState) -> str | None:
        """Why the game ended: ``"road"``, ``"full board"``, ``"last piece"`` (both decided on flats),
        ``"move cap"`` (a draw); None while it goes on."""
        return END_REASONS[state.reason]

    def scores(self, state: TakState) -> np.ndarray:
        """float64 ``(2,)``: each player's flats on top (walls and capstones do not count), komi
        added to Black's."""
        tops = [stack[-1] for stack in state.board if stack]
        return np.array([tops.count(0), tops.count(1) + self.komi])

    def has_road(self, state: TakState, player: int) -> bool:
        """Whether ``player``'s flats and capstones on top join two opposite edges."""
        return self._road(state.board, player)

    def move_of(self, action: int):
        """``(square, kind)`` of a placement or ``(square, direction, drops)`` of a stack move."""
        return self._decode(int(action))

    def path(self, square: int, direction: int) -> tuple[int, ...]:
        """The squares from ``square`` (excluded) to the edge in ``direction`` (index into ``DIRECTIONS``)."""
        return self._t.paths[square][direction]

    # -- rules inside ------------------------------------------------------------------------------------
    def _decode(self, action: int):
        if action < self.placements:
            return divmod(action, self.kinds)
        return self._t.moves[action - self.placements]

    def _problem(self, state: TakState, move) -> str | None:
        """Why ``move`` (a decoded placement or stack move, not necessarily on the board's action
        list: drops may run off) is illegal in ``state``, as a sentence; None if it is legal."""
        if state.winner != ONGOING:
            return "The game is over."
        board, player, n = state.board, state.ply & 1, self.size
        if len(move) == 2:
            square, kind = move
            if board[square]:
                return f"{square_name(n, square)} is occupied: place only on an empty square."
            if state.ply < 2:
                return None if kind == FLAT else ("On each player's first turn they place one of the opponent's "
                                                  "flats: walls and capstones come later.")
            if kind == CAP:
                if not self.capstones:
                    return f"There are no capstones on a {n}x{n} board."
                return None if state.reserves[2 * player + 1] else "You have no capstone left."
            if not state.reserves[2 * player]:
                return "You have no stones left" + (": place your capstone." if state.reserves[2 * player + 1] else ".")
            return None
        square, direction, drops = move
        stack, name = board[square], square_name(n, square)
        if state.ply < 2:
            return "No stack moves on the first turns: place one of the opponent's flats."
        if not stack:
            return f"There is no stack on {name}."
        if stack[-1] & 1 != player:
            return f"The stack on {name} is {PLAYER_NAMES[1 - player].split()[0]}'s (its top stone): move only stacks you control."
        count = sum(drops)
        if count > n:
            return f"You can carry at most {n} stones on a {n}x{n} board."
        if count > len(stack):
            return f"{name} holds only {len(stack)} stone{'s' if len(stack) > 1 else ''}."
        path = self._t.paths[square][direction]
        if len(drops) > len(path):
            return f"The move runs off the board after {square_name(n, path[-1]) if path else name}."
        for i, target in enumerate(path[:len(drops)]):
            top = board[target][-1] if board[target] else FLAT
            if top >> 1 == CAP:
                return f"{square_name(n, target)} holds a capstone: nothing moves onto a capstone."
            if top >> 1 == WALL and not (i == len(drops) - 1 and drops[-1] == 1 and stack[-1] >> 1 == CAP):
                return (f"{square_name(n, target)} holds a wall: only a capstone dropped alone as the last drop "
                        "flattens a wall.")
        return None

    def _play(self, state: TakState, move) -> TakState:
        """The position after a legal decoded ``move``, with its end checked."""
        board, player = list(state.board), state.ply & 1
        reserves = list(state.reserves)
        if len(move) == 2:
            square, kind = move
            colour = 1 - player if state.ply < 2 else player
            board[square] = (2 * kind + colour,)
            reserves[2 * colour + (kind == CAP)] -= 1
            roads_may_change = kind != WALL
        else:
            square, direction, drops = move
            stack = board[square]
            carried = stack[len(stack) - sum(drops):]
            board[square] = stack[:len(stack) - sum(drops)]
            for target, k in zip(self._t.paths[square][direction], drops):
                below = board[target]
                if below and below[-1] >> 1 == WALL:
                    below = below[:-1] + (below[-1] & 1,)
                board[target] = below + carried[:k]
                carried = carried[k:]
            roads_may_change = True
        board = tuple(board)
        reserves = tuple(reserves)
        ply = state.ply + 1
        if roads_may_change:
            for colour in (player, 1 - player):  # the mover first: the dragon clause
                if self._road(board, colour):
                    return TakState(board, reserves, ply, colour, 1)
        full = all(board)
        if full or not (reserves[0] or reserves[1]) or not (reserves[2] or reserves[3]):
            tops = [stack[-1] for stack in board if stack]
            white, black = tops.count(0), tops.count(1) + self.komi
            winner = 0 if white > black else 1 if black > white else DRAW
            return TakState(board, reserves, ply, winner, 2 if full else 3)
        if ply >= self.move_cap:
            return TakState(board, reserves, ply, DRAW, 4)
        return TakState(board, reserves, ply, ONGOING, 0)

    def _road(self, board, colour: int) -> bool:
        """Whether ``colour``'s road squares (a flat or capstone of its own on top) join opposite
        edges: a flood fill on bitmasks from the left and from the bottom edge."""
        t, n = self._t, self.size
        mine = 0
        for square, stack in enumerate(board):
            if stack and (stack[-1] == colour or stack[-1] == 4 + colour):
                mine |= 1 << square
        if not (mine & t.left and mine & t.right) and not (mine & t.bottom and mine & t.top):
            return False
        not_left, not_right = t.full & ~t.left, t.full & ~t.right
        for start, goal in ((t.left, t.right), (t.bottom, t.top)):
            reached = mine & start
            while True:
                grown = mine & (reached | ((reached << 1) & not_left) | ((reached >> 1) & not_right)
                                | (reached << n) | (reached >> n))
                if grown & goal:
                    return True
                if grown == reached:
                    break
                reached = grown
        return False

    # -- network input ---------------------------------------------------------------------------------
    def symmetries(self, encoded: np.ndarray, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The 8 symmetries of the square board (``azcourse.core.square_symmetry``), the identity first:
        a list of ``(encoded float32 encoding_shape, policy (A,))``. Roads join opposite edges and the
        pieces, carry limit and drops look the same under all eight, so a placement moves with its
        square and a stack move with its square and its direction, its drops unchanged (see the
        protocol's optional methods)."""
        encoded, policy = np.asarray(encoded, dtype=np.float32), np.asarray(policy)
        images = _action_images(self.size)
        pairs = []
        for g in range(NUM_SYMMETRIES):
            moved = np.empty_like(policy)
            moved[..., images[g]] = policy
            pairs.append((transform_planes(encoded, g), moved))
        return pairs

    def symmetry_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """The same 8 symmetries as index maps (the protocol's ``symmetry_maps``, for ``sample_symmetries``):
        int64 ``(8, D)`` and ``(8, A)``, ``symmetries`` of the entries' own indices (exact in float32)."""
        if self._symmetry_maps is None:
            size = int(np.prod(self.encoding_shape))
            images = self.symmetries(np.arange(size, dtype=np.float32).reshape(self.encoding_shape),
                                     np.arange(self.action_space_size))
            self._symmetry_maps = (np.stack([x.reshape(-1) for x, _ in images]).astype(np.int64),
                                   np.stack([pi for _, pi in images]).astype(np.int64))
        return self._symmetry_maps

    def encode(self, state: TakState) -> np.ndarray:
        n, depth, player = self.size, self.depth, state.ply & 1
        x = np.zeros((self.encoding_shape[0], n * n), dtype=np.float32)
        for square, stack in enumerate(state.board):
            for k, code in enumerate(reversed(stack)):
                x[2 * k + ((code & 1) != player), square] = 1.0
            if stack and stack[-1] >= 2:
                x[2 * depth + 2 * ((stack[-1] >> 1) - 1) + ((stack[-1] & 1) != player), square] = 1.0
        r, c = state.reserves, 2 * depth + 4
        x[c] = r[2 * player] / self.stones
        x[c + 1] = r[2 - 2 * player] / self.stones
        if self.capstones:
            x[c + 2] = r[2 * player + 1] / self.capstones
            x[c + 3] = r[3 - 2 * player] / self.capstones
            c += 2
        x[c + 2] = state.ply < 2
        x[c + 3] = state.ply / self.move_cap
        x[c + 4] = (self.komi if player else -self.komi) / (n * n)
        return x.reshape(self.encoding_shape)

    # -- text ------------------------------------------------------------------------------------------
    def render(self, state: TakState) -> str:
        return board_text(self, state)

    def action_to_text(self, state, action: int) -> str:
        move, n = self._decode(int(action)), self.size
        if len(move) == 2:
            square, kind = move
            return ("", "S", "C")[kind] + square_name(n, square)
        square, direction, drops = move
        count = sum(drops)
        return (f"{count if count > 1 else ''}{square_name(n, square)}{DIRECTIONS[direction]}"
                f"{''.join(map(str, drops)) if len(drops) > 1 else ''}")

    def parse_action(self, state: TakState, text: str) -> int:
        """The legal action named by PTN ``text`` (see the module docstring).

        Raises:
            IllegalAction: the text is not a string, too long, not PTN, names a square off the board,
                or names a move that is illegal here; the message says which.
        """
        if not isinstance(text, str):
            raise IllegalAction(f"A move is text, such as a1 or 3a1>12, not {type(text).__name__}.")
        if len(text) > MAX_TEXT:
            raise IllegalAction(f"{quoted(text)} is too long for a move (at most {MAX_TEXT} characters).")
        typed = "".join(text.split()).rstrip(_MARKS)
        placement, movement = _PLACEMENT.fullmatch(typed), _MOVEMENT.fullmatch(typed)
        if not (placement or movement):
            raise IllegalAction(f"{quoted(typed)} is not a move in Portable Tak Notation: place with a1 (flat), "
                                f"Sa1 (wall) or Ca1 (capstone); move a stack with e.g. a1> or 3a1>12 "
                                f"(count, square, direction + - > <, drops).")
        n = self.size
        match = placement or movement
        file_letter, rank_text = match.group(2), match.group(3)
        file = ord(file_letter.lower()) - ord("a")
        rank = int(rank_text) - 1 if len(rank_text) < 3 and rank_text[0] != "0" else -1
        if not (0 <= file < n and 0 <= rank < n):
            raise IllegalAction(f"{file_letter}{rank_text} is off the board: files run from a to "
                                f"{'abcdef'[n - 1]} and ranks from 1 to {n}.")
        square = rank * n + file
        if placement:
            move = (square, KIND_LETTERS.index((placement.group(1) or "F").upper()))
        else:
            count_text, drops_text, star = movement.group(1), movement.group(5), movement.group(6)
            count = int(count_text) if count_text and len(count_text) < 3 else (1 if not count_text else n + 1)
            if count == 0:
                raise IllegalAction("A stack move picks up at least one stone.")
            if count > n:
                raise IllegalAction(f"You can carry at most {n} stones on a {n}x{n} board.")
            drops = tuple(int(d) for d in drops_text) if drops_text else (count,)
            if 0 in drops:
                raise IllegalAction("Each drop leaves at least one stone: a drop of 0 is not allowed.")
            if sum(drops) != count:
                raise IllegalAction(f"The drops {'+'.join(drops_text)} add up to {sum(drops)}, not to the "
                                    f"{count} stone{'s' if count > 1 else ''} picked up.")
            move = (square, DIRECTIONS.index(movement.group(4)), drops)
            if star and not self._problem(state, move) and not self._flattens(state, move):
                raise IllegalAction("The * marks a capstone flattening a wall, and this move flattens none.")
        problem = self._problem(state, move)
        if problem:
            raise IllegalAction(problem)
        return move[0] * self.kinds + move[1] if placement else self._t.move_index[move]

    def _flattens(self, state: TakState, move) -> bool:
        square, direction, drops = move
        last = state.board[self._t.paths[square][direction][len(drops) - 1]]
        return bool(last) and last[-1] >> 1 == WALL


def square_name(n: int, square: int) -> str:
    """PTN name of ``square`` on an ``n`` board: ``square_name(3, 0) == "a1"``."""
    rank, file = divmod(square, n)
    return f"{'abcdef'[file]}{rank + 1}"


def stack_text(stack) -> str:
    """A stack as in Tak Positional System: colours bottom to top (1 White, 2 Black), then ``S`` for
    a wall or ``C`` for a capstone on top; ``x`` for an empty square. ``stack_text((0, 1, 3)) ==
    "122S"``."""
    if not stack:
        return "x"
    return "".join(str((code & 1) + 1) for code in stack) + ("", "S", "C")[stack[-1] >> 1]


def status(game: Tak, state: TakState) -> str:
    """One line: who is to move, or how the game ended."""
    white, black = game.scores(state)
    flats = f"{int(white)} to {black:g}" + (f" (komi {game.komi:g})" if game.komi else "")
    if state.winner == ONGOING:
        line = f"{PLAYER_NAMES[state.ply & 1]} to move, ply {state.ply + 1} (draw at {game.move_cap})."
        if state.ply < 2:
            line += f" Opening: place one of {PLAYER_NAMES[1 - (state.ply & 1)].split()[0]}'s flats."
        return line
    reason = END_REASONS[state.reason]
    if reason == "move cap":
        return f"Draw: the move cap of {game.move_cap} plies is reached."
    if reason == "road":
        return f"{PLAYER_NAMES[state.winner]} wins with a road."
    how = "the board is full" if reason == "full board" else "a player has placed their last piece"
    if state.winner == DRAW:
        return f"Draw on flats, {flats}: {how}."
    return f"{PLAYER_NAMES[state.winner]} wins on flats, {flats}: {how}."


def board_text(game: Tak, state: TakState) -> str:
    """The position as text: a status line, the board with rank 1 at the bottom and each stack
    written bottom to top (``stack_text``), file letters, the reserves and a legend."""
    n = game.size
    cells = [stack_text(stack) for stack in state.board]
    widths = [max(3, *(len(cells[rank * n + file]) for rank in range(n))) for file in range(n)]
    lines = [status(game, state)]
    for rank in range(n - 1, -1, -1):
        row = " ".join(cells[rank * n + file].rjust(widths[file]) for file in range(n))
        lines.append(f"{rank + 1} {row}")
    lines.append("  " + " ".join(letter.rjust(width) for letter, width in zip("abcdef", widths)))
    r = state.reserves
    for player in (0, 1):
        left = f"{r[2 * player]} stone{'s' if r[2 * player] != 1 else ''}"
        if game.capstones:
            left += f", {r[2 * player + 1]} capstone{'s' if r[2 * player + 1] != 1 else ''}"
        lines.append(f"{PLAYER_NAMES[player]}: {left} left.")
    lines.append("Stacks read bottom to top: 1 White, 2 Black; S a wall on top, C a capstone on top; x empty.")
    return "\n".join(lines)
