"""The AlphaZero training loop for any two-player game of the game layer.

Each iteration:

1. Self-play: ``games_per_iteration`` games of the best network against itself
   (``selfplay.play_game``: PUCT with ``simulations`` per move, Dirichlet noise at the root,
   temperature 1 for the first ``temperature_moves`` moves then greedy, subtree kept; or Gumbel
   search, ``root_policy``, each move the search's Gumbel choice). A growing budget
   (``simulations_start``) sets the iteration's ``simulations`` (``AlphaZeroConfig.simulations_at``);
   with ``cheap_fraction > 0`` some moves are cheap searches without a policy target; with guide
   mixes (``guide_at``) the leaves mix the game's hand-written ``guide`` into the network's. The network
   runs in numpy (or jitted JAX, ``inference``), its outputs cached by position for the iteration.
   With ``selfplay_batch > 1`` or ``workers != 1`` (or ``--ray``, or ``search_path = "compiled"``) the
   games go to a pool of workers (``workers``: this process, every core, or Ray actors),
   ``selfplay_batch`` games in lockstep each, one seed per game drawn from the run's generator.
2. Every position, with its images under the game's symmetries, goes into the replay window (the
   last ``replay_positions``).
3. Training: ``train_steps`` optax steps on minibatches of ``batch_size`` drawn from the window (each
   row a random symmetry image of itself with ``sample_symmetries``), loss = value MSE + policy
   cross-entropy (over the positions with a policy target) + L2 (``learn``), at the iteration's
   learning rate (``AlphaZeroConfig.learning_rate_at``: constant, or annealed after
   ``anneal_start``); the mean of each term is logged. The network is the MLP or, with ``network =
   "ntuple"``, Othello's pattern tables (``ntuple``), whose minibatches are turned into the tables'
   gathers (``ntuple.kernels.features``) ``FEATURE_CHUNK`` steps at a time.
4. Gating (``gate_games > 0``): the new network plays the best one; it becomes the best if its
   score rate reaches ``gate_threshold``. Without gating the new network is always the best.
5. Bookkeeping: one row of ``log.csv``, the best network to ``best/`` (a checkpoint with its card;
   from ``average_from`` on, this and the kept copies hold the mean of the learner's networks since),
   every ``checkpoint_every`` iterations (and the last) a kept copy ``checkpoints/iter_<k>``, and
   every ``resume_every`` iterations (and the last) the resumable state ``resume/state.msgpack``
   (parameters, best parameters, average, optimizer state, replay window, generator state, iteration),
   written atomically.

Before the first iteration a run may warm-start by imitating the game's teacher (``warm_start``).

``train`` on a folder holding a resumable state continues from its last finished iteration and
gives the same parameters, bit for bit, as an uninterrupted run of the same config.
"""
from __future__ import annotations

import csv
import datetime
import functools
import json
import os
import pathlib
import platform
import time
from typing import NamedTuple

import numpy as np

from azcourse.core.arena import play_match
from azcourse.core.mcts import MCTS
from azcourse.progress import progress
from azcourse.registry import make_game, make_teacher
from azcourse.run_config import CONFIG_FILE, RESUME_FILE, check_resumable, open_run_folder  # noqa: F401 (the folder's files)

from . import learn, searches
from .agent import AlphaZeroAgent
from .checkpoints import BEST_DIR, FORMAT, save_checkpoint, write_atomic
from .config import AlphaZeroConfig, ConfigError, to_toml
from .network import param_count
from .ntuple.patterns import NTupleSpec
from .replay import ReplayWindow, random_images
from .selfplay import play_game, positions
from .warm_start import warm_start
from .workers import check_guide, leaf_evaluator, make_pool, network_spec, predictor_for

LOG_FILE, CHECKPOINTS = "log.csv", "checkpoints"  # and the run folder's CONFIG_FILE, RESUME_FILE (run_config)
LOG_FIELDS = ("iteration", "games", "positions", "replay", "mean_moves", "draw_rate", *learn.TERMS, "total_loss",
              "learning_rate", "selfplay_s", "train_s", "moves_per_s", "simulations_per_s", "gate_score", "accepted",
              "wall_s")
