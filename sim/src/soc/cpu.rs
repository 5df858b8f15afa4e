//! The CPUs of the simulated system. Each gives a section of Verilog placed inside the harness
//! module `hwprof_soc` ([`super::system`]), which declares `clock`, `resetn` (active low),
//! `cycle` and `stall` before it. A section declares and drives:
//!
//! - one retire channel of the RISC-V Formal Interface: `rvfi_valid`, `rvfi_order`, `rvfi_insn`,
//!   `rvfi_trap`, `rvfi_pc_rdata`, `rvfi_pc_wdata`, `rvfi_mem_addr`, `rvfi_mem_rmask`,
//!   `rvfi_mem_rdata`, `rvfi_rd_addr`, `rvfi_rd_wdata` (declared with the memory, [`memory`]);
//! - `cpu_halt`: high with `rvfi_valid` on the last instruction the run counts;
//! - `stall_cycles`: clocks the CPU was held back by `stall`;
//! - `exited`, `exit_code`: set by a store to [`EXIT_PORT`];
//! - the RAM of the system at address 0 (from `program.hex`), the console ([`CONSOLE`]: a store
//!   writes its low byte to `console.txt`) and the exit port; any other address stops the
//!   simulation.
//!
//! `stall` is honoured by holding back the CPU's next instruction fetch: at most the instruction
//! already fetched retires while it is high.

use super::programs;
use super::serv;
use super::SocError;
use std::path::PathBuf;

/// The console (a byte per store) and the exit port (the program's exit code ends the run).
pub const CONSOLE: u32 = 0x1000_0000;
pub const EXIT_PORT: u32 = 0x1000_0004;
/// With the bus readout: a store marks the end of `main` (the program's own cycles end there; the
/// start-up code then drains and prints the reports), and the two profilers' Wishbone slaves
/// (value mode at [`READOUT_BASE`], edge mode at `READOUT_BASE + 0x100`); the window reads 0
/// when the system has no profiler.
pub const MAIN_END_PORT: u32 = 0x1000_0008;
pub const READOUT_BASE: u32 = 0x1000_1000;
/// The ebreak that ends every program: with interrupts on, other traps are not the end.
pub const EBREAK: u32 = 0x0010_0073;

/// A CPU of the simulated system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cpu {
    /// PicoRV32 (RV32IM, fast multiplier and divider, barrel shifter): one instruction in flight.
    #[default]
    PicoRv32,
    /// SERV (RV32I, bit-serial: 32 or more clocks an instruction).
    Serv,
}

impl Cpu {
    pub fn name(self) -> &'static str {
        match self {
            Cpu::PicoRv32 => "picorv32",
            Cpu::Serv => "serv",
        }
    }

    /// Whether programs may use the M extension.
    pub fn m_extension(self) -> bool {
        match self {
            Cpu::PicoRv32 => true,
            Cpu::Serv => false,
        }
    }

    /// The CPU's Verilog sources.
    pub fn sources(self) -> Result<Vec<PathBuf>, SocError> {
        match self {
            Cpu::PicoRv32 => Ok(vec![programs::picorv32_dir()?.join("picorv32.v")]),
            Cpu::Serv => serv::sources(),
        }
    }

    /// Cycles one instruction may take at most (divisions, stalls aside): scales the time-outs.
    pub fn max_cycles_per_instruction(self) -> u64 {
        match self {
            Cpu::PicoRv32 => 40,
            // About 35 clocks for most instructions, 70 for loads, stores and branches, up to
            // 100 for shifts by 31.
            Cpu::Serv => 200,
        }
    }

    /// The section of `hwprof_soc` for this CPU with a RAM of `ram_bytes`.
    pub fn section(self, ram_bytes: usize, readout: bool) -> String {
        memory(ram_bytes, readout)
            + &self.core(&Core {
                ram_bytes,
                reset_pc: 0,
                small: false,
                irq: readout,
            })
    }

    /// The core and its adapter to the one-access bus: drives the retire channel, `cpu_halt` and
    /// the bus request (`bus_valid`, `bus_instr`, `bus_addr`, `bus_wdata`, `bus_wstrb`) from
    /// `clock`, `resetn`, `bus_ack` (a clock's pulse answering the request) and `bus_rdata`, all
    /// declared before it (by [`memory`] here, by the board's top on a board).
    pub fn core(self, o: &Core) -> String {
        match self {
            Cpu::PicoRv32 => picorv32(o),
            Cpu::Serv => serv::instance(o.reset_pc, o.irq),
        }
    }
}

