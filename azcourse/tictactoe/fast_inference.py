"""Evaluate a trained policy/value network inside a search loop without JAX overhead.

Calling a jitted Flax model costs tens of microseconds of dispatch per call, however small
the network: one call per MCTS leaf caps a search near 5,000 simulations/s on a laptop CPU.
Two remedies, usable together:

* ``NumpyPolicyValue`` copies the trained weights into numpy once and runs the forward pass
  with ``@`` on one board (a few microseconds for a small MLP).
* ``CachedModel`` remembers the output for every board already seen. Tic-tac-toe has only
  4,520 non-terminal positions, so after a short warm-up every call is one dict look-up.
"""
from typing import Callable, Mapping

import numpy as np

from .rules import board_key

PolicyValueFn = Callable[[np.ndarray], tuple]


class NumpyPolicyValue:
    """The forward pass of the homework's MLP on trained Flax parameters, in numpy.

    Expects ``params`` (the ``'params'`` collection) with Dense layers ``hidden_0``,
    ``hidden_1``, ... (ReLU), then ``policy_head`` (logits) and ``value_head`` (tanh).

    Call: model(board) -> (prior, value), board of shape (9,) any numeric dtype;
    prior float64 (9,) summing to 1 over all squares; value a Python float in [-1, 1].
    """

    def __init__(self, params: Mapping):
        hidden_names = sorted((name for name in params if name.startswith("hidden_")),
                              key=lambda name: int(name.split("_")[1]))
        self.hidden = [self._dense(params[name]) for name in hidden_names]
        self.policy_head = self._dense(params["policy_head"])
        self.value_head = self._dense(params["value_head"])

    @staticmethod
    def _dense(layer: Mapping) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(layer["kernel"], np.float64), np.asarray(layer["bias"], np.float64)

    def __call__(self, board: np.ndarray) -> tuple[np.ndarray, float]:
        x = np.asarray(board, np.float64)
        for kernel, bias in self.hidden:
            x = np.maximum(x @ kernel + bias, 0.0)
        logits = x @ self.policy_head[0] + self.policy_head[1]
        prior = np.exp(logits - logits.max())
        prior /= prior.sum()
        value = float(np.tanh(x @ self.value_head[0][:, 0] + self.value_head[1][0]))
        return prior, value


class CachedModel:
    """Wrap any model(board) -> (prior, value) so that each board is evaluated once.

    The returned prior is shared between calls: callers must not modify it in place.
    """

    def __init__(self, model: PolicyValueFn):
        self.model = model
        self.cache: dict[bytes, tuple] = {}

    def __call__(self, board: np.ndarray) -> tuple[np.ndarray, float]:
        key = board_key(board)
        result = self.cache.get(key)
        if result is None:
            result = self.cache[key] = self.model(board)
        return result
