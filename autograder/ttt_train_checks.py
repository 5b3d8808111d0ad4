"""Hidden tests of part 2 (training and matches): probe, then judge (see ``ttt_checks``).

``train_step`` is probed with plain SGD in the TrainState (an update linear in the gradient,
so tiny rounding differences between correct implementations stay tiny), on several
batches in a row. ``match_average`` is probed with deterministic agents that play the
first free square of a fixed preference order, and by counting who opened each game.
"""
import numpy as np

from . import ttt_cases
from ._report import error_of, failure, quiet, short
from .ttt_checks import _is_int_like, _provided

LOSS_RTOL, PARAM_ATOL = 1e-4, 1e-5
PREFERENCE_ORDERS = ([0, 1, 2, 3, 4, 5, 6, 7, 8], [4, 0, 2, 6, 8, 1, 3, 5, 7], [8, 7, 6, 5, 4, 3, 2, 1, 0],
                     [1, 3, 5, 7, 0, 2, 6, 8, 4], [4, 8, 0, 6, 2, 7, 1, 5, 3])


def _reference() -> dict:
    """The reference namespace of part 2 (imported lazily: probes never need it)."""
    from . import reference
    return reference.ttt2()


def _unwrap(fn):
    """The Python function behind a jax.jit wrapper (for its globals)."""
    return getattr(fn, "__wrapped__", fn)


# ---------------------------------------------------------------- train_step

def cases_train_step(count: int = 3, steps: int = 3) -> list[dict]:
    """Initial parameters (numpy) and `steps` random batches for each case."""
    import jax

    # Shapes from the reference network without compiling anything; values drawn here.
    shapes = jax.eval_shape(_reference()["init_params"], jax.random.PRNGKey(0))
    boards = ttt_cases.open_positions()
    rng = np.random.default_rng(ttt_cases.SEED + 10)
    cases = []
    for i in range(count):
        params = jax.tree_util.tree_map(
            lambda leaf: rng.normal(0, 1 / np.sqrt(leaf.shape[0]), leaf.shape).astype(np.float32), shapes)
        batches = []
        for _ in range(steps):
            size = 24  # one shape: jit compiles once
            picks = rng.choice(len(boards), size)
            pis = rng.dirichlet(np.ones(9) * 0.5, size).astype(np.float32)
            zs = (rng.choice([-1.0, 0.0, 1.0], size) if i % 2 == 0 else rng.uniform(-1, 1, size)).astype(np.float32)
            batches.append((np.array([boards[j] for j in picks], np.float32), pis, zs))
        cases.append({"params": params, "learning_rate": 0.1, "batches": batches})
    return cases


def probe_train_step(fn, cases: list) -> list:
    """Loss after each call and the final parameters (flattened list), or the problem found."""
    import jax
    import jax.numpy as jnp
    import optax
    from flax.training import train_state

    network = _provided(_unwrap(fn), "PolicyValueNet")
    outputs = []
    for case in cases:
        state = train_state.TrainState.create(
            apply_fn=network().apply, params=jax.tree_util.tree_map(jnp.asarray, case["params"]),
            tx=optax.sgd(case["learning_rate"]))
        losses = []
        try:
            for boards, pis, zs in case["batches"]:
                result = fn(state, boards, pis, zs)
                if not (isinstance(result, tuple) and len(result) == 2 and hasattr(result[0], "params")):
                    raise TypeError(f"expected (new_state, loss), got {short(result)}")
                state, loss = result
                if np.ndim(loss) != 0:
                    raise TypeError(f"loss must be a scalar, got shape {np.shape(loss)}")
                losses.append(float(loss))
        except Exception as exc:
            outputs.append(f"raises {error_of(exc)}")
            continue
        leaves = jax.tree_util.tree_leaves(state.params)
        outputs.append({"losses": losses, "step": int(state.step),
                        "params": np.concatenate([np.ravel(leaf) for leaf in leaves]).tolist()})
    return outputs


