"""Put a submission's nbgrader cells back as the gradebook knows them, before nbgrader looks.

nbgrader trusts the metadata of the submitted notebook more than it should: a locked test cell
marked ``solution: true`` or ``grade: false``, a graded cell the gradebook does not know, or a
cell whose type was changed make ``nbgrader autograde`` raise, and the student loses every point
with no reason given. ``RestoreCells`` runs first among ``Autograde.sanitize_preprocessors``:

- a cell with a known ``grade_id`` (its first occurrence) gets every nbgrader field from the
  gradebook: grade, solution, locked, task, points, checksum, cell type (the cell is converted
  when its type changed); a locked cell left as released gets the gradebook's source (a test
  cell's hidden tests back). nbgrader's ``OverwriteCells`` would restore it too, but it compares
  checksums with the gradebook's copy, which has the hidden tests the release lacks, and warned
  "Attribute 'checksum' ... has changed!" for every untouched test cell. It still restores, and
  warns about, a locked cell the student edited;
- nbgrader metadata that names no known cell, a second cell with the same ``grade_id``, or
  metadata that is not even a mapping is removed: the cell stays, as a plain cell;
- a known cell missing from the submission is put back (release source) where it belonged, after
  the nearest earlier known cell; so ``OverwriteCells.add_missing_cells`` stays off (its own
  insertion raises when two neighbouring cells are missing).

What was changed is written to ``<report_directory>/<assignment>/<student>/<notebook>.restore.json``
(``{"problems": [...]}``), which the grade table shows among the problems of the submission.
"""
import json
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Unicode

ROLES = ("grade", "solution", "locked", "task")


class RestoreCells(NbGraderPreprocessor):
    """First sanitising step of ``nbgrader autograde`` (see the module docstring)."""

    report_directory = Unicode("", help="where <notebook>.restore.json reports go ('' = none)").tag(config=True)
    release_directory = Unicode("", help="the course's release folder: gives the order of the cells "
                                         "when one must be put back ('' = the gradebook's order)").tag(config=True)

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        known, order = self._known_cells(info["db_url"], info["assignment"], info["notebook"])
        released = self._released_sources(info["assignment"], info["notebook"])
        problems = restore(nb, known, list(released) or order, released)
        for problem in problems:
            self.log.warning("%s", problem)
        if self.report_directory:
            target = Path(self.report_directory) / str(info["assignment"]) / str(info["student"])
            target.mkdir(parents=True, exist_ok=True)
            (target / f"{info['notebook']}.restore.json").write_text(json.dumps({"problems": problems}, indent=1))
        return nb, resources

    @staticmethod
    def _known_cells(db_url: str, assignment: str, notebook: str) -> tuple[dict, list]:
        """{grade_id: (cell_type, source, nbgrader metadata)} from the gradebook, and their order there."""
        with Gradebook(db_url) as gradebook:
            try:
                source_nb = gradebook.find_notebook(notebook, assignment)
            except MissingEntry:
                raise RuntimeError(f"the gradebook has no notebook {notebook!r} in assignment {assignment!r}: "
                                   f"the submission's file name does not match the release") from None
            points = {cell.name: cell.max_score for cell in source_nb.grade_cells}
            solutions = {cell.name for cell in source_nb.solution_cells}
            tasks = {cell.name for cell in source_nb.task_cells}
            known = {}
            for cell in source_nb.source_cells:
                meta = {"grade": cell.name in points, "grade_id": cell.name, "locked": bool(cell.locked),
                        "schema_version": 3, "solution": cell.name in solutions, "task": cell.name in tasks,
                        "checksum": cell.checksum, "cell_type": cell.cell_type}
                if cell.name in points:
                    score = float(points[cell.name])
                    meta["points"] = int(score) if score.is_integer() else score
                known[cell.name] = (cell.cell_type, cell.source or "", meta)
        return known, list(known)

    def _released_sources(self, assignment: str, notebook: str) -> dict:
        """{grade_id: source} of the release notebook, in its order ({} when there is none)."""
        path = Path(self.release_directory) / assignment / f"{notebook}.ipynb"
        if not self.release_directory or not path.is_file():
            return {}
        try:
            release = nbformat.read(path, as_version=4)
        except Exception:  # an unreadable release: the gradebook's order, no edit check
            return {}
        return {c.metadata["nbgrader"]["grade_id"]: c.source for c in release.cells
                if isinstance(c.metadata.get("nbgrader"), dict) and "grade_id" in c.metadata["nbgrader"]}


