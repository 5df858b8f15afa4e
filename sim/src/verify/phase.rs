//! Verification of the phase classifier RTL against its model on the same event stream: the
//! rust-hdl description under rust-hdl's simulator ([`cosim`]) and the exported Verilog under
//! Icarus ([`icarus`]). Events are offered one per clock (held while `in_ready` is low); every
//! output record is compared with the model's, in order. The consumer of the records may stall at
//! random ([`run_rust_hdl_stalling`], and always under Icarus): the records are the same, none
//! lost. Adversarial streams: [`adversarial`].

use crate::model::phase::{PhaseClassifier, PhaseRecord};
use crate::verify::icarus::{self, SimDir};
use crate::verify::settle;
use hwprof_hdl::phase::config::{PhaseConfig, PHASE_ID_BITS, WEIGHT_BITS};
use hwprof_hdl::phase::{with_shape, PhaseTop, ShapeVisitor};

/// The most clocks one classification takes, with margin: Σ, the divider, the distance pass,
/// the decision, the signature write and the predictor.
pub fn classification_clocks(cfg: &PhaseConfig) -> u64 {
    let (b, p, q) = (cfg.buckets as u64, cfg.entries as u64, cfg.q_bits as u64);
    7 + b + b * (q + 1) + p * b + 3 + 3 + b + 3 + 3 + 16
}

fn record(r: (u64, u64, u64, u64)) -> PhaseRecord {
    PhaseRecord {
        interval: r.0,
        phase: r.1 as u32,
        distance: r.2,
        predicted: r.3 as u32,
    }
}

/// Records that differ, position by position, plus the difference in count.
pub fn mismatches(expected: &[PhaseRecord], got: &[PhaseRecord]) -> u64 {
    let differ = expected.iter().zip(got).filter(|(a, b)| a != b).count();
    (differ + expected.len().abs_diff(got.len())) as u64
}

struct Run<'a> {
    events: &'a [(u64, u64)],
    tail: u64,
    /// Seed of the consumer's stalls (`out_ready` low half the clocks); None: always ready.
    stalls: Option<u32>,
}

/// xorshift32: the stalling consumer's random bits.
fn xorshift(s: u32) -> u32 {
    let s = s ^ (s << 13);
    let s = s ^ (s >> 17);
    s ^ (s << 5)
}

impl ShapeVisitor for Run<'_> {
    type Output = Result<Vec<PhaseRecord>, String>;
    fn visit<T: PhaseTop>(self, mut u: T) -> Self::Output {
        let mut out = vec![];
        let mut random = self.stalls.unwrap_or(0) | 1;
        let stalls = self.stalls.is_some();
        // One clock: inputs with the clock low, both handshakes sampled, rising edge.
        let mut clock = |u: &mut T, reset: bool, ev: Option<(u64, u64)>| -> Result<bool, String> {
            let (pc, w) = ev.unwrap_or((0, 0));
            random = xorshift(random);
            let take = !stalls || random & 1 == 1;
            u.set_clock(false);
            u.drive(reset, ev.is_some(), pc, w);
            u.set_out_ready(take);
            settle(u)?;
            let accepted = ev.is_some() && u.ready();
            if take {
                if let Some(r) = u.record() {
                    out.push(record(r));
                }
            }
            u.set_clock(true);
            settle(u)?;
            Ok(accepted)
        };
        clock(&mut u, true, None)?;
        let mut stalled = 0u64;
        for &e in self.events {
            while !clock(&mut u, false, Some(e))? {
                stalled += 1;
                if stalled > 1 << 40 {
                    return Err("the RTL never accepts an event".into());
                }
            }
        }
        for _ in 0..self.tail {
            clock(&mut u, false, None)?;
        }
        Ok(out)
    }
}

/// Runs the RTL of `cfg` under rust-hdl's simulator on `events`; its records.
pub fn run_rust_hdl(cfg: &PhaseConfig, events: &[(u64, u64)]) -> Result<Vec<PhaseRecord>, String> {
    with_shape(
        cfg,
        Run {
            events,
            tail: classification_clocks(cfg),
            stalls: None,
        },
    )?
}

