"""End to end: build the release from assignments/, grade the whole corpus with the real nbgrader
and the sandbox (in parallel), and check every score, problem and flag, the grades CSV, the
feedback, and that nothing leaked or was tampered with.

Runs as whoever runs the tests (CI: root); tests/test_grading_unprivileged.py grades hostile
submissions as a normal user.
"""
import csv
import os
import sqlite3
import time
from pathlib import Path

import pytest

import nbformat

from autograder import corpus, leaks, pipeline, sandbox
from autograder.grading_config import REPO_ROOT

CELL_TIMEOUT = 20  # the infinite loop costs this much


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    workspace = tmp_path_factory.mktemp("grading")
    main_gradebook = REPO_ROOT / "autograder" / "gradebook.db"
    course = pipeline.Course.workspace(workspace, extra_config=f"c.SandboxExecute.timeout = {CELL_TIMEOUT}\n")
    pipeline.build(course)  # generate_assignment from assignments/ + marker lint + leak scan
    cases = corpus.all_cases()
    corpus.write_submissions(workspace / "incoming", cases, course)
    collected = pipeline.collect(course, workspace / "incoming")
    started = time.monotonic()
    results = pipeline.autograde(course, jobs=os.cpu_count())
    seconds = time.monotonic() - started
    print(f"\ngraded {len(results)} submissions in {seconds:.0f} s ({seconds / len(results):.1f} s each)")
    pipeline.feedback(course)
    rows = {(r["student"], r["assignment"]): r for r in pipeline.grade_rows(course)}
    return {"course": course, "cases": cases, "collected": collected, "results": results, "rows": rows,
            "main_gradebook": main_gradebook}


def test_every_submission_was_graded(graded):
    assert all(r["ok"] for r in graded["results"].values()), graded["results"]
    assert len(graded["results"]) == len(graded["cases"])


@pytest.mark.parametrize("case", corpus.all_cases(), ids=lambda c: f"{c.name}-{c.assignment}")
def test_exact_score_and_report(graded, case):
    row = graded["rows"][(case.student_id, case.assignment)]
    assert row["isolation"].startswith("bubblewrap")
    passed = {name for name, cell in row["cells"].items() if name.startswith("test_") and cell["score"]}
    assert passed == case.expected, {n: c["reason"] for n, c in row["cells"].items() if n.startswith("test_")}
    assert row["code_score"] == corpus.expected_score(case, graded["course"])
    report = row["problems"] + " | " + row["flags"]
    for text in case.problems + case.flags:
        assert text in report
    if not case.problems and not case.flags:
        assert not row["problems"] and not row["flags"], report


def test_failed_cells_say_why(graded):
    rows = graded["rows"]
    reasons = {(s, n): c["reason"] for (s, _), r in rows.items() for n, c in r["cells"].items()}
    assert "NotImplementedError" in reasons[("blank", "test_get_reward")]
    visible = reasons[("partial_action_prob", "test_get_action_prob")]
    assert visible.startswith("AssertionError") and "get_action_prob(tree, 0, 0)" in visible  # the failing line
    assert "get_reward gives a wrong result" in reasons[("always_equal", "test_get_reward")]  # the hidden judge
    assert "Fix get_reward first" in reasons[("partial_reward", "test_search_iter")]
    assert "did not finish within" in reasons[("infinite_loop", "test_get_action_prob")]
    assert "kernel died" in reasons[("os_exit", "test_expand_node")]
    assert "no test data came back" in reasons[("input_transformer", "test_get_next_state")]
    assert "SystemExit" in reasons[("sys_exit", "test_get_action_prob")]


def test_student_code_could_not_tamper(graded):
    course = graded["course"]
    for path in (Path(course.root) / "PWNED", REPO_ROOT / "autograder" / "PWNED", REPO_ROOT / "release" / "PWNED"):
        assert not path.exists(), f"student code wrote {path}"
    if graded["main_gradebook"].exists():  # the attack sets every auto_score to 1000
        with sqlite3.connect(f"file:{graded['main_gradebook']}?mode=ro", uri=True) as db:
            assert db.execute("SELECT count(*) FROM grade WHERE auto_score >= 1000").fetchone()[0] == 0
    flags = graded["rows"][("read_hidden", "ttt1_mcts")]["flags"]
    assert "tried to access a grader path" in flags and "assignments/ttt1_mcts" in flags


def test_grades_csv(graded, tmp_path):
    output = pipeline.export(graded["course"], tmp_path / "grades.csv")
    rows = list(csv.DictReader(output.open()))
    assert len(rows) == len(graded["cases"])  # one row per student and notebook
    full = next(r for r in rows if r["student"] == "full" and r["notebook"] == "ttt1_mcts")
    assert full["test_search_iter"] == "5/5" and full["code_score"] == "21.0"
    blank = next(r for r in rows if r["student"] == "blank" and r["notebook"] == "ttt1_mcts")
    assert blank["test_get_reward"] == "0/3" and "NotImplementedError" in blank["test_get_reward (reason)"]


def test_feedback_has_verdicts_and_no_secrets(graded):
    course = graded["course"]
    full = (Path(course.feedback) / "full" / "ttt1_mcts" / "ttt1_mcts.html").read_text()
    assert "Tests passed" in full
    assert "check_get_reward" not in full and "BEGIN HIDDEN TESTS" not in full
    assert leaks.scan_feedback(course) == []
    assert leaks.scan(course) == []


def test_without_the_sandbox_the_theft_works(graded):
    """The same hostile notebook, run unisolated, reads the reference and gets full marks: the
    sandbox (not luck) is what keeps `read_hidden` at 0."""
    course = graded["course"]
    nb = nbformat.read(Path(course.autograded) / "read_hidden" / "ttt1_mcts" / "ttt1_mcts.ipynb", as_version=4)
    executor = sandbox.SandboxExecute(isolation="none", timeout=CELL_TIMEOUT)
    nb, _ = executor.preprocess(nb, {"nbgrader": {"student": "read_hidden", "assignment": "ttt1_mcts",
                                                  "notebook": "ttt1_mcts"}})
    verdicts = {c.metadata["nbgrader"]["grade_id"]: c.outputs[-1].output_type for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_")}
    assert set(verdicts.values()) == {"stream"}, verdicts  # every test passed
