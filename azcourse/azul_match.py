"""Playing complete Azul games between agents (see ``azcourse.azul_agents`` for the agent contract).

``play_game`` is the lean loop that benchmarks and arenas run thousands of times: the agents choose
every take and the loop applies the ``NOOP`` refill itself. ``play_match`` plays a seeded series with
alternating seats and sums it up from the first agent's side.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from Azul_Simulator import (
    GAME_OVER, NOOP, AzulState, current_seat, get_next_state, get_valid_mask, init_board, winner,
)
from azcourse.azul_agents import Agent


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """The outcome of one game.

    Attributes:
        scores: final scores by absolute seat (end bonuses included).
        winner: seat of the winner after the row-count tie-break, None for a shared victory.
        moves: takes played (refills not counted).
        rounds: rounds played.
    """
    scores: tuple[int, int]
    winner: int | None
    moves: int
    rounds: int


def play_out(board: np.ndarray, rng: np.random.Generator, choose_take) -> np.ndarray:
    """Play `board` to the end of the game and return the final board.

    The loop applies every ``NOOP`` refill itself (drawing from `rng`); each take comes from
    ``choose_take(board, seat, mask)`` (``seat``: the absolute seat to move, ``mask``: the legal
    actions) and is applied with `rng` too, after the call. Callers record, time or check moves
    inside `choose_take`.
    """
    while not board[GAME_OVER]:
        mask = get_valid_mask(board)
        action = NOOP if mask[NOOP] else choose_take(board, current_seat(board), mask)
        board = get_next_state(board, action, rng)
    return board


def play_game(agents: Sequence[Agent], rng: np.random.Generator) -> GameRecord:
    """Play one game from ``init_board(rng)`` to the end.

    Args:
        agents: ``agents[s]`` plays absolute seat ``s`` (0 or 1).
        rng: draws the deal, the starting seat and every refill, and is passed to the agents.
    Returns:
        The game's ``GameRecord``.
    """
    moves = 0

    def choose_take(board, seat, mask):
        nonlocal moves
        moves += 1
        return agents[seat](board, rng)

    return _record(play_out(init_board(rng), rng, choose_take), moves)


def _record(board: np.ndarray, moves: int) -> GameRecord:
    """``GameRecord`` of a finished game."""
    state = AzulState.decode(board)
    seats = (state.by_seat(0), state.by_seat(1))
    scores = (seats[0].score, seats[1].score)
    return GameRecord(scores=scores, winner=winner(scores, [p.complete_rows() for p in seats]),
                      moves=moves, rounds=state.round)


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """A series of games seen from agent A's side.

    Attributes:
        wins, draws, losses: game counts for A (a draw is a shared victory).
        mean_score_a, mean_score_b: mean final scores of A and B.
    """
    wins: int
    draws: int
    losses: int
    mean_score_a: float
    mean_score_b: float

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        """Fraction of games A won outright."""
        return self.wins / self.games


def play_match(agent_a: Agent, agent_b: Agent, games: int, seed: int) -> MatchResult:
    """Play ``games`` games, A at seat 0 in even games and at seat 1 in odd ones; game ``i`` uses
    ``np.random.default_rng([seed, i])``, so a match is reproducible from its seed."""
    outcome = {"win": 0, "draw": 0, "loss": 0}
    score_a = score_b = 0
    for i in range(games):
        seat_a = i % 2
        agents = (agent_a, agent_b) if seat_a == 0 else (agent_b, agent_a)
        record = play_game(agents, np.random.default_rng([seed, i]))
        score_a += record.scores[seat_a]
        score_b += record.scores[1 - seat_a]
        outcome["draw" if record.winner is None else "win" if record.winner == seat_a else "loss"] += 1
    return MatchResult(wins=outcome["win"], draws=outcome["draw"], losses=outcome["loss"],
                       mean_score_a=score_a / games, mean_score_b=score_b / games)
