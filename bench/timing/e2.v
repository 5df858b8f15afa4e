// E2: the counters' relation chains of C2 and the one LUT after them (accumulator.md §6 E2;
// the C2 chains and "A/B one LUT after the chain" of §3.2).
//
// From the operand registers P0 and Pm = P0 - 1 (with their complements, so no inverter sits
// in front of a chain, as in the D stage), C2 runs 24 + 8 chains: per ordered pair le = P0_k <=
// P0_j (lt is the complement of the reverse pair) and u = Pm_k <= P0_j; per table P0 >= T-1,
// P0 >= T-2. Their results meet the late e (two LUT4 levels from flip-flops, as in E1) in one
// LUT: A = e_j ? (z_k | u) : le, B = e_j | lt, ge1 = e ? g2 : g1. Pass: >= E1.
// Every chain is written as the carry out of a sum: Yosys 0.23 maps `P0 >= constant` with LUTs
// around the chain, and that form alone cost E2 a fifth of its Fmax.
//
// e2_chains is shared with E9; the top `e2` loads the operands from its inputs and registers
// every output.
module e2_chains #(parameter T = 100) (
  input [55:0] p0, np0, pm, npm,      // per table, 14 bits each: P0, ~P0, Pm, ~Pm
  output [15:0] le, lt, u,            // [k*4+j], diagonal unused
  output [3:0] g1, g2
);
  genvar k, j;
  generate for (k = 0; k < 4; k = k + 1) begin : t
    for (j = 0; j < 4; j = j + 1) begin : p
      if (j == k) begin
        assign le[k*4+j] = 1'b1; assign lt[k*4+j] = 1'b0; assign u[k*4+j] = 1'b1;
      end else begin
        // P0_j - P0_k and P0_j - Pm_k: the carry out is the relation
        wire [14:0] sle = {1'b0, p0[j*14 +: 14]} + {1'b0, np0[k*14 +: 14]} + 15'd1;
        wire [14:0] sgt = {1'b0, p0[k*14 +: 14]} + {1'b0, np0[j*14 +: 14]} + 15'd1;
        wire [14:0] su  = {1'b0, p0[j*14 +: 14]} + {1'b0, npm[k*14 +: 14]} + 15'd1;
        assign le[k*4+j] = sle[14];
        assign lt[k*4+j] = ~sgt[14];
        assign u[k*4+j] = su[14];
      end
    end
    // P0 >= K as the carry out of P0 + (2^14 - K), the form the pairwise chains have
    wire [14:0] s1 = {1'b0, p0[k*14 +: 14]} + (15'h4000 - (T - 1));
    wire [14:0] s2 = {1'b0, p0[k*14 +: 14]} + (15'h4000 - (T - 2));
    assign g1[k] = s1[14];
    assign g2[k] = s2[14];
  end endgenerate
endmodule

module e2 (
  input clk,
  input [55:0] ip0, ipm,
  input [3:0] iz,
  input [31:0] ie,                    // the late e's sources
  output reg [15:0] A, B,
  output reg [3:0] ge1
);
  reg [55:0] p0 = 0, np0 = 0, pm = 0, npm = 0;
  reg [3:0] z = 0;
  always @(posedge clk) begin
    p0 <= ip0; np0 <= ~ip0; pm <= ipm; npm <= ~ipm; z <= iz;
  end
  wire [15:0] le, lt, u;
  wire [3:0] g1, g2, e;
  e2_chains ch (.p0(p0), .np0(np0), .pm(pm), .npm(npm), .le(le), .lt(lt), .u(u), .g1(g1), .g2(g2));
  genvar k;
  generate for (k = 0; k < 4; k = k + 1) begin : l
    bt_late2 g (.clk(clk), .d(ie[k*8 +: 8]), .z(e[k]));
  end endgenerate
  integer q, p;
  always @(posedge clk) begin
    for (q = 0; q < 4; q = q + 1) begin
      for (p = 0; p < 4; p = p + 1) begin
        A[q*4+p] <= e[p] ? (z[q] | u[q*4+p]) : le[q*4+p];
        B[q*4+p] <= e[p] | lt[q*4+p];
      end
      ge1[q] <= e[q] ? g2[q] : g1[q];
    end
  end
endmodule
