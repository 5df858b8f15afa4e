//! `MultiHashProfiler`: the multi-hash profiler of Narayanasamy et al. (HPCA 2003) as one
//! synthesizable block, bit-exact with the model `hwprof_sim::model::multihash`
//! (docs/SPEC.md §4, §5).
//!
//! **Ports** (one clock, synchronous active-high `reset`):
//! - event input stream: `in_valid`, `in_ready`, `in_a`, `in_b` (64 bits; masked to
//!   `a_bits`/`b_bits` inside);
//! - report output stream: `out_valid`, `out_ready`, `out_interval` (32 bits, wraps),
//!   `out_a`, `out_b`, `out_count` (32 bits), `out_last` (last word of the interval's report).
//!   Each interval's report is its entries in accumulator-entry order; an empty report is one
//!   marker word with `out_count` = 0 and `out_last` = 1;
//! - settings: `interval_length`, `flush`, `flush_pending` ([`super::top`]).
//!
//! **Pipeline**: stage 0 accepts an event, hashes it ([`HashUnit`]) and issues the RAM reads;
//! stage 1 looks it up in the accumulator, updates counters or the entry, writes back. One event
//! per clock, sustained, for any input: counter read-after-write hazards are forwarded
//! ([`CounterTables`]), accumulator state is in registers read in the same stage that writes it.
//!
//! **When `in_ready` drops** (nothing is ever dropped; these are the only causes):
//! 1. during reset and for `entries` cycles after it (both counter banks are cleared);
//! 2. at the start of an interval whose counter bank is still being cleared — only when an
//!    interval is shorter than `entries` events (double banking, see [`CounterTables`]);
//! 3. **report back-pressure bound**: the last event of interval i+1 is refused while the report
//!    of interval i has not been fully sent (or, when L = 1, is still being snapshotted). So the report consumer may stall for up to
//!    L − 1 − (report length) cycles per interval (at one event per clock) without ever
//!    slowing the input; beyond that input waits for it;
//! 4. while a flush is pending (a flush's empty slot ends the interval in stage 1 as its last
//!    event would, under the same report bound).
//!
//! **Configuration → hardware**: sizes (tables, entries, accumulator entries, stored widths) are
//! chosen at construction; the width of the counting words is the const generic CB, a width class
//! ([`crate::multihash::design`]); L and T are the `interval_length` and `threshold` inputs;
//! everything else — saturation, C/R/P, hash kind, seed, key widths (keys are 64-bit ports masked
//! by constants) — is a constant of the hardware.
//! The accumulator must be `fully_associative`.

use super::counter_tables::CounterTables;
use super::full_accumulator::FullyAssociativeAccumulator;
use super::hash_unit::HashUnit;
use super::interval::IntervalControl;
use super::top::{impl_profiler_top, new_profiler_top, profiler_top};
use super::widths::widths_of_class;
use crate::config::ProfilerConfig;
use crate::hash::HashConstants;
use rust_hdl::prelude::*;

profiler_top! {
    pub struct MultiHashProfiler<const CB: usize> {
        hash: HashUnit,
        counters: CounterTables<CB>,
        acc: FullyAssociativeAccumulator<CB>,
        control: IntervalControl,
        s1_valid: DFF<Bit>,
        s1_key: DFF<Bits<128>>,
        /// An interval ends in stage 1: with its last event, or with a flush's empty slot.
        s1_end: DFF<Bit>,
        a: Signal<Local, Bits<64>>,
        b: Signal<Local, Bits<64>>,
        accept: Signal<Local, Bit>,
        a_mask: Constant<Bits<64>>,
        b_mask: Constant<Bits<64>>,
        key_shift: Constant<Bits<8>>,
        _drain_bound: u64,
    }
}

