"""The notebook that the hidden tests probe: provided cells and the student's answers, nothing else.

The submitted notebook runs whole in one sandboxed kernel (outputs, visible tests). The hidden
tests run afterwards in a second, fresh kernel, in a fresh scratch folder, that sees only:

- the locked provided cells (nbgrader restored their source from the gradebook) up to the last
  graded cell, except the instructor's heavy cells (training, tournaments: ``heavy``);
- every top-level statement of the answer cells, one cell each, in notebook order (a failing
  statement does not stop the next);
- from the student's other cells, only the definitions the tests and answers need: functions,
  classes, imports and assignments binding a name that a probe call, an answer (or such a
  definition) reads as a global, so a helper or an import of the student's own, or a graded
  function written again in a cell of their own, keeps working;
- the probe calls of each graded cell, in its place.

Every statement taken from the student is read here, in the grader, first: one that contains a
reflective construct (``code_scan.reflection``: the grader's runtime, ``sys.modules``,
``importlib``, ``__import__``, ``gc``, frames, ``getattr`` with a computed name, attributes
assigned on a module, ...) is left out and flagged with its cell and line. So nothing in that
kernel ran but provided code and student code that names what it uses: the probe runner and the
helpers the probes hold cannot be found, wrapped or replaced by it.
"""
import ast
from dataclasses import dataclass

import nbformat

from . import code_scan
from .code_scan import _parse, reflection


@dataclass
class ProgramCell:
    source: str
    origin: int        # index of the submitted cell it comes from
    kind: str          # "provided", "answer", "helper" or "probe"
    grade_id: str | None = None


LEFT_OUT = "left out of the hidden tests (reaches code it does not name, or the grader's runtime): cell "


def said_once(scan_flags: list[str], left_out: list[str]) -> list[str]:
    """``scan_flags`` without each ``code_scan`` flag of a cell whose every "line L (what)" the
    left-out flag of the same cell already names (the grade table then says it once)."""
    def places(flag: str, prefix: str) -> tuple[str, set]:  # ("8", {"21 (__import__)", ...})
        cell, _, where = flag.removeprefix(prefix).partition(", ")
        return cell, set((", " + where).split(", line ")) - {""}

    named = dict(places(flag, LEFT_OUT) for flag in left_out)
    kept = []
    for flag in scan_flags:
        cell, lines = places(flag, code_scan.REACHES)
        if not (flag.startswith(code_scan.REACHES) and lines <= named.get(cell, set())):
            kept.append(flag)
    return kept


def _role(cell) -> str:
    meta = cell.metadata.get("nbgrader", {})
    if cell.cell_type != "code":
        return "text"
    if meta.get("grade"):
        return "test"
    if meta.get("solution"):
        return "answer"
    return "provided" if meta.get("locked") else "own"


def _chunks(source: str):
    """(first line, last line, statements) of a cell's top-level statements, statements sharing a line
    merged; None if the cell does not parse."""
    tree = _parse(source)
    if tree is None:
        return None
    chunks = []
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        if chunks and first <= chunks[-1][1]:
            chunks[-1] = (chunks[-1][0], max(chunks[-1][1], node.end_lineno), chunks[-1][2] + [node])
        else:
            chunks.append((first, node.end_lineno, [node]))
    return chunks


def _bound(node) -> set:
    """Names a top-level statement binds (a definition, an import, an assignment's plain targets)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {alias.asname or alias.name.split(".")[0] for alias in node.names}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _globals_read(node) -> set:
    """Names a statement may read as globals (an over-estimate: every name read, less those a
    function inside it binds as parameters or locals)."""
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    local = set()
    for inner in ast.walk(node):
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = inner.args
            local |= {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
            local |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
            body = inner.body if isinstance(inner.body, list) else [inner.body]
            globals_declared = {name for n in ast.walk(inner) if isinstance(n, ast.Global) for name in n.names}
            local |= {n.id for b in body for n in ast.walk(b)
                      if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - globals_declared
    return read - local


def probe_program(nb, probes: dict[int, str], heavy: set) -> tuple[list[ProgramCell], list[str]]:
    """The cells of the probe kernel for notebook `nb` (after nbgrader restored its locked cells) and the
    flags of what was left out. `probes`: {index of a graded cell: the probe calls to run in its place};
    `heavy`: grade_ids of provided cells never run there."""
    last_graded = max(probes, default=-1)
    candidates = []   # (index, role, first, last, statements)
    for index, cell in enumerate(nb.cells):
        role = _role(cell)
        if role in ("answer", "own"):
            for first, last, statements in _chunks(cell.source) or []:
                candidates.append((index, role, first, last, statements))
    chosen = set()
    reach = {n.id for source in probes.values() for n in ast.walk(_parse(source) or ast.Module(body=[]))
             if isinstance(n, ast.Name)}  # the functions tested, wherever the student defined them
    for position, (index, role, first, last, statements) in enumerate(candidates):
        if role == "answer":
            chosen.add(position)
            reach |= set().union(*map(_globals_read, statements))
    grew = True
    while grew:  # the student's own definitions that the answers need, transitively
        grew = False
        for position, (index, role, first, last, statements) in enumerate(candidates):
            bound = set().union(*map(_bound, statements))
            if position not in chosen and (reach & bound or "*" in bound):  # a star import binds unknown names
                chosen.add(position)
                reach |= set().union(*map(_globals_read, statements))
                grew = True
    kept: dict[int, list[ProgramCell]] = {}
    left_out: dict[int, list[str]] = {}
    for position in sorted(chosen):
        index, role, first, last, statements = candidates[position]
        found = sorted({(line, what) for node in statements for line, what, _ in reflection(node)})
        if found:
            left_out.setdefault(index, []).append(
                f"line {found[0][0]} ({', '.join(dict.fromkeys(what for _, what in found))})")
            continue
        lines = nb.cells[index].source.splitlines()[first - 1:last]
        kept.setdefault(index, []).append(
            ProgramCell("\n".join(lines), index, "answer" if role == "answer" else "helper"))
    flags = [f"{LEFT_OUT}{index + 1}, {', '.join(where)}" for index, where in left_out.items()]
    program = []
    for index, cell in enumerate(nb.cells):
        role, grade_id = _role(cell), cell.metadata.get("nbgrader", {}).get("grade_id")
        if role == "provided" and index < last_graded and grade_id not in heavy and cell.source.strip():
            program.append(ProgramCell(cell.source, index, "provided", grade_id))
        program += kept.get(index, [])
        if index in probes:
            program.append(ProgramCell(probes[index], index, "probe", grade_id))
    return program, flags


def as_notebook(program: list[ProgramCell], kernelspec) -> nbformat.NotebookNode:
    """The program as a notebook for ``kernel.run_cells``: probe cells count as graded cells (their
    grade_id's time limit, never replayed after a restart)."""
    cells = []
    for item in program:
        meta = {"nbgrader": {"grade": True, "grade_id": item.grade_id}} if item.kind == "probe" else {}
        cells.append(nbformat.v4.new_code_cell(item.source, metadata=meta))
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernelspec} if kernelspec else {})
