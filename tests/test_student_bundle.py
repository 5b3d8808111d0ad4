"""The student bundle (``python -m autograder bundle``): exactly what a student receives, nothing secret,
and it works on its own, with the commands its README gives.

Fast tests: the exact files of each bundle, no grader path, a clean leak scan, planted leaks caught
(in temporary copies), ``requirements-student.txt`` pins equal to ``requirements.txt`` without the
instructor's tools, each bundle's requirements (what it imports and what that pulls in: no JAX for
part 1), the zip entries' date, ``validate.py``'s nbgrader semantics on prepared notebooks and its
silent kernel.

The slow test installs each bundle as a student would, typing its README's pip commands as given:
unzipped into an empty folder, ``python3 -m venv .venv``, ``.venv/bin/pip install -r
requirements.txt`` (``python3`` the Python under test, nothing of this checkout on ``sys.path``),
``.venv/bin/jupyter lab <notebook>`` until it serves the notebook (the first bundle: JupyterLab's pins are
the same in all), then ``.venv/bin/python validate.py
<notebook>`` on the blank release notebook (exit 1, every unfilled cell named) and on it completed
with the reference answers (exit 0, success line, nothing on stderr). It installs part 3's bundle, whose
pins hold numba (``AZCOURSE_ALL_BUNDLES=1``: all six; the others' pins, JAX's among them, are checked against the
wheels' metadata in ``test_python_versions`` and their files and imports here), on the suite's Python;
``AZCOURSE_BUNDLE_ALL_PYTHONS=1`` runs it on every supported Python found (``test_python_versions``
covers those with the same pins and notebooks anyway). Figures: docs/student_bundle.md.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest
from packaging.utils import canonicalize_name
from test_python_versions import INSTALLED, SUPPORTED, interpreter, not_found, pins, unpinned

from autograder import build, bundle, leaks
from autograder.grading_config import REPO_ROOT
from azcourse import student_validate

ALL_PYTHONS = "AZCOURSE_BUNDLE_ALL_PYTHONS"  # set: the slow test installs the bundles on every Python found
ALL_BUNDLES = "AZCOURSE_ALL_BUNDLES"  # set: the slow test installs all six bundles, not only END_TO_END
# The bundle installed end to end by default (numba's engine, Azul's models played in numpy), the others'
# pins are checked against the wheels' metadata by test_python_versions for every Python.
END_TO_END = "azul3_play"

ASSIGNMENTS = ("ttt1_mcts", "ttt2_selfplay", "azul3_play", "hex4_onpolicy", "othello5_planning", "tak6_alphazero")
COMMON = ["README.md", "environment.yml", "requirements.txt", "validate.py", "azcourse/__init__.py",
          "azcourse/visible_checks.py"]
TTT = ["azcourse/tictactoe/__init__.py", "azcourse/tictactoe/rules.py", "azcourse/tictactoe/tree_plots.py"]
EXPECTED = {
    "ttt1_mcts": COMMON + TTT + ["ttt1_mcts.ipynb"],
    "ttt2_selfplay": COMMON + TTT + ["ttt2_selfplay.ipynb", "azcourse/progress.py", "azcourse/tictactoe/fast_inference.py",
                                     "azcourse/tictactoe/matches.py", "azcourse/tictactoe/minimax.py"],
    "azul3_play": COMMON + ["azul3_play.ipynb", "Azul_Simulator.py", "Azul_Visuals.py", "azcourse/azul/__init__.py",
                            "azcourse/azul/checkpoints.py", "azcourse/azul/features.py", "azcourse/azul/heuristics.py",
                            "azcourse/azul/mcts_agent.py", "azcourse/azul/game.py",
                            "azcourse/azul/agents.py", "azcourse/azul/terminal.py", "azcourse/core/__init__.py",
                            "azcourse/core/mcts.py", "azcourse/core/gumbel.py", "azcourse/core/evaluators.py", "azcourse/core/protocol.py",
                            "azcourse/core/terminal.py", "azcourse/flax_msgpack.py", "azcourse/progress.py",
                            # the models are checkpoints of the one trainer: its loader, the registry names the game
                            "azcourse/alphazero/__init__.py", "azcourse/alphazero/checkpoints.py",
                            "azcourse/alphazero/network.py", "azcourse/alphazero/searches.py", "azcourse/registry.py",
                            "azcourse/core/alphabeta.py"]
                  + [f"ckpts/{model}/{name}" for model in ("azul_baseline", "azul_strong")
                     for name in ("card.json", "config.toml", "log.csv", "params.msgpack")]
                  + ["ckpts/azul_strong/curve.csv"],  # the learning curve of its run
    # ckpts/hex5: the run folder that cached_anets(run_dir_for("hex5")) reads, every anet_<episode>/ in it
    "hex4_onpolicy": COMMON + ["hex4_onpolicy.ipynb", "azcourse/flax_msgpack.py", "azcourse/core/__init__.py",
                               "azcourse/core/agents.py", "azcourse/core/mcts.py", "azcourse/core/gumbel.py",
                               "azcourse/core/evaluators.py", "azcourse/hex/game.py", "azcourse/hex/display.py",
                               "azcourse/core/protocol.py", "azcourse/hex/__init__.py", "azcourse/hex/anet.py",
                               "azcourse/hex/checkpoints.py", "azcourse/hex/config.py", "azcourse/hex/replay.py",
                               "azcourse/run_config.py",
                               "azcourse/progress.py", "ckpts/hex5/config.toml", "ckpts/hex5/topp.png",
                               "ckpts/hex5/training_log.csv"]
                     + [f"ckpts/hex5/anet_{episode}/{name}" for episode in range(0, 501, 100)
                        for name in ("card.json", "params.msgpack")],
    # ckpts/othello6: the folder that shipped_predictor(GAME, "othello6") reads (best/), its log, config and README
    "othello5_planning": COMMON + ["othello5_planning.ipynb", "azcourse/alphazero/__init__.py",
                                   "azcourse/alphazero/agent.py", "azcourse/alphazero/checkpoints.py",
                                   "azcourse/alphazero/network.py", "azcourse/alphazero/searches.py",
                                   "azcourse/core/__init__.py", "azcourse/core/agents.py",
                                   "azcourse/core/alphabeta.py",
                                   "azcourse/core/arena.py", "azcourse/core/evaluators.py", "azcourse/core/mcts.py", "azcourse/core/gumbel.py",
                                   "azcourse/core/planners.py", "azcourse/core/proofs.py", "azcourse/core/protocol.py",
                                   "azcourse/core/square_symmetry.py", "azcourse/core/threads.py", "azcourse/flax_msgpack.py", "azcourse/othello/__init__.py", "azcourse/othello/agents.py",
                                   "azcourse/othello/display.py", "azcourse/othello/game.py",
                                   "azcourse/othello/symmetry.py", "azcourse/progress.py", "azcourse/registry.py",
                                   "ckpts/othello6/README.md", "ckpts/othello6/config.toml", "ckpts/othello6/log.csv",
                                   "ckpts/othello6/best/card.json", "ckpts/othello6/best/params.msgpack"],
    # ckpts/tak3: the run folder that shipped_checkpoint(GAME, "tak3") names: its best/ network, log, config and
    # README (not the run's intermediate checkpoints/)
    "tak6_alphazero": COMMON + ["tak6_alphazero.ipynb", "azcourse/alphazero/__init__.py", "azcourse/alphazero/agent.py",
                                "azcourse/alphazero/checkpoints.py", "azcourse/alphazero/flax_net.py",
                                "azcourse/alphazero/network.py", "azcourse/alphazero/searches.py",
                                "azcourse/core/__init__.py", "azcourse/core/agents.py", "azcourse/core/alphabeta.py",
                                "azcourse/core/arena.py",
                                "azcourse/core/evaluators.py", "azcourse/core/mcts.py", "azcourse/core/gumbel.py", "azcourse/core/proofs.py",
                                "azcourse/core/protocol.py",
                                "azcourse/core/square_symmetry.py", "azcourse/core/threads.py", "azcourse/flax_msgpack.py", "azcourse/progress.py",
                                "azcourse/registry.py", "azcourse/tak/__init__.py", "azcourse/tak/agents.py", "azcourse/tak/display.py",
                                "azcourse/tak/game.py", "ckpts/tak3/README.md", "ckpts/tak3/config.toml",
                                "ckpts/tak3/log.csv", "ckpts/tak3/best/card.json", "ckpts/tak3/best/params.msgpack"],
}
INSTRUCTOR_ONLY = {"nbgrader", "psycopg2-binary", "pytest", "hypothesis", "playwright", "alembic", "sqlalchemy",
                   "mako", "greenlet", "pluggy", "iniconfig", "sortedcontainers", "rapidfuzz", "setuptools"}
JAX = {"jax", "jaxlib", "flax", "optax", "orbax-checkpoint", "tensorstore"}
NUMBA = {"numba", "llvmlite"}
# Part 1 is numpy and matplotlib only; part 2 trains a Flax network with optax; part 3 plays the one trainer's
# checkpoints in numpy (read without JAX) and runs the numba engine; part 4 trains a Flax ANET with optax; part 5 plays its network in
# numpy (the checkpoint modules it imports read and write checkpoints without JAX); part 6 trains one.
HEAVY = {"ttt1_mcts": set(), "ttt2_selfplay": JAX, "azul3_play": NUMBA, "hex4_onpolicy": JAX,
         "othello5_planning": set(), "tak6_alphazero": JAX}


@pytest.fixture(scope="module")
def zips(tmp_path_factory) -> dict:
    """{assignment: zip path}, written by the real command into a temporary folder."""
    output = tmp_path_factory.mktemp("dist")
    return {path.stem: path for path in bundle.write_bundles(None, output)}


def zip_files(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}


# ----------------------------------------------------------------------------- contents

def test_every_assignment_has_its_bundle_listed(zips):
    assert sorted(ASSIGNMENTS) == sorted(EXPECTED) == sorted(build.ASSIGNMENTS) == sorted(zips)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_bundle_holds_exactly_what_its_notebook_needs(zips, assignment):
    names = sorted(zip_files(zips[assignment]))
    assert names == sorted(f"{assignment}/{name}" for name in EXPECTED[assignment])


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_bundle_copies_are_the_committed_files(zips, assignment):
    files = zip_files(zips[assignment])
    sources = {f"{assignment}/{assignment}.ipynb": REPO_ROOT / "release" / assignment / f"{assignment}.ipynb",
               f"{assignment}/validate.py": REPO_ROOT / "azcourse" / "student_validate.py"}
    sources.update({name: REPO_ROOT / name.split("/", 1)[1] for name in files
                    if name.endswith(".py") and not name.endswith("/validate.py")})
    for name, source in sources.items():
        assert files[name] == source.read_bytes(), name


@pytest.mark.slow
def test_zip_has_one_top_folder_and_the_same_inputs_give_the_same_bytes(zips, tmp_path):
    for assignment, path in zips.items():
        with zipfile.ZipFile(path) as archive:
            assert {name.split("/")[0] for name in archive.namelist()} == {assignment}
        again = bundle.write_bundle(assignment, tmp_path)
        assert again.read_bytes() == path.read_bytes(), assignment


def dates(path: Path) -> set:
    with zipfile.ZipFile(path) as archive:
        return {info.date_time for info in archive.infolist()}


def test_zip_entries_carry_the_commit_date_of_head(zips):
    done = subprocess.run(["git", "-C", str(REPO_ROOT), "log", "-1", "--format=%ct"], capture_output=True, text=True,
                          check=True)
    commit = time.gmtime(int(done.stdout))
    expected = (*commit[:5], commit.tm_sec // 2 * 2)  # zip times count in 2 s steps
    assert commit.tm_year >= 2026
    for path in zips.values():
        assert dates(path) == {expected}, path.name


def test_zip_date_follows_source_date_epoch_and_falls_back_without_git(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(1_790_000_000))  # 2026-09-21 14:13:20 UTC
    assert dates(bundle.write_bundle("ttt1_mcts", tmp_path / "epoch")) == {(2026, 9, 21, 14, 13, 20)}
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    monkeypatch.setattr(bundle, "REPO_ROOT", tmp_path)  # an export of the sources: no .git
    assert bundle.zip_date() == bundle.FALLBACK_DATE
    monkeypatch.setenv("PATH", str(tmp_path))  # no git at all
    assert bundle.zip_date() == bundle.FALLBACK_DATE


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_grader_path_and_the_leak_scan_is_clean(zips, assignment):
    files = zip_files(zips[assignment])
    assert [name for name in files if bundle.forbidden(name)] == []
    assert not any(part in ("autograder", "solutions", "assignments") for name in files for part in name.split("/"))
    assert bundle.scan(files) == []


def test_forbidden_paths():
    assert "stays with the instructor" in bundle.forbidden("ttt1_mcts/autograder/assignments/ttt1_mcts/probes.py")
    assert "stays with the instructor" in bundle.forbidden("ttt1_mcts/solutions/ttt1_mcts/ttt1_mcts.ipynb")
    assert "stays with the instructor" in bundle.forbidden("ttt1_mcts/assignments/ttt1_mcts/ttt1_mcts.ipynb")
    assert "judge, case data or probe" in bundle.forbidden("ttt1_mcts/azcourse/checks.py")
    assert "judge, case data or probe" in bundle.forbidden("ttt1_mcts/cases.py")
    assert "judge, case data or probe" in bundle.forbidden("azul3_play/lib/probes.py")
    assert "judge, case data or probe" in bundle.forbidden("hex4_onpolicy/azcourse/hex/checks.py")
    assert "judge, case data or probe" in bundle.forbidden("hex4_onpolicy/examples.py")
    assert bundle.forbidden("ttt1_mcts/azcourse/visible_checks.py") is None  # the notebooks' own visible checks


def test_a_checkpoint_ships_without_the_run_state_of_the_instructors_machine(tmp_path, monkeypatch):
    """A run folder as a resumable training leaves it (azcourse/hex/train.py): its resume/ state, a
    cache and hidden files stay home; every anet_<episode>/ ships."""
    from azcourse.hex import train

    ckpts = tmp_path / "ckpts"
    shutil.copytree(REPO_ROOT / "ckpts" / "hex5", ckpts / "hex5")
    for extra in (train.RESUME_FILE, "anet_500/.DS_Store", "__pycache__/x.pyc", ".ipynb_checkpoints/x.csv"):
        (ckpts / "hex5" / extra).parent.mkdir(parents=True, exist_ok=True)
        (ckpts / "hex5" / extra).write_bytes(b"instructor only")
    monkeypatch.setattr(bundle, "CKPT_DIR", ckpts)
    names = {name.split("/", 1)[1] for name in bundle.bundle_files("hex4_onpolicy") if "/ckpts/" in f"/{name}"}
    assert names == {name for name in EXPECTED["hex4_onpolicy"] if name.startswith("ckpts/")}


def release_copy(tmp_path: Path, assignment: str, extra_cell: str) -> Path:
    """A copy of release/ with one code cell appended to an assignment's notebook (the real files stay)."""
    release = tmp_path / "release"
    (release / assignment).mkdir(parents=True)
    nb = nbformat.read(REPO_ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(extra_cell))
    nbformat.write(nb, release / assignment / f"{assignment}.ipynb")
    return release


