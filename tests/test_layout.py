"""The layout's rules (docs/architecture.md): the generic layer imports no game, the grader's machinery
imports no assignment by name, no import cycles, and a sandbox gets only its own assignment's probes."""
import ast
import json
import re
from pathlib import Path

import nbformat
import pytest

from autograder import probes
from autograder.grading_config import REPO_ROOT
from autograder.testcells import rewrite_test_cell

AZCOURSE = REPO_ROOT / "azcourse"
GAME_PACKAGES = sorted(p.name for p in AZCOURSE.iterdir() if (p / "game.py").is_file())
CONTENT = REPO_ROOT / "autograder" / "assignments"
ASSIGNMENTS = sorted(p.name for p in CONTENT.iterdir() if p.is_dir() and (p / "checks.py").is_file())


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, top_level_only: bool = False) -> set[str]:
    """Absolute names of the modules ``path`` imports (relative imports resolved; with
    ``top_level_only``, only the imports that run when the module is loaded). ``from package import
    module`` counts as an import of the module only."""
    tree = ast.parse(path.read_text())
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            submodules = {f"{module}.{alias.name}" for alias in node.names}
            named = {m for m in submodules if (REPO_ROOT / (m.replace(".", "/") + ".py")).is_file()
                     or (REPO_ROOT / m.replace(".", "/") / "__init__.py").is_file()}
            found |= named if named == submodules else named | {module}
    return found


def test_the_game_packages_are_found():
    assert {"tictactoe", "hex", "azul"} <= set(GAME_PACKAGES)
    assert set(ASSIGNMENTS) == {p.name for p in (REPO_ROOT / "assignments").iterdir() if p.is_dir()}


@pytest.mark.parametrize("path", sorted((AZCOURSE / "core").glob("*.py")), ids=lambda p: p.name)
def test_the_generic_layer_imports_no_game(path):
    games = {f"azcourse.{name}" for name in GAME_PACKAGES} | {"Azul_Simulator", "Azul_Visuals"}
    bad = {name for name in imports(path) if any(name == g or name.startswith(g + ".") for g in games)}
    assert not bad, f"{path.name} imports a game: {sorted(bad)}"


# The one tree search (its selection and backup) and its compiled twin for Othello, Hex and Tak (tested to play the same
# games); the one AlphaZero trainer and part 4's seed algorithm (on-policy MCTS with an ANET, the Hex homework).
SEARCH_MODULES = {"azcourse/core/mcts.py", "azcourse/alphazero/compiled_search.py"}
TRAINER_MODULES = {"azcourse/alphazero/train.py", "azcourse/hex/train.py"}
SEARCH_STEP = re.compile(r"_?(select|backup|backprop|backpropagate|puct|ucb|uct)(_.*)?")


def test_one_tree_search_and_one_trainer():
    """No game package grows its own search or training loop again (Azul's went with issue 37): only the
    modules above define a search's selection or backup (a function or method named so) or a top-level
    ``train``."""
    searching, training = set(), set()
    for path in sorted(AZCOURSE.rglob("*.py")):
        tree, where = ast.parse(path.read_text()), str(path.relative_to(REPO_ROOT))
        if any(isinstance(node, ast.FunctionDef) and SEARCH_STEP.fullmatch(node.name) for node in ast.walk(tree)):
            searching.add(where)
        if any(isinstance(node, ast.FunctionDef) and node.name == "train" for node in tree.body):
            training.add(where)
    assert searching == SEARCH_MODULES
    assert training == TRAINER_MODULES


MACHINERY = sorted((REPO_ROOT / "autograder").glob("*.py"))


