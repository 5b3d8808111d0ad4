"""Grading workspaces of the current sources for the tests, built and graded once per run of the suite.

``pipeline.build`` (12 nbgrader commands: 20 s on an idle 2-core machine, 2 min on a busy one) and the
grading of the e2e corpus (70 submissions, two sandboxed kernels each: most of the suite's grading) used
to run in each test file that needed them. Each is now made once per run of the suite, as a template in
the folder that the run's pytest-xdist workers share (the first worker that asks makes it, the others
wait on a lock), and each caller gets its own copy:

- ``built_course``: the release, the solutions and the gradebook's entries, exactly what
  ``pipeline.build`` makes, with the caller's own configuration;
- ``graded_corpus``: that course with every submission of the corpus (``autograder/corpus.py``, every
  assignment's cases, plus the class report's realistic slips) collected, autograded in the sandbox and
  given feedback, as ``tests/test_autograder_e2e.py`` checks it and ``tests/test_class_report.py`` reads it.

The templates live in this run's temporary folder, so every run grades the sources as they are now.
"""
import fcntl
import json
import os
import shutil
import time
from pathlib import Path

from autograder import corpus, grading_config, pipeline, sandbox
from autograder.assignments.ttt1_mcts import examples as ttt1_examples
from synthetic_class import mistake_cases

CELL_TIMEOUT = 20  # the corpus's infinite loop costs this much
# Part 4's JAX test cells may compile for longer than that on busy cores: they keep the grader's own
# budgets (the grade_id test_train_step is part 2's too), and the compile bomb meets policy_loss's.
SLOW_CELLS = {"test_policy_loss": grading_config.CELL_TIMEOUTS["test_policy_loss"],
              "test_train_step": grading_config.CELL_TIMEOUT}
GRADED_CONFIG = (f"c.SandboxExecute.timeout = {CELL_TIMEOUT}\n"
                 f"c.SandboxExecute.cell_timeouts.update({SLOW_CELLS!r})\n")
FACTS = "graded-corpus.json"


def _shared_folder(tmp_path_factory) -> Path:
    """This run's temporary folder, the same for every worker (a worker's own is a folder inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _template(tmp_path_factory, name: str, make) -> Path:
    """The folder `make(folder)` fills, made by the first caller of this run; the others wait for it."""
    shared = _shared_folder(tmp_path_factory) / name
    shared.mkdir(exist_ok=True)
    template, done = shared / "ws", shared / "done"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(template, ignore_errors=True)  # a run that failed half way
            make(template)
            done.touch()
    return template


def _copy(template: Path, folder, extra_config: str) -> pipeline.Course:
    folder = Path(folder)
    shutil.copytree(template, folder, symlinks=True, dirs_exist_ok=True)  # source/ stays a link to assignments/
    (folder / "nbgrader_config.py").unlink()  # names the template's folder: written again for this one
    return pipeline.Course.workspace(folder, extra_config=extra_config)


def built_course(tmp_path_factory, folder, extra_config: str = "") -> pipeline.Course:
    """A built grading workspace at `folder` (``Course.workspace(folder, extra_config)`` and
    ``pipeline.build``), copied from this run's template."""
    template = _template(tmp_path_factory, "built-course", lambda ws: pipeline.build(pipeline.Course.workspace(ws)))
    return _copy(template, folder, extra_config)


def corpus_cases() -> list[corpus.Case]:
    """The graded corpus's submissions: every assignment's cases, then the class report's slips."""
    return corpus.all_cases() + mistake_cases()


def _grade(tmp_path_factory, workspace: Path) -> None:
    course = built_course(tmp_path_factory, workspace, extra_config=GRADED_CONFIG)
    corpus.write_submissions(workspace / "incoming", corpus_cases(), course)
    collected = pipeline.collect(course, workspace / "incoming")
    # Written straight into submitted/, as with plain nbgrader (no collect to repair anything first).
    raw = workspace / "submitted" / "raw_metadata" / "ttt1_mcts" / "ttt1_mcts.ipynb"
    raw.parent.mkdir(parents=True)
    raw.write_text(json.dumps(ttt1_examples.tampered_metadata(course)))
    broken = workspace / "submitted" / "broken_json" / "ttt1_mcts" / "ttt1_mcts.ipynb"
    broken.parent.mkdir(parents=True)
    broken.write_text('{"cells": [')
    started = time.monotonic()
    sandbox.warm_jax_cache()  # as the first JAX submission would (built once per version of the sources)
    print(f"\nJAX compilation cache ready after {time.monotonic() - started:.0f} s")
    started = time.monotonic()
    results = pipeline.autograde(course, jobs=os.cpu_count())
    seconds = time.monotonic() - started
    print(f"\ngraded {len(results)} submissions in {seconds:.0f} s ({seconds / len(results):.1f} s each)")
    pipeline.feedback(course)
    (workspace / FACTS).write_text(json.dumps({"collected": collected,
                                               "results": [[*pair, result] for pair, result in results.items()]}))


def graded_corpus(tmp_path_factory, folder) -> tuple[pipeline.Course, dict]:
    """The corpus graded (``corpus_cases()``, a submission whose metadata crashes nbgrader and one that is
    not JSON, both written straight into submitted/; sandboxed autograde with ``GRADED_CONFIG``; feedback),
    copied to `folder`. Returns the course and ``{"collected": collect's records, "results":
    {(assignment, student): autograde's result}}``."""
    template = _template(tmp_path_factory, "graded-corpus", lambda ws: _grade(tmp_path_factory, ws))
    course = _copy(template, folder, GRADED_CONFIG)
    facts = json.loads((Path(folder) / FACTS).read_text())
    return course, {"collected": facts["collected"],
                    "results": {(assignment, student): result for assignment, student, result in facts["results"]}}
