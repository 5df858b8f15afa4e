//! The shared random source of the approximate counter banks: LFSRs on x^127 + x + 1 that shift in
//! fresh bits every clock, and the per-member trailing-zero counts Z that every counter's trial reads.
//!
//! **Which bits a trial uses (the one definition; the model calls the functions below, the RTL
//! builds the same expressions).** The bank has G *members* (positions in a group: a Morris group has
//! G counters per event, a floating-point bank one counter per event, G = 1). Member j owns a field
//! of K fresh bits per clock, K = 2^B − 2 for a B-bit counter state (the largest state whose trial can
//! still succeed). Every register leaps [`LEAP`] = 105 steps per clock; its 105 fresh bits form
//! [`LANES`] = 5 *lanes* of [`STRAND`] = 21 bits, lane l being fresh bits l, l + 5, …, l + 100. Member
//! j's field is its S = ⌈K / 21⌉ strands in order, strand k being lane s mod 5 of register s / 5 with
//! s = k·G + j, and field bit o = 21k + i is bit i of strand k ([`PoolParams::field_bit`]). On clock t
//! after reset (t = 0, 1, …; the reset clock loads the seeds) with register states s_g(t):
//!
//! - fresh_g(t) = (s ^ (s >> 1)) & (2^105 − 1)  ([`fresh`]): bit m is the sequence element that the
//!   recurrence a_{i+127} = a_{i+1} ⊕ a_i puts m steps beyond the register, one XOR per bit;
//! - Z_j(t) = the number of trailing zeros of member j's field, K if it is all zero ([`PoolParams::z`]);
//! - s_g(t + 1) = (s >> 105) | (fresh_g(t) << 22)  ([`advance`]).
//!
//! The registers advance on every clock, whether or not any event arrives. A trial of event e at
//! clock t by its member-j counter with state X succeeds iff Z_j(t) ≥ X: probability 2^−X for X ≤ K,
//! and 0 for X = K + 1 = 2^B − 1, the saturated state. Every event's member j reads the same Z_j(t).
//!
//! **Independence.** x^127 + x + 1 is primitive (test `polynomial_is_primitive`), so a register runs
//! through an m-sequence of period 2^127 − 1 and every window of 127 consecutive sequence bits takes
//! each non-zero value exactly once per period. Within one clock a register hands out 105 consecutive
//! new positions, none read before: (1) one trial's field is uniform and independent, so
//! P(Z ≥ X) = 2^−X; (2) the members of one group read disjoint bits, their trials in one clock are
//! independent. Across clocks the danger is a sparse linear relation: the trinomial and its squares
//! tie a_p, a_{p+2^i} and a_{p+127·2^i}. Had a member read consecutive positions, a hit (its X low bits
//! all zero) would force low bits of its *next* field to zero (a_{p+127} = a_p ⊕ a_{p+1}), making its
//! next trial far likelier than 2^−X — measured: a 50 % bias of the Morris estimate. The lanes prevent
//! it: the three positions of such a relation lie in lanes l, l + 2^i, l + 2^{i+1} (mod 5), always
//! three different lanes (2^i mod 5 cycles 1, 2, 4, 3), and a member's low field bits (all X < 21) come
//! from one lane. One lane over time is the 5-decimation of the m-sequence, itself an m-sequence
//! (gcd(5, 2^127 − 1) = 1) with the minimal polynomial 1 + x^76 + x^101 + x^126 + x^127 in lane steps
//! (test `lane_polynomial`): it ties a lane bit to four bits 76, 101, 126 and 127 lane steps back,
//! i.e. in three different earlier clocks (21 lane bits per clock), so forcing a bit takes hits of the
//! same member on three earlier clocks. Different registers start at independent seeds.
//! What sharing does cost: counters of *different* events with the same member index and the same
//! state at the same clock make the same decision — their estimates are correlated (the study measures
//! it); each event's own estimate keeps the Morris (or floating-point) distribution.

use crate::hash::SplitMix64;
use crate::util::{BitGather, ResetDFF};
use rust_hdl::prelude::*;

