"""Grading content of hex4_onpolicy (part 4): checks, probes and example submissions."""
