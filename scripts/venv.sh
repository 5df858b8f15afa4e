#!/usr/bin/env bash
# The project-local Python environment (.venv): Apache DataSketches (PyPI `datasketches`) for the
# peer benchmarks under bench/, and PicoRV32 (PyPI `pythondata-cpu-picorv32`: picorv32.v, Dhrystone,
# the firmware programs) and SERV (PyPI `pythondata-cpu-serv`: the bit-serial RV32I core of
# `hwprof soc --cpu serv`) for `hwprof soc`; FuseSoC (PyPI `fusesoc`, with edalize) that runs the
# exported cores' lint and sim targets in the tests, and WaveDrom (PyPI `wavedrom`) that renders
# docs/wavedrom/*.json. Idempotent; quick when already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
if ! .venv/bin/python -c "import datasketches" 2>/dev/null; then
  .venv/bin/python -m pip install -q --disable-pip-version-check "datasketches>=5,<6"
fi
if ! .venv/bin/python -c "import pythondata_cpu_picorv32" 2>/dev/null; then
  .venv/bin/python -m pip install -q --disable-pip-version-check "pythondata-cpu-picorv32==1.0.post218"
fi
if ! .venv/bin/python -c "import pythondata_cpu_serv" 2>/dev/null; then
  .venv/bin/python -m pip install -q --disable-pip-version-check "pythondata-cpu-serv==1.2.0.post146"
fi
if ! .venv/bin/python -c "import fusesoc" 2>/dev/null; then
  .venv/bin/python -m pip install -q --disable-pip-version-check "fusesoc==2.4.7" "edalize==0.6.8"
fi
if ! .venv/bin/python -c "import wavedrom" 2>/dev/null; then
  .venv/bin/python -m pip install -q --disable-pip-version-check "wavedrom==2.0.3.post3"
fi
