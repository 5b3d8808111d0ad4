"""Start one command inside the grading sandbox (run as root by the grader; standard library only).

    python _sandbox_launch.py SPEC.json -- COMMAND...

SPEC.json (written by ``autograder.sandbox``) says what the sandbox sees. The launcher:

1. unshares a private mount namespace (nothing it mounts is visible outside) and a private,
   empty network namespace (the kernel's channels are Unix sockets in its scratch folder);
2. builds a new root on an empty tmpfs that holds only read-only bind mounts of what a kernel
   needs (the Python installation, the virtual environment, the course's framework modules,
   /usr, /etc, ...), a private /tmp and /dev/shm, a fresh /proc that hides other users'
   processes, the probe library (read-only) and the submission's scratch folder (read-write);
   the course sources, solutions, hidden tests, autograder package and gradebook are simply
   not there;
3. chroots into it, drops every privilege (its own uid/gid, no supplementary groups, no
   capabilities), sets resource limits and a clean environment, then execs COMMAND.

The kernel gets its own copy of the connection file (``-f PATH``), with the socket paths it
sees inside the sandbox.
"""
import ctypes
import ctypes.util
import json
import os
import resource
import sys

CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def mount(source, target, fstype, flags, data=None) -> None:
    enc = lambda s: None if s is None else s.encode()
    _check(_libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {source} on {target}")


def bind(root: str, source: str, target: str, writable: bool = False) -> None:
    """Bind-mount host `source` at `target` inside `root` (read-only unless `writable`)."""
    path = root + target
    if os.path.isdir(source):
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()
    mount(source, path, None, MS_BIND | MS_REC)
    if not writable:
        mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)


def enter(spec: dict) -> None:
    """Everything up to (not including) the exec; the caller is root in the host namespace."""
    # A private mount namespace and, unless disabled, a network namespace of its own: the kernel
    # talks to the grader over Unix sockets in its scratch folder and reaches no network service
    # (nor other students' kernels).
    flags = CLONE_NEWNS | (CLONE_NEWNET if spec.get("isolate_network", True) else 0)
    _check(_libc.unshare(flags), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = spec["root"]
    os.makedirs(root, exist_ok=True)
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m")
    bind(root, "/dev", "/dev", writable=True)  # device nodes; no files of anybody's live there
    for private in ("/tmp", "/dev/shm", "/var/tmp"):
        os.makedirs(root + private, exist_ok=True)
        mount("tmpfs", root + private, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=512m")
    # After the private temporary folders: a course checkout (and its .venv) may itself live under /tmp.
    for source in spec["readonly"]:
        if os.path.lexists(source):
            if os.path.islink(source) and os.path.dirname(source) == "/":  # /bin -> usr/bin on merged-/usr systems
                os.symlink(os.readlink(source), root + source)
            else:
                bind(root, source, source)
    os.makedirs(root + "/proc", exist_ok=True)
    try:  # a fresh procfs in which the sandbox sees only its own processes
        mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV, "hidepid=2")
    except OSError:
        bind(root, "/proc", "/proc", writable=True)
    bind(root, spec["lib"], spec["lib_inside"])
    bind(root, spec["scratch"], spec["scratch_inside"], writable=True)
    mount(None, root, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID, None)  # the new root itself: read-only
    os.chroot(root)
    os.chdir(spec["scratch_inside"])


def drop_privileges(spec: dict) -> None:
    uid, gid = spec["uid"], spec["gid"]
    for limit, value in spec.get("rlimits", {}).items():
        resource.setrlimit(getattr(resource, limit), (value, value))
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() == 0 or os.geteuid() == 0:
        raise RuntimeError("could not drop root privileges")


def kernel_connection_file(connection: str, spec: dict) -> str:
    """A copy of the grader's connection file for the kernel, with socket paths as it sees them."""
    host, inside = spec["scratch"], spec["scratch_inside"]
    if os.path.dirname(connection) != host or os.path.islink(connection):
        raise RuntimeError(f"unexpected connection file {connection}")
    with open(connection) as handle:
        info = json.load(handle)
    if info.get("transport") == "ipc" and str(info.get("ip", "")).startswith(host + "/"):
        info["ip"] = inside + info["ip"][len(host):]
    target = os.path.join(host, "sandbox-" + os.path.basename(connection))
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(info, handle)
        os.fchown(handle.fileno(), spec["uid"], spec["gid"])
    return target


def main() -> None:
    separator = sys.argv.index("--")
    with open(sys.argv[1]) as handle:
        spec = json.load(handle)
    command = sys.argv[separator + 1:]
    host, inside = spec["scratch"], spec["scratch_inside"]
    # The scratch folder becomes the sandbox's. Nothing else there is touched and no symlink is
    # followed (a student's earlier kernel could have left one pointing anywhere).
    os.lchown(host, spec["uid"], spec["gid"])
    if "-f" in command[:-1]:
        position = command.index("-f") + 1
        command[position] = kernel_connection_file(command[position], spec)
    command = [inside + arg[len(host):] if arg.startswith(host + "/") else arg for arg in command]
    enter(spec)
    drop_privileges(spec)
    os.execve(command[0], command, spec["env"])


if __name__ == "__main__":
    main()
