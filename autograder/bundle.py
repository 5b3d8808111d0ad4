"""Student bundles: per assignment, one zip with what a student receives and nothing else.

    python -m autograder bundle [ASSIGNMENT ...] [--output DIR]     # default dist/student/

``<output>/<assignment>.zip`` holds one folder, ``<assignment>/``, laid out like this checkout so
that the shipped code runs from that folder without installing anything (``azcourse/azul/
checkpoints.py`` finds ``ckpts/`` two folders above itself):

* ``<assignment>.ipynb``: the committed release notebook (``release/``, built by ``autograder build``);
* the project modules it imports, computed, not listed by hand: the imports of the notebook's code
  cells (IPython magics and ``!`` lines ignored) resolved to this checkout's top-level modules and
  packages, followed transitively through the imports of every module found (those inside
  functions too), with the ``__init__.py`` of every package on the way;
* ``ckpts/<name>/`` for every checkpoint whose name (or short name, see ``checkpoints.model_dir``)
  is a string literal of the notebook or of a shipped module (``"hex5"`` names the Hex run folder
  with its ``anet_*`` subfolders), less what only the instructor's machine holds: a training run's
  ``resume/`` state (git-ignored), an AlphaZero run's intermediate ``checkpoints/`` (the notebooks
  load ``best/``), caches and hidden files;
* ``requirements.txt``: the pins of ``requirements-student.txt`` this folder needs, computed (see
  ``needed_pins``), so a bundle that imports no JAX installs none; ``environment.yml`` (conda),
  ``validate.py`` (``azcourse/student_validate.py``: Validate without nbgrader) and ``README.md``
  (the commands of the pip, conda and Colab routes, how to validate, what to hand in).

Nothing else: a path under ``autograder/``, ``solutions/`` or ``assignments/``, or named like one of
the grader's judges, case data or probes (``autograder/assignments/<assignment>/checks.py``,
``cases.py``, ``probes.py``, ``examples.py``), is refused, and every text file is scanned for hidden-test, solution and judge
lines (``autograder.leaks``, see ``scan``) before the zip is written.
"""
import ast
import os
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from . import leaks
from .grading_config import REPO_ROOT
from .pipeline import GraderError

SOURCE_DIR = REPO_ROOT / "assignments"
RELEASE_DIR = REPO_ROOT / "release"
CKPT_DIR = REPO_ROOT / "ckpts"
GRADER_DIR = REPO_ROOT / "autograder"
STUDENT_REQUIREMENTS = REPO_ROOT / "requirements-student.txt"
VALIDATE_SOURCE = REPO_ROOT / "azcourse" / "student_validate.py"
DEFAULT_OUTPUT = REPO_ROOT / "dist" / "student"
FORBIDDEN_DIRS = ("autograder", "solutions", "assignments")
GRADER_FILE_PATTERNS = ("*/checks.py", "*/cases.py", "*/probes.py", "*/examples.py")
# Inside a checkpoint folder, never shipped: the state an interrupted training run resumes from
# (azcourse/hex/train.py writes <run>/resume/, git-ignored) and Python caches; hidden files neither.
# resume/: a training run's state (git-ignored); checkpoints/: an AlphaZero run's intermediate networks,
# for the instructor's tournaments of a run (the notebooks load best/).
CKPT_EXCLUDED_DIRS = ("resume", "checkpoints", "__pycache__")
# What opens, runs and validates a notebook without being imported by it: every bundle pins them.
NOTEBOOK_TOOLS = ("ipykernel", "ipywidgets", "jupyterlab", "nbclient", "nbformat")
# Colab's own runtime provides those: replacing them with our pins can break a Colab session, so
# the Colab route installs the other pins only.
COLAB_PROVIDED = NOTEBOOK_TOOLS
# The zip entries' date when neither SOURCE_DATE_EPOCH nor git gives one (see ``zip_date``).
FALLBACK_DATE = (2026, 1, 1, 0, 0, 0)

ENVIRONMENT_YML = """\
# conda env create -f environment.yml && conda activate {assignment}
name: {assignment}
channels:
  - conda-forge
dependencies:
  - python=3.11
  - pip
  - pip:
      - -r requirements.txt
"""

