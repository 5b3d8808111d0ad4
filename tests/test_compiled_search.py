"""The compiled self-play search (``azcourse.alphazero.compiled_search``) against the generic one.

Compiled by numba, on every board size the trainer meets; ``tests/compiled_twin.py`` has the shared pieces
and why the comparison is exact, ``tests/test_compiled_twin_plain.py`` the same comparison as plain Python.
"""
from __future__ import annotations

import csv
import functools
import operator
import pathlib

import numpy as np
import pytest

from azcourse.alphazero import compiled_search
from azcourse.alphazero.compiled_search import Lockstep, play_games, returns_of, rules_for
from azcourse.alphazero.config import AlphaZeroConfig, ConfigError
from azcourse.alphazero.network import NetSpec, NumpyNet, Predictor
from azcourse.alphazero.ntuple import kernels as ntuple_kernels
from azcourse.alphazero.ntuple.patterns import NTupleSpec, init_params as ntuple_params
from azcourse.alphazero.train import train
from azcourse.alphazero.workers import SelfPlayWorker
from azcourse.core.evaluators import NetworkEvaluator
from azcourse.core.mcts import MCTS, MCTSConfig
from azcourse.hex import compiled as hex_rules
from azcourse.othello import compiled as othello_rules
from azcourse.othello import endgame
from azcourse.othello.game import Othello
from azcourse.registry import make_game

from compiled_twin import GUMBEL, SETTINGS, dyadic_net, dyadic_params, generic_games, same_games

ROOT = pathlib.Path(__file__).resolve().parents[1]

# numba compiles the search and both games' rules on a fresh clone (about 25 s before the first test ends)
pytestmark = pytest.mark.slow


def record_compiled_searches(monkeypatch, seeds, rngs) -> tuple[dict, list]:
    """Make ``Lockstep`` keep the visit counts of every search, by the seed of its game; and count the
    repacks of its pools. Returns ``({seed: [visits, ...]}, repacks)``."""
    visits, playing, repacks = {seed: [] for seed in seeds}, {}, []
    start, results, copy_live = Lockstep.start, Lockstep.results, compiled_search._copy_live

    def recording_start(self, slot, state, rng):
        playing[slot] = seeds[[id(r) for r in rngs].index(id(rng))]
        start(self, slot, state, rng)

    def recording_results(self, finished):
        found = results(self, finished)
        for row, slot in zip(found.visits, finished.tolist()):
            visits[playing[slot]].append(row)
        return found

    monkeypatch.setattr(Lockstep, "start", recording_start)
    monkeypatch.setattr(Lockstep, "results", recording_results)
    monkeypatch.setattr(compiled_search, "_copy_live", lambda *args: repacks.append(1) or copy_live(*args))
    return visits, repacks


@pytest.mark.parametrize("name", ["othello4", "othello6", "othello8", "hex3", "hex5", "hex7", "hex8"])
def test_the_compiled_rules_play_the_games(name):
    """Random games: the compiled rules' legal actions, next states, ends, results and encodings are the game's."""
    game = make_game(name)
    module = othello_rules if name.startswith("othello") else hex_rules
    n, table, rng = game.size, module.table(game.size), np.random.default_rng(len(name) + game.size)
    actions, x = np.zeros(game.action_space_size + 1, np.int64), np.zeros(int(np.prod(game.encoding_shape)), np.float32)
    ends = set()
    for _ in range(25):
        state = game.initial_state()
        while True:
            first, second, moves, player, result = module.words(state)
            k = module.legal_actions(n, np.uint64(moves), result, actions)
            assert actions[:k].tolist() == np.flatnonzero(game.legal_mask(state)).tolist()
            if module is othello_rules:
                module.encode(n, np.uint64(first), np.uint64(second), np.uint64(moves), player, x)
            else:
                module.encode(n, np.uint64(first), np.uint64(second), player, x)
            np.testing.assert_array_equal(x, game.encode(state).reshape(-1))
            assert (result >= 0) == game.is_terminal(state)
            if result >= 0:
                np.testing.assert_array_equal(returns_of(result), game.returns(state))
                ends.add(result)
                break
            action = int(rng.choice(actions[:k]))
            state = game.next_state(state, action)
            played = module.play(n, table, np.uint64(first), np.uint64(second), player, action)
            assert tuple(int(w) for w in played) == module.words(state)
    assert {0, 1} <= ends


