//! `hwprof soc`: real RISC-V programs on PicoRV32 with the profilers on its retire stream.

use super::{check_writable_file, load_config, print_json, write_error, CliError, CmdResult};
use hwprof_hdl::ConfigFile;
use hwprof_sim::eval::plot;
use hwprof_sim::hwprof_hdl::phase::PhaseConfig;
use hwprof_sim::hwprof_hdl::profile_buffer::BufferConfig;
use hwprof_sim::hwprof_hdl::tap::Policy;
use hwprof_sim::hwprof_hdl::ProfilerConfig;
use hwprof_sim::soc::board::{self, Board, BoardRunOptions, BoardSystem, Mode};
use hwprof_sim::soc::cpu::Cpu;
use hwprof_sim::soc::programs::{self, Program, ProgramSource, PROGRAMS};
use hwprof_sim::soc::run::{
    run as run_soc, ModeResult, RunOptions, SocRun, DEFAULT_BUFFER, DEFAULT_PHASE,
    DEFAULT_PROFILER, DEFAULT_REPORT_FIFO,
};
use hwprof_sim::soc::system::Readout;
use hwprof_sim::soc::system::DEFAULT_MAX_INSTRUCTIONS;
use hwprof_sim::soc::SocError;
use hwprof_sim::verify::icarus::Simulator;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum SocCommand {
    /// Build a program, run it on PicoRV32 or SERV under Verilator (or Icarus) with, behind RVFI
    /// taps, the multi-hash profiler in value mode (<pc, loaded value>) and edge mode (<pc, next
    /// pc>), the profile buffer on its conditional branches and the phase classifier on its control
    /// transfers, and compare every block's output with its model's on the events it took
    Run(RunArgs),
    /// The programs `soc run` knows
    List,
    /// Run a program on the board system in simulation: PicoRV32 with the multi-hash profiler on
    /// its retire stream and the reports on the UART; the UART transcript is decoded and compared
    /// with the model's reports on the dumped retire stream
    Board(BoardArgs),
    /// Synthesize the board system with a program in its RAM, and make the bitstream
    Bitstream(BitstreamArgs),
    /// Turn a UART capture of the board system (or any hwprof board top) into reports
    Decode(DecodeArgs),
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ModeArg {
    /// <pc, loaded value> of every retired load
    Value,
    /// <pc, next pc> of every retired control transfer
    Edge,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Value => Mode::Value,
            ModeArg::Edge => Mode::Edge,
        }
    }
}

/// The program to run: a bundled one, C sources, or an ELF (exactly one).
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["program", "c", "elf"])))]
pub struct ProgramArgs {
    /// A bundled program: dhrystone, sieve, multest, stats (PicoRV32 package), sort, crc, matmul,
    /// hash (`soc list`)
    #[arg(long)]
    pub program: Option<String>,
    /// C files built with hwprof's start-up code and runtime: `int main(void)` returns the exit
    /// status; freestanding headers (stdint.h, stddef.h) and the console's soc.h
    #[arg(long = "c", value_name = "FILE.c", num_args = 1..)]
    pub c: Vec<PathBuf>,
    /// More compiler flags for --c, split like a shell's words (e.g. "-O0 -DN=10")
    #[arg(long, value_name = "FLAGS", requires = "c", allow_hyphen_values = true)]
    pub cflags: Option<String>,
    /// An ELF linked for the memory map: 32-bit little-endian RISC-V, entry 0, loadable
    /// segments in the RAM from address 0
    #[arg(long, value_name = "FILE")]
    pub elf: Option<PathBuf>,
}

impl ProgramArgs {
    /// The program source, checked against `short`.
    fn source(&self, short: bool) -> Result<ProgramSource, CliError> {
        let source = if let Some(name) = &self.program {
            ProgramSource::Bundled(Program::parse(name).map_err(cli_error)?)
        } else if let Some(elf) = &self.elf {
            ProgramSource::Elf(elf.clone())
        } else {
            let cflags = match &self.cflags {
                Some(f) => shell_words::split(f)
                    .map_err(|e| CliError::input(format!("--cflags {f:?}: {e}")))?,
                None => Vec::new(),
            };
            ProgramSource::C {
                files: self.c.clone(),
                cflags,
            }
        };
        if short && !source.has_short_input() {
            return Err(CliError::input(format!(
                "--short: {} has no short input (dhrystone, the kernels sort, crc, matmul, hash and --c programs have)",
                source.name()
            )));
        }
        Ok(source)
    }
}