README = """\
# {assignment}

Your copy of the assignment: the notebook `{notebook}`, the code it imports, and
`validate.py` to check your work before you hand it in. You need Python {pythons}.
Type the commands below in this folder: the notebook imports the files next to it.

**pip** (Linux, macOS):

```bash
python3 -m venv .venv
.venv/bin/pip install -r requirements.txt
.venv/bin/jupyter lab {notebook}
```

On Windows, `py -m venv .venv`, then `.venv\\Scripts\\pip install -r requirements.txt` and
`.venv\\Scripts\\jupyter lab {notebook}`.

**conda** (the same `requirements.txt`, installed by pip inside the environment):

```bash
conda env create -f environment.yml
conda activate {assignment}
jupyter lab {notebook}
```

**Colab.** Open colab.research.google.com, *File > Upload notebook*, and pick `{notebook}` from
this folder. Upload `{assignment}.zip` with the *Files* pane, then run in a new cell at the top:

```
!unzip -q -o /content/{assignment}.zip -d /content
%pip install -q {colab_pins}
```

Restart the session (*Runtime > Restart session*), run `%cd /content/{assignment}` in a second
new cell, and work down the notebook. Delete both cells before you download the notebook to hand in.

**Check your work.** Save the notebook, then run `validate.py` with the Python you installed into.
pip:

```bash
.venv/bin/python validate.py {notebook}
```

(Windows: `.venv\\Scripts\\python validate.py {notebook}`.) conda, after `conda activate {assignment}`:
`python validate.py {notebook}`. Colab, in a new cell after `%cd /content/{assignment}`:
`!python validate.py {notebook}`. It runs the whole notebook in a fresh kernel, as the grader
does, and lists every answer still empty and every failing test, or says
`Success! Your notebook passes all the tests.` Hidden tests check more when it is graded.

**Hand in** `{notebook}` only, keeping its name, the way your course asks. Don't change the test
cells or the cells marked as provided: the grader uses its own copies of them.
"""


class BundleError(GraderError):
    """A bundle cannot be written (no release, an import that cannot ship, a leak): the message says why."""


# ----------------------------------------------------------------------------- what a notebook imports

def cell_code(source: str) -> str:
    """Cell source with IPython magics and shell lines (``%...``, ``!...``) replaced by ``pass``."""
    lines = []
    for line in source.splitlines():
        stripped = line.lstrip()
        lines.append(line[:len(line) - len(stripped)] + "pass" if stripped[:1] in ("%", "!") else line)
    return "\n".join(lines)


def _module_file(name: str) -> Path | None:
    """The file of project module ``name`` (``a.b`` -> ``a/b.py`` or ``a/b/__init__.py``), or None."""
    base = REPO_ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _package_of(path: Path) -> str:
    """Dotted package that relative imports of a project file start from ("" for a top-level module)."""
    return ".".join(path.parent.relative_to(REPO_ROOT).parts)


