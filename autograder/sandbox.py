"""Grade a submission: its code runs in sandboxed kernels, its hidden tests are judged outside.

``SandboxExecute`` replaces nbgrader's ``Execute`` preprocessor in ``nbgrader autograde``
(see ``autograder.grading_config``). For each notebook it:

1. finds every hidden-test call ``check_<name>(fn)`` (``autograder.testcells``) and writes the
   cases into a read-only probe library (``autograder.probes``);
2. executes the notebook cell by cell, its hidden-test calls replaced by ``None``, in a kernel
   isolated by bubblewrap (``autograder.isolation``), within budgets of the grader's configuration
   (``autograder.kernel``): its outputs and visible tests; a timeout or a dead kernel costs that
   cell, and the kernel is restarted for the cells after it;
3. runs the hidden tests in a second, fresh kernel and scratch folder that sees only the provided
   cells, the student's answers and the definitions they use, minus every statement that reaches
   code by a computed name or the grader's runtime (``autograder.probe_program``): a probe call
   with a fresh nonce per check, whose data file must match the SHA-256 announced on the audit pipe;
4. *judges* each graded cell in this trusted process: the cell passes only if its visible tests ran
   without an error in the first kernel, every probe of the cell left data tagged with its nonce in
   the second, and every judge accepts it;
5. replaces the graded cells' outputs by that verdict (stdout kept; stderr, errors and results
   from the kernel dropped), so nbgrader's ``SaveAutoGrades`` records exactly the trusted verdict;
6. writes a JSON report per notebook (verdicts, reasons, runtime flags, the isolation used, the
   seconds of its own and those spent waiting for the grader's JAX compilation cache), and beside it
   what the judges received (``autograder.kept_probes``), so that ``autograder.rejudge`` can judge it
   again without a kernel.

Without isolation it refuses to grade, unless the instructor set ``isolation = "none"``
(``--unsafe-no-sandbox``): then every report says so.
"""
import copy
import fcntl
import json
import os
import re
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Bool, Dict, Integer, Unicode

from . import audit, code_scan, isolation, jax_cache, kept_probes, numba_cache, probe_program
from .isolation import Limits
from .kernel import Budget, CellOutcome, run_cells
from .probes import build_probe_library, judge, probe_outputs
from .testcells import CheckCall, UnsupportedTestCell, probe_call, rewrite_test_cell

# The visible test of a function whose prerequisite has not passed stops with this error
# (azcourse.visible_checks.needs); its cell is then judged by the hidden test alone.
PREREQUISITE_STOP = "PrerequisiteNotPassed:"
UNSAFE = "none (UNSAFE: student code ran with the grader's rights; --unsafe-no-sandbox)"


# A graded cell whose visible run ended so (it failed whatever its hidden tests say) is not probed again.
STOPPED = ("compilation or execution took longer than", "the kernel died", "not run")


def _worth_probing(outcome: CellOutcome | None) -> bool:
    return outcome is None or not outcome.error or not outcome.error.startswith(STOPPED)


@dataclass
class Probed:
    """What the kernel of the hidden tests left: its scratch folder (the probes' data), the graded cells
    it probed, {nonce: SHA-256 announced first}, {graded cell: error of its probe cell}, its audit records."""
    scratch: Path
    cells: set
    digests: dict
    errors: dict
    records: list


class IsolationUnavailable(RuntimeError):
    """No sandbox can be started here, and the instructor did not ask to grade without one."""


# ----------------------------------------------------------------------------- working folders

HELD = ".held"  # in a working folder: its holder keeps an flock on it while it uses the folder


def held_folder(prefix: str):
    """A new private folder ``<temp dir>/<prefix>XXXXXXXX`` and the open file of its lock, held until the
    holder closes it or dies (SIGKILL included: the kernel releases an flock with its last descriptor).
    First the folders of `prefix` that their holder left behind (killed mid-grading: a Ray task cancelled
    or its node lost, a grader killed with ``kill -9``) are removed (``remove_abandoned``)."""
    remove_abandoned(prefix)
    while True:  # locked before it gets its name, so nobody sees it unlocked
        staging = Path(tempfile.mkdtemp(prefix="." + prefix))
        handle = open(staging / HELD, "w")
        fcntl.flock(handle, fcntl.LOCK_EX)
        folder = staging.with_name(staging.name[1:])
        try:
            os.mkdir(folder, 0o700)  # takes the name: the rename replaces only this empty folder
            os.rename(staging, folder)
            return folder, handle
        except FileExistsError:
            handle.close()
            shutil.rmtree(staging, ignore_errors=True)


