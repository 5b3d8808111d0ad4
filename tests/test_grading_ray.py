"""Grading a class on a Ray cluster (``autograder.cluster``, ``autograde --ray``).

One batch on the suite's cluster (conftest's ``ray_cluster``: nodes head and b of one CPU each, b with a
HOME of its own and so none of the grader's caches, and c, which cannot sandbox), on a copy of the
suite's graded corpus (``tests/courses.py``, graded by the local pipeline): a submission of every
assignment and some hostile ones are forgotten (their gradebook rows, autograded folders and reports
removed) and graded again on the cluster, by a driver that is killed with SIGKILL part way and run
again, during which node b is killed while it grades. Everything must then be as the local run left
it: scores, reasons, flags, the gradebook's rows, the files.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook, MissingEntry

from autograder import cluster, grading_state, pipeline
from autograder.cluster import answer, kit
from autograder.grading_config import COURSE_ID, REPO_ROOT
from courses import graded_corpus

pytestmark = pytest.mark.slow

# Every assignment, with hostile cases: probe data forged, a notebook nbgrader cannot read (it fails
# alone, with its cause), engine wrappers (flagged), and JAX notebooks (the shipped JAX cache).
BATCH = {"ttt1_mcts": ["forged_probe", "broken_json"], "ttt2_selfplay": ["partial"], "azul3_play": ["wrappers"],
         "hex4_onpolicy": ["partial_winner"], "othello5_planning": ["backup_without_sign"],
         "tak6_alphazero": ["carry_limit"]}
PAIRS = sorted((assignment, student) for assignment, students in BATCH.items() for student in students)
STUDENTS = sorted(student for _, student in PAIRS)
DRIVER_REPORTS = (".collect.json", ".feedback.json")  # written by collect and feedback, kept


def facts(course) -> dict:
    """What a grading leaves of the batch: the grade table's rows, nbgrader's gradebook rows, the names of
    the autograded and report files."""
    rows = [row for row in pipeline.grade_rows(course, sorted(BATCH), STUDENTS)
            if (row["assignment"], row["student"]) in PAIRS]
    book = {}
    with Gradebook(course.db_url, COURSE_ID) as gb:
        for assignment, student in PAIRS:
            try:
                submission = gb.find_submission(assignment, student)
            except MissingEntry:
                book[f"{student}/{assignment}"] = None
                continue
            book[f"{student}/{assignment}"] = {
                "timestamp": str(submission.timestamp),
                "notebooks": {nb.name: {"late": nb.late_submission_penalty,
                                        "grades": {g.name: [g.auto_score, g.manual_score, g.needs_manual_grade]
                                                   for g in nb.grades},
                                        "comments": {c.name: c.auto_comment for c in nb.comments}}
                              for nb in submission.notebooks}}
    files = {f"{student}/{assignment}": sorted(
        [str(p.relative_to(course.root)) for p in (course.autograded / student / assignment).rglob("*")]
        + [str(p.relative_to(course.root)) for p in (course.reports / assignment / student).rglob("*")])
        for assignment, student in PAIRS}
    return {"rows": rows, "gradebook": book, "files": files}


def forget(course) -> None:
    """The batch's submissions as if collected and never graded (their collect and feedback reports kept)."""
    with Gradebook(course.db_url, COURSE_ID) as gb:
        for assignment, student in PAIRS:
            gb.remove_submission(assignment, student)
    for assignment, student in PAIRS:
        shutil.rmtree(course.autograded / student / assignment, ignore_errors=True)
        for path in (course.reports / assignment / student).iterdir():
            if not path.name.endswith(DRIVER_REPORTS):
                shutil.rmtree(path) if path.is_dir() else path.unlink()


def records(course) -> dict:
    return {pair: grading_state.read(course, *pair) for pair in PAIRS}


