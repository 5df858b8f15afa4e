//! The Slurm executor: the tasks to run as one job array (`sbatch --array`), each array task
//! running `hwprof <command> task DIR $SLURM_ARRAY_TASK_ID` with its output in the task's
//! `task.log`; then waiting until `squeue` no longer lists the job. Whether a task succeeded is
//! read from DIR (its row), not from Slurm's accounting, which a cluster may not keep.

use super::{io, task_dir, TaskCommand, LOG_FILE};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Options passed through to `sbatch`.
#[derive(Debug, Clone, Default)]
pub struct SlurmOptions {
    pub partition: Option<String>,
    /// `minutes`, `MM:SS`, `HH:MM:SS`, `D-HH`, `D-HH:MM` or `D-HH:MM:SS`.
    pub time: Option<String>,
    /// Memory per node: a number with an optional K, M, G or T suffix.
    pub mem: Option<String>,
    pub account: Option<String>,
}

fn numbers(s: &str, max_parts: usize) -> bool {
    let parts: Vec<&str> = s.split(':').collect();
    parts.len() <= max_parts
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

impl SlurmOptions {
    /// Refuses values `sbatch` would refuse, naming the option.
    pub fn check(&self) -> Result<(), String> {
        if let Some(t) = &self.time {
            let ok = match t.split_once('-') {
                Some((d, rest)) => numbers(d, 1) && numbers(rest, 3),
                None => numbers(t, 3),
            };
            if !ok {
                return Err(format!(
                    "--time {t:?}: expected minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS"
                ));
            }
        }
        if let Some(m) = &self.mem {
            let digits = m.trim_end_matches(['K', 'M', 'G', 'T', 'k', 'm', 'g', 't']);
            if digits.is_empty()
                || !digits.bytes().all(|b| b.is_ascii_digit())
                || m.len() > digits.len() + 1
            {
                return Err(format!(
                    "--mem {m:?}: expected a number with an optional K, M, G or T suffix (e.g. 4G)"
                ));
            }
        }
        for (name, v) in [
            ("--partition", &self.partition),
            ("--account", &self.account),
        ] {
            if let Some(v) = v {
                if v.is_empty() || v.chars().any(|c| c.is_whitespace() || c == '\'') {
                    return Err(format!("{name} {v:?}: expected a Slurm name"));
                }
            }
        }
        Ok(())
    }
}

/// `sbatch --array` indices: runs of consecutive tasks as ranges (`0-3,5,7-8`).
pub fn array_spec(tasks: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < tasks.len() {
        let mut j = i;
        while j + 1 < tasks.len() && tasks[j + 1] == tasks[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            tasks[i].to_string()
        } else {
            format!("{}-{}", tasks[i], tasks[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The batch script of `tasks`: `cmd` (an absolute path every node can run) on DIR.
pub fn script(dir: &Path, cmd: &TaskCommand, opts: &SlurmOptions, tasks: &[usize]) -> String {
    let log = task_dir(dir, 0)
        .parent()
        .map(|t| t.join("%a").join(LOG_FILE))
        .unwrap_or_default();
    let mut s = String::from("#!/bin/bash\n");
    s += &format!("#SBATCH --job-name=hwprof-{}\n", cmd.command);
    s += &format!("#SBATCH --array={}\n", array_spec(tasks));
    s += &format!("#SBATCH --output={}\n", log.display());
    // A task runs one program at a time (nextpnr, Yosys, the model).
    s += "#SBATCH --cpus-per-task=1\n";
    for (k, v) in [
        ("partition", &opts.partition),
        ("time", &opts.time),
        ("mem", &opts.mem),
        ("account", &opts.account),
    ] {
        if let Some(v) = v {
            s += &format!("#SBATCH --{k}={v}\n");
        }
    }
    s += "set -e\n";
    s += &format!(
        "exec {} {} task {} \"$SLURM_ARRAY_TASK_ID\"\n",
        quote(&cmd.exe.display().to_string()),
        cmd.command,
        quote(&dir.display().to_string())
    );
    s
}

/// Writes the batch script into DIR and submits it; returns the job id. Errors: sbatch missing
/// or refusing the job (its message).
pub fn submit(
    dir: &Path,
    cmd: &TaskCommand,
    opts: &SlurmOptions,
    tasks: &[usize],
) -> Result<String, String> {
    let path = dir.join(format!("{}.sbatch", cmd.command));
    std::fs::write(&path, script(dir, cmd, opts, tasks)).map_err(|e| io(&path, e))?;
    // Slurm truncates a task's log when it starts; an old one would be read as a failure before.
    for &i in tasks {
        let tdir = task_dir(dir, i);
        std::fs::create_dir_all(&tdir).map_err(|e| io(&tdir, e))?;
        let _ = std::fs::remove_file(tdir.join(LOG_FILE));
    }
    let out = Command::new("sbatch")
        .arg("--parsable")
        .arg(&path)
        .current_dir(dir)
        .output()
        .map_err(|e| {
            format!("cannot run sbatch: {e} (Slurm's client tools must be on PATH; bash scripts/slurm-local.sh start makes a one-node cluster)")
        })?;
    if !out.status.success() {
        return Err(format!(
            "sbatch refused the job array ({}): {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let id = String::from_utf8_lossy(&out.stdout)
        .trim()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_string();
    if id.is_empty() {
        return Err("sbatch printed no job id".into());
    }
    let jobs = dir.join("slurm-jobs.txt");
    let mut list = std::fs::read_to_string(&jobs).unwrap_or_default();
    list += &format!("{id} {}\n", array_spec(tasks));
    std::fs::write(&jobs, list).map_err(|e| io(&jobs, e))?;
    Ok(id)
}

/// Waits until `squeue` no longer lists job `id`, calling `on_poll` every `every`. Several
/// failed looks at squeue in a row (the controller gone) end the wait with an error.
pub fn wait(id: &str, every: Duration, mut on_poll: impl FnMut()) -> Result<(), String> {
    let mut failures = 0;
    loop {
        let out = Command::new("squeue")
            .args(["-h", "-o", "%i", "-j", id])
            .output();
        match out {
            Ok(o) if o.status.success() => {
                failures = 0;
                if String::from_utf8_lossy(&o.stdout).trim().is_empty() {
                    return Ok(());
                }
            }
            // squeue refuses a job id it has forgotten: the job is over.
            Ok(o) if String::from_utf8_lossy(&o.stderr).contains("Invalid job id") => return Ok(()),
            Ok(o) => {
                failures += 1;
                if failures >= 10 {
                    return Err(format!(
                        "squeue failed 10 times: {}",
                        String::from_utf8_lossy(&o.stderr).trim()
                    ));
                }
            }
            Err(e) => return Err(format!("cannot run squeue: {e}")),
        }
        on_poll();
        std::thread::sleep(every);
    }
}

/// Whether `squeue` still lists job (or array task) `id`; false when it cannot be asked.
pub fn lists(id: &str) -> bool {
    Command::new("squeue")
        .args(["-h", "-o", "%i", "-j", id])
        .output()
        .is_ok_and(|o| o.status.success() && !String::from_utf8_lossy(&o.stdout).trim().is_empty())
}

/// The job ids submitted for DIR so far, with their array indices.
pub fn submitted(dir: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(dir.join("slurm-jobs.txt"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// The executable tasks run: this one, as an absolute path.
pub fn this_exe() -> Result<PathBuf, String> {
    std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot find the hwprof executable: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_spec_joins_runs() {
        assert_eq!(array_spec(&[0, 1, 2, 3, 5, 7, 8]), "0-3,5,7-8");
        assert_eq!(array_spec(&[4]), "4");
    }

    #[test]
    fn options_are_checked_like_sbatch() {
        let ok = |time: &str, mem: &str| {
            SlurmOptions {
                time: Some(time.into()),
                mem: Some(mem.into()),
                ..Default::default()
            }
            .check()
        };
        assert!(ok("30", "4G").is_ok());
        assert!(ok("1-02:00:00", "4000").is_ok());
        assert!(ok("2:00:00", "512M").is_ok());
        assert!(ok("1h", "4G").unwrap_err().contains("--time"));
        assert!(ok("10", "4GB").unwrap_err().contains("--mem"));
        let s = script(
            Path::new("/d"),
            &TaskCommand {
                exe: "/bin/hwprof".into(),
                command: "explore",
            },
            &SlurmOptions {
                partition: Some("p".into()),
                ..Default::default()
            },
            &[0, 1, 3],
        );
        assert!(s.contains("#SBATCH --array=0-1,3\n"), "{s}");
        assert!(s.contains("#SBATCH --output=/d/tasks/%a/task.log\n"), "{s}");
        assert!(s.contains("#SBATCH --partition=p\n"), "{s}");
        assert!(s.contains("#SBATCH --job-name=hwprof-explore\n"), "{s}");
        assert!(s.contains("exec '/bin/hwprof' explore task '/d' \"$SLURM_ARRAY_TASK_ID\""));
    }
}
