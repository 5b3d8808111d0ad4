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

import dataclasses
import itertools
import pathlib
from typing import Sequence

import numpy as np

from azcourse.core import arena
from azcourse.core.arena import FunctionAgent, RoundRobinResult
from azcourse.hex.display import HexDisplay
from azcourse.hex.game import Hex, HexState

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


class ToppResult(RoundRobinResult):
    """The TOPP's outcome (``azcourse.core.arena.RoundRobinResult``: ``names`` such as ``"ep 50"``,
    ``wins`` ``(K, K)``, ``draws`` (none in Hex), ``games_per_series`` G, ``first_mover_wins``), with
    the TOPP's table and figure.
    """

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
    """Every pair of ``players`` plays ``games_per_series`` games, the opener alternating
    (``azcourse.core.arena.round_robin``).

    Args:
        players: agents with ``choose(state, rng) -> action`` (e.g. ``ANETPlayer``).
        names: their labels, same length.
        rng: all sampling draws from it (a seeded tournament is repeatable).
        display: shows every game move by move when enabled.
    """
    display = display or HexDisplay(False)
    agents = [FunctionAgent(player.choose, rng, name) for player, name in zip(players, names)]
    caption = [""]

    def start(seats, g):
        caption[0] = f"{names[seats[0]]} (X) vs {names[seats[1]]} (O), game {g + 1}"
        display.show(game, game.initial_state(), caption[0])

    def moved(state, action, after):
        display.show(game, after, f"{caption[0]}: {game.action_to_text(after, action)}", last_action=action)

    result = arena.round_robin(game, agents, names, games_per_series, rng, on_game_start=start, on_move=moved,
                               show_progress=show_progress, desc="TOPP")
    return ToppResult(**dataclasses.asdict(result))
