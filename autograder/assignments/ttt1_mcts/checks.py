"""Hidden tests of part 1 (game rules and MCTS): cases, data shapes and judges (grader side).

For every checked function ``<name>``:

* ``cases_<name>()`` builds the deterministic plain-data cases;
* ``SCHEMAS[<name>]`` is the shape of what ``ttt1_mcts.probes.probe_<name>`` returns
  (``autograder.probe_schema``), checked before the judge sees anything;
* ``judge_<name>(cases, expected, outputs)`` compares the student's probe outputs with the
  reference's (``expected``) and raises AssertionError describing the first mismatch;
* ``check_<name>(fn)`` = cases, probe, validation, judge: the one-liner of hidden-test cells.

Only ``ttt1_mcts/probes.py`` enters the sandbox; this module never does. ``search_iter`` is judged on the
test searches where the functions it calls agree with the reference along the reference's path, so
a slip in one of them costs search_iter nothing where it does not matter, and one bug that matters
everywhere gives one clear message ("fix X first").
"""
import math

import numpy as np

from . import cases as ttt_cases
from ..._probe_util import is_int_like, short
from ..._report import board_block, compare_all, counted, failure
from ...probe_schema import REF, Bool, Either, Int, ListOf, Num, Record, Str, per_case
from ...probes import run_check
from .probes import PROBES

FLOAT_TOLERANCE = 1e-6
BOARD = ListOf(Num, 9)
NODES = 10_000  # more tree nodes than any search case can make
REFERENCE = ("ttt1_mcts", "ttt1_mcts")  # (assignment, notebook) of the reference solution


def check(name: str, fn) -> None:
    run_check(__name__, name, fn)


# ---------------------------------------------------------------- get_next_state

def cases_get_next_state() -> list:
    return ttt_cases.next_state_cases()


def judge_get_next_state(cases: list, expected: list, outputs: list) -> None:
    describe = lambda case: (f"  board (X = player to move, O = opponent):\n{board_block(case['board'])}\n"
                             f"  action: {case['action']}")
    compare_all("get_next_state", cases, expected, outputs, lambda e, g: e == g, describe)


def check_get_next_state(fn) -> None:
    check("get_next_state", fn)


# ---------------------------------------------------------------- get_reward

def cases_get_reward() -> list:
    return ttt_cases.reward_cases()


def judge_get_reward(cases: list, expected: list, outputs: list) -> None:
    describe = lambda case: f"  board (X = player to move, O = opponent):\n{board_block(case['board'])}"
    compare_all("get_reward", cases, expected, outputs, lambda e, g: e == g, describe)


def check_get_reward(fn) -> None:
    check("get_reward", fn)


# ---------------------------------------------------------------- select_action

def cases_select_action() -> list:
    return ttt_cases.select_action_cases()


def puct_scores(case: dict) -> np.ndarray:
    """Q + U of every move of a select_action case (used only to recognise near-ties)."""
    n = 1 + case["n_sa"].sum()
    c = case["c_init"] if case["c_base"] is None else (
        math.log((1 + n + case["c_base"]) / case["c_base"]) + case["c_init"])
    q = np.divide(case["w_sa"], case["n_sa"], out=np.zeros(9), where=case["n_sa"] > 0)
    return q + c * case["prior"] * math.sqrt(n) / (1 + case["n_sa"])


def judge_select_action(cases: list, expected: list, outputs: list) -> None:
    def same(case, want, got):
        if got == want:
            return True
        if not is_int_like(got) or not 0 <= got < 9 or case["board"][got] != 0:
            return False
        statistics = (case["n_sa"], case["w_sa"], case["prior"])
        if all(s[got] == s[want] for s in statistics):
            return False  # an exact tie: the stated rule asks for the lowest index
        scores = puct_scores(case)  # accept a different move only if it ties up to rounding
        return abs(scores[got] - scores[want]) <= 1e-12 * max(1.0, abs(scores[want]))

    def describe(case):
        q = np.divide(case["w_sa"], case["n_sa"], out=np.zeros(9), where=case["n_sa"] > 0)
        return (f"  node board (X = player to move):\n{board_block(case['board'])}\n"
                f"  N(s,a) = {case['n_sa'].astype(int).tolist()}\n"
                f"  Q(s,a) = {np.round(q, 4).tolist()}\n"
                f"  P(s,a) = {np.round(case['prior'], 4).tolist()}\n"
                f"  N(s) = {1 + int(case['n_sa'].sum())}, c_init = {case['c_init']}, c_base = {case['c_base']}\n"
                f"  PUCT scores (illegal moves: -inf) = "
                f"{np.round(np.where(case['board'] == 0, puct_scores(case), -np.inf), 4).tolist()}")

    bad = [i for i, (case, want, got) in enumerate(zip(cases, expected, outputs)) if not same(case, want, got)]
    if bad:
        i = bad[0]
        raise failure("select_action", len(bad), len(cases),
                      f"{describe(cases[i])}\n  expected move: {expected[i]} (lowest index among ties)\n"
                      f"  got:           {short(outputs[i])}")


