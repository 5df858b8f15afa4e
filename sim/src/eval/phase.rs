//! Evaluation of the phase classifier on real traces: the event stream `(pc, weight)` read from a
//! lackey log, the ground truth (exact per-interval basic-block vectors), an offline SimPoint-style
//! reference classifier, per-interval behaviour metrics, and the ScarPhase quality measures.
//!
//! **Events.** `branch`: from a `--trace-mem` log, a branch is every execution of a pc ever seen
//! transferring control (as [`crate::eval::trace`] reads branch traces); its weight is the
//! instructions since the previous branch, itself included (its basic block). `load`: every load
//! (`L`, `M`), weighted by the instructions since the previous load. `edge`: every superblock entry
//! of a `--trace-superblocks` log, weight 1 (intervals then count superblocks; such a log carries no
//! behaviour metrics).
//!
//! **Behaviour metrics** per interval, from the same log, without a CPU model: the miss rate of a
//! simulated L1 data cache ([`L1D`]: 32 KiB, 8-way, 64-byte lines, LRU, allocate on every access;
//! `M` is one access), memory operations per instruction, and the taken rate of branches.
//!
//! **Quality.** CoV of a metric within a phase is its population standard deviation over the
//! phase's intervals divided by their mean (0 when the mean is 0); `cov_whole` is that of all
//! intervals as one phase. CCoV (ScarPhase §5.1): an interval whose phase differs from both
//! neighbours' goes to a virtual phase whose CoV is `cov_whole`; CCoV is the average of the phases'
//! CoVs weighted by their numbers of intervals. With `min_count` > 1 the classifier reports
//! intervals of signatures not yet seen `min_count` times as the transition phase: they are not
//! classified, so `ccov` charges them `cov_whole` as it does isolated intervals (they join the
//! virtual phase), `phases` does not count the transition phase, and `transition_intervals` says
//! how many intervals it holds; `ccov_transition_as_phase` is the CCoV with the transition phase
//! scored as an ordinary phase, for comparison. ARI and prediction accuracy take the transition
//! phase as one label like any other.
//!
//! **Reference** (SimPoint, Sherwood et al. 2002): the exact BBVs normalised to sum 1, randomly
//! projected to [`PROJECTED_DIMS`] dimensions, k-means for k = 1 ..= [`MAX_K`] (best of
//! [`KMEANS_SEEDS`] seeded k-means++ starts), k the smallest whose BIC reaches 90 % of the range
//! of BICs (SimPoint's rule).

use crate::eval::trace::{for_each_mem_line, read_trace, LackeyKind, TraceError};
use crate::model::phase::{PhaseClassifier, PhaseRecord};
use hwprof_hdl::hash::SplitMix64;
use hwprof_hdl::phase::config::TRANSITION_ID;
use hwprof_hdl::phase::{CentreUpdate, PhaseConfig};
use hwprof_hdl::ConfigFile;
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::Path;

/// The simulated L1 data cache: 32 KiB, 8 ways, 64-byte lines (64 sets), LRU.
pub const L1D: CacheGeometry = CacheGeometry {
    sets: 64,
    ways: 8,
    line_bytes: 64,
};
pub const PROJECTED_DIMS: usize = 15;
pub const MAX_K: usize = 10;
pub const KMEANS_SEEDS: u64 = 5;
const KMEANS_ITERATIONS: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CacheGeometry {
    pub sets: usize,
    pub ways: usize,
    pub line_bytes: u64,
}

impl CacheGeometry {
    pub fn describe(&self) -> String {
        format!(
            "{} KiB, {}-way, {}-byte lines, LRU, allocate on every access",
            self.sets * self.ways * self.line_bytes as usize / 1024,
            self.ways,
            self.line_bytes
        )
    }
}

/// A set-associative LRU cache of line addresses.
#[derive(Debug, Clone)]
pub struct Cache {
    g: CacheGeometry,
    /// Per set: lines, most recently used first.
    sets: Vec<Vec<u64>>,
}

impl Cache {
    pub fn new(g: CacheGeometry) -> Self {
        Cache {
            g,
            sets: vec![Vec::with_capacity(g.ways); g.sets],
        }
    }

