// Shared pieces of the loop experiments (run.sh prepends this file to every circuit).
//
// bt_lut4: one LUT4 that synthesis must keep as it is written. The experiments measure a LUT
// structure (accumulator.md §7, "Remapping"), so the levels that matter are instances, not
// expressions ABC could re-map. Under BT_BEHAV (Icarus) it is a plain truth table.
// Input order: index = {d, c, b, a}.
module bt_lut4 #(parameter [15:0] INIT = 16'h0000) (input a, b, c, d, output z);
`ifdef BT_BEHAV
  assign z = INIT[{d, c, b, a}];
`elsif HWPROF_ECP5
  (* keep *) LUT4 #(.INIT(INIT)) l (.A(a), .B(b), .C(c), .D(d), .Z(z));
`else
  (* keep *) SB_LUT4 #(.LUT_INIT(INIT)) l (.I0(a), .I1(b), .I2(c), .I3(d), .O(z));
`endif
endmodule

// e'' = nm & (e ? andB : andA): the one decision of §3.2 ("e''_k = LUT4(nm_k, e_k, ∧B, ∧A)").
module bt_emux (input nm, e, andb, anda, output z);
  bt_lut4 #(.INIT(16'ha280)) l (.a(nm), .b(e), .c(andb), .d(anda), .z(z));
endmodule

// A stand-in for a signal that arrives late in D: two LUT4 levels from flip-flops, as e and
// alloc do in the new loop (level 1: AND3 of registers; level 2: the select). The standalone
// E2-E4 use it so that their paths start where the real late signal would.
module bt_late2 (input clk, input [7:0] d, output z);
  reg [7:0] r = 0;
  always @(posedge clk) r <= d;
  (* keep *) wire x;
  assign x = r[1] & r[2] & r[3];
  (* keep *) wire y;
  assign y = r[4] & r[5] & r[6];
  bt_emux m (.nm(r[0]), .e(r[7]), .andb(x), .anda(y), .z(z));
endmodule
