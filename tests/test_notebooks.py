"""Every assignment's notebooks: sources, generated release and solutions, and real nbgrader runs.

Slow-ish (the notebooks are executed several times); every run uses the small budget that
heavy cells take when NBGRADER_EXECUTION is set. Total: a few minutes on 2 cores. The release and
solutions compared here are the suite's one build (tests/courses.py); real ``nbgrader autograde`` of
every shipped solutions notebook (full marks) and release notebook (zero) is part of the e2e corpus
(``shipped_solution`` and ``as_distributed`` in autograder/corpus.py, tests/test_autograder_e2e.py).
"""
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder import build
from autograder.reference import REPO_ROOT, SOURCE_DIR
from courses import built_course

pytestmark = pytest.mark.slow  # grades, runs notebooks or installs: the whole suite only (tests/conftest.py)

NOTEBOOKS = [(assignment, notebook) for assignment, names in build.ASSIGNMENTS.items() for notebook in names]
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")


def _env(**extra) -> dict:
    venv_bin = str(Path(sys.executable).parent)
    pythonpath = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PATH": venv_bin + os.pathsep + os.environ.get("PATH", ""), "PYTHONPATH": pythonpath,
            **extra}


def _nbgrader(*args, cwd=REPO_ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=_env(), capture_output=True,
                          text=True, timeout=900)


def _execute(path: Path, mode: str) -> nbformat.NotebookNode:
    """Execute a notebook in a fresh kernel with NBGRADER_EXECUTION=mode, keeping errors as outputs.
    Figures render inline, as in Jupyter and under the grader (the suite's Agg backend would drop them)."""
    nb = nbformat.read(path, as_version=4)
    old = {key: os.environ.get(key) for key in ("NBGRADER_EXECUTION", "PYTHONPATH", "MPLBACKEND")}
    os.environ.update(NBGRADER_EXECUTION=mode, PYTHONPATH=_env()["PYTHONPATH"],
                      MPLBACKEND="module://matplotlib_inline.backend_inline")
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        for key, value in old.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)
    return nb


def _outputs(nb, output_type=None, name=None):
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if (output_type is None or output.output_type == output_type) and (name is None or output.get("name") == name):
                yield index, cell, output


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """release/ and solutions/ built from assignments/ as `python -m autograder.build` builds them
    (``pipeline.build``), in this run's one shared build (tests/courses.py): the folder holding them."""
    assert not build.out_of_sync_cells(), "run `python -m autograder.build` to sync provided cells"
    return built_course(tmp_path_factory, tmp_path_factory.mktemp("generated") / "ws").root


def _files(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and ".ipynb_checkpoints" not in p.parts}


def test_committed_release_and_solutions_are_what_the_build_makes(generated):
    """release/ and solutions/ are generated: the committed files (and any new one not ignored) are, byte
    for byte and file for file, what a fresh build of assignments/ makes."""
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to compare the fresh build with")
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z", "--", "release", "solutions"],
                            cwd=REPO_ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for folder in ("release", "solutions"):
        committed = {name[len(folder) + 1:]: (REPO_ROOT / name).read_bytes() for name in listed
                     if name.startswith(folder + "/") and (REPO_ROOT / name).is_file()}
        made = _files(generated / folder)
        stale = sorted(name for name in committed.keys() | made.keys() if committed.get(name) != made.get(name))
        assert stale == [], (f"{folder}/ differs from a fresh build of assignments/ in {stale}: run "
                             "`python -m autograder.build` and commit the result.")


