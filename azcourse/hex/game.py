"""Hex on an n x n board (3 <= n <= 8), on the game layer (``azcourse.core.protocol``).

Board and neighbours
    The diamond-shaped board is stored as a square array: cell ``(r, c)``, row ``r`` and column ``c``
    counted from 0 at the top corner. Turning the square 45 degrees clockwise gives the diamond, with
    ``(0, 0)`` as the single top cell. A cell touches six others (fewer on the sides), the six of the
    Hex assignment's Figure 4::

        (r-1, c)  (r-1, c+1)
        (r, c-1)  (r, c+1)
        (r+1, c-1)  (r+1, c)

    ``(r-1, c-1)`` and ``(r+1, c+1)`` are *not* neighbours: on the diamond they lie straight above
    and below the cell, two half-rows away.
Players and goals
    Player 1 (protocol player 0, ``X``, red in figures) joins the first and last rows: the
    upper-right and lower-left sides of the diamond. Player 2 (protocol player 1, ``O``, black in
    figures) joins the first and last columns: the upper-left and lower-right sides. A full board
    always holds exactly one such chain, so Hex has no draws.
State
    ``HexState(cells, player, winner)``: ``cells`` is ``n * n`` bytes, row by row, 0 empty, 1 a
    player-1 stone, 2 a player-2 stone; ``player`` is the protocol player to move (0 or 1);
    ``winner`` is -1 while the game goes on, else the protocol player who connected.
    ``to_seed_tuple`` / ``from_seed_tuple`` convert to the assignment's flat format: the id (1 or 2)
    of the player to move, then the cells row by row.
Actions and move text
    Action ``r * n + c`` places a stone on ``(r, c)``. A person names a cell by column letter and row
    number, ``c3`` (column c, row 3), or by ``row,column`` numbers, ``3,3``: both 1-based, so ``c3``
    and ``3,3`` are the same cell. Case and spaces do not matter; letters and digits are ASCII. Any
    other text is refused with a reason (``IllegalAction``), however long or strange.
Encoding
    float32 vector of shape ``(2 + 2 n^2,)``: two bits for the player to move ((1, 0) player 1,
    (0, 1) player 2), then two bits per cell row by row ((0, 0) empty, (1, 0) player 1, (0, 1)
    player 2), as the assignment suggests.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from ..core.protocol import IllegalAction, quoted

MIN_SIZE, MAX_SIZE = 3, 8
STONES = ".XO"  # by cell value: empty, player 1, player 2
NEIGHBOUR_STEPS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
_LETTER_CELL = re.compile(r"([a-z])([0-9]+)")
_NUMBER_CELL = re.compile(r"([0-9]+),([0-9]+)")


class HexState(NamedTuple):
    cells: bytes
    player: int
    winner: int


def neighbours(size: int, row: int, col: int) -> list[tuple[int, int]]:
    """The cells next to ``(row, col)`` on a ``size`` board (6 inside, 2 to 4 on the sides)."""
    return [(row + dr, col + dc) for dr, dc in NEIGHBOUR_STEPS
            if 0 <= row + dr < size and 0 <= col + dc < size]


def column_letter(col: int) -> str:
    return "abcdefgh"[col]


def board_winner(board) -> int:
    """The assignment's ``winner`` by this engine: 1 or 2 for the player whose chain joins their sides,
    else 0. ``board``: int array ``(n, n)``, 0 empty, 1 and 2 the players' stones."""
    board = np.asarray(board)
    game, cells = Hex(board.shape[0]), bytes(np.asarray(board, dtype=np.uint8).ravel().tolist())
    return 1 if game.has_chain(cells, 0) else 2 if game.has_chain(cells, 1) else 0


