//! The fully-associative accumulator of the multi-hash profiler (docs/SPEC.md §4.2 steps 1–3, §5.3)
//! and its interval report, for one event per clock.
//!
//! Each of the A entries has a tag (the tuple: a in bits 0..64, b in 64..128), a count and a
//! state: empty (`valid` = 0), **locked** (`valid`, `locked`) or **replaceable** (`valid`, not
//! `locked`: retained from the previous interval).
//!
//! Stage 1 of an event (all in one cycle, state in registers, so the next event sees it at once —
//! no allocation hazard):
//! - hit (**shielding**): count += 1, saturating; a replaceable entry reaching T becomes locked;
//!   `hit` tells the counter tables not to write.
//! - miss with `new_min` >= T: allocate the lowest-index empty entry, else the lowest-index
//!   replaceable one (one-hot pick x & (~x + 1)); the entry becomes locked with tag and count
//!   `new_min`; `promoted` reports success (it drives reset-on-promote).
//! - the last event of an interval (`end_interval`): entries with count >= T are the report;
//!   they are **snapshotted** into the report buffer in the same clock edge, and the live table is
//!   retained (**retaining**, P1: reported entries stay replaceable with count 0, others empty)
//!   or emptied (P0), so the next interval's events continue at once.
//!
//! Report stream: the snapshot is sent lowest entry first, one entry per clock while
//! `report_ready` is high (valid/ready), `report_last` on the last one. An interval with an
//! empty report sends one marker word: count 0 (never a real count, since T >= 1), a = b = 0,
//! last = 1. `report_busy` is high while a snapshot is still being sent; the top block then
//! refuses the last event of the next interval (see [`crate::multihash`]).

use crate::util::BitGather;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct FullyAssociativeAccumulator<const A: usize, const CB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties every entry and the report buffer.
    pub reset: Signal<In, Bit>,
    /// Stage 1 event: present, its tuple, its counters' new minimum.
    pub valid: Signal<In, Bit>,
    pub key: Signal<In, Bits<128>>,
    pub new_min: Signal<In, Bits<CB>>,
    /// `new_min` >= T (the counters compute it off the minimum's carry chains).
    pub candidate: Signal<In, Bit>,
    /// The event is the last of its interval, numbered `interval`.
    pub end_interval: Signal<In, Bit>,
    pub interval: Signal<In, Bits<32>>,
    pub hit: Signal<Out, Bit>,
    pub promoted: Signal<Out, Bit>,
    pub report_valid: Signal<Out, Bit>,
    pub report_ready: Signal<In, Bit>,
    pub report_interval: Signal<Out, Bits<32>>,
    pub report_a: Signal<Out, Bits<64>>,
    pub report_b: Signal<Out, Bits<64>>,
    pub report_count: Signal<Out, Bits<32>>,
    pub report_last: Signal<Out, Bit>,
    pub report_busy: Signal<Out, Bit>,
    valid_bits: DFF<Bits<A>>,
    locked_bits: DFF<Bits<A>>,
    tag: [DFF<Bits<128>>; A],
    count: [DFF<Bits<CB>>; A],
    rep_pending: DFF<Bits<A>>,
    rep_marker: DFF<Bit>,
    rep_interval: DFF<Bits<32>>,
    rep_tag: [DFF<Bits<128>>; A],
    rep_count: [DFF<Bits<CB>>; A],
    hit_gather: BitGather<A>,
    ge_gather: BitGather<A>,
    hit_bits: Signal<Local, Bits<A>>,
    rc: Signal<Local, Bits<CB>>,
    empty: Signal<Local, Bits<A>>,
    repl: Signal<Local, Bits<A>>,
    choose: Signal<Local, Bits<A>>,
    alloc: Signal<Local, Bits<A>>,
    lock_hit: Signal<Local, Bits<A>>,
    ge: Signal<Local, Bits<A>>,
    n_valid: Signal<Local, Bits<A>>,
    n_locked: Signal<Local, Bits<A>>,
    report_bits: Signal<Local, Bits<A>>,
    cur: Signal<Local, Bits<A>>,
    n_tag: [Signal<Local, Bits<128>>; A],
    n_count: [Signal<Local, Bits<CB>>; A],
    threshold: Constant<Bits<CB>>,
    counter_max: Constant<Bits<CB>>,
    retaining: Constant<Bit>,
    one: Constant<Bits<A>>,
    none: Constant<Bits<A>>,
    one_c: Constant<Bits<CB>>,
    zero_c: Constant<Bits<CB>>,
}

