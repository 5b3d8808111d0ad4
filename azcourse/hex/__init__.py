"""Hex with an actor network (ANET): on-policy MCTS training, the TOPP, and OHT-style series.

| module | job |
|---|---|
| ``agents.py`` | the alpha-beta yardstick's evaluation: shortest connecting paths |
| ``compiled.py`` | the rules as numba functions on two bitboards, for the compiled AlphaZero self-play search |
| ``config.py`` | every run parameter (the assignment's section 6.5), TOML + overrides |
| ``anet.py`` | the Flax MLP, its masked softmax, optax optimizers, a numpy forward pass |
| ``replay.py`` | the replay buffer of (state, visit distribution) cases |
| ``checkpoints.py`` | cached ANETs (``params.msgpack`` + ``card.json``) |
| ``train.py`` | the on-policy training loop, resumable |
| ``topp.py`` | the Tournament of Progressive Policies |
| ``oht.py`` | the OHT agent interface and a local series runner (agents in separate processes) |
| ``__main__.py`` | ``python -m azcourse.hex train|topp|series|demo`` |

The game itself and the search are ``azcourse.hex.game`` and ``azcourse.core.mcts``.
"""
