//! Bit-exact, integer-only model of the phase classifier (`hwprof_hdl::phase`): the specification
//! the RTL matches. Event semantics (the RTL adds only timing, never a different result):
//!
//! 1. **Accumulate.** Event `(pc, weight)`, the weight saturated to `WEIGHT_BITS`. With sampling
//!    (`sample_every` = N), a free-running event counter selects every N-th event (events
//!    N−1, 2N−1, …); a selected event adds its weight to accumulator h3(pc), saturating at
//!    2^counter_bits − 1. Every event adds its weight to the interval's instruction count.
//! 2. **Interval end.** When the count reaches I (after this event), the count restarts at 0, the
//!    accumulators are snapshot and cleared, and the snapshot is classified:
//! 3. **Normalise.** total = Σ acc; v_b = floor(acc_b·2^Q / (total + 1)), so Σ v < 2^Q and each
//!    v_b fits Q bits (a restoring divider needs no special case for total = 0).
//! 4. **Distance.** d_p = Σ_b |v_b − sig_p,b| for every valid entry p; the nearest (lowest p on
//!    ties) is the candidate; the reported distance is its d, or all ones when no entry is valid.
//! 5. **Leader–follower.** If the candidate's d ≤ threshold — or, with `when_full` =
//!    `join_nearest`, every entry is valid — the interval joins its entry and, with
//!    `moving_average`, its signature moves: sig ← sig + floor((v − sig) / 2^k). Otherwise a new
//!    signature: the lowest invalid entry, else the least recently used one, takes v.
//! 6. **Phase id.** Each entry counts the intervals it took (from 0 when it takes a new
//!    signature, saturating at `min_count`). A new signature *joins the phase* of its candidate
//!    if the candidate is within `merge_threshold` and has an id (its count is `min_count`): the
//!    new entry takes the candidate's id and the count `min_count`, and the interval that id.
//!    The interval that brings the count to `min_count` gives the entry the next id (ids count up from 0, wrapping at 2^PHASE_ID_BITS, or before
//!    the transition id when `min_count` > 1); the interval takes the entry's id if its count is
//!    `min_count`, else the transition id ([`TRANSITION_ID`]). With `min_count` = 1 every new
//!    signature is a new phase at once.
//! 7. **LRU.** Ages are a permutation of 0..P (initially age_p = p); using entry e ages every entry
//!    younger than e by one and makes e age 0; the LRU entry has age P − 1.
//! 8. **Predict.** Run-length Markov (Sherwood et al.): the state is (phase, run) with run the
//!    number of consecutive intervals of that phase (saturating at 2^RUN_BITS − 1). At each
//!    interval end the table entry of the previous state learns the new phase (tag, next phase,
//!    and a confidence bit set when the entry already held this tag and this next phase), the state
//!    advances, and the entry of the new state predicts the next phase if its tag (phase, run)
//!    matches and it is confident, else the current phase (the last-phase predictor): a change is
//!    predicted only once it has been seen twice. Index = (phase xor (run << ⌈m/2⌉)) mod M. The
//!    transition phase is one phase to the predictor.

use hwprof_hdl::phase::config::{PhaseConfig, RUN_BITS, TRANSITION_ID};
use hwprof_hdl::phase::{CentreUpdate, WhenFull};

/// What the classifier emits at each interval end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PhaseRecord {
    /// Interval number, from 0.
    pub interval: u64,
    pub phase: u32,
    /// Manhattan distance to the nearest valid signature before classification (all ones if none).
    pub distance: u64,
    /// The predicted phase of the next interval.
    pub predicted: u32,
}

/// The bucket hash: bit i = parity(pc & mask_i).
#[derive(Debug, Clone)]
pub struct BucketHash {
    masks: Vec<u64>,
}

impl BucketHash {
    pub fn new(cfg: &PhaseConfig) -> Self {
        BucketHash {
            masks: cfg.bucket_masks(),
        }
    }

    #[inline]
    pub fn bucket(&self, pc: u64) -> usize {
        self.masks
            .iter()
            .enumerate()
            .map(|(i, &m)| (((pc & m).count_ones() & 1) as usize) << i)
            .sum()
    }
}

/// floor(acc_b·2^Q / (Σ acc + 1)) per bucket.
pub fn normalise(acc: &[u64], q_bits: u32) -> Vec<u64> {
    let total: u128 = acc.iter().map(|&a| a as u128).sum();
    acc.iter()
        .map(|&a| (((a as u128) << q_bits) / (total + 1)) as u64)
        .collect()
}

/// Σ |a_b − b_b|.
pub fn manhattan(a: &[u64], b: &[u64]) -> u64 {
    a.iter().zip(b).map(|(&x, &y)| x.abs_diff(y)).sum()
}

