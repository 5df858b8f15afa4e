//! Width-generic Fibonacci LFSR with leap-forward: the random source of the approximate counters.
//!
//! **Convention.** State bit i is stage i+1 of the shift register. One step shifts left: stage 1 (bit 0)
//! takes the feedback, the XOR of the stages listed in [`LFSR_TAPS`], and the old last stage falls out.
//! So after k steps the k freshest output bits sit in bits 0..k (bit 0 the newest).
//!
//! **Fresh bits (the correlation question).** A consumer that ORs X state bits and then lets the
//! register shift by one would see X−1 of the same bits again at its next event: the windows overlap,
//! the events are strongly correlated (a run of L zeros in the stream would push a Morris counter from
//! X straight to about L). Here the register *leaps* `leap` steps per consumed event, computed in one
//! clock as a constant GF(2) matrix (each new bit is the parity of a fixed subset of the old bits), and
//! the consumer reads only bits 0..X with X ≤ `leap`. Every event therefore sees only bits that no
//! earlier event has seen. The register advances only when its consumer takes an event, so the bits an
//! event sees depend on the event count, not on the cycle it arrives in (the model needs no timing).
//!
//! Note: a decimation by `leap` of an m-sequence of period 2^W−1 has period (2^W−1)/gcd(leap, 2^W−1);
//! for W = 64, leap = 63 that is (2^64−1)/3, still far beyond any run.

use crate::hash::SplitMix64;
use rust_hdl::prelude::*;

/// Largest supported register width.
pub const MAX_LFSR_WIDTH: usize = 64;

/// Maximal-length taps for widths 2..=64 (1-based stage numbers, the first is always the width),
/// from Xilinx XAPP052 (Alfke 1996), table 3. With XOR feedback the all-zero state is the lock-up
/// state; every other state lies on the single cycle of length 2^W − 1. The test
/// `lfsr::tests::taps_are_maximal` proves each entry primitive (order of x modulo the feedback
/// polynomial is exactly 2^W − 1), and steps the small widths through their whole period.
pub const LFSR_TAPS: [&[u32]; MAX_LFSR_WIDTH + 1] = [
    &[],
    &[],
    &[2, 1],
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 22, 2, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
    &[64, 63, 61, 60],
];

/// An LFSR configuration: register `width` W (2..=64) and `leap` k, the number of steps taken per
/// consumed event (1..=W), which is also how many fresh bits each event may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LfsrParams {
    pub width: usize,
    pub leap: usize,
}

impl LfsrParams {
    /// Rejects widths outside the taps table and leaps that would hand out more bits than the
    /// register holds.
    pub fn new(width: usize, leap: usize) -> Result<Self, String> {
        if !(2..=MAX_LFSR_WIDTH).contains(&width) {
            return Err(format!(
                "LFSR width {width} outside 2..={MAX_LFSR_WIDTH} (the taps table)"
            ));
        }
        if leap == 0 || leap > width {
            return Err(format!(
                "LFSR leap {leap} must be in 1..={width} (fresh bits per event ≤ register width)"
            ));
        }
        Ok(LfsrParams { width, leap })
    }

    /// All-ones mask of the register width.
    pub fn mask(&self) -> u64 {
        width_mask(self.width)
    }

    /// Feedback mask: the tapped stages as state bits.
    pub fn tap_mask(&self) -> u64 {
        LFSR_TAPS[self.width]
            .iter()
            .fold(0, |m, &t| m | 1u64 << (t - 1))
    }

    /// One single step of the register.
    pub fn step(&self, s: u64) -> u64 {
        let fb = ((s & self.tap_mask()).count_ones() & 1) as u64;
        ((s << 1) | fb) & self.mask()
    }

    /// Column j of the leap matrix: the state `leap` steps after the unit state e_j. By linearity
    /// the leaped state is the XOR of the columns of the set bits.
    pub fn leap_columns(&self) -> Vec<u64> {
        (0..self.width)
            .map(|j| {
                let mut s = 1u64 << j;
                for _ in 0..self.leap {
                    s = self.step(s);
                }
                s
            })
            .collect()
    }

    /// A non-zero seed for one register, drawn from the documented generator.
    pub fn draw_seed(&self, g: &mut SplitMix64) -> u64 {
        loop {
            let s = g.next_u64() & self.mask();
            if s != 0 {
                return s;
            }
        }
    }
}

