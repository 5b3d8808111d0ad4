"""What the driver ships to every node, once per batch, through Ray's object store.

- ``gradebook_template``: an SQLite gradebook holding the course's definition only (assignments,
  notebooks, cells with their sources, points and checksums; no student, no grade), which a node
  copies into its throwaway workspace: nbgrader's ``autograde`` there restores and grades against
  exactly the driver's cells;
- ``release_files``: each assignment's released files (``RestoreCells`` puts a missing cell back
  from them);
- ``carried_config``: the grading settings of the driver's nbgrader configuration (cell budgets,
  limits, late penalties), as lines of a workspace's ``nbgrader_config.py``; the course's
  ``deadlines.toml`` and its extensions stay on the driver, which runs the late-penalty steps itself
  (``late_preprocessors``; a node grades without them, ``node.NO_LATE_STEPS``);
- ``stamp``: what must be equal on a node for its grades to equal the driver's (the grading
  sources, Python, the cache keys);
- ``pack`` / ``digest``: a warm cache folder (numba's, JAX's) as one tar and the SHA-256 of its
  files, which a node checks before it uses the folder (``node.install_cache``).
"""
from __future__ import annotations

import ast
import hashlib
import io
import sys
import tarfile
import tempfile
from pathlib import Path

from ..grading_config import REPO_ROOT, sqlite_url

# Tables of nbgrader's gradebook that define the course (what generate_assignment writes); the
# others hold students and their grades, which never leave the driver.
DEFINITION = ("course", "assignment", "notebook", "base_cell", "grade_cells", "solution_cells", "task_cells",
              "source_cell")
# The configuration sections a submission's grade depends on. Paths of the driver's course are not
# carried (a node's workspace has its own).
CARRIED = ("Execute", "SandboxExecute", "LimitOutput", "IgnorePattern", "AssignLatePenalties",
           "LateSubmissionPlugin")
NOT_CARRIED = {"SandboxExecute": {"report_directory", "jax_cache_fill"}}
# The sources whose equality makes a node grade as the driver does (grader, content, course modules).
SOURCES = ("autograder/**/*.py", "assignments/*/*.ipynb", "azcourse/**/*.py", "Azul_Simulator.py",
           "Azul_Visuals.py", "ckpts/**/*")


class KitError(RuntimeError):
    """The driver's course cannot be shipped as it is (a setting that cannot travel, say)."""


def gradebook_template(course) -> bytes:
    """The bytes of an SQLite gradebook with nbgrader's tables, its schema version and the rows of
    ``DEFINITION`` copied from the course's own gradebook (SQLite or PostgreSQL: read through
    SQLAlchemy)."""
    from nbgrader.api import Base
    from sqlalchemy import create_engine, insert, select, text

    with tempfile.TemporaryDirectory(prefix="azcourse-kit-") as folder:
        path = Path(folder) / "gradebook.db"
        source, target = create_engine(course.db_url), create_engine(sqlite_url(path))
        try:
            Base.metadata.create_all(bind=target)
            with source.connect() as reading, target.begin() as writing:
                version = reading.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
                writing.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
                writing.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"), {"v": version})
                for table in Base.metadata.sorted_tables:  # parents before children
                    if table.name in DEFINITION:
                        rows = [dict(row._mapping) for row in reading.execute(select(table))]
                        if rows:
                            writing.execute(insert(table), rows)
        finally:
            source.dispose()
            target.dispose()
        return path.read_bytes()


def folder_files(folder: Path) -> dict[str, bytes]:
    """{relative path: bytes} of every file under `folder` ({} when it does not exist)."""
    folder = Path(folder)
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def release_files(course, assignments) -> dict[str, dict[str, bytes]]:
    """{assignment: {relative path: bytes}} of the course's release folder."""
    return {name: folder_files(course.release / name) for name in sorted(set(assignments))}


def load_config(course):
    """The course's nbgrader configuration (its ``nbgrader_config.py``), a traitlets ``Config``."""
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("nbgrader_config.py", path=str(course.config_dir)).load_config()


def carried_config(config) -> str:
    """The ``CARRIED`` settings of an nbgrader configuration (``load_config``) as ``c.Section.key =
    value`` lines. A class (a late-penalty plugin) travels as its import path; KitError for a value
    that is neither a literal nor a class."""
    lines = []
    for section in CARRIED:
        for key, value in sorted(config.get(section, {}).items()) if section in config else []:
            if key in NOT_CARRIED.get(section, ()):
                continue
            if isinstance(value, type):
                value = f"{value.__module__}.{value.__qualname__}"
            text = repr(value)
            try:
                literal = ast.literal_eval(text) == value
            except (ValueError, SyntaxError):
                literal = False
            if not literal:
                raise KitError(f"the setting {section}.{key} = {text[:80]} cannot be sent to a node (only "
                               "literals and classes travel): set it in a form that does, or grade locally")
            lines.append(f"c.{section}.{key} = {text}")
    return "".join(line + "\n" for line in lines)


def late_preprocessors(config) -> list:
    """The late-penalty steps of the configuration's ``Autograde.autograde_preprocessors`` (nbgrader's
    ``AssignLatePenalties`` or a subclass, e.g. the pack's ``ApplyLatePolicy``), built with it: the driver
    runs them itself, on its own deadlines and submission times, as a local ``autograde`` would."""
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import AssignLatePenalties
    from traitlets.utils.importstring import import_item

    chain = config.Autograde.get("autograde_preprocessors") if "Autograde" in config else None
    chain = chain or Autograde.class_traits()["autograde_preprocessors"].default_value
    classes = [import_item(step) if isinstance(step, str) else step for step in chain]
    return [cls(config=config) for cls in classes if isinstance(cls, type) and issubclass(cls, AssignLatePenalties)]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stamp() -> dict:
    """What this machine grades with: {"sources": SHA-256 of ``SOURCES`` (names and bytes), "python",
    "numba": the numba cache's key and {source: [sha256, mtime_ns]} (numba's cache checks the
    timestamps), "jax": the JAX cache's key}."""
    from .. import jax_cache, numba_cache

    digest = hashlib.sha256()
    for path in sorted({p for pattern in SOURCES for p in REPO_ROOT.glob(pattern)
                        if p.is_file() and "__pycache__" not in p.parts}):
        digest.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    numba_sources = {name: [_sha256(REPO_ROOT / name), (REPO_ROOT / name).stat().st_mtime_ns]
                     for name in numba_cache.SOURCES}
    return {"sources": digest.hexdigest(), "python": sys.version, "numba_key": numba_cache.cache_key(),
            "numba_sources": numba_sources, "jax_key": jax_cache.cache_key()}


def digest(folder: Path) -> str:
    """SHA-256 of a folder's files (relative names and bytes), hex."""
    folder = Path(folder)
    sha = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        sha.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return sha.hexdigest()


def pack(folder: Path) -> dict:
    """A cache folder as it travels: {"name": its folder name, "sha256": ``digest``, "tar": bytes}."""
    folder = Path(folder)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            tar.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return {"name": folder.name, "sha256": digest(folder), "tar": buffer.getvalue()}
