//! The test kit of the multi-hash designs, and the tests every design must pass.
//!
//! Four designs are under test ([`Dut`]): the pipelined profiler with its fully-associative
//! accumulator, the same with the set-associative block-RAM accumulator, and the baseline of
//! each organisation. Each
//! has one small shape ([`Dut::small`]); [`check`] runs a rust-hdl co-simulation and asserts it
//! matched the model on every complete interval; [`c_r_p`] walks the eight C/R/P combinations.
//! The shared tests below loop over every design; what is particular to one design (its cycle
//! count, its wait bound, its own streams) is asserted inside the loop or tested beside its checks.

use crate::eval::trace::Tuple;
use crate::model::multihash::MultiHash;
use crate::verify::multihash::baseline::baseline_cycles;
use crate::verify::multihash::bram::{forwarding_distances, set_storm};
use crate::verify::multihash::cosim::{cosim, CosimOptions, CosimResult, ReadyPattern};
use crate::verify::multihash::icarus::icarus_cosim_design;
use crate::verify::multihash::streams::{stream, StreamKind};
use hwprof_hdl::multihash::Design;
use hwprof_hdl::ConfigFile;
use hwprof_hdl::ProfilerConfig;

/// A configuration from TOML text that must be valid.
pub fn config(text: &str) -> ProfilerConfig {
    ProfilerConfig::from_toml_str(text, "test").unwrap()
}

/// A design under test, as its configuration and [`CosimOptions::design`] select it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dut {
    Pipelined,
    Bram,
    Baseline,
    /// The baseline of a set-associative configuration (Bram's shape).
    SetBaseline,
}

impl Dut {
    pub const ALL: [Dut; 4] = [Dut::Pipelined, Dut::Bram, Dut::Baseline, Dut::SetBaseline];

    /// Whether the design's accumulator is set-associative, in block RAM.
    pub fn set_associative(self) -> bool {
        matches!(self, Dut::Bram | Dut::SetBaseline)
    }

    /// The accumulator table of this design's small shape.
    pub fn accumulator(self, entries: usize) -> String {
        match self.set_associative() {
            true => format!(
                "[accumulator]\norganisation = \"set_associative\"\nentries = {}\nways = 2\n",
                2 * entries
            ),
            false => format!("[accumulator]\nentries = {entries}\n"),
        }
    }

    /// 2 tables x 16 counters, L = 64, T = 4, the given C/R/P and `extra` top-level keys; an
    /// accumulator of 4 entries, or 4 sets x 2 ways in block RAM.
    pub fn small(self, c: bool, r: bool, p: bool, extra: &str) -> ProfilerConfig {
        config(&format!(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\nconservative_update = {c}\n\
             reset_on_promote = {r}\nretaining = {p}\n{extra}{}",
            self.accumulator(4)
        ))
    }

    pub fn design(self) -> Design {
        match self {
            Dut::Baseline | Dut::SetBaseline => Design::Baseline,
            _ => Design::Pipelined,
        }
    }

    pub fn options(self, report_ready: ReadyPattern) -> CosimOptions {
        CosimOptions {
            report_ready,
            design: self.design(),
            ..Default::default()
        }
    }

    /// The adversarial streams of this design: every [`StreamKind`], and the block-RAM
    /// accumulator's set storm and forwarding distances.
    pub fn streams(self, cfg: &ProfilerConfig, n: usize, seed: u64) -> Vec<(String, Vec<Tuple>)> {
        let mut v: Vec<(String, Vec<Tuple>)> = StreamKind::ALL
            .iter()
            .map(|&k| (k.name().to_string(), stream(k, cfg, n, seed)))
            .collect();
        if self.set_associative() {
            v.push(("set-storm".into(), set_storm(cfg, 5, n, seed)));
            v.push((
                "forwarding-distances".into(),
                forwarding_distances(cfg, 5, n, seed),
            ));
        }
        v
    }
}

/// The eight C/R/P combinations: (C, R, P, "C1R0P1", a seed).
pub fn c_r_p() -> impl Iterator<Item = (bool, bool, bool, String, u64)> {
    (0..8u64).map(|bits| {
        let (c, r, p) = (bits & 1 == 1, bits & 2 == 2, bits & 4 == 4);
        let label = format!("C{}R{}P{}", c as u8, r as u8, p as u8);
        (c, r, p, label, bits)
    })
}

/// Co-simulates `ev` and asserts no mismatch and a report compared for every complete interval.
pub fn check(cfg: &ProfilerConfig, ev: &[Tuple], opts: &CosimOptions, what: &str) -> CosimResult {
    let r = cosim(cfg, ev, opts).unwrap();
    assert_eq!(r.mismatches, 0, "{what}: {:#?}", r.first_mismatch);
    assert_eq!(r.reports_compared, ev.len() as u64 / cfg.interval, "{what}");
    r
}

