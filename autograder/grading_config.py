"""The grading half of the nbgrader configuration: sandboxed execution, trusted verdicts,
feedback without hidden tests, a gradebook that parallel graders can share.

``autograder/nbgrader_config.py`` (the course) calls ``configure_grading(c)``; a separate
grading workspace (``python -m autograder --workspace DIR ...``, used by the tests and the
benchmark) gets a generated ``nbgrader_config.py`` that calls ``configure_workspace(c, DIR)``.
"""
from pathlib import Path

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearHiddenTests, ClearOutput,
                                    DeduplicateIds, GetGrades, IgnorePattern, LimitOutput, OverwriteCells,
                                    OverwriteKernelspec, SaveAutoGrades)

from .restore_cells import RestoreCells
from .sandbox import SandboxExecute

REPO_ROOT = Path(__file__).resolve().parent.parent
COURSE_ID = "azcourse"
# SQLite waits this long (s) for a lock instead of failing when parallel graders write at once.
SQLITE_BUSY_TIMEOUT = 300
# Seconds per cell (a student's cell or a test cell); heavy cells are locked instructor cells
# that run a tiny budget when NBGRADER_EXECUTION is set.
CELL_TIMEOUT = 120
NOTEBOOK_TIMEOUT = 1200


def sqlite_url(path) -> str:
    return f"sqlite:///{Path(path).resolve()}?timeout={SQLITE_BUSY_TIMEOUT}"


def configure_grading(c, report_directory, release_directory) -> None:
    """Execution, verdicts and feedback settings (paths are set by the caller)."""
    if "timeout" not in c.Execute:
        c.Execute.timeout = CELL_TIMEOUT
    c.SandboxExecute.timeout = c.Execute.timeout
    c.SandboxExecute.notebook_timeout = NOTEBOOK_TIMEOUT
    # Locked heavy cells (training, evaluation) run a small budget under NBGRADER_EXECUTION;
    # they get more room than a student's cell all the same.
    c.SandboxExecute.cell_timeouts = {"alphazero_loop": 300, "direct_training": 300, "evaluation": 300}
    c.SandboxExecute.kernel_name = "python3"
    c.SandboxExecute.report_directory = str(report_directory)
    c.Autograde.autograde_preprocessors = [SandboxExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
                                           SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]
    # Submitted nbgrader metadata is restored from the gradebook before nbgrader reads it (a
    # tampered or stripped cell would make nbgrader raise); RestoreCells puts missing cells back.
    c.Autograde.sanitize_preprocessors = [RestoreCells, ClearOutput, DeduplicateIds, OverwriteKernelspec,
                                          OverwriteCells, CheckCellMetadata]
    c.RestoreCells.report_directory = str(report_directory)
    c.RestoreCells.release_directory = str(release_directory)
    c.OverwriteCells.add_missing_cells = False
    # Feedback shows each test cell's verdict but never its hidden-test lines.
    c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
    c.ClearHiddenTests.enforce_metadata = False


def configure_workspace(c, workspace, source=REPO_ROOT / "assignments") -> None:
    """A self-contained grading workspace: its own gradebook, submissions, reports.

    ``workspace/source`` is a link to the course's ``assignments/``; ``generate_assignment`` run
    there fills the workspace's gradebook (its ``release/`` copy is never distributed).
    """
    workspace = Path(workspace).resolve()
    c.CourseDirectory.root = str(workspace)
    c.CourseDirectory.course_id = COURSE_ID
    c.CourseDirectory.source_directory = "source"
    c.CourseDirectory.release_directory = "release"
    c.CourseDirectory.submitted_directory = "submitted"
    c.CourseDirectory.autograded_directory = "autograded"
    c.CourseDirectory.feedback_directory = "feedback"
    c.CourseDirectory.solution_directory = "solutions"
    c.CourseDirectory.db_url = sqlite_url(workspace / "gradebook.db")
    c.CourseDirectory.include = ["*.ipynb"]
    c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
    configure_grading(c, workspace / "reports", workspace / "release")