/// One moving-average step of a signature bucket: c + floor((v − c) / 2^k).
pub fn centre_step(c: u64, v: u64, k: u32) -> u64 {
    if v >= c {
        c + ((v - c) >> k)
    } else {
        c - ((c - v).div_ceil(1 << k))
    }
}

/// The run-length Markov next-phase predictor.
#[derive(Debug, Clone)]
pub struct MarkovPredictor {
    /// (valid, confident, tag phase, tag run, next phase) per entry.
    table: Vec<(bool, bool, u32, u32, u32)>,
    bits: u32,
    /// (phase, run) of the current state; None before the first interval.
    state: Option<(u32, u32)>,
}

impl MarkovPredictor {
    pub fn new(entries: usize) -> Self {
        MarkovPredictor {
            table: vec![(false, false, 0, 0, 0); entries],
            bits: entries.trailing_zeros(),
            state: None,
        }
    }

    /// Index of the state (phase, run).
    pub fn index(&self, phase: u32, run: u32) -> usize {
        ((phase ^ (run << self.bits.div_ceil(2))) as usize) & (self.table.len() - 1)
    }

    /// Learns that `phase` followed the current state, advances, and predicts the next phase.
    pub fn step(&mut self, phase: u32) -> u32 {
        let run_max = (1u32 << RUN_BITS) - 1;
        let run = match self.state {
            Some((p, r)) => {
                let i = self.index(p, r);
                let (valid, _, tp, tr, next) = self.table[i];
                let confident = valid && tp == p && tr == r && next == phase;
                self.table[i] = (true, confident, p, r, phase);
                if p == phase {
                    (r + 1).min(run_max)
                } else {
                    1
                }
            }
            None => 1,
        };
        self.state = Some((phase, run));
        let (valid, confident, tp, tr, next) = self.table[self.index(phase, run)];
        if valid && confident && tp == phase && tr == run {
            next
        } else {
            phase
        }
    }
}

/// The classifier's whole state.
#[derive(Debug, Clone)]
pub struct PhaseClassifier {
    cfg: PhaseConfig,
    hash: BucketHash,
    acc: Vec<u64>,
    instructions: u64,
    sample_count: u64,
    sig: Vec<Vec<u64>>,
    valid: Vec<bool>,
    ids: Vec<u32>,
    /// Intervals each entry took since it took its signature, saturating at `min_count`.
    counts: Vec<u32>,
    ages: Vec<u32>,
    next_id: u32,
    interval: u64,
    predictor: MarkovPredictor,
}

impl PhaseClassifier {
    pub fn new(cfg: &PhaseConfig) -> Self {
        let (b, p) = (cfg.buckets, cfg.entries);
        PhaseClassifier {
            cfg: cfg.clone(),
            hash: BucketHash::new(cfg),
            acc: vec![0; b],
            instructions: 0,
            sample_count: 0,
            sig: vec![vec![0; b]; p],
            valid: vec![false; p],
            ids: vec![0; p],
            counts: vec![0; p],
            ages: (0..p as u32).collect(),
            next_id: 0,
            interval: 0,
            predictor: MarkovPredictor::new(cfg.markov_entries),
        }
    }

    pub fn config(&self) -> &PhaseConfig {
        &self.cfg
    }

    /// The bucket of a pc.
    pub fn bucket(&self, pc: u64) -> usize {
        self.hash.bucket(pc & self.cfg.pc_mask())
    }

    /// One event; returns the interval's record when it closes the interval.
    pub fn event(&mut self, pc: u64, weight: u64) -> Option<PhaseRecord> {
        let w = weight.min(PhaseConfig::weight_max());
        let sampled = self.sample_count + 1 == self.cfg.sample_every;
        self.sample_count = if sampled { 0 } else { self.sample_count + 1 };
        if sampled {
            let b = self.bucket(pc);
            self.acc[b] = (self.acc[b] + w).min(self.cfg.counter_max());
        }
        self.instructions += w;
        if self.instructions < self.cfg.interval {
            return None;
        }
        self.instructions = 0;
        let snapshot = std::mem::replace(&mut self.acc, vec![0; self.cfg.buckets]);
        Some(self.classify(&snapshot))
    }

