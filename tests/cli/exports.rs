//! Exported Verilog users integrate: every export (profilers, counter banks, profile buffers,
//! board tops) is named `hwprof_<design>`, lints clean under `verilator -Wall` as it is (its
//! waivers are inside it, whatever the file is named), elaborates in Yosys without logic loops or latches, and
//! `verilog_out/` holds exactly the current exports of the presets that fit an FPGA.

use crate::common::*;
use std::path::Path;
use std::process::Command;

/// The presets in `verilog_out/`, with the board whose top is exported (None: the profiler).
const VERILOG_OUT: &[(&str, Option<&str>)] = &[
    ("paper-10k-bram", None),
    ("paper-1m-bram", None),
    ("board-icebreaker", Some("icebreaker")),
    ("board-ulx3s", Some("ulx3s")),
];

fn export_preset(name: &str, board: Option<&str>, out: &Path) {
    let cfg = preset(&format!("{name}.toml"));
    let mut args = vec!["verilog", "--config", &cfg, "--out", out.to_str().unwrap()];
    match board {
        Some(b) => args.extend(["--board", b]),
        None => args.push("--testbench"),
    }
    hwprof_ok(&args);
}

fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn verilog_out_is_fresh() {
    let d = Scratch::new("verilog-out");
    for (name, board) in VERILOG_OUT {
        export_preset(name, *board, d.path());
    }
    let want = files_of(d.path());
    let have = files_of(&root().join("verilog_out"));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    let fix = "verilog_out/ is stale: regenerate it with `hwprof verilog --config configs/P.toml --testbench --out verilog_out` \
               for P = paper-10k-bram, paper-1m-bram, and `hwprof verilog --config configs/board-B.toml --board B --out verilog_out` \
               for B = icebreaker, ulx3s";
    assert_eq!(names(&have), names(&want), "{fix}");
    for ((f, a), (_, b)) in have.iter().zip(&want) {
        assert!(a == b, "{f}: {fix}");
    }
}

/// A preset's `[target.<name>]` section changes that target's hardware only: the HX8K's export
/// of paper-10k-bram is the one with the write stage, the flags from rows and the narrow tag
/// compare, the UP5K's (no section) the file's own, and a top-level `--set` wins over the section.
#[test]
fn target_sections_give_each_part_its_hardware() {
    let d = Scratch::new("target-sections");
    let cfg = preset("paper-10k-bram.toml");
    let export = |sub: &str, extra: &[&str]| -> Vec<u8> {
        let out = d.path().join(sub);
        let mut args = vec!["verilog", "--config", &cfg, "--out", out.to_str().unwrap()];
        args.extend(extra);
        hwprof_ok(&args);
        std::fs::read(out.join("hwprof_paper_10k_bram.v")).expect("the exported Verilog")
    };
    let own = export("own", &[]);
    let hx8k = export("hx8k", &["--target", "ice40-hx8k"]);
    let with_stage = export(
        "set",
        &[
            "--set",
            "write_stage=true",
            "--set",
            "flag_rows=true",
            "--set",
            "narrow_tag_compare=true",
        ],
    );
    assert!(hx8k != own, "the HX8K section adds the write stage");
    assert!(
        hx8k == with_stage,
        "the section is the same as --set write_stage=true --set flag_rows=true \
         --set narrow_tag_compare=true"
    );
    let up5k = export("up5k", &["--target", "ice40-up5k"]);
    assert!(up5k == own, "no section: the file's own options");
    let forced = export(
        "forced",
        &[
            "--set",
            "write_stage=false",
            "--set",
            "flag_rows=false",
            "--set",
            "narrow_tag_compare=false",
            "--target",
            "ice40-hx8k",
        ],
    );
    assert!(forced == own, "a top-level --set wins over the section");
}

fn run(tool: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool} ({e}): scripts/test.sh installs it"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The top module of an exported file: the one declared that no other instantiates.
fn top_module(v: &str) -> String {
    let modules: Vec<String> = v
        .lines()
        .filter_map(|l| l.strip_prefix("module "))
        .map(|l| l.split('(').next().unwrap().trim().to_string())
        .collect();
    let instantiated = |m: &str| {
        v.lines().any(|l| {
            l.trim_start()
                .strip_prefix(m)
                .is_some_and(|r| r.starts_with(' '))
        })
    };
    let tops: Vec<_> = modules.iter().filter(|m| !instantiated(m)).collect();
    assert_eq!(tops.len(), 1, "one top module: {tops:?}");
    tops[0].clone()
}

