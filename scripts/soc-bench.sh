#!/usr/bin/env bash
# The full runs of `hwprof soc` (docs/RESULTS.md, "PicoRV32 runs"): every program under
# Verilator with the built-in configurations (configs/soc-{bram,buffer,phase}.toml) or the profiler
# of CONFIG on its retire stream; one Markdown row per program.
# Usage: scripts/soc-bench.sh [CONFIG] [PROGRAM...]
set -euo pipefail
cd "$(dirname "$0")/.."
cfg=${1:-}
shift || true
source scripts/soc-rows.sh "$@"
row_script <<'PY'
v, e, b, p = d["value"], d["edge"], d["buffer"], d["phase"]
n, c = d["instructions"], d["cycles"]
cells = [
    d["program"], f"{n:,}", f"{c:,}", f"{c / n:.2f}",
    f"{v['events']:,} / {v['reports']}", f"{e['events']:,} / {e['reports']}",
    f"{b['events']:,} / {b['readouts']}", f"{p['events']:,} / {p['intervals']}",
    f"{v['mismatches']} / {e['mismatches']} / {b['mismatches']} / {p['mismatches']}",
    str(d["stall_cycles"]), f"{d['simulation_seconds']:.1f}", f"{d['instructions_per_second']:,.0f}",
    f"{100 * v['net_error']:.2f} % / {100 * e['net_error']:.2f} %",
    f"{100 * b['arc_error']:.2f} %",
    f"{p['phases']} / {100 * p['prediction_accuracy']:.1f} % ({100 * p['last_phase_accuracy']:.1f} %)",
]
PY
echo "| program | instructions | cycles | CPI | value events / reports | edge events / reports | branches / buffer readouts | transfers / phase intervals | mismatches value / edge / buffer / phase | stall cycles | Verilator s | instructions/s | net error value / edge | arc error | phases / next phase predicted (last phase) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for prog in "${programs[@]}"; do
  args=(soc run --program "$prog" --json)
  [ -n "$cfg" ] && args+=(--config "$cfg")
  nice "$HW" "${args[@]}" | python3 "$row" || echo "| $prog | failed: see stderr |"
done