/// Width of every register; the feedback polynomial is x^127 + x + 1.
pub const POOL_WIDTH: usize = 127;
/// Lanes of a register's fresh bits (odd and prime to 2^127 − 1: see the independence argument).
pub const LANES: usize = 5;
/// Bits of one lane per clock.
pub const STRAND: usize = 21;
/// Steps every register moves per clock: its fresh bits.
pub const LEAP: usize = LANES * STRAND;
/// Largest field K (6-bit counter states).
pub const MAX_FIELD: usize = 62;
/// Strands of the largest field. (The trailing-zero unit indexes its strands with the literal 21
/// and walks its 63 field bits with the literal 63: keep them in step.)
pub const MAX_STRANDS: usize = 3;
const _: () = assert!(MAX_STRANDS == 3 && STRAND == 21 && MAX_FIELD <= MAX_STRANDS * STRAND);
const _: () = assert!(LEAP < POOL_WIDTH);
/// Width of a trailing-zero count Z ≤ [`MAX_FIELD`].
pub const Z_BITS: usize = 6;
/// Most members of one bank's source.
pub const MAX_MEMBERS: usize = 64;

/// The source of one bank: `members` fields of `field` bits per clock, register seeds from `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolParams {
    pub members: usize,
    pub field: usize,
    pub seed: u64,
}

impl PoolParams {
    pub fn new(members: usize, field: usize, seed: u64) -> Result<Self, String> {
        if !(1..=MAX_MEMBERS).contains(&members) {
            return Err(format!(
                "random source members {members} outside 1..={MAX_MEMBERS}"
            ));
        }
        if !(1..=MAX_FIELD).contains(&field) {
            return Err(format!(
                "random field of {field} bits outside 1..={MAX_FIELD} (counter states of at most 6 bits)"
            ));
        }
        Ok(PoolParams {
            members,
            field,
            seed,
        })
    }

    /// The field of a B-bit counter state: 2^B − 2 bits.
    pub fn field_for_state_bits(bits: usize) -> usize {
        (1usize << bits) - 2
    }

    /// Strands S of every member's field.
    pub fn strands(&self) -> usize {
        self.field.div_ceil(STRAND)
    }

    pub fn registers(&self) -> usize {
        (self.members * self.strands()).div_ceil(LANES)
    }

    /// Register and lane of strand k of member j.
    pub fn strand(&self, j: usize, k: usize) -> (usize, usize) {
        let s = k * self.members + j;
        (s / LANES, s % LANES)
    }

    /// Register and fresh-bit index of bit o of member j's field.
    pub fn field_bit(&self, j: usize, o: usize) -> (usize, usize) {
        let (g, lane) = self.strand(j, o / STRAND);
        (g, lane + LANES * (o % STRAND))
    }

    /// Register seeds, non-zero, 127 bits: two SplitMix64(seed) draws each (low half first).
    pub fn seeds(&self) -> Vec<u128> {
        let mut gen = SplitMix64(self.seed);
        (0..self.registers())
            .map(|_| loop {
                let lo = gen.next_u64() as u128;
                let hi = gen.next_u64() as u128;
                let s = (hi << 64 | lo) & pool_mask(POOL_WIDTH);
                if s != 0 {
                    break s;
                }
            })
            .collect()
    }

    /// Z_j from this clock's fresh bits of every register: trailing zeros of member j's field, at
    /// most K.
    pub fn z(&self, fresh: &[u128], j: usize) -> u32 {
        (0..self.field)
            .find(|&o| {
                let (g, m) = self.field_bit(j, o);
                fresh[g] >> m & 1 == 1
            })
            .unwrap_or(self.field) as u32
    }
}

/// All-ones in the low `bits` bits (≤ 127).
pub fn pool_mask(bits: usize) -> u128 {
    (1u128 << bits) - 1
}

/// The fresh bits of register state `s` this clock.
pub fn fresh(s: u128) -> u128 {
    (s ^ s >> 1) & pool_mask(LEAP)
}

/// The register state one clock later.
pub fn advance(s: u128) -> u128 {
    (s >> LEAP | fresh(s) << (POOL_WIDTH - LEAP)) & pool_mask(POOL_WIDTH)
}

/// A 127-bit constant as rust-hdl bits.
fn pool_bits(v: u128) -> Bits<POOL_WIDTH> {
    let lo = bit_cast::<POOL_WIDTH, 64>(bits::<64>(v as u64));
    let hi = bit_cast::<POOL_WIDTH, 64>(bits::<64>((v >> 64) as u64));
    (hi << 64) | lo
}

