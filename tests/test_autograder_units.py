"""Fast checks of the autograder's parts, including their failure paths (the end-to-end test
grades the real corpus; these pin the pieces it relies on)."""
import json
import os
import shutil
import socket
import types
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder import collect, isolation, leaks, pipeline, probes, sandbox, testcells
from autograder.grading_config import REPO_ROOT

TEST_CELL = '''assert get_reward(init_board()) == (0, False)
### BEGIN HIDDEN TESTS
from autograder.assignments.ttt1_mcts.checks import check_get_reward
check_get_reward(get_reward)
### END HIDDEN TESTS'''


# ----------------------------------------------------------------------------- probe / judge split

def test_check_calls_become_probe_calls_with_a_nonce():
    source, calls = testcells.rewrite_test_cell(TEST_CELL)
    assert [(c.module, c.name) for c in calls] == [("ttt1_mcts", "get_reward")]
    assert "autograder" not in source
    assert f"probe('ttt1_mcts', 'get_reward', get_reward, '{calls[0].nonce}')" in source
    first, second = source.splitlines()[:2]  # the probe runs first, then the visible assert
    assert first.startswith("__import__('_agprobe._runtime')._runtime.probe('ttt1_mcts', 'get_reward'")
    assert second == "assert get_reward(init_board()) == (0, False)"
    helper = "def f(b):\n    return get_reward(b)\nfrom autograder.assignments.ttt1_mcts.checks import check_get_reward\ncheck_get_reward(f)"
    assert testcells.rewrite_test_cell(helper)[0].startswith("def f(b):")  # a function of the cell: not moved
    assert testcells.rewrite_test_cell("assert 1 + 1 == 2") == ("assert 1 + 1 == 2", [])


@pytest.mark.parametrize("bad", ["import autograder.assignments.ttt1_mcts.checks as t\nt.check_get_reward(get_reward)",
                                 "from autograder.assignments.ttt1_mcts.checks import check_get_reward\ncheck_get_reward(a, b)",
                                 "from autograder.assignments.ttt1_mcts.checks import check_get_reward as c\nc(get_reward)",
                                 "from autograder.reference import ttt1"])
def test_unsupported_test_cells_are_refused(bad):
    with pytest.raises(testcells.UnsupportedTestCell):
        testcells.rewrite_test_cell(bad)


def test_trusted_judge_accepts_the_reference_and_rejects_forgeries():
    from autograder import reference
    from autograder.assignments.ttt1_mcts import probes as ttt_probes

    cases = probes.kernel_cases("ttt1_mcts", "get_reward")
    good = json.loads(json.dumps(ttt_probes.probe_get_reward(reference.ttt1()["get_reward"], cases)))
    assert probes.judge("ttt1_mcts", "get_reward", good) is None
    forged = [{"reward": 0.0, "done": False}] * len(cases)
    assert "get_reward gives a wrong result" in probes.judge("ttt1_mcts", "get_reward", forged)
    assert "malformed" in probes.judge("ttt1_mcts", "get_reward", {"not": "a list"})


def test_probe_data_needs_the_right_nonce(tmp_path):
    call = testcells.CheckCall("ttt1_mcts", "get_reward")
    (tmp_path / ".probe").mkdir()
    assert "no test data came back" in probes.probe_outputs(tmp_path, call)
    (tmp_path / ".probe" / f"{call.nonce}.json").write_text(json.dumps({"nonce": "guessed", "outputs": []}))
    assert "not what the grader asked for" in probes.probe_outputs(tmp_path, call)
    (tmp_path / ".probe" / f"{call.nonce}.json").write_text(json.dumps({"nonce": call.nonce, "outputs": [1]}))
    assert probes.probe_outputs(tmp_path, call) == [1]


# ----------------------------------------------------------------------------- the sandbox itself

