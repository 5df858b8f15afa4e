//! Exact 64-bit event counters with the approximate banks' interface: the baseline of the counter
//! study and of its area comparison (what a Rocket core's hardware performance counters are).
//! Counters saturate at 2^64 − 1. Query latency: 2 clocks (the counter is read when the query is
//! taken).

use crate::counters::bank::{
    counter_bank, new_counter_bank, EventSelect, QueryControl, ESTIMATE_BITS, QUERY_INDEX_BITS,
};
use rust_hdl::prelude::*;

counter_bank! {
    /// A bank of E exact counters.
    pub struct ExactBank<const E: usize> {
        counters: [DFF<Bits<ESTIMATE_BITS>>; E],
        select: EventSelect<ESTIMATE_BITS>,
        result: DFF<Bits<ESTIMATE_BITS>>,
        full: Constant<Bits<ESTIMATE_BITS>>,
    }
}

impl<const E: usize> ExactBank<E> {
    pub fn new() -> Result<Self, String> {
        if !(1..=256).contains(&E) {
            return Err(format!("exact bank events {E} outside 1..=256"));
        }
        Ok(new_counter_bank!(ExactBank {
            counters: std::array::from_fn(|_| Default::default()),
            select: EventSelect::new(E, 1),
            result: Default::default(),
            full: Constant::new(bits(u64::MAX)),
        }))
    }
}

impl<const E: usize> Logic for ExactBank<E> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, result);
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
        clock!(self, clock, query);
        self.query.reset.next = self.reset.val();
        self.query.query_valid.next = self.query_valid.val();
        self.query_ready.next = self.query.query_ready.val();
        self.estimate_valid.next = self.query.estimate_valid.val();
        // The counter is its own estimate: read it as the query is taken, show it one clock later.
        self.query.finish.next = true;
        self.select.query_event.next = self.query_event.val();
        for i in 0..E {
            self.select.inputs[i].next = self.counters[i].q.val();
        }
        if self.query.accept.val() {
            self.result.d.next = self.select.outputs[0].val();
        }
        self.estimate.next = self.result.q.val();
    }
}
