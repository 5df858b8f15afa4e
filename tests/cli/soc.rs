//! `hwprof soc`: the program list and bad input (whole runs are the hwprof-sim test and the
//! benchmark in docs/RESULTS.md).

use crate::common::*;

#[test]
fn soc_lists_its_programs() {
    let out = hwprof_ok(&["soc", "list"]);
    for p in [
        "dhrystone",
        "sieve",
        "multest",
        "stats",
        "sort",
        "crc",
        "matmul",
        "hash",
    ] {
        assert!(
            out.lines().any(|l| l.starts_with(p)),
            "{p} missing from:\n{out}"
        );
    }
}

#[test]
fn soc_refuses_bad_input_with_exit_code_2() {
    let out = hwprof(&["soc", "run", "--program", "quake"]);
    assert_input_error(&out, "unknown program \"quake\"");
    let out = hwprof(&["soc", "run", "--program", "sieve", "--short"]);
    assert_input_error(&out, "has no short input");
    // `soc run --program crc --short` with one more option and its value.
    let crc_with = |option: &str, value: &str| {
        hwprof(&["soc", "run", "--program", "crc", "--short", option, value])
    };
    let s = Scratch::new("soc-config");
    let narrow = s.write("narrow.toml", &format!("a_bits = 16\n{SMALL_CONFIG}"));
    assert_input_error(
        &crc_with("--config", &narrow),
        "a_bits and b_bits must be at least 32",
    );
    let compiler = s.write("compiler.toml", "entries = 64\nindexing = \"compiler\"\n");
    assert_input_error(&crc_with("--buffer-config", &compiler), "compiler indexing");
    let shape = s.write("shape.toml", "[phase]\nbuckets = 64\n");
    assert_input_error(&crc_with("--phase-config", &shape), "no RTL shape");
    for (option, path) in [
        ("--phase-config", "/nonexistent/p.toml"),
        ("--phase-plot", "/nonexistent/dir/phases"),
    ] {
        assert_input_error(&crc_with(option, path), path);
    }
}

#[test]
fn soc_board_bitstream_and_decode_refuse_bad_input_with_exit_code_2() {
    // `soc board` with a board and program (and more) it refuses, and what its message names.
    for (board, program, more, message) in [
        ("arty", "crc", &[][..], "unknown board \"arty\""),
        ("icebreaker", "multest", &[], "M extension"),
        ("ulx3s", "multest", &["--cpu", "serv"], "M extension"),
        (
            "ulx3s",
            "crc",
            &["--cpu", "rocket"],
            "invalid value 'rocket'",
        ),
        // A run too short to tap an event compares nothing: refused, not a perfect score.
        (
            "ulx3s",
            "crc",
            &[
                "--short",
                "--max-instructions",
                "100",
                "--simulator",
                "icarus",
            ],
            "no event",
        ),
        // The profiler's own clock: the UART readout only, a clock the PLL makes, after --async.
        (
            "ulx3s",
            "crc",
            &["--async", "--readout", "bus"],
            "--readout uart",
        ),
        (
            "icebreaker",
            "crc",
            &["--async", "--profiler-mhz", "13"],
            "--profiler-mhz: iCE40 PLL",
        ),
        (
            "ulx3s",
            "crc",
            &["--async", "--profiler-mhz", "0"],
            "1 to 1000 MHz",
        ),
        ("ulx3s", "crc", &["--profiler-mhz", "40"], "--async"),
    ] {
        let args = [
            &["soc", "board", "--board", board, "--program", program][..],
            more,
        ]
        .concat();
        assert_input_error(&hwprof(&args), message);
    }
    let s = Scratch::new("soc-board");
    let narrow = s.write("narrow.toml", &format!("a_bits = 17\n{SMALL_CONFIG}"));
    let out = hwprof(&[
        "soc",
        "bitstream",
        "--board",
        "ulx3s",
        "--program",
        "crc",
        "--config",
        &narrow,
        "--out",
        &format!("{}/out", s.path().display()),
    ]);
    assert_input_error(&out, "at least 18");
    let out = hwprof(&["soc", "decode", "/nonexistent/capture.txt"]);
    assert_input_error(&out, "/nonexistent/capture.txt");
    let bad = s.write("capture.txt", "0000002a end\r\n0000002b 0000 whatever\r\n");
    let out = hwprof(&["soc", "decode", &bad]);
    assert_input_error(&out, "line 2");
}