def lockstep_batch(game) -> int:
    """Games a round for the comparisons: one for Tak, whose fractional reserve planes round differently in a
    batch (``tests/compiled_twin.py``), else three (so that a slot is refilled)."""
    return 1 if game.name.startswith("tak") else 3


@pytest.mark.parametrize("name, reuse_tree", [("othello8", True), ("othello6", True), ("hex5", True), ("hex7", True),
                                              ("tak5", True), ("tak4", True), ("othello6", False), ("hex5", False),
                                              ("tak5", False)])
def test_compiled_self_play_is_the_generic_search(name, reuse_tree, monkeypatch):
    """Whole self-play games, 3 at a time (a slot is refilled; Tak one at a time): the same visit counts at
    every move, the same moves and the same records as ``selfplay.play_game`` with ``MCTS``; the pools are
    repacked on the way."""
    game, seeds = make_game(name), [5, 6, 7, 8]
    net = dyadic_net(game)
    expected, expected_visits = generic_games(game, net, seeds, SETTINGS, 4, reuse_tree)
    rngs = [np.random.default_rng(seed) for seed in seeds]
    visits, repacks = record_compiled_searches(monkeypatch, seeds, rngs)
    played = play_games(game, net.forward, SETTINGS, 4, rngs, reuse_tree, batch=lockstep_batch(game))
    same_games(expected, played)
    for seed, searches in zip(seeds, expected_visits):
        np.testing.assert_array_equal(np.array(visits[seed]), np.array(searches))
    assert repacks
    if reuse_tree:  # a kept subtree's counts carry over to the next search
        assert max(v.sum() for searches in expected_visits for v in searches) > SETTINGS.simulations


def test_the_priors_are_the_generic_searchs_to_the_last_bit():
    """A float network, one position a call on both paths: after a search without noise the root's priors
    are the generic search's bit for bit (numpy's pairwise summation order included), and so are its visits."""
    game, rng = make_game("hex5"), np.random.default_rng(2)
    params = dyadic_params(game, hidden=32)
    params = {layer: {name: rng.standard_normal(value.shape) for name, value in leaves.items()}
              for layer, leaves in params.items()}
    net = NumpyNet(NetSpec.for_game(game, (), (32,)), params)
    settings = MCTSConfig(simulations=8, tree_policy="puct")
    state = game.initial_state()
    for _ in range(6):
        search = MCTS(game, NetworkEvaluator(Predictor(game, net)), settings, 0)
        expected = search.search(state)
        lock = Lockstep(rules_for(game), settings, 1)
        lock.start(0, state, np.random.default_rng(0))
        while not len(lock.step(net.forward)):
            pass
        root = lock.slots.root[0]
        edges = slice(lock.trees.edge0[root], lock.trees.edge0[root] + lock.trees.edges[root])
        np.testing.assert_array_equal(lock.trees.prior[edges], search.root.prior)
        np.testing.assert_array_equal(lock.results(np.array([0])).visits[0], expected.visits)
        state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))


@pytest.mark.parametrize("name", ["othello8", "othello6", "hex5", "hex7", "tak5"])
def test_compiled_gumbel_self_play_is_the_generic_search(name, monkeypatch):
    """The Gumbel root policy: whole self-play games, 2 at a time (Tak one), with the generic search's visit
    counts, improved policies and choices."""
    game, seeds = make_game(name), [3, 4, 5]
    net = dyadic_net(game, seed=1)
    expected, expected_visits = generic_games(game, net, seeds, GUMBEL, 4, True)
    rngs = [np.random.default_rng(seed) for seed in seeds]
    visits, _ = record_compiled_searches(monkeypatch, seeds, rngs)
    same_games(expected, play_games(game, net.forward, GUMBEL, 4, rngs, True, batch=min(2, lockstep_batch(game))))
    for seed, searches in zip(seeds, expected_visits):
        np.testing.assert_array_equal(np.array(visits[seed]), np.array(searches))