CONFINEMENT = r'''
import os, json
report = {"uid": os.getuid(), "cwd": os.getcwd()}
for path in PATHS:
    try:
        open(path).read(10) if os.path.isfile(path) else os.listdir(path)
        report[path] = "readable"
    except OSError as exc:
        report[path] = type(exc).__name__
for path in WRITES:
    try:
        open(path, "w").write("x")
        report[path] = "written"
    except OSError as exc:
        report[path] = type(exc).__name__
import socket
try:
    socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
    report["network"] = "connected"
except OSError as exc:
    report["network"] = type(exc).__name__
try:
    import autograder
    report["import autograder"] = "ok"
except ImportError:
    report["import autograder"] = "ImportError"
print(json.dumps(report))
'''


def test_kernel_cannot_see_or_touch_grader_files(tmp_path):
    secret = [str(REPO_ROOT / "assignments"), str(REPO_ROOT / "autograder" / "reference.py"),
              str(REPO_ROOT / "solutions"), str(REPO_ROOT / ".git"), "/root/.bashrc", "/home", str(tmp_path)]
    writes = [str(REPO_ROOT / "autograder" / "x"), "/etc/x", str(REPO_ROOT / ".venv" / "x")]
    listener = socket.create_server(("127.0.0.1", 0))  # a service on the grading machine's loopback
    port = listener.getsockname()[1]
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(f"PATHS = {secret!r}\nWRITES = {writes!r}\nPORT = {port}\n" + CONFINEMENT),
        nbformat.v4.new_code_cell("import sys\nprint('a library warning', file=sys.stderr)\nassert True",
                                  metadata={"nbgrader": {"grade": True, "grade_id": "noisy", "points": 1,
                                                         "solution": False, "locked": True}}),
        nbformat.v4.new_code_cell("for _ in range(40):\n    print('x' * 100_000)"),
        nbformat.v4.new_code_cell("import os\nos._exit(3)"),
        nbformat.v4.new_code_cell("assert True", metadata={"nbgrader": {"grade": True, "grade_id": "after_death",
                                                                        "points": 1, "solution": False,
                                                                        "locked": True}}),
    ])
    executor = sandbox.SandboxExecute(report_directory=str(tmp_path / "reports"), timeout=60)
    nb, _ = executor.preprocess(nb, {"nbgrader": {"student": "s", "assignment": "a", "notebook": "n"}})
    report = json.loads(nb.cells[0].outputs[0]["text"])
    assert report["uid"] != 0 and report["cwd"] == isolation.SCRATCH_INSIDE
    # not there at all (the grader's home may exist as the parent of the Python installation)
    assert all(report[p] == "FileNotFoundError" for p in secret if p != "/root/.bashrc"), json.dumps(report)
    assert report["/root/.bashrc"] in ("FileNotFoundError", "PermissionError"), json.dumps(report)
    assert all(report[p] in ("FileNotFoundError", "OSError", "PermissionError") for p in writes), report
    assert not (REPO_ROOT / "autograder" / "x").exists()
    assert report["import autograder"] == "ImportError"
    assert report["network"] != "connected"  # its own network namespace: no loopback services
    listener.close()
    # stderr does not cost the point; the verdict replaces the outputs
    assert [o["output_type"] for o in nb.cells[1].outputs] == ["stream"]
    assert "Tests passed" in nb.cells[1].outputs[0]["text"]
    # os._exit kills the kernel; the next graded cell still runs in a restarted kernel
    assert "Tests passed" in nb.cells[4].outputs[0]["text"]
    flood = "".join(o.get("text", "") for o in nb.cells[2].outputs)
    assert "output truncated" in flood and len(flood) < 3_000_000
    saved = json.loads((tmp_path / "reports" / "a" / "s" / "n.json").read_text())
    assert saved["isolation"].startswith("bubblewrap") and any("kernel died" in f for f in saved["flags"])


# ----------------------------------------------------------------------------- leaks and markers

def _copy_sources(tmp_path) -> Path:
    target = tmp_path / "source"
    shutil.copytree(REPO_ROOT / "assignments", target)
    return target


