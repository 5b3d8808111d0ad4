"""The Gumbel root policy of the generic MCTS (``MCTSConfig(root_policy="gumbel")``): sequential halving's
schedule, Gumbel-Top-k, the completed-Q policy target, chance nodes, and the same chosen action, root visits
and policy target as DeepMind's mctx (``gumbel_muzero_policy``, the reference) on random trees.

The trees are games written here through the protocol only (``RandomTree``); mctx searches the same tree
through a ``recurrent_fn`` that reads the same tables (per-player values, discount -1 between the two
players and +1 when a player moves twice, a terminal's result as the reward of the move into it, discount 0
after it), and the pack's search is given mctx's own Gumbel draw. mctx runs in float64 (``jax.enable_x64``)
so that both compute the same numbers; it is a developer requirement, and the comparison is skipped without it.
"""
import functools

import numpy as np
import pytest

from azcourse.core.gumbel import completed_q, considered_visits
from azcourse.core.mcts import MCTS, MCTSConfig, visit_distribution

A = 6  # the action space of every tree


class RandomTree:
    """A two-player game given as a random explicit tree of ``nodes`` states (a state is its index; the root
    is 0). Tables: ``player`` (who chooses), ``legal`` bool ``(n, A)``, ``child`` int ``(n, A)`` (-1 where
    illegal), ``terminal`` bool, ``result`` float (player 0's result at a terminal; player 1 gets its
    negative), ``prior`` float ``(n, A)`` (normalised over the legal actions), ``value`` float (the
    evaluator's value for player 0). The same player may move twice; a node's actions may all be legal."""

    name = "random tree"
    num_players = 2
    encoding_shape = (1,)
    action_space_size = A

    def __init__(self, seed: int, depth: int = 4):
        rng = np.random.default_rng(seed)
        self.player, self.legal, self.child, self.terminal, self.result, self.prior, self.value = \
            [], [], [], [], [], [], []
        frontier = [(self._add(rng, 0), 0)]
        while frontier:
            node, level = frontier.pop()
            if level == depth or (level > 0 and rng.random() < 0.2):
                self.terminal[node] = True
                self.result[node] = float(rng.choice([-1.0, 0.0, 1.0, rng.uniform(-1, 1)]))
                continue
            k = int(rng.integers(1, A + 1)) if level > 0 else int(rng.integers(3, A + 1))
            actions = np.sort(rng.choice(A, k, replace=False))
            prior = rng.dirichlet(np.full(k, 0.7))
            self.legal[node][actions] = True
            self.prior[node][actions] = prior / prior.sum()
            for a in actions:
                self.child[node][a] = self._add(rng, level + 1)
                frontier.append((self.child[node][a], level + 1))
        self.player, self.terminal, self.result, self.value = (np.array(t) for t in
                                                               (self.player, self.terminal, self.result, self.value))
        self.legal, self.child, self.prior = np.array(self.legal), np.array(self.child), np.array(self.prior)

    def _add(self, rng, level) -> int:
        self.player.append(int(rng.integers(2)))
        self.legal.append(np.zeros(A, bool))
        self.child.append(np.full(A, -1))
        self.terminal.append(False)
        self.result.append(0.0)
        self.prior.append(np.zeros(A))
        self.value.append(float(rng.uniform(-1, 1)))
        return len(self.player) - 1

    def initial_state(self, rng=None):
        return 0

    def to_move(self, state):
        return int(self.player[state])

    def legal_mask(self, state):
        return self.legal[state].copy()

    def next_state(self, state, action):
        if not self.legal[state][action]:
            raise ValueError("illegal action")
        return int(self.child[state][action])

    def is_terminal(self, state):
        return bool(self.terminal[state])

    def returns(self, state):
        return np.array([self.result[state], -self.result[state]])

    def is_chance(self, state):
        return False

    def state_key(self, state):
        return state

    def encode(self, state):
        return np.zeros(1, np.float32)

    def evaluate(self, game, state, rng):
        """The evaluator: the tree's prior and value (player 0's, the other player its negative)."""
        return self.prior[state], np.array([self.value[state], -self.value[state]])


def gumbel_search(tree, simulations, considered, **settings):
    config = MCTSConfig(simulations=simulations, tree_policy="puct", root_policy="gumbel",
                        max_considered_actions=considered, **settings)
    return MCTS(tree, tree.evaluate, config, 0)


