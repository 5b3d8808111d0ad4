"""OHT-style play: the agent interface of the Online Hex Tournament and a local series runner.

The protocol (the Hex assignment, section 7.1.1)
    A *series* is several games between the same two agents. At its start each agent is told its
    player id, 1 (X, joins the rows) or 2 (O, joins the columns), fixed for the whole series; the
    player who opens alternates from game to game, player 1 opening the first. On its turn an agent
    receives the state as a flat tuple, the id (1 or 2) of the player to move and then the ``n*n``
    cells row by row (0 empty, 1 and 2 stones), and answers ``(row, col)`` counted from 0. After each
    game both agents receive the final state and the winner's id; after the series, both receive
    every player's wins and losses; at the end, each receives its score, the fraction of games won.
    There is no message at the start of a game.

Agents
    ``OHTAgent`` is the interface; ``GameLayerAgent`` wraps any agent of ``azcourse.core.agents``
    (random, uct, anet, mcts). ``agent_from_spec("anet:ckpts/hex5")`` builds one by name.
Separate processes
    ``ProcessAgent(spec, size, seed)`` runs an agent in a child process (``python -m azcourse.hex
    agent``) and speaks to it in JSON lines over its stdin/stdout; ``serve`` is the child's side.
    Each child keeps a ``record`` of what it was told, which ``report()`` returns (tests check it).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import NamedTuple

import numpy as np

from azcourse.core.agents import make_agent
from azcourse.hex.game import Hex

from .checkpoints import REPO_ROOT, cached_anets, load_anet, run_dir_for


class ProtocolError(RuntimeError):
    """An agent broke the protocol (an illegal move, an unreadable answer); the message says how."""


class OHTAgent:
    """The OHT agent interface. Subclasses implement ``act``; the notifications default to
    remembering what was sent (``self.record``), so a runner's messages can be checked."""

    def __init__(self):
        self.record = {"player": None, "size": None, "games": [], "series": None, "score": None}

    def begin_series(self, player: int, size: int) -> None:
        """The series starts; this agent is ``player`` (1 or 2) in every game of it, on a
        ``size`` x ``size`` board."""
        self.record["player"], self.record["size"] = player, size

    def act(self, state: tuple) -> tuple[int, int]:
        """The move for ``state`` (``(player to move, cell 0, ..., cell n*n-1)``): ``(row, col)``."""
        raise NotImplementedError

    def end_game(self, state: tuple, winner: int) -> None:
        """A game ended in ``state``, won by player ``winner`` (1 or 2)."""
        self.record["games"].append({"final": list(state), "winner": winner})

    def end_series(self, results: dict) -> None:
        """The series ended: ``results[player] = {"wins": w, "losses": l}`` for players 1 and 2."""
        self.record["series"] = results

    def end_tournament(self, score: float) -> None:
        """The fraction of its games this agent won."""
        self.record["score"] = score


class GameLayerAgent(OHTAgent):
    """An agent of ``azcourse.core.agents`` (``choose(state) -> action``, ``observe(action)``)
    behind the OHT interface. Its tree (``uct``, ``mcts``) is rebuilt for each move."""

    def __init__(self, agent, game: Hex):
        super().__init__()
        self.agent, self.game = agent, game
        self.first_states: list = []  # the first state this agent saw in each game

    def act(self, state: tuple) -> tuple[int, int]:
        if len(self.first_states) == len(self.record["games"]):
            self.first_states.append(list(state))
        return divmod(int(self.agent.choose(self.game.from_seed_tuple(state))), self.game.size)


def agent_from_spec(spec: str, size: int, seed: int = 0, simulations: int = 500) -> GameLayerAgent:
    """An agent by name: ``random``, ``uct``, ``anet:<run or anet folder>``, ``mcts:<folder>``
    (``uct`` and ``mcts`` take ``:<search games>`` at the end, e.g. ``uct:200``,
    ``mcts:ckpts/hex5:200``). A run folder means its last cached ANET.

    Raises:
        ValueError: an unknown name, or a policy for another board size.
    """
    parts = spec.split(":")
    kind, rest = parts[0], parts[1:]
    if rest and rest[-1].isdigit() and kind in ("uct", "mcts"):
        simulations = int(rest.pop())
    game, rng = Hex(size), np.random.default_rng(seed)
    policy = None
    if kind in ("anet", "mcts"):
        if len(rest) != 1:
            raise ValueError(f"{kind} needs a folder: {kind}:<run folder or anet folder>, got {spec!r}")
        folder = run_dir_for(rest[0])
        cached = load_anet(folder) if (folder / "card.json").exists() else (cached_anets(folder) or [None])[-1]
        if cached is None:
            raise ValueError(f"no cached ANET in {folder}")
        if cached.card["architecture"]["board_size"] != size:
            raise ValueError(f"{cached.path} plays {cached.card['architecture']['board_size']}x"
                             f"{cached.card['architecture']['board_size']} Hex, not {size}x{size}")
        policy = cached.net.state_policy(game)
    elif rest:
        raise ValueError(f"{kind} takes no folder, got {spec!r}")
    return GameLayerAgent(make_agent(kind, game, rng, simulations, policy), game)


