//! The multi-hash profiler's sub-blocks, each alone against the model function it implements:
//! [`ConservativeUpdate`] exhaustively on small counter widths against
//! [`conservative_update`]; the [`CounterTables`]' forwarding, an event reading what the events
//! one and two clocks ahead wrote (with and without a registered read), against plain tables updated
//! by [`conservative_update`]; [`CounterRelations`], the counters' decision from relations,
//! against the same tables with every event aliasing the two ahead of it at random, and
//! [`RelationCounterTables`] around it, events reading what the five ahead wrote, across
//! interval ends; [`SetRelations`], the set-associative accumulator's decision with the words of
//! the ops one and two ahead forwarded as bits, against the model's [`Accumulator`]; and the
//! [`FullyAssociativeAccumulator`]'s and the [`SetAssociativeAccumulator`]'s hit, allocate, lock,
//! replace, report and retain rules against the model's [`Accumulator`], event by event; the
//! [`IntervalControl`]'s last-event flag and bank against a count of accepted events; the
//! [`TabulationRam`]'s indices against [`HashConstants::index`]. The whole profilers are
//! co-simulated in [`super::kit`]; these tests name the sub-block and the input when one breaks.

use crate::model::multihash::{conservative_update, Accumulator, EntryState, ReportEntry};
use crate::verify::settle;
use hwprof_hdl::hash::{HashConstants, SetHash};
use hwprof_hdl::multihash::counter_tables::{ConservativeUpdate, CounterTables, UpdateRule};
use hwprof_hdl::multihash::full_accumulator::FullyAssociativeAccumulator;
use hwprof_hdl::multihash::hash_unit::TabulationRam;
use hwprof_hdl::multihash::interval::IntervalControl;
use hwprof_hdl::multihash::relation_accumulator::RelationSetAccumulator;
use hwprof_hdl::multihash::relation_tables::RelationCounterTables;
use hwprof_hdl::multihash::relations::CounterRelations;
use hwprof_hdl::multihash::set_accumulator::{
    SetAssociativeAccumulator, TAG_BITS, TAG_PARTS, TAG_PART_BITS,
};
use hwprof_hdl::multihash::set_relations::SetRelations;
use hwprof_hdl::multihash::threshold::CandidateThreshold;
use hwprof_hdl::ConfigFile;
use hwprof_hdl::ProfilerConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// A sub-block with `clock` and `reset` inputs, clocked by hand.
trait Clocked: Block + Sized {
    fn clock_input(&mut self) -> &mut Signal<In, Clock>;
    fn reset_input(&mut self) -> &mut Signal<In, Bit>;
    /// Sets the clock level and lets the block settle.
    fn level(&mut self, high: bool) {
        self.clock_input().next = Clock { clk: high };
        settle(self).unwrap();
    }
    /// One clock with reset high, then reset low.
    fn reset_clock(&mut self) {
        self.reset_input().next = true;
        self.level(false);
        self.level(true);
        self.reset_input().next = false;
    }
}

macro_rules! clocked {
    ($($block:ident),*) => {
        $(impl<const CB: usize> Clocked for $block<CB> {
            fn clock_input(&mut self) -> &mut Signal<In, Clock> {
                &mut self.clock
            }
            fn reset_input(&mut self) -> &mut Signal<In, Bit> {
                &mut self.reset
            }
        })*
    };
}
clocked!(
    CounterRelations,
    RelationCounterTables,
    SetRelations,
    CounterTables,
    FullyAssociativeAccumulator,
    SetAssociativeAccumulator,
    RelationSetAccumulator
);

/// The block's `new_min` output is the model's, and its `candidate` output says `new_min` >= T.
fn assert_estimate<const CB: usize>(
    got_min: &Signal<Out, Bits<CB>>,
    candidate: &Signal<Out, Bit>,
    new_min: u32,
    threshold: u64,
    what: &str,
) {
    assert_eq!(got_min.val().to_u64(), new_min as u64, "new_min, {what}");
    assert_eq!(
        candidate.val(),
        new_min as u64 >= threshold,
        "candidate threshold, {what}"
    );
}

/// Every vector of `tables` counters of value 0..=`max`, in order.
fn counter_vectors(tables: usize, max: u32) -> impl Iterator<Item = Vec<u32>> {
    let n = (max as u64 + 1).pow(tables as u32);
    (0..n).map(move |mut x| {
        (0..tables)
            .map(|_| {
                let v = (x % (max as u64 + 1)) as u32;
                x /= max as u64 + 1;
                v
            })
            .collect()
    })
}

/// One [`ConservativeUpdate`] over every counter vector it can see, promoted or not, against
/// [`conservative_update`] plus the reset-on-promote write and the candidate threshold.
fn check_conservative_update<const CB: usize>(
    tables: usize,
    threshold: u64,
    counter_max: u32,
    saturates: bool,
    cu: bool,
    reset: Option<u32>,
) {
    let rule = UpdateRule {
        tables,
        threshold,
        fixed_threshold: false,
        counter_max: counter_max as u64,
        saturates,
        conservative_update: cu,
        reset_on_promote: reset.is_some(),
        reset_value: reset.unwrap_or(0) as u64,
    };
    let mut uut = ConservativeUpdate::<CB>::new(&rule);
    uut.connect_all();
    // What the caller's `CandidateThreshold` holds for T (tested on its own below).
    uut.promotable.next = counter_max as u64 >= threshold;
    uut.incremented_floor.next = rule.candidate_floor().saturating_sub(1).into();
    uut.reset_floor.next = rule.reset_value >= rule.candidate_floor();
    // Without saturation logic the counters never reach the maximum: only inputs below it.
    let top = if saturates {
        counter_max
    } else {
        counter_max - 1
    };
    let floor = rule.candidate_floor();
    for c in counter_vectors(tables, top) {
        for promoted in [false, true] {
            for (k, &v) in c.iter().enumerate() {
                uut.c[k].next = (v as u64).into();
                uut.floor[k].next = v as u64 >= floor;
            }
            uut.promoted.next = promoted;
            settle(&mut uut).unwrap();
            let mut want = c.clone();
            let new_min = conservative_update(&mut want, cu, counter_max);
            if let (true, Some(v)) = (promoted, reset) {
                want.fill(v);
            }
            let what = format!(
                "CB {CB} tables {tables} T {threshold} max {counter_max} saturates {saturates} C{} reset {reset:?} c {c:?} promoted {promoted}",
                cu as u8
            );
            let got: Vec<u32> = uut.w.iter().map(|w| w.val().to_u64() as u32).collect();
            assert_eq!(got, want, "written words, {what}");
            // Each written word's candidate predicate, carried with it to the next event.
            let got: Vec<bool> = uut.w_floor.iter().map(|f| f.val()).collect();
            let want: Vec<bool> = want.iter().map(|&v| v as u64 >= floor).collect();
            assert_eq!(got, want, "predicates of the written words, {what}");
            assert_estimate(&uut.new_min, &uut.candidate, new_min, threshold, &what);
            // Which counters are minimal, and each one's saturating increment: what a caller
            // registers to finish `new_min` a clock later.
            let least = *c.iter().min().unwrap();
            let got: Vec<bool> = uut.minimal.iter().map(|m| m.val()).collect();
            let want: Vec<bool> = c.iter().map(|&v| v == least).collect();
            assert_eq!(got, want, "minimal counters, {what}");
            let got: Vec<u32> = uut.inc.iter().map(|i| i.val().to_u64() as u32).collect();
            let want: Vec<u32> = c.iter().map(|&v| (v + 1).min(counter_max)).collect();
            assert_eq!(got, want, "increments, {what}");
        }
    }
}

