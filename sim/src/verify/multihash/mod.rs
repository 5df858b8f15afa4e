//! Co-simulation and Icarus cross-simulation of every multi-hash profiler design against the
//! model, and the adversarial streams they are fed.

pub mod baseline;
#[cfg(test)]
mod blocks;
pub mod bram;
pub mod cosim;
pub mod export;
pub mod icarus;
#[cfg(test)]
pub mod kit;
#[cfg(test)]
mod relation;
pub mod settings;
pub mod shapes;
pub mod streams;
