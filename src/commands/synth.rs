//! `hwprof synth`, `hwprof tools`, `hwprof bitstream`: thin wrappers of `hwprof_sim::flow`.

use super::progress::{log_step, Progress};
use super::{create_out_dir, print_json, CliError, CmdResult};
use hwprof_sim::flow::counter_area::{bank_design, BankKind, AREA_EVENTS};
use hwprof_sim::flow::device::{Board, Target};
use hwprof_sim::flow::tools::{self, Preference, Tool};
use hwprof_sim::flow::{self, Design, FlowError, FlowOptions, SynthResult};
use hwprof_sim::hwprof_hdl;
use hwprof_sim::hwprof_hdl::board::top;
use hwprof_sim::hwprof_hdl::profile_buffer::BufferConfig;
use std::path::{Path, PathBuf};

impl From<FlowError> for CliError {
    fn from(e: FlowError) -> Self {
        match e {
            FlowError::Input(m) => CliError::input(m),
            FlowError::Tool(m) => CliError::failure(m),
        }
    }
}

/// The hwprof blocks that can be synthesized on their own.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum BlockArg {
    /// The UART transmitter at 115200 baud from 12 MHz.
    UartTx,
    /// The on-chip LFSR event source.
    EventSource,
    /// The 29-event Morris 6x5 counter bank on the shared random source.
    Morris,
    /// The 29-event 30-bit floating-point counter bank on the shared random source.
    Float,
    /// The 29-event exact 64-bit counter bank.
    Exact,
}

#[derive(clap::Args)]
pub struct DesignArgs {
    /// A configuration (TOML): synthesizes the multi-hash profiler RTL (the phase classifier for
    /// a file with a [phase] table, the profile buffer for a file with `indexing`).
    #[arg(long, group = "design")]
    config: Option<PathBuf>,
    /// Any Verilog file (with --top).
    #[arg(long, group = "design", requires = "top")]
    verilog: Option<PathBuf>,
    /// One of hwprof's own blocks.
    #[arg(long, group = "design")]
    block: Option<BlockArg>,
    /// The top module of --verilog.
    #[arg(long)]
    top: Option<String>,
    /// Events per clock of the design, measured in simulation (gives events/s in the report).
    #[arg(long)]
    events_per_clock: Option<f64>,
    /// With --config: the block-RAM profiler rebuilt around a loop of bits (set associative,
    /// first replacement, no reset on promote) instead of the pipelined one.
    #[arg(long, requires = "config")]
    relation: bool,
}

#[derive(clap::Args)]
pub struct SynthArgs {
    #[command(flatten)]
    design: DesignArgs,
    /// ice40-up5k, ice40-hx8k, ecp5-25k, ecp5-85k; several separated by commas, or `all`.
    #[arg(long)]
    target: String,
    /// Clock constraint for nextpnr in MHz (default: the project's goal for the target:
    /// UP5K 40, HX8K 100, ECP5 150).
    #[arg(long)]
    freq: Option<f64>,
    /// nextpnr seeds (1..=N, run one after another): best and median Fmax.
    #[arg(long, default_value_t = 1)]
    seeds: u32,
    /// Output directory: result.json, result.md, Verilog, scripts and every tool log.
    #[arg(long)]
    out: PathBuf,
    /// Print the results as JSON on stdout instead of the table: a list, one object per target
    /// (also for a single target, so scripts read it one way); with --compare-baseline one
    /// comparison per target, each with both designs and the events per clock they were given.
    #[arg(long)]
    json: bool,
    /// Synthesize the simple baseline profiler of the same configuration beside it (needs
    /// --config): one table with area, Fmax, events/clock and events/s of both.
    #[arg(long)]
    compare_baseline: bool,
    /// Events of the co-simulation that measures events/clock of both designs
    /// (with --compare-baseline; a mixed adversarial stream built for the configuration).
    #[arg(long, default_value_t = flow::compare::DEFAULT_EVENTS)]
    compare_events: usize,
}

