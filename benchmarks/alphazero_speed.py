"""Speed of the AlphaZero trainer's parts: network inference and self-play, for games by name.

    taskset -c 1 python benchmarks/alphazero_speed.py [GAME ...] [--checkpoint DIR] [--simulations 50]
        [--hidden 64,64] [--channels 32,32] [--seconds 3] [--batch 16,64,256] [--endgame 10,12]

GAME is any name of ``azcourse.registry`` (default: tictactoe hex5). The network is the checkpoint's
(``--checkpoint``, for its own game) or an untrained one of the given shape (the figures of a
forward pass do not depend on the weights). Rates are per second of the process's CPU time
(``time.process_time``), so they are the speed of one core even while other jobs share the
machine; ``taskset -c 1`` keeps JAX's threads on that one core. For each game it prints:

* inference, one position per call: positions/s of the numpy forward pass (``NumpyNet``) and of the
  jitted Flax forward pass (``jax_forward``), and the ratio;
* self-play (``selfplay.play_game``: PUCT with root noise, temperature 1 for 3 moves, subtree kept):
  moves/s and simulations/s with numpy inference and the trainer's position cache, without the
  cache, and with jitted JAX inference (cached);
* for Othello, Hex and Tak, the same self-play on the compiled search (``compiled_search.play_games``,
  numpy inference, no cache): ``2 * B`` games, ``B`` in lockstep (``--batch``, one line per B), the
  first call's compilation (or loading from numba's cache) left out;
* for Othello, that self-play with the pattern tables for a network (``network = "ntuple"``: 6 phases,
  entries drawn from N(0, 0.05^2) with seed 0, evaluated inside the compiled search), with PUCT and with
  the Gumbel root policy; with ``--endgame K,...`` also with PUCT and the exact endgame from K empty squares
  on (``endgame_empties``: the games end there, the searches solve what they add with that few).
"""
import argparse
import os
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402

from azcourse.alphazero import compiled_search  # noqa: E402
from azcourse.alphazero.checkpoints import load_checkpoint  # noqa: E402
from azcourse.alphazero.flax_net import init_params, jax_forward  # noqa: E402
from azcourse.alphazero.network import NetSpec, NumpyNet, Predictor  # noqa: E402
from azcourse.alphazero.ntuple import kernels as ntuple_kernels  # noqa: E402
from azcourse.alphazero.ntuple.patterns import NTupleSpec, init_params as ntuple_params  # noqa: E402
from azcourse.alphazero.selfplay import play_game  # noqa: E402
from azcourse.core.evaluators import NetworkEvaluator  # noqa: E402
from azcourse.core.mcts import MCTS, MCTSConfig  # noqa: E402
from azcourse.registry import make_game  # noqa: E402


def sample_positions(game, count: int, rng) -> list:
    """Encoded decision states from random play, float32 ``encoding_shape`` each."""
    out = []
    while len(out) < count:
        state = game.initial_state(rng)
        while not game.is_terminal(state) and len(out) < count:
            if game.is_chance(state):
                state = game.resolve_chance(state, rng)
                continue
            out.append(game.encode(state))
            state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    return out


def per_second(call, items, seconds: float) -> float:
    """Calls of ``call(item)`` per CPU second, cycling through ``items`` for at least ``seconds``."""
    call(items[0])  # warm up (compiles a jitted function)
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for item in items:
            call(item)
        done += len(items)
    return done / (time.process_time() - start)


def self_play_rate(game, forward, simulations: int, seconds: float, cache: bool) -> tuple[float, float]:
    """(moves, simulations) per CPU second of self-play games played for at least ``seconds``."""
    rng = np.random.default_rng(0)
    predictor = Predictor(game, forward, cache_size=200_000 if cache else 0)
    settings = MCTSConfig(simulations=simulations, tree_policy="puct", dirichlet_alpha=0.3)
    search = MCTS(game, NetworkEvaluator(predictor), settings, rng)
    moves, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        moves += play_game(game, search, 3, rng).moves
    elapsed = time.process_time() - start
    return moves / elapsed, moves * simulations / elapsed


def compiled_rate(game, forward_many, simulations: int, batch: int, root_policy: str = "puct",
                  endgame_empties: int = 0) -> tuple[float, float]:
    """(moves, simulations) per CPU second of ``2 * batch`` self-play games on the compiled search
    (``root_policy`` ``"puct"`` with root noise, or ``"gumbel"``; the exact endgame from ``endgame_empties``)."""
    noise = 0.3 if root_policy == "puct" else 0.0
    settings = MCTSConfig(simulations=simulations, tree_policy="puct", dirichlet_alpha=noise, root_policy=root_policy)
    compiled_search.play_games(game, forward_many, settings, 3, [np.random.default_rng(0)],
                               endgame_empties=endgame_empties)  # compile
    start = time.process_time()
    played = compiled_search.play_games(game, forward_many, settings, 3,
                                        [np.random.default_rng(seed) for seed in range(2 * batch)], True, batch,
                                        endgame_empties)
    elapsed = time.process_time() - start
    moves = sum(g.moves for g in played)
    return moves / elapsed, moves * simulations / elapsed


