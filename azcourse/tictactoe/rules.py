"""The game interface shared by search, players and pictures.

Every board is seen from the player to move: a 9-vector (row-major 3x3) with 1 for the
player to move, -1 for the opponent and 0 for an empty square.
"""
from typing import Callable, NamedTuple

import numpy as np


class GameRules(NamedTuple):
    """The four functions a two-player, zero-sum, perfect-information game must provide.

    Contract (what alpha-zero-general's users found missing, stated up front):
        next_state(board, action) -> board: a NEW board where the player to move has
            played `action`; the input is never mutated; still seen from the mover.
        reward(board) -> (reward, done): reward in {-1, 0, 1} for the player to move
            (0 also means a draw once done is True); done is True when the game is over.
        valid_mask(board) -> bool array of shape (9,): True where a move is legal.
        flip(board) -> board: the same position seen from the other player.
    """

    next_state: Callable[[np.ndarray, int], np.ndarray]
    reward: Callable[[np.ndarray], tuple]
    valid_mask: Callable[[np.ndarray], np.ndarray]
    flip: Callable[[np.ndarray], np.ndarray]

    def play(self, board: np.ndarray, action: int) -> np.ndarray:
        """Play `action` and return the new board seen from the next player to move."""
        return self.flip(self.next_state(board, action))


def board_key(board: np.ndarray) -> bytes:
    """A hashable key for a board, independent of its integer dtype."""
    return np.asarray(board, dtype=np.int8).tobytes()


def board_text(board: np.ndarray, mover: str = "X", other: str = "O") -> str:
    """Draw a 9-vector as a 3x3 grid: X = player to move, O = opponent, . = empty."""
    symbols = {1: mover, -1: other, 0: "."}
    cells = [symbols.get(int(v), "?") for v in np.asarray(board).reshape(9)]
    return "\n".join(" ".join(cells[row * 3:row * 3 + 3]) for row in range(3))
