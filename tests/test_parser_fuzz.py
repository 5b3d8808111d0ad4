"""Every game's move parser and terminal take any text a person can type: each line is read as a
legal move or refused with a short, printable reason, and nothing else happens (no other exception,
no crash of ``play.py``, no change to the game).

The texts: an explicit corpus (numbers of 5,000 digits, emoji, right-to-left marks, combining
accents, full-width and Arabic-Indic digits, control characters, empty and blank lines, a 1 MB line)
and seeded random ones (random code points, random bytes decoded three ways, legal moves with a
character slipped in). ``hypothesis`` is not needed: the generator is numpy's, seeded.
"""
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import Azul_Simulator as az
from azcourse.azul.game import Azul
from azcourse.core.agents import make_agent
from azcourse.core.protocol import IllegalAction
from azcourse.core.terminal import MAX_LINE, TerminalMatch
from azcourse.hex.game import PLAYER_NAMES, Hex
from azcourse.tictactoe.game import TicTacToe

ROOT = Path(__file__).resolve().parents[1]
MEGABYTE = 1 << 20

CORPUS = [
    # empty, blank, whitespace of other scripts
    "", " ", "\t", "   \t  ", "\u3000", "\u00a0", "\u2003c3\u2003",
    # long numbers (int() refuses more than 4,300 digits) and number-like text
    "1" * 5000, "9" * 4301, "c" + "1" * 5000, "a" + "0" * 4999 + "1", "1" * 5000 + ",1", "1," + "1" * 5000,
    "-" + "1" * 5000, "0" * 5000, "1e5000", "-1", "+1", "0", "10", "1_000", "0x10", "1.5", "NaN", "inf",
    "None", "c-1", "c+3", "3,-3", "3,,3", ",", "1,2,3",
    # emoji, right-to-left, combining characters
    "😀", "c3😀", "👨\u200d👩\u200d👧", "🇫🇷", "\u202ec3", "c3\u202e", "\u200f3,3", "\u061c5", "مرحبا", "שלום",
    "c\u0301", "c3\u0301", "\u0301", "5\u20e3", "e\u0308",
    # digits and letters of other scripts
    "３", "５", "c５", "５,５", "１,１", "٣", "c٣", "٣,٣", "۳", "५", "５B２", "Ｃ３", "\u212a3", "ı1", "ﬀ", "ß", "İ",
    # control characters and escape sequences
    "\x00", "c3\x00", "\x00c3", "\x1b[2J", "\x1b[2Jc3", "\x1b]0;title\x07", "\x07", "\x08", "\x7f", "\x0b",
    "\x0c", "\x1c", "\x85", "\u2028", "\r", "c3\r", "\r\n", "\x9b2J",
    # lone surrogates (what undecodable bytes become with errors='surrogateescape')
    "\udcff", "c\udcff3", "\ud800",
    # huge lines
    "x" * MEGABYTE, "c3" * (MEGABYTE // 2), "1," * (MEGABYTE // 2), " " * MEGABYTE, "\x00" * MEGABYTE,
]

# Code points to draw random text from: ASCII with controls, Latin-1, combining marks, bidi and
# zero-width marks, Arabic and Devanagari digits, CJK and full-width forms, emoji, surrogates.
_RANGES = [(0x00, 0x7F), (0x80, 0xFF), (0x300, 0x36F), (0x200B, 0x202E), (0x0660, 0x06F9), (0x0966, 0x096F),
           (0x3000, 0x303F), (0xFF01, 0xFF5E), (0x1F300, 0x1F64F), (0xD800, 0xDFFF), (0x10000, 0x10FFFF)]


def random_texts(seed: int, count: int) -> list[str]:
    """``count`` seeded random texts of four kinds, in turn: random code points from ``_RANGES``;
    random bytes decoded as UTF-8 with 'replace' and with 'surrogateescape', and as Latin-1;
    a legal-looking move (c3, 3,3, 5B2, 5) with a random character slipped in or swapped."""
    rng = np.random.default_rng(seed)
    texts = []
    for k in range(count):
        kind = k % 4
        if kind == 0:
            picks = [_RANGES[i] for i in rng.integers(len(_RANGES), size=int(rng.integers(1, 12)))]
            texts.append("".join(chr(int(rng.integers(lo, hi + 1))) for lo, hi in picks))
        elif kind == 1:
            raw = rng.integers(256, size=int(rng.integers(0, 48)), dtype=np.uint8).tobytes()
            texts.append(raw.decode(("utf-8", "utf-8", "latin-1")[k % 3],
                                    errors=("replace", "surrogateescape", "strict")[k % 3]))
        else:
            base = ["c3", "3,3", "5B2", "5", "CWF", "a1"][int(rng.integers(6))]
            lo, hi = _RANGES[int(rng.integers(len(_RANGES)))]
            char, at = chr(int(rng.integers(lo, hi + 1))), int(rng.integers(len(base) + 1))
            texts.append(base[:at] + char + base[at + (kind == 3):])
    return texts


TEXTS = CORPUS + random_texts(0, 1200)


def check_reason(reason: str, text: str) -> None:
    """A refusal's reason: non-empty, one printable line of bounded length (so a terminal shows it
    and never obeys an escape sequence in it), whatever ``text`` was."""
    assert reason, f"empty reason for {text[:50]!r}"
    assert len(reason) <= 400 and reason.isprintable(), (text[:50], reason[:500])


def play_random(game, moves: int, seed: int):
    """The state after ``moves`` uniformly random actions (chance steps resolved) from the start."""
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)
    for _ in range(moves):
        if game.is_terminal(state):
            break
        if game.is_chance(state):
            state = game.resolve_chance(state, rng)
        else:
            state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    return state


