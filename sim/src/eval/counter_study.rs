//! The ISPASS 2021 experiment on the counter models: E = 29 events with true counts spread
//! log-uniformly, `runs` runs with different seeds, the relative error |estimate − n| / n of every
//! (event, run) pooled per counter kind and summarised (min, quartiles, mean, max).
//!
//! Kinds: Morris 6×5 on the shared hardware source (bit-exact model of the RTL, every clock stepped,
//! so its range stops at 10^7), the same counters on an ideal software source (gaps drawn, so 10^7 and
//! 10^12), the 30-bit floating-point counter (shared source up to 10^7, ideal source up to 10^12) and
//! exact 64-bit counters.
//!
//! **What sharing costs.** On the shared source, counters of different events with the same member
//! index decide alike when they take events on the same clock in the same state. Each kind reports
//! the correlation, across runs, between the relative errors (estimate / n − 1) of different events:
//! the mean over all pairs of events and the largest. The hardware kinds run twice: events *spread*
//! evenly over the run (event e fires on n_e of the 10^7 clocks, Bresenham), and in *bursts* (every
//! event fires on every clock from reset until its count: the worst case, events coincide as much as
//! they can). The ideal kinds draw every event from its own generator: their correlation is the noise
//! floor of the estimate of a correlation from this many runs.

use crate::model::counters::exact::ExactBank;
use crate::model::counters::float::{FloatBank, FloatCounter};
use crate::model::counters::morris::{MorrisBank, MorrisGroup};
use hwprof_hdl::counters::float::FloatParams;
use hwprof_hdl::counters::morris::MorrisParams;
use hwprof_hdl::hash::SplitMix64;
use serde::Serialize;

/// Events per bank, as in the paper (Rocket's 29 hardware performance counters).
pub const STUDY_EVENTS: usize = 29;

/// True counts: `n` values log-uniform from 10^lo to 10^hi (rounded), the documented spread.
pub fn true_counts(lo: f64, hi: f64, n: usize) -> Vec<u64> {
    (0..n)
        .map(|i| {
            10f64
                .powf(lo + (hi - lo) * i as f64 / (n - 1) as f64)
                .round() as u64
        })
        .collect()
}

/// One kind's pooled relative errors and their summary.
#[derive(Clone, Debug, Serialize)]
pub struct KindResult {
    pub name: String,
    pub bits_per_event: u32,
    /// True counts covered, e.g. "1e2..1e7".
    pub range: String,
    pub samples: usize,
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub mean: f64,
    pub q3: f64,
    pub max: f64,
    /// Theory's relative standard deviation for large counts, where there is a closed form.
    pub theory_rel_std: Option<f64>,
    /// Counts up to this are always exact (from the counter's definition).
    pub exact_up_to: u64,
    /// Smallest true count in the study with a non-zero error in some run (None: all exact).
    pub first_error_at: Option<u64>,
    /// Pearson correlation across runs of the relative errors of two different events, mean over
    /// all pairs (None: fewer than 3 runs or no variation).
    pub estimate_correlation: Option<f64>,
    /// The largest of those pairwise correlations.
    pub max_estimate_correlation: Option<f64>,
    #[serde(skip)]
    pub errors: Vec<f64>,
}

/// Quantile with linear interpolation between order statistics (R type 7) of sorted `v`.
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let h = (v.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

struct Kind<'a> {
    name: &'a str,
    bits: u32,
    counts: &'a [u64],
    theory: Option<f64>,
    exact_up_to: u64,
}