def test_a_planted_hidden_test_line_is_caught_and_nothing_is_written(tmp_path):
    hidden, _ = leaks.secret_lines(REPO_ROOT / "assignments")
    line = sorted(hidden)[0]
    release = release_copy(tmp_path, "ttt1_mcts", line)
    with pytest.raises(bundle.BundleError, match="would leak") as caught:
        bundle.write_bundle("ttt1_mcts", tmp_path / "out", release)
    assert f"ttt1_mcts/ttt1_mcts.ipynb: contains a hidden-test line: {line!r}" in str(caught.value)
    assert not (tmp_path / "out" / "ttt1_mcts.zip").exists()


def test_a_solution_block_copied_into_a_module_is_caught_but_an_idiomatic_line_is_not():
    solution = nbformat.read(REPO_ROOT / "solutions" / "azul3_play" / "azul3_play.ipynb", as_version=4)
    cell = next(c for c in solution.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "legal_takes")
    files = bundle.bundle_files("azul3_play")
    planted = {**files, "azul3_play/azcourse/helpers.py": cell.source.encode()}
    assert any("azcourse/helpers.py: contains a block of solution lines" in p for p in bundle.scan(planted))
    # `for row in range(5):` is a solution line and an engine line: alone, it tells nothing
    idiom = {**files, "azul3_play/azcourse/helpers.py": b"for row in range(5):\n    pass\n"}
    assert bundle.scan(idiom) == []


