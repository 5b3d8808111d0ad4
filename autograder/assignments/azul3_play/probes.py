"""Probes of part 3 (Azul); all the sandbox receives of part 3's hidden tests.

Same shape as ``ttt1_mcts/probes.py``: ``probe_<name>(fn, cases)`` runs student code on plain-data cases
and returns plain data. Judges: ``azul3_play/checks.py``.
"""
import numpy as np

import Azul_Simulator as az
from azcourse.azul.agents import greedy_agent, random_agent

from ..._probe_util import probe_each, short

AGENTS = {"random": random_agent, "greedy": greedy_agent}


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


def probe_legal_takes(fn, cases: list) -> list:
    """The returned mask as a list of 180 bools, or a description of what went wrong."""
    def run_one(board):
        result = np.asarray(fn(az.AzulState.decode(np.array(board, dtype=np.int16))))
        return (result.astype(bool).tolist() if result.shape == (az.N_TAKES,)
                else f"an array of shape {result.shape} (expected (180,))")
    return probe_each(cases, run_one)


def probe_masked_policy(fn, cases: list) -> list:
    def run_one(case):
        result = np.asarray(fn(case["logits"].copy(), case["mask"].copy()), dtype=np.float64)
        return (result.tolist() if result.shape == (az.ACTION_DIM,)
                else f"an array of shape {result.shape} (expected (181,))")
    return probe_each(cases, run_one)


def probe_arena(fn, cases: list) -> list:
    def run_one(case):
        result = fn(AGENTS[case["a"]], AGENTS[case["b"]], case["games"], case["seed"])
        return {k: float(result[k]) for k in ("wins", "draws", "losses", "mean_score_diff")}
    return probe_each(cases, run_one)


PROBES = {"decode_move": probe_decode_move, "legal_takes": probe_legal_takes,
          "masked_policy": probe_masked_policy, "arena": probe_arena}
