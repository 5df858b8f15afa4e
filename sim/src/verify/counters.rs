//! Co-simulation of the counter banks (Morris, floating-point, exact) against their models: the
//! rust-hdl description under rust-hdl's simulator, and the exported Verilog under Icarus.
//!
//! A [`Stimulus`] is a list of phases; each phase starts with a one-clock reset, feeds its `inc`
//! words one per clock, then queries every event through the query port in order. The results are
//! the estimates read, phase by phase; the models compute the same list ([`Stimulus::expected`]).
//! Set `HWPROF_VCD=DIR` to get the rust-hdl run's waveform (`crate::verify::waveform`).

use crate::model::counters::exact::ExactBank as ExactModel;
use crate::model::counters::float::FloatBank as FloatModel;
use crate::model::counters::morris::MorrisBank as MorrisModel;
use crate::verify::icarus::{self, IcarusError, SimDir, Simulator};
use hwprof_hdl::counters::bank::{ESTIMATE_BITS, QUERY_INDEX_BITS};
use hwprof_hdl::counters::exact::ExactBank;
use hwprof_hdl::counters::float::{FloatBank, FloatEstimate};
use hwprof_hdl::counters::morris::{GroupMean, MorrisBank};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};

/// The model side of a bank.
pub trait BankModel {
    fn clock(&mut self, inc: u64);
    fn estimate(&self, i: usize) -> u64;
}

impl BankModel for MorrisModel {
    fn clock(&mut self, inc: u64) {
        MorrisModel::clock(self, inc)
    }
    fn estimate(&self, i: usize) -> u64 {
        MorrisModel::estimate(self, i)
    }
}

impl BankModel for FloatModel {
    fn clock(&mut self, inc: u64) {
        FloatModel::clock(self, inc)
    }
    fn estimate(&self, i: usize) -> u64 {
        FloatModel::estimate(self, i)
    }
}

impl BankModel for ExactModel {
    fn clock(&mut self, inc: u64) {
        ExactModel::clock(self, inc)
    }
    fn estimate(&self, i: usize) -> u64 {
        ExactModel::estimate(self, i)
    }
}

/// Phases of increment words (bit i = event i), each after a reset and followed by queries.
#[derive(Clone, Debug)]
pub struct Stimulus {
    pub events: usize,
    pub phases: Vec<Vec<u64>>,
    /// The events queried after each phase, in order (all by default).
    pub queried: Vec<usize>,
}

impl Stimulus {
    /// Random words: event i fires with its own probability in [0.05, 0.95] (so counters reach
    /// different states, some saturate in small configurations).
    pub fn random(events: usize, phase_lengths: &[usize], seed: u64) -> Self {
        assert!((1..=64).contains(&events));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let p: Vec<f64> = (0..events).map(|_| rng.gen_range(0.05..0.95)).collect();
        let phases = phase_lengths
            .iter()
            .map(|&n| {
                (0..n)
                    .map(|_| (0..events).fold(0u64, |w, i| w | (rng.gen_bool(p[i]) as u64) << i))
                    .collect()
            })
            .collect();
        Stimulus {
            events,
            phases,
            queried: (0..events).collect(),
        }
    }

    /// What the query port must return: each phase on a fresh (reset) model.
    pub fn expected<M: BankModel>(&self, mut fresh: impl FnMut() -> M) -> Vec<u64> {
        let mut out = vec![];
        for phase in &self.phases {
            let mut m = fresh();
            for &w in phase {
                m.clock(w);
            }
            out.extend(self.queried.iter().map(|&i| m.estimate(i)));
        }
        out
    }
}

/// A unit under test with one clock.
pub trait Clocked: Block + Send + 'static {
    fn clock_high(&self) -> bool;
    fn toggle_clock(&mut self);
}

/// The ports every bank shares, for one testbench over all of them.
pub trait QueryBank: Clocked {
    fn drive(&mut self, reset: bool, inc: u64, query_valid: bool, query_event: u64);
    fn query_ready(&self) -> bool;
    fn estimate_valid(&self) -> bool;
    fn estimate(&self) -> u64;
}

