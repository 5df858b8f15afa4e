//! Reference model of the Morris counter bank (`hwprof_hdl::counters::morris`), bit-exact with the
//! shared random source, and the same counters over an ideal source for the study.

use crate::model::counters::lfsr::{IdealBits, RandomBits, SharedRandom};
use hwprof_hdl::counters::morris::{group_estimate, MorrisParams};

/// One Morris counter: state X, saturating at `max`.
pub struct MorrisCounter<R> {
    pub x: u32,
    pub max: u32,
    pub source: R,
}

impl<R: RandomBits> MorrisCounter<R> {
    /// One event: increment iff the X fresh bits are all zero and X is not saturated.
    #[inline]
    pub fn event(&mut self) {
        if self.source.all_zero(self.x) && self.x < self.max {
            self.x += 1;
        }
    }

    pub fn events(&mut self, n: u64) {
        for _ in 0..n {
            self.event();
        }
    }
}

impl MorrisCounter<IdealBits> {
    /// n events with an ideal source, drawing the gap to each increment (same distribution as
    /// stepping every event, by memorylessness).
    pub fn events_by_gaps(&mut self, mut n: u64) {
        while self.x < self.max {
            let gap = self.source.gap(self.x);
            if gap > n {
                return;
            }
            n -= gap;
            self.x += 1;
        }
    }
}

/// A Morris group counter: g counters on one event; the estimate is the mean of 2^X − 1.
pub struct MorrisGroup<R> {
    pub counters: Vec<MorrisCounter<R>>,
}

impl<R: RandomBits> MorrisGroup<R> {
    pub fn event(&mut self) {
        for c in &mut self.counters {
            c.event();
        }
    }

    /// n events. Counters advance in lockstep so their independent LFSR chains overlap in the CPU.
    pub fn events(&mut self, n: u64) {
        for _ in 0..n {
            for c in &mut self.counters {
                c.event();
            }
        }
    }

    pub fn states(&self) -> Vec<u32> {
        self.counters.iter().map(|c| c.x).collect()
    }

    pub fn estimate(&self) -> u64 {
        group_estimate(&self.states())
    }
}

impl MorrisGroup<IdealBits> {
    /// A group on an ideal source; member j's generator is seeded with `seeds[j]`.
    pub fn ideal(params: &MorrisParams, seeds: &[u64]) -> Self {
        MorrisGroup {
            counters: seeds
                .iter()
                .map(|&s| MorrisCounter {
                    x: 0,
                    max: params.max_state(),
                    source: IdealBits::new(s),
                })
                .collect(),
        }
    }

    pub fn events_by_gaps(&mut self, n: u64) {
        for c in &mut self.counters {
            c.events_by_gaps(n);
        }
    }
}

/// The hardware bank: E groups of g counters; member j of every group reads the clock's Z_j.
pub struct MorrisBank {
    pub params: MorrisParams,
    /// State X of counter e·g + j (event e, member j).
    pub x: Vec<u32>,
    pub random: SharedRandom,
    z: Vec<u32>,
}

/// Events one clock word of the models carries.
pub const MODEL_MAX_EVENTS: usize = 64;

impl MorrisBank {
    pub fn new(params: MorrisParams) -> Result<Self, String> {
        params.validate()?;
        if params.events > MODEL_MAX_EVENTS {
            return Err(format!(
                "the model takes at most {MODEL_MAX_EVENTS} events per clock word, not {}",
                params.events
            ));
        }
        Ok(MorrisBank {
            params,
            x: vec![0; params.events * params.group],
            random: SharedRandom::new(params.pool()?),
            z: vec![0; params.group],
        })
    }

    /// One clock: bit e of `inc` is an event of type e. Counter (e, j) increments iff Z_j ≥ X (never
    /// at the saturated state, since Z ≤ 2^B − 2).
    #[inline]
    pub fn clock(&mut self, inc: u64) {
        self.random.clock(&mut self.z);
        let g = self.params.group;
        let mut w = inc;
        while w != 0 {
            let e = w.trailing_zeros() as usize;
            w &= w - 1;
            for (x, &z) in self.x[e * g..e * g + g].iter_mut().zip(&self.z) {
                if z >= *x {
                    *x += 1;
                }
            }
        }
    }

    pub fn states(&self, e: usize) -> &[u32] {
        let g = self.params.group;
        &self.x[e * g..e * g + g]
    }

    /// What the query port returns for event e.
    pub fn estimate(&self, e: usize) -> u64 {
        group_estimate(self.states(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_event_always_counts_and_state_saturates() {
        let p = MorrisParams {
            bits: 2,
            group: 1,
            events: 2,
            seed: 1,
        };
        let mut b = MorrisBank::new(p).unwrap();
        b.clock(1);
        assert_eq!(b.states(0), &[1]);
        assert_eq!(b.states(1), &[0], "no event, no change");
        for _ in 0..10_000 {
            b.clock(1);
        }
        assert_eq!(b.states(0), &[3], "saturates at 2^B - 1");
        assert_eq!(b.estimate(0), 7);
    }

    #[test]
    fn bad_parameters_rejected() {
        let mut p = MorrisParams::paper(29, 1);
        p.bits = 7;
        assert!(MorrisBank::new(p).is_err());
        let mut p = MorrisParams::paper(65, 1);
        assert!(MorrisBank::new(p).is_err());
        p.events = 29;
        p.group = 65;
        assert!(MorrisBank::new(p).is_err());
    }

    #[test]
    fn events_on_the_same_clocks_share_their_decisions() {
        // Two events firing together from reset see the same Z sequence: identical states. An
        // event firing alone on other clocks does not.
        let mut b = MorrisBank::new(MorrisParams::paper(3, 5)).unwrap();
        for t in 0..20_000u64 {
            b.clock(0b011 | (t % 2) << 2);
        }
        assert_eq!(b.states(0), b.states(1));
        assert_ne!(b.states(0), b.states(2));
    }

    #[test]
    fn hardware_bank_is_unbiased() {
        // Mean of the estimate over 400 banks (different seeds) after 2 000 events: n within 3 sigma
        // (relative std of one group ≈ 0.32, of the mean ≈ 0.016).
        let n = 2000u64;
        let runs = 400;
        let mean = (0..runs)
            .map(|r| {
                let mut b = MorrisBank::new(MorrisParams::paper(1, r)).unwrap();
                for _ in 0..n {
                    b.clock(1);
                }
                b.estimate(0) as f64
            })
            .sum::<f64>()
            / runs as f64;
        assert!((mean / n as f64 - 1.0).abs() < 0.05, "mean {mean}");
    }

    #[test]
    fn gaps_and_steps_agree_in_distribution() {
        // Mean of 2^X − 1 over many ideal counters after n events is n (unbiased), both ways.
        let p = MorrisParams::paper(1, 0);
        let n = 1000u64;
        let (mut by_step, mut by_gap) = (0f64, 0f64);
        let runs = 4000;
        for r in 0..runs {
            let mut a = MorrisGroup::ideal(&p, &[2 * r]);
            a.events(n);
            by_step += a.estimate() as f64;
            let mut b = MorrisGroup::ideal(&p, &[2 * r + 1]);
            b.events_by_gaps(n);
            by_gap += b.estimate() as f64;
        }
        let (ms, mg) = (by_step / runs as f64, by_gap / runs as f64);
        // One counter: relative std ≈ 0.71, so the mean of 4000 is within ~3.4 % (3 sigma).
        assert!((ms / n as f64 - 1.0).abs() < 0.04, "stepped mean {ms}");
        assert!((mg / n as f64 - 1.0).abs() < 0.04, "gap mean {mg}");
    }
}