#[test]
fn conservative_update_matches_the_model_exhaustively() {
    for tables in 1..=3 {
        for cu in [false, true] {
            // R0, R1 to 0, R1 to a nonzero `reset_value` (below T where T > 2).
            for reset in [None, Some(0), Some(2)] {
                // 3-bit counters saturating at 7, every T up to one it cannot reach.
                for t in 1..=8 {
                    let reset = reset.map(|v: u32| v.min(t as u32 - 1));
                    check_conservative_update::<3>(tables, t, 7, true, cu, reset);
                }
                // Counters narrower than their storage class, and counters that cannot saturate.
                check_conservative_update::<4>(tables, 3, 5, true, cu, reset);
                check_conservative_update::<4>(tables, 6, 9, false, cu, reset);
            }
        }
    }
}

/// Every T a 4-bit block can hold, loaded in turn (and a clock without `load` keeping it), for
/// values saturating below, at and above T and reset values up to the maximum: each derived
/// output against [`UpdateRule::candidate_floor`] and plain arithmetic on T, the previous T, and
/// a block with T fixed giving the same outputs.
#[test]
fn candidate_threshold_derives_what_the_compares_use() {
    const CB: usize = 4;
    for max in [0u64, 1, 5, 15] {
        for reset_value in [0u64, 1, 3] {
            let mut uut = CandidateThreshold::<CB>::new(max, reset_value, None);
            uut.connect_all();
            let clock = |uut: &mut CandidateThreshold<CB>, load: bool, t: u64| {
                uut.load.next = load;
                uut.value.next = t.into();
                for high in [false, true] {
                    uut.clock.next = Clock { clk: high };
                    settle(uut).unwrap();
                }
            };
            for t in 1..16u64 {
                let prev = uut.t.val().to_u64();
                clock(&mut uut, true, t);
                // Not loading: another value offered changes nothing.
                clock(&mut uut, false, 16 - t);
                if t > 1 {
                    assert_eq!(uut.t_prev.val().to_u64(), prev, "previous T");
                }
                let rule = UpdateRule {
                    tables: 1,
                    threshold: t,
                    fixed_threshold: false,
                    counter_max: max,
                    saturates: true,
                    conservative_update: true,
                    reset_on_promote: false,
                    reset_value,
                };
                let floor = rule.candidate_floor();
                let what = format!("max {max} reset value {reset_value} T {t}");
                let got = (
                    uut.t.val().to_u64(),
                    uut.t_minus_1.val().to_u64(),
                    uut.t_minus_2.val().to_u64(),
                    uut.t_minus_3.val().to_u64(),
                    uut.t_at_most_1.val(),
                    uut.reachable.val(),
                );
                assert_eq!(
                    got,
                    (
                        t,
                        t - 1,
                        t.saturating_sub(2),
                        t.saturating_sub(3),
                        t <= 1,
                        max >= t
                    ),
                    "T and what follows, {what}"
                );
                let got = (
                    uut.floor.val().to_u64(),
                    uut.floor_minus_1.val().to_u64(),
                    uut.floor_zero.val(),
                    uut.reset_reaches_floor.val(),
                );
                assert_eq!(
                    got,
                    (
                        floor,
                        floor.saturating_sub(1),
                        floor == 0,
                        reset_value >= floor
                    ),
                    "candidate floor, {what}"
                );
                let mut fixed = CandidateThreshold::<CB>::new(max, reset_value, Some(t));
                fixed.connect_all();
                clock(&mut fixed, false, 16 - t);
                let outputs = |u: &CandidateThreshold<CB>| {
                    (
                        [
                            u.t.val(),
                            u.t_minus_1.val(),
                            u.t_minus_2.val(),
                            u.t_minus_3.val(),
                            u.floor.val(),
                        ],
                        u.floor_minus_1.val(),
                        [u.t_at_most_1.val(), u.reachable.val()],
                        [u.floor_zero.val(), u.reset_reaches_floor.val()],
                    )
                };
                assert_eq!(outputs(&fixed), outputs(&uut), "T fixed, {what}");
            }
        }
    }
}

/// Random events on few indices (so that consecutive events share counters at distances 1, 2 and
/// more), shielded or not, promoted or not: every event's `new_min` and candidate threshold
/// against tables kept by [`conservative_update`] with reset on promote. Counters stored in 4 bits
/// keep their predicate beside them in the RAM word; in 16 bits (the whole word) they do not. At
/// T = 1 every word, a cleared one too, is a candidate.
fn check_counter_tables(
    cu: bool,
    reset: Option<u32>,
    (registered, write_stage, output_register): (bool, bool, bool),
    width: usize,
    threshold: u64,
    seed: u64,
) {
    const CB: usize = 16;
    let (tables, entries, counter_max) = (2, 16, 15u32);
    // T loaded at reset (seed 1) or fixed (seed 2): the same counters either way.
    let rule = UpdateRule {
        tables,
        threshold,
        fixed_threshold: seed == 2,
        counter_max: counter_max as u64,
        saturates: true,
        conservative_update: cu,
        reset_on_promote: reset.is_some(),
        reset_value: reset.unwrap_or(0) as u64,
    };
    let mut uut = if registered {
        CounterTables::<CB>::new_registered(entries, width, &rule, write_stage, output_register)
    } else {
        CounterTables::<CB>::new(entries, width, &rule)
    };
    // Clocks from `read_index` to stage 1.
    let delay = 1 + registered as usize + output_register as usize;
    uut.connect_all();
    // Reset (which takes T), then both banks clear (one word per clock).
    uut.threshold.next = threshold.into();
    uut.reset_clock();
    for _ in 0..entries + 2 {
        uut.level(false);
        uut.level(true);
    }
    assert!(!uut.clearing0.val(), "bank 0 cleared");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut table = vec![vec![0u32; entries]; tables];
    // Events on their way to stage 1, oldest first: indices, whether it updates (missed the
    // accumulator), promoted.
    let mut ahead: std::collections::VecDeque<(Vec<usize>, bool, bool)> = Default::default();
    let mut w_min: Option<(u32, String)> = None;
    for step in 0..2000 {
        let idx: Vec<usize> = (0..tables).map(|_| rng.gen_range(0..3)).collect();
        for (k, &i) in idx.iter().enumerate() {
            uut.read_index[k].next = (i as u64).into();
        }
        uut.read_bank.next = false;
        uut.clear_start.next = false;
        let s1 = if ahead.len() == delay {
            ahead.pop_front()
        } else {
            None
        };
        let (update, promoted) = s1.as_ref().map_or((false, false), |e| (e.1, e.2));
        uut.valid.next = s1.is_some();
        uut.update.next = update;
        uut.promoted.next = promoted;
        uut.level(false);
        // The event a clock ahead's `new_min`, finished from registers.
        if let Some((m, what)) = w_min.take() {
            assert_eq!(uut.new_min_w.val().to_u64(), m as u64, "new_min_w, {what}");
        }
        if let Some((at, update, promoted)) = s1 {
            let mut c: Vec<u32> = at.iter().enumerate().map(|(k, &i)| table[k][i]).collect();
            let new_min = conservative_update(&mut c, cu, counter_max);
            let what = format!(
                "C{} reset {reset:?} registered {registered} write stage {write_stage} output register {output_register} width {width} T {threshold} seed {seed} event {step} at {at:?}",
                cu as u8
            );
            assert_estimate(&uut.new_min, &uut.candidate, new_min, threshold, &what);
            w_min = Some((new_min, what));
            if update {
                if let (true, Some(v)) = (promoted, reset) {
                    c.fill(v);
                }
                for (k, &i) in at.iter().enumerate() {
                    table[k][i] = c[k];
                }
            }
        }
        uut.level(true);
        ahead.push_back((idx, !rng.gen_ratio(1, 5), rng.gen_ratio(1, 6)));
    }
    // Without reset on promote nothing brings a counter down: the stream saturates some.
    assert!(
        reset.is_some() || table.iter().flatten().any(|&v| v == counter_max),
        "the stream must saturate a counter (C{})",
        cu as u8
    );
}