macro_rules! clocked {
    ($($g:ident),* ; $ty:ty) => {
        impl<$(const $g: usize),*> Clocked for $ty {
            fn clock_high(&self) -> bool {
                self.clock.val().clk
            }
            fn toggle_clock(&mut self) {
                self.clock.next = !self.clock.val();
            }
        }
    };
}
macro_rules! query_bank {
    ($($g:ident),* ; $ty:ty ; $e:ident) => {
        clocked!($($g),* ; $ty);
        impl<$(const $g: usize),*> QueryBank for $ty {
            fn drive(&mut self, reset: bool, inc: u64, query_valid: bool, query_event: u64) {
                self.reset.next = reset;
                self.inc.next = bits::<$e>(inc);
                self.query_valid.next = query_valid;
                self.query_event.next = bits::<QUERY_INDEX_BITS>(query_event);
            }
            fn query_ready(&self) -> bool {
                self.query_ready.val()
            }
            fn estimate_valid(&self) -> bool {
                self.estimate_valid.val()
            }
            fn estimate(&self) -> u64 {
                self.estimate.val().to_u64()
            }
        }
    };
}

query_bank!(E, G, N, B, R; MorrisBank<E, G, N, B, R>; E);
query_bank!(E, B, R; FloatBank<E, B, R>; E);
query_bank!(E; ExactBank<E>; E);

/// Longest a query may take (the Morris divider's latency bounds it).
const QUERY_TIMEOUT: usize = 400;

fn cycle<T: Clocked>(sim: &mut Sim<T>, mut x: Box<T>) -> Result<Box<T>, SimError> {
    if x.clock_high() {
        x = sim.watch(|x| !x.clock_high(), x)?;
        x = sim.watch(|x| x.clock_high(), x)?;
    } else {
        x = sim.watch(|x| x.clock_high(), x)?;
        x = sim.watch(|x| !x.clock_high(), x)?;
    }
    Ok(x)
}

/// Runs `uut` under rust-hdl's simulator with `stim`; returns the estimates read.
pub fn run_rust_hdl<T: QueryBank>(uut: T, stim: &Stimulus) -> Result<Vec<u64>, String> {
    let results = Arc::new(Mutex::new(Vec::new()));
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<T>| x.toggle_clock());
    let (phases, queried, out) = (stim.phases.clone(), stim.queried.clone(), results.clone());
    sim.add_testbench(move |mut sim: Sim<T>| {
        let mut x = sim.init()?;
        for phase in &phases {
            x.drive(true, 0, false, 0);
            x = cycle(&mut sim, x)?;
            for &w in phase {
                x.drive(false, w, false, 0);
                x = cycle(&mut sim, x)?;
            }
            for &i in &queried {
                x.drive(false, 0, true, i as u64);
                let mut waited = 0;
                while !x.query_ready() {
                    x = cycle(&mut sim, x)?;
                    waited += 1;
                    sim_assert!(sim, waited < QUERY_TIMEOUT, x);
                }
                x = cycle(&mut sim, x)?;
                x.drive(false, 0, false, 0);
                while !x.estimate_valid() {
                    x = cycle(&mut sim, x)?;
                    waited += 1;
                    sim_assert!(sim, waited < QUERY_TIMEOUT, x);
                }
                out.lock().unwrap().push(x.estimate());
            }
        }
        sim.done(x)
    });
    let total: usize = stim.phases.iter().map(|p| p.len() + 1).sum::<usize>()
        + stim.phases.len() * stim.queried.len() * QUERY_TIMEOUT;
    let max_time = 10 * (total as u64 + 10);
    crate::verify::waveform::run(sim, uut, max_time, "counter_bank")?;
    let v = results.lock().unwrap().clone();
    Ok(v)
}

