"""Grading content of azul3_play (part 3): checks, probes and example submissions."""
