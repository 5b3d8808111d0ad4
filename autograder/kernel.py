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
import base64
import json
import os
import secrets
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import zmq
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async, run_hook, run_sync
from nbformat.v4 import output_from_msg
from traitlets import Any, Integer

from . import audit, isolation


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


_HUGE = 1 << 62
_OUTPUT_DEPTH = 4   # an output sits 4 levels deep in a notebook file: notebook > cells > cell > outputs
_WIDGET_DEPTH = 6   # a widget state key: metadata > widgets > mime > state > model > state
_LINE_BREAKS = ("\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")  # str.splitlines
_CHUNK = 1 << 20


def stored_size(node, depth: int = _OUTPUT_DEPTH) -> int:
    """An upper bound of the bytes that `node` (an output, a widget state entry) adds to a notebook
    file when it sits `depth` levels deep.

    nbformat writes JSON with ``indent=1`` after splitting a stream's text and a display's
    non-JSON data into one list item per line, so a flat count (``len(json.dumps(...))``)
    understates it badly: a million newlines, or a deeply nested metadata list, grow tenfold or
    more once written. This bound counts every string ASCII-escaped (never less than its UTF-8
    bytes), the strings nbformat splits as split at every line break, and every line with its
    indentation. It builds nothing as large as the node (strings are measured a
    megabyte at a time), so measuring a flood costs no memory. A node too deep to walk counts as
    infinite: it is dropped.
    """
    try:
        return _size(node, depth + 1, _SPLIT_IN_OUTPUT) + depth + 2
    except (RecursionError, TypeError, ValueError):
        return _HUGE


_SPLIT_NONE, _SPLIT_THIS, _SPLIT_VALUES, _SPLIT_IN_OUTPUT = range(4)


def _split_of(key: str, split: int) -> int:
    """How nbformat's writer treats the value under `key` (an output's ``text`` and its ``data``
    values but JSON ones are split into lines; anything under a split-unknown node is counted
    as split, which only overstates)."""
    if split == _SPLIT_IN_OUTPUT:
        return _SPLIT_THIS if key == "text" else _SPLIT_VALUES if key == "data" else _SPLIT_NONE
    if split == _SPLIT_VALUES:
        return _SPLIT_NONE if key.endswith("json") else _SPLIT_THIS
    return _SPLIT_NONE


def _size(node, indent: int, split: int = _SPLIT_NONE) -> int:
    if isinstance(node, str):
        escaped = sum(len(json.dumps(node[i:i + _CHUNK])) - 2 for i in range(0, len(node), _CHUNK)) + 2
        if split != _SPLIT_THIS:
            return escaped
        breaks = sum(node.count(mark) for mark in _LINE_BREAKS)
        return escaped + (breaks + 1) * (indent + 8) if breaks else escaped
    if isinstance(node, dict):
        return 2 * indent + 4 + sum(len(json.dumps(str(key))) + indent + 5
                                    + _size(value, indent + 1, _split_of(str(key), split))
                                    for key, value in node.items())
    if isinstance(node, (list, tuple)):
        inner = _SPLIT_THIS if split == _SPLIT_THIS else _SPLIT_NONE  # a text already given as lines
        return 2 * indent + 4 + sum(indent + 3 + _size(value, indent + 1, inner) for value in node)
    if node is None or isinstance(node, (bool, int, float)):
        return len(json.dumps(node))
    raise TypeError(f"not JSON: {type(node).__name__}")


@dataclass
class _CellUsage:
    """What one cell's outputs take in the notebook file, output by output."""
    outs: list                  # the cell's outputs list (nbclient gives a cell a new one each execution)
    sizes: list                 # stored_size of each output, in step with `outs`
    total: int = 0
    dropped: int = 0            # bytes refused in this execution of the cell
    note: object = None         # the truncation note output (once something was dropped)


