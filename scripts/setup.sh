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

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# The stamp covers the pins and the project's packages: the editable install maps only the packages
# that existed when it ran, so a new package means reinstalling.
stamp=.venv/.installed-$( (cat requirements.txt pyproject.toml; ls -d */__init__.py) | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
  echo "setup: installing the pinned environment into .venv (a few minutes the first time)..."
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip 2>&1 | grep -v "^WARNING: Location" || true
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt 2>&1 | grep -v "^WARNING: Location" || true
  # setuptools reports every editable install with a warning ("Editable installation. Please be careful with
  # folders ... with the same name as your package"), which pip prints even with --quiet: information only.
  PYTHONWARNINGS="ignore:Editable installation" \
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e . 2>&1 | grep -v "^WARNING: Location" || true
  .venv/bin/python -m pip check >/dev/null || { .venv/bin/python -m pip check; exit 1; }
  .venv/bin/python -c "import jax, flax, optax, orbax.checkpoint, numba, nbgrader, Azul_Simulator" \
    || { echo "setup: the environment does not import; see the messages above." >&2; exit 1; }
  rm -f .venv/.installed-*
  touch "$stamp"
fi

# The grading sandbox (autograder/isolation.py) runs student code under bubblewrap. Install it
# when this script can (root with apt-get); otherwise say exactly what to install.
if ! command -v bwrap >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing bubblewrap (the grading sandbox)..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null) \
      || echo "setup: could not install bubblewrap; grading will refuse to run until it is installed" >&2
  else
    echo "setup: bubblewrap is missing, and autograding refuses to run without it. Install it:" >&2
    echo "       sudo apt-get install bubblewrap   (Debian, Ubuntu; dnf / pacman: package bubblewrap)" >&2
  fi
fi
