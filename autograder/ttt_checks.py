"""Hidden tests of part 1 (game rules and MCTS): probe the student's function, then judge.

* ``probe_<name>(fn, cases)`` calls the student's function on plain-data cases and returns
  plain data (lists, floats, strings); it never looks at the reference solution, so it can
  run in a sandboxed process.
* ``judge_<name>(cases, outputs)`` runs the same probe on the reference solution (read from
  the source notebook) and raises AssertionError describing the first mismatch.
* ``cases_<name>()`` builds the deterministic plain-data cases (trusted side).
* ``check_<name>(fn)`` = cases, probe, judge: the one-liner used in hidden-test cells.

MCTS probes build trees with the notebook's own provided ``Tree`` / ``make_tree`` (found in
the student function's globals). ``search_iter`` is judged only after the functions it calls
pass their own checks, so one bug gives one clear message instead of a cascade.
"""
import math

import numpy as np

from . import ttt_cases
from ._report import board_block, compare_all, error_of, failure, quiet, short

FLOAT_TOLERANCE = 1e-6
SEARCH_CHECKPOINTS = (1, 2, 3, 5, 10, 20, 40, 80, 120)


def _reference() -> dict:
    """The reference namespace of part 1 (imported lazily: probes never need it)."""
    from . import reference
    return reference.ttt1()


def _provided(fn, name: str):
    """A provided definition (e.g. ``Tree``) from the notebook the function was defined in."""
    try:
        return fn.__globals__[name]
    except (AttributeError, KeyError):
        raise AssertionError(f"`{name}` is not defined: run the provided cells of the notebook first") from None