/// One register: loads its seed on reset, leaps [`LEAP`] steps every clock and shows the fresh bits.
///
/// With `ahead` it runs one clock ahead of the model: it holds s_g(t + 1) at clock t (reset loads
/// the seed advanced once), whose bits 22.. are fresh_g(t), so the trailing-zero units read
/// flip-flops rather than the XORs (see [`ZeroCount::BorrowChain`]).
#[derive(LogicBlock)]
pub struct PoolRegister {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// This clock's fresh bits in bits 0..LEAP (0 above).
    pub fresh: Signal<Out, Bits<POOL_WIDTH>>,
    /// Reset to the (advanced) seed: no power-up value, see [`ResetDFF`].
    state: ResetDFF<Bits<POOL_WIDTH>>,
    seed: Constant<Bits<POOL_WIDTH>>,
    ahead: Constant<Bit>,
    leap: Constant<Bits<8>>,
    keep: Constant<Bits<8>>,
    fresh_mask: Constant<Bits<POOL_WIDTH>>,
}

impl PoolRegister {
    fn new(seed: u128, ahead: bool) -> Self {
        PoolRegister {
            clock: Default::default(),
            reset: Default::default(),
            fresh: Default::default(),
            state: Default::default(),
            seed: Constant::new(pool_bits(if ahead { advance(seed) } else { seed })),
            ahead: Constant::new(ahead),
            leap: Constant::new(bits(LEAP as u64)),
            keep: Constant::new(bits((POOL_WIDTH - LEAP) as u64)),
            fresh_mask: Constant::new(pool_bits(pool_mask(LEAP))),
        }
    }
}

impl Logic for PoolRegister {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.fresh.next = (self.state.q.val() ^ (self.state.q.val() >> 1)) & self.fresh_mask.val();
        if self.ahead.val() {
            self.fresh.next = self.state.q.val() >> self.keep.val();
        }
        self.state.d.next = (self.state.q.val() >> self.leap.val())
            | (((self.state.q.val() ^ (self.state.q.val() >> 1)) & self.fresh_mask.val())
                << self.keep.val());
        if self.reset.val() {
            self.state.d.next = self.seed.val();
        }
    }
}

/// How the random source finds Z: the same function, two mappings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ZeroCount {
    /// The registers show the model's state and every unit is a priority chain over the field
    /// bits (through the XORs of the fresh bits): LUTs only.
    #[default]
    PriorityChain,
    /// The registers run one clock ahead (the units read flip-flops) and every unit computes
    /// v − 1 on the carry chain, then a masked OR per bit of Z: about 90 ECP5 cells a unit
    /// instead of about 210. Unit 0 keeps bit 0 on a priority chain: that chain stays the bank's
    /// deepest path, and ABC's ECP5 mapping (`abc -lut 4:7`, delay first) needs that slack to
    /// map the event select for area — without it the Morris bank grows by about 1 700 cells.
    BorrowChain,
}

