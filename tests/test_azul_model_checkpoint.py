"""Azul checkpoints (the one trainer's format): the network with Azul's calls, load time, cards, and agents
made from a checkpoint in one call playing legal moves."""
import time

import numpy as np
import pytest

import Azul_Simulator as az
from azcourse.alphazero.checkpoints import PARAMS_FILE, load_checkpoint, save_checkpoint
from azcourse.alphazero.flax_net import init_params
from azcourse.alphazero.network import NetSpec, NumpyNet, param_count
from azcourse.azul import checkpoints, features
from azcourse.azul.game import Azul
from azcourse.core.arena import FunctionAgent, game_generators, play_game


def _checkpoint(directory, hidden=(8, 4), seed=0):
    """A checkpoint of an untrained Azul network of the one trainer (action head on), as a run writes it."""
    spec = NetSpec.for_game(Azul(), (), hidden, action_head=True)
    params = init_params(spec, seed)
    card = {"name": "x", "game": "azul", "architecture": {**spec.as_dict(), "param_count": param_count(params)},
            "play": {"simulations": 8, "c_init": 1.5, "c_base": 19652.0, "unvisited_value": 0.0,
                     "chance_outcomes": 0}}
    save_checkpoint(directory, params, card)
    return spec, params


def _boards(count=6, seed=0):
    rng, boards = np.random.default_rng(seed), []
    board = az.init_board(rng)
    while len(boards) < count:
        mask = az.get_valid_mask(board)
        if board[az.GAME_OVER]:
            board = az.init_board(rng)
            continue
        if not mask[az.NOOP]:
            boards.append(board)
        board = az.get_next_state(board, int(rng.choice(np.flatnonzero(mask))), rng)
    return boards


def test_the_network_with_azul_s_calls_is_the_trainer_s_network_on_the_legal_moves(tmp_path):
    """``load_network``: the prior is the trainer network's softmax restricted to the legal moves (0 elsewhere),
    the value its value; ``forward`` takes one encoding or a batch; the policy move is the best legal logit."""
    spec, params = _checkpoint(tmp_path)
    net, reference = checkpoints.load_network(tmp_path), NumpyNet(spec, params)
    boards = _boards()
    x = np.stack([features.encode(b) for b in boards])
    logits, values = reference.forward(x)
    batch_logits, batch_values = net.forward(x)
    np.testing.assert_array_equal(batch_logits, logits)
    np.testing.assert_array_equal(batch_values, values)
    for i, board in enumerate(boards):
        legal = az.get_valid_mask(board)
        prior, value = net(board)
        expected = np.exp(logits[i][legal] - logits[i][legal].max())
        np.testing.assert_allclose(prior[legal], expected / expected.sum(), rtol=1e-5)
        assert np.all(prior[~legal] == 0) and value == pytest.approx(values[i])
        assert net.policy_action(board) == int(np.flatnonzero(legal)[np.argmax(logits[i][legal])])
        one_logits, one_value = net.forward(x[i])
        np.testing.assert_allclose(one_logits, logits[i], rtol=1e-5, atol=1e-5)
        assert one_value == pytest.approx(values[i], abs=1e-5)


@pytest.mark.parametrize("search", [False, True])
def test_agent_from_checkpoint_plays_legal_moves(tmp_path, search):
    _checkpoint(tmp_path)
    agent = (checkpoints.load_agent(tmp_path, simulations=8) if search
             else checkpoints.load_agent(tmp_path))
    chance_rng, agent_rng = game_generators(3, 0, paired_deals=True)
    player = FunctionAgent(agent, agent_rng)
    record, _ = play_game(Azul(), (player, player), chance_rng)  # raises on any illegal move
    assert sum(record.moves) > 20 and min(record.scores) >= 0


SHIPPED = checkpoints.available_models()


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_checkpoint_loads_fast_and_has_a_card(name):
    start = time.perf_counter()
    agent = checkpoints.load_agent(name)
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0, f"loading {name} took {elapsed:.2f} s (target <= 2 s)"
    card = checkpoints.read_card(name)
    checkpoint = load_checkpoint(checkpoints.model_dir(name))
    assert card["game"] in ("azul", "azul_replies")  # Azul under one of its two encodings
    assert card["architecture"]["param_count"] == param_count(checkpoint.params)
    assert (checkpoints.model_dir(name) / PARAMS_FILE).stat().st_size < 5_000_000
    rng = np.random.default_rng(0)
    board = az.init_board(rng)
    action = agent(board, rng)
    assert az.get_valid_mask(board)[action]


def test_model_names():
    assert checkpoints.model_dir("strong").name == "azul_strong"
    assert checkpoints.model_dir("azul_baseline").name == "azul_baseline"


def test_record_arena_writes_into_the_card(tmp_path):
    _checkpoint(tmp_path)
    summary = {"agent_a": "x", "agent_b": "greedy", "games": 10, "seed": 0, "wins": 6, "draws": 0,
               "losses": 4, "win_rate": 0.6, "win_rate_ci95": [0.31, 0.83], "mean_score_a": 50.0,
               "mean_score_b": 45.0, "mean_score_diff": 5.0}
    checkpoints.record_arena(tmp_path, summary)
    card = checkpoints.read_card(tmp_path)
    assert card["name"] == "x" and card["arena"]["x vs greedy"]["wins"] == 6
    assert card["architecture"]["hidden"] == [8, 4]  # the rest of the card is kept


