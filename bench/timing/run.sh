#!/usr/bin/env bash
# The loop experiments of docs/notes/bits-in-d.md (accumulator.md §6): the D-stage reference loop
# and E1-E4, E9, each synthesized and placed and routed on the UP5K, the HX8K and the ECP5-85K
# with seeds 1-3, in one run, with the project's own flow (`hwprof synth`: Yosys, nextpnr, the
# IO harness that registers every input and folds the outputs, the part's goal as --freq).
#
#   bench/timing/run.sh           Icarus self-check of E1, then the table (part x circuit x seeds)
#   bench/timing/run.sh --json    the same as {"rows": [...]} on stdout (progress on stderr)
#   bench/timing/run.sh --check   the self-check only
#
# For quick trials only: BT_PARTS (comma-separated), BT_SEEDS, BT_CIRCUITS ("D E1 ...").
# Work files go to a temporary directory, removed on success and kept (and named) on failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
json=0
check_only=0
for a in "$@"; do
  case "$a" in
    --json) json=1 ;;
    --check) check_only=1 ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $a (try --help)" >&2; exit 2 ;;
  esac
done
parts=${BT_PARTS:-ice40-up5k,ice40-hx8k,ecp5-85k}
seeds=${BT_SEEDS:-3}
circuits=${BT_CIRCUITS:-D E1 E2 E3 E4 E9}
say() { echo "[timing] $*" >&2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/hwprof-timing.XXXXXX")
ok=0
cleanup() { if [ "$ok" = 1 ]; then rm -rf "$work"; else echo "[timing] work files kept in $work" >&2; fi; }
trap cleanup EXIT

# The self-check: E1's bit loop against a value-level reference (tb_e1.v).
self_check() {
  if ! command -v iverilog >/dev/null || ! command -v vvp >/dev/null; then
    say "iverilog/vvp not found (Debian: apt-get install iverilog): E1's self-check cannot run"
    return 1
  fi
  iverilog -g2012 -DBT_BEHAV -o "$work/tb_e1" "$here/lib.v" "$here/e1.v" "$here/tb_e1.v" \
    2> >(grep -v 'Attributes are not supported' >&2)
  vvp -n "$work/tb_e1" > "$work/tb_e1.log" || { cat "$work/tb_e1.log" >&2; return 1; }
  say "$(grep 'E1 self-check' "$work/tb_e1.log")"
}
if [ "$check_only" = 1 ]; then
  self_check
  ok=1
  exit 0
fi
if command -v iverilog >/dev/null; then
  self_check
else
  say "iverilog not found: skipping E1's self-check (run --check where it is installed)"
fi

# The tools, found as `hwprof synth` finds them (native on PATH first, else the project's .venv).
hw="$root/target/release/hwprof"
if [ ! -x "$hw" ]; then
  say "building hwprof (cargo build --release)"
  (cd "$root" && cargo build --release -q) >&2
fi
cd "$root"
"$hw" tools status --json > "$work/tools.json"
python3 - "$work/tools.json" "$parts" <<'PY'
import json, sys
tools = {t["tool"]: t for t in json.load(open(sys.argv[1]))["tools"]}
need = {"yosys"}
for p in sys.argv[2].split(","):
    need.add("nextpnr-ecp5" if p.startswith("ecp5") else "nextpnr-ice40")
missing = sorted(n for n in need if not tools.get(n, {}).get("found"))
if missing:
    sys.exit("run.sh: missing " + ", ".join(missing) + ": run `hwprof tools install` in the "
             "project root (the pinned YoWASP tools into .venv), or install the native tools")
PY

# Each circuit is lib.v plus its own file(s), one Verilog file for the flow.
sources() {
  case "$1" in
    D) echo lib.v d.v ;;
    E1) echo lib.v e1.v ;;
    E2) echo lib.v e2.v ;;
    E3) echo lib.v e3.v ;;
    E4) echo lib.v e4.v ;;
    E9) echo lib.v e1.v e2.v e3.v e4.v e9.v ;;
    *) echo "run.sh: unknown circuit $1" >&2; return 1 ;;
  esac
}
top() { echo "$1" | tr 'A-Z' 'a-z'; }

synth() {  # circuit, verilog file, parts, out dir
  local c=$1 v=$2 p=$3 out=$4
  say "$c on $p, $seeds seed(s) (log $out.log)"
  if ! nice -n 10 "$hw" synth --verilog "$v" --top "$(top "$c")" --target "$p" --seeds "$seeds" \
      --out "$out" --json > "$out.json" 2> "$out.log"; then
    echo "run.sh: hwprof synth failed for $c on $p:" >&2
    tail -n 20 "$out.log" >&2
    exit 1
  fi
}

# E9's fill per part: the fill the integrated design will have there (UP5K about 90 %, the
# note's upper figure; HX8K about 85 %, accumulator.md §3.6; the ECP5-85K holds the design in
# under 10 %, and a fuller part would only slow the WebAssembly nextpnr down).
fill_of() {
  case "$1" in
    ice40-up5k) echo 90 ;;
    ice40-hx8k) echo 85 ;;
    *) echo 10 ;;
  esac
}

