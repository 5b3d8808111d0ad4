"""Grading content of ttt1_mcts (part 1): checks, probes and example submissions."""
