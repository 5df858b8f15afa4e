//! The baseline profiler (`hwprof_hdl::multihash::baseline`) against its model, which is the multi-hash
//! model [`crate::model::multihash::MultiHash`] itself: the baseline must report bit for bit what the
//! pipelined design reports. Its co-simulation is [`crate::verify::multihash::cosim::cosim`] with
//! `design: Design::Baseline`, its Icarus cross-simulation
//! [`crate::verify::multihash::icarus::icarus_cosim_design`]; this file holds their tests, and the
//! baseline's exact cycle count, which they check.

use hwprof_hdl::multihash::baseline::{baseline_sweep_clocks, BASELINE_CLOCKS_PER_EVENT};
use hwprof_hdl::ProfilerConfig;

/// Clocks from the first accepted event to the last of `events` events (`cycles` of a
/// co-simulation), when the input is always offered and reports never hold it back: 3 clocks
/// per event, plus one stall sweep after each interval's last event (the counters', or the
/// set-associative report's if longer).
pub fn baseline_cycles(cfg: &ProfilerConfig, events: u64) -> u64 {
    if events == 0 {
        return 0;
    }
    let sweeps = (events - 1) / cfg.interval;
    BASELINE_CLOCKS_PER_EVENT * (events - 1) + sweeps * baseline_sweep_clocks(cfg) + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::trace::Tuple;
    use crate::verify::multihash::cosim::{CosimResult, ReadyPattern};
    use crate::verify::multihash::kit::{self, config, Dut};
    use crate::verify::multihash::streams::{stream, StreamKind};
    use hwprof_hdl::multihash::{verilog_of, Design};

    /// Co-simulates the baseline with the given report consumer (see [`kit::check`]).
    fn check(cfg: &ProfilerConfig, ev: &[Tuple], ready: ReadyPattern, what: &str) -> CosimResult {
        kit::check(cfg, ev, &Dut::Baseline.options(ready), what)
    }

    #[test]
    fn baseline_cycle_count_is_three_clocks_per_event_and_a_sweep_per_interval() {
        let cfg = Dut::Baseline.small(true, false, true, "");
        assert_eq!(baseline_cycles(&cfg, 192), 3 * 191 + 2 * 16 + 1);
        assert_eq!(baseline_cycles(&cfg, 64), 3 * 63 + 1);
        assert_eq!(baseline_cycles(&cfg, 0), 0);
    }

    #[test]
    fn baseline_short_intervals() {
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
    fn baseline_verilog_differs_from_pipelined_and_is_deterministic() {
        let cfg = Dut::Baseline.small(true, false, true, "");
        let b = verilog_of(&cfg, Design::Baseline).unwrap();
        assert_eq!(b, verilog_of(&cfg, Design::Baseline).unwrap());
        assert_ne!(b, verilog_of(&cfg, Design::Pipelined).unwrap());
        assert!(b.contains("module top("));
    }

    #[test]
    fn set_baseline_cycle_count_includes_the_report_sweep() {
        // 4 sets x 2 ways: the report takes 4 x 3 + 1 = 13 clocks, the counters' sweep 16.
        let cfg = Dut::SetBaseline.small(true, false, true, "");
        assert_eq!(baseline_cycles(&cfg, 192), 3 * 191 + 2 * 16 + 1);
        // 16 sets x 2 ways: the report, 16 x 3 + 1 = 49 clocks, is the longer.
        let cfg = config(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\n\
             organisation = \"set_associative\"\nentries = 32\nways = 2\n",
        );
        assert_eq!(baseline_cycles(&cfg, 192), 3 * 191 + 2 * 49 + 1);
        for ways in [1, 4] {
            let cfg = config(&format!(
                "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\n\
                 organisation = \"set_associative\"\nentries = 32\nways = {ways}\n"
            ));
            let ev = stream(StreamKind::Mixed, &cfg, 192, 5);
            let what = format!("set baseline, {ways} ways");
            let r = check(&cfg, &ev, ReadyPattern::ALWAYS, &what);
            assert_eq!(r.cycles, baseline_cycles(&cfg, 192), "{what}");
        }
    }

    #[test]
    fn set_baseline_verilog_differs_from_pipelined_and_is_deterministic() {
        let cfg = Dut::SetBaseline.small(true, false, true, "");
        let b = verilog_of(&cfg, Design::Baseline).unwrap();
        assert_eq!(b, verilog_of(&cfg, Design::Baseline).unwrap());
        assert_ne!(b, verilog_of(&cfg, Design::Pipelined).unwrap());
        assert_ne!(
            b,
            verilog_of(
                &Dut::Baseline.small(true, false, true, ""),
                Design::Baseline
            )
            .unwrap()
        );
    }
}
