//! The simulated system: a CPU ([`super::cpu`]: PicoRV32 or SERV) with its RAM, console and exit
//! port, and hwprof's blocks on its retire stream, each behind the RVFI tap
//! ([`hwprof_hdl::tap`]): the multi-hash profiler twice, as the generated `hwprof_<name>_rvfi`
//! wrapper in value mode and in edge mode, the profile buffer on the conditional branches and
//! the phase classifier on the control transfers.
//!
//! **What is compared.** The harness dumps every retired load and control transfer as its RVFI
//! record (`retire.txt`, lines `R order insn trap pc next rd_wdata`), and every event each block
//! took from its tap with the count lost before it (`C <mode> a b lost`). The tap's model turns
//! the records into each mode's events; under the stall policy the events taken must be exactly
//! those, under the drop policy those with the dropped ones left out. The blocks' models are fed
//! the events taken, and must report what the hardware did.
//!
//! **Clocks.** With one clock the blocks run on the CPU's. With a clock of their own
//! ([`SystemParams::asynchronous`]) the taps' FIFOs cross into the blocks' clock, `prof_clock`,
//! whose frequency is `ratio.0 / ratio.1` of the CPU's and whose edges are offset from the
//! CPU's (at 1:1 too).
//!
//! **No event is lost under `stall`.** The taps' `stall` outputs, or-ed, hold back the CPU's next
//! instruction fetch; a dropped event under the stall policy is a failed run.

use super::cpu::Cpu;
use super::SocError;
use crate::eval::flat_profile::parse_bus_word;
use crate::model::tap::RvfiRecord;
use crate::verify::icarus::{run_with, SimDir, Simulator};
use hwprof_hdl::phase::config::{PHASE_ID_BITS, WEIGHT_BITS};
use hwprof_hdl::tap::TapMode;
use std::fmt::Write as _;
use std::path::PathBuf;

pub use super::cpu::{CONSOLE, EXIT_PORT};

/// RAM size; programs/link.ld places the stack at its top.
pub const RAM_BYTES: usize = 256 * 1024;

/// Instructions after which a program that has not ended is stopped, by default.
pub const DEFAULT_MAX_INSTRUCTIONS: u64 = 50_000_000;

/// How the profilers' reports leave the system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Readout {
    /// The testbench captures the report streams (the profilers' `out_*` ports, always ready).
    #[default]
    Stream,
    /// Each profiler sits behind its Wishbone slave on the CPU's bus ([`super::cpu::READOUT_BASE`]);
    /// the program's start-up code drains the slaves on their interrupt and prints the report
    /// words on its console after `main` returns.
    Bus,
    /// The board systems': the profiler's report stream goes through a line formatter to the
    /// UART ([`super::board`]).
    Uart,
}

impl Readout {
    pub fn name(self) -> &'static str {
        match self {
            Readout::Stream => "stream",
            Readout::Bus => "bus",
            Readout::Uart => "uart",
        }
    }
}

/// The Wishbone slave of the bus readout: its module is named after it, and so are the macros of
/// its C header (`hwprof_soc_readout.h`), which the start-up code includes.
pub const SLAVE: &str = "soc-readout";

/// The slaves' IRQ_LEVEL for the bus readout: the interrupt comes while a report FIFO of `depth`
/// words still has room for a whole report (every accumulator entry and the end word), so that a
/// report arriving before the handler runs never makes the profiler wait, which would stall the
/// CPU that is to drain it. A deep FIFO gives many words per interrupt.
pub fn irq_level(cfg: &hwprof_hdl::ProfilerConfig, depth: u32) -> u32 {
    let slots = depth + 1;
    let report = cfg.accumulator.entries as u32 + 1;
    if slots > report {
        slots - report + 1
    } else {
        1
    }
}

