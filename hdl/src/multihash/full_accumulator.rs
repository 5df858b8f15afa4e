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
//! - the end of an interval (`end_interval`, with its last event or, after a flush, none): entries with count >= T are the report;
//!   they are **snapshotted** into the report buffer in the same clock edge, and the live table is
//!   retained (**retaining**, P1: reported entries stay replaceable with count 0, others empty)
//!   or emptied (P0), so the next interval's events continue at once.
//!
//! Report stream: the snapshot is sent lowest entry first, one entry per clock while
//! `report_ready` is high (valid/ready), `report_last` on the last one. An interval with an
//! empty report sends one marker word: count 0 (never a real count, since T >= 1), a = b = 0,
//! last = 1. `report_busy` is high while a snapshot is still being sent; the top block then
//! refuses the last event of the next interval (see [`crate::multihash`]).

use super::accumulator::{accumulator, new_accumulator};
use super::primitives::{vec_of, Priority};
use super::threshold::CandidateThreshold;
use super::widths::Widths;
use crate::config::ProfilerConfig;
use rust_hdl::prelude::*;

accumulator! {
    pub struct FullyAssociativeAccumulator<const CB: usize> {
        lookup: {}
        event: {
            /// Stage 1: the `valid` event's tuple.
            pub key: Signal<In, Bits<128>>,
            /// Stage 1: the event's counters' new minimum, the count of an entry it is allocated.
            pub new_min: Signal<In, Bits<CB>>,
        }
        report: {
            pub report_a: Signal<Out, Bits<64>>,
            pub report_b: Signal<Out, Bits<64>>,
        }
        valid_bits: Vec<DFF<Bit>>,
        locked_bits: Vec<DFF<Bit>>,
        tag: Vec<DFF<Bits<128>>>,
        count: Vec<DFF<Bits<CB>>>,
        rep_pending: Vec<DFF<Bit>>,
        rep_marker: DFF<Bit>,
        rep_interval: DFF<Bits<32>>,
        rep_tag: Vec<DFF<Bits<128>>>,
        rep_count: Vec<DFF<Bits<CB>>>,
        /// Entries holding the event's tuple (at most one).
        hits: Priority,
        /// Empty entries: the lowest is allocated first.
        empty: Priority,
        /// Replaceable entries: the lowest is allocated when none is empty.
        repl: Priority,
        /// Entries that go into the report at the interval's end.
        reported: Priority,
        /// Snapshot entries still to be sent: the lowest goes next.
        pending: Priority,
        rc: Signal<Local, Bits<CB>>,
        /// Per entry: holds the event's tuple; replaceable; goes into the report.
        hit_e: Vec<Signal<Local, Bit>>,
        repl_e: Vec<Signal<Local, Bit>>,
        report_e: Vec<Signal<Local, Bit>>,
        alloc: Vec<Signal<Local, Bit>>,
        lock_hit: Vec<Signal<Local, Bit>>,
        ge: Vec<Signal<Local, Bit>>,
        n_valid: Vec<Signal<Local, Bit>>,
        n_tag: Vec<Signal<Local, Bits<128>>>,
        n_count: Vec<Signal<Local, Bits<CB>>>,
        /// T of the interval being decided (and of the report snapshot taken at its end).
        candidate_threshold: CandidateThreshold<CB>,
        counter_max: Constant<Bits<CB>>,
        retaining: Constant<Bit>,
        one_c: Constant<Bits<CB>>,
        zero_c: Constant<Bits<CB>>,
    }
}

impl<const CB: usize> FullyAssociativeAccumulator<CB> {
    /// The accumulator of `cfg`, its counts saturating as the widths `w` of its hardware say.
    pub fn for_config(cfg: &ProfilerConfig, w: &Widths) -> Self {
        Self::new(
            cfg.accumulator.entries,
            w.count_max(cfg),
            cfg.retaining,
            cfg.fixed_threshold(),
        )
    }

    /// `entries` entries; counts saturate at `counter_max` (below 2^CB); `fixed_threshold`: T
    /// for good, else taken from the `threshold` input ([`CandidateThreshold`]).
    pub fn new(
        entries: usize,
        counter_max: u64,
        retaining: bool,
        fixed_threshold: Option<u64>,
    ) -> Self {
        assert!(entries >= 1 && (CB == 64 || counter_max < 1 << CB));
        new_accumulator!(FullyAssociativeAccumulator {
            key: Default::default(),
            new_min: Default::default(),
            report_a: Default::default(),
            report_b: Default::default(),
            valid_bits: vec_of(entries),
            locked_bits: vec_of(entries),
            tag: vec_of(entries),
            count: vec_of(entries),
            rep_pending: vec_of(entries),
            rep_marker: Default::default(),
            rep_interval: Default::default(),
            rep_tag: vec_of(entries),
            rep_count: vec_of(entries),
            hits: Priority::new(entries),
            empty: Priority::new(entries),
            repl: Priority::new(entries),
            reported: Priority::new(entries),
            pending: Priority::new(entries),
            rc: Default::default(),
            hit_e: vec_of(entries),
            repl_e: vec_of(entries),
            report_e: vec_of(entries),
            alloc: vec_of(entries),
            lock_hit: vec_of(entries),
            ge: vec_of(entries),
            n_valid: vec_of(entries),
            n_tag: vec_of(entries),
            n_count: vec_of(entries),
            candidate_threshold: CandidateThreshold::new(counter_max, 0, fixed_threshold),
            counter_max: Constant::new(counter_max.into()),
            retaining: Constant::new(retaining),
            one_c: Constant::new(1.into()),
            zero_c: Constant::new(0.into()),
        })
    }
}

