//! The counters' decision with **relation forwarding** (docs/notes/bits-in-d.md; the design
//! notes' "bits in D"): stages C2, D and W of the counter tables, without their RAMs. The one
//! loop that cannot be pipelined — an event's increments into the next event's minimum — carries
//! bits, never numbers: D selects among relations that were compared a clock earlier, for both
//! outcomes of the event ahead.
//!
//! In one clock, Y is in D, X (one behind) in C2 and X' (two behind) in C1:
//! - **C1 → C2** (the operands of X'): `P0` = what X' reads if Y does not increment it, `Pm` =
//!   `P0` − 1 and `z` = (`P0` = 0). They are the early word `t0` (the table block's merge of the
//!   RAM and the writes three to five ahead), or — the **late mux**, distance 2 — Y's counter
//!   + 1 where X' reads the counter Y increments (`s`). `Pm` is carried beside `P0`, so no chain
//!   follows a chain.
//! - **C2** (X): the pairwise chains on X's operands — le = P0_k ≤ P0_j, lt = P0_k < P0_j,
//!   u = Pm_k ≤ P0_j — and the threshold chains g1 = P0 ≥ T − 1, g2 = P0 ≥ T − 2, combined with
//!   Y's increments as X sees them (`ex`: X reads that counter of Y) one LUT later and registered
//!   for X's D as the rows `a` and `b`:
//!   - under **conservative update** (C1) two counters Y increments were equal (both minimal),
//!     so a_kj = ex_j ? (z_k ∨ u_kj) : le_kj and b_kj = ex_j ∨ lt_kj;
//!   - incrementing all (C0) leaves the relation of two incremented counters as it was:
//!     b_kj = ex_j ? le_kj : lt_kj.
//! - **D** (Y): c_k is minimal when `e_k` ? ∧_j b_kj : ∧_j a_kj, `e` being the increments of
//!   the event ahead of Y as Y saw them; Y increments its minimal counters (C1) or all (C0) when
//!   it missed the accumulator (`miss`) and the counter is not saturated. `candidate` is the AND
//!   of the registered predicates c_k ≥ T − 1.
//! - **W** (Y, a clock later): the words Y writes (`w_word`, with `w_word_m` = − 1 and `w_zero`,
//!   for the table block's forwarding) and its `new_min_w`, from registers.
//!
//! The values follow the decision, never enter it: X's value register is `ex ? P0 + 1 : P0`, Y's
//! written word `inc ? c + 1 : c`. Saturation (where `counter_max` can be reached within an
//! interval) is a predicate carried like the threshold's (c ≥ max), so an increment stays one
//! function of registers and `miss`.

use super::counter_tables::UpdateRule;
use super::primitives::vec_of;
use crate::util::BitGather;
use rust_hdl::prelude::*;

/// Bits of a relation row: the most tables a configuration may have (the rows' loops write it as
/// a literal, 16).
pub const ROW: usize = crate::config::MAX_TABLES as usize;
const _: () = assert!(ROW == 16);

