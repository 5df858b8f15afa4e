//! The multi-hash profiler model, knob by knob, on small hand-computed cases; then properties.

use hwprof_hdl::ConfigFile;
use hwprof_sim::eval::metric::{perfect_counts, score_interval, Accuracy};
use hwprof_sim::hwprof_hdl::hash::HashConstants;
use hwprof_sim::hwprof_hdl::ProfilerConfig;
use hwprof_sim::model::multihash::{EntryState, IntervalReport, MultiHash, ReportEntry};
use proptest::prelude::*;

struct Knobs {
    tables: usize,
    entries: usize,
    interval: u64,
    threshold: u64,
    c: bool,
    r: bool,
    p: bool,
    acc: usize,
    bits: u32,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            tables: 2,
            entries: 16,
            interval: 100,
            threshold: 3,
            c: true,
            r: false,
            p: true,
            acc: 4,
            bits: 24,
        }
    }
}

fn cfg(k: &Knobs) -> ProfilerConfig {
    ProfilerConfig::from_toml_str(
        &format!(
            "interval = {}\nthreshold = {}\ntables = {}\nentries = {}\ncounter_bits = {}\n\
             conservative_update = {}\nreset_on_promote = {}\nretaining = {}\nseed = 3\n\
             a_bits = 16\nb_bits = 16\n[accumulator]\nentries = {}\n",
            k.interval, k.threshold, k.tables, k.entries, k.bits, k.c, k.r, k.p, k.acc
        ),
        "test",
    )
    .unwrap()
}

/// Tuples (t, 0) with chosen aliasing: `want[k]` = Some(i) asks table k's index to be i.
fn find_tuple(c: &ProfilerConfig, want: &[Option<u32>], avoid: &[u64]) -> u64 {
    let h = HashConstants::new(c);
    (1..1_000_000u64)
        .find(|&a| {
            !avoid.contains(&a)
                && want
                    .iter()
                    .enumerate()
                    .all(|(k, w)| w.is_none_or(|i| h.index(k, a, 0) == i))
        })
        .expect("no tuple with that aliasing")
}

fn idx(c: &ProfilerConfig, k: usize, a: u64) -> usize {
    HashConstants::new(c).index(k, a, 0) as usize
}

/// Report entries of tuples `(a, 0)` with their counts, in order.
fn entries(a_count: &[(u64, u64)]) -> Vec<ReportEntry> {
    a_count
        .iter()
        .map(|&(a, count)| ReportEntry { a, b: 0, count })
        .collect()
}

fn feed(m: &mut MultiHash, events: &[u64]) -> Vec<IntervalReport> {
    events.iter().filter_map(|&a| m.event(a, 0)).collect()
}

#[test]
fn promotion_at_threshold_then_shielding() {
    let c = cfg(&Knobs::default());
    let mut m = MultiHash::new(&c).unwrap();
    let x = 1;
    feed(&mut m, &[x, x]);
    assert_eq!(m.acc.state[0], EntryState::Empty, "2 < T");
    feed(&mut m, &[x]);
    assert_eq!(
        (m.acc.state[0], m.acc.tag[0], m.acc.count[0]),
        (EntryState::Locked, (x, 0), 3)
    );
    feed(&mut m, &[x, x]);
    assert_eq!(m.acc.count[0], 5, "hits count in the accumulator");
    for k in 0..2 {
        assert_eq!(
            m.counter(k, idx(&c, k, x)),
            3,
            "shielding: tables untouched after promotion"
        );
    }
    assert_eq!(m.stats.shielded, 2);
}

#[test]
fn reset_on_promote_zeroes_the_counters() {
    let c = cfg(&Knobs {
        r: true,
        ..Default::default()
    });
    let mut m = MultiHash::new(&c).unwrap();
    feed(&mut m, &[7, 7, 7]);
    assert_eq!(m.acc.count[0], 3);
    for k in 0..2 {
        assert_eq!(m.counter(k, idx(&c, k, 7)), 0);
    }
}

#[test]
fn reset_value_is_what_a_promoted_tuples_counters_keep() {
    let mut c = cfg(&Knobs {
        r: true,
        threshold: 5,
        ..Default::default()
    });
    c.reset_value = 4;
    let mut m = MultiHash::new(&c).unwrap();
    feed(&mut m, &[7; 5]);
    assert_eq!(m.acc.count[0], 5);
    for k in 0..2 {
        assert_eq!(m.counter(k, idx(&c, k, 7)), 4);
    }
    // Below T only, and only with R1.
    c.reset_value = 5;
    assert!(MultiHash::new(&c).unwrap_err().contains("reset_value"));
    c.reset_value = 1;
    c.reset_on_promote = false;
    assert!(MultiHash::new(&c).unwrap_err().contains("reset_value"));
}

