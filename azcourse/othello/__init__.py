"""Othello (Reversi) on 4x4, 6x6 (the course's size) and 8x8 boards, on the game layer.

| module | job |
|---|---|
| ``game.py`` | the rules on the protocol: bitboard move generation, the explicit pass, text and parsing |
| ``compiled.py`` | the rules as numba functions on the bitboards, for the compiled self-play search |
| ``endgame.py`` | the exact endgame solver (numba alpha-beta on the bitboards: win/draw/loss or the exact margin) |
| ``yardstick.py`` | the classical yardstick: compiled alpha-beta with a hand-made evaluation and the exact endgame, for benchmarks only |
| ``symmetry.py`` | the board's eight symmetries for encoded states and policies (data augmentation) |
| ``display.py`` | a position as a matplotlib figure |
| ``agents.py`` | opponents by name for terminal play: random, greedy, uct; the alpha-beta yardstick's evaluation |

See docs/othello.md.
"""
