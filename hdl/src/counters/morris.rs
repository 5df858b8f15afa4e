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
//! **Query port** ([`crate::counters::bank`]): the queried group's states go into [`GroupMean`],
//! which sums 2^X − 1 over the group one bit per clock, least significant first (bit b of the sum is
//! the count of members with X > b plus the carry), then divides by g with a bit-serial restoring
//! divider in the same register; `estimate` = floor(sum / g). Latency: 2·[`SUM_BITS`] + 1 clocks.
//! No adder or shifter as wide as the sum.

use crate::counters::bank::{
    approximate_counter, counter_bank, new_approximate_counter, new_counter_bank, EventSelect,
    QueryControl, ESTIMATE_BITS, QUERY_INDEX_BITS,
};
use crate::counters::lfsr::{PoolParams, SharedRandom, ZeroCount, Z_BITS};
use crate::util::ResetDFF;
use rust_hdl::prelude::*;

/// Width of the group sum: 2^X − 1 < 2^63 (X ≤ 63) times g ≤ 64 fits in 69 bits.
/// (The divider reads the sum's top bit at the literal index 71: keep the two in step.)
pub const SUM_BITS: usize = 72;
const _: () = assert!(SUM_BITS == 72);
/// Width of the column count: a column of g ≤ 64 members plus a carry below 64.
const COLUMN_BITS: usize = 8;

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

/// How a Morris counter decrements y (= increments X): the same function, two mappings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Decrement {
    /// Bit i toggles when y's lower bits are all zero: LUTs only. Smaller on iCE40, where a
    /// carry chain costs a carry cell and a LUT per bit.
    #[default]
    Toggles,
    /// y − 1 on the carry chain. Smaller on ECP5, where one CCU2C carries two bits with their
    /// LUTs and the flip-flops' enable and set take the rest.
    CarryChain,
}

approximate_counter! {
    /// One Morris counter; its random bits arrive as the clock's Z of its member.
    pub struct MorrisCounter<const B: usize> {
        /// y = 2^B − 1 − X (reset to ones: no power-up value, see [`ResetDFF`]).
        y: ResetDFF<Bits<B>>,
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
        /// [`Decrement::CarryChain`] (else toggles).
        carry_chain: Constant<Bit>,
        event_bit: Constant<Bits<8>>,
        /// B + 1 (≤ 7): an index into `chain`, as wide as an index of 8 bits.
        pass_bit: Constant<Bits<3>>,
        full: Constant<Bits<B>>,
    }
}

impl<const B: usize> MorrisCounter<B> {
    pub fn new(params: &MorrisParams, decrement: Decrement) -> Result<Self, String> {
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
            carry_chain: Constant::new(decrement == Decrement::CarryChain),
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
        // y − 1 as toggles (no second carry chain), unless the chain is the cheaper mapping.
        self.below.next = (!self.y.q.val() << 1) | self.low_ones[1].val();
        self.toggles.next = self.below.val()
            & ((self.below.val() << 1) | self.low_ones[1].val())
            & ((self.below.val() << 2) | self.low_ones[2].val())
            & ((self.below.val() << 3) | self.low_ones[3].val())
            & ((self.below.val() << 4) | self.low_ones[4].val())
            & ((self.below.val() << 5) | self.low_ones[5].val());
        if self.chain.val().get_bit(self.pass_bit.val().index()) {
            if self.carry_chain.val() {
                self.y.d.next = self.y.q.val() - 1;
            } else {
                self.y.d.next = self.y.q.val() ^ self.toggles.val();
            }
        }
        if self.reset.val() {
            self.y.d.next = self.full.val();
        }
    }
}

