//! `hwprof model`: the reference model over a trace, scored with the paper's metric.

use super::{
    check_writable_file, json_with_config, load_config, load_trace_full, print_json, write_error,
    CliError, CmdResult, KindArg, Tuple,
};
use hwprof_sim::eval::flat_profile::{exact_counts, report_lines, to_json_lines, TupleKind};
use hwprof_sim::eval::metric::{evaluate, Evaluation};
use hwprof_sim::eval::trace::LackeyKind;
use hwprof_sim::hwprof_hdl::ProfilerConfig;
use hwprof_sim::model::multihash::MultiHash;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ModelArgs {
    /// Profiler configuration (TOML), e.g. configs/paper-10k.toml
    #[arg(long)]
    pub config: PathBuf,
    /// Trace: lackey log (with --kind), text or binary; .gz read transparently; `-` reads stdin
    #[arg(long)]
    pub trace: PathBuf,
    /// How to read a lackey log (checked against the kind a text or binary trace records)
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Print one JSON object instead of a table (with the configuration's fields and the model's
    /// speed)
    #[arg(long)]
    pub json: bool,
    /// Also write the tuples reported in every interval, as JSON lines (`hwprof report` reads
    /// them), with each reported tuple's exact count over the stream's complete intervals
    #[arg(long, value_name = "FILE")]
    pub reports: Option<PathBuf>,
}

pub fn run(a: ModelArgs) -> CmdResult {
    let cfg = load_config(&a.config)?;
    if let Some(p) = &a.reports {
        check_writable_file(p)?;
    }
    let trace = load_trace_full(&a.trace, a.kind)?;
    let events = trace.events;
    let trailing = check_length(&cfg, events.len() as u64, &a.trace)?;
    let ev = evaluate(&cfg, &events).map_err(CliError::input)?;
    if let Some(p) = &a.reports {
        write_reports(p, &cfg, &events, trace.kind)?;
    }
    if a.json {
        print_json(&json_with_config(&ev, &cfg, trailing))
    } else {
        print_table(&ev);
        print_trailing(trailing, cfg.interval);
        Ok(())
    }
}

/// A trace shorter than one interval gives no report to score: an error, not a perfect score on
/// nothing. Returns the events of the trailing partial interval, which are not scored.
pub fn check_length(cfg: &ProfilerConfig, events: u64, trace: &Path) -> Result<u64, CliError> {
    if events < cfg.interval {
        return Err(CliError::input(format!(
            "trace {}: {events} events, fewer than one interval (L = {}): nothing to score",
            trace.display(),
            cfg.interval
        )));
    }
    Ok(events % cfg.interval)
}

pub fn print_trailing(trailing: u64, interval: u64) {
    if trailing > 0 {
        println!(
            "not scored        {trailing} events of a trailing partial interval (L = {interval})"
        );
    }
}

pub fn print_table(ev: &Evaluation) {
    println!("config            {}", ev.config);
    println!("events            {}", ev.events);
    println!(
        "intervals         {} ({} with hot tuples)",
        ev.intervals, ev.scored_intervals
    );
    println!("avg hot tuples    {:.1}", ev.avg_hot_tuples);
    println!(
        "net error         {:.4} %  (NP {:.4}  NN {:.4}  FP {:.4}  FN {:.4})",
        100.0 * ev.net_error,
        100.0 * ev.split.np,
        100.0 * ev.split.nn,
        100.0 * ev.split.fp,
        100.0 * ev.split.fn_
    );
    println!("precision/recall  {:.4} / {:.4}", ev.precision, ev.recall);
}

/// The model's reports of every interval as JSON lines, with the exact counts of the reported
/// tuples (keys masked to the configuration's widths, as the profiler stores them).
fn write_reports(
    path: &Path,
    cfg: &ProfilerConfig,
    events: &[Tuple],
    kind: Option<LackeyKind>,
) -> CmdResult {
    let mode = match kind {
        Some(LackeyKind::Edge) => TupleKind::Edge,
        Some(LackeyKind::Branch) => TupleKind::Branch,
        Some(LackeyKind::Load) | None => TupleKind::Load,
    };
    let reports = MultiHash::new(cfg).map_err(CliError::input)?.run(events);
    let (am, bm) = (cfg.a_mask(), cfg.b_mask());
    let masked: Vec<(u64, u64)> = events.iter().map(|&(a, b)| (a & am, b & bm)).collect();
    let exact = exact_counts(&masked, cfg.interval);
    let count = |a: u64, b: u64| exact.get(&(a, b)).copied().unwrap_or(0);
    let lines = report_lines(mode, cfg.interval, &reports, Some(&count));
    std::fs::write(path, to_json_lines(&lines)).map_err(|e| write_error(path, e))
}
