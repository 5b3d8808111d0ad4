"""A class for the class report: the bundled example submissions and realistic mistakes, each graded once
for real, then replicated under generated names to any class size.

``grade_variants`` grades, in one workspace with the real pipeline (collect, sandboxed autograde),
five example submissions of part 1 (the demo's full, blank, wrong ``get_action_prob`` and
gradebook-writing ones, and the corpus' ``get_reward`` that misses the anti-diagonal) and the demo's two
of part 3 (full, a wrong wall), plus two realistic mistakes of part 1 from ``tests/student_mistakes.py`` typed into the reference notebook.
``build_class`` then copies each graded variant's gradebook record and report files under generated
names (``autograder.report.replicate``) until the class has `size` students, round-robin over the
variants; a few roster students submit nothing.

Grading 200 notebooks would cost an hour of CPU; the report reads only the gradebook and the reports,
so replicas are what it would read for a class of that size.
"""
import os

from autograder import corpus, pipeline
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


def variant_cases() -> list[corpus.Case]:
    examples = [case for case in corpus.all_cases() if case.name in EXAMPLES.get(case.assignment, ())]
    return examples + [_mistake_case(student, *slip) for student, slip in MISTAKE_VARIANTS.items()]


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
