"""Flags from reading a submission's code, in the grader's process (the kernel cannot touch them).

The cells a student wrote (answer cells and cells of their own; never the locked cells, which
nbgrader restores) are parsed, not run, and checked for:

- the probe package: any mention of ``_agprobe`` (a name, an attribute, an import, a string)
  outside the test cells, where only the grader's rewritten hidden tests use it;
- audit-hook tampering: ``sys.addaudithook`` / ``sys.audit``, the grader's audit descriptor
  (``AG_AUDIT_FD``), or the interpreter's hook API through ctypes;
- forbidden helpers: a graded function that reaches, directly or through functions, aliases and
  imports of the student's own, an engine helper that does its whole job (``FORBIDDEN_HELPERS``
  of the notebook's ``assignments/<assignment>/checks.py``, e.g. ``string_to_action`` for ``decode_move``);
- reflection (``reflection``): code that could reach the grader's runtime, another module's
  objects by a computed name, or rewire modules. ``autograder.probe_program`` leaves every such
  statement out of the kernel that runs the hidden tests and flags it with its cell and line.

Text in markdown cells is never code: a notebook as distributed gets no flag.
"""
import ast
import glob
import importlib
import re
from pathlib import Path

PROBE_PACKAGE = re.compile(r"agprobe")
REACHES = "reaches the grader's runtime or other code by a computed name: cell "  # + "N, line L (what), ..."
AUDIT_NAMES = {"addaudithook", "PySys_AddAuditHook", "PySys_Audit"}
AUDIT_STRINGS = re.compile(r"AG_AUDIT_FD|addaudithook|PySys_AddAuditHook")


def forbidden_helpers(assignment: str, notebook: str) -> dict:
    """{graded function: {helper names}} that the notebook forbids (from its judges' module,
    ``autograder/assignments/<assignment>/checks.py``: only that one is imported, so grading part 1
    does not load part 3's engine)."""
    found = {}
    for path in sorted((Path(__file__).parent / "assignments").glob(f"{glob.escape(assignment)}/checks.py")):
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


# Modules whose only use in a graded answer is to reach objects by computed names, frames, the
# interpreter's import machinery, or code that runs outside the call being tested.
REFLECTIVE_MODULES = {"importlib", "imp", "inspect", "ctypes", "builtins", "__builtin__", "runpy", "pickle",
                      "marshal", "code", "codeop", "threading", "_thread", "multiprocessing", "concurrent",
                      "subprocess", "signal", "atexit", "asyncio", "weakref", "copyreg", "dill", "cloudpickle",
                      "_agprobe", "autograder", "nbgrader", "IPython", "ipykernel", "zmq"}
# Built-in names that look objects up by computed names, run text as code, or reach the kernel's shell.
REFLECTIVE_NAMES = {"__import__", "__builtins__", "__loader__", "__spec__", "globals", "vars", "locals", "eval",
                    "exec", "compile", "breakpoint", "get_ipython", "In", "Out", "_ih", "_oh", "_i", "_ii", "_iii",
                    "attrgetter", "methodcaller"}
# Attributes that lead to frames, a function's or module's namespace, every object's class tree, every
# live object, the import machinery, or other processes, whatever object they are read from.
REFLECTIVE_ATTRIBUTES = {"_getframe", "_current_frames", "f_back", "f_globals", "f_locals", "f_builtins", "f_code",
                         "tb_frame", "tb_next", "gi_frame", "cr_frame", "ag_frame", "gi_code", "__globals__",
                         "__builtins__", "__dict__", "__subclasses__", "__bases__", "__base__", "__mro__", "__code__",
                         "__closure__", "__traceback__", "__loader__", "__spec__", "__getattribute__", "__setattr__",
                         "__delattr__", "__reduce__", "__reduce_ex__", "__import__", "__func__", "__self__",
                         "modules", "meta_path", "path_hooks", "path_importer_cache", "settrace", "setprofile",
                         "exc_info", "last_traceback", "excepthook", "addaudithook", "get_objects", "get_referrers",
                         "get_referents", "walk_stack", "walk_tb", "import_module", "fork", "forkpty", "system",
                         "popen", "posix_spawn", "posix_spawnp", "execv", "execve", "execl", "execle", "execlp",
                         "execvp", "execvpe", "spawnv", "spawnve", "spawnl", "spawnle", "register_at_fork",
                         "currentframe", "getouterframes", "getinnerframes", "ctypeslib", "pythonapi", "attrgetter",
                         "methodcaller", "eval", "exec"}
