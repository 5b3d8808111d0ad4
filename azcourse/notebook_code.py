"""The code a notebook defines: its nbgrader solution cells and its cells tagged ``provided``.

Executing those cells in order (solution markers stripped) gives the notebook's functions and
classes without its demos, plots and training loops. The autograder builds its reference this way
from the source notebooks; terminal tic-tac-toe uses it to play with a notebook's own rules.
"""
import contextlib
import io
import json
import warnings
from pathlib import Path

SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def strip_solution_markers(source: str) -> str:
    """Drop the nbgrader solution marker lines, keeping the solution itself."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in SOLUTION_MARKERS)


def definition_cells(notebook_path: Path) -> list[str]:
    """Source of the solution and ``provided`` code cells of a notebook, markers stripped."""
    # Plain json instead of nbformat: importing nbformat costs seconds inside a grading kernel.
    notebook = json.loads(Path(notebook_path).read_text(encoding="utf-8"))
    sources = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        metadata = cell.get("metadata", {})
        if metadata.get("nbgrader", {}).get("solution", False) or "provided" in metadata.get("tags", []):
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            sources.append(strip_solution_markers(source))
    return sources


def notebook_namespace(notebook_path: Path, name: str = "notebook") -> dict:
    """Execute the definition cells of a notebook (output and warnings silenced).

    Returns:
        The module-like dict of everything those cells define.
    """
    namespace = {"__name__": name}
    code = compile("\n\n".join(definition_cells(notebook_path)), str(notebook_path), "exec")
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, namespace)
    return namespace