def test_source_notebooks_are_committed_without_outputs():
    for assignment, notebook in NOTEBOOKS:
        nb = nbformat.read(SOURCE_DIR / assignment / f"{notebook}.ipynb", as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, f"{notebook}: outputs committed"


@pytest.mark.parametrize("assignment, notebook", NOTEBOOKS)
def test_every_visible_test_fails_on_the_release(generated, assignment, notebook):
    result = _nbgrader("validate", "--invert", str(generated / "release" / assignment / f"{notebook}.ipynb"))
    assert "Success! The notebook does not pass any tests." in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("assignment, notebook", NOTEBOOKS)
def test_release_raises_only_not_implemented_error(generated, assignment, notebook):
    nb = _execute(generated / "release" / assignment / f"{notebook}.ipynb", "validate")
    errors = [(i, out.ename, out.evalue) for i, _, out in _outputs(nb, "error")]
    assert errors, "the blank release should stop at its TODO cells"
    # a visible test names the function not written yet and its cell; one that calls others stops first,
    # saying which to write first
    assert all(name == "NotImplementedError" or (name == "PrerequisiteNotPassed" and "first" in value)
               or (name == "NotWrittenYet" and "is not written yet: the cell that starts with `def " in value)
               for _, name, value in errors), errors


@pytest.fixture(scope="module")
def executed_solution(generated):
    """The solution notebook executed as under the autograder (once per notebook)."""
    done = {}

    def get(assignment, notebook):
        if (assignment, notebook) not in done:
            done[assignment, notebook] = _execute(generated / "solutions" / assignment / f"{notebook}.ipynb",
                                                  "autograde")
        return done[assignment, notebook]
    return get


@pytest.mark.parametrize("assignment, notebook", NOTEBOOKS)
def test_solution_runs_top_to_bottom_without_errors_or_stderr(executed_solution, assignment, notebook):
    nb = executed_solution(assignment, notebook)
    assert not list(_outputs(nb, "error")), [out.evalue for _, _, out in _outputs(nb, "error")]
    stderr = [(i, cell.metadata.get("nbgrader", {}).get("grade", False), out.text[:300])
              for i, cell, out in _outputs(nb, "stream", "stderr")]
    assert not [s for s in stderr if s[1]], f"stderr in a graded cell scores 0: {stderr}"
    assert not [s for s in stderr if "warn" in s[2].lower()], f"library warnings: {stderr}"


@pytest.mark.parametrize("assignment, notebook", NOTEBOOKS)
def test_solution_saves_no_widget_views(executed_solution, assignment, notebook):
    """Progress bars (azcourse.progress) end as text lines: a saved widget view would read "0%", or
    "Error displaying widget", in the autograded notebook and the feedback."""
    nb = executed_solution(assignment, notebook)
    assert "application/vnd.jupyter.widget-view+json" not in nbformat.writes(nb)


def test_azul_play_loop_refuses_bad_codes_and_plays_a_scripted_game(executed_solution):
    """Not interactive (as under the autograder): the scripted player's bad code is refused with its
    reason, help and board work, three moves are played and quit ends the game cleanly; the switch
    to play for real sits in an unlocked cell, off by default."""
    nb = executed_solution("azul3_play", "azul3_play")
    at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "play")
    play = nb.cells[at]
    text = "".join(out.get("text", "") for out in play.outputs if out.output_type == "stream")
    refusals = [line for line in text.splitlines() if line.startswith("Refused:")]
    assert len(refusals) == 1 and "Unknown source '9'" in refusals[0], refusals
    assert "Your legal moves:" in text and text.count("You play ") == 3 and "You left the game." in text, text[:3000]
    assert "Check:" not in text, "the reference decode_move and legal_takes agree with the engine"
    assert any("image/png" in out.get("data", {}) for out in play.outputs), "the final board is drawn"
    switch = nb.cells[at + 1]
    assert "PLAY = False" in switch.source and not switch.metadata.get("nbgrader", {}).get("locked"), \
        "the switch must be editable in JupyterLab"


def test_hex_notebook_trains_a_short_run_and_plays_both_tournaments(executed_solution):
    """Part 4 under the autograder's small budgets: the short training run draws its loss curve, the
    TOPP of the shipped ANETs and of the new run each draw a table and a bar chart, the untrained
    shipped ANET scores lowest and the final one highest; the full run sits behind an editable switch."""
    nb = executed_solution("hex4_onpolicy", "hex4_onpolicy")
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): (i, c) for i, c in enumerate(nb.cells)}
    images = lambda cell: sum("image/png" in out.get("data", {}) for out in cell.outputs)  # noqa: E731
    at, training = cells["training"]
    assert images(training) == 1, "the loss curve"
    switch = nb.cells[at - 1]
    assert switch.source.startswith("TRAIN = False") and not switch.metadata.get("nbgrader", {}).get("locked")
    topp_run = cells["topp_run"][1]
    assert images(topp_run) == 2, "one figure (win table and totals) per tournament"
    text = "".join(out.get("text", "") for out in topp_run.outputs if out.output_type == "stream")
    shipped = [line for line in text.splitlines() if line.startswith("ANET")][:6]
    won = {int(line.split()[1].rstrip(":")): int(line.split()[3]) for line in shipped}
    assert sorted(won) == [0, 100, 200, 300, 400, 500], text
    assert won[0] == min(won.values()) and won[500] == max(won.values()), won


