"""Late work through nbgrader's own late-penalty machinery, as deadlines.toml says (``autograder.deadlines``).

* ``build``: ``write_duedates`` sets each assignment's ``duedate`` in the gradebook (naive UTC, as
  nbgrader stores it; the formgrader shows it).
* ``autograde``: ``ApplyLatePolicy`` takes the place of nbgrader's ``AssignLatePenalties`` (it is one; in
  a course without deadlines.toml it is nbgrader's, unchanged). deadlines.toml is then the one source
  of due dates: an assignment it does not list has none.
  1. it writes the assignment's due date and the student's extension (``SubmittedAssignment.extension``)
     from deadlines.toml into the gradebook, and clears a stored submission time when the submitted
     folder has no ``timestamp.txt`` (``collect`` removes it when the time is unknown);
  2. nbgrader's own ``AssignLatePenalties`` then computes ``total_seconds_late`` (timestamp minus due
     date plus extension) and asks its plugin, ``LatePolicyPlugin``, for the penalty: the policy's
     arithmetic (``deadlines.judge``); nbgrader keeps it between 0 and the score;
  3. a submission whose time is unknown is not late to nbgrader, which never asks the plugin: the
     policy's ``unknown_time`` is applied here (``deadlines.unknown``), as the plugin would;
  4. it writes ``<report_directory>/<assignment>/<student>/<notebook>.late.json``: the times, the
     lateness, the rule applied and the points taken (the gradebook's ``late_submission_penalty``),
     which the grade table, the grades CSV and the feedback show.
* ``generate_feedback``: ``ShowLateWork`` puts the same at the top of the student's feedback.
"""
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from nbformat.v4 import new_markdown_cell
from nbgrader.api import Gradebook
from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import AssignLatePenalties, NbGraderPreprocessor
from traitlets import List, Type, Unicode

from . import deadlines
from .submission_times import TIMESTAMP_FILE

REPORT_SUFFIX = ".late.json"


def naive_utc(moment: datetime | None) -> datetime | None:
    """An aware time as nbgrader's gradebook stores times (naive, UTC)."""
    return None if moment is None else moment.astimezone(timezone.utc).replace(tzinfo=None)


def write_duedates(db_url: str, plan: deadlines.Deadlines, assignments) -> None:
    """Set the gradebook's due date of each of `assignments` from `plan` (None where it has none)."""
    with Gradebook(db_url) as gb:
        for record in gb.assignments:
            if record.name in assignments:
                rule = plan.rule(record.name)
                record.duedate = naive_utc(rule.due) if rule else None
        gb.db.commit()


def report_path(report_directory, assignment: str, student: str, notebook: str) -> Path:
    return Path(report_directory) / assignment / student / f"{notebook}{REPORT_SUFFIX}"


class LatePolicyPlugin(LateSubmissionPlugin):
    """nbgrader's late-penalty plugin for deadlines.toml's policy: the points taken for a submission
    ``total_seconds_late`` after its due date (an extension counted), ``deadlines.judge``. It runs inside
    ``ApplyLatePolicy``, which gives it the assignment's rule and the notebook's points; in a course
    without deadlines.toml it is nbgrader's own plugin (``penalty_method``)."""

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float):
        context = getattr(self.parent, "late_context", None)
        if context is None:
            return super().late_submission_penalty(student_id, score, total_seconds_late)
        rule, max_score = context
        lateness = deadlines.judge(rule, total_seconds_late)
        self.log.info("%s: %s; %s", student_id, lateness.lateness, lateness.rule)
        return lateness.points(score, max_score)


