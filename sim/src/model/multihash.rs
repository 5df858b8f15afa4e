//! Bit-exact reference model of the multi-hash profiler (docs/SPEC.md §4); `tables = 1` is the
//! paper's single-hash profiler. The RTL in `hwprof_hdl::multihash` must produce exactly these
//! reports.
//!
//! Per event (a, b), masked to the key widths:
//! The accumulator is fully associative or set-associative (sets chosen by an h3 hash, optional
//! shared stash); the same rules hold among the entries open to a tuple.
//!
//! 1. accumulator hit: count += 1 (saturating); a replaceable entry reaching T becomes locked.
//!    The hash tables are not touched (**shielding**).
//! 2. miss: counters c_k = table_k[h_k(a, b)]; **conservative update** (C1) increments only the
//!    counters equal to the minimum, C0 all of them. If the new minimum reaches T, an accumulator
//!    entry is allocated (empty first, else replaceable, lowest index first), locked, with that
//!    count; with **reset on promote** (R1) the tuple's counters are then written as
//!    `reset_value` (0 unless configured; below T, so never above what they held). With
//!    `accumulator.replacement = "smallest"` the replaceable entry taken is the one with the
//!    smallest count (lowest index on ties), as Space-Saving replaces its minimum.
//! 3. after exactly L events: the report is every entry with count ≥ T, in entry order. The tables
//!    read as zero again; with **retaining** (P1) reported entries stay as replaceable with count 0,
//!    all other entries are emptied.
//!
//! A trailing partial interval is reported only when flushed.
//!
//! Settings at run time (the bus slave's registers, [`hwprof_hdl::readout`]):
//! [`MultiHash::set_interval`] sets L for the intervals that start after the open one;
//! [`MultiHash::flush`] ends the open interval now and reports it (nothing when it has no
//! event); [`MultiHash::clear`] starts over with empty tables, interval numbers from 0.

use crate::model::Tuple;
use hwprof_hdl::config::{Organisation, ProfilerConfig, Replacement, MAX_TABLES};
use hwprof_hdl::hash::{ByteLinearHash, HashConstants, SetHash};
use hwprof_hdl::ConfigFile;
use rustc_hash::FxHashMap as FxMap;
use serde::Serialize;

/// One reported tuple.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReportEntry {
    pub a: u64,
    pub b: u64,
    pub count: u64,
}

/// The report of one interval (numbered from 0), entries in accumulator-entry order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IntervalReport {
    pub interval: u64,
    pub entries: Vec<ReportEntry>,
}

/// Where an interval profiler stands in its run of intervals of L events: the number of the open
/// interval and the events it has seen. The models close their intervals through it, so that
/// every model numbers its reports alike.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IntervalClock {
    interval: u64,
    in_interval: u64,
}

impl IntervalClock {
    /// Counts one event of an interval of `length` events; true when that event completes it.
    #[inline]
    pub fn tick(&mut self, length: u64) -> bool {
        self.in_interval += 1;
        self.in_interval == length
    }

    /// Whether the open interval has seen an event.
    pub fn is_open(&self) -> bool {
        self.in_interval > 0
    }

    /// Closes the open interval with `entries` as its report and opens the next one.
    pub fn close(&mut self, entries: Vec<ReportEntry>) -> IntervalReport {
        let r = IntervalReport {
            interval: self.interval,
            entries,
        };
        self.interval += 1;
        self.in_interval = 0;
        r
    }
}

/// State of an accumulator entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryState {
    Empty,
    /// Holds a tuple that has reached T in this interval; cannot be replaced.
    Locked,
    /// Retained from the previous interval, count below T: may be replaced by a new tuple.
    Replaceable,
}

/// How the accumulator's entries are organised (docs/SPEC.md §4.4).
#[derive(Debug, Clone)]
enum Layout {
    /// One set of A entries: any tuple may take any entry.
    Full,
    /// A / ways sets of `ways` entries chosen by [`SetHash`], then `stash` fully-associative entries
    /// (indices A .. A + stash) shared by every set.
    Sets {
        ways: usize,
        entries: usize,
        stash: usize,
        hash: SetHash,
    },
}

/// The accumulator table. Entry order (for allocation and reports) is the index order:
/// set-major, way-minor, then the stash.
#[derive(Debug, Clone)]
pub struct Accumulator {
    pub state: Vec<EntryState>,
    pub tag: Vec<Tuple>,
    pub count: Vec<u64>,
    map: FxMap<Tuple, u32>,
    /// Bitsets of empty and of replaceable entries, for "lowest index first" in O(A/64).
    empty: Vec<u64>,
    replaceable: Vec<u64>,
    layout: Layout,
    replacement: Replacement,
}

