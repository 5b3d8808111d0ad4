"""Judge the kept probe outputs again, without a kernel: ``python -m autograder rejudge ASSIGNMENT``.

After a judge, a tolerance, a reference solution or a point value changed, each graded submission's
kept outputs (``autograder.kept_probes``: what its judges received) go through the decision of grading
(``sandbox.cell_reason``) once more, with the current judges and the points of the current source
notebook. ``rejudge`` holds the assignment's grading lock throughout (``grading_lock``: it refuses at
once while an ``autograde`` of the assignment, or another rejudge, runs, and they refuse while it runs),
then:

1. completes or rolls back an interrupted rejudge of the assignment (``rejudge_journal.recover``);
2. reads, for every submission in the gradebook (or those named), its kept file, checked against its
   report and each line against the file's header: a file that is not what was written is refused
   (``Outcome.untrusted``); a submission graded before outputs were kept, or not graded as submitted
   now, is left alone with the command that grades it (``Outcome.not_kept``). A notebook of the
   assignment that the student did not hand in (neither in submitted/ nor autograded/: nbgrader gave its
   cells 0) keeps the grades the gradebook has (``Outcome.not_submitted``) and blocks nothing; one that
   was handed in and graded must have its report and kept file like any other. It also takes the SHA-256
   of every file it may replace (the report, the autograded notebook, the late report);
3. refuses (``Refused``, nothing written) when what ran in the kernels changed since: a test's probe or
   cases (``probes.probe_fingerprint``), a test cell or a provided cell of the source notebook, naming
   the command that runs exactly those kernels again;
4. judges: the new score is the cell's points if it passes, else 0 (what nbgrader's ``determine_grade``
   gives the judged cell), the new reason that of ``cell_reason``; the kept outputs are claims, so each
   judge validates them against its schema first (``probes.judge``);
5. writes where a score, its points or a reason changed (``rejudge_journal.apply``): the gradebook rows
   in one transaction (a changed point value also in the test cell's ``GradeCell`` and ``SourceCell``
   checksum, as ``generate_assignment`` records them), the autograded notebook's test-cell verdict and
   the report, by rename; then those students' feedback (``pipeline.feedback``). A student one of whose
   files is no longer what step 2 read (something else wrote it meanwhile) is refused
   (``Outcome.untrusted``, the file named), its files and grades left as they are; ``apply`` checks the
   files once more just before its transaction (all or nothing).
"""
import json
import time
from datetime import datetime
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import grading_lock, grading_state, kept_probes, pipeline, rejudge_journal
from .grading_config import COURSE_ID
from .probes import judge, probe_fingerprint
from .sandbox import cell_reason, is_verdict, verdict_outputs


class Refused(pipeline.GraderError):
    """What ran in the kernels changed since the outputs were kept: only a grading can say what it gives now."""


@dataclass
class Change:
    """One test of one submission whose score, points or reason the rejudge changed."""
    student: str
    notebook: str
    test: str
    old_score: float | None
    new_score: float
    old_max: float
    new_max: float
    old_reason: str
    new_reason: str


@dataclass
class Outcome:
    """What a rejudge did: `changes`, how many verdicts stayed as they were, the submissions left alone
    ({"<student>/<notebook>": why}: `not_kept`, `untrusted` whose kept file (or a file it would replace)
    was refused, and `not_submitted`, notebooks not handed in, whose grades stay as they are), what it
    completed of an interrupted one, the regenerated feedback ({(assignment, student): problem}), and the
    changed submissions whose late penalty the rejudge computed again from their new score (deadlines.toml's
    policy, as ``late_work.ApplyLatePolicy`` applies it when grading)."""
    assignment: str
    changes: list[Change] = field(default_factory=list)
    unchanged: int = 0
    not_kept: dict = field(default_factory=dict)
    untrusted: dict = field(default_factory=dict)
    not_submitted: dict = field(default_factory=dict)
    recovered: str = ""
    feedback: dict = field(default_factory=dict)
    late: list = field(default_factory=list)  # "<student>/<notebook>: <old> -> <new> points taken for late work"


