//! Bit-exact reference model of the profile buffer (`hwprof_hdl::profile_buffer`, docs/SPEC.md
//! §10) and the thesis's accuracy metric on branch traces.
//!
//! The model works per event, not per cycle: the RTL must produce exactly the model's readout
//! words, in order, whatever the handshake timing (checked in `crate::verify::profile_buffer`).
//!
//! **Metric** (Menezes 1997, eq. 3.1–3.3). Per sample, each readout word's counts are attributed
//! to every branch that maps to that entry (same set and partial tag): the operating system
//! cannot tell aliased branches apart. Summed over samples this is the hardware profile. For a
//! branch, the *arc error* is |taken fraction (exact) − taken fraction (hardware)| — for a
//! two-way branch the thesis's maximum arc difference. A branch that got no counts at all is
//! estimated 50 / 50. Branches are grouped by execution-frequency decade (1–9, 10–99, …) and the
//! mean error per decade is reported (the thesis's figure); `arc_error` is the mean weighted by
//! execution count. **Contention** is the share of updates that found their entry last used,
//! since the last sampling point, by another branch (a different pc): aliasing in the direct
//! modes, an eviction or partial-tag alias in the set-associative mode.

use crate::model::Tuple;
use hwprof_hdl::profile_buffer::{BufferConfig, Indexing};
use serde::Serialize;
use std::collections::HashMap;

/// A resolved branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BranchEvent {
    pub pc: u64,
    pub taken: bool,
    /// The compiler's index (compiler indexing only).
    pub index: u64,
}

/// What drives the buffer: events, and sampling points on request (the `sample` strobe).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stimulus {
    Event(BranchEvent),
    Sample,
}

/// One word of a readout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReadoutWord {
    /// Entry number: set × ways + way.
    pub index: usize,
    /// Partial tag (0 in the direct modes).
    pub tag: u64,
    pub taken: u64,
    pub not_taken: u64,
}

/// The profile buffer's state.
#[derive(Debug, Clone)]
pub struct ProfileBufferModel {
    cfg: BufferConfig,
    num_taken: Vec<u64>,
    num_not_taken: Vec<u64>,
    tag: Vec<u64>,
    valid: Vec<bool>,
    age: Vec<u64>,
    ev_count: u64,
    /// Not hardware: the pc that last updated each entry since the last clear (contention).
    last_user: Vec<Option<u64>>,
    /// Events counted so far.
    pub updates: u64,
    /// Updates whose entry was last used by another branch.
    pub contentions: u64,
}

impl ProfileBufferModel {
    pub fn new(cfg: &BufferConfig) -> Self {
        let n = cfg.entries;
        let mut m = ProfileBufferModel {
            cfg: cfg.clone(),
            num_taken: vec![0; n],
            num_not_taken: vec![0; n],
            tag: vec![0; n],
            valid: vec![false; n],
            age: vec![0; n],
            ev_count: 0,
            last_user: vec![None; n],
            updates: 0,
            contentions: 0,
        };
        m.clear();
        m
    }

    fn clear(&mut self) {
        let ways = self.cfg.ways;
        for e in 0..self.cfg.entries {
            self.num_taken[e] = 0;
            self.num_not_taken[e] = 0;
            self.tag[e] = 0;
            self.valid[e] = false;
            self.age[e] = self.cfg.initial_age(e % ways);
            self.last_user[e] = None;
        }
        self.ev_count = 0;
    }

    /// One event; returns the readout if it completed a periodic sample.
    pub fn event(&mut self, ev: &BranchEvent) -> Option<Vec<ReadoutWord>> {
        let cfg = &self.cfg;
        let ways = cfg.ways;
        let base = cfg.set_of(ev.pc, ev.index) * ways;
        let tag = cfg.tag_of(ev.pc);
        let direct = cfg.indexing != Indexing::SetAssociative;
        let max = cfg.counter_max();
        let hit = (base..base + ways).find(|&e| direct || (self.valid[e] && self.tag[e] == tag));
        let e = match hit {
            Some(e) => {
                if ev.taken {
                    self.num_taken[e] = (self.num_taken[e] + 1).min(max);
                } else {
                    self.num_not_taken[e] = (self.num_not_taken[e] + 1).min(max);
                }
                let hit_age = self.age[e];
                for o in base..base + ways {
                    if self.age[o] < hit_age {
                        self.age[o] += 1;
                    }
                }
                e
            }
            None => {
                let victim = (base..base + ways)
                    .find(|&o| self.age[o] == ways as u64 - 1)
                    .expect("LRU ages are a permutation");
                for o in base..base + ways {
                    self.age[o] += 1;
                }
                self.tag[victim] = tag;
                self.num_taken[victim] = ev.taken as u64;
                self.num_not_taken[victim] = !ev.taken as u64;
                victim
            }
        };
        self.valid[e] = true;
        self.age[e] = 0;
        self.updates += 1;
        if self.last_user[e].is_some_and(|p| p != ev.pc) {
            self.contentions += 1;
        }
        self.last_user[e] = Some(ev.pc);
        self.ev_count += 1;
        if self.cfg.sample_interval != 0 && self.ev_count == self.cfg.sample_interval {
            Some(self.sample())
        } else {
            None
        }
    }