/// [`run_rust_hdl`] with a consumer that takes a record only at random clocks (half of them, from
/// `seed`), so that records wait and classifications behind them stall.
pub fn run_rust_hdl_stalling(
    cfg: &PhaseConfig,
    events: &[(u64, u64)],
    seed: u32,
) -> Result<Vec<PhaseRecord>, String> {
    with_shape(
        cfg,
        Run {
            events,
            // A waiting record adds a few clocks to the last classification.
            tail: classification_clocks(cfg) + 256,
            stalls: Some(seed),
        },
    )?
}

/// Mismatches of the rust-hdl run against `expected` (the model's records on `events`).
pub fn cosim(
    cfg: &PhaseConfig,
    events: &[(u64, u64)],
    expected: &[PhaseRecord],
) -> Result<u64, String> {
    Ok(mismatches(expected, &run_rust_hdl(cfg, events)?))
}

/// The Icarus testbench: events from `events.hex` (pc and weight per line), one offered per clock
/// and held while `in_ready` is low; a consumer that takes records at random clocks (`out_ready`
/// from an LFSR); each record taken printed as `R interval phase distance predicted`.
pub fn testbench(cfg: &PhaseConfig, n: usize) -> String {
    let d = cfg.distance_bits();
    let w = WEIGHT_BITS;
    let id = PHASE_ID_BITS;
    let tail = classification_clocks(cfg);
    format!(
        r#"`timescale 1ns/1ps
module tb;
  reg clock = 0;
  reg reset = 1;
  reg in_valid = 0;
  reg [63:0] in_pc = 0;
  reg [{wm1}:0] in_weight = 0;
  wire in_ready;
  wire out_valid;
  reg out_ready = 1;
  reg [15:0] lfsr = 16'hace1;
  wire [31:0] out_interval;
  wire [{idm1}:0] out_phase;
  wire [{dm1}:0] out_distance;
  wire [{idm1}:0] out_predicted;
  top dut(.clock(clock), .reset(reset), .in_valid(in_valid), .in_ready(in_ready), .in_pc(in_pc),
          .in_weight(in_weight), .out_valid(out_valid), .out_ready(out_ready), .out_interval(out_interval),
          .out_phase(out_phase), .out_distance(out_distance), .out_predicted(out_predicted));
  reg [{ewm1}:0] mem [0:{nm1}];
  integer i;
  reg accepted;
  always #5 clock = ~clock;
  // out_ready changes with the clock low and holds through the next rising edge, where the record
  // on the outputs now is taken.
  always @(negedge clock) begin
    lfsr = {{lfsr[14:0], lfsr[15] ^ lfsr[13] ^ lfsr[12] ^ lfsr[10]}};
    out_ready = lfsr[0];
    if (out_valid && out_ready) $display("R %0d %0d %0d %0d", out_interval, out_phase, out_distance, out_predicted);
  end
  initial begin
    $readmemh("events.hex", mem);
    @(posedge clock); #1 reset = 0;
    i = 0;
    while (i < {n}) begin
      in_valid = 1; in_pc = mem[i][{ewm1}:{w}]; in_weight = mem[i][{wm1}:0];
      @(negedge clock); accepted = in_ready;
      @(posedge clock); #1;
      if (accepted) i = i + 1;
    end
    in_valid = 0;
    repeat ({tail} + 256) @(posedge clock);
    $finish;
  end
endmodule
"#,
        wm1 = w - 1,
        idm1 = id - 1,
        dm1 = d - 1,
        ewm1 = 64 + w - 1,
        nm1 = n.max(1) - 1,
    )
}