def test_a_notebook_that_imports_the_grader_is_refused(tmp_path):
    release = release_copy(tmp_path, "ttt1_mcts", "from autograder.assignments.ttt1_mcts.checks import check_select_action")
    with pytest.raises(bundle.BundleError, match="imports autograder.assignments.ttt1_mcts.checks: the grader's package never ships"):
        bundle.write_bundle("ttt1_mcts", tmp_path / "out", release)


def test_imports_are_followed_through_magics_and_relative_imports(tmp_path):
    release = release_copy(tmp_path, "ttt1_mcts", "%matplotlib inline\n!ls\nimport azcourse.azul\n")
    modules, checkpoints = bundle.dependencies(release / "ttt1_mcts" / "ttt1_mcts.ipynb")
    names = {str(path.relative_to(REPO_ROOT)) for path in modules}
    # azcourse/azul/__init__.py imports .checkpoints, which imports Azul_Simulator and the trainer's loader, ...
    assert {"azcourse/azul/__init__.py", "azcourse/azul/checkpoints.py", "azcourse/alphazero/checkpoints.py",
            "azcourse/azul/features.py", "Azul_Simulator.py"} <= names
    # ... and names the models "baseline" and "strong" (MODEL_AGENTS)
    assert checkpoints == ["azul_baseline", "azul_strong"]


