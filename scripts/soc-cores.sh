#!/usr/bin/env bash
# Every bundled program and the demonstration C program on both CPUs (docs/RESULTS.md, "Both
# cores"): one Markdown row per core x program. SERV (bit-serial, ~60 clocks an instruction)
# runs the kernels' and Dhrystone's short inputs; multest tests the M extension SERV lacks.
# Usage: scripts/soc-cores.sh [PROGRAM...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/soc-rows.sh "$@"
row_script <<'PY'
v, e, b, p = d["value"], d["edge"], d["buffer"], d["phase"]
cells = [
    d["cpu"], d["program"] + (" --short" if d["short"] else ""), f"{d['instructions']:,}",
    f"{d['cycles']:,}", f"{d['events']:,}", str(d["reports"]),
    f"{v['mismatches']} / {e['mismatches']} / {b['mismatches']} / {p['mismatches']} / {len(d['tap_errors'])}",
    str(d["dropped"]), f"{d['instructions_per_second']:,.0f}",
]
PY
echo "| cpu | program | instructions | cycles | events (value + edge) | reports | mismatches value / edge / buffer / phase / taps | dropped | instructions/s |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
demo=examples/programs/textsearch.c
for cpu in picorv32 serv; do
  for prog in "${programs[@]}" "$demo"; do
    args=(soc run --cpu "$cpu" --json)
    if [ "$prog" = "$demo" ]; then args+=(--c "$prog"); else args+=(--program "$prog"); fi
    if [ "$cpu" = serv ]; then
      [ "$prog" = multest ] && { echo "| serv | multest | refused: tests the M extension |"; continue; }
      case "$prog" in dhrystone|sort|crc|matmul|hash) args+=(--short) ;; esac
    fi
    nice "$HW" "${args[@]}" | python3 "$row" || echo "| $cpu | $prog | failed: see stderr |"
  done
done
