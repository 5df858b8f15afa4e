// D: the reference loop, today's best one-stage read-modify-write D stage of the design notes
// (timing.md, "Measured D stage alone"; accumulator.md §1 and §4 call its figures "D stage").
// The loop is 14-bit compare chain -> is_min LUT -> counter merge: chain + 2 LUTs. The notes
// measured their iCE40 version (dstage12) on the iCE40s and their ECP5 version (dstage13,
// registered hit predicates) on the ECP5, so `d` picks the same per family. The two modules are
// the notes' files as they are, except that their ECP5 switch is the flow's own HWPROF_ECP5 define.
// Every input feeds a register or the loop; every output is a register.
module d #(parameter NT=4, CW=14, W=2) (
  input clk,
  input nv,
  input [NT*CW-1:0] np,
  input [NT-1:0] nsel,
  input nsset, nskey,
  input [W-1:0] nvld, nlck, ntm,
  input [W*CW-1:0] ncnt,
  output [NT*CW-1:0] wv,
  output [W*CW-1:0] wcnt,
  output [W-1:0] wvld, wlck, walloc,
  output whit, wprom
);
`ifdef HWPROF_ECP5
  dstage13 s (
`else
  dstage12 s (
`endif
    .clk(clk), .nv(nv), .np(np), .nsel(nsel), .nsset(nsset), .nskey(nskey), .nvld(nvld),
    .nlck(nlck), .ntm(ntm), .ncnt(ncnt), .wv(wv), .wcnt(wcnt), .wvld(wvld), .wlck(wlck),
    .walloc(walloc), .whit(whit), .wprom(wprom));
endmodule

// ---- dstage12_ice40.v (design notes), its `ifdef ECP5 spelled HWPROF_ECP5
// D stage, version 6: as 5, plus inverted operand copies (the comparator chains take ~c from a
// register, no inverter LUT in front), and the counter merge written as
// c' = (en & nsel & is_min) ? inc : (nsel ? c : np), i.e. one LUT for the gate, one for the bit.
module dstage12 #(parameter NT=4, CW=14, W=2, T=100, R1=0, C1=1) (
  input clk,
  input nv,
  input [NT*CW-1:0] np,
  input [NT-1:0] nsel,
  input nsset, nskey,
  input [W-1:0] nvld, nlck, ntm,
  input [W*CW-1:0] ncnt,
  output reg [NT*CW-1:0] wv,
  output reg [W*CW-1:0] wcnt,
  output reg [W-1:0] wvld, wlck, walloc,
  output reg whit, wprom
);
  genvar k, j, w;
  integer m, q;
  reg ev;
  reg [CW-1:0] c [0:NT-1];
  reg [CW-1:0] nc [0:NT-1];        // ~c
  reg [NT-1:0] ge1, ge2;
  reg [W-1:0] vld, lck, tm, nmf;
  reg [CW-1:0] cnt [0:W-1];
  reg [W-1:0] coff;                // pending +1 of the way's count (hit by the event ahead)
  reg [W-1:0] cge1;                // count value >= T-1 (precomputed)
  reg [NT-1:0] w_ismin;
  reg [CW-1:0] w_inc [0:NT-1];
  reg [CW-1:0] w_inc2 [0:NT-1];
  reg [CW-1:0] w_newmin, w_newmin1;
  always @* begin
    w_newmin = 0; w_newmin1 = 0;
    for (q = 0; q < NT; q = q + 1) begin
      w_newmin = w_newmin | (w_ismin[q] ? w_inc[q] : {CW{1'b0}});
      
    end
  end
  wire [W-1:0] hitv = vld & tm;
  wire hit = ev & (|hitv);
  wire en = ev & ~hit;
  wire [NT-1:0] ismin, d;
  (* keep *) wire [NT-1:0] dn;
  (* keep *) wire [NT-1:0] ens;
  wire [NT*NT-1:0] leall;
  reg [NT*NT-1:0] w_le; reg w_en, w_prom; reg [CW-1:0] w_c [0:NT-1];
  wire [CW-1:0] inc [0:NT-1];
  wire [CW-1:0] inc2 [0:NT-1];
  generate for (k = 0; k < NT; k = k + 1) begin : cu
    wire [NT-1:0] le;
    for (j = 0; j < NT; j = j + 1) begin : cmp
      if (j == k) assign le[j] = 1'b1;
      else begin
        wire [CW:0] s = {1'b0, c[j]} + {1'b0, nc[k]} + 1'b1;   // c[j] - c[k]: carry = (c[k] <= c[j])
        assign le[j] = s[CW];
      end
    end
    assign ismin[k] = &le;
    assign leall[k*NT +: NT] = le;
    assign inc[k] = c[k] + 1'b1;
    assign inc2[k] = c[k] + 2'd2;
    assign d[k] = en & (C1 ? ismin[k] : 1'b1);
    assign ens[k] = en & nsel[k];
`ifdef HWPROF_ECP5
    // one LUT4: ens & le[a] & le[b] & le[c] (the three other tables)
    LUT4 #(.INIT(16'h8000)) dnl (.A(ens[k]), .B(le[(k+1)%NT]), .C(le[(k+2)%NT]), .D(le[(k+3)%NT]), .Z(dn[k]));
`else
    SB_LUT4 #(.LUT_INIT(16'h8000)) dnl (.I0(ens[k]), .I1(le[(k+1)%NT]), .I2(le[(k+2)%NT]), .I3(le[(k+3)%NT]), .O(dn[k]));
`endif
  end endgenerate
  wire cand = &ge1;
  wire [W-1:0] empty = ~vld;
  wire [W-1:0] repl = vld & ~lck;
  wire [W-1:0] pe = empty & (~empty + 1'b1);
  wire [W-1:0] pr = repl & (~repl + 1'b1);
  wire [W-1:0] choose = (|empty) ? pe : pr;
  wire prom = en & cand & (|(empty | repl));
  wire [W-1:0] alloc = prom ? choose : {W{1'b0}};
  wire z = (R1 != 0) & prom;
  wire [CW-1:0] pc [0:W-1];
  wire [W-1:0] plck, pvld;
  generate for (w = 0; w < W; w = w + 1) begin : pw
    wire h = ev & hitv[w];
    // early: the way's count value (base + pending offset), from registers
    wire [CW-1:0] cv = cnt[w] + coff[w];
    assign pc[w] = nmf[w] ? w_newmin : cv;      // base for the next event; its offset is h
    assign plck[w] = lck[w] | alloc[w] | (h & ~lck[w] & cge1[w]);
    assign pvld[w] = vld[w] | alloc[w];
  end endgenerate
  wire [CW-1:0] t0 [0:NT-1];
  wire [NT-1:0] g1t0, g1t1, g2t0, g2t1;
  generate for (k = 0; k < NT; k = k + 1) begin : early
    wire [CW-1:0] npk = np[k*CW +: CW];
    assign t0[k] = nsel[k] ? c[k] : npk;
    assign g1t0[k] = nsel[k] ? ge1[k] : (npk >= T - 1);
    assign g1t1[k] = c[k] >= T - 2;
    assign g2t0[k] = nsel[k] ? ge2[k] : (npk >= T - 2);
    assign g2t1[k] = c[k] >= T - 3;
  end endgenerate
  always @(posedge clk) begin
    ev <= nv;
    for (m = 0; m < NT; m = m + 1) begin
      c[m] <= dn[m] ? inc[m] : t0[m];
      nc[m] <= dn[m] ? ~inc[m] : ~t0[m];
      ge1[m] <= dn[m] ? g1t1[m] : g1t0[m];
      ge2[m] <= dn[m] ? g2t1[m] : g2t0[m];
    end
    for (m = 0; m < W; m = m + 1) begin
      vld[m] <= nsset ? pvld[m] : nvld[m];
      lck[m] <= nsset ? plck[m] : nlck[m];
      cnt[m] <= nsset ? pc[m] : ncnt[m*CW +: CW];
      coff[m] <= nsset & ev & hitv[m];
      // predicates from the base register and the early offset; the late hit selects
      cge1[m] <= nsset ? (nmf[m] ? 1'b0 : ((ev & hitv[m]) ? (coff[m] ? (cnt[m] >= T - 3) : (cnt[m] >= T - 2))
                                                          : (coff[m] ? (cnt[m] >= T - 2) : (cnt[m] >= T - 1))))
                       : (ncnt[m*CW +: CW] >= T - 1);
      nmf[m] <= nsset & alloc[m];
      tm[m]  <= (nsset & alloc[m]) ? nskey : ntm[m];
    end
    w_le <= leall; w_en <= en; w_prom <= prom;
    for (m = 0; m < NT; m = m + 1) begin
      w_c[m] <= c[m];
      wv[m*CW +: CW] <= (w_en & (&w_le[m*NT +: NT])) ? w_inc[m] : w_c[m];   // W: from registers
      w_inc[m] <= inc[m];
      w_inc2[m] <= inc2[m];
    end
    for (m = 0; m < NT; m = m + 1) w_ismin[m] <= w_prom & (&w_le[m*NT +: NT]);
    for (m = 0; m < W; m = m + 1) wcnt[m*CW +: CW] <= pc[m] + (ev & hitv[m]);
    wvld <= pvld; wlck <= plck; walloc <= alloc; whit <= hit; wprom <= prom;
  end
endmodule

// ---- dstage13_ecp5.v (design notes), its `define ECP5 replaced by the flow's HWPROF_ECP5
// D stage, version 6: as 5, plus inverted operand copies (the comparator chains take ~c from a
// register, no inverter LUT in front), and the counter merge written as
// c' = (en & nsel & is_min) ? inc : (nsel ? c : np), i.e. one LUT for the gate, one for the bit.
module dstage13 #(parameter NT=4, CW=14, W=2, T=100, R1=0, C1=1) (
  input clk,
  input nv,
  input [NT*CW-1:0] np,
  input [NT-1:0] nsel,
  input nsset, nskey,
  input [W-1:0] nvld, nlck, ntm,
  input [W*CW-1:0] ncnt,
  output reg [NT*CW-1:0] wv,
  output reg [W*CW-1:0] wcnt,
  output reg [W-1:0] wvld, wlck, walloc,
  output reg whit, wprom
);
  genvar k, j, w;
  integer m, q;
  reg ev;
  reg [CW-1:0] c [0:NT-1];
  reg [CW-1:0] nc [0:NT-1];        // ~c
  reg [NT-1:0] ge1, ge2;
  reg [W-1:0] vld, lck, tm, nmf;
  reg [W-1:0] hitn;                // vld & tm, precomputed in the merge
  reg [CW-1:0] cnt [0:W-1];
  reg [W-1:0] coff;                // pending +1 of the way's count (hit by the event ahead)
  reg [W-1:0] cge1;                // count value >= T-1 (precomputed)
  reg [NT-1:0] w_ismin;
  reg [CW-1:0] w_inc [0:NT-1];
  reg [CW-1:0] w_inc2 [0:NT-1];
  reg [CW-1:0] w_newmin, w_newmin1;
  always @* begin
    w_newmin = 0; w_newmin1 = 0;
    for (q = 0; q < NT; q = q + 1) begin
      w_newmin = w_newmin | (w_ismin[q] ? w_inc[q] : {CW{1'b0}});
      
    end
  end
  wire [W-1:0] hitv = hitn;
  wire hit = ev & (|hitv);
  wire en = ev & ~hit;
  wire [NT-1:0] ismin, d;
  (* keep *) wire [NT-1:0] dn;
  (* keep *) wire [NT-1:0] ens;
  wire [NT*NT-1:0] leall;
  reg [NT*NT-1:0] w_le; reg w_en, w_prom; reg [CW-1:0] w_c [0:NT-1];
  wire [CW-1:0] inc [0:NT-1];
  wire [CW-1:0] inc2 [0:NT-1];
  generate for (k = 0; k < NT; k = k + 1) begin : cu
    wire [NT-1:0] le;
    for (j = 0; j < NT; j = j + 1) begin : cmp
      if (j == k) assign le[j] = 1'b1;
      else begin
        wire [CW:0] s = {1'b0, c[j]} + {1'b0, nc[k]} + 1'b1;   // c[j] - c[k]: carry = (c[k] <= c[j])
        assign le[j] = s[CW];
      end
    end
    assign ismin[k] = &le;
    assign leall[k*NT +: NT] = le;
    assign inc[k] = c[k] + 1'b1;
    assign inc2[k] = c[k] + 2'd2;
    assign d[k] = en & (C1 ? ismin[k] : 1'b1);
    assign ens[k] = ev & nsel[k] & ~(|hitn);
`ifdef HWPROF_ECP5
    // one LUT4: ens & le[a] & le[b] & le[c] (the three other tables)
    LUT4 #(.INIT(16'h8000)) dnl (.A(ens[k]), .B(le[(k+1)%NT]), .C(le[(k+2)%NT]), .D(le[(k+3)%NT]), .Z(dn[k]));
`else
    SB_LUT4 #(.LUT_INIT(16'h8000)) dnl (.I0(ens[k]), .I1(le[(k+1)%NT]), .I2(le[(k+2)%NT]), .I3(le[(k+3)%NT]), .O(dn[k]));
`endif
  end endgenerate
  wire cand = &ge1;
  wire [W-1:0] empty = ~vld;
  wire [W-1:0] repl = vld & ~lck;
  wire [W-1:0] pe = empty & (~empty + 1'b1);
  wire [W-1:0] pr = repl & (~repl + 1'b1);
  wire [W-1:0] choose = (|empty) ? pe : pr;
  wire prom = en & cand & (|(empty | repl));
  wire [W-1:0] alloc = prom ? choose : {W{1'b0}};
  wire z = (R1 != 0) & prom;
  wire [CW-1:0] pc [0:W-1];
  wire [W-1:0] plck, pvld;
  generate for (w = 0; w < W; w = w + 1) begin : pw
    wire h = ev & hitv[w];
    // early: the way's count value (base + pending offset), from registers
    wire [CW-1:0] cv = cnt[w] + coff[w];
    assign pc[w] = nmf[w] ? w_newmin : cv;      // base for the next event; its offset is h
    assign plck[w] = lck[w] | alloc[w] | (h & ~lck[w] & cge1[w]);
    assign pvld[w] = vld[w] | alloc[w];
  end endgenerate
  wire [CW-1:0] t0 [0:NT-1];
  wire [CW-1:0] nt0 [0:NT-1];
  wire [CW-1:0] ninc [0:NT-1];
  wire [NT-1:0] g1t0, g1t1, g2t0, g2t1;
  generate for (k = 0; k < NT; k = k + 1) begin : early
    wire [CW-1:0] npk = np[k*CW +: CW];
    assign t0[k] = nsel[k] ? c[k] : npk;
    assign nt0[k] = nsel[k] ? nc[k] : ~npk;
    assign ninc[k] = nc[k] - 1'b1;   // ~(c + 1) = ~c - 1
    assign g1t0[k] = nsel[k] ? ge1[k] : (npk >= T - 1);
    assign g1t1[k] = c[k] >= T - 2;
    assign g2t0[k] = nsel[k] ? ge2[k] : (npk >= T - 2);
    assign g2t1[k] = c[k] >= T - 3;
  end endgenerate
  always @(posedge clk) begin
    ev <= nv;
    for (m = 0; m < NT; m = m + 1) begin
      c[m] <= dn[m] ? inc[m] : t0[m];
      nc[m] <= dn[m] ? ninc[m] : nt0[m];
      ge1[m] <= dn[m] ? g1t1[m] : g1t0[m];
      ge2[m] <= dn[m] ? g2t1[m] : g2t0[m];
    end
    for (m = 0; m < W; m = m + 1) begin
      vld[m] <= nsset ? pvld[m] : nvld[m];
      lck[m] <= nsset ? plck[m] : nlck[m];
      cnt[m] <= nsset ? pc[m] : ncnt[m*CW +: CW];
      coff[m] <= nsset & ev & hitv[m];
      // predicates from the base register and the early offset; the late hit selects
      cge1[m] <= nsset ? (nmf[m] ? 1'b0 : ((ev & hitv[m]) ? (coff[m] ? (cnt[m] >= T - 3) : (cnt[m] >= T - 2))
                                                          : (coff[m] ? (cnt[m] >= T - 2) : (cnt[m] >= T - 1))))
                       : (ncnt[m*CW +: CW] >= T - 1);
      nmf[m] <= nsset & alloc[m];
      tm[m]  <= (nsset & alloc[m]) ? nskey : ntm[m];
      hitn[m] <= nsset ? (alloc[m] ? nskey : (pvld[m] & ntm[m])) : (nvld[m] & ntm[m]);
    end
    w_le <= leall; w_en <= en; w_prom <= prom;
    for (m = 0; m < NT; m = m + 1) begin
      w_c[m] <= c[m];
      wv[m*CW +: CW] <= (w_en & (&w_le[m*NT +: NT])) ? w_inc[m] : w_c[m];   // W: from registers
      w_inc[m] <= inc[m];
      w_inc2[m] <= inc2[m];
    end
    for (m = 0; m < NT; m = m + 1) w_ismin[m] <= w_prom & (&w_le[m*NT +: NT]);
    for (m = 0; m < W; m = m + 1) wcnt[m*CW +: CW] <= pc[m] + (ev & hitv[m]);
    wvld <= pvld; wlck <= plck; walloc <= alloc; whit <= hit; wprom <= prom;
  end
endmodule
