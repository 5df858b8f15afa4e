//! Models of the counter banks and their random source (`hwprof_hdl::counters`).

pub mod exact;
pub mod float;
pub mod lfsr;
pub mod morris;