def check_select_action(fn) -> None:
    check("select_action", fn)


# ---------------------------------------------------------------- get_action_prob

def cases_get_action_prob() -> list:
    return ttt_cases.action_prob_cases()


def _close_vectors(expected, got) -> bool:
    if isinstance(expected, str) or isinstance(got, str):
        return expected == got
    return bool(np.allclose(expected, got, rtol=0, atol=FLOAT_TOLERANCE))


def judge_get_action_prob(cases: list, expected: list, outputs: list) -> None:
    describe = lambda case: (f"  node board (X = player to move):\n{board_block(case['board'])}\n"
                             f"  visits N(s,a) = {case['n_sa'].astype(int).tolist()}\n"
                             f"  temperature = {case['temperature']}")
    compare_all("get_action_prob", cases, expected, outputs, _close_vectors, describe)


def check_get_action_prob(fn) -> None:
    check("get_action_prob", fn)


# ---------------------------------------------------------------- expand_node

def cases_expand_node() -> list:
    return ttt_cases.expand_node_cases()


def _same_expansion(expected, got) -> bool:
    if isinstance(expected, str) or isinstance(got, str):
        return expected == got
    return all(np.allclose(expected[k], got[k], atol=FLOAT_TOLERANCE) if k == "P_sa" else expected[k] == got[k]
               for k in expected)


def judge_expand_node(cases: list, expected: list, outputs: list) -> None:
    describe = lambda case: (f"  tree already holding {counted(len(case['existing']), 'node')}; new board:\n"
                             f"{board_block(case['board'])}\n  prior = {np.round(case['prior'], 4).tolist()}")
    compare_all("expand_node", cases, expected, outputs, _same_expansion, describe)


def check_expand_node(fn) -> None:
    check("expand_node", fn)


# ---------------------------------------------------------------- search_iter

# The functions search_iter calls. It is judged on the test searches where all of them agree with
# the reference on every call the reference search makes: a slip in one of them (say select_action
# ignoring c_base) costs search_iter nothing on searches that never meet it.
PREREQUISITES = ("get_next_state", "get_reward", "select_action", "expand_node")
MIN_JUDGED_SEARCHES = 0.5  # below this share of judgeable searches: "fix <prerequisite> first"


def cases_search_iter() -> dict:
    """Searches to replay, and, per search, the calls the reference search makes to the functions
    search_iter calls (inputs only, in each function's own case format)."""
    searches = ttt_cases.search_cases()
    return {"searches": searches, "paths": _reference_paths(searches)}


def _path_case(name: str, arguments: dict) -> dict:
    """One call of a prerequisite as a case of that function's own probe."""
    if name == "select_action":
        tree, node = arguments["tree"], arguments["node"]
        return {"board": tree.state[node].copy(), "n_sa": tree.N_sa[node].copy(), "w_sa": tree.W_sa[node].copy(),
                "prior": tree.P_sa[node].copy(), "c_init": arguments["c_init"], "c_base": arguments["c_base"]}
    if name == "expand_node":
        return {"existing": [], "board": np.array(arguments["board"], dtype=np.int8),
                "prior": np.array(arguments["prior"], dtype=float)}
    board = np.array(arguments["board"], dtype=np.int8)
    return {"board": board, "action": int(arguments["action"])} if name == "get_next_state" else {"board": board}


