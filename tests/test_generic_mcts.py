"""The generic MCTS on tiny games written here through the protocol only, with visit counts
worked out by hand; plus the proof that the search names no game."""
import ast
import math
from pathlib import Path

import numpy as np
import pytest

from azcourse.core.evaluators import EpsilonGreedyPolicy, NetworkEvaluator, RolloutEvaluator
from azcourse.core.mcts import MCTS, MCTSConfig, visit_distribution

ROOT = Path(__file__).resolve().parents[1]


class TreeGame:
    """A game given as an explicit tree. A state is the tuple of actions taken so far; ``spec`` maps
    it to ``("move", player, n_actions)``, ``("end", returns)`` or ``("chance", n_outcomes)``
    (outcome k is appended as action k). Works only through the protocol's methods."""

    name = "tree"
    num_players = 2
    encoding_shape = (1,)

    def __init__(self, spec, action_space_size):
        self.spec, self.action_space_size = spec, action_space_size
        self.calls = {"next_state": 0}

    def initial_state(self, rng=None):
        return ()

    def to_move(self, state):
        return self.spec[state][1]

    def legal_mask(self, state):
        mask = np.zeros(self.action_space_size, dtype=bool)
        kind = self.spec[state]
        if kind[0] == "move":
            mask[:kind[2]] = True
        return mask

    def next_state(self, state, action):
        if not self.legal_mask(state)[action]:
            raise ValueError("illegal action")
        self.calls["next_state"] += 1
        return state + (int(action),)

    def is_terminal(self, state):
        return self.spec[state][0] == "end"

    def returns(self, state):
        kind = self.spec[state]
        return np.array(kind[1], dtype=float) if kind[0] == "end" else np.zeros(2)

    def is_chance(self, state):
        return self.spec[state][0] == "chance"

    def resolve_chance(self, state, rng):
        return state + (int(rng.integers(self.spec[state][1])),)

    def state_key(self, state):
        return state

    def encode(self, state):
        return np.zeros(1, dtype=np.float32)

    def render(self, state):
        return str(state)

    def action_to_text(self, state, action):
        return str(action)

    def parse_action(self, state, text):
        return int(text)


def constant(values, prior=None):
    """An evaluator that always answers ``(prior, values)`` (no rollout, no randomness)."""
    return lambda game, state, rng: (prior, np.array(values, dtype=float))


def win_loss(player, result):
    out = [0.0, 0.0]
    out[player], out[1 - player] = result, -result
    return out


# -- UCT -----------------------------------------------------------------------------------------
def test_uct_one_move_win_exact_counts():
    """Root: player 0 has three moves; only move 1 wins. The first three simulations try each move
    once (random order); after that UCT with c = 1 compares 1 + sqrt(ln N / n1) with
    -1 + sqrt(ln N) for a loser, which stays smaller while sqrt(ln N) < 2 (N < 55). So 20
    simulations give exactly [1, 18, 1], whatever the order of the first tries."""
    spec = {(): ("move", 0, 3), (0,): ("end", win_loss(0, -1)), (1,): ("end", win_loss(0, 1)),
            (2,): ("end", win_loss(0, -1))}
    for seed in range(5):
        result = MCTS(TreeGame(spec, 3), constant([0, 0]), MCTSConfig(simulations=20, c_uct=1.0), seed).search(())
        assert list(result.visits) == [1, 18, 1]
        assert list(result.q) == [-1, 1, -1] and result.player == 0


def test_uct_scores_follow_the_formula_step_by_step():
    """With c = 0.7, each simulation after the first tries picks argmax Q + c sqrt(ln N(s) / N(s, a))
    with N(s) = 1 + sum N(s, a); checked one simulation at a time (the root is reused)."""
    values = [0.3, -0.2, 0.5, 0.1]
    spec = {(): ("move", 0, 4), **{(a,): ("end", win_loss(0, v)) for a, v in enumerate(values)}}
    mcts = MCTS(TreeGame(spec, 4), constant([0, 0]), MCTSConfig(simulations=1, c_uct=0.7), 0)
    n = np.zeros(4)
    for step in range(60):
        if step < 4:
            expected = None  # the first tries: random order, each once
        else:
            expected = int(np.argmax(np.array(values) + 0.7 * np.sqrt(math.log(1 + n.sum()) / n)))
        visits = mcts.search(()).visits
        chosen = int(np.flatnonzero(visits - n)[0])
        assert expected is None or chosen == expected, step
        n = visits.astype(float)
    assert (n[:4] >= 1).all() and n.sum() == 60


