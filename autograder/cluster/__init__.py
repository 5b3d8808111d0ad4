"""Grading a class on a Ray cluster: ``python -m autograder autograde --ray auto|ADDRESS|local``.

The driver (the machine that holds the course) stays the only writer of the gradebook and of the
course's folders; each node grades the submissions it is given and sends back what grading wrote.

1. The driver builds the numba and JAX caches once (as a local batch does) and puts in Ray's object
   store, once per batch: the caches (``kit.pack``), the course definition as an SQLite gradebook,
   each assignment's release and the grading settings of its configuration (``kit``).
2. Every node with a CPU runs ``node.prepare`` first: the ``doctor`` check (``isolation.diagnose``),
   the same sources, Python and cache keys as the driver, then the caches put in place, each checked
   by its SHA-256. A node that fails any of it gets no work, and the driver says which and why.
3. One Ray task per submission (``node.grade``, one CPU), placed by the driver on a node with a CPU
   free (``NodeAffinitySchedulingStrategy``, never retried by Ray): the submitted files travel to
   the node; its answer comes back, is checked (``answer.check``) and written into the course
   (``answer.write``: the autograded folder, the report files, the gradebook rows nbgrader would
   write). A node that is lost (or whose worker dies, or whose answer is refused, or that does not
   answer within the grading's timeout and ``REPLY_MARGIN``) gets no more work, and its submission is
   given to another node; a submission whose answer is refused twice fails with the reason; a node
   whose own code fails ``NODE_FAILURES`` times gets no more work.
4. The batch around it is ``pipeline.autograde``'s (``autograde`` here hands it the cluster): the
   same resumable state (``grading_state``: a submission is finished only once its answer is
   written, so after ``kill -9`` of the driver a rerun grades exactly the unfinished ones), the same
   progress lines, the same results.
"""
from __future__ import annotations

import signal
import subprocess
import threading

from . import answer, kit, node

PREPARE_TIMEOUT = 600  # s for a node's doctor and caches
REPLY_MARGIN = 300     # s past a submission's grading timeout before its node counts as hung (transfers, set-up)
NODE_FAILURES = 3      # failures of a node's own code (not of nbgrader) before it gets no more work
REFUSALS = 2           # refused answers of one submission before it fails (instead of losing more nodes)


def autograde(course, address: str, **options) -> dict:
    """``pipeline.autograde`` (same `options`, same result) with each submission graded on the Ray cluster
    at `address` ("auto", "local" or HOST:PORT, see ``ClusterGrader``)."""
    from .. import pipeline

    def on_the_cluster(assignments, args, sandbox, log):
        return ClusterGrader(course, address, assignments, args, sandbox, log)

    return pipeline.autograde(course, cluster=on_the_cluster, **options)
ATTEMPTS = 4           # nodes a submission is tried on before it is recorded as failed


