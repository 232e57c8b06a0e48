#!/usr/bin/env bash
# Make engines/.venv: the Python side of `tensix-harness --engine` (tt-umd,
# wolfpine) and its own test and lint tools. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
if [ ! -x engines/.venv/bin/python ]; then
  "$python" -m venv engines/.venv
fi
engines/.venv/bin/python -m pip install --quiet --disable-pip-version-check -r engines/requirements-dev.txt
echo "engines/.venv is ready: $(engines/.venv/bin/python -c 'import importlib.metadata as m; print("tt-umd", m.version("tt-umd"), "wolfpine", m.version("wolfpine"))')"
