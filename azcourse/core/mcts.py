"""One generic Monte Carlo tree search for every game of the game layer.

It talks to a game only through ``azcourse.core.protocol``: it never names a game, and it never
assumes that turns alternate or that values flip sign between plies.

The tree
    A *decision node* holds a state where ``game.to_move`` chooses; for each legal action ``a`` it
    keeps a visit count ``N(s, a)``, a total ``W(s, a)`` of backed-up results **of the player who
    chooses at s**, and a prior ``P(s, a)``. ``N(s) = 1 + sum_a N(s, a)``: the evaluation that
    created the node counts as its first visit. A *chance node* holds a state where nature moves;
    every pass through it draws an outcome with ``game.resolve_chance`` and follows it if the node
    already holds it (same ``state_key``), adds it while the node holds fewer than
    ``chance_outcomes`` outcomes, and otherwise follows a held outcome picked uniformly. So a game
    with few outcomes is sampled with their true odds, and one with countless outcomes (a shuffled
    bag) keeps a bounded sample. With ``chance_outcomes = 0`` a chance node is a leaf instead: the
    evaluator values the state before the draw, and the search never looks past it (for a game whose
    draw settles little that the evaluator cannot see, and has countless outcomes). A *terminal node* holds
    ``game.returns``.
One simulation (one "search game")
    From the root, the tree policy picks actions down to an action whose child is not in the tree
    yet; that child is added and evaluated by the leaf evaluator (a rollout to the end of the game,
    or a network; see ``azcourse.core.evaluators``), which gives one result per player. Going back
    up, every decision node on the path adds 1 to ``N(s, a)`` and adds the result **of its own
    chooser** to ``W(s, a)``.
Tree policies (``MCTSConfig.tree_policy``)
    ``"uct"``: untried actions first, in a random order (one Fisher-Yates step, one draw, per
    try, so a node draws only for the actions it tries); then the action that maximises
    ``Q(s, a) + c_uct * sqrt(ln N(s) / N(s, a))``, ``Q = W / N``.
    ``"puct"``: the action that maximises ``Q(s, a) + C(s) P(s, a) sqrt(N(s)) / (1 + N(s, a))`` with
    ``C(s) = log((1 + N(s) + c_base) / c_base) + c_init`` (``c_base = inf``: the constant ``c_init``)
    and ``Q = unvisited_value`` for an untried action, or with ``fpu_reduction`` the node's own value
    less that reduction (first-play urgency). With ``dirichlet_alpha > 0`` the root's priors become
    ``(1 - dirichlet_fraction) P + dirichlet_fraction * Dirichlet(alpha)`` at every ``search`` call.
    Ties go to the lowest action index.
Root policies (``MCTSConfig.root_policy``)
    ``"puct"``: the root picks by the tree policy like any other node (the default: AlphaZero's search,
    or UCT's). ``"gumbel"`` (tree policy ``"puct"``, no Dirichlet noise): Gumbel AlphaZero (Danihelka et
    al., ICLR 2022), as DeepMind's mctx implements it (``gumbel_muzero_policy``). Every search starts a
    new tree. The root draws Gumbel noise ``g(a)`` for its k legal actions and spends the simulations by
    sequential halving (``considered_visits``): each simulation the root picks, among the actions whose
    ``N(root, a)`` equals the schedule's next count, the one with the largest
    ``g(a) + logits(a) + sigma(a)``; so the first ``m = min(max_considered_actions, k)`` simulations
    visit the m actions of largest ``g + logits`` (Gumbel-Top-k), then the budget is halved among the
    best of them, round after round. Below the root, a decision node picks deterministically the action
    that maximises ``pi'(a) - N(s, a) / (1 + sum_b N(s, b))``, with the improved policy
    ``pi' = softmax(logits + sigma)``. Here ``logits = log P`` over the legal actions (P clipped at the
    smallest positive float), and ``sigma = (c_visit + max_b N(s, b)) c_scale q`` with ``q`` the
    *completed* Q of the chooser (``completed_q``): ``W / N`` of a visited action, the mixed value of an
    unvisited one, min-max normalised over the node's actions. The result's ``action`` is the one that
    maximises ``g + logits + sigma`` among the most visited actions, and its ``policy`` the improved policy
    at the root, the policy target of Gumbel AlphaZero.
Reusing the tree
    ``advance(action)`` keeps the chosen child's subtree (its counts included) and drops the rest, as
    the pseudocode of on-policy MCTS does between actual moves. The next ``search(state)`` starts from it when it holds
    ``state`` (compared by ``game.state_key``), or from one of its sampled outcomes when it is a
    chance node; otherwise it starts a new tree. (A Gumbel search always starts a new tree.)
Randomness
    All draws (untried-action order, chance outcomes, rollouts, noise, Gumbel) come from one
    ``numpy.random.Generator``, so a seeded search is repeatable (with a ``time_limit``, only as far as
    the clock lets it run).
Speed
    A decision node keeps ``N``, ``W`` and its legal actions in Python lists and the tree policy is a
    plain loop over them: for the few dozen actions of a node that is faster than numpy's per-call
    cost. With random rollouts most of the time is the rollout, which a game can shorten with the
    protocol's optional ``random_playout`` (see ``azcourse.core.evaluators.RolloutEvaluator``).
"""
from __future__ import annotations