fn summarise(k: Kind, estimates: Vec<Vec<u64>>) -> KindResult {
    // estimates[run][event]
    let mut errors = vec![];
    let mut first_error_at: Option<u64> = None;
    for run in &estimates {
        for (&est, &n) in run.iter().zip(k.counts) {
            let e = (est as f64 - n as f64).abs() / n as f64;
            if est != n {
                first_error_at = Some(first_error_at.map_or(n, |f| f.min(n)));
            }
            errors.push(e);
        }
    }
    let (estimate_correlation, max_estimate_correlation) = error_correlation(k.counts, &estimates);
    let mut s = errors.clone();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let range = format!(
        "1e{}..1e{}",
        (k.counts[0] as f64).log10().round(),
        (*k.counts.last().unwrap() as f64).log10().round()
    );
    KindResult {
        name: k.name.to_string(),
        bits_per_event: k.bits,
        range,
        samples: s.len(),
        min: s[0],
        q1: quantile(&s, 0.25),
        median: quantile(&s, 0.5),
        mean: s.iter().sum::<f64>() / s.len() as f64,
        q3: quantile(&s, 0.75),
        max: *s.last().unwrap(),
        theory_rel_std: k.theory,
        exact_up_to: k.exact_up_to,
        first_error_at,
        estimate_correlation,
        max_estimate_correlation,
        errors,
    }
}

/// Pearson correlation of x and y (None if either is constant).
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Mean and largest correlation over pairs of events of their relative errors across runs
/// (`estimates[run][event]`).
fn error_correlation(counts: &[u64], estimates: &[Vec<u64>]) -> (Option<f64>, Option<f64>) {
    if estimates.len() < 3 {
        return (None, None);
    }
    let rel: Vec<Vec<f64>> = (0..counts.len())
        .map(|e| {
            estimates
                .iter()
                .map(|run| run[e] as f64 / counts[e] as f64 - 1.0)
                .collect()
        })
        .collect();
    let mut cs = vec![];
    for a in 0..rel.len() {
        for b in a + 1..rel.len() {
            cs.extend(pearson(&rel[a], &rel[b]));
        }
    }
    if cs.is_empty() {
        return (None, None);
    }
    let mean = cs.iter().sum::<f64>() / cs.len() as f64;
    (Some(mean), cs.into_iter().reduce(f64::max))
}

/// How the hardware kinds' events are placed on the clocks.
#[derive(Clone, Copy)]
enum Firing {
    /// Event e fires on n_e of max(n) clocks, evenly spread.
    Spread,
    /// Event e fires on every clock from reset until it has fired n_e times.
    Bursts,
}

/// Clocks a bank with `counts[e]` events of type e placed as `firing` says.
fn drive(counts: &[u64], firing: Firing, mut clock: impl FnMut(u64)) {
    let clocks = *counts.iter().max().expect("events");
    match firing {
        Firing::Spread => {
            let mut acc = vec![0u64; counts.len()];
            for _ in 0..clocks {
                let mut w = 0u64;
                for (e, (a, &n)) in acc.iter_mut().zip(counts).enumerate() {
                    *a += n;
                    if *a >= clocks {
                        *a -= clocks;
                        w |= 1 << e;
                    }
                }
                clock(w);
            }
        }
        Firing::Bursts => {
            for t in 0..clocks {
                let w = counts
                    .iter()
                    .enumerate()
                    .fold(0u64, |w, (e, &n)| w | ((t < n) as u64) << e);
                clock(w);
            }
        }
    }
}

