//! One run of a program on the system: build it, simulate it with the profilers on its retire
//! stream, feed the bit-exact model the dumped stream, compare its reports with the hardware's,
//! and score the hardware's reports against the exact profile of the same stream.

use super::programs::{self, Program, Symbols};
use super::system::{self, SimOutput, SystemParams, RAM_BYTES};
use super::SocError;
use crate::eval::metric::{perfect_counts, score_run, Accuracy};
use crate::eval::trace::Tuple;
use crate::model::multihash::{IntervalReport, MultiHash, ReportEntry};
use crate::verify::icarus::{SimDir, Simulator};
use hwprof_hdl::ProfilerConfig;
use serde::Serialize;

/// The profiler's module name in the system.
const PROFILER: &str = "soc-profiler";

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub program: Program,
    pub cfg: ProfilerConfig,
    pub simulator: Simulator,
    /// The kernels' short inputs (a few thousand instructions).
    pub short: bool,
    /// Tuples listed per mode.
    pub top: usize,
}

/// A tuple of a profile with the symbols of its program counters.
#[derive(Debug, Clone, Serialize)]
pub struct NamedTuple {
    pub a: u64,
    pub b: u64,
    pub count: u64,
    /// Value mode: the load's function; edge mode: "from -> to".
    pub symbol: String,
    /// `file:line` of the load or of the transfer (`a`).
    pub line: String,
}

/// One mode's results.
#[derive(Debug, Clone, Serialize)]
pub struct ModeResult {
    pub events: u64,
    /// Complete intervals reported by the hardware and by the model.
    pub reports: u64,
    pub model_reports: u64,
    /// Intervals whose hardware report differs from the model's (as sets of entries), plus
    /// intervals only one of them reported.
    pub mismatches: u64,
    /// The hardware's multi-hash net error against the exact profile of each interval.
    pub net_error: f64,
    pub precision: f64,
    pub recall: f64,
    /// The hottest tuples of the whole stream (exact counts).
    pub top: Vec<NamedTuple>,
    #[serde(skip)]
    pub hardware: Vec<IntervalReport>,
    #[serde(skip)]
    pub model: Vec<IntervalReport>,
}

/// A whole run.
#[derive(Debug, Clone, Serialize)]
pub struct SocRun {
    pub program: String,
    pub short: bool,
    pub simulator: String,
    pub configuration: String,
    pub instructions: u64,
    pub cycles: u64,
    /// Events of both modes.
    pub events: u64,
    /// Reports (complete intervals) of both modes from the hardware.
    pub reports: u64,
    /// Mismatching intervals of both modes.
    pub mismatches: u64,
    /// Cycles the CPU was stalled for the profilers, and the largest FIFO fills (value, edge).
    pub stall_cycles: u64,
    pub max_fifo_fill: (u64, u64),
    pub simulation_seconds: f64,
    pub instructions_per_second: f64,
    pub exit_code: u32,
    pub console: String,
    pub value: ModeResult,
    pub edge: ModeResult,
}

/// The hardware's report words of one mode as interval reports (empty-report markers dropped).
pub fn reports_of(words: &[(char, u64, u64, u64, u64, bool)], mode: char) -> Vec<IntervalReport> {
    let mut out: Vec<IntervalReport> = Vec::new();
    let mut open: Option<IntervalReport> = None;
    for &(m, interval, a, b, count, last) in words.iter().filter(|w| w.0 == mode) {
        debug_assert_eq!(m, mode);
        let r = open.get_or_insert_with(|| IntervalReport {
            interval,
            entries: Vec::new(),
        });
        if count != 0 {
            r.entries.push(ReportEntry { a, b, count });
        }
        if last {
            out.extend(open.take());
        }
    }
    out
}

