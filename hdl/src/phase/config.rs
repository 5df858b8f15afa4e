//! Configuration of the phase classifier: parsed from TOML (a `[phase]` table), validated in one
//! place, and read by both the RTL generator and the reference model.
//!
//! The classifier (Sherwood, Sair & Calder's hardware phase tracker, classified as ScarPhase does)
//! takes one event `(pc, weight)` per clock: a branch or basic block and the instructions it stands
//! for. Every parameter, its default and its rule:
//!
//! | key | meaning | rule |
//! |---|---|---|
//! | `interval` | I, instructions per interval: an interval closes on the event that brings its instruction count (the sum of weights) to at least I; default 100 000 | 1 ..= 2^31 |
//! | `buckets` | B, accumulators of the execution-frequency vector, indexed by an h3 hash of the pc; default 32 | power of two, 2 ..= 256 |
//! | `counter_bits` | width of each accumulator, saturating; default 18 | 1 ..= 32 |
//! | `q_bits` | Q, width of each normalised bucket: bucket b becomes floor(acc_b·2^Q / (Σ acc + 1)); default 8 | 1 ..= 16 |
//! | `entries` | P, signature-table entries (one per phase currently remembered); default 16 | power of two, 2 ..= 64 |
//! | `threshold` | leader–follower radius: an interval joins the nearest valid signature if their Manhattan distance (in normalised counts: a vector sums to less than 2^Q) is ≤ threshold; default 64 | 0 ..= B·(2^Q − 1) |
//! | `merge_threshold` | phase radius: an interval that opens a new signature (its nearest valid signature is farther than `threshold`) joins that nearest signature's *phase* if their distance is ≤ merge_threshold and the nearest has a phase id (its count is `min_count`): the new entry takes that id, with its count at `min_count`. A phase is then a chain of signatures, each within merge_threshold of an established one, so code that drifts slowly keeps its phase while the signatures still follow it at the finer `threshold`; ≤ `threshold` = off; default 0 | 0 ..= B·(2^Q − 1) |
//! | `when_full` | what an interval beyond `threshold` does when every entry is valid: `"replace_lru"`, a new signature replaces the least recently used entry (a new phase once it reaches `min_count`); `"join_nearest"`, the interval joins its nearest entry as if within `threshold` — the table then bounds the number of phases to P, as k bounds an offline k-means, and code that drifts is cut among the P signatures instead of opening one after another (a phase first seen after the table filled is given to its nearest one); default replace_lru | |
//! | `centre` | `"leader"`: a signature stays its first interval's vector; `"moving_average"`: on each hit it moves towards the interval, c ← c + floor((v − c) / 2^centre_shift) — ScarPhase recomputes the cluster centre as the mean of its members; this is the integer, divider-free form of it; default moving_average | |
//! | `centre_shift` | k of the moving average (1 = midpoint); default 2 | 1 ..= 8 |
//! | `min_count` | an entry's intervals get a phase id only from its min_count-th interval on (counted while it stays in the table); before that they are reported as the transition phase, id [`TRANSITION_ID`] (Sherwood et al.'s hardware tracker gives a signature an id only once it has recurred, so short, drifting signatures share one "transition" label instead of one phase each); 1 = every signature is a phase at once; default 1 | 1 ..= 15 |
//! | `markov_entries` | entries of the run-length Markov next-phase predictor; default 32 | power of two, 2 ..= 256 |
//! | `sample_every` | N: only every N-th event is accumulated (ScarPhase's sparse vectors; 1 = dense); intervals still count every event's weight; default 1 | 1 ..= 65536 |
//! | `pc_bits` | pcs are masked to this width before hashing; default 48 | 1 ..= 64 |
//! | `seed` | seed of the hash masks ([`crate::hash::SplitMix64`]); default 1 | |
//!
//! Fixed widths (not parameters): weights are [`WEIGHT_BITS`] wide (larger weights saturate at the
//! port), phase ids [`PHASE_ID_BITS`] (a new phase takes the next id, wrapping), run lengths of
//! the predictor [`RUN_BITS`] (saturating), an entry's interval count [`COUNT_BITS`] (saturating at
//! `min_count`). With `min_count` > 1 the id 2^PHASE_ID_BITS − 1 is the transition phase and phase ids wrap before it.

use crate::config::{parse_toml, toml_has_key, width_mask, ConfigError, ConfigFile, Rules};
use crate::hash::SplitMix64;
use serde::Deserialize;