def judge_train_step(cases: list, outputs: list) -> None:
    expected = probe_train_step(_reference()["train_step"], cases)
    bad = []
    for i, (want, got) in enumerate(zip(expected, outputs)):
        if isinstance(got, str) or isinstance(want, str):
            problem = None if got == want else f"expected a new state and a loss, but it {got}"
        elif got["step"] != want["step"]:
            problem = f"the optimiser step counter is {got['step']} after {want['step']} calls: apply the gradients once per call"
        elif not np.allclose(got["losses"], want["losses"], rtol=LOSS_RTOL, atol=1e-6):
            problem = (f"losses over {len(want['losses'])} consecutive calls: expected "
                       f"{np.round(want['losses'], 5).tolist()}, got {np.round(got['losses'], 5).tolist()}")
        else:
            diff = np.abs(np.asarray(got["params"]) - np.asarray(want["params"]))
            problem = None if diff.max() <= PARAM_ATOL else (
                f"the losses match but the updated parameters differ (largest difference {diff.max():.2e}): "
                "take the gradient of the same loss you return, with respect to the parameters")
        if problem:
            bad.append((i, problem))
    if bad:
        i, problem = bad[0]
        sizes = [len(batch[2]) for batch in cases[i]["batches"]]
        raise failure("train_step", len(bad), len(cases),
                      f"  a PolicyValueNet trained with plain SGD (learning rate {cases[i]['learning_rate']}) "
                      f"on batches of sizes {sizes}:\n  {problem}")


def check_train_step(fn) -> None:
    cases = cases_train_step()
    with quiet():
        outputs = probe_train_step(fn, cases)
    judge_train_step(cases, outputs)


# ---------------------------------------------------------------- match_average

def cases_match_average() -> list[dict]:
    """Every ordered pair of preference agents, with a few game counts."""
    cases = []
    for i, first in enumerate(PREFERENCE_ORDERS):
        for j, second in enumerate(PREFERENCE_ORDERS):
            cases.append({"order1": first, "order2": second, "num_games": (2, 6, 10)[(i + j) % 3]})
    return cases


def _preference_agent(order, openings: list):
    """Agent playing the first free square of `order`; appends to `openings` when it opens a game."""
    def agent(board):
        if not np.any(board):
            openings.append(1)
        return next(square for square in order if board[square] == 0)
    return agent


def probe_match_average(fn, cases: list) -> list:
    """The (win, loss, draw) returned and how many games each agent opened."""
    outputs = []
    for case in cases:
        opened1, opened2 = [], []
        agent1, agent2 = _preference_agent(case["order1"], opened1), _preference_agent(case["order2"], opened2)
        try:
            result = fn(agent1, agent2, case["num_games"])
            values = [float(v) for v in result] if len(result) == 3 else None
        except Exception as exc:
            outputs.append(f"raises {error_of(exc)}")
            continue
        outputs.append({"percentages": values if values else short(result),
                        "games_opened_by_agent1": len(opened1), "games_opened_by_agent2": len(opened2)})
    return outputs


def judge_match_average(cases: list, outputs: list) -> None:
    expected = probe_match_average(_reference()["match_average"], cases)

    def same(want, got):
        if isinstance(want, str) or isinstance(got, str) or not isinstance(got["percentages"], list):
            return want == got
        return (np.allclose(want["percentages"], got["percentages"], atol=1e-9)
                and all(want[k] == got[k] for k in want if k != "percentages"))

    bad = [i for i, (want, got) in enumerate(zip(expected, outputs)) if not same(want, got)]
    if bad:
        i = bad[0]
        case = cases[i]
        raise failure("match_average", len(bad), len(cases),
                      f"  agent1 plays the first free square in the order {case['order1']},\n"
                      f"  agent2 in the order {case['order2']}, num_games = {case['num_games']}\n"
                      f"  expected: {short(expected[i])}\n  got:      {short(outputs[i])}\n"
                      "  (percentages are (win, loss, draw) of agent1; each agent opens half of the games)")


def check_match_average(fn) -> None:
    cases = cases_match_average()
    with quiet():
        outputs = probe_match_average(fn, cases)
    judge_match_average(cases, outputs)
