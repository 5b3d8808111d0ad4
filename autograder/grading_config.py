"""The pack's part of the nbgrader configuration: generated release and solutions, sandboxed
execution, trusted verdicts, late penalties from the course's deadlines.toml, feedback without
secrets, the rich CSV export, a gradebook that parallel graders can share.

The course's ``nbgrader_config.py`` (at the repository root, nbgrader's course root) calls
``configure_generation(c)`` and ``configure_grading(c, ...)``; a separate grading workspace
(``python -m autograder --workspace DIR ...``, used by the tests and the benchmark) gets a
generated ``nbgrader_config.py`` that calls ``configure_workspace(c, DIR)``.
"""
import warnings
from pathlib import Path

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (CheckCellMetadata, ClearHiddenTests, ClearMarkScheme,
                                    ClearOutput, ClearSolutions, ComputeChecksums, DeduplicateIds, GetGrades,
                                    IgnorePattern, IncludeHeaderFooter, InstantiateTests, LimitOutput, LockCells,
                                    OverwriteCells, OverwriteKernelspec, SaveAutoGrades, SaveCells)
from sqlalchemy.exc import SAWarning

from .alt_text import DescribeFigures
from .feedback_guard import WithholdLeakingFeedback
from .generation import AddSolutionHeader, AddStudentHeader, StripSolutionMarkers, SyncProvidedCells
from .late_work import ApplyLatePolicy, ShowLateWork
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
# Per grade_id. Locked heavy cells (training, evaluation) run a small budget under NBGRADER_EXECUTION;
# they get more room than a student's cell all the same (part 2's loops and matches, part 4's
# on-policy training, which runs the student's search and train_step). Part 4's policy_loss test
# compiles the student's loss for eight shapes (3-14 s on a busy machine, 2-4 s with the JAX cache):
# 60 s bounds what a loss that makes XLA compile something huge costs (a "compile bomb"; part 4's
# training cell runs only once train_step, and so policy_loss, passed its visible test). Part 6's
# alphazero_loss test compiles the student's loss likewise and gets the same bound.
CELL_TIMEOUTS = {"alphazero_loop": 300, "direct_training": 300, "evaluation": 300, "training": 300,
                 "test_policy_loss": 60, "test_alphazero_loss": 60}


def sqlite_url(path) -> str:
    return f"sqlite:///{Path(path).resolve()}?timeout={SQLITE_BUSY_TIMEOUT}"


def configure_generation(c) -> None:
    """``generate_assignment`` and ``generate_solution`` write what ``python -m autograder build``
    distributes (``autograder.generation``): copied cells synced, header cells; solutions with
    the hidden tests and outputs removed, never executed."""
    c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
    c.GenerateAssignment.preprocessors = [  # nbgrader's own steps, between the pack's first and last
        SyncProvidedCells, IncludeHeaderFooter, InstantiateTests, LockCells, ClearSolutions, ClearOutput,
        CheckCellMetadata, ComputeChecksums, SaveCells, ClearHiddenTests, ClearMarkScheme, ComputeChecksums,
        CheckCellMetadata, AddStudentHeader]
    c.GenerateSolution.preprocessors = [SyncProvidedCells, ClearHiddenTests, ClearMarkScheme, ClearOutput,
                                        StripSolutionMarkers, AddSolutionHeader]
    c.ClearHiddenTests.enforce_metadata = False


def configure_grading(c, report_directory, release_directory, source_directory, submitted_directory,
                      exchange_directory) -> None:
    """Execution, verdicts, feedback and export settings (the course's paths are set by the caller)."""
    if "timeout" not in c.Execute:
        c.Execute.timeout = CELL_TIMEOUT
    c.SandboxExecute.timeout = c.Execute.timeout
    c.SandboxExecute.notebook_timeout = NOTEBOOK_TIMEOUT
    c.SandboxExecute.cell_timeouts = dict(CELL_TIMEOUTS)
    c.SandboxExecute.report_directory = str(report_directory)
    c.Autograde.autograde_preprocessors = [SandboxExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
                                           SaveAutoGrades, ApplyLatePolicy, CheckCellMetadata]
    # Late work (autograder.late_work): deadlines.toml in the course root (CourseDirectory.root) gives the
    # gradebook's due dates and extensions; nbgrader's AssignLatePenalties asks LatePolicyPlugin for the penalty.
    c.ApplyLatePolicy.submitted_directory = str(submitted_directory)
    c.ApplyLatePolicy.report_directory = str(report_directory)
    # Submitted nbgrader metadata is restored from the gradebook before nbgrader reads it (a
    # tampered or stripped cell would make nbgrader raise); RestoreCells puts missing cells back.
    c.Autograde.sanitize_preprocessors = [RestoreCells, ClearOutput, DeduplicateIds, OverwriteKernelspec,
                                          OverwriteCells, CheckCellMetadata]
    c.RestoreCells.report_directory = str(report_directory)
    c.RestoreCells.release_directory = str(release_directory)
    c.OverwriteCells.add_missing_cells = False
    # Feedback shows each test cell's verdict but never its hidden-test lines (the guard clears them, as
    # nbgrader's ClearHiddenTests); a notebook that would still show a secret line is withheld for that
    # student alone.
    c.GenerateFeedback.preprocessors = [GetGrades, ShowLateWork, WithholdLeakingFeedback, DescribeFigures,
                                        CSSHTMLHeaderPreprocessor]
    c.ShowLateWork.report_directory = str(report_directory)  # the submission time, lateness, rule, points taken
    c.WithholdLeakingFeedback.source_directory = str(source_directory)
    c.WithholdLeakingFeedback.submitted_directory = str(submitted_directory)
    c.WithholdLeakingFeedback.report_directory = str(report_directory)
    # `nbgrader export` writes the pack's CSV (per-cell scores and reasons, problems, flags).
    c.ExportApp.plugin_class = "autograder.export_plugin.RichCsvExport"
    c.RichCsvExport.report_directory = str(report_directory)
    # Submissions come from LMS downloads (`python -m autograder collect`), not nbgrader's exchange; a
    # folder of the course's own keeps the formgrader from warning on every page that the default
    # /usr/local/share/nbgrader/exchange does not exist.
    Path(exchange_directory).mkdir(parents=True, exist_ok=True)
    c.Exchange.root = str(exchange_directory)
    # nbgrader's Gradebook.add_submission builds a student's first submission under SQLAlchemy 2's
    # autoflush, which warns that the objects are not in the session yet; its own db.add() then adds
    # and commits them all, so the warning (printed by every first autograde) is noise.
    warnings.filterwarnings("ignore", r"Object of type <\w+> not in session, add operation along", SAWarning)


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
    configure_generation(c)
    configure_grading(c, workspace / "reports", workspace / "release", workspace / "source", workspace / "submitted",
                      workspace / "exchange")
