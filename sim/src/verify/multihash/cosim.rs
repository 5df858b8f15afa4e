//! Co-simulation of the `MultiHashProfiler` RTL (rust-hdl's simulator) against the model
//! [`crate::model::multihash::MultiHash`]: the trace is offered one event per clock, every report the
//! RTL streams out is compared with the model's, and the run stops at the first difference,
//! naming the interval, the index of the event that ended it, and both reports.
//!
//! Entry point: [`cosim`]. Cycle accounting: `cycles` counts clocks from the first accepted
//! event to the last one (inclusive), so `events_per_cycle` = events / cycles is the sustained
//! input rate (1.0 = one event every clock); `total_cycles` adds reset, bank clearing and the
//! drain of the last report.

use crate::eval::trace::Tuple;
use crate::model::multihash::{IntervalReport, MultiHash, ReportEntry};
use crate::verify::settle;
use hwprof_hdl::multihash::{with_design, Design, DesignVisitor, ProfilerTop, ReportWord};
use hwprof_hdl::ProfilerConfig;
use rust_hdl::core::vcd_probe::{write_vcd_change, write_vcd_dump, write_vcd_header, VCDProbe};
use rust_hdl::prelude::*;
use serde::Serialize;
use std::path::PathBuf;

/// How the report consumer drives `out_ready`: high on `ready` cycles out of every `period`
/// (period 1 = always ready). Long periods back-pressure the report stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReadyPattern {
    pub period: u64,
    pub ready: u64,
}

impl ReadyPattern {
    pub const ALWAYS: ReadyPattern = ReadyPattern {
        period: 1,
        ready: 1,
    };
    fn at(&self, cycle: u64) -> bool {
        cycle % self.period < self.ready
    }
}

#[derive(Debug, Clone)]
pub struct CosimOptions {
    /// Write a VCD waveform of the whole run here.
    pub vcd: Option<PathBuf>,
    pub report_ready: ReadyPattern,
    /// The design under test: the pipelined profiler or the baseline.
    pub design: Design,
}

impl Default for CosimOptions {
    fn default() -> Self {
        CosimOptions {
            vcd: None,
            report_ready: ReadyPattern::ALWAYS,
            design: Design::Pipelined,
        }
    }
}

/// The first difference between RTL and model.
#[derive(Debug, Clone, Serialize)]
pub struct Mismatch {
    /// The interval whose report differs (numbered from 0).
    pub interval: u64,
    /// Index in the event stream of the event that ended that interval.
    pub event_index: u64,
    pub expected: Option<IntervalReport>,
    pub got: Option<IntervalReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CosimResult {
    pub config: String,
    /// Events fed to both RTL and model.
    pub events: u64,
    /// Complete intervals, i.e. reports the model produced.
    pub intervals: u64,
    /// Reports compared (equal to `intervals` when the run completes).
    pub reports_compared: u64,
    /// Report entries compared.
    pub entries_compared: u64,
    /// 0, or 1 at the first difference (the run stops there).
    pub mismatches: u64,
    pub first_mismatch: Option<Mismatch>,
    /// Clocks from the first accepted event to the last one.
    pub cycles: u64,
    pub events_per_cycle: f64,
    /// Clocks of the whole run (reset, clearing, events, report drain).
    pub total_cycles: u64,
    /// Clocks on which the input was offered but `in_ready` was low.
    pub input_stall_cycles: u64,
    /// Of those, the clocks while an interval's report was on its way: from the interval's last
    /// event to the report's last word (the drain at interval ends).
    pub report_stall_cycles: u64,
    /// The longest of those ways, in clocks (0 without a report).
    pub longest_report_cycles: u64,
    /// Events per clock leaving out the stalls while a report drains: 1.0 when the input waits
    /// for nothing else.
    pub events_per_cycle_between_reports: f64,
    /// Simulation speed of rust-hdl on this design, clocks per wall-clock second.
    pub cycles_per_second: f64,
}

struct Run<'a> {
    events: &'a [Tuple],
    opts: &'a CosimOptions,
}

impl DesignVisitor for Run<'_> {
    type Output = Result<CosimResult, String>;
    fn visit<T: ProfilerTop>(self, mut uut: T, cfg: &ProfilerConfig) -> Self::Output {
        run_design(&mut uut, cfg, self.events, self.opts)
    }
}