/// What a program built for the bus readout needs: the start-up code for `cpu` and the header of
/// the slaves around `cfg`'s profiler with report FIFOs of `depth` words.
pub fn readout_build(
    cpu: Cpu,
    cfg: &hwprof_hdl::ProfilerConfig,
    depth: u32,
) -> super::programs::ReadoutBuild {
    super::programs::ReadoutBuild {
        cpu,
        header: hwprof_hdl::readout::c_header(cfg, SLAVE, depth),
        irq_level: irq_level(cfg, depth),
        registers: hwprof_hdl::readout::registers(cfg, depth)
            .into_iter()
            .map(|r| (r.name.to_string(), r.offset))
            .collect(),
        writer: None,
    }
}

/// What the system's Verilog depends on besides the blocks.
#[derive(Debug, Clone, Copy)]
pub struct SystemParams {
    pub cpu: Cpu,
    pub readout: Readout,
    /// Whether the blocks are there at all (else the same system without them: the profile's
    /// cost is the difference).
    pub profiled: bool,
    /// Whether the blocks have a clock of their own, and the clock frequencies, blocks : CPU.
    pub asynchronous: bool,
    pub ratio: (u32, u32),
    /// Clocks of the blocks the system waits after the program ends, for the reports of the last
    /// complete interval.
    pub drain_cycles: u64,
    /// Clocks after which a run that has not ended is stopped as hung.
    pub max_cycles: u64,
    /// Retired instructions after which the program is stopped (reported as such).
    pub max_instructions: u64,
}

/// The hwprof blocks in the system: module names and the widths of their ports that depend on the
/// configuration.
#[derive(Debug, Clone)]
pub struct Blocks {
    /// The profiler's RVFI wrappers in value and edge mode (stream readout).
    pub value_wrapper: String,
    pub edge_wrapper: String,
    /// With the bus readout: the value and edge taps, and the profiler's Wishbone slave.
    pub value_tap: String,
    pub edge_tap: String,
    pub slave: String,
    /// The taps of the profile buffer and the phase classifier.
    pub branch_tap: String,
    pub phase_tap: String,
    pub buffer: String,
    pub buffer_tag_bits: u32,
    pub buffer_counter_bits: u32,
    pub phase: String,
    pub phase_distance_bits: u32,
}

/// What starts every line the system prints besides the console's text (which may precede it on
/// the same line): a program's own output never looks like a block's.
pub const TAG: &str = "@@hwprof ";

/// The taps, in the order of the summary's counts: value, edge, branch, phase.
pub const TAPS: [TapMode; 4] = TapMode::ALL;

fn letter(m: TapMode) -> char {
    match m {
        TapMode::Value => 'V',
        TapMode::Edge => 'E',
        TapMode::Branch => 'B',
        TapMode::Phase => 'P',
    }
}

/// The RVFI connections of a tap or wrapper instance.
const RVFI_PORTS: &str = ".rvfi_valid(rvfi_valid && !halted), .rvfi_order(rvfi_order), .rvfi_insn(rvfi_insn), \
.rvfi_trap(rvfi_trap), .rvfi_pc_rdata(rvfi_pc_rdata), .rvfi_pc_wdata(rvfi_pc_wdata), .rvfi_rd_wdata(rvfi_rd_wdata)";