/// floor(Σ_j (2^X_j − 1) / g) over a snapshot of the g states, computed serially: the Morris
/// bank's query arithmetic.
///
/// On `start` the unit takes the states. On the next [`SUM_BITS`] clocks with `run` high it forms
/// the sum least significant bit first: bit b is the low bit of (#{j : X_j > b} + carry), shifted
/// into the top of the sum register, the rest of that count being the next carry. On the following
/// [`SUM_BITS`] clocks it divides by g most significant bit first (restoring division; quotient
/// bits shift in from the bottom of the same register). `last` is high on the final division
/// clock; `estimate` then holds the quotient until `run` next.
#[derive(LogicBlock)]
pub struct GroupMean<const G: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    /// Take `x` (and restart) this clock.
    pub start: Signal<In, Bit>,
    /// Work this clock (ignored with `start`).
    pub run: Signal<In, Bit>,
    /// The group's states X_0 … X_(g−1).
    pub x: [Signal<In, Bits<B>>; G],
    pub last: Signal<Out, Bit>,
    pub estimate: Signal<Out, Bits<ESTIMATE_BITS>>,
    snap: [DFF<Bits<B>>; G],
    dividing: DFF<Bit>,
    /// Bit of the sum formed, then division step.
    step: DFF<Bits<8>>,
    /// The sum, filling from the top; then the dividend shifting out of the top as quotient bits
    /// shift in at the bottom.
    acc: DFF<Bits<SUM_BITS>>,
    carry: DFF<Bits<COLUMN_BITS>>,
    rem: DFF<Bits<9>>,
    /// Entry j: carry + #{i < j : X_i > step}; the sum's column is entry g, `total`.
    column: Vec<Signal<Local, Bits<COLUMN_BITS>>>,
    total: Signal<Local, Bits<COLUMN_BITS>>,
    /// `step` < 2^B, and its low B bits: X > step iff both hold and X > the low bits.
    step_in_range: Signal<Local, Bit>,
    step_low: Signal<Local, Bits<B>>,
    states: Constant<Bits<8>>,
    trial: Signal<Local, Bits<9>>,
    divisor: Constant<Bits<9>>,
    last_bit: Constant<Bits<8>>,
    top_bit: Constant<Bits<SUM_BITS>>,
}

impl<const G: usize, const B: usize> GroupMean<G, B> {
    pub fn new(params: &MorrisParams) -> Result<Self, String> {
        params.validate()?;
        if params.group != G || params.bits != B {
            return Err(format!(
                "group mean <G={G}, B={B}> does not match parameters {params:?}"
            ));
        }
        Ok(GroupMean {
            clock: Default::default(),
            start: Default::default(),
            run: Default::default(),
            x: std::array::from_fn(|_| Default::default()),
            last: Default::default(),
            estimate: Default::default(),
            snap: std::array::from_fn(|_| Default::default()),
            dividing: Default::default(),
            step: Default::default(),
            acc: Default::default(),
            carry: Default::default(),
            rem: Default::default(),
            column: (0..=G).map(|_| Default::default()).collect(),
            total: Default::default(),
            step_in_range: Default::default(),
            step_low: Default::default(),
            states: Constant::new(bits(1u64 << B)),
            trial: Default::default(),
            divisor: Constant::new(bits(G as u64)),
            last_bit: Constant::new(bits(SUM_BITS as u64 - 1)),
            top_bit: Constant::new(bits::<SUM_BITS>(1) << (SUM_BITS as u64 - 1)),
        })
    }
}