/// Co-simulates `events` through the RTL of `cfg` and its model. Errors: configurations without
/// an RTL shape or model, an unwritable VCD file, a design that does not settle.
pub fn cosim(
    cfg: &ProfilerConfig,
    events: &[Tuple],
    opts: &CosimOptions,
) -> Result<CosimResult, String> {
    with_design(cfg, opts.design, Run { events, opts })?
}

type Vcd = VCDProbe<std::io::BufWriter<std::fs::File>>;

/// One report word: (interval, a, b, count, last).
pub(crate) type Word = ReportWord;

/// Drives the top ports clock by clock, optionally recording a VCD.
struct Driver {
    vcd: Option<Vcd>,
    time: u64,
}

impl Driver {
    fn trace<B: Block>(&mut self, uut: &B) -> Result<(), String> {
        if let Some(v) = self.vcd.take() {
            let mut v = write_vcd_change(v, uut);
            v.timestamp(self.time).map_err(|e| e.to_string())?;
            self.vcd = Some(v);
        }
        Ok(())
    }

    /// One clock: inputs set with the clock low, handshakes sampled, then the rising edge.
    /// Returns whether the offered event was accepted and the report word taken, if any.
    fn step<T: ProfilerTop>(
        &mut self,
        u: &mut T,
        reset: bool,
        offer: Option<Tuple>,
        out_ready: bool,
    ) -> Result<(bool, Option<Word>), String> {
        u.drive(false, reset, offer, out_ready);
        settle(u)?;
        self.time += 5;
        self.trace(&*u)?;
        let accepted = offer.is_some() && u.in_ready();
        let word = u.out_word().filter(|_| out_ready);
        u.drive(true, reset, offer, out_ready);
        settle(u)?;
        self.time += 5;
        self.trace(&*u)?;
        Ok((accepted, word))
    }
}

/// Assembles report words into interval reports (a count-0 word is an empty report's marker,
/// or the terminator of a set-associative report). With `entry_order` false (a design that does
/// not report in entry order) each report is put in a canonical order, by tuple.
#[derive(Default)]
pub(crate) struct Assembler {
    pub(crate) current: Option<IntervalReport>,
    pub(crate) canonical: bool,
}

/// `r` with its entries in canonical order (by tuple): how reports of designs that do not
/// report in entry order are compared. An interval reports each tuple at most once.
pub fn canonical(mut r: IntervalReport) -> IntervalReport {
    r.entries.sort_by_key(|e| (e.a, e.b));
    r
}

impl Assembler {
    pub(crate) fn push(&mut self, (interval, a, b, count, last): Word) -> Option<IntervalReport> {
        let r = self.current.get_or_insert_with(|| IntervalReport {
            interval,
            entries: Vec::new(),
        });
        if r.interval != interval {
            // A word of another interval before `last`: report what was seen, as is.
            r.entries.push(ReportEntry { a, b, count });
            return self.take();
        }
        if count != 0 {
            r.entries.push(ReportEntry { a, b, count });
        }
        if last {
            self.take()
        } else {
            None
        }
    }

    /// The report being assembled (complete or not), in canonical order if asked.
    pub(crate) fn take(&mut self) -> Option<IntervalReport> {
        let r = self.current.take()?;
        Some(if self.canonical { canonical(r) } else { r })
    }
}

