//! The set-associative accumulator's decision with its words forwarded as bits (docs/notes/
//! bits-in-d.md, "The accumulator, distance by distance"): stages C1 (the late select), C2, D and
//! W of one set's ways, without the RAMs, the epochs and the report, which the accumulator
//! around it keeps.
//!
//! Y is in D, X (one slot behind) in C2, X' (two behind) in C1. Per way, D holds Y's view of its
//! set: `hm` (Y's tuple is the way's, and the way is valid), `vl`, `lk` (valid, locked), the count
//! carry-saved as `base` + `pend` (a hit of the op ahead, not yet added) or, with `nmf`, the
//! `new_min` of the op ahead that allocated the way (the counters finish it a clock after that
//! op's D: `new_min_w` now), and `cge1` (count ≥ T − 1). The decision uses no count:
//! - miss = ev ∧ no `hm`; hit on a way = ev ∧ `hm`;
//! - the allocation takes the first empty way, else the first replaceable (valid, not locked)
//!   one, when Y missed and its counters are a candidate (`cand`);
//! - a hit locks a way whose count reaches T (`cge1`, and T within the counts' range).
//!
//! The next op's view of a way Y wrote is Y's result, selected by whether it is on Y's set
//! (`c2_ahead1` for X, at the end of D; `c1_ahead2` for X', at the end of C1), else its own:
//! X's C2 registers, X''s early view (the table's merge of the RAM and the writes three to five
//! ahead, after the rollover). A way's tuple changes only when it is allocated, so the next op's
//! match on a way Y allocated is whether its tuple is Y's (`c2_key1`, `c1_key2`), on any other
//! way its own tag compare (`e_teq` by slices, kept apart from the validity as `tq_c`) with Y's
//! validity.
//! So the early view's validity, lock and count are used only where neither op ahead is on the
//! set: the accumulator around may get them wrong there (its epochs already hold the touch of an
//! op one or two ahead, whose write its RAM has not seen). The counts
//! follow: base ← `nmf` ? `new_min_w` : base + pend, pend ← hit, nmf ← allocated; `cge1` of the
//! next op is the chain base + pend ≥ T − 1 or ≥ T − 2 (a hit) on Y's registers, selected late. A
//! way the op two ahead allocated takes that op's new minimum as X leaves C2 (the op is in W
//! then, its minimum on `new_min_w`).
//!
//! In W (a clock after D), from registers: every way's word as Y leaves it (an allocated way's
//! count is Y's `new_min`, `new_min_w` then) and whether it holds a count ≥ T (`w_hot`).

