"""``nbgrader export`` writes the pack's grades CSV (``pipeline.write_grades_csv``), not nbgrader's thin one.

``nbgrader_config.py`` sets ``ExportApp.plugin_class`` to ``RichCsvExport``: one row per student
and notebook with status, scores, problems, flags, the isolation used, and a score and a reason
per graded cell; every text field made safe for spreadsheets and terminals. nbgrader's options
work as documented: ``--to FILE`` (default ``grades.csv``), ``--assignment``, ``--student``.
"""
from pathlib import Path

from nbgrader.plugins import ExportPlugin
from traitlets import Unicode

from . import pipeline


class RichCsvExport(ExportPlugin):
    report_directory = Unicode("", help="the pack's per-submission reports ('' = <course root>/autograder/reports)"
                               ).tag(config=True)

    def export(self, gradebook) -> None:
        app = self.parent
        reports = self.report_directory or Path(app.coursedir.root) / "autograder" / "reports"
        course = pipeline.Course.from_coursedir(app.coursedir, reports)
        dest = self.to or "grades.csv"
        path = pipeline.write_grades_csv(course, dest, assignments=[str(a) for a in self.assignment] or None,
                               students=[str(s) for s in self.student] or None)
        self.log.info("Exported grades to %s", path)
