//! The board clock: the oscillator, multiplied by the FPGA's PLL to the clock the profiler closes
//! timing at.
//!
//! [`Pll`] holds the divider settings of one PLL, found by [`Pll::ice40`] (SB_PLL40_PAD, simple
//! feedback) or [`Pll::ecp5`] (EHXPLLL, CLKOP feedback) from the oscillator and the wanted clock, with
//! the searches and the legal ranges of icestorm's `icepll` and prjtrellis's `ecppll` (the same
//! dividers for the requests the tests compare; the iCE40 search takes only integer PFDs).
//! [`BoardClock`] instantiates it.
//!
//! **Simulation.** The PLL is a vendor primitive: the Verilog instantiates it only under
//! `SYNTHESIS` (defined by Yosys, not by Icarus or Verilator), and elsewhere passes the oscillator
//! through with `locked` high — as does the rust-hdl simulation. Everything behind the clock is
//! the same design; only its frequency differs.

use rust_hdl::prelude::*;

/// The dividers of one PLL, or none (the oscillator clocks the design directly).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pll {
    /// No PLL.
    Bypass,
    /// iCE40 SB_PLL40_PAD: F_out = F_in · (DIVF + 1) / ((DIVR + 1) · 2^DIVQ).
    Ice40 {
        divr: u8,
        divf: u8,
        divq: u8,
        filter_range: u8,
    },
    /// ECP5 EHXPLLL: F_out = F_in · CLKFB_DIV / CLKI_DIV, VCO = F_out · CLKOP_DIV.
    Ecp5 {
        clki_div: u8,
        clkfb_div: u8,
        clkop_div: u8,
    },
}

/// How far from the wanted clock a PLL may land (icepll and ecppll pick the nearest; a board needs
/// the clock it was timed at).
pub const TOLERANCE_HZ: u64 = 100_000;

impl Pll {
    /// The SB_PLL40_PAD settings nearest `out_hz` from an `in_hz` oscillator, as `icepll` finds
    /// them: PFD 10–133 MHz, VCO 533–1066 MHz, output 16–275 MHz.
    pub fn ice40(in_hz: u64, out_hz: u64) -> Result<Pll, String> {
        let mut best: Option<(u64, Pll)> = None;
        for divr in 0..=15u64 {
            let pfd = in_hz / (divr + 1);
            if !(10_000_000..=133_000_000).contains(&pfd) || in_hz % (divr + 1) != 0 {
                continue;
            }
            for divf in 0..=127u64 {
                let vco = pfd * (divf + 1);
                if !(533_000_000..=1_066_000_000).contains(&vco) {
                    continue;
                }
                for divq in 1..=6u64 {
                    let f = vco >> divq;
                    if vco % (1 << divq) != 0 || !(16_000_000..=275_000_000).contains(&f) {
                        continue;
                    }
                    let err = f.abs_diff(out_hz);
                    if best.map_or(true, |(e, _)| err < e) {
                        let filter_range = match pfd {
                            ..=16_999_999 => 1,
                            ..=25_999_999 => 2,
                            ..=43_999_999 => 3,
                            ..=65_999_999 => 4,
                            ..=100_999_999 => 5,
                            _ => 6,
                        };
                        let p = Pll::Ice40 {
                            divr: divr as u8,
                            divf: divf as u8,
                            divq: divq as u8,
                            filter_range,
                        };
                        best = Some((err, p));
                    }
                }
            }
        }
        Self::checked(best, in_hz, out_hz, "iCE40 PLL")
    }

    /// The EHXPLLL settings nearest `out_hz` from an `in_hz` oscillator, as `ecppll` finds them:
    /// PFD 3.125–400 MHz, VCO 400–800 MHz, ties broken towards a 600 MHz VCO.
    pub fn ecp5(in_hz: u64, out_hz: u64) -> Result<Pll, String> {
        let mut best: Option<(u64, u64, Pll)> = None;
        for clki in 1..=128u64 {
            if in_hz % clki != 0 {
                continue;
            }
            let pfd = in_hz / clki;
            if !(3_125_000..=400_000_000).contains(&pfd) {
                continue;
            }
            for clkfb in 1..=80u64 {
                let f = pfd * clkfb;
                for clkop in 1..=128u64 {
                    let vco = f * clkop;
                    if !(400_000_000..=800_000_000).contains(&vco) {
                        continue;
                    }
                    let key = (f.abs_diff(out_hz), vco.abs_diff(600_000_000));
                    if best.map_or(true, |(e, v, _)| key < (e, v)) {
                        let p = Pll::Ecp5 {
                            clki_div: clki as u8,
                            clkfb_div: clkfb as u8,
                            clkop_div: clkop as u8,
                        };
                        best = Some((key.0, key.1, p));
                    }
                }
            }
        }
        Self::checked(best.map(|(e, _, p)| (e, p)), in_hz, out_hz, "ECP5 PLL")
    }

