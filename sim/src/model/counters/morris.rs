//! Reference model of the Morris counter bank (`hwprof_hdl::counters::morris`), bit-exact with the hardware
//! LFSR source, and the same counters over other random sources for the study.

use crate::model::counters::lfsr::{IdealBits, LeapTable, Lfsr, RandomBits};
use hwprof_hdl::counters::morris::{group_estimate, MorrisParams};
use std::sync::Arc;

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

/// The hardware bank: E groups of g counters, each on its own leap-forward LFSR.
pub struct MorrisBank {
    pub params: MorrisParams,
    pub groups: Vec<MorrisGroup<Lfsr>>,
}

impl MorrisBank {
    pub fn new(params: MorrisParams) -> Result<Self, String> {
        params.validate()?;
        let table = Arc::new(LeapTable::new(params.lfsr));
        let groups = params
            .lfsr_seeds()
            .into_iter()
            .map(|seeds| MorrisGroup {
                counters: seeds
                    .into_iter()
                    .map(|s| MorrisCounter {
                        x: 0,
                        max: params.max_state(),
                        source: Lfsr::new(s, table.clone()),
                    })
                    .collect(),
            })
            .collect();
        Ok(MorrisBank { params, groups })
    }

    /// One clock's events: bit i of `inc` is an event of type i.
    pub fn clock(&mut self, inc: u64) {
        for (i, g) in self.groups.iter_mut().enumerate() {
            if inc >> i & 1 == 1 {
                g.event();
            }
        }
    }

    /// What the query port returns for event i.
    pub fn estimate(&self, i: usize) -> u64 {
        self.groups[i].estimate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::counters::lfsr::LfsrParams;

    #[test]
    fn first_event_always_counts_and_state_saturates() {
        let p = MorrisParams {
            bits: 2,
            group: 1,
            events: 1,
            lfsr: LfsrParams::new(8, 3).unwrap(),
            seed: 1,
        };
        let mut b = MorrisBank::new(p).unwrap();
        b.clock(1);
        assert_eq!(b.groups[0].states(), vec![1]);
        for _ in 0..10_000 {
            b.clock(1);
        }
        assert_eq!(b.groups[0].states(), vec![3], "saturates at 2^B - 1");
        assert_eq!(b.estimate(0), 7);
    }

    #[test]
    fn leap_too_short_rejected() {
        let mut p = MorrisParams::paper(29, 1);
        p.lfsr = LfsrParams::new(64, 62).unwrap();
        assert!(MorrisBank::new(p).is_err());
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
