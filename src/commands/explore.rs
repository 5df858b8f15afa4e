//! `hwprof explore`: a sweep grid's configurations, each scored on traces and synthesized for
//! every target, on this machine or a Slurm cluster. The work is in `hwprof_sim::flow::explore`;
//! the figures come from `hwprof_sim::eval::plot`.

use super::executor::{cores, exec_error, ExecutorArgs, ExecutorKind};
use super::progress::log_step;
use super::{create_out_dir, print_json, CliError, CmdResult, KindArg};
use hwprof_sim::eval::plot::scatter;
use hwprof_sim::eval::trace::LackeyKind;
use hwprof_sim::exec::{self, task_dir, TaskCommand};
use hwprof_sim::flow::explore::{
    accuracies, collect, incomplete, run_task, write_merge, Collected, Plan, ROW_FILE,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ExploreArgs {
    #[command(subcommand)]
    command: Option<ExploreCommand>,
    /// Grid file: the keys of `hwprof sweep --grid` (sim/src/eval/sweep.rs), plus `hardware` and
    /// `[target.<name>]` options given to every configuration
    #[arg(long, required = true)]
    grid: Option<PathBuf>,
    /// Traces the model's accuracy is measured on (lackey logs with --kind, text or binary)
    #[arg(long, required = true, num_args = 1..)]
    trace: Vec<PathBuf>,
    /// How to read lackey logs: one kind for every trace, or one per trace in order
    #[arg(long, value_enum, num_args = 1..)]
    kind: Vec<KindArg>,
    /// ice40-up5k, ice40-hx8k, ecp5-25k, ecp5-85k; several separated by commas, or `all`
    #[arg(long, required = true)]
    target: Option<String>,
    /// nextpnr seeds per task (1..=N, inside the task): best and median Fmax
    #[arg(long, default_value_t = 1)]
    seeds: u32,
    /// Clock constraint for nextpnr in MHz (default: each target's goal, as `hwprof synth`)
    #[arg(long)]
    freq: Option<f64>,
    /// Exploration directory (plan, one directory per task, the merge); an existing one of the
    /// same exploration is resumed: completed tasks are skipped
    #[arg(long, required = true)]
    out: Option<PathBuf>,
    #[command(flatten)]
    exec: ExecutorArgs,
    /// Skip the figures
    #[arg(long)]
    no_plots: bool,
    /// Print {"rows": [...], "failed": [...], ...} instead of the Pareto tables
    #[arg(long)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum ExploreCommand {
    /// Merge the rows of an exploration directory (Pareto flags, tables, figures); lists the
    /// failed tasks with their logs.
    Collect {
        /// Exploration directory written by `hwprof explore --out`
        dir: PathBuf,
        /// Print {"rows": [...], "failed": [...], ...} instead of the Pareto tables
        #[arg(long)]
        json: bool,
        /// Skip the figures
        #[arg(long)]
        no_plots: bool,
    },
    /// Run one task of an exploration directory (what the executors run).
    #[command(hide = true)]
    Task { dir: PathBuf, index: usize },
}

fn progress(line: &str) {
    log_step("explore", line);
}

pub fn run(a: ExploreArgs) -> CmdResult {
    match a.command {
        Some(ExploreCommand::Task { dir, index }) => {
            let row =
                run_task(&dir, index, &mut |l| log_step("task", l)).map_err(CliError::failure)?;
            eprintln!(
                "task {index}: {} on {}: {} cells, Fmax {} MHz, error {:.3} %",
                row.config,
                row.target,
                row.cells,
                row.fmax_median_mhz
                    .map_or("-".into(), |f| format!("{f:.1}")),
                100.0 * row.net_error
            );
            Ok(())
        }
        Some(ExploreCommand::Collect {
            dir,
            json,
            no_plots,
        }) => merge(&dir, json, no_plots),
        None => explore(a),
    }
}

fn explore(a: ExploreArgs) -> CmdResult {
    let (Some(grid), Some(target), Some(out)) = (&a.grid, &a.target, &a.out) else {
        return Err(CliError::input("explore needs --grid, --target and --out"));
    };
    let executor = a.exec.executor(ExecutorKind::Local)?;
    if a.kind.len() > 1 && a.kind.len() != a.trace.len() {
        return Err(CliError::input(format!(
            "--kind: give one kind for all traces or one per trace ({} traces, {} kinds)",
            a.trace.len(),
            a.kind.len()
        )));
    }
    let targets = super::synth::targets(target)?;
    let text = std::fs::read_to_string(grid)
        .map_err(|e| CliError::input(format!("grid {}: {e}", grid.display())))?;
    let traces: Vec<(PathBuf, Option<LackeyKind>)> = a
        .trace
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let kind = a.kind.get(i).or(a.kind.first()).copied();
            (p.clone(), kind.map(Into::into))
        })
        .collect();
    let plan = Plan::new(
        &text,
        &grid.display().to_string(),
        &traces,
        &targets,
        a.seeds,
        a.freq,
    )
    .map_err(CliError::input)?;
    create_out_dir(out)?;
    let out = &out
        .canonicalize()
        .map_err(|e| CliError::input(format!("{}: {e}", out.display())))?;
    plan.install(out).map_err(CliError::input)?;
    let todo = incomplete(out, &plan);
    let start = Instant::now();
    progress(&format!(
        "{} configurations x {} targets = {} tasks, {} complete, {} to run ({:?}) -> {}",
        plan.points.len(),
        plan.targets.len(),
        plan.tasks(),
        plan.tasks() - todo.len(),
        todo.len(),
        a.exec.executor.unwrap_or(ExecutorKind::Local),
        out.display()
    ));
    if !todo.is_empty() {
        // The model's accuracy of every configuration, here on all cores: a bad trace or
        // --kind is found before any task starts, and the tasks only synthesize.
        let mut points: Vec<usize> = todo
            .iter()
            .map(|&i| plan.task(i).map(|t| t.0))
            .collect::<Result<_, _>>()
            .map_err(CliError::failure)?;
        points.dedup();
        progress(&format!(
            "model: accuracy of {} configurations on {} traces",
            points.len(),
            plan.traces.len()
        ));
        accuracies(out, &plan, &points, cores()).map_err(CliError::input)?;
        let cmd = TaskCommand::this("explore").map_err(CliError::failure)?;
        let total = todo.len();
        let mut done = 0;
        let report = |i: usize, ok: bool| {
            done += 1;
            let (p, t) = plan.task(i).unwrap_or((0, targets[0]));
            progress(&format!(
                "{done}/{total} task {i} {} on {}: {}",
                plan.points[p],
                t.name(),
                exec::outcome(out, i, ok)
            ));
        };
        let complete = |i: usize| task_dir(out, i).join(ROW_FILE).is_file();
        exec::run(
            out,
            &cmd,
            &todo,
            &executor,
            &complete,
            &mut progress,
            report,
        )
        .map_err(exec_error)?;
    }
    progress(&format!("{} s", start.elapsed().as_secs()));
    merge(out, a.json, a.no_plots)
}