def test_sums_are_numpys_on_every_length_of_a_legal_move_list():
    """``_pairwise_sum`` adds as ``ndarray.sum`` does, bit for bit, on lengths up to Tak 5x5's 1,575 actions
    (numpy splits a run longer than 128 in halves); at an offset into the array too."""
    rng = np.random.default_rng(1)
    values = rng.standard_normal(1700) * 10.0 ** rng.integers(-6, 6, 1700)
    for count in list(range(1, 300)) + list(range(300, 1600, 37)) + [1575]:
        for start in (0, 5):
            assert compiled_search._pairwise_sum(values, start, count) == values[start:start + count].sum(), count


@pytest.mark.parametrize("compensated", [False, True])
def test_sums_are_pythons(compensated):
    """``_python_sum`` adds as the builtin ``sum`` of the running Python does (Neumaier's compensation from
    3.12 on), and as the other version's would (its loop written out below)."""
    def neumaier(values):  # CPython 3.12's sum() of floats
        total, carry = 0 + values[0], 0.0
        for x in values[1:]:
            t = total + x
            carry += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
            total = t
        return total + carry if carry and np.isfinite(carry) else total

    rng = np.random.default_rng(0)
    for count in range(1, 70):
        values = rng.standard_normal(count) * 10.0 ** rng.integers(-8, 8, count)
        expected = sum(values.tolist()) if compensated == compiled_search.COMPENSATED_SUM else \
            (neumaier if compensated else lambda v: functools.reduce(operator.add, v))(values.tolist())
        assert compiled_search._python_sum(values, count, compensated) == expected


def test_without_noise_and_with_the_default_settings():
    game, seeds = make_game("hex5"), [1, 2]
    net = dyadic_net(game, seed=3)
    settings = MCTSConfig(simulations=16, tree_policy="puct")
    expected, _ = generic_games(game, net, seeds, settings, 0, True)
    same_games(expected, play_games(game, net.forward, settings, 0, [np.random.default_rng(s) for s in seeds]))


def test_the_worker_plays_the_same_games_on_either_search_path():
    """``SelfPlayWorker`` with ``search_path = "compiled"``: the games of the generic path, seed for seed."""
    config = dict(game="othello6", search=dict(simulations=12), temperature_moves=3, selfplay_batch=3, hidden=(16,))
    params = dyadic_params(make_game("othello6"))
    seeds = [11, 12, 13, 14]
    generic = SelfPlayWorker(AlphaZeroConfig(**config).to_dict()).play(params, seeds)
    compiled = SelfPlayWorker(AlphaZeroConfig(**config, search_path="compiled").to_dict()).play(params, seeds)
    same_games(generic, compiled)


def test_the_configs_list_of_compiled_games_is_the_searchs():
    """``config.COMPILED_FAMILIES`` (the config cannot import numba's module) names ``COMPILED_GAMES``."""
    from azcourse.alphazero.config import COMPILED_FAMILIES

    assert tuple(type(make_game(f"{family}4")) for family in COMPILED_FAMILIES) == compiled_search.COMPILED_GAMES


def test_a_game_without_compiled_rules_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="knows Othello, Hex and Tak, not 'tictactoe'"):
        rules_for(make_game("tictactoe"))
    with pytest.raises(ConfigError, match="search_path must be one of generic, compiled"):
        AlphaZeroConfig(search_path="fast")
    with pytest.raises(ConfigError, match="not 'tictactoe'"):
        train(AlphaZeroConfig(game="tictactoe", search_path="compiled"), tmp_path / "run", show_progress=False)
    assert not (tmp_path / "run").exists()


