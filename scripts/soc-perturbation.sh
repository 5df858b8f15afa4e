#!/usr/bin/env bash
# What profiling costs the program on a board system in simulation (docs/RESULTS.md, "Reading the
# profile"): every program with the UART readout and with the bus readout, each against the same
# system without the profiler; one Markdown row per program and readout.
# Usage: [BOARD=ulx3s|icebreaker] [CPU=picorv32|serv] [SHORT=--short] scripts/soc-perturbation.sh [PROGRAM...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/soc-rows.sh "$@"
BOARD=${BOARD:-ulx3s}
CPU=${CPU:-picorv32}
row_script <<'PY'
cells = [
    d["board"], d["cpu"], d["program"] + (" --short" if d["short"] else ""), d["mode"], d["readout"],
    f"{d['instructions']:,}", f"{d['cycles']:,}", f"{d['cycles_unprofiled']:,}",
    f"{d['perturbation']:.4f}", f"{d['reports']}", str(d["mismatches"]),
]
PY
echo "| board | cpu | program | mode | readout | instructions | cycles | cycles without the profiler | perturbation | reports | mismatches |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for p in "${programs[@]}"; do
  for r in uart bus; do
    # shellcheck disable=SC2086
    $HW soc board --board "$BOARD" --cpu "$CPU" --program "$p" ${SHORT:-} --readout "$r" --json | python3 "$row"
  done
done
