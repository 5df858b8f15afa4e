//! Verilog of the profiler of a configuration: as rust-hdl writes it (top module `top`, for the
//! project's own testbenches and flow), and as users get it ([`exported`]).

use super::design::{with_design, Design, DesignVisitor};
use super::top::ProfilerTop;
use crate::config::ProfilerConfig;
use crate::export;
use rust_hdl::prelude::*;

struct VerilogOf;

impl DesignVisitor for VerilogOf {
    type Output = String;
    fn visit<T: ProfilerTop>(self, uut: T, _: &ProfilerConfig) -> String {
        generate_verilog(&uut)
    }
}

/// The complete Verilog of the profiler for `cfg` (top module `top`), deterministic: the same
/// configuration gives the same bytes. Errors for configurations without an RTL shape.
pub fn verilog(cfg: &ProfilerConfig) -> Result<String, String> {
    verilog_of(cfg, Design::Pipelined)
}

/// The complete Verilog of `design` for `cfg` (top module `top`), deterministic.
pub fn verilog_of(cfg: &ProfilerConfig, design: Design) -> Result<String, String> {
    with_design(cfg, design, VerilogOf)
}

/// The profiler of `cfg` as users get it: top module `hwprof_<name>` ([`crate::export`]), with a
/// header naming the configuration. Deterministic.
pub fn exported(cfg: &ProfilerConfig, name: &str) -> Result<String, String> {
    Ok(export::package(
        &verilog(cfg)?,
        name,
        "multi-hash profiler",
        &cfg.summary(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigFile;

    fn small() -> ProfilerConfig {
        ProfilerConfig::from_toml_str(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\nentries = 4\n",
            "t",
        )
        .unwrap()
    }

    #[test]
    fn verilog_is_deterministic_and_depends_on_the_config() {
        let cfg = small();
        let v = verilog(&cfg).unwrap();
        assert_eq!(v, verilog(&cfg).unwrap());
        let mut other = cfg.clone();
        other.seed = 2;
        assert_ne!(
            v,
            verilog(&other).unwrap(),
            "hash constants come from the seed"
        );
        let e = exported(&cfg, "small-2x16").unwrap();
        assert!(e.contains("module hwprof_small_2x16(") && !e.contains("module top"));
    }

    #[test]
    fn any_shape_exports_and_unsupported_options_are_rejected() {
        let mut cfg = small();
        cfg.tables = 3;
        cfg.entries = 32;
        cfg.accumulator.entries = 5;
        cfg.accumulator.ways = 5;
        let v = verilog(&cfg).unwrap();
        assert!(
            v.contains("reg [7:0] mem [0:31]"),
            "3 x 32 counters of 7 bits (L = 64), with their predicate in the spare eighth bit"
        );
        let cfg = ProfilerConfig::from_toml_str(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\norganisation = \"set_associative\"\nentries = 8\nways = 2\nstash = 1\n",
            "t",
        )
        .unwrap();
        assert!(verilog(&cfg).unwrap_err().contains("stash"));
    }
}
