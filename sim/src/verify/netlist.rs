//! Post-synthesis simulation: the netlist Yosys writes after `synth_ice40` / `synth_ecp5`, with
//! Yosys's own models of the vendor cells (LUTs, carries, flip-flops, block RAMs), so that a
//! testbench written for the RTL runs on what the FPGA would hold. This checks what no RTL-level
//! run can: block-RAM inference, read-during-write behaviour, the initial values of flip-flops.
//!
//! The native Yosys (Debian's) is used, with the cell models of its own `share/yosys`: the netlist
//! and the models must come from the same Yosys.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The FPGA family whose synthesis script makes the netlist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Ice40,
    Ecp5,
}

impl Family {
    pub const ALL: [Family; 2] = [Family::Ice40, Family::Ecp5];

    pub fn name(self) -> &'static str {
        match self {
            Family::Ice40 => "ice40",
            Family::Ecp5 => "ecp5",
        }
    }

    /// The Yosys command that reads a design: on the ECP5 it defines the macro under which the
    /// exported Verilog instantiates the family's block-RAM primitives (`TableRam`'s output
    /// register). Every synthesis reads designs with it.
    pub fn read_verilog(self) -> String {
        match self {
            Family::Ice40 => "read_verilog".to_string(),
            Family::Ecp5 => format!("read_verilog -D{}", hwprof_hdl::block_ram::ECP5_DEFINE),
        }
    }

    fn synth(self) -> &'static str {
        match self {
            Family::Ice40 => "synth_ice40",
            Family::Ecp5 => "synth_ecp5",
        }
    }
}

const INSTALL: &str =
    "the post-synthesis run needs Debian's Yosys and its cell models: apt-get install yosys";

/// The `share/yosys` of the `yosys` on PATH: `yosys-config --datdir`, else beside the binary.
pub fn datdir() -> Result<PathBuf, String> {
    let from_config = Command::new("yosys-config")
        .arg("--datdir")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let beside = || {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .find(|d| d.join("yosys").is_file())
            .map(|d| d.join("../share/yosys"))
    };
    from_config
        .or_else(beside)
        .filter(|d| d.join("ice40/cells_sim.v").is_file())
        .ok_or_else(|| {
            format!("Yosys's cell models (share/yosys/ice40/cells_sim.v) not found: {INSTALL}")
        })
}

/// Yosys's simulation models of `family`'s cells.
pub fn cell_models(family: Family) -> Result<PathBuf, String> {
    Ok(datdir()?.join(family.name()).join("cells_sim.v"))
}

/// The first source of a simulation that reads Yosys's iCE40 models: they give ports default
/// values, which Icarus 11 does not parse, unless this is defined.
pub const DEFINES: &str = "`define NO_ICE40_DEFAULT_ASSIGNMENTS\n";

