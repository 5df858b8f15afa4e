//! The stream ports every profiler top shares, so that testbenches and exporters are written once
//! for every design (the pipelined profiler, its block-RAM variant and the baseline).
//!
//! **Ports** (one clock, synchronous active-high `reset`):
//! - event input stream: `in_valid`, `in_ready`, `in_a`, `in_b` (64 bits; masked to
//!   `a_bits`/`b_bits` inside);
//! - report output stream: `out_valid`, `out_ready`, `out_interval` (32 bits, wraps),
//!   `out_a`, `out_b`, `out_count` (32 bits), `out_last` (last word of the interval's report).
//!   Each interval's report is its entries in accumulator-entry order; an empty report is one
//!   marker word with `out_count` = 0 and `out_last` = 1;
//! - settings ([`super::interval`]): `interval_length` (41 bits), L of the intervals that start
//!   from now on, 1 ..= `max_interval`; `flush`, a pulse that ends the open interval after the
//!   events taken so far (that clock's included) and reports it, a no-op on an interval without
//!   events; `flush_pending`, high from the clock after the pulse until the interval has ended
//!   (no event is taken meanwhile); `threshold` (32 bits), T of the intervals that start from now
//!   on, `min_threshold` ..= `max_threshold` ([`super::threshold`]). A profiler with fixed
//!   settings ties `interval_length` to L, `threshold` to T and `flush` low
//!   ([`fixed_settings_ports`]).

use rust_hdl::prelude::*;

/// One report word on the output ports: (interval, a, b, count, last).
pub type ReportWord = (u64, u64, u64, u64, bool);

/// The stream ports every profiler top shares (the port list at the top of this file), so that
/// testbenches and exporters are written once for every design.
pub trait ProfilerTop: Block {
    /// Whether each report lists its entries in accumulator-entry order, like the model. A design
    /// that reports entries in another order (the set-associative one: in the order it retires
    /// sets) is compared with the model entry-set by entry-set.
    const ENTRY_ORDER: bool;
    /// Whether events taken at the input wait in stages before the one that accepts them into
    /// an interval (the block-RAM profiler's skid, hash and refused-slot stages): a new
    /// `interval_length` then reaches some of them before they end their interval.
    const STAGES_BEFORE_ACCEPT: bool;
    /// Sets every input port: the clock level, reset, the offered event (if any), `out_ready`.
    /// Settings come from [`Self::set_length`], [`Self::set_threshold`] and [`Self::set_flush`]
    /// (L and T of the configuration, no flush, until they are called).
    fn drive(&mut self, clock: bool, reset: bool, offer: Option<(u64, u64)>, out_ready: bool);
    /// What `drive` sets `interval_length` to from now on.
    fn set_length(&mut self, length: u64);
    /// What `drive` sets `threshold` to from now on.
    fn set_threshold(&mut self, threshold: u64);
    /// What `drive` sets `flush` to from now on (a testbench raises it for one clock).
    fn set_flush(&mut self, flush: bool);
    fn flush_pending(&self) -> bool;
    fn in_ready(&self) -> bool;
    /// The word on the report ports while `out_valid` is high.
    fn out_word(&self) -> Option<ReportWord>;
    /// Clocks within which a report starts after its interval's last event, at full speed, with
    /// slack: the testbenches' time-out.
    fn drain_bound(&self) -> u64;
}