def test_real_sources_have_well_formed_markers():
    leaks.check_markers(REPO_ROOT / "assignments")


@pytest.mark.parametrize("typo", ["### BEGIN HIDDEN TEST", "## BEGIN HIDDEN TESTS", "### BEGIN HIDDEN  TESTS",
                                  "### begin hidden tests"])
def test_a_mistyped_hidden_test_marker_is_caught(tmp_path, typo):
    source = _copy_sources(tmp_path)
    path = next(source.glob("*/*.ipynb"))
    text = path.read_text().replace("### BEGIN HIDDEN TESTS", typo, 1)
    path.write_text(text)
    with pytest.raises(leaks.MarkerError, match="marker"):
        leaks.check_markers(source)


def test_committed_release_and_solutions_leak_nothing():
    assert leaks.scan(pipeline.Course.main()) == []


def test_a_planted_leak_is_found(tmp_path):
    hidden, solution = leaks.secret_lines(REPO_ROOT / "assignments")
    assert hidden and solution
    release = tmp_path / "release"
    shutil.copytree(REPO_ROOT / "release", release)
    path = next(release.glob("*/*.ipynb"))
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.source += "\n" + sorted(hidden)[0]
    nbformat.write(nb, path)
    (release / path.parent.name / "notes.txt").write_text("extra file")
    course = types.SimpleNamespace(source=REPO_ROOT / "assignments", release=release, root=tmp_path, is_main=False)
    problems = leaks.scan(course)
    assert any("hidden-test line" in p for p in problems) and any("notes.txt" in p for p in problems)


def test_part1_solution_lines_are_secret_in_part1_and_given_in_part2(tmp_path):
    """Part 2 starts with part 1's solution (a copied cell): those lines are public in part 2's release
    and feedback only. Planted into part 1's release they are a leak."""
    source = REPO_ROOT / "assignments"
    _, solution = leaks.secret_lines(source)
    given = leaks.copied_lines(source, "ttt2_selfplay")
    line = sorted(solution & given)[0]
    assert given and not leaks.copied_lines(source, "ttt1_mcts")
    release = tmp_path / "release"
    shutil.copytree(REPO_ROOT / "release", release)
    course = types.SimpleNamespace(source=source, release=release, root=tmp_path, is_main=False)
    assert leaks.scan(course) == []  # part 2's release holds every given line
    path = release / "ttt1_mcts" / "ttt1_mcts.ipynb"
    nb = nbformat.read(path, as_version=4)
    next(c for c in nb.cells if c.cell_type == "code").source += "\n" + line
    nbformat.write(nb, path)
    assert [p for p in leaks.scan(course) if "ttt1_mcts.ipynb: contains a solution line" in p]


def test_feedback_scan_finds_hidden_lines(tmp_path):
    hidden, _ = leaks.secret_lines(REPO_ROOT / "assignments")
    feedback = tmp_path / "feedback" / "s" / "a"
    feedback.mkdir(parents=True)
    line = sorted(hidden)[0]
    (feedback / "n.html").write_text(f"<html><pre><span>{line[:5]}</span>{line[5:]}</pre></html>")
    course = types.SimpleNamespace(source=REPO_ROOT / "assignments", feedback=tmp_path / "feedback",
                                   submitted=tmp_path / "submitted")
    assert leaks.scan_feedback(course)


def test_feedback_guard_sees_a_secret_line_inside_a_coloured_traceback():
    """The guard of `nbgrader generate_feedback` reads the notebook as the HTML will show it: a hidden-test
    line split by terminal colour codes in a traceback is still that line; the student's own lines never count."""
    kinds = leaks.feedback_secrets(REPO_ROOT / "assignments")
    line = sorted(kinds[0][0])[0]
    coloured = "\x1b[0;31m" + line[:6] + "\x1b[0m" + line[6:]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("f()", outputs=[
        nbformat.v4.new_output("error", ename="AssertionError", evalue="x", traceback=["Traceback", coloured])])])
    found = leaks.secrets_shown(leaks.cell_lines(nb), set(), kinds)
    assert found == [("hidden-test", line)]
    assert leaks.withheld_reason(found).startswith("feedback withheld: it would show 1 hidden-test")
    assert leaks.secrets_shown(leaks.cell_lines(nb), {line}, kinds) == []