def test_two_levels_the_opponent_minimises_and_values_are_per_player():
    """Player 0 picks L (0) or R (1); player 1 then picks between two ends. Under L player 1 can win
    (returns +1 for player 1); under R both ends are draws. A correct search backs up each player's
    own result: player 1 finds the win under L, so player 0 prefers R."""
    spec = {(): ("move", 0, 2), (0,): ("move", 1, 2), (1,): ("move", 1, 2),
            (0, 0): ("end", win_loss(0, 1)), (0, 1): ("end", win_loss(1, 1)),
            (1, 0): ("end", [0, 0]), (1, 1): ("end", [0, 0])}
    mcts = MCTS(TreeGame(spec, 2), constant([0, 0]), MCTSConfig(simulations=400, c_uct=1.0), 3)
    result = mcts.search(())
    assert result.visits[1] > 3 * result.visits[0]
    left = mcts.root.children[0]
    assert left.player == 1 and left.n[1] > left.n[0]  # player 1 plays its win under L
    assert result.q[0] < -0.5 and result.q[1] == 0


def test_the_same_player_moving_twice_keeps_its_own_sign():
    """Player 0 moves, then player 0 again, and only (1, 1) wins. If the search flipped the sign at
    every ply (assuming alternation) it would avoid move 1; with per-player results it wins."""
    spec = {(): ("move", 0, 2), (0,): ("move", 0, 2), (1,): ("move", 0, 2),
            (0, 0): ("end", win_loss(0, -1)), (0, 1): ("end", win_loss(0, -1)),
            (1, 0): ("end", win_loss(0, -1)), (1, 1): ("end", win_loss(0, 1))}
    mcts = MCTS(TreeGame(spec, 2), constant([0, 0]), MCTSConfig(simulations=200, c_uct=1.0), 0)
    result = mcts.search(())
    assert result.visits[1] > 150 and result.q[1] > 0.5
    second = mcts.root.children[1]
    assert second.player == 0 and second.n[1] > second.n[0] and second.w[1] == second.n[1]


def test_rollouts_reach_the_end_and_score_for_the_chooser():
    """With random rollouts the leaf value is a real game result: player 0 wins after move 0 only if
    the random reply (by player 1) is 0. Q(0) converges to 0 (half the replies), Q(1) is -1."""
    spec = {(): ("move", 0, 2), (0,): ("move", 1, 2), (1,): ("end", win_loss(0, -1)),
            (0, 0): ("end", win_loss(0, 1)), (0, 1): ("end", win_loss(0, -1))}
    result = MCTS(TreeGame(spec, 2), RolloutEvaluator(), MCTSConfig(simulations=300, c_uct=0.5), 1).search(())
    assert result.q[1] == -1
    assert result.visits[0] > result.visits[1]


class PlayoutTreeGame(TreeGame):
    """TreeGame with the protocol's optional fast rollout: it walks the spec itself (no
    ``next_state``), drawing moves as ``random_playout`` does, and counts its calls."""

    def random_playout(self, state, rng):
        self.calls["random_playout"] = self.calls.get("random_playout", 0) + 1
        while not self.is_terminal(state):
            if self.is_chance(state):
                state = self.resolve_chance(state, rng)
            else:
                state = state + (int(rng.random() * self.spec[state][2]),)
        return self.returns(state)


