"""A Ray cluster of real nodes on this machine, for the tests and the benchmark of grading on a cluster.

Each node is one ``ray start --block`` process, as an instructor starts a machine of the cluster
(docs/autograder.md), with its own ``--temp-dir``, CPUs and environment: another ``HOME`` makes a node
that has none of the grader's caches (they must be shipped), a ``PATH`` without bubblewrap one that
cannot sandbox. Every process of a node carries ``AZCOURSE_RAY_NODE=<cluster>/<node>`` in its
environment, so ``kill`` can end the node whole with SIGKILL (its raylet, its workers and what they
started), as when a machine is lost; ``stop`` ends every node this cluster started, and nothing else
(never ``ray stop``, which ends every Ray process of the machine).
"""
from __future__ import annotations

import os
import signal
import socket
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

RAY = Path(sys.executable).with_name("ray")
MARK = "AZCOURSE_RAY_NODE"
START_TIMEOUT = 120  # s for a node on a loaded 2-core machine (about 10 s idle)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _environ(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return b""


class LocalCluster:
    """Nodes started by ``start``, each with its temp folder in a new folder under /tmp (Ray's socket
    paths must stay under 108 bytes: a pytest folder is too deep), removed by ``stop``; ``address`` is
    the head's HOST:PORT. Ray's token authentication is off (``RAY_AUTH_MODE=disabled``, in ``env``
    for drivers too): every node is this machine, on the loopback address."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="azray-", dir="/tmp"))
        self.port = _free_port()
        self.env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
        self.nodes: dict[str, subprocess.Popen] = {}
        self.env_of: dict[str, dict] = {}  # the environment each node was given beyond the cluster's

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, names_and_options: dict) -> None:
        """Start the nodes {name: {"cpus": n, "env": {...}}} at once (the first named "head" is the head,
        started first); returns once each has said it runs. RuntimeError with its output otherwise."""
        if "head" in names_and_options and "head" not in self.nodes:
            self._launch("head", **names_and_options["head"])
            self._wait(["head"])
        others = [name for name in names_and_options if name != "head"]
        for name in others:
            self._launch(name, **names_and_options[name])
        self._wait(others)

    def _launch(self, name: str, cpus: int = 1, env: dict | None = None) -> None:
        where = ["--head", f"--port={self.port}", "--include-dashboard=false"] if name == "head" \
            else [f"--address={self.address}"]
        temp = self.folder / name
        temp.mkdir(parents=True, exist_ok=True)
        self.env_of[name] = dict(env or {})
        log = open(temp / "start.log", "w")
        self.nodes[name] = subprocess.Popen(
            [str(RAY), "start", *where, "--node-ip-address=127.0.0.1", f"--num-cpus={cpus}", f"--temp-dir={temp}",
             "--disable-usage-stats", "--block"], stdout=log, stderr=subprocess.STDOUT,
            env={**self.env, **(env or {}), MARK: f"{self.folder}/{name}"}, start_new_session=True)
        log.close()

    def _wait(self, names) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        for name in names:
            log = self.folder / name / "start.log"
            while "Ray runtime started" not in log.read_text():
                if self.nodes[name].poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the Ray node {name} did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.2)

    def node_id(self, name: str) -> str:
        """Ray's id of node `name` (its raylet logs it)."""
        import re

        text = (self.folder / name / "session_latest" / "logs" / "raylet.out").read_text()
        return re.search(r"Node ID: ([0-9a-f]+)", text).group(1)

    def pids(self, name: str) -> list[int]:
        """Every live process of node `name`: those carrying its mark, and everything below them (a
        sandbox's processes get an environment of their own)."""
        from autograder.isolation import descendants

        mark = f"{MARK}={self.folder}/{name}\0".encode()
        marked = [int(p) for p in os.listdir("/proc") if p.isdigit() and mark in _environ(int(p))]
        return sorted({pid for root in marked for pid in [root, *descendants(root)]})

    def runs_a_sandbox(self, name: str) -> bool:
        """Whether node `name` is grading: a bubblewrap process below it."""
        for pid in self.pids(name):
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() == "bwrap":
                    return True
            except OSError:
                pass
        return False

    def kill(self, name: str) -> None:
        """SIGKILL every process of node `name` at once: the machine is lost."""
        for pid in self.pids(name):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.nodes[name].wait(30)

    def kill_when(self, name: str, ready, timeout: float) -> threading.Thread:
        """A thread that kills node `name` as soon as ``ready()`` is true (checked every 0.2 s), or gives
        up after `timeout` s; its ``killed`` attribute says whether it did."""
        def watch():
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if ready():
                    self.kill(name)
                    thread.killed = True
                    return
                time.sleep(0.2)

        thread = threading.Thread(target=watch, daemon=True)
        thread.killed = False
        thread.start()
        return thread

    def stop(self) -> None:
        """End every node: SIGTERM to each ``ray start`` (the workers' first, the head last), then
        SIGKILL to whatever of theirs is still running after 10 s."""
        for name in sorted(self.nodes, key=lambda n: n == "head"):
            if self.nodes[name].poll() is None:
                self.nodes[name].send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(self.pids(name) for name in self.nodes):
            time.sleep(0.5)
        for name in self.nodes:
            self.kill(name)
        shutil.rmtree(self.folder, ignore_errors=True)
