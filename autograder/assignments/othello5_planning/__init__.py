"""Grading content of othello5_planning (part 5): checks, probes and example submissions."""
