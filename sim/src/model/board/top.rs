//! Model of `hwprof_hdl::board::top`: the text the board sends is the report format of the model's
//! reports on the event source's stream. The test runs the board top's Verilog under Icarus,
//! decodes its UART line, and compares.

use crate::model::board::event_source::EventSourceModel;
use crate::model::board::report_format::{format, words};
use crate::model::multihash::{IntervalReport, MultiHash};
use hwprof_hdl::ProfilerConfig;

/// The first `intervals` reports of the board running `cfg` with the event source `seed`.
pub fn reports(
    cfg: &ProfilerConfig,
    seed: u32,
    intervals: u64,
) -> Result<Vec<IntervalReport>, String> {
    let n = cfg
        .interval
        .checked_mul(intervals)
        .filter(|&n| n <= 1 << 32)
        .ok_or("board model: too many events")?;
    let mut m = MultiHash::new(cfg)?;
    Ok(m.run(&EventSourceModel::events(seed, n as usize)))
}

/// The UART text of those reports.
pub fn text(cfg: &ProfilerConfig, seed: u32, intervals: u64) -> Result<String, String> {
    Ok(format(
        &words(&reports(cfg, seed, intervals)?),
        cfg.a_bits,
        cfg.b_bits,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::report_format::parse;
    use crate::model::board::uart::decode_prefix;
    use crate::verify::icarus;
    use hwprof_hdl::board::clock::Pll;
    use hwprof_hdl::board::event_source::DEFAULT_SEED;
    use hwprof_hdl::board::top::{verilog, BoardParams};
    use hwprof_hdl::config::Organisation;
    use hwprof_hdl::ConfigFile;

    /// A board configuration small enough for a quick simulation (shape 4 x 16, A = 8).
    fn small() -> ProfilerConfig {
        ProfilerConfig::from_toml_str(
            "interval = 64\nthreshold = 4\ntables = 4\nentries = 16\na_bits = 32\nb_bits = 32\n\
             [accumulator]\nentries = 8\n",
            "board-test",
        )
        .unwrap()
    }

    #[test]
    fn board_presets_have_an_rtl_shape_and_32_bit_keys() {
        for name in ["board-icebreaker", "board-ulx3s"] {
            let path = format!("{}/../configs/{name}.toml", env!("CARGO_MANIFEST_DIR"));
            let cfg = ProfilerConfig::load(std::path::Path::new(&path)).unwrap();
            hwprof_hdl::multihash::widths::rtl_shape(&cfg).unwrap();
            assert!(cfg.a_bits <= 32 && cfg.b_bits <= 32, "{name}");
        }
        let mut wide = small();
        wide.a_bits = 48;
        let p = BoardParams::without_pll(12_000_000, 104, DEFAULT_SEED);
        assert!(verilog(&wide, &p).unwrap_err().contains("a_bits"));
    }

    #[test]
    fn icarus_board_top_uart_decodes_to_model_reports() {
        uart_text_is_the_model_s(&small(), Pll::Bypass, "board");
    }

    /// The block-RAM profiler's board top, with the iCEBreaker's PLL (passed through outside
    /// synthesis): its reports list sets in retirement order, so entries are compared as sets.
    #[test]
    fn icarus_bram_board_top_with_a_pll_uart_decodes_to_model_reports() {
        let cfg = ProfilerConfig::from_toml_str(
            "interval = 64\nthreshold = 4\ntables = 4\nentries = 16\na_bits = 32\nb_bits = 32\n\
             [accumulator]\nentries = 8\norganisation = \"set_associative\"\nways = 2\n",
            "board-test",
        )
        .unwrap();
        let pll = Pll::ice40(12_000_000, 30_000_000).unwrap();
        let v = verilog(&cfg, &BoardParams::without_pll(12_000_000, 2, DEFAULT_SEED)).unwrap();
        assert!(!v.contains("SB_PLL40_PAD"));
        uart_text_is_the_model_s(&cfg, pll, "board-bram");
    }

    fn uart_text_is_the_model_s(cfg: &ProfilerConfig, pll: Pll, name: &str) {
        if let Err(e) = icarus::available() {
            panic!("{e}");
        }
        let cpb = 2;
        let p = BoardParams {
            pll,
            ..BoardParams::without_pll(12_000_000, cpb, DEFAULT_SEED)
        };
        let dir = icarus::SimDir::new(name).unwrap();
        let v = verilog(cfg, &p).unwrap();
        assert_eq!(v.contains("`ifdef SYNTHESIS"), pll != Pll::Bypass);
        std::fs::write(dir.file("dut.v"), v).unwrap();
        let cycles = 20_000;
        // Print the line at every change, with its cycle.
        let tb = format!(
            "module tb;\n reg clk = 0; reg btn_n = 1; wire uart_tx, led; integer c; reg last = 1;\n\
             top dut(.clk(clk), .btn_n(btn_n), .uart_tx(uart_tx), .led(led));\n\
             initial begin\n\
             for (c = 0; c < {cycles}; c = c + 1) begin\n\
               #1; if (uart_tx !== last) begin $display(\"t %0d %b\", c, uart_tx); last = uart_tx; end\n\
               clk = 1; #1 clk = 0;\n\
             end\n $display(\"end %0d\", c);\n $finish;\n end\nendmodule\n"
        );
        std::fs::write(dir.file("tb.v"), tb).unwrap();
        let out = icarus::run(&dir, &[dir.file("dut.v"), dir.file("tb.v")], "tb").unwrap();
        let mut line = vec![true; cycles];
        let mut level = true;
        let mut at = 0;
        for l in out.lines().filter_map(|l| l.strip_prefix("t ")) {
            let (c, v) = l.split_once(' ').unwrap();
            let c: usize = c.parse().unwrap();
            line[at..c].fill(level);
            level = v == "1";
            at = c;
        }
        line[at..].fill(level);
        // Before the first reset tx is low (flip-flops at 0): start from the first high sample.
        let start = line.iter().position(|&b| b).unwrap();
        // The simulation may end inside a frame.
        let (bytes, _) = decode_prefix(&line[start..], cpb).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let complete = &text[..text.rfind("\r\n").map_or(0, |i| i + 2)];
        let mut got = parse(complete).unwrap();
        assert!(got.len() >= 2, "at least two intervals reported:\n{text}");
        let mut expect = reports(cfg, DEFAULT_SEED, got.len() as u64).unwrap();
        if cfg.accumulator.organisation == Organisation::SetAssociative {
            for r in got.iter_mut().chain(expect.iter_mut()) {
                r.entries.sort_by_key(|e| (e.a, e.b, e.count));
            }
        }
        assert_eq!(got, expect);
        assert!(
            got.iter().any(|r| !r.entries.is_empty()),
            "something reported"
        );
    }
}
