//! The simulated system: PicoRV32 (RV32IM, RVFI on) with one RAM, a console and an exit port, and
//! a tap on the retire stream feeding four hwprof blocks: the multi-hash profiler twice (value mode
//! and edge mode), the profile buffer and the phase classifier.
//!
//! **Tap.** Every RVFI record of a load (opcode LOAD) gives the value-mode event `<pc, rd value>`
//! (the loaded value as written to its register); every record of a control transfer (BRANCH, JAL,
//! JALR; taken or not) gives the edge-mode event `<pc, next pc>` and the phase classifier's event
//! `(pc, weight)`, the weight being the instructions retired since the previous transfer, this one
//! included (saturating at the classifier's weight width); every conditional branch (BRANCH) gives
//! the profile buffer's event `(pc, taken)`, taken meaning next pc ≠ pc + 4. Each record is also
//! written to `retire.txt` as the CPU retires it: that dump, not what the blocks consumed, feeds the
//! models.
//!
//! **No event is lost.** Each block reads its events from a FIFO of [`FIFO_DEPTH`]. While any
//! FIFO holds [`STALL_FILL`] or more events the RAM withholds `mem_ready`, which stalls the
//! CPU: PicoRV32 fetches every instruction through that port, so at most the one instruction
//! already fetched (one event per FIFO) retires during a stall. A push into a full FIFO stops the
//! simulation with `$fatal`, so every completed run is its own proof; the largest fills are printed.

use super::SocError;
use crate::verify::icarus::{run_with, SimDir, Simulator};
use hwprof_hdl::phase::config::{PHASE_ID_BITS, WEIGHT_BITS};
use std::fmt::Write as _;
use std::path::PathBuf;

/// RAM size; programs/link.ld places the stack at its top.
pub const RAM_BYTES: usize = 256 * 1024;
/// Entries of each profiler's input FIFO.
pub const FIFO_DEPTH: u32 = 16;
/// Fill at which the CPU is stalled: the FIFO still has room for the events in flight.
pub const STALL_FILL: u32 = FIFO_DEPTH - 4;
/// The console (a byte per store) and the exit port (the program's exit code ends the run).
pub const CONSOLE: u32 = 0x1000_0000;
pub const EXIT_PORT: u32 = 0x1000_0004;

/// What the system's Verilog depends on besides the profiler.
#[derive(Debug, Clone, Copy)]
pub struct SystemParams {
    /// Clocks the system waits after the program ends and the FIFOs are empty, for the reports of
    /// the last complete interval.
    pub drain_cycles: u64,
    /// Clocks after which a run that has not ended is stopped as hung.
    pub max_cycles: u64,
    /// Retired instructions after which the program is stopped as if it had trapped (the last
    /// one is tapped), for programs that never exit.
    pub max_instructions: u64,
}

/// The hwprof blocks in the system: module names and the widths of their ports that depend on the
/// configuration.
#[derive(Debug, Clone)]
pub struct Blocks {
    /// The multi-hash profiler (instantiated twice: value and edge mode).
    pub profiler: String,
    pub buffer: String,
    pub buffer_tag_bits: u32,
    pub buffer_counter_bits: u32,
    pub phase: String,
    pub phase_distance_bits: u32,
}

/// The FIFO in front of one block: `{m}_fifo` of `width`-bit words pushed when `push` with `word`,
/// popped when the block is ready (`{m}_ready`); `{m}_head_word` is the word offered.
fn fifo(v: &mut String, m: &str, what: &str, width: u32, push: &str, word: &str) {
    write!(
        v,
        r#"
  // {what}: FIFO.
  reg [{wm1}:0] {m}_fifo [0:{last}];
  reg [4:0] {m}_head = 0, {m}_tail = 0;
  wire [4:0] {m}_fill = {m}_tail - {m}_head;
  reg [4:0] {m}_max_fill = 0;
  wire {m}_ready;
  wire [{wm1}:0] {m}_head_word = {m}_fifo[{m}_head[3:0]];
  always @(posedge clock) begin
    if ({push}) begin
      if ({m}_fill == {depth}) $fatal(1, "{what} FIFO overflow: an event would be lost");
      {m}_fifo[{m}_tail[3:0]] <= {word};
      {m}_tail <= {m}_tail + 1;
    end
    if ({m}_fill != 0 && {m}_ready) {m}_head <= {m}_head + 1;
    if ({m}_fill > {m}_max_fill) {m}_max_fill <= {m}_fill;
  end
"#,
        wm1 = width - 1,
        last = FIFO_DEPTH - 1,
        depth = FIFO_DEPTH,
    )
    .unwrap();
}