impl<const G: usize, const B: usize> Logic for GroupMean<G, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, dividing, step, acc, carry, rem);
        for j in 0..G {
            self.snap[j].clock.next = self.clock.val();
            self.snap[j].d.next = self.snap[j].q.val();
        }
        self.estimate.next = self.acc.q.val().get_bits::<ESTIMATE_BITS>(0);
        self.last.next = self.dividing.q.val() & (self.step.q.val() == self.last_bit.val());
        // Column `step` of the sum: 2^X − 1 has bits 0 … X − 1 set.
        self.step_low.next = bit_cast::<B, 8>(self.step.q.val());
        self.step_in_range.next = self.step.q.val() < self.states.val();
        self.column[0].next = self.carry.q.val();
        for j in 0..G {
            self.column[j + 1].next = self.column[j].val();
            if self.step_in_range.val() & (self.snap[j].q.val() > self.step_low.val()) {
                self.column[j + 1].next = self.column[j].val() + 1;
            }
        }
        self.total.next = self.column[0].val();
        for j in 0..G {
            self.total.next = self.column[j + 1].val();
        }
        // Restoring division step: next remainder candidate from the dividend's top bit.
        self.trial.next =
            (self.rem.q.val() << 1) | bit_cast::<9, 1>(self.acc.q.val().get_bits::<1>(71));
        if self.start.val() {
            self.dividing.d.next = false;
            self.step.d.next = 0.into();
            self.carry.d.next = 0.into();
            for j in 0..G {
                self.snap[j].d.next = self.x[j].val();
            }
        } else if self.run.val() & !self.dividing.q.val() {
            self.acc.d.next = self.acc.q.val() >> 1;
            if self.total.val().get_bit(0) {
                self.acc.d.next = (self.acc.q.val() >> 1) | self.top_bit.val();
            }
            self.carry.d.next = self.total.val() >> 1;
            self.step.d.next = self.step.q.val() + 1;
            if self.step.q.val() == self.last_bit.val() {
                self.dividing.d.next = true;
                self.step.d.next = 0.into();
                self.rem.d.next = 0.into();
            }
        } else if self.run.val() {
            // Divide by g, most significant bit first.
            if self.trial.val() >= self.divisor.val() {
                self.rem.d.next = self.trial.val() - self.divisor.val();
                self.acc.d.next = (self.acc.q.val() << 1) | 1;
            } else {
                self.rem.d.next = self.trial.val();
                self.acc.d.next = self.acc.q.val() << 1;
            }
            self.step.d.next = self.step.q.val() + 1;
        }
    }
}

counter_bank! {
    /// A bank of E Morris group counters with one increment input per event and a query port.
    ///
    /// The **group** of event e is counters e, E + e, …, (G − 1)·E + e: counter j·E + e is member j
    /// of event e and reads `random.z[j]` (member-major, the order [`EventSelect`] takes). The
    /// counters are one flat array of N = E·G (a const generic of its own, checked) because
    /// rust-hdl's Verilog generator resolves only one loop index per name (`groups[i].counters[j]`
    /// does not export).
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
        select: EventSelect<B>,
        mean: GroupMean<G, B>,
    }
}

impl<const E: usize, const G: usize, const N: usize, const B: usize, const R: usize>
    MorrisBank<E, G, N, B, R>
{
    /// `decrement` and `zero_count`: the counters' and the random source's mappings (the function
    /// is the same).
    pub fn new(
        params: &MorrisParams,
        decrement: Decrement,
        zero_count: ZeroCount,
    ) -> Result<Self, String> {
        params.validate()?;
        if params.events != E || params.group != G || N != E * G || params.bits != B {
            return Err(format!(
                "bank <E={E}, G={G}, N={N}, B={B}, R={R}> does not match parameters {params:?} (N = E·G)"
            ));
        }
        let counters: Vec<MorrisCounter<B>> = (0..N)
            .map(|_| MorrisCounter::new(params, decrement))
            .collect::<Result<_, _>>()?;
        Ok(new_counter_bank!(MorrisBank {
            counters: counters.try_into().map_err(|_| "bank size").unwrap(),
            random: SharedRandom::new(&params.pool()?, zero_count)?,
            owner: std::array::from_fn(|k| Constant::new(bits((k % E) as u64))),
            member: std::array::from_fn(|k| Constant::new(bits((k / E) as u64))),
            member_ids: std::array::from_fn(|j| Constant::new(bits(j as u64))),
            select: EventSelect::new(E, G),
            mean: GroupMean::new(params)?,
        }))
    }
}

impl<const E: usize, const G: usize, const N: usize, const B: usize, const R: usize> Logic
    for MorrisBank<E, G, N, B, R>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, random, query, mean);
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
        self.select.query_event.next = self.query_event.val();
        for k in 0..N {
            self.select.inputs[k].next = self.counters[k].x.val();
        }
        for j in 0..G {
            self.mean.x[j].next = self.select.outputs[j].val();
        }
        self.mean.start.next = self.query.accept.val();
        self.mean.run.next = self.query.busy.val();
        self.query.finish.next = self.mean.last.val();
        self.estimate.next = self.mean.estimate.val();
    }
}
