"""Due dates and the late policy of a course: ``deadlines.toml`` in the course root.

``python -m autograder deadlines`` shows what the file says; ``build`` writes each due date into the
gradebook; ``autograde`` applies the policy through nbgrader's late-penalty machinery
(``autograder.late_work``). No file: no due dates, nothing is ever late.

The file (every key but ``due`` optional; docs/autograder.md, "Deadlines and late work")::

    lms_timezone = "Europe/Berlin"     # the zone of times an LMS writes without one (Moodle, Blackboard)
    extensions = "extensions.csv"      # per-student extensions, relative to this file

    [policy]                           # every assignment's, unless its own table sets a key
    grace_minutes = 15                 # late by at most this much: no penalty
    penalty_percent = 10               # of the notebook's points, per started penalty_unit late
    penalty_unit = "day"               # "hour" or "day" (24 hours of elapsed time)
    max_penalty_percent = 50           # the cap
    hard_deadline_days = 7             # later than this (days of 24 hours) after the due date: score 0
    unknown_time = "zero"              # a submission whose time is unknown: "zero", "max_penalty", "on_time_flagged"

    [assignments.ttt1_mcts]
    due = "2025-03-30 23:59 Europe/Berlin"          # or 2025-03-30T23:59:00+02:00
    hard_deadline = "2025-04-06 23:59 Europe/Berlin"  # instead of hard_deadline_days

A time always names its zone: a wall time with a tz-database name (resolved with that zone's rules
for that day, so a due date on the night the clocks change is exact; a wall time the change skips or
repeats is refused), or an ISO 8601 time with a UTC offset. Lateness is elapsed time (UTC), never
wall-clock difference. An extension moves the due date and the hard deadline by the same amount.

The extensions CSV has the columns ``student``, ``assignment`` and, per row, exactly one of
``hours`` (a number) or ``due`` (a time as above, later than the assignment's due date).

Everything is validated when the file is read: an unknown key, a time without a zone, a negative or
out-of-range number, an unknown assignment or a duplicated extension raise ``DeadlineError``, whose
message names the file, the place and what to write instead.
"""
from __future__ import annotations

import csv
import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

FILE_NAME = "deadlines.toml"
UNITS = {"hour": 3600, "day": 86400}
UNKNOWN_TIME = {  # what happens to a submission whose time is unknown (the first is the default)
    "zero": "scores 0, as after a hard deadline",
    "max_penalty": "loses the largest penalty (max_penalty_percent)",
    "on_time_flagged": "is graded as on time, and flagged for the instructor to check",
}
POLICY_KEYS = ("grace_minutes", "penalty_percent", "penalty_unit", "max_penalty_percent", "hard_deadline_days",
               "unknown_time")
TOP_KEYS = ("lms_timezone", "extensions", "policy", "assignments")
ASSIGNMENT_KEYS = ("due", "hard_deadline") + POLICY_KEYS
EXTENSION_COLUMNS = ("student", "assignment", "hours", "due")
_WALL_TIME = re.compile(r"(?P<wall>\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)\s+(?P<zone>[A-Za-z][\w+\-/]*)\Z")

# Lateness.status values
NO_DEADLINE, ON_TIME, GRACE, LATE, CLOSED = "no deadline", "on time", "within grace", "late", "after hard deadline"
UNKNOWN, LATE_UNKNOWN = "time unknown", "late, time unknown"


class DeadlineError(ValueError):
    """deadlines.toml or its extensions CSV is invalid: the message names the file, the place and the fix."""


@dataclass(frozen=True)
class Policy:
    """How late work is graded (see the module docstring for each key)."""
    grace_minutes: float = 0.0
    penalty_percent: float = 0.0
    penalty_unit: str = "day"
    max_penalty_percent: float = 100.0
    hard_deadline_days: float | None = None
    unknown_time: str = "zero"


@dataclass(frozen=True)
class Rule:
    """One assignment's due date, hard deadline (aware datetimes, in the zone they were written in) and policy."""
    assignment: str
    due: datetime
    policy: Policy
    hard_deadline: datetime | None = None

    @property
    def closes_after(self) -> timedelta | None:
        """How long after the due date (an extension's included) work is still accepted; None: always."""
        return None if self.hard_deadline is None else utc(self.hard_deadline) - utc(self.due)

    def due_for(self, extension: timedelta) -> datetime:
        """The due date with an extension (elapsed time), in the due date's zone."""
        return (utc(self.due) + extension).astimezone(self.due.tzinfo)


