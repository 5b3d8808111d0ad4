"""Helpers for the notebooks' visible tests.

A failing check names the function, the call, what was expected and what came back, and why it
matters::

    AssertionError: select_action(tree, 0) on board [1, -1, 0, 0, 0, 0, 0, 0, 0]
      expected: 3
      got:      8
      why: move 3 has Q = +1 and the same U as move 2 ...

A test whose function calls other TODO functions starts with ``needs(...)``: when one of them has
not passed its own test (or was changed since), the test stops with "fix X first"
(``PrerequisiteNotPassed``) instead of failing with a message about the wrong function.
``passed(...)`` at the end of a test records that the function passed.
"""
import numpy as np

PASSED = {}  # function name -> the function object that passed its visible test


def show(value, limit: int = 300) -> str:
    """A short, readable form of a value: arrays as rounded lists, long texts cut."""
    if isinstance(value, np.ndarray):
        value = np.round(value, 4).tolist() if value.dtype.kind == "f" else value.tolist()
    elif isinstance(value, (np.floating, float)):
        value = round(float(value), 6)
    elif isinstance(value, np.integer):
        value = int(value)
    elif isinstance(value, tuple):
        return "(" + ", ".join(show(v, limit) for v in value) + ("," if len(value) == 1 else "") + ")"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + " ..."


class Raised:
    """What `attempt` gives back when the call raised: shown as "raises <error>: <message>"."""

    def __init__(self, error: BaseException):
        self.error = error

    def __repr__(self) -> str:
        return f"raises {type(self.error).__name__}: {self.error}"


class NotWrittenYet(NotImplementedError):
    """A visible test reached a function that still raises NotImplementedError (its answer cell is as
    handed out): the message names the function and its cell, in words."""


def _unwritten_function(error: NotImplementedError) -> str | None:
    """The name of the notebook's function that raised `error` (the innermost frame of its traceback),
    or None when a library raised it (JAX or numpy refusing an operation is not an unwritten answer)."""
    traceback = error.__traceback__
    while traceback.tb_next is not None:
        traceback = traceback.tb_next
    frame = traceback.tb_frame
    return frame.f_code.co_name if frame.f_globals.get("__name__") == "__main__" else None


def attempt(action):
    """`action()`, or a Raised standing for its exception (so a check can say what the call did).
    A function not written yet stops the test with NotWrittenYet, which names it and its cell."""
    try:
        return action()
    except NotWrittenYet:
        raise
    except NotImplementedError as error:
        name = _unwritten_function(error)
        if name is None:
            raise
        raise NotWrittenYet(f"{name} is not written yet: the cell that starts with `def {name}(` still raises "
                            f"NotImplementedError. Write the function there, run that cell, then run this test "
                            f"again.") from None
    except Exception as error:  # noqa: BLE001 (shown in the failure message)
        return Raised(error)


def fail(call: str, expected, got, why: str = "") -> None:
    """Raise the standard failure: the call, expected and actual values, and why it matters."""
    message = f"{call}\n  expected: {expected if isinstance(expected, str) else show(expected)}\n" \
              f"  got:      {got if isinstance(got, str) else show(got)}"
    raise AssertionError(message + (f"\n  why: {why}" if why else ""))


def _same(expected, got) -> bool:
    """Exact equality; arrays by shape and values, tuples item by item, numbers never as booleans."""
    if isinstance(got, Raised):
        return False
    try:
        if isinstance(expected, (np.ndarray, list)):
            got_array = np.asarray(got)
            return got_array.shape == np.shape(expected) and bool(np.array_equal(got_array, expected))
        if isinstance(expected, tuple):
            return isinstance(got, tuple) and len(got) == len(expected) and all(map(_same, expected, got))
        if isinstance(expected, bool):
            return isinstance(got, (bool, np.bool_)) and bool(got) is expected
        if isinstance(expected, (int, float)):
            return isinstance(got, (int, float, np.integer, np.floating)) and not isinstance(got, (bool, np.bool_)) \
                and bool(got == expected)
        return bool(got == expected)
    except Exception:  # noqa: BLE001 (a value that cannot even be compared is not equal)
        return False


def check_equal(call: str, got, expected, why: str = "") -> None:
    """`got` must equal `expected` exactly (same shape for arrays, same length for tuples)."""
    if not _same(expected, got):
        fail(call, expected, got, why)


def check_close(call: str, got, expected, why: str = "", atol: float = 1e-6) -> None:
    """`got` must be numerically close to `expected` (arrays of the same shape, no NaN)."""
    if isinstance(got, Raised):
        fail(call, expected, got, why)
    try:
        got_array = np.asarray(got, dtype=float)
        ok = got_array.shape == np.shape(expected) and bool(np.allclose(got_array, expected, atol=atol, rtol=1e-5))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        fail(call, expected, got, why)


def check_true(call: str, condition: bool, expected: str, got, why: str = "") -> None:
    """A property: `condition` must hold; `expected` says in words what should be true."""
    if not condition:
        fail(call, expected, got, why)


def check_raises(call: str, error: type, action, why: str = "") -> None:
    """`action()` must raise `error`."""
    try:
        result = action()
    except error:
        return
    except Exception as other:  # noqa: BLE001 (the wrong exception is shown)
        fail(call, f"raises {error.__name__}", f"raises {type(other).__name__}: {other}", why)
    else:
        fail(call, f"raises {error.__name__}", f"returned {show(result)}", why)


class PrerequisiteNotPassed(Exception):
    """A test stopped before checking anything: a function it calls has not passed its own test.
    (The autograder then leaves the verdict to the hidden test, which is fair to such slips.)"""


def needs(function: str, **prerequisites) -> None:
    """Stop the test of `function` (PrerequisiteNotPassed, saying which to fix first) unless every
    prerequisite (name=function object) passed its own visible test since it was last changed."""
    missing = [name for name, fn in prerequisites.items() if PASSED.get(name) is not fn]
    if missing:
        raise PrerequisiteNotPassed(prerequisite_message(function, missing))


def prerequisite_message(function: str, missing: list[str]) -> str:
    """Why `function` (a function's name, or a demo's: "the tournament") did not run, as sentences that
    agree with one or several `missing` prerequisites."""
    names = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
    one = len(missing) == 1
    tests = "its visible test above fails" if one else "their visible tests above fail"
    changed = "it" if one else "them"
    why = (f"({tests}, or {'was' if one else 'were'} not run since you last changed {changed}).")
    if function.isidentifier():  # a graded function
        return (f"{function} was not tested: fix {names} first {why} {function} calls {changed}, so a slip there "
                f"would show here under the wrong name.")
    return (f"This cell did not run {function}: fix {names} first {why} The cell uses {changed}: with a wrong "
            f"answer it would run for minutes and show misleading results.")


def passed(function: str, fn) -> None:
    """Record that `fn` passed the visible test of `function`, and say so."""
    PASSED[function] = fn
    print(f"{function}: visible tests passed.")