def remove_abandoned(prefix: str) -> None:
    """Remove this user's folders ``<temp dir>/<prefix>*`` whose lock (``HELD``) nobody holds: their holder
    died. A folder without the lock file (made otherwise) is left alone."""
    for folder in Path(tempfile.gettempdir()).glob(prefix + "*"):
        try:
            info = os.lstat(folder)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
                continue
            with open(os.open(folder / HELD, os.O_RDONLY | os.O_NOFOLLOW)) as handle:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError: its holder is alive
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue


class SandboxExecute(NbGraderPreprocessor):
    """Drop-in replacement of nbgrader's Execute: sandboxed probes, trusted verdicts."""

    timeout = Integer(0, help="seconds per cell; 0 = use Execute.timeout (or 120)").tag(config=True)
    cell_timeouts = Dict({}, help="seconds per cell for given grade_ids (the instructor's heavy cells)").tag(
        config=True)
    notebook_timeout = Integer(1200, help="wall-clock budget of a whole notebook (s), restarts included").tag(
        config=True)
    startup_timeout = Integer(120).tag(config=True)
    max_restarts = Integer(4, help="kernel restarts per notebook after a timeout or a dead kernel").tag(config=True)
    isolation = Unicode("bubblewrap", help="'bubblewrap' (required; grading refuses to run without it) or "
                                           "'none' (UNSAFE: student code runs with the grader's rights)").tag(
        config=True)
    report_directory = Unicode("", help="where per-notebook JSON reports go ('' = none)").tag(config=True)
    warm_numba = Bool(True, help="start each kernel with a copy of the grader's compiled numba cache").tag(
        config=True)
    warm_jax = Bool(True, help="give the kernels of JAX notebooks the grader's JAX compilation cache, "
                               "read-only").tag(config=True)
    # Not configurable: only the grader's own runs of the reference solution (fill_jax_cache) set it.
    jax_cache_fill = Unicode("", help="a folder to fill as the kernel's JAX compilation cache (writable)")
    memory_limit = Integer(Limits.memory, help="bytes of resident memory for a whole sandbox").tag(
        config=True)
    process_limit = Integer(Limits.nproc, help="processes and threads in a sandbox").tag(config=True)

    def _budget(self) -> Budget:
        base = self.timeout or int(self.config.Execute.get("timeout", 0) or 0) or 120
        return Budget(cell=base, per_grade_id=dict(self.cell_timeouts), notebook=self.notebook_timeout,
                      startup=self.startup_timeout, max_restarts=self.max_restarts)

    def _limits(self) -> Limits:
        return Limits(memory=self.memory_limit, nproc=self.process_limit)

    # -- the preprocessor entry point
    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        started = time.monotonic()
        if self.isolation == "none":
            name = UNSAFE
            self.log.warning("AUTOGRADER SANDBOX DISABLED (--unsafe-no-sandbox): student code runs unisolated, "
                             "with the grader's rights.")
        elif self.isolation == "bubblewrap":
            diagnosis = isolation.diagnose()
            if not diagnosis.ok:
                raise IsolationUnavailable(diagnosis.explain() + "\n(python -m autograder doctor explains; "
                                           "--unsafe-no-sandbox grades without isolation)")
            name = diagnosis.name
        else:
            raise ValueError(f"SandboxExecute.isolation must be 'bubblewrap' or 'none', not {self.isolation!r}")
        report = {"student": info.get("student"), "assignment": info.get("assignment"),
                  "notebook": info.get("notebook"), "isolation": name, "flags": [], "cells": {},
                  "jax_cache_wait_seconds": 0.0}  # a notebook stopped before its kernel waited for nothing
        report["flags"] += code_scan.scan(nb, str(info.get("assignment")), str(info.get("notebook")))
        workdir, held = held_folder("azsandbox-")
        try:
            slot = isolation.Slot() if self.isolation != "none" else None
            try:
                outcomes, calls, probed = self._run(nb, workdir, slot, report)
                evidence = self._apply_verdicts(nb, outcomes, calls, probed, report)
            finally:
                if slot:
                    slot.release()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
            held.close()
        report["seconds"] = round(time.monotonic() - started - report["jax_cache_wait_seconds"], 1)
        self._write_report(report, nb, evidence)
        return nb, resources

    def _run(self, nb, workdir: Path, slot, report):
        """Run the notebook (its hidden checks replaced by None) in one kernel, then its hidden tests in a
        second one (``probe_program``); the outcomes of the notebook's cells, the check calls of each graded
        cell, and what the probes left (``Probed``)."""
        executed = copy.deepcopy(nb)
        calls: dict[int, list[CheckCall]] = {}
        outcomes: dict[int, CellOutcome] = {}
        for index, cell in enumerate(executed.cells):
            if cell.cell_type != "code":
                continue
            if cell.metadata.get("nbgrader", {}).get("grade", False):
                try:
                    cell.source, calls[index] = rewrite_test_cell(cell.source, probe=False)
                except UnsupportedTestCell as exc:
                    cell.source, calls[index] = "raise RuntimeError('test cell not gradable')", []
                    outcomes[index] = CellOutcome(error=f"grader configuration problem: {exc}")
        lib = workdir / "lib"
        build_probe_library(lib, [c for cell_calls in calls.values() for c in cell_calls])
        waited = time.monotonic()
        jax_folder = self._jax_cache(executed) if slot is not None else None
        report["jax_cache_wait_seconds"] = round(time.monotonic() - waited, 1)
        numba = self.warm_numba and numba_cache.uses_numba(executed)
        records = self._kernel(executed, workdir / "notebook", lib, slot, jax_folder, numba, outcomes,
                               report["flags"])
        report["flags"] += audit.flags(records, [])
        for index, cell in enumerate(executed.cells):  # kernel outputs go back into nbgrader's notebook
            if cell.cell_type == "code":
                nb.cells[index].outputs = cell.outputs
                nb.cells[index].execution_count = cell.get("execution_count")
        probes = {index: "\n".join(map(probe_call, cell_calls)) for index, cell_calls in calls.items()
                  if cell_calls and _worth_probing(outcomes.get(index))}
        heavy = {grade_id for grade_id in self.cell_timeouts if not grade_id.startswith("test_")}
        program, left_out = probe_program.probe_program(nb, probes, heavy)
        report["flags"] = probe_program.said_once(report["flags"], left_out) + left_out
        program_nb = probe_program.as_notebook(program, nb.metadata.get("kernelspec"))
        program_outcomes: dict[int, CellOutcome] = {}
        probe_flags: list[str] = []
        records = self._kernel(program_nb, workdir / "probes", lib, slot, jax_folder, numba, program_outcomes,
                               probe_flags) if probes else []
        report["flags"] += [f"while the hidden tests ran: {flag}" for flag in probe_flags]
        digests: dict[str, str] = {}
        for record in records:  # the first announcement of a probe's data is the probe's own
            if isinstance(record.get("data"), str):
                digests.setdefault(record["data"], record.get("sha256"))
        errors = {item.origin: program_outcomes[i].error for i, item in enumerate(program)
                  if item.kind == "probe" and i in program_outcomes and program_outcomes[i].error}
        probed = Probed(workdir / "probes", set(probes), digests, errors, records)
        return outcomes, calls, probed

    def _kernel(self, nb, scratch: Path, lib: Path, slot, jax_folder, numba: bool, outcomes: dict,
                flags: list) -> list[dict]:
        """Run `nb` in place in a fresh kernel whose scratch folder is `scratch` (new, empty); the records
        of its audit pipe."""
        scratch.mkdir()
        (scratch / ".probe").mkdir()
        if slot is None:
            sandbox, env = None, {**isolation.sandbox_env(), "HOME": str(scratch), "PYTHONPATH": str(lib),
                                  "MPLCONFIGDIR": str(scratch / ".config" / "matplotlib"),
                                  "NUMBA_CACHE_DIR": str(scratch / ".cache" / "numba")}
        else:
            writable = bool(self.jax_cache_fill)
            sandbox = isolation.Sandbox(scratch, lib, slot, self._limits(), jax_folder, writable)
            sandbox.hand_over(scratch / ".probe")
            if writable:
                sandbox.hand_over(jax_folder)
            env = isolation.sandbox_env(jax_cache.kernel_env(writable) if jax_folder else None)
            if numba:  # spares the engine's compilation
                try:
                    numba_cache.seed(scratch / ".cache", sandbox)
                except Exception as exc:  # slower grading, never a lost grade
                    self.log.warning("grading without a warm numba cache: %s", exc)
        channel = audit.AuditChannel()
        try:
            run_cells(nb, outcomes, sandbox, env, scratch, self._budget(), flags, error_reason, channel)
        finally:
            records = channel.close()
        return records

    def _jax_cache(self, nb) -> Path | None:
        """The JAX cache folder for this notebook's sandbox: the one to fill, the grader's warm cache
        (built first if needed) for a JAX notebook, or None."""
        if self.jax_cache_fill:
            return Path(self.jax_cache_fill)
        if not (self.warm_jax and jax_cache.uses_jax(nb)):
            return None
        try:
            return warm_jax_cache()
        except Exception as exc:  # slower grading, never a lost grade
            self.log.warning("grading without the JAX compilation cache: %s", exc)
            return None

    # -- verdicts
    def _apply_verdicts(self, nb, outcomes, calls, probed, report) -> dict:
        """Judge every graded cell: the notebook kernel's outcome and the data of its hidden tests. Returns
        each graded cell's evidence as ``cell_reason`` takes it ({grade_id: {...}}), for ``kept_probes``."""
        received, evidence = [], {}
        for index, cell in enumerate(nb.cells):
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or not meta.get("grade", False):
                continue
            outcome = outcomes.setdefault(index, CellOutcome(error="not run"))
            cell_calls = calls.get(index, [])
            checks = [{"module": c.module, "name": c.name} for c in cell_calls]
            if index in probed.cells:  # every check's data, so that a later rejudge can judge any of them
                for check, call in zip(checks, cell_calls):
                    check["outputs"] = probe_outputs(probed.scratch, call, probed.digests)
            grade_id = meta.get("grade_id", str(index))
            evidence[grade_id] = {"visible": outcome.error or (None if outcome.ran else "not run"),
                                  "probed": index in probed.cells, "probe_error": probed.errors.get(index),
                                  "checks": checks}
            reason, judged = cell_reason(evidence[grade_id])
            received += [call.nonce for call in cell_calls[:judged]]
            outcome.passed, outcome.reason = reason is None, reason or ""
            cell.outputs = verdict_outputs(cell.outputs, reason, len(cell_calls))
            report["cells"][grade_id] = {"passed": outcome.passed, "points": meta.get("points", 0),
                                         "reason": outcome.reason, "checks": [c.name for c in cell_calls]}
        report["flags"] += [f for f in audit.flags(probed.records, received) if f not in report["flags"]]
        return evidence

    def _write_report(self, report, nb, evidence: dict) -> None:
        """``<report_directory>/<assignment>/<student>/<notebook>.json``, and beside it the kept probe outputs
        of the graded cells' `evidence` (``kept_probes``); each file replaced whole."""
        if not self.report_directory:
            return
        target = Path(self.report_directory) / str(report["assignment"]) / str(report["student"])
        target.mkdir(parents=True, exist_ok=True)
        try:
            report["kept_probes"] = kept_probes.write(target, report, nb, evidence)
        except Exception as exc:  # noqa: BLE001 (no rejudge without a kernel later, never a lost grade)
            self.log.warning("probe outputs not kept: %s: %s", type(exc).__name__, exc)
        kept_probes.write_whole(target / f"{report['notebook']}.json", json.dumps(report, indent=1).encode())


