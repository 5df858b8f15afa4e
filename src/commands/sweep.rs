//! `hwprof sweep`: a grid of configurations × traces on all cores, with peers, CSV/JSON and plots.
//! The work is in `hwprof_sim::eval::sweep` (runner, grid) and `hwprof_sim::eval::plot` (figures).

use super::{load_trace, CliError, CmdResult, KindArg};
use hwprof_sim::eval::plot::sweep_figures;
use hwprof_sim::eval::sweep::{
    expand_grid, run, CsvOutput, Job, PythonBench, Row, RunOptions, Subject, TraceInput, PRESETS,
};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
pub struct SweepArgs {
    /// Traces (lackey logs with --kind, text or binary; .gz read transparently)
    #[arg(long, required = true, num_args = 1..)]
    pub trace: Vec<PathBuf>,
    /// How to read lackey logs: one kind for every trace, or one per trace in order
    #[arg(long, value_enum, num_args = 1..)]
    pub kind: Vec<KindArg>,
    /// Grid file (TOML; keys documented in sim/src/eval/sweep.rs)
    #[arg(long, conflicts_with = "preset", required_unless_present = "preset")]
    pub grid: Option<PathBuf>,
    /// Built-in grid: paper (Fig. 10-12 + peers), frontier-1m, frontier-10k
    #[arg(long)]
    pub preset: Option<String>,
    /// Output directory: sweep.csv, intervals.csv, sweep.json, plots/
    #[arg(long, default_value = "sweep-out")]
    pub out: PathBuf,
    /// Worker threads (default: all cores)
    #[arg(long)]
    pub threads: Option<usize>,
    /// Skip the figures
    #[arg(long)]
    pub no_plots: bool,
    /// Best configurations printed per trace and point
    #[arg(long, default_value_t = 5)]
    pub top: usize,
}

fn trace_name(p: &Path) -> String {
    let mut n = p
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    for ext in [".gz", ".lackey", ".hwpt", ".txt", ".bin"] {
        if let Some(s) = n.strip_suffix(ext) {
            n = s.to_string();
        }
    }
    n
}

