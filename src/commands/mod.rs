//! One module per subcommand. Errors carry their exit code: 2 for bad input (config, trace,
//! command line), 1 for a failure of the tool or of an external program.

pub mod buffer;
pub mod cosim;
pub mod counters;
pub mod demo;
pub mod model;
pub mod phase;
pub mod sweep;
pub mod synth;
pub mod trace;
pub mod verilog;

use hwprof_sim::eval::trace::{read_trace, LackeyKind, Tuple};
use hwprof_sim::hwprof_hdl::ProfilerConfig;
use std::path::Path;

#[derive(Debug)]
pub struct CliError {
    pub code: i32,
    pub message: String,
}

impl CliError {
    /// Bad input: exit code 2.
    pub fn input(message: impl ToString) -> Self {
        CliError {
            code: 2,
            message: message.to_string(),
        }
    }
    /// A failure that is not the input's fault: exit code 1.
    pub fn failure(message: impl ToString) -> Self {
        CliError {
            code: 1,
            message: message.to_string(),
        }
    }
}

pub type CmdResult = Result<(), CliError>;

/// `--kind` values, shared by every command that reads lackey logs.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum KindArg {
    Edge,
    Load,
    Branch,
}

impl From<KindArg> for LackeyKind {
    fn from(k: KindArg) -> Self {
        match k {
            KindArg::Edge => LackeyKind::Edge,
            KindArg::Load => LackeyKind::Load,
            KindArg::Branch => LackeyKind::Branch,
        }
    }
}

pub fn load_config(path: &Path) -> Result<ProfilerConfig, CliError> {
    ProfilerConfig::load(path).map_err(CliError::input)
}

pub fn load_trace(path: &Path, kind: Option<KindArg>) -> Result<Vec<Tuple>, CliError> {
    read_trace(path, kind.map(Into::into)).map_err(CliError::input)
}

/// Pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(v: &T) -> CmdResult {
    println!(
        "{}",
        serde_json::to_string_pretty(v).map_err(CliError::failure)?
    );
    Ok(())
}
