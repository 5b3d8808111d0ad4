"""One generic Monte Carlo tree search for every game of the game layer.

It talks to a game only through ``azcourse.core.protocol``: it never names a game, and it never assumes
that turns alternate or that values flip sign between plies. What is where:

- ``MCTSConfig``: the settings (tree policy UCT or PUCT, root policy PUCT or Gumbel, root noise, chance).
- ``Node``: one node of the tree (decision, chance or terminal) and its statistics.
- ``MCTS``: the search. ``search(state)`` runs the simulations; ``advance(action)`` keeps the chosen
  subtree for the next move. The hooks a subclass may replace or call: ``select(node)`` (the tree policy:
  UCT, PUCT, Gumbel), ``root_for(state)`` and ``simulate(root)`` (the pieces ``search`` is made of).
  ``search_steps`` is ``search`` as a generator that yields each leaf to evaluate.
- ``search_many``: many searches in lockstep, their leaves evaluated in one batch per round.
- ``SearchResult``, ``visit_distribution``, ``puct_exploration_rate``: what a search returns, and the
  formulas agents share with it.
- ``azcourse.core.gumbel``: Gumbel AlphaZero's pieces (completed Q, sigma, the improved policy,
  sequential halving), pure functions that ``MCTS`` calls on a node's statistics.

Each formula is in the docstring of the function that computes it. All draws (untried-action order,
chance outcomes, rollouts, noise) come from one ``numpy.random.Generator``, so a seeded search repeats
(with a ``time_limit``, only as far as the clock lets it run). A node keeps its statistics in Python
lists and the policies are plain loops over them: for a few dozen actions that is faster than numpy's
per-call cost.
"""
from __future__ import annotations

import dataclasses
import math
import time
from typing import NamedTuple

import numpy as np

from .evaluators import RolloutEvaluator
from .gumbel import completed_q, considered_choice, considered_visits, improved_policy, interior_choice, logits, sigma

DECISION, CHANCE, TERMINAL = 0, 1, 2