/// The figure of each target: logic cells against error; the Pareto front, the other fitting
/// configurations and those that do not fit apart.
fn figures(dir: &Path, c: &Collected, targets: &[String]) -> Result<Vec<PathBuf>, CliError> {
    let mut files = Vec::new();
    for t in targets {
        let here: Vec<_> = c.rows.iter().filter(|r| &r.target == t).collect();
        if here.is_empty() {
            continue;
        }
        let pts =
            |keep: &dyn Fn(&&&hwprof_sim::flow::explore::ExploreRow) -> bool| -> Vec<(f64, f64)> {
                here.iter()
                    .filter(keep)
                    .map(|r| (r.cells as f64, 100.0 * r.net_error))
                    .collect()
            };
        // A row that does not fit is drawn as such even where the table counts it on the front
        // (nothing fitting is as accurate or as small): it cannot be built on this part.
        let series = vec![
            ("fits, dominated".to_string(), pts(&|r| r.fits && !r.pareto)),
            ("does not fit (Yosys LUT4s)".to_string(), pts(&|r| !r.fits)),
            (
                "Pareto front (error, cells, Fmax)".to_string(),
                pts(&|r| r.fits && r.pareto),
            ),
        ];
        files.extend(
            scatter(
                &dir.join("plots").join(format!("pareto-{t}")),
                &format!("{t}: net error against logic cells"),
                ("logic cells", "net error, worst trace (%)"),
                false,
                &series,
                None,
            )
            .map_err(CliError::failure)?,
        );
    }
    Ok(files)
}

fn merge(dir: &Path, json: bool, no_plots: bool) -> CmdResult {
    let plan = Plan::read(dir).map_err(CliError::input)?;
    let c = collect(dir).map_err(CliError::failure)?;
    let mut files = write_merge(dir, &c, &plan.targets).map_err(CliError::failure)?;
    if !no_plots {
        files.extend(figures(dir, &c, &plan.targets)?);
    }
    if json {
        print_json(&serde_json::json!({
            "tasks": c.tasks,
            "rows": c.rows,
            "failed": c.failed,
            "pending": c.pending,
            "running": c.running,
            "files": files,
        }))?;
    } else {
        for t in &plan.targets {
            println!("{}", hwprof_sim::flow::explore::pareto_markdown(&c.rows, t));
        }
        println!(
            "{} of {} rows; wrote {}",
            c.rows.len(),
            c.tasks,
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for f in &c.failed {
        eprintln!(
            "failed: task {} ({} on {}): {} (log {})",
            f.index,
            f.config,
            f.target,
            f.error,
            f.log.display()
        );
    }
    if !c.pending.is_empty() {
        eprintln!(
            "pending: tasks {:?} never started (run the same `hwprof explore` again)",
            c.pending
        );
    }
    if !c.running.is_empty() {
        eprintln!(
            "running: tasks {:?} are still at work (collect again when they end)",
            c.running
        );
    }
    if c.failed.is_empty() && c.pending.is_empty() && c.running.is_empty() {
        Ok(())
    } else {
        Err(CliError::failure(format!(
            "{} of {} tasks without a row (the rows of the others are merged); run the same \
             `hwprof explore` again to retry the failed and pending ones",
            c.failed.len() + c.pending.len() + c.running.len(),
            c.tasks
        )))
    }
}
