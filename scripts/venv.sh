#!/usr/bin/env bash
# The project-local Python environment (.venv) for the peer benchmarks under bench/:
# Apache DataSketches (PyPI `datasketches`). Idempotent; quick when already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
if ! .venv/bin/python -c "import datasketches" 2>/dev/null; then
  .venv/bin/python -m pip install -q --disable-pip-version-check "datasketches>=5,<6"
fi
