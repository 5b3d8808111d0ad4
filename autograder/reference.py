"""The reference solution, read from the source notebooks (the one source of truth).

The reference namespace of a notebook is what you get by executing, in order, its code
cells that are nbgrader solution cells or carry the cell tag ``provided`` (definitions
only: demos, plots and training loops are left out). Solution markers are stripped, so
the code is exactly what the solution notebook shows students after the deadline.
"""
import contextlib
import io
import json
import warnings
from functools import lru_cache
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SOURCE_DIR = REPO_ROOT / "assignments"
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def strip_solution_markers(source: str) -> str:
    """Drop the nbgrader solution marker lines, keeping the solution itself."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in SOLUTION_MARKERS)


def reference_cells(notebook_path: Path) -> list[str]:
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


@lru_cache(maxsize=None)
def reference_namespace(assignment: str, notebook: str) -> dict:
    """Execute the reference cells of ``assignments/<assignment>/<notebook>.ipynb`` once.

    Returns:
        The module-like dict of everything those cells define (functions, classes, constants).
    """
    path = SOURCE_DIR / assignment / f"{notebook}.ipynb"
    namespace = {"__name__": f"reference_{notebook}"}
    code = compile("\n\n".join(reference_cells(path)), str(path), "exec")
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, namespace)
    return namespace


def ttt1() -> dict:
    """Reference namespace of part 1 (game rules and MCTS)."""
    return reference_namespace("ttt1_mcts", "ttt1_mcts")


def ttt2() -> dict:
    """Reference namespace of part 2 (self-play, training, evaluation)."""
    return reference_namespace("ttt2_selfplay", "ttt2_selfplay")
