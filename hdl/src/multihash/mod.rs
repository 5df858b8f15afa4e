//! The multi-hash profiler of Narayanasamy et al. (HPCA 2003) in RTL, bit-exact with the model
//! `hwprof_sim::model::multihash` (docs/SPEC.md §4, §5).
//!
//! Sub-blocks, bottom up: [`hash_unit`] (the n table indices of a tuple), [`interval`] (interval
//! counting), [`counter_tables`] (the n counter tables with conservative update and forwarding),
//! [`relations`] (the counters' decision from forwarded order relations, bits in D) and
//! [`relation_tables`] (the counter tables around it), [`set_relations`] (the set-associative
//! accumulator's decision likewise),
//! [`full_accumulator`] and [`set_accumulator`] (the accumulator table in flip-flops or in block
//! RAM, with the interface of [`accumulator`]). Tops: [`profiler`] (pipelined, fully-associative accumulator), [`bram_profiler`]
//! (set-associative accumulator in block RAM) and [`baseline`] (the simple design they are
//! compared with), all with the ports of [`top`]. [`widths`] gives a configuration's stored widths;
//! [`design`] maps a configuration to its top;
//! [`export`] writes its Verilog.

pub mod accumulator;
pub mod baseline;
pub mod bram_profiler;
pub mod counter_tables;
pub mod design;
pub mod export;
pub mod full_accumulator;
pub mod hash_unit;
pub mod interval;
pub mod primitives;
pub mod profiler;
pub mod relation_accumulator;
pub mod relation_profiler;
pub mod relation_tables;
pub mod relations;
pub mod set_accumulator;
pub mod set_relations;
pub mod threshold;
pub mod top;
pub mod widths;

pub use design::{entry_order, with_class, with_design, ClassVisitor, Design, DesignVisitor};
pub use export::{verilog, verilog_of};
pub use top::{ProfilerTop, ReportWord};
