//! Board top: something to flash and read with a terminal. The on-chip event source feeds the
//! multi-hash profiler — [`MultiHashProfiler`] or, for a set-associative accumulator,
//! [`BramProfiler`]; every interval's report goes out over the UART (115200 8N1) in the line
//! format of [`crate::board::report_format`]. Ports are the pin names of `constraints/icebreaker.pcf`
//! and `constraints/ulx3s.lpf`:
//! - `clk`: the board oscillator (12 MHz iCEBreaker, 25 MHz ULX3S), multiplied by the FPGA's PLL
//!   to [`BoardParams::clock_hz`] ([`BoardClock`]; no PLL when that is the oscillator);
//! - `btn_n`: a button, active low: resets the profiler (and restarts the event stream);
//! - `uart_tx`: to the host; `led`: toggles after every interval's report.
//!
//! Reset: a 4-bit power-on counter holds reset for 15 cycles after the PLL has locked (its lock
//! flag and the button are synchronised through two flip-flops each); the blocks take it from one
//! more flip-flop. The event stream is the same
//! whatever the UART's pace (the profiler back-pressures the source), so the reports are exactly
//! the model's reports of
//! `hwprof_sim::model::board::event_source::EventSourceModel::events(seed, ..)`.

use crate::board::clock::{BoardClock, Pll};
use crate::board::event_source::EventSource;
use crate::board::report_format::ReportFormat;
use crate::board::uart::UartTx;
use crate::config::{Organisation, ProfilerConfig};
use crate::multihash::bram_profiler::BramProfiler;
use crate::multihash::interval::INTERVAL_COUNT_BITS;
use crate::multihash::profiler::MultiHashProfiler;
use crate::multihash::threshold::THRESHOLD_BITS;
use crate::multihash::widths::rtl_shape;
use crate::multihash::{with_class, ClassVisitor};
use rust_hdl::prelude::*;

/// The event source's tuples are 32-bit: a board configuration must not ask for wider keys.
pub const SOURCE_BITS: u32 = 32;
/// The UART's baud rate.
pub const BAUD: u64 = 115_200;

/// Board-level parameters beside the profiler configuration.
#[derive(Debug, Clone, Copy)]
pub struct BoardParams {
    /// The oscillator on the `clk` pin.
    pub oscillator_hz: u64,
    /// The clock the design runs at: what `pll` makes of the oscillator.
    pub clock_hz: u64,
    pub pll: Pll,
    /// Clocks per UART bit; normally `uart::clocks_per_bit(clock_hz, BAUD)`, smaller in tests.
    pub clocks_per_bit: u64,
    pub seed: u32,
}

impl BoardParams {
    /// The oscillator clocking the design directly (simulation, or a design that closes there).
    pub fn without_pll(oscillator_hz: u64, clocks_per_bit: u64, seed: u32) -> Self {
        BoardParams {
            oscillator_hz,
            clock_hz: oscillator_hz,
            pll: Pll::Bypass,
            clocks_per_bit,
            seed,
        }
    }
}

fn check(cfg: &ProfilerConfig) -> Result<(), String> {
    if cfg.a_bits > SOURCE_BITS || cfg.b_bits > SOURCE_BITS {
        return Err(format!(
            "board top: the on-chip event source makes {SOURCE_BITS}-bit tuples; set a_bits and b_bits to at most {SOURCE_BITS} (got {} and {})",
            cfg.a_bits, cfg.b_bits
        ));
    }
    Ok(())
}

