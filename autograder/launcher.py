"""nbgrader's commands, each in its own process forked from a server that imported nbgrader once.

``python -m nbgrader`` spends about 1.5 CPU-seconds importing nbgrader, nbconvert, the Jupyter server
extensions and this package's preprocessors before it reads its arguments, and a batch runs it once per
submission. ``run`` instead asks a *fork server* (``python -m autograder.launcher``, started on first use,
one per grading process) for the command; the server has imported all that once and forks a child per
command. Each command is still its own process, as with ``python -m nbgrader``: its own pid, working
directory, environment, arguments, output and exit status (``-N`` when signal N killed it), in the
caller's process group, so Ctrl-C reaches it (the server itself ignores SIGINT) and ``kill -9`` of the
group ends it; it takes SIGINT as the calling thread has it (ignored, blocked, or neither), not as the
thread that happened to start the server had it. Student code never runs in the server or its children:
it runs in the sandboxed kernels a command starts.

The protocol (one JSON object a line): the client writes ``{"id", "args", "cwd", "env", "out", "err",
"ignore_sigint", "block_sigint"}`` to the server's stdin; the server answers ``{"id", "pid"}`` when it has forked (or
``{"id", "error"}`` when it could not) and ``{"id", "status"}`` when that child has ended. The child writes
its stdout and stderr into the files ``out`` and ``err``, which the client reads back. ``{"kill": id}``
asks the server to SIGKILL that command (past its timeout, or when its caller is interrupted): the
server, which reaps the children, does it only while the child runs, so the signal never reaches a
reused pid. A child dies with the server (``PR_SET_PDEATHSIG``), so a command whose server has gone is
not left running. The server ends when its stdin closes.
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
def _die_with(server: int) -> None:
    """This child gets SIGKILL when the server ends (Linux ``PR_SET_PDEATHSIG``), so that a command the
    client hears no more of is not left running; and ends now if the server already has."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != server:
        os._exit(1)


def _command(request: dict) -> int:
    """``python -m nbgrader ARGS`` as the request says, in this forked child; its exit status."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN if request.get("ignore_sigint") else signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_BLOCK if request.get("block_sigint") else signal.SIG_UNBLOCK, [signal.SIGINT])
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    for path, fd in ((request["out"], 1), (request["err"], 2)):
        os.dup2(os.open(path, os.O_WRONLY | os.O_TRUNC), fd)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the server's pipes and selector
    sys.stdin = open(0, closefd=False)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", buffering=1, errors="backslashreplace", closefd=False)  # as Python's own stderr
    os.chdir(request["cwd"])
    sys.path[0] = os.getcwd()  # as `python -m` puts its folder first (a course's own modules beside its config)
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["nbgrader", *request["args"]]
    from nbgrader.apps.nbgraderapp import main

    main()
    return 0


def _child(request: dict, server: int) -> None:
    """In a forked child: ``_command``, then exit as ``python -m nbgrader`` would (the atexit handlers run;
    a ``sys.exit`` message and an uncaught exception's traceback go to stderr; after Ctrl-C it dies of
    SIGINT); never returns."""
    code, interrupted = 1, False
    try:
        _die_with(server)
        code = _command(request)
    except SystemExit as exit_:
        if isinstance(exit_.code, int) or exit_.code is None:
            code = exit_.code or 0
        else:
            print(exit_.code, file=sys.stderr)
    except KeyboardInterrupt:
        import traceback

        traceback.print_exc()
        interrupted = True
    except BaseException:  # noqa: BLE001 - reported like Python's own last resort
        import traceback

        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
        finally:
            if interrupted:  # Ctrl-C: die of SIGINT, as the command would
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGINT)
            os._exit(code)


def serve() -> None:
    """The fork server's loop: read requests on stdin, fork a child for each, report pids and statuses,
    and kill a child when its client asks (``{"kill": id}``, only while that child runs)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the commands and the client, not the server
    reply = lambda message: os.write(1, (json.dumps(message) + "\n").encode())  # noqa: E731 - raw fd: no locks
    for name in PRELOAD:
        __import__(name)
    read_end, wakeup = os.pipe()
    os.set_blocking(read_end, False)
    os.set_blocking(wakeup, False)
    signal.set_wakeup_fd(wakeup)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    running, pending = {}, b""  # pid -> request id
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
                    _handle(line, running, reply)
        while running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            reply({"id": running.pop(pid), "status": os.waitstatus_to_exitcode(status)})


