//! `BaselineProfiler` and `SetBaselineProfiler`: the deliberately simple multi-hash profilers that
//! the pipelined [`MultiHashProfiler`] and [`BramProfiler`] are compared with (`hwprof synth
//! --compare-baseline`).
//!
//! Same ports, same semantics (docs/SPEC.md §4) and bit-exact the same report stream as
//! [`MultiHashProfiler`] — it reuses its [`FullyAssociativeAccumulator`] (steps 1 and 3, and the
//! report stream in entry order), [`HashUnit`] and [`IntervalControl`] — but it is built the
//! naive way: one event at a time, by a small state machine
//!
//! ```text
//!   Idle --accept--> Read --> Update --> Idle
//! ```
//! beside a [`BankClear`] sweep that `in_ready` waits for.
//!
//! - **Idle**: `in_ready` is high; an accepted event's masked keys are registered.
//! - **Read**: the hash of the registered keys addresses every counter table (block RAM with a
//!   registered read, so the words arrive in the next state).
//! - **Update**: the accumulator looks the tuple up; on a miss the counters are incremented
//!   (conservative update or not), saturating, and written back (0 after a promotion under
//!   reset-on-promote). No forwarding is needed: the next event reads only after this write.
//! - **Clearing**: after reset and after the last event of every interval, a **stall sweep** writes
//!   0 into every counter (one word per clock, all tables at once) with `in_ready` low — a single
//!   bank per table instead of the pipelined design's double banking.
//!
//! So the baseline takes **3 clocks per event** plus `entries` clocks per interval: events per clock
//! = L / (3 L + 2^IB) when the input never waits, e.g. 10 000 / 30 512 ≈ 0.33 for paper-10k.
//! As in the pipelined design, the last event of an interval is refused while the previous
//! report is still being sent (the accumulator holds one report snapshot).
//!
//! Any fully-associative configuration; [`SetBaselineProfiler`] is the same machine for a
//! set-associative one, with its accumulator in block RAM and its report swept out after each
//! interval. Both are built by [`crate::multihash::with_design`] with [`Design::Baseline`].
//!
//! [`MultiHashProfiler`]: crate::multihash::profiler::MultiHashProfiler
//! [`BramProfiler`]: crate::multihash::bram_profiler::BramProfiler
//! [`Design::Baseline`]: crate::multihash::Design::Baseline

use super::counter_tables::{ConservativeUpdate, UpdateRule};
use super::full_accumulator::FullyAssociativeAccumulator;
use super::hash_unit::{HashUnit, ParityHash};
use super::interval::IntervalControl;
use super::primitives::{vec_of, BankClear, Priority};
use super::set_accumulator::TAG_BITS;
use super::threshold::{CandidateThreshold, THRESHOLD_BITS};
use super::top::{impl_profiler_top, new_profiler_top, profiler_top};
use super::widths::widths_of_class;
use crate::block_ram::{TableRam, ADDRESS_BITS};
use crate::config::{Organisation, ProfilerConfig, Replacement};
use crate::hash::{HashConstants, SetHash};
use crate::util::bits_u64;
use rust_hdl::prelude::*;

/// Clocks the baseline spends on each event (Idle, Read, Update).
pub const BASELINE_CLOCKS_PER_EVENT: u64 = 3;

/// Clocks the baseline of `cfg` stalls the input after each interval's last event, when reports
/// are always taken: the counters' sweep, or the set-associative report's when that is longer
/// ([`set_baseline_report_clocks`]).
pub fn baseline_sweep_clocks(cfg: &ProfilerConfig) -> u64 {
    let acc = &cfg.accumulator;
    let counters = cfg.entries as u64;
    match acc.organisation {
        Organisation::FullyAssociative => counters,
        Organisation::SetAssociative => {
            counters.max(set_baseline_report_clocks(acc.sets(), acc.ways))
        }
    }
}

