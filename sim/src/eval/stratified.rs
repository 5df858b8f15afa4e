//! Model of the **stratified sampler** (Sastry, Bodik, Smith, ISCA 2001), as the HPCA 2003 paper
//! describes it in §4.2 (its Fig. 1): the baseline the multi-hash profiler grew out of.
//!
//! One table of hashed counters. Each event (a, b) increments counter h(a, b); when that counter
//! reaches the **sampling threshold** T_s it is reset to 0 and the event is *reported* to the
//! profiling software (an interrupt in the original). The software's profile credits every report
//! with T_s events, so a tuple's estimate is reports × T_s.
//!
//! To be scored with the paper's metric beside the profiler, the model is run in the same intervals
//! of L events: at the interval end the software profile's tuples whose estimate reaches the candidate
//! threshold T form the report, then the profile and the counters are cleared. The software profile
//! itself is unbounded (it lives in OS memory, not in the hardware budget); the hardware is the
//! counter table only, `entries × counter_bits` bits, with counters just wide enough for T_s.
//!
//! The hash is the profiler's own ([`hwprof_hdl::hash`]): one table, same kind and seed.

use crate::eval::trace::Tuple;
use crate::model::multihash::{IntervalClock, IntervalReport, ReportEntry};
use hwprof_hdl::config::ProfilerConfig;
use hwprof_hdl::hash::{ByteLinearHash, HashConstants};
use hwprof_hdl::ConfigFile;
use rustc_hash::FxHashMap as FxMap;

/// Parameters of a stratified sampler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StratifiedConfig {
    /// L: events per interval.
    pub interval: u64,
    /// T: the candidate threshold the report is cut at (as the profiler's).
    pub threshold: u64,
    /// T_s: a counter reaching it reports the event and resets (1 ..= 2^counter_bits − 1).
    pub sampling_threshold: u64,
    /// Counters in the table (power of two).
    pub entries: usize,
    /// Width of each counter: the smallest that holds T_s.
    pub counter_bits: u32,
    /// The hash kind, seed and key widths are taken from this profiler configuration.
    pub hash_from: ProfilerConfig,
}

impl StratifiedConfig {
    /// The largest sampler whose counter table fits in `budget_bits`, hashing like `base`,
    /// reporting every `sampling_threshold` events of a counter.
    pub fn with_budget(
        base: &ProfilerConfig,
        sampling_threshold: u64,
        budget_bits: u64,
    ) -> Result<Self, String> {
        if sampling_threshold == 0 {
            return Err("stratified sampler: sampling threshold must be at least 1".into());
        }
        let counter_bits = 64 - sampling_threshold.leading_zeros();
        let fit = budget_bits / counter_bits as u64;
        if fit < 2 {
            return Err(format!(
                "stratified sampler: a budget of {budget_bits} bits holds fewer than 2 counters of {counter_bits} bits"
            ));
        }
        let entries = 1usize << (63 - fit.leading_zeros()).min(20);
        Ok(StratifiedConfig {
            interval: base.interval,
            threshold: base.threshold,
            sampling_threshold,
            entries,
            counter_bits,
            hash_from: base.clone(),
        })
    }

    /// Hardware bits: the counter table.
    pub fn storage_bits(&self) -> u64 {
        self.entries as u64 * self.counter_bits as u64
    }

    pub fn summary(&self) -> String {
        format!(
            "stratified 1x{}x{}b Ts={} L={} T={}",
            self.entries, self.counter_bits, self.sampling_threshold, self.interval, self.threshold
        )
    }
}

/// The stratified sampler model.
#[derive(Debug, Clone)]
pub struct Stratified {
    cfg: StratifiedConfig,
    hash: ByteLinearHash,
    a_mask: u64,
    b_mask: u64,
    pub counters: Vec<u32>,
    /// The software side: reports per tuple in this interval.
    pub reports: FxMap<Tuple, u64>,
    /// Reports sent to software over the whole run (the interrupt load of the original design).
    pub total_reports: u64,
    clock: IntervalClock,
}

