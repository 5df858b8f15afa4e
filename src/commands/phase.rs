//! `hwprof phase`: the phase classifier's model on a real trace, scored against the ground truth
//! and an offline SimPoint-style reference; optionally its RTL on the same stream.

use super::{config_text, print_json, CliError, CmdResult, KindArg};
use hwprof_sim::eval::phase::{classify, evaluate, read_phase_trace, PhaseReport};
use hwprof_sim::hwprof_hdl::phase::PhaseConfig;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum MetricArg {
    /// Miss rate of the simulated L1 data cache
    L1dMissRate,
    /// Memory operations per instruction
    MemOpsPerInstruction,
    /// Fraction of branches taken
    BranchTakenRate,
}

#[derive(clap::Args)]
pub struct PhaseArgs {
    /// Phase-classifier configuration (TOML with a [phase] table), e.g. configs/phase.toml
    #[arg(long)]
    pub config: PathBuf,
    /// valgrind lackey log (.gz read transparently)
    #[arg(long)]
    pub trace: PathBuf,
    /// Events: branches or loads of a --trace-mem log, superblocks of a --trace-superblocks log
    #[arg(long, value_enum)]
    pub kind: KindArg,
    /// The behaviour metric of cov_whole / ccov / reference_ccov
    #[arg(long, value_enum, default_value = "l1d-miss-rate")]
    pub metric: MetricArg,
    /// Also run the RTL under rust-hdl's simulator on the same stream; report mismatches
    #[arg(long)]
    pub cosim: bool,
    /// Also run the exported Verilog under Icarus on the same stream; report mismatches
    #[arg(long)]
    pub icarus: bool,
    /// Print one JSON object instead of a table
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: PhaseArgs) -> CmdResult {
    let (text, source) = config_text(&a.config)?;
    let cfg = PhaseConfig::from_toml_str(&text, &source).map_err(CliError::input)?;
    let trace = read_phase_trace(&a.trace, a.kind.into()).map_err(CliError::input)?;
    let records = classify(&cfg, &trace);
    if records.is_empty() {
        return Err(CliError::input(format!(
            "trace {}: no interval closes: {} instructions of events, interval = {}",
            a.trace.display(),
            trace.events.iter().map(|e| e.1).sum::<u64>(),
            cfg.interval
        )));
    }
    let metric = a.metric as usize;
    let mut report = evaluate(&cfg, &trace, metric, &records);
    if a.cosim {
        report.mismatches = Some(
            hwprof_sim::verify::phase::cosim(&cfg, &trace.events, &records)
                .map_err(CliError::failure)?,
        );
    }
    if a.icarus {
        report.icarus_mismatches = Some(
            hwprof_sim::verify::phase::icarus(&cfg, &trace.events, &records)
                .map_err(CliError::failure)?,
        );
    }
    if a.json {
        print_json(&report)
    } else {
        print_table(&report);
        Ok(())
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or("n/a (no behaviour metrics in this log)".into(), |v| {
        format!("{v:.4}")
    })
}

fn print_table(r: &PhaseReport) {
    println!("config               {}", r.config);
    println!(
        "state                {} bits ({} bytes)",
        r.storage_bits,
        r.storage_bits.div_ceil(8)
    );
    println!(
        "events               {} ({} instructions)",
        r.events, r.instructions
    );
    println!("intervals            {}", r.intervals);
    println!(
        "phases               {} ({} transitions)",
        r.phases, r.transitions
    );
    println!(
        "reference phases     {} (ARI {:.3})",
        r.reference_phases, r.ari
    );
    println!("metric               {}", r.metric.unwrap_or("none"));
    println!("cov_whole            {}", opt(r.cov_whole));
    println!("ccov                 {}", opt(r.ccov));
    println!("reference_ccov       {}", opt(r.reference_ccov));
    for m in &r.by_metric {
        println!(
            "  {:<24} cov_whole {:.4}  ccov {:.4}  reference {:.4}",
            m.metric, m.cov_whole, m.ccov, m.reference_ccov
        );
    }
    println!(
        "prediction accuracy  {:.4} (last phase {:.4})",
        r.prediction_accuracy, r.last_phase_accuracy
    );
    if let Some(c) = &r.cache {
        println!("L1D                  {c}");
    }
    if let Some(m) = r.mismatches {
        println!("rust-hdl mismatches  {m}");
    }
    if let Some(m) = r.icarus_mismatches {
        println!("icarus mismatches    {m}");
    }
}