def test_random_rollouts_use_the_games_random_playout_when_it_has_one():
    """``RolloutEvaluator(random_policy)`` hands the rollout to ``game.random_playout`` (no
    ``next_state`` call); ``playout=False``, another default policy, or a game without the method
    play move by move; seed for seed the results agree."""
    spec = {(): ("move", 0, 3), (0,): ("move", 1, 2), (1,): ("chance", 2), (2,): ("end", win_loss(0, -0.5)),
            (0, 0): ("end", win_loss(0, 1)), (0, 1): ("end", win_loss(0, -1)),
            (1, 0): ("end", [0, 0]), (1, 1): ("end", win_loss(0, 0.5))}
    fast_game, plain_game = PlayoutTreeGame(spec, 3), TreeGame(spec, 3)
    results = set()
    for seed in range(40):
        _, fast = RolloutEvaluator()(fast_game, (), np.random.default_rng(seed))
        _, stepwise = RolloutEvaluator(playout=False)(fast_game, (), np.random.default_rng(seed))
        _, plain = RolloutEvaluator()(plain_game, (), np.random.default_rng(seed))
        assert list(fast) == list(stepwise) == list(plain)
        results.add(tuple(fast))
    assert len(results) == 5  # every end is reached
    assert fast_game.calls == {"random_playout": 40, "next_state": plain_game.calls["next_state"]}
    uniform = EpsilonGreedyPolicy(lambda state: np.ones(3), epsilon=1.0)  # random, but not random_policy
    RolloutEvaluator(uniform)(fast_game, (), np.random.default_rng(0))
    assert fast_game.calls["random_playout"] == 40
    game = PlayoutTreeGame(spec, 3)
    MCTS(game, config=MCTSConfig(simulations=30), rng=0).search(())
    assert game.calls["random_playout"] == 2  # one per decision node added: the root and (0,)


# -- PUCT ----------------------------------------------------------------------------------------
def puct_score(w, n, prior, c_base, c_init, unvisited=0.0):
    total = 1 + n.sum()
    q = np.where(n > 0, w / np.maximum(n, 1), unvisited)
    rate = math.log((1 + total + c_base) / c_base) + c_init
    return q + rate * prior * math.sqrt(total) / (1 + n)


def test_puct_exact_counts_by_hand():
    """Two moves, equal priors 0.5, ends -1 (move 0) and +1 (move 1), c_init = 1, c_base huge so
    C(s) = 1. N(s) = 1: both U = 0.5, tie -> move 0 (-1). N(s) = 2: move 1 scores 0.5 sqrt 2 = 0.71
    against -1 + 0.35. From then on move 0 needs 0.25 sqrt(N) - 1 > 1 + ..., i.e. N > 64: ten
    simulations give [1, 9]."""
    spec = {(): ("move", 0, 2), (0,): ("end", win_loss(0, -1)), (1,): ("end", win_loss(0, 1))}
    config = MCTSConfig(simulations=10, tree_policy="puct", c_init=1.0, c_base=1e12)
    result = MCTS(TreeGame(spec, 2), constant([0, 0]), config, 0).search(())
    assert list(result.visits) == [1, 9]


def test_puct_scores_follow_the_formula_with_a_growing_c():
    """c_base = 3 makes C(s) = log((1 + N + c_base) / c_base) + c_init grow visibly; every step must
    pick the argmax of Q + C(s) P sqrt(N(s)) / (1 + N(s, a)), Q = 0 for untried moves."""
    values = [0.2, 0.6, -0.4, 0.0, 0.5]
    prior = np.array([0.1, 0.15, 0.4, 0.25, 0.1])
    spec = {(): ("move", 0, 5), **{(a,): ("end", win_loss(0, v)) for a, v in enumerate(values)}}
    config = MCTSConfig(simulations=1, tree_policy="puct", c_base=3.0, c_init=0.5)
    mcts = MCTS(TreeGame(spec, 5), constant([0, 0], prior * 7.0), config, 0)  # priors get normalised
    n, w = np.zeros(5), np.zeros(5)
    for step in range(80):
        expected = int(np.argmax(puct_score(w, n, prior, 3.0, 0.5)))
        visits = mcts.search(()).visits
        chosen = int(np.flatnonzero(visits - n)[0])
        assert chosen == expected, step
        n[chosen] += 1
        w[chosen] += values[chosen]
    np.testing.assert_allclose(mcts.root.prior, prior)


def test_priors_are_restricted_to_legal_moves_and_renormalised():
    spec = {(): ("move", 0, 2), (0,): ("end", [0, 0]), (1,): ("end", [0, 0])}
    prior = np.array([0.2, 0.2, 0.6])  # the third action is illegal here
    mcts = MCTS(TreeGame(spec, 3), constant([0, 0], prior), MCTSConfig(simulations=1, tree_policy="puct"), 0)
    mcts.search(())
    np.testing.assert_allclose(mcts.root.prior, [0.5, 0.5])


