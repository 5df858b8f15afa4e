//! Co-simulation of the RVFI tap ([`hwprof_hdl::tap::rvfi::RvfiTap`]) with its model
//! ([`crate::model::tap`]): a random retire stream from a core that honours `stall` with the
//! contract's slack, a consumer that is not always ready, on two clocks of any ratio. And the
//! self-checking testbench of the wrapper `hwprof_<name>_rvfi` ([`wrapper_sim_files`]), with the
//! co-simulation of the wrapper that tells which events enter under the drop policy.

use super::settle;
use crate::model::multihash::MultiHash;
use crate::model::tap::{check_drops, events, RvfiRecord};
use hwprof_hdl::export::SimTarget;
use hwprof_hdl::multihash::{with_design, Design, DesignVisitor, ProfilerTop};
use hwprof_hdl::tap::rvfi::RvfiTap;
use hwprof_hdl::tap::{Policy, TapConfig, TapMode, LOST_BITS};
use hwprof_hdl::util::{bits_u64, u64_bits};
use hwprof_hdl::ProfilerConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::fmt::Write as _;

/// A run's stimulus and timing.
#[derive(Debug, Clone, Copy)]
pub struct TapRun {
    pub cfg: TapConfig,
    /// Records retired.
    pub records: usize,
    /// Clock frequencies, consumer : core (e.g. 2:1: the consumer's clock is twice as fast).
    pub ratio: (u32, u32),
    /// Chance per core clock that a record is retired, and per consumer clock that it is ready.
    pub retire_rate: f64,
    pub ready_rate: f64,
    pub seed: u64,
    /// Whether the core keeps the stall contract (a test of the tap's own accounting when not).
    pub obeys_stall: bool,
}

/// What a run gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TapOutcome {
    pub retired: Vec<RvfiRecord>,
    /// Events the consumer took with their `lost` counts.
    pub taken: Vec<((u64, u64), u64)>,
    pub dropped: u64,
    /// Core clocks with `stall` high.
    pub stall_clocks: u64,
}

fn random_record(rng: &mut ChaCha8Rng, order: u64) -> RvfiRecord {
    let pc = rng.gen_range(0..0x4000u32) * 4;
    let insn = match rng.gen_range(0..6) {
        0 | 1 => 0x0000_2003 | (rng.gen_range(0..8u32) << 12),
        2 => 0x0000_0063,
        3 => 0x0000_006f,
        4 => 0x0000_8067,
        _ => 0x0000_0013,
    };
    let next = if rng.gen_bool(0.5) {
        pc.wrapping_add(4)
    } else {
        rng.gen::<u32>() & !3
    };
    RvfiRecord {
        order,
        insn,
        trap: rng.gen_bool(0.01),
        pc_rdata: pc,
        pc_wdata: next,
        rd_wdata: rng.gen(),
    }
}