def command(course, *words: str) -> str:
    """A pack command line for this course (``--workspace`` when it is not the pack's own)."""
    workspace = "" if course.is_main else f" --workspace {course.root}"
    return f"python -m autograder{workspace} " + " ".join(words)


def regrade_command(course, assignment: str, students) -> str:
    return command(course, "autograde", assignment, *(f"--student {s}" for s in sorted(students)), "--regrade")


@dataclass
class _Test:
    """A code test cell of the source notebook: its points and checksum now."""
    points: float
    checksum: str


def _source(course, assignment: str) -> tuple[dict, dict]:
    """({notebook: {grade_id: _Test}} of the test cells (graded code cells that are not answers),
    {notebook: kernel_cells}) of the current source notebooks."""
    from nbgrader.utils import compute_checksum

    tests, kernel = {}, {}
    for path in sorted((Path(course.source) / assignment).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        tests[path.stem] = {c.metadata.nbgrader["grade_id"]: _Test(float(c.metadata.nbgrader["points"]),
                                                                    compute_checksum(c))
                            for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
                            and not c.metadata.nbgrader.get("solution")}  # an answer that is graded: by hand
        kernel[path.stem] = kept_probes.kernel_cells(nb)
    return tests, kernel


@dataclass
class _Row:
    """A submission's grade of one test cell, as the gradebook holds it."""
    id: str
    auto_score: float | None
    manual_score: float | None
    needs_manual_grade: bool
    cell_id: str
    max_score: float
    late_penalty: float  # the submitted notebook's


@dataclass
class _Notebook:
    """A submitted notebook as the gradebook holds it: its id, the score of its cells that are not code
    tests (written answers, graded by hand), its late penalty as stored (None: none) and its points."""
    id: str
    other_score: float
    late_penalty: float | None
    max_score: float


def _gradebook(course, assignment: str, students) -> tuple[dict, dict, dict]:
    """({(student, notebook): {grade_id: _Row}} of the code grade cells, {(notebook, grade_id): (SourceCell
    id, checksum)}, {(student, notebook): _Notebook}), in three queries."""
    from nbgrader.api import (Assignment, Gradebook, GradeCell, Notebook, SourceCell, SubmittedAssignment,
                              SubmittedNotebook, Grade)

    grades, sources = {}, {}
    with Gradebook(course.db_url, COURSE_ID) as gb:
        query = (gb.db.query(Grade, SubmittedAssignment.student_id, Notebook.name, GradeCell)
                 .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
                 .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
                 .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
                 .join(GradeCell, Grade.cell_id == GradeCell.id)
                 .join(Notebook, GradeCell.notebook_id == Notebook.id)
                 .filter(Assignment.name == assignment, GradeCell.cell_type == "code"))
        for grade, student, notebook, cell, late in query.add_columns(SubmittedNotebook.late_submission_penalty):
            if not students or student in students:
                grades.setdefault((student, notebook), {})[cell.name] = _Row(
                    grade.id, grade.auto_score, grade.manual_score, grade.needs_manual_grade, cell.id, cell.max_score,
                    late or 0.0)
        query = (gb.db.query(SourceCell.id, SourceCell.name, SourceCell.checksum, Notebook.name)
                 .join(Notebook, SourceCell.notebook_id == Notebook.id)
                 .join(Assignment, Notebook.assignment_id == Assignment.id).filter(Assignment.name == assignment))
        for source_id, name, checksum, notebook in query:
            sources[(notebook, name)] = (source_id, checksum)
        notebooks = {}
        query = (gb.db.query(SubmittedNotebook, SubmittedAssignment.student_id, Notebook.name)
                 .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
                 .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
                 .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id).filter(Assignment.name == assignment))
        for submitted, student, notebook in query:
            if not students or student in students:
                other = sum(g.score for g in submitted.grades if g.cell.cell_type != "code")
                notebooks[(student, notebook)] = _Notebook(submitted.id, float(other), submitted.late_submission_penalty,
                                                           float(submitted.max_score))
    return grades, sources, notebooks


