"""Provided code for the tic-tac-toe AlphaZero homework.

Nothing here solves a TODO of the homework: the game rules are always passed in as a
:class:`~azcourse.tictactoe.rules.GameRules` built from the student's own functions.

Modules:
    rules          -- the small game interface that search, pictures and players use.
    positions      -- every position reachable from a start board.
    minimax        -- the exact value of every position and a perfect player.
    tree_plots     -- pictures of a search tree (graph view and board-by-board layers).
    fast_inference -- numpy evaluation of trained Flax parameters, and a cache.
    matches        -- histograms of match outcomes.
"""