/// Seed of run r of a kind: one documented derivation for every kind.
fn run_seed(seed: u64, r: usize) -> u64 {
    SplitMix64(seed ^ (r as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64()
}

/// Threads the study's runs are spread over (the results do not depend on it).
const STUDY_THREADS: usize = 2;

/// f(r) for every run r, on [`STUDY_THREADS`] threads, in run order.
fn per_run<T: Send>(
    runs: usize,
    f: impl Fn(usize) -> Result<T, String> + Sync,
) -> Result<Vec<T>, String> {
    let mut slots: Vec<Option<Result<T, String>>> = (0..runs).map(|_| None).collect();
    std::thread::scope(|sc| {
        let handles: Vec<_> = (0..STUDY_THREADS)
            .map(|t| {
                let f = &f;
                sc.spawn(move || {
                    (t..runs)
                        .step_by(STUDY_THREADS)
                        .map(|r| (r, f(r)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (r, v) in h.join().expect("study thread panicked") {
                slots[r] = Some(v);
            }
        }
    });
    slots
        .into_iter()
        .map(|v| v.expect("every run done"))
        .collect()
}

/// The whole study: `runs` runs per kind, base `seed`.
pub fn run_study(runs: usize, seed: u64) -> Result<Vec<KindResult>, String> {
    if runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    let small = true_counts(2.0, 7.0, STUDY_EVENTS);
    let large = true_counts(2.0, 12.0, STUDY_EVENTS);
    let morris = MorrisParams::paper(STUDY_EVENTS, seed);
    let float = FloatParams::thirty_bit(STUDY_EVENTS, seed);
    let g = morris.group as f64;
    let morris_theory = Some((0.5f64).sqrt() / g.sqrt());
    let float_theory =
        Some((std::f64::consts::LN_2 / (1u64 << (float.mantissa + 1)) as f64).sqrt());
    let morris_bits = (morris.bits * morris.group) as u32;
    let mut out = vec![];

    // Morris 6×5 on the shared hardware source, bit-exact with the RTL.
    for (name, firing) in [
        ("morris 6x5, shared source, events spread", Firing::Spread),
        (
            "morris 6x5, shared source, events in bursts",
            Firing::Bursts,
        ),
    ] {
        let est = per_run(runs, |r| {
            let mut bank = MorrisBank::new(MorrisParams {
                seed: run_seed(seed, r),
                ..morris
            })?;
            drive(&small, firing, |w| bank.clock(w));
            Ok((0..STUDY_EVENTS).map(|e| bank.estimate(e)).collect())
        })?;
        out.push(summarise(
            Kind {
                name,
                bits: morris_bits,
                counts: &small,
                theory: morris_theory,
                exact_up_to: 1,
            },
            est,
        ));
    }

    // The same counters on an ideal source, both ranges.
    for (name, counts) in [
        ("morris 6x5, ideal source", &small),
        ("morris 6x5, ideal source, to 1e12", &large),
    ] {
        let est = (0..runs)
            .map(|r| {
                let mut gen = SplitMix64(run_seed(seed, r) ^ 0x1de4);
                counts
                    .iter()
                    .map(|&n| {
                        let seeds: Vec<u64> = (0..morris.group).map(|_| gen.next_u64()).collect();
                        let mut grp = MorrisGroup::ideal(&morris, &seeds);
                        grp.events_by_gaps(n);
                        grp.estimate()
                    })
                    .collect()
            })
            .collect();
        out.push(summarise(
            Kind {
                name,
                bits: morris_bits,
                counts,
                theory: morris_theory,
                exact_up_to: 1,
            },
            est,
        ));
    }

    // Floating-point 30-bit counter on the shared hardware source (bit-exact), then on an ideal source.
    let est = per_run(runs, |r| {
        let mut bank = FloatBank::new(FloatParams {
            seed: run_seed(seed, r),
            ..float
        })?;
        drive(&small, Firing::Spread, |w| bank.clock(w));
        Ok((0..STUDY_EVENTS).map(|e| bank.estimate(e)).collect())
    })?;
    out.push(summarise(
        Kind {
            name: "float 30-bit (e6 m24), shared source, events spread",
            bits: float.bits as u32,
            counts: &small,
            theory: float_theory,
            exact_up_to: 1 << float.mantissa,
        },
        est,
    ));
    let est = (0..runs)
        .map(|r| {
            let mut gen = SplitMix64(run_seed(seed, r) ^ 0xf10a7);
            large
                .iter()
                .map(|&n| {
                    let mut c = FloatCounter::ideal(&float, gen.next_u64());
                    c.events_by_gaps(n);
                    float.estimate(c.x)
                })
                .collect()
        })
        .collect();
    out.push(summarise(
        Kind {
            name: "float 30-bit (e6 m24), ideal source, to 1e12",
            bits: float.bits as u32,
            counts: &large,
            theory: float_theory,
            exact_up_to: 1 << float.mantissa,
        },
        est,
    ));

    // Exact 64-bit counters.
    let est = (0..runs)
        .map(|_| {
            let mut b = ExactBank::new(STUDY_EVENTS);
            large
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    b.events(i, n);
                    b.estimate(i)
                })
                .collect()
        })
        .collect();
    out.push(summarise(
        Kind {
            name: "exact 64-bit",
            bits: 64,
            counts: &large,
            theory: Some(0.0),
            exact_up_to: u64::MAX,
        },
        est,
    ));

    Ok(out)
}

/// A box plot of the kinds' relative errors (log scale; zero errors drawn at the floor), as SVG.
pub fn box_plot_svg(kinds: &[KindResult]) -> String {
    use std::fmt::Write;
    let (w, h, left, top, bottom) = (220 * kinds.len() + 100, 560.0, 80.0, 30.0, 170.0);
    let (lo, hi) = (-7.0f64, 2.0f64); // log10 range of the axis
    let plot_h = h - top - bottom;
    let y = |v: f64| {
        let l = if v > 0.0 { v.log10().clamp(lo, hi) } else { lo };
        top + plot_h * (hi - l) / (hi - lo)
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="18" text-anchor="middle" font-size="14">Relative error of approximate counters (29 events, log scale; 0 drawn at 1e-7)</text>"#,
        w / 2
    );
    for e in (lo as i32)..=(hi as i32) {
        let yy = y(10f64.powi(e));
        let _ = writeln!(
            s,
            r##"<line x1="{left}" x2="{}" y1="{yy:.1}" y2="{yy:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">1e{e}</text>"##,
            w as f64 - 20.0,
            left - 6.0,
            yy + 4.0
        );
    }
    for (i, k) in kinds.iter().enumerate() {
        let cx = left + 110.0 + 220.0 * i as f64;
        let (bw, st) = (60.0, r#"stroke="black" fill="none""#);
        let _ = writeln!(
            s,
            r##"<line x1="{cx}" x2="{cx}" y1="{:.1}" y2="{:.1}" {st}/><rect x="{:.1}" y="{:.1}" width="{bw}" height="{:.1}" stroke="black" fill="#9ecae1"/><line x1="{:.1}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="black" stroke-width="2"/><circle cx="{cx}" cy="{:.1}" r="3" fill="red"/>"##,
            y(k.max),
            y(k.min),
            cx - bw / 2.0,
            y(k.q3),
            (y(k.q1) - y(k.q3)).max(0.5),
            cx - bw / 2.0,
            cx + bw / 2.0,
            y(k.median),
            y(k.median),
            y(k.mean)
        );
        for (j, line) in wrap(&format!("{} [{}]", k.name, k.range), 30)
            .iter()
            .enumerate()
        {
            let _ = writeln!(
                s,
                r#"<text x="{cx}" y="{:.1}" text-anchor="middle">{}</text>"#,
                h - bottom + 20.0 + 15.0 * j as f64,
                line
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{cx}" y="{:.1}" text-anchor="middle">mean {:.3e}</text>"#,
            h - bottom + 95.0,
            k.mean
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{}">box: Q1–Q3, bar: median, whiskers: min–max, red dot: mean</text></svg>"#,
        h - 10.0
    );
    s
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let last = lines.last_mut().unwrap();
        if !last.is_empty() && last.len() + word.len() + 1 > width {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_span_the_documented_range() {
        let c = true_counts(2.0, 7.0, 29);
        assert_eq!((c[0], c[28]), (100, 10_000_000));
        assert!(c.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn firing_patterns_place_every_event() {
        let counts = [3u64, 7, 10];
        for firing in [Firing::Spread, Firing::Bursts] {
            let mut seen = [0u64; 3];
            let mut clocks = 0;
            drive(&counts, firing, |w| {
                clocks += 1;
                for (e, n) in seen.iter_mut().enumerate() {
                    *n += w >> e & 1;
                }
            });
            assert_eq!((seen, clocks), (counts, 10));
        }
    }

    #[test]
    fn correlation_of_identical_and_opposite_errors() {
        let counts = [10u64, 10, 10];
        let est = vec![vec![9, 9, 11], vec![10, 10, 10], vec![12, 12, 8]];
        let (mean, max) = error_correlation(&counts, &est);
        assert!((max.unwrap() - 1.0).abs() < 1e-12);
        assert!((mean.unwrap() - (1.0 - 1.0 - 1.0) / 3.0).abs() < 1e-12);
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [0.0, 1.0, 2.0, 3.0];
        assert_eq!(quantile(&v, 0.5), 1.5);
        assert_eq!(quantile(&v, 0.0), 0.0);
        assert_eq!(quantile(&v, 1.0), 3.0);
    }
}
