"""A checkpoint played by the compiled search (``azcourse.alphazero.compiled_agent``): the generic agent's moves,
from the card or from ``load_agent``'s options, and what it cannot do refused by name."""
from __future__ import annotations

import dataclasses
import pathlib

import numpy as np
import pytest

from azcourse.alphazero import searches
from azcourse.alphazero.agent import AlphaZeroAgent, load_agent
from azcourse.alphazero.compiled_agent import CompiledAgent
from azcourse.alphazero.config import ConfigError, load_config
from azcourse.alphazero.ntuple import kernels
from azcourse.alphazero.ntuple.patterns import NTupleSpec
from azcourse.core.mcts import MCTSConfig
from azcourse.othello import endgame
from azcourse.othello.game import Othello
from azcourse.registry import make_game

from compiled_twin import GUMBEL, SETTINGS, dyadic_net
from test_ntuple import random_params, random_states

pytestmark = pytest.mark.slow  # numba compiles the search on a fresh clone

ROOT = pathlib.Path(__file__).resolve().parents[1]
NTUPLE_CONFIG = ROOT / "configs" / "othello8_ntuple.toml"
NO_NOISE = dataclasses.replace(SETTINGS, dirichlet_alpha=0.0)


@pytest.mark.parametrize("search", [NO_NOISE, dataclasses.replace(GUMBEL, gumbel_scale=0.0)], ids=["puct", "gumbel"])
def test_its_moves_are_the_generic_agents_with_pattern_tables(search):
    game, spec = Othello(8), NTupleSpec(8, 6, 0.25)
    net = kernels.NTupleNet(spec, random_params(spec, 5))
    compiled = CompiledAgent(game, net, search, rng=0)
    for state in random_states(game, 12, 4):
        generic = AlphaZeroAgent(game, net, search, rng=0, proofs=False)
        assert compiled.choose(state) == generic.choose(state)


@pytest.mark.parametrize("name", ["hex5", "othello6", "tak5"])
def test_its_moves_are_the_generic_agents_with_a_network(name):
    game = make_game(name)
    net = dyadic_net(game)
    compiled = CompiledAgent(game, net, NO_NOISE, rng=0)
    for state in random_states(game, 10, 2):
        generic = AlphaZeroAgent(game, net, NO_NOISE, rng=0, proofs=False)
        assert compiled.choose(state) == generic.choose(state)


def test_its_first_moves_are_sampled_and_the_rest_greedy():
    game, spec = Othello(6), NTupleSpec(6, 4, 0.25)
    net = kernels.NTupleNet(spec, random_params(spec, 1))
    state = game.initial_state(None)
    sampled = {CompiledAgent(game, net, GUMBEL, rng=seed, sample_moves=1).choose(state) for seed in range(12)}
    assert len(sampled) > 1  # Gumbel noise draws the first move
    agents = [CompiledAgent(game, net, GUMBEL, rng=seed, sample_moves=1) for seed in range(4)]
    for agent in agents:
        agent.choose(state)
    assert len({agent.choose(state) for agent in agents}) == 1  # then the search without noise decides


def test_load_agent_plays_the_shipped_tables_compiled_with_the_exact_endgame():
    """Given options, or the card's own play entry (``configs/othello8_ntuple.toml``'s ``play_*`` keys)."""
    agent = load_agent("othello8_ntuple", rng=0, simulations=64, root_policy="puct", search_path="compiled",
                       endgame_empties=10)
    assert isinstance(agent, CompiledAgent) and agent.greedy.config.root_policy == "puct"
    assert agent.greedy.config.simulations == 64 and agent.forward_many is None  # the tables stay in numba
    game, rng = agent.game, np.random.default_rng(3)
    state = game.initial_state(None)
    while endgame.empty_squares(game, state) > 10 or not state.moves:
        assert game.legal_mask(state)[agent.choose(state)]
        state = game.next_state(state, agent.choose(state))
    child = game.next_state(state, agent.choose(state))  # from 10 empty squares: the solver's best margin
    black, white = game.scores(child)
    after = -endgame.solve(game, child).margin if not child.over else (black - white) * (1 - 2 * state.player)
    assert after == endgame.solve(game, state).margin
    shipped = load_agent("othello8_ntuple", simulations=8)  # the card's play entry: compiled, PUCT, endgame 12
    assert isinstance(shipped, CompiledAgent) and shipped.endgame.empties == 12
    assert shipped.greedy.config.root_policy == "puct"
    assert isinstance(load_agent("othello8_ntuple", simulations=8, search_path="generic"), AlphaZeroAgent)


def test_what_the_compiled_agent_cannot_play_is_refused_by_name():
    with pytest.raises(ConfigError, match="Othello, Hex and Tak"):
        load_agent("tictactoe_az", search_path="compiled")
    with pytest.raises(ConfigError, match="time_limit"):
        load_agent("othello8_ntuple", search_path="compiled", root_policy="puct", time_limit=0.1)
    with pytest.raises(ConfigError, match="endgame_empties"):
        load_agent("hex5_az", search_path="compiled", endgame_empties=8)
    with pytest.raises(ValueError, match="'generic' or 'compiled'"):
        load_agent("othello8_ntuple", search_path="numba")
    with pytest.raises(ConfigError, match="uct"):
        CompiledAgent(Othello(6), dyadic_net(Othello(6)), MCTSConfig(tree_policy="uct"))


def test_a_runs_play_settings_make_its_cards_play_entry():
    config = load_config(NTUPLE_CONFIG, {"play_search_path": "compiled", "play_root_policy": "puct",
                                         "play_simulations": 6000, "play_endgame_empties": 12})
    play = searches.card_play(config)
    assert (play["search_path"], play["root_policy"], play["simulations"], play["endgame_empties"]) == (
        "compiled", "puct", 6000, 12)
    assert play["dirichlet_alpha"] == 0.0 and config.search.root_policy == "gumbel"  # self-play's stays
    plain = searches.card_play(load_config(NTUPLE_CONFIG, {"play_search_path": "generic", "play_root_policy": "",
                                                           "play_simulations": 0, "play_endgame_empties": 0}))
    assert "search_path" not in plain and plain["endgame_empties"] == 10 and plain["root_policy"] == "gumbel"
    for name, key, value, message in [("tictactoe_az", "play_search_path", "compiled", "needs Othello, Hex or Tak"),
                                      ("tak5", "play_root_policy", "uct", "play_root_policy"),
                                      ("tak5", "play_endgame_empties", 9, "for Othello")]:
        with pytest.raises(ConfigError, match=message):
            load_config(ROOT / "configs" / f"{name}.toml", {key: value})
