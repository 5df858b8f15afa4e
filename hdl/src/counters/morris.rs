//! Morris approximate counters (base 2) on the bank's shared random source: counter, bank with a
//! query port.
//!
//! Paper terms (Xu, Kim, Nikolic, Shao, ISPASS 2021): a **Morris counter** holds X; on an event it
//! increments with probability 2^−X. A **Morris group counter** of g counters counts one event; its
//! estimate is the mean of 2^X − 1 over the group. The paper uses 6-bit counters, g = 5, 29 events.
//!
//! **Trial.** The paper gives each counter its own LFSR. Here member j of every group reads the
//! shared count Z_j of the clock (`lfsr.rs` defines it and argues the independence) and increments iff
//! Z_j ≥ X. The counter stores y = 2^B − 1 − X, so the trial is the carry out of the short chain
//! Z + y + 1 ≥ 2^B, ANDed with the event; the saturated state X = 2^B − 1 (y = 0) never passes
//! because Z ≤ 2^B − 2, so no saturation test is needed.
//!
//! **Query port** (valid/ready): with `query_ready` high, `query_valid` and `query_event` = e take a
//! snapshot of group e's counters; the port then sums 2^X − 1 over the group (one counter per clock)
//! and divides by g with a bit-serial restoring divider ([`SUM_BITS`] clocks); `estimate_valid` pulses
//! for one clock with `estimate` = floor(sum / g), held until the next result. Latency: g + SUM_BITS + 1
//! clocks. Events keep counting during a query (the snapshot is taken at acceptance).

use crate::counters::bank::{
    approximate_counter, counter_bank, new_approximate_counter, new_counter_bank, QueryControl,
    ESTIMATE_BITS, QUERY_INDEX_BITS,
};
use crate::counters::lfsr::{PoolParams, SharedRandom, Z_BITS};
use rust_hdl::prelude::*;

/// Width of the group sum: 2^X − 1 < 2^63 (X ≤ 63) times g ≤ 64 fits in 69 bits.
/// (The divider reads the sum's top bit at the literal index 71: keep the two in step.)
pub const SUM_BITS: usize = 72;
const _: () = assert!(SUM_BITS == 72);

/// Parameters of a Morris counter bank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MorrisParams {
    /// Counter width B in bits (2..=6); the counter saturates at 2^B − 1.
    pub bits: usize,
    /// Counters per group g (1..=64), member j of every group reading the source's Z_j.
    pub group: usize,
    /// Number of events E (1..=256), one group each.
    pub events: usize,
    /// Seed of the documented generator (SplitMix64) that draws the source's register seeds.
    pub seed: u64,
}

