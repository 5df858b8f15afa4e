//! Synthesis targets: the FPGA devices, their nextpnr options and their capacities (datasheet
//! figures: Lattice iCE40 UltraPlus / LP-HX family data sheets, ECP5 family data sheet).

use hwprof_hdl::board::clock::Pll;
use hwprof_hdl::board::event_source::DEFAULT_SEED;
use hwprof_hdl::board::top::{BoardParams, BAUD};
use hwprof_hdl::board::uart::clocks_per_bit;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Ice40,
    Ecp5,
}

/// What a device holds. iCE40 logic cells each have one LUT4 and one flip-flop; ECP5 slices have
/// two LUT4s and two flip-flops, so both are counted in LUT4s / flip-flops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Capacity {
    /// iCE40 logic cells, ECP5 LUT4s.
    pub cells: u64,
    pub ffs: u64,
    /// iCE40 SB_RAM40_4K (4 kbit), ECP5 DP16KD (18 kbit).
    pub brams: u64,
    /// iCE40 SB_MAC16, ECP5 MULT18X18D.
    pub dsps: u64,
}

/// In the order of [`hwprof_hdl::config::TARGETS`], which holds their names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Ice40Up5k,
    Ice40Hx8k,
    Ecp5_25k,
    Ecp5_85k,
}

impl Serialize for Target {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Target {
    pub const ALL: [Target; 4] = [
        Target::Ice40Up5k,
        Target::Ice40Hx8k,
        Target::Ecp5_25k,
        Target::Ecp5_85k,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        hwprof_hdl::config::TARGETS[self as usize]
    }

    pub fn parse(s: &str) -> Result<Target, String> {
        Target::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Target::ALL.iter().map(|t| t.name()).collect();
                format!("unknown target {s:?}: expected one of {}", names.join(", "))
            })
    }

    /// The project's Fmax goal on the target, MHz: the default clock constraint of nextpnr.
    pub fn goal_mhz(self) -> f64 {
        match self {
            Target::Ice40Up5k => 40.0,
            Target::Ice40Hx8k => 100.0,
            Target::Ecp5_25k | Target::Ecp5_85k => 150.0,
        }
    }

    pub fn family(self) -> Family {
        match self {
            Target::Ice40Up5k | Target::Ice40Hx8k => Family::Ice40,
            Target::Ecp5_25k | Target::Ecp5_85k => Family::Ecp5,
        }
    }

    /// Device and package, as Lattice names them.
    pub fn device(self) -> &'static str {
        match self {
            Target::Ice40Up5k => "iCE40UP5K-SG48",
            Target::Ice40Hx8k => "iCE40HX8K-CT256",
            Target::Ecp5_25k => "LFE5U-25F-CABGA381",
            Target::Ecp5_85k => "LFE5U-85F-CABGA381",
        }
    }

    /// nextpnr's device and package options.
    pub fn nextpnr_args(self) -> [&'static str; 3] {
        match self {
            Target::Ice40Up5k => ["--up5k", "--package", "sg48"],
            Target::Ice40Hx8k => ["--hx8k", "--package", "ct256"],
            Target::Ecp5_25k => ["--25k", "--package", "CABGA381"],
            Target::Ecp5_85k => ["--85k", "--package", "CABGA381"],
        }
    }

    pub fn capacity(self) -> Capacity {
        match self {
            Target::Ice40Up5k => Capacity {
                cells: 5280,
                ffs: 5280,
                brams: 30,
                dsps: 8,
            },
            Target::Ice40Hx8k => Capacity {
                cells: 7680,
                ffs: 7680,
                brams: 32,
                dsps: 0,
            },
            Target::Ecp5_25k => Capacity {
                cells: 24288,
                ffs: 24288,
                brams: 56,
                dsps: 28,
            },
            Target::Ecp5_85k => Capacity {
                cells: 83640,
                ffs: 83640,
                brams: 208,
                dsps: 156,
            },
        }
    }

    /// The Yosys command that reads the design ([`crate::verify::netlist::Family::read_verilog`]).
    pub fn yosys_read_verilog(self) -> String {
        use crate::verify::netlist;
        match self.family() {
            Family::Ice40 => netlist::Family::Ice40,
            Family::Ecp5 => netlist::Family::Ecp5,
        }
        .read_verilog()
    }

    /// The Yosys synthesis command for the family.
    pub fn yosys_synth(self) -> &'static str {
        match self.family() {
            Family::Ice40 => "synth_ice40",
            Family::Ecp5 => "synth_ecp5",
        }
    }
}