# ----------------------------------------------------------------------------- collecting

def test_broken_files_are_reported_not_fatal(tmp_path):
    incoming = tmp_path / "incoming"
    (incoming / "alice" / "ttt1_mcts").mkdir(parents=True)
    (incoming / "alice" / "ttt1_mcts" / "ttt1_mcts.ipynb").write_text('{"cells": [')
    (incoming / "notes.ipynb").write_text(json.dumps(nbformat.v4.new_notebook()))
    with zipfile.ZipFile(incoming / "lms.zip", "w") as archive:
        archive.writestr("../escape.ipynb", "{}")
    results = collect.collect(incoming, tmp_path / "submitted", REPO_ROOT / "release")
    by_student = {r.student: r for r in results}
    assert "not a valid notebook" in by_student["alice"].problems[0]
    assert (tmp_path / "submitted" / "alice" / "ttt1_mcts" / "ttt1_mcts.ipynb").exists()  # graded as blank
    assert "no assignment notebook recognised" in by_student["notes"].problems[0]
    assert not (tmp_path / "escape.ipynb").exists() and "escape" not in by_student


def test_steps_refuse_to_run_without_a_gradebook(tmp_path):
    course = pipeline.Course.workspace(tmp_path / "ws")
    with pytest.raises(pipeline.GraderError, match="no gradebook"):
        pipeline.autograde(course)
    assert not (tmp_path / "ws" / "gradebook.db").exists()


def test_without_isolation_grading_refuses_unless_told(tmp_path, monkeypatch, caplog):
    """No sandbox possible: the preprocessor and the pipeline refuse, naming the fix; the explicit
    unsafe mode grades with a warning and marks the report (verdicts are still the grader's)."""
    broken = isolation.Diagnosis(False, "none", ["bubblewrap (bwrap) is not installed: install bubblewrap"])
    monkeypatch.setattr(isolation, "diagnose", lambda: broken)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import sys\nprint('warning', file=sys.stderr)",
        metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 1, "solution": False, "locked": True}})])
    resources = {"nbgrader": {"student": "s", "assignment": "a", "notebook": "n"}}
    with pytest.raises(sandbox.IsolationUnavailable, match="install bubblewrap"):
        sandbox.SandboxExecute(report_directory=str(tmp_path), timeout=60).preprocess(nb, resources)
    with pytest.raises(pipeline.GraderError, match="unsafe-no-sandbox"):
        pipeline.isolation_check()
    executor = sandbox.SandboxExecute(report_directory=str(tmp_path), timeout=60, isolation="none")
    with caplog.at_level("WARNING"):
        nb, _ = executor.preprocess(nb, resources)
    assert "AUTOGRADER SANDBOX DISABLED" in caplog.text
    assert "UNSAFE" in json.loads((tmp_path / "a" / "s" / "n.json").read_text())["isolation"]
    assert "Tests passed" in nb.cells[0].outputs[-1]["text"]


# ----------------------------------------------------------------------------- isolation parts

def _sandbox_run(tmp_path, code: str):
    (tmp_path / "scratch").mkdir()
    (tmp_path / "lib").mkdir()
    with isolation.Slot() as slot:
        sandbox_ = isolation.Sandbox(tmp_path / "scratch", tmp_path / "lib", slot, isolation.Limits())
        return slot, sandbox_.run([sandbox_.python, "-c", code], timeout=60)


