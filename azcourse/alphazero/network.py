"""The policy-value network's shape and its forward pass in numpy, for search and play (no JAX).

Input: ``game.encode(state)``, float32 of shape ``encoding_shape``, batched as ``(B, *encoding_shape)``.
Trunk: optional 3x3 convolutions (``conv_0``, ``conv_1``, ...; 'SAME' padding, ReLU) for an
encoding ``(C, H, W)`` (channels first, moved last for Flax), then the flattened features through
dense layers ``hidden_0``, ``hidden_1``, ... (ReLU).
Heads: ``policy_head``, a dense layer of ``A`` logits (a softmax over the whole action space: the
search keeps the legal entries and renormalises them, and the training targets are 0 on illegal
actions); ``value_head``, one unit through ``tanh``: the result the player to move expects, in
[-1, 1]. With ``action_features = (K, F)`` (a game whose flat encoding ends with F features for each
of its first K actions, ``game.action_features``, e.g. what an Azul take would score) one more layer,
``action_head`` (F -> 1, shared by the K actions), adds to each of those actions' logits a value of its
own features: "play the move whose consequences look best" is then one layer away.
Parameters: the ``'params'`` collection, float32 ``kernel`` (dense ``(in, out)``, convolution
``(3, 3, in, out)``) and ``bias`` ``(out,)`` per layer.

The same network as a Flax module, for training, is in ``flax_net``; this module never imports JAX,
so playing or searching with a checkpoint does not need it (nor does a student bundle). A jitted JAX
call costs tens of microseconds of dispatch per position, more than the whole forward pass of a
small network, so the search evaluates single positions with ``NumpyNet`` (the figures are in
docs/alphazero.md); ``flax_net.jax_forward`` is the jitted alternative. ``Predictor`` turns either
into the ``predict(state)`` that ``azcourse.core.evaluators.NetworkEvaluator`` takes, with a cache
by ``game.state_key``.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Mapping

import numpy as np


@dataclasses.dataclass(frozen=True)
class NetSpec:
    """The shape of a network: what a checkpoint card's ``architecture`` records.

    Attributes:
        encoding_shape: the game's ``encoding_shape`` (3-D ``(C, H, W)`` when ``channels``).
        actions: the game's ``action_space_size`` A.
        channels: output channels of the 3x3 convolutions (may be empty).
        hidden: widths of the dense layers.
        action_features: ``()``, or ``(K, F)``: the encoding (flat) ends with F features of each of the
            first K actions, read by the ``action_head``.
    """

    encoding_shape: tuple
    actions: int
    channels: tuple = ()
    hidden: tuple = (64, 64)
    action_features: tuple = ()

    def __post_init__(self):
        for name in ("encoding_shape", "channels", "hidden", "action_features"):
            object.__setattr__(self, name, tuple(int(v) for v in getattr(self, name)))
        if self.channels and len(self.encoding_shape) != 3:
            raise ValueError(f"convolutions need an encoding (C, H, W); this game's is {self.encoding_shape}: "
                             "set channels = [] for a dense network")
        if self.action_features:
            count, width = self.action_features
            if len(self.encoding_shape) != 1 or self.channels or not (0 < count <= self.actions) or \
                    not 0 < count * width <= self.encoding_shape[0]:
                raise ValueError(f"action_features (K, F) = {self.action_features} needs a flat encoding ending with "
                                 f"K * F values for K <= {self.actions} actions, and no convolutions")

    @classmethod
    def for_game(cls, game, channels=(), hidden=(64, 64), action_head: bool = False) -> "NetSpec":
        """The shape for ``game``; ``action_head``: with the game's ``action_features`` (ValueError without)."""
        features = getattr(game, "action_features", None) if action_head else ()
        if features is None:
            raise ValueError(f"{game.name} gives no per-action features (game.action_features): "
                             "set action_head = false")
        return cls(tuple(game.encoding_shape), int(game.action_space_size), tuple(channels), tuple(hidden), features)

    def as_dict(self) -> dict:
        return {"encoding_shape": list(self.encoding_shape), "actions": self.actions,
                "channels": list(self.channels), "hidden": list(self.hidden),
                "action_features": list(self.action_features)}

    def per_action(self, x):
        """The per-action block of flat encodings ``x`` ``(B, D)``: ``(B, K, F)`` (numpy or JAX)."""
        count, width = self.action_features
        return x[:, x.shape[1] - count * width:].reshape(x.shape[0], count, width)


def param_count(params: Mapping) -> int:
    """Number of parameters in a ``{layer: {kernel, bias}}`` tree."""
    return int(sum(np.size(leaf) for layer in params.values() for leaf in layer.values()))


