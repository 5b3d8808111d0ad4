"""The replay buffer (RBUF) of on-policy MCTS: training cases ``(encoded state, visit distribution)``.

A ring of fixed capacity: once full, each new case replaces the oldest. ``sample`` draws a
minibatch uniformly without replacement (with replacement only when asked for more cases than the
buffer holds). ``arrays``/``from_arrays`` give its contents for a resumable checkpoint.
"""
from __future__ import annotations

import numpy as np


class ReplayBuffer:
    """Cases for ANET: ``x`` float32 ``(capacity, input_dim)``, ``target`` float32 ``(capacity, cells)``.

    Args:
        capacity: the most cases held.
        input_dim: length of an encoded state (``2 + 2 n^2`` for Hex).
        cells: length of a target distribution (``n^2``).
    """

    def __init__(self, capacity: int, input_dim: int, cells: int):
        if capacity < 1:
            raise ValueError("a replay buffer holds at least one case")
        self.capacity = int(capacity)
        self.x = np.zeros((capacity, input_dim), np.float32)
        self.target = np.zeros((capacity, cells), np.float32)
        self.size = 0   # cases held
        self.added = 0  # cases ever added; the next one goes to added % capacity

    def __len__(self) -> int:
        return self.size

    def add(self, x: np.ndarray, target: np.ndarray) -> None:
        """Add one case: ``x`` ``(input_dim,)`` and ``target`` ``(cells,)`` (a distribution)."""
        i = self.added % self.capacity
        self.x[i], self.target[i] = x, target
        self.added += 1
        self.size = min(self.size + 1, self.capacity)

    def sample(self, batch_size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``batch_size`` cases drawn uniformly: ``(x (B, input_dim), target (B, cells))``.

        Raises:
            ValueError: the buffer is empty.
        """
        if self.size == 0:
            raise ValueError("cannot sample from an empty replay buffer")
        replace = batch_size > self.size
        index = rng.choice(self.size, size=batch_size, replace=replace)
        return self.x[index], self.target[index]

    def arrays(self) -> dict:
        """The contents for a resumable checkpoint: the held cases (ring order) and the add counter."""
        return {"x": self.x[:self.size].copy(), "target": self.target[:self.size].copy(),
                "added": np.int64(self.added)}

    @classmethod
    def from_arrays(cls, capacity: int, arrays: dict) -> "ReplayBuffer":
        """The buffer that ``arrays()`` described, with room for ``capacity`` cases."""
        x, target = np.asarray(arrays["x"], np.float32), np.asarray(arrays["target"], np.float32)
        buffer = cls(capacity, x.shape[1], target.shape[1])
        buffer.size = len(x)
        buffer.x[:buffer.size], buffer.target[:buffer.size] = x, target
        buffer.added = int(arrays["added"])
        return buffer
