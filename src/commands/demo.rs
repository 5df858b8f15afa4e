//! `hwprof demo`: the README's main job. Runs on the trace bundled in the binary, so it needs
//! nothing but the Rust toolchain.

use super::{model::print_table, CliError, CmdResult};
use hwprof_sim::hwprof_hdl::ProfilerConfig;
use hwprof_sim::metric::evaluate;
use hwprof_sim::trace::read_trace;

/// A real load trace (valgrind lackey, `gzip -9` of a small binary), compact binary form.
const BUNDLED_TRACE: &[u8] = include_bytes!("../../traces/gzip_load.hwpt.gz");
const PRESETS: [(&str, &str); 2] = [
    (
        "paper-10k (multi-hash 4x512, C1R0P1)",
        include_str!("../../configs/paper-10k.toml"),
    ),
    (
        "paper-10k-single (single hash 2048, R1P1)",
        include_str!("../../configs/paper-10k-single.toml"),
    ),
];

#[derive(clap::Args)]
pub struct DemoArgs {}

pub fn run(_: DemoArgs) -> CmdResult {
    let path = std::env::temp_dir().join(format!("hwprof-demo-{}.hwpt.gz", std::process::id()));
    std::fs::write(&path, BUNDLED_TRACE).map_err(CliError::failure)?;
    let events = read_trace(&path, None).map_err(CliError::failure);
    let _ = std::fs::remove_file(&path);
    let events = events?;
    println!(
        "== hwprof demo: bundled trace traces/gzip_load.hwpt.gz, {} load events\n",
        events.len()
    );
    let mut errors = Vec::new();
    for (name, text) in PRESETS {
        let cfg = ProfilerConfig::from_toml_str(text, name).map_err(CliError::failure)?;
        let ev = evaluate(&cfg, &events).map_err(CliError::failure)?;
        println!("-- {name}");
        print_table(&ev);
        println!();
        errors.push(ev.net_error);
    }
    println!(
        "multi-hash net error {:.3} % vs single hash {:.3} %",
        100.0 * errors[0],
        100.0 * errors[1]
    );
    rtl_demo(&events)
}

/// The RTL part of the demo: a short co-simulation of the paper preset's hardware against the
/// model (interval shortened to 2000 so that reports come quickly), and its Verilog export.
fn rtl_demo(events: &[hwprof_sim::trace::Tuple]) -> CmdResult {
    use hwprof_sim::multihash_cosim::{cosim, CosimOptions};
    let text = PRESETS[0].1.replace("interval = 10000", "interval = 2000");
    let cfg =
        ProfilerConfig::from_toml_str(&text, "paper-10k, L = 2000").map_err(CliError::failure)?;
    let n = events.len().min(6000);
    let r = cosim(&cfg, &events[..n], &CosimOptions::default()).map_err(CliError::failure)?;
    println!(
        "\n-- RTL co-simulation (rust-hdl) of {}: {} events, {} reports compared, {} mismatches, {:.4} events/clock",
        r.config, r.events, r.reports_compared, r.mismatches, r.events_per_cycle
    );
    let full =
        ProfilerConfig::from_toml_str(PRESETS[0].1, "paper-10k").map_err(CliError::failure)?;
    let dir = std::env::temp_dir()
        .join("hwprof-demo-verilog")
        .join("paper-10k");
    let files = hwprof_sim::hwprof_hdl::multihash::export(&full, "paper-10k", &dir)
        .map_err(CliError::failure)?;
    println!("-- Verilog of paper-10k written: {}", files[0].display());
    if r.mismatches != 0 {
        return Err(CliError::failure("the RTL differs from the model"));
    }
    Ok(())
}
