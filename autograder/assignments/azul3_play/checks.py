"""Hidden tests of part 3 (Azul): cases, data shapes and judges (see ``ttt1_mcts/checks.py``).

The probes are in ``azul3_play/probes.py``, the only part of these tests that enters the sandbox; the
reference is ``assignments/azul3_play/azul3_play.ipynb``.
"""
from functools import lru_cache

import numpy as np

import Azul_Simulator as az
from azcourse.azul.agents import greedy_agent, random_agent

from ..._report import compare_all, failure
from .probes import PROBES
from ...probe_schema import Bool, Either, Int, ListOf, Num, Record, Str, per_case
from ...probes import run_check

SEED = 20261121
REFERENCE = ("azul3_play", "azul3_play")  # (assignment, notebook) of the reference solution
# The engine's helpers that do a graded function's whole job ("without calling the engine's own helpers
# for the same job"): a solution reaching one of them is flagged for the instructor (autograder.code_scan).
FORBIDDEN_HELPERS = {
    "decode_move": {"string_to_action", "take_action_from_string", "_parse_code"},
    "legal_takes": {"get_valid_mask", "illegal_reason", "_line_accepts", "_offer_empty"},
    "arena": {"play_match", "play_game", "play_out"},
}


# ---------------------------------------------------------------- decode_move

MALFORMED_CODES = ["", "5B", "5B22", "9B2", "0B1", "6B1", "5Q2", "5B7", "5B0", "C B1", "5b 2", "NOOP",
                   "FB1", "CBC", 5, None]


def cases_decode_move() -> list:
    codes = [az.action_to_string(a) for a in range(az.N_TAKES)]
    spellings = codes + [c.lower() for c in codes[::7]] + [f"  {c} " for c in codes[::11]] + [f"{c}\n" for c in codes[::13]]
    return spellings + MALFORMED_CODES


def judge_decode_move(cases: list, expected: list, outputs: list) -> None:
    compare_all("decode_move", cases, expected, outputs, lambda e, g: e == g,
                lambda code: f"  code: {code!r}")


def check_decode_move(fn) -> None:
    run_check(__name__, "decode_move", fn)


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


def cases_legal_takes() -> list:
    return list(take_positions())


def _mask_difference(expected, got) -> str:
    wrongly_allowed = [az.action_to_string(a) for a in range(az.N_TAKES) if got[a] and not expected[a]]
    wrongly_refused = [az.action_to_string(a) for a in range(az.N_TAKES) if expected[a] and not got[a]]
    return (f"\n  legal but missing from your mask: {' '.join(wrongly_refused) or '-'}"
            f"\n  illegal but in your mask: {' '.join(wrongly_allowed) or '-'}")


def judge_legal_takes(cases: list, expected: list, outputs: list) -> None:
    bad = [i for i, (e, g) in enumerate(zip(expected, outputs)) if e != g]
    if bad:
        i = bad[0]
        from Azul_Visuals import render_text
        got = outputs[i]
        detail = _mask_difference(expected[i], got) if isinstance(got, list) else f"\n  got: {got}"
        raise failure("legal_takes", len(bad), len(cases),
                      f"{render_text(np.array(cases[i], dtype=np.int16), color=False)}{detail}")


def check_legal_takes(fn) -> None:
    run_check(__name__, "legal_takes", fn)


# ---------------------------------------------------------------- masked_policy

def cases_masked_policy(n: int = 60) -> list:
    rng = np.random.default_rng(SEED)
    cases = []
    for i in range(n):
        scale = [1.0, 10.0, 300.0, 1e4][i % 4]
        logits = (rng.normal(size=az.ACTION_DIM) * scale).astype(np.float32)
        mask = rng.random(az.ACTION_DIM) < [0.02, 0.3, 0.9][i % 3]
        mask[rng.integers(az.ACTION_DIM)] = True
        cases.append({"logits": logits, "mask": mask})
    return cases