def test_seccomp_filter_refuses_affinity(tmp_path):
    code = ("import os\ntry:\n    os.sched_setaffinity(0, range(os.cpu_count()))\n    print('widened')\n"
            "except PermissionError:\n    print('refused', sorted(os.sched_getaffinity(0)))")
    slot, done = _sandbox_run(tmp_path, code)
    assert done.stdout.strip() == f"refused [{slot.cpu}]", done.stderr


def test_the_sandbox_has_its_own_namespaces_and_limits(tmp_path):
    code = ("import os, resource, socket\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
            "print(socket.gethostname(), resource.getrlimit(resource.RLIMIT_NPROC)[0])\n"
            "print(open('/proc/self/mountinfo').read())")
    _, done = _sandbox_run(tmp_path, code)
    pids, host, mounts = done.stdout.split("\n", 2)
    assert len(eval(pids)) <= 3 and host.split() == ["sandbox", str(isolation.Limits.nproc)], done.stdout
    for secret in ("assignments", "solutions", "autograder", "gradebook", str(REPO_ROOT) + " "):
        assert secret not in mounts, mounts


def test_a_slot_is_reused_only_after_its_leftovers_die():
    import subprocess
    slot = isolation.Slot()
    leftover = subprocess.Popen(["sleep", "600"])
    slot.record(leftover.pid)
    slot._handle.close()  # its holder died without cleaning up: the lock goes, the record stays
    again = isolation.Slot()
    try:
        assert again.index == slot.index
        assert leftover.wait(timeout=5) == -9  # killed before the slot was handed out again
    finally:
        again.release()


def test_a_working_folder_its_holder_left_is_removed_by_the_next_one(tmp_path, monkeypatch):
    """``sandbox.held_folder`` (a sandbox's and a Ray node's working folder): one whose holder was killed
    with SIGKILL (its lock went with it) is removed when the next one is made; one still held, and one
    made otherwise (no lock file), stay."""
    import signal
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    held, handle = sandbox.held_folder("azsandbox-")
    other = tmp_path / "azsandbox-made-otherwise"
    other.mkdir()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # a grading killed mid-way
        try:
            folder, _ = sandbox.held_folder("azsandbox-")
            (folder / "notebook").mkdir()
            os.write(write, str(folder).encode())
        finally:
            os.kill(os.getpid(), signal.SIGKILL)
    os.close(write)
    left = Path(os.read(read, 4096).decode())
    os.close(read)
    assert os.waitpid(pid, 0)[1] == signal.SIGKILL and (left / "notebook").is_dir()
    fresh, fresh_handle = sandbox.held_folder("azsandbox-")
    try:
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([held.name, other.name, fresh.name])
        assert (held / sandbox.HELD).is_file() and fresh.stat().st_mode & 0o777 == 0o700
    finally:
        handle.close()
        fresh_handle.close()


def test_doctor_names_what_to_install(monkeypatch):
    monkeypatch.setattr(isolation.shutil, "which", lambda name: None)
    diagnosis = isolation.diagnose.__wrapped__()
    assert not diagnosis.ok and "apt-get install bubblewrap" in diagnosis.explain()


def test_a_forged_cell_is_named_once_when_the_left_out_flag_says_it_all():
    from autograder.code_scan import REACHES
    from autograder.probe_program import LEFT_OUT, said_once

    scan = [REACHES + "8, line 21 (__import__, getattr with a computed name), line 25 (__import__)",
            REACHES + "9, line 3 (.get_objects)",  # its statement's first line differs below: kept
            REACHES + "13, line 3 (.modules)",  # no statement of cell 13 was headed to the hidden tests: kept
            "audit-hook tampering: uses sys.addaudithook or the grader's audit channel (cell 8)"]
    left_out = [LEFT_OUT + "8, line 21 (__import__, getattr with a computed name), line 25 (__import__), "
                           "line 29 (globals)",
                LEFT_OUT + "9, line 2 (.get_objects)"]
    assert said_once(scan, left_out) == scan[1:]
    assert said_once(scan, []) == scan


# ----------------------------------------------------------------------------- reasons and the class report