def test_missing_release_and_unknown_assignment_are_clear_errors(tmp_path):
    with pytest.raises(bundle.BundleError, match="no release notebook in .*run `python -m autograder build` first"):
        bundle.bundle_files("ttt1_mcts", tmp_path)
    with pytest.raises(bundle.BundleError, match="no assignment 'ttt9' in assignments/"):
        bundle.bundle_files("ttt9")


def readme_commands(readme: str, paragraph: str) -> list[str]:
    """The lines of the first ```bash block after the README paragraph that starts with ``paragraph``."""
    return readme.split(f"\n{paragraph}", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0].strip().splitlines()


def test_readme_gives_each_route_and_how_to_validate(zips):
    text = zip_files(zips["azul3_play"])["azul3_play/README.md"].decode()
    for route in ("**pip**", "**conda**", "**Colab.**", "**Check your work.**", "**Hand in**"):
        assert f"\n{route}" in text
    assert readme_commands(text, "**pip**") == ["python3 -m venv .venv", ".venv/bin/pip install -r requirements.txt",
                                                ".venv/bin/jupyter lab azul3_play.ipynb"]
    assert readme_commands(text, "**conda**") == ["conda env create -f environment.yml", "conda activate azul3_play",
                                                  "jupyter lab azul3_play.ipynb"]
    assert readme_commands(text, "**Check your work.**") == [".venv/bin/python validate.py azul3_play.ipynb"]
    assert "`python validate.py azul3_play.ipynb`" in text and "`!python validate.py azul3_play.ipynb`" in text
    assert ".venv\\Scripts\\python validate.py azul3_play.ipynb" in text
    colab = text.split("%pip install -q ")[1].split("\n")[0].split()
    assert "numba==0.68.1" in colab and not any(pin.startswith(("jax", "flax")) for pin in colab)
    assert not any(pin.startswith(("jupyterlab", "ipykernel", "nbclient")) for pin in colab)
    assert set(colab) <= set(zip_files(zips["azul3_play"])["azul3_play/requirements.txt"].decode().splitlines())
    env = zip_files(zips["azul3_play"])["azul3_play/environment.yml"].decode()
    assert "- -r requirements.txt" in env and "-e ." not in env
    ttt1 = zip_files(zips["ttt1_mcts"])["ttt1_mcts/README.md"].decode()
    assert ttt1.split("%pip install -q ")[1].split("\n")[0].split() == ["matplotlib==3.11.2", "networkx==3.6.1",
                                                                        "numpy==2.4.6"]


