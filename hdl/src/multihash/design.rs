//! From a configuration to its hardware: which profiler top, with which const generics, built on
//! a thread with a stack large enough for it. Every user of the RTL (co-simulation, export,
//! synthesis, board top) goes through [`with_design`] or [`with_shape`].

use super::baseline;
use super::bram_profiler;
use super::profiler::MultiHashProfiler;
use super::top::ProfilerTop;
use crate::config::{Organisation, ProfilerConfig};
use crate::util::on_rtl_thread;
use rust_hdl::prelude::*;

/// Counter storage width of every shape: configurations may use any `counter_bits` up to it.
pub const COUNTER_STORAGE_BITS: usize = 24;

/// The supported shapes: (tables, index bits, accumulator entries, counter storage bits).
/// The presets, and small shapes for the tests' adversarial co-simulations.
pub const SHAPES: &[(usize, usize, usize, usize)] = &[
    (4, 9, 100, 24),   // paper-10k: 4 x 512, L = 10 000, 1 %
    (1, 11, 100, 24),  // paper-10k-single: 1 x 2048
    (4, 9, 1000, 24),  // paper-1m: L = 1 000 000, 0.1 %
    (1, 11, 1000, 24), // paper-1m-single
    (2, 4, 4, 24),     // tests: 2 x 16, A = 4
    (1, 4, 4, 24),     // tests: single hash 16, A = 4
    (4, 4, 8, 24),     // tests: 4 x 16, A = 8
];

/// Which design of a configuration: the pipelined profiler (one event per clock), or the
/// deliberately simple baseline it is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    Pipelined,
    Baseline,
}

/// The hardware of a configuration: which top, with which const generics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// [`MultiHashProfiler`]`<NT, IB, A, CB>`: fully-associative accumulator in flip-flops.
    Full(usize, usize, usize, usize),
    /// [`BramProfiler`](bram_profiler::BramProfiler)`<NT, IB, SB, S, W, CB>`: set-associative
    /// accumulator in block RAM.
    Sets(usize, usize, usize, usize, usize, usize),
}

fn check_widths(cfg: &ProfilerConfig, storage: usize) -> Result<(), String> {
    if cfg.counter_bits as usize > storage {
        return Err(format!(
            "counter_bits = {} exceeds the RTL's counter storage of {storage} bits",
            cfg.counter_bits
        ));
    }
    if cfg.accumulator.count_bits as usize > storage {
        return Err(format!(
            "accumulator.count_bits = {} exceeds the RTL's counter storage of {storage} bits",
            cfg.accumulator.count_bits
        ));
    }
    Ok(())
}

/// The shape of `cfg`, or why it has none.
pub fn rtl_shape(cfg: &ProfilerConfig) -> Result<Shape, String> {
    cfg.validate().map_err(|e| e.to_string())?;
    match cfg.accumulator.organisation {
        Organisation::FullyAssociative => {
            check_widths(cfg, COUNTER_STORAGE_BITS)?;
            let s = (
                cfg.tables,
                cfg.index_bits() as usize,
                cfg.accumulator.entries,
                COUNTER_STORAGE_BITS,
            );
            if SHAPES.contains(&s) {
                return Ok(Shape::Full(s.0, s.1, s.2, s.3));
            }
            let list: Vec<String> = SHAPES
                .iter()
                .map(|(t, ib, a, _)| format!("{t}x{} A={a}", 1usize << ib))
                .collect();
            Err(format!(
                "no RTL shape for tables = {}, entries = {}, accumulator.entries = {}; supported (tables x entries, accumulator): {} (add one to hwprof_hdl::multihash::SHAPES)",
                cfg.tables,
                cfg.entries,
                cfg.accumulator.entries,
                list.join(", ")
            ))
        }
        Organisation::SetAssociative => bram_profiler::shape_of(cfg),
    }
}

/// The shape of a configuration with a fully-associative accumulator (the board top's), or why
/// it has none.
pub fn shape_of(cfg: &ProfilerConfig) -> Result<(usize, usize, usize, usize), String> {
    match rtl_shape(cfg)? {
        Shape::Full(nt, ib, a, cb) => Ok((nt, ib, a, cb)),
        Shape::Sets(..) => {
            Err("this block needs accumulator.organisation = \"fully_associative\"".into())
        }
    }
}

