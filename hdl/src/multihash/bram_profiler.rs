//! `BramProfiler`: the multi-hash profiler with its accumulator in block RAM — set-associative
//! ([`SetAssociativeAccumulator`]), so the paper's 0.1 % configuration (1 000 entries) fits an
//! FPGA. Same ports and counter tables as [`MultiHashProfiler`], bit-exact
//! with the model `hwprof_sim::model::multihash` for `accumulator.organisation = "set_associative"`.
//!
//! Differences from the fully-associative top, all from the accumulator (see its docs):
//! - a report lists the interval's entries in the order the hardware retires their sets (lowest
//!   way first within a set), not in entry order; it always ends with a terminator word
//!   (count 0, `out_last`), which is the whole report when it is empty;
//! - reports leave during the *next* interval, and `in_ready` also drops while an event's set
//!   still has a report pending and the report staging buffer is busy, and before the last event
//!   of an interval until the previous report is out;
//! - three stages (hash, and the tag, meta and counter RAMs read; tag compare, and the metas and
//!   counters forwarded from the event two ahead and registered; decision and write-back, see
//!   [`SetAssociativeAccumulator`] and [`CounterTables`]'s registered read), and one clock without input after the last event of each
//!   interval (1 − 1/L events per clock at most).
//!
//! **Sizes.** Any number of tables and counters, any power-of-two number of sets, any ways
//! (chosen at construction); CB is the width class of the counting words ([`crate::multihash::design`]).
//! Counts never exceed L in an interval, so the stored widths only need to hold
//! min(2^counter_bits − 1, L) and min(2^count_bits − 1, L) (plus the entry's two state bits):
//! narrow words are what make `paper-10k-bram` fit the UP5K's 30 block RAMs.
//!
//! [`MultiHashProfiler`]: crate::multihash::profiler::MultiHashProfiler

use super::counter_tables::CounterTables;
use super::hash_unit::{HashUnit, ParityHash};
use super::interval::IntervalControl;
use super::primitives::ADDRESS_BITS;
use super::set_accumulator::{SetAssociativeAccumulator, TAG_BITS};
use super::top::{impl_profiler_top, new_profiler_top, profiler_top};
use super::widths::widths_of_class;
use crate::config::{ProfilerConfig, Replacement};
use crate::hash::{HashConstants, SetHash};
use rust_hdl::prelude::*;

profiler_top! {
    pub struct BramProfiler<const CB: usize> {
        hash: HashUnit,
        /// The accumulator set of the tuple (h3, [`SetHash`]).
        set_hash: ParityHash<ADDRESS_BITS>,
        counters: CounterTables<CB>,
        acc: SetAssociativeAccumulator<CB>,
        control: IntervalControl,
        /// Stages C and D (see [`SetAssociativeAccumulator`]): an event, the last of its interval.
        c_valid: DFF<Bit>,
        c_last: DFF<Bit>,
        d_valid: DFF<Bit>,
        d_last: DFF<Bit>,
        a: Signal<Local, Bits<64>>,
        b: Signal<Local, Bits<64>>,
        accept: Signal<Local, Bit>,
        tag: Signal<Local, Bits<TAG_BITS>>,
        a_mask: Constant<Bits<64>>,
        b_mask: Constant<Bits<64>>,
        /// a_bits: the tag is b << a_bits | a.
        b_shift: Constant<Bits<8>>,
        _drain_bound: u64,
    }
}

impl<const CB: usize> BramProfiler<CB> {
    /// The hardware of `cfg` (set associative), whose width class must be CB (see
    /// [`crate::multihash::with_design`]).
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let w = widths_of_class::<CB>(cfg);
        let acc = &cfg.accumulator;
        new_profiler_top!(BramProfiler {
            hash: HashUnit::new(&HashConstants::new(cfg)),
            set_hash: ParityHash::new(&SetHash::new(cfg).q),
            // Read in stage 0 with the tags, registered through C: D starts from flip-flops.
            counters: CounterTables::registered_read(cfg, &w),
            acc: SetAssociativeAccumulator::new(
                acc.sets(),
                acc.ways,
                (cfg.a_bits + cfg.b_bits) as usize,
                w.count,
                cfg.threshold,
                w.count_max(cfg),
                w.count_saturates(cfg),
                cfg.retaining,
                acc.replacement == Replacement::Smallest,
            ),
            control: IntervalControl::new(cfg.interval),
            c_valid: Default::default(),
            c_last: Default::default(),
            d_valid: Default::default(),
            d_last: Default::default(),
            a: Default::default(),
            b: Default::default(),
            accept: Default::default(),
            tag: Default::default(),
            a_mask: Constant::new(cfg.a_mask().into()),
            b_mask: Constant::new(cfg.b_mask().into()),
            b_shift: Constant::new(u64::from(cfg.a_bits).into()),
            _drain_bound: (acc.sets() * (acc.ways + 2) + cfg.entries) as u64 + 64,
        })
    }
}