import dataclasses
import math
import time
from typing import NamedTuple

import numpy as np

from .evaluators import RolloutEvaluator

DECISION, CHANCE, TERMINAL = 0, 1, 2
TINY = float(np.finfo(np.float64).tiny)  # the floor of a prior before its log (Gumbel logits)
Q_EPSILON = 1e-8  # the least range of the min-max normalisation of completed Q (mctx's epsilon)


@dataclasses.dataclass
class MCTSConfig:
    """Search settings.

    Attributes:
        simulations: simulations (search games) per ``search`` call.
        tree_policy: ``"uct"`` or ``"puct"``.
        c_uct: UCT exploration constant (sqrt(2) is the textbook value for results in [0, 1]).
        c_base, c_init: PUCT's growing exploration rate ``C(s)`` (``c_base = math.inf``: constant ``c_init``).
        unvisited_value: PUCT's ``Q`` of an untried action.
        fpu_reduction: None, or PUCT's ``Q`` of an untried action is the evaluator's value of its node,
            for the chooser, less this (first-play urgency; ``unvisited_value`` is then unused).
        dirichlet_alpha: root noise concentration for PUCT (0 turns the noise off).
        dirichlet_fraction: weight of the noise in the root priors.
        chance_outcomes: outcomes kept per chance node; 0: a chance node is a leaf that the evaluator
            values (it must accept chance states).
        root_policy: ``"puct"`` (the root picks by the tree policy) or ``"gumbel"`` (Gumbel AlphaZero;
            needs tree policy ``"puct"`` and no Dirichlet noise).
        max_considered_actions: Gumbel: the most root actions sequential halving considers.
        gumbel_scale: Gumbel: the noise's scale (0: no noise, the search plays its best action).
        c_visit, c_scale: Gumbel: ``sigma = (c_visit + max N) c_scale q`` (mctx's ``maxvisit_init`` and
            ``value_scale``).
        time_limit: None, or seconds after which ``search`` stops early (checked every 16 simulations;
            PUCT or UCT root only: sequential halving plans the whole budget).
    """

    simulations: int = 500
    tree_policy: str = "uct"
    c_uct: float = math.sqrt(2)
    c_base: float = 19652.0
    c_init: float = 1.25
    unvisited_value: float = 0.0
    fpu_reduction: float | None = None
    dirichlet_alpha: float = 0.0
    dirichlet_fraction: float = 0.25
    chance_outcomes: int = 8
    root_policy: str = "puct"
    max_considered_actions: int = 16
    gumbel_scale: float = 1.0
    c_visit: float = 50.0
    c_scale: float = 0.1
    time_limit: float | None = None

    def __post_init__(self):
        if self.tree_policy not in ("uct", "puct"):
            raise ValueError(f"tree_policy is 'uct' or 'puct', got {self.tree_policy!r}")
        if self.root_policy not in ("puct", "gumbel"):
            raise ValueError(f"root_policy is 'puct' or 'gumbel', got {self.root_policy!r}")
        if self.root_policy == "gumbel" and (self.tree_policy != "puct" or self.dirichlet_alpha > 0):
            raise ValueError("the Gumbel root policy needs tree_policy 'puct' and no Dirichlet noise (dirichlet_alpha 0)")
        if self.simulations < 1 or self.max_considered_actions < 1 or self.chance_outcomes < 0:
            raise ValueError("simulations and max_considered_actions must be at least 1, chance_outcomes at least 0")
        if self.time_limit is not None and (self.time_limit <= 0 or self.root_policy == "gumbel"):
            raise ValueError("time_limit must be positive, and the Gumbel root policy takes none (it plans its budget)")
        if self.gumbel_scale < 0:
            raise ValueError("gumbel_scale must be 0 or more")


