//! `hwprof soc`: real RISC-V programs on PicoRV32 with the profilers on its retire stream.

use super::{load_config, print_json, CliError, CmdResult};
use hwprof_sim::hwprof_hdl::ProfilerConfig;
use hwprof_sim::soc::programs::{Program, PROGRAMS};
use hwprof_sim::soc::run::{run as run_soc, ModeResult, RunOptions};
use hwprof_sim::soc::SocError;
use hwprof_sim::verify::icarus::Simulator;
use std::path::PathBuf;

/// The default profiler: configs/soc-bram.toml, built in so that the command runs from anywhere.
const DEFAULT_CONFIG: &str = include_str!("../../configs/soc-bram.toml");

#[derive(clap::Subcommand)]
pub enum SocCommand {
    /// Build a program, run it on PicoRV32 under Verilator (or Icarus) with the multi-hash profiler
    /// in value mode (<pc, loaded value>) and edge mode (<pc, next pc>) on its retire stream, and
    /// compare the hardware's reports with the model's on the dumped stream
    Run(RunArgs),
    /// The programs `soc run` knows
    List,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SimArg {
    Verilator,
    Icarus,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// Program: dhrystone, sieve, multest, stats (PicoRV32 package), sort, crc, matmul, hash
    #[arg(long)]
    pub program: String,
    /// Profiler configuration (TOML); default configs/soc-bram.toml (interval 1000)
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Short inputs: the kernels' (tens of thousands of instructions), Dhrystone's 100 runs
    #[arg(long)]
    pub short: bool,
    /// External simulator of the system
    #[arg(long, value_enum, default_value = "verilator")]
    pub simulator: SimArg,
    /// Hottest tuples listed per mode
    #[arg(long, default_value_t = 8)]
    pub top: usize,
    /// One JSON object: instructions, cycles, events, reports, mismatches and per-mode details
    #[arg(long)]
    pub json: bool,
}

fn cli_error(e: SocError) -> CliError {
    match e {
        SocError::Missing(m) | SocError::Input(m) => CliError::input(m),
        SocError::Failure(m) => CliError::failure(m),
    }
}

pub fn run(c: SocCommand) -> CmdResult {
    match c {
        SocCommand::List => {
            for p in PROGRAMS {
                println!("{:<10} {}", p.name, p.about);
            }
            Ok(())
        }
        SocCommand::Run(a) => run_program(a),
    }
}

fn print_mode(title: &str, m: &ModeResult) {
    println!(
        "{title}: {} events, {} reports ({} from the model), {} mismatches, net error {:.2} % (precision {:.3}, recall {:.3})",
        m.events, m.reports, m.model_reports, m.mismatches, 100.0 * m.net_error, m.precision, m.recall
    );
    for t in &m.top {
        println!(
            "  {:>9}  {:08x} {:08x}  {}  ({})",
            t.count, t.a, t.b, t.symbol, t.line
        );
    }
}

fn run_program(a: RunArgs) -> CmdResult {
    let program = Program::parse(&a.program).map_err(cli_error)?;
    let cfg = match &a.config {
        Some(p) => load_config(p)?,
        None => ProfilerConfig::from_toml_str(DEFAULT_CONFIG, "configs/soc-bram.toml (built in)")
            .map_err(CliError::input)?,
    };
    if a.short && !program.has_short_input() {
        return Err(CliError::input(format!(
            "--short: {} has no short input (dhrystone and the kernels sort, crc, matmul, hash have)",
            program.name
        )));
    }
    let r = run_soc(&RunOptions {
        program,
        cfg,
        simulator: match a.simulator {
            SimArg::Verilator => Simulator::Verilator,
            SimArg::Icarus => Simulator::Icarus,
        },
        short: a.short,
        top: a.top,
    })
    .map_err(cli_error)?;
    if a.json {
        return print_json(&r);
    }
    print!("{}", r.console);
    println!(
        "{}{} on PicoRV32: {} instructions, {} cycles (CPI {:.2}), {} stall cycles; {} simulation {:.1} s ({:.0} instructions/s)",
        r.program,
        if r.short { " (short)" } else { "" },
        r.instructions,
        r.cycles,
        r.cycles as f64 / r.instructions.max(1) as f64,
        r.stall_cycles,
        r.simulator,
        r.simulation_seconds,
        r.instructions_per_second
    );
    println!("profiler: {}", r.configuration);
    print_mode("value profile <pc, loaded value>", &r.value);
    print_mode("edge profile <pc -> next pc>", &r.edge);
    if r.mismatches != 0 {
        return Err(CliError::failure(format!(
            "{} intervals where the hardware's report differs from the model's",
            r.mismatches
        )));
    }
    Ok(())
}
