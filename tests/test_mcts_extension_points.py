"""The generic MCTS's public hooks for a subclass (``select``, ``root_for``, ``simulate``) and the deprecated
names of the first Tak release (``_select``, ``_root_for``, ``_simulate``).

A course subclass written as the Tak notebook's ``CourseMCTS`` (its locked cell ``search_provided``, read
from ``assignments/``: a plain-numpy PUCT as the tree policy, its own ``search`` from ``root_for`` and
``simulate``) gives the stock PUCT search's visits bit for bit, move after move of a game with the tree
kept; so does the earlier release's cell, which overrides ``_select`` and calls ``_root_for`` and
``_simulate``. An override under either name is what every search path uses (``search``, ``search_steps``
through ``search_many``, ``simulate``)."""
import ast
import math
import zlib
from pathlib import Path

import nbformat
import numpy as np
import pytest

from azcourse.core.evaluators import RolloutEvaluator
from azcourse.core.mcts import MCTS, MCTSConfig, search_many
from azcourse.registry import make_game

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "assignments" / "tak6_alphazero" / "tak6_alphazero.ipynb"

# The CourseMCTS of the Tak notebook as first released (the grader restores locked cells, but a student may
# still run this copy against a newer pack).
EARLIER_RELEASE = '''
class CourseMCTS(MCTS):
    def _select(self, node):
        c = self.config
        prior = node.prior if node.prior is not None else np.full(len(node.counts), 1 / len(node.counts))
        return puct_select(np.array(node.counts), np.array(node.totals), prior, node.visits, c.c_init, c.c_base,
                           c.unvisited_value)

    def search(self, state):
        root = self.root = self._root_for(state)
        c = self.config
        if c.dirichlet_alpha > 0:
            k = len(root.actions)
            if root.clean_prior is None:
                root.clean_prior = root.prior if root.prior is not None else np.full(k, 1 / k)
            full = np.zeros(self.game.action_space_size)
            full[root.actions] = root.clean_prior
            legal = np.zeros(self.game.action_space_size, dtype=bool)
            legal[root.actions] = True
            root.prior = add_dirichlet_noise(full, legal, c.dirichlet_alpha, c.dirichlet_fraction, self.rng)[root.actions]
        for _ in range(c.simulations):
            self._simulate(root)
        visits = np.zeros(self.game.action_space_size, dtype=np.int64)
        visits[root.actions] = root.n
        return visits
'''


def puct_select(counts, totals, prior, visits, c_init, c_base, unvisited_value=0.0):
    """The notebook's reference PUCB, in numpy (the same operations, in the same order, as the stock PUCT)."""
    counts = np.asarray(counts, dtype=np.float64)
    q = np.where(counts > 0, np.asarray(totals, dtype=np.float64) / np.maximum(counts, 1), unvisited_value)
    rate = math.log((1 + visits + c_base) / c_base) + c_init
    u = rate * np.asarray(prior, dtype=np.float64) * math.sqrt(visits) / (1 + counts)
    return int(np.argmax(q + u))


def add_dirichlet_noise(prior, legal, alpha, fraction, rng):
    """Root noise as the stock search mixes it (one draw; the clean prior is normalised already)."""
    kept = np.asarray(prior, dtype=np.float64)[legal]
    out = np.zeros(len(legal))
    out[legal] = (1 - fraction) * kept + fraction * rng.dirichlet(np.full(len(kept), alpha))
    return out


def course_class(source: str):
    """The class ``CourseMCTS`` defined in ``source`` (other statements left out), with the names it uses."""
    tree = ast.parse(source)
    (node,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "CourseMCTS"]
    space = {"MCTS": MCTS, "np": np, "puct_select": puct_select, "add_dirichlet_noise": add_dirichlet_noise}
    exec(compile(ast.Module([node], []), "CourseMCTS", "exec"), space)
    return space["CourseMCTS"]


def notebook_class():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "search_provided"]
    return course_class(cell.source)