fn run_design<T: ProfilerTop>(
    uut: &mut T,
    cfg: &ProfilerConfig,
    events: &[Tuple],
    opts: &CosimOptions,
) -> Result<CosimResult, String> {
    let mut model = MultiHash::new(cfg)?;
    // Expected reports, each with the index of the event that ended its interval.
    let mut expected = Vec::new();
    for (i, &(a, b)) in events.iter().enumerate() {
        if let Some(r) = model.event(a, b) {
            expected.push((i as u64, if T::ENTRY_ORDER { r } else { canonical(r) }));
        }
    }
    let vcd = match &opts.vcd {
        Some(p) => {
            let f = std::fs::File::create(p)
                .map_err(|e| format!("cannot create VCD file {}: {e}", p.display()))?;
            Some(write_vcd_dump(
                write_vcd_header(std::io::BufWriter::new(f), uut),
                uut,
            ))
        }
        None => None,
    };
    let mut d = Driver { vcd, time: 0 };
    let start = std::time::Instant::now();
    let mut total_cycles = 0u64;
    for _ in 0..2 {
        d.step(uut, true, None, false)?;
        total_cycles += 1;
    }
    let mut res = CosimResult {
        config: cfg.summary(),
        events: events.len() as u64,
        intervals: expected.len() as u64,
        reports_compared: 0,
        entries_compared: 0,
        mismatches: 0,
        first_mismatch: None,
        cycles: 0,
        events_per_cycle: 0.0,
        total_cycles: 0,
        input_stall_cycles: 0,
        report_stall_cycles: 0,
        longest_report_cycles: 0,
        events_per_cycle_between_reports: 0.0,
        cycles_per_second: 0.0,
    };
    // Clocks at which the intervals whose reports are not out yet ended.
    let mut ended: std::collections::VecDeque<u64> = Default::default();
    let mut asm = Assembler {
        current: None,
        canonical: !T::ENTRY_ORDER,
    };
    let mut next = 0usize;
    let mut first_accept = None;
    let mut last_accept = 0u64;
    // After the last event: long enough for the slowest report drain, then give up.
    let drain_limit = uut.drain_bound() * opts.report_ready.period;
    let mut idle = 0u64;
    while (res.reports_compared as usize) < expected.len() {
        let offer = events.get(next).copied();
        let ready = opts.report_ready.at(total_cycles);
        let (accepted, word) = d.step(uut, false, offer, ready)?;
        if accepted {
            first_accept.get_or_insert(total_cycles);
            last_accept = total_cycles;
            let done = res.reports_compared as usize + ended.len();
            if expected
                .get(done)
                .is_some_and(|(end, _)| *end == next as u64)
            {
                ended.push_back(total_cycles);
            }
            next += 1;
        } else if offer.is_some() {
            res.input_stall_cycles += 1;
            if !ended.is_empty() {
                res.report_stall_cycles += 1;
            }
        }
        total_cycles += 1;
        if offer.is_none() {
            idle += 1;
        }
        if let Some(r) = word.and_then(|w| asm.push(w)) {
            if let Some(end) = ended.pop_front() {
                res.longest_report_cycles = res.longest_report_cycles.max(total_cycles - end);
            }
            let (end, want) = &expected[res.reports_compared as usize];
            res.entries_compared += want.entries.len().max(r.entries.len()) as u64;
            if &r != want {
                res.mismatches = 1;
                res.first_mismatch = Some(Mismatch {
                    interval: want.interval,
                    event_index: *end,
                    expected: Some(want.clone()),
                    got: Some(r),
                });
                break;
            }
            res.reports_compared += 1;
        }
        if idle > drain_limit {
            let (end, want) = &expected[res.reports_compared as usize];
            res.mismatches = 1;
            res.first_mismatch = Some(Mismatch {
                interval: want.interval,
                event_index: *end,
                expected: Some(want.clone()),
                got: asm.take(),
            });
            break;
        }
    }
    // Trailing events of a partial interval are fed too (they are never reported).
    while next < events.len() && res.mismatches == 0 {
        let ready = opts.report_ready.at(total_cycles);
        let (accepted, _) = d.step(uut, false, events.get(next).copied(), ready)?;
        if accepted {
            first_accept.get_or_insert(total_cycles);
            last_accept = total_cycles;
            next += 1;
        } else {
            res.input_stall_cycles += 1;
        }
        total_cycles += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    res.total_cycles = total_cycles;
    res.cycles = first_accept.map_or(0, |f| last_accept - f + 1);
    res.events_per_cycle = if res.cycles == 0 {
        0.0
    } else {
        next as f64 / res.cycles as f64
    };
    res.events_per_cycle_between_reports = match res.cycles - res.report_stall_cycles {
        0 => 0.0,
        c => next as f64 / c as f64,
    };
    res.cycles_per_second = total_cycles as f64 / secs.max(1e-9);
    if let Some(v) = d.vcd.take() {
        drop(v);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::multihash::kit::{check, config, slow, Dut};
    use crate::verify::multihash::streams::{aliases, stream, StreamKind};
    use hwprof_hdl::hash::{HashConstants, SplitMix64};

    #[test]
    fn alias_storm_aliases_every_table() {
        let cfg = Dut::Pipelined.small(true, false, true, "");
        let h = HashConstants::new(&cfg);
        let base = (0x1234, 0x77);
        let al = aliases(&cfg, base, 10, 3);
        assert_eq!(al.len(), 10);
        for t in al {
            for k in 0..cfg.tables {
                assert_eq!(h.index(k, t.0, t.1), h.index(k, base.0, base.1));
            }
        }
    }

    #[test]
    fn accumulator_counts_wider_than_counters() {
        // 3-bit table counters (saturate at 7) but 5-bit accumulator counts (saturate at 31).
        let cfg = config(
            "interval = 96\nthreshold = 5\ntables = 4\nentries = 16\ncounter_bits = 3\n\
             [accumulator]\nentries = 8\ncount_bits = 5\n",
        );
        let ev = stream(StreamKind::Saturation, &cfg, 288, 11);
        check(&cfg, &ev, &CosimOptions::default(), "count_bits 5");
        let reps = crate::model::multihash::MultiHash::new(&cfg)
            .unwrap()
            .run(&ev);
        let counts: Vec<u64> = reps
            .iter()
            .flat_map(|r| &r.entries)
            .map(|e| e.count)
            .collect();
        assert!(
            counts.iter().any(|&c| c > 7),
            "counts go past the counters' saturation: {counts:?}"
        );
        assert!(counts.iter().all(|&c| c <= 31));
    }

    #[test]
    fn reports_within_the_bound_never_stall_the_input() {
        // A report of <= 4 words at 1 word per 3 clocks fits in an interval (beyond the bound:
        // the kit's back-pressure test).
        let cfg = Dut::Pipelined.small(true, true, true, "");
        let ev = stream(StreamKind::Mixed, &cfg, 640, 5);
        let r = check(&cfg, &ev, &Dut::Pipelined.options(slow(3)), "within bound");
        assert_eq!(r.events_per_cycle, 1.0);
    }

    #[test]
    fn h3_single_table_odd_key_widths() {
        let cfg = config(
            "interval = 50\nthreshold = 3\ntables = 1\nentries = 16\nhash = \"h3\"\na_bits = 13\n\
             b_bits = 40\nreset_on_promote = true\nseed = 99\n[accumulator]\nentries = 4\n",
        );
        let mut g = SplitMix64(1);
        // Keys wider than a_bits/b_bits: the RTL must mask them as the model does.
        let ev: Vec<Tuple> = (0..300)
            .map(|_| (g.next_u64() % 9 | 0xffff_0000_0000_0000, g.next_u64() % 3))
            .collect();
        check(&cfg, &ev, &CosimOptions::default(), "h3");
    }

    #[test]
    fn paper_shape_on_bundled_trace() {
        let text = include_str!("../../../../configs/paper-10k.toml")
            .replace("interval = 10000", "interval = 2000");
        let cfg = config(&text);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/gzip_load.hwpt.gz");
        let ev = crate::eval::trace::read_trace(std::path::Path::new(path), None).unwrap();
        let r = check(&cfg, &ev[..4000], &CosimOptions::default(), "paper shape");
        assert_eq!(r.events_per_cycle, 1.0);
        assert!(r.entries_compared > 0);
    }

    #[test]
    fn vcd_on_demand() {
        let cfg = Dut::Pipelined.small(true, false, true, "");
        let ev = stream(StreamKind::Mixed, &cfg, 70, 1);
        let path = std::env::temp_dir().join(format!("hwprof-cosim-{}.vcd", std::process::id()));
        let opts = CosimOptions {
            vcd: Some(path.clone()),
            ..Default::default()
        };
        check(&cfg, &ev, &opts, "vcd");
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(text.contains("$var") && text.contains("in_ready") && text.contains("#100"));
    }

    #[test]
    fn a_configuration_without_hardware_is_a_clear_error() {
        let cfg = config(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\n\
             organisation = \"set_associative\"\nentries = 8\nways = 2\nstash = 1\n",
        );
        for design in [Design::Pipelined, Design::Baseline] {
            let opts = CosimOptions {
                design,
                ..CosimOptions::default()
            };
            let e = cosim(&cfg, &[(1, 2)], &opts).unwrap_err();
            assert!(e.contains("stash"), "{e}");
        }
    }
}