#[derive(clap::Subcommand)]
pub enum ToolsCommand {
    /// Create the project-local .venv with the pinned YoWASP packages (yosys, nextpnr-ice40,
    /// nextpnr-ecp5 with icepack and ecppack).
    Install,
    /// Show which tool would be used, and its version.
    Status {
        /// Print one JSON object: per tool, where it comes from, its path and version
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args)]
pub struct BitstreamArgs {
    /// icebreaker (iCE40UP5K-SG48) or ulx3s (LFE5U-85F-CABGA381).
    #[arg(long)]
    board: String,
    /// Output directory (bitstream.bin / bitstream.bit, logs, reports).
    #[arg(long)]
    out: PathBuf,
    /// The profiler configuration of the board top (default: configs/board-<board>.toml).
    #[arg(long, conflicts_with = "verilog")]
    config: Option<PathBuf>,
    /// Instead of the board top: a Verilog design whose ports are the board's pin names
    /// (see constraints/), with --top.
    #[arg(long, requires = "top")]
    verilog: Option<PathBuf>,
    /// The top module of --verilog.
    #[arg(long)]
    top: Option<String>,
    /// The clock the PLL makes from the board's oscillator, in MHz, and the constraint the design
    /// must meet (default: the board preset's, iCEBreaker 30, ULX3S 100; the oscillator's own
    /// frequency means no PLL). With --verilog: the constraint only (default: the oscillator's).
    #[arg(long)]
    clock_mhz: Option<f64>,
    /// nextpnr seeds; the best one is packed.
    #[arg(long, default_value_t = 1)]
    seeds: u32,
}

/// The board top's parameters at `clock_mhz` (default: the board's), refused with a message
/// when the PLL cannot make it.
pub(super) fn board_params(
    board: Board,
    clock_mhz: Option<f64>,
) -> Result<top::BoardParams, CliError> {
    let hz = match clock_mhz {
        None => board.default_clock_hz(),
        Some(f) if f.is_finite() && f > 0.0 && f < 1e4 => (f * 1e6).round() as u64,
        Some(f) => {
            return Err(CliError::input(format!(
                "--clock-mhz must be a positive number of MHz, got {f}"
            )))
        }
    };
    board
        .params(hz)
        .map_err(|e| CliError::input(format!("--clock-mhz for {}: {e}", board.name())))
}

pub(super) fn pref() -> Result<Preference, CliError> {
    Preference::from_env().map_err(CliError::input)
}

fn read_verilog(path: &Path, top: &str) -> Result<Design, CliError> {
    let verilog = std::fs::read_to_string(path)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", path.display())))?;
    Ok(Design {
        name: stem(path),
        verilog,
        top: top.to_string(),
        events_per_clock: None,
    })
}

