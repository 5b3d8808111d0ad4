"""Everything the class report reads, per assignment: the nbgrader gradebook (roster, submissions,
every test cell's points) and the grader's own per-submission reports under ``reports/``.

Reads, never writes. The gradebook is read through nbgrader's ``Gradebook`` (its
``submission_dicts`` for the totals, one joined query of its ``Grade`` rows for the cells), so a
class of hundreds is read in a few queries. The reports of one submission, in
``reports/<assignment>/<student>/``:

* ``<notebook>.json`` (``sandbox.SandboxExecute``): each graded cell's verdict and reason, the
  runtime and code-scan flags, the grading time in seconds;
* ``<notebook>.collect.json`` (``collect``): repairs (``problems``) and suspicious code (``flags``);
* ``<notebook>.feedback.json`` (``feedback``): why that student's feedback was not delivered;
* ``autograde-error.json`` (``pipeline.autograde``): why nbgrader could not grade it at all.
"""
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..grading_config import COURSE_ID
from ..pipeline import Course, _reason

@dataclass
class Submission:
    """One student's graded (or failed) submission of one assignment."""
    student: str
    timestamp: str | None = None       # ISO time nbgrader recorded for the submission
    score: float = 0.0                 # total recorded: autograded + manual grades given so far, less late work's
    max_score: float = 0.0
    code_score: float = 0.0            # the autograded test cells
    needs_manual_grade: bool = False
    late_penalty: float = 0.0          # points late work took (deadlines.toml; as the grade table and LMS export)
    points: dict = field(default_factory=dict)     # {test cell: points scored}
    failures: dict = field(default_factory=dict)   # {test cell: the judge's whole reason}, tests short of full marks
    flags: list = field(default_factory=list)      # collect's and the sandbox's, in that order
    problems: list = field(default_factory=list)   # repairs by collect
    withheld: list = field(default_factory=list)   # why feedback was not delivered (withheld by the guard, or failed)
    seconds: float | None = None       # sandbox grading time, all notebooks together
    autograde_failed: str = ""         # nbgrader could not grade it: the cause


@dataclass
class AssignmentData:
    """An assignment's tests and every roster student's submission (or its absence)."""
    name: str
    duedate: str | None
    notebooks: list
    max_score: float
    tests: list                        # [{"test", "notebook", "max_points"}], notebook order
    roster: list                       # every student id of the gradebook
    names: dict                        # {student id: "First Last"} where the gradebook has a name
    submissions: list                  # [Submission], by student id

    @property
    def graded(self) -> list:
        return [s for s in self.submissions if not s.autograde_failed]


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _failure_reason(verdict: dict) -> str:
    """The reason as the judge wrote it, lines kept; for a function not written yet, the hidden test's
    "<name> is not written yet" that the CSV shows too (``pipeline._reason``)."""
    raw = str(verdict.get("reason") or "")
    one_line = _reason(verdict)
    return raw if one_line == " / ".join(line.strip() for line in raw.splitlines() if line.strip()) else one_line


def read_reports(course: Course, submission: Submission, assignment: str, notebooks: list) -> None:
    """Fill `submission`'s failures' reasons, flags, problems, withheld feedback and grading time from
    the grader's reports (missing reports leave the fields empty)."""
    folder = Path(course.reports) / assignment / submission.student
    submission.autograde_failed = str(_load(folder / "autograde-error.json").get("error", ""))
    seconds = []
    for notebook in notebooks:
        runtime, collected = _load(folder / f"{notebook}.json"), _load(folder / f"{notebook}.collect.json")
        for name in submission.failures:
            verdict = runtime.get("cells", {}).get(name)
            if verdict is not None:
                submission.failures[name] = _failure_reason(verdict)
        submission.flags += [str(f) for f in collected.get("flags", []) + runtime.get("flags", [])]
        submission.problems += [str(p) for p in collected.get("problems", [])]
        submission.withheld += [str(p) for p in _load(folder / f"{notebook}.feedback.json").get("problems", [])]
        if isinstance(runtime.get("seconds"), (int, float)):
            seconds.append(float(runtime["seconds"]))
    submission.seconds = round(sum(seconds), 1) if seconds else None


