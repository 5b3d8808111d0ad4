"""On-policy MCTS training of the Hex ANET (the pseudocode of the Hex assignment, section 4.1).

For each episode (actual game):

1. Start from the empty board (player 2 opens every other episode when ``alternate_start``) and a
   fresh tree.
2. At each actual move: ``search_games`` UCT search games from the root, each with a rollout by
   the current ANET (epsilon-greedy, ``azcourse.core.evaluators.EpsilonGreedyPolicy``) to the end
   of the game; D = the root's normalised visit counts; the case (encoded root, D) goes into the
   replay buffer (with its 180-degree turn when ``rotate_cases``); the actual move is drawn from D (or the most visited, ``move_choice``); the
   search keeps the subtree under it (``MCTS.advance``).
3. After the game: ``train_steps`` minibatches from the buffer, each one optax step on the
   cross-entropy between D and ANET's renormalised softmax.
4. Every ``save_every`` episodes: cache the ANET (``anet_<episode>``, with a card). The untrained
   net is cached as ``anet_0`` before the first episode.

The weights are copied into a numpy network (``NumpyANET``) once per episode for the rollouts. After
every episode the run's state (parameters, optimizer state, buffer, random generator, episode
counter) is written to ``<run>/resume/``; ``train`` on a folder holding it continues from there, and
gives the same result as an uninterrupted run with the same config.
"""
from __future__ import annotations

import csv
import datetime
import json
import os
import pathlib
import time
from typing import NamedTuple

import numpy as np

from azcourse.core.evaluators import RolloutEvaluator
from azcourse.hex.game import Hex, HexState
from azcourse.hex.display import HexDisplay
from azcourse.core.mcts import MCTS, MCTSConfig, visit_distribution
from azcourse.progress import progress
from azcourse.run_config import CONFIG_FILE, RESUME_FILE, check_resumable, open_run_folder  # noqa: F401 (the folder's files)

from . import anet
from .checkpoints import anet_dir, save_anet
from .config import ConfigError, HexConfig, load_config, to_toml
from .replay import ReplayBuffer

LOG_FILE = "training_log.csv"  # and the run folder's CONFIG_FILE, RESUME_FILE (run_config)
LOG_FIELDS = ("episode", "first_player", "moves", "winner", "epsilon", "loss", "buffer", "seconds",
              "search_games_per_s")
# keys that may differ between an interrupted run and its continuation
RESUMABLE_CHANGES = ("episodes", "display", "display_mode", "topp_games", "topp_policy", "topp_epsilon")


class TrainResult(NamedTuple):
    """What ``train`` returns: the run folder, the episodes done, the cached ANETs' folders."""

    run_dir: pathlib.Path
    episodes: int
    cached: list


def opening_state(game: Hex, player: int) -> HexState:
    """The empty board with protocol player ``player`` (0 or 1) to move."""
    return HexState(bytes(game.action_space_size), int(player), -1)


def param_count(params) -> int:
    return int(sum(np.size(leaf) for layer in params.values() for leaf in layer.values()))


