"""A warm start by imitation, before the first iteration of a run (``warm_start_games > 0``).

Self-play from a random network spends its first iterations learning what a hand-written player already
knows (an Azul take's immediate score, for instance). So a run may start from the game's *teacher*
(``azcourse.registry.make_teacher``: Azul's greedy player): ``warm_start_games`` games of the teacher
against itself, where each move is, with probability ``warm_start_epsilon``, a uniformly random legal move
instead (so the positions vary), go into the replay window with the teacher's choice at every position as a
one-hot policy target and the game's result as the value target; then ``warm_start_steps`` minibatches train
the network on them, and the first self-play starts from that network. The games stay in the window until
self-play pushes them out. Everything is drawn from the run's generator, so a run is as repeatable as
without the warm start.
"""
from __future__ import annotations

import time

import numpy as np

from azcourse.progress import progress
from azcourse.registry import make_teacher

from .selfplay import SelfPlayGame, final_margins, positions


def teacher_game(game, teacher, epsilon: float, rng: np.random.Generator) -> SelfPlayGame:
    """One game of ``teacher(state, rng) -> action`` against itself, a uniformly random legal move played
    instead with probability ``epsilon``; each position's policy target is the teacher's choice (one-hot)."""
    state = game.initial_state(rng)
    xs, pis, movers = [], [], []
    while True:
        while game.is_chance(state) and not game.is_terminal(state):
            state = game.resolve_chance(state, rng)
        if game.is_terminal(state):
            break
        choice = int(teacher(state, rng))
        target = np.zeros(game.action_space_size, np.float32)
        target[choice] = 1.0
        xs.append(game.encode(state))
        pis.append(target)
        movers.append(game.to_move(state))
        if rng.random() < epsilon:
            legal = np.flatnonzero(game.legal_mask(state))
            choice = int(legal[int(rng.random() * len(legal))])
        state = game.next_state(state, choice)
    returns = np.asarray(game.returns(state), np.float64)
    return SelfPlayGame(np.asarray(xs, np.float32), np.asarray(pis, np.float32),
                        returns[np.asarray(movers, dtype=np.int64)].astype(np.float32), returns,
                        margin=final_margins(game, state, movers))


def warm_start(run, train, show_progress: bool = True) -> dict:
    """The warm start of ``run`` (a ``train.Run`` at iteration 0): the teacher's games into its replay window,
    then ``train(run, steps)`` for ``warm_start_steps`` minibatches. Returns its figures for the cards."""
    c = run.config
    teacher = make_teacher(c.game)
    started = time.perf_counter()
    moves = 0
    for _ in progress(range(c.warm_start_games), desc="warm start: teacher games", leave=False,
                      disable=not show_progress):
        played = teacher_game(run.game, teacher, c.warm_start_epsilon, run.rng)
        run.replay.add(*positions(run.game, played, c.symmetries, c.value_discount, c.value_margin_scale))
        moves += played.moves
    played_s = time.perf_counter() - started
    row = train(run, c.warm_start_steps)
    return {"games": c.warm_start_games, "positions": moves, "steps": c.warm_start_steps,
            "games_s": round(played_s, 1), "train_s": row.get("train_s"),
            "value_loss": row.get("value_loss"), "policy_loss": row.get("policy_loss")}
