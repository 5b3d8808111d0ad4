"""Whether each submission's grading finished: ``reports/<assignment>/<student>/autograde.json``.

The pipeline writes ``{"state": "running", ...}`` before it starts a submission's ``nbgrader
autograde`` and ``{"state": "finished", "ok": ...}`` once that process has ended (on a Ray cluster,
once the node's answer is written into the course, with the ``node`` that graded it). A record still
"running" after its grader is gone means the grading was interrupted (Ctrl-C, a kill, a reboot):
nbgrader had already recorded the submission, with no score, so the grade table would otherwise
read it as a result. Each record keeps a fingerprint of the submitted files, so a submission
collected again after it was graded counts as not graded.
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from pathlib import Path

RECORD = "autograde.json"
INTERRUPTED = "not graded (interrupted)"
NEVER_GRADED = "not graded (run autograde)"
BEING_GRADED = "being graded"


def _record_path(course, assignment: str, student: str) -> Path:
    return course.reports / assignment / student / RECORD


def fingerprint(course, assignment: str, student: str) -> str:
    """SHA-256 of the submission's files in submitted/ (names and bytes), hex, 16 characters."""
    digest = hashlib.sha256()
    folder = course.submitted / student / assignment
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def read(course, assignment: str, student: str) -> dict:
    """The submission's record ({} when it was never graded by the pipeline, or is unreadable)."""
    try:
        record = json.loads(_record_path(course, assignment, student).read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _write(course, assignment: str, student: str, record: dict) -> None:
    path = _record_path(course, assignment, student)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps(record, indent=1))
    partial.replace(path)  # a reader never sees half a record


def mark_started(course, assignment: str, student: str) -> None:
    _write(course, assignment, student, {"state": "running", "started": time.time(), "pid": os.getpid(),
                                         "host": socket.gethostname(),
                                         "submission": fingerprint(course, assignment, student)})


def note(course, assignment: str, student: str, **fields) -> None:
    """Add `fields` to the record of a grading under way (``node``: where a cluster graded it)."""
    _write(course, assignment, student, {**read(course, assignment, student), **fields})


def mark_finished(course, assignment: str, student: str, ok: bool, seconds: float) -> None:
    record = read(course, assignment, student)
    _write(course, assignment, student, {**record, "state": "finished", "ok": ok, "seconds": seconds,
                                         "finished": time.time()})


def is_finished(course, assignment: str, student: str) -> bool:
    """True when the submission as it is now in submitted/ has a finished grade (not a failure)."""
    record = read(course, assignment, student)
    return record.get("state") == "finished" and record.get("ok") is True \
        and record.get("submission") == fingerprint(course, assignment, student)


def unfinished(course, assignment: str, student: str) -> tuple[str, str] | None:
    """(status, reason in words) when the submission's grading started and has not finished
    (interrupted, or still running in another process of this machine); else None."""
    record = read(course, assignment, student)
    if record.get("state") != "running":
        return None
    pid = record.get("pid")
    if record.get("host") == socket.gethostname() and pid != os.getpid() and _alive(pid):
        return BEING_GRADED, f"being graded now by process {pid}"
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.get("started", 0)))
    return INTERRUPTED, f"grading started {started} and was interrupted: `autograde` again grades it"


def _alive(pid) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