/// The design to synthesize for `target` (hwprof's blocks map some logic per family; a profiler
/// configuration applies the target's hardware options).
fn design(a: &DesignArgs, target: Target) -> Result<Design, CliError> {
    let family = target.family();
    let mut d = if let Some(path) = &a.verilog {
        read_verilog(path, a.top.as_deref().unwrap_or_default())?
    } else if let Some(b @ (BlockArg::Morris | BlockArg::Float | BlockArg::Exact)) = a.block {
        let kind = match b {
            BlockArg::Morris => BankKind::Morris,
            BlockArg::Float => BankKind::Float,
            _ => BankKind::Exact,
        };
        bank_design(kind, AREA_EVENTS, family).map_err(CliError::failure)?
    } else if let Some(b) = a.block {
        let (name, verilog) = match b {
            BlockArg::UartTx => (
                "uart-tx",
                hwprof_hdl::board::uart::verilog(
                    hwprof_hdl::board::uart::clocks_per_bit(12_000_000, 115_200)
                        .map_err(CliError::failure)?,
                ),
            ),
            BlockArg::EventSource => (
                "event-source",
                hwprof_hdl::board::event_source::verilog(
                    hwprof_hdl::board::event_source::DEFAULT_SEED,
                ),
            ),
            BlockArg::Morris | BlockArg::Float | BlockArg::Exact => {
                unreachable!("counter banks are built above")
            }
        };
        Design {
            name: name.into(),
            verilog: verilog.map_err(CliError::failure)?,
            top: "top".into(),
            events_per_clock: None,
        }
    } else if let Some(path) = a.config.as_ref().filter(|p| is_phase_config(p)) {
        let cfg: hwprof_sim::hwprof_hdl::phase::PhaseConfig = super::load(path)?;
        config_design(path, move || hwprof_sim::hwprof_hdl::phase::verilog(&cfg))?
    } else if let Some(path) = a.config.as_ref().filter(|p| is_buffer_config(p)) {
        let cfg: BufferConfig = super::load(path)?;
        config_design(path, move || Ok(hwprof_hdl::profile_buffer::verilog(&cfg)))?
    } else if let Some(path) = &a.config {
        let cfg = super::load_config_for(path, Some(target))?;
        let (interval, entries) = (cfg.interval, cfg.entries as u64);
        let settings =
            hwprof_hdl::multihash::top::fixed_settings_ports(&cfg, "unused_flush_pending");
        let which = match a.relation {
            true => hwprof_hdl::multihash::Design::Relation,
            false => hwprof_hdl::multihash::Design::Pipelined,
        };
        let mut d = config_design(path, move || hwprof_hdl::multihash::verilog_of(&cfg, which))?;
        if a.events_per_clock.is_none() {
            let cycles = flow::throughput::profiler_cycles(interval, entries);
            progress(&format!("icarus: events per clock over {cycles} cycles"));
            d.events_per_clock = Some(
                flow::throughput::events_per_clock(&d.verilog, &d.top, &settings, cycles)
                    .map_err(CliError::failure)?,
            );
        }
        d
    } else {
        return Err(CliError::input(
            "say what to synthesize: --config FILE, --verilog FILE --top NAME, or --block NAME",
        ));
    };
    if let Some(e) = a.events_per_clock {
        if !(e.is_finite() && e > 0.0) {
            return Err(CliError::input(format!(
                "--events-per-clock must be positive, got {e}"
            )));
        }
        d.events_per_clock = Some(e);
    }
    Ok(d)
}

/// Whether a configuration file is the phase classifier's (it has a `[phase]` table).
pub(super) fn is_phase_config(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .is_ok_and(|t| hwprof_sim::hwprof_hdl::phase::PhaseConfig::is_phase_toml(&t))
}

/// Whether a configuration file is a counter bank's (it has a `[counters]` table).
pub(super) fn is_bank_config(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .is_ok_and(|t| hwprof_sim::flow::counter_area::BankConfig::is_bank_toml(&t))
}

/// Whether a configuration file is the profile buffer's (it has an `indexing` key).
pub(super) fn is_buffer_config(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| BufferConfig::is_buffer_toml(&t))
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or("design".into(), |s| s.to_string_lossy().into_owned())
}

/// The design of the configuration file `path` (named by its stem, top module `top`), its Verilog
/// made by `generate` on a large stack; a failure is the configuration's, so it names the file.
fn config_design(
    path: &Path,
    generate: impl FnOnce() -> Result<String, String> + Send,
) -> Result<Design, CliError> {
    let verilog = with_big_stack(generate)
        .map_err(|e| CliError::input(format!("config {}: {e}", path.display())))?;
    Ok(Design {
        name: stem(path),
        verilog,
        top: "top".into(),
        events_per_clock: None,
    })
}

/// rust-hdl's Verilog generation recurses deeply on large designs (a 1000-entry accumulator
/// overflows the default 8 MB main stack): run it on a thread with a large stack.
fn with_big_stack<T: Send>(f: impl FnOnce() -> Result<T, String> + Send) -> Result<T, String> {
    hwprof_hdl::util::on_rtl_thread(f)?
}

pub(super) fn targets(s: &str) -> Result<Vec<Target>, CliError> {
    if s == "all" {
        return Ok(Target::ALL.to_vec());
    }
    s.split(',')
        .map(|t| Target::parse(t.trim()).map_err(CliError::input))
        .collect()
}

fn progress(line: &str) {
    log_step("synth", line);
}

