"""Hidden tests of part 4 (Hex): cases, data shapes and judges (see ``ttt1_mcts/checks.py``).

The probes are in ``hex4_onpolicy/probes.py``, the only part of these tests that enters the sandbox; the
reference is ``assignments/hex4_onpolicy/hex4_onpolicy.ipynb``.
"""
import math

import numpy as np

from azcourse.hex.game import Hex

from ..._probe_util import short
from ..._report import compare_all, failure, indent
from .probes import PROBES
from ...probe_schema import REF, Bool, Either, Int, ListOf, Num, Record, Str, per_case
from ...probes import run_check

SEED = 20261123
REFERENCE = ("hex4_onpolicy", "hex4_onpolicy")  # (assignment, notebook) of the reference solution
SIZES = range(3, 9)
# The course pack's helpers that do a graded function's whole job: a solution reaching one is flagged.
FORBIDDEN_HELPERS = {
    "winner": {"has_chain", "_chain_through", "from_seed_tuple", "board_winner"},
    "legal_distribution": {"probabilities", "legal_mask", "state_policy"},
    "policy_loss": {"masked_log_policy", "cross_entropy", "masked_cross_entropy"},
    "train_step": {"make_train_step"},
    "topp": {"round_robin"},
}


def board_code(board) -> str:
    """The board as the notebook's board_from_rows(...) call (paste it into a cell to try)."""
    rows = ", ".join(f'"{"".join(".XO"[v] for v in row)}"' for row in np.asarray(board).tolist())
    return f"board_from_rows({rows})"


def _board_block(board) -> str:
    rows = "\n".join(" ".join(".XO"[v] for v in row) for row in np.asarray(board).tolist())
    return f"{indent(rows)}\n    as code: {board_code(board)}"


def refuse_changed_input(function: str, cases: list, outputs: list, board_of, advice: str) -> None:
    """Fail `function` at the first case whose probe saw it change an input (outputs' "changed")."""
    changed = [i for i, got in enumerate(outputs) if got["changed"]]
    if changed:
        raise failure(function, len(changed), len(cases),
                      f"{_board_block(board_of(cases[changed[0]]))}\n  {function} changed {advice}")


def played_position(size: int, rng: np.random.Generator, moves: int | None = None, player: int = 1):
    """(board, player to move) after random play from the empty board: `moves` stones, or until the end."""
    game = Hex(size)
    state = game.initial_state()
    if player == 2:
        state = state._replace(player=1)
    limit = size * size if moves is None else moves
    for _ in range(limit):
        if game.is_terminal(state):
            break
        legal = np.flatnonzero(game.legal_mask(state))
        state = game.next_state(state, int(legal[rng.integers(len(legal))]))
    board = np.frombuffer(state.cells, dtype=np.uint8).reshape(size, size).astype(np.int8)
    return board, state.player + 1


# ---------------------------------------------------------------- winner

