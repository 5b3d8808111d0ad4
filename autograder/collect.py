"""Collect submissions into nbgrader's ``submitted/`` folder, repairing what can be repaired.

Who a file belongs to
=====================

A file is attributed ONLY to the identity it arrived under: the name of the **top-level entry**
(a file or a folder) of what the instructor passed in, or, when the instructor passes the LMS's zip,
of the top-level entries of that zip. Those names come from the LMS or the instructor, never from a
student. Everything below a top-level entry (deeper folders, and every path inside a zip found
there, i.e. an archive a student uploaded) belongs to that entry's identity, whatever it is called:
a zip uploaded by ``mallory`` that holds ``alice/ttt1_mcts/ttt1_mcts.ipynb`` is Mallory's
submission (and is flagged as naming another student), never Alice's.

Top-level entries and the student id they give (the first layout that matches wins):

=============  ==========================================================  ========================
layout         top-level entry                                              student id
=============  ==========================================================  ========================
Moodle         ``<Full Name>_<participant>_assignsubmission_<plugin>_/``    ``jane_doe_4242``
               (a folder; or a file ``..._assignsubmission_file_<name>``)   slug(Full Name)_participant
Blackboard     ``<Assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>``    ``<username>``
               ``_<name>`` (the ``.txt`` receipts are ignored)
Canvas         ``<name>_[late_]<userid>_<submissionid>_<name>``             ``doejane_4242``
                                                                            slug(name)_userid
exchange       ``<student>+<assignment>+<time>[+<random>]/`` (a folder of   ``<student>``
               nbgrader's exchange inbound; the latest per notebook wins)
nbgrader       ``<student>/`` (``<student>/<assignment>/<notebook>.ipynb``)  ``<student>``
flat           ``<student>.ipynb`` or ``<student>.zip``                     ``<student>``
=============  ==========================================================  ========================

* ``<student>`` and ``<username>`` are kept as they are when they are a valid id (ASCII letters,
  digits, ``_ . -``, starting with a letter or a digit, at most 64 characters); otherwise they are
  slugged. ``slug``: accents dropped, lower case, every run of other characters becomes ``_``
  (``"José Núñez"`` -> ``jose_nunez``; nothing left -> ``student``).
* The same identity: one Moodle participant id, one Canvas user id, one Blackboard
  ``<Assignment>_<username>`` (its attempts), one nbgrader/flat name (``alice/``, ``alice.ipynb`` and
  ``alice.zip`` are all Alice). Moodle and Canvas ids always include the LMS's number, so
  namesakes stay distinct.
* **Collisions**: two distinct identities whose ids are equal, ignoring case (a folder
  ``jane_doe_4242`` and Moodle participant 4242 "Jane Doe"; folders ``Alice`` and ``alice``;
  ``Jane Doe/`` and ``jane_doe/``; one Blackboard user in two assignments' downloads) are refused:
  none of their files is graded, and every record of both says which other identity claims the id.
* One identity, several files for the same notebook: Blackboard's latest attempt (the exchange's
  latest submission) wins (older ones are reported, not graded); otherwise the file with the
  notebook's own name wins, then the first in name order; the others are reported, not graded.
* Zips: a zip anywhere under an entry is the student's upload, unpacked safely (no absolute
  paths, no ``..``; only notebooks and zips are written, other files are just listed) within
  ``MAX_UPLOAD_BYTES`` / ``MAX_UPLOAD_MEMBERS`` (nested zips included, ``MAX_NESTING`` levels
  deep); the instructor's own zip within ``MAX_SOURCE_BYTES`` / ``MAX_SOURCE_MEMBERS``. What is
  skipped is reported. Hidden files and ``__MACOSX`` are ignored.

When it was submitted
=====================

Each record says when its submission arrived (``submitted_at``, ``autograder.submission_times``):
Blackboard's attempt time, nbgrader's ``timestamp.txt`` (``<student>/<assignment>/`` or the top of an
exchange folder, never one inside a student's zip), or the LMS's export of submission times: the
``times`` given (``--times FILE``: a Canvas submissions JSON, a Moodle grading worksheet CSV), and
only that: a JSON or CSV inside the download is never read as the times (a student could upload
one). Otherwise the time is unknown, with why; Canvas's ``late_``
marker then says it was late. Each graded folder ``submitted/<student>/<assignment>/`` gets the
latest time of its files as nbgrader's ``timestamp.txt`` (none, and an old one removed, when a time
is unknown), so nbgrader itself sees it.

What is repaired
================

Each notebook is matched to an assignment notebook by its cells (nbgrader ids, or the text of the
provided cells when the metadata was stripped; the assignment folder of the nbgrader layout is a
hint), so a renamed file still lands in the right place. Problems are repaired where that is fair
and always reported:

* not valid JSON / not a notebook: replaced by the blank release notebook (scores 0);
* stripped cell metadata: restored from the release notebook by aligning the cells;
* deleted graded, solution or locked cells: re-inserted from the release notebook;
* edited locked cells and duplicated ids: reported (nbgrader restores / de-duplicates them).

Which release
=============

Each record says which release the notebook was made from (``release``): the current one or an
earlier one, read from the git history of the release folder when it is in a git checkout, else of
the course's own ``release/`` (a grading workspace's release is a build of it). The release whose
locked cells the notebook holds unchanged (the most of them) is the one; the version in its
metadata (``autograder.release``, written by the build) breaks ties, then the newest. Locked cells
left as an earlier release had them are put back as the current release has them (the grader
replaces every locked cell with the gradebook's anyway), without a problem reported.

Student-written cells are also scanned for suspicious code (IPython hooks, exits, grader paths).
Never scanned: a locked cell of the current release, kept with its nbgrader id (the grader runs
the original in its place, whatever its text: nbgrader's ``OverwriteCells``), and a cell whose
text is exactly a cell of the current or an earlier release (the instructor's text, not the
student's). Every other code cell is scanned, whatever its metadata says.
"""
import difflib
import json
import re
import subprocess
import tempfile
import unicodedata
import warnings
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import nbformat

