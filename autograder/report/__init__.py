"""The class at a glance: ``python -m autograder report [ASSIGNMENT ...]``.

One self-contained HTML page per assignment (pictures embedded, opens from disk, prints well, names
behind a toggle) and the same data as JSON, from the nbgrader gradebook and the grader's own
per-submission reports: scores, per-test item analysis, what went wrong (the judges' reasons
grouped across students), integrity and health, and the course so far.

``gather`` reads the gradebook and reports, ``stats`` computes the numbers, ``reasons`` groups
failure reasons by slip, ``analysis`` assembles each assignment's data, ``figures`` draws the
pictures and ``render`` writes the files (template ``templates/class_report.html.j2``). The
"Similar answers" section comes from ``autograder.similarity``, which reads the submitted notebooks.
"""
import datetime
from pathlib import Path

from ..pipeline import Course, GraderError


def default_folder(course: Course) -> Path:
    """Where the reports go unless told: ``<reports>/class/`` (``autograder/reports/class/`` for the
    pack's own course: git-ignored with the other reports)."""
    return Path(course.reports) / "class"


def write_reports(course: Course, assignments=None, output=None) -> list[tuple[Path, Path]]:
    """Write the class report of each assignment (all with a submission, or those named) into `output`
    (default ``default_folder``); [(html, json)] in course order.

    GraderError when an assignment named is not in the gradebook, or when no assignment has a
    submission yet."""
    from .. import leaks, similarity
    from . import analysis, gather, render

    course.require_gradebook()
    known = course.assignments()
    unknown = sorted(set(assignments or ()) - set(known))
    if unknown:
        raise GraderError(f"no assignment named {', '.join(unknown)} (the course has: {', '.join(known)})")
    everything = gather.gather(course)
    chosen = [data for data in everything if not assignments or data.name in assignments]
    if not chosen:
        wanted = f" of {', '.join(assignments)}" if assignments else ""
        raise GraderError(f"nothing to report: no submission{wanted} in the gradebook (run `autograde` first)")
    course_data = analysis.course_section(everything)
    kinds = leaks.feedback_secrets(course.source)
    secrets = set().union(*(lines for lines, _ in kinds))
    generated = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    folder = Path(output) if output else default_folder(course)
    order = [row["assignment"] for row in course_data["assignments"]]
    chosen.sort(key=lambda data: order.index(data.name))
    redact = render.Redactor(secrets)
    written = []
    for data in chosen:
        try:
            similar = similarity.class_similarity(course, data.name, students=data.roster)
        except GraderError as exc:  # no release to tell the provided code: the rest of the report still holds
            similar = {"error": str(exc)}
        written.append(render.write(analysis.assignment_report(data, course_data, similar), folder, redact, kinds,
                                    generated))
    return written
