//! Co-simulation of the profile buffer (`hwprof_hdl::profile_buffer`) against its model
//! ([`crate::model::profile_buffer`]): the rust-hdl description under rust-hdl's simulator, and the
//! exported Verilog under Icarus, both with random handshakes. The model works per event, so both
//! must produce exactly its readout words, in order, whatever the timing. `HWPROF_VCD=DIR` writes
//! the rust-hdl waveform, `HWPROF_KEEP_SIM=1` keeps the Icarus files.

use crate::model::profile_buffer::{ReadoutWord, Stimulus};
use crate::verify::icarus::{self, SimDir};
use crate::verify::netlist::{self, Family};
use hwprof_hdl::profile_buffer::{verilog, BufferConfig, ProfileBuffer, INDEX_BITS};
use hwprof_hdl::with_profile_buffer;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};

/// Handshake randomness: an event is offered in 3 of 4 cycles, `out_ready` is high in 3 of 4.
fn coin(rng: &mut ChaCha8Rng) -> bool {
    rng.gen_range(0..4) != 0
}

/// How events are offered: in random cycles, or in every cycle (back-to-back events, the
/// pipeline's forwarding distances one and two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    Random,
    EveryCycle,
}

/// Cycles after the last stimulus to drain the final readout (out_ready is high 3/4 of cycles).
fn drain_cycles(cfg: &BufferConfig) -> usize {
    8 * cfg.entries + 32
}

fn rust_hdl_run<const CW: usize, const TW: usize>(
    cfg: &BufferConfig,
    stimuli: &[Stimulus],
    seed: u64,
    pace: Pace,
) -> Result<Vec<ReadoutWord>, String> {
    let mut uut = ProfileBuffer::<CW, TW>::new(cfg);
    for s in [&mut uut.reset, &mut uut.ev_valid, &mut uut.ev_taken]
        .into_iter()
        .chain([&mut uut.sample, &mut uut.out_ready])
    {
        s.connect();
    }
    uut.ev_pc.connect();
    uut.ev_index.connect();
    uut.connect_all();
    let words = Arc::new(Mutex::new(Vec::new()));
    let sink = words.clone();
    let stim = stimuli.to_vec();
    let drain = drain_cycles(cfg);
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<ProfileBuffer<CW, TW>>| {
        x.clock.next = !x.clock.val()
    });
    sim.add_testbench(move |mut sim: Sim<ProfileBuffer<CW, TW>>| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut x = sim.init()?;
        x.reset.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        let mut i = 0;
        let mut idle = 0;
        while idle < drain {
            x.ev_valid.next = false;
            x.sample.next = false;
            let offer = coin(&mut rng) | (pace == Pace::EveryCycle);
            x.out_ready.next = coin(&mut rng);
            match stim.get(i) {
                Some(Stimulus::Event(ev)) => {
                    x.ev_valid.next = offer;
                    x.ev_pc.next = ev.pc.to_bits();
                    x.ev_taken.next = ev.taken;
                    x.ev_index.next = (ev.index & ((1 << INDEX_BITS) - 1)).to_bits();
                }
                Some(Stimulus::Sample) => x.sample.next = offer,
                None => idle += 1,
            }
            x = sim.wait(1, x)?;
            let ready = x.ev_ready.val();
            let advance = match stim.get(i) {
                Some(Stimulus::Event(_)) => x.ev_valid.val() && ready,
                // The strobe counts only when no readout runs (then ev_ready is high).
                Some(Stimulus::Sample) => x.sample.val() && ready,
                None => false,
            };
            if x.out_valid.val() && x.out_ready.val() {
                sink.lock().unwrap().push(ReadoutWord {
                    index: x.out_index.val().index(),
                    tag: x.out_tag.val().to_u64(),
                    taken: x.out_taken.val().to_u64(),
                    not_taken: x.out_not_taken.val().to_u64(),
                });
            }
            wait_clock_cycle!(sim, clock, x);
            if advance {
                i += 1;
            }
        }
        sim.done(x)
    });
    let max_time = 10 * (4 * stimuli.len() as u64 + 64 * cfg.entries as u64 * 8 + 10_000);
    crate::verify::waveform::run(sim, uut, max_time, "profile_buffer")?;
    let w = words.lock().unwrap().clone();
    Ok(w)
}