def positions(game, seed: int) -> list:
    """The start, a position a few moves in, and a finished game."""
    return [game.initial_state(np.random.default_rng(seed)), play_random(game, 3, seed),
            play_random(game, 10_000, seed)]


GAMES = {**{f"hex{n}": (lambda n=n: Hex(n)) for n in range(3, 9)}, "tictactoe": TicTacToe, "azul": Azul}


@pytest.mark.parametrize("name", GAMES)
def test_parse_action_reads_a_legal_move_or_refuses_with_a_reason(name):
    """Over the start, an early position and a finished game: every text of ``TEXTS`` is refused
    with a reason or read as a legal action, and the legal moves, spelt with odd spacing and case,
    are read as themselves."""
    game = GAMES[name]()
    for state in positions(game, seed=len(name)):
        mask = game.legal_mask(state)
        for text in TEXTS:
            try:
                action = game.parse_action(state, text)
            except IllegalAction as refusal:
                check_reason(str(refusal), text)
                continue
            assert isinstance(action, int) and mask[action], (text[:50], action)
        for action in np.flatnonzero(mask)[:8]:
            text = game.action_to_text(state, int(action))
            for spelt in (f" {text.upper()}\t", f"\u3000{text.lower()} "):
                assert game.parse_action(state, spelt) == action


def test_the_engines_move_codes_read_or_refuse_any_text():
    """``Azul_Simulator``'s own parsers: ``string_to_action`` gives an action or raises ValueError;
    ``take_action_from_string`` gives a new board or the very board it was given, untouched, and
    a reason; both reasons short and printable."""
    rng = np.random.default_rng(3)
    boards = [az.init_board(rng), play_random(Azul(), 6, 3)]
    for text in TEXTS:
        action, reason = az._parse_code(text)
        assert (action is None) != (reason is None)
        try:
            assert az.string_to_action(text) == action
        except ValueError as refusal:
            assert str(refusal) == reason
            check_reason(reason, text)
        for board in boards:
            before = board.copy()
            new_board, reason = az.take_action_from_string(board, text, np.random.default_rng(0))
            assert np.array_equal(board, before)
            if reason is None:
                assert action is not None and az.get_valid_mask(board)[action] and new_board is not board
            else:
                assert new_board is board
                check_reason(reason, text)


# -- the terminals ------------------------------------------------------------------------------------
BAD_LINES = [
    "", "   ", "1" * 5000, "c" + "1" * 5000, "1" * 5000 + ",1", "😀", "c3😀", "\u202ec3", "c\u0301",
    "５", "５,５", "c５", "٣,٣", "Ｃ３", "\u212a3", "\x00", "c3\x00", "\x1b[2J", "\x1b]0;title\x07", "\x7f",
    "x" * MEGABYTE, "c3" * (MEGABYTE // 2), "NaN", "-1", "99,99", "zz", "9B9",
]


def bad_lines_input(seed: int) -> bytes:
    """``BAD_LINES`` and a few lines of random bytes (no line breaks), as bytes for stdin."""
    rng = np.random.default_rng(seed)
    noise = [bytes(b if b not in b"\r\n" else 0x3F for b in rng.integers(256, size=24, dtype=np.uint8).tobytes())
             for _ in range(6)]
    lines = [line.encode() for line in BAD_LINES] + noise + [b"zz\rc\xff9", b"\xef\xbf\xbf\xed\xa0\x80"]
    return b"\n".join(lines) + b"\n"


def lines_read(data: bytes) -> list[str]:
    """The lines ``input()`` reads from ``data`` on a UTF-8 stdin with errors='replace' (how
    ``play.py`` sets it up): only ``\\n`` ends a line (a ``\\r`` stays in it, as on POSIX)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline="\n").read().split("\n")[:-1]


def run_play(data: bytes, *args: str) -> subprocess.CompletedProcess:
    """``play.py`` with ``data`` on stdin, on a strict UTF-8 terminal (the default errors of a
    UTF-8 locale: undecodable bytes would raise, unencodable text too)."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    return subprocess.run([sys.executable, str(ROOT / "play.py"), *args], input=data, capture_output=True,
                          cwd=ROOT, env=env, timeout=300)


