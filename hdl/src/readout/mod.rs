//! `hwprof_<name>_wb`: a profiler with a Wishbone B4 (classic) slave, so that software — the
//! profiled CPU itself, or a debug bridge — reads the reports from registers.
//!
//! **One description.** [`registers`] is the register map; the slave's read multiplexer
//! ([`wishbone`]), the C header ([`c_header`]) and the table of docs/SPEC.md ([`markdown_table`])
//! are all generated from it, so they cannot disagree.
//!
//! **Reports.** The profiler's report stream fills a FIFO of [`fifo_depth`] words, deep enough for
//! a whole interval's report (every accumulator entry and the end word), so a program that drains
//! the FIFO once per interval never holds the profiler back. When the FIFO is full the profiler
//! waits (its `out_ready` is low): reports are never lost, and an upstream tap under the stall
//! policy passes the wait on to the core. Software sees the head word in the `REPORT_*` registers
//! while `STATUS.READY` is set; reading `REPORT_POP` returns its `last` bit and removes it.
//! Words with count 0 are not entries: they end a report (the profiler's end word, §5.1).
//!
//! **Control.** `CTRL.ENABLE` (set at reset) lets events in; cleared, the slave accepts events and
//! discards them (the profiler's intervals do not advance). `CTRL.IRQ_ENABLE` routes `READY` to
//! the `irq` output (level-sensitive, high while a word waits). `DROPPED` shows the `in_dropped`
//! input: events an upstream tap lost (0 when nothing is connected).
//!
//! **Settings at run time.** `INTERVAL` sets L for the intervals that start after the write,
//! within 1 ..= `MAX_INTERVAL` (the configuration's `max_interval`, for which the counters are
//! sized), and `THRESHOLD` sets T likewise, within `MIN_THRESHOLD ..= MAX_THRESHOLD`
//! (`reset_value` + 1 ..= `max_threshold`); `CTRL.FLUSH` ends the open interval early and
//! reports it — a program calls it before it reads its last, partial interval — and `CTRL.CLEAR`
//! starts over, keeping both settings.
//!
//! **Report writer.** Where the FIFO cannot hold a run's reports and a program should not spend
//! its clocks draining them, [`writer`] takes the head word from ports of the slave's own
//! ([`verilog_with_head_port`]) and stores it into a buffer in the CPU's RAM on the clocks the CPU
//! leaves the RAM, five words a report word, as a software drain would.

pub mod regs;
pub mod wishbone;
pub mod writer;

pub use regs::{c_header, markdown_table, registers, Access, Register};
pub use wishbone::{
    check_slave, exported, fifo_depth, verilog, verilog_with_head_port, word_bits, wrapper_name,
    MAX_FIFO_DEPTH,
};
