//! Checks of `hwprof_hdl::multihash::bram_profiler::BramProfiler` (the profiler with its set-associative
//! accumulator in block RAM). Its model is [`crate::model::multihash::MultiHash`] with
//! `accumulator.organisation = "set_associative"`; the testbenches are those of the
//! fully-associative top ([`crate::verify::multihash::cosim`], [`crate::verify::multihash::icarus`]), which compare
//! a set-associative design's reports entry-set by entry-set (it reports in retirement order).
//!
//! [`set_storm`] is this accumulator's own adversarial stream: more heavy tuples than ways in one
//! set, so allocation fails, retained entries are replaced, and rollover meets full sets.

use crate::eval::trace::Tuple;
use hwprof_hdl::hash::{ByteLinearHash, HashConstants, SetHash, SplitMix64};
use hwprof_hdl::ProfilerConfig;

/// `n` events over `hot` distinct tuples that all fall in set 0, round robin with a little noise
/// (every 5th event a random tuple).
pub fn set_storm(cfg: &ProfilerConfig, hot: usize, n: usize, seed: u64) -> Vec<Tuple> {
    let h = SetHash::new(cfg);
    let mut g = SplitMix64(seed);
    let mut same = Vec::new();
    while same.len() < hot {
        let t = (g.next_u64() & cfg.a_mask(), g.next_u64() & cfg.b_mask());
        if h.set(t.0, t.1) == 0 && !same.contains(&t) {
            same.push(t);
        }
    }
    (0..n)
        .map(|i| {
            if i % 5 == 4 {
                (g.next_u64(), g.next_u64())
            } else {
                same[i % hot]
            }
        })
        .collect()
}