/// Runs the tap on a random stream ([`TapRun`]).
pub fn run(r: &TapRun) -> Result<TapOutcome, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(r.seed);
    let mut uut = RvfiTap::new(&r.cfg)?;
    uut.connect_all();
    // Half periods: the faster clock has the shorter one.
    let (fp, fc) = r.ratio;
    if fp == 0 || fc == 0 {
        return Err(format!("clock ratio {fp}:{fc}: both must be positive"));
    }
    let (half_core, half_ev) = (fp as u64, fc as u64);
    let extra = (r.cfg.skid - 2) as u64;
    let mut out = TapOutcome {
        retired: Vec::new(),
        taken: Vec::new(),
        dropped: 0,
        stall_clocks: 0,
    };
    let mut order = 0u64;
    let mut since_stall = 0u64;
    let mut idle_core_clocks = 0u64;
    let (mut core_level, mut ev_level) = (false, false);
    // Reset both sides for a few clocks of the slower one.
    uut.reset.next = true;
    uut.ev_reset.next = true;
    let reset_until = 4 * half_core.max(half_ev) * 2;
    let mut t = 0u64;
    loop {
        let core_edge = t % half_core == 0;
        let ev_edge = t % half_ev == 0;
        let core_rise = core_edge && !core_level;
        let ev_rise = ev_edge && !ev_level;
        if ev_rise && t > reset_until && uut.ev_valid.val() && uut.ev_ready.val() {
            out.taken.push((
                (u64_bits(uut.ev_a.val()), u64_bits(uut.ev_b.val())),
                u64_bits(uut.ev_lost.val()),
            ));
        }
        if core_edge {
            core_level = !core_level;
            uut.clock.next = Clock { clk: core_level };
        }
        if ev_edge {
            ev_level = !ev_level;
            uut.ev_clock.next = Clock { clk: ev_level };
        }
        settle(&mut uut)?;
        if t > reset_until {
            uut.reset.next = false;
            uut.ev_reset.next = false;
        }
        if core_rise && t > reset_until {
            let stall = uut.stall.val();
            out.stall_clocks += stall as u64;
            since_stall = if stall { since_stall } else { 0 };
            let may = !r.obeys_stall || !stall || since_stall < extra;
            uut.rvfi_valid.next = false;
            if out.retired.len() < r.records && may && rng.gen_bool(r.retire_rate) {
                let rec = random_record(&mut rng, order);
                order += 1;
                if stall {
                    since_stall += 1;
                }
                uut.rvfi_order.next = bits_u64::<64>(rec.order);
                uut.rvfi_insn.next = bits_u64::<32>(rec.insn as u64);
                uut.rvfi_trap.next = rec.trap;
                uut.rvfi_pc_rdata.next = bits_u64::<32>(rec.pc_rdata as u64);
                uut.rvfi_pc_wdata.next = bits_u64::<32>(rec.pc_wdata as u64);
                uut.rvfi_rd_wdata.next = bits_u64::<32>(rec.rd_wdata as u64);
                uut.rvfi_valid.next = true;
                out.retired.push(rec);
            }
            if out.retired.len() == r.records {
                idle_core_clocks += 1;
            }
        }
        if ev_rise {
            uut.ev_ready.next = rng.gen_bool(r.ready_rate);
        }
        settle(&mut uut)?;
        // Done when every record is in and the FIFO has had time to empty.
        if idle_core_clocks > 64 && !uut.ev_valid.val() {
            break;
        }
        if t > 1_000_000_000 {
            return Err("the tap's co-simulation did not finish".into());
        }
        t += 1;
    }
    out.dropped = u64_bits(uut.dropped.val());
    Ok(out)
}

/// Checks a run against the model: under the stall policy every event arrives, in order, none
/// dropped; under the drop policy the events taken are the retired ones with the dropped left
/// out, each carrying how many were left out before it.
pub fn check(r: &TapRun, o: &TapOutcome) -> Result<(), String> {
    let all = events(r.cfg.mode, &o.retired);
    match r.cfg.policy {
        Policy::Stall => {
            let taken: Vec<(u64, u64)> = o.taken.iter().map(|t| t.0).collect();
            if o.dropped != 0 {
                return Err(format!("stall policy: {} events dropped", o.dropped));
            }
            if taken != all {
                let first = taken.iter().zip(&all).position(|(a, b)| a != b);
                return Err(format!(
                    "stall policy: {} events taken, {} retired; first difference at {first:?}",
                    taken.len(),
                    all.len()
                ));
            }
            Ok(())
        }
        Policy::Drop => {
            // Drops after the last event taken are in `dropped` only: no event follows to carry them.
            check_drops(&all, &o.taken, o.dropped, (1 << LOST_BITS) - 1).map(|_| ())
        }
    }
}

/// Events in the stream of the wrapper's self-checking testbench: this many intervals of L
/// events, fewer when intervals are long (as many intervals as the profiler's own testbench
/// checks), plus a part of the next interval.
pub fn wrapper_events(cfg: &ProfilerConfig) -> u64 {
    let intervals = if cfg.interval <= 1000 {
        WRAPPER_INTERVALS
    } else {
        super::multihash::export::checked_intervals(cfg)
    };
    cfg.interval * intervals + cfg.interval / 2
}

/// Events up to which the drop policy's expected lines are worked out by co-simulation
/// ([`wrapper_cosim`], rust-hdl's simulator: minutes beyond).
pub const WRAPPER_COSIM_EVENTS: u64 = 100_000;

/// Why the wrapper of `cfg` and `tap` gets no self-checking testbench, if it does not: under the
/// drop policy intervals too long to co-simulate.
pub fn wrapper_sim_check(cfg: &ProfilerConfig, tap: &TapConfig) -> Result<(), String> {
    if tap.policy == Policy::Drop && wrapper_events(cfg) > WRAPPER_COSIM_EVENTS {
        return Err(format!(
            "--testbench with --policy drop: the expected reports come from a co-simulation of \
             {} events (intervals of {}), more than {WRAPPER_COSIM_EVENTS}; use a shorter \
             interval or --policy stall",
            wrapper_events(cfg),
            cfg.interval
        ));
    }
    Ok(())
}

/// Intervals of a short-interval wrapper testbench ([`wrapper_events`]).
pub const WRAPPER_INTERVALS: u64 = 16;

