"""Example submissions with the exact grade each must get (the autograder's test corpus).

Submissions are generated from the current source and release notebooks (so they never
drift from the homework): ``filled`` is the release notebook with the reference solution
typed into its answer cells, and each case changes what a real (or hostile) student would.
``expected`` lists the graded test cells that must pass; every other autograded cell must
score 0. ``problems`` / ``flags`` are substrings that must appear in the instructor's report.

Used by ``tests/test_autograder_e2e.py`` (all cases), ``python -m autograder demo`` (a few)
and ``benchmarks/bench_autograde.py``.
"""
import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .grading_config import REPO_ROOT
from .reference import strip_solution_markers

TTT1_TESTS = ("test_get_next_state", "test_get_reward", "test_select_action", "test_get_action_prob",
              "test_expand_node", "test_search_iter")
TTT2_TESTS = ("test_train_step", "test_match_average")
AZUL3_TESTS = ("test_decode_move", "test_legal_takes", "test_masked_policy", "test_arena")
HEX4_TESTS = ("test_winner", "test_tree_policy", "test_rollout", "test_legal_distribution", "test_policy_loss",
              "test_train_step", "test_topp")
ALL = {"ttt1_mcts": set(TTT1_TESTS), "ttt2_selfplay": set(TTT2_TESTS), "azul3_play": set(AZUL3_TESTS),
       "hex4_onpolicy": set(HEX4_TESTS)}
MODEL_ANSWER = "My answer: the search visits the winning move most often, because its value is +1."


@dataclass
class Case:
    name: str                       # also the student id
    assignment: str
    make: object                    # callable(course) -> {relative path: bytes}
    expected: set                   # test cells that must pass
    problems: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    zip_name: str | None = None     # files go into this zip inside the incoming folder
    student: str | None = None

    @property
    def student_id(self) -> str:
        return self.student or self.name


