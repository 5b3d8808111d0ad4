"""Self-play workers: an iteration's games, batched, in this process, on every core, or on a Ray cluster.

A ``SelfPlayWorker`` plays the games whose seeds it is given: ``selfplay_batch`` games at a time in
lockstep (``selfplay.play_games``), the leaves of their searches evaluated in one network call
(``NetworkEvaluator.many``: ``NumpyNet.forward`` or ``flax_net.jax_forward_many``); with
``search_path = "compiled"`` the games go to ``compiled_search.play_games`` instead (Othello, Hex and Tak;
with ``network = "ntuple"`` the pattern tables themselves, evaluated inside the compiled search).
Game ``i`` draws everything from ``numpy.random.default_rng(seeds[i])``, so which worker plays it does
not matter.

Three pools hand the seeds of an iteration to workers, one contiguous share per worker, and return the
games in seed order:

* ``InProcessPool``: one worker in this process (``workers = 1``);
* ``ProcessPool``: ``workers`` processes of this machine (``concurrent.futures``, spawned, so the
  learner's JAX state is never forked; each ends itself when the trainer is killed);
* ``RayPool``: ``workers`` Ray actors on a cluster (``--ray auto`` or ``--ray ADDRESS``; Ray is the
  optional extra ``pip install .[cluster]``).

With the same ``workers`` the three give the same games, bit for bit; with another number of workers
only the batches differ, which can change a float's last bits.

Workers run numpy's BLAS on one thread (``ONE_THREAD``, set before a worker imports numpy): a batch of a
few dozen positions is a small matrix product, and OpenBLAS's threads, busy-waiting on cores that the
other workers need, made batched self-play four times slower than one game at a time on 2 cores.
"""
from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import threading
import time

import numpy as np

from azcourse.core.evaluators import GuidedEvaluator, NetworkEvaluator
from azcourse.core.mcts import MCTS
from azcourse.core.threads import ONE_THREAD, one_thread_children
from azcourse.registry import make_game

from . import searches
from .config import AlphaZeroConfig, ConfigError
from .network import NetSpec, NumpyNet, Predictor
from .ntuple.patterns import NTupleSpec
from .selfplay import SelfPlayGame, play_games


def leaf_evaluator(config: AlphaZeroConfig, predictor: Predictor, iteration: int):
    """Self-play's leaf evaluator in ``iteration``: the network (``NetworkEvaluator``), mixed with the game's
    ``guide`` when the config's ``guide_at(iteration)`` says so (``GuidedEvaluator``)."""
    network = NetworkEvaluator(predictor, predictor.predict_many)
    prior_mix, value_mix = config.guide_at(iteration)
    if prior_mix == value_mix == 0:
        return network
    return GuidedEvaluator(network, prior_mix, value_mix)


def check_guide(config: AlphaZeroConfig, game) -> None:
    """A ``ConfigError`` when the config mixes a guide into self-play and ``game`` has none."""
    if (config.guide_prior_mix or config.guide_value_mix) and not hasattr(game, "guide"):
        raise ConfigError(f"guide_prior_mix and guide_value_mix need a game with a hand-written guide; "
                          f"{config.game} has none (set both to 0)")


def network_spec(config: AlphaZeroConfig, game) -> NetSpec | NTupleSpec:
    """The shape of the config's network for ``game``: the MLP's ``NetSpec`` or the pattern tables'
    ``NTupleSpec`` (``config.network``).

    Raises:
        ConfigError: the game does not suit the network (an action head without action features, pattern
            tables for a game other than Othello).
    """
    try:
        if config.network == "ntuple":
            return NTupleSpec.for_game(game, config.ntuple_phases, config.ntuple_temperature)
        return NetSpec.for_game(game, config.channels, config.hidden, config.action_head)
    except ValueError as problem:
        raise ConfigError(str(problem)) from None


def numpy_network(spec: NetSpec | NTupleSpec, params):
    """The forward pass for search and play of either kind of network: ``NumpyNet``, or the pattern tables'
    ``ntuple.kernels.NTupleNet`` (the same ``forward`` and ``__call__``)."""
    if isinstance(spec, NTupleSpec):
        from .ntuple.kernels import NTupleNet

        return NTupleNet(spec, params)
    return NumpyNet(spec, params)


def host_params(params) -> dict:
    """``params`` as nested dicts of numpy arrays (what crosses to a worker: no JAX needed to read it)."""
    return {layer: {name: np.asarray(value) for name, value in leaves.items()} for layer, leaves in params.items()}


def predictor_for(config: AlphaZeroConfig, game, spec: NetSpec | NTupleSpec, params) -> Predictor:
    """The network of ``params`` as a ``Predictor`` with a batched forward pass (``config.inference``; the
    pattern tables always numpy's, ``numpy_network``)."""
    if config.inference == "numpy":
        net = numpy_network(spec, params)
        return Predictor(game, net, forward_many=net.forward)
    from .flax_net import jax_forward, jax_forward_many

    return Predictor(game, jax_forward(spec, params), forward_many=jax_forward_many(spec, params))