/// Half periods of the testbench's clocks, the core's and (with a clock of its own) the
/// profiler's, in ns: a slower profiler makes the FIFO fill.
const HALF_CORE: u64 = 5;
const HALF_PROF: u64 = 7;
/// Rising edges of each clock with its reset high.
const RESET_EDGES: u64 = 4;

/// A core's retire stream for the wrapper's testbench (`None`: a clock without a retirement):
/// loads, conditional branches (taken or not), jumps, other instructions and traps, over a few
/// hot pcs with recurring values and targets so that the profiler finds heavy hitters, with
/// bubbles, and now and then a burst of back-to-back events of `mode` that fills the tap's FIFO.
/// Ends once the records hold `wanted` events of `mode`. Deterministic.
pub fn retire_stream(mode: TapMode, wanted: u64, seed: u64) -> Vec<Option<RvfiRecord>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let hot: Vec<u32> = (0..12).map(|_| rng.gen_range(0..0x4000u32) * 4).collect();
    let (load, branch, jal, jalr, alu) = (0x0000_2003, 0x0000_0063, 0x0000_006f, 0x0000_8067, 0x13);
    let mut out = Vec::new();
    let mut order = 0u64;
    let mut count = 0u64;
    let mut burst = 0u32;
    while count < wanted {
        if burst == 0 && rng.gen_range(0..150) == 0 {
            burst = rng.gen_range(20..40);
        }
        if burst == 0 && rng.gen_bool(0.25) {
            out.push(None);
            continue;
        }
        let pc = if rng.gen_bool(0.7) {
            hot[rng.gen_range(0..hot.len())]
        } else {
            rng.gen_range(0..0x4000u32) * 4
        };
        let kind = if burst > 0 {
            burst -= 1;
            match mode {
                TapMode::Value => 0,
                _ => rng.gen_range(1..4),
            }
        } else {
            rng.gen_range(0..6)
        };
        let insn = match kind {
            // Loads of every width (funct3).
            0 => load | (rng.gen_range(0..6u32) << 12),
            1 => branch,
            2 => jal,
            3 => jalr,
            _ => alu,
        };
        // Recurring values and targets: a few per pc.
        let hash = |x: u32| x.wrapping_mul(0x9e37_79b9).rotate_left(7);
        let pc_wdata = match kind {
            1 if rng.gen_bool(0.5) => pc.wrapping_add(4),
            1..=3 if rng.gen_bool(0.8) => hash(pc + rng.gen_range(0..2)) & 0xfffc,
            1..=3 => rng.gen::<u32>() & !3,
            _ => pc.wrapping_add(4),
        };
        let rd_wdata = if rng.gen_bool(0.7) {
            hash(pc ^ rng.gen_range(0..3)) >> (8 * (insn >> 12 & 3))
        } else {
            rng.gen()
        };
        let rec = RvfiRecord {
            order,
            insn,
            trap: burst == 0 && rng.gen_bool(0.02),
            pc_rdata: pc,
            pc_wdata,
            rd_wdata,
        };
        order += 1;
        count += events(mode, &[rec]).len() as u64;
        out.push(Some(rec));
    }
    out
}

/// The retired records of a stream.
pub fn retired(stream: &[Option<RvfiRecord>]) -> Vec<RvfiRecord> {
    stream.iter().flatten().copied().collect()
}

/// The stream's `$readmemh` lines, 132 bits: `{trap, valid, insn, pc_rdata, pc_wdata, rd_wdata}`.
fn stream_memh(stream: &[Option<RvfiRecord>]) -> String {
    super::icarus::memh(
        132,
        stream.iter().map(|r| match r {
            None => vec![0, 0, 0],
            Some(r) => vec![
                r.rd_wdata as u64 | (r.pc_wdata as u64) << 32,
                r.pc_rdata as u64 | (r.insn as u64) << 32,
                1 | (r.trap as u64) << 1,
            ],
        }),
    )
}

/// What the wrapper did in a co-simulation of its testbench ([`wrapper_cosim`]).
#[derive(Debug, Clone, Default)]
pub struct WrapperOutcome {
    /// Events the profiler took, each with the events lost just before it.
    pub entered: Vec<((u64, u64), u64)>,
    /// `out_dropped` with each report's last word.
    pub report_dropped: Vec<u64>,
    /// `dropped` and `out_dropped` at the end.
    pub dropped: u64,
    pub out_dropped: u64,
    /// Core clocks with `stall` high.
    pub stall_clocks: u64,
}

struct WrapperCosim<'a> {
    tap: TapConfig,
    stream: &'a [Option<RvfiRecord>],
    drain: u64,
    period: u64,
}