fn first_set(bits: &[u64]) -> Option<usize> {
    bits.iter()
        .enumerate()
        .find(|(_, w)| **w != 0)
        .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
}

fn set_bit(bits: &mut [u64], i: usize, on: bool) {
    if on {
        bits[i / 64] |= 1 << (i % 64);
    } else {
        bits[i / 64] &= !(1 << (i % 64));
    }
}

impl Accumulator {
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let acc = &cfg.accumulator;
        let (entries, layout) = match acc.organisation {
            Organisation::FullyAssociative => (acc.entries, Layout::Full),
            Organisation::SetAssociative => (
                acc.entries + acc.stash,
                Layout::Sets {
                    ways: acc.ways,
                    entries: acc.entries,
                    stash: acc.stash,
                    hash: SetHash::new(cfg),
                },
            ),
        };
        let words = entries.div_ceil(64);
        let mut empty = vec![u64::MAX; words];
        if entries % 64 != 0 {
            empty[words - 1] = (1u64 << (entries % 64)) - 1;
        }
        Accumulator {
            state: vec![EntryState::Empty; entries],
            tag: vec![(0, 0); entries],
            count: vec![0; entries],
            map: {
                let mut m = FxMap::default();
                m.reserve(entries);
                m
            },
            empty,
            replaceable: vec![0; words],
            layout,
            replacement: acc.replacement,
        }
    }

    /// Number of entries (including a set-associative accumulator's stash).
    pub fn len(&self) -> usize {
        self.state.len()
    }

    pub fn is_empty(&self) -> bool {
        self.state.is_empty()
    }

    /// The replaceable entry a promotion takes among `open` (in index order): the first, or the
    /// one of smallest count (the first of them on ties).
    fn replaceable_victim(&self, open: impl Iterator<Item = usize>) -> Option<usize> {
        let mut open = open.filter(|&i| self.state[i] == EntryState::Replaceable);
        match self.replacement {
            Replacement::First => open.next(),
            Replacement::Smallest => open.min_by_key(|&i| (self.count[i], i)),
        }
    }

    /// The entry a new tuple may take: empty first (lowest index), else replaceable (see
    /// [`Self::replaceable_victim`]) among the entries open to `t`.
    fn victim(&self, t: Tuple) -> Option<usize> {
        match &self.layout {
            Layout::Full => first_set(&self.empty).or_else(|| match self.replacement {
                Replacement::First => first_set(&self.replaceable),
                Replacement::Smallest => self.replaceable_victim(
                    self.replaceable.iter().enumerate().flat_map(|(w, &bits)| {
                        (0..64)
                            .filter(move |b| bits >> b & 1 == 1)
                            .map(move |b| w * 64 + b)
                    }),
                ),
            }),
            Layout::Sets {
                ways,
                entries,
                stash,
                hash,
            } => {
                let base = hash.set(t.0, t.1) * ways;
                let open = || (base..base + ways).chain(*entries..entries + stash);
                open()
                    .find(|&i| self.state[i] == EntryState::Empty)
                    .or_else(|| self.replaceable_victim(open()))
            }
        }
    }

    #[inline]
    pub fn lookup(&self, t: Tuple) -> Option<usize> {
        self.map.get(&t).map(|&i| i as usize)
    }

    /// Allocates a locked entry for `t` (known to be absent): empty first, else replaceable,
    /// lowest index first. None when every entry is locked.
    pub fn allocate(&mut self, t: Tuple, count: u64) -> Option<usize> {
        let i = self.victim(t)?;
        if self.state[i] == EntryState::Replaceable {
            self.map.remove(&self.tag[i]);
        }
        set_bit(&mut self.empty, i, false);
        set_bit(&mut self.replaceable, i, false);
        self.state[i] = EntryState::Locked;
        self.tag[i] = t;
        self.count[i] = count;
        self.map.insert(t, i as u32);
        Some(i)
    }

    /// **Shielding**: when `t` holds an entry, its count grows by one (saturating at `count_max`), a
    /// replaceable entry reaching `threshold` becomes locked, and the event goes no further (true).
    #[inline]
    pub fn shield(&mut self, t: Tuple, threshold: u64, count_max: u64) -> bool {
        let Some(i) = self.lookup(t) else {
            return false;
        };
        let c = (self.count[i] + 1).min(count_max);
        self.count[i] = c;
        if self.state[i] == EntryState::Replaceable && c >= threshold {
            self.state[i] = EntryState::Locked;
            set_bit(&mut self.replaceable, i, false);
        }
        true
    }

    /// Interval end: the report (entries with count ≥ T), then **retaining** (reported entries stay,
    /// replaceable, count 0) or emptying.
    pub fn end_interval(&mut self, threshold: u64, retaining: bool) -> Vec<ReportEntry> {
        let mut report = Vec::new();
        self.map.clear();
        for i in 0..self.state.len() {
            let reported = self.state[i] != EntryState::Empty && self.count[i] >= threshold;
            if reported {
                let (a, b) = self.tag[i];
                report.push(ReportEntry {
                    a,
                    b,
                    count: self.count[i],
                });
            }
            let keep = reported && retaining;
            self.state[i] = if keep {
                EntryState::Replaceable
            } else {
                EntryState::Empty
            };
            self.count[i] = 0;
            set_bit(&mut self.empty, i, !keep);
            set_bit(&mut self.replaceable, i, keep);
            if keep {
                self.map.insert(self.tag[i], i as u32);
            }
        }
        report
    }
}