/// The baselines' counter tables: one RAM bank per table, read at the hash of the event's keys
/// (registered by the top, so the words arrive a clock later), updated by [`ConservativeUpdate`]
/// and written back when the top says so; cleared by a stall sweep that `clearing` reports. No
/// forwarding: the next event reads only after this one's write.
#[derive(LogicBlock)]
pub struct BaselineCounters<const CB: usize> {
    pub clock: Signal<In, Clock>,
    /// The event's keys, masked, held while it is read and updated.
    pub a: Signal<In, Bits<64>>,
    pub b: Signal<In, Bits<64>>,
    /// Write the updated counters back this clock (the event missed the accumulator).
    pub write: Signal<In, Bit>,
    /// The accumulator allocated an entry for the tuple.
    pub promoted: Signal<In, Bit>,
    /// Start writing 0 into every counter, one word per clock; take `threshold`.
    pub clear_start: Signal<In, Bit>,
    pub clearing: Signal<Out, Bit>,
    /// T of the next interval (at reset, and when an interval's end is in Update).
    pub threshold: Signal<In, Bits<THRESHOLD_BITS>>,
    /// A clock after the keys: the tuple's count estimate and whether it is a candidate.
    pub new_min: Signal<Out, Bits<CB>>,
    pub candidate: Signal<Out, Bit>,
    hash: HashUnit,
    table: Vec<TableRam<CB>>,
    cu: ConservativeUpdate<CB>,
    clear: BankClear,
    /// T of the event in flight, and the candidate floor of the counters read.
    candidate_threshold: CandidateThreshold<CB>,
    zero: Constant<Bits<CB>>,
}

impl<const CB: usize> BaselineCounters<CB> {
    /// The counter tables of `cfg` in the widths of class CB; counters saturate.
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let w = widths_of_class::<CB>(cfg);
        let rule = UpdateRule {
            saturates: true,
            ..UpdateRule::of(cfg, &w)
        };
        BaselineCounters {
            clock: Default::default(),
            a: Default::default(),
            b: Default::default(),
            write: Default::default(),
            promoted: Default::default(),
            clear_start: Default::default(),
            clearing: Default::default(),
            threshold: Default::default(),
            new_min: Default::default(),
            candidate: Default::default(),
            hash: HashUnit::new(&HashConstants::new(cfg)),
            table: (0..cfg.tables)
                .map(|_| TableRam::new(cfg.entries, w.counter))
                .collect(),
            cu: ConservativeUpdate::new(&rule),
            clear: BankClear::new(cfg.entries),
            candidate_threshold: CandidateThreshold::new(
                rule.counter_max,
                rule.reset_value,
                rule.fixed_threshold.then_some(rule.threshold),
            ),
            zero: Constant::new(0.into()),
        }
    }
}

impl<const CB: usize> Logic for BaselineCounters<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.clear.clock.next = self.clock.val();
        self.clear.start.next = self.clear_start.val();
        self.clearing.next = self.clear.busy.val();
        self.hash.a.next = self.a.val();
        self.hash.b.next = self.b.val();
        self.cu.promoted.next = self.promoted.val();
        self.candidate_threshold.clock.next = self.clock.val();
        self.candidate_threshold.load.next = self.clear_start.val();
        self.candidate_threshold.value.next = self.threshold.val();
        self.cu.promotable.next = self.candidate_threshold.reachable.val();
        self.cu.incremented_floor.next = self.candidate_threshold.floor_minus_1.val();
        self.cu.reset_floor.next = self.candidate_threshold.reset_reaches_floor.val();
        self.new_min.next = self.cu.new_min.val();
        self.candidate.next = self.cu.candidate.val();
        for k in 0..self.table.len() {
            self.table[k].read_clock.next = self.clock.val();
            self.table[k].write_clock.next = self.clock.val();
            self.table[k].read_address.next = self.hash.index[k].val();
            self.cu.c[k].next = self.table[k].read_data.val();
            self.cu.floor[k].next =
                self.table[k].read_data.val() >= self.candidate_threshold.floor.val();
            // Written back (0 after a promotion under reset-on-promote), or cleared.
            self.table[k].write_enable.next = self.clear.busy.val() | self.write.val();
            if self.clear.busy.val() {
                self.table[k].write_address.next = self.clear.address.val();
                self.table[k].write_data.next = self.zero.val();
            } else {
                self.table[k].write_address.next = self.hash.index[k].val();
                self.table[k].write_data.next = self.cu.w[k].val();
            }
        }
    }
}

