//! `hwprof phase`: the classifier on a synthetic two-phase lackey log, and bad input.

use crate::common::*;

/// A `--trace-mem` log with two loops alternating in blocks of `block` iterations: loop A
/// (pcs 0x1000.., a load striding over 1 KiB) and loop B (pcs 0x2345000.., loads over 256 KiB).
fn two_phase_log(blocks: usize, block: usize) -> String {
    let mut s = String::new();
    let mut addr = 0u64;
    for k in 0..blocks {
        for _ in 0..block {
            let (base, span) = if k % 2 == 0 {
                (0x1000, 1 << 10)
            } else {
                (0x234_5000, 1 << 18)
            };
            addr = (addr + 64) % span;
            // Loop B loads twice an iteration: memory operations per instruction 0.2 vs 0.4.
            let extra = if k % 2 == 0 {
                String::new()
            } else {
                format!(" L {:x},8\n", 0x20_0000 + addr)
            };
            // Three taken branches an iteration: base+4 → base+0x40, base+0x44 → base+0x80 → base.
            s.push_str(&format!(
                "I  {:x},4\n L {:x},8\nI  {:x},2\nI  {:x},4\nI  {:x},2\nI  {:x},2\n",
                base,
                0x10_0000 + addr,
                base + 4,
                base + 0x40,
                base + 0x44,
                base + 0x80
            ));
            s.push_str(&extra);
        }
    }
    s
}

#[test]
fn two_phases_found_and_scored() {
    let d = Scratch::new("phase");
    let cfg = d.write("p.toml", "[phase]\ninterval = 600\nbuckets = 8\ncounter_bits = 8\nq_bits = 4\nentries = 4\nthreshold = 4\nmarkov_entries = 8\n");
    let log = d.write("t.lackey", &two_phase_log(6, 1200));
    let out = hwprof_ok(&[
        "phase",
        "--config",
        &cfg,
        "--trace",
        &log,
        "--kind",
        "branch",
        "--json",
        "--cosim",
        "--metric",
        "mem-ops-per-instruction",
    ]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["phases"], 2, "{out}");
    assert_eq!(j["mismatches"], 0);
    assert!(
        j["ccov"].as_f64().unwrap() < j["cov_whole"].as_f64().unwrap(),
        "{out}"
    );
    assert!(j["intervals"].as_u64().unwrap() >= 50);
    assert_eq!(j["metric"], "mem_ops_per_instruction");
}

#[test]
fn bad_input_is_named() {
    let d = Scratch::new("phase-bad");
    let log = d.write("t.lackey", &two_phase_log(2, 10));
    let bad = d.write("bad.toml", "[phase]\nbuckets = 24\n");
    assert_input_error(
        &hwprof(&[
            "phase", "--config", &bad, "--trace", &log, "--kind", "branch",
        ]),
        "buckets",
    );
    let ok = d.write("ok.toml", "[phase]\ninterval = 1000000\n");
    assert_input_error(
        &hwprof(&[
            "phase", "--config", &ok, "--trace", &log, "--kind", "branch",
        ]),
        "no interval closes",
    );
    let junk = d.write("junk.lackey", "I  zz,4\n");
    assert_input_error(
        &hwprof(&[
            "phase", "--config", &ok, "--trace", &junk, "--kind", "branch",
        ]),
        "line 1",
    );
}

#[test]
fn sweep_and_similarity_figures() {
    let d = Scratch::new("phase-sweep");
    let cfg = d.write("p.toml", "[phase]\ninterval = 600\nbuckets = 8\ncounter_bits = 8\nq_bits = 4\nentries = 4\nthreshold = 4\nmarkov_entries = 8\n");
    let log = d.write("t.lackey", &two_phase_log(6, 600));
    let png = d.join("sim.png");
    let dir = d.join("sweep");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "phase", "--config", &cfg, "--trace", &log, "--kind", "branch",
        ];
        args.extend_from_slice(extra);
        hwprof(&args)
    };
    let ok = |extra: &[&str]| {
        let out = run(extra);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let j = ok(&["--json", "--similarity", png.to_str().unwrap()]);
    assert_eq!(j["phases"], 2, "{j}");
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    assert_input_error(&run(&["--similarity", "sim.svg"]), "PNG");

    let j = ok(&["--json", "--sweep", dir.to_str().unwrap()]);
    let rows = j["rows"].as_array().unwrap();
    // The default grid around an 8-bucket, Q = 4 base: every combination the rules allow.
    assert!(rows.len() > 100, "{}", rows.len());
    assert!(rows.iter().any(|r| r["phases"] == 2 && r["buckets"] == 16));
    let csv = std::fs::read_to_string(dir.join("phase-sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), rows.len() + 1);
    assert!(csv.starts_with("threshold,buckets,q_bits,entries,centre,sample_every,storage_bits"));
    for f in ["ccov-vs-phases.svg", "ccov-vs-bits.png"] {
        assert!(dir.join("plots").join(f).is_file(), "{f}");
    }
}