/// The block-RAM accumulator's documented wait bound with reports always taken: per interval at
/// most one clock per set (retirement bubbles, or the scanner before the last event) plus one per
/// report word, and the two clocks after its last event, on top of the counter clearing after
/// reset. With the counters' output register every wait lasts one clock longer, so at most twice
/// as many clocks.
pub fn within_wait_bound(r: &CosimResult, cfg: &ProfilerConfig) -> bool {
    let mut per_interval = 2 * cfg.accumulator.sets() as u64 + cfg.accumulator.entries as u64 + 3;
    if cfg.counter_output_register {
        per_interval *= 2;
    }
    r.input_stall_cycles <= cfg.entries as u64 + (r.intervals + 1) * per_interval
}

/// One report word every `period` clocks.
pub fn slow(period: u64) -> ReadyPattern {
    ReadyPattern { period, ready: 1 }
}

#[test]
fn every_design_matches_the_model_on_adversarial_streams_over_c_r_p() {
    for dut in Dut::ALL {
        let mut reported = 0;
        for (c, r, p, label, seed) in c_r_p() {
            let cfg = dut.small(c, r, p, "");
            for (name, ev) in dut.streams(&cfg, 320, seed) {
                let what = format!("{dut:?} {label} {name}");
                let res = check(&cfg, &ev, &dut.options(ReadyPattern::ALWAYS), &what);
                match dut {
                    // L >= entries and reports always taken: one event every clock but for the
                    // clearing after reset.
                    Dut::Pipelined => {
                        assert_eq!(res.events_per_cycle, 1.0, "{what}");
                        assert_eq!(res.input_stall_cycles, 16, "{what}");
                    }
                    Dut::Bram => assert!(within_wait_bound(&res, &cfg), "{what}: {res:?}"),
                    // 3 clocks per event and a 16-clock sweep after each interval, nothing else.
                    Dut::Baseline | Dut::SetBaseline => {
                        assert_eq!(res.cycles, baseline_cycles(&cfg, ev.len() as u64), "{what}")
                    }
                }
                reported += res.entries_compared;
            }
        }
        assert!(
            reported > 100,
            "{dut:?}: the streams must produce reports to compare"
        );
    }
}

/// `reset_value` = T − 1: a promoted tuple's counters keep most of their count, so the tuples
/// sharing them promote sooner. Every design, rust-hdl and (for the block-RAM one) Icarus; the
/// streams must give reports that differ from a reset to 0, or the test could not tell.
#[test]
fn every_design_matches_with_a_reset_value() {
    let mut differs = false;
    for dut in Dut::ALL {
        for c in [false, true] {
            let cfg = dut.small(c, true, true, "reset_value = 3\n");
            let zero = dut.small(c, true, true, "");
            for (name, ev) in dut.streams(&cfg, 320, 7) {
                let what = format!("{dut:?} C{} reset_value 3 {name}", c as u8);
                check(&cfg, &ev, &dut.options(ReadyPattern::ALWAYS), &what);
                differs |= MultiHash::new(&cfg).unwrap().run(&ev)
                    != MultiHash::new(&zero).unwrap().run(&ev);
            }
        }
    }
    assert!(differs, "no stream tells reset_value 3 from 0");
    let cfg = Dut::Bram.small(true, true, true, "reset_value = 3\ncounter_bits = 3\n");
    let ev: Vec<Tuple> = Dut::Bram
        .streams(&cfg, 128, 4)
        .into_iter()
        .flat_map(|(_, ev)| ev)
        .collect();
    let res = icarus_cosim_design(&cfg, Dut::Bram.design(), &ev, ReadyPattern::ALWAYS).unwrap();
    assert_eq!(res.mismatches, 0, "Icarus: {:#?}", res.first_mismatch);
    assert_eq!(res.reports_compared, ev.len() as u64 / 64);
}

#[test]
fn every_design_saturates_narrow_counters() {
    for dut in Dut::ALL {
        for c in [false, true] {
            // 4 tables x 16, 8 accumulator entries, 3-bit counters (saturate at 7), T = 5.
            let cfg = config(&format!(
                "interval = 96\nthreshold = 5\ntables = 4\nentries = 16\ncounter_bits = 3\n\
                 conservative_update = {c}\n{}",
                dut.accumulator(8)
            ));
            for kind in [StreamKind::Saturation, StreamKind::AccumulatorOverflow] {
                let ev = stream(kind, &cfg, 288, 11);
                let what = format!("{dut:?} C{} {}", c as u8, kind.name());
                check(&cfg, &ev, &dut.options(ReadyPattern::ALWAYS), &what);
            }
            let ev = stream(StreamKind::Saturation, &cfg, 288, 11);
            let reps = MultiHash::new(&cfg).unwrap().run(&ev);
            assert!(
                reps.iter().flat_map(|r| &r.entries).any(|e| e.count == 7),
                "{dut:?}: the stream must saturate an accumulator count"
            );
        }
    }
}

