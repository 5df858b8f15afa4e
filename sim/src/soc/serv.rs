//! SERV (PyPI `pythondata-cpu-serv`, ISC licence), the bit-serial RV32I core, as the system's CPU:
//! `serv_rf_top` (the core with its register file in a RAM, the CSRs on, RVFI under
//! `` `define RISCV_FORMAL ``) and the adapter from its two Wishbone-like buses to the system's
//! one-access bus.
//!
//! What SERV's RVFI shows (checked against PicoRV32 on the same RV32I program, record by record):
//! the same pc, instruction, next pc, rd and rd value for every instruction; for a load, the
//! word-aligned address and the whole word read, `rvfi_mem_rmask` being the lanes read (PicoRV32
//! shows 1111 for every load), so the loaded value is the word shifted by the mask's lowest lane,
//! equal to `rvfi_rd_wdata` when rd ≠ 0. The program's final `ebreak` retires with `rvfi_trap`
//! and next pc the trap vector (`mtvec`; PicoRV32: the ebreak's own pc); it is not a transfer,
//! so no event carries it.

use super::programs;
use super::SocError;
use std::path::PathBuf;

pub(crate) const INSTALL_SERV: &str = "run `bash scripts/venv.sh` from the repository root: it installs PyPI pythondata-cpu-serv into ./.venv (or point HWPROF_SERV at the package's verilog directory, the one holding rtl/serv_rf_top.v)";

/// What `serv_rf_top` needs, from the package's `rtl/` (its `serv.core` lists the same).
pub const RTL: [&str; 16] = [
    "serv_aligner.v",
    "serv_alu.v",
    "serv_bufreg.v",
    "serv_bufreg2.v",
    "serv_compdec.v",
    "serv_csr.v",
    "serv_ctrl.v",
    "serv_decode.v",
    "serv_immdec.v",
    "serv_mem_if.v",
    "serv_rf_if.v",
    "serv_rf_ram.v",
    "serv_rf_ram_if.v",
    "serv_state.v",
    "serv_top.v",
    "serv_rf_top.v",
];

/// The package's Verilog directory (holding `rtl/`): `HWPROF_SERV`, else the package installed in
/// the nearest `.venv`.
pub fn serv_dir() -> Result<PathBuf, SocError> {
    let marker = "rtl/serv_rf_top.v";
    if let Some(d) = std::env::var_os("HWPROF_SERV") {
        let d = PathBuf::from(d);
        return if d.join(marker).is_file() {
            Ok(d)
        } else {
            Err(SocError::Missing(format!(
                "HWPROF_SERV={} holds no {marker}: {INSTALL_SERV}",
                d.display()
            )))
        };
    }
    programs::venv_package("pythondata_cpu_serv", marker).ok_or_else(|| {
        SocError::Missing(format!(
            "SERV (PyPI pythondata-cpu-serv) not found in a .venv: {INSTALL_SERV}"
        ))
    })
}

/// SERV's Verilog sources, in [`RTL`] order.
pub fn sources() -> Result<Vec<PathBuf>, SocError> {
    let rtl = serv_dir()?.join("rtl");
    RTL.iter()
        .map(|f| {
            let p = rtl.join(f);
            if p.is_file() {
                Ok(p)
            } else {
                Err(SocError::Missing(format!(
                    "{} is missing from the SERV package: {INSTALL_SERV}",
                    p.display()
                )))
            }
        })
        .collect()
}

/// SERV and its bus adapter inside `hwprof_soc`: drives the RVFI wires, `cpu_halt` and the bus
/// (`bus_valid`, `bus_instr`, `bus_addr`, `bus_wdata`, `bus_wstrb`) of the RAM, which answers
/// with `bus_ack` and `bus_rdata` a clock later and holds a fetch back while `stall`; the first
/// instruction at `reset_pc`. With `irq`, `readout_irq`'s or is the timer interrupt; SERV then
/// retires the interrupted instruction as a trap (it runs again after `mret`), so only the final
/// ebreak ends the run.
pub fn instance(reset_pc: u32, irq: bool) -> String {
    let (timer_irq, halt) = if irq {
        (
            "|readout_irq",
            format!("rvfi_trap && rvfi_insn == 32'h{:08x}", super::cpu::EBREAK),
        )
    } else {
        ("1'b0", "rvfi_trap".to_string())
    };
    format!(
        r#"
  // SERV: bit-serial, 32 or more clocks per instruction, the next instruction fetched once the
  // current one is done, so holding a fetch back lets at most the fetched instruction retire.
  // Its register file (and CSRs) start cleared, for one retire stream in every simulator.
`define SERV_CLEAR_RAM
  wire [31:0] ibus_adr, dbus_adr, dbus_dat;
  wire ibus_cyc, dbus_cyc, dbus_we;
  wire [3:0] dbus_sel;
  // The program ends with ebreak after its exit store: a trap (the CSRs are on, so ebreak traps)
  // is its last instruction.
  wire cpu_halt = {halt};
  // SERV does not stop at a trap but jumps to mtvec: no fetch is answered after it.
  reg serv_stopped = 0;
  always @(posedge clock)
    if (!resetn) serv_stopped <= 0;
    else if (rvfi_valid && cpu_halt) serv_stopped <= 1;
  // The two buses are never active at once: the RAM serves whichever is.
  assign bus_instr = ibus_cyc;
  assign bus_valid = ibus_cyc ? !(serv_stopped || (rvfi_valid && cpu_halt)) : dbus_cyc;
  assign bus_addr = ibus_cyc ? ibus_adr : dbus_adr;
  assign bus_wdata = dbus_dat;
  assign bus_wstrb = !ibus_cyc && dbus_we ? dbus_sel : 4'd0;
  serv_rf_top #(.RESET_PC(32'h{reset_pc:08x}), .RESET_STRATEGY("MINI"), .WITH_CSR(1), .MDU(0), .COMPRESSED(0))
    cpu(.clk(clock), .i_rst(!resetn), .i_timer_irq({timer_irq}),
        .rvfi_valid(rvfi_valid), .rvfi_order(rvfi_order), .rvfi_insn(rvfi_insn),
        .rvfi_trap(rvfi_trap), .rvfi_halt(), .rvfi_intr(), .rvfi_mode(), .rvfi_ixl(),
        .rvfi_rs1_addr(), .rvfi_rs2_addr(), .rvfi_rs1_rdata(), .rvfi_rs2_rdata(),
        .rvfi_rd_addr(rvfi_rd_addr), .rvfi_rd_wdata(rvfi_rd_wdata), .rvfi_pc_rdata(rvfi_pc_rdata),
        .rvfi_pc_wdata(rvfi_pc_wdata), .rvfi_mem_addr(rvfi_mem_addr),
        .rvfi_mem_rmask(rvfi_mem_rmask), .rvfi_mem_wmask(), .rvfi_mem_rdata(rvfi_mem_rdata),
        .rvfi_mem_wdata(),
        .o_ibus_adr(ibus_adr), .o_ibus_cyc(ibus_cyc), .i_ibus_rdt(bus_rdata),
        .i_ibus_ack(bus_ack && ibus_cyc), .o_dbus_adr(dbus_adr), .o_dbus_dat(dbus_dat),
        .o_dbus_sel(dbus_sel), .o_dbus_we(dbus_we), .o_dbus_cyc(dbus_cyc), .i_dbus_rdt(bus_rdata),
        .i_dbus_ack(bus_ack && dbus_cyc), .o_ext_rs1(), .o_ext_rs2(), .o_ext_funct3(),
        .i_ext_rd(32'd0), .i_ext_ready(1'b0), .o_mdu_valid());
"#
    )
}