/// Clocks until `ev_ready` is high (0 if it is now).
fn clocks_until_ready<const CW: usize, const TW: usize>(
    sim: &mut Sim<ProfileBuffer<CW, TW>>,
    mut x: Box<ProfileBuffer<CW, TW>>,
) -> Result<(Box<ProfileBuffer<CW, TW>>, usize), SimError> {
    let mut clocks = 0;
    loop {
        x = sim.wait(1, x)?;
        if x.ev_ready.val() {
            return Ok((x, clocks));
        }
        clocks += 1;
        wait_clock_cycle!(sim, clock, x);
    }
}

fn ready_low_run<const CW: usize, const TW: usize>(
    cfg: &BufferConfig,
    events: usize,
) -> Result<(usize, usize), String> {
    let mut uut = ProfileBuffer::<CW, TW>::new(cfg);
    for s in [&mut uut.reset, &mut uut.ev_valid, &mut uut.ev_taken]
        .into_iter()
        .chain([&mut uut.sample, &mut uut.out_ready])
    {
        s.connect();
    }
    uut.ev_pc.connect();
    uut.ev_index.connect();
    uut.connect_all();
    let counts = Arc::new(Mutex::new((0, 0)));
    let sink = counts.clone();
    let pc_shift = cfg.pc_shift;
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<ProfileBuffer<CW, TW>>| {
        x.clock.next = !x.clock.val()
    });
    sim.add_testbench(move |mut sim: Sim<ProfileBuffer<CW, TW>>| {
        let mut x = sim.init()?;
        x.out_ready.next = true;
        x.reset.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        // Clocks after the reset clock with ev_ready low.
        let (mut x, after_reset) = clocks_until_ready(&mut sim, x)?;
        // Back-to-back events, then the strobe in the next clock: it closes the sample.
        for i in 0..events {
            x.ev_valid.next = true;
            x.ev_pc.next = ((i as u64 * 5) << pc_shift).to_bits();
            x.ev_taken.next = i % 3 != 0;
            wait_clock_cycle!(sim, clock, x);
        }
        x.ev_valid.next = false;
        x.sample.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.sample.next = false;
        let (x, readout) = clocks_until_ready(&mut sim, x)?;
        *sink.lock().unwrap() = (after_reset, readout);
        sim.done(x)
    });
    let max_time = 10 * (64 * cfg.entries as u64 + events as u64 + 1000);
    crate::verify::waveform::run(sim, uut, max_time, "profile_buffer_ready")?;
    let c = *counts.lock().unwrap();
    Ok(c)
}

/// With `out_ready` always high: the clocks `ev_ready` stays low after the reset clock, and after
/// a strobe that follows `events` back-to-back events (the documented back-pressure bounds).
pub fn ready_low_clocks(cfg: &BufferConfig, events: usize) -> Result<(usize, usize), String> {
    with_profile_buffer!(cfg, ready_low_run, events)
}

/// Runs the rust-hdl RTL on `stimuli` with handshakes from `seed` at `pace`; returns every
/// readout word in order. `HWPROF_VCD=DIR` writes the waveform.
pub fn rust_hdl(
    cfg: &BufferConfig,
    stimuli: &[Stimulus],
    seed: u64,
    pace: Pace,
) -> Result<Vec<ReadoutWord>, String> {
    with_profile_buffer!(cfg, rust_hdl_run, stimuli, seed, pace)
}