from . import submission_times as times_of
from .generation import release_version, stored_version
from .reference import REPO_ROOT

COURSE_RELEASE = REPO_ROOT / "release"  # its git history holds the course's earlier releases

MAX_UPLOAD_BYTES = 200 * 2**20      # one uploaded zip, the zips inside it included (uncompressed)
MAX_UPLOAD_MEMBERS = 2000
MAX_SOURCE_BYTES = 4 * 2**30        # the instructor's own zip (the LMS download)
MAX_SOURCE_MEMBERS = 200_000
MAX_NESTING = 2                     # a zip inside an uploaded zip is opened, one level deeper is not
KEPT_SUFFIXES = (".ipynb", ".zip")  # what is written out of a zip; other members are only listed

VALID_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
MOODLE = re.compile(r"(?P<name>.+?)_(?P<number>\d+)_assignsubmission_[A-Za-z]+_(?P<original>.*)\Z", re.S)
BLACKBOARD = re.compile(r"(?P<prefix>.+?)_attempt_(?P<time>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)"
                        r"(?:_(?P<original>.+)|(?P<ext>\.[^._]*))?\Z", re.S)
CANVAS = re.compile(r"(?P<name>[^_\s]+)_(?P<late>late_)?(?P<number>\d+)_\d+_(?P<original>.+)\Z", re.S | re.I)
EXCHANGE = re.compile(r"(?P<student>[^+]+)\+(?P<assignment>[^+]+)\+(?P<time>[^+]+)(?:\+[^+]*)?\Z", re.S)

SUSPICIOUS_CODE = [
    (r"input_transformers|input_transformer_manager|ast_transformers|register_transformer|prefilter_manager",
     "installs an IPython input/AST transformer (can rewrite or disable later cells)"),
    (r"events\.register|set_custom_exc|\.showtraceback\s*=|\.run_cell\s*=|register_magic",
     "hooks into IPython (events, exception handler, run_cell)"),
    (r"\bos\._exit\b|\bos\.kill\b|\bos\.abort\b", "calls os._exit / os.kill / os.abort"),
    (r"\bsys\.exit\b|(?<![\w.])(exit|quit)\s*\(", "calls sys.exit / exit / quit"),
    (r"gradebook|sqlite3|sqlalchemy|\.db['\"]", "touches a database (the gradebook?)"),
    (r"assignments/|solutions/|autograder|nbgrader|BEGIN HIDDEN|hidden.?test",
     "refers to grader files or hidden tests"),
    (r"sys\.settrace|sys\.setprofile|sys\.addaudithook|sys\.meta_path|sys\.modules\[|builtins\.", 
     "patches the interpreter (tracing, import hooks, builtins)"),
    (r"def __eq__|__eq__\s*=", "defines __eq__ (a result that compares equal to anything?)"),
    (r"\bctypes\b|signal\.signal|/proc/", "uses ctypes, signal handlers or /proc"),
]


@dataclass
class Release:
    """One release of a notebook: the current one (``commit`` None) or an earlier one from git."""
    version: str
    commit: str | None = None
    date: str = ""
    locked: dict = field(default_factory=dict)    # grade_id -> source of each locked, non-solution cell
    sources: set = field(default_factory=set)     # the stripped text of every cell

    def describe(self) -> dict:
        return {"version": self.version, "current": self.commit is None, "commit": self.commit, "date": self.date}


def _locked_sources(cells) -> dict:
    found = {}
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader") if isinstance(cell.get("metadata"), dict) else None
        if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str) and meta.get("locked") \
                and not meta.get("solution"):
            found.setdefault(meta["grade_id"], cell.get("source", ""))
    return found


def _release_of(nb, commit=None, date="") -> Release:
    return Release(stored_version(nb) or release_version(nb), commit, date, _locked_sources(nb.cells),
                   {str(c.get("source", "")).strip() for c in nb.cells})


def earlier_releases(path: Path, limit: int = 200) -> list[Release]:
    """The releases of `path` committed to git before its current text, newest first ([] outside a git
    checkout, or without git)."""
    path = Path(path).resolve()
    try:
        run = dict(cwd=path.parent, capture_output=True, text=True, timeout=60)
        top = subprocess.run(["git", "rev-parse", "--show-toplevel", "HEAD"], **run)
        if top.returncode:
            return []
        root, head = top.stdout.splitlines()[:2]
        root = Path(root).resolve()
        relative = path.relative_to(root).as_posix()
        key = (str(root), head, relative, limit)
        if key not in _HISTORY:
            _HISTORY[key] = _history(root, relative, limit)
        return list(_HISTORY[key])
    except (OSError, ValueError, subprocess.SubprocessError):
        return []


_HISTORY: dict = {}  # (repository, HEAD, path, limit) -> its releases: committed history never changes


