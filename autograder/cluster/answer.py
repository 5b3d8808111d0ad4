"""A node's answer for one submission, checked and then written into the driver's course.

A node runs student code only inside its sandbox, but what it sends back is treated as untrusted
input all the same: ``check`` refuses (``BadAnswer``, one line) any answer whose shape, paths or
sizes are wrong, whose notebook does not parse, whose grade rows are not exactly the cells of the
driver's gradebook, whose scores lie outside the cells' points or differ from what nbgrader reads
off the autograded notebook it sent (``nbgrader.utils.determine_grade``), or whose report is about
another submission. Only then does ``write`` touch the course: the autograded folder, the report
files, and the gradebook rows that ``nbgrader autograde`` writes on a local run, decided as nbgrader
decides them from the driver's own data (the student, the submission and its timestamp from
submitted/, ``needs_manual_grade`` from the driver's manual scores, zero for a notebook not
submitted, the late penalty from the driver's plugin and deadlines).
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath

MAX_FILE = 64 * 1024 * 1024      # bytes of one returned file (a kernel's outputs are capped at 20 MB a notebook)
MAX_TOTAL = 256 * 1024 * 1024    # bytes of one answer's files
MAX_FILES = 2000
MAX_STREAM = 64 * 1024           # characters of nbgrader's stdout or stderr
# Report files the driver writes itself (or collect did): a node never replaces them.
DRIVER_REPORTS = ("autograde.json", "autograde.tmp", "autograde-error.json")
DRIVER_SUFFIXES = (".collect.json", ".feedback.json", ".late.json")  # .late.json: the driver's late steps
NO_RESPONSE = "No response."


class BadAnswer(ValueError):
    """A node's answer that the driver refuses (the message says what is wrong)."""


def _files(answer: dict, key: str) -> dict[str, bytes]:
    files = answer.get(key)
    if not isinstance(files, dict) or len(files) > MAX_FILES:
        raise BadAnswer(f"{key}: not a mapping of at most {MAX_FILES} files")
    for name, data in files.items():
        parts = PurePosixPath(name).parts if isinstance(name, str) else ()
        if not parts or name.startswith("/") or any(p in ("..", ".", "") for p in parts) or "\\" in name \
                or "\0" in name or str(PurePosixPath(*parts)) != name:
            raise BadAnswer(f"{key}: the path {str(name)[:80]!r} is not inside the submission's folder")
        if not isinstance(data, bytes) or len(data) > MAX_FILE:
            raise BadAnswer(f"{key}/{name}: not bytes, or over {MAX_FILE} bytes")
    return files


def check(answer, course, assignment: str, student: str) -> dict:
    """`answer` (``node.grade``'s) if it is acceptable for this submission, else BadAnswer.
    Returns {"notebooks": {notebook: parsed autograded notebook}} beside the answer's own keys."""
    import nbformat
    from nbgrader.api import Gradebook
    from nbgrader.utils import determine_grade, is_grade

    from ..grading_config import COURSE_ID

    if not isinstance(answer, dict):
        raise BadAnswer("not a mapping")
    code = answer.get("returncode")
    if not (code is None or type(code) is int):
        raise BadAnswer("returncode: not an integer")
    for stream in ("stdout", "stderr"):
        if not isinstance(answer.get(stream), str) or len(answer[stream]) > MAX_STREAM:
            raise BadAnswer(f"{stream}: not text of at most {MAX_STREAM} characters")
    autograded, reports = _files(answer, "autograded"), _files(answer, "reports")
    if sum(map(len, autograded.values())) + sum(map(len, reports.values())) > MAX_TOTAL:
        raise BadAnswer(f"over {MAX_TOTAL} bytes of files")
    for name in reports:
        if name in DRIVER_REPORTS or name.endswith(DRIVER_SUFFIXES):
            raise BadAnswer(f"reports/{name}: a file only the driver writes")
    grades = answer.get("grades")
    if not isinstance(grades, dict) or (grades and code != 0):
        raise BadAnswer("grades: not a mapping, or grades of a failed run")
    with Gradebook(course.db_url, COURSE_ID) as gb:
        cells = {nb.name: ({c.name: c.max_score for c in nb.grade_cells},
                           {c.name for c in [*nb.solution_cells, *nb.task_cells]})
                 for nb in gb.find_assignment(assignment).notebooks}
    submitted = {nb for nb in cells if (course.submitted / student / assignment / f"{nb}.ipynb").is_file()}
    notebooks = {}
    if code == 0:
        if set(grades) != set(cells):
            raise BadAnswer(f"grades: notebooks {sorted(grades)[:5]}, the assignment has {sorted(cells)}")
        for name in sorted(submitted):
            try:
                notebooks[name] = nbformat.reads(autograded[f"{name}.ipynb"].decode("utf-8"), as_version=4)
                nbformat.validate(notebooks[name])
            except KeyError:
                raise BadAnswer(f"autograded: no {name}.ipynb") from None
            except Exception as exc:  # noqa: BLE001 (any parse or schema error refuses the answer)
                raise BadAnswer(f"autograded/{name}.ipynb does not parse: {type(exc).__name__}: "
                                f"{str(exc)[:120]}") from None
        for name, (points, answers) in cells.items():
            row = grades[name]
            if not isinstance(row, dict) or not isinstance(row.get("scores"), dict) \
                    or not isinstance(row.get("comments"), dict):
                raise BadAnswer(f"grades/{name}: not a row")
            if set(row["scores"]) != set(points) or set(row["comments"]) != answers:
                raise BadAnswer(f"grades/{name}: not the notebook's cells")
            for cell, score in row["scores"].items():
                if not (score is None or type(score) in (int, float) and 0 <= score <= points[cell]):
                    raise BadAnswer(f"grades/{name}/{cell}: score {score!r} outside 0..{points[cell]}")
            if any(c not in (None, NO_RESPONSE) for c in row["comments"].values()):
                raise BadAnswer(f"grades/{name}: a comment nbgrader does not write")
            if name in notebooks:
                read = {c.metadata.nbgrader["grade_id"]: determine_grade(c)[0] for c in notebooks[name].cells
                        if is_grade(c)}
                if read != row["scores"]:
                    raise BadAnswer(f"grades/{name}: the scores differ from those of the autograded notebook")
    elif autograded:
        raise BadAnswer("autograded: files from a failed run (nbgrader removes them)")
    for name, data in reports.items():
        stem = name[:-len(".json")] if name.endswith(".json") and "/" not in name else None
        if stem in cells:  # the sandbox's report of a notebook: about this submission
            try:
                report = json.loads(data)
            except ValueError:
                raise BadAnswer(f"reports/{name}: not JSON") from None
            if not isinstance(report, dict) or [report.get(k) for k in ("student", "assignment", "notebook")] \
                    != [student, assignment, stem]:
                raise BadAnswer(f"reports/{name}: not the report of {student}/{assignment}/{stem}")
    return {**answer, "notebooks": notebooks, "submitted": submitted}