/// The baseline's state (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum BaselineState {
    Idle,
    Read,
    Update,
}

profiler_top! {
    pub struct BaselineProfiler<const CB: usize> {
        counters: BaselineCounters<CB>,
        acc: FullyAssociativeAccumulator<CB>,
        control: IntervalControl,
        state: DFF<BaselineState>,
        /// The event in flight: masked keys, and whether it is the last of its interval; or a
        /// flush's empty slot (`key_null`, with `key_last`).
        key_a: DFF<Bits<64>>,
        key_b: DFF<Bits<64>>,
        key_last: DFF<Bit>,
        key_null: DFF<Bit>,
        accept: Signal<Local, Bit>,
        idle: Signal<Local, Bit>,
        updating: Signal<Local, Bit>,
        a_mask: Constant<Bits<64>>,
        b_mask: Constant<Bits<64>>,
        key_shift: Constant<Bits<8>>,
        _drain_bound: u64,
    }
}

impl<const CB: usize> BaselineProfiler<CB> {
    /// The baseline hardware of `cfg` (fully associative), whose width class must be CB.
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let w = widths_of_class::<CB>(cfg);
        new_profiler_top!(
            cfg,
            BaselineProfiler {
                counters: BaselineCounters::new(cfg),
                acc: FullyAssociativeAccumulator::for_config(cfg, &w),
                control: Default::default(),
                state: Default::default(),
                key_a: Default::default(),
                key_b: Default::default(),
                key_last: Default::default(),
                key_null: Default::default(),
                accept: Default::default(),
                idle: Default::default(),
                updating: Default::default(),
                a_mask: Constant::new(cfg.a_mask().into()),
                b_mask: Constant::new(cfg.b_mask().into()),
                key_shift: Constant::new(64.into()),
                _drain_bound: (cfg.accumulator.entries + cfg.entries) as u64 + 64,
            }
        )
    }
}

impl<const CB: usize> Logic for BaselineProfiler<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, key_a, key_b, key_last, key_null);
        self.counters.clock.next = self.clock.val();
        self.acc.clock.next = self.clock.val();
        self.control.clock.next = self.clock.val();
        self.acc.reset.next = self.reset.val();
        self.control.reset.next = self.reset.val();
        self.control.length.next = self.interval_length.val();
        self.control.threshold.next = self.threshold.val();
        self.control.flush.next = self.flush.val();
        self.flush_pending.next = self.control.flush_pending.val();
        self.counters.threshold.next = self.control.next_threshold.val();
        self.acc.threshold.next = self.control.next_threshold.val();
        // The event in flight: its counters from its registered keys, updated in Update
        // (docs/SPEC.md §4.2 step 2).
        self.counters.a.next = self.key_a.q.val();
        self.counters.b.next = self.key_b.q.val();
        self.counters.promoted.next = self.acc.promoted.val();
        // Accumulator (steps 1 and 3), valid in Update.
        self.acc.key.next = (bit_cast::<128, 64>(self.key_b.q.val()) << self.key_shift.val())
            | bit_cast::<128, 64>(self.key_a.q.val());
        self.acc.new_min.next = self.counters.new_min.val();
        self.acc.candidate.next = self.counters.candidate.val();
        self.acc.interval.next = self.control.interval.val();
        // The state machine. Signals into the accumulator and interval control are each
        // assigned once, from the state: a default-then-override would glitch them, and their
        // outputs feed back into this kernel (a zero-delay oscillation in event simulators).
        self.idle.next = self.state.q.val() == BaselineState::Idle;
        self.updating.next = self.state.q.val() == BaselineState::Update;
        self.acc.valid.next = self.updating.val() & !self.key_null.q.val();
        self.acc.end_interval.next = self.updating.val() & self.key_last.q.val();
        self.control.finish.next = self.updating.val() & self.key_last.q.val();
        // The accumulator holds one report: an interval cannot end while it is being sent.
        self.control.end_ok.next = self.idle.val()
            & !self.counters.clearing.val()
            & !self.reset.val()
            & !self.acc.report_busy.val();
        self.in_ready.next = self.idle.val()
            & !self.counters.clearing.val()
            & !self.reset.val()
            & !self.control.flush_pending.val()
            & !(self.control.last.val() & self.acc.report_busy.val());
        self.accept.next = self.in_valid.val() & self.in_ready.val();
        self.control.accept.next = self.accept.val();
        self.counters.write.next =
            self.updating.val() & !self.acc.hit.val() & !self.key_null.q.val();
        self.counters.clear_start.next =
            self.reset.val() | (self.updating.val() & self.key_last.q.val());
        match self.state.q.val() {
            BaselineState::Idle => {
                if self.accept.val() {
                    self.key_a.d.next = self.in_a.val() & self.a_mask.val();
                    self.key_b.d.next = self.in_b.val() & self.b_mask.val();
                    self.key_last.d.next = self.control.last.val();
                    self.key_null.d.next = false;
                    self.state.d.next = BaselineState::Read;
                }
                if self.control.null_end.val() {
                    self.key_last.d.next = true;
                    self.key_null.d.next = true;
                    self.state.d.next = BaselineState::Read;
                }
            }
            BaselineState::Read => {
                self.state.d.next = BaselineState::Update;
            }
            _ => {
                self.state.d.next = BaselineState::Idle;
            }
        }
        if self.reset.val() {
            self.state.d.next = BaselineState::Idle;
        }
        // Report stream: the accumulator's, as in the pipelined design.
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
    BaselineProfiler<const CB>,
    entry_order = true,
    stages_before_accept = false
);