def test_dirichlet_noise_is_seeded_and_mixed_into_the_root_only():
    spec = {(): ("move", 0, 3), **{(a,): ("move", 1, 2) for a in range(3)},
            **{(a, b): ("end", [0, 0]) for a in range(3) for b in range(2)}}
    prior = np.array([0.5, 0.3, 0.2])
    config = MCTSConfig(simulations=30, tree_policy="puct", dirichlet_alpha=0.3, dirichlet_fraction=0.25)
    mcts = MCTS(TreeGame(spec, 3), constant([0, 0], prior), config, 42)
    first = mcts.search(())
    noise = np.random.default_rng(42).dirichlet([0.3] * 3)  # the search's first draw
    np.testing.assert_allclose(mcts.root.prior, 0.75 * prior + 0.25 * noise)
    np.testing.assert_allclose(mcts.root.clean_prior, prior)
    for child in mcts.root.children:
        np.testing.assert_allclose(child.prior, [0.625, 0.375])  # clean (prior[:2] renormalised)
    mcts.search(())  # reused root: fresh noise on the clean priors, not noise on noise
    np.testing.assert_allclose(mcts.root.clean_prior, prior)
    assert not np.allclose(mcts.root.prior, 0.75 * prior + 0.25 * noise)
    again = MCTS(TreeGame(spec, 3), constant([0, 0], prior), config, 42).search(())
    assert list(again.visits) == list(first.visits)


# -- chance ----------------------------------------------------------------------------------------
def test_chance_nodes_sample_outcomes_and_average_them():
    """Move 0 leads to a fair coin (+1 or -1 for player 0, after a forced move of player 1), move 1
    to a sure +0.5. The coin's two outcomes are held once each and followed with their odds, so
    Q(0) is near 0 and move 1 is preferred."""
    spec = {(): ("move", 0, 2), (0,): ("chance", 2), (1,): ("end", win_loss(0, 0.5)),
            (0, 0): ("move", 1, 1), (0, 1): ("move", 1, 1),
            (0, 0, 0): ("end", win_loss(0, 1)), (0, 1, 0): ("end", win_loss(0, -1))}
    game = TreeGame(spec, 2)
    mcts = MCTS(game, RolloutEvaluator(), MCTSConfig(simulations=2000, c_uct=2.0, chance_outcomes=2), 5)
    result = mcts.search(())
    coin = mcts.root.children[0]
    assert sorted(coin.children) == [(0, 0), (0, 1)]
    assert coin.visits == result.visits[0] > 50
    heads = coin.children[(0, 0)].visits / coin.visits
    assert 0.35 < heads < 0.65 and abs(result.q[0]) < 0.3 and result.q[1] == 0.5
    assert result.visits[1] > result.visits[0]
    capped = MCTS(game, RolloutEvaluator(), MCTSConfig(simulations=200, c_uct=2.0, chance_outcomes=1), 5)
    capped.search(())
    assert len(capped.root.children[0].children) == 1


def test_search_after_a_chance_step_reuses_the_sampled_outcome():
    spec = {(): ("move", 0, 1), (0,): ("chance", 2), (0, 0): ("move", 1, 2), (0, 1): ("move", 1, 2),
            **{(0, k, a): ("end", [0, 0]) for k in range(2) for a in range(2)}}
    mcts = MCTS(TreeGame(spec, 2), RolloutEvaluator(), MCTSConfig(simulations=40), 0)
    mcts.search(())
    mcts.advance(0)
    outcome = next(iter(mcts.root.children.values()))
    before = outcome.n.copy()
    result = mcts.search(outcome.state)
    assert mcts.root is outcome and result.visits.sum() == before.sum() + 40 and before.sum() > 0