/// The Yosys version string (`yosys -V`).
pub fn yosys_version() -> Result<String, String> {
    let out = Command::new("yosys")
        .arg("-V")
        .output()
        .map_err(|e| format!("cannot run yosys: {e}: {INSTALL}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Synthesizes `design` (top module `top`) for `family` and writes the netlist to `out`; returns
/// the sources a simulation of it needs besides the testbench: the defines, the netlist and the
/// cell models.
pub fn synthesize(
    design: &Path,
    top: &str,
    family: Family,
    out: &Path,
) -> Result<Vec<PathBuf>, String> {
    let models = cell_models(family)?;
    let script = format!(
        "{} {}; {} -top {top}; write_verilog -noattr {}",
        family.read_verilog(),
        design.display(),
        family.synth(),
        out.display()
    );
    let run = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .map_err(|e| format!("cannot run yosys: {e}: {INSTALL}"))?;
    if !run.status.success() {
        return Err(format!(
            "yosys {} failed:\n{}{}",
            family.synth(),
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    let defines = out.with_file_name("defines.v");
    std::fs::write(&defines, DEFINES).map_err(|e| format!("{}: {e}", defines.display()))?;
    let local = out.with_file_name("cells_sim.v");
    let mut models = inlined(&models)?;
    if family == Family::Ecp5 {
        models = with_block_ram_behaviour(&models)?;
    }
    std::fs::write(&local, models).map_err(|e| format!("{}: {e}", local.display()))?;
    Ok(vec![defines, out.to_path_buf(), local])
}

/// Behaviour for the ECP5 block RAM: Yosys's ECP5 models declare `DP16KD`'s parameters and ports
/// but not what it does, so its outputs would float and the comparison would blame the design.
const DP16KD_BEHAVIOUR: &str = include_str!("dp16kd_behaviour.vh");

/// `models` with [`DP16KD_BEHAVIOUR`] inside the `DP16KD` declaration.
fn with_block_ram_behaviour(models: &str) -> Result<String, String> {
    let start = models
        .find("module DP16KD(")
        .ok_or("Yosys's ECP5 cell models declare no DP16KD")?;
    let end = start
        + models[start..]
            .find("endmodule")
            .ok_or("Yosys's ECP5 cell models: DP16KD has no endmodule")?;
    if models[start..end].contains("always") {
        return Err("Yosys's ECP5 cell models now give DP16KD a behaviour: drop hwprof's".into());
    }
    Ok(format!(
        "{}{DP16KD_BEHAVIOUR}{}",
        &models[..end],
        &models[end..]
    ))
}

/// A Verilog file with its `` `include "…" `` lines replaced by the files (beside it) they name,
/// so that the simulator needs no include path.
fn inlined(path: &Path) -> Result<String, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{}: {e}: {INSTALL}", path.display()))?;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        match line
            .trim()
            .strip_prefix("`include \"")
            .and_then(|r| r.strip_suffix('"'))
        {
            Some(name) => out.push_str(&inlined(&path.with_file_name(name))?),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::multihash::cosim::ReadyPattern;
    use crate::verify::multihash::icarus::netlist_cosim;
    use hwprof_hdl::multihash::Design;
    use hwprof_hdl::ConfigFile;
    use hwprof_hdl::ProfilerConfig;

    fn window(n: usize) -> Vec<(u64, u64)> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/gzip_load.hwpt.gz");
        let ev = crate::eval::trace::read_trace(Path::new(path), None).unwrap();
        ev[1000..1000 + n].to_vec()
    }

    /// The block-RAM profiler (with the refused slot in stage 0) after synth_ice40, on a
    /// real-trace window, with a report port that back-pressures: every report equals the model's.
    #[test]
    fn the_ice40_netlist_of_the_block_ram_profiler_matches_the_model() {
        let cfg = ProfilerConfig::from_toml_str(
            "interval = 200\nthreshold = 4\ntables = 2\nentries = 64\ncounter_bits = 12\na_bits = 32\nb_bits = 32\nrefused_slot = true\n\
             [accumulator]\norganisation = \"set_associative\"\nentries = 16\nways = 2\n",
            "test",
        )
        .unwrap();
        let slow = ReadyPattern {
            ready: 1,
            period: 3,
        };
        let r = netlist_cosim(&cfg, Design::Pipelined, &window(1000), slow, Family::Ice40).unwrap();
        assert_eq!(r.mismatches, 0, "{:#?}", r.first_mismatch);
        assert_eq!(r.reports_compared, 5);
    }

    /// After synth_ecp5: a fully-associative profiler (no block RAM), and a block-RAM one (DP16KD,
    /// with hwprof's behaviour of it; the accumulator's flags from rows) under back-pressure, with
    /// and without the counters' output register, match the model.
    #[test]
    fn the_ecp5_netlists_match_the_model() {
        let fa = ProfilerConfig::from_toml_str(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\na_bits = 32\nb_bits = 32\n[accumulator]\nentries = 4\n",
            "test",
        )
        .unwrap();
        let r = netlist_cosim(
            &fa,
            Design::Pipelined,
            &window(640),
            ReadyPattern::ALWAYS,
            Family::Ecp5,
        )
        .unwrap();
        assert_eq!(r.mismatches, 0, "{:#?}", r.first_mismatch);
        assert_eq!(r.reports_compared, 10);
        let bram = ProfilerConfig::from_toml_str(
            "interval = 200\nthreshold = 4\ntables = 2\nentries = 512\na_bits = 32\nb_bits = 32\n\
             flag_rows = true\nnarrow_tag_compare = true\nhash_stage = true\n[accumulator]\norganisation = \"set_associative\"\n\
             entries = 16\nways = 2\n",
            "test",
        )
        .unwrap();
        let slow = ReadyPattern {
            ready: 1,
            period: 3,
        };
        let r = netlist_cosim(&bram, Design::Pipelined, &window(1000), slow, Family::Ecp5).unwrap();
        assert_eq!(r.mismatches, 0, "{:#?}", r.first_mismatch);
        assert_eq!(r.reports_compared, 5);
        // The counters' DP16KDs read through their output register, a clock early.
        let mut outreg = bram.clone();
        outreg.counter_output_register = true;
        let r = netlist_cosim(
            &outreg,
            Design::Pipelined,
            &window(1000),
            slow,
            Family::Ecp5,
        )
        .unwrap();
        assert_eq!(r.mismatches, 0, "{:#?}", r.first_mismatch);
        assert_eq!(r.reports_compared, 5);
    }

    /// The behaviour goes inside Yosys's DP16KD declaration, once.
    #[test]
    fn the_block_ram_behaviour_is_inserted_into_the_declaration() {
        let models = inlined(&cell_models(Family::Ecp5).unwrap()).unwrap();
        let with = with_block_ram_behaviour(&models).unwrap();
        let start = with.find("module DP16KD(").unwrap();
        let end = start + with[start..].find("endmodule").unwrap();
        assert!(with[start..end].contains("hwprof_mem"));
        assert_eq!(with.matches("hwprof_mem [0:1023]").count(), 1);
        assert!(with_block_ram_behaviour(&with).is_err());
    }
}
