//! `hwprof formal`: bounded check that the pipelined profiler and the baseline send the same
//! report stream on every input of a small shape (`hwprof_sim::verify::formal`).

use super::{create_out_dir, load_config, print_json, CliError, CmdResult};
use hwprof_sim::hwprof_hdl::ProfilerConfig;
use hwprof_sim::verify::formal::{self, Mutation, Property, Search};
use std::path::PathBuf;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum MutateArg {
    Threshold,
    Forwarding,
}

#[derive(clap::Args)]
pub struct FormalArgs {
    /// Profiler configuration (TOML) with small key widths (the tape has events x (a_bits +
    /// b_bits) free bits), either accumulator organisation
    #[arg(long)]
    pub config: PathBuf,
    /// Clocks searched, the reset clock included (default: the smallest depth at which both
    /// designs can have sent every report, found first as --reach would, up to 80)
    #[arg(long)]
    pub depth: Option<u64>,
    /// Events on the solver-chosen tape (default: two intervals)
    #[arg(long)]
    pub events: Option<u64>,
    /// Keep the miter, the AIGER model, ABC's log and any counterexample (cex.aiw) here
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Make the two sides differ on purpose, so that the check must fail: `threshold` builds the
    /// baseline with T + 1, `forwarding` holds the pipelined design's first counter table's
    /// forwarding selects at 0
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "threshold", conflicts_with = "reach")]
    pub mutate: Option<MutateArg>,
    /// Check the design with relation forwarding (`--relation` of cosim and synth) against the
    /// baseline instead of the pipelined design
    #[arg(long)]
    pub relation: bool,
    /// Let the pipelined design's input idle at any clock (solver-chosen), so that its
    /// forwarding sees every distance between events; slower to search
    #[arg(long)]
    pub idle: bool,
    /// Instead of checking, find the earliest clock by which both designs can have sent every
    /// report of the tape: the depth the check needs to compare them all
    #[arg(long)]
    pub reach: bool,
    /// Print the result as one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: FormalArgs) -> CmdResult {
    let cfg = load_config(&a.config)?;
    if a.depth == Some(0) || a.events == Some(0) {
        return Err(CliError::input("--depth and --events must be at least 1"));
    }
    let events = a.events.unwrap_or(2 * cfg.interval);
    // Shapes without both designs, or too wide a tape, are the configuration's fault.
    formal::validate(&cfg, events, a.depth.unwrap_or(formal::REACH_LIMIT))
        .map_err(|e| CliError::input(format!("config {}: {e}", a.config.display())))?;
    if a.relation {
        hwprof_sim::hwprof_hdl::multihash::design::relation_shape(&cfg)
            .map_err(|e| CliError::input(format!("config {}: {e}", a.config.display())))?;
    }
    if let Some(d) = &a.out {
        create_out_dir(d)?;
    }
    let mutation = a.mutate.map(|m| match m {
        MutateArg::Threshold => Mutation::BaselineThreshold,
        MutateArg::Forwarding => Mutation::CounterForwarding,
    });
    let property = if a.reach {
        Property::AllReportsSent
    } else {
        Property::SameReports
    };
    let (depth, depth_from_reach) = match (a.depth, property) {
        (Some(d), _) => (d, false),
        (None, Property::AllReportsSent) => (formal::REACH_LIMIT, false),
        (None, Property::SameReports) => (
            formal::depth_reaching_every_report(&cfg, events, a.relation)
                .map_err(CliError::failure)?,
            true,
        ),
    };
    let search = Search {
        events,
        depth,
        property,
        idle_input: a.idle,
        relation: a.relation,
    };
    let mut r =
        formal::check(&cfg, &search, mutation, a.out.as_deref()).map_err(CliError::failure)?;
    r.depth_from_reach = depth_from_reach;
    if a.json {
        print_json(&r)?;
    } else {
        print_text(&r, &cfg, events / cfg.interval);
    }
    // A difference fails, and so does a reach search that reaches nothing, JSON or not.
    match r.result.as_str() {
        "fail" => Err(CliError::failure("the two designs differ")),
        "not reached" => Err(CliError::failure(
            "the depth does not reach every report: raise --depth",
        )),
        _ => Ok(()),
    }
}

fn print_text(r: &formal::FormalResult, cfg: &ProfilerConfig, reports: u64) {
    println!("configuration      {}", cfg.summary());
    println!("events             {}", r.events);
    println!("pipelined design   {} (against the baseline)", r.design);
    println!(
        "depth              {}{}",
        r.depth,
        if r.depth_from_reach {
            " (both designs can have sent every report a clock before)"
        } else {
            ""
        }
    );
    println!(
        "pipelined input    {}",
        if r.idle_input {
            "may idle at any clock"
        } else {
            "an event whenever the tape has one"
        }
    );
    println!("solver             {}", r.solver);
    println!("yosys              {}", r.yosys);
    match (r.result.as_str(), r.fail_frame, &r.counterexample) {
        ("pass", ..) => println!("PASS (no difference within {} clocks)", r.depth),
        ("reached", ..) => println!(
            "REACHED: both designs can have sent all {reports} reports by clock {}{}",
            r.reached_at
                .map(|f| f.to_string())
                .unwrap_or_else(|| "?".into()),
            r.counterexample
                .as_ref()
                .map(|p| format!(" (run: {})", p.display()))
                .unwrap_or_default()
        ),
        ("not reached", ..) => {
            println!(
                "NOT REACHED: no run sends all {reports} reports of both designs within {} clocks",
                r.depth
            );
        }
        (_, f, cex) => {
            println!(
                "FAIL at clock {}{}",
                f.map(|f| f.to_string()).unwrap_or_else(|| "?".into()),
                cex.as_ref()
                    .map(|p| format!(" (counterexample: {})", p.display()))
                    .unwrap_or_default()
            );
        }
    }
}
