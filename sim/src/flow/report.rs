//! Parsing what the tools write: Yosys `stat -json` and nextpnr `--report` JSON.

use super::device::Family;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Yosys's cell counts after technology mapping, by category.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct YosysStat {
    pub luts: u64,
    pub ffs: u64,
    pub carry: u64,
    pub brams: u64,
    pub dsps: u64,
    /// Distributed (LUT) RAM cells: ECP5 TRELLIS_DPR16X4 (each uses a slice pair).
    pub lutram: u64,
    /// iCE40 UltraPlus SPRAM blocks.
    pub spram: u64,
    pub cells_by_type: BTreeMap<String, u64>,
}

/// The category of a mapped cell type.
fn category(family: Family, ty: &str) -> Option<&'static str> {
    match family {
        Family::Ice40 => match ty {
            "SB_LUT4" => Some("lut"),
            "SB_CARRY" => Some("carry"),
            "SB_MAC16" => Some("dsp"),
            "SB_SPRAM256KA" => Some("spram"),
            t if t.starts_with("SB_DFF") => Some("ff"),
            t if t.starts_with("SB_RAM40_4K") => Some("bram"),
            _ => None,
        },
        Family::Ecp5 => match ty {
            "LUT4" => Some("lut"),
            "TRELLIS_FF" => Some("ff"),
            "CCU2C" => Some("carry"),
            "DP16KD" | "PDPW16KD" => Some("bram"),
            "MULT18X18D" | "ALU54B" => Some("dsp"),
            "TRELLIS_DPR16X4" => Some("lutram"),
            _ => None,
        },
    }
}

impl YosysStat {
    /// Parses `stat -json` output (Yosys 0.23 and later): the `design` totals when present, else
    /// the single module.
    pub fn parse(text: &str, family: Family) -> Result<YosysStat, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("yosys stat JSON: {e}"))?;
        let scope = match v.get("design") {
            Some(d) => d,
            None => {
                let mods = v
                    .get("modules")
                    .and_then(Value::as_object)
                    .ok_or("yosys stat JSON: neither `design` nor `modules`")?;
                if mods.len() != 1 {
                    return Err(format!(
                        "yosys stat JSON: no `design` totals and {} modules",
                        mods.len()
                    ));
                }
                mods.values().next().unwrap()
            }
        };
        let by_type = scope
            .get("num_cells_by_type")
            .and_then(Value::as_object)
            .ok_or("yosys stat JSON: no `num_cells_by_type`")?;
        let mut s = YosysStat::default();
        for (ty, n) in by_type {
            let n = n
                .as_u64()
                .ok_or_else(|| format!("yosys stat JSON: count of {ty} is not a number"))?;
            s.cells_by_type.insert(ty.clone(), n);
            match category(family, ty) {
                Some("lut") => s.luts += n,
                Some("ff") => s.ffs += n,
                Some("carry") => s.carry += n,
                Some("bram") => s.brams += n,
                Some("dsp") => s.dsps += n,
                Some("lutram") => s.lutram += n,
                Some("spram") => s.spram += n,
                _ => {}
            }
        }
        Ok(s)
    }
}

/// What nextpnr reports for one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PnrReport {
    /// Achieved Fmax of the slowest clock domain, MHz.
    pub fmax_mhz: f64,
    /// The clock of that domain.
    pub clock: String,
    /// Achieved Fmax of every clock domain, MHz, by clock net.
    pub clocks: BTreeMap<String, f64>,
    /// Per resource: (used, available), as nextpnr counts them after packing.
    pub utilization: BTreeMap<String, (u64, u64)>,
    /// The worst path: start cell, end cell, and the nets it crosses.
    pub critical_path: Option<CriticalPath>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CriticalPath {
    pub from: String,
    pub to: String,
    pub nets: Vec<String>,
    pub logic_levels: usize,
}

