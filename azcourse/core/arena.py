"""The one arena: games, matches and round robins between agents of any game of the game layer.

Agents
    An agent has ``name``, ``choose(state) -> action`` and ``observe(action)`` (``azcourse.core.agents``).
    A plain function ``fn(state, rng) -> action`` (the Azul agents, the Hex TOPP players) joins as
    ``FunctionAgent(fn, rng)``. ``play_game`` calls ``observe`` of every agent after every move,
    whoever made it, so a searching agent can keep its subtree.
One game (``play_game``)
    From ``game.initial_state(rng)`` (or a given state) to the end: chance states are resolved with
    ``rng``, every decision comes from the agent of the seat ``game.to_move`` names (seats may move
    twice in a row), and each chosen action is checked against ``game.legal_mask`` before it is
    played. The result is a ``GameRecord``: returns, scores (``game.scores(state)`` when the game
    defines one, e.g. Azul's points, else the returns), the winner (None for a draw or shared
    victory), decisions and thinking time per seat, chance steps.
A match (``play_match``)
    ``games`` games between A and B, A in seat ``i % 2`` of game ``i``, optionally over several
    processes. Game ``i`` is seeded from ``seed`` and ``i`` only, so a match is the same whatever the
    number of workers. ``paired_deals=True``: game ``i`` draws chance from ``[seed + i // 2, 0]`` and
    gives the agents ``[seed + i // 2, 1]``, so each deal is played twice with the seats exchanged;
    ``paired_deals=False``: game ``i`` uses one generator ``[seed, i]`` for both. With
    ``opening_moves = k`` each game starts after ``k`` uniformly random legal moves drawn from its
    chance generator (so the two games of a pair share their opening): deterministic agents then
    play varied games. The
    ``MatchSummary`` counts wins, draws and losses from A's side with Wilson 95% intervals; a draw
    is reported apart and counts half in the score rate, never as a win or a loss.
A round robin (``round_robin``)
    Every pair of agents plays ``games_per_series`` games, the opener alternating within a series (the
    Hex assignment's TOPP); ``RoundRobinResult`` holds the win and draw tables.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import multiprocessing as mp
import os
import time
from typing import Callable, Sequence

import numpy as np

from azcourse.core.threads import one_thread_children
from azcourse.progress import progress as progress_bar

Z95 = 1.959964


class IllegalAgentMove(ValueError):
    """An agent chose an action that is not legal in the position it was shown."""


class FunctionAgent:
    """An agent made of a function ``fn(state, rng) -> action`` and the generator it draws from."""

    def __init__(self, fn: Callable, rng: np.random.Generator | None = None, name: str | None = None):
        self.fn, self.rng = fn, rng
        self.name = name or getattr(fn, "name", None) or getattr(fn, "__name__", "agent")

    def choose(self, state) -> int:
        return self.fn(state, self.rng)

    def observe(self, action: int) -> None:
        """Nothing to remember."""


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default); (0, 1) when n == 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return lo, hi


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """The outcome of one game, by seat.

    Attributes:
        returns: ``game.returns`` of the final state (+1 win, -1 loss, 0 draw for two players).
        scores: ``game.scores`` of the final state if the game has one, else the returns.
        winner: the seat with the strictly highest return, None for a draw or shared victory.
        moves: decisions made by each seat.
        think_s: seconds spent in ``choose`` by each seat's agent.
        chance_steps: chance outcomes drawn.
    """

    returns: tuple[float, ...]
    scores: tuple[float, ...]
    winner: int | None
    moves: tuple[int, ...]
    think_s: tuple[float, ...]
    chance_steps: int


def play_game(game, agents: Sequence, rng: np.random.Generator | None = None, state=None,
              on_move: Callable | None = None):
    """Play one game to the end; ``agents[s]`` plays seat ``s``.

    Args:
        game: a game of the layer.
        agents: one agent per seat (the same object may sit in several seats: it observes once).
        rng: draws the initial state (when ``state`` is None) and every chance outcome.
        state: start here instead of ``game.initial_state(rng)``.
        on_move: ``on_move(state, action, next_state)`` after every decision (displays, records).
    Returns:
        ``(GameRecord, final state)``.
    Raises:
        IllegalAgentMove: an agent chose an action that is not legal.
    """
    seats = game.num_players
    if len(agents) != seats:
        raise ValueError(f"{getattr(game, 'name', 'the game')} needs {seats} agents, got {len(agents)}")
    state = game.initial_state(rng) if state is None else state
    observers = list({id(agent): agent for agent in agents}.values())
    moves, think, chance = [0] * seats, [0.0] * seats, 0
    while not game.is_terminal(state):
        if game.is_chance(state):
            state = game.resolve_chance(state, rng)
            chance += 1
            continue
        seat = game.to_move(state)
        start = time.perf_counter()
        action = agents[seat].choose(state)
        think[seat] += time.perf_counter() - start
        if not (0 <= int(action) < game.action_space_size and game.legal_mask(state)[int(action)]):
            raise IllegalAgentMove(f"agent in seat {seat} ({agents[seat].name}) chose illegal action {action}")
        action = int(action)
        moves[seat] += 1
        for agent in observers:
            agent.observe(action)
        after = game.next_state(state, action)
        if on_move is not None:
            on_move(state, action, after)
        state = after
    returns = tuple(float(r) for r in game.returns(state))
    scores = tuple(game.scores(state)) if hasattr(game, "scores") else returns
    best = [s for s in range(seats) if returns[s] == max(returns)]
    record = GameRecord(returns, scores, best[0] if len(best) == 1 else None, tuple(moves), tuple(think), chance)
    return record, state


@dataclasses.dataclass(frozen=True)
class MatchSummary:
    """A match seen from agent A's side.

    Attributes:
        agent_a, agent_b: the agents' names; games, seed: the match's size and seed.
        wins, draws, losses: game counts for A (a draw is a shared result, reported apart).
        mean_score_a, mean_score_b: mean final scores (``GameRecord.scores``) of A and B.
        score_diffs: A's score minus B's, game by game (float64 ``(games,)``, in game order).
        ms_per_move_a, ms_per_move_b: mean thinking time per decision.
        wall_s: seconds the match took; workers: processes that played it.
        by_seat: A's ``(wins, draws, losses)`` in the games where A sat in seat 0 (moved first), then
            in those where A sat in seat 1: in games with a strong first-mover edge (3x3 Tak, 5x5 Hex)
            the overall rate mixes two very different figures.
    """

    agent_a: str
    agent_b: str
    games: int
    seed: int
    wins: int
    draws: int
    losses: int
    mean_score_a: float
    mean_score_b: float
    score_diffs: tuple[float, ...]
    ms_per_move_a: float
    ms_per_move_b: float
    wall_s: float
    workers: int
    by_seat: tuple[tuple[int, int, int], tuple[int, int, int]] = ((0, 0, 0), (0, 0, 0))

    @property
    def win_rate(self) -> float:
        """Fraction of games A won outright."""
        return self.wins / self.games if self.games else 0.0

    @property
    def score_rate(self) -> float:
        """A's points per game, a draw counting half."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def interval(self, outcome: str = "wins") -> tuple[float, float]:
        """Wilson 95% interval of the rate of ``wins``, ``draws`` or ``losses``."""
        return wilson_interval(getattr(self, outcome), self.games)

    def seat_win_rate(self, seat: int) -> tuple[float, float, float]:
        """A's win rate in the games where A sat in ``seat`` (0: A moved first), with its Wilson 95%
        interval: ``(rate, low, high)``; ``(0, 0, 1)`` when A never sat there."""
        wins, draws, losses = self.by_seat[seat]
        n = wins + draws + losses
        return (wins / n if n else 0.0, *wilson_interval(wins, n))

    @property
    def mean_score_diff(self) -> float:
        return float(np.mean(self.score_diffs)) if self.games else 0.0

    def score_diff_interval(self) -> tuple[float, float] | None:
        """Normal 95% interval of the mean score difference (None for fewer than two games)."""
        if self.games < 2:
            return None
        diffs = np.asarray(self.score_diffs)
        half = 1.96 * diffs.std(ddof=1) / math.sqrt(self.games)
        return float(diffs.mean() - half), float(diffs.mean() + half)

    def as_dict(self) -> dict:
        """The summary as JSON-able data (what the model cards record)."""
        lo, hi = self.interval()
        diff_ci = self.score_diff_interval()
        return {
            "agent_a": self.agent_a, "agent_b": self.agent_b, "games": self.games, "seed": self.seed,
            "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "win_rate": self.win_rate, "win_rate_ci95": [round(lo, 4), round(hi, 4)],
            "score_rate": self.score_rate,
            "mean_score_a": self.mean_score_a, "mean_score_b": self.mean_score_b,
            "mean_score_diff": self.mean_score_diff,
            "mean_score_diff_ci95": None if diff_ci is None else [round(diff_ci[0], 3), round(diff_ci[1], 3)],
            "ms_per_move_a": self.ms_per_move_a, "ms_per_move_b": self.ms_per_move_b,
            "wall_s": round(self.wall_s, 1), "workers": self.workers,
            "by_seat": {"first": dict(zip(("wins", "draws", "losses"), self.by_seat[0])),
                        "second": dict(zip(("wins", "draws", "losses"), self.by_seat[1]))},
        }

    def text(self) -> str:
        """Five lines for a terminal."""
        lo, hi = self.interval()
        seats = "  ".join(f"moving {label}: {w}/{d}/{l}" for label, (w, d, l) in zip(("first", "second"), self.by_seat))
        return (f"{self.agent_a} vs {self.agent_b}: {self.games} games (seed {self.seed}, seats alternating)\n"
                f"  wins {self.wins}  draws {self.draws}  losses {self.losses}  "
                f"win rate {100 * self.win_rate:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)\n"
                f"  {self.agent_a}'s wins/draws/losses {seats}\n"
                f"  mean score {self.mean_score_a:.1f} vs {self.mean_score_b:.1f}  "
                f"mean difference {self.mean_score_diff:+.1f}\n"
                f"  think time {self.ms_per_move_a:.2f} vs {self.ms_per_move_b:.2f} ms/move  "
                f"({self.wall_s:.0f} s, {self.workers} workers)")