/// Code generic over the fully-associative shapes, run by [`with_shape`] (the board top).
pub trait ShapeVisitor {
    type Output;
    fn visit<const NT: usize, const IB: usize, const A: usize, const CB: usize>(
        self,
        cfg: &ProfilerConfig,
    ) -> Self::Output;
}

/// Code generic over the profiler top, run by [`with_design`] with the design of a configuration.
pub trait DesignVisitor {
    type Output;
    fn visit<T: ProfilerTop>(self, uut: T, cfg: &ProfilerConfig) -> Self::Output;
}

/// Runs `v` with the const generics of `cfg`'s (fully-associative) shape; an error names the
/// supported shapes.
pub fn with_shape<V: ShapeVisitor + Send>(cfg: &ProfilerConfig, v: V) -> Result<V::Output, String>
where
    V::Output: Send,
{
    let shape = shape_of(cfg)?;
    on_rtl_thread(move || dispatch(shape, cfg, v))
}

/// Runs `v` with the top of `design` for `cfg`, built and connected; an error says why the
/// configuration has no such hardware.
pub fn with_design<V: DesignVisitor + Send>(
    cfg: &ProfilerConfig,
    design: Design,
    v: V,
) -> Result<V::Output, String>
where
    V::Output: Send,
{
    let shape = rtl_shape(cfg)?;
    match (design, shape) {
        (Design::Pipelined, Shape::Full(..)) => {
            let shape = shape_of(cfg)?;
            on_rtl_thread(move || dispatch(shape, cfg, Pipelined(v)))
        }
        (Design::Pipelined, Shape::Sets(..)) => {
            on_rtl_thread(move || bram_profiler::dispatch(shape, cfg, v))
        }
        (Design::Baseline, Shape::Full(..)) => with_shape(cfg, baseline::Build(v)),
        (Design::Baseline, Shape::Sets(..)) => Err(
            "the baseline profiler exists for fully-associative accumulators only (accumulator.organisation = \"fully_associative\")"
                .into(),
        ),
    }
}

struct EntryOrder;

impl DesignVisitor for EntryOrder {
    type Output = bool;
    fn visit<T: ProfilerTop>(self, _: T, _: &ProfilerConfig) -> bool {
        T::ENTRY_ORDER
    }
}

/// Whether `design` of `cfg` reports entries in accumulator-entry order ([`ProfilerTop::ENTRY_ORDER`]).
pub fn entry_order(cfg: &ProfilerConfig, design: Design) -> Result<bool, String> {
    with_design(cfg, design, EntryOrder)
}

/// Adapts a [`DesignVisitor`] to the pipelined fully-associative tops.
struct Pipelined<V>(V);

impl<V: DesignVisitor> ShapeVisitor for Pipelined<V> {
    type Output = V::Output;
    fn visit<const NT: usize, const IB: usize, const A: usize, const CB: usize>(
        self,
        cfg: &ProfilerConfig,
    ) -> Self::Output {
        let mut uut = MultiHashProfiler::<NT, IB, A, CB>::new(cfg);
        uut.connect_all();
        self.0.visit(uut, cfg)
    }
}

fn dispatch<V: ShapeVisitor>(
    shape: (usize, usize, usize, usize),
    cfg: &ProfilerConfig,
    v: V,
) -> V::Output {
    match shape {
        (4, 9, 100, 24) => v.visit::<4, 9, 100, 24>(cfg),
        (1, 11, 100, 24) => v.visit::<1, 11, 100, 24>(cfg),
        (4, 9, 1000, 24) => v.visit::<4, 9, 1000, 24>(cfg),
        (1, 11, 1000, 24) => v.visit::<1, 11, 1000, 24>(cfg),
        (2, 4, 4, 24) => v.visit::<2, 4, 4, 24>(cfg),
        (1, 4, 4, 24) => v.visit::<1, 4, 4, 24>(cfg),
        (4, 4, 8, 24) => v.visit::<4, 4, 8, 24>(cfg),
        s => unreachable!("shape {s:?} listed in SHAPES but not dispatched"),
    }
}