/// The Verilog of the system (module `hwprof_soc`) around the CPU's section and the blocks. It
/// reads `program.hex` and writes `retire.txt` (with the bus readout also the events fed to the
/// profilers, `F <mode> a b`) and `console.txt` (the program's console) in its working directory;
/// on stdout, the blocks' output as lines after [`TAG`] — `R <mode> <interval> <a> <b> <count>
/// <last> <dropped>` (profiler with the stream readout, mode V value or E edge), `B <index> <tag> <taken> <not taken> <last>`
/// (profile buffer readout), `P <interval> <phase> <distance> <predicted>` (phase classifier) —
/// and a closing `SUMMARY` line.
pub fn verilog(blocks: &Blocks, p: SystemParams) -> String {
    let mut v = String::new();
    let wb = WEIGHT_BITS;
    let rvfi = RVFI_PORTS;
    let (half_cpu, half_prof) = (p.ratio.0, p.ratio.1);
    let prof_clock = if p.asynchronous {
        format!(
            "reg prof_clock = 0;\n  initial begin #1; forever #{half_prof} prof_clock = ~prof_clock; end"
        )
    } else {
        "wire prof_clock = clock;".to_string()
    };
    write!(
        v,
        r#"// hwprof's system with hwprof blocks on the CPU's retire stream; generated by hwprof, do not edit.
`define RISCV_FORMAL
`timescale 1ns/1ps
module hwprof_soc;
  reg clock = 0;
  initial forever #{half_cpu} clock = ~clock;
  {prof_clock}
  reg [4:0] reset_count = 0;
  wire resetn = reset_count == 5'd20;
  // The blocks' reset, synchronous to their clock.
  reg prof_reset_meta = 1, prof_reset = 1;
  always @(posedge prof_clock) begin
    prof_reset_meta <= !resetn;
    prof_reset <= prof_reset_meta;
  end
  reg [63:0] cycle = 0;
  always @(posedge clock) begin
    if (!resetn) reset_count <= reset_count + 1;
    cycle <= cycle + 1;
    if (cycle >= 64'd{max_cycles}) $fatal(1, "HUNG after %0d cycles", cycle);
  end
  wire stall;
{cpu}
  // Retirement: counted until the CPU's last instruction or the instruction limit.
  reg halted = 0;
  reg limit = 0;
  reg [63:0] instructions = 0;
  reg [63:0] end_cycle = 0;
  wire retire = rvfi_valid && !halted;
  wire [6:0] opcode = rvfi_insn[6:0];
  wire dumped = opcode == 7'b0000011 || opcode == 7'b1100011 || opcode == 7'b1101111 || opcode == 7'b1100111;
  integer dump;
  initial dump = $fopen("retire.txt", "w");
  always @(posedge clock) begin
    if (retire) begin
      instructions <= instructions + 1;
      if (cpu_halt || instructions + 1 == 64'd{max_instructions}) begin
        halted <= 1;
        limit <= !cpu_halt;
        end_cycle <= cycle;
      end
      if (dumped) $fwrite(dump, "R %h %h %h %h %h %h\n", rvfi_order, rvfi_insn, rvfi_trap, rvfi_pc_rdata, rvfi_pc_wdata, rvfi_rd_wdata);
    end
  end
"#,
        cpu = p.cpu.section(RAM_BYTES, p.readout == Readout::Bus),
        max_cycles = p.max_cycles,
        max_instructions = p.max_instructions,
    )
    .unwrap();
    let main_end = if p.readout == Readout::Bus {
        "main_end"
    } else {
        "64'd0"
    };
    if !p.profiled {
        if p.readout == Readout::Bus {
            v.push_str("  assign ro_rdata = 32'd0;\n  assign readout_irq = 2'd0;\n");
        }
        v.push_str("  assign stall = 1'b0;\n");
        v.push_str(&ending(p, None, main_end));
        return v;
    }
    let clocks = if p.asynchronous {
        ".prof_clock(prof_clock), .prof_reset(prof_reset), "
    } else {
        ""
    };
    if p.readout == Readout::Bus {
        for (m, tap, bit) in [("v", &blocks.value_tap, 0), ("e", &blocks.edge_tap, 1)] {
            let mode = if m == "v" { 'V' } else { 'E' };
            let slave = &blocks.slave;
            write!(
                v,
                r#"
  // The {mode} profiler behind its Wishbone slave, at READOUT_BASE + 0x{bit}00.
  wire {m}_stall, {m}_valid, {m}_ready, {m}_wb_ack, {m}_irq;
  wire [31:0] {m}_dropped, {m}_a, {m}_b, {m}_wb_dat_r;
  wire [15:0] {m}_lost;
  wire {m}_cyc = ro_access && bus_addr[8] == 1'b{bit};
  {tap} {m}_tap(.clock(clock), .reset(!resetn), {rvfi}, .stall({m}_stall), .dropped({m}_dropped),
    .ev_clock(prof_clock), .ev_reset(prof_reset), .ev_valid({m}_valid), .ev_ready({m}_ready),
    .ev_a({m}_a), .ev_b({m}_b), .ev_lost({m}_lost));
  {slave} {m}_slave(.clock(clock), .reset(!resetn), .in_valid({m}_valid), .in_ready({m}_ready),
    .in_a({{32'd0, {m}_a}}), .in_b({{32'd0, {m}_b}}), .in_dropped({m}_dropped),
    .wb_cyc({m}_cyc), .wb_stb({m}_cyc), .wb_we(bus_wstrb != 4'd0),
    .wb_sel(bus_wstrb != 4'd0 ? bus_wstrb : 4'hf), .wb_adr(bus_addr[7:0]), .wb_dat_w(bus_wdata),
    .wb_dat_r({m}_wb_dat_r), .wb_ack({m}_wb_ack), .irq({m}_irq));
  // Taken from the tap (C), and of those, fed to the profiler (F: while CTRL.ENABLE).
  always @(posedge prof_clock) if ({m}_valid && {m}_ready) begin
    $fwrite(dump, "C {mode} %h %h %0d\n", {m}_a, {m}_b, {m}_lost);
    if ({m}_slave.enable) $fwrite(dump, "F {mode} %h %h\n", {m}_a, {m}_b);
  end
"#,
            )
            .unwrap();
        }
        v.push_str(
            "  assign ro_rdata = e_wb_ack ? e_wb_dat_r : v_wb_dat_r;\n  assign readout_irq = {e_irq, v_irq};\n",
        );
    }
    let wrappers = if p.readout == Readout::Stream {
        vec![("v", &blocks.value_wrapper), ("e", &blocks.edge_wrapper)]
    } else {
        vec![]
    };
    for (m, wrapper) in wrappers {
        let mode = if m == "v" { 'V' } else { 'E' };
        write!(
            v,
            r#"
  wire {m}_stall, {m}_out_valid, {m}_out_last;
  wire [31:0] {m}_dropped, {m}_out_interval, {m}_out_count, {m}_out_dropped;
  wire [63:0] {m}_out_a, {m}_out_b;
  {wrapper} {m}_profiler(.clock(clock), .reset(!resetn), {clocks}{rvfi},
    .stall({m}_stall), .dropped({m}_dropped), .out_valid({m}_out_valid), .out_ready(1'b1),
    .out_interval({m}_out_interval), .out_a({m}_out_a), .out_b({m}_out_b), .out_count({m}_out_count),
    .out_last({m}_out_last), .out_dropped({m}_out_dropped));
  always @(posedge prof_clock) begin
    if ({m}_out_valid)
      $display("{TAG}R {mode} %0d %h %h %0d %0d %0d", {m}_out_interval, {m}_out_a, {m}_out_b, {m}_out_count, {m}_out_last, {m}_out_dropped);
    if ({m}_profiler.ev_valid && {m}_profiler.ev_ready)
      $fwrite(dump, "C {mode} %h %h %0d\n", {m}_profiler.ev_a, {m}_profiler.ev_b, {m}_profiler.ev_lost);
  end
"#,
        )
        .unwrap();
    }
    // The taps of the other two blocks.
    for (m, tap) in [("b", &blocks.branch_tap), ("p", &blocks.phase_tap)] {
        let mode = if m == "b" { 'B' } else { 'P' };
        write!(
            v,
            r#"
  wire {m}_stall, {m}_valid, {m}_ready;
  wire [31:0] {m}_dropped, {m}_a, {m}_b;
  wire [15:0] {m}_lost;
  {tap} {m}_tap(.clock(clock), .reset(!resetn), {rvfi}, .stall({m}_stall), .dropped({m}_dropped),
    .ev_clock(prof_clock), .ev_reset(prof_reset), .ev_valid({m}_valid), .ev_ready({m}_ready),
    .ev_a({m}_a), .ev_b({m}_b), .ev_lost({m}_lost));
  always @(posedge prof_clock) if ({m}_valid && {m}_ready)
    $fwrite(dump, "C {mode} %h %h %0d\n", {m}_a, {m}_b, {m}_lost);
"#,
        )
        .unwrap();
    }
    write!(
        v,
        r#"  wire b_out_valid, b_out_last;
  wire [9:0] b_out_index;
  wire [{tm1}:0] b_out_tag;
  wire [{cm1}:0] b_out_taken, b_out_not_taken;
  {buffer} buffer(.clock(prof_clock), .reset(prof_reset), .ev_valid(b_valid), .ev_ready(b_ready),
    .ev_pc({{32'd0, b_a}}), .ev_taken(b_b[0]), .ev_index(10'd0), .sample(1'b0),
    .out_valid(b_out_valid), .out_ready(1'b1), .out_index(b_out_index), .out_tag(b_out_tag),
    .out_taken(b_out_taken), .out_not_taken(b_out_not_taken), .out_last(b_out_last));
  always @(posedge prof_clock) if (b_out_valid)
    $display("{TAG}B %0d %h %0d %0d %0d", b_out_index, b_out_tag, b_out_taken, b_out_not_taken, b_out_last);
  wire p_out_valid;
  wire [31:0] p_out_interval;
  wire [{im1}:0] p_out_phase, p_out_predicted;
  wire [{dm1}:0] p_out_distance;
  {phase} phase(.clock(prof_clock), .reset(prof_reset), .in_valid(p_valid), .in_ready(p_ready),
    .in_pc({{32'd0, p_a}}), .in_weight(p_b[{wbm1}:0]), .out_valid(p_out_valid), .out_ready(1'b1),
    .out_interval(p_out_interval), .out_phase(p_out_phase), .out_distance(p_out_distance),
    .out_predicted(p_out_predicted));
  always @(posedge prof_clock) if (p_out_valid)
    $display("{TAG}P %0d %0d %0d %0d", p_out_interval, p_out_phase, p_out_distance, p_out_predicted);

  assign stall = v_stall || e_stall || b_stall || p_stall;
"#,
        buffer = blocks.buffer,
        tm1 = blocks.buffer_tag_bits - 1,
        cm1 = blocks.buffer_counter_bits - 1,
        phase = blocks.phase,
        im1 = PHASE_ID_BITS - 1,
        dm1 = blocks.phase_distance_bits - 1,
        wbm1 = wb - 1,
    )
    .unwrap();
    v.push_str(&ending(
        p,
        Some("v_dropped, e_dropped, b_dropped, p_dropped"),
        main_end,
    ));
    v
}

/// The end: the CPU has halted, every event has reached its block (the FIFOs hold at most
/// their depth and drain within the wait), the last reports are out; the summary line, with the
/// taps' `dropped` counts if there are taps.
fn ending(p: SystemParams, dropped: Option<&str>, main_end: &str) -> String {
    let (fmt, dropped) = match dropped {
        Some(d) => ("%0d %0d %0d %0d", format!(", {d}")),
        None => ("0 0 0 0", String::new()),
    };
    format!(
        r#"
  reg [63:0] drain = 0;
  always @(posedge prof_clock) begin
    if (halted) drain <= drain + 1;
    if (drain == {drain_cycles}) begin
      $fclose(dump);
      $fclose(console);
      $display("{TAG}SUMMARY instructions %0d cycles %0d stall_cycles %0d dropped {fmt} exited %0d exit %0d limit %0d main_end %0d",
               instructions, end_cycle, stall_cycles{dropped}, exited, exit_code, limit, {main_end});
      $finish;
    end
  end
endmodule
"#,
        drain_cycles = p.drain_cycles,
    )
}

/// What one simulation of the system printed, parsed.
#[derive(Debug, Clone, Default)]
pub struct SimOutput {
    pub console: String,
    /// Report words (mode 'V' or 'E', interval, a, b, count, last) in the order they appeared.
    pub words: Vec<(char, u64, u64, u64, u64, bool)>,
    pub instructions: u64,
    pub cycles: u64,
    pub stall_cycles: u64,
    /// Events each tap dropped ([`TAPS`] order).
    pub dropped: [u64; 4],
    pub exit_code: Option<u32>,
    /// Whether the run was stopped at the instruction limit.
    pub stopped_at_limit: bool,
    /// Profile-buffer readout words (index, tag, taken, not taken, last) in order.
    pub buffer_words: Vec<(u64, u64, u64, u64, bool)>,
    /// Phase-classifier records (interval, phase, distance, predicted) in order.
    pub phase_records: Vec<(u64, u64, u64, u64)>,
    /// The retired loads and control transfers, in order.
    pub records: Vec<RvfiRecord>,
    /// The events each block took from its tap with the count lost before each ([`TAPS`] order).
    pub taken: [Vec<((u64, u64), u64)>; 4],
    /// With the bus readout: of the value and edge events taken, those fed to the profilers (the
    /// slaves discard events while `CTRL.ENABLE` is cleared).
    pub fed: [Vec<(u64, u64)>; 2],
    /// With the bus readout: the clock at which `main` returned (0: it did not).
    pub main_end: u64,
    /// Seconds of the simulation itself (compilation excluded).
    pub seconds: f64,
}

fn hex(s: &str, what: &str) -> Result<u64, SocError> {
    u64::from_str_radix(s, 16)
        .map_err(|_| SocError::Failure(format!("bad {what} {s:?} in the simulation's output")))
}

fn dec(s: &str, what: &str) -> Result<u64, SocError> {
    s.parse()
        .map_err(|_| SocError::Failure(format!("bad {what} {s:?} in the simulation's output")))
}

/// Parses the simulation's stdout (the blocks' lines), the program's console and the retire
/// dump. With the bus readout, the console's lines `TAG W …` are the report words the program
/// read over the bus; they are left out of the console text.
pub fn parse(
    stdout: &str,
    console: &str,
    dump: &str,
    readout: Readout,
) -> Result<SimOutput, SocError> {
    let mut o = SimOutput::default();
    let mut summary = false;
    let mut printout = String::new();
    for line in console.split_inclusive('\n') {
        match parse_bus_word(line.trim_end()) {
            Some(w) if readout == Readout::Bus => o.words.push(w.map_err(|e| {
                SocError::Failure(format!("the program printed a bad report word: {e}"))
            })?),
            _ => printout.push_str(line),
        }
    }
    o.console = printout;
    for line in stdout.split_inclusive('\n') {
        let Some(t) = line.strip_prefix(TAG).map(str::trim_end) else {
            // Simulator messages.
            continue;
        };
        let f: Vec<&str> = t.split_whitespace().collect();
        if f[0] == "B" && f.len() == 6 {
            o.buffer_words.push((
                dec(f[1], "buffer index")?,
                hex(f[2], "buffer tag")?,
                dec(f[3], "taken count")?,
                dec(f[4], "not-taken count")?,
                f[5] == "1",
            ));
        } else if f[0] == "P" && f.len() == 5 {
            o.phase_records.push((
                dec(f[1], "phase interval")?,
                dec(f[2], "phase")?,
                dec(f[3], "phase distance")?,
                dec(f[4], "predicted phase")?,
            ));
        } else if f[0] == "R" && f.len() == 8 {
            let mode = f[1].chars().next().unwrap_or('?');
            o.words.push((
                mode,
                dec(f[2], "interval")?,
                hex(f[3], "report a")?,
                hex(f[4], "report b")?,
                dec(f[5], "count")?,
                f[6] == "1",
            ));
        } else if f[0] == "SUMMARY" && f.len() == 20 {
            o.instructions = dec(f[2], "instructions")?;
            o.cycles = dec(f[4], "cycles")?;
            o.stall_cycles = dec(f[6], "stall cycles")?;
            for (k, x) in f[8..12].iter().enumerate() {
                o.dropped[k] = dec(x, "dropped")?;
            }
            o.exit_code = (f[13] == "1")
                .then(|| dec(f[15], "exit code"))
                .transpose()?
                .map(|c| c as u32);
            o.stopped_at_limit = f[17] == "1";
            o.main_end = dec(f[19], "main end")?;
            summary = true;
        } else {
            return Err(SocError::Failure(format!(
                "unexpected simulation line {t:?}"
            )));
        }
    }
    if !summary {
        return Err(SocError::Failure(format!(
            "the simulation ended without its summary:\n{stdout}"
        )));
    }
    for (n, line) in dump.lines().enumerate() {
        let bad = || SocError::Failure(format!("retire.txt line {}: {line:?}", n + 1));
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            ["R", order, insn, trap, pc, next, rd] => o.records.push(RvfiRecord {
                order: hex(order, "rvfi_order")?,
                insn: hex(insn, "rvfi_insn")? as u32,
                trap: hex(trap, "rvfi_trap")? != 0,
                pc_rdata: hex(pc, "rvfi_pc_rdata")? as u32,
                pc_wdata: hex(next, "rvfi_pc_wdata")? as u32,
                rd_wdata: hex(rd, "rvfi_rd_wdata")? as u32,
            }),
            ["C", m, a, b, lost] => {
                let k = TAPS
                    .iter()
                    .position(|&t| m.starts_with(letter(t)))
                    .ok_or_else(bad)?;
                o.taken[k].push(((hex(a, "event a")?, hex(b, "event b")?), dec(lost, "lost")?));
            }
            ["F", m, a, b] => {
                let k = usize::from(m.starts_with('E'));
                o.fed[k].push((hex(a, "event a")?, hex(b, "event b")?));
            }
            _ => return Err(bad()),
        }
    }
    Ok(o)
}

/// Runs the system: `blocks_v` is the Verilog of the blocks (the modules `blocks` names),
/// `image` the RAM image.
pub fn simulate(
    simulator: Simulator,
    blocks: &Blocks,
    blocks_v: &str,
    image: &[u32],
    params: SystemParams,
) -> Result<SimOutput, SocError> {
    let io = |e: std::io::Error| SocError::Failure(format!("simulation directory: {e}"));
    let dir = SimDir::new("soc").map_err(io)?;
    let mut hexfile = String::with_capacity(image.len() * 9);
    for w in image {
        writeln!(hexfile, "{w:08x}").unwrap();
    }
    std::fs::write(dir.file("program.hex"), hexfile).map_err(io)?;
    let system: PathBuf = dir.file("hwprof_soc.v");
    std::fs::write(&system, verilog(blocks, params)).map_err(io)?;
    let prof: PathBuf = dir.file("blocks.v");
    std::fs::write(&prof, blocks_v).map_err(io)?;
    let mut sources = vec![system, prof];
    sources.extend(params.cpu.sources()?);
    let (stdout, seconds) = run_with(simulator, &dir, &sources, "hwprof_soc").map_err(|e| {
        if e.0.contains("not found on PATH") {
            SocError::Missing(e.0)
        } else {
            SocError::Failure(e.0)
        }
    })?;
    let dump = std::fs::read_to_string(dir.file("retire.txt")).map_err(io)?;
    let console = std::fs::read_to_string(dir.file("console.txt")).map_err(io)?;
    let mut o = parse(&stdout, &console, &dump, params.readout)?;
    o.seconds = seconds;
    Ok(o)
}