def puct_exploration_rate(visits: int, c_init: float, c_base: float) -> float:
    """PUCT's growing exploration rate ``C(s) = log((1 + N(s) + c_base) / c_base) + c_init`` (``c_init`` when
    ``c_base`` is infinite)."""
    return c_init if c_base == math.inf else math.log((1 + visits + c_base) / c_base) + c_init


def considered_visits(considered: int, simulations: int) -> tuple:
    """Sequential halving's schedule at a Gumbel root: the visit count that simulation ``i`` gives to the
    next considered action (one entry per simulation), as mctx's ``get_sequence_of_considered_visits``.

    ``considered`` actions get one visit each, round after round, for ``simulations // (ceil(log2
    considered) * considered)`` rounds (at least one); then the considered actions are halved (at least
    two remain), and so on until the budget is spent. One considered action takes every simulation.
    """
    if considered <= 1:
        return tuple(range(simulations))
    phases = math.ceil(math.log2(considered))
    schedule, visits = [], 0
    while len(schedule) < simulations:
        for _ in range(max(1, simulations // (phases * considered))):
            schedule += [visits] * considered
            visits += 1
        considered = max(2, considered // 2)
    return tuple(schedule[:simulations])


class SearchResult(NamedTuple):
    """What ``MCTS.search`` returns.

    Attributes:
        visits: int64 ``(A,)``: ``N(root, a)``, zero for illegal and untried actions.
        q: float64 ``(A,)``: ``W / N`` of each tried action, for the player to move at the root.
        player: the player to move at the root.
        policy: float64 ``(A,)``: the search policy, zero on illegal actions: the visit distribution
            (``visit_distribution(visits, 1)``), or with the Gumbel root policy the improved policy
            ``softmax(logits + sigma)`` at the root.
        action: the search's move: the most visited action (lowest index on ties), or with the Gumbel
            root policy the best of the most visited by ``g + logits + sigma``.
    """

    visits: np.ndarray
    q: np.ndarray
    player: int
    policy: np.ndarray
    action: int


class Node:
    """One node of the tree (see the module docstring). A decision node keeps its statistics in
    Python lists, one entry per legal action (cheaper than numpy for a few dozen entries);
    ``n`` and ``w`` give them as arrays.

    Attributes:
        state: the game state; kind: ``DECISION``, ``CHANCE`` or ``TERMINAL``.
        visits: ``N(s)`` (decision node: 1 + the sum of ``n``; chance node: passes through it).
        player: the player who chooses (decision node).
        actions: list of the k legal actions, increasing (decision node).
        prior: float64 ``(k,)`` ``P(s, a)``, or None for uniform (no prior from the evaluator);
            weights: the same as a Python list (what the tree policy reads); clean_prior: the root's
            prior before Dirichlet noise.
        children: list of k child nodes, None where not in the tree (decision node); dict
            ``state_key -> node`` of the held outcomes (chance node).
        order, tried: indices into ``actions``, the first ``tried`` of them in the order UCT tried
            them, the rest not yet tried (shuffled one step per try).
        value: the evaluator's value of the state for the chooser (decision node).
        logits: list of k floats, ``log P`` (``logits``, kept once computed), or None.
        gumbel: list of k floats, the Gumbel noise of the actions (the root of a Gumbel search), or None.
        returns: float64 ``(num_players,)``: ``game.returns`` (terminal node), or the evaluator's values (a
            chance node that is a leaf, ``chance_outcomes = 0``).
    """

    __slots__ = ("state", "kind", "player", "actions", "prior", "weights", "clean_prior", "counts", "totals", "children",
                 "visits", "order", "tried", "value", "logits", "gumbel", "returns")

    def __init__(self, state, kind):
        self.state, self.kind, self.visits = state, kind, 1
        self.clean_prior = self.logits = self.gumbel = None

    @property
    def n(self) -> np.ndarray:
        """int64 ``(k,)``: ``N(s, a)`` of each legal action (a copy)."""
        return np.array(self.counts, dtype=np.int64)

    @property
    def w(self) -> np.ndarray:
        """float64 ``(k,)``: ``W(s, a)``, the summed results of the chooser (a copy)."""
        return np.array(self.totals, dtype=np.float64)


class MCTS:
    """Monte Carlo tree search over any game of the game layer.

    Args:
        game: the game (``azcourse.core.protocol.Game``).
        evaluator: leaf evaluator (default: rollouts with uniformly random moves).
        config: ``MCTSConfig``.
        rng: ``numpy.random.Generator`` or a seed.
    """

    def __init__(self, game, evaluator=None, config: MCTSConfig | None = None, rng=None):
        self.game = game
        self.evaluator = evaluator if evaluator is not None else RolloutEvaluator()
        self.config = config or MCTSConfig()
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.root: Node | None = None
        self.schedule: tuple = ()  # a Gumbel search's sequential-halving schedule (``considered_visits``)

    # -- nodes -------------------------------------------------------------------------------------
    def _new_node(self, state):
        """A node for ``state`` and its evaluation (per-player values as a list; None for a chance
        node), as a generator: a decision node yields its state once and is sent the evaluator's
        ``(prior, values)`` for it (``search`` sends ``evaluator(game, state, rng)``; a batched
        driver sends its entry of a batched evaluation). Use as ``node, values = yield from self._new_node(state)``."""
        game = self.game
        if game.is_terminal(state):
            node = Node(state, TERMINAL)
            node.returns = np.asarray(game.returns(state), dtype=np.float64)
            return node, node.returns.tolist()
        if game.is_chance(state):
            node = Node(state, CHANCE)
            node.visits, node.children = 0, {}  # state_key -> node of each held outcome
            if self.config.chance_outcomes:
                return node, None
            _, values = yield state  # a leaf: valued before the draw
            node.returns = np.asarray(values, dtype=np.float64)
            return node, node.returns.tolist()
        node = Node(state, DECISION)
        node.player = game.to_move(state)
        node.actions = actions = np.flatnonzero(game.legal_mask(state)).tolist()
        k = len(actions)
        if k == 0:
            raise ValueError(f"{getattr(game, 'name', 'the game')}: a decision state without legal actions "
                             "(the game must report it as terminal or chance)")
        prior, values = yield state
        if prior is not None:
            p = np.asarray(prior, dtype=np.float64)[actions]
            total = p.sum()
            prior = p / total if total > 0 else None
        node.prior, node.weights = prior, (None if prior is None else prior.tolist())
        node.counts, node.totals = [0] * k, [0.0] * k
        node.children = [None] * k
        node.tried = 0
        node.order = list(range(k)) if self.config.tree_policy == "uct" else None
        values = np.asarray(values, dtype=np.float64).tolist()
        node.value = values[node.player]
        return node, values

    # -- tree policy -------------------------------------------------------------------------------
    def _select(self, node: Node) -> int:
        """The index (into ``node.actions``) that the tree policy picks; the first best on ties."""
        c = self.config
        counts, totals = node.counts, node.totals
        best, pick = -math.inf, 0
        if c.tree_policy == "uct":
            tried, k = node.tried, len(counts)
            if tried < k:  # one step of a Fisher-Yates shuffle of the untried actions
                order, j = node.order, tried + int(self.rng.random() * (k - tried))
                order[tried], order[j] = order[j], order[tried]
                node.tried = tried + 1
                return order[tried]
            log_visits = math.log(node.visits)
            for i, n in enumerate(counts):
                score = totals[i] / n + c.c_uct * math.sqrt(log_visits / n)
                if score > best:
                    best, pick = score, i
            return pick
        if c.root_policy == "gumbel":
            return self._select_gumbel_root(node) if node is self.root else self._select_gumbel(node)
        total = node.visits
        rate = c.c_init if c.c_base == math.inf else math.log((1 + total + c.c_base) / c.c_base) + c.c_init  # inlined
        prior = node.weights or [1.0 / len(counts)] * len(counts)
        root_total = math.sqrt(total)
        unvisited = c.unvisited_value if c.fpu_reduction is None else node.value - c.fpu_reduction
        for i, (n, w, p) in enumerate(zip(counts, totals, prior)):
            score = (w / n if n > 0 else unvisited) + rate * p * root_total / (1 + n)
            if score > best:
                best, pick = score, i
        return pick

    def _select_gumbel(self, node: Node) -> int:
        """Gumbel's deterministic choice below the root: the index that maximises
        ``pi'(a) - N(s, a) / (1 + sum N)`` with ``pi' = softmax(logits + sigma)``; the first best on ties."""
        counts = node.counts
        improved = softmax([lg + s for lg, s in zip(logits(node), sigma(node, self.game.action_space_size, self.config))])
        share = 1 + sum(counts)
        best, pick = -math.inf, 0
        for i, (p, n) in enumerate(zip(improved, counts)):
            score = p - n / share
            if score > best:
                best, pick = score, i
        return pick

    def _select_gumbel_root(self, node: Node) -> int:
        """Sequential halving at the root: among the actions with the visit count that the schedule gives
        this simulation, the index that maximises ``g + logits + sigma``."""
        return self._best_considered(node, self.schedule[sum(node.counts)])

    def _best_considered(self, node: Node, visits: int) -> int:
        """The index, among the actions of ``node`` visited ``visits`` times, that maximises
        ``g + logits - max logits + sigma``; the first best on ties."""
        shifted = logits(node)
        top = max(shifted)
        scores = sigma(node, self.game.action_space_size, self.config)
        best, pick = -math.inf, 0
        for i, (n, g, lg, s) in enumerate(zip(node.counts, node.gumbel, shifted, scores)):
            score = g + (lg - top) + s
            if n == visits and score > best:
                best, pick = score, i
        return pick

    def _simulate_steps(self, root: Node):
        """One simulation from ``root``, as a generator that yields the leaf to evaluate (see ``_new_node``)."""
        game, rng, cap = self.game, self.rng, self.config.chance_outcomes
        path = []  # (node, action index), index -1 for a chance node
        node = root
        while True:
            if node.kind == TERMINAL or (node.kind == CHANCE and not cap):
                values = node.returns.tolist()
                break
            if node.kind == CHANCE:
                path.append((node, -1))
                outcome = game.resolve_chance(node.state, rng)
                key = game.state_key(outcome)
                held = node.children
                if key in held:
                    node = held[key]
                    continue
                if len(held) >= cap:
                    node = list(held.values())[int(rng.random() * len(held))]
                    continue
                child, values = yield from self._new_node(outcome)
                held[key] = node = child
                if values is None:
                    continue
                break
            i = self._select(node)
            path.append((node, i))
            child = node.children[i]
            if child is None:
                child, values = yield from self._new_node(game.next_state(node.state, node.actions[i]))
                node.children[i] = child
                node = child
                if values is None:
                    continue
                break
            node = child
        for node, i in path:
            node.visits += 1
            if i >= 0:
                node.counts[i] += 1
                node.totals[i] += values[node.player]

    # -- public --------------------------------------------------------------------------------------
    def _root_steps(self, state):
        """The root for ``state``: the kept subtree when it holds ``state``, else a new node (a generator, as
        ``_new_node``)."""
        key = self.game.state_key(state)
        root = self.root
        if root is not None and root.kind == CHANCE:
            root = root.children.get(key)
        if root is None or self.game.state_key(root.state) != key:
            root, _ = yield from self._new_node(state)
        if root.kind != DECISION:
            raise ValueError("search needs a state where a player chooses (not a terminal or chance state)")
        return root

    def search_steps(self, state, gumbel=None):
        """``search`` as a generator: it yields every state whose evaluation it needs, in order, and must be
        sent ``(prior, values)`` for it, as ``evaluator(game, state, rng)`` returns them; it returns the
        ``SearchResult``. ``search`` drives it with the evaluator; ``search_many`` drives many searches at
        once with one batched evaluation per round. Nothing else differs, so the tree, the draws from
        ``rng`` and the result are the same whoever drives it. ``gumbel``: see ``search``."""
        c = self.config
        gumbel_root = c.root_policy == "gumbel"
        if gumbel_root:
            self.root = None  # sequential halving plans its budget from a new root
        root = self.root = yield from self._root_steps(state)
        if gumbel_root:
            if gumbel is not None:
                noise = np.asarray(gumbel, dtype=np.float64)[root.actions]
            elif c.gumbel_scale > 0:
                noise = self.rng.gumbel(size=len(root.actions))
            else:
                noise = np.zeros(len(root.actions))
            root.gumbel = (c.gumbel_scale * noise).tolist()
            self.schedule = considered_visits(min(c.max_considered_actions, len(root.actions)), c.simulations)
        elif c.tree_policy == "puct" and c.dirichlet_alpha > 0:
            k = len(root.actions)
            if root.clean_prior is None:
                root.clean_prior = root.prior if root.prior is not None else np.full(k, 1.0 / k)
            noise = self.rng.dirichlet(np.full(k, c.dirichlet_alpha))
            root.prior = (1 - c.dirichlet_fraction) * root.clean_prior + c.dirichlet_fraction * noise
            root.weights = root.prior.tolist()
        deadline = None if c.time_limit is None else time.perf_counter() + c.time_limit
        for done in range(1, c.simulations + 1):
            yield from self._simulate_steps(root)
            if deadline is not None and done % 16 == 0 and time.perf_counter() > deadline:
                break
        size = self.game.action_space_size
        visits, q = np.zeros(size, dtype=np.int64), np.zeros(size)
        visits[root.actions] = root.n
        q[root.actions] = np.where(root.n > 0, root.w / np.maximum(root.n, 1), 0.0)
        if not gumbel_root:
            return SearchResult(visits, q, root.player, visit_distribution(visits, 1.0), int(np.argmax(visits)))
        policy = np.zeros(size)
        policy[root.actions] = softmax([lg + s for lg, s in zip(logits(root), sigma(root, size, c))])
        action = root.actions[self._best_considered(root, max(root.counts))]
        return SearchResult(visits, q, root.player, policy, action)

    def search(self, state, gumbel=None) -> SearchResult:
        """Run ``config.simulations`` simulations from ``state`` (reusing the kept subtree when it
        holds ``state``) and return the root's statistics.

        Args:
            gumbel: float ``(A,)``: standard Gumbel noise for the root of a Gumbel search instead of a draw
                from ``rng`` (scaled by ``gumbel_scale`` all the same); for tests that replay a given draw.
        """
        return self._drive(self.search_steps(state, gumbel))

    def _root_for(self, state) -> Node:
        """``_root_steps`` with the evaluator: the root for ``state`` (for subclasses that write their own search)."""
        return self._drive(self._root_steps(state))

    def _simulate(self, root: Node) -> None:
        """``_simulate_steps`` with the evaluator: one simulation from ``root``."""
        self._drive(self._simulate_steps(root))

    def _drive(self, steps):
        """Run one of the generators above to its end, each leaf it yields evaluated by ``evaluator``; its result."""
        game, evaluator, rng = self.game, self.evaluator, self.rng
        try:
            leaf = next(steps)
            while True:
                leaf = steps.send(evaluator(game, leaf, rng))
        except StopIteration as finished:
            return finished.value

    def advance(self, action: int) -> None:
        """Keep the subtree below ``action`` of the last searched root (nothing if never tried)."""
        root = self.root
        if root is None or root.kind != DECISION:
            self.root = None
            return
        action = int(action)
        self.root = root.children[root.actions.index(action)] if action in root.actions else None

    def reset(self) -> None:
        """Forget the tree."""
        self.root = None


def logits(node: Node) -> list:
    """``log P(s, a)`` of each legal action of a decision node (uniform without a prior), each prior
    clipped at ``TINY`` first, so a zero prior gives a very negative but finite logit; computed once
    and kept in ``node.logits`` (a Gumbel search adds no noise to the priors)."""
    if node.logits is None:
        prior = node.weights or [1.0 / len(node.counts)] * len(node.counts)
        node.logits = [math.log(max(p, TINY)) for p in prior]
    return node.logits


def softmax(values: list) -> list:
    """``exp(v - max v) / sum exp(v - max v)`` of a list of floats ``v``."""
    top = max(values)
    e = [math.exp(v - top) for v in values]
    total = sum(e)
    return [v / total for v in e]


def completed_q(node: Node, action_space: int) -> list:
    """Gumbel's completed Q of each legal action of a decision node, for its chooser, min-max normalised
    to [0, 1] (mctx's ``qtransform_completed_by_mix_value`` before its scale).

    A visited action keeps ``W / N``; an unvisited one gets the *mixed value*
    ``(v + sum_b N(b) * sum_{visited b} P(b) Q(b) / sum_{visited b} P(b)) / (1 + sum_b N(b))``, ``v`` the
    evaluator's value of the node (priors clipped at ``TINY``). The min and max run over the completed Q
    of the whole action space, as mctx's do: an illegal action, never visited, counts with the mixed value
    (so the mixed value enters the range whenever an action of the space is unvisited); the range is at
    least ``Q_EPSILON``.
    """
    counts, totals = node.counts, node.totals
    prior = node.weights or [1.0 / len(counts)] * len(counts)
    visited = sum(counts)
    mixed = node.value
    if visited:
        seen = [(max(p, TINY), w / n) for p, n, w in zip(prior, counts, totals) if n]  # (P, Q) of the visited
        mass = sum(p for p, _ in seen)
        mixed = (node.value + visited * sum(p * q / mass for p, q in seen)) / (visited + 1)
    completed = [w / n if n else mixed for n, w in zip(counts, totals)]
    low, high = min(completed), max(completed)
    if len(counts) < action_space:
        low, high = min(low, mixed), max(high, mixed)
    scale = max(high - low, Q_EPSILON)
    return [(q - low) / scale for q in completed]


def sigma(node: Node, action_space: int, config: MCTSConfig) -> list:
    """``sigma(q) = (c_visit + max_a N(s, a)) * c_scale * q`` of each legal action, ``q`` the normalised
    completed Q (``completed_q``)."""
    factor = (config.c_visit + max(node.counts)) * config.c_scale
    return [factor * q for q in completed_q(node, action_space)]


def search_many(searches, states, evaluate_many) -> list:
    """``[s.search(state) for s, state in zip(searches, states)]`` with the leaves of all searches evaluated together.

    The searches advance in lockstep, each by its own ``search_steps``: every round gathers the leaf that
    each unfinished search waits on and evaluates them in one call, ``evaluate_many(game, leaves) ->
    [(prior, values), ...]`` (one entry per leaf, as an evaluator returns it), so a network sees a
    batch of up to ``len(searches)`` positions a call instead of one. Each search keeps its own tree and
    generator: with an evaluator that draws nothing from ``rng`` (a network), every search ends exactly
    as ``search`` would have ended it.

    Args:
        searches: ``MCTS`` objects of one game (distinct objects).
        states: the decision state each one searches from.
        evaluate_many: the batched evaluator.

    Returns:
        One ``SearchResult`` per search, in order.
    """
    results = [None] * len(searches)
    waiting = []  # (index, steps, leaf)
    for index, (search, state) in enumerate(zip(searches, states)):
        steps = search.search_steps(state)
        try:
            waiting.append((index, steps, next(steps)))
        except StopIteration as finished:
            results[index] = finished.value
    while waiting:
        answers = evaluate_many(searches[waiting[0][0]].game, [leaf for _, _, leaf in waiting])
        still = []
        for (index, steps, _), answer in zip(waiting, answers):
            try:
                still.append((index, steps, steps.send(answer)))
            except StopIteration as finished:
                results[index] = finished.value
        waiting = still
    return results


def visit_distribution(visits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Visit counts turned into move probabilities ``N^(1/T) / sum N^(1/T)``, float64 ``(A,)``;
    ``temperature=0`` puts all mass on the most visited action (lowest index on ties)."""
    visits = np.asarray(visits, dtype=np.float64)
    if visits.sum() <= 0:
        raise ValueError("no visits to turn into a distribution")
    if temperature == 0:
        out = np.zeros_like(visits)
        out[int(np.argmax(visits))] = 1.0
        return out
    scaled = (visits / visits.max()) ** (1.0 / temperature)
    return scaled / scaled.sum()
