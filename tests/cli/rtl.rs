//! `hwprof cosim` and `hwprof verilog` end to end: JSON keys, exit codes for bad input.

use crate::common::*;

fn write_config(name: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!("hwprof-rtl-cli-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn cosim_json_has_the_promised_keys() {
    let cfg = write_config("small.toml", SMALL_CONFIG);
    let out = hwprof(&[
        "cosim", "--config", &cfg, "--stream", "mixed", "--events", "300", "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["events", "mismatches", "cycles", "events_per_cycle"] {
        assert!(j.get(key).is_some(), "missing {key}: {j}");
    }
    assert_eq!(j["events"], 300);
    assert_eq!(j["mismatches"], 0);
}

#[test]
fn bad_input_exits_2() {
    let unsupported = write_config(
        "bad.toml",
        "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\na_bits = 64\nb_bits = 64\n[accumulator]\norganisation = \"set_associative\"\nentries = 8\nways = 2\n",
    );
    for args in [
        vec![
            "verilog",
            "--config",
            unsupported.as_str(),
            "--out",
            "/tmp/hwprof-never",
        ],
        vec![
            "cosim",
            "--config",
            unsupported.as_str(),
            "--stream",
            "mixed",
            "--events",
            "10",
        ],
    ] {
        let out = hwprof(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("96-bit tags") && !err.contains("panicked"),
            "{err}"
        );
    }
    let cfg = write_config("ok.toml", SMALL_CONFIG);
    let out = hwprof(&[
        "cosim", "--config", &cfg, "--stream", "nope", "--events", "10",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = hwprof(&[
        "cosim",
        "--config",
        &cfg,
        "--stream",
        "mixed",
        "--events",
        "10",
        "--report-ready",
        "0/3",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// `--target` applies that target's section (here: no write stage on the HX8K) and the design still
/// matches the model; an unknown target is bad input.
#[test]
fn cosim_takes_a_targets_hardware_options() {
    let cfg = write_config(
        "sections.toml",
        "interval = 200\nthreshold = 4\ntables = 2\nentries = 16\nhash = \"h3\"\n\
         a_bits = 32\nb_bits = 32\n[accumulator]\norganisation = \"set_associative\"\n\
         entries = 8\nways = 2\n[target.ice40-hx8k]\nwrite_stage = false\n",
    );
    let run = |target: &str| {
        hwprof(&[
            "cosim", "--config", &cfg, "--stream", "mixed", "--events", "300", "--target", target,
            "--json",
        ])
    };
    // The HX8K's section drops the write stage; the UP5K has none (the set-associative default).
    for (target, write_stage) in [("ice40-hx8k", false), ("ice40-up5k", true)] {
        let out = run(target);
        assert!(
            out.status.success(),
            "{target}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["mismatches"], 0, "{target}: {j}");
        assert_eq!(
            j["configuration"]["write_stage"], write_stage,
            "{target}: {j}"
        );
    }
    let out = run("ice40-hx9k");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("ice40-hx9k") && err.contains("ice40-hx8k"),
        "{err}"
    );
}

#[test]
fn formal_reach_json_and_bad_input() {
    let out = hwprof(&[
        "formal",
        "--config",
        &preset("formal-tiny.toml"),
        "--depth",
        "30",
        "--reach",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["property"], "all_reports_sent", "{j}");
    assert_eq!(j["result"], "reached", "{j}");
    assert!(j["reached_at"].as_u64().unwrap() < 30, "{j}");
    // Made in a scratch directory that is gone: nothing named.
    assert!(j["dir"].is_null() && j["counterexample"].is_null(), "{j}");

    // No --depth: the depth that reaches every report. A refuted check exits 1, JSON or not.
    let out = hwprof(&[
        "formal",
        "--config",
        &preset("formal-tiny.toml"),
        "--mutate",
        "forwarding",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["result"], "fail", "{j}");
    assert_eq!(j["depth_from_reach"], true, "{j}");
    assert!(j["depth"].as_u64().unwrap() <= 30, "{j}");

    let s = Scratch::new("formal-bad");
    let stash = s.write(
        "stash.toml",
        "interval = 3\nthreshold = 2\ntables = 2\nentries = 4\ncounter_bits = 2\na_bits = 1\nb_bits = 1\n[accumulator]\norganisation = \"set_associative\"\nentries = 4\nways = 2\nstash = 1\n",
    );
    let out = hwprof(&["formal", "--config", &stash, "--depth", "10"]);
    assert_input_error(&out, "stash");
    let out = hwprof(&[
        "formal",
        "--config",
        &preset("formal-tiny.toml"),
        "--depth",
        "10",
        "--mutate",
        "--reach",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = hwprof(&[
        "formal",
        "--config",
        &preset("paper-10k-bram.toml"),
        "--depth",
        "10",
    ]);
    assert_input_error(&out, "free bits");
    // The relation design has no fully-associative form.
    let out = hwprof(&[
        "formal",
        "--config",
        &preset("formal-tiny.toml"),
        "--relation",
        "--depth",
        "10",
    ]);
    assert_input_error(&out, "set associative");
}