def game_generators(seed: int, index: int, paired_deals: bool) -> tuple[np.random.Generator, np.random.Generator]:
    """``(chance generator, agents' generator)`` of game ``index`` of a match (see the module docstring)."""
    if paired_deals:
        deal = seed + index // 2
        return np.random.default_rng([deal, 0]), np.random.default_rng([deal, 1])
    rng = np.random.default_rng([seed, index])
    return rng, rng


def random_opening(game, rng: np.random.Generator, moves: int):
    """The position after ``moves`` uniformly random legal moves (chance outcomes drawn too) from
    ``game.initial_state(rng)``, or earlier if the game ends."""
    state = game.initial_state(rng)
    played = 0
    while played < moves and not game.is_terminal(state):
        if game.is_chance(state):
            state = game.resolve_chance(state, rng)
            continue
        legal = np.flatnonzero(game.legal_mask(state))
        state = game.next_state(state, int(legal[int(rng.random() * len(legal))]))
        played += 1
    return state


def _play_indexed(make_game, make_a, make_b, seed, paired_deals, opening_moves, index) -> dict:
    """Game ``index`` of a match; A sits in seat ``index % 2``. Returns A's view of it."""
    game = make_game()
    chance_rng, agent_rng = game_generators(seed, index, paired_deals)
    a_seat = index % 2
    start = random_opening(game, chance_rng, opening_moves) if opening_moves else None
    agent_a, agent_b = make_a(agent_rng), make_b(agent_rng)
    record, _ = play_game(game, (agent_a, agent_b) if a_seat == 0 else (agent_b, agent_a), chance_rng, state=start)
    b_seat = 1 - a_seat
    result = "draw" if record.winner is None else ("win" if record.winner == a_seat else "loss")
    return {"index": index, "result": result, "score_a": record.scores[a_seat], "score_b": record.scores[b_seat],
            "moves_a": record.moves[a_seat], "moves_b": record.moves[b_seat],
            "think_a": record.think_s[a_seat], "think_b": record.think_s[b_seat]}