def make_card(config: HexConfig, params, episode: int, stats: dict) -> dict:
    n = config.board_size
    return {
        "name": f"hex{n}_anet_{episode}",
        "format": "flax.serialization msgpack of the 'params' collection (params.msgpack)",
        "architecture": {"type": "MLP", "input": "azcourse.hex.game.Hex.encode", "input_dim": 2 + 2 * n * n,
                         "cells": n * n, "board_size": n, "hidden_layers": list(config.hidden_layers),
                         "activation": config.activation, "output": "softmax renormalised over legal cells",
                         "param_count": param_count(params)},
        "episode": episode,
        "training": {"config": config.to_dict(), **stats},
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


class _Run:
    """The mutable state of a training run (everything a resume needs)."""

    def __init__(self, config: HexConfig):
        self.config = config
        n = config.board_size
        self.module = anet.module_for(config)
        self.optimizer = anet.make_optimizer(config.optimizer, config.learning_rate)
        self.step = anet.make_train_step(self.module, self.optimizer)
        self.params = anet.init_params(config)
        self.opt_state = self.optimizer.init(self.params)
        self.buffer = ReplayBuffer(config.buffer_size, 2 + 2 * n * n, n * n)
        self.rng = np.random.default_rng(config.seed)
        self.episode = 0
        self.wall_s = 0.0

    def save(self, path: pathlib.Path) -> None:
        from flax import serialization

        blob = {"params": self.params, "opt_state": serialization.to_state_dict(self.opt_state),
                "buffer": self.buffer.arrays(), "episode": self.episode, "wall_s": self.wall_s,
                "rng": json.dumps(self.rng.bit_generator.state), "config": json.dumps(self.config.to_dict())}
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(serialization.msgpack_serialize(serialization.to_state_dict(blob)))
        os.replace(tmp, path)  # an interruption mid-write leaves the previous state intact

    def restore(self, path: pathlib.Path) -> None:
        from flax import serialization

        blob = serialization.msgpack_restore(path.read_bytes())
        check_resumable(json.loads(blob["config"]), self.config.to_dict(), RESUMABLE_CHANGES, path.parent.parent)
        self.params = serialization.from_state_dict(self.params, blob["params"])
        self.opt_state = serialization.from_state_dict(self.opt_state, blob["opt_state"])
        self.buffer = ReplayBuffer.from_arrays(self.config.buffer_size, blob["buffer"])
        self.rng.bit_generator.state = json.loads(blob["rng"])
        self.episode, self.wall_s = int(blob["episode"]), float(blob["wall_s"])


def rotate_case(x: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A case turned by 180 degrees: cell ``i`` becomes cell ``n*n - 1 - i``. The turn swaps each
    player's two sides, so the turned position is worth the same to both. ``x`` float32
    ``(2 + 2 n^2,)`` (player bits kept), ``target`` ``(n^2,)``."""
    cells = x[2:].reshape(-1, 2)[::-1].reshape(-1)
    return np.concatenate([x[:2], cells]), target[::-1].copy()


def play_episode(game: Hex, net: anet.NumpyANET, config: HexConfig, epsilon: float, first_player: int,
                 rng: np.random.Generator, buffer: ReplayBuffer, display: HexDisplay, caption: str) -> HexState:
    """One actual game of on-policy MCTS; adds one case per move to ``buffer``; returns the final state."""
    search = MCTS(game, RolloutEvaluator(net.rollout_policy(game, epsilon)),
                  MCTSConfig(simulations=config.search_games, tree_policy="uct", c_uct=config.c_uct), rng)
    state = opening_state(game, first_player)
    display.show(game, state, caption)
    while not game.is_terminal(state):
        d = visit_distribution(search.search(state).visits, 1.0)
        x = game.encode(state)
        buffer.add(x, d)
        if config.rotate_cases:
            buffer.add(*rotate_case(x, d))
        if config.move_choice == "sample":
            action = int(rng.choice(len(d), p=d))
        else:
            action = int(np.argmax(d))
        search.advance(action)
        state = game.next_state(state, action)
        display.show(game, state, f"{caption}: {game.action_to_text(state, action)}", last_action=action)
    return state


def train(config: HexConfig, run_dir, show_progress: bool = True) -> TrainResult:
    """Train (or continue training) the ANET of ``config`` in ``run_dir``.

    A folder holding ``resume/state.msgpack`` is continued from its last finished episode up to
    ``config.episodes``; a new or empty folder starts a run; a folder holding other files is
    refused, so a run never overwrites another.

    Raises:
        ConfigError: the folder holds a different run, or files of something else.
    """
    run_dir = pathlib.Path(run_dir)
    game = Hex(config.board_size)
    run = _Run(config)
    log_path = run_dir / LOG_FILE
    resume = open_run_folder(run_dir, run, to_toml(config), log_file=LOG_FILE, log_fields=LOG_FIELDS, counter="episode",
                             start=lambda: save_anet(anet_dir(run_dir, 0), run.params,
                                                     make_card(config, run.params, 0, {"cases_seen": 0})))
    display = HexDisplay(config.display, config.display_mode)
    bar = progress(total=config.episodes, initial=min(run.episode, config.episodes), desc=f"{game.name} training",
                   disable=not show_progress)
    try:
        while run.episode < config.episodes:
            e = run.episode + 1
            started = time.perf_counter()
            epsilon = config.rollout_epsilon(e - 1)
            first = (e - 1) % 2 if config.alternate_start else 0
            net = anet.NumpyANET(run.params, config.activation)
            final = play_episode(game, net, config, epsilon, first, run.rng, run.buffer, display, f"episode {e}")
            moves = sum(1 for c in final.cells if c)
            losses = []
            for _ in range(config.train_steps):
                x, target = run.buffer.sample(config.batch_size, run.rng)
                run.params, run.opt_state, loss = run.step(run.params, run.opt_state, x, target)
                losses.append(float(loss))
            seconds = time.perf_counter() - started
            run.episode, run.wall_s = e, run.wall_s + seconds
            row = {"episode": e, "first_player": first + 1, "moves": moves, "winner": final.winner + 1,
                   "epsilon": round(epsilon, 4), "loss": round(float(np.mean(losses)), 5) if losses else "",
                   "buffer": len(run.buffer), "seconds": round(seconds, 3),
                   "search_games_per_s": round(moves * config.search_games / seconds, 1)}
            if e % config.save_every == 0:
                stats = {"cases_seen": run.buffer.added, "rollout_epsilon": round(epsilon, 4),
                         "last_loss": row["loss"], "wall_time_s": round(run.wall_s, 1)}
                save_anet(anet_dir(run_dir, e), run.params, make_card(config, run.params, e, stats))
            with log_path.open("a", newline="") as f:
                csv.DictWriter(f, LOG_FIELDS).writerow(row)
            run.save(resume)
            bar.set_postfix(loss=row["loss"], eps=row["epsilon"], refresh=False)
            bar.update(1)
    finally:
        bar.close()
    cached = sorted((p for p in run_dir.glob("anet_*") if p.is_dir()), key=lambda p: int(p.name.split("_")[1]))
    return TrainResult(run_dir, run.episode, cached)


def load_run_config(run_dir) -> HexConfig:
    """The configuration a run folder was trained with (its ``config.toml``)."""
    return load_config(pathlib.Path(run_dir) / CONFIG_FILE)
