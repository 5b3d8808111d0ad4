"""AlphaZero checkpoints: ``params.msgpack`` and ``card.json`` in one folder, as the pack's others.

A checkpoint folder holds:

* ``params.msgpack``: the network's ``'params'`` collection (layers ``conv_i``, ``hidden_i``,
  ``policy_head``, ``value_head``; float32 ``kernel`` / ``bias``; the pattern tables': ``tables`` and
  ``prior``, ``ntuple.patterns``) in Flax's msgpack format (``azcourse.flax_msgpack``, read back without JAX);
  a kind other than the MLP is rebuilt by the function ``NETWORK_KINDS`` names, imported only for its cards;
* ``card.json``: ``game`` (a name of ``azcourse.registry``), ``architecture`` (``NetSpec`` fields, or
  with ``"network": "ntuple"`` ``NTupleSpec``'s and the tuples' squares; parameter count), ``play`` (the
  search settings an agent uses by default), ``iteration``,
  ``training`` (the full config and the run's figures so far), ``date`` and ``command``.

``load_checkpoint`` accepts such a folder, a run folder (its ``best/`` checkpoint) or a name under
``ckpts/`` (``"tictactoe_az"``). Every file is written to a temporary name first and then renamed,
so an interruption never leaves half a file.
"""
from __future__ import annotations

import importlib
import json
import os
import pathlib
from typing import Mapping, NamedTuple

from azcourse import flax_msgpack
from azcourse.registry import make_game

from .network import NetSpec, NumpyNet

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
CKPT_ROOT = REPO_ROOT / "ckpts"
PARAMS_FILE, CARD_FILE, BEST_DIR = "params.msgpack", "card.json", "best"
FORMAT = "flax.serialization msgpack of the 'params' collection (params.msgpack)"
# a card's architecture "network" other than the MLP -> "module:function" that rebuilds it, ``function(architecture,
# params) -> (spec, net)``: imported only for such a card, so an MLP's loader (a student's bundle) needs none of it
NETWORK_KINDS = {"ntuple": "azcourse.alphazero.ntuple.kernels:from_card"}


class Checkpoint(NamedTuple):
    """A loaded checkpoint: its folder, card, game (rebuilt from the card's name), network shape,
    parameters (numpy float32 tree) and numpy network (a ``NumpyNet``, or a kind's of ``NETWORK_KINDS``: the
    pattern tables' ``NTupleSpec`` and ``NTupleNet``)."""

    path: pathlib.Path
    card: dict
    game: object
    spec: object
    params: dict
    net: object


def write_atomic(path: pathlib.Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def sorted_tree(tree):
    """The tree with the keys of every mapping in sorted order (JAX returns trees in that order,
    Flax's ``init`` in creation order), so equal parameters always give equal file bytes."""
    if isinstance(tree, Mapping):
        return {key: sorted_tree(tree[key]) for key in sorted(tree)}
    return tree


def save_checkpoint(directory, params: Mapping, card: Mapping) -> pathlib.Path:
    """Write ``params.msgpack`` and then ``card.json`` into ``directory`` (created if needed)."""
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    write_atomic(directory / PARAMS_FILE, flax_msgpack.to_bytes(sorted_tree(params)))
    write_atomic(directory / CARD_FILE, (json.dumps(card, indent=2) + "\n").encode())
    return directory


def checkpoint_dir(name_or_path) -> pathlib.Path:
    """The checkpoint folder that ``name_or_path`` means: a folder holding ``card.json``, a run
    folder (its ``best/``), or a name under ``ckpts/``.

    Raises:
        FileNotFoundError: none of these exists (the message says what was tried).
    """
    path = pathlib.Path(name_or_path)
    for candidate in (path, path / BEST_DIR, CKPT_ROOT / str(name_or_path), CKPT_ROOT / str(name_or_path) / BEST_DIR):
        if (candidate / CARD_FILE).is_file():
            return candidate
    raise FileNotFoundError(f"no AlphaZero checkpoint at {name_or_path}: expected a folder with {CARD_FILE} and "
                            f"{PARAMS_FILE}, a run folder with {BEST_DIR}/, or a name under {CKPT_ROOT}")


def play_simulations(name_or_path) -> int:
    """The simulations a move of the checkpoint's card ``play`` entry: what it plays with by default."""
    return int(json.loads((checkpoint_dir(name_or_path) / CARD_FILE).read_text())["play"]["simulations"])


def load_checkpoint(name_or_path) -> Checkpoint:
    """The checkpoint at ``name_or_path`` (see ``checkpoint_dir``), its game rebuilt by name.

    Raises:
        FileNotFoundError: no checkpoint there, or its ``params.msgpack`` is missing.
        ValueError: a network kind it does not know, or one whose card and parameters do not fit (pattern
            tables of other tuples or shapes).
    """
    directory = checkpoint_dir(name_or_path)
    if not (directory / PARAMS_FILE).is_file():
        raise FileNotFoundError(f"{directory / PARAMS_FILE} is missing")
    card = json.loads((directory / CARD_FILE).read_text())
    arch = card["architecture"]
    params = flax_msgpack.read_params(directory / PARAMS_FILE)
    kind = arch.get("network", "mlp")
    if kind == "mlp":
        spec = NetSpec(arch["encoding_shape"], arch["actions"], arch["channels"], arch["hidden"],
                       arch.get("action_features", ()))
        return Checkpoint(directory, card, make_game(card["game"]), spec, params, NumpyNet(spec, params))
    if kind not in NETWORK_KINDS:
        raise ValueError(f"{directory}: its card names a network kind {kind!r}; known: mlp, {', '.join(NETWORK_KINDS)}")
    module, name = NETWORK_KINDS[kind].split(":")
    try:
        spec, net = getattr(importlib.import_module(module), name)(arch, params)
    except ValueError as problem:
        raise ValueError(f"{directory}: {problem}") from None
    return Checkpoint(directory, card, make_game(card["game"]), spec, params, net)