def _error(name: str, message: str, failing_line: str) -> dict:
    return {"ename": name, "evalue": message,
            "traceback": ["Cell In[3], line 2", f"----> 2 {failing_line}", f"\x1b[0;31m{name}\x1b[0m: {message}"]}


def test_a_failing_line_is_quoted_unless_an_assertion_says_what_failed():
    fail_line = 'raise AssertionError(message + (f"\\n  why: {why}" if why else ""))'
    assert sandbox.error_reason(_error("AssertionError", "get_reward(board)\n  expected: 1\n  got:      0", fail_line)) \
        == "AssertionError: get_reward(board)\n  expected: 1\n  got:      0"
    assert sandbox.error_reason(_error("NameError", "name 'bord' is not defined", "get_reward(bord)")) \
        == "NameError: name 'bord' is not defined (in: get_reward(bord))"
    assert sandbox.error_reason(_error("AssertionError", "", "assert total == 3")) \
        == "AssertionError: (in: assert total == 3)"


def test_a_secret_inside_a_longer_line_goes_with_the_rest_of_the_line():
    from autograder.report.render import REDACTED, Redactor

    opening = "raise AssertionError("  # a hidden test's line that opens a call spread over several lines
    long = "check_all_the_rules(get_reward, expand_node, cases=HIDDEN_CASES, tolerance=1e-9, " + "x" * 60
    redact = Redactor({opening, long})
    assert redact('AssertionError: wrong (in: raise AssertionError(message + (f"\\n  why: {why}" if why else "")))') \
        == f"AssertionError: wrong (in: {REDACTED}"
    withheld = f"feedback withheld: it would show 1 hidden-test line (a hidden-test line ...: {long[:100]!r}) sorry"
    assert redact(withheld) == f"feedback withheld: it would show 1 hidden-test line (a hidden-test line ...: '{REDACTED}') sorry"
    assert redact(f"  {opening}  ") == REDACTED
    assert redact("nothing secret here") == "nothing secret here"


def test_the_score_histogram_counts_whole_submissions():
    from autograder.report import figures

    figure = figures.histogram_figure([3, 5], [3, 4], 6, 5)  # two submissions: matplotlib's own ticks are halves
    figure.canvas.draw()
    low, high = figure.axes[0].get_ylim()
    ticks = [t for t in figure.axes[0].get_yticks() if low <= t <= high]
    assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks), ticks


def test_the_course_image_cache_keeps_the_images_used_last(tmp_path, monkeypatch):
    """``isolation.course_image``: the pack's modules copied with their times kept; each use marks the
    image, and only the ``COURSE_IMAGES_KEPT`` used last (the current among them) and builds under an hour
    old stay, so a term of pack updates does not fill the grader's disk."""
    import time

    monkeypatch.setattr(isolation, "COURSE_FILES", ("play.py",))
    now = time.time()
    old = [tmp_path / f"course-old{k}" for k in range(4)]
    for k, path in enumerate(old):  # old3 used last
        (path / "ckpts").mkdir(parents=True)
        os.utime(path, (now - 400 + 100 * k,) * 2)
    crashed, building = tmp_path / "building-crashed", tmp_path / "building-now"
    crashed.mkdir(), building.mkdir()
    os.utime(crashed, (now - 7200,) * 2)

    image = isolation.course_image(str(tmp_path))
    source = isolation.REPO_ROOT / "play.py"
    assert (image / "play.py").read_bytes() == source.read_bytes()
    assert (image / "play.py").stat().st_mtime_ns == source.stat().st_mtime_ns
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted([image.name, "course-old3", "course-old2", building.name]), kept
    os.utime(old[2], (now + 50,) * 2)  # another checkout's batch used old2 since
    os.utime(image, (now - 1000,) * 2)
    assert isolation.course_image(str(tmp_path)) == image  # the same files: the same image, marked used
    assert image.stat().st_mtime >= now
    assert sorted(p.name for p in tmp_path.iterdir()) == kept