def _left_alone(course, assignment: str, student: str) -> str:
    """Why a submission is not rejudged now ("" when it may be)."""
    folder = Path(course.reports) / assignment / student
    if (folder / "autograde-error.json").exists():
        return "its grading failed"
    unfinished = grading_state.unfinished(course, assignment, student)
    if unfinished:
        return unfinished[1]
    if grading_state.read(course, assignment, student) and not grading_state.is_finished(course, assignment, student):
        return "collected again since it was graded"
    return ""


def _kernel_changes(header: dict, tests: list[str], kernel_now: dict, fingerprint) -> list[str]:
    """What ran in the kernels for these tests and changed since (e.g. ``test_x: probe get_reward``)."""
    then = header["kernel"]
    changed = [f"{grade_id}: cell" for grade_id in sorted(set(kernel_now) | set(then["cells"]))
               if kernel_now.get(grade_id) != then["cells"].get(grade_id)
               and (grade_id in tests or grade_id not in header["cells"])]  # a test in scope, or a provided cell
    for grade_id in tests:
        for check in header["cells"].get(grade_id, {}).get("checks", []):
            key = f"{check['module']}.{check['name']}"
            if then["probes"].get(key) != fingerprint(check["module"], check["name"]):
                changed.append(f"{grade_id}: probe {check['name']}")
    return changed


@dataclass(frozen=True)
class _Kept:
    """A check's kept outputs, read (and checked against the header) only when they are judged."""
    file: kept_probes.Kept
    entry: dict


class _Judge:
    """``probes.judge`` of kept outputs, once per distinct outputs of a check (the SHA-256 of their line,
    read and checked every time): a judge depends on the outputs alone, and a class's correct answers
    mostly give the same."""

    def __init__(self):
        self.verdicts = {}

    def __call__(self, check: dict) -> str | None:
        kept = check["outputs"]
        key = (check["module"], check["name"], kept.entry["sha256"])
        line = kept.file.line(kept.entry)  # checked even when its verdict is known
        if key not in self.verdicts:
            outputs = kept_probes.parse(line, f"{kept.file.path.name}: the outputs of {check['name']}")
            self.verdicts[key] = judge(check["module"], check["name"], outputs)
        return self.verdicts[key]


def _evidence(kept: kept_probes.Kept, cell: dict, grade_id: str = "") -> dict:
    """A kept cell's evidence as ``cell_reason`` takes it, its long texts read from their lines
    (``Kept.field``), each check's outputs to be read when judged (``_Kept``); NotKept when some were
    dropped for their size."""
    fields = {key: kept.field(value, f"{grade_id or 'a cell'}'s {key}") for key, value in cell.items()
              if key != "checks"}
    checks = []
    for check in cell["checks"]:
        entry = {"module": check["module"], "name": check["name"]}
        if "dropped" in check:
            raise kept_probes.NotKept(f"the outputs of {check['name']} were not kept ({check['dropped']})")
        if "missing" in check:
            entry["outputs"] = check["missing"]
        elif "offset" in check:
            entry["outputs"] = _Kept(kept, check)
        checks.append(entry)
    return {**fields, "checks": checks}


