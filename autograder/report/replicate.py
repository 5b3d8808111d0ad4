"""A class of any size from a few graded submissions, for the class report's tests and benchmark.

Grading hundreds of notebooks costs an hour of CPU; the report only reads the gradebook and the
grader's reports. So each distinct submission is graded once, for real, and ``replicate`` copies
its record under a new student id: the gradebook rows through nbgrader's ``Gradebook`` API
(``update_or_create_student``, ``add_submission``, then every grade's ``auto_score``,
``manual_score`` and ``needs_manual_grade`` as the original's) and the report files of
``reports/<assignment>/<student>/`` (the student field rewritten). ``generated_names`` gives the
new students' ids and names.
"""
import json
import random
import shutil
import warnings
from pathlib import Path

from ..grading_config import COURSE_ID
from ..pipeline import Course

FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Ken", "Radia",
         "Tony", "Shafi", "Leslie", "Sophie", "Yann", "Fei-Fei", "Niklaus", "Karen", "Guido", "Hedy", "Claude"]
LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy", "Hamilton",
        "Thompson", "Perlman", "Hoare", "Goldwasser", "Lamport", "Wilson", "LeCun", "Li", "Wirth",
        "Spärck Jones", "van Rossum", "Lamarr", "Shannon"]


def generated_names(count: int, seed: int = 0) -> list[dict]:
    """`count` students ``{"id", "first_name", "last_name"}`` with distinct ids (``ada_lovelace_007``)."""
    rng = random.Random(seed)
    students = []
    for number in range(count):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        slug = f"{first}_{last}".lower().replace(" ", "_").replace("-", "_").replace("ä", "a")
        students.append({"id": f"{slug}_{number:03d}", "first_name": first, "last_name": last})
    return students


def replicate(course: Course, assignment: str, source: str, students: list[dict]) -> None:
    """Give each of `students` (``{"id", "first_name", "last_name"}``) a copy of `source`'s graded
    submission of `assignment`: its gradebook record and its report files."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    with Gradebook(course.db_url, COURSE_ID) as gb:
        original = gb.find_submission(assignment, source)
        scores = {(nb.name, grade.name): (grade.auto_score, grade.manual_score, grade.needs_manual_grade)
                  for nb in original.notebooks for grade in nb.grades}
        for student in students:
            gb.update_or_create_student(student["id"], first_name=student.get("first_name"),
                                        last_name=student.get("last_name"))
            with warnings.catch_warnings():  # nbgrader's add_submission autoflushes half-built objects: harmless
                warnings.simplefilter("ignore", SAWarning)
                copy = gb.add_submission(assignment, student["id"], timestamp=original.timestamp)
            for nb in copy.notebooks:
                for grade in nb.grades:
                    grade.auto_score, grade.manual_score, grade.needs_manual_grade = scores[(nb.name, grade.name)]
            gb.db.commit()
    folder = Path(course.reports) / assignment / source
    for student in students:
        target = Path(course.reports) / assignment / student["id"]
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for path in folder.glob("*.json"):
            report = json.loads(path.read_text())
            if "student" in report:
                report["student"] = student["id"]
            (target / path.name).write_text(json.dumps(report, indent=1))
