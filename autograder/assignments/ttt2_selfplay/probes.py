"""Probes of part 2 (training and matches); all the sandbox receives of part 2's hidden tests.

``train_step`` is probed with plain SGD in the TrainState (an update linear in the gradient, so
tiny rounding differences between correct implementations stay tiny), on several batches in a
row. ``match_average`` is probed with deterministic agents that play the first free square of a
fixed preference order, counting who opened each game. Judges: ``ttt2_selfplay/checks.py``.
"""
import numpy as np

from ..._probe_util import error_of, provided, short, train_calls, unwrap


def probe_train_step(fn, cases: list) -> list:
    """Loss after each call and the final parameters (flattened list), or the problem found."""
    import jax
    import jax.numpy as jnp
    import optax
    from flax.training import train_state

    network = provided(unwrap(fn), "PolicyValueNet")
    outputs = []
    for case in cases:
        state = train_state.TrainState.create(
            apply_fn=network().apply, params=jax.tree_util.tree_map(jnp.asarray, case["params"]),
            tx=optax.sgd(case["learning_rate"]))
        try:
            state, losses, params = train_calls(fn, state, case["batches"])
        except Exception as exc:
            outputs.append(f"raises {error_of(exc)}")
            continue
        outputs.append({"losses": losses, "step": int(state.step), "params": params})
    return outputs


def _preference_agent(order, openings: list):
    """Agent playing the first free square of `order`; appends to `openings` when it opens a game."""
    def agent(board):
        if not np.any(board):
            openings.append(1)
        return next(square for square in order if board[square] == 0)
    return agent


def probe_match_average(fn, cases: list) -> list:
    """The (win, loss, draw) returned and how many games each agent opened."""
    outputs = []
    for case in cases:
        opened1, opened2 = [], []
        agent1, agent2 = _preference_agent(case["order1"], opened1), _preference_agent(case["order2"], opened2)
        try:
            result = fn(agent1, agent2, case["num_games"])
            values = [float(v) for v in result] if len(result) == 3 else None
        except Exception as exc:
            outputs.append(f"raises {error_of(exc)}")
            continue
        outputs.append({"percentages": values if values else short(result),
                        "games_opened_by_agent1": len(opened1), "games_opened_by_agent2": len(opened2)})
    return outputs


PROBES = {"train_step": probe_train_step, "match_average": probe_match_average}
