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
        "--testbench",
        "--out",
        &out("rvfi"),
    ]);
    // The drop policy on two clocks: the expected reports are of the events that entered.
    let drop = d.write("small-drop.toml", SMALL_CONFIG);
    hwprof_ok(&[
        "verilog",
        "--config",
        &drop,
        "--rvfi",
        "--mode",
        "edge",
        "--policy",
        "drop",
        "--async",
        "--testbench",
        "--out",
        &out("rvfi-drop"),
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
        "small_drop_rvfi",
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
        "small_2x16_rvfi",
        "small_drop_rvfi",
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

/// The RVFI wrapper's testbench, run as its `sim` target runs it (Icarus, from the export
/// directory), passes, and fails on one wrong expected count; `--policy drop --testbench` with
/// intervals too long to co-simulate is refused.
#[test]
fn the_rvfi_testbench_passes_and_fails_on_a_wrong_line() {
    let d = Scratch::new("rvfi-tb");
    let small = d.write("small-2x16.toml", SMALL_CONFIG);
    let dir = d.join("out");
    hwprof_ok(&[
        "verilog",
        "--config",
        &small,
        "--rvfi",
        "--testbench",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let m = "hwprof_small_2x16_rvfi";
    let sim = |tag: &str| -> String {
        let vvp = d.join(&format!("{tag}.vvp"));
        let built = Command::new("iverilog")
            .args(["-g2012", "-o", vvp.to_str().unwrap()])
            .arg(dir.join(format!("{m}.v")))
            .arg(dir.join(format!("tb_{m}.v")))
            .status()
            .expect("iverilog");
        assert!(built.success());
        let out = Command::new("vvp")
            .arg(&vvp)
            .current_dir(&dir)
            .output()
            .expect("vvp");
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let expected_file = dir.join(format!("{m}_expected.txt"));
    let expected = std::fs::read_to_string(&expected_file).unwrap();
    let log = sim("good");
    let lines = expected.lines().count();
    assert!(
        log.contains(&format!("PASS {lines}")) && !log.contains("FAIL"),
        "{log}"
    );
    let line = expected.lines().find(|l| l.starts_with("W E ")).unwrap();
    let (head, count) = line.rsplit_once(' ').unwrap();
    let wrong = format!("{head} {:08x}", u32::from_str_radix(count, 16).unwrap() + 1);
    std::fs::write(&expected_file, expected.replacen(line, &wrong, 1)).unwrap();
    let log = sim("bad");
    assert!(log.contains("FAIL") && !log.contains("PASS"), "{log}");
    let long = d.write(
        "long.toml",
        &SMALL_CONFIG.replace("interval = 64", "interval = 45000"),
    );
    let out = hwprof(&[
        "verilog",
        "--config",
        &long,
        "--rvfi",
        "--policy",
        "drop",
        "--testbench",
        "--out",
        d.join("long").to_str().unwrap(),
    ]);
    assert_input_error(&out, "--policy stall");
}
