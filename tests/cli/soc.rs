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
        (
            "icebreaker",
            "crc",
            &["--simulator", "verilator"],
            "Icarus only",
        ),
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
