//! Reference model of the floating-point counter bank (`hwprof_hdl::counters::float`), bit-exact with
//! the hardware LFSR source, and the same counter over an ideal source for the study.

use crate::model::counters::lfsr::{IdealBits, LeapMatrix, LeapTable, Lfsr, RandomBits};
use hwprof_hdl::counters::float::FloatParams;
use std::sync::Arc;

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

impl FloatCounter<Lfsr> {
    /// n events, bit-exact: the certain increments below 2^d jump the LFSR with a matrix power.
    pub fn events(&mut self, n: u64, leap: &LeapMatrix) {
        let k = self.certain(n);
        self.x += k;
        self.source.advance_by(leap, k);
        for _ in k..n {
            self.event();
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

/// The hardware bank: E counters, each on its own leap-forward LFSR.
pub struct FloatBank {
    pub params: FloatParams,
    pub counters: Vec<FloatCounter<Lfsr>>,
    pub leap: LeapMatrix,
}

impl FloatBank {
    pub fn new(params: FloatParams) -> Result<Self, String> {
        params.validate()?;
        let table = Arc::new(LeapTable::new(params.lfsr));
        let counters = params
            .lfsr_seeds()
            .into_iter()
            .map(|s| FloatCounter {
                x: 0,
                mantissa: params.mantissa as u32,
                max: params.max_state(),
                source: Lfsr::new(s, table.clone()),
            })
            .collect();
        Ok(FloatBank {
            params,
            counters,
            leap: LeapMatrix::new(params.lfsr),
        })
    }

    pub fn clock(&mut self, inc: u64) {
        for (i, c) in self.counters.iter_mut().enumerate() {
            if inc >> i & 1 == 1 {
                c.event();
            }
        }
    }

    pub fn estimate(&self, i: usize) -> u64 {
        self.params.estimate(self.counters[i].x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::counters::lfsr::LfsrParams;

    #[test]
    fn exact_below_two_to_the_mantissa() {
        let mut b = FloatBank::new(FloatParams::thirty_bit(1, 3)).unwrap();
        let leap = b.leap.clone();
        b.counters[0].events(1 << 24, &leap);
        assert_eq!(b.estimate(0), 1 << 24);
        // Continuity of f at the exponent step.
        let p = FloatParams::thirty_bit(1, 0);
        assert_eq!(p.estimate((1 << 24) - 1), (1 << 24) - 1);
        assert_eq!(p.estimate(1 << 24), 1 << 24);
        assert_eq!(p.estimate((1 << 24) + 1), (1 << 24) + 2);
        assert_eq!(p.estimate(40 << 24), u64::MAX, "saturates past 2^64");
    }

    #[test]
    fn bulk_events_match_single_events() {
        let p = FloatParams {
            bits: 10,
            mantissa: 6,
            events: 2,
            lfsr: LfsrParams::new(16, 15).unwrap(),
            seed: 9,
        };
        let mut a = FloatBank::new(p).unwrap();
        let mut b = FloatBank::new(p).unwrap();
        let leap = b.leap.clone();
        for _ in 0..5000 {
            a.clock(1);
        }
        b.counters[0].events(5000, &leap);
        assert_eq!(a.counters[0].x, b.counters[0].x);
        assert_eq!(a.counters[0].source.state, b.counters[0].source.state);
    }

    #[test]
    fn bad_parameters_rejected() {
        let mut p = FloatParams::thirty_bit(29, 0);
        p.mantissa = 23; // 7-bit exponent
        assert!(FloatBank::new(p).is_err());
        let mut p = FloatParams::thirty_bit(29, 0);
        p.lfsr = LfsrParams::new(32, 32).unwrap();
        assert!(FloatBank::new(p).is_err());
    }
}
