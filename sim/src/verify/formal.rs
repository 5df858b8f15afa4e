//! Bounded formal check of the pipelined profiler's forwarding against the baseline: a miter
//! holds both designs of one configuration, fed from one solver-chosen tape of events, each at
//! its own pace (the pipelined design's input optionally idling at any clock), with
//! solver-chosen report back-pressure on each side. Fully-associative, every report word of one
//! design is compared, in order, with the word of the same position from the other;
//! set-associative, each finished report is compared as a set of words. Yosys makes an AIGER
//! model of it and ABC's `bmc3` searches every input sequence up to the depth.
//!
//! Keys are drawn from `a_bits` / `b_bits` bits (the designs mask wider inputs anyway), so keep
//! those small: the tape has `events` × (a_bits + b_bits) free bits.

use crate::verify::icarus::SimDir;
use hwprof_hdl::export::rename_top;
use hwprof_hdl::multihash::{verilog_of, Design};
use hwprof_hdl::{ConfigFile, Organisation, ProfilerConfig};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A deliberate difference between the two sides, so that the check is seen to fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// The baseline side is built with threshold T + 1.
    BaselineThreshold,
    /// The pipelined side's first counter table forgets the words in flight: its forwarding
    /// selects (`fw_same`, `fw_pick`; in the relation design the same-counter flags of the events
    /// one and two ahead, `m_same1`, `m_same2`) are held at 0 in the exported Verilog, so a
    /// counter read right behind its own update sees the stale word.
    CounterForwarding,
}

/// The forwarding selects of the first counter table, as the export names their flip-flops' inputs.
const FORWARDING_SELECTS: [&str; 2] = ["fw_same$0$d = ", "fw_pick$0$d = "];
const RELATION_FORWARDING_SELECTS: [&str; 2] = ["m_same1$0$d = ", "m_same2$0$d = "];

/// `verilog` with every assignment to the first counter table's forwarding selects made 0.
/// Errors if there is none, so a renamed signal cannot leave the mutation silently empty.
fn without_counter_forwarding(verilog: &str, selects: &[&str]) -> Result<String, String> {
    let mut n = 0;
    let lines: Vec<String> = verilog
        .lines()
        .map(|line| {
            let body = line.trim_start();
            match selects.iter().find(|s| body.starts_with(*s)) {
                Some(select) if body.ends_with(';') => {
                    n += 1;
                    let indent = &line[..line.len() - body.len()];
                    format!("{indent}{select}1'b0;")
                }
                _ => line.to_string(),
            }
        })
        .collect();
    if n == 0 {
        return Err(format!(
            "no one-line forwarding select ({}) in the pipelined design's Verilog",
            selects.join(", ")
        ));
    }
    Ok(lines.join("\n") + "\n")
}

/// Result of one check.
#[derive(Debug, Clone, Serialize)]
pub struct FormalResult {
    /// `"same_reports"` (the equivalence check) or `"all_reports_sent"` (the reach search).
    pub property: String,
    /// Clocks searched (frames of the BMC), reset included.
    pub depth: u64,
    /// Events on the tape.
    pub events: u64,
    /// Whether the pipelined design's input could idle at any clock.
    pub idle_input: bool,
    /// The pipelined side: `"pipelined"` or `"relation"` (relation forwarding).
    pub design: String,
    /// Whether the depth was found by [`depth_reaching_every_report`] rather than given.
    pub depth_from_reach: bool,
    /// Equivalence: `"pass"` (no mismatch within the depth) or `"fail"`. Reach: `"reached"` or
    /// `"not reached"` (no run sends every report within the depth).
    pub result: String,
    /// Frame of the first mismatch, on `"fail"`.
    pub fail_frame: Option<u64>,
    /// Earliest frame by which both designs have sent every report, on `"reached"`.
    pub reached_at: Option<u64>,
    /// ABC's trace (AIGER witness, `write_cex -n`): the counterexample on `"fail"`, the run on
    /// `"reached"`.
    pub counterexample: Option<PathBuf>,
    pub seconds: f64,
    pub solver: String,
    pub yosys: String,
    /// The miter and the files made from it (`--out`; none when they were made in a scratch
    /// directory, which is gone).
    pub dir: Option<PathBuf>,
}

