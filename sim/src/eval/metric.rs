//! The perfect profiler and the paper's accuracy metric (docs/SPEC.md §7, paper §5.5).
//!
//! Per interval: f_p exact counts, f_h the hardware report (0 when not reported). The interval's
//! *hot tuples* are {f_p ≥ T} ∪ {f_h ≥ T} (named so as not to be confused with the profiler's
//! promotion *candidate*); E = Σ|f_p − f_h| / Σ f_p over the hot tuples, split four ways:
//! neutral positive (both in, f_h > f_p), neutral negative (both in, f_h < f_p), false positive
//! (only the hardware in), false negative (only the perfect profiler in). The net error is the mean
//! of E over the intervals that have a hot tuple; each share of the split is averaged the same way,
//! so the four shares add up to the net error.

use crate::eval::trace::Tuple;
use crate::model::multihash::IntervalReport;
use rustc_hash::FxHashMap as FxMap;
use serde::Serialize;

/// The four-way split of an error (fractions of Σ f_p).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Split {
    pub np: f64,
    pub nn: f64,
    pub fp: f64,
    #[serde(rename = "fn")]
    pub fn_: f64,
}

impl Split {
    pub fn total(&self) -> f64 {
        self.np + self.nn + self.fp + self.fn_
    }
}

/// The error of one interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct IntervalError {
    pub interval: u64,
    /// Hot tuples in all.
    pub hot: u64,
    /// Hot tuples of the perfect profiler (f_p ≥ T) and of the hardware (f_h ≥ T).
    pub perfect_hot: u64,
    pub hardware_hot: u64,
    /// Both in (true positives of the hot set).
    pub both: u64,
    pub sum_fp: u64,
    pub split: Split,
}

impl IntervalError {
    pub fn error(&self) -> f64 {
        self.split.total()
    }
}

/// The perfect profile of one interval: exact counts.
pub fn perfect_counts(events: &[Tuple], a_mask: u64, b_mask: u64) -> FxMap<Tuple, u64> {
    let mut m: FxMap<Tuple, u64> = FxMap::default();
    m.reserve(events.len() / 4);
    for &(a, b) in events {
        *m.entry((a & a_mask, b & b_mask)).or_default() += 1;
    }
    m
}

/// Scores one interval's hardware report against its exact counts.
pub fn score_interval(
    perfect: &FxMap<Tuple, u64>,
    report: &IntervalReport,
    threshold: u64,
) -> IntervalError {
    let mut e = IntervalError {
        interval: report.interval,
        ..Default::default()
    };
    let (mut np, mut nn, mut fp, mut fn_) = (0u64, 0u64, 0u64, 0u64);
    let mut hw: FxMap<Tuple, u64> = FxMap::default();
    for r in &report.entries {
        if r.count >= threshold {
            hw.insert((r.a, r.b), r.count);
        }
    }
    for (&t, &fp_count) in perfect {
        if fp_count >= threshold {
            e.hot += 1;
            e.perfect_hot += 1;
            e.sum_fp += fp_count;
            match hw.get(&t) {
                Some(&fh) => {
                    e.both += 1;
                    if fh > fp_count {
                        np += fh - fp_count;
                    } else {
                        nn += fp_count - fh;
                    }
                }
                None => fn_ += fp_count,
            }
        }
    }
    for (t, &fh) in &hw {
        e.hardware_hot += 1;
        let f = perfect.get(t).copied().unwrap_or(0);
        if f < threshold {
            e.hot += 1;
            e.sum_fp += f;
            fp += fh - f;
        }
    }
    if e.sum_fp > 0 {
        let s = e.sum_fp as f64;
        e.split = Split {
            np: np as f64 / s,
            nn: nn as f64 / s,
            fp: fp as f64 / s,
            fn_: fn_ as f64 / s,
        };
    }
    e
}

/// Accuracy over a run: the paper's net error and its split.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Accuracy {
    pub net_error: f64,
    pub split: Split,
    /// Complete intervals in the run.
    pub intervals: u64,
    /// Intervals with at least one hot tuple (the ones averaged).
    pub scored_intervals: u64,
    /// Hot tuples per interval, on average.
    pub avg_hot_tuples: f64,
    /// Precision and recall of the hardware's hot set against the perfect one, pooled.
    pub precision: f64,
    pub recall: f64,
}