impl<const CB: usize> Logic for FullyAssociativeAccumulator<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rep_marker, rep_interval);
        self.candidate_threshold.clock.next = self.clock.val();
        self.candidate_threshold.load.next = self.reset.val() | self.end_interval.val();
        self.candidate_threshold.value.next = self.threshold.val();
        // Lookup; allocation choice: lowest empty entry, else lowest replaceable one.
        for i in 0..self.tag.len() {
            self.valid_bits[i].clock.next = self.clock.val();
            self.locked_bits[i].clock.next = self.clock.val();
            self.tag[i].clock.next = self.clock.val();
            self.count[i].clock.next = self.clock.val();
            self.rep_pending[i].clock.next = self.clock.val();
            self.rep_tag[i].clock.next = self.clock.val();
            self.rep_count[i].clock.next = self.clock.val();
            self.hit_e[i].next =
                self.valid_bits[i].q.val() & (self.tag[i].q.val() == self.key.val());
            self.repl_e[i].next = self.valid_bits[i].q.val() & !self.locked_bits[i].q.val();
            self.hits.bits[i].next = self.hit_e[i].val();
            self.empty.bits[i].next = !self.valid_bits[i].q.val();
            self.repl.bits[i].next = self.repl_e[i].val();
        }
        self.hit.next = self.valid.val() & self.hits.any.val();
        self.promoted.next = self.valid.val()
            & !self.hits.any.val()
            & self.candidate.val()
            & (self.empty.any.val() | self.repl.any.val());
        // Next state of every entry.
        for i in 0..self.tag.len() {
            self.alloc[i].next = self.promoted.val()
                & ((self.empty.any.val() & self.empty.first[i].val())
                    | (!self.empty.any.val() & self.repl.first[i].val()));
            self.rep_tag[i].d.next = self.rep_tag[i].q.val();
            self.rep_count[i].d.next = self.rep_count[i].q.val();
            self.rep_pending[i].d.next = self.rep_pending[i].q.val();
            self.n_tag[i].next = self.tag[i].q.val();
            self.n_count[i].next = self.count[i].q.val();
            if self.valid.val()
                & self.hit_e[i].val()
                & (self.count[i].q.val() < self.counter_max.val())
            {
                self.n_count[i].next = self.count[i].q.val() + self.one_c.val();
            }
            if self.alloc[i].val() {
                self.n_tag[i].next = self.key.val();
                self.n_count[i].next = self.new_min.val();
            }
            self.ge[i].next = self.n_count[i].val() >= self.candidate_threshold.t.val();
            self.tag[i].d.next = self.n_tag[i].val();
            self.count[i].d.next = self.n_count[i].val();
            self.lock_hit[i].next =
                self.valid.val() & self.hit_e[i].val() & self.repl_e[i].val() & self.ge[i].val();
            self.n_valid[i].next = self.valid_bits[i].q.val() | self.alloc[i].val();
            self.report_e[i].next = self.n_valid[i].val() & self.ge[i].val();
            self.reported.bits[i].next = self.report_e[i].val();
            self.valid_bits[i].d.next = self.n_valid[i].val();
            self.locked_bits[i].d.next =
                self.locked_bits[i].q.val() | self.alloc[i].val() | self.lock_hit[i].val();
            self.pending.bits[i].next = self.rep_pending[i].q.val();
        }
        // Report stream out of the snapshot.
        self.report_valid.next = self.pending.any.val() | self.rep_marker.q.val();
        self.report_busy.next = self.pending.any.val() | self.rep_marker.q.val();
        self.report_last.next = self.rep_marker.q.val() | !self.pending.many.val();
        self.report_interval.next = self.rep_interval.q.val();
        self.report_a.next = 0.into();
        self.report_b.next = 0.into();
        self.rc.next = self.zero_c.val();
        for i in 0..self.tag.len() {
            if self.pending.first[i].val() {
                self.report_a.next = self.rep_tag[i].q.val().get_bits::<64>(0);
                self.report_b.next = self.rep_tag[i].q.val().get_bits::<64>(64);
                self.rc.next = self.rep_count[i].q.val();
            }
        }
        self.report_count.next = bit_cast::<32, CB>(self.rc.val());
        if self.rep_marker.q.val() {
            self.report_count.next = 0.into();
        }
        if self.report_ready.val() & (self.pending.any.val() | self.rep_marker.q.val()) {
            for i in 0..self.tag.len() {
                self.rep_pending[i].d.next =
                    self.rep_pending[i].q.val() & !self.pending.first[i].val();
            }
            self.rep_marker.d.next = false;
        }
        // Interval end: snapshot the report, then retain (P1) or empty (P0) the live table.
        if self.end_interval.val() {
            self.rep_marker.d.next = !self.reported.any.val();
            self.rep_interval.d.next = self.interval.val();
            for i in 0..self.tag.len() {
                self.rep_pending[i].d.next = self.report_e[i].val();
                self.rep_tag[i].d.next = self.n_tag[i].val();
                self.rep_count[i].d.next = self.n_count[i].val();
                self.count[i].d.next = self.zero_c.val();
                self.locked_bits[i].d.next = false;
                self.valid_bits[i].d.next = self.retaining.val() & self.report_e[i].val();
            }
        }
        if self.reset.val() {
            for i in 0..self.tag.len() {
                self.valid_bits[i].d.next = false;
                self.locked_bits[i].d.next = false;
                self.rep_pending[i].d.next = false;
            }
            self.rep_marker.d.next = false;
        }
    }
}
