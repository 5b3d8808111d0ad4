"""Self-play speed of DeepMind's mctx with pgx's Othello against the pack's compiled search, one core, one run.

    taskset -c 1 python benchmarks/mctx_speed.py [--simulations 64] [--hidden 256,256]
        [--batch 1,2,4,8,16,32,64] [--seconds 3] [--policies gumbel,puct]

Both sides play Othello 8x8 self-play with an untrained MLP of the same widths (the speed of a
forward pass does not depend on its weights), ``--simulations`` a move, ``B`` games in lockstep for
each ``B`` of ``--batch``, and report simulations per second of the process's CPU time
(``time.process_time``), the first call's compilation left out:

* mctx + pgx, the field's reference implementation of batched search in JAX: pgx's Othello
  (``pgx.make("othello")``: a (8, 8, 2) observation, 65 actions), an MLP in ``jax.numpy`` on the
  flattened observation, one ``jax.jit`` program a move for the whole batch: the root's network
  call, ``mctx.gumbel_muzero_policy`` (``gumbel``: 16 considered actions, as the pack) or
  ``mctx.muzero_policy`` (``puct``: Dirichlet noise 0.3 at a quarter, mctx's defaults), the move
  for every game, and a new game where one has ended (so the batch stays full). Moves are timed for
  at least ``--seconds`` CPU seconds after one compiling move.
* the pack: ``compiled_rate`` of ``benchmarks/alphazero_speed.py``, i.e. ``compiled_search.play_games``
  with the numpy MLP on the pack's (3, 8, 8) encoding: ``2 * B`` whole games, ``B`` in lockstep, the
  PUCT root with noise and a kept subtree, or the Gumbel root.

For each root policy it prints a line per batch and then the best batch of each side and the ratio
pack / mctx (issue 36's target: 3x at the best batches). ``taskset -c 1`` keeps both, and JAX's
threads, on one core; the rates are per CPU second, so other jobs on the machine slow the wall clock
but count little, though a loaded machine still shares caches and memory bandwidth: the load average
is printed first. Needs ``pip install -r requirements-dev.txt`` (mctx, pgx).
"""
import argparse
import os
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import mctx  # noqa: E402
import numpy as np  # noqa: E402
import pgx  # noqa: E402
from alphazero_speed import compiled_rate  # noqa: E402  (benchmarks/ is the script's folder)

from azcourse.alphazero.flax_net import init_params  # noqa: E402
from azcourse.alphazero.network import NetSpec, NumpyNet  # noqa: E402
from azcourse.registry import make_game  # noqa: E402


def mlp_params(inputs: int, hidden: tuple[int, ...], actions: int, seed: int = 0) -> list[tuple]:
    """``[(w, b), ...]`` of an MLP ``inputs -> hidden... -> actions + 1`` (the policy logits, then the
    value), float32, He-scaled normal weights and zero biases."""
    widths, rng = (inputs, *hidden, actions + 1), np.random.default_rng(seed)
    return [(jnp.asarray(rng.normal(0, np.sqrt(2 / m), (m, n)), jnp.float32), jnp.zeros(n, jnp.float32))
            for m, n in zip(widths[:-1], widths[1:])]


