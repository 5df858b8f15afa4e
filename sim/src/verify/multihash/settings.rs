//! Settings changed at run time, co-simulated: L and T set between intervals, flushes at arbitrary
//! events (some in the clock an event is offered), and a clear, on any design of a
//! configuration, against the model given the same operations in the order the hardware took
//! them.
//!
//! The testbench logs what the hardware saw — each event it accepted, each setting, each flush,
//! each clear — and the reports it sent. [`replay`] runs a log on the model; the run matches
//! when the replay's reports are the hardware's. A replay that gets the operations wrong (see
//! [`Replay`]) must not match, or the comparison could not fail.

use crate::eval::trace::Tuple;
use crate::model::multihash::{IntervalReport, MultiHash};
use crate::verify::multihash::cosim::{canonical, Assembler};
use crate::verify::settle;
use hwprof_hdl::hash::SplitMix64;
use hwprof_hdl::multihash::{with_design, Design, DesignVisitor, ProfilerTop};
use hwprof_hdl::ProfilerConfig;
use serde::Serialize;

/// One operation, in the order the hardware took it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Event(Tuple),
    SetInterval(u64),
    SetThreshold(u64),
    Flush,
    Clear,
}

/// How a replay reads the log: as the hardware must, or wrongly on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replay {
    Faithful,
    /// Flushes ignored.
    NoFlush,
    /// Every L set one longer.
    LengthOffByOne,
    /// T never changed from the configuration's.
    ThresholdIgnored,
}

/// The model's reports for `log`, read as `how` says.
pub fn replay(
    cfg: &ProfilerConfig,
    log: &[Op],
    how: Replay,
) -> Result<Vec<IntervalReport>, String> {
    let mut cfg = cfg.clone();
    if how == Replay::LengthOffByOne {
        cfg.max_interval = Some(cfg.max_interval() + 1);
    }
    let mut m = MultiHash::new(&cfg)?;
    let mut out = Vec::new();
    for op in log {
        match *op {
            Op::Event((a, b)) => out.extend(m.event(a, b)),
            Op::SetInterval(l) => {
                let l = if how == Replay::LengthOffByOne {
                    l + 1
                } else {
                    l
                };
                m.set_interval(l)?
            }
            Op::SetThreshold(_) if how == Replay::ThresholdIgnored => {}
            Op::SetThreshold(t) => m.set_threshold(t)?,
            Op::Flush if how == Replay::NoFlush => {}
            Op::Flush => out.extend(m.flush()),
            Op::Clear => m.clear(),
        }
    }
    Ok(out)
}

/// What a settings co-simulation did, and whether it matched.
#[derive(Debug, Clone, Serialize)]
pub struct SettingsResult {
    pub events: u64,
    /// Reports the hardware sent (each interval's, flushed ones included).
    pub reports: u64,
    pub flushes: u64,
    /// Flushes that ended an interval (the others found it without an event).
    pub flushes_reporting: u64,
    /// L set, and T set.
    pub settings: u64,
    pub threshold_settings: u64,
    pub clears: u64,
    /// Reports that differ from the faithful replay's, or missing or extra ones.
    pub mismatches: u64,
    /// The first difference: (index of the report, the model's, the hardware's).
    pub first_mismatch: Option<(usize, Option<IntervalReport>, Option<IntervalReport>)>,
    /// Whether the wrong replays ([`Replay::NoFlush`], [`Replay::LengthOffByOne`],
    /// [`Replay::ThresholdIgnored`]) differ.
    pub wrong_replays_differ: bool,
    pub clocks: u64,
}

struct Run<'a> {
    events: &'a [Tuple],
    seed: u64,
}

impl DesignVisitor for Run<'_> {
    type Output = Result<SettingsResult, String>;
    fn visit<T: ProfilerTop>(self, mut uut: T, cfg: &ProfilerConfig) -> Self::Output {
        run(&mut uut, cfg, self.events, self.seed)
    }
}

/// Co-simulates `events` through `design` of `cfg` with settings changed at random points
/// (seeded): before about one event in 40 a new L in 1 ..= `max_interval` (short ones often), a
/// new T in `min_threshold ..= max_threshold` (the two ends often) and a flush about as often,
/// once a clear.
pub fn settings_cosim(
    cfg: &ProfilerConfig,
    design: Design,
    events: &[Tuple],
    seed: u64,
) -> Result<SettingsResult, String> {
    with_design(cfg, design, Run { events, seed })?
}

/// The design under test and what it has sent.
struct Bench<'a, T: ProfilerTop> {
    u: &'a mut T,
    asm: Assembler,
    got: Vec<IntervalReport>,
    clocks: u64,
}

