//! `hwprof sweep`: a grid of configurations × traces on all cores, or cut into tasks for an
//! executor (this machine's processes, a Slurm job array), with peers, CSV/JSON and plots. The
//! work is in `hwprof_sim::eval::sweep` (runner, grid, [`shard`]) and `hwprof_sim::eval::plot`
//! (figures).

use super::executor::{exec_error, ExecutorArgs, ExecutorKind};
use super::progress::{log_step, Progress};
use super::{create_out_dir, load_trace, print_json, write_error, CliError, CmdResult, KindArg};
use hwprof_sim::eval::plot::sweep_figures;
use hwprof_sim::eval::sweep::shard::{self, ShardPlan};
use hwprof_sim::eval::sweep::{
    expand_grid, rank_by_worst, rows_by_point, run, trace_labels, CsvOutput, Job, PythonBench, Row,
    RunOptions, RunSummary, Subject, TraceInput, PRESETS,
};
use hwprof_sim::exec::{self, TaskCommand};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    command: Option<SweepCommand>,
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
    /// Output directory: sweep.csv, intervals.csv, sweep.json, plots/ (with --executor also the
    /// tasks; an existing one of the same sweep is resumed: completed tasks are skipped)
    #[arg(long, default_value = "sweep-out")]
    pub out: PathBuf,
    /// Worker threads without --executor (default: all cores)
    #[arg(long)]
    pub threads: Option<usize>,
    /// With --executor, one task per (grid point, trace), run by the executor and merged as the
    /// threaded sweep writes its rows
    #[command(flatten)]
    exec: ExecutorArgs,
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

#[derive(clap::Subcommand)]
enum SweepCommand {
    /// Merge the rows of a sweep run with --executor (CSV, JSON, figures); lists the failed tasks
    /// with their logs.
    Collect {
        /// The sweep's --out directory
        dir: PathBuf,
        /// Print the summary, the files and every row as one JSON object
        #[arg(long)]
        json: bool,
        /// Skip the figures
        #[arg(long)]
        no_plots: bool,
        /// Best configurations printed per trace and point
        #[arg(long, default_value_t = 5)]
        top: usize,
    },
    /// Run one task of a sweep directory (what the executors run).
    #[command(hide = true)]
    Task { dir: PathBuf, index: usize },
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
    match a.command {
        Some(SweepCommand::Task { dir, index }) => {
            let python = python_bench();
            let row = shard::run_task(&dir, index, python.clone());
            if let Some(py) = &python {
                let _ = std::fs::remove_dir_all(&py.scratch);
            }
            let row = row.map_err(CliError::failure)?;
            eprintln!(
                "task {index}: {} on {}: net error {:.3} %",
                row.config,
                row.trace,
                100.0 * row.net_error
            );
            return Ok(());
        }
        Some(SweepCommand::Collect {
            dir,
            json,
            no_plots,
            top,
        }) => return merge(&dir, json, no_plots, top, None),
        None => {}
    }
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
    if a.exec.executor.is_some() {
        return sharded(&a, &text, &source);
    }
    if let Some(name) = a.exec.any_given() {
        return Err(CliError::input(format!(
            "{name} is an option of --executor (without it the sweep runs on --threads)"
        )));
    }
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
    finish(&a.out, &rows, &summary, a.json, a.no_plots, a.top)?;
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

/// Writes sweep.json and the figures into `out` (beside the CSV files) and prints the rows.
fn finish(
    out: &Path,
    rows: &[Row],
    summary: &RunSummary,
    json: bool,
    no_plots: bool,
    top: usize,
) -> CmdResult {
    let io = |p: &Path, e: std::io::Error| CliError::failure(format!("{}: {e}", p.display()));
    let json_path = out.join("sweep.json");
    let doc = serde_json::json!({ "summary": summary, "rows": rows });
    std::fs::write(
        &json_path,
        serde_json::to_string_pretty(&doc).map_err(CliError::failure)?,
    )
    .map_err(|e| io(&json_path, e))?;
    let mut figures = Vec::new();
    if !no_plots && !rows.is_empty() {
        figures = sweep_figures(rows, &out.join("plots")).map_err(CliError::failure)?;
    }
    let files = [
        out.join(CsvOutput::ROWS_FILE),
        out.join(CsvOutput::INTERVALS_FILE),
        json_path.clone(),
    ];
    if json {
        print_json(&serde_json::json!({
            "summary": summary,
            "files": files,
            "figures": figures,
            "rows": rows,
            "by_worst_trace": rank_by_worst(rows),
        }))?;
    } else {
        print_best(rows, top);
        print_by_worst(rows, top);
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
            out.join("plots").display()
        );
    }
    Ok(())
}

