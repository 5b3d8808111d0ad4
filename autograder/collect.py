"""Collect submissions into nbgrader's ``submitted/`` folder, repairing what can be repaired.

Accepted layouts (a folder or a .zip of one):

* ``<student>/<assignment>/<notebook>.ipynb`` (nbgrader's own layout),
* ``<student>.ipynb`` (one notebook per student; the assignment is recognised from its cells),
* LMS downloads: Canvas (``<student>_[late_]<id>_<id>_<original name>.ipynb``) and Moodle
  (``<Full Name>_<id>_assignsubmission_file_/<original name>.ipynb``).

Each notebook is matched to an assignment notebook by its cells (nbgrader ids, or the text
of the provided cells when the metadata was stripped), so a renamed file still lands in the
right place. Problems are repaired where that is fair and always reported:

* not valid JSON / not a notebook: replaced by the blank release notebook (scores 0);
* stripped cell metadata: restored from the release notebook by aligning the cells;
* deleted graded, solution or locked cells: re-inserted from the release notebook;
* edited locked cells and duplicated ids: reported (nbgrader restores / de-duplicates them).

Student-written cells are also scanned for suspicious code (IPython hooks, exits, grader paths).
"""
import difflib
import json
import re
import shutil
import tempfile
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

SUSPICIOUS_CODE = [
    (r"input_transformers|input_transformer_manager|ast_transformers|register_transformer|prefilter_manager",
     "installs an IPython input/AST transformer (can rewrite or disable later cells)"),
    (r"events\.register|set_custom_exc|\.showtraceback\s*=|\.run_cell\s*=|register_magic",
     "hooks into IPython (events, exception handler, run_cell)"),
    (r"\bos\._exit\b|\bos\.kill\b|\bos\.abort\b", "calls os._exit / os.kill / os.abort"),
    (r"\bsys\.exit\b|(?<![\w.])(exit|quit)\s*\(", "calls sys.exit / exit / quit"),
    (r"gradebook|sqlite3|sqlalchemy|\.db['\"]", "touches a database (the gradebook?)"),
    (r"assignments/|solutions/|autograder|nbgrader|BEGIN HIDDEN|hidden.?test",
     "refers to grader files or hidden tests"),
    (r"sys\.settrace|sys\.setprofile|sys\.addaudithook|sys\.meta_path|sys\.modules\[|builtins\.", 
     "patches the interpreter (tracing, import hooks, builtins)"),
    (r"def __eq__|__eq__\s*=", "defines __eq__ (a result that compares equal to anything?)"),
    (r"\bctypes\b|signal\.signal|/proc/", "uses ctypes, signal handlers or /proc"),
]


@dataclass
class Target:
    """One notebook of an assignment, as released."""
    assignment: str
    notebook: str
    path: Path
    cells: list = field(default_factory=list)

    @property
    def ids(self) -> set:
        return {c.metadata["nbgrader"]["grade_id"] for c in self.cells if "nbgrader" in c.metadata}


@dataclass
class Collected:
    student: str
    assignment: str | None
    notebook: str | None
    origin: str
    problems: list = field(default_factory=list)
    flags: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"student": self.student, "assignment": self.assignment, "notebook": self.notebook,
                "origin": self.origin, "problems": self.problems, "flags": self.flags}


def release_targets(release_dir: Path, assignments=None) -> list[Target]:
    targets = []
    for path in sorted(Path(release_dir).glob("*/*.ipynb")):
        if assignments and path.parent.name not in assignments:
            continue
        nb = nbformat.read(path, as_version=4)
        targets.append(Target(path.parent.name, path.stem, path, nb.cells))
    return targets


def student_id(relative: Path) -> str:
    """The student of a file inside a submissions folder or LMS zip."""
    parts = relative.parts
    if len(parts) > 1:
        first = parts[0]
        moodle = re.match(r"(.+?)_\d+_assignsubmission_", first)
        return _slug(moodle.group(1) if moodle else first)
    canvas = re.match(r"([A-Za-z][\w-]*?)_(?:late_)?\d+_\d+_", relative.name)
    return _slug(canvas.group(1) if canvas else relative.stem)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text.strip()).strip("_.").lower() or "unknown"


def _signature(cell) -> str:
    return f"{cell.get('cell_type')}:{cell.get('source', '').strip()}"