class Hex:
    """Hex on a ``size`` x ``size`` board: 2 players, ``size**2`` actions."""

    num_players = 2

    def __init__(self, size: int = 5):
        if not (isinstance(size, (int, np.integer)) and MIN_SIZE <= size <= MAX_SIZE):
            raise ValueError(f"Hex board size must be an integer from {MIN_SIZE} to {MAX_SIZE}, got {size!r}")
        self.size = n = int(size)
        self.name = f"hex{n}"
        self.action_space_size = n * n
        self.encoding_shape = (2 + 2 * n * n,)
        self._neighbours = tuple(tuple(r * n + c for r, c in neighbours(n, i // n, i % n)) for i in range(n * n))
        # _sides[p][i]: 1 if cell i lies on player p's first side, 2 on its last side (3 both: never for n > 1)
        rows = [(i // n == 0) + 2 * (i // n == n - 1) for i in range(n * n)]
        cols = [(i % n == 0) + 2 * (i % n == n - 1) for i in range(n * n)]
        self._sides = (tuple(rows), tuple(cols))
        # _results[p]: the returns when protocol player p has won (read-only, shared by random_playout)
        self._results = tuple(np.array([1.0, -1.0] if p == 0 else [-1.0, 1.0]) for p in (0, 1))
        for result in self._results:
            result.flags.writeable = False

    # -- rules ---------------------------------------------------------------------------------
    def initial_state(self, rng=None) -> HexState:
        return HexState(bytes(self.action_space_size), 0, -1)

    def to_move(self, state: HexState) -> int:
        return state.player

    def legal_mask(self, state: HexState) -> np.ndarray:
        if state.winner >= 0:
            return np.zeros(self.action_space_size, dtype=bool)
        return np.frombuffer(state.cells, dtype=np.uint8) == 0

    def next_state(self, state: HexState, action: int) -> HexState:
        action = int(action)
        if state.winner >= 0:
            raise ValueError("illegal action: the game is over")
        if not 0 <= action < self.action_space_size:
            raise ValueError(f"illegal action: {action} is outside 0..{self.action_space_size - 1}")
        if state.cells[action]:
            raise ValueError(f"illegal action: {self.action_to_text(state, action)} is taken")
        cells = bytearray(state.cells)
        stone = state.player + 1
        cells[action] = stone
        won = self._chain_through(cells, action, stone, self._sides[state.player])
        return HexState(bytes(cells), 1 - state.player, state.player if won else -1)

    def _chain_through(self, cells, start: int, stone: int, sides) -> bool:
        """Whether the group of ``stone`` containing ``start`` touches both of its owner's sides."""
        touched = sides[start]
        stack, seen = [start], {start}
        neighbours_of = self._neighbours
        while stack:
            for j in neighbours_of[stack.pop()]:
                if cells[j] == stone and j not in seen:
                    seen.add(j)
                    touched |= sides[j]
                    stack.append(j)
            if touched == 3:
                return True
        return touched == 3

    def symmetries(self, encoded: np.ndarray, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The identity and the half turn (cell ``i`` to ``n*n - 1 - i``), a symmetry of Hex: the
        turn swaps each player's two sides, so a position and its image are worth the same to both.
        ``encoded`` float32 ``(2 + 2 n^2,)`` (the player bits are kept), ``policy`` ``(n^2,)``."""
        encoded, policy = np.asarray(encoded, dtype=np.float32), np.asarray(policy)
        turned = np.concatenate([encoded[:2], encoded[2:].reshape(-1, 2)[::-1].reshape(-1)])
        return [(encoded.copy(), policy.copy()), (turned, policy[::-1].copy())]

    def has_chain(self, cells: bytes, player: int) -> bool:
        """Whether ``player`` (protocol 0 or 1) joins its two sides anywhere on ``cells`` (any board,
        not only one reached by play): a search from all its stones on its first side."""
        stone, sides = player + 1, self._sides[player]
        stack = [i for i in range(self.action_space_size) if cells[i] == stone and sides[i] & 1]
        seen = set(stack)
        while stack:
            i = stack.pop()
            if sides[i] & 2:
                return True
            for j in self._neighbours[i]:
                if cells[j] == stone and j not in seen:
                    seen.add(j)
                    stack.append(j)
        return False

    def random_playout(self, state: HexState, rng: np.random.Generator) -> np.ndarray:
        """The returns after both players play uniformly random empty cells from ``state`` to the end:
        the protocol's optional fast rollout (``azcourse.core.protocol``), float64 ``(2,)``.

        With ``k`` empty cells it draws ``rng.random(k)`` (one float64 per cell) and, for the
        ``t``-th of them, plays empty cell number ``int(u_t * (k - t))`` in increasing order, so the
        moves are those of ``random_policy`` with the same generator, move by move. It fills the
        whole board instead of stopping at the first chain: a chain stays, and a full board has
        exactly one, so the winner is the same and one connectivity check at the end suffices. It
        draws all ``k`` floats, where a move-by-move rollout draws one per move up to the win. The
        array returned is shared between calls and read-only.
        """
        if state.winner >= 0:
            return self._results[state.winner]
        n, cells = self.size, state.cells
        empty = [i for i in range(n * n) if not cells[i]]
        board, stone, left, take = bytearray(cells), state.player + 1, len(empty), empty.pop
        for u in rng.random(left).tolist():
            board[take(int(u * left))] = stone
            left -= 1
            stone ^= 3
        # Player 1 (stones 1) has won iff a chain of 1s runs from row 0 to row n - 1; visited
        # cells are marked 3 on this private board.
        stack = [i for i in range(n) if board[i] == 1]
        for i in stack:
            board[i] = 3
        last_row, neighbours_of = n * (n - 1), self._neighbours
        while stack:
            i = stack.pop()
            if i >= last_row:
                return self._results[0]
            for j in neighbours_of[i]:
                if board[j] == 1:
                    board[j] = 3
                    stack.append(j)
        return self._results[1]

    def is_terminal(self, state: HexState) -> bool:
        return state.winner >= 0

    def returns(self, state: HexState) -> np.ndarray:
        result = np.zeros(2)
        if state.winner >= 0:
            result[state.winner], result[1 - state.winner] = 1.0, -1.0
        return result

    def is_chance(self, state) -> bool:
        return False

    def resolve_chance(self, state, rng):
        raise ValueError("Hex has no chance steps")

    def state_key(self, state: HexState):
        return state.cells, state.player

    # -- network input and the assignment's state format ---------------------------------------
    def encode(self, state: HexState) -> np.ndarray:
        cells = np.frombuffer(state.cells, dtype=np.uint8)
        x = np.empty(self.encoding_shape, dtype=np.float32)
        x[0], x[1] = state.player == 0, state.player == 1
        x[2::2], x[3::2] = cells == 1, cells == 2
        return x

    def to_seed_tuple(self, state: HexState) -> tuple[int, ...]:
        """``(id of the player to move (1 or 2), cell 0, ..., cell n*n - 1)``, cells 0, 1 or 2."""
        return (state.player + 1, *state.cells)

    def from_seed_tuple(self, values) -> HexState:
        """The state of a flat tuple in the assignment's format (see ``to_seed_tuple``).

        Raises:
            ValueError: wrong length, or a value other than 0/1/2 (1/2 for the player). (Both players
                cannot have joined their sides: one chain blocks the other.)
        """
        values = tuple(int(v) for v in values)
        if len(values) != 1 + self.action_space_size:
            raise ValueError(f"a {self.size}x{self.size} Hex state has {1 + self.action_space_size} "
                             f"numbers (player, then the cells), got {len(values)}")
        if values[0] not in (1, 2):
            raise ValueError(f"the first number is the player to move, 1 or 2, got {values[0]}")
        if any(v not in (0, 1, 2) for v in values[1:]):
            raise ValueError("cells hold 0 (empty), 1 or 2")
        cells = bytes(values[1:])
        winner = 0 if self.has_chain(cells, 0) else (1 if self.has_chain(cells, 1) else -1)
        return HexState(cells, values[0] - 1, winner)

    # -- text ------------------------------------------------------------------------------------
    def render(self, state: HexState) -> str:
        return diamond_text(self, state)

    def action_to_text(self, state, action: int) -> str:
        row, col = divmod(int(action), self.size)
        return f"{column_letter(col)}{row + 1}"

    def parse_action(self, state: HexState, text: str) -> int:
        n, typed = self.size, "".join(str(text).split())
        letter = number = None
        if typed.isascii():  # letters and digits are ASCII only: no full-width or Arabic-Indic digits
            typed = typed.lower()
            letter, number = _LETTER_CELL.fullmatch(typed), _NUMBER_CELL.fullmatch(typed)
        if letter:
            col, (row, row_text) = ord(letter.group(1)) - ord("a"), _board_number(letter.group(2))
            col_text = letter.group(1)
        elif number:
            (row, row_text), (col, col_text) = _board_number(number.group(1)), _board_number(number.group(2))
        else:
            raise IllegalAction(f"{quoted(typed)} is not a cell: type a column letter and a row number such as "
                                f"c3, or row,column such as 3,3.")
        last = column_letter(n - 1)
        column_off = not 0 <= col < n
        if column_off and letter:
            raise IllegalAction(f"Column {col_text} is off the board: columns run from a to {last}.")
        if not 0 <= row < n:
            raise IllegalAction(f"Row {row_text} is off the board: rows run from 1 to {n}.")
        if column_off:
            raise IllegalAction(f"Column {col_text} is off the board: columns run from 1 to {n}.")
        if state.winner >= 0:
            raise IllegalAction("The game is over.")
        action = row * n + col
        if state.cells[action]:
            owner = state.cells[action]
            raise IllegalAction(f"{self.action_to_text(state, action)} is taken by "
                                f"{STONES[owner]} (player {owner}).")
        return action


def _board_number(digits: str) -> tuple[int, str]:
    """A 1-based row or column number typed as ASCII digits: ``(0-based index, the number as a
    message shows it)``. Leading zeros do not count. A number of more than two digits is off every
    board (index ``MAX_SIZE``) and is never converted to an int, so thousands of digits cost nothing
    (``int`` refuses strings of more than 4,300 digits)."""
    significant = digits.lstrip("0") or "0"
    if len(significant) <= 2:
        return int(significant) - 1, significant
    if len(significant) <= 12:
        return MAX_SIZE, significant
    return MAX_SIZE, f"{significant[:12]}… ({len(significant):,} digits)"


PLAYER_NAMES = ("X (player 1)", "O (player 2)")


def legend(game: Hex) -> str:
    last = column_letter(game.size - 1)
    return (f"X joins the upper-right and lower-left sides (rows 1 and {game.size}); "
            f"O joins the upper-left and lower-right sides (columns a and {last}).\n"
            "Rows run down-right from their number, columns down-left from their letter.")


def status(game: Hex, state: HexState) -> str:
    if state.winner >= 0:
        return f"{PLAYER_NAMES[state.winner]} has won."
    return f"{PLAYER_NAMES[state.player]} to move."


def diamond_text(game: Hex, state: HexState) -> str:
    """The position as a diamond of characters, with status, labels and a legend.

    Cell ``(r, c)`` sits on text line ``r + c`` at character ``2 + 2 * (c - r + n - 1)``; the
    leftmost cell of line ``k < n`` is ``(k, 0)`` (row label ``k + 1`` before it), the rightmost
    ``(0, k)`` (column letter after it).
    """
    n = game.size
    width = 4 * n + 4
    lines = []
    for k in range(2 * n - 1):
        chars = [" "] * width
        for r in range(max(0, k - n + 1), min(k, n - 1) + 1):
            c = k - r
            chars[2 + 2 * (c - r + n - 1)] = STONES[state.cells[r * n + c]]
        if k < n:
            chars[2 * (n - 1 - k)] = str(k + 1)
            chars[2 + 2 * (k + n - 1) + 2] = column_letter(k)
        lines.append("".join(chars).rstrip())
    return "\n".join([status(game, state), *lines, legend(game)])
