"""End to end: build the release from assignments/, grade the whole corpus with the real nbgrader
and the sandbox (in parallel), and check every score, problem and flag, the grades CSV, the
feedback, and that nothing leaked or was tampered with.

Runs as whoever runs the tests (CI: root); tests/test_grading_unprivileged.py grades hostile
submissions as a normal user.
"""
import csv
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import nbformat

from courses import CELL_TIMEOUT, corpus_cases, graded_corpus

from autograder import corpus, leaks, pipeline, sandbox
from autograder.grading_config import REPO_ROOT

pytestmark = pytest.mark.slow  # grades, runs notebooks or installs: the whole suite only (tests/conftest.py)

@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """This run's graded corpus (tests/courses.py: built, collected, autograded and given feedback once)."""
    course, facts = graded_corpus(tmp_path_factory, tmp_path_factory.mktemp("grading") / "ws")
    rows = {(r["student"], r["assignment"]): r for r in pipeline.grade_rows(course)}
    return {"course": course, "cases": corpus_cases(), "collected": facts["collected"], "results": facts["results"],
            "rows": rows, "main_gradebook": REPO_ROOT / "gradebook.db"}


def test_every_submission_was_graded(graded):
    results = dict(graded["results"])
    failed = results.pop(("ttt1_mcts", "broken_json"))
    assert all(r["ok"] for r in results.values()), results
    assert len(results) == len(graded["cases"]) + 1  # + raw_metadata
    assert not failed["ok"] and failed["error"].startswith("NotJSONError: Notebook does not appear to be JSON")


def test_metadata_that_crashes_nbgrader_is_restored_without_collect(graded):
    row = graded["rows"][("raw_metadata", "ttt1_mcts")]
    assert row["status"] == "graded" and row["code_score"] == 21
    for text in ["its nbgrader metadata was not a mapping", "cell 'setup' was missing; put back",
                 "cell 'q1' was changed from markdown to 'code'; converted back",
                 "test_get_action_prob': nbgrader metadata (points) was changed"]:
        assert text in row["problems"]


def test_a_submission_nbgrader_cannot_read_fails_alone_with_its_cause(graded):
    row = graded["rows"][("broken_json", "ttt1_mcts")]
    assert row["status"] == "autograde failed"
    assert "autograde failed: NotJSONError: Notebook does not appear to be JSON" in row["problems"]


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
    reasons = {(s, n): c["reason"] for (s, _), r in rows.items() for n, c in r.get("cells", {}).items()}
    assert reasons[("blank", "test_get_reward")].startswith("NotImplementedError")  # the student's own error first
    visible = reasons[("partial_action_prob", "test_get_action_prob")]
    # both the hidden judge and a visible assert fail: the judge's message (it names the failing case) comes first
    assert visible.startswith("get_action_prob gives a wrong result"), visible
    report = json.loads((Path(graded["course"].reports) / "ttt1_mcts" / "partial_action_prob" / "ttt1_mcts.json")
                        .read_text())
    assert "Visible test: AssertionError: get_action_prob(tree, 0, 0.5)" in \
        report["cells"]["test_get_action_prob"]["reason"]
    assert "get_reward gives a wrong result" in reasons[("always_equal", "test_get_reward")]  # the hidden judge
    assert reasons[("partial_reward", "test_search_iter")] == ""  # judged where get_reward is right: passed
    assert f"took longer than {CELL_TIMEOUT} s" in reasons[("infinite_loop", "test_get_action_prob")]
    assert "kernel died" in reasons[("os_exit", "test_expand_node")]
    # the transformer blanked the notebook kernel's tests, never the hidden tests' kernel (where it is left out)
    assert reasons[("input_transformer", "test_get_next_state")] == ""
    assert "SystemExit" in reasons[("sys_exit", "test_get_action_prob")]