impl<const CB: usize> Logic for BramProfiler<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, c_valid, c_last, d_valid, d_last);
        self.counters.clock.next = self.clock.val();
        self.acc.clock.next = self.clock.val();
        self.control.clock.next = self.clock.val();
        self.counters.reset.next = self.reset.val();
        self.acc.reset.next = self.reset.val();
        self.control.reset.next = self.reset.val();
        // Stage 0: mask, hash (counter indices and accumulator set), read, accept.
        self.a.next = self.in_a.val() & self.a_mask.val();
        self.b.next = self.in_b.val() & self.b_mask.val();
        self.hash.a.next = self.a.val();
        self.hash.b.next = self.b.val();
        self.set_hash.a.next = self.a.val();
        self.set_hash.b.next = self.b.val();
        for k in 0..self.hash.index.len() {
            self.counters.read_index[k].next = self.hash.index[k].val();
        }
        self.counters.read_bank.next = self.control.bank.val();
        self.acc.lookup_set.next = self.set_hash.index.val();
        // Nothing enters while an interval's last event is in stage C: the accumulator checks an
        // event's set against the reports pending only after that event's rollover.
        self.in_ready.next = !self.reset.val()
            & self.acc.lookup_ok.val()
            & !(self.c_valid.q.val() & self.c_last.q.val())
            & !(self.control.last.val()
                & (self.acc.report_busy.val() | (self.d_valid.q.val() & self.d_last.q.val())))
            & !((self.control.bank.val() & self.counters.clearing1.val())
                | (!self.control.bank.val() & self.counters.clearing0.val()));
        self.accept.next = self.in_valid.val() & self.in_ready.val();
        self.acc.lookup.next = self.accept.val();
        self.control.accept.next = self.accept.val();
        self.c_valid.d.next = self.accept.val();
        self.c_last.d.next = self.control.last.val();
        self.d_valid.d.next = self.c_valid.q.val();
        self.d_last.d.next = self.c_last.q.val();
        self.tag.next = (bit_cast::<TAG_BITS, 64>(self.b.val()) << self.b_shift.val())
            | bit_cast::<TAG_BITS, 64>(self.a.val());
        self.acc.lookup_tag.next = self.tag.val();
        // Stage D: accumulator, counter update, interval end.
        self.acc.valid.next = self.d_valid.q.val();
        self.acc.new_min.next = self.counters.new_min.val();
        self.acc.candidate.next = self.counters.candidate.val();
        self.acc.end_interval.next = self.d_last.q.val();
        self.acc.interval.next = self.control.interval.val();
        self.counters.update.next = self.d_valid.q.val() & !self.acc.hit.val();
        self.counters.promoted.next = self.acc.promoted.val();
        self.counters.clear_start.next = self.d_valid.q.val() & self.d_last.q.val();
        self.control.finish.next = self.d_valid.q.val() & self.d_last.q.val();
        // Report stream: the tag unpacked into a and b.
        self.out_valid.next = self.acc.report_valid.val();
        self.acc.report_ready.next = self.out_ready.val();
        self.out_interval.next = self.acc.report_interval.val();
        self.out_a.next = bit_cast::<64, TAG_BITS>(self.acc.report_tag.val()) & self.a_mask.val();
        self.out_b.next = bit_cast::<64, TAG_BITS>(self.acc.report_tag.val() >> self.b_shift.val())
            & self.b_mask.val();
        self.out_count.next = self.acc.report_count.val();
        self.out_last.next = self.acc.report_last.val();
    }
}

impl_profiler_top!(BramProfiler<const CB>, entry_order = false);