    /// A sampling point: every entry as a word, entry 0 first; then the buffer is empty.
    pub fn sample(&mut self) -> Vec<ReadoutWord> {
        let words = (0..self.cfg.entries)
            .map(|e| ReadoutWord {
                index: e,
                tag: self.tag[e],
                taken: self.num_taken[e],
                not_taken: self.num_not_taken[e],
            })
            .collect();
        self.clear();
        words
    }

    /// Runs a stimulus; returns every readout in order.
    pub fn run(cfg: &BufferConfig, stimuli: &[Stimulus]) -> Vec<Vec<ReadoutWord>> {
        let mut m = ProfileBufferModel::new(cfg);
        let mut out = Vec::new();
        for s in stimuli {
            match s {
                Stimulus::Event(ev) => out.extend(m.event(ev)),
                Stimulus::Sample => out.push(m.sample()),
            }
        }
        out
    }
}

/// Branch events from a branch trace's tuples (pc, taken ∈ {0, 1}); the error names the tuple.
pub fn branch_events(trace: &[Tuple]) -> Result<Vec<(u64, bool)>, String> {
    trace
        .iter()
        .enumerate()
        .map(|(i, &(pc, t))| match t {
            0 => Ok((pc, false)),
            1 => Ok((pc, true)),
            _ => Err(format!(
                "tuple {i} ({pc:#x}, {t:#x}) is not a branch outcome (second value must be 0 or 1): \
                 read a lackey --trace-mem log with --kind branch"
            )),
        })
        .collect()
}

/// The compiler's indices (compiler indexing): static branches in address order, numbered
/// 0, 1, 2, … so that neighbouring branches never share an entry (the thesis's goal, §3.2.3).
/// Only the set of branch addresses is used, never their counts: no profile feeds the compiler.
pub fn compiler_indices(events: &[(u64, bool)]) -> HashMap<u64, u64> {
    let mut pcs: Vec<u64> = events.iter().map(|e| e.0).collect();
    pcs.sort_unstable();
    pcs.dedup();
    pcs.into_iter()
        .enumerate()
        .map(|(i, pc)| (pc, i as u64))
        .collect()
}

/// Mean arc error of the branches in one execution-frequency decade.
#[derive(Debug, Clone, Serialize)]
pub struct DecadeError {
    /// Branches executed 10^decade ..= 10^(decade+1) − 1 times.
    pub decade: u32,
    pub branches: usize,
    pub mean_error: f64,
}

/// The buffer's accuracy on one trace.
#[derive(Debug, Clone, Serialize)]
pub struct BufferEvaluation {
    pub config: String,
    pub entries: usize,
    pub indexing: String,
    pub events: u64,
    /// Static branches (distinct pcs) in the trace.
    pub branches: usize,
    /// Readouts (sampling points, including the final one at the end of the trace).
    pub samples: usize,
    /// Arc error weighted by execution count.
    pub arc_error: f64,
    /// Arc error averaged over static branches.
    pub arc_error_mean: f64,
    /// Share of updates whose entry was last used by another branch.
    pub contention: f64,
    pub contentions: u64,
    /// Branches with no counts in any readout (estimated 50 / 50).
    pub unprofiled: usize,
    pub decades: Vec<DecadeError>,
}