impl DesignVisitor for WrapperCosim<'_> {
    type Output = Result<WrapperOutcome, String>;
    fn visit<T: ProfilerTop>(self, prof: T, _: &ProfilerConfig) -> Self::Output {
        wrapper_run(prof, &self.tap, self.stream, self.drain, self.period)
    }
}

/// Co-simulates the wrapper `hwprof_<name>_rvfi` (the tap and the profiler in rust-hdl, the
/// wrapper's `out_dropped` register here) in its testbench's schedule, clock by clock: which
/// events enter under the drop policy is decided by the cycles, so the testbench's expected
/// lines are those of the model fed the events this run says entered.
pub fn wrapper_cosim(
    cfg: &ProfilerConfig,
    tap: &TapConfig,
    stream: &[Option<RvfiRecord>],
) -> Result<WrapperOutcome, String> {
    with_design(
        cfg,
        Design::Pipelined,
        WrapperCosim {
            tap: *tap,
            stream,
            drain: drain_clocks(cfg),
            period: hold_period(cfg, tap.mode, stream),
        },
    )?
}

/// Profiler clocks ready without a report word after which the testbench ends (once the stream is
/// in): a report's drain with the consumer's gaps, with slack.
fn drain_clocks(cfg: &ProfilerConfig) -> u64 {
    8 * cfg.entries as u64 + 16 * cfg.accumulator.entries as u64 + 2000
}

/// The testbench's consumer: `out_ready` from a xorshift32 each profiler clock.
const CONSUMER_SEED: u32 = 0x2545_f491;
fn xorshift(x: u32) -> u32 {
    let x = x ^ (x << 13);
    let x = x ^ (x >> 17);
    x ^ (x << 5)
}
/// Ready on 5 of 8 clocks in the first half of every `period` clocks (counted from the first
/// after reset), and not at all in the second: long enough for two intervals to end, so that the
/// profiler stops taking events and the FIFO fills.
fn consumer_ready(lfsr: u32, clocks: u64, period: u64) -> bool {
    lfsr & 7 < 5 && clocks % period < period / 2
}

/// The consumer's period ([`consumer_ready`]): a power of two, at least 512 clocks, whose pause
/// (half of it) lasts as long as 2.5 intervals of `stream` at the rate it carries events, so that
/// the stream holds several pauses and each stops the profiler.
fn hold_period(cfg: &ProfilerConfig, mode: TapMode, stream: &[Option<RvfiRecord>]) -> u64 {
    let events = events(mode, &retired(stream)).len().max(1) as f64;
    let pause = 2.5 * cfg.interval as f64 * stream.len() as f64 / events;
    (2 * pause.ceil() as u64).next_power_of_two().max(512)
}