def _reference_paths(searches: list) -> list:
    """For each search, {prerequisite: its distinct calls} made by the reference search (recorded by
    wrapping the reference's own functions while the search probe runs)."""
    import inspect
    import json

    from ... import reference
    from .probes import probe_search_iter

    namespace = reference.ttt1()
    originals = {name: namespace[name] for name in PREREQUISITES}
    current: dict = {}

    def recorder(name):
        signature = inspect.signature(originals[name])

        def call(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            case = _path_case(name, bound.arguments)
            key = json.dumps(case, sort_keys=True, default=lambda value: np.asarray(value).tolist())
            current[name].setdefault(key, case)
            return originals[name](*args, **kwargs)
        return call

    paths = []
    try:
        namespace.update({name: recorder(name) for name in PREREQUISITES})
        for search in searches:
            current.clear()
            current.update({name: {} for name in PREREQUISITES})
            probe_search_iter(namespace["search_iter"], {"searches": [search], "paths": []})
            paths.append({name: list(calls.values()) for name, calls in current.items()})
    finally:
        namespace.update(originals)
    return paths


def _first_tree_difference(expected: dict, got: dict) -> str | None:
    """Describe the first difference between two tree snapshots, or None if they match."""
    if "raises" in got or "raises" in expected:
        return None if got == expected else f"expected a tree, got an error: {got.get('raises')}"
    if got["size"] != expected["size"]:
        return f"the tree has {got['size']} nodes, expected {expected['size']}"
    for node in range(expected["size"]):
        for field in ("state", "N", "N_sa", "W_sa", "Q_sa"):
            want, have = np.asarray(expected[field][node]), np.asarray(got[field][node])
            if want.shape != have.shape or not np.allclose(want, have, atol=FLOAT_TOLERANCE):
                return (f"node {node}, board:\n{board_block(expected['state'][node])}\n"
                        f"  {field}: expected {np.round(want, 4).tolist()}\n"
                        f"  {' ' * len(field)}  got      {np.round(have, 4).tolist()}")
    return None


def _path_disagreements(cases: dict, expected: dict, outputs: dict) -> dict:
    """{search index: {prerequisite: first line of what is wrong}} on the reference's path of each search."""
    found = {}
    for index, path in enumerate(cases["paths"]):
        for name, path_cases in path.items():
            result = outputs["paths"][index][name]
            try:
                if isinstance(result, str):
                    raise AssertionError(result)
                JUDGES[name](path_cases, expected["paths"][index][name], result)
            except AssertionError as problem:
                found.setdefault(index, {})[name] = (str(problem).splitlines() or ["wrong result"])[0]
    return found


def judge_search_iter(cases: dict, expected: dict, outputs: dict) -> None:
    searches = cases["searches"]
    disagreements = _path_disagreements(cases, expected, outputs)
    judged = [i for i in range(len(searches)) if i not in disagreements]
    if len(judged) < MIN_JUDGED_SEARCHES * len(searches):
        names = sorted({name for problems in disagreements.values() for name in problems})
        example = next(iter(disagreements.values()))
        name = sorted(example)[0]
        raise AssertionError(
            f"search_iter was not checked: {' and '.join(names)}, which it calls, "
            f"{'disagrees' if len(names) == 1 else 'disagree'} with the reference "
            f"on {len(disagreements)} of {len(searches)} test searches ({name}: {example[name]}). "
            f"Fix {' and '.join(names)} first: its own test shows the details. (search_iter is judged on the "
            f"searches where everything it calls is right, so a slip that touches few searches costs it nothing.)")
    for index in judged:
        case, want, got = searches[index], expected["searches"][index], outputs["searches"][index]
        for want_snapshot, got_snapshot in zip(want, got):
            difference = _first_tree_difference(want_snapshot, got_snapshot)
            if difference:
                model = "toy_model" if case["model"]["kind"] == "toy" else "a fixed linear model"
                raise AssertionError(
                    f"search_iter builds a different tree.\nRoot board (X to move):\n{board_block(case['root'])}\n"
                    f"model: {model}, c_init = {case['c_init']}, c_base = {case['c_base']}\n"
                    f"After {counted(want_snapshot['after_simulations'], 'simulation')}: {difference}")


def check_search_iter(fn) -> None:
    check("search_iter", fn)


JUDGES = {"get_next_state": judge_get_next_state, "get_reward": judge_get_reward,
          "select_action": judge_select_action, "get_action_prob": judge_get_action_prob,
          "expand_node": judge_expand_node, "search_iter": judge_search_iter}

_NEXT_STATE = Either(Record(board=Either(BOARD, Str), shape=ListOf(Int, max_length=8), input_changed=Bool),
                     Record(raises=Str, input_changed=Bool))
_REWARD = Either(Record(reward=Num, done=Bool), Record(raises=Str), Record(returned=Str, problem=Str))
_ACTION = Either(Int, Str)
_POLICY = Either(BOARD, Str)
_EXPANSION = Either(Record(index=Int, size=Int, find=Int, P_sa=BOARD, N=Num, prior_unchanged=Bool), Str)
_ROWS = ListOf(BOARD, max_length=NODES)
_SNAPSHOT = Either(Record(after_simulations=Int, size=Int, state=_ROWS, N=ListOf(Num, max_length=NODES),
                          N_sa=_ROWS, W_sa=_ROWS, Q_sa=_ROWS),
                   Record(after_simulations=Int, raises=Str))
SCHEMAS = {"get_next_state": per_case(_NEXT_STATE), "get_reward": per_case(_REWARD),
           "select_action": per_case(_ACTION), "get_action_prob": per_case(_POLICY),
           "expand_node": per_case(_EXPANSION)}
SCHEMAS["search_iter"] = Record(
    paths=ListOf(Record(**{name: Either(SCHEMAS[name], Str) for name in PREREQUISITES}), REF),
    searches=ListOf(ListOf(_SNAPSHOT, REF), REF))
assert set(PROBES) == set(JUDGES) == set(SCHEMAS)
