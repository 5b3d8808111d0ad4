"""Hidden tests of part 5 (Othello planning): cases, data shapes and judges (see ``ttt1_mcts/checks.py``).

The probes are in ``othello5_planning/probes.py``, the only part of these tests that enters the sandbox;
the reference is ``assignments/othello5_planning/othello5_planning.ipynb``. The networks of the cases are
small deterministic stand-ins (``probes.fake_network``), so the judges can compare every number.
"""
import math

import numpy as np

from azcourse.core.planners import value_for
from azcourse.othello.game import Othello

from ..._probe_util import short
from ..._report import compare_all, failure, indent
from ...probe_schema import REF, Bool, Either, Int, ListOf, Num, Record, Str, per_case
from ...probes import run_check
from .probes import PROBES, fake_network

SEED = 20261125
REFERENCE = ("othello5_planning", "othello5_planning")  # (assignment, notebook) of the reference solution
# The course pack's helpers that do a graded function's whole job: a solution reaching one is flagged.
FORBIDDEN_HELPERS = {
    "legal_moves": {"legal_mask", "placing_moves", "from_board"},
    "state_value": {"value_for"},
    "value_move": {"ValueAgent", "value_for"},
    "rollout_value": {"MonteCarloAgent", "value_for"},
    "monte_carlo_move": {"MonteCarloAgent", "action_values"},
    "simulate": {"MCTS", "MCTSAgent", "AlphaZeroAgent", "_simulate"},
    "mcts_move": {"MCTS", "MCTSAgent", "AlphaZeroAgent", "shipped_agent"},
    "win_rate_interval": {"wilson_interval", "MatchSummary", "proportion_confint"},
}
Z = 1.96


# ---------------------------------------------------------------- positions and their descriptions

def board_code(board) -> str:
    """The board as the notebook's board_from_rows(...) call (paste it into a cell to try)."""
    rows = ", ".join(f'"{"".join(".XO"[v] for v in row)}"' for row in np.asarray(board).tolist())
    return f"board_from_rows({rows})"


def board_block(board) -> str:
    rows = "\n".join(" ".join(".XO"[v] for v in row) for row in np.asarray(board).tolist())
    return f"{indent(rows)}\n    as code: {board_code(board)}"


def square_name(action: int, n: int) -> str:
    return "pass" if action == n * n else f"{'abcdefgh'[action % n]}{action // n + 1}"


def names(actions, n: int) -> list:
    return [square_name(int(a), n) for a in actions]


def random_game(size: int, rng: np.random.Generator, stop: float = 0.0) -> list:
    """The states of one random game (each move uniformly random), from the start to the end, or until
    a draw below `stop` ends it early."""
    game = Othello(size)
    state = game.initial_state()
    states = [state]
    while not game.is_terminal(state) and rng.random() >= stop:
        legal = np.flatnonzero(game.legal_mask(state))
        state = game.next_state(state, int(legal[rng.integers(len(legal))]))
        states.append(state)
    return states


def as_case(game: Othello, state) -> dict:
    return {"board": game.board(state).astype(np.int8), "player": int(state.player)}


def network(rng: np.random.Generator, size: int, kind: int) -> dict:
    """Weights of a stand-in network: ordinary, flat (every value 0: ties everywhere), or strong."""
    scale = (0.3, 0.0, 1.5)[kind % 3]
    return {"weights": rng.normal(0, scale, size * size), "logits": rng.normal(0, 1.0, size * size + 1)}


def state_of(case):
    game = Othello(len(case["board"]))
    return game, game.from_board(case["board"], int(case["player"]))


def position_text(case) -> str:
    game, state = state_of(case)
    legal = names(np.flatnonzero(game.legal_mask(state)), game.size)
    mover = ("black (X, player 0)", "white (O, player 1)")[state.player]
    over = "the game is over" if state.over else f"{mover} to move, legal: {legal}"
    return f"{board_block(case['board'])}\n  {over}"


def refuse_changed_input(function: str, cases: list, outputs: list, advice: str) -> None:
    changed = [i for i, got in enumerate(outputs) if got["changed"]]
    if changed:
        raise failure(function, len(changed), len(cases),
                      f"{board_block(cases[changed[0]]['board'])}\n  {function} changed {advice}")