fn wrapper_run<T: ProfilerTop>(
    mut prof: T,
    cfg: &TapConfig,
    stream: &[Option<RvfiRecord>],
    drain: u64,
    period: u64,
) -> Result<WrapperOutcome, String> {
    let mut tap = RvfiTap::new(cfg)?;
    tap.connect_all();
    let (half_core, half_prof) = if cfg.asynchronous {
        (HALF_CORE, HALF_PROF)
    } else {
        (HALF_CORE, HALF_CORE)
    };
    let extra = (cfg.skid - 2) as u64;
    let mut o = WrapperOutcome::default();
    let (mut core_level, mut prof_level) = (false, false);
    let (mut core_rises, mut prof_rises) = (0u64, 0u64);
    let (mut reset, mut prof_reset) = (true, true);
    let (mut next, mut since, mut order) = (0usize, 0u64, 0u64);
    let (mut lfsr, mut out_ready) = (CONSUMER_SEED, false);
    let (mut idle, mut clocks) = (0u64, 0u64);
    // Mirrors the testbench: the tap's event port feeds the profiler, whose `in_ready` is the
    // tap's `ev_ready`; each block settles with its inputs as they were before an edge.
    fn offer(tap: &RvfiTap) -> Option<(u64, u64)> {
        tap.ev_valid
            .val()
            .then(|| (u64_bits(tap.ev_a.val()), u64_bits(tap.ev_b.val())))
    }
    let mut t = 0u64;
    loop {
        t += 1;
        let core_edge = t % half_core == 0;
        let prof_edge = t % half_prof == 0;
        let core_rise = core_edge && !core_level;
        let prof_rise = prof_edge && !prof_level;
        let core_fall = core_edge && core_level;
        if !core_edge && !prof_edge {
            continue;
        }
        if prof_rise && !prof_reset {
            // The consumer and the wrapper's `out_dropped` register, on the values before the edge.
            clocks += 1;
            if let Some((_, _, _, _, last)) = prof.out_word().filter(|_| out_ready) {
                idle = 0;
                if last {
                    o.report_dropped.push(o.out_dropped);
                }
            } else if out_ready {
                idle += 1;
            }
            if let Some(ev) = offer(&tap).filter(|_| prof.in_ready()) {
                o.entered.push((ev, u64_bits(tap.ev_lost.val())));
                o.out_dropped = (o.out_dropped + u64_bits(tap.ev_lost.val())).min(u32::MAX as u64);
            }
        }
        if prof_rise && prof_reset {
            o.out_dropped = 0;
        }
        let held = offer(&tap);
        if core_edge {
            core_level = !core_level;
            tap.clock.next = Clock { clk: core_level };
        }
        if prof_edge {
            prof_level = !prof_level;
            tap.ev_clock.next = Clock { clk: prof_level };
        }
        prof.drive(prof_level, prof_reset, held, out_ready);
        settle(&mut tap)?;
        settle(&mut prof)?;
        // After the edge: the testbench's nonblocking assignments.
        if core_rise {
            core_rises += 1;
            if core_rises == RESET_EDGES {
                reset = false;
            }
        }
        if prof_rise {
            prof_rises += 1;
            if !prof_reset {
                lfsr = xorshift(lfsr);
                out_ready = consumer_ready(lfsr, clocks, period);
            }
            if prof_rises == RESET_EDGES {
                prof_reset = false;
            }
        }
        if !cfg.asynchronous {
            prof_reset = reset;
        }
        if core_fall && !reset {
            // The core (the testbench's negedge block).
            let stall = tap.stall.val();
            if stall {
                o.stall_clocks += 1;
            } else {
                since = 0;
            }
            tap.rvfi_valid.next = false;
            if next < stream.len() && (!stall || since < extra) {
                if let Some(r) = stream[next] {
                    tap.rvfi_valid.next = true;
                    tap.rvfi_trap.next = r.trap;
                    tap.rvfi_insn.next = bits_u64::<32>(r.insn as u64);
                    tap.rvfi_pc_rdata.next = bits_u64::<32>(r.pc_rdata as u64);
                    tap.rvfi_pc_wdata.next = bits_u64::<32>(r.pc_wdata as u64);
                    tap.rvfi_rd_wdata.next = bits_u64::<32>(r.rd_wdata as u64);
                    tap.rvfi_order.next = bits_u64::<64>(order);
                    order += 1;
                    if stall {
                        since += 1;
                    }
                }
                next += 1;
            }
        }
        tap.reset.next = reset;
        tap.ev_reset.next = prof_reset;
        settle(&mut tap)?;
        prof.drive(prof_level, prof_reset, offer(&tap), out_ready);
        settle(&mut prof)?;
        tap.ev_ready.next = prof.in_ready();
        settle(&mut tap)?;
        if prof_rise && next >= stream.len() && idle > drain {
            break;
        }
        if t > 1_000_000_000 {
            return Err("the wrapper's co-simulation did not finish".into());
        }
    }
    o.dropped = u64_bits(tap.dropped.val());
    Ok(o)
}

