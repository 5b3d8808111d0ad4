"""Run a notebook's cells in a sandboxed kernel, within budgets that the submission cannot change.

``run_cells`` executes the code cells one by one with nbclient in a kernel started through
``autograder.isolation`` (or, only when the instructor asked for it, unisolated). Budgets come
from the grader's configuration alone, never from the submitted notebook:

- a timeout per cell (``Budget.cell``, or ``Budget.per_grade_id`` for the instructor's heavy cells);
- a wall-clock budget for the whole notebook, kernel starts and replays included, enforced twice:
  by the timeouts handed to nbclient, and by a ``Guard`` that kills the sandbox when it runs out
  (or when the sandbox's memory passes its limit);
- at most ``Budget.max_restarts`` kernel restarts after a timeout or a dead kernel. A restarted
  kernel first replays the earlier non-test cells that ran cleanly.
"""
import json
import os
import secrets
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from traitlets import Any, Integer

from . import isolation


@dataclass
class Budget:
    cell: int = 120                                     # seconds per cell
    per_grade_id: dict = field(default_factory=dict)    # the instructor's longer cells, by grade_id
    notebook: int = 1200                                # seconds for the whole notebook
    startup: int = 120                                  # seconds for a kernel to start
    max_restarts: int = 4

    def for_cell(self, cell) -> int:
        return int(self.per_grade_id.get(cell.metadata.get("nbgrader", {}).get("grade_id"), self.cell))


@dataclass
class CellOutcome:
    ran: bool = False
    error: str | None = None        # problem found while executing (timeout, dead kernel, error output)
    passed: bool | None = None      # graded cells: the trusted verdict
    reason: str = ""


class CappedClient(NotebookClient):
    """nbclient that keeps at most `max_cell_output` characters of output per cell (an output
    flood from student code must not exhaust the grader's memory)."""
    max_cell_output = Integer(2_000_000).tag(config=True)

    def output(self, outs, msg, display_id, cell_index):
        used = self.__dict__.setdefault("_output_used", {})
        used[cell_index] = used.get(cell_index, 0) + len(json.dumps(msg.get("content", {})))
        if used[cell_index] > self.max_cell_output:
            if used.get(("noted", cell_index)) is None:
                used[("noted", cell_index)] = True
                outs.append(nbformat.v4.new_output("stream", name="stdout",
                                                   text="\n[output truncated by the grader]\n"))
            return None
        return super().output(outs, msg, display_id, cell_index)


def sandbox_connection_file(sandbox: isolation.Sandbox, connection: str) -> str:
    """A copy of the grader's connection file for the kernel, with socket paths as it sees them."""
    info = json.loads(Path(connection).read_text())
    if info.get("transport") == "ipc":
        info["ip"] = sandbox.inside(info["ip"])
    target = Path(connection).with_name("sandbox-" + Path(connection).name)
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(info, handle)
    sandbox.hand_over(target)
    return sandbox.inside(str(target))


class SandboxKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel starts in `sandbox` (None: unisolated, at the instructor's
    explicit request), watched by a Guard (memory, the notebook's deadline)."""
    sandbox = Any(None, allow_none=True)
    deadline = Any(None, allow_none=True)    # time.monotonic() after which the sandbox is killed
    guard = Any(None, allow_none=True)

    def format_kernel_cmd(self, extra_arguments=None):
        if self.sandbox is None:
            return super().format_kernel_cmd(extra_arguments)
        connection = sandbox_connection_file(self.sandbox, self.connection_file)
        command, self._descriptors = self.sandbox.command(
            [self.sandbox.python, "-m", "ipykernel_launcher", "-f", connection])
        return command

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        descriptors = self.__dict__.pop("_descriptors", [])
        try:
            await super()._async_launch_kernel(kernel_cmd, **({"pass_fds": descriptors} if descriptors else {}),
                                               **kw)
        finally:
            for fd in descriptors:
                os.close(fd)
        if self.sandbox is not None:
            pid = self.provisioner.process.pid
            self.sandbox.slot.record(pid)
            self.guard = isolation.Guard(pid, self.sandbox.limits.memory, self.deadline)
            self.guard.start()


class _Restart(Exception):
    pass


class _BudgetExceeded(Exception):
    pass


def _new_client(nb, sandbox, env, scratch: Path, deadline: float, budget: Budget):
    name = f"kernel-{secrets.token_hex(4)}"
    sockets = {"transport": "ipc", "ip": str(scratch / name)} if sandbox else {}  # no network in the sandbox
    km = SandboxKernelManager(kernel_name="python3", sandbox=sandbox, deadline=deadline,
                              connection_file=str(scratch / f"{name}.json"), **sockets)
    startup = max(1, min(budget.startup, int(deadline - time.monotonic())))
    client = CappedClient(nb, km=km, timeout=budget.cell, startup_timeout=startup, allow_errors=True,
                          interrupt_on_timeout=False, shutdown_kernel="immediate", record_timing=False,
                          kernel_name="python3", resources={"metadata": {"path": str(scratch)}})
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}  # kernel banners, not cell output
    # independent: no JPY_PARENT_PID, whose poller would take the sandbox's pid 1 for a dead parent
    # (the sandbox dies with the grader through bwrap's --die-with-parent instead).
    return client, {"env": env, "cwd": str(scratch), "independent": sandbox is not None, **quiet}