def _handle(line: bytes, running: dict, reply) -> None:
    """One request line: fork its command, or kill a running one; a fork that fails (EAGAIN, ENOMEM) is
    answered with its error instead of ending the server."""
    try:
        request = json.loads(line)
    except ValueError:
        return  # not a request (only the client writes here)
    if "kill" in request:
        for pid, request_id in running.items():
            if request_id == request["kill"]:
                os.kill(pid, signal.SIGKILL)  # not reaped yet, so the pid is still this child's
        return
    try:
        pid = os.fork()
    except OSError as exc:
        reply({"id": request["id"], "error": f"the nbgrader fork server could not start the command: {exc}"})
        return
    if pid == 0:
        _child(request, os.getppid())
    running[pid] = request["id"]
    reply({"id": request["id"], "pid": pid})


# ----------------------------------------------------------------------------------------------- the client
class _Server:
    """The client's end: the server process, and a thread that hands each answer to its request."""

    def __init__(self):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]),
                                                                        os.environ.get("PYTHONPATH", "")]))}
        self.process = subprocess.Popen([sys.executable, "-m", "autograder.launcher"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env)
        self.ids, self.lock, self.answers, self.owner = itertools.count(), threading.Lock(), {}, os.getpid()
        self.dead = False
        threading.Thread(target=self._read, daemon=True, name="nbgrader fork server").start()

    def _read(self):
        try:
            for line in self.process.stdout:
                try:
                    message = json.loads(line)
                    answers = self.answers[message["id"]] if "pid" in message else self.answers.pop(message["id"])
                except (ValueError, KeyError, TypeError):
                    continue  # not an answer (nothing else should write here): never the end of the others
                answers.put(message)
        finally:
            self.dead = True
            for answers in list(self.answers.values()):  # the server has ended: no request waits forever
                answers.put({"gone": True})

    def send(self, message: dict) -> None:
        with self.lock:
            self.process.stdin.write((json.dumps(message) + "\n").encode())
            self.process.stdin.flush()

    def start(self, request: dict) -> tuple[int, queue.Queue]:
        """Send ``request``; its child's pid and the queue its status will arrive on.

        Raises:
            OSError: the server could not fork the command, or has ended.
        """
        answers = queue.Queue()
        with self.lock:
            request["id"] = next(self.ids)
            self.answers[request["id"]] = answers
        self.send(request)
        first = answers.get()
        if "pid" not in first:
            self.answers.pop(request["id"], None)
            raise OSError(first.get("error") or "the nbgrader fork server has ended")
        return request["id"], answers

    @staticmethod
    def status(answers: queue.Queue, timeout: float | None = None) -> int:
        """The exit status that arrives on ``answers`` (-SIGKILL if the server ended: its children die with it).

        Raises:
            queue.Empty: none within ``timeout`` s.
        """
        answer = answers.get(timeout=timeout)
        return -signal.SIGKILL if answer.get("gone") else answer["status"]

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
        if _server is None or _server.owner != os.getpid() or _server.dead or _server.process.poll() is not None:
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
        OSError: the command could not be started.
    """
    command = [sys.executable, "-m", "nbgrader", *args]
    with tempfile.TemporaryDirectory(prefix="nbgrader-run-") as folder:
        out, err = Path(folder, "stdout"), Path(folder, "stderr")
        out.touch()
        err.touch()
        server = _the_server()
        sigint = {"ignore_sigint": signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
                  "block_sigint": signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])}  # this thread's
        request_id, answers = server.start({"args": list(args), "cwd": str(cwd), "env": dict(env), "out": str(out),
                                            "err": str(err), **sigint})
        timed_out = False
        try:
            status = server.status(answers, timeout)
        except queue.Empty:
            server.send({"kill": request_id})
            status, timed_out = server.status(answers), True
        except BaseException:  # Ctrl-C in this thread, or another error: the command does not outlive the call
            try:
                server.send({"kill": request_id})
                server.status(answers, 10)
            except (OSError, ValueError, queue.Empty):
                pass  # the server has ended, and its children with it
            raise
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
