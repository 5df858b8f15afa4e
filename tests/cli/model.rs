//! The command-line tool end to end: bad input is rejected with exit code 2 and a message naming
//! the problem; the model, trace and demo commands produce what they promise.

use crate::common::*;

#[test]
fn bad_configs_name_the_field() {
    let d = Scratch::new("cli-cfg");
    let base = std::fs::read_to_string(preset("paper-10k.toml")).unwrap();
    let replace = |key: &str, line: &str| -> String {
        base.lines()
            .map(|l| {
                if l.starts_with(key) {
                    line.to_string()
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let cases = [
        (replace("tables", "tables = 0"), "tables"),
        (replace("entries", "entries = 500"), "entries"),
        (replace("threshold", "threshold = 0"), "threshold"),
        (replace("threshold", "threshold = 20000"), "threshold"),
        (replace("counter_bits", "counter_bits = 5"), "counter_bits"),
        (replace("a_bits", "a_bits = 0"), "a_bits"),
        (replace("b_bits", "b_bits = 65"), "b_bits"),
        (format!("{base}\nentries = 0\n"), "accumulator.entries"),
        (format!("bogus_field = 3\n{base}"), "bogus_field"),
    ];
    let trace = bundled();
    for (i, (text, needle)) in cases.iter().enumerate() {
        let cfg = d.write(&format!("c{i}.toml"), text);
        assert_input_error(
            &hwprof(&["model", "--config", &cfg, "--trace", &trace]),
            needle,
        );
    }
    let missing = d.join("missing.toml").display().to_string();
    assert_input_error(
        &hwprof(&["model", "--config", &missing, "--trace", &trace]),
        "cannot read",
    );
}

#[test]
fn bad_traces_name_the_line_or_offset() {
    let d = Scratch::new("cli-trace");
    let cfg = preset("paper-10k.toml");
    let bad = d.write(
        "bad.lackey",
        "SB 0401ab70\nSB 0401b7e7\nSB zzzz\nSB 0401b819\n",
    );
    assert_input_error(
        &hwprof(&["model", "--config", &cfg, "--trace", &bad, "--kind", "edge"]),
        "line 3",
    );
    let wrong_kind = d.write("load.lackey", "I  0401ab70,3\n L 1ffeffdb48,4\n");
    assert_input_error(
        &hwprof(&[
            "model",
            "--config",
            &cfg,
            "--trace",
            &wrong_kind,
            "--kind",
            "edge",
        ]),
        "line 1",
    );
    let gz = std::fs::read(bundled()).unwrap();
    let cut = d.join("cut.gz");
    std::fs::write(&cut, &gz[..gz.len() / 2]).unwrap();
    assert_input_error(
        &hwprof(&["model", "--config", &cfg, "--trace", cut.to_str().unwrap()]),
        "ends early",
    );
    assert_input_error(
        &hwprof(&["model", "--config", &cfg, "--trace", "/nonexistent.gz"]),
        "cannot open",
    );
    assert_eq!(
        hwprof(&["model", "--config", &cfg]).status.code(),
        Some(2),
        "missing --trace"
    );
}

#[test]
fn model_json_has_the_promised_keys() {
    let out = hwprof(&[
        "model",
        "--config",
        &preset("paper-10k.toml"),
        "--trace",
        &bundled(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["net_error", "intervals", "events", "events_per_second"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for key in ["np", "nn", "fp", "fn"] {
        assert!(v["split"].get(key).is_some(), "missing split.{key}");
    }
    assert_eq!(v["events"], 1_382_034);
    assert_eq!(v["intervals"], 138);
    let e = v["net_error"].as_f64().unwrap();
    assert!(
        (0.0..0.05).contains(&e),
        "paper preset on a real trace: {e}"
    );
}

#[test]
fn trace_convert_and_stats() {
    let d = Scratch::new("cli-conv");
    let lackey = d.write("e.lackey", "SB 10\nSB 20\nSB 10\nSB 20\nSB 30\n");
    for out in ["e.txt", "e.hwpt", "e.hwpt.gz"] {
        let o = d.join(out).display().to_string();
        assert!(hwprof(&["trace", "convert", &lackey, &o, "--kind", "edge"])
            .status
            .success());
        let s = hwprof(&["trace", "stats", &o, "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&s.stdout).unwrap();
        assert_eq!(
            (v["events"].as_u64(), v["distinct"].as_u64()),
            (Some(4), Some(3)),
            "{out}"
        );
        assert_eq!(v["top"][0], serde_json::json!([0x10, 0x20, 2]));
    }
}

#[test]
fn demo_runs_on_the_bundled_trace() {
    // The synthesis part is the main job's, minutes long: not in the test suite.
    let d = Scratch::new("cli-demo");
    let out = hwprof(&["demo", "--no-synth", "--out", d.path().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("multi-hash net error"), "{s}");
}
