"""When nbgrader cannot write some students' feedback, each report gives that student's own cause.

``nbgrader generate_feedback`` runs once per assignment, and its log mixes every student's errors:
read from that log, one student's row showed another's exception. Here two autograded notebooks
are broken in different ways (half a JSON file; a notebook without cells) beside a sound one, with
real nbgrader and a real gradebook.
"""
import json
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from courses import built_course

from autograder import pipeline
from autograder.grading_config import COURSE_ID, REPO_ROOT

pytestmark = pytest.mark.slow  # grades, runs notebooks or installs: the whole suite only (tests/conftest.py)

ASSIGNMENT = NOTEBOOK = "ttt1_mcts"


@pytest.fixture(scope="module")
def feedback_run(tmp_path_factory):
    course = built_course(tmp_path_factory, tmp_path_factory.mktemp("feedback") / "ws")
    students = ["broken_json", "no_cells", "sound"]
    pipeline.add_students(course, [{"id": s} for s in students])
    with Gradebook(course.db_url, COURSE_ID) as gradebook:
        for student in students:
            gradebook.add_submission(ASSIGNMENT, student)
    release = (course.release / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text()
    without_cells = json.loads(release)
    del without_cells["cells"]
    files = {"broken_json": release[: len(release) // 2], "no_cells": json.dumps(without_cells), "sound": release}
    for student, text in files.items():
        target = course.autograded / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        target.parent.mkdir(parents=True)
        target.write_text(text)
    done = subprocess.run([sys.executable, "-m", "autograder", "--workspace", str(course.root), "feedback"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr  # the grader failed for them: not a clean run
    assert done.stderr.strip() == ("error: feedback could not be generated for 2 of 3 submission(s) "
                                   "(broken_json/ttt1_mcts, no_cells/ttt1_mcts): their rows say why")
    reports = {s: json.loads((course.reports / ASSIGNMENT / s / f"{NOTEBOOK}.feedback.json").read_text())["problems"]
               for s in students}
    return course, reports


def test_each_student_gets_the_cause_of_their_own_notebook(feedback_run):
    _, reports = feedback_run
    assert reports["broken_json"] == [reports["broken_json"][0]] and "NotJSONError" in reports["broken_json"][0]
    assert "ValidationError" not in reports["broken_json"][0]
    assert len(reports["no_cells"]) == 1 and "ValidationError" in reports["no_cells"][0]
    assert "cells" in reports["no_cells"][0] and "NotJSONError" not in reports["no_cells"][0]
    assert all(r.startswith("feedback could not be generated: ") for s in ("broken_json", "no_cells")
               for r in reports[s])


def test_the_sound_notebook_gets_its_feedback(feedback_run):
    course, reports = feedback_run
    assert reports["sound"] == []
    assert (course.feedback / "sound" / ASSIGNMENT / f"{NOTEBOOK}.html").exists()
    assert not (course.feedback / "broken_json" / ASSIGNMENT / f"{NOTEBOOK}.html").exists()
