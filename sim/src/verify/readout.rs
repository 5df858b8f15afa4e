//! The Wishbone slave `hwprof_<name>_wb` ([`hwprof_hdl::readout`]) under Icarus against the
//! profiler's model: events stream in while a bus master with random gaps between its cycles
//! polls `STATUS`, reads each head word and pops it, so the report FIFO fills and holds the
//! profiler back; `CTRL.ENABLE` is cleared for a while mid-run, `irq` is checked against
//! `STATUS.READY` and, once `IRQ_LEVEL` is raised, against the level, and every configuration register is read back.

use super::icarus::{self, SimDir};
use crate::model::multihash::{IntervalReport, MultiHash, ReportEntry};
use crate::model::Tuple;
use hwprof_hdl::export::SimTarget;
use hwprof_hdl::readout::{self, registers};
use hwprof_hdl::ProfilerConfig;
use std::fmt::Write as _;

/// What a run gave.
#[derive(Debug, Clone)]
pub struct ReadoutOutcome {
    /// The reports read over the bus.
    pub hardware: Vec<IntervalReport>,
    /// The model's reports of the events the profiler took (those while enabled).
    pub model: Vec<IntervalReport>,
    /// Events fed, and taken while enabled.
    pub fed: usize,
    pub taken: usize,
    /// Each register read at the start: (name, value).
    pub registers: Vec<(String, u32)>,
    /// The largest level software saw (the FIFO and the head word), and the FIFO's depth.
    pub max_level: u32,
    pub depth: u32,
    /// Polls that found `irq` high, and those after `IRQ_LEVEL` was raised to 4.
    pub irq_polls: u64,
    pub irq_polls_at_watermark: u64,
}