#[test]
fn conservative_update_increments_only_the_minimum() {
    for conservative in [false, true] {
        let c = cfg(&Knobs {
            c: conservative,
            threshold: 50,
            ..Default::default()
        });
        let y = find_tuple(&c, &[], &[]);
        // x aliases y in table 0 only.
        let (y0, y1) = (idx(&c, 0, y), idx(&c, 1, y));
        let h = HashConstants::new(&c);
        let x = (1..100_000u64)
            .find(|&a| a != y && h.index(0, a, 0) as usize == y0 && h.index(1, a, 0) as usize != y1)
            .unwrap();
        let mut m = MultiHash::new(&c).unwrap();
        feed(&mut m, &[y, y, x]);
        let x1 = idx(&c, 1, x);
        if conservative {
            assert_eq!(
                (m.counter(0, y0), m.counter(1, x1)),
                (2, 1),
                "C1: only the minimum (table 1) moves"
            );
        } else {
            assert_eq!(
                (m.counter(0, y0), m.counter(1, x1)),
                (3, 1),
                "C0: every counter moves"
            );
        }
        assert_eq!(m.counter(1, y1), 2);
    }
}

#[test]
fn aliasing_promotes_with_the_minimum_count() {
    // x aliases y in both tables of a C0 profiler: x is promoted with y's inflated count.
    let c = cfg(&Knobs {
        c: false,
        threshold: 4,
        ..Default::default()
    });
    let y = 5;
    let x = find_tuple(
        &c,
        &[Some(idx(&c, 0, y) as u32), Some(idx(&c, 1, y) as u32)],
        &[y],
    );
    let mut m = MultiHash::new(&c).unwrap();
    feed(&mut m, &[y, y, y, x]);
    assert_eq!(
        (m.acc.tag[0], m.acc.count[0]),
        ((x, 0), 4),
        "false positive: x enters with count 4"
    );
}

#[test]
fn saturation_and_accumulator_full() {
    // A = 1 entry, 2-bit counters (max 3), T = 3.
    let c = cfg(&Knobs {
        acc: 1,
        bits: 2,
        c: false,
        ..Default::default()
    });
    let mut m = MultiHash::new(&c).unwrap();
    feed(&mut m, &[1, 1, 1]);
    assert_eq!(m.acc.tag[0], (1, 0));
    feed(&mut m, &[2, 2, 2, 2, 2, 2]);
    assert_eq!(
        m.stats.failed_allocations, 4,
        "2 reaches T at its 3rd event and retries every event"
    );
    for k in 0..2 {
        assert_eq!(m.counter(k, idx(&c, k, 2)), 3, "saturated at 2^2 - 1");
    }
    assert_eq!(m.acc.lookup((2, 0)), None);
}

#[test]
fn interval_boundary_report_and_clear() {
    let c = cfg(&Knobs {
        interval: 6,
        ..Default::default()
    });
    let mut m = MultiHash::new(&c).unwrap();
    let r = feed(&mut m, &[1, 1, 1, 2, 2, 9]);
    assert_eq!(
        r,
        vec![IntervalReport {
            interval: 0,
            entries: entries(&[(1, 3)])
        }]
    );
    for k in 0..2 {
        assert_eq!(
            m.counter(k, idx(&c, k, 2)),
            0,
            "tables read as zero in the next interval"
        );
    }
    // 2 needs 3 fresh events in interval 1 (its 2 old ones are gone).
    let r = feed(&mut m, &[2, 2, 5, 5, 5, 5]);
    assert_eq!(r[0].interval, 1);
    assert_eq!(r[0].entries, entries(&[(5, 4)]));
    assert_eq!(
        feed(&mut m, &[3, 3, 3, 3, 3]),
        vec![],
        "partial interval: no report"
    );
}