#[test]
fn soc_decode_turns_a_capture_into_reports() {
    let s = Scratch::new("soc-decode");
    // A capture that starts mid-line, with LF line ends as a terminal log may have them.
    let cap = s.write(
        "capture.txt",
        "0072 0000\n0000002a 00270 00000072 00000062\n0000002a 00284 00000064 00000010\n0000002a end\n0000002b end\n",
    );
    let out = hwprof_ok(&["soc", "decode", &cap, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2, "{out}");
    assert_eq!(v[0]["interval"], 0x2a);
    assert_eq!(v[0]["entries"][0]["a"], 0x270);
    assert_eq!(v[0]["entries"][1]["count"], 0x10);
    assert_eq!(v[1]["entries"].as_array().unwrap().len(), 0);
}

/// A tiny C program: about 2 500 loads (two value-mode intervals), exit status 3.
const TINY_C: &str = "#include <stdint.h>\nstatic volatile uint32_t a[64];\n\
    int main(void) {\n  uint32_t s = 0;\n  for (int r = 0; r < 40; r++)\n    for (int i = 0; i < 64; i++) {\n      a[i] += i ^ r;\n      s += a[i];\n    }\n  return s ? 3 : 0;\n}\n";

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn soc_run_takes_a_c_program_and_an_elf_linked_for_the_memory_map() {
    let s = Scratch::new("soc-user");
    let tiny = s.write("tiny.c", TINY_C);
    let c = json(&hwprof_ok(&["soc", "run", "--c", &tiny, "--json"]));
    assert_eq!(c["program"], "tiny");
    assert!(c["reports"].as_u64().unwrap() >= 2, "{c}");
    assert_eq!(c["mismatches"], 0);
    // A user program's nonzero status is reported, not an error.
    assert_eq!(c["exit_code"], 3);
    assert_eq!(c["stopped_at_limit"], false);
    // `--set` reaches the built-in profiler configuration too: a shorter interval, more reports.
    let short = json(&hwprof_ok(&[
        "soc",
        "run",
        "--c",
        &tiny,
        "--set",
        "interval=200",
        "--json",
    ]));
    assert_eq!(short["mismatches"], 0);
    assert!(
        short["reports"].as_u64() > c["reports"].as_u64(),
        "{} reports at L = 200, {} at the default",
        short["reports"],
        c["reports"]
    );
    // The same program linked as README.md tells, given as an ELF.
    let programs = root().join("sim/programs");
    let elf = s.join("tiny.elf");
    let gcc = std::process::Command::new("riscv64-unknown-elf-gcc")
        .args([
            "-march=rv32im",
            "-mabi=ilp32",
            "-O2",
            "-ffreestanding",
            "-nostdlib",
        ])
        .arg("-T")
        .arg(programs.join("link.ld"))
        .arg("-Wl,--defsym=__stack_top=262144")
        .arg(format!("-I{}", programs.display()))
        .arg(programs.join("crt0.S"))
        .arg(programs.join("runtime.c"))
        .arg(&tiny)
        .args(["-lgcc", "-o"])
        .arg(&elf)
        .output()
        .expect("riscv64-unknown-elf-gcc");
    assert!(
        gcc.status.success(),
        "{}",
        String::from_utf8_lossy(&gcc.stderr)
    );
    let e = json(&hwprof_ok(&[
        "soc",
        "run",
        "--elf",
        &elf.display().to_string(),
        "--json",
    ]));
    assert_eq!(e["instructions"], c["instructions"]);
    assert_eq!(e["reports"], c["reports"]);
    assert_eq!(e["mismatches"], 0);
}

#[test]
fn soc_run_refuses_bad_programs_with_the_file_and_the_reason() {
    let s = Scratch::new("soc-bad-programs");
    let text = s.write("prog.elf", "not an ELF\n");
    assert_input_error(
        &hwprof(&["soc", "run", "--elf", &text]),
        "prog.elf: not an ELF",
    );
    let missing = s.join("missing.c").display().to_string();
    assert_input_error(&hwprof(&["soc", "run", "--c", &missing]), &missing);
    let bad = s.write("bad.c", "int main(void) { return nope; }\n");
    let out = hwprof(&["soc", "run", "--c", &bad]);
    assert_input_error(&out, "bad.c: does not compile");
    assert_input_error(&out, "'nope' undeclared");
    let out = hwprof(&["soc", "run", "--program", "crc", "--c", &bad]);
    assert_input_error(&out, "cannot be used with");
}

#[test]
fn soc_run_stops_a_program_that_never_exits_at_max_instructions() {
    let s = Scratch::new("soc-limit");
    let spin = s.write(
        "spin.c",
        "static volatile int x;\nint main(void) { for (;;) x++; }\n",
    );
    let args = ["soc", "run", "--c", &spin, "--max-instructions", "5000"];
    let r = json(&hwprof_ok(&[&args[..], &["--json"]].concat()));
    assert_eq!(r["stopped_at_limit"], true, "{r}");
    assert_eq!(r["instructions"], 5000);
    assert!(r["exit_code"].is_null(), "{r}");
    assert!(r["reports"].as_u64().unwrap() >= 1, "{r}");
    assert_eq!(r["mismatches"], 0);
    let text = hwprof_ok(&args);
    assert!(
        text.contains("stopped at --max-instructions after 5000 instructions"),
        "{text}"
    );
    // The board system: the testbench stops the CPU and the tap there.
    let r = json(&hwprof_ok(&[
        "soc",
        "board",
        "--board",
        "ulx3s",
        "--c",
        &spin,
        "--max-instructions",
        "5000",
        "--json",
    ]));
    assert_eq!(r["stopped_at_limit"], true, "{r}");
    assert_eq!(r["instructions"], 5000);
    assert!(r["reports"].as_u64().unwrap() >= 1, "{r}");
    assert_eq!(r["mismatches"], 0);
}

#[test]
fn soc_run_blocks_on_their_own_clock_lose_nothing_under_stall_and_count_drops_under_drop() {
    let run = |extra: &[&str]| {
        let mut args = vec!["soc", "run", "--program", "crc", "--short", "--json"];
        args.extend_from_slice(extra);
        json(&hwprof_ok(&args))
    };
    let one = run(&[]);
    assert_eq!(one["cpu"], "picorv32");
    assert_eq!(one["clock_ratio"], "1:1");
    for ratio in ["1:3", "5:7"] {
        let r = run(&["--async", "--clock-ratio", ratio]);
        assert_eq!(r["mismatches"], 0, "{ratio}: {r}");
        assert_eq!(r["dropped"], 0, "{ratio}");
        assert_eq!(r["events"], one["events"], "{ratio}: every event");
        assert_eq!(r["clock_ratio"], ratio);
    }
    // A profiler clock three times slower than the CPU's cannot keep up: drop, never stall.
    let d = run(&["--policy", "drop", "--async", "--clock-ratio", "1:3"]);
    assert_eq!(d["mismatches"], 0, "{d}");
    assert!(d["dropped"].as_u64().unwrap() > 0, "{d}");
    assert_eq!(d["stall_cycles"], 0);
    assert_eq!(
        d["cycles"], one["cycles"],
        "the drop policy never touches the CPU"
    );
    assert_eq!(
        hwprof(&["soc", "run", "--program", "crc", "--clock-ratio", "2:1"])
            .status
            .code(),
        Some(2),
        "--clock-ratio without --async"
    );
    assert_input_error(
        &hwprof(&[
            "soc",
            "run",
            "--program",
            "crc",
            "--async",
            "--clock-ratio",
            "0:1",
        ]),
        "P:C",
    );
}

#[test]
fn verilog_rvfi_exports_a_wrapper_that_lints_clean() {
    let s = Scratch::new("rvfi-export");
    let out = s.join("out");
    hwprof_ok(&[
        "verilog",
        "--config",
        &preset("soc-bram.toml"),
        "--rvfi",
        "--mode",
        "edge",
        "--policy",
        "drop",
        "--async",
        "--out",
        out.to_str().unwrap(),
    ]);
    let v = std::fs::read_to_string(out.join("hwprof_soc_bram_rvfi.v")).unwrap();
    for port in [
        "prof_clock",
        "rvfi_order",
        "stall",
        "dropped",
        "out_dropped",
    ] {
        assert!(v.contains(port), "{port}");
    }
    let lint = std::process::Command::new("verilator")
        .args([
            "--lint-only",
            "-Wall",
            "--top-module",
            "hwprof_soc_bram_rvfi",
        ])
        .arg(out.join("hwprof_soc_bram_rvfi.v"))
        .output()
        .expect("verilator (installed by scripts/test.sh)");
    assert!(
        lint.status.success(),
        "{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    assert_input_error(
        &hwprof(&[
            "verilog",
            "--config",
            &preset("soc-bram.toml"),
            "--rvfi",
            "--skid",
            "1",
            "--out",
            s.join("bad").to_str().unwrap(),
        ]),
        "skid",
    );
}