/// The testbench's bus: the master's registers, the slave `top` (with `in_dropped` tied to
/// `dropped`) and the master's `wb_read` and `wb_write` tasks, one Wishbone cycle each.
fn bus(top: &str, dropped: u32) -> String {
    format!(
        r#"  reg wb_cyc = 1'b0, wb_stb = 1'b0, wb_we = 1'b0;
  reg [3:0] wb_sel = 4'hf;
  reg [7:0] wb_adr = 8'd0;
  reg [31:0] wb_dat_w = 32'd0;
  wire [31:0] wb_dat_r;
  wire wb_ack, irq;
  {top} dut(.clock(clock), .reset(reset), .in_valid(in_valid), .in_ready(in_ready), .in_a(in_a),
    .in_b(in_b), .in_dropped(32'd{dropped}), .wb_cyc(wb_cyc), .wb_stb(wb_stb), .wb_we(wb_we),
    .wb_sel(wb_sel), .wb_adr(wb_adr), .wb_dat_w(wb_dat_w), .wb_dat_r(wb_dat_r), .wb_ack(wb_ack),
    .irq(irq));
{TASKS}"#
    )
}

/// The testbench's clock, reset and the `N` events it offers the slave, from `events.memh`.
const EVENT_SOURCE: &str = r#"  reg clock = 1'b0, reset = 1'b1;
  always #5 clock = !clock;
  reg [127:0] events [0:N-1];
  initial $readmemh("events.memh", events);
  integer next = 0;
"#;

/// The master's reads of the head word (`iv`, `alo` … `cnt`) and the pop (`pop`: bit 1 a word
/// was popped, bit 0 it was a report's last), at the offsets of `regs`.
fn read_word(regs: &[readout::Register]) -> String {
    let offset = |n: &str| regs.iter().find(|r| r.name == n).expect("register").offset;
    [
        ("REPORT_INTERVAL", "iv"),
        ("REPORT_A_LO", "alo"),
        ("REPORT_A_HI", "ahi"),
        ("REPORT_B_LO", "blo"),
        ("REPORT_B_HI", "bhi"),
        ("REPORT_COUNT", "cnt"),
        ("REPORT_POP", "pop"),
    ]
    .iter()
    .map(|(reg, var)| format!("        wb_read(8'h{:02x}, {var});\n", offset(reg)))
    .collect()
}

const TASKS: &str = r#"  task automatic wb_read(input [7:0] adr, output [31:0] data);
    begin
      @(posedge clock);
      wb_cyc <= 1'b1; wb_stb <= 1'b1; wb_we <= 1'b0; wb_adr <= adr;
      @(posedge clock);
      while (!wb_ack) @(posedge clock);
      data = wb_dat_r;
      wb_cyc <= 1'b0; wb_stb <= 1'b0;
    end
  endtask
  task automatic wb_write(input [7:0] adr, input [31:0] data);
    begin
      @(posedge clock);
      wb_cyc <= 1'b1; wb_stb <= 1'b1; wb_we <= 1'b1; wb_adr <= adr; wb_dat_w <= data;
      @(posedge clock);
      while (!wb_ack) @(posedge clock);
      wb_cyc <= 1'b0; wb_stb <= 1'b0; wb_we <= 1'b0;
    end
  endtask
"#;

/// Runs the slave of `cfg` on `events` with a master whose gaps between polls are up to
/// `max_gap` clocks.
pub fn run(cfg: &ProfilerConfig, events: &[Tuple], max_gap: u32) -> Result<ReadoutOutcome, String> {
    let name = "readout-test";
    let dir = SimDir::new("readout").map_err(|e| e.to_string())?;
    let design = dir.file("design.v");
    let cfg2 = cfg.clone();
    let v = hwprof_hdl::util::on_rtl_thread(move || {
        hwprof_hdl::multihash::export::exported(&cfg2, name)
    })??;
    let slave = readout::verilog(cfg, name, name, readout::fifo_depth(cfg));
    std::fs::write(&design, format!("{v}{slave}")).map_err(|e| e.to_string())?;
    icarus::write_memh(
        &dir.file("events.memh"),
        128,
        events.iter().map(|&(a, b)| vec![b, a]),
    )
    .map_err(|e| e.to_string())?;
    let depth = readout::fifo_depth(cfg);
    let regs = registers(cfg, depth);
    let offset = |n: &str| regs.iter().find(|r| r.name == n).expect("register").offset;
    let mut config_reads = String::new();
    for r in &regs {
        if !r.name.starts_with("REPORT") {
            let _ = writeln!(
                config_reads,
                "    wb_read(8'h{:02x}, d); $display(\"REG {} %0d\", d);",
                r.offset, r.name
            );
        }
    }
    let tb = format!(
        r#"`timescale 1ns/1ps
module tb;
  localparam N = {n};
{EVENT_SOURCE}  wire in_valid = next < N;
  wire in_ready;
  wire [63:0] in_a = events[next < N ? next : 0][127:64];
  wire [63:0] in_b = events[next < N ? next : 0][63:0];
{bus}  integer taken_f, words_f;
  always @(posedge clock) if (!reset && in_valid && in_ready) begin
    // Taken by the profiler: the slave's own enable, as it was on this clock.
    if (dut.enable) $fwrite(taken_f, "%h %h\n", in_a, in_b);
    next <= next + 1;
  end
  reg [31:0] lfsr = 32'h2545f491;
  reg [31:0] d, st, iv, alo, ahi, blo, bhi, cnt, pop;
  integer idle = 0, gap, polls = 0, irq_polls = 0, max_level = 0, disabled_once = 0, was_irq;
  integer watermark = 1, irq_high_level = 0;
  initial begin
    taken_f = $fopen("taken.txt", "w");
    words_f = $fopen("words.txt", "w");
    repeat (3) @(posedge clock);
    reset <= 1'b0;
{config_reads}    wb_write(8'h{ctrl:02x}, 32'd3);
    while (!(next >= N && idle > 400)) begin
      lfsr = lfsr ^ (lfsr << 13); lfsr = lfsr ^ (lfsr >> 17); lfsr = lfsr ^ (lfsr << 5);
      gap = lfsr % {gap};
      repeat (gap) @(posedge clock);
      if (!disabled_once && next > N / 3) begin
        // Events are discarded while disabled; the log records only those taken.
        wb_write(8'h{ctrl:02x}, 32'd2);
        repeat (300) @(posedge clock);
        wb_write(8'h{ctrl:02x}, 32'd3);
        disabled_once = 1;
      end
      if (watermark == 1 && next > 2 * N / 3) begin
        // From here the interrupt waits for several words.
        wb_write(8'h{irq_level:02x}, 32'd4);
        watermark = 4;
      end
      was_irq = irq;
      wb_read(8'h{status:02x}, st);
      polls = polls + 1;
      if (was_irq) begin
        irq_polls = irq_polls + 1;
        if (!st[0]) begin $display("FAIL irq high but STATUS.READY low"); $finish; end
        if (st[31:16] < watermark) begin $display("FAIL irq high below IRQ_LEVEL"); $finish; end
        if (watermark > 1) irq_high_level = irq_high_level + 1;
      end
      if (st[31:16] > max_level) max_level = st[31:16];
      if (st[0]) begin
{read_word}        if (!pop[1]) begin $display("FAIL popped with no word"); $finish; end
        $fwrite(words_f, "%h %h%h %h%h %h %h\n", iv, ahi, alo, bhi, blo, cnt, pop[0]);
        idle = 0;
      end else idle = idle + 1;
    end
    $fclose(taken_f);
    $fclose(words_f);
    $display("MAXLEVEL %0d", max_level);
    $display("IRQPOLLS %0d", irq_polls);
    $display("IRQWATERMARK %0d", irq_high_level);
    $display("DONE %0d", polls);
    $finish;
  end
endmodule
"#,
        n = events.len(),
        bus = bus(&readout::wrapper_name(name), 7),
        gap = max_gap.max(1),
        ctrl = offset("CTRL"),
        status = offset("STATUS"),
        read_word = read_word(&regs),
        irq_level = offset("IRQ_LEVEL"),
    );
    let tbf = dir.file("tb.v");
    std::fs::write(&tbf, tb).map_err(|e| e.to_string())?;
    let out = icarus::run(&dir, &[design, tbf], "tb").map_err(|e| e.0)?;
    if out.contains("FAIL") || !out.contains("DONE") {
        return Err(format!("the testbench failed:\n{out}"));
    }
    let value = |key: &str| -> u32 {
        out.lines()
            .find_map(|l| l.strip_prefix(key)?.trim().parse().ok())
            .unwrap_or(0)
    };
    let registers_read = out
        .lines()
        .filter_map(|l| {
            let mut it = l.strip_prefix("REG ")?.split_whitespace();
            Some((it.next()?.to_string(), it.next()?.parse().ok()?))
        })
        .collect();
    let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|e| format!("{s:?}: {e}"));
    let taken_text = std::fs::read_to_string(dir.file("taken.txt")).map_err(|e| e.to_string())?;
    let taken: Vec<Tuple> = taken_text
        .lines()
        .map(|l| {
            let (a, b) = l.split_once(' ').ok_or("taken.txt: bad line")?;
            Ok((hex(a)?, hex(b)?))
        })
        .collect::<Result<_, String>>()?;
    let words_text = std::fs::read_to_string(dir.file("words.txt")).map_err(|e| e.to_string())?;
    let hardware = reports_of_words(&words_text)?;
    let model = MultiHash::new(cfg)?.run(&taken);
    Ok(ReadoutOutcome {
        hardware,
        model,
        fed: events.len(),
        taken: taken.len(),
        registers: registers_read,
        max_level: value("MAXLEVEL"),
        depth,
        irq_polls: value("IRQPOLLS") as u64,
        irq_polls_at_watermark: value("IRQWATERMARK") as u64,
    })
}

/// Reports in the bundled stream of the slave's self-checking testbench ([`sim_files`]).
pub const SIM_INTERVALS: usize = 4;

/// A report's entries as the testbenches print them, `W E <interval> <a> <b> <count>`, sorted:
/// a report is a set, and the testbench sorts what it reads before printing it.
pub fn entry_lines(out: &mut String, r: &IntervalReport) {
    let mut entries = r.entries.clone();
    entries.sort_by_key(|e| (e.a, e.b, e.count as u32));
    for e in &entries {
        let _ = writeln!(
            out,
            "W E {:08x} {:016x} {:016x} {:08x}",
            r.interval as u32, e.a, e.b, e.count as u32
        );
    }
}

/// The self-checking testbench of the slave `hwprof_<name>_wb` (report FIFO of `depth` words) for
/// its FuseSoC `sim` target: [`SIM_INTERVALS`] intervals of the board event source stream in while
/// a master with random gaps between its cycles polls `STATUS` and pops every word; each report's
/// entries (`W E interval a b count`, sorted: the accumulator reports in its own order) and its
/// end (`W END interval`) are checked in order against the model's (`<module>_expected.txt`).
/// The target and its files.
pub fn sim_files(
    cfg: &ProfilerConfig,
    name: &str,
    depth: u32,
) -> Result<(SimTarget, Vec<(String, String)>), String> {
    use crate::model::board::event_source::EventSourceModel;
    use hwprof_hdl::board::event_source::DEFAULT_SEED;
    let module = readout::wrapper_name(name);
    let events = EventSourceModel::events(DEFAULT_SEED, cfg.interval as usize * SIM_INTERVALS);
    let mut expected = String::new();
    for r in MultiHash::new(cfg)?.run(&events) {
        entry_lines(&mut expected, &r);
        let _ = writeln!(expected, "W END {:08x}", r.interval as u32);
    }
    let data = format!("{module}_events.hex");
    let memh = icarus::memh(128, events.iter().map(|&(a, b)| vec![b, a]));
    let regs = registers(cfg, depth);
    let offset = |n: &str| regs.iter().find(|r| r.name == n).expect("register").offset;
    let tb = format!(
        r#"`timescale 1ns/1ps
module tb;
  localparam N = {n};
{EVENT_SOURCE}  wire in_valid = next < N;
  wire in_ready;
  wire [63:0] in_a = events[next < N ? next : 0][127:64];
  wire [63:0] in_b = events[next < N ? next : 0][63:0];
{bus}  always @(posedge clock) if (!reset && in_valid && in_ready) next <= next + 1;
  reg [31:0] lfsr = 32'h2545f491;
  reg [31:0] st, iv, alo, ahi, blo, bhi, cnt, pop;
  reg [159:0] entry [0:{entries}];
  reg [159:0] swap;
  integer idle = 0, k = 0, i, j;
  initial begin
    repeat (3) @(posedge clock);
    reset <= 1'b0;
    wb_write(8'h{ctrl:02x}, 32'd1);
    while (!(next >= N && idle > 400)) begin
      lfsr = lfsr ^ (lfsr << 13); lfsr = lfsr ^ (lfsr >> 17); lfsr = lfsr ^ (lfsr << 5);
      repeat (lfsr % 40) @(posedge clock);
      wb_read(8'h{status:02x}, st);
      if (st[0]) begin
{read_word}        if (cnt != 0) begin entry[k] = {{ahi, alo, bhi, blo, cnt}}; k = k + 1; end
        if (pop[0]) begin
          // The report's entries sorted by <a, b, count>, as the expected lines are.
          for (i = 1; i < k; i = i + 1)
            for (j = i; j > 0 && entry[j - 1] > entry[j]; j = j - 1) begin
              swap = entry[j]; entry[j] = entry[j - 1]; entry[j - 1] = swap;
            end
          for (i = 0; i < k; i = i + 1)
            $display("W E %h %h %h %h", iv, entry[i][159:96], entry[i][95:32], entry[i][31:0]);
          $display("W END %h", iv);
          k = 0;
        end
        idle = 0;
      end else idle = idle + 1;
    end
    $finish;
  end
endmodule
"#,
        n = events.len(),
        entries = cfg.accumulator.entries,
        bus = bus("top", 0),
        ctrl = offset("CTRL"),
        status = offset("STATUS"),
        read_word = read_word(&regs),
    );
    let tb = super::ip::self_checking(&tb, &module, "W ", &[("events.memh", &data)]);
    Ok(super::ip::sim_files(
        &module,
        super::ip::Testbench {
            tb,
            data: vec![(data, memh)],
            expected,
        },
    ))
}

/// What a run with settings changed over the bus gave.
#[derive(Debug, Clone)]
pub struct SettingsOutcome {
    /// The reports read over the bus.
    pub hardware: Vec<IntervalReport>,
    /// The model's reports of the operations the hardware took, in its order.
    pub model: Vec<IntervalReport>,
    /// Replays that ignore the flushes, set L one longer or ignore T match the hardware (they
    /// must not).
    pub wrong_replays_match: bool,
    pub events: usize,
    pub flushes: usize,
    pub interval_writes: usize,
    pub threshold_writes: usize,
    pub clears: usize,
}

/// Runs the slave of `cfg` on `events` while a bus master reads the reports and, at random
/// points, writes `CTRL.FLUSH` with events flowing, writes a new L to `INTERVAL` or a new T to
/// `THRESHOLD` (after a flush with the event source paused, so that it lands at a known event;
/// out-of-range writes must be ignored) and once writes `CTRL.CLEAR` (after every report is
/// read). The testbench logs the
/// operations in the order the slave took them, which the model replays.
pub fn run_settings(cfg: &ProfilerConfig, events: &[Tuple]) -> Result<SettingsOutcome, String> {
    use super::multihash::settings::{replay, Op, Replay};
    let name = "settings-test";
    let dir = SimDir::new("readout-settings").map_err(|e| e.to_string())?;
    let design = dir.file("design.v");
    let cfg2 = cfg.clone();
    let v = hwprof_hdl::util::on_rtl_thread(move || {
        hwprof_hdl::multihash::export::exported(&cfg2, name)
    })??;
    let depth = readout::fifo_depth(cfg);
    let slave = readout::verilog(cfg, name, name, depth);
    std::fs::write(&design, format!("{v}{slave}")).map_err(|e| e.to_string())?;
    icarus::write_memh(
        &dir.file("events.memh"),
        128,
        events.iter().map(|&(a, b)| vec![b, a]),
    )
    .map_err(|e| e.to_string())?;
    let regs = registers(cfg, depth);
    let offset = |n: &str| regs.iter().find(|r| r.name == n).expect("register").offset;
    let tb = format!(
        r#"`timescale 1ns/1ps
module tb;
  localparam N = {n}, MAX = {max}, MINT = {min_t}, MAXT = {max_t};
{EVENT_SOURCE}  reg pause = 1'b0;
  wire in_valid = next < N && !pause;
  wire in_ready;
  wire [63:0] in_a = events[next < N ? next : 0][127:64];
  wire [63:0] in_b = events[next < N ? next : 0][63:0];
{bus}  integer log_f, words_f;
  reg [31:0] length_seen = {length}, threshold_seen = {threshold};
  // The operations in the order the slave took them: an event taken in the clock of a flush
  // pulse comes before it.
  always @(posedge clock) if (!reset) begin
    if (in_valid && in_ready) begin
      $fwrite(log_f, "E %h %h\n", in_a, in_b);
      next <= next + 1;
    end
    if (dut.flush) $fwrite(log_f, "F\n");
    if (dut.clear) $fwrite(log_f, "C\n");
    if (dut.length != length_seen) begin
      $fwrite(log_f, "L %0d\n", dut.length);
      length_seen <= dut.length;
    end
    if (dut.threshold != threshold_seen) begin
      $fwrite(log_f, "T %0d\n", dut.threshold);
      threshold_seen <= dut.threshold;
    end
  end
  reg [31:0] lfsr = 32'h1f2e3d4c;
  reg [31:0] d, st, iv, alo, ahi, blo, bhi, cnt, pop, newl, newt;
  integer idle, cleared = 0, flushes = 0, writes = 0, twrites = 0, waited;
  // One poll: STATUS, and the head word if there is one.
  task automatic poll;
    begin
      wb_read(8'h{status:02x}, st);
      if (st[0]) begin
{read_word}        $fwrite(words_f, "%h %h%h %h%h %h %h\n", iv, ahi, alo, bhi, blo, cnt, pop[0]);
        idle = 0;
      end else idle = idle + 1;
    end
  endtask
  // FLUSH, then polls (the flush may wait for a report to leave) until it is no longer pending.
  task automatic flush;
    begin
      wb_write(8'h{ctrl:02x}, 32'd5);
      flushes = flushes + 1;
      waited = 0;
      poll;
      while (st[1]) begin
        poll;
        waited = waited + 1;
        if (waited > 2000) begin $display("FAIL flush pending for ever"); $finish; end
      end
    end
  endtask
  task automatic drain;
    begin
      idle = 0;
      while (idle < 300) poll;
    end
  endtask
  initial begin
    log_f = $fopen("log.txt", "w");
    words_f = $fopen("words.txt", "w");
    repeat (3) @(posedge clock);
    reset <= 1'b0;
    while (next < N) begin
      lfsr = lfsr ^ (lfsr << 13); lfsr = lfsr ^ (lfsr >> 17); lfsr = lfsr ^ (lfsr << 5);
      if (lfsr % 100 < 3) flush;
      else if (lfsr % 100 < 5) begin
        pause <= 1'b1;
        flush;
        newl = (lfsr[11:8] < 4) ? 1 + (lfsr >> 16) % 4 : 1 + (lfsr >> 16) % MAX;
        wb_write(8'h{interval:02x}, newl);
        wb_read(8'h{interval:02x}, d);
        if (d != newl) begin $display("FAIL INTERVAL %0d read back as %0d", newl, d); $finish; end
        wb_write(8'h{interval:02x}, MAX + 1);
        wb_write(8'h{interval:02x}, 0);
        wb_read(8'h{interval:02x}, d);
        if (d != newl) begin $display("FAIL an out-of-range INTERVAL was taken: %0d", d); $finish; end
        writes = writes + 1;
        pause <= 1'b0;
      end else if (lfsr % 100 < 7) begin
        pause <= 1'b1;
        flush;
        newt = lfsr[9:8] == 0 ? MINT : lfsr[9:8] == 1 ? MAXT : MINT + (lfsr >> 16) % (MAXT - MINT + 1);
        wb_write(8'h{threshold_reg:02x}, newt);
        wb_read(8'h{threshold_reg:02x}, d);
        if (d != newt) begin $display("FAIL THRESHOLD %0d read back as %0d", newt, d); $finish; end
        wb_write(8'h{threshold_reg:02x}, MAXT + 1);
        wb_write(8'h{threshold_reg:02x}, MINT - 1);
        wb_read(8'h{threshold_reg:02x}, d);
        if (d != newt) begin $display("FAIL an out-of-range THRESHOLD was taken: %0d", d); $finish; end
        twrites = twrites + 1;
        pause <= 1'b0;
      end else if (!cleared && next > N / 2) begin
        pause <= 1'b1;
        flush;
        drain;
        wb_write(8'h{ctrl:02x}, 32'd9);
        wb_read(8'h{ctrl:02x}, d);
        if (d != 1) begin $display("FAIL CTRL reads %0d after CLEAR", d); $finish; end
        cleared = 1;
        pause <= 1'b0;
      end
      poll;
    end
    flush;
    drain;
    $fclose(log_f);
    $fclose(words_f);
    $display("FLUSHES %0d", flushes);
    $display("WRITES %0d", writes);
    $display("DONE");
    $finish;
  end
endmodule
"#,
        n = events.len(),
        max = cfg.max_interval(),
        length = cfg.interval,
        threshold = cfg.threshold,
        min_t = cfg.min_threshold(),
        max_t = cfg.max_threshold(),
        threshold_reg = offset("THRESHOLD"),
        bus = bus(&readout::wrapper_name(name), 0),
        ctrl = offset("CTRL"),
        status = offset("STATUS"),
        interval = offset("INTERVAL"),
        read_word = read_word(&regs),
    );
    let tbf = dir.file("tb.v");
    std::fs::write(&tbf, tb).map_err(|e| e.to_string())?;
    let out = icarus::run(&dir, &[design, tbf], "tb").map_err(|e| e.0)?;
    if out.contains("FAIL") || !out.contains("DONE") {
        return Err(format!("the testbench failed:\n{out}"));
    }
    let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|e| format!("{s:?}: {e}"));
    let log_text = std::fs::read_to_string(dir.file("log.txt")).map_err(|e| e.to_string())?;
    let log: Vec<Op> = log_text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Ok(match f[..] {
                ["E", a, b] => Op::Event((hex(a)?, hex(b)?)),
                ["F"] => Op::Flush,
                ["C"] => Op::Clear,
                ["L", n] => Op::SetInterval(n.parse().map_err(|e| format!("{l:?}: {e}"))?),
                ["T", n] => Op::SetThreshold(n.parse().map_err(|e| format!("{l:?}: {e}"))?),
                _ => return Err(format!("log.txt: bad line {l:?}")),
            })
        })
        .collect::<Result<_, String>>()?;
    let words_text = std::fs::read_to_string(dir.file("words.txt")).map_err(|e| e.to_string())?;
    let hardware = reports_of_words(&words_text)?;
    let count = |f: fn(&Op) -> bool| log.iter().filter(|o| f(o)).count();
    let wrong_replays_match = [
        Replay::NoFlush,
        Replay::LengthOffByOne,
        Replay::ThresholdIgnored,
    ]
    .into_iter()
    .any(|how| replay(cfg, &log, how).ok().as_ref() == Some(&hardware));
    Ok(SettingsOutcome {
        model: replay(cfg, &log, Replay::Faithful)?,
        hardware,
        wrong_replays_match,
        events: count(|o| matches!(o, Op::Event(_))),
        flushes: count(|o| matches!(o, Op::Flush)),
        interval_writes: count(|o| matches!(o, Op::SetInterval(_))),
        threshold_writes: count(|o| matches!(o, Op::SetThreshold(_))),
        clears: count(|o| matches!(o, Op::Clear)),
    })
}

/// The reports in the words a testbench wrote, one per line: interval, a, b, count (hex), last.
pub(crate) fn reports_of_words(text: &str) -> Result<Vec<IntervalReport>, String> {
    let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|e| format!("{s:?}: {e}"));
    let mut hardware = Vec::new();
    let mut open: Vec<ReportEntry> = Vec::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        let [iv, a, b, count, last] = f[..] else {
            return Err(format!("words.txt: bad line {l:?}"));
        };
        let count = hex(count)?;
        if count != 0 {
            open.push(ReportEntry {
                a: hex(a)?,
                b: hex(b)?,
                count,
            });
        }
        if last == "1" {
            hardware.push(IntervalReport {
                interval: hex(iv)?,
                entries: std::mem::take(&mut open),
            });
        }
    }
    Ok(hardware)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::event_source::EventSourceModel;
    use crate::soc::run::mismatches;
    use hwprof_hdl::board::event_source::DEFAULT_SEED;
    use hwprof_hdl::ConfigFile;

    #[test]
    fn reports_read_over_the_bus_by_a_slow_master_equal_the_models() {
        let cfg = ProfilerConfig::from_toml_str(
            "interval = 200\nthreshold = 4\ntables = 2\nentries = 64\nhash = \"h3\"\na_bits = 32\nb_bits = 20\n\
             [accumulator]\norganisation = \"set_associative\"\nentries = 16\nways = 2\nstash = 0\n",
            "readout-test.toml",
        )
        .unwrap();
        let events = EventSourceModel::events(DEFAULT_SEED, 4000);
        let o = run(&cfg, &events, 150).unwrap();
        assert!(
            o.taken < o.fed && o.taken > o.fed / 2,
            "{} of {}",
            o.taken,
            o.fed
        );
        assert!(o.model.len() >= 10, "{}", o.model.len());
        assert_eq!(o.hardware.len(), o.model.len());
        assert_eq!(mismatches(&o.hardware, &o.model), 0);
        // The master was slow enough to fill the FIFO, which held the profiler back.
        assert_eq!(o.max_level, o.depth + 1);
        assert!(o.irq_polls > o.irq_polls_at_watermark);
        assert!(o.irq_polls_at_watermark > 0);
        let reg = |n: &str| o.registers.iter().find(|r| r.0 == n).map(|r| r.1);
        assert_eq!(reg("ID"), Some(hwprof_hdl::readout::regs::ID));
        assert_eq!(reg("TABLES"), Some(2));
        assert_eq!(reg("TABLE_ENTRIES"), Some(64));
        assert_eq!(reg("ACC_ENTRIES"), Some(16));
        assert_eq!(reg("KEY_BITS"), Some(32 | 20 << 8));
        assert_eq!(reg("INTERVAL"), Some(200));
        assert_eq!(reg("THRESHOLD"), Some(4));
        assert_eq!(reg("DROPPED"), Some(7));
        assert_eq!(reg("CTRL"), Some(1));
        assert_eq!(reg("FIFO_DEPTH"), Some(o.depth));
        assert_eq!(reg("IRQ_LEVEL"), Some(1));
    }

    /// FLUSH with events flowing, new L and T values (and refused ones) and a CLEAR over the
    /// bus: the reports read are the model's given the operations in the slave's order.
    #[test]
    fn settings_changed_at_run_time_over_the_bus_match_the_model() {
        for org in [
            "organisation = \"set_associative\"\nentries = 16\nways = 2\n",
            "entries = 8\n",
        ] {
            let cfg = ProfilerConfig::from_toml_str(
                &format!(
                    "interval = 200\nmax_interval = 300\nthreshold = 4\nmax_threshold = 12\n\
                     tables = 2\nentries = 64\n\
                     hash = \"h3\"\na_bits = 32\nb_bits = 20\n[accumulator]\n{org}"
                ),
                "settings-test.toml",
            )
            .unwrap();
            let events = EventSourceModel::events(DEFAULT_SEED, 6000);
            let o = run_settings(&cfg, &events).unwrap();
            println!(
                "{org:?}: {} events, {} reports, {} flushes, {} INTERVAL writes, {} THRESHOLD \
                 writes, {} clear",
                o.events,
                o.hardware.len(),
                o.flushes,
                o.interval_writes,
                o.threshold_writes,
                o.clears
            );
            assert_eq!(o.events, 6000);
            assert!(
                o.flushes >= 10
                    && o.interval_writes >= 5
                    && o.threshold_writes >= 5
                    && o.clears == 1,
                "{org}"
            );
            assert!(o.model.len() >= 40, "{org}: {}", o.model.len());
            assert_eq!(o.hardware.len(), o.model.len(), "{org}");
            assert_eq!(mismatches(&o.hardware, &o.model), 0, "{org}");
            assert!(!o.wrong_replays_match, "{org}");
        }
    }
}