#[test]
fn every_exported_design_matches_the_model_under_icarus() {
    for dut in Dut::ALL {
        for (c, r, p) in [(true, false, true), (false, true, false)] {
            let cfg = dut.small(c, r, p, "counter_bits = 3\n");
            let ev: Vec<Tuple> = dut
                .streams(&cfg, 128, 2)
                .into_iter()
                .flat_map(|(_, ev)| ev)
                .collect();
            for ready in [ReadyPattern::ALWAYS, slow(40)] {
                let what = format!("{dut:?} C{} R{} P{} {ready:?}", c as u8, r as u8, p as u8);
                let res = icarus_cosim_design(&cfg, dut.design(), &ev, ready).unwrap();
                assert_eq!(res.mismatches, 0, "{what}: {:#?}", res.first_mismatch);
                assert_eq!(res.reports_compared, ev.len() as u64 / 64, "{what}");
                if ready == ReadyPattern::ALWAYS && dut.design() == Design::Baseline {
                    assert_eq!(res.cycles, baseline_cycles(&cfg, ev.len() as u64), "{what}");
                }
                if ready != ReadyPattern::ALWAYS && dut == Dut::Pipelined {
                    // Back-pressured beyond the bound: in_ready drops and nothing is lost.
                    assert!(res.events_per_cycle < 1.0, "{what}");
                }
            }
        }
    }
}

#[test]
fn every_design_matches_on_intervals_shorter_than_its_tables() {
    for dut in Dut::ALL {
        // L = 1: every event ends an interval, so interval ends (and reports) are back to back.
        for p in [false, true] {
            let cfg = config(&format!(
                "interval = 1\nthreshold = 1\ntables = 2\nentries = 16\nretaining = {p}\n{}",
                dut.accumulator(4)
            ));
            let ev = stream(StreamKind::Mixed, &cfg, 40, 3);
            let ready = ReadyPattern {
                period: 3,
                ready: 2,
            };
            check(
                &cfg,
                &ev,
                &dut.options(ready),
                &format!("{dut:?} L = 1 P{}", p as u8),
            );
        }
        // L < entries: the counter banks' clearing after each interval stalls the input.
        let cfg = config(&format!(
            "interval = 8\nthreshold = 2\ntables = 2\nentries = 16\n{}",
            dut.accumulator(4)
        ));
        let ev = stream(StreamKind::Mixed, &cfg, 200, 9);
        let what = format!("{dut:?} L = 8");
        let r = check(&cfg, &ev, &dut.options(ReadyPattern::ALWAYS), &what);
        assert!(r.events_per_cycle < 1.0, "{what}: {r:?}");
    }
}

#[test]
fn every_design_loses_nothing_to_back_pressured_reports() {
    for dut in Dut::ALL {
        let cfg = dut.small(true, true, true, "");
        let ev = stream(StreamKind::Mixed, &cfg, 640, 5);
        // One report word per 100 clocks: a 4-word report outlasts an interval (even the
        // baseline's 3 x 64 + 16 clocks), so the last event of the next interval waits for it.
        let r = check(
            &cfg,
            &ev,
            &dut.options(slow(100)),
            &format!("{dut:?} slow consumer"),
        );
        assert!(r.input_stall_cycles > 16, "{dut:?}: {r:?}");
        if dut.design() != Design::Baseline {
            assert!(r.events_per_cycle < 1.0, "{dut:?}: {r:?}");
        } else {
            assert!(r.cycles > baseline_cycles(&cfg, ev.len() as u64), "{r:?}");
        }
    }
}

#[test]
fn every_exported_design_matches_the_model_on_a_real_trace_window() {
    // The paper preset's shapes on a window of the bundled real trace, L = 1000.
    let presets = [
        (
            Dut::Pipelined,
            include_str!("../../../../configs/paper-10k.toml"),
        ),
        (
            Dut::Bram,
            include_str!("../../../../configs/paper-10k-bram.toml"),
        ),
        (
            Dut::SetBaseline,
            include_str!("../../../../configs/paper-10k-bram.toml"),
        ),
    ];
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/gzip_load.hwpt.gz");
    let ev = crate::eval::trace::read_trace(std::path::Path::new(path), None).unwrap();
    for (dut, text) in presets {
        let cfg = config(&text.replace("interval = 10000", "interval = 1000"));
        let r =
            icarus_cosim_design(&cfg, dut.design(), &ev[1000..4000], ReadyPattern::ALWAYS).unwrap();
        assert_eq!(r.mismatches, 0, "{dut:?}: {:#?}", r.first_mismatch);
        assert_eq!(r.reports_compared, 3, "{dut:?}");
        match dut {
            Dut::Pipelined => assert_eq!(r.events_per_cycle, 1.0),
            Dut::SetBaseline => assert_eq!(r.cycles, baseline_cycles(&cfg, 3000), "{r:?}"),
            // The wait bound of `within_wait_bound`, in clocks from the first event to the last.
            _ => assert!(r.cycles <= 3000 + 3 * (2 * 64 + 128 + 2), "{r:?}"),
        }
    }
}