def _judge_check(check: dict) -> str | None:
    return judge(check["module"], check["name"], check["outputs"])


def cell_reason(evidence: dict, judge_check=_judge_check) -> tuple[str | None, int]:
    """The verdict of one graded cell from its evidence: None (passed) or why it failed, and how many of
    its checks' data were judged. Grading (``SandboxExecute``) and ``autograder.rejudge`` decide here alike.

    `evidence`: ``visible`` (the error of the cell's visible run in the notebook's kernel, None if it ran
    cleanly), ``probed`` (whether its hidden tests ran: not after a timeout or a dead kernel),
    ``probe_error`` (the error of its probe cell) and ``checks`` ([{"module", "name", "outputs"}] in the
    cell's order; "outputs" is the probe's data, or the string saying why there is none).
    `judge_check(check)`: ``probes.judge`` of a check's outputs (rejudge reads them only when asked).
    """
    reason, checks = evidence["visible"], evidence["checks"]
    if reason and reason.startswith(PREREQUISITE_STOP) and checks:
        reason = None  # the visible test stopped at "fix X first": the hidden judge alone decides
    judged = 0
    for check in checks if evidence["probed"] else []:
        outputs = check["outputs"]
        if isinstance(outputs, str):  # no (valid) data: the cell fails, with its own error if it had one
            reason = reason or evidence["probe_error"] or outputs
            break
        judged += 1
        verdict = judge_check(check)
        if verdict and reason and not reason.startswith("AssertionError"):
            reason += f"\nHidden test: {verdict}"  # an error of the student's own code says most
        elif verdict:  # the hidden judge names the failing case: more specific than a visible assert
            reason = verdict + (f"\nVisible test: {reason}" if reason else "")
        if verdict:
            break
    if checks and not evidence["probed"]:
        reason = reason or "not run"
    return reason, judged


