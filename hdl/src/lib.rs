//! Synthesizable rust-hdl blocks of hwprof, and the parameters they share with the reference models
//! in `hwprof-sim`. One concept per file; each block's model lives under the same name in `sim/`.

pub mod config;
pub mod hash;

pub use config::{ConfigError, HashKind, Organisation, ProfilerConfig};
pub mod event_source;
pub mod report_format;
pub mod uart;
