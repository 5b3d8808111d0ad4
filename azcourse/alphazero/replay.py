"""The replay window: the most recent self-play positions, with their search policy, result and policy weight.

A ring of fixed capacity: once full, each new position replaces the oldest, so training always
sees the last ``capacity`` positions (symmetric images count as positions). ``sample`` draws
minibatches uniformly with replacement; ``random_images`` turns each row into a random symmetry image of
itself (a game's ``symmetry_maps``). ``arrays`` / ``from_arrays`` give the contents for a
resumable state; a state saved before the policy weights existed loads with weight 1 everywhere.
"""
from __future__ import annotations

import numpy as np


class ReplayWindow:
    """Positions ``x`` float32 ``(capacity, *encoding_shape)``, policies ``pi`` float32
    ``(capacity, A)``, results ``z`` float32 ``(capacity,)``, policy weights ``w`` float32 ``(capacity,)``
    (1: ``pi`` is a target; 0: a cheap search's position, no policy target).

    Args:
        capacity: the most positions held.
        encoding_shape: the game's ``encoding_shape``.
        actions: the game's ``action_space_size``.
    """

    def __init__(self, capacity: int, encoding_shape: tuple, actions: int):
        if capacity < 1:
            raise ValueError("a replay window holds at least one position")
        self.capacity = int(capacity)
        self.x = np.zeros((capacity, *encoding_shape), np.float32)
        self.pi = np.zeros((capacity, actions), np.float32)
        self.z = np.zeros(capacity, np.float32)
        self.w = np.zeros(capacity, np.float32)
        self.size = 0   # positions held
        self.added = 0  # positions ever added; the next goes to added % capacity

    def __len__(self) -> int:
        return self.size

    def add(self, x: np.ndarray, pi: np.ndarray, z: np.ndarray, w: np.ndarray | None = None) -> None:
        """Add ``n`` positions: ``x`` ``(n, *encoding_shape)``, ``pi`` ``(n, A)``, ``z`` ``(n,)``, ``w``
        ``(n,)`` (default: 1, every ``pi`` a target)."""
        w = np.ones(len(x), np.float32) if w is None else w
        dropped = max(0, len(x) - self.capacity)  # more than the window holds: only the last survive
        x, pi, z, w = x[dropped:], pi[dropped:], z[dropped:], w[dropped:]
        self.added += dropped
        n = len(x)
        index = (self.added + np.arange(n)) % self.capacity
        self.x[index], self.pi[index], self.z[index], self.w[index] = x, pi, z, w
        self.added += n
        self.size = min(self.size + n, self.capacity)

    def sample(self, steps: int, batch_size: int, rng: np.random.Generator) -> tuple:
        """``steps`` minibatches of ``batch_size`` positions drawn uniformly with replacement:
        ``x (steps, B, *encoding_shape)``, ``pi (steps, B, A)``, ``z (steps, B)``, ``w (steps, B)``.

        Raises:
            ValueError: the window is empty.
        """
        if self.size == 0:
            raise ValueError("cannot sample from an empty replay window")
        index = rng.integers(0, self.size, size=(steps, batch_size))
        return self.x[index], self.pi[index], self.z[index], self.w[index]

    def arrays(self) -> dict:
        """The contents for a resumable state (slots as stored, and the add counter)."""
        return {"x": self.x[:self.size].copy(), "pi": self.pi[:self.size].copy(), "z": self.z[:self.size].copy(),
                "w": self.w[:self.size].copy(), "added": np.int64(self.added)}

    @classmethod
    def from_arrays(cls, capacity: int, arrays: dict) -> "ReplayWindow":
        """The window that ``arrays()`` described, with room for ``capacity`` positions (the same
        capacity as when it was saved)."""
        x = np.asarray(arrays["x"], np.float32)
        window = cls(capacity, x.shape[1:], np.asarray(arrays["pi"]).shape[1])
        window.size = len(x)
        window.x[:window.size], window.pi[:window.size] = x, arrays["pi"]
        window.z[:window.size] = arrays["z"]
        window.w[:window.size] = arrays.get("w", 1.0)  # a state saved before the weights: every pi a target
        window.added = int(arrays["added"])
        return window


def random_images(x: np.ndarray, pi: np.ndarray, maps: tuple, rng: np.random.Generator) -> tuple:
    """Each row of a minibatch as one of its symmetry images, drawn uniformly (the game's ``symmetry_maps``):
    ``x`` ``(..., *encoding_shape)`` and ``pi`` ``(..., A)`` with the same leading shape; returns new arrays
    of the same shapes. ``maps``: ``(x_maps (K, D), pi_maps (K, A))``. The rows of each image are gathered
    together, so no index array of the minibatches' size is built (a warm start's are gigabytes)."""
    x_maps, pi_maps = maps
    k = rng.integers(0, len(x_maps), size=pi.shape[:-1]).reshape(-1)
    rows_x, rows_pi = x.reshape(k.size, -1), pi.reshape(k.size, -1)
    images_x, images_pi = np.empty_like(rows_x), np.empty_like(rows_pi)
    order = np.argsort(k, kind="stable")
    bounds = np.searchsorted(k[order], np.arange(len(x_maps) + 1))
    for image, (start, end) in enumerate(zip(bounds[:-1], bounds[1:])):
        rows = order[start:end]
        images_x[rows] = rows_x[rows][:, x_maps[image]]
        images_pi[rows] = rows_pi[rows][:, pi_maps[image]]
    return images_x.reshape(x.shape), images_pi.reshape(pi.shape)