use super::primitives::{vec_of, Priority};
use super::set_accumulator::TAG_PARTS;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct SetRelations<const CB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: no op is in C2 or D.
    pub reset: Signal<In, Bit>,
    /// C1 (X'): an event (not a scan or an empty slot); its early view of each way: valid,
    /// locked, count, and its tuple against the way's tag in [`TAG_PARTS`] slices of
    /// [`TAG_PART_BITS`] bits (slice p of way w equal at w · TAG_PARTS + p): C2 ANDs them, so
    /// C1's compare is one slice deep.
    ///
    /// [`TAG_PART_BITS`]: super::set_accumulator::TAG_PART_BITS
    pub c1_ev: Signal<In, Bit>,
    pub e_valid: Vec<Signal<In, Bit>>,
    pub e_locked: Vec<Signal<In, Bit>>,
    pub e_count: Vec<Signal<In, Bits<CB>>>,
    pub e_teq: Vec<Signal<In, Bit>>,
    /// C1 (X'): on the set of D's op (distance 2), and its tuple is that op's.
    pub c1_ahead2: Signal<In, Bit>,
    pub c1_key2: Signal<In, Bit>,
    /// C2 (X): on the set of D's op (distance 1), and its tuple is that op's.
    pub c2_ahead1: Signal<In, Bit>,
    pub c2_key1: Signal<In, Bit>,
    /// D: the counters say Y's new minimum reaches T.
    pub cand: Signal<In, Bit>,
    /// The counters' `new_min_w`: the new minimum of the op a clock past D.
    pub new_min_w: Signal<In, Bits<CB>>,
    /// T, T − 1, T − 2 and T − 3 (0 below), and whether a count can reach T (for the ops in C2
    /// and D).
    pub t: Signal<In, Bits<CB>>,
    pub t_minus_1: Signal<In, Bits<CB>>,
    pub t_minus_2: Signal<In, Bits<CB>>,
    pub t_minus_3: Signal<In, Bits<CB>>,
    pub reachable: Signal<In, Bit>,
    /// D: Y hit a way (shielding: its counters are not updated), or missed; the way it hit
    /// or allocated.
    pub hit: Signal<Out, Bit>,
    pub miss: Signal<Out, Bit>,
    pub hit_way: Vec<Signal<Out, Bit>>,
    pub alloc: Vec<Signal<Out, Bit>>,
    /// W: the words of Y's set as Y leaves them, the ways it allocated (their tags are Y's),
    /// and the ways holding a count ≥ T.
    pub w_valid: Vec<Signal<Out, Bit>>,
    pub w_locked: Vec<Signal<Out, Bit>>,
    pub w_count: Vec<Signal<Out, Bits<CB>>>,
    pub w_alloc: Vec<Signal<Out, Bit>>,
    pub w_hot: Vec<Signal<Out, Bit>>,
    /// C2: X's view: its tuple against the way's tag, by slices (valid or not; X's hit on the
    /// way is that and `vl_c`).
    ev_c: DFF<Bit>,
    tq_c: Vec<DFF<Bit>>,
    vl_c: Vec<DFF<Bit>>,
    lk_c: Vec<DFF<Bit>>,
    base_c: Vec<DFF<Bits<CB>>>,
    pend_c: Vec<DFF<Bit>>,
    nmf_c: Vec<DFF<Bit>>,
    /// D: Y's view.
    ev: DFF<Bit>,
    hm: Vec<DFF<Bit>>,
    vl: Vec<DFF<Bit>>,
    lk: Vec<DFF<Bit>>,
    base: Vec<DFF<Bits<CB>>>,
    pend: Vec<DFF<Bit>>,
    nmf: Vec<DFF<Bit>>,
    cge1: Vec<DFF<Bit>>,
    /// W: Y's count per way before its hit, its hit and allocation, valid and locked after it.
    w_cnt: Vec<DFF<Bits<CB>>>,
    w_hit: Vec<DFF<Bit>>,
    w_new: Vec<DFF<Bit>>,
    w_vl: Vec<DFF<Bit>>,
    w_lk: Vec<DFF<Bit>>,
    /// C2: X's tuple is the way's tag (all slices equal), and its count ≥ T − 1.
    tq: Vec<Signal<Local, Bit>>,
    ge1_c: Vec<Signal<Local, Bit>>,
    /// D: Y's count per way (carry-saved parts added, saturating, or the allocation's minimum),
    /// its count ≥ T − 1 and ≥ T − 2, hit, allocation, and the next lock.
    sum: Vec<Signal<Local, Bits<CB>>>,
    cnt: Vec<Signal<Local, Bits<CB>>>,
    f10: Vec<Signal<Local, Bit>>,
    f11: Vec<Signal<Local, Bit>>,
    hit_d: Vec<Signal<Local, Bit>>,
    alloc_d: Vec<Signal<Local, Bit>>,
    lock_d: Vec<Signal<Local, Bit>>,
    miss_d: Signal<Local, Bit>,
    hits: Priority,
    empty: Priority,
    repl: Priority,
    /// W: the count written.
    w_sum: Vec<Signal<Local, Bits<CB>>>,
    count_max: Constant<Bits<CB>>,
    one: Constant<Bits<CB>>,
}

impl<const CB: usize> SetRelations<CB> {
    /// `ways` ways whose counts saturate at `count_max` (< 2^CB). The allocation takes the first
    /// replaceable way when no way is empty (smallest replacement is not expressed here).
    pub fn new(ways: usize, count_max: u64) -> Self {
        assert!(ways >= 1, "at least one way");
        assert!(CB == 64 || count_max < 1u64 << CB, "counts fit their words");
        SetRelations {
            clock: Default::default(),
            reset: Default::default(),
            c1_ev: Default::default(),
            e_valid: vec_of(ways),
            e_locked: vec_of(ways),
            e_count: vec_of(ways),
            e_teq: vec_of(ways * TAG_PARTS),
            c1_ahead2: Default::default(),
            c1_key2: Default::default(),
            c2_ahead1: Default::default(),
            c2_key1: Default::default(),
            cand: Default::default(),
            new_min_w: Default::default(),
            t: Default::default(),
            t_minus_1: Default::default(),
            t_minus_2: Default::default(),
            t_minus_3: Default::default(),
            reachable: Default::default(),
            hit: Default::default(),
            miss: Default::default(),
            hit_way: vec_of(ways),
            alloc: vec_of(ways),
            w_valid: vec_of(ways),
            w_locked: vec_of(ways),
            w_count: vec_of(ways),
            w_alloc: vec_of(ways),
            w_hot: vec_of(ways),
            ev_c: Default::default(),
            tq_c: vec_of(ways * TAG_PARTS),
            vl_c: vec_of(ways),
            lk_c: vec_of(ways),
            base_c: vec_of(ways),
            pend_c: vec_of(ways),
            nmf_c: vec_of(ways),
            ev: Default::default(),
            hm: vec_of(ways),
            vl: vec_of(ways),
            lk: vec_of(ways),
            base: vec_of(ways),
            pend: vec_of(ways),
            nmf: vec_of(ways),
            cge1: vec_of(ways),
            w_cnt: vec_of(ways),
            w_hit: vec_of(ways),
            w_new: vec_of(ways),
            w_vl: vec_of(ways),
            w_lk: vec_of(ways),
            tq: vec_of(ways),
            ge1_c: vec_of(ways),
            sum: vec_of(ways),
            cnt: vec_of(ways),
            f10: vec_of(ways),
            f11: vec_of(ways),
            hit_d: vec_of(ways),
            alloc_d: vec_of(ways),
            lock_d: vec_of(ways),
            miss_d: Default::default(),
            hits: Priority::new(ways),
            empty: Priority::new(ways),
            repl: Priority::new(ways),
            w_sum: vec_of(ways),
            count_max: Constant::new(count_max.into()),
            one: Constant::new(1.into()),
        }
    }
}