def _history(root: Path, relative: str, limit: int) -> list[Release]:
    run = dict(cwd=root, capture_output=True, text=True, timeout=60)  # a pathspec is relative to the cwd
    try:
        log = subprocess.run(["git", "log", f"-{limit}", "--format=%H %cs", "--", relative], **run)
        found = []
        for line in log.stdout.split("\n"):
            if not line.strip():
                continue
            commit, _, date = line.partition(" ")
            shown = subprocess.run(["git", "show", f"{commit}:{relative}"], **run)
            if shown.returncode:
                continue  # the file was deleted in that commit
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    found.append(_release_of(nbformat.reads(shown.stdout, as_version=4), commit, date))
            except (ValueError, nbformat.ValidationError, json.JSONDecodeError):
                continue  # not a readable notebook in that commit: the other releases still count
        return found
    except (OSError, ValueError, subprocess.SubprocessError, nbformat.ValidationError, json.JSONDecodeError):
        return []


@dataclass
class Target:
    """One notebook of an assignment, as released (and the releases before it)."""
    assignment: str
    notebook: str
    path: Path
    cells: list = field(default_factory=list)
    current: Release | None = None
    earlier: list = field(default_factory=list)   # Release, newest first, none with the current version

    @property
    def releases(self) -> list:
        return ([self.current] if self.current else []) + self.earlier

    @property
    def ids(self) -> set:
        return {c.metadata["nbgrader"]["grade_id"] for c in self.cells if "nbgrader" in c.metadata}


class CollectError(ValueError):
    """Nothing can be collected from this source: the message says why (one line)."""


@dataclass
class Collected:
    """What collect did with one submitted file (or with a submission that held no notebook)."""
    student: str
    assignment: str | None
    notebook: str | None
    origin: str                    # where the file was, relative to the source ("mallory.zip/alice/x.ipynb")
    problems: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    identity: str = ""             # who it arrived as ("Moodle participant 4242 (Jane Doe)")
    layout: str = ""               # moodle, blackboard, canvas, exchange, nbgrader, flat
    submitted: bool = False        # copied into submitted/ (it will be graded)
    release: dict | None = None    # the release it was made from (Release.describe(), plus "claimed", "how")
    submitted_at: dict | None = None  # when it arrived (SubmittedAt.as_dict(); for a graded file, its folder's)

    def as_dict(self) -> dict:
        return {"student": self.student, "assignment": self.assignment, "notebook": self.notebook,
                "origin": self.origin, "identity": self.identity, "layout": self.layout,
                "submitted": self.submitted, "release": self.release, "problems": self.problems,
                "flags": self.flags, "submitted_at": self.submitted_at}


class Collection(list):
    """The records of one collect, plus `notes` about the source itself (ignored entries, skipped members)."""

    def __init__(self, records=(), notes=()):
        super().__init__(records)
        self.notes = list(notes)


@dataclass(frozen=True)
class Arrival:
    """The identity a top-level entry arrived under."""
    key: tuple                     # entries with the same key are the same identity
    student: str
    layout: str
    label: str                     # readable, for the instructor
    original: str | None = None    # the student's own file name (LMS files); None: a folder, <student>.ipynb
    attempt: str = ""              # Blackboard attempt time stamp; an exchange submission's UTC time (ISO)
    late_marker: bool = False      # Canvas's late_ in the file name
    hint: str = ""                 # the assignment the entry's name gives (exchange)


