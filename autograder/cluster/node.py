"""What runs on a node of the cluster (each function is one Ray task there).

``prepare`` is the node's ``doctor`` and set-up, run once per batch before it gets any work: can it
sandbox (``isolation.diagnose``), does it grade with the driver's sources and Python, and it puts the
driver's warm caches in place, each checked by its SHA-256 first.

``grade`` grades one submission the way ``nbgrader autograde`` grades it on the driver's machine, in
a throwaway workspace of the node (``Course.workspace``): the driver's course definition as its
SQLite gradebook (``kit.gradebook_template``) with this one student, the assignment's release, the
driver's grading settings, the submission's files; then nbgrader's ``autograde`` with the sandbox,
without its late-penalty steps (``NO_LATE_STEPS``: the driver runs them itself on its own deadlines,
extensions, submission times and collect's records, so a node needs none of them). What it sends back is what that run wrote: the autograded folder, the submission's report files, and
the rows ``autograde`` writes to a gradebook (``SaveAutoGrades``: each grade cell's ``auto_score``,
each answer cell's ``auto_comment``). The
workspace is removed; the node keeps nothing of the student's (a workspace that a cancelled or lost task
left behind is removed by the node's next grading: ``sandbox.held_folder``).
"""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

from . import kit

STREAM_TAIL = 64 * 1024  # characters of nbgrader's stdout and stderr sent back (the cause is at the end)
# Appended to a node's workspace configuration: ``autograde`` there without nbgrader's late-penalty
# steps (``AssignLatePenalties`` and its subclasses, the pack's ``ApplyLatePolicy``). Their result on a
# node would be discarded anyway (the answer carries no penalty; the driver computes it and the
# ``.late.json`` report), and they would need the course's deadlines.toml, its extensions CSV and
# collect's records of the submission times, which stay on the driver.
NO_LATE_STEPS = """
from nbgrader.preprocessors import AssignLatePenalties as _LateStep
from traitlets.utils.importstring import import_item as _import_item
c.Autograde.autograde_preprocessors = [
    _step for _step in c.Autograde.autograde_preprocessors
    if not (isinstance(_cls := (_import_item(_step) if isinstance(_step, str) else _step), type)
            and issubclass(_cls, _LateStep))]
"""


def node_id() -> str:
    import ray

    return ray.get_runtime_context().get_node_id()


# ----------------------------------------------------------------------------- the node's doctor

def prepare(expected: dict, *caches: dict) -> dict:
    """Check this node and install the driver's caches. `expected` is the driver's ``kit.stamp()``
    with "sandbox" (False: grading without isolation was asked for); `caches` the packed folders
    (``kit.pack``). Returns {"node", "host", "ok", "isolation", "problems": [what is wrong, in words]}."""
    import socket

    from .. import isolation, numba_cache

    report = {"node": node_id(), "host": socket.gethostname(), "ok": False, "isolation": "", "problems": []}
    diagnosis = isolation.diagnose()
    if expected["sandbox"] and not diagnosis.ok:
        report["problems"] = diagnosis.problems
        return report
    report["isolation"] = diagnosis.name if expected["sandbox"] else "none (--unsafe-no-sandbox)"
    align_numba_timestamps(expected["numba_sources"])
    mine = kit.stamp()
    for key, what in (("sources", "the grading sources (autograder/, assignments/, azcourse/, the engine, "
                                  "ckpts/) differ from the driver's: check out the driver's commit"),
                      ("python", "another Python"), ("numba_key", "another numba cache key (numba or Python "
                                                                  "version)"),
                      ("jax_key", "another JAX cache key (JAX, Flax, optax or numpy version)")):
        if mine[key] != expected[key]:
            report["problems"].append(f"{what}: {str(mine[key])[:60]} here, {str(expected[key])[:60]} on the driver")
    if report["problems"]:
        return report
    try:
        for cache in caches:
            install_cache(Path(isolation.private_cache_root()), cache)
    except (OSError, RuntimeError, tarfile.TarError) as exc:
        report["problems"].append(f"the driver's caches could not be installed: {exc}")
        return report
    report["ok"] = numba_cache.cache_key() == expected["numba_key"]
    if not report["ok"]:
        report["problems"].append("numba's cache key changed while the caches were installed")
    return report


