//! Checks of `hwprof_hdl::multihash::relation_profiler::RelationProfiler` (the block-RAM profiler
//! rebuilt around a loop of bits, [`Design::Relation`]) against the model, with the block-RAM
//! design's adversarial streams: every stream kind, the set storm and the forwarding distances
//! (aliasing at every distance 1–5, a hit right after an allocation), in rust-hdl and, exported,
//! under Icarus.

use crate::verify::multihash::cosim::{CosimOptions, CosimResult, ReadyPattern};
use crate::verify::multihash::icarus::icarus_cosim_design;
use crate::verify::multihash::kit::{check, config, slow, Dut};
use hwprof_hdl::multihash::Design;
use hwprof_hdl::ProfilerConfig;

/// The wait bound: per interval at most one clock per set (retirement bubbles, or the scanner
/// before the last event) plus one per report word, and the five clocks of the drain after its
/// last event, on top of the counter clearing after reset.
fn within_wait_bound(r: &CosimResult, cfg: &ProfilerConfig) -> bool {
    let per_interval = 2 * cfg.accumulator.sets() as u64 + cfg.accumulator.entries as u64 + 6;
    r.input_stall_cycles <= cfg.entries as u64 + (r.intervals + 1) * per_interval
}

fn options(report_ready: ReadyPattern) -> CosimOptions {
    CosimOptions {
        report_ready,
        design: Design::Relation,
        ..Default::default()
    }
}

#[test]
fn relation_design_matches_the_model_on_adversarial_streams() {
    let mut reported = 0;
    // C and P (R1 has no relation form), the hash in logic, from a stage of its own, or from
    // byte tables in block RAM.
    for bits in 0..4u64 {
        let (c, p) = (bits & 1 == 1, bits & 2 == 2);
        for hash in ["", "hash_stage = true\n", "hash_block_ram = true\n"] {
            let cfg = Dut::Bram.small(c, false, p, hash);
            for (name, ev) in Dut::Bram.streams(&cfg, 320, bits) {
                for ready in [ReadyPattern::ALWAYS, slow(7)] {
                    let what = format!("C{}P{} {hash:?} {name} ready {ready:?}", c as u8, p as u8);
                    let res = check(&cfg, &ev, &options(ready), &what);
                    if ready == ReadyPattern::ALWAYS {
                        assert!(within_wait_bound(&res, &cfg), "{what}: {res:?}");
                    }
                    reported += res.entries_compared;
                }
            }
        }
    }
    assert!(
        reported > 200,
        "the streams must produce reports to compare"
    );
}

#[test]
fn relation_design_rejects_what_it_has_no_form_for() {
    let r1 = Dut::Bram.small(true, true, true, "");
    let smallest = config(
        "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\n\
         organisation = \"set_associative\"\nentries = 8\nways = 2\nreplacement = \"smallest\"\n",
    );
    let full = Dut::Pipelined.small(true, false, true, "");
    for (cfg, word) in [
        (r1, "reset on promote"),
        (smallest, "replacement"),
        (full, "set_associative"),
    ] {
        let e =
            crate::verify::multihash::cosim::cosim(&cfg, &[(1, 2)], &options(ReadyPattern::ALWAYS))
                .unwrap_err();
        assert!(e.contains(word), "{e}");
    }
}

#[test]
fn exported_relation_design_matches_the_model_on_a_real_trace_window() {
    let text = include_str!("../../../../configs/paper-10k-bram.toml");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/gzip_load.hwpt.gz");
    let ev = crate::eval::trace::read_trace(std::path::Path::new(path), None).unwrap();
    let cfg = config(&text.replace("interval = 10000", "interval = 1000"));
    let r = icarus_cosim_design(
        &cfg,
        Design::Relation,
        &ev[1000..4000],
        ReadyPattern::ALWAYS,
    )
    .unwrap();
    assert_eq!(r.mismatches, 0, "{:#?}", r.first_mismatch);
    assert_eq!(r.reports_compared, 3);
    assert!(r.cycles <= 3000 + 3 * (2 * 64 + 128 + 6), "{r:?}");
}
