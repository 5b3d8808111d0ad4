"""The eight symmetries of a square board (the dihedral group of the square), for data augmentation.

Symmetry ``g`` (0..7) turns the board ``g // 2`` quarter turns counter-clockwise (``numpy.rot90`` on
the last two axes) and then, when ``g`` is odd, mirrors it left to right (``numpy.fliplr``). On an
n x n board that sends square ``(r, c)`` to:

    g = 0: (r, c)              g = 1: (r, n-1-c)
    g = 2: (n-1-c, r)          g = 3: (n-1-c, n-1-r)
    g = 4: (n-1-r, n-1-c)      g = 5: (n-1-r, c)
    g = 6: (c, n-1-r)          g = 7: (c, r)

Games whose rules look the same under all eight (Othello, Tak) map their encodings with
``transform_planes`` and their actions with ``square_permutation``.
"""
from __future__ import annotations

import numpy as np

NUM_SYMMETRIES = 8


def transform_planes(planes: np.ndarray, g: int) -> np.ndarray:
    """``planes`` (``(..., n, n)``, any dtype, e.g. an encoding ``(C, n, n)`` or a batch
    ``(B, C, n, n)``) under symmetry ``g``: a new array of the same shape and dtype."""
    if g not in range(NUM_SYMMETRIES):
        raise ValueError(f"symmetries are numbered 0 to 7, got {g!r}")
    turned = np.rot90(planes, g // 2, axes=(-2, -1))
    return (np.flip(turned, axis=-1) if g % 2 else turned).copy()


def square_permutation(n: int, g: int) -> np.ndarray:
    """int64 ``(n * n,)``: where symmetry ``g`` sends each square (numbered row by row, as the
    ``(n, n)`` planes of ``transform_planes`` lie in memory)."""
    moved = transform_planes(np.arange(n * n).reshape(n, n), g).reshape(-1)  # moved[j]: the square now at j
    image = np.empty(n * n, dtype=np.int64)
    image[moved] = np.arange(n * n)
    return image
