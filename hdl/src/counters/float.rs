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
//! Query port ([`crate::counters::bank`]): the chosen counter's X goes into [`FloatEstimate`], which
//! produces f(X) one bit per clock, least significant first: no barrel shifter, no 64-bit subtractor.
//! Latency: 65 clocks from acceptance to `estimate_valid`.

use crate::counters::bank::{
    approximate_counter, counter_bank, new_approximate_counter, new_counter_bank, EventSelect,
    QueryControl, ESTIMATE_BITS, QUERY_INDEX_BITS,
};
use crate::counters::lfsr::{PoolParams, SharedRandom, ZeroCount, Z_BITS};
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

/// f(X) of a floating-point counter, computed serially: the bank's query arithmetic.
///
/// f(X) = A − 2^d with A = (2^d + m)·2^e. On `start` the unit takes X; on each of the next 64
/// clocks with `run` high it emits bit i of f (i = 0, 1, …, 63) into the top of `estimate`, shifting
/// the rest down: bit i of A is bit i − e of 2^d + m (0 below e), read from a register that shifts
/// right once i ≥ e; the subtraction of 2^d is one borrow bit. A saturated X (e > 63 − d) emits
/// ones. `last` is high on the 64th working clock; `estimate` then holds f(X) until `run` next.
#[derive(LogicBlock)]
pub struct FloatEstimate<const B: usize> {
    pub clock: Signal<In, Clock>,
    /// Take `x` (and restart) this clock.
    pub start: Signal<In, Bit>,
    /// Work this clock (ignored with `start`).
    pub run: Signal<In, Bit>,
    pub x: Signal<In, Bits<B>>,
    pub last: Signal<Out, Bit>,
    pub estimate: Signal<Out, Bits<ESTIMATE_BITS>>,
    /// Bit index i of f emitted this clock.
    step: DFF<Bits<6>>,
    exponent: DFF<Bits<6>>,
    /// 2^d + m, shifted right by the bits of A emitted at or above e.
    value: DFF<Bits<B>>,
    borrow: DFF<Bit>,
    saturated: DFF<Bit>,
    work: DFF<Bits<ESTIMATE_BITS>>,
    /// Bit i of A, of 2^d, and of f.
    a: Signal<Local, Bit>,
    b: Signal<Local, Bit>,
    f: Signal<Local, Bit>,
    mantissa_bits: Constant<Bits<B>>,
    mantissa_mask: Constant<Bits<B>>,
    hidden_one: Constant<Bits<B>>,
    hidden_step: Constant<Bits<6>>,
    /// 63 − d: the largest exponent whose f fits 64 bits.
    exponent_limit: Constant<Bits<8>>,
    last_step: Constant<Bits<6>>,
    top_bit: Constant<Bits<ESTIMATE_BITS>>,
}

impl<const B: usize> FloatEstimate<B> {
    pub fn new(params: &FloatParams) -> Result<Self, String> {
        params.validate()?;
        if params.bits != B {
            return Err(format!(
                "float estimate width {B} != parameters ({})",
                params.bits
            ));
        }
        let d = params.mantissa as u64;
        Ok(FloatEstimate {
            clock: Default::default(),
            start: Default::default(),
            run: Default::default(),
            x: Default::default(),
            last: Default::default(),
            estimate: Default::default(),
            step: Default::default(),
            exponent: Default::default(),
            value: Default::default(),
            borrow: Default::default(),
            saturated: Default::default(),
            work: Default::default(),
            a: Default::default(),
            b: Default::default(),
            f: Default::default(),
            mantissa_bits: Constant::new(bits(d)),
            mantissa_mask: Constant::new(bits((1u64 << d) - 1)),
            hidden_one: Constant::new(bits(1u64 << d)),
            hidden_step: Constant::new(bits(d)),
            exponent_limit: Constant::new(bits(63 - d)),
            last_step: Constant::new(bits(63)),
            top_bit: Constant::new(bits(1u64 << 63)),
        })
    }
}

impl<const B: usize> Logic for FloatEstimate<B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, step, exponent, value, borrow, saturated, work);
        self.estimate.next = self.work.q.val();
        self.last.next = self.step.q.val() == self.last_step.val();
        self.a.next = (self.step.q.val() >= self.exponent.q.val()) & self.value.q.val().get_bit(0);
        self.b.next = self.step.q.val() == self.hidden_step.val();
        self.f.next = self.saturated.q.val() | (self.a.val() ^ self.b.val() ^ self.borrow.q.val());
        if self.start.val() {
            self.step.d.next = 0.into();
            self.borrow.d.next = false;
            self.exponent.d.next = bit_cast::<6, B>(self.x.val() >> self.mantissa_bits.val());
            self.value.d.next = (self.x.val() & self.mantissa_mask.val()) | self.hidden_one.val();
            self.saturated.d.next = bit_cast::<8, B>(self.x.val() >> self.mantissa_bits.val())
                > self.exponent_limit.val();
        } else if self.run.val() {
            self.step.d.next = self.step.q.val() + 1;
            self.borrow.d.next = (!self.a.val() & (self.b.val() | self.borrow.q.val()))
                | (self.b.val() & self.borrow.q.val());
            if self.step.q.val() >= self.exponent.q.val() {
                self.value.d.next = self.value.q.val() >> 1;
            }
            self.work.d.next = self.work.q.val() >> 1;
            if self.f.val() {
                self.work.d.next = (self.work.q.val() >> 1) | self.top_bit.val();
            }
        }
    }
}

counter_bank! {
    /// A bank of E floating-point counters with the Morris bank's ports.
    pub struct FloatBank<const E: usize, const B: usize, const R: usize> {
        pub counters: [FloatCounter<B>; E],
        random: SharedRandom<1, R>,
        select: EventSelect<B>,
        estimator: FloatEstimate<B>,
    }
}

impl<const E: usize, const B: usize, const R: usize> FloatBank<E, B, R> {
    /// `zero_count`: the random source's mapping (the function is the same).
    pub fn new(params: &FloatParams, zero_count: ZeroCount) -> Result<Self, String> {
        params.validate()?;
        if params.events != E || params.bits != B {
            return Err(format!(
                "bank <E={E}, B={B}> does not match parameters {params:?}"
            ));
        }
        let counters: Vec<FloatCounter<B>> = (0..E)
            .map(|_| FloatCounter::new(params))
            .collect::<Result<_, _>>()?;
        Ok(new_counter_bank!(FloatBank {
            counters: counters.try_into().map_err(|_| "bank size").unwrap(),
            random: SharedRandom::new(&params.pool()?, zero_count)?,
            select: EventSelect::new(E, 1),
            estimator: FloatEstimate::new(params)?,
        }))
    }
}

impl<const E: usize, const B: usize, const R: usize> Logic for FloatBank<E, B, R> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, random, query, estimator);
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
        self.select.query_event.next = self.query_event.val();
        for i in 0..E {
            self.select.inputs[i].next = self.counters[i].x.val();
        }
        self.estimator.start.next = self.query.accept.val();
        self.estimator.run.next = self.query.busy.val();
        self.estimator.x.next = self.select.outputs[0].val();
        self.query.finish.next = self.estimator.last.val();
        self.estimate.next = self.estimator.estimate.val();
    }
}