def align_numba_timestamps(driver: dict) -> None:
    """Give each numba source whose bytes equal the driver's the driver's modification time: numba's
    cache holds a compiled function only for the source timestamp it was compiled from, and a fresh
    clone on another machine has other timestamps (same bytes, so nothing else changes)."""
    from .. import numba_cache

    for name, (sha256, mtime_ns) in driver.items():
        path = numba_cache.REPO_ROOT / name
        if path.is_file() and kit._sha256(path) == sha256 and path.stat().st_mtime_ns != mtime_ns:
            os.utime(path, ns=(path.stat().st_atime_ns, mtime_ns))


def install_cache(root: Path, cache: dict) -> Path:
    """``root/<cache name>`` holding the shipped files: kept when its SHA-256 is the driver's, else
    (missing, or different) unpacked from the tar, checked, and moved into place in one step.
    RuntimeError when the unpacked files do not have the driver's SHA-256."""
    target = root / cache["name"]
    if target.is_dir() and kit.digest(target) == cache["sha256"]:
        return target
    work = Path(tempfile.mkdtemp(prefix=f"shipped-{cache['name']}-", dir=root))
    try:
        folder = work / "files"
        folder.mkdir()
        with tarfile.open(fileobj=io.BytesIO(cache["tar"])) as tar:
            tar.extractall(folder, filter="data")
        if kit.digest(folder) != cache["sha256"]:
            raise RuntimeError(f"the shipped {cache['name']} does not have the driver's SHA-256")
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        if target.exists():  # a different (damaged or foreign) folder of that name: set aside, then removed
            target.rename(work / "old")
        folder.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


# ----------------------------------------------------------------------------- one submission

def grade(course_kit: dict, request: dict) -> dict:
    """Grade one submission in a throwaway workspace of this node.

    `course_kit`: {"gradebook": bytes, "release": {assignment: {path: bytes}}, "config": str}.
    `request`: {"assignment", "student", "files": {path: bytes} (the submitted folder),
    "args": extra nbgrader arguments, "timeout": s}.
    Returns {"node", "seconds", "returncode" (None: past the timeout), "stdout", "stderr" (tails),
    "autograded": {path: bytes}, "reports": {path: bytes}, "grades": {notebook: {"scores":
    {grade cell: auto_score}, "comments": {cell: auto_comment}}}} (``grades`` only when nbgrader
    succeeded; the late penalty the driver decides itself).
    """
    from .. import pipeline
    from ..sandbox import held_folder

    assignment, student = request["assignment"], request["student"]
    started = time.monotonic()
    folder, held = held_folder("azcourse-node-")  # a task cancelled or killed leaves it: the next grading removes it
    try:
        course = pipeline.Course.workspace(folder / "ws", extra_config=course_kit["config"] + NO_LATE_STEPS)
        course.gradebook.write_bytes(course_kit["gradebook"])
        _write(course.release / assignment, course_kit["release"][assignment])
        _write(course.submitted / student / assignment, request["files"])
        _enrol(course, student)
        answer = {"node": node_id(), "autograded": {}, "reports": {}, "grades": {}}
        try:
            done = pipeline.nbgrader(course, "autograde", assignment, f"--student={student}", "--force",
                                     "--log-level=WARN", *request["args"], check=False, capture=True,
                                     timeout=request["timeout"])
            answer.update(returncode=done.returncode, stdout=done.stdout[-STREAM_TAIL:],
                          stderr=done.stderr[-STREAM_TAIL:])
        except subprocess.TimeoutExpired:
            answer.update(returncode=None, stdout="", stderr="")
        answer["autograded"] = kit.folder_files(course.autograded / student / assignment)
        answer["reports"] = kit.folder_files(course.reports / assignment / student)
        if answer["returncode"] == 0:
            answer["grades"] = _grades(course, assignment, student)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        held.close()
    answer["seconds"] = round(time.monotonic() - started, 1)
    return answer


def _write(folder: Path, files: dict) -> None:
    for relative, data in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _enrol(course, student: str) -> None:
    """The student in the node's gradebook."""
    from nbgrader.api import Gradebook

    from ..grading_config import COURSE_ID

    with Gradebook(course.db_url, COURSE_ID) as gb:
        gb.update_or_create_student(student)


def _grades(course, assignment: str, student: str) -> dict:
    """What ``autograde`` wrote to the node's gradebook for this submission."""
    from nbgrader.api import Gradebook

    from ..grading_config import COURSE_ID

    rows = {}
    with Gradebook(course.db_url, COURSE_ID) as gb:
        for notebook in gb.find_submission(assignment, student).notebooks:
            rows[notebook.name] = {"scores": {g.name: g.auto_score for g in notebook.grades},
                                   "comments": {c.name: c.auto_comment for c in notebook.comments}}
    return rows