/// All-ones in the low `width` bits.
pub fn width_mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The leap network: `leaped` is `now` advanced `leap` steps, one parity per output bit. Written as
/// custom Verilog (XOR reductions in an `always @(*)`; rust-hdl declares outputs `reg`) because an hdl_gen kernel cannot assemble a vector bit
/// by bit; the Rust `update` evaluates the same rows, and the Icarus cross-simulation checks both.
#[derive(LogicBlock)]
pub struct LeapNetwork<const W: usize> {
    pub now: Signal<In, Bits<W>>,
    pub leaped: Signal<Out, Bits<W>>,
    /// Row i: the old bits whose parity is new bit i.
    rows: [Constant<Bits<W>>; W],
}

impl<const W: usize> LeapNetwork<W> {
    pub fn new(params: LfsrParams) -> Self {
        let cols = params.leap_columns();
        let rows: Vec<u64> = (0..W)
            .map(|i| {
                (0..W)
                    .filter(|&j| cols[j] >> i & 1 == 1)
                    .fold(0, |m, j| m | 1u64 << j)
            })
            .collect();
        LeapNetwork {
            now: Default::default(),
            leaped: Default::default(),
            rows: std::array::from_fn(|i| Constant::new(bits::<W>(rows[i]))),
        }
    }
}

impl<const W: usize> Logic for LeapNetwork<W> {
    fn update(&mut self) {
        let s = self.now.val().to_u64();
        let mut r = 0u64;
        for i in 0..W {
            r |= (((s & self.rows[i].val().to_u64()).count_ones() & 1) as u64) << i;
        }
        self.leaped.next = bits::<W>(r);
    }

    fn connect(&mut self) {
        self.leaped.connect();
    }

    fn hdl(&self) -> Verilog {
        let terms: Vec<String> = (0..W).rev().map(|i| format!("^(now & rows${i})")).collect();
        Verilog::Custom(format!(
            "always @(*) leaped = {{\n    {}}};\n",
            terms.join(",\n    ")
        ))
    }
}

/// The LFSR as hardware: `state` is the register; with `advance` high at a clock edge it leaps
/// `leap` steps (one clock, parity network); `reset` (synchronous, active high) reloads the seed.
#[derive(LogicBlock)]
pub struct Lfsr<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Consume one event's bits: leap at this edge.
    pub advance: Signal<In, Bit>,
    /// Current state; a consumer reads its random bits from bits 0..leap.
    pub state: Signal<Out, Bits<W>>,
    shift: DFFWithInit<Bits<W>>,
    seed: Constant<Bits<W>>,
    network: LeapNetwork<W>,
}

impl<const W: usize> Lfsr<W> {
    /// `seed` must be non-zero and fit in W bits; `params.width` must equal W.
    pub fn new(params: LfsrParams, seed: u64) -> Result<Self, String> {
        if params.width != W {
            return Err(format!(
                "LFSR block width {W} does not match parameters ({})",
                params.width
            ));
        }
        if seed == 0 || seed & !params.mask() != 0 {
            return Err(format!(
                "LFSR seed {seed:#x} must be non-zero and fit in {W} bits"
            ));
        }
        Ok(Lfsr {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            state: Default::default(),
            shift: DFFWithInit::new(bits::<W>(seed)),
            seed: Constant::new(bits::<W>(seed)),
            network: LeapNetwork::new(params),
        })
    }
}

