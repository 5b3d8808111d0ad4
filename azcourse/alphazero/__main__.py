"""``python -m azcourse.alphazero train|match|curve``: AlphaZero training for any game of the layer, and matches.

    python -m azcourse.alphazero train --config configs/tictactoe_az.toml [--run-dir DIR] [--set key=value ...]
                                       [--ray auto|ADDRESS|local]
    python -m azcourse.alphazero match CHECKPOINT [--opponent random|uct|perfect|CHECKPOINT] [--games 100]
    python -m azcourse.alphazero curve RUN_DIR [--games 20] [--simulations 200] [--opponent-simulations 2000]
                                       [--opponent openspiel|classical:<depth>]

``train`` runs (or continues) the run of a config in ``DIR`` (default ``runs/<config name>``);
``--set`` overrides one key of the config and may be repeated (``--set workers=0``: self-play on every
core); ``--ray`` plays self-play on a Ray cluster (``pip install '.[cluster]'``). ``match`` plays a checkpoint (a
folder, a run folder or a name under ``ckpts/``) against an opponent with seats alternating and
prints the summary; ``perfect`` is the minimax player of tic-tac-toe. ``curve`` plays a run's kept checkpoints
that ``curve.csv`` lacks against OpenSpiel's MCTS and draws ``curve.png`` from it (``curve``).
"""
from __future__ import annotations

import argparse
import functools
import pathlib
import shlex
import sys

from azcourse.core.threads import use_one_thread

# before anything imports numpy: self-play's batches are small matrix products, for which OpenBLAS's
# threads only busy-wait on the cores that the self-play workers need (see ``workers``)
use_one_thread()

from .config import ConfigError, load_config, parse_override  # noqa: E402


def _train(args) -> int:
    from .train import train

    overrides = dict(parse_override(text) for text in args.set)
    config = load_config(args.config, overrides)
    run_dir = args.run_dir or pathlib.Path("runs") / (pathlib.Path(args.config).stem if args.config else config.game)
    command = shlex.join(["python", "-m", "azcourse.alphazero", *args.argv])
    result = train(config, run_dir, command=command, ray_address=args.ray)
    print(f"{result.iterations} iterations in {result.run_dir}; best network: {result.best}")
    return 0


def _opponent(spec: str, game, simulations: int | None):
    """``make(rng) -> agent`` for the ``--opponent`` text."""
    from azcourse.core.agents import make_agent

    from .agent import load_agent

    if spec == "perfect":
        if game.name != "tictactoe":
            raise ConfigError("the perfect player is for tic-tac-toe only")
        from azcourse.tictactoe.perfect import PerfectAgent

        return PerfectAgent
    if spec in ("random", "uct"):
        return functools.partial(make_agent, spec, game, simulations=simulations or 1000)
    try:
        load_agent(spec)
    except FileNotFoundError as problem:
        raise ConfigError(f"--opponent is random, uct, perfect or a checkpoint: {problem}") from None
    return functools.partial(load_agent, spec, simulations=simulations)


def _match(args) -> int:
    from azcourse.core.arena import play_match
    from azcourse.registry import make_game

    from .agent import load_agent

    try:
        first = load_agent(args.checkpoint, simulations=args.simulations)
    except FileNotFoundError as problem:
        raise ConfigError(str(problem)) from None
    game = first.game
    make_b = _opponent(args.opponent, game, args.opponent_simulations)
    summary = play_match(functools.partial(make_game, game.name),
                         functools.partial(load_agent, args.checkpoint, simulations=args.simulations), make_b,
                         games=args.games, seed=args.seed, workers=args.workers)
    print(summary.text())
    return 0


def _curve(args) -> int:
    from .curve import FIGURE_FILE, draw, evaluate

    if args.games:
        try:
            rows = evaluate(args.run_dir, args.games, args.simulations, args.opponent_simulations, args.workers,
                            args.seed, every=args.every, opponent=args.opponent)
        except ValueError as problem:
            raise ConfigError(str(problem)) from None
        for row in rows:
            print(f"iteration {row['iteration']} ({row['wall_s'] / 60:.1f} min): {100 * row['score']:.1f}% "
                  f"({100 * row['score_low']:.1f}-{100 * row['score_high']:.1f}) over {row['games']} games", flush=True)
    try:
        draw(args.run_dir)
    except FileNotFoundError as problem:
        raise ConfigError(str(problem)) from None
    print(pathlib.Path(args.run_dir) / FIGURE_FILE)
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(prog="python -m azcourse.alphazero", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    train = commands.add_parser("train", help="self-play and training; continues an interrupted run")
    train.add_argument("--config", help="TOML file of parameters (see configs/tictactoe_az.toml)")
    train.add_argument("--run-dir", help="run folder: checkpoints, log, resume state (default runs/<config name>)")
    train.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       help="override one key of the config (repeatable), e.g. --set iterations=20")
    train.add_argument("--ray", metavar="ADDRESS",
                       help="self-play on Ray actors (config key workers: how many, 0 = every CPU): 'auto' joins the "
                            "cluster this machine belongs to, HOST:PORT a head node, 'local' starts Ray here")
    train.set_defaults(run=_train)

    match = commands.add_parser("match", help="a checkpoint against an opponent, seats alternating")
    match.add_argument("checkpoint", help="checkpoint folder, run folder, or name under ckpts/")
    match.add_argument("--opponent", default="random",
                       help="random, uct (random rollouts), perfect (tic-tac-toe's minimax), or a checkpoint")
    match.add_argument("--games", type=int, default=100)
    match.add_argument("--simulations", type=int, help="the checkpoint's simulations per move (default: its card's)")
    match.add_argument("--opponent-simulations", type=int,
                       help="simulations per move of uct (default 1000) or of a checkpoint (default: its card's)")
    match.add_argument("--seed", type=int, default=0)
    match.add_argument("--workers", type=int, default=1, help="processes (the result does not depend on it)")
    match.set_defaults(run=_match)

    curve = commands.add_parser("curve", help="a run's checkpoints against OpenSpiel's MCTS: curve.csv and curve.png")
    curve.add_argument("run_dir", help="the run folder (its checkpoints/, log.csv)")
    curve.add_argument("--games", type=int, default=20,
                       help="games a checkpoint, seats alternating (default 20; 0: only draw curve.png)")
    curve.add_argument("--simulations", type=int, default=200, help="the network's simulations a move (default 200)")
    curve.add_argument("--opponent", default="openspiel",
                       help="openspiel (OpenSpiel's MCTS, the default) or classical:<depth> (the game's classical "
                            "yardstick, azcourse.registry.make_classical)")
    curve.add_argument("--opponent-simulations", type=int, default=2000,
                       help="OpenSpiel MCTSBot's simulations a move (default 2000)")
    curve.add_argument("--seed", type=int, default=0)
    curve.add_argument("--every", type=int, default=1,
                       help="only the checkpoints whose iteration is a multiple of this (default 1: every kept one)")
    curve.add_argument("--workers", type=int, default=1, help="processes (the result does not depend on it)")
    curve.set_defaults(run=_curve)
    args = parser.parse_args(argv)
    args.argv = argv
    from azcourse.registry import UnknownGame

    try:
        return args.run(args)
    except (ConfigError, UnknownGame) as problem:
        print(f"python -m azcourse.alphazero {args.command}: {problem}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