    /// Classifies one interval's accumulators (steps 3–8 of the module documentation).
    pub fn classify(&mut self, acc: &[u64]) -> PhaseRecord {
        let v = normalise(acc, self.cfg.q_bits);
        let mut best: Option<(usize, u64)> = None;
        for p in 0..self.cfg.entries {
            if self.valid[p] {
                let d = manhattan(&v, &self.sig[p]);
                if best.is_none_or(|(_, bd)| d < bd) {
                    best = Some((p, d));
                }
            }
        }
        let distance = best.map_or(self.cfg.no_distance(), |(_, d)| d);
        let full = self.valid.iter().all(|&v| v);
        let joins_nearest = full && self.cfg.when_full == WhenFull::JoinNearest;
        // A phase a new signature joins: its candidate's, when the candidate has an id and is
        // within `merge_threshold` (but beyond `threshold`, or the interval would have hit it).
        let m = self.cfg.min_count;
        let joined = best.filter(|&(g, d)| {
            d > self.cfg.threshold
                && !joins_nearest
                && d <= self.cfg.merge_threshold
                && self.counts[g] == m
        });
        let (e, hit) = match best {
            Some((p, d)) if d <= self.cfg.threshold || joins_nearest => {
                if self.cfg.centre == CentreUpdate::MovingAverage {
                    let k = self.cfg.centre_shift;
                    for (c, &x) in self.sig[p].iter_mut().zip(&v) {
                        *c = centre_step(*c, x, k);
                    }
                }
                (p, true)
            }
            _ => {
                let p = match self.valid.iter().position(|&x| !x) {
                    Some(p) => p,
                    None => self
                        .ages
                        .iter()
                        .position(|&a| a as usize == self.cfg.entries - 1)
                        .expect("ages are a permutation"),
                };
                self.valid[p] = true;
                self.sig[p] = v;
                (p, false)
            }
        };
        let old = match joined {
            Some((g, _)) => {
                self.ids[e] = self.ids[g];
                m
            }
            None if hit => self.counts[e],
            None => 0,
        };
        self.counts[e] = (old + 1).min(m);
        if old < m && self.counts[e] == m {
            self.ids[e] = self.next_id;
            self.next_id = self.cfg.next_phase_id(self.next_id);
        }
        let age = self.ages[e];
        for a in self.ages.iter_mut() {
            if *a < age {
                *a += 1;
            }
        }
        self.ages[e] = 0;
        let phase = if self.counts[e] == m {
            self.ids[e]
        } else {
            TRANSITION_ID
        };
        let predicted = self.predictor.step(phase);
        let r = PhaseRecord {
            interval: self.interval,
            phase,
            distance,
            predicted,
        };
        self.interval += 1;
        r
    }

