#!/usr/bin/env bash
# Set up the pinned environment, then run the pack's main job: the instructor's pipeline on the
# bundled example submissions (build release/ and solutions/, autograde full, blank, partial and
# hostile submissions in sandboxed kernels, print the grade table). About 2.5 minutes on 2 cores.
# To play Azul instead: .venv/bin/python play.py azul --opponent greedy
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m autograder demo "$@"
