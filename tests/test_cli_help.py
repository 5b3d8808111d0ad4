"""`--help` of every command explains each argument with an example, and answers at once (issue 33).

The bound is generous (3 s on a busy 2-core machine; about 0.1 s measured idle): it catches a heavy import
(nbgrader, JAX, numba, matplotlib: seconds each) creeping back in front of the argument parser, not noise.
"""
import importlib.util
import re
import subprocess
import sys
import time

import pytest

from autograder.__main__ import build_parser
from autograder.grading_config import REPO_ROOT

BOUND = 3.0
AUTOGRADER = sorted(build_parser()._subparsers._group_actions[0].choices)


def timed(*args):
    started = time.monotonic()
    done = subprocess.run([sys.executable, *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    return done, time.monotonic() - started


@pytest.mark.parametrize("command", [None, *AUTOGRADER])
def test_autograder_help_explains_every_argument_at_once(command):
    done, seconds = timed("-m", "autograder", *([command] if command else []), "--help")
    assert done.returncode == 0 and seconds < BOUND, (seconds, done.stderr)
    options = re.split(r"\n(?:positional arguments|options):\n", done.stdout)
    assert "example" in done.stdout, done.stdout
    for block in options[1:]:  # every argument, positional or option, has a help text with an example
        for entry in re.split(r"\n(?=  \S)", block.split("\n\n")[0].strip("\n")):
            if entry.strip().startswith(("-h, --help", "COMMAND", "--unsafe-no-sandbox")):
                continue  # argparse's own, the list of commands, and a switch nobody should type by example
            assert "e.g." in entry, entry


def test_autograder_refuses_a_typo_at_once():
    done, seconds = timed("-m", "autograder", "autograd")
    assert done.returncode == 2 and seconds < BOUND and "invalid choice: 'autograd'" in done.stderr, (seconds, done.stderr)


@pytest.mark.parametrize("command", [None, "azul", "ttt", "hex", "othello", "tak", "arena"])
def test_play_help_answers_at_once(command):
    """play.py builds only the named game's options (its agents' module: numpy, not the other games; Azul's
    from ``azcourse.azul_cli``, without the numba engine)."""
    done, seconds = timed("play.py", *([command] if command else []), "--help")
    assert done.returncode == 0 and seconds < BOUND, (seconds, done.stderr)
    assert "examples:" in done.stdout if command is None else ("--games" if command == "arena" else "--opponent") in done.stdout


def _play():
    spec = importlib.util.spec_from_file_location("play_cli", REPO_ROOT / "play.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("command", ["azul", "ttt", "hex", "othello", "tak"])
def test_play_help_lists_every_opponent_its_parser_accepts(command):
    """The top-level help's list of a game's opponents, and the game's own help, are read from the parser
    (issue 49): every name ``--opponent`` accepts is there, and the examples name accepted ones."""
    play = _play()
    accepted = play.opponents(command)
    assert accepted, command
    for name in accepted:  # what the parser of a real command line accepts
        assert play.build_parser(command).parse_args([command, "--opponent", name]).opponent == name
    top, _ = timed("play.py", "--help")
    listed = re.search(rf"^  {command} +(\S.*)$", top.stdout, re.M)
    assert listed and listed.group(1).split(", ") == list(accepted), top.stdout
    own, _ = timed("play.py", command, "--help")
    for name in accepted:
        assert re.search(rf"(?<![\w+:.-]){re.escape(name)}(?![\w+:.-])", own.stdout), (name, own.stdout)
    for example in re.findall(rf"play\.py {command} .*--opponent (\S+)", play.EXAMPLES):
        assert example in accepted, example


def test_play_refuses_a_typo_at_once():
    done, seconds = timed("play.py", "chess")
    assert done.returncode == 2 and seconds < BOUND and "invalid choice: 'chess'" in done.stderr, (seconds, done.stderr)
