//! `hwprof buffer` end to end: JSON fields on a small branch trace, exit code 2 on bad input.

use crate::common::*;

#[test]
fn buffer_json_and_bad_input() {
    let dir = std::env::temp_dir().join(format!("hwprof-buffer-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.txt");
    // Text form: `pc taken` in hex. 0x10 and 0x18 alias in 8 entries; 0x21 does not.
    std::fs::write(&trace, "# branch trace\n10 1\n18 0\n10 1\n10 1\n21 0\n").unwrap();
    let cfg = dir.join("b.toml");
    std::fs::write(&cfg, "entries = 8\nindexing = \"address\"\n").unwrap();
    let (c, t) = (cfg.to_str().unwrap(), trace.to_str().unwrap());
    let out = hwprof(&["buffer", "--config", c, "--trace", t, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["events"], 5);
    assert_eq!(j["branches"], 3);
    assert!((j["contention"].as_f64().unwrap() - 0.4).abs() < 1e-12);
    assert!((j["arc_error"].as_f64().unwrap() - 0.3).abs() < 1e-12);

    std::fs::write(&cfg, "entries = 8\nindexing = \"address\"\ntag_bits = 8\n").unwrap();
    let out = hwprof(&["buffer", "--config", c, "--trace", t]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tag_bits"));

    std::fs::write(&cfg, "entries = 8\nindexing = \"address\"\n").unwrap();
    std::fs::write(&trace, "10 1\n18 2\n").unwrap();
    let out = hwprof(&["buffer", "--config", c, "--trace", t]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tuple 1"));
    let _ = std::fs::remove_dir_all(&dir);
}