/// Intervals on which the hardware and the model disagree: a report differing as a set of entries
/// (the set-associative accumulator reports set by set, not in entry order), or present in only one.
pub fn mismatches(hardware: &[IntervalReport], model: &[IntervalReport]) -> u64 {
    let sorted = |r: &IntervalReport| {
        let mut e: Vec<(u64, u64, u64)> = r.entries.iter().map(|e| (e.a, e.b, e.count)).collect();
        e.sort_unstable();
        (r.interval, e)
    };
    let differ = hardware
        .iter()
        .zip(model)
        .filter(|(h, m)| sorted(h) != sorted(m))
        .count();
    (differ + hardware.len().abs_diff(model.len())) as u64
}

fn mode_result(
    cfg: &ProfilerConfig,
    events: &[Tuple],
    hardware: Vec<IntervalReport>,
    top: usize,
    name: impl Fn(u64, u64) -> String,
) -> Result<ModeResult, SocError> {
    let model = MultiHash::new(cfg).map_err(SocError::Input)?.run(events);
    let per = score_run(
        events,
        &hardware,
        cfg.interval,
        cfg.threshold,
        cfg.a_mask(),
        cfg.b_mask(),
    );
    let acc = Accuracy::from_intervals(&per);
    let mut exact: Vec<(Tuple, u64)> = perfect_counts(events, u64::MAX, u64::MAX)
        .into_iter()
        .collect();
    exact.sort_unstable_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    Ok(ModeResult {
        events: events.len() as u64,
        reports: hardware.len() as u64,
        model_reports: model.len() as u64,
        mismatches: mismatches(&hardware, &model),
        net_error: acc.net_error,
        precision: acc.precision,
        recall: acc.recall,
        top: exact
            .into_iter()
            .take(top)
            .map(|((a, b), count)| NamedTuple {
                a,
                b,
                count,
                symbol: name(a, b),
                line: String::new(),
            })
            .collect(),
        hardware,
        model,
    })
}

