//! A sweep cut into tasks for an executor ([`crate::exec`]: child processes or one Slurm job
//! array): one task per (grid point, trace), the same jobs in the same order as the threaded
//! sweep ([`super::run`]), so the merged rows are the rows it gives (but `seconds`).
//!
//! A task is `hwprof sweep task DIR INDEX`. Layout of DIR:
//!
//! | path | what |
//! |---|---|
//! | `sweep-plan.json` | the grid's text, the traces (absolute paths), whether DataSketches rows are run, the jobs; a re-run must give the same plan |
//! | `tasks/<i>/row.json` | task i's row with its per-interval errors, written by renaming a finished file: present means complete |
//! | `tasks/<i>/task.log` | everything task i printed |
//! | `sweep.csv`, `intervals.csv`, `sweep.json`, `plots/` | the merge, as the threaded sweep writes them |

use super::{
    expand_grid, run, trace_labels, Job, PythonBench, Row, RunOptions, Subject, TraceInput,
};
use crate::eval::trace::{read_trace_full, LackeyKind, STDIN};
use crate::exec::{io, is_running, task_dir, why, write_atomic, RunningMark, LOG_FILE};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub const PLAN_FILE: &str = "sweep-plan.json";
pub const ROW_FILE: &str = "row.json";

/// A trace of a sharded run: a file every task opens by itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanTrace {
    pub path: PathBuf,
    pub label: String,
    /// How to read a lackey log (`load`, `edge`, `branch`).
    pub kind: Option<String>,
}

impl PlanTrace {
    /// The traces as absolute paths with their labels; standard input is refused (the tasks
    /// could not read it).
    pub fn of(traces: &[(PathBuf, Option<LackeyKind>)]) -> Result<Vec<PlanTrace>, String> {
        let paths: Vec<PathBuf> = traces.iter().map(|t| t.0.clone()).collect();
        let labels = trace_labels(&paths);
        let mut out = Vec::new();
        for ((path, kind), label) in traces.iter().zip(labels) {
            if path == Path::new(STDIN) {
                return Err(
                    "--trace -: tasks read their traces from files; standard input cannot be shared"
                        .into(),
                );
            }
            let path = path
                .canonicalize()
                .map_err(|e| format!("trace {}: {e}", path.display()))?;
            out.push(PlanTrace {
                path,
                label,
                kind: kind.map(|k| k.name().to_string()),
            });
        }
        Ok(out)
    }
}

/// Reads the traces of a plan.
pub fn load_traces(traces: &[PlanTrace]) -> Result<Vec<TraceInput>, String> {
    traces
        .iter()
        .map(|t| {
            let kind = t.kind.as_deref().and_then(LackeyKind::parse);
            let events = read_trace_full(&t.path, kind).map_err(|e| e.to_string())?;
            Ok(TraceInput {
                name: t.label.clone(),
                events: Arc::new(events.events),
            })
        })
        .collect()
}

/// What a sharded sweep runs: written once into DIR, read by every task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardPlan {
    pub grid: String,
    pub grid_source: String,
    pub traces: Vec<PlanTrace>,
    /// DataSketches rows are run (the submitting machine had the Python bench; so must the nodes).
    pub datasketches: bool,
    /// Task i's (trace, subject of the grid), trace by trace as the threaded sweep orders them.
    pub jobs: Vec<(usize, usize)>,
    /// Each task's subject summary, for messages.
    pub configs: Vec<String>,
}

impl ShardPlan {
    /// A plan of the grid `text` over `traces`; `datasketches` false leaves those rows out (the
    /// caller says so). Errors are the input's.
    pub fn new(
        text: &str,
        source: &str,
        traces: &[(PathBuf, Option<LackeyKind>)],
        datasketches: bool,
    ) -> Result<ShardPlan, String> {
        if traces.is_empty() {
            return Err("--trace: give at least one trace".into());
        }
        let subjects = expand_grid(text, source)?;
        let traces = PlanTrace::of(traces)?;
        let mut jobs = Vec::new();
        let mut configs = Vec::new();
        for t in 0..traces.len() {
            for (s, subject) in subjects.iter().enumerate() {
                if datasketches || !matches!(subject, Subject::DataSketches { .. }) {
                    jobs.push((t, s));
                    configs.push(subject.summary());
                }
            }
        }
        Ok(ShardPlan {
            grid: text.to_string(),
            grid_source: source.to_string(),
            traces,
            datasketches,
            jobs,
            configs,
        })
    }

