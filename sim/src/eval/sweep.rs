//! Design-space sweep: a grid of profiler configurations (and peers at the same memory) run over
//! traces in parallel on all cores, each run scored with the paper's metric ([`crate::eval::metric`]).
//!
//! The exact profile of each interval is computed once per (trace, L, key widths) and shared by every
//! configuration, so a row costs one model run plus the scoring. Rows stream to the caller as they
//! finish (the CLI writes each to CSV at once); a raised stop flag ends the sweep after the jobs in
//! flight are abandoned, keeping every finished row.
//!
//! **Memory accounting** (bits, the hardware's): profiler = tables × entries × counter_bits plus
//! A × (a_bits + b_bits + accumulator.count_bits + 2) for the accumulator (tag, count, 2 state bits). Peers get
//! the profiler's total as their budget: the stratified sampler as counters of ceil(log2(T_s + 1))
//! bits; Space-Saving and DataSketches as entries of tag + a count wide enough for L
//! (DataSketches' hash map has 2^lg slots, of which 3/4 are usable counters).
//!
//! Grid file (TOML), every list crossed:
//!
//! | key | meaning | default |
//! |---|---|---|
//! | `points` | `[{ interval = L, threshold = T or "p%" }, …]`; a point may add `peer_bits = N`: its peers get exactly N bits (e.g. those of a configuration they are compared with) | required |
//! | `tables` | list of n | required |
//! | `total_entries` | counters in all, split evenly (entries per table = total / n, must be a power of two) | — |
//! | `entries` | counters per table (instead of `total_entries`) | — |
//! | `fill_budget` | instead of either: per table the largest power of two that fits `max_table_bits` | false |
//! | `counter_bits` | list | `[24]` |
//! | `conservative_update`, `reset_on_promote`, `retaining` | lists of booleans | `[true]`, `[false]`, `[true]` |
//! | `hash` | list of `"tabulation"` / `"h3"` | `["tabulation"]` |
//! | `seed` | list | `[1]` |
//! | `accumulator_entries` | list; absent = floor(L/T) | — |
//! | `accumulator_ways` | list; given, the accumulator is set-associative with that many ways (the block-RAM profiler) | fully associative |
//! | `a_bits`, `b_bits` | lists of key widths | `[48]` |
//! | `hardware` | a table of top-level hardware options (`write_stage = true`, …) given to every configuration; no effect on the profile | — |
//! | `target` | `[target.<name>]` tables of per-target hardware options given to every configuration (`hwprof explore` synthesizes each target with its own) | — |
//! | `max_table_bits` | skip configurations whose tables × entries × counter_bits exceed it | — |
//! | `max_accumulator_entries` | skip configurations with a larger accumulator | — |
//! | `peers` | add, per point, the stratified sampler (T_s = T and T/10), Space-Saving and DataSketches at the memory of `peer_reference` | false |
//! | `peer_reference` | `{ tables, entries, counter_bits }` the peers' budget is taken from | 4 × 512 × 24 |

pub mod shard;

use crate::eval::metric::{perfect_counts, score_interval, Accuracy, IntervalError};
use crate::eval::space_saving::SpaceSavingProfiler;
use crate::eval::stratified::{Stratified, StratifiedConfig};
use crate::eval::trace::Tuple;
use crate::model::multihash::{IntervalReport, MultiHash, ReportEntry};
use hwprof_hdl::config::{HashKind, ProfilerConfig};
use hwprof_hdl::ConfigFile;
use rustc_hash::FxHashMap as FxMap;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

/// One point of the paper's figures: interval length and threshold.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointSpec {
    pub interval: u64,
    pub threshold: toml::Value,
    /// The peers' memory at this point, instead of `peer_reference`'s.
    #[serde(default)]
    pub peer_bits: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceSpec {
    pub tables: u64,
    pub entries: u64,
    pub counter_bits: u64,
}

/// A grid file, as written (see the module documentation).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    pub points: Vec<PointSpec>,
    pub tables: Vec<u64>,
    pub total_entries: Option<Vec<u64>>,
    pub entries: Option<Vec<u64>>,
    #[serde(default)]
    pub fill_budget: bool,
    pub counter_bits: Option<Vec<u64>>,
    pub conservative_update: Option<Vec<bool>>,
    pub reset_on_promote: Option<Vec<bool>>,
    pub retaining: Option<Vec<bool>>,
    pub hash: Option<Vec<String>>,
    pub seed: Option<Vec<u64>>,
    pub accumulator_entries: Option<Vec<u64>>,
    pub accumulator_ways: Option<Vec<u64>>,
    pub a_bits: Option<Vec<u64>>,
    pub b_bits: Option<Vec<u64>>,
    /// Hardware options copied into every configuration as written.
    pub hardware: Option<toml::Table>,
    /// `[target.<name>]` sections copied into every configuration as written.
    pub target: Option<toml::Table>,
    pub max_table_bits: Option<u64>,
    pub max_accumulator_entries: Option<u64>,
    #[serde(default)]
    pub peers: bool,
    pub peer_reference: Option<ReferenceSpec>,
}

/// The paper's figures 10–12 (n ∈ {1, 2, 4, 8, 16} × C0/C1 × R0/R1, 2K counters of 24 bits,
/// retaining) at 10K/1 % and 1M/0.1 %, with the peers at the paper preset's memory.
pub const PRESET_PAPER: &str = r#"
points = [{ interval = 10000, threshold = "1%" }, { interval = 1000000, threshold = "0.1%" }]
tables = [1, 2, 4, 8, 16]
total_entries = [2048]
counter_bits = [24]
conservative_update = [false, true]
reset_on_promote = [false, true]
retaining = [true]
peers = true
"#;

/// The frontier at 6 KB of table counters (≤ 49 152 bits) and ≤ 1000 accumulator entries at
/// 1M/0.1 %: every table count and counter width, the largest tables that fit, all C/R, both hashes,
/// three seeds (so a choice does not ride on one lucky hash).
pub const PRESET_FRONTIER_1M: &str = r#"
points = [{ interval = 1000000, threshold = "0.1%" }]
tables = [1, 2, 3, 4, 5, 6, 8, 12, 16]
fill_budget = true
max_table_bits = 49152
max_accumulator_entries = 1000
counter_bits = [10, 12, 16, 20, 24]
conservative_update = [false, true]
reset_on_promote = [false, true]
retaining = [true]
hash = ["tabulation", "h3"]
seed = [1, 2, 3]
"#;