def match_target(nb, filename: str, targets: list[Target], hint: str | None) -> Target | None:
    """The release notebook this submission is a copy of (cells first, then names)."""
    ids = {c.metadata["nbgrader"]["grade_id"] for c in nb.cells
           if isinstance(c.get("metadata"), dict) and "grade_id" in c.get("metadata", {}).get("nbgrader", {})}
    scored = []
    for target in targets:
        by_ids = len(ids & target.ids) / max(1, len(target.ids))
        locked = {_signature(c) for c in target.cells if c.metadata.get("nbgrader", {}).get("locked")}
        by_text = len(locked & {_signature(c) for c in nb.cells}) / max(1, len(locked))
        by_name = 1.0 if target.notebook in filename or target.assignment in filename else 0.0
        by_hint = 1.0 if hint == target.assignment else 0.0
        scored.append((max(by_ids, by_text), by_name, by_hint, target))
    scored.sort(key=lambda s: s[:3], reverse=True)
    best = scored[0] if scored else None
    if best and (best[0] >= 0.3 or best[1] or best[2]):
        return best[3]
    return None


def repair(nb, target: Target, problems: list) -> None:
    """Restore stripped metadata and deleted nbgrader cells from the release notebook (in place)."""
    release = target.cells
    sub_sigs = [_signature(c) for c in nb.cells]
    rel_sigs = [_signature(c) for c in release]
    pairs = {}  # release index -> submitted index
    matcher = difflib.SequenceMatcher(a=rel_sigs, b=sub_sigs, autojunk=False)
    blocks = matcher.get_matching_blocks()
    previous_a, previous_b = 0, 0
    for block in blocks:
        gap_a, gap_b = range(previous_a, block.a), range(previous_b, block.b)
        for i, j in zip(gap_a, gap_b):  # changed cells between two matches: pair them in order
            if release[i].cell_type == nb.cells[j].cell_type:
                pairs[i] = j
        for k in range(block.size):
            pairs[block.a + k] = block.b + k
        previous_a, previous_b = block.a + block.size, block.b + block.size
    restored_meta, reinserted = [], []
    for i, j in pairs.items():
        meta = release[i].metadata.get("nbgrader")
        if meta and "nbgrader" not in nb.cells[j].metadata:
            nb.cells[j].metadata["nbgrader"] = json.loads(json.dumps(meta))
            restored_meta.append(meta["grade_id"])
    present = {c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata}
    for i in sorted(set(range(len(release))) - set(pairs), reverse=False):
        meta = release[i].metadata.get("nbgrader")
        if not meta or meta["grade_id"] in present:
            continue
        earlier = [pairs[k] for k in pairs if k < i]
        position = (max(earlier) + 1) if earlier else 0
        nb.cells.insert(position, nbformat.from_dict(json.loads(json.dumps(release[i]))))
        pairs = {k: (v + 1 if v >= position else v) for k, v in pairs.items()}
        pairs[i] = position
        reinserted.append(meta["grade_id"])
    if restored_meta:
        problems.append(f"cell metadata was missing and was restored from the release notebook: {len(restored_meta)} "
                        f"cell(s) ({', '.join(restored_meta[:6])}{', ...' if len(restored_meta) > 6 else ''})")
    if reinserted:
        problems.append(f"deleted cell(s) re-inserted from the release notebook: {', '.join(reinserted)}")


def inspect(nb, target: Target, problems: list, flags: list) -> None:
    """Report edited locked cells and duplicated ids; scan student-written cells."""
    release = {c.metadata["nbgrader"]["grade_id"]: c for c in target.cells if "nbgrader" in c.metadata}
    seen = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if grade_id:
            seen[grade_id] = seen.get(grade_id, 0) + 1
            original = release.get(grade_id)
            if original is not None and original.metadata["nbgrader"].get("locked") and \
                    cell.source.strip() != original.source.strip():
                problems.append(f"locked cell {grade_id} was edited (the grader uses the original)")
    duplicated = sorted(k for k, n in seen.items() if n > 1)
    kept = set()
    for cell in nb.cells:  # later copies become plain cells (nbgrader's own de-duplication crashes)
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in kept:
            del cell.metadata["nbgrader"]
        elif grade_id:
            kept.add(grade_id)
    if duplicated:
        problems.append(f"duplicated cells ({', '.join(duplicated)}): only the first copy keeps its grading role")
    released_sources = {c.source.strip() for c in target.cells}
    written = "\n".join(c.source for c in nb.cells if c.source.strip() not in released_sources)
    for pattern, label in SUSPICIOUS_CODE:
        if re.search(pattern, written):
            flags.append(label)