def write(course, assignment: str, student: str, answer: dict, late: list) -> None:
    """Write a checked answer (``check``'s) into the course: files first, then the gradebook (`late`:
    the driver's late-penalty steps, see ``_record``)."""
    _replace_folder(course.autograded / student / assignment, answer["autograded"])
    folder = course.reports / assignment / student
    for name, data in answer["reports"].items():
        _write_file(folder / name, data)
    _record(course, assignment, student, answer, late)


def _write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.part")
    partial.write_bytes(data)
    partial.chmod(0o644)
    partial.replace(path)


def _replace_folder(target: Path, files: dict) -> None:
    """`target` holds exactly `files` afterwards (as ``autograde --force`` leaves it; none: removed)."""
    if not files:
        shutil.rmtree(target, ignore_errors=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        for name, data in files.items():
            _write_file(work / "new" / name, data)
        if target.exists():
            target.rename(work / "old")
        (work / "new").rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _record(course, assignment: str, student: str, answer: dict, late: list) -> None:
    """The gradebook rows of ``nbgrader autograde`` (``Autograde.init_assignment``, ``SaveAutoGrades``),
    from the answer's scores and comments and the driver's own data; then the driver's own late-penalty
    steps (`late`: ``kit.late_preprocessors``) on each notebook handed in, as nbgrader runs them."""
    from nbgrader.api import Gradebook

    from ..grading_config import COURSE_ID

    folder = course.submitted / student / assignment
    stamp = (folder / "timestamp.txt").read_text().strip() if (folder / "timestamp.txt").is_file() else ""
    with Gradebook(course.db_url, COURSE_ID) as gb:
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(assignment, student, **({"timestamp": stamp} if stamp else {}))
        if answer["returncode"] != 0:
            return  # nbgrader failed before it saved a grade: the submission stays recorded, ungraded
        for notebook in submission.notebooks:
            if notebook.name not in answer["submitted"]:  # nbgrader gives a notebook that was not submitted zero
                for grade in notebook.grades:
                    grade.auto_score, grade.needs_manual_grade = 0, False
                continue
            row = answer["grades"][notebook.name]
            for grade in notebook.grades:
                grade.auto_score = row["scores"][grade.name]
                grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None
            for comment in notebook.comments:
                comment.auto_comment = row["comments"][comment.name]
        gb.db.commit()
    for name in sorted(answer["submitted"]):
        resources = {"nbgrader": {"student": student, "assignment": assignment, "notebook": name,
                                  "db_url": course.db_url}}
        for step in late:
            step.preprocess(answer["notebooks"][name], resources)