def slug(text: str) -> str:
    """Accents dropped, lower case, runs of anything but letters and digits -> `_` ("José Núñez" -> jose_nunez)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_")[:48].strip("_") or "student"


def as_id(name: str) -> str:
    """`name` itself when it is a valid student id, else its slug."""
    return name if VALID_ID.match(name) else slug(name)


def arrival(name: str, is_dir: bool) -> Arrival | None:
    """The identity of a top-level entry called `name` (None: ignored: hidden, __MACOSX, a Blackboard receipt)."""
    if name.startswith(".") or name == "__MACOSX":
        return None
    moodle = MOODLE.match(name)
    if moodle:
        number, full_name = moodle["number"], moodle["name"]
        return Arrival(("moodle", number), f"{slug(full_name)}_{number}", "moodle",
                       f"Moodle participant {number} ({full_name})", None if is_dir else moodle["original"])
    if not is_dir:
        blackboard = BLACKBOARD.match(name)
        if blackboard:
            if blackboard["original"] is None and (blackboard["ext"] or "").lower() == ".txt":
                return None  # the receipt Blackboard writes next to each attempt
            assignment, _, username = blackboard["prefix"].rpartition("_")
            return Arrival(("blackboard", blackboard["prefix"]), as_id(username), "blackboard",
                           f"Blackboard user {username}" + (f" ({assignment})" if assignment else ""),
                           blackboard["original"], blackboard["time"])
        canvas = CANVAS.match(name)
        if canvas:
            number = canvas["number"]
            return Arrival(("canvas", number), f"{slug(canvas['name'])}_{number}", "canvas",
                           f"Canvas user {number} ({canvas['name']})", canvas["original"],
                           late_marker=bool(canvas["late"]))
        stem = name[: -len(Path(name).suffix)] if Path(name).suffix.lower() in KEPT_SUFFIXES else name
        return Arrival(("name", stem), as_id(stem), "flat", f"submission {stem!r}")
    exchange = EXCHANGE.match(name)
    when = exchange and times_of.parse_timestamp(exchange["time"], "").utc
    if when or (exchange and re.match(r"\d{4}-\d\d-\d\d", exchange["time"])):  # a time, if unreadable: unknown
        student = exchange["student"]
        return Arrival(("name", student), as_id(student), "exchange", f"submission {student!r} (nbgrader exchange)",
                       attempt=when.isoformat(timespec="microseconds") if when else "", hint=exchange["assignment"])
    return Arrival(("name", name), as_id(name), "nbgrader", f"submission {name!r}")


def student_id(relative) -> str:
    """The student id of a path inside a submissions folder: only its top-level entry counts."""
    relative = Path(relative)
    found = arrival(relative.parts[0], is_dir=len(relative.parts) > 1)
    return found.student if found else ""


def release_targets(release_dir: Path, assignments=None, history: bool = True) -> list[Target]:
    """The release notebooks (of `assignments`, else all); with `history`, each with its earlier releases."""
    targets = []
    for path in sorted(Path(release_dir).glob("*/*.ipynb")):
        if assignments and path.parent.name not in assignments:
            continue
        nb = nbformat.read(path, as_version=4)
        current = _release_of(nb)
        seen, earlier = {current.version}, []
        # a grading workspace's release/ is a build of the course's assignments/: the course's history is its own
        course_copy = COURSE_RELEASE / path.parent.name / path.name
        known = (earlier_releases(path) or (earlier_releases(course_copy) if course_copy != path.resolve() else [])
                 ) if history else []
        for release in known:
            if release.version not in seen:
                seen.add(release.version)
                earlier.append(release)
        targets.append(Target(path.parent.name, path.stem, path, nb.cells, current, earlier))
    return targets


def made_from(nb, target: Target) -> tuple[Release | None, dict | None]:
    """(the release `nb` was made from, its description for the report): the release whose locked
    cells it holds unchanged (by nbgrader id), the most of them; the version the notebook's metadata
    claims, then the newest, break ties. (None, None) when the target knows no release."""
    if not target.releases:
        return None, None
    claimed = stored_version(nb)
    held = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader")
        if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str):
            held.setdefault(meta["grade_id"], cell.source)
    ranked = []
    for rank, release in enumerate(target.releases):
        same = sum(held.get(grade_id) == source for grade_id, source in release.locked.items())
        ranked.append((same, release.version == claimed, -rank, release))
    best = max(ranked, key=lambda r: r[:3])[3]
    report = best.describe()
    report["claimed"] = claimed
    report["how"] = "its metadata and locked cells" if claimed == best.version else "its locked cells"
    return best, report


def _signature(cell) -> str:
    return f"{cell.get('cell_type')}:{cell.get('source', '').strip()}"


def match_target(nb, filename: str, targets: list[Target], hint: str | None) -> Target | None:
    """The release notebook this submission is a copy of (cells first, then names)."""
    ids = {c.metadata["nbgrader"]["grade_id"] for c in nb.cells
           if isinstance(c.get("metadata"), dict) and "grade_id" in c.get("metadata", {}).get("nbgrader", {})}
    scored = []
    for target in targets:
        by_ids = len(ids & target.ids) / max(1, len(target.ids))
        locked = {_signature(c) for c in target.cells if c.metadata.get("nbgrader", {}).get("locked")}
        by_text = len(locked & {_signature(c) for c in nb.cells}) / max(1, len(locked))
        by_name = 1.0 if target.notebook in filename or target.assignment in filename else 0.0
        by_hint = 1.0 if hint == target.assignment else 0.0
        scored.append((max(by_ids, by_text), by_name, by_hint, target))
    scored.sort(key=lambda s: s[:3], reverse=True)
    best = scored[0] if scored else None
    if best and (best[0] >= 0.3 or best[1] or best[2]):
        return best[3]
    return None


def repair(nb, target: Target, problems: list) -> None:
    """Restore stripped metadata and deleted nbgrader cells from the release notebook (in place)."""
    release = target.cells
    sub_sigs = [_signature(c) for c in nb.cells]
    rel_sigs = [_signature(c) for c in release]
    pairs = {}  # release index -> submitted index
    matcher = difflib.SequenceMatcher(a=rel_sigs, b=sub_sigs, autojunk=False)
    blocks = matcher.get_matching_blocks()
    previous_a, previous_b = 0, 0
    for block in blocks:
        gap_a, gap_b = range(previous_a, block.a), range(previous_b, block.b)
        for i, j in zip(gap_a, gap_b):  # changed cells between two matches: pair them in order
            if release[i].cell_type == nb.cells[j].cell_type:
                pairs[i] = j
        for k in range(block.size):
            pairs[block.a + k] = block.b + k
        previous_a, previous_b = block.a + block.size, block.b + block.size
    restored_meta, reinserted = [], []
    for i, j in pairs.items():
        meta = release[i].metadata.get("nbgrader")
        if meta and "nbgrader" not in nb.cells[j].metadata:
            nb.cells[j].metadata["nbgrader"] = json.loads(json.dumps(meta))
            restored_meta.append(meta["grade_id"])
    present = {c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata}
    for i in sorted(set(range(len(release))) - set(pairs), reverse=False):
        meta = release[i].metadata.get("nbgrader")
        if not meta or meta["grade_id"] in present:
            continue
        earlier = [pairs[k] for k in pairs if k < i]
        position = (max(earlier) + 1) if earlier else 0
        nb.cells.insert(position, nbformat.from_dict(json.loads(json.dumps(release[i]))))
        pairs = {k: (v + 1 if v >= position else v) for k, v in pairs.items()}
        pairs[i] = position
        reinserted.append(meta["grade_id"])
    if restored_meta:
        problems.append(f"cell metadata was missing and was restored from the release notebook: {len(restored_meta)} "
                        f"cell(s) ({', '.join(restored_meta[:6])}{', ...' if len(restored_meta) > 6 else ''})")
    if reinserted:
        problems.append(f"deleted cell(s) re-inserted from the release notebook: {', '.join(reinserted)}")


def inspect(nb, target: Target, problems: list, flags: list, made: Release | None = None) -> None:
    """Report edited locked cells and duplicated ids; scan student-written cells.

    `made`: the release the notebook was made from; its locked cells, left as it had them, are
    brought up to the current release (what the grader runs in their place) without a problem."""
    release = {c.metadata["nbgrader"]["grade_id"]: c for c in target.cells if "nbgrader" in c.metadata}
    seen = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if grade_id:
            seen[grade_id] = seen.get(grade_id, 0) + 1
            original = release.get(grade_id)
            if original is None or not original.metadata["nbgrader"].get("locked") or \
                    cell.source.strip() == original.source.strip():
                continue
            if seen[grade_id] == 1 and made is not None and made.commit is not None and grade_id in made.locked and \
                    cell.source == made.locked[grade_id] and cell.cell_type == original.cell_type:
                cell.source = original.source  # as that release had it: the current release's text
            else:
                problems.append(f"locked cell {grade_id} was edited (the grader uses the original)")
    duplicated = sorted(k for k, n in seen.items() if n > 1)
    kept = set()
    for cell in nb.cells:  # later copies become plain cells (nbgrader's own de-duplication crashes)
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in kept:
            del cell.metadata["nbgrader"]
        elif grade_id:
            kept.add(grade_id)
    if duplicated:
        problems.append(f"duplicated cells ({', '.join(duplicated)}): only the first copy keeps its grading role")
    flags.extend(_suspicious(nb, target, release))


def replaced_by_the_grader(cell, release: dict) -> bool:
    """Whether the grader runs the original in place of this cell, whatever its text: it keeps the id of
    a locked, non-solution cell of the current release (nbgrader's OverwriteCells then writes the
    gradebook's source over it, RestoreCells converts its type back). A copy that lost its id (the
    second of two) or an id the release does not have runs as written."""
    meta = cell.metadata.get("nbgrader")
    original = release.get(meta.get("grade_id")) if isinstance(meta, dict) else None
    role = original.metadata["nbgrader"] if original is not None else {}
    return bool(role.get("locked")) and not role.get("solution")


def _suspicious(nb, target: Target, release: dict) -> list[str]:
    """SUSPICIOUS_CODE labels found in the code cells the student wrote: never in a cell the grader
    replaces (replaced_by_the_grader) nor in one whose text is a cell of a known release."""
    released_sources = set().union(*(r.sources for r in target.releases)) if target.releases else set()
    released_sources |= {c.source.strip() for c in target.cells}
    written = "\n".join(c.source for c in nb.cells  # code only: text is never run
                        if c.cell_type == "code" and not replaced_by_the_grader(c, release)
                        and c.source.strip() not in released_sources)
    return [label for pattern, label in SUSPICIOUS_CODE if re.search(pattern, written)]


def sanitised(nb, problems: list | None = None):
    """A fresh, schema-valid copy: cell types, sources and metadata kept, outputs dropped.

    nbgrader metadata that is not a mapping with a text ``grade_id`` is removed (and reported in
    `problems`): the cell is then treated as stripped, and restored from the release if it matches."""
    makers = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell,
              "raw": nbformat.v4.new_raw_cell}
    clean = nbformat.v4.new_notebook(metadata=dict(nb.get("metadata") or {}))
    malformed = 0
    for cell in nb.get("cells") or []:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        metadata = dict(cell.get("metadata")) if isinstance(cell.get("metadata"), dict) else {}
        meta = metadata.get("nbgrader")
        if "nbgrader" in metadata and not (isinstance(meta, dict) and isinstance(meta.get("grade_id"), str)):
            del metadata["nbgrader"]
            malformed += 1
        clean.cells.append(makers.get(cell.get("cell_type"), nbformat.v4.new_raw_cell)(source, metadata=metadata))
    nbformat.validate(clean)
    if malformed and problems is not None:
        problems.append(f"malformed nbgrader metadata removed from {malformed} cell(s)")
    return clean


def normalise(path: Path, targets: list[Target], student: str, hint: str | None, original: str | None = None):
    """(notebook to grade, Collected) for one submitted file; `original`: the name the student gave it
    (a different name than the notebook's is reported; None: not checked)."""
    filename = original or path.name
    result = Collected(student, None, None, str(path))
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nb = sanitised(nbformat.reads(text, as_version=4), result.problems)
    except Exception as exc:  # noqa: BLE001 (any parse failure is the student's broken file)
        target = match_target(nbformat.v4.new_notebook(), filename, targets, hint) or \
            (targets[0] if len(targets) == 1 else None)
        if target is None:
            result.problems.append(f"not a readable notebook ({type(exc).__name__}) and no assignment recognised")
            return None, result
        result.assignment, result.notebook = target.assignment, target.notebook
        first_line = (str(exc).splitlines() or [""])[0][:160]
        result.problems.append(f"not a valid notebook ({type(exc).__name__}: {first_line}); "
                               "graded as an empty submission")
        return nbformat.read(target.path, as_version=4), result
    target = match_target(nb, filename, targets, hint)
    if target is None:
        result.problems.append("no assignment notebook recognised in this file; not graded")
        return None, result
    result.assignment, result.notebook = target.assignment, target.notebook
    if original and Path(original).stem != target.notebook:
        result.problems.append(f"file named {original!r}; graded as {target.notebook}.ipynb")
    try:
        made, result.release = made_from(nb, target)
        repair(nb, target, result.problems)
        inspect(nb, target, result.problems, result.flags, made)
    except Exception as exc:  # noqa: BLE001 (never lose a submission to a check; the grader restores cells)
        result.problems.append(f"its cells could not be checked ({type(exc).__name__}); graded as submitted")
    return nb, result


# ----------------------------------------------------------------------------- unpacking

def _ignored(parts) -> bool:
    return any(part.startswith(".") or part == "__MACOSX" for part in parts)


@dataclass
class _Budget:
    """What is left for one archive (and the archives inside it)."""
    bytes: int
    members: int
    max_bytes: int
    max_members: int


class _TooBig(Exception):
    pass


def _extract(archive_path: Path, into: Path, budget: _Budget, also_kept=lambda parts: False) -> list[str]:
    """Unpack a zip safely into `into`; returns what was skipped (with why).

    No absolute paths, drive letters or `..`; hidden files and __MACOSX are dropped; only notebooks
    and zips (and the members `also_kept(parts)` accepts) get their content, other members become
    empty placeholders (their names are all collect needs); the budget caps the members and the
    uncompressed bytes actually written.
    Raises zipfile.BadZipFile (or OSError) when the archive cannot be read at all.
    """
    skipped = []
    into.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive_path) as archive:
        for member in archive.infolist():
            name = member.filename.replace("\\", "/")
            parts = [p for p in name.split("/") if p not in ("", ".")]
            if member.is_dir() or not parts:
                continue
            if name.startswith("/") or ".." in parts or re.match(r"[A-Za-z]:", parts[0]):
                skipped.append(f"{member.filename} (unsafe path)")
                continue
            if _ignored(parts):
                continue
            if budget.members <= 0:
                skipped.append(f"{member.filename} (more than {budget.max_members} files)")
                continue
            budget.members -= 1
            target = into.joinpath(*parts)
            keep = target.suffix.lower() in KEPT_SUFFIXES or also_kept(parts)
            if keep and member.file_size > budget.bytes:
                skipped.append(f"{member.filename} (over {budget.max_bytes // 2**20} MB uncompressed)")
                continue
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                if not keep:
                    target.touch()
                    continue
                written = 0
                with archive.open(member) as src, open(target, "wb") as dst:
                    while chunk := src.read(2**20):
                        written += len(chunk)
                        if written > budget.bytes:
                            raise _TooBig
                        dst.write(chunk)
                budget.bytes -= written
            except _TooBig:
                target.unlink(missing_ok=True)
                budget.bytes = 0
                skipped.append(f"{member.filename} (over {budget.max_bytes // 2**20} MB uncompressed)")
            except (OSError, RuntimeError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError) as exc:
                if target.is_file():
                    target.unlink(missing_ok=True)
                skipped.append(f"{member.filename} (unreadable: {type(exc).__name__})")
    return skipped


