"""A class for the class report: the bundled example submissions and realistic mistakes, each graded once
for real, then replicated under generated names to any class size.

The variants: five example submissions of part 1 (the demo's full, blank, wrong ``get_action_prob`` and
gradebook-writing ones, and the corpus' ``get_reward`` that misses the anti-diagonal) and the demo's two
of part 3 (full, a wrong wall), plus two realistic mistakes of part 1 from ``tests/student_mistakes.py``
typed into the reference notebook (``mistake_cases``). ``keep_variants`` reduces the suite's graded
corpus (``tests/courses.py``, which grades the mistakes with the rest) to them; ``grade_variants``
grades them alone in a workspace of their own with the real pipeline (collect, sandboxed autograde), for
``benchmarks/bench_report.py``. ``build_class`` then copies each graded variant's gradebook record and
report files under generated names (``autograder.report.replicate``) until the class has `size`
students, round-robin over the variants; a few roster students submit nothing.

Grading 200 notebooks would cost an hour of CPU; the report reads only the gradebook and the reports,
so replicas are what it would read for a class of that size.
"""
import os
import shutil

from nbgrader.api import Gradebook

from autograder import corpus, pipeline
from autograder.grading_config import COURSE_ID
from autograder.report import replicate
from student_mistakes import MISTAKES

ASSIGNMENTS = ("ttt1_mcts", "azul3_play")
MISTAKE_VARIANTS = {  # student id: (function, label in MISTAKES)
    "slip_anti_diagonal": ("get_reward", "misses the anti-diagonal"),
    "slip_full_board": ("get_reward", "a full board is never over"),
}
ABSENT = 3  # roster students without a submission


def _mistake_case(student: str, function: str, label: str) -> corpus.Case:
    cell = next(grade_id for grade_id, source in corpus.source_solutions("ttt1_mcts").items()
                if f"def {function}(" in source)
    return corpus.simple(student, "ttt1_mcts", set(), extra={cell: MISTAKES[function][label]})


EXAMPLES = {"ttt1_mcts": ("full", "blank", "partial_action_prob", "gradebook_write", "partial_reward"),
            "azul3_play": ("full", "partial_wall")}


def mistake_cases() -> list[corpus.Case]:
    return [_mistake_case(student, *slip) for student, slip in MISTAKE_VARIANTS.items()]


def variant_cases() -> list[corpus.Case]:
    examples = [case for case in corpus.all_cases() if case.name in EXAMPLES.get(case.assignment, ())]
    return examples + mistake_cases()


def keep_variants(course: pipeline.Course) -> set[tuple[str, str]]:
    """Reduce a graded course that holds every variant (the suite's graded corpus) to the variants: the
    other assignments, submissions and students leave the gradebook (nbgrader's API), and their files
    leave submitted/, autograded/, feedback/ and the reports. Returns the (assignment, student) kept."""
    wanted = {(case.assignment, case.student_id) for case in variant_cases()}
    students = {student for _, student in wanted}
    with Gradebook(course.db_url, COURSE_ID) as gradebook:
        for assignment in [a.name for a in gradebook.assignments]:
            if assignment not in ASSIGNMENTS:
                gradebook.remove_assignment(assignment)
                continue
            for submission in gradebook.assignment_submissions(assignment):
                if (assignment, submission.student_id) not in wanted:
                    gradebook.remove_submission(assignment, submission.student_id)
        for student in [s.id for s in gradebook.students]:
            if student not in students:
                gradebook.remove_student(student)
    for folder in (course.submitted, course.autograded, course.feedback):
        for path in list(folder.glob("*/*")):
            if (path.name, path.parent.name) not in wanted:
                shutil.rmtree(path)
    for folder in list(course.reports.iterdir()):  # reports/<assignment>/<student>/
        for path in list(folder.iterdir()) if folder.name in ASSIGNMENTS else [folder]:
            if (folder.name, path.name) not in wanted:
                shutil.rmtree(path)
    return wanted


def grade_variants(course: pipeline.Course, jobs: int | None = None) -> dict:
    """Release the two assignments in `course` (``nbgrader generate_assignment``: the gradebook entries;
    the other assignments are not needed), grade every variant once; {(assignment, student): autograde's
    result}."""
    for assignment in ASSIGNMENTS:
        pipeline.nbgrader(course, "generate_assignment", assignment, "--force", "--log-level=ERROR")
    incoming = course.root / "incoming"
    corpus.write_submissions(incoming, variant_cases(), course)
    pipeline.collect(course, incoming, log=lambda *_: None)
    return pipeline.autograde(course, jobs=jobs or os.cpu_count(), log=lambda *_: None)


def build_class(course: pipeline.Course, size: int, seed: int = 0) -> dict:
    """Replicate the graded variants until every assignment has `size` submissions (the originals
    included); ``ABSENT`` more generated students join the roster without submitting.
    {assignment: {variant student: [replica ids]}}."""
    students = replicate.generated_names(size + ABSENT, seed)
    pipeline.add_students(course, students[size:])
    made = {}
    for assignment in ASSIGNMENTS:
        variants = sorted(p.name for p in (course.reports / assignment).iterdir()
                          if (course.submitted / p.name / assignment).exists())
        copies = {v: [] for v in variants}
        for index, student in enumerate(students[:size - len(variants)]):
            copies[variants[index % len(variants)]].append(student)
        for variant, new in copies.items():
            replicate.replicate(course, assignment, variant, new)
        made[assignment] = {v: [s["id"] for s in new] for v, new in copies.items()}
    return made
