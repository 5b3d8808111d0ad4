"""Exact game values by exhaustive negamax, and a perfect player built on them."""
from functools import lru_cache

import numpy as np

from .rules import GameRules, board_key


class Solver:
    """Exact values of positions and moves under perfect play by both sides.

    Values are from the view of the player to move: 1 = win, 0 = draw, -1 = loss.
    Solving every position from the empty board takes well under a second.
    """

    def __init__(self, rules: GameRules):
        self.rules = rules
        self._value = lru_cache(maxsize=None)(self._value_of_key)

    def value(self, board: np.ndarray) -> int:
        """Value of `board` (int array of shape (9,)) for the player to move."""
        return self._value(board_key(board))

    def action_values(self, board: np.ndarray) -> np.ndarray:
        """Value of each move for the player to move: float array (9,), nan if illegal."""
        values = np.full(9, np.nan)
        for action in np.flatnonzero(self.rules.valid_mask(board)):
            values[action] = -self.value(self.rules.play(board, int(action)))
        return values

    def _value_of_key(self, key: bytes) -> int:
        board = np.frombuffer(key, dtype=np.int8)
        reward, done = self.rules.reward(board)
        if done:
            return int(reward)
        return int(np.nanmax(self.action_values(board)))


class PerfectPlayer:
    """Plays a uniformly random move among the optimal ones (so games vary).

    Call it like any agent: player(board) -> action (int).
    """

    def __init__(self, rules: GameRules, seed: int = 0):
        self.solver = Solver(rules)
        self.rng = np.random.default_rng(seed)

    def __call__(self, board: np.ndarray) -> int:
        values = self.solver.action_values(board)
        best = np.flatnonzero(values == np.nanmax(values))
        return int(self.rng.choice(best))