#[derive(LogicBlock)]
pub struct CounterRelations<const CB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: no increments are pending.
    pub reset: Signal<In, Bit>,
    /// C1 (X'): its early word per table — the RAM's, or a write three to five ahead — with
    /// that word − 1 and whether it is 0.
    pub t0: Vec<Signal<In, Bits<CB>>>,
    pub t0m: Vec<Signal<In, Bits<CB>>>,
    pub t0z: Vec<Signal<In, Bit>>,
    /// C1 (X'): it reads the word of table k that D's event writes (distance 2).
    pub c1_same2: Vec<Signal<In, Bit>>,
    /// C2 (X): it reads the word of table k that D's event writes (distance 1).
    pub c2_same1: Vec<Signal<In, Bit>>,
    /// D: its event missed the accumulator (low without an event): its counters are updated.
    pub miss: Signal<In, Bit>,
    /// T − 1 and T − 2 as the candidate threshold gives them (the candidate floor and that
    /// minus one), and whether the counters can reach T at all; for the events in C2 and D.
    pub floor: Signal<In, Bits<CB>>,
    pub floor_minus_1: Signal<In, Bits<CB>>,
    pub promotable: Signal<In, Bit>,
    /// D: every counter of its event is at least T − 1 (so its new minimum reaches T).
    pub candidate: Signal<Out, Bit>,
    /// D: its event increments table k.
    pub increment: Vec<Signal<Out, Bit>>,
    /// W: the words the event a clock past D writes, each − 1, and whether each is 0.
    pub w_word: Vec<Signal<Out, Bits<CB>>>,
    pub w_word_m: Vec<Signal<Out, Bits<CB>>>,
    pub w_zero: Vec<Signal<Out, Bit>>,
    /// W: that event's new minimum, finished from registers (every minimal counter has it).
    pub new_min_w: Signal<Out, Bits<CB>>,
    /// C2: X's operands.
    p0: Vec<DFF<Bits<CB>>>,
    pm: Vec<DFF<Bits<CB>>>,
    z: Vec<DFF<Bit>>,
    /// D: Y's rows (bit j of row k; bits of absent tables set), the increments of the event
    /// ahead of it as it saw them, its predicates c ≥ T − 1 and c ≥ max, its values.
    a: Vec<DFF<Bits<ROW>>>,
    b: Vec<DFF<Bits<ROW>>>,
    e: Vec<DFF<Bit>>,
    ge1: Vec<DFF<Bit>>,
    sat: Vec<DFF<Bit>>,
    c: Vec<DFF<Bits<CB>>>,
    cm: Vec<DFF<Bits<CB>>>,
    cz: Vec<DFF<Bit>>,
    /// W's registers.
    w_c: Vec<DFF<Bits<CB>>>,
    w_cm: Vec<DFF<Bits<CB>>>,
    w_z: Vec<DFF<Bit>>,
    min_r: Vec<DFF<Bit>>,
    inc_r: Vec<DFF<Bits<CB>>>,
    /// D: `candidate`, assigned once (an output written in every pass of a loop glitches
    /// under Icarus).
    cand: Signal<Local, Bit>,
    /// D: the ANDs of Y's rows, minimal, increment, as X sees it (`ex`) and as X' does (`s`).
    and_a: Vec<Signal<Local, Bit>>,
    and_b: Vec<Signal<Local, Bit>>,
    minimal: Vec<Signal<Local, Bit>>,
    inc: Vec<Signal<Local, Bit>>,
    ex: Vec<Signal<Local, Bit>>,
    s: Vec<Signal<Local, Bit>>,
    /// C2: X's next rows, row k at bits 16k … 16k + 15 (one gather for all rows: rust-hdl
    /// writes a loop index past the first as a Verilog variable).
    a_next: BitGather<{ ROW * ROW }>,
    b_next: BitGather<{ ROW * ROW }>,
    /// c + 1 of Y, saturating (its new minimum where it is minimal).
    sat_inc: Vec<Signal<Local, Bits<CB>>>,
    min_pick: Vec<Signal<Local, Bits<CB>>>,
    min_or: Vec<Signal<Local, Bits<CB>>>,
    min_all: Signal<Local, Bits<CB>>,
    cu: Constant<Bit>,
    saturates: Constant<Bit>,
    counter_max: Constant<Bits<CB>>,
    counter_max_minus_1: Constant<Bits<CB>>,
    one: Constant<Bits<CB>>,
    zero: Constant<Bits<CB>>,
}

