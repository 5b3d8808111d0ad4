"""The reference solution, read from the source notebooks (the one source of truth).

The reference namespace of a notebook is what you get by executing, in order, its code
cells that are nbgrader solution cells or carry the cell tag ``provided`` (definitions
only: demos, plots and training loops are left out). Solution markers are stripped, so
the code is exactly what the solution notebook shows students after the deadline.
"""
from functools import lru_cache
from pathlib import Path

from azcourse.notebook_code import definition_cells as reference_cells  # noqa: F401 (used by build, tests)
from azcourse.notebook_code import notebook_namespace, strip_solution_markers  # noqa: F401

REPO_ROOT = Path(__file__).resolve().parent.parent
SOURCE_DIR = REPO_ROOT / "assignments"


@lru_cache(maxsize=None)
def reference_namespace(assignment: str, notebook: str) -> dict:
    """Execute the reference cells of ``assignments/<assignment>/<notebook>.ipynb`` once.

    Returns:
        The module-like dict of everything those cells define (functions, classes, constants).
    """
    return notebook_namespace(SOURCE_DIR / assignment / f"{notebook}.ipynb", f"reference_{notebook}")


def ttt1() -> dict:
    """Reference namespace of part 1 (game rules and MCTS)."""
    return reference_namespace("ttt1_mcts", "ttt1_mcts")


def ttt2() -> dict:
    """Reference namespace of part 2 (self-play, training, evaluation)."""
    return reference_namespace("ttt2_selfplay", "ttt2_selfplay")