_WORKER: dict = {}


def _init_worker(make_game, make_a, make_b, seed, paired_deals, opening_moves):
    _WORKER["args"] = (make_game, make_a, make_b, seed, paired_deals, opening_moves)


def _play_in_worker(index: int) -> dict:
    return _play_indexed(*_WORKER["args"], index)


def play_match(make_game: Callable, make_a: Callable, make_b: Callable, games: int = 100, seed: int = 0,
               paired_deals: bool = True, workers: int = 1, progress: bool = True,
               names: tuple[str, str] | None = None, opening_moves: int = 0) -> MatchSummary:
    """``games`` games of A against B, seats alternating, A's view.

    Args:
        make_game: ``make_game() -> game`` (a game class, or a ``functools.partial`` of one).
        make_a, make_b: ``make(rng) -> agent`` for one game, given that game's agents' generator.
            With ``workers > 1`` all three must pickle (module-level functions or partials).
        paired_deals: how games are seeded (see the module docstring).
        opening_moves: random legal moves before the agents take over (see the module docstring).
        workers: processes (``None``: all cores); the results do not depend on it.
        names: labels of A and B (default: the agents' names).
    """
    workers = workers or os.cpu_count() or 1
    if names is None:
        probe_rng = np.random.default_rng(0)
        names = (make_a(probe_rng).name, make_b(probe_rng).name)
    start = time.time()
    desc = f"{names[0]} vs {names[1]}"
    if workers <= 1:
        records = [_play_indexed(make_game, make_a, make_b, seed, paired_deals, opening_moves, i)
                   for i in progress_bar(range(games), desc=desc, disable=not progress, leave=False)]
    else:
        args = (make_game, make_a, make_b, seed, paired_deals, opening_moves)
        with one_thread_children():  # all of a Pool's processes start in its constructor
            pool = mp.get_context("spawn").Pool(workers, _init_worker, args)
        with pool:
            chunk = max(1, games // (workers * 20))
            records = list(progress_bar(pool.imap_unordered(_play_in_worker, range(games), chunksize=chunk),
                                        total=games, desc=desc, disable=not progress, leave=False))
    return summarize(names, games, seed, sorted(records, key=lambda r: r["index"]), time.time() - start, workers)


def summarize(names: tuple[str, str], games: int, seed: int, records: list[dict], wall_s: float,
              workers: int) -> MatchSummary:
    """The ``MatchSummary`` of per-game records in game order (what ``play_match`` builds)."""
    count = {outcome: sum(r["result"] == outcome for r in records) for outcome in ("win", "draw", "loss")}
    n = len(records)
    mean = lambda key: float(np.mean([r[key] for r in records])) if n else 0.0  # noqa: E731
    per_move = lambda side: 1000 * sum(r[f"think_{side}"] for r in records) / max(1, sum(r[f"moves_{side}"] for r in records))  # noqa: E731
    by_seat = tuple(tuple(sum(r["result"] == outcome and r["index"] % 2 == seat for r in records)
                          for outcome in ("win", "draw", "loss")) for seat in (0, 1))
    return MatchSummary(names[0], names[1], n, seed, count["win"], count["draw"], count["loss"],
                        mean("score_a"), mean("score_b"), tuple(float(r["score_a"] - r["score_b"]) for r in records),
                        per_move("a"), per_move("b"), wall_s, workers, by_seat)


@dataclasses.dataclass(frozen=True)
class RoundRobinResult:
    """A round robin's outcome.

    Attributes:
        names: the agents' labels, ``K`` of them.
        wins: int64 ``(K, K)``: games row won against column (0 on the diagonal).
        draws: int64 ``(K, K)``: games row drew with column (symmetric).
        games_per_series: games each pair played.
        first_mover_wins: games won by the seat that opened.
    """

    names: list
    wins: np.ndarray
    draws: np.ndarray
    games_per_series: int
    first_mover_wins: int

    @property
    def totals(self) -> np.ndarray:
        """Games won by each agent over the tournament, int64 ``(K,)``."""
        return self.wins.sum(axis=1)

    def score_rate(self) -> np.ndarray:
        """float64 ``(K, K)``: row's points against column per game (a draw counts half), NaN on the diagonal."""
        k = len(self.names)
        rate = (self.wins + 0.5 * self.draws) / max(1, self.games_per_series)
        return np.where(np.eye(k, dtype=bool), np.nan, rate)

    def intervals(self) -> np.ndarray:
        """float64 ``(K, K, 2)``: Wilson 95% interval of row's win rate against column."""
        k, g = len(self.names), self.games_per_series
        out = np.full((k, k, 2), np.nan)
        for i, j in itertools.permutations(range(k), 2):
            out[i, j] = wilson_interval(int(self.wins[i, j]), g)
        return out


def round_robin(game, agents: Sequence, names: Sequence[str], games_per_series: int,
                rng: np.random.Generator | None = None, on_game_start: Callable | None = None,
                on_move: Callable | None = None, show_progress: bool = True, desc: str = "round robin") -> RoundRobinResult:
    """Every pair of ``agents`` plays ``games_per_series`` games; in game ``g`` of a series the
    first-named agent of the pair opens when ``g`` is even.

    Args:
        game: a two-player game of the layer.
        agents: agents (``choose``/``observe``), reused across games.
        names: their labels, same length.
        rng: draws initial states and chance outcomes.
        on_game_start: ``on_game_start(seats, g)`` before each game (``seats``: agent indices by seat).
        on_move: passed to ``play_game`` for every game.
    """
    k = len(agents)
    if k < 2 or len(names) != k:
        raise ValueError("a round robin needs at least two agents, and one name per agent")
    wins = np.zeros((k, k), dtype=np.int64)
    draws = np.zeros((k, k), dtype=np.int64)
    first_mover_wins = 0
    pairs = list(itertools.combinations(range(k), 2))
    with progress_bar(total=len(pairs) * games_per_series, desc=desc, disable=not show_progress) as bar:
        for i, j in pairs:
            for g in range(games_per_series):
                seats = (i, j) if g % 2 == 0 else (j, i)
                if on_game_start is not None:
                    on_game_start(seats, g)
                record, _ = play_game(game, [agents[s] for s in seats], rng, on_move=on_move)
                if record.winner is None:
                    draws[i, j] += 1
                    draws[j, i] += 1
                else:
                    wins[seats[record.winner], seats[1 - record.winner]] += 1
                    first_mover_wins += record.winner == 0
                bar.update(1)
    return RoundRobinResult(list(names), wins, draws, games_per_series, first_mover_wins)
