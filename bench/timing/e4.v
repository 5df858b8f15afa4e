// E4: the carry-saved way counts and their threshold predicates (accumulator.md §6 E4; §3.3
// "Counts are carry-saved ..." and "The next event's cge1/cge0 come from constant chains on the
// base", the one path of the proposal over budget).
//
// A way's count is a base register plus a pending hit (pend), or new_min when the event ahead
// allocated it (nmf); new_min is inserted a clock later, an AND-OR of the registered minima and
// their c + 1. The next event's predicates count >= T-1 and >= T come from constant chains on
// the base (base + pend >= T, T-1, T-2, pend entering as the carry in), one early LUT with
// nmf and the forwarding, then one LUT with the late hit and allocation (two LUT4 levels after
// flip-flops): chain + 2 LUT4.
// Pass: >= E1.
//
// e4_core is shared with E9 (there h and aalloc come from E1); the top `e4` drives them from
// bt_late2; every output is a register.
module e4_core #(parameter T = 100) (
  input clk,
  input [1:0] h,                      // this event's hit per way (late)
  input [1:0] aalloc,                 // this event's allocation per way, if the next is in its set (late)
  input ahead2,                       // the event after next is in the next one's set
  input [27:0] basec,                 // the next event's ways when it is in another set
  input [1:0] pendc, nmfc, ge1c, ge0c,
  input [3:0] ismin,                  // this event's minima and c + 1, registered for new_min
  input [55:0] incv,
  output reg [27:0] base,
  output reg [1:0] pend, nmf, cge1, cge0,
  output [1:0] cg2                    // this event's count >= T-2 (E1's lock-on-hit forwarding)
);
  reg ahead1 = 0;
  reg [3:0] ismin_r = 0;
  reg [55:0] inc_r = 0;
  // new_min of the event ahead: an AND-OR, the minima being equal
  reg [13:0] nmv;
  integer q;
  always @* begin
    nmv = 0;
    for (q = 0; q < 4; q = q + 1) nmv = nmv | (ismin_r[q] ? inc_r[q*14 +: 14] : 14'd0);
  end
  // base + pend >= K as the carry out of base + (2^14 - K) with pend as the carry in: the
  // pending hit costs no LUT in front of the chain
  function [14:0] ge_chain(input [13:0] b, input p, input [14:0] k);
    ge_chain = {1'b0, b} + (15'h4000 - k) + p;
  endfunction
  genvar w;
  generate for (w = 0; w < 2; w = w + 1) begin : way
    wire [13:0] b = base[w*14 +: 14];
    wire [13:0] sum = b + pend[w];
    wire [14:0] s0 = ge_chain(b, pend[w], T), s1 = ge_chain(b, pend[w], T - 1),
                s2 = ge_chain(b, pend[w], T - 2);
    wire cT = s0[14], cT1 = s1[14], cT2 = s2[14];   // this event's count >= T, T-1, T-2
    // one early LUT each: the predicates of the next event without (f*0) and with (f*1) a hit
    (* keep *) wire f10, f11, f00, f01;
    assign f10 = ahead1 ? (nmf[w] | cT1) : ge1c[w];
    assign f11 = ahead1 ? (nmf[w] | cT2) : ge1c[w];
    assign f00 = ahead1 ? (nmf[w] | cT) : ge0c[w];
    assign f01 = ahead1 ? (nmf[w] | cT1) : ge0c[w];
    assign cg2[w] = nmf[w] | cT2;
    always @(posedge clk) begin
      base[w*14 +: 14] <= ahead1 ? (nmf[w] ? nmv : sum) : basec[w*14 +: 14];
      pend[w] <= ahead1 ? h[w] : pendc[w];
      nmf[w]  <= ahead1 ? aalloc[w] : nmfc[w];
      // one late LUT: the hit selects, an allocation makes both true (new_min >= T)
      cge1[w] <= aalloc[w] | (h[w] ? f11 : f10);
      cge0[w] <= aalloc[w] | (h[w] ? f01 : f00);
    end
  end endgenerate
  always @(posedge clk) begin
    ahead1 <= ahead2; ismin_r <= ismin; inc_r <= incv;
  end
endmodule

module e4 (
  input clk,
  input [31:0] ihs,                   // the late h's and alloc's sources
  input ahead2,
  input [27:0] basec,
  input [1:0] pendc, nmfc, ge1c, ge0c,
  input [3:0] ismin,
  input [55:0] incv,
  output [27:0] base,
  output [1:0] pend, nmf, cge1, cge0,
  output reg [1:0] wcg2
);
  wire [1:0] h, aalloc, cg2;
  genvar w;
  generate for (w = 0; w < 2; w = w + 1) begin : l
    bt_late2 gh (.clk(clk), .d(ihs[w*16 +: 8]), .z(h[w]));
    bt_late2 ga (.clk(clk), .d(ihs[w*16 + 8 +: 8]), .z(aalloc[w]));
  end endgenerate
  e4_core #(.T(100)) k (.clk(clk), .h(h), .aalloc(aalloc), .ahead2(ahead2), .basec(basec), .pendc(pendc),
                       .nmfc(nmfc), .ge1c(ge1c), .ge0c(ge0c), .ismin(ismin), .incv(incv),
                       .base(base), .pend(pend), .nmf(nmf), .cge1(cge1), .cge0(cge0), .cg2(cg2));
  always @(posedge clk) wcg2 <= cg2;
endmodule