impl<const CB: usize> Logic for SetRelations<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ev_c, ev);
        // ---- D (Y): hit, miss, allocation, from registers and `cand`.
        for w in 0..self.hm.len() {
            self.vl_c[w].clock.next = self.clock.val();
            self.lk_c[w].clock.next = self.clock.val();
            self.base_c[w].clock.next = self.clock.val();
            self.pend_c[w].clock.next = self.clock.val();
            self.nmf_c[w].clock.next = self.clock.val();
            self.hm[w].clock.next = self.clock.val();
            self.vl[w].clock.next = self.clock.val();
            self.lk[w].clock.next = self.clock.val();
            self.base[w].clock.next = self.clock.val();
            self.pend[w].clock.next = self.clock.val();
            self.nmf[w].clock.next = self.clock.val();
            self.cge1[w].clock.next = self.clock.val();
            self.w_cnt[w].clock.next = self.clock.val();
            self.w_hit[w].clock.next = self.clock.val();
            self.w_new[w].clock.next = self.clock.val();
            self.w_vl[w].clock.next = self.clock.val();
            self.w_lk[w].clock.next = self.clock.val();
            self.hits.bits[w].next = self.hm[w].q.val();
            self.empty.bits[w].next = !self.vl[w].q.val();
            self.repl.bits[w].next = self.vl[w].q.val() & !self.lk[w].q.val();
        }
        self.miss_d.next = self.ev.q.val() & !self.hits.any.val();
        self.hit.next = self.ev.q.val() & self.hits.any.val();
        self.miss.next = self.miss_d.val();
        for w in 0..self.hm.len() {
            self.hit_d[w].next = self.ev.q.val() & self.hm[w].q.val();
            self.alloc_d[w].next = self.miss_d.val()
                & self.cand.val()
                & ((self.empty.any.val() & self.empty.first[w].val())
                    | (!self.empty.any.val() & self.repl.first[w].val()));
            self.lock_d[w].next = self.lk[w].q.val()
                | self.alloc_d[w].val()
                | (self.hit_d[w].val() & self.cge1[w].q.val() & self.reachable.val());
            self.hit_way[w].next = self.hit_d[w].val();
            self.alloc[w].next = self.alloc_d[w].val();
            // Y's count before its hit: the parts added (saturating), or the minimum of the op
            // ahead that allocated the way.
            self.sum[w].next = self.base[w].q.val();
            if self.pend[w].q.val() & (self.base[w].q.val() < self.count_max.val()) {
                self.sum[w].next = self.base[w].q.val() + self.one.val();
            }
            self.cnt[w].next = self.sum[w].val();
            if self.nmf[w].q.val() {
                self.cnt[w].next = self.new_min_w.val();
            }
            // An allocated way holds new_min >= T: every predicate holds. base + pend >= T − 1
            // and >= T − 2 without the add, as in C2: base against T − 1 … T − 3 side by side,
            // chosen by the pending hit.
            self.f10[w].next = self.nmf[w].q.val() | (self.base[w].q.val() >= self.t_minus_1.val());
            self.f11[w].next = self.nmf[w].q.val() | (self.base[w].q.val() >= self.t_minus_2.val());
            if self.pend[w].q.val() & (self.base[w].q.val() < self.count_max.val()) {
                self.f10[w].next =
                    self.nmf[w].q.val() | (self.base[w].q.val() >= self.t_minus_2.val());
                self.f11[w].next =
                    self.nmf[w].q.val() | (self.base[w].q.val() >= self.t_minus_3.val());
            }
            // ---- C2 (X): its count >= T − 1.
            // base + pend >= T − 1 without the add: the compares of base with T − 1 and T − 2
            // and with the maximum side by side, chosen by the pending hit.
            self.ge1_c[w].next =
                self.nmf_c[w].q.val() | (self.base_c[w].q.val() >= self.t_minus_1.val());
            if self.pend_c[w].q.val() & (self.base_c[w].q.val() < self.count_max.val()) {
                self.ge1_c[w].next =
                    self.nmf_c[w].q.val() | (self.base_c[w].q.val() >= self.t_minus_2.val());
            }
            // ---- C2 (X): the slices of its tag compare (literal: TAG_PARTS = 12).
            self.tq[w].next = true;
            for p in 0..12 {
                self.tq_c[w * 12 + p].clock.next = self.clock.val();
                if !self.tq_c[w * 12 + p].q.val() {
                    self.tq[w].next = false;
                }
            }
            // ---- D → X's registers: Y's result where X is on Y's set (distance 1).
            self.hm[w].d.next = self.tq[w].val() & self.vl_c[w].q.val();
            self.vl[w].d.next = self.vl_c[w].q.val();
            self.lk[w].d.next = self.lk_c[w].q.val();
            // A way the op two ahead allocated holds its new minimum, on `new_min_w` now (that
            // op is in W): taken here, as it is gone when X is in D.
            self.base[w].d.next = self.base_c[w].q.val();
            if self.nmf_c[w].q.val() {
                self.base[w].d.next = self.new_min_w.val();
            }
            self.pend[w].d.next = self.pend_c[w].q.val();
            self.nmf[w].d.next = false;
            self.cge1[w].d.next = self.ge1_c[w].val();
            if self.c2_ahead1.val() {
                self.hm[w].d.next = self.tq[w].val() & self.vl[w].q.val();
                if self.alloc_d[w].val() {
                    self.hm[w].d.next = self.c2_key1.val();
                }
                self.vl[w].d.next = self.vl[w].q.val() | self.alloc_d[w].val();
                self.lk[w].d.next = self.lock_d[w].val();
                self.base[w].d.next = self.cnt[w].val();
                self.pend[w].d.next = self.hit_d[w].val();
                self.nmf[w].d.next = self.alloc_d[w].val();
                self.cge1[w].d.next = self.alloc_d[w].val() | self.f10[w].val();
                if self.hit_d[w].val() {
                    self.cge1[w].d.next = self.f11[w].val();
                }
            }
            // ---- C1 → X''s registers: its early view, or Y's result (distance 2); a way Y
            // allocated holds Y's tuple.
            for p in 0..12 {
                self.tq_c[w * 12 + p].d.next = self.e_teq[w * 12 + p].val();
                if self.c1_ahead2.val() & self.alloc_d[w].val() {
                    self.tq_c[w * 12 + p].d.next = self.c1_key2.val();
                }
            }
            self.vl_c[w].d.next = self.e_valid[w].val();
            self.lk_c[w].d.next = self.e_locked[w].val();
            self.base_c[w].d.next = self.e_count[w].val();
            self.pend_c[w].d.next = false;
            self.nmf_c[w].d.next = false;
            if self.c1_ahead2.val() {
                self.vl_c[w].d.next = self.vl[w].q.val() | self.alloc_d[w].val();
                self.lk_c[w].d.next = self.lock_d[w].val();
                self.base_c[w].d.next = self.cnt[w].val();
                self.pend_c[w].d.next = self.hit_d[w].val();
                self.nmf_c[w].d.next = self.alloc_d[w].val();
            }
            // ---- D → W (Y).
            self.w_cnt[w].d.next = self.cnt[w].val();
            self.w_hit[w].d.next = self.hit_d[w].val();
            self.w_new[w].d.next = self.alloc_d[w].val();
            self.w_vl[w].d.next = self.vl[w].q.val() | self.alloc_d[w].val();
            self.w_lk[w].d.next = self.lock_d[w].val();
            // ---- W: the words, from registers (an allocated way's count is Y's new_min).
            self.w_sum[w].next = self.w_cnt[w].q.val();
            if self.w_hit[w].q.val() & (self.w_cnt[w].q.val() < self.count_max.val()) {
                self.w_sum[w].next = self.w_cnt[w].q.val() + self.one.val();
            }
            self.w_count[w].next = self.w_sum[w].val();
            if self.w_new[w].q.val() {
                self.w_count[w].next = self.new_min_w.val();
            }
            self.w_valid[w].next = self.w_vl[w].q.val();
            self.w_locked[w].next = self.w_lk[w].q.val();
            self.w_alloc[w].next = self.w_new[w].q.val();
            self.w_hot[w].next = self.w_new[w].q.val()
                | (self.w_vl[w].q.val() & (self.w_sum[w].val() >= self.t.val()));
        }
        self.ev.d.next = self.ev_c.q.val();
        self.ev_c.d.next = self.c1_ev.val();
        if self.reset.val() {
            self.ev.d.next = false;
            self.ev_c.d.next = false;
        }
    }
}
