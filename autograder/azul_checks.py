"""Hidden tests of part 3 (Azul): probe the student's function, then judge.

Same shape as ``ttt_checks``: ``probe_<name>(fn, cases)`` runs student code on plain-data cases and
returns plain data; ``judge_<name>(cases, outputs)`` compares with the reference solution read from
``assignments/azul3_play/azul3_play.ipynb``; ``check_<name>(fn)`` does both (hidden-test cells).
"""
from functools import lru_cache

import numpy as np

import Azul_Simulator as az
from azcourse.azul_agents import greedy_agent, random_agent

from . import reference
from ._report import compare_all, failure, probe_each, quiet, short

SEED = 20261121
AGENTS = {"random": random_agent, "greedy": greedy_agent}


def _reference() -> dict:
    return reference.reference_namespace("azul3_play", "azul3_play")


# ---------------------------------------------------------------- decode_move

MALFORMED_CODES = ["", "5B", "5B22", "9B2", "0B1", "6B1", "5Q2", "5B7", "5B0", "C B1", "5b 2", "NOOP",
                   "FB1", "CBC", 5, None]


def decode_move_cases() -> list:
    codes = [az.action_to_string(a) for a in range(az.N_TAKES)]
    spellings = codes + [c.lower() for c in codes[::7]] + [f"  {c} " for c in codes[::11]] + [f"{c}\n" for c in codes[::13]]
    return spellings + MALFORMED_CODES


def probe_decode_move(fn, cases: list) -> list:
    """The index returned, or 'raises <ExceptionName>'."""
    outputs = []
    for code in cases:
        try:
            result = fn(code)
            outputs.append(int(result) if isinstance(result, (int, np.integer)) and not isinstance(result, bool)
                           else f"returned {short(result)}")
        except Exception as exc:  # the student's error is data for the judge; any ValueError subclass is fine
            outputs.append("raises ValueError" if isinstance(exc, ValueError) else f"raises {type(exc).__name__}")
    return outputs


def judge_decode_move(cases: list, outputs: list) -> None:
    expected = probe_decode_move(_reference()["decode_move"], cases)
    compare_all("decode_move", cases, expected, outputs, lambda e, g: e == g,
             lambda code: f"  code: {code!r}")


def check_decode_move(fn) -> None:
    cases = decode_move_cases()
    with quiet():
        outputs = probe_decode_move(fn, cases)
    judge_decode_move(cases, outputs)


# ---------------------------------------------------------------- legal_takes

@lru_cache(maxsize=None)
def take_positions(n_games: int = 24) -> tuple:
    """Boards (as int lists) where a take is due, from seeded random and greedy games: early,
    middle and late rounds, full lines, lines blocked by the wall."""
    positions = []
    for game in range(n_games):
        rng = np.random.default_rng([SEED, game])
        agent = greedy_agent if game % 2 else random_agent
        board = az.init_board(rng)
        step = 0
        while not az.get_reward(board)[1]:
            mask = az.get_valid_mask(board)
            if mask[az.NOOP]:
                board = az.get_next_state(board, az.NOOP, rng)
                continue
            if step % 3 == 0:
                positions.append(board.tolist())
            board = az.get_next_state(board, agent(board, rng), rng)
            step += 1
    return tuple(positions)


def probe_legal_takes(fn, cases: list) -> list:
    """The returned mask as a list of 180 bools, or a description of what went wrong."""
    def run_one(board):
        result = np.asarray(fn(az.AzulState.decode(np.array(board, dtype=np.int16))))
        return (result.astype(bool).tolist() if result.shape == (az.N_TAKES,)
                else f"an array of shape {result.shape} (expected (180,))")
    return probe_each(cases, run_one)


def _mask_difference(expected, got) -> str:
    if not isinstance(got, list):
        return ""
    wrongly_allowed = [az.action_to_string(a) for a in range(az.N_TAKES) if got[a] and not expected[a]]
    wrongly_refused = [az.action_to_string(a) for a in range(az.N_TAKES) if expected[a] and not got[a]]
    return (f"\n  legal but missing from your mask: {' '.join(wrongly_refused) or '-'}"
            f"\n  illegal but in your mask: {' '.join(wrongly_allowed) or '-'}")