# ----------------------------------------------------------------------------- requirements-student.txt

def test_student_pins_equal_the_course_pins_without_the_instructor_tools():
    student, course = pins(REPO_ROOT / "requirements-student.txt"), pins(REPO_ROOT / "requirements.txt")
    assert {name: version for name, version in student.items() if course.get(name) != version} == {}
    assert INSTRUCTOR_ONLY <= set(course)
    assert INSTRUCTOR_ONLY & set(student) == set()


def bundle_pins(zips, assignment) -> dict:
    text = zip_files(zips[assignment])[f"{assignment}/requirements.txt"].decode()
    return {canonicalize_name(line.split("==")[0]): line.split("==")[1] for line in text.splitlines()
            if not line.startswith("#")}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_bundle_pins_part_of_the_student_pins_and_jax_only_where_it_is_imported(zips, assignment):
    own, student = bundle_pins(zips, assignment), pins(REPO_ROOT / "requirements-student.txt")
    assert {name: version for name, version in own.items() if student.get(name) != version} == {}
    assert set(bundle.NOTEBOOK_TOOLS) <= set(own)
    assert own.keys() & (JAX | NUMBA) == HEAVY[assignment]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_bundle_pins_cover_every_import_of_what_it_ships(zips, assignment):
    """Each third-party module imported by a shipped notebook, module or validate.py comes from a
    package pinned in that bundle's requirements.txt (dist names from this venv's installed metadata)."""
    import ast
    from importlib.metadata import packages_distributions

    own, providers, missing = set(bundle_pins(zips, assignment)), packages_distributions(), set()
    for name, content in zip_files(zips[assignment]).items():
        package = "x"
        if name.endswith(".py"):
            sources = [content.decode()]
            package = ".".join(name.split("/")[1:-1]) or "x"  # <assignment>/azcourse/hex/game.py: azcourse.hex
        elif name.endswith(".ipynb"):
            sources = [bundle.cell_code(c.source) for c in nbformat.reads(content.decode(), as_version=4).cells
                       if c.cell_type == "code"]
        else:
            continue
        for source in sources:
            for imported in bundle.imported_names(ast.parse(source), package):
                top = imported.split(".")[0]
                if top in sys.stdlib_module_names or top in ("x", "azcourse", "Azul_Simulator", "Azul_Visuals"):
                    continue
                if not {canonicalize_name(d) for d in providers.get(top, [])} & own:
                    missing.add((name, top))
    assert missing == set()