TIMING_FIELDS = ("selfplay_s", "train_s", "moves_per_s", "simulations_per_s", "wall_s")
FEATURE_CHUNK = 25  # training steps whose pattern-table gathers are computed at once (~60 MB at batch 512, 8x8)
# keys that may change when a run continues (the schedules only where the iterations done keep theirs: ``restore``)
RESUMABLE_CHANGES = ("iterations", "checkpoint_every", "resume_every", "workers", "selfplay_batch", "search_path",
                     "anneal_start", "learning_rate_final", "average_from", "guide_prior_mix", "guide_value_mix",
                     "guide_from", "sample_symmetries", "sample_symmetries_from", "play_search_path", "play_root_policy",
                     "play_simulations", "play_endgame_empties")


class TrainResult(NamedTuple):
    """What ``train`` returns: the run folder, the iterations done, the best checkpoint's folder."""

    run_dir: pathlib.Path
    iterations: int
    best: pathlib.Path


class Run:
    """The state of a run: everything a resume needs, and the functions built from the config.

    Attributes:
        game, spec: the game and the network's shape; optimizer, steps: ``learn.training_for``.
        params, best_params: the trained network and the one self-play uses (equal without gating).
        average: the mean of the learner's parameters over the iterations done since ``average_from``
            (None before); ``exported`` is what the checkpoints hold.
        opt_state: the optimizer's state.
        replay: the ``ReplayWindow``.
        rng: the run's one ``numpy.random.Generator`` (self-play, noise, minibatches, gating seeds).
        iteration: iterations finished; wall_s: seconds spent in them; totals: games and positions.
    """

    def __init__(self, config: AlphaZeroConfig):
        self.config = config
        self.game = make_game(config.game)
        check_guide(config, self.game)
        if config.sample_symmetries and not hasattr(self.game, "symmetry_maps"):
            raise ConfigError(f"sample_symmetries needs a game with symmetry_maps; {config.game} has none")
        if self.game.num_players != 2:
            raise ConfigError(f"{config.game} has {self.game.num_players} players; the trainer's value head "
                              "is one number for the player to move of a two-player game")
        if config.search_path == "compiled":
            from .compiled_search import refuse_unsupported

            # a ConfigError for a game or setting it cannot do, before the run folder is touched
            refuse_unsupported(config.search, self.game)
        if config.value_margin_scale and not hasattr(self.game, "scores"):
            raise ConfigError(f"value_margin_scale needs a game that keeps scores; {config.game} has none")
        if config.warm_start_games:
            try:
                make_teacher(config.game)
            except ValueError as problem:
                raise ConfigError(str(problem)) from None
        self.spec = network_spec(config, self.game)
        self.optimizer, self.steps = learn.training_for(self.spec, config.optimizer, config.learning_rate,
                                                        config.value_weight, config.weight_decay)
        self.params = self.best_params = learn.initial_params(self.spec, config.seed)
        self.average = None
        self.opt_state = self.optimizer.init(self.params)
        self.replay = ReplayWindow(config.replay_positions, self.spec.encoding_shape, self.spec.actions)
        self.rng = np.random.default_rng(config.seed)
        self.iteration, self.wall_s = 0, 0.0
        self.totals = {"games": 0, "positions": 0}

    def save(self, path: pathlib.Path) -> None:
        """The resumable state, written atomically (an interruption leaves the previous one)."""
        from flax import serialization

        blob = {"params": self.params, "best_params": self.best_params,
                **({"average": self.average} if self.average is not None else {}),
                "opt_state": serialization.to_state_dict(self.opt_state), "replay": self.replay.arrays(),
                "iteration": self.iteration, "wall_s": self.wall_s, "totals": json.dumps(self.totals),
                "rng": json.dumps(self.rng.bit_generator.state), "config": json.dumps(self.config.to_dict())}
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, serialization.msgpack_serialize(serialization.to_state_dict(blob)))

    def restore(self, path: pathlib.Path) -> None:
        """Continue from a state ``save`` wrote for a run of the same config (``RESUMABLE_CHANGES`` aside).

        Raises:
            ConfigError: the saved run's config differs in another key, or a change of schedule would
                give an iteration already done another learning rate or average.
        """
        from flax import serialization

        blob = serialization.msgpack_restore(path.read_bytes())
        before = AlphaZeroConfig.from_data(json.loads(blob["config"]))  # keys added since: their defaults
        check_resumable(before.flat(), self.config.flat(), RESUMABLE_CHANGES, path.parent.parent)
        done = int(blob["iteration"])
        if any(before.schedule_at(i) != self.config.schedule_at(i) for i in range(1, done + 1)):
            raise ConfigError(f"{path.parent.parent} has done {done} iterations; a new anneal_start, "
                              "learning_rate_final, average_from, guide mix, sample_symmetries or iterations may "
                              "change the iterations after those only (anneal_start, average_from, guide_from and "
                              "sample_symmetries_from at or above the iterations done)")
        self.params = serialization.from_state_dict(self.params, blob["params"])
        self.best_params = serialization.from_state_dict(self.params, blob["best_params"])
        self.average = serialization.from_state_dict(self.params, blob["average"]) if "average" in blob else None
        self.opt_state = serialization.from_state_dict(self.opt_state, blob["opt_state"])
        self.replay = ReplayWindow.from_arrays(self.config.replay_positions, blob["replay"])
        self.rng.bit_generator.state = json.loads(blob["rng"])
        self.iteration, self.wall_s = int(blob["iteration"]), float(blob["wall_s"])
        self.totals = json.loads(blob["totals"])

    def forward(self, params):
        """The forward pass self-play and gating use for ``params`` (``config.inference``)."""
        return predictor_for(self.config, self.game, self.spec, params).forward

    def search(self, params, iteration: int) -> MCTS:
        """``iteration``'s self-play search for ``params`` (``searches.full`` with its
        ``simulations_at``, leaves by ``workers.leaf_evaluator``), on the run's generator."""
        c = self.config
        predictor = predictor_for(c, self.game, self.spec, params)
        return MCTS(self.game, leaf_evaluator(c, predictor, iteration), searches.full(c, iteration),
                    self.rng)

    def accumulate(self) -> None:
        """Add the learner's parameters of the iteration just finished to the average (``average_from``)."""
        if not self.config.averaged(self.iteration):
            return
        import jax

        count = self.iteration - self.config.average_from + 1  # this iteration's network included
        if self.average is None:
            self.average = self.params
        else:
            self.average = jax.tree_util.tree_map(lambda a, p: a + (p - a) / count, self.average, self.params)

    @property
    def exported(self):
        """The network the checkpoints hold: the average once there is one, else the best."""
        return self.best_params if self.average is None else self.average

    @property
    def batched(self) -> bool:
        """Whether self-play goes through a pool of workers, each game with its own generator (see
        ``workers``), rather than one game at a time on the run's generator (the compiled search always does)."""
        c = self.config
        return c.selfplay_batch > 1 or c.workers != 1 or c.search_path == "compiled"