#[test]
fn counter_tables_forward_what_the_events_ahead_wrote() {
    for cu in [false, true] {
        for reset in [None, Some(0), Some(5)] {
            for seed in 1..=2 {
                for stages in [
                    (false, false, false),
                    (true, false, false),
                    (true, true, false),
                    (true, false, true),
                    (true, true, true),
                ] {
                    for width in [4, 16] {
                        check_counter_tables(cu, reset, stages, width, 6, seed);
                        if reset.is_none() {
                            check_counter_tables(cu, reset, stages, width, 1, seed);
                        }
                    }
                }
            }
        }
    }
}

/// [`CounterRelations`] as the counter tables drive it: an event enters C1 on most clocks (bubbles
/// between), on few indices, so that it reads the counters of the events one and two slots ahead
/// (forwarded as relations and by the late mux) and of those further ahead (the early word,
/// given here from the reference tables); it misses the accumulator at random. Every event's
/// increments and candidate predicate in D, and a clock later its written words and new
/// minimum, against tables kept by [`conservative_update`].
fn check_counter_relations(tables: usize, cu: bool, counter_max: u32, threshold: u64, seed: u64) {
    const CB: usize = 16;
    // 0xffff: counters that never saturate in the stream.
    let saturates = counter_max != 0xffff;
    let rule = UpdateRule {
        tables,
        threshold,
        fixed_threshold: true,
        counter_max: counter_max as u64,
        saturates,
        conservative_update: cu,
        reset_on_promote: false,
        reset_value: 0,
    };
    let floor = if counter_max as u64 >= threshold {
        threshold - 1
    } else {
        0
    };
    let mut uut = CounterRelations::<CB>::new(&rule);
    uut.connect_all();
    uut.floor.next = floor.into();
    uut.floor_minus_1.next = floor.saturating_sub(1).into();
    uut.promotable.next = counter_max as u64 >= threshold;
    uut.reset_clock();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut table = vec![vec![0u32; 4]; tables];
    // The slots of C1, C2 and D: an event's indices and whether it misses.
    let mut slots: [Option<(Vec<usize>, bool)>; 3] = [None, None, None];
    // The event a clock past D: its words and new minimum.
    let mut past: Option<(Vec<u32>, Option<u32>, String)> = None;
    let (mut increments, mut saturated) = (0, 0);
    for step in 0..3000 {
        // A new event enters C1.
        slots[0] = rng.gen_ratio(4, 5).then(|| {
            (
                (0..tables).map(|_| rng.gen_range(0..4)).collect(),
                rng.gen_ratio(4, 5),
            )
        });
        let what = format!(
            "{tables} tables C{} max {counter_max} T {threshold} seed {seed} clock {step}",
            cu as u8
        );
        let same = |a: &Option<(Vec<usize>, bool)>, b: &Option<(Vec<usize>, bool)>, k: usize| matches!((a, b), (Some(x), Some(y)) if x.0[k] == y.0[k]);
        for k in 0..tables {
            // The early word: the counter with every event but the two ahead applied.
            let t0 = slots[0].as_ref().map_or(0, |(at, _)| table[k][at[k]]);
            uut.t0[k].next = (t0 as u64).into();
            uut.t0m[k].next = (t0.wrapping_sub(1) as u64 & 0xffff).into();
            uut.t0z[k].next = t0 == 0;
            uut.c1_same2[k].next = same(&slots[0], &slots[2], k);
            uut.c2_same1[k].next = same(&slots[1], &slots[2], k);
        }
        uut.miss.next = slots[2].as_ref().is_some_and(|e| e.1);
        uut.level(false);
        if let Some((words, new_min, what)) = past.take() {
            for (k, &w) in words.iter().enumerate() {
                assert_eq!(
                    uut.w_word[k].val().to_u64(),
                    w as u64,
                    "w_word[{k}], {what}"
                );
                assert_eq!(
                    uut.w_word_m[k].val().to_u64(),
                    (w.wrapping_sub(1) & 0xffff) as u64,
                    "w_word_m[{k}], {what}"
                );
                assert_eq!(uut.w_zero[k].val(), w == 0, "w_zero[{k}], {what}");
            }
            if let Some(m) = new_min {
                assert_eq!(uut.new_min_w.val().to_u64(), m as u64, "new_min_w, {what}");
            }
        }
        if let Some((at, miss)) = slots[2].clone() {
            let mut c: Vec<u32> = at.iter().enumerate().map(|(k, &i)| table[k][i]).collect();
            let before = c.clone();
            let what = format!("{what} at {at:?} counters {c:?} miss {miss}");
            assert_eq!(
                uut.candidate.val(),
                counter_max as u64 >= threshold && c.iter().all(|&v| v as u64 + 1 >= threshold),
                "candidate, {what}"
            );
            let new_min = miss.then(|| conservative_update(&mut c, cu, counter_max));
            for k in 0..tables {
                let inc = c[k] != before[k];
                increments += inc as usize;
                saturated += (miss && before[k] == counter_max) as usize;
                assert_eq!(uut.increment[k].val(), inc, "increment[{k}], {what}");
                table[k][at[k]] = c[k];
            }
            past = Some((c, new_min, what));
        }
        uut.level(true);
        slots.rotate_right(1);
    }
    // A saturating stream stops incrementing once its few counters are full.
    assert!(
        increments > if saturates { 20 } else { 1000 },
        "the stream increments ({increments})"
    );
    assert!(
        !saturates || saturated > 0,
        "the stream must reach the saturation at {counter_max}"
    );
}

#[test]
fn counter_relations_match_conservative_update() {
    for tables in [1, 2, 4] {
        for cu in [true, false] {
            for (counter_max, threshold) in [(0xffff, 40), (0xffff, 1), (7, 5), (7, 9)] {
                for seed in 1..=2 {
                    check_counter_relations(tables, cu, counter_max, threshold, seed);
                }
            }
        }
    }
}