def test_a_chance_node_is_a_leaf_with_no_outcomes_kept():
    """chance_outcomes = 0: the coin of the test above is valued by the evaluator before the draw (its
    values backed up for the chooser), never drawn from, and no outcome below it is searched."""
    spec = {(): ("move", 0, 2), (0,): ("chance", 2), (1,): ("end", win_loss(0, 0.5)),
            (0, 0): ("move", 1, 1), (0, 1): ("move", 1, 1),
            (0, 0, 0): ("end", win_loss(0, 1)), (0, 1, 0): ("end", win_loss(0, -1))}
    seen = []

    def evaluator(game, state, rng):
        seen.append(state)
        return None, np.array(win_loss(0, 0.8 if game.is_chance(state) else 0.0))

    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    config = MCTSConfig(simulations=30, tree_policy="puct", chance_outcomes=0)
    mcts = MCTS(TreeGame(spec, 2), evaluator, config, rng)
    result = mcts.search(())
    coin = mcts.root.children[0]
    assert coin.children == {} and list(coin.returns) == [0.8, -0.8]
    assert result.q[0] == pytest.approx(0.8) and result.visits[0] > result.visits[1]
    assert seen == [(), (0,)] and rng.bit_generator.state == before


def test_first_play_urgency_and_a_constant_exploration_rate():
    """fpu_reduction: an untried action's Q is the node's value less it; c_base = inf: C(s) = c_init. With
    value 0.4, reduction 0.1 and c_init 1, each simulation picks argmax Q + P sqrt(N(s)) / (1 + N(s, a)),
    Q = 0.3 untried; checked one simulation at a time."""
    values, prior = [0.5, -0.5, 0.2], np.array([0.2, 0.5, 0.3])
    spec = {(): ("move", 0, 3), **{(a,): ("end", win_loss(0, v)) for a, v in enumerate(values)}}
    config = MCTSConfig(simulations=1, tree_policy="puct", c_init=1.0, c_base=math.inf, fpu_reduction=0.1)
    mcts = MCTS(TreeGame(spec, 3), constant(win_loss(0, 0.4), prior), config, 0)
    n, w = np.zeros(3), np.zeros(3)
    for step in range(40):
        q = np.where(n > 0, w / np.maximum(n, 1), 0.4 - 0.1)
        expected = int(np.argmax(q + prior * math.sqrt(1 + n.sum()) / (1 + n)))
        visits = mcts.search(()).visits
        assert int(np.flatnonzero(visits - n)[0]) == expected, step
        n, w = visits.astype(float), w + (visits - n) * values
    assert n.min() >= 1 and int(np.argmax(n)) == 0


def test_a_time_limit_stops_the_search_early():
    spec = {(): ("move", 0, 2), (0,): ("end", [0, 0]), (1,): ("end", [0, 0])}

    def slow(game, state, rng):
        __import__("time").sleep(0.002)
        return None, np.zeros(2)

    spec.update({(0,): ("move", 1, 2), (1,): ("move", 1, 2),
                 **{(a, b): ("move", 0, 2) for a in range(2) for b in range(2)},
                 **{(a, b, c): ("end", [0, 0]) for a in range(2) for b in range(2) for c in range(2)}})
    # the tree's 7 decision nodes cost 2 ms each to evaluate, so 1 ms has passed at the first check (after 16
    # simulations) whatever the machine's speed: the search stops there (the rest would take microseconds)
    config = MCTSConfig(simulations=10_000, tree_policy="puct", time_limit=0.001)
    result = MCTS(TreeGame(spec, 2), slow, config, 0).search(())
    assert result.visits.sum() == 16
    with pytest.raises(ValueError, match="time_limit"):
        MCTSConfig(tree_policy="puct", root_policy="gumbel", time_limit=1.0)


# -- reuse and misc -------------------------------------------------------------------------------
def test_advance_keeps_the_subtree_and_its_counts():
    spec = {(): ("move", 0, 2), **{(a,): ("move", 1, 2) for a in range(2)},
            **{(a, b): ("end", win_loss(0, 1 if a == b else -1)) for a in range(2) for b in range(2)}}
    game = TreeGame(spec, 2)
    mcts = MCTS(game, RolloutEvaluator(), MCTSConfig(simulations=50), 0)
    mcts.search(())
    child = mcts.root.children[1]
    kept = child.n.copy()
    mcts.advance(1)
    assert mcts.root is child
    result = mcts.search((1,))
    assert mcts.root is child and result.visits.sum() == kept.sum() + 50 and result.player == 1
    mcts.search((0,))  # not the kept position: a fresh tree
    assert mcts.root is not child and mcts.root.n.sum() == 50
    mcts.advance(0)
    mcts.reset()
    assert mcts.root is None