PASSED_NOTE = "Tests passed"
FAILED_NAME = "TestFailed"


def verdict_outputs(outputs: list, reason: str | None, checks: int) -> list:
    """A graded cell's outputs once judged: its stdout and displays (stderr, errors and results from the
    kernel dropped), then the trusted verdict, which is what nbgrader's ``SaveAutoGrades`` scores."""
    kept = [o for o in outputs if o.output_type in ("stream", "display_data") and o.get("name") != "stderr"]
    if reason is None:
        note = (PASSED_NOTE + (f" ({checks} hidden check(s), judged by the grader outside your kernel)"
                               if checks else "") + ".\n")
        return kept + [nbformat.v4.new_output("stream", name="stdout", text=note)]
    return kept + [nbformat.v4.new_output(
        "error", ename=FAILED_NAME, evalue=reason.splitlines()[0] if reason else "",
        traceback=["Test failed (decided by the grader, outside your kernel):", *reason.splitlines()])]


def is_verdict(output) -> bool:
    """Whether a cell output is one that ``verdict_outputs`` appended."""
    return (output.get("output_type") == "error" and output.get("ename") == FAILED_NAME) or (
        output.get("output_type") == "stream" and output.get("name") == "stdout"
        and str(output.get("text", "")).startswith(PASSED_NOTE))