const INSTALL: &str =
    "the formal check needs Yosys and its ABC (yosys, yosys-abc): apt-get install yosys";

/// What the bounded search looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Property {
    /// A report of one design that differs from the other's: the equivalence check.
    SameReports,
    /// A run in which both designs have sent every report of the tape: its earliest clock says
    /// what depth the equivalence check needs to compare them all.
    AllReportsSent,
}

/// One bounded search: what the miter is fed and what it looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Search {
    /// Events on the solver-chosen tape.
    pub events: u64,
    /// Clocks searched (frames of the BMC), the reset clock included.
    pub depth: u64,
    pub property: Property,
    /// The pipelined design's input may idle at any clock (solver-chosen), so that its forwarding
    /// sees every distance between events, not only back-to-back events. The baseline takes an
    /// event whenever the tape has one.
    pub idle_input: bool,
    /// The pipelined side is the design with relation forwarding ([`Design::Relation`]), whose
    /// counter tables decide on order relations forwarded as bits: the check then proves them
    /// against the baseline's value-based update within the bound.
    pub relation: bool,
}

/// The miter's top module `miter` around `pipe` and `base` (the two exports, renamed).
pub fn miter(cfg: &ProfilerConfig, search: &Search) -> String {
    let Search {
        events, property, ..
    } = *search;
    let p_offer = if search.idle_input { "$anyseq" } else { "1" };
    let p_settings = hwprof_hdl::multihash::top::fixed_settings_ports(cfg, "p_unused");
    let b_settings = hwprof_hdl::multihash::top::fixed_settings_ports(cfg, "b_unused");
    let aw = cfg.a_bits;
    let bw = cfg.b_bits;
    let reports = events / cfg.interval;
    let set_associative = cfg.accumulator.organisation == Organisation::SetAssociative;
    // A fully-associative report has at most A words (or one marker word); a set-associative
    // one at most A entries and its terminator.
    let per_report = cfg.accumulator.entries.max(1) as u64 + u64::from(set_associative);
    let words = (reports * per_report).max(1);
    let pb = bits_for(events + 1);
    let wb = bits_for(words + 2);
    let rb = bits_for(reports + 2);
    let compare = match property {
        Property::AllReportsSent => format!(
            "  // Violated once both designs have sent every report: a witness that the depth reaches them.\n  always @* assert (!(p_done >= {reports} && b_done >= {reports}));\n"
        ),
        Property::SameReports => {
            let order = if set_associative {
                same_sets()
            } else {
                SAME_ORDER.to_string()
            };
            format!("{NO_EXTRA_WORDS}{order}")
        }
    };
    format!(
        r#"// hwprof: bounded equivalence miter of the pipelined and the baseline profiler,
// generated by hwprof_sim::verify::formal.
module miter(input clock);
  localparam N = {events}, AW = {aw}, BW = {bw}, KW = AW + BW, M = {words};
  // The tape: the same events for both designs, chosen once by the solver.
  (* anyconst *) reg [N*KW-1:0] tape;
  reg started = 0;
  // One reset clock at the start: every flip-flop then has its reset value; RAM contents are free.
  wire reset = !started;
  always @(posedge clock) started <= 1;
  // Each side's report consumer may stall at any clock. The baseline's input offers an event
  // whenever the tape has one; the pipelined design's may idle ({p_offer} = solver-chosen).
  wire p_offer = {p_offer}, b_offer = 1, p_ready = $anyseq, b_ready = $anyseq;
  reg [{pb}:0] p_ptr = 0, b_ptr = 0;
  wire p_in_valid = !reset && p_offer && p_ptr < N;
  wire b_in_valid = !reset && b_offer && b_ptr < N;
  wire [KW-1:0] p_key = tape[p_ptr*KW +: KW];
  wire [KW-1:0] b_key = tape[b_ptr*KW +: KW];
  wire p_in_ready, b_in_ready, p_out_valid, b_out_valid, p_out_last, b_out_last;
  wire [31:0] p_out_interval, b_out_interval, p_out_count, b_out_count;
  wire [63:0] p_out_a, b_out_a, p_out_b, b_out_b;
  wire p_unused, b_unused;
  pipe p(.clock(clock), .reset(reset), .in_valid(p_in_valid), .in_ready(p_in_ready),
    .in_a({{{{(64-AW){{1'b0}}}}, p_key[AW-1:0]}}), .in_b({{{{(64-BW){{1'b0}}}}, p_key[KW-1:AW]}}),
    .out_valid(p_out_valid), .out_ready(p_ready), .out_interval(p_out_interval), .out_a(p_out_a),
    .out_b(p_out_b), .out_count(p_out_count), .out_last(p_out_last), {p_settings});
  base b(.clock(clock), .reset(reset), .in_valid(b_in_valid), .in_ready(b_in_ready),
    .in_a({{{{(64-AW){{1'b0}}}}, b_key[AW-1:0]}}), .in_b({{{{(64-BW){{1'b0}}}}, b_key[KW-1:AW]}}),
    .out_valid(b_out_valid), .out_ready(b_ready), .out_interval(b_out_interval), .out_a(b_out_a),
    .out_b(b_out_b), .out_count(b_out_count), .out_last(b_out_last), {b_settings});
  always @(posedge clock) begin
    if (p_in_valid && p_in_ready) p_ptr <= p_ptr + 1;
    if (b_in_valid && b_in_ready) b_ptr <= b_ptr + 1;
  end
  // Report words, logged in order on each side with the number of the report they belong to.
  wire [192:0] p_word = {{p_out_interval, p_out_a, p_out_b, p_out_count, p_out_last}};
  wire [192:0] b_word = {{b_out_interval, b_out_a, b_out_b, b_out_count, b_out_last}};
  wire p_fire = !reset && p_out_valid && p_ready;
  wire b_fire = !reset && b_out_valid && b_ready;
  reg [192:0] p_log [0:M-1];
  reg [192:0] b_log [0:M-1];
  reg [{rb}:0] p_rep [0:M-1];
  reg [{rb}:0] b_rep [0:M-1];
  reg [{wb}:0] p_n = 0, b_n = 0;
  reg [{rb}:0] p_done = 0, b_done = 0;
  always @(posedge clock) begin
    if (p_fire) begin
      if (p_n < M) begin
        p_log[p_n] <= p_word;
        p_rep[p_n] <= p_done;
      end
      p_n <= p_n + 1;
      if (p_out_last) p_done <= p_done + 1;
    end
    if (b_fire) begin
      if (b_n < M) begin
        b_log[b_n] <= b_word;
        b_rep[b_n] <= b_done;
      end
      b_n <= b_n + 1;
      if (b_out_last) b_done <= b_done + 1;
    end
  end
{compare}endmodule
"#
    )
}

