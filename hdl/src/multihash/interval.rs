//! Interval control of the multi-hash profiler: counts accepted events, flags the last event of
//! each interval of L events, ends an interval early on a **flush**, and tracks the interval
//! number and its counter bank (i mod 2).
//!
//! **Settings.** L is the `length` input, read at reset and whenever an interval ends, so a new
//! L applies from the interval after the open one; values outside 1 ..= 2^40 are not checked
//! here (the bus slave refuses them). A `flush` pulse ends the open interval after the events
//! taken up to and including that clock: while it is pending (`flush_pending`) the top takes no
//! event, and as soon as the top could end an interval (`end_ok`: every event taken has been
//! accepted, no report blocks the end) the interval ends without an event (`null_end`: the top
//! sends an empty slot marked as the interval's end down its pipeline), or nothing happens if it
//! has no event. So when `flush_pending` falls, no event is in flight before stage 0.
//! T, the `threshold` input, is read like L (at reset and whenever an interval ends) and offered
//! as `next_threshold` to the blocks that decide events, which take it when that interval's end
//! reaches them ([`super::threshold`]).
//!
//! `last` comes from a flip-flop, not from a compare of the 41-bit count: it feeds stage 0's
//! accept decision, which drives the RAM addresses and every stage-H enable. The count is compared
//! a step ahead (`at_pre`: the next event is the last), and that flag moves into `at_last` when an
//! event is accepted. Intervals of one and two events, whose flags would not start at zero, are
//! flags of L loaded with it.

use super::threshold::THRESHOLD_BITS;
use rust_hdl::prelude::*;

/// Width of the in-interval event counter and of `length`: L <= 2^40 (`config::MAX_INTERVAL`).
pub const INTERVAL_COUNT_BITS: usize = 41;

#[derive(LogicBlock)]
pub struct IntervalControl {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// L of the intervals that start from now on.
    pub length: Signal<In, Bits<INTERVAL_COUNT_BITS>>,
    /// T of the intervals that start from now on.
    pub threshold: Signal<In, Bits<THRESHOLD_BITS>>,
    /// T of the interval after the one ending downstream (the open one's, once the previous end
    /// has left stage 0); the `threshold` input during reset.
    pub next_threshold: Signal<Out, Bits<THRESHOLD_BITS>>,
    /// A pulse: end the open interval after the events accepted so far (this clock's included).
    pub flush: Signal<In, Bit>,
    /// The top could take an interval's last event now (no report blocks the interval's end).
    pub end_ok: Signal<In, Bit>,
    /// Stage 0: an event is accepted this cycle.
    pub accept: Signal<In, Bit>,
    /// Stage 0: the event offered now would be the last of its interval.
    pub last: Signal<Out, Bit>,
    /// A flush waits: the top must accept no event.
    pub flush_pending: Signal<Out, Bit>,
    /// Stage 0: the open interval ends now without an event (a flush).
    pub null_end: Signal<Out, Bit>,
    /// Stage 0: the counter bank of the current input interval.
    pub bank: Signal<Out, Bit>,
    /// Stage 1: an interval's end (its last event, or a flush's empty slot) completes this cycle.
    pub finish: Signal<In, Bit>,
    /// The number of the interval being completed in stage 1 (wraps at 2^32).
    pub interval: Signal<Out, Bits<32>>,
    in_count: DFF<Bits<INTERVAL_COUNT_BITS>>,
    /// The event offered now is the last of its interval (L >= 2); the one after it is (L >= 3).
    at_last: DFF<Bit>,
    at_pre: DFF<Bit>,
    /// The event after the one offered now is the last.
    pre: Signal<Local, Bit>,
    /// The open interval has accepted an event.
    open: DFF<Bit>,
    flush_p: DFF<Bit>,
    /// The interval ends in stage 0 this clock.
    ends: Signal<Local, Bit>,
    parity: DFF<Bit>,
    number: DFF<Bits<32>>,
    /// Of the open interval's L: L − 3, the count at which the next event is the one before the
    /// last (all ones, never reached, when L < 3); L = 1; L = 2.
    pre_pre_count: DFF<Bits<INTERVAL_COUNT_BITS>>,
    single: DFF<Bit>,
    pair: DFF<Bit>,
    /// T of the open interval.
    open_threshold: DFF<Bits<THRESHOLD_BITS>>,
    one: Constant<Bits<INTERVAL_COUNT_BITS>>,
    two: Constant<Bits<INTERVAL_COUNT_BITS>>,
    three: Constant<Bits<INTERVAL_COUNT_BITS>>,
    never: Constant<Bits<INTERVAL_COUNT_BITS>>,
    one32: Constant<Bits<32>>,
}

