//! Approximate and exact event counter banks (ISPASS 2021): the leap-forward LFSR that supplies
//! their random bits, Morris counters, floating-point counters, and the exact baseline, all with
//! the ports and query port of [`bank`].

pub mod bank;
pub mod exact;
pub mod float;
pub mod lfsr;
pub mod morris;
