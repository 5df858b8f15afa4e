//! Real RISC-V programs under the profilers: PicoRV32 (from the PyPI package
//! `pythondata-cpu-picorv32`, with its RISC-V formal interface RVFI enabled) runs a cross-compiled
//! program from a RAM; a tap on its retire stream feeds the multi-hash profiler's exported Verilog
//! twice, in value mode (`<pc, loaded value>` of every retired load) and in edge mode
//! (`<pc, next pc>` of every retired control transfer). The simulation also dumps the retire
//! stream, and the bit-exact model fed that stream must report exactly what the hardware did.
//!
//! - [`programs`]: the programs (the package's and this crate's `programs/`), the cross compiler;
//! - [`system`]: the Verilog of the system and its run under Verilator or Icarus;
//! - [`run`]: a whole run: build, simulate, model, compare, score, symbolise;
//! - [`board`]: the system on a board: the profiler's reports on the UART, its simulation with the
//!   transcript decoded, its synthesis.

pub mod board;
pub mod cpu;
pub mod programs;
pub mod run;
pub mod serv;
pub mod system;

/// Why a run could not be made: a missing tool or package (the message says how to install it),
/// bad input, or a failure of a tool or of the simulation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocError {
    Missing(String),
    Input(String),
    Failure(String),
}

impl std::fmt::Display for SocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SocError::Missing(m) | SocError::Input(m) | SocError::Failure(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SocError {}
