#!/usr/bin/env bash
# A Python that Debian packages but this machine lacks (3.14 on Debian 12), for
# tests/test_python_versions.py and tests/test_student_bundle.py: builds a minimal Debian root with
# that Python once, then prints the line to export (docs/python_versions.md).
#   bash scripts/debian_python.sh 3.14 [ROOT]     # ROOT: default /opt/python3.14-root; needs root, debootstrap, bwrap
set -euo pipefail
version=${1:?usage: bash scripts/debian_python.sh VERSION [ROOT]}
root=${2:-/opt/python$version-root}
suite=${DEBIAN_SUITE:-forky}   # Debian testing, which has python3.14
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$root/usr/bin/python$version" ]; then
  # debootstrap has no script named after a new testing suite: sid's fits every current suite
  debootstrap --variant=minbase --include="python$version,python$version-venv,ca-certificates,bubblewrap" \
    "$suite" "$root" http://deb.debian.org/debian /usr/share/debootstrap/scripts/sid >&2
fi
# The launcher: that root as /, with this machine's /tmp, this checkout, DNS and trusted certificates
# (a TLS proxy's CA included) at the same paths.
launcher="bwrap --bind $root / --dev /dev --proc /proc --bind /tmp /tmp --bind $repo $repo"
launcher+=" --ro-bind /etc/resolv.conf /etc/resolv.conf --ro-bind /etc/ssl/certs /etc/ssl/certs --die-with-parent"
$launcher "/usr/bin/python$version" -c 'import sys, venv, ssl; print(sys.version)' >&2
echo "export AZCOURSE_PYTHON_${version/./_}=\"$launcher /usr/bin/python$version\""