impl PnrReport {
    pub fn parse(text: &str) -> Result<PnrReport, String> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| format!("nextpnr report JSON: {e}"))?;
        let fmax = v
            .get("fmax")
            .and_then(Value::as_object)
            .ok_or("nextpnr report JSON: no `fmax`")?;
        let clocks: BTreeMap<String, f64> = fmax
            .iter()
            .filter_map(|(clk, f)| Some((clk.clone(), f.get("achieved")?.as_f64()?)))
            .collect();
        let (clock, fmax_mhz) = clocks
            .iter()
            .map(|(c, &f)| (c.clone(), f))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .ok_or(
                "nextpnr report JSON: no clock with an achieved Fmax (is the design clocked?)",
            )?;
        let mut utilization = BTreeMap::new();
        if let Some(u) = v.get("utilization").and_then(Value::as_object) {
            for (k, x) in u {
                let used = x.get("used").and_then(Value::as_u64).unwrap_or(0);
                let avail = x.get("available").and_then(Value::as_u64).unwrap_or(0);
                utilization.insert(k.clone(), (used, avail));
            }
        }
        let critical_path = v
            .get("critical_paths")
            .and_then(Value::as_array)
            .and_then(|paths| {
                paths
                    .iter()
                    .find(|p| {
                        p.get("from")
                            .and_then(Value::as_str)
                            .map(|f| clock.contains(f) || f.contains(&clock))
                            .unwrap_or(false)
                    })
                    .or_else(|| paths.first())
            })
            .and_then(|p| {
                let steps = p.get("path")?.as_array()?;
                let cell =
                    |s: &Value, end: &str| s.get(end)?.get("cell")?.as_str().map(str::to_string);
                let from = cell(steps.first()?, "from")?;
                let to = cell(steps.last()?, "to")?;
                let nets = steps
                    .iter()
                    .filter_map(|s| s.get("net").and_then(Value::as_str).map(str::to_string))
                    .collect();
                let logic_levels = steps
                    .iter()
                    .filter(|s| s.get("type").and_then(Value::as_str) == Some("logic"))
                    .count();
                Some(CriticalPath {
                    from,
                    to,
                    nets,
                    logic_levels,
                })
            });
        Ok(PnrReport {
            fmax_mhz,
            clock,
            clocks,
            utilization,
            critical_path,
        })
    }

    /// Logic cells (iCE40 `ICESTORM_LC`) or LUT4s (ECP5 `TRELLIS_COMB`, or two per `TRELLIS_SLICE`
    /// in older nextpnr), as placed: (used, available).
    pub fn logic(&self, family: Family) -> Option<(u64, u64)> {
        match family {
            Family::Ice40 => self.utilization.get("ICESTORM_LC").copied(),
            Family::Ecp5 => self.utilization.get("TRELLIS_COMB").copied().or_else(|| {
                self.utilization
                    .get("TRELLIS_SLICE")
                    .map(|&(u, a)| (2 * u, 2 * a))
            }),
        }
    }
}

/// Median of a non-empty list (mean of the two middle values for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT_023: &str = r#"{
   "creator": "Yosys 0.23 (git sha1 7ce5011c24b)",
   "invocation": "stat -json ",
   "modules": { "\\t": { "num_cells": 109, "num_cells_by_type": {
        "SB_CARRY": 22, "SB_DFF": 25, "SB_DFFE": 24, "SB_LUT4": 37, "SB_RAM40_4K": 1 } } },
   "design": { "num_cells": 109, "num_cells_by_type": {
        "SB_CARRY": 22, "SB_DFF": 25, "SB_DFFE": 24, "SB_LUT4": 37, "SB_RAM40_4K": 1 } }
}"#;

    #[test]
    fn yosys_stat_categories() {
        let s = YosysStat::parse(STAT_023, Family::Ice40).unwrap();
        assert_eq!(
            (s.luts, s.ffs, s.carry, s.brams, s.dsps),
            (37, 49, 22, 1, 0)
        );
        let e = r#"{"modules": {"\\top": {"num_cells_by_type": {"LUT4": 10, "TRELLIS_FF": 7,
            "CCU2C": 3, "DP16KD": 2, "MULT18X18D": 1, "PFUMX": 4}}}}"#;
        let s = YosysStat::parse(e, Family::Ecp5).unwrap();
        assert_eq!((s.luts, s.ffs, s.carry, s.brams, s.dsps), (10, 7, 3, 2, 1));
        assert!(YosysStat::parse("{}", Family::Ecp5).is_err());
        assert!(YosysStat::parse("not json", Family::Ecp5).is_err());
    }

    #[test]
    fn nextpnr_report_fmax_utilization_and_path() {
        let r = r#"{"critical_paths": [{"from": "posedge clk", "to": "posedge clk", "path": [
            {"type": "clk-to-q", "delay": 1.0, "from": {"cell": "a_reg"}, "to": {"cell": "a_reg"}},
            {"type": "routing", "net": "n1", "from": {"cell": "a_reg"}, "to": {"cell": "lut1"}},
            {"type": "logic", "from": {"cell": "lut1"}, "to": {"cell": "lut1"}},
            {"type": "routing", "net": "n2", "from": {"cell": "lut1"}, "to": {"cell": "b_reg"}},
            {"type": "setup", "from": {"cell": "b_reg"}, "to": {"cell": "b_reg"}}]}],
          "fmax": {"clk": {"achieved": 79.75, "constraint": 50},
                   "clk2": {"achieved": 120.0, "constraint": 50}},
          "utilization": {"ICESTORM_LC": {"available": 5280, "used": 64},
                          "ICESTORM_RAM": {"available": 30, "used": 1}}}"#;
        let p = PnrReport::parse(r).unwrap();
        assert_eq!(p.fmax_mhz, 79.75);
        assert_eq!(p.clock, "clk");
        assert_eq!(p.clocks.len(), 2);
        assert_eq!(p.clocks["clk2"], 120.0);
        assert_eq!(p.logic(Family::Ice40), Some((64, 5280)));
        let cp = p.critical_path.unwrap();
        assert_eq!((cp.from.as_str(), cp.to.as_str()), ("a_reg", "b_reg"));
        assert_eq!(cp.nets, vec!["n1", "n2"]);
        assert_eq!(cp.logic_levels, 1);
        assert!(PnrReport::parse(r#"{"fmax": {}}"#).is_err());
    }

    #[test]
    fn median_odd_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
