//! `BramProfiler`: the multi-hash profiler with its accumulator in block RAM — set-associative
//! ([`SetAssociativeAccumulator`]), so the paper's 0.1 % configuration (1 000 entries) fits an
//! FPGA. Same ports, pipeline, forwarding and counter tables as [`MultiHashProfiler`], bit-exact
//! with the model `hwprof_sim::model::multihash` for `accumulator.organisation = "set_associative"`.
//!
//! Differences from the fully-associative top, all from the accumulator (see its docs):
//! - a report lists the interval's entries in the order the hardware retires their sets (lowest
//!   way first within a set), not in entry order; it always ends with a terminator word
//!   (count 0, `out_last`), which is the whole report when it is empty;
//! - reports leave during the *next* interval, and `in_ready` also drops while an event's set
//!   still has a report pending and the report staging buffer is busy, and before the last event
//!   of an interval until the previous report is out.
//!
//! **Shapes.** NT tables of 2^IB counters, S = 2^SB sets of W ways, CB storage bits (counters CB,
//! accumulator counts CB − 2 plus two state bits, so a block-RAM word holds an entry's count and
//! state). Counts never exceed L in an interval, so CB only needs to hold min(2^counter_bits − 1, L)
//! and min(2^count_bits − 1, L): the presets use the narrowest CB that does, which is what makes
//! `paper-10k-bram` fit the UP5K's 30 block RAMs. Supported shapes: [`SET_SHAPES`].
//!
//! [`MultiHashProfiler`]: crate::multihash::profiler::MultiHashProfiler

use super::counter_tables::CounterTables;
use super::design::{DesignVisitor, Shape};
use super::hash_unit::{HashUnit, ParityHash};
use super::interval::IntervalControl;
use super::set_accumulator::{SetAssociativeAccumulator, TAG_BITS};
use super::top::impl_profiler_top;
use crate::config::ProfilerConfig;
use crate::hash::{HashConstants, SetHash};
use rust_hdl::prelude::*;

/// The supported set-associative shapes: (tables, index bits, set bits, ways, storage bits).
pub const SET_SHAPES: &[(usize, usize, usize, usize, usize)] = &[
    (4, 9, 5, 4, 16), // paper-10k-bram-4way: 4 x 512, 32 sets x 4 ways, L = 10 000
    (4, 9, 6, 2, 16), // paper-10k-bram (sized for the UP5K): 64 sets x 2 ways
    (4, 9, 8, 4, 22), // paper-1m-bram: 256 sets x 4 ways, L = 1 000 000
    (2, 4, 2, 2, 16), // tests: 2 x 16, 4 sets x 2 ways
    (1, 4, 1, 4, 16), // tests: single hash 16, 2 sets x 4 ways
];

#[derive(LogicBlock)]
pub struct BramProfiler<
    const NT: usize,
    const IB: usize,
    const SB: usize,
    const S: usize,
    const W: usize,
    const CB: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_a: Signal<In, Bits<64>>,
    pub in_b: Signal<In, Bits<64>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_interval: Signal<Out, Bits<32>>,
    pub out_a: Signal<Out, Bits<64>>,
    pub out_b: Signal<Out, Bits<64>>,
    pub out_count: Signal<Out, Bits<32>>,
    pub out_last: Signal<Out, Bit>,
    hash: HashUnit<NT, IB>,
    /// The accumulator set of the tuple (h3, [`SetHash`]).
    set_hash: ParityHash<SB>,
    counters: CounterTables<NT, IB, CB>,
    acc: SetAssociativeAccumulator<SB, S, W, CB>,
    control: IntervalControl,
    s1_valid: DFF<Bit>,
    s1_tag: DFF<Bits<TAG_BITS>>,
    s1_last: DFF<Bit>,
    a: Signal<Local, Bits<64>>,
    b: Signal<Local, Bits<64>>,
    accept: Signal<Local, Bit>,
    a_mask: Constant<Bits<64>>,
    b_mask: Constant<Bits<64>>,
    /// a_bits: the tag is b << a_bits | a.
    b_shift: Constant<Bits<8>>,
}

