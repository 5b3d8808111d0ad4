"""Policy/value networks for Azul: a Flax (linen) MLP for training, a numpy copy for playing.

``AzulNet(hidden=(64, 32))`` is the original homework's small MLP (64 and 32 hidden units, 181
policy logits, a tanh value head); the original had no activation between its Dense layers, which
makes the body a single linear map, so ours uses ReLU. ``AzulNet(hidden=(256, 256, 128))`` is the
strong model. Input: ``features.encode(board)``, shape ``(FEATURE_DIM,)`` = (419,) float32.

Parameters live in the ``'params'`` collection as Dense layers ``hidden_0``, ``hidden_1``, ...,
``policy_head`` (181 logits) and ``value_head`` (1 unit, tanh), the same names as
``azcourse.tictactoe.fast_inference`` uses for the tic-tac-toe network, plus ``action_head``
(6 -> 1, shared by the 180 takes): each take's logit also gets a learned linear function of that
take's own features (``features`` per-take block), a skip connection that makes "play the move
with the best immediate consequence" one weight away.

Playing does not need JAX: ``NumpyAzulNet(params)`` runs the same forward pass with numpy on one
board in ~20-60 us (a jitted Flax call costs more in dispatch alone). Illegal actions are masked
before the softmax in both (``masked_log_softmax``), so the policy puts exactly zero mass on them.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

import Azul_Simulator as az

from . import features

N_ACTIONS = az.ACTION_DIM
MASK = slice(features.MASK_BLOCK, features.MASK_BLOCK + az.ACTION_DIM)  # legal flags inside x
NEG_INF = -1e9


def _flax():
    import flax.linen as nn  # imported lazily: playing with NumpyAzulNet never needs JAX
    return nn


def take_identity() -> np.ndarray:
    """(180, 17) float32: one-hot source (6), colour (5) and destination (6) of each take."""
    out = np.zeros((az.N_TAKES, 17), np.float32)
    for a in range(az.N_TAKES):
        source, rest = divmod(a, 30)
        colour, destination = divmod(rest, 6)
        out[a, source] = out[a, 6 + colour] = out[a, 11 + destination] = 1.0
    return out


TAKE_IDENTITY = take_identity()
TAKE_CONTEXT = 32


def make_module(hidden: Sequence[int], take_mlp: int = 0):
    """The Flax linen module ``AzulNet`` with the given hidden widths.

    ``take_mlp > 0`` adds a per-take scorer shared by the 180 takes: for take a, the input
    ``[per-take features (6), a context vector (Dense(32) of the last hidden layer), take identity
    (17)]`` goes through ``Dense(take_mlp)``-ReLU-``Dense(1)`` and is added to take a's logit
    (layers ``take_context``, ``take_hidden``, ``take_out``).

    Call: ``module.apply({'params': p}, x)`` with x of shape (..., FEATURE_DIM) ->
    ``(logits (..., 181), value (...,))``; logits are raw (mask them with the legal moves).
    """
    nn = _flax()
    widths = tuple(int(w) for w in hidden)
    mlp_width = int(take_mlp)

    class AzulNet(nn.Module):
        hidden: tuple = widths
        take_mlp: int = mlp_width

        @nn.compact
        def __call__(self, x):
            import jax.numpy as jnp
            per_take = x[..., features.ACTION_BLOCK:].reshape(x.shape[:-1] + (az.N_TAKES, features.ACTION_FEATURES))
            skip = nn.Dense(1, name="action_head")(per_take)[..., 0]  # shared over the 180 takes
            skip = jnp.concatenate([skip, jnp.zeros(x.shape[:-1] + (1,), skip.dtype)], axis=-1)
            h = x
            for i, width in enumerate(self.hidden):
                h = nn.relu(nn.Dense(width, name=f"hidden_{i}")(h))
            if self.take_mlp:
                ctx = nn.Dense(TAKE_CONTEXT, name="take_context")(h)
                batch = x.shape[:-1]
                ctx = jnp.broadcast_to(ctx[..., None, :], batch + (az.N_TAKES, TAKE_CONTEXT))
                ident = jnp.broadcast_to(jnp.asarray(TAKE_IDENTITY), batch + TAKE_IDENTITY.shape)
                z = jnp.concatenate([per_take, ctx, ident], axis=-1)
                z = nn.relu(nn.Dense(self.take_mlp, name="take_hidden")(z))
                z = nn.Dense(1, name="take_out")(z)[..., 0]
                skip = skip + jnp.concatenate([z, jnp.zeros(batch + (1,), z.dtype)], axis=-1)
            logits = nn.Dense(N_ACTIONS, name="policy_head")(h) + skip
            value = nn.tanh(nn.Dense(1, name="value_head")(h))[..., 0]
            return logits, value

    return AzulNet()


def init_params(hidden: Sequence[int], seed: int = 0, take_mlp: int = 0):
    """Fresh parameters (the ``'params'`` collection, a dict of dicts of jax arrays)."""
    import jax
    import jax.numpy as jnp
    module = make_module(hidden, take_mlp)
    return module.init(jax.random.PRNGKey(seed), jnp.zeros((1, features.FEATURE_DIM)))["params"]


def param_count(params: Mapping) -> int:
    """Number of scalars in a parameter tree."""
    total = 0
    for value in params.values():
        total += param_count(value) if isinstance(value, Mapping) else int(np.size(value))
    return total


def expected_param_count(hidden: Sequence[int], take_mlp: int = 0) -> int:
    """Parameter count of ``AzulNet(hidden, take_mlp)`` computed by hand (for tests and cards)."""
    widths = [features.FEATURE_DIM, *hidden]
    total = sum((a + 1) * b for a, b in zip(widths[:-1], widths[1:]))
    total += (widths[-1] + 1) * N_ACTIONS + (widths[-1] + 1) + features.ACTION_FEATURES + 1
    if take_mlp:
        take_in = features.ACTION_FEATURES + TAKE_CONTEXT + TAKE_IDENTITY.shape[1]
        total += (widths[-1] + 1) * TAKE_CONTEXT + (take_in + 1) * take_mlp + take_mlp + 1
    return total


def masked_log_softmax(logits, mask, xp=np):
    """log-softmax over the legal actions only; ``mask`` (..., 181) bool/0-1. Illegal -> ~-1e9."""
    logits = xp.where(mask > 0, logits, NEG_INF)
    top = logits.max(axis=-1, keepdims=True)
    z = logits - top
    return z - xp.log(xp.exp(z).sum(axis=-1, keepdims=True))


class NumpyAzulNet:
    """Numpy forward pass of trained ``AzulNet`` parameters (float32).

    ``net(board)`` -> ``(prior (181,) float64 summing to 1 over the legal moves, value float)``;
    ``net.logits(board)`` -> masked logits; ``net.policy_action(board)`` -> argmax legal action.
    ``net.forward(x)`` takes features of shape (n, FEATURE_DIM) and returns (logits, value).
    """

    def __init__(self, params: Mapping):
        names = sorted((n for n in params if n.startswith("hidden_")), key=lambda n: int(n.split("_")[1]))
        self.hidden = [self._dense(params[n]) for n in names]
        pk, pb = self._dense(params["policy_head"])
        vk, vb = self._dense(params["value_head"])
        ak, ab = self._dense(params["action_head"])
        self.action_kernel, self.action_bias = ak[:, 0], ab[0]
        # policy and value heads in one matmul
        self.head_kernel = np.concatenate([pk, vk], axis=1)
        self.head_bias = np.concatenate([pb, vb])
        self.widths = tuple(k.shape[1] for k, _ in self.hidden)
        self.take = None
        if "take_hidden" in params:
            ck, cb = self._dense(params["take_context"])
            hk, hb = self._dense(params["take_hidden"])
            ok, ob = self._dense(params["take_out"])
            nf = features.ACTION_FEATURES
            # split take_hidden's kernel by input block; the identity part is a constant per take
            ident = TAKE_IDENTITY @ hk[nf + TAKE_CONTEXT:] + hb  # (180, width)
            self.take = (ck, cb, hk[:nf], hk[nf:nf + TAKE_CONTEXT], ident, ok[:, 0], ob[0])

    @staticmethod
    def _dense(layer):
        return (np.ascontiguousarray(np.asarray(layer["kernel"], np.float32)),
                np.asarray(layer["bias"], np.float32))

    def forward(self, x: np.ndarray):
        per_take = x[..., features.ACTION_BLOCK:].reshape(x.shape[:-1] + (az.N_TAKES, features.ACTION_FEATURES))
        skip = per_take @ self.action_kernel + self.action_bias
        h = x
        for kernel, bias in self.hidden:
            h = h @ kernel + bias
            np.maximum(h, 0.0, out=h)
        if self.take is not None:
            ck, cb, hk_f, hk_c, ident, ok, ob = self.take
            ctx = h @ ck + cb  # (..., 32)
            z = per_take @ hk_f + (ctx @ hk_c)[..., None, :] + ident
            np.maximum(z, 0.0, out=z)
            skip = skip + z @ ok + ob
        out = h @ self.head_kernel + self.head_bias
        logits = out[..., :N_ACTIONS].copy()
        logits[..., :az.N_TAKES] += skip
        return logits, np.tanh(out[..., N_ACTIONS])

    def logits(self, board: np.ndarray) -> np.ndarray:
        x = features.encode(board)
        logits, _ = self.forward(x)
        return np.where(x[MASK] > 0, logits, NEG_INF)

    def __call__(self, board: np.ndarray):
        x = features.encode(board)
        logits, value = self.forward(x)
        legal = x[MASK] > 0
        z = np.where(legal, logits.astype(np.float64), -np.inf)
        z = np.exp(z - z.max())
        return z / z.sum(), float(value)

    def policy_action(self, board: np.ndarray) -> int:
        return int(np.argmax(self.logits(board)))
