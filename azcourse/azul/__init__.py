"""Azul models for the course pack: features, the search's settings, checkpoints and arena (training: the
pack's one trainer, ``azcourse.alphazero``).

Quick use::

    from azcourse.azul import load_agent
    agent = load_agent("azul_strong")                    # policy only
    agent = load_agent("azul_strong", simulations=200)   # inside the generic MCTS
    action = agent(board, rng)

See ``docs/azul_model.md`` for the design and the measured results.
"""
from .checkpoints import available_models, load_agent, load_network, make_model_agent

__all__ = ["available_models", "load_agent", "load_network", "make_model_agent"]
