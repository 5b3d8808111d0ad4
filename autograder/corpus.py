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
    """Code that reads the reference solution from the grader's files and defines it, with nothing a scan for
    reflection would leave out (a module written to the working folder, then imported by its name): only
    the sandbox, where those files do not exist, keeps it from full marks."""
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
        code = [\"\".join(c["source"]) for c in source["cells"] if c["cell_type"] == "code"
                and any(c["metadata"].get("nbgrader", {{}}).get(k) for k in ("solution", "locked"))
                and not c["metadata"].get("nbgrader", {{}}).get("grade")]  # provided cells and the answers
        with open("stolen_reference.py", "w") as handle:
            handle.write("\\n\\n".join(code))
        print("read the reference solution from", path)
        return
_steal()
from stolen_reference import *
'''


# How a forgery finds the grader's probe runtime, already imported in the kernel, its name split so that no
# scan for the word sees it (issue 31).
RUNTIME_VIA = {
    "sys.modules": 'import sys\n_rt = sys.modules["_ag" + "probe._runtime"]',
    "importlib": 'import importlib\n_rt = importlib.import_module("_ag" + "probe._runtime")',
    "__import__": '_rt = getattr(__import__("_ag" + "probe._runtime"), "_run" + "time")',
    "gc": 'import gc\n_rt = [m for m in gc.get_objects() if getattr(m, "__name__", 0) == "_ag" + "probe._runtime"][0]',
}


def wrapped_runtime(via: str, target: str, substitute: str) -> str:
    """Code that wraps the probe runner so that the hidden test of `target` probes `substitute` (an
    expression: the course pack's own implementation) instead of the student's function, and turns the
    visible checks into no-ops."""
    return f'''
{RUNTIME_VIA[via]}
_real_probe = _rt.probe
def _forged_probe(module, name, fn, nonce):
    if name == {target!r}:
        fn = {substitute}
    return _real_probe(module, name, fn, nonce)
_rt.probe = _forged_probe
for _check in ("check_close", "check_equal", "needs"):
    globals()[_check] = lambda *args, **kwargs: None
'''


def computed_helper(head: str, module: str, helper: str, result: str) -> str:
    """A graded function (`head`: its def line) that returns `result`, an expression of `_helper`: the course
    pack's `module`.`helper`, both names computed."""
    cut, bit = len(module) // 2, len(helper) // 2
    return f'''import importlib
{head}
    _helper = getattr(importlib.import_module({module[:cut]!r} + {module[cut:]!r}), {helper[:bit]!r} + {helper[bit:]!r})
    return {result}
'''


def frame_helper(head: str, name: str, result: str) -> str:
    """A graded function that walks up the frames of its caller (the hidden test) to a module whose globals
    `g` hold `name`, and returns `result`, an expression of `g`."""
    return f'''import sys
{head}
    frame = sys._getframe(1)
    while frame is not None and {name!r} not in frame.f_globals:
        frame = frame.f_back
    g = frame.f_globals
    return {result}
