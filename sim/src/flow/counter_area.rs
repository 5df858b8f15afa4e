//! Verilog of the study's 29-event counter banks and their area under Yosys alone (`synth_ice40`,
//! `synth_ecp5`, the text of `stat`): cell counts, no place and route.

use hwprof_hdl::counters::exact::ExactBank;
use hwprof_hdl::counters::float::{FloatBank, FloatParams};
use hwprof_hdl::counters::morris::{MorrisBank, MorrisParams};
use rust_hdl::prelude::*;
use serde::Serialize;
use std::process::Command;

/// A counter kind that exists as hardware.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BankKind {
    /// Morris 6-bit × 5 per event on the shared source (three 127-bit LFSRs, five Z units).
    Morris,
    /// 30-bit floating-point counter (6-bit exponent, 24-bit mantissa) on the shared source (one
    /// 127-bit LFSR, one Z unit).
    Float,
    /// Exact 64-bit counters.
    Exact,
}

impl BankKind {
    pub const ALL: [BankKind; 3] = [BankKind::Morris, BankKind::Float, BankKind::Exact];

    pub fn name(self) -> &'static str {
        match self {
            BankKind::Morris => "morris 6x5 (shared random source)",
            BankKind::Float => "float 30-bit e6 m24 (shared random source)",
            BankKind::Exact => "exact 64-bit",
        }
    }

    /// Counter storage per event in bits (what the paper's 2x claim compares).
    pub fn storage_bits(self) -> u32 {
        match self {
            BankKind::Morris => 30,
            BankKind::Float => 30,
            BankKind::Exact => 64,
        }
    }
}

/// Events of the paper's bank.
pub const AREA_EVENTS: usize = 29;

/// Bank sizes the Verilog export is built for (const generics): the paper's 29 events, and one
/// event (one group and the query port) for quick area and per-event scaling.
pub const BANK_SIZES: [usize; 2] = [1, AREA_EVENTS];

macro_rules! export {
    ($bank:expr) => {{
        let mut b = Box::new($bank?);
        b.connect_all();
        generate_verilog(b.as_ref())
    }};
}

/// Verilog of the `events`-event bank of `kind` (module `top`), register seeds from `seed`.
/// Builds on a thread with a large stack: 145 counters with their constants are a big value.
pub fn bank_verilog(kind: BankKind, events: usize, seed: u64) -> Result<String, String> {
    if !BANK_SIZES.contains(&events) {
        return Err(format!(
            "banks are exported with {BANK_SIZES:?} events, not {events}"
        ));
    }
    hwprof_hdl::util::on_rtl_thread(move || -> Result<String, String> {
        Ok(match (kind, events) {
            (BankKind::Morris, 1) => export!(MorrisBank::<1, 5, 5, 6, 3>::new(
                &MorrisParams::paper(1, seed)
            )),
            (BankKind::Morris, _) => export!(MorrisBank::<AREA_EVENTS, 5, 145, 6, 3>::new(
                &MorrisParams::paper(AREA_EVENTS, seed)
            )),
            (BankKind::Float, 1) => export!(FloatBank::<1, 30, 1>::new(&FloatParams::thirty_bit(
                1, seed
            ))),
            (BankKind::Float, _) => export!(FloatBank::<AREA_EVENTS, 30, 1>::new(
                &FloatParams::thirty_bit(AREA_EVENTS, seed)
            )),
            (BankKind::Exact, 1) => export!(ExactBank::<1>::new()),
            (BankKind::Exact, _) => export!(ExactBank::<AREA_EVENTS>::new()),
        })
    })?
}

/// Yosys's cell count for one family.
#[derive(Clone, Debug, Serialize)]
pub struct Area {
    pub kind: String,
    pub events: usize,
    pub family: String,
    pub storage_bits_per_event: u32,
    pub cells: u64,
    pub flip_flops: u64,
    pub luts: u64,
    pub carries: u64,
}

/// Synthesizes `verilog` with `synth_<family> -top top` and reads `stat`.
pub fn yosys_area(
    verilog: &str,
    family: &str,
    kind: BankKind,
    events: usize,
) -> Result<Area, String> {
    let synth = match family {
        "ice40" => "synth_ice40 -top top",
        "ecp5" => "synth_ecp5 -top top",
        _ => return Err(format!("unknown family {family:?} (ice40 or ecp5)")),
    };
    let dir = std::env::temp_dir().join(format!(
        "hwprof-area-{}-{family}-{events}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let src = dir.join("top.v");
    std::fs::write(&src, verilog).map_err(|e| e.to_string())?;
    let out = Command::new("yosys")
        .arg("-q")
        .arg("-p")
        .arg(format!(
            "read_verilog {}; {synth}; tee -o {}/stat.txt stat",
            src.display(),
            dir.display()
        ))
        .output()
        .map_err(|e| {
            format!("cannot run yosys ({e}): install it (Debian: apt-get install yosys)")
        })?;
    if !out.status.success() {
        return Err(format!(
            "yosys failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let stat = std::fs::read_to_string(dir.join("stat.txt")).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    let mut a = Area {
        kind: kind.name().into(),
        events,
        family: family.into(),
        storage_bits_per_event: kind.storage_bits(),
        cells: 0,
        flip_flops: 0,
        luts: 0,
        carries: 0,
    };
    for line in stat.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.len() >= 4 && t[0] == "Number" && t[2] == "cells:" {
            a.cells = t[3].parse().unwrap_or(0);
        } else if t.len() == 2 {
            let n: u64 = match t[1].parse() {
                Ok(n) => n,
                Err(_) => continue,
            };
            let c = t[0];
            if c.starts_with("SB_DFF") || c == "TRELLIS_FF" {
                a.flip_flops += n;
            } else if c == "SB_LUT4" || c == "LUT4" {
                a.luts += n;
            } else if c == "SB_CARRY" || c == "CCU2C" {
                a.carries += n;
            }
        }
    }
    Ok(a)
}