def student_copy(tmp_path, monkeypatch, edit) -> None:
    """Bundles read a copy of requirements-student.txt with ``edit`` applied to its lines."""
    lines = (REPO_ROOT / "requirements-student.txt").read_text().splitlines()
    (tmp_path / "student.txt").write_text("\n".join(edit(lines)) + "\n")
    monkeypatch.setattr(bundle, "STUDENT_REQUIREMENTS", tmp_path / "student.txt")


def test_an_import_or_a_dependency_without_a_student_pin_is_refused(tmp_path, monkeypatch):
    student_copy(tmp_path, monkeypatch, lambda lines: [line for line in lines if not line.startswith("networkx==")])
    with pytest.raises(bundle.BundleError, match=r"pins no networkx \(imported by azcourse/tictactoe/tree_plots.py\)"):
        bundle.bundle_files("ttt1_mcts")
    student_copy(tmp_path, monkeypatch, lambda lines: [line for line in lines if not line.startswith("jaxlib==")])
    assert "jaxlib" not in bundle.bundle_files("ttt1_mcts")["ttt1_mcts/requirements.txt"].decode()
    with pytest.raises(bundle.BundleError, match="optax needs jaxlib, which requirements-student.txt does not pin"):
        bundle.bundle_files("ttt2_selfplay")


def test_a_pin_other_than_the_installed_version_is_refused(tmp_path, monkeypatch):
    student_copy(tmp_path, monkeypatch, lambda lines: [line.replace("numpy==2.4.6", "numpy==2.4.5") for line in lines])
    with pytest.raises(bundle.BundleError, match="numpy 2.4.6 is installed but 2.4.5 pinned: run scripts/setup.sh"):
        bundle.bundle_files("ttt1_mcts")
    student_copy(tmp_path, monkeypatch, lambda lines: lines + ["azcourse-absent==1.0"])
    monkeypatch.setattr(bundle, "NOTEBOOK_TOOLS", (*bundle.NOTEBOOK_TOOLS, "azcourse-absent"))
    with pytest.raises(bundle.BundleError, match="azcourse-absent is not installed but 1.0 pinned"):
        bundle.bundle_files("ttt1_mcts")


# ----------------------------------------------------------------------------- validate.py semantics

def test_validate_checksum_is_nbgraders():
    from nbgrader.utils import compute_checksum

    for assignment in ASSIGNMENTS:
        nb = nbformat.read(REPO_ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)
        cells = [cell for cell in nb.cells if cell.metadata.get("nbgrader", {}).get("grade_id")]
        assert cells
        assert [student_validate.checksum(c) for c in cells] == [compute_checksum(c) for c in cells]
        assert all(student_validate.checksum(c) == c.metadata.nbgrader["checksum"] for c in cells
                   if "checksum" in c.metadata.nbgrader)


def blank_ttt1():
    """ttt1's release notebook as released (no outputs: as if every cell had run without a word)."""
    return nbformat.read(REPO_ROOT / "release" / "ttt1_mcts" / "ttt1_mcts.ipynb", as_version=4)


def cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def test_validate_reports_blank_answers_failures_stderr_partial_credit_and_changed_tests():
    nb = blank_ttt1()
    found = student_validate.problems(nb)
    assert "get_next_state: no answer yet (code cell still holds YOUR CODE HERE)" in found
    assert "q1: no answer yet (written answer cell still holds YOUR ANSWER HERE)" in found
    assert not any(line.startswith("test_") for line in found)  # not run: no outputs, no failures
    for answer in ("get_next_state", "get_reward", "select_action", "get_action_prob", "expand_node", "search_iter"):
        cell(nb, answer).source = "def f():\n    return 1\n"
    for answer in ("q1", "q2", "q3", "q4"):
        cell(nb, answer).source = "Because the search visits it most."
    assert student_validate.problems(nb) == []
    cell(nb, "test_get_reward").outputs = [nbformat.v4.new_output(
        "error", ename="AssertionError", evalue="get_reward", traceback=["\x1b[0;31mTraceback", "AssertionError: get_reward(x)"])]
    cell(nb, "test_select_action").outputs = [nbformat.v4.new_output("stream", name="stderr", text="Warning: slow\n")]
    cell(nb, "test_expand_node").outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "1.5"})]
    cell(nb, "test_search_iter").source += "\n# changed"
    assert student_validate.problems(nb) == [
        "test_get_reward: test failed: AssertionError: get_reward(x)",
        "test_select_action: test failed: wrote to stderr: Warning: slow",
        "test_expand_node: test failed: partial credit: 1.5 of 3 points",
        "test_search_iter: this test cell was changed: the grader runs its own copy, so undo your change"]


