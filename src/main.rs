//! `hwprof`: the command-line tool. Thin by design: parse arguments, call the libraries, print.

mod commands;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "hwprof",
    version,
    about = "Hardware program profilers: RTL, bit-exact models, Verilog, synthesis"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress bars or step lines on stderr (they are hidden anyway when stderr is not a terminal)
    #[arg(long, short, global = true)]
    quiet: bool,
    /// Override a field of every configuration file read (and of a built-in profiler
    /// configuration), e.g. `--set interval=20000` or
    /// `--set accumulator.entries=64` (repeatable; the value is TOML, a bare word is a string; a
    /// top-level key also replaces that key in every `[target.<name>]` section)
    #[arg(long, global = true, value_name = "KEY=VALUE", value_parser = commands::parse_set)]
    set: Vec<(String, toml::Value)>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the multi-hash profiler model on a trace and report the paper's accuracy metric.
    Model(commands::model::ModelArgs),
    /// A flat profile (rank, share, count, function, source line) from a profiler's reports.
    Report(commands::report::ReportArgs),
    /// Record, convert and summarise event traces.
    #[command(subcommand)]
    Trace(commands::trace::TraceCommand),
    /// Profile buffer (Conte/Menezes) on a branch trace: arc error and contention.
    Buffer(commands::buffer::BufferArgs),
    /// The paper preset against the single-hash profiler on the bundled trace, a co-simulation,
    /// the Verilog, and area/Fmax (installing the synthesis tools if needed).
    Demo(commands::demo::DemoArgs),
    /// Yosys + nextpnr area and Fmax of a design on an iCE40 or ECP5 target.
    Synth(commands::synth::SynthArgs),
    /// Find or install (YoWASP, project-local .venv) the synthesis tools.
    #[command(subcommand)]
    Tools(commands::synth::ToolsCommand),
    /// A bitstream for the iCEBreaker or the ULX3S (icepack / ecppack).
    Bitstream(commands::synth::BitstreamArgs),
    /// Design-space sweep: a grid of configurations x traces with peers, CSV/JSON and plots.
    Sweep(commands::sweep::SweepArgs),
    /// Design-space exploration: a sweep grid's accuracy x area x Fmax per target with Pareto
    /// fronts, on this machine or a Slurm cluster.
    Explore(commands::explore::ExploreArgs),
    /// Co-simulate the multi-hash profiler RTL (rust-hdl) against the model on a trace.
    Cosim(commands::cosim::CosimArgs),
    /// Bounded formal check: the pipelined profiler and the baseline send the same reports.
    Formal(commands::formal::FormalArgs),
    /// Export the multi-hash profiler's Verilog and a FuseSoC core for a configuration.
    Verilog(commands::verilog::VerilogArgs),
    /// Approximate counters (Morris, floating-point): the ISPASS study, Verilog, area.
    #[command(subcommand)]
    Counters(commands::counters::CountersCommand),
    /// Show a configuration as the tools resolve it (defaults, T, A, bits of memory).
    #[command(subcommand)]
    Config(commands::config::ConfigCommand),
    /// Phase classifier on a trace: phases, CCoV against an offline reference, prediction.
    Phase(commands::phase::PhaseArgs),
    /// Real RISC-V programs on PicoRV32 with the profilers on its retire stream (Verilator).
    #[command(subcommand)]
    Soc(commands::soc::SocCommand),
}

fn main() {
    // Die quietly on a closed pipe (`hwprof trace stats X | head`) like other Unix tools,
    // instead of panicking inside println!.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    commands::set_globals(commands::Globals {
        quiet: cli.quiet,
        sets: cli.set,
    });
    let result = match cli.command {
        Command::Model(a) => commands::model::run(a),
        Command::Report(a) => commands::report::run(a),
        Command::Trace(c) => commands::trace::run(c),
        Command::Demo(a) => commands::demo::run(a),
        Command::Synth(a) => commands::synth::run(a),
        Command::Tools(c) => commands::synth::run_tools(c),
        Command::Bitstream(a) => commands::synth::run_bitstream(a),
        Command::Sweep(a) => commands::sweep::run_cmd(a),
        Command::Explore(a) => commands::explore::run(a),
        Command::Cosim(a) => commands::cosim::run(a),
        Command::Formal(a) => commands::formal::run(a),
        Command::Verilog(a) => commands::verilog::run(a),
        Command::Buffer(a) => commands::buffer::run(a),
        Command::Counters(c) => commands::counters::run(c),
        Command::Config(c) => commands::config::run(c),
        Command::Phase(a) => commands::phase::run(a),
        Command::Soc(c) => commands::soc::run(c),
    };
    if let Err(e) = result {
        eprintln!("error: {}", e.message);
        std::process::exit(e.code);
    }
}
