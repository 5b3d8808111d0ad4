"""One grading command at a time per assignment: ``<course root>/.autograder-locks/<assignment>.lock``.

``pipeline.autograde`` (the local batch and ``--ray``'s, which is the same batch) holds the lock of every
assignment it grades for as long as it runs, and ``rejudge`` the lock of the one it judges again: each
writes the gradebook, the autograded notebooks and the reports of the whole assignment, and a regrade
that ran during a rejudge could be overwritten by the rejudge's files (or the reverse). ``feedback``
(late penalties into the gradebook, the feedback files) and ``collect`` (the submitted notebooks) hold
the locks of the assignments they touch too, so neither runs under a grading command. The lock is an
``fcntl.flock`` on the file, taken without waiting: the second command fails at once (``Busy``, a
``GraderError``) naming the command that holds it and its process id, which the holder writes into the
file. The kernel releases the lock when its holder ends, however it ends (a kill, a crash), so a lock is
never left behind. The folder holds a ``.gitignore`` of its own (the pack's course is the repository).
"""
import fcntl
import json
import os
import socket
import time
from contextlib import contextmanager
from pathlib import Path

from .errors import GraderError

FOLDER = ".autograder-locks"


class Busy(GraderError):
    """Another command holds the lock of an assignment."""


def path(course, assignment: str) -> Path:
    if not assignment or "/" in assignment or assignment.startswith("."):
        raise GraderError(f"not an assignment name: {assignment!r}")
    return Path(course.root) / FOLDER / f"{assignment}.lock"


def holder(handle) -> dict:
    """What the holder wrote into the lock file ({} when nothing readable is there yet)."""
    try:
        handle.seek(0)
        record = json.loads(handle.read(4096) or "{}")
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _busy(course, assignment: str, handle, command: str) -> Busy:
    record = holder(handle)
    who = (f"`{record.get('command')}` (pid {record.get('pid')} on {record.get('host')}, since "
           f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(record.get('since', 0)))})"
           if record.get("command") else "another command (it has not said which yet)")
    return Busy(f"cannot {command}: {who} is grading {assignment} now and holds its lock "
                f"({path(course, assignment)}); run this again once it has finished")


@contextmanager
def held(course, assignments, command: str):
    """Hold the lock of each of `assignments` while the block runs; Busy (nothing held) when another
    command holds one. `command`: what this is, in words for the other one's message (e.g.
    ``rejudge ttt1_mcts``)."""
    folder = Path(course.root) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    handles = []
    try:
        for assignment in sorted(set(assignments)):
            handle = open(path(course, assignment), "a+")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                busy = _busy(course, assignment, handle, command)
                handle.close()
                raise busy from None
            handles.append(handle)
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps({"command": command, "pid": os.getpid(), "host": socket.gethostname(),
                                     "since": round(time.time(), 3)}))
            handle.flush()
        yield
    finally:
        for handle in handles:
            try:
                handle.truncate(0)  # the holder's record goes with its lock
            finally:
                handle.close()
