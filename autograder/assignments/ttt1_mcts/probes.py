"""Probes of part 1 (game rules and MCTS): run the student's function on plain-data cases.

This module is all the sandbox receives of the hidden tests of part 1 (with ``_probe_util``):
``probe_<name>(fn, cases)`` calls the student's function and returns plain data (lists, numbers,
strings, bools). An error raised by student code becomes data too. The judges that decide what
that data is worth live in ``ttt1_mcts/checks.py`` and never enter the sandbox.

MCTS probes build trees with the notebook's own provided ``Tree`` / ``make_tree`` (found in the
student function's globals).
"""
import numpy as np

from ..._probe_util import error_of, is_int_like, provided, short

SEARCH_CHECKPOINTS = (1, 2, 3, 5, 10, 20, 40, 80, 120)




def probe_get_next_state(fn, cases: list) -> list:
    """Result board (list of 9 numbers), or the error raised, and whether the input changed."""
    outputs = []
    for case in cases:
        board = case["board"].copy()
        try:
            result = fn(board, case["action"])
            shape = list(np.shape(result))[:8]
            value = np.asarray(result).astype(float).reshape(-1).tolist() if shape == [9] else short(result)
            outputs.append({"board": value, "shape": shape, "input_changed": bool(np.any(board != case["board"]))})
        except Exception as exc:  # the student's error is data for the judge
            outputs.append({"raises": type(exc).__name__, "input_changed": bool(np.any(board != case["board"]))})
    return outputs


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


def probe_select_action(fn, cases: list) -> list:
    """The chosen move (int) of each one-node tree, or the error raised."""
    make_tree = provided(fn, "make_tree")
    outputs = []
    for case in cases:
        tree = make_tree([case["board"]], [case["n_sa"]], [case["w_sa"]], [case["prior"]])
        try:
            action = fn(tree, 0, case["c_init"], case["c_base"])
            outputs.append(int(action) if is_int_like(action) else f"not an int: {short(action)}")
        except Exception as exc:
            outputs.append(f"raises {error_of(exc)}")
    return outputs


def probe_get_action_prob(fn, cases: list) -> list:
    """The returned policy as a list of 9 floats, or a description of the problem."""
    make_tree = provided(fn, "make_tree")
    outputs = []
    for case in cases:
        tree = make_tree([case["board"]], [case["n_sa"]])
        try:
            probs = np.asarray(fn(tree, 0, case["temperature"]), dtype=float)
            outputs.append(probs.tolist() if probs.shape == (9,) else f"shape {probs.shape}, expected (9,)")
        except Exception as exc:
            outputs.append(f"raises {error_of(exc)}")
    return outputs


def probe_expand_node(fn, cases: list) -> list:
    """Index returned, tree size, the new node's prior and N, and whether `prior` changed."""
    tree_class = provided(fn, "Tree")
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
        if not is_int_like(node) or not 0 <= node < tree.size:
            outputs.append(f"returned {short(node)}, not the index of a node")
            continue
        outputs.append({"index": int(node), "size": int(tree.size), "find": int(tree.find(case["board"])),
                        "P_sa": np.round(tree.P_sa[node], 9).tolist(), "N": float(tree.N[node]),
                        "prior_unchanged": bool(np.array_equal(prior, case["prior"]))})
    return outputs


def model_from_spec(spec: dict):
    """Rebuild a deterministic model(board) -> (prior, value) from its plain-data description."""
    if spec["kind"] == "toy":
        return lambda board: (np.full(9, 1 / 9), 0.1)

    def linear_model(board):
        logits = np.asarray(board, float) @ spec["A"] + spec["b"]
        prior = np.exp(logits - logits.max())
        return prior / prior.sum(), float(np.tanh(np.asarray(board, float) @ spec["w"]))
    return linear_model


def _tree_snapshot(tree) -> dict:
    size = int(tree.size)
    return {"size": size, "state": tree.state[:size].astype(int).tolist(), "N": tree.N[:size].tolist(),
            "N_sa": tree.N_sa[:size].tolist(), "W_sa": tree.W_sa[:size].tolist(), "Q_sa": tree.Q_sa[:size].tolist()}


def search_checkpoints(num_sims: int) -> list[int]:
    """The simulation counts after which a search case takes a snapshot of the tree."""
    return [sim for sim in SEARCH_CHECKPOINTS if sim <= num_sims]


def probe_search_iter(fn, cases: dict) -> dict:
    """Tree snapshots after chosen numbers of simulations, and the functions search_iter calls
    probed on the calls the reference search makes (``cases["paths"]``, one per search).

    One entry per checkpoint of every search: a snapshot, or, from the simulation that raised
    on, ``{"after_simulations": k, "raises": "..."}``. The root is created directly (prior masked
    and normalised from the case), so that only ``search_iter`` and what it calls are exercised.
    """
    tree_class = provided(fn, "Tree")
    paths = [{name: PROBES[name](fn.__globals__[name], path_cases) if name in fn.__globals__
              else f"{name} is not defined" for name, path_cases in path.items()}
             for path in cases["paths"]]
    searches = []
    for case in cases["searches"]:
        model = model_from_spec(case["model"])
        tree = tree_class(case["num_sims"] + 1)
        root = tree.add(case["root"])
        prior = np.where(case["root"] == 0, model(case["root"])[0], 0.0)
        tree.P_sa[root], tree.N[root] = prior / prior.sum(), 1
        checkpoints, snapshots, error = search_checkpoints(case["num_sims"]), [], None
        for sim in range(1, case["num_sims"] + 1):
            try:
                fn(tree, root, model, case["c_init"], case["c_base"])
            except Exception as exc:
                error = f"{error_of(exc)} (in simulation {sim})"
                break
            if sim in checkpoints:
                snapshots.append({"after_simulations": sim, **_tree_snapshot(tree)})
        snapshots += [{"after_simulations": sim, "raises": error} for sim in checkpoints[len(snapshots):]]
        searches.append(snapshots)
    return {"paths": paths, "searches": searches}


PROBES = {"get_next_state": probe_get_next_state, "get_reward": probe_get_reward,
          "select_action": probe_select_action, "get_action_prob": probe_get_action_prob,
          "expand_node": probe_expand_node, "search_iter": probe_search_iter}
