//! The report writer `hwprof_<name>_writer` ([`hwprof_hdl::readout::writer`]) on its slave's head
//! word under Icarus, against the profiler's model: events stream in, the memory is busy on a
//! random half of the clocks, and the buffer is small, so the writer fills it and stops; the
//! testbench then does what the program's handler does (reads `PTR`, takes the records from the
//! memory, writes `PTR` back to the start). Every record's last word must carry the flags and
//! `VALID`; `FULL` (`irq`) may only rise with the buffer full, and no word may be written on a busy
//! clock or outside the buffer.

use super::icarus::{self, SimDir};
use crate::model::multihash::{IntervalReport, MultiHash};
use crate::model::Tuple;
use hwprof_hdl::readout::{self, writer};
use hwprof_hdl::ProfilerConfig;

/// What a run gave.
#[derive(Debug, Clone)]
pub struct WriterOutcome {
    /// The reports in the records the writer stored.
    pub hardware: Vec<IntervalReport>,
    /// The model's reports of the events.
    pub model: Vec<IntervalReport>,
    /// Times the buffer was full and taken, and records stored.
    pub fills: u64,
    pub records: u64,
}

/// The tag the test's writer or's into each record's last word.
const FLAGS: u32 = 0x100;
/// The buffer's first byte; the memory is 2^ADDR_BITS bytes.
const BASE: u32 = 0x400;
const ADDR_BITS: u32 = 14;

