"""The AlphaZero loss and its optax training steps.

For a minibatch of positions ``x`` float32 ``(B, *encoding_shape)`` with search policies ``pi``
float32 ``(B, A)`` (visit distributions, 0 on illegal actions) and game results ``z`` float32
``(B,)`` (+1 win, -1 loss, 0 draw for the player to move at the position), the loss is

    value_weight * mean((v - z)^2)  +  mean(-sum_a pi(a) log p(a))  +  weight_decay * sum(kernel^2)

with ``(logits, v)`` the network's outputs and ``p = softmax(logits)`` over the whole action space.
With policy weights ``w`` float32 ``(B,)`` (0 for a cheap search's position, which has no policy
target; see ``selfplay``) the policy term is the mean over the positions that have one,
``sum_i w_i (-sum_a pi_i(a) log p_i(a)) / max(sum_i w_i, 1)``, while the value term keeps every
position; without ``w`` the loss is the one above, computed exactly as before the weights existed.
The three terms are returned apart (``TERMS``) so that each can be logged; the L2 term covers the
kernels of every layer, not the biases. The network is the Flax MLP (``flax_net``) or, for an
``ntuple.NTupleSpec``, the pattern tables' JAX model (``ntuple.model``: ``x`` is then the dict of gathers
``ntuple.kernels.features`` computes, with the same leading shapes); ``model_for`` and ``initial_params``
choose by the shape.
"""
from __future__ import annotations

import functools
from typing import Callable

from .flax_net import init_params, make_module
from .network import NetSpec
from .ntuple.patterns import NTupleSpec

TERMS = ("value_loss", "policy_loss", "l2")


def model_for(spec: NetSpec | NTupleSpec):
    """What the loss applies: ``flax_net.make_module(spec)``, or the pattern tables' ``ntuple.model``."""
    if isinstance(spec, NTupleSpec):
        from .ntuple.model import make_model

        return make_model(spec)
    return make_module(spec)


def initial_params(spec: NetSpec | NTupleSpec, seed: int) -> dict:
    """A run's first parameters: ``flax_net.init_params(spec, seed)``, or the pattern tables' (zero tables,
    ``ntuple.init_params``; no randomness) as JAX arrays."""
    if isinstance(spec, NTupleSpec):
        import jax

        from .ntuple.patterns import init_params as tables

        return jax.tree_util.tree_map(jax.numpy.asarray, tables(spec))
    return init_params(spec, seed)


def make_optimizer(name: str, learning_rate: float):
    """``optax.adam(learning_rate)`` or ``optax.sgd(learning_rate, momentum=0.9)``."""
    import optax

    if name == "adam":
        return optax.adam(learning_rate)
    if name == "sgd":
        return optax.sgd(learning_rate, momentum=0.9)
    raise ValueError(f"optimizer must be adam or sgd, got {name!r}")


def make_loss(module, value_weight: float, weight_decay: float) -> Callable:
    """``loss(params, x, pi, z, w=None) -> (total, terms)``: a JAX scalar and float32 ``(3,)`` in the
    order of ``TERMS`` (value MSE, policy cross-entropy, weighted L2); ``w``: the policy weights."""
    import jax
    import jax.numpy as jnp

    def loss(params, x, pi, z, w=None):
        logits, v = module.apply({"params": params}, x)
        value = jnp.mean((v - z) ** 2)
        log_likelihood = jnp.sum(pi * jax.nn.log_softmax(logits, axis=-1), axis=-1)
        if w is None:
            policy = -jnp.mean(log_likelihood)
        else:
            policy = -jnp.sum(w * log_likelihood) / jnp.maximum(jnp.sum(w), 1.0)
        l2 = weight_decay * sum(jnp.sum(layer["kernel"] ** 2) for layer in params.values())
        return value_weight * value + policy + l2, jnp.stack([value, policy, l2])
    return loss


def make_train_steps(loss: Callable, optimizer) -> Callable:
    """A jitted ``steps(params, opt_state, xs, pis, zs, ws=None, scale=1.0) -> (params, opt_state, terms)``:
    one optimizer step per minibatch, ``xs`` ``(S, B, *encoding_shape)``, ``pis`` ``(S, B, A)``, ``zs``
    and the policy weights ``ws`` ``(S, B)`` (a ``lax.scan`` over the S minibatches: one call, one
    compilation per shape); ``terms`` float32 ``(S, 3)``: each step's loss terms before its update.
    Each update is multiplied by ``scale``, a float (an annealed run's learning rate over the
    optimizer's own: for Adam and SGD with momentum, the step that learning rate takes)."""
    import jax
    import optax

    grad = jax.value_and_grad(loss, has_aux=True)

    def steps_scaled(params, opt_state, xs, pis, zs, ws, scale):
        def one(carry, batch):
            params, opt_state = carry
            (_, terms), grads = grad(params, *batch)
            updates, opt_state = optimizer.update(grads, opt_state, params)
            updates = jax.tree_util.tree_map(lambda u: u * scale, updates)
            return (optax.apply_updates(params, updates), opt_state), terms

        (params, opt_state), terms = jax.lax.scan(one, (params, opt_state), (xs, pis, zs, ws))
        return params, opt_state, terms

    jitted = jax.jit(steps_scaled)

    def steps(params, opt_state, xs, pis, zs, ws=None, scale=1.0):
        return jitted(params, opt_state, xs, pis, zs, ws, scale)
    return steps


@functools.lru_cache(maxsize=8)
def training_for(spec: NetSpec | NTupleSpec, optimizer: str, learning_rate: float, value_weight: float,
                 weight_decay: float) -> tuple:
    """``(optimizer, steps)`` for a network shape and these settings, built once per process, so
    that a run continued (or repeated) in the same process reuses the compiled program."""
    tx = make_optimizer(optimizer, learning_rate)
    return tx, make_train_steps(make_loss(model_for(spec), value_weight, weight_decay), tx)