# ---------------------------------------------------------------- flips

def _edge_boards() -> list:
    """Hand-made lines of every kind on 6x6 and 8x8: to the edge, broken, long, diagonal."""
    cases = []
    for n in (6, 8):
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1)):
            for length in range(1, n - 1):
                for ending in ("own", "empty", "edge"):
                    board = np.zeros((n, n), dtype=np.int8)
                    row = 0 if dr == 1 else n - 1 if dr == -1 else n // 2
                    col = 0 if dc == 1 else n - 1 if dc == -1 else n // 2
                    r, c = row + dr, col + dc
                    steps = 0
                    while 0 <= r < n and 0 <= c < n and steps < length:
                        board[r, c] = 2
                        r, c, steps = r + dr, c + dc, steps + 1
                    if ending == "own" and 0 <= r < n and 0 <= c < n:
                        board[r, c] = 1
                    elif ending == "empty" and 0 <= r + dr < n and 0 <= c + dc < n:
                        board[r + dr, c + dc] = 1  # a gap, then the mover's disc
                    elif ending == "edge" and (0 <= r < n and 0 <= c < n):
                        continue
                    cases.append({"board": board, "row": row, "col": col, "colour": 1})
                    cases.append({"board": np.where(board == 0, 0, 3 - board).astype(np.int8), "row": row,
                                  "col": col, "colour": 2})
    return cases


def cases_flips() -> list:
    """Lines to the edge, broken and long lines on 6x6 and 8x8, and empty squares of random games on 4x4,
    6x6 and 8x8 (both colours, flipping or not)."""
    rng = np.random.default_rng(SEED)
    cases = _edge_boards()
    for k in range(150):
        size = (4, 6, 8)[k % 3]
        game = Othello(size)
        states = random_game(size, rng)
        state = states[int(rng.integers(len(states)))]
        board = game.board(state).astype(np.int8)
        empty = np.argwhere(board == 0)
        for r, c in empty[rng.permutation(len(empty))[:4]]:
            cases.append({"board": board, "row": int(r), "col": int(c), "colour": int(rng.integers(1, 3))})
    return cases