def test_othello_notebook_plays_the_round_robin_and_the_simulation_sweep(executed_solution):
    """Part 5 under the autograder's small budgets: the round robin of the six players prints every pair's
    result with its interval and draws one heat map; the sweep of MCTS against the policy player prints one
    line per number of simulations and draws one plot with error bars."""
    nb = executed_solution("othello5_planning", "othello5_planning")
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
    images = lambda cell: sum("image/png" in out.get("data", {}) for out in cell.outputs)  # noqa: E731
    text = lambda cell: "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")  # noqa: E731
    tournament = cells["round_robin"]
    assert images(tournament) == 1, "the heat map"
    pairs = [line for line in text(tournament).splitlines() if " vs " in line and "score" in line]
    assert len(pairs) == 15 and all("[" in line and "]" in line for line in pairs), text(tournament)
    ranked = [line.split(":")[0].strip() for line in text(tournament).splitlines() if "mean score rate" in line]
    assert sorted(ranked) == sorted(["random", "greedy", "value", "policy", "monte carlo", "mcts"]), ranked
    sweep = cells["mcts_strength"]
    assert images(sweep) == 1, "MCTS strength against its number of simulations"
    assert sum("simulations: score" in line for line in text(sweep).splitlines()) == 3, text(sweep)


def test_tak_notebook_plays_the_reports_matches_by_seat_with_intervals(executed_solution):
    """Part 6 under the autograder's small budgets: the seven matches of the report (and AlphaTak against each
    player) print one by-seat row each, with a Wilson interval per seat, and draw one figure; the noise demo
    and the loss curve draw theirs; the number of games sits behind an editable switch."""
    nb = executed_solution("tak6_alphazero", "tak6_alphazero")
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): (i, c) for i, c in enumerate(nb.cells)}
    images = lambda cell: sum("image/png" in out.get("data", {}) for out in cell.outputs)  # noqa: E731
    at, experiments = cells["experiments"]
    assert images(experiments) == 1, "the by-seat figure"
    switch = nb.cells[at - 1]
    assert switch.source.startswith("GAMES = ") and not switch.metadata.get("nbgrader", {}).get("locked")
    text = "".join(out.get("text", "") for out in experiments.outputs if out.output_type == "stream")
    rows = [line for line in text.splitlines() if " vs " in line and "|" in line]
    assert [line.split("|")[0].strip() for line in rows] == [
        "random vs random", "mcts 50 vs random", "mcts 100 vs random", "mcts 50 vs mcts 50", "alphatak 50 vs random",
        "alphatak 50 vs mcts 50", "alphatak 50 vs mcts 100"], text
    assert "as first" in text and "as second" in text and all(line.count("[") == 3 for line in rows), text
    first, second = (rows[-1].split("|")[k].split()[0] for k in (1, 2))
    assert sum(map(int, first.split("/"))) == sum(map(int, second.split("/"))) == 5  # 10 games, 5 per seat
    demos = [cell for cell in nb.cells if cell.cell_type == "code" and not cell.metadata.get("nbgrader")]
    assert sum(images(cell) for cell in demos) >= 4  # the pictures of sections 1-2, the noise demo, the loss curve


def _secret_lines(nb) -> set[str]:
    """Lines inside solution / hidden-test regions that never appear in a public part of the notebook."""
    secret, public = set(), set()
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown":
            (secret if meta.get("solution") else public).update(l.strip() for l in cell.source.splitlines())
            continue
        inside = False
        for line in cell.source.splitlines():
            stripped = line.strip()
            if stripped in MARKERS:
                inside = stripped.startswith("### BEGIN")
            elif stripped:
                (secret if inside else public).add(stripped)
    return {line for line in secret - public if len(line) > 3 and line not in MARKERS}


def test_no_solution_or_hidden_test_line_reaches_the_release(generated):
    for assignment, notebook in NOTEBOOKS:
        secret = _secret_lines(nbformat.read(SOURCE_DIR / assignment / f"{notebook}.ipynb", as_version=4))
        assert secret, "the leak test must have something to look for"
        for path in (generated / "release" / assignment).rglob("*"):
            text = path.read_text(errors="ignore") if path.is_file() else ""
            released = {line.strip() for cell in nbformat.reads(text, as_version=4).cells
                        for line in cell.source.splitlines()} if path.suffix == ".ipynb" else set(text.splitlines())
            leaked = sorted(secret & released)
            assert not leaked, f"{path}: {leaked[:5]}"


def test_solutions_carry_no_hidden_tests_and_a_generated_header(generated):
    for assignment, notebook in NOTEBOOKS:
        for folder in ("release", "solutions"):
            nb = nbformat.read(generated / folder / assignment / f"{notebook}.ipynb", as_version=4)
            header = nb.cells[0]
            command = "nbgrader generate_assignment" if folder == "release" else "nbgrader generate_solution"
            assert header.metadata["generated"] == {"by": command,
                                                    "from": f"assignments/{assignment}/{notebook}.ipynb"}
            if folder == "release":  # it speaks to the student: no instructor paths or commands
                assert "YOUR CODE HERE" in header.source and "assignments/" not in header.source
            else:
                assert "generate_solution" in header.source and "Do not edit" in header.source
            text = "\n".join(cell.source for cell in nb.cells)
            assert "HIDDEN TESTS" not in text and "from autograder" not in text, f"{folder}/{notebook}"