@pytest.mark.parametrize("path", MACHINERY, ids=lambda p: p.name)
def test_the_grading_machinery_names_no_assignment(path):
    """Machinery finds assignments by folder: no import of, and no string naming, an assignment's module."""
    names = [f"autograder.assignments.{a}" for a in ASSIGNMENTS] + [f"assignments.{a}" for a in ASSIGNMENTS]
    bad = {name for name in imports(path) if any(name.startswith(n) for n in names)}
    strings = {node.value for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    bad |= {s for s in strings if any(s == n or s.startswith(n + ".") for n in names)}  # e.g. for importlib
    assert not bad, f"{path.name} names an assignment's grading module: {sorted(bad)}"


def test_no_import_cycles():
    """Among the modules of azcourse/ and autograder/, the imports that run at load time form no cycle."""
    files = [*AZCOURSE.rglob("*.py"), *(REPO_ROOT / "autograder").rglob("*.py")]
    modules = {module_name(f): f for f in files}
    graph = {name: {m for m in imports(path) if m in modules and m != name}
             for name, path in modules.items()}
    # importing a module first imports its packages: an edge to a package's __init__ only counts
    # when that __init__ imports the module back, which the graph already holds.
    state: dict[str, int] = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def hidden_calls(assignment: str) -> list:
    nb = nbformat.read(REPO_ROOT / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
    calls = []
    for cell in nb.cells:
        if "### BEGIN HIDDEN TESTS" in cell.source:
            calls += rewrite_test_cell(cell.source)[1]
    return calls


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_a_sandbox_gets_only_its_own_assignments_probes_and_cases(assignment, tmp_path):
    calls = hidden_calls(assignment)
    assert calls and {c.module for c in calls} == {assignment}
    probes.build_probe_library(tmp_path, calls)
    files = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
    package = {"_agprobe/__init__.py", "_agprobe/_runtime.py", "_agprobe/_probe_util.py",
               "_agprobe/assignments/__init__.py", f"_agprobe/assignments/{assignment}/__init__.py",
               f"_agprobe/assignments/{assignment}/probes.py"}
    cases = {f"cases/{assignment}.{c.name}.json" for c in calls}
    assert files == package | cases
    # the library's modules are the runtime, _probe_util and this assignment's probes, unchanged; none
    # defines a case generator, a judge, a schema or the reference, and the probes load nothing of the
    # grader's side (checks, cases, examples, the reference)
    sources = {"_agprobe/_runtime.py": "_probe_runtime.py", "_agprobe/_probe_util.py": "_probe_util.py",
               f"_agprobe/assignments/{assignment}/probes.py": f"assignments/{assignment}/probes.py"}
    for copy, source in sources.items():
        assert (tmp_path / copy).read_bytes() == (REPO_ROOT / "autograder" / source).read_bytes()
    for path in tmp_path.rglob("*.py"):
        defined = {getattr(node, "name", None) or getattr(getattr(node, "targets", [None])[0], "id", None)
                   for node in ast.parse(path.read_text()).body}
        secret = {d for d in defined if d and (d.startswith(("cases_", "check_", "judge_")) or
                                                d in ("JUDGES", "SCHEMAS", "REFERENCE"))}
        assert not secret, (path, secret)
    probe_imports = imports(CONTENT / assignment / "probes.py")
    assert not {m for m in probe_imports if m.startswith("autograder.") and not m.startswith("autograder._probe_util")}
    for name in cases:
        json.loads((tmp_path / name).read_text())  # plain data


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_kernel_receives_no_code_the_student_lacks(assignment):
    """What a probe module brings into the kernel is the harness (``_probe_util``) and course modules
    the student's own bundle ships; never a reference, a judge or another assignment's code."""
    from autograder import bundle

    shipped, _ = bundle.dependencies(REPO_ROOT / "release" / assignment / f"{assignment}.ipynb")
    student_modules = {module_name(path) for path in shipped if path.suffix == ".py"}
    project = ("azcourse", "autograder", "Azul_Simulator", "Azul_Visuals")
    brought = {m for m in imports(CONTENT / assignment / "probes.py") if m.split(".")[0] in project}
    outside = brought - student_modules - {"autograder._probe_util"}
    assert not outside, f"the probes of {assignment} bring {sorted(outside)} into the kernel"
    # ... and define no implementation of a graded function of their own (e.g. a correct_winner to swap in)
    graded = set(probes._checks(assignment).JUDGES)
    defined = {node.name for node in ast.walk(ast.parse((CONTENT / assignment / "probes.py").read_text()))
               if isinstance(node, ast.FunctionDef)}
    own = {d for d in defined if not d.startswith("probe_") and any(g in d for g in graded)}
    assert not own, f"the probes of {assignment} implement graded functions: {sorted(own)}"


NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def test_the_docs_count_the_assignments_there_are():
    """A count of the pack's assignments in the README, the docs and the scripts ("in six assignments",
    "of six assignments", "the six assignments") agrees with autograder/assignments/, the one place
    that defines them; a phrase about some of them ("the first three assignments", "two assignments'
    downloads") is not a count of the pack's."""
    pattern = re.compile(r"\b(?:in|of|the|all|its|lists the) (" + "|".join(NUMBER_WORDS) + r") assignments\b(?!')",
                         re.IGNORECASE)
    texts = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md")), REPO_ROOT / "scripts" / "main.sh"]
    counts = {f"{path.name}: {match.group(0)}": NUMBER_WORDS.index(match.group(1).lower()) + 1
              for path in texts for match in pattern.finditer(path.read_text())}
    assert counts and all(n == len(ASSIGNMENTS) for n in counts.values()), (len(ASSIGNMENTS), counts)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_judges_module_lies_in_its_assignments_folder(assignment):
    """``code_scan.forbidden_helpers`` imports only ``assignments/<assignment>/checks.py``: every judges'
    module's reference is of the assignment named by its folder, and its forbidden helpers are found."""
    import importlib

    from autograder import code_scan

    module = importlib.import_module(f"autograder.assignments.{assignment}.checks")
    assert module.REFERENCE[0] == assignment
    assert code_scan.forbidden_helpers(*module.REFERENCE) == {
        function: set(helpers) for function, helpers in getattr(module, "FORBIDDEN_HELPERS", {}).items()}
    assert code_scan.forbidden_helpers(assignment + "*", module.REFERENCE[1]) == {}  # a name, not a pattern
