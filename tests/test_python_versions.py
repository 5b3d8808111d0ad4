"""The pins install, and the notebooks run, on every Python the pack supports (``requires-python`` of
pyproject.toml: 3.11, 3.12, 3.13 and 3.14), and every requirements file resolves to wheels on each.

``test_pins_install_and_notebooks_run``: for the newest supported version found on this machine
other than the one running this suite (the whole suite covers the oldest), or with
``AZCOURSE_ALL_PYTHONS=1`` for each one found, a fresh venv gets ``requirements.txt``
and the project as ``scripts/setup.sh`` installs them; nothing unpinned may come with them, and
every solution notebook runs top to bottom in grading mode with nbclient in that venv. A version is
found as ``AZCOURSE_PYTHON_3_X`` (below), ``python3.X`` on PATH, or a pyenv installation; a
version not found is skipped with the reason.

``AZCOURSE_PYTHON_3_X`` is a command line: its last word is the interpreter, the words before it
a launcher that every command of that Python runs under (none for a plain path). The launcher
lets a Python from another root serve, e.g. Debian's 3.14 on Debian 12
(``scripts/debian_python.sh``, docs/python_versions.md)::

    AZCOURSE_PYTHON_3_14="bwrap --bind /opt/python3.14-root / ... /usr/bin/python3.14"

Paths under /tmp and this checkout must be the same inside the launcher as outside. A variable
that is set but gives no working Python of its version fails the test instead of skipping it.

``test_every_requirements_file_resolves_to_wheels``: requirements.txt, requirements-student.txt and
each student bundle's requirements.txt resolve on PyPI, as binary wheels only, for each supported
version (pip's ``--python-version``), to exactly their own pins: a pin without a wheel for one of
them, or a dependency the file does not pin, fails. pip evaluates environment markers for the
Python running it, not the target one, so a dependency only some other version needs is caught
by the install test above on that version instead.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from autograder import build, bundle
from autograder.grading_config import REPO_ROOT

SUPPORTED = bundle.PYTHONS
RUN_NOTEBOOKS = """
import sys, time, nbformat
from nbclient import NotebookClient
for path in sys.argv[1:]:
    started = time.monotonic()
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": %r}}).execute()
    errors = [o.ename + ": " + o.evalue for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors, (path, errors)
    print("ran", path, "on", sys.version.split()[0], "in %%.0f s" %% (time.monotonic() - started))
""" % str(REPO_ROOT)
INSTALLED = "import importlib.metadata as m, json; print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))"
NOT_PINNED = {"pip", "azul-alphazero-course"}  # the installer, and the project itself (editable)
ALL_PYTHONS = "AZCOURSE_ALL_PYTHONS"  # set: the pins are installed on every supported Python found, not only the newest


def env_var(version: str) -> str:
    return "AZCOURSE_PYTHON_" + version.replace(".", "_")


def pins(path: Path) -> dict:
    """{canonical name: version} of a requirements file's ``name==version`` lines."""
    lines = [line.strip() for line in path.read_text().splitlines()]
    return {canonicalize_name(line.split("==")[0]): line.split("==")[1]
            for line in lines if line and not line.startswith("#")}


def interpreter(version: str) -> list[str] | None:
    """A Python of `version` on this machine as a command prefix (launcher words, then the
    interpreter), or None. Raises AssertionError when ``AZCOURSE_PYTHON_3_X`` is set but broken."""
    probe = ["-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"]
    if os.environ.get(env_var(version)):
        command = shlex.split(os.environ[env_var(version)])
        done = subprocess.run(command + probe, capture_output=True, text=True)
        assert done.returncode == 0 and done.stdout.strip() == version, (
            f"{env_var(version)}={os.environ[env_var(version)]!r} gives no Python {version}: "
            f"{done.stdout.strip()} {done.stderr[-2000:]}")
        return command
    found = shutil.which(f"python{version}")
    candidates = ([found] if found else []) + sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python"))
    for path in map(str, candidates):
        done = subprocess.run([path, *probe], capture_output=True, text=True)
        if done.returncode == 0 and done.stdout.strip() == version:
            return [path]
    return None


def not_found(version: str) -> str:
    return (f"no Python {version} on this machine ({env_var(version)}, python{version} on PATH or "
            f"~/.pyenv/versions/{version}.*; docs/python_versions.md)")


def unpinned(installed: dict, pinned: dict) -> dict:
    """{name: installed version} of what a venv holds beyond, or other than, the pins."""
    return {name: version for name, version in ((canonicalize_name(n), v) for n, v in installed.items())
            if name not in NOT_PINNED and pinned.get(name) != version}


def test_the_stated_pythons_are_those_of_pyproject():
    """The README, setup.sh, the requirements files and the bundles' README state the versions
    that requires-python admits (a changed bound must change them all)."""
    text = bundle.pythons_text()
    assert f"On a fresh machine with Python {text}:" in (REPO_ROOT / "README.md").read_text()
    low, high = (f"(3, {version.split('.')[1]})" for version in (SUPPORTED[0], SUPPORTED[-1]))
    setup = (REPO_ROOT / "scripts" / "setup.sh").read_text()
    assert setup.count(f"{low} <= sys.version_info[:2] <= {high}") == 2
    assert f"for candidate in python3 {' '.join('python' + v for v in SUPPORTED)}; do" in setup
    assert f"Python {text} is required" in setup
    for name in ("requirements.txt", "requirements-student.txt"):
        assert f"Python {text}" in (REPO_ROOT / name).read_text().split("\n", 1)[0], name
    assert f"You need Python {text}." in bundle.bundle_files("ttt1_mcts")["ttt1_mcts/README.md"].decode()


def newest_other_found() -> str | None:
    """The newest supported Python on this machine other than the suite's, or None."""
    others = [v for v in SUPPORTED if v != "%d.%d" % sys.version_info[:2]]
    return next((v for v in reversed(others) if interpreter(v) is not None), None)


@pytest.mark.slow
@pytest.mark.parametrize("version", SUPPORTED)
def test_pins_install_and_notebooks_run(version, tmp_path):
    if "%d.%d" % sys.version_info[:2] == version:
        pytest.skip(f"Python {version} runs this whole suite")
    command = interpreter(version)
    if command is None:
        pytest.skip(not_found(version))
    newest = newest_other_found()
    if not os.environ.get(ALL_PYTHONS) and version != newest:
        pytest.skip(f"the suite's Python and the newest found ({newest}) bound the range; "
                    f"set {ALL_PYTHONS}=1 to install the pins on Python {version} too")
    launcher, venv = command[:-1], tmp_path / "venv"
    started = time.monotonic()
    subprocess.run(command + ["-m", "venv", str(venv)], check=True)
    python = launcher + [str(venv / "bin" / "python")]
    # --no-compile: byte-compiling every installed module would cost more than the notebooks' run, and the
    # kernels compile what they import anyway
    pip = python + ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile"]
    subprocess.run(pip + ["-r", str(REPO_ROOT / "requirements.txt")], check=True, timeout=1500)
    subprocess.run(pip + ["--no-deps", "-e", str(REPO_ROOT)], check=True, timeout=600)
    installed_s = time.monotonic() - started
    done = subprocess.run(python + ["-c", INSTALLED], capture_output=True, text=True, check=True)
    assert unpinned(json.loads(done.stdout), pins(REPO_ROOT / "requirements.txt")) == {}
    notebooks = [str(REPO_ROOT / "solutions" / assignment / f"{name}.ipynb")
                 for assignment, names in build.ASSIGNMENTS.items() for name in names]
    env = {**os.environ, "NBGRADER_EXECUTION": "autograde", "MPLBACKEND": "Agg", "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": ""}
    done = subprocess.run(python + ["-c", RUN_NOTEBOOKS, *notebooks], env=env, capture_output=True, text=True,
                          timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count(f"on {version}") == len(notebooks), done.stdout
    size = subprocess.run(["du", "-sm", str(venv)], capture_output=True, text=True).stdout.split()[0]
    print(f"Python {version}: install {installed_s:.0f} s, venv {size} MB, total {time.monotonic() - started:.0f} s\n"
          + done.stdout)


def test_unpinned_names_what_the_pins_lack():
    pinned = {"numpy": "2.4.6", "setuptools": "84.2.1"}
    assert unpinned({"numpy": "2.4.6", "pip": "26.3", "azul_alphazero_course": "0.1.0"}, pinned) == {}
    assert unpinned({"NumPy": "2.4.5", "setuptools": "84.2.1", "wheel": "0.46"}, pinned) == {"numpy": "2.4.5",
                                                                                               "wheel": "0.46"}


def pypi_reachable() -> bool:
    try:
        with urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=15):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def bundle_requirements(tmp_path_factory) -> dict:
    """{label: path} of each bundle's requirements.txt, written as it ships."""
    folder = tmp_path_factory.mktemp("requirements")
    files = {}
    for assignment in build.ASSIGNMENTS:
        path = folder / f"{assignment}.txt"
        path.write_bytes(bundle.bundle_files(assignment)[f"{assignment}/requirements.txt"])
        files[f"the {assignment} bundle's requirements.txt"] = path
    return files


def resolve(path: Path, version: str, report: Path) -> tuple[str, dict]:
    """(pip's stderr if it failed, else ""; pip's report: {canonical name: its ``metadata``}) of a
    requirements file, wheels only, for Python ``version``."""
    # --isolated: PyPI as CI sees it, whatever index or wheel folder this machine's pip config adds
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--isolated", "--quiet", "--dry-run",
                           "--ignore-installed", "--only-binary=:all:", "--python-version", version,
                           "--report", str(report), "-r", str(path)], capture_output=True, text=True, timeout=600)
    if done.returncode:
        return done.stderr[-3000:] or f"pip exited with {done.returncode}", {}
    return "", {canonicalize_name(item["metadata"]["name"]): item["metadata"]
                for item in json.loads(report.read_text())["install"]}


