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
    Ok(())
}