const NO_EXTRA_WORDS: &str = r#"  always @* begin
    // No design sends more words than the tape's complete intervals can give.
    if (p_fire) assert (p_n < M);
    if (b_fire) assert (b_n < M);
  end
"#;

/// Fully-associative: both designs send a report's words in the same order, so every word is
/// compared with the other side's word of the same position.
const SAME_ORDER: &str = r#"  always @* begin
    if (p_fire && b_fire && p_n == b_n) assert (p_word == b_word);
    if (p_fire && p_n < b_n) assert (p_word == b_log[p_n]);
    if (b_fire && b_n < p_n) assert (b_word == p_log[b_n]);
  end
"#;

/// Set-associative: the pipelined design lists a report's entries in retirement order, the
/// baseline in entry order. Once both sides have finished a report, each side's words of it
/// must be distinct and each must be among the other side's: the same set of words.
fn same_sets() -> String {
    // Side `x`'s words of the reports both sides have finished, against side `y`.
    let side = |x: &str, y: &str| {
        format!(
            r#"      if (i < {x}_n && {x}_rep[i] < closed) begin
        found = 0;
        for (j = 0; j < M; j = j + 1)
          if (j < {y}_n && {y}_rep[j] == {x}_rep[i] && {y}_log[j] == {x}_log[i]) found = 1;
        assert (found);
        for (j = i + 1; j < M; j = j + 1)
          if (j < {x}_n && {x}_rep[j] == {x}_rep[i]) assert ({x}_log[j] != {x}_log[i]);
      end
"#
        )
    };
    format!(
        r#"  wire [31:0] closed = p_done < b_done ? p_done : b_done;
  integer i, j;
  reg found;
  always @* begin
    for (i = 0; i < M; i = i + 1) begin
{}{}    end
  end
"#,
        side("p", "b"),
        side("b", "p")
    )
}

