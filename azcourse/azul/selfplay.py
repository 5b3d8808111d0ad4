"""Game generation for training: greedy imitation games and search (expert iteration) games.

Both return plain numpy arrays, so they run in worker processes without JAX:

* ``boards``  (n, 160) int16: every position where the mover had a real choice or a forced take
  (refill steps are not training positions);
* ``policy``  (n, 181) float32: the target distribution (one-hot greedy move, or normalised visit
  counts of the search);
* ``value``   (n,) float32: ``0.5 * outcome + 0.5 * tanh(final score difference / 12)`` from the
  viewpoint of the player to move at that position (outcome +1 win, -1 loss, 0 shared victory).

``play_game`` plays one game; ``generate`` runs many in a ``multiprocessing`` pool ("spawn"), with a
progress bar (``azcourse.progress``).
"""
from __future__ import annotations

import dataclasses
import multiprocessing as mp
from typing import Mapping

import numpy as np

import Azul_Simulator as az

from azcourse.core.arena import FunctionAgent, play_game as play_arena_game

from . import heuristics
from .game import Azul
from .network import NumpyAzulNet
from .search import Search, SearchConfig, make_evaluator


@dataclasses.dataclass
class GameSpec:
    """What one worker plays. ``teacher``: "greedy" (greedy reference, with ``epsilon`` random moves
    for variety) or "search" (PUCT search with ``search`` settings and priors mixed by
    ``prior_mix`` (``search.make_evaluator``); moves sampled in proportion to visits for the first
    ``temperature_moves`` moves of each player, then the most visited)."""
    teacher: str = "search"
    search: SearchConfig = dataclasses.field(default_factory=SearchConfig)
    temperature_moves: int = 6
    epsilon: float = 0.1
    prior_mix: float = 0.5  # search priors: (1 - prior_mix) * network + prior_mix * heuristic
    dagger_greedy_frac: float = 0.5  # "dagger": share of games against the greedy agent
    dagger_beta: float = 0.3  # "dagger": probability that the learner plays the teacher's move


def play_out(rng: np.random.Generator, choose_take) -> np.ndarray:
    """A game from a new deal, through the one arena (``azcourse.core.arena.play_game``), every
    refill drawn from ``rng``; ``choose_take(board, seat, mask)`` makes every decision. Returns the
    final board."""
    agent = FunctionAgent(lambda board, _: choose_take(board, az.current_seat(board), az.get_valid_mask(board)))
    _, board = play_arena_game(Azul(), (agent, agent), rng)
    return board


def value_targets(final_board, seats):
    """(n,) value targets for positions whose movers had absolute ``seats``."""
    state = az.AzulState.decode(final_board)
    reward, _ = az.get_reward(final_board)  # viewpoint of final_board's player
    out = np.zeros(len(seats), np.float32)
    for seat in (0, 1):
        diff = state.by_seat(seat).score - state.by_seat(1 - seat).score
        outcome = reward if seat == state.seat else -reward
        out[np.asarray(seats) == seat] = 0.5 * outcome + 0.5 * np.tanh(diff / heuristics.VALUE_SCALE)
    return out


def _greedy_opponent():
    try:
        from azcourse.azul.agents import greedy_agent
        return greedy_agent
    except ImportError:
        return lambda board, rng: heuristics.heuristic_greedy_action(board)


def play_dagger_game(spec: GameSpec, params: Mapping, seed: int):
    """DAgger: the learner (the network's policy, one call a move) plays against the greedy agent
    (share ``dagger_greedy_frac`` of the games) or itself; every position where the learner moves
    is labelled with the search teacher's visit distribution. The learner plays the teacher's
    move with probability ``dagger_beta``, else its own, so the data follows the states the
    policy actually reaches."""
    rng = np.random.default_rng(seed)
    net = NumpyAzulNet(params)
    search = Search(make_evaluator(net, spec.prior_mix), spec.search)
    vs_greedy = rng.random() < spec.dagger_greedy_frac
    learner_seat = int(rng.integers(2))
    greedy = _greedy_opponent()
    boards, policies, seats = [], [], []

    def choose_take(board, seat, mask):
        if vs_greedy and seat != learner_seat:
            return greedy(board, rng)
        visits, _ = search.run(board, rng)
        boards.append(board)
        policies.append((visits / visits.sum()).astype(np.float32))
        seats.append(seat)
        return int(np.argmax(visits)) if rng.random() < spec.dagger_beta else net.policy_action(board)

    board = play_out(rng, choose_take)
    return (np.array(boards, np.int16), np.array(policies, np.float32).reshape(-1, az.ACTION_DIM),
            value_targets(board, seats))


def play_game(spec: GameSpec, params: Mapping | None, seed: int):
    """One training game. ``params``: numpy network parameters (``None``: heuristic priors/values)."""
    if spec.teacher == "dagger":
        return play_dagger_game(spec, params, seed)
    rng = np.random.default_rng(seed)
    if spec.teacher == "search":
        evaluator = make_evaluator(None if params is None else NumpyAzulNet(params), spec.prior_mix)
        search = Search(evaluator, spec.search)
    boards, policies, seats = [], [], []
    moves = [0, 0]

    def choose_take(board, seat, mask):
        target = np.zeros(az.ACTION_DIM, np.float32)
        if spec.teacher == "greedy":
            action = heuristics.heuristic_greedy_action(board)
            target[action] = 1.0
            if rng.random() < spec.epsilon:
                action = int(rng.choice(np.flatnonzero(mask)))
        else:
            visits, _ = search.run(board, rng)
            target[:] = visits / visits.sum()
            if moves[seat] < spec.temperature_moves:
                action = int(rng.choice(az.ACTION_DIM, p=visits / visits.sum()))
            else:
                action = int(np.argmax(visits))
        boards.append(board)
        policies.append(target)
        seats.append(seat)
        moves[seat] += 1
        return action

    board = play_out(rng, choose_take)
    return (np.array(boards, np.int16), np.array(policies, np.float32),
            value_targets(board, seats))


def _work(args):
    spec, params, seeds = args
    out = [play_game(spec, params, s) for s in seeds]
    return (np.concatenate([o[0] for o in out]), np.concatenate([o[1] for o in out]),
            np.concatenate([o[2] for o in out]), len(seeds))


def generate(spec: GameSpec, params: Mapping | None, seeds, workers: int = 1,
             chunk: int = 4, progress: bool = True, desc: str = "games"):
    """Play ``len(seeds)`` games; returns concatenated ``(boards, policy, value)``."""
    from ..progress import progress as progress_bar  # the parameter `progress` turns it on
    seeds = list(seeds)
    jobs = [(spec, params, seeds[i:i + chunk]) for i in range(0, len(seeds), chunk)]
    parts = []
    bar = progress_bar(total=len(seeds), desc=desc, disable=not progress, leave=False)
    if workers <= 1:
        for job in jobs:
            parts.append(_work(job))
            bar.update(parts[-1][3])
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            for part in pool.imap(_work, jobs):  # in order: same data whatever the worker count
                parts.append(part)
                bar.update(part[3])
    bar.close()
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))
