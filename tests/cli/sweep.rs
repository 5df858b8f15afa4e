//! `hwprof sweep` end to end on a tiny synthetic trace: rows, JSON, figures, peers, bad input.

use crate::common::*;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hwprof-sweep-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// 6000 events: 8 hot tuples and a noise floor, in the text form.
fn tiny_trace(dir: &Path) -> PathBuf {
    let mut s = String::from("# synthetic\n");
    let mut x = 12345u64;
    for i in 0..6000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        if i % 2 == 0 {
            s += &format!("{:x} 40\n", (x >> 60) & 7);
        } else {
            s += &format!("{:x} {:x}\n", (x >> 20) & 0xfff0, x >> 40);
        }
    }
    let p = dir.join("tiny.txt");
    std::fs::write(&p, s).unwrap();
    p
}

const GRID: &str = r#"
points = [{ interval = 2000, threshold = "2%" }]
tables = [1, 2, 4]
total_entries = [64]
conservative_update = [false, true]
reset_on_promote = [false, true]
peers = true
peer_reference = { tables = 4, entries = 16, counter_bits = 24 }
"#;

#[test]
fn sweep_writes_rows_json_and_figures() {
    let d = scratch("ok");
    let trace = tiny_trace(&d);
    let grid = d.join("grid.toml");
    std::fs::write(&grid, GRID).unwrap();
    // The project venv may exist for the synthesis tools alone (`hwprof tools install`): the
    // DataSketches rows need the package itself (scripts/venv.sh).
    let venv = std::process::Command::new(".venv/bin/python")
        .args(["-c", "import datasketches"])
        .output()
        .is_ok_and(|o| o.status.success());
    let mut cmd = hwprof_cmd();
    cmd.args(["sweep", "--trace"])
        .arg(&trace)
        .arg("--grid")
        .arg(&grid)
        .arg("--out")
        .arg(d.join("out"));
    if !venv {
        eprintln!(
            "note: no datasketches in .venv (scripts/venv.sh): DataSketches rows not exercised"
        );
        cmd.env("HWPROF_PYTHON", "/nonexistent/python");
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(d.join("out/sweep.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    // 3 tables × 4 C/R + stratified ×2 + Space-Saving (+ DataSketches ×2 with the venv).
    assert_eq!(rows.len(), 15 + if venv { 2 } else { 0 }, "{csv}");
    for scheme in ["single-hash", "multi-hash", "stratified", "space-saving"] {
        assert!(
            rows.iter().any(|r| r.contains(&format!(",{scheme},"))),
            "{scheme}"
        );
    }
    if venv {
        assert_eq!(
            rows.iter().filter(|r| r.contains(",datasketches,")).count(),
            2
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/sweep.json")).unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), rows.len());
    assert_eq!(json["summary"]["interrupted"], false);
    let plots: Vec<_> = std::fs::read_dir(d.join("out/plots"))
        .unwrap()
        .flatten()
        .collect();
    let png = plots
        .iter()
        .filter(|f| f.path().extension().unwrap() == "png")
        .count();
    let svg = plots
        .iter()
        .filter(|f| f.path().extension().unwrap() == "svg")
        .count();
    // Fig. 9, and for the one point: split bars, per-interval lines, peers.
    assert_eq!((png, svg), (4, 4), "{plots:?}");
    let intervals = std::fs::read_to_string(d.join("out/intervals.csv")).unwrap();
    assert_eq!(
        intervals.lines().count(),
        1 + 3 * rows.len(),
        "3 intervals per row"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_input_exits_2_naming_it() {
    let d = scratch("bad");
    let trace = tiny_trace(&d);
    let grid = d.join("grid.toml");
    std::fs::write(
        &grid,
        "points = [{ interval = 2000, threshold = \"2%\" }]\ntables = [3]\ntotal_entries = [64]\n",
    )
    .unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--grid".into(), grid.display().to_string()], "entries"),
        (vec!["--preset".into(), "nope".into()], "unknown preset"),
        (
            vec![
                "--preset".into(),
                "paper".into(),
                "--kind".into(),
                "edge".into(),
                "load".into(),
            ],
            "--kind",
        ),
    ];
    for (args, want) in cases {
        let out = hwprof_cmd()
            .args(["sweep", "--trace"])
            .arg(&trace)
            .args(&args)
            .arg("--out")
            .arg(d.join("out"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let out = hwprof_cmd()
        .args(["sweep", "--preset", "paper", "--trace"])
        .arg(d.join("missing.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.txt"));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn sweep_in_tasks_gives_the_threaded_rows_and_resumes() {
    let d = scratch("tasks");
    let trace = tiny_trace(&d);
    let grid = d.join("grid.toml");
    std::fs::write(&grid, GRID).unwrap();
    let run = |extra: &[&str], out: &str| {
        hwprof_cmd()
            .args(["sweep", "--json", "--no-plots", "--trace"])
            .arg(&trace)
            .arg("--grid")
            .arg(&grid)
            .arg("--out")
            .arg(d.join(out))
            .args(extra)
            // The same rows either way: no DataSketches (its bench is tested above).
            .env("HWPROF_PYTHON", "/nonexistent/python")
            .output()
            .unwrap()
    };
    let threaded = run(&[], "threaded");
    assert!(threaded.status.success());
    let tasks = run(&["--executor", "local", "--jobs", "2"], "tasks");
    let err = String::from_utf8_lossy(&tasks.stderr);
    assert!(tasks.status.success(), "{err}");
    assert!(
        err.contains("15 rows (15 configurations x 1 traces), a task each: 0 complete, 15 to run"),
        "{err}"
    );
    assert_eq!(timeless_rows(&tasks), timeless_rows(&threaded));
    let csv = |dir: &str| std::fs::read_to_string(d.join(dir).join("sweep.csv")).unwrap();
    // The same CSV rows (the threaded sweep writes them as they finish), `seconds` (the last
    // column) aside.
    let no_seconds = |text: String| {
        let mut v: Vec<String> = text
            .lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(no_seconds(csv("tasks")).len(), 16);
    assert_eq!(no_seconds(csv("tasks")), no_seconds(csv("threaded")));
    let sorted = |f: &str| {
        let mut v: Vec<String> = std::fs::read_to_string(d.join(f))
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        sorted("tasks/intervals.csv"),
        sorted("threaded/intervals.csv")
    );

    // A task that left no row: the merge lists it with its log and exits 1 ...
    std::fs::remove_file(d.join("tasks/tasks/3/row.json")).unwrap();
    std::fs::write(d.join("tasks/tasks/3/task.log"), "error: node lost\n").unwrap();
    let merged = hwprof_cmd()
        .args(["sweep", "collect", "--json", "--no-plots"])
        .arg(d.join("tasks"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&merged.stderr);
    assert_eq!(merged.status.code(), Some(1), "{err}");
    assert!(
        err.contains("task 3 (") && err.contains("error: node lost"),
        "{err}"
    );
    assert_eq!(timeless_rows(&merged).len(), 14);
    // ... and the same command again runs that task alone.
    let again = run(&["--executor", "local"], "tasks");
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert!(err.contains("14 complete, 1 to run"), "{err}");
    assert_eq!(timeless_rows(&again), timeless_rows(&threaded));

    // Options of the other mode, another sweep in the directory, standard input.
    assert_input_error(
        &run(&["--jobs", "2"], "x"),
        "--jobs is an option of --executor",
    );
    assert_input_error(
        &run(&["--executor", "local", "--threads", "2"], "x"),
        "--threads is an option of the sweep without --executor",
    );
    assert_input_error(
        &run(&["--executor", "local", "--partition", "p"], "x"),
        "--partition is an option of --executor slurm",
    );
    std::fs::write(&grid, GRID.replace("[1, 2, 4]", "[1]")).unwrap();
    assert_input_error(
        &run(&["--executor", "local"], "tasks"),
        "holds another sweep",
    );
    std::fs::remove_dir_all(&d).unwrap();
}