def mlp(params: list[tuple], observation: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(logits float32 ``(B, A)``, value float32 ``(B,)`` in (-1, 1)) of observations ``(B, ...)``."""
    x = observation.reshape(observation.shape[0], -1).astype(jnp.float32)
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    out = x @ w + b
    return out[:, :-1], jnp.tanh(out[:, -1])


def masked_logits(logits: jax.Array, legal: jax.Array) -> jax.Array:
    return jnp.where(legal, logits - logits.max(axis=-1, keepdims=True), jnp.finfo(logits.dtype).min)


def make_move(env, policy: str, simulations: int, batch: int):
    """A jitted ``move(params, state, key) -> state``: one search for each of the ``batch`` games,
    their moves, and a new game in place of each that ended."""
    step, init = jax.vmap(env.step), jax.vmap(env.init)

    def recurrent_fn(params, key, action, state):
        mover = state.current_player
        state = step(state, action)
        logits, value = mlp(params, state.observation)
        ended = state.terminated
        output = mctx.RecurrentFnOutput(reward=state.rewards[jnp.arange(batch), mover],
                                        discount=jnp.where(ended, 0.0, -1.0),
                                        prior_logits=masked_logits(logits, state.legal_action_mask),
                                        value=jnp.where(ended, 0.0, value))
        return output, state

    def move(params, state, key):
        search_key, reset_key = jax.random.split(key)
        logits, value = mlp(params, state.observation)
        root = mctx.RootFnOutput(prior_logits=masked_logits(logits, state.legal_action_mask), value=value,
                                 embedding=state)
        search = mctx.gumbel_muzero_policy if policy == "gumbel" else mctx.muzero_policy
        out = search(params, search_key, root, recurrent_fn, num_simulations=simulations,
                     invalid_actions=~state.legal_action_mask)
        state = step(state, out.action)
        fresh = init(jax.random.split(reset_key, batch))
        ended = state.terminated
        return jax.tree.map(lambda new, old: jnp.where(ended.reshape((-1,) + (1,) * (old.ndim - 1)), new, old),
                            fresh, state)

    return jax.jit(move)


def mctx_rate(policy: str, hidden: tuple[int, ...], simulations: int, batch: int, seconds: float) -> float:
    """Simulations per CPU second of mctx + pgx Othello self-play, ``batch`` games in lockstep."""
    env = pgx.make("othello")
    params = mlp_params(int(np.prod(env.observation_shape)), hidden, env.num_actions)
    move = make_move(env, policy, simulations, batch)
    key = jax.random.PRNGKey(0)
    key, init_key = jax.random.split(key)
    state = jax.vmap(env.init)(jax.random.split(init_key, batch))
    state = jax.block_until_ready(move(params, state, key))  # compile
    moves, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        key, move_key = jax.random.split(key)
        state = jax.block_until_ready(move(params, state, move_key))
        moves += batch
    return moves * simulations / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--hidden", default="256,256", help="hidden widths of both MLPs")
    parser.add_argument("--batch", default="1,2,4,8,16,32,64", help="games in lockstep, one figure each")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds of mctx moves a figure")
    parser.add_argument("--policies", default="gumbel,puct", help="root policies: gumbel, puct")
    args = parser.parse_args()
    hidden = tuple(int(w) for w in args.hidden.split(","))
    batches = [int(b) for b in args.batch.split(",")]
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"{len(os.sched_getaffinity(0))} core(s) available to this process; "
          f"jax {jax.__version__}, mctx {mctx.__version__}, pgx {pgx.__version__}")
    game = make_game("othello8")
    spec = NetSpec.for_game(game, (), hidden)
    forward = NumpyNet(spec, init_params(spec, 0)).forward
    print(f"Othello 8x8, MLP {'x'.join(map(str, hidden))}, {args.simulations} simulations a move; "
          "simulations per CPU second")
    for policy in args.policies.split(","):
        theirs, ours = {}, {}
        for b in batches:  # the two sides in turn, so that a change of the load meets both
            theirs[b] = mctx_rate(policy, hidden, args.simulations, b, args.seconds)
            ours[b] = compiled_rate(game, forward, args.simulations, b, policy)[1]
            print(f"  {policy:6s} batch {b:3d}: mctx + pgx {theirs[b]:9,.0f}   pack compiled {ours[b]:9,.0f}   "
                  f"{ours[b] / theirs[b]:5.2f}x", flush=True)
        best_theirs, best_ours = max(theirs, key=theirs.get), max(ours, key=ours.get)
        print(f"  {policy:6s} best: mctx + pgx {theirs[best_theirs]:,.0f} (batch {best_theirs}), pack compiled "
              f"{ours[best_ours]:,.0f} (batch {best_ours}): {ours[best_ours] / theirs[best_theirs]:.2f}x", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
