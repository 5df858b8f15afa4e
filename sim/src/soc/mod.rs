//! Real RISC-V programs under the profilers: a CPU with RVFI — PicoRV32 (PyPI
//! `pythondata-cpu-picorv32`) or SERV (PyPI `pythondata-cpu-serv`) — runs a cross-compiled program
//! from a RAM; hwprof's blocks sit on its retire stream behind generated RVFI taps
//! (`hwprof_hdl::tap`): the multi-hash profiler in value mode (`<pc, loaded value>` of every
//! retired load) and edge mode (`<pc, next pc>` of every retired control transfer), the profile
//! buffer and the phase classifier. The simulation dumps the retire records and the events each
//! block took; the models fed those events must report exactly what the hardware did.
//!
//! - [`programs`]: the programs (bundled, the user's C or ELF), the cross compiler, the loader;
//! - [`cpu`], [`serv`]: the CPUs as sections of the system;
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