def imported_names(tree: ast.AST, package: str) -> set[str]:
    """Absolute dotted names a parsed module may import (``from a import b`` gives ``a`` and ``a.b``,
    since ``b`` may be a submodule); relative imports resolved against ``package``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                if node.level - 1 > len(parts):
                    continue
                base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            else:
                base = node.module
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return {name for name in names if name}


def _string_literals(tree: ast.AST) -> set[str]:
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def _project_files(name: str, where: str) -> list[Path]:
    """Files that importing project module ``name`` executes: every package ``__init__.py`` on the way
    and the module itself. [] for a name outside the project (the standard library, a pip package,
    or a name ``from a import b`` gives for an attribute ``b``)."""
    top = name.split(".")[0]
    if top == GRADER_DIR.name:
        raise BundleError(f"{where} imports {name}: the grader's package never ships to students")
    if _module_file(top) is None:
        return []
    parts = name.split(".")
    files = [_module_file(".".join(parts[:i])) for i in range(1, len(parts) + 1)]
    return [path for path in files if path is not None]


def dependencies(notebook: Path) -> tuple[list[Path], list[str]]:
    """(project files the notebook needs, sorted; names of the ``ckpts/`` folders it needs, sorted).

    Raises BundleError when a code cell does not parse or something imports ``autograder``."""
    import nbformat

    trees = []
    for index, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
        if cell.cell_type == "code":
            try:
                trees.append((ast.parse(cell_code(cell.source)), "", f"{notebook.name} cell {index}"))
            except SyntaxError as exc:
                raise BundleError(f"{notebook} cell {index} is not valid Python ({exc.msg}, line {exc.lineno}): "
                                  "cannot compute what it imports") from exc
    files, literals = set(), set()
    while trees:
        tree, package, where = trees.pop()
        literals |= _string_literals(tree)
        for name in sorted(imported_names(tree, package)):
            for path in _project_files(name, where):
                if path not in files:
                    files.add(path)
                    trees.append((ast.parse(path.read_text(), str(path)), _package_of(path),
                                  str(path.relative_to(REPO_ROOT))))
    models = sorted(folder.name for folder in CKPT_DIR.iterdir() if folder.is_dir()) if CKPT_DIR.is_dir() else []
    # A model is named by its folder ("azul_strong") or its short name ("strong"), as model_dir reads it.
    checkpoints = [name for name in models if name in literals or name.removeprefix("azul_") in literals]
    return sorted(files), checkpoints


def checkpoint_files(folder: Path) -> list[Path]:
    """The files of checkpoint folder ``folder`` that ship, sorted: every file in it and its
    subfolders (``anet_<episode>/``), except under ``CKPT_EXCLUDED_DIRS`` and hidden ones."""
    return [path for path in sorted(folder.rglob("*")) if path.is_file()
            and not any(part in CKPT_EXCLUDED_DIRS or part.startswith(".") for part in path.relative_to(folder).parts)]


# ----------------------------------------------------------------------------- the bundle

def supported_pythons(pyproject: Path = REPO_ROOT / "pyproject.toml") -> tuple[str, ...]:
    """The Python versions that ``requires-python`` of pyproject.toml admits, e.g. ("3.11", "3.12")."""
    spec = SpecifierSet(tomllib.loads(pyproject.read_text())["project"]["requires-python"])
    return tuple(f"3.{minor}" for minor in range(100) if Version(f"3.{minor}") in spec)


PYTHONS = supported_pythons()


def pythons_text(versions=PYTHONS) -> str:
    """``"3.11, 3.12 or 3.13"``: the versions as the READMEs state them."""
    return ", ".join(versions[:-1]) + " or " + versions[-1]


def student_pins() -> dict[str, tuple[str, bool]]:
    """{canonical name: (pin line, direct?)} of requirements-student.txt, in its order; direct: listed
    under its ``# Direct dependencies`` comment."""
    direct, found = False, {}
    for line in STUDENT_REQUIREMENTS.read_text().splitlines():
        if line.startswith("#"):
            direct = line.startswith("# Direct dependencies")
        elif "==" in line:
            found[canonicalize_name(line.split("==")[0])] = (line.strip(), direct)
    return found


def imported_distributions(files: dict[str, bytes]) -> dict[str, set[str]]:
    """{canonical distribution name: the bundle paths that import it} for the third-party imports of
    the bundle's notebooks and modules (distributions from this environment's installed metadata)."""
    from importlib.metadata import packages_distributions

    import nbformat

    providers, found = packages_distributions(), {}
    for path, content in sorted(files.items()):
        if path.endswith(".py"):
            sources, package = [content.decode()], ".".join(Path(path).parent.parts)
        elif path.endswith(".ipynb"):
            sources, package = [cell_code(cell.source) for cell in nbformat.reads(content.decode(), as_version=4).cells
                                if cell.cell_type == "code"], ""
        else:
            continue
        for source in sources:
            for name in imported_names(ast.parse(source), package):
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or _module_file(top) is not None:
                    continue
                if top not in providers:
                    raise BundleError(f"{path} imports {top}, which no installed package provides")
                for dist in providers[top]:
                    found.setdefault(canonicalize_name(dist), set()).add(path)
    return found


def _marker_applies(requirement: Requirement, extras) -> bool:
    """Whether a dependency applies on some supported Python of this platform, for ``extras``."""
    return requirement.marker is None or any(
        requirement.marker.evaluate({"python_version": version, "python_full_version": f"{version}.0", "extra": extra})
        for version in PYTHONS for extra in (*extras, ""))


