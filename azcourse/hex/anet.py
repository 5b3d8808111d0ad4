"""The actor network (ANET) for Hex: a Flax MLP for training, a numpy copy for rollouts and play.

Input: ``Hex.encode(state)``, float32 ``(2 + 2 n^2,)``: two bits for the player to move, then two
bits per cell row by row ((0, 0) empty, (1, 0) player 1, (0, 1) player 2).
Output: a softmax over the ``n^2`` cells, renormalised over the legal (empty) ones: occupied cells
get exactly 0. The legal cells are read off the input itself, so ``policy(params, x)`` needs
nothing else.

Layers: ``Dense`` hidden layers ``hidden_0``, ``hidden_1``, ... with the chosen activation
(sigmoid, tanh, relu or linear), then ``output`` (``n^2`` logits). Parameters are the
``'params'`` collection, float32 ``kernel`` ``(in, out)`` and ``bias`` ``(out,)``.

A jitted JAX call per rollout step costs more in dispatch than the whole forward pass, so
rollouts use ``NumpyANET``: the same forward pass in numpy on one state (tests check both agree).
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from .config import ACTIVATIONS, HexConfig

NEG_INF = -1e9


def legal_from_encoding(x):
    """Legal-cell mask of encoded states: ``x`` ``(..., 2 + 2 n^2)`` -> bool ``(..., n^2)``
    (works on numpy and JAX arrays)."""
    return (x[..., 2::2] + x[..., 3::2]) == 0


def _activation(name: str):
    import jax.numpy as jnp
    import flax.linen as nn

    return {"sigmoid": nn.sigmoid, "tanh": jnp.tanh, "relu": nn.relu, "linear": lambda h: h}[name]


def make_module(cells: int, hidden: Sequence[int], activation: str):
    """The Flax linen MLP: ``module.apply({'params': p}, x)`` with ``x`` ``(..., 2 + 2 cells)`` ->
    raw logits ``(..., cells)`` (mask them with ``masked_log_policy``)."""
    import flax.linen as nn

    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    act = _activation(activation)
    widths = tuple(int(w) for w in hidden)

    class ANET(nn.Module):
        @nn.compact
        def __call__(self, x):
            h = x
            for i, width in enumerate(widths):
                h = act(nn.Dense(width, name=f"hidden_{i}")(h))
            return nn.Dense(cells, name="output")(h)

    return ANET()


def module_for(config: HexConfig):
    return make_module(config.board_size ** 2, config.hidden_layers, config.activation)


def init_params(config: HexConfig) -> dict:
    """Random initial parameters (Flax's default initialisers, key ``PRNGKey(config.seed)``)."""
    import jax

    n = config.board_size
    x = np.zeros((1, 2 + 2 * n * n), np.float32)
    return module_for(config).init(jax.random.PRNGKey(config.seed), x)["params"]


def masked_log_policy(logits, x):
    """Log-probabilities ``(..., cells)`` of the softmax renormalised over the legal cells of
    ``x``; illegal cells get about -1e9 (probability 0)."""
    import jax

    return jax.nn.log_softmax(jax.numpy.where(legal_from_encoding(x), logits, NEG_INF), axis=-1)


def masked_cross_entropy(logits, x, target):
    """Mean over the batch of ``-sum_a target(a) log pi(a | x)`` with ``pi`` the softmax of ``logits``
    renormalised over the empty cells of ``x`` (a JAX scalar). ``logits`` float32 ``(B, cells)``,
    ``x`` float32 ``(B, 2 + 2 cells)`` (``Hex.encode``), ``target`` float32 ``(B, cells)``."""
    import jax.numpy as jnp

    legal = legal_from_encoding(x)
    return -jnp.mean(jnp.sum(jnp.where(legal, target * masked_log_policy(logits, x), 0.0), axis=-1))


def policy(module, params, x):
    """ANET's move distribution: float32 ``(..., cells)``, summing to 1 over the legal cells of
    ``x`` ``(..., 2 + 2 cells)`` and exactly 0 on the occupied ones."""
    import jax.numpy as jnp

    return jnp.exp(masked_log_policy(module.apply({"params": params}, x), x))


def make_optimizer(name: str, learning_rate: float):
    """The optax optimizer ``name`` (adagrad, sgd, rmsprop or adam) at ``learning_rate``."""
    import optax

    makers = {"adagrad": optax.adagrad, "sgd": optax.sgd, "rmsprop": optax.rmsprop, "adam": optax.adam}
    if name not in makers:
        raise ValueError(f"optimizer must be one of {', '.join(makers)}, got {name!r}")
    return makers[name](learning_rate)


def make_train_step(module, optimizer):
    """A jitted ``step(params, opt_state, x, target) -> (params, opt_state, loss)``: one gradient
    step on the mean cross-entropy ``-sum_a D(a) log pi(a)`` of a minibatch, ``x`` float32
    ``(B, 2 + 2 cells)``, ``target`` float32 ``(B, cells)`` (visit distributions, 0 on illegal
    cells)."""
    import jax
    import optax

    def loss_fn(params, x, target):
        return cross_entropy(module, params, x, target)

    @jax.jit
    def step(params, opt_state, x, target):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, target)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    return step