impl<T: ProfilerTop> Bench<'_, T> {
    /// One clock, the clock low then high, reports always taken; whether the offered event was
    /// taken.
    fn clock(&mut self, reset: bool, offer: Option<Tuple>) -> Result<bool, String> {
        self.u.drive(false, reset, offer, true);
        settle(self.u)?;
        let taken = offer.is_some() && self.u.in_ready();
        let word = self.u.out_word();
        self.u.drive(true, reset, offer, true);
        settle(self.u)?;
        self.clocks += 1;
        if let Some(r) = word.and_then(|w| self.asm.push(w)) {
            self.got.push(r);
        }
        Ok(taken)
    }

    /// Clocks without events until `expected` reports are out, or long enough that one missing
    /// shows.
    fn drain(&mut self, expected: usize) -> Result<(), String> {
        let mut idle = 0;
        while self.got.len() < expected && idle < self.u.drain_bound() {
            self.clock(false, None)?;
            idle += 1;
        }
        Ok(())
    }

    /// A flush pulse, with `offer` in the same clock; whether it was taken. Returns when the
    /// flush is no longer pending.
    fn flush(&mut self, offer: Option<Tuple>, bound: u64) -> Result<bool, String> {
        self.u.set_flush(true);
        let taken = self.clock(false, offer)?;
        self.u.set_flush(false);
        let mut waited = 0;
        while self.u.flush_pending() {
            self.clock(false, None)?;
            waited += 1;
            if waited > bound {
                return Err(format!("a flush still pending after {waited} clocks"));
            }
        }
        Ok(taken)
    }
}