def random_tables(game) -> ntuple_kernels.Tables:
    """Pattern tables for ``game`` (Othello) with entries drawn from N(0, 0.05^2), seed 0: a search whose
    priors and values vary as trained tables' do."""
    spec = NTupleSpec.for_game(game)
    params = ntuple_params(spec)
    params["tables"]["kernel"][:] = np.random.default_rng(0).normal(0.0, 0.05, params["tables"]["kernel"].shape)
    return ntuple_kernels.tables_of(spec, params)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=["tictactoe", "hex5"])
    parser.add_argument("--checkpoint", help="use this checkpoint's network (and its game)")
    parser.add_argument("--simulations", type=int, default=50)
    parser.add_argument("--hidden", default="64,64", help="dense widths of the untrained network")
    parser.add_argument("--channels", default="", help="3x3 convolution channels of the untrained network")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per figure")
    parser.add_argument("--batch", default="64", help="games in lockstep on the compiled search (Othello, Hex, Tak)")
    parser.add_argument("--endgame", default="", help="Othello: the pattern tables' PUCT self-play also with the "
                                                      "exact endgame from these numbers of empty squares on")
    args = parser.parse_args()
    widths = lambda text: tuple(int(w) for w in text.split(",") if w)  # noqa: E731
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"{len(os.sched_getaffinity(0))} core(s) available to this process")
    if args.checkpoint:
        checkpoint = load_checkpoint(args.checkpoint)
        setups = [(checkpoint.game, checkpoint.spec, checkpoint.params, checkpoint.path.name)]
    else:
        setups = []
        for name in args.games:
            game = make_game(name)
            spec = NetSpec.for_game(game, widths(args.channels), widths(args.hidden))
            setups.append((game, spec, init_params(spec, 0), "untrained"))
    for game, spec, params, label in setups:
        net = NumpyNet(spec, params)
        count = sum(np.size(leaf) for layer in params.values() for leaf in layer.values())
        print(f"\n{game.name}: network {label}, channels {list(spec.channels)}, hidden {list(spec.hidden)}, "
              f"{count} parameters; {args.simulations} simulations per move")
        positions = sample_positions(game, 256, np.random.default_rng(1))
        numpy_rate = per_second(net, positions, args.seconds)
        jax_rate = per_second(jax_forward(spec, params), positions, args.seconds)
        print(f"  inference, one position per call: numpy {numpy_rate:9,.0f} positions/s   "
              f"jax.jit {jax_rate:9,.0f} positions/s   numpy/jax {numpy_rate / jax_rate:.1f}x")
        for what, forward, cache in (("numpy, cached", net, True), ("numpy, no cache", net, False),
                                     ("jax.jit, cached", jax_forward(spec, params), True)):
            moves, sims = self_play_rate(game, forward, args.simulations, args.seconds, cache)
            print(f"  self-play ({what:15s}): {moves:8,.1f} moves/s   {sims:9,.0f} simulations/s")
        if isinstance(game, compiled_search.COMPILED_GAMES):
            for batch in widths(args.batch):
                moves, sims = compiled_rate(game, net.forward, args.simulations, batch)
                print(f"  self-play ({f'compiled, {batch}':15s}): {moves:8,.1f} moves/s   {sims:9,.0f} simulations/s")
        if isinstance(game, compiled_search.Othello):
            tables = random_tables(game)
            for root_policy in ("puct", "gumbel"):
                for batch in widths(args.batch):
                    moves, sims = compiled_rate(game, tables, args.simulations, batch, root_policy)
                    label = f"ntuple, {root_policy}, {batch}"
                    print(f"  self-play ({label:15s}): {moves:8,.1f} moves/s   {sims:9,.0f} simulations/s")
            for empties in widths(args.endgame):
                for batch in widths(args.batch):
                    moves, sims = compiled_rate(game, tables, args.simulations, batch, "puct", empties)
                    label = f"ntuple, puct, {batch}, endgame {empties}"
                    print(f"  self-play ({label:15s}): {moves:8,.1f} moves/s   {sims:9,.0f} simulations/s")


if __name__ == "__main__":
    main()