def refusals(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("Refused: ")]


def test_the_generic_terminal_refuses_every_bad_line_and_moves_nothing():
    game = Hex(5)
    lines = lines_read(bad_lines_input(1))
    written, states = [], []
    script = iter(lines + ["c3", "quit"])
    agent = make_agent("random", game, np.random.default_rng(0))
    match = TerminalMatch(game, agent, 0, "help", PLAYER_NAMES, np.random.default_rng(0),
                          read=lambda prompt: next(script), write=written.append, echo=True)
    original = match.ask
    match.ask = lambda state: states.append(state) or original(state)
    assert match.run() == 0
    assert len(refusals("\n".join(written))) == len(lines)
    assert [game.to_seed_tuple(s) for s in states] == [game.to_seed_tuple(game.initial_state()),
                                                      game.to_seed_tuple(states[1])]
    assert sum(states[1].cells) == 3 and states[1].cells[12] == 1  # c3, then the agent's one stone
    one_liners = [w for w in written if "\n" not in w]  # all but the board pictures
    assert all(len(w) <= 400 and w.isprintable() for w in one_liners), "echoes and reasons escaped and cut"
    assert f"Refused: the line has {MEGABYTE:,} characters; a move or a command has at most {MAX_LINE}." in written


class BuggyHex(Hex):
    """Hex whose parser has two bugs: an exception other than IllegalAction, and an illegal answer."""

    def parse_action(self, state, text):
        if text == "crash":
            return int("9" * 5000)
        if text == "taken":
            return 0
        return super().parse_action(state, text)


def test_a_parser_bug_is_refused_with_a_report_and_the_game_goes_on():
    game = BuggyHex(3)
    script = iter(["a1", "crash", "taken", "quit"])
    written = []
    agent = make_agent("random", game, np.random.default_rng(0))
    match = TerminalMatch(game, agent, 0, "help", PLAYER_NAMES, np.random.default_rng(1),
                          read=lambda prompt: next(script), write=written.append)
    assert match.run() == 0
    reports = refusals("\n".join(written))
    assert len(reports) == 2 and all("This is a bug in the game" in r for r in reports)
    assert "parse_action failed on 'crash' with ValueError: 'Exceeds the limit" in reports[0]
    assert "parse_action read 'taken' as 0, which is not a legal action here" in reports[1]
    assert written[-1] == "You left the game."


def test_play_hex_refuses_each_bad_line_and_keeps_the_board():
    data = bad_lines_input(2)
    proc = run_play(data + b"board\nquit\n", "hex", "--size", "5", "--opponent", "random", "--seed", "3")
    out = proc.stdout.decode()
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr.decode()[-2000:]
    assert len(refusals(out)) == len(lines_read(data))
    before = out.split("Your move: ", 1)[0].split(PLAYER_NAMES[0] + " to move.", 1)[1]
    after = out.split("Your move: board\n", 1)[1].split("Your move: quit", 1)[0]
    assert after.split(PLAYER_NAMES[0] + " to move.", 1)[1] == before  # the empty board, as at the start
    assert out.count("You play") == 1 and out.rstrip().endswith("You left the game.")  # "You play X ... against"


def test_play_ttt_refuses_each_bad_line_and_keeps_the_board():
    data = bad_lines_input(3)
    proc = run_play(data + b"5\nquit\n", "ttt", "--opponent", "random", "--seed", "4")
    out = proc.stdout.decode()
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr.decode()[-2000:]
    assert len(refusals(out)) == len(lines_read(data))
    grid = out.split("random plays square ", 1)[1].split("Your move", 1)[0]
    assert grid.count("X") == 1 and grid.count("O") == 1 and " X " in grid.splitlines()[3]  # square 5 only
    assert out.rstrip().endswith("Game left.")


def test_play_azul_refuses_each_bad_line_and_keeps_the_board():
    data = bad_lines_input(4)
    proc = run_play(data + b"board\nquit\n", "azul", "--opponent", "random", "--seed", "5", "--no-color")
    out = proc.stdout.decode()
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr.decode()[-2000:]
    blank = [line for line in lines_read(data) if not line.strip()]  # Azul asks again on a blank line
    assert len(blank) == 2 and len(refusals(out)) == len(lines_read(data)) - len(blank)
    before = out.split("Your move: ", 1)[0]
    after = out.split("Your move: board\n", 1)[1].split("Your move: quit", 1)[0]
    assert before.endswith(after) and len(after) > 200  # `board` shows the position of the first prompt
    assert "You play" not in out and out.rstrip().endswith("You left the game.")
