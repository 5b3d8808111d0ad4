"""A rejudge's writes, all or none: the gradebook in one transaction, files by rename, and a journal.

``apply`` (the last step of ``autograder.rejudge``):

1. writes each new file beside its target (``<target>.rejudge-staged``), then the journal
   ``<reports>/.rejudge/<assignment>.json``: every gradebook row it changes with its old and new values,
   the files with the SHA-256 each had when the rejudge read it, and the students whose feedback is due;
2. writes every gradebook row in one transaction (nbgrader's ``Gradebook`` session: all rows or none),
   after checking that each still holds its old value and that each file it replaces is still the one
   the rejudge read (its SHA-256; else nothing is written: a grading wrote it meanwhile);
3. renames each staged file onto its target (unless the target changed since it was read: it is left
   as that writer wrote it, the staged file dropped), regenerates those students' feedback, removes the
   journal.

``recover`` runs first in every rejudge. When a journal is left, the gradebook says how far it got:
every row new, the transaction committed (also when no row changed): the staged files still there are
renamed (those whose target is still as the rejudge read it: a grading after the kill that gave the
same grades keeps its own files), the feedback regenerated, the journal removed; every row old, it did
not: the staged files and the journal are removed. A row that is neither was graded again since: the
staged files are dropped (the rejudge that follows judges that submission as it is now). Staged files
without a journal are left from before step 1 ended, and are removed.

Only one command writes an assignment at a time: ``rejudge`` holds its ``grading_lock`` around all of it.
"""
import json
from pathlib import Path

from .grading_config import COURSE_ID
from .kept_probes import digest, write_whole
from .pipeline import GraderError

STAGED = ".rejudge-staged"
CHUNK = 500  # ids per SQL query


def folder(course) -> Path:
    return Path(course.reports) / ".rejudge"


def journal_path(course, assignment: str) -> Path:
    return folder(course) / f"{assignment}.json"


def file_digest(path: Path) -> str | None:
    """SHA-256 of the file's bytes (None: no such file; a reason when it cannot be read, never a digest)."""
    try:
        return digest(Path(path).read_bytes())
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"unreadable: {type(exc).__name__}"


def _models():
    from nbgrader.api import Grade, GradeCell, SourceCell, SubmittedNotebook

    return {"grade": Grade, "grade_cell": GradeCell, "source_cell": SourceCell,
            "submitted_notebook": SubmittedNotebook}


def _rows(gb, rows: list[dict]) -> dict:
    """{(table, id): the ORM object} of the journal's rows."""
    models, found = _models(), {}
    for table, model in models.items():
        ids = [row["id"] for row in rows if row["table"] == table]
        for start in range(0, len(ids), CHUNK):
            for obj in gb.db.query(model).filter(model.id.in_(ids[start:start + CHUNK])):
                found[(table, obj.id)] = obj
    return found


def _holds(obj, row: dict, which: int) -> bool:
    return obj is not None and all(getattr(obj, field) == values[which] for field, values in row["set"].items())


def apply(course, assignment: str, rows: list[dict], files: dict[Path, bytes], students: list[str],
          feedback, expected: dict | None = None):
    """Write the rejudge's changes: `rows` [{"table": "grade" | "grade_cell" | "source_cell" | "submitted_notebook", "id",
    "set": {field: [old, new]}}], `files` {target: new bytes}, then ``feedback(students)``, whose result
    it returns. `expected`: {target: ``file_digest`` when the rejudge read it}; a target that is no longer
    so stops it, like a row that changed."""
    journal = journal_path(course, assignment)
    folder(course).mkdir(parents=True, exist_ok=True)
    for target, data in files.items():
        write_whole(target.with_name(target.name + STAGED), data)
    expected = {str(path): sha for path, sha in (expected or {}).items()}
    write_whole(journal, json.dumps({"assignment": assignment, "rows": rows, "files": [str(p) for p in files],
                                     "expected": expected, "feedback": students}, indent=1).encode())
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url, COURSE_ID) as gb:
        found = _rows(gb, rows)
        stale = [row for row in rows if not _holds(found.get((row["table"], row["id"])), row, 0)]
        if stale:
            _discard(journal, files)
            raise GraderError(f"the gradebook changed while rejudging ({len(stale)} row(s), e.g. a grading "
                              f"finished meanwhile): nothing was written; run rejudge again")
        moved = sorted(path for path, sha in expected.items() if file_digest(Path(path)) != sha)
        if moved:
            _discard(journal, files)
            raise GraderError(f"{len(moved)} file(s) changed while rejudging (e.g. {moved[0]}: a grading wrote it "
                              "meanwhile): nothing was written; run rejudge again")
        for row in rows:
            for field, (_, new) in row["set"].items():
                setattr(found[(row["table"], row["id"])], field, new)
        gb.db.commit()  # every row, or (interrupted before this returns) none
    return _finish(journal, list(files), students, feedback, expected)[0]


def _finish(journal: Path, files: list[Path], students: list[str], feedback, expected: dict) -> tuple[dict, list]:
    """Put the staged files in place, those whose target is still as read (`expected`: {str(target):
    ``file_digest``}, a target not in it counts as read); regenerate the feedback; remove the journal.
    The feedback's result and the targets left as another writer wrote them."""
    others = []
    for target in files:
        staged = target.with_name(target.name + STAGED)
        if not staged.exists():
            continue
        if str(target) in expected and file_digest(target) != expected[str(target)]:
            staged.unlink()  # written since it was read (a grading): that writer's file stays
            others.append(target)
        else:
            staged.replace(target)
    done = feedback(students) if students else {}
    journal.unlink()
    return done, others


def _discard(journal: Path, files) -> None:
    for target in files:
        target.with_name(target.name + STAGED).unlink(missing_ok=True)
    journal.unlink(missing_ok=True)


def recover(course, assignment: str, feedback) -> str:
    """Complete or roll back an interrupted rejudge of `assignment` (see the module's docstring); what was
    done, in words ("" when there was nothing to do)."""
    journal = journal_path(course, assignment)
    if not journal.exists():
        leftovers = [*Path(course.autograded).glob(f"*/{assignment}/*{STAGED}"),
                     *(Path(course.reports) / assignment).glob(f"*/*{STAGED}")]
        for path in leftovers:
            path.unlink()
        return f"removed {len(leftovers)} file(s) staged by an interrupted rejudge" if leftovers else ""
    record = json.loads(journal.read_text())
    files = [Path(p) for p in record["files"]]
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url, COURSE_ID) as gb:
        found = _rows(gb, record["rows"])
        new = all(_holds(found.get((r["table"], r["id"])), r, 1) for r in record["rows"])
        old = bool(record["rows"]) and all(_holds(found.get((r["table"], r["id"])), r, 0) for r in record["rows"])
    if new:
        _, others = _finish(journal, files, record["feedback"], feedback, record.get("expected") or {})
        return (f"completed an interrupted rejudge: {len(record['rows'])} gradebook row(s) were written, "
                f"{len(files) - len(others)} file(s) put in place, feedback of {len(record['feedback'])} student(s) "
                "regenerated" + (f"; {len(others)} file(s) left as written since the rejudge read them ("
                                 + ", ".join(map(str, others)) + ")" if others else ""))
    _discard(journal, files)
    if old:
        return "rolled back an interrupted rejudge: its gradebook rows were never written"
    return "dropped an interrupted rejudge's files: the gradebook was graded again since"
