"""Re-judging without kernels (issue 50, item 2): the kept probe outputs judged again, as a grading would.

The quick tests write and read kept files of their own and fingerprint edited copies of a probe module.
The others rejudge copies of the suite's graded corpus (``tests/courses.py``, graded once per run): with
nothing changed (every corpus case, hostile ones included, keeps its score and reason, and nothing is
written), after a judge's tolerance changed (against a real grading with the same tolerance), after a
point value changed (against nbgrader's own scoring of the rejudged notebook and what ``build`` records),
with a kept file tampered with, after a probe, its cases or a test cell changed (refused, with the
command), and interrupted between its steps (a failure before the transaction, a kill after it); with a
kernel's 20 MB error kept (judged as graded), in an assignment of two notebooks one of which was not
handed in, and while another command holds the assignment's grading lock or writes a file meanwhile.
"""
import gzip
from contextlib import contextmanager
from datetime import timedelta
import json
import os
import shutil
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook, GradeCell, SourceCell
from nbgrader.utils import compute_checksum, determine_grade

from courses import CELL_TIMEOUT, SLOW_CELLS, graded_corpus

from autograder import grading_lock, grading_state, kept_probes, pipeline, probes, rejudge, rejudge_journal, sandbox
from autograder.assignments.ttt1_mcts import checks as ttt1_checks
from autograder.grading_config import COURSE_ID, REPO_ROOT

ASSIGNMENT = "ttt1_mcts"


# ----------------------------------------------------------------------------- kept files (quick)

def _notebook():
    cell = nbformat.v4.new_code_cell
    return nbformat.v4.new_notebook(cells=[
        cell("import numpy as np", metadata={"nbgrader": {"grade_id": "setup", "locked": True}}),
        cell("def get_reward(board): ...", metadata={"nbgrader": {"grade_id": "get_reward", "solution": True}}),
        cell("check_get_reward(get_reward)", metadata={"nbgrader": {"grade_id": "test_get_reward", "grade": True,
                                                                    "locked": True, "points": 3}})])


OUTPUTS = [{"reward": 1.0, "done": True}, {"raises": "ValueError: no\nline"}, {"reward": 1e-300, "done": False}]


def _kept(tmp_path):
    evidence = {"test_get_reward": {"visible": None, "probed": True, "probe_error": None, "checks": [
        {"module": ASSIGNMENT, "name": "get_reward", "outputs": OUTPUTS},
        {"module": ASSIGNMENT, "name": "get_action_prob", "outputs": "no test data came back for get_action_prob"}]}}
    report = {"student": "alice", "assignment": ASSIGNMENT, "notebook": ASSIGNMENT}
    report["kept_probes"] = kept_probes.write(tmp_path, report, _notebook(), evidence)
    return report, tmp_path / f"{ASSIGNMENT}{kept_probes.SUFFIX}"


def test_a_kept_file_gives_back_what_the_judge_received_and_refuses_any_change(tmp_path):
    report, path = _kept(tmp_path)
    kept = kept_probes.read(tmp_path, report, "alice", ASSIGNMENT, ASSIGNMENT)
    cell = kept.header["cells"]["test_get_reward"]
    assert kept_probes.parse(kept.line(cell["checks"][0]), "") == OUTPUTS
    assert cell["checks"][1]["missing"] == "no test data came back for get_action_prob"
    assert kept.header["kernel"] == {"cells": {"setup": kept_probes.digest(b"import numpy as np"),
                                               "test_get_reward": kept_probes.digest(b"check_get_reward(get_reward)")},
                                     "probes": {f"{ASSIGNMENT}.{n}": probes.probe_fingerprint(ASSIGNMENT, n)
                                                for n in ("get_reward", "get_action_prob")}}
    assert gzip.decompress(path.read_bytes()).split(b"\n")[1] == json.dumps(OUTPUTS, separators=(",", ":")).encode()

    with pytest.raises(kept_probes.Unusable, match="another submission"):
        kept_probes.read(tmp_path, {**report}, "bob", ASSIGNMENT, ASSIGNMENT)
    with pytest.raises(kept_probes.NotKept):
        kept_probes.read(tmp_path, {k: v for k, v in report.items() if k != "kept_probes"}, "alice", ASSIGNMENT,
                         ASSIGNMENT)
    data = path.read_bytes()
    member = len(data) - cell["checks"][0]["size"]  # the outputs' member, the last one
    forged = gzip.compress(json.dumps([{"reward": 0.0, "done": True}] * 3).encode() + b"\n")
    path.write_bytes(data[:member] + forged)  # other outputs, a valid gzip member: the header's digest says no
    with pytest.raises(kept_probes.Unusable, match="changed since they were kept"):
        kept.line({**cell["checks"][0], "size": len(forged)})
    path.write_bytes(data[:member + 20] + bytes([data[member + 20] ^ 1]) + data[member + 21:])  # a flipped bit
    with pytest.raises(kept_probes.Unusable, match="unreadable"):
        kept.line(cell["checks"][0])
    header = json.loads(gzip.decompress(data).split(b"\n")[0])
    header["cells"]["test_get_reward"]["visible"] = "AssertionError: forged"
    path.write_bytes(gzip.compress(json.dumps(header).encode() + b"\n") + data[len(data) - member:])
    with pytest.raises(kept_probes.Unusable, match="changed since it was graded"):
        kept_probes.read(tmp_path, report, "alice", ASSIGNMENT, ASSIGNMENT)


HUGE_ERROR = "RuntimeError: " + os.urandom(10 * 2**20).hex()  # 20 MB a kernel may send, not compressible


