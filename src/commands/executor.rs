//! The executor options shared by `hwprof explore` and `hwprof sweep` (the work is in
//! `hwprof_sim::exec`).

use super::CliError;
use hwprof_sim::exec::slurm::SlurmOptions;
use hwprof_sim::exec::Executor;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExecutorKind {
    /// Child processes on this machine, --jobs at a time.
    Local,
    /// One Slurm job array (sbatch), one array task per task.
    Slurm,
}

#[derive(clap::Args, Debug, Clone)]
pub struct ExecutorArgs {
    /// Where the tasks run: `local` (child processes on this machine, --jobs at a time) or `slurm`
    /// (one sbatch job array; DIR on a filesystem every node sees)
    #[arg(long, value_enum)]
    pub executor: Option<ExecutorKind>,
    /// Tasks at a time with --executor local (default and at most: the cores)
    #[arg(long)]
    pub jobs: Option<usize>,
    /// sbatch --partition (--executor slurm)
    #[arg(long)]
    pub partition: Option<String>,
    /// sbatch --time of each array task, e.g. 30 or 2:00:00 (--executor slurm)
    #[arg(long)]
    pub time: Option<String>,
    /// sbatch --mem of each array task, e.g. 4G (--executor slurm)
    #[arg(long)]
    pub mem: Option<String>,
    /// sbatch --account (--executor slurm)
    #[arg(long)]
    pub account: Option<String>,
    /// Seconds between two looks at squeue (--executor slurm)
    #[arg(long, default_value_t = 5.0)]
    pub poll: f64,
}

pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl ExecutorArgs {
    /// The executor asked for (`default` without --executor), its options checked; an option of
    /// the other executor is refused.
    pub fn executor(&self, default: ExecutorKind) -> Result<Executor, CliError> {
        let kind = self.executor.unwrap_or(default);
        let slurm = SlurmOptions {
            partition: self.partition.clone(),
            time: self.time.clone(),
            mem: self.mem.clone(),
            account: self.account.clone(),
        };
        match kind {
            ExecutorKind::Local => {
                for (name, given) in [
                    ("--partition", self.partition.is_some()),
                    ("--time", self.time.is_some()),
                    ("--mem", self.mem.is_some()),
                    ("--account", self.account.is_some()),
                ] {
                    if given {
                        return Err(CliError::input(format!(
                            "{name} is an option of --executor slurm"
                        )));
                    }
                }
                let jobs = self.jobs.unwrap_or(cores());
                if jobs == 0 {
                    return Err(CliError::input("--jobs must be at least 1"));
                }
                Ok(Executor::Local {
                    jobs: jobs.min(cores()),
                })
            }
            ExecutorKind::Slurm => {
                if self.jobs.is_some() {
                    return Err(CliError::input(
                        "--jobs is an option of --executor local (Slurm schedules the array tasks)",
                    ));
                }
                slurm.check().map_err(CliError::input)?;
                if !(self.poll.is_finite() && self.poll > 0.0) {
                    return Err(CliError::input(
                        "--poll must be a positive number of seconds",
                    ));
                }
                Ok(Executor::Slurm {
                    options: slurm,
                    poll: Duration::from_secs_f64(self.poll),
                })
            }
        }
    }

    /// Whether an executor option was given (the threaded sweep refuses them without --executor).
    pub fn any_given(&self) -> Option<&'static str> {
        [
            ("--jobs", self.jobs.is_some()),
            ("--partition", self.partition.is_some()),
            ("--time", self.time.is_some()),
            ("--mem", self.mem.is_some()),
            ("--account", self.account.is_some()),
        ]
        .into_iter()
        .find(|g| g.1)
        .map(|g| g.0)
    }
}

/// An executor's error: sbatch refusing the job is the input's fault (its options).
pub fn exec_error(e: String) -> CliError {
    if e.starts_with("sbatch refused") {
        CliError::input(e)
    } else {
        CliError::failure(e)
    }
}