def _run_hidden(client, source: str, timeout: int) -> None:
    """Run code in the kernel outside the notebook (setup, replay); its outputs are dropped."""
    cell = nbformat.v4.new_code_cell(source)
    client.timeout = timeout
    client.nb.cells.append(cell)  # nbclient addresses cells by index: give it a real one
    try:
        client.execute_cell(cell, len(client.nb.cells) - 1, store_history=False)
    finally:
        client.nb.cells.pop()


def _cell_name(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id") or cell.source.strip().splitlines()[0][:40]


def _not_run(indices, outcomes, reason) -> None:
    for index in indices:
        outcome = outcomes.setdefault(index, CellOutcome())
        if not outcome.error:
            outcome.error = reason


def run_cells(nb, outcomes: dict, sandbox, env: dict, scratch: Path, budget: Budget, flags: list,
              error_reason) -> None:
    """Execute the code cells of `nb` in place, recording a CellOutcome per cell in `outcomes`.

    `sandbox` is an isolation.Sandbox, or None for an unisolated kernel; `env` the kernel's whole
    environment; `flags` collects runtime events for the instructor's report; `error_reason`
    turns an error output into a one-line reason.
    """
    deadline = time.monotonic() + budget.notebook
    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]
    replay: list[int] = []  # non-test cells that ran cleanly, re-run after a kernel restart
    position, restarts = 0, 0

    def remaining() -> int:
        left = deadline - time.monotonic()
        if left <= 1:
            raise _BudgetExceeded
        return int(left)

    while position < len(code_cells):
        client, start_kwargs = _new_client(nb, sandbox, env, scratch, deadline, budget)
        km = client.km  # nbclient forgets it when the kernel is cleaned up
        try:
            remaining()
            with client.setup_kernel(cleanup_kc=True, **start_kwargs):
                _run_hidden(client, "import _agprobe._runtime as _r; _r.install(); del _r", min(60, remaining()))
                for index in replay:
                    _run_hidden(client, nb.cells[index].source, min(budget.for_cell(nb.cells[index]), remaining()))
                while position < len(code_cells):
                    index = code_cells[position]
                    cell = nb.cells[index]
                    position += 1
                    outcome = outcomes.setdefault(index, CellOutcome())
                    if outcome.error:  # e.g. an unparsable test cell
                        continue
                    client.timeout = max(1, min(budget.for_cell(cell), remaining()))
                    try:
                        client.execute_cell(cell, index)
                    except (CellTimeoutError, DeadKernelError) as exc:
                        if deadline - time.monotonic() <= 1:
                            raise _BudgetExceeded from None
                        if isinstance(exc, CellTimeoutError):
                            problem = f"the cell did not finish within {client.timeout} s (infinite loop, or too slow)"
                            flags.append(f"timeout in cell {index} ({_cell_name(cell)})")
                        else:
                            why = km.guard.reason if km.guard is not None and km.guard.reason else \
                                "os._exit, a crash, or out of memory"
                            problem = f"the kernel died while running this cell ({why})"
                            flags.append(f"kernel died in cell {index} ({_cell_name(cell)}): {why}")
                        outcome.ran, outcome.error = True, f"{problem}; the kernel was restarted for the cells after it"
                        raise _Restart from None
                    outcome.ran = True
                    errors = [o for o in cell.outputs if o.output_type == "error"]
                    if errors:
                        outcome.error = error_reason(errors[0])
                    elif not cell.metadata.get("nbgrader", {}).get("grade", False):
                        replay.append(index)
        except _Restart:
            restarts += 1
            if restarts > budget.max_restarts:
                _not_run(code_cells[position:], outcomes, "not run: too many kernel restarts")
                return
        except (_BudgetExceeded, CellTimeoutError, DeadKernelError) as exc:
            if not isinstance(exc, _BudgetExceeded) and deadline - time.monotonic() > 1:
                _not_run(code_cells[position:], outcomes, f"not run: the kernel could not be restarted ({exc})")
                flags.append(f"kernel restart failed: {exc}")
                return
            _not_run(code_cells[max(position - 1, 0):], outcomes,
                     f"not run: the notebook exceeded its time budget of {budget.notebook} s")
            flags.append("notebook time budget exceeded")
            return
        except Exception as exc:  # noqa: BLE001 (kernel start or replay failed: grade what ran, say why)
            _not_run(code_cells[position:], outcomes, f"not run: the kernel could not be restarted ({exc})")
            flags.append(f"kernel restart failed: {exc}")
            return
        finally:
            if km.guard is not None:
                km.guard.stop()
            if sandbox is not None:
                sandbox.slot.clear()  # nothing of this kernel outlives it
