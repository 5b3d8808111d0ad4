"""Readable failure messages shared by the hidden-test judges (grader side only)."""
import numpy as np

from azcourse.tictactoe.rules import board_text

from ._probe_util import short


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in the right number: ``counted(1, "node")`` is "1 node", ``counted(3, "node")`` "3 nodes"."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def indent(text: str, prefix: str = "    ") -> str:
    """Indent every line of `text`."""
    return "\n".join(prefix + line for line in str(text).splitlines())


def board_block(board) -> str:
    """A board drawn as 3x3 (X = player to move, O = opponent) plus its raw vector."""
    raw = np.asarray(board).astype(int).tolist()
    return f"{indent(board_text(board))}\n    as a vector: {raw}"


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
