#!/usr/bin/env bash
# The profile-buffer table of docs/RESULTS.md: arc error and contention for 8/16/32/64/256 entries
# x address / compiler / 4-way set-associative indexing, on real branch traces.
# Usage: scripts/buffer-table.sh [TRACE...]   (default: bzip2 from ../shared/traces and the two
# traces in traces/). Configs are the configs/buffer-*-64.toml presets with `entries` replaced.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
HW=./target/release/hwprof
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 0 ]; then
  # The lackey log is converted once to the compact binary form (same events, faster to read).
  $HW trace convert ../shared/traces/bzip2_load.lackey.gz "$tmp/bzip2.bin" --kind branch >/dev/null
  set -- "$tmp/bzip2.bin" traces/gzip9_gfdl.branch.bin.gz traces/sort_licenses.branch.bin.gz
fi
for trace in "$@"; do
  echo "### $(basename "$trace")"
  echo
  echo "| entries | address: arc error | contention | compiler: arc error | contention | 4-way assoc: arc error | contention |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"
  for n in 8 16 32 64 256; do
    row="| $n"
    for mode in address compiler assoc4; do
      sed "s/^entries = .*/entries = $n/" "configs/buffer-$mode-64.toml" > "$tmp/c.toml"
      row="$row | $($HW buffer --config "$tmp/c.toml" --trace "$trace" --json | python3 -c '
import json,sys; d=json.load(sys.stdin)
print("%.4f | %.2f %%" % (d["arc_error"], 100 * d["contention"]), end="")')"
    done
    echo "$row |"
  done
  $HW buffer --config configs/buffer-address-64.toml --trace "$trace" --json | python3 -c '
import json,sys; d=json.load(sys.stdin)
print("\n%d branch events, %d static branches.\n" % (d["events"], d["branches"]))'
done
