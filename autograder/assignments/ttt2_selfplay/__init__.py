"""Grading content of ttt2_selfplay (part 2): checks, probes and example submissions."""
