"""Strength of an AlphaZero checkpoint: matches against random, UCT and (tic-tac-toe) the perfect player.

    python benchmarks/alphazero_strength.py [CHECKPOINT] [--games 1000] [--simulations 100] [--workers 2]

CHECKPOINT is a folder, a run folder or a name under ckpts/ (default ``tictactoe_az``). Seats
alternate in every match. For tic-tac-toe it also walks every game the opponent can force: the
checkpoint's agent (fresh tree at each of its moves) against *every* reply at every turn, from
both seats, and counts the lines it loses; and it plays the same matches with the untrained
network of the run (``checkpoints/iter_0000``) to show what training added.
"""
import argparse
import functools
import os

import numpy as np

from azcourse.alphazero.agent import load_agent
from azcourse.alphazero.checkpoints import checkpoint_dir
from azcourse.core.agents import make_agent
from azcourse.core.arena import play_match
from azcourse.registry import make_game


def every_line(checkpoint, simulations: int) -> tuple[int, int, int]:
    """``(lines lost, lines, positions)``: the agent's move (fresh search) at each of its positions
    against every legal reply of the opponent, both seats."""
    agent = load_agent(checkpoint, simulations=simulations)
    game, moves = agent.game, {}
    lost = lines = 0

    def walk(state, seat):
        nonlocal lost, lines
        if game.is_terminal(state):
            lines += 1
            lost += game.returns(state)[seat] < 0
            return
        if game.to_move(state) == seat:
            key = game.state_key(state)
            if key not in moves:
                agent.mcts.reset()
                moves[key] = agent.choose(state)
            walk(game.next_state(state, moves[key]), seat)
            return
        for action in np.flatnonzero(game.legal_mask(state)):
            walk(game.next_state(state, int(action)), seat)
    for seat in range(game.num_players):
        walk(game.initial_state(), seat)
    return lost, lines, len(moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", nargs="?", default="tictactoe_az")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    path = checkpoint_dir(args.checkpoint)
    untrained = path.parent / "checkpoints" / "iter_0000"
    game = load_agent(path).game
    opponents = {"random": functools.partial(make_agent, "random", game),
                 "uct 1000": functools.partial(make_agent, "uct", game, simulations=1000)}
    if game.name == "tictactoe":
        from azcourse.tictactoe.perfect import PerfectAgent

        opponents["perfect"] = PerfectAgent
    for label, folder in (("trained", path), ("untrained", untrained)):
        if not (folder / "card.json").exists():
            continue
        agent = functools.partial(load_agent, folder, simulations=args.simulations, name=f"{label} az")
        print(f"\n{label} network ({folder}), {args.simulations} simulations per move, greedy, subtree kept")
        for name, opponent in opponents.items():
            summary = play_match(functools.partial(make_game, game.name), agent, opponent, games=args.games,
                                 workers=args.workers, names=(f"{label} az", name))
            print(summary.text())
        if game.name == "tictactoe":
            lost, lines, positions = every_line(folder, args.simulations)
            print(f"every line: lost {lost} of {lines} lines the opponent can choose "
                  f"({positions} positions where the agent moves, fresh search at each)")


if __name__ == "__main__":
    main()
