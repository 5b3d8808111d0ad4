"""Nothing secret reaches students: marker lint at build time, leak scans of what students see.

* ``check_markers``: every ``BEGIN/END SOLUTION`` and ``BEGIN/END HIDDEN TESTS`` marker of the
  source notebooks is spelled exactly as nbgrader expects and balanced, hidden tests sit only
  in graded test cells, and every hidden test can be split into probe and judge. A mistyped
  marker (``### BEGIN HIDDEN TEST``, ``## END HIDDEN TESTS``) would otherwise ship the test.
* ``secret_lines``: the hidden-test and solution lines of the source notebooks (minus lines
  that are public anyway: provided code, visible tests, text, and trivial lines).
* ``scan``: release notebooks (sources and outputs) must contain no secret line and no file
  but the notebooks; distributed solutions must contain no hidden-test line.
* ``judge_lines``: the source lines of the hidden-test judges (``*_checks.py``, ``_report.py``),
  which never enter a kernel (only the probe modules do), minus lines the kernel has anyway.
* ``secret_runs``: runs of consecutive solution, hidden-test and judge lines; the student bundle
  (``autograder/bundle.py``) looks for them in the framework modules it ships, which may share a
  single idiomatic line with a solution but never a copied block.
* ``leaking_feedback`` / ``scan_feedback``: feedback HTML must contain no hidden-test line, no
  judge line and no solution line, except lines the student wrote themselves (text that a
  student typed into their notebook is theirs, whatever it says).
"""
import html
import json
import re
from pathlib import Path

import nbformat

from ._report import counted
from .reference import REPO_ROOT

MARKERS = {"### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"}
MARKER_LIKE = re.compile(r"^\s*#+\s*(BEGIN|END)\b.*\b(SOLUTION|HIDDEN|TEST)", re.IGNORECASE)
MIN_SECRET_CHARS = 12
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
RUN_LINES = 3  # consecutive secret lines that make a copied block (see secret_runs)


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
    from .probes import has_probes
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
                        if not has_probes(call.module):
                            problems.append(f"{where}: autograder/assignments/{call.module}/ has no checks.py "
                                            "and probes.py (see autograder/probes.py)")
                except UnsupportedTestCell as exc:
                    problems.append(f"{where}: {exc}")
            if "### BEGIN SOLUTION" in cell.source and not meta.get("solution"):
                problems.append(f"{where}: solution markers in a cell that is not a solution cell")
    if problems:
        raise MarkerError("source notebooks have marker problems:\n  " + "\n  ".join(problems))


def public_lines(source_dir) -> set:
    """Normalised lines that students see anyway: provided code, visible tests and text. A cell that
    copies another assignment's solution (part 1's, in part 2) is not public for every assignment:
    see ``copied_lines``."""
    return {_norm(line) for path in sorted(Path(source_dir).glob("*/*.ipynb"))
            for cell in nbformat.read(path, as_version=4).cells if not _whole_solution(cell) and not _is_copy(path, cell)
            for line, region in _regions(cell.source) if region == "public"}


def _is_copy(path: Path, cell) -> bool:
    """Whether `cell` of the source notebook `path` is filled with another notebook's reference code."""
    from .generation import SYNCED_CELLS

    grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
    return (Path(path).parent.name, Path(path).stem, grade_id) in SYNCED_CELLS


def copied_lines(source_dir, assignment: str) -> set:
    """Normalised lines that `assignment`'s students are given from another assignment's solution
    (part 2 starts with part 1's solution): public in that assignment only."""
    return {_norm(line) for path in sorted((Path(source_dir) / assignment).glob("*.ipynb"))
            for cell in nbformat.read(path, as_version=4).cells if _is_copy(path, cell)
            for line in cell.source.splitlines()}


def _whole_solution(cell) -> bool:
    """A markdown answer cell: all of it is the model answer."""
    meta = cell.metadata.get("nbgrader", {})
    return bool(cell.cell_type == "markdown" and meta.get("solution") and "### BEGIN" not in cell.source)


