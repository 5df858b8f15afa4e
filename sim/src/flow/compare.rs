//! `hwprof synth --compare-baseline`: the pipelined profiler and the simple baseline
//! (`hwprof_hdl::multihash::baseline`) of one configuration, synthesized for the same target, and their
//! events per clock measured by a rust-hdl co-simulation against the model (which must match,
//! so a figure is never taken from a wrong design); events/s = best Fmax × events per clock.

use super::{run, Design, FlowError, FlowOptions, SynthResult};
use crate::eval::trace::Tuple;
use crate::verify::multihash::cosim::{cosim, CosimOptions, CosimResult};
use hwprof_hdl::multihash::{verilog_of, Design as Which};
use hwprof_hdl::ProfilerConfig;
use serde::Serialize;
use std::fmt::Write as _;

/// Events of the throughput co-simulation by default.
pub const DEFAULT_EVENTS: usize = 20_000;

/// Both designs of a configuration on one target.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub target: super::device::Target,
    /// Events per clock of both, measured on the configuration as resolved for the target.
    pub throughput: Throughput,
    pub pipelined: SynthResult,
    pub baseline: SynthResult,
    /// Pipelined events/s over baseline events/s (None when either has no Fmax).
    pub events_per_s_ratio: Option<f64>,
}

/// Events per clock of each design, measured once per resolved configuration (a preset's
/// per-target hardware options can change it).
#[derive(Debug, Clone, Serialize)]
pub struct Throughput {
    pub events: u64,
    /// Interval reports compared with the model, per design (none when no interval ends in the
    /// window: the figures are then events per clock alone).
    pub reports_compared: u64,
    pub pipelined: f64,
    pub baseline: f64,
}

fn measure(
    cfg: &ProfilerConfig,
    which: Which,
    events: &[Tuple],
    progress: &mut dyn FnMut(&str),
) -> Result<CosimResult, FlowError> {
    progress(&format!(
        "rust-hdl: co-simulating the {} design over {} events",
        name(which),
        events.len()
    ));
    let opts = CosimOptions {
        design: which,
        ..Default::default()
    };
    let r = cosim(cfg, events, &opts).map_err(FlowError::Input)?;
    if r.mismatches != 0 {
        return Err(FlowError::Tool(format!(
            "the {} RTL differs from the model: {:?}",
            name(which),
            r.first_mismatch
        )));
    }
    progress(&format!(
        "rust-hdl: {} design: {:.4} events/clock ({} reports compared, 0 mismatches)",
        name(which),
        r.events_per_cycle,
        r.reports_compared
    ));
    Ok(r)
}

fn name(which: Which) -> &'static str {
    match which {
        Which::Pipelined => "pipelined",
        Which::Baseline => "baseline",
        Which::Relation => "relation",
    }
}

/// Events per clock of both designs of `cfg` on `events` (co-simulated against the model).
pub fn throughput(
    cfg: &ProfilerConfig,
    events: &[Tuple],
    progress: &mut dyn FnMut(&str),
) -> Result<Throughput, FlowError> {
    if events.is_empty() {
        return Err(FlowError::Input(
            "the throughput stream has no events".into(),
        ));
    }
    let p = measure(cfg, Which::Pipelined, events, progress)?;
    let b = measure(cfg, Which::Baseline, events, progress)?;
    Ok(Throughput {
        events: events.len() as u64,
        reports_compared: p.reports_compared.min(b.reports_compared),
        pipelined: p.events_per_cycle,
        baseline: b.events_per_cycle,
    })
}

/// The Verilog of both designs of `cfg`, named `<name> pipelined` / `<name> baseline`, with
/// their measured events per clock.
pub fn designs(
    cfg: &ProfilerConfig,
    name: &str,
    tp: &Throughput,
) -> Result<(Design, Design), FlowError> {
    let d = |which: Which, epc: f64| -> Result<Design, FlowError> {
        Ok(Design {
            name: format!("{name} {}", self::name(which)),
            verilog: verilog_of(cfg, which).map_err(FlowError::Input)?,
            top: "top".into(),
            events_per_clock: Some(epc),
        })
    };
    Ok((
        d(Which::Pipelined, tp.pipelined)?,
        d(Which::Baseline, tp.baseline)?,
    ))
}