def rejudge(course, assignment: str, tests=None, students=None, log=print, feedback: bool = True) -> Outcome:
    """Judge `assignment`'s kept outputs again and write what changed (the module's docstring); only these
    test cells (grade ids) and students when given. `feedback`: regenerate the changed students' feedback
    (the command line always does). Raises Refused when a probe or a cell that ran changed, GraderError
    when the step cannot run."""
    course.require_gradebook()
    if assignment not in course.assignments():
        raise pipeline.GraderError(f"no assignment named {assignment} (the course has: "
                                   f"{', '.join(course.assignments())})")
    regenerate = (lambda names: pipeline.feedback(course, [assignment], log=lambda *_: None, students=names,
                                                  lock=False)) \
        if feedback else (lambda names: {})
    words = ["rejudge", assignment, *(f"--test {t}" for t in tests or ()), *(f"--student {s}" for s in students or ())]
    with grading_lock.held(course, [assignment], " ".join(words)):
        outcome = Outcome(assignment, recovered=rejudge_journal.recover(course, assignment, regenerate))
        if outcome.recovered:
            log(outcome.recovered)
        _rejudge(course, outcome, tests, students, regenerate)
    return outcome


def _rejudge(course, outcome: Outcome, tests, students, regenerate) -> None:
    assignment = outcome.assignment
    source, kernel_now = _source(course, assignment)
    known = {grade_id for cells in source.values() for grade_id in cells}
    if tests and set(tests) - known:
        raise pipeline.GraderError(f"no test cell {', '.join(sorted(set(tests) - known))} in {assignment} "
                                   f"(its test cells: {', '.join(sorted(known))})")
    grades, source_cells, notebooks = _gradebook(course, assignment, students)
    scope = {nb: [g for g in cells if not tests or g in tests] for nb, cells in source.items()}
    points_changed = sorted({(notebook, g) for (_, notebook), rows in grades.items() for g, row in rows.items()
                             if g in scope.get(notebook, []) and row.max_score != source[notebook][g].points})
    if points_changed and students:
        raise Refused("the points of " + ", ".join(g for _, g in points_changed) + " changed in the source "
                      "notebook: they change every student's score; rejudge without --student")
    kept, blocked, seen = _read_kept(course, outcome, grades, source)
    _refuse_if_kernels_changed(course, assignment, kept, scope, kernel_now)
    pending = _judged(course, outcome, kept, grades, source, scope, blocked, notebooks)
    for student, work in list(pending.items()):  # written by something else since they were read: not replaced
        moved = sorted(path.name for path in work.files if rejudge_journal.file_digest(path) != seen.get(path))
        if moved:
            for label in sorted({f"{student}/{c.notebook}" for c in work.changes}):
                outcome.untrusted[label] = (f"{', '.join(moved)} changed since this rejudge read it (graded again "
                                            "meanwhile?): its files and grades are left as they are")
                blocked.add(label)
            del pending[student]
    rows, files, changed = [], {}, set()
    for student, work in pending.items():
        rows += work.rows
        files.update(work.files)
        outcome.changes += work.changes
        outcome.late += work.late
        changed.add(student)
    if points_changed and blocked:
        raise Refused("the points of " + ", ".join(g for _, g in points_changed) + " changed in the source "
                      f"notebook, which changes every student's score, but {len(blocked)} submission(s) have no "
                      "kept outputs that can be judged (" + "; ".join(f"{k}: {v}" for k, v in sorted(
                          {**outcome.not_kept, **outcome.untrusted}.items()) if k in blocked)
                      + "): grade them again first: "
                      + regrade_command(course, assignment, {k.split("/")[0] for k in blocked}))
    for notebook, grade_id in points_changed:  # as generate_assignment records a test cell's points
        row = next(r[grade_id] for (_, nb), r in grades.items() if nb == notebook and grade_id in r)
        rows.append({"table": "grade_cell", "id": row.cell_id,
                     "set": {"max_score": [row.max_score, source[notebook][grade_id].points]}})
        source_id, checksum = source_cells[(notebook, grade_id)]
        if checksum != source[notebook][grade_id].checksum:
            rows.append({"table": "source_cell", "id": source_id,
                         "set": {"checksum": [checksum, source[notebook][grade_id].checksum]}})
    if rows or files:
        outcome.feedback = rejudge_journal.apply(course, assignment, rows, files, sorted(changed), regenerate,
                                                 expected={path: seen.get(path) for path in files})


