//! Executors: the tasks of a work directory, run as child processes on this machine ([`run_local`])
//! or as one Slurm job array ([`slurm`]). A task is the command `hwprof <command> task DIR INDEX`
//! (`explore`, `sweep`); everything it needs is in DIR, so any machine that sees DIR (a shared
//! filesystem) can run it. Task i works in `DIR/tasks/<i>/` and logs into its `task.log`; whether it
//! succeeded is read from what it left in DIR (its row), never from the scheduler's accounting.

pub mod slurm;

use slurm::SlurmOptions;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const LOG_FILE: &str = "task.log";

/// Where the tasks run.
#[derive(Debug, Clone)]
pub enum Executor {
    /// Child processes on this machine, `jobs` at a time.
    Local { jobs: usize },
    /// One Slurm job array; squeue is asked every `poll` whether it is still there.
    Slurm {
        options: SlurmOptions,
        poll: Duration,
    },
}

/// The program tasks run (an absolute path every node can run) and its subcommand (`explore`).
#[derive(Debug, Clone)]
pub struct TaskCommand {
    pub exe: PathBuf,
    pub command: &'static str,
}

impl TaskCommand {
    /// This executable.
    pub fn this(command: &'static str) -> Result<TaskCommand, String> {
        Ok(TaskCommand {
            exe: slurm::this_exe()?,
            command,
        })
    }
}

pub fn task_dir(dir: &Path, i: usize) -> PathBuf {
    dir.join("tasks").join(i.to_string())
}

pub(crate) fn io(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{}: {e}", path.display())
}

/// Writes `text` to `path` through a temporary file and a rename, so that a reader (or a task
/// killed halfway) never sees half of it.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io(path, e))
}

/// The mark a task leaves in its directory while it runs (`running`: host, process id and, under
/// Slurm, its array task), so that a merge can tell a task still at work from one that died.
const RUNNING_FILE: &str = "running";

/// Marks task `i` of `dir` as running until dropped (a task that is killed leaves its mark;
/// [`is_running`] then finds its process gone).
pub struct RunningMark {
    path: PathBuf,
}

impl RunningMark {
    pub fn new(dir: &Path, i: usize) -> Result<RunningMark, String> {
        let tdir = task_dir(dir, i);
        std::fs::create_dir_all(&tdir).map_err(|e| io(&tdir, e))?;
        let array_task = match (
            std::env::var("SLURM_ARRAY_JOB_ID"),
            std::env::var("SLURM_ARRAY_TASK_ID"),
        ) {
            (Ok(job), Ok(task)) => format!("{job}_{task}"),
            _ => String::new(),
        };
        let path = tdir.join(RUNNING_FILE);
        write_atomic(
            &path,
            &format!("{} {} {array_task}\n", host(), std::process::id()),
        )?;
        Ok(RunningMark { path })
    }
}