def _listing(items: list[str], limit: int = 5) -> str:
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


@dataclass
class _Item:
    path: Path
    origin: str                    # relative to the source
    original: str | None           # the name to check against the notebook's (None: not checked)
    folders: tuple                 # folders between the entry (or archive) and the file
    attempt: str = ""
    time: times_of.SubmittedAt | None = None  # when it arrived


@dataclass
class _Submission:
    """Everything that arrived under one identity."""
    key: tuple
    student: str
    layout: str
    label: str
    entries: list = field(default_factory=list)
    items: list = field(default_factory=list)
    others: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    def gather(self, path: Path, origin: str, original, attempt: str, scratch: Path,
               depth: int = 0, budget: _Budget | None = None) -> None:
        """Add the notebooks under `path` (a folder, a notebook, a zip: unpacked into `scratch`)."""
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                relative = child.relative_to(path)
                if _ignored(relative.parts) or not child.is_file():
                    continue
                self._file(child, f"{origin}/{relative.as_posix()}", child.name, relative.parts[:-1], attempt,
                           scratch, depth, budget)
        elif path.is_file():
            self._file(path, origin, original, (), attempt, scratch, depth, budget)

    def _file(self, path, origin, original, folders, attempt, scratch, depth, budget) -> None:
        suffix = path.suffix.lower()
        if suffix == ".ipynb":
            self.items.append(_Item(path, origin, original, tuple(folders), attempt))
        elif suffix == ".zip":
            if depth >= MAX_NESTING:
                self.problems.append(f"{origin}: a zip nested more than {MAX_NESTING} deep; not opened")
                return
            budget = budget or _Budget(MAX_UPLOAD_BYTES, MAX_UPLOAD_MEMBERS, MAX_UPLOAD_BYTES, MAX_UPLOAD_MEMBERS)
            into = Path(tempfile.mkdtemp(prefix="upload-", dir=scratch))
            try:
                skipped = _extract(path, into, budget)
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError) as exc:
                self.problems.append(f"{origin}: not a readable zip ({type(exc).__name__}); nothing in it graded")
                return
            if skipped:
                self.problems.append(f"{origin}: {len(skipped)} file(s) of the zip skipped: {_listing(skipped)}")
            self.gather(into, origin, None, attempt, scratch, depth + 1, budget)
        else:
            self.others.append(origin)


