#!/usr/bin/env bash
# Bad-input and pipe reproducers against the release binary: one Markdown row each (exit code,
# first line on stderr). docs/RESULTS.md, "Using the tool". Usage: scripts/ux-reproducers.sh
cd "$(dirname "$0")/.."; HW=./target/release/hwprof; T=traces/gzip_load.hwpt.gz
row() { local desc="$1"; shift; local err; err=$(mktemp); out=$(timeout 120 bash -c "$*" 2>$err >/dev/null; echo $?); msg=$(grep -v '^\s*$' $err | head -1 | cut -c1-150); echo "| $desc | \`$(echo "$*" | sed "s|$HW|hwprof|g" | cut -c1-110)\` | $out | ${msg//|/\\|} |"; rm -f $err; }
echo "| case | command | exit | first line on stderr |"; echo "|---|---|---:|---|"
row "co-simulation comparing no report" "$HW cosim --config configs/paper-10k.toml --trace $T --events 2000"
row "cosim --events 0" "$HW cosim --config configs/paper-10k.toml --trace $T --events 0"
row "trace shorter than one interval" "$HW model --config configs/paper-1m.toml --trace $T"
row "trace from stdin (-)" "zcat -f $T | $HW model --config configs/paper-10k.toml --trace -"
row "trace from a process substitution" "$HW model --config configs/paper-10k.toml --trace <(zcat -f $T)"
row "trace from /dev/stdin" "zcat -f $T | $HW model --config configs/paper-10k.toml --trace /dev/stdin"
row "trace from a FIFO" "rm -f /tmp/ux.fifo; mkfifo /tmp/ux.fifo; (zcat -f $T > /tmp/ux.fifo &); $HW model --config configs/paper-10k.toml --trace /tmp/ux.fifo"
row "verilog to an unwritable path" "$HW verilog --config configs/paper-10k-bram.toml --out /etc/passwd/dir"
row "cosim --vcd to an unwritable path" "$HW cosim --config configs/paper-10k-bram.toml --trace $T --events 20000 --vcd /etc/passwd/x.vcd"
row "trace convert to an unwritable path" "$HW trace convert $T /etc/passwd/x.hwpt"
row "buffer on a load trace" "$HW buffer --config configs/buffer-address-64.toml --trace $T"
row "sweep to an unwritable directory" "$HW sweep --trace $T --grid bench/peers-paper-budget.toml --no-plots --out /etc/passwd/dir"
row "--kind disagreeing with a binary trace" "$HW trace convert $T /tmp/ux-load.hwpt --kind load 2>/dev/null; $HW model --config configs/paper-10k.toml --trace /tmp/ux-load.hwpt --kind edge"
row "trace record to an unwritable path" "$HW trace record --kind load --out /etc/passwd/x.gz -- true"
row "bad --set" "$HW --set tables=0 model --config configs/paper-10k.toml --trace $T"