/// docs/SPEC.md §4.2 step 2 on one tuple's counters `c`, in place: **conservative update** (only the
/// counters equal to the minimum are incremented; all of them without it), saturating at
/// `counter_max`. Returns the new minimum, which the candidate threshold T is compared with.
#[inline]
pub fn conservative_update(c: &mut [u32], conservative: bool, counter_max: u32) -> u32 {
    let m = *c.iter().min().expect("at least one table");
    for ck in c.iter_mut() {
        if (!conservative || *ck == m) && *ck < counter_max {
            *ck += 1;
        }
    }
    *c.iter().min().expect("at least one table")
}

/// Event counts of what happened inside the model (for reports and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ModelCounters {
    /// Events that hit the accumulator and so were shielded from the hash tables.
    pub shielded: u64,
    pub promotions: u64,
    /// Events whose counters all reached T but found no free or replaceable entry.
    pub failed_allocations: u64,
}

/// The multi-hash profiler model.
#[derive(Debug, Clone)]
pub struct MultiHash {
    cfg: ProfilerConfig,
    hash: ByteLinearHash,
    /// tables × entries counters, table-major.
    pub counters: Vec<u32>,
    pub acc: Accumulator,
    clock: IntervalClock,
    /// L of the open interval, and of the intervals after it.
    length: u64,
    next_length: u64,
    /// T, the candidate threshold, of the open interval, and of the intervals after it.
    threshold: u64,
    next_threshold: u64,
    pub stats: ModelCounters,
    /// Hot copies of configuration values, read on every event.
    a_mask: u64,
    b_mask: u64,
    counter_max: u32,
    count_max: u64,
}

impl MultiHash {
    /// A model of `cfg` (validated again here, so a hand-edited config cannot slip through).
    pub fn new(cfg: &ProfilerConfig) -> Result<Self, String> {
        cfg.validate().map_err(|e| e.to_string())?;
        let hash = ByteLinearHash::new(&HashConstants::new(cfg));
        Ok(MultiHash {
            cfg: cfg.clone(),
            hash,
            counters: vec![0; cfg.tables * cfg.entries],
            acc: Accumulator::new(cfg),
            clock: IntervalClock::default(),
            length: cfg.interval,
            next_length: cfg.interval,
            threshold: cfg.threshold,
            next_threshold: cfg.threshold,
            stats: ModelCounters::default(),
            a_mask: cfg.a_mask(),
            b_mask: cfg.b_mask(),
            counter_max: cfg.counter_max() as u32,
            count_max: cfg.accumulator_count_max(),
        })
    }

    pub fn config(&self) -> &ProfilerConfig {
        &self.cfg
    }

    /// Counter of table `k` at `index`.
    pub fn counter(&self, k: usize, index: usize) -> u32 {
        self.counters[k * self.cfg.entries + index]
    }

    /// Feeds one event; returns the interval's report when this event completes an interval.
    #[inline]
    pub fn event(&mut self, a: u64, b: u64) -> Option<IntervalReport> {
        let cfg = &self.cfg;
        let t = (a & self.a_mask, b & self.b_mask);
        let max32 = self.counter_max;
        if self.acc.shield(t, self.threshold, self.count_max) {
            self.stats.shielded += 1;
        } else {
            let n = cfg.tables;
            let mut idx = [0u32; MAX_TABLES as usize];
            self.hash.indices(t.0, t.1, &mut idx);
            let mut c = [0u32; MAX_TABLES as usize];
            for k in 0..n {
                c[k] = self.counters[k * cfg.entries + idx[k] as usize];
            }
            let new_min = conservative_update(&mut c[..n], cfg.conservative_update, max32) as u64;
            if new_min >= self.threshold {
                if self.acc.allocate(t, new_min).is_some() {
                    self.stats.promotions += 1;
                    if cfg.reset_on_promote {
                        c[..n].fill(cfg.reset_value as u32);
                    }
                } else {
                    self.stats.failed_allocations += 1;
                }
            }
            for k in 0..n {
                self.counters[k * cfg.entries + idx[k] as usize] = c[k];
            }
        }
        self.clock.tick(self.length).then(|| self.end_interval())
    }