/// Builds, simulates, models, compares.
pub fn run(o: &RunOptions) -> Result<SocRun, SocError> {
    let cpu = programs::picorv32_dir()?.join("picorv32.v");
    if o.cfg.a_bits < 32 || o.cfg.b_bits < 32 {
        return Err(SocError::Input(format!(
            "the profiler's keys are 32-bit program counters and values: a_bits and b_bits must be at least 32 (are {} and {})",
            o.cfg.a_bits, o.cfg.b_bits
        )));
    }
    let dir = SimDir::new("soc-build").map_err(|e| SocError::Failure(e.to_string()))?;
    let built = programs::build(o.program, o.short, &dir.path, RAM_BYTES)?;
    let symbols = Symbols::read(&built.elf)?;
    let cfg = o.cfg.clone();
    let profiler_v = hwprof_hdl::util::on_rtl_thread(move || {
        hwprof_hdl::multihash::export::exported(&cfg, PROFILER)
    })
    .map_err(SocError::Failure)?
    .map_err(SocError::Input)?;
    let params = SystemParams {
        drain_cycles: 4 * o.cfg.entries as u64 + 8 * o.cfg.accumulator.entries as u64 + 1000,
        // PicoRV32 needs 3 to 6 cycles an instruction; generous for divisions and stalls.
        max_cycles: 2_000_000_000,
    };
    let module = hwprof_hdl::export::module_name(PROFILER);
    let sim: SimOutput = system::simulate(
        o.simulator,
        &cpu,
        &module,
        &profiler_v,
        &built.words,
        params,
    )?;
    let exit_code = sim.exit_code.ok_or_else(|| {
        SocError::Failure(format!(
            "{} trapped without writing its exit code (an illegal instruction or misaligned access?) after {} instructions; console:\n{}",
            o.program.name, sim.instructions, sim.console
        ))
    })?;
    if exit_code != 0 && o.program.returns_status() {
        return Err(SocError::Failure(format!(
            "{} exited with code {exit_code}; console:\n{}",
            o.program.name, sim.console
        )));
    }
    let mut value = mode_result(
        &o.cfg,
        &sim.value_events,
        reports_of(&sim.words, 'V'),
        o.top,
        |a, _| symbols.name(a),
    )?;
    let mut edge = mode_result(
        &o.cfg,
        &sim.edge_events,
        reports_of(&sim.words, 'E'),
        o.top,
        |a, b| format!("{} -> {}", symbols.name(a), symbols.name(b)),
    )?;
    // Source lines of the hottest loads and transfers: functions are often inlined into main.
    let addrs: Vec<u64> = value.top.iter().chain(&edge.top).map(|t| t.a).collect();
    let lines = programs::source_lines(&built.elf, &addrs)?;
    for (t, line) in value.top.iter_mut().chain(edge.top.iter_mut()).zip(lines) {
        t.line = line;
    }
    Ok(SocRun {
        program: o.program.name.to_string(),
        short: o.short,
        simulator: format!("{:?}", o.simulator).to_lowercase(),
        configuration: o.cfg.summary(),
        instructions: sim.instructions,
        cycles: sim.cycles,
        events: value.events + edge.events,
        reports: value.reports + edge.reports,
        mismatches: value.mismatches + edge.mismatches,
        stall_cycles: sim.stall_cycles,
        max_fifo_fill: sim.max_fill,
        simulation_seconds: sim.seconds,
        instructions_per_second: sim.instructions as f64 / sim.seconds.max(1e-9),
        exit_code,
        console: sim.console,
        value,
        edge,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> ProfilerConfig {
        let text = include_str!("../../../configs/soc-bram.toml");
        ProfilerConfig::from_toml_str(text, "configs/soc-bram.toml").unwrap()
    }

    #[test]
    fn report_words_become_intervals_and_set_order_does_not_matter() {
        let w = vec![
            ('V', 0, 1, 2, 30, false),
            ('E', 0, 0, 0, 0, true),
            ('V', 0, 3, 4, 40, true),
            ('V', 1, 0, 0, 0, true),
        ];
        let v = reports_of(&w, 'V');
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].entries.len(), 2);
        assert!(v[1].entries.is_empty());
        assert_eq!(reports_of(&w, 'E').len(), 1);
        let mut swapped = v.clone();
        swapped[0].entries.reverse();
        assert_eq!(mismatches(&swapped, &v), 0);
        swapped[0].entries[0].count += 1;
        assert_eq!(mismatches(&swapped, &v), 1);
        assert_eq!(mismatches(&v[..1], &v), 1);
    }

    /// A short program on the whole system under Verilator: the hardware's reports equal the
    /// model's on the dumped retire stream, and a corrupted hardware report is caught.
    #[test]
    fn a_short_program_matches_the_model_and_a_corrupted_report_is_detected() {
        if programs::cross_available().is_err() || programs::picorv32_dir().is_err() {
            panic!(
                "this test needs the cross compiler and PicoRV32: {:?} / {:?}",
                programs::cross_available().err(),
                programs::picorv32_dir().err()
            );
        }
        let o = RunOptions {
            program: Program::parse("crc").unwrap(),
            cfg: cfg(),
            simulator: Simulator::Verilator,
            short: true,
            top: 5,
        };
        let r = run(&o).unwrap();
        assert!(r.console.contains("crc checksum"), "{}", r.console);
        assert!(r.instructions > 2000, "{}", r.instructions);
        assert!(
            r.value.reports >= 2 && r.edge.reports >= 2,
            "{} / {}",
            r.value.reports,
            r.edge.reports
        );
        assert!(
            r.value.hardware.iter().any(|h| !h.entries.is_empty()),
            "no hot value tuple reported"
        );
        assert_eq!(r.mismatches, 0);
        assert_eq!(r.value.model_reports, r.value.reports);
        // Corrupt one count of one reported tuple: the comparison must see it.
        let mut bad = r.value.hardware.clone();
        let e = bad.iter_mut().find_map(|h| h.entries.first_mut()).unwrap();
        e.count += 1;
        assert_eq!(mismatches(&bad, &r.value.model), 1);
        // And a lost report.
        assert_eq!(
            mismatches(&r.edge.hardware[1..], &r.edge.model),
            r.edge.model.len() as u64
        );
    }
}
