//! The command-line tool end to end, one module per command family, sharing [`common`].

mod common;

mod buffer;
mod counters;
mod docs;
mod explore;
mod exports;
mod ip;
mod model;
mod phase;
mod report;
mod rtl;
mod soc;
mod sweep;
mod synth;
mod ux;
mod wavedrom;