/// A board: a target device, its constraint file in `constraints/`, and its clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Board {
    /// 1BitSquared iCEBreaker: iCE40UP5K-SG48, 12 MHz oscillator, FTDI UART on pins 6 (RX) / 9 (TX).
    Icebreaker,
    /// Radiona ULX3S: LFE5U-85F-CABGA381, 25 MHz oscillator, FTDI UART on L4 (TX) / M1 (RX).
    Ulx3s,
}

impl Board {
    pub const ALL: [Board; 2] = [Board::Icebreaker, Board::Ulx3s];

    pub fn name(self) -> &'static str {
        match self {
            Board::Icebreaker => "icebreaker",
            Board::Ulx3s => "ulx3s",
        }
    }

    pub fn parse(s: &str) -> Result<Board, String> {
        Board::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| format!("unknown board {s:?}: expected icebreaker or ulx3s"))
    }

    pub fn target(self) -> Target {
        match self {
            Board::Icebreaker => Target::Ice40Up5k,
            Board::Ulx3s => Target::Ecp5_85k,
        }
    }

    /// The board oscillator, on the `clk` pin.
    pub fn oscillator_hz(self) -> u64 {
        match self {
            Board::Icebreaker => 12_000_000,
            Board::Ulx3s => 25_000_000,
        }
    }

    /// The clock `configs/board-<name>.toml` closes timing at (docs/RESULTS.md), made by the PLL.
    pub fn default_clock_hz(self) -> u64 {
        match self {
            Board::Icebreaker => 30_000_000,
            Board::Ulx3s => 100_000_000,
        }
    }

    /// The board top's parameters at `clock_hz`: the PLL that makes it from the oscillator (none
    /// when it is the oscillator), the UART at [`BAUD`] baud, the event source's default seed.
    pub fn params(self, clock_hz: u64) -> Result<BoardParams, String> {
        let osc = self.oscillator_hz();
        let pll = match (clock_hz == osc, self.target().family()) {
            (true, _) => Pll::Bypass,
            (false, Family::Ice40) => Pll::ice40(osc, clock_hz)?,
            (false, Family::Ecp5) => Pll::ecp5(osc, clock_hz)?,
        };
        Ok(BoardParams {
            oscillator_hz: osc,
            clock_hz: pll.out_hz(osc),
            pll,
            clocks_per_bit: clocks_per_bit(pll.out_hz(osc), BAUD)?,
            seed: DEFAULT_SEED,
        })
    }

    /// The constraint file, relative to the project root.
    pub fn constraints(self) -> &'static str {
        match self {
            Board::Icebreaker => "constraints/icebreaker.pcf",
            Board::Ulx3s => "constraints/ulx3s.lpf",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_names_are_rejected() {
        for t in Target::ALL {
            assert_eq!(Target::parse(t.name()), Ok(t));
        }
        let names: Vec<_> = Target::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(names, hwprof_hdl::config::TARGETS, "every target, once");
        assert_eq!(
            serde_json::to_string(&Target::Ecp5_25k).unwrap(),
            "\"ecp5-25k\""
        );
        for b in Board::ALL {
            assert_eq!(Board::parse(b.name()), Ok(b));
        }
        assert!(Target::parse("ice40-lp1k")
            .unwrap_err()
            .contains("ice40-up5k"));
        assert!(Board::parse("arty").is_err());
    }

    #[test]
    fn board_clocks_come_from_the_pll_and_the_oscillator_bypasses_it() {
        for b in Board::ALL {
            let p = b.params(b.default_clock_hz()).unwrap();
            assert_eq!(p.clock_hz, b.default_clock_hz());
            assert_ne!(p.pll, Pll::Bypass);
            assert_eq!(p.clocks_per_bit, clocks_per_bit(p.clock_hz, BAUD).unwrap());
            let o = b.params(b.oscillator_hz()).unwrap();
            assert_eq!((o.pll, o.clock_hz), (Pll::Bypass, b.oscillator_hz()));
        }
        assert!(Board::Icebreaker
            .params(25_000_000)
            .unwrap_err()
            .contains("25.125"));
    }
}