def _line_boards(size: int) -> list:
    boards = []
    for stone in (1, 2):
        for k in (0, size // 2, size - 1):
            for axis in (0, 1):
                board = np.zeros((size, size), dtype=np.int8)
                if axis == 0:
                    board[k, :] = stone
                else:
                    board[:, k] = stone
                boards.append(board)
        diagonal, anti = np.zeros((size, size), np.int8), np.zeros((size, size), np.int8)
        np.fill_diagonal(diagonal, stone)
        np.fill_diagonal(anti[:, ::-1], stone)
        boards += [diagonal, anti]
        almost = anti.copy()
        almost[size // 2, size - 1 - size // 2] = 0  # one gap in the chain
        boards.append(almost)
    return boards


def cases_winner() -> list:
    """Boards of every size: lines, diagonals, positions of random games (early, late, finished),
    random full boards and random sparse boards."""
    rng = np.random.default_rng(SEED)
    boards = []
    for size in SIZES:
        boards.append(np.zeros((size, size), dtype=np.int8))
        boards += _line_boards(size)
        for k in range(24):
            moves = None if k % 3 == 0 else int(rng.integers(size, size * size))
            boards.append(played_position(size, rng, moves, player=1 + k % 2)[0])
        for _ in range(12):
            stones = np.array([1, 2] * (size * size // 2 + 1))[: size * size]
            boards.append(rng.permutation(stones).reshape(size, size).astype(np.int8))
        for _ in range(8):
            boards.append(rng.choice(np.array([0, 1, 2], dtype=np.int8), size=(size, size), p=[0.3, 0.35, 0.35]))
    return boards


def judge_winner(cases: list, expected: list, outputs: list) -> None:
    refuse_changed_input("winner", cases, outputs, lambda board: board, "the board it was given: work on a copy")

    def describe(board):
        return f"{_board_block(board)}\n  (player 1 = X joins row 1 to the last row, player 2 = O column 1 to the last)"
    compare_all("winner", cases, [e["result"] for e in expected], [g["result"] for g in outputs],
                lambda e, g: e == g, describe)


def check_winner(fn) -> None:
    run_check(__name__, "winner", fn)


# ---------------------------------------------------------------- tree_policy

def cases_tree_policy(n: int = 300) -> list:
    rng = np.random.default_rng(SEED + 1)
    cases = []
    for i in range(n):
        k = int(rng.integers(1, 26))
        N = rng.integers(1, 60, size=k) if i % 4 else rng.integers(0, 4, size=k)
        if i % 10 == 5:
            N[:] = int(rng.integers(1, 9))  # equal visits
        Q = np.where(N > 0, np.round(rng.uniform(-1, 1, size=k), 3), 0.0)
        if i % 10 == 7:
            Q[:] = Q[0]  # an exact tie when the visits are equal too
            N[:] = N[0] or 1
        c = [0.0, 0.5, 1.0, math.sqrt(2), 2.5][i % 5]
        cases.append({"parent_visits": int(1 + N.sum() + (i % 3)), "N": N.astype(np.int64), "Q": Q.astype(np.float64),
                      "player": 1 + (i // 2) % 2, "c": c})
    return cases


def uct_scores(case) -> np.ndarray:
    """The score each edge must maximise: Q + bonus for player 1, -(Q - bonus) for player 2."""
    N, Q = case["N"].astype(float), case["Q"]
    bonus = case["c"] * np.sqrt(math.log(case["parent_visits"]) / N)
    return Q + bonus if case["player"] == 1 else bonus - Q


def _same_edge_before(case, edge: int) -> int | None:
    """The first edge before `edge` with the same N and Q (so the same score by any formula), if any."""
    same = np.flatnonzero((case["N"][:edge] == case["N"][edge]) & (case["Q"][:edge] == case["Q"][edge]))
    return int(same[0]) if len(same) else None


def judge_tree_policy(cases: list, expected: list, outputs: list) -> None:
    def acceptable(case, got) -> bool:
        if not isinstance(got, int) or not 0 <= got < len(case["N"]):
            return False
        untried = np.flatnonzero(case["N"] == 0)
        if len(untried):
            return got == int(untried[0])
        scores = uct_scores(case)
        top = scores.max()
        # equal scores up to rounding: the lowest index among them is expected, any of them accepted; but an
        # edge with the same N and Q as an earlier one ties with it exactly, and the earlier one goes first
        return scores[got] >= top - 1e-9 * (1 + abs(top)) and _same_edge_before(case, got) is None

    bad = [i for i, (case, got) in enumerate(zip(cases, outputs)) if not acceptable(case, got)]
    if bad:
        i = bad[0]
        case, got = cases[i], outputs[i]
        table = [f"edge {a}: N = {int(case['N'][a])}, Q = {case['Q'][a]:+.3f}" for a in range(len(case["N"]))]
        rule = ("an untried edge exists: the first one" if np.any(case["N"] == 0) else
                f"player {case['player']} {'maximises Q + ' if case['player'] == 1 else 'minimises Q - '}"
                f"c * sqrt(ln N(s) / N(s, a))")
        earlier = _same_edge_before(case, got) if isinstance(got, int) and 0 <= got < len(case["N"]) else None
        if earlier is not None and not np.any(case["N"] == 0):
            rule += f"; edges {earlier} and {got} have the same N and Q, so the same score: ties go to the lowest index"
        raise failure("tree_policy", len(bad), len(cases),
                      f"  tree_policy(parent_visits={case['parent_visits']}, N, Q, player={case['player']}, "
                      f"c={case['c']:.4g}) with\n{indent(chr(10).join(table))}\n  rule: {rule}\n"
                      f"  expected: {expected[i]}\n  got:      {short(got)}")


def check_tree_policy(fn) -> None:
    run_check(__name__, "tree_policy", fn)


# ---------------------------------------------------------------- rollout

def cases_rollout() -> list:
    """Positions of every size from 3 to 6 (a few already won), each with a fixed cell order for the policy."""
    rng = np.random.default_rng(SEED + 2)
    cases = []
    for i in range(60):
        size = 3 + i % 4
        if i % 12 == 11:
            board, player = played_position(size, rng, None)  # finished: no move left to play
        else:
            board, player = played_position(size, rng, int(rng.integers(0, size * size // 2)), player=1 + i % 2)
        cases.append({"board": board, "player": player, "order": rng.permutation(size * size).astype(np.int64)})
    return cases


def judge_rollout(cases: list, expected: list, outputs: list) -> None:
    refuse_changed_input("rollout", cases, outputs, lambda case: case["board"],
                         "the board it was given: play on a copy (place returns a new board)")

    def describe(case):
        first = [int(c) for c in case["order"][:12]]
        return (f"{_board_block(case['board'])}\n  player {case['player']} to move; the policy plays the first empty "
                f"cell of the order {first}{' ...' if len(case['order']) > 12 else ''}\n"
                "  (players = the player passed to the policy at each call; stones = stones on the board it was given)")
    compare_all("rollout", cases, expected, outputs, lambda e, g: e == g, describe)


def check_rollout(fn) -> None:
    run_check(__name__, "rollout", fn)


# ---------------------------------------------------------------- legal_distribution

def cases_legal_distribution(n: int = 90) -> list:
    rng = np.random.default_rng(SEED + 3)
    cases = []
    for i in range(n):
        size = 3 + i % 6
        board, _ = played_position(size, rng, int(rng.integers(0, size * size - 1)))
        if not (board == 0).any():
            board.ravel()[rng.integers(size * size)] = 0
        probs = rng.dirichlet(np.full(size * size, [0.3, 1.0, 5.0][i % 3]))
        kind = i % 9
        if kind == 3:
            probs = np.where(board.ravel() == 0, 0.0, probs)  # nothing left on the empty cells
            if probs.sum() == 0:
                probs[0] = 1.0
            probs = probs / probs.sum()
        elif kind == 5:
            probs = np.full(size * size, 1.0 / (size * size))
        elif kind == 7:
            probs = probs * 1e-30  # tiny but not zero
        dtype = np.float32 if i % 2 else np.float64
        cases.append({"board": board, "probs": probs.astype(dtype)})
    return cases


def judge_legal_distribution(cases: list, expected: list, outputs: list) -> None:
    refuse_changed_input("legal_distribution", cases, outputs, lambda case: case["board"],
                         "the probs it was given: work on a new array")

    def describe(case):
        probs = case["probs"]
        empty = case["board"].ravel() == 0
        return (f"{_board_block(case['board'])}\n  probs ({probs.dtype}): {np.round(probs.astype(float), 4).tolist()}\n"
                f"  probability on the empty cells: {float(probs[empty].astype(float).sum()):.6g}")

    def same(want, got) -> bool:
        return isinstance(got, list) and np.allclose(want, got, rtol=1e-6, atol=1e-12)

    taken = [i for i, (case, got) in enumerate(zip(cases, outputs)) if isinstance(got["probs"], list)
             and np.any(np.asarray(got["probs"])[case["board"].ravel() != 0] != 0)]
    if taken:
        raise failure("legal_distribution", len(taken), len(cases),
                      f"{describe(cases[taken[0]])}\n  taken cells must get exactly 0\n"
                      f"  got: {np.round(outputs[taken[0]]['probs'], 4).tolist()}")
    compare_all("legal_distribution", cases, [e["probs"] for e in expected], [g["probs"] for g in outputs], same,
                describe)


def check_legal_distribution(fn) -> None:
    run_check(__name__, "legal_distribution", fn)


# ---------------------------------------------------------------- policy_loss

def _encoded_batch(size: int, batch: int, rng) -> np.ndarray:
    """ANET inputs (``Hex.encode``) of `batch` positions of random games, float32 ``(batch, 2 + 2 size^2)``."""
    game = Hex(size)
    positions = [played_position(size, rng, int(rng.integers(0, size * size - 1))) for _ in range(batch)]
    return np.stack([game.encode(game.from_seed_tuple((player, *board.ravel()))) for board, player in positions])


def _targets(x: np.ndarray, rng, one_hot: bool = False) -> np.ndarray:
    empty = (x[:, 2::2] + x[:, 3::2]) == 0
    target = np.zeros(empty.shape, np.float32)
    for b, row in enumerate(empty):
        cells = np.flatnonzero(row)
        if one_hot:
            target[b, rng.choice(cells)] = 1.0
        else:
            target[b, cells] = rng.dirichlet(np.full(len(cells), 0.5))
    return target


def cases_policy_loss() -> list:
    rng = np.random.default_rng(SEED + 4)
    cases = []
    # Five shapes, each with small and large logits: every new shape costs the kernel XLA compilations.
    for i, (size, batch, scale) in enumerate([(3, 1, 1.0), (3, 7, 3.0), (3, 7, 100.0), (4, 16, 1.0), (4, 16, 0.1),
                                              (5, 24, 10.0), (5, 24, 1.0), (6, 9, 5.0)]):
        x = _encoded_batch(size, batch, rng)
        logits = (rng.normal(size=(batch, size * size)) * scale).astype(np.float32)
        cases.append({"logits": logits, "x": x, "target": _targets(x, rng, one_hot=i % 3 == 2)})
    return cases


def _numpy_losses(case) -> dict:
    """Losses a slip would give, for the diagnosis: the right one and the usual wrong ones."""
    logits, x, target = (case[k].astype(np.float64) for k in ("logits", "x", "target"))
    empty = (x[:, 2::2] + x[:, 3::2]) == 0

    def log_softmax(z):
        z = z - z.max(axis=-1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    masked = log_softmax(np.where(empty, logits, -1e9))
    per_case = -(target * np.where(empty, masked, 0.0)).sum(axis=-1)
    return {"right": per_case.mean(),
            "the softmax over ALL cells (taken cells not left out)": -(target * log_softmax(logits)).sum(-1).mean(),
            "the sum over the batch instead of the mean": per_case.sum(),
            "the mean over the cells too (divided by n^2 once more)": per_case.mean() / empty.shape[1],
            "the loss without its minus sign": -per_case.mean()}


def judge_policy_loss(cases: list, expected: list, outputs: list) -> None:
    def same(want, got) -> bool:
        return isinstance(got, dict) and np.isclose(got["loss"], want["loss"], rtol=1e-4, atol=1e-5)

    bad = [i for i, (want, got) in enumerate(zip(expected, outputs)) if not same(want, got)]
    if bad:
        i = bad[0]
        case, got = cases[i], outputs[i]
        batch, cells = case["logits"].shape
        detail = f"  expected loss: {expected[i]['loss']:.6g}\n  got:           {short(got if isinstance(got, str) else got['loss'])}"
        if isinstance(got, dict):
            slips = [why for why, value in _numpy_losses(case).items()
                     if why != "right" and np.isclose(got["loss"], value, rtol=1e-4, atol=1e-5)]
            if slips:
                detail += f"\n  which is {slips[0]}"
        raise failure("policy_loss", len(bad), len(cases),
                      f"  a batch of {batch} positions on {math.isqrt(cells)}x{math.isqrt(cells)} boards, "
                      f"logits up to {float(np.abs(case['logits']).max()):.3g} in size\n{detail}")
    no_grad = [i for i, got in enumerate(outputs) if isinstance(got["gradient_finite"], str)]
    if no_grad:
        raise failure("policy_loss", len(no_grad), len(cases),
                      "  the loss is right, but jax.grad cannot differentiate it "
                      f"({short(outputs[no_grad[0]]['gradient_finite'])}): compute it with jax.numpy on the "
                      "arrays given, without numpy, float() or .item()")
    nan_grad = [i for i, got in enumerate(outputs) if got["gradient_finite"] is False]
    if nan_grad:
        raise failure("policy_loss", len(nan_grad), len(cases),
                      "  the loss is right, but its gradient with respect to the logits holds nan or inf: keep the "
                      "taken cells out with jnp.where, or give them a large finite negative logit, not -inf")


def check_policy_loss(fn) -> None:
    run_check(__name__, "policy_loss", fn)


# ---------------------------------------------------------------- train_step

TRAIN_CASES = [  # size, hidden, activation, optimizer, learning rate, cases in the buffer, batch size
    (4, (16, 16), "relu", "sgd", 0.3, 40, 16),  # one network shape and batch size where the cases allow it:
    (4, (16, 16), "relu", "adam", 0.01, 60, 16),  # every new shape costs the kernel XLA compilations
    (4, (16, 16), "tanh", "rmsprop", 0.01, 5, 8),  # a batch larger than the buffer: drawn with replacement
    (4, (16, 16), "relu", "adagrad", 0.1, 30, 16),
]


def cases_train_step(steps: int = 3) -> list:
    """Initial parameters (Flax's initialisers, numpy), a filled replay buffer, the optimizer and seed."""
    import jax

    from azcourse.hex.anet import make_module

    rng = np.random.default_rng(SEED + 5)
    cases = []
    for k, (size, hidden, activation, optimizer, learning_rate, held, batch_size) in enumerate(TRAIN_CASES):
        cells = size * size
        module = make_module(cells, hidden, activation)
        params = module.init(jax.random.PRNGKey(k), np.zeros((1, 2 + 2 * cells), np.float32))["params"]
        x = _encoded_batch(size, held, rng)
        cases.append({"cells": cells, "hidden": list(hidden), "activation": activation, "optimizer": optimizer,
                      "learning_rate": learning_rate, "params": jax.tree_util.tree_map(np.asarray, params),
                      "x": x, "target": _targets(x, rng, one_hot=k == 3), "added": held, "capacity": 100,
                      "batch_size": batch_size, "seed": int(SEED + k), "steps": steps})
    return cases


def judge_train_step(cases: list, expected: list, outputs: list) -> None:
    bad = []
    for i, (want, got) in enumerate(zip(expected, outputs)):
        if isinstance(got, str) or isinstance(want, str):
            problem = None if got == want else f"expected a new state and a loss, but it {got}"
        elif got["buffer_changed"]:
            problem = "the replay buffer changed: draw the minibatch with buffer.sample, which only reads it"
        elif not np.isclose(got["next_draw"], want["next_draw"], rtol=0, atol=1e-12):
            problem = ("the random generator was used differently: draw each minibatch with exactly one call "
                       "buffer.sample(batch_size, rng), and no other draw from rng")
        elif got["step"] != want["step"]:
            problem = f"the step counter is {got['step']} after {want['step']} calls: apply the gradients once per call"
        elif not np.allclose(got["losses"], want["losses"], rtol=1e-4, atol=1e-6):
            problem = (f"losses over {len(want['losses'])} consecutive calls: expected "
                       f"{np.round(want['losses'], 5).tolist()}, got {np.round(got['losses'], 5).tolist()} (the loss "
                       "of the minibatch drawn, at the parameters before the step)")
        else:
            diff = np.abs(np.asarray(got["params"]) - np.asarray(want["params"]))
            problem = None if diff.max() <= 1e-5 else (
                f"the losses match but the updated parameters differ (largest difference {diff.max():.2e}): take the "
                "gradient of the loss you return, with respect to state.params, and apply it with state.apply_gradients")
        if problem:
            bad.append((i, problem))
    if bad:
        i, problem = bad[0]
        case = cases[i]
        raise failure("train_step", len(bad), len(cases),
                      f"  an ANET with hidden layers {case['hidden']} ({case['activation']}) trained with "
                      f"{case['optimizer']} (learning rate {case['learning_rate']}), {case['steps']} calls "
                      f"train_step(state, buffer, {case['batch_size']}, rng) on a buffer of {case['added']} cases:\n"
                      f"  {problem}")


def check_train_step(fn) -> None:
    run_check(__name__, "train_step", fn)


# ---------------------------------------------------------------- topp

def cases_topp() -> list:
    rng = np.random.default_rng(SEED + 6)
    cases = []
    for i, (agents, games, size) in enumerate([(2, 1, 3), (2, 2, 3), (3, 4, 3), (3, 3, 4), (4, 5, 4), (5, 2, 5),
                                                (4, 6, 3), (6, 3, 5)]):
        cases.append({"orders": [rng.permutation(size * size).astype(np.int64) for _ in range(agents)],
                      "games": games, "size": size})
    return cases


def judge_topp(cases: list, expected: list, outputs: list) -> None:
    bad = [i for i, (want, got) in enumerate(zip(expected, outputs)) if got != want]
    for i in bad[:1]:
        case, want, got = cases[i], expected[i], outputs[i]
        k, games, size = len(case["orders"]), case["games"], case["size"]
        call = f"  topp(agents, {games}, {size}) with {k} agents, each playing the first empty cell of its own order"
        if got["openings"] != want["openings"]:
            index = next((g for g, (a, b) in enumerate(zip(got["openings"], want["openings"])) if a != b),
                         min(len(got["openings"]), len(want["openings"])))
            games_in = (f"{len(got['openings'])} games were played, {len(want['openings'])} expected"
                        if len(got["openings"]) != len(want["openings"]) else f"game {index} of the tournament")
            opener = (f"expected agent {want['openings'][index][0]} to open as player 1, got agent "
                      f"{got['openings'][index][0]} as player {got['openings'][index][1]}"
                      if index < min(len(got["openings"]), len(want["openings"])) else "")
            detail = (f"  the games differ from the protocol ({games_in}) {opener}\n  protocol: series (0, 1), (0, 2), "
                      "..., (1, 2), ...; in game g of series (i, j) agent i opens as player 1 when g is even, agent j "
                      "when g is odd")
        else:
            detail = (f"  the games were played as the protocol says, but the table differs\n"
                      f"  expected: {want['wins']}\n  got:      {short(got['wins'])}\n"
                      "  (wins[i, j] = games agent i won against agent j; play_game returns 1 when the opener wins)")
        raise failure("topp", len(bad), len(cases), f"{call}\n{detail}")


def check_topp(fn) -> None:
    run_check(__name__, "topp", fn)


JUDGES = {"winner": judge_winner, "tree_policy": judge_tree_policy, "rollout": judge_rollout,
          "legal_distribution": judge_legal_distribution, "policy_loss": judge_policy_loss,
          "train_step": judge_train_step, "topp": judge_topp}
INT_OR_TEXT = Either(Int, Str)
SCHEMAS = {
    "winner": per_case(Record(result=INT_OR_TEXT, changed=Bool)),
    "tree_policy": per_case(INT_OR_TEXT),
    "rollout": per_case(Record(result=INT_OR_TEXT, players=ListOf(Int, max_length=200),
                               stones=ListOf(Int, max_length=200), changed=Bool)),
    "legal_distribution": per_case(Record(probs=Either(ListOf(Num, REF), Str), changed=Bool)),
    "policy_loss": per_case(Either(Record(loss=Num, gradient_finite=Either(Bool, Str)), Str)),
    "train_step": per_case(Either(Record(losses=ListOf(Num, REF), step=Int, params=ListOf(Num, REF), next_draw=Num,
                                         buffer_changed=Bool), Str)),
    "topp": per_case(Record(wins=Either(ListOf(ListOf(Int, REF), REF), Str),
                            openings=ListOf(ListOf(Int, 2), max_length=2000))),
}
assert set(PROBES) == set(JUDGES) == set(SCHEMAS)
