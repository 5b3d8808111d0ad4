"""The report files of one assignment: ``<assignment>.json`` (the data) and ``<assignment>.html`` (the
same data as a self-contained page: pictures as data URIs, a print stylesheet, names behind a toggle),
rendered from ``templates/class_report.html.j2`` with Jinja2 (autoescaped).

Nothing secret reaches the page: a hidden-test, judge or solution line of the course
(``leaks.feedback_secrets``) in a reason, flag or problem, whole or quoted, is replaced by ``REDACTED``
before rendering (``Redactor``), and the written page goes through the same leak scan as feedback
(``leaks.secrets_shown``); a page that would still show one is not written (GraderError).
"""
import json
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from .. import leaks
from ..pipeline import GraderError
from . import figures

TEMPLATES = Path(__file__).resolve().parent / "templates"
REDACTED = "[a hidden-test, judge or solution line: not shown]"


class Redactor:
    """Removes secret lines from texts that a kernel or a judge wrote: a line that is a secret line
    (normalised as the leak scan does) becomes ``REDACTED``. A secret line (or its first 100
    characters) inside a longer line goes with the rest of the line after it, since what follows a
    quoted start is more of the same code (``raise AssertionError(`` ends a hidden test's line and
    starts a longer one); only the quote of a withheld-feedback reason (``...: '<line cut at 100>')``)
    keeps its closing text. A line where the secret is found only once spaces are normalised goes whole."""

    QUOTED = 100  # leaks.withheld_reason quotes this much of a line

    def __init__(self, secrets: set):
        self.secrets = secrets
        self.done = {}

    def __call__(self, text: str) -> str:
        return "\n".join(self.line(line) for line in str(text).splitlines())

    def line(self, line: str) -> str:
        if line not in self.done:
            self.done[line] = self._redacted(line)
        return self.done[line]

    def _redacted(self, line: str) -> str:
        normal = " ".join(line.split())
        if normal in self.secrets:
            return REDACTED
        for secret in self.secrets:
            for piece in (secret, secret[:self.QUOTED]):
                if piece in normal:
                    if piece not in line:
                        return REDACTED
                    line = _cut(line, piece)
                    normal = " ".join(line.split())
        return line


def _cut(line: str, piece: str) -> str:
    """``line`` with each occurrence of ``piece`` and the rest of the line after it replaced by ``REDACTED``,
    except where ``piece`` is closed by a quote and a parenthesis (``withheld_reason``'s ``{line!r})``)."""
    start = line.find(piece)
    while start >= 0:
        end = start + len(piece)
        if line[end:end + 2] not in ("')", '")'):
            return line[:start] + REDACTED
        line = line[:start] + REDACTED + line[end:]
        start = line.find(piece, start + len(REDACTED))
    return line


def redact_report(report: dict, redact: Redactor) -> None:
    """Redact, in place, every text of `report` that comes from a kernel, a judge or a student: reasons,
    flags, problems, withheld-feedback reasons, autograde errors and the similar answers' shared lines (a
    student's line that is a solution line is not shown either: the page may be shown to the class)."""
    for test in report["wrong"]:
        for entry in test["groups"] + test["stops"]:
            entry["example"] = redact(entry["example"])
            if "title" in entry:
                entry["title"] = redact(entry["title"])
    health = report["health"]
    for key, field in [("flagged", "flags"), ("timeouts", "flags"), ("kernel_deaths", "flags"),
                       ("budget_exceeded", "flags"), ("restart_failed", "flags"), ("withheld", "reasons"),
                       ("repaired", "problems")]:
        for row in health[key]:
            row[field] = [redact(text) for text in row[field]]
    for row in health["autograde_failed"]:
        row["error"] = redact(row["error"])
    for pair in report["similarity"].get("top", []):
        for sides in pair["shared"].values():
            for blocks in sides.values():
                for line in (line for block in blocks for line in block["lines"] if "text" in line):
                    line["text"] = redact.line(line["text"])


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["points"] = lambda v: "–" if v is None else f"{v:g}"
    env.filters["percent"] = lambda v: "–" if v is None else f"{100 * v:.0f}%"
    env.filters["fixed"] = lambda v, digits=2: "–" if v is None else f"{v:.{digits}f}"
    return env


def pictures(report: dict) -> dict:
    """{name: PNG data URI} of the report's figures."""
    scores = report["scores"]
    images = {"histogram": figures.score_histogram(scores["scores"], scores["code_scores"], report["max_score"],
                                                   scores["autograded"]["max_score"])}
    if report["tests"]:
        images["tests"] = figures.test_bars(report["tests"])
    if len(report["course"]["assignments"]) > 1:
        images["course"] = figures.course_trend(report["course"]["assignments"])
    return images


def pseudonyms(students) -> dict:
    """{student id: number}: how the page (and ``python -m autograder similarity``) names the students of
    the course: 1, 2, ... in the order of their ids."""
    return {student: number for number, student in enumerate(sorted(set(students)), 1)}


def write(report: dict, folder: Path, redact: Redactor, kinds: list, generated: str) -> tuple[Path, Path]:
    """Write ``<assignment>.json`` and ``<assignment>.html`` into `folder`; their paths. `redact` removes
    secret lines from the texts, `kinds` are the leak scan's (``leaks.feedback_secrets``)."""
    redact_report(report, redact)
    folder.mkdir(parents=True, exist_ok=True)
    name = report["assignment"]
    page = _environment().get_template("class_report.html.j2").render(
        report=report, images=pictures(report), generated=generated,
        anon=pseudonyms(row["student"] for row in report["course"]["students"]))
    html_path, json_path = folder / f"{name}.html", folder / f"{name}.json"
    html_path.write_text(page, encoding="utf-8")
    shown = leaks.secrets_shown(leaks.html_lines(html_path), set(), kinds)
    if shown:
        html_path.unlink()
        raise GraderError(f"the class report of {name} would show {len(shown)} secret line(s), e.g. a {shown[0][0]} "
                          f"line {shown[0][1][:80]!r}: not written")
    json_path.write_text(json.dumps({"generated": generated, **report}, indent=1), encoding="utf-8")
    return html_path, json_path