def test_hex_verdicts_name_the_slip(graded):
    cells = {student: graded["rows"][(student, "hex4_onpolicy")]["cells"]
             for student in ("partial_winner", "forged_games", "as_distributed")}
    assert cells["partial_winner"]["test_winner"]["reason"].startswith("winner gives a wrong result")
    # rollout and topp are probed with a correct winner: the slip costs test_winner's points only
    assert cells["partial_winner"]["test_rollout"]["reason"] == cells["partial_winner"]["test_topp"]["reason"] == ""
    # the forged play_game fooled the visible tests, not the judge, whose agents record every game
    assert cells["forged_games"]["test_topp"]["reason"].startswith("topp gives a wrong result on 8 of 8")
    report = json.loads((Path(graded["course"].reports) / "hex4_onpolicy" / "forged_games" / "hex4_onpolicy.json")
                        .read_text())
    assert "the games were played as the protocol says, but the table differs" in \
        report["cells"]["test_topp"]["reason"]
    assert "Visible test" not in report["cells"]["test_topp"]["reason"]
    assert cells["as_distributed"]["test_winner"]["reason"].startswith("NotImplementedError")
    # rollout's visible test waits for winner ("fix winner first"): the judge names the blank answer itself
    assert cells["as_distributed"]["test_rollout"]["reason"].startswith("NotImplementedError: rollout is not written yet")


def test_a_compile_bomb_costs_its_own_points_within_two_minutes(graded):
    """policy_loss makes XLA compile 20,000 operations for every shape: its test cell stops at its budget,
    the training cell does not run it again, and every other test passes."""
    assert graded["results"][("hex4_onpolicy", "compile_bomb")]["seconds"] <= 120
    cells = graded["rows"][("compile_bomb", "hex4_onpolicy")]["cells"]
    assert cells["test_policy_loss"]["reason"].startswith("compilation or execution took longer than 60 s")


def test_forged_notebooks_earn_what_their_own_code_earns_with_the_place_named(graded):
    """Issue 31: every assignment's forgeries (the probe runner wrapped four ways; helpers found by computed
    names and frames) and the honest own helper; their exact scores and flags are in the corpus."""
    forged = [c for c in graded["cases"] if c.name in ("forged_runtime", "forged_helpers")]
    assert {c.assignment for c in forged} == set(corpus.example_modules()) and len(forged) == 12
    for case in forged:
        flags = graded["rows"][(case.name, case.assignment)]["flags"]
        assert "left out of the hidden tests (reaches code it does not name, or the grader's runtime): cell " in flags
        assert ", line " in flags
    for assignment in ("ttt1_mcts", "othello5_planning"):
        row = graded["rows"][("own_helper", assignment)]
        assert row["flags"] == "" and row["code_score"] == row["max_code_score"]
    notebooks = {path.stem for path in (REPO_ROOT / "release").glob("*/*.ipynb")}
    reports = [path for path in Path(graded["course"].reports).glob("*/*/*.json") if path.stem in notebooks]
    assert len(reports) >= len(graded["cases"]) // 2  # <notebook>.json: the sandbox's report of each grading
    for path in reports:
        report = json.loads(path.read_text())
        assert report["jax_cache_wait_seconds"] >= 0 and report["seconds"] >= 0, path


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
    assert len(rows) == len(graded["cases"]) + 2  # one row per student and notebook (+ raw_metadata, broken_json)
    full = next(r for r in rows if r["student"] == "full" and r["notebook"] == "ttt1_mcts")
    assert full["test_search_iter"] == "5/5" and full["code_score"] == "21.0"
    blank = next(r for r in rows if r["student"] == "blank" and r["notebook"] == "ttt1_mcts")
    assert blank["test_get_reward"] == "0/3" and "NotImplementedError" in blank["test_get_reward (reason)"]


def test_feedback_has_verdicts_and_no_secrets(graded):
    course = graded["course"]
    full = (Path(course.feedback) / "full" / "ttt1_mcts" / "ttt1_mcts.html").read_text()
    assert "Tests passed" in full
    assert full.count("<img") >= 3, "the search-tree pictures reach the feedback (inline backend in the sandbox)"
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


# ----------------------------------------------------------------------------- the CLI (issue 11, items 5, 6, 9)

def cli(course, *args):
    done = subprocess.run([sys.executable, "-m", "autograder", "--workspace", str(course.root), *args],
                          capture_output=True, text=True, timeout=600, cwd=REPO_ROOT)
    return done.returncode, done.stdout, done.stderr


