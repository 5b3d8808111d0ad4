"""Every parameter of an AlphaZero run in one place, read from TOML with command-line overrides.

``load_config(path, overrides)`` starts from the defaults of ``AlphaZeroConfig``, applies the TOML
file, then the overrides (``--set key=value`` on the command line), so an override wins over the
file and the file over the defaults. An unknown key, a value of the wrong kind or one out of range
is refused with a ``ConfigError`` that names the key and what is allowed. ``configs/tictactoe_az.toml``
explains every key.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

from azcourse.core.mcts import MCTSConfig
from azcourse.run_config import ConfigError, coerce_field, coerce_value, field_kinds, load_dataclass, toml_text
from azcourse.run_config import parse_override  # noqa: F401  (``--set``, for the command line)
from azcourse.registry import family_of

OPTIMIZERS = ("adam", "sgd")
INFERENCE = ("numpy", "jax")
SEARCH_PATHS = ("generic", "compiled")
COMPILED_FAMILIES = ("othello", "hex", "tak")  # the games with compiled rules (compiled_search.COMPILED_GAMES)
ENDGAME_LIMIT = 14  # endgame_empties at most: a solve at 14 empty squares takes milliseconds, and a game makes hundreds
NETWORKS = ("mlp", "ntuple")
# The trainer's self-play search where it differs from ``MCTSConfig``'s defaults, which hold every other knob's
SELF_PLAY_DEFAULTS = {"simulations": 50, "tree_policy": "puct", "dirichlet_alpha": 0.3}
# Keys of the search that stood at the top level before the ``[search]`` table (old run folders and cards)
LEGACY_SEARCH_KEYS = ("simulations", "c_init", "c_base", "unvisited_value", "chance_outcomes", "dirichlet_alpha",
                      "dirichlet_fraction", "root_policy", "max_considered_actions")


def self_play_search(**values) -> MCTSConfig:
    """A self-play search: ``values`` over ``SELF_PLAY_DEFAULTS`` and ``MCTSConfig``'s defaults (a Gumbel root
    takes no Dirichlet noise unless ``values`` names some, which it then refuses).

    Raises:
        ConfigError: a value ``MCTSConfig`` refuses, or an unknown key.
    """
    defaults = dict(SELF_PLAY_DEFAULTS)
    if values.get("root_policy") == "gumbel":
        defaults.pop("dirichlet_alpha")
    known = [f.name for f in dataclasses.fields(MCTSConfig)]
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ConfigError(f"unknown search key {unknown[0]!r}; known: {', '.join(known)}")
    try:
        return MCTSConfig(**{**defaults, **values})
    except ValueError as problem:
        raise ConfigError(f"search: {problem}") from None


def upgrade(values: Mapping[str, Any]) -> dict[str, Any]:
    """Config data written before the ``[search]`` table (``LEGACY_SEARCH_KEYS`` at the top level) in today's
    shape: those keys moved into ``search`` (a Gumbel root's Dirichlet settings, never used, dropped)."""
    out = {key: value for key, value in values.items() if key not in LEGACY_SEARCH_KEYS}
    moved = {key: values[key] for key in LEGACY_SEARCH_KEYS if key in values}
    if moved.get("root_policy") == "gumbel":
        moved.pop("dirichlet_alpha", None)
        moved.pop("dirichlet_fraction", None)
    if moved:
        out["search"] = {**moved, **dict(values.get("search", {}))}
    return out


@dataclasses.dataclass(frozen=True)
class AlphaZeroConfig:
    """One AlphaZero run (the keys of the TOML file; ``configs/tictactoe_az.toml`` explains each).

    Attributes:
        game: a name of ``azcourse.registry`` (``"tictactoe"``, ``"hex5"``, ...).
        seed: seeds the initial weights (JAX key) and every random draw of the run (one numpy
            generator: self-play, noise, minibatches).
        iterations: iterations of self-play + training.
        games_per_iteration: self-play games per iteration.
        search: the full self-play search, an ``azcourse.core.mcts.MCTSConfig`` (the TOML file's
            ``[search]`` table; a mapping is read onto ``self_play_search``'s defaults). Its ``simulations``
            is a full search's budget (with a growing budget, the one reached at its end); PUCT's
            ``c_init``, ``c_base``, ``unvisited_value`` and ``fpu_reduction``, the root noise
            ``dirichlet_alpha`` and ``dirichlet_fraction`` (alpha 0 turns it off), ``chance_outcomes`` (0: a
            chance state is a leaf that the network values: Azul's refill), and ``root_policy``: ``"puct"``
            (AlphaZero: root noise, visit counts as the policy target) or ``"gumbel"`` (Gumbel AlphaZero:
            every move is the search's Gumbel choice and the target is its improved policy; no Dirichlet
            noise, no temperature) with ``max_considered_actions``. Always ``tree_policy = "puct"`` and no
            ``time_limit`` (a run's games never depend on the clock).
        temperature_moves: self-play moves drawn from the visit counts (T = 1) at the start of a
            game; later moves are the most visited (T -> 0). PUCT only.
        reuse_tree: keep the chosen child's subtree between moves (PUCT; a Gumbel search starts afresh).
        cheap_fraction, cheap_simulations: playout-cap randomisation (KataGo): each self-play move is,
            with probability ``cheap_fraction``, a cheap search of ``cheap_simulations``, without noise
            and played greedily, whose position keeps its value target but has no policy target
            (``cheap_fraction = 0``: every move is a full search).
        guide_prior_mix, guide_value_mix, guide_from: self-play's leaves mix the game's hand-written
            evaluation (the protocol's optional ``guide``; Azul's projected score) into the network's, with
            these weights in the prior and the value (``azcourse.core.evaluators.GuidedEvaluator``), in the
            iterations after ``guide_from`` (0: all); both 0: the network alone (see ``guide_at``). The
            search's improved policy, the policy target, then carries the guide's knowledge; the value
            target stays the game's result.
        simulations_start, simulations_growth_iterations: a growing budget: full searches take
            ``simulations_start`` simulations in iteration 1, growing linearly to ``simulations`` in
            iteration ``1 + simulations_growth_iterations`` (both 0: ``simulations`` throughout; see
            ``simulations_at``).
        symmetries: store every image of a position under the game's ``symmetries`` (when it has them).
        sample_symmetries, sample_symmetries_from: each training minibatch row is one of its position's
            images drawn at random from the game's ``symmetry_maps`` (Azul: the 120 orders of its factories),
            in the iterations after ``sample_symmetries_from`` (0: all); the window keeps one image of each
            position (see ``samples_symmetries``). For games with too many images to store (``symmetries``).
        replay_positions: the replay window: the most recent positions kept (images included).
        network: the kind of network: ``"mlp"`` (dense layers after optional convolutions, ``network``) or
            ``"ntuple"`` (Othello's pattern tables, ``ntuple``: ``channels``, ``hidden`` and ``action_head``
            unused; numpy inference; its leaves evaluated inside the compiled search).
        ntuple_phases, ntuple_temperature: the pattern tables' game phases (sets of tables by disc count)
            and the children's values' softmax temperature at the start (learned after); ``network =
            "ntuple"`` only.
        channels: 3x3 convolution layers (output channels; ``[]`` for none), for games whose
            encoding is ``(C, H, W)``.
        hidden: dense layers after the convolutions (widths).
        action_head: add the ``action_head`` layer that reads each action's own features (a game with
            ``action_features``, e.g. Azul; ``network``).
        optimizer, learning_rate: ``"adam"`` or ``"sgd"`` (momentum 0.9).
        anneal_start, learning_rate_final: an annealed learning rate: ``learning_rate`` up to iteration
            ``anneal_start``, then a cosine down to ``learning_rate_final`` at the last iteration (both 0:
            ``learning_rate`` throughout; see ``learning_rate_at``).
        average_from: 0, or the checkpoints (``best/`` and ``checkpoints/``) hold the mean of the learner's
            parameters after each iteration from ``average_from`` on (stochastic weight averaging), while
            self-play keeps the learner's own; needs ``gate_games = 0``.
        weight_decay: L2 penalty ``c * sum(kernel ** 2)`` added to the loss.
        value_weight: weight of the value MSE in the loss (the policy cross-entropy has weight 1).
        value_discount: the value target of a position k moves before the end is
            ``value_discount ** k * z`` (1: the final result ``z`` itself). Below 1 a lost side learns
            that a longer game is worth more and a winner that a shorter one is, so a side that sees
            itself lost still resists (``selfplay.positions``).
        value_margin_scale: 0, or a value target that also counts by how much a game was won:
            ``0.5 * z + 0.5 * tanh(margin / value_margin_scale)``, ``margin`` the mover's final score minus
            the opponent's (a game with ``scores``, e.g. Azul, where one game's +-1 is a noisy signal).
        batch_size, train_steps: minibatches of ``batch_size`` positions per iteration.
        warm_start_games, warm_start_steps, warm_start_epsilon: a warm start by imitation before the first
            iteration (``warm_start``): games of the game's teacher (``azcourse.registry.TEACHERS``), a
            random move instead of the teacher's with probability ``warm_start_epsilon``, then
            ``warm_start_steps`` minibatches on them (0 games: none).
        inference: how self-play evaluates the network: ``"numpy"`` or ``"jax"`` (jitted; on a GPU
            when JAX sees one).
        selfplay_batch: self-play games a worker plays in lockstep, their searches' leaves evaluated in
            one network call (``selfplay.play_games``).
        search_path: the self-play search: ``"generic"`` (``azcourse.core.mcts``, every game) or
            ``"compiled"`` (``compiled_search``: numba, Othello, Hex and Tak only; the same games, faster;
            each game on its own generator seeded from the run's, as with ``selfplay_batch > 1``).
        endgame_empties: 0, or Othello's exact endgame from this many empty squares on (1 to ``ENDGAME_LIMIT``;
            needs ``search_path = "compiled"``): a self-play game ends at its first position with that few empty
            squares, with that position's result with perfect play (its records stop there, so its value
            targets are exact), and the searches see such positions as terminals with their exact results
            (``compiled_search``). The card's ``play`` entry records it, so the checkpoint's agents play the
            solver's move there and prove their moves with it (``agent.AlphaZeroAgent``).
        play_search_path, play_root_policy, play_simulations, play_endgame_empties: how the checkpoints'
            agents play (the card's ``play`` entry, ``searches.card_play``), where it differs from self-play's
            search without noise: ``"compiled"`` (``compiled_agent``: Othello, Hex and Tak; a move affords tens of
            times the simulations), ``"puct"`` or ``"gumbel"`` ("": self-play's), a budget (0: self-play's),
            the exact endgame's empty squares (0: ``endgame_empties``'s; Othello). Training never reads them.
        workers: self-play processes (0: one per core; with ``--ray``, Ray actors, 0: one per CPU of
            the cluster). With ``selfplay_batch = 1`` and ``workers = 1`` the run draws everything from
            its one generator, as before batching; otherwise each game has its own generator, seeded
            from the run's, so a run's games do not depend on which process or machine plays them.
        gate_games: games of the gating match (new network against the best so far) after each
            iteration; 0 turns gating off (the newest network is always the best).
        gate_threshold: the new network replaces the best if its score rate (a draw counts half)
            is at least this.
        gate_simulations: simulations per move in the gating match.
        gate_sample_moves: each gating agent draws its first moves from its visit counts, so the
            games differ.
        checkpoint_every: iterations between kept checkpoints ``checkpoints/iter_<k>``.
        resume_every: iterations between writes of the resumable state (and at the last): a run with a
            large replay window (Azul's: 360 MB) spends less time writing it, and an interrupted run
            repeats at most ``resume_every - 1`` iterations, which give the same results again.
    """

    game: str = "tictactoe"
    seed: int = 0
    iterations: int = 10
    games_per_iteration: int = 50
    search: MCTSConfig = dataclasses.field(default_factory=lambda: self_play_search())
    temperature_moves: int = 4
    reuse_tree: bool = True
    cheap_fraction: float = 0.0
    cheap_simulations: int = 0
    guide_prior_mix: float = 0.0
    guide_value_mix: float = 0.0
    guide_from: int = 0
    simulations_start: int = 0
    simulations_growth_iterations: int = 0
    symmetries: bool = True
    sample_symmetries: bool = False
    sample_symmetries_from: int = 0
    replay_positions: int = 50_000
    network: str = "mlp"
    ntuple_phases: int = 6
    ntuple_temperature: float = 0.25
    channels: tuple = ()
    hidden: tuple = (64, 64)
    action_head: bool = False
    optimizer: str = "adam"
    learning_rate: float = 0.003
    anneal_start: int = 0
    learning_rate_final: float = 0.0
    average_from: int = 0
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    value_discount: float = 1.0
    value_margin_scale: float = 0.0
    batch_size: int = 128
    train_steps: int = 100
    warm_start_games: int = 0
    warm_start_steps: int = 0
    warm_start_epsilon: float = 0.1
    inference: str = "numpy"
    selfplay_batch: int = 1
    search_path: str = "generic"
    endgame_empties: int = 0
    play_search_path: str = "generic"
    play_root_policy: str = ""
    play_simulations: int = 0
    play_endgame_empties: int = 0
    workers: int = 1
    gate_games: int = 0
    gate_threshold: float = 0.55
    gate_simulations: int = 50
    gate_sample_moves: int = 2
    checkpoint_every: int = 5
    resume_every: int = 1

    def __post_init__(self):
        object.__setattr__(self, "channels", tuple(self.channels))
        object.__setattr__(self, "hidden", tuple(self.hidden))
        if not isinstance(self.search, MCTSConfig):
            object.__setattr__(self, "search", self_play_search(**self.search))
        s = self.search
        checks = [
            (self.iterations >= 0, "iterations must be 0 or more"),
            (self.games_per_iteration >= 1, "games_per_iteration must be at least 1"),
            (self.gate_simulations >= 1, "gate_simulations must be at least 1"),
            (s.tree_policy == "puct", "search.tree_policy must be 'puct' (AlphaZero's search)"),
            (s.time_limit is None, "search.time_limit must be unset: a run's games never depend on the clock"),
            (self.temperature_moves >= 0 and self.gate_sample_moves >= 0,
             "temperature_moves and gate_sample_moves must be 0 or more"),
            (0 <= self.simulations_start <= s.simulations and self.simulations_growth_iterations >= 0,
             "simulations_start must lie between 1 and simulations (0: no growth), "
             "simulations_growth_iterations must be 0 or more"),
            ((self.simulations_start == 0) == (self.simulations_growth_iterations == 0),
             "simulations_start and simulations_growth_iterations go together: set both (a growing budget) or neither"),
            (0 <= self.cheap_fraction < 1, "cheap_fraction must lie in [0, 1) (0: every move a full search)"),
            (self.cheap_simulations >= 0, "cheap_simulations must be 0 or more"),
            (self.cheap_fraction == 0 or 1 <= self.cheap_simulations <= self.simulations_at(1),
             "with cheap_fraction > 0, cheap_simulations must lie between 1 and the first iteration's simulations"),
            (0 <= self.guide_prior_mix <= 1 and 0 <= self.guide_value_mix <= 1 and self.guide_from >= 0,
             "guide_prior_mix and guide_value_mix must lie in [0, 1], guide_from be 0 or more"),
            (self.search_path == "generic" or self.guide_prior_mix == self.guide_value_mix == 0,
             "guide_prior_mix and guide_value_mix need search_path 'generic' (the compiled search has no guide)"),
            (not (self.symmetries and self.sample_symmetries),
             "symmetries (store every image) and sample_symmetries (draw one per minibatch row) exclude each other"),
            (self.sample_symmetries_from >= 0, "sample_symmetries_from must be 0 or more"),
            (self.replay_positions >= 1, "replay_positions must be at least 1"),
            (self.network in NETWORKS, f"network must be one of {', '.join(NETWORKS)}"),
            (self.ntuple_phases >= 1 and self.ntuple_temperature > 0,
             "ntuple_phases must be at least 1 and ntuple_temperature positive"),
            (self.network == "mlp" or (self.inference == "numpy" and not self.action_head),
             "network = \"ntuple\" needs inference = \"numpy\" and no action_head (the tables are evaluated "
             "in numba; jax and the action head are the MLP's)"),
            (all(isinstance(w, int) and w >= 1 for w in (*self.channels, *self.hidden)),
             "channels and hidden must be lists of positive integers, e.g. [64, 64] (or [])"),
            (self.optimizer in OPTIMIZERS, f"optimizer must be one of {', '.join(OPTIMIZERS)}"),
            (self.learning_rate > 0, "learning_rate must be positive"),
            (self.anneal_start >= 0 and 0 <= self.learning_rate_final <= self.learning_rate,
             "anneal_start must be 0 or more and learning_rate_final lie between 0 and learning_rate"),
            ((self.anneal_start == 0) == (self.learning_rate_final == 0),
             "anneal_start and learning_rate_final go together: set both (an annealed learning rate) or neither"),
            (self.average_from >= 0, "average_from must be 0 (no averaging) or an iteration"),
            (self.average_from == 0 or self.gate_games == 0,
             "average_from needs gate_games = 0 (the gate compares the learner's networks, not their average)"),
            (self.weight_decay >= 0 and self.value_weight >= 0, "weight_decay and value_weight must be 0 or more"),
            (0 < self.value_discount <= 1, "value_discount must lie in (0, 1] (1: the final result undiscounted)"),
            (self.value_margin_scale >= 0, "value_margin_scale must be 0 (the result alone) or more"),
            (self.value_margin_scale == 0 or self.search_path == "generic",
             "value_margin_scale needs search_path 'generic' (the compiled search keeps no scores)"),
            (self.batch_size >= 1 and self.train_steps >= 0, "batch_size must be at least 1 and train_steps 0 or more"),
            (self.warm_start_games >= 0 and self.warm_start_steps >= 0,
             "warm_start_games and warm_start_steps must be 0 or more"),
            (0 <= self.warm_start_epsilon <= 1, "warm_start_epsilon must lie in [0, 1]"),
            (self.inference in INFERENCE, f"inference must be one of {', '.join(INFERENCE)}"),
            (self.selfplay_batch >= 1, "selfplay_batch must be at least 1"),
            (self.search_path in SEARCH_PATHS, f"search_path must be one of {', '.join(SEARCH_PATHS)}"),
            (self.search_path == "generic" or self.cheap_fraction == 0,
             "cheap_fraction > 0 needs search_path 'generic' (the compiled search plays no cheap moves)"),
            (0 <= self.endgame_empties <= ENDGAME_LIMIT,
             f"endgame_empties must lie between 0 (no exact endgame) and {ENDGAME_LIMIT} empty squares"),
            (self.endgame_empties == 0 or self.search_path == "compiled",
             "endgame_empties needs search_path 'compiled' (the exact endgame is in the compiled search)"),
            (self.endgame_empties == 0 or family_of(self.game) == "othello",
             f"endgame_empties needs an Othello game (the exact endgame is Othello's), not {self.game!r}"),
            (self.play_search_path in SEARCH_PATHS, f"play_search_path must be one of {', '.join(SEARCH_PATHS)}"),
            (self.play_root_policy in ("", "puct", "gumbel"),
             "play_root_policy must be \"puct\", \"gumbel\" or \"\" (self-play's)"),
            (self.play_simulations >= 0, "play_simulations must be 0 (self-play's) or more"),
            (0 <= self.play_endgame_empties <= ENDGAME_LIMIT
             and (self.play_endgame_empties == 0 or family_of(self.game) == "othello"),
             f"play_endgame_empties must be 0 (endgame_empties's) or, for Othello, at most {ENDGAME_LIMIT}"),
            (self.play_search_path == "generic" or family_of(self.game) in COMPILED_FAMILIES,
             f"play_search_path \"compiled\" needs Othello, Hex or Tak (the compiled rules), not {self.game!r}"),
            (self.workers >= 0, "workers must be 0 (one per core) or more"),
            (self.gate_games >= 0, "gate_games must be 0 or more (0: no gating)"),
            (0 <= self.gate_threshold <= 1, "gate_threshold must lie in [0, 1]"),
            (self.checkpoint_every >= 1 and self.resume_every >= 1, "checkpoint_every and resume_every must be at least 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise ConfigError(message)

    def simulations_at(self, iteration: int) -> int:
        """The full searches' budget in ``iteration`` (1: the first): ``simulations_start`` growing
        linearly (rounded down) to ``simulations`` over ``simulations_growth_iterations`` iterations, then
        ``simulations``; ``simulations`` throughout without growth."""
        total = self.search.simulations
        if self.simulations_growth_iterations == 0:
            return total
        done = min(max(iteration - 1, 0), self.simulations_growth_iterations)
        return self.simulations_start + (total - self.simulations_start) * done // self.simulations_growth_iterations

    def guide_at(self, iteration: int) -> tuple[float, float]:
        """``(guide_prior_mix, guide_value_mix)`` in ``iteration``'s self-play (1: the first), ``(0, 0)`` up to
        ``guide_from``."""
        if iteration <= self.guide_from:
            return 0.0, 0.0
        return self.guide_prior_mix, self.guide_value_mix

    def samples_symmetries(self, iteration: int) -> bool:
        """Whether ``iteration``'s training draws a random symmetry image of each row (``sample_symmetries``)."""
        return self.sample_symmetries and iteration > self.sample_symmetries_from

    def learning_rate_at(self, iteration: int) -> float:
        """The learning rate of ``iteration``'s training (1: the first; the warm start trains at iteration
        1's): ``learning_rate`` up to ``anneal_start``, then ``learning_rate_final + (learning_rate -
        learning_rate_final) * (1 + cos(pi * t)) / 2`` with ``t`` the share of the iterations after
        ``anneal_start`` done (1 at ``iterations``)."""
        if self.anneal_start == 0 or iteration <= self.anneal_start:
            return self.learning_rate
        t = min(1.0, (iteration - self.anneal_start) / max(self.iterations - self.anneal_start, 1))
        return self.learning_rate_final + (self.learning_rate - self.learning_rate_final) * (1 + math.cos(math.pi * t)) / 2

    def averaged(self, iteration: int) -> bool:
        """Whether the learner's parameters after ``iteration`` join the checkpoints' average (``average_from``)."""
        return 0 < self.average_from <= iteration

    def schedule_at(self, iteration: int) -> tuple:
        """What the schedules give ``iteration``: its learning rate, whether it joins the average, its guide
        mixes and whether it samples images (a continued run must keep these for the iterations done)."""
        return (self.learning_rate_at(iteration), self.averaged(iteration), self.guide_at(iteration),
                self.samples_symmetries(iteration))

    @classmethod
    def from_data(cls, values: Mapping[str, Any]) -> "AlphaZeroConfig":
        """The config that ``to_dict`` data describes (of any age: ``upgrade``; keys added since: defaults)."""
        return cls(**upgrade(values))

    def flat(self) -> dict[str, Any]:
        """``to_dict`` with every search setting (unset ones as None) as a top-level ``search.<name>`` key, for
        key-by-key comparison: a setting set on one side and unset on the other differs."""
        out = self.to_dict()
        del out["search"]
        out.update({f"search.{key}": value for key, value in dataclasses.asdict(self.search).items()})
        return out

    def to_dict(self) -> dict[str, Any]:
        """The config as JSON/TOML-able data (lists for the layer widths, the search as a table of its set
        values: an unset ``fpu_reduction`` or ``time_limit`` is left out)."""
        out = dataclasses.asdict(self)
        out["channels"], out["hidden"] = list(self.channels), list(self.hidden)
        out["search"] = {key: value for key, value in out["search"].items() if value is not None}
        return out


FIELD_KINDS = field_kinds(AlphaZeroConfig)  # each field's kind (``search``: an MCTSConfig, a table: ``_coerce``)

SEARCH_KINDS = field_kinds(MCTSConfig, {"fpu_reduction": float, "time_limit": float})  # unset (None) by default


def _coerce(key: str, value, text: bool = False):
    """``value`` (from TOML, or parsed from ``--set``: ``text``) as the kind of field ``key``
    (``azcourse.run_config.coerce_value``); ``search`` is a table of ``MCTSConfig``'s fields,
    ``search.<name>`` one of them."""
    if key == "search":
        if not isinstance(value, Mapping):
            raise ConfigError(f"search must be a table of search settings ([search] in TOML), got {value!r}")
        return {name: _coerce(f"search.{name}", v, text) for name, v in value.items()}
    if key.startswith("search."):
        name = key.removeprefix("search.")
        if name not in SEARCH_KINDS:
            raise ConfigError(f"unknown key {key!r}; known search keys: {', '.join(SEARCH_KINDS)}")
        return coerce_value(key, value, SEARCH_KINDS[name], text=text)
    return coerce_field(FIELD_KINDS, key, value, text=text)


def load_config(path=None, overrides: Mapping[str, Any] | None = None) -> AlphaZeroConfig:
    """The defaults, updated by the TOML file at ``path`` (if any), then by ``overrides`` (``search.<name>``
    for a search setting; ``parse_override`` reads ``--set``); files and overrides of the shape before the
    ``[search]`` table are read too (``upgrade``).

    Raises:
        ConfigError: unreadable file, unknown key, wrong kind of value, or a value out of range.
    """
    return load_dataclass(AlphaZeroConfig, path, overrides, coerce=_coerce, upgrade=upgrade)


def to_toml(config: AlphaZeroConfig) -> str:
    """``config`` as TOML text that ``load_config`` reads back to an equal config."""
    return toml_text(config.to_dict())