/// Runs the model over a branch trace (a sampling point at the end flushes the last sample) and
/// scores it against the exact profile.
pub fn evaluate(cfg: &BufferConfig, trace: &[Tuple]) -> Result<BufferEvaluation, String> {
    let events = branch_events(trace)?;
    if events.is_empty() {
        return Err("the trace has no branch events".into());
    }
    let index = compiler_indices(&events);
    let mut exact: HashMap<u64, (u64, u64)> = HashMap::new();
    let mut model = ProfileBufferModel::new(cfg);
    let mut readouts = Vec::new();
    for &(pc, taken) in &events {
        let c = exact.entry(pc).or_default();
        if taken {
            c.0 += 1
        } else {
            c.1 += 1
        }
        let ev = BranchEvent {
            pc,
            taken,
            index: index[&pc],
        };
        readouts.extend(model.event(&ev));
    }
    readouts.push(model.sample());
    // Hardware profile per (set, tag), summed over samples.
    let mut hw: HashMap<(usize, u64), (u64, u64)> = HashMap::new();
    for w in readouts.iter().flatten() {
        if w.taken + w.not_taken > 0 {
            let c = hw.entry((w.index / cfg.ways, w.tag)).or_default();
            c.0 += w.taken;
            c.1 += w.not_taken;
        }
    }
    let (mut wsum, mut werr, mut esum) = (0.0, 0.0, 0.0);
    let mut unprofiled = 0;
    let mut per_decade: Vec<(usize, f64)> = Vec::new();
    for (&pc, &(t, n)) in &exact {
        let total = t + n;
        let f = t as f64 / total as f64;
        let key = (cfg.set_of(pc, index[&pc]), cfg.tag_of(pc));
        let est = match hw.get(&key) {
            Some(&(ht, hn)) => ht as f64 / (ht + hn) as f64,
            None => {
                unprofiled += 1;
                0.5
            }
        };
        let err = (f - est).abs();
        wsum += total as f64;
        werr += total as f64 * err;
        esum += err;
        let d = total.ilog10() as usize;
        if per_decade.len() <= d {
            per_decade.resize(d + 1, (0, 0.0));
        }
        per_decade[d].0 += 1;
        per_decade[d].1 += err;
    }
    Ok(BufferEvaluation {
        config: cfg.summary(),
        entries: cfg.entries,
        indexing: cfg.indexing.name().to_string(),
        events: events.len() as u64,
        branches: exact.len(),
        samples: readouts.len(),
        arc_error: werr / wsum,
        arc_error_mean: esum / exact.len() as f64,
        contention: model.contentions as f64 / model.updates as f64,
        contentions: model.contentions,
        unprofiled,
        decades: per_decade
            .into_iter()
            .enumerate()
            .filter(|(_, (n, _))| *n > 0)
            .map(|(d, (n, e))| DecadeError {
                decade: d as u32,
                branches: n,
                mean_error: e / n as f64,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::ConfigFile;

    fn cfg(text: &str) -> BufferConfig {
        BufferConfig::from_toml_str(text, "test").unwrap()
    }

    fn ev(pc: u64, taken: bool) -> BranchEvent {
        BranchEvent {
            pc,
            taken,
            index: 0,
        }
    }

    #[test]
    fn address_mapping_aliases_and_saturates() {
        let c = cfg("entries = 8\nindexing = \"address\"\ncounter_bits = 8\nsample_interval = 0\n");
        let mut m = ProfileBufferModel::new(&c);
        for _ in 0..300 {
            assert!(m.event(&ev(0x13, true)).is_none());
        }
        m.event(&ev(0x1b, false)); // same entry 3: a contention
        m.event(&ev(0x13, false)); // and back: another
        let r = m.sample();
        assert_eq!(r.len(), 8);
        assert_eq!((r[3].taken, r[3].not_taken), (255, 2));
        assert_eq!((m.contentions, m.updates), (2, 302));
        assert!(m.sample().iter().all(|w| w.taken + w.not_taken == 0));
    }

    #[test]
    fn set_associative_lru_replacement() {
        let c = cfg("entries = 8\nindexing = \"set_associative\"\nways = 2\ntag_bits = 8\nsample_interval = 5\n");
        // Set 0 (pc bits 1..0 = 0), tags 1, 2, 3.
        let (a, b, d) = (0x04, 0x08, 0x0c);
        let mut m = ProfileBufferModel::new(&c);
        assert!(m.event(&ev(a, true)).is_none()); // way 0
        assert!(m.event(&ev(b, false)).is_none()); // way 1
        assert!(m.event(&ev(a, true)).is_none()); // hit way 0: b is LRU
        assert!(m.event(&ev(d, true)).is_none()); // evicts b
        let r = m.event(&ev(a, false)).expect("5th event closes the sample");
        assert_eq!(
            r[0],
            ReadoutWord {
                index: 0,
                tag: 1,
                taken: 2,
                not_taken: 1
            }
        );
        assert_eq!(
            r[1],
            ReadoutWord {
                index: 1,
                tag: 3,
                taken: 1,
                not_taken: 0
            }
        );
        assert_eq!(m.contentions, 1, "d evicted b");
        assert_eq!(m.updates, 5);
    }

    #[test]
    fn compiler_indexing_uses_the_carried_index() {
        let c = cfg("entries = 8\nindexing = \"compiler\"\nsample_interval = 0\n");
        let mut m = ProfileBufferModel::new(&c);
        m.event(&BranchEvent {
            pc: 0x100,
            taken: true,
            index: 13,
        });
        let r = m.sample();
        assert_eq!(r[5].taken, 1);
    }

    #[test]
    fn metric_on_a_small_trace() {
        // Two branches aliasing in a 8-entry address-mapped buffer: 0x10 always taken (3x),
        // 0x18 never (1x): the entry reads 3/4 taken for both.
        let trace = vec![(0x10, 1), (0x18, 0), (0x10, 1), (0x10, 1), (0x22, 1)];
        let c = cfg("entries = 8\nindexing = \"address\"\n");
        let e = evaluate(&c, &trace).unwrap();
        assert_eq!((e.events, e.branches, e.samples), (5, 3, 1));
        let want = (3.0 * 0.25 + 1.0 * 0.75 + 0.0) / 5.0;
        assert!((e.arc_error - want).abs() < 1e-12, "{}", e.arc_error);
        assert!((e.contention - 2.0 / 5.0).abs() < 1e-12);
        // Compiler indexing separates them: no error.
        let c = cfg("entries = 8\nindexing = \"compiler\"\n");
        let e = evaluate(&c, &trace).unwrap();
        assert_eq!((e.arc_error, e.contention), (0.0, 0.0));
        assert!(evaluate(&c, &[(0x10, 7)]).unwrap_err().contains("tuple 0"));
    }
}
