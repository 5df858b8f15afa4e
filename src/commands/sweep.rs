//! `hwprof sweep`: a grid of configurations × traces on all cores, with peers, CSV/JSON and plots.
//! The work is in `hwprof_sim::eval::sweep` (runner, grid) and `hwprof_sim::eval::plot` (figures).

use super::progress::Progress;
use super::{create_out_dir, load_trace, print_json, write_error, CliError, CmdResult, KindArg};
use hwprof_sim::eval::plot::sweep_figures;
use hwprof_sim::eval::sweep::{
    expand_grid, rank_by_worst, rows_by_point, run, trace_labels, CsvOutput, Job, PythonBench, Row,
    RunOptions, Subject, TraceInput, PRESETS,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(clap::Args)]
pub struct SweepArgs {
    /// Traces (lackey logs with --kind, text or binary; .gz read transparently); traces with the
    /// same file stem are labelled by their parent directory too
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
    /// Print the summary (with its wall time), the files written and every row as one JSON object
    #[arg(long)]
    pub json: bool,
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
    create_out_dir(&a.out)?;
    let labels = trace_labels(&a.trace);
    let mut traces = Vec::new();
    for (i, p) in a.trace.iter().enumerate() {
        let reading = Progress::spinner(format!("reading {}", p.display()));
        let kind = a.kind.get(i).or(a.kind.first()).copied();
        let events = load_trace(p, kind)?;
        reading.finish();
        traces.push(TraceInput {
            name: labels[i].clone(),
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
    let mut csv = CsvOutput::create(&a.out).map_err(|e| write_error(&a.out, e))?;
    let progress = Progress::bar(jobs.len() as u64, "rows");
    progress.note(&format!(
        "sweep: {} rows ({} configurations x {} traces) on {threads} threads -> {}",
        jobs.len(),
        subjects.len(),
        traces.len(),
        a.out.display()
    ));
    let opts = RunOptions {
        threads,
        stop: stop.clone(),
        python: python.clone(),
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut write_err = None;
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
        |d, _| progress.set_position(d as u64),
    );
    progress.finish();
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
    let files = [
        a.out.join(CsvOutput::ROWS_FILE),
        a.out.join(CsvOutput::INTERVALS_FILE),
        json_path.clone(),
    ];
    if a.json {
        print_json(&serde_json::json!({
            "summary": summary,
            "files": files,
            "figures": figures,
            "rows": rows,
            "by_worst_trace": rank_by_worst(&rows),
        }))?;
    } else {
        print_best(&rows, a.top);
        print_by_worst(&rows, a.top);
        // Wall time and speed stay out of the text, which people diff; they are in sweep.json.
        println!(
            "{} rows{}",
            summary.rows,
            if summary.interrupted {
                " (interrupted)"
            } else {
                ""
            }
        );
        println!(
            "wrote {}, {}, {}, {} figures in {}",
            files[0].display(),
            files[1].display(),
            files[2].display(),
            figures.len(),
            a.out.join("plots").display()
        );
    }
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

/// " seed=N" for a profiler row (its hashes' seed), nothing for a peer.
fn seed_suffix(scheme: &str, seed: u64) -> String {
    if scheme.ends_with("-hash") {
        format!(" seed={seed}")
    } else {
        String::new()
    }
}

/// With several traces: per point, the configurations ranked by their worst trace (the top
/// profilers, then every peer).
fn print_by_worst(rows: &[Row], top: usize) {
    let ranked = rank_by_worst(rows);
    let Some(n) = ranked.first().map(|g| g.traces).filter(|&n| n > 1) else {
        return;
    };
    let mut points: Vec<(u64, u64)> = ranked.iter().map(|g| (g.interval, g.threshold)).collect();
    points.dedup();
    for (l, t) in points {
        println!("all {n} traces, ranked by the worst  L={l} T={t}");
        let here = ranked
            .iter()
            .filter(|g| (g.interval, g.threshold) == (l, t));
        let prof = here
            .clone()
            .filter(|g| g.scheme.ends_with("-hash"))
            .take(top);
        let peers = here.filter(|g| !g.scheme.ends_with("-hash"));
        for g in prof.chain(peers) {
            let seed = seed_suffix(&g.scheme, g.seed);
            println!(
                "  worst {:>8.3} % ({})  mean {:>8.3} %  {:>7} bits  {}{seed}",
                100.0 * g.worst,
                g.worst_trace,
                100.0 * g.mean,
                g.memory_bits,
                g.config
            );
        }
    }
}

/// The best rows per trace and point, and every peer.
fn print_best(rows: &[Row], top: usize) {
    for ((trace, l, t), mut here) in rows_by_point(rows) {
        println!("{trace}  L={l} T={t}");
        here.sort_by(|a, b| a.net_error.total_cmp(&b.net_error));
        let prof = here
            .iter()
            .filter(|r| r.scheme.ends_with("-hash"))
            .take(top);
        let peers = here.iter().filter(|r| !r.scheme.ends_with("-hash"));
        for r in prof.chain(peers) {
            let seed = seed_suffix(&r.scheme, r.seed);
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