# -- the pieces, by hand ------------------------------------------------------------------------------------------
def test_sequential_halving_schedule_by_hand():
    # 16 actions, 32 simulations: log2 16 = 4 phases; 32 // (4 * 16) = 0 -> one visit each; then 8 actions,
    # 32 // (4 * 8) = 1 visit each; then 4 actions, 32 // 16 = 2 visits each
    assert considered_visits(16, 32) == (0,) * 16 + (1,) * 8 + (2,) * 4 + (3,) * 4
    # 3 actions, 10 simulations: 2 phases, 10 // 6 = 1 visit each, then 2 actions until the budget is spent
    assert considered_visits(3, 10) == (0, 0, 0, 1, 1, 2, 2, 3, 3, 4)
    assert considered_visits(1, 4) == (0, 1, 2, 3) and considered_visits(4, 2) == (0, 0)


def test_the_first_simulations_visit_the_top_k_of_gumbel_plus_logits():
    for seed in range(5):
        tree = RandomTree(seed)
        k = int(tree.legal[0].sum())
        m = min(3, k)
        noise = np.random.default_rng(seed).gumbel(size=A)
        result = gumbel_search(tree, m, m).search(0, gumbel=noise)
        score = np.where(tree.legal[0], noise + np.log(np.where(tree.legal[0], tree.prior[0], 1)), -np.inf)
        assert set(np.flatnonzero(result.visits)) == set(np.argsort(-score)[:m])
        assert result.visits.sum() == m and result.visits.max() == 1


def test_the_policy_target_is_the_softmax_of_logits_plus_sigma_of_completed_q():
    """One level of terminal children: Q of a visited action is its result; an unvisited one gets the mixed
    value (v + sum N * sum_visited P Q / sum_visited P) / (1 + sum N); the range includes the mixed value
    (an illegal action counts as unvisited); sigma = (50 + max N) * 0.1 * normalised Q."""
    game = RandomTree(0, depth=1)
    game.legal[0] = [True, True, True, True, False, False]
    game.prior[0] = [0.4, 0.3, 0.2, 0.1, 0, 0]
    game.result[game.child[0][:4]] = [0.5, -1.0, 1.0, 0.2]
    game.value[0] = 0.3 if game.player[0] == 0 else -0.3
    search = gumbel_search(game, 3, 3)
    result = search.search(0, gumbel=np.array([0.0, 0.0, 0.0, 5.0, 0.0, 0.0]))
    sign = 1 if game.player[0] == 0 else -1
    q = sign * np.array([0.5, -1.0, 1.0, 0.2])
    visited = np.array([1, 1, 0, 1])  # Top-3 of g + logits: actions 3 (g = 5), 0 and 1
    assert list(result.visits[:4]) == list(visited)
    p = np.array([0.4, 0.3, 0.2, 0.1])
    mixed = (0.3 + 3 * np.sum(visited * p * q) / np.sum(visited * p)) / 4
    completed = np.where(visited > 0, q, mixed)
    low, high = completed.min(), completed.max()
    normalised = (completed - low) / (high - low)
    root = search.root
    assert completed_q(root.counts, root.totals, root.weights, root.value, A) == pytest.approx(list(normalised))
    improved = np.exp(np.log(p) + 51 * 0.1 * normalised)
    np.testing.assert_allclose(result.policy[:4], improved / improved.sum(), rtol=1e-12)
    assert result.policy[4:].sum() == 0
    best = np.flatnonzero(visited)[np.argmax((np.array([0, 0, 0, 5.0]) + np.log(p) + 5.1 * normalised)[visited > 0])]
    assert result.action == best


def test_puct_results_carry_the_visit_distribution_and_the_most_visited_action():
    game = RandomTree(1)
    result = MCTS(game, game.evaluate, MCTSConfig(simulations=30, tree_policy="puct"), 0).search(0)
    np.testing.assert_array_equal(result.policy, visit_distribution(result.visits, 1.0))
    assert result.action == int(np.argmax(result.visits))


