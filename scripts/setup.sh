#!/usr/bin/env bash
# Create .venv with the pinned environment (requirements.txt) and install this project into it.
# Idempotent: re-running only reinstalls when requirements.txt or pyproject.toml changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
  for candidate in python3 python3.11 python3.12 python3.13 python3.14; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 14))'; then
      PYTHON=$candidate; break
    fi
  done
fi
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 14))'; then
  echo "setup: Python 3.11, 3.12, 3.13 or 3.14 is required (the pins in requirements.txt install on each)." >&2
  echo "       Install one (PYTHON=/path/to/python bash scripts/setup.sh picks it), or use conda:" >&2
  echo "       conda env create -f environment.yml" >&2
  exit 1
fi

# One line per phase as it starts, and its time when it ends; on a terminal pip shows its own progress too.
phase_started=$SECONDS
phase() { echo "setup: [$1/5] $2 ..."; phase_started=$SECONDS; }
took() { local s=$((SECONDS - phase_started)); echo "setup:       done in $((s / 60)) min $((s % 60)) s"; }
pip() {
  if [ -t 1 ]; then .venv/bin/python -m pip "$@" --disable-pip-version-check
  else .venv/bin/python -m pip "$@" --quiet --disable-pip-version-check 2>&1 | grep -v "^WARNING: Location" || true; fi
}

if [ ! -x .venv/bin/python ]; then
  phase 1 "creating .venv with $("$PYTHON" -c 'import sys; print("Python %d.%d.%d" % sys.version_info[:3])')"
  "$PYTHON" -m venv .venv
  took
fi
# The stamp covers the pins and the project's packages: the editable install maps only the packages
# that existed when it ran, so a new package means reinstalling.
stamp=.venv/.installed-$( (cat requirements.txt pyproject.toml; ls -d */__init__.py) | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
  phase 2 "upgrading pip"
  pip install --upgrade pip
  took
  phase 3 "installing the $(grep -c '==' requirements.txt) pinned packages of requirements.txt (JAX, Flax, optax, numba, nbgrader, JupyterLab...; about 1.5 GB; several minutes when pip's cache is empty)"
  pip install -r requirements.txt
  took
  phase 4 "installing this project (editable) and checking that it imports"
  # setuptools reports every editable install with a warning ("Editable installation. Please be careful with
  # folders ... with the same name as your package"), which pip prints even with --quiet: information only.
  PYTHONWARNINGS="ignore:Editable installation" pip install --no-deps -e .
  .venv/bin/python -m pip check >/dev/null || { .venv/bin/python -m pip check; exit 1; }
  .venv/bin/python -c "import jax, flax, optax, orbax.checkpoint, numba, nbgrader, Azul_Simulator" \
    || { echo "setup: the environment does not import; see the messages above." >&2; exit 1; }
  rm -f .venv/.installed-*
  touch "$stamp"
  took
else
  echo "setup: .venv is up to date with requirements.txt (nothing to install)"
fi

# The grading sandbox (autograder/isolation.py) runs student code under bubblewrap. Install it
# when this script can (root with apt-get); otherwise say exactly what to install.
if ! command -v bwrap >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    phase 5 "installing bubblewrap (the grading sandbox) with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null) \
      || echo "setup: could not install bubblewrap; grading will refuse to run until it is installed" >&2
    took
  else
    echo "setup: bubblewrap is missing, and autograding refuses to run without it. Install it:" >&2
    echo "       sudo apt-get install bubblewrap   (Debian, Ubuntu; dnf / pacman: package bubblewrap)" >&2
  fi
fi
