"""What a submission's judges received, kept beside its grade: ``<notebook>.probes.jsonl.gz``.

``SandboxExecute`` (the trusted grader, once the kernels are gone; never a kernel) writes it into the
submission's report folder, ``<reports>/<assignment>/<student>/<notebook>.probes.jsonl.gz``, beside the
report ``<notebook>.json``, which names it and gives its header's SHA-256 under ``"kept_probes"``.
``autograder.rejudge`` reads it back to judge again without starting a kernel.

The file is JSON lines, each line its own gzip member (``zcat`` shows the lines; a reader decompresses
only the lines it needs: an honest part 1 is 2 MB of JSON, 0.1 MB kept). Line 1 is the header:
``format``, ``student``, ``assignment``, ``notebook``; ``kernel``, what ran in the kernels: ``cells``
({grade_id: SHA-256 of the source} of every locked or graded cell as graded) and ``probes``
({"<assignment>.<name>": ``probes.probe_fingerprint``} of every check); ``cells``, each graded code cell's
evidence as ``sandbox.cell_reason`` takes it, with each check's outputs replaced by where they are
(``offset`` and ``size`` of their member after the header's, ``bytes`` and ``sha256`` of the line), by
``missing`` (why the probe left no valid data) or by ``dropped`` (past ``MAX_KEPT_BYTES``, or a line that
``parse`` would refuse). Each further line holds one check's outputs, compact JSON, exactly as its judge
received them (``probes.probe_outputs``: bounded, matched against the digest the probe announced), or one
of a cell's texts. A reader checks the header against the report's digest and each line against the header.

What a kernel sends is bounded where it is written, never only where it is read, so that whatever the
writer keeps its reader can read: a text of the evidence longer than ``MAX_HEADER_TEXT`` bytes (the error
of the visible run or of the probe cell: as large as the kernel's output caps allow, and a notebook has
several) is not in the header but on a line of its own, exactly as the judge had it, the header giving
``{"kept": {offset, size, bytes, sha256}}`` in its place (or ``{"dropped": why}`` past ``MAX_KEPT_BYTES``);
a check's outputs are kept only if their line passes the bounds ``parse`` reads it with (compact JSON may
be longer than what the kernel wrote: ``9e15`` becomes ``9000000000000000.0``, ``"\u002c"`` a comma); and
a header past what ``read`` reads (``MAX_HEADER_BYTES``, ``HEADER_READ``) is not written at all.
"""
import gzip
import hashlib
import json
import os
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

from . import probes

FORMAT = "azcourse-kept-probes/2"
FORMATS = ("azcourse-kept-probes/1", FORMAT)  # /1: the header holds every text (read as before)
SUFFIX = ".probes.jsonl.gz"
HEADER_READ = probes.MAX_PROBE_BYTES  # compressed bytes read for the header (a few kB in practice)
MAX_HEADER_BYTES = probes.MAX_PROBE_BYTES  # the header once decompressed, at most
MAX_HEADER_TEXT = 4096  # bytes (JSON) of a text of the evidence kept in the header; a longer one has its line
LEVEL = 6  # gzip: 2 MB of part 1 in 40 ms, to a 20th
MAX_KEPT_BYTES = 4 * probes.MAX_PROBE_BYTES  # one notebook's lines, uncompressed (an honest part 1: 2 MB)


class NotKept(LookupError):
    """The submission was graded without kept outputs (before they were kept, or past the size bound)."""


class Unusable(ValueError):
    """A kept file that cannot be trusted: changed since it was graded, truncated, another submission's."""