def needed_pins(files: dict[str, bytes]) -> list[str]:
    """The pins of requirements-student.txt that a bundle's ``files`` need, in that file's order: what
    they import, ``NOTEBOOK_TOOLS``, and every dependency those pull in on a supported Python (read
    from the installed packages' metadata, which must be the pinned versions).

    Raises BundleError for an import or a dependency that requirements-student.txt does not pin,
    or an installed version that differs from its pin (then this environment is not the pinned one)."""
    from importlib import metadata

    pins = student_pins()
    imported = imported_distributions(files)
    unpinned = sorted(f"{dist} (imported by {', '.join(sorted(paths))})" for dist, paths in imported.items()
                      if dist not in pins)
    if unpinned:
        raise BundleError(f"requirements-student.txt pins no {'; '.join(unpinned)}: add its pin from requirements.txt")
    todo, seen = [(name, ()) for name in (*NOTEBOOK_TOOLS, *sorted(imported))], set()  # sorted: one message whatever the hash seed
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        pinned = pins[name][0].split("==")[1]
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = None
        if installed is None or Version(installed) != Version(pinned):
            found = f"{installed} is installed" if installed else "is not installed"
            raise BundleError(f"{name} {found} but {pinned} pinned: run scripts/setup.sh "
                              "(a bundle's requirements are read from the pinned environment)")
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            if _marker_applies(requirement, extras):
                dependency = canonicalize_name(requirement.name)
                if dependency not in pins:
                    raise BundleError(f"{name} needs {requirement.name}, which requirements-student.txt does not "
                                      "pin: add its pin from requirements.txt")
                todo.append((dependency, tuple(sorted(requirement.extras))))
    needed = {name for name, _ in seen}
    return [name for name in pins if name in needed]


def bundle_files(assignment: str, release_dir: Path = RELEASE_DIR) -> dict[str, bytes]:
    """{path inside the zip: content} of one assignment's bundle (no scan yet, see ``write_bundle``)."""
    if not (SOURCE_DIR / assignment).is_dir():
        known = sorted(p.name for p in SOURCE_DIR.iterdir() if p.is_dir())
        raise BundleError(f"no assignment {assignment!r} in assignments/ (known: {', '.join(known)})")
    notebooks = sorted(Path(release_dir, assignment).glob("*.ipynb"))
    if not notebooks:
        raise BundleError(f"no release notebook in {Path(release_dir, assignment)}: run `python -m autograder build` first")
    files = {notebook.name: notebook.read_bytes() for notebook in notebooks}
    for notebook in notebooks:
        modules, checkpoints = dependencies(notebook)
        files.update({str(path.relative_to(REPO_ROOT)): path.read_bytes() for path in modules})
        for name in checkpoints:
            files.update({f"{CKPT_DIR.name}/{path.relative_to(CKPT_DIR).as_posix()}": path.read_bytes()
                          for path in checkpoint_files(CKPT_DIR / name)})
    files["validate.py"] = VALIDATE_SOURCE.read_bytes()
    pins, needed = student_pins(), needed_pins(files)
    colab = " ".join(pins[name][0] for name in needed if pins[name][1] and name not in COLAB_PROVIDED)
    files["requirements.txt"] = (f"# {assignment}: what this folder's notebook, modules and validate.py import, "
                                 f"Jupyter, and what\n# those pull in, pinned. Python {pythons_text()}.\n"
                                 + "".join(pins[name][0] + "\n" for name in needed)).encode()
    files["environment.yml"] = ENVIRONMENT_YML.format(assignment=assignment).encode()
    files["README.md"] = README.format(assignment=assignment, notebook=notebooks[0].name, colab_pins=colab,
                                       pythons=pythons_text()).encode()
    return {f"{assignment}/{name}": content for name, content in files.items()}


