//! The system on a board: a CPU (PicoRV32 or SERV, [`super::cpu`]) with the multi-hash profiler on
//! its retire stream and the profiler's reports on the UART, as one synthesizable Verilog top for a
//! board, its simulation (the same Verilog under Icarus or Verilator, with the UART transcript
//! decoded by the host's parser and compared with the model fed the dumped retire stream), and its
//! synthesis.
//!
//! **The system** (module `hwprof_soc_<board>`): the CPU and its adapter to a one-access bus as in
//! [`super::system`] (RVFI on), a RAM from address 0 (the program; the stack at its top), the
//! console (writes are acknowledged and dropped: the UART carries the reports) and the exit port (a
//! write ends the program; the CPU then traps on `ebreak`). The tap (the generated wrapper of
//! [`hwprof_hdl::tap::export`], stall policy) takes one mode: value (`<pc, loaded value>` of every
//! retired load) or edge (`<pc, next pc>` of every control transfer) of the instructions run from
//! the RAM; while it stalls, the memory answers no request, so no event is lost however slowly the
//! UART drains the reports. The profiler's report stream goes through the line formatter of the
//! board tops ([`hwprof_hdl::board::report_format`]) to the UART transmitter (115200 8N1 on the
//! board). Sticky `overflow` and `bus_error` flags (a lost event, an access outside the RAM, the
//! flash and the ports) light the LED for good; otherwise it toggles after every reported interval.
//! `btn_n` (active low) holds the CPU and the blocks in reset: on release the program restarts on
//! the RAM as the previous run left it.
//!
//! **Per board** ([`Shape`]): the ULX3S (ECP5-85F) holds a 256 KiB RAM in block RAM, initialised
//! with the program from the bitstream; PicoRV32 is the simulated system's (RV32IM): a program runs
//! exactly as under `hwprof soc run`. The iCEBreaker (UP5K) has 30 block RAMs of 4 kbit and 5 280
//! logic cells: its RAM is the four 32 KiB SPRAMs, the program comes from the SPI flash (PicoSoC's
//! `spimemio`, a boot stub at 1 MiB copying the image that follows it into the RAM, as
//! `iceprog -o 1M` writes it), and PicoRV32 is RV32I without the barrel shifter and the 64-bit
//! counters; the boot stub's instructions run from the flash and are not tapped. SERV is RV32I on
//! both.
//!
//! **A clock of the profiler's own** ([`BoardSystem::profiler_clock_hz`]): the profiler, the line
//! formatter and the UART run on a PLL clock behind the tap's asynchronous FIFO, the CPU on the
//! oscillator; the top then holds the PLL and the system behind it.

use super::cpu::{Core, Cpu, MAIN_END_PORT, READOUT_BASE};
use super::programs::{self, ProgramSource};
use super::run::{mode_result, ModeResult};
use super::system::{Readout, CONSOLE, EXIT_PORT};
use super::SocError;
use crate::eval::flat_profile::parse_bus_word;
use crate::flow::device::Family as PartFamily;
use crate::model::board::report_format;
use crate::model::multihash::IntervalReport;
use crate::verify::icarus::{run_with, SimDir, Simulator};
use crate::verify::netlist::{cell_models, Family};
use hwprof_hdl::board::clock::{beside_oscillator, Pll};
use hwprof_hdl::board::top::BAUD;
use hwprof_hdl::board::uart::clocks_per_bit;
use hwprof_hdl::readout::word_bits;
use hwprof_hdl::tap::{Policy, TapConfig, TapMode};
use hwprof_hdl::ProfilerConfig;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

pub use crate::flow::device::Board;

/// The address of the boot stub in the iCEBreaker's flash (PicoSoC's), and of the image after it.
pub const FLASH_BOOT: u32 = 0x0010_0000;
pub const FLASH_IMAGE: u32 = FLASH_BOOT + 256;
/// The end of the flash window the CPU reads through `spimemio` (16 MiB device).
const FLASH_END: u32 = 0x0100_0000;
/// The iCEBreaker top's ports to the SPI flash, after its others.
const FLASH_PORTS: &str = ",\n    output flash_csb, output flash_clk, inout flash_io0, inout flash_io1, inout flash_io2,\n    inout flash_io3";

/// What the system is on a board.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// RAM bytes: the program is linked for it, the stack at its top.
    pub ram_bytes: usize,
    /// The CPU's M extension (fast multiplier, divider) and barrel shifter.
    pub m: bool,
    /// The program is in the flash (with a boot stub), not in the bitstream.
    pub flash: bool,
    /// With the bus readout, a report writer ([`hwprof_hdl::readout::writer`]) moves the report
    /// words into the RAM on the CPU's idle memory clocks: the board's block RAM holds one
    /// report, a run has hundreds, and a program draining each one as it comes would spend about
    /// 100 clocks a word on it.
    pub report_writer: bool,
}

/// The system's shape on `board`.
pub fn shape(board: Board) -> Shape {
    match board {
        Board::Ulx3s => Shape {
            ram_bytes: super::system::RAM_BYTES,
            m: true,
            flash: false,
            report_writer: false,
        },
        Board::Icebreaker => Shape {
            ram_bytes: 128 * 1024,
            m: false,
            flash: true,
            report_writer: true,
        },
    }
}

/// Clocks per UART bit in simulation: the transcript is the board's, only faster.
pub const SIM_CLOCKS_PER_BIT: u64 = 8;

/// What the tap feeds the profiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// `<pc, loaded value>` of every retired load.
    Value,
    /// `<pc, next pc>` of every retired control transfer (branch, jal, jalr).
    Edge,
}

impl Mode {
    fn tap_mode(self) -> TapMode {
        match self {
            Mode::Value => TapMode::Value,
            Mode::Edge => TapMode::Edge,
        }
    }

    fn letter(self) -> char {
        match self {
            Mode::Value => 'V',
            Mode::Edge => 'E',
        }
    }
}

/// What the system on a board is, besides its program and its profiler's configuration.
#[derive(Debug, Clone, Copy)]
pub struct BoardSystem {
    pub board: Board,
    pub cpu: Cpu,
    /// What the tap feeds the profiler.
    pub mode: Mode,
    /// How the reports leave: [`Readout::Uart`] (the line formatter on the UART) or
    /// [`Readout::Bus`] (the profiler's Wishbone slave on the CPU's bus, drained by the program,
    /// whose console is then the UART).
    pub readout: Readout,
    /// With the bus readout: the slave's report FIFO in words ([`hwprof_hdl::readout::check_slave`]).
    pub report_fifo: u32,
    /// The profiler, its line formatter and the UART on a clock of their own at this frequency
    /// (Hz), made by the board's PLL, behind the tap's asynchronous FIFO; the CPU stays on the
    /// oscillator. `None`: one clock. With the UART readout only (the bus readout's slave is on
    /// the CPU's bus). In simulation the testbench drives the system behind the PLL with both
    /// clocks at these frequencies ([`testbench`]).
    pub profiler_clock_hz: Option<u64>,
}

impl BoardSystem {
    /// Checks what the profiler and the readout need of each other and of the board.
    pub fn check(&self, cfg: &ProfilerConfig) -> Result<(), SocError> {
        check_config(cfg, self.board, self.mode)?;
        if self.profiler_clock_hz.is_some() {
            self.profiler_pll()?;
            if self.readout != Readout::Uart {
                return Err(SocError::Input(
                    "--async puts the profiler, its line formatter and the UART on a clock of \
                     their own: it takes --readout uart (the bus readout's slave answers the \
                     CPU's bus, on the CPU's clock)"
                        .into(),
                ));
            }
        }
        match self.readout {
            Readout::Uart => Ok(()),
            Readout::Bus => {
                hwprof_hdl::readout::check_slave(cfg, self.report_fifo)
                    .map_err(|e| SocError::Input(format!("--report-fifo: {e}")))?;
                if self.writer() {
                    hwprof_hdl::readout::writer::check(cfg).map_err(SocError::Input)?;
                }
                Ok(())
            }
            Readout::Stream => Err(SocError::Input(
                "--readout stream is the simulated system's (hwprof soc run); a board's reports \
                 leave on the UART (uart) or through the program (bus)"
                    .into(),
            )),
        }
    }

    /// The PLL making the profiler's clock ([`BoardSystem::profiler_clock_hz`]), if it has one.
    pub fn profiler_pll(&self) -> Result<Option<Pll>, SocError> {
        let Some(hz) = self.profiler_clock_hz else {
            return Ok(None);
        };
        let osc = self.board.oscillator_hz();
        match self.board.target().family() {
            PartFamily::Ice40 => Pll::ice40(osc, hz),
            PartFamily::Ecp5 => Pll::ecp5(osc, hz),
        }
        .map(Some)
        .map_err(|e| SocError::Input(format!("--profiler-mhz: {e}")))
    }

    /// Clocks per bit of the UART: on the profiler's clock with the UART readout and a clock of
    /// the profiler's own, else on the oscillator.
    pub fn uart_clocks_per_bit(&self) -> Result<u64, SocError> {
        let hz = match (self.profiler_pll()?, self.readout) {
            (Some(p), Readout::Uart) => p.out_hz(self.board.oscillator_hz()),
            _ => self.board.oscillator_hz(),
        };
        clocks_per_bit(hz, BAUD).map_err(SocError::Failure)
    }

    /// Whether the bus readout has a report writer ([`Shape::report_writer`]).
    pub fn writer(&self) -> bool {
        self.readout == Readout::Bus && shape(self.board).report_writer
    }

    /// The slot of the profiler's slave in the readout window, as in the simulated system:
    /// value mode at [`READOUT_BASE`], edge mode 0x100 above.
    fn slot(&self) -> u32 {
        match self.mode {
            Mode::Value => 0,
            Mode::Edge => 1,
        }
    }
}

/// The net of the profiler's own clock in the board top ([`BoardSystem::profiler_clock_hz`]).
pub const PROFILER_CLOCK_NET: &str = "prof_clock";

/// The profiler's own clock unless told otherwise (`--async`): twice the ULX3S's 25 MHz oscillator
/// (the `soc-bram` profiler closes near 100 MHz on the ECP5); on the iCEBreaker 18 MHz, 1.5 times
/// its 12 MHz (the iCE40's PLL makes 16 MHz at least; the UP5K is nearly full and the system's
/// critical paths are the CPU's at about 20 MHz).
pub fn default_profiler_clock_hz(board: Board) -> u64 {
    match board {
        Board::Ulx3s => 50_000_000,
        Board::Icebreaker => 18_000_000,
    }
}