impl<const CB: usize> CounterRelations<CB> {
    /// The relations of `rule.tables` counters updated by `rule`. Reset on promote is not
    /// expressed as relations (a promoted event's counters take a value no relation holds).
    pub fn new(rule: &UpdateRule) -> Self {
        let tables = rule.tables;
        assert!(
            (1..=ROW).contains(&tables),
            "1 to {ROW} tables, not {tables}"
        );
        assert!(
            !rule.reset_on_promote,
            "reset on promote has no relation form (the counters take reset_value)"
        );
        assert!(
            CB == 64 || rule.counter_max < 1u64 << CB,
            "counters fit their words"
        );
        CounterRelations {
            clock: Default::default(),
            reset: Default::default(),
            t0: vec_of(tables),
            t0m: vec_of(tables),
            t0z: vec_of(tables),
            c1_same2: vec_of(tables),
            c2_same1: vec_of(tables),
            miss: Default::default(),
            floor: Default::default(),
            floor_minus_1: Default::default(),
            promotable: Default::default(),
            candidate: Default::default(),
            increment: vec_of(tables),
            w_word: vec_of(tables),
            w_word_m: vec_of(tables),
            w_zero: vec_of(tables),
            new_min_w: Default::default(),
            p0: vec_of(tables),
            pm: vec_of(tables),
            z: vec_of(tables),
            a: vec_of(tables),
            b: vec_of(tables),
            e: vec_of(tables),
            ge1: vec_of(tables),
            sat: vec_of(tables),
            c: vec_of(tables),
            cm: vec_of(tables),
            cz: vec_of(tables),
            w_c: vec_of(tables),
            w_cm: vec_of(tables),
            w_z: vec_of(tables),
            min_r: vec_of(tables),
            inc_r: vec_of(tables),
            cand: Default::default(),
            and_a: vec_of(tables),
            and_b: vec_of(tables),
            minimal: vec_of(tables),
            inc: vec_of(tables),
            ex: vec_of(tables),
            s: vec_of(tables),
            a_next: Default::default(),
            b_next: Default::default(),
            sat_inc: vec_of(tables),
            min_pick: vec_of(tables),
            min_or: vec_of(tables + 1),
            min_all: Default::default(),
            cu: Constant::new(rule.conservative_update),
            saturates: Constant::new(rule.saturates),
            counter_max: Constant::new(rule.counter_max.into()),
            counter_max_minus_1: Constant::new(rule.counter_max.saturating_sub(1).into()),
            one: Constant::new(1.into()),
            zero: Constant::new(0.into()),
        }
    }
}