def missing_dependencies(pinned: dict, metadata: dict, version: str) -> list[str]:
    """What the pins `pinned` ({canonical name: version}) need on Python `version` and do not pin, or
    pin at a version the dependency's specifier refuses, read from the wheels' metadata (``resolve``'s
    report of a file that pins a superset). Markers are evaluated for `version` itself, which pip's
    ``--python-version`` does not do."""
    environment = {"python_version": version, "python_full_version": version + ".0", "sys_platform": "linux",
                   "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
                   "implementation_name": "cpython", "platform_python_implementation": "CPython"}
    problems, seen = [], set()
    todo = [(name, "") for name in pinned]
    while todo:
        name, extra = todo.pop()
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        if name not in metadata or metadata[name]["version"] != pinned[name]:
            problems.append(f"{name}=={pinned[name]}: not the version the full pins resolved to")
            continue
        if SpecifierSet(metadata[name].get("requires_python") or "").contains(version + ".0") is False:
            problems.append(f"{name}=={pinned[name]} does not support Python {version}")
        for line in metadata[name].get("requires_dist") or []:
            requirement = Requirement(line)
            if requirement.marker and not requirement.marker.evaluate({**environment, "extra": extra}):
                continue
            dependency = canonicalize_name(requirement.name)
            if dependency not in pinned:
                problems.append(f"{name}=={pinned[name]} needs {line!r}, which is not pinned")
            elif not requirement.specifier.contains(pinned[dependency], prereleases=True):
                problems.append(f"{name}=={pinned[name]} needs {line!r}, pinned {pinned[dependency]}")
            else:
                todo += [(dependency, "")] + [(dependency, wanted) for wanted in requirement.extras]
    return problems