/// The ECP5-85F's block RAM sites as nextpnr-ecp5 names them: four rows, each of 13 groups of
/// four (`X{group + 2k}/Y{row}/EBR{k}`).
const ECP5_85F_EBR_ROWS: [u32; 4] = [22, 46, 70, 82];
const ECP5_85F_EBR_GROUPS: [u32; 13] = [4, 13, 22, 31, 40, 49, 58, 69, 78, 87, 96, 105, 114];

/// With the profiler on its own clock on the ULX3S (UART readout): the block RAMs of the profiler
/// proper held to the right-hand end of the bottom rows, away from the CPU's RAM and the pins the
/// CPU's logic gathers by (on the die's left side), so that the profiler's logic is placed there
/// and not among the CPU's. The tap's FIFO is written in the CPU's clock and stays free.
pub fn profiler_floorplan(s: &BoardSystem) -> Option<crate::flow::Floorplan> {
    if s.board != Board::Ulx3s || s.profiler_clock_hz.is_none() || s.readout != Readout::Uart {
        return None;
    }
    let mut sites = Vec::new();
    for row in ECP5_85F_EBR_ROWS.iter().rev() {
        for group in ECP5_85F_EBR_GROUPS.iter().rev() {
            for k in (0..4).rev() {
                sites.push(format!("X{}/Y{row}/EBR{k}", group + 2 * k));
            }
        }
    }
    Some(crate::flow::Floorplan {
        note:
            "The profiler's block RAMs held to the right-hand end of the ECP5-85F's bottom rows,\n\
               away from the CPU (hwprof soc bitstream --async)."
                .into(),
        cell_type: "DP16KD".into(),
        prefixes: vec!["system.profiler.profiler.".into()],
        sites,
    })
}

/// The bus readout's report FIFO on the ULX3S by default: a full-length bundled program's reports
/// in one mode (dhrystone's, the largest, are about 6 200 words), so software reads them after
/// `main` and nothing interrupts it; about 50 of the ECP5-85F's 208 block RAMs.
pub const ULX3S_REPORT_FIFO: u32 = 8192;

/// The bus readout's report FIFO on `board` unless told otherwise: [`ULX3S_REPORT_FIFO`]; on the
/// iCEBreaker, whose block RAMs the profiler fills, one report (`cfg`'s smallest).
pub fn default_report_fifo(board: Board, cfg: &ProfilerConfig) -> u32 {
    match board {
        Board::Ulx3s => ULX3S_REPORT_FIFO,
        Board::Icebreaker => hwprof_hdl::readout::fifo_depth(cfg),
    }
}

/// The profiler a board's system has unless told otherwise, built in: (source, text).
pub fn default_config(board: Board) -> (&'static str, &'static str) {
    match board {
        Board::Ulx3s => super::run::DEFAULT_PROFILER,
        Board::Icebreaker => (
            "configs/soc-icebreaker.toml",
            include_str!("../../../configs/soc-icebreaker.toml"),
        ),
    }
}

/// Module names of the blocks in the board system.
const PROFILER: &str = "soc-board-profiler";
const FORMAT: &str = "soc-board-format";
const UART: &str = "soc-board-uart";
/// With the bus readout: the tap in front of the slave (which is [`super::system::SLAVE`]).
const TAP: &str = "soc-board-tap";
/// The report writer's tag of an edge-mode record (readout.c's `EDGE_FLAG`).
const RECORD_FLAGS: u32 = 0x100;
/// The report writer's registers: above the slaves' window.
pub const WRITER_BASE: u32 = READOUT_BASE + 0x200;

/// The top module of the system on `board`.
pub fn top_module(board: Board) -> String {
    format!("hwprof_soc_{}", board.name())
}

/// The Verilog of the hwprof blocks of the system, each renamed after its design: the UART at
/// `clocks_per_bit` (with the bus readout it is the console's, so the CPU alone has it too) and,
/// with the `profiler`, the profiler behind its tap and either the line formatter (UART readout)
/// or the Wishbone slave (bus readout).
pub fn blocks_verilog(
    cfg: &ProfilerConfig,
    s: &BoardSystem,
    clocks_per_bit: u64,
    profiler: bool,
) -> Result<String, SocError> {
    let (cfg, s) = (cfg.clone(), *s);
    hwprof_hdl::util::on_rtl_thread(move || -> Result<String, String> {
        use hwprof_hdl::export::{module_name, rename_top};
        let mut tap = TapConfig::new(s.mode.tap_mode(), Policy::Stall);
        tap.asynchronous = s.profiler_clock_hz.is_some();
        let mut v = String::new();
        match (profiler, s.readout) {
            (false, _) => {}
            (true, Readout::Bus) => {
                v.push_str(&hwprof_hdl::multihash::export::exported(&cfg, PROFILER)?);
                v.push_str(&hwprof_hdl::tap::export::tap_module(
                    &tap,
                    &module_name(TAP),
                )?);
                if s.writer() {
                    v.push_str(&hwprof_hdl::readout::verilog_with_head_port(
                        &cfg,
                        super::system::SLAVE,
                        PROFILER,
                        s.report_fifo,
                    ));
                    v.push_str(&hwprof_hdl::readout::writer::verilog(
                        &cfg,
                        super::system::SLAVE,
                        shape(s.board).ram_bytes.trailing_zeros(),
                        RECORD_FLAGS * s.slot(),
                    )?);
                } else {
                    v.push_str(&hwprof_hdl::readout::verilog(
                        &cfg,
                        super::system::SLAVE,
                        PROFILER,
                        s.report_fifo,
                    ));
                }
            }
            (true, _) => {
                v.push_str(&hwprof_hdl::tap::export::wrapper(&cfg, &tap, PROFILER)?);
                v.push_str(&rename_top(
                    &hwprof_hdl::board::report_format::verilog(cfg.a_bits, cfg.b_bits)?,
                    &module_name(FORMAT),
                ));
            }
        }
        if profiler || s.readout == Readout::Bus {
            v.push_str(&rename_top(
                &hwprof_hdl::board::uart::verilog(clocks_per_bit)?,
                &module_name(UART),
            ));
        }
        Ok(v)
    })
    .map_err(SocError::Failure)?
    .map_err(SocError::Input)
}

/// The Verilog of the system's top (module [`top_module`]); on the ULX3S the program's `image` is
/// in its RAM (on the iCEBreaker it is in the flash: [`flash_image`]).
///
/// `profiler` false gives the same system without the tap, the FIFO, the profiler and its
/// readout (the UART line idles high unless it is the console's): the CPU alone, for the area
/// comparison and the cycles the profiler costs.
pub fn top_verilog(
    s: &BoardSystem,
    cfg: &ProfilerConfig,
    image: &[u32],
    profiler: bool,
) -> Result<String, SocError> {
    let sh = shape(s.board);
    let ram = sh.ram_bytes;
    let words = ram / 4;
    if image.len() > words {
        return Err(SocError::Input(format!(
            "the program's image ({} bytes) exceeds the system's RAM of {ram} bytes",
            image.len() * 4
        )));
    }
    let bus = s.readout == Readout::Bus;
    let mut v = String::new();
    let flash_ports = if sh.flash { FLASH_PORTS } else { "" };
    let core = s.cpu.core(&Core {
        ram_bytes: ram,
        reset_pc: if sh.flash { FLASH_BOOT } else { 0 },
        small: !sh.m,
        irq: bus,
    });
    // The ports besides the console and the exit port: with the bus readout, the readout window
    // and the mark of main's end.
    let writer = profiler && s.writer();
    let (other_ports, console_wait) = if bus {
        (
            format!(
                " && !in_ro{} && !(bus_addr == 32'h{MAIN_END_PORT:08x} && bus_wstrb != 0)",
                if writer { " && !in_wr" } else { "" }
            ),
            format!("con_valid && bus_addr == 32'h{CONSOLE:08x} && bus_wstrb != 0"),
        )
    } else {
        (String::new(), "1'b0".into())
    };
    // With a clock of the profiler's own, this module is the system behind the top, which holds
    // the PLL; the CPU waits for its lock, the profiler's reset is synchronized into its clock.
    let pll = if profiler { s.profiler_pll()? } else { None };
    let (module, clock_ports, clocking) = match pll {
        None => (
            top_module(s.board),
            "",
            "  wire resetn = (&por) && btn_sync[1];\n",
        ),
        Some(_) => (
            format!("{}_system", top_module(s.board)),
            "input prof_clock, input prof_locked, ",
            r#"  reg [1:0] lock_sync = 0;
  always @(posedge clk) lock_sync <= {lock_sync[0], prof_locked};
  wire resetn = (&por) && btn_sync[1] && lock_sync[1];
  // The profiler's reset, synchronized into its clock.
  reg prof_reset_meta = 1, prof_reset = 1;
  always @(posedge prof_clock) begin
    prof_reset_meta <= !resetn;
    prof_reset <= prof_reset_meta;
  end
"#,
        ),
    };
    write!(
        v,
        r#"// hwprof's {cpu_name} system for the {board_name} with the multi-hash profiler ({mode:?} mode) on the
// retire stream and its reports {readout}; generated by hwprof, do not edit.
module {module}(input clk, {clock_ports}input btn_n, output uart_tx, output led{flash_ports});
  wire clock = clk;
  // Reset: 15 clocks after configuration, and while the button is held.
  reg [3:0] por = 0;
  reg [1:0] btn_sync = 0;
  always @(posedge clk) begin
    if (!(&por)) por <= por + 1'b1;
    btn_sync <= {{btn_sync[0], btn_n}};
  end
{clocking}
  // The retire channel and the bus request, driven by the CPU; the memory answers.
  wire rvfi_valid, rvfi_trap;
  wire [63:0] rvfi_order;
  wire [31:0] rvfi_insn, rvfi_pc_rdata, rvfi_pc_wdata, rvfi_rd_wdata, rvfi_mem_addr, rvfi_mem_rdata;
  wire [3:0] rvfi_mem_rmask;
  wire [4:0] rvfi_rd_addr;
  wire bus_valid, bus_instr, bus_ack;
  wire [31:0] bus_addr, bus_wdata, bus_rdata;
  wire [3:0] bus_wstrb;
  wire [1:0] readout_irq;
{core}
{tap}
  // Memory: one access a clock after its request, none while stalled (nor a console write while
  // the UART still holds the previous byte).
  reg con_valid = 0;
  wire start = resetn && bus_valid && !bus_ack && !stall && !({console_wait});
  // Address decode by bit fields (the windows are aligned powers of two): a magnitude compare
  // becomes a carry chain on the CPU's critical path, from its look-ahead address to the RAM.
  wire in_ram = {in_ram};
  wire in_flash = bus_addr[31:{flash_end_bit}] == 0 && bus_addr[{flash_top}:{flash_boot_bit}] != 0;
  wire in_ro = bus_addr[31:9] == 23'h{window:06x};
{in_wr}  reg ram_ready = 0, port_ready = 0, exited = 0, bus_error = 0;
  reg [31:0] exit_code = 0;
{memory}
  // Console and exit port.
  always @(posedge clk) begin
    port_ready <= start && !in_ram && !in_flash;
    if (start && !in_ram && !in_flash) begin
      if (bus_addr == 32'h{exit:08x} && bus_wstrb != 0) begin
        exited <= 1;
        exit_code <= bus_wdata;
      end else if (!(bus_addr == 32'h{console:08x} && bus_wstrb != 0){other_ports}) begin
        bus_error <= 1;
      end
    end
  end
  assign bus_ack = mem_ready || port_ready;

{reporting}"#,
        board_name = s.board.name(),
        cpu_name = s.cpu.name(),
        mode = s.mode,
        readout = if bus {
            "on the CPU's bus (its console on the UART)"
        } else {
            "on the UART"
        },
        exit = EXIT_PORT,
        console = CONSOLE,
        window = READOUT_BASE >> 9,
        in_ram = below_power_of_two("bus_addr", ram as u64),
        flash_end_bit = FLASH_END.trailing_zeros(),
        flash_top = FLASH_END.trailing_zeros() - 1,
        flash_boot_bit = FLASH_BOOT.trailing_zeros(),
        in_wr = if writer {
            format!(
                "  wire in_wr = bus_addr[31:4] == 28'h{:07x};\n",
                WRITER_BASE >> 4
            )
        } else {
            String::new()
        },
        tap = match (profiler, bus) {
            (false, _) => "  wire stall = 1'b0;\n  wire overflow = 1'b0;\n".into(),
            (true, false) => tap_verilog(&sh, pll.is_some()),
            (true, true) => bus_tap_verilog(&sh, s.slot(), writer.then(|| word_bits(cfg))),
        },
        memory = if sh.flash {
            flash_memory_verilog(writer)
        } else {
            bram_memory_verilog(words)
        },
        reporting = match (profiler, bus) {
            (_, true) => console_verilog(profiler, writer),
            (true, false) => reporting_verilog(pll.is_some()),
            (false, false) => "  assign bus_rdata = mem_rdata;\n  assign readout_irq = 2'd0;\n  assign uart_tx = 1'b1;\n  assign led = bus_error;\n".into(),
        },
    )
    .unwrap();
    if !sh.flash {
        v.push_str("\n  // The program.\n  integer i;\n  initial begin\n`ifndef SYNTHESIS\n");
        writeln!(
            v,
            "    for (i = 0; i < {words}; i = i + 1) ram[i] = 0;\n`endif"
        )
        .unwrap();
        for (i, w) in image.iter().enumerate() {
            if *w != 0 {
                writeln!(v, "    ram[{i}] = 32'h{w:08x};").unwrap();
            }
        }
        v.push_str("  end\n");
    }
    v.push_str("endmodule\n");
    if let Some(pll) = pll {
        v.push_str(&clock_top(s, pll, &module)?);
    }
    Ok(v)
}

/// `signal < bytes` for a power of two `bytes`, as a test of the 32-bit signal's upper bits.
fn below_power_of_two(signal: &str, bytes: u64) -> String {
    assert!(bytes.is_power_of_two() && bytes < 1 << 32, "{bytes}");
    format!("{signal}[31:{}] == 0", bytes.trailing_zeros())
}

/// The top of a system whose profiler has a clock of its own: the PLL beside the oscillator and
/// the system `module`.
fn clock_top(s: &BoardSystem, pll: Pll, module: &str) -> Result<String, SocError> {
    let (ports, conns) = if shape(s.board).flash {
        (
            FLASH_PORTS,
            ",\n    .flash_csb(flash_csb), .flash_clk(flash_clk), .flash_io0(flash_io0), .flash_io1(flash_io1),\n    .flash_io2(flash_io2), .flash_io3(flash_io3)",
        )
    } else {
        ("", "")
    };
    let osc = s.board.oscillator_hz();
    let clocks = beside_oscillator(
        pll,
        osc,
        "clk",
        "cpu_clock",
        PROFILER_CLOCK_NET,
        "prof_locked",
    )
    .map_err(SocError::Failure)?;
    Ok(format!(
        r#"
// The CPU on the {osc_mhz} MHz oscillator, the profiler on the PLL's {prof_mhz} MHz.
module {top}(input clk, input btn_n, output uart_tx, output led{ports});
  wire cpu_clock, prof_clock, prof_locked;
{clocks}  {module} system(.clk(cpu_clock), .prof_clock(prof_clock), .prof_locked(prof_locked),
    .btn_n(btn_n), .uart_tx(uart_tx), .led(led){conns});
endmodule
"#,
        osc_mhz = osc as f64 / 1e6,
        prof_mhz = pll.out_hz(osc) as f64 / 1e6,
        top = top_module(s.board),
    ))
}

/// The RAM in block RAM (its content from the bitstream).
fn bram_memory_verilog(words: usize) -> String {
    let hi = words.trailing_zeros() + 1;
    format!(
        r#"  reg [31:0] ram [0:{last}];
  reg [31:0] ram_rdata = 0;
  wire [{hi}:2] word = bus_addr[{hi}:2];
  always @(posedge clk) begin
    ram_ready <= start && in_ram;
    if (start && in_ram) begin
      ram_rdata <= ram[word];
      if (bus_wstrb[0]) ram[word][7:0] <= bus_wdata[7:0];
      if (bus_wstrb[1]) ram[word][15:8] <= bus_wdata[15:8];
      if (bus_wstrb[2]) ram[word][23:16] <= bus_wdata[23:16];
      if (bus_wstrb[3]) ram[word][31:24] <= bus_wdata[31:24];
    end
  end
  wire mem_ready = ram_ready;
  wire [31:0] mem_rdata = ram_rdata;
"#,
        last = words - 1,
    )
}

/// The UP5K's SPRAMs (PicoSoC's `ice40up5k_spram`) and the flash through PicoSoC's `spimemio`
/// (read only; its configuration register is not mapped). Only the boot stub reads the flash.
/// With the report `writer`, the SPRAMs take its words on the clocks the CPU leaves them (the
/// CPU's address stays on them through its read's answer: their data multiplexer follows it).
fn flash_memory_verilog(writer: bool) -> String {
    let port = if writer {
        r#"  ice40up5k_spram #(.WORDS(32768)) spram(.clk(clk),
    .wen(w_mem_we ? 4'b1111 : start && in_ram ? bus_wstrb : 4'b0000),
    .addr(w_mem_we ? w_mem_addr[23:2] : bus_addr[23:2]), .wdata(w_mem_we ? w_mem_data : bus_wdata),
    .rdata(spram_rdata));
"#
    } else {
        r#"  ice40up5k_spram #(.WORDS(32768)) spram(.clk(clk), .wen(start && in_ram ? bus_wstrb : 4'b0000),
    .addr(bus_addr[23:2]), .wdata(bus_wdata), .rdata(spram_rdata));
"#
    };
    String::from(
        r#"  wire [31:0] spram_rdata, flash_rdata;
  wire flash_ready;
  always @(posedge clk) ram_ready <= start && in_ram;
"#,
    ) + port
        + r#"  wire flash_io0_oe, flash_io0_do, flash_io0_di, flash_io1_oe, flash_io1_do, flash_io1_di;
  wire flash_io2_oe, flash_io2_do, flash_io2_di, flash_io3_oe, flash_io3_do, flash_io3_di;
  SB_IO #(.PIN_TYPE(6'b1010_01), .PULLUP(1'b0)) flash_io_buf [3:0] (
    .PACKAGE_PIN({flash_io3, flash_io2, flash_io1, flash_io0}),
    .OUTPUT_ENABLE({flash_io3_oe, flash_io2_oe, flash_io1_oe, flash_io0_oe}),
    .D_OUT_0({flash_io3_do, flash_io2_do, flash_io1_do, flash_io0_do}),
    .D_IN_0({flash_io3_di, flash_io2_di, flash_io1_di, flash_io0_di}));
  spimemio flash(.clk(clk), .resetn(resetn), .valid(bus_valid && in_flash),
    .ready(flash_ready), .addr(bus_addr[23:0]), .rdata(flash_rdata), .flash_csb(flash_csb),
    .flash_clk(flash_clk), .flash_io0_oe(flash_io0_oe), .flash_io1_oe(flash_io1_oe),
    .flash_io2_oe(flash_io2_oe), .flash_io3_oe(flash_io3_oe), .flash_io0_do(flash_io0_do),
    .flash_io1_do(flash_io1_do), .flash_io2_do(flash_io2_do), .flash_io3_do(flash_io3_do),
    .flash_io0_di(flash_io0_di), .flash_io1_di(flash_io1_di), .flash_io2_di(flash_io2_di),
    .flash_io3_di(flash_io3_di), .cfgreg_we(4'b0000), .cfgreg_di(32'd0), .cfgreg_do());
  wire mem_ready = ram_ready || flash_ready;
  wire [31:0] mem_rdata = flash_ready ? flash_rdata : spram_rdata;
"#
}

/// The profiler behind its RVFI tap ([`hwprof_hdl::tap::export`]) on the instructions run from
/// the RAM (the boot stub in the flash is not tapped); the CPU stalls while the tap's FIFO is
/// nearly full.
fn tap_verilog(sh: &Shape, own_clock: bool) -> String {
    format!(
        r#"  // The profiler behind its RVFI tap.
  wire stall, r_valid, r_ready, r_last;
  wire [31:0] dropped, r_interval, r_count;
  wire [63:0] r_a, r_b;
  wire tapped = rvfi_valid && {pc_in_ram};
  {wrapper} profiler(.clock(clk), .reset(!resetn), {prof}.rvfi_valid(tapped),
    .rvfi_order(rvfi_order), .rvfi_insn(rvfi_insn), .rvfi_trap(rvfi_trap),
    .rvfi_pc_rdata(rvfi_pc_rdata), .rvfi_pc_wdata(rvfi_pc_wdata), .rvfi_rd_wdata(rvfi_rd_wdata),
    .stall(stall), .dropped(dropped), .out_valid(r_valid), .out_ready(r_ready),
    .out_interval(r_interval), .out_a(r_a), .out_b(r_b), .out_count(r_count), .out_last(r_last),
    .out_dropped());
  wire overflow = dropped != 0;
"#,
        wrapper = hwprof_hdl::tap::export::wrapper_name(PROFILER),
        pc_in_ram = below_power_of_two("rvfi_pc_rdata", sh.ram_bytes as u64),
        prof = if own_clock {
            ".prof_clock(prof_clock), .prof_reset(prof_reset),\n    "
        } else {
            ""
        },
    )
}

/// The line formatter and the UART on the profiler's reports, in the profiler's clock domain
/// (`own_clock`: `prof_clock`).
fn reporting_verilog(own_clock: bool) -> String {
    let name = hwprof_hdl::export::module_name;
    let (clock, reset) = if own_clock {
        ("prof_clock", "prof_reset")
    } else {
        ("clk", "!resetn")
    };
    format!(
        r#"  // Profiler -> line formatter -> UART.
  wire c_valid, c_ready;
  wire [7:0] c_data;
  {format} format(.clock({clock}), .reset({reset}), .in_valid(r_valid), .in_ready(r_ready),
    .in_interval(r_interval), .in_a(r_a), .in_b(r_b), .in_count(r_count), .in_last(r_last),
    .out_valid(c_valid), .out_ready(c_ready), .out_data(c_data));
  {uart} uart(.clock({clock}), .reset({reset}), .data(c_data), .valid(c_valid), .ready(c_ready),
    .tx(uart_tx));
  reg led_q = 0;
  always @(posedge {clock}) if (r_valid && r_ready && r_last) led_q <= !led_q;
  assign led = led_q || overflow || bus_error;
  assign bus_rdata = mem_rdata;
  assign readout_irq = 2'd0;
"#,
        format = name(FORMAT),
        uart = name(UART),
    )
}

