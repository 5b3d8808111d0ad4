"""Evidence from inside a kernel that the kernel cannot take back: a pipe to the grader.

Each kernel inherits only the write end of a pipe (its number in ``AG_AUDIT_FD``). The audit hook
that ``_agprobe._runtime.install`` adds (audit hooks cannot be removed) writes one JSON line per
suspicious event into it, and each hidden-test probe announces its nonce there before it writes
its data. The grader drains the pipe in a thread, keeping at most ``LIMIT`` bytes: what was written
cannot be rewritten or deleted by the kernel, unlike a file in its scratch folder. A kernel that
closes or replaces the descriptor silences later events, but its probes' announcements then go
missing, which the grader flags.
"""
import json
import os
import threading

ENV = "AG_AUDIT_FD"
LIMIT = 256_000


class AuditChannel:
    """The grader's end of the audit pipe of one notebook (all its kernels, restarts included)."""

    def __init__(self):
        self._read, self._write = os.pipe()
        os.set_inheritable(self._read, False)
        os.set_inheritable(self._write, False)
        self._data = bytearray()
        self.dropped = 0
        self._thread = threading.Thread(target=self._drain, name="audit-channel", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._read, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            room = max(0, LIMIT - len(self._data))
            self._data += chunk[:room]
            self.dropped += len(chunk) - len(chunk[:room])

    def kernel_descriptor(self) -> int:
        """A new write end for one kernel launch (the launcher closes it once the kernel started)."""
        return os.dup(self._write)

    def close(self, patience: float = 5.0) -> list[dict]:
        """Stop listening (every kernel is gone by now); the records written, oldest first."""
        os.close(self._write)
        self._thread.join(patience)
        if not self._thread.is_alive():
            os.close(self._read)
        records = []
        for line in bytes(self._data).decode("utf-8", "replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
        return records


def flags(records: list[dict], announced_needed: list[str]) -> list[str]:
    """Flags for the report from the channel's `records`; `announced_needed`: the nonces of probes
    whose data the grader received (each must have been announced)."""
    found, paths = [], []
    for record in records:
        event, target = record.get("event"), record.get("path")
        if event == "sys.addaudithook":
            found.append("audit-hook tampering: the notebook added an audit hook of its own")
        elif event == "import" and isinstance(target, str):
            found.append(f"touches the grader's probe package outside a test: imported {target[:80]}")
        elif isinstance(target, str):
            paths.append(target)
    found += [f"tried to access a grader path: {path}" for path in sorted(set(paths))[:20]]
    announced = {r.get("probe") for r in records}
    missing = [nonce for nonce in announced_needed if nonce not in announced]
    if missing:
        found.append(f"audit-hook tampering: the grader's audit channel was closed or replaced "
                     f"({len(missing)} test probe(s) not announced)")
    return list(dict.fromkeys(found))
