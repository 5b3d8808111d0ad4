"""One AlphaZero trainer for every two-player game of the game layer (``azcourse.core``).

``python -m azcourse.alphazero train --config configs/tictactoe_az.toml`` (docs/alphazero.md).

Modules:
    config       -- every parameter of a run: TOML file, ``--set`` overrides, refusals of unknown keys.
    network      -- the policy-value network's shape, numpy forward pass, cached ``Predictor``.
    flax_net     -- the same network as a Flax module; jitted forward passes (one position, a batch).
    learn        -- the loss (value MSE + policy cross-entropy + L2) and jitted optax steps.
    replay       -- the replay window of the most recent positions.
    selfplay     -- self-play games with the generic MCTS, one or many in lockstep; symmetric images.
    compiled_search -- the same self-play on a compiled search (numba; Othello, Hex and Tak), ``search_path``.
    ntuple/      -- the pattern-table evaluator (``network = "ntuple"``, Othello): tuples, numba kernels, JAX model.
    workers      -- self-play workers: batched, in this process, on every core, or as Ray actors.
    checkpoints  -- ``params.msgpack`` + ``card.json`` folders, loaded in one call.
    agent        -- ``AlphaZeroAgent`` (PUCT with the network) and ``load_agent``.
    train        -- the loop: self-play, replay, training, gating, logs, checkpoints, resume.
"""