impl Drop for RunningMark {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// This machine's name, as rows and running marks record it.
pub fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// Whether task `i` of `dir` is still at work: it left its running mark, and Slurm still lists
/// its array task, or (outside Slurm) its process is alive on this machine. A task whose mark
/// cannot be checked so (another machine without Slurm) counts as not running.
pub fn is_running(dir: &Path, i: usize) -> bool {
    let Ok(text) = std::fs::read_to_string(task_dir(dir, i).join(RUNNING_FILE)) else {
        return false;
    };
    let mut f = text.split_whitespace();
    let (mark_host, pid, array_task) = (f.next(), f.next(), f.next());
    if let Some(id) = array_task {
        return slurm::lists(id);
    }
    mark_host == Some(host().as_str()) && pid.is_some_and(|p| Path::new("/proc").join(p).exists())
}

/// How task `i` ended, for a progress line: `done`, or `FAILED (log …)`.
pub fn outcome(dir: &Path, i: usize, ok: bool) -> String {
    if ok {
        "done".to_string()
    } else {
        format!("FAILED (log {})", task_dir(dir, i).join(LOG_FILE).display())
    }
}

/// The log's `error:` line, or its last line: why a task left no row.
pub fn why(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines
        .iter()
        .find(|l| l.to_lowercase().contains("error"))
        .or(lines.last())
        .map_or("no output (killed?)".to_string(), |l| l.trim().to_string())
}

/// Runs `tasks` of `dir` with `executor`; `complete(i)` tells whether task i left its result,
/// `on_done(i, succeeded)` is called once per task as it ends (with Slurm: as its result appears,
/// the rest when the job array is gone), `progress` gets the executor's own messages.
pub fn run(
    dir: &Path,
    cmd: &TaskCommand,
    tasks: &[usize],
    executor: &Executor,
    complete: &dyn Fn(usize) -> bool,
    progress: &mut dyn FnMut(&str),
    mut on_done: impl FnMut(usize, bool),
) -> Result<(), String> {
    match executor {
        Executor::Local { jobs } => run_local(dir, cmd, tasks, *jobs, |i, ok| {
            on_done(i, ok && complete(i))
        }),
        Executor::Slurm { options, poll } => {
            let id = slurm::submit(dir, cmd, options, tasks)?;
            progress(&format!(
                "submitted Slurm job array {id} ({} tasks); waiting",
                tasks.len()
            ));
            let mut seen = std::collections::BTreeSet::new();
            let look = |seen: &mut std::collections::BTreeSet<usize>,
                        on_done: &mut dyn FnMut(usize, bool)| {
                for &i in tasks {
                    if !seen.contains(&i) && complete(i) {
                        seen.insert(i);
                        on_done(i, true);
                    }
                }
            };
            slurm::wait(&id, *poll, || look(&mut seen, &mut on_done))?;
            look(&mut seen, &mut on_done);
            for &i in tasks {
                if !seen.contains(&i) {
                    on_done(i, false);
                }
            }
            Ok(())
        }
    }
}

/// Runs `tasks` as child processes `exe <command> task DIR i` (each one's output into its
/// `task.log`), `jobs` at a time; `on_done(task, exited 0)` as each ends.
pub fn run_local(
    dir: &Path,
    cmd: &TaskCommand,
    tasks: &[usize],
    jobs: usize,
    mut on_done: impl FnMut(usize, bool),
) -> Result<(), String> {
    let mut queue = tasks.iter().copied();
    let mut running: Vec<(usize, std::process::Child)> = Vec::new();
    loop {
        while running.len() < jobs.max(1) {
            let Some(i) = queue.next() else { break };
            let tdir = task_dir(dir, i);
            std::fs::create_dir_all(&tdir).map_err(|e| io(&tdir, e))?;
            let log = tdir.join(LOG_FILE);
            let out = std::fs::File::create(&log).map_err(|e| io(&log, e))?;
            let err = out.try_clone().map_err(|e| io(&log, e))?;
            let child = std::process::Command::new(&cmd.exe)
                .args([cmd.command, "task"])
                .arg(dir)
                .arg(i.to_string())
                .stdin(std::process::Stdio::null())
                .stdout(out)
                .stderr(err)
                .spawn()
                .map_err(|e| io(&cmd.exe, e))?;
            running.push((i, child));
        }
        if running.is_empty() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
        let mut k = 0;
        while k < running.len() {
            match running[k].1.try_wait().map_err(|e| e.to_string())? {
                Some(status) => {
                    let (i, _) = running.remove(k);
                    on_done(i, status.success());
                }
                None => k += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_mark_lasts_while_its_task_does() {
        let dir = std::env::temp_dir().join(format!("hwprof-running-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(!is_running(&dir, 0), "no mark, not running");
        let mark = RunningMark::new(&dir, 0).unwrap();
        assert!(is_running(&dir, 0), "this process holds the mark");
        drop(mark);
        assert!(!is_running(&dir, 0), "the mark goes with the task");
        // A task killed on this machine: its mark stays, its process is gone.
        let path = task_dir(&dir, 1).join(RUNNING_FILE);
        std::fs::create_dir_all(task_dir(&dir, 1)).unwrap();
        std::fs::write(&path, format!("{} 4194305\n", host())).unwrap();
        assert!(!is_running(&dir, 1), "a dead process is not running");
        // On another machine, without Slurm: not checkable, so not running.
        std::fs::write(&path, format!("not-{} {}\n", host(), std::process::id())).unwrap();
        assert!(
            !is_running(&dir, 1),
            "another host's mark is not taken for running"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
