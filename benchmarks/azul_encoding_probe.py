"""How much of the yardstick's play a fresh network can learn from each Azul encoding: a probe of inputs.

    .venv/bin/python benchmarks/azul_encoding_probe.py [--games 1000] [--steps 2000] [--games-seed 1]

The independent yardstick (``azul_alphabeta``, depth 3, 7 takes a node) plays ``--games`` games against
itself, a random legal take instead of its choice 15% of the time (so that positions vary); every position
gets the yardstick's choice as a one-hot target. The last 15% of the games are held out. For each game of
the registry in ``--encodings`` (``azul``: ``features.encode``; ``azul_replies``: ``features.encode_replies``)
a fresh network of ``azul_strong``'s shape (hidden 256, 256, 128 and the action head) is trained on the
same positions (Adam 1e-3, batches of 256, seed 0); every ``--every`` steps it prints the held-out
cross-entropy and top-1 agreement with the yardstick, then the best point of each encoding. The networks
over-fit (52,748 positions from 1,000 games), so the best point, not the last, is the figure. Minutes on
one core. A figure for choosing inputs, not a test; the yardstick is measured against, never trained into
a shipped model.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import Azul_Simulator as az
import azul_alphabeta as yardstick

RANDOM_TAKES = 0.15
HELD_OUT = 0.15


def yardstick_games(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(boards int16 (N, 160), choices int64 (N,), game index int64 (N,))`` of the yardstick's self-play."""
    agent = yardstick.alphabeta_agent(3, 7, None)
    rng = np.random.default_rng(seed)
    boards, choices, index = [], [], []
    for g in range(games):
        board = az.init_board(rng)
        while not board[az.GAME_OVER]:
            mask = az.get_valid_mask(board)
            if mask[az.NOOP]:  # the refill
                board = az.get_next_state(board, az.NOOP, rng)
                continue
            choice = int(agent(board, rng))
            boards.append(board)
            choices.append(choice)
            index.append(g)
            move = int(rng.choice(np.flatnonzero(mask))) if rng.random() < RANDOM_TAKES else choice
            board = az.get_next_state(board, move, rng)
    return np.array(boards), np.array(choices), np.array(index)


def probe(name: str, boards, choices, held_out, steps: int, every: int) -> list[tuple[int, float, float]]:
    """Train a fresh network on ``game name``'s encoding: ``[(step, held-out CE, held-out top-1)]``."""
    import jax
    import jax.numpy as jnp
    import optax

    from azcourse.alphazero.flax_net import init_params, make_module
    from azcourse.alphazero.network import NetSpec
    from azcourse.registry import make_game

    game = make_game(name)
    x = np.stack([game.encode(b) for b in boards])
    legal = np.stack([game.legal_mask(b) for b in boards])
    spec = NetSpec.for_game(game, (), (256, 256, 128), action_head=True)
    module, optimizer = make_module(spec), optax.adam(1e-3)
    params = init_params(spec, 0)
    opt_state = optimizer.init(params)

    def cross_entropy(p, xb, yb, mb):
        logits, _ = module.apply({"params": p}, xb)
        log_policy = jax.nn.log_softmax(jnp.where(mb, logits, -1e9))
        return -jnp.mean(log_policy[jnp.arange(yb.shape[0]), yb]), logits

    @jax.jit
    def step(p, s, xb, yb, mb):
        (loss, _), grads = jax.value_and_grad(cross_entropy, has_aux=True)(p, xb, yb, mb)
        updates, s = optimizer.update(grads, s, p)
        return optax.apply_updates(p, updates), s, loss

    @jax.jit
    def evaluate(p, xb, yb, mb):
        loss, logits = cross_entropy(p, xb, yb, mb)
        return loss, jnp.mean(jnp.argmax(jnp.where(mb, logits, -1e9), 1) == yb)

    train_rows, rng, points = np.flatnonzero(~held_out), np.random.default_rng(0), []
    for i in range(1, steps + 1):
        batch = rng.choice(train_rows, 256)
        params, opt_state, _ = step(params, opt_state, x[batch], choices[batch], legal[batch])
        if i % every == 0:
            ce, top1 = evaluate(params, x[held_out], choices[held_out], legal[held_out])
            points.append((i, float(ce), float(top1)))
            print(f"  {name:<13} step {i:5d}: held-out cross-entropy {float(ce):.3f}, top-1 {float(top1):.3f}", flush=True)
    return points


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="yardstick games (default 1000)")
    parser.add_argument("--games-seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=2000, help="Adam steps a network (default 2000)")
    parser.add_argument("--every", type=int, default=250, help="held-out evaluation every so many steps")
    parser.add_argument("--encodings", nargs="+", default=["azul", "azul_replies"], help="games of the registry")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    boards, choices, index = yardstick_games(args.games, args.games_seed)
    held_out = index >= int((1 - HELD_OUT) * args.games)
    print(f"{len(boards):,} positions of {args.games} yardstick games ({time.perf_counter() - start:.0f} s), "
          f"{held_out.sum():,} held out", flush=True)
    best = {name: min(probe(name, boards, choices, held_out, args.steps, args.every), key=lambda p: p[1])
            for name in args.encodings}
    print("encoding       best step  held-out cross-entropy  top-1 agreement with the yardstick")
    for name, (step, ce, top1) in best.items():
        print(f"{name:<14} {step:9d}  {ce:22.3f}  {top1:34.3f}")


if __name__ == "__main__":
    main()