impl<const A: usize, const CB: usize> FullyAssociativeAccumulator<A, CB> {
    pub fn new(threshold: u64, counter_max: u64, retaining: bool) -> Self {
        FullyAssociativeAccumulator {
            clock: Default::default(),
            reset: Default::default(),
            valid: Default::default(),
            key: Default::default(),
            new_min: Default::default(),
            candidate: Default::default(),
            end_interval: Default::default(),
            interval: Default::default(),
            hit: Default::default(),
            promoted: Default::default(),
            report_valid: Default::default(),
            report_ready: Default::default(),
            report_interval: Default::default(),
            report_a: Default::default(),
            report_b: Default::default(),
            report_count: Default::default(),
            report_last: Default::default(),
            report_busy: Default::default(),
            valid_bits: Default::default(),
            locked_bits: Default::default(),
            tag: std::array::from_fn(|_| Default::default()),
            count: std::array::from_fn(|_| Default::default()),
            rep_pending: Default::default(),
            rep_marker: Default::default(),
            rep_interval: Default::default(),
            rep_tag: std::array::from_fn(|_| Default::default()),
            rep_count: std::array::from_fn(|_| Default::default()),
            hit_gather: Default::default(),
            ge_gather: Default::default(),
            hit_bits: Default::default(),
            rc: Default::default(),
            empty: Default::default(),
            repl: Default::default(),
            choose: Default::default(),
            alloc: Default::default(),
            lock_hit: Default::default(),
            ge: Default::default(),
            n_valid: Default::default(),
            n_locked: Default::default(),
            report_bits: Default::default(),
            cur: Default::default(),
            n_tag: std::array::from_fn(|_| Default::default()),
            n_count: std::array::from_fn(|_| Default::default()),
            threshold: Constant::new(threshold.into()),
            counter_max: Constant::new(counter_max.into()),
            retaining: Constant::new(retaining),
            one: Constant::new(1.into()),
            none: Constant::new(0.into()),
            one_c: Constant::new(1.into()),
            zero_c: Constant::new(0.into()),
        }
    }
}