/// The same frontier at 10K/1 % (C1 only: C0 loses everywhere at 1M and in the paper; two seeds).
pub const PRESET_FRONTIER_10K: &str = r#"
points = [{ interval = 10000, threshold = "1%" }]
tables = [1, 2, 3, 4, 5, 6, 8, 12, 16]
fill_budget = true
max_table_bits = 49152
max_accumulator_entries = 1000
counter_bits = [7, 8, 10, 12, 14, 16, 24]
conservative_update = [true]
reset_on_promote = [false, true]
retaining = [true]
hash = ["tabulation", "h3"]
seed = [1, 2]
"#;

/// Names accepted by `--preset`.
pub const PRESETS: &[(&str, &str)] = &[
    ("paper", PRESET_PAPER),
    ("frontier-1m", PRESET_FRONTIER_1M),
    ("frontier-10k", PRESET_FRONTIER_10K),
];

/// What one row runs.
#[derive(Debug, Clone)]
pub enum Subject {
    Profiler(ProfilerConfig),
    Stratified(StratifiedConfig),
    SpaceSaving {
        capacity: usize,
        base: ProfilerConfig,
    },
    /// Apache DataSketches `frequent_items_sketch`, run by `bench/datasketches_peer.py`.
    DataSketches {
        lg_max_map_size: u32,
        /// Report the sketch's lower bound (Misra-Gries count) instead of its estimate.
        lower_bound: bool,
        base: ProfilerConfig,
    },
}

impl Subject {
    /// The profiler configuration whose L, T and key widths the row is scored with.
    pub fn base(&self) -> &ProfilerConfig {
        match self {
            Subject::Profiler(c) => c,
            Subject::Stratified(s) => &s.hash_from,
            Subject::SpaceSaving { base, .. } | Subject::DataSketches { base, .. } => base,
        }
    }

    pub fn scheme(&self) -> &'static str {
        match self {
            Subject::Profiler(c) if c.tables == 1 => "single-hash",
            Subject::Profiler(_) => "multi-hash",
            Subject::Stratified(_) => "stratified",
            Subject::SpaceSaving { .. } => "space-saving",
            Subject::DataSketches { .. } => "datasketches",
        }
    }

    /// Hardware bits (see the module documentation).
    pub fn memory_bits(&self) -> u64 {
        match self {
            Subject::Profiler(c) => profiler_bits(c),
            Subject::Stratified(s) => s.storage_bits(),
            Subject::SpaceSaving { capacity, base } => {
                *capacity as u64
                    * SpaceSavingProfiler::entry_bits(base.a_bits, base.b_bits, base.interval)
            }
            Subject::DataSketches {
                lg_max_map_size,
                base,
                ..
            } => {
                (1u64 << lg_max_map_size)
                    * SpaceSavingProfiler::entry_bits(base.a_bits, base.b_bits, base.interval)
            }
        }
    }

    pub fn summary(&self) -> String {
        match self {
            Subject::Profiler(c) => c.summary(),
            Subject::Stratified(s) => s.summary(),
            Subject::SpaceSaving { capacity, base } => format!(
                "space-saving k={capacity} L={} T={}",
                base.interval, base.threshold
            ),
            Subject::DataSketches {
                lg_max_map_size,
                lower_bound,
                base,
            } => format!(
                "datasketches lg_max_map_size={lg_max_map_size} {} L={} T={}",
                if *lower_bound {
                    "lower-bound"
                } else {
                    "estimate"
                },
                base.interval,
                base.threshold
            ),
        }
    }
}

/// Bits of a profiler: hash tables plus accumulator (tag, count, 2 state bits per entry).
pub fn profiler_bits(c: &ProfilerConfig) -> u64 {
    c.counter_storage_bits()
        + c.accumulator.entries as u64 * (c.a_bits + c.b_bits + c.accumulator.count_bits + 2) as u64
}

/// One job: a subject over one trace.
#[derive(Debug, Clone)]
pub struct Job {
    pub trace: usize,
    pub subject: Subject,
}

/// A trace to sweep over.
#[derive(Debug, Clone)]
pub struct TraceInput {
    pub name: String,
    pub events: Arc<Vec<Tuple>>,
}

/// A finished row: what was run and its accuracy.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub trace: String,
    pub scheme: String,
    pub config: String,
    pub interval: u64,
    pub threshold: u64,
    pub tables: usize,
    pub entries: usize,
    pub counter_bits: u32,
    /// "C1R0" style, empty for peers.
    pub cr: String,
    pub retaining: bool,
    pub hash: String,
    pub seed: u64,
    pub accumulator: usize,
    pub table_bits: u64,
    pub memory_bits: u64,
    pub net_error: f64,
    pub np: f64,
    pub nn: f64,
    pub fp: f64,
    #[serde(rename = "fn")]
    pub fn_: f64,
    pub precision: f64,
    pub recall: f64,
    pub intervals: u64,
    pub scored_intervals: u64,
    pub avg_hot_tuples: f64,
    /// Profiler: promotions that found no accumulator entry. Stratified: reports sent to software.
    pub extra: u64,
    pub events: u64,
    pub seconds: f64,
    /// The error of each complete interval (0 for an interval without hot tuples).
    #[serde(skip)]
    pub per_interval: Vec<f64>,
    /// The index of the row's job in the jobs given to [`run`].
    #[serde(skip)]
    pub job: usize,
}

/// One configuration (or peer) at one point, across every trace of a sweep: the choice of a
/// configuration for programs not seen yet goes by its worst trace, not its mean.
#[derive(Debug, Clone, Serialize)]
pub struct AcrossTraces {
    pub scheme: String,
    pub config: String,
    pub seed: u64,
    pub interval: u64,
    pub threshold: u64,
    pub memory_bits: u64,
    /// The largest net error over the traces, and the trace it was on.
    pub worst: f64,
    pub worst_trace: String,
    pub mean: f64,
    pub traces: usize,
}

/// The rows of each (trace, L, T) of a sweep, in ascending (trace, L, T); each group keeps the
/// order the rows have in `rows`.
pub fn rows_by_point(rows: &[Row]) -> std::collections::BTreeMap<(&str, u64, u64), Vec<&Row>> {
    let mut points: std::collections::BTreeMap<(&str, u64, u64), Vec<&Row>> = Default::default();
    for r in rows {
        points
            .entry((&r.trace, r.interval, r.threshold))
            .or_default()
            .push(r);
    }
    points
}

