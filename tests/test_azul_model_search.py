"""Azul on the generic MCTS (``azcourse.azul.mcts_agent``): legality of what it visits, chance handling
at the refill, and value signs when the same player moves twice in a row across a round boundary. (Until
Azul's own PUCT search was removed with its trainer, a test here found the same visit counts from both on
fixed positions, for four mixes and for the heuristic alone; docs/azul_model.md.)"""
import numpy as np
import pytest

import azul_builders as ab
import Azul_Simulator as az
from azcourse.azul import heuristics
from azcourse.azul.checkpoints import load_network
from azcourse.azul.mcts_agent import AzulEvaluator, SearchAgent, search_config
from azcourse.core.mcts import CHANCE, MCTS


def _positions(n=12, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    board = az.init_board(rng)
    while len(out) < n:
        if board[az.GAME_OVER]:
            board = az.init_board(rng)
        mask = az.get_valid_mask(board)
        if not mask[az.NOOP]:
            out.append(board)
        board = az.get_next_state(board, int(rng.choice(np.flatnonzero(mask))), rng)
    return out


@pytest.mark.parametrize("chance_outcomes", [0, 4])
def test_visits_only_legal_moves(chance_outcomes):
    agent = SearchAgent(AzulEvaluator(), search_config(60, chance_outcomes=chance_outcomes))
    for board in _positions():
        result = agent.search(board, np.random.default_rng(1))
        legal = az.get_valid_mask(board)
        assert result.visits.shape == (az.ACTION_DIM,)
        assert result.visits[~legal].sum() == 0 and result.visits[az.NOOP] == 0
        assert result.visits.sum() == 60 and np.all(np.abs(result.q) <= 1)
        assert legal[result.action] and result.visits[result.action] == result.visits.max()


def _last_take_position(mover_has_marker: bool):
    """Round's last take: 2 Blue left in the centre; the marker went to the mover or the opponent."""
    me = ab.player(score=10, is_starter=not mover_has_marker, has_marker=mover_has_marker,
                   floor="" if mover_has_marker else "")
    opp = ab.player(score=12, has_marker=not mover_has_marker, is_starter=mover_has_marker)
    return ab.board(me=me, opp=opp, centre="BB", marker_in_centre=False, seat=0)


@pytest.mark.parametrize("mover_has_marker", [True, False])
def test_round_end_value_sign_follows_the_seat(mover_has_marker):
    board = _last_take_position(mover_has_marker)
    agent = SearchAgent(AzulEvaluator(), search_config(50))
    mcts = MCTS(agent.game, agent.evaluator, agent.config, np.random.default_rng(0))
    mcts.search(board)
    root = mcts.root
    assert root.player == board[az.SEAT]
    for i, child in enumerate(root.children):
        if child is None:
            continue
        assert child.kind == CHANCE
        same_player = child.state[az.SEAT] == root.player
        assert same_player == mover_has_marker  # the marker holder starts the next round
        expected = heuristics.evaluate(child.state) * (1 if same_player else -1)
        assert root.w[i] / root.n[i] == pytest.approx(expected)


def test_round_mode_never_draws_tiles():
    """Chance 'round': the search stops at the refill, so it never uses its RNG for tile draws."""
    board = _last_take_position(True)
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    SearchAgent(AzulEvaluator(), search_config(40)).search(board, rng)
    assert rng.bit_generator.state == before


def test_sample_mode_keeps_a_bounded_set_of_refills():
    board = _last_take_position(True)
    agent = SearchAgent(AzulEvaluator(), search_config(200, chance_outcomes=3))
    mcts = MCTS(agent.game, agent.evaluator, agent.config, np.random.default_rng(0))
    mcts.search(board)
    chance_nodes = [c for c in mcts.root.children if c is not None]
    assert chance_nodes
    for node in chance_nodes:
        assert node.kind == CHANCE and 1 <= len(node.children) <= 3
        for outcome in node.children.values():  # real refills: a new round with factories to take from
            assert outcome.state[az.ROUND] == board[az.ROUND] + 1
            assert az.get_valid_mask(outcome.state)[:az.N_TAKES].any()
    # the real position's bag is untouched by the search's sampled refills
    np.testing.assert_array_equal(board, _last_take_position(True))


def test_agent_returns_noop_only_at_refill_and_plays_forced_moves():
    agent = SearchAgent(AzulEvaluator(), search_config(10))
    refill = ab.board(me=ab.player(is_starter=True), centre="", marker_in_centre=False)
    assert agent(refill, np.random.default_rng(0)) == az.NOOP
    board = _last_take_position(True)
    action = agent(board, np.random.default_rng(0))
    assert az.get_valid_mask(board)[action]
