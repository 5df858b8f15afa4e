//! Interval control of the multi-hash profiler: counts accepted events, flags the last event of
//! each interval of L events, and tracks the interval number and its counter bank (i mod 2).

use rust_hdl::prelude::*;

/// Width of the in-interval event counter: L <= 2^40 (`config::MAX_INTERVAL`).
pub const INTERVAL_COUNT_BITS: usize = 41;

#[derive(LogicBlock)]
pub struct IntervalControl {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Stage 0: an event is accepted this cycle.
    pub accept: Signal<In, Bit>,
    /// Stage 0: the event offered now would be the last of its interval.
    pub last: Signal<Out, Bit>,
    /// Stage 0: the counter bank of the current input interval.
    pub bank: Signal<Out, Bit>,
    /// Stage 1: the last event of an interval completes this cycle.
    pub finish: Signal<In, Bit>,
    /// The number of the interval being completed in stage 1 (wraps at 2^32).
    pub interval: Signal<Out, Bits<32>>,
    in_count: DFF<Bits<INTERVAL_COUNT_BITS>>,
    parity: DFF<Bit>,
    number: DFF<Bits<32>>,
    /// L − 1, from the configuration.
    last_count: Constant<Bits<INTERVAL_COUNT_BITS>>,
    one: Constant<Bits<INTERVAL_COUNT_BITS>>,
    one32: Constant<Bits<32>>,
}

impl IntervalControl {
    pub fn new(interval: u64) -> Self {
        IntervalControl {
            clock: Default::default(),
            reset: Default::default(),
            accept: Default::default(),
            last: Default::default(),
            bank: Default::default(),
            finish: Default::default(),
            interval: Default::default(),
            in_count: Default::default(),
            parity: Default::default(),
            number: Default::default(),
            last_count: Constant::new((interval - 1).into()),
            one: Constant::new(1.into()),
            one32: Constant::new(1.into()),
        }
    }
}

impl Logic for IntervalControl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_count, parity, number);
        self.last.next = self.in_count.q.val() == self.last_count.val();
        self.bank.next = self.parity.q.val();
        self.interval.next = self.number.q.val();
        if self.accept.val() {
            if self.in_count.q.val() == self.last_count.val() {
                self.in_count.d.next = 0.into();
                self.parity.d.next = !self.parity.q.val();
            } else {
                self.in_count.d.next = self.in_count.q.val() + self.one.val();
            }
        }
        if self.finish.val() {
            self.number.d.next = self.number.q.val() + self.one32.val();
        }
        if self.reset.val() {
            self.in_count.d.next = 0.into();
            self.parity.d.next = false;
            self.number.d.next = 0.into();
        }
    }
}
