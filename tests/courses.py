"""Grading workspaces of the current sources for the tests, built once per run of the suite.

``pipeline.build`` (12 nbgrader commands: 20 s on an idle 2-core machine, 2 min on a busy one) used to run
in each test file that needs a built course. ``built_course`` builds one template workspace per run of
the suite, in the folder that the run's pytest-xdist workers share (the first worker that asks builds
it, the others wait on a lock), and gives each caller a copy of it: the release, the solutions and the
gradebook's entries, exactly what ``pipeline.build`` makes, with the caller's own configuration.
"""
import fcntl
import os
import shutil
from pathlib import Path

from autograder import pipeline


def _shared_folder(tmp_path_factory) -> Path:
    """This run's temporary folder, the same for every worker (a worker's own is a folder inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_course(tmp_path_factory, folder, extra_config: str = "") -> pipeline.Course:
    """A built grading workspace at `folder` (``Course.workspace(folder, extra_config)`` and
    ``pipeline.build``), copied from this run's template."""
    shared = _shared_folder(tmp_path_factory) / "built-course"
    shared.mkdir(exist_ok=True)
    template, done = shared / "ws", shared / "done"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(template, ignore_errors=True)  # a build that failed half way
            pipeline.build(pipeline.Course.workspace(template))
            done.touch()
    folder = Path(folder)
    shutil.copytree(template, folder, symlinks=True, dirs_exist_ok=True)  # source/ stays a link to assignments/
    (folder / "nbgrader_config.py").unlink()  # names the template's folder: written again for this one
    return pipeline.Course.workspace(folder, extra_config=extra_config)
