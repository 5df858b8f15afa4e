//! Synthesizable rust-hdl blocks of hwprof, and the parameters they share with the reference models
//! in `hwprof-sim`. One folder per concept; each block's model lives under the same name in
//! `sim/src/model/`. See docs/ARCHITECTURE.md.

pub mod block_ram;
pub mod board;
pub mod config;
pub mod counters;
pub mod export;
pub mod hash;
pub mod multihash;
pub mod phase;
pub mod profile_buffer;
pub mod readout;
pub mod tap;
pub mod util;

pub use config::{ConfigError, ConfigFile, HashKind, Organisation, ProfilerConfig};