    fn checked(
        best: Option<(u64, Pll)>,
        in_hz: u64,
        out_hz: u64,
        what: &str,
    ) -> Result<Pll, String> {
        match best {
            Some((err, p)) if err <= TOLERANCE_HZ => Ok(p),
            Some((_, p)) => Err(format!(
                "{what}: no setting makes {} MHz from {} MHz (nearest {} MHz)",
                out_hz as f64 / 1e6,
                in_hz as f64 / 1e6,
                p.out_hz(in_hz) as f64 / 1e6
            )),
            None => Err(format!(
                "{what}: no legal setting from a {} MHz oscillator",
                in_hz as f64 / 1e6
            )),
        }
    }

    /// The clock this PLL makes from `in_hz`.
    pub fn out_hz(&self, in_hz: u64) -> u64 {
        match *self {
            Pll::Bypass => in_hz,
            Pll::Ice40 {
                divr, divf, divq, ..
            } => in_hz * (divf as u64 + 1) / (divr as u64 + 1) >> divq,
            Pll::Ecp5 {
                clki_div,
                clkfb_div,
                ..
            } => in_hz * clkfb_div as u64 / clki_div as u64,
        }
    }

    /// The instance, in the `clock` / `locked` / `osc` names of [`BoardClock`].
    fn instance(&self, in_hz: u64) -> String {
        self.instance_on(in_hz, "osc", "clock", "locked")
    }

    /// The instance: the oscillator's pin `osc` in, `clock` and `locked` out.
    fn instance_on(&self, in_hz: u64, osc: &str, clock: &str, locked: &str) -> String {
        match *self {
            Pll::Bypass => String::new(),
            Pll::Ice40 {
                divr,
                divf,
                divq,
                filter_range,
            } => format!(
                "SB_PLL40_PAD #(.FEEDBACK_PATH(\"SIMPLE\"), .DIVR(4'd{divr}), .DIVF(7'd{divf}), \
                 .DIVQ(3'd{divq}), .FILTER_RANGE(3'd{filter_range})) pll (.PACKAGEPIN({osc}), \
                 .PLLOUTGLOBAL({clock}), .LOCK({locked}), .RESETB(1'b1), .BYPASS(1'b0));"
            ),
            Pll::Ecp5 {
                clki_div,
                clkfb_div,
                clkop_div,
            } => format!(
                "(* FREQUENCY_PIN_CLKI=\"{fin}\" *) (* FREQUENCY_PIN_CLKOP=\"{fout}\" *)\n\
                 EHXPLLL #(.PLLRST_ENA(\"DISABLED\"), .INTFB_WAKE(\"DISABLED\"), \
                 .STDBY_ENABLE(\"DISABLED\"), .DPHASE_SOURCE(\"DISABLED\"), \
                 .CLKI_DIV({clki_div}), .CLKFB_DIV({clkfb_div}), .CLKOP_ENABLE(\"ENABLED\"), \
                 .CLKOP_DIV({clkop_div}), .CLKOP_CPHASE({cphase}), .CLKOP_FPHASE(0), \
                 .FEEDBK_PATH(\"CLKOP\")) pll (.RST(1'b0), .STDBY(1'b0), .CLKI({osc}), \
                 .CLKOP({clock}), .CLKFB({clock}), .PHASESEL0(1'b0), .PHASESEL1(1'b0), \
                 .PHASEDIR(1'b1), .PHASESTEP(1'b1), .PHASELOADREG(1'b1), .PLLWAKESYNC(1'b0), \
                 .ENCLKOP(1'b0), .LOCK({locked}));",
                fin = mhz(in_hz),
                fout = mhz(self.out_hz(in_hz)),
                cphase = (clkop_div - 1) / 2,
            ),
        }
    }
}

/// A PLL making a second clock beside the oscillator's, for a design with two clock domains:
/// Verilog (under `SYNTHESIS`; elsewhere both clocks are the oscillator and `locked` is high)
/// taking the oscillator pin `osc` and driving `osc_clock` (the oscillator's clock, for the logic
/// it still clocks), `clock` (the PLL's) and `locked`. On the iCE40 the PLL's pad feeds the PLL
/// alone, so SB_PLL40_2_PAD passes the oscillator through on its port A; on the ECP5 the
/// oscillator's pin drives its logic directly.
pub fn beside_oscillator(
    pll: Pll,
    in_hz: u64,
    osc: &str,
    osc_clock: &str,
    clock: &str,
    locked: &str,
) -> Result<String, String> {
    let instance = match pll {
        Pll::Bypass => return Err("a second clock needs a PLL".into()),
        Pll::Ice40 {
            divr,
            divf,
            divq,
            filter_range,
        } => format!(
            "  SB_PLL40_2_PAD #(.FEEDBACK_PATH(\"SIMPLE\"), .DIVR(4'd{divr}), .DIVF(7'd{divf}),\n    \
             .DIVQ(3'd{divq}), .FILTER_RANGE(3'd{filter_range}), .PLLOUT_SELECT_PORTB(\"GENCLK\"))\n    \
             pll (.PACKAGEPIN({osc}), .PLLOUTGLOBALA({osc_clock}), .PLLOUTGLOBALB({clock}),\n    \
             .LOCK({locked}), .RESETB(1'b1), .BYPASS(1'b0));\n"
        ),
        Pll::Ecp5 { .. } => format!(
            "  assign {osc_clock} = {osc};\n  {}\n",
            pll.instance_on(in_hz, osc, clock, locked)
        ),
    };
    Ok(format!(
        "`ifdef SYNTHESIS\n{instance}`else\n  assign {osc_clock} = {osc};\n  assign {clock} = {osc};\n  \
         assign {locked} = 1'b1;\n`endif\n"
    ))
}

