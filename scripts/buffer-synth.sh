#!/usr/bin/env bash
# Area and Fmax of a profile buffer on iCE40 UP5K (sg48) with Yosys + nextpnr-ice40, directly
# (until the shared synthesis command exists). Usage: scripts/buffer-synth.sh CONFIG [SEED]
# The buffer has ~120 ports, more than the package's 39 I/Os, so it is measured inside a small
# wrapper: pc and index arrive through a shift register from one pin, the readout word is
# xor-reduced into one register. The wrapper costs <= 75 flip-flops and a ~20-LUT xor tree.
set -euo pipefail
cd "$(dirname "$0")/.."
cfg=$1; seed=${2:-1}
for t in yosys nextpnr-ice40; do
  command -v $t >/dev/null || { echo "$t not found: apt-get install yosys nextpnr-ice40"; exit 1; }
done
cargo build --release -q
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
./target/release/hwprof buffer --config "$cfg" --verilog "$tmp/buffer.v"
msb() {  # the top bit index of an output port (0 for a 1-bit port)
  grep -E "output reg +(\[[0-9]+:0\] +)?$1;" "$tmp/buffer.v" | sed -nE 's/.*\[([0-9]+):0\].*/\1/p' | grep . || echo 0
}
tw=$(msb out_tag); cw=$(msb out_taken)
cat > "$tmp/wrap.v" <<V
module synth_top(input clock, input reset, input ev_valid, input ev_taken, input sample,
                 input out_ready, input din, output ev_ready, output out_valid, output out_last,
                 output reg dout);
  reg [73:0] sh;  // {pc, index}: index nearest the pin so unused pc bits are trimmed
  always @(posedge clock) sh <= {sh[72:0], din};
  wire [9:0] oi; wire [$tw:0] ot; wire [$cw:0] a, b;
  top u(.clock(clock), .reset(reset), .ev_valid(ev_valid), .ev_ready(ev_ready),
        .ev_pc(sh[73:10]), .ev_taken(ev_taken), .ev_index(sh[9:0]), .sample(sample),
        .out_valid(out_valid), .out_ready(out_ready), .out_index(oi), .out_tag(ot),
        .out_taken(a), .out_not_taken(b), .out_last(out_last));
  always @(posedge clock) dout <= ^{oi, ot, a, b};
endmodule
V
yosys -q -l "$tmp/yosys.log" -p "synth_ice40 -top synth_top -json $tmp/x.json" "$tmp/buffer.v" "$tmp/wrap.v" >/dev/null
nextpnr-ice40 --up5k --package sg48 --seed "$seed" --json "$tmp/x.json" --report "$tmp/r.json" \
  >"$tmp/pnr.log" 2>&1 || {
    echo "$cfg: nextpnr failed: $(grep -m1 ICESTORM_LC "$tmp/pnr.log" | sed 's/^Info: *//') (iCE40 UP5K sg48)"
    grep -m1 ERROR "$tmp/pnr.log"; exit 1; }
python3 - "$tmp/r.json" "$cfg" <<'P'
import json, sys
r = json.load(open(sys.argv[1]))
u = r["utilization"]; f = r["fmax"]
lc = u["ICESTORM_LC"]; ram = u.get("ICESTORM_RAM", {"used": 0, "available": 30})
fmax = min(v["achieved"] for v in f.values())
print("%s: %d / %d LCs (%.1f %%), %d / %d EBR, Fmax %.1f MHz (iCE40 UP5K sg48)"
      % (sys.argv[2], lc["used"], lc["available"], 100.0 * lc["used"] / lc["available"],
         ram["used"], ram["available"], fmax))
P
