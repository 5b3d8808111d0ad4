"""The pack's msgpack writer and reader give and take Flax's own checkpoint bytes, without JAX."""
from pathlib import Path

import numpy as np
import pytest

from azcourse import flax_msgpack

REPO_ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(REPO_ROOT.glob("ckpts/**/params.msgpack"))


def test_there_are_shipped_checkpoints_to_compare():
    names = {path.relative_to(REPO_ROOT / "ckpts").parts[0] for path in SHIPPED}
    assert {"azul_strong", "hex5", "othello6", "tak3"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: str(path.relative_to(REPO_ROOT / "ckpts")))
def test_every_shipped_checkpoint_is_written_back_byte_for_byte(path):
    assert flax_msgpack.to_bytes(flax_msgpack.read_params(path)) == path.read_bytes()


def test_the_bytes_are_flaxs_for_any_tree_of_parameters(tmp_path):
    import jax.numpy as jnp
    from flax import serialization

    rng = np.random.default_rng(0)
    tree = {"value_head": {"kernel": rng.normal(size=(7, 1)), "bias": np.zeros(1, np.float16)},
            "conv_0": {"kernel": jnp.ones((3, 3, 2, 4)), "bias": rng.normal(size=4).astype(np.float32)},
            "Dense_10": {"scale": 0.5, "bias": [1, 2, 3]}, 2: {"kernel": np.arange(6).reshape(2, 3)}}
    expected = serialization.to_bytes(flax_msgpack.float32_tree(tree))
    assert flax_msgpack.to_bytes(tree) == expected
    flax_msgpack.write_params(tmp_path / "params.msgpack", tree)
    assert (tmp_path / "params.msgpack").read_bytes() == expected
    back = flax_msgpack.read_params(tmp_path / "params.msgpack")
    assert list(back) == ["value_head", "conv_0", "Dense_10", "2"]  # the tree's order, as Flax
    assert back["Dense_10"]["scale"].dtype == np.float32 and back["Dense_10"]["scale"].shape == ()
    np.testing.assert_array_equal(back["value_head"]["kernel"], np.asarray(tree["value_head"]["kernel"], np.float32))

