//! Phase-classifier configuration study over several traces: every combination of the listed
//! thresholds, merge thresholds, `min_count`s, Q, intervals and seeds around `configs/phase.toml`,
//! scored against the ground truth and offline reference of each (trace, interval, seed), which are
//! computed once. One TSV row per (trace, configuration) on stdout:
//!
//! `trace  interval  seed  q_bits  threshold  merge_threshold  min_count  entries  phases  reference_phases
//! ccov/reference_ccov  ccov/cov_whole  prediction_accuracy  last_phase_accuracy  ari  verdict`
//!
//! verdict `pass` when phases are within 1.5× of the reference's (either way), CCoV ≤ 1.10 ×
//! the reference's and ≤ 0.7 × `cov_whole`; `pass+` when prediction also beats last-phase.
//! Thresholds are given at Q = 8 and scaled by 2^(Q − 8) for a smaller Q. Lists are environment
//! variables (comma-separated; defaults in brackets): TS [64], MS [0], MC [2], PS (entries) [16],
//! QS [8], IS [30000], SEEDS [1]; WHEN_FULL is `replace_lru` or `join_nearest` (every other key
//! from `configs/phase.toml`). A merge threshold not above the threshold (other than 0) is skipped.
//!
//! `TS=48,64,72 MS=0,80 MC=2,4 cargo run --release -p hwprof-sim --example phase_grid -- T1.lackey.gz ...`
use hwprof_hdl::phase::config::PhaseConfig;
use hwprof_hdl::phase::WhenFull;
use hwprof_hdl::ConfigFile;
use hwprof_sim::eval::phase::{classify, read_phase_trace, score, Truth};
use hwprof_sim::eval::trace::LackeyKind;
use rayon::prelude::*;
use std::path::Path;

fn fail(msg: String) -> ! {
    eprintln!("phase_grid: {msg}");
    std::process::exit(2)
}

fn list(name: &str, default: &str) -> Vec<u64> {
    let text = std::env::var(name).unwrap_or_else(|_| default.into());
    text.split(',')
        .map(|x| {
            x.trim()
                .parse()
                .unwrap_or_else(|_| fail(format!("{name}: `{x}` is not a number")))
        })
        .collect()
}

fn main() {
    let base_path = "configs/phase.toml";
    let base = std::fs::read_to_string(base_path)
        .map_err(|e| e.to_string())
        .and_then(|t| PhaseConfig::from_toml_str(&t, base_path).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| fail(format!("{base_path}: {e}")));
    let (ts, ms, mcs) = (list("TS", "64"), list("MS", "0"), list("MC", "2"));
    let (qs, is, seeds) = (list("QS", "8"), list("IS", "30000"), list("SEEDS", "1"));
    let ps = list("PS", "16");
    let when_full = match std::env::var("WHEN_FULL").as_deref() {
        Err(_) | Ok("replace_lru") => WhenFull::ReplaceLru,
        Ok("join_nearest") => WhenFull::JoinNearest,
        Ok(x) => fail(format!(
            "WHEN_FULL: `{x}` is neither replace_lru nor join_nearest"
        )),
    };
    let traces: Vec<String> = std::env::args().skip(1).collect();
    if traces.is_empty() {
        fail("no trace given (lackey logs, read as branch events)".into());
    }
    for path in traces {
        let t = read_phase_trace(Path::new(&path), LackeyKind::Branch)
            .unwrap_or_else(|e| fail(format!("{path}: {e}")));
        let name = Path::new(&path).file_name().map_or(path.clone(), |f| {
            f.to_string_lossy().replace(".lackey.gz", "")
        });
        for (&interval, &seed) in is.iter().flat_map(|i| seeds.iter().map(move |s| (i, s))) {
            let at = PhaseConfig {
                interval,
                seed,
                ..base.clone()
            };
            let truth = Truth::new(&at, &t);
            let mut cfgs = vec![];
            for &q in &qs {
                let scale = 1u64 << 8u64.saturating_sub(q);
                for &th in &ts {
                    for &m in ms.iter().filter(|&&m| m == 0 || m > th) {
                        for (&mc, &pe) in mcs.iter().flat_map(|a| ps.iter().map(move |b| (a, b))) {
                            let c = PhaseConfig {
                                q_bits: q as u32,
                                threshold: th / scale,
                                merge_threshold: m / scale,
                                min_count: mc as u32,
                                entries: pe as usize,
                                when_full,
                                ..at.clone()
                            };
                            match c.validate() {
                                Ok(()) => cfgs.push(c),
                                Err(e) => fail(format!("Q={q} T={th} M={m} min_count={mc}: {e}")),
                            }
                        }
                    }
                }
            }
            let rows: Vec<String> = cfgs
                .par_iter()
                .map(|c| {
                    let r = score(c, &t, &truth, 0, &classify(c, &t));
                    let q = r.quality;
                    let (ccov, reference, whole) = (
                        q.ccov.unwrap_or(f64::NAN),
                        q.reference_ccov.unwrap_or(f64::NAN),
                        q.cov_whole.unwrap_or(f64::NAN),
                    );
                    let k = r.phases as f64 / q.reference_phases as f64;
                    let pass = ccov <= 1.10 * reference
                        && ccov <= 0.7 * whole
                        && (1.0 / 1.5..=1.5).contains(&k);
                    let beats = q.prediction_accuracy > q.last_phase_accuracy;
                    format!(
                        "{name}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.3}\t{:.3}\t{:.4}\t{:.4}\t{:.3}\t{}",
                        c.interval,
                        c.seed,
                        c.q_bits,
                        c.threshold,
                        c.merge_threshold,
                        c.min_count,
                        c.entries,
                        r.phases,
                        q.reference_phases,
                        ccov / reference,
                        ccov / whole,
                        q.prediction_accuracy,
                        q.last_phase_accuracy,
                        q.ari,
                        match (pass, beats) {
                            (true, true) => "pass+",
                            (true, false) => "pass",
                            _ => "-",
                        }
                    )
                })
                .collect();
            for r in rows {
                println!("{r}");
            }
        }
    }
}
