"""Grades back into the LMS: ``python -m autograder export --format canvas|moodle``.

One row per student, one column per assignment (the sum of its notebooks' scores as nbgrader's
gradebook has them, manual grades included), in the gradebook import CSV each LMS documents:

* **Canvas** (the Gradebook's own export layout, Grades > Export, as Canvas's guide "How do I import
  grades in the Gradebook?" and Ohio State's "Import a CSV file to Carmen Grades" describe it): columns ``Student``, ``ID``, ``SIS User ID``,
  ``SIS Login ID``, ``Section``, then one column per assignment. Canvas matches a student by ``ID``
  (the Canvas user id, which collect read from Canvas's submission file names), and an assignment
  column by its header ``Name (assignment id)``, exactly as the Gradebook export writes it; a header
  without an id creates a new assignment. With ``--roster`` (that Gradebook export), the SIS and
  Section columns and each assignment's exact header are taken from it. A second row
  ``Points Possible`` gives each column's maximum, as the export has it.
* **Moodle** ("Grade import", MoodleDocs: Import grades from CSV file): columns ``First name``,
  ``Last name``, ``ID number``, ``Username``, ``Email address``, then one column per assignment.
  On import the instructor maps one identity column ("Map from") to a user field ("Map to":
  ``useremail``, ``username``, ``useridnumber``) and each assignment column to a grade item.
  Moodle's submission download names a student by full name and a participant number that is no
  user field, so the identity columns come from ``--roster`` (Moodle's grade export or its
  participants download).

Missing identities are never guessed: a student the pack cannot match to one LMS user (no Canvas
user id and no roster row; no roster row for Moodle; two roster rows for one name) is refused by
name, and **nothing is written**: `LmsExportError` lists every refused student, so an instructor
never uploads a file that silently lacks some of the class.

Scores: a cell is blank when the assignment has no grade to send yet: no submission, grading
unfinished or failed, or a cell awaiting manual grading. The pack never writes 0 for work it did
not grade: 0 for missing work is the instructor's decision in the LMS.
"""
from __future__ import annotations

import csv
import json
import re
import unicodedata
from pathlib import Path

from . import pipeline

FORMATS = ("canvas", "moodle")
CANVAS_IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDENTITY = ["First name", "Last name", "ID number", "Username", "Email address"]
_CANVAS_LABEL = re.compile(r"^Canvas user (?P<id>\d+) \((?P<name>.*)\)$")
_MOODLE_LABEL = re.compile(r"^Moodle participant (?P<id>\d+) \((?P<name>.*)\)$")
_WITH_ID = re.compile(r"^(?P<name>.*?)\s*\((?P<id>\d+)\)$")


class LmsExportError(ValueError):
    """Nothing written: the message names every refused student and what is missing."""


def _fold(text: str) -> str:
    plain = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return " ".join(plain.lower().split())


def identities(course: pipeline.Course) -> dict:
    """student id -> {"layout", "lms_id", "name"} from the collect reports (the first one that has them)."""
    found = {}
    for report in sorted(Path(course.reports).glob("*/*/*.collect.json")):
        student = report.parent.name
        if found.get(student, {}).get("lms_id"):
            continue  # a report that names the LMS user wins over one that only gives a layout
        try:
            data = json.loads(report.read_text())
        except (OSError, ValueError):
            continue
        label = str(data.get("identity") or "")
        match = _CANVAS_LABEL.match(label) or _MOODLE_LABEL.match(label)
        if data.get("layout") or match:
            found[student] = {"layout": data.get("layout", ""), "lms_id": match["id"] if match else "",
                              "name": match["name"] if match else ""}
    return found


def read_roster(path) -> tuple[list[str], list[dict]]:
    """The roster's header and rows (UTF-8, a BOM allowed); Canvas's ``Points Possible`` and
    muted-assignment rows dropped."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        header = list(reader.fieldnames or [])
        rows = [r for r in reader if not (r.get("Student") or "").strip().startswith("Points Possible")]
    return header, rows


def _scores(rows: list[dict]) -> tuple[dict, dict]:
    """(student, assignment) -> score or "" ; assignment -> points possible."""
    scores, possible, blocked = {}, {}, set()
    for row in rows:
        key = (row["student"], row["assignment"])
        possible.setdefault(row["assignment"], {})[row["notebook"]] = float(row.get("max_score") or 0)
        ready = str(row.get("status", "")).startswith("graded") and not row.get("needs_manual_grade")
        if not ready:
            blocked.add(key)
            continue
        scores[key] = scores.get(key, 0.0) + float(row.get("score") or 0)
    for key in blocked:
        scores[key] = ""
    return scores, {a: sum(n.values()) for a, n in possible.items()}


def _points_possible(course: pipeline.Course, assignments) -> dict:
    """assignment -> its maximum in nbgrader's gradebook (every notebook, submitted or not)."""
    from nbgrader.api import Gradebook

    from .grading_config import COURSE_ID

    with Gradebook(course.db_url, COURSE_ID) as gb:
        return {a.name: float(a.max_score) for a in gb.assignments if a.name in assignments}


