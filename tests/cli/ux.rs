//! What a user meets: traces from pipes, results that mean something or an error, exit code 2 for
//! every bad input including unwritable outputs, `--kind` checked, `--json` everywhere with the
//! configuration as fields, `config show`, `--set`, `trace record` as a well-behaved filter, help
//! text on every option, no wall-clock figures in diffable output.

use crate::common::*;
use std::io::Write;
use std::process::{Output, Stdio};

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// A small configuration (L = 64) in `d`.
fn small(d: &Scratch) -> String {
    d.write("small.toml", SMALL_CONFIG)
}

/// `hwprof model --json` of the small configuration on `trace` (events given on stdin when
/// `stdin` is set).
fn model_json(cfg: &str, trace: &str, stdin: Option<&[u8]>) -> serde_json::Value {
    let mut cmd = hwprof_cmd();
    cmd.args(["model", "--config", cfg, "--trace", trace, "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.map(|d| d.to_vec());
    let writer = std::thread::spawn(move || {
        if let Some(d) = data {
            let _ = input.write_all(&d);
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    json(&out)
}

#[test]
fn traces_from_stdin_and_fifos_read_like_files() {
    let d = Scratch::new("ux-pipes");
    let cfg = small(&d);
    let from_file = model_json(&cfg, &bundled(), None);
    assert!(from_file["intervals"].as_u64().unwrap() > 1000);
    let bytes = std::fs::read(bundled()).unwrap();
    // `-` and /dev/stdin, compressed; the same numbers as from the file.
    for name in ["-", "/dev/stdin"] {
        let v = model_json(&cfg, name, Some(&bytes));
        assert_eq!(v["intervals"], from_file["intervals"], "{name}");
        assert_eq!(v["net_error"], from_file["net_error"], "{name}");
    }
    // A FIFO (as `<(zcat …)` gives): opened once, so the writer is not left hanging.
    let fifo = d.join("events.fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let writer = {
        let (fifo, bytes) = (fifo.clone(), bytes.clone());
        std::thread::spawn(move || std::fs::write(fifo, bytes).unwrap())
    };
    let v = model_json(&cfg, fifo.to_str().unwrap(), None);
    writer.join().unwrap();
    assert_eq!(v["net_error"], from_file["net_error"]);
    // A lackey log through a pipe, format recognised from its first line.
    let log: String = (0..200)
        .map(|i| format!("SB {:x}\n", 0x400 + i % 7))
        .collect();
    let v = model_json(&cfg, "-", Some(log.as_bytes()));
    assert_eq!(v["events"], 199);
}

#[test]
fn no_score_on_nothing() {
    let d = Scratch::new("ux-nothing");
    let cfg = small(&d);
    let short: String = (0..63).map(|i| format!("{i:x} 1\n")).collect();
    let short = d.write("short.txt", &short);
    assert_input_error(
        &hwprof(&["model", "--config", &cfg, "--trace", &short]),
        "fewer than one interval",
    );
    // 64 + 37 events: one interval scored, 37 events reported as left out.
    let trace: String = (0..101).map(|i| format!("{:x} 1\n", i % 3)).collect();
    let trace = d.write("t.txt", &trace);
    let v = json(&hwprof(&[
        "model", "--config", &cfg, "--trace", &trace, "--json",
    ]));
    assert_eq!(
        (v["intervals"].as_u64(), v["trailing_events"].as_u64()),
        (Some(1), Some(37))
    );
    let text = hwprof_ok(&["model", "--config", &cfg, "--trace", &trace]);
    assert!(
        text.contains("37 events of a trailing partial interval"),
        "{text}"
    );
    // Co-simulation: --events 0, and a window without a complete interval, refused up front.
    assert_input_error(
        &hwprof(&[
            "cosim", "--config", &cfg, "--trace", &trace, "--events", "0",
        ]),
        "--events 0",
    );
    assert_input_error(
        &hwprof(&[
            "cosim",
            "--config",
            &preset("paper-10k.toml"),
            "--trace",
            &bundled(),
            "--events",
            "2000",
        ]),
        "no report would be compared",
    );
}

#[test]
fn unwritable_outputs_exit_2() {
    let d = Scratch::new("ux-unwritable");
    let cfg = small(&d);
    let bad = "/proc/hwprof-no/such";
    let trace = d.write("t.txt", "1 2\n3 4\n");
    let cases: Vec<Vec<&str>> = vec![
        vec!["verilog", "--config", &cfg, "--out", bad],
        vec!["trace", "convert", &trace, bad],
        vec![
            "buffer",
            "--config",
            "configs/buffer-address-64.toml",
            "--verilog",
            bad,
        ],
        vec!["counters", "verilog", "--kind", "exact", "-o", bad],
        vec![
            "sweep", "--trace", &trace, "--preset", "paper", "--out", bad,
        ],
        vec![
            "cosim", "--config", &cfg, "--stream", "mixed", "--events", "100", "--vcd", bad,
        ],
        vec!["demo", "--no-synth", "--out", bad],
    ];
    for args in cases {
        let out = hwprof_cmd()
            .current_dir(root())
            .args(&args)
            .output()
            .unwrap();
        assert_input_error(&out, "cannot write");
    }
}

#[test]
fn kind_is_checked_against_the_file() {
    let d = Scratch::new("ux-kind");
    let edge = d.write("e.lackey", "SB 10\nSB 20\nSB 10\nSB 20\nSB 30\n");
    for out in ["e.hwpt", "e.txt.gz"] {
        let o = d.join(out).display().to_string();
        let v = json(&hwprof(&[
            "trace", "convert", &edge, &o, "--kind", "edge", "--json",
        ]));
        assert_eq!(
            (v["kind"].as_str(), v["events"].as_u64()),
            (Some("edge"), Some(4))
        );
        let v = json(&hwprof(&["trace", "stats", &o, "--json"]));
        assert_eq!(v["kind"], "edge", "{out}: the kind travels with the trace");
        assert!(hwprof(&["trace", "stats", &o, "--kind", "edge"])
            .status
            .success());
        assert_input_error(
            &hwprof(&["trace", "stats", &o, "--kind", "load"]),
            "--kind load asked for, but the file records edge",
        );
    }
    // A lackey log recorded for another kind.
    let mem = d.write("m.lackey", "I  100,2\n L 5000,4\nI  102,3\n");
    for (log, kind, needle) in [
        (&edge, "branch", "--trace-superblocks log"),
        (&mem, "edge", "--trace-mem log"),
    ] {
        assert_input_error(&hwprof(&["trace", "stats", log, "--kind", kind]), needle);
    }
    // Binary files of the first form (no kind byte) are still read, with any --kind.
    let mut v1 = b"HWPTRC1\n\x02".to_vec();
    v1.extend([2, 4, 2, 4]); // (1, 2), (2, 4)
    let p = d.join("v1.hwpt");
    std::fs::write(&p, v1).unwrap();
    let v = json(&hwprof(&[
        "trace",
        "stats",
        p.to_str().unwrap(),
        "--kind",
        "load",
        "--json",
    ]));
    assert_eq!(v["events"], 2);
    assert_eq!(v["top"][0], serde_json::json!([1, 2, 1]));
}

#[test]
fn config_show_and_set() {
    let paper = preset("paper-10k.toml");
    let text = hwprof_ok(&["config", "show", &paper]);
    assert!(
        text.contains("threshold") && text.contains("= 100"),
        "{text}"
    );
    let v = json(&hwprof(&["config", "show", &paper, "--json"]));
    assert_eq!(v["threshold"], 100, "T resolved from the percentage");
    assert_eq!(v["accumulator"]["entries"], 100, "A defaults to L / T");
    assert_eq!(v["memory_split_bits"]["counters"], 4 * 512 * 24);
    assert_eq!(
        v["memory_bits"].as_u64().unwrap(),
        v["memory_split_bits"]["counters"].as_u64().unwrap()
            + v["memory_split_bits"]["accumulator"].as_u64().unwrap()
    );
    // --set repeated; the threshold percentage follows the new interval.
    let v = json(&hwprof(&[
        "config",
        "show",
        &paper,
        "--json",
        "--set",
        "interval=20000",
        "--set",
        "accumulator.entries=64",
    ]));
    assert_eq!(
        (v["interval"].as_u64(), v["threshold"].as_u64()),
        (Some(20000), Some(200))
    );
    assert_eq!(v["accumulator"]["entries"], 64);
    let v = json(&hwprof(&[
        "config", "show", &paper, "--json", "--set", "hash=h3",
    ]));
    assert_eq!(v["hash"], "h3");
    // The model's JSON carries the configuration as fields.
    let v = json(&hwprof(&[
        "model",
        "--config",
        &paper,
        "--set",
        "interval=20000",
        "--trace",
        &bundled(),
        "--json",
    ]));
    assert_eq!(v["configuration"]["interval"], 20000);
    assert_eq!(v["configuration"]["tables"], 4);
    for (set, needle) in [
        ("interval", "key=value"),
        ("bogus=1", "bogus"),
        ("interval=0", "interval"),
    ] {
        assert_input_error(&hwprof(&["config", "show", &paper, "--set", set]), needle);
    }
    // --set reaches every kind of configuration file, also where `synth` reads it: an illegal
    // override is refused before any tool runs.
    let d = Scratch::new("ux-set-synth");
    for (config, set, needle) in [
        (
            "phase.toml",
            "phase.merge_threshold=100000",
            "merge_threshold",
        ),
        ("buffer-address-64.toml", "entries=3", "entries"),
    ] {
        let out = hwprof(&[
            "synth",
            "--config",
            &preset(config),
            "--target",
            "ice40-up5k",
            "--out",
            &d.join("synth").display().to_string(),
            "--set",
            set,
        ]);
        assert_input_error(&out, needle);
    }
}

#[test]
fn json_on_every_reporting_command() {
    let d = Scratch::new("ux-json");
    let cfg = small(&d);
    let v = json(&hwprof(&["tools", "status", "--json"]));
    assert_eq!(v["tools"].as_array().unwrap().len(), 5);
    let v = json(&hwprof(&[
        "verilog",
        "--config",
        &cfg,
        "--out",
        d.join("v").to_str().unwrap(),
        "--json",
    ]));
    assert!(v["files"][0].as_str().unwrap().ends_with(".v"));
    assert_eq!(v["configuration"]["interval"], 64);
    let v = json(&hwprof(&[
        "cosim", "--config", &cfg, "--stream", "mixed", "--events", "300", "--json",
    ]));
    assert_eq!(
        (v["mismatches"].as_u64(), v["trailing_events"].as_u64()),
        (Some(0), Some(300 % 64))
    );
    assert_eq!(v["configuration"]["accumulator"]["entries"], 4);
}

#[test]
fn no_wall_clock_in_default_output() {
    let d = Scratch::new("ux-clock");
    let cfg = small(&d);
    let model = hwprof_ok(&["model", "--config", &cfg, "--trace", &bundled()]);
    let cosim = hwprof_ok(&[
        "cosim", "--config", &cfg, "--stream", "mixed", "--events", "300",
    ]);
    for text in [model, cosim] {
        assert!(!text.contains("/s"), "a rate in the default output: {text}");
    }
}

#[test]
fn sweep_labels_traces_with_the_same_stem_apart() {
    let d = Scratch::new("ux-stems");
    let trace: String = (0..4000).map(|i| format!("{:x} 1\n", i % 13)).collect();
    for sub in ["a", "b"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
        std::fs::write(d.join(sub).join("t.txt"), &trace).unwrap();
    }
    let grid = d.write(
        "grid.toml",
        "points = [{ interval = 2000, threshold = \"2%\" }]\ntables = [2]\ntotal_entries = [64]\n",
    );
    let out = d.join("out");
    let v = json(&hwprof(&[
        "sweep",
        "--trace",
        d.join("a/t.txt").to_str().unwrap(),
        d.join("b/t.txt").to_str().unwrap(),
        "--grid",
        &grid,
        "--out",
        out.to_str().unwrap(),
        "--no-plots",
        "--json",
    ]));
    let mut labels: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["trace"].as_str().unwrap())
        .collect();
    labels.sort();
    labels.dedup();
    assert_eq!(labels, ["a/t", "b/t"]);
}

#[test]
fn trace_record_is_a_well_behaved_filter() {
    let d = Scratch::new("ux-record");
    let out = d.join("r.hwpt").display().to_string();
    // The program's output alone on stdout; the summary on stderr; its exit status passed on.
    // `trace record` of edges into `to`, of the program and arguments `program`.
    let record = |to: &str, program: &[&str]| {
        hwprof(
            &[
                &["trace", "record", "--kind", "edge", "-o", to, "--"][..],
                program,
            ]
            .concat(),
        )
    };
    let r = record(&out, &["/bin/sh", "-c", "echo hello; exit 3"]);
    assert_eq!(String::from_utf8_lossy(&r.stdout), "hello\n");
    assert_eq!(
        r.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(String::from_utf8_lossy(&r.stderr).contains("edge events"));
    let v = json(&hwprof(&["trace", "stats", &out, "--json"]));
    assert_eq!(v["kind"], "edge");
    assert!(
        v["events"].as_u64().unwrap() > 1000,
        "the dynamic loader alone runs thousands of superblocks"
    );
    // An unwritable output is refused before the program runs.
    let marker = d.join("ran");
    let r = record(
        "/proc/hwprof-no/such.hwpt",
        &["/usr/bin/touch", marker.to_str().unwrap()],
    );
    assert_input_error(&r, "cannot write");
    assert!(
        !marker.exists(),
        "the program ran although its trace could not be written"
    );
}

/// Every subcommand's help (`-h`): each option and argument has a line of help.
#[test]
fn every_option_has_help_text() {
    fn walk(path: Vec<String>, bare: &mut Vec<String>) {
        let mut args = path.clone();
        args.push("-h".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let text = hwprof_ok(&args);
        let lines: Vec<&str> = text.lines().collect();
        let mut section = "";
        let mut subcommands = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if !line.starts_with(' ') && line.ends_with(':') {
                section = line;
                continue;
            }
            // An entry: `  -o, --out <OUT>  Help…` or `      --json  Help…` (the spec, two spaces,
            // the help), or the help on the next, deeper indented line.
            let t = line.trim();
            let indent = line.len() - line.trim_start().len();
            let entry = match section {
                "Commands:" => indent == 2,
                _ => (2..=6).contains(&indent) && t.starts_with(['-', '<', '[']),
            };
            if !entry {
                continue;
            }
            let next_is_help = lines
                .get(i + 1)
                .is_some_and(|n| n.starts_with("          ") && !n.trim().is_empty());
            let described = t.contains("  ") || next_is_help;
            match section {
                "Commands:" => {
                    let name = t.split_whitespace().next().unwrap().to_string();
                    if name != "help" {
                        subcommands.push(name);
                    }
                    if !described {
                        bare.push(format!("{}: subcommand {t}", path.join(" ")));
                    }
                }
                "Options:" | "Arguments:" if !described => {
                    bare.push(format!("{}: {t}", path.join(" ")))
                }
                _ => {}
            }
        }
        for s in subcommands {
            let mut p = path.clone();
            p.push(s);
            walk(p, bare);
        }
    }
    let mut bare = Vec::new();
    walk(vec![], &mut bare);
    assert!(
        bare.is_empty(),
        "options without help:\n{}",
        bare.join("\n")
    );
}
