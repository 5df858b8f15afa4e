// E3: the counters' value path (accumulator.md §6 E3; the operands and the distance-2 muxes of
// §3.2: "P0 <- s ? c + 1 : t0 and Pm <- s ? c : t0m", "c = e ? P0 + 1 : P0, cm = e ? P0 : Pm").
//
// Numbers never enter D's decision; they follow it. Each value register is a carry chain from a
// register (c + 1, P0 + 1, or a complement's - 1) beside an early operand, closed by one late
// 2:1 mux whose select (e or s) arrives two LUT4 levels after flip-flops and fans out to about
// 56 bits. Pass: >= E1.
//
// e3_core is shared with E9 (there e and s come from E1); the top `e3` drives the selects from
// bt_late2 and its early operands from inputs; every output is a register.
module e3_core (
  input clk,
  input [3:0] e,                      // i's increments as i+1 sees them (late)
  input [3:0] s,                      // i's increments as i+2 sees them (late)
  input [55:0] t0, t0m,               // i+2's operand without i's increment, and t0 - 1 (early)
  input [3:0] t0z,                    // t0 == 0
  output reg [55:0] p0, np0, pm, npm, c, nc, cm,
  output reg [3:0] z,
  output [55:0] cinc                  // c + 1, for new_min in W
);
  genvar k;
  generate for (k = 0; k < 4; k = k + 1) begin : t
    wire [13:0] ck = c[k*14 +: 14], nck = nc[k*14 +: 14];
    wire [13:0] p = p0[k*14 +: 14], np = np0[k*14 +: 14];
    wire [13:0] inc = ck + 1'b1, ninc = nck - 1'b1;   // ~(c + 1) = ~c - 1
    wire [13:0] pinc = p + 1'b1, npinc = np - 1'b1;
    assign cinc[k*14 +: 14] = inc;
    always @(posedge clk) begin
      p0[k*14 +: 14]  <= s[k] ? inc : t0[k*14 +: 14];
      np0[k*14 +: 14] <= s[k] ? ninc : ~t0[k*14 +: 14];
      pm[k*14 +: 14]  <= s[k] ? ck : t0m[k*14 +: 14];
      npm[k*14 +: 14] <= s[k] ? nck : ~t0m[k*14 +: 14];
      z[k]            <= ~s[k] & t0z[k];
      c[k*14 +: 14]   <= e[k] ? pinc : p;
      nc[k*14 +: 14]  <= e[k] ? npinc : np;
      cm[k*14 +: 14]  <= e[k] ? p : pm[k*14 +: 14];
    end
  end endgenerate
endmodule

module e3 (
  input clk,
  input [55:0] t0, t0m,
  input [3:0] t0z,
  input [63:0] ise,                   // the late e's and s's sources
  output [55:0] p0, np0, pm, npm, c, nc, cm,
  output [3:0] z
);
  wire [3:0] e, s;
  wire [55:0] cinc;
  genvar k;
  generate for (k = 0; k < 4; k = k + 1) begin : l
    bt_late2 ge (.clk(clk), .d(ise[k*16 +: 8]), .z(e[k]));
    bt_late2 gs (.clk(clk), .d(ise[k*16 + 8 +: 8]), .z(s[k]));
  end endgenerate
  e3_core v (.clk(clk), .e(e), .s(s), .t0(t0), .t0m(t0m), .t0z(t0z), .p0(p0), .np0(np0), .pm(pm),
             .npm(npm), .c(c), .nc(nc), .cm(cm), .z(z), .cinc(cinc));
endmodule
