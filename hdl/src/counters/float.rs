//! Floating-point approximate counters (Csűrös, "Approximate counting with a floating-point counter",
//! COCOON 2010) on the shared random source, in a bank with the same interface as the Morris bank.
//!
//! A counter is one B-bit integer X read as exponent e = X >> d and d-bit mantissa m = X mod 2^d. On
//! an event X increments with probability 2^−e; the estimate is f(X) = (2^d + m)·2^e − 2^d, unbiased,
//! and exact while e = 0, i.e. for counts below 2^d. The estimate saturates at 2^64 − 1 when it would
//! not fit 64 bits (e > 63 − d).
//!
//! **Trial.** Every counter of the bank is member 0 of the shared source (`lfsr.rs`): it increments
//! iff Z_0 ≥ e. The field has 2^(B−d) − 2 bits, so the largest exponent never passes: the counter
//! stops at X = (2^(B−d) − 1)·2^d, no saturation test needed (for e6 m24 the estimate has long
//! saturated there).
//!
//! Query port: as the Morris bank's, with a latency of 2 clocks (snapshot, then f(X)).

use crate::counters::bank::{
    approximate_counter, counter_bank, new_approximate_counter, new_counter_bank, QueryControl,
    ESTIMATE_BITS, QUERY_INDEX_BITS,
};
use crate::counters::lfsr::{PoolParams, SharedRandom, Z_BITS};
use rust_hdl::prelude::*;

/// Parameters of a floating-point counter bank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatParams {
    /// Counter width B (bits per event), 3..=64.
    pub bits: usize,
    /// Mantissa width d, 1..B − 1; the exponent has 2..=6 bits.
    pub mantissa: usize,
    /// Number of events E (1..=256).
    pub events: usize,
    /// Seed of SplitMix64, which draws the source's register seeds.
    pub seed: u64,
}

impl FloatParams {
    /// 30 bits per event (the Morris 6×5 storage): 6-bit exponent, 24-bit mantissa.
    pub fn thirty_bit(events: usize, seed: u64) -> Self {
        FloatParams {
            bits: 30,
            mantissa: 24,
            events,
            seed,
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if !(3..=64).contains(&self.bits) {
            return Err(format!("float counter bits {} outside 3..=64", self.bits));
        }
        if self.mantissa == 0 || self.mantissa + 2 > self.bits || self.bits - self.mantissa > 6 {
            return Err(format!(
                "float counter mantissa {} must be in {}..={} (exponent of 2..=6 bits)",
                self.mantissa,
                self.bits.saturating_sub(6).max(1),
                self.bits - 2
            ));
        }
        if !(1..=256).contains(&self.events) {
            return Err(format!("float bank events {} outside 1..=256", self.events));
        }
        self.pool().map(|_| ())
    }

    /// The exponent whose trials never pass: 2^(B−d) − 1.
    pub fn max_exponent(&self) -> u32 {
        (1u32 << (self.bits - self.mantissa)) - 1
    }

    /// The largest X the counter reaches: (2^(B−d) − 1)·2^d.
    pub fn max_state(&self) -> u64 {
        (self.max_exponent() as u64) << self.mantissa
    }

    /// The bank's random source: one member (every counter reads Z_0), 2^(B−d) − 2 bits.
    pub fn pool(&self) -> Result<PoolParams, String> {
        PoolParams::new(
            1,
            PoolParams::field_for_state_bits(self.bits - self.mantissa),
            self.seed,
        )
    }

    /// f(X) = (2^d + m)·2^e − 2^d, saturating at 2^64 − 1.
    pub fn estimate(&self, x: u64) -> u64 {
        let d = self.mantissa as u32;
        let e = (x >> d) as u32;
        let m = x & ((1u64 << d) - 1);
        if e > 63 - d {
            u64::MAX
        } else {
            (((1u64 << d) + m) << e) - (1u64 << d)
        }
    }
}

approximate_counter! {
    /// One floating-point counter; its random bits arrive as the clock's Z_0.
    /// X is the exponent above the mantissa.
    pub struct FloatCounter<const B: usize> {
        state: DFF<Bits<B>>,
        mantissa_bits: Constant<Bits<B>>,
    }
}

impl<const B: usize> FloatCounter<B> {
    pub fn new(params: &FloatParams) -> Result<Self, String> {
        params.validate()?;
        new_approximate_counter!(FloatCounter, bits = params.bits, {
            state: Default::default(),
            mantissa_bits: Constant::new(bits(params.mantissa as u64)),
        })
    }
}

impl<const B: usize> Logic for FloatCounter<B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.x.next = self.state.q.val();
        // Z ≥ e (the exponent has at most 6 bits).
        if self.inc.val()
            & (self.z.val()
                >= bit_cast::<Z_BITS, B>(self.state.q.val() >> self.mantissa_bits.val()))
        {
            self.state.d.next = self.state.q.val() + 1;
        }
        if self.reset.val() {
            self.state.d.next = 0.into();
        }
    }
}