def restore(nb, known: dict, order: list, released: dict | None = None) -> list[str]:
    """Make `nb`'s nbgrader cells exactly the `known` ones (in place); the changes, as sentences.

    known: {grade_id: (cell_type, source, nbgrader metadata)} from the gradebook (a test cell's
    source there holds its hidden tests); order: grade_ids in release order; released:
    {grade_id: source as students received it}, to tell an edited locked cell (optional).
    """
    problems, present, released = [], {}, released or {}
    keepers = _keepers(nb, known, released)
    for index, cell in enumerate(nb.cells):
        if "nbgrader" not in cell.metadata:
            continue
        raw = cell.metadata["nbgrader"]
        grade_id = raw.get("grade_id") if isinstance(raw, dict) else None
        if isinstance(grade_id, str) and keepers.get(grade_id) is cell:
            present[grade_id] = cell
            problems += _restore_known(cell, grade_id, *known[grade_id], released.get(grade_id))
            continue
        del cell.metadata["nbgrader"]
        if cell.get("cell_type") != "code":  # a copy turned to text keeps no code-cell fields (nbformat refuses them)
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
        label = f"cell {index + 1}" + (f" ({_short(grade_id)})" if isinstance(grade_id, str) else "")
        if not isinstance(raw, dict):
            problems.append(f"{label}: its nbgrader metadata was not a mapping; removed (graded as a plain cell)")
        elif isinstance(grade_id, str) and grade_id in keepers:
            problems.append(f"{label}: a second copy of an assignment cell; graded as a plain cell")
        elif isinstance(grade_id, str) or any(raw.get(role) for role in ROLES):
            problems.append(f"{label}: marked as an nbgrader cell the assignment does not have; "
                            f"graded as a plain cell")
    missing = [name for name in order if name in known and name not in present]
    for name in missing:
        position = _insert_position(nb, present, order, name)
        cell_type, source, meta = known[name]
        cell = _new_cell(nb, cell_type, source, meta)
        nb.cells.insert(position, cell)
        present[name] = cell
        problems.append(f"cell {name!r} was missing; put back from the release"
                        + ("" if meta["locked"] and not meta["solution"] else " (unanswered)"))
    return problems


def _keepers(nb, known: dict, released: dict) -> dict:
    """{grade_id: the cell graded as it}: of several copies, the first whose source is the
    release's (a locked cell copied and edited elsewhere), else the first."""
    copies = {}
    for cell in nb.cells:
        if not isinstance(cell.get("metadata"), dict):
            cell["metadata"] = nbformat.NotebookNode()
        raw = cell.metadata.get("nbgrader")
        grade_id = raw.get("grade_id") if isinstance(raw, dict) else None
        if isinstance(grade_id, str) and grade_id in known:
            copies.setdefault(grade_id, []).append(cell)
    return {grade_id: next((c for c in cells if c.get("source") == released.get(grade_id, known[grade_id][1])),
                           cells[0])
            for grade_id, cells in copies.items()}


def _restore_known(cell, grade_id: str, cell_type: str, source: str, meta: dict, released: str | None) -> list[str]:
    problems = []
    old = cell.metadata["nbgrader"]
    changed = [field for field in ("grade", "solution", "locked", "task", "points")
               if field in meta and old.get(field) != meta[field] or field not in meta and old.get(field)]
    if changed:
        problems.append(f"cell {grade_id!r}: nbgrader metadata ({', '.join(changed)}) was changed; "
                        f"restored from the release")
    if cell.cell_type != cell_type:
        problems.append(f"cell {grade_id!r} was changed from {cell_type} to {_short(cell.cell_type)}; "
                        f"converted back")
        _convert(cell, cell_type)
    cell.metadata["nbgrader"] = nbformat.NotebookNode(dict(meta))
    if meta["locked"] and not meta["solution"] and released is not None:
        if cell.source == released:
            cell.source = source
        else:
            problems.append(f"locked cell {grade_id} was edited (the grader uses the original)")
    return problems


def _convert(cell, cell_type: str) -> None:
    for key in ("outputs", "execution_count", "attachments"):
        cell.pop(key, None)
    cell["cell_type"] = cell_type
    if cell_type == "code":
        cell["outputs"], cell["execution_count"] = [], None


def _new_cell(nb, cell_type: str, source: str, meta: dict):
    maker = nbformat.v4.new_code_cell if cell_type == "code" else nbformat.v4.new_markdown_cell
    cell = maker(source, metadata={"nbgrader": dict(meta)})
    if (nb.get("nbformat"), nb.get("nbformat_minor", 0)) < (4, 5):
        cell.pop("id", None)
    return cell


def _insert_position(nb, present: dict, order: list, name: str) -> int:
    """Just after the nearest earlier known cell that is in the notebook, else before the
    nearest later one, else at the end."""
    at = order.index(name)
    for earlier in reversed(order[:at]):
        if earlier in present:
            return _index_of(nb, present[earlier]) + 1
    for later in order[at + 1:]:
        if later in present:
            return _index_of(nb, present[later])
    return len(nb.cells)


def _index_of(nb, cell) -> int:
    return next(i for i, c in enumerate(nb.cells) if c is cell)


def _short(value, limit: int = 60) -> str:
    text = str(value)
    return repr(text if len(text) <= limit else text[:limit] + "...")