#[test]
fn every_export_lints_clean_as_it_is() {
    let d = Scratch::new("exports");
    let small = d.write("small-2x16.toml", SMALL_CONFIG);
    let dir = d.path().to_str().unwrap();
    hwprof_ok(&["verilog", "--config", &small, "--out", dir]);
    hwprof_ok(&[
        "verilog",
        "--config",
        &preset("paper-10k-bram.toml"),
        "--testbench",
        "--out",
        dir,
    ]);
    hwprof_ok(&[
        "verilog",
        "--config",
        &preset("board-icebreaker.toml"),
        "--board",
        "icebreaker",
        "--out",
        dir,
    ]);
    hwprof_ok(&["verilog", "--config", &small, "--rvfi", "--out", dir]);
    hwprof_ok(&["verilog", "--config", &small, "--wishbone", "--out", dir]);
    hwprof_ok(&["verilog", "--config", &preset("phase.toml"), "--out", dir]);
    hwprof_ok(&[
        "verilog",
        "--config",
        &preset("buffer-address-256.toml"),
        "--out",
        dir,
    ]);
    // Any file name: the waivers travel inside the file.
    for k in ["morris", "float", "exact"] {
        hwprof_ok(&[
            "counters",
            "verilog",
            "--kind",
            k,
            "-o",
            &format!("{dir}/{k}.v"),
        ]);
    }
    for b in [
        "buffer-address-64",
        "buffer-compiler-64",
        "buffer-assoc4-64",
    ] {
        let out = format!("{dir}/hwprof_{b}.v");
        hwprof_ok(&[
            "buffer",
            "--config",
            &preset(&format!("{b}.toml")),
            "--verilog",
            &out,
        ]);
    }
    let mut designs = Vec::new();
    for (f, text) in files_of(d.path()) {
        if !f.ends_with(".v") || f.starts_with("tb_") {
            continue;
        }
        let text = String::from_utf8(text).unwrap();
        let top = top_module(&text);
        assert!(top.starts_with("hwprof_"), "{f}: top module {top}");
        assert!(!text.contains("module top"), "{f}: a module named top");
        let path = d.join(&f);
        let path = path.to_str().unwrap();
        let (ok, log) = run("verilator", &["--lint-only", "-Wall", path]);
        assert!(
            ok && !log.contains("%Warning"),
            "{f}: verilator -Wall:\n{log}"
        );
        // A board top's PLL is a vendor cell (instantiated under `SYNTHESIS`): Yosys reads its
        // family's cell library as black boxes.
        let lib = if text.contains("SB_PLL40_PAD") {
            "read_verilog -lib +/ice40/cells_sim.v; "
        } else if text.contains("EHXPLLL") {
            "read_verilog -lib +/ecp5/cells_bb.v; "
        } else {
            ""
        };
        let script = format!(
            "{lib}read_verilog {path}; hierarchy -top {top}; proc; check -assert; \
             select -assert-none t:$dlatch t:$adlatch t:$dlatchsr"
        );
        let (ok, log) = run("yosys", &["-q", "-p", &script]);
        assert!(ok, "{f}: yosys check:\n{log}");
        designs.push(top);
    }
    // A testbench elaborates beside its design: lint the two together.
    let tb = d.join("tb_hwprof_paper_10k_bram.v");
    let dut = d.join("hwprof_paper_10k_bram.v");
    let (ok, log) = run(
        "verilator",
        &[
            "--lint-only",
            "-Wall",
            "--timing",
            tb.to_str().unwrap(),
            dut.to_str().unwrap(),
            "--top-module",
            "tb_hwprof_paper_10k_bram",
        ],
    );
    assert!(ok, "testbench: verilator -Wall:\n{log}");
    assert_eq!(designs.len(), 13, "{designs:?}");
    designs.sort();
    designs.dedup();
    assert_eq!(
        designs.len(),
        13,
        "every design has its own top module name"
    );
}

/// The waivers end with the export's file: a width bug in the user's own file beside an export
/// is still reported, and the export itself still lints clean.
#[test]
fn waivers_do_not_silence_the_users_code() {
    let d = Scratch::new("user-code");
    let small = d.write("small-2x16.toml", SMALL_CONFIG);
    hwprof_ok(&[
        "verilog",
        "--config",
        &small,
        "--out",
        d.path().to_str().unwrap(),
    ]);
    let user = d.write(
        "soc_top.v",
        "module soc_top(input wire clock, input wire reset, input wire [15:0] pc, output wire [3:0] led);\n\
         \x20 wire in_ready, out_valid, out_last, flush_pending;\n\
         \x20 wire [31:0] out_interval, out_count;\n\
         \x20 wire [63:0] out_a, out_b;\n\
         \x20 // The planted bug: 32 bits into 4.\n\
         \x20 assign led = out_count;\n\
         \x20 hwprof_small_2x16 p(.clock(clock), .reset(reset), .in_valid(1'b1), .in_ready(in_ready),\n\
         \x20   .in_a({48'd0, pc}), .in_b(64'd0), .out_valid(out_valid), .out_ready(1'b1),\n\
         \x20   .out_interval(out_interval), .out_a(out_a), .out_b(out_b), .out_count(out_count),\n\
         \x20   .out_last(out_last), .interval_length(41'd64), .threshold(32'd4), .flush(1'b0),\n\
         \x20   .flush_pending(flush_pending));\n\
         endmodule\n",
    );
    let dut = d.join("hwprof_small_2x16.v");
    // The user's file after the export: read after the export's lint_on.
    let (ok, log) = run(
        "verilator",
        &[
            "--lint-only",
            "-Wall",
            "-Wno-UNUSEDSIGNAL",
            dut.to_str().unwrap(),
            &user,
            "--top-module",
            "soc_top",
        ],
    );
    assert!(!ok, "the width bug is reported:\n{log}");
    let warnings: Vec<_> = log.lines().filter(|l| l.starts_with("%Warning")).collect();
    assert!(
        !warnings.is_empty()
            && warnings
                .iter()
                .all(|l| l.contains("WIDTH") && l.contains("soc_top.v:6")),
        "one warning, the planted one:\n{log}"
    );
}