def engine_flips(case) -> list:
    game = Othello(len(case["board"]))
    own, opponent = game.discs(game.from_board(case["board"], int(case["colour"]) - 1))
    bits = game.flips(own, opponent, int(case["row"]) * game.size + int(case["col"]))
    return sorted([s // game.size, s % game.size] for s in range(game.size ** 2) if bits >> s & 1)


def judge_flips(cases: list, expected: list, outputs: list) -> None:
    refuse_changed_input("flips", cases, outputs, "the board it was given: find the flips without placing discs")

    def describe(case):
        n = len(case["board"])
        return (f"{board_block(case['board'])}\n  flips(board, {case['row']}, {case['col']}, {case['colour']}): "
                f"a {'black' if case['colour'] == 1 else 'white'} disc on {square_name(case['row'] * n + case['col'], n)}"
                "\n  (the squares are shown as sorted [row, col] pairs)")
    compare_all("flips", cases, [e["squares"] for e in expected], [g["squares"] for g in outputs],
                lambda e, g: e == g, describe)


def check_flips(fn) -> None:
    run_check(__name__, "flips", fn)


# ---------------------------------------------------------------- legal_moves

def cases_legal_moves() -> list:
    """Positions of random games on 4x4, 6x6 and 8x8 for either colour: openings, middle games, forced
    passes, finished games with empty squares and full boards."""
    rng = np.random.default_rng(SEED + 1)
    cases, passes, ends = [], [], []
    for k in range(240):
        size = (4, 6, 8, 4)[k % 4]
        game = Othello(size)
        states = random_game(size, rng)
        for state in states:
            if not state.over and not state.moves and len(passes) < 60:
                passes.append(as_case(game, state))
        ends.append(as_case(game, states[-1]))
        state = states[int(rng.integers(len(states)))]
        cases.append({"board": game.board(state).astype(np.int8),
                      "colour": int(state.player) + 1 if k % 5 else 2 - int(state.player)})
    cases += [{"board": c["board"], "colour": c["player"] + 1} for c in passes]
    cases += [{"board": c["board"], "colour": 2 - c["player"]} for c in passes[:20]]
    cases += [{"board": c["board"], "colour": 1 + i % 2} for i, c in enumerate(ends[:60])]
    return cases


def judge_legal_moves(cases: list, expected: list, outputs: list) -> None:
    refuse_changed_input("legal_moves", cases, outputs, "the board it was given")
    bad = [i for i, (e, g) in enumerate(zip(expected, outputs)) if e["mask"] != g["mask"]]
    if bad:
        i = bad[0]
        case, want, got = cases[i], expected[i]["mask"], outputs[i]["mask"]
        n = len(case["board"])
        shown = names(np.flatnonzero(got), n) if isinstance(got, list) else short(got)
        rule = ""
        if isinstance(got, list) and want[-1] != got[-1]:
            rule = ("\n  the pass is legal exactly when the mover has no placing move but the opponent has one "
                    "(when neither has, the game is over: nothing is legal)")
        raise failure("legal_moves", len(bad), len(cases),
                      f"{board_block(case['board'])}\n  legal_moves(board, {case['colour']}) "
                      f"({'black' if case['colour'] == 1 else 'white'} to move)\n"
                      f"  expected the legal actions {names(np.flatnonzero(want), n)}\n  got:      {shown}{rule}")


def check_legal_moves(fn) -> None:
    run_check(__name__, "legal_moves", fn)


# ---------------------------------------------------------------- state_value

def cases_state_value() -> list:
    """Unfinished positions (either player's view) and finished ones: wins, losses and draws."""
    rng = np.random.default_rng(SEED + 2)
    cases, draws = [], 0
    for k in range(160):
        size = (6, 4)[k % 2]
        game = Othello(size)
        states = random_game(size, rng)
        picks = [states[-1], states[int(rng.integers(len(states)))]]
        if game.returns(states[-1])[0] == 0:
            draws += 1
        for state in picks:
            cases.append({**as_case(game, state), "viewer": int(rng.integers(2)), **network(rng, size, k)})
    full = np.where(np.arange(36).reshape(6, 6) % 2, 1, 2).astype(np.int8)  # a drawn full board
    for viewer in (0, 1):
        cases.append({"board": full, "player": viewer, "viewer": viewer, **network(rng, 6, 0)})
    assert draws >= 3, "the cases must hold drawn games"
    return cases


def judge_state_value(cases: list, expected: list, outputs: list) -> None:
    bad = [i for i, (e, g) in enumerate(zip(expected, outputs))
           if not (isinstance(g, float) and isinstance(e, float) and abs(e - g) <= 1e-9)]
    if bad:
        i = bad[0]
        case, want, got = cases[i], expected[i], outputs[i]
        game, state = state_of(case)
        net = fake_network(game, case["weights"], case["logits"])(state)[1]
        hint = ""
        if isinstance(got, float):
            if state.over and game.returns(state)[0] == 0 and got == -1:
                hint = "\n  a draw is worth 0 to both players, not a loss"
            elif state.over and abs(abs(got) - abs(net)) < 1e-9:
                hint = "\n  that is the network's guess: a finished game is worth its result, game.returns(state)"
            elif abs(got + want) < 1e-9:
                hint = ("\n  the sign is wrong: the network's value belongs to the player to move "
                        f"({state.player}); for player {case['viewer']} it is {'the same' if state.player == case['viewer'] else 'its negative'}")
        raise failure("state_value", len(bad), len(cases),
                      f"{position_text(case)}\n  state_value(game, state, player={case['viewer']}, predict) "
                      f"where predict(state) gives the value {net:+.6f} (for the player to move)\n"
                      f"  expected: {want!r}\n  got:      {short(got)}{hint}")


def check_state_value(fn) -> None:
    run_check(__name__, "state_value", fn)


# ---------------------------------------------------------------- value_move

def cases_value_move() -> list:
    """Unfinished positions of random 6x6 and 4x4 games (forced passes, moves that end the game), with
    ordinary, flat (all values equal: ties) and strong stand-in networks."""
    rng = np.random.default_rng(SEED + 3)
    cases = []
    for k in range(150):
        size = (6, 6, 4)[k % 3]
        game = Othello(size)
        states = [s for s in random_game(size, rng) if not s.over]
        near_end = [s for s in states if any(game.next_state(s, int(a)).over for a in np.flatnonzero(game.legal_mask(s)))]
        passes = [s for s in states if not s.moves]
        pool = near_end if k % 4 == 1 and near_end else passes if k % 10 == 3 and passes else states
        cases.append({**as_case(game, pool[int(rng.integers(len(pool)))]), **network(rng, size, k)})
    return cases


def move_values(case) -> dict:
    """{action: value for the mover of the position after it} with the case's stand-in network."""
    game, state = state_of(case)
    predict = fake_network(game, case["weights"], case["logits"])
    return {int(a): value_for(game, game.next_state(state, int(a)), state.player, predict)
            for a in np.flatnonzero(game.legal_mask(state))}


def judge_value_move(cases: list, expected: list, outputs: list) -> None:
    bad = [i for i, (e, g) in enumerate(zip(expected, outputs)) if e != g]
    if bad:
        i = bad[0]
        case, want, got = cases[i], expected[i], outputs[i]
        n = len(case["board"])
        values = move_values(case)
        table = ", ".join(f"{square_name(a, n)} {v:+.4f}" for a, v in values.items())
        hint = ""
        if isinstance(got, int) and got in values and values[got] == min(values.values()) and len(set(values.values())) > 1:
            hint = ("\n  that is the move worth least to the mover: the value of the next position belongs to the "
                    "player to move there (the opponent); turn it to the mover's view (state_value)")
        elif isinstance(got, int) and got in values and values[got] == values[want]:
            hint = "\n  equal values: ties go to the lowest action index"
        elif isinstance(got, int) and got not in values:
            hint = "\n  that action is not legal"
        raise failure("value_move", len(bad), len(cases),
                      f"{position_text(case)}\n  values for the mover after each legal move (state_value of "
                      f"the next position): {table}\n  expected: {square_name(want, n)} (action {want})\n"
                      f"  got:      {square_name(got, n) + f' (action {got})' if isinstance(got, int) else short(got)}{hint}")


def check_value_move(fn) -> None:
    run_check(__name__, "value_move", fn)


# ---------------------------------------------------------------- rollout_value

def cases_rollout_value() -> list:
    """Positions of random games (some finished), depths 0-8 and to the end, either player's view."""
    rng = np.random.default_rng(SEED + 4)
    cases = []
    for k in range(90):
        size = (6, 6, 4)[k % 3]
        game = Othello(size)
        states = random_game(size, rng)
        state = states[-1] if k % 15 == 7 else states[int(rng.integers(max(1, len(states) - 3)))]
        depth = 60 if k % 6 == 5 else int(rng.integers(0, 9))
        cases.append({**as_case(game, state), "viewer": int(rng.integers(2)), "depth": depth,
                      "seed": int(SEED + k), **network(rng, size, k)})
    return cases


def judge_rollout_value(cases: list, expected: list, outputs: list) -> None:
    bad = []
    for i, (want, got) in enumerate(zip(expected, outputs)):
        if got["moves"] != want["moves"]:
            k = next((m for m, (a, b) in enumerate(zip(got["moves"], want["moves"])) if a != b),
                     min(len(got["moves"]), len(want["moves"])))
            problem = (f"the moves played differ from move {k + 1} on: expected {want['moves']}, got {got['moves']}"
                       f"\n  (at most depth moves, fewer if the game ends; each drawn with one "
                       "rng.choice(len(prior), p=prior), prior = legal_prior(game, state, predict))")
        elif isinstance(want["value"], float) and isinstance(got["value"], float) and abs(want["value"] - got["value"]) <= 1e-9:
            problem = None if abs(got["next_draw"] - want["next_draw"]) <= 1e-12 else (
                "the moves and the value are right, but the generator was used differently: draw each move with "
                "exactly one rng.choice(len(prior), p=prior), and nothing else from rng")
        else:
            problem = f"the moves are right, but the value differs: expected {want['value']!r}, got {short(got['value'])}"
            if isinstance(got["value"], float) and isinstance(want["value"], float):
                if abs(got["value"] + want["value"]) <= 1e-9:
                    problem += ("\n  the sign is wrong: the value is for `player`, whoever is to move where the "
                                "rollout stops")
                elif want["value"] == 0 and got["value"] == -1:
                    problem += "\n  the rollout ended in a draw: a draw is worth 0, not a loss"
        if problem:
            bad.append((i, problem))
    if bad:
        i, problem = bad[0]
        case = cases[i]
        raise failure("rollout_value", len(bad), len(cases),
                      f"{position_text(case)}\n  rollout_value(game, state, player={case['viewer']}, predict, "
                      f"depth={case['depth']}, np.random.default_rng({case['seed']})) with a stand-in network\n"
                      f"  {problem}")


def check_rollout_value(fn) -> None:
    run_check(__name__, "rollout_value", fn)


# ---------------------------------------------------------------- monte_carlo_move

def cases_monte_carlo_move() -> list:
    rng = np.random.default_rng(SEED + 5)
    cases = []
    for k in range(60):
        size = (6, 6, 4)[k % 3]
        game = Othello(size)
        states = [s for s in random_game(size, rng) if not s.over]
        state = states[int(rng.integers(len(states)))]
        cases.append({**as_case(game, state), **network(rng, size, 0 if k % 2 else 2), "seed": int(SEED + 100 + k),
                      "top_k": int(rng.integers(1, 6)), "rollouts": int(rng.integers(1, 7)),
                      "depth": int(rng.integers(0, 6)), "tie": k % 10 == 4})
    return cases


def _candidates(case) -> list:
    game, state = state_of(case)
    predict = fake_network(game, case["weights"], case["logits"])
    mask = game.legal_mask(state)
    prior = np.where(mask, predict(state)[0], 0.0)
    prior = prior / prior.sum()
    return sorted(np.flatnonzero(mask).tolist(), key=lambda a: (-prior[a], a))[:case["top_k"]]


def judge_monte_carlo_move(cases: list, expected: list, outputs: list) -> None:
    bad = []
    for i, (case, want, got) in enumerate(zip(cases, expected, outputs)):
        game, state = state_of(case)
        n = game.size
        where = lambda a: "the current position" if a == -2 else "elsewhere" if a == -1 else f"after {square_name(a, n)}"  # noqa: E731
        if got["calls"] == want["calls"]:
            problem = None if got["action"] == want["action"] else (
                f"the rollouts were right, but the move returned is {square_name(got['action'], n) if isinstance(got['action'], int) else short(got['action'])}, "
                f"expected {square_name(want['action'], n)}: the candidate with the highest mean rollout value "
                "(ties: the earlier candidate, the more probable move)")
        elif any(c[0] == -2 for c in got["calls"]):
            problem = ("rollouts started from the current position, before the candidate was played: each must "
                       "start from game.next_state(state, candidate), or every candidate gets the same rollouts")
        else:
            want_starts = sorted({c[0] for c in want["calls"]})
            got_starts = sorted({c[0] for c in got["calls"]})
            if want_starts != got_starts:
                problem = (f"the rollouts started {[where(a) for a in got_starts]}; the candidates are the top_k = "
                           f"{case['top_k']} legal moves by legal_prior: {names(want_starts, n)}")
            elif {c[1] for c in got["calls"]} != {state.player}:
                problem = (f"the rollouts took the view of player(s) {sorted({c[1] for c in got['calls']})}: the view "
                           f"is the player to move in state ({state.player}), not the one to move after the candidate")
            elif {c[2] for c in got["calls"]} != {case["depth"]}:
                problem = f"the rollouts got the depths {sorted({c[2] for c in got['calls']})}, not depth = {case['depth']}"
            elif any(c[3] == 0 for c in got["calls"]):
                problem = "pass the generator rng given to every rollout_value call"
            else:
                problem = (f"rollout_value was called {len(got['calls'])} times, expected {len(want['calls'])}: "
                           f"rollouts = {case['rollouts']} for each of the {len(want_starts)} candidates")
        if problem:
            bad.append((i, problem))
    if bad:
        i, problem = bad[0]
        case = cases[i]
        raise failure("monte_carlo_move", len(bad), len(cases),
                      f"{position_text(case)}\n  monte_carlo_move(game, state, predict, rng, top_k={case['top_k']}, "
                      f"rollouts={case['rollouts']}, depth={case['depth']}) with a stand-in network, and rollout_value "
                      f"replaced by a spy that notes its calls\n  {problem}")


def check_monte_carlo_move(fn) -> None:
    run_check(__name__, "monte_carlo_move", fn)


# ---------------------------------------------------------------- simulate

def cases_simulate() -> list:
    """The start, middle games, positions near the end (finished games inside the tree) and forced
    passes; c_puct from 0 to 3; 1 to 30 simulations."""
    rng = np.random.default_rng(SEED + 6)
    cases = []
    for k in range(40):
        size = (6, 6, 4, 6)[k % 4]
        game = Othello(size)
        states = [s for s in random_game(size, rng) if not s.over]
        if k == 0:
            state = states[0]
        elif k % 5 == 2:
            state = states[max(0, len(states) - 1 - int(rng.integers(0, 4)))]  # near the end
        else:
            passes = [s for s in states if not s.moves]
            state = passes[0] if k % 9 == 4 and passes else states[int(rng.integers(len(states)))]
        cases.append({**as_case(game, state), **network(rng, size, k), "c_puct": float((0.0, 0.5, 1.5, 3.0)[k % 4]),
                      "simulations": int(rng.integers(1, 31)) if k > 3 else k + 1})
    return cases


def _edges_same(want, got) -> bool:
    return (isinstance(got, list) and len(got) == len(want)
            and all(a[0] == b[0] and a[1] == b[1] and abs(a[2] - b[2]) <= 1e-6 for a, b in zip(want, got)))


def judge_simulate(cases: list, expected: list, outputs: list) -> None:
    bad = []
    for i, (case, want, got) in enumerate(zip(cases, expected, outputs)):
        n = len(case["board"])
        show = lambda edges: ", ".join(f"{square_name(a, n)}: N={c} W={w:+.4f}" for a, c, w in edges) or "no visit"  # noqa: E731
        if isinstance(got, str) or isinstance(want, str):
            if got != want:
                bad.append((i, f"expected the tree to grow, but simulate {got}"))
            continue
        step = next((k for k, (a, b) in enumerate(zip(want["steps"], got["steps"])) if not _edges_same(a, b)), None)
        if step is not None:
            before = want["steps"][step - 1] if step else []
            problem = (f"after simulation {step + 1} the root's edges differ\n  before it: {show(before)}\n"
                       f"  expected: {show(want['steps'][step])}\n  got:      {show(got['steps'][step])}")
            w, g = want["steps"][step], got["steps"][step]
            if step == 0 and not w and g:
                problem += "\n  the first simulation of a new root only expands it (root.P): no edge is visited"
            elif [e[:2] for e in w] == [e[:2] for e in g] and all(abs(a[2] + b[2]) <= 1e-6 for a, b in zip(w, g)):
                problem += ("\n  the values have the wrong sign: W(s, a) adds the leaf's value seen from the player to "
                            "move at s (value where that is the leaf's player to move, -value otherwise)")
            else:
                problem += ("\n  (select: the legal action maximising Q + c_puct P sqrt(1 + sum N) / (1 + N), ties to "
                            "the lowest index; expand: P = legal_prior; back up: N + 1 and the value seen from each "
                            "node's player)")
            bad.append((i, problem))
            continue
        if len(got["tree"]) != len(want["tree"]) or any(
                a[0] != b[0] or a[2] != b[2] or not _edges_same(a[1], b[1]) for a, b in zip(want["tree"], got["tree"])):
            k = next((k for k, (a, b) in enumerate(zip(want["tree"], got["tree"]))
                      if a[0] != b[0] or a[2] != b[2] or not _edges_same(a[1], b[1])),
                     min(len(want["tree"]), len(got["tree"])))
            path = want["tree"][k][0] if k < len(want["tree"]) else got["tree"][k][0]
            wnode = want["tree"][k] if k < len(want["tree"]) else None
            gnode = got["tree"][k] if k < len(got["tree"]) else None
            text = lambda node: "(absent)" if node is None else f"path {names(node[0], n)}, expanded: {node[2]}, edges: {show(node[1])}"  # noqa: E731
            bad.append((i, f"the root is right after every simulation, but the tree below it differs at the node "
                           f"reached by {names(path, n)}\n  expected: {text(wnode)}\n  got:      {text(gnode)}\n"
                           "  (every node on the path adds N + 1 and its own player's value; a node reached is added "
                           "to its parent's children and expanded, unless the game is over there)"))
    if bad:
        i, problem = bad[0]
        case = cases[i]
        raise failure("simulate", len(bad), len(cases),
                      f"{position_text(case)}\n  {case['simulations']} calls simulate(root, game, predict, "
                      f"c_puct={case['c_puct']}) on root = Node(game, state), with a stand-in network\n  {problem}")


def check_simulate(fn) -> None:
    run_check(__name__, "simulate", fn)


# ---------------------------------------------------------------- mcts_move

def cases_mcts_move() -> list:
    """Positions with a spy's visit orders: a clear favourite, ties, visits on illegal actions, no visit."""
    rng = np.random.default_rng(SEED + 7)
    cases = []
    for k in range(60):
        size = (6, 4)[k % 2]
        game = Othello(size)
        states = [s for s in random_game(size, rng) if not s.over]
        state = states[int(rng.integers(len(states)))]
        legal = np.flatnonzero(game.legal_mask(state))
        pool = legal if k % 3 else np.arange(size * size + 1)  # some visits go to illegal actions
        order = rng.choice(pool, size=int(rng.integers(1, 6)))
        cases.append({**as_case(game, state), **network(rng, size, k), "order": order.astype(np.int64),
                      "simulations": 0 if k % 17 == 5 else int(rng.integers(1, 13)),
                      "c_puct": float(np.round(rng.uniform(0.5, 3.0), 2))})
    return cases


def judge_mcts_move(cases: list, expected: list, outputs: list) -> None:
    bad = []
    for i, (case, want, got) in enumerate(zip(cases, expected, outputs)):
        n = len(case["board"])
        if got["calls"] != case["simulations"]:
            problem = f"simulate was called {got['calls']} times, expected simulations = {case['simulations']}"
        elif got["roots"] > 1 or not got["root_right"]:
            problem = "every simulation must run on one root, Node(game, state), made for this move"
        elif not got["c_right"]:
            problem = f"pass c_puct = {case['c_puct']} to simulate"
        elif got["action"] != want["action"]:
            problem = (f"expected {square_name(want['action'], n)} (action {want['action']}), got "
                       f"{square_name(got['action'], n) + ' (action ' + str(got['action']) + ')' if isinstance(got['action'], int) else short(got['action'])}"
                       ": the legal action with the most root visits, ties (and no visit at all) to the lowest index")
        else:
            continue
        bad.append((i, problem))
    if bad:
        i, problem = bad[0]
        case = cases[i]
        n = len(case["board"])
        visits = {}
        for k in range(case["simulations"]):
            a = int(case["order"][k % len(case["order"])])
            visits[square_name(a, n)] = visits.get(square_name(a, n), 0) + 1
        raise failure("mcts_move", len(bad), len(cases),
                      f"{position_text(case)}\n  mcts_move(game, state, predict, {case['simulations']}, "
                      f"{case['c_puct']}) with simulate replaced by a spy whose calls visit the root edges "
                      f"{visits or 'nothing'}\n  {problem}")


def check_mcts_move(fn) -> None:
    run_check(__name__, "mcts_move", fn)


# ---------------------------------------------------------------- win_rate_interval

def cases_win_rate_interval() -> list:
    rng = np.random.default_rng(SEED + 8)
    cases = [{"wins": w, "draws": d, "losses": l} for w, d, l in
             [(1, 0, 0), (0, 1, 0), (0, 0, 1), (20, 0, 0), (0, 0, 20), (0, 20, 0), (10, 0, 10), (13, 0, 7),
              (9, 2, 9), (3, 5, 12), (400, 0, 0), (281, 23, 96), (1, 1, 1)]]
    for _ in range(60):
        n = int(rng.integers(1, 500))
        w = int(rng.integers(0, n + 1))
        d = int(rng.integers(0, n - w + 1))
        cases.append({"wins": w, "draws": d, "losses": n - w - d})
    return cases


def _wilson(successes: float, n: int):
    p, shrink = successes / n, 1 + Z ** 2 / n
    centre, spread = (p + Z ** 2 / (2 * n)) / shrink, math.sqrt(p * (1 - p) / n + Z ** 2 / (4 * n ** 2))
    return p, max(0.0, centre - Z / shrink * spread), min(1.0, centre + Z / shrink * spread)


def judge_win_rate_interval(cases: list, expected: list, outputs: list) -> None:
    def same(want, got) -> bool:
        return isinstance(got, list) and np.allclose(got, want, rtol=0, atol=1e-4)

    bad = [i for i, (e, g) in enumerate(zip(expected, outputs)) if not same(e, g)]
    if bad:
        i = bad[0]
        case, want, got = cases[i], expected[i], outputs[i]
        w, d, l = case["wins"], case["draws"], case["losses"]
        n = w + d + l
        hint = ""
        if isinstance(got, list):
            p = (w + d / 2) / n
            half = Z * math.sqrt(p * (1 - p) / n)
            slips = {"the draws counted as losses": list(_wilson(w, n)),
                     "the draws left out of the games": list(_wilson(w, w + l)) if w + l else None,
                     "the textbook interval p +- z sqrt(p (1 - p) / n), not Wilson's": [p, max(0.0, p - half), min(1.0, p + half)],
                     "the textbook interval, not Wilson's (and not cut to [0, 1])": [p, p - half, p + half],
                     "the Wilson interval without the cut to [0, 1]": None}
            found = [why for why, value in slips.items() if value is not None and same(value, got)]
            if found:
                hint = f"\n  which is {found[0]}"
        raise failure("win_rate_interval", len(bad), len(cases),
                      f"  win_rate_interval({w}, {d}, {l}): {n} game{'s' if n != 1 else ''}, a draw counting half\n"
                      f"  expected: (rate, lo, hi) = {tuple(round(v, 5) for v in want)}\n  got:      {short(got)}{hint}")


def check_win_rate_interval(fn) -> None:
    run_check(__name__, "win_rate_interval", fn)


JUDGES = {"flips": judge_flips, "legal_moves": judge_legal_moves, "state_value": judge_state_value,
          "value_move": judge_value_move, "rollout_value": judge_rollout_value,
          "monte_carlo_move": judge_monte_carlo_move, "simulate": judge_simulate, "mcts_move": judge_mcts_move,
          "win_rate_interval": judge_win_rate_interval}
INT_OR_TEXT = Either(Int, Str)
FLOAT_OR_TEXT = Either(Num, Str)
EDGES = ListOf(ListOf(Num, 3), max_length=100)
SCHEMAS = {
    "flips": per_case(Record(squares=Either(ListOf(ListOf(Int, 2), max_length=64), Str), changed=Bool)),
    "legal_moves": per_case(Record(mask=Either(ListOf(Bool, REF), Str), changed=Bool)),
    "state_value": per_case(FLOAT_OR_TEXT),
    "value_move": per_case(INT_OR_TEXT),
    "rollout_value": per_case(Record(value=FLOAT_OR_TEXT, moves=ListOf(Int, max_length=200), next_draw=Num)),
    "monte_carlo_move": per_case(Record(action=INT_OR_TEXT, calls=ListOf(ListOf(Int, 4), max_length=5000))),
    "simulate": per_case(Either(Record(steps=ListOf(EDGES, REF), tree=ListOf(ListOf(Either(ListOf(Int, max_length=100), EDGES, Bool), 3), max_length=400)), Str)),
    "mcts_move": per_case(Record(action=INT_OR_TEXT, calls=Int, roots=Int, root_right=Bool, c_right=Bool)),
    "win_rate_interval": per_case(Either(ListOf(Num, 3), Str)),
}
assert set(PROBES) == set(JUDGES) == set(SCHEMAS)