/// How a core is built in a system.
#[derive(Debug, Clone, Copy)]
pub struct Core {
    /// RAM bytes from address 0: the stack starts at its top.
    pub ram_bytes: usize,
    /// The first instruction's address.
    pub reset_pc: u32,
    /// The smallest core (PicoRV32 without M, the barrel shifter and the 64-bit counters: the
    /// UP5K's 5 280 cells); SERV is always RV32I.
    pub small: bool,
    /// Interrupts on, from `readout_irq` (2 bits, declared before the core): PicoRV32's IRQs 3
    /// and 4, level-sensitive; SERV's timer interrupt, their or.
    pub irq: bool,
}

/// The wires every CPU drives (the retire channel, the bus request), and the RAM, console and exit
/// port on that one-access-at-a-time bus (`bus_*`), answered a clock
/// after the request unless `stall` holds an instruction fetch back. Shared by the CPUs, whose
/// adapters drive the request (placed after this, they `assign` the bus wires declared here).
fn memory(ram_bytes: usize, readout: bool) -> String {
    let words = ram_bytes / 4;
    let hi = words.trailing_zeros() + 1;
    // The readout window: its accesses are answered by the slaves (their `wb_ack` rises with
    // `bus_ack`), which the harness connects to `ro_*`.
    let (window_decl, window_case) = if readout {
        (
            format!(
                r#"
  reg [63:0] main_end = 0;
  wire ro_sel = bus_addr[31:9] == 23'h{window:06x};
  wire ro_access = resetn && bus_valid && !bus_ack && !bus_held && ro_sel;
  wire [31:0] ro_rdata;
  wire [1:0] readout_irq;
  reg ro_read = 0;
  always @(posedge clock) ro_read <= ro_access;
  wire [31:0] bus_rdata = ro_read ? ro_rdata : mem_rdata;"#,
                window = READOUT_BASE >> 9
            ),
            format!(
                r#" else if (ro_sel) begin
        // A slave answers.
      end else if (bus_addr == 32'h{MAIN_END_PORT:08x} && bus_wstrb != 0) begin
        if (main_end == 0) main_end <= cycle;
      end"#
            ),
        )
    } else {
        (
            "\n  wire [31:0] bus_rdata = mem_rdata;\n  wire [1:0] readout_irq = 2'd0;".to_string(),
            String::new(),
        )
    };
    format!(
        r#"
  // RAM (one word per access, a cycle after the request), console and exit port.
  reg [31:0] ram [0:{last_word}];
  integer i;
  initial begin
    for (i = 0; i < {words}; i = i + 1) ram[i] = 0;
    $readmemh("program.hex", ram);
  end
  // The program's console goes to its own file, apart from the harness's lines on stdout.
  integer console;
  initial console = $fopen("console.txt", "w");
  reg [63:0] stall_cycles = 0;
  reg [31:0] exit_code = 32'hffffffff;
  reg exited = 0;
  // The retire channel, driven by the CPU.
  wire rvfi_valid, rvfi_trap;
  wire [63:0] rvfi_order;
  wire [31:0] rvfi_insn, rvfi_pc_rdata, rvfi_pc_wdata, rvfi_rd_wdata, rvfi_mem_addr, rvfi_mem_rdata;
  wire [3:0] rvfi_mem_rmask;
  wire [4:0] rvfi_rd_addr;
  // The bus: the CPU's adapter drives the request, the memory answers.
  wire bus_valid, bus_instr;
  wire [31:0] bus_addr, bus_wdata;
  wire [3:0] bus_wstrb;
  reg bus_ack = 0;
  reg [31:0] mem_rdata = 0;
  wire [{hi}:2] word = bus_addr[{hi}:2];
  wire bus_held = bus_instr && stall;{window_decl}
  always @(posedge clock) begin
    bus_ack <= 0;
    if (resetn && bus_valid && !bus_ack && bus_held) stall_cycles <= stall_cycles + 1;
    if (resetn && bus_valid && !bus_ack && !bus_held) begin
      bus_ack <= 1;
      if (bus_addr < {ram_bytes}) begin
        mem_rdata <= ram[word];
        if (bus_wstrb[0]) ram[word][7:0] <= bus_wdata[7:0];
        if (bus_wstrb[1]) ram[word][15:8] <= bus_wdata[15:8];
        if (bus_wstrb[2]) ram[word][23:16] <= bus_wdata[23:16];
        if (bus_wstrb[3]) ram[word][31:24] <= bus_wdata[31:24];
      end else if (bus_addr == 32'h{console:08x} && bus_wstrb != 0) begin
        $fwrite(console, "%c", bus_wdata[7:0]);
      end else if (bus_addr == 32'h{exit:08x} && bus_wstrb != 0) begin
        exit_code <= bus_wdata;
        exited <= 1;
      end{window_case} else begin
        $fatal(1, "BUS access to %h outside the RAM and ports", bus_addr);
      end
    end
  end
"#,
        last_word = words - 1,
        console = CONSOLE,
        exit = EXIT_PORT,
    )
}

fn picorv32(o: &Core) -> String {
    let (ram, reset) = (o.ram_bytes, o.reset_pc);
    let irq = if o.irq {
        ",\n             .ENABLE_IRQ(1), .ENABLE_IRQ_QREGS(1), .LATCHED_IRQ(32'hffff_ffe7)"
    } else {
        ""
    };
    let params = if o.small {
        format!(".ENABLE_COUNTERS(1), .ENABLE_COUNTERS64(0), .ENABLE_MUL(0), .ENABLE_DIV(0),\n             .BARREL_SHIFTER(0), .TWO_STAGE_SHIFT(0), .CATCH_MISALIGN(0), .CATCH_ILLINSN(0),\n             .COMPRESSED_ISA(0), .PROGADDR_RESET(32'h{reset:08x}), .STACKADDR({ram})")
    } else {
        format!(".ENABLE_COUNTERS(1), .ENABLE_FAST_MUL(1), .ENABLE_DIV(1), .BARREL_SHIFTER(1),\n             .COMPRESSED_ISA(0), .PROGADDR_RESET(32'h{reset:08x}), .STACKADDR({ram})")
    } + irq;
    let irq_in = if o.irq {
        "{27'd0, readout_irq, 3'd0}"
    } else {
        "32'd0"
    };
    format!(
        r#"
  // PicoRV32: every instruction is fetched through its one memory port.
  wire trap, mem_valid, mem_instr;
  wire [31:0] mem_addr, mem_wdata;
  wire [3:0] mem_wstrb;
  assign bus_valid = mem_valid;
  assign bus_instr = mem_instr;
  assign bus_addr = mem_addr;
  assign bus_wdata = mem_wdata;
  assign bus_wstrb = mem_wstrb;
  picorv32 #({params})
    cpu(.clk(clock), .resetn(resetn), .trap(trap), .mem_valid(mem_valid), .mem_instr(mem_instr),
        .mem_ready(bus_ack), .mem_addr(mem_addr), .mem_wdata(mem_wdata), .mem_wstrb(mem_wstrb),
        .mem_rdata(bus_rdata), .pcpi_wr(1'b0), .pcpi_rd(32'd0), .pcpi_wait(1'b0), .pcpi_ready(1'b0),
        .irq({irq_in}), .rvfi_valid(rvfi_valid), .rvfi_order(rvfi_order), .rvfi_insn(rvfi_insn),
        .rvfi_trap(rvfi_trap), .rvfi_pc_rdata(rvfi_pc_rdata), .rvfi_pc_wdata(rvfi_pc_wdata),
        .rvfi_rd_addr(rvfi_rd_addr), .rvfi_rd_wdata(rvfi_rd_wdata), .rvfi_mem_addr(rvfi_mem_addr),
        .rvfi_mem_rmask(rvfi_mem_rmask), .rvfi_mem_rdata(rvfi_mem_rdata));
  // The program ends with ebreak after its exit store: the trap is its last instruction.
  wire cpu_halt = rvfi_trap;
"#
    )
}
