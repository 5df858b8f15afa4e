//! `hwprof explore` end to end on tiny configurations (8-bit keys, 16 counters a table) with the
//! native iCE40 tools: the local executor, a killed task, a resumed run, and the same rows through
//! a one-node Slurm cluster (`scripts/slurm-local.sh`, which needs root).

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Configurations that synthesize in seconds: 8-bit keys, a 4-entry accumulator.
fn grid(tables: &str, entries: &str) -> String {
    format!(
        "points = [{{ interval = 256, threshold = \"5%\" }}]\ntables = {tables}\nentries = {entries}\n\
         counter_bits = [8]\nhash = [\"h3\"]\naccumulator_entries = [4]\na_bits = [8]\nb_bits = [8]\n"
    )
}

fn explore(grid: &str, targets: &str, out: &Path, extra: &[&str]) -> Output {
    hwprof_cmd()
        .args([
            "explore",
            "--grid",
            grid,
            "--trace",
            &bundled(),
            "--target",
            targets,
        ])
        .args(["--seeds", "1", "--json", "--out"])
        .arg(out)
        .args(extra)
        .env("HWPROF_TOOLS", "native")
        .output()
        .unwrap()
}

fn rows(o: &Output) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&o.stderr));
    });
    v["rows"].as_array().unwrap().clone()
}

/// A row without the fields that depend on where and when it ran.
fn portable(r: &Value) -> Value {
    let mut r = r.clone();
    for k in ["wall_s", "host", "log", "dir"] {
        r.as_object_mut().unwrap().remove(k);
    }
    r
}

