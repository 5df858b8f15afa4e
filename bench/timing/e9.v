// E9: E1-E4 together, padded (accumulator.md §6 E9; the whole D/C2/W loop of §3.2-3.3 as one
// circuit). The loss against E1 alone is what integration costs before the rest of the design
// (RAMs, hash, accept) is even there.
//
// E3's operand registers feed E2's chains, whose relations enter E1's loop; E1's e and s close
// E3's distance-2 muxes, its hit and allocations drive E4's way counts, and E4's predicate of the
// count after a hit returns to E1's lock-on-hit forwarding. E1's own count >= T-1 register stays
// beside E4's (a rebuild would share it). What C2 would read from block RAM, and the set state of
// an event in another set, come from inputs.
//
// PAD flip-flops of unrelated logic (a ring of LUT4 + FF cells, each bit a function of four
// neighbours and so not reducible, one input bit mixed in so it is not constant) take the part
// to a given fill, so the loop is placed among other logic as it will be in the design. run.sh
// sets PAD per part through the BT_PAD macro.
module bt_pad #(parameter N = 0) (input clk, input d, output q);
  generate if (N < 8) begin : none
    assign q = d;
  end else begin : ring
    reg [N-1:0] r = 0;
    integer i;
    always @(posedge clk)
      for (i = 0; i < N; i = i + 1)
        r[i] <= r[(i+N-1)%N] ^ r[(i+1)%N] ^ (r[(i+2)%N] & ~r[(i+N-3)%N]) ^ (i == 0 ? d : 1'b0);
    assign q = r[N/2];
  end endgenerate
endmodule

`ifndef BT_PAD
`define BT_PAD 0
`endif
module e9 #(parameter PAD = `BT_PAD) (
  input clk,
  // E1: the next event from C2 (the parts that are not chains)
  input nv,
  input [3:0] a2, a3,
  input [1:0] tqv, vlc, lkc, q1,
  input ahead2, key2,
  // E3: the early operands
  input [55:0] t0, t0m,
  input [3:0] t0z,
  // E4: the next event's ways in another set
  input [27:0] basec,
  input [1:0] pendc, nmfc, ge1c, ge0c,
  input pad_in,
  output reg [3:0] wd,
  output reg [1:0] walloc, whit,
  output [27:0] base,
  output [1:0] pend, nmf, cge1, cge0,
  output reg [13:0] wc0,
  output reg pad_out
);
  wire [55:0] p0, np0, pm, npm, c, nc, cm, cinc;
  wire [3:0] z, g1, g2, e_v, s, d;
  wire [15:0] le, lt, u;
  wire [1:0] alloc, alloc_a, hitw, cg2;
  wire miss;
  e3_core v (.clk(clk), .e(e_v), .s(s), .t0(t0), .t0m(t0m), .t0z(t0z), .p0(p0), .np0(np0),
             .pm(pm), .npm(npm), .c(c), .nc(nc), .cm(cm), .z(z), .cinc(cinc));
  e2_chains #(.T(100)) ch (.p0(p0), .np0(np0), .pm(pm), .npm(npm), .le(le), .lt(lt), .u(u),
                           .g1(g1), .g2(g2));
  e1_core l (.clk(clk), .nv(nv), .le(le), .lt(lt), .u(u), .z(z), .g1(g1), .g2(g2), .a2(a2),
             .a3(a3), .tqv(tqv), .vlc(vlc), .lkc(lkc), .q1(q1), .cg2(cg2), .ahead2(ahead2),
             .key2(key2), .e_v(e_v), .s(s), .d(d), .alloc(alloc), .hitw(hitw), .alloc_a(alloc_a),
             .miss(miss));
  e4_core #(.T(100)) k (.clk(clk), .h(hitw), .aalloc(alloc_a), .ahead2(ahead2), .basec(basec),
                       .pendc(pendc), .nmfc(nmfc), .ge1c(ge1c), .ge0c(ge0c), .ismin(d),
                       .incv(cinc), .base(base), .pend(pend), .nmf(nmf), .cge1(cge1),
                       .cge0(cge0), .cg2(cg2));
  wire pq;
  bt_pad #(.N(PAD)) pad (.clk(clk), .d(pad_in), .q(pq));
  // W: one table's counter word written back; cm has no reader in this reduced circuit, so it is
  // folded in to keep it
  always @(posedge clk) begin
    wd <= d; walloc <= alloc; whit <= hitw; pad_out <= pq;
    wc0 <= d[0] ? cinc[13:0] : c[13:0] ^ cm[13:0];
  end
endmodule
