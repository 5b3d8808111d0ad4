"""nbgrader's commands, each in its own process forked from a server that imported nbgrader once.

``python -m nbgrader`` spends about 1.5 CPU-seconds importing nbgrader, nbconvert, the Jupyter server
extensions and this package's preprocessors before it reads its arguments, and a batch runs it once per
submission. ``run`` instead asks a *fork server* (``python -m autograder.launcher``, started on first use,
one per grading process) for the command; the server has imported all that once and forks a child per
command. Each command is still its own process, as with ``python -m nbgrader``: its own pid, working
directory, environment, arguments, output and exit status (``-N`` when signal N killed it), in the
caller's process group, so Ctrl-C reaches it (the server itself ignores SIGINT) and ``kill -9`` of the
group ends it. Student code never runs in the server or its children: it runs in the sandboxed kernels
a command starts.

The protocol (one JSON object a line): the client writes ``{"id", "args", "cwd", "env", "out", "err"}``
to the server's stdin; the server answers ``{"id", "pid"}`` when it has forked and ``{"id", "status"}``
when that child has ended. The child writes its stdout and stderr into the files ``out`` and ``err``,
which the client reads back. The server ends when its stdin closes.
"""
from __future__ import annotations

import atexit
import itertools
import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

PRELOAD = ("nbgrader.apps.nbgraderapp", "autograder.grading_config")  # what `python -m nbgrader` imports first


# ----------------------------------------------------------------------------------------------- the server
def _child(request: dict) -> None:
    """In a forked child: ``python -m nbgrader ARGS`` as the request says, then exit (atexit handlers
    run, as at the end of that command); never returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        for path, fd in ((request["out"], 1), (request["err"], 2)):
            os.dup2(os.open(path, os.O_WRONLY | os.O_TRUNC), fd)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the server's pipes and selector
        sys.stdin = open(0, closefd=False)
        sys.stdout, sys.stderr = open(1, "w", closefd=False), open(2, "w", closefd=False)
        os.chdir(request["cwd"])
        sys.path[0] = os.getcwd()  # as `python -m` puts its folder first (a course's own modules beside its config)
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = ["nbgrader", *request["args"]]
        from nbgrader.apps.nbgraderapp import main

        main()
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except KeyboardInterrupt:  # Ctrl-C: die of SIGINT, as the command would
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:  # noqa: BLE001 - reported like Python's own last resort
        import traceback

        traceback.print_exc()
    finally:
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
    os._exit(code)


def serve() -> None:
    """The fork server's loop: read requests on stdin, fork a child for each, report pids and statuses."""
    for name in PRELOAD:
        __import__(name)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    read_end, wakeup = os.pipe()
    os.set_blocking(read_end, False)
    os.set_blocking(wakeup, False)
    signal.set_wakeup_fd(wakeup)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    reply = lambda message: os.write(1, (json.dumps(message) + "\n").encode())  # noqa: E731 - raw fd: no locks
    running, pending = {}, b""
    selector = selectors.DefaultSelector()
    selector.register(0, selectors.EVENT_READ)
    selector.register(read_end, selectors.EVENT_READ)
    open_input = True
    while open_input or running:
        for key, _ in selector.select():
            if key.fd == read_end:
                while True:
                    try:
                        if not os.read(read_end, 512):
                            break
                    except BlockingIOError:
                        break
            elif open_input:
                data = os.read(0, 65536)
                if not data:
                    open_input = False
                    selector.unregister(0)
                pending += data
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    request = json.loads(line)
                    pid = os.fork()
                    if pid == 0:
                        _child(request)
                    running[pid] = request["id"]
                    reply({"id": request["id"], "pid": pid})
        while running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            reply({"id": running.pop(pid), "status": os.waitstatus_to_exitcode(status)})


# ----------------------------------------------------------------------------------------------- the client
class _Server:
    """The client's end: the server process, and a thread that hands each answer to its request."""

    def __init__(self):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]),
                                                                        os.environ.get("PYTHONPATH", "")]))}
        self.process = subprocess.Popen([sys.executable, "-m", "autograder.launcher"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env)
        self.ids, self.lock, self.answers, self.owner = itertools.count(), threading.Lock(), {}, os.getpid()
        threading.Thread(target=self._read, daemon=True, name="nbgrader fork server").start()

    def _read(self):
        for line in self.process.stdout:
            message = json.loads(line)
            answers = self.answers[message["id"]] if "pid" in message else self.answers.pop(message["id"])
            answers.put(message)
        for answers in list(self.answers.values()):  # the server died: no request waits forever
            answers.put({"status": -signal.SIGKILL, "gone": True})

    def start(self, request: dict) -> tuple[int, queue.Queue]:
        """Send ``request``; its child's pid and the queue its status will arrive on."""
        answers = queue.Queue()
        with self.lock:
            request["id"] = next(self.ids)
            self.answers[request["id"]] = answers
            self.process.stdin.write((json.dumps(request) + "\n").encode())
            self.process.stdin.flush()
        first = answers.get()
        if first.get("gone"):
            raise RuntimeError("the nbgrader fork server has ended")
        return first["pid"], answers

    def close(self):
        if self.owner != os.getpid():  # a forked copy: the server is its parent's to close
            return
        try:
            self.process.stdin.close()
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            self.process.kill()


_server: _Server | None = None
_server_lock = threading.Lock()


def _the_server() -> _Server:
    global _server
    with _server_lock:
        # a new server after a fork (the parent's pipes are not this process's) or when the old one ended
        if _server is None or _server.owner != os.getpid() or _server.process.poll() is not None:
            _server = _Server()
            atexit.register(_server.close)
        return _server


def run(args: list, cwd, env: dict, check: bool = True, timeout: float | None = None,
        capture: bool = False) -> subprocess.CompletedProcess:
    """``python -m nbgrader ARGS`` in ``cwd`` with exactly ``env``, as ``subprocess.run`` would run it
    (text output, captured or copied to this process's stdout and stderr).

    Raises:
        subprocess.TimeoutExpired: still running after ``timeout`` s (then killed with SIGKILL).
        subprocess.CalledProcessError: a non-zero exit status with ``check``.
    """
    command = [sys.executable, "-m", "nbgrader", *args]
    with tempfile.TemporaryDirectory(prefix="nbgrader-run-") as folder:
        out, err = Path(folder, "stdout"), Path(folder, "stderr")
        out.touch()
        err.touch()
        pid, answers = _the_server().start({"args": list(args), "cwd": str(cwd), "env": dict(env),
                                            "out": str(out), "err": str(err)})
        try:
            status, timed_out = answers.get(timeout=timeout)["status"], False
        except queue.Empty:
            os.kill(pid, signal.SIGKILL)
            status, timed_out = answers.get()["status"], True
        stdout, stderr = (path.read_text(errors="replace") for path in (out, err))
    if not capture:
        sys.stdout.write(stdout)
        sys.stderr.write(stderr)
        sys.stdout.flush()
        sys.stderr.flush()
    if timed_out:
        raise subprocess.TimeoutExpired(command, timeout, stdout, stderr)
    done = subprocess.CompletedProcess(command, status, stdout if capture else None, stderr if capture else None)
    if check and done.returncode:
        raise subprocess.CalledProcessError(done.returncode, command, done.stdout, done.stderr)
    return done


if __name__ == "__main__":
    serve()
