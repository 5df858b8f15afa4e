//! Reference model of the leap-forward Fibonacci LFSR (`hwprof_hdl::counters::lfsr`), bit-exact.
//!
//! The leap matrix comes from the same [`LfsrParams::leap_columns`] the RTL uses; here it is applied
//! with one table per state byte (8 look-ups per leap) because the counter study leaps billions of
//! times. [`LeapMatrix::power`] jumps n leaps at once, for stretches where the consumer's decision is
//! known in advance (a floating-point counter with exponent 0 always increments).

use hwprof_hdl::counters::lfsr::LfsrParams;
use std::sync::Arc;

/// The leap as word operations. Within a chunk of c ≤ (smallest tap) steps every feedback bit is a
/// function of the old state only, so the c new bits are XOR over taps t of (s >> (t − c)), masked
/// to c bits; a leap of k steps is a few such chunks (64-bit register, leap 63: chunks of 60 and 3).
/// Equal to the RTL's leap matrix (tested against single steps).
#[derive(Debug)]
pub struct LeapTable {
    chunks: Vec<(u32, u64)>,
    taps: Vec<u32>,
    mask: u64,
}

impl LeapTable {
    pub fn new(params: LfsrParams) -> Self {
        let taps: Vec<u32> = hwprof_hdl::counters::lfsr::LFSR_TAPS[params.width].to_vec();
        let smallest = *taps.iter().min().expect("taps") as usize;
        let mut chunks = vec![];
        let mut left = params.leap;
        while left > 0 {
            let c = left.min(smallest);
            chunks.push((c as u32, hwprof_hdl::counters::lfsr::width_mask(c)));
            left -= c;
        }
        LeapTable {
            chunks,
            taps,
            mask: params.mask(),
        }
    }

    #[inline]
    pub fn apply(&self, mut s: u64) -> u64 {
        for &(c, cmask) in &self.chunks {
            let mut block = 0;
            for &t in &self.taps {
                block ^= s >> (t - c);
            }
            // c < 64 always (c ≤ smallest tap < width ≤ 64 unless the only tap is the width).
            s = ((s << c) | (block & cmask)) & self.mask;
        }
        s
    }
}

/// A GF(2) matrix by columns (`cols[j]` is the image of bit j), for jumping many leaps at once.
#[derive(Clone, Debug)]
pub struct LeapMatrix {
    cols: Vec<u64>,
}

impl LeapMatrix {
    pub fn new(params: LfsrParams) -> Self {
        LeapMatrix {
            cols: params.leap_columns(),
        }
    }

    pub fn apply(&self, s: u64) -> u64 {
        self.cols
            .iter()
            .enumerate()
            .filter(|(j, _)| s >> j & 1 == 1)
            .fold(0, |a, (_, c)| a ^ c)
    }

    /// self ∘ other.
    fn compose(&self, other: &LeapMatrix) -> LeapMatrix {
        LeapMatrix {
            cols: other.cols.iter().map(|&c| self.apply(c)).collect(),
        }
    }

    /// The matrix of n leaps.
    pub fn power(&self, mut n: u64) -> LeapMatrix {
        let width = self.cols.len();
        let mut acc = LeapMatrix {
            cols: (0..width).map(|j| 1u64 << j).collect(),
        };
        let mut base = self.clone();
        while n > 0 {
            if n & 1 == 1 {
                acc = base.compose(&acc);
            }
            base = base.compose(&base);
            n >>= 1;
        }
        acc
    }
}

/// One LFSR register: the state and the shared leap table of its parameters.
#[derive(Clone, Debug)]
pub struct Lfsr {
    pub state: u64,
    table: Arc<LeapTable>,
}

impl Lfsr {
    pub fn new(seed: u64, table: Arc<LeapTable>) -> Self {
        Lfsr { state: seed, table }
    }

    /// One consumed event: leap.
    #[inline]
    pub fn advance(&mut self) {
        self.state = self.table.apply(self.state);
    }

    /// n consumed events at once (`m` must be this register's leap matrix).
    pub fn advance_by(&mut self, m: &LeapMatrix, n: u64) {
        self.state = m.power(n).apply(self.state);
    }
}

/// Where a counter's random bits come from: one call per event, true iff the k bits this event reads
/// are all zero (probability 2^−k for a fair source). Every call consumes the event's bits.
pub trait RandomBits {
    fn all_zero(&mut self, k: u32) -> bool;
}

/// The hardware source: bits 0..k of the register, then the leap.
impl RandomBits for Lfsr {
    #[inline]
    fn all_zero(&mut self, k: u32) -> bool {
        let hit = self.state & hwprof_hdl::counters::lfsr::width_mask(k as usize) == 0;
        self.advance();
        hit
    }
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
        self.0.next_u64() & hwprof_hdl::counters::lfsr::width_mask(k as usize) == 0
    }
}

/// The mistake the leap avoids: the register shifts one step per event, so consecutive events read
/// overlapping windows of bits. Model only (it shows what correlated bits do to the estimate).
pub struct SlidingLfsr {
    pub state: u64,
    tap_mask: u64,
    mask: u64,
}

impl SlidingLfsr {
    pub fn new(seed: u64, width: usize) -> Result<Self, String> {
        let p = LfsrParams::new(width, 1)?;
        Ok(SlidingLfsr {
            state: seed,
            tap_mask: p.tap_mask(),
            mask: p.mask(),
        })
    }
}

impl RandomBits for SlidingLfsr {
    #[inline]
    fn all_zero(&mut self, k: u32) -> bool {
        let hit = self.state & hwprof_hdl::counters::lfsr::width_mask(k as usize) == 0;
        let fb = ((self.state & self.tap_mask).count_ones() & 1) as u64;
        self.state = ((self.state << 1) | fb) & self.mask;
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::hash::SplitMix64;

    #[test]
    fn table_leap_matches_single_steps() {
        for (w, k) in [(64, 63), (16, 15), (5, 3), (33, 20)] {
            let p = LfsrParams::new(w, k).unwrap();
            let t = Arc::new(LeapTable::new(p));
            let mut g = SplitMix64(w as u64);
            let seed = p.draw_seed(&mut g);
            let mut l = Lfsr::new(seed, t);
            let mut s = seed;
            for _ in 0..50 {
                l.advance();
                for _ in 0..k {
                    s = p.step(s);
                }
                assert_eq!(l.state, s, "width {w} leap {k}");
            }
        }
    }

    #[test]
    fn matrix_power_matches_repeated_leaps() {
        let p = LfsrParams::new(64, 63).unwrap();
        let t = Arc::new(LeapTable::new(p));
        let m = LeapMatrix::new(p);
        let mut a = Lfsr::new(0x1234_5678_9abc_def1, t.clone());
        let mut b = a.clone();
        for n in [0u64, 1, 2, 7, 100, 1000] {
            for _ in 0..n {
                a.advance();
            }
            b.advance_by(&m, n);
            assert_eq!(a.state, b.state, "n = {n}");
        }
    }
}