def test_the_gumbel_search_draws_its_noise_from_its_generator_and_is_repeatable():
    game = RandomTree(2)
    one, two = gumbel_search(game, 16, 4).search(0), gumbel_search(game, 16, 4).search(0)
    np.testing.assert_array_equal(one.visits, two.visits)
    np.testing.assert_array_equal(one.policy, two.policy)
    actions = {MCTS(game, game.evaluate, MCTSConfig(simulations=1, tree_policy="puct", root_policy="gumbel"),
                    seed).search(0).action for seed in range(40)}
    assert len(actions) > 1  # the Gumbel noise samples the move
    greedy = {MCTS(game, game.evaluate, MCTSConfig(simulations=1, tree_policy="puct", root_policy="gumbel",
                                                   gumbel_scale=0.0), seed).search(0).action for seed in range(5)}
    assert greedy == {int(np.argmax(game.prior[0]))}


def test_settings_that_gumbel_cannot_take_are_refused():
    with pytest.raises(ValueError, match="tree_policy 'puct' and no Dirichlet noise"):
        MCTSConfig(tree_policy="uct", root_policy="gumbel")
    with pytest.raises(ValueError, match="no Dirichlet noise"):
        MCTSConfig(tree_policy="puct", root_policy="gumbel", dirichlet_alpha=0.3)
    with pytest.raises(ValueError, match="root_policy is 'puct' or 'gumbel'"):
        MCTSConfig(root_policy="sampled")
    with pytest.raises(ValueError, match="max_considered_actions"):
        MCTSConfig(tree_policy="puct", root_policy="gumbel", max_considered_actions=0)


class ChanceTree:
    """Player 0 picks 0 or 1; after 0 a die of three faces; then player 1 picks, then the end: player 0
    wins after (0, face, 0) and (1, 1); every other end is a loss."""

    name, num_players, encoding_shape, action_space_size = "chance tree", 2, (1,), 2

    def initial_state(self, rng=None):
        return ()

    def to_move(self, state):
        return 0 if state == () else 1

    def legal_mask(self, state):
        return np.array([not self.is_terminal(state) and not self.is_chance(state)] * 2)

    def next_state(self, state, action):
        return state + (int(action),)

    def is_chance(self, state):
        return state == (0,)

    def resolve_chance(self, state, rng):
        return state + (int(rng.integers(3)),)

    def is_terminal(self, state):
        return len(state) == (3 if state[:1] == (0,) else 2)

    def returns(self, state):
        win = (state[0] == 0 and state[-1] == 0) or state == (1, 1)
        return np.array([1.0, -1.0]) if win else np.array([-1.0, 1.0])

    def state_key(self, state):
        return state

    def encode(self, state):
        return np.zeros(1, np.float32)


def test_chance_nodes_are_passed_through_in_a_gumbel_search():
    """After move 0 player 1 must pick 1 (0 loses for it) whatever the die; after move 1 it picks 0. Both
    root moves lose against good replies: the completed Q of both ends near -1, and the search runs through
    the chance node, whose outcomes all get visits."""
    game = ChanceTree()
    evaluate = lambda game_, state, rng: (np.full(2, 0.5), np.zeros(2))  # noqa: E731
    search = MCTS(game, evaluate, MCTSConfig(simulations=64, tree_policy="puct", root_policy="gumbel"), 0)
    result = search.search(())
    assert result.visits.sum() == 64 and result.policy.sum() == pytest.approx(1.0)
    chance = search.root.children[0]
    assert chance.kind == 1 and len(chance.children) == 3
    assert all(face.counts[1] > face.counts[0] for face in chance.children.values())
    assert result.q[0] < -0.5 and result.q[1] < -0.5