def _targets(course, assignment: str, student: str, notebook: str) -> tuple[Path, Path, Path]:
    """The files of a submission that a rejudge may replace: its report, its autograded notebook, its
    late report."""
    from . import late_work

    return (Path(course.reports) / assignment / student / f"{notebook}.json",
            Path(course.autograded) / student / assignment / f"{notebook}.ipynb",
            late_work.report_path(course.reports, assignment, student, notebook))


def _read_kept(course, outcome: Outcome, grades: dict, source: dict) -> tuple[dict, set, dict]:
    """{(student, notebook): (its kept file, its report)} of the submissions that can be rejudged, the
    labels of those that cannot because their outputs were not kept or are refused (``outcome`` says why;
    a submission waiting for a grading is left alone, not counted, and so is a notebook not handed in),
    and {path: SHA-256 or None} of the files that may be replaced, as they were read."""
    kept, blocked, seen = {}, set(), {}
    assignment = outcome.assignment
    for student, notebook in sorted(grades):
        label = f"{student}/{notebook}"
        if notebook not in source:
            continue
        why = _left_alone(course, assignment, student)
        if why:  # its next grading judges it
            outcome.not_kept[label] = why
            continue
        report_path, autograded, late = _targets(course, assignment, student, notebook)
        if not (Path(course.submitted) / student / assignment / f"{notebook}.ipynb").exists() \
                and not autograded.exists():  # nbgrader's autograde gave it 0 ("No submitted file")
            outcome.not_submitted[label] = "not handed in: its grades stay as the gradebook has them"
            continue
        try:
            data = report_path.read_bytes()
        except FileNotFoundError:
            outcome.untrusted[label] = (f"{notebook} was handed in and graded, but its report {report_path.name} "
                                        "is missing")
            blocked.add(label)
            continue
        except OSError as exc:
            outcome.untrusted[label] = f"{report_path.name}: unreadable ({type(exc).__name__}: {exc})"
            blocked.add(label)
            continue
        seen.update({report_path: kept_probes.digest(data), autograded: rejudge_journal.file_digest(autograded),
                     late: rejudge_journal.file_digest(late)})
        try:
            report = json.loads(data)
            kept[(student, notebook)] = (kept_probes.read(report_path.parent, report, student, assignment, notebook),
                                         report)
        except kept_probes.NotKept as exc:
            outcome.not_kept[label] = str(exc)
            blocked.add(label)
        except (kept_probes.Unusable, OSError, ValueError, AttributeError) as exc:
            outcome.untrusted[label] = str(exc)
            blocked.add(label)
    return kept, blocked, seen


def _refuse_if_kernels_changed(course, assignment: str, kept: dict, scope: dict, kernel_now: dict) -> None:
    """Refused, naming what changed, the submissions and the commands, when what ran in the kernels for the
    tests in `scope` changed since their outputs were kept."""
    fingerprints, stale = {}, {}

    def fingerprint(module, name):
        if (module, name) not in fingerprints:
            fingerprints[(module, name)] = probe_fingerprint(module, name)
        return fingerprints[(module, name)]

    for (student, notebook), (kept_file, _) in kept.items():
        for change in _kernel_changes(kept_file.header, scope[notebook], kernel_now[notebook], fingerprint):
            stale.setdefault(f"{notebook}/{change}", set()).add(student)
    if not stale:
        return
    affected = sorted({s for students in stale.values() for s in students})
    named = {what.split("/", 1)[1].split(":")[0] for what in stale}
    in_scope = {g for tests in scope.values() for g in tests}
    others = sorted(in_scope - named) if named <= in_scope else []  # none when a provided cell changed
    rebuild = any(what.endswith(": cell") for what in stale)
    changes = "\n".join(f"  {what} ({len(who)} submission(s))" for what, who in sorted(stale.items()))
    rest = ("\n(or rejudge only the tests whose kernels did not change: "
            + command(course, "rejudge", assignment, *(f"--test {g}" for g in others)) + ")") if others else ""
    raise Refused("what runs in the kernels changed since these outputs were kept, so only a grading can "
                  f"judge them:\n{changes}\ngrade those submissions again: "
                  + (command(course, "build") + ", then " if rebuild else "")
                  + regrade_command(course, assignment, affected) + rest)


