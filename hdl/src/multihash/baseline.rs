//! `BaselineProfiler`: the deliberately simple multi-hash profiler that the pipelined
//! [`MultiHashProfiler`] is compared with (`hwprof synth --compare-baseline`).
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
//! Any fully-associative configuration; built by [`crate::multihash::with_design`] with
//! [`Design::Baseline`].
//!
//! [`MultiHashProfiler`]: crate::multihash::profiler::MultiHashProfiler
//! [`Design::Baseline`]: crate::multihash::Design::Baseline

use super::counter_tables::{ConservativeUpdate, UpdateRule};
use super::full_accumulator::FullyAssociativeAccumulator;
use super::hash_unit::HashUnit;
use super::interval::IntervalControl;
use super::primitives::BankClear;
use super::top::{impl_profiler_top, new_profiler_top, profiler_top};
use super::widths::widths_of_class;
use crate::block_ram::TableRam;
use crate::config::ProfilerConfig;
use crate::hash::HashConstants;
use rust_hdl::prelude::*;

/// Clocks the baseline spends on each event (Idle, Read, Update).
pub const BASELINE_CLOCKS_PER_EVENT: u64 = 3;

/// Events per clock of the baseline with interval `l` and 2^`index_bits` counters per table,
/// when the input is always offered and reports are always taken.
pub fn baseline_events_per_clock(l: u64, index_bits: u32) -> f64 {
    l as f64 / (BASELINE_CLOCKS_PER_EVENT * l + (1u64 << index_bits)) as f64
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
        hash: HashUnit,
        /// One counter table per hash function, a single bank each.
        table: Vec<TableRam<CB>>,
        acc: FullyAssociativeAccumulator<CB>,
        control: IntervalControl,
        state: DFF<BaselineState>,
        /// The event in flight: masked keys, and whether it is the last of its interval.
        key_a: DFF<Bits<64>>,
        key_b: DFF<Bits<64>>,
        key_last: DFF<Bit>,
        clear: BankClear,
        accept: Signal<Local, Bit>,
        clearing: Signal<Local, Bit>,
        idle: Signal<Local, Bit>,
        updating: Signal<Local, Bit>,
        /// The counter update of the event in flight (the pipelined design's, unpipelined).
        cu: ConservativeUpdate<CB>,
        /// The candidate floor T − 1 of the counters read.
        floor: Constant<Bits<CB>>,
        a_mask: Constant<Bits<64>>,
        b_mask: Constant<Bits<64>>,
        key_shift: Constant<Bits<8>>,
        zero: Constant<Bits<CB>>,
        _drain_bound: u64,
    }
}

impl<const CB: usize> BaselineProfiler<CB> {
    /// The baseline hardware of `cfg` (fully associative), whose width class must be CB.
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let w = widths_of_class::<CB>(cfg);
        let rule = UpdateRule {
            saturates: true,
            ..UpdateRule::of(cfg, &w)
        };
        new_profiler_top!(BaselineProfiler {
            hash: HashUnit::new(&HashConstants::new(cfg)),
            table: (0..cfg.tables)
                .map(|_| TableRam::new(cfg.entries, w.counter))
                .collect(),
            acc: FullyAssociativeAccumulator::for_config(cfg, &w),
            control: IntervalControl::new(cfg.interval),
            state: Default::default(),
            key_a: Default::default(),
            key_b: Default::default(),
            key_last: Default::default(),
            clear: BankClear::new(cfg.entries),
            accept: Default::default(),
            clearing: Default::default(),
            idle: Default::default(),
            updating: Default::default(),
            cu: ConservativeUpdate::new(&rule),
            floor: Constant::new(rule.candidate_floor().into()),
            a_mask: Constant::new(cfg.a_mask().into()),
            b_mask: Constant::new(cfg.b_mask().into()),
            key_shift: Constant::new(64.into()),
            zero: Constant::new(0.into()),
            _drain_bound: (cfg.accumulator.entries + cfg.entries) as u64 + 64,
        })
    }
}

impl<const CB: usize> Logic for BaselineProfiler<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, key_a, key_b, key_last);
        self.clear.clock.next = self.clock.val();
        self.acc.clock.next = self.clock.val();
        self.control.clock.next = self.clock.val();
        self.acc.reset.next = self.reset.val();
        self.control.reset.next = self.reset.val();
        // The event in flight: hash its registered keys, read its counters.
        self.hash.a.next = self.key_a.q.val();
        self.hash.b.next = self.key_b.q.val();
        for k in 0..self.table.len() {
            self.table[k].read_clock.next = self.clock.val();
            self.table[k].write_clock.next = self.clock.val();
            self.table[k].read_address.next = self.hash.index[k].val();
            self.cu.c[k].next = self.table[k].read_data.val();
            self.cu.floor[k].next = self.table[k].read_data.val() >= self.floor.val();
        }
        // Counter update (docs/SPEC.md §4.2 step 2), valid in Update.
        self.cu.promoted.next = self.acc.promoted.val();
        // Accumulator (steps 1 and 3), valid in Update.
        self.acc.key.next = (bit_cast::<128, 64>(self.key_b.q.val()) << self.key_shift.val())
            | bit_cast::<128, 64>(self.key_a.q.val());
        self.acc.new_min.next = self.cu.new_min.val();
        self.acc.candidate.next = self.cu.candidate.val();
        self.acc.end_interval.next = self.key_last.q.val();
        self.acc.interval.next = self.control.interval.val();
        // The state machine. Signals into the accumulator and interval control are each
        // assigned once, from the state: a default-then-override would glitch them, and their
        // outputs feed back into this kernel (a zero-delay oscillation in event simulators).
        self.clearing.next = self.clear.busy.val();
        self.idle.next = self.state.q.val() == BaselineState::Idle;
        self.updating.next = self.state.q.val() == BaselineState::Update;
        self.acc.valid.next = self.updating.val();
        self.control.finish.next = self.updating.val() & self.key_last.q.val();
        // The accumulator holds one report: an interval cannot end while it is being sent.
        self.in_ready.next = self.idle.val()
            & !self.clearing.val()
            & !self.reset.val()
            & !(self.control.last.val() & self.acc.report_busy.val());
        self.accept.next = self.in_valid.val() & self.in_ready.val();
        self.control.accept.next = self.accept.val();
        for k in 0..self.table.len() {
            self.table[k].write_enable.next =
                self.clearing.val() | (self.updating.val() & !self.acc.hit.val());
            if self.clearing.val() {
                self.table[k].write_address.next = self.clear.address.val();
                self.table[k].write_data.next = self.zero.val();
            } else {
                self.table[k].write_address.next = self.hash.index[k].val();
                self.table[k].write_data.next = self.cu.w[k].val();
            }
        }
        self.clear.start.next = self.reset.val() | (self.updating.val() & self.key_last.q.val());
        match self.state.q.val() {
            BaselineState::Idle => {
                if self.accept.val() {
                    self.key_a.d.next = self.in_a.val() & self.a_mask.val();
                    self.key_b.d.next = self.in_b.val() & self.b_mask.val();
                    self.key_last.d.next = self.control.last.val();
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

impl_profiler_top!(BaselineProfiler<const CB>, entry_order = true);
