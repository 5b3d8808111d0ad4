#!/usr/bin/env bash
# Set up the pinned environment, then run the pack's main job: the instructor's pipeline on the
# bundled example submissions (build release/ and solutions/, autograde full, blank, partial and
# hostile submissions in sandboxed kernels, print the grade table). Every step prints its progress.
# Measured 2026-11-27 from a fresh clone on a quiet 2-core machine, pip's cache filled: first run 6 min 21 s
# (set-up 1 min 23 s, grading 3 min 27 s), rerun 2 min 57 s; on a busy one (load average 7-11) 36 min 51 s
# and 16 min 59 s. The README's quick start has the table.
# To play Azul instead: .venv/bin/python play.py azul --opponent greedy
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m autograder demo "$@"
