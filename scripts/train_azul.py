#!/usr/bin/env python
"""Train an Azul model from a named config: ``python scripts/train_azul.py azul_strong``.

Options override config fields: ``--workers 2 --time-budget 3600 --iterations 4 --fresh``.
Writes ``ckpts/<name>/params.msgpack``, ``card.json``, ``train_log.jsonl`` and the plot
``docs/figures/<name>_training.png``; the resumable state lives in ``runs/<name>/``.
Running the same command again resumes where the last run stopped (``--fresh`` restarts); on a
finished run it writes the shipped weights and card again (after a change of ``average_from``, say).
"""
import argparse
import dataclasses
import pathlib
import sys

from azcourse.azul import train as T


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("config", choices=sorted(T.CONFIGS))
    parser.add_argument("--workers", type=int)
    parser.add_argument("--time-budget", type=float, dest="time_budget_s")
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--games-per-iteration", type=int, dest="games_per_iteration")
    parser.add_argument("--simulations", type=int)
    parser.add_argument("--out-dir")
    parser.add_argument("--run-dir")
    parser.add_argument("--fresh", action="store_true", help="ignore a previous run's state")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    overrides = {k: v for k, v in vars(args).items()
                 if k in T.TrainConfig.__dataclass_fields__ and v is not None}
    if args.no_progress:
        overrides["progress"] = False
    config = dataclasses.replace(T.CONFIGS[args.config], **overrides)
    T.train(config, resume=not args.fresh)
    out_dir, _ = T._paths(config)
    if args.out_dir:
        figure = out_dir / "training.png"
    else:
        figure = pathlib.Path(__file__).resolve().parents[1] / "docs" / "figures" / f"{config.name}_training.png"
    T.plot_log([out_dir / "train_log.jsonl"], figure)
    print(f"checkpoint: {out_dir}\nplot: {figure}")


if __name__ == "__main__":
    sys.exit(main())
