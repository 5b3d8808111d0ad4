"""A newcomer sees progress and a result at every step (issue 33).

`python -m autograder demo othello5_planning` in a workspace (part 5: two example submissions, no JAX, a
few seconds each) prints the build's k/N, each submission's score as it finishes, and the table at the
end. Then, in the same workspace, an `autograde` interrupted as Ctrl-C interrupts it leaves the
submission it was grading "not graded (interrupted)" and those it had not reached "not graded (run
autograde)" in the table and the CSV, and `autograde` again grades exactly those.
"""
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from autograder.grading_config import REPO_ROOT

pytestmark = pytest.mark.slow
ASSIGNMENT = "othello5_planning"
ENV = {**os.environ, "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg", "JAX_PLATFORMS": "cpu"}
GRADED = re.compile(rf"^\[(\d+)/(\d+)\] graded (\S+)/{ASSIGNMENT} in [\d.]+ s: (.+?)(  \(.*\))?$")


def cli(workspace, *args, timeout=900):
    return subprocess.run([sys.executable, "-m", "autograder", "--workspace", str(workspace), *args], cwd=REPO_ROOT,
                          env=ENV, capture_output=True, text=True, timeout=timeout)


def table_rows(out: str) -> dict:
    """{student: score text} of the last grade table in `out`."""
    lines = out.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("student "))
    rows = {}
    for line in lines[start + 2:]:
        if line and not line.startswith(" "):
            student, _, rest = line.partition("  ")
            if rest.strip().startswith(ASSIGNMENT):
                rows[student.strip()] = rest.strip()[len(ASSIGNMENT):].strip()
            else:
                break
    return rows


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    workspace = tmp_path_factory.mktemp("progress") / "ws"
    done = cli(workspace, "demo", ASSIGNMENT, "--jobs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    return workspace, done.stdout


def test_the_demo_prints_progress_and_each_score_before_the_table(demo):
    _, out = demo
    lines = out.splitlines()
    table = next(i for i, line in enumerate(lines) if line.startswith("student "))
    assert any(re.match(rf"^\[1/1\] generated {ASSIGNMENT} \(release and solution\) in \d+ s$", line)
               for line in lines[:table]), out
    graded = {m.group(3): (int(m.group(1)), int(m.group(2)), m.group(4), m.group(5))
              for m in map(GRADED.match, lines[:table]) if m}
    assert sorted(k for k, _, _, _ in graded.values()) == [1, 2] and {n for _, n, _, _ in graded.values()} == {2}, out
    first = next(figures for k, _, _, figures in graded.values() if k == 1)
    assert re.fullmatch(r"  \((1 running, )?1 to go, about \d+( min \d+)? s left\)", first), first
    assert re.search(rf"^\[1/1\] feedback for {ASSIGNMENT}: 2 submission\(s\) in \d+ s$", out, re.M), out
    rows = table_rows(out)
    assert set(rows) == set(graded) and all(rows[s] == score for s, (_, _, score, _) in graded.items()), (rows, graded)
    assert re.fullmatch(r"(\d+)/\1 of \d+ points; \d+ await manual grading|(\d+)/\2 points", rows["full"]), rows


def as_from_a_shell():
    """SIGINT as a command typed in a shell has it (a test worker's threads may have it blocked or ignored)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_an_interrupted_autograde_shows_and_a_second_run_grades_exactly_the_rest(demo):
    workspace, _ = demo
    for student in ("k1", "k2", "k3"):  # three more copies of the full answer, graded one at a time
        shutil.copytree(workspace / "submitted" / "full", workspace / "submitted" / student)
    grader = subprocess.Popen([sys.executable, "-m", "autograder", "--workspace", str(workspace), "autograde",
                               "--jobs", "1"], cwd=REPO_ROOT, env=ENV, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True, preexec_fn=as_from_a_shell)
    out = []
    for line in grader.stdout:
        out.append(line)
        if line.startswith("[1/3] graded k1/"):
            time.sleep(2)  # k2's nbgrader has started
            os.killpg(grader.pid, signal.SIGINT)  # what Ctrl-C sends: the CLI and its nbgrader
            break
    out.append(grader.stdout.read())
    assert grader.wait(timeout=120) == 130, "".join(out)
    out = "".join(out)
    assert "2 of 5 submission(s) already have a finished grade (--regrade grades them again); grading the other 3" \
        in out
    rows = table_rows(out)
    assert rows["k1"] == rows["full"]
    assert rows["k2"] == "not graded (interrupted)" and rows["k3"] == "not graded (run autograde)", out
    assert "grading started" in out and "was interrupted: `autograde` again grades it" in out

    exported = cli(workspace, "export", "--output", str(workspace / "grades.csv"))
    assert exported.returncode == 0, exported.stderr
    status = {r["student"]: r["status"] for r in csv.DictReader((workspace / "grades.csv").open(encoding="utf-8"))}
    assert status["k2"] == "not graded (interrupted)" and status["k3"] == "not graded (run autograde)", status

    again = cli(workspace, "autograde", "--jobs", "1")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "3 of 5 submission(s) already have a finished grade (--regrade grades them again); grading the other 2" \
        in again.stdout
    regraded = sorted(m.group(3) for m in map(GRADED.match, again.stdout.splitlines()) if m)
    assert regraded == ["k2", "k3"], again.stdout
    final = table_rows(again.stdout)
    assert final["k1"] == final["k2"] == final["k3"] == final["full"] == rows["full"], again.stdout