impl<
        const NT: usize,
        const IB: usize,
        const SB: usize,
        const S: usize,
        const W: usize,
        const CB: usize,
    > BramProfiler<NT, IB, SB, S, W, CB>
{
    /// The hardware of `cfg`, which must have this shape (see [`shape_of`]).
    pub fn new(cfg: &ProfilerConfig) -> Self {
        assert_eq!(
            shape_of(cfg),
            Ok(Shape::Sets(NT, IB, SB, S, W, CB)),
            "configuration vs shape"
        );
        let h = HashConstants::new(cfg);
        // Counts never exceed L (see the module docs), so saturation beyond the storage is moot.
        let counter_max = cfg.counter_max().min((1 << CB) - 1);
        let count_max = cfg.accumulator_count_max().min((1 << (CB - 2)) - 1);
        BramProfiler {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            in_a: Default::default(),
            in_b: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_interval: Default::default(),
            out_a: Default::default(),
            out_b: Default::default(),
            out_count: Default::default(),
            out_last: Default::default(),
            hash: HashUnit::new(&h),
            set_hash: ParityHash::new(&SetHash::new(cfg).q),
            counters: CounterTables::new(
                cfg.threshold,
                counter_max,
                cfg.conservative_update,
                cfg.reset_on_promote,
            ),
            acc: SetAssociativeAccumulator::new(cfg.threshold, count_max, cfg.retaining),
            control: IntervalControl::new(cfg.interval),
            s1_valid: Default::default(),
            s1_tag: Default::default(),
            s1_last: Default::default(),
            a: Default::default(),
            b: Default::default(),
            accept: Default::default(),
            a_mask: Constant::new(cfg.a_mask().into()),
            b_mask: Constant::new(cfg.b_mask().into()),
            b_shift: Constant::new(u64::from(cfg.a_bits).into()),
        }
    }
}

impl<
        const NT: usize,
        const IB: usize,
        const SB: usize,
        const S: usize,
        const W: usize,
        const CB: usize,
    > Logic for BramProfiler<NT, IB, SB, S, W, CB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_tag, s1_last);
        self.counters.clock.next = self.clock.val();
        self.acc.clock.next = self.clock.val();
        self.control.clock.next = self.clock.val();
        self.counters.reset.next = self.reset.val();
        self.acc.reset.next = self.reset.val();
        self.control.reset.next = self.reset.val();
        // Stage 0: mask, hash (counter indices and accumulator set), read, accept.
        self.a.next = self.in_a.val() & self.a_mask.val();
        self.b.next = self.in_b.val() & self.b_mask.val();
        self.hash.a.next = self.a.val();
        self.hash.b.next = self.b.val();
        self.set_hash.a.next = self.a.val();
        self.set_hash.b.next = self.b.val();
        for k in 0..NT {
            self.counters.read_index[k].next = self.hash.index[k].val();
        }
        self.counters.read_bank.next = self.control.bank.val();
        self.acc.lookup_set.next = self.set_hash.index.val();
        self.in_ready.next = !self.reset.val()
            & self.acc.lookup_ok.val()
            & !(self.control.last.val()
                & (self.acc.report_busy.val() | (self.s1_valid.q.val() & self.s1_last.q.val())))
            & !((self.control.bank.val() & self.counters.clearing1.val())
                | (!self.control.bank.val() & self.counters.clearing0.val()));
        self.accept.next = self.in_valid.val() & self.in_ready.val();
        self.acc.lookup.next = self.accept.val();
        self.control.accept.next = self.accept.val();
        self.s1_valid.d.next = self.accept.val();
        self.s1_tag.d.next = (bit_cast::<TAG_BITS, 64>(self.b.val()) << self.b_shift.val())
            | bit_cast::<TAG_BITS, 64>(self.a.val());
        self.s1_last.d.next = self.control.last.val();
        // Stage 1: accumulator, counter update, interval end.
        self.acc.valid.next = self.s1_valid.q.val();
        self.acc.tag.next = self.s1_tag.q.val();
        self.acc.new_min.next = self.counters.new_min.val();
        self.acc.candidate.next = self.counters.candidate.val();
        self.acc.end_interval.next = self.s1_last.q.val();
        self.acc.interval.next = self.control.interval.val();
        self.counters.update.next = self.s1_valid.q.val() & !self.acc.hit.val();
        self.counters.promoted.next = self.acc.promoted.val();
        self.counters.clear_start.next = self.s1_valid.q.val() & self.s1_last.q.val();
        self.control.finish.next = self.s1_valid.q.val() & self.s1_last.q.val();
        // Report stream: the tag unpacked into a and b.
        self.out_valid.next = self.acc.report_valid.val();
        self.acc.report_ready.next = self.out_ready.val();
        self.out_interval.next = self.acc.report_interval.val();
        self.out_a.next = bit_cast::<64, TAG_BITS>(self.acc.report_tag.val()) & self.a_mask.val();
        self.out_b.next = bit_cast::<64, TAG_BITS>(self.acc.report_tag.val() >> self.b_shift.val())
            & self.b_mask.val();
        self.out_count.next = self.acc.report_count.val();
        self.out_last.next = self.acc.report_last.val();
    }
}