#[test]
fn retaining_keeps_reported_entries_as_replaceable() {
    for retaining in [true, false] {
        let c = cfg(&Knobs {
            interval: 6,
            acc: 2,
            p: retaining,
            ..Default::default()
        });
        let mut m = MultiHash::new(&c).unwrap();
        feed(&mut m, &[1, 1, 1, 8, 8, 9]);
        if retaining {
            assert_eq!(
                (m.acc.state[0], m.acc.count[0]),
                (EntryState::Replaceable, 0)
            );
            assert_eq!(
                m.acc.state[1],
                EntryState::Empty,
                "unreported entries are emptied"
            );
            // Interval 1: 1 is shielded from its first event, counted exactly, and locks at T.
            let r = feed(&mut m, &[1, 1, 1, 1, 4, 4]);
            assert_eq!(r[0].entries, entries(&[(1, 4)]));
            assert_eq!(m.stats.shielded, 4);
        } else {
            assert_eq!(m.acc.state[0], EntryState::Empty);
            let r = feed(&mut m, &[1, 1, 1, 1, 4, 4]);
            assert_eq!(r[0].entries, entries(&[(1, 4)]));
            assert_eq!(
                m.stats.shielded, 1,
                "re-promoted at its 3rd event, then one hit"
            );
        }
    }
}

#[test]
fn replaceable_entry_is_replaced_lowest_index_first() {
    // A = 2: interval 0 reports 1 and 2 (entries 0, 1). In interval 1 both are replaceable;
    // 3 and 4 reach T first and take entries 0 then 1; 1 and 2 are gone.
    let c = cfg(&Knobs {
        interval: 8,
        acc: 2,
        ..Default::default()
    });
    let mut m = MultiHash::new(&c).unwrap();
    feed(&mut m, &[1, 1, 1, 2, 2, 2, 0x10, 0x11]);
    let r = feed(&mut m, &[3, 3, 3, 4, 4, 4, 1, 2]);
    assert_eq!(
        r[0].entries,
        entries(&[(3, 3), (4, 3)]),
        "entries in index order"
    );
    // A replaceable entry that re-locks is not replaceable any more.
    let r = feed(&mut m, &[3, 3, 3, 5, 5, 5, 6, 6]);
    assert_eq!(r[0].entries, entries(&[(3, 3), (5, 3)]));
}

