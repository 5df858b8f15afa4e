//! `hwprof report`: flat profiles from the reports of a program on the system and of the model.

use crate::common::*;

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// A program with one hot loop over a table: its loads are the hot value tuples.
const HOT_C: &str = "#include <stdint.h>\nstatic volatile uint32_t table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n\
    int main(void) {\n  uint32_t s = 0;\n  for (int r = 0; r < 3000; r++)\n    s += table[r & 7];\n  return s == 0;\n}\n";

#[test]
fn a_flat_profile_of_a_program_names_its_source_lines_and_matches_the_hardware() {
    let s = Scratch::new("report-soc");
    let prog = s.write("hot.c", HOT_C);
    let out = s.join("run").display().to_string();
    let run = json(&hwprof_ok(&[
        "soc", "run", "--c", &prog, "--out", &out, "--json",
    ]));
    assert_eq!(run["mismatches"], 0, "{run}");
    let reports = format!("{out}/reports.jsonl");
    let elf = format!("{out}/program.elf");
    let p = json(&hwprof_ok(&[
        "report", &reports, "--elf", &elf, "--format", "json",
    ]));
    let rows = p["rows"].as_array().unwrap();
    assert!(rows.len() >= 3, "{p}");
    for w in rows.windows(2) {
        assert!(w[0]["count"].as_u64() >= w[1]["count"].as_u64(), "{p}");
    }
    // The hottest value tuple is the loop's load of the table, in main, on the loop's line.
    let top = rows
        .iter()
        .find(|r| r["mode"] == "value")
        .expect("a value row");
    assert!(
        top["function"].as_str().unwrap().starts_with("main"),
        "{top}"
    );
    assert!(top["file"].as_str().unwrap().ends_with("hot.c"), "{top}");
    assert_eq!(top["line"], 6, "{top}");
    assert!(top["value_symbol"].is_null() || top["value_symbol"].is_string());
    // Counts are the hardware's: summed, they equal what its reports of that mode hold.
    let summed: u64 = run["value"]["hardware_reports"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["entries"].as_array().unwrap().clone())
        .map(|e| e["count"].as_u64().unwrap())
        .sum();
    let in_rows: u64 = rows
        .iter()
        .filter(|r| r["mode"] == "value")
        .map(|r| r["count"].as_u64().unwrap())
        .sum();
    assert_eq!(summed, in_rows);
    // The exact counts of the same stream give every row an error column.
    assert!(
        rows.iter()
            .all(|r| r["exact"].as_u64().unwrap() > 0 && r["error"].is_f64()),
        "{p}"
    );
    // Edge rows name both ends.
    assert!(rows
        .iter()
        .any(|r| r["mode"] == "edge" && r["to"]["function"].is_string()));
    // The same profile from `soc run --json`, as CSV with a header and one line per row.
    let run_json = s.write("run.json", &run.to_string());
    let csv = hwprof_ok(&["report", &run_json, "--format", "csv"]);
    assert!(
        csv.starts_with("rank,mode,share,count,intervals,function"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), rows.len() + 1);
    let table = hwprof_ok(&["report", &reports, "--elf", &elf, "--top", "3"]);
    assert!(table.contains("hot.c:6"), "{table}");
    let heat = s.join("heat.svg");
    hwprof_ok(&["report", &reports, "--plot", &heat.display().to_string()]);
    assert!(std::fs::read_to_string(&heat).unwrap().contains("<svg"));
}

#[test]
fn the_models_reports_become_a_flat_profile_with_exact_counts() {
    let s = Scratch::new("report-model");
    let r = s.join("r.jsonl").display().to_string();
    let cfg = preset("paper-10k.toml");
    hwprof_ok(&[
        "model",
        "--config",
        &cfg,
        "--trace",
        &bundled(),
        "--reports",
        &r,
    ]);
    let p = json(&hwprof_ok(&["report", &r, "--format", "json"]));
    assert_eq!(p["share_of"], "events");
    let rows = p["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(rows
        .iter()
        .all(|r| r["mode"] == "load" && r["exact"].is_u64()));
    let total: f64 = rows.iter().map(|r| r["share"].as_f64().unwrap()).sum();
    assert!(total > 0.0 && total <= 100.0 + 1e-9, "{total}");
}

#[test]
fn report_refuses_bad_input_with_exit_code_2() {
    let s = Scratch::new("report-bad");
    let empty = s.write("empty.txt", "");
    assert_input_error(&hwprof(&["report", &empty]), "empty");
    let chatter = s.write("chatter.txt", "hello\r\nworld\r\n");
    assert_input_error(&hwprof(&["report", &chatter]), "no report line");
    let bad = s.write(
        "bad.jsonl",
        "{\"record\": \"interval\", \"mode\": \"value\"}\n",
    );
    assert_input_error(&hwprof(&["report", &bad]), "bad.jsonl:1:");
    let ok = s.write(
        "ok.txt",
        "00000000 00000010 00000020 00000005\r\n00000000 end\r\n",
    );
    let not_elf = s.write("x.elf", "no");
    assert_input_error(&hwprof(&["report", &ok, "--elf", &not_elf]), "not an ELF");
    assert_input_error(&hwprof(&["report", &ok, "--plot", "x.pdf"]), ".svg or .png");
    let missing = s.join("missing").display().to_string();
    assert_input_error(&hwprof(&["report", &missing]), "missing");
}

#[test]
fn verilog_wishbone_exports_a_slave_that_lints_clean_and_a_header_that_compiles() {
    let s = Scratch::new("wb-export");
    let out = s.join("out");
    hwprof_ok(&[
        "verilog",
        "--config",
        &preset("soc-bram.toml"),
        "--wishbone",
        "--out",
        out.to_str().unwrap(),
    ]);
    let v = std::fs::read_to_string(out.join("hwprof_soc_bram_wb.v")).unwrap();
    for port in ["wb_cyc", "wb_ack", "wb_dat_r", "irq", "in_dropped"] {
        assert!(v.contains(port), "{port}");
    }
    let lint = std::process::Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", "hwprof_soc_bram_wb"])
        .arg(out.join("hwprof_soc_bram_wb.v"))
        .output()
        .expect("verilator (installed by scripts/test.sh)");
    assert!(
        lint.status.success(),
        "{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    // The header is freestanding C: a program on the profiled CPU includes it.
    let user = s.write(
        "user.c",
        "#include \"hwprof_soc_bram.h\"\nint drain(void)\n{\n\thwprof_soc_bram_word w;\n\tint n = 0;\n\
         \twhile (hwprof_soc_bram_read(0x20000000u, &w))\n\t\tn += w.count != 0;\n\treturn n;\n}\n",
    );
    let cc = std::process::Command::new("riscv64-unknown-elf-gcc")
        .args([
            "-march=rv32i",
            "-mabi=ilp32",
            "-ffreestanding",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-c",
        ])
        .arg(format!("-I{}", out.display()))
        .arg(&user)
        .arg("-o")
        .arg(s.join("user.o"))
        .output()
        .expect("riscv64-unknown-elf-gcc (installed by scripts/test.sh)");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    assert_input_error(
        &hwprof(&[
            "verilog",
            "--config",
            &preset("soc-bram.toml"),
            "--wishbone",
            "--rvfi",
            "--out",
            out.to_str().unwrap(),
        ]),
        "cannot be used with",
    );
}