def _number(value) -> str:
    """A score as the LMS reads it: blank, or the number without float noise and never in exponent form."""
    if value == "":
        return ""
    text = f"{round(float(value), 6):f}".rstrip("0").rstrip(".")
    return text or "0"


def _canvas_columns(assignments, header: list[str]) -> dict:
    """assignment -> its column header: the roster's ``Name (id)`` where it has one, else the name."""
    columns = {}
    for assignment in assignments:
        named = [h for h in header if (m := _WITH_ID.match(h)) and m["name"] == assignment]
        columns[assignment] = named[0] if named else assignment
    return columns


def _match_canvas(student, ident, roster) -> tuple[dict | None, str]:
    lms_id = ident.get("lms_id") if ident.get("layout") == "canvas" else ""
    if roster is None:
        if lms_id:
            return {"Student": ident.get("name", ""), "ID": lms_id, "SIS User ID": "", "SIS Login ID": "",
                    "Section": ""}, ""
        return None, "no Canvas user id (it was not collected from a Canvas download); give --roster " \
                     "(the Canvas Gradebook export) whose SIS Login ID or SIS User ID is this student's id"
    if lms_id:
        hits = [r for r in roster if (r.get("ID") or "").strip() == lms_id]
        missing = f"no roster row with ID {lms_id}"
    else:
        hits = [r for r in roster if student in ((r.get("SIS Login ID") or "").strip(),
                                                  (r.get("SIS User ID") or "").strip())]
        missing = "no roster row whose SIS Login ID or SIS User ID is this id (and no Canvas user id)"
    if len(hits) != 1:
        return None, missing if not hits else f"{len(hits)} roster rows match; which one is ambiguous"
    return {k: (hits[0].get(k) or "").strip() for k in CANVAS_IDENTITY}, ""


def _match_moodle(student, ident, roster) -> tuple[dict | None, str]:
    if roster is None:
        return None, "Moodle's import needs an email address, username or ID number, which the " \
                     "submission download does not carry; give --roster (Moodle's grade export or participants)"
    full = lambda r: _fold(f"{r.get('First name', '')} {r.get('Last name', '')}")  # noqa: E731
    if ident.get("layout") == "moodle" and ident.get("name"):
        hits = [r for r in roster if full(r) == _fold(ident["name"])]
        missing = f"no roster row named {ident['name']!r}"
    else:
        hits = [r for r in roster if student in ((r.get("Username") or "").strip(), (r.get("ID number") or "").strip(),
                                                  (r.get("Email address") or "").strip())]
        missing = "no roster row whose Username, ID number or Email address is this id"
    if len(hits) != 1:
        return None, missing if not hits else f"{len(hits)} roster rows match; which one is ambiguous"
    return {k: (hits[0].get(k) or "").strip() for k in MOODLE_IDENTITY}, ""


def write_lms(course: pipeline.Course, fmt: str, output, roster=None, assignments=None) -> Path:
    """Write the `fmt` ("canvas" or "moodle") gradebook import CSV to `output`; LmsExportError
    (nothing written) when any student cannot be matched to one LMS user."""
    if fmt not in FORMATS:
        raise LmsExportError(f"unknown format {fmt!r}: choose {', '.join(FORMATS)}")
    if roster and not Path(roster).is_file():
        raise LmsExportError(f"nothing written: the roster {roster} does not exist")
    rows = pipeline.grade_rows(course, assignments)
    scores, possible = _scores(rows)
    possible.update(_points_possible(course, possible))
    students = sorted({r["student"] for r in rows})
    chosen = sorted(possible)
    header, roster_rows = read_roster(roster) if roster else ([], None)
    idents = identities(course)
    match = _match_canvas if fmt == "canvas" else _match_moodle
    lines, refused = [], []
    for student in students:
        ident, why = match(student, idents.get(student, {}), roster_rows)
        if ident is None:
            refused.append(f"{pipeline.neutralise(student)}: {why}")
            continue
        lines.append((student, ident))
    if refused:
        raise LmsExportError(f"nothing written: {len(refused)} of {len(students)} student(s) match no "
                             f"{fmt.capitalize()} user:\n  " + "\n  ".join(refused))
    ids = [tuple(i.values()) for _, i in lines]
    twice = sorted({s for (s, i) in lines if ids.count(tuple(i.values())) > 1})
    if twice:
        raise LmsExportError("nothing written: these students match the same LMS user: " + ", ".join(twice))
    identity = CANVAS_IDENTITY if fmt == "canvas" else MOODLE_IDENTITY
    columns = _canvas_columns(chosen, header) if fmt == "canvas" else {a: a for a in chosen}
    output = Path(output).resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")  # renamed at the end: never half a file to upload
    with open(partial, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(identity + [columns[a] for a in chosen])
        if fmt == "canvas":
            writer.writerow(["Points Possible"] + [""] * (len(identity) - 1) + [_number(possible[a]) for a in chosen])
        for student, ident in lines:
            writer.writerow([pipeline.neutralise(ident[k]) for k in identity]
                            + [_number(scores.get((student, a), "")) for a in chosen])
    partial.replace(output)
    return output