class NumpyNet:
    """The network's forward pass in numpy float32 (no JAX needed): for search and play.

    Args:
        spec: the network's shape.
        params: the ``'params'`` collection (JAX or numpy arrays; copied once).
    """

    def __init__(self, spec: NetSpec, params: Mapping):
        self.spec = spec
        layer = lambda name: (np.asarray(params[name]["kernel"], np.float32),  # noqa: E731
                              np.asarray(params[name]["bias"], np.float32))
        # a convolution as one matrix product on 3x3 patches: kernel (9 * in, out), rows ordered (dy, dx, in)
        self.convs = [(k.reshape(-1, k.shape[-1]), b) for k, b in (layer(f"conv_{i}") for i in range(len(spec.channels)))]
        self.dense = [layer(f"hidden_{i}") for i in range(len(spec.hidden))]
        self.policy_head, self.value_head = layer("policy_head"), layer("value_head")
        self.action_head = layer("action_head") if spec.action_features else None

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``x`` float32 ``(B, *encoding_shape)`` -> ``(logits float32 (B, A), value float32 (B,))``."""
        x = np.asarray(x, np.float32)
        batch = x.shape[0]
        if self.convs:
            h = x.transpose(0, 2, 3, 1)
            height, width = h.shape[1:3]
            for kernel, bias in self.convs:
                padded = np.pad(h, ((0, 0), (1, 1), (1, 1), (0, 0)))
                patches = np.concatenate([padded[:, dy:dy + height, dx:dx + width] for dy in range(3) for dx in range(3)],
                                         axis=-1)
                h = np.maximum(patches @ kernel + bias, 0.0)
        else:
            h = x
        h = h.reshape(batch, -1)
        for kernel, bias in self.dense:
            h = np.maximum(h @ kernel + bias, 0.0)
        logits = h @ self.policy_head[0] + self.policy_head[1]
        if self.action_head is not None:
            count = self.spec.action_features[0]
            logits[:, :count] += (self.spec.per_action(x) @ self.action_head[0])[..., 0] + self.action_head[1]
        value = np.tanh(h @ self.value_head[0] + self.value_head[1])[:, 0]
        return logits, value

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, float]:
        """One position: ``x`` float32 ``encoding_shape`` -> ``(logits float32 (A,), value float)``."""
        logits, value = self.forward(x[None])
        return logits[0], float(value[0])


class Predictor:
    """``predict(state) -> (prior float64 (A,), value float)`` for ``NetworkEvaluator``: the
    network's softmax over the whole action space and its value for the player to move, cached by
    ``game.state_key`` (the cache is emptied when it holds ``cache_size`` positions);
    ``predict_many(states)`` gives the same for a list of states with one batched forward pass.

    Args:
        game: the game whose states are evaluated.
        forward: ``forward(encoded) -> (logits (A,), value)`` (``NumpyNet`` or ``flax_net.jax_forward``).
        cache_size: most positions remembered (0: no cache).
        forward_many: ``forward_many(x float32 (B, *encoding_shape)) -> (logits (B, A), values (B,))``
            (``NumpyNet.forward``, ``flax_net.jax_forward_many``); without it ``predict_many`` calls
            ``forward`` on each position.
    """

    def __init__(self, game, forward: Callable, cache_size: int = 200_000, forward_many: Callable | None = None):
        self.game, self.forward, self.cache_size, self.forward_many = game, forward, cache_size, forward_many
        self.cache: dict = {}
        self.evaluations = 0  # positions run through the network (cache misses)

    def _remember(self, key, logits: np.ndarray, value: float) -> tuple[np.ndarray, float]:
        z = np.exp(logits.astype(np.float64) - logits.max())
        result = (z / z.sum(), value)
        self.evaluations += 1
        if self.cache_size:
            if len(self.cache) >= self.cache_size:
                self.cache.clear()
            self.cache[key] = result
        return result

    def __call__(self, state) -> tuple[np.ndarray, float]:
        key = self.game.state_key(state) if self.cache_size else None
        hit = self.cache.get(key) if self.cache_size else None
        if hit is not None:
            return hit
        return self._remember(key, *self.forward(self.game.encode(state)))

    def predict_many(self, states: list) -> list[tuple[np.ndarray, float]]:
        """``[self(s) for s in states]``, the positions missing from the cache in one forward pass (a
        position that occurs twice is evaluated once)."""
        if self.forward_many is None:
            return [self(state) for state in states]
        game = self.game
        keys = [game.state_key(state) for state in states]
        known = {}  # key -> (prior, value): cache hits now, then the new evaluations
        missing = {}  # key -> its first state, in order
        for key, state in zip(keys, states):
            if key in known or key in missing:
                continue
            hit = self.cache.get(key) if self.cache_size else None
            if hit is not None:
                known[key] = hit
            else:
                missing[key] = state
        if missing:
            logits, values = self.forward_many(np.stack([game.encode(s) for s in missing.values()]))
            for key, row, value in zip(missing, logits, values):
                known[key] = self._remember(key if self.cache_size else None, row, float(value))
        return [known[key] for key in keys]