impl<const CB: usize> MultiHashProfiler<CB> {
    /// The hardware of `cfg`, whose width class must be CB (see [`crate::multihash::with_design`]).
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let w = widths_of_class::<CB>(cfg);
        new_profiler_top!(
            cfg,
            MultiHashProfiler {
                hash: HashUnit::new(&HashConstants::new(cfg)),
                counters: CounterTables::for_config(cfg, &w),
                acc: FullyAssociativeAccumulator::for_config(cfg, &w),
                control: Default::default(),
                s1_valid: Default::default(),
                s1_key: Default::default(),
                s1_end: Default::default(),
                a: Default::default(),
                b: Default::default(),
                accept: Default::default(),
                a_mask: Constant::new(cfg.a_mask().into()),
                b_mask: Constant::new(cfg.b_mask().into()),
                key_shift: Constant::new(64.into()),
                _drain_bound: (cfg.accumulator.entries + cfg.entries) as u64 + 64,
            }
        )
    }
}

impl<const CB: usize> Logic for MultiHashProfiler<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_key, s1_end);
        self.counters.clock.next = self.clock.val();
        self.acc.clock.next = self.clock.val();
        self.control.clock.next = self.clock.val();
        self.counters.reset.next = self.reset.val();
        self.acc.reset.next = self.reset.val();
        self.control.reset.next = self.reset.val();
        self.control.length.next = self.interval_length.val();
        self.control.threshold.next = self.threshold.val();
        self.counters.threshold.next = self.control.next_threshold.val();
        self.acc.threshold.next = self.control.next_threshold.val();
        self.control.flush.next = self.flush.val();
        self.flush_pending.next = self.control.flush_pending.val();
        // Stage 0: mask, hash, read the counters, accept.
        self.a.next = self.in_a.val() & self.a_mask.val();
        self.b.next = self.in_b.val() & self.b_mask.val();
        self.hash.a.next = self.a.val();
        self.hash.b.next = self.b.val();
        for k in 0..self.hash.index.len() {
            self.counters.read_index[k].next = self.hash.index[k].val();
        }
        self.counters.read_bank.next = self.control.bank.val();
        self.control.end_ok.next = !(self.acc.report_busy.val() | self.s1_end.q.val());
        self.in_ready.next = !self.reset.val()
            & !self.control.flush_pending.val()
            & !(self.control.last.val() & !self.control.end_ok.val())
            & !((self.control.bank.val() & self.counters.clearing1.val())
                | (!self.control.bank.val() & self.counters.clearing0.val()));
        self.accept.next = self.in_valid.val() & self.in_ready.val();
        self.control.accept.next = self.accept.val();
        self.s1_valid.d.next = self.accept.val();
        self.s1_key.d.next = (bit_cast::<128, 64>(self.b.val()) << self.key_shift.val())
            | bit_cast::<128, 64>(self.a.val());
        self.s1_end.d.next =
            (self.accept.val() & self.control.last.val()) | self.control.null_end.val();
        // Stage 1: accumulator, counter update, interval end.
        self.acc.valid.next = self.s1_valid.q.val();
        self.acc.key.next = self.s1_key.q.val();
        self.acc.new_min.next = self.counters.new_min.val();
        self.acc.candidate.next = self.counters.candidate.val();
        self.acc.end_interval.next = self.s1_end.q.val();
        self.acc.interval.next = self.control.interval.val();
        self.counters.valid.next = self.s1_valid.q.val();
        self.counters.update.next = self.s1_valid.q.val() & !self.acc.hit.val();
        self.counters.promoted.next = self.acc.promoted.val();
        self.counters.clear_start.next = self.s1_end.q.val();
        self.control.finish.next = self.s1_end.q.val();
        // Report stream.
        self.out_valid.next = self.acc.report_valid.val();
        self.acc.report_ready.next = self.out_ready.val();
        self.out_interval.next = self.acc.report_interval.val();
        self.out_a.next = self.acc.report_a.val();
        self.out_b.next = self.acc.report_b.val();
        self.out_count.next = self.acc.report_count.val();
        self.out_last.next = self.acc.report_last.val();
    }
}

impl_profiler_top!(
    MultiHashProfiler<const CB>,
    entry_order = true,
    stages_before_accept = false
);
