//! `hwprof cosim`: the RTL (rust-hdl simulation) against the model on a trace, report by report.

use super::progress::Progress;
use super::{
    check_writable_file, json_with_config, load_config_for, load_trace, print_json, CliError,
    CmdResult, KindArg,
};
use hwprof_sim::flow::device::Target;
use hwprof_sim::hwprof_hdl::multihash::Design;
use hwprof_sim::verify::multihash::cosim::{cosim, CosimOptions, Mismatch, ReadyPattern};
use hwprof_sim::verify::multihash::icarus::{icarus_cosim_design, netlist_cosim};
use hwprof_sim::verify::multihash::streams::{stream, StreamKind};
use hwprof_sim::verify::netlist::{yosys_version, Family};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct CosimArgs {
    /// Profiler configuration (TOML), e.g. configs/paper-10k.toml
    #[arg(long)]
    pub config: PathBuf,
    /// Trace: lackey log (with --kind), text or binary; .gz read transparently; `-` reads stdin
    #[arg(long, required_unless_present = "stream", conflicts_with = "stream")]
    pub trace: Option<PathBuf>,
    /// Instead of a trace, an adversarial stream built for the configuration (needs --events):
    /// one-tuple, alias-storm, accumulator-overflow, saturation, all-distinct, mixed
    #[arg(long, requires = "events")]
    pub stream: Option<String>,
    /// Seed of --stream
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Run the exported Verilog under Icarus Verilog instead of rust-hdl's simulator
    #[arg(long, conflicts_with = "vcd")]
    pub icarus: bool,
    /// Simulate the simple baseline profiler of the configuration instead of the pipelined one
    #[arg(long)]
    pub baseline: bool,
    /// Simulate the block-RAM profiler rebuilt around a loop of bits (set associative, first
    /// replacement, no reset on promote) instead of the pipelined one
    #[arg(long, conflicts_with = "baseline")]
    pub relation: bool,
    /// How to read a lackey log (checked against the kind a text or binary trace records)
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Use only the first N events of the trace
    #[arg(long)]
    pub events: Option<usize>,
    /// Simulate the netlist Yosys synthesizes for this FPGA family (synth_ice40 / synth_ecp5)
    /// under Icarus with Yosys's cell models, instead of the RTL: the post-synthesis proof
    #[arg(long, value_enum, conflicts_with = "vcd")]
    pub netlist: Option<NetlistArg>,
    /// Apply the hardware options of this synthesis target's `[target.<name>]` section
    /// (ice40-up5k, ice40-hx8k, ecp5-25k, ecp5-85k)
    #[arg(long, value_parser = Target::parse)]
    pub target: Option<Target>,
    /// Write a VCD waveform of the run (large: use with small --events)
    #[arg(long)]
    pub vcd: Option<PathBuf>,
    /// Back-pressure the report stream: out_ready high on R cycles of every P, given as "R/P"
    #[arg(long, default_value = "1/1")]
    pub report_ready: String,
    /// Print one JSON object instead of text (with the configuration's fields and the simulator's
    /// speed)
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum NetlistArg {
    Ice40,
    Ecp5,
}

pub fn run(a: CosimArgs) -> CmdResult {
    let cfg = load_config_for(&a.config, a.target)?;
    hwprof_sim::hwprof_hdl::multihash::widths::rtl_shape(&cfg)
        .map_err(|e| CliError::input(format!("config {}: {e}", a.config.display())))?;
    let report_ready = parse_ready(&a.report_ready)?;
    let design = if a.baseline {
        Design::Baseline
    } else if a.relation {
        Design::Relation
    } else {
        Design::Pipelined
    };
    if a.events == Some(0) {
        return Err(CliError::input("--events 0: nothing to co-simulate"));
    }
    if let Some(v) = &a.vcd {
        check_writable_file(v)?;
    }
    let events = match (&a.trace, &a.stream) {
        (Some(trace), _) => {
            let mut events = load_trace(trace, a.kind)?;
            if let Some(n) = a.events {
                if n > events.len() {
                    return Err(CliError::input(format!(
                        "--events {n}: the trace {} has only {} events",
                        trace.display(),
                        events.len()
                    )));
                }
                events.truncate(n);
            }
            events
        }
        (None, Some(name)) => {
            let kind = StreamKind::parse(name).ok_or_else(|| {
                let names: Vec<&str> = StreamKind::ALL.iter().map(|k| k.name()).collect();
                CliError::input(format!(
                    "--stream {name:?}: expected one of {}",
                    names.join(", ")
                ))
            })?;
            stream(kind, &cfg, a.events.unwrap_or(0), a.seed)
        }
        (None, None) => return Err(CliError::input("give --trace FILE or --stream KIND")),
    };
    // Only complete intervals end in a report: a shorter window would compare nothing.
    let trailing = events.len() as u64 % cfg.interval;
    if (events.len() as u64) < cfg.interval {
        return Err(CliError::input(format!(
            "{} events, fewer than one interval (L = {}): no report would be compared; \
             give more --events or a configuration with a shorter interval",
            events.len(),
            cfg.interval
        )));
    }
    let family = a.netlist.map(|n| match n {
        NetlistArg::Ice40 => Family::Ice40,
        NetlistArg::Ecp5 => Family::Ecp5,
    });
    let spinner = Progress::spinner(format!(
        "co-simulating {} events ({})",
        events.len(),
        match (family, a.icarus) {
            (Some(f), _) => format!("the {} netlist under Icarus", f.name()),
            (None, true) => "Icarus".into(),
            (None, false) => "rust-hdl".into(),
        }
    ));
    if a.icarus || family.is_some() {
        let r = match family {
            Some(f) => netlist_cosim(&cfg, design, &events, report_ready, f),
            None => icarus_cosim_design(&cfg, design, &events, report_ready),
        }
        .map_err(CliError::failure)?;
        spinner.finish();
        if a.json {
            let mut j = json_with_config(&r, &cfg, trailing);
            if let Some(f) = family {
                j["netlist"] = serde_json::json!(f.name());
                j["yosys"] = serde_json::json!(yosys_version().map_err(CliError::failure)?);
            }
            print_json(&j)?;
        } else {
            if let Some(f) = family {
                println!(
                    "netlist            {} ({})",
                    f.name(),
                    yosys_version().map_err(CliError::failure)?
                );
            }
            println!("config             {}", cfg.summary());
            println!("events             {}", r.events);
            println!(
                "reports compared   {} of {}",
                r.reports_compared, r.intervals
            );
            println!("mismatches         {}", r.mismatches);
            println!(
                "cycles             {} (events/cycle {:.4})",
                r.cycles, r.events_per_cycle
            );
            println!("cycles in all      {}", r.total_cycles);
            print_trailing(trailing);
            print_mismatch(&r.first_mismatch);
        }
        return verdict(
            r.mismatches,
            r.reports_compared,
            if family.is_some() {
                "the synthesized netlist"
            } else {
                "the Verilog"
            },
        );
    }
    let opts = CosimOptions {
        vcd: a.vcd,
        report_ready,
        design,
    };
    let r = cosim(&cfg, &events, &opts).map_err(CliError::failure)?;
    spinner.finish();
    if a.json {
        print_json(&json_with_config(&r, &cfg, trailing))?;
    } else {
        println!("config             {}", r.config);
        println!("events             {}", r.events);
        println!(
            "reports compared   {} of {} ({} entries)",
            r.reports_compared, r.intervals, r.entries_compared
        );
        println!("mismatches         {}", r.mismatches);
        println!(
            "cycles             {} (events/cycle {:.4}; {} input stall cycles)",
            r.cycles, r.events_per_cycle, r.input_stall_cycles
        );
        println!(
            "report drains      {} of the stall cycles (longest drain {} cycles); \
             events/cycle between them {:.4}",
            r.report_stall_cycles, r.longest_report_cycles, r.events_per_cycle_between_reports
        );
        println!("cycles in all      {}", r.total_cycles);
        print_trailing(trailing);
        print_mismatch(&r.first_mismatch);
    }
    verdict(r.mismatches, r.reports_compared, "the RTL")
}

fn print_mismatch(m: &Option<Mismatch>) {
    if let Some(m) = m {
        println!(
            "FIRST MISMATCH     interval {} (ended by event {})\n  model: {}\n  rtl:   {}",
            m.interval,
            m.event_index,
            serde_json::to_string(&m.expected).unwrap_or_default(),
            serde_json::to_string(&m.got).unwrap_or_default()
        );
    }
}

/// A difference fails; so does a run that compared no report, which proves nothing (never
/// "0 mismatches").
fn verdict(mismatches: u64, reports: u64, what: &str) -> CmdResult {
    if mismatches != 0 {
        return Err(CliError::failure(format!("{what} differs from the model")));
    }
    if reports == 0 {
        return Err(CliError::failure(
            "no report was compared: the run proves nothing about the RTL",
        ));
    }
    Ok(())
}

fn print_trailing(trailing: u64) {
    if trailing > 0 {
        println!("not compared       {trailing} events of a trailing partial interval");
    }
}

fn parse_ready(s: &str) -> Result<ReadyPattern, CliError> {
    let bad = || {
        CliError::input(format!(
            "--report-ready: expected R/P with 1 <= R <= P, got {s:?}"
        ))
    };
    let (r, p) = s.split_once('/').ok_or_else(bad)?;
    let (ready, period): (u64, u64) = (
        r.trim().parse().map_err(|_| bad())?,
        p.trim().parse().map_err(|_| bad())?,
    );
    if ready == 0 || ready > period {
        return Err(bad());
    }
    Ok(ReadyPattern { period, ready })
}