def judge_masked_policy(cases: list, expected: list, outputs: list) -> None:
    describe = lambda case: (f"  {int(case['mask'].sum())} legal actions; largest |logit| "
                             f"{float(np.abs(case['logits']).max()):.3g}")
    leaks = [i for i, (case, got) in enumerate(zip(cases, outputs))
             if isinstance(got, list) and np.any(np.asarray(got)[~case["mask"]] != 0)]  # NaN counts too
    if leaks:
        raise failure("masked_policy", len(leaks), len(cases),
                      f"{describe(cases[leaks[0]])}\n  illegal moves must get exactly 0 (got a non-zero value or nan)")
    same = lambda e, g: isinstance(g, list) and np.allclose(e, g, atol=1e-9, rtol=1e-6)
    bad = [i for i, (want, got) in enumerate(zip(expected, outputs)) if not same(want, got)]
    if bad and isinstance(outputs[bad[0]], list):
        case, want, got = cases[bad[0]], np.asarray(expected[bad[0]]), np.asarray(outputs[bad[0]])
        legal = np.flatnonzero(case["mask"])
        first = next(int(a) for a in legal if not np.isclose(want[a], got[a], atol=1e-9, rtol=1e-6))
        code = az.action_to_string(first) if first < az.N_TAKES else "NOOP"
        raise failure("masked_policy", len(bad), len(cases),
                      f"{describe(case)}\n  first legal move that differs: action {first} ({code}), logit "
                      f"{float(case['logits'][first]):.6g}: expected probability {want[first]:.6g}, got {got[first]:.6g}"
                      f"\n  your probabilities sum to {np.nansum(got):.6g} (expected 1)")
    compare_all("masked_policy", cases, expected, outputs, same, describe)


def check_masked_policy(fn) -> None:
    run_check(__name__, "masked_policy", fn)


# ---------------------------------------------------------------- arena

ARENA_CASES = [{"a": "greedy", "b": "random", "games": 4, "seed": 3},
               {"a": "random", "b": "greedy", "games": 5, "seed": 11},
               {"a": "random", "b": "random", "games": 6, "seed": 5},
               {"a": "greedy", "b": "greedy", "games": 4, "seed": 8},
               {"a": "greedy", "b": "greedy", "games": 1, "seed": 2},   # equal scores, won on complete rows
               {"a": "greedy", "b": "greedy", "games": 1, "seed": 5}]   # equal scores and rows: a draw


def cases_arena() -> list:
    return ARENA_CASES


def judge_arena(cases: list, expected: list, outputs: list) -> None:
    def same(e, g):
        return isinstance(g, dict) and all(np.isclose(e[k], g[k], atol=1e-9) for k in e)

    def describe(case):
        games = "\n".join(f"    game {i}: {line}" for i, line in enumerate(_protocol_games(case)))
        return (f"  arena({case['a']}_agent, {case['b']}_agent, num_games={case['games']}, seed={case['seed']}); "
                f"following the protocol, the games are:\n{games}")
    compare_all("arena", cases, expected, outputs, same, describe)


def _protocol_games(case: dict) -> list[str]:
    """One line per game of an arena case, played by the protocol of the notebook: game i uses
    default_rng([seed, i]) for everything, agent_a sits in seat i % 2."""
    agents = {"greedy": greedy_agent, "random": random_agent}
    lines = []
    for i in range(case["games"]):
        rng = np.random.default_rng([case["seed"], i])
        seat_a, board = i % 2, az.init_board(rng)
        while not az.get_reward(board)[1]:
            if az.get_valid_mask(board)[az.NOOP]:
                action = az.NOOP
            else:
                action = agents[case["a"] if az.current_seat(board) == seat_a else case["b"]](board, rng)
            board = az.get_next_state(board, action, rng)
        state = az.AzulState.decode(board)
        mine, theirs = state.by_seat(seat_a).score, state.by_seat(1 - seat_a).score
        reward = az.get_reward(board)[0] * (1 if az.current_seat(board) == seat_a else -1)
        result = {1: "agent_a wins", 0: "a draw", -1: "agent_a loses"}[int(reward)]
        lines.append(f"agent_a in seat {seat_a}, final score {mine} to {theirs}: {result}")
    return lines


def check_arena(fn) -> None:
    run_check(__name__, "arena", fn)


JUDGES = {"decode_move": judge_decode_move, "legal_takes": judge_legal_takes,
          "masked_policy": judge_masked_policy, "arena": judge_arena}
SCHEMAS = {"decode_move": per_case(Either(Int, Str)),
           "legal_takes": per_case(Either(ListOf(Bool, az.N_TAKES), Str)),
           "masked_policy": per_case(Either(ListOf(Num, az.ACTION_DIM), Str)),
           "arena": per_case(Either(Record(wins=Num, draws=Num, losses=Num, mean_score_diff=Num), Str))}
assert set(PROBES) == set(JUDGES) == set(SCHEMAS)