/// The Icarus testbench: the same protocol as [`run_rust_hdl`], stimulus from `stim.hex`.
pub fn icarus_testbench(stim: &Stimulus) -> String {
    let e = stim.events;
    let lengths: Vec<String> = stim.phases.iter().map(|p| p.len().to_string()).collect();
    let total: usize = stim.phases.iter().map(|p| p.len()).sum();
    format!(
        r#"`timescale 1ns/1ps
module tb;
  reg clock = 0;
  reg reset = 0;
  reg [{em1}:0] inc = 0;
  reg query_valid = 0;
  reg [{qm1}:0] query_event = 0;
  wire query_ready;
  wire estimate_valid;
  wire [{om1}:0] estimate;
  top dut(.clock(clock), .reset(reset), .inc(inc), .query_valid(query_valid),
          .query_event(query_event), .query_ready(query_ready),
          .estimate_valid(estimate_valid), .estimate(estimate));
  reg [{em1}:0] words [0:{tm1}];
  integer lengths [0:{pm1}];
  integer queried [0:{nqm1}];
  integer p, n, k, base;
  always #5 clock = ~clock;
  initial begin
    $readmemh("stim.hex", words);
    {init_lengths}
    {init_queried}
    base = 0;
    for (p = 0; p < {np}; p = p + 1) begin
      @(negedge clock); reset = 1; inc = 0;
      @(negedge clock); reset = 0;
      for (n = 0; n < lengths[p]; n = n + 1) begin
        inc = words[base + n];
        @(negedge clock);
      end
      inc = 0;
      base = base + lengths[p];
      for (k = 0; k < {nq}; k = k + 1) begin
        query_event = queried[k]; query_valid = 1;
        while (!query_ready) @(negedge clock);
        @(negedge clock); query_valid = 0;
        while (!estimate_valid) @(negedge clock);
        $display("EST %0d", estimate);
      end
    end
    $finish;
  end
endmodule
"#,
        em1 = e - 1,
        qm1 = QUERY_INDEX_BITS - 1,
        om1 = ESTIMATE_BITS - 1,
        tm1 = total.max(1) - 1,
        pm1 = stim.phases.len() - 1,
        np = stim.phases.len(),
        nq = stim.queried.len(),
        nqm1 = stim.queried.len() - 1,
        init_queried = stim
            .queried
            .iter()
            .enumerate()
            .map(|(i, q)| format!("queried[{i}] = {q};"))
            .collect::<Vec<_>>()
            .join(" "),
        init_lengths = lengths
            .iter()
            .enumerate()
            .map(|(i, l)| format!("lengths[{i}] = {l};"))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// Runs the exported Verilog of `uut` under Icarus with `stim`; returns the estimates printed.
pub fn run_icarus<T: Block>(uut: &mut T, stim: &Stimulus) -> Result<Vec<u64>, IcarusError> {
    run_external(Simulator::Icarus, uut, stim)
}

/// The bank's exported Verilog under `simulator`: the estimates it prints.
pub fn run_external<T: Block>(
    simulator: Simulator,
    uut: &mut T,
    stim: &Stimulus,
) -> Result<Vec<u64>, IcarusError> {
    uut.connect_all();
    let verilog = generate_verilog(uut);
    let dir = SimDir::new("counters").map_err(|e| IcarusError(e.to_string()))?;
    let words: Vec<Vec<u64>> = stim.phases.iter().flatten().map(|&w| vec![w]).collect();
    icarus::write_memh(&dir.file("stim.hex"), stim.events, words)
        .map_err(|e| IcarusError(e.to_string()))?;
    std::fs::write(dir.file("top.v"), verilog).map_err(|e| IcarusError(e.to_string()))?;
    std::fs::write(dir.file("tb.v"), icarus_testbench(stim))
        .map_err(|e| IcarusError(e.to_string()))?;
    let (out, _) = icarus::run_with(
        simulator,
        &dir,
        &[dir.file("top.v"), dir.file("tb.v")],
        "tb",
    )?;
    out.lines()
        .filter_map(|l| l.strip_prefix("EST "))
        .map(|v| {
            v.trim()
                .parse()
                .map_err(|e| IcarusError(format!("bad {simulator:?} output {v:?}: {e}")))
        })
        .collect()
}

/// The serial query units ([`GroupMean`], [`FloatEstimate`]): start, run, last, estimate.
pub trait SerialUnit: Clocked {
    /// What the unit takes on `start`.
    type Input: Clone + Send + std::panic::RefUnwindSafe + 'static;
    fn drive(&mut self, start: bool, run: bool, input: &Self::Input);
    fn last(&self) -> bool;
    fn estimate(&self) -> u64;
}

macro_rules! serial_unit_ports {
    () => {
        fn last(&self) -> bool {
            self.last.val()
        }
        fn estimate(&self) -> u64 {
            self.estimate.val().to_u64()
        }
    };
}

clocked!(G, B; GroupMean<G, B>);
clocked!(B; FloatEstimate<B>);

impl<const G: usize, const B: usize> SerialUnit for GroupMean<G, B> {
    type Input = Vec<u32>;
    fn drive(&mut self, start: bool, run: bool, input: &Vec<u32>) {
        self.start.next = start;
        self.run.next = run;
        for (j, x) in input.iter().enumerate() {
            self.x[j].next = bits::<B>(*x as u64);
        }
    }
    serial_unit_ports!();
}

impl<const B: usize> SerialUnit for FloatEstimate<B> {
    type Input = u64;
    fn drive(&mut self, start: bool, run: bool, input: &u64) {
        self.start.next = start;
        self.run.next = run;
        self.x.next = bits::<B>(*input);
    }
    serial_unit_ports!();
}

/// Runs a serial unit under rust-hdl's simulator on each input in turn (start, then `run` until
/// `last`); returns the estimate read the clock after `last`, per input.
pub fn run_serial_unit<T: SerialUnit>(
    uut: T,
    inputs: &[T::Input],
    name: &str,
) -> Result<Vec<u64>, String> {
    let n = inputs.len();
    let inputs = inputs.to_vec();
    let results = Arc::new(Mutex::new(Vec::new()));
    let out = results.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<T>| x.toggle_clock());
    sim.add_testbench(move |mut sim: Sim<T>| {
        let mut x = sim.init()?;
        for input in &inputs {
            x.drive(true, false, input);
            x = cycle(&mut sim, x)?;
            x.drive(false, true, input);
            let mut clocks = 0;
            while !x.last() {
                x = cycle(&mut sim, x)?;
                clocks += 1;
                sim_assert!(sim, clocks < QUERY_TIMEOUT, x);
            }
            x = cycle(&mut sim, x)?;
            x.drive(false, false, input);
            out.lock().unwrap().push(x.estimate());
        }
        sim.done(x)
    });
    crate::verify::waveform::run(sim, uut, 10 * (n as u64 + 1) * QUERY_TIMEOUT as u64, name)?;
    let v = results.lock().unwrap().clone();
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::counters::float::FloatParams;
    use hwprof_hdl::counters::lfsr::ZeroCount;
    use hwprof_hdl::counters::morris::{group_estimate, Decrement, MorrisParams};

    /// Small enough for rust-hdl's simulator, yet counters saturate (one register, 18 fresh bits
    /// per clock for 3 members of 6 bits).
    fn small_morris() -> MorrisParams {
        MorrisParams {
            bits: 3,
            group: 3,
            events: 4,
            seed: 11,
        }
    }

    fn small_float() -> FloatParams {
        FloatParams {
            bits: 6,
            mantissa: 3,
            events: 3,
            seed: 12,
        }
    }

    /// Cases that reach what the banks' co-simulations cannot: X = 63, full groups, saturated f.
    fn mean_cases<const G: usize, const B: usize>(seed: u64) -> Vec<Vec<u32>> {
        let top = (1u32 << B) - 1;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut cases = vec![vec![0; G], vec![top; G], vec![1; G]];
        cases.extend((0..12).map(|_| (0..G).map(|_| rng.gen_range(0..=top)).collect::<Vec<_>>()));
        cases
    }

    fn check_group_mean<const G: usize, const B: usize>(seed: u64) {
        let p = MorrisParams {
            bits: B,
            group: G,
            events: 1,
            seed: 0,
        };
        let cases = mean_cases::<G, B>(seed);
        let want: Vec<u64> = cases.iter().map(|c| group_estimate(c)).collect();
        let uut = GroupMean::<G, B>::new(&p).unwrap();
        assert_eq!(run_serial_unit(uut, &cases, "group_mean").unwrap(), want);
    }

    #[test]
    fn group_mean_matches_model() {
        check_group_mean::<5, 6>(1);
        check_group_mean::<1, 6>(2);
        check_group_mean::<3, 3>(3);
        check_group_mean::<64, 6>(4);
    }

    fn check_float_estimate<const B: usize>(mantissa: usize, seed: u64) {
        let p = FloatParams {
            bits: B,
            mantissa,
            events: 1,
            seed: 0,
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let top = p.max_state() | ((1 << mantissa) - 1);
        let mut cases: Vec<u64> = vec![0, 1, (1 << mantissa) - 1, 1 << mantissa, top];
        cases.extend((0..16).map(|_| rng.gen_range(0..=top)));
        let want: Vec<u64> = cases.iter().map(|&x| p.estimate(x)).collect();
        assert!(want.contains(&u64::MAX), "no saturated case: {cases:?}");
        let uut = FloatEstimate::<B>::new(&p).unwrap();
        assert_eq!(
            run_serial_unit(uut, &cases, "float_estimate").unwrap(),
            want
        );
    }

    #[test]
    fn float_estimate_matches_model() {
        check_float_estimate::<9>(3, 5);
        check_float_estimate::<30>(24, 6);
        check_float_estimate::<7>(1, 7);
    }

    #[test]
    fn morris_rust_hdl_matches_model() {
        let p = small_morris();
        let stim = Stimulus::random(4, &[800, 120], 1);
        let want = stim.expected(|| MorrisModel::new(p).unwrap());
        for decrement in [Decrement::Toggles, Decrement::CarryChain] {
            for zero_count in [ZeroCount::PriorityChain, ZeroCount::BorrowChain] {
                let uut = MorrisBank::<4, 3, 12, 3, 1>::new(&p, decrement, zero_count).unwrap();
                let got = run_rust_hdl(uut, &stim).unwrap();
                assert_eq!(got, want, "{decrement:?} {zero_count:?}");
            }
        }
        assert!(
            want.iter().any(|&v| v == 127),
            "some group saturated: {want:?}"
        );
    }

    #[test]
    fn float_rust_hdl_matches_model() {
        let p = small_float();
        let stim = Stimulus::random(3, &[300, 120], 2);
        let want = stim.expected(|| FloatModel::new(p).unwrap());
        for zero_count in [ZeroCount::PriorityChain, ZeroCount::BorrowChain] {
            let uut = FloatBank::<3, 6, 1>::new(&p, zero_count).unwrap();
            assert_eq!(run_rust_hdl(uut, &stim).unwrap(), want, "{zero_count:?}");
        }
        assert!(want.iter().any(|&v| v > 8), "exponent left 0: {want:?}");
    }

    #[test]
    fn exact_rust_hdl_matches_model() {
        let stim = Stimulus::random(3, &[100, 50], 3);
        let want = stim.expected(|| ExactModel::new(3));
        let got = run_rust_hdl(ExactBank::<3>::new().unwrap(), &stim).unwrap();
        assert_eq!(got, want);
    }

    /// The documented answer to an event index ≥ E: zero counters, estimate 0.
    #[test]
    fn queries_beyond_the_bank_read_zero() {
        fn check<T: QueryBank, M: BankModel>(uut: T, model: impl FnMut() -> M, events: usize) {
            let mut stim = Stimulus::random(events, &[200], 9);
            stim.queried = vec![1];
            let mut want = stim.expected(model);
            assert_ne!(want[0], 0, "event 1 counted nothing");
            stim.queried = vec![1, events, 200];
            want.extend([0, 0]);
            assert_eq!(run_rust_hdl(uut, &stim).unwrap(), want);
        }
        let p = small_morris();
        let bank =
            MorrisBank::<4, 3, 12, 3, 1>::new(&p, Decrement::Toggles, ZeroCount::PriorityChain)
                .unwrap();
        check(bank, || MorrisModel::new(p).unwrap(), 4);
        let p = small_float();
        check(
            FloatBank::<3, 6, 1>::new(&p, ZeroCount::BorrowChain).unwrap(),
            || FloatModel::new(p).unwrap(),
            3,
        );
        check(ExactBank::<3>::new().unwrap(), || ExactModel::new(3), 3);
    }

    #[test]
    fn small_banks_icarus_match_models() {
        let stim = Stimulus::random(4, &[300, 120], 4);
        let p = small_morris();
        let want = stim.expected(|| MorrisModel::new(p).unwrap());
        // The ECP5 mappings: the Verilog of the borrow chain and the registers one clock ahead.
        let mut uut =
            MorrisBank::<4, 3, 12, 3, 1>::new(&p, Decrement::CarryChain, ZeroCount::BorrowChain)
                .unwrap();
        assert_eq!(run_icarus(&mut uut, &stim).unwrap(), want);

        let stim = Stimulus::random(3, &[300, 120], 5);
        let p = small_float();
        let want = stim.expected(|| FloatModel::new(p).unwrap());
        let mut uut = FloatBank::<3, 6, 1>::new(&p, ZeroCount::PriorityChain).unwrap();
        assert_eq!(run_icarus(&mut uut, &stim).unwrap(), want);
    }

    #[test]
    fn paper_banks_verilator_match_models() {
        hwprof_hdl::util::on_rtl_thread(paper_banks).unwrap();
    }

    fn paper_banks() {
        // Icarus needs minutes per clock for the 145-counter bank (its 127-bit pool feeds every
        // counter's `always @(*)`): these run as Verilator binaries.
        let mut stim = Stimulus::random(29, &[1500, 200], 6);
        stim.queried = vec![0, 13, 27, 28];
        let p = MorrisParams::paper(29, 21);
        let want = stim.expected(|| MorrisModel::new(p).unwrap());
        let mut uut =
            MorrisBank::<29, 5, 145, 6, 3>::new(&p, Decrement::Toggles, ZeroCount::BorrowChain)
                .unwrap();
        assert_eq!(
            run_external(Simulator::Verilator, &mut uut, &stim).unwrap(),
            want
        );

        let p = FloatParams::thirty_bit(29, 22);
        let want = stim.expected(|| FloatModel::new(p).unwrap());
        let mut uut = FloatBank::<29, 30, 1>::new(&p, ZeroCount::PriorityChain).unwrap();
        assert_eq!(
            run_external(Simulator::Verilator, &mut uut, &stim).unwrap(),
            want
        );

        let want = stim.expected(|| ExactModel::new(29));
        let mut uut = ExactBank::<29>::new().unwrap();
        assert_eq!(
            run_external(Simulator::Verilator, &mut uut, &stim).unwrap(),
            want
        );
    }
}
