#!/usr/bin/env bash
# Set up the pinned environment, then run the pack's main job: the instructor's pipeline on the
# bundled example submissions (build release/ and solutions/, autograde full, blank, partial and
# hostile submissions in sandboxed kernels, print the grade table). Every step prints its progress.
# Measured 2026-11-27 from a fresh clone on a busy 2-core machine (load average 7-11): first run
# 36 min 51 s (set-up 9 min 10 s with pip's cache filled, build 9 min 43 s, grading 15 min 12 s,
# feedback and export 2 min 46 s); rerun 16 min 59 s
# (build 11 min 24 s, grading 4 min 23 s as the load fell to 3). The README's quick start has the table.
# To play Azul instead: .venv/bin/python play.py azul --opponent greedy
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m autograder demo "$@"
