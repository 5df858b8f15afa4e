#!/usr/bin/env python3
"""Timing experiments, never simulated: what a planned cut of a profiler's paths would be worth.

Rewrites a profiler's exported design.v (set-associative accumulator) as if one cut were made, at
its cost in logic but without the logic that would keep the design exact. The output is NOT
functionally equivalent; synthesize it only. Cuts:

  epochs  every S-to-1 flag select of the set epochs (`pend`, `rep`, `cur`, `prev` at the lookup's,
          the scanner's and stage C's set) becomes a 16-to-1 select, by the set's low four bits, of
          a 16-set group registered a clock earlier by its high bits (the two-step read; exact, it
          would choose each group from the address a clock early and update it as the vectors are).
          Needs a power of two >= 32 sets.
  hit     stage D's tag match of every way (`tag_eq`) comes from a flip-flop (exact, the tag compare
          would finish in stage C, with the tag RAMs read a clock earlier).
  stamps  the set epochs lose their per-set flag vectors: every flag is a flip-flop loaded from a
          gate or two of its inputs, as if stage D's `cur`/`prev`/`pend` came with the meta words (an
          interval stamp compared in stage C) and no other flag were read (a scanner visiting every
          set). The ceiling of keeping the epochs in the words, without the stamp bits' cost.
  picks   the counters' conservative update starts from the registered words alone: the 2:1
          select of the word the event ahead updated (`fw_pick`) is gone, as if the loop forwarded
          relations between the operands instead of values (the design notes' next lever, whose
          extra compares are not paid for here).
  hash    the hash units take the event from a register (`e_a`, `e_b` a clock late), not through
          the skid register's select from the input (exact, the hash would move to a stage of its
          own after stage F's register, one more stage before the key compares).
  accept  stage 0's accept decision comes from a flip-flop loaded with this clock's decision, as if
          it were decided a clock ahead for both outcomes of the op in stage C (the accept then
          fans out to the input's and stage H's enables from a register; the look-ahead logic
          is not paid for).
  ramreg  the accumulator's tag and meta RAMs are read through a register (as a block RAM's own
          output register would, with the RAMs read a clock earlier; not paid for): every use of a
          way's `read_data` takes the registered word.
  reg MODULE EXPR...  (after IN OUT) every occurrence of each 1-bit expression EXPR, as written in
          MODULE's Verilog, reads a flip-flop loaded with that expression instead: the generic form
          of the cuts above, for following the critical paths one group at a time. `[[` `]]` mark
          the expression within a longer text that makes the place unique:
          `reg IN OUT top 'acc$lookup_offer = [[offer]];'`.

Cuts can be stacked: run the script again on its own output with another cut.

    hwprof synth --config configs/paper-1m-bram.toml --target ecp5-25k --seeds 3 --out base
    python3 scripts/timing-ceiling.py epochs base/design.v ceiling.v
    hwprof synth --verilog ceiling.v --top top --target ecp5-25k --seeds 3 --out ceiling
"""
import re
import sys


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(2)


def module(text, name, src):
    start = text.find(f"module {name}(")
    if start < 0:
        fail(f"{src}: no module {name} (a set-associative profiler's design.v?)")
    return start, text.index("endmodule", start)


def cut_epochs(body, src):
    m = re.search(r"reg \[(\d+):0\] cur;", body)
    if m is None:
        fail(f"{src}: the set-epochs module has no vector of sets (one set?)")
    sets = int(m.group(1)) + 1
    ab = sets.bit_length() - 1
    if sets < 32 or 1 << ab != sets:
        fail(f"{src}: {sets} sets; the epochs cut needs a power of two >= 32")
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
            fail(f"{src}: the select {sel} is not in the set-epochs module")
        group = f"{vec}_{tag}g"
        body = body.replace(sel, f"{group}[{addr}[3:0]]")
        regs.append(group)
        loads.append(f"  {group} <= {vec}[{addr}[{top}:4]*16 +: 16];")
    return regs, "\n".join(loads), body


def cut_hit(body, src):
    ways = sorted(set(re.findall(r"hit_far\$(\d+) = far_valid\$\d+ & tag_eq\$\d+;", body)), key=int)
    if not ways:
        fail(f"{src}: no stage-D hit (hit_far$w = far_valid$w & tag_eq$w) in the accumulator")
    regs, loads = [], []
    for w in ways:
        for use in (f"hit_far${w} = far_valid${w} & tag_eq${w};",
                    f"hit_near${w} = |(fw_meta${w}$q & valid_flag) & tag_eq${w};"):
            if use not in body:
                fail(f"{src}: `{use}` is not in the accumulator")
            body = body.replace(use, use.replace(f"tag_eq${w};", f"tag_eq_r{w};"))
        regs.append(f"tag_eq_r{w}")
        loads.append(f"  tag_eq_r{w} <= tag_eq${w};")
    return regs, "\n".join(loads), body


STAMPS = """    // Update code (ceiling: flags from flip-flops, no per-set vectors)
    reg d_cur_r, d_prev_r, d_pend_r, lookup_r, c_pend_r, any_r, scan_r, rq;
    always @(posedge clock) begin
       if (reset) begin
          {d_cur_r, d_prev_r, d_pend_r, lookup_r, c_pend_r, any_r, scan_r, rq} <= 8'd0;
       end else begin
          d_cur_r <= c_set[0] ^ c_set[1];
          d_prev_r <= c_set[2] ^ c_set[3];
          d_pend_r <= c_set[4] & ~c_set[5] & ~HOT;
          lookup_r <= lookup_set[0] & lookup_hold;
          c_pend_r <= lookup ? lookup_set[1] : scan_set[1];
          any_r <= roll | (any_r & ~(retire & touch & d_set[0]));
          scan_r <= scan_set[2] ^ scan_advance;
          rq <= roll;
       end
    end
    always @(*) begin
       d_cur = d_cur_r;
       d_prev = d_prev_r;
       d_pend = d_pend_r;
       lookup_pend = lookup_r;
       scan_pend = scan_r;
       c_pend = c_pend_r;
       any_pend = any_r;
       rolling = rq;
    end
"""


