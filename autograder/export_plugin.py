"""``nbgrader export`` writes the pack's grades CSV (``pipeline.write_grades_csv``), not nbgrader's thin one.

``nbgrader_config.py`` sets ``ExportApp.plugin_class`` to ``RichCsvExport``: one row per student
and notebook with status, scores, problems, flags, the isolation used, and a score and a reason
per graded cell; every text field made safe for spreadsheets and terminals. nbgrader's options
work as documented: ``--to FILE`` (default ``grades.csv``), ``--assignment``, ``--student``.
"""
from nbgrader.plugins import ExportPlugin

from . import pipeline


class RichCsvExport(ExportPlugin):

    def export(self, gradebook) -> None:
        app = self.parent
        course = pipeline.Course.from_coursedir(app.coursedir, app.config.SandboxExecute.report_directory)
        dest = self.to or "grades.csv"
        path = pipeline.write_grades_csv(course, dest, assignments=[str(a) for a in self.assignment] or None,
                               students=[str(s) for s in self.student] or None)
        self.log.info("Exported grades to %s", path)