    pub fn tasks(&self) -> usize {
        self.jobs.len()
    }

    /// Writes the plan into `dir`; a directory holding another plan is refused.
    pub fn install(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(PLAN_FILE);
        if path.exists() {
            if ShardPlan::read(dir)? != *self {
                return Err(format!(
                    "{} holds another sweep (its {PLAN_FILE} differs: grid, traces or DataSketches \
                     rows); give another --out, or remove it",
                    dir.display()
                ));
            }
            return Ok(());
        }
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        write_atomic(&path, &text)
    }

    pub fn read(dir: &Path) -> Result<ShardPlan, String> {
        let path = dir.join(PLAN_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            io(
                &path,
                format!("{e} (not a sharded sweep's directory: `hwprof sweep --executor … --out` makes one)"),
            )
        })?;
        serde_json::from_str(&text).map_err(|e| io(&path, e))
    }
}

/// A task's result: the row and what the row's serialization leaves out.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct TaskRow {
    row: Row,
    per_interval: Vec<f64>,
}

fn read_row(dir: &Path, i: usize) -> Result<Row, String> {
    let path = task_dir(dir, i).join(ROW_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
    let t: TaskRow = serde_json::from_str(&text).map_err(|e| io(&path, e))?;
    Ok(Row {
        per_interval: t.per_interval,
        job: i,
        ..t.row
    })
}

/// Whether task `i` left its row.
pub fn complete(dir: &Path, i: usize) -> bool {
    read_row(dir, i).is_ok()
}

/// The tasks of the plan in `dir` without a row.
pub fn incomplete(dir: &Path, plan: &ShardPlan) -> Vec<usize> {
    (0..plan.tasks()).filter(|&i| !complete(dir, i)).collect()
}

/// Runs task `index` of the sharded sweep in `dir` (nothing if its row is there) and writes its
/// row. `python`: the DataSketches bench on this machine.
pub fn run_task(dir: &Path, index: usize, python: Option<PythonBench>) -> Result<Row, String> {
    let plan = ShardPlan::read(dir)?;
    if let Ok(row) = read_row(dir, index) {
        return Ok(row);
    }
    let _running = RunningMark::new(dir, index)?;
    let &(t, s) = plan
        .jobs
        .get(index)
        .ok_or_else(|| format!("task {index}: the sweep has tasks 0..{}", plan.tasks()))?;
    let subject = expand_grid(&plan.grid, &plan.grid_source)?
        .into_iter()
        .nth(s)
        .ok_or_else(|| format!("task {index}: the grid has no subject {s}"))?;
    if matches!(subject, Subject::DataSketches { .. }) && python.is_none() {
        return Err(format!(
            "task {index}: a DataSketches row needs the Python bench on this machine (scripts/venv.sh, or HWPROF_PYTHON)"
        ));
    }
    let traces = load_traces(&plan.traces[t..=t])?;
    let opts = RunOptions {
        threads: 1,
        stop: Arc::new(AtomicBool::new(false)),
        python,
    };
    let mut rows = Vec::new();
    run(
        &traces,
        &[Job { trace: 0, subject }],
        &opts,
        |r| rows.push(r.clone()),
        |_, _| {},
    )?;
    let row = rows
        .pop()
        .ok_or_else(|| format!("task {index}: the run gave no row"))?;
    let text = serde_json::to_string_pretty(&TaskRow {
        per_interval: row.per_interval.clone(),
        row: row.clone(),
    })
    .map_err(|e| e.to_string())?;
    let tdir = task_dir(dir, index);
    std::fs::create_dir_all(&tdir).map_err(|e| io(&tdir, e))?;
    write_atomic(&tdir.join(ROW_FILE), &text)?;
    Ok(Row { job: index, ..row })
}

/// A task that ran and left no row.
#[derive(Debug, Clone, Serialize)]
pub struct FailedShard {
    pub index: usize,
    pub trace: String,
    pub config: String,
    pub log: PathBuf,
    /// The log's `error:` line, or its last line.
    pub error: String,
}

/// The merge of a sharded sweep's directory: the rows, in task order, and the tasks without one.
#[derive(Debug, Default)]
pub struct Collected {
    pub rows: Vec<Row>,
    /// They ran and left a log.
    pub failed: Vec<FailedShard>,
    /// They never started.
    pub pending: Vec<usize>,
    /// They are still at work ([`crate::exec::is_running`]).
    pub running: Vec<usize>,
}

/// The rows in `dir` and the tasks without one.
pub fn collect(dir: &Path) -> Result<Collected, String> {
    let plan = ShardPlan::read(dir)?;
    let mut out = Collected::default();
    let (rows, failed, pending) = (&mut out.rows, &mut out.failed, &mut out.pending);
    for i in 0..plan.tasks() {
        match read_row(dir, i) {
            Ok(r) => rows.push(r),
            Err(_) if is_running(dir, i) => out.running.push(i),
            Err(e) => {
                let log = task_dir(dir, i).join(LOG_FILE);
                if log.is_file() {
                    failed.push(FailedShard {
                        index: i,
                        trace: plan.traces[plan.jobs[i].0].label.clone(),
                        config: plan.configs[i].clone(),
                        error: if task_dir(dir, i).join(ROW_FILE).is_file() {
                            e
                        } else {
                            why(&log)
                        },
                        log,
                    });
                } else {
                    pending.push(i);
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_give_the_threaded_sweeps_rows() {
        let dir = std::env::temp_dir().join(format!("hwprof-shard-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Two traces in the binary format the traces module writes.
        let mut paths = Vec::new();
        for (k, seed) in [(0, 3u64), (1, 4)] {
            let events = super::super::tests::synthetic(30_000, seed);
            let p = dir.join(format!("t{k}.bin"));
            crate::eval::trace::write_trace(&p, &events).unwrap();
            paths.push((p, None));
        }
        let grid = "points = [{ interval = 5000, threshold = \"2%\" }]\ntables = [1, 2]\nentries = [64, 128]\ncounter_bits = [12]\n";
        let plan = ShardPlan::new(grid, "g.toml", &paths, false).unwrap();
        assert_eq!(plan.tasks(), 8, "4 configurations x 2 traces");
        plan.install(&dir).unwrap();
        assert_eq!(incomplete(&dir, &plan).len(), 8);
        for i in [0, 5, 7] {
            run_task(&dir, i, None).unwrap();
        }
        assert_eq!(incomplete(&dir, &plan), vec![1, 2, 3, 4, 6]);
        for i in incomplete(&dir, &plan) {
            run_task(&dir, i, None).unwrap();
        }
        let Collected {
            rows,
            failed,
            pending,
            ..
        } = collect(&dir).unwrap();
        assert!(failed.is_empty() && pending.is_empty());
        // The threaded sweep over the same jobs.
        let traces = load_traces(&plan.traces).unwrap();
        let subjects = expand_grid(grid, "g.toml").unwrap();
        let jobs: Vec<Job> = plan
            .jobs
            .iter()
            .map(|&(t, s)| Job {
                trace: t,
                subject: subjects[s].clone(),
            })
            .collect();
        let mut threaded = Vec::new();
        let opts = RunOptions {
            threads: 2,
            stop: Arc::new(AtomicBool::new(false)),
            python: None,
        };
        run(
            &traces,
            &jobs,
            &opts,
            |r| threaded.push(r.clone()),
            |_, _| {},
        )
        .unwrap();
        threaded.sort_by_key(|r| r.job);
        let same = |a: &Row| {
            let mut v = serde_json::to_value(a).unwrap();
            v.as_object_mut().unwrap().remove("seconds");
            (v, a.per_interval.clone(), a.job)
        };
        assert_eq!(rows.len(), threaded.len());
        for (a, b) in rows.iter().zip(&threaded) {
            assert_eq!(same(a), same(b));
        }
        // Another grid in the same directory is refused.
        let other =
            ShardPlan::new(&grid.replace("[1, 2]", "[3]"), "g.toml", &paths, false).unwrap();
        assert!(other.install(&dir).unwrap_err().contains("another sweep"));
        // A task whose row is unreadable is listed as failed, with its log's error line.
        let t = task_dir(&dir, 2);
        std::fs::write(t.join(ROW_FILE), "{").unwrap();
        std::fs::write(t.join(LOG_FILE), "step\nerror: killed\n").unwrap();
        let Collected { rows, failed, .. } = collect(&dir).unwrap();
        assert_eq!((rows.len(), failed.len(), failed[0].index), (7, 1, 2));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
