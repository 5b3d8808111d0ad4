"""When each submission arrived, read from what the source records (``collect``).

What is read, and from where (docs/autograder.md, "Deadlines and late work"):

* **Blackboard**: the attempt time of each file name (``..._attempt_2025-03-30-23-59-59_...``), a wall
  time without a zone: read in ``lms_timezone`` of deadlines.toml (unknown without it).
* **nbgrader**: ``timestamp.txt`` where nbgrader writes it, ``<student>/<assignment>/timestamp.txt``
  (its ``submitted/`` layout) or the top of an exchange submission folder
  ``<student>+<assignment>+<time>[+<random>]/`` (else that folder name's time). nbgrader writes
  ``2025-03-30 21:59:00.123456 UTC`` (``Exchange.timestamp_format``); ISO 8601 with an offset is read too.
  One inside a student's uploaded zip is the student's and never read.
* **Canvas**: the JSON of the Submissions API (``GET /api/v1/courses/:course_id/assignments/:id/submissions``,
  a list of Submission objects): ``user_id`` (the number in the download's file names), ``submitted_at``
  (ISO 8601, UTC: ``2012-01-01T01:00:00Z``; null when nothing was submitted) and ``late``.
* **Moodle**: the assignment's grading worksheet (View all submissions > Download grading worksheet):
  ``Identifier`` (``Participant 4242``, the number in the download's folder names) and ``Last modified
  (submission)`` (Moodle's ``userdate``: ``Monday, 24 February 2020, 3:44 PM``, minutes only, in the
  downloading user's zone: read in ``lms_timezone``; ``-`` when nothing was submitted).

A time that cannot be read is unknown, with the reason; it is never taken as on time (the late
policy's ``unknown_time`` decides, ``autograder.deadlines``).
"""
from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .deadlines import DeadlineError, resolve_wall_time

TIMESTAMP_FILE = "timestamp.txt"   # nbgrader's name (CourseDirectory.get_existing_timestamp)
MOODLE_ID, MOODLE_TIME = "Identifier", "Last modified (submission)"
MOODLE_FORMAT = "%A, %d %B %Y, %I:%M %p"    # strftimedaydatetime of Moodle's English language pack


class TimesError(ValueError):
    """A submission-times file that cannot be used: the message names the file, the line and the fix."""


@dataclass(frozen=True)
class SubmittedAt:
    """When one submission arrived: an aware UTC time, or None (unknown: `why`). `late_marker`: the LMS
    marked it late without a time (Canvas's ``late_`` in a file name)."""
    utc: datetime | None
    source: str
    late_marker: bool = False
    why: str = ""

    def as_dict(self) -> dict:
        return {"utc": self.utc.isoformat() if self.utc else None, "source": self.source,
                "late_marker": self.late_marker, "why": self.why}

    @classmethod
    def from_dict(cls, data: dict) -> "SubmittedAt":
        utc = datetime.fromisoformat(data["utc"]) if data.get("utc") else None
        return cls(utc, data.get("source", ""), bool(data.get("late_marker")), data.get("why", ""))


def unknown(source: str, why: str, late_marker: bool = False) -> SubmittedAt:
    return SubmittedAt(None, source, late_marker, why)


def local(wall: datetime, zone: ZoneInfo | None, source: str) -> SubmittedAt:
    """A wall time read in `zone`; unknown without a zone. A time the clocks show twice (the night they go
    back) is the earlier of its two readings, which favours the student; one they skip (the night they go
    forward) does not exist and stays unknown, with why."""
    if zone is None:
        return unknown(source, "the time has no zone: set lms_timezone in deadlines.toml")
    try:
        return SubmittedAt(resolve_wall_time(wall, zone, source).astimezone(timezone.utc), source)
    except DeadlineError:
        first, second = (wall.replace(tzinfo=zone, fold=fold).astimezone(timezone.utc) for fold in (0, 1))
        if all(m.astimezone(zone).replace(tzinfo=None) == wall for m in (first, second)):  # shown twice
            return SubmittedAt(min(first, second), f"{source} (shown twice in {zone.key}: the earlier reading)")
        return unknown(source, f"{wall:%Y-%m-%d %H:%M} does not exist in {zone.key} (the clocks skip it that night)")


def nbgrader_text(utc: datetime) -> str:
    """`utc` as nbgrader's own timestamp.txt has it (``2025-03-30 21:59:00.000000 UTC``)."""
    return utc.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def parse_timestamp(text: str, source: str) -> SubmittedAt:
    """A time as nbgrader writes it (``2025-03-30 21:59:00.123456 UTC``, a zone name or a ``+0200`` offset
    last) or ISO 8601 with an offset."""
    text = text.strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is None:
        head, _, zone_name = text.rpartition(" ")
        try:
            wall = datetime.fromisoformat(head)
        except ValueError:
            return unknown(source, f"{text!r} is not a time")
        if re.fullmatch(r"[+-]\d{4}", zone_name):
            try:
                moment = datetime.strptime(f"{head} {zone_name}", "%Y-%m-%d %H:%M:%S.%f %z" if "." in head
                                           else "%Y-%m-%d %H:%M:%S %z")
            except ValueError:
                return unknown(source, f"{text!r} is not a time (a date and time as YYYY-MM-DD HH:MM:SS, then a "
                                       "UTC offset from -2359 to +2359)")
        else:
            try:
                return local(wall, ZoneInfo(zone_name), source)
            except (ZoneInfoNotFoundError, ValueError):
                return unknown(source, f"{text!r}: {zone_name!r} is neither a UTC offset nor a time-zone name")
    if moment.tzinfo is None:
        return unknown(source, f"{text!r} has no time zone")
    return SubmittedAt(moment.astimezone(timezone.utc), source)