/// Z of one member: the trailing zeros of its field, K if none is set. Strand k's register's fresh
/// bits arrive on `strand<k>` (unused strands are masked off).
///
/// The field is gathered into v with a stop bit at K, so Z is the position p of v's lowest set bit.
/// With [`ZeroCount::BorrowChain`]: d = v − 1, y = v & !d is p one-hot and T = v ^ d the thermometer
/// T_m = [p ≥ m]; bit b of Z is set iff p lies in [lo, lo + 2^b) for some lo with bit b set and
/// no lower bits, i.e. T_lo & !T_(lo + 2^b) — or, for the low bits, where y is set at a position with
/// bit b set (cheaper there: two inputs a term).
#[derive(LogicBlock)]
pub struct TrailingZeros {
    pub strand0: Signal<In, Bits<POOL_WIDTH>>,
    pub strand1: Signal<In, Bits<POOL_WIDTH>>,
    pub strand2: Signal<In, Bits<POOL_WIDTH>>,
    pub z: Signal<Out, Bits<Z_BITS>>,
    strands: [Signal<Local, Bits<POOL_WIDTH>>; MAX_STRANDS],
    /// Fresh bits of strand k that belong to the field.
    mask: [Constant<Bits<POOL_WIDTH>>; MAX_STRANDS],
    /// Entry 21·k + i: fresh-bit index of field bit o = 21·k + i.
    position: [Constant<Bits<8>>; MAX_STRANDS * STRAND],
    gather: BitGather<{ MAX_STRANDS * STRAND }>,
    /// The field, 1 at bit K.
    v: Signal<Local, Bits<64>>,
    stop: Constant<Bits<64>>,
    /// [`ZeroCount::BorrowChain`] (else the priority chain), and whether bit 0 stays on the
    /// priority chain.
    borrow_chain: Constant<Bit>,
    chain_bit0: Constant<Bit>,
    /// Priority chain: Z from the highest bit down, so that the last set bit found is the lowest.
    value: [Constant<Bits<Z_BITS>>; MAX_STRANDS * STRAND],
    chain_z: Signal<Local, Bits<Z_BITS>>,
    /// Borrow chain: v − 1, p one-hot, the thermometer.
    borrowed: Signal<Local, Bits<64>>,
    one_hot: Signal<Local, Bits<64>>,
    thermometer: Signal<Local, Bits<64>>,
    /// Per bit b of Z: the positions with bit b set, the lo of its ranges, and 2^b.
    ones: [Constant<Bits<64>>; Z_BITS],
    lows: [Constant<Bits<64>>; Z_BITS],
    weight: [Constant<Bits<Z_BITS>>; Z_BITS],
    part: [Signal<Local, Bits<Z_BITS>>; Z_BITS],
}

impl TrailingZeros {
    fn new(params: &PoolParams, j: usize, zero_count: ZeroCount) -> Self {
        let mut mask = [0u128; MAX_STRANDS];
        for o in 0..params.field {
            mask[o / STRAND] |= 1 << params.field_bit(j, o).1;
        }
        let positions = |b: usize, low: bool| {
            (0..64)
                .filter(|m| m >> b & 1 == 1 && (!low || m & ((1 << b) - 1) == 0))
                .fold(0u64, |w, m| w | 1 << m)
        };
        TrailingZeros {
            strand0: Default::default(),
            strand1: Default::default(),
            strand2: Default::default(),
            z: Default::default(),
            strands: std::array::from_fn(|_| Default::default()),
            mask: std::array::from_fn(|k| Constant::new(pool_bits(mask[k]))),
            position: std::array::from_fn(|o| {
                let lane = params.strand(j, o / STRAND).1;
                Constant::new(bits((lane + LANES * (o % STRAND)) as u64))
            }),
            gather: Default::default(),
            v: Default::default(),
            stop: Constant::new(bits(1u64 << params.field)),
            borrow_chain: Constant::new(zero_count == ZeroCount::BorrowChain),
            chain_bit0: Constant::new(j == 0),
            value: std::array::from_fn(|t| {
                Constant::new(bits((MAX_STRANDS * STRAND - 1 - t) as u64))
            }),
            chain_z: Default::default(),
            borrowed: Default::default(),
            one_hot: Default::default(),
            thermometer: Default::default(),
            ones: std::array::from_fn(|b| Constant::new(bits(positions(b, false)))),
            lows: std::array::from_fn(|b| Constant::new(bits(positions(b, true)))),
            weight: std::array::from_fn(|b| Constant::new(bits(1u64 << b))),
            part: std::array::from_fn(|_| Default::default()),
        }
    }
}

