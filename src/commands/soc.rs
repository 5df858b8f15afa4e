//! `hwprof soc`: real RISC-V programs on PicoRV32 with the profilers on its retire stream.

use super::{check_writable_file, load_config, print_json, write_error, CliError, CmdResult};
use hwprof_sim::eval::plot;
use hwprof_sim::hwprof_hdl::phase::PhaseConfig;
use hwprof_sim::hwprof_hdl::profile_buffer::BufferConfig;
use hwprof_sim::hwprof_hdl::ProfilerConfig;
use hwprof_sim::soc::programs::{Program, PROGRAMS};
use hwprof_sim::soc::run::{
    run as run_soc, ModeResult, RunOptions, SocRun, DEFAULT_BUFFER, DEFAULT_PHASE, DEFAULT_PROFILER,
};
use hwprof_sim::soc::SocError;
use hwprof_sim::verify::icarus::Simulator;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum SocCommand {
    /// Build a program, run it on PicoRV32 under Verilator (or Icarus) with the multi-hash profiler
    /// in value mode (<pc, loaded value>) and edge mode (<pc, next pc>), the profile buffer on its
    /// conditional branches and the phase classifier on its control transfers, and compare every
    /// block's output with its model's on the dumped retire stream
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
    /// Profile-buffer configuration (TOML, address or set-associative indexing); default
    /// configs/soc-buffer.toml (64 entries, a readout every 1000 branches)
    #[arg(long)]
    pub buffer_config: Option<PathBuf>,
    /// Phase-classifier configuration (TOML); default configs/soc-phase.toml (intervals of 10 000
    /// instructions)
    #[arg(long)]
    pub phase_config: Option<PathBuf>,
    /// Write the phase sequence over time as a figure, FILE.svg and FILE.png
    #[arg(long, value_name = "FILE")]
    pub phase_plot: Option<PathBuf>,
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
    let built_in = |(source, _): (&str, &str)| format!("{source} (built in)");
    let cfg = match &a.config {
        Some(p) => load_config(p)?,
        None => ProfilerConfig::from_toml_str(DEFAULT_PROFILER.1, &built_in(DEFAULT_PROFILER))
            .map_err(CliError::input)?,
    };
    let buffer = match &a.buffer_config {
        Some(p) => BufferConfig::load(p),
        None => BufferConfig::from_toml_str(DEFAULT_BUFFER.1, &built_in(DEFAULT_BUFFER)),
    }
    .map_err(CliError::input)?;
    let phase = match &a.phase_config {
        Some(p) => PhaseConfig::load(p),
        None => PhaseConfig::from_toml_str(DEFAULT_PHASE.1, &built_in(DEFAULT_PHASE)),
    }
    .map_err(CliError::input)?;
    let plot_stem = a.phase_plot.as_deref().map(plot_stem).transpose()?;
    if a.short && !program.has_short_input() {
        return Err(CliError::input(format!(
            "--short: {} has no short input (dhrystone and the kernels sort, crc, matmul, hash have)",
            program.name
        )));
    }
    let r = run_soc(&RunOptions {
        program,
        cfg,
        buffer,
        phase,
        simulator: match a.simulator {
            SimArg::Verilator => Simulator::Verilator,
            SimArg::Icarus => Simulator::Icarus,
        },
        short: a.short,
        top: a.top,
    })
    .map_err(cli_error)?;
    if let Some(stem) = &plot_stem {
        phase_figure(stem, &r)?;
    }
    if a.json {
        print_json(&r)?;
        return verdict(&r);
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
    let b = &r.buffer;
    println!("profile buffer: {}", b.configuration);
    println!(
        "  {} conditional branches ({} static), {} readouts ({} from the model), {} mismatches, arc error {:.2} %, contention {:.2} %",
        b.events, b.branches, b.readouts, b.model_readouts, b.mismatches, 100.0 * b.arc_error, 100.0 * b.contention
    );
    let p = &r.phase;
    println!("phase classifier: {}", p.configuration);
    println!(
        "  {} transfers, {} intervals ({} from the model), {} mismatches, {} phases, next phase predicted {:.1} % (last phase {:.1} %)",
        p.events, p.intervals, p.model_intervals, p.mismatches, p.phases,
        100.0 * p.prediction_accuracy, 100.0 * p.last_phase_accuracy
    );
    println!("  phases: {}", phase_string(&p.records));
    verdict(&r)
}

/// A failing exit when any block's output differs from its model's.
fn verdict(r: &SocRun) -> CmdResult {
    if r.mismatches != 0 {
        return Err(CliError::failure(format!(
            "{} differences between the hardware's output and the models' (value {}, edge {}, buffer {}, phase {})",
            r.mismatches, r.value.mismatches, r.edge.mismatches, r.buffer.mismatches, r.phase.mismatches
        )));
    }
    Ok(())
}

/// The phase ids interval by interval, runs compressed: `0 1x3 2 …`.
fn phase_string(records: &[hwprof_sim::model::phase::PhaseRecord]) -> String {
    let mut runs: Vec<(u32, usize)> = Vec::new();
    for r in records {
        match runs.last_mut() {
            Some((p, n)) if *p == r.phase => *n += 1,
            _ => runs.push((r.phase, 1)),
        }
    }
    let parts: Vec<String> = runs
        .iter()
        .map(|&(p, n)| {
            if n == 1 {
                p.to_string()
            } else {
                format!("{p}x{n}")
            }
        })
        .collect();
    parts.join(" ")
}

/// `--phase-plot FILE`: the stem the figure's .svg and .png are written to, checked writable.
fn plot_stem(path: &Path) -> Result<PathBuf, CliError> {
    let stem = path.with_extension("");
    for ext in ["svg", "png"] {
        check_writable_file(&stem.with_extension(ext))?;
    }
    Ok(stem)
}

/// The phase of each interval against the instructions retired, one colour a phase.
fn phase_figure(stem: &Path, r: &SocRun) -> CmdResult {
    let interval = r.phase.interval as f64;
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for rec in &r.phase.records {
        let label = format!("phase {}", rec.phase);
        let point = ((rec.interval + 1) as f64 * interval, rec.phase as f64);
        match series.iter_mut().find(|s| s.0 == label) {
            Some(s) => s.1.push(point),
            None => series.push((label, vec![point])),
        }
    }
    plot::scatter(
        stem,
        &format!("{}: phase of each interval", r.program),
        ("instructions retired", "phase id"),
        false,
        &series,
        None,
    )
    .map_err(|e| write_error(stem, e))?;
    Ok(())
}
