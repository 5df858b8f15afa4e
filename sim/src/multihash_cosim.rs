//! Co-simulation of the `MultiHashProfiler` RTL (rust-hdl's simulator) against the model
//! [`crate::multihash::MultiHash`]: the trace is offered one event per clock, every report the
//! RTL streams out is compared with the model's, and the run stops at the first difference,
//! naming the interval, the index of the event that ended it, and both reports.
//!
//! Entry point: [`cosim`]. Cycle accounting: `cycles` counts clocks from the first accepted
//! event to the last one (inclusive), so `events_per_cycle` = events / cycles is the sustained
//! input rate (1.0 = one event every clock); `total_cycles` adds reset, bank clearing and the
//! drain of the last report.

use crate::multihash::{IntervalReport, MultiHash, ReportEntry};
use crate::trace::Tuple;
use hwprof_hdl::hdl_util::{bits_u64, u64_bits};
use hwprof_hdl::multihash::{with_shape, MultiHashProfiler, ShapeVisitor};
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
}

impl Default for CosimOptions {
    fn default() -> Self {
        CosimOptions {
            vcd: None,
            report_ready: ReadyPattern::ALWAYS,
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
    /// Simulation speed of rust-hdl on this design, clocks per wall-clock second.
    pub cycles_per_second: f64,
}

struct Run<'a> {
    events: &'a [Tuple],
    opts: &'a CosimOptions,
}

impl ShapeVisitor for Run<'_> {
    type Output = Result<CosimResult, String>;
    fn visit<const NT: usize, const IB: usize, const A: usize, const CB: usize>(
        self,
        cfg: &ProfilerConfig,
    ) -> Self::Output {
        let mut uut = MultiHashProfiler::<NT, IB, A, CB>::new(cfg);
        uut.connect_all();
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
    with_shape(cfg, Run { events, opts })?
}

fn settle<B: Block>(uut: &mut B) -> Result<(), String> {
    if simulate(uut, 10_000) {
        Ok(())
    } else {
        Err("the RTL did not settle (combinational loop?)".into())
    }
}

type Vcd = VCDProbe<std::io::BufWriter<std::fs::File>>;

/// One report word: (interval, a, b, count, last).
pub(crate) type Word = (u64, u64, u64, u64, bool);

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
    fn step<const NT: usize, const IB: usize, const A: usize, const CB: usize>(
        &mut self,
        u: &mut MultiHashProfiler<NT, IB, A, CB>,
        reset: bool,
        offer: Option<Tuple>,
        out_ready: bool,
    ) -> Result<(bool, Option<Word>), String> {
        u.clock.next = Clock { clk: false };
        u.reset.next = reset;
        u.in_valid.next = offer.is_some();
        let (a, b) = offer.unwrap_or((0, 0));
        u.in_a.next = bits_u64::<64>(a);
        u.in_b.next = bits_u64::<64>(b);
        u.out_ready.next = out_ready;
        settle(u)?;
        self.time += 5;
        self.trace(&*u)?;
        let accepted = offer.is_some() && u.in_ready.val();
        let word = (u.out_valid.val() && out_ready).then(|| {
            (
                u64_bits(u.out_interval.val()),
                u64_bits(u.out_a.val()),
                u64_bits(u.out_b.val()),
                u64_bits(u.out_count.val()),
                u.out_last.val(),
            )
        });
        u.clock.next = Clock { clk: true };
        settle(u)?;
        self.time += 5;
        self.trace(&*u)?;
        Ok((accepted, word))
    }
}

/// Assembles report words into interval reports (a count-0 word is an empty report's marker).
#[derive(Default)]
pub(crate) struct Assembler {
    pub(crate) current: Option<IntervalReport>,
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
            return self.current.take();
        }
        if count != 0 {
            r.entries.push(ReportEntry { a, b, count });
        }
        if last {
            self.current.take()
        } else {
            None
        }
    }
}

fn run_design<const NT: usize, const IB: usize, const A: usize, const CB: usize>(
    uut: &mut MultiHashProfiler<NT, IB, A, CB>,
    cfg: &ProfilerConfig,
    events: &[Tuple],
    opts: &CosimOptions,
) -> Result<CosimResult, String> {
    let mut model = MultiHash::new(cfg)?;
    // Expected reports, each with the index of the event that ended its interval.
    let mut expected = Vec::new();
    for (i, &(a, b)) in events.iter().enumerate() {
        if let Some(r) = model.event(a, b) {
            expected.push((i as u64, r));
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
        cycles_per_second: 0.0,
    };
    let mut asm = Assembler::default();
    let mut next = 0usize;
    let mut first_accept = None;
    let mut last_accept = 0u64;
    // After the last event: long enough for the slowest report drain, then give up.
    let drain_limit = (A as u64 + 4) * opts.report_ready.period + (1u64 << IB) + 64;
    let mut idle = 0u64;
    while (res.reports_compared as usize) < expected.len() {
        let offer = events.get(next).copied();
        let ready = opts.report_ready.at(total_cycles);
        let (accepted, word) = d.step(uut, false, offer, ready)?;
        if accepted {
            first_accept.get_or_insert(total_cycles);
            last_accept = total_cycles;
            next += 1;
        } else if offer.is_some() {
            res.input_stall_cycles += 1;
        }
        total_cycles += 1;
        if offer.is_none() {
            idle += 1;
        }
        if let Some(r) = word.and_then(|w| asm.push(w)) {
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
                got: asm.current.take(),
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
    res.cycles_per_second = total_cycles as f64 / secs.max(1e-9);
    if let Some(v) = d.vcd.take() {
        drop(v);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::hash::SplitMix64;

    fn small(extra: &str) -> ProfilerConfig {
        ProfilerConfig::from_toml_str(
            &format!(
                "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\nentries = 4\n{extra}"
            ),
            "t",
        )
        .unwrap()
    }

    #[test]
    fn smoke_random_small() {
        let cfg = small("");
        let mut g = SplitMix64(5);
        let ev: Vec<Tuple> = (0..500)
            .map(|_| (g.next_u64() % 12, g.next_u64() % 3))
            .collect();
        let r = cosim(&cfg, &ev, &CosimOptions::default()).unwrap();
        assert_eq!(r.mismatches, 0, "{:#?}", r.first_mismatch);
        assert_eq!(r.reports_compared, 500 / 64);
        eprintln!("{r:?}");
    }
}