/// One board top per profiler top: the same wiring around `$profiler`.
macro_rules! board_top {
    ($(#[$m:meta])* $name:ident, $profiler:ident) => {
        $(#[$m])*
        #[derive(LogicBlock)]
        pub struct $name<const CB: usize> {
            pub clk: Signal<In, Clock>,
            pub btn_n: Signal<In, Bit>,
            pub uart_tx: Signal<Out, Bit>,
            pub led: Signal<Out, Bit>,
            pll: BoardClock,
            source: EventSource,
            profiler: $profiler<CB>,
            format: ReportFormat,
            uart: UartTx,
            /// Power-on reset counter (counts to 15 once the PLL is locked, then stays).
            por: DFF<Bits<4>>,
            lock_sync: DFF<Bits<2>>,
            btn_sync: DFF<Bits<2>>,
            led_q: DFF<Bit>,
            /// The blocks' reset, from a flip-flop: its fan-out is the whole design.
            reset_q: DFF<Bit>,
            clock: Signal<Local, Clock>,
            /// L and T: the board's settings are fixed.
            length: Constant<Bits<INTERVAL_COUNT_BITS>>,
            threshold: Constant<Bits<THRESHOLD_BITS>>,
        }

        impl<const CB: usize> $name<CB> {
            pub fn new(cfg: &ProfilerConfig, p: &BoardParams) -> Result<Self, String> {
                check(cfg)?;
                Ok($name {
                    clk: Default::default(),
                    btn_n: Default::default(),
                    uart_tx: Default::default(),
                    led: Default::default(),
                    pll: BoardClock::new(p.pll, p.oscillator_hz),
                    source: EventSource::new(p.seed)?,
                    profiler: $profiler::new(cfg),
                    format: ReportFormat::new(cfg.a_bits, cfg.b_bits)?,
                    uart: UartTx::new(p.clocks_per_bit)?,
                    por: Default::default(),
                    lock_sync: Default::default(),
                    btn_sync: Default::default(),
                    led_q: Default::default(),
                    reset_q: Default::default(),
                    clock: Default::default(),
                    length: Constant::new(cfg.interval.into()),
                    threshold: Constant::new(cfg.threshold.into()),
                })
            }
        }

        impl<const CB: usize> Logic for $name<CB> {
            #[hdl_gen]
            fn update(&mut self) {
                self.pll.osc.next = self.clk.val();
                self.clock.next = self.pll.clock.val();
                dff_setup!(self, clock, por, lock_sync, btn_sync, led_q, reset_q);
                self.source.clock.next = self.clock.val();
                self.profiler.clock.next = self.clock.val();
                self.format.clock.next = self.clock.val();
                self.uart.clock.next = self.clock.val();
                // Reset: until the PLL has locked and 15 clocks after, then the (synchronised,
                // active-low) button.
                self.lock_sync.d.next = (self.lock_sync.q.val() << 1)
                    | bit_cast::<2, 1>(self.pll.locked.val().into());
                if !self.lock_sync.q.val().get_bit(1) {
                    self.por.d.next = 0.into();
                } else if !self.por.q.val().all() {
                    self.por.d.next = self.por.q.val() + 1;
                }
                self.btn_sync.d.next =
                    (self.btn_sync.q.val() << 1) | bit_cast::<2, 1>(self.btn_n.val().into());
                self.reset_q.d.next =
                    !self.por.q.val().all() | !self.btn_sync.q.val().get_bit(1);
                self.source.reset.next = self.reset_q.q.val();
                self.profiler.reset.next = self.reset_q.q.val();
                self.format.reset.next = self.reset_q.q.val();
                self.uart.reset.next = self.reset_q.q.val();
                // Source -> profiler.
                self.profiler.in_valid.next = self.source.valid.val();
                self.source.ready.next = self.profiler.in_ready.val();
                self.profiler.in_a.next = bit_cast::<64, 32>(self.source.a.val());
                self.profiler.in_b.next = bit_cast::<64, 32>(self.source.b.val());
                self.profiler.interval_length.next = self.length.val();
                self.profiler.threshold.next = self.threshold.val();
                self.profiler.flush.next = false;
                // Profiler report -> line formatter.
                self.format.in_valid.next = self.profiler.out_valid.val();
                self.profiler.out_ready.next = self.format.in_ready.val();
                self.format.in_interval.next = self.profiler.out_interval.val();
                self.format.in_a.next = self.profiler.out_a.val();
                self.format.in_b.next = self.profiler.out_b.val();
                self.format.in_count.next = self.profiler.out_count.val();
                self.format.in_last.next = self.profiler.out_last.val();
                // Characters -> UART.
                self.uart.valid.next = self.format.out_valid.val();
                self.format.out_ready.next = self.uart.ready.val();
                self.uart.data.next = self.format.out_data.val();
                self.uart_tx.next = self.uart.tx.val();
                if self.profiler.out_valid.val()
                    & self.format.in_ready.val()
                    & self.profiler.out_last.val()
                {
                    self.led_q.d.next = !self.led_q.q.val();
                }
                self.led.next = self.led_q.q.val();
            }
        }
    };
}

board_top!(
    /// The board top around the fully-associative profiler.
    BoardTop,
    MultiHashProfiler
);
board_top!(
    /// The board top around the block-RAM (set-associative) profiler.
    BramBoardTop,
    BramProfiler
);

struct VerilogOf(BoardParams);

impl ClassVisitor for VerilogOf {
    type Output = Result<String, String>;
    fn visit<const CB: usize>(self, cfg: &ProfilerConfig) -> Self::Output {
        Ok(match cfg.accumulator.organisation {
            Organisation::FullyAssociative => {
                let mut uut = BoardTop::<CB>::new(cfg, &self.0)?;
                uut.connect_all();
                generate_verilog(&uut)
            }
            Organisation::SetAssociative => {
                let mut uut = BramBoardTop::<CB>::new(cfg, &self.0)?;
                uut.connect_all();
                generate_verilog(&uut)
            }
        })
    }
}

/// The Verilog of the board top for `cfg` (module `top`), deterministic.
pub fn verilog(cfg: &ProfilerConfig, p: &BoardParams) -> Result<String, String> {
    check(cfg)?;
    rtl_shape(cfg)?;
    with_class(cfg, VerilogOf(*p))?
}

/// The board top of `cfg` as users get it: top module `hwprof_<name>` ([`crate::export`]).
pub fn exported(cfg: &ProfilerConfig, p: &BoardParams, name: &str) -> Result<String, String> {
    let what = format!(
        "board top ({} Hz clock from a {} Hz oscillator, UART {} clocks per bit, event source seed {:#x})",
        p.clock_hz, p.oscillator_hz, p.clocks_per_bit, p.seed
    );
    Ok(crate::export::package(
        &verilog(cfg, p)?,
        name,
        &what,
        &cfg.summary(),
    ))
}
