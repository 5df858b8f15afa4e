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
}

#[derive(Subcommand)]
enum Command {
    /// Run the multi-hash profiler model on a trace and report the paper's accuracy metric.
    Model(commands::model::ModelArgs),
    /// Record, convert and summarise event traces.
    #[command(subcommand)]
    Trace(commands::trace::TraceCommand),
    /// Profile buffer (Conte/Menezes) on a branch trace: arc error and contention.
    Buffer(commands::buffer::BufferArgs),
    /// The main job on the bundled trace: the paper preset against the single-hash profiler.
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
    /// Co-simulate the multi-hash profiler RTL (rust-hdl) against the model on a trace.
    Cosim(commands::cosim::CosimArgs),
    /// Export the multi-hash profiler's Verilog and a FuseSoC core for a configuration.
    Verilog(commands::verilog::VerilogArgs),
    /// Approximate counters (Morris, floating-point): the ISPASS study, Verilog, area.
    #[command(subcommand)]
    Counters(commands::counters::CountersCommand),
    /// Phase classifier on a trace: phases, CCoV against an offline reference, prediction.
    Phase(commands::phase::PhaseArgs),
}

fn main() {
    // Die quietly on a closed pipe (`hwprof trace stats X | head`) like other Unix tools,
    // instead of panicking inside println!.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Model(a) => commands::model::run(a),
        Command::Trace(c) => commands::trace::run(c),
        Command::Demo(a) => commands::demo::run(a),
        Command::Synth(a) => commands::synth::run(a),
        Command::Tools(c) => commands::synth::run_tools(c),
        Command::Bitstream(a) => commands::synth::run_bitstream(a),
        Command::Sweep(a) => commands::sweep::run_cmd(a),
        Command::Cosim(a) => commands::cosim::run(a),
        Command::Verilog(a) => commands::verilog::run(a),
        Command::Buffer(a) => commands::buffer::run(a),
        Command::Counters(c) => commands::counters::run(c),
        Command::Phase(a) => commands::phase::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {}", e.message);
        std::process::exit(e.code);
    }
}
