//! Random valid configurations — any tables, entries, accumulator entries or sets × ways, widths,
//! thresholds, C/R/P, hash kind, key widths, the block-RAM profiler's write stage, counters' output register, refused slot and hash stage — for the property test that exports each one's
//! Verilog and runs it under Icarus against the model.

use hwprof_hdl::ConfigFile;
use hwprof_hdl::ProfilerConfig;
use rand::Rng;

/// A random configuration small enough to simulate in a second, with `intervals` of events
/// worth testing: L in 24..=160, tables 1..=5 of 4..=64 counters, a fully-associative
/// accumulator of 1..=12 entries or 1..=8 sets of 1..=4 ways. Always valid.
pub fn random_config(rng: &mut impl Rng) -> ProfilerConfig {
    let interval: u64 = rng.gen_range(24..=160);
    let counter_bits: u32 = rng.gen_range(3..=20);
    let threshold = rng
        .gen_range(1..=interval / 6)
        .min((1u64 << counter_bits) - 1);
    let count_bits = rng.gen_range(counter_bits..=24);
    let mut stages = String::new();
    let accumulator = if rng.gen_bool(0.5) {
        format!("entries = {}\n", rng.gen_range(1..=12))
    } else {
        stages = format!(
            "write_stage = {}\ncounter_output_register = {}\nrefused_slot = {}\nflag_rows = {}\n\
             narrow_tag_compare = {}\nhash_stage = {}\n",
            rng.gen_bool(0.5),
            rng.gen_bool(0.5),
            rng.gen_bool(0.5),
            rng.gen_bool(0.5),
            // From draws made already, so the shapes drawn stay those drawn before.
            counter_bits % 2 == 0,
            interval % 2 == 1
        );
        let ways = rng.gen_range(1..=4);
        let sets = 1 << rng.gen_range(0..=3);
        format!(
            "organisation = \"set_associative\"\nentries = {}\nways = {ways}\n",
            sets * ways
        )
    };
    let text = format!(
        "interval = {interval}\nthreshold = {threshold}\ntables = {}\nentries = {}\n\
         counter_bits = {counter_bits}\nconservative_update = {}\nreset_on_promote = {}\n\
         retaining = {}\nhash = \"{}\"\nseed = {}\na_bits = {}\nb_bits = {}\n{stages}\
         [accumulator]\ncount_bits = {count_bits}\n{accumulator}",
        rng.gen_range(1..=5),
        1 << rng.gen_range(2..=6),
        rng.gen_bool(0.5),
        rng.gen_bool(0.5),
        rng.gen_bool(0.5),
        if rng.gen_bool(0.5) {
            "h3"
        } else {
            "tabulation"
        },
        rng.gen_range(1..=1000),
        rng.gen_range(4..=48),
        rng.gen_range(1..=48),
    );
    ProfilerConfig::from_toml_str(&text, "random shape")
        .unwrap_or_else(|e| panic!("random configuration is invalid: {e}\n{text}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::multihash::cosim::ReadyPattern;
    use crate::verify::multihash::icarus::icarus_cosim_design;
    use crate::verify::multihash::streams::{stream, StreamKind};
    use hwprof_hdl::config::Organisation;
    use hwprof_hdl::multihash::Design;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Shapes per run; each is exported and simulated once per design.
    const SHAPES: usize = 8;

    #[test]
    fn random_shapes_match_the_model_under_icarus() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let (mut runs, mut events) = (0, 0);
        for i in 0..SHAPES {
            let cfg = random_config(&mut rng);
            let kind = StreamKind::ALL[i % StreamKind::ALL.len()];
            let l = cfg.interval as usize;
            let mut ev = stream(kind, &cfg, 3 * l, i as u64);
            ev.extend(stream(StreamKind::Mixed, &cfg, 2 * l, i as u64));
            let designs: &[Design] = match cfg.accumulator.organisation {
                Organisation::FullyAssociative => &[Design::Pipelined, Design::Baseline],
                Organisation::SetAssociative => &[Design::Pipelined],
            };
            let ready = ReadyPattern {
                period: 1 + i as u64 % 3,
                ready: 1,
            };
            for &design in designs {
                let r = icarus_cosim_design(&cfg, design, &ev, ready)
                    .unwrap_or_else(|e| panic!("{design:?} of {}: {e}", cfg.summary()));
                assert_eq!(
                    r.mismatches,
                    0,
                    "{design:?} of {} on {}: {:#?}",
                    cfg.summary(),
                    kind.name(),
                    r.first_mismatch
                );
                assert_eq!(r.reports_compared, 5, "{design:?} of {}", cfg.summary());
                runs += 1;
                events += ev.len();
            }
        }
        eprintln!("{SHAPES} random shapes, {runs} Icarus runs, {events} events: 0 mismatches");
    }
}