impl Logic for TrailingZeros {
    #[hdl_gen]
    fn update(&mut self) {
        self.strands[0].next = self.strand0.val() & self.mask[0].val();
        self.strands[1].next = self.strand1.val() & self.mask[1].val();
        self.strands[2].next = self.strand2.val() & self.mask[2].val();
        for k in 0..MAX_STRANDS {
            for i in 0..STRAND {
                self.gather.bits[k * 21 + i].next = self.strands[k]
                    .val()
                    .get_bit(self.position[k * 21 + i].val().index());
            }
        }
        self.v.next = bit_cast::<64, 63>(self.gather.word.val()) | self.stop.val();
        // Priority chain: entry t is field bit 62 − t.
        self.chain_z.next = 0.into();
        for t in 0..63 {
            if self.v.val().get_bit(self.value[t].val().index()) {
                self.chain_z.next = self.value[t].val();
            }
        }
        // Borrow chain: bits 0 and 1 from the one-hot p, the others from the thermometer.
        self.borrowed.next = self.v.val() - 1;
        self.one_hot.next = self.v.val() & !self.borrowed.val();
        self.thermometer.next = self.v.val() ^ self.borrowed.val();
        for b in 0..Z_BITS {
            self.part[b].next = 0.into();
        }
        for b in 0..2 {
            if (self.one_hot.val() & self.ones[b].val()).any() {
                self.part[b].next = self.weight[b].val();
            }
        }
        for b in 2..Z_BITS {
            if (self.thermometer.val()
                & !(self.thermometer.val() >> self.weight[b].val())
                & self.lows[b].val())
            .any()
            {
                self.part[b].next = self.weight[b].val();
            }
        }
        if self.chain_bit0.val() {
            self.part[0].next = self.chain_z.val() & self.weight[0].val();
        }
        self.z.next = self.chain_z.val();
        if self.borrow_chain.val() {
            self.z.next = self.part[0].val()
                | self.part[1].val()
                | self.part[2].val()
                | self.part[3].val()
                | self.part[4].val()
                | self.part[5].val();
        }
    }
}

/// The whole source of a bank: R registers and G trailing-zero units; `z[j]` is Z_j of this clock.
#[derive(LogicBlock)]
pub struct SharedRandom<const G: usize, const R: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: every register to its seed.
    pub reset: Signal<In, Bit>,
    pub z: [Signal<Out, Bits<Z_BITS>>; G],
    registers: [PoolRegister; R],
    units: [TrailingZeros; G],
    /// Register of strand k of member j, at index 3j + k (unused strands: register 0, masked).
    strand_register: [Constant<Bits<8>>; MAX_MEMBERS * MAX_STRANDS],
    register_ids: [Constant<Bits<8>>; R],
}

impl<const G: usize, const R: usize> SharedRandom<G, R> {
    pub fn new(params: &PoolParams, zero_count: ZeroCount) -> Result<Self, String> {
        if params.members != G || params.registers() != R {
            return Err(format!(
                "random source <G={G}, R={R}> does not match {} members in {} registers",
                params.members,
                params.registers()
            ));
        }
        let seeds = params.seeds();
        let register = |t: usize| {
            let (j, k) = (t / MAX_STRANDS, t % MAX_STRANDS);
            if j < G && k < params.strands() {
                params.strand(j, k).0
            } else {
                0
            }
        };
        Ok(SharedRandom {
            clock: Default::default(),
            reset: Default::default(),
            z: std::array::from_fn(|_| Default::default()),
            registers: std::array::from_fn(|g| {
                PoolRegister::new(seeds[g], zero_count == ZeroCount::BorrowChain)
            }),
            units: std::array::from_fn(|j| TrailingZeros::new(params, j, zero_count)),
            strand_register: std::array::from_fn(|t| Constant::new(bits(register(t) as u64))),
            register_ids: std::array::from_fn(|g| Constant::new(bits(g as u64))),
        })
    }
}