@pytest.fixture(scope="module")
def batch(tmp_path_factory, ray_cluster):
    course, _ = graded_corpus(tmp_path_factory, tmp_path_factory.mktemp("ray-graded") / "ws")
    assert {s for a, s in pipeline.submissions(course, None, STUDENTS)} == set(STUDENTS)
    assert pipeline.submissions(course, None, STUDENTS) == [(a, s) for s, a in sorted((s, a) for a, s in PAIRS)]
    local = facts(course)
    forget(course)
    forgotten = facts(course)
    assert all(row["status"] == grading_state.NEVER_GRADED for row in forgotten["rows"])
    assert set(forgotten["gradebook"].values()) == {None}

    # 1. the driver, killed with SIGKILL once a grade is written and another is under way
    log = open(course.root / "driver.log", "w")
    driver = subprocess.Popen([sys.executable, "-m", "autograder", "--workspace", str(course.root), "autograde",
                               *[f"--student={s}" for s in STUDENTS], "--ray", ray_cluster.address],
                              stdout=log, stderr=subprocess.STDOUT, env=ray_cluster.env, cwd=REPO_ROOT)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and driver.poll() is None:
        states = records(course)
        if any(grading_state.is_finished(course, *p) for p in PAIRS) and \
                any(r.get("state") == "running" for r in states.values()):
            break
        time.sleep(0.2)
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    log.close()
    before = records(course)
    finished = {pair for pair in PAIRS if grading_state.is_finished(course, *pair)}

    # 2. run again; node b is killed while it grades one of the last two (so that little runs on one node)
    lines = []

    def late_in_the_batch():
        prepared = sum(": 1 CPU(s); isolation:" in line for line in lines) >= 2  # past every node's doctor
        graded = sum(line.startswith("[") and "] graded " in line for line in lines)
        return prepared and graded >= len(PAIRS) - len(finished) - 2 and ray_cluster.runs_a_sandbox("b")

    killer = ray_cluster.kill_when("b", late_in_the_batch, timeout=900)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RAY_AUTH_MODE", "disabled")
        results = cluster.autograde(course, ray_cluster.address, students=STUDENTS, regrade=False,
                                    log=lines.append)
    killer.join(1)
    return {"course": course, "local": local, "killed_driver_log": (course.root / "driver.log").read_text(),
            "before": before, "finished": finished, "results": results, "lines": lines, "killer": killer,
            "after": records(course), "nodes": ray_cluster}


def test_the_class_graded_on_the_cluster_equals_the_local_run(batch):
    graded = facts(batch["course"])
    assert graded["rows"] == batch["local"]["rows"]
    assert graded["gradebook"] == batch["local"]["gradebook"]
    assert graded["files"] == batch["local"]["files"]
    failed = {pair: result["error"] for pair, result in batch["results"].items() if not result["ok"]}
    assert list(failed) == [("ttt1_mcts", "broken_json")] and "NotJSONError" in failed[("ttt1_mcts", "broken_json")]


def test_a_rerun_after_kill_9_of_the_driver_grades_exactly_the_unfinished(batch):
    finished = batch["finished"]
    assert finished and len(finished) < len(PAIRS), batch["killed_driver_log"]
    assert set(batch["results"]) == set(PAIRS) - finished
    assert any(r.get("state") == "running" for r in batch["before"].values())  # killed while it graded
    for pair in finished:  # not graded again: the record the killed driver wrote stays
        assert batch["after"][pair] == batch["before"][pair]
    assert f"{len(finished)} of {len(PAIRS)} submission(s) already have a finished grade" in "\n".join(batch["lines"])


def test_a_lost_node_s_submission_is_graded_on_another(batch):
    nodes = batch["nodes"]
    assert batch["killer"].killed
    head, b = nodes.node_id("head")[:8], nodes.node_id("b")[:8]
    lost = [line for line in batch["lines"] if f"({b}) lost" in line]
    assert len(lost) == 1 and "it gets no more work" in lost[0], batch["lines"]
    held = [(a, s) for a, s in PAIRS if f" {s}/{a} and the others" in lost[0]]
    assert len(held) == 1 and held[0] in batch["results"]
    assert batch["after"][held[0]]["state"] == "finished" and batch["after"][held[0]]["node"].endswith(f"({head})")
    nodes = {batch["after"][pair]["node"][-9:-1] for pair in batch["results"]}
    assert nodes <= {head, b} and head in nodes