#[test]
fn keys_are_masked_to_their_widths() {
    let c = cfg(&Knobs::default());
    let mut m = MultiHash::new(&c).unwrap();
    feed(&mut m, &[0x1_0001, 0x2_0001, 0x0001]);
    assert_eq!(
        m.acc.tag[0],
        (1, 0),
        "a_bits = 16: all three are the same tuple"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// R0 (no reset) without promotions: every counter a tuple maps to is at least its true count.
    #[test]
    fn counters_bound_true_counts(stream in prop::collection::vec(0u64..40, 1..400), c in any::<bool>(), tables in 1usize..5) {
        let k = Knobs { tables, entries: 8, interval: 10_000, threshold: 10_000, c, r: false, p: false, acc: 1, bits: 24 };
        let cf = cfg(&k);
        let mut m = MultiHash::new(&cf).unwrap();
        feed(&mut m, &stream);
        let exact = perfect_counts(&stream.iter().map(|&a| (a, 0)).collect::<Vec<_>>(), u64::MAX, u64::MAX);
        for (&(a, _), &n) in &exact {
            for t in 0..tables {
                prop_assert!(m.counter(t, idx(&cf, t, a)) as u64 >= n);
            }
        }
    }

    /// C1 counters never exceed C0 counters on the same stream.
    #[test]
    fn conservative_never_exceeds_plain(stream in prop::collection::vec(0u64..60, 1..400), tables in 1usize..5) {
        let base = Knobs { tables, entries: 8, interval: 10_000, threshold: 10_000, acc: 1, ..Default::default() };
        let mut m1 = MultiHash::new(&cfg(&Knobs { c: true, ..base })).unwrap();
        let base = Knobs { tables, entries: 8, interval: 10_000, threshold: 10_000, acc: 1, ..Default::default() };
        let mut m0 = MultiHash::new(&cfg(&Knobs { c: false, ..base })).unwrap();
        feed(&mut m1, &stream);
        feed(&mut m0, &stream);
        for (x, y) in m1.counters.iter().zip(&m0.counters) {
            prop_assert!(x <= y);
        }
    }

    /// Any knobs: the accumulator never holds a tuple twice, reports stay within A and T.
    #[test]
    fn accumulator_invariants(stream in prop::collection::vec(0u64..24, 1..600), c in any::<bool>(), r in any::<bool>(),
                              p in any::<bool>(), acc in 1usize..6, tables in 1usize..4, t in 2u64..6) {
        let k = Knobs { tables, entries: 4, interval: 37, threshold: t, c, r, p, acc, bits: 3 };
        let mut m = MultiHash::new(&cfg(&k)).unwrap();
        for &a in &stream {
            if let Some(rep) = m.event(a, 0) {
                prop_assert!(rep.entries.len() <= acc);
                prop_assert!(rep.entries.iter().all(|e| e.count >= t));
            }
            let mut tags: Vec<_> = (0..acc).filter(|&i| m.acc.state[i] != EntryState::Empty).map(|i| m.acc.tag[i]).collect();
            let n = tags.len();
            tags.sort();
            tags.dedup();
            prop_assert_eq!(tags.len(), n);
        }
    }

    /// The metric is 0 when the hardware profile is the perfect one.
    #[test]
    fn perfect_profile_scores_zero(stream in prop::collection::vec(0u64..30, 1..500), t in 1u64..20) {
        let ev: Vec<_> = stream.iter().map(|&a| (a, a ^ 1)).collect();
        let exact = perfect_counts(&ev, u64::MAX, u64::MAX);
        let entries = exact.iter().filter(|(_, &n)| n >= t).map(|(&(a, b), &count)| ReportEntry { a, b, count }).collect();
        let e = score_interval(&exact, &IntervalReport { interval: 0, entries }, t);
        prop_assert_eq!(Accuracy::from_intervals(&[e]).net_error, 0.0);
    }
}

fn sa_cfg(entries: usize, ways: usize, stash: usize, interval: u64) -> ProfilerConfig {
    ProfilerConfig::from_toml_str(
        &format!(
            "interval = {interval}\nthreshold = 3\ntables = 2\nentries = 16\nseed = 3\na_bits = 16\nb_bits = 16\n\
             [accumulator]\norganisation = \"set_associative\"\nentries = {entries}\nways = {ways}\nstash = {stash}\n"
        ),
        "test",
    )
    .unwrap()
}

#[test]
fn set_conflicts_fail_or_spill_into_the_stash() {
    use hwprof_sim::hwprof_hdl::hash::SetHash;
    let c = sa_cfg(2, 1, 0, 100);
    let h = SetHash::new(&c);
    let x = 1;
    let y = (2..1000).find(|&a| h.set(a, 0) == h.set(x, 0)).unwrap();
    let z = (2..1000).find(|&a| h.set(a, 0) != h.set(x, 0)).unwrap();
    let mut m = MultiHash::new(&c).unwrap();
    feed(&mut m, &[x, x, x, y, y, y, z, z, z]);
    assert_eq!(m.stats.failed_allocations, 1, "y's set is taken by x");
    assert_eq!(m.acc.tag[h.set(z, 0)], (z, 0), "z has a set of its own");
    let c = sa_cfg(2, 1, 1, 100);
    let mut m = MultiHash::new(&c).unwrap();
    feed(&mut m, &[x, x, x, y, y, y]);
    assert_eq!(
        (m.acc.len(), m.acc.tag[2]),
        (3, (y, 0)),
        "y spills into the stash (entry A + 0)"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// One set holding every entry is the fully-associative accumulator, report for report.
    #[test]
    fn one_set_equals_fully_associative(stream in prop::collection::vec(0u64..24, 1..600), acc in 1usize..6) {
        let fa = cfg(&Knobs { tables: 2, entries: 4, interval: 37, threshold: 3, acc, bits: 4, ..Default::default() });
        let mut sa = fa.clone();
        sa.accumulator.organisation = hwprof_sim::hwprof_hdl::Organisation::SetAssociative;
        sa.accumulator.ways = acc;
        sa.write_stage = true;
        let (mut m1, mut m2) = (MultiHash::new(&fa).unwrap(), MultiHash::new(&sa).unwrap());
        for &a in &stream {
            prop_assert_eq!(m1.event(a, 0), m2.event(a, 0));
        }
    }
}

#[test]
fn accumulator_counts_have_their_own_width() {
    // 2-bit table counters (max 3) reach T = 3; 4-bit accumulator counts go on to 15 and saturate.
    let c = ProfilerConfig::from_toml_str(
        "interval = 100\nthreshold = 3\ntables = 2\nentries = 16\ncounter_bits = 2\n[accumulator]\nentries = 2\ncount_bits = 4\n",
        "t",
    )
    .unwrap();
    let mut m = MultiHash::new(&c).unwrap();
    feed(&mut m, &[1; 14]);
    assert_eq!(m.acc.count[0], 14);
    feed(&mut m, &[1; 5]);
    assert_eq!(
        m.acc.count[0], 15,
        "saturates at 2^4 - 1, not at the counters' 3"
    );
}
