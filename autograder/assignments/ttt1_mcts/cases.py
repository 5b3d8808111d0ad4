"""Deterministic test cases for the tic-tac-toe hidden tests (trusted side).

Cases are plain data (numpy arrays, numbers, strings), so they can be handed to a probe
running in another process. Positions come from the reference rules in the source
notebook (see ``autograder.reference``), exhaustively where the game allows it.
"""
from functools import lru_cache

import numpy as np

from azcourse.tictactoe.positions import reachable_positions
from azcourse.tictactoe.rules import GameRules

SEED = 20240611
EXPLORATION_SETTINGS = ((1.25, 19652.0), (1.0, 3.0), (1.25, 10.0), (2.0, None), (0.5, None))
TEMPERATURES = (0.0, 1.0, float("inf"), 0.5, 2.0, 0.05, 0.01, 10.0)


def reference_rules() -> GameRules:
    """The game interface built from the reference solution of part 1."""
    from ... import reference  # trusted side only

    ns = reference.ttt1()
    return GameRules(ns["get_next_state"], ns["get_reward"], ns["get_valid_mask"], ns["flip_board"])


@lru_cache(maxsize=None)
def positions() -> tuple[np.ndarray, ...]:
    """All 5478 boards reachable from the empty board, seen from the player to move."""
    return tuple(reachable_positions(reference_rules(), np.zeros(9, np.int8)))


@lru_cache(maxsize=None)
def open_positions() -> tuple[np.ndarray, ...]:
    """The reachable boards where the game is not over (4520 of them)."""
    reward = reference_rules().reward
    return tuple(board for board in positions() if not reward(board)[1])


def next_state_cases() -> list[dict]:
    """Every legal move in every open position, plus one occupied square in every 5th."""
    cases = []
    for i, board in enumerate(open_positions()):
        for action in np.flatnonzero(board == 0):
            cases.append({"board": board, "action": int(action)})
        if i % 5 == 0 and np.any(board != 0):
            cases.append({"board": board, "action": int(np.flatnonzero(board != 0)[0])})
    return cases


def reward_cases() -> list[dict]:
    """Every reachable board, and each one seen from the other side (lines of +1 too)."""
    return [{"board": b} for b in positions()] + [{"board": -b} for b in positions()]


def _random_statistics(rng, board: np.ndarray, kind: str) -> dict:
    """Plausible node statistics for `board`: visits, total values and a prior (all (9,))."""
    legal = board == 0
    n_legal = int(legal.sum())
    prior = np.zeros(9)
    prior[legal] = rng.dirichlet(np.ones(n_legal)) if kind != "uniform" else 1.0 / n_legal
    n_sa = np.zeros(9)
    w_sa = np.zeros(9)
    if kind in ("visited", "ties"):
        n_sa[legal] = rng.integers(0, 30, n_legal)
        w_sa[legal] = np.round(n_sa[legal] * rng.uniform(-1, 1, n_legal), 1)
    if kind == "ties" and n_legal >= 2:
        first, second = np.flatnonzero(legal)[rng.choice(n_legal, 2, replace=False)]
        n_sa[second], w_sa[second], prior[second] = n_sa[first], w_sa[first], prior[first]
        prior[legal] /= prior[legal].sum()
    if kind == "losing":
        n_sa[legal] = rng.integers(1, 10, n_legal)
        w_sa[legal] = -n_sa[legal]
    return {"n_sa": n_sa, "w_sa": w_sa, "prior": prior}


def select_action_cases(count: int = 600) -> list[dict]:
    """Random nodes of every kind (fresh, visited, exact ties, all moves losing)."""
    rng = np.random.default_rng(SEED)
    boards = open_positions()
    kinds = ("uniform", "fresh", "visited", "ties", "losing")
    cases = []
    for i in range(count):
        board = boards[rng.integers(len(boards))]
        c_init, c_base = EXPLORATION_SETTINGS[i % len(EXPLORATION_SETTINGS)]
        stats = _random_statistics(rng, board, kinds[i % len(kinds)])
        cases.append({"board": board, **stats, "c_init": c_init, "c_base": c_base})
    return cases


def action_prob_cases(count: int = 400) -> list[dict]:
    """Searched nodes (some visits, some exact ties) at every kind of temperature."""
    rng = np.random.default_rng(SEED + 1)
    boards = open_positions()
    cases = []
    for i in range(count):
        board = boards[rng.integers(len(boards))]
        legal = np.flatnonzero(board == 0)
        n_sa = np.zeros(9)
        n_sa[legal] = rng.integers(0, (4, 500, 5000)[i % 3], legal.size)
        if n_sa.sum() == 0:
            n_sa[legal[0]] = 1
        cases.append({"board": board, "n_sa": n_sa, "temperature": TEMPERATURES[i % len(TEMPERATURES)]})
    return cases


def expand_node_cases(count: int = 300) -> list[dict]:
    """New boards added to trees that already hold 0-3 nodes, with awkward priors."""
    rng = np.random.default_rng(SEED + 2)
    boards = open_positions()
    cases = []
    for i in range(count):
        picks = rng.choice(len(boards), 4, replace=False)
        existing = [boards[j] for j in picks[: i % 4]]
        board = boards[picks[3]]
        prior = rng.dirichlet(np.ones(9))
        if i % 6 == 1:
            prior = np.where(board == 0, 0.0, prior)  # all mass on illegal moves (if any)
        elif i % 6 == 2:
            prior[rng.choice(9, 4, replace=False)] = 0.0
        if prior.sum() == 0:
            prior = np.full(9, 1 / 9)
        cases.append({"existing": existing, "board": board, "prior": prior / prior.sum()})
    return cases


def _linear_model_spec(rng) -> dict:
    """Parameters of a small deterministic model: prior = softmax(board @ A + b), value = tanh(board @ w)."""
    return {"kind": "linear", "A": rng.normal(0, 1, (9, 9)), "b": rng.normal(0, 0.5, 9),
            "w": rng.normal(0, 0.7, 9)}


def search_cases() -> list[dict]:
    """Whole searches: root board, model, exploration constants and number of simulations."""
    rng = np.random.default_rng(SEED + 3)
    roots = [np.zeros(9, np.int8),
             np.array([1, 0, 0, 0, 1, 0, 0, 0, 0], np.int8),
             np.array([1, 1, -1, -1, 0, 0, -1, 0, 0], np.int8),
             np.array([1, -1, 0, 0, 0, 0, 0, 0, 0], np.int8)]
    boards = open_positions()
    roots += [boards[j] for j in rng.choice(len(boards), 6, replace=False)]
    # A finite c_base makes C(s) irrational, so moves with different statistics never tie exactly
    # and any correct order of floating-point operations makes the same choices.
    settings = [(c_init, c_base) for c_init, c_base in EXPLORATION_SETTINGS if c_base is not None]
    cases = []
    for i, root in enumerate(roots):
        c_init, c_base = settings[i % len(settings)]
        model = {"kind": "toy"} if i % 2 == 0 else _linear_model_spec(rng)
        cases.append({"root": root, "model": model, "c_init": c_init, "c_base": c_base,
                      "num_sims": 120 if i < 4 else 40})
    return cases


def subset(cases: list, every: int) -> list:
    """Every `every`-th case (a quick version of a check)."""
    return cases[::every]