# What an honest student never writes anywhere in a notebook: the ways to the grader's runtime (already
# imported, so found only by a computed name, among all objects, or through a frame) and to rewire modules.
AIMED_AT_THE_RUNTIME = {"__import__", "__builtins__", ".__builtins__", "._getframe", "._current_frames", ".f_back",
                        ".f_globals", ".f_locals", ".f_builtins", ".tb_frame", ".gi_frame", ".cr_frame", ".ag_frame",
                        ".__globals__", ".__subclasses__", ".modules", ".meta_path", ".path_hooks",
                        ".path_importer_cache", ".get_objects", ".get_referrers", ".get_referents", ".walk_stack",
                        ".walk_tb", ".import_module", ".__import__", "inspect.currentframe", "inspect.stack",
                        "inspect.getouterframes", "inspect.getmembers", "import builtins", "import _agprobe"}
NAME_LOOKUPS = {"getattr", "setattr", "delattr"}
# A reflective module reached as another module's attribute (`np.ctypeslib.ctypes`, `m.inspect`); `.code` and
# `.signal` are too common as plain attributes.
MODULE_ATTRIBUTES = REFLECTIVE_MODULES - {"code", "codeop", "signal"}
HISTORY = {"In", "Out", "_ih", "_oh", "_i", "_ii", "_iii"}  # IPython's, unless the student's own variables


def reflection(tree) -> list[tuple[int, str, bool]]:
    """(line, what, aimed at the runtime) for every construct of `tree` that could reach code or objects the
    student did not name: reflective modules imported, built-ins such as ``__import__``, ``globals``,
    ``eval``, attributes such as ``sys.modules``, ``f_globals``, ``__dict__``, ``getattr``/``setattr``
    with a name that is not a string constant (or a constant naming a reflective attribute), and
    attributes assigned or deleted on an imported module. The last item is True for the constructs in
    ``AIMED_AT_THE_RUNTIME``, computed names and module rewiring: flagged wherever a student wrote them."""
    modules = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
               if isinstance(node, ast.Import) for alias in node.names}
    modules |= {alias.asname or alias.name for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) for alias in node.names}
    modules |= {"sys", "builtins", "os", "np", "math", "jax", "jnp", "random"}
    own = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    own |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            found += [(line, f"import {a.name}") for a in node.names if a.name.split(".")[0] in REFLECTIVE_MODULES]
        elif isinstance(node, ast.ImportFrom):
            root = (node.module or "").split(".")[0]
            if root in REFLECTIVE_MODULES or node.level:
                found.append((line, f"from {'.' * node.level}{node.module or ''} import ..."))
            elif any(a.name in REFLECTIVE_ATTRIBUTES | REFLECTIVE_NAMES for a in node.names):
                found.append((line, f"from {node.module} import {', '.join(a.name for a in node.names)}"))
        elif isinstance(node, ast.Name) and node.id in REFLECTIVE_NAMES and not (node.id in HISTORY & own):
            found.append((line, node.id))
        elif isinstance(node, ast.Name) and node.id in NAME_LOOKUPS and id(node) not in called:
            found.append((line, f"{node.id} passed as a value"))  # reduce(getattr, names, obj)
        elif isinstance(node, ast.Attribute):
            base = node.value.id if isinstance(node.value, ast.Name) else ""
            if node.attr in REFLECTIVE_ATTRIBUTES or node.attr in MODULE_ATTRIBUTES:
                found.append((line, f".{node.attr}"))
            elif base == "inspect":
                found.append((line, f"inspect.{node.attr}"))
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                root = node.value
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in modules:
                    found.append((line, f"assigns {ast.unparse(node)[:60]} on a module"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in NAME_LOOKUPS:
            name = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                found.append((line, f"{node.func.id} with a computed name"))
            elif name.value in REFLECTIVE_ATTRIBUTES:
                found.append((line, f"{node.func.id}(..., {name.value!r})"))
            elif node.func.id in ("setattr", "delattr") and isinstance(node.args[0], ast.Name) \
                    and node.args[0].id in modules:
                found.append((line, f"{node.func.id} on the module {node.args[0].id}"))
    aimed = lambda what: (what in AIMED_AT_THE_RUNTIME or what.startswith(("import _agprobe", "assigns "))  # noqa: E731
                          or "computed name" in what or " on the module " in what or "as a value" in what)
    return sorted({(line, what, aimed(what)) for line, what in found})


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
        aimed: dict[int, list[str]] = {}
        for line, what, strong in reflection(tree):
            if strong:
                aimed.setdefault(line, []).append(what)
        if aimed:
            flags.append(f"{REACHES}{index + 1}, "
                         + ", ".join(f"line {line} ({', '.join(whats)})" for line, whats in aimed.items()))
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
