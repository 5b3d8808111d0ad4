"""`python -m autograder report`: the class at a glance, checked against the gradebook and the reports.

The class: six of the demo's example submissions of parts 1 and 3 and three realistic mistakes of part 1
(``tests/synthetic_class.py``), each graded once by the real pipeline (sandboxed nbgrader autograde) with
the suite's graded corpus (``tests/courses.py``) and kept alone in a copy of it, then replicated under
generated names through nbgrader's Gradebook API and the grader's report files until each assignment
has 200 submissions; three more students on the roster submit nothing. Grading 200 notebooks would
cost an hour of CPU, and the report reads nothing but the gradebook and the reports. Every count the
report gives is computed again here, independently: from the SQLite gradebook with plain SQL and from
the report files read as JSON.

The page is then opened in Debian's Chromium (Playwright): it renders, its pictures load, the names
toggle shows and hides names, the print stylesheet drops the button, and the leak scan finds no
hidden-test, judge or solution line in it.
"""
import json
import re
import sqlite3
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from autograder import leaks, pipeline
from autograder.grading_config import REPO_ROOT
from autograder.report import reasons
from courses import graded_corpus
from synthetic_class import ABSENT, ASSIGNMENTS, build_class, keep_variants

pytestmark = pytest.mark.slow
CLASS_SIZE = 200
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    course, facts = graded_corpus(tmp_path_factory, tmp_path_factory.mktemp("class") / "ws")
    kept = keep_variants(course)
    assert kept and all(facts["results"][pair]["ok"] for pair in kept), facts["results"]
    made = build_class(course, CLASS_SIZE)
    done = subprocess.run([sys.executable, "-m", "autograder", "--workspace", str(course.root), "report"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    pages = {}
    for line in done.stdout.splitlines():
        found = re.fullmatch(r"class report: (\S+\.html) \(data: (\S+\.json)\)", line)
        if found:
            html = Path(found.group(1))
            pages[html.stem] = (html, json.loads((html.parent / found.group(2)).read_text()))
    return course, made, pages


# ----------------------------------------------------------------------------- computed independently

def gradebook_points(course, assignment: str) -> dict:
    """{student: {cell: (points, max points)}} of every test cell (graded, not a solution cell), by SQL."""
    with sqlite3.connect(f"file:{course.gradebook}?mode=ro", uri=True) as db:
        rows = db.execute("""
            SELECT sa.student_id, bc.name, COALESCE(g.manual_score, g.auto_score, 0), gc.max_score
            FROM grade g JOIN submitted_notebook sn ON g.notebook_id = sn.id
            JOIN submitted_assignment sa ON sn.assignment_id = sa.id JOIN assignment a ON sa.assignment_id = a.id
            JOIN base_cell bc ON g.cell_id = bc.id JOIN grade_cells gc ON gc.id = bc.id
            WHERE a.name = ? AND bc.name NOT IN (
                SELECT sbc.name FROM solution_cells sc JOIN base_cell sbc ON sc.id = sbc.id
                WHERE sbc.notebook_id = bc.notebook_id)""", (assignment,)).fetchall()
        totals = dict(db.execute("""
            SELECT sa.student_id, SUM(COALESCE(g.manual_score, g.auto_score, 0))
            FROM grade g JOIN submitted_notebook sn ON g.notebook_id = sn.id
            JOIN submitted_assignment sa ON sn.assignment_id = sa.id JOIN assignment a ON sa.assignment_id = a.id
            WHERE a.name = ? GROUP BY sa.student_id""", (assignment,)).fetchall())
        roster = db.execute("SELECT count(*) FROM student").fetchone()[0]
    points = {}
    for student, cell, score, top in rows:
        points.setdefault(student, {})[cell] = (score, top)
    return {"points": points, "totals": totals, "roster": roster}


def report_files(course, assignment: str) -> dict:
    """{student: (the sandbox report, the collect report)} read straight from reports/."""
    found = {}
    for folder in (course.reports / assignment).iterdir():
        load = lambda name: json.loads((folder / name).read_text()) if (folder / name).exists() else {}  # noqa: E731
        found[folder.name] = (load(f"{assignment}.json"), load(f"{assignment}.collect.json"))
    return found


def digits_out(text: str) -> str:
    """A reason without its digits and signs, white space collapsed: a coarser, independent twin of
    ``reasons.signature``."""
    return " ".join(re.sub(r"[-+]?\d+(\.\d*)?(e[-+]?\d+)?", "", text).split())


def assert_matches_grade_rows(course, pages: dict) -> None:
    """The report's counts against ``pipeline.grade_rows`` (the grade table's and the CSV's rows: nbgrader's
    objects one submission at a time, and the same report files): submissions, graded and failed, per-test
    passes, failures per test, flagged submissions, timeouts and kernel deaths. `pages`: {assignment: data}."""
    rows = pipeline.grade_rows(course)
    for assignment, data in pages.items():
        mine = [r for r in rows if r["assignment"] == assignment]
        graded = [r for r in mine if r["status"].startswith("graded")]
        failed = [r for r in mine if r["status"] == "autograde failed"]
        assert data["scores"]["graded"] == len(graded) and data["scores"]["autograde_failed"] == len(failed)
        assert data["scores"]["missing"] == data["scores"]["roster"] - len(graded) - len(failed)
        assert data["scores"]["total"]["mean"] == pytest.approx(statistics.fmean(r["score"] for r in graded), abs=1e-3)
        wrong = {test["test"]: test for test in data["wrong"]}
        for test in data["tests"]:
            cells = [r["cells"][test["test"]] for r in graded]
            assert test["passed"] == sum(c["score"] >= c["max"] for c in cells), test
            failing = sorted(r["student"] for r in graded if r["cells"][test["test"]]["score"] < test["max_points"])
            grouped = wrong.get(test["test"], {"groups": [], "stops": []})
            assert sorted(s for e in grouped["groups"] + grouped["stops"] for s in e["students"]) == failing
        health = data["health"]
        assert sorted(r["student"] for r in health["flagged"]) == sorted(r["student"] for r in mine if r.get("flags"))
        for key, text in (("timeouts", "timeout in cell"), ("kernel_deaths", "kernel died in cell")):
            assert sorted(r["student"] for r in health[key]) == sorted(r["student"] for r in mine
                                                                       if text in r.get("flags", ""))
        assert sorted(r["student"] for r in health["autograde_failed"]) == sorted(r["student"] for r in failed)


# ----------------------------------------------------------------------------- the report's numbers

def test_counts_match_the_grade_table(classroom):
    course, _, pages = classroom
    assert_matches_grade_rows(course, {a: data for a, (_, data) in pages.items()})


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_scores_and_submissions_match_the_gradebook(classroom, assignment):
    course, _, pages = classroom
    _, data = pages[assignment]
    book = gradebook_points(course, assignment)
    scores = data["scores"]
    assert scores["submitted"] == scores["graded"] == len(book["totals"]) >= CLASS_SIZE
    assert scores["roster"] == book["roster"]
    assert scores["missing"] == book["roster"] - len(book["totals"]) >= ABSENT
    totals = sorted(book["totals"].values())
    assert scores["total"]["mean"] == pytest.approx(statistics.fmean(totals), abs=1e-3)
    assert scores["total"]["median"] == pytest.approx(statistics.median(totals), abs=1e-3)
    q1, _, q3 = statistics.quantiles(totals, n=4, method="inclusive")
    assert (scores["total"]["q1"], scores["total"]["q3"]) == (pytest.approx(q1, abs=1e-3), pytest.approx(q3, abs=1e-3))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_per_test_statistics_match_the_gradebook(classroom, assignment):
    course, _, pages = classroom
    _, data = pages[assignment]
    points = gradebook_points(course, assignment)["points"]
    students = sorted(points)
    tests = sorted({cell for cells in points.values() for cell in cells})
    assert sorted(row["test"] for row in data["tests"]) == tests
    for row in data["tests"]:
        column = [points[s][row["test"]][0] for s in students]
        top = points[students[0]][row["test"]][1]
        assert row["passed"] == sum(score >= top for score in column)
        assert row["mean_points"] == pytest.approx(statistics.fmean(column), abs=1e-3)
        assert row["difficulty"] == pytest.approx(1 - statistics.fmean(column) / top, abs=1e-3)
        rest = [sum(p for p, _ in points[s].values()) - points[s][row["test"]][0] for s in students]
        if len(set(column)) > 1 and len(set(rest)) > 1:
            assert row["discrimination"] == pytest.approx(statistics.correlation(column, rest), abs=1e-3)
        else:
            assert row["discrimination"] is None
    shares = [row["mean_points"] / row["max_points"] for row in data["tests"]]
    assert shares == sorted(shares), "hardest first"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_failure_is_in_one_group_and_groups_match_the_reports(classroom, assignment):
    course, _, pages = classroom
    _, data = pages[assignment]
    points = gradebook_points(course, assignment)["points"]
    files = report_files(course, assignment)
    for test in data["wrong"]:
        failing = {s for s, cells in points.items() if cells[test["test"]][0] < cells[test["test"]][1]}
        grouped = [s for entry in test["groups"] + test["stops"] for s in entry["students"]]
        assert sorted(grouped) == sorted(failing) and test["failed"] == len(failing)
        expected = Counter(digits_out(files[s][0]["cells"][test["test"]]["reason"]) for s in failing)
        assert sorted(e["count"] for e in test["groups"] + test["stops"]) == sorted(expected.values()), test["test"]
    failing_tests = {cell for cells in points.values() for cell, (p, top) in cells.items() if p < top}
    assert {test["test"] for test in data["wrong"]} == failing_tests


def test_one_slip_in_numbers_is_one_group_and_different_slips_are_not(classroom):
    """Two ways of missing the anti-diagonal in `get_reward` (the corpus' wrapper and a realistic rewrite) fail
    on the same board and the same visible assertion, on 280 and 266 of the cases: one group, titled with
    the visible test's hint. A full board that is never over is another slip: its own group. Each group
    holds exactly its variants and their replicas."""
    course, made, pages = classroom
    wrong = {test["test"]: test for test in pages["ttt1_mcts"][1]["wrong"]}
    copies = made["ttt1_mcts"]
    files = report_files(course, "ttt1_mcts")
    one, other = (files[s][0]["cells"]["test_get_reward"]["reason"] for s in ("partial_reward", "slip_anti_diagonal"))
    assert one != other and reasons.signature(one) == reasons.signature(other)
    groups = wrong["test_get_reward"]["groups"]
    diagonal = next(g for g in groups if "partial_reward" in g["students"])
    assert sorted(diagonal["students"]) == sorted(["partial_reward", "slip_anti_diagonal", *copies["partial_reward"],
                                                   *copies["slip_anti_diagonal"]])
    assert diagonal["title"] == "the anti-diagonal 2-4-6" and diagonal["count"] == len(diagonal["students"])
    full_board = next(g for g in groups if "slip_full_board" in g["students"])
    assert sorted(full_board["students"]) == sorted(["slip_full_board", *copies["slip_full_board"]])
    assert full_board["title"].startswith("a full board without a line is a draw")
    assert len({g["signature"] for g in groups}) == len(groups)


def test_numbers_are_abstracted_and_names_kept():
    assert reasons.signature("timeout in cell 12 (test_x2): took longer than 20 s") == \
        "timeout in cell # (test_x2): took longer than # s"
    assert reasons.signature("got:  [0.5, -1, 1e-09, nan, 2,939]\n  ttt1_mcts: 1,234 cases") == \
        "got: [#, #, #, #, #] ttt1_mcts: # cases"


def test_prerequisite_stops_are_counted_apart():
    failures = [("ann", "search_iter was not checked: get_reward, which it calls, disagrees with the reference on "
                        "12 of 20 test searches (get_reward: wrong). Fix get_reward first: its own test shows the "
                        "details."),
                ("bob", "search_iter was not checked: get_reward, which it calls, disagrees with the reference on "
                        "7 of 20 test searches (get_reward: wrong). Fix get_reward first: its own test shows the "
                        "details."),
                ("cy", "PrerequisiteNotPassed: search_iter was not tested: fix get_reward and expand_node first"),
                ("dan", "search_iter builds a different tree.\nAfter 3 simulations: node 2 N_sa differs")]
    grouped = reasons.group_failures(failures)
    assert [(s["fix_first"], s["students"]) for s in grouped["stops"]] == [
        (["get_reward"], ["ann", "bob"]), (["get_reward", "expand_node"], ["cy"])]
    assert [(g["title"], g["students"]) for g in grouped["groups"]] == [("search_iter builds a different tree.", ["dan"])]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_health_matches_the_reports(classroom, assignment):
    course, _, pages = classroom
    health = pages[assignment][1]["health"]
    files = report_files(course, assignment)
    flags = {s: collected.get("flags", []) + runtime.get("flags", []) for s, (runtime, collected) in files.items()}
    assert sorted(row["student"] for row in health["flagged"]) == sorted(s for s, f in flags.items() if f)
    assert len(health["timeouts"]) == sum(any(f.startswith("timeout in cell") for f in fs) for fs in flags.values())
    assert len(health["kernel_deaths"]) == sum(any(f.startswith("kernel died") for f in fs) for fs in flags.values())
    seconds = [runtime["seconds"] for runtime, _ in files.values() if "seconds" in runtime]
    assert health["seconds"]["timed"] == len(seconds)
    # the page gives tenths: 19.25 may show as 19.2 (a float just under the half)
    assert health["seconds"]["median"] == pytest.approx(statistics.median(seconds), abs=0.051)
    assert health["seconds"]["slowest"][0]["seconds"] == max(seconds)
    if assignment == "ttt1_mcts":
        assert any("gradebook" in f for row in health["flagged"] for f in row["flags"])  # the demo's gradebook_write


def test_over_the_course(classroom):
    course, _, pages = classroom
    data = pages["ttt1_mcts"][1]["course"]
    assert {a["assignment"] for a in data["assignments"]} == set(ASSIGNMENTS)
    book = {a: gradebook_points(course, a)["totals"] for a in ASSIGNMENTS}
    assert len(data["students"]) == gradebook_points(course, ASSIGNMENTS[0])["roster"]
    for row in data["students"]:
        for assignment in ASSIGNMENTS:
            assert row["scores"][assignment] == book[assignment].get(row["student"])


def test_cli_refuses_an_unknown_assignment_in_one_line(classroom):
    course, _, _ = classroom
    done = subprocess.run([sys.executable, "-m", "autograder", "--workspace", str(course.root), "report", "ttt1_mcst"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("error: no assignment named ttt1_mcst (the course has:")


# ----------------------------------------------------------------------------- the page, in a browser

def secrets_on(course, html_path: Path) -> list:
    """The hidden-test, judge and solution lines a page shows: the feedback leak scan's (whole lines), and
    any such line quoted inside a longer line (whole, or its first 100 characters as a withheld-feedback
    reason quotes it)."""
    kinds = leaks.feedback_secrets(course.source)
    lines = leaks.html_lines(html_path)
    text = "\n".join(lines)
    quoted = [secret for secrets, _ in kinds for secret in secrets if secret in text or secret[:100] in text]
    return leaks.secrets_shown(lines, set(), kinds) + quoted


def test_the_page_holds_no_secret_line(classroom):
    course, _, pages = classroom
    for html_path, _ in pages.values():
        assert secrets_on(course, html_path) == []


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed "
                                                        "(.ci/run installs it: apt-get install chromium)")
def test_the_page_in_a_browser(classroom):
    playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (requirements.txt)")
    course, _, pages = classroom
    html_path, data = pages["ttt1_mcts"]
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(html_path.as_uri())
        page.wait_for_load_state("load")
        assert page.title() == "ttt1_mcts: the class at a glance"
        for heading in ("Scores", "Per test", "What went wrong", "Integrity and health", "Similar answers",
                        "Over the course"):
            assert page.get_by_role("heading", name=heading, exact=True).is_visible()
        widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
        assert len(widths) == 3 and all(w > 0 for w in widths), widths
        group = page.locator("#wrong .group").first
        group.locator("summary").click()  # "who": the group's students
        a_student = data["wrong"][0]["groups"][0]["students"][0]
        name = group.locator(".name", has_text=a_student).first
        assert not name.is_visible() and group.locator(".anon").first.is_visible()
        page.click("#toggle")
        assert name.is_visible() and not group.locator(".anon").first.is_visible()
        page.click("#toggle")
        assert not name.is_visible()
        text = page.inner_text("body")
        page.emulate_media(media="print")  # the print stylesheet: no button on paper
        assert not page.locator("#toggle").is_visible() and page.locator("#scores img").is_visible()
        browser.close()
    lines = {" ".join(line.split()) for line in text.splitlines()}
    assert leaks.secrets_shown(lines, set(), leaks.feedback_secrets(course.source)) == []
    first = data["wrong"][0]["groups"][0]
    assert f"{first['count']} students: {first['title']}" in text