/// The sweep as one task per (grid point, trace) in `a.out`, run by the executor, then merged.
fn sharded(a: &SweepArgs, text: &str, source: &str) -> CmdResult {
    let executor = a.exec.executor(ExecutorKind::Local)?;
    if a.threads.is_some() {
        return Err(CliError::input(
            "--threads is an option of the sweep without --executor (each task runs one row)",
        ));
    }
    if a.kind.len() > 1 && a.kind.len() != a.trace.len() {
        return Err(CliError::input(format!(
            "--kind: give one kind for all traces or one per trace ({} traces, {} kinds)",
            a.trace.len(),
            a.kind.len()
        )));
    }
    // Every trace is read here once, so that a bad one is refused before any task starts.
    let mut traces = Vec::new();
    for (i, p) in a.trace.iter().enumerate() {
        let kind = a.kind.get(i).or(a.kind.first()).copied();
        let reading = Progress::spinner(format!("reading {}", p.display()));
        load_trace(p, kind)?;
        reading.finish();
        traces.push((p.clone(), kind.map(Into::into)));
    }
    let python = python_bench();
    let plan = ShardPlan::new(text, source, &traces, python.is_some()).map_err(CliError::input)?;
    if let Some(py) = &python {
        // The tasks run elsewhere (another directory, another node of the shared filesystem):
        // they find the bench by these absolute paths, which they inherit.
        for (var, path) in [
            ("HWPROF_PYTHON", &py.python),
            (
                "HWPROF_BENCH_DIR",
                &py.script.parent().unwrap_or(Path::new(".")).to_path_buf(),
            ),
        ] {
            let abs = std::path::absolute(path).map_err(|e| write_error(path, e))?;
            std::env::set_var(var, abs);
        }
    }
    if python.is_none() {
        let skipped = expand_grid(text, source)
            .map_err(CliError::input)?
            .iter()
            .filter(|s| matches!(s, Subject::DataSketches { .. }))
            .count()
            * traces.len();
        if skipped > 0 {
            eprintln!(
                "note: {skipped} DataSketches rows skipped: no Python with `datasketches` (run scripts/venv.sh, or set HWPROF_PYTHON)"
            );
        }
    }
    create_out_dir(&a.out)?;
    let out = &a
        .out
        .canonicalize()
        .map_err(|e| CliError::input(format!("{}: {e}", a.out.display())))?;
    plan.install(out).map_err(CliError::input)?;
    let todo = shard::incomplete(out, &plan);
    let start = Instant::now();
    let progress = |l: &str| log_step("sweep", l);
    progress(&format!(
        "{} rows ({} configurations x {} traces), a task each: {} complete, {} to run ({:?}) -> {}",
        plan.tasks(),
        plan.tasks() / plan.traces.len(),
        plan.traces.len(),
        plan.tasks() - todo.len(),
        todo.len(),
        a.exec.executor.unwrap_or(ExecutorKind::Local),
        out.display()
    ));
    if !todo.is_empty() {
        let cmd = TaskCommand::this("sweep").map_err(CliError::failure)?;
        let total = todo.len();
        let mut done = 0;
        let report = |i: usize, ok: bool| {
            done += 1;
            let (t, _) = plan.jobs[i];
            progress(&format!(
                "{done}/{total} task {i} {} on {}: {}",
                plan.configs[i],
                plan.traces[t].label,
                exec::outcome(out, i, ok)
            ));
        };
        let complete = |i: usize| shard::complete(out, i);
        exec::run(
            out,
            &cmd,
            &todo,
            &executor,
            &complete,
            &mut |l: &str| progress(l),
            report,
        )
        .map_err(exec_error)?;
    }
    let threads = match executor {
        hwprof_sim::exec::Executor::Local { jobs } => jobs,
        hwprof_sim::exec::Executor::Slurm { .. } => 0,
    };
    merge(
        out,
        a.json,
        a.no_plots,
        a.top,
        Some((start.elapsed().as_secs_f64(), threads)),
    )
}

/// Merges a sharded sweep's rows into the threaded sweep's files and prints them; tasks without a
/// row make it exit 1 after the merge, each listed with its log. `run`: this invocation's wall
/// time and parallel tasks (0: Slurm's), for the summary.
fn merge(
    dir: &Path,
    json: bool,
    no_plots: bool,
    top: usize,
    run: Option<(f64, usize)>,
) -> CmdResult {
    let plan = ShardPlan::read(dir).map_err(CliError::input)?;
    let shard::Collected {
        rows,
        failed,
        pending,
        running,
    } = shard::collect(dir).map_err(CliError::failure)?;
    let mut csv = CsvOutput::create(dir).map_err(|e| write_error(dir, e))?;
    for r in &rows {
        csv.write(r).map_err(CliError::failure)?;
    }
    let events: u64 = rows.iter().map(|r| r.events).sum();
    // Merged later (`sweep collect`): the tasks' own time, and no parallelism known.
    let (seconds, threads) = run.unwrap_or((rows.iter().map(|r| r.seconds).sum(), 0));
    let summary = RunSummary {
        rows: rows.len(),
        jobs: plan.tasks(),
        skipped: vec![],
        interrupted: false,
        seconds,
        config_events_per_second: events as f64 / seconds.max(1e-9),
        threads,
    };
    finish(dir, &rows, &summary, json, no_plots, top)?;
    if failed.is_empty() && pending.is_empty() && running.is_empty() {
        return Ok(());
    }
    if !running.is_empty() {
        eprintln!("running: tasks {running:?} are still at work (collect again when they end)");
    }
    for f in &failed {
        eprintln!(
            "task {} ({} on {}) failed: {} (log {})",
            f.index,
            f.config,
            f.trace,
            f.error,
            f.log.display()
        );
    }
    Err(CliError::failure(format!(
        "{} of {} tasks have no row ({} failed, {} never ran, {} running); run the same command \
         again to run the failed and the never-run ones",
        failed.len() + pending.len() + running.len(),
        plan.tasks(),
        failed.len(),
        pending.len(),
        running.len()
    )))
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
