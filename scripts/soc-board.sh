#!/usr/bin/env bash
# The board system in simulation (docs/RESULTS.md, "Board systems"): every program under Verilator
# on the ULX3S system, in value and edge mode, the reports decoded from the UART transcript and
# compared with the model's; one Markdown row per program and mode.
# Usage: scripts/soc-board.sh [PROGRAM...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/soc-rows.sh "$@"
row_script <<'PY'
f = d["profile"]
t = f["top"][0]
cells = [
    d["program"], d["mode"], f"{d['instructions']:,}", f"{d['cycles']:,}", f"{d['stall_cycles']:,}",
    f"{d['events']:,}", f"{f['reports']} / {f['model_reports']}", str(d["mismatches"]),
    f"{d['uart_bytes']:,}", f"{d['simulation_seconds']:.1f}", f"{100 * f['net_error']:.2f} %",
    f"{t['symbol']} ({t['line']}) x{t['count']:,}",
]
PY
echo "| program | mode | instructions | cycles | stall cycles | events | reports (UART / model) | mismatches | UART bytes | simulation s | net error | hottest tuple |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for p in "${programs[@]}"; do
  for m in value edge; do
    $HW soc board --board ulx3s --program "$p" --mode "$m" --top 1 --json | python3 "$row"
  done
done