def cut_stamps(body, src):
    at = body.find("    // Update code (custom)")
    if at < 0:
        fail(f"{src}: the set-epochs module has no custom update code")
    # `hot` is one port, or one per way (`hot$0`, `hot$1`, ...).
    hots = re.findall(r"input wire\s+(hot(?:\$\d+)?);", body)
    if not hots:
        fail(f"{src}: the set-epochs module has no `hot` input")
    return None, None, body[:at] + STAMPS.replace("HOT", f"(|{{{', '.join(hots)}}})")


def cut_picks(body, src):
    sel = re.compile(r"if \(fw_pick\$(\d+)\$q\) begin")
    if not sel.search(body):
        fail(f"{src}: the counters have no `fw_pick` select (built without the write stage?)")
    return None, None, sel.sub("if (1'b0) begin", body)


def cut_hash(body, src):
    uses = ["set_hash$a = e_a;", "set_hash$b = e_b;", "        hash$a = e_a;", "        hash$b = e_b;"]
    for use in uses:
        if body.count(use) != 1:
            fail(f"{src}: `{use.strip()}` is not in the profiler's top module once")
        body = body.replace(use, use.replace("= e_", "= hr_"))
    return ["hr_a", "hr_b"], "  hr_a <= e_a;\n  hr_b <= e_b;", body


ACCEPT = "accept = offer & ~stale$q & acc$lookup_ok & ~(control$last & acc$report_busy);"


def cut_accept(body, src):
    if body.count(ACCEPT) != 1:
        fail(f"{src}: `{ACCEPT}` is not in the profiler's top module once")
    body = body.replace(ACCEPT, "accept = accept_r;")
    return ["accept_r"], "  accept_r <= " + ACCEPT.split(" = ", 1)[1], body


def cut_ramreg(body, src):
    words = re.findall(r"wire\s+\[(\d+):0\] ((?:tags|metas)\$\d+\$read_data);", body)
    if not words:
        fail(f"{src}: the accumulator has no tag or meta RAM read data")
    at = body.index("always @(")
    rest = body[at:]
    regs, loads = [], []
    for msb, word in words:
        reg = word.replace("$read_data", "_q").replace("$", "_")
        rest = re.sub(re.escape(word) + r"\b", reg, rest)
        regs.append(f"reg [{msb}:0] {reg};")
        loads.append(f"  {reg} <= {word};")
    block = "\n".join(regs) + "\nalways @(posedge clock) begin\n" + "\n".join(loads) + "\nend\n"
    return None, None, body[:at] + block + rest


CUTS = {
    "epochs": ("top$acc$epochs", cut_epochs),
    "hit": ("top$acc", cut_hit),
    "stamps": ("top$acc$epochs", cut_stamps),
    "picks": ("top$counters", cut_picks),
    "hash": ("top", cut_hash),
    "accept": ("top", cut_accept),
    "ramreg": ("top$acc", cut_ramreg),
}


def cut_reg(text, src, name, exprs):
    start, end = module(text, name, src)
    body = text[start:end]
    n = len(set(re.findall(r"\bcut_r\d+\b", body)))
    regs, loads = [], []
    for arg in exprs:
        m = re.fullmatch(r"(.*)\[\[(.+)\]\](.*)", arg, re.S)
        before, expr, after = m.groups() if m else ("", arg, "")
        if arg.replace("[[", "").replace("]]", "") not in body:
            fail(f"{src}: `{arg}` is not in module {name}")
        reg = f"cut_r{n + len(regs)}"
        body = body.replace(before + expr + after, before + reg + after)
        regs.append(reg)
        loads.append(f"  {reg} <= {expr};")
    at = body.index("always @(")
    block = f"reg {', '.join(regs)};\nalways @(posedge clock) begin\n" + "\n".join(loads) + "\nend\n"
    return text[:start] + body[:at] + block + body[at:] + text[end:]


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "reg":
        src, dst, name = sys.argv[2:5]
        try:
            text = open(src).read()
        except OSError as e:
            fail(f"{src}: {e.strerror}")
        open(dst, "w").write(cut_reg(text, src, name, sys.argv[5:]))
        return
    if len(sys.argv) != 4 or sys.argv[1] not in CUTS:
        fail("usage: timing-ceiling.py epochs|hit|stamps|picks|hash|accept|ramreg DESIGN.v OUT.v\n"
             "       timing-ceiling.py reg DESIGN.v OUT.v MODULE EXPR...\n" + __doc__)
    cut, src, dst = sys.argv[1:]
    try:
        text = open(src).read()
    except OSError as e:
        fail(f"{src}: {e.strerror}")
    name, rewrite = CUTS[cut]
    start, end = module(text, name, src)
    regs, loads, body = rewrite(text[start:end], src)
    if regs is None:
        open(dst, "w").write(text[:start] + body + text[end:])
        return
    # After the module's wires, before its first process.
    at = body.index("always @(")
    width = {"epochs": "[15:0] ", "hash": "[63:0] "}.get(cut, "")
    block = (f"reg {width}{', '.join(regs)};\nalways @(posedge clock) begin\n{loads}\nend\n")
    open(dst, "w").write(text[:start] + body[:at] + block + body[at:] + text[end:])


if __name__ == "__main__":
    main()