/// The Icarus testbench: stimulus from `stim.hex` (one 80-bit word per stimulus:
/// bit 76 = strobe, bit 74 = taken, bits 73..64 = index, bits 63..0 = pc), handshakes from a
/// xorshift32 seeded with `seed` (events offered in every cycle at `Pace::EveryCycle`), every
/// accepted readout word printed as `W index tag t nt`.
pub fn icarus_testbench(cfg: &BufferConfig, n: usize, seed: u32, pace: Pace) -> String {
    format!(
        r#"`timescale 1ns/1ps
module tb;
  reg clock = 0;
  reg reset = 1;
  reg ev_valid = 0, ev_taken = 0, sample = 0, out_ready = 0;
  reg [63:0] ev_pc = 0;
  reg [9:0] ev_index = 0;
  wire ev_ready, out_valid, out_last;
  wire [9:0] out_index;
  wire [{tw}:0] out_tag;
  wire [{cw}:0] out_taken, out_not_taken;
  reg [79:0] stim [0:{nm1}];
  reg [31:0] rng = 32'd{seed};
  integer i = 0, idle = 0, advance = 0, offer = 0;
  top dut(.clock(clock), .reset(reset), .ev_valid(ev_valid), .ev_ready(ev_ready), .ev_pc(ev_pc),
.ev_taken(ev_taken), .ev_index(ev_index), .sample(sample), .out_valid(out_valid),
.out_ready(out_ready), .out_index(out_index), .out_tag(out_tag), .out_taken(out_taken),
.out_not_taken(out_not_taken), .out_last(out_last));
  always #5 clock = ~clock;
  task step_rng; begin
rng = rng ^ (rng << 13); rng = rng ^ (rng >> 17); rng = rng ^ (rng << 5);
  end endtask
  initial begin
$readmemh("stim.hex", stim);
@(negedge clock);
reset = 0;
while (idle < {drain}) begin
  ev_valid = 0; sample = 0;
  step_rng; offer = (rng[1:0] != 0) || {every};
  step_rng; out_ready = (rng[1:0] != 0);
  if (i < {n}) begin
    if (stim[i][76]) sample = offer;
    else begin
      ev_valid = offer; ev_taken = stim[i][74]; ev_index = stim[i][73:64]; ev_pc = stim[i][63:0];
    end
  end else idle = idle + 1;
  #1;
  advance = (i < {n}) && ((ev_valid || sample) && ev_ready);
  if (out_valid && out_ready) $display("W %0d %0h %0h %0h", out_index, out_tag, out_taken, out_not_taken);
  @(negedge clock);
  if (advance) i = i + 1;
end
$display("END");
$finish;
  end
endmodule
"#,
        tw = cfg.rtl_tag_width() - 1,
        cw = cfg.counter_bits - 1,
        nm1 = n.max(1) - 1,
        n = n,
        seed = seed.max(1),
        drain = drain_cycles(cfg),
        every = (pace == Pace::EveryCycle) as u8,
    )
}

/// Exports the Verilog, runs it under Icarus on `stimuli`; returns every readout word.
pub fn icarus(
    cfg: &BufferConfig,
    stimuli: &[Stimulus],
    seed: u32,
    pace: Pace,
) -> Result<Vec<ReadoutWord>, String> {
    icarus_on(cfg, stimuli, seed, pace, None)
}

/// As [`icarus`], on the netlist Yosys synthesizes for `family` (with the family's block-RAM
/// primitives, e.g. the ECP5's DP16KD with its output register) under Yosys's cell models.
pub fn icarus_netlist(
    cfg: &BufferConfig,
    stimuli: &[Stimulus],
    seed: u32,
    pace: Pace,
    family: Family,
) -> Result<Vec<ReadoutWord>, String> {
    icarus_on(cfg, stimuli, seed, pace, Some(family))
}