/// Synthesizes both designs with `opts` (each in its own subdirectory of `opts.out_dir`); `tp`
/// is what their events per clock came from.
pub fn compare(
    pipelined: &Design,
    baseline: &Design,
    tp: &Throughput,
    opts: &FlowOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Comparison, FlowError> {
    let mut one = |d: &Design, sub: &str| {
        let o = FlowOptions {
            out_dir: opts.out_dir.join(sub),
            ..opts.clone()
        };
        progress(&format!(
            "synthesizing the {sub} design for {}",
            opts.target.name()
        ));
        run(d, &o, progress)
    };
    let p = one(pipelined, "pipelined")?;
    let b = one(baseline, "baseline")?;
    let ratio = match (p.events_per_s, b.events_per_s) {
        (Some(x), Some(y)) if y > 0.0 => Some(x / y),
        _ => None,
    };
    Ok(Comparison {
        target: opts.target,
        throughput: tp.clone(),
        pipelined: p,
        baseline: b,
        events_per_s_ratio: ratio,
    })
}

/// One side-by-side table of every comparison (pipelined and baseline columns per target),
/// and the events/s ratio of each.
pub fn table(cmps: &[Comparison]) -> String {
    let results: Vec<&SynthResult> = cmps
        .iter()
        .flat_map(|c| [&c.pipelined, &c.baseline])
        .collect();
    let mut s = super::table(&results);
    for c in cmps {
        let _ = writeln!(
            s,
            "events/s pipelined / baseline on {}: {}",
            c.target.name(),
            c.events_per_s_ratio
                .map_or("- (no Fmax)".into(), |r| format!("{r:.2} x"))
        );
    }
    s
}

/// The same in Markdown.
pub fn markdown(cmps: &[Comparison]) -> String {
    let results: Vec<&SynthResult> = cmps
        .iter()
        .flat_map(|c| [&c.pipelined, &c.baseline])
        .collect();
    let mut s = super::markdown(&results);
    for c in cmps {
        let _ = writeln!(
            s,
            "\nevents/s pipelined / baseline on {}: {}",
            c.target.name(),
            c.events_per_s_ratio
                .map_or("- (no Fmax)".into(), |r| format!("{r:.2} x"))
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::multihash::streams::{stream, StreamKind};
    use hwprof_hdl::ConfigFile;

    #[test]
    fn throughput_of_both_designs() {
        let cfg = ProfilerConfig::from_toml_str(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\nentries = 4\n",
            "t",
        )
        .unwrap();
        let ev = stream(StreamKind::Mixed, &cfg, 128, 1);
        let tp = throughput(&cfg, &ev, &mut |_| {}).unwrap();
        assert_eq!(tp.pipelined, 1.0);
        assert_eq!(tp.reports_compared, 2);
        // 3 clocks per event and one 16-clock sweep between the two intervals.
        assert_eq!(tp.baseline, 128.0 / (3.0 * 127.0 + 16.0 + 1.0));
        let (p, b) = designs(&cfg, "t", &tp).unwrap();
        assert_eq!(
            (p.name.as_str(), b.name.as_str()),
            ("t pipelined", "t baseline")
        );
        assert_ne!(p.verilog, b.verilog);
        assert_eq!(b.events_per_clock, Some(tp.baseline));
        assert!(throughput(&cfg, &[], &mut |_| {}).is_err());
        // Set-associative, 16 sets x 2 ways: the baseline's report sweep (16 x 3 + 1 clocks) is
        // longer than its counters' (16).
        let cfg = ProfilerConfig::from_toml_str(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\n\
             organisation = \"set_associative\"\nentries = 32\nways = 2\n",
            "t",
        )
        .unwrap();
        let ev = stream(StreamKind::Mixed, &cfg, 128, 1);
        let tp = throughput(&cfg, &ev, &mut |_| {}).unwrap();
        assert_eq!(tp.baseline, 128.0 / (3.0 * 127.0 + 49.0 + 1.0));
        assert!(tp.pipelined > 2.0 * tp.baseline, "{tp:?}");
    }
}
