//! From a configuration to its hardware: which profiler top, in which width class, built on a
//! thread with a stack large enough for it. Every user of the RTL (co-simulation, export,
//! synthesis, board top) goes through [`with_design`] or [`with_class`].
//!
//! **Any configuration.** Every size — tables, table entries, accumulator entries, sets, ways —
//! is chosen when a top is constructed (run-time-sized arrays of sub-blocks, table RAMs of any
//! depth and word width). Only the width of the counting words (counters, counts, thresholds,
//! their adders and comparators) is a const generic CB, one of [`super::widths::WIDTH_CLASSES`]: the smallest
//! class that holds what the configuration stores ([`storage_widths`]). So a release build
//! compiles each top for four widths, whatever the configurations.
//!
//! The stored widths and width classes are in [`super::widths`].

use super::baseline::{BaselineProfiler, SetBaselineProfiler};
use super::bram_profiler::BramProfiler;
use super::profiler::MultiHashProfiler;
use super::relation_profiler::RelationProfiler;
use super::top::ProfilerTop;
use super::widths::storage_widths;
use crate::config::{Organisation, ProfilerConfig, Replacement};
use crate::util::on_rtl_thread;

/// Which design of a configuration: the pipelined profiler (one event per clock), the
/// deliberately simple baseline it is compared with, or the block-RAM profiler rebuilt around a
/// loop of bits ([`RelationProfiler`]: set associative, first replacement, no reset on promote).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    Pipelined,
    Baseline,
    Relation,
}

/// Code generic over the width class, run by [`with_class`] (the board top).
pub trait ClassVisitor {
    type Output;
    fn visit<const CB: usize>(self, cfg: &ProfilerConfig) -> Self::Output;
}

/// Code generic over the profiler top, run by [`with_design`] with the design of a configuration.
pub trait DesignVisitor {
    type Output;
    fn visit<T: ProfilerTop>(self, uut: T, cfg: &ProfilerConfig) -> Self::Output;
}

/// Runs `v` on the RTL thread with the width class of `cfg`.
pub fn with_class<V: ClassVisitor + Send>(cfg: &ProfilerConfig, v: V) -> Result<V::Output, String>
where
    V::Output: Send,
{
    let w = storage_widths(cfg)?;
    on_rtl_thread(move || match w.class {
        16 => v.visit::<16>(cfg),
        24 => v.visit::<24>(cfg),
        32 => v.visit::<32>(cfg),
        64 => v.visit::<64>(cfg),
        c => unreachable!("width class {c} not in WIDTH_CLASSES"),
    })
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
    if design == Design::Relation {
        relation_shape(cfg)?;
    }
    with_class(cfg, Build { design, v })
}

/// Whether `cfg` has a [`Design::Relation`], or why not.
pub fn relation_shape(cfg: &ProfilerConfig) -> Result<(), String> {
    let acc = &cfg.accumulator;
    if acc.organisation != Organisation::SetAssociative {
        return Err("the relation design is set associative: set accumulator.organisation = \"set_associative\"".into());
    }
    if acc.replacement != Replacement::First {
        return Err("the relation design takes the lowest replaceable way: set accumulator.replacement = \"first\"".into());
    }
    if cfg.reset_on_promote {
        return Err(
            "the relation design has no reset on promote (R1): set reset_on_promote = false".into(),
        );
    }
    Ok(())
}

struct Build<V> {
    design: Design,
    v: V,
}

impl<V: DesignVisitor> ClassVisitor for Build<V> {
    type Output = V::Output;
    fn visit<const CB: usize>(self, cfg: &ProfilerConfig) -> V::Output {
        fn run<T: ProfilerTop, V: DesignVisitor>(
            mut uut: T,
            v: V,
            cfg: &ProfilerConfig,
        ) -> V::Output {
            uut.connect_all();
            v.visit(uut, cfg)
        }
        match (self.design, cfg.accumulator.organisation) {
            (Design::Baseline, Organisation::FullyAssociative) => {
                run(BaselineProfiler::<CB>::new(cfg), self.v, cfg)
            }
            (Design::Baseline, Organisation::SetAssociative) => {
                run(SetBaselineProfiler::<CB>::new(cfg), self.v, cfg)
            }
            (Design::Pipelined, Organisation::FullyAssociative) => {
                run(MultiHashProfiler::<CB>::new(cfg), self.v, cfg)
            }
            (Design::Pipelined, Organisation::SetAssociative) => {
                run(BramProfiler::<CB>::new(cfg), self.v, cfg)
            }
            (Design::Relation, Organisation::SetAssociative) => {
                run(RelationProfiler::<CB>::new(cfg), self.v, cfg)
            }
            (Design::Relation, Organisation::FullyAssociative) => {
                unreachable!("rejected by with_design")
            }
        }
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
