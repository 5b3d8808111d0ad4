"""Probes of part 4 (Hex); all the sandbox receives of part 4's hidden tests.

Same shape as ``ttt1_mcts/probes.py``: ``probe_<name>(fn, cases)`` runs student code on plain-data cases and
returns plain data. Judges: ``hex4_onpolicy/checks.py``.

Each function is graded on its own: while ``rollout`` and ``topp`` run, the notebook's ``winner`` is
replaced by the course pack's public engine (``azcourse.hex.game.board_winner``), and while
``train_step`` runs, its ``policy_loss`` by the ANET's public loss (``azcourse.hex.anet.masked_cross_entropy``),
so a slip in one answer never costs the points of another. Nothing here is a reference the student
does not already have: the kernel receives the harness and the case inputs only. The default
policies and agents are deterministic (a fixed preference order of cells), so the judges can
compare every call.
"""

import numpy as np

from azcourse.hex.anet import masked_cross_entropy
from azcourse.hex.game import board_winner

from ..._probe_util import error_of, probe_each, replaced, short, train_calls


def _int_or_text(result):
    if isinstance(result, (int, np.integer)) and not isinstance(result, (bool, np.bool_)):
        return int(result)
    return f"returned {short(result)}"


def probe_winner(fn, cases: list) -> list:
    """{"result": the int returned or what came back instead, "changed": whether the board was changed}."""
    outputs = []
    for board in cases:
        given = board.copy()
        try:
            result = _int_or_text(fn(given))
        except Exception as exc:  # the student's error is data for the judge
            result = f"raises {error_of(exc)}"
        outputs.append({"result": result, "changed": bool(not np.array_equal(given, board))})
    return outputs


def probe_tree_policy(fn, cases: list) -> list:
    def run_one(case):
        return _int_or_text(fn(int(case["parent_visits"]), case["N"].copy(), case["Q"].copy(), int(case["player"]),
                               float(case["c"])))
    return probe_each(cases, run_one)


def ordered_policy(order, calls: list):
    """Default policy: the first empty cell of `order`; notes (player, stones on the board) at each call."""
    def policy(board, player):
        flat = np.asarray(board).ravel()
        calls.append((int(player), int(np.count_nonzero(flat))))
        if len(calls) > 100:
            raise RuntimeError("the policy was asked for more than 100 moves")
        return next(cell for cell in order if flat[cell] == 0)
    return policy


def probe_rollout(fn, cases: list) -> list:
    """{"result", "players": the player passed at each policy call, "stones": stones on the board then,
    "changed": whether the given board was changed}."""
    outputs = []
    with replaced(fn, winner=board_winner):
        for case in cases:
            calls, given = [], case["board"].copy()
            try:
                result = _int_or_text(fn(given, int(case["player"]), ordered_policy(case["order"], calls)))
            except Exception as exc:
                result = f"raises {error_of(exc)}"
            outputs.append({"result": result, "players": [p for p, _ in calls], "stones": [s for _, s in calls],
                            "changed": bool(not np.array_equal(given, case["board"]))})
    return outputs


def probe_legal_distribution(fn, cases: list) -> list:
    """{"probs": the distribution returned (list of n^2 floats) or what came back, "changed": probs changed}."""
    outputs = []
    for case in cases:
        probs, cells = case["probs"].copy(), case["board"].size
        try:
            returned = np.asarray(fn(probs, case["board"].copy()))
            result = returned.astype(np.float64)
            value = (result.tolist() if result.shape == (cells,) and np.all(np.isfinite(result))
                     else f"an array of shape {result.shape}" + ("" if result.shape != (cells,) else " with nan or inf")
                     + f" (expected ({cells},), finite)")
            if returned.dtype != np.float64 and isinstance(value, list):
                value = f"an array of {returned.dtype} (expected float64, whatever the dtype of probs)"
        except Exception as exc:
            value = f"raises {error_of(exc)}"
        outputs.append({"probs": value, "changed": bool(not np.array_equal(probs, case["probs"]))})
    return outputs