def secret_lines(source_dir) -> tuple[set, set]:
    """(hidden-test lines, solution lines) of all source notebooks, normalised."""
    hidden, solution, public = set(), set(), set()
    for path in sorted(Path(source_dir).glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if _is_copy(path, cell):  # another notebook's solution: secret there, given here
                continue
            whole_solution = _whole_solution(cell)
            for line, region in _regions(cell.source):
                text = _norm(line)
                if whole_solution:
                    region = "solution"
                {"public": public, "solution": solution, "hidden": hidden}[region].add(text)
    keep = lambda lines: {t for t in lines - public if len(t) >= MIN_SECRET_CHARS and not t.startswith("#")}
    return keep(hidden), keep(solution) - keep(hidden)


def judge_lines() -> set:
    """Normalised source lines of the judges (grader side only), minus those of the probe modules
    (which the kernel receives), comments and trivial lines."""
    judges, shipped = _judge_files()
    lines = lambda paths: {_norm(line) for path in paths for line in path.read_text().splitlines()}  # noqa: E731
    return {t for t in lines(judges) - lines(shipped) if len(t) >= MIN_SECRET_CHARS and not t.startswith("#")}


def _judge_files() -> tuple[set, set]:
    """(judge files, probe modules) of autograder/: the kernel receives only the probe modules."""
    folder = REPO_ROOT / "autograder"
    content = folder / "assignments"
    shipped = {folder / "_probe_util.py", *content.glob("*/probes.py")}
    judges = {*content.glob("*/checks.py"), *content.glob("*/cases.py"), folder / "_report.py"}
    return judges - shipped, shipped


def significant(lines) -> list:
    """The normalised lines that could tell a secret (no blank, trivial or comment line), in order."""
    normed = (_norm(line) for line in lines)
    return [t for t in normed if len(t) >= MIN_SECRET_CHARS and not t.startswith("#")]


def secret_runs(source_dir, length: int = RUN_LINES) -> dict:
    """{run of `length` consecutive significant lines: kind} of every solution region and hidden-test
    region of the source notebooks and of every judge file. Framework code may share an idiomatic
    line with a solution or a judge (``for row in range(5):``); a block copied from one shares a run."""
    runs = {}
    blocks = [(significant(path.read_text().splitlines()), "grader (judge)") for path in _judge_files()[0]]
    for path in sorted(Path(source_dir).glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            regions = {"solution": [], "hidden": []}
            for line, region in _regions(cell.source):
                region = "solution" if _whole_solution(cell) else region
                if region in regions:
                    regions[region].append(line)
            blocks += [(significant(regions["solution"]), "solution"), (significant(regions["hidden"]), "hidden-test")]
    for lines, kind in blocks:
        runs.update({tuple(lines[i:i + length]): kind for i in range(len(lines) - length + 1)})
    return runs


def text_lines(text: str) -> set:
    """Normalised lines of a text."""
    return {_norm(line) for line in text.splitlines()}


def notebook_lines(path) -> set:
    """Normalised lines of every cell source and text output of a notebook file."""
    return notebook_text_lines(Path(path).read_text(errors="replace"))


def notebook_text_lines(text: str) -> set:
    """Normalised lines of every cell source and text output of a notebook's JSON text (of the text
    itself, line by line, if it is not JSON)."""
    try:
        nb = json.loads(text)
    except ValueError:
        return text_lines(text)
    return cell_lines(nb)


def cell_lines(nb) -> set:
    """Normalised lines of every cell source and text output of a notebook (a dict as JSON has it,
    or an nbformat node); terminal colour codes (tracebacks) removed, as the HTML shows them."""
    lines = set()
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        for text in ([source] if isinstance(source, str) else ["".join(source)]):
            lines.update(_norm(line) for line in text.splitlines())
        for output in cell.get("outputs", []):
            for value in [output.get("text", "")] + list(output.get("data", {}).values()) + output.get("traceback", []):
                value = _ANSI.sub("", "".join(value) if isinstance(value, list) else str(value))
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
            given = copied_lines(course.source, path.parent.name)
            for line in sorted(_found(hidden | solution, notebook_lines(path) - given)):
                problems.append(f"{path}: contains a {'hidden-test' if line in hidden else 'solution'} line: {line!r}")
    solutions_dir = REPO_ROOT / "solutions" if course.is_main else Path(course.root) / "solutions"
    for path in sorted(solutions_dir.rglob("*.ipynb")):
        for line in sorted(_found(hidden, notebook_lines(path))):
            problems.append(f"{path}: contains a hidden-test line: {line!r}")
    return problems


def feedback_secrets(source_dir) -> list[tuple[set, str]]:
    """[(lines, kind)] that feedback must not show: hidden-test, judge and solution lines."""
    hidden, solution = secret_lines(source_dir)
    return [(hidden, "hidden-test"), (judge_lines() - public_lines(source_dir), "grader (judge)"),
            (solution, "solution")]


def secrets_shown(lines: set, own: set, kinds: list[tuple[set, str]]) -> list[tuple[str, str]]:
    """[(kind, line)] of the secret lines among `lines`, except those in `own` (the student's own
    submitted lines, which are theirs whatever they say); each line counted once."""
    lines = lines - own
    found = []
    for secrets, kind in kinds:
        found += [(kind, line) for line in sorted(_found(secrets, lines))]
        lines = lines - secrets
    return found


def withheld_reason(found: list[tuple[str, str]]) -> str:
    """The one-line reason a student's feedback is withheld (`found` from ``secrets_shown``)."""
    return (f"feedback withheld: it would show {counted(len(found), 'hidden-test, grader or solution line')} "
            f"(a {found[0][0]} line the student did not write: {found[0][1][:100]!r})")


def leaking_feedback(course, paths=None) -> dict:
    """{feedback HTML path: [(kind, line), ...]} for every feedback file (or those in `paths`) that
    shows a hidden-test, judge or solution line the student did not write themselves (their
    submitted notebook's lines are theirs)."""
    kinds = feedback_secrets(course.source)
    leaks = {}
    for path in sorted(paths if paths is not None else Path(course.feedback).rglob("*.html")):
        relative = Path(path).relative_to(course.feedback)
        submitted = Path(course.submitted) / relative.with_suffix(".ipynb")
        own = notebook_lines(submitted) if submitted.exists() else set()
        given = copied_lines(course.source, relative.parts[1]) if len(relative.parts) > 2 else set()
        found = secrets_shown(html_lines(path), own | given, kinds)
        if found:
            leaks[Path(path)] = found
    return leaks


def scan_feedback(course) -> list[str]:
    """Every leak in feedback HTML (see ``leaking_feedback``), one line each."""
    return [f"{path}: contains a {kind} line the student did not write: {line!r}"
            for path, found in leaking_feedback(course).items() for kind, line in found]