fn python_bench() -> Option<PythonBench> {
    let python = std::env::var_os("HWPROF_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(".venv/bin/python"));
    let script = std::env::var_os("HWPROF_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("bench"))
        .join("datasketches_peer.py");
    let ok = script.is_file()
        && std::process::Command::new(&python)
            .args(["-c", "import datasketches"])
            .output()
            .is_ok_and(|o| o.status.success());
    ok.then(|| PythonBench {
        python,
        script,
        scratch: std::env::temp_dir().join(format!("hwprof-sweep-{}", std::process::id())),
    })
}

/// A one-line progress bar on stderr (redrawn in place on a terminal, every 10 % otherwise).
struct Progress {
    start: Instant,
    tty: bool,
    last_decile: usize,
}

impl Progress {
    fn show(&mut self, done: usize, total: usize) {
        let secs = self.start.elapsed().as_secs_f64();
        let eta = if done > 0 {
            secs / done as f64 * (total - done) as f64
        } else {
            0.0
        };
        let width = 30;
        let fill = done * width / total.max(1);
        let line = format!(
            "[{}{}] {done}/{total} rows  {secs:.1} s  eta {eta:.0} s",
            "#".repeat(fill),
            " ".repeat(width - fill)
        );
        if self.tty {
            eprint!("\r{line}");
            if done == total {
                eprintln!();
            }
        } else if done * 10 / total.max(1) > self.last_decile || done == total {
            self.last_decile = done * 10 / total.max(1);
            eprintln!("{line}");
        }
    }
}

pub fn run_cmd(a: SweepArgs) -> CmdResult {
    let (text, source) = match (&a.grid, &a.preset) {
        (Some(g), _) => (
            std::fs::read_to_string(g)
                .map_err(|e| CliError::input(format!("grid {}: {e}", g.display())))?,
            g.display().to_string(),
        ),
        (None, Some(p)) => {
            let t = PRESETS.iter().find(|(n, _)| n == p).ok_or_else(|| {
                CliError::input(format!(
                    "--preset: unknown preset {p:?}; known: {}",
                    PRESETS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
                ))
            })?;
            (t.1.to_string(), format!("preset {p}"))
        }
        (None, None) => return Err(CliError::input("give --grid FILE or --preset NAME")),
    };
    let subjects = expand_grid(&text, &source).map_err(CliError::input)?;
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if threads == 0 {
        return Err(CliError::input("--threads must be at least 1"));
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // First Ctrl-C: finish cleanly with the rows done; a second one exits at once (the CSV
        // already holds every finished row).
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!(
                "\ninterrupted: stopping, keeping the finished rows (Ctrl-C again to quit now)"
            );
        });
    }
    if a.kind.len() > 1 && a.kind.len() != a.trace.len() {
        return Err(CliError::input(format!(
            "--kind: give one kind for all traces or one per trace ({} traces, {} kinds)",
            a.trace.len(),
            a.kind.len()
        )));
    }
    let mut traces = Vec::new();
    for (i, p) in a.trace.iter().enumerate() {
        eprintln!("reading {}", p.display());
        let kind = a.kind.get(i).or(a.kind.first()).copied();
        let events = load_trace(p, kind)?;
        traces.push(TraceInput {
            name: trace_name(p),
            events: Arc::new(events),
        });
    }
    let python = python_bench();
    let mut skipped = 0;
    let jobs: Vec<Job> = traces
        .iter()
        .enumerate()
        .flat_map(|(i, _)| subjects.iter().map(move |s| (i, s)))
        .filter(|(_, s)| {
            let keep = python.is_some() || !matches!(s, Subject::DataSketches { .. });
            skipped += (!keep) as usize;
            keep
        })
        .map(|(trace, s)| Job {
            trace,
            subject: s.clone(),
        })
        .collect();
    if skipped > 0 {
        eprintln!(
            "note: {skipped} DataSketches rows skipped: no Python with `datasketches` (run scripts/venv.sh, or set HWPROF_PYTHON)"
        );
    }
    std::fs::create_dir_all(&a.out)
        .map_err(|e| CliError::failure(format!("{}: {e}", a.out.display())))?;
    let mut csv = CsvOutput::create(&a.out).map_err(CliError::failure)?;
    eprintln!(
        "sweep: {} rows ({} configurations x {} traces) on {threads} threads -> {}",
        jobs.len(),
        subjects.len(),
        traces.len(),
        a.out.display()
    );
    let opts = RunOptions {
        threads,
        stop: stop.clone(),
        python: python.clone(),
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut write_err = None;
    let mut progress = Progress {
        start: Instant::now(),
        tty: std::io::stderr().is_terminal(),
        last_decile: 0,
    };
    let result = run(
        &traces,
        &jobs,
        &opts,
        |r| {
            if let Err(e) = csv.write(r) {
                write_err.get_or_insert(e);
            }
            rows.push(r.clone());
        },
        |d, t| progress.show(d, t),
    );
    if let Some(py) = &python {
        let _ = std::fs::remove_dir_all(&py.scratch);
    }
    if let Some(e) = write_err {
        return Err(CliError::failure(e));
    }
    let summary = result.map_err(CliError::failure)?;
    let io = |p: &Path, e: std::io::Error| CliError::failure(format!("{}: {e}", p.display()));
    let json_path = a.out.join("sweep.json");
    let json = serde_json::json!({ "summary": summary, "rows": rows });
    std::fs::write(
        &json_path,
        serde_json::to_string_pretty(&json).map_err(CliError::failure)?,
    )
    .map_err(|e| io(&json_path, e))?;
    let mut figures = Vec::new();
    if !a.no_plots && !rows.is_empty() {
        figures = sweep_figures(&rows, &a.out.join("plots")).map_err(CliError::failure)?;
    }
    print_best(&rows, a.top);
    println!(
        "{} rows in {:.1} s on {} threads: {:.1} M configuration-events/s{}",
        summary.rows,
        summary.seconds,
        summary.threads,
        summary.config_events_per_second / 1e6,
        if summary.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    );
    println!(
        "wrote {}, {}, {}, {} figures in {}",
        a.out.join(CsvOutput::ROWS_FILE).display(),
        a.out.join(CsvOutput::INTERVALS_FILE).display(),
        json_path.display(),
        figures.len(),
        a.out.join("plots").display()
    );
    if summary.interrupted {
        return Err(CliError {
            code: 130,
            message: format!(
                "interrupted: {} of {} rows finished and kept",
                summary.rows, summary.jobs
            ),
        });
    }
    Ok(())
}

/// The best rows per trace and point, and every peer.
fn print_best(rows: &[Row], top: usize) {
    let mut keys: Vec<(String, u64, u64)> = rows
        .iter()
        .map(|r| (r.trace.clone(), r.interval, r.threshold))
        .collect();
    keys.sort();
    keys.dedup();
    for (trace, l, t) in keys {
        println!("{trace}  L={l} T={t}");
        let mut here: Vec<&Row> = rows
            .iter()
            .filter(|r| r.trace == trace && r.interval == l && r.threshold == t)
            .collect();
        here.sort_by(|a, b| a.net_error.total_cmp(&b.net_error));
        let prof = here
            .iter()
            .filter(|r| r.scheme.ends_with("-hash"))
            .take(top);
        let peers = here.iter().filter(|r| !r.scheme.ends_with("-hash"));
        for r in prof.chain(peers) {
            let seed = if r.scheme.ends_with("-hash") {
                format!(" seed={}", r.seed)
            } else {
                String::new()
            };
            println!(
                "  {:>8.3} %  P {:.3} R {:.3}  {:>7} bits  {}{seed}",
                100.0 * r.net_error,
                r.precision,
                r.recall,
                r.memory_bits,
                r.config
            );
        }
    }
}