fn run<T: ProfilerTop>(
    u: &mut T,
    cfg: &ProfilerConfig,
    events: &[Tuple],
    seed: u64,
) -> Result<SettingsResult, String> {
    let mut rng = SplitMix64(seed);
    let max = cfg.max_interval();
    let bound = 4 * u.drain_bound() + 4 * cfg.entries as u64;
    let mut res = SettingsResult {
        events: 0,
        reports: 0,
        flushes: 0,
        flushes_reporting: 0,
        settings: 0,
        threshold_settings: 0,
        clears: 0,
        mismatches: 0,
        first_mismatch: None,
        wrong_replays_differ: false,
        clocks: 0,
    };
    let mut b = Bench {
        u,
        asm: Assembler {
            current: None,
            canonical: !T::ENTRY_ORDER,
        },
        got: Vec::new(),
        clocks: 0,
    };
    let mut log = Vec::new();
    // The model alongside, to know when every report is out (before a clear, and at the end).
    let mut model = MultiHash::new(cfg)?;
    let mut expected = 0usize;
    for _ in 0..2 {
        b.clock(true, None)?;
    }
    let clear_at = events.len() / 2;
    let mut next = 0usize;
    while next < events.len() {
        let roll = rng.next_u64() % 80;
        if next == clear_at && res.clears == 0 {
            // Clear after every report is out, so that none is lost with it.
            b.drain(expected)?;
            b.clock(true, None)?;
            b.clock(true, None)?;
            log.push(Op::Clear);
            model.clear();
            res.clears += 1;
            continue;
        }
        if roll < 2 || (4..6).contains(&roll) {
            // The profiler reads L and T when an interval ends in its stage 0: events taken but
            // not yet there (a design with stages before it) would end their interval with the
            // new setting. A flush first empties those stages, so the change lands at a known
            // event.
            if T::STAGES_BEFORE_ACCEPT {
                b.flush(None, bound)?;
                log.push(Op::Flush);
                let reported = model.flush().is_some();
                expected += reported as usize;
                res.flushes += 1;
                res.flushes_reporting += reported as u64;
            }
            if roll < 2 {
                let l = match rng.next_u64() % 3 {
                    0 => 1 + rng.next_u64() % 4,
                    _ => 1 + rng.next_u64() % max,
                };
                b.u.set_length(l);
                log.push(Op::SetInterval(l));
                model.set_interval(l)?;
                res.settings += 1;
            } else {
                let (lo, hi) = (cfg.min_threshold(), cfg.max_threshold());
                let t = match rng.next_u64() % 4 {
                    0 => lo,
                    1 => hi,
                    _ => lo + rng.next_u64() % (hi - lo + 1),
                };
                b.u.set_threshold(t);
                log.push(Op::SetThreshold(t));
                model.set_threshold(t)?;
                res.threshold_settings += 1;
            }
            continue;
        }
        if roll < 4 {
            // The flush pulse, in a clock with the next event offered or without.
            let offer = (roll == 3).then(|| events[next]);
            if b.flush(offer, bound)? {
                log.push(Op::Event(events[next]));
                expected += model.event(events[next].0, events[next].1).is_some() as usize;
                res.events += 1;
                next += 1;
            }
            log.push(Op::Flush);
            let reported = model.flush().is_some();
            expected += reported as usize;
            res.flushes += 1;
            res.flushes_reporting += reported as u64;
            continue;
        }
        // The next event, offered until taken.
        let mut waited = 0;
        while !b.clock(false, Some(events[next]))? {
            waited += 1;
            if waited > bound {
                return Err(format!("event {next} refused for {waited} clocks"));
            }
        }
        log.push(Op::Event(events[next]));
        expected += model.event(events[next].0, events[next].1).is_some() as usize;
        res.events += 1;
        next += 1;
    }
    // The last, partial interval is flushed too.
    b.flush(None, bound)?;
    log.push(Op::Flush);
    let reported = model.flush().is_some();
    expected += reported as usize;
    res.flushes += 1;
    res.flushes_reporting += reported as u64;
    b.drain(expected)?;
    // More clocks: an extra report would show.
    for _ in 0..b.u.drain_bound() {
        b.clock(false, None)?;
    }
    let order = |r: Vec<IntervalReport>| -> Vec<IntervalReport> {
        if T::ENTRY_ORDER {
            r
        } else {
            r.into_iter().map(canonical).collect()
        }
    };
    let got = std::mem::take(&mut b.got);
    res.clocks = b.clocks;
    let want = order(replay(cfg, &log, Replay::Faithful)?);
    res.reports = got.len() as u64;
    for i in 0..want.len().max(got.len()) {
        if want.get(i) != got.get(i) {
            res.mismatches += 1;
            if res.first_mismatch.is_none() {
                res.first_mismatch = Some((i, want.get(i).cloned(), got.get(i).cloned()));
            }
        }
    }
    res.wrong_replays_differ = [
        Replay::NoFlush,
        Replay::LengthOffByOne,
        Replay::ThresholdIgnored,
    ]
    .into_iter()
    .all(|how| replay(cfg, &log, how).map(order).ok().as_ref() != Some(&got));
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::multihash::kit::{config, Dut};
    use crate::verify::multihash::streams::{stream, StreamKind};

    /// Every design, retaining on and off: L from 1 to 96 (max_interval) and T from 1 to 8
    /// (max_threshold) set at run time, flushes, a clear; the hardware's reports are the
    /// model's.
    #[test]
    fn settings_changed_at_run_time_match_the_model() {
        for dut in Dut::ALL {
            for retaining in [false, true] {
                let cfg = config(&format!(
                    "interval = 64\nmax_interval = 96\nthreshold = 3\nmax_threshold = 8\ntables = 2\n\
                     entries = 16\n\
                     retaining = {retaining}\n{}",
                    dut.accumulator(4)
                ));
                let ev = stream(StreamKind::Mixed, &cfg, 2500, 7);
                let r = settings_cosim(&cfg, dut.design(), &ev, 11 + retaining as u64).unwrap();
                let what = format!("{dut:?} retaining = {retaining}");
                println!("{what}: {r:?}");
                assert_eq!(r.mismatches, 0, "{what}: {:#?}", r.first_mismatch);
                assert_eq!(r.events, 2500, "{what}");
                assert!(r.reports >= 40, "{what}: {} reports", r.reports);
                assert!(
                    r.flushes_reporting >= 20 && r.flushes > r.flushes_reporting,
                    "{what}"
                );
                assert!(
                    r.settings >= 40 && r.threshold_settings >= 40 && r.clears == 1,
                    "{what}"
                );
                assert!(r.wrong_replays_differ, "{what}");
            }
        }
    }

    #[test]
    fn a_length_beyond_max_interval_is_refused_by_the_model() {
        let cfg =
            config("interval = 64\nmax_interval = 96\nthreshold = 3\ntables = 2\nentries = 16\n");
        let mut m = MultiHash::new(&cfg).unwrap();
        assert!(m.set_interval(97).unwrap_err().contains("1..=96"));
        assert!(m.set_interval(0).is_err());
        m.set_interval(96).unwrap();
        assert_eq!(m.interval_length(), 64, "the open interval keeps its L");
        assert!(m.flush().is_none(), "nothing to flush before any event");
        m.event(1, 1);
        assert_eq!(m.flush().map(|r| r.interval), Some(0));
        assert_eq!(m.interval_length(), 96);
    }

    #[test]
    fn a_threshold_outside_its_bounds_is_refused_by_the_model() {
        let cfg = config(
            "interval = 8\nthreshold = 3\nmax_threshold = 5\ntables = 1\nentries = 16\n\
             reset_on_promote = true\nreset_value = 1\n",
        );
        let mut m = MultiHash::new(&cfg).unwrap();
        assert!(m.set_threshold(6).unwrap_err().contains("2..=5"));
        assert!(m.set_threshold(1).is_err(), "T at reset_value");
        m.set_threshold(2).unwrap();
        assert_eq!(m.threshold(), 3, "the open interval keeps its T");
        // A tuple seen twice is reported at T = 2, not at T = 3.
        let first: Vec<_> = (0..8).filter_map(|_| m.event(9, 9)).collect();
        assert_eq!(first[0].entries.len(), 1, "8 events reach T = 3");
        assert_eq!(m.threshold(), 2);
        m.event(9, 9);
        m.event(9, 9);
        assert_eq!(m.flush().unwrap().entries.len(), 1, "2 events reach T = 2");
        m.clear();
        assert_eq!(m.threshold(), 2, "a clear keeps the T last set");
    }
}