def sanitised(nb):
    """A fresh, schema-valid copy: cell types, sources and metadata kept, outputs dropped."""
    makers = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell,
              "raw": nbformat.v4.new_raw_cell}
    clean = nbformat.v4.new_notebook(metadata=dict(nb.get("metadata") or {}))
    for cell in nb.get("cells") or []:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        metadata = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        clean.cells.append(makers.get(cell.get("cell_type"), nbformat.v4.new_raw_cell)(source, metadata=metadata))
    nbformat.validate(clean)
    return clean


def normalise(path: Path, targets: list[Target], student: str, hint: str | None, named: bool = True):
    """(notebook to grade, Collected) for one submitted file."""
    relative_name = path.name
    result = Collected(student, None, None, str(path))
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nb = sanitised(nbformat.reads(text, as_version=4))
    except Exception as exc:  # noqa: BLE001 (any parse failure is the student's broken file)
        target = match_target(nbformat.v4.new_notebook(), relative_name, targets, hint) or \
            (targets[0] if len(targets) == 1 else None)
        if target is None:
            result.problems.append(f"not a readable notebook ({type(exc).__name__}) and no assignment recognised")
            return None, result
        result.assignment, result.notebook = target.assignment, target.notebook
        result.problems.append(f"not a valid notebook ({type(exc).__name__}: {str(exc).splitlines()[0][:160]}); "
                               "graded as an empty submission")
        return nbformat.read(target.path, as_version=4), result
    target = match_target(nb, relative_name, targets, hint)
    if target is None:
        result.problems.append("no assignment notebook recognised in this file; not graded")
        return None, result
    result.assignment, result.notebook = target.assignment, target.notebook
    if named and path.stem != target.notebook:
        result.problems.append(f"file named {path.name!r}; graded as {target.notebook}.ipynb")
    repair(nb, target, result.problems)
    inspect(nb, target, result.problems, result.flags)
    return nb, result


def _notebook_files(folder: Path):
    for path in sorted(folder.rglob("*.ipynb")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") or part == "__MACOSX" for part in relative.parts):
            continue
        yield path, relative


def _extract(archive_path: Path, into: Path) -> Path:
    """Unpack a zip safely (no absolute paths, no `..`)."""
    into.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive_path) as archive:
        for member in archive.infolist():
            name = Path(member.filename)
            if member.is_dir() or name.is_absolute() or ".." in name.parts:
                continue
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, length=2**20)
    return into


def collect(source: Path, submitted_dir: Path, release_dir: Path, assignment: str | None = None) -> list[Collected]:
    """Copy (and repair) every notebook of `source` (folder or zip, zips inside included) into `submitted_dir`."""
    source = Path(source)
    with tempfile.TemporaryDirectory() as tmp:
        roots = [_extract(source, Path(tmp) / "0")] if source.is_file() else [source]
        if source.is_dir():
            for number, archive in enumerate(sorted(source.rglob("*.zip")), 1):
                if zipfile.is_zipfile(archive):
                    roots.append(_extract(archive, Path(tmp) / str(number)))
        files = [item for root in roots for item in _notebook_files(root)]
        targets = release_targets(release_dir, [assignment] if assignment else None)
        results, chosen = [], {}
        for path, relative in files:
            parts = relative.parts
            nbgrader_layout = len(parts) == 3 and any(parts[1] == t.assignment for t in targets)
            student = _slug(parts[0]) if nbgrader_layout else student_id(relative)
            hint = parts[1] if nbgrader_layout else assignment
            nb, record = normalise(path, targets, student, hint, named=len(parts) > 1)
            results.append(record)
            if nb is None:
                continue
            key = (student, record.assignment, record.notebook)
            if key in chosen:  # two files for one notebook: keep the one with the expected name
                other_nb, other = chosen[key]
                if other.origin.endswith(f"/{record.notebook}.ipynb") or not path.name == f"{record.notebook}.ipynb":
                    record.problems.append(f"another file ({Path(other.origin).name}) was graded instead")
                    continue
                other.problems.append(f"another file ({path.name}) was graded instead")
            chosen[key] = (nb, record)
        for (student, assignment_id, notebook), (nb, record) in chosen.items():
            out = Path(submitted_dir) / student / assignment_id / f"{notebook}.ipynb"
            out.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, out)
    return results
