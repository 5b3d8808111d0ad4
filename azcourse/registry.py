"""Games of the game layer by name: ``make_game("tictactoe")``, ``make_game("hex5")``.

A name is a family, optionally followed by a board size: ``hex5`` is ``Hex(5)``, and a sized family
without a number (``hex``) gets its default size. ``make_game(game.name)`` rebuilds an equal game,
so a checkpoint card that records ``game.name`` is enough to rebuild the game it was trained on.

Adding a game is one line in ``FAMILIES``: the family name, the constructor as
``"module:attribute"`` (imported on first use, so naming a game never imports the others, e.g.
Azul's numba engine), and whether the name carries a size.

Players that need only a game: ``make_alphabeta("alphabeta:3", "othello8")`` is alpha-beta to 3 plies
(``azcourse.core.alphabeta``) with the family's static evaluation in ``EVALUATIONS``;
``make_classical("classical:3", "tak5")`` is the family's compiled classical yardstick in ``CLASSICAL``;
``make_endgame(game, 10)`` the family's exact endgame solver in ``ENDGAMES``.
"""
from __future__ import annotations

import functools
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
    "azul_replies": Family("azcourse.azul.game:AzulReplies", sized=False),  # Azul, with what a take leaves the opponent
    "othello": Family("azcourse.othello.game:Othello", sized=True),
    "tak": Family("azcourse.tak.game:Tak", sized=True),
}

# family -> "module:attribute" of its teacher ``teacher(state, rng) -> action``, a fast hand-written player that
# an AlphaZero run may imitate before its first iteration (``azcourse.alphazero.warm_start``)
TEACHERS = {
    "azul": "azcourse.azul.agents:greedy_agent",  # the take with the best immediate score
    "azul_replies": "azcourse.azul.agents:greedy_agent",
}

# family -> "module:attribute" of its evaluation ``evaluate(game, state, player) -> float`` in [-1, 1]
EVALUATIONS = {
    "othello": "azcourse.othello.agents:evaluate",  # corners and mobility
    "hex": "azcourse.hex.agents:evaluate",  # shortest connecting paths
}

# family -> "module:attribute" of its classical yardstick ``build(game, depth, rng) -> agent``, a compiled engine
# kept apart from training and named ``classical:<depth>`` (``make_classical``)
CLASSICAL = {
    "othello": "azcourse.othello.yardstick:classical_agent",  # alpha-beta: mobility, frontier, corners; exact endgame
    "tak": "azcourse.tak.yardstick:classical_agent",  # alpha-beta: flats, road distance, captives
}

# family -> "module:attribute" of its exact endgame, ``make(game, empties) -> solver`` with ``solver.move(state)``
# (the best move with perfect play, or None) and ``solver.proof(state)`` (``(returns, plies)`` or None, for
# ``azcourse.core.proofs``) from ``empties`` empty squares on (``azcourse.alphazero.agent``'s ``endgame_empties``)
ENDGAMES = {
    "othello": "azcourse.othello.endgame:Endgame",
}

