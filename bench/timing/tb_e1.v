// Self-check of E1 (Icarus, run by `run.sh --check`): the bit loop against a value-level
// reference over a random event stream, so the experiment measures a correct circuit.
//
// The reference keeps numbers: 4 counters per event (conservative update, only minima
// increment, not on a hit) and one set of 2 ways (valid, locked, tag, count). An event reads its
// predecessor's counter (per table, at random) and set (at random), so aliasing at distance 1
// and 2, ties, hits right after an allocation and locks all occur. E1 sees only what C2 would
// give it (relations of the next event's pre-values, predicates, tag matches) and must produce
// the same increments, allocations, hits and distance-2 selects.
`timescale 1ns/1ps
module tb_e1;
  localparam N = 40000, T = 4;
  reg clk = 0;
  integer n, k, j, w, errors = 0, checked = 0, allocs = 0, hits = 0, incs = 0, d2 = 0;
  integer seed = 1;

  // the reference, per event
  reg        ev   [0:N+3];
  reg [3:0]  al1  [0:N+3];    // reads event n-1's index in table k
  reg [3:0]  al2  [0:N+3];    // reads event n-2's index in table k
  reg [13:0] p0   [0:4*N+15]; // what n reads if n-1 does not increment
  reg [13:0] c    [0:4*N+15]; // what n actually reads
  reg [3:0]  inc  [0:N+3];
  reg        same [0:N+3];    // in event n-1's set
  reg [1:0]  key  [0:N+3];
  reg [1:0]  vl   [0:N+3], lk [0:N+3], hm [0:N+3], alc [0:N+3], hw [0:N+3];
  reg [1:0]  tg   [0:2*N+7];  // tags of the ways as event n sees them
  reg [13:0] cnt  [0:2*N+7];
  reg [1:0]  pvl, plk; reg [1:0] ptg [0:1]; reg [13:0] pcnt [0:1];
  reg        miss, cand, ism; reg [13:0] mn; reg [1:0] choose;

  initial begin
    for (n = 0; n < N + 4; n = n + 1) begin
      ev[n] = (n >= N) ? 0 : ($random(seed) & 7) != 0;
      for (k = 0; k < 4; k = k + 1) begin
        al1[n][k] = n > 0 && n < N && ($random(seed) & 1);
        // n-2's index without n-1's (else n would read n-1's index too)
        al2[n][k] = n > 1 && n < N && !al1[n][k] && !al1[n-1][k] && ($random(seed) & 3) == 0;
        if (al1[n][k]) p0[4*n+k] = c[4*(n-1)+k];                      // n-1's value before its increment
        else if (al2[n][k]) p0[4*n+k] = c[4*(n-2)+k] + inc[n-2][k];    // n-2's value after its increment
        else p0[4*n+k] = $unsigned($random(seed)) % 7;
        c[4*n+k] = p0[4*n+k] + ((al1[n][k] && inc[n-1][k]) ? 1 : 0);
      end
      // the set: the predecessor's after its update, or another one
      same[n] = n > 0 && n < N && ($random(seed) & 1);
      if (same[n]) begin
        vl[n] = pvl; lk[n] = plk;
        for (w = 0; w < 2; w = w + 1) begin tg[2*n+w] = ptg[w]; cnt[2*n+w] = pcnt[w]; end
        key[n] = ($random(seed) & 1) ? key[n-1] : $random(seed);
      end else begin
        for (w = 0; w < 2; w = w + 1) begin
          vl[n][w] = $random(seed); lk[n][w] = vl[n][w] & $random(seed);
          tg[2*n+w] = $random(seed); cnt[2*n+w] = $unsigned($random(seed)) % 7;
        end
        key[n] = $random(seed);
      end
      for (w = 0; w < 2; w = w + 1) hm[n][w] = vl[n][w] && tg[2*n+w] == key[n];
      hw[n] = ev[n] ? hm[n] : 2'b00;
      miss = ev[n] && hm[n] == 0;
      cand = 1; mn = 14'h3fff;
      for (k = 0; k < 4; k = k + 1) begin
        if (c[4*n+k] < T - 1) cand = 0;
        if (c[4*n+k] < mn) mn = c[4*n+k];
      end
      for (k = 0; k < 4; k = k + 1) begin
        ism = 1;
        for (j = 0; j < 4; j = j + 1) if (c[4*n+j] < c[4*n+k]) ism = 0;
        inc[n][k] = miss && ism;
      end
      choose = !vl[n][0] ? 2'b01 : !vl[n][1] ? 2'b10 : !lk[n][0] ? 2'b01 : !lk[n][1] ? 2'b10 : 2'b00;
      alc[n] = (miss && cand) ? choose : 2'b00;
      for (w = 0; w < 2; w = w + 1) begin
        pvl[w] = vl[n][w] | alc[n][w];
        plk[w] = lk[n][w] | alc[n][w] | (hw[n][w] && cnt[2*n+w] >= T - 1);
        ptg[w] = alc[n][w] ? key[n] : tg[2*n+w];
        pcnt[w] = alc[n][w] ? mn + 1 : cnt[2*n+w] + hw[n][w];
      end
    end
  end

  // the circuit
  reg nv = 0; reg [15:0] le = 0, lt = 0, u = 0; reg [3:0] z = 0, g1 = 0, g2 = 0, a2 = 0, a3 = 0;
  reg [1:0] tqv = 0, vlc = 0, lkc = 0, q1 = 0, cg2 = 0; reg ahead2 = 0, key2 = 0;
  reg [111:0] xv = 0;
  wire [3:0] wd, ws; wire [1:0] walloc, whit; wire [55:0] wx;
  e1 dut (.clk(clk), .nv(nv), .le(le), .lt(lt), .u(u), .z(z), .g1(g1), .g2(g2), .a2(a2), .a3(a3),
          .tqv(tqv), .vlc(vlc), .lkc(lkc), .q1(q1), .cg2(cg2), .ahead2(ahead2), .key2(key2), .xv(xv),
          .wd(wd), .ws(ws), .walloc(walloc), .whit(whit), .wx(wx));

  // C2's view of event m (its pre-values, before event m-1's update), for the clock when m-1 is in D
  task drive(input integer m);
    reg [13:0] pk, pj, pmk;
    begin
      nv = ev[m];
      for (k = 0; k < 4; k = k + 1) begin
        pk = p0[4*m+k]; pmk = pk - 1;
        z[k] = pk == 0; g1[k] = pk >= T - 1; g2[k] = pk >= T - 2;
        for (j = 0; j < 4; j = j + 1) begin
          pj = p0[4*m+j];
          le[4*k+j] = pk <= pj; lt[4*k+j] = pk < pj; u[4*k+j] = pmk <= pj;
        end
        a2[k] = al1[m+1][k]; a3[k] = al2[m+2][k];
      end
      for (w = 0; w < 2; w = w + 1) begin
        // in the same set, C2 read the set before m-1's update
        tqv[w] = same[m] ? (vl[m-1][w] && tg[2*(m-1)+w] == key[m]) : hm[m][w];
        vlc[w] = vl[m][w]; lkc[w] = lk[m][w]; q1[w] = cnt[2*m+w] >= T - 1;
        cg2[w] = m > 0 ? cnt[2*(m-1)+w] >= T - 2 : 0;   // m-1's count, for a hit on m-1
      end
      ahead2 = same[m+1]; key2 = key[m+1] == key[m];
      xv = {$random(seed), $random(seed), $random(seed), $random(seed)};
    end
  endtask

  integer cyc;
  initial begin
    #1;
    // cycle 0: a bubble is in D; event 0 is offered
    drive(0);
    for (cyc = 0; cyc < N + 1; cyc = cyc + 1) begin
      #5 clk = 1; #1;
      // event cyc is now in D; the W outputs hold event cyc-1
      if (cyc >= 1) begin
        n = cyc - 1; checked = checked + 1;
        if (wd !== inc[n] || walloc !== alc[n] || whit !== hw[n] ||
            ws !== (inc[n] & al2[n+2])) begin
          errors = errors + 1;
          if (errors <= 10)
            $display("event %0d: d %b/%b alloc %b/%b hit %b/%b s %b/%b", n, wd, inc[n],
                     walloc, alc[n], whit, hw[n], ws, inc[n] & al2[n+2]);
        end
        allocs = allocs + (alc[n] != 0); hits = hits + (hw[n] != 0); incs = incs + (inc[n] != 0);
        d2 = d2 + ((inc[n] & al2[n+2]) != 0);
      end
      if (cyc + 1 < N + 2) drive(cyc + 1);
      #4 clk = 0;
    end
    $display("E1 self-check: %0d events, %0d mismatches (%0d with increments, %0d hits, %0d allocations, %0d distance-2 selects)",
             checked, errors, incs, hits, allocs, d2);
    if (errors != 0 || allocs == 0 || hits == 0 || d2 == 0) $fatal(1, "E1 self-check FAILED");
    $finish;
  end
endmodule
