#!/usr/bin/env bash
# Set up the pinned environment, then run the pack's main job: Azul in the terminal against the
# greedy agent (extra arguments go to play.py, e.g. --opponent random --seed 7).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python play.py azul --opponent greedy "$@"
