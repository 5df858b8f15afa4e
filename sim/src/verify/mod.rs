//! Verification of the RTL against the models: rust-hdl co-simulation, the exported Verilog
//! under Icarus, adversarial streams and waveforms.

pub mod counters;
pub mod icarus;
pub mod multihash;
pub mod netlist;
pub mod phase;
pub mod profile_buffer;
pub mod waveform;
