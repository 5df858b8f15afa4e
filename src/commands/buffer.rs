//! `hwprof buffer`: the profile-buffer model over a branch trace, scored with the thesis's
//! arc error and contention (Menezes 1997, ch. 3).

use super::{config_text, load_trace, print_json, write_error, CliError, CmdResult, KindArg};
use hwprof_hdl::ConfigFile;
use hwprof_sim::hwprof_hdl::export;
use hwprof_sim::hwprof_hdl::profile_buffer::{verilog, BufferConfig};
use hwprof_sim::model::profile_buffer::{evaluate, BufferEvaluation};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct BufferArgs {
    /// Profile-buffer configuration (TOML), e.g. configs/buffer-address-64.toml
    #[arg(long)]
    pub config: PathBuf,
    /// Branch trace: a lackey --trace-mem log read with --kind branch, or text/binary (pc, taken);
    /// `-` reads stdin
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// How to read a lackey log (checked against the kind a text or binary trace records)
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Print one JSON object instead of a table
    #[arg(long)]
    pub json: bool,
    /// Also write the buffer's Verilog (top module hwprof_<config name>, its Verilator lint
    /// waivers inside it) to this file (`hwprof verilog --config` exports the buffer with its
    /// FuseSoC core)
    #[arg(long)]
    pub verilog: Option<PathBuf>,
}

pub fn run(a: BufferArgs) -> CmdResult {
    let (text, source) = config_text(&a.config)?;
    let cfg = BufferConfig::from_toml_str(&text, &source).map_err(CliError::input)?;
    if let Some(path) = &a.verilog {
        let name = a.config.file_stem().map_or_else(
            || "profile-buffer".into(),
            |s| s.to_string_lossy().into_owned(),
        );
        let v = export::package(&verilog(&cfg), &name, "profile buffer", &format!("{cfg:?}"));
        std::fs::write(path, v).map_err(|e| write_error(path, e))?;
    }
    let Some(trace) = &a.trace else {
        if a.verilog.is_some() {
            return Ok(());
        }
        return Err(CliError::input("give --trace FILE (or --verilog FILE)"));
    };
    let events = load_trace(trace, a.kind)?;
    let ev = evaluate(&cfg, &events)
        .map_err(|e| CliError::input(format!("{}: {e}", trace.display())))?;
    if a.json {
        print_json(&ev)
    } else {
        print_table(&ev);
        Ok(())
    }
}

fn print_table(ev: &BufferEvaluation) {
    println!("config        {}", ev.config);
    println!("events        {}", ev.events);
    println!(
        "branches      {} ({} never in a readout)",
        ev.branches, ev.unprofiled
    );
    println!("samples       {}", ev.samples);
    println!(
        "contention    {:.2} % of updates ({})",
        100.0 * ev.contention,
        ev.contentions
    );
    println!(
        "arc error     {:.4} weighted by execution, {:.4} per static branch",
        ev.arc_error, ev.arc_error_mean
    );
    println!("per decade    executions          branches  mean arc error");
    for d in &ev.decades {
        println!(
            "              10^{} .. 10^{} - 1  {:>10}  {:.4}",
            d.decade,
            d.decade + 1,
            d.branches,
            d.mean_error
        );
    }
}
