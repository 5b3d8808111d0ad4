"""Self-play games with the generic MCTS, and their training positions.

One game: from ``game.initial_state(rng)``, every decision is a search (``MCTS.search``, root noise in
the search's config) from the current position. With PUCT the search policy ``pi`` is the root's visit
distribution at temperature 1; the move is drawn from ``pi`` for the first ``temperature_moves``
decisions and is the most visited action afterwards (lowest index on ties). With the Gumbel root policy
``pi`` is the search's improved policy and the move is the search's own choice (its Gumbel sample). The
search keeps the chosen child's subtree (``MCTS.advance``) or starts afresh. Chance states are resolved
with the same generator. At the end every position gets ``z``, the final result of the player who was
to move there.

Playout-cap randomisation (KataGo): with a ``cheap`` search config, each decision is, with probability
``cheap_fraction`` (one draw from the game's generator), a cheap search with that config instead (no
noise), whose move is the search's greedy one (the most visited; Gumbel: its noiseless choice) and whose
position keeps ``z`` but gets no policy target: ``pi`` zero and weight ``w = 0``. ``play_games`` plays several such games in lockstep, each with its own
search and generator, and can evaluate the leaves of all their searches in one batched network call.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from azcourse.core.mcts import MCTS, MCTSConfig, search_many


class SelfPlayGame(NamedTuple):
    """One self-play game's positions, in order.

    Attributes:
        x: float32 ``(T, *encoding_shape)``: ``game.encode`` of each decision state.
        pi: float32 ``(T, A)``: the search policy there (``SearchResult.policy``; zero after a cheap search).
        z: float32 ``(T,)``: the final result of the player to move there.
        returns: float64 ``(num_players,)``: ``game.returns`` of the final state.
        w: float32 ``(T,)``: the weight of the policy target: 1 after a full search, 0 after a cheap one
            (None: every position has one; ``weights`` gives the array either way).
        margin: float32 ``(T,)``: the final score of the player to move there minus the opponent's (None:
            the game keeps no score, see ``final_margins``).
    """

    x: np.ndarray
    pi: np.ndarray
    z: np.ndarray
    returns: np.ndarray
    w: np.ndarray | None = None
    margin: np.ndarray | None = None

    @property
    def moves(self) -> int:
        return len(self.z)

    @property
    def weights(self) -> np.ndarray:
        """float32 ``(T,)``: ``w``, or ones when it is None."""
        return np.ones(self.moves, np.float32) if self.w is None else self.w


def play_game(game, search: MCTS, temperature_moves: int, rng: np.random.Generator,
              reuse_tree: bool = True, cheap: MCTSConfig | None = None, cheap_fraction: float = 0.0) -> SelfPlayGame:
    """One game of ``search`` against itself (see the module docstring); ``rng`` draws the initial
    state, chance outcomes, the cheap moves and the sampled moves (the trainer gives the search the same
    generator, so a run has one stream of draws)."""
    return play_games(game, [search], temperature_moves, [rng], reuse_tree, None, cheap, cheap_fraction)[0]


def play_games(game, searches: list, temperature_moves: int, rngs: list, reuse_tree: bool = True,
               evaluate_many=None, cheap: MCTSConfig | None = None, cheap_fraction: float = 0.0) -> list[SelfPlayGame]:
    """``len(searches)`` self-play games in lockstep, game ``i`` searched by ``searches[i]`` with its own
    generator ``rngs[i]`` (which should be that search's generator too, as in ``play_game``).

    Every move of every unfinished game is searched in the same round: with ``evaluate_many`` (see
    ``azcourse.core.mcts.search_many``) the leaves of all those searches go to the network in one
    batched call; without it each search evaluates its own leaves one at a time. Either way each game
    is the game ``play_game`` plays with that search and generator. A cheap move searches with the
    ``cheap`` config in place of the search's own (``MCTS.search``'s ``config``, for that call only).

    Returns:
        One ``SelfPlayGame`` per search, in order.
    """
    for search in searches:
        search.reset()
    gumbel = [search.config.root_policy == "gumbel" for search in searches]
    states = [game.initial_state(rng) for rng in rngs]
    records = [([], [], [], []) for _ in searches]  # xs, pis, movers, policy weights of each game
    playing = list(range(len(searches)))
    while True:
        for i in playing:
            while game.is_chance(states[i]) and not game.is_terminal(states[i]):
                states[i] = game.resolve_chance(states[i], rngs[i])
        playing = [i for i in playing if not game.is_terminal(states[i])]
        if not playing:
            break
        cheap_moves = {i: cheap_fraction > 0 and rngs[i].random() < cheap_fraction for i in playing}
        configs = [cheap if cheap_moves[i] else None for i in playing]
        if evaluate_many is None:
            results = [searches[i].search(states[i]) if config is None else searches[i].search(states[i], config=config)
                       for i, config in zip(playing, configs)]
        else:
            results = search_many([searches[i] for i in playing], [states[i] for i in playing], evaluate_many, configs)
        for i, result in zip(playing, results):
            xs, pis, movers, weights = records[i]
            cheap_move = cheap_moves[i]
            xs.append(game.encode(states[i]))
            pis.append(np.zeros_like(result.policy) if cheap_move else result.policy)
            weights.append(0.0 if cheap_move else 1.0)
            movers.append(game.to_move(states[i]))
            if cheap_move or gumbel[i] or len(movers) > temperature_moves:
                action = result.action
            else:
                action = int(rngs[i].choice(len(result.policy), p=result.policy))
            if reuse_tree:
                searches[i].advance(action)
            else:
                searches[i].reset()
            states[i] = game.next_state(states[i], action)
    played = []
    for state, (xs, pis, movers, weights) in zip(states, records):
        returns = np.asarray(game.returns(state), np.float64)
        played.append(SelfPlayGame(np.asarray(xs, np.float32), np.asarray(pis, np.float32),
                                   returns[np.asarray(movers, dtype=np.int64)].astype(np.float32), returns,
                                   np.asarray(weights, np.float32), final_margins(game, state, movers)))
    return played


def final_margins(game, state, movers: list) -> np.ndarray | None:
    """float32 ``(T,)``: for each mover (a seat), its score in the final ``state`` minus the other seat's;
    None for a game without ``scores(state) -> (seat 0's, seat 1's)``."""
    if not hasattr(game, "scores"):
        return None
    scores, seats = np.asarray(game.scores(state), np.float64), np.asarray(movers, dtype=np.int64)
    return (scores[seats] - scores[1 - seats]).astype(np.float32)


def positions(game, played: SelfPlayGame, symmetries: bool = True, discount: float = 1.0,
              margin_scale: float = 0.0) -> tuple:
    """The replay rows of one game: ``(x, pi, z, w)``, every image of each position (``augment``) or,
    without ``symmetries``, the positions alone; each image shares its position's ``z`` and ``w``.
    With ``margin_scale > 0`` the value target is ``0.5 * z + 0.5 * tanh(margin / margin_scale)`` (the
    game's ``margin``); with ``discount < 1`` the target of the position k moves before the last
    decision's is then ``discount ** k`` times it (``discounted``)."""
    if margin_scale > 0:
        if played.margin is None:
            raise ValueError("a value target from the score margin needs a game that keeps scores")
        played = played._replace(z=(0.5 * played.z + 0.5 * np.tanh(played.margin / margin_scale)).astype(np.float32))
    if discount != 1.0:
        played = played._replace(z=discounted(played.z, discount))
    x, pi, z = augment(game, played) if symmetries else (played.x, played.pi, played.z)
    return x, pi, z, np.repeat(played.weights, len(x) // max(played.moves, 1))


def discounted(z: np.ndarray, discount: float) -> np.ndarray:
    """float32 ``(T,)``: ``z[t] * discount ** (T - 1 - t)``, the results ``z`` (float32 ``(T,)``) of a
    game's decisions discounted by their distance to its last decision."""
    steps = np.arange(len(z) - 1, -1, -1, dtype=np.float64)
    return (z * discount ** steps).astype(np.float32)


def augment(game, played: SelfPlayGame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every image of every position under ``game.symmetries`` (the positions themselves when the
    game has none): ``(x (n, *encoding_shape), pi (n, A), z (n,))``, the images of a position
    next to each other and sharing its ``z``."""
    if not hasattr(game, "symmetries"):
        return played.x, played.pi, played.z
    xs, pis, zs = [], [], []
    for x, pi, z in zip(played.x, played.pi, played.z):
        for image_x, image_pi in game.symmetries(x, pi):
            xs.append(image_x)
            pis.append(image_pi)
            zs.append(z)
    return np.asarray(xs, np.float32), np.asarray(pis, np.float32), np.asarray(zs, np.float32)