/// Runs the exported Verilog of `cfg` under Icarus on `events`; its records.
pub fn run_icarus(cfg: &PhaseConfig, events: &[(u64, u64)]) -> Result<Vec<PhaseRecord>, String> {
    let verilog = hwprof_hdl::phase::verilog(cfg)?;
    let dir = SimDir::new("phase").map_err(|e| e.to_string())?;
    let wmax = PhaseConfig::weight_max();
    icarus::write_memh(
        &dir.file("events.hex"),
        64 + WEIGHT_BITS,
        events
            .iter()
            .map(|&(pc, w)| vec![(pc << WEIGHT_BITS) | w.min(wmax), pc >> (64 - WEIGHT_BITS)]),
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(dir.file("design.v"), verilog).map_err(|e| e.to_string())?;
    std::fs::write(dir.file("tb.v"), testbench(cfg, events.len())).map_err(|e| e.to_string())?;
    let out = icarus::run(&dir, &[dir.file("design.v"), dir.file("tb.v")], "tb")
        .map_err(|e| e.to_string())?;
    out.lines()
        .filter_map(|l| l.strip_prefix("R "))
        .map(|l| {
            let v: Vec<u64> = l
                .split_whitespace()
                .map(|x| {
                    x.parse()
                        .map_err(|_| format!("bad Icarus output line {l:?}"))
                })
                .collect::<Result<_, _>>()?;
            match v[..] {
                [a, b, c, d] => Ok(record((a, b, c, d))),
                _ => Err(format!("bad Icarus output line {l:?}")),
            }
        })
        .collect()
}

/// Mismatches of the Icarus run against `expected`.
pub fn icarus(
    cfg: &PhaseConfig,
    events: &[(u64, u64)],
    expected: &[PhaseRecord],
) -> Result<u64, String> {
    Ok(mismatches(expected, &run_icarus(cfg, events)?))
}

/// The pcs of synthetic phase `ph`'s `j`-th event: a few distinct pcs per phase, in a region of
/// its own.
fn phase_pc(ph: u64, j: u64) -> u64 {
    (ph << 20) + 4 * ((j * (ph + 1)) % (ph + 2))
}

/// Visits to P + 1 synthetic phases in turn, each lasting 1, 2, 3 or 4 intervals (cycling), for
/// `intervals` intervals. Each phase runs one pc of a bucket of its own (while buckets last), so
/// phases are as far apart as vectors can be; with P entries every phase is evicted before it
/// returns, so each visit is a new signature whose count restarts: a visit shorter than
/// `min_count` never gets an id, a longer one gets it part-way, and ids wrap after enough visits.
pub fn recurring(cfg: &PhaseConfig, intervals: u64) -> Vec<(u64, u64)> {
    let m = PhaseClassifier::new(cfg);
    let mut used = vec![false; cfg.buckets];
    let pcs: Vec<u64> = (0..cfg.entries as u64 + 1)
        .map(|ph| {
            let mut pc = (ph + 1) << 20;
            while used[m.bucket(pc)] && used.contains(&false) {
                pc += 4;
            }
            used[m.bucket(pc)] = true;
            pc
        })
        .collect();
    let mut out = vec![];
    let (mut k, mut visit) = (0, 0);
    while k < intervals {
        let pc = pcs[visit % pcs.len()];
        for _ in 0..1 + visit % 4 {
            out.extend(std::iter::repeat_n((pc, 1), cfg.interval as usize));
            k += 1;
        }
        visit += 1;
    }
    out
}

/// Slowly drifting code: two pcs in different buckets, the first one's share of each interval
/// stepping up and down by a quarter every two intervals, so that each step opens a signature
/// near the one before (what `merge_threshold` joins into one phase).
pub fn drift(cfg: &PhaseConfig, intervals: u64) -> Vec<(u64, u64)> {
    let m = PhaseClassifier::new(cfg);
    let a = 0x100u64;
    let b = (a..)
        .step_by(4)
        .find(|&pc| m.bucket(pc) != m.bucket(a))
        .unwrap();
    let per = cfg.interval;
    (0..intervals)
        .flat_map(|k| {
            let level = [0, 1, 2, 3, 4, 3, 2, 1][(k / 2 % 8) as usize];
            (0..per).map(move |i| (if 4 * i < level * per { a } else { b }, 1))
        })
        .collect()
}

/// Adversarial streams for a configuration, each closing several intervals: all-distinct pcs,
/// one pc, bucket saturation (maximal weights on one pc), table overflow (more distinct phases
/// than entries, recurring so LRU replacement is exercised), maximal weights everywhere (the
/// stall: intervals of a few events), [`recurring`] visits (entry counts, `min_count`) and
/// [`drift`] (joined phases).
pub fn adversarial(cfg: &PhaseConfig, intervals: u64) -> Vec<(&'static str, Vec<(u64, u64)>)> {
    let per = cfg.interval;
    let n = (per * intervals) as usize;
    let mut g = hwprof_hdl::hash::SplitMix64(cfg.seed ^ 0x5eed);
    let distinct: Vec<(u64, u64)> = (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9E37_79B9) ^ (i << 40), 1))
        .collect();
    let one: Vec<(u64, u64)> = vec![(0x4000_1234, 1); n];
    let saturate: Vec<(u64, u64)> = (0..n as u64 / 64 + 8)
        .map(|i| (if i % 5 == 0 { 0x77 } else { 0x4000_1234 }, 255))
        .collect();
    // Phases p = 0..(2P): interval k runs pcs of phase (k mod 2P), a few distinct pcs each.
    let phases = 2 * cfg.entries as u64;
    let mut overflow = vec![];
    for k in 0..intervals.max(3 * phases) {
        let ph = (k * 7) % phases;
        for j in 0..per {
            overflow.push((phase_pc(ph, j), 1));
        }
    }
    let random: Vec<(u64, u64)> = (0..n)
        .map(|_| (g.next_u64() & 0xff_ffff, g.next_u64() % 300))
        .collect();
    vec![
        ("all-distinct", distinct),
        ("one-pc", one),
        ("saturation", saturate),
        ("table-overflow", overflow),
        ("random-weights", random),
        ("recurring", recurring(cfg, intervals.max(12))),
        ("drift", drift(cfg, intervals.max(16))),
    ]
}

