//! Synthesizable rust-hdl blocks of hwprof, and the parameters they share with the reference models
//! in `hwprof-sim`. One concept per file; each block's model lives under the same name in `sim/`.

pub mod baseline;
pub mod config;
pub mod exact_counter;
pub mod float_counter;
pub mod hash;
pub mod hdl_util;
pub mod lfsr;
pub mod morris;
pub mod multihash;
pub mod multihash_accumulator;
pub mod multihash_bram;
pub mod multihash_counters;
pub mod multihash_hash;
pub mod multihash_interval;
pub mod multihash_set_accumulator;
pub mod profile_buffer;

pub use config::{ConfigError, HashKind, Organisation, ProfilerConfig};
pub mod board_top;
pub mod event_source;
pub mod report_format;
pub mod uart;
