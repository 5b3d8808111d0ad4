"""Readable failure messages shared by the hidden-test judges, and a quiet context for probes."""
import contextlib
import warnings

import numpy as np

from azcourse.tictactoe.rules import board_text

MAX_SHOWN_CHARS = 1500


def indent(text: str, prefix: str = "    ") -> str:
    """Indent every line of `text`."""
    return "\n".join(prefix + line for line in str(text).splitlines())


def board_block(board) -> str:
    """A board drawn as 3x3 (X = player to move, O = opponent) plus its raw vector."""
    raw = np.asarray(board).astype(int).tolist()
    return f"{indent(board_text(board))}\n    as a vector: {raw}"


def short(value) -> str:
    """repr of a probe value, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + " ..."


def failure(function: str, n_bad: int, n_total: int, details: str) -> AssertionError:
    """The AssertionError a judge raises: how many cases failed, then the first one."""
    return AssertionError(
        f"{function} gives a wrong result on {n_bad} of {n_total} test cases.\n"
        f"First failing case:\n{details}")


def compare_all(function: str, cases: list, expected: list, got: list, same, describe) -> None:
    """Raise a readable AssertionError at the first case where `same(exp, got)` is False."""
    if len(got) != len(expected):
        raise AssertionError(f"{function}: the probe returned {len(got)} results for {len(expected)} cases")
    bad = [i for i, (e, g) in enumerate(zip(expected, got)) if not same(e, g)]
    if bad:
        i = bad[0]
        raise failure(function, len(bad), len(cases),
                      f"{describe(cases[i])}\n  expected: {short(expected[i])}\n  got:      {short(got[i])}")


def error_of(exc: BaseException) -> str:
    """Plain-data description of an exception raised by student code."""
    return f"{type(exc).__name__}: {exc}"


def probe_each(cases: list, run_one) -> list:
    """``run_one(case)`` for every case; an exception raised by student code becomes its
    description (data for the judge), so one bad case never hides the others."""
    outputs = []
    for case in cases:
        try:
            outputs.append(run_one(case))
        except Exception as exc:
            outputs.append(error_of(exc))
    return outputs


@contextlib.contextmanager
def quiet():
    """Silence warnings while a probe runs: nbgrader scores any stderr output of a cell as 0,
    and a numpy overflow warning is the judge's business, not a reason to lose points."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield
