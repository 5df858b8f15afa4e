//! The system on a board: PicoRV32 with the multi-hash profiler on its retire stream and the
//! profiler's reports on the UART, as one synthesizable Verilog top for a board, its simulation
//! (the same Verilog under Icarus or Verilator, with the UART transcript decoded by the host's
//! parser and compared with the model fed the dumped retire stream), and its synthesis.
//!
//! **The system** (module `hwprof_soc_<board>`): the CPU as in [`super::system`] (RV32IM, RVFI on),
//! a RAM of [`ram_bytes`] in block RAM holding the program from the bitstream (reset vector 0,
//! stack at its top), the console (writes are acknowledged and dropped: the UART carries the
//! reports) and the exit port (a write ends the program; the CPU then traps on `ebreak`). The tap
//! takes one mode of [`super::system`]: value (`<pc, loaded value>` of every retired load) or
//! edge (`<pc, next pc>` of every control transfer), through a FIFO of [`FIFO_DEPTH`] that stalls
//! the CPU at [`STALL_FILL`] as in the simulated system, so no event is lost however slowly the
//! UART drains the reports. The profiler's report stream goes through the line formatter of the
//! board tops ([`hwprof_hdl::board::report_format`]) to the UART transmitter (115200 8N1 on the
//! board). Sticky `overflow` and `bus_error` flags (a FIFO push when full, an access outside the
//! RAM and ports) light the LED for good; otherwise it toggles after every reported interval.
//! `btn_n` (active low) holds the CPU and the blocks in reset: on release the program restarts
//! on the RAM as the previous run left it.
//!
//! **On the board**: only the ULX3S (ECP5-85F: 208 block RAMs hold a 256 KiB RAM and the
//! profiler); the iCEBreaker's UP5K cannot hold the program in block RAM (30 × 4 kbit), and
//! PicoSoC with the profiler needs more logic cells than it has (see [`check_board`]).

use super::programs::{self, Program, Symbols};
use super::run::{mode_result, ModeResult};
use super::SocError;
use crate::model::board::report_format;
use crate::model::multihash::IntervalReport;
use crate::verify::icarus::{run_with, SimDir, Simulator};
use hwprof_hdl::board::top::BAUD;
use hwprof_hdl::board::uart::clocks_per_bit;
use hwprof_hdl::ProfilerConfig;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

pub use crate::flow::device::Board;

/// Entries of the tap's FIFO (distributed RAM on ECP5).
pub const FIFO_DEPTH: u32 = 16;
/// Fill at which the CPU is stalled: room for the events already in flight.
pub const STALL_FILL: u32 = FIFO_DEPTH - 4;
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
    fn letter(self) -> char {
        match self {
            Mode::Value => 'V',
            Mode::Edge => 'E',
        }
    }
}

/// The RAM of the board system, bytes: the simulated system's, so that a program is linked and
/// runs exactly as under `hwprof soc run`.
pub fn ram_bytes() -> usize {
    super::system::RAM_BYTES
}

/// Whether the system can be built for `board`; the error says why not.
pub fn check_board(board: Board) -> Result<(), SocError> {
    match board {
        Board::Ulx3s => Ok(()),
        Board::Icebreaker => Err(SocError::Input(
            "the PicoRV32 system with the profiler is built for the ULX3S only: the iCEBreaker's \
             UP5K has 30 block RAMs of 4 kbit (15 KiB; the programs need their image and stack in \
             block RAM), and PicoSoC alone takes 78 % of its logic cells (4 120 of 5 280) before \
             any profiler; use --board ulx3s"
                .into(),
        )),
    }
}

/// Module names of the blocks in the board system.
const PROFILER: &str = "soc-board-profiler";
const FORMAT: &str = "soc-board-format";
const UART: &str = "soc-board-uart";

/// The top module of the system on `board`.
pub fn top_module(board: Board) -> String {
    format!("hwprof_soc_{}", board.name())
}