/// Width of an event's weight (instructions since the previous event); the driver saturates.
pub const WEIGHT_BITS: usize = 8;
/// Width of a phase id.
pub const PHASE_ID_BITS: usize = 8;
/// Width of the predictor's run length (saturating at 2^RUN_BITS − 1).
pub const RUN_BITS: usize = 4;
pub const MAX_INTERVAL: u64 = 1 << 31;
/// Width of an entry's interval count (saturating at `min_count`).
pub const COUNT_BITS: usize = 4;
/// The phase reported for an interval whose entry has not yet reached `min_count` intervals.
pub const TRANSITION_ID: u32 = (1 << PHASE_ID_BITS) - 1;

/// What an interval beyond the threshold does when the signature table is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WhenFull {
    /// A new signature replaces the least recently used entry.
    ReplaceLru,
    /// The interval joins its nearest entry.
    JoinNearest,
}

impl WhenFull {
    /// The TOML spelling.
    pub fn name(self) -> &'static str {
        match self {
            WhenFull::ReplaceLru => "replace_lru",
            WhenFull::JoinNearest => "join_nearest",
        }
    }
}

/// How a signature changes when an interval joins it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CentreUpdate {
    /// The signature stays the vector of the interval that created it.
    Leader,
    /// c ← c + floor((v − c) / 2^centre_shift) per bucket.
    MovingAverage,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct PhaseFile {
    phase: PhaseTable,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct PhaseTable {
    interval: Option<u64>,
    buckets: Option<u64>,
    counter_bits: Option<u64>,
    q_bits: Option<u64>,
    entries: Option<u64>,
    threshold: Option<u64>,
    merge_threshold: Option<u64>,
    when_full: Option<WhenFull>,
    centre: Option<CentreUpdate>,
    centre_shift: Option<u64>,
    min_count: Option<u64>,
    markov_entries: Option<u64>,
    sample_every: Option<u64>,
    pc_bits: Option<u64>,
    seed: Option<u64>,
}

/// A validated phase-classifier configuration (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseConfig {
    pub interval: u64,
    pub buckets: usize,
    pub counter_bits: u32,
    pub q_bits: u32,
    pub entries: usize,
    pub threshold: u64,
    pub merge_threshold: u64,
    pub when_full: WhenFull,
    pub centre: CentreUpdate,
    pub centre_shift: u32,
    pub min_count: u32,
    pub markov_entries: usize,
    pub sample_every: u64,
    pub pc_bits: u32,
    pub seed: u64,
}

impl CentreUpdate {
    /// The TOML spelling.
    pub fn name(self) -> &'static str {
        match self {
            CentreUpdate::Leader => "leader",
            CentreUpdate::MovingAverage => "moving_average",
        }
    }
}

impl Default for PhaseConfig {
    fn default() -> Self {
        PhaseConfig {
            interval: 100_000,
            buckets: 32,
            counter_bits: 18,
            q_bits: 8,
            entries: 16,
            threshold: 64,
            merge_threshold: 0,
            when_full: WhenFull::ReplaceLru,
            centre: CentreUpdate::MovingAverage,
            centre_shift: 2,
            min_count: 1,
            markov_entries: 32,
            sample_every: 1,
            pc_bits: 48,
            seed: 1,
        }
    }
}

fn clamp32(v: u64) -> u32 {
    v.min(u32::MAX as u64) as u32
}

impl ConfigFile for PhaseConfig {
    fn parse(text: &str, source: &str) -> Result<Self, ConfigError> {
        let f: PhaseFile = parse_toml(text, source)?;
        let t = f.phase;
        let d = PhaseConfig::default();
        let cfg = PhaseConfig {
            interval: t.interval.unwrap_or(d.interval),
            buckets: t.buckets.map_or(d.buckets, |v| v.min(1 << 20) as usize),
            counter_bits: t.counter_bits.map_or(d.counter_bits, clamp32),
            q_bits: t.q_bits.map_or(d.q_bits, clamp32),
            entries: t.entries.map_or(d.entries, |v| v.min(1 << 20) as usize),
            threshold: t.threshold.unwrap_or(d.threshold),
            merge_threshold: t.merge_threshold.unwrap_or(d.merge_threshold),
            when_full: t.when_full.unwrap_or(d.when_full),
            centre: t.centre.unwrap_or(d.centre),
            centre_shift: t.centre_shift.map_or(d.centre_shift, clamp32),
            min_count: t.min_count.map_or(d.min_count, clamp32),
            markov_entries: t
                .markov_entries
                .map_or(d.markov_entries, |v| v.min(1 << 20) as usize),
            sample_every: t.sample_every.unwrap_or(d.sample_every),
            pc_bits: t.pc_bits.map_or(d.pc_bits, clamp32),
            seed: t.seed.unwrap_or(d.seed),
        };
        Ok(cfg)
    }

