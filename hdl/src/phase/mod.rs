//! The phase classifier: per-interval execution-frequency vectors of branches (or basic blocks)
//! in B hashed accumulators, normalised, classified leader–follower against a signature table by
//! Manhattan distance, with a run-length Markov next-phase predictor. The model is
//! `hwprof_sim::model::phase`.

pub mod config;

pub use config::{CentreUpdate, PhaseConfig, WhenFull};
pub mod classifier;

pub use classifier::{verilog, with_shape, PhaseTop, ShapeVisitor};