/// The Verilog of the hwprof blocks of the system: the profiler, the line formatter and the UART
/// at `clocks_per_bit`, each renamed after its design.
pub fn blocks_verilog(cfg: &ProfilerConfig, clocks_per_bit: u64) -> Result<String, SocError> {
    let cfg = cfg.clone();
    hwprof_hdl::util::on_rtl_thread(move || -> Result<String, String> {
        use hwprof_hdl::export::{module_name, rename_top};
        let mut v = hwprof_hdl::multihash::export::exported(&cfg, PROFILER)?;
        v.push_str(&rename_top(
            &hwprof_hdl::board::report_format::verilog(cfg.a_bits, cfg.b_bits)?,
            &module_name(FORMAT),
        ));
        v.push_str(&rename_top(
            &hwprof_hdl::board::uart::verilog(clocks_per_bit)?,
            &module_name(UART),
        ));
        Ok(v)
    })
    .map_err(SocError::Failure)?
    .map_err(SocError::Input)
}

/// The Verilog of the system's top (module [`top_module`]), the program's image in its RAM.
///
/// `profiler` false gives the same system without the tap, the FIFO, the profiler, the formatter
/// and the UART (the line idles high): the CPU alone, for the area comparison.
pub fn top_verilog(
    board: Board,
    mode: Mode,
    image: &[u32],
    profiler: bool,
) -> Result<String, SocError> {
    let ram = ram_bytes();
    let words = ram / 4;
    if image.len() > words {
        return Err(SocError::Input(format!(
            "the program's image ({} bytes) exceeds the system's RAM of {ram} bytes",
            image.len() * 4
        )));
    }
    let addr_bits = words.trailing_zeros() + 2;
    let mut v = String::new();
    write!(
        v,
        r#"// hwprof's PicoRV32 system for the {board_name} with the multi-hash profiler ({mode:?} mode) on the
// retire stream and its reports on the UART; generated by hwprof, do not edit.
module {top}(input clk, input btn_n, output uart_tx, output led);
  // Reset: 15 clocks after configuration, and while the button is held.
  reg [3:0] por = 0;
  reg [1:0] btn_sync = 0;
  always @(posedge clk) begin
    if (!(&por)) por <= por + 1'b1;
    btn_sync <= {{btn_sync[0], btn_n}};
  end
  wire resetn = (&por) && btn_sync[1];

  wire trap, mem_valid, mem_instr, mem_ready;
  wire [31:0] mem_addr, mem_wdata, mem_rdata;
  wire [3:0] mem_wstrb;
  wire rvfi_valid, rvfi_trap;
  wire [31:0] rvfi_insn, rvfi_pc_rdata, rvfi_pc_wdata, rvfi_rd_wdata;
  picorv32 #(.ENABLE_COUNTERS(1), .ENABLE_FAST_MUL(1), .ENABLE_DIV(1), .BARREL_SHIFTER(1),
             .COMPRESSED_ISA(0), .PROGADDR_RESET(0), .STACKADDR({ram}))
    cpu(.clk(clk), .resetn(resetn), .trap(trap), .mem_valid(mem_valid), .mem_instr(mem_instr),
        .mem_ready(mem_ready), .mem_addr(mem_addr), .mem_wdata(mem_wdata), .mem_wstrb(mem_wstrb),
        .mem_rdata(mem_rdata), .pcpi_wr(1'b0), .pcpi_rd(32'd0), .pcpi_wait(1'b0), .pcpi_ready(1'b0),
        .irq(32'd0), .rvfi_valid(rvfi_valid), .rvfi_insn(rvfi_insn), .rvfi_trap(rvfi_trap),
        .rvfi_pc_rdata(rvfi_pc_rdata), .rvfi_pc_wdata(rvfi_pc_wdata), .rvfi_rd_wdata(rvfi_rd_wdata));

{tap}
  // RAM (the program's image from the bitstream), console and exit port: one access a clock
  // after its request, none while stalled.
  reg [31:0] ram [0:{last_word}];
  reg ram_ready = 0, port_ready = 0, exited = 0, bus_error = 0;
  reg [31:0] ram_rdata = 0, exit_code = 0;
  wire [{hi}:2] word = mem_addr[{hi}:2];
  wire start = resetn && mem_valid && !mem_ready && !stall;
  always @(posedge clk) begin
    ram_ready <= start && mem_addr < {ram};
    if (start && mem_addr < {ram}) begin
      ram_rdata <= ram[word];
      if (mem_wstrb[0]) ram[word][7:0] <= mem_wdata[7:0];
      if (mem_wstrb[1]) ram[word][15:8] <= mem_wdata[15:8];
      if (mem_wstrb[2]) ram[word][23:16] <= mem_wdata[23:16];
      if (mem_wstrb[3]) ram[word][31:24] <= mem_wdata[31:24];
    end
  end
  always @(posedge clk) begin
    port_ready <= start && mem_addr >= {ram};
    if (start && mem_addr >= {ram}) begin
      if (mem_addr == 32'h{exit:08x} && mem_wstrb != 0) begin
        exited <= 1;
        exit_code <= mem_wdata;
      end else if (!(mem_addr == 32'h{console:08x} && mem_wstrb != 0)) begin
        bus_error <= 1;
      end
    end
  end
  assign mem_ready = ram_ready || port_ready;
  assign mem_rdata = ram_rdata;

{reporting}
  // The program.
  integer i;
  initial begin
`ifndef SYNTHESIS
    for (i = 0; i < {words}; i = i + 1) ram[i] = 0;
`endif
"#,
        board_name = board.name(),
        top = top_module(board),
        last_word = words - 1,
        hi = addr_bits - 1,
        exit = super::system::EXIT_PORT,
        console = super::system::CONSOLE,
        tap = if profiler { tap_verilog(mode) } else { "  wire stall = 1'b0;\n".into() },
        reporting = if profiler {
            reporting_verilog()
        } else {
            "  assign uart_tx = 1'b1;\n  assign led = bus_error;\n".into()
        },
    )
    .unwrap();
    for (i, w) in image.iter().enumerate() {
        if *w != 0 {
            writeln!(v, "    ram[{i}] = 32'h{w:08x};").unwrap();
        }
    }
    v.push_str("  end\nendmodule\n");
    Ok(v)
}

/// The tap of `mode` and the FIFO in front of the profiler.
fn tap_verilog(mode: Mode) -> String {
    let (push, b) = match mode {
        Mode::Value => ("is_load", "rvfi_rd_wdata"),
        Mode::Edge => ("is_transfer", "rvfi_pc_wdata"),
    };
    format!(
        r#"  // The tap.
  wire [6:0] opcode = rvfi_insn[6:0];
  wire is_load = rvfi_valid && opcode == 7'b0000011;
  wire is_transfer = rvfi_valid && (opcode == 7'b1100011 || opcode == 7'b1101111 || opcode == 7'b1100111);
  wire push = resetn && {push};
  wire [63:0] push_word = {{rvfi_pc_rdata, {b}}};

  // FIFO in front of the profiler; the CPU stalls while it is nearly full.
  reg [63:0] fifo [0:{last}];
  reg [4:0] head = 0, tail = 0;
  wire [4:0] fill = tail - head;
  wire p_ready;
  reg overflow = 0;
  always @(posedge clk) begin
    if (!resetn) begin
      head <= 0;
      tail <= 0;
    end else begin
      if (push) begin
        if (fill == {depth}) overflow <= 1;
        fifo[tail[3:0]] <= push_word;
        tail <= tail + 1'b1;
      end
      if (fill != 0 && p_ready) head <= head + 1'b1;
    end
  end
  wire [63:0] head_word = fifo[head[3:0]];
  wire stall = fill >= {stall_fill};
"#,
        last = FIFO_DEPTH - 1,
        depth = FIFO_DEPTH,
        stall_fill = STALL_FILL,
    )
}

/// The profiler, the line formatter and the UART on the FIFO's output.
fn reporting_verilog() -> String {
    let name = hwprof_hdl::export::module_name;
    format!(
        r#"  // Profiler -> line formatter -> UART.
  wire r_valid, r_ready, r_last, c_valid, c_ready;
  wire [31:0] r_interval, r_count;
  wire [63:0] r_a, r_b;
  wire [7:0] c_data;
  {profiler} profiler(.clock(clk), .reset(!resetn), .in_valid(fill != 0), .in_ready(p_ready),
    .in_a({{32'd0, head_word[63:32]}}), .in_b({{32'd0, head_word[31:0]}}),
    .out_valid(r_valid), .out_ready(r_ready), .out_interval(r_interval), .out_a(r_a),
    .out_b(r_b), .out_count(r_count), .out_last(r_last));
  {format} format(.clock(clk), .reset(!resetn), .in_valid(r_valid), .in_ready(r_ready),
    .in_interval(r_interval), .in_a(r_a), .in_b(r_b), .in_count(r_count), .in_last(r_last),
    .out_valid(c_valid), .out_ready(c_ready), .out_data(c_data));
  {uart} uart(.clock(clk), .reset(!resetn), .data(c_data), .valid(c_valid), .ready(c_ready),
    .tx(uart_tx));
  reg led_q = 0;
  always @(posedge clk) if (r_valid && r_ready && r_last) led_q <= !led_q;
  assign led = led_q || overflow || bus_error;
"#,
        profiler = name(PROFILER),
        format = name(FORMAT),
        uart = name(UART),
    )
}

/// The whole system as one Verilog text (RVFI enabled for the CPU read after it): top, CPU,
/// blocks. `clocks_per_bit` sets the UART (the board's from its clock, or [`SIM_CLOCKS_PER_BIT`]);
/// `profiler` false leaves the CPU alone ([`top_verilog`]).
pub fn system_verilog(
    board: Board,
    mode: Mode,
    cfg: &ProfilerConfig,
    image: &[u32],
    clocks_per_bit: u64,
    profiler: bool,
) -> Result<String, SocError> {
    check_config(cfg)?;
    let cpu_path = programs::picorv32_dir()?.join("picorv32.v");
    let cpu = std::fs::read_to_string(&cpu_path).map_err(|e| {
        SocError::Missing(format!(
            "{}: {e}: {}",
            cpu_path.display(),
            programs::INSTALL_PICORV32
        ))
    })?;
    let mut v = String::from("`define RISCV_FORMAL\n");
    v.push_str(&top_verilog(board, mode, image, profiler)?);
    v.push_str(&cpu);
    if profiler {
        v.push_str(&blocks_verilog(cfg, clocks_per_bit)?);
    }
    Ok(v)
}

fn check_config(cfg: &ProfilerConfig) -> Result<(), SocError> {
    if cfg.a_bits < 32 || cfg.b_bits < 32 {
        return Err(SocError::Input(format!(
            "the profiler's keys are 32-bit program counters and values: a_bits and b_bits must be at least 32 (are {} and {})",
            cfg.a_bits, cfg.b_bits
        )));
    }
    Ok(())
}

/// The board's UART divider at [`BAUD`].
pub fn board_clocks_per_bit(board: Board) -> Result<u64, SocError> {
    clocks_per_bit(board.clock_hz(), BAUD).map_err(SocError::Failure)
}

/// The testbench of a simulated board run (module `tb`): clocks the system, holds `btn_n` high,
/// dumps the retire records of the tapped mode to `retire.txt`, receives the UART into
/// `uart.txt`, and ends once the CPU has trapped and nothing has moved for `quiet` clocks.
pub fn testbench(board: Board, clocks_per_bit: u64, quiet: u64, max_cycles: u64) -> String {
    format!(
        r#"`timescale 1ns/1ps
// hwprof: testbench of the board system, generated by hwprof_sim::soc::board.
module tb;
  reg clk = 0;
  initial forever #5 clk = ~clk;
  wire uart_tx, led;
  {top} dut(.clk(clk), .btn_n(1'b1), .uart_tx(uart_tx), .led(led));
  reg [63:0] cycle = 0, instructions = 0, end_cycle = 0, stall_cycles = 0, still = 0;
  reg halted = 0;
  reg [4:0] max_fill = 0;
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
    if (dut.rvfi_valid && !halted) begin
      instructions <= instructions + 1;
      if (opcode == 7'b0000011) $fwrite(dump, "V %h %h\n", dut.rvfi_pc_rdata, dut.rvfi_rd_wdata);
      if (opcode == 7'b1100011 || opcode == 7'b1101111 || opcode == 7'b1100111)
        $fwrite(dump, "E %h %h\n", dut.rvfi_pc_rdata, dut.rvfi_pc_wdata);
      if (dut.rvfi_trap) begin
        halted <= 1;
        end_cycle <= cycle;
      end
    end
    if (dut.mem_valid && !dut.mem_ready && dut.stall) stall_cycles <= stall_cycles + 1;
    if (dut.fill > max_fill) max_fill <= dut.fill;
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
    // The end: trapped, and no event, report word, character or UART bit for `quiet` clocks.
    if (!halted || dut.fill != 0 || dut.r_valid || dut.c_valid || rx_busy || !uart_tx) still <= 0;
    else still <= still + 1;
    if (still == {quiet}) begin
      $fclose(dump);
      $fclose(uart);
      $display("SUMMARY instructions %0d cycles %0d stall_cycles %0d max_fill %0d exited %0d exit %0d",
               instructions, end_cycle, stall_cycles, max_fill, dut.exited, dut.exit_code);
      $finish;
    end
  end
endmodule
"#,
        top = top_module(board),
        first = clocks_per_bit + clocks_per_bit / 2 - 1,
        cpb_m1 = clocks_per_bit - 1,
    )
}

/// How to run a program on the simulated board system.
#[derive(Debug, Clone)]
pub struct BoardRunOptions {
    pub board: Board,
    pub program: Program,
    pub cfg: ProfilerConfig,
    pub mode: Mode,
    pub simulator: Simulator,
    pub short: bool,
    pub top: usize,
}

/// A simulated board run.
#[derive(Debug, Clone, Serialize)]
pub struct BoardRun {
    pub board: Board,
    pub program: String,
    pub short: bool,
    pub mode: Mode,
    pub simulator: String,
    pub configuration: String,
    pub instructions: u64,
    pub cycles: u64,
    pub stall_cycles: u64,
    pub max_fifo_fill: u64,
    /// Tapped events, reports decoded from the UART transcript, and the intervals on which they
    /// differ from the model's reports.
    pub events: u64,
    pub reports: u64,
    pub mismatches: u64,
    /// Bytes and lines the UART sent, and the clocks per bit it ran at in simulation (the
    /// board's divider is larger; nothing else differs).
    pub uart_bytes: usize,
    pub uart_lines: usize,
    pub uart_clocks_per_bit: u64,
    pub simulation_seconds: f64,
    pub exit_code: u32,
    pub profile: ModeResult,
    /// The UART transcript.
    #[serde(skip)]
    pub transcript: String,
}

fn field(f: &[&str], i: usize, line: &str) -> Result<u64, SocError> {
    f.get(i)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| SocError::Failure(format!("malformed simulation summary {line:?}")))
}

/// Builds the program, simulates the board system, decodes its UART transcript and compares the
/// reports with the model's on the dumped retire stream.
pub fn run(o: &BoardRunOptions) -> Result<BoardRun, SocError> {
    check_board(o.board)?;
    check_config(&o.cfg)?;
    let build = SimDir::new("soc-board-build").map_err(|e| SocError::Failure(e.to_string()))?;
    let built = programs::build(o.program, o.short, &build.path, ram_bytes())?;
    let symbols = Symbols::read(&built.elf)?;
    let cpb = SIM_CLOCKS_PER_BIT;
    let v = system_verilog(o.board, o.mode, &o.cfg, &built.words, cpb, true)?;
    let io = |e: std::io::Error| SocError::Failure(format!("simulation directory: {e}"));
    let dir = SimDir::new("soc-board").map_err(io)?;
    let sys = dir.file("system.v");
    std::fs::write(&sys, v).map_err(io)?;
    let tb = dir.file("tb.v");
    // Quiet long enough for the profiler's end-of-interval drain and a whole report line.
    let quiet = 8 * (o.cfg.entries as u64 + o.cfg.accumulator.entries as u64) + 64 * 10 * cpb;
    std::fs::write(&tb, testbench(o.board, cpb, quiet, 2_000_000_000)).map_err(io)?;
    let (stdout, seconds) = run_with(o.simulator, &dir, &[sys, tb], "tb").map_err(|e| {
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
    let (instructions, cycles, stall_cycles, max_fill, exited, exit_code) = (
        field(&f, 2, line)?,
        field(&f, 4, line)?,
        field(&f, 6, line)?,
        field(&f, 8, line)?,
        field(&f, 10, line)?,
        field(&f, 12, line)? as u32,
    );
    if exited != 1 {
        return Err(SocError::Failure(format!(
            "{} trapped without writing its exit code after {instructions} instructions",
            o.program.name
        )));
    }
    if exit_code != 0 && o.program.returns_status() {
        return Err(SocError::Failure(format!(
            "{} exited with code {exit_code}",
            o.program.name
        )));
    }
    let dump = std::fs::read_to_string(dir.file("retire.txt")).map_err(io)?;
    let events = parse_dump(&dump, o.mode)?;
    let transcript = String::from_utf8(std::fs::read(dir.file("uart.txt")).map_err(io)?)
        .map_err(|_| SocError::Failure("the UART sent bytes that are not text".into()))?;
    let hardware = decode(&transcript).map_err(SocError::Failure)?;
    let mut profile = mode_result(&o.cfg, &events, hardware, o.top, |a, b| match o.mode {
        Mode::Value => symbols.name(a),
        Mode::Edge => format!("{} -> {}", symbols.name(a), symbols.name(b)),
    })?;
    let addrs: Vec<u64> = profile.top.iter().map(|t| t.a).collect();
    let lines = programs::source_lines(&built.elf, &addrs)?;
    for (t, line) in profile.top.iter_mut().zip(lines) {
        t.line = line;
    }
    Ok(BoardRun {
        board: o.board,
        program: o.program.name.to_string(),
        short: o.short,
        mode: o.mode,
        simulator: format!("{:?}", o.simulator).to_lowercase(),
        configuration: o.cfg.summary(),
        instructions,
        cycles,
        stall_cycles,
        max_fifo_fill: max_fill,
        events: profile.events,
        reports: profile.reports,
        mismatches: profile.mismatches,
        uart_bytes: transcript.len(),
        uart_lines: transcript.matches("\r\n").count(),
        uart_clocks_per_bit: cpb,
        simulation_seconds: seconds,
        exit_code,
        profile,
        transcript,
    })
}

/// The tapped mode's events of a retire dump (`V pc value` / `E pc next` lines).
fn parse_dump(dump: &str, mode: Mode) -> Result<Vec<(u64, u64)>, SocError> {
    let mut out = Vec::new();
    for (n, line) in dump.lines().enumerate() {
        let bad = || SocError::Failure(format!("retire.txt line {}: {line:?}", n + 1));
        let f: Vec<&str> = line.split_whitespace().collect();
        let [m, a, b] = f.as_slice() else {
            return Err(bad());
        };
        let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|_| bad());
        if m.len() != 1 || !"VE".contains(*m) {
            return Err(bad());
        }
        if m.starts_with(mode.letter()) {
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

/// The system as a design for the synthesis flow: the board's UART divider, its constraints.
pub fn design(
    board: Board,
    mode: Mode,
    cfg: &ProfilerConfig,
    program: Program,
    short: bool,
    profiler: bool,
    work: &Path,
) -> Result<crate::flow::Design, SocError> {
    check_board(board)?;
    let built = programs::build(program, short, work, ram_bytes())?;
    Ok(crate::flow::Design {
        name: format!(
            "soc-{}-{}{}",
            board.name(),
            program.name,
            if profiler { "" } else { "-cpu-only" }
        ),
        verilog: system_verilog(
            board,
            mode,
            cfg,
            &built.words,
            board_clocks_per_bit(board)?,
            profiler,
        )?,
        top: top_module(board),
        events_per_clock: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::multihash::ReportEntry;
    use crate::soc::run::{mismatches, DEFAULT_PROFILER};

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
    fn the_icebreaker_is_refused_with_the_reason() {
        let e = check_board(Board::Icebreaker).unwrap_err().to_string();
        assert!(e.contains("block RAM") && e.contains("ulx3s"), "{e}");
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
                board: Board::Ulx3s,
                program: Program::parse("crc").unwrap(),
                cfg: cfg.clone(),
                mode,
                simulator: Simulator::Verilator,
                short: true,
                top: 3,
            })
            .unwrap();
            assert!(r.reports >= 5, "{mode:?}: {} reports", r.reports);
            assert_eq!(r.reports, r.profile.model_reports, "{mode:?}");
            assert_eq!(r.mismatches, 0, "{mode:?}");
            assert!(r.stall_cycles > 0, "the UART never back-pressured the CPU");
            assert!(r.max_fifo_fill <= FIFO_DEPTH as u64);
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
}