/// The set-associative baseline's state (see [`SetBaselineProfiler`]).
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum SetBaselineState {
    Idle,
    Read,
    Update,
    /// The report: a set's words are read ...
    SweepRead,
    /// ... and its ways offered one per clock, then written back rolled over.
    SweepEmit,
    /// The report's terminator word.
    SweepEnd,
}

/// Clocks the set-associative baseline's report takes after an interval's last event, with
/// reports always taken: per set a read and one clock per way, then the terminator.
pub fn set_baseline_report_clocks(sets: usize, ways: usize) -> u64 {
    (sets * (ways + 1)) as u64 + 1
}

profiler_top! {
    /// The baseline of a set-associative configuration (`accumulator.organisation =
    /// "set_associative"`): the same state machine as [`BaselineProfiler`], with the accumulator
    /// in block RAM like [`BramProfiler`](crate::multihash::bram_profiler::BramProfiler)'s — per way a tag RAM and a meta RAM of one word per
    /// set (the count in the low bits, then locked, then valid) — and no forwarding, since an
    /// event reads only after the one before it has written.
    ///
    /// - **Update**: the set's words are those read; a way holding the tuple (valid, same tag)
    ///   is a hit (**shielding**): its count grows by one, saturating, and it becomes locked at
    ///   T. On a miss the counters are updated, and a candidate takes the set's first empty way,
    ///   else a replaceable one (valid, not locked: the first, or with smallest replacement the
    ///   one of smallest count, the first on ties), locked, with count `new_min`.
    /// - **The report** is a stall sweep after each interval's last event: every set is read
    ///   and its ways offered in order (valid with count ≥ T: a report word; else a clock with
    ///   nothing), then written back rolled over (**retaining**: the reported entries
    ///   replaceable with count 0, the others empty); a terminator word (count 0, `out_last`)
    ///   ends it. So the report is in entry order (set-major, way-minor), as the model's, and
    ///   takes [`set_baseline_report_clocks`] clocks while the counters' single banks are
    ///   cleared beside it; `in_ready` waits for both.
    /// - After reset every meta word is cleared (one set per clock) with the counters.
    pub struct SetBaselineProfiler<const CB: usize> {
        counters: BaselineCounters<CB>,
        /// The accumulator set of the tuple (h3, [`SetHash`]).
        set_hash: ParityHash<ADDRESS_BITS>,
        tags: Vec<TableRam<TAG_BITS>>,
        metas: Vec<TableRam<CB>>,
        control: IntervalControl,
        state: DFF<SetBaselineState>,
        key_a: DFF<Bits<64>>,
        key_b: DFF<Bits<64>>,
        key_last: DFF<Bit>,
        key_null: DFF<Bit>,
        /// The report: its interval, the set being swept, and the way offered (one-hot).
        rep_interval: DFF<Bits<32>>,
        sweep_set: DFF<Bits<ADDRESS_BITS>>,
        sweep_way: Vec<DFF<Bit>>,
        meta_clear: BankClear,
        accept: Signal<Local, Bit>,
        clearing: Signal<Local, Bit>,
        idle: Signal<Local, Bit>,
        updating: Signal<Local, Bit>,
        emitting: Signal<Local, Bit>,
        key_tag: Signal<Local, Bits<TAG_BITS>>,
        /// Per way, from the words read: the entry, a hit, whether a report lists it, its word
        /// after the event (`n_meta`) and after the rollover (`r_meta`).
        valid: Vec<Signal<Local, Bit>>,
        locked: Vec<Signal<Local, Bit>>,
        count: Vec<Signal<Local, Bits<CB>>>,
        hit_w: Vec<Signal<Local, Bit>>,
        reported: Vec<Signal<Local, Bit>>,
        inc_count: Vec<Signal<Local, Bits<CB>>>,
        n_meta: Vec<Signal<Local, Bits<CB>>>,
        r_meta: Vec<Signal<Local, Bits<CB>>>,
        /// Replaceable ways of no larger count than any other (smallest replacement).
        minimal: Vec<Signal<Local, Bit>>,
        hits: Priority,
        empty: Priority,
        repl: Priority,
        smallest: Priority,
        alloc: Vec<Signal<Local, Bit>>,
        hit: Signal<Local, Bit>,
        promoted: Signal<Local, Bit>,
        /// The way offered: a report word, and the sweep's move past it.
        offer: Signal<Local, Bit>,
        step: Signal<Local, Bit>,
        last_way: Signal<Local, Bit>,
        word_tag: Signal<Local, Bits<TAG_BITS>>,
        word_count: Signal<Local, Bits<CB>>,
        /// T of the event in flight or the report being swept: taken in every Idle clock.
        candidate_threshold: CandidateThreshold<CB>,
        count_max: Constant<Bits<CB>>,
        count_mask: Constant<Bits<CB>>,
        locked_flag: Constant<Bits<CB>>,
        valid_flag: Constant<Bits<CB>>,
        replace_smallest: Constant<Bit>,
        retaining: Constant<Bit>,
        last_set: Constant<Bits<ADDRESS_BITS>>,
        a_mask: Constant<Bits<64>>,
        b_mask: Constant<Bits<64>>,
        b_shift: Constant<Bits<8>>,
        one_c: Constant<Bits<CB>>,
        one_set: Constant<Bits<ADDRESS_BITS>>,
        zero: Constant<Bits<CB>>,
        _drain_bound: u64,
    }
}

