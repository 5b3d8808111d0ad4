"""The generic game layer: the interface every game of the pack keeps, and what works on any of them.

Modules:
    protocol    -- the ``Game`` interface and its written contract (states, players, chance, text).
    evaluators  -- leaf evaluation: rollouts with a default policy (or a game's own playout), or a network.
    mcts        -- the generic search (UCT, PUCT or Gumbel, root noise, subtree reuse).
    agents      -- players by name: random, UCT, and the seam for trained policies.
    arena       -- games, matches (seats alternating, Wilson intervals) and round robins between agents.
    terminal    -- a person against an agent in a terminal, for any game of the layer.
    planners    -- one-move planners on a network: value-based, policy-based, Monte Carlo rollouts.
    alphabeta   -- depth-limited alpha-beta with a game's static evaluation: the classical yardstick.
    square_symmetry -- the eight symmetries of a square board (encodings and squares), for augmentation.
    threads     -- numpy's BLAS on one thread in search processes (set before numpy loads).

The games themselves live in their own packages (``azcourse.tictactoe``, ``azcourse.hex``,
``azcourse.azul``, ``azcourse.othello``, ``azcourse.tak``); nothing here imports them (docs/architecture.md).
"""