    fn check(&self, r: &Rules) -> Result<(), ConfigError> {
        r.in_range("interval", self.interval, 1..=MAX_INTERVAL)?;
        r.power_of_two_in("buckets", self.buckets as u64, 2..=256)?;
        r.in_range("counter_bits", self.counter_bits, 1..=32)?;
        r.in_range("q_bits", self.q_bits, 1..=16)?;
        r.power_of_two_in("entries", self.entries as u64, 2..=64)?;
        for (field, v) in [
            ("threshold", self.threshold),
            ("merge_threshold", self.merge_threshold),
        ] {
            if v > self.max_distance() {
                return r.fail(
                    field,
                    format!(
                        "must be at most B·(2^Q − 1) = {} (the largest possible distance), got {v}",
                        self.max_distance(),
                    ),
                );
            }
        }
        r.in_range("centre_shift", self.centre_shift, 1..=8)?;
        r.in_range("min_count", self.min_count, 1..=(1 << COUNT_BITS) - 1)?;
        r.power_of_two_in("markov_entries", self.markov_entries as u64, 2..=256)?;
        r.in_range("sample_every", self.sample_every, 1..=65536)?;
        r.in_range("pc_bits", self.pc_bits, 1..=64)
    }
}

impl PhaseConfig {
    /// Whether a new signature can join the phase of its nearest signature (`merge_threshold` >
    /// `threshold`).
    pub fn merges(&self) -> bool {
        self.merge_threshold > self.threshold
    }

    /// Whether TOML text is a phase-classifier configuration (has a `[phase]` table).
    pub fn is_phase_toml(text: &str) -> bool {
        toml_has_key(text, "phase")
    }

    /// log2(B): the width of a bucket index.
    pub fn bucket_bits(&self) -> u32 {
        self.buckets.trailing_zeros()
    }

    /// log2(P): the width of a signature-table index.
    pub fn entry_bits(&self) -> u32 {
        self.entries.trailing_zeros()
    }

    /// log2(markov_entries).
    pub fn markov_bits(&self) -> u32 {
        self.markov_entries.trailing_zeros()
    }

    /// The id after `id`: ids count up and wrap, before the transition id when `min_count` > 1.
    pub fn next_phase_id(&self, id: u32) -> u32 {
        if id == self.last_phase_id() {
            0
        } else {
            id + 1
        }
    }

    /// The largest id a phase takes: 2^PHASE_ID_BITS − 1, or one less when that is the transition
    /// phase's.
    pub fn last_phase_id(&self) -> u32 {
        if self.min_count > 1 {
            TRANSITION_ID - 1
        } else {
            TRANSITION_ID
        }
    }

    /// Whether a reported phase id is the transition phase (never with `min_count` = 1).
    pub fn is_transition(&self, id: u32) -> bool {
        self.min_count > 1 && id == TRANSITION_ID
    }

    /// Saturation value of an accumulator.
    pub fn counter_max(&self) -> u64 {
        width_mask(self.counter_bits)
    }

    /// 2^Q − 1: the largest normalised bucket, and the scale of normalisation.
    pub fn q_max(&self) -> u64 {
        width_mask(self.q_bits)
    }

    /// B·(2^Q − 1): no Manhattan distance between two signatures exceeds it.
    pub fn max_distance(&self) -> u64 {
        self.buckets as u64 * self.q_max()
    }

    /// Width of a distance: Q + log2(B) bits hold B·(2^Q − 1) and leave the all-ones value
    /// ("no valid signature") unreachable.
    pub fn distance_bits(&self) -> u32 {
        self.q_bits + self.bucket_bits()
    }

    /// The distance reported when no signature is valid: all ones.
    pub fn no_distance(&self) -> u64 {
        width_mask(self.distance_bits())
    }

    /// Saturation value of a weight at the event port.
    pub fn weight_max() -> u64 {
        width_mask(WEIGHT_BITS as u32)
    }

    pub fn pc_mask(&self) -> u64 {
        width_mask(self.pc_bits)
    }