def read_timestamp_file(path: Path, origin: str) -> SubmittedAt:
    source = f"nbgrader's {TIMESTAMP_FILE} ({origin})"
    try:
        return parse_timestamp(Path(path).read_text(encoding="utf-8", errors="replace"), source)
    except OSError as exc:
        return unknown(source, f"unreadable ({type(exc).__name__})")


def blackboard(stamp: str, zone: ZoneInfo | None) -> SubmittedAt:
    """The attempt time of a Blackboard file name (``2025-03-30-23-59-59``), read in `zone`."""
    source = f"Blackboard attempt time {stamp} (file name)"
    try:
        wall = datetime.strptime(stamp, "%Y-%m-%d-%H-%M-%S")
    except ValueError:
        return unknown(source, f"{stamp!r} is not a date and time (YYYY-MM-DD-HH-MM-SS)")
    return local(wall, zone, source)


# ----------------------------------------------------------------------------- --times files

def _canvas(data, path: Path) -> dict:
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise TimesError(f"{path}: a Canvas submissions JSON is a list of submissions (the Submissions API's "
                         "\"List assignment submissions\")")
    found, assignment_of = {}, {}
    for index, item in enumerate(data):
        user = str(item.get("user_id", "")).strip()
        if not user.isdigit():
            raise TimesError(f"{path}: submission {index} has no user_id")
        if user in found:
            raise TimesError(f"{path}: user {user} has two submissions (assignments {assignment_of[user]} and "
                             f"{item.get('assignment_id')}); give the submissions of one assignment")
        assignment_of[user] = item.get("assignment_id")
        source = f"Canvas submitted_at ({path.name})"
        when = item.get("submitted_at")
        if when in (None, ""):
            found[user] = unknown(source, "Canvas has no submitted_at for it", bool(item.get("late")))
            continue
        try:
            moment = datetime.fromisoformat(str(when).replace("Z", "+00:00"))
        except ValueError:
            raise TimesError(f"{path}: user {user}: submitted_at {when!r} is not an ISO 8601 time") from None
        if moment.tzinfo is None:
            raise TimesError(f"{path}: user {user}: submitted_at {when!r} has no zone")
        found[user] = SubmittedAt(moment.astimezone(timezone.utc), source)
    return {("canvas", user): time for user, time in found.items()}


def _moodle(rows: list[dict], path: Path, zone: ZoneInfo | None) -> dict:
    if zone is None:
        raise TimesError(f"{path}: Moodle's grading worksheet gives local times without a zone; set lms_timezone "
                         "in deadlines.toml to the zone of the Moodle user who downloaded it")
    found = {}
    for line, row in enumerate(rows, start=2):
        number = re.search(r"(\d+)\s*$", row.get(MOODLE_ID) or "")
        if not number:
            raise TimesError(f"{path}, line {line}: {MOODLE_ID} {row.get(MOODLE_ID)!r} has no participant number")
        text = (row.get(MOODLE_TIME) or "").strip()
        source = f"Moodle \"{MOODLE_TIME}\" ({path.name}, line {line})"
        if text in ("", "-"):
            found[("moodle", number[1])] = unknown(source, "Moodle lists no submission time")
            continue
        for form in (MOODLE_FORMAT, "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"):
            try:
                wall = datetime.strptime(text, form)
                break
            except ValueError:
                continue
        else:
            raise TimesError(f"{path}, line {line}: cannot read the time {text!r} (Moodle writes it in the "
                             "language of the user who downloaded the worksheet: download it in English)")
        found[("moodle", number[1])] = local(wall, zone, source)
    return found


def recognise(path: Path, zone: ZoneInfo | None) -> dict | None:
    """{(layout, LMS id): SubmittedAt} when `path` is a Canvas submissions JSON or a Moodle grading
    worksheet; None when it is neither; TimesError when it is one but cannot be used."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise TimesError(f"cannot read {path}: {type(exc).__name__}") from None
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if isinstance(data, list) and data and all(isinstance(i, dict) and "user_id" in i for i in data):
            return _canvas(data, path)
        return None
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(text.splitlines())
        if reader.fieldnames and {MOODLE_ID, MOODLE_TIME} <= {f.strip() for f in reader.fieldnames}:
            rows = [{(k or "").strip(): v for k, v in row.items()} for row in reader]
            return _moodle(rows, path, zone)
    return None


def read_times(path, zone: ZoneInfo | None) -> dict:
    """The ``--times FILE`` of collect: a Canvas submissions JSON or a Moodle grading worksheet CSV."""
    path = Path(path)
    if not path.is_file():
        raise TimesError(f"no submission-times file at {path}")
    found = recognise(path, zone)
    if found is None:
        raise TimesError(f"{path} is neither a Canvas submissions JSON (a list of submissions with user_id and "
                         f"submitted_at) nor a Moodle grading worksheet (columns {MOODLE_ID!r}, {MOODLE_TIME!r})")
    return found


def latest(times: list[SubmittedAt]) -> SubmittedAt | None:
    """One time for the files of one assignment folder: the latest, unknown when any of them is unknown."""
    if not times:
        return None
    missing = [t for t in times if t.utc is None]
    if missing:
        return unknown(missing[0].source, missing[0].why, any(t.late_marker for t in times))
    return max(times, key=lambda t: t.utc)