ANSI = re.compile(r"\x1b\[[0-9;]*m")
ARROW = re.compile(r"^\s*-+>\s*\d+\s+(.*)$")


def error_reason(error) -> str:
    """`Name: message` of an error output, plus the failing line (``(in: ...)``), except for an
    AssertionError with a message: a test's own message says what failed, and its line (the ``raise``
    of ``azcourse.visible_checks.fail``, or a hidden test's) says nothing more."""
    name, message = error.get("ename", "Error"), str(error.get("evalue", ""))
    reason = f"{name}: {message}".strip()
    lines = [ANSI.sub("", line) for frame in error.get("traceback", []) for line in str(frame).splitlines()]
    failing = [m.group(1) for m in map(ARROW.match, lines) if m]
    if failing and not (name == "AssertionError" and message.strip()):
        reason += f" (in: {failing[-1].strip()[:200]})"
    return reason


def warm_jax_cache() -> Path:
    """The grader's JAX compilation cache of the current sources (``fill_jax_cache`` builds it once)."""
    return jax_cache.warm_cache_dir(fill_jax_cache)


def fill_jax_cache(folder: Path) -> None:
    """Grade the source notebook (reference solution and hidden tests) of every JAX assignment in a
    sandbox whose JAX writes each program it compiles into `folder`; RuntimeError unless every graded
    cell passes (the cache must come from the same runs as a correct submission's grading)."""
    with tempfile.TemporaryDirectory(prefix="azsandbox-reference-") as reports:
        for path in jax_cache.reference_notebooks():
            assignment, notebook = path.parent.name, path.stem
            grader = SandboxExecute(timeout=600, report_directory=reports, jax_cache_fill=str(folder))
            grader.preprocess(nbformat.read(path, as_version=4),
                              {"nbgrader": {"student": "reference", "assignment": assignment, "notebook": notebook}})
            report = json.loads((Path(reports) / assignment / "reference" / f"{notebook}.json").read_text())
            failed = {name: cell["reason"] for name, cell in report["cells"].items() if not cell["passed"]}
            if failed:
                raise RuntimeError(f"the reference solution of {assignment} failed while filling the JAX cache: "
                                   f"{failed}")
