//! `BaselineProfiler`: the deliberately simple multi-hash profiler that the pipelined
//! [`MultiHashProfiler`] is compared with (`hwprof synth --compare-baseline`).
//!
//! Same ports, same semantics (docs/SPEC.md §4) and bit-exact the same report stream as
//! [`MultiHashProfiler`] — it reuses its [`FullyAssociativeAccumulator`] (steps 1 and 3, and the
//! report stream in entry order), [`HashUnit`] and [`IntervalControl`] — but it is built the
//! naive way: one event at a time, by a small state machine
//!
//! ```text
//!   Clear --(swept all 2^IB counters)--> Idle --accept--> Read --> Update --> Idle
//!                                                                  \--(last event)--> Clear
//! ```
//!
//! - **Idle**: `in_ready` is high; an accepted event's masked keys are registered.
//! - **Read**: the hash of the registered keys addresses every counter table (block RAM with a
//!   registered read, so the words arrive in the next state).
//! - **Update**: the accumulator looks the tuple up; on a miss the counters are incremented
//!   (conservative update or not), saturating, and written back (0 after a promotion under
//!   reset-on-promote). No forwarding is needed: the next event reads only after this write.
//! - **Clear**: after reset and after the last event of every interval, a **stall sweep** writes
//!   0 into every counter (one word per clock, all tables at once) with `in_ready` low — a single
//!   bank per table instead of the pipelined design's double banking.
//!
//! So the baseline takes **3 clocks per event** plus 2^IB clocks per interval: events per clock
//! = L / (3 L + 2^IB) when the input never waits, e.g. 10 000 / 30 512 ≈ 0.33 for paper-10k.
//! As in the pipelined design, the last event of an interval is refused while the previous
//! report is still being sent (the accumulator holds one report snapshot).
//!
//! Shapes: the fully-associative [`SHAPES`](crate::multihash::design::SHAPES) of the pipelined design;
//! dispatched by [`crate::multihash::with_design`] with [`Design::Baseline`].
//!
//! [`MultiHashProfiler`]: crate::multihash::profiler::MultiHashProfiler
//! [`Design::Baseline`]: crate::multihash::Design::Baseline

use super::counter_tables::ConservativeUpdate;
use super::design::{shape_of, DesignVisitor, ShapeVisitor};
use super::full_accumulator::FullyAssociativeAccumulator;
use super::hash_unit::HashUnit;
use super::interval::IntervalControl;
use super::top::impl_profiler_top;
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
    Clear,
    Idle,
    Read,
    Update,
}

#[derive(LogicBlock)]
pub struct BaselineProfiler<const NT: usize, const IB: usize, const A: usize, const CB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_a: Signal<In, Bits<64>>,
    pub in_b: Signal<In, Bits<64>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_interval: Signal<Out, Bits<32>>,
    pub out_a: Signal<Out, Bits<64>>,
    pub out_b: Signal<Out, Bits<64>>,
    pub out_count: Signal<Out, Bits<32>>,
    pub out_last: Signal<Out, Bit>,
    hash: HashUnit<NT, IB>,
    /// One counter table per hash function, a single bank each.
    table: [RAM<Bits<CB>, IB>; NT],
    acc: FullyAssociativeAccumulator<A, CB>,
    control: IntervalControl,
    state: DFF<BaselineState>,
    /// The event in flight: masked keys, and whether it is the last of its interval.
    key_a: DFF<Bits<64>>,
    key_b: DFF<Bits<64>>,
    key_last: DFF<Bit>,
    clear_addr: DFF<Bits<IB>>,
    accept: Signal<Local, Bit>,
    clearing: Signal<Local, Bit>,
    idle: Signal<Local, Bit>,
    updating: Signal<Local, Bit>,
    /// The counter update of the event in flight (the pipelined design's, unpipelined).
    cu: ConservativeUpdate<NT, CB>,
    a_mask: Constant<Bits<64>>,
    b_mask: Constant<Bits<64>>,
    key_shift: Constant<Bits<8>>,
    zero: Constant<Bits<CB>>,
    index_one: Constant<Bits<IB>>,
    last_index: Constant<Bits<IB>>,
}