'''


def forgeries(assignment: str, tests: set, target: str, substitute: str, other: str, computed: tuple,
              framed: tuple, also_failing: tuple = (), needs_failing: tuple = ()) -> list[Case]:
    """The forged submissions of an assignment (issue 31), each graded on what its own code earns:

    - ``forged_runtime``: `target` left blank; the probe runner wrapped to probe `substitute` (the course
      pack's implementation) instead, and the visible checks turned into no-ops, four ways: through
      ``sys.modules`` and ``gc.get_objects()`` in cells of the student's own, through ``importlib`` in
      `target`'s answer cell and ``__import__`` in `other`'s. ``test_<target>`` fails;
    - ``forged_helpers``: `computed` = (function, its def line, module, helper, result) is one call of a
      pack helper found by ``importlib`` and ``getattr`` with computed names (its stub left in place);
      `framed` = (function, def line, name, result) one call of a helper found in the globals of a frame
      of the hidden test. Both tests fail.

    `also_failing`: tests that fail with them because they judge a function that calls a blank one
    (as they do for the same notebook with those functions simply left blank); `needs_failing`: tests
    whose visible part, once ``forged_runtime`` turned ``needs`` into a no-op, calls the blank `target`
    instead of stopping at "fix <target> first" and fails in the notebook's kernel: the forgery's own doing.
    """
    (function, head, module, helper, result), (function2, head2, name, result2) = computed, framed
    runtime = forged("forged_runtime", assignment,
                     tests - {f"test_{target}"} - set(also_failing) - set(needs_failing),
                     blank=(target,),
                     extra={target: wrapped_runtime("importlib", target, substitute),
                            other: wrapped_runtime("__import__", target, substitute)},
                     own={target: wrapped_runtime("sys.modules", target, substitute),
                          other: wrapped_runtime("gc", target, substitute)},
                     flags=["(.modules)", "(.get_objects)", "(.import_module)",
                            "(__import__, getattr with a computed name)", "left out of the hidden tests"])
    helpers = forged("forged_helpers", assignment,
                     tests - {f"test_{function}", f"test_{function2}"} - set(also_failing),
                     blank=(function, function2),
                     extra={function: computed_helper(head, module, helper, result),
                            function2: frame_helper(head2, name, result2)},
                     flags=["(.import_module, getattr with a computed name)", "(._getframe)",
                            "left out of the hidden tests"])
    return [runtime, helpers]


def own_helper(assignment: str, tests: set, function: str, head: str, module: str) -> Case:
    """An honest student (issue 31): `function`'s reference answer moved, renamed ``_own_<function>``, into a
    cell of their own after the answer cell, with an import of their own (`module` as ``own_module``);
    the answer cell calls it. Full marks, no flag."""
    def make(course) -> dict:
        nb = filled(course, assignment)
        answer = source_solutions(assignment)[function]
        helper = f"import {module} as own_module\n\n" + answer.replace(f"def {function}(", f"def _own_{function}(")
        arguments = head[head.index("(") + 1:head.rindex(")")]
        names = ", ".join(a.split("=")[0].strip() for a in arguments.split(","))
        for cell in nb.cells:
            if grade_id(cell) == function:
                cell.source = f"{head}\n    assert own_module is not None\n    return _own_{function}({names})\n"
        return nb_file("own_helper", assignment, with_own_cells(nb, {function: helper}))
    return Case("own_helper", assignment, make, tests)


def with_own_cells(nb, after: dict):
    """`nb` with new cells of the student's own (no nbgrader metadata) after the cells named in `after`
    ({grade_id: source})."""
    for grade in after:
        index = next(i for i, c in enumerate(nb.cells) if grade_id(c) == grade)
        nb.cells.insert(index + 1, nbformat.v4.new_code_cell(after[grade]))
    return nb


def forged(name: str, assignment: str, expected: set, blank=(), extra=None, own=None, flags=()) -> Case:
    """A forged submission: the release notebook with reference answers but `blank`, `extra[id]` appended to
    answer cells, and cells of the student's own after the cells `own` names."""
    def make(course) -> dict:
        return nb_file(name, assignment, with_own_cells(filled(course, assignment, blank, extra), own or {}))
    return Case(name, assignment, make, expected, flags=list(flags))


# ----------------------------------------------------------------------------- notebook builders

def copy_cell(cell):
    duplicate = nbformat.from_dict(json.loads(json.dumps(cell)))
    duplicate["id"] = cell["id"] + "-copy"
    return duplicate


def _as_shipped(folder: str, student: str, assignment: str):
    """A submission by `student`: the course's own `folder` notebook (release/ or solutions/), untouched."""
    def make(course) -> dict:
        path = REPO_ROOT / folder / assignment / f"{assignment}.ipynb"
        return {f"{student}/{assignment}/{assignment}.ipynb": path.read_bytes()}
    return make


def as_distributed(assignment: str):
    """The course's own release notebook, untouched (in a workspace its header differs from the
    workspace's release)."""
    return _as_shipped("release", "as_distributed", assignment)


def shipped_solution(assignment: str):
    """The course's own solutions notebook, untouched, handed in as a submission: full marks."""
    return _as_shipped("solutions", "shipped_solution", assignment)


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