/// The model's records on `events`.
pub fn expected(cfg: &PhaseConfig, events: &[(u64, u64)]) -> Vec<PhaseRecord> {
    PhaseClassifier::run(cfg, events.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::phase::WhenFull;
    use hwprof_hdl::ConfigFile;

    fn small(extra: &str) -> PhaseConfig {
        PhaseConfig::from_toml_str(
            &format!(
                "[phase]\ninterval = 600\nbuckets = 8\ncounter_bits = 8\nq_bits = 4\nentries = 4\n\
                 threshold = 6\nmarkov_entries = 8\n{extra}"
            ),
            "t",
        )
        .unwrap()
    }

    #[test]
    fn rust_hdl_matches_model_on_adversarial_streams() {
        for extra in [
            "",
            "centre = \"leader\"\nsample_every = 3\n",
            "min_count = 2\n",
            "centre = \"leader\"\nmin_count = 3\n",
            "min_count = 2\nmerge_threshold = 12\n",
            "centre = \"leader\"\nmerge_threshold = 10\n",
            "when_full = \"join_nearest\"\n",
            "centre = \"leader\"\nmin_count = 2\nmerge_threshold = 12\nwhen_full = \"join_nearest\"\n",
        ] {
            let cfg = small(extra);
            let replacing = PhaseConfig {
                when_full: WhenFull::ReplaceLru,
                ..cfg.clone()
            };
            let mut joins = false;
            for (name, ev) in adversarial(&cfg, 12) {
                let want = expected(&cfg, &ev);
                assert!(want.len() >= 3, "{name}: {} records", want.len());
                joins |= want != expected(&replacing, &ev);
                if cfg.merges() && name == "drift" {
                    let apart = PhaseConfig {
                        merge_threshold: 0,
                        ..cfg.clone()
                    };
                    assert_ne!(
                        want,
                        expected(&apart, &ev),
                        "{extra}: the drift joins phases"
                    );
                }
                let got = run_rust_hdl(&cfg, &ev).unwrap();
                assert_eq!(got, want, "{name} {extra}");
                let got = run_rust_hdl_stalling(&cfg, &ev, 7).unwrap();
                assert_eq!(got, want, "{name} {extra}: a stalling consumer");
            }
            assert_eq!(
                joins,
                cfg.when_full == WhenFull::JoinNearest,
                "{extra}: a full table joins the nearest on some stream"
            );
        }
    }

    /// The model's phases on the first ten intervals of [`drift`] (leader centres, accumulators
    /// wide enough not to saturate): levels 0..=4 of the first pc's share, two intervals each,
    /// every step beyond `threshold` (6) of the one before and within 12 of it, never within 12
    /// of two steps before.
    fn drift_phases(min_count: u32, merge_threshold: u64) -> Vec<u32> {
        let cfg = PhaseConfig {
            counter_bits: 10,
            centre: hwprof_hdl::phase::CentreUpdate::Leader,
            min_count,
            merge_threshold,
            ..small("")
        };
        let r = expected(&cfg, &drift(&cfg, 10));
        r.iter().map(|r| r.phase).collect()
    }

    #[test]
    fn merge_threshold_keeps_a_drifting_phase() {
        let t = hwprof_hdl::phase::config::TRANSITION_ID;
        assert_eq!(
            drift_phases(2, 0),
            vec![t, 0, t, 1, t, 2, t, 3, t, 4],
            "every step a new signature, a new phase from its second interval"
        );
        assert_eq!(
            drift_phases(2, 12),
            vec![t, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "each step joins the phase of the step before, which has an id"
        );
        // Within merge_threshold only of a signature without an id yet: no join.
        assert_eq!(drift_phases(3, 12), vec![t; 10]);
    }

    #[test]
    fn icarus_matches_model_on_adversarial_streams() {
        if icarus::available().is_err() {
            eprintln!("skipped: no Icarus");
            return;
        }
        for extra in [
            "centre_shift = 1\nmin_count = 2\nmerge_threshold = 12\n",
            "centre = \"leader\"\nmin_count = 2\nwhen_full = \"join_nearest\"\n",
        ] {
            let cfg = small(extra);
            let mut all = vec![];
            for (_, ev) in adversarial(&cfg, 10) {
                all.extend(ev);
            }
            let want = expected(&cfg, &all);
            assert_eq!(run_icarus(&cfg, &all).unwrap(), want, "{extra}");
        }
    }

    /// More than 2^PHASE_ID_BITS phase ids with `min_count` = 2: the ids wrap before the
    /// transition id, in the rust-hdl simulation and under Icarus (short intervals keep it quick;
    /// the classifier stalls between them, as documented).
    #[test]
    fn ids_wrap_before_the_transition_id() {
        let cfg = PhaseConfig {
            interval: 40,
            min_count: 2,
            centre: hwprof_hdl::phase::CentreUpdate::Leader,
            ..small("")
        };
        let ev = recurring(&cfg, 900);
        let want = expected(&cfg, &ev);
        let ids: Vec<u32> = want.iter().map(|r| r.phase).collect();
        let t = hwprof_hdl::phase::config::TRANSITION_ID;
        let last = ids
            .iter()
            .position(|&x| x == t - 1)
            .expect("the stream reaches id 254");
        assert!(ids.contains(&t));
        assert!(ids[last..].contains(&0), "ids wrap to 0 after {}", t - 1);
        assert_eq!(run_rust_hdl(&cfg, &ev).unwrap(), want);
        if icarus::available().is_ok() {
            assert_eq!(run_icarus(&cfg, &ev).unwrap(), want);
        }
    }

    #[test]
    fn a_changed_record_is_counted() {
        let cfg = small("");
        let ev = &adversarial(&cfg, 6)[3].1;
        let mut want = expected(&cfg, ev);
        assert_eq!(mismatches(&want, &want.clone()), 0);
        let got = want.clone();
        want[2].phase ^= 1;
        assert_eq!(mismatches(&want, &got), 1);
        assert_eq!(mismatches(&want[..3], &got), 1 + got.len() as u64 - 3);
    }
}