# -- the same as mctx ----------------------------------------------------------------------------------------------
def mctx_search(trees, simulations, considered, seed):
    """mctx's ``gumbel_muzero_policy`` on ``trees`` (one batch row each, the root at state 0), in float64.
    Returns ``(action (B,), action_weights (B, A), root gumbel (B, A), visits)``, ``visits`` a dict per tree:
    state -> ``N(s, a)`` ``(A,)`` of every decision node of mctx's tree."""
    mctx = pytest.importorskip("mctx", reason="mctx is a developer requirement (pip install -r requirements-dev.txt)")
    import jax
    import jax.numpy as jnp

    offsets = np.cumsum([0] + [len(t.player) for t in trees])
    sink = offsets[-1]  # below a terminal: a terminal that leads to itself
    cat = lambda name: np.concatenate([getattr(t, name) for t in trees])  # noqa: E731
    player = np.append(cat("player"), 0)
    terminal = np.append(cat("terminal"), True)
    result = np.append(cat("result"), 0.0)
    child = np.concatenate([np.where(t.child >= 0, t.child + o, sink) for t, o in zip(trees, offsets)] + [[[sink] * A]])
    child[terminal] = sink
    legal = np.concatenate([cat("legal"), np.ones((1, A), bool)])
    logits = np.where(legal, np.log(np.where(legal, np.concatenate([cat("prior"), np.ones((1, A))]), 1)), -1e30)
    own = np.where(player == 0, 1.0, -1.0)
    value = np.where(terminal, 0.0, own * np.append(cat("value"), 0.0))  # for the player to move there
    with jax.enable_x64(True):
        tables = {k: jnp.asarray(v) for k, v in dict(player=player, terminal=terminal, result=result, child=child,
                                                   logits=logits, value=value, own=own).items()}

        def recurrent_fn(params, rng_key, action, embedding):
            t = params
            nxt = t["child"][embedding, action]
            after_end = t["terminal"][embedding]
            reward = jnp.where(after_end | ~t["terminal"][nxt], 0.0, t["own"][embedding] * t["result"][nxt])
            same = t["player"][nxt] == t["player"][embedding]
            discount = jnp.where(after_end | t["terminal"][nxt], 0.0, jnp.where(same, 1.0, -1.0))
            return mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=t["logits"][nxt],
                                          value=t["value"][nxt]), nxt

        roots = jnp.asarray(offsets[:-1])
        root = mctx.RootFnOutput(prior_logits=tables["logits"][roots], value=tables["value"][roots], embedding=roots)
        policy = jax.jit(functools.partial(mctx.gumbel_muzero_policy, recurrent_fn=recurrent_fn,
                                           num_simulations=simulations, max_num_considered_actions=considered))
        out = policy(tables, jax.random.PRNGKey(seed), root, invalid_actions=~jnp.asarray(legal)[roots])
        tree = out.search_tree
        states, counts = np.asarray(tree.embeddings), np.asarray(tree.children_visits)
        visits = [{int(s - offsets[b]): counts[b, node] for node, s in enumerate(states[b])
                   if np.asarray(tree.node_visits)[b, node] > 0 and not terminal[s]} for b in range(len(trees))]
        return np.asarray(out.action), np.asarray(out.action_weights), np.asarray(tree.extra_data.root_gumbel), visits


def tree_visits(node, out=None) -> dict:
    """state -> ``N(s, a)`` ``(A,)`` of every decision node below ``node`` (the pack's tree)."""
    out = {} if out is None else out
    if node is not None and node.kind == 0:
        out[node.state] = np.zeros(A, np.int64)
        out[node.state][node.actions] = node.n
        for child in node.children:
            tree_visits(child, out)
    return out


# each budget compiles mctx's search anew (about 5 s of CPU): one in the quick tier, the others slow
@pytest.mark.parametrize("simulations, considered", [(50, 16), *[pytest.param(*case, marks=pytest.mark.slow) for case in
                                                                 [(1, 16), (4, 2), (8, 4), (16, 16), (32, 3), (50, 1)]]])
def test_the_chosen_action_visits_and_policy_target_equal_mctx(simulations, considered):
    trees = [RandomTree(100 * simulations + considered + i, depth=5) for i in range(24)]
    """Every decision node's visit counts (so the root's sequential halving and every choice below it), the
    chosen action and the policy target, on 24 random trees a budget. (Each of these changes to the search
    makes at least one of the 24 trees differ, at 50 simulations and at 32 with m = 3: leaving the mixed value out of the
    min-max range, completing Q with the raw value, ``N / (2 + sum N)`` below the root, ``sum N`` for
    ``max N`` in sigma.)"""
    actions, weights, noise, visits = mctx_search(trees, simulations, considered, seed=simulations)
    for i, tree in enumerate(trees):
        search = gumbel_search(tree, simulations, considered)
        result = search.search(0, gumbel=noise[i])
        ours = tree_visits(search.root)
        assert ours.keys() == visits[i].keys(), f"tree {i}: the nodes in the tree"
        for state, counts in ours.items():
            np.testing.assert_array_equal(counts, visits[i][state], err_msg=f"tree {i}, state {state}")
        assert result.action == actions[i], f"tree {i}"
        np.testing.assert_allclose(result.policy, weights[i], rtol=1e-9, atol=1e-12, err_msg=f"tree {i}")