    /// Accesses the bytes [addr, addr + size); true if any line missed.
    pub fn access(&mut self, addr: u64, size: u64) -> bool {
        let first = addr / self.g.line_bytes;
        let last = addr.saturating_add(size.max(1) - 1) / self.g.line_bytes;
        let mut miss = false;
        for line in first..=last.min(first + 1) {
            let set = &mut self.sets[(line % self.g.sets as u64) as usize];
            match set.iter().position(|&l| l == line) {
                Some(i) => {
                    set[..=i].rotate_right(1);
                }
                None => {
                    miss = true;
                    if set.len() == self.g.ways {
                        set.pop();
                    }
                    set.insert(0, line);
                }
            }
        }
        miss
    }
}

/// What happened since the previous event, for the behaviour metrics.
#[derive(Debug, Clone, Copy, Default)]
pub struct Side {
    /// Instructions (the event's weight before saturation).
    pub instructions: u64,
    pub mem_ops: u32,
    pub misses: u32,
    /// Branches executed and taken (at most one per event for `branch`).
    pub branches: u32,
    pub taken: u32,
}

/// An event stream with, where the log has them, the behaviour counts of each event.
#[derive(Debug, Clone)]
pub struct PhaseTrace {
    pub events: Vec<(u64, u64)>,
    pub side: Option<Vec<Side>>,
}

/// Reads the event stream of `kind` from a lackey log.
pub fn read_phase_trace(path: &Path, kind: LackeyKind) -> Result<PhaseTrace, TraceError> {
    if kind == LackeyKind::Edge {
        let t = read_trace(path, Some(LackeyKind::Edge))?;
        return Ok(PhaseTrace {
            events: t.into_iter().map(|(_, sb)| (sb, 1)).collect(),
            side: None,
        });
    }
    // Pass 1: every pc ever seen transferring control.
    let mut transfers: FxHashSet<u64> = FxHashSet::default();
    let mut last: Option<(u64, u64)> = None;
    for_each_mem_line(path, |tag, addr, size| {
        if tag == b'I' {
            if let Some((p, s)) = last {
                if p.wrapping_add(s) != addr {
                    transfers.insert(p);
                }
            }
            last = Some((addr, size));
        }
        Ok(())
    })?;
    let mut events = vec![];
    let mut side = vec![];
    let mut cur = Side::default();
    let mut cache = Cache::new(L1D);
    let mut last: Option<(u64, u64)> = None;
    for_each_mem_line(path, |tag, addr, size| {
        match tag {
            b'I' => {
                if let Some((p, s)) = last {
                    if transfers.contains(&p) {
                        cur.branches += 1;
                        cur.taken += (p.wrapping_add(s) != addr) as u32;
                        if kind == LackeyKind::Branch {
                            events.push((p, cur.instructions));
                            side.push(std::mem::take(&mut cur));
                        }
                    }
                }
                cur.instructions += 1;
                last = Some((addr, size));
            }
            _ => {
                let pc = last.ok_or("a memory access before any instruction line")?.0;
                cur.mem_ops += 1;
                cur.misses += cache.access(addr, size) as u32;
                if kind == LackeyKind::Load && tag != b'S' {
                    events.push((pc, cur.instructions));
                    side.push(std::mem::take(&mut cur));
                }
            }
        }
        Ok(())
    })?;
    if events.is_empty() {
        return Err(TraceError {
            path: path.to_path_buf(),
            line: None,
            offset: None,
            msg: format!("no {} events in the trace", kind.name()),
        });
    }
    Ok(PhaseTrace {
        events,
        side: Some(side),
    })
}

/// The behaviour metrics, by name.
pub const METRICS: [&str; 3] = [
    "l1d_miss_rate",
    "mem_ops_per_instruction",
    "branch_taken_rate",
];

/// Per-interval ground truth, split at the classifier's interval ends.
#[derive(Debug, Clone)]
pub struct Intervals {
    /// Exact basic-block vectors: (pc, instructions) sorted by pc.
    pub bbv: Vec<Vec<(u64, u64)>>,
    /// metrics[m][i] for each of [`METRICS`], when the log has them.
    pub metrics: Option<Vec<Vec<f64>>>,
    pub instructions: Vec<u64>,
}

