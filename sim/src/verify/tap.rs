//! Co-simulation of the RVFI tap ([`hwprof_hdl::tap::rvfi::RvfiTap`]) with its model
//! ([`crate::model::tap`]): a random retire stream from a core that honours `stall` with the
//! contract's slack, a consumer that is not always ready, on two clocks of any ratio.

use super::settle;
use crate::model::tap::{check_drops, events, RvfiRecord};
use hwprof_hdl::tap::rvfi::RvfiTap;
use hwprof_hdl::tap::{Policy, TapConfig, LOST_BITS};
use hwprof_hdl::util::{bits_u64, u64_bits};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

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
}
