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
    let s = Scratch::new("soc-config");
    let narrow = s.write("narrow.toml", &format!("a_bits = 16\n{SMALL_CONFIG}"));
    let out = hwprof(&[
        "soc",
        "run",
        "--program",
        "crc",
        "--short",
        "--config",
        &narrow,
    ]);
    assert_input_error(&out, "a_bits and b_bits must be at least 32");
    let compiler = s.write("compiler.toml", "entries = 64\nindexing = \"compiler\"\n");
    let out = hwprof(&[
        "soc",
        "run",
        "--program",
        "crc",
        "--short",
        "--buffer-config",
        &compiler,
    ]);
    assert_input_error(&out, "compiler indexing");
    let shape = s.write("shape.toml", "[phase]\nbuckets = 64\n");
    let out = hwprof(&[
        "soc",
        "run",
        "--program",
        "crc",
        "--short",
        "--phase-config",
        &shape,
    ]);
    assert_input_error(&out, "no RTL shape");
    let out = hwprof(&[
        "soc",
        "run",
        "--program",
        "crc",
        "--short",
        "--phase-config",
        "/nonexistent/p.toml",
    ]);
    assert_input_error(&out, "/nonexistent/p.toml");
    let out = hwprof(&[
        "soc",
        "run",
        "--program",
        "crc",
        "--short",
        "--phase-plot",
        "/nonexistent/dir/phases",
    ]);
    assert_input_error(&out, "/nonexistent/dir/phases");
}