impl_profiler_top!(
    BramProfiler<const NT, const IB, const SB, const S, const W, const CB>,
    entry_order = false,
    drain_bound = (S * (W + 2)) as u64 + (1u64 << IB) + 64
);

/// The shape of `cfg` (set-associative), or why it has none.
pub fn shape_of(cfg: &ProfilerConfig) -> Result<Shape, String> {
    cfg.validate().map_err(|e| e.to_string())?;
    let acc = &cfg.accumulator;
    if acc.stash != 0 {
        return Err(format!(
            "accumulator.stash = {}: the block-RAM accumulator RTL has no stash yet (stash = 0 only)",
            acc.stash
        ));
    }
    if cfg.a_bits + cfg.b_bits > TAG_BITS as u32 {
        return Err(format!(
            "a_bits + b_bits = {} exceeds the block-RAM accumulator's {TAG_BITS}-bit tags",
            cfg.a_bits + cfg.b_bits
        ));
    }
    let sets = acc.sets();
    let sb = sets.trailing_zeros() as usize;
    let ib = cfg.index_bits() as usize;
    // The narrowest listed storage that holds every count the configuration can reach.
    let reach = |max: u64| max.min(cfg.interval);
    let fits = |cb: usize| {
        reach(cfg.counter_max()) < (1 << cb)
            && reach(cfg.accumulator_count_max()) < (1 << (cb - 2))
            && cfg.threshold < (1 << (cb - 2))
    };
    let found = SET_SHAPES
        .iter()
        .filter(|&&(nt, i, s, w, cb)| (nt, i, s, w) == (cfg.tables, ib, sb, acc.ways) && fits(cb))
        .min_by_key(|s| s.4);
    match found {
        Some(&(nt, ib, sb, w, cb)) => Ok(Shape::Sets(nt, ib, sb, 1 << sb, w, cb)),
        None => {
            let list: Vec<String> = SET_SHAPES
                .iter()
                .map(|(t, ib, sb, w, cb)| {
                    format!(
                        "{t}x{} {} sets x {w} ways ({cb}-bit storage)",
                        1usize << ib,
                        1usize << sb
                    )
                })
                .collect();
            Err(format!(
                "no block-RAM RTL shape for tables = {}, entries = {}, {} sets x {} ways with counts up to {}; supported: {} (add one to hwprof_hdl::multihash::bram_profiler::SET_SHAPES)",
                cfg.tables,
                cfg.entries,
                sets,
                acc.ways,
                reach(cfg.accumulator_count_max()),
                list.join(", ")
            ))
        }
    }
}

fn build<
    V: DesignVisitor,
    const NT: usize,
    const IB: usize,
    const SB: usize,
    const S: usize,
    const W: usize,
    const CB: usize,
>(
    cfg: &ProfilerConfig,
    v: V,
) -> V::Output {
    let mut uut = BramProfiler::<NT, IB, SB, S, W, CB>::new(cfg);
    uut.connect_all();
    v.visit(uut, cfg)
}

/// Runs `v` with the top of `shape` (from [`shape_of`]).
pub(crate) fn dispatch<V: DesignVisitor>(shape: Shape, cfg: &ProfilerConfig, v: V) -> V::Output {
    match shape {
        Shape::Sets(4, 9, 5, 32, 4, 16) => build::<V, 4, 9, 5, 32, 4, 16>(cfg, v),
        Shape::Sets(4, 9, 6, 64, 2, 16) => build::<V, 4, 9, 6, 64, 2, 16>(cfg, v),
        Shape::Sets(4, 9, 8, 256, 4, 22) => build::<V, 4, 9, 8, 256, 4, 22>(cfg, v),
        Shape::Sets(2, 4, 2, 4, 2, 16) => build::<V, 2, 4, 2, 4, 2, 16>(cfg, v),
        Shape::Sets(1, 4, 1, 2, 4, 16) => build::<V, 1, 4, 1, 2, 4, 16>(cfg, v),
        s => unreachable!("shape {s:?} listed in SET_SHAPES but not dispatched"),
    }
}
