//! `hwprof formal`: bounded check that the pipelined profiler and the baseline send the same
//! report stream on every input of a small shape (`hwprof_sim::verify::formal`).

use super::{create_out_dir, load_config, print_json, CliError, CmdResult};
use hwprof_sim::verify::formal::{self, Mutation};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct FormalArgs {
    /// Profiler configuration (TOML) with a fully-associative accumulator and small key widths
    /// (the tape has events x (a_bits + b_bits) free bits)
    #[arg(long)]
    pub config: PathBuf,
    /// Clocks searched, the reset clock included
    #[arg(long)]
    pub depth: u64,
    /// Events on the solver-chosen tape (default: two intervals)
    #[arg(long)]
    pub events: Option<u64>,
    /// Keep the miter, the AIGER model, ABC's log and any counterexample (cex.aiw) here
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Build the baseline side with threshold T + 1, so that the check must fail
    #[arg(long)]
    pub mutate: bool,
    /// Print the result as one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: FormalArgs) -> CmdResult {
    let cfg = load_config(&a.config)?;
    if a.depth == 0 || a.events == Some(0) {
        return Err(CliError::input("--depth and --events must be at least 1"));
    }
    let events = a.events.unwrap_or(2 * cfg.interval);
    // Shapes without both designs, or too wide a tape, are the configuration's fault.
    formal::validate(&cfg, events, a.depth)
        .map_err(|e| CliError::input(format!("config {}: {e}", a.config.display())))?;
    if let Some(d) = &a.out {
        create_out_dir(d)?;
    }
    let mutation = a.mutate.then_some(Mutation::BaselineThreshold);
    let r = formal::check(&cfg, events, a.depth, mutation, a.out.as_deref())
        .map_err(CliError::failure)?;
    if a.json {
        return print_json(&r);
    }
    println!("configuration      {}", cfg.summary());
    println!("events             {}", r.events);
    println!("depth              {}", r.depth);
    println!("solver             {}", r.solver);
    println!("yosys              {}", r.yosys);
    match (r.result.as_str(), r.fail_frame, &r.counterexample) {
        ("pass", ..) => println!("PASS (no difference within {} clocks)", r.depth),
        (_, f, cex) => {
            println!(
                "FAIL at clock {}{}",
                f.map(|f| f.to_string()).unwrap_or_else(|| "?".into()),
                cex.as_ref()
                    .map(|p| format!(" (counterexample: {})", p.display()))
                    .unwrap_or_default()
            );
            return Err(CliError::failure("the two designs differ"));
        }
    }
    Ok(())
}