def _is_int_like(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


# ---------------------------------------------------------------- get_next_state

def probe_get_next_state(fn, cases: list) -> list:
    """Result board (list of 9 ints), or the error raised, and whether the input changed."""
    outputs = []
    for case in cases:
        board = case["board"].copy()
        try:
            result = fn(board, case["action"])
            shape = list(np.shape(result))
            value = np.asarray(result).astype(float).reshape(-1).tolist() if shape == [9] else short(result)
            outputs.append({"board": value, "shape": shape, "input_changed": bool(np.any(board != case["board"]))})
        except Exception as exc:  # the student's error is data for the judge
            outputs.append({"raises": type(exc).__name__, "input_changed": bool(np.any(board != case["board"]))})
    return outputs


def judge_get_next_state(cases: list, outputs: list) -> None:
    expected = probe_get_next_state(_reference()["get_next_state"], cases)
    describe = lambda case: (f"  board (X = player to move, O = opponent):\n{board_block(case['board'])}\n"
                             f"  action: {case['action']}")
    compare_all("get_next_state", cases, expected, outputs, lambda e, g: e == g, describe)


def cases_get_next_state() -> list:
    return ttt_cases.next_state_cases()


def check_get_next_state(fn) -> None:
    cases = cases_get_next_state()
    with quiet():
        outputs = probe_get_next_state(fn, cases)
    judge_get_next_state(cases, outputs)


# ---------------------------------------------------------------- get_reward

def probe_get_reward(fn, cases: list) -> list:
    """(reward, done) as (float, bool), or a description of what was returned instead."""
    outputs = []
    for case in cases:
        try:
            result = fn(case["board"].copy())
        except Exception as exc:
            outputs.append({"raises": error_of(exc)})
            continue
        if not (isinstance(result, tuple) and len(result) == 2):
            outputs.append({"returned": short(result), "problem": "not a pair (reward, done)"})
        elif np.ndim(result[0]) != 0 or not isinstance(result[1], (bool, np.bool_)):
            outputs.append({"returned": short(result),
                            "problem": "reward must be a single number and done a bool"})
        else:
            outputs.append({"reward": float(result[0]), "done": bool(result[1])})
    return outputs


def judge_get_reward(cases: list, outputs: list) -> None:
    expected = probe_get_reward(_reference()["get_reward"], cases)
    describe = lambda case: f"  board (X = player to move, O = opponent):\n{board_block(case['board'])}"
    compare_all("get_reward", cases, expected, outputs, lambda e, g: e == g, describe)


def cases_get_reward() -> list:
    return ttt_cases.reward_cases()


def check_get_reward(fn) -> None:
    cases = cases_get_reward()
    with quiet():
        outputs = probe_get_reward(fn, cases)
    judge_get_reward(cases, outputs)


# ---------------------------------------------------------------- select_action

def puct_scores(case: dict) -> np.ndarray:
    """Q + U of every move of a select_action case (used only to recognise near-ties)."""
    n = 1 + case["n_sa"].sum()
    c = case["c_init"] if case["c_base"] is None else (
        math.log((1 + n + case["c_base"]) / case["c_base"]) + case["c_init"])
    q = np.divide(case["w_sa"], case["n_sa"], out=np.zeros(9), where=case["n_sa"] > 0)
    return q + c * case["prior"] * math.sqrt(n) / (1 + case["n_sa"])


def probe_select_action(fn, cases: list) -> list:
    """The chosen move (int) of each one-node tree, or the error raised."""
    make_tree = _provided(fn, "make_tree")
    outputs = []
    for case in cases:
        tree = make_tree([case["board"]], [case["n_sa"]], [case["w_sa"]], [case["prior"]])
        try:
            action = fn(tree, 0, case["c_init"], case["c_base"])
            outputs.append(int(action) if _is_int_like(action) else f"not an int: {short(action)}")
        except Exception as exc:
            outputs.append(f"raises {error_of(exc)}")
    return outputs


def judge_select_action(cases: list, outputs: list) -> None:
    expected = probe_select_action(_reference()["select_action"], cases)

    def same(case_and_expected, got):
        case, want = case_and_expected
        if got == want:
            return True
        if not _is_int_like(got) or not 0 <= got < 9 or case["board"][got] != 0:
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

    paired = list(zip(cases, expected))
    bad = [i for i, (pair, got) in enumerate(zip(paired, outputs)) if not same(pair, got)]
    if bad:
        i = bad[0]
        raise failure("select_action", len(bad), len(cases),
                      f"{describe(cases[i])}\n  expected move: {expected[i]} (lowest index among ties)\n"
                      f"  got:           {short(outputs[i])}")


def cases_select_action() -> list:
    return ttt_cases.select_action_cases()


def check_select_action(fn) -> None:
    cases = cases_select_action()
    with quiet():
        outputs = probe_select_action(fn, cases)
    judge_select_action(cases, outputs)


# ---------------------------------------------------------------- get_action_prob

def probe_get_action_prob(fn, cases: list) -> list:
    """The returned policy as a list of 9 floats, or a description of the problem."""
    make_tree = _provided(fn, "make_tree")
    outputs = []
    for case in cases:
        tree = make_tree([case["board"]], [case["n_sa"]])
        try:
            probs = np.asarray(fn(tree, 0, case["temperature"]), dtype=float)
            outputs.append(probs.tolist() if probs.shape == (9,) else f"shape {probs.shape}, expected (9,)")
        except Exception as exc:
            outputs.append(f"raises {error_of(exc)}")
    return outputs


def _close_vectors(expected, got) -> bool:
    if isinstance(expected, str) or isinstance(got, str):
        return expected == got
    return bool(np.allclose(expected, got, rtol=0, atol=FLOAT_TOLERANCE))


def judge_get_action_prob(cases: list, outputs: list) -> None:
    expected = probe_get_action_prob(_reference()["get_action_prob"], cases)
    describe = lambda case: (f"  node board (X = player to move):\n{board_block(case['board'])}\n"
                             f"  visits N(s,a) = {case['n_sa'].astype(int).tolist()}\n"
                             f"  temperature = {case['temperature']}")
    compare_all("get_action_prob", cases, expected, outputs, _close_vectors, describe)


def cases_get_action_prob() -> list:
    return ttt_cases.action_prob_cases()


def check_get_action_prob(fn) -> None:
    cases = cases_get_action_prob()
    with quiet():
        outputs = probe_get_action_prob(fn, cases)
    judge_get_action_prob(cases, outputs)


# ---------------------------------------------------------------- expand_node

def probe_expand_node(fn, cases: list) -> list:
    """Index returned, tree size, the new node's prior and N, and whether `prior` changed."""
    tree_class = _provided(fn, "Tree")
    outputs = []
    for case in cases:
        tree = tree_class(len(case["existing"]) + 1)
        for board in case["existing"]:
            tree.add(board)
        prior = case["prior"].copy()
        try:
            node = fn(tree, case["board"].copy(), prior)
        except Exception as exc:
            outputs.append(f"raises {error_of(exc)}")
            continue
        if not _is_int_like(node) or not 0 <= node < tree.size:
            outputs.append(f"returned {short(node)}, not the index of a node")
            continue
        outputs.append({"index": int(node), "size": tree.size, "find": int(tree.find(case["board"])),
                        "P_sa": np.round(tree.P_sa[node], 9).tolist(), "N": float(tree.N[node]),
                        "prior_unchanged": bool(np.array_equal(prior, case["prior"]))})
    return outputs


def _same_expansion(expected, got) -> bool:
    if isinstance(expected, str) or isinstance(got, str):
        return expected == got
    return all(np.allclose(expected[k], got[k], atol=FLOAT_TOLERANCE) if k == "P_sa" else expected[k] == got[k]
               for k in expected)


def judge_expand_node(cases: list, outputs: list) -> None:
    expected = probe_expand_node(_reference()["expand_node"], cases)
    describe = lambda case: (f"  tree already holding {len(case['existing'])} node(s); new board:\n"
                             f"{board_block(case['board'])}\n  prior = {np.round(case['prior'], 4).tolist()}")
    compare_all("expand_node", cases, expected, outputs, _same_expansion, describe)


def cases_expand_node() -> list:
    return ttt_cases.expand_node_cases()


def check_expand_node(fn) -> None:
    cases = cases_expand_node()
    with quiet():
        outputs = probe_expand_node(fn, cases)
    judge_expand_node(cases, outputs)


# ---------------------------------------------------------------- search_iter

def _model_from_spec(spec: dict):
    """Rebuild a deterministic model(board) -> (prior, value) from its plain-data description."""
    if spec["kind"] == "toy":
        return lambda board: (np.full(9, 1 / 9), 0.1)

    def linear_model(board):
        logits = np.asarray(board, float) @ spec["A"] + spec["b"]
        prior = np.exp(logits - logits.max())
        return prior / prior.sum(), float(np.tanh(np.asarray(board, float) @ spec["w"]))
    return linear_model


def _tree_snapshot(tree) -> dict:
    size = tree.size
    return {"size": size, "state": tree.state[:size].astype(int).tolist(), "N": tree.N[:size].tolist(),
            "N_sa": tree.N_sa[:size].tolist(), "W_sa": tree.W_sa[:size].tolist(), "Q_sa": tree.Q_sa[:size].tolist()}


def probe_search_iter(fn, cases: dict) -> dict:
    """Tree snapshots after chosen numbers of simulations, plus the prerequisite probes.

    The root is created directly (prior masked and normalised from the case), so that only
    ``search_iter`` and the functions it calls are exercised.
    """
    tree_class = _provided(fn, "Tree")
    prerequisites = {name: PROBES[name](fn.__globals__[name], prereq_cases) if name in fn.__globals__
                     else f"{name} is not defined"
                     for name, prereq_cases in cases["prerequisites"].items()}
    searches = []
    for case in cases["searches"]:
        model = _model_from_spec(case["model"])
        tree = tree_class(case["num_sims"] + 1)
        root = tree.add(case["root"])
        prior = np.where(case["root"] == 0, model(case["root"])[0], 0.0)
        tree.P_sa[root], tree.N[root] = prior / prior.sum(), 1
        snapshots = []
        try:
            for sim in range(1, case["num_sims"] + 1):
                fn(tree, root, model, case["c_init"], case["c_base"])
                if sim in SEARCH_CHECKPOINTS:
                    snapshots.append({"after_simulations": sim, **_tree_snapshot(tree)})
        except Exception as exc:
            snapshots.append({"after_simulations": sim, "raises": error_of(exc)})
        searches.append(snapshots)
    return {"prerequisites": prerequisites, "searches": searches}


def _first_tree_difference(expected: dict, got: dict) -> str | None:
    """Describe the first difference between two tree snapshots, or None if they match."""
    if "raises" in got or "raises" in expected:
        return None if got == expected else f"expected a tree, got an error: {got.get('raises')}"
    if got["size"] != expected["size"]:
        return f"the tree has {got['size']} nodes, expected {expected['size']}"
    for node in range(expected["size"]):
        for field in ("state", "N", "N_sa", "W_sa", "Q_sa"):
            want, have = np.asarray(expected[field][node]), np.asarray(got[field][node])
            if not np.allclose(want, have, atol=FLOAT_TOLERANCE):
                return (f"node {node}, board:\n{board_block(expected['state'][node])}\n"
                        f"  {field}: expected {np.round(want, 4).tolist()}\n"
                        f"  {' ' * len(field)}  got      {np.round(have, 4).tolist()}")
    return None


def judge_search_iter(cases: dict, outputs: dict) -> None:
    for name, prereq_cases in cases["prerequisites"].items():
        result = outputs["prerequisites"][name]
        try:
            if isinstance(result, str):
                raise AssertionError(result)
            JUDGES[name](prereq_cases, result)
        except AssertionError as problem:
            first_line = str(problem).splitlines()[0]
            raise AssertionError(
                f"search_iter was not checked because {name}, which it calls, is not correct yet "
                f"({first_line}). Fix {name} first: its own test cell shows the details.") from None
    expected = probe_search_iter(_reference()["search_iter"], cases)
    for case, want, got in zip(cases["searches"], expected["searches"], outputs["searches"]):
        for want_snapshot, got_snapshot in zip(want, got):
            difference = _first_tree_difference(want_snapshot, got_snapshot)
            if difference:
                model = "toy_model" if case["model"]["kind"] == "toy" else "a fixed linear model"
                raise AssertionError(
                    f"search_iter builds a different tree.\nRoot board (X to move):\n{board_block(case['root'])}\n"
                    f"model: {model}, c_init = {case['c_init']}, c_base = {case['c_base']}\n"
                    f"After {want_snapshot['after_simulations']} simulation(s): {difference}")
        if len(got) != len(want):
            raise AssertionError(f"search_iter: expected {len(want)} tree snapshots, got {len(got)}")


def cases_search_iter() -> dict:
    """Searches to replay, and quick cases for each function that search_iter calls."""
    return {"searches": ttt_cases.search_cases(),
            "prerequisites": {"get_next_state": ttt_cases.subset(ttt_cases.next_state_cases(), 10),
                              "get_reward": ttt_cases.subset(ttt_cases.reward_cases(), 5),
                              "select_action": ttt_cases.subset(ttt_cases.select_action_cases(), 3),
                              "expand_node": ttt_cases.subset(ttt_cases.expand_node_cases(), 3)}}


def check_search_iter(fn) -> None:
    cases = cases_search_iter()
    with quiet():
        outputs = probe_search_iter(fn, cases)
    judge_search_iter(cases, outputs)


PROBES = {"get_next_state": probe_get_next_state, "get_reward": probe_get_reward,
          "select_action": probe_select_action, "get_action_prob": probe_get_action_prob,
          "expand_node": probe_expand_node, "search_iter": probe_search_iter}
JUDGES = {"get_next_state": judge_get_next_state, "get_reward": judge_get_reward,
          "select_action": judge_select_action, "get_action_prob": judge_get_action_prob,
          "expand_node": judge_expand_node, "search_iter": judge_search_iter}
