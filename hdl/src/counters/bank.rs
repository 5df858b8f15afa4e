//! What every counter bank shares: its ports, declared once ([`counter_bank!`]); the ports of an
//! approximate counter ([`approximate_counter!`]); and the query handshake ([`QueryControl`]).
//!
//! **Query port** (valid/ready), one query at a time: with `query_ready` high, `query_valid` takes
//! a query for event `query_event`; the bank computes its estimate while busy and says `finish` on
//! its last busy clock; `estimate_valid` then pulses for one clock with `estimate`, which holds
//! until the next result. Events keep counting during a query.

use rust_hdl::prelude::*;

/// Width of the query port's event index (banks of up to 256 events).
pub const QUERY_INDEX_BITS: usize = 8;
/// Width of every bank's estimate output.
pub const ESTIMATE_BITS: usize = 64;

/// Declares a counter bank of E events: a `#[derive(LogicBlock)]` struct whose first fields are
/// the bank ports and its [`QueryControl`], then the bank's own fields as given. The declaring
/// module imports `QueryControl`, `QUERY_INDEX_BITS` and `ESTIMATE_BITS`.
macro_rules! counter_bank {
    ($(#[$m:meta])* pub struct $name:ident<$(const $g:ident: usize),* $(,)?> { $($body:tt)* }) => {
        $(#[$m])*
        #[derive(LogicBlock)]
        pub struct $name<$(const $g: usize),*> {
            pub clock: Signal<In, Clock>,
            /// Synchronous, active high: all counters to 0, the random source (if any) to its
            /// seeds, the query port idle.
            pub reset: Signal<In, Bit>,
            /// Bit i: one event of type i at this clock edge.
            pub inc: Signal<In, Bits<E>>,
            pub query_valid: Signal<In, Bit>,
            pub query_event: Signal<In, Bits<QUERY_INDEX_BITS>>,
            pub query_ready: Signal<Out, Bit>,
            pub estimate_valid: Signal<Out, Bit>,
            pub estimate: Signal<Out, Bits<ESTIMATE_BITS>>,
            /// The query handshake.
            query: QueryControl,
            $($body)*
        }
    };
}
pub(crate) use counter_bank;

/// A value of a bank declared with [`counter_bank!`]: the bank ports unconnected, an idle query
/// port, then the bank's own fields as given.
macro_rules! new_counter_bank {
    ($name:ident { $($body:tt)* }) => {
        $name {
            clock: Default::default(),
            reset: Default::default(),
            inc: Default::default(),
            query_valid: Default::default(),
            query_event: Default::default(),
            query_ready: Default::default(),
            estimate_valid: Default::default(),
            estimate: Default::default(),
            query: Default::default(),
            $($body)*
        }
    };
}
pub(crate) use new_counter_bank;

/// Declares an approximate counter of B bits: a `#[derive(LogicBlock)]` struct whose first fields
/// are its ports (the declaring module imports `Z_BITS`), then its own fields as given.
macro_rules! approximate_counter {
    ($(#[$m:meta])* pub struct $name:ident<const B: usize> { $($body:tt)* }) => {
        $(#[$m])*
        #[derive(LogicBlock)]
        pub struct $name<const B: usize> {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, Bit>,
            /// One event at this clock edge.
            pub inc: Signal<In, Bit>,
            /// The counter's Z of the shared random source this clock.
            pub z: Signal<In, Bits<Z_BITS>>,
            /// The state X.
            pub x: Signal<Out, Bits<B>>,
            $($body)*
        }
    };
}
pub(crate) use approximate_counter;

/// A value of a counter declared with [`approximate_counter!`] for parameters of `bits`-bit
/// counters: its ports unconnected, then its own fields as given; an error if B is not `bits`.
macro_rules! new_approximate_counter {
    ($name:ident, bits = $bits:expr, { $($body:tt)* }) => {
        if $bits != B {
            Err(format!("counter width {B} != parameters ({})", $bits))
        } else {
            Ok($name {
                clock: Default::default(),
                reset: Default::default(),
                inc: Default::default(),
                z: Default::default(),
                x: Default::default(),
                $($body)*
            })
        }
    };
}
pub(crate) use new_approximate_counter;

/// The query handshake: idle → busy on an accepted query, busy → idle on `finish`, and
/// `estimate_valid` the clock after.
#[derive(LogicBlock, Default)]
pub struct QueryControl {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub query_valid: Signal<In, Bit>,
    /// The bank's estimate is complete this clock (only read while busy).
    pub finish: Signal<In, Bit>,
    pub query_ready: Signal<Out, Bit>,
    /// A query is taken this clock: the bank snapshots what it needs.
    pub accept: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    pub estimate_valid: Signal<Out, Bit>,
    state: DFF<Bit>,
    done: DFF<Bit>,
}

impl Logic for QueryControl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, done);
        self.query_ready.next = !self.state.q.val();
        self.busy.next = self.state.q.val();
        self.accept.next = !self.state.q.val() & self.query_valid.val();
        self.estimate_valid.next = self.done.q.val();
        self.done.d.next = false;
        if !self.state.q.val() {
            if self.query_valid.val() {
                self.state.d.next = true;
            }
        } else if self.finish.val() {
            self.state.d.next = false;
            self.done.d.next = true;
        }
        if self.reset.val() {
            self.state.d.next = false;
            self.done.d.next = false;
        }
    }
}