fn assert_same_rows(a: &[Value], b: &[Value]) {
    let key = |rs: &[Value]| {
        let mut v: Vec<String> = rs.iter().map(|r| portable(r).to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(key(a), key(b));
}

/// Every row is complete, and the Pareto flags are exactly the rows no other row of the target
/// dominates in (error, cells, median Fmax).
fn assert_rows(rows: &[Value], n: usize) {
    assert_eq!(rows.len(), n);
    let f = |r: &Value| r["fmax_median_mhz"].as_f64().unwrap_or(0.0);
    let (e, c) = (
        |r: &Value| r["net_error"].as_f64().unwrap(),
        |r: &Value| r["cells"].as_u64().unwrap(),
    );
    for r in rows {
        assert_eq!(r["fits"], true, "{r}");
        assert!(c(r) > 50 && f(r) > 10.0, "{r}");
        // The metric's net error is a sum of error shares: finite, not bounded by 1.
        assert!(e(r).is_finite() && e(r) >= 0.0, "{r}");
        assert!(
            r["tools"]["yosys"].as_str().unwrap().contains("Yosys"),
            "{r}"
        );
        assert_eq!(r["seeds"], 1);
        let dominated = rows.iter().any(|o| {
            o["target"] == r["target"]
                && e(o) <= e(r)
                && c(o) <= c(r)
                && f(o) >= f(r)
                && (e(o) < e(r) || c(o) < c(r) || f(o) > f(r))
        });
        assert_eq!(r["pareto"], !dominated, "{r}");
    }
    assert!(rows.iter().any(|r| r["pareto"] == true));
}

#[test]
fn explore_locally_survives_a_killed_task_and_resumes() {
    let s = Scratch::new("explore-local");
    let g = s.write("g.toml", &grid("[1, 2]", "[16]"));
    let out = s.join("out");
    let first = explore(&g, "ice40-up5k", &out, &["--jobs", "2"]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let before = rows(&first);
    assert_rows(&before, 2);
    assert!(out.join("plots/pareto-ice40-up5k.svg").is_file());
    let md = std::fs::read_to_string(out.join("pareto-ice40-up5k.md")).unwrap();
    assert!(
        md.contains("| configuration | keys a/b bits | fits |"),
        "{md}"
    );

    // Task 1 again, killed at once: it leaves a log and no row.
    let task = out.join("tasks/1");
    std::fs::remove_file(task.join("row.json")).unwrap();
    let log = std::fs::File::create(task.join("task.log")).unwrap();
    let mut child = hwprof_cmd()
        .args(["explore", "task"])
        .arg(&out)
        .arg("1")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!task.join("row.json").exists());
    let merged = hwprof_cmd()
        .args(["explore", "collect", "--json"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(1), "a task without a row");
    let v: Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(
        v["rows"].as_array().unwrap().len(),
        1,
        "the other row is kept"
    );
    assert_eq!(v["failed"][0]["index"], 1);
    assert!(v["failed"][0]["log"]
        .as_str()
        .unwrap()
        .ends_with("tasks/1/task.log"));
    assert!(String::from_utf8_lossy(&merged.stderr).contains("failed: task 1"));

    // The same command again runs task 1 only and gives the same rows.
    let kept = std::fs::metadata(out.join("tasks/0/row.json"))
        .unwrap()
        .modified()
        .unwrap();
    let again = explore(&g, "ice40-up5k", &out, &["--jobs", "2"]);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert!(err.contains("1 complete, 1 to run"), "{err}");
    let modified = std::fs::metadata(out.join("tasks/0/row.json"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(kept, modified, "a completed task is not run again");
    assert_same_rows(&before, &rows(&again));

    // Another exploration into the same directory is refused, like bad options.
    let other = s.write("other.toml", &grid("[4]", "[16]"));
    assert_input_error(
        &explore(&other, "ice40-up5k", &out, &[]),
        "another exploration",
    );
    let peers = s.write("peers.toml", &(grid("[1]", "[16]") + "peers = true\n"));
    assert_input_error(&explore(&peers, "ice40-up5k", &s.join("p"), &[]), "`peers`");
    assert_input_error(
        &explore(&g, "ice40-xx", &s.join("x"), &[]),
        "unknown target",
    );
    assert_input_error(
        &explore(
            &g,
            "ice40-up5k",
            &s.join("x"),
            &["--executor", "slurm", "--jobs", "2"],
        ),
        "--jobs",
    );
    assert_input_error(
        &explore(
            &g,
            "ice40-up5k",
            &s.join("x"),
            &["--executor", "slurm", "--time", "1h"],
        ),
        "--time",
    );
    assert_input_error(
        &explore(&g, "ice40-up5k", &s.join("x"), &["--mem", "4G"]),
        "--mem",
    );
}

/// Stops the one-node cluster however the test ends.
struct Cluster;

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(root().join("scripts/slurm-local.sh"))
            .arg("stop")
            .status();
    }
}

#[test]
fn explore_through_slurm_gives_the_local_rows() {
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        eprintln!(
            "SKIPPED explore_through_slurm_gives_the_local_rows: starting slurmctld/slurmd \
             (scripts/slurm-local.sh) needs root"
        );
        return;
    }
    let s = Scratch::new("explore-slurm");
    // 6 configurations x 2 targets.
    let g = s.write("g.toml", &grid("[1, 2, 4]", "[16, 32]"));
    let targets = "ice40-up5k,ice40-hx8k";
    let t0 = std::time::Instant::now();
    let local = explore(&g, targets, &s.join("local"), &["--jobs", "2"]);
    let local_s = t0.elapsed().as_secs();
    assert!(
        local.status.success(),
        "{}",
        String::from_utf8_lossy(&local.stderr)
    );
    let local = rows(&local);
    assert_rows(&local, 12);

    let start = Command::new("bash")
        .arg(root().join("scripts/slurm-local.sh"))
        .arg("start")
        .output()
        .unwrap();
    let _cluster = Cluster;
    assert!(
        start.status.success(),
        "slurm-local.sh start: {}{}",
        String::from_utf8_lossy(&start.stdout),
        String::from_utf8_lossy(&start.stderr)
    );
    let out = s.join("slurm");
    let slurm_args = ["--executor", "slurm", "--poll", "0.5"];
    // The first submission, its first array task cancelled as soon as the job exists: killed
    // while it runs, or before it starts; either way it leaves no row.
    let first = hwprof_cmd()
        .args([
            "explore",
            "--grid",
            &g,
            "--trace",
            &bundled(),
            "--target",
            targets,
        ])
        .args(["--seeds", "1", "--json", "--out"])
        .arg(&out)
        .args(slurm_args)
        .env("HWPROF_TOOLS", "native")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let jobs = out.join("slurm-jobs.txt");
    let t0 = std::time::Instant::now();
    let slurm_t0 = t0;
    while !jobs.is_file() {
        assert!(t0.elapsed().as_secs() < 120, "no job submitted");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let text = std::fs::read_to_string(&jobs).unwrap();
    let id = text.split_whitespace().next().unwrap();
    let cancel = Command::new("scancel")
        .arg(format!("{id}_0"))
        .status()
        .unwrap();
    assert!(cancel.success());
    let first_out = first.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&first_out.stderr);
    assert_eq!(first_out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("submitted Slurm job array {id} (12 tasks)")),
        "{err}"
    );
    assert_eq!(rows(&first_out).len(), 11, "{err}");
    let v: Value = serde_json::from_slice(&first_out.stdout).unwrap();
    assert!(
        v["failed"][0]["index"] == 0 || v["pending"][0] == 0,
        "task 0 listed: {v}"
    );

    // The re-submission runs the cancelled task only.
    let again = explore(&g, targets, &out, &slurm_args);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert!(err.contains("11 complete, 1 to run"), "{err}");
    assert!(err.contains("(1 tasks)"), "{err}");
    let slurm = rows(&again);
    assert_same_rows(&local, &slurm);
    eprintln!(
        "explore through Slurm: 12 tasks (one cancelled, then re-submitted alone), {} rows \
         identical to the local executor's; wall time local --jobs 2 {local_s} s, Slurm (both \
         submissions) {} s",
        slurm.len(),
        slurm_t0.elapsed().as_secs()
    );

    // The same executor shards a sweep, one task per (grid point, trace): the threaded rows.
    let sg = s.write(
        "sweep.toml",
        "points = [{ interval = 10000, threshold = \"1%\" }]\ntables = [1, 2]\nentries = [64, 256]\n",
    );
    let sweep = |extra: &[&str], out: &str| {
        hwprof_cmd()
            .args([
                "sweep",
                "--json",
                "--no-plots",
                "--grid",
                &sg,
                "--trace",
                &bundled(),
            ])
            .arg("--out")
            .arg(s.join(out))
            .args(extra)
            .env("HWPROF_PYTHON", "/nonexistent/python")
            .output()
            .unwrap()
    };
    let threaded = sweep(&[], "sweep-threaded");
    assert!(threaded.status.success());
    let sharded = sweep(&["--executor", "slurm", "--poll", "0.5"], "sweep-slurm");
    let err = String::from_utf8_lossy(&sharded.stderr);
    assert!(sharded.status.success(), "{err}");
    assert!(err.contains("(4 tasks); waiting"), "{err}");
    assert_eq!(timeless_rows(&sharded).len(), 4);
    assert_eq!(timeless_rows(&sharded), timeless_rows(&threaded));
    eprintln!("sweep through Slurm: 4 tasks, rows identical to the threaded sweep's");
}