/// The self-checking testbench of the RVFI wrapper `hwprof_<name>_rvfi` of `cfg` and `tap` for
/// its FuseSoC `sim` target: a core retires [`retire_stream`] (one line per clock, bubbles
/// included), honouring `stall` as the contract allows (at most skid − 2 records retire while it
/// is high), while a consumer whose `out_ready` has random gaps drains the report stream; each
/// report's entries (`W E interval a b count`, sorted: the set-associative accumulator reports
/// in its own order) and its end with `out_dropped` (`W END interval dropped`) are checked in
/// order against the model's, and at the end `dropped` and `out_dropped` (`W DROPPED`).
/// Under the stall policy the model gets every event retired and nothing is dropped; under the
/// drop policy it gets the events a co-simulation of the wrapper on the same schedule
/// ([`wrapper_cosim`]) says entered, checked against the tap's model ([`check_drops`]).
/// The target and its files.
pub fn wrapper_sim_files(
    cfg: &ProfilerConfig,
    tap: &TapConfig,
    name: &str,
) -> Result<(SimTarget, Vec<(String, String)>), String> {
    let module = hwprof_hdl::tap::export::wrapper_name(name);
    let stream = retire_stream(tap.mode, wrapper_events(cfg), 1);
    let all = events(tap.mode, &retired(&stream));
    let (fed, report_dropped, dropped, out_dropped) = match tap.policy {
        Policy::Stall => (all.clone(), None, 0, 0),
        Policy::Drop => {
            let o = wrapper_cosim(cfg, tap, &stream)?;
            check_drops(&all, &o.entered, o.dropped, (1 << LOST_BITS) - 1)?;
            let fed: Vec<(u64, u64)> = o.entered.iter().map(|e| e.0).collect();
            (fed, Some(o.report_dropped), o.dropped, o.out_dropped)
        }
    };
    let reports = MultiHash::new(cfg)?.run(&fed);
    if let Some(d) = &report_dropped {
        if d.len() != reports.len() {
            return Err(format!(
                "the wrapper's co-simulation gave {} reports, the model {}",
                d.len(),
                reports.len()
            ));
        }
    }
    let mut expected = String::new();
    for (k, r) in reports.iter().enumerate() {
        super::readout::entry_lines(&mut expected, r);
        let d = report_dropped.as_ref().map_or(0, |d| d[k]);
        let _ = writeln!(expected, "W END {:08x} {:08x}", r.interval as u32, d);
    }
    let _ = writeln!(expected, "W DROPPED {dropped:08x} {out_dropped:08x}");
    let data = format!("{module}_records.hex");
    let drain = drain_clocks(cfg);
    let period = hold_period(cfg, tap.mode, &stream);
    let (prof_clock, prof_reset, prof_decl, prof_ports) = if tap.asynchronous {
        (
            "prof_clock",
            "prof_reset",
            format!(
                "  reg prof_clock = 1'b0, prof_reset = 1'b1;\n  always #{HALF_PROF} prof_clock = !prof_clock;\n  \
                 initial begin\n    repeat ({RESET_EDGES}) @(posedge prof_clock);\n    prof_reset <= 1'b0;\n  end\n"
            ),
            ".prof_clock(prof_clock), .prof_reset(prof_reset),\n    ",
        )
    } else {
        ("clock", "reset", String::new(), "")
    };
    let tb = format!(
        r#"`timescale 1ns/1ps
module tb;
  localparam N = {n}, SKID = {skid}, DRAIN = {drain}, MAX_CLOCKS = {max_clocks};
  localparam HOLD_PERIOD = {period};
  reg clock = 1'b0, reset = 1'b1;
  always #{HALF_CORE} clock = !clock;
  initial begin
    repeat ({RESET_EDGES}) @(posedge clock);
    reset <= 1'b0;
  end
{prof_decl}  reg [131:0] stream [0:N-1];
  initial $readmemh("records.memh", stream);
  reg rvfi_valid = 1'b0, rvfi_trap = 1'b0;
  reg [63:0] rvfi_order = 64'd0;
  reg [31:0] rvfi_insn = 32'd0, rvfi_pc_rdata = 32'd0, rvfi_pc_wdata = 32'd0, rvfi_rd_wdata = 32'd0;
  wire stall, out_valid, out_last;
  wire [31:0] dropped, out_interval, out_count, out_dropped;
  wire [63:0] out_a, out_b;
  reg out_ready = 1'b0;
  top dut(.clock(clock), .reset(reset), {prof_ports}.rvfi_valid(rvfi_valid), .rvfi_order(rvfi_order),
    .rvfi_insn(rvfi_insn), .rvfi_trap(rvfi_trap), .rvfi_pc_rdata(rvfi_pc_rdata),
    .rvfi_pc_wdata(rvfi_pc_wdata), .rvfi_rd_wdata(rvfi_rd_wdata), .stall(stall), .dropped(dropped),
    .out_valid(out_valid), .out_ready(out_ready), .out_interval(out_interval), .out_a(out_a),
    .out_b(out_b), .out_count(out_count), .out_last(out_last), .out_dropped(out_dropped));
  // The core: a line of the stream each clock (set between edges, as a core's registered RVFI
  // outputs would be), except that once `stall` is high no more than SKID - 2 records retire
  // until it falls: the wrapper's contract.
  integer next = 0, since = 0, stall_clocks = 0;
  reg [63:0] order = 64'd0;
  reg [131:0] r;
  always @(negedge clock) if (!reset) begin
    if (stall) stall_clocks = stall_clocks + 1;
    else since = 0;
    rvfi_valid <= 1'b0;
    if (next < N && (!stall || since < SKID - 2)) begin
      r = stream[next];
      next = next + 1;
      if (r[128]) begin
        rvfi_valid <= 1'b1;
        rvfi_trap <= r[129];
        rvfi_insn <= r[127:96];
        rvfi_pc_rdata <= r[95:64];
        rvfi_pc_wdata <= r[63:32];
        rvfi_rd_wdata <= r[31:0];
        rvfi_order <= order;
        order = order + 1;
        if (stall) since = since + 1;
      end
    end
  end
  // The consumer: `out_ready` with random gaps; each report's entries sorted by <a, b, count>,
  // as the expected lines are.
  reg [31:0] lfsr = 32'h{seed:08x};
  reg [159:0] entry [0:{entries}];
  reg [159:0] swap;
  integer k = 0, i, j, idle = 0, clocks = 0;
  always @(posedge {prof_clock}) if (!{prof_reset}) begin
    clocks = clocks + 1;
    if (clocks > MAX_CLOCKS) $fatal(1, "FAIL: still running after %0d clocks", clocks);
    if (out_valid && out_ready) begin
      idle = 0;
      if (out_count != 0) begin
        if (k > {entries}) $fatal(1, "FAIL: report of interval %0d has more than {entries} entries", out_interval);
        entry[k] = {{out_a, out_b, out_count}};
        k = k + 1;
      end
      if (out_last) begin
        for (i = 1; i < k; i = i + 1)
          for (j = i; j > 0 && entry[j - 1] > entry[j]; j = j - 1) begin
            swap = entry[j]; entry[j] = entry[j - 1]; entry[j - 1] = swap;
          end
        for (i = 0; i < k; i = i + 1)
          $display("W E %h %h %h %h", out_interval, entry[i][159:96], entry[i][95:32], entry[i][31:0]);
        $display("W END %h %h", out_interval, out_dropped);
        k = 0;
      end
    end else if (out_ready) idle = idle + 1;
    lfsr = lfsr ^ (lfsr << 13); lfsr = lfsr ^ (lfsr >> 17); lfsr = lfsr ^ (lfsr << 5);
    out_ready <= lfsr[2:0] < 3'd5 && clocks % HOLD_PERIOD < HOLD_PERIOD / 2;
    if (next >= N && idle > DRAIN) begin
      $display("STALL CLOCKS %0d", stall_clocks);
      $display("W DROPPED %h %h", dropped, out_dropped);
      $finish;
    end
  end
endmodule
"#,
        n = stream.len(),
        skid = tap.skid,
        max_clocks = 40 * stream.len() as u64 + 20 * drain + 4 * period,
        seed = CONSUMER_SEED,
        entries = cfg.accumulator.entries,
    );
    let tb = super::ip::self_checking(&tb, &module, "W ", &[("records.memh", &data)]);
    Ok(super::ip::sim_files(
        &module,
        super::ip::Testbench {
            tb,
            data: vec![(data, stream_memh(&stream))],
            expected,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::tap::TapMode;

    fn run_checked(mode: TapMode, policy: Policy, ratio: (u32, u32), ready: f64) -> TapOutcome {
        let mut cfg = TapConfig::new(mode, policy);
        cfg.asynchronous = ratio != (1, 1);
        let r = TapRun {
            cfg,
            records: 1500,
            ratio,
            retire_rate: 0.9,
            ready_rate: ready,
            seed: 7,
            obeys_stall: true,
        };
        let o = run(&r).unwrap();
        check(&r, &o).unwrap_or_else(|e| panic!("{mode:?} {policy:?} {ratio:?}: {e}"));
        o
    }

    #[test]
    fn every_mode_at_every_ratio_is_lossless_under_stall() {
        for (mode, ratio) in [
            (TapMode::Value, (1, 1)),
            (TapMode::Edge, (2, 1)),
            (TapMode::Branch, (1, 3)),
            (TapMode::Phase, (5, 7)),
        ] {
            let o = run_checked(mode, Policy::Stall, ratio, 0.3);
            assert!(
                o.stall_clocks > 0,
                "{mode:?} {ratio:?}: the FIFO never filled"
            );
        }
    }

    #[test]
    fn the_drop_policy_never_stalls_and_accounts_for_every_event() {
        for ratio in [(1, 1), (5, 7)] {
            let o = run_checked(TapMode::Edge, Policy::Drop, ratio, 0.2);
            assert_eq!(o.stall_clocks, 0);
            assert!(o.dropped > 0, "{ratio:?}: nothing dropped");
        }
    }

    #[test]
    fn a_core_that_ignores_stall_is_caught() {
        let r = TapRun {
            cfg: TapConfig::new(TapMode::Value, Policy::Stall),
            records: 800,
            ratio: (1, 1),
            retire_rate: 1.0,
            ready_rate: 0.1,
            seed: 3,
            obeys_stall: false,
        };
        let o = run(&r).unwrap();
        assert!(o.dropped > 0);
        assert!(check(&r, &o).unwrap_err().contains("dropped"));
        // The drops are still accounted for exactly.
        let as_drop = TapRun {
            cfg: TapConfig::new(TapMode::Value, Policy::Drop),
            ..r
        };
        check(&as_drop, &o).unwrap();
    }

    /// Runs the wrapper's `sim` target as FuseSoC would: iverilog on the wrapper and the
    /// testbench, from the export directory. The output, or the failure's.
    fn run_wrapper_sim(
        cfg: &ProfilerConfig,
        tap: &TapConfig,
        corrupt: bool,
    ) -> (Result<String, String>, String) {
        use crate::verify::icarus::{run, SimDir};
        let name = "tap-sim";
        let (sim, mut files) = wrapper_sim_files(cfg, tap, name).unwrap();
        let (cfg2, tap2) = (cfg.clone(), *tap);
        let v = hwprof_hdl::util::on_rtl_thread(move || {
            hwprof_hdl::tap::export::wrapper(&cfg2, &tap2, name)
        })
        .unwrap()
        .unwrap();
        let expected = files
            .iter()
            .find(|f| f.0.ends_with("_expected.txt"))
            .unwrap()
            .1
            .clone();
        if corrupt {
            // One count of the first entry one higher.
            let exp = &mut files
                .iter_mut()
                .find(|f| f.0.ends_with("_expected.txt"))
                .unwrap()
                .1;
            let line = exp
                .lines()
                .find(|l| l.starts_with("W E "))
                .unwrap()
                .to_string();
            let (head, count) = line.rsplit_once(' ').unwrap();
            let count = u32::from_str_radix(count, 16).unwrap() + 1;
            *exp = exp.replacen(&line, &format!("{head} {count:08x}"), 1);
        }
        let dir = SimDir::new("tap-wrapper").unwrap();
        if let Ok(d) = std::env::var("HWPROF_DUMP_TAP") {
            let d = std::path::Path::new(&d).join(format!(
                "{:?}-{:?}-{}",
                tap.mode, tap.policy, tap.asynchronous
            ));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("design.v"), &v).unwrap();
            for (f, text) in &files {
                std::fs::write(d.join(f), text).unwrap();
            }
        }
        let design = dir.file("design.v");
        std::fs::write(&design, v).unwrap();
        let mut sources = vec![design];
        for (f, text) in &files {
            std::fs::write(dir.file(f), text).unwrap();
            if f.ends_with(".v") {
                sources.push(dir.file(f));
            }
        }
        (
            run(&dir, &sources, &sim.toplevel).map_err(|e| e.0),
            expected,
        )
    }

    fn small() -> ProfilerConfig {
        use hwprof_hdl::ConfigFile;
        ProfilerConfig::from_toml_str(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\nentries = 4\n",
            "t",
        )
        .unwrap()
    }

    /// The wrapper's self-checking testbench passes under both policies, on one clock and two,
    /// with the FIFO filled (stall raised, or events dropped), and fails on a wrong expected line.
    #[test]
    fn the_wrapper_testbench_passes_and_can_fail() {
        let cfg = small();
        for (mode, policy, asynchronous) in [
            (TapMode::Value, Policy::Stall, false),
            (TapMode::Edge, Policy::Drop, false),
            (TapMode::Edge, Policy::Stall, true),
            (TapMode::Value, Policy::Drop, true),
        ] {
            let tap = TapConfig {
                asynchronous,
                ..TapConfig::new(mode, policy)
            };
            let what = format!("{mode:?} {policy:?} async {asynchronous}");
            let (out, expected) = run_wrapper_sim(&cfg, &tap, false);
            let out = out.unwrap_or_else(|e| panic!("{what}: {e}"));
            let lines = expected.lines().count();
            assert!(out.contains(&format!("PASS {lines}\n")), "{what}: {out}");
            let reports = expected.lines().filter(|l| l.starts_with("W END")).count();
            // Under drop fewer intervals enter.
            assert!(reports >= 6, "{what}: {reports} reports");
            let stalls: u64 = out
                .lines()
                .find_map(|l| l.strip_prefix("STALL CLOCKS ")?.parse().ok())
                .unwrap();
            let dropped = expected.lines().last().unwrap().to_string();
            println!("{what}: {out} {dropped}");
            match policy {
                Policy::Stall => {
                    assert!(stalls > 0, "{what}: stall never rose");
                    assert_eq!(dropped, "W DROPPED 00000000 00000000");
                }
                Policy::Drop => {
                    assert_eq!(stalls, 0, "{what}");
                    // Events were dropped, and some before events that entered after them.
                    assert!(
                        !dropped.starts_with("W DROPPED 00000000"),
                        "{what}: none dropped"
                    );
                    assert!(!dropped.ends_with(" 00000000"), "{what}: only at the end");
                }
            }
            let (bad, _) = run_wrapper_sim(&cfg, &tap, true);
            let e = bad.unwrap_err();
            assert!(e.contains("FAIL"), "{what}: {e}");
        }
    }
}