def test_search_refuses_a_finished_game_and_bad_settings():
    spec = {(): ("end", [1, -1])}
    with pytest.raises(ValueError, match="a player chooses"):
        MCTS(TreeGame(spec, 1)).search(())
    with pytest.raises(ValueError, match="tree_policy"):
        MCTSConfig(tree_policy="minimax")
    with pytest.raises(ValueError, match="at least 1"):
        MCTSConfig(simulations=0)


def test_network_evaluator_turns_a_mover_value_into_per_player_values():
    spec = {(): ("move", 1, 2), (0,): ("end", [0, 0]), (1,): ("end", [0, 0])}
    game = TreeGame(spec, 2)
    prior, values = NetworkEvaluator(lambda s: (np.array([0.9, 0.1]), 0.25))(game, (), None)
    assert list(values) == [-0.25, 0.25] and list(prior) == [0.9, 0.1]
    _, values = NetworkEvaluator(lambda s: (None, [0.1, 0.3]))(game, (), None)
    assert list(values) == [0.1, 0.3]
    with pytest.raises(ValueError, match="shape"):
        NetworkEvaluator(lambda s: (None, [0.1, 0.3, 0.0]))(game, (), None)


def test_epsilon_greedy_rollout_policy():
    spec = {(): ("move", 0, 3)}
    game = TreeGame(spec, 4)
    distribution = lambda state: np.array([0.1, 0.2, 0.3, 0.4])  # action 3 is illegal
    greedy = EpsilonGreedyPolicy(distribution, epsilon=0.0)
    assert {greedy(game, (), np.random.default_rng(s)) for s in range(20)} == {2}
    explore = EpsilonGreedyPolicy(distribution, epsilon=1.0)
    picks = {explore(game, (), np.random.default_rng(s)) for s in range(50)}
    assert picks == {0, 1, 2}
    with pytest.raises(ValueError, match="epsilon"):
        EpsilonGreedyPolicy(distribution, epsilon=1.5)


def test_visit_distribution():
    np.testing.assert_allclose(visit_distribution([0, 1, 3]), [0, 0.25, 0.75])
    np.testing.assert_allclose(visit_distribution([2, 2, 1], temperature=0), [1, 0, 0])
    np.testing.assert_allclose(visit_distribution([1, 2], temperature=0.5), [0.2, 0.8])
    with pytest.raises(ValueError):
        visit_distribution([0, 0])


def test_the_same_seed_gives_the_same_search():
    from azcourse.hex.game import Hex

    game = Hex(4)
    runs = [MCTS(game, config=MCTSConfig(simulations=200), rng=9).search(game.initial_state()).visits for _ in range(2)]
    assert list(runs[0]) == list(runs[1])


# -- no game inside the search ---------------------------------------------------------------------
GAME_WORDS = {"tictactoe", "tic", "tac", "toe", "hex", "azul", "azul_simulator", "board", "boards", "stone",
              "stones", "cell", "cells", "noop", "factory", "factories", "tile", "tiles", "square", "squares",
              "othello", "tak", "row", "column", "seat", "x", "o"}


@pytest.mark.parametrize("module", ["mcts.py", "gumbel.py", "evaluators.py"])
def test_the_search_names_no_game(module):
    """Neither the search nor its leaf evaluators import, name or mention a game: every identifier,
    attribute, string and comment word is free of game vocabulary, and imports are generic."""
    source = (ROOT / "azcourse" / "core" / module).read_text()
    tree = ast.parse(source)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
    generic = {"__future__", "dataclasses", "math", "sys", "time", "typing", "numpy", ".evaluators", ".gumbel"}
    assert imported <= generic, imported
    words = {w.lower() for w in __import__("re").findall(r"[A-Za-z_]+", source)}
    words |= {part for w in words for part in w.split("_")}
    assert not words & GAME_WORDS, words & GAME_WORDS
