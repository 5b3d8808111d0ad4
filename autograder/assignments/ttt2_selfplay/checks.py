"""Hidden tests of part 2 (training and matches): cases, data shapes and judges (see ``ttt1_mcts/checks.py``).

The probes are in ``ttt2_selfplay/probes.py``, the only part of these tests that enters the sandbox.
"""
import numpy as np

from ..ttt1_mcts import cases as ttt_cases
from ..._probe_util import short
from ..._report import failure
from ...probe_schema import REF, Either, Int, ListOf, Num, Record, Str, per_case
from ...probes import run_check
from .probes import PROBES

LOSS_RTOL, PARAM_ATOL = 1e-4, 1e-5
PREFERENCE_ORDERS = ([0, 1, 2, 3, 4, 5, 6, 7, 8], [4, 0, 2, 6, 8, 1, 3, 5, 7], [8, 7, 6, 5, 4, 3, 2, 1, 0],
                     [1, 3, 5, 7, 0, 2, 6, 8, 4], [4, 8, 0, 6, 2, 7, 1, 5, 3])
REFERENCE = ("ttt2_selfplay", "ttt2_selfplay")  # (assignment, notebook) of the reference solution


def _reference() -> dict:
    from ... import reference
    return reference.ttt2()


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


def _loss_terms(case: dict) -> tuple[float, float]:
    """(policy term, value term) of the AlphaZero loss on the case's first batch at its initial
    parameters: the mean cross-entropy and the mean squared value error, from the reference network."""
    import jax.numpy as jnp
    import optax

    boards, pis, zs = case["batches"][0]
    logits, values = _reference()["PolicyValueNet"]().apply({"params": case["params"]}, jnp.asarray(boards))
    return (float(optax.softmax_cross_entropy(logits, jnp.asarray(pis)).mean()),
            float(jnp.mean((jnp.asarray(zs) - values) ** 2)))


def _loss_diagnosis(case: dict, got: float) -> str:
    """The first call's loss taken apart: which term is off, when the returned loss says so."""
    policy, value = _loss_terms(case)
    size = len(case["batches"][0][2])
    candidates = [(policy, "only the policy term: the value term mean((z - v)^2) is missing"),
                  (value, "only the value term: the policy cross-entropy is missing"),
                  (size * (policy + value), "both terms summed over the batch instead of averaged"),
                  (policy - value, "the value term is subtracted"),
                  (policy + size * value, "the value term is summed over the batch instead of averaged"),
                  (size * policy + value, "the policy term is summed over the batch instead of averaged")]
    close = [why for want, why in candidates if np.isclose(got, want, rtol=1e-3, atol=1e-4)]
    return (f"first call: expected loss {policy + value:.5f} = policy term {policy:.5f} (mean cross-entropy "
            f"of the targets and the softmax of the logits) + value term {value:.5f} (mean (z - v)^2); got "
            f"{got:.5f}" + (f", which is {close[0]}" if close else ""))


def judge_train_step(cases: list, expected: list, outputs: list) -> None:
    bad = []
    for i, (want, got) in enumerate(zip(expected, outputs)):
        if isinstance(got, str) or isinstance(want, str):
            problem = None if got == want else f"expected a new state and a loss, but it {got}"
        elif got["step"] != want["step"]:
            problem = f"the optimiser step counter is {got['step']} after {want['step']} calls: apply the gradients once per call"
        elif not np.allclose(got["losses"], want["losses"], rtol=LOSS_RTOL, atol=1e-6):
            problem = (f"losses over {len(want['losses'])} consecutive calls: expected "
                       f"{np.round(want['losses'], 5).tolist()}, got {np.round(got['losses'], 5).tolist()}")
            if got["losses"] and not np.isclose(got["losses"][0], want["losses"][0], rtol=LOSS_RTOL, atol=1e-6):
                problem += "\n  " + _loss_diagnosis(cases[i], got["losses"][0])
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
    run_check(__name__, "train_step", fn)


# ---------------------------------------------------------------- match_average

def cases_match_average() -> list[dict]:
    """Every ordered pair of preference agents, with a few game counts."""
    cases = []
    for i, first in enumerate(PREFERENCE_ORDERS):
        for j, second in enumerate(PREFERENCE_ORDERS):
            cases.append({"order1": first, "order2": second, "num_games": (2, 6, 10)[(i + j) % 3]})
    return cases


def judge_match_average(cases: list, expected: list, outputs: list) -> None:
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
    run_check(__name__, "match_average", fn)


JUDGES = {"train_step": judge_train_step, "match_average": judge_match_average}
SCHEMAS = {"train_step": per_case(Either(Record(losses=ListOf(Num, REF), step=Int, params=ListOf(Num, REF)), Str)),
           "match_average": per_case(Either(Record(percentages=Either(ListOf(Num, 3), Str),
                                                   games_opened_by_agent1=Int, games_opened_by_agent2=Int), Str))}
assert set(PROBES) == set(JUDGES) == set(SCHEMAS)
