//! The interface both accumulator organisations ([`super::full_accumulator`],
//! [`super::set_accumulator`]) present to a top: an event's decision inputs and outputs and the
//! interval report's handshake, declared once; each organisation adds how it looks an event up,
//! when it takes the count of an entry it allocates, and how a report entry names its tuple.

/// Declares an accumulator: a `#[derive(LogicBlock)]` struct with `clock`, `reset`, the
/// organisation's `lookup` ports, the decision ports with the organisation's `event` ports (its
/// tuple, its counters' new minimum) after `valid`, the report handshake with its `report` data
/// ports, `report_count`, `report_last`, `report_busy`, then its own fields.
macro_rules! accumulator {
    (
        $(#[$m:meta])*
        pub struct $name:ident<const CB: usize> {
            lookup: { $($lookup:tt)* }
            event: { $($event:tt)* }
            report: { $($report:tt)* }
            $($body:tt)*
        }
    ) => {
        $(#[$m])*
        #[derive(LogicBlock)]
        pub struct $name<const CB: usize> {
            pub clock: Signal<In, Clock>,
            /// Synchronous, active high: every entry empty, no report pending.
            pub reset: Signal<In, Bit>,
            $($lookup)*
            /// The event deciding this cycle is present.
            pub valid: Signal<In, Bit>,
            $($event)*
            /// The event's counters' new minimum (min_k c'_k) is >= T (the counters compute it
            /// off the minimum's carry chains).
            pub candidate: Signal<In, Bit>,
            /// The interval numbered `interval` ends in this clock: with the `valid` event, its
            /// last, or with no event (a flush).
            pub end_interval: Signal<In, Bit>,
            pub interval: Signal<In, Bits<32>>,
            /// T of the next interval, taken at reset and with `end_interval`
            /// ([`crate::multihash::threshold`]).
            pub threshold: Signal<In, Bits<{ $crate::multihash::threshold::THRESHOLD_BITS }>>,
            /// The event's tuple holds an entry (**shielding**: its counters are not written).
            pub hit: Signal<Out, Bit>,
            /// The event's tuple was allocated an entry.
            pub promoted: Signal<Out, Bit>,
            /// The interval report, one entry per clock (valid/ready).
            pub report_valid: Signal<Out, Bit>,
            pub report_ready: Signal<In, Bit>,
            pub report_interval: Signal<Out, Bits<32>>,
            $($report)*
            pub report_count: Signal<Out, Bits<32>>,
            pub report_last: Signal<Out, Bit>,
            /// A report is still being sent.
            pub report_busy: Signal<Out, Bit>,
            $($body)*
        }
    };
}
pub(crate) use accumulator;

/// A value of an accumulator declared with [`accumulator!`]: the shared ports unconnected, then
/// the organisation's own fields as given.
macro_rules! new_accumulator {
    ($name:ident { $($body:tt)* }) => {
        $name {
            clock: Default::default(),
            reset: Default::default(),
            valid: Default::default(),
            candidate: Default::default(),
            end_interval: Default::default(),
            interval: Default::default(),
            threshold: Default::default(),
            hit: Default::default(),
            promoted: Default::default(),
            report_valid: Default::default(),
            report_ready: Default::default(),
            report_interval: Default::default(),
            report_count: Default::default(),
            report_last: Default::default(),
            report_busy: Default::default(),
            $($body)*
        }
    };
}
pub(crate) use new_accumulator;
