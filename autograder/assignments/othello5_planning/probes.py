"""Probes of part 5 (Othello planning); all the sandbox receives of part 5's hidden tests.

Same shape as ``hex4_onpolicy/probes.py``: ``probe_<name>(fn, cases)`` runs student code on plain-data
cases and returns plain data. Judges: ``othello5_planning/checks.py``.

The network is never the shipped one: each case names a tiny deterministic stand-in
(``fake_network``: a value and a prior computed from the mover's disc lead with the case's weights), so
every call is cheap and exact. Each function is graded on its own: while ``value_move`` and
``rollout_value`` run, the notebook's ``state_value`` is the course pack's public
``azcourse.core.planners.value_for`` (the same contract); ``monte_carlo_move`` runs with a spy in place
of ``rollout_value`` and ``mcts_move`` with a spy in place of ``simulate``, which note how they are
called and answer from the case data. So a slip in one answer never costs the points of another, and
nothing here is a reference the student does not already have.
"""

import numpy as np

from azcourse.core.planners import value_for
from azcourse.othello.game import Othello

from ..._probe_util import error_of, probe_each, provided, replaced, short

GAMES = {}


def game_of(size: int) -> Othello:
    if size not in GAMES:
        GAMES[size] = Othello(size)
    return GAMES[size]


class LoggingOthello(Othello):
    """Othello that notes every action played with ``next_state`` (in ``played``)."""

    def __init__(self, size: int):
        super().__init__(size)
        self.played = []

    def next_state(self, state, action):
        self.played.append(int(action))
        if len(self.played) > 10_000:
            raise RuntimeError("more than 10,000 moves were played")
        return super().next_state(state, action)


def fake_network(game, weights, logits):
    """``predict(state) -> (prior float64 (A,), value)`` of a stand-in network: with ``lead`` the mover's
    discs minus the opponent's (one entry per square), value ``tanh(weights . lead)`` and prior
    ``softmax(logits + [lead, 0])``."""
    weights, logits = np.asarray(weights, dtype=np.float64), np.asarray(logits, dtype=np.float64)

    def predict(state):
        planes = game.encode(state)
        lead = (planes[0] - planes[1]).ravel().astype(np.float64)
        z = logits + np.append(lead, 0.0)
        z = np.exp(z - z.max())
        return z / z.sum(), float(np.tanh(weights @ lead))
    return predict


def position(case, game=None):
    game = game or game_of(len(case["board"]))
    return game, game.from_board(case["board"], int(case["player"]))


def _int_or_text(result):
    if isinstance(result, (int, np.integer)) and not isinstance(result, (bool, np.bool_)):
        return int(result)
    return f"returned {short(result)}"


def _float_or_text(result):
    if isinstance(result, (float, int, np.floating, np.integer)) and not isinstance(result, (bool, np.bool_)):
        value = float(result)
        return value if np.isfinite(value) else f"returned {value}"
    if isinstance(result, np.ndarray) and result.shape == ():
        return _float_or_text(result[()])
    return f"returned {short(result)}"


def probe_flips(fn, cases: list) -> list:
    """{"squares": the squares returned, sorted [[r, c], ...], or what came back; "changed": board changed}."""
    outputs = []
    for case in cases:
        board = case["board"].copy()
        try:
            result = fn(board, int(case["row"]), int(case["col"]), int(case["colour"]))
        except Exception as exc:  # the student's error is data for the judge
            squares = f"raises {error_of(exc)}"
        else:
            try:
                squares = sorted([int(r), int(c)] for r, c in result)
            except Exception:  # not a list of (row, col) pairs
                squares = f"returned {short(result)}"
        outputs.append({"squares": squares, "changed": bool(not np.array_equal(board, case["board"]))})
    return outputs


def probe_legal_moves(fn, cases: list) -> list:
    """{"mask": the bool mask as a list, or what came back; "changed": whether the board was changed}."""
    outputs = []
    for case in cases:
        board = case["board"].copy()
        size = board.shape[0] ** 2 + 1
        try:
            result = fn(board, int(case["colour"]))
            array = np.asarray(result)
            mask = (array.tolist() if array.dtype == np.bool_ and array.shape == (size,)
                    else f"returned an array of {array.dtype}, shape {array.shape} (expected bool, ({size},))")
        except Exception as exc:
            mask = f"raises {error_of(exc)}"
        outputs.append({"mask": mask, "changed": bool(not np.array_equal(board, case["board"]))})
    return outputs


def probe_state_value(fn, cases: list) -> list:
    def run_one(case):
        game, state = position(case)
        return _float_or_text(fn(game, state, int(case["viewer"]), fake_network(game, case["weights"], case["logits"])))
    return probe_each(cases, run_one)


def probe_value_move(fn, cases: list) -> list:
    with replaced(fn, state_value=value_for):
        def run_one(case):
            game, state = position(case)
            return _int_or_text(fn(game, state, fake_network(game, case["weights"], case["logits"])))
        return probe_each(cases, run_one)


def probe_rollout_value(fn, cases: list) -> list:
    """{"value", "moves": the actions played with game.next_state, "next_draw": the generator's next
    uniform draw afterwards}."""
    outputs = []
    with replaced(fn, state_value=value_for):
        for case in cases:
            game = LoggingOthello(len(case["board"]))
            _, state = position(case, game)
            rng = np.random.default_rng(int(case["seed"]))
            try:
                value = _float_or_text(fn(game, state, int(case["viewer"]),
                                         fake_network(game, case["weights"], case["logits"]), int(case["depth"]), rng))
            except Exception as exc:
                value = f"raises {error_of(exc)}"
            outputs.append({"value": value, "moves": game.played[:200], "next_draw": float(rng.random())})
    return outputs


