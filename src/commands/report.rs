//! `hwprof report`: a flat profile (rank, share, count, function, source line) from a
//! profiler's reports.

use super::{check_writable_file, print_json, write_error, CliError, CmdResult};
use hwprof_sim::eval::flat_profile::{
    flat_profile, only_mode, read_reports, FlatProfile, Row, TupleKind,
};
use hwprof_sim::eval::plot;
use hwprof_sim::eval::symbols::Symbolizer;
use std::path::PathBuf;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Csv,
    Json,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ModeArg {
    Value,
    Load,
    Edge,
    Branch,
}

#[derive(clap::Args)]
pub struct ReportArgs {
    /// Reports: JSON lines (`hwprof model --reports`, `soc run --out DIR`'s reports.jsonl), the
    /// JSON of `soc run --json`, or a text capture of report lines (a UART capture of a board,
    /// or a program's bus-readout printout); `-` reads stdin
    pub file: PathBuf,
    /// The profiled program's ELF: names addresses with functions and DWARF source lines (link
    /// addresses: a position-independent executable's run-time addresses do not match)
    #[arg(long)]
    pub elf: Option<PathBuf>,
    /// What the tuples of a text capture hold (default value); with JSON reports, which say it
    /// themselves, only this mode's rows
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Rows printed (all with 0); default 20 in a table, all in CSV and JSON
    #[arg(long)]
    pub top: Option<usize>,
    /// Draw the top tuples over the intervals as a heat map (SVG, or PNG by the file's extension)
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

pub fn run(a: ReportArgs) -> CmdResult {
    if let Some(p) = &a.plot {
        check_plot_path(p)?;
        check_writable_file(p)?;
    }
    let what = a.file.display().to_string();
    let text = if a.file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| CliError::input(format!("stdin: {e}")))?
    } else {
        std::fs::read_to_string(&a.file).map_err(|e| CliError::input(format!("{what}: {e}")))?
    };
    let mode = a.mode.map(|m| match m {
        ModeArg::Value => TupleKind::Value,
        ModeArg::Load => TupleKind::Load,
        ModeArg::Edge => TupleKind::Edge,
        ModeArg::Branch => TupleKind::Branch,
    });
    let mut lines =
        read_reports(&text, mode.unwrap_or(TupleKind::Value), &what).map_err(CliError::input)?;
    if let Some(m) = mode {
        lines = only_mode(lines, m);
    }
    let elf = match &a.elf {
        Some(p) => Some(Symbolizer::read(p).map_err(CliError::input)?),
        None => None,
    };
    let mut profile =
        flat_profile(&lines, elf.as_ref()).map_err(|e| CliError::input(format!("{what}: {e}")))?;
    if let Some(p) = &a.plot {
        let n = a.top.unwrap_or(20).clamp(1, 40).min(profile.rows.len());
        let labels: Vec<String> = profile.rows[..n].iter().map(label).collect();
        plot::heat_map(
            p,
            &format!("Top {n} tuples over intervals ({})", what),
            &labels,
            &profile.interval_numbers,
            &profile.per_interval[..n],
        )
        .map_err(|e| write_error(p, e))?;
    }
    let top = match (a.top, a.format) {
        (Some(0), _) => usize::MAX,
        (Some(n), _) => n,
        (None, Format::Table) => 20,
        (None, _) => usize::MAX,
    };
    profile.rows.truncate(top);
    match a.format {
        Format::Json => print_json(&profile),
        Format::Csv => print_csv(&profile),
        Format::Table => {
            print_table(&profile);
            Ok(())
        }
    }
}

fn check_plot_path(p: &std::path::Path) -> CmdResult {
    match p.extension().and_then(|e| e.to_str()) {
        Some("svg" | "png") => Ok(()),
        _ => Err(CliError::input(format!(
            "--plot {}: the file must end in .svg or .png",
            p.display()
        ))),
    }
}

/// A tuple's name on the heat map.
fn label(r: &Row) -> String {
    match (&r.to, &r.value_symbol, &r.value) {
        (Some(to), _, _) => format!("{} -> {}", r.function, to.function),
        (_, Some(s), _) => format!("{} [{s}]", r.function),
        (_, _, Some(v)) => format!("{} [{v}]", r.function),
        _ => format!("{} {:#x}", r.function, r.b),
    }
}

fn file_line(file: &str, line: u32) -> String {
    if file.is_empty() {
        "??:?".into()
    } else {
        let base = std::path::Path::new(file)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.to_string());
        format!("{base}:{line}")
    }
}

/// The tuple's second element as the table shows it.
fn second(r: &Row) -> String {
    if let Some(to) = &r.to {
        return format!("-> {} ({})", to.function, file_line(&to.file, to.line));
    }
    match (&r.value, &r.value_symbol) {
        (Some(v), Some(s)) => format!("{v} ({s})"),
        (Some(v), None) => v.clone(),
        _ => format!("{:#x}", r.b),
    }
}

fn print_table(p: &FlatProfile) {
    let events = match p.events {
        Some(e) => format!("{e} events"),
        None => "events per interval unknown: shares are of the reported counts".into(),
    };
    println!(
        "flat profile of {} reported intervals ({events})",
        p.intervals
    );
    let exact = p.rows.iter().any(|r| r.exact.is_some());
    print!(
        "{:>4} {:>5} {:>7} {:>10} {:>5}  {:<28} {:<20}",
        "rank", "mode", "%", "count", "ivals", "function", "file:line"
    );
    if exact {
        print!(" {:>10} {:>7}", "exact", "error");
    }
    println!("  {}", "with");
    for r in &p.rows {
        print!(
            "{:>4} {:>5} {:>6.2}% {:>10} {:>5}  {:<28} {:<20}",
            r.rank,
            r.mode.name(),
            r.share,
            r.count,
            r.intervals,
            r.function,
            file_line(&r.file, r.line)
        );
        if exact {
            match (r.exact, r.error) {
                (Some(x), Some(e)) => print!(" {x:>10} {:>+6.1}%", 100.0 * e),
                _ => print!(" {:>10} {:>7}", "-", "-"),
            }
        }
        println!("  {}", second(r));
    }
}

fn print_csv(p: &FlatProfile) -> CmdResult {
    let mut w = csv::Writer::from_writer(std::io::stdout());
    let fail = |e: csv::Error| CliError::failure(e.to_string());
    w.write_record([
        "rank",
        "mode",
        "share",
        "count",
        "intervals",
        "function",
        "file",
        "line",
        "a",
        "b",
        "to_function",
        "to_file",
        "to_line",
        "value_symbol",
        "exact",
        "error",
    ])
    .map_err(fail)?;
    for r in &p.rows {
        let opt = |v: Option<String>| v.unwrap_or_default();
        w.write_record([
            r.rank.to_string(),
            r.mode.name().to_string(),
            format!("{:.4}", r.share),
            r.count.to_string(),
            r.intervals.to_string(),
            r.function.clone(),
            r.file.clone(),
            r.line.to_string(),
            format!("{:#x}", r.a),
            format!("{:#x}", r.b),
            opt(r.to.as_ref().map(|t| t.function.clone())),
            opt(r.to.as_ref().map(|t| t.file.clone())),
            opt(r.to.as_ref().map(|t| t.line.to_string())),
            opt(r.value_symbol.clone()),
            opt(r.exact.map(|x| x.to_string())),
            opt(r.error.map(|e| format!("{e:.6}"))),
        ])
        .map_err(fail)?;
    }
    w.flush().map_err(|e| CliError::failure(e.to_string()))
}
