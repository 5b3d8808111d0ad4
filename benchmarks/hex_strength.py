"""Strength of the shipped 5x5 ANETs: against random, inside MCTS, and in their TOPP.

    python benchmarks/hex_strength.py [--run-dir ckpts/hex5] [--games 500] [--search-games 200]
                                      [--topp-games 50] [--parts random,mcts,topp]

Every match alternates seats game by game, so each side opens half the games (X always opens).

* ``random``: the last cached ANET, greedy (the most probable legal cell, no search), against
  uniformly random moves.
* ``mcts``: UCT with the ANET as epsilon-greedy rollout policy (epsilon 0.1) against plain UCT with
  random rollouts, both with ``--search-games`` search games per move.
* ``topp``: the run's TOPP (``topp_policy`` of its config), ``--topp-games`` per series.
"""
import argparse

import numpy as np

from azcourse.core import arena
from azcourse.core.agents import make_agent
from azcourse.hex.game import Hex
from azcourse.hex.checkpoints import cached_anets, run_dir_for
from azcourse.hex.topp import ANETPlayer, round_robin
from azcourse.hex.train import load_run_config


def match(game, make_a, make_b, games: int, label: str, seed: int = 0) -> tuple[int, float]:
    """``games`` games of A against B through the one arena, seats alternating, game ``i`` seeded
    ``[seed, i]``; returns (A's wins, seconds)."""
    summary = arena.play_match(lambda: game, make_a, make_b, games, seed, paired_deals=False, workers=1,
                               names=(label, ""))
    return summary.wins, summary.wall_s


def ci95(wins: int, games: int) -> str:
    """Wilson 95% interval of a win rate, as text."""
    lo, hi = arena.wilson_interval(wins, games)
    return f"[{100 * lo:.1f}%, {100 * hi:.1f}%]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", default="hex5")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--search-games", type=int, default=200)
    parser.add_argument("--topp-games", type=int, default=50)
    parser.add_argument("--parts", default="random,mcts,topp")
    args = parser.parse_args()
    run_dir = run_dir_for(args.run_dir)
    anets = cached_anets(run_dir)
    best = anets[-1]
    game = Hex(best.card["architecture"]["board_size"])
    policy = best.net.state_policy(game)
    parts = args.parts.split(",")
    if "random" in parts:
        wins, seconds = match(game, lambda rng: make_agent("anet", game, rng, policy=policy),
                              lambda rng: make_agent("random", game, rng), args.games,
                              "anet vs random")
        print(f"{best.path.name} greedy vs random: {wins}/{args.games} = {100 * wins / args.games:.1f}% "
              f"{ci95(wins, args.games)} ({seconds:.0f} s)")
    if "mcts" in parts:
        n = args.search_games
        wins, seconds = match(game, lambda rng: make_agent("mcts", game, rng, n, policy),
                              lambda rng: make_agent("uct", game, rng, n), args.games,
                              "mcts vs uct")
        print(f"MCTS with {best.path.name} rollouts (epsilon 0.1) vs UCT random rollouts, {n} search games: "
              f"{wins}/{args.games} = {100 * wins / args.games:.1f}% {ci95(wins, args.games)} ({seconds:.0f} s)")
    if "topp" in parts:
        config = load_run_config(run_dir)
        players = [ANETPlayer(game, a.net, config.topp_policy, config.topp_epsilon) for a in anets]
        names = [f"ep {a.episode}" for a in anets]
        result = round_robin(game, players, names, args.topp_games, np.random.default_rng(0))
        print(f"TOPP with topp_policy = {config.topp_policy!r}")
        print(result.table())
        g = args.topp_games
        print(f"final ({names[-1]}) vs untrained ({names[0]}): {result.wins[-1, 0]}/{g} = "
              f"{100 * result.wins[-1, 0] / g:.0f}%; highest total: {names[int(np.argmax(result.totals))]}")
        print(f"plot: {result.plot(run_dir / 'topp.png')}")


if __name__ == "__main__":
    main()