    fn end_interval(&mut self) -> IntervalReport {
        let entries = self.acc.end_interval(self.threshold, self.cfg.retaining);
        self.counters.fill(0);
        self.length = self.next_length;
        self.threshold = self.next_threshold;
        self.clock.close(entries)
    }

    /// Sets L for the intervals that start after the open one: 1 ..= `max_interval`, else an
    /// error (and no change), as the bus slave ignores such a write.
    pub fn set_interval(&mut self, length: u64) -> Result<(), String> {
        let max = self.cfg.max_interval();
        if !(1..=max).contains(&length) {
            return Err(format!(
                "interval length {length}: must be in 1..={max} (max_interval)"
            ));
        }
        self.next_length = length;
        Ok(())
    }

    /// L of the open interval.
    pub fn interval_length(&self) -> u64 {
        self.length
    }

    /// Sets T for the intervals that start after the open one: `min_threshold ..= max_threshold`,
    /// else an error (and no change), as the bus slave ignores such a write.
    pub fn set_threshold(&mut self, threshold: u64) -> Result<(), String> {
        let (min, max) = (self.cfg.min_threshold(), self.cfg.max_threshold());
        if !(min..=max).contains(&threshold) {
            return Err(format!(
                "threshold {threshold}: must be in {min}..={max} (reset_value + 1 ..= max_threshold)"
            ));
        }
        self.next_threshold = threshold;
        Ok(())
    }

    /// T of the open interval.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// Ends the open interval now: its report, or None when it has no event.
    pub fn flush(&mut self) -> Option<IntervalReport> {
        self.clock.is_open().then(|| self.end_interval())
    }

    /// Starts over: empty tables and accumulator, the next interval numbered 0, with the L and T
    /// last set.
    pub fn clear(&mut self) {
        let (length, threshold) = (self.next_length, self.next_threshold);
        *self = MultiHash::new(&self.cfg).expect("a validated configuration");
        (self.length, self.next_length) = (length, length);
        (self.threshold, self.next_threshold) = (threshold, threshold);
    }

    /// Runs a whole event stream; the reports of its complete intervals.
    pub fn run(&mut self, events: &[Tuple]) -> Vec<IntervalReport> {
        events
            .iter()
            .filter_map(|&(a, b)| self.event(a, b))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Interval 0 makes X (entry 0) and Y (entry 1) hot; in interval 1, X is seen once more before
    /// Z reaches T. "first" evicts X (lowest index), "smallest" evicts Y (count 0 < 1).
    fn survivor(replacement: &str, organisation: &str) -> (bool, bool, Vec<ReportEntry>) {
        let cfg = ProfilerConfig::from_toml_str(
            &format!(
                "interval = 8\nthreshold = 2\ntables = 1\nentries = 1024\nhash = \"h3\"\n\
                 [accumulator]\nentries = 2\nreplacement = \"{replacement}\"\n{organisation}"
            ),
            "t",
        )
        .unwrap();
        let mut m = MultiHash::new(&cfg).unwrap();
        let (x, y, z) = ((1, 1), (2, 2), (3, 3));
        let first = [x, x, x, y, y, (10, 0), (11, 0), (12, 0)];
        let r0 = m.run(&first);
        assert_eq!(r0.len(), 1);
        assert_eq!(r0[0].entries.len(), 2, "X and Y reported: {r0:?}");
        let second = [x, z, z, (13, 0), (14, 0), (15, 0), (16, 0), (17, 0)];
        let r1 = m.run(&second[..3]);
        assert!(r1.is_empty());
        let kept = (m.acc.lookup(x).is_some(), m.acc.lookup(y).is_some());
        assert!(m.acc.lookup(z).is_some(), "Z promoted");
        let r = m.run(&second[3..]);
        (kept.0, kept.1, r[0].entries.clone())
    }

    #[test]
    fn replacement_first_takes_lowest_index() {
        let (x, y, report) = survivor("first", "");
        assert!(!x && y, "X evicted, Y kept");
        assert_eq!(report.len(), 1, "only Z reaches T: {report:?}");
        assert_eq!((report[0].a, report[0].count), (3, 2));
    }

    #[test]
    fn replacement_smallest_takes_smallest_count() {
        for org in ["", "organisation = \"set_associative\"\nways = 2\n"] {
            let (x, y, report) = survivor("smallest", org);
            assert!(x && !y, "{org}: X (count 1) kept, Y (count 0) evicted");
            assert_eq!(report.len(), 1, "{org}: {report:?}");
        }
    }
}
