//! Verilog of the study's 29-event counter banks and their area under Yosys alone (`synth_ice40`,
//! `synth_ecp5`, through the flow's one Yosys runner): cell counts, no place and route.

use super::device::{Family, Target};
use super::tools::Preference;
use super::{Design, FlowError};
use hwprof_hdl::config::{ConfigError, ConfigFile, Rules};
use hwprof_hdl::counters::bank::{EventSelect, QueryControl};
use hwprof_hdl::counters::exact::ExactBank;
use hwprof_hdl::counters::float::{FloatBank, FloatCounter, FloatEstimate, FloatParams};
use hwprof_hdl::counters::lfsr::{SharedRandom, ZeroCount};
use hwprof_hdl::counters::morris::{Decrement, GroupMean, MorrisBank, MorrisCounter, MorrisParams};
use rust_hdl::prelude::*;
use serde::Serialize;

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

    /// The kind's one-word name: morris, float, exact.
    pub fn short_name(self) -> &'static str {
        match self {
            BankKind::Morris => "morris",
            BankKind::Float => "float",
            BankKind::Exact => "exact",
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

/// Whether a bank of `events` events is built ([`BANK_SIZES`]); the rule broken if not.
pub fn check_bank_events(events: usize) -> Result<(), String> {
    if BANK_SIZES.contains(&events) {
        Ok(())
    } else {
        Err(format!("must be one of {BANK_SIZES:?}, got {events}"))
    }
}

/// The family named `ice40` or `ecp5`; the rule broken if neither.
pub fn family_named(name: &str) -> Result<Family, String> {
    match name {
        "ice40" => Ok(Family::Ice40),
        "ecp5" => Ok(Family::Ecp5),
        other => Err(format!("must be ice40 or ecp5, got {other:?}")),
    }
}

/// A counter bank as a configuration file: its `[counters]` table, which `hwprof verilog
/// --config` exports like the other blocks (`configs/counters-morris.toml`).
///
/// | key | default | rule |
/// | --- | --- | --- |
/// | `kind` | — | `morris`, `float` or `exact` ([`BankKind`]) |
/// | `events` | 29 | one of [`BANK_SIZES`] |
/// | `seed` | 1 | seed of the LFSR seeds |
/// | `family` | `ice40` | `ice40` or `ecp5`: the logic's mapping ([`decrement_for`], [`zero_count_for`]); the function is the same |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BankConfig {
    pub kind: BankKind,
    pub events: usize,
    pub seed: u64,
    pub family: Family,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct BankFile {
    counters: BankTable,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct BankTable {
    kind: String,
    events: Option<u64>,
    seed: Option<u64>,
    family: Option<String>,
}

impl BankConfig {
    /// Whether TOML text is a counter bank's (it has a `[counters]` table).
    pub fn is_bank_toml(text: &str) -> bool {
        toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key("counters"))
    }
}

impl ConfigFile for BankConfig {
    fn parse(text: &str, source: &str) -> Result<Self, ConfigError> {
        let rules = Rules { source };
        let fail = |field: &str, rule: String| rules.fail(field, rule).unwrap_err();
        let f: BankFile = toml::from_str(text)
            .map_err(|e| fail("", e.to_string().trim_end().replace('\n', "\n  ")))?;
        let t = f.counters;
        let kind = BankKind::ALL
            .into_iter()
            .find(|k| k.short_name() == t.kind)
            .ok_or_else(|| {
                fail(
                    "counters.kind",
                    format!("must be morris, float or exact, got {:?}", t.kind),
                )
            })?;
        let family = family_named(t.family.as_deref().unwrap_or("ice40"))
            .map_err(|rule| fail("counters.family", rule))?;
        Ok(BankConfig {
            kind,
            events: t.events.unwrap_or(AREA_EVENTS as u64).min(1 << 40) as usize,
            seed: t.seed.unwrap_or(1),
            family,
        })
    }

    fn check(&self, r: &Rules) -> Result<(), ConfigError> {
        match check_bank_events(self.events) {
            Ok(()) => Ok(()),
            Err(rule) => r.fail("counters.events", rule),
        }
    }
}

macro_rules! export {
    ($bank:expr) => {{
        let mut b = Box::new($bank?);
        b.connect_all();
        generate_verilog(b.as_ref())
    }};
}

/// The Morris counters' decrement mapping that is smaller on `family`.
pub fn decrement_for(family: Family) -> Decrement {
    match family {
        Family::Ice40 => Decrement::Toggles,
        Family::Ecp5 => Decrement::CarryChain,
    }
}

/// The random source's mapping that makes the bank of `kind` smaller on `family`: the borrow chain
/// only for the Morris bank on ECP5 (on the float bank's one unit it loses to ABC's delay-driven
/// mapping of the rest, on iCE40 a carry chain costs a LUT per bit).
pub fn zero_count_for(kind: BankKind, family: Family) -> ZeroCount {
    match (kind, family) {
        (BankKind::Morris, Family::Ecp5) => ZeroCount::BorrowChain,
        _ => ZeroCount::PriorityChain,
    }
}

/// Verilog of the `events`-event bank of `kind` (module `top`) for `family`, register seeds from
/// `seed`. Builds on a thread with a large stack: 145 counters with their constants are a big value.
pub fn bank_verilog(
    kind: BankKind,
    events: usize,
    seed: u64,
    family: Family,
) -> Result<String, String> {
    let decrement = decrement_for(family);
    let zero_count = zero_count_for(kind, family);
    check_bank_events(events).map_err(|rule| format!("bank events: {rule}"))?;
    hwprof_hdl::util::on_rtl_thread(move || -> Result<String, String> {
        Ok(match (kind, events) {
            (BankKind::Morris, 1) => export!(MorrisBank::<1, 5, 5, 6, 3>::new(
                &MorrisParams::paper(1, seed),
                decrement,
                zero_count
            )),
            (BankKind::Morris, _) => export!(MorrisBank::<AREA_EVENTS, 5, 145, 6, 3>::new(
                &MorrisParams::paper(AREA_EVENTS, seed),
                decrement,
                zero_count
            )),
            (BankKind::Float, 1) => export!(FloatBank::<1, 30, 1>::new(
                &FloatParams::thirty_bit(1, seed),
                zero_count
            )),
            (BankKind::Float, _) => export!(FloatBank::<AREA_EVENTS, 30, 1>::new(
                &FloatParams::thirty_bit(AREA_EVENTS, seed),
                zero_count
            )),
            (BankKind::Exact, 1) => export!(ExactBank::<1>::new()),
            (BankKind::Exact, _) => export!(ExactBank::<AREA_EVENTS>::new()),
        })
    })?
}

/// The bank as a design for the synthesis flow on `family` (top module `top`, LFSR seeds from 1).
pub fn bank_design(kind: BankKind, events: usize, family: Family) -> Result<Design, String> {
    Ok(Design {
        name: format!("{}-bank-{events}", kind.short_name()),
        verilog: bank_verilog(kind, events, 1, family)?,
        top: "top".into(),
        events_per_clock: None,
    })
}

/// The parts of a 29-event bank, each exported alone (module `top`): its name, Verilog, and how
/// many copies the bank holds. What they do not cover (wiring, the exact bank's counters, and
/// what Yosys optimizes across their boundaries) is the bank's total less their sum.
pub fn bank_parts(
    kind: BankKind,
    family: Family,
) -> Result<Vec<(&'static str, String, u64)>, String> {
    let decrement = decrement_for(family);
    let n = AREA_EVENTS as u64;
    let (morris_zeros, float_zeros) = (
        zero_count_for(BankKind::Morris, family),
        zero_count_for(BankKind::Float, family),
    );
    hwprof_hdl::util::on_rtl_thread(move || -> Result<_, String> {
        let handshake = (
            "query handshake",
            export!(Ok::<_, String>(QueryControl::default())),
            1,
        );
        Ok(match kind {
            BankKind::Morris => {
                let p = MorrisParams::paper(AREA_EVENTS, 1);
                vec![
                    (
                        "counters",
                        export!(MorrisCounter::<6>::new(&p, decrement)),
                        5 * n,
                    ),
                    (
                        "random source",
                        export!(SharedRandom::<5, 3>::new(&p.pool()?, morris_zeros)),
                        1,
                    ),
                    (
                        "query select",
                        export!(Ok::<_, String>(EventSelect::<6>::new(AREA_EVENTS, 5))),
                        1,
                    ),
                    ("query arithmetic", export!(GroupMean::<5, 6>::new(&p)), 1),
                    handshake,
                ]
            }
            BankKind::Float => {
                let p = FloatParams::thirty_bit(AREA_EVENTS, 1);
                vec![
                    ("counters", export!(FloatCounter::<30>::new(&p)), n),
                    (
                        "random source",
                        export!(SharedRandom::<1, 1>::new(&p.pool()?, float_zeros)),
                        1,
                    ),
                    (
                        "query select",
                        export!(Ok::<_, String>(EventSelect::<30>::new(AREA_EVENTS, 1))),
                        1,
                    ),
                    ("query arithmetic", export!(FloatEstimate::<30>::new(&p)), 1),
                    handshake,
                ]
            }
            BankKind::Exact => vec![
                (
                    "query select",
                    export!(Ok::<_, String>(EventSelect::<64>::new(AREA_EVENTS, 1))),
                    1,
                ),
                handshake,
            ],
        })
    })?
}

/// Yosys's cells of one part of a bank, all copies.
#[derive(Clone, Debug, Serialize)]
pub struct PartArea {
    pub part: String,
    pub copies: u64,
    /// Negative for "rest" when Yosys saves more across the parts' boundaries than the glue costs.
    pub cells: i64,
    pub flip_flops: i64,
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
    /// Each part synthesized alone, then "rest": the total less the parts.
    pub parts: Vec<PartArea>,
}

/// Yosys's cell counts of the `events`-event bank of `kind` for `family` (`ice40` or `ecp5`):
/// the synthesis of `hwprof synth --block`, without the IO harness and without place and route.
pub fn yosys_area(
    kind: BankKind,
    events: usize,
    family: &str,
    pref: Preference,
    progress: &mut dyn FnMut(&str),
) -> Result<Area, FlowError> {
    let target = match family {
        "ice40" => Target::Ice40Up5k,
        "ecp5" => Target::Ecp5_85k,
        _ => {
            return Err(FlowError::Input(format!(
                "unknown family {family:?} (ice40 or ecp5)"
            )))
        }
    };
    let design = bank_design(kind, events, target.family()).map_err(FlowError::Input)?;
    let dir = std::env::temp_dir().join(format!(
        "hwprof-area-{}-{family}-{events}",
        std::process::id()
    ));
    let stat = super::yosys_area(&design, target, &dir, pref, progress);
    let _ = std::fs::remove_dir_all(&dir);
    let stat = stat?;
    let total: u64 = stat.cells_by_type.values().sum();
    let mut parts = vec![];
    for (part, verilog, copies) in bank_parts(kind, target.family()).map_err(FlowError::Input)? {
        let d = Design {
            name: format!("{}-{}", kind.short_name(), part.replace(' ', "-")),
            verilog,
            top: "top".into(),
            events_per_clock: None,
        };
        let s = super::yosys_area(&d, target, &dir, pref, progress);
        let _ = std::fs::remove_dir_all(&dir);
        let s = s?;
        parts.push(PartArea {
            part: part.into(),
            copies,
            cells: (copies * s.cells_by_type.values().sum::<u64>()) as i64,
            flip_flops: (copies * s.ffs) as i64,
        });
    }
    let (cells, ffs) = parts
        .iter()
        .fold((0, 0), |(c, f), p| (c + p.cells, f + p.flip_flops));
    parts.push(PartArea {
        part: "rest".into(),
        copies: 1,
        cells: total as i64 - cells,
        flip_flops: stat.ffs as i64 - ffs,
    });
    Ok(Area {
        kind: kind.name().into(),
        events,
        family: family.into(),
        storage_bits_per_event: kind.storage_bits(),
        cells: stat.cells_by_type.values().sum(),
        flip_flops: stat.ffs,
        luts: stat.luts,
        carries: stat.carry,
        parts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bank_config_has_defaults_and_names_what_is_wrong() {
        let c = BankConfig::from_toml_str("[counters]\nkind = \"float\"\n", "f.toml").unwrap();
        assert_eq!(
            c,
            BankConfig {
                kind: BankKind::Float,
                events: AREA_EVENTS,
                seed: 1,
                family: Family::Ice40
            }
        );
        assert!(BankConfig::is_bank_toml("[counters]\nkind = \"exact\"\n"));
        assert!(!BankConfig::is_bank_toml("[phase]\ninterval = 5\n"));
        for (text, field) in [
            ("[counters]\nkind = \"lossy\"\n", "counters.kind"),
            (
                "[counters]\nkind = \"exact\"\nevents = 7\n",
                "counters.events",
            ),
            (
                "[counters]\nkind = \"exact\"\nfamily = \"xc7\"\n",
                "counters.family",
            ),
            ("[counters]\nkind = \"exact\"\nbits = 6\n", ""),
            ("[counters]\nevents = 29\n", ""),
        ] {
            let e = BankConfig::from_toml_str(text, "f.toml").unwrap_err();
            assert_eq!(e.field, field, "{text}: {e}");
            assert_eq!(e.source, "f.toml");
        }
    }
}
