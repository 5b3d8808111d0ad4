"""Probes of part 6 (Tak and AlphaZero); all the sandbox receives of part 6's hidden tests.

Same shape as ``hex4_onpolicy/probes.py``: ``probe_<name>(fn, cases)`` runs student code on plain-data
cases and returns plain data. Judges: ``tak6_alphazero/checks.py``.

Each function is graded on its own: while ``puct_select`` runs, the notebook's ``exploration_rate`` is
replaced by the pack's generic search's own (``azcourse.core.mcts.puct_exploration_rate``, the formula
the notebook states), so a slip in one answer never costs the points of another. The loss is run on the pack's own
Flax network (``azcourse.alphazero.flax_net``, which the notebook imports).
"""
import math

import numpy as np

from azcourse.core.mcts import puct_exploration_rate

from ..._probe_util import error_of, probe_each, replaced, short


def _number(value):
    """A float from a number-like result (a Python, numpy or 0-d JAX number), else a description."""
    if isinstance(value, (bool, np.bool_)):
        return f"returned {short(value)}"
    try:
        if np.ndim(value) == 0 and np.asarray(value).dtype.kind in "iuf":
            number = float(value)
            return number if math.isfinite(number) else f"returned {number}"
    except Exception:  # noqa: BLE001 (whatever it is, it is described)
        pass
    return f"returned {short(value)}"


def probe_stack_moves(fn, cases: list) -> list:
    """The moves returned, each as "direction:drop,drop,...", sorted (repeats kept); or what came back."""
    def run_one(case):
        board = tuple(tuple(int(c) for c in stack) for stack in case["board"])
        result = fn(board, int(case["square"]))
        if not isinstance(result, (list, tuple)):
            return f"returned {short(result)} (expected a list of (direction, drops) pairs)"
        moves = []
        for move in result:
            try:
                direction, drops = move
                moves.append(f"{int(direction)}:{','.join(str(int(k)) for k in drops)}")
            except Exception:  # noqa: BLE001
                return f"returned a list holding {short(move)} (expected (direction, drops) pairs)"
        return sorted(moves)[:2000]
    return probe_each(cases, run_one)


def probe_has_road(fn, cases: list) -> list:
    def run_one(case):
        board = tuple(tuple(int(c) for c in stack) for stack in case["board"])
        result = fn(board, int(case["colour"]))
        if isinstance(result, (bool, np.bool_)):
            return bool(result)
        return f"returned {short(result)} (expected True or False)"
    return probe_each(cases, run_one)


def probe_exploration_rate(fn, cases: list) -> list:
    return probe_each(cases, lambda case: _number(fn(int(case["visits"]), float(case["c_init"]), float(case["c_base"]))))


def probe_puct_select(fn, cases: list) -> list:
    """{"choice": the index returned or a description, "changed": whether an input array was changed}."""
    outputs = []
    with replaced(fn, exploration_rate=puct_exploration_rate):
        for case in cases:
            given = [case["counts"].copy(), case["totals"].copy(), case["prior"].copy()]
            try:
                result = fn(*given, int(case["visits"]), float(case["c_init"]), float(case["c_base"]),
                            float(case["unvisited_value"]))
                choice = (int(result) if isinstance(result, (int, np.integer)) and not isinstance(result, (bool, np.bool_))
                          else f"returned {short(result)}")
            except Exception as exc:  # the student's error is data for the judge
                choice = f"raises {error_of(exc)}"
            changed = not all(np.array_equal(a, case[k]) for a, k in zip(given, ("counts", "totals", "prior")))
            outputs.append({"choice": choice, "changed": bool(changed)})
    return outputs