def _arrival_time(who: Arrival, entry: Path, item: _Item, times: dict, zone) -> times_of.SubmittedAt:
    """When `item` (a file of the top-level `entry`) was submitted, from what the source records."""
    if who.layout == "blackboard":
        return times_of.blackboard(who.attempt, zone)
    if who.layout == "exchange":
        stamp = entry / times_of.TIMESTAMP_FILE
        if stamp.is_file():
            return times_of.read_timestamp_file(stamp, f"{entry.name}/{stamp.name}")
        source = f"nbgrader exchange folder name {entry.name}"
        if not who.attempt:
            return times_of.parse_timestamp(entry.name.split("+")[2], source)  # unknown, with why
        return times_of.SubmittedAt(datetime.fromisoformat(who.attempt), source)
    if who.layout == "nbgrader" and item.folders and item.path.is_relative_to(entry):  # not from a student's zip
        stamp = entry / item.folders[0] / times_of.TIMESTAMP_FILE
        if stamp.is_file():
            return times_of.read_timestamp_file(stamp, f"{entry.name}/{item.folders[0]}/{stamp.name}")
    if who.key in times:
        found = times[who.key]
        return times_of.SubmittedAt(found.utc, found.source, found.late_marker or who.late_marker, found.why)
    if who.layout in ("canvas", "moodle"):
        why = f"the {who.layout.capitalize()} download has no times: pass its export of submission times with --times"
    else:
        why = f"no {times_of.TIMESTAMP_FILE}" if who.layout == "nbgrader" else "a plain file records no time"
    return times_of.unknown(f"{who.layout} file names", why, who.late_marker)