@pytest.mark.skipif("azul_strong" not in SHIPPED, reason="no shipped azul_strong checkpoint")
def test_model_agents_registry_entries():
    assert set(checkpoints.MODEL_AGENTS) == {"baseline", "strong", "strong+search"}
    search_agent = checkpoints.MODEL_AGENTS["strong+search"]()
    assert search_agent.config.simulations == checkpoints.DEFAULT_SIMULATIONS
    assert search_agent.config.time_limit == checkpoints.DEFAULT_TIME_LIMIT


def test_a_card_s_play_entry_sets_the_agent_s_search_and_a_call_overrides_it(tmp_path):
    _checkpoint(tmp_path)
    card = checkpoints.read_card(tmp_path)
    checkpoints.write_card(tmp_path, {**card, "play": {**card["play"], "chance_outcomes": 4, "prior_mix": 0.25,
                                                       "value_mix": 0.25}})
    agent = checkpoints.load_agent(tmp_path, simulations=8)
    assert (agent.evaluator.prior_mix, agent.evaluator.value_mix) == (0.25, 0.25)
    assert agent.config.chance_outcomes == 4 and agent.config.c_init == 1.5 and agent.config.simulations == 8
    assert checkpoints.load_agent(tmp_path, simulations=8, chance_outcomes=0).config.chance_outcomes == 0
    assert checkpoints.load_agent(tmp_path, time_limit=0.2).config.simulations == 8  # the card's budget
    checkpoints.write_card(tmp_path, card)  # no mixes: the network alone
    agent = checkpoints.load_agent(tmp_path, simulations=8)
    assert (agent.evaluator.prior_mix, agent.evaluator.value_mix) == (0.0, 0.0) and agent.config.chance_outcomes == 0
    with pytest.raises(ValueError, match="chance_outcomes at least 0"):
        checkpoints.load_agent(tmp_path, simulations=8, chance_outcomes=-1)
    with pytest.raises(ValueError, match="not c_puct, chance .c_puct is c_init"):  # the settings' names before
        checkpoints.load_agent(tmp_path, simulations=8, c_puct=1.5, chance="sample")


def _decision_boards(count, seed=7):
    """Decision boards of random games (a third of the positions with a choice), the same on every run."""
    rng, game, boards = np.random.default_rng(seed), Azul(), []
    while len(boards) < count:
        board = game.initial_state(rng)
        while not game.is_terminal(board) and len(boards) < count:
            if game.is_chance(board):
                board = game.resolve_chance(board, rng)
                continue
            legal = np.flatnonzero(game.legal_mask(board))
            if len(legal) > 1 and rng.random() < 0.3:
                boards.append(board.copy())
            board = game.next_state(board, int(rng.choice(legal)))
    return boards


# The moves of azul_strong at 100 simulations on _decision_boards(12), seed i for board i, as Azul's loader played
# them when the card's rows were measured (commit 8581e93, before the search settings were one description)
STRONG_MOVES = [37, 97, 98, 7, 1, 4, 61, 171, 108, 21, 133, 24]


@pytest.mark.skipif("azul_strong" not in SHIPPED, reason="no shipped azul_strong checkpoint")
def test_both_loaders_play_azul_strong_as_its_card_s_rows_were_measured():
    from azcourse.alphazero.agent import load_agent

    azul = checkpoints.load_agent("azul_strong", simulations=100)
    generic = [load_agent("azul_strong", rng=np.random.default_rng(i), simulations=100, proofs=False)
               for i in range(len(STRONG_MOVES))]
    boards = _decision_boards(len(STRONG_MOVES))
    assert [azul(board, np.random.default_rng(i)) for i, board in enumerate(boards)] == STRONG_MOVES
    assert [agent.choose(board) for agent, board in zip(generic, boards)] == STRONG_MOVES
    assert generic[0].mcts.config == azul.config


@pytest.mark.skipif("azul_strong" not in SHIPPED, reason="no shipped azul_strong checkpoint")
def test_the_shipped_strong_searches_past_the_refill_as_its_card_measured():
    # docs/azul_model.md's card rows with search were played with these settings
    agent = checkpoints.make_model_agent("strong+search:0.5s")
    play = checkpoints.read_card("azul_strong")["play"]
    assert {key: play[key] for key in ("tree_policy", "c_init", "c_base", "fpu_reduction", "chance_outcomes",
                                       "prior_mix", "value_mix")} == {
        "tree_policy": "puct", "c_init": 1.5, "c_base": float("inf"), "fpu_reduction": 0.1, "chance_outcomes": 4,
        "prior_mix": 0.25, "value_mix": 0.25}  # value_mix: the heuristic's weight (the network's 0.75)
    assert agent.config.chance_outcomes == 4 and agent.config.time_limit == 0.5
    assert (agent.evaluator.prior_mix, agent.evaluator.value_mix) == (0.25, 0.25)