/// [`RelationCounterTables`]: events on few indices enter R on most clocks, so that each reads
/// counters the events one to five slots ahead are still updating (bubbles between), in intervals
/// of random length whose banks alternate; as the top does, nothing enters R while an interval's
/// last event is in R … W, and an event waits while its bank is clearing (16 words, so the next
/// interval of a bank often finds it still clearing). Each misses the accumulator at random. Its candidate predicate in D and its new minimum a clock
/// later against tables kept by [`conservative_update`], one pair per bank, cleared when the
/// bank's interval ends.
fn check_relation_counter_tables(
    tables: usize,
    cu: bool,
    counter_max: u32,
    threshold: u64,
    seed: u64,
) {
    const CB: usize = 16;
    const ENTRIES: usize = 16;
    let rule = UpdateRule {
        tables,
        threshold,
        fixed_threshold: seed % 2 == 0,
        counter_max: counter_max as u64,
        saturates: counter_max != 0xffff,
        conservative_update: cu,
        reset_on_promote: false,
        reset_value: 0,
    };
    let width = if counter_max == 0xffff { 16 } else { 4 };
    let mut uut = RelationCounterTables::<CB>::new(ENTRIES, width, &rule);
    uut.connect_all();
    uut.threshold.next = threshold.into();
    uut.reset_clock();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut table = vec![vec![vec![0u32; ENTRIES]; tables]; 2];
    // The slots M, C1, C2, D (R's is pushed each clock, D's taken): indices, bank, miss, last of
    // its interval.
    type Slot = Option<(Vec<usize>, usize, bool, bool)>;
    let mut slots: std::collections::VecDeque<Slot> = (0..4).map(|_| None).collect();
    let (mut bank, mut left, mut drain) = (0usize, rng.gen_range(1..40), 0);
    let mut past: Option<(u32, String)> = None;
    let (mut events, mut intervals, mut waits) = (0, 0, 0);
    for step in 0..4000 {
        let clearing = [uut.clearing0.val(), uut.clearing1.val()][bank];
        let slot: Slot = if drain > 0 {
            drain -= 1;
            None
        } else if clearing {
            waits += 1;
            None
        } else if rng.gen_ratio(5, 6) {
            let at: Vec<usize> = (0..tables).map(|_| rng.gen_range(0..3)).collect();
            left -= 1;
            let last = left == 0;
            let s = Some((at, bank, rng.gen_ratio(4, 5), last));
            if last {
                bank ^= 1;
                left = rng.gen_range(1..40);
                drain = 5;
            }
            s
        } else {
            None
        };
        uut.r_valid.next = slot.is_some();
        uut.r_bank.next = slot.as_ref().map_or(bank, |s| s.1) == 1;
        for k in 0..tables {
            let i = slot.as_ref().map_or(0, |s| s.0[k]);
            uut.r_index[k].next = (i as u64).into();
        }
        slots.push_front(slot);
        let d = slots.pop_back().expect("R to D");
        uut.miss.next = d.as_ref().is_some_and(|s| s.2);
        uut.clear_start.next = d.as_ref().is_some_and(|s| s.3);
        uut.level(false);
        if let Some((m, what)) = past.take() {
            assert_eq!(uut.new_min_w.val().to_u64(), m as u64, "new_min_w, {what}");
        }
        if let Some((at, b, miss, last)) = d {
            let mut c: Vec<u32> = at
                .iter()
                .enumerate()
                .map(|(k, &i)| table[b][k][i])
                .collect();
            let what = format!(
                "{tables} tables C{} max {counter_max} T {threshold} seed {seed} clock {step} bank {b} at {at:?} counters {c:?}",
                cu as u8
            );
            assert_eq!(
                uut.candidate.val(),
                counter_max as u64 >= threshold && c.iter().all(|&v| v as u64 + 1 >= threshold),
                "candidate, {what}"
            );
            if miss {
                past = Some((conservative_update(&mut c, cu, counter_max), what));
                for (k, &i) in at.iter().enumerate() {
                    table[b][k][i] = c[k];
                }
            }
            events += 1;
            if last {
                intervals += 1;
                table[b].iter_mut().for_each(|t| t.fill(0));
            }
        }
        uut.level(true);
    }
    assert!(
        events > 2000 && intervals > 50 && waits > 0,
        "{events} events, {intervals} intervals, {waits} waits"
    );
}

#[test]
fn relation_counter_tables_forward_what_the_events_ahead_wrote() {
    for tables in [1, 2, 4] {
        for cu in [true, false] {
            for (counter_max, threshold) in [(0xffff, 6), (0xffff, 1), (7, 5)] {
                for seed in 1..=2 {
                    check_relation_counter_tables(tables, cu, counter_max, threshold, seed);
                }
            }
        }
    }
}

/// Events accepted at random (about half the clocks), after a reset and again after one in the
/// middle of an interval, with L changed at random clocks (it applies from the next interval),
/// flush pulses and `end_ok` at random: before each clock `last` says whether the event offered
/// is the L-th of its interval, `flush_pending` and `null_end` follow a flush until an interval
/// with events has ended (at once for an empty one), `bank` is the number of intervals ended mod
/// 2, and `interval` counts the `finish` pulses.
#[test]
fn interval_control_flags_the_last_event_of_every_interval() {
    for interval in [1u64, 2, 3, 4, 7, 1000] {
        let mut uut = IntervalControl::default();
        uut.connect_all();
        let mut rng = ChaCha8Rng::seed_from_u64(interval);
        let clock = |uut: &mut IntervalControl, high: bool| {
            uut.clock.next = Clock { clk: high };
            settle(uut).unwrap();
        };
        // The reference: events in the open interval, its L, the L set, ends, finishes, a flush.
        let (mut count, mut len, mut set, mut ended, mut finished, mut pending) =
            (0u64, interval, interval, 0u64, 0u64, false);
        let (mut lasts, mut nulls) = (0u64, 0u64);
        let steps = 8 * interval.clamp(50, 400) as usize;
        for step in 0..steps {
            let reset = step < 2 || step == steps / 2 + 1;
            if rng.gen_bool(0.02) {
                set = match rng.gen_range(0..3) {
                    0 => rng.gen_range(1..=3),
                    _ => rng.gen_range(1..=2 * interval),
                };
            }
            let flush = !reset && rng.gen_bool(0.03);
            let end_ok = rng.gen_bool(0.7);
            let accept = !reset && !pending && rng.gen_bool(0.5);
            let last = count + 1 == len;
            let null = pending && count > 0 && end_ok;
            let ends = (accept && last) || null;
            uut.reset.next = reset;
            uut.length.next = set.into();
            uut.flush.next = flush;
            uut.end_ok.next = end_ok;
            uut.accept.next = accept;
            uut.finish.next = ends;
            clock(&mut uut, false);
            if step >= 2 {
                let what = format!("L {interval} step {step}: {count} of {len} events");
                assert_eq!(uut.last.val(), last, "last: {what}");
                assert_eq!(uut.flush_pending.val(), pending, "flush_pending: {what}");
                assert_eq!(uut.null_end.val(), null, "null_end: {what}");
                assert_eq!(uut.bank.val(), ended % 2 == 1, "bank: {what}");
                assert_eq!(
                    uut.interval.val().index() as u64,
                    finished,
                    "interval: {what}"
                );
            }
            clock(&mut uut, true);
            if reset {
                (count, len, ended, finished, pending) = (0, set, 0, 0, false);
                continue;
            }
            pending = (pending && !end_ok) || flush;
            count += accept as u64;
            if ends {
                (count, len) = (0, set);
                ended += 1;
                finished += 1;
                lasts += (accept && last) as u64;
                nulls += null as u64;
            }
        }
        assert!(
            lasts >= 2 && nulls >= 2,
            "L {interval}: {lasts} last events, {nulls} flushes"
        );
    }
}

