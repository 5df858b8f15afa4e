//! Morris approximate counters (base 2) driven by hardware LFSRs: counter, group, bank with a query port.
//!
//! Paper terms (Xu, Kim, Nikolic, Shao, ISPASS 2021): a **Morris counter** holds X; on an event it
//! increments with probability 2^−X, decided by OR-reducing X random bits of its own LFSR (the OR is 0
//! with probability 2^−X). A **Morris group counter** of g counters counts one event; its estimate is
//! the mean of 2^X − 1 over the group. The paper uses 6-bit counters, g = 5, 29 events.
//!
//! Random bits: each counter reads bits 0..X of its LFSR and the LFSR leaps `leap` ≥ 2^B − 1 steps
//! whenever its counter takes an event, so no bit is ever read twice (see `lfsr.rs`).
//!
//! **Query port** (valid/ready): with `query_ready` high, `query_valid` and `query_event` = e take a
//! snapshot of group e's counters; the port then sums 2^X − 1 over the group (one counter per clock)
//! and divides by g with a bit-serial restoring divider ([`SUM_BITS`] clocks); `estimate_valid` pulses
//! for one clock with `estimate` = floor(sum / g), held until the next result. Latency: g + SUM_BITS + 1
//! clocks. Events keep counting during a query (the snapshot is taken at acceptance).

use crate::counters::lfsr::{Lfsr, LfsrParams};
use crate::hash::SplitMix64;
use rust_hdl::prelude::*;

/// Width of the group sum: 2^X − 1 < 2^63 (X ≤ 63) times g ≤ 255 fits in 71 bits.
/// (The divider reads the sum's top bit at the literal index 71: keep the two in step.)
pub const SUM_BITS: usize = 72;
const _: () = assert!(SUM_BITS == 72);
/// Width of the query port's event index (banks of up to 256 events).
pub const QUERY_INDEX_BITS: usize = 8;
/// Width of every bank's estimate output.
pub const ESTIMATE_BITS: usize = 64;

/// Parameters of a Morris counter bank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MorrisParams {
    /// Counter width B in bits (1..=6); the counter saturates at 2^B − 1.
    pub bits: usize,
    /// Counters per group g (1..=255), each with its own LFSR.
    pub group: usize,
    /// Number of events E (1..=256), one group each.
    pub events: usize,
    /// Every counter's LFSR; `leap` must be ≥ 2^B − 1 (fresh bits for the largest X).
    pub lfsr: LfsrParams,
    /// Seed of the documented generator (SplitMix64) that draws every LFSR seed.
    pub seed: u64,
}

impl MorrisParams {
    /// The paper's configuration: 6-bit counters, groups of 5, 64-bit LFSRs leaping 63 steps.
    pub fn paper(events: usize, seed: u64) -> Self {
        MorrisParams {
            bits: 6,
            group: 5,
            events,
            lfsr: LfsrParams::new(64, 63).expect("valid"),
            seed,
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if !(1..=6).contains(&self.bits) {
            return Err(format!("Morris counter bits {} outside 1..=6", self.bits));
        }
        if !(1..=255).contains(&self.group) {
            return Err(format!("Morris group size {} outside 1..=255", self.group));
        }
        if !(1..=256).contains(&self.events) {
            return Err(format!(
                "Morris bank events {} outside 1..=256",
                self.events
            ));
        }
        if self.lfsr.leap < self.max_state() as usize {
            return Err(format!(
                "LFSR leap {} < 2^{} − 1 = {}: a counter could read bits an earlier event already used",
                self.lfsr.leap,
                self.bits,
                self.max_state()
            ));
        }
        Ok(())
    }

    /// The saturation value 2^B − 1.
    pub fn max_state(&self) -> u32 {
        (1u32 << self.bits) - 1
    }

    /// LFSR seeds, `[event][member]`, drawn event-major from SplitMix64(seed).
    pub fn lfsr_seeds(&self) -> Vec<Vec<u64>> {
        let mut g = SplitMix64(self.seed);
        (0..self.events)
            .map(|_| {
                (0..self.group)
                    .map(|_| self.lfsr.draw_seed(&mut g))
                    .collect()
            })
            .collect()
    }
}

/// The group estimate the hardware computes: floor(Σ (2^X − 1) / g).
pub fn group_estimate(states: &[u32]) -> u64 {
    let sum: u128 = states.iter().map(|&x| (1u128 << x) - 1).sum();
    (sum / states.len() as u128) as u64
}

/// One Morris counter with its own LFSR.
#[derive(LogicBlock)]
pub struct MorrisCounter<const B: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// One event at this clock edge.
    pub inc: Signal<In, Bit>,
    /// The state X.
    pub x: Signal<Out, Bits<B>>,
    lfsr: Lfsr<W>,
    state: DFF<Bits<B>>,
    ones: Constant<Bits<W>>,
    full: Constant<Bits<B>>,
}