impl MorrisParams {
    /// The paper's configuration: 6-bit counters, groups of 5.
    pub fn paper(events: usize, seed: u64) -> Self {
        MorrisParams {
            bits: 6,
            group: 5,
            events,
            seed,
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if !(2..=6).contains(&self.bits) {
            return Err(format!("Morris counter bits {} outside 2..=6", self.bits));
        }
        if !(1..=256).contains(&self.events) {
            return Err(format!(
                "Morris bank events {} outside 1..=256",
                self.events
            ));
        }
        self.pool().map(|_| ())
    }

    /// The saturation value 2^B − 1.
    pub fn max_state(&self) -> u32 {
        (1u32 << self.bits) - 1
    }

    /// The bank's random source: one member per group position, 2^B − 2 bits each.
    pub fn pool(&self) -> Result<PoolParams, String> {
        PoolParams::new(
            self.group,
            PoolParams::field_for_state_bits(self.bits),
            self.seed,
        )
        .map_err(|e| format!("Morris group of {}: {e}", self.group))
    }
}

/// The group estimate the hardware computes: floor(Σ (2^X − 1) / g).
pub fn group_estimate(states: &[u32]) -> u64 {
    let sum: u128 = states.iter().map(|&x| (1u128 << x) - 1).sum();
    (sum / states.len() as u128) as u64
}

approximate_counter! {
    /// One Morris counter; its random bits arrive as the clock's Z of its member.
    pub struct MorrisCounter<const B: usize> {
        /// y = 2^B − 1 − X.
        y: DFF<Bits<B>>,
        /// Z with the event at bit B: the chain's first operand.
        operand: Signal<Local, Bits<8>>,
        /// operand + y + 1: bit B + 1 is set iff the event came and Z + y + 1 ≥ 2^B (Z + y + 1 < 2^(B+1)).
        chain: Signal<Local, Bits<8>>,
        /// Bit i: y's bits below i are all zero, i.e. bit i toggles when y decrements.
        toggles: Signal<Local, Bits<B>>,
        /// (!y << 1) | 1: bit i is !y_(i−1) (1 at bit 0); ANDing its shifts gives `toggles`.
        below: Signal<Local, Bits<B>>,
        /// 2^s − 1 for s = 0..6, cut to B bits.
        low_ones: [Constant<Bits<B>>; 6],
        event_bit: Constant<Bits<8>>,
        pass_bit: Constant<Bits<8>>,
        full: Constant<Bits<B>>,
    }
}

impl<const B: usize> MorrisCounter<B> {
    pub fn new(params: &MorrisParams) -> Result<Self, String> {
        params.validate()?;
        new_approximate_counter!(MorrisCounter, bits = params.bits, {
            y: Default::default(),
            operand: Default::default(),
            chain: Default::default(),
            toggles: Default::default(),
            below: Default::default(),
            low_ones: std::array::from_fn(|s| {
                Constant::new(bits(((1u64 << s) - 1) & params.max_state() as u64))
            }),
            event_bit: Constant::new(bits(1u64 << B)),
            pass_bit: Constant::new(bits(B as u64 + 1)),
            full: Constant::new(bits(params.max_state() as u64)),
        })
    }
}

impl<const B: usize> Logic for MorrisCounter<B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, y);
        self.x.next = !self.y.q.val();
        // Z ≥ X  ⇔  Z + y + 1 ≥ 2^B: one short carry chain whose top stage also takes the event.
        self.operand.next = bit_cast::<8, Z_BITS>(self.z.val());
        if self.inc.val() {
            self.operand.next = bit_cast::<8, Z_BITS>(self.z.val()) | self.event_bit.val();
        }
        self.chain.next = self.operand.val() + bit_cast::<8, B>(self.y.q.val()) + 1;
        // y − 1 as toggles (no second carry chain).
        self.below.next = (!self.y.q.val() << 1) | self.low_ones[1].val();
        self.toggles.next = self.below.val()
            & ((self.below.val() << 1) | self.low_ones[1].val())
            & ((self.below.val() << 2) | self.low_ones[2].val())
            & ((self.below.val() << 3) | self.low_ones[3].val())
            & ((self.below.val() << 4) | self.low_ones[4].val())
            & ((self.below.val() << 5) | self.low_ones[5].val());
        if self.chain.val().get_bit(self.pass_bit.val().index()) {
            self.y.d.next = self.y.q.val() ^ self.toggles.val();
        }
        if self.reset.val() {
            self.y.d.next = self.full.val();
        }
    }
}

counter_bank! {
    /// A bank of E Morris group counters with one increment input per event and a query port.
    ///
    /// The **group** of event e is `counters[e·G .. e·G + G]`; counter e·G + j is member j and reads
    /// `random.z[j]`. The counters are one flat array of N = E·G (a const generic of its own, checked) because rust-hdl's
    /// Verilog generator resolves only one loop index per name (`groups[i].counters[j]` does not export).
    pub struct MorrisBank<
        const E: usize,
        const G: usize,
        const N: usize,
        const B: usize,
        const R: usize,
    > {
        pub counters: [MorrisCounter<B>; N],
        random: SharedRandom<G, R>,
        /// Event (group) of counter k.
        owner: [Constant<Bits<QUERY_INDEX_BITS>>; N],
        /// Position of counter k in its group.
        member: [Constant<Bits<QUERY_INDEX_BITS>>; N],
        member_ids: [Constant<Bits<QUERY_INDEX_BITS>>; G],
        snap: [DFF<Bits<B>>; G],
        dividing: DFF<Bit>,
        step: DFF<Bits<QUERY_INDEX_BITS>>,
        acc: DFF<Bits<SUM_BITS>>,
        rem: DFF<Bits<9>>,
        result: DFF<Bits<ESTIMATE_BITS>>,
        trial: Signal<Local, Bits<9>>,
        ones: Constant<Bits<SUM_BITS>>,
        divisor: Constant<Bits<9>>,
        last_member: Constant<Bits<QUERY_INDEX_BITS>>,
        last_bit: Constant<Bits<QUERY_INDEX_BITS>>,
    }
}