impl Default for IntervalControl {
    fn default() -> Self {
        IntervalControl {
            clock: Default::default(),
            reset: Default::default(),
            length: Default::default(),
            threshold: Default::default(),
            next_threshold: Default::default(),
            flush: Default::default(),
            end_ok: Default::default(),
            accept: Default::default(),
            last: Default::default(),
            flush_pending: Default::default(),
            null_end: Default::default(),
            bank: Default::default(),
            finish: Default::default(),
            interval: Default::default(),
            in_count: Default::default(),
            at_last: Default::default(),
            at_pre: Default::default(),
            pre: Default::default(),
            open: Default::default(),
            flush_p: Default::default(),
            ends: Default::default(),
            parity: Default::default(),
            number: Default::default(),
            pre_pre_count: Default::default(),
            single: Default::default(),
            pair: Default::default(),
            open_threshold: Default::default(),
            one: Constant::new(1.into()),
            two: Constant::new(2.into()),
            three: Constant::new(3.into()),
            never: Constant::new(((1u64 << INTERVAL_COUNT_BITS) - 1).into()),
            one32: Constant::new(1.into()),
        }
    }
}

impl Logic for IntervalControl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_count,
            at_last,
            at_pre,
            open,
            flush_p,
            parity,
            number,
            pre_pre_count,
            single,
            pair,
            open_threshold
        );
        self.last.next = self.at_last.q.val() | self.single.q.val();
        self.pre.next = self.at_pre.q.val() | (self.pair.q.val() & !self.at_last.q.val());
        self.bank.next = self.parity.q.val();
        self.interval.next = self.number.q.val();
        self.flush_pending.next = self.flush_p.q.val();
        self.next_threshold.next = self.open_threshold.q.val();
        if self.reset.val() {
            self.next_threshold.next = self.threshold.val();
        }
        self.null_end.next = self.flush_p.q.val() & self.open.q.val() & self.end_ok.val();
        self.ends.next = (self.accept.val() & self.last.val()) | self.null_end.val();
        // A flush is done when the top could end an interval (every event taken before it has
        // been accepted): with a null end, or with none if the interval has no event.
        self.flush_p.d.next = (self.flush_p.q.val() & !self.end_ok.val()) | self.flush.val();
        if self.accept.val() {
            self.in_count.d.next = self.in_count.q.val() + self.one.val();
            self.at_last.d.next = self.pre.val();
            self.at_pre.d.next = self.in_count.q.val() == self.pre_pre_count.q.val();
            self.open.d.next = true;
        }
        if self.ends.val() | self.reset.val() {
            self.in_count.d.next = 0.into();
            self.at_last.d.next = false;
            self.at_pre.d.next = false;
            self.open.d.next = false;
            self.single.d.next = self.length.val() == self.one.val();
            self.pair.d.next = self.length.val() == self.two.val();
            self.pre_pre_count.d.next = self.never.val();
            self.open_threshold.d.next = self.threshold.val();
            if self.length.val() >= self.three.val() {
                self.pre_pre_count.d.next = self.length.val() - self.three.val();
            }
        }
        if self.ends.val() {
            self.parity.d.next = !self.parity.q.val();
        }
        if self.finish.val() {
            self.number.d.next = self.number.q.val() + self.one32.val();
        }
        if self.reset.val() {
            self.flush_p.d.next = false;
            self.parity.d.next = false;
            self.number.d.next = 0.into();
        }
    }
}
