"""Flax's msgpack checkpoint format (``flax.serialization.to_bytes``), written and read by every
checkpoint of the pack (``ckpts/azul_*``, ``ckpts/hex5/anet_*``, ``ckpts/othello6``, ``ckpts/tak3``,
``ckpts/tak4``).

Both ways need only ``msgpack``: Flax stores a tree of mappings as msgpack maps (keys in the tree's
order), and an array as msgpack ext type 1 (a numpy scalar as type 3) holding ``(shape, dtype name, bytes)``, so
neither playing nor saving a model imports JAX (the bytes are Flax's own: ``tests/test_flax_msgpack.py``).
"""
from __future__ import annotations

import pathlib
from typing import Mapping

import msgpack
import numpy as np


def to_bytes(params: Mapping) -> bytes:
    """The bytes ``flax.serialization.to_bytes`` gives for a tree of parameters (nested mappings of
    arrays) made float32 with str keys (``float32_tree``); keys stay in the tree's order."""
    def pack_array(array: np.ndarray) -> msgpack.ExtType:
        return msgpack.ExtType(1, msgpack.packb((array.shape, array.dtype.name, array.tobytes("C")), use_bin_type=True))
    return msgpack.packb(float32_tree(params), default=pack_array, strict_types=True)


def write_params(path, params: Mapping) -> None:
    """Write a tree of parameters (nested mappings of arrays) to ``path`` as float32 (``to_bytes``)."""
    pathlib.Path(path).write_bytes(to_bytes(params))


def read_params(path) -> dict:
    """The tree (nested dicts of numpy arrays, str keys) stored at ``path``, without JAX."""
    path = pathlib.Path(path)

    def ext_hook(code, data):
        if code in (1, 3):  # ndarray, numpy scalar
            shape, dtype, buffer = msgpack.unpackb(data, raw=True)
            array = np.frombuffer(buffer, dtype=np.dtype(dtype.decode())).reshape(shape)
            return array if code == 1 else array[()]
        raise ValueError(f"unsupported msgpack ext type {code} in the checkpoint {path}")

    return _str_keys(msgpack.unpackb(path.read_bytes(), ext_hook=ext_hook, raw=False, strict_map_key=False))


def float32_tree(tree):
    """The tree with every leaf a numpy float32 array and every key a str."""
    if isinstance(tree, Mapping):
        return {str(k): float32_tree(v) for k, v in tree.items()}
    return np.asarray(tree, np.float32)


def _str_keys(tree):
    if isinstance(tree, dict):
        return {(k.decode() if isinstance(k, bytes) else k): _str_keys(v) for k, v in tree.items()}
    return tree
