// E1: the new D loop alone (accumulator.md §6 E1; the loop of §3.2 and the decision of §3.3).
//
// D carries bits only. Event i is in D, i+1 in C2. The counters' order relations of i+1 arrive
// from C2's chains (here: ports) and are combined with i's increment e one LUT after it, as
// A_kj = e_j ? (z_k | u_kj) : le_kj and B_kj = e_j | lt_kj; i+1 selects between them with e_k a
// clock later: ismin_k = e_k ? &B_k : &A_k. The loop is AND3 -> e'' -> A/B, hm', locked', three
// LUT4 levels and no carry chain. Pass: median Fmax >= 1.15 x the D stage's.
//
// e1_core is the loop with combinational ports, so that E9 can wire it to the real chains (E2),
// value path (E3) and way counts (E4); the top `e1` drives it from flip-flops and registers
// every output, so the measured path is the loop itself.
module e1_core (
  input clk,
  // the next event (i+1), as C2 sees it
  input nv,
  input [15:0] le, lt, u,   // [k*4+j]: P0_k <= P0_j, P0_k < P0_j, Pm_k <= P0_j (diagonal unused)
  input [3:0] z,            // P0_k == 0 (Pm_k wrapped)
  input [3:0] g1, g2,       // P0_k >= T-1, P0_k >= T-2
  input [3:0] a2,           // i+2 reads i+1's index in table k
  input [3:0] a3,           // i+2 reads i's index in table k (distance 2, for the value path)
  input [1:0] tqv,          // i+1's tag match AND valid, ways as C2 read them
  input [1:0] vlc, lkc, q1, // i+1's valid, locked, count >= T-1 when i is in another set
  input [1:0] cg2,          // i's count >= T-2 (from the base's chains: the count after a hit)
  input ahead2, key2,       // i+2 is in i+1's set / has i+1's key
  output [3:0] e_v,         // i's increments as i+1 sees them: the value path's copy
  output [3:0] s,           // i's increments as i+2 sees them (the distance-2 mux select)
  output [3:0] d,           // i's increments: conservative update, to W
  output [1:0] alloc, hitw,
  output [1:0] alloc_a,     // alloc, if i+1 is in i's set (for the way counts, E4)
  output miss
);
  genvar k, j, w;
  // D's registers, all loaded at the end of D(i-1)
  reg ev = 0;
  reg [15:0] A = 0, B = 0;
  reg [3:0] e = 0;          // i-1's increments as i sees them
  reg [3:0] an = 0, an2 = 0;
  reg [3:0] ge1 = 0;        // i's counters >= T-1
  reg [1:0] hm = 0, vl = 0, lk = 0, cg1 = 0;
  reg ahead1 = 0, key1 = 0;

  // level 1: from registers only
  assign hitw = {ev & hm[1], ev & hm[0]};
  (* keep *) wire m;
  assign m = ev & ~hm[0] & ~hm[1];
  assign miss = m;
  (* keep *) wire cand;
  assign cand = &ge1;
  // room & choose: an empty way first, else a replaceable one, lowest first
  (* keep *) wire [1:0] R;
  assign R = {(~vl[1] & vl[0]) | (vl[0] & vl[1] & lk[0] & ~lk[1]),
                             ~vl[0] | (vl[1] & ~lk[0])};
  wire [3:0] e_l, e_w;
  generate for (k = 0; k < 4; k = k + 1) begin : t
    (* keep *) wire nm;
    assign nm = an[k] & m;
    (* keep *) wire nm2;
    assign nm2 = an2[k] & m;
    (* keep *) wire andA;
    assign andA = &{A[k*4 + (k+1)%4], A[k*4 + (k+2)%4], A[k*4 + (k+3)%4]};
    (* keep *) wire andB;
    assign andB = &{B[k*4 + (k+1)%4], B[k*4 + (k+2)%4], B[k*4 + (k+3)%4]};
    // level 2: e'' in three replicas (loop, value path, W), s and d beside them
    bt_emux el (.nm(nm), .e(e[k]), .andb(andB), .anda(andA), .z(e_l[k]));
    bt_emux ev_ (.nm(nm), .e(e[k]), .andb(andB), .anda(andA), .z(e_v[k]));
    bt_emux es (.nm(nm2), .e(e[k]), .andb(andB), .anda(andA), .z(s[k]));
    bt_emux ed (.nm(m), .e(e[k]), .andb(andB), .anda(andA), .z(d[k]));
  end endgenerate
  // level 2: the allocation (counts never enter it)
  assign alloc = {m & cand & R[1], m & cand & R[0]};
  assign alloc_a = {m & cand & R[1] & ahead1, m & cand & R[0] & ahead1};

  // level 3: the next event's registers
  integer q, p;
  always @(posedge clk) begin
    ev <= nv;
    for (q = 0; q < 4; q = q + 1) begin
      for (p = 0; p < 4; p = p + 1) begin
        A[q*4+p] <= e_l[p] ? (z[q] | u[q*4+p]) : le[q*4+p];
        B[q*4+p] <= e_l[p] | lt[q*4+p];
      end
      ge1[q] <= e_l[q] ? g2[q] : g1[q];
    end
    e <= e_l; an <= a2; an2 <= a3;
    for (q = 0; q < 2; q = q + 1) begin
      vl[q]  <= ahead1 ? (vl[q] | alloc[q]) : vlc[q];
      lk[q]  <= ahead1 ? (lk[q] | alloc[q] | (hitw[q] & cg1[q])) : lkc[q];
      cg1[q] <= ahead1 ? (alloc[q] | (hitw[q] ? cg2[q] : cg1[q])) : q1[q];
      hm[q]  <= (ahead1 & alloc[q]) ? key1 : tqv[q];
    end
    ahead1 <= ahead2; key1 <= key2;
  end
endmodule

module e1 (
  input clk,
  input nv,
  input [15:0] le, lt, u,
  input [3:0] z, g1, g2, a2, a3,
  input [1:0] tqv, vlc, lkc, q1, cg2,
  input ahead2, key2,
  input [111:0] xv,         // the data of the 56 stand-in distance-2 muxes
  output reg [3:0] wd, ws,
  output reg [1:0] walloc, whit,
  output reg [55:0] wx
);
  wire [3:0] e_v, s, d;
  wire [1:0] alloc, hitw;
  wire miss;
  e1_core c (.clk(clk), .nv(nv), .le(le), .lt(lt), .u(u), .z(z), .g1(g1), .g2(g2), .a2(a2),
             .a3(a3), .tqv(tqv), .vlc(vlc), .lkc(lkc), .q1(q1), .cg2(cg2), .ahead2(ahead2),
             .key2(key2), .e_v(e_v), .s(s), .d(d), .alloc(alloc), .hitw(hitw), .miss(miss));
  integer k;
  always @(posedge clk) begin
    wd <= d; ws <= s; walloc <= alloc; whit <= hitw;
    // e's real fan-out: the value path's 14-bit muxes of every table
    for (k = 0; k < 56; k = k + 1) wx[k] <= e_v[k / 14] ? xv[2*k] : xv[2*k+1];
  end
endmodule
