//! Bit-exact reference models of the RTL blocks: the specification the hardware must match.
//! Each model lives under the same name as its block in `hwprof-hdl`.

pub mod board;
pub mod counters;
pub mod multihash;
pub mod phase;
pub mod profile_buffer;
pub mod tap;

/// One profiled event: the tuple (a, b), e.g. `<pc, loaded value>` or `<branch pc, target>`.
pub type Tuple = (u64, u64);