@dataclass(frozen=True)
class Deadlines:
    """A course's deadlines.toml: rules by assignment, extensions by (student, assignment)."""
    path: Path | None = None
    rules: dict = field(default_factory=dict)
    extensions: dict = field(default_factory=dict)
    lms_timezone: ZoneInfo | None = None

    def rule(self, assignment: str) -> Rule | None:
        return self.rules.get(assignment)

    def extension(self, student: str, assignment: str) -> timedelta:
        return self.extensions.get((student, assignment), timedelta(0))


# ----------------------------------------------------------------------------- times

def utc(moment: datetime) -> datetime:
    """`moment` (aware) in UTC. Python adds to and subtracts aware times of one zone on the wall clock;
    every sum and difference here goes through UTC, so that it is elapsed time across a clock change."""
    return moment.astimezone(timezone.utc)


def resolve_wall_time(wall: datetime, zone: ZoneInfo, where: str) -> datetime:
    """`wall` (naive) in `zone`, aware; DeadlineError when the zone's clocks skip it or show it twice."""
    first, second = wall.replace(tzinfo=zone, fold=0), wall.replace(tzinfo=zone, fold=1)
    if first.utcoffset() != second.utcoffset():
        round_trip = first.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None)
        offsets = f"{_offset(first)} or {_offset(second)}"
        if round_trip != wall:
            raise DeadlineError(f"{where}: {wall:%Y-%m-%d %H:%M} does not exist in {zone.key} (the clocks skip it "
                                f"that night); write the time with its UTC offset instead")
        raise DeadlineError(f"{where}: {wall:%Y-%m-%d %H:%M} happens twice in {zone.key} (the clocks go back "
                            f"that night, {offsets}); write the time with its UTC offset instead")
    return first


def _offset(moment: datetime) -> str:
    return moment.strftime("UTC%z")[:-2] + ":" + moment.strftime("%z")[-2:]


def zone_named(name, where: str) -> ZoneInfo:
    """The tz-database zone `name` (e.g. Europe/Berlin); DeadlineError otherwise."""
    if not isinstance(name, str) or not name:
        raise DeadlineError(f"{where}: a time-zone name is text, e.g. \"Europe/Berlin\"")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise DeadlineError(f"{where}: unknown time zone {name!r} (use a tz-database name, e.g. Europe/Berlin, "
                            "America/New_York, UTC)") from None


def parse_time(value, where: str) -> datetime:
    """An aware datetime from a TOML value: an offset date-time (``2025-03-30T23:59:00+02:00``), or text,
    ``"2025-03-30 23:59 Europe/Berlin"`` or ISO 8601 with an offset. DeadlineError for anything without a
    zone (a TOML local date-time, a date), a wall time the zone skips or repeats, or other text."""
    example = "e.g. \"2025-03-30 23:59 Europe/Berlin\" or 2025-03-30T23:59:00+02:00"
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise DeadlineError(f"{where}: {value.isoformat(sep=' ')} has no time zone; {example}")
        return value
    if isinstance(value, date):
        raise DeadlineError(f"{where}: {value.isoformat()} is a date without a time and a zone; {example}")
    if not isinstance(value, str):
        raise DeadlineError(f"{where}: a time is expected, {example}")
    text = value.strip()
    named = _WALL_TIME.match(text)
    if named:
        wall = datetime.fromisoformat(named["wall"].replace(" ", "T"))
        return resolve_wall_time(wall, zone_named(named["zone"], where), where)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise DeadlineError(f"{where}: {value!r} is not a date and time; {example}") from None
    if moment.tzinfo is None:
        raise DeadlineError(f"{where}: {value!r} has no time zone; {example}")
    return moment


def show_time(moment: datetime | None, zone=None) -> str:
    """`moment` as ``2025-03-30 23:59:00 CEST`` in `zone` (default: its own); "unknown" for None."""
    if moment is None:
        return "unknown"
    return moment.astimezone(zone or moment.tzinfo).strftime("%Y-%m-%d %H:%M:%S %Z")