    /// Runs a whole stream of (pc, weight) events.
    pub fn run(
        cfg: &PhaseConfig,
        events: impl IntoIterator<Item = (u64, u64)>,
    ) -> Vec<PhaseRecord> {
        let mut m = PhaseClassifier::new(cfg);
        events
            .into_iter()
            .filter_map(|(pc, w)| m.event(pc, w))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::ConfigFile;

    fn cfg(body: &str) -> PhaseConfig {
        PhaseConfig::from_toml_str(&format!("[phase]\n{body}"), "t").unwrap()
    }

    #[test]
    fn normalise_and_distance() {
        assert_eq!(normalise(&[1, 1, 2, 0], 8), vec![51, 51, 102, 0]);
        assert_eq!(normalise(&[0, 0], 8), vec![0, 0]);
        assert_eq!(normalise(&[7, 0], 4), vec![14, 0]);
        assert_eq!(normalise(&[u32::MAX as u64, 0], 16), vec![65535, 0]);
        assert_eq!(manhattan(&[1, 5, 3], &[4, 5, 0]), 6);
        assert_eq!(centre_step(10, 20, 1), 15);
        assert_eq!(centre_step(10, 0, 2), 7, "floor(-10/4) = -3");
        assert_eq!(centre_step(10, 9, 2), 9, "floor(-1/4) = -1");
        assert_eq!(centre_step(10, 11, 2), 10);
    }

    #[test]
    fn two_alternating_loops_give_two_phases() {
        // Phase A: pcs 0x100.., phase B: pcs 0x9000..; 4 intervals each, twice.
        let c = cfg("interval = 1000\nthreshold = 40");
        let mut ev = vec![];
        for _ in 0..2 {
            for (base, n) in [(0x100u64, 4), (0x9000u64, 4)] {
                for i in 0..n * 1000 {
                    ev.push((base + 4 * (i % 7) as u64, 1));
                }
            }
        }
        let r = PhaseClassifier::run(&c, ev);
        let phases: Vec<u32> = r.iter().map(|x| x.phase).collect();
        assert_eq!(phases.len(), 16);
        assert_eq!(phases[..4], [0, 0, 0, 0]);
        assert!(phases[4..8].iter().all(|&p| p == phases[4]) && phases[4] != 0);
        assert_eq!(phases[8..], phases[..8], "recurring phases keep their ids");
        assert_eq!(r[0].distance, c.no_distance());
        assert_eq!(r[1].distance, 0);
    }

    #[test]
    fn lru_replaces_the_oldest_and_ids_advance() {
        // Each interval a distinct single pc hashed to distinct buckets: every interval is new.
        let c = cfg("interval = 10\nentries = 2\nbuckets = 8\nthreshold = 0");
        // p0→id0 (entry 0), p1→id1 (entry 1), p0 hits id0, p2 replaces LRU entry 1 (id1) → id2,
        // p1 is new again → replaces entry 0 (LRU) → id3.
        assert_eq!(three_pcs(&c), vec![0, 1, 0, 2, 3]);
    }

    #[test]
    fn a_full_table_joins_the_nearest() {
        let c = cfg(
            "interval = 10\nentries = 2\nbuckets = 8\nthreshold = 0\nwhen_full = \"join_nearest\"",
        );
        // As above until p2 finds the table full: it joins the nearest entry (both are equally
        // far: the lower, entry 0, id0), and p1 still finds its own signature.
        assert_eq!(three_pcs(&c), vec![0, 1, 0, 0, 1]);
    }

    /// The phases of five intervals of single pcs p0 p1 p0 p2 p1 (distinct buckets).
    fn three_pcs(c: &PhaseConfig) -> Vec<u32> {
        let mut m = PhaseClassifier::new(c);
        let mut pcs: Vec<u64> = vec![];
        let mut seen = std::collections::HashSet::new();
        for pc in 0u64.. {
            if seen.insert(m.bucket(pc)) {
                pcs.push(pc);
            }
            if pcs.len() == 3 {
                break;
            }
        }
        let mut phases = vec![];
        for &pc in &[pcs[0], pcs[1], pcs[0], pcs[2], pcs[1]] {
            phases.push(m.event(pc, 10).unwrap().phase);
        }
        phases
    }

    #[test]
    fn min_count_labels_young_signatures_transition() {
        // Signatures A (pc 0x100) and B (pc 0x9000); sequence A A B A C A B B with C a one-off.
        let c = cfg("interval = 100\nthreshold = 8\nmin_count = 2");
        let mut m = PhaseClassifier::new(&c);
        let t = TRANSITION_ID;
        let phases: Vec<u32> = [
            0x100u64, 0x100, 0x9000, 0x100, 0x5_0000, 0x100, 0x9000, 0x9000,
        ]
        .iter()
        .map(|&pc| {
            (0..100)
                .filter_map(|_| m.event(pc, 1))
                .next()
                .unwrap()
                .phase
        })
        .collect();
        // A gets id 0 at its second interval, B id 1 at its second; C never recurs.
        assert_eq!(phases, vec![t, 0, t, 0, t, 0, 1, 1]);
        // With min_count = 1 the same stream gives every signature an id at once.
        let c1 = cfg("interval = 100\nthreshold = 8");
        let r = PhaseClassifier::run(
            &c1,
            [0x100u64, 0x100, 0x9000, 0x5_0000]
                .iter()
                .flat_map(|&pc| std::iter::repeat_n((pc, 1), 100)),
        );
        let ids: Vec<u32> = r.iter().map(|x| x.phase).collect();
        assert_eq!(ids, vec![0, 0, 1, 2]);
        assert_eq!(c.next_phase_id(253), 254);
        assert_eq!(c.next_phase_id(254), 0, "255 is the transition id");
        assert_eq!(c1.next_phase_id(255), 0);
    }

    #[test]
    fn sampling_and_saturation() {
        let c = cfg("interval = 100\nsample_every = 4\ncounter_bits = 3");
        let mut m = PhaseClassifier::new(&c);
        for _ in 0..99 {
            assert!(m.event(5, 1).is_none());
        }
        let b = m.bucket(5);
        assert_eq!(m.acc[b], 7, "24 sampled events saturate at 7");
        assert!(
            m.event(5, 300).is_some(),
            "weight saturates at 255 and closes the interval"
        );
        assert!(m.acc.iter().all(|&a| a == 0));
    }

    #[test]
    fn markov_learns_a_period() {
        // A A B A A B ...: last-phase is wrong at every change; the run-length predictor learns.
        let mut p = MarkovPredictor::new(32);
        let seq: Vec<u32> = (0..60).map(|i| if i % 3 == 2 { 1 } else { 0 }).collect();
        let mut right = 0;
        let mut pred = None;
        for (i, &x) in seq.iter().enumerate() {
            if i >= 12 && pred == Some(x) {
                right += 1;
            }
            pred = Some(p.step(x));
        }
        assert_eq!(right, 48, "after learning, every interval is predicted");
        // A change seen once is not predicted: last phase until it recurs.
        let mut p = MarkovPredictor::new(32);
        assert_eq!(p.step(0), 0);
        assert_eq!(p.step(1), 1);
        assert_eq!(p.step(0), 0);
        assert_eq!(p.step(1), 1, "0 → 1 seen once only");
        assert_eq!(p.step(0), 1, "(0, 1) → 1 seen twice: confident");
    }
}
