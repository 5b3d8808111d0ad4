"""One AlphaZero trainer for every two-player game of the game layer (``azcourse.core``).

``python -m azcourse.alphazero train --config configs/tictactoe_az.toml`` (docs/alphazero.md).

Modules:
    config       -- every parameter of a run: TOML file, ``--set`` overrides, refusals of unknown keys.
    network      -- the policy-value network: Flax module, numpy forward pass, cached ``Predictor``.
    learn        -- the loss (value MSE + policy cross-entropy + L2) and jitted optax steps.
    replay       -- the replay window of the most recent positions.
    selfplay     -- one self-play game with the generic MCTS; symmetric images of its positions.
    checkpoints  -- ``params.msgpack`` + ``card.json`` folders, loaded in one call.
    agent        -- ``AlphaZeroAgent`` (PUCT with the network) and ``load_agent``.
    train        -- the loop: self-play, replay, training, gating, logs, checkpoints, resume.
"""