/// Runs `cfg`'s slave and writer on `events` with a buffer of `records` records.
pub fn run(cfg: &ProfilerConfig, events: &[Tuple], records: u32) -> Result<WriterOutcome, String> {
    let name = "writer-test";
    let dir = SimDir::new("writer").map_err(|e| e.to_string())?;
    let design = dir.file("design.v");
    let cfg2 = cfg.clone();
    let v = hwprof_hdl::util::on_rtl_thread(move || {
        hwprof_hdl::multihash::export::exported(&cfg2, name)
    })??;
    let depth = readout::fifo_depth(cfg);
    let slave = readout::verilog_with_head_port(cfg, name, name, depth);
    let w = writer::verilog(cfg, name, ADDR_BITS, FLAGS)?;
    std::fs::write(&design, format!("{v}{slave}{w}")).map_err(|e| e.to_string())?;
    icarus::write_memh(
        &dir.file("events.memh"),
        128,
        events.iter().map(|&(a, b)| vec![b, a]),
    )
    .map_err(|e| e.to_string())?;
    let end = BASE + records * writer::RECORD_BYTES;
    let tb = format!(
        r#"`timescale 1ns/1ps
module tb;
  localparam N = {n};
  reg clock = 1'b0, reset = 1'b1;
  always #5 clock = !clock;
  reg [127:0] events [0:N-1];
  initial $readmemh("events.memh", events);
  integer next = 0;
  wire in_valid = next < N;
  wire in_ready;
  wire [63:0] in_a = events[next < N ? next : 0][127:64];
  wire [63:0] in_b = events[next < N ? next : 0][63:0];
  always @(posedge clock) if (!reset && in_valid && in_ready) next <= next + 1;
  wire hd_valid, hd_take, wb_ack, irq, reg_ack, mem_we, w_irq;
  wire [{wm}:0] hd_word;
  wire [31:0] wb_dat_r, reg_dat_r, mem_addr, mem_data;
  {slave} slave(.clock(clock), .reset(reset), .in_valid(in_valid), .in_ready(in_ready),
    .in_a(in_a), .in_b(in_b), .in_dropped(32'd0), .wb_cyc(1'b0), .wb_stb(1'b0), .wb_we(1'b0),
    .wb_sel(4'hf), .wb_adr(8'd0), .wb_dat_w(32'd0), .wb_dat_r(wb_dat_r), .wb_ack(wb_ack),
    .irq(irq), .hd_valid(hd_valid), .hd_word(hd_word), .hd_take(hd_take));
  reg reg_cyc = 1'b0, reg_we = 1'b0;
  reg [3:0] reg_adr = 4'd0;
  reg [31:0] reg_dat_w = 32'd0;
  // The CPU's use of the memory: a random half of the clocks.
  reg [31:0] lfsr = 32'h2545f491;
  always @(posedge clock) lfsr <= {{lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]}};
  wire mem_busy = lfsr[7];
  {writer} writer(.clock(clock), .reset(reset), .hd_valid(hd_valid), .hd_word(hd_word),
    .hd_take(hd_take), .reg_cyc(reg_cyc), .reg_we(reg_we), .reg_adr(reg_adr),
    .reg_dat_w(reg_dat_w), .reg_dat_r(reg_dat_r), .reg_ack(reg_ack), .mem_busy(mem_busy),
    .mem_we(mem_we), .mem_addr(mem_addr), .mem_data(mem_data), .irq(w_irq));
  reg [31:0] mem [0:{mem_words}];
  integer records = 0;
  always @(posedge clock) if (mem_we) begin
    if (mem_busy) begin $display("FAIL a word written on a busy clock"); $finish; end
    if (mem_addr < {base} || mem_addr >= {end} + 16) begin
      $display("FAIL a word written at %h, outside the buffer", mem_addr); $finish;
    end
    mem[mem_addr[{hi}:2]] <= mem_data;
    if (hd_take) records = records + 1;
  end
  task automatic reg_access(input we, input [3:0] adr, input [31:0] data, output [31:0] q);
    begin
      @(posedge clock);
      reg_cyc <= 1'b1; reg_we <= we; reg_adr <= adr; reg_dat_w <= data;
      @(posedge clock);
      reg_cyc <= 1'b0; reg_we <= 1'b0;
      while (!reg_ack) @(posedge clock);
      q = reg_dat_r;
    end
  endtask
  integer words_f, fills = 0, idle = 0, k;
  reg [31:0] d, ptr, ctrl;
  // The records from the buffer's start to `ptr`, as the slave's words.
  task automatic take_records;
    begin
      for (k = {base}; k < ptr; k = k + {record}) begin
        if (mem[(k >> 2) + 4][31:1] != {flags} >> 1) begin
          $display("FAIL record at %h: last word %h", k, mem[(k >> 2) + 4]); $finish;
        end
        $fwrite(words_f, "%h 00000000%h 00000000%h %h %0d\n", mem[k >> 2], mem[(k >> 2) + 1],
          mem[(k >> 2) + 2], mem[(k >> 2) + 3], mem[(k >> 2) + 4][0]);
      end
    end
  endtask
  initial begin
    words_f = $fopen("words.txt", "w");
    repeat (3) @(posedge clock);
    reset <= 1'b0;
    reg_access(1'b1, 4'h{end_off:x}, {end}, d);
    reg_access(1'b1, 4'h{ptr_off:x}, {base}, d);
    reg_access(1'b1, 4'h{ctrl_off:x}, 32'd1, d);
    while (!(next >= N && idle > 400)) begin
      @(posedge clock);
      if (w_irq) begin
        reg_access(1'b0, 4'h{ptr_off:x}, 0, ptr);
        reg_access(1'b0, 4'h{ctrl_off:x}, 0, ctrl);
        if (!ctrl[1] || ptr < {end}) begin
          $display("FAIL irq with room: PTR %h, CTRL %h", ptr, ctrl); $finish;
        end
        take_records;
        fills = fills + 1;
        reg_access(1'b1, 4'h{ptr_off:x}, {base}, d);
      end
      if (hd_valid || writer.k != 0) idle = 0; else idle = idle + 1;
    end
    reg_access(1'b0, 4'h{ptr_off:x}, 0, ptr);
    take_records;
    $fclose(words_f);
    $display("FILLS %0d", fills);
    $display("RECORDS %0d", records);
    $display("DONE");
    $finish;
  end
endmodule
"#,
        n = events.len(),
        wm = readout::word_bits(cfg) - 1,
        slave = readout::wrapper_name(name),
        writer = writer::writer_name(name),
        mem_words = (1u32 << ADDR_BITS) / 4 - 1,
        hi = ADDR_BITS - 1,
        base = BASE,
        end = end,
        record = writer::RECORD_BYTES,
        flags = FLAGS | 2,
        ptr_off = writer::REG_PTR,
        end_off = writer::REG_END,
        ctrl_off = writer::REG_CTRL,
    );
    let tbf = dir.file("tb.v");
    std::fs::write(&tbf, tb).map_err(|e| e.to_string())?;
    let out = icarus::run(&dir, &[design, tbf], "tb").map_err(|e| e.0)?;
    if out.contains("FAIL") || !out.contains("DONE") {
        return Err(format!("the testbench failed:\n{out}"));
    }
    let value = |key: &str| -> u64 {
        out.lines()
            .find_map(|l| l.strip_prefix(key)?.trim().parse().ok())
            .unwrap_or(0)
    };
    let words = std::fs::read_to_string(dir.file("words.txt")).map_err(|e| e.to_string())?;
    Ok(WriterOutcome {
        hardware: super::readout::reports_of_words(&words)?,
        model: MultiHash::new(cfg)?.run(events),
        fills: value("FILLS"),
        records: value("RECORDS"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::event_source::EventSourceModel;
    use crate::soc::run::mismatches;
    use hwprof_hdl::board::event_source::DEFAULT_SEED;
    use hwprof_hdl::ConfigFile;

    #[test]
    fn records_written_around_a_busy_memory_into_a_small_buffer_are_the_models_reports() {
        let cfg = ProfilerConfig::from_toml_str(
            "interval = 200\nthreshold = 4\ntables = 2\nentries = 64\nhash = \"h3\"\na_bits = 17\nb_bits = 32\n\
             [accumulator]\norganisation = \"set_associative\"\nentries = 16\nways = 2\nstash = 0\n",
            "writer-test.toml",
        )
        .unwrap();
        let events = EventSourceModel::events(DEFAULT_SEED, 3000);
        let o = run(&cfg, &events, 7).unwrap();
        println!(
            "{} reports, {} records, the buffer filled {} times",
            o.model.len(),
            o.records,
            o.fills
        );
        assert!(o.model.len() >= 10, "{}", o.model.len());
        assert_eq!(o.hardware.len(), o.model.len());
        assert_eq!(mismatches(&o.hardware, &o.model), 0);
        // The buffer of 7 records was filled and taken many times.
        assert!(o.fills >= 5 && o.records >= 7 * o.fills, "{o:?}");
    }

    #[test]
    fn wide_keys_and_impossible_rams_are_refused() {
        let wide = ProfilerConfig::from_toml_str(
            "interval = 200\nthreshold = 4\ntables = 2\nentries = 64\na_bits = 40\nb_bits = 32\n",
            "wide.toml",
        )
        .unwrap();
        let e = writer::verilog(&wide, "w", 17, 0).unwrap_err();
        assert!(e.contains("a_bits = 40"), "{e}");
        let cfg = ProfilerConfig::from_toml_str(
            "interval = 200\nthreshold = 4\ntables = 2\nentries = 64\na_bits = 17\nb_bits = 32\n",
            "ok.toml",
        )
        .unwrap();
        assert!(writer::verilog(&cfg, "w", 2, 0).is_err());
        assert!(writer::verilog(&cfg, "w", 17, 0).is_ok());
    }
}
