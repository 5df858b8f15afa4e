//! Model of `hwprof_hdl::board::report_format::ReportFormat`: the text the board tops send over the UART
//! for a profiler report stream, and the parser a host uses to read it back.

use crate::model::multihash::{IntervalReport, ReportEntry};
use hwprof_hdl::board::report_format::{key_digits, WORD_DIGITS};
use std::fmt::Write as _;

/// One word of the profiler's report stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportWord {
    pub interval: u32,
    pub a: u64,
    pub b: u64,
    pub count: u32,
    pub last: bool,
}

/// The report stream of model reports: one word per entry, `last` on the final one, an empty
/// report as one word with count 0 (the profiler RTL's convention). Intervals wrap at 2^32.
pub fn words(reports: &[IntervalReport]) -> Vec<ReportWord> {
    let mut w = Vec::new();
    for r in reports {
        let interval = r.interval as u32;
        if r.entries.is_empty() {
            w.push(ReportWord {
                interval,
                a: 0,
                b: 0,
                count: 0,
                last: true,
            });
        }
        for (i, e) in r.entries.iter().enumerate() {
            w.push(ReportWord {
                interval,
                a: e.a,
                b: e.b,
                count: e.count as u32,
                last: i + 1 == r.entries.len(),
            });
        }
    }
    w
}

fn hex(v: u64, digits: u64) -> String {
    let digits = digits as usize;
    let s = format!("{v:016x}");
    s[16 - digits..].to_string()
}

/// The text of a word stream (see the line format in `hwprof_hdl::board::report_format`).
pub fn format(words: &[ReportWord], a_bits: u32, b_bits: u32) -> String {
    let mut s = String::new();
    for w in words {
        let iv = hex(w.interval as u64, WORD_DIGITS);
        if !(w.last && w.count == 0) {
            let _ = write!(
                s,
                "{iv} {} {} {}\r\n",
                hex(w.a, key_digits(a_bits)),
                hex(w.b, key_digits(b_bits)),
                hex(w.count as u64, WORD_DIGITS)
            );
        }
        if w.last {
            let _ = write!(s, "{iv} end\r\n");
        }
    }
    s
}