impl<const A: usize, const CB: usize> Logic for FullyAssociativeAccumulator<A, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            valid_bits,
            locked_bits,
            rep_pending,
            rep_marker,
            rep_interval
        );
        // Lookup.
        for i in 0..A {
            self.hit_gather.bits[i].next =
                self.valid_bits.q.val().get_bit(i) & (self.tag[i].q.val() == self.key.val());
        }
        self.hit_bits.next = self.hit_gather.word.val();
        self.hit.next = self.valid.val() & self.hit_bits.val().any();
        // Allocation choice: lowest empty entry, else lowest replaceable one.
        self.empty.next = !self.valid_bits.q.val();
        self.repl.next = self.valid_bits.q.val() & !self.locked_bits.q.val();
        if self.empty.val().any() {
            self.choose.next = self.empty.val() & (!self.empty.val() + self.one.val());
        } else {
            self.choose.next = self.repl.val() & (!self.repl.val() + self.one.val());
        }
        self.promoted.next = self.valid.val()
            & !self.hit_bits.val().any()
            & self.candidate.val()
            & (self.empty.val() | self.repl.val()).any();
        self.alloc.next = self.none.val();
        if self.promoted.val() {
            self.alloc.next = self.choose.val();
        }
        // Next state of every entry.
        for i in 0..A {
            self.tag[i].clock.next = self.clock.val();
            self.count[i].clock.next = self.clock.val();
            self.rep_tag[i].clock.next = self.clock.val();
            self.rep_count[i].clock.next = self.clock.val();
            self.rep_tag[i].d.next = self.rep_tag[i].q.val();
            self.rep_count[i].d.next = self.rep_count[i].q.val();
            self.n_tag[i].next = self.tag[i].q.val();
            self.n_count[i].next = self.count[i].q.val();
            if self.valid.val()
                & self.hit_bits.val().get_bit(i)
                & (self.count[i].q.val() < self.counter_max.val())
            {
                self.n_count[i].next = self.count[i].q.val() + self.one_c.val();
            }
            if self.alloc.val().get_bit(i) {
                self.n_tag[i].next = self.key.val();
                self.n_count[i].next = self.new_min.val();
            }
            self.ge_gather.bits[i].next = self.n_count[i].val() >= self.threshold.val();
            self.tag[i].d.next = self.n_tag[i].val();
            self.count[i].d.next = self.n_count[i].val();
        }
        self.ge.next = self.ge_gather.word.val();
        self.lock_hit.next = self.none.val();
        if self.valid.val() {
            self.lock_hit.next = self.hit_bits.val() & self.repl.val() & self.ge.val();
        }
        self.n_valid.next = self.valid_bits.q.val() | self.alloc.val();
        self.n_locked.next = self.locked_bits.q.val() | self.alloc.val() | self.lock_hit.val();
        self.report_bits.next = self.n_valid.val() & self.ge.val();
        self.valid_bits.d.next = self.n_valid.val();
        self.locked_bits.d.next = self.n_locked.val();
        // Report stream out of the snapshot.
        self.cur.next = self.rep_pending.q.val() & (!self.rep_pending.q.val() + self.one.val());
        self.report_valid.next = self.rep_pending.q.val().any() | self.rep_marker.q.val();
        self.report_busy.next = self.rep_pending.q.val().any() | self.rep_marker.q.val();
        self.report_last.next = self.rep_marker.q.val()
            | !(self.rep_pending.q.val() & (self.rep_pending.q.val() - self.one.val())).any();
        self.report_interval.next = self.rep_interval.q.val();
        self.report_a.next = 0.into();
        self.report_b.next = 0.into();
        self.rc.next = self.zero_c.val();
        for i in 0..A {
            if self.cur.val().get_bit(i) {
                self.report_a.next = self.rep_tag[i].q.val().get_bits::<64>(0);
                self.report_b.next = self.rep_tag[i].q.val().get_bits::<64>(64);
                self.rc.next = self.rep_count[i].q.val();
            }
        }
        self.report_count.next = bit_cast::<32, CB>(self.rc.val());
        if self.rep_marker.q.val() {
            self.report_count.next = 0.into();
        }
        if self.report_ready.val() & (self.rep_pending.q.val().any() | self.rep_marker.q.val()) {
            self.rep_pending.d.next = self.rep_pending.q.val() & !self.cur.val();
            self.rep_marker.d.next = false;
        }
        // Interval end: snapshot the report, then retain (P1) or empty (P0) the live table.
        if self.valid.val() & self.end_interval.val() {
            self.rep_pending.d.next = self.report_bits.val();
            self.rep_marker.d.next = !self.report_bits.val().any();
            self.rep_interval.d.next = self.interval.val();
            for i in 0..A {
                self.rep_tag[i].d.next = self.n_tag[i].val();
                self.rep_count[i].d.next = self.n_count[i].val();
                self.count[i].d.next = self.zero_c.val();
            }
            self.locked_bits.d.next = self.none.val();
            if self.retaining.val() {
                self.valid_bits.d.next = self.report_bits.val();
            } else {
                self.valid_bits.d.next = self.none.val();
            }
        }
        if self.reset.val() {
            self.valid_bits.d.next = self.none.val();
            self.locked_bits.d.next = self.none.val();
            self.rep_pending.d.next = self.none.val();
            self.rep_marker.d.next = false;
        }
    }
}
