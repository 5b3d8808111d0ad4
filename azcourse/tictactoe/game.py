"""Tic-tac-toe on the game layer (``azcourse.core.protocol``).

The notebooks keep teaching their own array-backed rules and search; this implementation serves the
library's generic search and terminal play (``play.py ttt --opponent uct``).

State: ``TicTacToeState(cells, player, outcome)``: ``cells`` is 9 bytes, row by row, 0 empty,
1 an X (player 0, who opens), 2 an O (player 1); ``player`` is the player to move; ``outcome`` is
``ONGOING``, the winning player (0 or 1) or ``DRAW``. Actions 0-8 are the squares row by row; a
person types them as 1-9 (phone keypad read row by row).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.protocol import IllegalAction, quoted

ONGOING, DRAW = -1, 2
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
LINES_THROUGH = tuple(tuple(line for line in LINES if square in line) for square in range(9))
MARKS = ".XO"


class TicTacToeState(NamedTuple):
    cells: bytes
    player: int
    outcome: int


class TicTacToe:
    """Tic-tac-toe: 2 players, 9 actions, encoding ``(2, 3, 3)`` float32 (the mover's marks, the
    opponent's marks)."""

    name = "tictactoe"
    num_players = 2
    action_space_size = 9
    encoding_shape = (2, 3, 3)

    def initial_state(self, rng=None) -> TicTacToeState:
        return TicTacToeState(bytes(9), 0, ONGOING)

    def to_move(self, state: TicTacToeState) -> int:
        return state.player

    def legal_mask(self, state: TicTacToeState) -> np.ndarray:
        if state.outcome != ONGOING:
            return np.zeros(9, dtype=bool)
        return np.frombuffer(state.cells, dtype=np.uint8) == 0

    def next_state(self, state: TicTacToeState, action: int) -> TicTacToeState:
        action = int(action)
        if state.outcome != ONGOING:
            raise ValueError("illegal action: the game is over")
        if not 0 <= action < 9 or state.cells[action]:
            raise ValueError(f"illegal action: square {action + 1} is not free")
        mark = state.player + 1
        cells = bytearray(state.cells)
        cells[action] = mark
        cells = bytes(cells)
        if any(cells[a] == cells[b] == cells[c] == mark for a, b, c in LINES_THROUGH[action]):
            outcome = state.player
        elif 0 not in cells:
            outcome = DRAW
        else:
            outcome = ONGOING
        return TicTacToeState(cells, 1 - state.player, outcome)

    def is_terminal(self, state: TicTacToeState) -> bool:
        return state.outcome != ONGOING

    def returns(self, state: TicTacToeState) -> np.ndarray:
        result = np.zeros(2)
        if state.outcome in (0, 1):
            result[state.outcome], result[1 - state.outcome] = 1.0, -1.0
        return result

    def is_chance(self, state) -> bool:
        return False

    def resolve_chance(self, state, rng):
        raise ValueError("tic-tac-toe has no chance steps")

    def state_key(self, state: TicTacToeState):
        return state.cells, state.player

    def encode(self, state: TicTacToeState) -> np.ndarray:
        cells = np.frombuffer(state.cells, dtype=np.uint8).reshape(3, 3)
        return np.stack([cells == state.player + 1, cells == 2 - state.player]).astype(np.float32)

    def render(self, state: TicTacToeState) -> str:
        marks = [MARKS[v] if v else str(i + 1) for i, v in enumerate(state.cells)]
        rows = [" " + " | ".join(marks[r * 3:r * 3 + 3]) for r in range(3)]
        return "\n---+---+---\n".join(rows)

    def action_to_text(self, state, action: int) -> str:
        return str(int(action) + 1)

    def parse_action(self, state: TicTacToeState, text: str) -> int:
        typed = text.strip()
        if not (len(typed) == 1 and typed in "123456789"):
            raise IllegalAction(f"{quoted(typed)} is not a square; type a number from 1 to 9.")
        if state.outcome != ONGOING:
            raise IllegalAction("The game is over.")
        if state.cells[int(typed) - 1]:
            raise IllegalAction(f"Square {typed} is taken.")
        return int(typed) - 1

    def symmetries(self, encoded: np.ndarray, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The 8 symmetries of the square (4 rotations, each also mirrored left to right), the
        identity first: a list of ``(encoded float32 (2, 3, 3), policy (9,))``, square ``r * 3 + c``
        of the policy moved with its cell (see the protocol's optional methods)."""
        planes = np.asarray(encoded, dtype=np.float32).reshape(2, 3, 3)
        grid = np.asarray(policy).reshape(3, 3)
        images = []
        for mirror in (False, True):
            for turns in range(4):
                p, g = np.rot90(planes, turns, axes=(1, 2)), np.rot90(grid, turns)
                if mirror:
                    p, g = p[:, :, ::-1], g[:, ::-1]
                images.append((np.ascontiguousarray(p), g.reshape(9).copy()))
        return images

    def from_mover_board(self, board) -> TicTacToeState:
        """The state of a notebook board (9 values seen from the mover: 1 mover, -1 opponent).

        X opens, so the mover is X (player 0) when both have placed as many marks.
        """
        board = np.asarray(board).reshape(9)
        mover = 0 if np.count_nonzero(board) % 2 == 0 else 1
        cells = bytes(int(mover + 1 if v == 1 else (2 - mover if v == -1 else 0)) for v in board)
        state = TicTacToeState(cells, mover, ONGOING)
        for square, mark in enumerate(cells):  # a finished board: recompute the outcome
            if mark and any(cells[a] == cells[b] == cells[c] == mark for a, b, c in LINES_THROUGH[square]):
                return state._replace(outcome=mark - 1)
        return state._replace(outcome=DRAW) if 0 not in cells else state
