//! The baseline profiler (`hwprof_hdl::multihash::baseline`) against its model, which is the multi-hash
//! model [`crate::model::multihash::MultiHash`] itself: the baseline must report bit for bit what the
//! pipelined design reports. Its co-simulation is [`crate::verify::multihash::cosim::cosim`] with
//! `design: Design::Baseline`, its Icarus cross-simulation
//! [`crate::verify::multihash::icarus::icarus_cosim_design`]; this file holds their tests, and the
//! baseline's exact cycle count, which they check.

use hwprof_hdl::multihash::baseline::BASELINE_CLOCKS_PER_EVENT;
use hwprof_hdl::ProfilerConfig;

/// Clocks from the first accepted event to the last of `events` events (`cycles` of a
/// co-simulation), when the input is always offered and reports never hold it back: 3 clocks
/// per event, plus one stall sweep of the counters after each interval's last event.
pub fn baseline_cycles(cfg: &ProfilerConfig, events: u64) -> u64 {
    if events == 0 {
        return 0;
    }
    let sweeps = (events - 1) / cfg.interval;
    BASELINE_CLOCKS_PER_EVENT * (events - 1) + sweeps * cfg.entries as u64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::trace::Tuple;
    use crate::model::multihash::MultiHash;
    use crate::verify::multihash::cosim::{cosim, CosimOptions, CosimResult, ReadyPattern};
    use crate::verify::multihash::icarus::icarus_cosim_design;
    use crate::verify::multihash::streams::{stream, StreamKind};
    use hwprof_hdl::multihash::{verilog_of, Design};

    fn config(text: &str) -> ProfilerConfig {
        ProfilerConfig::from_toml_str(text, "test").unwrap()
    }

    /// 2 tables x 16 counters, A = 4, L = 64, T = 4, with the given C/R/P.
    fn small(c: bool, r: bool, p: bool) -> ProfilerConfig {
        config(&format!(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\nconservative_update = {c}\n\
             reset_on_promote = {r}\nretaining = {p}\n[accumulator]\nentries = 4\n"
        ))
    }

    fn baseline(ready: ReadyPattern) -> CosimOptions {
        CosimOptions {
            design: Design::Baseline,
            report_ready: ready,
            ..Default::default()
        }
    }

    fn check(cfg: &ProfilerConfig, ev: &[Tuple], ready: ReadyPattern, what: &str) -> CosimResult {
        let r = cosim(cfg, ev, &baseline(ready)).unwrap();
        assert_eq!(r.mismatches, 0, "{what}: {:#?}", r.first_mismatch);
        assert_eq!(r.reports_compared, ev.len() as u64 / cfg.interval, "{what}");
        r
    }

    #[test]
    fn baseline_matches_model_over_c_r_p_and_adversarial_streams() {
        let mut reported = 0;
        for bits in 0..8 {
            let (c, r, p) = (bits & 1 == 1, bits & 2 == 2, bits & 4 == 4);
            let cfg = small(c, r, p);
            for kind in StreamKind::ALL {
                let ev = stream(kind, &cfg, 192, bits as u64 + 7);
                let what = format!("C{}R{}P{} {}", c as u8, r as u8, p as u8, kind.name());
                let res = check(&cfg, &ev, ReadyPattern::ALWAYS, &what);
                // 3 clocks per event and a 16-clock sweep after each interval, nothing else.
                assert_eq!(res.cycles, baseline_cycles(&cfg, 192), "{what}");
                assert_eq!(res.cycles, 3 * 191 + 2 * 16 + 1, "{what}");
                reported += res.entries_compared;
            }
        }
        assert!(reported > 50, "the streams must produce reports to compare");
    }

    #[test]
    fn baseline_saturates_narrow_counters() {
        for c in [false, true] {
            // 4 tables x 16, A = 8, 3-bit counters (saturate at 7), T = 5.
            let cfg = config(&format!(
                "interval = 96\nthreshold = 5\ntables = 4\nentries = 16\ncounter_bits = 3\n\
                 conservative_update = {c}\n[accumulator]\nentries = 8\n"
            ));
            let ev = stream(StreamKind::Saturation, &cfg, 192, 11);
            check(&cfg, &ev, ReadyPattern::ALWAYS, "saturation");
            let reps = MultiHash::new(&cfg).unwrap().run(&ev);
            assert!(reps.iter().flat_map(|r| &r.entries).any(|e| e.count == 7));
        }
    }

    #[test]
    fn baseline_under_report_back_pressure_and_short_intervals() {
        let cfg = small(true, true, true);
        let ev = stream(StreamKind::Mixed, &cfg, 256, 5);
        // One report word per 100 clocks: a 4-word report outlasts an interval (3 x 64 + 16
        // clocks), so the last event of the next interval waits for it.
        let slow = ReadyPattern {
            period: 100,
            ready: 1,
        };
        let r = check(&cfg, &ev, slow, "back-pressure");
        assert!(r.cycles > baseline_cycles(&cfg, 256), "{r:?}");
        // L = 8 < entries and L = 1: a sweep after every few events, or every event.
        for l in [8, 1] {
            let cfg = config(&format!(
                "interval = {l}\nthreshold = 1\ntables = 2\nentries = 16\n[accumulator]\nentries = 4\n"
            ));
            let ev = stream(StreamKind::Mixed, &cfg, 48, 3);
            let r = check(&cfg, &ev, ReadyPattern::ALWAYS, "short intervals");
            assert_eq!(r.cycles, baseline_cycles(&cfg, 48), "L = {l}");
        }
    }

    #[test]
    fn baseline_verilog_matches_model_under_icarus() {
        for (c, r, p) in [(true, false, true), (false, true, false)] {
            let cfg = config(&format!(
                "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\nconservative_update = {c}\n\
                 reset_on_promote = {r}\nretaining = {p}\ncounter_bits = 3\n[accumulator]\nentries = 4\n"
            ));
            let mut ev = Vec::new();
            for kind in StreamKind::ALL {
                ev.extend(stream(kind, &cfg, 64, 2));
            }
            let res =
                icarus_cosim_design(&cfg, Design::Baseline, &ev, ReadyPattern::ALWAYS).unwrap();
            assert_eq!(
                res.mismatches, 0,
                "C{c} R{r} P{p}: {:#?}",
                res.first_mismatch
            );
            assert_eq!(res.reports_compared, ev.len() as u64 / 64);
            assert_eq!(res.cycles, baseline_cycles(&cfg, ev.len() as u64));
            // Back-pressured beyond the bound: nothing is lost.
            let slow = ReadyPattern {
                period: 100,
                ready: 1,
            };
            let res = icarus_cosim_design(&cfg, Design::Baseline, &ev, slow).unwrap();
            assert_eq!(
                res.mismatches, 0,
                "C{c} R{r} P{p} slow: {:#?}",
                res.first_mismatch
            );
        }
    }

    #[test]
    fn baseline_verilog_differs_from_pipelined_and_is_deterministic() {
        let cfg = small(true, false, true);
        let b = verilog_of(&cfg, Design::Baseline).unwrap();
        assert_eq!(b, verilog_of(&cfg, Design::Baseline).unwrap());
        assert_ne!(b, verilog_of(&cfg, Design::Pipelined).unwrap());
        assert!(b.contains("module top("));
    }

    #[test]
    fn baseline_rejects_set_associative_configurations() {
        let cfg = config(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\nentries = 8\n\
             organisation = \"set_associative\"\nways = 2\n",
        );
        let e = verilog_of(&cfg, Design::Baseline).unwrap_err();
        assert!(e.contains("fully-associative"), "{e}");
    }
}