impl<const B: usize, const W: usize> MorrisCounter<B, W> {
    pub fn new(params: &MorrisParams, seed: u64) -> Result<Self, String> {
        params.validate()?;
        if params.bits != B {
            return Err(format!("counter width {B} != parameters ({})", params.bits));
        }
        Ok(MorrisCounter {
            clock: Default::default(),
            reset: Default::default(),
            inc: Default::default(),
            x: Default::default(),
            lfsr: Lfsr::new(params.lfsr, seed)?,
            state: Default::default(),
            ones: Constant::new(bits::<W>(crate::counters::lfsr::width_mask(W))),
            full: Constant::new(bits::<B>(params.max_state() as u64)),
        })
    }
}

impl<const B: usize, const W: usize> Logic for MorrisCounter<B, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.lfsr.clock.next = self.clock.val();
        self.lfsr.reset.next = self.reset.val();
        // Every event consumes its bits, whether or not the counter moves.
        self.lfsr.advance.next = self.inc.val();
        self.x.next = self.state.q.val();
        // Increment iff the X low LFSR bits are all zero (probability 2^−X) and not saturated.
        if self.inc.val()
            & !(self.lfsr.state.val() & !(self.ones.val() << self.state.q.val())).any()
            & (self.state.q.val() != self.full.val())
        {
            self.state.d.next = self.state.q.val() + 1;
        }
        if self.reset.val() {
            self.state.d.next = 0.into();
        }
    }
}

/// A bank of E Morris group counters with one increment input per event and a query port.
///
/// The **group** of event e is `counters[e·G .. e·G + G]`, each with its own LFSR and seed. The
/// counters are one flat array of N = E·G (a const generic of its own, checked) because rust-hdl's
/// Verilog generator resolves only one loop index per name (`groups[i].counters[j]` does not export).
#[derive(LogicBlock)]
pub struct MorrisBank<
    const E: usize,
    const G: usize,
    const N: usize,
    const B: usize,
    const W: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: all counters to 0, all LFSRs to their seeds, the query port idle.
    pub reset: Signal<In, Bit>,
    /// Bit i: one event of type i at this clock edge.
    pub inc: Signal<In, Bits<E>>,
    pub query_valid: Signal<In, Bit>,
    pub query_event: Signal<In, Bits<QUERY_INDEX_BITS>>,
    pub query_ready: Signal<Out, Bit>,
    pub estimate_valid: Signal<Out, Bit>,
    pub estimate: Signal<Out, Bits<ESTIMATE_BITS>>,
    pub counters: [MorrisCounter<B, W>; N],
    /// Event (group) of counter k.
    owner: [Constant<Bits<QUERY_INDEX_BITS>>; N],
    /// Position of counter k in its group.
    member: [Constant<Bits<QUERY_INDEX_BITS>>; N],
    member_ids: [Constant<Bits<QUERY_INDEX_BITS>>; G],
    snap: [DFF<Bits<B>>; G],
    busy: DFF<Bit>,
    dividing: DFF<Bit>,
    step: DFF<Bits<QUERY_INDEX_BITS>>,
    acc: DFF<Bits<SUM_BITS>>,
    rem: DFF<Bits<9>>,
    result: DFF<Bits<ESTIMATE_BITS>>,
    done: DFF<Bit>,
    trial: Signal<Local, Bits<9>>,
    ones: Constant<Bits<SUM_BITS>>,
    divisor: Constant<Bits<9>>,
    last_member: Constant<Bits<QUERY_INDEX_BITS>>,
    last_bit: Constant<Bits<QUERY_INDEX_BITS>>,
}