def network_like(game, state, rng):
    """A prior fixed per state (as a network's) and a rollout's values (draws from ``rng``)."""
    _, values = RolloutEvaluator()(game, state, rng)
    seed = zlib.crc32(repr(game.state_key(state)).encode())
    return np.random.default_rng(seed).random(game.action_space_size) + 0.05, values


def play(search_fn, advance, game, moves=4):
    """The root visits of ``moves`` searches along one game (each move the most visited, the tree kept)."""
    state, seen = game.initial_state(np.random.default_rng(0)), []
    for _ in range(moves):
        if game.is_terminal(state):
            break
        visits = search_fn(state)
        seen.append(visits.tolist())
        action = int(np.argmax(visits))
        advance(action)
        state = game.next_state(state, action)
    return seen


def config(alpha):
    return MCTSConfig(simulations=48, tree_policy="puct", c_init=1.25, c_base=19652.0, unvisited_value=-0.5,
                      dirichlet_alpha=alpha)


@pytest.mark.parametrize("release", ["current", "earlier"])
@pytest.mark.parametrize("name", ["tictactoe", "tak3"])
@pytest.mark.parametrize("alpha", [0.0, 0.3])
def test_the_notebooks_course_search_gives_the_stock_puct_visits(release, name, alpha):
    game = make_game(name)
    cls = notebook_class() if release == "current" else course_class(EARLIER_RELEASE)
    course = cls(game, network_like, config(alpha), 7)
    stock = MCTS(game, network_like, config(alpha), 7)
    got = play(course.search, course.advance, game)
    want = play(lambda s: stock.search(s).visits, stock.advance, game)
    assert len(got) == 4 and got == want
    assert course.rng.random() == stock.rng.random()  # the same draws, in the same order


class Counting:
    """A mix-in that counts its tree-policy calls."""

    calls = 0


class OldStyle(MCTS, Counting):
    def _select(self, node):
        self.calls += 1
        return super()._select(node)  # the stock policy under its old name


class NewStyle(MCTS, Counting):
    def select(self, node):
        self.calls += 1
        return super().select(node)


class NewOnOld(OldStyle):
    def select(self, node):
        self.calls += 100
        return super().select(node)


@pytest.mark.parametrize("cls", [OldStyle, NewStyle, NewOnOld])
@pytest.mark.parametrize("settings", [{}, {"tree_policy": "puct"}, {"tree_policy": "puct", "root_policy": "gumbel"}],
                         ids=["uct", "puct", "gumbel"])
def test_a_select_override_under_either_name_is_what_every_search_uses(cls, settings):
    game = make_game("tictactoe")
    cfg = MCTSConfig(simulations=24, **settings)
    state = game.initial_state()
    stock, custom = MCTS(game, network_like, cfg, 3).search(state), cls(game, network_like, cfg, 3)
    result = custom.search(state)
    assert result.visits.tolist() == stock.visits.tolist() and result.q.tobytes() == stock.q.tobytes()
    per_pass = 101 if cls is NewOnOld else 1  # NewOnOld: its select, then OldStyle's _select, then the stock policy
    assert custom.calls > 0 and custom.calls % per_pass == 0
    calls = custom.calls
    batched = cls(game, network_like, cfg, 3)
    (many,) = search_many([batched], [state], lambda g, leaves: [network_like(g, leaf, batched.rng) for leaf in leaves])
    assert many.visits.tolist() == stock.visits.tolist() and batched.calls == calls
    custom.reset()
    root = custom.root_for(state)  # a new root, not the search's (a Gumbel root's schedule is spent)
    before = custom.calls
    custom.simulate(root)
    custom._simulate(root)
    assert custom.calls > before
    assert cls.select is cls._select  # one method under both names


def test_the_deprecated_names_are_the_public_hooks():
    assert MCTS._select is MCTS.select and MCTS._root_for is MCTS.root_for and MCTS._simulate is MCTS.simulate
    game = make_game("tictactoe")
    search = MCTS(game, None, MCTSConfig(simulations=8), 0)
    root = search._root_for(game.initial_state())
    assert root.visits == 1 and search.root is None  # root_for builds the root; the caller keeps it
    search._simulate(root)
    search.simulate(root)
    assert root.visits == 3 and sum(root.counts) == 2
