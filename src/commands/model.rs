//! `hwprof model`: the reference model over a trace, scored with the paper's metric.

use super::{load_config, load_trace, print_json, CliError, CmdResult, KindArg};
use hwprof_sim::eval::metric::{evaluate, Evaluation};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ModelArgs {
    /// Profiler configuration (TOML), e.g. configs/paper-10k.toml
    #[arg(long)]
    pub config: PathBuf,
    /// Trace: lackey log (with --kind), text or binary; .gz read transparently
    #[arg(long)]
    pub trace: PathBuf,
    /// How to read a lackey log
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Print one JSON object instead of a table
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: ModelArgs) -> CmdResult {
    let cfg = load_config(&a.config)?;
    let events = load_trace(&a.trace, a.kind)?;
    let ev = evaluate(&cfg, &events).map_err(CliError::input)?;
    if a.json {
        print_json(&ev)
    } else {
        print_table(&ev);
        Ok(())
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
    println!(
        "model speed       {:.1} M events/s",
        ev.events_per_second / 1e6
    );
}