/// What starts every line the system prints besides the console's text (which may precede it on
/// the same line): a program's own output never looks like a block's.
pub const TAG: &str = "@@hwprof ";

/// The FIFOs, in the order of the summary's fills: value, edge, branch, phase.
pub const FIFOS: [&str; 4] = ["v", "e", "b", "p"];

/// The Verilog of the system (module `hwprof_soc`) around the blocks. It reads `program.hex` and
/// writes `retire.txt` in its working directory; on stdout, the console, the blocks' output as
/// lines after [`TAG`] — `R <mode> <interval> <a> <b> <count> <last>` (profiler, mode V value or E edge),
/// `B <index> <tag> <taken> <not taken> <last>` (profile buffer readout), `P <interval> <phase>
/// <distance> <predicted>` (phase classifier) — and a closing `SUMMARY` line.
pub fn verilog(blocks: &Blocks, p: SystemParams) -> String {
    let mut v = String::new();
    let words = RAM_BYTES / 4;
    let addr_bits = words.trailing_zeros() + 2;
    let wb = WEIGHT_BITS;
    write!(
        v,
        r#"// hwprof's PicoRV32 system with hwprof blocks on the retire stream; generated by hwprof, do not edit.
`define RISCV_FORMAL
`timescale 1ns/1ps
module hwprof_soc;
  reg clock = 0;
  initial forever #5 clock = ~clock;
  reg [4:0] reset_count = 0;
  wire resetn = reset_count == 5'd20;
  reg [63:0] cycle = 0;
  always @(posedge clock) begin
    if (!resetn) reset_count <= reset_count + 1;
    cycle <= cycle + 1;
    if (cycle >= 64'd{max_cycles}) $fatal(1, "HUNG after %0d cycles", cycle);
  end

  wire trap, mem_valid, mem_instr;
  reg mem_ready = 0;
  wire [31:0] mem_addr, mem_wdata;
  wire [3:0] mem_wstrb;
  reg [31:0] mem_rdata = 0;
  wire rvfi_valid, rvfi_trap;
  wire [31:0] rvfi_insn, rvfi_pc_rdata, rvfi_pc_wdata, rvfi_rd_wdata;
  picorv32 #(.ENABLE_COUNTERS(1), .ENABLE_FAST_MUL(1), .ENABLE_DIV(1), .BARREL_SHIFTER(1),
             .COMPRESSED_ISA(0), .PROGADDR_RESET(0), .STACKADDR({RAM_BYTES}))
    cpu(.clk(clock), .resetn(resetn), .trap(trap), .mem_valid(mem_valid), .mem_instr(mem_instr),
        .mem_ready(mem_ready), .mem_addr(mem_addr), .mem_wdata(mem_wdata), .mem_wstrb(mem_wstrb),
        .mem_rdata(mem_rdata), .pcpi_wr(1'b0), .pcpi_rd(32'd0), .pcpi_wait(1'b0), .pcpi_ready(1'b0),
        .irq(32'd0), .rvfi_valid(rvfi_valid), .rvfi_insn(rvfi_insn), .rvfi_trap(rvfi_trap),
        .rvfi_pc_rdata(rvfi_pc_rdata), .rvfi_pc_wdata(rvfi_pc_wdata), .rvfi_rd_wdata(rvfi_rd_wdata));

  // The tap: one record per retired instruction, until the trapping one.
  reg halted = 0, limit = 0;
  reg [63:0] instructions = 0;
  reg [63:0] end_cycle = 0;
  wire retire = rvfi_valid && !halted;
  wire [6:0] opcode = rvfi_insn[6:0];
  wire is_load = retire && opcode == 7'b0000011;
  wire is_branch = retire && opcode == 7'b1100011;
  wire is_transfer = is_branch || (retire && (opcode == 7'b1101111 || opcode == 7'b1100111));
  wire taken = rvfi_pc_wdata != rvfi_pc_rdata + 32'd4;
  // Instructions since the previous transfer, this one included, saturating.
  reg [{wbm1}:0] since = 0;
  wire [{wbm1}:0] weight = &since ? since : since + 1'b1;
  integer dump;
  initial dump = $fopen("retire.txt", "w");
  always @(posedge clock) begin
    if (retire) begin
      instructions <= instructions + 1;
      since <= is_transfer ? {wb}'d0 : weight;
      if (rvfi_trap || instructions + 1 == 64'd{max_instructions}) begin
        halted <= 1;
        limit <= !rvfi_trap;
        end_cycle <= cycle;
      end
    end
    if (is_load) $fwrite(dump, "V %h %h\n", rvfi_pc_rdata, rvfi_rd_wdata);
    if (is_transfer) $fwrite(dump, "E %h %h\n", rvfi_pc_rdata, rvfi_pc_wdata);
    if (is_branch) $fwrite(dump, "B %h %h\n", rvfi_pc_rdata, rvfi_pc_wdata);
    if (is_transfer) $fwrite(dump, "P %h %h\n", rvfi_pc_rdata, weight);
  end
"#,
        max_cycles = p.max_cycles,
        max_instructions = p.max_instructions,
        wbm1 = wb - 1,
    )
    .unwrap();
    for (m, mode, push, b) in [
        ("v", "V", "is_load", "rvfi_rd_wdata"),
        ("e", "E", "is_transfer", "rvfi_pc_wdata"),
    ] {
        fifo(
            &mut v,
            m,
            if m == "v" {
                "value profiler"
            } else {
                "edge profiler"
            },
            64,
            push,
            &format!("{{rvfi_pc_rdata, {b}}}"),
        );
        write!(
            v,
            r#"  wire {m}_out_valid, {m}_out_last;
  wire [31:0] {m}_out_interval, {m}_out_count;
  wire [63:0] {m}_out_a, {m}_out_b;
  {profiler} {m}_profiler(.clock(clock), .reset(!resetn), .in_valid({m}_fill != 0), .in_ready({m}_ready),
    .in_a({{32'd0, {m}_head_word[63:32]}}), .in_b({{32'd0, {m}_head_word[31:0]}}),
    .out_valid({m}_out_valid), .out_ready(1'b1), .out_interval({m}_out_interval), .out_a({m}_out_a),
    .out_b({m}_out_b), .out_count({m}_out_count), .out_last({m}_out_last));
  always @(posedge clock) if ({m}_out_valid)
    $display("{TAG}R {mode} %0d %h %h %0d %0d", {m}_out_interval, {m}_out_a, {m}_out_b, {m}_out_count, {m}_out_last);
"#,
            profiler = blocks.profiler,
        )
        .unwrap();
    }
    fifo(
        &mut v,
        "b",
        "profile buffer",
        33,
        "is_branch",
        "{rvfi_pc_rdata, taken}",
    );
    write!(
        v,
        r#"  wire b_out_valid, b_out_last;
  wire [9:0] b_out_index;
  wire [{tm1}:0] b_out_tag;
  wire [{cm1}:0] b_out_taken, b_out_not_taken;
  {buffer} buffer(.clock(clock), .reset(!resetn), .ev_valid(b_fill != 0), .ev_ready(b_ready),
    .ev_pc({{32'd0, b_head_word[32:1]}}), .ev_taken(b_head_word[0]), .ev_index(10'd0), .sample(1'b0),
    .out_valid(b_out_valid), .out_ready(1'b1), .out_index(b_out_index), .out_tag(b_out_tag),
    .out_taken(b_out_taken), .out_not_taken(b_out_not_taken), .out_last(b_out_last));
  always @(posedge clock) if (b_out_valid)
    $display("{TAG}B %0d %h %0d %0d %0d", b_out_index, b_out_tag, b_out_taken, b_out_not_taken, b_out_last);
"#,
        buffer = blocks.buffer,
        tm1 = blocks.buffer_tag_bits - 1,
        cm1 = blocks.buffer_counter_bits - 1,
    )
    .unwrap();
    fifo(
        &mut v,
        "p",
        "phase classifier",
        32 + wb as u32,
        "is_transfer",
        "{rvfi_pc_rdata, weight}",
    );
    write!(
        v,
        r#"  wire p_out_valid;
  wire [31:0] p_out_interval;
  wire [{im1}:0] p_out_phase, p_out_predicted;
  wire [{dm1}:0] p_out_distance;
  {phase} phase(.clock(clock), .reset(!resetn), .in_valid(p_fill != 0), .in_ready(p_ready),
    .in_pc({{32'd0, p_head_word[{pcm}:{wb}]}}), .in_weight(p_head_word[{wbm1}:0]), .out_valid(p_out_valid),
    .out_interval(p_out_interval), .out_phase(p_out_phase), .out_distance(p_out_distance),
    .out_predicted(p_out_predicted));
  always @(posedge clock) if (p_out_valid)
    $display("{TAG}P %0d %0d %0d %0d", p_out_interval, p_out_phase, p_out_distance, p_out_predicted);
"#,
        phase = blocks.phase,
        im1 = PHASE_ID_BITS - 1,
        dm1 = blocks.phase_distance_bits - 1,
        pcm = 32 + wb - 1,
        wbm1 = wb - 1,
    )
    .unwrap();
    write!(
        v,
        r#"
  // RAM (one word per access, a cycle after the request), console and exit port.
  reg [31:0] ram [0:{last_word}];
  integer i;
  initial begin
    for (i = 0; i < {words}; i = i + 1) ram[i] = 0;
    $readmemh("program.hex", ram);
  end
  wire stall = {stall};
  reg [63:0] stall_cycles = 0;
  reg [31:0] exit_code = 32'hffffffff;
  reg exited = 0;
  wire [{hi}:2] word = mem_addr[{hi}:2];
  always @(posedge clock) begin
    mem_ready <= 0;
    // Halted (at the limit; a trapped CPU makes no access) the CPU gets no more memory.
    if (resetn && mem_valid && !mem_ready && !halted && stall) stall_cycles <= stall_cycles + 1;
    if (resetn && mem_valid && !mem_ready && !halted && !stall) begin
      mem_ready <= 1;
      if (mem_addr < {ram_bytes}) begin
        mem_rdata <= ram[word];
        if (mem_wstrb[0]) ram[word][7:0] <= mem_wdata[7:0];
        if (mem_wstrb[1]) ram[word][15:8] <= mem_wdata[15:8];
        if (mem_wstrb[2]) ram[word][23:16] <= mem_wdata[23:16];
        if (mem_wstrb[3]) ram[word][31:24] <= mem_wdata[31:24];
      end else if (mem_addr == 32'h{console:08x} && mem_wstrb != 0) begin
        $write("%c", mem_wdata[7:0]);
      end else if (mem_addr == 32'h{exit:08x} && mem_wstrb != 0) begin
        exit_code <= mem_wdata;
        exited <= 1;
      end else begin
        $fatal(1, "BUS access to %h outside the RAM and ports at pc-ish %h", mem_addr, rvfi_pc_rdata);
      end
    end
  end

  // The end: the CPU has trapped, every event has reached its block, the last reports are out.
  reg [63:0] drain = 0;
  always @(posedge clock) begin
    if (halted && {empty}) drain <= drain + 1;
    if (drain == {drain_cycles}) begin
      $fclose(dump);
      $display("{TAG}SUMMARY instructions %0d cycles %0d stall_cycles %0d max_fill %0d %0d %0d %0d exited %0d exit %0d limit %0d",
               instructions, end_cycle, stall_cycles, {fills}, exited, exit_code, limit);
      $finish;
    end
  end
endmodule
"#,
        last_word = words - 1,
        stall = FIFOS.map(|m| format!("{m}_fill >= {STALL_FILL}")).join(" || "),
        empty = FIFOS.map(|m| format!("{m}_fill == 0")).join(" && "),
        fills = FIFOS.map(|m| format!("{m}_max_fill")).join(", "),
        hi = addr_bits - 1,
        ram_bytes = RAM_BYTES,
        console = CONSOLE,
        exit = EXIT_PORT,
        drain_cycles = p.drain_cycles,
    )
    .unwrap();
    v
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
    /// The largest fill of each FIFO ([`FIFOS`] order).
    pub max_fill: [u64; 4],
    pub exit_code: Option<u32>,
    /// Stopped after `max_instructions` retired instructions.
    pub stopped_at_limit: bool,
    /// Profile-buffer readout words (index, tag, taken, not taken, last) in order.
    pub buffer_words: Vec<(u64, u64, u64, u64, bool)>,
    /// Phase-classifier records (interval, phase, distance, predicted) in order.
    pub phase_records: Vec<(u64, u64, u64, u64)>,
    /// The retire dump, each in retirement order: value-mode events, edge-mode events,
    /// conditional branches (pc, next pc), phase events (pc, weight).
    pub value_events: Vec<(u64, u64)>,
    pub edge_events: Vec<(u64, u64)>,
    pub branch_events: Vec<(u64, u64)>,
    pub phase_events: Vec<(u64, u64)>,
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

/// Parses the simulation's stdout and its retire dump.
pub fn parse(stdout: &str, dump: &str) -> Result<SimOutput, SocError> {
    let mut o = SimOutput::default();
    let mut summary = false;
    // Report and summary lines start a line; console text may precede one on the same line.
    for line in stdout.split_inclusive('\n') {
        // Verilator's note on $finish is the simulator's, not the program's.
        if line.starts_with("- ") && line.contains("Verilog $finish") {
            continue;
        }
        let (text, tagged) = match line.find(TAG) {
            Some(i) => (&line[..i], Some(line[i + TAG.len()..].trim_end())),
            None => (line, None),
        };
        o.console.push_str(text);
        let Some(t) = tagged else { continue };
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
        } else if f[0] == "R" && f.len() == 7 {
            let mode = f[1].chars().next().unwrap_or('?');
            o.words.push((
                mode,
                dec(f[2], "interval")?,
                hex(f[3], "report a")?,
                hex(f[4], "report b")?,
                dec(f[5], "count")?,
                f[6] == "1",
            ));
        } else if f[0] == "SUMMARY" && f.len() == 18 {
            o.instructions = dec(f[2], "instructions")?;
            o.cycles = dec(f[4], "cycles")?;
            o.stall_cycles = dec(f[6], "stall cycles")?;
            for (k, x) in f[8..12].iter().enumerate() {
                o.max_fill[k] = dec(x, "fill")?;
            }
            o.exit_code = (f[13] == "1")
                .then(|| dec(f[15], "exit code"))
                .transpose()?
                .map(|c| c as u32);
            o.stopped_at_limit = f[17] == "1";
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
        let f: Vec<&str> = line.split_whitespace().collect();
        let ev = match f.as_slice() {
            [_, a, b] => (hex(a, "retire pc")?, hex(b, "retire value")?),
            _ => {
                return Err(SocError::Failure(format!(
                    "retire.txt line {}: {line:?}",
                    n + 1
                )))
            }
        };
        match f[0] {
            "V" => o.value_events.push(ev),
            "E" => o.edge_events.push(ev),
            "B" => o.branch_events.push(ev),
            "P" => o.phase_events.push(ev),
            _ => {
                return Err(SocError::Failure(format!(
                    "retire.txt line {}: {line:?}",
                    n + 1
                )))
            }
        }
    }
    Ok(o)
}

/// Runs the system: `blocks_v` is the Verilog of the blocks (the modules `blocks` names),
/// `picorv32` the CPU's source, `image` the RAM image.
pub fn simulate(
    simulator: Simulator,
    picorv32: &std::path::Path,
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
    let sources = [system, picorv32.to_path_buf(), prof];
    let (stdout, seconds) = run_with(simulator, &dir, &sources, "hwprof_soc").map_err(|e| {
        if e.0.contains("not found on PATH") {
            SocError::Missing(e.0)
        } else {
            SocError::Failure(e.0)
        }
    })?;
    let dump = std::fs::read_to_string(dir.file("retire.txt")).map_err(io)?;
    let mut o = parse(&stdout, &dump)?;
    o.seconds = seconds;
    Ok(o)
}
