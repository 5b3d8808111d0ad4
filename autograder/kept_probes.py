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
``missing`` (why the probe left no valid data) or by ``dropped`` (past ``MAX_KEPT_BYTES``). Each further
line holds one check's outputs, compact JSON, exactly as its judge received them (``probes.probe_outputs``:
bounded, matched against the digest the probe announced). A reader checks the header against the
report's digest and each line against the header.
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

FORMAT = "azcourse-kept-probes/1"
SUFFIX = ".probes.jsonl.gz"
HEADER_READ = probes.MAX_PROBE_BYTES  # compressed bytes read for the header (a few kB in practice)
LEVEL = 6  # gzip: 2 MB of part 1 in 40 ms, to a 20th
MAX_KEPT_BYTES = 4 * probes.MAX_PROBE_BYTES  # one notebook's outputs, uncompressed (an honest part 1: 2 MB)


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


def write(folder: Path, report: dict, nb, evidence: dict) -> dict:
    """Write the kept file of the graded notebook `nb` from its cells' `evidence` ({grade_id: as
    ``sandbox.cell_reason`` takes it}) into `folder`; the report's pointer {"file", "sha256", "bytes"}."""
    members, size, offset, fingerprints, cells = [], 0, 0, {}, {}
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
                data = json.dumps(check["outputs"], separators=(",", ":")).encode()  # one line: ASCII, escaped
                if size + len(data) > MAX_KEPT_BYTES:
                    entry["dropped"] = f"the notebook's outputs exceed {MAX_KEPT_BYTES} bytes"
                else:
                    members.append(gzip.compress(data + b"\n", LEVEL, mtime=0))
                    entry.update(offset=offset, size=len(members[-1]), bytes=len(data), sha256=digest(data))
                    size, offset = size + len(data), offset + len(members[-1])
            checks.append(entry)
        cells[grade_id] = {**{k: v for k, v in cell.items() if k != "checks"}, "checks": checks}
    header = {"format": FORMAT, "student": report["student"], "assignment": report["assignment"],
              "notebook": report["notebook"], "written": round(time.time(), 3),
              "kernel": {"cells": kernel_cells(nb), "probes": fingerprints}, "cells": cells}
    head = json.dumps(header, separators=(",", ":")).encode()
    data = b"".join([gzip.compress(head + b"\n", LEVEL, mtime=0), *members])
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
    """A kept file whose header matched its report's digest: `header` as written; ``line`` reads a line."""
    path: Path
    header: dict
    body: int  # where the second member starts

    def line(self, check: dict) -> bytes:
        """One check's outputs as kept (its header entry: ``offset``, ``size``, ``bytes``, ``sha256``), the
        JSON text, checked against the header; Unusable if it is not what was written."""
        try:
            with os.fdopen(os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as handle:
                handle.seek(self.body + int(check["offset"]))
                line, _ = _member(handle.read(int(check["size"])), int(check["bytes"]) + 1)
        except (OSError, KeyError, TypeError, ValueError, zlib.error) as exc:
            raise Unusable(f"{self.path.name}: the outputs of {check.get('name')} are unreadable "
                           f"({type(exc).__name__}: {exc})") from None
        if line[-1:] != b"\n" or digest(line[:-1]) != check.get("sha256"):
            raise Unusable(f"{self.path.name}: the outputs of {check.get('name')} changed since they were kept")
        return line[:-1]


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
            head, body = _member(handle.read(HEADER_READ), probes.MAX_PROBE_BYTES)
    except (OSError, ValueError, zlib.error) as exc:
        raise Unusable(f"{path.name}: unreadable ({type(exc).__name__}: {exc})") from None
    if not head.endswith(b"\n") or digest(head[:-1]) != pointer.get("sha256"):
        raise Unusable(f"{path.name}: changed since it was graded (its header is not the one the report vouches for)")
    header = json.loads(head)
    if [header.get(k) for k in ("format", "student", "assignment", "notebook")] != \
            [FORMAT, student, assignment, notebook]:
        raise Unusable(f"{path.name}: kept for another submission or in another format")
    return Kept(path, header, body)