@dataclass
class _Pending:
    """A student's judged changes, not written yet: the gradebook rows, {path: new bytes} of the files,
    the changes and the late penalties computed again (as ``Outcome`` words them)."""
    rows: list = field(default_factory=list)
    files: dict = field(default_factory=dict)
    changes: list = field(default_factory=list)
    late: list = field(default_factory=list)


def _judged(course, outcome: Outcome, kept: dict, grades: dict, source: dict, scope: dict,
            blocked: set, notebooks: dict) -> dict[str, _Pending]:
    """Judge every kept submission's tests in `scope`; count the unchanged verdicts in `outcome`. Returns
    {student: _Pending} of the students whose grades changed; a submission whose kept outputs turn out
    unusable is added to `blocked` (``outcome`` says why)."""
    pending, judge_check = {}, _Judge()
    for (student, notebook), (kept_file, report) in kept.items():
        label = f"{student}/{notebook}"
        try:
            verdicts = {g: cell_reason(_evidence(kept_file, kept_file.header["cells"][g], g), judge_check)[0]
                        for g in scope[notebook] if g in kept_file.header["cells"]}
        except kept_probes.NotKept as exc:
            outcome.not_kept[label] = str(exc)
            blocked.add(label)
            continue
        except kept_probes.Unusable as exc:
            outcome.untrusted[label] = str(exc)
            blocked.add(label)
            continue
        changes, rows = [], []
        for grade_id, reason in verdicts.items():
            row, test = grades[(student, notebook)].get(grade_id), source[notebook][grade_id]
            if row is None:
                continue
            new_score = test.points if reason is None else 0.0
            old_reason = str(report.get("cells", {}).get(grade_id, {}).get("reason") or "")
            needs_manual = row.manual_score is not None  # as nbgrader's SaveAutoGrades sets it
            if (row.auto_score, row.max_score, row.needs_manual_grade, old_reason) == \
                    (new_score, test.points, needs_manual, reason or ""):
                outcome.unchanged += 1
                continue
            changes.append(Change(student, notebook, grade_id, row.auto_score, new_score, row.max_score, test.points,
                                  old_reason, reason or ""))
            if (row.auto_score, row.needs_manual_grade) != (new_score, needs_manual):
                rows.append({"table": "grade", "id": row.id,
                             "set": {"auto_score": [row.auto_score, new_score],
                                     "needs_manual_grade": [row.needs_manual_grade, needs_manual]}})
        if not changes:
            continue
        try:
            files = _rewritten(course, outcome.assignment, student, notebook, report, changes, kept_file.header,
                               source[notebook])
        except (ValueError, OSError) as exc:
            outcome.untrusted[label] = str(exc)
            blocked.add(label)
            continue
        new_scores = {c.test: c.new_score for c in changes}
        code_score = sum(row.manual_score if row.manual_score is not None else new_scores.get(g, row.auto_score) or 0.0
                         for g, row in grades[(student, notebook)].items())
        added_points = sum(c.new_max - c.old_max for c in changes)  # a point value changed: the notebook's too
        late = _late_penalty(course, outcome.assignment, student, notebook, notebooks.get((student, notebook)),
                             code_score, added_points)
        work = pending.setdefault(student, _Pending())
        if late:
            rows.append(late[0])
            files[late[1]] = late[2]
            work.late.append(f"{label}: {late[3]}")
        work.rows += rows
        work.files.update(files)
        work.changes += changes
    return pending


