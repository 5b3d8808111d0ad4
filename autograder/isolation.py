"""Isolation of a submission's processes with bubblewrap, for root and non-root graders alike.

Every sandboxed command (a kernel, or the numba warm-up) starts as

    taskset -c CPU bwrap NAMESPACES FILES --die-with-parent --seccomp FD -- \\
        prlimit LIMITS -- [setpriv --reuid UID ... --] COMMAND

- **Namespaces**: mount, pid, ipc, uts, net and cgroup of its own. A normal user's grader adds a
  user namespace (the sandbox runs as uid 1000 inside, the grader's uid outside); a root grader
  instead drops to a uid of its own per slot (61000 + slot) with setpriv, so that sandboxes never
  share a uid with anybody.
- **Files**: an empty root; read-only /usr, /etc, /lib*, the Python installation, the virtual
  environment at /opt/venv, a copy of the course modules (engine, visuals, azcourse, ckpts) at
  /opt/course, the probe library at /opt/agprobe, the grader's JAX compilation cache at
  /opt/jaxcache (JAX notebooks; ``autograder.jax_cache``); private /dev, /proc, /tmp and /dev/shm; the
  scratch folder at /sandbox, the only writable place the grader can see. No sources,
  solutions, hidden tests, gradebook, grader package or other student is in it.
- **Lifetime**: the pid namespace dies with its first process, and ``--die-with-parent`` kills
  it when the grader dies (kill -9, OOM, Ctrl-C); SysV IPC and sockets die with their
  namespaces. A slot (its CPU, and its uid for a root grader) is handed out again only after
  whatever its last holder left behind is dead.
- **Budgets**: one CPU per slot (``taskset``; a seccomp filter forbids widening it), process,
  file and per-process memory limits (``prlimit``), and a watch over the whole sandbox's
  memory and wall-clock time (``Guard``) that kills it past either.

``diagnose()`` says whether all this works here and, if not, what to install or change
(``python -m autograder doctor``).
"""
import fcntl
import hashlib
import json
import os
import platform
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

SCRATCH_INSIDE = "/sandbox"
LIB_INSIDE = "/opt/agprobe"
COURSE_INSIDE = "/opt/course"
VENV_INSIDE = "/opt/venv"
JAX_CACHE_INSIDE = "/opt/jaxcache"
INSIDE_UID = 1000                 # the sandbox's uid as it sees itself (user-namespace mode)
ROOT_UID_BASE = 61000             # root grader: slot i runs as uid ROOT_UID_BASE + i
SLOTS = 64
SYSTEM_PATHS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Course modules a notebook imports, copied (never bound from the checkout) into /opt/course.
COURSE_FILES = ("azcourse", "Azul_Simulator.py", "Azul_Visuals.py", "play.py", "ckpts")
REPO_ROOT = Path(__file__).resolve().parent.parent
INSTALL_HINT = ("install bubblewrap: `sudo apt-get install bubblewrap` (Debian, Ubuntu), "
                "`sudo dnf install bubblewrap` (Fedora), `sudo pacman -S bubblewrap` (Arch)")
UTIL_LINUX = ("prlimit", "taskset", "setpriv")


@dataclass(frozen=True)
class Limits:
    """What one sandbox may use. ``memory`` is the resident memory of all its processes together
    (watched by the grader); ``data`` is each process's data segment (RLIMIT_DATA; JAX runs
    with it, unlike RLIMIT_AS); ``nproc`` counts processes and threads."""
    memory: int = 4 * 2**30
    data: int = 3 * 2**30
    nproc: int = 256
    nofile: int = 1024
    fsize: int = 2**30
    tmp_size: int = 512 * 2**20


# ----------------------------------------------------------------------------- seccomp

# Denied system calls (EPERM): widening the CPU affinity (fairness), and the kernel keyrings
# (keyed by uid, so shared with the grader's user when it is not root).
_DENIED = {"x86_64": (0xC000003E, {"sched_setaffinity": 203, "add_key": 248, "request_key": 249, "keyctl": 250}),
           "aarch64": (0xC00000B7, {"sched_setaffinity": 122, "add_key": 217, "request_key": 218, "keyctl": 219})}


