//! `hwprof counters`: bad input exits with code 2 and a message; the study's JSON has its kinds.

use crate::common::*;

#[test]
fn bad_counters_input_exits_2() {
    for args in [
        &["counters", "study", "--runs", "0"][..],
        &["counters", "study", "--runs", "many"][..],
        &["counters", "area", "--family", "xc7"][..],
        &[
            "counters",
            "verilog",
            "--kind",
            "morris",
            "-o",
            "/nonexistent-dir/x.v",
        ][..],
    ] {
        let o = hwprof(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!o.stderr.is_empty(), "{args:?} says why");
    }
}

#[test]
fn study_json_lists_every_kind() {
    let o = hwprof(&["counters", "study", "--runs", "1", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let kinds = v["kinds"].as_array().unwrap();
    let names: Vec<&str> = kinds.iter().map(|k| k["name"].as_str().unwrap()).collect();
    assert!(names[0].contains("morris") && !names[0].contains("ideal"));
    assert!(names.iter().any(|n| n.contains("ideal")));
    assert!(names.iter().any(|n| n.contains("float")));
    for k in kinds {
        for f in ["bits_per_event", "min", "q1", "median", "mean", "q3", "max"] {
            assert!(k[f].is_number(), "{f} of {}", k["name"]);
        }
        assert!(k["min"].as_f64() <= k["median"].as_f64());
        assert!(k["median"].as_f64() <= k["max"].as_f64());
    }
}