def forbidden(path: str) -> str | None:
    """Why a path inside a bundle (``<assignment>/...``) must not ship, or None."""
    parts = Path(path).parts[1:]
    if parts and parts[0] in FORBIDDEN_DIRS:
        return f"everything under {parts[0]}/ stays with the instructor"
    grader_files = {p.name for pattern in GRADER_FILE_PATTERNS for p in (GRADER_DIR / "assignments").glob(pattern)}
    if parts and parts[-1] in grader_files:
        return f"named like the grader's autograder/assignments/*/{parts[-1]} (a judge, case data or probe)"
    return None


def scan(files: dict[str, bytes]) -> list[str]:
    """One line per problem: a forbidden path, or a text file showing a secret. Every text file is
    checked for hidden-test lines; the notebook and the other non-Python files for solution and judge
    lines too, as ``leaks.scan`` checks release/ (lines public anyway do not count); the Python
    modules, framework code that may share an idiomatic line with a solution or a judge, for a run
    of ``leaks.RUN_LINES`` consecutive solution, hidden-test or judge lines (a copied block)."""
    hidden, solution = leaks.secret_lines(SOURCE_DIR)
    judge = leaks.judge_lines() - leaks.public_lines(SOURCE_DIR)
    runs = leaks.secret_runs(SOURCE_DIR)
    problems = [f"{path}: {why}" for path in sorted(files) if (why := forbidden(path))]
    for path, content in sorted(files.items()):
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            continue  # binary (checkpoint weights)
        lines = leaks.notebook_text_lines(text) if path.endswith(".ipynb") else leaks.text_lines(text)
        lines -= leaks.copied_lines(SOURCE_DIR, path.split("/", 1)[0])  # part 1's solution, given in part 2
        kinds = [(hidden, "hidden-test")] + ([] if path.endswith(".py") else [(solution, "solution"),
                                                                             (judge, "grader (judge)")])
        for secrets, kind in kinds:
            problems += [f"{path}: contains a {kind} line: {line!r}" for line in sorted(secrets & lines)]
        if path.endswith(".py"):
            ordered = leaks.significant(text.splitlines())
            for i in range(len(ordered) - leaks.RUN_LINES + 1):
                run = tuple(ordered[i:i + leaks.RUN_LINES])
                if run in runs:
                    problems.append(f"{path}: contains a block of {runs[run]} lines: {' / '.join(run)!r}")
    return problems


def write_bundle(assignment: str, output=DEFAULT_OUTPUT, release_dir: Path = RELEASE_DIR) -> Path:
    """Write ``<output>/<assignment>.zip`` after the leak scan; raise BundleError (and write nothing)
    if anything would leak."""
    files = bundle_files(assignment, release_dir)
    problems = scan(files)
    if problems:
        raise BundleError(f"the {assignment} bundle would leak; nothing written:\n  " + "\n  ".join(problems[:20]))
    target = Path(output) / f"{assignment}.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    date = zip_date()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in _with_folders(files):
            info = zipfile.ZipInfo(name, date)
            info.external_attr = (0o40755 if name.endswith("/") else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files.get(name, b""))
    return target


def zip_date() -> tuple:
    """The date of every zip entry, in UTC: SOURCE_DATE_EPOCH when set (reproducible-builds.org),
    else the commit date of this checkout's HEAD, else ``FALLBACK_DATE`` (no git). The same commit
    gives the same zip, byte for byte."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None:
        try:
            done = subprocess.run(["git", "-C", str(REPO_ROOT), "log", "-1", "--format=%ct"],
                                  capture_output=True, text=True, timeout=30)
        except OSError:
            return FALLBACK_DATE
        if done.returncode != 0 or not done.stdout.strip():
            return FALLBACK_DATE
        epoch = done.stdout.strip()
    return time.gmtime(int(epoch))[:6]


def _with_folders(files: dict[str, bytes]) -> list[str]:
    """Zip entry names: every file plus an entry for each folder (unzip tools expect them), sorted."""
    folders = {"/".join(Path(name).parts[:i]) + "/" for name in files for i in range(1, len(Path(name).parts))}
    return sorted(folders | set(files))


def write_bundles(assignments=None, output=DEFAULT_OUTPUT) -> list[Path]:
    """One zip per assignment (default: every assignment of assignments/)."""
    names = assignments or sorted(p.name for p in SOURCE_DIR.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))
    return [write_bundle(name, output) for name in names]

