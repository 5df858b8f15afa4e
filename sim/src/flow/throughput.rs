//! Events per clock of a design with the profilers' stream ports, measured by running its Verilog
//! under Icarus: `in_valid` held high with the on-chip event source's skewed stream on
//! `in_a`/`in_b`, `out_ready` held high, and events counted as cycles with `in_ready` high, over
//! a window that starts at the first such cycle after reset (so the one-off clearing after reset
//! is not counted; clearing and back-pressure inside the window are). Events/s in the synthesis
//! report is Fmax × this figure.

use crate::model::board::event_source::EventSourceModel;
use crate::verify::icarus::{self, SimDir};
use hwprof_hdl::board::event_source::DEFAULT_SEED;

/// Cycles in reset before counting.
const RESET_CYCLES: u64 = 4;

/// The longest throughput simulation of a profiler, cycles: Icarus is slow on big designs.
const MAX_PROFILER_CYCLES: u64 = 30_000;

/// Cycles over which a profiler of interval `interval` and `entries` counters per table is
/// measured: two intervals and the clearing between them, capped.
pub fn profiler_cycles(interval: u64, entries: u64) -> u64 {
    (2 * interval + entries + 100).min(MAX_PROFILER_CYCLES)
}

/// Runs `top` (ports `clock`, `reset`, `in_valid`, `in_ready`, `in_a`, `in_b`, `out_ready`, and
/// `settings`: more port connections, such as a profiler's fixed settings
/// ([`hwprof_hdl::multihash::top::fixed_settings_ports`] into the wire `unused_flush_pending`))
/// for `cycles` clocks from its first ready cycle; returns events taken per clock.
pub fn events_per_clock(
    verilog: &str,
    top: &str,
    settings: &str,
    cycles: u64,
) -> Result<f64, String> {
    if cycles == 0 {
        return Err("throughput: at least one cycle".into());
    }
    let dir = SimDir::new("throughput").map_err(|e| e.to_string())?;
    let dut = dir.file("dut.v");
    std::fs::write(&dut, verilog).map_err(|e| e.to_string())?;
    let events = EventSourceModel::events(DEFAULT_SEED, cycles as usize + 1);
    icarus::write_memh(
        &dir.file("events.hex"),
        128,
        events.iter().map(|&(a, b)| vec![a, b]),
    )
    .map_err(|e| e.to_string())?;
    let tb = format!(
        "module hwprof_throughput;\n\
         reg clock = 0; reg reset = 1; reg [127:0] ev [0:{last}]; integer c, taken;\n\
         wire in_ready, unused_flush_pending; reg [63:0] a, b;\n\
         {top} dut(.clock(clock), .reset(reset), .in_valid(1'b1), .in_ready(in_ready),\n\
           .in_a(a), .in_b(b), .out_ready(1'b1){sep}{settings});\n\
         initial begin\n $readmemh(\"events.hex\", ev);\n taken = 0; a = ev[0][63:0]; b = ev[0][127:64];\n\
         for (c = 0; c < {reset_cycles}; c = c + 1) begin #1 clock = 1; #1 clock = 0; end\n\
         reset = 0;\n\
         c = 0; #1; while (!in_ready && c < 100000000) begin clock = 1; #1 clock = 0; #1; c = c + 1; end\n\
         for (c = 0; c < {cycles}; c = c + 1) begin\n\
           a = ev[taken][63:0]; b = ev[taken][127:64]; #1;\n\
           if (in_ready) taken = taken + 1;\n\
           clock = 1; #1 clock = 0;\n\
         end\n $display(\"taken %0d\", taken);\n $finish;\n end\nendmodule\n",
        last = events.len() - 1,
        sep = if settings.is_empty() { "" } else { ", " },
        reset_cycles = RESET_CYCLES,
    );
    let tbf = dir.file("tb.v");
    std::fs::write(&tbf, tb).map_err(|e| e.to_string())?;
    let out = icarus::run(&dir, &[dut, tbf], "hwprof_throughput").map_err(|e| e.to_string())?;
    let taken: u64 = out
        .lines()
        .find_map(|l| l.strip_prefix("taken "))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| format!("throughput: the simulation printed no count:\n{out}"))?;
    Ok(taken as f64 / cycles as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_accepted_events() {
        // Takes an event every third cycle after reset.
        let v = "module slow(input clock, input reset, input in_valid, output in_ready,\n\
                 input [63:0] in_a, input [63:0] in_b, input out_ready);\n\
                 reg [1:0] c = 0;\n always @(posedge clock) c <= reset ? 0 : (c == 2 ? 0 : c + 1);\n\
                 assign in_ready = in_valid && c == 2;\nendmodule\n";
        let e = events_per_clock(v, "slow", "", 300).unwrap();
        assert!((e - 1.0 / 3.0).abs() < 1e-9, "{e}");
        assert!(events_per_clock(v, "slow", "", 0).is_err());
    }

    /// A profiler with its settings ports tied: about an event per clock (none would be taken
    /// with L and T left floating).
    #[test]
    fn a_profiler_takes_about_an_event_per_clock() {
        use hwprof_hdl::ConfigFile;
        let cfg = hwprof_hdl::ProfilerConfig::from_toml_str(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\nentries = 4\n",
            "t",
        )
        .unwrap();
        let c = cfg.clone();
        let v = hwprof_hdl::util::on_rtl_thread(move || hwprof_hdl::multihash::verilog(&c))
            .unwrap()
            .unwrap();
        let settings =
            hwprof_hdl::multihash::top::fixed_settings_ports(&cfg, "unused_flush_pending");
        let e = events_per_clock(&v, "top", &settings, 400).unwrap();
        assert!(e > 0.8 && e <= 1.0, "{e}");
    }
}