def test_a_kernel_s_huge_error_is_kept_readable_and_judged_as_graded(tmp_path):
    """The texts of a cell's evidence come from the kernels (the visible run's error, the probe cell's), as
    long as their output caps allow, and a notebook has several: 20 MB of them once made a header past
    what a rejudge reads, so a submission graded fine read as tampered with. Each is kept on a line of its
    own, exactly as the judge had it: the header stays small and the kept cells decide as grading did.
    Outputs whose line a rejudge would refuse (each comma a kernel wrote escaped, ``\\u002c``, is an
    entry more once written again) are not kept, which the rejudge says (NotKept), instead of refusing
    the whole file."""
    evidence = {
        "test_get_reward": {"visible": HUGE_ERROR, "probed": True, "probe_error": None, "checks": [
            {"module": ASSIGNMENT, "name": "get_reward", "outputs": OUTPUTS}]},
        "test_get_action_prob": {"visible": None, "probed": True, "probe_error": "ValueError: " + HUGE_ERROR,
                                 "checks": [{"module": ASSIGNMENT, "name": "get_action_prob",
                                             "outputs": "no test data came back for get_action_prob"}]},
        "test_expand_node": {"visible": None, "probed": True, "probe_error": None, "checks": [
            {"module": ASSIGNMENT, "name": "expand_node", "outputs": ["," * (probes.MAX_PROBE_COST + 1)]}]}}
    graded = {g: sandbox.cell_reason(cell)[0] for g, cell in evidence.items()}
    assert graded["test_get_reward"].startswith(HUGE_ERROR) and HUGE_ERROR in graded["test_get_action_prob"]
    report = {"student": "alice", "assignment": ASSIGNMENT, "notebook": ASSIGNMENT}
    report["kept_probes"] = kept_probes.write(tmp_path, report, _notebook(), evidence)
    kept = kept_probes.read(tmp_path, report, "alice", ASSIGNMENT, ASSIGNMENT)
    assert len(json.dumps(kept.header)) < 4 * kept_probes.MAX_HEADER_TEXT
    judge = rejudge._Judge()
    assert {g: sandbox.cell_reason(rejudge._evidence(kept, kept.header["cells"][g], g), judge)[0]
            for g in ("test_get_reward", "test_get_action_prob")} == \
        {g: graded[g] for g in ("test_get_reward", "test_get_action_prob")}
    with pytest.raises(kept_probes.NotKept, match="the outputs of expand_node were not kept .*past what a rejudge"):
        rejudge._evidence(kept, kept.header["cells"]["test_expand_node"], "test_expand_node")


def test_a_grading_lock_is_refused_at_once_naming_its_holder(tmp_path):
    """A second command on an assignment fails at once, naming the first and its process; it holds none of
    the locks it asked for; the first one's lock goes with it."""
    course = pipeline.Course.workspace(tmp_path / "ws")
    with grading_lock.held(course, [ASSIGNMENT], "autograde ttt1_mcts"):
        with pytest.raises(grading_lock.Busy, match=rf"cannot rejudge ttt1_mcts: `autograde ttt1_mcts` "
                                                    rf"\(pid {os.getpid()} on .*\) is grading ttt1_mcts now"):
            with grading_lock.held(course, [ASSIGNMENT, "hex4_onpolicy"], "rejudge ttt1_mcts"):
                pass
        with grading_lock.held(course, ["hex4_onpolicy"], "rejudge hex4_onpolicy"):
            pass
    with grading_lock.held(course, [ASSIGNMENT], "rejudge ttt1_mcts"):
        pass
    assert (course.root / grading_lock.FOLDER / ".gitignore").read_text() == "*\n"


def test_the_probe_fingerprint_follows_what_the_probe_reaches(tmp_path, monkeypatch):
    names = ("get_reward", "get_action_prob", "search_iter")
    before = {name: probes.probe_fingerprint(ASSIGNMENT, name) for name in names}
    shutil.copytree(probes.CONTENT_DIR / ASSIGNMENT, tmp_path / "content" / ASSIGNMENT)
    for name in ("_probe_util.py", "_probe_runtime.py"):
        shutil.copy(probes.PACKAGE_DIR / name, tmp_path / name)
    monkeypatch.setattr(probes, "CONTENT_DIR", tmp_path / "content")
    monkeypatch.setattr(probes, "PACKAGE_DIR", tmp_path)
    probe_file, util = tmp_path / "content" / ASSIGNMENT / "probes.py", tmp_path / "_probe_util.py"

    def changed_by(path, old, new):
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))
        return {name for name in names if probes.probe_fingerprint(ASSIGNMENT, name) != before[name]}

    assert changed_by(probe_file, "import numpy as np\n", "import numpy as np  # a comment\n\n\n") == set()
    assert changed_by(probe_file, "SEARCH_CHECKPOINTS = (1, 2,", "SEARCH_CHECKPOINTS = (1,") == {"search_iter"}
    before["search_iter"] = probes.probe_fingerprint(ASSIGNMENT, "search_iter")
    # short() of _probe_util: get_reward's probe calls it, search_iter's runs every probe (PROBES)
    assert changed_by(util, "    text = repr(value)\n", "    text = str(value)\n") == {"get_reward", "search_iter"}
    before.update({name: probes.probe_fingerprint(ASSIGNMENT, name) for name in names})
    encoded = probes.encoded_cases
    monkeypatch.setattr(probes, "encoded_cases", lambda m, n: encoded(m, n) + (b" " if n == "get_action_prob" else b""))
    assert {name for name in names if probes.probe_fingerprint(ASSIGNMENT, name) != before[name]} == {"get_action_prob"}


# ----------------------------------------------------------------------------- the graded corpus (slow)

