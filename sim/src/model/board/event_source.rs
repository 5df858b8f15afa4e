//! Model of `hwprof_hdl::board::event_source::EventSource`: the same xorshift32 state and tuple mapping
//! (one definition, in `hwprof_hdl::board::event_source`), cycle-exact with `valid` and `ready`.

use crate::model::Tuple;
use hwprof_hdl::board::event_source::{next_state, tuple_of};

/// The source's state; outputs depend on the state only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSourceModel {
    seed: u32,
    state: u32,
    running: bool,
}

impl EventSourceModel {
    /// At power-on, before reset (all flip-flops 0).
    pub fn new(seed: u32) -> Self {
        EventSourceModel {
            seed,
            state: 0,
            running: false,
        }
    }

    pub fn valid(&self) -> bool {
        self.running
    }

    /// The tuple on the outputs (meaningful when `valid`).
    pub fn tuple(&self) -> (u32, u32) {
        tuple_of(self.state)
    }

    /// One clock edge.
    pub fn step(&mut self, reset: bool, ready: bool) {
        if reset {
            self.state = self.seed;
            self.running = false;
        } else {
            if self.running && ready {
                self.state = next_state(self.state);
            }
            self.running = true;
        }
    }

    /// The first `n` events a consumer that is always ready sees after reset.
    pub fn events(seed: u32, n: usize) -> Vec<Tuple> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                let (a, b) = tuple_of(s);
                s = next_state(s);
                (a as u64, b as u64)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::icarus;
    use hwprof_hdl::board::event_source::{EventSource, DEFAULT_SEED};
    use rust_hdl::prelude::*;
    use std::sync::{Arc, Mutex};

    type Out = (bool, u32, u32);

    /// Per cycle (reset, ready): reset for two cycles, then a random ready.
    fn stimulus(cycles: usize) -> Vec<(bool, bool)> {
        let mut g = hwprof_hdl::hash::SplitMix64(3);
        (0..cycles)
            .map(|c| (c < 2 || c == 100, g.next_u64() % 3 != 0))
            .collect()
    }

    fn model_run(stim: &[(bool, bool)]) -> Vec<Out> {
        let mut m = EventSourceModel::new(DEFAULT_SEED);
        stim.iter()
            .map(|&(reset, ready)| {
                let (a, b) = m.tuple();
                let o = (m.valid(), a, b);
                m.step(reset, ready);
                o
            })
            .collect()
    }

    #[test]
    fn rust_hdl_cosim_matches_model() {
        let stim = stimulus(300);
        let expect = model_run(&stim);
        let got = Arc::new(Mutex::new(Vec::new()));
        let mut uut = EventSource::new(DEFAULT_SEED).unwrap();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<EventSource>| x.clock.next = !x.clock.val());
        let (st, g2) = (stim.clone(), got.clone());
        sim.add_testbench(move |mut sim: Sim<EventSource>| {
            let mut x = sim.init()?;
            for &(reset, ready) in &st {
                g2.lock().unwrap().push((
                    x.valid.val(),
                    x.a.val().index() as u32,
                    x.b.val().index() as u32,
                ));
                x.reset.next = reset;
                x.ready.next = ready;
                wait_clock_cycle!(sim, clock, x);
            }
            sim.done(x)
        });
        let cycles = stim.len() as u64 * 10 + 20;
        crate::verify::waveform::run(sim, uut, cycles, "event_source").unwrap();
        let got = got.lock().unwrap().clone();
        for (c, (g, e)) in got.iter().zip(&expect).enumerate() {
            // Before the first reset the outputs of an all-zero state are compared too.
            assert_eq!(g, e, "cycle {c}: (valid, a, b)");
        }
        assert_eq!(got.len(), expect.len());
    }

    #[test]
    fn events_helper_is_the_always_ready_stream() {
        let stim: Vec<(bool, bool)> = (0..50).map(|c| (c < 2, true)).collect();
        let seen: Vec<Tuple> = model_run(&stim)
            .into_iter()
            .filter(|o| o.0)
            .map(|(_, a, b)| (a as u64, b as u64))
            .collect();
        assert_eq!(seen, EventSourceModel::events(DEFAULT_SEED, seen.len()));
    }

    #[test]
    fn icarus_cross_simulation_matches_model() {
        if let Err(e) = icarus::available() {
            panic!("{e}");
        }
        let stim = stimulus(400);
        let expect = model_run(&stim);
        let dir = icarus::SimDir::new("evsrc").unwrap();
        std::fs::write(
            dir.file("dut.v"),
            hwprof_hdl::board::event_source::verilog(DEFAULT_SEED).unwrap(),
        )
        .unwrap();
        icarus::write_memh(
            &dir.file("stim.hex"),
            2,
            stim.iter()
                .map(|&(r, y)| vec![((r as u64) << 1) | y as u64]),
        )
        .unwrap();
        let tb = format!(
            "module tb;\n reg clock = 0; reg reset = 0; reg ready = 0; wire valid; wire [31:0] a, b;\n\
             reg [1:0] stim [0:{last}]; integer i;\n\
             top dut(.clock(clock), .reset(reset), .ready(ready), .valid(valid), .a(a), .b(b));\n\
             initial begin\n $readmemh(\"stim.hex\", stim);\n\
             for (i = 0; i < {n}; i = i + 1) begin\n\
             {{reset, ready}} = stim[i]; #1; $display(\"o %b %h %h\", valid, a, b); clock = 1; #1; clock = 0;\n\
             end\n $finish;\n end\nendmodule\n",
            last = stim.len() - 1,
            n = stim.len()
        );
        std::fs::write(dir.file("tb.v"), tb).unwrap();
        let out = icarus::run(&dir, &[dir.file("dut.v"), dir.file("tb.v")], "tb").unwrap();
        let got: Vec<Out> = out
            .lines()
            .filter_map(|l| l.strip_prefix("o "))
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                (
                    f[0] == "1",
                    u32::from_str_radix(f[1], 16).unwrap(),
                    u32::from_str_radix(f[2], 16).unwrap(),
                )
            })
            .collect();
        assert_eq!(got, expect);
    }
}