/// Splits a stream at the interval ends of `cfg` (the model's rule, weights saturated as at the
/// event port); the trailing partial interval is dropped, as the classifier never closes it.
pub fn intervals(cfg: &PhaseConfig, t: &PhaseTrace) -> Intervals {
    let wmax = PhaseConfig::weight_max();
    let mut out = Intervals {
        bbv: vec![],
        metrics: t.side.as_ref().map(|_| vec![vec![]; METRICS.len()]),
        instructions: vec![],
    };
    let mut count = 0u64;
    let mut bbv: FxHashMap<u64, u64> = FxHashMap::default();
    let mut sum = Side::default();
    for (i, &(pc, w)) in t.events.iter().enumerate() {
        *bbv.entry(pc).or_default() += w.max(1);
        if let Some(side) = &t.side {
            let s = side[i];
            sum.instructions += s.instructions;
            sum.mem_ops += s.mem_ops;
            sum.misses += s.misses;
            sum.branches += s.branches;
            sum.taken += s.taken;
        } else {
            sum.instructions += w;
        }
        count += w.min(wmax);
        if count >= cfg.interval {
            count = 0;
            let mut v: Vec<(u64, u64)> = bbv.drain().collect();
            v.sort_unstable();
            out.bbv.push(v);
            out.instructions.push(sum.instructions);
            if let Some(m) = &mut out.metrics {
                let ratio = |a: u32, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
                m[0].push(ratio(sum.misses, sum.mem_ops as u64));
                m[1].push(ratio(sum.mem_ops, sum.instructions));
                m[2].push(ratio(sum.taken, sum.branches as u64));
            }
            sum = Side::default();
        }
    }
    out
}

/// Population CoV: σ / μ (0 when μ = 0 or there are no values).
pub fn cov(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return 0.0;
    }
    let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    var.sqrt() / mean.abs()
}

/// Weighted CoV of `metric` within the phases of `labels`; with `corrected`, ScarPhase's CCoV
/// (isolated intervals form a virtual phase of CoV `cov_whole`).
pub fn weighted_cov(labels: &[u32], metric: &[f64], corrected: bool) -> f64 {
    weighted_cov_unclassified(labels, metric, corrected, None)
}

/// [`weighted_cov`] with the intervals labelled `unclassified` (if any) charged `cov_whole`: the
/// virtual phase, whether or not `corrected`.
pub fn weighted_cov_unclassified(
    labels: &[u32],
    metric: &[f64],
    corrected: bool,
    unclassified: Option<u32>,
) -> f64 {
    let n = labels.len();
    if n == 0 {
        return 0.0;
    }
    let whole = cov(metric);
    let mut groups: std::collections::BTreeMap<u32, Vec<f64>> = Default::default();
    let mut virtual_n = 0usize;
    for i in 0..n {
        let isolated = corrected
            && (i == 0 || labels[i - 1] != labels[i])
            && (i + 1 == n || labels[i + 1] != labels[i]);
        if isolated || unclassified == Some(labels[i]) {
            virtual_n += 1;
        } else {
            groups.entry(labels[i]).or_default().push(metric[i]);
        }
    }
    let sum: f64 = groups
        .values()
        .map(|g| g.len() as f64 * cov(g))
        .sum::<f64>()
        + virtual_n as f64 * whole;
    sum / n as f64
}

/// Adjusted Rand index of two labelings (1 when identical up to renaming, ~0 when independent).
pub fn adjusted_rand_index(a: &[u32], b: &[u32]) -> f64 {
    let n = a.len();
    let c2 = |x: f64| x * (x - 1.0) / 2.0;
    let mut table: FxHashMap<(u32, u32), f64> = FxHashMap::default();
    let mut ra: FxHashMap<u32, f64> = FxHashMap::default();
    let mut rb: FxHashMap<u32, f64> = FxHashMap::default();
    for i in 0..n {
        *table.entry((a[i], b[i])).or_default() += 1.0;
        *ra.entry(a[i]).or_default() += 1.0;
        *rb.entry(b[i]).or_default() += 1.0;
    }
    let index: f64 = table.values().map(|&x| c2(x)).sum();
    let sa: f64 = ra.values().map(|&x| c2(x)).sum();
    let sb: f64 = rb.values().map(|&x| c2(x)).sum();
    let expected = sa * sb / c2(n as f64);
    let max = (sa + sb) / 2.0;
    if max == expected {
        return 1.0;
    }
    (index - expected) / (max - expected)
}