impl<const G: usize, const R: usize> Logic for SharedRandom<G, R> {
    #[hdl_gen]
    fn update(&mut self) {
        for g in 0..R {
            self.registers[g].clock.next = self.clock.val();
            self.registers[g].reset.next = self.reset.val();
        }
        for j in 0..G {
            self.units[j].strand0.next = self.registers[0].fresh.val();
            self.units[j].strand1.next = self.registers[0].fresh.val();
            self.units[j].strand2.next = self.registers[0].fresh.val();
            for g in 0..R {
                if self.strand_register[j * 3].val() == self.register_ids[g].val() {
                    self.units[j].strand0.next = self.registers[g].fresh.val();
                }
                if self.strand_register[j * 3 + 1].val() == self.register_ids[g].val() {
                    self.units[j].strand1.next = self.registers[g].fresh.val();
                }
                if self.strand_register[j * 3 + 2].val() == self.register_ids[g].val() {
                    self.units[j].strand2.next = self.registers[g].fresh.val();
                }
            }
            self.z[j].next = self.units[j].z.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a·b mod (x^127 + x + 1), polynomials as u128 bit vectors of degree < 127.
    fn mulmod(a: u128, b: u128) -> u128 {
        let mut r = 0u128;
        let mut a = a;
        for i in 0..POOL_WIDTH {
            if b >> i & 1 == 1 {
                r ^= a;
            }
            // a ·= x, reduce x^127 = x + 1
            let top = a >> (POOL_WIDTH - 1) & 1;
            a = (a << 1) & pool_mask(POOL_WIDTH);
            if top == 1 {
                a ^= 0b11;
            }
        }
        r
    }

    #[test]
    fn polynomial_is_primitive() {
        // x^(2^127) ≡ x: every irreducible factor has degree 1 or 127; p(0) = p(1) = 1, so p is
        // irreducible; then the order of x divides the prime 2^127 − 1 and x ≠ 1, so it is maximal.
        let x = 2u128;
        let mut y = x;
        for _ in 0..POOL_WIDTH {
            y = mulmod(y, y);
        }
        assert_eq!(y, x);
        let mut z = x;
        for _ in 0..POOL_WIDTH - 1 {
            z = mulmod(z, z);
        }
        assert_ne!(z, x, "x^(2^126) = x would mean a smaller field");
    }

    /// The sequence a_0.. of a register seeded with `seed`, `n` elements.
    fn sequence(seed: u128, n: usize) -> Vec<u8> {
        let mut seq: Vec<u8> = (0..POOL_WIDTH).map(|i| (seed >> i & 1) as u8).collect();
        while seq.len() < n {
            let k = seq.len();
            seq.push(seq[k - 127 + 1] ^ seq[k - 127]);
        }
        seq
    }

    #[test]
    fn advance_walks_the_recurrence() {
        // The register holds a_i .. a_{i+126}; one clock later a_{i+105} .. a_{i+231}, and its
        // fresh bits are a_{i+127} .. a_{i+231}.
        let seed = PoolParams::new(5, 62, 3).unwrap().seeds()[0];
        let seq = sequence(seed, 2000);
        let mut s = seed;
        for t in 0..10 {
            let f = fresh(s);
            for m in 0..LEAP {
                assert_eq!(
                    (f >> m & 1) as u8,
                    seq[t * LEAP + POOL_WIDTH + m],
                    "fresh bit {m}"
                );
            }
            s = advance(s);
            for i in 0..POOL_WIDTH {
                assert_eq!((s >> i & 1) as u8, seq[(t + 1) * LEAP + i]);
            }
        }
    }

    /// Berlekamp–Massey over GF(2): the linear complexity of `s` and its connection polynomial.
    fn berlekamp_massey(s: &[u8]) -> (usize, Vec<u8>) {
        let n = s.len();
        let (mut c, mut b) = (vec![0u8; n + 1], vec![0u8; n + 1]);
        c[0] = 1;
        b[0] = 1;
        let (mut l, mut m) = (0usize, 1usize);
        for i in 0..n {
            let d = (0..=l).fold(0, |d, k| d ^ (c[k] & s[i - k]));
            if d == 0 {
                m += 1;
            } else if 2 * l <= i {
                let t = c.clone();
                for k in 0..=n - m {
                    c[k + m] ^= b[k];
                }
                l = i + 1 - l;
                b = t;
                m = 1;
            } else {
                for k in 0..=n - m {
                    c[k + m] ^= b[k];
                }
                m += 1;
            }
        }
        c.truncate(l + 1);
        (l, c)
    }

    #[test]
    fn lane_polynomial() {
        // One lane over time: every 5th sequence bit. Its minimal polynomial has degree 127 (an
        // m-sequence again) and five terms whose delays fall in three different clocks.
        let seq = sequence(PoolParams::new(5, 62, 3).unwrap().seeds()[0], 5 * 400 + 10);
        let lane: Vec<u8> = seq.iter().step_by(LANES).take(400).copied().collect();
        let (l, c) = berlekamp_massey(&lane);
        assert_eq!(l, POOL_WIDTH);
        let terms: Vec<usize> = (0..c.len()).filter(|&k| c[k] == 1).collect();
        assert_eq!(terms, [0, 76, 101, 126, 127]);
        let clocks: std::collections::BTreeSet<usize> =
            terms[1..].iter().map(|d| d.div_ceil(STRAND)).collect();
        assert!(clocks.len() >= 3, "{clocks:?}");
        let (l, c) = berlekamp_massey(&seq[..400]);
        assert_eq!((l, c.iter().filter(|&&b| b == 1).count()), (127, 3));
    }

    #[test]
    fn layout_gives_disjoint_fields() {
        let p = PoolParams::new(5, 62, 1).unwrap();
        assert_eq!((p.strands(), p.registers()), (3, 3));
        let mut used = std::collections::HashSet::new();
        for j in 0..5 {
            for o in 0..62 {
                let bit = p.field_bit(j, o);
                assert!(bit.0 < 3 && bit.1 < LEAP);
                assert!(used.insert(bit), "bit {bit:?} used twice");
                // Low field bits (o < 21) of every member come from one lane of register 0.
                if o < STRAND {
                    assert_eq!((bit.0, bit.1 % LANES), (0, j));
                }
            }
        }
        let q = PoolParams::new(3, 6, 1).unwrap();
        assert_eq!((q.strands(), q.registers()), (1, 1));
        let f = PoolParams::new(1, 62, 1).unwrap();
        assert_eq!(
            (f.registers(), f.field_bit(0, 21), f.field_bit(0, 61)),
            (1, (0, 1), (0, 2 + 5 * 19))
        );
    }

    #[test]
    fn z_is_capped_trailing_zeros() {
        let p = PoolParams::new(2, 6, 0).unwrap();
        // Member 0's field bits o are fresh bits 5·o, member 1's are 1 + 5·o.
        assert_eq!(p.z(&[1 << 15 | 1 << 20], 0), 3);
        assert_eq!(p.z(&[1 << 15 | 1 << 20], 1), 6, "all-zero field reads K");
        assert_eq!(p.z(&[1 << 31], 1), 6, "bits beyond K do not count");
        assert_eq!(p.z(&[1 << 1], 1), 0);
    }

    /// Both mappings of every member's unit against [`PoolParams::z`], each Z in 0..=K.
    #[test]
    fn trailing_zeros_match_the_model() {
        for (members, field) in [(5, 62), (3, 6), (1, 62), (2, 30)] {
            let p = PoolParams::new(members, field, 4).unwrap();
            let mut gen = SplitMix64(100 * members as u64 + field as u64);
            let mut random = || (gen.next_u64() as u128) << 64 | gen.next_u64() as u128;
            for zero_count in [ZeroCount::PriorityChain, ZeroCount::BorrowChain] {
                for j in 0..members {
                    let mut uut = TrailingZeros::new(&p, j, zero_count);
                    uut.connect_all();
                    for case in 0..4 * (field + 1) {
                        // Field bits below Z clear, bit Z set (unless Z = K), the rest random.
                        let want = case % (field + 1);
                        let mut fresh: Vec<u128> = (0..p.registers())
                            .map(|_| random() & pool_mask(LEAP))
                            .collect();
                        for o in 0..=want.min(field - 1) {
                            let (g, m) = p.field_bit(j, o);
                            fresh[g] &= !(1 << m);
                            if o == want {
                                fresh[g] |= 1 << m;
                            }
                        }
                        assert_eq!(p.z(&fresh, j), want as u32);
                        let strand = |k: usize| {
                            pool_bits(fresh[if k < p.strands() { p.strand(j, k).0 } else { 0 }])
                        };
                        uut.strand0.next = strand(0);
                        uut.strand1.next = strand(1);
                        uut.strand2.next = strand(2);
                        assert!(simulate(&mut uut, 10_000));
                        assert_eq!(
                            uut.z.val().index(),
                            want,
                            "{zero_count:?} members {members} field {field} member {j}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bad_parameters_rejected() {
        assert!(PoolParams::new(0, 62, 1).is_err());
        assert!(PoolParams::new(5, 63, 1).is_err());
        assert!(PoolParams::new(5, 0, 1).is_err());
        assert!(SharedRandom::<5, 2>::new(
            &PoolParams::new(5, 62, 1).unwrap(),
            ZeroCount::default()
        )
        .is_err());
    }
}