def test_a_node_that_cannot_sandbox_gets_no_work_and_the_driver_says_why(batch):
    c = batch["nodes"].node_id("c")[:8]
    for log in ("\n".join(batch["lines"]), batch["killed_driver_log"]):
        said = [line for line in log.splitlines() if f"({c}) gets no work" in line]
        assert len(said) == 1 and "bubblewrap (bwrap) is not installed" in said[0], log
    assert all(f"({c})" not in record.get("node", "") for record in batch["after"].values())


def test_the_caches_were_shipped_and_checked_not_built_on_the_node(batch):
    """Node b started with none of the grader's caches: it holds the driver's, byte for byte, as the driver
    unpacked them (owned by the grader, 0644), not as a build leaves them (numba's: owned by a sandbox's uid)."""
    from autograder import jax_cache, numba_cache

    mine = jax_cache.cache_dir().parent
    shipped = Path(batch["nodes"].env_of["b"]["HOME"]) / ".cache" / "azcourse-grader"
    for name in (numba_cache.warm_cache_dir().name, jax_cache.cache_dir().name):
        assert kit.digest(shipped / name) == kit.digest(mine / name)
        files = [p for p in (shipped / name).rglob("*") if p.is_file()]
        assert files and all(p.stat().st_uid == os.geteuid() and p.stat().st_mode & 0o777 == 0o644 for p in files)
    assert sorted(p.name for p in shipped.glob("numba-*")) == [numba_cache.warm_cache_dir().name]
    assert sorted(p.name for p in shipped.glob("jax-*")) == [jax_cache.cache_dir().name]


def test_progress_is_the_batch_s_lines(batch):
    graded = [line for line in batch["lines"] if line.startswith("[") and "] graded " in line]
    assert len(graded) == len(batch["results"])
    assert graded[-1].startswith(f"[{len(batch['results'])}/{len(batch['results'])}] graded ")


# ----------------------------------------------------------------------------- a node's answer is a claim

def honest_answer(course, assignment: str, student: str) -> dict:
    """The answer a node would send for a graded submission of `course` (its files and gradebook rows)."""
    with Gradebook(course.db_url, COURSE_ID) as gb:
        grades = {nb.name: {"scores": {g.name: g.auto_score for g in nb.grades},
                            "comments": {c.name: c.auto_comment for c in nb.comments}}
                  for nb in gb.find_submission(assignment, student).notebooks}
    reports = {name: data for name, data in kit.folder_files(course.reports / assignment / student).items()
               if not (name in answer.DRIVER_REPORTS or name.endswith(answer.DRIVER_SUFFIXES))}
    return {"node": "x", "seconds": 1.0, "returncode": 0, "stdout": "", "stderr": "", "grades": grades,
            "autograded": kit.folder_files(course.autograded / student / assignment), "reports": reports}


def _bump_score(a):
    notebook = next(iter(a["grades"].values()))
    cell = next(name for name, score in notebook["scores"].items() if score is not None)
    notebook["scores"][cell] += 1000


def _other_score(a):
    notebook = next(iter(a["grades"].values()))
    cell = next(name for name, score in notebook["scores"].items() if score)
    notebook["scores"][cell] = 0


def _damage_notebook(a):
    name = next(n for n in a["autograded"] if n.endswith(".ipynb"))
    a["autograded"][name] = a["autograded"][name][:-200]


def _another_report(a):
    name = next(n for n in a["reports"] if n.count(".") == 1 and n.endswith(".json"))
    report = json.loads(a["reports"][name])
    a["reports"][name] = json.dumps({**report, "student": "somebody_else"}).encode()


