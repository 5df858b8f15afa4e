//! What every counter bank shares: its ports, declared once ([`counter_bank!`]); the ports of an
//! approximate counter ([`approximate_counter!`]); and the query handshake ([`QueryControl`]).
//!
//! **Query port** (valid/ready), one query at a time: with `query_ready` high, `query_valid` takes
//! a query for event `query_event` (an index ≥ E reads zero counters); the bank computes its
//! estimate while busy and says `finish` on its last busy clock; `estimate_valid` then pulses for
//! one clock with `estimate`, which holds until the bank works on the next query. Events keep
//! counting during a query.

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

/// The queried event's counter states, chosen as an OR of ANDs: input p is ANDed with "event p is
/// queried" and ORed into its member's chain. Unlike a chain of multiplexers this leaves the
/// synthesis tool free to balance the OR, which maps to far fewer LUTs.
///
/// Inputs are member-major: input p is member p / E of event p mod E (E events, G members, one
/// output per member). An index ≥ E selects nothing: every output is 0.
#[derive(LogicBlock)]
pub struct EventSelect<const W: usize> {
    pub query_event: Signal<In, Bits<QUERY_INDEX_BITS>>,
    pub inputs: Vec<Signal<In, Bits<W>>>,
    pub outputs: Vec<Signal<Out, Bits<W>>>,
    /// Entry p + 1: the OR of the selected inputs of p's member up to p.
    chain: Vec<Signal<Local, Bits<W>>>,
    /// Event of input p.
    owner: Vec<Constant<Bits<QUERY_INDEX_BITS>>>,
    /// All ones, except 0 where a member's inputs start (its chain starts empty).
    keep: Vec<Constant<Bits<W>>>,
    /// Member whose inputs end at p, else `none`.
    ends: Vec<Constant<Bits<QUERY_INDEX_BITS>>>,
    member_ids: Vec<Constant<Bits<QUERY_INDEX_BITS>>>,
}

impl<const W: usize> EventSelect<W> {
    pub fn new(events: usize, members: usize) -> Self {
        let n = events * members;
        let none = (1u64 << QUERY_INDEX_BITS) - 1;
        let ones = if W >= 64 { u64::MAX } else { (1u64 << W) - 1 };
        EventSelect {
            query_event: Default::default(),
            inputs: (0..n).map(|_| Default::default()).collect(),
            outputs: (0..members).map(|_| Default::default()).collect(),
            chain: (0..=n).map(|_| Default::default()).collect(),
            owner: (0..n)
                .map(|p| Constant::new(bits((p % events) as u64)))
                .collect(),
            keep: (0..n)
                .map(|p| Constant::new(bits(if p % events == 0 { 0 } else { ones })))
                .collect(),
            ends: (0..n)
                .map(|p| {
                    let end = (p + 1) % events == 0;
                    Constant::new(bits(if end { (p / events) as u64 } else { none }))
                })
                .collect(),
            member_ids: (0..members)
                .map(|j| Constant::new(bits(j as u64)))
                .collect(),
        }
    }
}

impl<const W: usize> Logic for EventSelect<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.chain[0].next = 0.into();
        for p in 0..self.inputs.len() {
            self.chain[p + 1].next = self.chain[p].val() & self.keep[p].val();
            if self.query_event.val() == self.owner[p].val() {
                self.chain[p + 1].next =
                    (self.chain[p].val() & self.keep[p].val()) | self.inputs[p].val();
            }
        }
        for j in 0..self.outputs.len() {
            self.outputs[j].next = 0.into();
            for p in 0..self.inputs.len() {
                if self.ends[p].val() == self.member_ids[j].val() {
                    self.outputs[j].next = self.chain[p + 1].val();
                }
            }
        }
    }
}