class ApplyLatePolicy(AssignLatePenalties):
    """nbgrader's AssignLatePenalties with deadlines.toml's due dates, extensions and policy (module docstring)."""

    plugin_class = Type(LatePolicyPlugin, klass=LateSubmissionPlugin,
                        help="the plugin that computes the penalty (deadlines.toml's policy)").tag(config=True)
    deadlines_file = Unicode("", help="the course's deadlines.toml ('' = <CourseDirectory.root>/deadlines.toml)"
                             ).tag(config=True)
    submitted_directory = Unicode("", help="the submissions: <student>/<assignment>/timestamp.txt").tag(config=True)
    report_directory = Unicode("", help="where <notebook>.late.json reports go, next to collect's").tag(config=True)

    late_context = None  # (rule, the notebook's points), for the plugin

    def _plan(self) -> deadlines.Deadlines:
        path = self.deadlines_file or Path(self.config.CourseDirectory.get("root", ".")) / deadlines.FILE_NAME
        return deadlines.load(path)  # an invalid file stops the grading with its reason

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        assignment, student, notebook = str(info["assignment"]), str(info["student"]), str(info["notebook"])
        plan = self._plan()
        if plan.path is None:  # no deadlines.toml: nbgrader's own due dates and plugin, untouched
            self.late_context = None
            if self.report_directory:
                report_path(self.report_directory, assignment, student, notebook).unlink(missing_ok=True)
            return super().preprocess(nb, resources)
        rule, extension = plan.rule(assignment), plan.extension(student, assignment)
        has_stamp = (Path(self.submitted_directory) / student / assignment / TIMESTAMP_FILE).is_file()
        with Gradebook(info["db_url"]) as gb:
            gb.find_assignment(assignment).duedate = naive_utc(rule.due) if rule else None
            submission = gb.find_submission(assignment, student)
            submission.extension = extension if rule and extension else None
            if not has_stamp:
                submission.timestamp = None  # a time stored by an earlier grading is not this submission's
            gb.db.commit()
            stored = submission.timestamp
            max_score = gb.find_notebook(notebook, assignment).max_score
        self.late_context = (rule, max_score) if rule else None
        nb, resources = super().preprocess(nb, resources)  # nbgrader: total_seconds_late, then the plugin
        collected = self._collected(assignment, student, notebook)
        submitted = stored.replace(tzinfo=timezone.utc) if stored else None
        lateness = deadlines.assess(rule, submitted, extension, bool(collected.get("late_marker")))
        with Gradebook(info["db_url"]) as gb:
            graded = gb.find_submission_notebook(notebook, assignment, student)
            if rule and submitted is None:  # nbgrader saw no lateness: the policy's unknown_time
                taken = min(max(lateness.points(graded.score, max_score), 0.0), graded.score)
                graded.late_submission_penalty = taken or None
                gb.db.commit()
            taken = graded.late_submission_penalty or 0.0
        self._report(assignment, student, notebook, lateness, taken, max_score, extension, collected, has_stamp)
        return nb, resources

    def _collected(self, assignment: str, student: str, notebook: str) -> dict:
        """collect's record of when the submission arrived ({} without one)."""
        path = Path(self.report_directory) / assignment / student / f"{notebook}.collect.json"
        try:
            return json.loads(path.read_text()).get("submitted_at") or {}
        except (OSError, ValueError, AttributeError):
            return {}

    def _report(self, assignment, student, notebook, lateness: deadlines.Lateness, taken: float, max_score: float,
                extension: timedelta, collected: dict, has_stamp: bool) -> None:
        if not self.report_directory:
            return
        zone = lateness.due.tzinfo if lateness.due else None
        source = collected.get("source") or (f"nbgrader's {TIMESTAMP_FILE}" if has_stamp else "")
        report = {"status": lateness.status, "lateness": lateness.lateness, "rule": lateness.rule,
                  "submitted_utc": lateness.submitted.isoformat() if lateness.submitted else None,
                  "submitted": deadlines.show_time(lateness.submitted, zone) if lateness.due else "",
                  "due": deadlines.show_time(lateness.due) if lateness.due else "",
                  "extension": deadlines.show_duration(extension.total_seconds()) if extension else "",
                  "seconds_late": lateness.seconds_late, "time_source": source,
                  "why_unknown": "" if lateness.submitted else collected.get("why", ""),
                  "penalty_points": taken, "max_score": max_score, "flagged": lateness.flagged,
                  "percent": lateness.percent, "takes_all": lateness.takes_all}
        path = report_path(self.report_directory, assignment, student, notebook)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=1))