def write_whole(path: Path, data: bytes) -> None:
    """Replace `path` by `data` in one step (a reader sees the old file or the new one, never part)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    with open(partial, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def kernel_cells(nb) -> dict[str, str]:
    """{grade_id: SHA-256 of the source} of the notebook's locked and graded cells, answers excluded:
    the cells a kernel runs that are the course's, not the student's."""
    found = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if "grade_id" in meta and (meta.get("locked") or meta.get("grade")) and not meta.get("solution"):
            found[meta["grade_id"]] = digest(cell.source.encode())
    return found


class _Lines:
    """The members after the header, as ``write`` adds them (at most ``MAX_KEPT_BYTES`` of lines)."""

    def __init__(self):
        self.members, self.size, self.offset = [], 0, 0

    def add(self, data: bytes) -> dict | None:
        """Where the line `data` is ({offset, size, bytes, sha256}), or None when it does not fit."""
        if self.size + len(data) > MAX_KEPT_BYTES:
            return None
        self.members.append(gzip.compress(data + b"\n", LEVEL, mtime=0))
        entry = {"offset": self.offset, "size": len(self.members[-1]), "bytes": len(data), "sha256": digest(data)}
        self.size, self.offset = self.size + len(data), self.offset + len(self.members[-1])
        return entry


def _text(value, lines: _Lines):
    """A field of a cell's evidence as the header holds it: itself, or a text longer than
    ``MAX_HEADER_TEXT`` bytes of JSON as where its line is (``{"kept": ...}``, ``{"dropped": why}``)."""
    if not isinstance(value, str) or len(value) <= MAX_HEADER_TEXT // 12:  # 12: the most JSON bytes a character takes
        return value
    data = json.dumps(value, separators=(",", ":")).encode()
    if len(data) <= MAX_HEADER_TEXT:
        return value
    entry = lines.add(data)
    return {"kept": entry} if entry else {"dropped": f"the notebook's kept lines exceed {MAX_KEPT_BYTES} bytes"}


def _outputs_line(outputs) -> tuple[bytes, str]:
    """A check's outputs as their line (compact JSON: ASCII, escaped), and "" or why ``parse`` would refuse
    it (the outputs passed those bounds as the kernel wrote them, not necessarily once written again)."""
    data = json.dumps(outputs, separators=(",", ":")).encode()
    try:
        probes.parse_bounded(data)
    except (ValueError, RecursionError, MemoryError) as exc:
        return data, f"their line would be past what a rejudge reads ({exc})"
    return data, ""


def write(folder: Path, report: dict, nb, evidence: dict) -> dict:
    """Write the kept file of the graded notebook `nb` from its cells' `evidence` ({grade_id: as
    ``sandbox.cell_reason`` takes it}) into `folder`; the report's pointer {"file", "sha256", "bytes"}.
    ValueError (nothing written) for a header that ``read`` would refuse for its size."""
    lines, fingerprints, cells = _Lines(), {}, {}
    for grade_id, cell in evidence.items():
        checks = []
        for check in cell["checks"]:
            module, name = check["module"], check["name"]
            key = f"{module}.{name}"
            if key not in fingerprints:
                fingerprints[key] = probes.probe_fingerprint(module, name)
            entry = {"module": module, "name": name}
            if "outputs" not in check:  # not probed
                pass
            elif isinstance(check["outputs"], str):
                entry["missing"] = check["outputs"]
            else:
                data, refused = _outputs_line(check["outputs"])
                where = None if refused else lines.add(data)
                if where:
                    entry.update(where)
                else:
                    entry["dropped"] = refused or f"the notebook's kept lines exceed {MAX_KEPT_BYTES} bytes"
            checks.append(entry)
        cells[grade_id] = {**{k: _text(v, lines) for k, v in cell.items() if k != "checks"}, "checks": checks}
    header = {"format": FORMAT, "student": report["student"], "assignment": report["assignment"],
              "notebook": report["notebook"], "written": round(time.time(), 3),
              "kernel": {"cells": kernel_cells(nb), "probes": fingerprints}, "cells": cells}
    head = json.dumps(header, separators=(",", ":")).encode()
    first = gzip.compress(head + b"\n", LEVEL, mtime=0)
    if len(head) + 1 > MAX_HEADER_BYTES or len(first) > HEADER_READ:
        raise ValueError(f"the header would be {len(head)} bytes ({len(first)} compressed), past what a "
                         f"rejudge reads ({MAX_HEADER_BYTES}, {HEADER_READ})")
    data = b"".join([first, *lines.members])
    path = folder / f"{report['notebook']}{SUFFIX}"
    write_whole(path, data)
    return {"file": path.name, "sha256": digest(head), "bytes": len(data)}


def _member(data: bytes, limit: int) -> tuple[bytes, int]:
    """The first gzip member of `data`, decompressed (at most `limit` bytes, else ValueError), and how many
    bytes of `data` it took."""
    member = zlib.decompressobj(wbits=31)
    text = member.decompress(data, limit + 1)
    if len(text) > limit or member.unconsumed_tail or not member.eof:
        raise ValueError("a line is larger than written, or cut")
    return text, len(data) - len(member.unused_data)


@dataclass
class Kept:
    """A kept file whose header matched its report's digest: `header` as written; ``line`` reads a line,
    ``field`` a cell's text that has a line of its own."""
    path: Path
    header: dict
    body: int  # where the second member starts

    def line(self, check: dict, what: str = "") -> bytes:
        """One line as kept (its header entry: ``offset``, ``size``, ``bytes``, ``sha256``; a check's outputs
        unless `what` says what else), the JSON text, checked against the header; Unusable if it is not
        what was written."""
        unreadable, changed = (f"{what} is unreadable", f"{what} changed since it was kept") if what else (
            f"the outputs of {check.get('name')} are unreadable",
            f"the outputs of {check.get('name')} changed since they were kept")
        try:
            with os.fdopen(os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as handle:
                handle.seek(self.body + int(check["offset"]))
                line, _ = _member(handle.read(int(check["size"])), int(check["bytes"]) + 1)
        except (OSError, KeyError, TypeError, ValueError, zlib.error) as exc:
            raise Unusable(f"{self.path.name}: {unreadable} ({type(exc).__name__}: {exc})") from None
        if line[-1:] != b"\n" or digest(line[:-1]) != check.get("sha256"):
            raise Unusable(f"{self.path.name}: {changed}")
        return line[:-1]

    def field(self, value, what: str):
        """A field of a kept cell's evidence as the judge had it: as in the header, or a long text read from
        its line (``{"kept": ...}``); NotKept when it was not kept (``{"dropped": why}``), Unusable when
        its line is not what was written."""
        if not isinstance(value, dict):
            return value
        if "dropped" in value:
            raise NotKept(f"{what} was not kept ({value['dropped']})")
        if not isinstance(value.get("kept"), dict):
            raise Unusable(f"{self.path.name}: {what} is neither a text nor where one is")
        line = self.line(value["kept"], what)
        try:
            text = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise Unusable(f"{self.path.name}: {what} cannot be read ({exc})") from None
        if not isinstance(text, str):
            raise Unusable(f"{self.path.name}: {what} is not a text")
        return text


def parse(line: bytes, what: str):
    """Kept outputs parsed within the probe data's bounds (``probes.parse_bounded``); Unusable if they
    cannot be."""
    try:
        return probes.parse_bounded(line)
    except (ValueError, RecursionError, MemoryError) as exc:
        raise Unusable(f"{what} cannot be read ({exc})") from None


def read(folder: Path, report: dict, student: str, assignment: str, notebook: str) -> Kept:
    """The kept file of `notebook` in `folder`, vouched for by its `report` (``<notebook>.json``).
    NotKept when the report names none; Unusable when the file is not the one the report names."""
    pointer = report.get("kept_probes")
    if not pointer:
        raise NotKept(f"{notebook}: no kept probe outputs (graded before they were kept)")
    path = folder / f"{notebook}{SUFFIX}"
    if not isinstance(pointer, dict) or pointer.get("file") != path.name:
        raise Unusable(f"{notebook}.json names no kept file of this notebook")
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(descriptor, "rb") as handle:
            head, body = _member(handle.read(HEADER_READ), MAX_HEADER_BYTES)
    except (OSError, ValueError, zlib.error) as exc:
        raise Unusable(f"{path.name}: unreadable ({type(exc).__name__}: {exc})") from None
    if not head.endswith(b"\n") or digest(head[:-1]) != pointer.get("sha256"):
        raise Unusable(f"{path.name}: changed since it was graded (its header is not the one the report vouches for)")
    try:
        header = json.loads(head)
    except (ValueError, RecursionError) as exc:
        raise Unusable(f"{path.name}: its header cannot be read ({exc})") from None
    if not isinstance(header, dict) or header.get("format") not in FORMATS \
            or [header.get(k) for k in ("student", "assignment", "notebook")] != [student, assignment, notebook]:
        raise Unusable(f"{path.name}: kept for another submission or in another format")
    return Kept(path, header, body)
