"""Grading content of tak6_alphazero (part 6): checks, probes and example submissions."""