pub fn run(a: SynthArgs) -> CmdResult {
    let targets = targets(&a.target)?;
    if a.compare_baseline {
        return compare_baseline(&a, &targets);
    }
    create_out_dir(&a.out)?;
    let designs = targets
        .iter()
        .map(|&t| design(&a.design, t))
        .collect::<Result<Vec<_>, _>>()?;
    let several = targets.len() > 1;
    let mut results: Vec<SynthResult> = Vec::new();
    let spinner = Progress::spinner(format!("synthesizing {}", designs[0].name));
    for (t, design) in targets.into_iter().zip(&designs) {
        let opts = flow_options(&a, t, several)?;
        results.push(flow::run(design, &opts, &mut |l| spinner.step("synth", l))?);
    }
    spinner.finish();
    let refs: Vec<&SynthResult> = results.iter().collect();
    if several {
        std::fs::write(a.out.join("result.md"), flow::markdown(&refs))
            .map_err(|e| CliError::failure(format!("{}: {e}", a.out.display())))?;
    }
    if a.json {
        print_json(&results)
    } else {
        print!("{}", flow::table(&refs));
        println!("(results, Markdown and tool logs in {})", a.out.display());
        Ok(())
    }
}

fn flow_options(a: &SynthArgs, t: Target, several: bool) -> Result<FlowOptions, CliError> {
    Ok(FlowOptions {
        target: t,
        freq_mhz: a.freq.unwrap_or(t.goal_mhz()),
        seeds: a.seeds,
        out_dir: if several {
            a.out.join(t.name())
        } else {
            a.out.clone()
        },
        constraints: None,
        bitstream: false,
        tools: pref()?,
        clock_targets: Vec::new(),
        floorplan: None,
    })
}

/// `--compare-baseline`: both designs of the configuration on every target, one table.
fn compare_baseline(a: &SynthArgs, targets: &[Target]) -> CmdResult {
    use flow::compare;
    use hwprof_sim::verify::multihash::streams::{stream, StreamKind};
    let path = a.design.config.as_ref().ok_or_else(|| {
        CliError::input("--compare-baseline needs --config FILE (a profiler configuration)")
    })?;
    if a.design.events_per_clock.is_some() {
        return Err(CliError::input(
            "--compare-baseline measures events per clock itself: drop --events-per-clock",
        ));
    }
    if a.compare_events == 0 {
        return Err(CliError::input("--compare-events must be at least 1"));
    }
    // Each target's designs from the configuration as resolved for it (its `[target.*]`
    // hardware options), every one checked before any simulation.
    let mut resolved = Vec::new();
    for &t in targets {
        let cfg = super::load_config_for(path, Some(t))?;
        hwprof_hdl::multihash::entry_order(&cfg, hwprof_hdl::multihash::Design::Baseline)
            .map_err(|e| CliError::input(format!("config {}: {e}", path.display())))?;
        resolved.push((t, cfg));
    }
    let mut measured: Vec<(hwprof_hdl::ProfilerConfig, compare::Throughput)> = Vec::new();
    let mut cmps = Vec::new();
    for (t, cfg) in resolved {
        let tp = match measured.iter().find(|(c, _)| *c == cfg) {
            Some((_, tp)) => tp.clone(),
            None => {
                let events = stream(StreamKind::Mixed, &cfg, a.compare_events, 1);
                let tp = compare::throughput(&cfg, &events, &mut progress)?;
                measured.push((cfg.clone(), tp.clone()));
                tp
            }
        };
        let (p, b) = compare::designs(&cfg, &stem(path), &tp)?;
        let opts = flow_options(a, t, true)?;
        cmps.push(compare::compare(&p, &b, &tp, &opts, &mut progress)?);
    }
    std::fs::create_dir_all(&a.out)
        .and_then(|_| std::fs::write(a.out.join("compare.md"), compare::markdown(&cmps)))
        .map_err(|e| CliError::failure(format!("{}: {e}", a.out.display())))?;
    if a.json {
        print_json(&cmps)
    } else {
        print!("{}", compare::table(&cmps));
        let reports = cmps.iter().map(|c| c.throughput.reports_compared).min();
        println!(
            "(events/clock from a rust-hdl co-simulation of {} events against the model, {} \
             reports compared per design, 0 mismatches; results, Markdown and tool logs in {})",
            a.compare_events,
            reports.unwrap_or(0),
            a.out.display()
        );
        Ok(())
    }
}

