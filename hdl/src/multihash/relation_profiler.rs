//! `RelationProfiler`: the multi-hash profiler with its set-associative accumulator in block RAM,
//! rebuilt around a loop of bits (docs/notes/bits-in-d.md): [`RelationCounterTables`] and
//! [`RelationSetAccumulator`], whose decisions in D read only registers and forwarded order
//! relations. Same ports as [`BramProfiler`], bit-exact with the model `hwprof_sim::model::multihash`
//! for `accumulator.organisation = "set_associative"` with first replacement and without reset on
//! promote (neither has a relation form yet).
//!
//! **Stages.** [F] (with `hash_block_ram` the tabulation byte tables are read, with `hash_stage`
//! the event waits for the hash in registers), H (the masked tuple, its counter indices and its
//! accumulator set, registered), then R, M, C1, C2, D, W of the counters and the accumulator
//! together: R reads every RAM at the offered event's addresses (the refused slot's, else H's:
//! flip-flops, accepted or not) and accepts or refuses it, M is the RAMs' output register, D
//! decides and W writes.
//!
//! **Accept.** R refuses an event while its set's report is pending and the staging buffer is
//! busy, while an interval's last event is in M … W (the drain: the accumulator rolls its epochs
//! and both blocks take the next T after that W, 1 − 5/L events per clock at most), when it is an
//! interval's last and the previous report is still out, or while its counter bank is clearing.
//! A refused event moves into the **refused slot**, offered before H until it is accepted, so the
//! accept decision loads one flip-flop (the slot's valid) and H loads on flip-flops alone;
//! `in_ready` is that the first stage loads. A report leaves during the next interval, as
//! [`BramProfiler`]'s, lowest way first within a set, the terminator last.
//!
//! [`BramProfiler`]: super::bram_profiler::BramProfiler

use super::counter_tables::UpdateRule;
use super::hash_unit::{HashUnit, ParityHash, TabulationRam};
use super::interval::IntervalControl;
use super::primitives::vec_of;
use super::relation_accumulator::RelationSetAccumulator;
use super::relation_tables::RelationCounterTables;
use super::set_accumulator::TAG_BITS;
use super::top::{impl_profiler_top, new_profiler_top, profiler_top};
use super::widths::widths_of_class;
use crate::block_ram::ADDRESS_BITS;
use crate::config::{ProfilerConfig, Replacement};
use crate::hash::{HashConstants, SetHash};
use rust_hdl::prelude::*;