TAMPERING = {
    "a path out of the folder": (lambda a: a["autograded"].update({"../../gradebook.db": b"x"}), "not inside"),
    "an absolute path": (lambda a: a["reports"].update({"/etc/passwd": b"x"}), "not inside"),
    "a file over the bound": (lambda a: a["reports"].update({"big.bin": b"\0" * (answer.MAX_FILE + 1)}), "over"),
    "the driver's own record": (lambda a: a["reports"].update({"autograde.json": b"{}"}), "only the driver writes"),
    "a collect report": (lambda a: a["reports"].update({"x.collect.json": b"{}"}), "only the driver writes"),
    "a score over the cell's points": (_bump_score, "outside"),
    "a score the notebook does not show": (_other_score, "differ from those of the autograded notebook"),
    "a notebook that does not parse": (_damage_notebook, "does not parse"),
    "a cell the gradebook lacks": (lambda a: next(iter(a["grades"].values()))["scores"].update({"extra": 1.0}),
                                   "not the notebook's cells"),
    "a comment nbgrader never writes": (lambda a: next(iter(a["grades"].values()))["comments"].update(
        {k: "=HYPERLINK()" for k in next(iter(a["grades"].values()))["comments"]}), "comment"),
    "another student's report": (_another_report, "not the report of"),
    "grades of a failed run": (lambda a: a.update(returncode=1), "grades of a failed run"),
    "a stream too long": (lambda a: a.update(stderr="x" * (answer.MAX_STREAM + 1)), "stderr"),
}


@pytest.mark.parametrize("tampering", TAMPERING)
def test_the_driver_refuses_a_node_s_answer_that_is_not_a_grading(batch, tampering):
    course = batch["course"]
    honest = honest_answer(course, "ttt1_mcts", "forged_probe")
    assert answer.check(honest, course, "ttt1_mcts", "forged_probe")["notebooks"]
    change, message = TAMPERING[tampering]
    change(honest)
    with pytest.raises(answer.BadAnswer, match=message):
        answer.check(honest, course, "ttt1_mcts", "forged_probe")


def test_the_template_gradebook_holds_the_course_and_no_student(batch, tmp_path):
    from sqlalchemy import text

    course = batch["course"]
    path = tmp_path / "gradebook.db"
    path.write_bytes(kit.gradebook_template(course))
    with Gradebook(f"sqlite:///{path}", COURSE_ID) as copy, Gradebook(course.db_url, COURSE_ID) as gb:
        assert copy.students == [] and gb.students
        assert copy.db.execute(text("select count(*) from submitted_assignment")).scalar() == 0
        assert [a.name for a in copy.assignments] == [a.name for a in gb.assignments]
        for assignment in gb.assignments:
            for notebook in assignment.notebooks:
                mine = copy.find_notebook(notebook.name, assignment.name)
                assert {(c.name, c.max_score) for c in mine.grade_cells} == \
                    {(c.name, c.max_score) for c in notebook.grade_cells}
                assert {(c.name, c.checksum, c.source, c.locked) for c in mine.source_cells} == \
                    {(c.name, c.checksum, c.source, c.locked) for c in notebook.source_cells}


def test_the_grading_settings_travel(batch):
    lines = kit.carried_config(kit.load_config(batch["course"])).splitlines()
    assert "c.SandboxExecute.timeout = 20" in lines
    assert any(line.startswith("c.SandboxExecute.cell_timeouts = {") and "'test_policy_loss': 60" in line
               for line in lines)
    assert not any("report_directory" in line for line in lines)  # the node's workspace has its own paths


def test_nbgrader_reads_the_autograded_notebook_the_driver_wrote(batch):
    course = batch["course"]
    for assignment, student in PAIRS:
        for path in (course.autograded / student / assignment).glob("*.ipynb"):
            nbformat.validate(nbformat.read(path, as_version=4))
            assert os.stat(path).st_mode & 0o777 == 0o644