/// The forwarding stress: `hot` tuples that share their accumulator set *and* their index in
/// every counter table, run in blocks where each repeats at distance d = 1, 2, …, `dmax` (round
/// robin over d of them), with a random tuple between blocks. So every event reads counters and
/// set words that the events 1…d ahead of it wrote, the same tuple comes back right after its
/// promotion, and the set overflows (allocation over replaceable entries) when d exceeds the ways.
pub fn forwarding_distances(cfg: &ProfilerConfig, dmax: usize, n: usize, seed: u64) -> Vec<Tuple> {
    let sets = SetHash::new(cfg);
    let h = ByteLinearHash::new(&HashConstants::new(cfg));
    let mut g = SplitMix64(seed);
    let mut rnd = || (g.next_u64() & cfg.a_mask(), g.next_u64() & cfg.b_mask());
    let base = rnd();
    let (mut want, mut idx) = (vec![0u32; cfg.tables], vec![0u32; cfg.tables]);
    h.indices(base.0, base.1, &mut want);
    let mut hot = vec![base];
    while hot.len() < dmax.max(1) {
        let t = rnd();
        h.indices(t.0, t.1, &mut idx);
        if idx == want && sets.set(t.0, t.1) == sets.set(base.0, base.1) && !hot.contains(&t) {
            hot.push(t);
        }
    }
    let mut ev = Vec::with_capacity(n);
    let mut d = 1;
    while ev.len() < n {
        for i in 0..4 * d {
            ev.push(hot[i % d]);
        }
        ev.push(rnd());
        d = d % dmax.max(1) + 1;
    }
    ev.truncate(n);
    ev
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::multihash::MultiHash;
    use crate::verify::multihash::cosim::{cosim, CosimOptions, ReadyPattern};
    use crate::verify::multihash::icarus::icarus_cosim;
    use crate::verify::multihash::kit::{check, config, within_wait_bound, Dut};
    use crate::verify::multihash::streams::{stream, StreamKind};

    #[test]
    fn every_forwarding_distance_over_c_r_p() {
        for bits in 0..8u32 {
            let (c, r, p) = (bits & 1 == 1, bits & 2 == 2, bits & 4 == 4);
            // Half the C/R/P combinations (an even number of each) without the write stage.
            let write_stage = bits.count_ones() % 2 == 1;
            // The counters' output register on half of each.
            let outreg = bits & 3 == 1 || bits & 3 == 2;
            // The refused slot on half, with and without each of the others.
            let slot = (bits ^ (bits >> 2)) & 1 == 1;
            // The byte tables in block RAM with the write stage, over the four combinations of
            // the output register and the slot.
            let hash_ram = write_stage;
            // The flags from rows on half, with and without each of the others.
            let rows = bits & 1 == (bits >> 1) & 1;
            // The tag compare in 2-bit slices on half, with and without the rows.
            let narrow = (bits >> 1) & 1 != (bits >> 2) & 1;
            // The hash from a stage of its own on two of the rows without the byte tables in
            // block RAM, with and without the output register and the slot.
            let hash_stage = !hash_ram && bits & 1 == 1;
            let cfg = Dut::Bram.small(
                c,
                r,
                p,
                &format!(
                    "write_stage = {write_stage}\ncounter_output_register = {outreg}\n\
                     refused_slot = {slot}\nhash_block_ram = {hash_ram}\nflag_rows = {rows}\n\
                     narrow_tag_compare = {narrow}\nhash_stage = {hash_stage}\n"
                ),
            );
            // 6 intervals; interval ends fall at every phase of the blocks.
            let ev = forwarding_distances(&cfg, 5, 390, bits as u64);
            let mut m = MultiHash::new(&cfg).unwrap();
            let reps = m.run(&ev);
            assert!(
                reps.iter().any(|r| !r.entries.is_empty()),
                "reports to compare"
            );
            let what = format!(
                "C{}R{}P{} write stage {write_stage} output register {outreg} refused slot {slot} \
                 hash in block RAM {hash_ram} flag rows {rows} narrow tag compare {narrow} \
                 hash stage {hash_stage} forwarding distances",
                c as u8, r as u8, p as u8
            );
            for ready in [
                ReadyPattern::ALWAYS,
                ReadyPattern {
                    period: 7,
                    ready: 1,
                },
            ] {
                let opts = CosimOptions {
                    report_ready: ready,
                    ..Default::default()
                };
                let res = check(&cfg, &ev, &opts, &what);
                // The documented wait bound (doubled with the output register) holds when every
                // report word is taken at once.
                if ready == ReadyPattern::ALWAYS {
                    assert!(within_wait_bound(&res, &cfg), "{what}: {res:?}");
                }
            }
        }
    }

    /// The tabulation byte tables in block RAM without the write stage, over the output register
    /// and the refused slot, under back-pressure, in rust-hdl and in Icarus (the ROMs' `initial`
    /// contents and enabled read registers as exported).
    #[test]
    fn hash_in_block_ram_in_both_simulators() {
        for bits in 0..4 {
            let (outreg, slot) = (bits & 1 == 1, bits & 2 == 2);
            let cfg = Dut::Bram.small(
                true,
                false,
                true,
                &format!(
                    "write_stage = false\ncounter_output_register = {outreg}\n\
                     refused_slot = {slot}\nhash_block_ram = true\n"
                ),
            );
            assert!(cfg.hash_block_ram && cfg.hash == hwprof_hdl::config::HashKind::Tabulation);
            let mut ev = set_storm(&cfg, 12, 320, bits);
            ev.extend(forwarding_distances(&cfg, 5, 320, bits));
            let what = format!("byte tables in block RAM, output register {outreg} slot {slot}");
            let slow = ReadyPattern {
                period: 5,
                ready: 1,
            };
            let opts = CosimOptions {
                report_ready: slow,
                ..Default::default()
            };
            check(&cfg, &ev, &opts, &what);
            let res = icarus_cosim(&cfg, &ev, slow).unwrap();
            assert_eq!(res.mismatches, 0, "{what}: {:#?}", res.first_mismatch);
            assert_eq!(res.reports_compared, ev.len() as u64 / 64, "{what}");
        }
    }

    /// `hash_stage` changes no result, so the co-simulations above would pass if it were ignored.
    /// What it must change is the timing: its stage F is `hash_block_ram`'s, with the same
    /// handshake, so the two take the same clocks — later reports than without stage F, and not
    /// one wait more on the input.
    #[test]
    fn the_hash_stage_times_like_the_byte_tables_stage() {
        for outreg in [false, true] {
            for kind in [StreamKind::Mixed, StreamKind::Saturation] {
                let run = |extra: &str| {
                    let cfg = Dut::Bram.small(
                        true,
                        false,
                        true,
                        &format!("counter_output_register = {outreg}\n{extra}"),
                    );
                    let ev = stream(kind, &cfg, 256, 1);
                    let what = format!("{extra:?} output register {outreg} {}", kind.name());
                    (check(&cfg, &ev, &CosimOptions::default(), &what), what)
                };
                let (off, _) = run("");
                let (stage, what) = run("hash_stage = true\n");
                let (rom, _) = run("hash_block_ram = true\n");
                let clocks = |r: &crate::verify::multihash::cosim::CosimResult| {
                    (
                        r.total_cycles,
                        r.longest_report_cycles,
                        r.input_stall_cycles,
                    )
                };
                assert_eq!(clocks(&stage), clocks(&rom), "{what}");
                assert!(
                    stage.total_cycles > off.total_cycles,
                    "{what}: {off:?} {stage:?}"
                );
                assert!(
                    stage.longest_report_cycles > off.longest_report_cycles,
                    "{what}: {off:?} {stage:?}"
                );
                assert_eq!(stage.input_stall_cycles, off.input_stall_cycles, "{what}");
            }
        }
    }

    #[test]
    fn set_storm_overflows_a_set() {
        let cfg = Dut::Bram.small(true, false, true, "");
        let ev = set_storm(&cfg, 5, 640, 3);
        let mut m = MultiHash::new(&cfg).unwrap();
        m.run(&ev);
        assert!(
            m.stats.failed_allocations > 0,
            "5 hot tuples in a 2-way set must fail to allocate"
        );
        check(&cfg, &ev, &CosimOptions::default(), "set storm");
    }

    /// 2 tables x 16 counters, L = 64, T = 4, retaining, accumulator 4 sets x 4 ways with the
    /// given replacement.
    fn four_way(c: bool, r: bool, replacement: &str) -> ProfilerConfig {
        config(&format!(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\nconservative_update = {c}\n\
             reset_on_promote = {r}\nretaining = true\n[accumulator]\n\
             organisation = \"set_associative\"\nentries = 16\nways = 4\nreplacement = \"{replacement}\"\n"
        ))
    }

    /// A set storm of 7 tuples in one 4-way set, skewed (the first tuple takes every third event,
    /// the second every seventh), so that full sets hold retained entries of different counts.
    fn skewed_storm(cfg: &ProfilerConfig, n: usize, seed: u64) -> Vec<Tuple> {
        let mut ev = set_storm(cfg, 7, n, seed);
        let (x, y) = (ev[0], ev[1]);
        for i in 0..n {
            if i % 3 == 0 {
                ev[i] = x;
            } else if i % 7 == 0 {
                ev[i] = y;
            }
        }
        ev
    }

    #[test]
    fn smallest_replacement_over_c_r_in_both_simulators() {
        let mut differs = 0;
        for bits in 0..4 {
            let (c, r) = (bits & 1 == 1, bits & 2 == 2);
            let cfg = four_way(c, r, "smallest");
            let mut ev = skewed_storm(&cfg, 640, bits as u64);
            ev.extend(forwarding_distances(&cfg, 6, 384, bits as u64));
            let first = MultiHash::new(&four_way(c, r, "first")).unwrap().run(&ev);
            if MultiHash::new(&cfg).unwrap().run(&ev) != first {
                differs += 1;
            }
            let what = format!("C{}R{}P1 smallest replacement", c as u8, r as u8);
            check(&cfg, &ev, &CosimOptions::default(), &what);
            check(
                &cfg,
                &ev,
                &Dut::SetBaseline.options(ReadyPattern::ALWAYS),
                &what,
            );
            let res = icarus_cosim(&cfg, &ev, ReadyPattern::ALWAYS).unwrap();
            assert_eq!(res.mismatches, 0, "{what}: {:#?}", res.first_mismatch);
            assert_eq!(res.reports_compared, ev.len() as u64 / 64, "{what}");
        }
        assert!(
            differs >= 2,
            "the streams must make smallest and first replacement disagree ({differs} of 4)"
        );
    }

    #[test]
    fn narrow_counters_and_wide_counts_single_hash_h3() {
        // 1 table, 2 sets x 4 ways, h3, odd key widths, 3-bit counters, 5-bit counts.
        let cfg = config(
            "interval = 96\nthreshold = 5\ntables = 1\nentries = 16\nhash = \"h3\"\na_bits = 13\n\
             b_bits = 40\ncounter_bits = 3\nreset_on_promote = true\nseed = 99\n[accumulator]\n\
             organisation = \"set_associative\"\nentries = 8\nways = 4\ncount_bits = 5\n",
        );
        let mut g = SplitMix64(1);
        // Keys wider than a_bits/b_bits: the RTL must mask them as the model does.
        let mut ev: Vec<Tuple> = (0..288)
            .map(|_| (g.next_u64() % 9 | 0xffff_0000_0000_0000, g.next_u64() % 3))
            .collect();
        ev.extend(stream(StreamKind::Saturation, &cfg, 288, 11));
        check(&cfg, &ev, &CosimOptions::default(), "h3 single");
        let baseline = Dut::SetBaseline.options(ReadyPattern::ALWAYS);
        check(&cfg, &ev, &baseline, "h3 single, baseline");
        let reps = MultiHash::new(&cfg).unwrap().run(&ev);
        assert!(
            reps.iter().flat_map(|r| &r.entries).any(|e| e.count > 7),
            "counts must pass the counters' saturation"
        );
    }

    #[test]
    fn paper_shape_on_bundled_trace() {
        let text = include_str!("../../../../configs/paper-10k-bram-4way.toml")
            .replace("interval = 10000", "interval = 2000");
        let cfg = config(&text);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/gzip_load.hwpt.gz");
        let ev = crate::eval::trace::read_trace(std::path::Path::new(path), None).unwrap();
        let r = check(
            &cfg,
            &ev[..6000],
            &CosimOptions::default(),
            "paper-10k-bram-4way shape",
        );
        assert!(r.entries_compared > 0);
        assert!(within_wait_bound(&r, &cfg), "{r:?}");
    }

    /// A set holding no entry with count >= T is never pending: when no interval has anything to
    /// report, no event waits for a retirement.
    #[test]
    fn intervals_without_reports_cost_no_drain() {
        let cfg = config(
            "interval = 200\nthreshold = 50\ntables = 2\nentries = 64\n[accumulator]\n\
             organisation = \"set_associative\"\nentries = 16\nways = 2\n",
        );
        let ev: Vec<(u64, u64)> = (0..1000u64).map(|i| (i * 7919 + 1, i)).collect();
        let reps = MultiHash::new(&cfg).unwrap().run(&ev);
        assert_eq!(reps.len(), 5);
        assert!(reps.iter().all(|r| r.entries.is_empty()), "{reps:?}");
        let r = check(&cfg, &ev, &CosimOptions::default(), "distinct keys");
        // The two clocks after each interval's last event (followed by more events) are the one
        // wait left; there is no retirement.
        assert_eq!(r.report_stall_cycles, 2 * (r.intervals - 1), "{r:?}");
        assert_eq!(
            r.input_stall_cycles,
            cfg.entries as u64 + 2 * (r.intervals - 1),
            "{r:?}"
        );
    }

    #[test]
    fn unsupported_configurations_are_clear_errors() {
        let e = cosim(
            &Dut::Bram.small(true, false, true, ""),
            &[],
            &CosimOptions::default(),
        );
        assert!(e.is_ok(), "the test shape is supported");
        let stash = config(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\n\
             organisation = \"set_associative\"\nentries = 8\nways = 2\nstash = 2\n",
        );
        let e = cosim(&stash, &[(1, 2)], &CosimOptions::default()).unwrap_err();
        assert!(e.contains("stash"), "{e}");
        // Tags wider than the block-RAM tag word.
        let wide = config(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\na_bits = 64\nb_bits = 64\n\
             [accumulator]\norganisation = \"set_associative\"\nentries = 8\nways = 2\n",
        );
        let e = cosim(&wide, &[(1, 2)], &CosimOptions::default()).unwrap_err();
        assert!(e.contains("96-bit tags"), "{e}");
    }
}