class SeriesResult(NamedTuple):
    """A series' outcome: ``wins[p]`` games won by player ``p`` (1, 2); ``starters[g]`` and
    ``winners[g]`` the opener and winner of game ``g``; ``scores[p]`` the fraction won."""

    wins: dict
    starters: list
    winners: list
    scores: dict


def run_series(agent_1: OHTAgent, agent_2: OHTAgent, size: int, games: int, show=None) -> SeriesResult:
    """One series: ``agent_1`` is player 1 and ``agent_2`` player 2 in every game, the opener
    alternating (player 1 opens game 0). ``show(text)`` (optional) gets each final position.

    Raises:
        ProtocolError: an agent answered an occupied or off-board cell, or not a (row, col) pair.
    """
    game = Hex(size)
    agents = {1: agent_1, 2: agent_2}
    for player, agent in agents.items():
        agent.begin_series(player, size)
    wins, starters, winners = {1: 0, 2: 0}, [], []
    for g in range(games):
        starter = 1 if g % 2 == 0 else 2
        state = game.from_seed_tuple((starter,) + (0,) * (size * size))
        while not game.is_terminal(state):
            mover = state.player + 1
            move = agents[mover].act(game.to_seed_tuple(state))
            try:
                row, col = (int(v) for v in move)
            except (TypeError, ValueError):
                raise ProtocolError(f"player {mover} answered {move!r}, not a (row, col) pair") from None
            if not (0 <= row < size and 0 <= col < size) or state.cells[row * size + col]:
                raise ProtocolError(f"player {mover} played ({row}, {col}): off the board or taken")
            state = game.next_state(state, row * size + col)
        winner = state.winner + 1
        wins[winner] += 1
        starters.append(starter)
        winners.append(winner)
        final = game.to_seed_tuple(state)
        for agent in agents.values():
            agent.end_game(final, winner)
        if show is not None:
            show(f"game {g + 1}: player {starter} opened, player {winner} won\n{game.render(state)}")
    results = {p: {"wins": wins[p], "losses": games - wins[p]} for p in (1, 2)}
    scores = {p: wins[p] / games if games else 0.0 for p in (1, 2)}
    for player, agent in agents.items():
        agent.end_series(results)
        agent.end_tournament(scores[player])
    return SeriesResult(wins, starters, winners, scores)


# -- separate processes: JSON lines over stdin/stdout ------------------------------------------------
class ProcessAgent(OHTAgent):
    """An agent running in its own process (``python -m azcourse.hex agent SPEC``); every call is one
    JSON line to its stdin and one JSON line back. Use as a context manager, or call ``close``."""

    def __init__(self, spec: str, size: int, seed: int = 0, simulations: int = 500):
        super().__init__()
        command = [sys.executable, "-m", "azcourse.hex", "agent", spec, "--size", str(size), "--seed", str(seed),
                   "--simulations", str(simulations)]
        self.spec = spec
        env = dict(os.environ)  # the child imports this package from the same checkout
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                                        env=env)

    def _call(self, message: dict):
        """Send ``message``, return the reply's ``value``; an ``error`` reply or a closed pipe raises
        ``ProtocolError``."""
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise ProtocolError(f"agent {self.spec!r} stopped (exit code {self.process.wait(timeout=30)}) "
                                f"instead of answering {message['type']!r}")
        reply = json.loads(line)
        if "error" in reply:
            raise ProtocolError(f"agent {self.spec!r}: {reply['error']}")
        return reply.get("value")

    def begin_series(self, player: int, size: int) -> None:
        super().begin_series(player, size)
        self._call({"type": "begin_series", "player": player, "size": size})

    def act(self, state: tuple) -> tuple[int, int]:
        return tuple(self._call({"type": "act", "state": list(state)}))

    def end_game(self, state: tuple, winner: int) -> None:
        super().end_game(state, winner)
        self._call({"type": "end_game", "state": list(state), "winner": winner})

    def end_series(self, results: dict) -> None:
        super().end_series(results)
        self._call({"type": "end_series", "results": {str(p): r for p, r in results.items()}})

    def end_tournament(self, score: float) -> None:
        super().end_tournament(score)
        self._call({"type": "end_tournament", "score": score})

    def report(self) -> dict:
        """What the child process recorded: its ``record`` plus ``first_states`` and ``pid``."""
        return self._call({"type": "report"})

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=30)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def serve(agent: GameLayerAgent, stdin=None, stdout=None) -> None:
    """The child's side of ``ProcessAgent``: answer JSON lines until stdin closes."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    for line in stdin:
        message = json.loads(line)
        kind = message["type"]
        try:
            if kind == "begin_series":
                value = agent.begin_series(message["player"], message["size"])
            elif kind == "act":
                value = list(agent.act(tuple(message["state"])))
            elif kind == "end_game":
                value = agent.end_game(tuple(message["state"]), message["winner"])
            elif kind == "end_series":
                value = agent.end_series({int(p): r for p, r in message["results"].items()})
            elif kind == "end_tournament":
                value = agent.end_tournament(message["score"])
            elif kind == "report":
                value = {**agent.record, "first_states": agent.first_states, "pid": os.getpid()}
            else:
                raise ValueError(f"unknown message type {kind!r}")
            reply = {"value": value}
        except (ValueError, KeyError) as problem:
            reply = {"error": str(problem)}
        stdout.write(json.dumps(reply) + "\n")
        stdout.flush()