impl<const CB: usize> Logic for CounterRelations<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- D (Y): which counters are minimal and incremented, from registers and `miss`.
        self.cand.next = self.promotable.val();
        for k in 0..self.p0.len() {
            self.p0[k].clock.next = self.clock.val();
            self.pm[k].clock.next = self.clock.val();
            self.z[k].clock.next = self.clock.val();
            self.a[k].clock.next = self.clock.val();
            self.b[k].clock.next = self.clock.val();
            self.e[k].clock.next = self.clock.val();
            self.ge1[k].clock.next = self.clock.val();
            self.sat[k].clock.next = self.clock.val();
            self.c[k].clock.next = self.clock.val();
            self.cm[k].clock.next = self.clock.val();
            self.cz[k].clock.next = self.clock.val();
            self.w_c[k].clock.next = self.clock.val();
            self.w_cm[k].clock.next = self.clock.val();
            self.w_z[k].clock.next = self.clock.val();
            self.min_r[k].clock.next = self.clock.val();
            self.inc_r[k].clock.next = self.clock.val();
            self.and_a[k].next = self.a[k].q.val().all();
            self.and_b[k].next = self.b[k].q.val().all();
            self.minimal[k].next = self.and_a[k].val();
            if self.e[k].q.val() {
                self.minimal[k].next = self.and_b[k].val();
            }
            self.inc[k].next = self.miss.val() & !self.sat[k].q.val();
            if self.cu.val() {
                self.inc[k].next = self.miss.val() & !self.sat[k].q.val() & self.minimal[k].val();
            }
            self.increment[k].next = self.inc[k].val();
            self.ex[k].next = self.c2_same1[k].val() & self.inc[k].val();
            self.s[k].next = self.c1_same2[k].val() & self.inc[k].val();
            if !self.ge1[k].q.val() {
                self.cand.next = false;
            }
        }
        self.candidate.next = self.cand.val();
        // ---- C2 (X): its rows, with Y's increments as X sees them, for X's D.
        for i in 0..256 {
            self.a_next.bits[i].next = true;
            self.b_next.bits[i].next = true;
        }
        for k in 0..self.p0.len() {
            for j in 0..self.p0.len() {
                self.a_next.bits[k * 16 + j].next = self.p0[k].q.val() <= self.p0[j].q.val();
                if self.ex[j].val() {
                    self.a_next.bits[k * 16 + j].next =
                        self.z[k].q.val() | (self.pm[k].q.val() <= self.p0[j].q.val());
                }
                self.b_next.bits[k * 16 + j].next = self.p0[k].q.val() < self.p0[j].q.val();
                if self.ex[j].val() {
                    self.b_next.bits[k * 16 + j].next = true;
                    if !self.cu.val() {
                        self.b_next.bits[k * 16 + j].next =
                            self.p0[k].q.val() <= self.p0[j].q.val();
                    }
                }
            }
            self.a[k].d.next = self.a_next.word.val().get_bits::<16>(k * 16);
            self.b[k].d.next = self.b_next.word.val().get_bits::<16>(k * 16);
            self.e[k].d.next = self.ex[k].val();
            // X's predicates and value with Y's increment.
            self.ge1[k].d.next = self.p0[k].q.val() >= self.floor.val();
            self.sat[k].d.next =
                self.saturates.val() & (self.p0[k].q.val() >= self.counter_max.val());
            self.c[k].d.next = self.p0[k].q.val();
            self.cm[k].d.next = self.pm[k].q.val();
            self.cz[k].d.next = self.z[k].q.val();
            if self.ex[k].val() {
                self.ge1[k].d.next = self.p0[k].q.val() >= self.floor_minus_1.val();
                self.sat[k].d.next =
                    self.saturates.val() & (self.p0[k].q.val() >= self.counter_max_minus_1.val());
                self.c[k].d.next = self.p0[k].q.val() + self.one.val();
                self.cm[k].d.next = self.p0[k].q.val();
                self.cz[k].d.next = false;
            }
            // ---- C1 → C2 (X'): the early word, or Y's counter + 1 (the late mux).
            self.p0[k].d.next = self.t0[k].val();
            self.pm[k].d.next = self.t0m[k].val();
            self.z[k].d.next = self.t0z[k].val();
            if self.s[k].val() {
                self.p0[k].d.next = self.c[k].q.val() + self.one.val();
                self.pm[k].d.next = self.c[k].q.val();
                self.z[k].d.next = false;
            }
            // ---- D → W (Y): the word written, and its new minimum's parts.
            self.w_c[k].d.next = self.c[k].q.val();
            self.w_cm[k].d.next = self.cm[k].q.val();
            self.w_z[k].d.next = self.cz[k].q.val();
            if self.inc[k].val() {
                self.w_c[k].d.next = self.c[k].q.val() + self.one.val();
                self.w_cm[k].d.next = self.c[k].q.val();
                self.w_z[k].d.next = false;
            }
            self.sat_inc[k].next = self.c[k].q.val() + self.one.val();
            if self.sat[k].q.val() {
                self.sat_inc[k].next = self.c[k].q.val();
            }
            self.min_r[k].d.next = self.minimal[k].val();
            self.inc_r[k].d.next = self.sat_inc[k].val();
            self.w_word[k].next = self.w_c[k].q.val();
            self.w_word_m[k].next = self.w_cm[k].q.val();
            self.w_zero[k].next = self.w_z[k].q.val();
        }
        // ---- W: the new minimum, an AND-OR (every minimal counter holds it).
        self.min_or[0].next = self.zero.val();
        for k in 0..self.p0.len() {
            self.min_pick[k].next = self.zero.val();
            if self.min_r[k].q.val() {
                self.min_pick[k].next = self.inc_r[k].q.val();
            }
            self.min_or[k + 1].next = self.min_or[k].val() | self.min_pick[k].val();
            self.min_all.next = self.min_or[k + 1].val();
        }
        self.new_min_w.next = self.min_all.val();
        if self.reset.val() {
            for k in 0..self.p0.len() {
                self.e[k].d.next = false;
                self.sat[k].d.next = false;
            }
        }
    }
}
