"""The game layer, a generic MCTS over it, and the games that implement it.

Modules:
    protocol      -- the ``Game`` interface and its written contract (states, players, chance).
    tictactoe     -- tic-tac-toe on the interface (the notebooks keep their own rules).
    hex           -- Hex on n x n boards (3 <= n <= 8): rules, the assignment's state format.
    hex_display   -- Hex as a text diamond and a matplotlib figure; ``HexDisplay`` on/off switch.
    azul_adapter  -- Azul_Simulator behind the interface (the refill is the chance step).
    evaluators    -- leaf evaluation: rollouts with a default policy, or a network.
    mcts          -- the generic search (UCT or PUCT, root noise, subtree reuse).
    agents        -- players for terminal play: random, UCT, and the seam for trained policies.
    terminal      -- a person against an agent in a terminal, for any game of the layer.
"""