impl Stratified {
    pub fn new(cfg: &StratifiedConfig) -> Result<Self, String> {
        let mut h = cfg.hash_from.clone();
        h.tables = 1;
        h.entries = cfg.entries;
        h.counter_bits = cfg.counter_bits;
        h.threshold = cfg.sampling_threshold.min(h.interval);
        h.validate()
            .map_err(|e| format!("stratified sampler: {e}"))?;
        if cfg.sampling_threshold > h.counter_max() {
            return Err(format!(
                "stratified sampler: sampling threshold {} does not fit in {} bits",
                cfg.sampling_threshold, cfg.counter_bits
            ));
        }
        Ok(Stratified {
            hash: ByteLinearHash::new(&HashConstants::new(&h)),
            a_mask: h.a_mask(),
            b_mask: h.b_mask(),
            counters: vec![0; cfg.entries],
            reports: FxMap::default(),
            total_reports: 0,
            clock: IntervalClock::default(),
            cfg: cfg.clone(),
        })
    }

    /// Feeds one event; the interval's report when it completes an interval.
    #[inline]
    pub fn event(&mut self, a: u64, b: u64) -> Option<IntervalReport> {
        let t = (a & self.a_mask, b & self.b_mask);
        let mut idx = [0u32; 1];
        self.hash.indices(t.0, t.1, &mut idx);
        let c = &mut self.counters[idx[0] as usize];
        *c += 1;
        if *c as u64 >= self.cfg.sampling_threshold {
            *c = 0;
            *self.reports.entry(t).or_default() += 1;
            self.total_reports += 1;
        }
        self.clock
            .tick(self.cfg.interval)
            .then(|| self.end_interval())
    }

    fn end_interval(&mut self) -> IntervalReport {
        let ts = self.cfg.sampling_threshold;
        let mut entries: Vec<ReportEntry> = self
            .reports
            .iter()
            .map(|(&(a, b), &n)| ReportEntry {
                a,
                b,
                count: n * ts,
            })
            .filter(|e| e.count >= self.cfg.threshold)
            .collect();
        // Deterministic order (the map's is not).
        entries.sort_unstable_by_key(|e| (e.a, e.b));
        self.reports.clear();
        self.counters.fill(0);
        self.clock.close(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(interval: u64, threshold: u64) -> ProfilerConfig {
        ProfilerConfig::from_toml_str(
            &format!("interval = {interval}\nthreshold = {threshold}\ntables = 4\nentries = 512\n"),
            "t",
        )
        .unwrap()
    }

    #[test]
    fn budget_sizing() {
        let c = StratifiedConfig::with_budget(&base(1000, 10), 10, 49152).unwrap();
        assert_eq!(c.counter_bits, 4, "10 needs 4 bits");
        assert_eq!(c.entries, 8192, "49152 / 4 = 12288 -> 8192");
        assert!(c.storage_bits() <= 49152);
        assert!(StratifiedConfig::with_budget(&base(1000, 10), 0, 100).is_err());
    }

    #[test]
    fn reports_times_threshold_and_reset() {
        // One tuple alone: exact multiples of T_s, the remainder is lost; counters reset per interval.
        let cfg = StratifiedConfig::with_budget(&base(100, 10), 4, 1024).unwrap();
        let mut s = Stratified::new(&cfg).unwrap();
        let mut out = vec![];
        for i in 0..200u64 {
            let ev = if i % 100 < 23 { (7, 9) } else { (1000 + i, i) };
            out.extend(s.event(ev.0, ev.1));
        }
        assert_eq!(out.len(), 2);
        for r in &out {
            let e = r.entries.iter().find(|e| (e.a, e.b) == (7, 9)).unwrap();
            // 23 occurrences, T_s = 4: 5 reports = 20 unless a colliding distinct tuple helped.
            assert!(e.count % 4 == 0 && (20..=24).contains(&e.count), "{e:?}");
            assert!(r.entries.iter().all(|e| e.count >= 10));
        }
        assert_eq!(
            s.counters.iter().sum::<u32>(),
            0,
            "cleared at the interval end"
        );
    }
}