impl Accuracy {
    pub fn from_intervals(per: &[IntervalError]) -> Self {
        let scored: Vec<&IntervalError> = per.iter().filter(|e| e.hot > 0).collect();
        let n = scored.len().max(1) as f64;
        let mut split = Split::default();
        for e in &scored {
            split.np += e.split.np / n;
            split.nn += e.split.nn / n;
            split.fp += e.split.fp / n;
            split.fn_ += e.split.fn_ / n;
        }
        let both: u64 = per.iter().map(|e| e.both).sum();
        let hw: u64 = per.iter().map(|e| e.hardware_hot).sum();
        let pf: u64 = per.iter().map(|e| e.perfect_hot).sum();
        Accuracy {
            net_error: split.total(),
            split,
            intervals: per.len() as u64,
            scored_intervals: scored.len() as u64,
            avg_hot_tuples: per.iter().map(|e| e.hot).sum::<u64>() as f64 / per.len().max(1) as f64,
            precision: if hw == 0 {
                1.0
            } else {
                both as f64 / hw as f64
            },
            recall: if pf == 0 {
                1.0
            } else {
                both as f64 / pf as f64
            },
        }
    }
}

/// Scores the reports of a run over `events` (interval i covers events[i·L .. (i+1)·L]).
pub fn score_run(
    events: &[Tuple],
    reports: &[IntervalReport],
    interval: u64,
    threshold: u64,
    a_mask: u64,
    b_mask: u64,
) -> Vec<IntervalError> {
    reports
        .iter()
        .map(|r| {
            // The last interval may be a flushed, partial one.
            let lo = ((r.interval * interval) as usize).min(events.len());
            let hi = (lo + interval as usize).min(events.len());
            let perfect = perfect_counts(&events[lo..hi], a_mask, b_mask);
            score_interval(&perfect, r, threshold)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::multihash::ReportEntry;

    #[test]
    fn hand_computed_split() {
        // T = 3. Perfect: x=5, y=3, z=2, w=1. Hardware: x=6 (NP 1), y missing (FN 3), z=4 (FP 2),
        // and q=3 with f_p = 0 would be FP 3 (sum f_p += 0).
        let ev: Vec<Tuple> = [(1, 1); 5]
            .into_iter()
            .chain([(2, 2); 3])
            .chain([(3, 3); 2])
            .chain([(4, 4)])
            .collect();
        let p = perfect_counts(&ev, u64::MAX, u64::MAX);
        let r = IntervalReport {
            interval: 0,
            entries: vec![
                ReportEntry {
                    a: 1,
                    b: 1,
                    count: 6,
                },
                ReportEntry {
                    a: 3,
                    b: 3,
                    count: 4,
                },
                ReportEntry {
                    a: 9,
                    b: 9,
                    count: 3,
                },
            ],
        };
        let e = score_interval(&p, &r, 3);
        assert_eq!(e.hot, 4);
        assert_eq!(e.sum_fp, 5 + 3 + 2);
        assert!((e.split.np - 0.1).abs() < 1e-12);
        assert!((e.split.fn_ - 0.3).abs() < 1e-12);
        assert!((e.split.fp - 0.5).abs() < 1e-12);
        assert_eq!(e.split.nn, 0.0);
        let acc = Accuracy::from_intervals(&[e]);
        assert!((acc.net_error - 0.9).abs() < 1e-12);
        assert!((acc.precision - 1.0 / 3.0).abs() < 1e-12 && (acc.recall - 0.5).abs() < 1e-12);
    }
}

/// The model run over a trace and scored: what `hwprof model` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    pub config: String,
    pub events: u64,
    pub intervals: u64,
    pub net_error: f64,
    pub split: Split,
    pub scored_intervals: u64,
    pub avg_hot_tuples: f64,
    pub precision: f64,
    pub recall: f64,
    /// The model's own rate on one core: events per second of the model thread's CPU time
    /// (trace parsing and the perfect profiler excluded; other processes on the machine do not
    /// dilute it as they would wall-clock time).
    pub events_per_second: f64,
    pub model: crate::model::multihash::ModelCounters,
    #[serde(skip)]
    pub per_interval: Vec<IntervalError>,
}

/// CPU time consumed by the calling thread, in seconds.
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec to the valid pointer we pass.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "CLOCK_THREAD_CPUTIME_ID is available on Linux");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Runs the multi-hash model of `cfg` over `events` and scores every complete interval.
pub fn evaluate(cfg: &hwprof_hdl::ProfilerConfig, events: &[Tuple]) -> Result<Evaluation, String> {
    let mut model = crate::model::multihash::MultiHash::new(cfg)?;
    let start = thread_cpu_seconds();
    let reports = model.run(events);
    let secs = thread_cpu_seconds() - start;
    let per = score_run(
        events,
        &reports,
        cfg.interval,
        cfg.threshold,
        cfg.a_mask(),
        cfg.b_mask(),
    );
    let acc = Accuracy::from_intervals(&per);
    Ok(Evaluation {
        config: cfg.summary(),
        events: events.len() as u64,
        intervals: acc.intervals,
        net_error: acc.net_error,
        split: acc.split,
        scored_intervals: acc.scored_intervals,
        avg_hot_tuples: acc.avg_hot_tuples,
        precision: acc.precision,
        recall: acc.recall,
        events_per_second: events.len() as f64 / secs.max(1e-9),
        model: model.stats,
        per_interval: per,
    })
}