def seccomp_program(machine: str | None = None) -> bytes | None:
    """A classic-BPF seccomp filter (``struct sock_filter[]``) for bwrap's ``--seccomp``, or None
    on an architecture without a table. Calls of another ABI (i386, x32) are all refused."""
    arch, numbers = _DENIED.get(machine or platform.machine(), (None, None))
    if arch is None:
        return None
    load, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    program = [(load, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, deny), (load, 0, 0, 0)]
    checks = ([(jge, 0x40000000)] if arch == 0xC000003E else []) + [(jeq, n) for n in sorted(numbers.values())]
    deny_at = len(program) + len(checks) + 1
    for code, value in checks:
        program.append((code, deny_at - len(program) - 1, 0, value))
    program += [(ret, 0, 0, allow), (ret, 0, 0, deny)]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


def _data_fd(data: bytes) -> int:
    """A readable descriptor holding `data` (bwrap reads it to the end)."""
    fd = os.memfd_create("agsandbox", 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# ----------------------------------------------------------------------------- diagnosis

@dataclass
class Diagnosis:
    ok: bool
    name: str                                   # the isolation used, for reports and the CSV
    problems: list = field(default_factory=list)

    def explain(self) -> str:
        if self.ok:
            return f"isolation: {self.name}"
        return "no isolation possible here:\n  - " + "\n  - ".join(self.problems)


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _namespace_advice() -> list[str]:
    advice = []
    if _read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
        advice.append("user namespaces are disabled for normal users: "
                      "`sudo sysctl -w kernel.unprivileged_userns_clone=1`")
    if _read("/proc/sys/user/max_user_namespaces") == "0":
        advice.append("user namespaces are disabled: `sudo sysctl -w user.max_user_namespaces=15000`")
    if _read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
        advice.append("AppArmor restricts user namespaces (Ubuntu 23.10+): load an AppArmor profile that "
                      "allows `userns` for /usr/bin/bwrap, or `sudo sysctl -w "
                      "kernel.apparmor_restrict_unprivileged_userns=0`")
    return advice or ["bubblewrap could not create its namespaces (inside a container, allow them, e.g. "
                      "docker's `--security-opt seccomp=unconfined`, or run the grader on the host)"]


@lru_cache(maxsize=1)
def diagnose() -> Diagnosis:
    """Whether a sandbox can be started here; the problems and their fixes if not."""
    if not sys.platform.startswith("linux"):
        return Diagnosis(False, "none", ["the sandbox needs Linux namespaces (grade on a Linux machine)"])
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return Diagnosis(False, "none", [f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"])
    missing = [tool for tool in UTIL_LINUX if not shutil.which(tool)]
    if missing:
        return Diagnosis(False, "none", [f"{', '.join(missing)} not found: install util-linux"])
    if seccomp_program() is None:
        return Diagnosis(False, "none", [f"no seccomp table for {platform.machine()} (x86_64 and aarch64 "
                                         "are supported)"])
    with tempfile.TemporaryDirectory(prefix="azsandbox-doctor-") as folder:
        scratch = Path(folder) / "scratch"
        scratch.mkdir()
        lib = Path(folder) / "lib"
        lib.mkdir()
        try:
            with Slot() as slot:
                sandbox = Sandbox(scratch, lib, slot, Limits())
                probe = "import os, sys; print(os.getuid(), os.getcwd(), sys.prefix)"
                done = sandbox.run([sandbox.python, "-I", "-c", probe], timeout=60)
        except (OSError, RuntimeError, subprocess.TimeoutExpired) as exc:
            return Diagnosis(False, "none", [f"a trial sandbox failed: {exc}"])
    if done.returncode != 0:
        error = (done.stderr or "").strip().splitlines()
        problems = [f"bwrap failed: {error[-1] if error else f'exit status {done.returncode}'}"]
        if os.geteuid() != 0:
            problems += _namespace_advice()
        return Diagnosis(False, "none", problems)
    version = subprocess.run([bwrap, "--version"], capture_output=True, text=True).stdout.strip()
    who = "root grader, a uid of its own per kernel" if os.geteuid() == 0 else "user namespace"
    return Diagnosis(True, f"{version or 'bubblewrap'} ({who}; mount, pid, ipc, uts, net namespaces)")


# ----------------------------------------------------------------------------- processes

def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time) of a live process, None if it is gone (or a zombie)."""
    text = _read(f"/proc/{pid}/stat")
    if not text:
        return None
    fields = text[text.rfind(")") + 2:].split()
    return None if fields[0] in ("Z", "X") else (int(fields[1]), int(fields[19]))


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (a sandbox's processes are all below its bwrap)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = _stat(int(entry))
            if info:
                children.setdefault(info[0], []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def resident_bytes(pids) -> int:
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for pid in pids:
        text = _read(f"/proc/{pid}/statm")
        if text:
            total += int(text.split()[1]) * page
    return total


def uid_processes(uid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def kill_uid(uid: int, patience: float = 5.0) -> None:
    """SIGKILL every process of `uid` until none is left; RuntimeError if some survive."""
    deadline = time.monotonic() + patience
    while True:
        pids = uid_processes(uid)
        if not pids:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes of sandbox uid {uid} survive SIGKILL: {pids[:10]}")
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)


def _kill_recorded(pid: int, started: int, patience: float = 5.0) -> None:
    """SIGKILL a recorded process (if it is still the same process) and wait until it is gone."""
    deadline = time.monotonic() + patience
    while (info := _stat(pid)) and info[1] == started:
        if time.monotonic() > deadline:
            raise RuntimeError(f"sandbox process {pid} survives SIGKILL")
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        time.sleep(0.05)


# ----------------------------------------------------------------------------- slots

def _lock_dir() -> Path:
    """A folder of this user's slot locks, refused if anybody else could have planted it."""
    folder = Path(tempfile.gettempdir()) / f"azcourse-sandbox-{os.geteuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    if info.st_uid != os.geteuid() or info.st_mode & 0o077 or not os.path.isdir(folder) or folder.is_symlink():
        raise RuntimeError(f"{folder} is not a private folder of this user: remove it")
    return folder


class Slot:
    """One of SLOTS concurrent sandboxes, held with a lock until released (or the holder dies).

    Slot i runs on CPU i (modulo the CPUs this process may use) and, for a root grader, as
    uid ROOT_UID_BASE + i. Before a slot is used, whatever its last holder left is killed: the
    processes of its uid, and the bwrap processes recorded in its lock file.
    """

    def __init__(self):
        folder = _lock_dir()
        cpus = sorted(os.sched_getaffinity(0))
        for index in range(SLOTS):
            handle = open(folder / f"slot-{index}.lock", "a+")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            self.index, self._handle = index, handle
            self.cpu = cpus[index % len(cpus)]
            self.uid = ROOT_UID_BASE + index if os.geteuid() == 0 else None
            try:
                self.clear()
            except Exception:
                self._handle.close()
                raise
            return
        raise RuntimeError(f"all {SLOTS} sandbox slots are in use")

    def record(self, pid: int) -> None:
        """Remember a sandbox's bwrap process (killed before the slot is used again)."""
        info = _stat(pid)
        if info:
            self._handle.write(json.dumps({"pid": pid, "started": info[1]}) + "\n")
            self._handle.flush()

    def clear(self) -> None:
        """Kill whatever this slot's earlier sandboxes left, then forget them."""
        self._handle.seek(0)
        for line in self._handle.read().splitlines():
            try:
                entry = json.loads(line)
                _kill_recorded(int(entry["pid"]), int(entry["started"]))
            except (ValueError, KeyError, TypeError):
                continue
        if self.uid is not None:
            kill_uid(self.uid)
        self._handle.seek(0)
        self._handle.truncate()

    def release(self) -> None:
        try:
            self.clear()
        finally:
            self._handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


# ----------------------------------------------------------------------------- the sandbox

COURSE_IMAGES_KEPT = 3  # the images of the pack's last versions kept in the cache (each holds ckpts/: ~80 MB)


def course_image(cache_root: str) -> Path:
    """A copy of the course modules for /opt/course (timestamps kept: numba's cache checks them), named by
    a digest of their names, sizes and times: ``<cache_root>/course-<digest>``. Each call marks its image
    as used now (its folder's mtime) and removes all but the ``COURSE_IMAGES_KEPT`` images used last, so a
    term of pack updates does not fill the disk; a batch grading from another checkout uses its image at
    every submission, so it stays among the kept ones. A process builds its image once (the files as its
    first call found them: one batch grades with one version)."""
    target = _built_image(cache_root)
    os.utime(target)
    _prune_images(Path(cache_root), target)
    return target


@lru_cache(maxsize=4)
def _built_image(cache_root: str) -> Path:
    """``course_image``'s folder, copied there unless a process did it before."""
    files = []
    for name in COURSE_FILES:
        path = REPO_ROOT / name
        files += [path] if path.is_file() else sorted(p for p in path.rglob("*")
                                                       if p.is_file() and "__pycache__" not in p.parts)
    digest = hashlib.sha256()
    for path in files:
        info = path.stat()
        digest.update(f"{path.relative_to(REPO_ROOT)}|{info.st_size}|{info.st_mtime_ns}\0".encode())
    target = Path(cache_root) / f"course-{digest.hexdigest()[:16]}"
    if not target.is_dir():
        building = Path(tempfile.mkdtemp(prefix="building-", dir=cache_root))
        for path in files:
            copy = building / path.relative_to(REPO_ROOT)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, copy)
        for path in [building, *building.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        try:
            building.rename(target)
        except OSError:
            shutil.rmtree(building, ignore_errors=True)
            if not target.is_dir():
                raise
    return target


def _prune_images(cache_root: Path, current: Path) -> None:
    """Remove the course images beyond the ``COURSE_IMAGES_KEPT`` used last (`current` always kept), and
    unfinished builds an hour old (a grader killed while copying)."""
    def used(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except FileNotFoundError:
            return 0.0

    others = sorted((p for p in cache_root.glob("course-*") if p != current and p.is_dir()), key=used, reverse=True)
    stale = [p for p in cache_root.glob("building-*") if p.is_dir() and used(p) < time.time() - 3600]
    for path in others[COURSE_IMAGES_KEPT - 1:] + stale:
        shutil.rmtree(path, ignore_errors=True)


def private_cache_root() -> str:
    from .grader_cache import private_root

    root = private_root()
    if root is None:
        raise RuntimeError(f"no private cache folder at {Path.home() / '.cache' / 'azcourse-grader'}")
    return str(root)


def sandbox_env(extra: dict | None = None) -> dict:
    """The whole environment of a sandboxed process (nothing of the grader's leaks in)."""
    python_bin = f"{VENV_INSIDE}/bin" if sys.prefix != sys.base_prefix else os.path.dirname(sys.executable)
    return {"PATH": f"{python_bin}:/usr/local/bin:/usr/bin:/bin", "HOME": SCRATCH_INSIDE, "USER": "student",
            "LOGNAME": "student", "LANG": "C.UTF-8", "TMPDIR": "/tmp",
            "PYTHONPATH": f"{COURSE_INSIDE}:{LIB_INSIDE}", "PYTHONDONTWRITEBYTECODE": "1",
            # pictures render into the autograded notebook and the feedback (each cell's output is capped)
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
            "MPLCONFIGDIR": f"{SCRATCH_INSIDE}/.config/matplotlib", "JAX_PLATFORMS": "cpu",
            "NUMBA_CACHE_DIR": f"{SCRATCH_INSIDE}/.cache/numba", "NBGRADER_EXECUTION": "autograde",
            "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
            "PYDEVD_DISABLE_FILE_VALIDATION": "1", **(extra or {})}


class Sandbox:
    """How to start commands in one submission's sandbox.

    `scratch` (host folder) is bound read-write at /sandbox, `library` read-only at /opt/agprobe,
    `jax_cache` (a folder, optional) at /opt/jaxcache: read-only, unless `jax_cache_writable` (only
    the grader's own runs of the reference solution fill a cache); `slot` gives the CPU (and, as
    root, the uid).
    """

    def __init__(self, scratch: Path, library: Path, slot: Slot, limits: Limits, jax_cache: Path | None = None,
                 jax_cache_writable: bool = False):
        self.scratch, self.library, self.slot, self.limits = Path(scratch), Path(library), slot, limits
        self.jax_cache, self.jax_cache_writable = jax_cache, jax_cache_writable
        self.venv = sys.prefix != sys.base_prefix
        self.base_python = os.path.realpath(sys.executable)
        self.python = f"{VENV_INSIDE}/bin/python" if self.venv else self.base_python
        self.course = course_image(private_cache_root())
        if slot.uid is not None:
            os.lchown(self.scratch, slot.uid, slot.uid)

    def inside(self, host_path: str) -> str:
        """The sandbox's name for a host path in the scratch folder."""
        scratch = str(self.scratch)
        if host_path != scratch and not host_path.startswith(scratch + "/"):
            raise ValueError(f"{host_path} is not in the scratch folder")
        return SCRATCH_INSIDE + host_path[len(scratch):]

    def hand_over(self, path: Path) -> None:
        """Give a file the grader wrote in the scratch folder to the sandbox's uid (root grader)."""
        if self.slot.uid is not None:
            os.lchown(path, self.slot.uid, self.slot.uid)

    def _filesystem(self) -> tuple[list[str], list[int]]:
        args, fds = ["--tmpfs", "/"], []
        for path in SYSTEM_PATHS:
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
        base = os.path.realpath(sys.base_prefix)
        if not base.startswith("/usr/"):
            args += ["--ro-bind", base, base]
        if self.venv:
            venv = os.path.realpath(sys.prefix)
            config = f"home = {os.path.dirname(self.base_python)}\ninclude-system-site-packages = false\n" \
                     f"version = {platform.python_version()}\n"
            fds.append(_data_fd(config.encode()))
            args += ["--dir", VENV_INSIDE, "--ro-bind", f"{venv}/lib", f"{VENV_INSIDE}/lib",
                     "--perms", "0644", "--ro-bind-data", str(fds[-1]), f"{VENV_INSIDE}/pyvenv.cfg",
                     "--dir", f"{VENV_INSIDE}/bin", "--symlink", self.base_python, self.python]
            if os.path.isdir(f"{venv}/lib64"):
                args += ["--symlink", "lib", f"{VENV_INSIDE}/lib64"]
        if self.jax_cache is not None:
            args += ["--bind" if self.jax_cache_writable else "--ro-bind", str(self.jax_cache), JAX_CACHE_INSIDE]
        args += ["--ro-bind", str(self.course), COURSE_INSIDE, "--ro-bind", str(self.library), LIB_INSIDE,
                 "--bind", str(self.scratch), SCRATCH_INSIDE, "--chdir", SCRATCH_INSIDE,
                 "--dev", "/dev", "--proc", "/proc",
                 "--perms", "1777", "--size", str(self.limits.tmp_size), "--tmpfs", "/tmp",
                 "--perms", "1777", "--size", str(self.limits.tmp_size), "--tmpfs", "/dev/shm",
                 "--remount-ro", "/"]
        return args, fds

    def command(self, argv: list[str]) -> tuple[list[str], list[int]]:
        """The host command that runs `argv` in the sandbox, and the descriptors it must inherit
        (the caller closes them once the process has started)."""
        files, fds = self._filesystem()
        seccomp = _data_fd(seccomp_program())
        fds.append(seccomp)
        namespaces = ["--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                      "--hostname", "sandbox"]
        if self.slot.uid is None:
            namespaces = ["--unshare-user", "--uid", str(INSIDE_UID), "--gid", str(INSIDE_UID),
                          "--disable-userns", *namespaces]
        limits = self.limits
        inner = [shutil.which("prlimit"), "--core=0", f"--fsize={limits.fsize}", f"--nofile={limits.nofile}",
                 f"--nproc={limits.nproc}", f"--data={limits.data}", "--"]
        if self.slot.uid is not None:
            uid = str(self.slot.uid)
            inner += [shutil.which("setpriv"), f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                      "--inh-caps=-all", "--bounding-set=-all", "--"]
        outer = [shutil.which("taskset"), "-c", str(self.slot.cpu), shutil.which("bwrap")]
        return (outer + namespaces + files + ["--new-session", "--die-with-parent", "--seccomp", str(seccomp),
                                              "--"] + inner + list(argv)), fds

    def run(self, argv: list[str], timeout: float, env: dict | None = None) -> subprocess.CompletedProcess:
        """Run a command to completion in the sandbox (the numba warm-up, the doctor's trial)."""
        command, fds = self.command(argv)
        try:
            process = subprocess.Popen(command, env=sandbox_env(env), pass_fds=fds, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
        finally:
            for fd in fds:
                os.close(fd)
        self.slot.record(process.pid)
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
        return subprocess.CompletedProcess(command, process.returncode, out, err)


class Guard(threading.Thread):
    """Watches a running sandbox (everything below its bwrap process) and kills it when its
    resident memory passes `memory` bytes or the clock passes `deadline` (time.monotonic)."""

    def __init__(self, pid: int, memory: int, deadline: float, interval: float = 0.2):
        super().__init__(daemon=True)
        self.pid, self.memory, self.deadline, self.interval = pid, memory, deadline, interval
        self.reason = ""
        self._stop = threading.Event()

    def run(self) -> None:
        while not self._stop.wait(self.interval):
            if _stat(self.pid) is None:
                return
            if time.monotonic() > self.deadline:
                self._kill("the notebook's time budget ran out")
                return
            used = resident_bytes(descendants(self.pid))
            if used > self.memory:
                self._kill(f"the kernel used more than {self.memory / 2**30:.1f} GiB of memory "
                           f"({used / 2**30:.1f} GiB)")
                return

    def _kill(self, reason: str) -> None:
        self.reason = reason
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass

    def stop(self) -> None:
        self._stop.set()
