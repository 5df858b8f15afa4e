//! Cycle-exact model of `hwprof_hdl::board::uart::UartTx`, and a decoder of an 8N1 line sampled once per
//! clock (what a terminal does to the board's output), used to read the board tops' reports.

use hwprof_hdl::board::uart::FRAME_BITS;

/// The transmitter's state; outputs depend on the state only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UartTxModel {
    period: u64,
    shift: u16,
    bits_left: u8,
    tick: u64,
}

impl UartTxModel {
    /// At power-on, before reset (every flip-flop 0, so `tx` is low until the first reset).
    pub fn new(clocks_per_bit: u64) -> Self {
        UartTxModel {
            period: clocks_per_bit,
            shift: 0,
            bits_left: 0,
            tick: 0,
        }
    }

    pub fn ready(&self) -> bool {
        self.bits_left == 0
    }

    pub fn tx(&self) -> bool {
        self.shift & 1 == 1
    }

    /// One clock edge with these inputs.
    pub fn step(&mut self, reset: bool, valid: bool, data: u8) {
        if reset {
            *self = UartTxModel {
                period: self.period,
                shift: 0x3ff,
                bits_left: 0,
                tick: 0,
            };
        } else if self.bits_left == 0 {
            if valid {
                self.shift = ((data as u16) << 1) | 0x200;
                self.bits_left = FRAME_BITS as u8;
                self.tick = self.period - 1;
            }
        } else if self.tick == 0 {
            self.shift = (self.shift >> 1) | 0x200;
            self.bits_left -= 1;
            self.tick = self.period - 1;
        } else {
            self.tick -= 1;
        }
    }
}

/// Decodes an 8N1 line sampled every clock: each frame starts at a falling edge of the idle line
/// and every bit is read in the middle of its period. A stop bit that is not high is an error
/// naming the sample; a frame cut off by the end of the samples is an error too.
pub fn decode(line: &[bool], clocks_per_bit: u64) -> Result<Vec<u8>, String> {
    match decode_prefix(line, clocks_per_bit)? {
        (out, None) => Ok(out),
        (_, Some(i)) => Err(format!(
            "UART frame starting at sample {i} is cut off by the end of the line"
        )),
    }
}

