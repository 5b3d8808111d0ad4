"""Othello (Reversi) on an n x n board, n even from 4 to 8, on the game layer (``azcourse.core.protocol``).

Board and coordinates
    Square ``(r, c)`` has row ``r`` and column ``c``, counted from 0 at the top left corner. Action
    ``r * n + c`` places a disc there. A person names it by column letter and row number, both from
    the top left: ``a1`` is ``(0, 0)``, ``c4`` is column c, row 4, i.e. ``(3, 2)``.
Players and start
    Black (``X``, protocol player 0) moves first; white (``O``) is player 1. The game starts from the
    central 2 x 2 squares: with ``m = n / 2``, white on ``(m-1, m-1)`` and ``(m, m)``, black on
    ``(m-1, m)`` and ``(m, m-1)``. On 8 x 8 that is white d4 and e5, black e4 and d5, the standard
    start, and black's first moves are d3, c4, f5 and e6.
Moves
    A placing move puts a disc of the mover's colour on an empty square so that, in at least one of
    the eight directions (along rows, columns and diagonals), one or more opponent discs lie in an
    unbroken line between it and another disc of the mover's. Every such line in every direction is
    flipped to the mover's colour.
The pass
    Action ``n * n`` is the pass. It is legal exactly when the mover has no placing move and the game
    is not over, and then it is the only legal action: the mover must play it (as in OpenSpiel), it is
    never skipped silently. After a pass, as after every move, the other player moves.
End and result
    The game ends when neither player has a placing move: the board is full, one colour is gone, or
    both are blocked with empty squares left. The player with more discs wins (+1, the other -1);
    equal counts are a draw (0 each). Empty squares count for nobody. ``scores(state)`` gives the
    disc counts ``(black, white)``.
State
    ``OthelloState(black, white, player, moves, over)``: ``black`` and ``white`` are bitboards
    (Python ints, bit ``r * n + c`` set for a disc on ``(r, c)``); ``player`` is the player to move;
    ``moves`` is the bitboard of the mover's placing moves and ``over`` whether the game has ended
    (both follow from the other three fields; they are kept so that no move is generated twice).
    ``state_key`` is ``(black, white, player)``.
Encoding
    float32 ``(3, n, n)`` from the mover's view: plane 0 the mover's discs, plane 1 the opponent's
    discs, plane 2 the mover's placing moves (all zero when the mover must pass or the game is over).
    ``azcourse.othello.symmetry`` maps it and a policy through the board's eight symmetries.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from ..core.protocol import IllegalAction

SIZES = (4, 6, 8)
DISCS = ".XO"  # by board value: empty, black, white
PLAYER_NAMES = ("Black (X, player 1)", "White (O, player 2)")
COLOUR_NAMES = ("black", "white")
MAX_TEXT = 16  # longer input is refused before it is read
DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
_SQUARE = re.compile(r"([a-z])([0-9]{1,2})", re.ASCII)


class OthelloState(NamedTuple):
    black: int
    white: int
    player: int
    moves: int
    over: bool


def column_letter(col: int) -> str:
    return "abcdefgh"[col]


class Othello:
    """Othello on a ``size`` x ``size`` board: 2 players, ``size**2 + 1`` actions (the last is the pass)."""

    num_players = 2

    def __init__(self, size: int = 6):
        if not (isinstance(size, (int, np.integer)) and size in SIZES):
            raise ValueError(f"Othello board size must be 4, 6 or 8 (even, from 4 to 8), got {size!r}")
        self.size = n = int(size)
        self.name = f"othello{n}"
        self.pass_action = n * n
        self.action_space_size = n * n + 1
        self.encoding_shape = (3, n, n)
        self._nbytes = (n * n + 7) // 8
        full = (1 << n * n) - 1
        first_col = sum(1 << r * n for r in range(n))
        last_col = first_col << (n - 1)
        # one (step, mask) per direction, the step as a shift distance along the flat board: the mask
        # drops what a shift moved off the board or wrapped around to the other side of a row
        steps = [(dr * n + dc, full & ~(first_col if dc == 1 else last_col if dc == -1 else 0))
                 for dr, dc in DIRECTIONS]
        self._up_steps = tuple((-step, mask) for step, mask in steps if step < 0)
        self._down_steps = tuple((step, mask) for step, mask in steps if step > 0)
        self._rays = tuple(tuple(ray for dr, dc in DIRECTIONS if (ray := self._ray(i // n, i % n, dr, dc)))
                           for i in range(n * n))
        m = n // 2
        white = (1 << ((m - 1) * n + m - 1)) | (1 << (m * n + m))
        black = (1 << ((m - 1) * n + m)) | (1 << (m * n + m - 1))
        self._start = self._state(black, white, 0)

    def _ray(self, row: int, col: int, dr: int, dc: int) -> tuple[int, ...]:
        """The bits of the squares from ``(row, col)`` (excluded) to the edge in direction ``(dr, dc)``,
        nearest first; only rays of at least two squares, since a flip needs one disc beyond."""
        n, bits = self.size, []
        r, c = row + dr, col + dc
        while 0 <= r < n and 0 <= c < n:
            bits.append(1 << r * n + c)
            r, c = r + dr, c + dc
        return tuple(bits) if len(bits) >= 2 else ()

    # -- move generation on bitboards ---------------------------------------------------------------
    def placing_moves(self, own: int, opponent: int) -> int:
        """Bitboard of the squares where the owner of ``own`` can place a disc against ``opponent``.

        In each direction the mover's discs are shifted through the opponent's: one step, one more,
        then twice two steps at once through pairs of opponent discs (``pairs``), which reaches the
        six discs that an outflanked line holds at most on 8x8 (n - 2 on an n x n board); one step
        more lands on a candidate square. No loop over the line's length: this runs at every move of
        every search and rollout.
        """
        moves = 0
        for step, mask in self._up_steps:  # towards lower indices
            line_mask = mask & opponent
            line = (own >> step) & line_mask
            line |= (line >> step) & line_mask
            pairs, double = line_mask & (line_mask >> step), step + step
            line |= (line >> double) & pairs
            line |= (line >> double) & pairs
            moves |= (line >> step) & mask
        for step, mask in self._down_steps:  # towards higher indices
            line_mask = mask & opponent
            line = (own << step) & line_mask
            line |= (line << step) & line_mask
            pairs, double = line_mask & (line_mask << step), step + step
            line |= (line << double) & pairs
            line |= (line << double) & pairs
            moves |= (line << step) & mask
        return moves & ~(own | opponent)

    def flips(self, own: int, opponent: int, square: int) -> int:
        """Bitboard of the opponent discs that a disc placed on ``square`` by ``own``'s owner turns over."""
        flipped = 0
        for ray in self._rays[square]:
            line = 0
            for bit in ray:
                if opponent & bit:
                    line |= bit
                elif own & bit:
                    flipped |= line
                    break
                else:
                    break
        return flipped

    def _state(self, black: int, white: int, player: int) -> OthelloState:
        own, opponent = (black, white) if player == 0 else (white, black)
        moves = self.placing_moves(own, opponent)
        over = not moves and not self.placing_moves(opponent, own)
        return OthelloState(black, white, player, moves, over)

    def _bits_to_array(self, bits: int) -> np.ndarray:
        """``uint8`` array ``(n * n,)``: 1 where ``bits`` has a square."""
        raw = np.frombuffer(bits.to_bytes(self._nbytes, "little"), dtype=np.uint8)
        return np.unpackbits(raw, count=self.size * self.size, bitorder="little")

    # -- rules ------------------------------------------------------------------------------------
    def initial_state(self, rng=None) -> OthelloState:
        return self._start

    def to_move(self, state: OthelloState) -> int:
        return state.player

    def legal_mask(self, state: OthelloState) -> np.ndarray:
        mask = np.zeros(self.action_space_size, dtype=bool)
        if not state.over:
            mask[:-1] = self._bits_to_array(state.moves)
            mask[-1] = not state.moves
        return mask

    def next_state(self, state: OthelloState, action: int) -> OthelloState:
        action = int(action)
        if state.over:
            raise ValueError("illegal action: the game is over")
        if not 0 <= action < self.action_space_size:
            raise ValueError(f"illegal action: {action} is outside 0..{self.action_space_size - 1}")
        if action == self.pass_action:
            if state.moves:
                raise ValueError("illegal action: pass while a placing move exists")
            return OthelloState(state.black, state.white, 1 - state.player,
                                self.placing_moves(*self.discs(state)[::-1]), False)
        bit = 1 << action
        if not state.moves & bit:
            raise ValueError(f"illegal action: {self.action_to_text(state, action)} is not a legal move")
        own, opponent = self.discs(state)
        flipped = self.flips(own, opponent, action)
        own, opponent = own | bit | flipped, opponent & ~flipped
        black, white = (own, opponent) if state.player == 0 else (opponent, own)
        return self._state(black, white, 1 - state.player)

    def random_playout(self, state: OthelloState, rng: np.random.Generator) -> np.ndarray:
        """The returns after both players play uniformly random legal moves from ``state`` to the end:
        the protocol's optional fast rollout (``azcourse.core.protocol``), float64 ``(2,)``.

        It plays on the bitboards, never building a state or a mask. It draws ``rng.random(2e + 1)``
        at once, ``e`` the empty squares (a game has at most that many decisions: a disc per placement,
        and never two passes in a row), and at its ``t``-th decision plays the ``int(u_t * k)``-th of
        its ``k`` legal squares in increasing order, or passes when it has none, so it plays exactly
        the moves that ``random_policy`` plays with a generator that returns those floats one by one.
        """
        if state.over:
            return self.returns(state)
        own, opponent = self.discs(state)
        player, moves, placing, flips = state.player, state.moves, self.placing_moves, self.flips
        empty = self.size * self.size - (own | opponent).bit_count()
        for u in rng.random(2 * empty + 1).tolist():
            if moves:
                for _ in range(int(u * moves.bit_count())):
                    moves &= moves - 1  # drop the lowest legal square
                bit = moves & -moves
                flipped = flips(own, opponent, bit.bit_length() - 1)
                own, opponent = opponent & ~flipped, own | bit | flipped
            else:
                own, opponent = opponent, own
            player ^= 1
            moves = placing(own, opponent)
            if not moves and not placing(opponent, own):
                break
        mine, theirs = own.bit_count(), opponent.bit_count()  # own: the discs of ``player``
        result = np.zeros(2)
        result[player] = np.sign(mine - theirs)
        result[1 - player] = -result[player]
        return result

    def discs(self, state: OthelloState) -> tuple[int, int]:
        """``(mover's bitboard, opponent's bitboard)``."""
        return (state.black, state.white) if state.player == 0 else (state.white, state.black)

    def is_terminal(self, state: OthelloState) -> bool:
        return state.over

    def scores(self, state: OthelloState) -> tuple[int, int]:
        """Disc counts ``(black, white)``."""
        return state.black.bit_count(), state.white.bit_count()

    def returns(self, state: OthelloState) -> np.ndarray:
        result = np.zeros(2)
        if state.over:
            black, white = self.scores(state)
            result[0] = np.sign(black - white)
            result[1] = -result[0]
        return result

    def is_chance(self, state) -> bool:
        return False

    def resolve_chance(self, state, rng):
        raise ValueError("Othello has no chance steps")

    def state_key(self, state: OthelloState):
        return state.black, state.white, state.player

    # -- boards as arrays -------------------------------------------------------------------------
    def board(self, state: OthelloState) -> np.ndarray:
        """``int8`` array ``(n, n)``: 0 empty, 1 black, 2 white."""
        cells = self._bits_to_array(state.black).astype(np.int8) + 2 * self._bits_to_array(state.white)
        return cells.reshape(self.size, self.size)

    def from_board(self, board, player: int) -> OthelloState:
        """The state with ``board`` (``(n, n)``, 0 empty, 1 black, 2 white) and ``player`` to move.

        Any such board is accepted, reachable in play or not; the legal moves and the end follow
        from the rules.

        Raises:
            ValueError: wrong shape, a value other than 0/1/2, or a player other than 0/1.
        """
        cells = np.asarray(board)
        if cells.shape != (self.size, self.size):
            raise ValueError(f"an {self.name} board has shape ({self.size}, {self.size}), got {cells.shape}")
        if not np.isin(cells, (0, 1, 2)).all():
            raise ValueError("board squares hold 0 (empty), 1 (black) or 2 (white)")
        if player not in (0, 1):
            raise ValueError(f"the player to move is 0 (black) or 1 (white), got {player!r}")
        flat = cells.reshape(-1)
        black = sum(1 << i for i in np.flatnonzero(flat == 1).tolist())
        white = sum(1 << i for i in np.flatnonzero(flat == 2).tolist())
        return self._state(black, white, int(player))

    def encode(self, state: OthelloState) -> np.ndarray:
        """float32 ``(3, n, n)``: the mover's discs, the opponent's, the mover's legal squares (0/1);
        the three bitboards unpacked in one call."""
        own, opponent = self.discs(state)
        nbytes = self._nbytes
        raw = b"".join(bits.to_bytes(nbytes, "little") for bits in (own, opponent, 0 if state.over else state.moves))
        planes = np.unpackbits(np.frombuffer(raw, dtype=np.uint8).reshape(3, nbytes), axis=1,
                               count=self.size * self.size, bitorder="little")
        return planes.astype(np.float32).reshape(self.encoding_shape)

    def symmetries(self, encoded: np.ndarray, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The 8 symmetries of the square board, the identity first (``azcourse.othello.symmetry``): a
        list of ``(encoded float32 (3, n, n), policy (n^2 + 1,))``, the pass entry kept in place (see
        the protocol's optional methods)."""
        from .symmetry import symmetries

        return symmetries(np.asarray(encoded, dtype=np.float32), np.asarray(policy))

    # -- text -------------------------------------------------------------------------------------
    def status(self, state: OthelloState) -> str:
        """One line: the disc counts and who is to move, must pass, or has won."""
        black, white = self.scores(state)
        counts = f"Discs: X {black}, O {white}."
        if state.over:
            if black == white:
                return f"{counts} Game over: a draw."
            return f"{counts} Game over: {PLAYER_NAMES[0 if black > white else 1]} wins."
        if not state.moves:
            return f"{counts} {PLAYER_NAMES[state.player]} has no move and must pass."
        return f"{counts} {PLAYER_NAMES[state.player]} to move."

    def render(self, state: OthelloState) -> str:
        n = self.size
        cells = self.board(state).reshape(-1)
        legal = self._bits_to_array(0 if state.over else state.moves)
        lines = ["   " + " ".join(column_letter(c) for c in range(n))]
        for r in range(n):
            marks = ("*" if legal[i] else DISCS[cells[i]] for i in range(r * n, r * n + n))
            lines.append(f"{r + 1:>2} " + " ".join(marks))
        hint = "" if state.over else " * marks the legal moves." if state.moves else " Type pass."
        return "\n".join([*lines, self.status(state) + hint])

    def action_to_text(self, state, action: int) -> str:
        action = int(action)
        if not 0 <= action < self.action_space_size:
            raise ValueError(f"action {action} is outside 0..{self.action_space_size - 1}")
        if action == self.pass_action:
            return "pass"
        row, col = divmod(action, self.size)
        return f"{column_letter(col)}{row + 1}"

    def parse_action(self, state: OthelloState, text: str) -> int:
        n, last = self.size, column_letter(self.size - 1)
        how = f"type a column letter and a row number such as c4 (columns a to {last}, rows 1 to {n}), or pass"
        if not isinstance(text, str):
            raise IllegalAction(f"A move is text: {how}.")
        if len(text) > MAX_TEXT:
            raise IllegalAction(f"That is too long for a move ({len(text)} characters): {how}.")
        typed = "".join(text.split()).lower()
        square = _SQUARE.fullmatch(typed)
        if typed != "pass" and not square:
            raise IllegalAction(f"{typed!r} is not a move: {how}.")
        if square:
            col, row = ord(square.group(1)) - ord("a"), int(square.group(2)) - 1
            if not 0 <= col < n:
                raise IllegalAction(f"Column {square.group(1)} is off the board: columns run from a to {last}.")
            if not 0 <= row < n:
                raise IllegalAction(f"Row {row + 1} is off the board: rows run from 1 to {n}.")
        if state.over:
            raise IllegalAction("The game is over.")
        if not square:
            if state.moves:
                raise IllegalAction(f"You cannot pass while you have a move: {self._legal_text(state)}.")
            return self.pass_action
        action = row * n + col
        name = self.action_to_text(state, action)
        if (state.black | state.white) >> action & 1:
            owner = 0 if state.black >> action & 1 else 1
            raise IllegalAction(f"{name} is taken by a {COLOUR_NAMES[owner]} disc ({DISCS[owner + 1]}).")
        if not state.moves >> action & 1:
            opponent = COLOUR_NAMES[1 - state.player]
            then = f"{self._legal_text(state)}" if state.moves else "you have no move, so type pass"
            raise IllegalAction(f"{name} flips nothing: a move must outflank at least one {opponent} disc "
                                f"in a line; {then}.")
        return action

    def _legal_text(self, state: OthelloState) -> str:
        squares = np.flatnonzero(self._bits_to_array(state.moves))
        return "legal moves are " + ", ".join(self.action_to_text(state, int(a)) for a in squares)
