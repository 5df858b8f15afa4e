//! Reference model of the floating-point counter bank (`hwprof_hdl::counters::float`), bit-exact with
//! the shared random source, and the same counter over an ideal source for the study.

use crate::model::counters::lfsr::{IdealBits, RandomBits, SharedRandom};
use crate::model::counters::morris::MODEL_MAX_EVENTS;
use hwprof_hdl::counters::float::FloatParams;

/// One floating-point counter: X = exponent e (high bits) and d-bit mantissa.
pub struct FloatCounter<R> {
    pub x: u64,
    pub mantissa: u32,
    pub max: u64,
    pub source: R,
}

impl<R: RandomBits> FloatCounter<R> {
    pub fn exponent(&self) -> u32 {
        (self.x >> self.mantissa) as u32
    }

    /// One event: increment iff the e fresh bits are all zero and X is not saturated.
    #[inline]
    pub fn event(&mut self) {
        if self.source.all_zero(self.exponent()) && self.x < self.max {
            self.x += 1;
        }
    }

    /// Events until the exponent leaves 0 are certain increments: how many of `n` those are.
    fn certain(&self, n: u64) -> u64 {
        if self.exponent() == 0 {
            n.min((1u64 << self.mantissa) - self.x)
        } else {
            0
        }
    }
}

impl FloatCounter<IdealBits> {
    pub fn ideal(params: &FloatParams, seed: u64) -> Self {
        FloatCounter {
            x: 0,
            mantissa: params.mantissa as u32,
            max: params.max_state(),
            source: IdealBits::new(seed),
        }
    }

    /// n events with an ideal source. Exact geometric gaps while few increments are at stake; for a
    /// long run at one exponent e (r mantissa steps left, each with probability p = 2^−e) the events
    /// needed are a sum of r geometric gaps, negative binomial, drawn from its normal approximation
    /// (same mean r/p and variance r(1−p)/p²; r > 1024 makes the shape error negligible next to the
    /// errors measured). Without this a count of 10^12 would take ~2^24 draws per exponent.
    pub fn events_by_gaps(&mut self, mut n: u64) {
        let k = self.certain(n);
        self.x += k;
        n -= k;
        while self.x < self.max && n > 0 {
            let e = self.exponent();
            let p = (-(e as f64)).exp2();
            let level_end = (((e as u64) + 1) << self.mantissa).min(self.max);
            let r = level_end - self.x;
            if r <= NORMAL_FROM || (n as f64) * p <= NORMAL_FROM as f64 {
                let gap = self.source.gap(e);
                if gap > n {
                    return;
                }
                n -= gap;
                self.x += 1;
                continue;
            }
            let (mean, sd) = (r as f64 / p, (r as f64 * (1.0 - p)).sqrt() / p);
            let t = (mean + sd * self.source.normal()).round().max(r as f64);
            if t <= n as f64 {
                n -= t as u64;
                self.x += r;
                continue;
            }
            // The level does not finish within n: the increments in n events, given fewer than r.
            let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
            loop {
                let kk = (mean + sd * self.source.normal()).round();
                if kk >= 0.0 && kk < r as f64 {
                    self.x += kk as u64;
                    return;
                }
            }
        }
    }
}

/// Below this many increments the ideal float counter draws every gap exactly.
const NORMAL_FROM: u64 = 1024;

/// The hardware bank: E counters, every one reading the clock's Z_0.
pub struct FloatBank {
    pub params: FloatParams,
    /// State X of event e's counter.
    pub x: Vec<u64>,
    pub random: SharedRandom,
    z: [u32; 1],
}

impl FloatBank {
    pub fn new(params: FloatParams) -> Result<Self, String> {
        params.validate()?;
        if params.events > MODEL_MAX_EVENTS {
            return Err(format!(
                "the model takes at most {MODEL_MAX_EVENTS} events per clock word, not {}",
                params.events
            ));
        }
        Ok(FloatBank {
            params,
            x: vec![0; params.events],
            random: SharedRandom::new(params.pool()?),
            z: [0],
        })
    }

    /// One clock: counter e increments on its event iff Z_0 ≥ its exponent.
    #[inline]
    pub fn clock(&mut self, inc: u64) {
        self.random.clock(&mut self.z);
        let d = self.params.mantissa;
        let mut w = inc;
        while w != 0 {
            let e = w.trailing_zeros() as usize;
            w &= w - 1;
            if self.z[0] as u64 >= self.x[e] >> d {
                self.x[e] += 1;
            }
        }
    }

    pub fn estimate(&self, i: usize) -> u64 {
        self.params.estimate(self.x[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_below_two_to_the_mantissa() {
        let p = FloatParams {
            bits: 12,
            mantissa: 8,
            events: 2,
            seed: 3,
        };
        let mut b = FloatBank::new(p).unwrap();
        for _ in 0..256 {
            b.clock(0b11);
        }
        assert_eq!((b.estimate(0), b.estimate(1)), (256, 256));
        b.clock(0b01);
        assert!(b.x[0] <= 257 && b.x[1] == 256);
        // Continuity of f at the exponent step; saturation past 2^64.
        let p = FloatParams::thirty_bit(1, 0);
        assert_eq!(p.estimate((1 << 24) - 1), (1 << 24) - 1);
        assert_eq!(p.estimate(1 << 24), 1 << 24);
        assert_eq!(p.estimate((1 << 24) + 1), (1 << 24) + 2);
        assert_eq!(p.estimate(40 << 24), u64::MAX, "saturates past 2^64");
    }

    #[test]
    fn stops_at_the_largest_exponent() {
        let p = FloatParams {
            bits: 5,
            mantissa: 3,
            events: 1,
            seed: 4,
        };
        let mut b = FloatBank::new(p).unwrap();
        for _ in 0..100_000 {
            b.clock(1);
        }
        assert_eq!(
            b.x[0],
            p.max_state(),
            "exponent 3 never passes (field of 2 bits)"
        );
    }

    #[test]
    fn bad_parameters_rejected() {
        let mut p = FloatParams::thirty_bit(29, 0);
        p.mantissa = 23; // 7-bit exponent
        assert!(FloatBank::new(p).is_err());
        let mut p = FloatParams::thirty_bit(29, 0);
        p.mantissa = 29; // 1-bit exponent
        assert!(FloatBank::new(p).is_err());
        assert!(FloatBank::new(FloatParams::thirty_bit(65, 0)).is_err());
    }
}