def _late_penalty(course, assignment: str, student: str, notebook: str, submitted: _Notebook | None,
                  code_score: float, added_points: float):
    """(gradebook row, late report path, its new bytes, the change in words) of a submission's late penalty
    computed again for its new code score (and its notebook's points grown by `added_points`), as
    ``late_work.ApplyLatePolicy`` computes it when grading (the policy's points, at most the score); None
    when it has no late report (no due date) or keeps its penalty."""
    from . import deadlines, late_work

    report = late_work.read_report(course.reports, assignment, student, notebook)
    if not report or submitted is None:
        return None
    plan = course.deadlines()
    rule = plan.rule(assignment)
    if rule is None:
        return None
    moment = report.get("submitted_utc")
    lateness = deadlines.assess(rule, deadlines.utc(datetime.fromisoformat(moment)) if moment else None,
                                plan.extension(student, assignment), report.get("status") == deadlines.LATE_UNKNOWN)
    score = code_score + submitted.other_score
    max_score = submitted.max_score + added_points
    taken = min(max(lateness.points(score, max_score), 0.0), score)
    old = submitted.late_penalty or 0.0
    if abs(taken - old) < 1e-9:
        return None
    stored = taken if submitted.late_penalty is not None or taken else None
    path = late_work.report_path(course.reports, assignment, student, notebook)
    new_report = {**report, "penalty_points": taken, "rule": lateness.rule, "max_score": max_score}
    row = {"table": "submitted_notebook", "id": submitted.id,
           "set": {"late_submission_penalty": [submitted.late_penalty, stored]}}
    return row, path, json.dumps(new_report, indent=1).encode(), f"{old:g} -> {taken:g} points taken for late work"


def _rewritten(course, assignment: str, student: str, notebook: str, report: dict, changes: list[Change],
               header: dict, tests: dict) -> dict[Path, bytes]:
    """{path: new bytes} of the submission's autograded notebook (each changed test cell's verdict output;
    its points and checksum as the source's) and report; ValueError when the notebook's verdict is not the
    grader's own."""
    report_path, path, _ = _targets(course, assignment, student, notebook)
    nb = nbformat.read(path, as_version=4)
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells if c.cell_type == "code"}
    report = json.loads(json.dumps(report))
    for change in changes:
        cell = cells.get(change.test)
        if cell is None or not cell.outputs or not is_verdict(cell.outputs[-1]):
            raise ValueError(f"{path.name}: the verdict of {change.test} is not the grader's (changed since grading)")
        reason = change.new_reason or None
        cell.outputs = verdict_outputs(cell.outputs[:-1], reason, len(header["cells"][change.test]["checks"]))
        if change.new_max != change.old_max:  # as generate_assignment records a cell's points, and autograde copies
            cell.metadata.nbgrader["points"] = change.new_max
            cell.metadata.nbgrader["checksum"] = tests[change.test].checksum
        verdict = report.setdefault("cells", {}).setdefault(change.test, {})
        verdict.update(passed=reason is None, points=change.new_max, reason=change.new_reason)
    report["rejudged"] = round(time.time(), 3)
    return {path: nbformat.writes(nb).encode(), report_path: json.dumps(report, indent=1).encode()}


def table(outcome: Outcome, width: int = 60) -> str:
    """Who changed from what to what: student, test, old -> new score, old -> new reason (their first
    lines, the whole in the report)."""
    def first(reason: str) -> str:
        line = str(pipeline.neutralise(reason.splitlines()[0] if reason else "passed"))
        return line if len(line) <= width else line[:width - 3] + "..."

    def score(value, points) -> str:
        return f"{'-' if value is None else format(value, 'g')}/{points:g}"

    rows = [(str(pipeline.neutralise(c.student)), c.test, f"{score(c.old_score, c.old_max)} -> "
             f"{score(c.new_score, c.new_max)}", f"{first(c.old_reason)} -> {first(c.new_reason)}"
             if c.old_reason != c.new_reason else f"(unchanged) {first(c.new_reason)}") for c in outcome.changes]
    header = ("student", "test", "score", "reason")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r[:3], widths)) + "  " + r[3]
                     for r in [header, *rows])