/// The tabulation byte tables in block RAM: after a clock with `read` and a later one with `load`,
/// the indices are [`HashConstants::index`]'s of the key read; each register holds while its
/// enable is low. Key widths over one to eight bytes, one to four tables, index widths 1 to 10.
#[test]
fn tabulation_ram_gives_the_model_indices() {
    for (tables, entries, a_bits, b_bits) in [
        (4, 512, 48, 48),
        (2, 1024, 20, 12),
        (3, 64, 64, 64),
        (1, 2, 1, 7),
    ] {
        let cfg = ProfilerConfig::from_toml_str(
            &format!(
                "interval = 100\nthreshold = 4\ntables = {tables}\nentries = {entries}\na_bits = {a_bits}\n\
                 b_bits = {b_bits}\nseed = {entries}\n"
            ),
            "test",
        )
        .unwrap();
        let h = HashConstants::new(&cfg);
        let mut uut = TabulationRam::new(&h, true);
        uut.connect_all();
        let mut rng = ChaCha8Rng::seed_from_u64(entries as u64);
        // The keys in the read registers and in the output registers (zero at power-on).
        let (mut read_key, mut out_key) = ((0u64, 0u64), (0u64, 0u64));
        let mut loads = 0;
        for step in 0..300 {
            let key = (rng.gen::<u64>() & h.a_mask, rng.gen::<u64>() & h.b_mask);
            let (read, load) = (rng.gen_bool(0.6), rng.gen_bool(0.6));
            uut.a.next = key.0.into();
            uut.b.next = key.1.into();
            uut.read.next = read;
            uut.load.next = load;
            for high in [false, true] {
                uut.clock.next = Clock { clk: high };
                settle(&mut uut).unwrap();
            }
            if load {
                out_key = read_key;
                loads += 1;
            }
            if read {
                read_key = key;
            }
            for k in 0..tables {
                assert_eq!(
                    uut.index[k].val().index() as u32,
                    h.index(k, out_key.0, out_key.1),
                    "table {k} of {tables}, {a_bits}+{b_bits}-bit keys, step {step}"
                );
            }
        }
        assert!(loads > 100);
    }
}

/// A small fully-associative accumulator configuration for the model's [`Accumulator`].
fn full_config(entries: usize, threshold: u64, retaining: bool) -> ProfilerConfig {
    let text = format!(
        "interval = 1000\ntables = 1\nentries = 16\nthreshold = {threshold}\nretaining = {retaining}\n[accumulator]\nentries = {entries}\n"
    );
    ProfilerConfig::from_toml_str(&text, "<sub-block test>").unwrap()
}

fn key(a: u64, b: u64) -> Bits<128> {
    let mut k = Bits::<128>::from(a);
    k.set_bits::<64>(64, Bits::<64>::from(b));
    k
}

/// One clock of the accumulator: inputs with the clock low, outputs sampled, then the rising edge.
/// Returns (hit, promoted, the report word taken if any: (a, b, count, last)).
#[allow(clippy::type_complexity)]
fn clock_accumulator<const CB: usize>(
    uut: &mut FullyAssociativeAccumulator<CB>,
    event: Option<(u64, u64, u64, bool, bool)>,
    interval: u64,
    next_threshold: u64,
) -> (bool, bool, Option<(u64, u64, u64, bool)>) {
    let (a, b, new_min, candidate, end) = event.unwrap_or_default();
    uut.threshold.next = next_threshold.into();
    uut.valid.next = event.is_some();
    uut.key.next = key(a, b);
    uut.new_min.next = new_min.into();
    uut.candidate.next = candidate;
    uut.end_interval.next = end;
    uut.interval.next = interval.into();
    uut.report_ready.next = true;
    uut.level(false);
    let out = (
        uut.hit.val(),
        uut.promoted.val(),
        uut.report_valid.val().then(|| {
            (
                uut.report_a.val().to_u64(),
                uut.report_b.val().to_u64(),
                uut.report_count.val().to_u64(),
                uut.report_last.val(),
            )
        }),
    );
    uut.level(true);
    out
}

/// Random events over a few tuples (so that hits, allocations into a full table, locking of
/// retained entries and saturating counts all happen), interval ends at random, T starting at
/// `threshold` and, if `vary`, drawn again at every interval end (1 to past the count's maximum):
/// every clock's hit and promotion and every report against the model's [`Accumulator`] fed the
/// same events.
fn check_full_accumulator(entries: usize, threshold: u64, retaining: bool, vary: bool, seed: u64) {
    const CB: usize = 4;
    let count_max = 11u64;
    let cfg = full_config(entries, threshold, retaining);
    let mut model = Accumulator::new(&cfg);
    let fixed = (!vary && seed == 2).then_some(threshold);
    let mut uut = FullyAssociativeAccumulator::<CB>::new(entries, count_max, retaining, fixed);
    uut.connect_all();
    uut.threshold.next = threshold.into();
    uut.reset_clock();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut next_t = threshold_draws(threshold, vary, count_max, seed);
    let (mut threshold, mut t_next) = (threshold, next_t());
    let (mut interval, mut words, mut reports) = (0u64, Vec::new(), 0);
    let mut expected: Vec<Vec<ReportEntry>> = Vec::new();
    for step in 0..600 {
        let what = format!(
            "entries {entries} T {threshold} vary {vary} P{} seed {seed} event {step}",
            retaining as u8
        );
        let t = (
            rng.gen_range(0..entries as u64 + 3),
            rng.gen_range(0..2u64) << 40,
        );
        let new_min = rng.gen_range(0..=count_max);
        // An interval ends only once the previous report is out, as the top guarantees.
        let end = rng.gen_ratio(1, 12) && !uut.report_busy.val();
        let hit_want = model.shield(t, threshold, count_max);
        let promoted_want =
            !hit_want && new_min >= threshold && model.allocate(t, new_min).is_some();
        let (hit, promoted, word) = clock_accumulator(
            &mut uut,
            Some((t.0, t.1, new_min, new_min >= threshold, end)),
            interval,
            t_next,
        );
        assert_eq!(
            (hit, promoted),
            (hit_want, promoted_want),
            "hit/promoted, {what}"
        );
        words.extend(word);
        if end {
            expected.push(model.end_interval(threshold, retaining));
            interval += 1;
            threshold = t_next;
            t_next = next_t();
        }
        // Idle clocks now and then let reports drain while no event arrives.
        if rng.gen_ratio(1, 8) {
            words.extend(clock_accumulator(&mut uut, None, interval, t_next).2);
        }
        // Assemble finished reports: entries until `last`, an empty report is a count-0 marker.
        while let Some(n) = words.iter().position(|w| w.3) {
            let got: Vec<ReportEntry> = words
                .drain(..=n)
                .filter(|w| w.2 != 0)
                .map(|(a, b, count, _)| ReportEntry { a, b, count })
                .collect();
            assert_eq!(
                got, expected[reports],
                "report of interval {reports}, {what}"
            );
            reports += 1;
        }
    }
    assert!(reports >= 10, "the stream must end intervals ({reports})");
}

