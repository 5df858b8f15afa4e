//! Everything of hwprof that is not RTL, in four layers (docs/ARCHITECTURE.md), each depending
//! only on the ones above it:
//! - [`model`]: bit-exact reference models of the blocks in `hwprof-hdl`, under the same names;
//! - [`verify`]: co-simulation of the RTL against the models (rust-hdl's simulator, Icarus);
//! - [`eval`]: event traces, the accuracy metric, peers, sweeps, studies and plots;
//! - [`flow`]: the FPGA flow (Yosys, nextpnr, bitstreams) and its reports;
//! - [`soc`]: real RISC-V programs on PicoRV32 with the profilers on its retire stream, compared
//!   with the models and scored (uses `model`, `verify` and `eval`).
//!
//! Beside them, [`exec`] runs the tasks of a work directory (`hwprof explore`, a sharded
//! `hwprof sweep`) on this machine or a Slurm cluster; it depends on none of them.

pub mod eval;
pub mod exec;
pub mod flow;
pub mod model;
pub mod soc;
pub mod verify;

pub use hwprof_hdl;