def probe_policy_loss(fn, cases: list) -> list:
    """{"loss": the loss (float), "gradient_finite": whether its gradient w.r.t. the logits is finite, or the
    error jax.grad raised}; or a description of what came back instead of a loss."""
    import jax
    import jax.numpy as jnp

    # Loss and gradient in one compiled program per shape. Run op by op, a loss compiles each of its
    # primitives for each new shape (about 25 ms each; 200 of them, 5 s, for a loss written with
    # logsumexp), and only the reference's are in the JAX cache. A loss that cannot be traced (Python
    # control flow on values, boolean masks) runs op by op; anything else it refuses (a non-scalar or
    # non-float result, code that cannot be differentiated) is described by the separate calls below.
    compiled = jax.jit(jax.value_and_grad(fn))

    def run_one(case):
        x, target = jnp.asarray(case["x"]), jnp.asarray(case["target"])
        logits = jnp.asarray(case["logits"])
        try:
            loss, grad = compiled(logits, x, target)
        except Exception:
            try:
                loss, grad = jax.value_and_grad(fn)(logits, x, target)
            except Exception:
                loss, grad = fn(logits, x, target), None
            if np.ndim(loss) != 0:
                return f"returned an array of shape {np.shape(loss)} (expected a scalar)"
        loss = float(loss)
        if not np.isfinite(loss):
            return f"returned {loss}"
        if grad is None:
            try:
                grad = jax.grad(lambda z: fn(z, x, target))(logits)
            except Exception as exc:  # right value, but not differentiable (numpy or float() inside)
                return {"loss": loss, "gradient_finite": f"raises {error_of(exc)}"}
        return {"loss": loss, "gradient_finite": bool(np.all(np.isfinite(np.asarray(grad))))}
    return probe_each(cases, run_one)


def probe_train_step(fn, cases: list) -> list:
    """Losses of consecutive calls, the final step count and parameters (flattened), the generator's next
    draw (one buffer.sample per call), and whether the buffer changed; or the problem found."""
    import jax
    import jax.numpy as jnp
    import optax
    from flax.training import train_state

    from azcourse.hex.anet import make_module
    from azcourse.hex.replay import ReplayBuffer

    optimizers = {"sgd": optax.sgd, "adam": optax.adam, "rmsprop": optax.rmsprop, "adagrad": optax.adagrad}
    outputs = []
    with replaced(fn, policy_loss=masked_cross_entropy):
        for case in cases:
            module = make_module(case["cells"], case["hidden"], case["activation"])
            state = train_state.TrainState.create(apply_fn=module.apply, tx=optimizers[case["optimizer"]](case["learning_rate"]),
                                                  params=jax.tree_util.tree_map(jnp.asarray, case["params"]))
            buffer = ReplayBuffer.from_arrays(case["capacity"], {"x": case["x"], "target": case["target"],
                                                                 "added": case["added"]})
            rng = np.random.default_rng(case["seed"])
            try:
                calls = [(buffer, case["batch_size"], rng)] * case["steps"]
                state, losses, params = train_calls(fn, state, calls)
            except Exception as exc:
                outputs.append(f"raises {error_of(exc)}")
                continue
            same = (len(buffer) == len(case["x"]) and buffer.added == case["added"]
                    and np.array_equal(buffer.x[:len(buffer)], case["x"])
                    and np.array_equal(buffer.target[:len(buffer)], case["target"]))
            if not all(np.isfinite(losses)):
                outputs.append(f"returned the losses {losses}")
                continue
            outputs.append({"losses": losses, "step": int(state.step), "params": params,
                            "next_draw": float(rng.random()), "buffer_changed": not same})
    return outputs


def ordered_agent(order, name: int, openings: list):
    """TOPP agent playing the first empty cell of `order`; notes (its name, player) when it opens a game."""
    def agent(board, player):
        flat = np.asarray(board).ravel()
        if not flat.any():
            openings.append([name, int(player)])
        return next(cell for cell in order if flat[cell] == 0)
    return agent


def probe_topp(fn, cases: list) -> list:
    """{"wins": the K x K table returned, "openings": [agent, player] of each game's first move, in order}."""
    outputs = []
    with replaced(fn, winner=board_winner):
        for case in cases:
            openings = []
            agents = [ordered_agent(order, k, openings) for k, order in enumerate(case["orders"])]
            try:
                result = np.asarray(fn(agents, int(case["games"]), int(case["size"])))
                k = len(agents)
                wins = (result.astype(np.int64).tolist()
                        if result.shape == (k, k) and np.all(result == np.round(result))
                        else f"an array of shape {result.shape} (expected ({k}, {k}) whole numbers)")
            except Exception as exc:
                wins = f"raises {error_of(exc)}"
            outputs.append({"wins": wins, "openings": openings[:2000]})
    return outputs


PROBES = {"winner": probe_winner, "tree_policy": probe_tree_policy, "rollout": probe_rollout,
          "legal_distribution": probe_legal_distribution, "policy_loss": probe_policy_loss,
          "train_step": probe_train_step, "topp": probe_topp}
