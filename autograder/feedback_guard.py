"""Feedback never shows a student a hidden-test, judge or solution line they did not write.

``WithholdLeakingFeedback`` runs in ``nbgrader generate_feedback``, whoever starts it: the plain
command, the formgrader's button or ``python -m autograder feedback``. It is nbgrader's
``ClearHiddenTests``, then a check: it compares the notebook about to become feedback with the
secret lines of the source notebooks and the judges (``leaks.feedback_secrets``); the student's
own submitted lines are theirs and never count. When a secret line is left, it raises: nbgrader
then writes no feedback for that student's assignment, delivers everyone else's and exits with an
error (``python -m autograder feedback`` says so in that student's row and exits 0: the guard did its
job). Each notebook's outcome goes to
``<report_directory>/<assignment>/<student>/<notebook>.feedback.json`` (``{"problems": [...]}``),
which the grade table and the export show.
"""
import json
from pathlib import Path

from nbgrader.preprocessors import ClearHiddenTests
from traitlets import List, Unicode

from . import leaks


class FeedbackWithheld(RuntimeError):
    """This student's feedback would show a secret line: nbgrader must not write it."""


class WithholdLeakingFeedback(ClearHiddenTests):
    # The HTML exporter configures NbConvertBase.display_data_priority (its filters read it), and
    # nbgrader's preprocessors redeclare that trait unconfigurable: each of them then warned "Config
    # option `display_data_priority` not recognized" (nbgrader's GetGrades declares it as here).
    display_data_priority = List().tag(config=True)
    source_directory = Unicode("", help="the course's source notebooks (with solutions and hidden tests)").tag(
        config=True)
    submitted_directory = Unicode("", help="the submissions: <student>/<assignment>/<notebook>.ipynb").tag(config=True)
    report_directory = Unicode("", help="where <notebook>.feedback.json reports go ('' = none)").tag(config=True)

    _secrets = None  # computed once per nbgrader run

    def preprocess(self, nb, resources):
        nb, resources = super().preprocess(nb, resources)
        info = resources["nbgrader"]
        assignment, student, notebook = str(info["assignment"]), str(info["student"]), str(info["notebook"])
        if self._secrets is None:
            self._secrets = leaks.feedback_secrets(self.source_directory)
        submitted = Path(self.submitted_directory) / student / assignment / f"{notebook}.ipynb"
        own = leaks.notebook_lines(submitted) if submitted.is_file() else set()
        own |= leaks.copied_lines(self.source_directory, assignment)  # given to everyone in this assignment
        found = leaks.secrets_shown(leaks.cell_lines(nb), own, self._secrets)
        problems = [leaks.withheld_reason(found)] if found else []
        if self.report_directory:
            target = Path(self.report_directory) / assignment / student
            target.mkdir(parents=True, exist_ok=True)
            (target / f"{notebook}.feedback.json").write_text(json.dumps({"problems": problems}, indent=1))
        if found:
            raise FeedbackWithheld(f"{student}/{assignment}/{notebook}: {problems[0]}")
        return nb, resources
