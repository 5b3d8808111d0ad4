"""The Tournament of Progressive Policies (TOPP): the cached ANETs of a run, round robin.

Every pair of ANETs plays one series of G games. Within a series the first mover alternates: in
game ``g`` the first-named ANET is player 1 (X, and opens) when ``g`` is even, player 2 (O) when
it is odd, so each ANET opens half the games with each colour's goal. Nothing learns. An agent
reads its ANET's distribution over the legal cells greedily, by sampling it, or epsilon-greedily
(``topp_policy``).

``wins[i, j]`` is the number of games ANET i won against ANET j; ``wins + wins.T`` is G off the
diagonal (Hex has no draws).
"""
from __future__ import annotations

import itertools
import pathlib
from typing import NamedTuple, Sequence

import numpy as np

from azcourse.games.hex import Hex, HexState
from azcourse.games.hex_display import HexDisplay
from azcourse.progress import progress

from .anet import NumpyANET


class ANETPlayer:
    """A TOPP agent: an ANET read ``"greedy"``, ``"sample"`` or ``"epsilon"``-greedy.

    ``choose(state, rng) -> action`` (a legal cell index); ``rng`` is only used by the sampling modes.
    """

    def __init__(self, game: Hex, net: NumpyANET, mode: str = "greedy", epsilon: float = 0.1, name: str = "anet"):
        if mode not in ("greedy", "sample", "epsilon"):
            raise ValueError(f"mode is greedy, sample or epsilon, got {mode!r}")
        self.game, self.net, self.mode, self.epsilon, self.name = game, net, mode, float(epsilon), name

    def choose(self, state: HexState, rng: np.random.Generator) -> int:
        p = self.net.probabilities(self.game.encode(state))
        if self.mode == "sample":
            return int(rng.choice(len(p), p=p))
        if self.mode == "epsilon" and rng.random() < self.epsilon:
            legal = np.flatnonzero(self.game.legal_mask(state))
            return int(legal[int(rng.random() * len(legal))])
        return int(np.argmax(p))


def play_game(game: Hex, players: Sequence, rng: np.random.Generator, display: HexDisplay | None = None,
              caption: str = "") -> HexState:
    """One game from the empty board, ``players[0]`` as player 1 (X, opens) and ``players[1]`` as
    player 2; each player has ``choose(state, rng) -> action``. Returns the final state."""
    state = game.initial_state()
    display = display or HexDisplay(False)
    display.show(game, state, caption)
    while not game.is_terminal(state):
        action = players[state.player].choose(state, rng)
        state = game.next_state(state, action)
        display.show(game, state, f"{caption}: {game.action_to_text(state, action)}", last_action=action)
    return state


class ToppResult(NamedTuple):
    """The TOPP's outcome.

    Attributes:
        names: the agents' labels (``"ep 0"``, ``"ep 50"``, ...), shape ``(K,)``.
        wins: int64 ``(K, K)``: games row won against column (0 on the diagonal).
        games_per_series: G.
        first_mover_wins: games won by the player who opened.
    """

    names: list
    wins: np.ndarray
    games_per_series: int
    first_mover_wins: int

    @property
    def totals(self) -> np.ndarray:
        """Games won by each agent over the tournament, int64 ``(K,)``."""
        return self.wins.sum(axis=1)

    def table(self) -> str:
        """The results as text: one row per agent, wins against each other agent, total, score."""
        k, g = len(self.names), self.games_per_series
        width = max(8, *(len(n) + 2 for n in self.names))
        head = "".ljust(width) + "".join(n.rjust(width) for n in self.names) + "total".rjust(8) + "score".rjust(8)
        lines = [f"TOPP: {k} ANETs, {g} games per series, starts alternating; row's wins against column", head]
        played = g * (k - 1)
        for i, name in enumerate(self.names):
            cells = "".join(("-" if i == j else str(self.wins[i, j])).rjust(width) for j in range(k))
            score = f"{100 * self.totals[i] / played:.0f}%" if played else "-"
            lines.append(name.ljust(width) + cells + str(self.totals[i]).rjust(8) + score.rjust(8))
        total_games = g * k * (k - 1) // 2
        lines.append(f"{total_games} games; the opener won {self.first_mover_wins}")
        return "\n".join(lines)

    def plot(self, path) -> pathlib.Path:
        """Save a figure: total wins per ANET (bars) and the win-rate matrix; returns the path."""
        import matplotlib
        import matplotlib.pyplot as plt

        k, g = len(self.names), self.games_per_series
        fig, (bars, grid) = plt.subplots(1, 2, figsize=(4 + 1.6 * k, 4))
        played = max(1, g * (k - 1))
        bars.bar(self.names, 100 * self.totals / played, color="#d62728")
        bars.set_ylabel("games won (%)")
        bars.set_ylim(0, 100)
        bars.set_title("TOPP score per cached ANET")
        rate = np.where(np.eye(k, dtype=bool), np.nan, self.wins / g)
        image = grid.imshow(rate, vmin=0, vmax=1, cmap=matplotlib.colormaps["RdYlGn"])
        grid.set_xticks(range(k), self.names, rotation=45)
        grid.set_yticks(range(k), self.names)
        grid.set_title("row's win rate against column")
        for i, j in itertools.product(range(k), range(k)):
            if i != j:
                grid.text(j, i, f"{rate[i, j]:.2f}", ha="center", va="center", fontsize=8)
        fig.colorbar(image, ax=grid)
        fig.tight_layout()
        path = pathlib.Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return path


def round_robin(game: Hex, players: Sequence, names: Sequence[str], games_per_series: int, rng: np.random.Generator,
                display: HexDisplay | None = None, show_progress: bool = True) -> ToppResult:
    """Every pair of ``players`` plays ``games_per_series`` games, the opener alternating.

    Args:
        players: agents with ``choose(state, rng) -> action`` (e.g. ``ANETPlayer``).
        names: their labels, same length.
        rng: all sampling draws from it (a seeded tournament is repeatable).
    """
    k = len(players)
    if k < 2 or len(names) != k:
        raise ValueError("a TOPP needs at least two agents, and one name per agent")
    wins = np.zeros((k, k), dtype=np.int64)
    first_mover_wins = 0
    pairs = list(itertools.combinations(range(k), 2))
    bar = progress(total=len(pairs) * games_per_series, desc="TOPP", disable=not show_progress)
    with bar:
        for i, j in pairs:
            for g in range(games_per_series):
                seats = (i, j) if g % 2 == 0 else (j, i)
                caption = f"{names[seats[0]]} (X) vs {names[seats[1]]} (O), game {g + 1}"
                final = play_game(game, [players[s] for s in seats], rng, display, caption)
                winner = seats[final.winner]
                wins[winner, seats[1 - final.winner]] += 1
                first_mover_wins += final.winner == 0
                bar.update(1)
    return ToppResult(list(names), wins, games_per_series, first_mover_wins)
