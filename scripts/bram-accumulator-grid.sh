#!/usr/bin/env bash
# Accuracy cost of a set-associative accumulator against the fully-associative one:
# the paper presets with accumulator = {fully associative A = L/T, fully associative A = next power of two,
# set-associative A = next power of two with W in {2,4,8}, stash in {0,8}}. Prints a Markdown table.
# Usage: scripts/bram-accumulator-grid.sh KIND:TRACE...
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
d=$(mktemp -d); trap 'rm -rf $d' EXIT
net() { ./target/release/hwprof model --config "$1" --trace "$2" --json | python3 -c 'import json,sys; print("%.3f" % (100*json.load(sys.stdin)["net_error"]))'; }
for spec in "$@"; do
  kind=${spec%%:*}; trace=${spec#*:}
  ./target/release/hwprof trace convert "$trace" "$d/t.hwpt" --kind "$kind" >/dev/null
  for p in paper-10k:100:128 paper-1m:1000:1024; do
    IFS=: read -r name fa pow <<<"$p"
    base=$(sed '/^\[accumulator\]/,$d' configs/$name.toml)
    row() { printf '%s\n[accumulator]\n%s\n' "$base" "$1" > "$d/c.toml"; net "$d/c.toml" "$d/t.hwpt"; }
    echo; echo "**$(basename "$trace") ($kind), $name** — net error %"; echo
    echo "| accumulator | stash 0 | stash 8 |"; echo "|---|---|---|"
    echo "| fully associative, A = $fa | $(row "entries = $fa") | |"
    echo "| fully associative, A = $pow | $(row "entries = $pow") | |"
    for w in 2 4 8; do
      sa="organisation = \"set_associative\"
entries = $pow
ways = $w"
      echo "| $w-way, A = $pow | $(row "$sa
stash = 0") | $(row "$sa
stash = 8") |"
    done
  done
done