def test_cli_autograde_exits_non_zero_with_the_cause(graded):
    code, out, err = cli(graded["course"], "autograde", "ttt1_mcts", "--student", "broken_json")
    assert code == 1
    assert "broken_json/ttt1_mcts: autograde failed: NotJSONError" in err
    assert err.strip().splitlines()[-1] == "error: 1 of 1 submission(s) could not be graded (their rows say why)"


@pytest.mark.parametrize("args, message", [
    (["autograde", "ttt1_mcst"], "error: no assignment named ttt1_mcst (the course has: azul3_play, hex4_onpolicy, "
                                 "othello5_planning, tak6_alphazero, ttt1_mcts, ttt2_selfplay)"),
    (["autograde", "ttt1_mcts", "--student", "nobody"], "error: nothing to grade: no submission of ttt1_mcts and "
                                                         "student nobody"),
    (["feedback", "azul"], "error: no assignment named azul"),
])
def test_cli_refuses_unknown_names_in_one_line(graded, args, message):
    code, out, err = cli(graded["course"], *args)
    assert code == 2 and err.startswith(message) and len(err.strip().splitlines()) == 1, err


def test_writing_a_secret_line_yourself_never_withholds_feedback(graded):
    course = graded["course"]
    assert (Path(course.feedback) / "writes_secrets" / "ttt1_mcts" / "ttt1_mcts.html").exists()
    assert not leaks.leaking_feedback(course)


def test_a_leak_withholds_that_students_feedback_only(graded):
    """A grader bug that puts a hidden-test line into one student's autograded notebook: only their
    feedback is withheld (and said so in their row); every other student's is delivered."""
    course, assignment = graded["course"], "ttt2_selfplay"  # the fewest submissions: the least feedback to redo
    hidden, _ = leaks.secret_lines(Path(course.source))
    line = sorted(hidden)[0]
    path = Path(course.autograded) / "full" / assignment / f"{assignment}.ipynb"
    score = graded["rows"][("full", assignment)]["code_score"]
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=line + "\n"))
    nbformat.write(nb, path)
    # the leaking student's assignment only (the other five keep the fixture's feedback): a whole-course
    # run regenerated 65 students' feedback to check the 1 of 14 here (4 min of the suite)
    code, out, err = cli(course, "feedback", assignment)
    graded_here = len(list(Path(course.autograded).glob(f"*/{assignment}/*.ipynb")))
    graded_notebooks = len(list(Path(course.autograded).glob("*/*/*.ipynb")))
    assert code == 0 and err == ""
    assert (f"feedback for {graded_here - 1} of {graded_here} submission(s) in {course.feedback} "
            f"(leak scan clean); 1 not delivered: their rows say why") in out
    assert f"full/{assignment}: feedback withheld: it would show 1 hidden-test" in out
    assert not (Path(course.feedback) / "full" / assignment / f"{assignment}.html").exists()
    delivered = sorted(Path(course.feedback).glob("*/*/*.html"))
    assert len(delivered) == graded_notebooks - 1 and leaks.scan_feedback(course) == []
    row = next(r for r in pipeline.grade_rows(course) if (r["student"], r["notebook"]) == ("full", assignment))
    assert "feedback withheld" in row["problems"] and row["code_score"] == score > 0


def test_the_class_report_of_the_corpus(graded, tmp_path):
    """`report` on every assignment's graded corpus, hostile submissions included: its counts are the grade
    table's, the infinite loop is a timeout, `os._exit` a kernel death, the broken file could not be
    graded, and no secret line reaches a page (the withheld feedback's reason quotes one: it is redacted)."""
    from autograder import report
    from test_class_report import assert_matches_grade_rows, secrets_on

    course = graded["course"]
    written = report.write_reports(course, output=tmp_path)
    pages = {html.stem: json.loads(data.read_text()) for html, data in written}
    assert set(pages) == set(course.assignments())
    assert_matches_grade_rows(course, pages)
    health = pages["ttt1_mcts"]["health"]
    assert "infinite_loop" in [row["student"] for row in health["timeouts"]]
    assert "os_exit" in [row["student"] for row in health["kernel_deaths"]]
    assert [row["student"] for row in health["autograde_failed"]] == ["broken_json"]
    for html, _ in written:
        assert secrets_on(course, html) == []
