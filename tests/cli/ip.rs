//! Every block is IP: the profiler, its RVFI and Wishbone wrappers, the phase classifier, the
//! profile buffer and a counter bank are exported with a FuseSoC core each, and FuseSoC (PyPI
//! `fusesoc`, installed into .venv by scripts/venv.sh) runs every core's `lint` target (Verilator
//! `-Wall`) and the `sim` target (Icarus) of each core with a self-checking
//! testbench. Small configurations keep it quick.

use crate::common::*;
use std::path::Path;
use std::process::Command;

const SMALL_PHASE: &str = "[phase]\ninterval = 600\nbuckets = 8\ncounter_bits = 8\nq_bits = 4\n\
                           entries = 4\nthreshold = 6\nmarkov_entries = 8\n";
const SMALL_BUFFER: &str =
    "entries = 8\nindexing = \"set_associative\"\nways = 4\ntag_bits = 8\nsample_interval = 50\n";

/// `fusesoc run --target TARGET` of core `hwprof:designs:CORE` found under `dir/cores`; its log.
fn fusesoc(dir: &Path, target: &str, core: &str) -> String {
    let out = Command::new(root().join(".venv/bin/fusesoc"))
        .arg("--cores-root")
        .arg(dir.join("cores"))
        .args(["run", "--build-root"])
        .arg(dir.join(format!("build/{core}-{target}")))
        .args(["--target", target, &format!("hwprof:designs:{core}")])
        .output()
        .expect("fusesoc in .venv (scripts/venv.sh installs it)");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "fusesoc run --target {target} {core}:\n{log}"
    );
    log
}

#[test]
fn every_block_runs_under_fusesoc() {
    let venv = Command::new("bash")
        .arg(root().join("scripts/venv.sh"))
        .status()
        .expect("bash");
    assert!(venv.success(), "scripts/venv.sh");
    let d = Scratch::new("fusesoc");
    let small = d.write("small-2x16.toml", SMALL_CONFIG);
    let phase = d.write("phase-small.toml", SMALL_PHASE);
    let buffer = d.write("buffer-small.toml", SMALL_BUFFER);
    let out = |sub: &str| d.join("cores").join(sub).to_str().unwrap().to_string();
    hwprof_ok(&[
        "verilog",
        "--config",
        &small,
        "--testbench",
        "--out",
        &out("profiler"),
    ]);
    hwprof_ok(&[
        "verilog",
        "--config",
        &small,
        "--rvfi",
        "--out",
        &out("rvfi"),
    ]);
    hwprof_ok(&[
        "verilog",
        "--config",
        &small,
        "--wishbone",
        "--testbench",
        "--out",
        &out("wb"),
    ]);
    for (cfg, sub) in [(&phase, "phase"), (&buffer, "buffer")] {
        hwprof_ok(&[
            "verilog",
            "--config",
            cfg,
            "--testbench",
            "--out",
            &out(sub),
        ]);
    }
    let bank = d.write("bank.toml", "[counters]\nkind = \"exact\"\n");
    hwprof_ok(&[
        "verilog",
        "--config",
        &bank,
        "--testbench",
        "--out",
        &out("bank"),
    ]);
    for core in [
        "small_2x16",
        "small_2x16_rvfi",
        "small_2x16_wb",
        "phase_small",
        "buffer_small",
        "exact_bank_29",
    ] {
        let log = fusesoc(d.path(), "lint", core);
        assert!(!log.contains("%Warning"), "{core}: lint warnings:\n{log}");
    }
    // The self-checking testbenches under FuseSoC's Icarus flow: each compares its results with
    // the model's, line by line or report by report.
    for core in [
        "small_2x16",
        "small_2x16_wb",
        "phase_small",
        "buffer_small",
        "exact_bank_29",
    ] {
        let log = fusesoc(d.path(), "sim", core);
        assert!(
            log.contains("PASS") && !log.contains("FAIL"),
            "{core}: the testbench did not pass:\n{log}"
        );
    }
}
