#!/usr/bin/env python3
"""Timing experiment, never simulated: what the set epochs' two-step read would be worth.

Rewrites a profiler's exported design.v so that every S-to-1 flag select of the set epochs
(`pend`, `rep`, `cur`, `prev` at the lookup's, the scanner's and stage C's set) becomes a 16-to-1
select, by the set's low four bits, of a 16-set group registered a clock earlier by its high bits:
the cost of the two-step read without the logic that would keep it exact (the group would have to
be chosen from each address a clock early and updated as the vectors are). The output is NOT
functionally equivalent; synthesize it only, e.g.

    hwprof synth --config configs/paper-1m-bram.toml --target ecp5-25k --seeds 3 --out base
    python3 scripts/epochs-ceiling.py base/design.v ceiling.v
    hwprof synth --verilog ceiling.v --top top --target ecp5-25k --seeds 3 --out ceiling

Needs at least 32 sets (the group is 16 sets, the select of groups at least 2-to-1).
"""
import re
import sys


def main():
    if len(sys.argv) != 3:
        print("usage: epochs-ceiling.py DESIGN.v OUT.v\n" + __doc__, file=sys.stderr)
        sys.exit(2)
    src, dst = sys.argv[1], sys.argv[2]
    try:
        text = open(src).read()
    except OSError as e:
        print(f"{src}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    start = text.find("module top$acc$epochs(")
    if start < 0:
        print(f"{src}: no set-epochs module (module top$acc$epochs)", file=sys.stderr)
        sys.exit(2)
    end = text.index("endmodule", start)
    body = text[start:end]
    m = re.search(r"reg \[(\d+):0\] cur;", body)
    if m is None:
        print(f"{src}: the set-epochs module has no vector of sets (one set?)", file=sys.stderr)
        sys.exit(2)
    hi = int(m.group(1))
    sets = hi + 1
    ab = sets.bit_length() - 1
    if sets < 32 or 1 << ab != sets:
        print(f"{src}: {sets} sets; the experiment needs a power of two >= 32", file=sys.stderr)
        sys.exit(2)
    top = ab - 1
    sites = [
        ("pend", "lookup_set", "l"), ("rep", "lookup_set", "l"),
        ("pend", "scan_set", "s"), ("rep", "scan_set", "s"),
        ("pend_rot", "scan_set", "s1"), ("rep_rot", "scan_set", "s1"),
        ("cur", "c_set", "c"), ("prev", "c_set", "c"), ("pend", "c_set", "c"), ("rep", "c_set", "c"),
    ]
    regs, loads = [], []
    for vec, addr, tag in sites:
        sel = f"{vec}[{addr}[{top}:0]]"
        if sel not in body:
            print(f"{src}: the select {sel} is not in the set-epochs module", file=sys.stderr)
            sys.exit(2)
        group = f"{vec}_{tag}g"
        body = body.replace(sel, f"{group}[{addr}[3:0]]")
        regs.append(group)
        loads.append(f"  {group} <= {vec}[{addr}[{top}:4]*16 +: 16];")
    # After the wires the groups read (`pend_rot`, `rep_rot`), before the module's flip-flops.
    at = body.index("always @(posedge clock)")
    block = (f"reg [15:0] {', '.join(regs)};\nalways @(posedge clock) begin\n"
             + "\n".join(loads) + "\nend\n")
    body = body[:at] + block + body[at:]
    open(dst, "w").write(text[:start] + body + text[end:])


if __name__ == "__main__":
    main()
