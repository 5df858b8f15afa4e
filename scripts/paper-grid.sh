#!/usr/bin/env bash
# Net error of the paper's design space (HPCA 2003 Fig. 10-12) with the model:
# tables in {1,2,4,8,16} (2048 counters in all) x {C0R0, C1R0, C0R1, C1R1}, P1, 24-bit counters,
# at 10K/1% and 1M/0.1%, on the given lackey traces. Prints one Markdown table per trace and interval.
# Usage: [HASH=tabulation|h3] scripts/paper-grid.sh KIND:TRACE...   e.g. load:../shared/traces/bzip2_load.lackey.gz
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
d=$(mktemp -d); trap 'rm -rf $d' EXIT
for spec in "$@"; do
  kind=${spec%%:*}; trace=${spec#*:}
  ./target/release/hwprof trace convert "$trace" "$d/t.hwpt" --kind "$kind" >/dev/null
  for lt in "10000:1%" "1000000:0.1%"; do
    L=${lt%%:*}; T=${lt#*:}
    echo; echo "**$(basename "$trace") ($kind), L = $L, T = $T** — net error % (FP share in parentheses), hash ${HASH:-tabulation}"; echo
    echo "| tables × entries | C0R0 | C1R0 | C0R1 | C1R1 |"; echo "|---|---|---|---|---|"
    for n in 1 2 4 8 16; do
      row="| $n × $((2048 / n)) |"
      for cr in "false false" "true false" "false true" "true true"; do
        set -- $cr
        printf 'interval = %s\nthreshold = "%s"\ntables = %s\nentries = %s\nconservative_update = %s\nreset_on_promote = %s\nretaining = true\nhash = "%s"\n' \
          "$L" "$T" "$n" $((2048 / n)) "$1" "$2" "${HASH:-tabulation}" > "$d/c.toml"
        j=$(./target/release/hwprof model --config "$d/c.toml" --trace "$d/t.hwpt" --json)
        row="$row $(python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.2f (%.2f)" % (100*d["net_error"], 100*d["split"]["fp"]))' <<<"$j") |"
      done
      echo "$row"
    done
  done
done