def points_taken(report: dict, score: float, max_score: float, stored: float | None) -> float:
    """The points late work takes from a notebook whose score is `score` now (points given by hand after
    grading included): the policy of its late report (``percent`` of `max_score`, or the whole score), at
    most the score; `stored` (the gradebook's penalty) for a report written before it kept the policy."""
    if "percent" not in report:
        return stored or 0.0
    taken = float(score) if report["takes_all"] else float(max_score) * float(report["percent"]) / 100
    return min(max(taken, 0.0), max(float(score), 0.0))


def refresh_penalties(course, assignment: str, course_id: str) -> list[str]:
    """Set each submitted notebook's late penalty in the gradebook (and its late report) from its score
    now, as ``points_taken`` gives it: grading computed it before any written answer was graded by hand.
    One transaction. Returns "<student>/<notebook>: <old> -> <new>" for each one changed."""
    changed = []
    with Gradebook(course.db_url, course_id) as gb:
        for submission in gb.assignment_submissions(assignment):
            for graded in submission.notebooks:
                report = read_report(course.reports, assignment, submission.student_id, graded.name)
                if not report:
                    continue
                stored = graded.late_submission_penalty
                taken = points_taken(report, graded.score, graded.max_score, stored)
                if abs(taken - (stored or 0.0)) < 1e-9:
                    continue
                graded.late_submission_penalty = taken
                path = report_path(course.reports, assignment, submission.student_id, graded.name)
                path.write_text(json.dumps({**report, "penalty_points": taken}, indent=1))
                changed.append(f"{submission.student_id}/{graded.name}: {stored or 0:g} -> {taken:g}")
        gb.db.commit()
    return changed


def read_report(report_directory, assignment: str, student: str, notebook: str) -> dict:
    """A submission's late-work report ({} when it has none, or it was graded without a due date)."""
    try:
        report = json.loads(report_path(report_directory, assignment, student, notebook).read_text())
    except (OSError, ValueError):
        return {}
    return report if isinstance(report, dict) and report.get("status") != deadlines.NO_DEADLINE else {}


def feedback_text(report: dict) -> str:
    """The late-work report in words for the student (Markdown)."""
    lines = ["**When you submitted, and late work**", "",
             f"- Submitted: {report['submitted']}" + (f" (read from {report['time_source']})"
                                                     if report.get("time_source") else ""),
             f"- Due: {report['due']}" + (f" (your extension of {report['extension']} included)"
                                          if report.get("extension") else ""),
             f"- Lateness: {report['lateness']}",
             f"- Rule applied: {report['rule']}",
             f"- Points taken: {report['penalty_points']:g} of {report['max_score']:g}"]
    if report.get("why_unknown"):
        lines.insert(3, f"- Why the time is unknown: {report['why_unknown']}")
    return "\n".join(lines)


class ShowLateWork(NbGraderPreprocessor):
    """Feedback step: a cell at the top of the feedback with the submission time, the lateness, the rule
    applied and the points taken (``<notebook>.late.json``; nothing for an assignment without a due date)."""

    display_data_priority = List().tag(config=True)  # as feedback_guard.WithholdLeakingFeedback: no warning
    report_directory = Unicode("", help="where autograde wrote <notebook>.late.json").tag(config=True)

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        report = read_report(self.report_directory, str(info["assignment"]), str(info["student"]),
                             str(info["notebook"]))
        if report:
            nb.cells.insert(0, new_markdown_cell(feedback_text(report), metadata={"autograder": "late work"}))
        return nb, resources