fn bits_for(n: u64) -> u64 {
    (64 - n.leading_zeros() as u64).max(1)
}

/// Runs a tool, mapping a missing binary to the install hint.
fn tool(cmd: &mut Command, name: &str) -> Result<std::process::Output, String> {
    cmd.output()
        .map_err(|e| format!("cannot run {name}: {e}: {INSTALL}"))
}

/// Free bits of the tape above which the search is hopeless.
const MAX_TAPE_BITS: u64 = 4096;

/// Whether `cfg`, `events` and `depth` can be checked at all: both designs exist for the shape
/// (no stash) and the tape is small. Errors name the caller's input.
pub fn validate(cfg: &ProfilerConfig, events: u64, depth: u64) -> Result<(), String> {
    if events == 0 || depth == 0 {
        return Err("events and depth must be at least 1".into());
    }
    hwprof_hdl::multihash::widths::rtl_shape(cfg)?;
    let free = events * (cfg.a_bits + cfg.b_bits) as u64;
    if free > MAX_TAPE_BITS {
        return Err(format!(
            "the tape would have {free} free bits (events x (a_bits + b_bits)): use small key widths (e.g. a_bits = b_bits = 1)"
        ));
    }
    Ok(())
}

/// Searches every tape and every pacing of `search` for its property: with `SameReports`, a report
/// of the pipelined design that differs from the baseline's (none: `"pass"`); with
/// `AllReportsSent`, the earliest clock by which both have sent every report. `mutation` makes
/// the two sides differ on purpose. Errors: no RTL shape, tools missing or failing.
pub fn check(
    cfg: &ProfilerConfig,
    search: &Search,
    mutation: Option<Mutation>,
    out: Option<&Path>,
) -> Result<FormalResult, String> {
    let Search {
        events,
        depth,
        property,
        idle_input,
        relation,
    } = *search;
    validate(cfg, events, depth)?;
    let mut base_cfg = cfg.clone();
    if mutation == Some(Mutation::BaselineThreshold) {
        base_cfg.threshold += 1;
        base_cfg
            .validate()
            .map_err(|e| format!("the mutated configuration is not valid: {e}"))?;
    }
    let (design, selects) = match relation {
        true => (Design::Relation, &RELATION_FORWARDING_SELECTS),
        false => (Design::Pipelined, &FORWARDING_SELECTS),
    };
    let mut pipe = verilog_of(cfg, design)?;
    if mutation == Some(Mutation::CounterForwarding) {
        pipe = without_counter_forwarding(&pipe, selects)?;
    }
    let base = verilog_of(&base_cfg, Design::Baseline)?;
    let scratch;
    let dir: PathBuf = match out {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
            d.to_path_buf()
        }
        None => {
            scratch = SimDir::new("formal").map_err(|e| e.to_string())?;
            scratch.path.clone()
        }
    };
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))
    };
    write("pipe.v", &rename_top(&pipe, "pipe"))?;
    write("base.v", &rename_top(&base, "base"))?;
    write("miter.v", &miter(cfg, search))?;
    let yosys = String::from_utf8_lossy(&tool(Command::new("yosys").arg("-V"), "yosys")?.stdout)
        .trim()
        .to_string();
    let t0 = std::time::Instant::now();
    // Memories become flip-flops (the tables are tiny), everything is bit-blasted to an AIG:
    // ABC's bit-level BMC is far faster here than an SMT solver on the word-level model.
    let script =
        "read_verilog -formal miter.v pipe.v base.v; prep -top miter; flatten; memory_map; \
                  opt -full; async2sync; chformal -assume -early; setundef -undriven -anyseq; \
                  opt -fast; techmap; opt -fast; dffunmap; abc -g AND; opt_clean; delete -output; \
                  write_aiger -B -zinit -map miter.aim miter.aig";
    let y = tool(
        Command::new("yosys")
            .current_dir(&dir)
            .args(["-q", "-l", "yosys.log", "-p", script]),
        "yosys",
    )?;
    if !y.status.success() {
        return Err(format!(
            "yosys failed:\n{}{}",
            String::from_utf8_lossy(&y.stdout),
            String::from_utf8_lossy(&y.stderr)
        ));
    }
    let abc_script =
        format!("read_aiger miter.aig; fold; strash; bmc3 -F {depth}; write_cex -n cex.aiw");
    let a = tool(
        Command::new("yosys-abc")
            .current_dir(&dir)
            .args(["-c", &abc_script]),
        "yosys-abc",
    )?;
    let seconds = t0.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&a.stdout).to_string();
    write("abc.log", &text)?;
    let (asserted, frame) = parse_bmc(&text, depth)?;
    let (property_name, result) = match (property, asserted) {
        (Property::SameReports, true) => ("same_reports", "fail"),
        (Property::SameReports, false) => ("same_reports", "pass"),
        (Property::AllReportsSent, true) => ("all_reports_sent", "reached"),
        (Property::AllReportsSent, false) => ("all_reports_sent", "not reached"),
    };
    let res = FormalResult {
        property: property_name.into(),
        depth,
        events,
        idle_input,
        design: if relation { "relation" } else { "pipelined" }.into(),
        depth_from_reach: false,
        result: result.into(),
        fail_frame: frame.filter(|_| property == Property::SameReports),
        reached_at: frame.filter(|_| property == Property::AllReportsSent),
        counterexample: asserted.then(|| dir.join("cex.aiw")),
        seconds,
        solver: "abc bmc3 (yosys-abc)".into(),
        yosys,
        dir: Some(dir.clone()),
    };
    if out.is_none() {
        // The scratch directory goes away: name nothing in it.
        return Ok(FormalResult {
            counterexample: None,
            dir: None,
            ..res
        });
    }
    Ok(res)
}