fn icarus_on(
    cfg: &BufferConfig,
    stimuli: &[Stimulus],
    seed: u32,
    pace: Pace,
    netlist: Option<Family>,
) -> Result<Vec<ReadoutWord>, String> {
    let dir = SimDir::new("profile-buffer").map_err(|e| e.to_string())?;
    let design = dir.file("profile_buffer.v");
    let tb = dir.file("tb.v");
    std::fs::write(&design, verilog(cfg)).map_err(|e| e.to_string())?;
    std::fs::write(&tb, icarus_testbench(cfg, stimuli.len(), seed, pace))
        .map_err(|e| e.to_string())?;
    let words = stimuli.iter().map(|s| match s {
        Stimulus::Sample => vec![0, 1 << 12],
        Stimulus::Event(ev) => vec![
            ev.pc,
            ((ev.taken as u64) << 10) | (ev.index & ((1 << INDEX_BITS) - 1)),
        ],
    });
    icarus::write_memh(&dir.file("stim.hex"), 80, words).map_err(|e| e.to_string())?;
    let mut sources = match netlist {
        None => vec![design],
        Some(family) => netlist::synthesize(&design, "top", family, &dir.file("netlist.v"))?,
    };
    sources.push(tb);
    let out = icarus::run(&dir, &sources, "tb").map_err(|e| e.to_string())?;
    if !out.contains("END") {
        return Err(format!("Icarus run did not finish:\n{out}"));
    }
    out.lines()
        .filter_map(|l| l.strip_prefix("W "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|e| format!("{l}: {e}"));
            if f.len() != 4 {
                return Err(format!("bad testbench line {l:?}"));
            }
            Ok(ReadoutWord {
                index: f[0].parse().map_err(|e| format!("{l}: {e}"))?,
                tag: hex(f[1])?,
                taken: hex(f[2])?,
                not_taken: hex(f[3])?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::profile_buffer::{BranchEvent, ProfileBufferModel};
    use hwprof_hdl::ConfigFile;

    fn cfg(text: &str) -> BufferConfig {
        BufferConfig::from_toml_str(text, "test").unwrap()
    }

    /// Random events over a few branches (so entries collide and sets overflow), with strobes;
    /// ends with a strobe so the last sample is read out.
    fn stimuli(n: usize, branches: usize, strobes: bool, seed: u64) -> Vec<Stimulus> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let pcs: Vec<u64> = (0..branches)
            .map(|_| rng.gen::<u64>() & 0xffff_ffff_fff0 | rng.gen_range(0..16))
            .collect();
        let mut s: Vec<Stimulus> = (0..n)
            .map(|_| {
                if strobes && rng.gen_range(0..40) == 0 {
                    Stimulus::Sample
                } else {
                    let b = rng.gen_range(0..branches);
                    Stimulus::Event(BranchEvent {
                        pc: pcs[b],
                        taken: rng.gen_range(0..3) != 0,
                        index: b as u64 * 3,
                    })
                }
            })
            .collect();
        s.push(Stimulus::Sample);
        s
    }

    const COSIM_CONFIGS: [&str; 3] = [
        "entries = 8\nindexing = \"address\"\ncounter_bits = 8\nsample_interval = 37\npc_shift = 1\n",
        "entries = 8\nindexing = \"compiler\"\nsample_interval = 0\n",
        "entries = 8\nindexing = \"set_associative\"\nways = 4\ntag_bits = 8\nsample_interval = 50\n",
    ];

    #[test]
    fn rtl_matches_model_rust_hdl() {
        for (k, text) in COSIM_CONFIGS.iter().enumerate() {
            let c = cfg(text);
            let s = stimuli(300, 12, true, k as u64);
            let want: Vec<ReadoutWord> = ProfileBufferModel::run(&c, &s).concat();
            assert!(want.len() >= 8 * 3, "several readouts");
            assert!(want.iter().any(|w| w.taken > 1 && w.not_taken > 0));
            let got = rust_hdl(&c, &s, 7 + k as u64, Pace::Random).unwrap();
            assert_eq!(got.len(), want.len(), "{text}");
            assert_eq!(got, want, "{text}");
        }
    }

    /// The shortest sampling periods: a sample closes on every event, every second, every third
    /// (the trigger's registered "next event closes" flag at its edges, strobes in between).
    #[test]
    fn rtl_matches_model_on_short_sampling_periods() {
        for (n, outreg) in [1u64, 2, 3]
            .into_iter()
            .flat_map(|n| [(n, false), (n, true)])
        {
            let text = format!(
                "entries = 8\nindexing = \"address\"\nsample_interval = {n}\nram_output_register = {outreg}\n"
            );
            let c = cfg(&text);
            let s = stimuli(90, 12, true, 40 + n);
            let want: Vec<ReadoutWord> = ProfileBufferModel::run(&c, &s).concat();
            assert!(want.len() >= 8 * 20, "a readout every {n} events");
            let got = rust_hdl(&c, &s, 3 + n, Pace::Random).unwrap();
            assert_eq!(got, want, "rust-hdl, {text}");
            let got = icarus(&c, &s, 5 + n as u32, Pace::Random).unwrap();
            assert_eq!(got, want, "Icarus, {text}");
        }
    }

    #[test]
    fn rtl_matches_model_icarus() {
        for (k, text) in COSIM_CONFIGS.iter().enumerate() {
            let c = cfg(text);
            let s = stimuli(2000, 12, true, 100 + k as u64);
            let want: Vec<ReadoutWord> = ProfileBufferModel::run(&c, &s).concat();
            let got = icarus(&c, &s, 11 + k as u32, Pace::Random).unwrap();
            assert_eq!(got.len(), want.len(), "{text}");
            assert_eq!(got, want, "{text}");
        }
        // Saturation through the Verilog: one branch, 300 events, 8-bit counters.
        let c = cfg(COSIM_CONFIGS[1]
            .replace(
                "sample_interval = 0",
                "counter_bits = 8\nsample_interval = 0",
            )
            .as_str());
        let one = BranchEvent {
            pc: 0x40,
            taken: true,
            index: 0,
        };
        let mut s = vec![Stimulus::Event(one); 300];
        s.push(Stimulus::Sample);
        let want = ProfileBufferModel::run(&c, &s).concat();
        assert_eq!(want[0].taken, 255);
        assert_eq!(icarus(&c, &s, 3, Pace::EveryCycle).unwrap(), want);
    }

    /// The documented bounds on `ev_ready` low: `entries` + 1 clocks after reset and `entries`
    /// + 4 at a sampling point; with the output register `entries` + sets and `entries` + sets
    /// + 5 (docs/SPEC.md §10.4).
    #[test]
    fn ready_is_low_for_the_documented_clocks() {
        for text in [
            "entries = 16\nindexing = \"address\"\nsample_interval = 0\n",
            "entries = 16\nindexing = \"set_associative\"\nways = 4\nsample_interval = 0\n",
        ] {
            for outreg in [false, true] {
                let c = cfg(&format!("{text}ram_output_register = {outreg}\n"));
                let (reset, readout) = ready_low_clocks(&c, 6).unwrap();
                let (e, sets) = (c.entries, c.sets());
                let want = match outreg {
                    false => (e + 1, e + 4),
                    true => (e + sets, e + sets + 5),
                };
                assert_eq!((reset, readout), want, "output register {outreg}: {text}");
            }
        }
    }

    /// The exported Verilog as the FPGA holds it: the ECP5 netlist with DP16KD block RAMs read
    /// through their output register (instantiated, not inferred), and the iCE40 netlist, every
    /// mode, back-to-back events (every forwarding distance).
    #[test]
    fn the_netlists_with_the_output_register_match_the_model() {
        for (k, text) in FORWARDING_CONFIGS[3..].iter().enumerate() {
            let c = cfg(text);
            let mut s = forwarding_stream(&c, 300, 5000, 60 + k as u64);
            s.extend(forwarding_stream(&c, 100, 6, 70 + k as u64));
            let want: Vec<ReadoutWord> = ProfileBufferModel::run(&c, &s).concat();
            for family in Family::ALL {
                let got = icarus_netlist(&c, &s, 13 + k as u32, Pace::EveryCycle, family).unwrap();
                assert_eq!(got, want, "{} netlist: {text}", family.name());
            }
        }
    }

    /// Events that revisit the set of the event 1 to 6 before (every forwarding distance, with
    /// the RAMs' output register too, and the first one read from RAM), with several tags per set (hits, misses, evictions)
    /// and both directions; sampling points every ~`gap` events, so readouts interleave with
    /// events in flight.
    fn forwarding_stream(c: &BufferConfig, n: usize, gap: u32, seed: u64) -> Vec<Stimulus> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let sets = (c.sets() as u64).min(2);
        let mut recent: Vec<(u64, u64)> = vec![];
        let mut s = Vec::new();
        for _ in 0..n {
            if rng.gen_range(0..gap) == 0 {
                s.push(Stimulus::Sample);
                continue;
            }
            let d = rng.gen_range(1..=6);
            let set = match recent.len().checked_sub(d) {
                Some(i) if rng.gen_range(0..8) != 0 => recent[i].0,
                _ => rng.gen_range(0..sets),
            };
            // Tag 0 stays resident (and saturates); the others evict each other.
            let tag = match rng.gen_range(0..2) {
                0 => 0,
                _ => rng.gen_range(0..c.ways as u64 + 2),
            };
            recent.push((set, tag));
            let pc =
                (tag << c.tag_shift()) | (set << c.pc_shift) | rng.gen_range(0..1 << c.pc_shift);
            s.push(Stimulus::Event(BranchEvent {
                pc,
                taken: rng.gen_range(0..3) != 0,
                index: set,
            }));
        }
        s.push(Stimulus::Sample);
        s
    }

    /// 8-bit counters (carries out of the low bits, and saturation in the direct modes), every
    /// mode: in the 4-way one tag 0 is mostly resident while the others evict each other, so
    /// hits, misses and LRU updates follow each other at every distance.
    const FORWARDING_CONFIGS: [&str; 6] = [
        "entries = 8\nindexing = \"address\"\ncounter_bits = 8\nsample_interval = 1700\npc_shift = 2\n",
        "entries = 16\nindexing = \"compiler\"\ncounter_bits = 8\nsample_interval = 0\n",
        "entries = 8\nindexing = \"set_associative\"\nways = 4\ntag_bits = 8\ncounter_bits = 8\nsample_interval = 0\n",
        "entries = 8\nindexing = \"address\"\ncounter_bits = 8\nsample_interval = 1700\npc_shift = 2\nram_output_register = true\n",
        "entries = 16\nindexing = \"compiler\"\ncounter_bits = 8\nsample_interval = 0\nram_output_register = true\n",
        "entries = 8\nindexing = \"set_associative\"\nways = 4\ntag_bits = 8\ncounter_bits = 8\nsample_interval = 0\nram_output_register = true\n",
    ];

    #[test]
    fn forwarding_at_every_distance_matches_model() {
        for (k, text) in FORWARDING_CONFIGS.iter().enumerate() {
            let c = cfg(text);
            // Rare sampling points: counters run into saturation; frequent ones: readouts
            // right behind events in the pipeline.
            // The same streams with and without the output register.
            let mut s = forwarding_stream(&c, 2000, 5000, 140 + (k % 3) as u64);
            s.extend(forwarding_stream(&c, 300, 6, 50 + (k % 3) as u64));
            let want: Vec<ReadoutWord> = ProfileBufferModel::run(&c, &s).concat();
            // The 4-way mode evicts tag 0 now and then, before it saturates.
            assert!(
                c.ways > 1 || want.iter().any(|w| w.taken == 255),
                "{text}: saturation reached"
            );
            assert!(
                want.iter().any(|w| w.not_taken >= 16),
                "{text}: low-bit carries"
            );
            let got = rust_hdl(&c, &s, 3 + k as u64, Pace::EveryCycle).unwrap();
            assert_eq!(got, want, "rust-hdl, every cycle: {text}");
            let got = icarus(&c, &s, 5 + k as u32, Pace::EveryCycle).unwrap();
            assert_eq!(got, want, "Icarus, every cycle: {text}");
            let got = icarus(&c, &s, 9 + k as u32, Pace::Random).unwrap();
            assert_eq!(got, want, "Icarus, random pace: {text}");
        }
    }
}
