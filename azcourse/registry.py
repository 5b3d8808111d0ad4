"""Games of the game layer by name: ``make_game("tictactoe")``, ``make_game("hex5")``.

A name is a family, optionally followed by a board size: ``hex5`` is ``Hex(5)``, and a sized family
without a number (``hex``) gets its default size. ``make_game(game.name)`` rebuilds an equal game,
so a checkpoint card that records ``game.name`` is enough to rebuild the game it was trained on.

Adding a game is one line in ``FAMILIES``: the family name, the constructor as
``"module:attribute"`` (imported on first use, so naming a game never imports the others, e.g.
Azul's numba engine), and whether the name carries a size.
"""
from __future__ import annotations

import importlib
import re
from typing import NamedTuple


class Family(NamedTuple):
    """A game family: ``constructor`` is ``"module:attribute"``; ``sized`` families take the board
    size from the name (``hex5`` -> ``Hex(5)``)."""

    constructor: str
    sized: bool


FAMILIES = {
    "tictactoe": Family("azcourse.tictactoe.game:TicTacToe", sized=False),
    "hex": Family("azcourse.hex.game:Hex", sized=True),
    "azul": Family("azcourse.azul.game:Azul", sized=False),
    "othello": Family("azcourse.othello.game:Othello", sized=True),
    "tak": Family("azcourse.tak.game:Tak", sized=True),
}

_NAME = re.compile(r"([a-z_]+?)(\d*)")


class UnknownGame(ValueError):
    """A game name that no family of the registry makes; the message lists the known ones."""


def make_game(name: str):
    """The game called ``name`` (a ``azcourse.core.protocol.Game``).

    Raises:
        UnknownGame: unknown family, a size given to a family without sizes, or a size the game
            refuses (the game's own message is kept).
    """
    match = _NAME.fullmatch(str(name).strip().lower())
    family = FAMILIES.get(match.group(1)) if match else None
    if family is None:
        known = ", ".join(f"{f}<n>" if fam.sized else f for f, fam in FAMILIES.items())
        raise UnknownGame(f"unknown game {name!r}; known games: {known}")
    module, attribute = family.constructor.split(":")
    constructor = getattr(importlib.import_module(module), attribute)
    size = match.group(2)
    if not family.sized:
        if size:
            raise UnknownGame(f"{match.group(1)} takes no board size, got {name!r}")
        return constructor()
    try:
        return constructor(int(size)) if size else constructor()
    except ValueError as problem:
        raise UnknownGame(f"{name!r}: {problem}") from None