pub fn run_tools(c: ToolsCommand) -> CmdResult {
    match c {
        ToolsCommand::Install => {
            let venv = tools::venv_dir();
            let spinner = Progress::spinner("installing the YoWASP synthesis tools");
            tools::install(&venv, |l| spinner.step("tools", l)).map_err(CliError::failure)?;
            spinner.finish();
            println!("installed into {}:", venv.display());
            status(Preference::Yowasp, false)
        }
        ToolsCommand::Status { json } => status(pref()?, json),
    }
}

fn status(p: Preference, json: bool) -> CmdResult {
    #[derive(serde::Serialize)]
    struct Entry {
        tool: &'static str,
        found: bool,
        source: Option<&'static str>,
        program: Option<PathBuf>,
        version: Option<String>,
        error: Option<String>,
    }
    let entries: Vec<Entry> = Tool::ALL
        .into_iter()
        .map(|t| match tools::find(t, p) {
            Ok(tp) => Entry {
                tool: t.name(),
                found: true,
                source: Some(if tp.yowasp { "yowasp" } else { "native" }),
                version: (!matches!(t, Tool::Icepack | Tool::Ecppack))
                    .then(|| tp.version())
                    .filter(|v| !v.is_empty()),
                program: Some(tp.program),
                error: None,
            },
            Err(e) => Entry {
                tool: t.name(),
                found: false,
                source: None,
                program: None,
                version: None,
                error: Some(e),
            },
        })
        .collect();
    let missing = entries.iter().filter(|e| !e.found).count();
    if json {
        return print_json(&serde_json::json!({ "tools": entries, "missing": missing }));
    }
    for e in &entries {
        match (&e.program, &e.error) {
            (Some(program), _) => println!(
                "{:<14} {} {}{}",
                e.tool,
                e.source.unwrap_or_default(),
                program.display(),
                e.version
                    .as_ref()
                    .map_or(String::new(), |v| format!("  ({v})"))
            ),
            (None, err) => println!("{:<14} missing: {}", e.tool, err.as_deref().unwrap_or("")),
        }
    }
    if missing > 0 {
        println!("{missing} tool(s) missing");
    }
    Ok(())
}

pub fn run_bitstream(a: BitstreamArgs) -> CmdResult {
    let board = Board::parse(&a.board).map_err(CliError::input)?;
    let root = tools::project_root().unwrap_or_else(|| PathBuf::from("."));
    // A design of one's own is timed at the oscillator unless told otherwise.
    let clock_mhz = match (&a.verilog, a.clock_mhz) {
        (Some(_), None) => Some(board.oscillator_hz() as f64 / 1e6),
        (_, c) => c,
    };
    let params = board_params(board, clock_mhz)?;
    let design = match &a.verilog {
        Some(path) => read_verilog(path, a.top.as_deref().unwrap_or_default())?,
        None => {
            let path = a
                .config
                .clone()
                .unwrap_or_else(|| root.join(format!("configs/board-{}.toml", board.name())));
            let cfg = super::load_config_for(&path, Some(board.target()))?;
            let p = params;
            let name = format!("{}-board", stem(&path));
            let module = hwprof_hdl::export::module_name(&name);
            let verilog = with_big_stack({
                let name = name.clone();
                move || top::exported(&cfg, &p, &name)
            })
            .map_err(|e| CliError::input(format!("config {}: {e}", path.display())))?;
            Design {
                name,
                verilog,
                top: module,
                events_per_clock: None,
            }
        }
    };
    let opts = FlowOptions {
        target: board.target(),
        freq_mhz: params.clock_hz as f64 / 1e6,
        seeds: a.seeds,
        out_dir: a.out.clone(),
        constraints: Some(root.join(board.constraints())),
        bitstream: true,
        tools: pref()?,
        clock_targets: Vec::new(),
        floorplan: None,
    };
    let r = flow::run(&design, &opts, &mut progress)?;
    print!("{}", flow::table(&[&r]));
    match &r.bitstream {
        Some(b) => {
            println!("bitstream: {}", b.display());
            Ok(())
        }
        None => Err(CliError::failure(format!(
            "no bitstream: the design does not fit {} ({})",
            board.name(),
            r.not_fit_reason.as_deref().unwrap_or("not placed")
        ))),
    }
}