impl<const W: usize> Logic for Lfsr<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, shift);
        self.state.next = self.shift.q.val();
        self.network.now.next = self.shift.q.val();
        if self.advance.val() {
            self.shift.d.next = self.network.leaped.val();
        }
        if self.reset.val() {
            self.shift.d.next = self.seed.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Carry-less multiply of two polynomials of degree < 64 modulo `p` (degree n, bit n set).
    fn mulmod(a: u64, b: u64, p: u128, n: u32) -> u64 {
        let mut r: u128 = 0;
        for i in 0..64 {
            if b >> i & 1 == 1 {
                r ^= (a as u128) << i;
            }
        }
        for i in (n..128).rev() {
            if r >> i & 1 == 1 {
                r ^= p << (i - n);
            }
        }
        r as u64
    }

    fn powmod(mut e: u128, p: u128, n: u32) -> u64 {
        let (mut base, mut acc) = (2u64, 1u64); // x, 1
        while e > 0 {
            if e & 1 == 1 {
                acc = mulmod(acc, base, p, n);
            }
            base = mulmod(base, base, p, n);
            e >>= 1;
        }
        acc
    }

    fn mul_mod_u64(a: u64, b: u64, m: u64) -> u64 {
        ((a as u128 * b as u128) % m as u128) as u64
    }

    fn is_prime(n: u64) -> bool {
        if n < 2 {
            return false;
        }
        for p in [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
            if n % p == 0 {
                return n == p;
            }
        }
        let (mut d, mut s) = (n - 1, 0);
        while d % 2 == 0 {
            d /= 2;
            s += 1;
        }
        'witness: for a in [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
            let mut x = 1u64;
            let (mut b, mut e) = (a, d);
            while e > 0 {
                if e & 1 == 1 {
                    x = mul_mod_u64(x, b, n);
                }
                b = mul_mod_u64(b, b, n);
                e >>= 1;
            }
            if x == 1 || x == n - 1 {
                continue;
            }
            for _ in 1..s {
                x = mul_mod_u64(x, x, n);
                if x == n - 1 {
                    continue 'witness;
                }
            }
            return false;
        }
        true
    }

    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }

    fn rho(n: u64) -> u64 {
        for c in 1u64.. {
            let f = |x: u64| (mul_mod_u64(x, x, n) + c) % n;
            let (mut x, mut y, mut d) = (2u64, 2u64, 1u64);
            while d == 1 {
                x = f(x);
                y = f(f(y));
                d = gcd(x.abs_diff(y), n);
            }
            if d != n {
                return d;
            }
        }
        unreachable!()
    }

    fn prime_factors(n: u64, out: &mut Vec<u64>) {
        if n == 1 {
            return;
        }
        if is_prime(n) {
            if !out.contains(&n) {
                out.push(n);
            }
            return;
        }
        for p in [2u64, 3, 5, 7] {
            if n % p == 0 {
                prime_factors(p, out);
                prime_factors(n / p, out);
                return;
            }
        }
        let d = rho(n);
        prime_factors(d, out);
        prime_factors(n / d, out);
    }

    #[test]
    fn taps_are_maximal() {
        for w in 2..=MAX_LFSR_WIDTH {
            // Feedback polynomial 1 + Σ x^t (its reciprocal is the characteristic polynomial of
            // the shift; one is primitive iff the other is).
            let p: u128 = LFSR_TAPS[w].iter().fold(1u128, |p, &t| p | 1u128 << t);
            assert_eq!(LFSR_TAPS[w][0] as usize, w, "first tap of width {w}");
            let order = (1u128 << w) - 1;
            assert_eq!(
                powmod(order, p, w as u32),
                1,
                "x^(2^{w}-1) != 1 for width {w}"
            );
            let mut fs = vec![];
            prime_factors(order as u64, &mut fs);
            for q in fs {
                assert_ne!(
                    powmod(order / q as u128, p, w as u32),
                    1,
                    "width {w}: order divides (2^{w}-1)/{q}"
                );
            }
        }
    }

    #[test]
    fn small_widths_have_full_period() {
        for w in 2..=16 {
            let p = LfsrParams::new(w, 1).unwrap();
            let (start, mut s, mut n) = (1u64, p.step(1), 1u64);
            while s != start {
                assert_ne!(s, 0);
                s = p.step(s);
                n += 1;
            }
            assert_eq!(n, (1u64 << w) - 1, "period of width {w}");
        }
    }

    #[test]
    fn leap_matrix_equals_repeated_steps() {
        let p = LfsrParams::new(64, 63).unwrap();
        let cols = p.leap_columns();
        let mut g = SplitMix64(7);
        for _ in 0..100 {
            let s = p.draw_seed(&mut g);
            let mut t = s;
            for _ in 0..63 {
                t = p.step(t);
            }
            let l = (0..64)
                .filter(|&j| s >> j & 1 == 1)
                .fold(0, |a, j| a ^ cols[j]);
            assert_eq!(l, t);
        }
    }

    #[test]
    fn bad_parameters_rejected() {
        assert!(LfsrParams::new(1, 1).is_err());
        assert!(LfsrParams::new(65, 1).is_err());
        assert!(LfsrParams::new(16, 17).is_err());
        assert!(LfsrParams::new(16, 0).is_err());
        assert!(Lfsr::<16>::new(LfsrParams::new(16, 4).unwrap(), 0).is_err());
        assert!(Lfsr::<16>::new(LfsrParams::new(8, 4).unwrap(), 1).is_err());
    }
}
