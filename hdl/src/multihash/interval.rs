//! Interval control of the multi-hash profiler: counts accepted events, flags the last event of
//! each interval of L events, and tracks the interval number and its counter bank (i mod 2).
//!
//! `last` comes from a flip-flop, not from a compare of the 41-bit count: it feeds stage 0's
//! accept decision, which drives the RAM addresses and every stage-H enable. The count is compared
//! a step ahead (`at_pre`: the next event is the last), and that flag moves into `at_last` when an
//! event is accepted. Intervals of one and two events, whose flags would not start at zero, are
//! constants and a toggle, so the power-on state is right without a reset.

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
    /// The event offered now is the last of its interval (L >= 2); the one after it is (L >= 3).
    at_last: DFF<Bit>,
    at_pre: DFF<Bit>,
    /// The event after the one offered now is the last.
    pre: Signal<Local, Bit>,
    parity: DFF<Bit>,
    number: DFF<Bits<32>>,
    /// L − 3, the count at which the next event is the one before the last (all ones, never
    /// reached, when L < 3); L = 1; L = 2.
    pre_pre_count: Constant<Bits<INTERVAL_COUNT_BITS>>,
    single: Constant<Bit>,
    pair: Constant<Bit>,
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
            at_last: Default::default(),
            at_pre: Default::default(),
            pre: Default::default(),
            parity: Default::default(),
            number: Default::default(),
            pre_pre_count: Constant::new(match interval.checked_sub(3) {
                Some(c) => c.into(),
                None => ((1u64 << INTERVAL_COUNT_BITS) - 1).into(),
            }),
            single: Constant::new(interval == 1),
            pair: Constant::new(interval == 2),
            one: Constant::new(1.into()),
            one32: Constant::new(1.into()),
        }
    }
}

impl Logic for IntervalControl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_count, at_last, at_pre, parity, number);
        self.last.next = self.at_last.q.val() | self.single.val();
        self.pre.next = self.at_pre.q.val() | (self.pair.val() & !self.at_last.q.val());
        self.bank.next = self.parity.q.val();
        self.interval.next = self.number.q.val();
        if self.accept.val() {
            if self.last.val() {
                self.in_count.d.next = 0.into();
                self.at_last.d.next = false;
                self.at_pre.d.next = false;
                self.parity.d.next = !self.parity.q.val();
            } else {
                self.in_count.d.next = self.in_count.q.val() + self.one.val();
                self.at_last.d.next = self.pre.val();
                self.at_pre.d.next = self.in_count.q.val() == self.pre_pre_count.val();
            }
        }
        if self.finish.val() {
            self.number.d.next = self.number.q.val() + self.one32.val();
        }
        if self.reset.val() {
            self.in_count.d.next = 0.into();
            self.at_last.d.next = false;
            self.at_pre.d.next = false;
            self.parity.d.next = false;
            self.number.d.next = 0.into();
        }
    }
}