#[derive(clap::Args)]
pub struct SystemArgs {
    /// Board: icebreaker (program in the SPI flash, RAM in SPRAM, RV32I) or ulx3s (program in
    /// block RAM, RV32IM)
    #[arg(long)]
    pub board: String,
    /// The CPU (SERV: RV32I on both boards)
    #[arg(long, value_enum, default_value = "picorv32")]
    pub cpu: CpuArg,
    #[command(flatten)]
    pub program: ProgramArgs,
    /// Profiler configuration (TOML); default configs/soc-bram.toml on the ulx3s,
    /// configs/soc-icebreaker.toml on the icebreaker
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// What the tap feeds the profiler
    #[arg(long, value_enum, default_value = "value")]
    pub mode: ModeArg,
    /// The kernels' short inputs
    #[arg(long)]
    pub short: bool,
    /// How the reports leave: uart (a line formatter sends them on the UART, stalling the CPU
    /// while it does) or bus (the profiler's Wishbone slave on the CPU's bus: the program's
    /// start-up code drains it and prints the reports on its console, the UART, after main)
    #[arg(long, value_enum, default_value = "uart")]
    pub readout: BoardReadoutArg,
    /// With --readout bus: report words the slave's FIFO holds, a power of two (default 8192 on
    /// the ulx3s: the program drains it after main, or on its interrupt when it runs short of
    /// room for a report; one report on the icebreaker, whose block RAMs the profiler fills: a
    /// report writer moves the words into the program's RAM on the CPU's idle memory clocks)
    #[arg(long, value_name = "WORDS")]
    pub report_fifo: Option<u32>,
    /// The profiler, its line formatter and the UART on a clock of their own, made by the
    /// board's PLL, behind the tap's asynchronous FIFO; the CPU stays on the oscillator (with
    /// --readout uart; in simulation both clocks are the oscillator's)
    #[arg(long = "async")]
    pub asynchronous: bool,
    /// With --async: the profiler's clock in MHz (default 50 on the ulx3s, 18 on the icebreaker)
    #[arg(long, value_name = "MHZ", requires = "asynchronous")]
    pub profiler_mhz: Option<f64>,
}