def show_duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``2 h 5 min``, ``3 days 4 h`` (rounded down to the unit shown last)."""
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} day{'s' if days > 1 else ''}" + (f" {hours} h" if hours else "")
    if hours:
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    return f"{minutes} min" if minutes else f"{secs} s"


# ----------------------------------------------------------------------------- reading the file

def _number(table: dict, key: str, where: str, upper: float | None = None, positive: bool = False):
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise DeadlineError(f"{where}: {key} must be a number, not {value!r}")
    if value < 0 or (positive and value == 0):
        raise DeadlineError(f"{where}: {key} = {value} must be {'more than' if positive else 'at least'} 0")
    if upper is not None and value > upper:
        raise DeadlineError(f"{where}: {key} = {value} must be at most {upper:g}")
    return float(value)


def _policy(table: dict, base: Policy, where: str) -> Policy:
    """`base` with the policy keys that `table` sets, each checked."""
    values = {}
    for key in POLICY_KEYS:
        if key not in table:
            continue
        if key == "penalty_unit":
            if table[key] not in UNITS:
                raise DeadlineError(f"{where}: penalty_unit = {table[key]!r}; write \"hour\" or \"day\"")
            values[key] = table[key]
        elif key == "unknown_time":
            if table[key] not in UNKNOWN_TIME:
                raise DeadlineError(f"{where}: unknown_time = {table[key]!r}; write one of "
                                    + ", ".join(f'"{name}"' for name in UNKNOWN_TIME))
            values[key] = table[key]
        else:
            upper = 100 if key.endswith("percent") else None
            values[key] = _number(table, key, where, upper, positive=key == "hard_deadline_days")
    return replace(base, **values)


def _unknown_keys(table: dict, allowed, where: str) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise DeadlineError(f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
                            f"(allowed: {', '.join(allowed)})")


def _rule(name: str, table, course_policy: Policy, path: Path) -> Rule:
    where = f"{path}: [assignments.{name}]"
    if not isinstance(table, dict):
        raise DeadlineError(f"{where} must be a table with a due date")
    _unknown_keys(table, ASSIGNMENT_KEYS, where)
    if "due" not in table:
        raise DeadlineError(f"{where}: no due date; add due = \"2025-03-30 23:59 Europe/Berlin\"")
    due = parse_time(table["due"], f"{where} due")
    policy = _policy(table, course_policy, where)
    hard = None
    if "hard_deadline" in table:
        if "hard_deadline_days" in table:
            raise DeadlineError(f"{where}: both hard_deadline and hard_deadline_days; keep one")
        hard = parse_time(table["hard_deadline"], f"{where} hard_deadline")
        if utc(hard) <= utc(due):
            raise DeadlineError(f"{where}: hard_deadline {show_time(hard)} is not after the due date {show_time(due)}")
        policy = replace(policy, hard_deadline_days=None)
    elif policy.hard_deadline_days is not None:
        hard = (utc(due) + timedelta(days=policy.hard_deadline_days)).astimezone(due.tzinfo)
    return Rule(name, due, policy, hard)


def load(path, assignments=None) -> Deadlines:
    """The deadlines of the file at `path` (a missing file: none). `assignments`: the course's, to refuse
    a name that is not one of them. Raises DeadlineError (see the module docstring)."""
    path = Path(path)
    if not path.exists():
        return Deadlines(None)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DeadlineError(f"cannot read {path}: {type(exc).__name__}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise DeadlineError(f"{path}: not valid TOML: {exc}") from None
    _unknown_keys(data, TOP_KEYS, str(path))
    policy_table = data.get("policy", {})
    if not isinstance(policy_table, dict):
        raise DeadlineError(f"{path}: policy must be a table ([policy])")
    _unknown_keys(policy_table, POLICY_KEYS, f"{path}: [policy]")
    course_policy = _policy(policy_table, Policy(), f"{path}: [policy]")
    tables = data.get("assignments", {})
    if not isinstance(tables, dict):
        raise DeadlineError(f"{path}: assignments must be tables ([assignments.<name>])")
    unknown = sorted(set(tables) - set(assignments)) if assignments is not None else []
    if unknown:
        raise DeadlineError(f"{path}: no assignment named {', '.join(unknown)} in this course "
                            f"(it has: {', '.join(sorted(assignments)) or 'none'})")
    rules = {name: _rule(name, table, course_policy, path) for name, table in tables.items()}
    zone = zone_named(data["lms_timezone"], f"{path}: lms_timezone") if "lms_timezone" in data else None
    extensions = {}
    if "extensions" in data:
        if not isinstance(data["extensions"], str) or not data["extensions"]:
            raise DeadlineError(f"{path}: extensions must name a CSV file, e.g. extensions = \"extensions.csv\"")
        extensions = read_extensions(path.parent / data["extensions"], rules)
    return Deadlines(path, rules, extensions, zone)


def read_extensions(path: Path, rules: dict) -> dict:
    """{(student, assignment): timedelta} from the extensions CSV (see the module docstring)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DeadlineError(f"cannot read the extensions file {path}: {type(exc).__name__}: {exc}") from None
    reader = csv.DictReader(text.splitlines())
    header = [name.strip() for name in reader.fieldnames or []]
    unknown = sorted(set(header) - set(EXTENSION_COLUMNS))
    if unknown or not {"student", "assignment"} <= set(header) or not {"hours", "due"} & set(header):
        raise DeadlineError(f"{path}: the columns must be student, assignment and hours or due (found: "
                            f"{', '.join(header) or 'none'})")
    extensions = {}
    for line, raw in enumerate(reader, start=2):
        row = {(k or "").strip(): (v or "").strip() for k, v in raw.items() if k is not None}
        where = f"{path}, line {line}"
        student, assignment = row.get("student", ""), row.get("assignment", "")
        if not student or not assignment:
            raise DeadlineError(f"{where}: a student and an assignment are needed")
        rule = rules.get(assignment)
        if rule is None:
            raise DeadlineError(f"{where}: assignment {assignment!r} has no due date in the deadlines file")
        hours, due = row.get("hours", ""), row.get("due", "")
        if bool(hours) == bool(due):
            raise DeadlineError(f"{where}: give exactly one of hours or due")
        if hours:
            try:
                amount = float(hours)
            except ValueError:
                raise DeadlineError(f"{where}: hours = {hours!r} is not a number") from None
            if not math.isfinite(amount) or amount <= 0:
                raise DeadlineError(f"{where}: hours = {hours} must be more than 0")
            extension = timedelta(hours=amount)
        else:
            extension = utc(parse_time(due, f"{where}, due")) - utc(rule.due)
            if extension <= timedelta(0):
                raise DeadlineError(f"{where}: due {due} is not after the assignment's due date {show_time(rule.due)}")
        if (student, assignment) in extensions:
            raise DeadlineError(f"{where}: a second extension for {student} in {assignment}; keep one")
        extensions[(student, assignment)] = extension
    return extensions