def test_missing_dependencies_reads_markers_for_the_target_python():
    metadata = {"a": {"version": "1", "requires_dist": ["b>=2", "c; python_version < '3.12'",
                                                         "d; extra == 'gpu'"], "requires_python": ">=3.11"},
                "b": {"version": "2", "requires_dist": []}, "c": {"version": "1"}}
    assert missing_dependencies({"a": "1", "b": "2"}, metadata, "3.12") == []
    assert missing_dependencies({"a": "1", "b": "2"}, metadata, "3.11") == [
        "a==1 needs \"c; python_version < '3.12'\", which is not pinned"]
    assert missing_dependencies({"a": "1", "b": "1"}, {**metadata, "b": {"version": "1"}}, "3.12") == [
        "a==1 needs 'b>=2', pinned 1"]
    assert missing_dependencies({"a": "1", "b": "2", "c": "1"}, metadata, "3.10") == [
        "a==1 does not support Python 3.10"]
    metadata["b"]["requires_dist"] = ["e[fast]"]  # an extra's own dependencies are needed too
    metadata["e"] = {"version": "3", "requires_dist": ["f; extra == 'fast'", "g; extra == 'slow'"]}
    assert missing_dependencies({"a": "1", "b": "2", "e": "3"}, metadata, "3.12") == [
        "e==3 needs \"f; extra == 'fast'\", which is not pinned"]


RESOLVED_FILES = [REPO_ROOT / "requirements.txt", REPO_ROOT / "requirements-student.txt"]


@pytest.fixture(scope="module")
def resolutions(tmp_path_factory) -> dict:
    """{version: [resolve's answer for each of RESOLVED_FILES]}: every file for every supported version,
    all at once (pip waits on the network for more than half of each resolution), or None without PyPI."""
    if not pypi_reachable():
        return None
    folder = tmp_path_factory.mktemp("reports")
    jobs = [(path, version, folder / f"{version}-{i}.json") for version in SUPPORTED
            for i, path in enumerate(RESOLVED_FILES)]
    with ThreadPoolExecutor(len(jobs)) as pool:
        answers = list(pool.map(lambda job: resolve(*job), jobs))
    return {version: answers[i * len(RESOLVED_FILES):(i + 1) * len(RESOLVED_FILES)] for i, version in enumerate(SUPPORTED)}


@pytest.mark.slow
@pytest.mark.parametrize("version", SUPPORTED)
def test_every_requirements_file_resolves_to_wheels(version, bundle_requirements, resolutions):
    """pip resolves requirements.txt and requirements-student.txt for `version`; each bundle's pins, a
    part of the student pins, are then checked against the wheels' metadata pip reported (every
    dependency pinned, at an admitted version) rather than by six more resolutions."""
    if resolutions is None:
        pytest.skip("PyPI is not reachable from this machine")
    files, results = RESOLVED_FILES, resolutions[version]
    for path, (failure, resolved) in zip(files, results):
        assert failure == "", f"{path.name} on Python {version}: {failure}"
        as_pins = {name: item["version"] for name, item in resolved.items()}
        assert unpinned(as_pins, pins(path)) == {}, f"{path.name} on Python {version}: resolved beyond its pins"
        assert len(resolved) == len(pins(path)), path.name
    metadata = results[0][1]
    assert missing_dependencies(pins(files[1]), metadata, version) == []  # pip agreed on this file
    for label, path in bundle_requirements.items():
        assert missing_dependencies(pins(path), metadata, version) == [], f"{label} on Python {version}"