/// A uniform value in [−1, 1) for (pc, dimension): the projection matrix, never stored.
fn projection(pc: u64, d: usize, seed: u64) -> f64 {
    let mut g =
        SplitMix64(pc ^ seed.rotate_left(17) ^ (d as u64).wrapping_mul(0xA24B_AED4_963E_E407));
    (g.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// The normalised BBVs projected to [`PROJECTED_DIMS`] dimensions.
pub fn project(bbv: &[Vec<(u64, u64)>], seed: u64) -> Vec<Vec<f64>> {
    bbv.iter()
        .map(|v| {
            let total: u64 = v.iter().map(|x| x.1).sum::<u64>().max(1);
            let mut p = vec![0.0; PROJECTED_DIMS];
            for &(pc, c) in v {
                let f = c as f64 / total as f64;
                for (d, x) in p.iter_mut().enumerate() {
                    *x += f * projection(pc, d, seed);
                }
            }
            p
        })
        .collect()
}

fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum()
}

/// k-means (k-means++ start from `seed`, Lloyd iterations); returns (labels, SSE).
pub fn kmeans(points: &[Vec<f64>], k: usize, seed: u64) -> (Vec<u32>, f64) {
    let mut g = SplitMix64(seed);
    let unit = |g: &mut SplitMix64| (g.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let n = points.len();
    let mut centres = vec![points[(g.next_u64() % n as u64) as usize].clone()];
    while centres.len() < k {
        let d: Vec<f64> = points
            .iter()
            .map(|p| centres.iter().map(|c| dist2(p, c)).fold(f64::MAX, f64::min))
            .collect();
        let total: f64 = d.iter().sum();
        let pick = if total == 0.0 {
            (g.next_u64() % n as u64) as usize
        } else {
            let mut r = unit(&mut g) * total;
            d.iter()
                .position(|&x| {
                    r -= x;
                    r < 0.0
                })
                .unwrap_or(n - 1)
        };
        centres.push(points[pick].clone());
    }
    let mut labels = vec![0u32; n];
    for _ in 0..KMEANS_ITERATIONS {
        let mut changed = false;
        for (i, p) in points.iter().enumerate() {
            let best = (0..k)
                .min_by(|&a, &b| dist2(p, &centres[a]).total_cmp(&dist2(p, &centres[b])))
                .unwrap() as u32;
            changed |= best != labels[i];
            labels[i] = best;
        }
        for (c, centre) in centres.iter_mut().enumerate() {
            let members: Vec<&Vec<f64>> = points
                .iter()
                .zip(&labels)
                .filter(|(_, &l)| l as usize == c)
                .map(|(p, _)| p)
                .collect();
            if !members.is_empty() {
                for (d, x) in centre.iter_mut().enumerate() {
                    *x = members.iter().map(|m| m[d]).sum::<f64>() / members.len() as f64;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let sse = points
        .iter()
        .zip(&labels)
        .map(|(p, &l)| dist2(p, &centres[l as usize]))
        .sum();
    (labels, sse)
}

/// BIC of a clustering (Pelleg & Moore's spherical-Gaussian form, as SimPoint uses).
pub fn bic(points: &[Vec<f64>], labels: &[u32], k: usize, sse: f64) -> f64 {
    let r = points.len() as f64;
    let m = points[0].len() as f64;
    let var = if points.len() > k {
        (sse / (r - k as f64)).max(1e-12)
    } else {
        1e-12
    };
    let mut sizes = vec![0f64; k];
    for &l in labels {
        sizes[l as usize] += 1.0;
    }
    let ll: f64 = sizes
        .iter()
        .filter(|&&rn| rn > 0.0)
        .map(|&rn| {
            -rn / 2.0 * (2.0 * std::f64::consts::PI).ln()
                - rn * m / 2.0 * var.ln()
                - (rn - k as f64) / 2.0
                + rn * rn.ln()
                - rn * r.ln()
        })
        .sum();
    let params = (k as f64 - 1.0) + m * k as f64 + 1.0;
    ll - params / 2.0 * r.ln()
}

/// The offline reference: labels and the chosen k.
pub fn simpoint(bbv: &[Vec<(u64, u64)>], seed: u64) -> (Vec<u32>, usize) {
    let points = project(bbv, seed);
    if points.len() < 2 {
        return (vec![0; points.len()], 1);
    }
    let kmax = MAX_K.min(points.len());
    let runs: Vec<(Vec<u32>, f64)> = (1..=kmax)
        .map(|k| {
            let (labels, sse) = (0..KMEANS_SEEDS)
                .map(|s| kmeans(&points, k, seed.wrapping_add(s * 1_000_003 + k as u64)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            let b = bic(&points, &labels, k, sse);
            (labels, b)
        })
        .collect();
    let (lo, hi) = runs.iter().fold((f64::MAX, f64::MIN), |(lo, hi), r| {
        (lo.min(r.1), hi.max(r.1))
    });
    let k = runs
        .iter()
        .position(|r| r.1 >= lo + 0.9 * (hi - lo))
        .unwrap_or(0);
    (runs[k].0.clone(), k + 1)
}

/// Quality of one behaviour metric under the classifier and the reference.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MetricQuality {
    pub metric: &'static str,
    pub cov_whole: f64,
    pub cov: f64,
    pub ccov: f64,
    pub ccov_transition_as_phase: f64,
    pub reference_ccov: f64,
}

/// How well a run's phases separate the chosen behaviour metric and agree with the offline
/// reference: the scores of a single run's report and of every row of a sweep.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct PhaseQuality {
    pub cov_whole: Option<f64>,
    pub ccov: Option<f64>,
    pub ccov_transition_as_phase: Option<f64>,
    pub reference_ccov: Option<f64>,
    pub reference_phases: usize,
    pub ari: f64,
    pub prediction_accuracy: f64,
    pub last_phase_accuracy: f64,
}

/// The report of `hwprof phase`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PhaseReport {
    pub config: String,
    pub storage_bits: u64,
    pub events: u64,
    pub instructions: u64,
    pub intervals: usize,
    /// Distinct phase ids, the transition phase not counted.
    pub phases: usize,
    /// Intervals in the transition phase (0 with `min_count` = 1).
    pub transition_intervals: usize,
    /// Changes of phase from one interval to the next.
    pub transitions: usize,
    /// The metric of `cov_whole`, `ccov`, `reference_ccov` (null without behaviour metrics).
    pub metric: Option<&'static str>,
    #[serde(flatten)]
    pub quality: PhaseQuality,
    pub cache: Option<String>,
    pub by_metric: Vec<MetricQuality>,
    pub phase_sequence: Vec<u32>,
    pub reference_sequence: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatches: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icarus_mismatches: Option<u64>,
}

/// Fraction of intervals 1.. whose phase equals what was predicted for it.
fn accuracy(predicted: impl Iterator<Item = u32>, actual: &[u32]) -> f64 {
    if actual.len() < 2 {
        return 0.0;
    }
    let right = predicted.zip(&actual[1..]).filter(|(p, a)| p == *a).count();
    right as f64 / (actual.len() - 1) as f64
}

/// What every configuration with the same interval is scored against, computed once per trace: the
/// exact per-interval vectors and behaviour metrics, and the offline reference's phases.
#[derive(Debug, Clone)]
pub struct Truth {
    pub intervals: Intervals,
    pub reference: Vec<u32>,
    pub reference_phases: usize,
}

impl Truth {
    pub fn new(cfg: &PhaseConfig, t: &PhaseTrace) -> Truth {
        let intervals = intervals(cfg, t);
        let (reference, reference_phases) = simpoint(&intervals.bbv, cfg.seed);
        Truth {
            intervals,
            reference,
            reference_phases,
        }
    }
}

/// Runs the model on a trace and scores it; `metric` is an index into [`METRICS`].
pub fn evaluate(
    cfg: &PhaseConfig,
    t: &PhaseTrace,
    metric: usize,
    records: &[PhaseRecord],
) -> PhaseReport {
    score(cfg, t, &Truth::new(cfg, t), metric, records)
}

/// Scores `records` of `cfg` against a [`Truth`] of the same interval length.
pub fn score(
    cfg: &PhaseConfig,
    t: &PhaseTrace,
    truth: &Truth,
    metric: usize,
    records: &[PhaseRecord],
) -> PhaseReport {
    let iv = &truth.intervals;
    assert_eq!(
        iv.bbv.len(),
        records.len(),
        "one record per closed interval"
    );
    let labels: Vec<u32> = records.iter().map(|r| r.phase).collect();
    let unclassified = (cfg.min_count > 1).then_some(TRANSITION_ID);
    let transition_intervals = labels.iter().filter(|&&l| cfg.is_transition(l)).count();
    let reference = &truth.reference;
    let by_metric: Vec<MetricQuality> = iv
        .metrics
        .iter()
        .flat_map(|m| m.iter().enumerate())
        .map(|(i, values)| MetricQuality {
            metric: METRICS[i],
            cov_whole: cov(values),
            cov: weighted_cov(&labels, values, false),
            ccov: weighted_cov_unclassified(&labels, values, true, unclassified),
            ccov_transition_as_phase: weighted_cov(&labels, values, true),
            reference_ccov: weighted_cov(reference, values, true),
        })
        .collect();
    let chosen = by_metric.get(metric);
    let distinct: FxHashSet<u32> = labels
        .iter()
        .copied()
        .filter(|&l| !cfg.is_transition(l))
        .collect();
    PhaseReport {
        config: cfg.summary(),
        storage_bits: cfg.storage_bits(),
        events: t.events.len() as u64,
        instructions: t.events.iter().map(|e| e.1).sum(),
        intervals: records.len(),
        phases: distinct.len(),
        transition_intervals,
        transitions: labels.windows(2).filter(|w| w[0] != w[1]).count(),
        metric: chosen.map(|m| m.metric),
        quality: PhaseQuality {
            cov_whole: chosen.map(|m| m.cov_whole),
            ccov: chosen.map(|m| m.ccov),
            ccov_transition_as_phase: chosen.map(|m| m.ccov_transition_as_phase),
            reference_ccov: chosen.map(|m| m.reference_ccov),
            reference_phases: truth.reference_phases,
            ari: adjusted_rand_index(&labels, reference),
            prediction_accuracy: accuracy(records.iter().map(|r| r.predicted), &labels),
            last_phase_accuracy: accuracy(labels.iter().copied(), &labels),
        },
        cache: t.side.as_ref().map(|_| L1D.describe()),
        by_metric,
        phase_sequence: labels,
        reference_sequence: reference.clone(),
        mismatches: None,
        icarus_mismatches: None,
    }
}

/// The design space of a phase sweep: every combination of these values, the other parameters
/// (interval, counter width, predictor, seed) from a base configuration.
#[derive(Debug, Clone)]
pub struct PhaseGrid {
    pub thresholds: Vec<u64>,
    pub buckets: Vec<usize>,
    pub q_bits: Vec<u32>,
    pub entries: Vec<usize>,
    pub centres: Vec<CentreUpdate>,
    pub sample_every: Vec<u64>,
}

impl Default for PhaseGrid {
    /// Thresholds from a sixteenth to three quarters of a vector's mass at Q = 8; 16–64 buckets;
    /// Q 6/8; 8–32 signatures; leader or moving average; dense or sparse sampling.
    fn default() -> Self {
        PhaseGrid {
            thresholds: vec![16, 32, 48, 64, 96, 128, 192],
            buckets: vec![16, 32, 64],
            q_bits: vec![6, 8],
            entries: vec![8, 16, 32],
            centres: vec![CentreUpdate::Leader, CentreUpdate::MovingAverage],
            sample_every: vec![1, 8, 64],
        }
    }
}

impl PhaseGrid {
    /// Every valid configuration of the grid around `base`, in a fixed order. A combination the
    /// configuration rules reject (a threshold beyond B·(2^Q − 1)) is left out.
    pub fn configs(&self, base: &PhaseConfig) -> Vec<PhaseConfig> {
        let mut out = vec![];
        for &buckets in &self.buckets {
            for &q_bits in &self.q_bits {
                for &entries in &self.entries {
                    for &centre in &self.centres {
                        for &sample_every in &self.sample_every {
                            for &threshold in &self.thresholds {
                                let c = PhaseConfig {
                                    buckets,
                                    q_bits,
                                    entries,
                                    centre,
                                    sample_every,
                                    threshold,
                                    ..base.clone()
                                };
                                if c.validate().is_ok() {
                                    out.push(c);
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// One configuration of a phase sweep, scored on one trace (a CSV row).
#[derive(Debug, Clone, serde::Serialize)]
pub struct PhaseRow {
    #[serde(flatten)]
    pub run: PhaseRun,
    #[serde(flatten)]
    pub quality: PhaseQuality,
}

/// A sweep's configuration and the phases it found on the trace: a [`PhaseRow`] but its scores.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PhaseRun {
    pub threshold: u64,
    pub buckets: usize,
    pub q_bits: u32,
    pub entries: usize,
    pub centre: &'static str,
    pub sample_every: u64,
    pub storage_bits: u64,
    pub intervals: usize,
    pub phases: usize,
    pub transitions: usize,
    // Last, so the columns before them keep their places in the CSV.
    pub min_count: u32,
    pub transition_intervals: usize,
    pub merge_threshold: u64,
}

impl PhaseRow {
    /// The row as a CSV record: the csv crate cannot write flattened fields, but writes a tuple
    /// of structs as one record, with the same columns in the same order.
    pub fn csv_record(&self) -> (&PhaseRun, &PhaseQuality) {
        (&self.run, &self.quality)
    }
}

/// Scores every configuration of `grid` on `t` (the ground truth and the reference computed once);
/// rows in the grid's order, whatever the number of threads.
pub fn sweep(base: &PhaseConfig, t: &PhaseTrace, grid: &PhaseGrid, metric: usize) -> Vec<PhaseRow> {
    use rayon::prelude::*;
    let truth = Truth::new(base, t);
    grid.configs(base)
        .par_iter()
        .map(|c| {
            let r = score(c, t, &truth, metric, &classify(c, t));
            PhaseRow {
                run: PhaseRun {
                    threshold: c.threshold,
                    buckets: c.buckets,
                    q_bits: c.q_bits,
                    entries: c.entries,
                    centre: c.centre.name(),
                    sample_every: c.sample_every,
                    min_count: c.min_count,
                    storage_bits: r.storage_bits,
                    intervals: r.intervals,
                    phases: r.phases,
                    transition_intervals: r.transition_intervals,
                    merge_threshold: c.merge_threshold,
                    transitions: r.transitions,
                },
                quality: r.quality,
            }
        })
        .collect()
}

/// Manhattan distance between the exact vectors of every pair of intervals, each vector normalised
/// to sum 1 (so distances lie in [0, 2]): the similarity matrix of ScarPhase's Figure 3. With more
/// than `max` intervals, consecutive intervals are merged into `max` groups first.
pub fn similarity_matrix(iv: &Intervals, max: usize) -> Vec<Vec<f64>> {
    let n = iv.bbv.len();
    let groups = n.min(max.max(1));
    let vectors: Vec<Vec<(u64, f64)>> = (0..groups)
        .map(|g| {
            let mut sum: std::collections::BTreeMap<u64, u64> = Default::default();
            for v in &iv.bbv[g * n / groups..(g + 1) * n / groups] {
                for &(pc, c) in v {
                    *sum.entry(pc).or_default() += c;
                }
            }
            let total = sum.values().sum::<u64>().max(1) as f64;
            sum.into_iter()
                .map(|(pc, c)| (pc, c as f64 / total))
                .collect()
        })
        .collect();
    let distance = |a: &[(u64, f64)], b: &[(u64, f64)]| {
        let (mut i, mut j, mut d) = (0, 0, 0.0);
        while i < a.len() || j < b.len() {
            if j == b.len() || (i < a.len() && a[i].0 < b[j].0) {
                d += a[i].1;
                i += 1;
            } else if i == a.len() || b[j].0 < a[i].0 {
                d += b[j].1;
                j += 1;
            } else {
                d += (a[i].1 - b[j].1).abs();
                i += 1;
                j += 1;
            }
        }
        d
    };
    (0..groups)
        .map(|i| {
            (0..groups)
                .map(|j| distance(&vectors[i], &vectors[j]))
                .collect()
        })
        .collect()
}

/// The model's records on a trace.
pub fn classify(cfg: &PhaseConfig, t: &PhaseTrace) -> Vec<PhaseRecord> {
    PhaseClassifier::run(cfg, t.events.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cov_and_ccov() {
        assert_eq!(cov(&[2.0, 2.0]), 0.0);
        assert!((cov(&[1.0, 3.0]) - 0.5).abs() < 1e-12);
        let m = [1.0, 1.0, 3.0, 3.0, 9.0];
        // Perfect phases except the last, isolated interval: it is charged cov_whole.
        let l = [0, 0, 1, 1, 2];
        assert_eq!(weighted_cov(&l, &m, false), 0.0);
        assert!((weighted_cov(&l, &m, true) - cov(&m) / 5.0).abs() < 1e-12);
        // Every interval its own phase: CCoV = cov_whole.
        let all = [0, 1, 2, 3, 4];
        assert!((weighted_cov(&all, &m, true) - cov(&m)).abs() < 1e-12);
        // Unclassified intervals are charged cov_whole even when they are not isolated.
        let t = [0, 0, 9, 9, 2];
        let u = weighted_cov_unclassified(&t, &m, true, Some(9));
        assert!((u - 3.0 * cov(&m) / 5.0).abs() < 1e-12, "{u}");
        assert_eq!(weighted_cov_unclassified(&t, &m, false, None), 0.0);
    }

    #[test]
    fn ari_bounds() {
        assert_eq!(adjusted_rand_index(&[0, 0, 1, 1], &[5, 5, 7, 7]), 1.0);
        assert!(adjusted_rand_index(&[0, 0, 1, 1], &[0, 1, 0, 1]) < 0.0);
    }

    #[test]
    fn cache_lru() {
        let mut c = Cache::new(CacheGeometry {
            sets: 1,
            ways: 2,
            line_bytes: 64,
        });
        assert!(c.access(0, 4));
        assert!(!c.access(8, 4));
        assert!(c.access(64, 4));
        assert!(!c.access(0, 4), "0 was more recent than nothing");
        assert!(c.access(128, 4), "evicts 64");
        assert!(c.access(64, 4));
        assert!(c.access(60, 8), "spans lines 0 (evicted) and 64");
    }

    #[test]
    fn similarity_of_identical_and_disjoint_intervals() {
        let iv = Intervals {
            bbv: vec![vec![(1, 5), (2, 5)], vec![(1, 1), (2, 1)], vec![(7, 3)]],
            metrics: None,
            instructions: vec![10, 2, 3],
        };
        let m = similarity_matrix(&iv, 100);
        assert_eq!(m[0][1], 0.0, "the same mix at another scale");
        assert_eq!(m[0][2], 2.0, "no pc in common");
        assert_eq!(m[2][0], m[0][2]);
        // Two groups: interval 0, and intervals 1–2 merged into {1: 0.2, 2: 0.2, 7: 0.6}.
        let merged = similarity_matrix(&iv, 2);
        assert_eq!(merged.len(), 2);
        assert!((merged[0][1] - 1.2).abs() < 1e-12, "{}", merged[0][1]);
    }

    #[test]
    fn grid_drops_invalid_combinations_and_sweep_keeps_its_order() {
        let base = PhaseConfig {
            interval: 1000,
            ..PhaseConfig::default()
        };
        let grid = PhaseGrid {
            thresholds: vec![8, 300],
            buckets: vec![2, 8],
            q_bits: vec![6],
            entries: vec![4],
            centres: vec![CentreUpdate::Leader],
            sample_every: vec![1, 4],
        };
        // 300 > 2·63: rejected for two buckets, kept for eight (8·63).
        let configs = grid.configs(&base);
        assert_eq!(configs.len(), 6);
        assert!(configs.iter().all(|c| c.validate().is_ok()));
        let events: Vec<(u64, u64)> = (0..40_000u64)
            .map(|i| {
                (
                    if (i / 5000) % 2 == 0 {
                        i % 7
                    } else {
                        100 + i % 3
                    },
                    1,
                )
            })
            .collect();
        let t = PhaseTrace { events, side: None };
        let rows = sweep(&base, &t, &grid, 0);
        assert_eq!(rows.len(), 6);
        for (r, c) in rows.iter().zip(&configs) {
            assert_eq!(
                (r.run.threshold, r.run.buckets, r.run.sample_every),
                (c.threshold, c.buckets, c.sample_every)
            );
            assert_eq!(r.run.intervals, 40);
        }
        let alone = evaluate(&configs[3], &t, 0, &classify(&configs[3], &t));
        assert_eq!(
            rows[3].run.phases, alone.phases,
            "a sweep row is the single run's score"
        );
    }

    #[test]
    fn simpoint_finds_two_clusters() {
        let a: Vec<(u64, u64)> = vec![(1, 10), (2, 10)];
        let b: Vec<(u64, u64)> = vec![(100, 10), (200, 30)];
        let bbv: Vec<_> = (0..20)
            .map(|i| if i % 5 < 2 { a.clone() } else { b.clone() })
            .collect();
        let (labels, k) = simpoint(&bbv, 1);
        assert_eq!(k, 2);
        let truth: Vec<u32> = (0..20).map(|i| (i % 5 < 2) as u32).collect();
        assert_eq!(adjusted_rand_index(&labels, &truth), 1.0);
    }
}
