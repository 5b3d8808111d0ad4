"""Flags from reading a submission's code, in the grader's process (the kernel cannot touch them).

The cells a student wrote (answer cells and cells of their own; never the locked cells, which
nbgrader restores) are parsed, not run, and checked for:

- the probe package: any mention of ``_agprobe`` (a name, an attribute, an import, a string)
  outside the test cells, where only the grader's rewritten hidden tests use it;
- audit-hook tampering: ``sys.addaudithook`` / ``sys.audit``, the grader's audit descriptor
  (``AG_AUDIT_FD``), or the interpreter's hook API through ctypes;
- forbidden helpers: a graded function that reaches, directly or through functions, aliases and
  imports of the student's own, an engine helper that does its whole job (``FORBIDDEN_HELPERS``
  of the notebook's ``assignments/<assignment>/checks.py``, e.g. ``string_to_action`` for ``decode_move``).

Text in markdown cells is never code: a notebook as distributed gets no flag.
"""
import ast
import importlib
import re
from pathlib import Path

PROBE_PACKAGE = re.compile(r"agprobe")
AUDIT_NAMES = {"addaudithook", "PySys_AddAuditHook", "PySys_Audit"}
AUDIT_STRINGS = re.compile(r"AG_AUDIT_FD|addaudithook|PySys_AddAuditHook")


def forbidden_helpers(assignment: str, notebook: str) -> dict:
    """{graded function: {helper names}} that the notebook forbids (from its judges' module)."""
    found = {}
    for path in sorted((Path(__file__).parent / "assignments").glob("*/checks.py")):
        module = importlib.import_module(f"autograder.assignments.{path.parent.name}.checks")
        if getattr(module, "REFERENCE", None) == (assignment, notebook):
            for function, helpers in getattr(module, "FORBIDDEN_HELPERS", {}).items():
                found.setdefault(function, set()).update(helpers)
    return found


def student_cells(nb) -> list[tuple[int, str]]:
    """(index, source) of the code cells a student wrote: answer cells and unmarked cells."""
    cells = []
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and not meta.get("locked") and not meta.get("grade"):
            cells.append((index, cell.source))
    return cells


def _parse(source: str):
    """The cell's AST; IPython magics and shell lines are blanked first. None if it does not parse."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _words(node) -> set:
    """Every name, attribute, imported name and string constant in `node`."""
    words = set()
    for item in ast.walk(node):
        if isinstance(item, ast.Name):
            words.add(item.id)
        elif isinstance(item, ast.Attribute):
            words.add(item.attr)
        elif isinstance(item, ast.alias):
            words.update(item.name.split("."))
        elif isinstance(item, ast.Constant) and isinstance(item.value, str) and len(item.value) <= 200:
            words.add(item.value)
    return words


def _definitions(trees) -> dict:
    """{name: words it refers to} for every function, class, alias and assignment at a cell's top level."""
    defined = {}
    for tree in trees:
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.setdefault(node.name, set()).update(_words(node))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    defined.setdefault(alias.asname or alias.name.split(".")[0], set()).update(alias.name.split("."))
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            defined.setdefault(name.id, set()).update(_words(node.value) if node.value else set())
    return defined


def _reachable(start: str, defined: dict) -> set:
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        for word in defined.get(name, ()):
            if word not in seen:
                seen.add(word)
                if word in defined:
                    todo.append(word)
    return seen


def scan(nb, assignment: str, notebook: str) -> list[str]:
    """Flags for the instructor (see the module docstring), one sentence each."""
    flags, trees = [], []
    for index, source in student_cells(nb):
        tree = _parse(source)
        if tree is None:
            continue
        trees.append(tree)
        words = _words(tree)
        if any(PROBE_PACKAGE.search(word) for word in words):
            flags.append(f"touches the grader's probe package (_agprobe) outside a test cell (cell {index + 1})")
        if words & AUDIT_NAMES or any(AUDIT_STRINGS.search(word) for word in words):
            flags.append(f"audit-hook tampering: uses sys.addaudithook or the grader's audit channel "
                         f"(cell {index + 1})")
    defined = _definitions(trees)
    # a helper the student wrote themselves (a function of that name that does not call the engine's) is theirs
    own = {node.name for tree in trees for node in tree.body
           if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name not in _words(node)}
    for function, helpers in sorted(forbidden_helpers(assignment, notebook).items()):
        if function in defined:
            used = sorted(_reachable(function, defined) & (helpers - own))
            if used:
                flags.append(f"{function} calls a helper the notebook forbids: {', '.join(used)}")
    return flags