/// Groups `rows` by (scheme, configuration, seed, point) and ranks the groups that ran on every
/// trace of the sweep by their worst net error (then mean, then configuration), per point in
/// ascending (L, T). Groups missing a trace (an interrupted sweep) are left out.
pub fn rank_by_worst(rows: &[Row]) -> Vec<AcrossTraces> {
    let mut traces: Vec<&str> = rows.iter().map(|r| r.trace.as_str()).collect();
    traces.sort_unstable();
    traces.dedup();
    let mut groups: std::collections::BTreeMap<(u64, u64, &str, &str, u64), Vec<&Row>> =
        Default::default();
    for r in rows {
        groups
            .entry((r.interval, r.threshold, &r.scheme, &r.config, r.seed))
            .or_default()
            .push(r);
    }
    let mut out: Vec<AcrossTraces> = groups
        .into_values()
        .filter(|g| g.len() == traces.len())
        .map(|g| {
            let w = g
                .iter()
                .max_by(|a, b| a.net_error.total_cmp(&b.net_error))
                .expect("a group has rows");
            AcrossTraces {
                scheme: w.scheme.clone(),
                config: w.config.clone(),
                seed: w.seed,
                interval: w.interval,
                threshold: w.threshold,
                memory_bits: w.memory_bits,
                worst: w.net_error,
                worst_trace: w.trace.clone(),
                mean: g.iter().map(|r| r.net_error).sum::<f64>() / g.len() as f64,
                traces: g.len(),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        (a.interval, a.threshold)
            .cmp(&(b.interval, b.threshold))
            .then(a.worst.total_cmp(&b.worst))
            .then(a.mean.total_cmp(&b.mean))
            .then(a.config.cmp(&b.config))
    });
    out
}

/// A trace file's name without its trace extensions (`x.lackey.gz` -> `x`).
pub fn trace_name(p: &Path) -> String {
    let mut n = p
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    for ext in [".gz", ".lackey", ".hwpt", ".txt", ".bin"] {
        if let Some(s) = n.strip_suffix(ext) {
            n = s.to_string();
        }
    }
    n
}

/// One label per trace: its stem, and where stems repeat, the parent directories needed to tell
/// them apart (`a/x.lackey.gz`, `b/x.lackey.gz` -> `a/x`, `b/x`; the same path twice -> `x#1`, `x#2`).
pub fn trace_labels(paths: &[PathBuf]) -> Vec<String> {
    let stem = |p: &Path, depth: usize| {
        let mut parts: Vec<String> = p
            .parent()
            .into_iter()
            .flat_map(|d| d.components().rev().take(depth))
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.reverse();
        parts.push(trace_name(p));
        parts.join("/")
    };
    let mut labels: Vec<String> = paths.iter().map(|p| stem(p, 0)).collect();
    for depth in 1..=8 {
        let dup = |l: &String, labels: &[String]| labels.iter().filter(|m| *m == l).count() > 1;
        let snapshot = labels.clone();
        for (i, p) in paths.iter().enumerate() {
            if dup(&snapshot[i], &snapshot) {
                labels[i] = stem(p, depth);
            }
        }
    }
    let snapshot = labels.clone();
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for l in labels.iter_mut() {
        if snapshot.iter().filter(|m| *m == l).count() > 1 {
            let n = seen.entry(l.clone()).or_default();
            *n += 1;
            *l = format!("{l}#{n}");
        }
    }
    labels
}

/// A bad grid: which field broke which rule.
fn bad(source: &str, field: &str, rule: impl std::fmt::Display) -> String {
    format!("grid {source}: field `{field}`: {rule}")
}

/// Expands a grid into profiler configurations (and peers), validated. `source` names it in errors.
pub fn expand_grid(text: &str, source: &str) -> Result<Vec<Subject>, String> {
    let g: GridSpec = toml::from_str(text).map_err(|e| format!("grid {source}: {e}"))?;
    if g.points.is_empty() {
        return Err(bad(source, "points", "needs at least one point"));
    }
    if g.tables.is_empty() {
        return Err(bad(source, "tables", "needs at least one table count"));
    }
    let sizing = [
        g.total_entries.is_some(),
        g.entries.is_some(),
        g.fill_budget,
    ];
    if sizing.iter().filter(|&&x| x).count() != 1 {
        return Err(bad(
            source,
            "entries",
            "give exactly one of `total_entries`, `entries`, `fill_budget = true`",
        ));
    }
    if g.fill_budget && g.max_table_bits.is_none() {
        return Err(bad(source, "fill_budget", "needs `max_table_bits`"));
    }
    let hashes = g
        .hash
        .clone()
        .unwrap_or_else(|| vec!["tabulation".into()])
        .iter()
        .map(|h| match h.as_str() {
            "tabulation" => Ok("tabulation"),
            "h3" => Ok("h3"),
            _ => Err(bad(
                source,
                "hash",
                format!("expected \"tabulation\" or \"h3\", got {h:?}"),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let bits = g.counter_bits.clone().unwrap_or(vec![24]);
    let cus = g.conservative_update.clone().unwrap_or(vec![true]);
    let rps = g.reset_on_promote.clone().unwrap_or(vec![false]);
    let rets = g.retaining.clone().unwrap_or(vec![true]);
    let seeds = g.seed.clone().unwrap_or(vec![1]);
    let ways: Vec<Option<u64>> = match &g.accumulator_ways {
        Some(v) => v.iter().map(|&w| Some(w)).collect(),
        None => vec![None],
    };
    let a_bits = g.a_bits.clone().unwrap_or(vec![48]);
    let b_bits = g.b_bits.clone().unwrap_or(vec![48]);
    if let Some(h) = &g.hardware {
        // The same keys as a target section: hardware options only.
        hwprof_hdl::config::TargetOptions::deserialize(toml::Value::Table(h.clone()))
            .map_err(|e| bad(source, "hardware", e.message()))?;
    }
    let mut hardware = String::new();
    for (k, v) in g.hardware.iter().flatten() {
        hardware.push_str(&format!("{k} = {v}\n"));
    }
    // The sections keep their own keys: each configuration checks them (unknown target, option).
    let targets = g
        .target
        .as_ref()
        .map(|t| {
            let mut wrapped = toml::Table::new();
            wrapped.insert("target".into(), toml::Value::Table(t.clone()));
            toml::to_string(&wrapped).map_err(|e| bad(source, "target", e))
        })
        .transpose()?
        .unwrap_or_default();
    let mut out = Vec::new();
    for (pi, p) in g.points.iter().enumerate() {
        let thr = match &p.threshold {
            toml::Value::Integer(t) => t.to_string(),
            toml::Value::String(s) => format!("{s:?}"),
            v => {
                return Err(bad(
                    source,
                    &format!("points[{pi}].threshold"),
                    format!("expected a count or \"p%\", got {v}"),
                ))
            }
        };
        let accs: Vec<Option<u64>> = match &g.accumulator_entries {
            Some(v) => v.iter().map(|&a| Some(a)).collect(),
            None => vec![None],
        };
        // Accumulator entries x ways x key widths, the innermost lists crossed.
        let mut shapes = Vec::new();
        for &acc in &accs {
            for &w in &ways {
                for &ab in &a_bits {
                    for &bb in &b_bits {
                        shapes.push((acc, w, ab, bb));
                    }
                }
            }
        }
        for &n in &g.tables {
            for &b in &bits {
                let per_table: Vec<u64> = if let Some(tot) = &g.total_entries {
                    tot.iter().map(|&t| t / n.max(1)).collect()
                } else if let Some(e) = &g.entries {
                    e.clone()
                } else {
                    let fit = g.max_table_bits.unwrap() / (n.max(1) * b.max(1));
                    if fit < 2 {
                        continue;
                    }
                    vec![1u64 << (63 - fit.leading_zeros())]
                };
                for &e in &per_table {
                    for &cu in &cus {
                        for &rp in &rps {
                            for &ret in &rets {
                                for h in &hashes {
                                    for &seed in &seeds {
                                        for &(acc, w, ab, bb) in &shapes {
                                            let mut acc_line = String::from("[accumulator]\n");
                                            if let Some(a) = acc {
                                                acc_line += &format!("entries = {a}\n");
                                            }
                                            if let Some(w) = w {
                                                acc_line += &format!(
                                                    "organisation = \"set_associative\"\nways = {w}\n"
                                                );
                                            }
                                            let toml = format!(
                                                "interval = {}\nthreshold = {thr}\ntables = {n}\nentries = {e}\ncounter_bits = {b}\n\
                                                 conservative_update = {cu}\nreset_on_promote = {rp}\nretaining = {ret}\n\
                                                 hash = \"{h}\"\nseed = {seed}\na_bits = {ab}\nb_bits = {bb}\n{hardware}{acc_line}{targets}",
                                                p.interval
                                            );
                                            let cfg = ProfilerConfig::from_toml_str(
                                                &toml,
                                                &format!("{source} (point {pi}, {n} tables x {e} x {b} bits)"),
                                            )
                                            .map_err(|e| e.to_string())?;
                                            if g.max_table_bits
                                                .is_some_and(|m| cfg.counter_storage_bits() > m)
                                                || g.max_accumulator_entries.is_some_and(|m| {
                                                    cfg.accumulator.entries as u64 > m
                                                })
                                            {
                                                continue;
                                            }
                                            out.push(Subject::Profiler(cfg));
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if g.peers {
            let r = g.peer_reference.clone().unwrap_or(ReferenceSpec {
                tables: 4,
                entries: 512,
                counter_bits: 24,
            });
            let reference = ProfilerConfig::from_toml_str(
                &format!(
                    "interval = {}\nthreshold = {thr}\ntables = {}\nentries = {}\ncounter_bits = {}\n",
                    p.interval, r.tables, r.entries, r.counter_bits
                ),
                &format!("{source} (peer_reference, point {pi})"),
            )
            .map_err(|e| e.to_string())?;
            let budget = p.peer_bits.unwrap_or_else(|| profiler_bits(&reference));
            out.extend(peers_at_budget(&reference, budget)?);
        }
    }
    if out.is_empty() {
        return Err(format!(
            "grid {source}: no configuration is left (all over the budget?)"
        ));
    }
    Ok(out)
}

/// The peers at `budget` bits, at the point and key widths of profiler `reference`: stratified
/// (T_s = T and T/10), Space-Saving, DataSketches.
pub fn peers_at_budget(reference: &ProfilerConfig, budget: u64) -> Result<Vec<Subject>, String> {
    let t = reference.threshold;
    let mut v = vec![Subject::Stratified(StratifiedConfig::with_budget(
        reference, t, budget,
    )?)];
    if t >= 10 {
        v.push(Subject::Stratified(StratifiedConfig::with_budget(
            reference,
            t / 10,
            budget,
        )?));
    }
    let entry =
        SpaceSavingProfiler::entry_bits(reference.a_bits, reference.b_bits, reference.interval);
    let capacity = (budget / entry).max(1) as usize;
    v.push(Subject::SpaceSaving {
        capacity,
        base: reference.clone(),
    });
    let slots = (budget / entry).max(8);
    for lower_bound in [false, true] {
        v.push(Subject::DataSketches {
            lg_max_map_size: 63 - slots.leading_zeros(),
            lower_bound,
            base: reference.clone(),
        });
    }
    Ok(v)
}

/// How to reach the DataSketches bench (a Python interpreter with `datasketches` and the script).
#[derive(Debug, Clone)]
pub struct PythonBench {
    pub python: PathBuf,
    pub script: PathBuf,
    /// Scratch directory for the traces handed to the script.
    pub scratch: PathBuf,
}

/// Options of a sweep run.
pub struct RunOptions {
    pub threads: usize,
    /// Raised (e.g. by Ctrl-C): no new job starts, jobs in flight are abandoned.
    pub stop: Arc<AtomicBool>,
    /// None: DataSketches rows are skipped (with a note from the caller).
    pub python: Option<PythonBench>,
}

/// Outcome of a run.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    pub rows: usize,
    pub jobs: usize,
    pub skipped: Vec<String>,
    pub interrupted: bool,
    pub seconds: f64,
    /// Σ events of the finished rows / wall time (the exact profiles excluded).
    pub config_events_per_second: f64,
    pub threads: usize,
}

type PerfectKey = (usize, u64, u64, u64);

/// Runs `jobs` over `traces`; `on_row` gets every finished row at once (in completion order), and
/// `on_progress(done, total)` after each job. Errors of a job (e.g. the Python bench failing) end
/// the sweep with that error after the finished rows were delivered.
pub fn run(
    traces: &[TraceInput],
    jobs: &[Job],
    opts: &RunOptions,
    mut on_row: impl FnMut(&Row),
    mut on_progress: impl FnMut(usize, usize),
) -> Result<RunSummary, String> {
    let start = Instant::now();
    let threads = opts.threads.max(1);
    // The exact profiles, once per (trace, L, masks), in parallel.
    let mut keys: Vec<PerfectKey> = jobs
        .iter()
        .map(|j| {
            let b = j.subject.base();
            (j.trace, b.interval, b.a_mask(), b.b_mask())
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let perfect: HashMap<PerfectKey, Vec<FxMap<Tuple, u64>>> = {
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|s| {
            for _ in 0..threads.min(keys.len()) {
                let tx = tx.clone();
                let (next, keys) = (&next, &keys);
                s.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= keys.len() || opts.stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let k = keys[i];
                    let ev = &traces[k.0].events;
                    let l = k.1 as usize;
                    let maps: Vec<_> = (0..ev.len() / l)
                        .map(|n| perfect_counts(&ev[n * l..(n + 1) * l], k.2, k.3))
                        .collect();
                    let _ = tx.send((k, maps));
                });
            }
            drop(tx);
            rx.iter().collect()
        })
    };
    let mut summary = RunSummary {
        rows: 0,
        jobs: jobs.len(),
        skipped: vec![],
        interrupted: false,
        seconds: 0.0,
        config_events_per_second: 0.0,
        threads,
    };
    let job_start = Instant::now();
    let mut events_done = 0u64;
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let mut first_error = None;
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<Result<Row, String>>();
        for _ in 0..threads.min(jobs.len()) {
            let tx = tx.clone();
            let (next, perfect, failed) = (&next, &perfect, &failed);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= jobs.len()
                    || opts.stop.load(Ordering::Relaxed)
                    || failed.load(Ordering::Relaxed)
                {
                    return;
                }
                let j = &jobs[i];
                let b = j.subject.base();
                let key = (j.trace, b.interval, b.a_mask(), b.b_mask());
                let Some(p) = perfect.get(&key) else {
                    return; // the exact profiles were cut short by the stop flag
                };
                match run_job(&traces[j.trace], &j.subject, p, opts) {
                    Ok(Some(row)) => {
                        let _ = tx.send(Ok(Row { job: i, ..row }));
                    }
                    Ok(None) => return, // stopped
                    Err(e) => {
                        failed.store(true, Ordering::Relaxed);
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for r in rx {
            done += 1;
            match r {
                Ok(row) => {
                    events_done += row.events;
                    summary.rows += 1;
                    on_row(&row);
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
            on_progress(done, jobs.len());
        }
    });
    if let Some(e) = first_error {
        return Err(e);
    }
    let job_secs = job_start.elapsed().as_secs_f64();
    summary.interrupted = opts.stop.load(Ordering::Relaxed) && summary.rows < jobs.len();
    summary.seconds = start.elapsed().as_secs_f64();
    summary.config_events_per_second = events_done as f64 / job_secs.max(1e-9);
    Ok(summary)
}

/// Events between two looks at the stop flag.
const STOP_CHECK: usize = 1 << 16;

/// Feeds `events` to `f` in chunks, looking at the stop flag between chunks; None when stopped.
fn drive(
    events: &[Tuple],
    stop: &AtomicBool,
    mut f: impl FnMut(u64, u64) -> Option<IntervalReport>,
) -> Option<Vec<IntervalReport>> {
    let mut reports = Vec::new();
    for chunk in events.chunks(STOP_CHECK) {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        reports.extend(chunk.iter().filter_map(|&(a, b)| f(a, b)));
    }
    Some(reports)
}

fn run_job(
    trace: &TraceInput,
    subject: &Subject,
    perfect: &[FxMap<Tuple, u64>],
    opts: &RunOptions,
) -> Result<Option<Row>, String> {
    let t0 = Instant::now();
    let ev = &trace.events[..];
    let stop = &*opts.stop;
    let b = subject.base();
    let (reports, extra) = match subject {
        Subject::Profiler(cfg) => {
            let mut m = MultiHash::new(cfg)?;
            let Some(r) = drive(ev, stop, |a, b| m.event(a, b)) else {
                return Ok(None);
            };
            (r, m.stats.failed_allocations)
        }
        Subject::Stratified(cfg) => {
            let mut m = Stratified::new(cfg)?;
            let Some(r) = drive(ev, stop, |a, b| m.event(a, b)) else {
                return Ok(None);
            };
            (r, m.total_reports)
        }
        Subject::SpaceSaving { capacity, base } => {
            let mut m = SpaceSavingProfiler::new(
                *capacity,
                base.interval,
                base.threshold,
                base.a_mask(),
                base.b_mask(),
            );
            let Some(r) = drive(ev, stop, |a, b| m.event(a, b)) else {
                return Ok(None);
            };
            (r, 0)
        }
        Subject::DataSketches {
            lg_max_map_size,
            lower_bound,
            base,
        } => {
            let Some(py) = &opts.python else {
                return Err("DataSketches rows need the Python bench (run scripts/venv.sh)".into());
            };
            let Some(r) = run_datasketches(trace, *lg_max_map_size, *lower_bound, base, py, stop)?
            else {
                return Ok(None);
            };
            (r, 0)
        }
    };
    let per: Vec<IntervalError> = reports
        .iter()
        .map(|r| score_interval(&perfect[r.interval as usize], r, b.threshold))
        .collect();
    let acc = Accuracy::from_intervals(&per);
    let (tables, entries, counter_bits, cr, retaining, hash, seed, accumulator) = match subject {
        Subject::Profiler(c) => (
            c.tables,
            c.entries,
            c.counter_bits,
            format!(
                "C{}R{}",
                c.conservative_update as u8, c.reset_on_promote as u8
            ),
            c.retaining,
            hash_name(c.hash).to_string(),
            c.seed,
            c.accumulator.entries,
        ),
        Subject::Stratified(s) => (
            1,
            s.entries,
            s.counter_bits,
            String::new(),
            false,
            hash_name(s.hash_from.hash).into(),
            s.hash_from.seed,
            0,
        ),
        Subject::SpaceSaving { capacity, .. } => {
            (0, *capacity, 0, String::new(), false, String::new(), 0, 0)
        }
        Subject::DataSketches {
            lg_max_map_size, ..
        } => (
            0,
            1usize << lg_max_map_size,
            0,
            String::new(),
            false,
            String::new(),
            0,
            0,
        ),
    };
    Ok(Some(Row {
        trace: trace.name.clone(),
        scheme: subject.scheme().into(),
        config: subject.summary(),
        interval: b.interval,
        threshold: b.threshold,
        tables,
        entries,
        counter_bits,
        cr,
        retaining,
        hash,
        seed,
        accumulator,
        table_bits: match subject {
            Subject::Profiler(c) => c.counter_storage_bits(),
            s => s.memory_bits(),
        },
        memory_bits: subject.memory_bits(),
        net_error: acc.net_error,
        np: acc.split.np,
        nn: acc.split.nn,
        fp: acc.split.fp,
        fn_: acc.split.fn_,
        precision: acc.precision,
        recall: acc.recall,
        intervals: acc.intervals,
        scored_intervals: acc.scored_intervals,
        avg_hot_tuples: acc.avg_hot_tuples,
        extra,
        events: ev.len() as u64,
        seconds: t0.elapsed().as_secs_f64(),
        per_interval: per.iter().map(|e| e.error()).collect(),
        job: 0,
    }))
}

fn hash_name(h: HashKind) -> &'static str {
    match h {
        HashKind::Tabulation => "tabulation",
        HashKind::H3 => "h3",
    }
}

/// Runs `bench/datasketches_peer.py` on the trace (written once per trace in the text form) and
/// reads back its per-interval reports (JSON lines `{"interval": i, "entries": [[a, b, est], …]}`).
fn run_datasketches(
    trace: &TraceInput,
    lg: u32,
    lower_bound: bool,
    base: &ProfilerConfig,
    py: &PythonBench,
    stop: &AtomicBool,
) -> Result<Option<Vec<IntervalReport>>, String> {
    let path = scratch_trace(trace, base, &py.scratch)?;
    // Output to a file and a polled child, so that the stop flag can end it at once.
    let out_path = py.scratch.join(format!(
        "ds-{lg}-{lower_bound}-{}-{:?}.jsonl",
        base.interval,
        std::thread::current().id()
    ));
    let out_file =
        std::fs::File::create(&out_path).map_err(|e| format!("{}: {e}", out_path.display()))?;
    let mut cmd = std::process::Command::new(&py.python);
    // Its own process group: a terminal's Ctrl-C reaches only hwprof, which then kills the child.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd
        .arg(&py.script)
        .arg("--trace")
        .arg(&path)
        .args(["--interval", &base.interval.to_string()])
        .args(["--threshold", &base.threshold.to_string()])
        .args(["--lg-max-map-size", &lg.to_string()])
        .args(["--estimate", if lower_bound { "lower" } else { "upper" }])
        .stdout(out_file)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", py.python.display()))?;
    let status = loop {
        if stop.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&out_path);
            return Ok(None);
        }
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(50)),
            Err(e) => return Err(format!("{}: {e}", py.script.display())),
        }
    };
    let stdout = std::fs::read_to_string(&out_path);
    let _ = std::fs::remove_file(&out_path);
    if !status.success() {
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut err);
        }
        return Err(format!("{} failed: {}", py.script.display(), err.trim()));
    }
    let stdout = stdout.map_err(|e| format!("{}: {e}", out_path.display()))?;
    #[derive(Deserialize)]
    struct Line {
        interval: u64,
        entries: Vec<(u64, u64, u64)>,
    }
    let mut reports = Vec::new();
    for (n, line) in stdout.lines().enumerate() {
        let l: Line = serde_json::from_str(line)
            .map_err(|e| format!("{}: output line {}: {e}", py.script.display(), n + 1))?;
        reports.push(IntervalReport {
            interval: l.interval,
            entries: l
                .entries
                .into_iter()
                .map(|(a, b, count)| ReportEntry { a, b, count })
                .collect(),
        });
    }
    let want = trace.events.len() as u64 / base.interval;
    if reports.len() as u64 != want
        || reports
            .iter()
            .enumerate()
            .any(|(i, r)| r.interval != i as u64)
    {
        return Err(format!(
            "{}: expected reports of intervals 0..{want}, got {}",
            py.script.display(),
            reports.len()
        ));
    }
    Ok(Some(reports))
}

/// The trace in the text form, masked to the key widths, written once (atomically) per trace.
fn scratch_trace(trace: &TraceInput, base: &ProfilerConfig, dir: &Path) -> Result<PathBuf, String> {
    let safe: String = trace
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = dir.join(format!("{safe}-{}-{}.txt", base.a_bits, base.b_bits));
    if path.exists() {
        return Ok(path);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (am, bm) = (base.a_mask(), base.b_mask());
    let masked: Vec<Tuple> = trace
        .events
        .iter()
        .map(|&(a, b)| (a & am, b & bm))
        .collect();
    let tmp = dir.join(format!(
        "{safe}-{}-{}.{:?}.tmp.txt",
        base.a_bits,
        base.b_bits,
        std::thread::current().id()
    ));
    crate::eval::trace::write_trace(&tmp, &masked)
        .map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// One interval's error, a row of `intervals.csv`.
#[derive(Serialize)]
struct IntervalRow<'a> {
    trace: &'a str,
    config: &'a str,
    interval: usize,
    error: f64,
}

/// The sweep's two CSV files, `sweep.csv` (one [`Row`] a line) and `intervals.csv` (the error of every
/// scored interval). Each row reaches the disk when it is written, so Ctrl-C or a crash keeps it.
/// Numbers are written in full (shortest round-trip form): the best configurations differ in the
/// sixth decimal and beyond.
pub struct CsvOutput {
    rows: csv::Writer<std::fs::File>,
    intervals: csv::Writer<std::fs::File>,
}

impl CsvOutput {
    pub const ROWS_FILE: &'static str = "sweep.csv";
    pub const INTERVALS_FILE: &'static str = "intervals.csv";

    /// Creates both files in `dir` (which must exist); errors name the file.
    pub fn create(dir: &Path) -> Result<Self, String> {
        let open = |name: &str| {
            let path = dir.join(name);
            csv::Writer::from_path(&path).map_err(|e| format!("{}: {e}", path.display()))
        };
        Ok(Self {
            rows: open(Self::ROWS_FILE)?,
            intervals: open(Self::INTERVALS_FILE)?,
        })
    }

    pub fn write(&mut self, r: &Row) -> Result<(), String> {
        let err = |name: &str, e: &dyn std::fmt::Display| format!("{name}: {e}");
        self.rows
            .serialize(r)
            .and_then(|_| self.rows.flush().map_err(csv::Error::from))
            .map_err(|e| err(Self::ROWS_FILE, &e))?;
        for (interval, &error) in r.per_interval.iter().enumerate() {
            self.intervals
                .serialize(IntervalRow {
                    trace: &r.trace,
                    config: &r.config,
                    interval,
                    error,
                })
                .map_err(|e| err(Self::INTERVALS_FILE, &e))?;
        }
        self.intervals
            .flush()
            .map_err(|e| err(Self::INTERVALS_FILE, &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::metric::evaluate;
    use rand::{Rng, SeedableRng};

    pub(super) fn synthetic(n: usize, seed: u64) -> Vec<Tuple> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                if rng.gen_bool(0.6) {
                    (rng.gen_range(0..8u64), 0x40)
                } else {
                    (rng.gen_range(0..3000u64) << 4, rng.gen())
                }
            })
            .collect()
    }

    const GRID: &str = r#"
points = [{ interval = 2000, threshold = "2%" }]
tables = [1, 4]
total_entries = [64]
conservative_update = [false, true]
peers = true
peer_reference = { tables = 4, entries = 16, counter_bits = 24 }
"#;

    fn two_threads() -> RunOptions {
        RunOptions {
            threads: 2,
            stop: Arc::new(AtomicBool::new(false)),
            python: None,
        }
    }

    #[test]
    fn ranking_goes_by_the_worst_trace() {
        let traces: Vec<TraceInput> = [(3, "a"), (4, "b")]
            .into_iter()
            .map(|(seed, name)| TraceInput {
                name: name.into(),
                events: Arc::new(synthetic(6_000, seed)),
            })
            .collect();
        let jobs: Vec<Job> = (0..2)
            .flat_map(|trace| {
                expand_grid(GRID, "t")
                    .unwrap()
                    .into_iter()
                    .filter(|s| !matches!(s, Subject::DataSketches { .. }))
                    .map(move |subject| Job { trace, subject })
            })
            .collect();
        let opts = two_threads();
        let mut rows = vec![];
        run(&traces, &jobs, &opts, |r| rows.push(r.clone()), |_, _| {}).unwrap();
        let ranked = rank_by_worst(&rows);
        assert_eq!(ranked.len(), 7, "every configuration ran on both traces");
        for g in &ranked {
            let mine: Vec<&Row> = rows
                .iter()
                .filter(|r| r.config == g.config && r.seed == g.seed)
                .collect();
            let worst = mine.iter().map(|r| r.net_error).fold(f64::MIN, f64::max);
            assert_eq!((g.worst, g.traces), (worst, 2), "{}", g.config);
            let on = mine.iter().find(|r| r.trace == g.worst_trace).unwrap();
            assert_eq!(on.net_error, worst);
        }
        assert!(ranked.windows(2).all(|w| w[0].worst <= w[1].worst));
        // A configuration missing a trace is not ranked.
        let gone = rows
            .iter()
            .position(|r| r.config == ranked[0].config)
            .unwrap();
        rows.remove(gone);
        let again = rank_by_worst(&rows);
        assert_eq!(again.len(), 6);
        assert!(again.iter().all(|g| g.config != ranked[0].config));
    }

    #[test]
    fn sweep_rows_agree_with_evaluate() {
        let subjects = expand_grid(GRID, "t").unwrap();
        // 2 × 2 profilers + stratified ×2 + space-saving + datasketches ×2.
        assert_eq!(subjects.len(), 9);
        let traces = vec![TraceInput {
            name: "syn".into(),
            events: Arc::new(synthetic(10_000, 3)),
        }];
        let jobs: Vec<Job> = subjects
            .into_iter()
            .filter(|s| !matches!(s, Subject::DataSketches { .. }))
            .map(|subject| Job { trace: 0, subject })
            .collect();
        let opts = two_threads();
        let mut rows = vec![];
        let mut progress = 0;
        let s = run(
            &traces,
            &jobs,
            &opts,
            |r| rows.push(r.clone()),
            |d, _| progress = d,
        )
        .unwrap();
        assert_eq!((s.rows, rows.len(), progress), (7, 7, 7));
        assert!(!s.interrupted);
        for r in rows.iter().filter(|r| r.scheme.ends_with("-hash")) {
            let job = jobs
                .iter()
                .find(|j| j.subject.summary() == r.config)
                .unwrap();
            let Subject::Profiler(cfg) = &job.subject else {
                panic!("{}", r.config)
            };
            let ev = evaluate(cfg, &traces[0].events).unwrap();
            assert_eq!(r.net_error, ev.net_error, "{}", r.config);
            assert_eq!((r.precision, r.recall), (ev.precision, ev.recall));
            assert_eq!(r.per_interval.len(), 5);
        }
        let ss = rows.iter().find(|r| r.scheme == "space-saving").unwrap();
        assert!(
            ss.recall == 1.0,
            "Space-Saving never misses a tuple above N/k"
        );
        assert!(rows
            .iter()
            .all(|r| r.memory_bits > 0 && r.net_error.is_finite()));
        let dir = std::env::temp_dir().join(format!("hwprof-sweep-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut out = CsvOutput::create(&dir).unwrap();
        for r in &rows {
            out.write(r).unwrap();
        }
        drop(out);
        let mut read = csv::Reader::from_path(dir.join(CsvOutput::ROWS_FILE)).unwrap();
        let header = read.headers().unwrap().clone();
        assert_eq!(header.get(0), Some("trace"));
        assert!(header.iter().any(|h| h == "fn"), "{header:?}");
        let back: Vec<csv::StringRecord> = read.records().map(|r| r.unwrap()).collect();
        assert_eq!(back.len(), rows.len());
        let col = header.iter().position(|h| h == "net_error").unwrap();
        for (r, b) in rows.iter().zip(&back) {
            assert_eq!(b.len(), header.len());
            // Full precision: the error reads back exactly.
            assert_eq!(b[col].parse::<f64>().unwrap(), r.net_error);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stop_flag_keeps_nothing_unfinished() {
        let subjects = expand_grid(GRID, "t").unwrap();
        let traces = vec![TraceInput {
            name: "syn".into(),
            events: Arc::new(synthetic(4000, 1)),
        }];
        let jobs: Vec<Job> = subjects
            .into_iter()
            .take(3)
            .map(|subject| Job { trace: 0, subject })
            .collect();
        let opts = RunOptions {
            threads: 1,
            stop: Arc::new(AtomicBool::new(false)),
            python: None,
        };
        // Raised before the start (Ctrl-C during trace loading): nothing runs, no partial row.
        opts.stop.store(true, Ordering::Relaxed);
        let mut rows = 0;
        let s = run(&traces, &jobs, &opts, |_| rows += 1, |_, _| {}).unwrap();
        assert!(s.interrupted);
        assert_eq!(rows, 0);
        // A job in flight is abandoned at its next look at the flag.
        let mut fed = 0;
        let r = drive(&traces[0].events, &opts.stop, |_, _| {
            fed += 1;
            None
        });
        assert!(r.is_none() && fed == 0);
    }

    #[test]
    fn grid_errors_name_the_field() {
        let e = expand_grid(
            "points = []\ntables = [1]\ntotal_entries = [64]\n",
            "g.toml",
        )
        .unwrap_err();
        assert!(e.contains("`points`"), "{e}");
        let e = expand_grid(
            "points = [{ interval = 100, threshold = \"1%\" }]\ntables = [1]\n",
            "g.toml",
        )
        .unwrap_err();
        assert!(e.contains("`entries`"), "{e}");
        let e = expand_grid(
            "points = [{ interval = 100, threshold = \"1%\" }]\ntables = [3]\ntotal_entries = [64]\n",
            "g.toml",
        )
        .unwrap_err();
        assert!(e.contains("entries") && e.contains("power of two"), "{e}");
        let e = expand_grid(
            "points = [{ interval = 100, threshold = \"1%\" }]\ntables = [1]\nentries = [64]\nhash = [\"md5\"]\n",
            "g.toml",
        )
        .unwrap_err();
        assert!(e.contains("`hash`"), "{e}");
    }

    #[test]
    fn grid_gives_ways_key_widths_and_hardware_options() {
        let g = "points = [{ interval = 1000, threshold = \"1%\" }]\ntables = [2]\nentries = [64]\n\
                 accumulator_entries = [16]\naccumulator_ways = [2, 4]\na_bits = [16]\nb_bits = [8, 12]\n\
                 hardware = { write_stage = true }\n[target.ice40-hx8k]\nflag_rows = true\n";
        let cfgs: Vec<ProfilerConfig> = expand_grid(g, "g.toml")
            .unwrap()
            .into_iter()
            .map(|s| match s {
                Subject::Profiler(c) => c,
                _ => panic!("no peers asked for"),
            })
            .collect();
        assert_eq!(cfgs.len(), 4);
        let shapes: Vec<(usize, u32, u32)> = cfgs
            .iter()
            .map(|c| (c.accumulator.ways, c.a_bits, c.b_bits))
            .collect();
        assert_eq!(shapes, [(2, 16, 8), (2, 16, 12), (4, 16, 8), (4, 16, 12)]);
        for c in &cfgs {
            assert_eq!(
                c.accumulator.organisation,
                hwprof_hdl::Organisation::SetAssociative
            );
            assert!(c.write_stage && !c.flag_rows);
            assert!(c.for_target("ice40-hx8k").flag_rows);
        }
        let e = expand_grid(&g.replace("write_stage", "interval"), "g.toml").unwrap_err();
        assert!(e.contains("`hardware`"), "{e}");
        let e = expand_grid(&g.replace("ice40-hx8k", "ice40-xx"), "g.toml").unwrap_err();
        assert!(e.contains("target.ice40-xx"), "{e}");
    }

    #[test]
    fn presets_expand_within_budget() {
        let paper = expand_grid(PRESET_PAPER, "paper").unwrap();
        let profilers = paper
            .iter()
            .filter(|s| matches!(s, Subject::Profiler(_)))
            .count();
        assert_eq!(profilers, 2 * 5 * 4);
        assert_eq!(paper.len(), 2 * (5 * 4 + 5));
        for (name, text) in &PRESETS[1..] {
            for s in expand_grid(text, name).unwrap() {
                let Subject::Profiler(c) = s else { panic!() };
                assert!(c.counter_storage_bits() <= 49152 && c.accumulator.entries <= 1000);
            }
        }
        // Peers get at most the paper preset's bits.
        for s in &paper {
            let Subject::Profiler(_) = s else {
                let reference = ProfilerConfig::from_toml_str(
                    &format!(
                        "interval = {}\nthreshold = {}\ntables = 4\nentries = 512\n",
                        s.base().interval,
                        s.base().threshold
                    ),
                    "r",
                )
                .unwrap();
                assert!(
                    s.memory_bits() <= profiler_bits(&reference),
                    "{}",
                    s.summary()
                );
                continue;
            };
        }
    }

    #[test]
    fn peer_bits_give_the_peers_exactly_that_memory() {
        let grid = r#"
points = [{ interval = 1000000, threshold = "0.1%", peer_bits = 164992 },
          { interval = 10000, threshold = "1%" }]
tables = [2]
entries = [4096]
counter_bits = [10]
peers = true
"#;
        let subjects = expand_grid(grid, "t").unwrap();
        let peers = |l: u64| {
            subjects
                .iter()
                .filter(move |s| !matches!(s, Subject::Profiler(_)) && s.base().interval == l)
        };
        // Space-Saving entries of 96 tag + 20 count bits: k = 164992 / 116 = 1422.
        let ss = peers(1_000_000)
            .find(|s| s.scheme() == "space-saving")
            .unwrap();
        assert_eq!(
            (ss.memory_bits(), ss.summary().contains("k=1422")),
            (1422 * 116, true)
        );
        assert!(peers(1_000_000).all(|s| s.memory_bits() <= 164992));
        // The other point keeps the paper preset's budget (k = 557 at 10K).
        let ss = peers(10_000)
            .find(|s| s.scheme() == "space-saving")
            .unwrap();
        assert!(ss.summary().contains("k=557"), "{}", ss.summary());
    }
}
