"""The eight symmetries of the square Othello board, for data augmentation.

The symmetries are those of ``azcourse.core.square_symmetry`` (``g // 2`` quarter turns, then a
mirror when ``g`` is odd). The rules of Othello look the same under all eight, so a position and its
policy can be transformed together and its value stays the same. The pass (the policy's last entry)
stays where it is. The start position is kept by g = 0, 3, 4 and 7; the other four give the start
with the colours of the central discs exchanged.
"""
from __future__ import annotations

import numpy as np

from ..core.square_symmetry import NUM_SYMMETRIES, transform_planes  # noqa: F401 (re-exported)


def transform_policy(policy: np.ndarray, g: int) -> np.ndarray:
    """``policy`` (``(..., n * n + 1)``: one entry per square row by row, then the pass) under
    symmetry ``g``: each square's entry moves with its square, the pass entry stays last."""
    policy = np.asarray(policy)
    n = int(round((policy.shape[-1] - 1) ** 0.5))
    if n * n + 1 != policy.shape[-1]:
        raise ValueError(f"a policy has n * n + 1 entries, got {policy.shape[-1]}")
    squares = policy[..., :-1].reshape(*policy.shape[:-1], n, n)
    moved = transform_planes(squares, g).reshape(*policy.shape[:-1], n * n)
    return np.concatenate([moved, policy[..., -1:]], axis=-1)


def symmetries(planes: np.ndarray, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The eight ``(planes, policy)`` pairs of a training case, in the order ``g = 0..7`` (``g = 0``
    is the case itself).

    Args:
        planes: ``(..., n, n)`` encoded position(s), e.g. float32 ``(3, n, n)``.
        policy: ``(..., n * n + 1)`` move probabilities, the pass last.
    Returns:
        eight pairs with the shapes and dtypes of the inputs.
    """
    planes = np.asarray(planes)
    if planes.shape[-1] ** 2 + 1 != np.shape(policy)[-1]:
        raise ValueError(f"planes of an {planes.shape[-1]} x {planes.shape[-1]} board need a policy of "
                         f"{planes.shape[-1] ** 2 + 1} entries, got {np.shape(policy)[-1]}")
    return [(transform_planes(planes, g), transform_policy(policy, g)) for g in range(NUM_SYMMETRIES)]