class SelfPlayWorker:
    """Plays self-play games of one run's configuration (see the module docstring).

    Args:
        config: the run's ``AlphaZeroConfig`` as ``to_dict()`` data (what pickles to any process).
    """

    def __init__(self, config: dict):
        self.config = AlphaZeroConfig(**config)
        self.game = make_game(self.config.game)
        self.spec = network_spec(self.config, self.game)
        self.cheap = searches.cheap(self.config)
        check_guide(self.config, self.game)
        if self.config.search_path == "compiled":
            from .compiled_search import refuse_unsupported

            # a ConfigError for what it cannot do
            refuse_unsupported(self.config.search, self.game, self.config.endgame_empties)

    def play(self, params, seeds, iteration: int = 1) -> list[SelfPlayGame]:
        """One game per seed with the network ``params``, ``selfplay_batch`` at a time, in seed order, as the
        config plays them in ``iteration`` (its full searches' ``simulations_at``, its ``guide_at``)."""
        c, game = self.config, self.game
        settings = searches.full(c, iteration)
        if c.search_path == "compiled":
            from . import compiled_search

            rngs = [np.random.default_rng(int(seed)) for seed in seeds]
            if isinstance(self.spec, NTupleSpec):  # the tables, evaluated inside the compiled search
                from .ntuple.kernels import tables_of

                leaves = tables_of(self.spec, params)
            else:
                leaves = predictor_for(c, game, self.spec, params).forward_many
            return compiled_search.play_games(game, leaves, settings, c.temperature_moves, rngs, c.reuse_tree,
                                              c.selfplay_batch, c.endgame_empties)
        evaluator = leaf_evaluator(c, predictor_for(c, game, self.spec, params), iteration)
        played = []
        for start in range(0, len(seeds), c.selfplay_batch):
            rngs = [np.random.default_rng(int(seed)) for seed in seeds[start:start + c.selfplay_batch]]
            batch = [MCTS(game, evaluator, settings, rng) for rng in rngs]
            played += play_games(game, batch, c.temperature_moves, rngs, c.reuse_tree, evaluator.many,
                                 self.cheap, c.cheap_fraction)
        return played


def shares(seeds, parts: int) -> list:
    """``seeds`` cut into ``parts`` contiguous shares, as equal as possible (the first ones larger)."""
    size, extra = divmod(len(seeds), parts)
    bounds = np.cumsum([0] + [size + (i < extra) for i in range(parts)])
    return [list(seeds[a:b]) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


class InProcessPool:
    """One worker, in this process."""

    def __init__(self, config: dict):
        self.worker, self.workers, self.where = SelfPlayWorker(config), 1, "this process"

    def play(self, params, seeds, iteration: int = 1) -> list[SelfPlayGame]:
        return self.worker.play(host_params(params), seeds, iteration)

    def close(self) -> None:
        pass


_WORKER: SelfPlayWorker | None = None  # the worker of a ProcessPool process


def _start_worker(config: dict, parent: int) -> None:
    global _WORKER
    os.environ.setdefault("JAX_PLATFORMS", "cpu")  # the learner keeps the GPU, if any
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()
    _WORKER = SelfPlayWorker(config)


def _exit_with(parent: int, every_s: float = 1.0) -> None:
    """End this worker once the trainer that started it (pid ``parent``) is gone: a trainer killed outright
    runs no clean-up, and its workers would go on taking the cores."""
    while os.getppid() == parent:
        time.sleep(every_s)
    os._exit(1)


def _play_share(params, seeds, iteration) -> list[SelfPlayGame]:
    return _WORKER.play(params, seeds, iteration)


class ProcessPool:
    """``workers`` spawned processes of this machine, each with its own ``SelfPlayWorker``."""

    def __init__(self, config: dict, workers: int):
        self.workers, self.where = workers, f"{workers} processes"
        self.executor = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker, initargs=(config, os.getpid()))
        with one_thread_children():  # what the processes inherit: they are all started here
            for started in [self.executor.submit(os.getpid) for _ in range(workers)]:
                started.result()

    def play(self, params, seeds, iteration: int = 1) -> list[SelfPlayGame]:
        params = host_params(params)
        futures = [self.executor.submit(_play_share, params, share, iteration) for share in shares(seeds, self.workers)]
        return [game for future in futures for game in future.result()]

    def close(self) -> None:
        self.executor.shutdown(cancel_futures=True)


class RayPool:
    """``workers`` Ray actors (one CPU each) on the cluster at ``address`` (``"auto"``: the one this machine
    belongs to; ``"local"``: start one here), each with its own ``SelfPlayWorker``."""

    def __init__(self, config: dict, workers: int, address: str):
        try:
            import ray
        except ImportError:
            raise ConfigError("--ray needs Ray, the optional extra: pip install '.[cluster]' "
                               "(or pip install -r requirements-cluster.txt)") from None
        self.ray = ray
        if not ray.is_initialized():
            ray.init(address=None if address == "local" else address, include_dashboard=False, log_to_driver=False)
        workers = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        actor = ray.remote(num_cpus=1, runtime_env={"env_vars": {"JAX_PLATFORMS": "cpu", **ONE_THREAD}})(SelfPlayWorker)
        self.actors = [actor.remote(config) for _ in range(workers)]
        self.workers, self.where = workers, f"{workers} Ray actors"

    def play(self, params, seeds, iteration: int = 1) -> list[SelfPlayGame]:
        params = self.ray.put(host_params(params))
        pending = [actor.play.remote(params, share, iteration)
                   for actor, share in zip(self.actors, shares(seeds, self.workers))]
        return [game for share in self.ray.get(pending) for game in share]

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)


def make_pool(config: AlphaZeroConfig, ray_address: str | None = None):
    """The pool for ``config.workers`` (0: one per core) and ``ray_address`` (None: this machine)."""
    data = config.to_dict()
    if ray_address:
        return RayPool(data, config.workers, ray_address)
    workers = config.workers or os.cpu_count() or 1
    return InProcessPool(data) if workers == 1 else ProcessPool(data, workers)