profiler_top! {
    pub struct RelationProfiler<const CB: usize> {
        hash: HashUnit,
        /// With `hash_block_ram`: the tabulation byte tables in block RAM, read when stage F
        /// loads, their words in the hash stage's output registers when H loads.
        tab: TabulationRam,
        /// The accumulator set of the tuple (h3, [`SetHash`]).
        set_hash: ParityHash<ADDRESS_BITS>,
        counters: RelationCounterTables<CB>,
        acc: RelationSetAccumulator<CB>,
        control: IntervalControl,
        /// Stage F (`f_stage`: for `hash_block_ram`, or `hash_stage`): the masked event.
        ram_hash: Constant<Bit>,
        f_stage: Constant<Bit>,
        f_valid: DFF<Bit>,
        f_a: DFF<Bits<64>>,
        f_b: DFF<Bits<64>>,
        /// Stage H: an event, masked, with its counter indices and accumulator set.
        h_valid: DFF<Bit>,
        h_a: DFF<Bits<64>>,
        h_b: DFF<Bits<64>>,
        h_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
        h_set: DFF<Bits<ADDRESS_BITS>>,
        /// The refused slot: H's event that R refused, offered before H's until accepted.
        r_valid: DFF<Bit>,
        r_tag: DFF<Bits<TAG_BITS>>,
        r_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
        r_set: DFF<Bits<ADDRESS_BITS>>,
        /// An interval's end (its last event, or a flush's empty slot) in M, C1, C2, D, W.
        m_end: DFF<Bit>,
        c1_end: DFF<Bit>,
        c2_end: DFF<Bit>,
        d_end: DFF<Bit>,
        w_end: DFF<Bit>,
        /// The accumulator's `report_busy` a clock ago: the offer waits on it, from a flip-flop.
        busy_r: DFF<Bit>,
        /// R holds an event (the refused slot's, else H's); it is offered (every condition but
        /// the accumulator's room, from flip-flops) and accepted.
        x_valid: Signal<Local, Bit>,
        offer: Signal<Local, Bit>,
        accept: Signal<Local, Bit>,
        /// H loads: the refused slot or H is empty (its event moves on either way).
        h_take: Signal<Local, Bit>,
        /// The first stage (F or H) takes a new event.
        entry_free: Signal<Local, Bit>,
        in_fire: Signal<Local, Bit>,
        /// The event entering H: the input's (or F's), its indices (in logic, or from `tab`).
        e_valid: Signal<Local, Bit>,
        e_a: Signal<Local, Bits<64>>,
        e_b: Signal<Local, Bits<64>>,
        h_idx: Vec<Signal<Local, Bits<ADDRESS_BITS>>>,
        a: Signal<Local, Bits<64>>,
        b: Signal<Local, Bits<64>>,
        /// The input interval's counter bank is still clearing.
        clearing: Signal<Local, Bit>,
        h_tag: Signal<Local, Bits<TAG_BITS>>,
        /// The offered event's set and tuple.
        o_set: Signal<Local, Bits<ADDRESS_BITS>>,
        o_tag: Signal<Local, Bits<TAG_BITS>>,
        a_mask: Constant<Bits<64>>,
        b_mask: Constant<Bits<64>>,
        /// a_bits: the tag is b << a_bits | a.
        b_shift: Constant<Bits<8>>,
        _drain_bound: u64,
    }
}

impl<const CB: usize> RelationProfiler<CB> {
    /// The hardware of `cfg` (set associative, first replacement, no reset on promote), whose
    /// width class must be CB (see [`crate::multihash::with_design`]).
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let w = widths_of_class::<CB>(cfg);
        let acc = &cfg.accumulator;
        assert!(
            acc.replacement == Replacement::First,
            "the relation accumulator takes the lowest replaceable way (first replacement)"
        );
        new_profiler_top!(
            cfg,
            RelationProfiler {
                hash: HashUnit::new(&HashConstants::new(cfg)),
                tab: TabulationRam::new(&HashConstants::new(cfg), cfg.hash_block_ram),
                set_hash: ParityHash::new(&SetHash::new(cfg).q),
                counters: RelationCounterTables::new(
                    cfg.entries,
                    w.counter,
                    &UpdateRule::of(cfg, &w)
                ),
                acc: RelationSetAccumulator::new(
                    acc.sets(),
                    acc.ways,
                    (cfg.a_bits + cfg.b_bits) as usize,
                    w.count,
                    w.count_max(cfg),
                    cfg.retaining,
                    cfg.fixed_threshold(),
                ),
                control: Default::default(),
                ram_hash: Constant::new(cfg.hash_block_ram),
                f_stage: Constant::new(cfg.hash_block_ram | cfg.hash_stage),
                f_valid: Default::default(),
                f_a: Default::default(),
                f_b: Default::default(),
                h_valid: Default::default(),
                h_a: Default::default(),
                h_b: Default::default(),
                h_index: vec_of(cfg.tables),
                h_set: Default::default(),
                r_valid: Default::default(),
                r_tag: Default::default(),
                r_index: vec_of(cfg.tables),
                r_set: Default::default(),
                m_end: Default::default(),
                c1_end: Default::default(),
                c2_end: Default::default(),
                d_end: Default::default(),
                w_end: Default::default(),
                busy_r: Default::default(),
                x_valid: Default::default(),
                offer: Default::default(),
                accept: Default::default(),
                h_take: Default::default(),
                entry_free: Default::default(),
                in_fire: Default::default(),
                e_valid: Default::default(),
                e_a: Default::default(),
                e_b: Default::default(),
                h_idx: vec_of(cfg.tables),
                a: Default::default(),
                b: Default::default(),
                clearing: Default::default(),
                h_tag: Default::default(),
                o_set: Default::default(),
                o_tag: Default::default(),
                a_mask: Constant::new(cfg.a_mask().into()),
                b_mask: Constant::new(cfg.b_mask().into()),
                b_shift: Constant::new(u64::from(cfg.a_bits).into()),
                _drain_bound: (acc.sets() * (acc.ways + 2) + cfg.entries) as u64 + 66,
            }
        )
    }
}