def judge_legal_takes(cases: list, outputs: list) -> None:
    expected = probe_legal_takes(_reference()["legal_takes"], cases)
    bad = [i for i, (e, g) in enumerate(zip(expected, outputs)) if e != g]
    if len(outputs) != len(expected):
        raise AssertionError(f"legal_takes: the probe returned {len(outputs)} results for {len(expected)} cases")
    if bad:
        i = bad[0]
        from Azul_Visuals import render_text
        got = outputs[i]
        detail = _mask_difference(expected[i], got) if isinstance(got, list) else f"\n  got: {got}"
        raise failure("legal_takes", len(bad), len(cases),
                      f"{render_text(np.array(cases[i], dtype=np.int16), color=False)}{detail}")


def check_legal_takes(fn) -> None:
    cases = list(take_positions())
    with quiet():
        outputs = probe_legal_takes(fn, cases)
    judge_legal_takes(cases, outputs)


# ---------------------------------------------------------------- masked_policy

def masked_policy_cases(n: int = 60) -> list:
    rng = np.random.default_rng(SEED)
    cases = []
    for i in range(n):
        scale = [1.0, 10.0, 300.0, 1e4][i % 4]
        logits = (rng.normal(size=az.ACTION_DIM) * scale).astype(np.float32)
        mask = rng.random(az.ACTION_DIM) < [0.02, 0.3, 0.9][i % 3]
        mask[rng.integers(az.ACTION_DIM)] = True
        cases.append({"logits": logits, "mask": mask})
    return cases


def probe_masked_policy(fn, cases: list) -> list:
    def run_one(case):
        result = np.asarray(fn(case["logits"].copy(), case["mask"].copy()), dtype=np.float64)
        return (result.tolist() if result.shape == (az.ACTION_DIM,)
                else f"an array of shape {result.shape} (expected (181,))")
    return probe_each(cases, run_one)


def judge_masked_policy(cases: list, outputs: list) -> None:
    expected = probe_masked_policy(_reference()["masked_policy"], cases)
    describe = lambda case: (f"  {int(case['mask'].sum())} legal actions; largest |logit| "
                             f"{float(np.abs(case['logits']).max()):.3g}")
    leaks = [i for i, (case, got) in enumerate(zip(cases, outputs))
             if isinstance(got, list) and np.any(np.asarray(got)[~case["mask"]] != 0)]  # NaN counts too
    if leaks:
        raise failure("masked_policy", len(leaks), len(cases),
                      f"{describe(cases[leaks[0]])}\n  illegal moves must get exactly 0 (got a non-zero value or nan)")
    same = lambda e, g: isinstance(g, list) and np.allclose(e, g, atol=1e-9, rtol=1e-6)
    compare_all("masked_policy", cases, expected, outputs, same, describe)


def check_masked_policy(fn) -> None:
    cases = masked_policy_cases()
    with quiet():
        outputs = probe_masked_policy(fn, cases)
    judge_masked_policy(cases, outputs)


# ---------------------------------------------------------------- arena

ARENA_CASES = [{"a": "greedy", "b": "random", "games": 4, "seed": 3},
               {"a": "random", "b": "greedy", "games": 5, "seed": 11},
               {"a": "random", "b": "random", "games": 6, "seed": 5},
               {"a": "greedy", "b": "greedy", "games": 4, "seed": 8},
               {"a": "greedy", "b": "greedy", "games": 1, "seed": 2},   # equal scores, won on complete rows
               {"a": "greedy", "b": "greedy", "games": 1, "seed": 5}]   # equal scores and rows: a draw


def probe_arena(fn, cases: list) -> list:
    def run_one(case):
        result = fn(AGENTS[case["a"]], AGENTS[case["b"]], case["games"], case["seed"])
        return {k: float(result[k]) for k in ("wins", "draws", "losses", "mean_score_diff")}
    return probe_each(cases, run_one)


def judge_arena(cases: list, outputs: list) -> None:
    expected = probe_arena(_reference()["arena"], cases)

    def same(e, g):
        return isinstance(g, dict) and all(np.isclose(e[k], g[k], atol=1e-9) for k in e)

    describe = lambda case: (f"  arena({case['a']}_agent, {case['b']}_agent, num_games={case['games']}, "
                             f"seed={case['seed']}): follow the protocol in the text exactly")
    compare_all("arena", cases, expected, outputs, same, describe)


def check_arena(fn) -> None:
    cases = ARENA_CASES
    with quiet():
        outputs = probe_arena(fn, cases)
    judge_arena(cases, outputs)