def make_card(run: Run, params, iteration: int, figures: dict, command: str) -> dict:
    """The card of a checkpoint of ``run`` (see ``checkpoints``)."""
    c = run.config
    if isinstance(run.spec, NTupleSpec):
        kind = {"type": "pattern tables (n-tuples) tied under the board's 8 symmetries, by game phase",
                "policy_head": "softmax of the children's values (the same tables) at a learned temperature, "
                               "plus a prior bias per phase and class of squares"}
    else:
        kind = {"type": ("3x3 convolutions + " if c.channels else "") + "MLP, ReLU; policy and value heads",
                "policy_head": "logits over the whole action space (softmax)"}
    return {
        "name": f"{c.game}_az_iter_{iteration}",
        "format": FORMAT,
        "game": run.game.name,
        "architecture": {"type": kind["type"],
                         "input": f"{type(run.game).__module__}.{type(run.game).__name__}.encode",
                         **run.spec.as_dict(), "policy_head": kind["policy_head"],
                         "value_head": "tanh, the result expected by the player to move",
                         "param_count": param_count(params)},
        "play": searches.card_play(c),
        "iteration": iteration,
        "training": {"config": c.to_dict(), **figures, "log": LOG_FILE},
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "machine": machine(),
    }


def machine() -> dict:
    """Where the run trains: the host's system, CPUs and JAX's devices (a GPU when JAX sees one)."""
    import jax

    return {"system": platform.platform(terse=True), "cpus": os.cpu_count(),
            "jax_devices": sorted({f"{d.platform}:{d.device_kind}" for d in jax.devices()})}