def test_validate_cannot_read_is_exit_2(tmp_path, capsys):
    (tmp_path / "broken.ipynb").write_text("{not json")
    assert student_validate.main([str(tmp_path / "broken.ipynb")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.slow  # runs a kernel: the whole suite only (tests/conftest.py)
def test_validate_prints_nothing_on_stderr_and_leaves_no_kernel(tmp_path, capfd):
    """The kernel's own stderr is this process's: ipykernel's warning about unencrypted TCP must not
    reach the student (the kernel gets CurveZMQ keys), and the kernel is shut down before the end."""
    import psutil

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import os\nprint(os.getpid())")])
    nbformat.write(nb, tmp_path / "small.ipynb")
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    assert student_validate.main([str(tmp_path / "small.ipynb")]) == 0
    assert [child for child in psutil.Process().children(recursive=True) if child.pid not in before] == []
    out, err = capfd.readouterr()
    assert out.endswith(student_validate.SUCCESS + "\n") and err == ""


@pytest.mark.slow  # runs a kernel: the whole suite only (tests/conftest.py)
def test_a_progress_bar_starts_no_resource_tracker_in_the_kernel():
    """Where processes do not fork (Python 3.14 on Linux, macOS), a multiprocessing lock starts the
    resource tracker, a kernel child that ignores SIGTERM: ipykernel's shutdown then signals it for
    about 30 s, and a validate.py that stops waiting prints its "leaked semaphore" warning. The
    shipped progress bars (parts 2 to 4) take a thread lock; forkserver is forced here so that any
    Python behaves as 3.14 does."""
    from nbclient import NotebookClient

    code = ("import multiprocessing as mp, multiprocessing.resource_tracker as tracker\n"
            "mp.set_start_method('forkserver', force=True)\n"
            "from azcourse.progress import progress\n"
            "for _ in progress(range(3), desc='x'):\n    pass\n"
            "print(tracker._resource_tracker._pid)")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    NotebookClient(nb, kernel_name="python3", resources={"metadata": {"path": str(REPO_ROOT)}}).execute()
    assert [o.text for o in nb.cells[0].outputs if o.output_type == "stream" and o.name == "stdout"] == ["None\n"]


# ----------------------------------------------------------------------------- as a student installs it

def completed(release_nb: Path, solution_nb: Path, target: Path) -> None:
    """The release notebook with each answer cell replaced by the same cell (by grade_id) of the solution."""
    nb = nbformat.read(release_nb, as_version=4)
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nbformat.read(solution_nb, as_version=4).cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    replaced = 0
    for c in nb.cells:
        if c.metadata.get("nbgrader", {}).get("solution"):
            c.source = answers[c.metadata["nbgrader"]["grade_id"]]
            replaced += 1
    assert replaced == len(answers) > 0
    nbformat.write(nb, target)


def solution_cells(notebook: Path) -> list[str]:
    return [c.metadata["nbgrader"]["grade_id"] for c in nbformat.read(notebook, as_version=4).cells
            if c.metadata.get("nbgrader", {}).get("solution")]


def lab_serves(command: list[str], folder: Path, env: dict, log: Path, notebook: str) -> dict:
    """Start ``jupyter lab`` as typed, wait until it serves (120 s at most), ask it for ``notebook``
    through its REST API with the token it printed, stop it; the answer (or the log, if none)."""
    with open(log, "w") as out:
        server = subprocess.Popen(command, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None and "is running at" not in log.read_text():
            time.sleep(0.5)
        url = re.search(r"(http://127\.0\.0\.1:\d+/)lab\?token=(\w+)", log.read_text())
        if url is None:
            return {"log": log.read_text()[-3000:]}
        # The banner can come a moment before the socket answers on a loaded machine: ask again for 30 s
        # while the server lives; a server that never answers returns its log (and the error) instead.
        deadline, error = time.monotonic() + 30, None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"{url[1]}api/contents/{notebook}?token={url[2]}", timeout=60) as answer:
                    return json.load(answer)
            except urllib.error.URLError as exc:
                error = exc
                time.sleep(1)
        return {"log": f"{error}\n" + log.read_text()[-3000:]}
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(60)


@pytest.mark.slow
@pytest.mark.parametrize("version", SUPPORTED)
def test_bundle_readme_commands_work_as_typed_in_an_empty_folder(version, zips, tmp_path):
    current = version == "%d.%d" % sys.version_info[:2]
    if not current and not os.environ.get(ALL_PYTHONS):
        pytest.skip(f"test_python_versions installs the same pins and runs the same notebooks on Python {version}; "
                    f"set {ALL_PYTHONS}=1 to install the bundles there too")
    command = [sys.executable] if current else interpreter(version)
    if command is None:
        pytest.skip(not_found(version))
    launcher = command[:-1]  # e.g. bwrap into a Debian root (test_python_versions); every command runs under it
    # `python3` in the README is the Python under test: first on PATH
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3").write_text(f'#!/bin/sh\nexec {command[-1]} "$@"\n')
    (tmp_path / "bin" / "python3").chmod(0o755)
    env = {**os.environ, "PYTHONPATH": "", "PATH": os.pathsep.join([str(tmp_path / "bin"), os.environ["PATH"]]),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter"), "JUPYTER_DATA_DIR": str(tmp_path / "jupyter"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "jupyter" / "runtime"),
           # not the student's: byte-compiling every installed module would triple each install (105 s
           # instead of 30 s on 2 cores), and the kernel compiles what it imports anyway
           "PIP_COMPILE": "0"}
    for name in ("VIRTUAL_ENV", "MPLBACKEND", "NBGRADER_EXECUTION"):
        env.pop(name, None)
    if os.geteuid() == 0:  # a student is not root; Jupyter refuses root unless told
        (tmp_path / "jupyter").mkdir()
        (tmp_path / "jupyter" / "jupyter_server_config.json").write_text('{"ServerApp": {"allow_root": true}}')
    typed = lambda line, folder, timeout=1500: subprocess.run(launcher + ["bash", "-c", line], cwd=folder, env=env,  # noqa: E731
                                                              capture_output=True, text=True, timeout=timeout)
    report = []
    chosen = zips if os.environ.get(ALL_BUNDLES) else {END_TO_END: zips[END_TO_END]}
    for assignment, path in chosen.items():
        started = time.monotonic()
        with zipfile.ZipFile(path) as archive:
            archive.extractall(tmp_path / assignment)
        folder, notebook = tmp_path / assignment / assignment, f"{assignment}.ipynb"
        readme = (folder / "README.md").read_text()
        venv_line, install_line, lab_line = readme_commands(readme, "**pip**")
        (validate_line,) = readme_commands(readme, "**Check your work.**")
        python = launcher + [str(folder / ".venv" / "bin" / "python")]
        listing = lambda: {canonicalize_name(name): version for name, version in json.loads(  # noqa: E731
            subprocess.run(python + ["-c", INSTALLED], capture_output=True, text=True, check=True).stdout).items()}
        done = typed(venv_line, folder)
        assert done.returncode == 0, (venv_line, done.stderr[-3000:])
        fresh = listing()  # pip, and setuptools on 3.11
        done = typed(install_line, folder)
        assert done.returncode == 0, (install_line, done.stderr[-3000:])
        installed_s, installed, pinned = time.monotonic() - started, listing(), pins(folder / "requirements.txt")
        assert unpinned({name: v for name, v in installed.items() if fresh.get(name) != v}, pinned) == {}
        assert {name: v for name, v in pinned.items() if installed.get(name) != v} == {}
        assert installed.keys() & (JAX | NUMBA) == HEAVY[assignment]
        probe = "import sys, azcourse; assert azcourse.__file__.startswith(sys.argv[1]), azcourse.__file__"
        done = subprocess.run(python + ["-c", probe, str(folder)], cwd=folder, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
        if not report:  # Lab's pins are the same in every bundle (each bundle's pins are installed exactly, above)
            served = lab_serves(launcher + ["bash", "-c", lab_line], folder, env, tmp_path / f"lab-{assignment}.log",
                                notebook)
            assert served.get("type") == "notebook" and served["content"]["cells"], served.get("log")
        done = typed(validate_line, folder, 900)  # the blank release notebook
        assert done.returncode == 1, done.stdout[-4000:] + done.stderr[-3000:]
        assert "VALIDATION FAILED" in done.stdout
        for grade_id in solution_cells(folder / notebook):
            assert f"  {grade_id}: no answer yet" in done.stdout, (grade_id, done.stdout)
        completed(folder / notebook, REPO_ROOT / "solutions" / assignment / notebook, folder / notebook)
        done = typed(validate_line, folder, 900)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]
        assert done.stdout.strip().endswith(student_validate.SUCCESS)
        assert done.stderr == ""
        size = subprocess.run(["du", "-sm", str(folder / ".venv")], capture_output=True, text=True).stdout.split()[0]
        report.append(f"{assignment}: install {installed_s:.0f} s, venv {size} MB (not byte-compiled), "
                      f"{len(installed)} packages, all {time.monotonic() - started:.0f} s")
    print(f"Python {version}:\n  " + "\n  ".join(report))
