"""The pattern tables as a JAX model, for training by the trainer's one loss and optax steps (``learn``).

``make_model(spec).apply({"params": params}, x)`` has the signature of a Flax module's: ``x`` is the dict
of int32 gathers that ``kernels.features`` computes from a minibatch's encodings (leading shape ``(B,)``),
and the outputs are those of ``patterns`` (``logits`` float32 ``(B, A)``, ``NEG`` on illegal actions,
``value`` float32 ``(B,)``), so the value MSE and the policy cross-entropy reach every table entry a
position or one of its children reads: the policy target trains the tables through the children's values,
as well as the prior bias and scale.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .patterns import NEG, NTupleSpec


class NTupleModel:
    """``apply(variables, x) -> (logits, value)`` of a pattern-table network (see the module docstring)."""

    def __init__(self, spec: NTupleSpec):
        self.spec = spec
        self.square_class = jnp.asarray(np.append(spec.geometry.square_class, 0), jnp.int32)  # A: a padding child

    def apply(self, variables, x):
        """``x``: ``kernels.features``' dict, leading shape ``(B,)`` -> ``(logits float32 (B, A), value float32 (B,))``."""
        params, actions = variables["params"], self.spec.actions
        table, bias = params["tables"]["kernel"].reshape(-1), params["tables"]["bias"]
        scale, prior = params["prior"]["scale"], params["prior"]["kernel"]
        value = jnp.tanh(jnp.take(table, x["index"]).sum(-1) + bias[x["phase"]])
        child = jnp.tanh(jnp.take(table, x["child_index"]).sum(-1) + bias[x["child_phase"]][:, None])  # (B, M)
        phase = x["phase"][:, None]
        logit = -scale[x["phase"]][:, None] * child + prior[phase, self.square_class[x["child_action"]]]
        rows = jnp.arange(logit.shape[0])[:, None]
        logits = jnp.full((logit.shape[0], actions + 1), NEG, logit.dtype).at[rows, x["child_action"]].set(logit)
        passing = (x["child_action"] >= actions).all(axis=-1)  # no placing move: the pass is the only legal action
        logits = logits[:, :actions].at[:, actions - 1].set(jnp.where(passing, 0.0, NEG))
        return logits, value


def make_model(spec: NTupleSpec) -> NTupleModel:
    return NTupleModel(spec)

