"""The wrong-answer corpus fits the current reference solutions (issue 49).

Every mistake of ``tests/student_mistakes.py`` is a patch of the reference's source of its function: each
must still apply, change that source and define the function; a patch that no longer fits fails loudly.
"""
import ast

import pytest

from student_mistakes import MISTAKES, StaleMistake, function_of, patch, reference_source

CASES = [(key, label) for key, mistakes in MISTAKES.items() for label in mistakes]


@pytest.mark.parametrize("key, label", CASES, ids=[f"{key}: {label}" for key, label in CASES])
def test_every_patch_applies_to_the_current_reference(key, label):
    source = MISTAKES[key][label]
    assert source != reference_source(key)
    definitions = [node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]
    assert definitions == [function_of(key)]


def test_the_reference_source_is_the_function_alone():
    source = reference_source("get_reward")  # its cell defines WIN_LINES first
    assert source.startswith("def get_reward(board):\n") and "WIN_LINES = " not in source
    assert "### BEGIN SOLUTION" not in source
    assert reference_source("train_step").startswith("@jax.jit\ndef train_step(")


def test_a_patch_whose_text_is_gone_fails_naming_the_function_the_mistake_and_the_text():
    with pytest.raises(StaleMistake, match=r"^the mistake 'a made-up slip' of winner no longer fits the reference: "
                                           r"'text no reference holds' occurs 0 times in winner"):
        patch("text no reference holds", "x").applied("winner", "a made-up slip")


def test_a_text_found_more_often_than_the_patch_says_fails_too():
    with pytest.raises(StaleMistake, match=r"'z \* z' occurs 3 times in win_rate_interval .*, not 1\."):
        patch("z * z", "1.96 ** 2").applied("tak6_alphazero.win_rate_interval", "z fixed at 1.96")
    with pytest.raises(StaleMistake, match=r"'steps' occurs \d+ times in winner .*, not 1\."):
        (patch("n = board.shape[0]", "n = len(board)") + patch("steps", "moves")).applied("winner", "renamed")