def _graded(tmp_path_factory, tmp_path, students=()) -> pipeline.Course:
    """A copy of the suite's graded corpus; of part 1 only these students' submissions when given (the
    others leave the gradebook and the folders: less feedback to write again)."""
    course, _ = graded_corpus(tmp_path_factory, tmp_path / "ws")
    if students:
        with Gradebook(course.db_url, COURSE_ID) as gb:
            others = [s.student_id for s in gb.assignment_submissions(ASSIGNMENT) if s.student_id not in students]
            for student in others:
                gb.remove_submission(ASSIGNMENT, student)
        for student in others:
            for folder in (course.submitted, course.autograded, course.feedback):
                shutil.rmtree(Path(folder) / student / ASSIGNMENT, ignore_errors=True)
            shutil.rmtree(course.reports / ASSIGNMENT / student, ignore_errors=True)
    return course


def _files(course) -> dict:
    """{path: (size, mtime)} of every file a rejudge may write (the rejudge's own lock aside)."""
    folders = (course.autograded, course.feedback, course.reports)
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for folder in folders for p in Path(folder).rglob("*")
            if p.is_file() and rejudge_journal.folder(course) not in p.parents} | {
        course.gradebook: (course.gradebook.stat().st_size, course.gradebook.stat().st_mtime_ns)}


def _tests(course) -> dict:
    """{notebook: its test cells' grade ids} (graded code cells that are not answers)."""
    found = {}
    for path in Path(course.source).glob("*/*.ipynb"):
        found[path.stem] = {c.metadata.nbgrader["grade_id"] for c in nbformat.read(path, as_version=4).cells
                            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
                            and not c.metadata.nbgrader.get("solution")}
    return found


@pytest.mark.slow
def test_with_nothing_changed_every_corpus_case_keeps_its_grade_and_nothing_is_written(tmp_path_factory, tmp_path):
    """Every e2e corpus case, hostile ones included: the kept outputs judged again give the gradebook's score
    and the report's reason for every test cell, as the grading did; no file is written, no feedback."""
    course, facts = graded_corpus(tmp_path_factory, tmp_path / "ws")
    before, tests = _files(course), _tests(course)
    rows = [r for r in pipeline.grade_rows(course) if r["status"].startswith("graded")]
    judged, not_kept = 0, {}
    for assignment in course.assignments():
        outcome = rejudge.rejudge(course, assignment)
        assert (outcome.changes, outcome.untrusted, outcome.recovered, outcome.feedback) == ([], {}, "", {}), \
            [(c.student, c.test, c.old_reason[:200], c.new_reason[:200]) for c in outcome.changes]
        judged += outcome.unchanged
        not_kept.update(outcome.not_kept)
    assert judged == sum(len(tests[r["notebook"]] & set(r["cells"])) for r in rows) > 300
    failed = {f"{s}/{a}" for (a, s), result in facts["results"].items() if not result["ok"]}
    assert set(not_kept) <= failed == {"broken_json/ttt1_mcts"}, not_kept
    assert _files(course) == before