def _late_penalties(course: Course, gb, assignment: str) -> dict[str, float]:
    """{student: points late work takes from their submission of `assignment`}, as the grade table and the
    LMS export take them (``late_work.points_taken``: from the score now); only the students with any."""
    from .. import late_work

    taken = {}
    for submission in gb.assignment_submissions(assignment):
        for graded in submission.notebooks:
            report = late_work.read_report(course.reports, assignment, submission.student_id, graded.name)
            points = late_work.points_taken(report, graded.score, graded.max_score, graded.late_submission_penalty)
            if points:
                taken[submission.student_id] = taken.get(submission.student_id, 0.0) + points
    return taken


def gather(course: Course, assignments=None) -> list[AssignmentData]:
    """The data of each assignment (all of the gradebook's, or those named, in the gradebook's order:
    due date, then name) that has at least one submission."""
    from nbgrader.api import (Assignment, Grade, GradeCell, Gradebook, Notebook, Student,
                              SubmittedAssignment, SubmittedNotebook)

    course.require_gradebook()
    result = []
    with Gradebook(course.db_url, COURSE_ID) as gb:
        students = gb.students
        roster = sorted(s.id for s in students)
        enrolled = set(roster)
        names = {s.id: " ".join(filter(None, [s.first_name, s.last_name])) for s in students
                 if s.first_name or s.last_name}
        for assignment in gb.assignments:
            if assignments and assignment.name not in assignments:
                continue
            notebooks = [nb.name for nb in assignment.notebooks]
            solution = {(c.notebook.name, c.name) for nb in assignment.notebooks for c in nb.solution_cells}
            tests = [{"test": c.name, "notebook": nb.name, "max_points": float(c.max_score)}
                     for nb in assignment.notebooks for c in nb.grade_cells if (nb.name, c.name) not in solution]
            submissions, late = {}, _late_penalties(course, gb, assignment.name)
            for row in gb.submission_dicts(assignment.name):
                taken = late.get(row["student"], 0.0)
                submissions[row["student"]] = Submission(
                    row["student"], row["timestamp"].isoformat() if row["timestamp"] else None,
                    round(float(row["score"] or 0) - taken, 6), float(row["max_score"] or 0),
                    float(row["code_score"] or 0), bool(row["needs_manual_grade"]), late_penalty=taken)
            for failed in sorted(Path(course.reports, assignment.name).glob("*/autograde-error.json")):
                if failed.parent.name in enrolled:  # nbgrader may fail before it records the submission
                    submissions.setdefault(failed.parent.name, Submission(failed.parent.name))
            if not submissions:
                continue
            grades = (gb.db.query(Student.id, Notebook.name, GradeCell.name, Grade.score)
                      .join(SubmittedAssignment, SubmittedAssignment.student_id == Student.id)
                      .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
                      .join(SubmittedNotebook, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
                      .join(Grade, Grade.notebook_id == SubmittedNotebook.id)
                      .join(GradeCell, GradeCell.id == Grade.cell_id)
                      .join(Notebook, GradeCell.notebook_id == Notebook.id)
                      .filter(Assignment.name == assignment.name).all())
            maxima = {(t["notebook"], t["test"]): t["max_points"] for t in tests}
            for student, notebook, cell, score in grades:
                if (notebook, cell) in maxima and student in submissions:
                    submissions[student].points[cell] = float(score or 0)
                    if float(score or 0) < maxima[(notebook, cell)] - 1e-9:
                        submissions[student].failures[cell] = ""
            for submission in submissions.values():
                read_reports(course, submission, assignment.name, notebooks)
            result.append(AssignmentData(
                assignment.name, assignment.duedate.isoformat() if assignment.duedate else None, notebooks,
                float(assignment.max_score or 0), tests, roster, names,
                [submissions[s] for s in sorted(submissions)]))
    return result