    /// The h3 masks of the bucket hash: bucket bit i = parity(pc & mask_i). Drawn from
    /// [`SplitMix64`] seeded with `seed`, one draw per bit, lowest bit first, each masked to `pc_bits`.
    pub fn bucket_masks(&self) -> Vec<u64> {
        let mut g = SplitMix64(self.seed);
        (0..self.bucket_bits())
            .map(|_| g.next_u64() & self.pc_mask())
            .collect()
    }

    /// Bits of state: live and snapshot accumulators, the normalised vector, the signature table
    /// (vectors, ids, valid bits, LRU ages, interval counts), the predictor table, its state and the entry held
    /// from the last lookup.
    pub fn storage_bits(&self) -> u64 {
        let (b, p, m) = (
            self.buckets as u64,
            self.entries as u64,
            self.markov_entries as u64,
        );
        let id = PHASE_ID_BITS as u64;
        let acc = 2 * b * self.counter_bits as u64;
        let vector = b * self.q_bits as u64;
        let table =
            p * (b * self.q_bits as u64 + id + 1 + self.entry_bits() as u64 + COUNT_BITS as u64);
        let word = 2 + id + RUN_BITS as u64 + id;
        let markov = m * word + id + RUN_BITS as u64 + word;
        acc + vector + table + markov
    }

    /// A one-line summary.
    pub fn summary(&self) -> String {
        format!(
            "I={} B={} acc {}b Q={} P={} T={} {} M={} N={}",
            self.interval,
            self.buckets,
            self.counter_bits,
            self.q_bits,
            self.entries,
            self.threshold,
            match self.centre {
                CentreUpdate::Leader => "leader".to_string(),
                CentreUpdate::MovingAverage => format!("avg>>{}", self.centre_shift),
            },
            self.markov_entries,
            self.sample_every
        ) + &if self.merges() {
            format!(" merge={}", self.merge_threshold)
        } else {
            String::new()
        } + &if self.when_full == WhenFull::JoinNearest {
            format!(" when_full={}", self.when_full.name())
        } else {
            String::new()
        } + &if self.min_count > 1 {
            format!(" min_count={}", self.min_count)
        } else {
            String::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &str) -> Result<PhaseConfig, ConfigError> {
        PhaseConfig::from_toml_str(&format!("[phase]\n{body}"), "p.toml")
    }

    #[test]
    fn defaults() {
        let c = parse("").unwrap();
        assert_eq!(c, PhaseConfig::default());
        assert_eq!(c.distance_bits(), 13);
        assert!(c.storage_bits() <= 2 * 1024 * 8, "{}", c.storage_bits());
        assert_eq!(c.bucket_masks().len(), 5);
        assert!(PhaseConfig::is_phase_toml("[phase]\ninterval = 5\n"));
        assert!(!PhaseConfig::is_phase_toml("interval = 5\n"));
    }

    #[test]
    fn rules_name_the_field() {
        for (body, field) in [
            ("interval = 0", "interval"),
            ("buckets = 24", "buckets"),
            ("buckets = 512", "buckets"),
            ("counter_bits = 0", "counter_bits"),
            ("q_bits = 17", "q_bits"),
            ("entries = 128", "entries"),
            ("threshold = 100000", "threshold"),
            ("merge_threshold = 100000", "merge_threshold"),
            ("centre_shift = 0", "centre_shift"),
            ("min_count = 0", "min_count"),
            ("min_count = 16", "min_count"),
            ("markov_entries = 3", "markov_entries"),
            ("sample_every = 0", "sample_every"),
            ("pc_bits = 65", "pc_bits"),
        ] {
            let e = parse(body).expect_err(body);
            assert_eq!(e.field, field, "{body}: {e}");
        }
        let e = parse("when_full = \"drop\"").unwrap_err();
        assert!(e.to_string().contains("drop"), "{e}");
        let e = parse("centre = \"median\"").unwrap_err();
        assert!(e.to_string().contains("median"), "{e}");
        let e = parse("bogus = 1").unwrap_err();
        assert!(e.to_string().contains("bogus"), "{e}");
        assert!(PhaseConfig::from_toml_str("interval = 5", "x").is_err());
    }

    #[test]
    fn masks_are_seeded() {
        let a = parse("seed = 3").unwrap();
        let b = parse("seed = 4").unwrap();
        assert_ne!(a.bucket_masks(), b.bucket_masks());
        assert_eq!(a.bucket_masks(), parse("seed = 3").unwrap().bucket_masks());
        let narrow = parse("pc_bits = 12").unwrap();
        assert!(narrow.bucket_masks().iter().all(|&m| m < 1 << 12));
    }
}