#[test]
fn fully_associative_accumulator_matches_the_model_rules() {
    for (entries, threshold, retaining) in [(1, 1, true), (3, 3, true), (3, 3, false), (4, 2, true)]
    {
        for seed in 1..=3 {
            check_full_accumulator(entries, threshold, retaining, false, seed);
        }
    }
    for (entries, retaining) in [(3, true), (3, false), (4, true)] {
        for seed in 1..=3 {
            check_full_accumulator(entries, 2, retaining, true, seed);
        }
    }
}

/// The T of each next interval: `threshold` for good, or if `vary` drawn (seeded) from 1 to one
/// past `count_max`, where counts can no longer reach it.
fn threshold_draws(threshold: u64, vary: bool, count_max: u64, seed: u64) -> impl FnMut() -> u64 {
    let mut draw = ChaCha8Rng::seed_from_u64(seed + 2000);
    move || {
        if vary {
            draw.gen_range(1..=count_max + 1)
        } else {
            threshold
        }
    }
}

/// An event of the set-associative accumulator test: tuple, counters' new minimum, last of its
/// interval.
#[derive(Clone, Copy)]
struct SetEvent {
    t: (u64, u64),
    new_min: u64,
    last: bool,
}

/// [`SetRelations`] as the accumulator drives it: events on a few tuples of 4 sets of 2 or 4
/// ways enter C1 on most clocks (bubbles between), so that an event often shares its set, or its
/// tuple, with the one or two ahead; the early view of C1's event is given from the model's
/// [`Accumulator`] with every event but those two applied. Every 100 clocks the stream pauses for
/// three and the interval ends in the model (retaining), as the accumulator around the block lets
/// no op of the next interval in before the last one's W; the early view then shows the rollover.
/// Each event's hit or allocation (with a random new minimum a clock after D, as the counters give
/// it) in D, and its set's words a clock later, against the model.
fn check_set_relations(ways: usize, threshold: u64, seed: u64) {
    const CB: usize = 16;
    let count_max = 11u64;
    let cfg = ProfilerConfig::from_toml_str(
        &format!(
            "interval = 1000\ntables = 1\nentries = 16\nthreshold = {threshold}\nretaining = true\n\
             a_bits = 8\nb_bits = 8\n[accumulator]\norganisation = \"set_associative\"\nentries = {}\n\
             ways = {ways}\n",
            4 * ways
        ),
        "<sub-block test>",
    )
    .unwrap();
    let sets = SetHash::new(&cfg);
    let mut model = Accumulator::new(&cfg);
    let mut uut = SetRelations::<CB>::new(ways, count_max);
    uut.connect_all();
    uut.t.next = threshold.into();
    uut.t_minus_1.next = threshold.saturating_sub(1).into();
    uut.t_minus_2.next = threshold.saturating_sub(2).into();
    uut.t_minus_3.next = threshold.saturating_sub(3).into();
    uut.reachable.next = count_max >= threshold;
    uut.reset_clock();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // The slots C1, C2, D: tuple, its set, new minimum.
    type Slot = Option<((u64, u64), usize, u64)>;
    let mut slots: [Slot; 3] = [None, None, None];
    // The op a clock past D: its new minimum and set, to check its words.
    let mut past: Option<(u64, usize, String)> = None;
    let (mut hits, mut allocs) = (0, 0);
    for step in 0..3000 {
        slots[0] = (step % 100 < 97 && rng.gen_ratio(5, 6)).then(|| {
            let t = (rng.gen_range(0..10u64), rng.gen_range(0..2u64));
            (t, sets.set(t.0, t.1), rng.gen_range(0..=count_max))
        });
        let on = |a: &Slot, b: &Slot| matches!((a, b), (Some(x), Some(y)) if x.1 == y.1);
        let same = |a: &Slot, b: &Slot| matches!((a, b), (Some(x), Some(y)) if x.0 == y.0);
        uut.c1_ev.next = slots[0].is_some();
        for w in 0..ways {
            // The tag compare by slices of the packed tuples (b << 8 | a).
            let pack = |t: (u64, u64)| t.1 << 8 | t.0;
            let (valid, locked, count, tag) = match &slots[0] {
                Some((t, set, _)) => {
                    let i = set * ways + w;
                    let st = model.state[i];
                    (
                        st != EntryState::Empty,
                        st == EntryState::Locked,
                        model.count[i],
                        pack(model.tag[i]) ^ pack(*t),
                    )
                }
                None => (false, false, 0, 0),
            };
            uut.e_valid[w].next = valid;
            uut.e_locked[w].next = locked;
            uut.e_count[w].next = count.into();
            for p in 0..TAG_PARTS {
                let slice = (tag >> (p * TAG_PART_BITS)) & ((1 << TAG_PART_BITS) - 1);
                uut.e_teq[w * TAG_PARTS + p].next = slice == 0;
            }
        }
        uut.c1_ahead2.next = on(&slots[0], &slots[2]);
        uut.c1_key2.next = same(&slots[0], &slots[2]);
        uut.c2_ahead1.next = on(&slots[1], &slots[2]);
        uut.c2_key1.next = same(&slots[1], &slots[2]);
        uut.cand.next = slots[2].is_some_and(|s| s.2 >= threshold);
        uut.new_min_w.next = past.as_ref().map_or(0, |p| p.0).into();
        uut.level(false);
        if let Some((_, set, what)) = past.take() {
            for w in 0..ways {
                let i = set * ways + w;
                let st = model.state[i];
                let valid = st != EntryState::Empty;
                assert_eq!(uut.w_valid[w].val(), valid, "w_valid[{w}], {what}");
                assert_eq!(
                    uut.w_locked[w].val(),
                    st == EntryState::Locked,
                    "w_locked[{w}], {what}"
                );
                if valid {
                    assert_eq!(
                        uut.w_count[w].val().to_u64(),
                        model.count[i],
                        "w_count[{w}], {what}"
                    );
                }
                assert_eq!(
                    uut.w_hot[w].val(),
                    valid && model.count[i] >= threshold,
                    "w_hot[{w}], {what}"
                );
            }
        }
        if let Some((t, set, new_min)) = slots[2] {
            let what =
                format!("{ways} ways T {threshold} seed {seed} clock {step} tuple {t:?} set {set}");
            let was = model.lookup(t);
            let hit = model.shield(t, threshold, count_max);
            assert_eq!(uut.hit.val(), hit, "hit, {what}");
            assert_eq!(uut.miss.val(), !hit, "miss, {what}");
            let alloc = if !hit && new_min >= threshold {
                model.allocate(t, new_min)
            } else {
                None
            };
            for w in 0..ways {
                let i = set * ways + w;
                assert_eq!(uut.hit_way[w].val(), was == Some(i), "hit_way[{w}], {what}");
                assert_eq!(uut.alloc[w].val(), alloc == Some(i), "alloc[{w}], {what}");
            }
            hits += hit as usize;
            allocs += alloc.is_some() as usize;
            past = Some((new_min, set, what));
        }
        if step % 100 == 99 {
            model.end_interval(threshold, true);
        }
        uut.level(true);
        slots.rotate_right(1);
    }
    assert!(
        hits > 500 && allocs > 100,
        "{hits} hits, {allocs} allocations"
    );
}

