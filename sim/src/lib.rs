//! Bit-exact reference models of the hwprof blocks, event traces, the accuracy metric, and the
//! co-simulation of the RTL in `hwprof-hdl` against the models.

pub mod baseline;
pub mod counter_area;
pub mod counter_cosim;
pub mod counter_study;
pub mod exact_counter;
pub mod float_counter;
pub mod fxhash;
pub mod icarus;
pub mod lfsr;
pub mod metric;
pub mod morris;
pub mod multihash;
pub mod multihash_bram;
pub mod multihash_cosim;
pub mod multihash_icarus;
pub mod multihash_streams;
pub mod plot;
pub mod profile_buffer;
pub mod space_saving;
pub mod stratified;
pub mod sweep;
pub mod trace;

pub use hwprof_hdl;
pub mod board_top;
pub mod event_source;
pub mod report_format;
pub mod synth;
pub mod uart;
pub mod waveform;
