"""Cached ANETs and resumable run state, in the format of the pack's other checkpoints.

A run folder (``ckpts/hex5/`` for the shipped run) holds:

* ``anet_<episode>/params.msgpack``: the ``'params'`` collection (``hidden_i``, ``output``;
  float32 ``kernel``/``bias``) written with ``flax.serialization.to_bytes`` (Flax's msgpack format),
  as ``ckpts/azul_*`` are; ``anet_<episode>/card.json``: architecture, episode, training config,
  and the training figures at that point. Episode 0 is the untrained net.
* ``config.toml``: the run's full configuration (``azcourse.hex.config``).
* ``training_log.csv``: one row per episode (see ``train.LOG_FIELDS``).
* ``resume/``: what an interrupted run continues from (parameters, optimizer state, replay buffer,
  random generator state, episode counter). Not shipped (git-ignored); a finished run may drop it.

``load_anet`` reads ``params.msgpack`` with plain ``msgpack`` (the wire format of Flax's arrays is
msgpack ext type 1 holding ``(shape, dtype name, bytes)``), so playing never imports JAX.
"""
from __future__ import annotations

import json
import pathlib
import re
from typing import Callable, Mapping, NamedTuple

from azcourse import flax_msgpack
from azcourse.core.agents import PolicyUnavailable
from .anet import NumpyANET

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
CKPT_ROOT = REPO_ROOT / "ckpts"
PARAMS_FILE, CARD_FILE = "params.msgpack", "card.json"
_ANET_DIR = re.compile(r"anet_(\d+)")


class CachedANET(NamedTuple):
    """One cached ANET: its folder, the episode it was saved after, its card, its numpy network."""

    path: pathlib.Path
    episode: int
    card: dict
    net: NumpyANET


def save_anet(directory, params: Mapping, card: Mapping) -> pathlib.Path:
    """Write ``params.msgpack`` and ``card.json`` into ``directory`` (created if needed)."""
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    flax_msgpack.write_params(directory / PARAMS_FILE, params)
    (directory / CARD_FILE).write_text(json.dumps(card, indent=2) + "\n")
    return directory


def load_anet(directory) -> CachedANET:
    """The cached ANET in ``directory`` (holding ``params.msgpack`` and ``card.json``).

    Raises:
        FileNotFoundError: a file is missing (the message names it).
    """
    directory = pathlib.Path(directory)
    for name in (PARAMS_FILE, CARD_FILE):
        if not (directory / name).exists():
            raise FileNotFoundError(f"{directory / name} is missing: not a cached ANET folder")
    card = json.loads((directory / CARD_FILE).read_text())
    net = NumpyANET(flax_msgpack.read_params(directory / PARAMS_FILE), card["architecture"]["activation"])
    return CachedANET(directory, int(card["episode"]), card, net)


def cached_anets(run_dir) -> list[CachedANET]:
    """Every ``anet_<episode>`` of a run folder, by episode (the untrained one first)."""
    run_dir = pathlib.Path(run_dir)
    found = [p for p in run_dir.iterdir() if p.is_dir() and _ANET_DIR.fullmatch(p.name)] if run_dir.is_dir() else []
    return sorted((load_anet(p) for p in found), key=lambda a: a.episode)


def anet_dir(run_dir, episode: int) -> pathlib.Path:
    return pathlib.Path(run_dir) / f"anet_{episode}"


def run_dir_for(name_or_path) -> pathlib.Path:
    """``ckpts/<name>`` for a run name such as ``hex5``, else the path itself."""
    path = pathlib.Path(name_or_path)
    return path if path.is_dir() or len(path.parts) > 1 else CKPT_ROOT / str(name_or_path)


def shipped_policy(game) -> Callable:
    """The trained policy the course pack ships for the Hex game ``game``: for 5x5, the last cached
    ANET of the shipped run ``ckpts/hex5/`` (the TOPP's winner, see docs/hex_training.md).

    Raises:
        PolicyUnavailable: no trained policy is shipped for this game (or its files are missing).
    """
    run_dir = CKPT_ROOT / game.name
    anets = cached_anets(run_dir) if game.name == "hex5" else []
    if not anets:
        raise PolicyUnavailable(f"no trained {game.name} policy is shipped (only hex5 has one), so anet and mcts "
                                "cannot play; use --opponent random or uct, or train one with "
                                "python -m azcourse.hex train")
    return anets[-1].net.state_policy(game)


def alphazero_checkpoint(game) -> str:
    """The name under ``ckpts/`` of the AlphaZero network for ``game``'s board (``azcourse.alphazero``):
    ``hex5_az`` on 5x5, since ``ckpts/hex5/`` holds part 4's ANET run; ``hex<n>`` on other sizes."""
    return f"{game.name}_az" if game.size == 5 else game.name