#[test]
fn set_relations_match_the_model_accumulator() {
    for ways in [2, 4] {
        for threshold in [1, 4, 8] {
            for seed in 1..=2 {
                check_set_relations(ways, threshold, seed);
            }
        }
    }
}

/// Random events over a few tuples of 4 sets x 2 ways, offered as the block-RAM top offers them
/// (stage 0 only when `lookup_ok` and not behind an interval's last event in stage C or D, an
/// interval's last event only once the previous report is out),
/// decided in stage D two clocks later: every event's hit and promotion, and every report (in
/// set-retirement order, so compared as sets of entries), against the model's [`Accumulator`].
fn check_set_accumulator(
    threshold: u64,
    vary: bool,
    retaining: bool,
    smallest: bool,
    tags_in_w: bool,
    narrow: bool,
    seed: u64,
) {
    const CB: usize = 16;
    let count_max = 11u64;
    let replacement = if smallest { "smallest" } else { "first" };
    let cfg = ProfilerConfig::from_toml_str(
        &format!(
            "interval = 1000\ntables = 1\nentries = 16\nthreshold = {threshold}\nretaining = {retaining}\n\
             a_bits = 8\nb_bits = 8\n[accumulator]\norganisation = \"set_associative\"\nentries = 8\n\
             ways = 2\nreplacement = \"{replacement}\"\n"
        ),
        "<sub-block test>",
    )
    .unwrap();
    let sets = SetHash::new(&cfg);
    let mut model = Accumulator::new(&cfg);
    let mut uut = SetAssociativeAccumulator::<CB>::new(
        4,
        2,
        16,
        4,
        count_max,
        true,
        retaining,
        smallest,
        tags_in_w,
        false,
        narrow,
        (!vary && narrow).then_some(threshold),
    );
    uut.connect_all();
    uut.threshold.next = threshold.into();
    uut.reset_clock();
    let mut next_t = threshold_draws(threshold, vary, count_max, seed);
    let (mut threshold, mut t_next) = (threshold, next_t());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut stale = ChaCha8Rng::seed_from_u64(seed + 1000);
    let mut next = || SetEvent {
        t: (rng.gen_range(0..12u64), rng.gen_range(0..2u64)),
        new_min: rng.gen_range(0..=count_max),
        last: rng.gen_ratio(1, 15),
    };
    let tag = |t: (u64, u64)| -> Bits<TAG_BITS> { Bits::<TAG_BITS>::from(t.1 << 8 | t.0) };
    let (mut pending, mut c, mut d) = (next(), None::<SetEvent>, None::<SetEvent>);
    // The counters' minimum arrives a clock after the decision (stage W), as from the counters.
    let mut w_min = 0u64;
    let (mut interval, mut decided, mut reports) = (0u64, 0, 0);
    let mut words: Vec<(u64, u64, bool)> = Vec::new();
    let mut expected: Vec<Vec<u64>> = Vec::new();
    for cycle in 0..3000 {
        let e = d.unwrap_or(SetEvent {
            t: (0, 0),
            new_min: 0,
            last: false,
        });
        uut.valid.next = d.is_some();
        uut.threshold.next = t_next.into();
        uut.alloc_min.next = w_min.into();
        uut.candidate.next = e.new_min >= threshold;
        uut.end_interval.next = e.last;
        uut.interval.next = interval.into();
        uut.report_ready.next = true;
        uut.lookup.next = false;
        uut.lookup_offer.next = false;
        uut.lookup_set.next = (sets.set(pending.t.0, pending.t.1) as u64).into();
        uut.lookup_tag.next = tag(pending.t);
        uut.level(false);
        // The top's rules: nothing enters behind an interval's last event in stage C or D, and
        // a last event waits for the previous report. Those refuse the event before it is
        // offered (its set read, the scanner waiting); then `lookup_ok` decides.
        let rules = !c.is_some_and(|c| c.last)
            && !d.is_some_and(|d| d.last)
            && !(pending.last && uut.report_busy.val());
        let ok = rules && uut.lookup_ok.val();
        // A refused event is offered again next clock. The top may also offer an event it then
        // refuses (on a stale report flag): offered at random then, so that only `lookup`
        // implying `lookup_offer` is what the block relies on.
        uut.lookup_hold.next = !ok;
        uut.lookup_offer.next = rules || stale.gen_ratio(1, 4);
        uut.lookup.next = ok;
        uut.level(false);
        if let Some(e) = d {
            let what = format!(
                "T {threshold} vary {vary} P{} {replacement} seed {seed} event {decided} (cycle {cycle}) {:?}",
                retaining as u8, e.t
            );
            let hit = model.shield(e.t, threshold, count_max);
            let promoted =
                !hit && e.new_min >= threshold && model.allocate(e.t, e.new_min).is_some();
            assert_eq!(
                (uut.hit.val(), uut.promoted.val()),
                (hit, promoted),
                "hit/promoted, {what}"
            );
            if e.last {
                let mut r: Vec<u64> = model
                    .end_interval(threshold, retaining)
                    .iter()
                    .map(|x| (x.b << 8 | x.a) << 8 | x.count)
                    .collect();
                r.sort_unstable();
                expected.push(r);
                interval += 1;
                threshold = t_next;
                t_next = next_t();
            }
            decided += 1;
        }
        if uut.report_valid.val() {
            words.push((
                uut.report_tag.val().get_bits::<64>(0).to_u64(),
                uut.report_count.val().to_u64(),
                uut.report_last.val(),
            ));
        }
        uut.level(true);
        w_min = e.new_min;
        d = c;
        c = ok.then_some(pending);
        if ok {
            pending = next();
        }
        while let Some(n) = words.iter().position(|w| w.2) {
            let mut got: Vec<u64> = words
                .drain(..=n)
                .filter(|w| w.1 != 0)
                .map(|(t, count, _)| t << 8 | count)
                .collect();
            got.sort_unstable();
            assert_eq!(
                got, expected[reports],
                "report of interval {reports}, seed {seed}"
            );
            reports += 1;
        }
    }
    assert!(
        decided > 1500 && reports >= 50,
        "{decided} events, {reports} reports"
    );
}