def probe_add_dirichlet_noise(fn, cases: list) -> list:
    """{"prior": the array returned (list) or a description, "next_draw": the generator's next number after
    the call, "changed": whether prior or legal was changed}."""
    outputs = []
    for case in cases:
        prior, legal = case["prior"].copy(), case["legal"].copy()
        rng = np.random.default_rng(case["seed"])
        try:
            returned = fn(prior, legal, float(case["alpha"]), float(case["fraction"]), rng)
            array = np.asarray(returned)
            if array.shape != prior.shape or array.dtype.kind not in "f":
                value = f"returned an array of shape {array.shape} and dtype {array.dtype} (expected float64 {prior.shape})"
            elif array.dtype != np.float64:
                value = f"returned an array of {array.dtype} (expected float64)"
            elif not np.all(np.isfinite(array)):
                value = "returned an array with nan or inf"
            else:
                value = array.tolist()
        except Exception as exc:
            value = f"raises {error_of(exc)}"
        outputs.append({"prior": value, "next_draw": float(rng.random()),
                        "changed": bool(not (np.array_equal(prior, case["prior"]) and np.array_equal(legal, case["legal"])))})
    return outputs


def probe_alphazero_loss(fn, cases: list) -> list:
    """{"total", "terms": [value, policy, l2], "grad_norms": the gradient's norm per parameter array (sorted
    by layer, bias before kernel), "gradient_finite"}; or a description of what came back instead."""
    import jax
    import jax.numpy as jnp

    from azcourse.alphazero.flax_net import make_module
    from azcourse.alphazero.network import NetSpec

    def run_one(case):
        spec = NetSpec(tuple(case["encoding_shape"]), int(case["actions"]), (), tuple(case["hidden"]))
        module = make_module(spec)

        def apply_fn(params, x):
            return module.apply({"params": params}, x)

        params = jax.tree_util.tree_map(jnp.asarray, case["params"])
        args = [jnp.asarray(case[k]) for k in ("x", "pi", "z")] + [jnp.asarray(case["legal"], dtype=bool)]
        c = float(case["c"])
        try:
            (total, terms), grads = jax.value_and_grad(lambda p: fn(p, apply_fn, *args, c), has_aux=True)(params)
        except Exception:  # described by a plain call below
            result = fn(params, apply_fn, *args, c)
            if not (isinstance(result, tuple) and len(result) == 2):
                return f"returned {short(result)} (expected (total, terms))"
            if np.shape(result[1]) != (3,) or np.ndim(result[0]) != 0:
                return (f"returned a total of shape {np.shape(result[0])} and terms of shape {np.shape(result[1])} "
                        "(expected a scalar and (3,))")
            try:
                jax.grad(lambda p: fn(p, apply_fn, *args, c)[0])(params)
            except Exception as exc:
                return f"returns the loss, but jax.grad cannot differentiate it: {error_of(exc)}"
            raise
        if np.shape(terms) != (3,) or np.ndim(total) != 0:
            return f"returned a total of shape {np.shape(total)} and terms of shape {np.shape(terms)} (expected () and (3,))"
        values = [float(total)] + [float(t) for t in np.asarray(terms)]
        if not all(math.isfinite(v) for v in values):
            return f"returned the total {values[0]} and the terms {values[1:]}"
        leaves = [np.asarray(leaf, dtype=np.float64) for leaf in jax.tree_util.tree_leaves(grads)]
        finite = all(np.all(np.isfinite(leaf)) for leaf in leaves)
        return {"total": values[0], "terms": values[1:],
                "grad_norms": [float(np.sqrt(np.sum(np.where(np.isfinite(leaf), leaf, 0) ** 2))) for leaf in leaves],
                "gradient_finite": bool(finite)}
    return probe_each(cases, run_one)


def probe_win_rate_interval(fn, cases: list) -> list:
    def run_one(case):
        result = fn(int(case["wins"]), int(case["draws"]), int(case["losses"]), float(case["z"]))
        if not (isinstance(result, (tuple, list)) and len(result) == 3):
            return f"returned {short(result)} (expected a tuple (score, low, high))"
        values = [_number(v) for v in result]
        bad = [v for v in values if isinstance(v, str)]
        return bad[0] if bad else values
    return probe_each(cases, run_one)


PROBES = {"stack_moves": probe_stack_moves, "has_road": probe_has_road, "exploration_rate": probe_exploration_rate,
          "puct_select": probe_puct_select, "add_dirichlet_noise": probe_add_dirichlet_noise,
          "alphazero_loss": probe_alphazero_loss, "win_rate_interval": probe_win_rate_interval}
