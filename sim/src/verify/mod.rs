//! Verification of the RTL against the models: rust-hdl co-simulation, the exported Verilog
//! under Icarus, adversarial streams and waveforms.

pub mod counters;
pub mod formal;
pub mod icarus;
pub mod ip;
pub mod multihash;
pub mod netlist;
pub mod phase;
pub mod profile_buffer;
pub mod readout;
pub mod tap;
pub mod waveform;
pub mod writer;

use rust_hdl::prelude::{simulate, Block};

/// Updates `uut` until its signals stop changing, as rust-hdl's simulator does between clock
/// edges; an error when they never do (a combinational loop).
pub fn settle<B: Block>(uut: &mut B) -> Result<(), String> {
    if simulate(uut, 10_000) {
        Ok(())
    } else {
        Err("the RTL did not settle (combinational loop?)".into())
    }
}