impl<const E: usize, const G: usize, const N: usize, const B: usize, const R: usize>
    MorrisBank<E, G, N, B, R>
{
    pub fn new(params: &MorrisParams) -> Result<Self, String> {
        params.validate()?;
        if params.events != E || params.group != G || N != E * G || params.bits != B {
            return Err(format!(
                "bank <E={E}, G={G}, N={N}, B={B}, R={R}> does not match parameters {params:?} (N = E·G)"
            ));
        }
        let counters: Vec<MorrisCounter<B>> = (0..N)
            .map(|_| MorrisCounter::new(params))
            .collect::<Result<_, _>>()?;
        Ok(new_counter_bank!(MorrisBank {
            counters: counters.try_into().map_err(|_| "bank size").unwrap(),
            random: SharedRandom::new(&params.pool()?)?,
            owner: std::array::from_fn(|k| Constant::new(bits((k / G) as u64))),
            member: std::array::from_fn(|k| Constant::new(bits((k % G) as u64))),
            member_ids: std::array::from_fn(|j| Constant::new(bits(j as u64))),
            snap: std::array::from_fn(|_| Default::default()),
            dividing: Default::default(),
            step: Default::default(),
            acc: Default::default(),
            rem: Default::default(),
            result: Default::default(),
            trial: Default::default(),
            ones: Constant::new(!bits::<SUM_BITS>(0)),
            divisor: Constant::new(bits(G as u64)),
            last_member: Constant::new(bits(G as u64 - 1)),
            last_bit: Constant::new(bits(SUM_BITS as u64 - 1)),
        }))
    }
}

impl<const E: usize, const G: usize, const N: usize, const B: usize, const R: usize> Logic
    for MorrisBank<E, G, N, B, R>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, dividing, step, acc, rem, result);
        for j in 0..G {
            self.snap[j].clock.next = self.clock.val();
            self.snap[j].d.next = self.snap[j].q.val();
        }
        clock!(self, clock, random, query);
        self.random.reset.next = self.reset.val();
        for k in 0..N {
            self.counters[k].clock.next = self.clock.val();
            self.counters[k].reset.next = self.reset.val();
            self.counters[k].inc.next = self.inc.val().get_bit(self.owner[k].val().index());
            self.counters[k].z.next = self.random.z[0].val();
            for j in 0..G {
                if self.member[k].val() == self.member_ids[j].val() {
                    self.counters[k].z.next = self.random.z[j].val();
                }
            }
        }
        self.query.reset.next = self.reset.val();
        self.query.query_valid.next = self.query_valid.val();
        self.query_ready.next = self.query.query_ready.val();
        self.estimate_valid.next = self.query.estimate_valid.val();
        self.estimate.next = self.result.q.val();
        self.query.finish.next = self.dividing.q.val() & (self.step.q.val() == self.last_bit.val());
        // Restoring division step: next remainder candidate from the dividend's top bit.
        self.trial.next =
            (self.rem.q.val() << 1) | bit_cast::<9, 1>(self.acc.q.val().get_bits::<1>(71));
        if self.query.accept.val() {
            self.dividing.d.next = false;
            self.step.d.next = 0.into();
            self.acc.d.next = 0.into();
            for k in 0..N {
                for j in 0..G {
                    if (self.query_event.val() == self.owner[k].val())
                        & (self.member[k].val() == self.member_ids[j].val())
                    {
                        self.snap[j].d.next = self.counters[k].x.val();
                    }
                }
            }
        } else if self.query.busy.val() & !self.dividing.q.val() {
            // Sum 2^X − 1 over the snapshot, one member per clock.
            for j in 0..G {
                if self.step.q.val() == self.member_ids[j].val() {
                    self.acc.d.next = self.acc.q.val() + !(self.ones.val() << self.snap[j].q.val());
                }
            }
            self.step.d.next = self.step.q.val() + 1;
            if self.step.q.val() == self.last_member.val() {
                self.dividing.d.next = true;
                self.step.d.next = 0.into();
                self.rem.d.next = 0.into();
            }
        } else if self.query.busy.val() {
            // Divide by g, most significant bit first; quotient bits shift in from the right.
            if self.trial.val() >= self.divisor.val() {
                self.rem.d.next = self.trial.val() - self.divisor.val();
                self.acc.d.next = (self.acc.q.val() << 1) | 1;
            } else {
                self.rem.d.next = self.trial.val();
                self.acc.d.next = self.acc.q.val() << 1;
            }
            self.step.d.next = self.step.q.val() + 1;
        }
        // The clock after the last division step the quotient is in `acc`: show it and keep it.
        if self.query.estimate_valid.val() {
            self.estimate.next = self.acc.q.val().get_bits::<ESTIMATE_BITS>(0);
            self.result.d.next = self.acc.q.val().get_bits::<ESTIMATE_BITS>(0);
        }
    }
}