@dataclasses.dataclass(frozen=True)
class MCTSConfig:
    """Search settings.

    Attributes:
        simulations: simulations (search games) per ``search`` call.
        tree_policy: ``"uct"`` or ``"puct"`` (``MCTS.select``).
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
        if not (self.c_init >= 0 and self.c_base > 0 and self.c_uct >= 0):
            raise ValueError("c_init and c_uct must be 0 or more, c_base positive (math.inf: a constant rate)")
        if not (self.dirichlet_alpha >= 0 and 0 <= self.dirichlet_fraction <= 1):
            raise ValueError("dirichlet_alpha must be 0 or more (0: no noise), dirichlet_fraction lie in [0, 1]")


def puct_exploration_rate(visits: int, c_init: float, c_base: float) -> float:
    """PUCT's growing exploration rate ``C(s) = log((1 + N(s) + c_base) / c_base) + c_init`` (``c_init`` when
    ``c_base`` is infinite)."""
    return c_init if c_base == math.inf else math.log((1 + visits + c_base) / c_base) + c_init


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
    """One node of the tree.

    A *decision node* holds a state where ``game.to_move`` chooses; it keeps one entry per legal action in
    Python lists (cheaper than numpy for a few dozen entries; ``n`` and ``w`` give them as arrays). A
    *chance node* holds a state where nature moves, and the outcomes sampled so far. A *terminal node*
    holds ``game.returns``.

    Attributes a tree policy or a subclass's search reads (decision node; index ``i`` is ``actions[i]``):
        state: the game state. kind: ``DECISION``, ``CHANCE`` or ``TERMINAL``.
        player: the player who chooses.
        actions: list of the k legal actions, increasing.
        counts: list of k ints, ``N(s, a)``. totals: list of k floats, ``W(s, a)``, the summed results
            **of the player who chooses at s**.
        visits: ``N(s) = 1 + sum_a N(s, a)``: the evaluation that created the node counts as its first
            visit (chance node: the passes through it).
        prior: float64 ``(k,)`` ``P(s, a)``, or None for uniform (no prior from the evaluator).
        weights: the same prior as a Python list, or None: what the stock tree policy reads (a search
            that changes ``prior`` sets ``weights`` too, as the root noise does).
        clean_prior: the root's prior before Dirichlet noise (None until noise is first added).
        value: the evaluator's value of the state for the chooser.
        children: list of k child nodes, None where not in the tree yet (chance node: a dict
            ``state_key -> node`` of the held outcomes).

    Internal (the stock policies' bookkeeping):
        order, tried: UCT: indices into ``actions``, the first ``tried`` of them in the order UCT tried
            them, the rest not yet tried (shuffled one step per try).
        logits: list of k floats, ``log P`` (``gumbel.logits``, kept once computed), or None.
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


# The hooks' names in the first release of part 6's notebook (its CourseMCTS overrides ``_select`` and calls
# ``_root_for`` and ``_simulate``): each old name stays an alias of the public one (see ``MCTS.__init_subclass__``).
DEPRECATED_HOOKS = {"_select": "select", "_root_for": "root_for", "_simulate": "simulate"}


class MCTS:
    """Monte Carlo tree search over any game of the game layer.

    Args:
        game: the game (``azcourse.core.protocol.Game``).
        evaluator: leaf evaluator (default: rollouts with uniformly random moves).
        config: ``MCTSConfig``.
        rng: ``numpy.random.Generator`` or a seed.

    A subclass changes the search through its public hooks: it overrides ``select`` (the tree policy,
    used at every decision node of every simulation, ``search_steps`` and ``search_many`` included) or
    writes its own ``search`` from ``root_for`` and ``simulate``.
    """

    def __init__(self, game, evaluator=None, config: MCTSConfig | None = None, rng=None):
        self.game = game
        self.evaluator = evaluator if evaluator is not None else RolloutEvaluator()
        self.config = config or MCTSConfig()
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.root: Node | None = None
        self.schedule: tuple = ()  # a Gumbel search's sequential-halving schedule (``considered_visits``)

    def __init_subclass__(cls, **kwargs):
        """A subclass that overrides a hook under its deprecated name (``_select``) gets it under the public
        name too, and the other way round, so the search uses the override whichever name it has."""
        super().__init_subclass__(**kwargs)
        for old, new in DEPRECATED_HOOKS.items():
            if old in cls.__dict__ and new not in cls.__dict__:
                setattr(cls, new, cls.__dict__[old])
            elif new in cls.__dict__ and old not in cls.__dict__:
                setattr(cls, old, cls.__dict__[new])

    # -- the public hooks ----------------------------------------------------------------------------
    def select(self, node: Node) -> int:
        """The tree policy: the index (into ``node.actions``) of the action to follow at decision node
        ``node``; the first best on ties. ``MCTSConfig.tree_policy`` ``"uct"`` or ``"puct"``; with the
        Gumbel root policy, sequential halving at the root and Gumbel's deterministic rule below it."""
        c = self.config
        if c.tree_policy == "uct":
            return self._select_uct(node)
        if c.root_policy == "gumbel":
            return self._select_gumbel_root(node) if node is self.root else self._select_gumbel(node)
        return self._select_puct(node)

    def root_for(self, state) -> Node:
        """The root for a search from ``state``: the kept subtree when it holds ``state`` (see ``advance``),
        else a new node, evaluated by ``evaluator`` (for a subclass that writes its own ``search``; it stores
        the root in ``self.root``, which ``advance`` and the Gumbel root rule read)."""
        return self._drive(self._root_steps(state))

    def simulate(self, root: Node) -> None:
        """One simulation from ``root``, each leaf evaluated by ``evaluator`` (see ``_simulate_steps``)."""
        self._drive(self._simulate_steps(root))

    _select, _root_for, _simulate = select, root_for, simulate  # deprecated names (DEPRECATED_HOOKS)

    # -- nodes -------------------------------------------------------------------------------------
    def _new_node(self, state):
        """A node for ``state`` and its evaluation (per-player values as a list; None for a chance
        node), as a generator: a decision node yields its state once and is sent the evaluator's
        ``(prior, values)`` for it (``search`` sends ``evaluator(game, state, rng)``; a batched
        driver sends its entry of a batched evaluation). Use as ``node, values = yield from self._new_node(state)``.
        A prior is restricted to the legal actions and renormalised."""
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

    # -- tree policies -------------------------------------------------------------------------------
    def _select_uct(self, node: Node) -> int:
        """UCT: untried actions first, in a random order (one Fisher-Yates step, one draw, per try, so a
        node draws only for the actions it tries); then the action that maximises
        ``Q(s, a) + c_uct * sqrt(ln N(s) / N(s, a))``, ``Q = W / N``."""
        counts, totals = node.counts, node.totals
        tried, k = node.tried, len(counts)
        if tried < k:  # one step of a Fisher-Yates shuffle of the untried actions
            order, j = node.order, tried + int(self.rng.random() * (k - tried))
            order[tried], order[j] = order[j], order[tried]
            node.tried = tried + 1
            return order[tried]
        c_uct, log_visits = self.config.c_uct, math.log(node.visits)
        best, pick = -math.inf, 0
        for i, n in enumerate(counts):
            score = totals[i] / n + c_uct * math.sqrt(log_visits / n)
            if score > best:
                best, pick = score, i
        return pick

    def _select_puct(self, node: Node) -> int:
        """PUCT: the action that maximises ``Q(s, a) + C(s) P(s, a) sqrt(N(s)) / (1 + N(s, a))``, ``C(s)``
        from ``puct_exploration_rate``, ``P`` uniform without a prior, and ``Q = W / N``, or for an untried
        action ``unvisited_value`` (with ``fpu_reduction``: the node's own value less that reduction,
        first-play urgency)."""
        c = self.config
        counts, totals = node.counts, node.totals
        total = node.visits
        # compiled_search._puct mirrors this loop operation for operation (tests/test_compiled_twin_plain.py)
        rate = c.c_init if c.c_base == math.inf else math.log((1 + total + c.c_base) / c.c_base) + c.c_init  # inlined
        prior = node.weights or [1.0 / len(counts)] * len(counts)
        root_total = math.sqrt(total)
        unvisited = c.unvisited_value if c.fpu_reduction is None else node.value - c.fpu_reduction
        best, pick = -math.inf, 0
        for i, (n, w, p) in enumerate(zip(counts, totals, prior)):
            score = (w / n if n > 0 else unvisited) + rate * p * root_total / (1 + n)
            if score > best:
                best, pick = score, i
        return pick

    def _gumbel_terms(self, node: Node) -> tuple:
        """``(logits, sigma)`` of a decision node's actions (``gumbel.logits`` of its prior, computed once and
        kept in ``node.logits``, since a Gumbel search adds no noise to priors; ``gumbel.sigma`` of its
        completed Q over the game's action space)."""
        c, counts = self.config, node.counts
        prior = node.weights or [1.0 / len(counts)] * len(counts)
        if node.logits is None:
            node.logits = logits(prior)
        completed = completed_q(counts, node.totals, prior, node.value, self.game.action_space_size)
        return node.logits, sigma(completed, counts, c.c_visit, c.c_scale)

    def _select_gumbel(self, node: Node) -> int:
        """Gumbel below the root: ``gumbel.interior_choice`` of the improved policy ``softmax(logits + sigma)``."""
        return interior_choice(improved_policy(*self._gumbel_terms(node)), node.counts)

    def _select_gumbel_root(self, node: Node) -> int:
        """Sequential halving at the root: ``gumbel.considered_choice`` among the actions with the visit count
        that the schedule (``gumbel.considered_visits``) gives this simulation."""
        return considered_choice(node.counts, node.gumbel, *self._gumbel_terms(node), self.schedule[sum(node.counts)])

    # -- one simulation ------------------------------------------------------------------------------
    def _simulate_steps(self, root: Node):
        """One simulation from ``root``, as a generator that yields the leaf to evaluate (see ``_new_node``).

        From the root, ``select`` picks actions down to an action whose child is not in the tree yet; that
        child is added and evaluated, which gives one result per player. Going back up, every decision node
        on the path adds 1 to ``N(s, a)`` and the result **of its own chooser** to ``W(s, a)``.

        A chance node draws an outcome with ``game.resolve_chance`` at every pass and follows it if the node
        already holds it (same ``state_key``), adds it while the node holds fewer than ``chance_outcomes``,
        and otherwise follows a held outcome picked uniformly: a game with few outcomes is sampled with
        their true odds, one with countless outcomes keeps a bounded sample. With ``chance_outcomes = 0`` a
        chance node is a leaf: the evaluator values the state before the draw.
        """
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
            i = self.select(node)
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

    # -- the search ----------------------------------------------------------------------------------
    def _root_steps(self, state):
        """The root for ``state``: the kept subtree when it holds ``state`` (compared by ``game.state_key``),
        or one of its sampled outcomes when it is a chance node, else a new node (a generator, as ``_new_node``)."""
        key = self.game.state_key(state)
        root = self.root
        if root is not None and root.kind == CHANCE:
            root = root.children.get(key)
        if root is None or self.game.state_key(root.state) != key:
            root, _ = yield from self._new_node(state)
        if root.kind != DECISION:
            raise ValueError("search needs a state where a player chooses (not a terminal or chance state)")
        return root

    def _add_root_noise(self, root: Node, gumbel) -> None:
        """Gumbel root: its noise ``g(a)`` (``gumbel_scale`` times a standard Gumbel draw, or the given one)
        and the sequential-halving schedule of ``min(max_considered_actions, k)`` actions. PUCT with
        ``dirichlet_alpha > 0``: the root's priors become ``(1 - dirichlet_fraction) P + dirichlet_fraction *
        Dirichlet(alpha)``, fresh noise on the clean priors at every search."""
        c = self.config
        if c.root_policy == "gumbel":
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

    def search_steps(self, state, gumbel=None, config: MCTSConfig | None = None):
        """``search`` as a generator: it yields every state whose evaluation it needs, in order, and must be
        sent ``(prior, values)`` for it, as ``evaluator(game, state, rng)`` returns them; it returns the
        ``SearchResult``. ``search`` drives it with the evaluator; ``search_many`` drives many searches at
        once with one batched evaluation per round. Nothing else differs, so the tree, the draws from
        ``rng`` and the result are the same whoever drives it. ``gumbel``, ``config``: see ``search``."""
        if config is None or config is self.config:
            return (yield from self._search_steps(state, gumbel))
        kept, self.config = self.config, config  # this search's settings, for the hooks that read self.config
        try:
            return (yield from self._search_steps(state, gumbel))
        finally:
            self.config = kept

    def _search_steps(self, state, gumbel):
        c = self.config
        gumbel_root = c.root_policy == "gumbel"
        if gumbel_root:
            self.root = None  # sequential halving plans its budget from a new root
        root = self.root = yield from self._root_steps(state)
        self._add_root_noise(root, gumbel)
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
        # Gumbel AlphaZero's results: the improved policy at the root, and the best of the most visited actions
        policy = np.zeros(size)
        root_logits, root_sigma = self._gumbel_terms(root)
        policy[root.actions] = improved_policy(root_logits, root_sigma)
        action = root.actions[considered_choice(root.counts, root.gumbel, root_logits, root_sigma, max(root.counts))]
        return SearchResult(visits, q, root.player, policy, action)

    def search(self, state, gumbel=None, config: MCTSConfig | None = None) -> SearchResult:
        """Run ``config.simulations`` simulations from ``state`` (reusing the kept subtree when it
        holds ``state``; a Gumbel search always starts a new tree) and return the root's statistics.

        Args:
            gumbel: float ``(A,)``: standard Gumbel noise for the root of a Gumbel search instead of a draw
                from ``rng`` (scaled by ``gumbel_scale`` all the same); for tests that replay a given draw.
            config: the settings of this one search instead of ``self.config`` (a cheap move, a move without
                noise); ``self.config`` gives them to the hooks during the call and is as before afterwards.
        """
        return self._drive(self.search_steps(state, gumbel, config))

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
        """Keep the subtree below ``action`` of the last searched root (its counts included) and drop the rest,
        as on-policy MCTS does between actual moves (nothing is kept if ``action`` was never tried)."""
        root = self.root
        if root is None or root.kind != DECISION:
            self.root = None
            return
        action = int(action)
        self.root = root.children[root.actions.index(action)] if action in root.actions else None

    def reset(self) -> None:
        """Forget the tree."""
        self.root = None


def search_many(searches, states, evaluate_many, configs=None) -> list:
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
        configs: None, or one entry per search: its settings for this search (``MCTS.search``'s ``config``;
            None: its own).

    Returns:
        One ``SearchResult`` per search, in order.
    """
    results = [None] * len(searches)
    waiting = []  # (index, steps, leaf)
    for index, (search, state) in enumerate(zip(searches, states)):
        config = None if configs is None else configs[index]
        steps = search.search_steps(state) if config is None else search.search_steps(state, config=config)
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
