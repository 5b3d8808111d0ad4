"""``python -m azcourse.hex train|topp|series|demo``: Hex ANET training, the TOPP, OHT-style series.

    python -m azcourse.hex train --config configs/hex5.toml --run-dir runs/hex5 [--episodes 200 --save-every 50 ...]
    python -m azcourse.hex topp --run-dir ckpts/hex5 [--topp-games 50] [--show-games]
    python -m azcourse.hex series --size 5 --games 10 anet:ckpts/hex5 random
    python -m azcourse.hex demo [--config configs/hex_demo.toml]

``agent SPEC`` is the child process of ``series`` (JSON lines on stdin/stdout, see ``oht.py``).

Every parameter of ``azcourse.hex.config.HexConfig`` is a flag (``hidden_layers`` is
``--hidden-layers 64,64``); a flag wins over the ``--config`` file.
"""
from __future__ import annotations

import argparse
import sys

from .checkpoints import REPO_ROOT
from .config import FIELDS, ConfigError, load_config


def _add_config_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="TOML file of parameters (see configs/hex5.toml)")
    group = parser.add_argument_group("parameters (override the --config file)")
    for name, field in FIELDS.items():
        group.add_argument("--" + name.replace("_", "-"), dest=name, default=None, metavar="VALUE",
                           help=f"default {field.default!r}")


def _overrides(args: argparse.Namespace) -> dict:
    return {name: getattr(args, name) for name in FIELDS if getattr(args, name, None) is not None}


def _train(args) -> int:
    from .train import train

    config = load_config(args.config, _overrides(args))
    result = train(config, args.run_dir)
    print(f"{result.episodes} episodes in {result.run_dir}; cached ANETs: "
          f"{', '.join(p.name for p in result.cached)}")
    return 0


def _topp(args) -> int:
    import numpy as np

    from azcourse.hex.game import Hex
    from azcourse.hex.display import HexDisplay

    from .checkpoints import cached_anets, run_dir_for
    from .topp import ANETPlayer, round_robin
    from .train import CONFIG_FILE

    run_dir = run_dir_for(args.run_dir)
    base = args.config or (run_dir / CONFIG_FILE if (run_dir / CONFIG_FILE).exists() else None)
    overrides = _overrides(args)
    if args.show_games:
        overrides["display"] = "true"
    config = load_config(base, overrides)
    anets = cached_anets(run_dir)
    if len(anets) < 2:
        raise ConfigError(f"{run_dir} holds {len(anets)} cached ANET(s); a TOPP needs at least two")
    sizes = {a.card["architecture"]["board_size"] for a in anets}
    if len(sizes) != 1:
        raise ConfigError(f"the cached ANETs of {run_dir} are for different board sizes: {sorted(sizes)}")
    game = Hex(sizes.pop())
    players = [ANETPlayer(game, a.net, config.topp_policy, config.topp_epsilon, f"ep {a.episode}") for a in anets]
    result = round_robin(game, players, [p.name for p in players], config.topp_games,
                         np.random.default_rng(config.seed), HexDisplay(config.display, config.display_mode))
    print(result.table())
    plot = result.plot(args.plot or run_dir / "topp.png")
    print(f"plot: {plot}")
    return 0


def _series(args) -> int:
    from .oht import ProcessAgent, run_series

    with ProcessAgent(args.agent_1, args.size, args.seed, args.simulations) as one, \
            ProcessAgent(args.agent_2, args.size, args.seed + 1, args.simulations) as two:
        result = run_series(one, two, args.size, args.games, show=print if args.show_games else None)
    for player, spec in ((1, args.agent_1), (2, args.agent_2)):
        print(f"player {player} ({spec}): {result.wins[player]} wins of {args.games}, "
              f"score {result.scores[player]:.2f}")
    return 0


def _agent(args) -> int:
    from .oht import agent_from_spec, serve

    try:
        agent = agent_from_spec(args.spec, args.size, args.seed, args.simulations)
    except ValueError as problem:
        raise ConfigError(str(problem)) from None
    serve(agent)
    return 0


def _demo(args) -> int:
    import datetime
    import pathlib

    run_dir = pathlib.Path(args.run_dir or "runs/hex_demo") / datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    args.run_dir = str(run_dir)
    print(f"demo: training from scratch in {run_dir}")
    _train(args)
    args.config = str(run_dir / "config.toml")
    return _topp(args)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m azcourse.hex", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    train = commands.add_parser("train", help="on-policy MCTS training; resumes an interrupted run")
    train.add_argument("--run-dir", required=True, help="run folder: cached ANETs, log, resume state")
    _add_config_flags(train)
    train.set_defaults(run=_train)

    topp = commands.add_parser("topp", help="round robin of a run's cached ANETs: table and plot")
    topp.add_argument("--run-dir", default="hex5", help="run folder, or a name under ckpts/ (default hex5)")
    topp.add_argument("--plot", help="where to save the figure (default <run-dir>/topp.png)")
    topp.add_argument("--show-games", action="store_true", help="show every TOPP game move by move")
    _add_config_flags(topp)
    topp.set_defaults(run=_topp)

    series = commands.add_parser("series", help="an OHT-style series between two agents in separate processes")
    series.add_argument("agent_1", help="player 1 for the whole series: random, uct[:N], anet:<folder>, "
                                        "mcts:<folder>[:N]")
    series.add_argument("agent_2", help="player 2, same forms")
    series.add_argument("--size", type=int, default=5)
    series.add_argument("--games", type=int, default=10, help="games in the series (openers alternate)")
    series.add_argument("--seed", type=int, default=0)
    series.add_argument("--simulations", type=int, default=500, help="search games per move of uct/mcts")
    series.add_argument("--show-games", action="store_true", help="print each game's final position")
    series.set_defaults(run=_series)

    agent = commands.add_parser("agent", help="serve one agent over stdin/stdout (what series starts)")
    agent.add_argument("spec")
    agent.add_argument("--size", type=int, default=5)
    agent.add_argument("--seed", type=int, default=0)
    agent.add_argument("--simulations", type=int, default=500)
    agent.set_defaults(run=_agent)

    demo = commands.add_parser("demo", help="a short session from scratch: train, cache several ANETs, TOPP")
    demo.add_argument("--run-dir", help="parent folder of the demo's run (default runs/hex_demo)")
    demo.add_argument("--plot", help="where to save the TOPP figure (default <run folder>/topp.png)")
    demo.add_argument("--show-games", action="store_true", help="show every TOPP game move by move")
    _add_config_flags(demo)
    demo.set_defaults(run=_demo, config=str(REPO_ROOT / "configs" / "hex_demo.toml"))
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ConfigError as problem:
        print(f"python -m azcourse.hex {args.command}: {problem}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