def _submissions(root: Path, scratch: Path, notes: list, times: dict, zone=None) -> list[_Submission]:
    """The top-level entries of `root`, grouped by the identity they arrived under, each file with its time."""
    found = {}
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        is_dir = entry.is_dir()
        if not is_dir and not entry.is_file():
            notes.append(f"ignored {entry.name}: neither a file nor a folder")
            continue
        who = arrival(entry.name, is_dir)
        if who is None:
            continue
        if who.layout == "flat" and entry.suffix.lower() not in KEPT_SUFFIXES:
            notes.append(f"ignored {entry.name}: not a notebook, a zip or a folder")
            continue
        submission = found.setdefault(who.key, _Submission(who.key, who.student, who.layout, who.label))
        submission.entries.append(entry.name + ("/" if is_dir else ""))
        first = len(submission.items)
        submission.gather(entry, entry.name, who.original, who.attempt, scratch)
        for item in submission.items[first:]:
            item.time = _arrival_time(who, entry, item, times, zone)
            if who.hint:  # an exchange folder's name gives the assignment: a hint, as an assignment folder is
                item.folders = (who.hint, *item.folders)
    return sorted(found.values(), key=lambda s: (s.student.lower(), s.student, s.key))


def _clashes(submissions: list[_Submission]) -> dict:
    """key -> the other submissions whose student id equals this one's (ignoring case)."""
    by_id = {}
    for submission in submissions:
        by_id.setdefault(submission.student.lower(), []).append(submission)
    return {s.key: [o for o in group if o is not s] for group in by_id.values() if len(group) > 1 for s in group}


def _clash_problem(submission: _Submission, others: list[_Submission]) -> str:
    claims = "; ".join(f"{o.label} from {_listing(o.entries, 2)}"
                       + (f" (id {o.student!r})" if o.student != submission.student else "") for o in others)
    return (f"not graded: the student id {submission.student!r} of {submission.label} is also claimed by {claims}; "
            "rename one of them and collect again")


def _impersonations(submission: _Submission, item: _Item, names: dict) -> list[str]:
    """A path inside a submission named after another student (their id or top-level entry)."""
    own = {submission.student.lower()} | {n.lower() for e in submission.entries
                                           for n in (e.rstrip("/"), Path(e.rstrip("/")).stem)}
    parts = item.origin.split("/")[1:]
    candidates = [p.lower() for p in parts[:-1]] + [Path(parts[-1]).stem.lower()] if parts else []
    return sorted({names[c] for c in candidates if c in names and c not in own})


def _kept_from_source(parts) -> bool:
    """Besides notebooks and zips, what the instructor's own zip keeps: nbgrader's timestamp.txt."""
    return parts[-1] == times_of.TIMESTAMP_FILE