def rollout_spy(game, state, seed: int, tie: bool, calls: list, rng):
    """A stand-in for rollout_value: notes [what the rollout started from, player, depth, whether it got
    the generator given] and answers a value drawn from (seed, start position, how many times asked)."""
    starts = {game.state_key(game.next_state(state, int(a))): int(a) for a in np.flatnonzero(game.legal_mask(state))}
    current, asked = game.state_key(state), {}

    def fake(game_, start, player, predict, depth, rng_):
        key = game.state_key(start)
        where = starts.get(key, -2 if key == current else -1)
        calls.append([where, int(player) if isinstance(player, (int, np.integer)) else -1,
                      int(depth) if isinstance(depth, (int, np.integer)) else -1, int(rng_ is rng)])
        if len(calls) > 5_000:
            raise RuntimeError("rollout_value was called more than 5,000 times")
        asked[key] = asked.get(key, 0) + 1
        if tie:
            return 0.25
        return float(np.random.default_rng([seed, key[0], key[1], key[2], asked[key]]).uniform(-1, 1))
    return fake


def probe_monte_carlo_move(fn, cases: list) -> list:
    """{"action": the move returned, "calls": the rollout_value calls noted by the spy, sorted}."""
    outputs = []
    for case in cases:
        game, state = position(case)
        rng, calls = np.random.default_rng(int(case["seed"])), []
        with replaced(fn, rollout_value=rollout_spy(game, state, int(case["seed"]), bool(case["tie"]), calls, rng)):
            try:
                action = _int_or_text(fn(game, state, fake_network(game, case["weights"], case["logits"]), rng,
                                         int(case["top_k"]), int(case["rollouts"]), int(case["depth"])))
            except Exception as exc:
                action = f"raises {error_of(exc)}"
        outputs.append({"action": action, "calls": sorted(calls)[:5_000]})
    return outputs


def walk(node, path=(), limit=400) -> list:
    """[path, [[action, N, W] of the visited edges], expanded] of every node under `node`, depth first by
    action; the actions on the path from the root first."""
    rows, todo = [], [(node, list(path))]
    while todo and len(rows) < limit:
        current, route = todo.pop()
        N, W = np.asarray(current.N), np.asarray(current.W, dtype=np.float64)
        edges = [[int(a), int(N[a]), float(W[a])] for a in np.flatnonzero(N)]
        rows.append([route, edges, bool(getattr(current, "P", None) is not None)])
        children = getattr(current, "children", {}) or {}
        for action in sorted(children, reverse=True):
            todo.append((children[action], route + [int(action)]))
    return rows


def probe_simulate(fn, cases: list) -> list:
    """{"steps": the root's visited edges [[action, N, W], ...] after each simulation, "tree": ``walk`` of
    the whole tree at the end}; or the error raised."""
    def run_one(case):
        game, state = position(case)
        node_class = provided(fn, "Node")
        root = node_class(game, state)
        predict = fake_network(game, case["weights"], case["logits"])
        steps = []
        for _ in range(int(case["simulations"])):
            fn(root, game, predict, float(case["c_puct"]))
            N, W = np.asarray(root.N), np.asarray(root.W, dtype=np.float64)
            steps.append([[int(a), int(N[a]), float(W[a])] for a in np.flatnonzero(N)])
        return {"steps": steps, "tree": walk(root)}
    return probe_each(cases, run_one)


def search_spy(order, calls: list):
    """A stand-in for simulate: notes each call and adds one visit to the root edge order[k] at call k."""
    def fake(root, game, predict, c_puct):
        calls.append((root, c_puct))
        if len(calls) > 5_000:
            raise RuntimeError("simulate was called more than 5,000 times")
        root.N[int(order[(len(calls) - 1) % len(order)])] += 1
    return fake


def probe_mcts_move(fn, cases: list) -> list:
    """{"action", "calls": simulate calls, "roots": distinct roots searched, "root_right": whether every
    root held the state given, "c_right": whether every call got the c_puct given}."""
    outputs = []
    for case in cases:
        game, state = position(case)
        calls = []
        with replaced(fn, simulate=search_spy(case["order"], calls)):
            try:
                action = _int_or_text(fn(game, state, fake_network(game, case["weights"], case["logits"]),
                                         int(case["simulations"]), float(case["c_puct"])))
            except Exception as exc:
                action = f"raises {error_of(exc)}"
        roots = {id(root): root for root, _ in calls}
        outputs.append({"action": action, "calls": len(calls), "roots": len(roots),
                        "root_right": all(getattr(root, "state", None) == state for root in roots.values()),
                        "c_right": all(c == float(case["c_puct"]) for _, c in calls)})
    return outputs


def probe_win_rate_interval(fn, cases: list) -> list:
    def run_one(case):
        result = fn(int(case["wins"]), int(case["draws"]), int(case["losses"]))
        if not (isinstance(result, (tuple, list)) and len(result) == 3):
            return f"returned {short(result)} (expected a tuple (rate, lo, hi))"
        values = [_float_or_text(v) for v in result]
        return values if all(isinstance(v, float) for v in values) else f"returned {short(result)}"
    return probe_each(cases, run_one)


PROBES = {"flips": probe_flips, "legal_moves": probe_legal_moves, "state_value": probe_state_value,
          "value_move": probe_value_move, "rollout_value": probe_rollout_value,
          "monte_carlo_move": probe_monte_carlo_move, "simulate": probe_simulate, "mcts_move": probe_mcts_move,
          "win_rate_interval": probe_win_rate_interval}
