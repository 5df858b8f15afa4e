#!/usr/bin/env bash
# The full runs of `hwprof soc` (docs/RESULTS.md, "Real programs on PicoRV32"): every program under
# Verilator with the profiler of CONFIG (default: the built-in configs/soc-bram.toml) on its retire
# stream; one Markdown row per program. Usage: scripts/soc-bench.sh [CONFIG] [PROGRAM...]
set -euo pipefail
cd "$(dirname "$0")/.."
cfg=${1:-}
shift || true
programs=("$@")
[ ${#programs[@]} -eq 0 ] && programs=(dhrystone sieve multest stats sort crc matmul hash)
HW=./target/release/hwprof
cargo build --release -q
echo "| program | instructions | cycles | CPI | value events / reports | edge events / reports | mismatches | stall cycles | Verilator s | instructions/s | net error value | net error edge |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for p in "${programs[@]}"; do
  args=(soc run --program "$p" --json)
  [ -n "$cfg" ] && args+=(--config "$cfg")
  nice "$HW" "${args[@]}" | python3 -c '
import json, sys
d = json.load(sys.stdin); v, e = d["value"], d["edge"]
n, c = d["instructions"], d["cycles"]
row = [d["program"], f"{n:,}", f"{c:,}", f"{c / n:.2f}", f"{v['"'"'events'"'"']:,} / {v['"'"'reports'"'"']}",
       f"{e['"'"'events'"'"']:,} / {e['"'"'reports'"'"']}", str(d["mismatches"]), str(d["stall_cycles"]),
       f"{d['"'"'simulation_seconds'"'"']:.1f}", f"{d['"'"'instructions_per_second'"'"']:,.0f}",
       f"{100 * v['"'"'net_error'"'"']:.2f} %", f"{100 * e['"'"'net_error'"'"']:.2f} %"]
print("| " + " | ".join(row) + " |")' || echo "| $p | failed: see stderr |"
done