/// A frequency as the PLL attributes write it (MHz, no trailing zeros).
fn mhz(hz: u64) -> String {
    let s = format!("{:.6}", hz as f64 / 1e6);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The clock of a board top: `osc` in, `clock` and `locked` out.
#[derive(LogicBlock)]
pub struct BoardClock {
    /// The oscillator pin.
    pub osc: Signal<In, Clock>,
    /// The design's clock.
    pub clock: Signal<Out, Clock>,
    /// High once the PLL has locked (always, without one); the design is held in reset before.
    pub locked: Signal<Out, Bit>,
    _pll: Pll,
    _in_hz: u64,
}

impl BoardClock {
    /// The clock made by `pll` from an `in_hz` oscillator.
    pub fn new(pll: Pll, in_hz: u64) -> Self {
        BoardClock {
            osc: Default::default(),
            clock: Default::default(),
            locked: Default::default(),
            _pll: pll,
            _in_hz: in_hz,
        }
    }
}

impl Logic for BoardClock {
    fn update(&mut self) {
        self.clock.next = self.osc.val();
        self.locked.next = true;
    }

    fn connect(&mut self) {
        self.clock.connect();
        self.locked.connect();
    }

    fn hdl(&self) -> Verilog {
        let bypass = "assign clock = osc;\nassign locked = 1'b1;";
        let code = match self._pll {
            Pll::Bypass => bypass.to_string(),
            p => format!(
                "`ifdef SYNTHESIS\n{}\n`else\n{bypass}\n`endif",
                p.instance(self._in_hz)
            ),
        };
        Verilog::Wrapper(Wrapper {
            code,
            cores: String::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ice40_settings_are_icepll_s() {
        // `icepll -i 12 -o 30` and `-o 36`: DIVR 0, DIVF 79 / 47, DIVQ 5 / 4, FILTER_RANGE 1.
        assert_eq!(
            Pll::ice40(12_000_000, 30_000_000),
            Ok(Pll::Ice40 {
                divr: 0,
                divf: 79,
                divq: 5,
                filter_range: 1
            })
        );
        let p = Pll::ice40(12_000_000, 36_000_000).unwrap();
        assert_eq!(p.out_hz(12_000_000), 36_000_000);
        assert!(matches!(
            p,
            Pll::Ice40 {
                divf: 47,
                divq: 4,
                ..
            }
        ));
        // 25 MHz is 25.125 MHz at best (icepll's "achieved"): refused.
        assert!(Pll::ice40(12_000_000, 25_000_000)
            .unwrap_err()
            .contains("25.125"));
    }

    #[test]
    fn ecp5_settings_are_ecppll_s() {
        // `ecppll -i 25 -o 100` / `-o 75`: CLKI_DIV 1, CLKFB_DIV 4 / 3, CLKOP_DIV 6 / 8.
        for (f, fb, op) in [(100, 4, 6), (75, 3, 8), (125, 5, 5)] {
            assert_eq!(
                Pll::ecp5(25_000_000, f * 1_000_000),
                Ok(Pll::Ecp5 {
                    clki_div: 1,
                    clkfb_div: fb,
                    clkop_div: op
                }),
                "{f} MHz"
            );
        }
        assert!(Pll::ecp5(25_000_000, 1_000_000_000).is_err());
    }

    #[test]
    fn the_pll_is_instantiated_for_synthesis_only() {
        let mut c = BoardClock::new(Pll::ice40(12_000_000, 30_000_000).unwrap(), 12_000_000);
        c.osc.connect();
        c.connect_all();
        let v = generate_verilog(&c);
        let at = |x: &str| v.find(x).unwrap_or_else(|| panic!("{x} missing:\n{v}"));
        assert!(at("`ifdef SYNTHESIS") < at("SB_PLL40_PAD #("));
        assert!(at("SB_PLL40_PAD #(") < at("`else") && at("`else") < at("assign clock = osc;"));
        assert!(v.contains(".DIVF(7'd79)"), "{v}");
        let mut c = BoardClock::new(Pll::Bypass, 12_000_000);
        c.osc.connect();
        c.connect_all();
        assert!(!generate_verilog(&c).contains("SYNTHESIS"));
    }
}
