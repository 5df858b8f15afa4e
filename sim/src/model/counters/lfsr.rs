//! Reference model of the banks' shared random source (`hwprof_hdl::counters::lfsr`), bit-exact: the
//! register states and the per-member counts Z_j of every clock, from the functions that define them
//! there; and an ideal software source for the study.

use hwprof_hdl::counters::lfsr::{advance, fresh, PoolParams};

/// The registers of one bank's source.
#[derive(Clone, Debug)]
pub struct SharedRandom {
    pub params: PoolParams,
    pub states: Vec<u128>,
    fresh: Vec<u128>,
}

impl SharedRandom {
    /// The state after the reset clock.
    pub fn new(params: PoolParams) -> Self {
        SharedRandom {
            params,
            states: params.seeds(),
            fresh: vec![0; params.registers()],
        }
    }

    /// One clock: Z_j of this clock for every member into `z`, then every register leaps.
    #[inline]
    pub fn clock(&mut self, z: &mut [u32]) {
        for (f, &s) in self.fresh.iter_mut().zip(&self.states) {
            *f = fresh(s);
        }
        for (j, zj) in z.iter_mut().enumerate() {
            *zj = self.params.z(&self.fresh, j);
        }
        for s in self.states.iter_mut() {
            *s = advance(*s);
        }
    }
}

/// Where a counter's random bits come from: one call per event, true iff the k bits this event reads
/// are all zero (probability 2^−k for a fair source). Every call consumes the event's bits.
pub trait RandomBits {
    fn all_zero(&mut self, k: u32) -> bool;
}

/// An ideal software source (ChaCha8): what the counters would do with truly independent bits.
pub struct IdealBits(pub rand_chacha::ChaCha8Rng);

impl IdealBits {
    pub fn new(seed: u64) -> Self {
        use rand::SeedableRng;
        IdealBits(rand_chacha::ChaCha8Rng::seed_from_u64(seed))
    }

    /// Events until (and including) the next one whose k bits are all zero: Geometric(2^−k).
    /// Drawing the gap instead of stepping every event lets the study reach 10^12 events.
    pub fn gap(&mut self, k: u32) -> u64 {
        use rand::Rng;
        if k == 0 {
            return 1;
        }
        let p = (-(k as f64)).exp2();
        let u: f64 = 1.0 - self.0.gen::<f64>(); // (0, 1]
        let g = (u.ln() / (-p).ln_1p()).floor();
        if g >= 1.8e19 {
            u64::MAX
        } else {
            g as u64 + 1
        }
    }
}

impl IdealBits {
    /// A standard normal draw (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        use rand::Rng;
        let u1: f64 = 1.0 - self.0.gen::<f64>();
        let u2: f64 = self.0.gen::<f64>();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

impl RandomBits for IdealBits {
    fn all_zero(&mut self, k: u32) -> bool {
        use rand::RngCore;
        self.0.next_u64() & ((1u128 << k) - 1) as u64 == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_is_geometric() {
        // P(Z >= x) = 2^-x: over 200 000 clocks of 5 members, the counts of Z >= 1..=6.
        let mut src = SharedRandom::new(PoolParams::new(5, 62, 7).unwrap());
        let mut z = [0u32; 5];
        let mut at_least = [0u64; 7];
        let clocks = 200_000;
        for _ in 0..clocks {
            src.clock(&mut z);
            for &zj in &z {
                for (x, n) in at_least.iter_mut().enumerate() {
                    *n += (zj >= x as u32) as u64;
                }
            }
        }
        let n = 5.0 * clocks as f64;
        for (x, &c) in at_least.iter().enumerate() {
            let p = (-(x as f64)).exp2();
            let sd = (n * p * (1.0 - p)).sqrt();
            assert!(
                (c as f64 - n * p).abs() < 5.0 * sd + 1.0,
                "P(Z >= {x}): {c} of {n}"
            );
        }
    }

    #[test]
    fn members_and_clocks_uncorrelated() {
        // Indicator Z >= 1 (one fresh bit): correlation between members 0 and 1 (same register),
        // members 1 and 2 (different registers), and member 0 on consecutive clocks.
        let mut src = SharedRandom::new(PoolParams::new(5, 62, 9).unwrap());
        let mut z = [0u32; 5];
        let clocks = 200_000;
        let (mut same, mut other, mut next) = (0i64, 0i64, 0i64);
        let mut prev = 0i64;
        for _ in 0..clocks {
            src.clock(&mut z);
            let b: Vec<i64> = z.iter().map(|&v| if v >= 1 { 1 } else { -1 }).collect();
            same += b[0] * b[1];
            other += b[1] * b[2];
            next += b[0] * prev;
            prev = b[0];
        }
        let bound = 5.0 * (clocks as f64).sqrt();
        for (what, v) in [
            ("same register", same),
            ("other register", other),
            ("next clock", next),
        ] {
            assert!((v as f64).abs() < bound, "{what}: {v}");
        }
    }
}