class ClusterGrader:
    """Grades submissions of `course` on the Ray cluster at `address` ("auto": the one this machine
    belongs to; "local": a new one-machine cluster; else HOST:PORT). `assignments`: those of the
    batch (their releases travel); `args`: extra ``nbgrader autograde`` arguments; `sandbox`: False
    when grading without isolation (``--unsafe-no-sandbox``). ``jobs`` is the number of submissions
    the usable nodes grade at once (their CPUs); ``grade`` may be called from that many threads."""

    def __init__(self, course, address: str, assignments, args=(), sandbox: bool = True, log=print):
        from ..pipeline import GraderError

        try:
            import ray
        except ImportError:
            raise GraderError("--ray needs Ray, the optional extra: pip install '.[cluster]' (or "
                              "pip install -r requirements-cluster.txt)") from None
        self.ray, self.course, self.args, self.log = ray, course, list(args), log
        self._started_ray = not ray.is_initialized()
        if self._started_ray:
            try:
                ray.init(address=None if address == "local" else address, include_dashboard=False,
                         log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise GraderError(f"cannot reach the Ray cluster at {address}: {exc}") from None
        self._lock, self._writing = threading.Condition(), threading.Lock()
        self._running: dict = {}  # ObjectRef -> node id
        self._failures: dict = {}  # node id -> failures of its own code so far
        self._stopped = False
        try:
            config = kit.load_config(course)
            self.late = kit.late_preprocessors(config)
            # deadlines.toml and its extensions stay here: the driver runs the late steps (self.late)
            self.kit = ray.put({"gradebook": kit.gradebook_template(course),
                                "release": kit.release_files(course, assignments),
                                "config": kit.carried_config(config)})
            stamp = {**kit.stamp(), "sandbox": sandbox}
            self.free, self.hosts = self._prepare_nodes(stamp, self._caches(assignments, stamp) if sandbox else [])
        except kit.KitError as exc:
            self.close()
            raise GraderError(str(exc)) from None
        except BaseException:
            self.close()
            raise
        if not self.free:
            self.close()
            raise GraderError("no node of the Ray cluster can grade (each one's reason is above)")
        self.jobs = sum(self.free.values())
        self._grade = ray.remote(num_cpus=1, max_retries=0)(node.grade)

    # -- set-up
    def _caches(self, assignments, stamp: dict) -> list:
        """The driver's warm caches that the batch's notebooks use, packed (built here first if needed);
        GraderError when they are not those of the sources `stamp` describes (changed meanwhile)."""
        import nbformat

        from .. import jax_cache, numba_cache
        from ..pipeline import GraderError
        from ..sandbox import warm_jax_cache

        notebooks = [nbformat.read(path, as_version=4) for a in assignments
                     for path in (self.course.release / a).glob("*.ipynb")]
        folders = ([numba_cache.warm_cache_dir()] if any(map(numba_cache.uses_numba, notebooks)) else []) \
            + ([warm_jax_cache()] if any(map(jax_cache.uses_jax, notebooks)) else [])
        stale = [f.name for f in folders if f.name not in (f"numba-{stamp['numba_key']}", f"jax-{stamp['jax_key']}")]
        if stale:
            raise GraderError(f"the grading sources changed while the caches were built ({', '.join(stale)}): "
                              "grade again once they stay as they are")
        packed = [kit.pack(folder) for folder in folders]
        if packed:
            self.log("caches for the nodes: " + ", ".join(f"{p['name']} ({len(p['tar']) / 2**20:.1f} MB, "
                                                          f"SHA-256 {p['sha256'][:12]})" for p in packed))
        return [self.ray.put(p) for p in packed]

    def _prepare_nodes(self, stamp: dict, caches: list) -> tuple[dict, dict]:
        """``node.prepare`` on every alive node with a CPU, against the driver's `stamp`; ({node id: CPUs}
        of those that passed, {node id: name for messages})."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from ..pipeline import neutralise

        ray = self.ray
        nodes = {n["NodeID"]: n for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU", 0) >= 1}
        hosts = {nid: f"{n['NodeManagerAddress']} ({nid[:8]})" for nid, n in nodes.items()}
        if not nodes:
            self.log("the Ray cluster has no node with a CPU (`ray status` lists them)")
            return {}, hosts
        prepare = ray.remote(num_cpus=1, max_retries=0)(node.prepare)
        pending = {prepare.options(scheduling_strategy=NodeAffinitySchedulingStrategy(nid, soft=False))
                   .remote(stamp, *caches): nid for nid in nodes}
        ready, late = ray.wait(list(pending), num_returns=len(pending), timeout=PREPARE_TIMEOUT)
        free = {}
        for ref in ready:
            nid = pending[ref]
            try:
                report = ray.get(ref)
            except ray.exceptions.RayError as exc:
                self.log(f"node {hosts[nid]} gets no work: its doctor failed: {neutralise(_cause(exc))}")
                continue
            if not isinstance(report, dict) or not isinstance(report.get("problems"), list):
                self.log(f"node {hosts[nid]} gets no work: its doctor's answer is not a report")
            elif report.get("ok") is True:
                free[nid] = int(nodes[nid]["Resources"]["CPU"])
                self.log(f"node {hosts[nid]}: {free[nid]} CPU(s); isolation: {neutralise(str(report['isolation']))}")
            else:
                self.log(f"node {hosts[nid]} gets no work: " + neutralise("; ".join(map(str, report["problems"]))))
        for ref in late:
            ray.cancel(ref, force=True)
            self.log(f"node {hosts[pending[ref]]} gets no work: its doctor did not answer in {PREPARE_TIMEOUT} s")
        return free, hosts

    # -- the batch
    def grade(self, assignment: str, student: str, timeout: float) -> subprocess.CompletedProcess:
        """Grade one submission on a node and write its answer into the course; what ``nbgrader
        autograde`` would have returned (its exit status, output). Raises subprocess.TimeoutExpired
        past `timeout` s, as a local run does. Exit status -SIGINT after ``stop``."""
        from .. import grading_state
        from ..pipeline import neutralise
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        ray, args = self.ray, ["autograde", assignment, f"--student={student}"]
        request = {"assignment": assignment, "student": student, "args": self.args, "timeout": timeout,
                   "files": kit.folder_files(self.course.submitted / student / assignment)}
        what, refused = f"{neutralise(student)}/{assignment}", []
        wait = None if timeout is None else timeout + REPLY_MARGIN  # then a hung node is cancelled and dropped
        for _ in range(ATTEMPTS):
            nid = None if self._stopped else self._take_node()
            if nid is None:
                break
            ref = self._grade.options(scheduling_strategy=NodeAffinitySchedulingStrategy(nid, soft=False)) \
                .remote(self.kit, request)
            with self._lock:
                self._running[ref] = nid
                if self._stopped:  # Ctrl-C came while this one was being placed
                    ray.cancel(ref, force=True)
            try:
                reply = ray.get(ref, timeout=wait)
            except ray.exceptions.GetTimeoutError:  # the node hangs: as if it were lost
                ray.cancel(ref, force=True)
                self._lose(nid, ref, f"did not answer in {wait:g} s (the grading's timeout and {REPLY_MARGIN} s)",
                           what)
                continue
            except ray.exceptions.TaskCancelledError:
                self._give_back(nid, ref)
                return subprocess.CompletedProcess(args, -signal.SIGINT, "", "")
            except ray.exceptions.RayTaskError as exc:  # the node's own code failed: the submission's grade says why
                cause = _cause(exc)
                with self._lock:
                    self._failures[nid] = failures = self._failures.get(nid, 0) + 1
                if failures >= NODE_FAILURES:
                    self._lose(nid, ref, f"failed {failures} times ({cause})", what)
                else:
                    self._give_back(nid, ref)
                return subprocess.CompletedProcess(args, 1, "", f"grading on node {self.hosts[nid]} failed:\n{cause}")
            except ray.exceptions.RayError as exc:  # the node, or its worker, is gone
                self._lose(nid, ref, f"lost ({_cause(exc)})", what)
                continue
            if isinstance(reply, dict) and "returncode" in reply and reply["returncode"] is None:
                self._give_back(nid, ref)
                raise subprocess.TimeoutExpired(args, timeout)
            try:
                checked = answer.check(reply, self.course, assignment, student)
            except Exception as exc:  # noqa: BLE001 (BadAnswer, or an answer too odd to check: refused alike)
                reason = f"{type(exc).__name__}: {exc}"
                refused.append(self.hosts[nid])
                if len(refused) >= REFUSALS:  # refused on each node: the submission's doing, not a node's
                    self._give_back(nid, ref)
                    return subprocess.CompletedProcess(args, 1, "", f"ClusterError: the answer was refused on "
                                                       f"{len(refused)} nodes ({', '.join(refused)}): {reason}")
                self._lose(nid, ref, f"sent an answer the driver refused ({reason})", what)
                continue
            try:
                with self._writing:
                    answer.write(self.course, assignment, student, checked, self.late)
                grading_state.note(self.course, assignment, student, node=self.hosts[nid])
            except Exception as exc:  # noqa: BLE001 (this driver could not write it: that submission fails alone)
                return subprocess.CompletedProcess(args, 1, "", f"{type(exc).__name__}: {exc}")
            finally:
                self._give_back(nid, ref)
            return subprocess.CompletedProcess(args, checked["returncode"], checked["stdout"], checked["stderr"])
        if self._stopped:
            return subprocess.CompletedProcess(args, -signal.SIGINT, "", "")
        return subprocess.CompletedProcess(args, 1, "", "ClusterError: no node of the cluster is left to grade it"
                                           if not self.free else f"ClusterError: tried on {ATTEMPTS} nodes, each lost")

    def _take_node(self) -> str | None:
        """A usable node with a CPU free (waits for one); None when no usable node is left."""
        with self._lock:
            while self.free and not any(self.free.values()):
                self._lock.wait()
            if not self.free:
                return None
            nid = max(self.free, key=self.free.get)
            self.free[nid] -= 1
            return nid

    def _give_back(self, nid: str, ref) -> None:
        with self._lock:
            self._running.pop(ref, None)
            if nid in self.free:
                self.free[nid] += 1
            self._lock.notify_all()

    def _lose(self, nid: str, ref, why: str, what: str) -> None:
        """`nid` gets no more work; the submission `what` goes to another node."""
        from ..pipeline import neutralise

        with self._lock:
            self._running.pop(ref, None)
            if self.free.pop(nid, None) is not None:  # `why` may quote the node: made safe for a terminal
                self.log(f"node {self.hosts[nid]} {neutralise(why)}: it gets no more work; {what} and the others "
                         "it held go to the other nodes")
            self._lock.notify_all()

    def stop(self) -> None:
        """Cancel the gradings under way (Ctrl-C): their ``grade`` returns -SIGINT."""
        with self._lock:
            self._stopped = True
            running = list(self._running)
        for ref in running:
            self.ray.cancel(ref, force=True)

    def close(self) -> None:
        if self._started_ray and self.ray.is_initialized():
            self.ray.shutdown()


def _cause(exc) -> str:
    """A Ray error on one line: the last line that names an exception, else its first line."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    named = [line for line in lines if line.split(":")[0].endswith(("Error", "Exception", "Exit"))]
    return (named[-1] if named else lines[0] if lines else type(exc).__name__)[:300]