#[derive(clap::Args)]
pub struct BoardArgs {
    #[command(flatten)]
    pub system: SystemArgs,
    /// External simulator (default: verilator; icarus runs the iCEBreaker's flash and iCE40 cells
    /// on PicoSoC's and Yosys's own models)
    #[arg(long, value_enum)]
    pub simulator: Option<SimArg>,
    /// Hottest tuples listed
    #[arg(long, default_value_t = 8)]
    pub top: usize,
    /// Write the UART transcript to FILE
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,
    /// Stop a program that has not exited after N retired instructions (the profile covers them)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_INSTRUCTIONS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_instructions: u64,
    /// One JSON object: instructions, cycles, cycles_unprofiled and perturbation (the same program
    /// on the system without the profiler), events, reports, mismatches, the profile
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct BitstreamArgs {
    #[command(flatten)]
    pub system: SystemArgs,
    /// Also synthesize the system without the profiler, formatter and UART (the CPU alone) and
    /// print both: the area the profiler adds
    #[arg(long)]
    pub compare_cpu: bool,
    /// nextpnr seeds (1..=N): best and median Fmax; the bitstream is the best seed's
    #[arg(long, default_value_t = 1)]
    pub seeds: u32,
    /// Output directory (bitstream, Verilog, logs, result.json)
    #[arg(long)]
    pub out: PathBuf,
    /// result.json's content on stdout
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct DecodeArgs {
    /// The capture (a terminal log of the UART); `-` reads stdin
    pub file: PathBuf,
    /// Name the tuples' program counters with the symbols of this ELF (`soc bitstream` writes
    /// the program's to OUT/program/)
    #[arg(long)]
    pub elf: Option<PathBuf>,
    /// One JSON array of reports: interval and entries (a, b, count)
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ReadoutArg {
    Stream,
    Bus,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum BoardReadoutArg {
    Uart,
    Bus,
}

impl From<BoardReadoutArg> for Readout {
    fn from(r: BoardReadoutArg) -> Self {
        match r {
            BoardReadoutArg::Uart => Readout::Uart,
            BoardReadoutArg::Bus => Readout::Bus,
        }
    }
}

impl From<ReadoutArg> for Readout {
    fn from(r: ReadoutArg) -> Self {
        match r {
            ReadoutArg::Stream => Readout::Stream,
            ReadoutArg::Bus => Readout::Bus,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SimArg {
    Verilator,
    Icarus,
}

#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub program: ProgramArgs,
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
    #[command(flatten)]
    pub tap: TapArgs,
    /// Stop a program that has not exited after N retired instructions (reported as stopped;
    /// the profiles cover them)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_INSTRUCTIONS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_instructions: u64,
    /// Keep the program (DIR/program.elf) and the hardware's reports of both modes
    /// (DIR/reports.jsonl, for `hwprof report`)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// How the profiler's reports leave the system: `stream` (the testbench captures them) or
    /// `bus` (a Wishbone slave on the CPU's bus; the program's start-up code drains it on its
    /// interrupt and prints the reports after main; also runs the system without the blocks
    /// for the cost in cycles, `perturbation`)
    #[arg(long, value_enum, default_value = "stream")]
    pub readout: ReadoutArg,
    /// With --readout bus: report words each slave's FIFO holds, a power of two; software drains
    /// it after main, or on its interrupt at half full (at a cost in cycles)
    #[arg(long, value_name = "WORDS", default_value_t = DEFAULT_REPORT_FIFO)]
    pub report_fifo: u32,
    /// One JSON object: instructions, cycles, events, reports, mismatches, cpu, dropped,
    /// clock_ratio, readout, cycles_unprofiled and perturbation (bus readout) and per-mode
    /// details (with the hardware's reports)
    #[arg(long)]
    pub json: bool,
}

/// How the blocks sit on the CPU's retire stream.
#[derive(clap::Args)]
pub struct TapArgs {
    /// The CPU
    #[arg(long, value_enum, default_value = "picorv32")]
    pub cpu: CpuArg,
    /// When a tap's FIFO fills: stall the CPU (lossless) or drop the event (counted; the CPU is
    /// never touched)
    #[arg(long, value_enum, default_value = "stall")]
    pub policy: PolicyArg,
    /// The blocks on a clock of their own behind asynchronous FIFOs (Gray-coded pointers)
    #[arg(long = "async")]
    pub asynchronous: bool,
    /// Clock frequencies, blocks : CPU, with --async (e.g. 2:1, 1:3, 5:7); default 1:1
    #[arg(long, value_name = "P:C", requires = "asynchronous", value_parser = parse_ratio)]
    pub clock_ratio: Option<(u32, u32)>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum CpuArg {
    /// PicoRV32, RV32IM
    Picorv32,
    /// SERV, bit-serial RV32I
    Serv,
}

impl From<CpuArg> for Cpu {
    fn from(c: CpuArg) -> Cpu {
        match c {
            CpuArg::Picorv32 => Cpu::PicoRv32,
            CpuArg::Serv => Cpu::Serv,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum PolicyArg {
    Stall,
    Drop,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Policy {
        match p {
            PolicyArg::Stall => Policy::Stall,
            PolicyArg::Drop => Policy::Drop,
        }
    }
}

/// `P:C`, two positive integers of at most 1000.
fn parse_ratio(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{s:?}: expected P:C, two positive integers up to 1000 (e.g. 2:1, 5:7)");
    let (p, c) = s.split_once(':').ok_or_else(bad)?;
    let p: u32 = p.trim().parse().map_err(|_| bad())?;
    let c: u32 = c.trim().parse().map_err(|_| bad())?;
    if !(1..=1000).contains(&p) || !(1..=1000).contains(&c) {
        return Err(bad());
    }
    Ok((p, c))
}

impl TapArgs {
    /// The clock ratio (1:1 unless given; with --async still two clocks, their edges offset).
    fn ratio(&self) -> (u32, u32) {
        self.clock_ratio.unwrap_or((1, 1))
    }
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
        SocCommand::Board(a) => run_board(a),
        SocCommand::Bitstream(a) => run_bitstream(a),
        SocCommand::Decode(a) => run_decode(a),
    }
}

/// The board system's profiler configuration, with the hardware options of the board's part.
fn profiler_config(path: &Option<PathBuf>, board: Board) -> Result<ProfilerConfig, CliError> {
    let cfg = match path {
        Some(p) => load_config(p)?,
        None => {
            let (source, text) = board::default_config(board);
            super::built_in_config(source, text)?
        }
    };
    Ok(cfg.for_target(board.target().name()))
}

/// The profiler's own clock in Hz with `--async` (`--profiler-mhz` or the board's default).
fn profiler_clock_hz(a: &SystemArgs, board: Board) -> Result<Option<u64>, CliError> {
    if !a.asynchronous {
        return Ok(None);
    }
    match a.profiler_mhz {
        None => Ok(Some(board::default_profiler_clock_hz(board))),
        Some(m) if m.is_finite() && (1.0..=1000.0).contains(&m) => {
            Ok(Some((m * 1e6).round() as u64))
        }
        Some(m) => Err(CliError::input(format!(
            "--profiler-mhz {m}: must be 1 to 1000 MHz"
        ))),
    }
}

/// The checked arguments shared by `soc board` and `soc bitstream`.
fn system_args(a: &SystemArgs) -> Result<(BoardSystem, ProgramSource, ProfilerConfig), CliError> {
    let board = Board::parse(&a.board).map_err(CliError::input)?;
    let program = a.program.source(a.short)?;
    let cfg = profiler_config(&a.config, board)?;
    let system = BoardSystem {
        board,
        cpu: a.cpu.into(),
        mode: a.mode.into(),
        readout: a.readout.into(),
        report_fifo: a
            .report_fifo
            .unwrap_or_else(|| board::default_report_fifo(board, &cfg)),
        profiler_clock_hz: profiler_clock_hz(a, board)?,
    };
    if a.report_fifo.is_some() && system.readout != Readout::Bus {
        return Err(CliError::input(
            "--report-fifo sizes the bus readout's FIFO: it needs --readout bus",
        ));
    }
    system.check(&cfg).map_err(cli_error)?;
    Ok((system, program, cfg))
}

fn run_board(a: BoardArgs) -> CmdResult {
    let (system, program, cfg) = system_args(&a.system)?;
    if let Some(t) = &a.transcript {
        check_writable_file(t)?;
    }
    let r = board::run(&BoardRunOptions {
        system,
        program,
        cfg,
        simulator: match a.simulator {
            Some(SimArg::Verilator) | None => Simulator::Verilator,
            Some(SimArg::Icarus) => Simulator::Icarus,
        },
        short: a.system.short,
        top: a.top,
        max_instructions: a.max_instructions,
        compare_unprofiled: true,
    })
    .map_err(cli_error)?;
    if let Some(t) = &a.transcript {
        std::fs::write(t, &r.transcript).map_err(|e| write_error(t, e))?;
    }
    if a.json {
        print_json(&r)?;
    } else {
        println!(
            "{}{} on the {} system with {} ({:?} mode): {} instructions, {} cycles, {} stall cycles; {} simulation {:.1} s",
            r.program,
            if r.short { " (short)" } else { "" },
            r.board.name(),
            r.cpu.name(),
            r.mode,
            r.instructions,
            r.cycles,
            r.stall_cycles,
            r.simulator,
            r.simulation_seconds
        );
        println!(
            "UART: {} bytes, {} lines (simulated at {} clocks per bit)",
            r.uart_bytes, r.uart_lines, r.uart_clocks_per_bit
        );
        if let Some(hz) = r.profiler_clock_hz {
            println!(
                "the profiler, its formatter and the UART on a clock of their own: {} MHz beside the CPU's {} MHz",
                hz as f64 / 1e6,
                r.board.oscillator_hz() as f64 / 1e6
            );
        }
        if let (Some(u), Some(p)) = (r.cycles_unprofiled, r.perturbation) {
            println!(
                "{} readout: {}{} cycles, {u} without the profiler: perturbation {p:.4}",
                r.readout.name(),
                if r.readout == Readout::Bus {
                    "main took "
                } else {
                    ""
                },
                r.cycles
            );
        }
        print_end(r.exit_code, r.stopped_at_limit, r.instructions);
        if !r.console.is_empty() {
            print!("console:\n{}", r.console);
        }
        println!("profiler: {}", r.configuration);
        print_mode(
            match r.readout {
                Readout::Bus => "reports the program read over the bus and printed",
                _ => "reports decoded from the UART",
            },
            &r.profile,
        );
    }
    if r.mismatches != 0 {
        return Err(CliError::failure(format!(
            "{} intervals differ between the UART's reports and the model's",
            r.mismatches
        )));
    }
    Ok(())
}

fn run_bitstream(a: BitstreamArgs) -> CmdResult {
    use hwprof_sim::flow::{self, FlowOptions};
    let (system, program, cfg) = system_args(&a.system)?;
    let board = system.board;
    super::create_out_dir(&a.out)?;
    let root = hwprof_sim::flow::tools::project_root().unwrap_or_else(|| PathBuf::from("."));
    let work = a.out.join("program");
    std::fs::create_dir_all(&work).map_err(|e| write_error(&work, e))?;
    let mut results = Vec::new();
    for profiler in if a.compare_cpu {
        vec![false, true]
    } else {
        vec![true]
    } {
        let design = board::design(&system, &cfg, &program, a.system.short, profiler, &work)
            .map_err(cli_error)?;
        let opts = FlowOptions {
            target: board.target(),
            freq_mhz: board.oscillator_hz() as f64 / 1e6,
            seeds: a.seeds,
            out_dir: a.out.join(&design.name),
            constraints: Some(root.join(board.constraints())),
            bitstream: profiler,
            tools: super::synth::pref()?,
            clock_targets: match system.profiler_pll().map_err(cli_error)? {
                Some(pll) if profiler => vec![(
                    board::PROFILER_CLOCK_NET.into(),
                    pll.out_hz(board.oscillator_hz()) as f64 / 1e6,
                )],
                _ => Vec::new(),
            },
            floorplan: if profiler {
                board::profiler_floorplan(&system)
            } else {
                None
            },
        };
        results.push(flow::run(&design, &opts, &mut |l: &str| {
            super::progress::log_step("soc", l)
        })?);
    }
    if a.json {
        print_json(&results)?;
    } else {
        print!("{}", flow::table(&results.iter().collect::<Vec<_>>()));
        if system.profiler_clock_hz.is_some() {
            print_clock_domains(&results);
        }
    }
    let full = results.last().expect("the full system is synthesized");
    match &full.bitstream {
        Some(b) => {
            if !a.json {
                if board::shape(board).flash {
                    println!(
                        "bitstream: {}; the program (boot stub and image) for the flash: {} (iceprog -o 1M)",
                        b.display(),
                        work.join("flash.bin").display()
                    );
                } else {
                    println!("bitstream: {} (the program is in it)", b.display());
                }
            }
            Ok(())
        }
        None => Err(CliError::failure(format!(
            "no bitstream: the system does not fit the {} ({})",
            board.name(),
            full.not_fit_reason.as_deref().unwrap_or("not placed")
        ))),
    }
}

/// With the profiler on its own clock: each design's clock domains (median Fmax over the seeds)
/// and, beside the CPU alone, the ratio of the CPU's domains.
fn print_clock_domains(results: &[hwprof_sim::flow::SynthResult]) {
    use hwprof_sim::flow::report::median;
    let is_profiler = |c: &str| hwprof_sim::flow::is_clock_of(c, board::PROFILER_CLOCK_NET);
    let cpu_median = |r: &hwprof_sim::flow::SynthResult| {
        r.fmax_per_clock
            .iter()
            .find(|(c, _)| !is_profiler(c))
            .and_then(|(_, f)| median(f))
    };
    for r in results {
        let domains: Vec<String> = r
            .fmax_per_clock
            .iter()
            .map(|(c, f)| {
                let who = if is_profiler(c) { "profiler" } else { "CPU" };
                format!("{who} ({c}) {:.1} MHz", median(f).unwrap_or(0.0))
            })
            .collect();
        println!(
            "{}: median Fmax per clock domain: {}",
            r.design,
            domains.join(", ")
        );
    }
    if let [alone, full] = results {
        if let (Some(a), Some(b)) = (cpu_median(alone), cpu_median(full)) {
            println!(
                "the CPU's clock domain with the profiler / alone: {b:.1} / {a:.1} MHz = {:.3}",
                b / a
            );
        }
    }
}

fn run_decode(a: DecodeArgs) -> CmdResult {
    use std::io::Read as _;
    let mut text = String::new();
    if a.file.as_os_str() == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CliError::input(format!("stdin: {e}")))?;
    } else {
        text = std::fs::read_to_string(&a.file)
            .map_err(|e| CliError::input(format!("{}: {e}", a.file.display())))?;
    }
    let reports =
        board::decode(&text).map_err(|e| CliError::input(format!("{}: {e}", a.file.display())))?;
    let symbols = a
        .elf
        .as_deref()
        .map(programs::symbols)
        .transpose()
        .map_err(cli_error)?;
    if a.json {
        return print_json(&reports);
    }
    for r in &reports {
        println!("interval {}: {} tuples", r.interval, r.entries.len());
        for e in &r.entries {
            let name = symbols
                .as_ref()
                .map_or(String::new(), |s| format!("  {}", s.name(e.a)));
            println!("  {:>9}  {:08x} {:08x}{name}", e.count, e.a, e.b);
        }
    }
    Ok(())
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

/// How the program ended, when that is news: stopped at the limit, or a nonzero exit status (a
/// bundled program's is an error before this).
fn print_end(exit_code: Option<u32>, stopped: bool, instructions: u64) {
    if stopped {
        println!(
            "stopped at --max-instructions after {instructions} instructions (it had not exited)"
        );
    }
    if let Some(c) = exit_code.filter(|&c| c != 0) {
        println!("exit status {c}");
    }
}

fn run_program(a: RunArgs) -> CmdResult {
    let program = a.program.source(a.short)?;
    let built_in = |(source, _): (&str, &str)| format!("{source} (built in)");
    let cfg = match &a.config {
        Some(p) => load_config(p)?,
        None => super::built_in_config(DEFAULT_PROFILER.0, DEFAULT_PROFILER.1)?,
    };
    let buffer = match &a.buffer_config {
        Some(p) => super::load(p)?,
        None => BufferConfig::from_toml_str(DEFAULT_BUFFER.1, &built_in(DEFAULT_BUFFER))
            .map_err(CliError::input)?,
    };
    let phase = match &a.phase_config {
        Some(p) => super::load(p)?,
        None => PhaseConfig::from_toml_str(DEFAULT_PHASE.1, &built_in(DEFAULT_PHASE))
            .map_err(CliError::input)?,
    };
    let plot_stem = a.phase_plot.as_deref().map(plot_stem).transpose()?;
    if let Some(out) = &a.out {
        super::create_out_dir(out)?;
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
        cpu: a.tap.cpu.into(),
        policy: a.tap.policy.into(),
        asynchronous: a.tap.asynchronous,
        ratio: a.tap.ratio(),
        max_instructions: a.max_instructions,
        out: a.out.clone(),
        readout: a.readout.into(),
        report_fifo: a.report_fifo,
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
    if r.stopped_at_limit {
        println!(
            "stopped after {} instructions (--max-instructions): the program had not ended",
            r.instructions
        );
    }
    println!(
        "{}{} on {}: {} instructions, {} cycles (CPI {:.2}), {} stall cycles; {} simulation {:.1} s ({:.0} instructions/s)",
        r.program,
        if r.short { " (short)" } else { "" },
        r.cpu.name(),
        r.instructions,
        r.cycles,
        r.cycles as f64 / r.instructions.max(1) as f64,
        r.stall_cycles,
        r.simulator,
        r.simulation_seconds,
        r.instructions_per_second
    );
    if let (Some(u), Some(p)) = (r.cycles_unprofiled, r.perturbation) {
        println!(
            "bus readout: main took {} cycles, {u} without the profilers: perturbation {p:.4}",
            r.cycles
        );
    }
    println!(
        "taps: policy {}, clock ratio blocks:CPU {}, {} events dropped",
        r.policy.name(),
        r.clock_ratio,
        r.dropped
    );
    for e in &r.tap_errors {
        println!("  MISMATCH {e}");
    }
    print_end(r.exit_code, r.stopped_at_limit, r.instructions);
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