/// Implements [`ProfilerTop`] for a top whose ports have the standard names and whose field
/// `_drain_bound` holds [`ProfilerTop::drain_bound`].
macro_rules! impl_profiler_top {
    ($name:ident<$(const $g:ident),*>, entry_order = $eo:expr, stages_before_accept = $sb:expr) => {
        impl<$(const $g: usize),*> $crate::multihash::ProfilerTop for $name<$($g),*> {
            const ENTRY_ORDER: bool = $eo;
            const STAGES_BEFORE_ACCEPT: bool = $sb;
            fn drive(
                &mut self,
                clock: bool,
                reset: bool,
                offer: Option<(u64, u64)>,
                out_ready: bool,
            ) {
                use $crate::util::bits_u64;
                self.clock.next = Clock { clk: clock };
                self.reset.next = reset;
                self.in_valid.next = offer.is_some();
                let (a, b) = offer.unwrap_or((0, 0));
                self.in_a.next = bits_u64::<64>(a);
                self.in_b.next = bits_u64::<64>(b);
                self.out_ready.next = out_ready;
                self.interval_length.next = $crate::util::bits_u64(self._length);
                self.threshold.next = $crate::util::bits_u64(self._threshold);
                self.flush.next = self._flush;
            }
            fn set_threshold(&mut self, threshold: u64) {
                self._threshold = threshold;
            }
            fn set_length(&mut self, length: u64) {
                self._length = length;
            }
            fn set_flush(&mut self, flush: bool) {
                self._flush = flush;
            }
            fn flush_pending(&self) -> bool {
                self.flush_pending.val()
            }
            fn in_ready(&self) -> bool {
                self.in_ready.val()
            }
            fn out_word(&self) -> Option<$crate::multihash::ReportWord> {
                use $crate::util::u64_bits;
                self.out_valid.val().then(|| {
                    (
                        u64_bits(self.out_interval.val()),
                        u64_bits(self.out_a.val()),
                        u64_bits(self.out_b.val()),
                        u64_bits(self.out_count.val()),
                        self.out_last.val(),
                    )
                })
            }
            fn drain_bound(&self) -> u64 {
                self._drain_bound
            }
        }
    };
}
pub(crate) use impl_profiler_top;

/// Declares a profiler top: a `#[derive(LogicBlock)]` struct whose first fields are the standard
/// ports (the list at the top of this file), then the design's own fields as given.
macro_rules! profiler_top {
    ($(#[$m:meta])* pub struct $name:ident<const CB: usize> { $($body:tt)* }) => {
        $(#[$m])*
        #[derive(LogicBlock)]
        pub struct $name<const CB: usize> {
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
            pub interval_length: Signal<In, Bits<{ $crate::multihash::interval::INTERVAL_COUNT_BITS }>>,
            pub flush: Signal<In, Bit>,
            pub flush_pending: Signal<Out, Bit>,
            pub threshold: Signal<In, Bits<{ $crate::multihash::threshold::THRESHOLD_BITS }>>,
            /// What [`ProfilerTop::drive`] sets the settings ports to.
            _length: u64,
            _threshold: u64,
            _flush: bool,
            $($body)*
        }
    };
}
pub(crate) use profiler_top;

/// A value of a top declared with [`profiler_top!`] for the configuration `cfg`: the standard
/// ports unconnected, then the design's own fields as given.
macro_rules! new_profiler_top {
    ($cfg:expr, $name:ident { $($body:tt)* }) => {
        $name {
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
            interval_length: Default::default(),
            flush: Default::default(),
            flush_pending: Default::default(),
            threshold: Default::default(),
            _length: $cfg.interval,
            _threshold: $cfg.threshold,
            _flush: false,
            $($body)*
        }
    };
}
pub(crate) use new_profiler_top;

/// The settings ports of a profiler instance whose settings are fixed (Verilog, after the other
/// ports): L and T of `cfg`, no flush, `flush_pending` into the wire `unused` (a name Verilator's
/// unused-signal lint passes over, containing "unused"), which the caller declares.
pub fn fixed_settings_ports(cfg: &crate::config::ProfilerConfig, unused: &str) -> String {
    assert!(unused.contains("unused"));
    format!(
        ".interval_length({}'d{}), .threshold({}'d{}), .flush(1'b0), .flush_pending({unused})",
        super::interval::INTERVAL_COUNT_BITS,
        cfg.interval,
        super::threshold::THRESHOLD_BITS,
        cfg.threshold
    )
}
