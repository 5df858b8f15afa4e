//! Evaluation on real programs: traces, the paper's accuracy metric, peer algorithms at equal
//! memory, design-space sweeps, the counter study, and plots.

pub mod counter_study;
pub mod flat_profile;
pub mod metric;
pub mod phase;
#[cfg(feature = "plot")]
pub mod plot;
pub mod space_saving;
pub mod stratified;
pub mod sweep;
pub mod symbols;
pub mod trace;