impl<const CB: usize> SetBaselineProfiler<CB> {
    /// The baseline hardware of `cfg` (set associative), whose width class must be CB.
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let w = widths_of_class::<CB>(cfg);
        let acc = &cfg.accumulator;
        let (sets, ways) = (acc.sets(), acc.ways);
        assert!(
            sets.is_power_of_two() && w.count + 2 <= CB.min(63),
            "2^k sets, count and state within CB bits"
        );
        let count_mask = (1u64 << w.count) - 1;
        new_profiler_top!(
            cfg,
            SetBaselineProfiler {
                counters: BaselineCounters::new(cfg),
                set_hash: ParityHash::new(&SetHash::new(cfg).q),
                tags: (0..ways)
                    .map(|_| TableRam::new(sets, (cfg.a_bits + cfg.b_bits) as usize))
                    .collect(),
                metas: (0..ways)
                    .map(|_| TableRam::new(sets, w.count + 2))
                    .collect(),
                control: Default::default(),
                state: Default::default(),
                key_a: Default::default(),
                key_b: Default::default(),
                key_last: Default::default(),
                key_null: Default::default(),
                rep_interval: Default::default(),
                sweep_set: Default::default(),
                sweep_way: vec_of(ways),
                meta_clear: BankClear::new(sets),
                accept: Default::default(),
                clearing: Default::default(),
                idle: Default::default(),
                updating: Default::default(),
                emitting: Default::default(),
                key_tag: Default::default(),
                valid: vec_of(ways),
                locked: vec_of(ways),
                count: vec_of(ways),
                hit_w: vec_of(ways),
                reported: vec_of(ways),
                inc_count: vec_of(ways),
                n_meta: vec_of(ways),
                r_meta: vec_of(ways),
                minimal: vec_of(ways),
                hits: Priority::new(ways),
                empty: Priority::new(ways),
                repl: Priority::new(ways),
                smallest: Priority::new(ways),
                alloc: vec_of(ways),
                hit: Default::default(),
                promoted: Default::default(),
                offer: Default::default(),
                step: Default::default(),
                last_way: Default::default(),
                word_tag: Default::default(),
                word_count: Default::default(),
                candidate_threshold: CandidateThreshold::new(
                    w.count_max(cfg),
                    0,
                    cfg.fixed_threshold()
                ),
                count_max: Constant::new(w.count_max(cfg).into()),
                count_mask: Constant::new(count_mask.into()),
                locked_flag: Constant::new((1u64 << w.count).into()),
                valid_flag: Constant::new((2u64 << w.count).into()),
                replace_smallest: Constant::new(acc.replacement == Replacement::Smallest),
                retaining: Constant::new(cfg.retaining),
                last_set: Constant::new(bits_u64(sets as u64 - 1)),
                a_mask: Constant::new(cfg.a_mask().into()),
                b_mask: Constant::new(cfg.b_mask().into()),
                b_shift: Constant::new(u64::from(cfg.a_bits).into()),
                one_c: Constant::new(1.into()),
                one_set: Constant::new(1.into()),
                zero: Constant::new(0.into()),
                _drain_bound: set_baseline_report_clocks(sets, ways) + cfg.entries as u64 + 64,
            }
        )
    }
}