/// With the bus readout: the profiler behind its RVFI tap and its Wishbone slave at its `slot` of
/// the readout window (the rest of the window reads 0), its interrupt on `readout_irq[slot]`;
/// with a report `writer` (the slave's head word's bits), the writer on the slave's head word, its registers at
/// [`WRITER_BASE`], its interrupt (buffer full) beside the slave's.
fn bus_tap_verilog(sh: &Shape, slot: u32, writer: Option<u32>) -> String {
    let (head, writer_v, w_irq, w_rdata) = if let Some(word_bits) = writer {
        (
            ",\n    .hd_valid(hd_valid), .hd_word(hd_word), .hd_take(hd_take)",
            format!(
                r#"  // The report writer: the slave's words into the RAM on the clocks the CPU leaves it.
  wire hd_valid, hd_take, w_ack, w_irq, w_mem_we;
  wire [{wm}:0] hd_word;
  wire [31:0] w_dat_r, w_mem_addr, w_mem_data;
  {writer} writer(.clock(clk), .reset(!resetn), .hd_valid(hd_valid), .hd_word(hd_word),
    .hd_take(hd_take), .reg_cyc(start && in_wr), .reg_we(bus_wstrb != 4'd0),
    .reg_adr(bus_addr[3:0]), .reg_dat_w(bus_wdata), .reg_dat_r(w_dat_r), .reg_ack(w_ack),
    .mem_busy(start && in_ram || ram_ready), .mem_we(w_mem_we), .mem_addr(w_mem_addr),
    .mem_data(w_mem_data), .irq(w_irq));
"#,
                writer = hwprof_hdl::readout::writer::writer_name(super::system::SLAVE),
                wm = word_bits - 1,
            ),
            " || w_irq",
            "w_ack ? w_dat_r : ",
        )
    } else {
        ("", String::new(), "", "")
    };
    format!(
        r#"  // The profiler behind its RVFI tap and its Wishbone slave, at READOUT_BASE + 0x{slot}00.
  wire stall, t_valid, t_ready, wb_ack, irq;
  wire [31:0] dropped, t_a, t_b, wb_dat_r;
  wire [15:0] t_lost;
  wire tapped = rvfi_valid && {pc_in_ram};
  {tap} tap(.clock(clk), .reset(!resetn), .rvfi_valid(tapped), .rvfi_order(rvfi_order),
    .rvfi_insn(rvfi_insn), .rvfi_trap(rvfi_trap), .rvfi_pc_rdata(rvfi_pc_rdata),
    .rvfi_pc_wdata(rvfi_pc_wdata), .rvfi_rd_wdata(rvfi_rd_wdata), .stall(stall),
    .dropped(dropped), .ev_clock(clk), .ev_reset(!resetn), .ev_valid(t_valid),
    .ev_ready(t_ready), .ev_a(t_a), .ev_b(t_b), .ev_lost(t_lost));
  wire wb_cyc = start && in_ro && bus_addr[8] == 1'b{slot};
  {slave} slave(.clock(clk), .reset(!resetn), .in_valid(t_valid), .in_ready(t_ready),
    .in_a({{32'd0, t_a}}), .in_b({{32'd0, t_b}}), .in_dropped(dropped), .wb_cyc(wb_cyc),
    .wb_stb(wb_cyc), .wb_we(bus_wstrb != 4'd0), .wb_sel(bus_wstrb != 4'd0 ? bus_wstrb : 4'hf),
    .wb_adr(bus_addr[7:0]), .wb_dat_w(bus_wdata), .wb_dat_r(wb_dat_r), .wb_ack(wb_ack),
    .irq(irq){head});
{writer_v}  wire [31:0] ro_rdata = wb_ack ? wb_dat_r : {w_rdata}32'd0;
  assign readout_irq = {irq_bits};
  wire overflow = dropped != 0;
"#,
        tap = hwprof_hdl::export::module_name(TAP),
        slave = hwprof_hdl::readout::wrapper_name(super::system::SLAVE),
        pc_in_ram = below_power_of_two("rvfi_pc_rdata", sh.ram_bytes as u64),
        irq_bits = if slot == 0 {
            format!("{{1'b0, irq{w_irq}}}")
        } else {
            format!("{{irq{w_irq}, 1'b0}}")
        },
    )
}

/// With the bus readout: the program's console on the UART (a byte at a time: a console write
/// waits while the UART holds the previous byte), and the readout window's data; without the
/// `profiler` the window reads 0; with the report `writer`, its registers too.
fn console_verilog(profiler: bool, writer: bool) -> String {
    let window = if profiler {
        ""
    } else {
        "  wire [31:0] ro_rdata = 32'd0;\n  assign readout_irq = 2'd0;\n"
    };
    format!(
        r#"{window}  reg ro_read = 0;
  always @(posedge clk) ro_read <= start && (in_ro{wr});
  assign bus_rdata = ro_read ? ro_rdata : mem_rdata;
  // Console -> UART.
  reg [7:0] con_data = 0;
  wire con_ready;
  always @(posedge clk) begin
    if (!resetn) con_valid <= 0;
    else if (start && bus_addr == 32'h{console:08x} && bus_wstrb != 0) begin
      con_valid <= 1;
      con_data <= bus_wdata[7:0];
    end else if (con_ready) con_valid <= 0;
  end
  {uart} uart(.clock(clk), .reset(!resetn), .data(con_data), .valid(con_valid), .ready(con_ready),
    .tx(uart_tx));
  assign led = overflow || bus_error;
"#,
        console = CONSOLE,
        uart = hwprof_hdl::export::module_name(UART),
        wr = if writer { " || in_wr" } else { "" },
    )
}

/// The whole system as one Verilog text (RVFI enabled for the CPU read after it): top, CPU,
/// blocks. `clocks_per_bit` sets the UART (the board's from its clock, or [`SIM_CLOCKS_PER_BIT`]);
/// `profiler` false leaves the CPU alone ([`top_verilog`]).
pub fn system_verilog(
    s: &BoardSystem,
    cfg: &ProfilerConfig,
    image: &[u32],
    clocks_per_bit: u64,
    profiler: bool,
) -> Result<String, SocError> {
    s.check(cfg)?;
    let mut v = String::from("`define RISCV_FORMAL\n");
    v.push_str(&top_verilog(s, cfg, image, profiler)?);
    for src in s.cpu.sources()? {
        v.push_str(
            &std::fs::read_to_string(&src)
                .map_err(|e| SocError::Missing(format!("{}: {e}", src.display())))?,
        );
    }
    if shape(s.board).flash {
        v.push_str(&package_file("picosoc/spimemio.v")?);
        v.push_str(&package_file("picosoc/ice40up5k_spram.v")?);
    }
    v.push_str(&blocks_verilog(cfg, s, clocks_per_bit, profiler)?);
    Ok(v)
}

/// A file of the PicoRV32 package.
fn package_file(name: &str) -> Result<String, SocError> {
    let path = programs::picorv32_dir()?.join(name);
    std::fs::read_to_string(&path).map_err(|e| {
        SocError::Missing(format!(
            "{}: {e}: {}",
            path.display(),
            programs::INSTALL_PICORV32
        ))
    })
}

/// The boot stub: copies the image that follows it in the flash to the RAM, then jumps to 0.
const BOOT_STUB: &str = r#"/* hwprof's boot stub at 1 MiB into the iCEBreaker's flash: copies IMAGE_BYTES from the flash
   right after it to the RAM at 0, then jumps there. */
	.section .text
	.global _start
_start:
	li t0, IMAGE
	li t1, 0
	li t2, IMAGE_BYTES
1:	lw t3, 0(t0)
	sw t3, 0(t1)
	addi t0, t0, 4
	addi t1, t1, 4
	bltu t1, t2, 1b
	jr zero
"#;

/// What `iceprog -o 1M` writes to the iCEBreaker's flash: the boot stub, padded to
/// [`FLASH_IMAGE`], then the program's image.
pub fn flash_image(image: &[u32], work: &Path) -> Result<Vec<u8>, SocError> {
    let io = |e: std::io::Error| SocError::Failure(format!("{}: {e}", work.display()));
    std::fs::create_dir_all(work).map_err(io)?;
    let src = work.join("boot.S");
    std::fs::write(&src, BOOT_STUB).map_err(io)?;
    let elf = work.join("boot.elf");
    let bin = work.join("boot.bin");
    let cross = programs::CROSS;
    let tool = |c: &mut std::process::Command, what: &str| -> Result<(), SocError> {
        let out = c.output().map_err(|e| {
            SocError::Missing(format!(
                "cannot run {what}: {e}: {}",
                programs::INSTALL_CROSS
            ))
        })?;
        if !out.status.success() {
            return Err(SocError::Failure(format!(
                "{what} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(())
    };
    tool(
        std::process::Command::new(format!("{cross}gcc"))
            .args(["-march=rv32i", "-mabi=ilp32", "-nostdlib"])
            .arg(format!("-DIMAGE={FLASH_IMAGE:#x}"))
            .arg(format!("-DIMAGE_BYTES={}", image.len() * 4))
            .arg(format!("-Wl,-Ttext={FLASH_BOOT:#x}"))
            .arg("-o")
            .arg(&elf)
            .arg(&src),
        "the boot stub's build",
    )?;
    tool(
        std::process::Command::new(format!("{cross}objcopy"))
            .args(["-O", "binary"])
            .arg(&elf)
            .arg(&bin),
        "objcopy",
    )?;
    let mut flash = std::fs::read(&bin).map_err(io)?;
    let room = (FLASH_IMAGE - FLASH_BOOT) as usize;
    if flash.len() > room {
        return Err(SocError::Failure(format!(
            "the boot stub takes {} bytes, more than the {room} before the image",
            flash.len()
        )));
    }
    flash.resize(room, 0);
    flash.extend(image.iter().flat_map(|w| w.to_le_bytes()));
    Ok(flash)
}

/// Bits of the program counters the tap sees: those of the instructions run from the RAM.
pub fn pc_bits(board: Board) -> u32 {
    shape(board).ram_bytes.next_power_of_two().trailing_zeros()
}

/// The profiler's keys must hold what the tap gives: a program counter of the RAM in `a`, and a
/// 32-bit loaded value (value mode) or such a program counter (edge mode) in `b`.
pub fn check_config(cfg: &ProfilerConfig, board: Board, mode: Mode) -> Result<(), SocError> {
    let pc = pc_bits(board);
    let b = match mode {
        Mode::Value => 32,
        Mode::Edge => pc,
    };
    if cfg.a_bits < pc || cfg.b_bits < b {
        return Err(SocError::Input(format!(
            "the profiler's keys are program counters below {} (a: {pc} bits) and {} (b: {b} bits) on the {} system: a_bits and b_bits must be at least {pc} and {b} (are {} and {})",
            shape(board).ram_bytes,
            match mode {
                Mode::Value => "loaded values",
                Mode::Edge => "next program counters",
            },
            board.name(),
            cfg.a_bits,
            cfg.b_bits
        )));
    }
    Ok(())
}

/// The testbench of a simulated board run (module `tb`): clocks the system (and, on the
/// iCEBreaker, PicoSoC's flash model reading `firmware.hex`), holds `btn_n` high, dumps the
/// records of the instructions run from the RAM to `retire.txt`, receives the UART into
/// `uart.txt`, and ends once the CPU has trapped and nothing has moved for `quiet` clocks. With
/// the bus readout it also dumps the events fed to the profiler (`F a b`: the tap's, while the
/// slave is enabled) and notes the clock of the store that marks the end of `main`.
pub fn testbench(
    s: &BoardSystem,
    profiler: bool,
    clocks_per_bit: u64,
    quiet: u64,
    max_cycles: u64,
    max_instructions: u64,
) -> String {
    let bus = s.readout == Readout::Bus;
    // With a clock of the profiler's own, the system behind the PLL, with both clocks at the
    // board's frequencies (the CPU's period 10 ns).
    let own_clock = s.profiler_pll().ok().flatten().filter(|_| profiler);
    let (top, prof_ports, prof_clk) = match own_clock {
        None => (top_module(s.board), "", String::new()),
        Some(pll) => (
            format!("{}_system", top_module(s.board)),
            ".prof_clock(prof_clk), .prof_locked(1'b1), ",
            format!(
                "  reg prof_clk = 0;\n  initial begin #1; forever #{:.3} prof_clk = ~prof_clk; end\n",
                5.0 * s.board.oscillator_hz() as f64 / pll.out_hz(s.board.oscillator_hz()) as f64
            ),
        ),
    };
    format!(
        r#"`timescale 1ns/1ps
{defines}// hwprof: testbench of the board system, generated by hwprof_sim::soc::board.
module tb;
  reg clk = 0;
  initial forever #5 clk = ~clk;
{prof_clk}  wire uart_tx, led;
{dut}
  reg [63:0] cycle = 0, instructions = 0, end_cycle = 0, stall_cycles = 0, still = 0, main_end = 0;
  reg halted = 0, limit = 0;
  integer dump, uart;
  initial begin
    dump = $fopen("retire.txt", "w");
    uart = $fopen("uart.txt", "w");
  end
  wire [6:0] opcode = dut.rvfi_insn[6:0];
  // The UART receiver: mid-bit sampling, 8N1.
  reg rx_busy = 0;
  reg [3:0] rx_bit = 0;
  reg [15:0] rx_count = 0;
  reg [7:0] rx_byte = 0;
  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (cycle >= 64'd{max_cycles}) $fatal(1, "HUNG after %0d cycles", cycle);
    if (dut.overflow) $fatal(1, "FIFO overflow: an event was lost");
    if (dut.bus_error) $fatal(1, "BUS access outside the RAM and ports");
    if (dut.rvfi_valid && dut.rvfi_pc_rdata < {ram} && !halted) begin
      instructions <= instructions + 1;
      if (opcode == 7'b0000011) $fwrite(dump, "V %h %h\n", dut.rvfi_pc_rdata, dut.rvfi_rd_wdata);
      if (opcode == 7'b1100011 || opcode == 7'b1101111 || opcode == 7'b1100111)
        $fwrite(dump, "E %h %h\n", dut.rvfi_pc_rdata, dut.rvfi_pc_wdata);
      if (instructions + 1 == 64'd{max_instructions}) begin
        halted <= 1;
        limit <= 1;
        end_cycle <= cycle;
      end
    end
    // The CPU stops at the program's ebreak (or at a fault).
    if (dut.rvfi_valid && dut.cpu_halt && !halted) begin
      halted <= 1;
      end_cycle <= cycle;
    end
    if (dut.bus_valid && !dut.bus_ack && !halted && dut.stall) stall_cycles <= stall_cycles + 1;
    if (dut.start && dut.bus_addr == 32'h{main_end_port:08x} && dut.bus_wstrb != 0 && main_end == 0)
      main_end <= cycle;
{fed}    // The end: trapped, and no event, report word, character or UART bit for `quiet` clocks.
    if (!halted || {busy} || rx_busy || !uart_tx) still <= 0;
    else still <= still + 1;
    if (still == {quiet}) begin
      $fclose(dump);
      $fclose(uart);
      $display("SUMMARY instructions %0d cycles %0d stall_cycles %0d dropped %0d exited %0d exit %0d limit %0d main_end %0d",
               instructions, end_cycle, stall_cycles, {dropped}, dut.exited, dut.exit_code, limit, main_end);
      $finish;
    end
  end
  // The UART's receiver, on the UART's clock.
  always @(posedge {uart_clock}) begin
    if (!rx_busy) begin
      // The line is driven from the end of reset on.
      if (dut.resetn && !uart_tx) begin
        rx_busy <= 1;
        rx_bit <= 0;
        rx_count <= {first};
      end
    end else if (rx_count != 0) begin
      rx_count <= rx_count - 1;
    end else if (rx_bit < 8) begin
      rx_byte <= {{uart_tx, rx_byte[7:1]}};
      rx_bit <= rx_bit + 1;
      rx_count <= {cpb_m1};
    end else begin
      if (!uart_tx) $fatal(1, "UART framing error at cycle %0d", cycle);
      $fwrite(uart, "%c", rx_byte);
      rx_busy <= 0;
    end
  end
  // Stopped at the limit, the CPU gets no more memory and the tap takes nothing more: forced
  // between clock edges, after the last instruction's event was pushed.
  always @(negedge clk) if (limit) begin
    force dut.start = 1'b0;{untap}
  end
endmodule
"#,
        dut = if shape(s.board).flash {
            format!(
                r#"  wire flash_csb, flash_clk, flash_io0, flash_io1, flash_io2, flash_io3;
  {top} dut(.clk(clk), {prof_ports}.btn_n(1'b1), .uart_tx(uart_tx), .led(led), .flash_csb(flash_csb),
    .flash_clk(flash_clk), .flash_io0(flash_io0), .flash_io1(flash_io1), .flash_io2(flash_io2),
    .flash_io3(flash_io3));
  spiflash flash(.csb(flash_csb), .clk(flash_clk), .io0(flash_io0), .io1(flash_io1),
    .io2(flash_io2), .io3(flash_io3));"#,
            )
        } else {
            format!(
                "  {top} dut(.clk(clk), {prof_ports}.btn_n(1'b1), .uart_tx(uart_tx), .led(led));"
            )
        },
        uart_clock = if prof_ports.is_empty() {
            "clk"
        } else {
            "prof_clk"
        },
        defines = crate::verify::netlist::DEFINES,
        ram = shape(s.board).ram_bytes,
        main_end_port = MAIN_END_PORT,
        fed = if profiler && bus {
            "    if (dut.t_valid && dut.t_ready) begin\n      $fwrite(dump, \"T %h %h\\n\", dut.t_a, dut.t_b);\n      if (dut.slave.enable) $fwrite(dump, \"F %h %h\\n\", dut.t_a, dut.t_b);\n    end\n"
        } else {
            ""
        },
        busy = match (profiler, bus) {
            (true, false) => "dut.profiler.ev_valid || dut.r_valid || dut.c_valid",
            (true, true) => "dut.t_valid || dut.con_valid",
            (false, true) => "dut.con_valid",
            (false, false) => "1'b0",
        },
        dropped = if profiler { "dut.dropped" } else { "0" },
        untap = if profiler {
            "\n    force dut.tapped = 1'b0;"
        } else {
            ""
        },
        first = clocks_per_bit + clocks_per_bit / 2 - 1,
        cpb_m1 = clocks_per_bit - 1,
    )
}

/// The build target of the system `s` around `cfg`'s profiler (with the bus readout, the program
/// gets the start-up code that drains the profiler's slave).
pub fn board_target(s: &BoardSystem, cfg: &ProfilerConfig) -> programs::BuildTarget {
    let sh = shape(s.board);
    programs::BuildTarget {
        ram_bytes: sh.ram_bytes,
        m: sh.m && s.cpu.m_extension(),
        system: format!("{} system with {}", s.board.name(), s.cpu.name()),
        readout: (s.readout == Readout::Bus).then(|| programs::ReadoutBuild {
            writer: s.writer().then_some(WRITER_BASE),
            ..super::system::readout_build(s.cpu, cfg, s.report_fifo)
        }),
    }
}

/// How to run a program on the simulated board system.
#[derive(Debug, Clone)]
pub struct BoardRunOptions {
    pub system: BoardSystem,
    pub program: ProgramSource,
    pub cfg: ProfilerConfig,
    pub simulator: Simulator,
    pub short: bool,
    pub top: usize,
    /// Retired instructions after which the program is stopped.
    pub max_instructions: u64,
    /// Also runs the program on the same system without the profiler, for the cycles profiling
    /// costs ([`BoardRun::perturbation`]).
    pub compare_unprofiled: bool,
}

/// A simulated board run.
#[derive(Debug, Clone, Serialize)]
pub struct BoardRun {
    pub board: Board,
    pub cpu: Cpu,
    pub program: String,
    pub short: bool,
    pub mode: Mode,
    pub readout: Readout,
    /// The profiler's own clock (`--async`), Hz; the CPU's is the board's oscillator.
    pub profiler_clock_hz: Option<u64>,
    pub simulator: String,
    pub configuration: String,
    pub instructions: u64,
    /// Clocks until the program ended; with the bus readout, until `main` returned (the start-up
    /// code then drains and prints the reports).
    pub cycles: u64,
    /// The same on the same system without the profiler (and its readout), and
    /// `cycles / cycles_unprofiled`: what profiling costs the program.
    pub cycles_unprofiled: Option<u64>,
    pub perturbation: Option<f64>,
    pub stall_cycles: u64,
    /// Events the tap dropped (0: the stall policy is lossless; the run fails otherwise).
    pub dropped: u64,
    /// Events fed to the profiler, reports decoded from the UART transcript (the formatter's
    /// lines, or the program's printout of what it read over the bus), and the intervals on
    /// which they differ from the model's reports.
    pub events: u64,
    pub reports: u64,
    pub mismatches: u64,
    /// Bytes and lines the UART sent, and the clocks per bit it ran at in simulation (the
    /// board's divider is larger; nothing else differs).
    pub uart_bytes: usize,
    pub uart_lines: usize,
    pub uart_clocks_per_bit: u64,
    pub simulation_seconds: f64,
    /// The program's exit status (none when stopped at the limit).
    pub exit_code: Option<u32>,
    /// Stopped after `max_instructions` retired instructions; the profile covers those.
    pub stopped_at_limit: bool,
    pub profile: ModeResult,
    /// With the bus readout: what the program printed on its console besides the report words.
    pub console: String,
    /// The UART transcript.
    #[serde(skip)]
    pub transcript: String,
}

/// What one simulation of the board system gave.
struct Simulated {
    instructions: u64,
    cycles: u64,
    stall_cycles: u64,
    dropped: u64,
    exit_code: Option<u32>,
    stopped_at_limit: bool,
    /// The clock of the store marking `main`'s end (0: none).
    main_end: u64,
    dump: String,
    transcript: String,
    seconds: f64,
}

fn field(f: &[&str], i: usize, line: &str) -> Result<u64, SocError> {
    f.get(i)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| SocError::Failure(format!("malformed simulation summary {line:?}")))
}

/// The iCEBreaker's flash, `SB_IO` and `SB_SPRAM256KA` for Verilator: the parts of PicoSoC's
/// `spiflash` and Yosys's `cells_sim.v` that the system uses, without event-driven constructs.
const ICEBREAKER_MODELS: &str = include_str!("icebreaker_models.v");

/// Simulates the board system (with or without the `profiler`) running `built`.
fn simulate(
    o: &BoardRunOptions,
    built: &programs::Built,
    profiler: bool,
) -> Result<Simulated, SocError> {
    let s = &o.system;
    let name = o.program.name();
    let cpb = SIM_CLOCKS_PER_BIT;
    let v = system_verilog(s, &o.cfg, &built.words, cpb, profiler)?;
    let io = |e: std::io::Error| SocError::Failure(format!("simulation directory: {e}"));
    let dir = SimDir::new("soc-board").map_err(io)?;
    let sys = dir.file("system.v");
    std::fs::write(&sys, v).map_err(io)?;
    let tb = dir.file("tb.v");
    // Quiet long enough for the profiler's end-of-interval drain and a whole report line.
    let quiet = 8 * (o.cfg.entries as u64 + o.cfg.accumulator.entries as u64) + 64 * 10 * cpb;
    std::fs::write(
        &tb,
        testbench(s, profiler, cpb, quiet, 2_000_000_000, o.max_instructions),
    )
    .map_err(io)?;
    let mut sources = vec![sys, tb];
    if shape(s.board).flash {
        let build = SimDir::new("soc-board-flash").map_err(io)?;
        let flash = flash_image(&built.words, &build.path)?;
        let mut hex = format!("@{FLASH_BOOT:08x}\n");
        for b in &flash {
            writeln!(hex, "{b:02x}").unwrap();
        }
        std::fs::write(dir.file("firmware.hex"), hex).map_err(io)?;
        match o.simulator {
            // PicoSoC's flash model and Yosys's cell models are event-driven (delays, `z`
            // tests): Icarus runs them as they are, Verilator their cycle-based equivalents,
            // which give the same cycles (`flash_models_agree`).
            Simulator::Icarus => {
                let pkg = programs::picorv32_dir()?;
                sources.push(pkg.join("picosoc/spiflash.v"));
                sources.push(cell_models(Family::Ice40).map_err(SocError::Missing)?);
            }
            Simulator::Verilator => {
                let models = dir.file("icebreaker_models.v");
                std::fs::write(&models, ICEBREAKER_MODELS).map_err(io)?;
                sources.push(models);
            }
        }
    }
    let (stdout, seconds) = run_with(o.simulator, &dir, &sources, "tb").map_err(|e| {
        if e.0.contains("not found on PATH") {
            SocError::Missing(e.0)
        } else {
            SocError::Failure(e.0)
        }
    })?;
    let line = stdout
        .lines()
        .find(|l| l.starts_with("SUMMARY "))
        .ok_or_else(|| {
            SocError::Failure(format!(
                "the simulation ended without its summary:\n{stdout}"
            ))
        })?;
    let f: Vec<&str> = line.split_whitespace().collect();
    let (exited, exit_code, limit) = (
        field(&f, 10, line)?,
        field(&f, 12, line)? as u32,
        field(&f, 14, line)? == 1,
    );
    let instructions = field(&f, 2, line)?;
    if exited != 1 && !limit {
        return Err(SocError::Failure(format!(
            "{name} trapped without writing its exit code after {instructions} instructions"
        )));
    }
    if exit_code != 0 && exited == 1 && o.program.status_is_checked() {
        return Err(SocError::Failure(format!(
            "{name} exited with code {exit_code}"
        )));
    }
    let transcript = String::from_utf8(std::fs::read(dir.file("uart.txt")).map_err(io)?)
        .map_err(|_| SocError::Failure("the UART sent bytes that are not text".into()))?;
    Ok(Simulated {
        instructions,
        cycles: field(&f, 4, line)?,
        stall_cycles: field(&f, 6, line)?,
        dropped: field(&f, 8, line)?,
        exit_code: (exited == 1).then_some(exit_code),
        stopped_at_limit: limit,
        main_end: field(&f, 16, line)?,
        dump: std::fs::read_to_string(dir.file("retire.txt")).map_err(io)?,
        transcript,
        seconds,
    })
}

/// Builds the program, simulates the board system, decodes its UART transcript and compares the
/// reports with the model's on the events the profiler was fed.
pub fn run(o: &BoardRunOptions) -> Result<BoardRun, SocError> {
    let s = &o.system;
    s.check(&o.cfg)?;
    let bus = s.readout == Readout::Bus;
    let build = SimDir::new("soc-board-build").map_err(|e| SocError::Failure(e.to_string()))?;
    let built = programs::build(&o.program, o.short, &build.path, &board_target(s, &o.cfg))?;
    let name = o.program.name();
    let symbols = programs::symbols(&built.elf)?;
    let sim = simulate(o, &built, true)?;
    let retired = parse_dump(&sim.dump, s.mode, 'R')?;
    let (events, hardware, console, cycles) = if bus {
        if sim.stopped_at_limit {
            return Err(SocError::Input(format!(
                "{name} was stopped at --max-instructions {} before returning from main: with \
                 --readout bus the program prints its reports after main, so it must end (raise \
                 the limit, or use --readout uart)",
                o.max_instructions
            )));
        }
        if sim.main_end == 0 {
            return Err(SocError::Failure(format!(
                "{name} ended without returning from main; UART:\n{}",
                sim.transcript
            )));
        }
        // The tap takes every retired event (none lost under stall); the slave discards those
        // it takes while the program has it disabled (while it prints a full buffer, and after
        // main): the profiler's input, and the model's, are the others.
        let taken = parse_dump(&sim.dump, s.mode, 'T')?;
        if taken != retired {
            return Err(SocError::Failure(format!(
                "the tap took {} events, not the {} retired (first difference at event {:?})",
                taken.len(),
                retired.len(),
                taken.iter().zip(&retired).position(|(a, b)| a != b)
            )));
        }
        let fed = parse_dump(&sim.dump, s.mode, 'F')?;
        let mut words = Vec::new();
        let mut console = String::new();
        for line in sim.transcript.split_inclusive('\n') {
            match parse_bus_word(line.trim_end()) {
                Some(w) => words.push(w.map_err(|e| {
                    SocError::Failure(format!("the program printed a bad report word: {e}"))
                })?),
                None => console.push_str(line),
            }
        }
        let hardware = super::run::reports_of(&words, s.mode.letter());
        (fed, hardware, console, sim.main_end)
    } else {
        let hardware = decode(&sim.transcript).map_err(SocError::Failure)?;
        (retired, hardware, String::new(), sim.cycles)
    };
    let cycles_unprofiled = if o.compare_unprofiled {
        let bare = simulate(o, &built, false)?;
        Some(if bus {
            if bare.main_end == 0 {
                return Err(SocError::Failure(format!(
                    "{name} did not return from main on the system without the profiler; UART:\n{}",
                    bare.transcript
                )));
            }
            bare.main_end
        } else {
            bare.cycles
        })
    } else {
        None
    };
    let flushed = s.readout == Readout::Bus;
    let mut profile = mode_result(&o.cfg, &events, hardware, flushed, o.top, |a, b| {
        match s.mode {
            Mode::Value => symbols.name(a),
            Mode::Edge => format!("{} -> {}", symbols.name(a), symbols.name(b)),
        }
    })?;
    for t in profile.top.iter_mut() {
        t.line = symbols.short_line(t.a);
    }
    Ok(BoardRun {
        board: s.board,
        cpu: s.cpu,
        program: name,
        short: o.short,
        mode: s.mode,
        readout: s.readout,
        profiler_clock_hz: s.profiler_pll()?.map(|p| p.out_hz(s.board.oscillator_hz())),
        simulator: format!("{:?}", o.simulator).to_lowercase(),
        configuration: o.cfg.summary(),
        instructions: sim.instructions,
        cycles,
        cycles_unprofiled,
        perturbation: cycles_unprofiled.map(|u| cycles as f64 / u as f64),
        stall_cycles: sim.stall_cycles,
        dropped: sim.dropped,
        events: profile.events,
        reports: profile.reports,
        mismatches: profile.mismatches,
        uart_bytes: sim.transcript.len(),
        uart_lines: sim.transcript.matches('\n').count(),
        uart_clocks_per_bit: SIM_CLOCKS_PER_BIT,
        simulation_seconds: sim.seconds,
        exit_code: sim.exit_code,
        stopped_at_limit: sim.stopped_at_limit,
        profile,
        console,
        transcript: sim.transcript,
    })
}

/// The events of a retire dump: the tapped mode's retired events (`R`: lines `V pc value` /
/// `E pc next`), those the tap passed on (`T`: lines `T a b`), or those of them fed to the
/// profiler (`F`: lines `F a b`).
fn parse_dump(dump: &str, mode: Mode, which: char) -> Result<Vec<(u64, u64)>, SocError> {
    let mut out = Vec::new();
    for (n, line) in dump.lines().enumerate() {
        let bad = || SocError::Failure(format!("retire.txt line {}: {line:?}", n + 1));
        let f: Vec<&str> = line.split_whitespace().collect();
        let [m, a, b] = f.as_slice() else {
            return Err(bad());
        };
        let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|_| bad());
        if m.len() != 1 || !"VEFT".contains(*m) {
            return Err(bad());
        }
        let wanted = if "FT".contains(which) {
            which
        } else {
            mode.letter()
        };
        if m.starts_with(wanted) {
            out.push((hex(a)?, hex(b)?));
        }
    }
    Ok(out)
}

/// The reports in a UART transcript: the host's side of `hwprof soc decode`. Lines may end in
/// CR LF (as sent) or LF (as some terminals save them); a first line that is not a whole report
/// line is dropped (the capture began mid-line), and so is text after the last line break (it
/// ended mid-line). Any other malformed line is an error naming it.
pub fn decode(transcript: &str) -> Result<Vec<IntervalReport>, String> {
    let mut lines: Vec<&str> = transcript
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .map(|l| l.trim_end_matches('\n').trim_end_matches('\r'))
        .collect();
    let whole = |ls: &[&str]| -> String { ls.iter().map(|l| format!("{l}\r\n")).collect() };
    if !lines.is_empty() && report_format::parse(&whole(&lines[..1])).is_err() {
        lines.remove(0);
    }
    report_format::parse(&whole(&lines))
}

/// The system as a design for the synthesis flow, at the board's UART divider. The program is
/// built in `work`; on the iCEBreaker its flash image is `work/flash.bin` (`iceprog -o 1M`).
pub fn design(
    s: &BoardSystem,
    cfg: &ProfilerConfig,
    program: &ProgramSource,
    short: bool,
    profiler: bool,
    work: &Path,
) -> Result<crate::flow::Design, SocError> {
    let built = programs::build(program, short, work, &board_target(s, cfg))?;
    if shape(s.board).flash {
        let flash = flash_image(&built.words, &work.join("boot"))?;
        let path = work.join("flash.bin");
        std::fs::write(&path, flash)
            .map_err(|e| SocError::Failure(format!("{}: {e}", path.display())))?;
    }
    Ok(crate::flow::Design {
        name: format!(
            "soc-{}-{}-{}{}{}",
            s.board.name(),
            s.cpu.name(),
            program.name(),
            if s.readout == Readout::Bus {
                "-bus"
            } else {
                ""
            },
            if profiler { "" } else { "-cpu-only" }
        ),
        verilog: system_verilog(s, cfg, &built.words, s.uart_clocks_per_bit()?, profiler)?,
        top: top_module(s.board),
        events_per_clock: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::multihash::ReportEntry;
    use crate::soc::run::{mismatches, DEFAULT_PROFILER};
    use hwprof_hdl::ConfigFile;

    fn report(interval: u64, entries: &[(u64, u64, u64)]) -> IntervalReport {
        IntervalReport {
            interval,
            entries: entries
                .iter()
                .map(|&(a, b, count)| ReportEntry { a, b, count })
                .collect(),
        }
    }

    #[test]
    fn the_ulx3s_profiler_on_its_own_clock_is_floorplanned_from_the_bottom_right() {
        let mut s = BoardSystem {
            board: Board::Ulx3s,
            cpu: Cpu::PicoRv32,
            mode: Mode::Value,
            readout: Readout::Uart,
            report_fifo: 0,
            profiler_clock_hz: Some(50_000_000),
        };
        let plan = profiler_floorplan(&s).unwrap();
        assert_eq!(plan.sites[..2], ["X120/Y82/EBR3", "X118/Y82/EBR2"]);
        assert_eq!(plan.sites[7], "X105/Y82/EBR0");
        assert_eq!(plan.sites.last().unwrap(), "X4/Y22/EBR0");
        let distinct: std::collections::BTreeSet<_> = plan.sites.iter().collect();
        assert_eq!(distinct.len(), 208);
        s.profiler_clock_hz = None;
        assert!(profiler_floorplan(&s).is_none());
        s.profiler_clock_hz = Some(18_000_000);
        s.board = Board::Icebreaker;
        assert!(profiler_floorplan(&s).is_none());
    }

    #[test]
    fn decode_reads_crlf_and_lf_drops_partial_ends_and_names_bad_lines() {
        let sent = "0000002a 00000270 00000072 00000062\r\n0000002a end\r\n0000002b end\r\n";
        let want = vec![report(0x2a, &[(0x270, 0x72, 0x62)]), report(0x2b, &[])];
        assert_eq!(decode(sent).unwrap(), want);
        assert_eq!(decode(&sent.replace("\r\n", "\n")).unwrap(), want);
        // A capture that began and ended mid-line.
        let cut = format!("0 00000072 0000\r\n{sent}0000002c 0000");
        assert_eq!(decode(&cut).unwrap(), want);
        let bad = sent.replace("0000002a end", "0000002a fin");
        assert!(decode(&bad).unwrap_err().contains("line 2"), "{bad}");
    }

    #[test]
    fn the_flash_holds_the_boot_stub_then_the_image() {
        let dir = SimDir::new("flash-test").unwrap();
        let image = [0x0000_0093u32, 0xdead_beef, 0x1234_5678];
        let f = flash_image(&image, &dir.path).unwrap();
        assert_eq!(f.len(), (FLASH_IMAGE - FLASH_BOOT) as usize + 12);
        // lui t0, FLASH_IMAGE >> 12 (the stub's first instruction: the image's address).
        assert_eq!(&f[..4], &0x0010_02b7u32.to_le_bytes());
        assert_eq!(&f[256..260], &0x0000_0093u32.to_le_bytes());
        assert_eq!(&f[260..264], &0xdead_beefu32.to_le_bytes());
    }

    #[test]
    fn keys_narrower_than_the_boards_pcs_are_refused_narrower_than_the_tap_masked() {
        let mut cfg =
            ProfilerConfig::from_toml_str(DEFAULT_PROFILER.1, DEFAULT_PROFILER.0).unwrap();
        cfg.a_bits = 17;
        assert!(check_config(&cfg, Board::Icebreaker, Mode::Value).is_ok());
        // The tap's 32-bit words reach the narrower profiler, which masks them.
        let system = BoardSystem {
            board: Board::Icebreaker,
            cpu: Cpu::PicoRv32,
            mode: Mode::Value,
            readout: Readout::Uart,
            report_fifo: 0,
            profiler_clock_hz: None,
        };
        let v = blocks_verilog(&cfg, &system, 4, true).unwrap();
        assert!(
            v.contains(&hwprof_hdl::tap::export::wrapper_name(PROFILER)),
            "no wrapper"
        );
        let e = check_config(&cfg, Board::Ulx3s, Mode::Value)
            .unwrap_err()
            .to_string();
        assert!(e.contains("at least 18"), "{e}");
        cfg.b_bits = 17;
        assert!(check_config(&cfg, Board::Icebreaker, Mode::Edge).is_ok());
        assert!(check_config(&cfg, Board::Icebreaker, Mode::Value).is_err());
    }

    /// SERV on the ULX3S system: its stream, stopped at a limit, decodes to the model's reports.
    #[test]
    fn serv_on_the_board_system_reports_what_the_model_does() {
        let mut cfg =
            ProfilerConfig::from_toml_str(DEFAULT_PROFILER.1, DEFAULT_PROFILER.0).unwrap();
        cfg.interval = 300;
        let r = run(&BoardRunOptions {
            system: BoardSystem {
                board: Board::Ulx3s,
                cpu: Cpu::Serv,
                // The first instructions build crc's table: branches, no loads.
                mode: Mode::Edge,
                readout: Readout::Uart,
                report_fifo: 0,
                profiler_clock_hz: None,
            },
            program: ProgramSource::Bundled(programs::Program::parse("crc").unwrap()),
            cfg,
            simulator: Simulator::Verilator,
            short: true,
            top: 3,
            max_instructions: 60_000,
            compare_unprofiled: false,
        })
        .unwrap();
        assert!(r.stopped_at_limit && r.instructions == 60_000, "{r:?}");
        assert!(r.reports >= 3, "{} reports", r.reports);
        assert_eq!((r.reports, r.mismatches), (r.profile.model_reports, 0));
        // Bit-serial: tens of clocks an instruction, where PicoRV32 takes a few.
        assert!(r.cycles > 20 * r.instructions, "{} cycles", r.cycles);
    }

    /// The profiler on a clock of its own: the PLL is in the top, for synthesis only, beside the
    /// system; the bus readout is refused; simulated at two clock ratios (the ULX3S's default
    /// 2:1 and 6:5), the UART transcript decodes to the model's reports, and a profiler clock
    /// twice the CPU's stalls the CPU less than one clock for both.
    #[test]
    fn the_profiler_on_a_clock_of_its_own_reports_what_the_model_does() {
        let mut cfg =
            ProfilerConfig::from_toml_str(DEFAULT_PROFILER.1, DEFAULT_PROFILER.0).unwrap();
        cfg.interval = 300;
        let system = |board, hz| BoardSystem {
            board,
            cpu: Cpu::PicoRv32,
            mode: Mode::Value,
            readout: Readout::Uart,
            report_fifo: 0,
            profiler_clock_hz: hz,
        };
        for (board, pll) in [
            (Board::Icebreaker, "SB_PLL40_2_PAD"),
            (Board::Ulx3s, "EHXPLLL"),
        ] {
            let s = system(board, Some(default_profiler_clock_hz(board)));
            let v = top_verilog(&s, &cfg, &[0x0010_0073], true).unwrap();
            let at = |x: &str| v.find(x).unwrap_or_else(|| panic!("{x} missing"));
            assert!(at("`ifdef SYNTHESIS") < at(pll) && at(pll) < at("`else"));
            assert!(v.contains(&format!(
                "module {}_system(input clk, input prof_clock",
                top_module(board)
            )));
            assert!(v.contains(".prof_clock(prof_clock), .prof_reset(prof_reset)"));
            // The CPU alone has no second clock.
            assert!(!top_verilog(&s, &cfg, &[0x0010_0073], false)
                .unwrap()
                .contains(pll));
            let bus = BoardSystem {
                readout: Readout::Bus,
                report_fifo: hwprof_hdl::readout::fifo_depth(&cfg),
                ..s
            };
            let e = bus.check(&cfg).unwrap_err().to_string();
            assert!(e.contains("--readout uart"), "{e}");
        }
        let e = system(Board::Icebreaker, Some(13_000_000))
            .check(&cfg)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--profiler-mhz") && e.contains("13 MHz"), "{e}");

        let stalls = |hz| {
            let r = run(&BoardRunOptions {
                system: system(Board::Ulx3s, hz),
                program: ProgramSource::Bundled(programs::Program::parse("crc").unwrap()),
                cfg: cfg.clone(),
                simulator: Simulator::Verilator,
                short: true,
                top: 3,
                max_instructions: crate::soc::system::DEFAULT_MAX_INSTRUCTIONS,
                compare_unprofiled: false,
            })
            .unwrap();
            assert!(r.reports >= 10, "{} reports", r.reports);
            assert_eq!(
                (r.reports, r.mismatches),
                (r.profile.model_reports, 0),
                "{hz:?}"
            );
            assert_eq!(r.profiler_clock_hz, hz);
            r.stall_cycles
        };
        let one = stalls(None);
        assert!(stalls(Some(50_000_000)) < one);
        stalls(Some(30_000_000));
    }

    /// A program with loads in a loop, small enough for Icarus to run through the flash quickly.
    const FLASH_TEST_PROGRAM: &str = "static volatile unsigned t[64];\n\
        int main(void) {\n  unsigned s = 0;\n\
          for (int r = 0; r < 12; r++)\n    for (int i = 0; i < 64; i++) {\n\
              t[i] += i ^ r;\n      s += t[(i * 7) & 63];\n    }\n\
          return s == 0x12345678;\n}\n";

    /// The loads program on the iCEBreaker system, bus readout, with and without the profiler.
    fn icebreaker_run(dir: &SimDir, simulator: Simulator) -> BoardRun {
        let file = dir.file("loads.c");
        std::fs::write(&file, FLASH_TEST_PROGRAM).unwrap();
        let (name, text) = default_config(Board::Icebreaker);
        let mut cfg = ProfilerConfig::from_toml_str(text, name).unwrap();
        cfg.interval = 100;
        run(&BoardRunOptions {
            system: BoardSystem {
                board: Board::Icebreaker,
                cpu: Cpu::PicoRv32,
                mode: Mode::Value,
                readout: Readout::Bus,
                report_fifo: default_report_fifo(Board::Icebreaker, &cfg),
                profiler_clock_hz: None,
            },
            program: ProgramSource::C {
                files: vec![file],
                cflags: Vec::new(),
            },
            cfg,
            simulator,
            short: false,
            top: 3,
            max_instructions: crate::soc::system::DEFAULT_MAX_INSTRUCTIONS,
            compare_unprofiled: true,
        })
        .unwrap()
    }

    /// The iCEBreaker system under Verilator, with the cycle-based models of the flash and the
    /// iCE40 cells, runs clock for clock as under Icarus with PicoSoC's flash model and Yosys's
    /// cells, with the profiler and without; the program's printout is the model's reports.
    #[test]
    fn flash_models_agree() {
        let dir = SimDir::new("flash-models").unwrap();
        let v = icebreaker_run(&dir, Simulator::Verilator);
        let i = icebreaker_run(&dir, Simulator::Icarus);
        assert!(v.reports >= 5, "{} reports", v.reports);
        assert_eq!((v.reports, v.mismatches), (v.profile.model_reports, 0));
        assert_eq!(i.mismatches, 0);
        assert_eq!(
            (
                v.instructions,
                v.cycles,
                v.cycles_unprofiled,
                v.events,
                v.reports
            ),
            (
                i.instructions,
                i.cycles,
                i.cycles_unprofiled,
                i.events,
                i.reports
            )
        );
        // The report writer leaves the program alone: the start-up code's stores are all it costs.
        let p = v.perturbation.unwrap();
        assert!((1.0..1.001).contains(&p), "perturbation {p}");
    }

    /// A program whose array takes most of the RAM, so that the readout buffer holds a few
    /// records: the report writer fills it and stops, its interrupt prints it mid-run and starts
    /// it over, in both modes; nothing is lost and the printout is the model's reports.
    #[test]
    fn the_report_writer_fills_its_buffer_and_the_program_prints_it_mid_run() {
        let dir = SimDir::new("writer-full").unwrap();
        let file = dir.file("full.c");
        std::fs::write(
            &file,
            "static volatile unsigned big[28000];\n".to_string() + FLASH_TEST_PROGRAM,
        )
        .unwrap();
        // L = 100 and T = 1 % of it: a report at every hundred events, of every tuple seen.
        let (name, text) = default_config(Board::Icebreaker);
        let short = text.replace("interval = 1000\n", "interval = 100\n");
        assert_ne!(short, text);
        let cfg = ProfilerConfig::from_toml_str(&short, name).unwrap();
        for mode in [Mode::Value, Mode::Edge] {
            let r = run(&BoardRunOptions {
                system: BoardSystem {
                    board: Board::Icebreaker,
                    cpu: Cpu::PicoRv32,
                    mode,
                    readout: Readout::Bus,
                    report_fifo: default_report_fifo(Board::Icebreaker, &cfg),
                    profiler_clock_hz: None,
                },
                program: ProgramSource::C {
                    files: vec![file.clone()],
                    cflags: Vec::new(),
                },
                cfg: cfg.clone(),
                simulator: Simulator::Verilator,
                short: false,
                top: 3,
                max_instructions: crate::soc::system::DEFAULT_MAX_INSTRUCTIONS,
                compare_unprofiled: true,
            })
            .unwrap();
            assert!(r.reports >= 5, "{mode:?}: {} reports", r.reports);
            assert_eq!((r.reports, r.mismatches), (r.profile.model_reports, 0));
            // Printed mid-run: the console's clocks are in main's.
            let p = r.perturbation.unwrap();
            assert!(p > 1.05, "{mode:?}: perturbation {p}");
        }
    }

    /// A short program on the board system under Verilator: the reports decoded from the UART
    /// transcript equal the model's on the dumped retire stream, in both modes, and a corrupted
    /// transcript is caught.
    #[test]
    fn the_uart_transcript_of_a_short_program_decodes_to_the_models_reports() {
        let mut cfg =
            ProfilerConfig::from_toml_str(DEFAULT_PROFILER.1, DEFAULT_PROFILER.0).unwrap();
        cfg.interval = 300;
        for mode in [Mode::Value, Mode::Edge] {
            let r = run(&BoardRunOptions {
                system: BoardSystem {
                    board: Board::Ulx3s,
                    cpu: Cpu::PicoRv32,
                    mode,
                    readout: Readout::Uart,
                    report_fifo: 0,
                    profiler_clock_hz: None,
                },
                program: ProgramSource::Bundled(programs::Program::parse("crc").unwrap()),
                cfg: cfg.clone(),
                simulator: Simulator::Verilator,
                short: true,
                top: 3,
                max_instructions: crate::soc::system::DEFAULT_MAX_INSTRUCTIONS,
                compare_unprofiled: false,
            })
            .unwrap();
            assert!(r.reports >= 5, "{mode:?}: {} reports", r.reports);
            assert_eq!(r.reports, r.profile.model_reports, "{mode:?}");
            assert_eq!(r.mismatches, 0, "{mode:?}");
            assert!(r.stall_cycles > 0, "the UART never back-pressured the CPU");
            assert_eq!(r.dropped, 0);
            // One changed digit of a count in the transcript is one differing interval.
            let mut at = 0;
            let end = r
                .transcript
                .split_inclusive("\r\n")
                .find_map(|l| {
                    at += l.len();
                    (l.split(' ').count() == 4).then_some(at - 3)
                })
                .expect("an entry line");
            let mut bad = r.transcript.clone().into_bytes();
            bad[end] = if bad[end] == b'0' { b'1' } else { b'0' };
            let bad = decode(std::str::from_utf8(&bad).unwrap()).unwrap();
            assert_eq!(mismatches(&bad, &r.profile.model), 1, "{mode:?}");
        }
    }

    /// The bus readout on the ULX3S system: the program drains the profiler's slave (here on its
    /// interrupt: the FIFO holds one report) and prints the words on the UART; they are the
    /// model's reports on the events the slave took.
    #[test]
    fn the_program_prints_on_the_uart_what_it_read_over_the_bus() {
        let mut cfg =
            ProfilerConfig::from_toml_str(DEFAULT_PROFILER.1, DEFAULT_PROFILER.0).unwrap();
        cfg.interval = 300;
        let o = BoardRunOptions {
            system: BoardSystem {
                board: Board::Ulx3s,
                cpu: Cpu::PicoRv32,
                mode: Mode::Value,
                readout: Readout::Bus,
                report_fifo: hwprof_hdl::readout::fifo_depth(&cfg),
                profiler_clock_hz: None,
            },
            program: ProgramSource::Bundled(programs::Program::parse("crc").unwrap()),
            cfg,
            simulator: Simulator::Verilator,
            short: true,
            top: 3,
            max_instructions: crate::soc::system::DEFAULT_MAX_INSTRUCTIONS,
            compare_unprofiled: true,
        };
        let r = run(&o).unwrap();
        assert!(r.reports >= 10, "{} reports", r.reports);
        assert_eq!((r.reports, r.mismatches), (r.profile.model_reports, 0));
        assert!(r.console.contains("crc checksum"), "{}", r.console);
        let p = r.perturbation.unwrap();
        // Every word drained mid-run costs the handler about 40 clocks: with a report every 300
        // loads and a FIFO of one report, about 1.15.
        assert!(p > 1.0 && p < 1.3, "perturbation {p}");
        // The printout is what is compared: one count changed is one differing interval.
        let line = r
            .transcript
            .lines()
            .find(|l| matches!(parse_bus_word(l), Some(Ok(w)) if w.4 != 0))
            .expect("a report word");
        let mut f: Vec<String> = line.split(' ').map(String::from).collect();
        let n = f.len();
        f[n - 2] = format!("{:08x}", u64::from_str_radix(&f[n - 2], 16).unwrap() + 1);
        let words: Vec<_> = r
            .transcript
            .replacen(line, &f.join(" "), 1)
            .lines()
            .filter_map(|l| parse_bus_word(l).map(Result::unwrap))
            .collect();
        let bad = super::super::run::reports_of(&words, 'V');
        assert_eq!(mismatches(&bad, &r.profile.model), 1);
    }
}