for c in $circuits; do
  [ "$c" = E9 ] && continue
  (cd "$here" && cat $(sources "$c")) > "$work/$c.v"
  synth "$c" "$work/$c.v" "$parts" "$work/$c"
done
if [[ " $circuits " == *" E9 "* ]]; then
  for p in ${parts//,/ }; do
    # The padding is sized from E9's own cells: one seed of it unpadded, same flow.
    { echo "\`define BT_PAD 0"; (cd "$here" && cat $(sources E9)); } > "$work/E9-$p-0.v"
    seeds_all=$seeds; seeds=1
    synth E9 "$work/E9-$p-0.v" "$p" "$work/E9-$p-0"
    seeds=$seeds_all
    pad=$(python3 - "$work/E9-$p-0.json" "$(fill_of "$p")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))[0]
print(max(0, int(sys.argv[2]) * r["usage"]["cells"]["capacity"] // 100 - r["cells"]))
PY
)
    { echo "\`define BT_PAD $pad"; (cd "$here" && cat $(sources E9)); } > "$work/E9-$p.v"
    synth E9 "$work/E9-$p.v" "$p" "$work/E9-$p"
    echo "$pad" > "$work/E9-$p.pad"
  done
fi

python3 - "$work" "$parts" "$circuits" "$json" <<'PY'
import json, os, statistics, sys
work, parts, circuits, as_json = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(), sys.argv[4] == "1"
rows = []
for p in parts:
    for c in circuits:
        f = os.path.join(work, (f"E9-{p}" if c == "E9" else c) + ".json")
        r = next(r for r in json.load(open(f)) if r["target"] == p)
        if not r["fits"] or not r["fmax_per_seed"]:
            sys.exit(f"run.sh: {c} on {p} was not placed and routed: {r.get('not_fit_reason')}")
        cp = r.get("critical_path") or {}
        row = {
            "part": p, "circuit": c,
            "fmax_median_mhz": round(r["fmax_median_mhz"], 2),
            "fmax_best_mhz": round(r["fmax_mhz"], 2),
            "seeds": [round(x, 2) for x in r["fmax_per_seed"]],
            "cells": r["cells"], "cells_percent": round(r["usage"]["cells"]["percent"], 1),
            "ffs": r["ffs"], "carry": r["carry"], "harness_ffs": r["harness_ffs"],
            "freq_mhz": r["freq_mhz"],
            "critical_path": {"from": cp.get("from"), "to": cp.get("to"),
                              "logic_levels": cp.get("logic_levels")},
            "tools": dict(r["tools"]),
        }
        if c == "E9":
            row["pad_ffs"] = int(open(os.path.join(work, f"E9-{p}.pad")).read())
            u = json.load(open(os.path.join(work, f"E9-{p}-0.json")))[0]
            row["unpadded"] = {"cells": u["cells"], "fmax_seed1_mhz": round(u["fmax_mhz"], 2)}
        rows.append(row)
if as_json:
    json.dump({"rows": rows}, sys.stdout, indent=1)
    print()
    sys.exit(0)
med = {(r["part"], r["circuit"]): r["fmax_median_mhz"] for r in rows}
print(f"{'part':<11} {'circuit':<7} {'Fmax per seed (MHz)':<24} {'best':>7} {'median':>7} {'/ D':>5} {'/ E1':>5} {'cells':>12}  critical path (best seed)")
for r in rows:
    d, e1 = med.get((r["part"], "D")), med.get((r["part"], "E1"))
    rd = f"{r['fmax_median_mhz'] / d:.2f}" if d else "-"
    re1 = f"{r['fmax_median_mhz'] / e1:.2f}" if e1 else "-"
    seeds = " / ".join(f"{x:.1f}" for x in r["seeds"])
    cp = r["critical_path"]
    print(f"{r['part']:<11} {r['circuit']:<7} {seeds:<24} {r['fmax_best_mhz']:>7.1f} {r['fmax_median_mhz']:>7.1f} "
          f"{rd:>5} {re1:>5} {r['cells']:>5} ({r['cells_percent']:>4.1f} %)  "
          f"{cp['from']} -> {cp['to']} ({cp['logic_levels']} levels)")
# The issue's criterion: E1 pays where its median reaches 1.15 x the D stage's.
for p in parts:
    d, e1 = med.get((p, "D")), med.get((p, "E1"))
    if d and e1:
        print(f"{p}: E1 / D = {e1:.1f} / {d:.1f} = {e1 / d:.2f} -> {'pays' if e1 >= 1.15 * d else 'does not pay'} (>= 1.15)")
tools = {}
for r in rows:
    tools.update(r["tools"])
for k, v in tools.items():
    print(f"{k}: {v}")
PY
ok=1