impl<const CB: usize> Logic for SetBaselineProfiler<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            key_a,
            key_b,
            key_last,
            key_null,
            rep_interval,
            sweep_set
        );
        self.counters.clock.next = self.clock.val();
        self.meta_clear.clock.next = self.clock.val();
        self.control.clock.next = self.clock.val();
        self.control.reset.next = self.reset.val();
        self.control.length.next = self.interval_length.val();
        self.control.threshold.next = self.threshold.val();
        self.control.flush.next = self.flush.val();
        self.flush_pending.next = self.control.flush_pending.val();
        self.counters.threshold.next = self.control.next_threshold.val();
        self.candidate_threshold.clock.next = self.clock.val();
        self.candidate_threshold.value.next = self.control.next_threshold.val();
        self.candidate_threshold.load.next =
            self.reset.val() | (self.state.q.val() == SetBaselineState::Idle);
        self.counters.a.next = self.key_a.q.val();
        self.counters.b.next = self.key_b.q.val();
        self.set_hash.a.next = self.key_a.q.val();
        self.set_hash.b.next = self.key_b.q.val();
        self.key_tag.next = (bit_cast::<TAG_BITS, 64>(self.key_b.q.val()) << self.b_shift.val())
            | bit_cast::<TAG_BITS, 64>(self.key_a.q.val());
        self.idle.next = self.state.q.val() == SetBaselineState::Idle;
        self.updating.next = self.state.q.val() == SetBaselineState::Update;
        self.emitting.next = self.state.q.val() == SetBaselineState::SweepEmit;
        self.clearing.next = self.counters.clearing.val() | self.meta_clear.busy.val();
        // The set's ways as read (Update), or the swept set's (the report).
        for w in 0..self.tags.len() {
            self.tags[w].read_clock.next = self.clock.val();
            self.tags[w].write_clock.next = self.clock.val();
            self.metas[w].read_clock.next = self.clock.val();
            self.metas[w].write_clock.next = self.clock.val();
            self.sweep_way[w].clock.next = self.clock.val();
            self.sweep_way[w].d.next = self.sweep_way[w].q.val();
            self.tags[w].read_address.next = self.set_hash.index.val();
            self.metas[w].read_address.next = self.set_hash.index.val();
            if !(self.idle.val()
                | (self.state.q.val() == SetBaselineState::Read)
                | self.updating.val())
            {
                self.tags[w].read_address.next = self.sweep_set.q.val();
                self.metas[w].read_address.next = self.sweep_set.q.val();
            }
            self.valid[w].next = (self.metas[w].read_data.val() & self.valid_flag.val()).any();
            self.locked[w].next = (self.metas[w].read_data.val() & self.locked_flag.val()).any();
            self.count[w].next = self.metas[w].read_data.val() & self.count_mask.val();
            self.hit_w[w].next = self.valid[w].val()
                & (self.tags[w].read_data.val() == self.key_tag.val())
                & !self.key_null.q.val();
            self.reported[w].next =
                self.valid[w].val() & (self.count[w].val() >= self.candidate_threshold.t.val());
            self.hits.bits[w].next = self.hit_w[w].val();
            self.empty.bits[w].next = !self.valid[w].val();
            self.repl.bits[w].next = self.valid[w].val() & !self.locked[w].val();
            self.minimal[w].next = self.valid[w].val() & !self.locked[w].val();
            for v in 0..self.tags.len() {
                if self.valid[v].val()
                    & !self.locked[v].val()
                    & (self.count[v].val() < self.count[w].val())
                {
                    self.minimal[w].next = false;
                }
            }
            self.smallest.bits[w].next = self.minimal[w].val();
        }
        // The way the sweep offers: a report word if the entry is reported.
        self.offer.next = false;
        self.last_way.next = false;
        self.word_tag.next = self.tags[0].read_data.val();
        self.word_count.next = self.count[0].val();
        for w in 0..self.tags.len() {
            // Assigned on every pass: the last way's flag is what remains.
            self.last_way.next = self.sweep_way[w].q.val();
            if self.sweep_way[w].q.val() {
                self.offer.next = self.reported[w].val();
                self.word_tag.next = self.tags[w].read_data.val();
                self.word_count.next = self.count[w].val();
            }
        }
        self.step.next = self.emitting.val() & (!self.offer.val() | self.out_ready.val());
        // Shielding, else the counter update (docs/SPEC.md §4.2 step 2) and a promotion.
        self.hit.next = self.hits.any.val();
        self.promoted.next = !self.hits.any.val()
            & !self.key_null.q.val()
            & self.counters.candidate.val()
            & (self.empty.any.val() | self.repl.any.val());
        self.counters.promoted.next = self.promoted.val();
        for w in 0..self.tags.len() {
            self.alloc[w].next = self.promoted.val()
                & ((self.empty.any.val() & self.empty.first[w].val())
                    | (!self.empty.any.val()
                        & !self.replace_smallest.val()
                        & self.repl.first[w].val())
                    | (!self.empty.any.val()
                        & self.replace_smallest.val()
                        & self.smallest.first[w].val()));
            self.inc_count[w].next = self.count[w].val();
            if self.count[w].val() < self.count_max.val() {
                self.inc_count[w].next = self.count[w].val() + self.one_c.val();
            }
            // A hit's count grows; a replaceable entry reaching T becomes locked.
            self.n_meta[w].next = self.inc_count[w].val() | self.valid_flag.val();
            if self.locked[w].val() | (self.inc_count[w].val() >= self.candidate_threshold.t.val())
            {
                self.n_meta[w].next =
                    self.inc_count[w].val() | self.valid_flag.val() | self.locked_flag.val();
            }
            if self.alloc[w].val() {
                self.n_meta[w].next = (self.counters.new_min.val() & self.count_mask.val())
                    | self.valid_flag.val()
                    | self.locked_flag.val();
            }
            // The rollover: a reported entry stays, replaceable with count 0, if retaining.
            self.r_meta[w].next = self.zero.val();
            if self.reported[w].val() & self.retaining.val() {
                self.r_meta[w].next = self.valid_flag.val();
            }
            self.tags[w].write_address.next = self.set_hash.index.val();
            self.tags[w].write_data.next = self.key_tag.val();
            self.tags[w].write_enable.next = self.updating.val() & self.alloc[w].val();
            self.metas[w].write_address.next = self.set_hash.index.val();
            self.metas[w].write_data.next = self.n_meta[w].val();
            self.metas[w].write_enable.next =
                self.updating.val() & (self.hit_w[w].val() | self.alloc[w].val());
            if self.meta_clear.busy.val() {
                self.metas[w].write_address.next = self.meta_clear.address.val();
                self.metas[w].write_data.next = self.zero.val();
                self.metas[w].write_enable.next = true;
            } else if self.emitting.val() {
                self.metas[w].write_address.next = self.sweep_set.q.val();
                self.metas[w].write_data.next = self.r_meta[w].val();
                self.metas[w].write_enable.next = self.last_way.val() & self.step.val();
            }
        }
        // Counters: written back on a miss, cleared after each interval and after reset.
        self.counters.write.next = self.updating.val() & !self.hit.val() & !self.key_null.q.val();
        self.counters.clear_start.next =
            self.reset.val() | (self.updating.val() & self.key_last.q.val());
        self.meta_clear.start.next = self.reset.val();
        self.control.finish.next = self.updating.val() & self.key_last.q.val();
        self.control.end_ok.next = self.idle.val() & !self.clearing.val() & !self.reset.val();
        self.in_ready.next = self.idle.val()
            & !self.clearing.val()
            & !self.reset.val()
            & !self.control.flush_pending.val();
        self.accept.next = self.in_valid.val() & self.in_ready.val();
        self.control.accept.next = self.accept.val();
        match self.state.q.val() {
            SetBaselineState::Idle => {
                if self.accept.val() {
                    self.key_a.d.next = self.in_a.val() & self.a_mask.val();
                    self.key_b.d.next = self.in_b.val() & self.b_mask.val();
                    self.key_last.d.next = self.control.last.val();
                    self.key_null.d.next = false;
                    self.state.d.next = SetBaselineState::Read;
                }
                if self.control.null_end.val() {
                    self.key_last.d.next = true;
                    self.key_null.d.next = true;
                    self.state.d.next = SetBaselineState::Read;
                }
            }
            SetBaselineState::Read => {
                self.state.d.next = SetBaselineState::Update;
            }
            SetBaselineState::Update => {
                self.state.d.next = SetBaselineState::Idle;
                if self.key_last.q.val() {
                    self.rep_interval.d.next = self.control.interval.val();
                    self.sweep_set.d.next = 0.into();
                    self.state.d.next = SetBaselineState::SweepRead;
                }
            }
            SetBaselineState::SweepRead => {
                self.state.d.next = SetBaselineState::SweepEmit;
                self.sweep_way[0].d.next = true;
            }
            SetBaselineState::SweepEmit => {
                if self.step.val() {
                    self.sweep_way[0].d.next = false;
                    for w in 1..self.tags.len() {
                        self.sweep_way[w].d.next = self.sweep_way[w - 1].q.val();
                    }
                    if self.last_way.val() {
                        self.sweep_set.d.next = self.sweep_set.q.val() + self.one_set.val();
                        self.state.d.next = SetBaselineState::SweepRead;
                        if self.sweep_set.q.val() == self.last_set.val() {
                            self.state.d.next = SetBaselineState::SweepEnd;
                        }
                    }
                }
            }
            _ => {
                if self.out_ready.val() {
                    self.state.d.next = SetBaselineState::Idle;
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = SetBaselineState::Idle;
        }
        // The report stream: a swept way's word, or the terminator.
        self.out_valid.next = self.emitting.val() & self.offer.val();
        self.out_interval.next = self.rep_interval.q.val();
        self.out_a.next = bit_cast::<64, TAG_BITS>(self.word_tag.val()) & self.a_mask.val();
        self.out_b.next =
            bit_cast::<64, TAG_BITS>(self.word_tag.val() >> self.b_shift.val()) & self.b_mask.val();
        self.out_count.next = bit_cast::<32, CB>(self.word_count.val());
        self.out_last.next = false;
        if self.state.q.val() == SetBaselineState::SweepEnd {
            self.out_valid.next = true;
            self.out_a.next = 0.into();
            self.out_b.next = 0.into();
            self.out_count.next = 0.into();
            self.out_last.next = true;
        }
    }
}

impl_profiler_top!(
    SetBaselineProfiler<const CB>,
    entry_order = true,
    stages_before_accept = false
);