def cross_entropy(module, params, x, target):
    """Mean over the batch of ``-sum_a target(a) log pi(a | x)`` (a JAX scalar)."""
    import jax.numpy as jnp

    log_pi = masked_log_policy(module.apply({"params": params}, x), x)
    return -jnp.mean(jnp.sum(jnp.where(target > 0, target * log_pi, 0.0), axis=-1))


_NUMPY_ACTIVATIONS = {
    "sigmoid": lambda h: 1.0 / (1.0 + np.exp(-h)),
    "tanh": np.tanh,
    "relu": lambda h: np.maximum(h, 0.0),
    "linear": lambda h: h,
}


class NumpyANET:
    """ANET's forward pass in numpy, for rollouts, tournaments and play (no JAX needed).

    Args:
        params: the ``'params'`` collection (``hidden_i`` and ``output`` with ``kernel``/``bias``),
            JAX or numpy arrays; copied to float32 numpy once.
        activation: the hidden layers' activation.
    """

    def __init__(self, params: Mapping, activation: str):
        if activation not in _NUMPY_ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        hidden = sorted((k for k in params if k.startswith("hidden_")), key=lambda k: int(k.split("_")[1]))
        self.layers = [(np.asarray(params[k]["kernel"], np.float32), np.asarray(params[k]["bias"], np.float32))
                       for k in [*hidden, "output"]]
        self.activation = activation
        self._act = _NUMPY_ACTIVATIONS[activation]

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Raw logits float32 ``(..., cells)`` of encoded states ``x`` ``(..., 2 + 2 cells)``."""
        h = x
        for kernel, bias in self.layers[:-1]:
            h = self._act(h @ kernel + bias)
        kernel, bias = self.layers[-1]
        return h @ kernel + bias

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """The masked, renormalised softmax float64 ``(..., cells)`` (0 on occupied cells)."""
        z = np.where(legal_from_encoding(x), self.logits(x).astype(np.float64), -np.inf)
        z = np.exp(z - z.max(axis=-1, keepdims=True))
        return z / z.sum(axis=-1, keepdims=True)

    def rollout_policy(self, game, epsilon: float):
        """The epsilon-greedy default policy of on-policy MCTS, ``policy(game, state, rng) -> action``
        (``azcourse.core.evaluators.EpsilonGreedyPolicy``). Its greedy move is the legal cell with
        the largest logit: the same move as the largest renormalised probability, without the
        softmax (one rollout step is then one ``encode`` and one forward pass)."""
        from azcourse.core.evaluators import EpsilonGreedyPolicy

        def scores(state):
            return self.logits(game.encode(state))
        return EpsilonGreedyPolicy(scores, epsilon)

    def state_policy(self, game):
        """``policy(state) -> (n^2,)`` probabilities for the states of ``game`` (a ``Hex``): the
        form the game layer's agents and ``EpsilonGreedyPolicy`` take."""
        def distribution(state):
            return self.probabilities(game.encode(state))
        return distribution
