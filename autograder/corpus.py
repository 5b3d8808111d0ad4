"""The grading corpus: example submissions with the exact grade each must get.

Submissions are generated from the current source and release notebooks (so they never drift from
the homework): ``filled`` is the release notebook with the reference solution typed into its answer
cells, and each case changes what a real (or hostile) student would. ``expected`` lists the graded
test cells that must pass; every other autograded cell must score 0. ``problems`` / ``flags`` are
substrings that must appear in the instructor's report.

This module is the machinery (``Case``, the notebook builders, attack code that takes its targets as
arguments); the examples themselves live with each assignment's grading content, in
``autograder/assignments/<assignment>/examples.py`` (``TESTS``, ``DEMO`` and ``cases()``), found by folder.

Used by ``tests/test_autograder_e2e.py`` (all cases), ``python -m autograder demo`` (each
assignment's ``DEMO``) and ``benchmarks/bench_autograde.py``.
"""
import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .grading_config import REPO_ROOT
from .reference import strip_solution_markers

CONTENT_DIR = Path(__file__).resolve().parent / "assignments"
MODEL_ANSWER = "My answer: the search visits the winning move most often, because its value is +1."


@dataclass
class Case:
    name: str                       # also the student id
    assignment: str
    make: object                    # callable(course) -> {relative path: bytes}
    expected: set                   # test cells that must pass
    problems: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    zip_name: str | None = None     # files go into this zip inside the incoming folder
    student: str | None = None

    @property
    def student_id(self) -> str:
        return self.student or self.name


def grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def source_solutions(assignment: str) -> dict:
    """grade_id -> the reference answer (markers stripped) of every solution cell."""
    nb = nbformat.read(REPO_ROOT / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
    return {grade_id(c): strip_solution_markers(c.source) for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution")}


def filled(course, assignment: str, blank=(), extra=None):
    """The release notebook with reference answers, except `blank` cells; `extra[id]` appended to a cell."""
    nb = nbformat.read(Path(course.release) / assignment / f"{assignment}.ipynb", as_version=4)
    answers = source_solutions(assignment)
    for cell in nb.cells:
        cell_id = grade_id(cell)
        if cell.metadata.get("nbgrader", {}).get("solution") and cell_id not in blank:
            cell.source = answers[cell_id] if cell.cell_type == "code" else MODEL_ANSWER
        if extra and cell_id in extra:
            cell.source += "\n\n" + extra[cell_id]
    return nb


def nb_file(student: str, assignment: str, nb, name=None) -> dict:
    return {f"{student}/{assignment}/{name or assignment}.ipynb": nbformat.writes(nb).encode()}


def simple(name, assignment, expected, blank=(), extra=None, **kwargs) -> Case:
    return Case(name, assignment, lambda course: nb_file(name, assignment, filled(course, assignment, blank, extra)),
                expected, **kwargs)


# ----------------------------------------------------------------------------- attack code

def gradebook_write(workspace: Path) -> str:
    targets = [workspace / "gradebook.db", REPO_ROOT / "gradebook.db"]
    files = [workspace / "PWNED", REPO_ROOT / "autograder" / "PWNED", REPO_ROOT / "release" / "PWNED"]
    return f'''
import os, sqlite3
for path in {[str(t) for t in targets]!r} + [os.path.abspath("../../../gradebook.db")]:
    try:
        connection = sqlite3.connect(f"file:{{path}}?mode=rw", uri=True)
        connection.execute("UPDATE grade SET auto_score = 1000")
        connection.commit()
        print("wrote", path)
    except Exception as exc:
        print("could not write", path, type(exc).__name__)
for path in {[str(f) for f in files]!r}:
    try:
        open(path, "w").write("student code was here")
    except Exception as exc:
        print("could not write", path, type(exc).__name__)
'''


def read_hidden(workspace: Path, assignment: str) -> str:
    paths = [workspace / "source" / assignment / f"{assignment}.ipynb",
             REPO_ROOT / "assignments" / assignment / f"{assignment}.ipynb",
             REPO_ROOT / "solutions" / assignment / f"{assignment}.ipynb"]
    return f'''
import json
def _steal():
    for path in {[str(p) for p in paths]!r}:
        try:
            source = json.load(open(path))
        except Exception as exc:
            print("could not read", path, type(exc).__name__)
            continue
        code = [\"\".join(c["source"]) for c in source["cells"]
                if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {{}}).get("solution")]
        exec("\\n\\n".join(code).replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", ""), globals())
        print("read the reference solution from", path)
        return
    try:
        from autograder.reference import ttt1
        globals().update({{k: v for k, v in ttt1().items() if not k.startswith("__")}})
    except Exception as exc:
        print("could not import the reference", type(exc).__name__)
_steal()
'''


# ----------------------------------------------------------------------------- notebook builders

def copy_cell(cell):
    duplicate = nbformat.from_dict(json.loads(json.dumps(cell)))
    duplicate["id"] = cell["id"] + "-copy"
    return duplicate


def as_distributed(assignment: str):
    """The course's own release notebook, untouched (in a workspace its header differs from the
    workspace's release)."""
    def make(course) -> dict:
        path = REPO_ROOT / "release" / assignment / f"{assignment}.ipynb"
        return {f"as_distributed/{assignment}/{assignment}.ipynb": path.read_bytes()}
    return make


# ----------------------------------------------------------------------------- the corpus


def example_modules() -> dict:
    """{assignment: its ``examples`` module} for every ``autograder/assignments/<assignment>/examples.py``."""
    return {folder.name: importlib.import_module(f"autograder.assignments.{folder.name}.examples")
            for folder in sorted(CONTENT_DIR.iterdir()) if (folder / "examples.py").is_file()}


def graded_tests() -> dict:
    """{assignment: set of its graded test cells}."""
    return {assignment: set(module.TESTS) for assignment, module in example_modules().items()}


def all_cases() -> list[Case]:
    return [case for module in example_modules().values() for case in module.cases()]


def demo_cases() -> list[Case]:
    """The cases each assignment's ``DEMO`` names (16 submissions: one full answer of every part, blank,
    partial and hostile ones)."""
    return [case for module in example_modules().values() for case in module.cases() if case.name in module.DEMO]


def write_submissions(folder, cases, course) -> None:
    """Write the cases' files into `folder` (the incoming submissions of a class)."""
    folder = Path(folder)
    for case in cases:
        for relative, data in case.make(course).items():
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def expected_score(case: Case, course) -> float:
    """Points of the test cells the case must pass."""
    nb = nbformat.read(Path(course.release) / case.assignment / f"{case.assignment}.ipynb", as_version=4)
    return float(sum(c.metadata["nbgrader"]["points"] for c in nb.cells if grade_id(c) in case.expected))