# ----------------------------------------------------------------------------- the policy

@dataclass(frozen=True)
class Lateness:
    """What the policy makes of one submission: its status (the constants above), the rule applied in
    words, and the penalty: `percent` of the notebook's points, or the whole score (`takes_all`)."""
    status: str
    rule: str
    percent: float = 0.0
    takes_all: bool = False
    seconds_late: float | None = None
    due: datetime | None = None          # the due date of this student (an extension included)
    submitted: datetime | None = None
    flagged: bool = False                # the instructor should look at it (a time unknown, graded on time)

    def points(self, score: float, max_score: float) -> float:
        """The points taken (nbgrader's AssignLatePenalties caps them at the score)."""
        return float(score) if self.takes_all else float(max_score) * self.percent / 100

    @property
    def lateness(self) -> str:
        """The lateness in words: "on time", "1 h 5 min late", "late, time unknown", ..."""
        if self.status in (ON_TIME, NO_DEADLINE, UNKNOWN, LATE_UNKNOWN):
            return self.status
        text = f"{show_duration(self.seconds_late)} late"
        return text + {GRACE: ", within the grace period", CLOSED: ", after the hard deadline"}.get(self.status, "")


def judge(rule: Rule, seconds_late: float) -> Lateness:
    """The policy for a submission `seconds_late` after its due date (an extension already counted;
    0 or less: on time). Work past the hard deadline scores 0; within the grace period costs nothing;
    else ``penalty_percent`` per started ``penalty_unit``, counted from the due date, at most
    ``max_penalty_percent``."""
    policy = rule.policy
    if seconds_late <= 0:
        return Lateness(ON_TIME, "no penalty: submitted by the due date", seconds_late=0.0)
    closes = rule.closes_after
    if closes is not None and seconds_late > closes.total_seconds():
        return Lateness(CLOSED, f"submitted after the hard deadline ({show_duration(closes.total_seconds())} "
                                "after the due date): score 0", 100.0, True, seconds_late)
    if seconds_late <= policy.grace_minutes * 60:
        return Lateness(GRACE, f"no penalty within the {show_duration(policy.grace_minutes * 60)} grace period",
                        seconds_late=seconds_late)
    units = math.ceil(seconds_late / UNITS[policy.penalty_unit] - 1e-9)
    percent = min(units * policy.penalty_percent, policy.max_penalty_percent)
    plural = "s" if units > 1 else ""
    capped = f", capped at {policy.max_penalty_percent:g}%" if units * policy.penalty_percent > percent else ""
    return Lateness(LATE, f"{policy.penalty_percent:g}% of the points per started {policy.penalty_unit} late: "
                          f"{units} {policy.penalty_unit}{plural}, {percent:g}%{capped}", percent, False, seconds_late)


