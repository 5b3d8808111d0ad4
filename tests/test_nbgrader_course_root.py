"""Plain nbgrader, as nbgrader's documentation uses it, with the repository root as the course root.

A copy of the repository (what git tracks, plus new files not ignored) stands in for an instructor's
checkout; every command below is typed as the docs type it, in that folder, with nothing but the
course's ``nbgrader_config.py`` to configure it:

    nbgrader generate_assignment A / generate_solution A    (every assignment)
    nbgrader autograde ttt1_mcts                             (a full, a blank and a hostile submission)
    nbgrader generate_feedback ttt1_mcts
    nbgrader export

Then the formgrader: JupyterLab started at that root, driven in headless Chromium (Debian's
``chromium`` through Playwright from PyPI).
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder import corpus, leaks, pipeline
from autograder.grading_config import REPO_ROOT
from jupyter_lab import running_lab

pytestmark = pytest.mark.slow
ASSIGNMENTS = ("ttt1_mcts", "ttt2_selfplay", "azul3_play", "hex4_onpolicy", "othello5_planning", "tak6_alphazero")
STUDENTS = ("full", "blank", "gradebook_write")
CHROMIUM = "/usr/bin/chromium"
TOKEN = "azcourse-formgrader-test"


def _copy_checkout(target: Path) -> None:
    """The files of this checkout that a clone would have (tracked, or new and not ignored)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO_ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for relative in filter(None, listed):
        source = REPO_ROOT / relative
        if source.is_file():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / relative)


def _env(root: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(root), "JAX_PLATFORMS": "cpu", "MPLBACKEND": "Agg",
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}


def nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`nbgrader ARGS` typed in the course root (the venv's own `nbgrader` script)."""
    return subprocess.run([str(Path(sys.executable).parent / "nbgrader"), *args], cwd=root, env=_env(root),
                          capture_output=True, text=True, timeout=1200)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("checkout")
    _copy_checkout(root)
    shutil.rmtree(root / "release")
    shutil.rmtree(root / "solutions")
    steps = {}
    for assignment in ASSIGNMENTS:
        for command in ("generate_assignment", "generate_solution"):
            done = nbgrader(root, command, assignment)
            assert done.returncode == 0, done.stderr[-3000:]
    layout = pipeline.Course(root, root, root / "assignments", root / "release", root / "submitted",
                             root / "autograded", root / "feedback", root / "gradebook.db",
                             root / "autograder" / "reports")
    cases = {case.name: case for case in corpus.all_cases() if case.assignment == "ttt1_mcts"}
    for student in STUDENTS:
        for relative, data in cases[student].make(layout).items():
            (root / "submitted" / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / "submitted" / relative).write_bytes(data)
    steps["autograde"] = nbgrader(root, "autograde", "ttt1_mcts")
    steps["feedback"] = nbgrader(root, "generate_feedback", "ttt1_mcts")
    steps["export"] = nbgrader(root, "export")
    return {"root": root, "steps": steps, "course": layout}


def test_generate_writes_exactly_the_committed_release_and_solutions(course):
    """`nbgrader generate_assignment` / `generate_solution` give the files the build commits, byte for byte:
    no hidden tests in the solutions, the header cells, the copied part-1 cell."""
    root = course["root"]
    for folder in ("release", "solutions"):
        for assignment in ASSIGNMENTS:
            made = (root / folder / assignment / f"{assignment}.ipynb").read_bytes()
            assert made == (REPO_ROOT / folder / assignment / f"{assignment}.ipynb").read_bytes(), f"{folder}/{assignment}"
    assert leaks.scan(course["course"]) == []
    for assignment in ASSIGNMENTS:
        text = (root / "solutions" / assignment / f"{assignment}.ipynb").read_text()
        assert "BEGIN HIDDEN TESTS" not in text and "### BEGIN SOLUTION" not in text


def test_autograde_runs_sandboxed_and_the_judge_decides(course):
    done = course["steps"]["autograde"]
    assert done.returncode == 0, done.stderr[-3000:]
    reports = course["root"] / "autograder" / "reports" / "ttt1_mcts"
    for student in STUDENTS:
        report = json.loads((reports / student / "ttt1_mcts.json").read_text())
        assert report["isolation"].startswith("bubblewrap"), (student, report["isolation"])
    rows = {r["student"]: r for r in pipeline.grade_rows(course["course"])}
    assert rows["full"]["code_score"] == rows["full"]["max_code_score"] > 0
    assert rows["blank"]["code_score"] == 0
    assert rows["gradebook_write"]["code_score"] == 0 and "grader path" in rows["gradebook_write"]["flags"]


def test_feedback_shows_pictures_and_no_secret(course):
    done = course["steps"]["feedback"]
    assert done.returncode == 0, done.stderr[-3000:]
    files = sorted((course["root"] / "feedback").glob("*/ttt1_mcts/ttt1_mcts.html"))
    assert [f.parent.parent.name for f in files] == sorted(STUDENTS)
    assert leaks.scan_feedback(course["course"]) == []
    full = files[[f.parent.parent.name for f in files].index("full")].read_text()
    assert full.count("<img") >= 1 and "BEGIN HIDDEN TESTS" not in full


def test_export_is_the_rich_csv(course):
    done = course["steps"]["export"]
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {r["student"]: r for r in csv.DictReader((course["root"] / "grades.csv").open(encoding="utf-8"))}
    assert set(rows) == set(STUDENTS)
    for column in ("status", "code_score", "problems", "flags", "isolation", "test_get_reward",
                   "test_get_reward (reason)"):
        assert column in rows["full"], column
    assert rows["full"]["isolation"].startswith("bubblewrap") and rows["full"]["test_get_reward"] == "3/3"
    assert "grader path" in rows["gradebook_write"]["flags"]
    assert rows["blank"]["test_get_reward (reason)"]  # a failed cell says why
    # The pack's command is the same export (nbgrader's, with its plugin).
    mine = course["root"] / "mine.csv"
    done = subprocess.run([sys.executable, "-m", "autograder", "export", "--output", str(mine)], cwd=course["root"],
                          env=_env(course["root"]), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert mine.read_text(encoding="utf-8") == (course["root"] / "grades.csv").read_text(encoding="utf-8")


def test_export_without_a_report_folder_configured_reads_the_default_one(course):
    """A course whose configuration names the plugin but not its report folder (nbgrader's own option
    set on the command line) gets the same CSV: the plugin defaults to <root>/autograder/reports."""
    other = course["root"] / "default-reports.csv"
    done = nbgrader(course["root"], "export", f"--to={other}", "--RichCsvExport.report_directory=")
    assert done.returncode == 0, done.stderr[-3000:]
    assert other.read_text(encoding="utf-8") == (course["root"] / "grades.csv").read_text(encoding="utf-8")


def test_plain_feedback_withholds_a_leaking_notebook_for_that_student_only(course, tmp_path):
    """A hidden-test line that reached one autograded notebook (a grader bug): `nbgrader generate_feedback`
    writes no feedback for that student, says why in their report, and delivers everyone else's."""
    root = tmp_path / "course"
    shutil.copytree(course["root"], root, symlinks=True)
    hidden, _ = leaks.secret_lines(root / "assignments")
    path = root / "autograded" / "full" / "ttt1_mcts" / "ttt1_mcts.ipynb"
    nb = nbformat.read(path, as_version=4)
    next(c for c in nb.cells if c.cell_type == "code").outputs.append(
        nbformat.v4.new_output("stream", name="stdout", text=sorted(hidden)[0] + "\n"))
    nbformat.write(nb, path)
    done = nbgrader(root, "generate_feedback", "ttt1_mcts", "--force")
    assert done.returncode != 0
    assert not (root / "feedback" / "full" / "ttt1_mcts" / "ttt1_mcts.html").exists()
    assert all((root / "feedback" / s / "ttt1_mcts" / "ttt1_mcts.html").exists() for s in STUDENTS if s != "full")
    report = json.loads((root / "autograder" / "reports" / "ttt1_mcts" / "full" / "ttt1_mcts.feedback.json")
                                 .read_text())
    assert report["problems"] and report["problems"][0].startswith("feedback withheld: it would show 1 hidden-test")


# ----------------------------------------------------------------------------- the formgrader


@pytest.fixture(scope="module")
def formgrader(course):
    """JupyterLab started at the course root, as nbgrader's docs start it for the formgrader."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (.ci/run installs it: apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (requirements.txt)")
    root = course["root"]
    home = root.parent / "home"
    home.mkdir(exist_ok=True)
    with running_lab(root, {**_env(root), "HOME": str(home)}, home / "lab.log", TOKEN) as url:
        yield url


def test_formgrader_lists_the_assignments_shows_the_verdict_and_every_link_opens(formgrader, course):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(f"{formgrader}/lab?token={TOKEN}")  # logs in (a cookie), as opening Lab does
        page.goto(f"{formgrader}/formgrader/manage_assignments")
        page.locator("#main-table td.name").first.wait_for(timeout=60_000)
        names = page.locator("#main-table td.name").all_inner_texts()
        assert sorted(n.strip() for n in names) == sorted(ASSIGNMENTS), names
        links = set(_links(page))

        page.goto(f"{formgrader}/formgrader/gradebook/ttt1_mcts/ttt1_mcts")
        page.locator("#main-table a[href*='/formgrader/submissions/']").first.wait_for(timeout=60_000)
        submissions = sorted(set(_links(page, "#main-table a[href*='/formgrader/submissions/']")))
        assert len(submissions) == len(STUDENTS), submissions
        links |= set(_links(page))
        verdicts = {}
        for submission in submissions:
            page.goto(submission)
            page.wait_for_load_state("load")
            here = _links(page)
            links |= set(here)
            student = next(link.split("/autograded/")[1].split("/")[0] for link in here if "/autograded/" in link)
            verdicts[student] = page.locator("body").inner_text()
        assert sorted(verdicts) == sorted(STUDENTS)
        # The judge's verdict, as the grader wrote it into the test cell's output.
        assert "Test failed (decided by the grader, outside your kernel)" in verdicts["blank"]
        assert "NotImplementedError" in verdicts["blank"]
        assert "Test failed" not in verdicts["full"]

        links = {link.split("#")[0] for link in links if link.startswith(formgrader) and "logout" not in link}
        notebook_links = [link for link in links if re.search(r"/(tree|notebooks)/", link)]
        assert any("/autograded/" in link for link in notebook_links), sorted(links)
        assert any("/assignments/" in link for link in notebook_links), sorted(links)
        broken = [(link, status) for link in sorted(links) if (status := page.request.get(link).status) != 200]
        assert not broken, broken
        browser.close()


def _links(page, selector: str = "a[href]") -> list[str]:
    return page.eval_on_selector_all(selector, "as => as.map(a => a.href)")
