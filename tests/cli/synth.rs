//! The synthesis flow end to end on tiny designs with the native iCE40 tools (Debian yosys,
//! nextpnr-ice40, fpga-icestorm; `scripts/test.sh` installs them): a few seconds in all.
//! Large designs and ECP5 (YoWASP, slow first call) are measured by commands, not here.

use crate::common::*;

/// `hwprof synth` of the UART transmitter on the UP5K: the smallest design on the smallest target.
const SYNTH_UART_UP5K: [&str; 5] = ["synth", "--block", "uart-tx", "--target", "ice40-up5k"];

#[test]
fn synth_block_on_up5k_reports_area_and_fmax() {
    let scratch = Scratch::new("synth-uart");
    let out = scratch.join("out");
    let o = hwprof_cmd()
        .args(SYNTH_UART_UP5K)
        .args(["--seeds", "2", "--json", "--out"])
        .arg(&out)
        .env("HWPROF_TOOLS", "native")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        list.as_array().map(Vec::len),
        Some(1),
        "one result per target"
    );
    let j = &list[0];
    assert_eq!(j["target"], "ice40-up5k");
    assert_eq!(j["fits"], true);
    // The transmitter has 30 flip-flops (10 shift, 4 count, 16 tick) plus the harness's.
    let ffs = j["ffs"].as_u64().unwrap();
    let harness = j["harness_ffs"].as_u64().unwrap();
    assert_eq!(
        harness,
        10 + 1 + 2,
        "inputs reset+valid+data, load bit, outputs ready+tx"
    );
    assert!(ffs >= 30 + harness, "ffs {ffs}");
    assert!(j["cells"].as_u64().unwrap() > 20);
    assert_eq!(j["brams"], 0);
    let best = j["fmax_mhz"].as_f64().unwrap();
    let median = j["fmax_median_mhz"].as_f64().unwrap();
    assert!(best > 10.0 && median <= best, "{best} {median}");
    assert_eq!(j["fmax_per_seed"].as_array().unwrap().len(), 2);
    for f in [
        "yosys.log",
        "nextpnr-seed1.log",
        "nextpnr-seed2.log",
        "result.json",
        "result.md",
    ] {
        assert!(out.join(f).is_file(), "{f} kept");
    }
    let md = std::fs::read_to_string(out.join("result.md")).unwrap();
    assert!(md.contains("| Fmax best (MHz) |"), "{md}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bitstream_for_icebreaker() {
    let scratch = Scratch::new("synth-bits");
    let out = scratch.join("out");
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/board_blink.v");
    let o = hwprof_cmd()
        .args([
            "bitstream",
            "--board",
            "icebreaker",
            "--verilog",
            fixture,
            "--top",
            "blink",
        ])
        .arg("--out")
        .arg(&out)
        .env("HWPROF_TOOLS", "native")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bin = std::fs::read(out.join("bitstream.bin")).unwrap();
    // iCE40 bitstreams carry the preamble 0x7EAA997E after a short comment; UP5K images are
    // 104090 bytes.
    assert!(bin[..64].windows(4).any(|w| w == [0x7e, 0xaa, 0x99, 0x7e]));
    assert_eq!(bin.len(), 104090);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_requests_exit_2_with_a_message() {
    let scratch = Scratch::new("synth-bad");
    let out = scratch.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let noshape = out.join("noshape.toml");
    std::fs::write(
        &noshape,
        "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\na_bits = 64\nb_bits = 64\n[accumulator]\norganisation = \"set_associative\"\nentries = 8\nways = 2\n",
    )
    .unwrap();
    let noshape = noshape.to_str().unwrap().to_string();
    let with_config = [
        "synth",
        "--config",
        noshape.as_str(),
        "--target",
        "ice40-up5k",
    ];
    let no_seeds = [&SYNTH_UART_UP5K[..], &["--seeds", "0"]].concat();
    let cases: [(&[&str], &str); 8] = [
        (&with_config, "96-bit tags"),
        (
            &["synth", "--block", "uart-tx", "--target", "ice40-lp1k"],
            "unknown target",
        ),
        (
            &[
                "synth",
                "--verilog",
                "/nonexistent.v",
                "--top",
                "x",
                "--target",
                "ice40-up5k",
            ],
            "cannot read",
        ),
        (&no_seeds, "seeds"),
        (&["bitstream", "--board", "arty"], "unknown board"),
        // The iCEBreaker's PLL makes 25.125 MHz at best from 12 MHz, not 25.
        (
            &["bitstream", "--board", "icebreaker", "--clock-mhz", "25"],
            "25.125",
        ),
        (
            &["bitstream", "--board", "ulx3s", "--clock-mhz", "0"],
            "--clock-mhz",
        ),
        (
            &[
                "verilog",
                "--config",
                concat!(env!("CARGO_MANIFEST_DIR"), "/configs/board-ulx3s.toml"),
                "--board",
                "ulx3s",
                "--clock-mhz",
                "1000",
            ],
            "ECP5 PLL",
        ),
    ];
    for (args, msg) in cases {
        let o = hwprof_cmd()
            .args(args)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

/// A profile-buffer configuration is recognised by `synth --config` (its rules, not the
/// profiler's, judge it), and the counter banks are blocks; neither runs a tool here: every
/// request stops at a bad argument.
#[test]
fn buffer_configs_and_counter_banks_are_synthesis_designs() {
    let scratch = Scratch::new("synth-forms");
    let out = scratch.join("out");
    let bad = scratch.write("bad.toml", "entries = 48\nindexing = \"address\"\n");
    let mut cases: Vec<(Vec<String>, &str)> = vec![
        // Judged as a buffer: the buffer's own rule on `entries`, naming the file.
        (
            vec!["--config".into(), bad.clone()],
            "must be a power of two in 8..=1024, got 48",
        ),
        (vec!["--config".into(), bad], "bad.toml"),
        // A valid buffer configuration builds its design; the flow then refuses zero seeds.
        (
            vec![
                "--config".into(),
                preset("buffer-assoc4-64.toml"),
                "--seeds".into(),
                "0".into(),
            ],
            "--seeds must be at least 1",
        ),
    ];
    for kind in ["morris", "float", "exact"] {
        cases.push((
            vec!["--block".into(), kind.into(), "--seeds".into(), "0".into()],
            "--seeds must be at least 1",
        ));
    }
    for (args, msg) in cases {
        let o = hwprof_cmd()
            .arg("synth")
            .args(&args)
            .args(["--target", "ice40-up5k", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_input_error(&o, msg);
    }
    // An unknown block: the message lists the counter banks.
    let o = hwprof(&[
        "synth",
        "--block",
        "counters",
        "--target",
        "ice40-up5k",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("morris") && err.contains("float") && err.contains("exact"),
        "{err}"
    );
}
