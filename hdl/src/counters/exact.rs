//! Exact 64-bit event counters with the approximate banks' interface: the baseline of the counter
//! study and of its area comparison (what a Rocket core's hardware performance counters are).
//! Counters saturate at 2^64 − 1. Query latency: 2 clocks.

use crate::counters::morris::{ESTIMATE_BITS, QUERY_INDEX_BITS};
use rust_hdl::prelude::*;

/// A bank of E exact counters.
#[derive(LogicBlock)]
pub struct ExactBank<const E: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub inc: Signal<In, Bits<E>>,
    pub query_valid: Signal<In, Bit>,
    pub query_event: Signal<In, Bits<QUERY_INDEX_BITS>>,
    pub query_ready: Signal<Out, Bit>,
    pub estimate_valid: Signal<Out, Bit>,
    pub estimate: Signal<Out, Bits<ESTIMATE_BITS>>,
    counters: [DFF<Bits<ESTIMATE_BITS>>; E],
    event_ids: [Constant<Bits<QUERY_INDEX_BITS>>; E],
    busy: DFF<Bit>,
    done: DFF<Bit>,
    result: DFF<Bits<ESTIMATE_BITS>>,
    full: Constant<Bits<ESTIMATE_BITS>>,
}

impl<const E: usize> ExactBank<E> {
    pub fn new() -> Result<Self, String> {
        if !(1..=256).contains(&E) {
            return Err(format!("exact bank events {E} outside 1..=256"));
        }
        Ok(ExactBank {
            clock: Default::default(),
            reset: Default::default(),
            inc: Default::default(),
            query_valid: Default::default(),
            query_event: Default::default(),
            query_ready: Default::default(),
            estimate_valid: Default::default(),
            estimate: Default::default(),
            counters: std::array::from_fn(|_| Default::default()),
            event_ids: std::array::from_fn(|i| Constant::new(bits(i as u64))),
            busy: Default::default(),
            done: Default::default(),
            result: Default::default(),
            full: Constant::new(bits(u64::MAX)),
        })
    }
}

impl<const E: usize> Logic for ExactBank<E> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, done, result);
        for i in 0..E {
            self.counters[i].clock.next = self.clock.val();
            self.counters[i].d.next = self.counters[i].q.val();
            if self.inc.val().get_bit(i) & (self.counters[i].q.val() != self.full.val()) {
                self.counters[i].d.next = self.counters[i].q.val() + 1;
            }
            if self.reset.val() {
                self.counters[i].d.next = 0.into();
            }
        }
        self.query_ready.next = !self.busy.q.val();
        self.estimate_valid.next = self.done.q.val();
        self.estimate.next = self.result.q.val();
        self.done.d.next = false;
        if !self.busy.q.val() {
            if self.query_valid.val() {
                self.busy.d.next = true;
                for i in 0..E {
                    if self.query_event.val() == self.event_ids[i].val() {
                        self.result.d.next = self.counters[i].q.val();
                    }
                }
            }
        } else {
            self.busy.d.next = false;
            self.done.d.next = true;
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.done.d.next = false;
        }
    }
}