impl<const NT: usize, const IB: usize, const A: usize, const CB: usize>
    BaselineProfiler<NT, IB, A, CB>
{
    /// The baseline hardware of `cfg`, which must have this (fully-associative) shape.
    pub fn new(cfg: &ProfilerConfig) -> Self {
        assert_eq!(shape_of(cfg), Ok((NT, IB, A, CB)), "configuration vs shape");
        assert!(NT <= 16 && cfg.counter_max() < (1u64 << CB));
        let h = HashConstants::new(cfg);
        BaselineProfiler {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            in_a: Default::default(),
            in_b: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_interval: Default::default(),
            out_a: Default::default(),
            out_b: Default::default(),
            out_count: Default::default(),
            out_last: Default::default(),
            hash: HashUnit::new(&h),
            table: std::array::from_fn(|_| Default::default()),
            acc: FullyAssociativeAccumulator::new(
                cfg.threshold,
                cfg.accumulator_count_max(),
                cfg.retaining,
            ),
            control: IntervalControl::new(cfg.interval),
            state: Default::default(),
            key_a: Default::default(),
            key_b: Default::default(),
            key_last: Default::default(),
            clear_addr: Default::default(),
            accept: Default::default(),
            clearing: Default::default(),
            idle: Default::default(),
            updating: Default::default(),
            cu: ConservativeUpdate::new(
                cfg.threshold,
                cfg.counter_max(),
                cfg.conservative_update,
                cfg.reset_on_promote,
            ),
            a_mask: Constant::new(cfg.a_mask().into()),
            b_mask: Constant::new(cfg.b_mask().into()),
            key_shift: Constant::new(64.into()),
            zero: Constant::new(0.into()),
            index_one: Constant::new(1.into()),
            last_index: Constant::new(((1u64 << IB) - 1).into()),
        }
    }
}

impl<const NT: usize, const IB: usize, const A: usize, const CB: usize> Logic
    for BaselineProfiler<NT, IB, A, CB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, key_a, key_b, key_last, clear_addr);
        self.acc.clock.next = self.clock.val();
        self.control.clock.next = self.clock.val();
        self.acc.reset.next = self.reset.val();
        self.control.reset.next = self.reset.val();
        // The event in flight: hash its registered keys, read its counters.
        self.hash.a.next = self.key_a.q.val();
        self.hash.b.next = self.key_b.q.val();
        for k in 0..NT {
            self.table[k].read_clock.next = self.clock.val();
            self.table[k].write_clock.next = self.clock.val();
            self.table[k].read_address.next = self.hash.index[k].val();
            self.cu.c[k].next = self.table[k].read_data.val();
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
        self.clearing.next = self.state.q.val() == BaselineState::Clear;
        self.idle.next = self.state.q.val() == BaselineState::Idle;
        self.updating.next = self.state.q.val() == BaselineState::Update;
        self.acc.valid.next = self.updating.val();
        self.control.finish.next = self.updating.val() & self.key_last.q.val();
        // The accumulator holds one report: an interval cannot end while it is being sent.
        self.in_ready.next = self.idle.val()
            & !self.reset.val()
            & !(self.control.last.val() & self.acc.report_busy.val());
        self.accept.next = self.in_valid.val() & self.in_ready.val();
        self.control.accept.next = self.accept.val();
        for k in 0..NT {
            self.table[k].write_enable.next =
                self.clearing.val() | (self.updating.val() & !self.acc.hit.val());
            if self.clearing.val() {
                self.table[k].write_address.next = self.clear_addr.q.val();
                self.table[k].write_data.next = self.zero.val();
            } else {
                self.table[k].write_address.next = self.hash.index[k].val();
                self.table[k].write_data.next = self.cu.w[k].val();
            }
        }
        match self.state.q.val() {
            BaselineState::Clear => {
                self.clear_addr.d.next = self.clear_addr.q.val() + self.index_one.val();
                if self.clear_addr.q.val() == self.last_index.val() {
                    self.state.d.next = BaselineState::Idle;
                }
            }
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
            BaselineState::Update => {
                if self.key_last.q.val() {
                    self.clear_addr.d.next = 0.into();
                    self.state.d.next = BaselineState::Clear;
                } else {
                    self.state.d.next = BaselineState::Idle;
                }
            }
            _ => {
                self.state.d.next = BaselineState::Clear;
            }
        }
        if self.reset.val() {
            self.clear_addr.d.next = 0.into();
            self.state.d.next = BaselineState::Clear;
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
    BaselineProfiler<const NT, const IB, const A, const CB>,
    entry_order = true,
    drain_bound = A as u64 + (1u64 << IB) + 64
);

/// Builds the baseline top of a fully-associative shape and runs a [`DesignVisitor`] on it
/// (used by [`crate::multihash::with_design`]).
pub(crate) struct Build<V>(pub(crate) V);

impl<V: DesignVisitor> ShapeVisitor for Build<V> {
    type Output = V::Output;
    fn visit<const NT: usize, const IB: usize, const A: usize, const CB: usize>(
        self,
        cfg: &ProfilerConfig,
    ) -> Self::Output {
        let mut uut = BaselineProfiler::<NT, IB, A, CB>::new(cfg);
        uut.connect_all();
        self.0.visit(uut, cfg)
    }
}