def collect(source: Path, submitted_dir: Path, release_dir: Path, assignment: str | None = None,
            times: dict | None = None, lms_zone=None) -> Collection:
    """Copy (and repair) every notebook of `source` (a folder or a zip) into `submitted_dir`/<student>/<assignment>/,
    with nbgrader's timestamp.txt when the submission's time is known.

    `times`: {(layout, LMS id): SubmittedAt} (``submission_times.read_times``, the ``--times`` file);
    `lms_zone`: the ZoneInfo of LMS times written without a zone (deadlines.toml's ``lms_timezone``).
    LMS submission times come only from `times`: a JSON or CSV inside the download is never read as
    them (a student could upload one). Raises CollectError (nothing written) when the source does not
    exist, is neither a folder nor a zip, holds no notebook at all, or when `assignment` is not one of
    the release's assignments.
    """
    source = Path(source)
    if not source.exists():
        raise CollectError(f"{source} does not exist")
    if not source.is_dir() and not (source.is_file() and zipfile.is_zipfile(source)):
        raise CollectError(f"{source} is neither a folder nor a zip archive")
    available = sorted({p.parent.name for p in Path(release_dir).glob("*/*.ipynb")})
    if not available:
        raise CollectError(f"no release notebooks in {release_dir}: run `python -m autograder build` first")
    if assignment and assignment not in available:
        raise CollectError(f"unknown assignment {assignment!r}: the release has {', '.join(available)}")
    targets = release_targets(release_dir, [assignment] if assignment else None)
    known = {t.assignment for t in targets}
    notes = []
    with tempfile.TemporaryDirectory(prefix="collect-") as tmp:
        scratch = Path(tmp)
        root = source
        if source.is_file():
            root = scratch / "source"
            try:
                skipped = _extract(source, root, _Budget(MAX_SOURCE_BYTES, MAX_SOURCE_MEMBERS,
                                                         MAX_SOURCE_BYTES, MAX_SOURCE_MEMBERS), _kept_from_source)
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError) as exc:
                raise CollectError(f"{source} is not a readable zip archive ({type(exc).__name__})") from None
            if skipped:
                notes.append(f"{len(skipped)} file(s) of {source.name} skipped: {_listing(skipped, 10)}")
        submissions = _submissions(root, scratch, notes, dict(times or {}), lms_zone)
        if not any(s.items for s in submissions):
            raise CollectError(f"no notebook (.ipynb) found in {source}" +
                               (f" ({len(submissions)} submission(s) looked at, zips included)" if submissions else ""))
        clashes = _clashes(submissions)
        names = {}
        for s in submissions:  # who a path inside another submission could be pretending to be
            for entry in (e.rstrip("/") for e in s.entries):
                names[entry.lower()] = names[Path(entry).stem.lower()] = entry
            names[s.student.lower()] = s.student
        only = targets[0] if len(targets) == 1 else None
        results = Collection(notes=notes)
        for submission in submissions:
            refused = [_clash_problem(submission, clashes[submission.key])] if submission.key in clashes else []
            if not submission.items:
                record = Collected(submission.student, only and only.assignment, only and only.notebook,
                                   ", ".join(submission.entries), identity=submission.label, layout=submission.layout)
                found = f" (it holds: {_listing(submission.others)})" if submission.others else ""
                record.problems += refused + [f"no notebook in this submission{found}; nothing graded"]
                record.problems += submission.problems
                results.append(record)
                continue
            normalised = []
            for item in submission.items:
                hint = next((f for f in reversed(item.folders) if f in known), assignment)
                normalised.append((item, *normalise(item.path, targets, submission.student, hint, item.original)))
            latest = {}  # the latest attempt per (assignment, notebook): two assignments' submissions each count
            for item, _, record in normalised:
                slot = (record.assignment, record.notebook)
                latest[slot] = max(latest.get(slot, item.attempt), item.attempt)
            chosen = {}
            for item, nb, record in normalised:
                record.origin, record.identity, record.layout = item.origin, submission.label, submission.layout
                record.submitted_at = item.time.as_dict() if item.time else None
                record.problems += submission.problems
                for other in _impersonations(submission, item, names):
                    record.flags.append(f"a path inside the submission names another student ({other}): "
                                        f"{item.origin}; it counts as {submission.student}'s own only")
                results.append(record)
                if refused:
                    record.problems[:0] = refused
                    continue
                newest = latest[(record.assignment, record.notebook)]
                if item.attempt != newest:
                    kind = "exchange submission" if submission.layout == "exchange" else "Blackboard attempt"
                    record.problems.insert(0, f"not graded: an older {kind} ({item.attempt or 'time unreadable'}); "
                                              f"the latest {kind.split()[-1]} ({newest}) is graded")
                    continue
                if nb is None:
                    continue
                key, expected = (record.assignment, record.notebook), f"{record.notebook}.ipynb"
                if key in chosen:  # two files for one notebook: the one with the notebook's name, else the first
                    _, other, other_item = chosen[key]
                    if other_item.original == expected or item.original != expected:
                        record.problems.insert(0, f"not graded: another file ({other.origin}) was graded instead")
                        continue
                    other.problems.insert(0, f"not graded: another file ({record.origin}) was graded instead")
                chosen[key] = (nb, record, item)
            for (assignment_id, notebook), (nb, record, _) in chosen.items():
                out = Path(submitted_dir) / submission.student / assignment_id / f"{notebook}.ipynb"
                out.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(nb, out)
                record.submitted = True
            for assignment_id in {key[0] for key in chosen}:
                graded = [(record, item) for (a, _), (_, record, item) in chosen.items() if a == assignment_id]
                _write_timestamp(Path(submitted_dir) / submission.student / assignment_id, graded)
    return results


def _write_timestamp(folder: Path, graded: list) -> None:
    """nbgrader's timestamp.txt in `folder`: the latest time of its graded files (none when one is unknown);
    each record then gives that time."""
    when = times_of.latest([item.time for _, item in graded if item.time])
    stamp = folder / times_of.TIMESTAMP_FILE
    if when is not None and when.utc is not None:
        stamp.write_text(times_of.nbgrader_text(when.utc) + "\n")
    else:
        stamp.unlink(missing_ok=True)  # an earlier collect's time is not this submission's
    for record, _ in graded:
        record.submitted_at = when.as_dict() if when else None