impl<const E: usize, const G: usize, const N: usize, const B: usize, const W: usize>
    MorrisBank<E, G, N, B, W>
{
    pub fn new(params: &MorrisParams) -> Result<Self, String> {
        params.validate()?;
        if params.events != E
            || params.group != G
            || N != E * G
            || params.bits != B
            || params.lfsr.width != W
        {
            return Err(format!(
                "bank <E={E}, G={G}, N={N}, B={B}, W={W}> does not match parameters {params:?} (N = E·G)"
            ));
        }
        let counters: Vec<MorrisCounter<B, W>> = params
            .lfsr_seeds()
            .into_iter()
            .flatten()
            .map(|s| MorrisCounter::new(params, s))
            .collect::<Result<_, _>>()?;
        Ok(MorrisBank {
            clock: Default::default(),
            reset: Default::default(),
            inc: Default::default(),
            query_valid: Default::default(),
            query_event: Default::default(),
            query_ready: Default::default(),
            estimate_valid: Default::default(),
            estimate: Default::default(),
            counters: counters.try_into().map_err(|_| "bank size").unwrap(),
            owner: std::array::from_fn(|k| Constant::new(bits((k / G) as u64))),
            member: std::array::from_fn(|k| Constant::new(bits((k % G) as u64))),
            member_ids: std::array::from_fn(|j| Constant::new(bits(j as u64))),
            snap: std::array::from_fn(|_| Default::default()),
            busy: Default::default(),
            dividing: Default::default(),
            step: Default::default(),
            acc: Default::default(),
            rem: Default::default(),
            result: Default::default(),
            done: Default::default(),
            trial: Default::default(),
            ones: Constant::new(!bits::<SUM_BITS>(0)),
            divisor: Constant::new(bits(G as u64)),
            last_member: Constant::new(bits(G as u64 - 1)),
            last_bit: Constant::new(bits(SUM_BITS as u64 - 1)),
        })
    }
}

impl<const E: usize, const G: usize, const N: usize, const B: usize, const W: usize> Logic
    for MorrisBank<E, G, N, B, W>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, dividing, step, acc, rem, result, done);
        for j in 0..G {
            self.snap[j].clock.next = self.clock.val();
            self.snap[j].d.next = self.snap[j].q.val();
        }
        for k in 0..N {
            self.counters[k].clock.next = self.clock.val();
            self.counters[k].reset.next = self.reset.val();
            self.counters[k].inc.next = self.inc.val().get_bit(self.owner[k].val().index());
        }
        self.query_ready.next = !self.busy.q.val();
        self.estimate_valid.next = self.done.q.val();
        self.estimate.next = self.result.q.val();
        self.done.d.next = false;
        // Restoring division step: next remainder candidate from the dividend's top bit.
        self.trial.next =
            (self.rem.q.val() << 1) | bit_cast::<9, 1>(self.acc.q.val().get_bits::<1>(71));
        if !self.busy.q.val() {
            if self.query_valid.val() {
                self.busy.d.next = true;
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
            }
        } else if !self.dividing.q.val() {
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
        } else {
            // Divide by g, most significant bit first; quotient bits shift in from the right.
            if self.trial.val() >= self.divisor.val() {
                self.rem.d.next = self.trial.val() - self.divisor.val();
                self.acc.d.next = (self.acc.q.val() << 1) | 1;
            } else {
                self.rem.d.next = self.trial.val();
                self.acc.d.next = self.acc.q.val() << 1;
            }
            self.step.d.next = self.step.q.val() + 1;
            if self.step.q.val() == self.last_bit.val() {
                self.busy.d.next = false;
                self.done.d.next = true;
            }
        }
        // The clock after the last division step the quotient is in `acc`: show it and keep it.
        if self.done.q.val() {
            self.estimate.next = self.acc.q.val().get_bits::<ESTIMATE_BITS>(0);
            self.result.d.next = self.acc.q.val().get_bits::<ESTIMATE_BITS>(0);
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.done.d.next = false;
        }
    }
}
