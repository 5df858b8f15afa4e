//! `hwprof counters`: the approximate-counter study (ISPASS 2021), Verilog of the counter banks,
//! and their area under Yosys.

use super::progress::{log_step, Progress};
use super::{check_writable_file, print_json, write_error, CliError, CmdResult};
use hwprof_sim::eval::counter_study::{box_plot_svg, run_study, KindResult};
use hwprof_sim::flow::counter_area::{check_bank_events, family_named, yosys_area, BankKind};
use hwprof_sim::flow::device::Family;
use hwprof_sim::hwprof_hdl::export;
use hwprof_sim::verify::ip::bank_files;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum CountersCommand {
    /// Relative error of Morris 6x5 (shared hardware source, ideal source), floating-point and
    /// exact counters over 29 events and many runs, and the correlation between events' estimates.
    Study(StudyArgs),
    /// Write the Verilog of a 29-event bank.
    Verilog(VerilogArgs),
    /// Synthesize the 29-event banks with Yosys (iCE40, ECP5) and report cells and flip-flops.
    Area(AreaArgs),
}

#[derive(clap::Args)]
pub struct StudyArgs {
    /// Runs (different seeds) per counter kind.
    #[arg(long, default_value_t = 50)]
    runs: usize,
    /// Base seed of every run's LFSR seeds and software sources.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON ({"kinds": [...]}, relative errors as fractions) instead of a table.
    #[arg(long)]
    json: bool,
    /// Write a box plot of the distributions (SVG).
    #[arg(long)]
    plot: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum BankArg {
    /// Morris 6x5 approximate counters with a hardware LFSR
    Morris,
    /// Floating-point approximate counters
    Float,
    /// Exact binary counters
    Exact,
}

impl From<BankArg> for BankKind {
    fn from(k: BankArg) -> Self {
        match k {
            BankArg::Morris => BankKind::Morris,
            BankArg::Float => BankKind::Float,
            BankArg::Exact => BankKind::Exact,
        }
    }
}

#[derive(clap::Args)]
pub struct VerilogArgs {
    /// The counter kind of the bank
    #[arg(long, value_enum)]
    kind: BankArg,
    /// Events in the bank: 29 (the paper's) or 1.
    #[arg(long, default_value_t = 29)]
    events: usize,
    /// Seed of the LFSR seeds.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output Verilog file (top module hwprof_<kind>_bank_<events>, its Verilator lint waivers
    /// inside it); beside it hwprof_<kind>_bank_<events>.core (FuseSoC: default and lint targets)
    #[arg(short, long)]
    out: PathBuf,
    /// Also write a self-checking testbench beside it (tb_hwprof_<kind>_bank_<events>.v: a
    /// bundled stimulus in, the model's estimates expected) and the core's `sim` target that runs
    /// it under Icarus
    #[arg(long)]
    testbench: bool,
    /// FPGA family the logic is mapped for: ice40 or ecp5 (the Morris counters decrement with
    /// toggles on iCE40, on the carry chain on ECP5, and the Morris bank's random source counts
    /// trailing zeros on a borrow chain on ECP5; the function is the same).
    #[arg(long, default_value = "ice40")]
    family: String,
}

#[derive(clap::Args)]
pub struct AreaArgs {
    /// Only this kind (default: all three).
    #[arg(long, value_enum)]
    kind: Option<BankArg>,
    /// ice40, ecp5, or both (default).
    #[arg(long)]
    family: Option<String>,
    /// Events in the bank: 29 (the paper's) or 1.
    #[arg(long, default_value_t = 29)]
    events: usize,
    /// Print JSON ({"areas": [...]}) instead of a table
    #[arg(long)]
    json: bool,
}

pub fn run(c: CountersCommand) -> CmdResult {
    match c {
        CountersCommand::Study(a) => study(a),
        CountersCommand::Verilog(a) => {
            check_events(a.events)?;
            let kind: BankKind = a.kind.into();
            let family = parse_family(&a.family)?;
            check_writable_file(&a.out)?;
            let file = a
                .out
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .ok_or_else(|| CliError::input(format!("-o {}: not a file", a.out.display())))?;
            let files = bank_files(kind, a.events, a.seed, family, &file, a.testbench)
                .map_err(CliError::failure)?;
            let dir = match a.out.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            export::write_files(&dir, &files)
                .map(drop)
                .map_err(|e| write_error(&a.out, e))
        }
        CountersCommand::Area(a) => area(a),
    }
}

fn study(a: StudyArgs) -> CmdResult {
    if a.runs == 0 {
        return Err(CliError::input("--runs must be at least 1"));
    }
    let spinner = Progress::spinner(format!("counter study: {} runs per kind", a.runs));
    let kinds = run_study(a.runs, a.seed).map_err(CliError::failure)?;
    spinner.finish();
    if let Some(p) = &a.plot {
        std::fs::write(p, box_plot_svg(&kinds)).map_err(|e| write_error(p, e))?;
    }
    if a.json {
        return print_json(&serde_json::json!({ "runs": a.runs, "events": 29, "kinds": kinds }));
    }
    print_table(&kinds, a.runs);
    Ok(())
}

fn print_table(kinds: &[KindResult], runs: usize) {
    println!("29 events, {runs} runs; relative error |estimate - n| / n");
    println!(
        "{:<54} {:>4} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>10} {:>10} {:>13}",
        "kind",
        "bits",
        "range",
        "min",
        "q1",
        "median",
        "mean",
        "q3",
        "max",
        "theory σ",
        "exact ≤",
        "1st err at",
        "corr mean/max"
    );
    for k in kinds {
        println!(
            "{:<54} {:>4} {:>9} {:>9.2e} {:>9.2e} {:>9.2e} {:>9.2e} {:>9.2e} {:>9.2e} {:>8} {:>10.3e} {:>10} {:>13}",
            k.name,
            k.bits_per_event,
            k.range,
            k.min,
            k.q1,
            k.median,
            k.mean,
            k.q3,
            k.max,
            k.theory_rel_std.map_or("-".into(), |t| format!("{t:.2e}")),
            k.exact_up_to as f64,
            k.first_error_at.map_or("none".into(), |f| f.to_string()),
            match (k.estimate_correlation, k.max_estimate_correlation) {
                (Some(m), Some(x)) => format!("{m:.2}/{x:.2}"),
                _ => "-".into(),
            }
        );
    }
    println!("paper (ISPASS 2021, Morris 6x5): mean 10-30 %, min < 5 %, max 40-120 %");
}

fn parse_family(f: &str) -> Result<Family, CliError> {
    family_named(f).map_err(|rule| CliError::input(format!("--family: {rule}")))
}

fn check_events(events: usize) -> CmdResult {
    check_bank_events(events).map_err(|rule| CliError::input(format!("--events: {rule}")))
}

fn area(a: AreaArgs) -> CmdResult {
    let kinds: Vec<BankKind> = match a.kind {
        Some(k) => vec![k.into()],
        None => BankKind::ALL.to_vec(),
    };
    let families: Vec<String> = match a.family.as_deref() {
        None => vec!["ice40".into(), "ecp5".into()],
        Some(f) => {
            parse_family(f)?;
            vec![f.into()]
        }
    };
    check_events(a.events)?;
    let mut rows = vec![];
    let tools = hwprof_sim::flow::tools::Preference::from_env().map_err(CliError::input)?;
    for k in kinds {
        for f in &families {
            let r = yosys_area(k, a.events, f, tools, &mut |l| log_step("counters", l))?;
            if !a.json {
                println!(
                    "{:<48} {:>2} events {:<6} storage {:>2} b/event  cells {:>6}  FFs {:>6}  LUT4 {:>6}  carry {:>5}",
                    r.kind, r.events, r.family, r.storage_bits_per_event, r.cells, r.flip_flops, r.luts, r.carries
                );
                for p in &r.parts {
                    println!(
                        "    {:<28} x{:<4} cells {:>6}  FFs {:>6}",
                        p.part, p.copies, p.cells, p.flip_flops
                    );
                }
            }
            rows.push(r);
        }
    }
    if a.json {
        print_json(&serde_json::json!({ "areas": rows }))?;
    }
    Ok(())
}