counter_bank! {
    /// A bank of E floating-point counters with the Morris bank's ports.
    pub struct FloatBank<const E: usize, const B: usize, const R: usize> {
        pub counters: [FloatCounter<B>; E],
        random: SharedRandom<1, R>,
        event_ids: [Constant<Bits<QUERY_INDEX_BITS>>; E],
        snap: DFF<Bits<B>>,
        result: DFF<Bits<ESTIMATE_BITS>>,
        mantissa_bits: Constant<Bits<B>>,
        mantissa_mask: Constant<Bits<B>>,
        hidden_one: Constant<Bits<ESTIMATE_BITS>>,
        exponent_limit: Constant<Bits<B>>,
        saturated: Constant<Bits<ESTIMATE_BITS>>,
    }
}

impl<const E: usize, const B: usize, const R: usize> FloatBank<E, B, R> {
    pub fn new(params: &FloatParams) -> Result<Self, String> {
        params.validate()?;
        if params.events != E || params.bits != B {
            return Err(format!(
                "bank <E={E}, B={B}> does not match parameters {params:?}"
            ));
        }
        let counters: Vec<FloatCounter<B>> = (0..E)
            .map(|_| FloatCounter::new(params))
            .collect::<Result<_, _>>()?;
        let d = params.mantissa as u64;
        Ok(new_counter_bank!(FloatBank {
            counters: counters.try_into().map_err(|_| "bank size").unwrap(),
            random: SharedRandom::new(&params.pool()?)?,
            event_ids: std::array::from_fn(|i| Constant::new(bits(i as u64))),
            snap: Default::default(),
            result: Default::default(),
            mantissa_bits: Constant::new(bits(d)),
            mantissa_mask: Constant::new(bits((1u64 << d) - 1)),
            hidden_one: Constant::new(bits(1u64 << d)),
            exponent_limit: Constant::new(bits(63 - d)),
            saturated: Constant::new(bits(u64::MAX)),
        }))
    }
}

impl<const E: usize, const B: usize, const R: usize> Logic for FloatBank<E, B, R> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, snap, result);
        clock!(self, clock, random, query);
        self.random.reset.next = self.reset.val();
        for i in 0..E {
            self.counters[i].z.next = self.random.z[0].val();
            self.counters[i].clock.next = self.clock.val();
            self.counters[i].reset.next = self.reset.val();
            self.counters[i].inc.next = self.inc.val().get_bit(i);
        }
        self.query.reset.next = self.reset.val();
        self.query.query_valid.next = self.query_valid.val();
        self.query_ready.next = self.query.query_ready.val();
        self.estimate_valid.next = self.query.estimate_valid.val();
        self.estimate.next = self.result.q.val();
        // Snapshot X as the query is taken, f(X) the clock after.
        self.query.finish.next = true;
        if self.query.accept.val() {
            for i in 0..E {
                if self.query_event.val() == self.event_ids[i].val() {
                    self.snap.d.next = self.counters[i].x.val();
                }
            }
        }
        if self.query.busy.val() {
            if (self.snap.q.val() >> self.mantissa_bits.val()) > self.exponent_limit.val() {
                self.result.d.next = self.saturated.val();
            } else {
                self.result.d.next =
                    ((bit_cast::<ESTIMATE_BITS, B>(self.snap.q.val() & self.mantissa_mask.val())
                        + self.hidden_one.val())
                        << bit_cast::<ESTIMATE_BITS, B>(
                            self.snap.q.val() >> self.mantissa_bits.val(),
                        ))
                        - self.hidden_one.val();
            }
        }
    }
}
