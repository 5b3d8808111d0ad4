"""Nothing secret reaches students: marker lint at build time, leak scans of what students see.

* ``check_markers``: every ``BEGIN/END SOLUTION`` and ``BEGIN/END HIDDEN TESTS`` marker of the
  source notebooks is spelled exactly as nbgrader expects and balanced, hidden tests sit only
  in graded test cells, and every hidden test can be split into probe and judge. A mistyped
  marker (``### BEGIN HIDDEN TEST``, ``## END HIDDEN TESTS``) would otherwise ship the test.
* ``secret_lines``: the hidden-test and solution lines of the source notebooks (minus lines
  that are public anyway: provided code, visible tests, text, and trivial lines).
* ``scan``: release notebooks (sources and outputs) must contain no secret line and no file
  but the notebooks; distributed solutions must contain no hidden-test line.
* ``scan_feedback``: feedback HTML must contain no hidden-test line and no solution line that
  the student did not write themselves.
"""
import html
import json
import re
from pathlib import Path

import nbformat

from .grading_config import REPO_ROOT

MARKERS = {"### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"}
MARKER_LIKE = re.compile(r"^\s*#+\s*(BEGIN|END)\b.*\b(SOLUTION|HIDDEN|TEST)", re.IGNORECASE)
MIN_SECRET_CHARS = 12


class MarkerError(ValueError):
    pass


def _norm(line: str) -> str:
    return " ".join(line.split())


def _regions(source: str):
    """Yield (line, region) with region in {"public", "solution", "hidden"}; markers excluded."""
    region = "public"
    for line in source.splitlines():
        stripped = line.strip()
        if stripped == "### BEGIN SOLUTION":
            region = "solution"
        elif stripped == "### BEGIN HIDDEN TESTS":
            region = "hidden"
        elif stripped in ("### END SOLUTION", "### END HIDDEN TESTS"):
            region = "public"
        else:
            yield line, region


def check_markers(source_dir) -> None:
    """Raise MarkerError listing every malformed, unbalanced or misplaced marker."""
    from .probes import probe_module_of, probe_modules
    from .testcells import UnsupportedTestCell, rewrite_test_cell

    problems = []
    for path in sorted(Path(source_dir).glob("*/*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for index, cell in enumerate(nb.cells):
            where = f"{path.relative_to(Path(source_dir))} cell {index}"
            meta = cell.metadata.get("nbgrader", {})
            stack = []
            for number, line in enumerate(cell.source.splitlines(), 1):
                stripped = line.strip()
                if stripped in MARKERS:
                    kind = stripped.split(" ", 2)[2]
                    if stripped.startswith("### BEGIN"):
                        if stack:
                            problems.append(f"{where} line {number}: {stripped!r} inside an open {stack[-1]} block")
                        stack.append(kind)
                    elif not stack or stack.pop() != kind:
                        problems.append(f"{where} line {number}: {stripped!r} without a matching BEGIN")
                elif MARKER_LIKE.match(line):
                    problems.append(f"{where} line {number}: {stripped!r} looks like a marker but is not one of "
                                    f"{sorted(MARKERS)}")
            if stack:
                problems.append(f"{where}: {stack[-1]} block never ended")
            if "### BEGIN HIDDEN TESTS" in cell.source:
                if not (cell.cell_type == "code" and meta.get("grade") and not meta.get("solution")):
                    problems.append(f"{where}: hidden tests outside a graded test cell")
                try:
                    _, calls = rewrite_test_cell(cell.source)
                    for call in calls:
                        if probe_module_of(call.module) not in probe_modules():
                            problems.append(f"{where}: autograder.{call.module} has no probe module "
                                            f"autograder.{probe_module_of(call.module)} (see autograder/probes.py)")
                except UnsupportedTestCell as exc:
                    problems.append(f"{where}: {exc}")
            if "### BEGIN SOLUTION" in cell.source and not meta.get("solution"):
                problems.append(f"{where}: solution markers in a cell that is not a solution cell")
    if problems:
        raise MarkerError("source notebooks have marker problems:\n  " + "\n  ".join(problems))


def secret_lines(source_dir) -> tuple[set, set]:
    """(hidden-test lines, solution lines) of all source notebooks, normalised."""
    hidden, solution, public = set(), set(), set()
    for path in sorted(Path(source_dir).glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            whole_solution = cell.cell_type == "markdown" and meta.get("solution") and "### BEGIN" not in cell.source
            for line, region in _regions(cell.source):
                text = _norm(line)
                if whole_solution:
                    region = "solution"
                {"public": public, "solution": solution, "hidden": hidden}[region].add(text)
    keep = lambda lines: {t for t in lines - public if len(t) >= MIN_SECRET_CHARS and not t.startswith("#")}
    return keep(hidden), keep(solution) - keep(hidden)


def notebook_lines(path) -> set:
    """Normalised lines of every cell source and text output of a notebook file."""
    try:
        nb = json.loads(Path(path).read_text())
    except ValueError:
        return {_norm(line) for line in Path(path).read_text(errors="replace").splitlines()}
    lines = set()
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        for text in ([source] if isinstance(source, str) else ["".join(source)]):
            lines.update(_norm(line) for line in text.splitlines())
        for output in cell.get("outputs", []):
            for value in [output.get("text", "")] + list(output.get("data", {}).values()) + output.get("traceback", []):
                value = "".join(value) if isinstance(value, list) else str(value)
                lines.update(_norm(line) for line in value.splitlines())
    return lines


def html_lines(path) -> set:
    """Normalised text lines of an HTML file (tags removed, entities decoded)."""
    text = Path(path).read_text(errors="replace")
    text = re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S | re.I)
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return {_norm(line) for line in text.splitlines()}


def _found(secrets: set, lines: set) -> set:
    return {s for s in secrets if s in lines}


def scan(course) -> list[str]:
    """Leaks in the course's release/ and in the distributed solutions/."""
    hidden, solution = secret_lines(course.source)
    problems = []
    expected = {p.stem for p in Path(course.source).glob("*/*.ipynb")}
    for path in sorted(Path(course.release).rglob("*")):
        if path.is_file() and (path.suffix != ".ipynb" or path.stem not in expected):
            problems.append(f"{path}: not an assignment notebook, but it is in the release")
        elif path.is_file():
            for line in sorted(_found(hidden | solution, notebook_lines(path))):
                problems.append(f"{path}: contains a {'hidden-test' if line in hidden else 'solution'} line: {line!r}")
    solutions_dir = REPO_ROOT / "solutions" if course.is_main else Path(course.root) / "solutions"
    for path in sorted(solutions_dir.rglob("*.ipynb")):
        for line in sorted(_found(hidden, notebook_lines(path))):
            problems.append(f"{path}: contains a hidden-test line: {line!r}")
    return problems


def scan_feedback(course) -> list[str]:
    """Leaks in feedback HTML: hidden-test lines, and solution lines the student did not write."""
    hidden, solution = secret_lines(course.source)
    problems = []
    for path in sorted(Path(course.feedback).rglob("*.html")):
        relative = path.relative_to(course.feedback)
        submitted = Path(course.submitted) / relative.with_suffix(".ipynb")
        own = notebook_lines(submitted) if submitted.exists() else set()
        lines = html_lines(path)
        for line in sorted(_found(hidden, lines)):
            problems.append(f"{path}: contains a hidden-test line: {line!r}")
        for line in sorted(_found(solution, lines) - own):
            problems.append(f"{path}: contains a solution line the student did not write: {line!r}")
    return problems
