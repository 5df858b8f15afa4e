#!/usr/bin/env bash
# Renders the timing diagrams docs/wavedrom/*.json to docs/wavedrom/*.svg with WaveDrom (PyPI
# `wavedrom`, in .venv from scripts/venv.sh). Run after editing a diagram; commit both files.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/venv.sh
for f in docs/wavedrom/*.json; do
  .venv/bin/wavedrompy --input "$f" --svg "${f%.json}.svg"
done
