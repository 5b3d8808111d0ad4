"""Hidden-test cells split in two: the kernel only *probes*, the grader *judges*.

A hidden test is written as ``check_<name>(fn)`` imported
``from autograder.assignments.<assignment>.checks``.
``rewrite_test_cell`` turns each such call into a probe call with a fresh random nonce; the
kernel runs it and writes plain data, and the grader judges that data (``autograder.probes``).
"""
import ast
import secrets
from dataclasses import dataclass, field

PROBE_PACKAGE = "_agprobe"


@dataclass
class CheckCall:
    """One ``check_<name>(arg)`` call found in a hidden-test cell."""
    module: str          # the assignment, e.g. "ttt1_mcts" (of autograder.assignments.ttt1_mcts.checks)
    name: str            # e.g. "get_next_state"
    nonce: str = field(default_factory=lambda: secrets.token_hex(16))
    argument: str = ""   # the source of the checked expression, e.g. "get_next_state"


def probe_call(call: CheckCall) -> str:
    """The probe call that replaces ``check_<name>(<argument>)`` in the kernel that runs the hidden tests."""
    return (f"__import__({PROBE_PACKAGE + '._runtime'!r})._runtime.probe("
            f"{call.module!r}, {call.name!r}, {call.argument}, {call.nonce!r})")


class UnsupportedTestCell(ValueError):
    """A test cell uses ``autograder`` in a way the sandbox cannot split into probe and judge."""


def rewrite_test_cell(source: str, probe: bool = True) -> tuple[str, list[CheckCall]]:
    """The cell's source with every check call replaced by a probe call (by ``None`` when not `probe`:
    the hidden tests then run elsewhere, ``autograder.probe_program``), and the calls found.

    ``from autograder.assignments.<assignment>.checks import check_<name>`` lines become ``pass``;
    ``check_<name>(<expr>)`` becomes ``_agprobe._runtime.probe("<module>", "<name>", <expr>, "<nonce>")``.
    A check of a notebook function written as a statement of its own (``check_get_reward(get_reward)``)
    moves to the top of the cell: the hidden probes run before the visible asserts, so the grader
    can judge them even when a visible assert fails, and show the more specific message.
    Cells that do not mention ``autograder`` are returned unchanged.
    """
    if "autograder" not in source:
        return source, []
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise UnsupportedTestCell(f"the test cell does not parse: {exc}") from None
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    position = lambda lineno, col: offsets[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())
    imported: dict[str, str] = {}
    edits: list[tuple[int, int, str]] = []
    calls: list[CheckCall] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("autograder"):
            parts = (node.module or "").split(".")
            module = parts[2] if len(parts) == 4 else ""
            if parts[1:2] != ["assignments"] or parts[3:] != ["checks"] or not module.isidentifier() \
                    or any(not a.name.startswith("check_") or a.asname for a in node.names):
                raise UnsupportedTestCell(f"unsupported import in a test cell: {ast.unparse(node)}")
            for alias in node.names:
                imported[alias.name] = module
            edits.append((position(node.lineno, node.col_offset), position(node.end_lineno, node.end_col_offset),
                          "pass"))
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "autograder" for a in node.names):
            raise UnsupportedTestCell(f"unsupported import in a test cell: {ast.unparse(node)}"
                                      " (use `from autograder.assignments.<assignment>.checks import check_<name>`)")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported:
            if len(node.args) != 1 or node.keywords:
                raise UnsupportedTestCell(f"a check takes exactly one argument: {ast.unparse(node)}")
            call = CheckCall(imported[node.func.id], node.func.id[len("check_"):],
                             argument=ast.get_source_segment(source, node.args[0]))
            edits.append((position(node.lineno, node.col_offset), position(node.end_lineno, node.end_col_offset),
                          probe_call(call) if probe else "None"))
            calls.append(call)
        elif isinstance(node, ast.Name) and node.id == "autograder":
            raise UnsupportedTestCell("a test cell may use autograder only through `check_<name>(...)` calls")
    hoisted = []
    defined = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    for statement in tree.body:  # checks of a notebook function run first, before the visible asserts
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in imported \
                and isinstance(call.args[0], ast.Name) and call.args[0].id not in defined:
            start = position(statement.lineno, statement.col_offset)
            end = position(statement.end_lineno, statement.end_col_offset)
            text = next(t for s, e, t in edits if s == start and e == end)
            edits = [(s, e, "pass" if s == start and e == end else t) for s, e, t in edits]
            hoisted.append(text)
    for start, end, text in sorted(edits, reverse=True):
        source = source[:start] + text + source[end:]
    return "".join(f"{text}\n" for text in hoisted) + source, calls