# family -> "module:attribute" of its agents' leaf evaluation of a checkpoint, ``make(game, forward, prior_mix,
# value_mix) -> evaluator``, where it has its own (Azul's computes its heuristic only where a weight needs it);
# others: the network, mixed with the game's ``guide`` (``azcourse.alphazero.agent.play_evaluator``)
PLAY_EVALUATORS = {
    "azul": "azcourse.azul.checkpoints:play_evaluator",
    "azul_replies": "azcourse.azul.checkpoints:play_evaluator",
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


def make_teacher(game_name: str):
    """The teacher of the game called ``game_name`` (``TEACHERS``): ``teacher(state, rng) -> action``.

    Raises:
        ValueError: the game's family has no teacher.
    """
    family = _NAME.fullmatch(make_game(game_name).name).group(1)
    if family not in TEACHERS:
        raise ValueError(f"no teacher for {game_name} (games with one: {', '.join(TEACHERS)}): set warm_start_games = 0")
    module, attribute = TEACHERS[family].split(":")
    return getattr(importlib.import_module(module), attribute)


def make_alphabeta(spec: str, game_name: str, rng=None):
    """The alpha-beta agent that ``spec`` names (``alphabeta:<depth>``, e.g. ``alphabeta:3``) for the
    game called ``game_name``. ``rng`` is accepted and unused (the agent is deterministic), so
    ``functools.partial(make_alphabeta, spec, game_name)`` is a factory for ``play_match``.

    Raises:
        ValueError: ``spec`` is not ``alphabeta:<depth>``, or the game's family has no evaluation.
    """
    from azcourse.core.alphabeta import AlphaBetaAgent

    kind, _, depth = spec.partition(":")
    if kind != "alphabeta" or not depth.isdigit() or int(depth) < 1:
        raise ValueError(f"an alpha-beta player is named alphabeta:<depth>, e.g. alphabeta:3; got {spec!r}")
    game = make_game(game_name)
    family = _NAME.fullmatch(game.name).group(1)
    if family not in EVALUATIONS:
        raise ValueError(f"no alpha-beta evaluation for {game.name}; known: {', '.join(EVALUATIONS)}")
    module, attribute = EVALUATIONS[family].split(":")
    evaluate = getattr(importlib.import_module(module), attribute)
    return AlphaBetaAgent(game, functools.partial(evaluate, game), int(depth), name=f"alphabeta:{depth}")


def make_classical(spec: str, game_name: str, rng=None):
    """The classical yardstick that ``spec`` names (``classical:<depth>``, e.g. ``classical:3``) for the game
    called ``game_name`` (``CLASSICAL``); ``rng`` is passed on (Tak's breaks ties with it), so
    ``functools.partial(make_classical, spec, game_name)`` is a factory for ``play_match``.

    Raises:
        ValueError: ``spec`` is not ``classical:<depth>``, or the game's family has no classical yardstick.
    """
    kind, _, depth = spec.partition(":")
    if kind != "classical" or not depth.isdigit() or int(depth) < 1:
        raise ValueError(f"a classical yardstick is named classical:<depth>, e.g. classical:3; got {spec!r}")
    return classical_agent(make_game(game_name), int(depth), rng)


def classical_agent(game, depth: int, rng=None):
    """The classical yardstick of ``game``'s family (``CLASSICAL``) to ``depth`` plies, imported by name here
    (numba) so that modules naming it, e.g. the games' opponent lists, do not pull it into a student bundle.

    Raises:
        ValueError: the game's family has no classical yardstick.
    """
    family = _NAME.fullmatch(game.name).group(1)
    if family not in CLASSICAL:
        raise ValueError(f"no classical yardstick for {game.name}; known: {', '.join(CLASSICAL)}")
    module, attribute = CLASSICAL[family].split(":")
    return getattr(importlib.import_module(module), attribute)(game, depth, rng)


def family_of(game_name: str) -> str | None:
    """The family part of a game name (``"othello"`` for ``"othello8"``), without making the game; None for no name."""
    match = _NAME.fullmatch(str(game_name).strip().lower())
    return match.group(1) if match and match.group(1) in FAMILIES else None


def make_endgame(game, empties: int):
    """The exact endgame of ``game``'s family (``ENDGAMES``) from ``empties`` empty squares on, imported by name
    (numba) only when asked for.

    Raises:
        ValueError: the game's family has no endgame solver (or ``empties`` is out of its range).
    """
    family = _NAME.fullmatch(game.name).group(1)
    if family not in ENDGAMES:
        raise ValueError(f"no exact endgame for {game.name}; games with one: {', '.join(ENDGAMES)}")
    module, attribute = ENDGAMES[family].split(":")
    return getattr(importlib.import_module(module), attribute)(game, empties)


def own_play_evaluator(game_name: str):
    """The family's own leaf evaluation for its checkpoints' agents (``PLAY_EVALUATORS``), or None."""
    family = _NAME.fullmatch(make_game(game_name).name).group(1)
    if family not in PLAY_EVALUATORS:
        return None
    module, attribute = PLAY_EVALUATORS[family].split(":")
    return getattr(importlib.import_module(module), attribute)