@pytest.mark.slow
def test_a_changed_tolerance_gives_what_grading_with_it_gives(tmp_path_factory, tmp_path, monkeypatch):
    """get_action_prob's tolerance loosened until the answer that forgets the temperature passes the hidden
    judge: its cell still fails, now on the visible test alone, exactly as a grading with that tolerance
    (the real sandbox, its judges in this process) decides; only that student's feedback is written again."""
    course = _graded(tmp_path_factory, tmp_path, {"partial_action_prob", "full"})
    feedback = {s: (course.feedback / s / ASSIGNMENT / f"{ASSIGNMENT}.html").stat().st_mtime_ns
                for s in ("partial_action_prob", "full")}
    monkeypatch.setattr(ttt1_checks, "FLOAT_TOLERANCE", 1.0)
    outcome = rejudge.rejudge(course, ASSIGNMENT)
    [change] = outcome.changes
    assert (change.student, change.test, change.old_score, change.new_score) == \
        ("partial_action_prob", "test_get_action_prob", 0, 0)
    assert change.old_reason.startswith("get_action_prob gives a wrong result")
    assert change.new_reason.startswith("AssertionError: get_action_prob(tree, 0, 0.5)"), change.new_reason

    path = course.autograded / "partial_action_prob" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    grader = sandbox.SandboxExecute(timeout=CELL_TIMEOUT, cell_timeouts=SLOW_CELLS,
                                    report_directory=str(tmp_path / "regrade"))
    regraded_nb, _ = grader.preprocess(nbformat.read(path, as_version=4), {"nbgrader": {
        "student": "partial_action_prob", "assignment": ASSIGNMENT, "notebook": ASSIGNMENT}})
    regraded = json.loads((tmp_path / "regrade" / ASSIGNMENT / "partial_action_prob" / f"{ASSIGNMENT}.json")
                          .read_text())
    rejudged = json.loads((course.reports / ASSIGNMENT / "partial_action_prob" / f"{ASSIGNMENT}.json").read_text())
    assert rejudged["cells"] == regraded["cells"]
    verdicts = lambda nb: {c.metadata.nbgrader["grade_id"]: c.outputs[-1] for c in nb.cells  # noqa: E731
                           if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"}
    assert verdicts(nbformat.read(path, as_version=4)) == verdicts(regraded_nb)
    row = next(r for r in pipeline.grade_rows(course, [ASSIGNMENT], ["partial_action_prob"]))
    assert row["cells"]["test_get_action_prob"]["score"] == 0
    after = {s: (course.feedback / s / ASSIGNMENT / f"{ASSIGNMENT}.html").stat().st_mtime_ns for s in feedback}
    assert after["full"] == feedback["full"] and after["partial_action_prob"] > feedback["partial_action_prob"]


def _own_source(course) -> Path:
    """The course's source/ (a link to the pack's assignments/) made a copy to edit; part 1's notebook."""
    link = Path(course.source)
    link.unlink()
    shutil.copytree(REPO_ROOT / "assignments", link)
    return link / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


def _edit(path: Path, grade_id: str, points=None, append: str = "") -> None:
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    if points is not None:
        cell.metadata.nbgrader["points"] = points
    cell.source += append
    nbformat.write(nb, path)


def _recorded_cells(course) -> dict:
    """{grade_id: (GradeCell.max_score, SourceCell.checksum)} of part 1, as the gradebook holds them."""
    with Gradebook(course.db_url, COURSE_ID) as gb:
        sources = {c.name: c.checksum for c in gb.db.query(SourceCell) if c.notebook.assignment.name == ASSIGNMENT}
        return {c.name: (c.max_score, sources[c.name]) for c in gb.db.query(GradeCell)
                if c.notebook.assignment.name == ASSIGNMENT}


def cli(course, *args):
    done = subprocess.run([sys.executable, "-m", "autograder", "--workspace", str(course.root), *args],
                          capture_output=True, text=True, timeout=600, cwd=REPO_ROOT)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.slow
def test_a_changed_point_value_counts_as_build_and_a_regrade_would(tmp_path_factory, tmp_path):
    """test_get_reward worth 5 instead of 3 in the source notebook: every student's row changes (5 where it
    passed), nbgrader's own scoring of each rejudged notebook gives the gradebook's scores, and
    ``generate_assignment`` (what build runs) finds the points and checksums it would record already
    recorded. A test cell changed since is refused, naming build and the regrade."""
    students = {"full", "blank"}
    course = _graded(tmp_path_factory, tmp_path, students)
    notebook = _own_source(course)
    _edit(notebook, "test_get_reward", points=5)
    with pytest.raises(rejudge.Refused, match="without --student"):
        rejudge.rejudge(course, ASSIGNMENT, students=["full"])
    outcome = rejudge.rejudge(course, ASSIGNMENT)
    assert {(c.student, c.test, c.old_score, c.new_score, c.old_max, c.new_max) for c in outcome.changes} == {
        ("full", "test_get_reward", 3, 5, 3, 5), ("blank", "test_get_reward", 0, 0, 3, 5)}
    assert set(outcome.feedback) == {(ASSIGNMENT, s) for s in students}
    rows = {r["student"]: r for r in pipeline.grade_rows(course, [ASSIGNMENT])}
    for student in students:
        nb = nbformat.read(course.autograded / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in _tests(course)[ASSIGNMENT]:  # what SaveAutoGrades would record for this notebook
                recorded = rows[student]["cells"][grade_id]
                assert determine_grade(cell) == (recorded["score"], recorded["max"]), (student, grade_id)
                assert cell.metadata.nbgrader["checksum"] == compute_checksum(cell)
        assert (course.feedback / student / ASSIGNMENT / f"{ASSIGNMENT}.html").exists()
    assert rows["full"]["code_score"] == 23
    recorded = _recorded_cells(course)
    assert recorded["test_get_reward"][0] == 5
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force", "--log-level=ERROR")
    assert _recorded_cells(course) == recorded

    _edit(notebook, "test_get_reward", append="\nassert True")
    with pytest.raises(rejudge.Refused) as refused:
        rejudge.rejudge(course, ASSIGNMENT)
    assert f"{ASSIGNMENT}/test_get_reward: cell (2 submission(s))" in str(refused.value)
    assert (f"python -m autograder --workspace {course.root} build, then python -m autograder --workspace "
            f"{course.root} autograde {ASSIGNMENT} --student blank --student full --regrade") in str(refused.value)


def _forge(course, student: str, name: str, outputs) -> None:
    """Rewrite `student`'s kept outputs of check `name` as `outputs`, every digest redone (header, report):
    what someone who can write the report folder could do."""
    folder = course.reports / ASSIGNMENT / student
    path, report_path = folder / f"{ASSIGNMENT}{kept_probes.SUFFIX}", folder / f"{ASSIGNMENT}.json"
    header, *lines = gzip.decompress(path.read_bytes()).split(b"\n")[:-1]
    header, members, offset = json.loads(header), [], 0
    entries = [c for cell in header["cells"].values() for c in cell["checks"] if "offset" in c]
    for entry, line in zip(sorted(entries, key=lambda c: c["offset"]), lines):
        if entry["name"] == name:
            line = json.dumps(outputs, separators=(",", ":")).encode()
        members.append(gzip.compress(line + b"\n"))
        entry.update(offset=offset, size=len(members[-1]), bytes=len(line), sha256=kept_probes.digest(line))
        offset += len(members[-1])
    head = json.dumps(header).encode()
    path.write_bytes(gzip.compress(head + b"\n") + b"".join(members))
    report = json.loads(report_path.read_text())
    report["kept_probes"]["sha256"] = kept_probes.digest(head)
    report_path.write_text(json.dumps(report))


@pytest.mark.slow
def test_kept_outputs_are_claims_a_tampered_file_is_refused_and_forged_data_validated(tmp_path_factory, tmp_path):
    """A kept file changed behind the report's back is refused (its grades left as they are, exit status 1,
    the regrade named); one forged with every digest redone is still only a claim: its outputs go through
    the schema first, and data no probe gives (an empty list) fails the cell as malformed."""
    course = _graded(tmp_path_factory, tmp_path, {"full", "always_equal"})
    kept = course.reports / ASSIGNMENT / "full" / f"{ASSIGNMENT}{kept_probes.SUFFIX}"
    data = bytearray(kept.read_bytes())
    data[-100] ^= 1  # inside the last check's outputs
    kept.write_bytes(bytes(data))
    _forge(course, "always_equal", "get_reward", [])
    before = _files(course)
    outcome = rejudge.rejudge(course, ASSIGNMENT, feedback=False)
    assert list(outcome.untrusted) == ["full/ttt1_mcts"] and "search_iter" in outcome.untrusted["full/ttt1_mcts"]
    [change] = outcome.changes
    assert (change.student, change.test, change.old_score, change.new_score) == \
        ("always_equal", "test_get_reward", 0, 0)
    assert "get_reward: the test data that came back from your kernel is incomplete or malformed" in change.new_reason
    full = [p for p in before if "/full/" in str(p)]
    assert all(p.stat().st_mtime_ns == before[p][1] for p in full)
    code, out, err = cli(course, "rejudge", ASSIGNMENT)
    assert code == 1 and "0 verdict(s) changed" in out
    assert "refused full/ttt1_mcts: ttt1_mcts.probes.jsonl.gz: the outputs of search_iter" in err
    assert err.strip().endswith(f"grade them again: python -m autograder --workspace {course.root} autograde "
                                f"{ASSIGNMENT} --student full --regrade"), err


@pytest.mark.slow
def test_a_changed_probe_or_its_cases_is_refused_naming_the_kernels_to_run(tmp_path_factory, tmp_path, monkeypatch):
    """get_reward's probe edited: its test and search_iter's (whose probe runs get_reward's) are refused,
    naming every submission whose kernels must run again and the tests that can still be rejudged; a case
    file that changed is refused the same way; nothing is written."""
    course, facts = graded_corpus(tmp_path_factory, tmp_path / "ws")
    before = _files(course)
    graded = sorted(s for (a, s), result in facts["results"].items() if a == ASSIGNMENT and result["ok"])
    content = tmp_path / "content"
    shutil.copytree(probes.CONTENT_DIR, content)
    probe_file = content / ASSIGNMENT / "probes.py"
    text = probe_file.read_text()
    assert text.count('"reward": float(result[0])') == 1
    probe_file.write_text(text.replace('"reward": float(result[0])', '"reward": float(result[0]) + 0.0'))
    monkeypatch.setattr(probes, "CONTENT_DIR", content)
    with pytest.raises(rejudge.Refused) as refused:
        rejudge.rejudge(course, ASSIGNMENT)
    message = str(refused.value)
    assert f"{ASSIGNMENT}/test_get_reward: probe get_reward ({len(graded)} submission(s))" in message
    assert f"{ASSIGNMENT}/test_search_iter: probe search_iter ({len(graded)} submission(s))" in message
    assert rejudge.regrade_command(course, ASSIGNMENT, graded) in message
    assert (f"rejudge {ASSIGNMENT} --test test_expand_node --test test_get_action_prob --test test_get_next_state "
            "--test test_select_action") in message
    assert rejudge.rejudge(course, ASSIGNMENT, tests=["test_get_action_prob"]).changes == []
    monkeypatch.undo()
    encoded = probes.encoded_cases
    monkeypatch.setattr(probes, "encoded_cases", lambda m, n: encoded(m, n) + (b" " if n == "select_action" else b""))
    with pytest.raises(rejudge.Refused, match=f"{ASSIGNMENT}/test_select_action: probe select_action"):
        rejudge.rejudge(course, ASSIGNMENT, tests=["test_select_action", "test_get_reward"])
    assert _files(course) == before


KILL_AFTER_THE_TRANSACTION = """
import os, signal, sys
from autograder import pipeline, rejudge, rejudge_journal
rejudge_journal._finish = lambda *args: os.kill(os.getpid(), signal.SIGKILL)  # the gradebook written, no file yet
rejudge.rejudge(pipeline.Course.workspace(sys.argv[1]), sys.argv[2])
"""


@pytest.mark.slow
def test_an_interrupted_rejudge_is_rolled_back_or_completed(tmp_path_factory, tmp_path, monkeypatch):
    """A failure before the gradebook's transaction leaves the old grades, and the next rejudge removes what
    was staged; a kill after it (the worst point: the gradebook new, every file old) is completed by the next
    rejudge: the files put in place, the feedback regenerated. Each grade is old or new, never a mix."""
    students = ["blank", "full"]
    course = _graded(tmp_path_factory, tmp_path, set(students))
    notebook = _own_source(course)
    journal = rejudge_journal.journal_path(course, ASSIGNMENT)
    report = lambda s: json.loads((course.reports / ASSIGNMENT / s / f"{ASSIGNMENT}.json").read_text())  # noqa: E731
    staged = lambda: sorted(Path(course.root).rglob(f"*{rejudge_journal.STAGED}"))  # noqa: E731

    def grades():  # {student: (gradebook's max and score of test_get_reward, the report's points, the notebook's)}
        rows = {r["student"]: r["cells"]["test_get_reward"] for r in pipeline.grade_rows(course, [ASSIGNMENT])}
        cells = {s: next(c for c in nbformat.read(course.autograded / s / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
                                                  as_version=4).cells
                         if c.metadata.get("nbgrader", {}).get("grade_id") == "test_get_reward") for s in students}
        return {s: (rows[s]["max"], rows[s]["score"], report(s)["cells"]["test_get_reward"]["points"],
                    cells[s].metadata.nbgrader["points"]) for s in students}

    old = grades()
    assert old == {"blank": (3, 0, 3, 3), "full": (3, 3, 3, 3)}
    _edit(notebook, "test_get_reward", points=4)

    def fail(*args):
        raise RuntimeError("injected: before the transaction")
    monkeypatch.setattr(rejudge_journal, "_rows", fail)
    with pytest.raises(RuntimeError, match="injected"):
        rejudge.rejudge(course, ASSIGNMENT)
    assert journal.exists() and len(staged()) == 4 and grades() == old
    monkeypatch.undo()
    outcome = rejudge.rejudge(course, ASSIGNMENT, feedback=False)
    assert outcome.recovered == "rolled back an interrupted rejudge: its gradebook rows were never written"
    new = {"blank": (4, 0, 4, 4), "full": (4, 4, 4, 4)}
    assert len(outcome.changes) == 2 and grades() == new and not journal.exists() and not staged()

    _edit(notebook, "test_get_reward", points=3)
    killed = subprocess.run([sys.executable, "-c", KILL_AFTER_THE_TRANSACTION, str(course.root), ASSIGNMENT],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert killed.returncode == -9, killed.stderr
    mixed = grades()
    assert journal.exists() and len(staged()) == 4
    assert {s: g[:2] for s, g in mixed.items()} == {s: g[:2] for s, g in old.items()}  # the gradebook: new
    assert {s: g[2:] for s, g in mixed.items()} == {s: g[2:] for s, g in new.items()}  # the files: not yet
    html = course.feedback / "full" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    written = html.stat().st_mtime_ns
    outcome = rejudge.rejudge(course, ASSIGNMENT)
    assert outcome.recovered.startswith("completed an interrupted rejudge: 3 gradebook row(s) were written, "
                                        "4 file(s) put in place, feedback of 2 student(s) regenerated")
    assert outcome.changes == [] and grades() == old and not journal.exists() and not staged()
    assert html.stat().st_mtime_ns > written


DEADLINES = """
[policy]
penalty_percent = 10
penalty_unit = "day"
max_penalty_percent = 30
hard_deadline_days = 7

[assignments.ttt1_mcts]
due = "2025-03-30 23:59 Europe/Berlin"
"""


@pytest.mark.slow
def test_a_rejudge_takes_late_work_s_points_again_from_the_new_score(tmp_path_factory, tmp_path):
    """Late penalties follow the new scores as grading computes them: "full", handed in after the hard
    deadline, keeps a score of 0 when test_get_reward is worth 5 instead of 3 (its penalty grows from 21 to
    23: the score); "blank", a day and a half late, loses 20% of the notebook's points, capped at its score
    of 0, before and after. The gradebook's penalty, the late report and the grade row agree."""
    from autograder import deadlines, late_work

    course = _graded(tmp_path_factory, tmp_path, {"full", "blank"})
    (course.root / deadlines.FILE_NAME).write_text(DEADLINES)
    plan = course.deadlines()
    rule = plan.rule(ASSIGNMENT)
    writer = late_work.ApplyLatePolicy(report_directory=str(course.reports))
    submitted = {"full": rule.due + timedelta(days=8), "blank": rule.due + timedelta(hours=36)}
    with Gradebook(course.db_url, COURSE_ID) as gb:  # what ApplyLatePolicy recorded when they were graded
        for student, moment in submitted.items():
            graded = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            lateness = deadlines.assess(rule, moment)
            taken = min(lateness.points(graded.score, graded.max_score), graded.score)
            graded.late_submission_penalty = taken
            writer._report(ASSIGNMENT, student, ASSIGNMENT, lateness, taken, graded.max_score, timedelta(0),
                           {}, True)
        gb.db.commit()
    before = {r["student"]: r for r in pipeline.grade_rows(course, [ASSIGNMENT])}
    assert (before["full"]["late_penalty"], before["full"]["score"], before["blank"]["late_penalty"]) == (21, 0, 0)

    _edit(_own_source(course), "test_get_reward", points=5)
    outcome = rejudge.rejudge(course, ASSIGNMENT)
    assert outcome.late == ["full/ttt1_mcts: 21 -> 23 points taken for late work"]
    rows = {r["student"]: r for r in pipeline.grade_rows(course, [ASSIGNMENT])}
    assert (rows["full"]["code_score"], rows["full"]["late_penalty"], rows["full"]["score"]) == (23, 23, 0)
    assert (rows["blank"]["late_penalty"], rows["blank"]["score"]) == (0, 0)
    report = late_work.read_report(course.reports, ASSIGNMENT, "full", ASSIGNMENT)
    assert (report["penalty_points"], report["max_score"]) == (23, 31)
    assert "after the hard deadline" in report["rule"]


def _kept_evidence(kept: kept_probes.Kept) -> dict:
    """The evidence a kept file was written from, every check's outputs and every text read back."""
    cells = {}
    for grade_id, cell in kept.header["cells"].items():
        checks = []
        for check in cell["checks"]:
            entry = {"module": check["module"], "name": check["name"]}
            if "missing" in check:
                entry["outputs"] = check["missing"]
            elif "offset" in check:
                entry["outputs"] = kept_probes.parse(kept.line(check), "")
            checks.append(entry)
        texts = {k: kept.field(v, k) if isinstance(v, dict) else v for k, v in cell.items() if k != "checks"}
        cells[grade_id] = {**texts, "checks": checks}
    return cells


@pytest.mark.slow
def test_a_submission_graded_with_a_huge_kernel_error_is_rejudged_as_it_was_graded(tmp_path_factory, tmp_path):
    """"blank" as grading would have kept it had its kernel sent a 20 MB error for test_get_reward (the
    kept file and the report's reason as ``SandboxExecute`` writes them): rejudge reads it (no refusal) and
    gives every test the score and reason grading gave."""
    course = _graded(tmp_path_factory, tmp_path, {"blank"})
    folder = course.reports / ASSIGNMENT / "blank"
    report = json.loads((folder / f"{ASSIGNMENT}.json").read_text())
    kept = kept_probes.read(folder, report, "blank", ASSIGNMENT, ASSIGNMENT)
    evidence = _kept_evidence(kept)
    evidence["test_get_reward"]["visible"] = HUGE_ERROR
    report["cells"]["test_get_reward"]["reason"] = sandbox.cell_reason(evidence["test_get_reward"])[0]
    nb = nbformat.read(course.autograded / "blank" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    report["kept_probes"] = kept_probes.write(folder, report, nb, evidence)
    (folder / f"{ASSIGNMENT}.json").write_text(json.dumps(report, indent=1))
    assert kept_probes.read(folder, report, "blank", ASSIGNMENT, ASSIGNMENT).header["kernel"] == kept.header["kernel"]
    before = _files(course)
    outcome = rejudge.rejudge(course, ASSIGNMENT)
    assert (outcome.changes, outcome.untrusted, outcome.not_kept) == ([], {}, {})
    assert outcome.unchanged == len(_tests(course)[ASSIGNMENT])
    assert _files(course) == before


def _record_notebook(course, path: Path) -> None:
    """The source notebook at `path` recorded in part 1 as ``generate_assignment`` (build) records a
    notebook: its checksums computed, its cells saved (``ComputeChecksums``, ``SaveCells``). nbgrader's
    command refuses an assignment that has submissions, which its own steps do not."""
    from nbgrader.preprocessors import ComputeChecksums, SaveCells

    nb = nbformat.read(path, as_version=4)
    resources = {"nbgrader": {"notebook": path.stem, "assignment": ASSIGNMENT, "db_url": course.db_url}}
    for step in (ComputeChecksums(), SaveCells()):
        nb, resources = step.preprocess(nb, resources)


def _not_handed_in(course, notebook: str, students) -> None:
    """What nbgrader's autograde records of a notebook of the assignment that a student did not hand in:
    its rows as ``Gradebook.add_submission`` makes them, every grade 0 ("No submitted file")."""
    from nbgrader.api import Comment, Grade, SubmittedNotebook

    with Gradebook(course.db_url, COURSE_ID) as gb:
        source = gb.find_notebook(notebook, ASSIGNMENT)
        grade_cells, solution_cells = source.grade_cells, source.solution_cells
        submissions = [gb.find_submission(ASSIGNMENT, student) for student in students]
        with gb.db.no_autoflush:
            for submission in submissions:
                submitted = SubmittedNotebook(notebook=source, assignment=submission)
                for cell in grade_cells:
                    Grade(cell_id=cell.id, notebook=submitted, auto_score=0, needs_manual_grade=False)
                for cell in solution_cells:
                    Comment(cell_id=cell.id, notebook=submitted)
                gb.db.add(submitted)
        gb.db.commit()


def _grades_of(course, notebook: str) -> dict:
    """{(student, grade cell): (auto_score, manual_score)} of one notebook of part 1."""
    from nbgrader.api import Grade, Notebook, SubmittedNotebook

    with Gradebook(course.db_url, COURSE_ID) as gb:
        return {(g.student.id, g.name): (g.auto_score, g.manual_score) for g in gb.db.query(Grade)
                .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
                .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id).filter(Notebook.name == notebook)}


@pytest.mark.slow
def test_a_notebook_not_handed_in_keeps_its_grades_and_the_others_are_rejudged(tmp_path_factory, tmp_path):
    """Part 1 given a second notebook, "second" (a copy of the first), recorded as build records it; "full"
    and "blank" handed in only the first, so nbgrader gave their "second" 0. A point value changed in the
    first notebook is rejudged for both (no kept outputs of "second" are needed, none are missing), the
    grades of "second" staying as they are; a "second" that was handed in and graded but has no report
    refuses the point change, naming that notebook alone."""
    students = {"full", "blank"}
    course = _graded(tmp_path_factory, tmp_path, students)
    first = _own_source(course)
    shutil.copy(first, first.with_name("second.ipynb"))
    _record_notebook(course, first.with_name("second.ipynb"))
    _not_handed_in(course, "second", students)
    _edit(first, "test_get_reward", points=5)
    second = _grades_of(course, "second")
    assert len(second) > 10 and set(second.values()) == {(0, None)}

    handed_in = [course.submitted / "blank" / ASSIGNMENT / "second.ipynb",
                 course.autograded / "blank" / ASSIGNMENT / "second.ipynb"]
    for path in handed_in:  # graded (as its submitted and autograded files say), no report kept
        shutil.copy(path.with_name(f"{ASSIGNMENT}.ipynb"), path)
    grading_state.note(course, ASSIGNMENT, "blank", submission=grading_state.fingerprint(course, ASSIGNMENT, "blank"))
    before = _files(course)
    with pytest.raises(rejudge.Refused) as refused:
        rejudge.rejudge(course, ASSIGNMENT)
    assert "blank/second: second was handed in and graded, but its report second.json is missing" in \
        str(refused.value) and "full/" not in str(refused.value), str(refused.value)
    assert _files(course) == before

    for path in handed_in:
        path.unlink()
    grading_state.note(course, ASSIGNMENT, "blank", submission=grading_state.fingerprint(course, ASSIGNMENT, "blank"))
    outcome = rejudge.rejudge(course, ASSIGNMENT)
    assert {(c.student, c.notebook, c.test, c.old_score, c.new_score, c.new_max) for c in outcome.changes} == {
        ("full", ASSIGNMENT, "test_get_reward", 3, 5, 5), ("blank", ASSIGNMENT, "test_get_reward", 0, 0, 5)}
    assert set(outcome.not_submitted) == {"full/second", "blank/second"}
    assert (outcome.untrusted, outcome.not_kept) == ({}, {})
    assert _grades_of(course, "second") == second
    assert set(outcome.feedback) == {(ASSIGNMENT, s) for s in students} and not any(outcome.feedback.values())
    rows = {(r["student"], r["notebook"]): r for r in pipeline.grade_rows(course, [ASSIGNMENT])}
    assert rows[("full", ASSIGNMENT)]["code_score"] == 23 and rows[("full", "second")]["score"] == 0


HOLD_THE_LOCK = """
import sys
from autograder import grading_lock, pipeline
with grading_lock.held(pipeline.Course.workspace(sys.argv[1]), [sys.argv[2]], sys.argv[3]):
    print("held", flush=True)
    sys.stdin.read()
"""


@contextmanager
def _held_elsewhere(course, command: str):
    """The assignment's grading lock held by another process (as `command` holds it); its pid."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_THE_LOCK, str(course.root), ASSIGNMENT, command],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT)
    try:
        assert holder.stdout.readline() == "held\n"
        yield holder.pid
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)


@pytest.mark.slow
def test_a_rejudge_and_an_autograde_exclude_each_other_and_a_file_written_meanwhile_stays(tmp_path_factory, tmp_path,
                                                                                          monkeypatch):
    """While another process grades the assignment (holds its lock), rejudge refuses at once, naming it
    and its pid, and changes nothing; autograde refuses the same while a rejudge holds it. A file that
    something else writes while a rejudge runs is not replaced: the student whose notebook changed after
    it was read is refused, its files and grades left as they are; one that changes between the staging
    and the transaction stops the whole rejudge, nothing written; one written after a rejudge was killed
    past its transaction is not replaced when the next rejudge completes it."""
    course = _graded(tmp_path_factory, tmp_path, {"partial_action_prob", "full"})
    monkeypatch.setattr(ttt1_checks, "FLOAT_TOLERANCE", 1.0)  # partial_action_prob's reason changes (above)
    before = _files(course)
    with _held_elsewhere(course, "autograde ttt1_mcts") as pid:
        with pytest.raises(grading_lock.Busy, match=rf"cannot rejudge ttt1_mcts: `autograde ttt1_mcts` \(pid {pid} "):
            rejudge.rejudge(course, ASSIGNMENT)
        code, _, err = cli(course, "rejudge", ASSIGNMENT)
        assert code == 2 and f"`autograde ttt1_mcts` (pid {pid} on " in err, err
    record = grading_state.read(course, ASSIGNMENT, "full")
    with _held_elsewhere(course, "rejudge ttt1_mcts") as pid:
        with pytest.raises(grading_lock.Busy, match=rf"cannot autograde ttt1_mcts --student full: `rejudge ttt1_mcts` "
                                                    rf"\(pid {pid} "):
            pipeline.autograde(course, [ASSIGNMENT], ["full"])
    with _held_elsewhere(course, "autograde ttt1_mcts") as pid:  # feedback and collect write what grading writes
        with pytest.raises(grading_lock.Busy, match=rf"cannot feedback ttt1_mcts: `autograde ttt1_mcts` \(pid {pid} "):
            pipeline.feedback(course, [ASSIGNMENT])
        with pytest.raises(grading_lock.Busy, match=rf"cannot feedback: `autograde ttt1_mcts` \(pid {pid} "):
            pipeline.feedback(course)
        (tmp_path / "incoming").mkdir()
        with pytest.raises(grading_lock.Busy, match=rf"cannot collect {re.escape(str(tmp_path / 'incoming'))}: `autograde ttt1_mcts` "):
            pipeline.collect(course, tmp_path / "incoming")
        code, _, err = cli(course, "feedback", ASSIGNMENT)
        assert code == 2 and f"`autograde ttt1_mcts` (pid {pid} on " in err, err
    assert _files(course) == before and grading_state.read(course, ASSIGNMENT, "full") == record

    notebook = course.autograded / "partial_action_prob" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    rewritten = rejudge._rewritten

    def graded_meanwhile(*args):  # the notebook written again (by a grading) after the rejudge read it
        files = rewritten(*args)
        notebook.write_bytes(notebook.read_bytes() + b"\n")
        return files
    monkeypatch.setattr(rejudge, "_rewritten", graded_meanwhile)
    outcome = rejudge.rejudge(course, ASSIGNMENT, feedback=False)
    assert outcome.changes == [] and list(outcome.untrusted) == [f"partial_action_prob/{ASSIGNMENT}"]
    assert outcome.untrusted[f"partial_action_prob/{ASSIGNMENT}"].startswith(
        f"{ASSIGNMENT}.ipynb changed since this rejudge read it")
    after = _files(course)
    assert {p for p in after if after[p] != before.get(p)} == {notebook}

    monkeypatch.setattr(rejudge, "_rewritten", rewritten)
    report = course.reports / ASSIGNMENT / "partial_action_prob" / f"{ASSIGNMENT}.json"
    stage = rejudge_journal.write_whole

    def staged_then_graded(path, data):  # the report written again between the staging and the transaction
        stage(path, data)
        if path == rejudge_journal.journal_path(course, ASSIGNMENT):
            report.write_bytes(report.read_bytes() + b"\n")
    monkeypatch.setattr(rejudge_journal, "write_whole", staged_then_graded)
    with pytest.raises(pipeline.GraderError, match=r"1 file\(s\) changed while rejudging .*nothing was written"):
        rejudge.rejudge(course, ASSIGNMENT, feedback=False)
    now = _files(course)
    assert {p for p in now if now[p] != after.get(p)} == {report}
    assert not rejudge_journal.journal_path(course, ASSIGNMENT).exists()
    assert not list(Path(course.root).rglob(f"*{rejudge_journal.STAGED}"))

    monkeypatch.undo()
    _edit(_own_source(course), "test_get_reward", points=4)
    killed = subprocess.run([sys.executable, "-c", KILL_AFTER_THE_TRANSACTION, str(course.root), ASSIGNMENT],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert killed.returncode == -9, killed.stderr
    report = course.reports / ASSIGNMENT / "full" / f"{ASSIGNMENT}.json"
    report.write_bytes(report.read_bytes() + b"\n")  # graded again after the kill, to the grades the rejudge wrote
    graded = report.read_bytes()
    outcome = rejudge.rejudge(course, ASSIGNMENT, feedback=False)
    assert outcome.recovered.endswith(f"; 1 file(s) left as written since the rejudge read them ({report})"), \
        outcome.recovered
    assert report.read_bytes() == graded and not list(Path(course.root).rglob(f"*{rejudge_journal.STAGED}"))
