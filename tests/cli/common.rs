//! The test kit of the command-line tests: running the tool, scratch directories, the presets and
//! the bundled trace, and the assertions every command's bad-input test makes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `hwprof` binary under test.
pub fn hwprof_cmd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hwprof"))
}

/// Runs `hwprof ARGS`.
pub fn hwprof(args: &[&str]) -> Output {
    hwprof_cmd().args(args).output().expect("run hwprof")
}

/// Runs `hwprof ARGS` and returns its stdout; fails the test with its stderr if it fails.
pub fn hwprof_ok(args: &[&str]) -> String {
    let out = hwprof(args);
    assert!(
        out.status.success(),
        "hwprof {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Path of `configs/<name>`.
pub fn preset(name: &str) -> String {
    root().join("configs").join(name).display().to_string()
}

/// A small real trace: the demo's bundled one (load tuples, binary form).
pub fn bundled() -> String {
    root()
        .join("traces/gzip_load.hwpt.gz")
        .display()
        .to_string()
}

/// A small profiler configuration (2 × 16 counters, 4 accumulator entries, L = 64) for quick RTL runs.
pub const SMALL_CONFIG: &str =
    "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\nentries = 4\n";

/// A fresh, empty scratch directory, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("hwprof-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `text` to `name` in the directory; returns its path.
    pub fn write(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Bad input: exit code 2, no panic, and a message containing `needle`.
pub fn assert_input_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
}

/// The rows of `hwprof sweep --json` without the time each took, sorted (the threaded sweep
/// gives them as they finish).
pub fn timeless_rows(out: &std::process::Output) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let mut rows: Vec<String> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.as_object_mut().unwrap().remove("seconds");
            r.to_string()
        })
        .collect();
    rows.sort();
    rows
}