def _games(run: Run, pool, show_progress: bool):
    """The iteration's self-play games, in order: one at a time on the run's generator, or through
    ``pool`` (``workers``) with one seed per game drawn from it."""
    c = run.config
    iteration = run.iteration + 1
    if pool is None:
        search, cheap = run.search(run.best_params, iteration), searches.cheap(c)
        for _ in progress(range(c.games_per_iteration), desc="self-play", leave=False, disable=not show_progress):
            yield play_game(run.game, search, c.temperature_moves, run.rng, c.reuse_tree, cheap, c.cheap_fraction)
        return
    seeds = run.rng.integers(0, 2 ** 63 - 1, size=c.games_per_iteration, dtype=np.int64).tolist()
    yield from pool.play(run.best_params, seeds, iteration)


def self_play(run: Run, show_progress: bool, pool=None) -> dict:
    """Step 1-2 of an iteration: the games, into the replay window. Returns the log figures."""
    c = run.config
    moves, full, draws, started = 0, 0, 0, time.perf_counter()
    for played in _games(run, pool, show_progress):
        run.replay.add(*positions(run.game, played, c.symmetries, c.value_discount, c.value_margin_scale))
        moves += played.moves
        full += int(played.weights.sum())
        draws += not played.returns.any()
    seconds = time.perf_counter() - started
    run.totals["games"] += c.games_per_iteration
    run.totals["positions"] += moves
    return {"games": run.totals["games"], "positions": run.totals["positions"], "replay": len(run.replay),
            "mean_moves": round(moves / c.games_per_iteration, 2), "draw_rate": round(draws / c.games_per_iteration, 4),
            "selfplay_s": round(seconds, 3), "moves_per_s": round(moves / seconds, 1),
            "simulations_per_s": round((full * c.simulations_at(run.iteration + 1)
                                        + (moves - full) * c.cheap_simulations) / seconds, 1)}


def fit(run: Run, steps: int | None = None) -> dict:
    """Step 3: ``steps`` minibatches (default ``train_steps``). Returns the mean of each loss term (blank
    with no steps)."""
    c = run.config
    steps = c.train_steps if steps is None else steps
    if steps == 0:
        return {key: "" for key in (*learn.TERMS, "total_loss", "learning_rate", "train_s")}
    started = time.perf_counter()
    xs, pis, zs, ws = run.replay.sample(steps, c.batch_size, run.rng)
    if c.samples_symmetries(run.iteration + 1):
        xs, pis = random_images(xs, pis, run.game.symmetry_maps(), run.rng)
    # without cheap moves every position has a policy target: today's loss, without the weights
    ws = ws if c.cheap_fraction > 0 else None
    learning_rate = c.learning_rate_at(run.iteration + 1)
    if isinstance(run.spec, NTupleSpec):
        terms = _fit_tables(run, xs, pis, zs, ws, learning_rate / c.learning_rate)
    else:
        run.params, run.opt_state, terms = run.steps(run.params, run.opt_state, xs, pis, zs, ws,
                                                     learning_rate / c.learning_rate)
    means = np.asarray(terms, np.float64).mean(axis=0)
    row = {key: round(float(value), 5) for key, value in zip(learn.TERMS, means)}
    row["total_loss"] = round(float(c.value_weight * means[0] + means[1] + means[2]), 5)
    row["learning_rate"] = float(f"{learning_rate:.6g}")
    row["train_s"] = round(time.perf_counter() - started, 3)
    return row


def _fit_tables(run: Run, xs, pis, zs, ws, scale: float) -> np.ndarray:
    """``run.steps`` on the pattern tables: the minibatches ``xs`` (encodings ``(S, B, 3, n, n)``) as the tables'
    gathers (``ntuple.kernels.features``), ``FEATURE_CHUNK`` steps at a time; float32 ``(S, 3)``: each step's
    loss terms."""
    from .ntuple.kernels import features

    terms = []
    for start in range(0, len(xs), FEATURE_CHUNK):
        part = slice(start, start + FEATURE_CHUNK)
        run.params, run.opt_state, done = run.steps(run.params, run.opt_state, features(run.spec, xs[part]),
                                                    pis[part], zs[part], None if ws is None else ws[part], scale)
        terms.append(np.asarray(done))
    return np.concatenate(terms)