#[test]
fn set_associative_accumulator_matches_the_model_rules() {
    for (threshold, retaining, smallest) in [(3, true, false), (3, false, false), (2, true, true)] {
        for seed in 1..=2 {
            // Tags written by the allocation (seed 1) or a clock later in stage W (seed 2);
            // compared in 8-bit slices or 2-bit ones.
            check_set_accumulator(
                threshold,
                false,
                retaining,
                smallest,
                seed == 2,
                false,
                seed,
            );
            check_set_accumulator(threshold, false, retaining, smallest, seed == 2, true, seed);
        }
    }
    // T drawn again at every interval end, 1 and past the count's maximum included.
    for (retaining, smallest) in [(true, false), (false, false), (true, true)] {
        for seed in 1..=2 {
            check_set_accumulator(2, true, retaining, smallest, seed == 2, seed == 1, seed);
        }
    }
}

/// [`RelationSetAccumulator`] as the rebuilt top drives it: an event offered in R on most clocks
/// (4 sets of 2 ways, 24 tuples, so that it often shares its set or its tuple with the events one
/// to five ahead), refused on a pending set without room, the counters' candidate in D and new
/// minimum in W given from the stream; nothing enters R while an interval's last event is in
/// M … W, and a last event waits for the previous report. Each event's hit and allocation in D,
/// and every interval's report, against the model's [`Accumulator`]; T drawn again at every
/// interval end with `vary`.
fn check_relation_set_accumulator(threshold: u64, vary: bool, retaining: bool, seed: u64) {
    const CB: usize = 16;
    let count_max = 11u64;
    let cfg = ProfilerConfig::from_toml_str(
        &format!(
            "interval = 1000\ntables = 1\nentries = 16\nthreshold = {threshold}\nretaining = {retaining}\n\
             a_bits = 8\nb_bits = 8\n[accumulator]\norganisation = \"set_associative\"\nentries = 8\n\
             ways = 2\n"
        ),
        "<sub-block test>",
    )
    .unwrap();
    let sets = SetHash::new(&cfg);
    let mut model = Accumulator::new(&cfg);
    let mut uut = RelationSetAccumulator::<CB>::new(4, 2, 16, 4, count_max, retaining, None);
    uut.connect_all();
    uut.threshold.next = threshold.into();
    uut.reset_clock();
    let mut next_t = threshold_draws(threshold, vary, count_max, seed);
    let (mut threshold, mut t_next) = (threshold, next_t());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut stale = ChaCha8Rng::seed_from_u64(seed + 1000);
    // One event in five repeats the one before: a hit right after an allocation.
    let mut prev = (0, 0);
    let mut next = || {
        if !rng.gen_ratio(1, 5) {
            prev = (rng.gen_range(0..12u64), rng.gen_range(0..2u64));
        }
        SetEvent {
            t: prev,
            new_min: rng.gen_range(0..=count_max),
            last: rng.gen_ratio(1, 25),
        }
    };
    let tag = |t: (u64, u64)| -> Bits<TAG_BITS> { Bits::<TAG_BITS>::from(t.1 << 8 | t.0) };
    let set_of = |t: (u64, u64)| sets.set(t.0, t.1) as u64;
    // The slots M, C1, C2, D, W.
    let mut slots: [Option<SetEvent>; 5] = [None; 5];
    let mut pending = next();
    let (mut interval, mut decided, mut reports) = (0u64, 0, 0);
    // Events that shared their set with the event d = 1 … 5 slots ahead; hits right after an
    // allocation of the same tuple.
    let mut aliased = [0usize; 5];
    let mut hit_after_alloc = 0;
    let mut last_promoted: Option<(u64, u64)> = None;
    let mut words: Vec<(u64, u64, bool)> = Vec::new();
    let mut expected: Vec<Vec<u64>> = Vec::new();
    for cycle in 0..6000 {
        let [_, _, _, d, w] = slots;
        uut.candidate.next = d.is_some_and(|e| e.new_min >= threshold);
        uut.new_min_w.next = w.map_or(0, |e| e.new_min).into();
        uut.end_interval.next = w.is_some_and(|e| e.last);
        uut.interval.next = interval.into();
        uut.threshold.next = t_next.into();
        uut.report_ready.next = stale.gen_ratio(3, 4);
        uut.lookup.next = false;
        uut.lookup_offer.next = false;
        uut.lookup_set.next = set_of(pending.t).into();
        uut.lookup_tag.next = tag(pending.t);
        uut.level(false);
        let rules = !slots.iter().any(|s| s.is_some_and(|s| s.last))
            && !(pending.last && uut.report_busy.val());
        let ok = rules && uut.lookup_ok.val();
        uut.lookup_hold.next = !ok;
        uut.lookup_offer.next = rules || stale.gen_ratio(1, 4);
        uut.lookup.next = ok;
        uut.level(false);
        if let Some(e) = d {
            let what = format!(
                "T {threshold} vary {vary} P{} seed {seed} event {decided} (cycle {cycle}) {:?}",
                retaining as u8, e.t
            );
            let hit = model.shield(e.t, threshold, count_max);
            let promoted =
                !hit && e.new_min >= threshold && model.allocate(e.t, e.new_min).is_some();
            assert_eq!(
                (uut.hit.val(), uut.miss.val(), uut.promoted.val()),
                (hit, !hit, promoted),
                "hit/miss/promoted, {what}"
            );
            if hit && last_promoted == Some(e.t) {
                hit_after_alloc += 1;
            }
            last_promoted = promoted.then_some(e.t);
            decided += 1;
        }
        if let Some(e) = w {
            if e.last {
                let mut r: Vec<u64> = model
                    .end_interval(threshold, retaining)
                    .iter()
                    .map(|x| (x.b << 8 | x.a) << 8 | x.count)
                    .collect();
                r.sort_unstable();
                expected.push(r);
                interval += 1;
                threshold = t_next;
                t_next = next_t();
            }
        }
        if uut.report_valid.val() && uut.report_ready.val() {
            words.push((
                uut.report_tag.val().get_bits::<64>(0).to_u64(),
                uut.report_count.val().to_u64(),
                uut.report_last.val(),
            ));
        }
        uut.level(true);
        let entering = ok.then_some(pending);
        if let Some(e) = entering {
            for (n, s) in slots[..].iter().enumerate() {
                if s.is_some_and(|s| set_of(s.t) == set_of(e.t)) {
                    aliased[n] += 1;
                }
            }
            pending = next();
        }
        slots = [entering, slots[0], slots[1], slots[2], slots[3]];
        while let Some(n) = words.iter().position(|w| w.2) {
            let mut got: Vec<u64> = words
                .drain(..=n)
                .filter(|w| w.1 != 0)
                .map(|(t, count, _)| t << 8 | count)
                .collect();
            got.sort_unstable();
            assert_eq!(
                got, expected[reports],
                "report of interval {reports}, seed {seed}"
            );
            reports += 1;
        }
    }
    assert!(
        decided > 3000 && reports >= 50 && aliased.iter().all(|&a| a > 300) && hit_after_alloc > 50,
        "{decided} events, {reports} reports, aliased at d = 1..5 {aliased:?}, {hit_after_alloc} hits after an allocation"
    );
}

#[test]
fn relation_set_accumulator_matches_the_model_rules() {
    for (threshold, retaining) in [(3, true), (3, false), (1, true)] {
        check_relation_set_accumulator(threshold, false, retaining, 1);
    }
    for (retaining, seed) in [(true, 2), (false, 3)] {
        check_relation_set_accumulator(2, true, retaining, seed);
    }
}