/// Deepest search [`depth_reaching_every_report`] makes.
pub const REACH_LIMIT: u64 = 80;

/// The smallest depth at which the check compares every report of a tape of `events` events on
/// the fastest pacing: one more than the earliest clock by which both designs can have sent them
/// all, searched up to [`REACH_LIMIT`] clocks. Errors as [`check`], or when no run gets there.
pub fn depth_reaching_every_report(
    cfg: &ProfilerConfig,
    events: u64,
    relation: bool,
) -> Result<u64, String> {
    let search = Search {
        events,
        depth: REACH_LIMIT,
        property: Property::AllReportsSent,
        idle_input: false,
        relation,
    };
    let r = check(cfg, &search, None, None)?;
    r.reached_at.map(|f| f + 1).ok_or_else(|| {
        format!(
            "no run sends every report of both designs within {REACH_LIMIT} clocks: give a depth"
        )
    })
}

/// ABC's verdict: `Output k of miter ... was asserted in frame F` (true, F) or `No output asserted
/// in N frames` (false); anything else (a resource limit before the depth) is an error, never a
/// pass.
fn parse_bmc(text: &str, depth: u64) -> Result<(bool, Option<u64>), String> {
    for line in text.lines() {
        if let Some(rest) = line.split("was asserted in frame ").nth(1) {
            let f = rest
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|s| s.parse().ok());
            return Ok((true, f));
        }
        if let Some(rest) = line.trim().strip_prefix("No output asserted in ") {
            let n: u64 = rest
                .split_whitespace()
                .next()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("unexpected ABC output: {line}"))?;
            if n >= depth {
                return Ok((false, None));
            }
            return Err(format!("ABC stopped after {n} of {depth} frames: {line}"));
        }
    }
    Err(format!("no verdict in ABC's output:\n{text}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::ConfigFile;

    fn search(events: u64, depth: u64, property: Property) -> Search {
        Search {
            events,
            depth,
            property,
            idle_input: false,
            relation: false,
        }
    }

    /// The shipped shape of `hwprof formal`.
    fn tiny() -> ProfilerConfig {
        ProfilerConfig::from_toml_str(
            include_str!("../../../configs/formal-tiny.toml"),
            "formal-tiny",
        )
        .unwrap()
    }

    #[test]
    fn pipelined_and_baseline_agree_within_the_bound() {
        let r = check(&tiny(), &search(6, 24, Property::SameReports), None, None).unwrap();
        assert_eq!(r.result, "pass", "{r:#?}");
    }

    #[test]
    fn a_different_threshold_on_one_side_is_caught() {
        let r = check(
            &tiny(),
            &search(6, 24, Property::SameReports),
            Some(Mutation::BaselineThreshold),
            None,
        )
        .unwrap();
        assert_eq!(r.result, "fail", "{r:#?}");
        assert!(r.fail_frame.is_some());
    }

    /// The set-associative shape, cut to one set of 2 ways and 1-bit keys (4 tuples compete for
    /// 2 ways): the shipped 2-set shape needs about 6 minutes at the depth that reaches its reports.
    fn tiny_set() -> ProfilerConfig {
        let mut cfg = ProfilerConfig::from_toml_str(
            include_str!("../../../configs/formal-tiny-set.toml"),
            "formal-tiny-set",
        )
        .unwrap();
        cfg.accumulator.entries = 2;
        cfg.a_bits = 1;
        cfg.validate().unwrap();
        cfg
    }

    #[test]
    fn the_pipelined_design_may_idle_between_events() {
        let idle = Search {
            idle_input: true,
            ..search(6, 24, Property::SameReports)
        };
        let r = check(&tiny(), &idle, None, None).unwrap();
        assert_eq!(r.result, "pass", "{r:#?}");
        assert!(r.idle_input);
    }

    #[test]
    fn the_depth_of_the_fully_associative_check_reaches_both_reports() {
        let r = check(
            &tiny(),
            &search(6, 30, Property::AllReportsSent),
            None,
            None,
        )
        .unwrap();
        assert_eq!(r.result, "reached", "{r:#?}");
        assert!(r.reached_at.unwrap() < 30, "{r:#?}");
    }

    #[test]
    fn set_associative_designs_send_the_same_reports_within_the_bound() {
        let cfg = tiny_set();
        // The bound must reach both designs' reports, or the check below compares nothing.
        let depth = depth_reaching_every_report(&cfg, 6, false).unwrap();
        assert!(depth <= 40, "{depth}");
        let r = check(&cfg, &search(6, depth, Property::SameReports), None, None).unwrap();
        assert_eq!(r.result, "pass", "{r:#?}");
        let m = check(
            &cfg,
            &search(6, depth, Property::SameReports),
            Some(Mutation::BaselineThreshold),
            None,
        )
        .unwrap();
        assert_eq!(m.result, "fail", "{m:#?}");
    }

    #[test]
    fn counters_that_forget_the_word_in_flight_are_caught() {
        // Fully-associative (no write stage: `fw_same`) and set-associative (write stage:
        // `fw_pick` too), each within a bound its correct design passes.
        for (cfg, depth) in [(tiny(), 24), (tiny_set(), 32)] {
            let r = check(
                &cfg,
                &search(6, depth, Property::SameReports),
                Some(Mutation::CounterForwarding),
                None,
            )
            .unwrap();
            assert_eq!(r.result, "fail", "{r:#?}");
        }
        assert!(without_counter_forwarding("module m;\nendmodule\n", &FORWARDING_SELECTS).is_err());
    }

    /// The relation design's counter tables and accumulator against the baseline's value-based
    /// conservative update, every tape of the one-set shape, within the depth that reaches both
    /// reports; and with its first table's distance-1 and -2 relations dropped, the check fails.
    #[test]
    fn the_relation_design_sends_the_baseline_reports_within_the_bound() {
        let cfg = tiny_set();
        let depth = depth_reaching_every_report(&cfg, 6, true).unwrap();
        let relation = Search {
            relation: true,
            ..search(6, depth, Property::SameReports)
        };
        let r = check(&cfg, &relation, None, None).unwrap();
        assert_eq!(
            (r.result.as_str(), r.design.as_str()),
            ("pass", "relation"),
            "{r:#?}"
        );
        let m = check(&cfg, &relation, Some(Mutation::CounterForwarding), None).unwrap();
        assert_eq!(m.result, "fail", "{m:#?}");
    }

    #[test]
    fn abc_verdicts_are_parsed() {
        assert_eq!(
            parse_bmc("No output asserted in 24 frames. Resource limit", 24).unwrap(),
            (false, None)
        );
        assert!(parse_bmc("No output asserted in 20 frames.", 24).is_err());
        assert_eq!(
            parse_bmc("Output 0 of miter \"m\" was asserted in frame 17. Time", 24).unwrap(),
            (true, Some(17))
        );
    }
}
