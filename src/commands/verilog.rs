//! `hwprof verilog`: export the multi-hash profiler's Verilog and a FuseSoC core for a config.

use super::{load_config, CliError, CmdResult};
use hwprof_sim::hwprof_hdl::multihash::export::export;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct VerilogArgs {
    /// Profiler configuration (TOML), e.g. configs/paper-10k.toml
    #[arg(long)]
    pub config: PathBuf,
    /// Output directory (created): multihash_profiler.v and multihash_profiler.core
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(a: VerilogArgs) -> CmdResult {
    let cfg = load_config(&a.config)?;
    let name = a
        .config
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "profiler".into());
    // A configuration without an RTL shape is bad input; file-system failures are not.
    hwprof_sim::hwprof_hdl::multihash::design::rtl_shape(&cfg)
        .map_err(|e| CliError::input(format!("config {}: {e}", a.config.display())))?;
    for p in export(&cfg, &name, &a.out).map_err(CliError::failure)? {
        println!("{}", p.display());
    }
    Ok(())
}
