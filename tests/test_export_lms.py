"""``export --format canvas|moodle``: a real nbgrader gradebook, the files parsed back by the column
rules the LMSs document (Canvas Instructor Guide "How do I import grades in the Gradebook?";
MoodleDocs "Grade import"), and refusal of a student who matches no LMS user, by name."""
import csv
import json

import pytest

from courses import built_course

from autograder import export_lms, pipeline

ASSIGNMENT, NOTEBOOK = "ttt1_mcts", "ttt1_mcts"
CANVAS_STUDENT, MOODLE_STUDENT, PLAIN_STUDENT = "doe_jane_4242", "roe_ann_77", "alice"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from nbgrader.api import Gradebook

    from autograder.grading_config import COURSE_ID

    course = built_course(tmp_path_factory, tmp_path_factory.mktemp("lms") / "ws")
    students = {CANVAS_STUDENT: ("canvas", "Canvas user 4242 (Jane Doe)"),
                MOODLE_STUDENT: ("moodle", "Moodle participant 77 (Ann Roe)"),
                PLAIN_STUDENT: ("flat", "submission 'alice'")}
    pipeline.add_students(course, [{"id": s} for s in students])
    with Gradebook(course.db_url, COURSE_ID) as gb:
        for i, student in enumerate(students):
            gb.add_submission(ASSIGNMENT, student)
            for grade in gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student).grades:
                grade.auto_score = grade.max_score if i != 2 else 0.0  # alice scores 0 (graded, not missing)
                grade.needs_manual_grade = False
            gb.db.commit()
        total = gb.find_notebook(NOTEBOOK, ASSIGNMENT).max_score
    for student, (layout, label) in students.items():
        folder = course.reports / ASSIGNMENT / student
        folder.mkdir(parents=True)
        (folder / f"{NOTEBOOK}.collect.json").write_text(json.dumps(
            {"student": student, "identity": label, "layout": layout, "problems": [], "flags": []}))
    return course, total


def canvas_rows(path):
    """Parse a Canvas gradebook import: the header names the identity columns, then one column per
    assignment (``Name (id)``); a ``Points Possible`` row; then one row per student."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["Student"] == "Points Possible"
    return rows[0], {r["ID"]: r for r in rows[1:]}


def write_canvas_roster(path, with_plain=True):
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", f"{ASSIGNMENT} (1234)", "Other (99)"],
            ["    Points Possible", "", "", "", "", "29", "10"],
            ["Doe, Jane", "4242", "S4242", "jdoe", "Section A", "", ""]]
    if with_plain:
        rows.append(["Smith, Alice", "5151", "S5151", "alice", "Section B", "", ""])
    with open(path, "w", newline="", encoding="utf-8-sig") as handle:
        csv.writer(handle).writerows(rows)


def test_canvas_with_roster_uses_the_assignment_column_and_sis_ids(graded, tmp_path):
    course, total = graded
    roster = tmp_path / "canvas.csv"
    write_canvas_roster(roster)
    # Ann was collected from Moodle and is not on the Canvas roster: refused by name, nothing written
    with pytest.raises(export_lms.LmsExportError) as refused:
        export_lms.write_lms(course, "canvas", tmp_path / "out.csv", roster)
    assert MOODLE_STUDENT in str(refused.value) and CANVAS_STUDENT not in str(refused.value)
    assert not (tmp_path / "out.csv").exists()  # nothing written


def test_canvas_file_parses_by_the_documented_columns(graded, tmp_path, monkeypatch):
    course, total = graded
    roster = tmp_path / "canvas.csv"
    write_canvas_roster(roster)
    real = pipeline.grade_rows
    monkeypatch.setattr(pipeline, "grade_rows", lambda c, a=None, s=None: [
        r for r in real(c, a, s) if r["student"] != MOODLE_STUDENT])
    out = export_lms.write_lms(course, "canvas", tmp_path / "canvas-import.csv", roster)
    with open(out, newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", f"{ASSIGNMENT} (1234)"]
    possible, by_id = canvas_rows(out)
    assert float(possible[f"{ASSIGNMENT} (1234)"]) == total
    assert by_id["4242"]["SIS Login ID"] == "jdoe" and by_id["4242"]["Section"] == "Section A"
    assert float(by_id["4242"][f"{ASSIGNMENT} (1234)"]) == total
    assert by_id["5151"]["SIS Login ID"] == "alice" and float(by_id["5151"][f"{ASSIGNMENT} (1234)"]) == 0
    # without a roster: a student not collected from Canvas is refused by name, nothing written
    with pytest.raises(export_lms.LmsExportError, match=f"{PLAIN_STUDENT}: no Canvas user id"):
        export_lms.write_lms(course, "canvas", tmp_path / "bare.csv")
    assert not (tmp_path / "bare.csv").exists()


def test_moodle_file_parses_by_the_documented_columns(graded, tmp_path):
    course, total = graded
    roster = tmp_path / "moodle.csv"
    with open(roster, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([
            ["First name", "Last name", "ID number", "Institution", "Department", "Email address", "Username"],
            ["Jane", "Doe", "1001", "", "", "jane@uni.example", "jdoe"],
            ["Ann", "Roe", "1002", "", "", "ann@uni.example", "aroe"],
            ["Alice", "Smith", "1003", "", "", "alice@uni.example", "alice"]])
    # Jane was collected from Canvas: matched to the Moodle roster by her id, which is none of its fields
    with pytest.raises(export_lms.LmsExportError, match=f"{CANVAS_STUDENT}: no roster row") as refused:
        export_lms.write_lms(course, "moodle", tmp_path / "m.csv", roster)
    assert MOODLE_STUDENT not in str(refused.value) and not (tmp_path / "m.csv").exists()
    with pytest.raises(export_lms.LmsExportError, match=f"{MOODLE_STUDENT}: Moodle's import needs"):
        export_lms.write_lms(course, "moodle", tmp_path / "m.csv")
    (course.reports / ASSIGNMENT / CANVAS_STUDENT / f"{NOTEBOOK}.collect.json").write_text(json.dumps(
        {"identity": "Moodle participant 5 (Jane Doe)", "layout": "moodle"}))
    out = export_lms.write_lms(course, "moodle", tmp_path / "m.csv", roster)
    with open(out, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["First name", "Last name", "ID number", "Username", "Email address", ASSIGNMENT]
    by_mail = {r["Email address"]: r for r in rows}  # "Map from: Email address" -> "Map to: useremail"
    assert float(by_mail["jane@uni.example"][ASSIGNMENT]) == total
    assert float(by_mail["ann@uni.example"][ASSIGNMENT]) == total and by_mail["ann@uni.example"]["Username"] == "aroe"
    assert float(by_mail["alice@uni.example"][ASSIGNMENT]) == 0


def test_cli_export_format_refuses_with_a_nonzero_exit(graded, tmp_path, capsys):
    from autograder.__main__ import main

    course, _ = graded
    code = main(["--workspace", str(course.root), "export", "--format", "moodle", "--output", str(tmp_path / "x.csv")])
    assert code == 1 and "nothing written" in capsys.readouterr().err and not (tmp_path / "x.csv").exists()


def test_scores_are_written_as_plain_numbers():
    from autograder.export_lms import _number

    assert [_number(v) for v in ("", 0, 0.0, 12.5, 29.0, 1 / 3, 2_500_000.0, 1e-9)] == \
        ["", "0", "0", "12.5", "29", "0.333333", "2500000", "0"]
