//! Bit-exact reference models of the hwprof blocks, event traces, the accuracy metric, and the
//! co-simulation of the RTL in `hwprof-hdl` against the models.

pub mod fxhash;
pub mod icarus;
pub mod metric;
pub mod multihash;
pub mod multihash_cosim;
pub mod multihash_icarus;
pub mod trace;

pub use hwprof_hdl;
pub mod board_top;
pub mod event_source;
pub mod report_format;
pub mod synth;
pub mod uart;
