"""Tak (3x3 to 6x6) on the game layer.

| module | job |
|---|---|
| ``game.py`` | the rules on the protocol: the fixed action space, legal moves, roads and flat counts, the network encoding, PTN move text and the text board |
| ``compiled.py`` | the same rules as numba functions on one int64 array a position (tested against ``game.py``, perft) |
| ``yardstick.py`` | the classical yardstick: compiled alpha-beta with a hand-made evaluation, for benchmarks only |
| ``display.py`` | a matplotlib figure of a position (stacks drawn as piles) |
| ``agents.py`` | opponents by name for terminal play, and the report's epsilon-greedy rollout policy |

The search, the arena and the terminal are the generic ones of ``azcourse.core``.
"""