def gate(run: Run) -> dict:
    """Step 4: the new network against the best; it replaces the best when it scores enough."""
    c = run.config
    if c.gate_games == 0:
        run.best_params = run.params
        return {"gate_score": "", "accepted": ""}
    agent = functools.partial(AlphaZeroAgent, run.game, search=searches.gate(c), sample_moves=c.gate_sample_moves)
    new, best = run.forward(run.params), run.forward(run.best_params)
    summary = play_match(lambda: run.game, lambda rng: agent(new, rng=rng, name="new"),
                         lambda rng: agent(best, rng=rng, name="best"),
                         games=c.gate_games, seed=int(run.rng.integers(2 ** 31)), progress=False)
    accepted = summary.score_rate >= c.gate_threshold
    if accepted:
        run.best_params = run.params
    return {"gate_score": round(summary.score_rate, 4), "accepted": int(accepted)}


def train(config: AlphaZeroConfig, run_dir, show_progress: bool = True, command: str | None = None,
          ray_address: str | None = None) -> TrainResult:
    """Train (or continue training) the network of ``config`` in ``run_dir``.

    A folder holding ``resume/state.msgpack`` continues from its last finished iteration up to
    ``config.iterations``; a new or empty folder starts a run; a folder holding other files is
    refused, so a run never overwrites another.

    Args:
        command: the command line recorded in the cards (default: this function's name).
        ray_address: play self-play on the Ray cluster at this address (``"auto"``, ``"host:port"``, or
            ``"local"`` for one started here) with ``config.workers`` actors, instead of this machine.
    Raises:
        ConfigError: the folder holds a different run or other files, or the game does not suit.
    """
    run_dir = pathlib.Path(run_dir)
    command = command or "azcourse.alphazero.train.train"
    run = Run(config)
    log_path = run_dir / LOG_FILE

    def start():
        if config.warm_start_games:
            run.totals["warm_start"] = warm_start(run, fit, show_progress)
            run.best_params = run.params
        card = make_card(run, run.params, 0, {**run.totals}, command)
        save_checkpoint(run_dir / BEST_DIR, run.params, card)
        save_checkpoint(run_dir / CHECKPOINTS / "iter_0000", run.params, card)

    resume = open_run_folder(run_dir, run, to_toml(config), log_file=LOG_FILE, log_fields=LOG_FIELDS,
                             counter="iteration", start=start)
    bar = progress(total=config.iterations, initial=min(run.iteration, config.iterations),
                   desc=f"{run.game.name} AlphaZero", disable=not show_progress)
    pool = make_pool(config, ray_address) if (run.batched or ray_address) and run.iteration < config.iterations else None
    try:
        while run.iteration < config.iterations:
            started = time.perf_counter()
            row = {"iteration": run.iteration + 1, **self_play(run, show_progress, pool), **fit(run), **gate(run)}
            run.iteration += 1
            run.accumulate()
            run.wall_s += time.perf_counter() - started
            row["wall_s"] = round(run.wall_s, 1)
            figures = {**run.totals, "wall_time_s": row["wall_s"],
                       "last_iteration": {k: row[k] for k in LOG_FIELDS if k not in ("iteration", "wall_s")}}
            card = make_card(run, run.exported, run.iteration, figures, command)
            save_checkpoint(run_dir / BEST_DIR, run.exported, card)
            if run.iteration % config.checkpoint_every == 0 or run.iteration == config.iterations:
                kept = run.params if run.average is None else run.average
                save_checkpoint(run_dir / CHECKPOINTS / f"iter_{run.iteration:04d}", kept,
                                make_card(run, kept, run.iteration, figures, command))
            with log_path.open("a", newline="") as f:
                csv.DictWriter(f, LOG_FIELDS).writerow(row)
            if run.iteration % config.resume_every == 0 or run.iteration == config.iterations:
                run.save(resume)
            bar.set_postfix(value=row["value_loss"], policy=row["policy_loss"], l2=row["l2"],
                            draws=row["draw_rate"], refresh=False)
            bar.update(1)
    finally:
        bar.close()
        if pool is not None:
            pool.close()
    return TrainResult(run_dir, run.iteration, run_dir / BEST_DIR)

