"""What went wrong, across the class: the judges' failure reasons grouped by slip.

A judge names the failing case with its numbers ("get_reward gives a wrong result on 3 of 40 test
cases ... expected: (0, True)"); twenty students with the same slip get the same words with other
numbers. ``signature`` abstracts the numbers (every number becomes ``#``, whitespace collapsed), so
reasons that differ only in numbers share a signature and anything else (another rule broken,
another failing board, another exception) does not.

A *prerequisite stop* ("search_iter was not checked: ... Fix get_reward first", a visible test's
``PrerequisiteNotPassed``) is not a slip of the test it stopped: ``prerequisite`` names what it
points to, and ``group_failures`` counts such stops apart.
"""
import re

NUMBER = re.compile(r"(?<![\w.])[-+]?(?:(?:\d{1,3}(?:,\d{3})+(?!\d)|\d[\d_]*)(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?!\w)"
                    r"|(?<![\w])-?(?:nan|inf)(?![\w])", re.IGNORECASE)
FIX_FIRST = re.compile(r"\bfix ((?:`?\w+`?)(?:(?:,| and) `?\w+`?)*) first\b", re.IGNORECASE)
WHY = re.compile(r"^\s*why: (.+?)(?: \(in: .*\))?\s*$", re.MULTILINE)  # azcourse.visible_checks.fail's hint
NO_REASON = "failed, and the grader recorded no reason (no sandbox report for this submission)"


def signature(reason: str) -> str:
    """`reason` with every number replaced by ``#`` and runs of white space made one space: the key
    that puts reasons differing only in numbers into one group. Digits inside names
    (``ttt1_mcts``, ``test_x2``) are kept."""
    return " ".join(NUMBER.sub("#", reason).split())


def headline(reason: str) -> str:
    """A group's title: what the visible test says the slip is (its ``why:`` line as written, "the
    anti-diagonal 2-4-6", "a full board without a line is a draw, and the game is over") when the reason
    has one, else its first line with the numbers abstracted ("get_reward gives a wrong result on # of #
    test cases.")."""
    why = WHY.search(reason)
    if why:
        return why.group(1).strip()
    return signature(next((line for line in reason.splitlines() if line.strip()), reason))


def prerequisite(reason: str) -> list[str]:
    """The functions a prerequisite stop tells the student to fix first (``[]`` for any other
    reason): "Fix get_reward and expand_node first" gives ``["get_reward", "expand_node"]``."""
    found = FIX_FIRST.search(reason)
    if not found:
        return []
    return [name.strip("` ") for name in re.split(r",| and ", found.group(1)) if name.strip("` ")]


def group_failures(failures: list[tuple[str, str]]) -> dict:
    """Group one test's failures, [(student, reason)], by slip.

    Returns ``{"groups": [...], "stops": [...]}``, each list largest first (then by title):
    a group is ``{"title", "signature", "count", "example", "students"}`` (`example` is the first
    student's whole reason, in student order); a stop is ``{"fix_first", "count", "example",
    "students"}``, one per set of prerequisites named. Every failure is in exactly one of them.
    """
    groups, stops = {}, {}
    for student, reason in sorted(failures):
        reason = reason.strip() or NO_REASON
        names = prerequisite(reason)
        if names:
            entry = stops.setdefault(tuple(names), {"fix_first": names, "count": 0, "example": reason,
                                                   "students": []})
        else:
            key = signature(reason)
            entry = groups.setdefault(key, {"title": headline(reason), "signature": key, "count": 0,
                                            "example": reason, "students": []})
        entry["count"] += 1
        entry["students"].append(student)
    order = lambda entry: (-entry["count"], entry.get("title", ""), entry.get("signature", ""),  # noqa: E731
                           entry.get("fix_first", []))
    return {"groups": sorted(groups.values(), key=order), "stops": sorted(stops.values(), key=order)}