/// [`decode`] of a line that may end inside a frame (a capture stopped at any time): the bytes of
/// the complete frames, and where the cut-off frame starts, if there is one.
pub fn decode_prefix(
    line: &[bool],
    clocks_per_bit: u64,
) -> Result<(Vec<u8>, Option<usize>), String> {
    let cpb = clocks_per_bit as usize;
    let mut out = Vec::new();
    let mut i = 1;
    while i < line.len() {
        if line[i - 1] && !line[i] {
            let at = |bit: usize| i + bit * cpb + cpb / 2;
            if at(9) >= line.len() {
                return Ok((out, Some(i)));
            }
            if line[at(0)] {
                // a glitch, not a start bit
                i += 1;
                continue;
            }
            let byte = (0..8).fold(0u8, |b, k| b | ((line[at(k + 1)] as u8) << k));
            if !line[at(9)] {
                return Err(format!(
                    "UART framing error: no stop bit at sample {} (frame from sample {i})",
                    at(9)
                ));
            }
            out.push(byte);
            i = at(9);
        } else {
            i += 1;
        }
    }
    Ok((out, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::icarus;
    use hwprof_hdl::board::uart::UartTx;
    use rust_hdl::prelude::*;
    use std::sync::{Arc, Mutex};

    /// Per cycle: (reset, valid, data).
    fn stimulus(cycles: usize, seed: u64) -> Vec<(bool, bool, u8)> {
        let mut g = hwprof_hdl::hash::SplitMix64(seed);
        (0..cycles)
            .map(|c| {
                let r = g.next_u64();
                (
                    c < 2 || c == 150,
                    r & 3 != 0 && c + 60 < cycles,
                    (r >> 8) as u8,
                )
            })
            .collect()
    }

    /// The model's (ready, tx) before each clock edge, and the bytes it took.
    fn model_run(stim: &[(bool, bool, u8)], cpb: u64) -> (Vec<(bool, bool)>, Vec<(usize, u8)>) {
        let mut m = UartTxModel::new(cpb);
        let mut outs = Vec::new();
        let mut taken = Vec::new();
        for (c, &(reset, valid, data)) in stim.iter().enumerate() {
            outs.push((m.ready(), m.tx()));
            if !reset && valid && m.ready() {
                taken.push((c, data));
            }
            m.step(reset, valid, data);
        }
        (outs, taken)
    }

    #[test]
    fn rust_hdl_cosim_matches_model_and_decodes() {
        let cpb = 3;
        let stim = stimulus(400, 5);
        let (expect, taken) = model_run(&stim, cpb);
        let got = Arc::new(Mutex::new(Vec::new()));
        let mut uut = UartTx::new(cpb).unwrap();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<UartTx>| x.clock.next = !x.clock.val());
        let (st, g2) = (stim.clone(), got.clone());
        sim.add_testbench(move |mut sim: Sim<UartTx>| {
            let mut x = sim.init()?;
            for &(reset, valid, data) in &st {
                g2.lock().unwrap().push((x.ready.val(), x.tx.val()));
                x.reset.next = reset;
                x.valid.next = valid;
                x.data.next = (data as u64).to_bits();
                wait_clock_cycle!(sim, clock, x);
            }
            sim.done(x)
        });
        let cycles = stim.len() as u64 * 10 + 20;
        crate::verify::waveform::run(sim, uut, cycles, "uart_tx").unwrap();
        let got = got.lock().unwrap().clone();
        assert_eq!(got.len(), expect.len());
        for (c, (g, e)) in got.iter().zip(&expect).enumerate() {
            assert_eq!(g, e, "cycle {c}: (ready, tx)");
        }
        // After the reset at cycle 150 the line decodes to exactly the bytes taken since.
        let line: Vec<bool> = got.iter().map(|&(_, tx)| tx).collect();
        let sent: Vec<u8> = taken
            .iter()
            .filter(|(c, _)| *c > 150)
            .map(|&(_, d)| d)
            .collect();
        assert!(sent.len() > 3, "stimulus sends bytes");
        assert_eq!(decode(&line[151..], cpb).unwrap(), sent);
    }

    #[test]
    fn decode_model_line_round_trip_and_errors() {
        let cpb = 5;
        let bytes = b"hwprof 0 1a2b 3c4d 7\r\n";
        let mut m = UartTxModel::new(cpb);
        m.step(true, false, 0);
        let mut line = vec![];
        let mut next = 0;
        while next < bytes.len() || !m.ready() {
            line.push(m.tx());
            let valid = next < bytes.len();
            let take = valid && m.ready();
            m.step(false, valid, *bytes.get(next).unwrap_or(&0));
            next += take as usize;
        }
        line.extend([true; 8]);
        assert_eq!(decode(&line, cpb).unwrap(), bytes);
        // Corrupt the first stop bit: a framing error naming the sample.
        let mut bad = line.clone();
        let start = bad.iter().position(|b| !b).unwrap();
        for s in &mut bad[start + 9 * 5..start + 10 * 5] {
            *s = false;
        }
        assert!(decode(&bad, cpb).unwrap_err().contains("framing"));
        assert!(decode(&line[..line.len() / 2], cpb)
            .unwrap_err()
            .contains("cut off"));
    }

    #[test]
    fn icarus_cross_simulation_matches_model() {
        if let Err(e) = icarus::available() {
            panic!("{e}");
        }
        let cpb = 4;
        let stim = stimulus(300, 9);
        let (expect, _) = model_run(&stim, cpb);
        let dir = icarus::SimDir::new("uart").unwrap();
        std::fs::write(
            dir.file("dut.v"),
            hwprof_hdl::board::uart::verilog(cpb).unwrap(),
        )
        .unwrap();
        icarus::write_memh(
            &dir.file("stim.hex"),
            10,
            stim.iter()
                .map(|&(r, v, d)| vec![((r as u64) << 9) | ((v as u64) << 8) | d as u64]),
        )
        .unwrap();
        std::fs::write(dir.file("tb.v"), testbench(stim.len())).unwrap();
        let out = icarus::run(&dir, &[dir.file("dut.v"), dir.file("tb.v")], "tb").unwrap();
        let got: Vec<(bool, bool)> = out
            .lines()
            .filter_map(|l| l.strip_prefix("o "))
            .map(|l| (l.as_bytes()[0] == b'1', l.as_bytes()[1] == b'1'))
            .collect();
        assert_eq!(got, expect);
    }

    /// Drives `top` from stim.hex ({reset, valid, data} per cycle), prints `o <ready><tx>` before
    /// each rising edge.
    fn testbench(cycles: usize) -> String {
        format!(
            "module tb;\n reg clock = 0; reg reset = 0; reg valid = 0; reg [7:0] data = 0;\n\
             wire ready, tx; reg [9:0] stim [0:{last}]; integer i;\n\
             top dut(.clock(clock), .reset(reset), .data(data), .valid(valid), .ready(ready), .tx(tx));\n\
             initial begin\n $readmemh(\"stim.hex\", stim);\n\
             for (i = 0; i < {cycles}; i = i + 1) begin\n\
             {{reset, valid, data}} = stim[i]; #1; $display(\"o %b%b\", ready, tx); clock = 1; #1; clock = 0;\n\
             end\n $finish;\n end\nendmodule\n",
            last = cycles - 1
        )
    }
}