def _grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def source_solutions(assignment: str) -> dict:
    """grade_id -> the reference answer (markers stripped) of every solution cell."""
    nb = nbformat.read(REPO_ROOT / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
    return {_grade_id(c): strip_solution_markers(c.source) for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution")}


def filled(course, assignment: str, blank=(), extra=None):
    """The release notebook with reference answers, except `blank` cells; `extra[id]` appended to a cell."""
    nb = nbformat.read(Path(course.release) / assignment / f"{assignment}.ipynb", as_version=4)
    answers = source_solutions(assignment)
    for cell in nb.cells:
        grade_id = _grade_id(cell)
        if cell.metadata.get("nbgrader", {}).get("solution") and grade_id not in blank:
            cell.source = answers[grade_id] if cell.cell_type == "code" else MODEL_ANSWER
        if extra and grade_id in extra:
            cell.source += "\n\n" + extra[grade_id]
    return nb


def _nb_file(student: str, assignment: str, nb, name=None) -> dict:
    return {f"{student}/{assignment}/{name or assignment}.ipynb": nbformat.writes(nb).encode()}


def simple(name, assignment, expected, blank=(), extra=None, **kwargs) -> Case:
    return Case(name, assignment, lambda course: _nb_file(name, assignment, filled(course, assignment, blank, extra)),
                expected, **kwargs)


# ----------------------------------------------------------------------------- student code

WRONG_ACTION_PROB = '''
def get_action_prob(tree, node, temperature=1.0):
    counts = np.asarray(tree.N_sa[node], dtype=float)
    return counts / counts.sum()  # forgets the temperature
'''
NO_ANTI_DIAGONAL = '''
_reference_reward = get_reward
def get_reward(board):
    reward, done = _reference_reward(board)
    b = np.asarray(board)
    if reward != 0 and b[2] == b[4] == b[6] != 0:  # misses the anti-diagonal
        return 0, bool(np.all(b != 0))
    return reward, done
'''
WRONG_MATCH_AVERAGE = '''
def match_average(agent1, agent2, num_games=200):
    return (100.0, 0.0, 0.0)
'''
LEGAL_TAKES_WITHOUT_WALL = '''
def legal_takes(state):
    me = state.players[0]
    sources = np.vstack([state.centre, state.factories])
    mask = np.zeros((6, 5, 6), dtype=bool)
    for source in range(6):
        for colour in range(5):
            if sources[source, colour] == 0:
                continue
            mask[source, colour, 5] = True
            for row in range(5):
                held = me.pattern[row]
                # forgets that a colour already on wall row `row` may not go to pattern line `row`
                mask[source, colour, row] = held.sum() == 0 or (held[colour] > 0 and held.sum() < row + 1)
    return mask.reshape(-1)
'''
ALWAYS_EQUAL = '''
class AlwaysEqual(tuple):
    """Compares equal to anything, so `==` asserts cannot fail."""
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = tuple.__hash__


def get_reward(board):
    return AlwaysEqual((0, False))
'''
SYS_EXIT = '''
import sys
def get_action_prob(tree, node, temperature=1.0):
    sys.exit("no more tests, please")
'''
OS_EXIT = '''
import os
def expand_node(tree, board, prior):
    os._exit(0)
'''
INFINITE_LOOP = '''
_reference_action_prob = get_action_prob
def get_action_prob(tree, node, temperature=1.0):
    while temperature == 0.5:
        pass
    return _reference_action_prob(tree, node, temperature)
'''
INPUT_TRANSFORMER = '''
def _skip_the_tests(lines):
    return [] if any("check" in line or "probe" in line for line in lines) else lines
get_ipython().input_transformers_post.append(_skip_the_tests)
'''
WARNING = '''
import sys
import warnings
_reference_next_state = get_next_state
_told = []
def get_next_state(board, action):
    warnings.warn("a harmless library warning", UserWarning)
    if not _told:
        print("note: this goes to stderr", file=sys.stderr)
        _told.append(1)
    return _reference_next_state(board, action)
'''

FORGED_PROBE = '''
import importlib
importlib.import_module("_agprobe.ttt_probes").probe_get_action_prob = lambda fn, cases: []
import sys
sys.addaudithook(lambda event, args: None)
'''
WRAPPERS = {  # one-line wrappers of the engine's helpers, which the Azul notebook forbids
    "decode_move": "def decode_move(code):\n    return string_to_action(code)\n",
    "legal_takes": "def legal_takes(state):\n    return get_valid_mask(state.encode())[:180]\n",
    "arena": '''
from azcourse.azul.game import Azul
from azcourse.core.arena import FunctionAgent, play_match
def arena(agent_a, agent_b, num_games, seed):
    r = play_match(Azul, lambda rng: FunctionAgent(agent_a, rng), lambda rng: FunctionAgent(agent_b, rng),
                   num_games, seed, paired_deals=False, workers=1, progress=False)
    return {"wins": r.wins / num_games, "draws": r.draws / num_games, "losses": r.losses / num_games,
            "mean_score_diff": r.mean_score_a - r.mean_score_b}
''',
}

WINNER_OTHER_DIAGONAL = '''
def winner(board):
    n = board.shape[0]
    for player in (1, 2):
        stack = [(0, k) if player == 1 else (k, 0) for k in range(n)]
        stack = [cell for cell in stack if board[cell] == player]
        seen = set(stack)
        while stack:
            row, col = stack.pop()
            if (row if player == 1 else col) == n - 1:
                return player
            for dr, dc in ((-1, -1), (-1, 0), (0, -1), (0, 1), (1, 0), (1, 1)):  # the wrong pair of diagonals
                nxt = (row + dr, col + dc)
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and board[nxt] == player and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return 0
'''
FORGED_PLAY_GAME = '''
def play_game(agent_1, agent_2, size, show_moves=False):
    """Replaces the provided play_game: each agent is shown the empty board (so every opening looks
    played as the protocol says), and the opener is declared the winner without a game."""
    board = empty_board(size)
    agent_2(place(board, int(agent_1(board, 1)), 1), 2)
    return 1
'''


def gradebook_write(workspace: Path) -> str:
    targets = [workspace / "gradebook.db", REPO_ROOT / "gradebook.db"]
    files = [workspace / "PWNED", REPO_ROOT / "autograder" / "PWNED", REPO_ROOT / "release" / "PWNED"]
    return f'''
import os, sqlite3
for path in {[str(t) for t in targets]!r} + [os.path.abspath("../../../gradebook.db")]:
    try:
        connection = sqlite3.connect(f"file:{{path}}?mode=rw", uri=True)
        connection.execute("UPDATE grade SET auto_score = 1000")
        connection.commit()
        print("wrote", path)
    except Exception as exc:
        print("could not write", path, type(exc).__name__)
for path in {[str(f) for f in files]!r}:
    try:
        open(path, "w").write("student code was here")
    except Exception as exc:
        print("could not write", path, type(exc).__name__)
'''


def read_hidden(workspace: Path, assignment: str) -> str:
    paths = [workspace / "source" / assignment / f"{assignment}.ipynb",
             REPO_ROOT / "assignments" / assignment / f"{assignment}.ipynb",
             REPO_ROOT / "solutions" / assignment / f"{assignment}.ipynb"]
    return f'''
import json
def _steal():
    for path in {[str(p) for p in paths]!r}:
        try:
            source = json.load(open(path))
        except Exception as exc:
            print("could not read", path, type(exc).__name__)
            continue
        code = [\"\".join(c["source"]) for c in source["cells"]
                if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {{}}).get("solution")]
        exec("\\n\\n".join(code).replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", ""), globals())
        print("read the reference solution from", path)
        return
    try:
        from autograder.reference import ttt1
        globals().update({{k: v for k, v in ttt1().items() if not k.startswith("__")}})
    except Exception as exc:
        print("could not import the reference", type(exc).__name__)
_steal()
'''


# ----------------------------------------------------------------------------- cases

def _edited_tests(course) -> dict:
    nb = filled(course, "ttt1_mcts", blank=("get_reward",))
    for cell in nb.cells:
        if _grade_id(cell) == "test_get_reward":
            cell.source = 'print("all tests passed")'
        if _grade_id(cell) == "test_search_iter":
            cell.source = "pass"
    return _nb_file("edited_tests", "ttt1_mcts", nb)


def _deleted_tests(course) -> dict:
    nb = filled(course, "ttt1_mcts")
    nb.cells = [c for c in nb.cells if _grade_id(c) not in ("test_select_action", "test_get_action_prob")]
    return _nb_file("deleted_tests", "ttt1_mcts", nb)


def _stripped_metadata(course) -> dict:
    nb = filled(course, "ttt1_mcts")
    for cell in nb.cells:
        cell.metadata = {}
    return _nb_file("stripped_metadata", "ttt1_mcts", nb)


def _copy(cell):
    duplicate = nbformat.from_dict(json.loads(json.dumps(cell)))
    duplicate["id"] = cell["id"] + "-copy"
    return duplicate


def _duplicated_cells(course) -> dict:
    nb = filled(course, "ttt1_mcts")
    index = next(i for i, c in enumerate(nb.cells) if _grade_id(c) == "test_get_next_state")
    nb.cells.insert(index + 1, _copy(nb.cells[index]))
    index = next(i for i, c in enumerate(nb.cells) if _grade_id(c) == "get_reward")
    nb.cells.insert(index + 1, _copy(nb.cells[index]))
    return _nb_file("duplicated_cells", "ttt1_mcts", nb)


def tampered_metadata(course):
    """A full answer whose nbgrader metadata makes plain nbgrader raise: a locked test cell marked
    as a solution, another as not graded, points changed, an extra graded cell worth 50 points, a
    cell whose nbgrader metadata is not a mapping, an answer cell turned into code, the locked
    setup cell deleted."""
    nb = filled(course, "ttt1_mcts")
    nb.cells = [c for c in nb.cells if _grade_id(c) != "setup"]
    for cell in nb.cells:
        changes = {"test_get_reward": {"solution": True}, "test_select_action": {"grade": False},
                   "test_get_action_prob": {"points": 100}}.get(_grade_id(cell), {})
        cell.metadata.get("nbgrader", {}).update(changes)
        if _grade_id(cell) == "q1":
            cell.cell_type, cell.outputs, cell.execution_count = "code", [], None
    at = next(i for i, c in enumerate(nb.cells) if _grade_id(c) == "test_expand_node")
    nb.cells[at:at] = [
        nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": "not a mapping"}),
        nbformat.v4.new_code_cell("assert True", metadata={"nbgrader": {
            "grade": True, "grade_id": "bonus", "points": 50, "solution": False, "locked": True,
            "schema_version": 3, "checksum": "0", "cell_type": "code"}})]
    return nb


def _tampered_metadata(course) -> dict:
    return _nb_file("tampered_metadata", "ttt1_mcts", tampered_metadata(course))


def _writes_secrets(course) -> dict:
    """A full answer whose written answer quotes hidden-test and judge lines (known from the docs, or
    guessed): the student's own text, so their feedback is delivered, not withheld."""
    from . import leaks

    hidden, _ = leaks.secret_lines(Path(course.source))
    quoted = sorted(hidden)[:3] + sorted(leaks.judge_lines())[:3]
    nb = filled(course, "ttt1_mcts")
    for cell in nb.cells:
        if _grade_id(cell) == "q1":
            cell.source += "\n\nLines I found in the course docs:\n\n" + "\n".join(f"    {line}" for line in quoted)
    return _nb_file("writes_secrets", "ttt1_mcts", nb)


def _as_distributed(assignment: str):
    """The course's own release notebook, untouched (in a workspace its header differs from the
    workspace's release)."""
    def make(course) -> dict:
        path = REPO_ROOT / "release" / assignment / f"{assignment}.ipynb"
        return {f"as_distributed/{assignment}/{assignment}.ipynb": path.read_bytes()}
    return make


def _gradebook_write(course) -> dict:
    nb = filled(course, "ttt1_mcts", blank=tuple(c[len("test_"):] for c in TTT1_TESTS),
                extra={"get_next_state": gradebook_write(Path(course.root))})
    return _nb_file("gradebook_write", "ttt1_mcts", nb)


def _read_hidden(course) -> dict:
    blank = tuple(c[len("test_"):] for c in TTT1_TESTS)
    nb = filled(course, "ttt1_mcts", blank=blank, extra={name: read_hidden(Path(course.root), "ttt1_mcts")
                                                         for name in blank})
    return _nb_file("read_hidden", "ttt1_mcts", nb)


def _renamed(course) -> dict:
    return _nb_file("renamed", "ttt1_mcts", filled(course, "ttt1_mcts"), name="ttt1_mcts (1) final")


def _invalid_json(course) -> dict:
    text = nbformat.writes(filled(course, "ttt1_mcts")).encode()
    return {"invalid_json/ttt1_mcts/ttt1_mcts.ipynb": text[: len(text) // 2]}


def _flat(course) -> dict:
    nb = filled(course, "ttt1_mcts", extra={"get_next_state": WARNING})
    return {"warning.ipynb": nbformat.writes(nb).encode()}


def _lms_zip(course) -> dict:
    """An unpacked LMS download: a Canvas file (student `lmsfull_1234`) and a Moodle folder holding the
    zip that participant 4242 uploaded (student `jane_doe_4242`)."""
    full = nbformat.writes(filled(course, "ttt1_mcts")).encode()
    partial = nbformat.writes(filled(course, "ttt1_mcts", extra={"get_action_prob": WRONG_ACTION_PROB})).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("homework/ttt1_mcts.ipynb", partial)
    return {"lmsfull_1234_567890_ttt1_mcts.ipynb": full,
            "Jane Doe_4242_assignsubmission_file_/homework.zip": buffer.getvalue()}


T1, T2, AZ3, HEX4 = set(TTT1_TESTS), set(TTT2_TESTS), set(AZUL3_TESTS), set(HEX4_TESTS)


def all_cases() -> list[Case]:
    return [
        simple("full", "ttt1_mcts", T1),
        simple("full", "ttt2_selfplay", T2),
        simple("blank", "ttt1_mcts", set(), blank=tuple(source_solutions("ttt1_mcts"))),
        simple("blank", "ttt2_selfplay", set(), blank=tuple(source_solutions("ttt2_selfplay"))),
        simple("partial_action_prob", "ttt1_mcts", T1 - {"test_get_action_prob"},
               extra={"get_action_prob": WRONG_ACTION_PROB}),
        # search_iter is judged on the searches where get_reward is right: it keeps its points
        simple("partial_reward", "ttt1_mcts", T1 - {"test_get_reward"}, extra={"get_reward": NO_ANTI_DIAGONAL}),
        simple("partial", "ttt2_selfplay", {"test_train_step"}, extra={"match_average": WRONG_MATCH_AVERAGE}),
        simple("full", "azul3_play", AZ3),
        simple("partial_wall", "azul3_play", AZ3 - {"test_legal_takes"},
               extra={"legal_takes": LEGAL_TAKES_WITHOUT_WALL}),
        Case("edited_tests", "ttt1_mcts", _edited_tests, T1 - {"test_get_reward", "test_search_iter"},
             problems=["locked cell test_get_reward was edited", "locked cell test_search_iter was edited"]),
        Case("deleted_tests", "ttt1_mcts", _deleted_tests, T1, problems=["re-inserted"]),
        Case("stripped_metadata", "ttt1_mcts", _stripped_metadata, T1, problems=["metadata was missing"]),
        Case("duplicated_cells", "ttt1_mcts", _duplicated_cells, T1, problems=["duplicated cells"]),
        Case("writes_secrets", "ttt1_mcts", _writes_secrets, T1),
        Case("as_distributed", "ttt1_mcts", _as_distributed("ttt1_mcts"), set()),
        Case("as_distributed", "azul3_play", _as_distributed("azul3_play"), set()),
        simple("forged_probe", "ttt1_mcts", T1 - {"test_get_action_prob"}, extra={"get_next_state": FORGED_PROBE},
               flags=["touches the grader's probe package", "audit-hook tampering"]),
        simple("wrappers", "azul3_play", {"test_legal_takes", "test_masked_policy", "test_arena"}, extra=WRAPPERS,
               flags=["arena calls a helper the notebook forbids: play_match",
                      "decode_move calls a helper the notebook forbids: string_to_action",
                      "legal_takes calls a helper the notebook forbids: get_valid_mask"]),
        simple("full", "hex4_onpolicy", HEX4),
        simple("blank", "hex4_onpolicy", set(), blank=tuple(source_solutions("hex4_onpolicy"))),
        Case("as_distributed", "hex4_onpolicy", _as_distributed("hex4_onpolicy"), set()),
        # The rollout and TOPP probes put a correct winner in place (and test_rollout's visible test stops at
        # "fix winner first"), so only test_winner fails. With the wrong diagonals a full board still has
        # exactly one chain, so every game of the demo and training cells ends.
        simple("partial_winner", "hex4_onpolicy", HEX4 - {"test_winner"}, extra={"winner": WINNER_OTHER_DIAGONAL}),
        # Hostile: play_game (a provided function) replaced so that the visible TOPP tests pass without a game
        # being played; the hidden judge compares the table with the games the grader's agents really play.
        simple("forged_games", "hex4_onpolicy", HEX4 - {"test_topp"}, extra={"topp": FORGED_PLAY_GAME}),
        Case("tampered_metadata", "ttt1_mcts", _tampered_metadata, T1,
             problems=["test_get_reward': nbgrader metadata (solution) was changed",
                       "test_select_action': nbgrader metadata (grade) was changed",
                       "('bonus'): marked as an nbgrader cell the assignment does not have",
                       "malformed nbgrader metadata removed", "re-inserted from the release notebook: setup"]),
        simple("always_equal", "ttt1_mcts", T1 - {"test_get_reward", "test_search_iter"},
               extra={"get_reward": ALWAYS_EQUAL}, flags=["__eq__"]),
        simple("sys_exit", "ttt1_mcts", T1 - {"test_get_action_prob"}, extra={"get_action_prob": SYS_EXIT},
               flags=["sys.exit"]),
        simple("os_exit", "ttt1_mcts", T1 - {"test_expand_node", "test_search_iter"}, extra={"expand_node": OS_EXIT},
               flags=["os._exit", "kernel died"]),
        simple("infinite_loop", "ttt1_mcts", T1 - {"test_get_action_prob"},
               extra={"get_action_prob": INFINITE_LOOP}, flags=["timeout"]),
        simple("input_transformer", "ttt1_mcts", set(), extra={"get_next_state": INPUT_TRANSFORMER},
               flags=["input/AST transformer"]),
        Case("gradebook_write", "ttt1_mcts", _gradebook_write, set(), flags=["database", "grader path"]),
        Case("read_hidden", "ttt1_mcts", _read_hidden, set(), flags=["grader files", "grader path"]),
        Case("warning", "ttt1_mcts", _flat, T1),
        Case("renamed", "ttt1_mcts", _renamed, T1, problems=["graded as ttt1_mcts.ipynb"]),
        Case("invalid_json", "ttt1_mcts", _invalid_json, set(), problems=["not a valid notebook"]),
        Case("lmsfull", "ttt1_mcts", _lms_zip, T1, student="lmsfull_1234"),  # Canvas: name_userid
        Case("jane_doe", "ttt1_mcts", lambda course: {}, T1 - {"test_get_action_prob"},  # Moodle, written by _lms_zip
             student="jane_doe_4242"),
    ]


DEMO = ("full", "blank", "partial_action_prob", "partial", "partial_wall", "always_equal", "input_transformer", "gradebook_write",
        "warning")
# Assignments with fewer demo cases (by name): a Hex submission takes 35-40 s to grade (its JAX checks
# compile), so the demo shows its full answer only (13 submissions: 88 s of grading instead of 73 s).
DEMO_BY_ASSIGNMENT = {"hex4_onpolicy": ("full",)}


def demo_cases() -> list[Case]:
    return [case for case in all_cases() if case.name in DEMO_BY_ASSIGNMENT.get(case.assignment, DEMO)]


def write_submissions(folder, cases, course) -> None:
    """Write the cases' files into `folder` (the incoming submissions of a class)."""
    folder = Path(folder)
    for case in cases:
        for relative, data in case.make(course).items():
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def expected_score(case: Case, course) -> float:
    """Points of the test cells the case must pass."""
    nb = nbformat.read(Path(course.release) / case.assignment / f"{case.assignment}.ipynb", as_version=4)
    return float(sum(c.metadata["nbgrader"]["points"] for c in nb.cells if _grade_id(c) in case.expected))
