"""The policy-value network of ``network`` as a Flax module: for training, and for a jitted forward pass.

Layer names, shapes and the forward pass are those of ``network.NumpyNet`` (see ``network``), so
parameters trained here play there unchanged.
"""
from __future__ import annotations

from typing import Callable, Mapping

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from .network import NetSpec


def make_module(spec: NetSpec):
    """The Flax linen module: ``module.apply({'params': p}, x)`` with ``x`` float32
    ``(B, *encoding_shape)`` -> ``(logits float32 (B, A), value float32 (B,))``."""
    class PolicyValueNet(nn.Module):
        @nn.compact
        def __call__(self, x):
            batch = x.shape[0]
            h = jnp.transpose(x, (0, 2, 3, 1)) if spec.channels else x
            for i, channels in enumerate(spec.channels):
                h = nn.relu(nn.Conv(channels, (3, 3), padding="SAME", name=f"conv_{i}")(h))
            h = h.reshape(batch, -1)
            for i, width in enumerate(spec.hidden):
                h = nn.relu(nn.Dense(width, name=f"hidden_{i}")(h))
            logits = nn.Dense(spec.actions, name="policy_head")(h)
            if spec.action_features:
                count = spec.action_features[0]
                logits = logits.at[:, :count].add(nn.Dense(1, name="action_head")(spec.per_action(x))[..., 0])
            value = jnp.tanh(nn.Dense(1, name="value_head")(h))[:, 0]
            return logits, value

    return PolicyValueNet()


def init_params(spec: NetSpec, seed: int) -> dict:
    """Initial parameters (Flax's default initialisers, key ``jax.random.PRNGKey(seed)``)."""
    x = np.zeros((1, *spec.encoding_shape), np.float32)
    return make_module(spec).init(jax.random.PRNGKey(seed), x)["params"]


def jax_forward(spec: NetSpec, params: Mapping) -> Callable:
    """The jitted Flax forward pass on one position, with the signature of ``NumpyNet.__call__``."""
    module = make_module(spec)
    apply = jax.jit(lambda p, x: module.apply({"params": p}, x[None]))
    params = jax.device_put(params)  # once, not at every call

    def forward(x: np.ndarray) -> tuple[np.ndarray, float]:
        logits, value = jax.device_get(apply(params, x))  # one transfer back
        return logits[0], float(value[0])
    return forward


def jax_forward_many(spec: NetSpec, params: Mapping) -> Callable:
    """The jitted Flax forward pass on a batch, with the signature of ``NumpyNet.forward``: ``x`` float32
    ``(B, *encoding_shape)`` -> ``(logits float32 (B, A), values float32 (B,))``, on the GPU when JAX
    sees one. Batches are padded with zeros to the next power of two, so a self-play run compiles a
    handful of shapes, not one per batch size."""
    module = make_module(spec)
    apply = jax.jit(lambda p, x: module.apply({"params": p}, x))
    params = jax.device_put(params)

    def forward_many(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        batch = len(x)
        padded = 1 << max(batch - 1, 0).bit_length()
        if padded != batch:
            x = np.concatenate([x, np.zeros((padded - batch, *x.shape[1:]), np.float32)])
        logits, values = jax.device_get(apply(params, np.asarray(x, np.float32)))
        return logits[:batch], values[:batch]
    return forward_many
