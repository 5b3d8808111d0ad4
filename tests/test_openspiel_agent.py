"""The OpenSpiel yardstick: the pack's games and OpenSpiel's agree move for move, and the harness plays.

OpenSpiel (requirements-dev.txt, installed by scripts/test.sh) is the independent implementation:
random games are played through both, the move of one side mapped to the other, and every position
must have the same player to move and the same legal moves, every game the same end and results.
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np
import pytest

from azcourse.core.agents import make_agent
from azcourse.core.arena import play_match
from azcourse.openspiel_agent import OpenSpielMCTSAgent, from_spiel, spiel_game, to_spiel
from azcourse.registry import make_game

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name, games", [("tictactoe", 300), ("othello8", 150), ("hex5", 300), ("hex7", 150)])
def test_random_games_agree_move_for_move_with_openspiel(name, games):
    game = make_game(name)
    spiel, rng = spiel_game(game), np.random.default_rng(7)
    for _ in range(games):
        ours, theirs = game.initial_state(), spiel.new_initial_state()
        while not game.is_terminal(ours):
            legal = np.flatnonzero(game.legal_mask(ours)).tolist()
            assert not theirs.is_terminal() and theirs.current_player() == game.to_move(ours)
            assert sorted(from_spiel(game, a) for a in theirs.legal_actions()) == legal
            if rng.random() < 0.5:  # the move chosen on either side, mapped to the other
                action = int(rng.choice(legal))
                theirs.apply_action(to_spiel(game, action))
            else:
                spiel_action = int(rng.choice(theirs.legal_actions()))
                action = from_spiel(game, spiel_action)
                theirs.apply_action(spiel_action)
            ours = game.next_state(ours, action)
        assert theirs.is_terminal() and list(theirs.returns()) == list(game.returns(ours))


def test_games_without_an_openspiel_counterpart_are_refused_by_name():
    with pytest.raises(ValueError, match="no OpenSpiel game for othello6"):
        spiel_game(make_game("othello6"))
    with pytest.raises(ValueError, match="0..24"):
        to_spiel(make_game("hex5"), 25)


def test_the_bot_beats_random_play_and_notices_a_desynchronised_game():
    summary = play_match(functools.partial(make_game, "hex5"),
                         functools.partial(OpenSpielMCTSAgent, make_game("hex5"), simulations=100),
                         functools.partial(make_agent, "random", make_game("hex5")), games=6, progress=False)
    assert summary.wins == 6 and summary.by_seat[0][0] == 3
    game = make_game("tictactoe")
    agent = OpenSpielMCTSAgent(game, 0, simulations=10)
    with pytest.raises(RuntimeError, match="disagree"):
        agent.choose(game.next_state(game.initial_state(), 4))  # a move it never observed


def test_the_strength_benchmark_plays_a_shipped_network_through_the_harness(capsys):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import openspiel_strength
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    openspiel_strength.main(["tictactoe_az", "--games", "4", "--simulations", "25", "--opponent-simulations", "20,40",
                             "--workers", "1"])
    out = capsys.readouterr().out
    assert out.count("network@25 vs openspiel-mcts20: 4 games") == 1 and "openspiel-mcts40" in out
    table = [line for line in out.splitlines() if line.startswith("| tictactoe_az @25 vs OpenSpiel MCTS")]
    assert len(table) == 2 and all(line.count("|") == 6 for line in table)