impl<const CB: usize> Logic for RelationProfiler<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, f_valid, f_a, f_b, h_valid, h_a, h_b, h_set, r_valid, r_tag, r_set, m_end,
            c1_end, c2_end, d_end, w_end, busy_r
        );
        self.tab.clock.next = self.clock.val();
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
        for k in 0..self.h_index.len() {
            self.h_index[k].clock.next = self.clock.val();
            self.h_index[k].d.next = self.h_index[k].q.val();
            self.r_index[k].clock.next = self.clock.val();
            self.r_index[k].d.next = self.r_index[k].q.val();
            self.h_idx[k].next = self.h_index[k].q.val();
            if self.ram_hash.val() {
                self.h_idx[k].next = self.tab.index[k].val();
            }
        }
        self.clearing.next = (self.control.bank.val() & self.counters.clearing1.val())
            | (!self.control.bank.val() & self.counters.clearing0.val());
        // ---- R: the refused slot's event, else H's, addresses every RAM; it is offered when
        // every condition but the accumulator's room holds (from flip-flops), and accepted if
        // the accumulator has room and the report it waits for is out.
        self.h_tag.next = (bit_cast::<TAG_BITS, 64>(self.h_b.q.val()) << self.b_shift.val())
            | bit_cast::<TAG_BITS, 64>(self.h_a.q.val());
        self.x_valid.next = self.r_valid.q.val() | self.h_valid.q.val();
        self.o_set.next = self.h_set.q.val();
        self.o_tag.next = self.h_tag.val();
        for k in 0..self.h_index.len() {
            self.counters.r_index[k].next = self.h_idx[k].val();
            if self.r_valid.q.val() {
                self.counters.r_index[k].next = self.r_index[k].q.val();
            }
        }
        if self.r_valid.q.val() {
            self.o_set.next = self.r_set.q.val();
            self.o_tag.next = self.r_tag.q.val();
        }
        self.acc.lookup_set.next = self.o_set.val();
        self.acc.lookup_tag.next = self.o_tag.val();
        self.counters.r_bank.next = self.control.bank.val();
        self.offer.next = self.x_valid.val()
            & !self.reset.val()
            & !self.m_end.q.val()
            & !self.c1_end.q.val()
            & !self.c2_end.q.val()
            & !self.d_end.q.val()
            & !self.w_end.q.val()
            & !(self.control.last.val() & self.busy_r.q.val())
            & !self.clearing.val();
        self.busy_r.d.next = self.acc.report_busy.val();
        self.accept.next = self.offer.val()
            & self.acc.lookup_ok.val()
            & !(self.control.last.val() & self.acc.report_busy.val());
        self.acc.lookup_offer.next = self.offer.val();
        self.acc.lookup.next = self.accept.val();
        self.acc.lookup_hold.next = self.x_valid.val() & !self.accept.val();
        self.counters.r_valid.next = self.accept.val();
        self.control.accept.next = self.accept.val();
        self.m_end.d.next =
            (self.accept.val() & self.control.last.val()) | self.control.null_end.val();
        self.c1_end.d.next = self.m_end.q.val();
        self.c2_end.d.next = self.c1_end.q.val();
        self.d_end.d.next = self.c2_end.q.val();
        self.w_end.d.next = self.d_end.q.val();
        // A flush's empty slot waits for every event taken before it to be accepted, and for the
        // conditions of an interval's last event.
        self.control.end_ok.next = !(self.f_valid.q.val()
            | self.h_valid.q.val()
            | self.r_valid.q.val()
            | self.m_end.q.val()
            | self.c1_end.q.val()
            | self.c2_end.q.val()
            | self.d_end.q.val()
            | self.w_end.q.val()
            | self.busy_r.q.val()
            | self.acc.report_busy.val()
            | self.reset.val());
        // A refused event moves into (or stays in) the refused slot; H's event leaves whenever the
        // slot is empty (accepted, or into the slot), so H loads on flip-flops alone.
        self.r_valid.d.next = self.x_valid.val() & !self.accept.val();
        self.h_take.next = !(self.r_valid.q.val() & self.h_valid.q.val());
        if !self.r_valid.q.val() {
            self.r_tag.d.next = self.h_tag.val();
            self.r_set.d.next = self.h_set.q.val();
            for k in 0..self.h_index.len() {
                self.r_index[k].d.next = self.h_idx[k].val();
            }
        }
        // ---- F, H: mask, and hash (counter indices, accumulator set) in logic or from the byte
        // tables. `in_ready` is that the first stage loads, and the input interval's counter bank
        // is clean.
        self.entry_free.next = self.h_take.val();
        if self.f_stage.val() {
            self.entry_free.next = !self.f_valid.q.val() | self.h_take.val();
        }
        self.in_ready.next = self.entry_free.val()
            & !self.clearing.val()
            & !self.reset.val()
            & !self.control.flush_pending.val();
        self.in_fire.next = self.in_valid.val() & self.in_ready.val();
        self.a.next = self.in_a.val() & self.a_mask.val();
        self.b.next = self.in_b.val() & self.b_mask.val();
        self.e_valid.next = self.in_fire.val();
        self.e_a.next = self.a.val();
        self.e_b.next = self.b.val();
        if self.f_stage.val() {
            self.e_valid.next = self.f_valid.q.val();
            self.e_a.next = self.f_a.q.val();
            self.e_b.next = self.f_b.q.val();
        }
        self.hash.a.next = self.e_a.val();
        self.hash.b.next = self.e_b.val();
        self.set_hash.a.next = self.e_a.val();
        self.set_hash.b.next = self.e_b.val();
        self.tab.a.next = self.a.val();
        self.tab.b.next = self.b.val();
        self.tab.read.next = self.ram_hash.val() & self.entry_free.val();
        self.tab.load.next = self.ram_hash.val() & self.h_take.val();
        if self.entry_free.val() & self.f_stage.val() {
            self.f_valid.d.next = self.in_fire.val();
            self.f_a.d.next = self.a.val();
            self.f_b.d.next = self.b.val();
        }
        if self.h_take.val() {
            self.h_valid.d.next = self.e_valid.val();
            self.h_a.d.next = self.e_a.val();
            self.h_b.d.next = self.e_b.val();
            self.h_set.d.next = self.set_hash.index.val();
            for k in 0..self.h_index.len() {
                self.h_index[k].d.next = self.hash.index[k].val();
            }
        }
        if self.reset.val() {
            self.f_valid.d.next = false;
            self.h_valid.d.next = false;
            self.r_valid.d.next = false;
            self.m_end.d.next = false;
            self.c1_end.d.next = false;
            self.c2_end.d.next = false;
            self.d_end.d.next = false;
            self.w_end.d.next = false;
        }
        // ---- D and W: the decisions meet; the interval's end.
        self.counters.miss.next = self.acc.miss.val();
        self.acc.candidate.next = self.counters.candidate.val();
        self.acc.new_min_w.next = self.counters.new_min_w.val();
        self.counters.clear_start.next = self.d_end.q.val();
        self.acc.end_interval.next = self.w_end.q.val();
        self.acc.interval.next = self.control.interval.val();
        self.control.finish.next = self.w_end.q.val();
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

impl_profiler_top!(
    RelationProfiler<const CB>,
    entry_order = false,
    stages_before_accept = true
);
