"""nbgrader configuration of the course. The repository root is nbgrader's course root: run
nbgrader's commands here, as nbgrader's documentation does, or start JupyterLab here for the
formgrader::

    nbgrader generate_assignment ttt1_mcts     # release/ttt1_mcts/ (and the gradebook entries)
    nbgrader generate_solution ttt1_mcts       # solutions/ttt1_mcts/ (no hidden tests)
    nbgrader autograde ttt1_mcts               # submitted/ -> autograded/, in sandboxed kernels
    nbgrader generate_feedback ttt1_mcts       # feedback/ (no hidden-test, judge or solution line)
    nbgrader export                            # grades.csv, the pack's rich CSV

``python -m autograder ...`` runs these same commands (with collecting from an LMS, parallel
grading and the grade table around them); docs/autograder.md explains the grading.
"""
import sys
from pathlib import Path

COURSE_ROOT = Path(__file__).resolve().parent
if str(COURSE_ROOT) not in sys.path:  # the plain `nbgrader` script does not put the course on the path
    sys.path.insert(0, str(COURSE_ROOT))

from autograder.grading_config import (CELL_TIMEOUT, COURSE_ID, configure_generation,  # noqa: E402
                                       configure_grading, sqlite_url)

c = get_config()  # noqa: F821 (injected by traitlets when the file is loaded)

c.CourseDirectory.root = str(COURSE_ROOT)
c.CourseDirectory.course_id = COURSE_ID
c.CourseDirectory.source_directory = "assignments"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.solution_directory = "solutions"
c.CourseDirectory.submitted_directory = "submitted"      # nbgrader's defaults (all git-ignored)
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
# SQLite with a busy timeout, so that parallel graders share the gradebook.
c.CourseDirectory.db_url = sqlite_url(COURSE_ROOT / "gradebook.db")
# Only notebooks travel with an assignment; nothing else in assignments/<name>/ is released.
c.CourseDirectory.include = ["*.ipynb"]

# Execution: one kernel, a wall-clock limit per cell (heavy cells run a tiny budget when
# NBGRADER_EXECUTION is set), kernel name pinned.
c.Execute.timeout = CELL_TIMEOUT
c.Execute.kernel_name = "python3"
c.Execute.interrupt_on_timeout = True

# Release and solutions exactly as `python -m autograder build` writes them; grading in sandboxed
# kernels judged outside them, submitted metadata restored from the gradebook, feedback withheld
# when it would show a secret, the rich CSV from `nbgrader export`, reports per submission.
configure_generation(c)
configure_grading(c, report_directory=COURSE_ROOT / "autograder" / "reports",
                  release_directory=COURSE_ROOT / "release", source_directory=COURSE_ROOT / "assignments",
                  submitted_directory=COURSE_ROOT / "submitted", exchange_directory=COURSE_ROOT / "exchange")