class CappedClient(NotebookClient):
    """nbclient whose stored output is bounded, whatever the kernel sends.

    Everything nbclient would keep or apply is measured (``stored_size``: the bytes it adds to
    the notebook file) before it is kept: stream, display_data, execute_result and error outputs,
    display updates (``update_display_data`` and a ``display_data`` re-using a display_id, which
    rewrite earlier outputs, in any cell: each rewritten output counts), and widget state from
    comm messages. A cell keeps at most ``max_cell_output`` bytes of outputs, widget state at most
    ``max_cell_output`` bytes too, and the whole notebook (every cell, widget state, outputs that
    were already there) at most ``max_notebook_output``. Content past a cap is dropped, never
    stored anywhere: the cell gets one note, "[output truncated by the grader: N bytes dropped]".
    A display update that would grow an output past a cap leaves the output as it was.

    The caps bound what is *kept*: ``clear_output`` frees what it clears, so a progress bar
    (``clear_output(wait=True)`` and a new output, again and again) works as in Jupyter for as long
    as the cell runs; CPU time is bounded by the cell's timeout.

    The transport is bounded too, so a flood cannot pile up in the grader's memory before it is
    measured: every socket of the kernel client refuses a message part larger than
    ``max_message_bytes`` (zmq disconnects and reconnects the sender; what was in flight is lost,
    the cell then ends after ``IOPUB_TIMEOUT``) and queues at most ``receive_queue``
    messages (then the kernel's side blocks or drops, inside the sandbox's memory).

    No frontend is mimicked: nbclient's Output-widget emulation (which captures outputs into widget
    state and echoes the whole list back to the kernel on every output) is disabled, so output
    printed inside an ``ipywidgets.Output`` lands in the cell, under the same cap.
    """
    max_cell_output = Integer(2_000_000, help="bytes of stored output per cell (and of widget state)").tag(
        config=True)
    max_notebook_output = Integer(20_000_000, help="bytes of stored output per notebook").tag(config=True)
    max_message_bytes = Integer(64_000_000, help="largest message part accepted from the kernel").tag(config=True)
    receive_queue = Integer(4, help="messages queued per socket in the grader (zmq RCVHWM)").tag(config=True)

    def __init__(self, nb, km=None, **kw):
        super().__init__(nb, km=km, **kw)
        self._cells: dict[int, _CellUsage] = {}
        self._total = 0             # stored bytes of the whole notebook: cells and widget state
        self._measured = False      # the outputs already in the notebook were counted
        self.widget_registry = {}
        self.comm_open_handlers = {}

    def reset_execution_trackers(self) -> None:
        super().reset_execution_trackers()  # forgets widget state: forget its size too
        self._total = getattr(self, "_total", 0) - getattr(self, "_widget_total", 0)
        self._widget_total = 0
        self._widget_sizes: dict[str, dict] = {}

    # -- the transport
    async def async_start_new_kernel_client(self):
        """nbclient's, with the socket limits set on the client's own zmq context before its
        sockets exist."""
        try:
            self.kc = self.km.client()
            self.kc.context.setsockopt(zmq.MAXMSGSIZE, self.max_message_bytes)
            self.kc.context.setsockopt(zmq.RCVHWM, self.receive_queue)
            await ensure_async(self.kc.start_channels())
            self._monitors = [channel.socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
                              for channel in (self.kc.iopub_channel, self.kc.shell_channel)]
            await ensure_async(self.kc.wait_for_ready(timeout=self.startup_timeout))
        except Exception:
            await self._async_cleanup_kernel()
            raise
        self.kc.allow_stdin = False
        await run_hook(self.on_notebook_start, notebook=self.nb)
        return self.kc

    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    async def _async_cleanup_kernel(self) -> None:
        self._monitors = []  # their sockets die with the client's context
        await super()._async_cleanup_kernel()

    _cleanup_kernel = run_sync(_async_cleanup_kernel)

    async def _check_raise_for_error(self, cell, cell_index, exec_reply) -> None:
        """The execute reply (on the shell channel, which never drops a message) says whether the
        cell failed: when it did but its error output was dropped (over a cap) or lost (a flooded
        output channel), the cell gets a short error output from the reply, so a failure cannot be
        hidden by flooding."""
        content = (exec_reply or {}).get("content")
        if not isinstance(content, dict) or "status" not in content:
            return
        if content["status"] == "error" and not any(o.get("output_type") == "error" for o in cell.outputs):
            clip = lambda text, n: text[:n] if isinstance(text, str) else ""  # noqa: E731
            traceback = content.get("traceback") if isinstance(content.get("traceback"), list) else []
            cell.outputs.append(nbformat.v4.new_output(
                "error", ename=clip(content.get("ename"), 200) or "Error", evalue=clip(content.get("evalue"), 1000),
                traceback=[clip(line, 500) for line in traceback[-10:]]))
        await super()._check_raise_for_error(cell, cell_index, exec_reply)

    async def _async_check_alive(self) -> None:
        """nbclient's check (every second while a cell runs), and: a kernel whose output or shell
        channel was cut (zmq drops the connection for good on a part over ``max_message_bytes``)
        counts as dead, so the cell fails and the next cells get a fresh kernel, instead of
        running on with no outputs or errors seen."""
        await super()._async_check_alive()
        for monitor in getattr(self, "_monitors", []):
            try:
                await monitor.recv_multipart(zmq.NOBLOCK)
            except zmq.ZMQError:  # zmq.Again: no event
                continue
            why = f"it sent a message over {self.max_message_bytes} bytes, or its connection to the grader broke"
            guard = getattr(self.km, "guard", None)
            if guard is not None and not guard.reason:
                guard.reason = why
            raise DeadKernelError(why)

    # -- accounting
    def _usage(self, cell_index: int) -> _CellUsage:
        """The cell's usage, measured again when its outputs changed behind our back (a new
        execution, a clear, stream coalescing); the truncation note comes back after a clear."""
        if not self._measured:
            self._measured = True
            for index in range(len(self.nb.cells)):
                if index != cell_index and "outputs" in self.nb.cells[index]:
                    self._usage(index)
        for index in [i for i in self._cells if i >= len(self.nb.cells)]:  # a hidden cell, popped
            self._total -= self._cells.pop(index).total
        outs = self.nb.cells[cell_index].setdefault("outputs", [])
        usage = self._cells.get(cell_index)
        if usage is None or usage.outs is not outs or len(usage.sizes) != len(outs):
            same = usage is not None and usage.outs is outs
            sizes = [stored_size(o) for o in outs]
            fresh = _CellUsage(outs, sizes, sum(sizes), usage.dropped if same else 0, usage.note if same else None)
            self._total += fresh.total - (usage.total if usage else 0)
            self._cells[cell_index] = usage = fresh
            if usage.dropped and not any(o is usage.note for o in outs):
                self._add(usage, usage.note)
        return usage

    def _add(self, usage: _CellUsage, output) -> None:
        size = stored_size(output)
        usage.outs.append(output)
        usage.sizes.append(size)
        usage.total += size
        self._total += size

    def _fits(self, used: int, delta: int) -> bool:
        return used + delta <= self.max_cell_output and self._total + delta <= self.max_notebook_output

    def _drop(self, usage: _CellUsage, size: int) -> None:
        usage.dropped = min(usage.dropped + size, _HUGE)
        text = f"\n[output truncated by the grader: {usage.dropped} bytes dropped]\n"
        if usage.note is None:
            usage.note = nbformat.v4.new_output("stream", name="stdout", text=text)
        usage.note["text"] = text  # (a few digits more than measured: slack)
        if not any(o is usage.note for o in usage.outs):
            self._add(usage, usage.note)

    # -- what nbclient keeps or applies
    def output(self, outs, msg, display_id, cell_index):
        """A new output (stream, display_data, execute_result, error), kept if it fits."""
        try:
            out = output_from_msg(msg)
        except (ValueError, KeyError, TypeError):  # not an output (a stray status): nothing is kept
            return None
        if self.clear_before_next_output:
            outs[:] = []
            self.clear_display_id_mapping(cell_index)
            self.clear_before_next_output = False
        usage = self._usage(cell_index)
        size = stored_size(out)
        if not self._fits(usage.total, size):
            self._drop(usage, size)
            return None
        if display_id:
            self._display_id_map.setdefault(display_id, {}).setdefault(cell_index, []).append(len(outs))
        self._add(usage, out)
        return out

    def clear_output(self, outs, msg, cell_index):
        if msg["content"].get("wait"):
            self.clear_before_next_output = True
        else:
            outs[:] = []
            self.clear_display_id_mapping(cell_index)
            self._usage(cell_index)  # frees the cell's bytes, keeps the truncation note

    def clear_display_id_mapping(self, cell_index: int) -> None:
        """As nbclient's, but forgets display ids left with no output (a loop of displays with new
        ids and clears must not grow the map)."""
        for display_id in list(self._display_id_map):
            cell_map = self._display_id_map[display_id]
            cell_map.pop(cell_index, None)
            if not cell_map:
                del self._display_id_map[display_id]

    def _update_display_id(self, display_id: str, msg) -> None:
        """Rewrite the outputs shown with `display_id` (in any cell), each one only if it still fits."""
        targets = self._display_id_map.get(display_id)
        if not targets:
            return
        content = msg["content"]
        try:
            update = output_from_msg({"header": {"msg_type": "display_data"}, "content": content})
        except (ValueError, KeyError, TypeError):
            return
        size = stored_size(update) + 40  # + an execute_result's execution_count
        for cell_index, indices in targets.items():
            if cell_index >= len(self.nb.cells) or "outputs" not in self.nb.cells[cell_index]:
                continue
            usage = self._usage(cell_index)
            for index in indices:
                if index >= len(usage.outs) or \
                        usage.outs[index].get("output_type") not in ("display_data", "execute_result"):
                    continue  # a stale index: never rewrite another output
                delta = size - usage.sizes[index]
                if not self._fits(usage.total, delta):
                    self._drop(usage, size)
                    continue
                usage.outs[index]["data"] = update["data"]
                usage.outs[index]["metadata"] = update["metadata"]
                usage.sizes[index] = size
                usage.total += delta
                self._total += delta

    def handle_comm_msg(self, outs, msg, cell_index) -> None:
        """Keep widget state (what nbclient would write into the notebook's metadata) within the
        caps; comm messages are otherwise ignored (no frontend is mimicked)."""
        content = msg.get("content") or {}
        data, comm_id = content.get("data"), content.get("comm_id")
        if not (self.store_widget_state and isinstance(data, dict) and isinstance(data.get("state"), dict)
                and isinstance(comm_id, str)):
            return
        state, paths, buffers = data["state"], data.get("buffer_paths") or [], msg.get("buffers") or []
        known = self._widget_sizes.get(comm_id)
        new = {("state", key): stored_size({key: value}, _WIDGET_DEPTH) for key, value in state.items()}
        valid_paths = isinstance(paths, list) and all(
            isinstance(p, list) and all(isinstance(k, (str, int)) for k in p) for p in paths)
        pairs = list(zip(paths, buffers)) if valid_paths else []
        for path, buffer in pairs:
            new[("buffer", *path)] = 4 * (memoryview(buffer).nbytes // 3 + 1) + stored_size(path, _WIDGET_DEPTH) + 80
        delta = sum(new.values()) - sum((known or {}).get(key, 0) for key in new)
        if known is None:
            delta += 300 + len(comm_id)  # the model's entry: ids, names, versions
        usage = self._usage(cell_index)
        if self._widget_total + delta > self.max_cell_output or self._total + delta > self.max_notebook_output:
            self._drop(usage, max(delta, 0))
            return
        self._widget_sizes.setdefault(comm_id, {}).update(new)
        self._widget_total += delta
        self._total += delta
        self.widget_state.setdefault(comm_id, {}).update(state)
        if pairs:
            self.widget_buffers.setdefault(comm_id, {}).update({
                tuple(path): {"data": base64.b64encode(buffer).decode("ascii"), "encoding": "base64", "path": path}
                for path, buffer in pairs})


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
    audit = Any(None, allow_none=True)       # an audit.AuditChannel: the kernel inherits a write end

    def format_kernel_cmd(self, extra_arguments=None):
        if self.sandbox is None:
            return super().format_kernel_cmd(extra_arguments)
        connection = sandbox_connection_file(self.sandbox, self.connection_file)
        command, self._descriptors = self.sandbox.command(
            [self.sandbox.python, "-m", "ipykernel_launcher", "-f", connection])
        return command

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        descriptors = self.__dict__.pop("_descriptors", [])
        if self.audit is not None:
            descriptors = [*descriptors, self.audit.kernel_descriptor()]
            kw["env"] = {**(kw.get("env") or {}), audit.ENV: str(descriptors[-1])}
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


IOPUB_TIMEOUT = 30  # seconds


def _new_client(nb, sandbox, env, scratch: Path, deadline: float, budget: Budget, audit_channel=None):
    name = f"kernel-{secrets.token_hex(4)}"
    sockets = {"transport": "ipc", "ip": str(scratch / name)} if sandbox else {}  # no network in the sandbox
    km = SandboxKernelManager(kernel_name="python3", sandbox=sandbox, deadline=deadline, audit=audit_channel,
                              connection_file=str(scratch / f"{name}.json"), **sockets)
    startup = max(1, min(budget.startup, int(deadline - time.monotonic())))
    # iopub_timeout: how long outputs may still arrive after the cell's reply. nbclient's 4 s lost an
    # honest progress bar's last lines when the grader's CPU was busy (a noisy cell's outputs queue up).
    client = CappedClient(nb, km=km, timeout=budget.cell, startup_timeout=startup, allow_errors=True,
                          interrupt_on_timeout=False, shutdown_kernel="immediate", record_timing=False,
                          iopub_timeout=IOPUB_TIMEOUT, kernel_name="python3",
                          resources={"metadata": {"path": str(scratch)}})
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
              error_reason, audit_channel=None) -> None:
    """Execute the code cells of `nb` in place, recording a CellOutcome per cell in `outcomes`.

    `sandbox` is an isolation.Sandbox, or None for an unisolated kernel; `env` the kernel's whole
    environment; `flags` collects runtime events for the instructor's report; `error_reason`
    turns an error output into a one-line reason; `audit_channel` (an audit.AuditChannel) is
    inherited by every kernel.
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
        client, start_kwargs = _new_client(nb, sandbox, env, scratch, deadline, budget, audit_channel)
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
                            problem = (f"compilation or execution took longer than {client.timeout} s (an infinite "
                                       "loop, or code too slow to compile or run)")
                            flags.append(f"timeout in cell {index} ({_cell_name(cell)}): compilation or execution "
                                         f"took longer than {client.timeout} s")
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