def test_the_trainer_trains_on_the_compiled_path(tmp_path, monkeypatch):
    calls = []
    compiled_play = compiled_search.play_games
    monkeypatch.setattr(compiled_search, "play_games", lambda *args: calls.append(len(args[4])) or compiled_play(*args))
    config = AlphaZeroConfig(search=dict(simulations=8), game="hex4", iterations=2, games_per_iteration=5,
                             temperature_moves=2, replay_positions=300, batch_size=16, train_steps=3, hidden=(16,),
                             selfplay_batch=4, search_path="compiled")
    result = train(config, tmp_path / "run", show_progress=False)
    assert result.iterations == 2 and calls == [5, 5]
    with (tmp_path / "run" / "log.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["games"]) for r in rows] == [5, 10] and all(float(r["total_loss"]) > 0 for r in rows)
    assert 'search_path = "compiled"' in (tmp_path / "run" / "config.toml").read_text()


def test_a_seconds_long_run_of_the_tak5_config_trains_compiled_and_plays_compiled(tmp_path):
    """``configs/tak5.toml`` shrunk to seconds: Tak 5x5 self-play on the compiled search, every position stored with
    its 8 images; the card's play entry makes its agent the compiled PUCT search."""
    from azcourse.alphazero.agent import load_agent
    from azcourse.alphazero.compiled_agent import CompiledAgent
    from azcourse.alphazero.config import load_config

    tiny = {"iterations": 1, "games_per_iteration": 4, "selfplay_batch": 4, "train_steps": 3, "batch_size": 32,
            "search.simulations": 8, "hidden": [16]}
    config = load_config(ROOT / "configs" / "tak5.toml", tiny)
    assert config.search_path == "compiled" and config.symmetries and config.play_search_path == "compiled"
    train(config, tmp_path / "run", show_progress=False)
    with (tmp_path / "run" / "log.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["games"]) for r in rows] == [4] and int(rows[0]["replay"]) == 8 * int(rows[0]["positions"])
    agent = load_agent(tmp_path / "run", simulations=16, rng=0)
    assert isinstance(agent, CompiledAgent) and not agent.greedy.gumbel
    state = agent.game.initial_state(None)
    assert agent.game.legal_mask(state)[agent.choose(state)]


# -- the exact endgame (endgame_empties) ---------------------------------------------------------------
def random_tables(game, seed: int = 0) -> tuple:
    """Pattern tables of ``game`` (Othello) with entries drawn from N(0, 0.05^2), a search with varied priors:
    ``(tables, net)``, the tables for the compiled search and their ``NTupleNet``."""
    spec = NTupleSpec.for_game(game)
    params = ntuple_params(spec)
    params["tables"]["kernel"][:] = np.random.default_rng(seed).normal(0.0, 0.05, params["tables"]["kernel"].shape)
    return ntuple_kernels.tables_of(spec, params), ntuple_kernels.NTupleNet(spec, params)


def perfect_returns(game, state) -> np.ndarray:
    """The players' returns of an Othello position with perfect play (``game.returns`` when it is over)."""
    if state.over:
        return game.returns(state)
    result = endgame.solve(game, state, exact=False).result
    return np.array([result, -result] if state.player == 0 else [-result, result], dtype=float)


def positions_with(game, empties: int, count: int, seed: int) -> list:
    """``count`` positions of random games with exactly ``empties`` empty squares where the mover has a placing move."""
    rng, found = np.random.default_rng(seed), []
    while len(found) < count:
        state = game.initial_state()
        while not state.over and endgame.empty_squares(game, state) > empties:
            state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
        if not state.over and endgame.empty_squares(game, state) == empties and state.moves:
            found.append(state)
    return found


@pytest.mark.parametrize("root_policy", ["puct", "gumbel"])
def test_the_endgame_settles_the_trees_nodes_and_the_search_keeps_the_result(root_policy):
    """Searches from 9, 10 and 11 empty squares on 8x8 with the endgame from 8: every node with 8 or fewer is a
    terminal with its perfect-play result (the mover's sign mapped to the winner), and nothing below it is
    searched; with PUCT the move chosen at 9 empty squares keeps the root's result."""
    game, k = Othello(8), 8
    config = MCTSConfig(simulations=64, tree_policy="puct", dirichlet_alpha=0.0, root_policy=root_policy)
    states = [s for empties in (k + 1, k + 2, k + 3) for s in positions_with(game, empties, 4, empties)]
    lock = Lockstep(rules_for(game), config, len(states), random_tables(game)[0], endgame_empties=k)
    for slot, state in enumerate(states):
        lock.start(slot, state, np.random.default_rng(slot))
    finished = lock.step()
    assert finished.tolist() == list(range(len(states)))
    trees, settled = lock.trees, set()
    for node in range(trees.used[0]):
        state = game._state(int(trees.first[node]), int(trees.second[node]), int(trees.player[node]))
        if endgame.empty_squares(game, state) <= k or state.over:
            assert trees.result[node] >= 0 and trees.edges[node] == 0
            np.testing.assert_array_equal(returns_of(int(trees.result[node])), perfect_returns(game, state))
            settled.add(int(trees.result[node]))
        else:
            assert trees.result[node] == -1
    assert {0, 1} <= settled  # both winners met
    found = lock.results(finished)
    if root_policy == "puct":
        for state, action in zip(states[:4], found.action.tolist()):
            before = perfect_returns(game, state)[state.player]
            assert perfect_returns(game, game.next_state(state, action))[state.player] == before


@pytest.mark.parametrize("size, k, root_policy, reuse", [(6, 8, "puct", True), (8, 10, "puct", False),
                                                         (8, 10, "gumbel", True)])
def test_self_play_games_end_at_their_first_endgame_position_with_its_exact_result(size, k, root_policy, reuse,
                                                                                   monkeypatch):
    """Whole games, the tables inside the search and the network called from Python: each game's moves, replayed,
    reach a first position with at most ``k`` empty squares (or an end before it), and the game's returns and
    value targets are that position's perfect-play result; every earlier position had more empty squares."""
    game = Othello(size)
    tables, net = random_tables(game)
    config = MCTSConfig(simulations=24, tree_policy="puct", dirichlet_alpha=0.0 if root_policy == "gumbel" else 0.3,
                        root_policy=root_policy, max_considered_actions=8)
    moves, playing = {}, {}
    start, advance = Lockstep.start, Lockstep.advance

    def recording_start(self, slot, state, rng):
        playing[slot] = id(rng)
        moves[id(rng)] = []
        start(self, slot, state, rng)

    def recording_advance(self, finished, actions, reuse_tree):
        for slot, action in zip(finished.tolist(), actions.tolist()):
            moves[playing[slot]].append(action)
        return advance(self, finished, actions, reuse_tree)

    monkeypatch.setattr(Lockstep, "start", recording_start)
    monkeypatch.setattr(Lockstep, "advance", recording_advance)
    for forward in (tables, net.forward):  # the tables inside the search; their forward pass, a batch a round
        rngs = [np.random.default_rng(seed) for seed in range(5)]
        played = play_games(game, forward, config, 4, rngs, reuse, batch=3, endgame_empties=k)
        solved = 0
        for rng, record in zip(rngs, played):
            state = game.initial_state()
            for action in moves[id(rng)]:
                assert not state.over and endgame.empty_squares(game, state) > k
                state = game.next_state(state, action)
            assert state.over or endgame.empty_squares(game, state) <= k
            solved += not state.over
            expected = perfect_returns(game, state)
            np.testing.assert_array_equal(record.returns, expected)
            assert record.moves == len(moves[id(rng)])
            movers, replay = [], game.initial_state()
            for action in moves[id(rng)]:
                movers.append(replay.player)
                replay = game.next_state(replay, action)
            np.testing.assert_array_equal(record.z, expected[movers].astype(np.float32))
        assert solved >= 3  # most games end at the endgame, not at the board's end
