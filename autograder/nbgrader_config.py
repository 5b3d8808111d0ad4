"""nbgrader configuration of the course pack.

nbgrader reads this file when it is started with ``autograder/`` as its working directory,
which is what ``python -m autograder.build`` does; every path below is absolute, so the
result does not depend on where the instructor's shell is.
"""
from pathlib import Path

c = get_config()  # noqa: F821 (injected by traitlets when the file is loaded)

COURSE_ROOT = Path(__file__).resolve().parent.parent
GRADER_DIR = COURSE_ROOT / "autograder"

c.CourseDirectory.root = str(COURSE_ROOT)
c.CourseDirectory.course_id = "azcourse"
c.CourseDirectory.source_directory = "assignments"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.solution_directory = "solutions"
c.CourseDirectory.submitted_directory = "autograder/submitted"
c.CourseDirectory.autograded_directory = "autograder/autograded"
c.CourseDirectory.feedback_directory = "autograder/feedback"
c.CourseDirectory.db_url = f"sqlite:///{GRADER_DIR / 'gradebook.db'}"
# Only notebooks travel with an assignment; nothing else in assignments/<name>/ is released.
c.CourseDirectory.include = ["*.ipynb"]

# Execution: one kernel, a wall-clock limit per cell (heavy cells run a tiny budget when
# NBGRADER_EXECUTION is set, so 120 s is generous), kernel name pinned.
c.Execute.timeout = 120
c.Execute.kernel_name = "python3"
c.Execute.interrupt_on_timeout = True

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Grading (docs/autograder.md): student code runs in a sandboxed kernel where hidden tests only
# probe; the verdicts are decided by the grader; submitted cell metadata (and deleted test cells)
# restored from the gradebook; feedback without hidden tests; reports per
# submission; a SQLite busy timeout so that parallel graders share the gradebook.
from autograder.grading_config import configure_grading, sqlite_url  # noqa: E402

c.CourseDirectory.db_url = sqlite_url(GRADER_DIR / "gradebook.db")
configure_grading(c, GRADER_DIR / "reports", COURSE_ROOT / "release")