def unknown(rule: Rule, late_marker: bool = False) -> Lateness:
    """The policy for a submission whose time is unknown (`late_marker`: the LMS said it was late)."""
    status = LATE_UNKNOWN if late_marker else UNKNOWN
    how = rule.policy.unknown_time
    setting = f"unknown_time = \"{how}\": a submission whose time is unknown {UNKNOWN_TIME[how]}"
    if how == "zero":
        return Lateness(status, setting, 100.0, True)
    if how == "max_penalty":
        return Lateness(status, f"{setting}, {rule.policy.max_penalty_percent:g}%", rule.policy.max_penalty_percent)
    return Lateness(status, setting, flagged=True)


def assess(rule: Rule | None, submitted: datetime | None, extension: timedelta = timedelta(0),
           late_marker: bool = False) -> Lateness:
    """The policy for one submission: `submitted` (aware; None: unknown), the student's `extension`."""
    if rule is None:
        return Lateness(NO_DEADLINE, "no due date")
    due = rule.due_for(extension)
    if submitted is None:
        found = unknown(rule, late_marker)
    else:
        found = judge(rule, (utc(submitted) - utc(due)).total_seconds())
    return Lateness(found.status, found.rule, found.percent, found.takes_all, found.seconds_late, due, submitted,
                    found.flagged)


# ----------------------------------------------------------------------------- the command

def describe(deadlines: Deadlines, assignments=(), gradebook_duedates: dict | None = None) -> str:
    """The deadlines in words, one block per assignment (every assignment of `assignments` listed), for
    ``python -m autograder deadlines``. `gradebook_duedates`: {assignment: naive UTC or None} from the
    gradebook, to say whether it agrees with the file."""
    if deadlines.path is None:
        return (f"no {FILE_NAME} in the course root: no due dates, no late penalties "
                "(docs/autograder.md, \"Deadlines and late work\")")
    lines = [f"deadlines from {deadlines.path}"]
    if deadlines.lms_timezone:
        lines.append(f"LMS times without a zone are read in {deadlines.lms_timezone.key}")
    for name in sorted(set(assignments) | set(deadlines.rules)):
        rule = deadlines.rule(name)
        if rule is None:
            lines.append(f"\n{name}: no due date (never late)")
            continue
        p = rule.policy
        lines.append(f"\n{name}: due {show_time(rule.due)} ({show_time(rule.due, timezone.utc)})")
        lines.append(f"  hard deadline: {show_time(rule.hard_deadline) if rule.hard_deadline else 'none'}")
        lines.append(f"  grace: {show_duration(p.grace_minutes * 60) if p.grace_minutes else 'none'}; penalty: "
                     + (f"{p.penalty_percent:g}% of the points per started {p.penalty_unit}, at most "
                        f"{p.max_penalty_percent:g}%" if p.penalty_percent else "none before the hard deadline"))
        lines.append(f"  time unknown: unknown_time = \"{p.unknown_time}\" ({UNKNOWN_TIME[p.unknown_time]})")
        granted = sorted((student, ext) for (student, assignment), ext in deadlines.extensions.items()
                         if assignment == name)
        for student, ext in granted:
            lines.append(f"  extension: {student} +{show_duration(ext.total_seconds())}, due "
                         f"{show_time(rule.due_for(ext))}")
        if gradebook_duedates is not None:
            stored = gradebook_duedates.get(name)
            expected = utc(rule.due).replace(tzinfo=None)
            lines.append("  gradebook: " + ("not built yet" if name not in gradebook_duedates else
                                            "same due date" if stored == expected else
                                            f"due date {stored or 'none'} UTC differs: `build` or `autograde` "
                                            "writes the file's"))
    return "\n".join(lines)
