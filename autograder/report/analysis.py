"""The report's data, one JSON-able dict per assignment, from what ``gather`` read.

Sections (the keys of the dict): ``scores`` (summary of total and autograded scores, submitted,
missing, awaiting manual grading), ``tests`` (item analysis, hardest first), ``wrong`` (per failing
test, its failures grouped by slip, prerequisite stops apart), ``health`` (flags, timeouts, kernel
deaths, withheld feedback, grading time), ``similarity`` (the pairs of submissions whose answers are
unusually alike: ``autograder.similarity.class_similarity``'s data, or {"error"}) and ``course`` (every
assignment of the class side by side).
The HTML page shows exactly this data, and the JSON file is this data.
"""
import statistics

import numpy as np

from . import reasons, stats
from .gather import AssignmentData

TIMEOUT = "timeout in cell"               # autograder/kernel.py's runtime flags
KERNEL_DIED = "kernel died in cell"
BUDGET = "notebook time budget exceeded"
RESTART_FAILED = "kernel restart failed"
SLOWEST = 5                               # submissions listed as the slowest to grade


def scores_section(data: AssignmentData) -> dict:
    graded = data.graded
    submitted = {s.student for s in data.submissions}
    max_code = sum(t["max_points"] for t in data.tests)
    return {"total": stats.summary([s.score for s in graded], data.max_score),
            "autograded": stats.summary([s.code_score for s in graded], max_code),
            "roster": len(data.roster), "submitted": len(submitted), "graded": len(graded),
            "autograde_failed": len(data.submissions) - len(graded),
            "missing": len([s for s in data.roster if s not in submitted]),
            "missing_students": [s for s in data.roster if s not in submitted],
            "awaiting_manual_grading": sum(s.needs_manual_grade for s in graded),
            "scores": [s.score for s in graded], "code_scores": [s.code_score for s in graded]}


def tests_section(data: AssignmentData) -> list[dict]:
    graded = data.graded
    names = [t["test"] for t in data.tests]
    points = np.array([[s.points.get(name, 0.0) for name in names] for s in graded], dtype=float)
    notebook = {t["test"]: t["notebook"] for t in data.tests}
    rows = stats.item_analysis(points.reshape(len(graded), len(names)), [t["max_points"] for t in data.tests], names)
    for row in rows:
        row["notebook"] = notebook[row["test"]]
    return rows


def wrong_section(data: AssignmentData, tests: list[dict]) -> list[dict]:
    """Per test that someone failed (in the order of ``tests``: hardest first), its failures grouped."""
    section = []
    for row in tests:
        failures = [(s.student, s.failures[row["test"]]) for s in data.graded if row["test"] in s.failures]
        if failures:
            grouped = reasons.group_failures(failures)
            section.append({"test": row["test"], "failed": len(failures), **grouped})
    return section


def health_section(data: AssignmentData) -> dict:
    def having(prefix):
        return [{"student": s.student, "flags": [f for f in s.flags if f.startswith(prefix)]}
                for s in data.submissions if any(f.startswith(prefix) for f in s.flags)]

    times = [(s.seconds, s.student) for s in data.graded if s.seconds is not None]
    slowest = sorted(times, key=lambda t: (-t[0], t[1]))[:SLOWEST]
    return {
        "flagged": [{"student": s.student, "flags": s.flags} for s in data.submissions if s.flags],
        "timeouts": having(TIMEOUT), "kernel_deaths": having(KERNEL_DIED),
        "budget_exceeded": having(BUDGET), "restart_failed": having(RESTART_FAILED),
        "withheld": [{"student": s.student, "reasons": s.withheld} for s in data.submissions if s.withheld],
        "autograde_failed": [{"student": s.student, "error": s.autograde_failed}
                             for s in data.submissions if s.autograde_failed],
        "repaired": [{"student": s.student, "problems": s.problems} for s in data.submissions if s.problems],
        "seconds": {"timed": len(times),
                    "median": round(statistics.median(t for t, _ in times), 1) if times else None,
                    "slowest": [{"student": student, "seconds": seconds} for seconds, student in slowest]},
    }


def course_section(everything: list[AssignmentData]) -> dict:
    """Every assignment of the class side by side: the class's score per assignment in the order they
    were due (or, without due dates, submitted: the median submission time; then name), and a row
    per student with their score on each."""
    def when(data) -> str | None:
        stamps = sorted(s.timestamp for s in data.submissions if s.timestamp)
        return data.duedate or (stamps[len(stamps) // 2] if stamps else None)

    ordered = sorted(everything, key=lambda data: (when(data) or "~", data.name))  # undated last
    per_assignment = []
    for data in ordered:
        summary = stats.summary([s.score for s in data.graded], data.max_score)
        per_assignment.append({"assignment": data.name, "when": when(data),
                               "max_score": data.max_score, "graded": summary["count"], "mean": summary["mean"],
                               "median": summary["median"], "q1": summary["q1"], "q3": summary["q3"]})
    scores = {data.name: {s.student: s.score for s in data.graded} for data in ordered}
    table = [{"student": student, "scores": {data.name: scores[data.name].get(student) for data in ordered}}
             for student in sorted({s for data in ordered for s in data.roster})]
    return {"assignments": per_assignment, "students": table}


def assignment_report(data: AssignmentData, course: dict, similarity: dict) -> dict:
    """The whole report of one assignment (see the module's docstring)."""
    tests = tests_section(data)
    return {"assignment": data.name, "notebooks": data.notebooks, "max_score": data.max_score,
            "names": {s: data.names[s] for s in data.roster if s in data.names},
            "scores": scores_section(data), "tests": tests, "wrong": wrong_section(data, tests),
            "health": health_section(data), "similarity": similarity,
            "course": course}