/// Reads the text back into interval reports (what a host does with the terminal output). The
/// text must start at a line boundary; a malformed line is an error naming it.
pub fn parse(text: &str) -> Result<Vec<IntervalReport>, String> {
    let mut out = Vec::new();
    let mut cur: Vec<ReportEntry> = Vec::new();
    for (n, line) in text.split_terminator("\r\n").enumerate() {
        let bad = || format!("report line {}: malformed: {line:?}", n + 1);
        let f: Vec<&str> = line.split(' ').collect();
        let num = |s: &str| u64::from_str_radix(s, 16).map_err(|_| bad());
        match f.as_slice() {
            [iv, "end"] => out.push(IntervalReport {
                interval: num(iv)?,
                entries: std::mem::take(&mut cur),
            }),
            [_, a, b, c] => cur.push(ReportEntry {
                a: num(a)?,
                b: num(b)?,
                count: num(c)?,
            }),
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::icarus;
    use hwprof_hdl::board::report_format::ReportFormat;
    use rust_hdl::prelude::*;
    use std::sync::{Arc, Mutex};

    fn sample_words() -> Vec<ReportWord> {
        let w = |interval, a, b, count, last| ReportWord {
            interval,
            a,
            b,
            count,
            last,
        };
        vec![
            w(0x2a, 0x0040_1000, 0x7fee_0000, 0xb3c, false),
            w(0x2a, 0xffff_ffff_ffff, 0x1, 0x39a, true),
            w(0x2b, 0, 0, 0, true),
            w(
                0xdead_beef,
                0x1234_5678_9abc,
                0xfedc_ba98_7654,
                0xffff_ffff,
                true,
            ),
        ]
    }

    #[test]
    fn format_and_parse_round_trip() {
        let text = format(&sample_words(), 48, 48);
        assert!(
            text.starts_with("0000002a 000000401000 00007fee0000 00000b3c\r\n"),
            "{text}"
        );
        assert!(text.contains("0000002b end\r\n"));
        let reports = parse(&text).unwrap();
        assert_eq!(reports.len(), 3);
        assert_eq!(reports[1].entries, vec![]);
        assert_eq!(reports[2].entries[0].count, 0xffff_ffff);
        assert_eq!(words(&reports[..2]).len(), 3);
        assert!(parse("0000002a zz\r\n").unwrap_err().contains("line 1"));
    }

    /// Runs the formatter on `words` with a consumer that is ready 2 cycles in 3; the text out.
    fn rust_hdl_run(words: &[ReportWord], a_bits: u32, b_bits: u32) -> String {
        let out = Arc::new(Mutex::new(Vec::new()));
        let mut uut = ReportFormat::new(a_bits, b_bits).unwrap();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<ReportFormat>| x.clock.next = !x.clock.val());
        let (ws, o2) = (words.to_vec(), out.clone());
        let cycles = 40 * (words.len() as u64 + 2) * 3 / 2;
        sim.add_testbench(move |mut sim: Sim<ReportFormat>| {
            let mut x = sim.init()?;
            x.reset.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.reset.next = false;
            let mut next = 0;
            for c in 0..cycles {
                // Inputs for this cycle, then outputs sampled before the edge.
                let w = ws.get(next);
                x.in_valid.next = w.is_some() && c % 5 != 1;
                if let Some(w) = w {
                    x.in_interval.next = (w.interval as u64).to_bits();
                    x.in_a.next = w.a.to_bits();
                    x.in_b.next = w.b.to_bits();
                    x.in_count.next = (w.count as u64).to_bits();
                    x.in_last.next = w.last;
                }
                x.out_ready.next = c % 3 != 2;
                x = sim.wait(1, x)?; // settle combinational outputs
                if x.in_valid.val() && x.in_ready.val() {
                    next += 1;
                }
                if x.out_valid.val() && x.out_ready.val() {
                    o2.lock().unwrap().push(x.out_data.val().index() as u8);
                }
                wait_clock_cycle!(sim, clock, x);
            }
            sim.done(x)
        });
        let total = (cycles + 2) * 10 + 10;
        crate::verify::waveform::run(sim, uut, total, "report_format").unwrap();
        let bytes = out.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn rust_hdl_cosim_matches_model() {
        let ws = sample_words();
        for (ab, bb) in [(48, 48), (32, 13)] {
            let masked: Vec<ReportWord> = ws
                .iter()
                .map(|w| ReportWord {
                    a: w.a & ((1u64 << ab) - 1),
                    b: w.b & ((1u64 << bb) - 1),
                    ..*w
                })
                .collect();
            assert_eq!(
                rust_hdl_run(&masked, ab, bb),
                format(&masked, ab, bb),
                "{ab}/{bb}"
            );
        }
    }

    #[test]
    fn icarus_cross_simulation_matches_model() {
        if let Err(e) = icarus::available() {
            panic!("{e}");
        }
        let ws = sample_words();
        let dir = icarus::SimDir::new("repfmt").unwrap();
        std::fs::write(
            dir.file("dut.v"),
            hwprof_hdl::board::report_format::verilog(48, 48).unwrap(),
        )
        .unwrap();
        // One 193-bit stimulus word per report word: {last, count, b, a, interval}... packed as
        // interval(32) a(64) b(64) count(32) last(1), least significant first.
        icarus::write_memh(
            &dir.file("words.hex"),
            193,
            ws.iter().map(|w| {
                let mut bits = vec![0u64; 4];
                let mut put = |at: usize, v: u64, n: usize| {
                    for i in 0..n {
                        if (v >> i) & 1 == 1 {
                            bits[(at + i) / 64] |= 1 << ((at + i) % 64);
                        }
                    }
                };
                put(0, w.interval as u64, 32);
                put(32, w.a, 64);
                put(96, w.b, 64);
                put(160, w.count as u64, 32);
                put(192, w.last as u64, 1);
                bits
            }),
        )
        .unwrap();
        let n = ws.len();
        let tb = format!(
            "module tb;\n reg clock = 0; reg reset = 1; reg in_valid = 0; reg out_ready = 0;\n\
             reg [192:0] words [0:{last}]; reg [192:0] w; integer i, c;\n\
             wire in_ready, out_valid; wire [7:0] out_data;\n\
             top dut(.clock(clock), .reset(reset), .in_valid(in_valid), .in_ready(in_ready),\n\
               .in_interval(w[31:0]), .in_a(w[95:32]), .in_b(w[159:96]), .in_count(w[191:160]),\n\
               .in_last(w[192]), .out_valid(out_valid), .out_ready(out_ready), .out_data(out_data));\n\
             initial begin\n $readmemh(\"words.hex\", words);\n i = 0; w = words[0];\n\
             #1 clock = 1; #1 clock = 0; reset = 0;\n\
             for (c = 0; c < {cycles}; c = c + 1) begin\n\
               in_valid = (i < {n}) && (c % 5 != 1); w = words[i]; out_ready = (c % 4 != 3); #1;\n\
               if (out_valid && out_ready) $display(\"o %h\", out_data);\n\
               if (in_valid && in_ready) i = i + 1;\n\
               clock = 1; #1; clock = 0;\n\
             end\n $finish;\n end\nendmodule\n",
            last = n - 1,
            cycles = 100 * n
        );
        std::fs::write(dir.file("tb.v"), tb).unwrap();
        let out = icarus::run(&dir, &[dir.file("dut.v"), dir.file("tb.v")], "tb").unwrap();
        let bytes: Vec<u8> = out
            .lines()
            .filter_map(|l| l.strip_prefix("o "))
            .map(|h| u8::from_str_radix(h, 16).unwrap())
            .collect();
        assert_eq!(String::from_utf8(bytes).unwrap(), format(&ws, 48, 48));
    }
}
