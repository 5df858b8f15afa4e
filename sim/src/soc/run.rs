//! One run of a program on the system: build it, simulate it with the hwprof blocks on its retire
//! stream, feed the bit-exact models the dumped stream, compare their output with the hardware's,
//! and score the hardware's profiles against the exact profile of the same stream.

use super::cpu::Cpu;
use super::programs::{self, BuildTarget, ProgramSource};
use super::system::{self, Blocks, Readout, SimOutput, SystemParams, RAM_BYTES, TAPS};
use super::SocError;
use crate::eval::metric::{perfect_counts, score_run, Accuracy};
use crate::eval::trace::Tuple;
use crate::model::multihash::{IntervalReport, MultiHash, ReportEntry};
use crate::model::phase::{PhaseClassifier, PhaseRecord};
use crate::model::profile_buffer::{
    evaluate, BranchEvent, ProfileBufferModel, ReadoutWord, Stimulus,
};
use crate::model::tap::{check_drops, events as tap_events};
use crate::verify::icarus::{SimDir, Simulator};
use crate::verify::phase::classification_clocks;
use hwprof_hdl::phase::config::PhaseConfig;
use hwprof_hdl::profile_buffer::{BufferConfig, Indexing};
use hwprof_hdl::tap::{Policy, TapConfig, TapMode, LOST_BITS};
use hwprof_hdl::ProfilerConfig;
use serde::Serialize;

/// The blocks' designs in the system (module names `hwprof_soc_…`).
const PROFILER: &str = "soc-profiler";
const BUFFER: &str = "soc-buffer";
const PHASE: &str = "soc-phase";
const VALUE: &str = "soc-profiler-value";
const EDGE: &str = "soc-profiler-edge";
const BRANCH_TAP: &str = "soc-tap-branch";
const PHASE_TAP: &str = "soc-tap-phase";
/// With the bus readout: the value and edge taps (the slave is [`system::SLAVE`]).
const VALUE_TAP: &str = "soc-tap-value";
const EDGE_TAP: &str = "soc-tap-edge";

/// The default configurations, built in so that `hwprof soc` runs from anywhere: (source, text).
pub const DEFAULT_PROFILER: (&str, &str) = (
    "configs/soc-bram.toml",
    include_str!("../../../configs/soc-bram.toml"),
);
pub const DEFAULT_BUFFER: (&str, &str) = (
    "configs/soc-buffer.toml",
    include_str!("../../../configs/soc-buffer.toml"),
);
pub const DEFAULT_PHASE: (&str, &str) = (
    "configs/soc-phase.toml",
    include_str!("../../../configs/soc-phase.toml"),
);

/// What the simulated system's programs are built for on `cpu`.
pub fn system_target(cpu: Cpu) -> BuildTarget {
    BuildTarget {
        ram_bytes: RAM_BYTES,
        m: cpu.m_extension(),
        system: format!("simulated {} system", cpu.name()),
        readout: None,
    }
}

/// The bus readout's report FIFO by default: deep enough for the reports of most bundled programs
/// (software reads them after main), a few of the ULX3S's block RAMs.
pub const DEFAULT_REPORT_FIFO: u32 = 4096;

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub program: ProgramSource,
    pub cfg: ProfilerConfig,
    /// The profile buffer on the conditional branches (address or set-associative indexing: a
    /// CPU without compiler support has no branch index to give it).
    pub buffer: BufferConfig,
    /// The phase classifier on the control transfers.
    pub phase: PhaseConfig,
    pub simulator: Simulator,
    /// The kernels' short inputs (a few thousand instructions).
    pub short: bool,
    /// Tuples listed per mode.
    pub top: usize,
    pub cpu: Cpu,
    /// What the taps do when their FIFO fills.
    pub policy: Policy,
    /// The blocks on a clock of their own, and the clock frequencies, blocks : CPU.
    pub asynchronous: bool,
    pub ratio: (u32, u32),
    /// Retired instructions after which the program is stopped.
    pub max_instructions: u64,
    /// How the profilers' reports leave the system; the bus readout also runs the program on the
    /// system without the blocks, for the profile's cost in cycles.
    pub readout: Readout,
    /// With the bus readout: the slaves' report FIFO depth in words
    /// ([`hwprof_hdl::readout::check_slave`]).
    pub report_fifo: u32,
    /// Where to keep the program (`program.elf`) and the hardware's reports of both modes
    /// (`reports.jsonl`, with the exact counts of the reported tuples), for `hwprof report`.
    pub out: Option<std::path::PathBuf>,
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
    /// Events per interval (L), and the hardware's reports.
    pub interval_length: u64,
    #[serde(rename = "hardware_reports")]
    pub hardware: Vec<IntervalReport>,
    #[serde(skip)]
    pub model: Vec<IntervalReport>,
}

/// The profile buffer's results.
#[derive(Debug, Clone, Serialize)]
pub struct BufferResult {
    pub configuration: String,
    /// Conditional branches retired, and how many distinct pcs.
    pub events: u64,
    pub branches: usize,
    /// Periodic readouts from the hardware and from the model.
    pub readouts: u64,
    pub model_readouts: u64,
    /// Readouts that differ word for word, plus readouts only one of them made.
    pub mismatches: u64,
    /// The thesis's arc error (weighted by execution count) and contention of the buffer on this
    /// stream, final partial sample included (the model's readouts; the hardware's equal them).
    pub arc_error: f64,
    pub contention: f64,
    #[serde(skip)]
    pub hardware: Vec<Vec<ReadoutWord>>,
    #[serde(skip)]
    pub model: Vec<Vec<ReadoutWord>>,
}

/// The phase classifier's results.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseResult {
    pub configuration: String,
    /// Control transfers (events) and the instructions their weights cover.
    pub events: u64,
    pub instructions: u64,
    /// Instructions an interval spans (the configuration's).
    pub interval: u64,
    /// Complete intervals classified by the hardware and by the model.
    pub intervals: u64,
    pub model_intervals: u64,
    /// Records that differ, plus records only one of them made.
    pub mismatches: u64,
    /// Distinct phase ids the hardware gave.
    pub phases: usize,
    /// Share of intervals after the first whose phase the previous record predicted, and the
    /// share the last-phase predictor (same phase again) gets.
    pub prediction_accuracy: f64,
    pub last_phase_accuracy: f64,
    /// The hardware's records, interval by interval.
    pub records: Vec<PhaseRecord>,
    #[serde(skip)]
    pub model: Vec<PhaseRecord>,
}

/// A whole run.
#[derive(Debug, Clone, Serialize)]
pub struct SocRun {
    pub program: String,
    pub cpu: Cpu,
    pub short: bool,
    pub simulator: String,
    /// The taps' policy, whether the blocks had a clock of their own, and the clock ratio,
    /// blocks : CPU.
    pub policy: Policy,
    #[serde(rename = "async")]
    pub asynchronous: bool,
    pub clock_ratio: String,
    /// Whether the program was stopped at the instruction limit instead of ending.
    pub stopped_at_limit: bool,
    pub configuration: String,
    pub instructions: u64,
    /// Clocks until the program ended; with the bus readout, until `main` returned (the
    /// start-up code then drains and prints the reports).
    pub cycles: u64,
    pub readout: Readout,
    /// With the bus readout: `main`'s clocks on the same system without the blocks, and
    /// `cycles / cycles_unprofiled`.
    pub cycles_unprofiled: Option<u64>,
    pub perturbation: Option<f64>,
    /// Events of the profiler's two modes.
    pub events: u64,
    /// Reports (complete intervals) of the profiler's two modes from the hardware.
    pub reports: u64,
    /// Every difference between hardware and model: profiler intervals of both modes, buffer
    /// readouts, phase records.
    pub mismatches: u64,
    /// Cycles the CPU was stalled for the blocks.
    pub stall_cycles: u64,
    /// Events the taps dropped, all four (value, edge, branch, phase), and each.
    pub dropped: u64,
    pub dropped_per_tap: [u64; 4],
    /// Taps whose events taken are not the model's events of the retire stream (with the drops
    /// left out under the drop policy), each with why; counted in `mismatches`.
    pub tap_errors: Vec<String>,
    pub simulation_seconds: f64,
    pub instructions_per_second: f64,
    /// The program's exit status (none when stopped at the limit before it wrote one).
    pub exit_code: Option<u32>,
    pub console: String,
    pub value: ModeResult,
    pub edge: ModeResult,
    pub buffer: BufferResult,
    pub phase: PhaseResult,
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

/// One profiler's result: its `hardware` reports against the model fed `events` (and flushed
/// after them when the program `flushed` the profiler, as the bus readout does).
pub(crate) fn mode_result(
    cfg: &ProfilerConfig,
    events: &[Tuple],
    hardware: Vec<IntervalReport>,
    flushed: bool,
    top: usize,
    name: impl Fn(u64, u64) -> String,
) -> Result<ModeResult, SocError> {
    // A comparison of nothing would read as a perfect score.
    if events.is_empty() {
        return Err(SocError::Input(
            "the tap saw no event in the instructions run, so there is nothing to compare: run longer (--max-instructions)".into(),
        ));
    }
    let mut m = MultiHash::new(cfg).map_err(SocError::Input)?;
    let mut model = m.run(events);
    if flushed {
        model.extend(m.flush());
    }
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
        interval_length: cfg.interval,
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

/// The hardware's readout words as readouts (a word with `last` closes one).
pub fn readouts_of(words: &[(u64, u64, u64, u64, bool)]) -> Vec<Vec<ReadoutWord>> {
    let mut out = Vec::new();
    let mut open = Vec::new();
    for &(index, tag, taken, not_taken, last) in words {
        open.push(ReadoutWord {
            index: index as usize,
            tag,
            taken,
            not_taken,
        });
        if last {
            out.push(std::mem::take(&mut open));
        }
    }
    out
}

/// Items that differ position by position, plus the difference in count.
fn differences<T: PartialEq>(hardware: &[T], model: &[T]) -> u64 {
    let differ = hardware.iter().zip(model).filter(|(h, m)| h != m).count();
    (differ + hardware.len().abs_diff(model.len())) as u64
}

fn buffer_result(
    cfg: &BufferConfig,
    branches: &[(u64, u64)],
    hardware: Vec<Vec<ReadoutWord>>,
) -> Result<BufferResult, SocError> {
    // The branch tap's events are (pc, taken).
    let outcomes: Vec<Tuple> = branches.to_vec();
    let stimuli: Vec<Stimulus> = outcomes
        .iter()
        .map(|&(pc, taken)| {
            Stimulus::Event(BranchEvent {
                pc,
                taken: taken == 1,
                index: 0,
            })
        })
        .collect();
    let model = ProfileBufferModel::run(cfg, &stimuli);
    let score = if outcomes.is_empty() {
        None
    } else {
        Some(evaluate(cfg, &outcomes).map_err(SocError::Failure)?)
    };
    Ok(BufferResult {
        configuration: cfg.summary(),
        events: outcomes.len() as u64,
        branches: score.as_ref().map_or(0, |e| e.branches),
        readouts: hardware.len() as u64,
        model_readouts: model.len() as u64,
        mismatches: differences(&hardware, &model),
        arc_error: score.as_ref().map_or(0.0, |e| e.arc_error),
        contention: score.as_ref().map_or(0.0, |e| e.contention),
        hardware,
        model,
    })
}

fn phase_result(
    cfg: &PhaseConfig,
    events: &[(u64, u64)],
    hardware: &[(u64, u64, u64, u64)],
) -> PhaseResult {
    let records: Vec<PhaseRecord> = hardware
        .iter()
        .map(|&(interval, phase, distance, predicted)| PhaseRecord {
            interval,
            phase: phase as u32,
            distance,
            predicted: predicted as u32,
        })
        .collect();
    let model = PhaseClassifier::run(cfg, events.iter().copied());
    let share = |hits: usize| hits as f64 / records.len().saturating_sub(1).max(1) as f64;
    let predicted = records
        .windows(2)
        .filter(|w| w[0].predicted == w[1].phase)
        .count();
    let repeated = records
        .windows(2)
        .filter(|w| w[0].phase == w[1].phase)
        .count();
    let mut ids: Vec<u32> = records.iter().map(|r| r.phase).collect();
    ids.sort_unstable();
    ids.dedup();
    PhaseResult {
        configuration: cfg.summary(),
        events: events.len() as u64,
        instructions: events.iter().map(|e| e.1).sum(),
        interval: cfg.interval,
        intervals: records.len() as u64,
        model_intervals: model.len() as u64,
        mismatches: differences(&records, &model),
        phases: ids.len(),
        prediction_accuracy: share(predicted),
        last_phase_accuracy: share(repeated),
        records,
        model,
    }
}

/// The Verilog of the four blocks and their taps, each top renamed after its design.
fn blocks_verilog(o: &RunOptions) -> Result<(Blocks, String), SocError> {
    if o.buffer.indexing == Indexing::Compiler {
        return Err(SocError::Input(
            "the profile buffer on the CPU needs address or set-associative indexing: compiler \
             indexing takes a branch index from the compiler, which this CPU does not provide"
                .into(),
        ));
    }
    let tap = |mode| TapConfig {
        asynchronous: o.asynchronous,
        ..TapConfig::new(mode, o.policy)
    };
    let (cfg, buffer, phase) = (o.cfg.clone(), o.buffer.clone(), o.phase.clone());
    let bus = o.readout == Readout::Bus;
    let depth = o.report_fifo;
    let v = hwprof_hdl::util::on_rtl_thread(move || -> Result<String, String> {
        use hwprof_hdl::export::rename_top;
        use hwprof_hdl::tap::export::{tap_module, wrapper_around};
        let name = hwprof_hdl::export::module_name;
        let mut v = hwprof_hdl::multihash::export::exported(&cfg, PROFILER)?;
        v.push_str(&wrapper_around(
            &cfg,
            &tap(TapMode::Value),
            VALUE,
            PROFILER,
        )?);
        v.push_str(&wrapper_around(&cfg, &tap(TapMode::Edge), EDGE, PROFILER)?);
        if bus {
            v.push_str(&tap_module(&tap(TapMode::Value), &name(VALUE_TAP))?);
            v.push_str(&tap_module(&tap(TapMode::Edge), &name(EDGE_TAP))?);
            v.push_str(&hwprof_hdl::readout::verilog(
                &cfg,
                system::SLAVE,
                PROFILER,
                depth,
            ));
        }
        v.push_str(&tap_module(&tap(TapMode::Branch), &name(BRANCH_TAP))?);
        v.push_str(&tap_module(&tap(TapMode::Phase), &name(PHASE_TAP))?);
        v.push_str(&rename_top(
            &hwprof_hdl::profile_buffer::verilog(&buffer),
            &name(BUFFER),
        ));
        v.push_str(&rename_top(
            &hwprof_hdl::phase::verilog(&phase)?,
            &name(PHASE),
        ));
        Ok(v)
    })
    .map_err(SocError::Failure)?
    .map_err(SocError::Input)?;
    let name = hwprof_hdl::export::module_name;
    let wrapper = hwprof_hdl::tap::export::wrapper_name;
    let blocks = Blocks {
        value_wrapper: wrapper(VALUE),
        edge_wrapper: wrapper(EDGE),
        value_tap: name(VALUE_TAP),
        edge_tap: name(EDGE_TAP),
        slave: hwprof_hdl::readout::wrapper_name(system::SLAVE),
        branch_tap: name(BRANCH_TAP),
        phase_tap: name(PHASE_TAP),
        buffer: name(BUFFER),
        buffer_tag_bits: o.buffer.rtl_tag_width(),
        buffer_counter_bits: o.buffer.counter_bits,
        phase: name(PHASE),
        phase_distance_bits: o.phase.distance_bits(),
    };
    Ok((blocks, v))
}

/// Checks each tap's events taken against the model's events of the retire records; returns
/// the events each block was fed, and why a tap failed.
fn tap_results(o: &RunOptions, sim: &SimOutput) -> ([Vec<(u64, u64)>; 4], Vec<String>) {
    let mut fed: [Vec<(u64, u64)>; 4] = Default::default();
    let mut errors = Vec::new();
    for (k, &mode) in TAPS.iter().enumerate() {
        let all = tap_events(mode, &sim.records);
        let taken = &sim.taken[k];
        fed[k] = taken.iter().map(|t| t.0).collect();
        let r = match o.policy {
            Policy::Stall if sim.dropped[k] != 0 => Err(format!(
                "{} events dropped under the stall policy",
                sim.dropped[k]
            )),
            Policy::Stall if fed[k] != all => Err(format!(
                "{} events taken, {} retired, first difference at event {:?}",
                fed[k].len(),
                all.len(),
                fed[k].iter().zip(&all).position(|(a, b)| a != b)
            )),
            _ => check_drops(&all, taken, sim.dropped[k], (1 << LOST_BITS) - 1).map(|_| ()),
        };
        if let Err(e) = r {
            errors.push(format!("{} tap: {e}", mode.name()));
        }
    }
    (fed, errors)
}

/// Builds, simulates, models, compares.
pub fn run(o: &RunOptions) -> Result<SocRun, SocError> {
    if o.cfg.a_bits < 32 || o.cfg.b_bits < 32 {
        return Err(SocError::Input(format!(
            "the profiler's keys are 32-bit program counters and values: a_bits and b_bits must be at least 32 (are {} and {})",
            o.cfg.a_bits, o.cfg.b_bits
        )));
    }
    if o.readout == Readout::Bus {
        hwprof_hdl::readout::check_slave(&o.cfg, o.report_fifo).map_err(SocError::Input)?;
    }
    if o.readout == Readout::Uart {
        return Err(SocError::Input(
            "--readout uart is the board systems' (hwprof soc board); this system's readouts are \
             stream and bus"
                .into(),
        ));
    }
    if o.readout == Readout::Bus && o.asynchronous {
        return Err(SocError::Input(
            "--readout bus puts the profilers on the CPU's bus, in the CPU's clock: it does not \
             combine with --async (use --readout stream)"
                .into(),
        ));
    }
    let (blocks, blocks_v) = blocks_verilog(o)?;
    let dir = SimDir::new("soc-build").map_err(|e| SocError::Failure(e.to_string()))?;
    let mut target = system_target(o.cpu);
    if o.readout == Readout::Bus {
        target.readout = Some(system::readout_build(o.cpu, &o.cfg, o.report_fifo));
    }
    let built = programs::build(&o.program, o.short, &dir.path, &target)?;
    let name = o.program.name();
    let symbols = programs::symbols(&built.elf)?;
    // The blocks' clocks per CPU clock scale the wait for the last reports.
    let slow = (o.ratio.1 as u64).div_ceil(o.ratio.0 as u64).max(1);
    let params = SystemParams {
        cpu: o.cpu,
        readout: o.readout,
        profiled: true,
        asynchronous: o.asynchronous,
        ratio: o.ratio,
        drain_cycles: 4 * o.cfg.entries as u64
            + 8 * o.cfg.accumulator.entries as u64
            + 2 * o.buffer.entries as u64
            + classification_clocks(&o.phase)
            + 64 * slow
            + 1000,
        max_cycles: o
            .max_instructions
            .saturating_mul(o.cpu.max_cycles_per_instruction())
            .saturating_mul(slow)
            .max(1_000_000),
        max_instructions: o.max_instructions,
    };
    let sim: SimOutput = system::simulate(o.simulator, &blocks, &blocks_v, &built.words, params)?;
    if sim.exit_code.is_none() && !sim.stopped_at_limit {
        return Err(SocError::Failure(format!(
            "{name} trapped without writing its exit code (an illegal instruction or misaligned access?) after {} instructions; console:\n{}",
            sim.instructions, sim.console
        )));
    }
    if let Some(code) = sim
        .exit_code
        .filter(|&c| c != 0 && o.program.status_is_checked())
    {
        return Err(SocError::Failure(format!(
            "{name} exited with code {code}; console:\n{}",
            sim.console
        )));
    }
    let (fed, tap_errors) = tap_results(o, &sim);
    let [mut value_events, mut edge_events, branch_events, phase_events] = fed;
    let (mut cycles, mut cycles_unprofiled) = (sim.cycles, None);
    if o.readout == Readout::Bus {
        // The slaves discard events while disabled (after main): the profilers' own input.
        [value_events, edge_events] = sim.fed.clone();
        if sim.stopped_at_limit {
            return Err(SocError::Input(format!(
                "{name} was stopped at --max-instructions {} before returning from main: with \
                 --readout bus the program prints its reports after main, so it must end (raise \
                 the limit, or use --readout stream)",
                o.max_instructions
            )));
        }
        if sim.main_end == 0 {
            return Err(SocError::Failure(format!(
                "{name} ended without returning from main; console:\n{}",
                sim.console
            )));
        }
        {
            cycles = sim.main_end;
            let bare = system::simulate(
                o.simulator,
                &blocks,
                &blocks_v,
                &built.words,
                SystemParams {
                    profiled: false,
                    ..params
                },
            )?;
            if bare.main_end == 0 {
                return Err(SocError::Failure(format!(
                    "{name} did not return from main on the system without the profilers; console:\n{}",
                    bare.console
                )));
            }
            cycles_unprofiled = Some(bare.main_end);
        }
    }
    let mut value = mode_result(
        &o.cfg,
        &value_events,
        reports_of(&sim.words, 'V'),
        o.readout == Readout::Bus,
        o.top,
        |a, _| symbols.name(a),
    )?;
    let mut edge = mode_result(
        &o.cfg,
        &edge_events,
        reports_of(&sim.words, 'E'),
        o.readout == Readout::Bus,
        o.top,
        |a, b| format!("{} -> {}", symbols.name(a), symbols.name(b)),
    )?;
    // Source lines of the hottest loads and transfers: functions are often inlined into main.
    for t in value.top.iter_mut().chain(edge.top.iter_mut()) {
        t.line = symbols.short_line(t.a);
    }
    let buffer = buffer_result(&o.buffer, &branch_events, readouts_of(&sim.buffer_words))?;
    let phase = phase_result(&o.phase, &phase_events, &sim.phase_records);
    if let Some(out) = &o.out {
        keep(
            out,
            &built.elf,
            &o.cfg,
            [(&value, &value_events[..]), (&edge, &edge_events[..])],
        )?;
    }
    Ok(SocRun {
        program: name,
        cpu: o.cpu,
        short: o.short,
        simulator: format!("{:?}", o.simulator).to_lowercase(),
        policy: o.policy,
        asynchronous: o.asynchronous,
        clock_ratio: format!("{}:{}", o.ratio.0, o.ratio.1),
        stopped_at_limit: sim.stopped_at_limit,
        configuration: o.cfg.summary(),
        instructions: sim.instructions,
        cycles,
        readout: o.readout,
        cycles_unprofiled,
        perturbation: cycles_unprofiled.map(|u| cycles as f64 / u as f64),
        events: value.events + edge.events,
        reports: value.reports + edge.reports,
        mismatches: value.mismatches
            + edge.mismatches
            + buffer.mismatches
            + phase.mismatches
            + tap_errors.len() as u64,
        stall_cycles: sim.stall_cycles,
        dropped: sim.dropped.iter().sum(),
        dropped_per_tap: sim.dropped,
        tap_errors,
        simulation_seconds: sim.seconds,
        instructions_per_second: sim.instructions as f64 / sim.seconds.max(1e-9),
        exit_code: sim.exit_code,
        console: sim.console,
        value,
        edge,
        buffer,
        phase,
    })
}

/// Keeps a run's program and the hardware's reports in `out` (see [`RunOptions::out`]).
fn keep(
    out: &std::path::Path,
    elf: &std::path::Path,
    cfg: &ProfilerConfig,
    modes: [(&ModeResult, &[Tuple]); 2],
) -> Result<(), SocError> {
    use crate::eval::flat_profile::{exact_counts, report_lines, to_json_lines, TupleKind};
    let fail = |p: &std::path::Path, e: std::io::Error| {
        SocError::Input(format!("cannot write {}: {e}", p.display()))
    };
    std::fs::create_dir_all(out).map_err(|e| fail(out, e))?;
    let kept = out.join("program.elf");
    std::fs::copy(elf, &kept).map_err(|e| fail(&kept, e))?;
    let mut lines = Vec::new();
    for ((m, events), kind) in modes.into_iter().zip([TupleKind::Value, TupleKind::Edge]) {
        let (am, bm) = (cfg.a_mask(), cfg.b_mask());
        let masked: Vec<Tuple> = events.iter().map(|&(a, b)| (a & am, b & bm)).collect();
        let exact = exact_counts(&masked, cfg.interval);
        let count = |a: u64, b: u64| exact.get(&(a, b)).copied().unwrap_or(0);
        lines.extend(report_lines(kind, cfg.interval, &m.hardware, Some(&count)));
    }
    let reports = out.join("reports.jsonl");
    std::fs::write(&reports, to_json_lines(&lines)).map_err(|e| fail(&reports, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwprof_hdl::ConfigFile;

    fn cfg() -> ProfilerConfig {
        ProfilerConfig::from_toml_str(DEFAULT_PROFILER.1, DEFAULT_PROFILER.0).unwrap()
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

    /// What every short run must show: reports from every block, each equal to its model's.
    fn assert_every_block_matches(r: &SocRun) {
        assert_eq!(r.mismatches, 0, "{:?}", r.tap_errors);
        assert!(
            r.value.reports >= 2 && r.edge.reports >= 2,
            "{} / {}",
            r.value.reports,
            r.edge.reports
        );
        assert_eq!(r.value.model_reports, r.value.reports);
        assert_eq!(r.edge.model_reports, r.edge.reports);
        assert!(
            r.value.hardware.iter().any(|h| !h.entries.is_empty()),
            "no hot value tuple reported"
        );
        assert!(r.buffer.readouts >= 2, "{} readouts", r.buffer.readouts);
        assert_eq!(r.buffer.readouts, r.buffer.model_readouts);
        assert!(r.phase.intervals >= 2, "{} intervals", r.phase.intervals);
        assert_eq!(r.phase.intervals, r.phase.model_intervals);
        // The weights cover the instructions up to the last transfer.
        assert!(
            r.phase.instructions <= r.instructions
                && r.phase.instructions * 10 >= r.instructions * 9,
            "{} of {}",
            r.phase.instructions,
            r.instructions
        );
    }

    /// A short program on the whole system under Verilator: every block's output equals its
    /// model's on the dumped retire stream, and a corrupted hardware report is caught.
    #[test]
    fn a_short_program_matches_the_models_and_a_corrupted_output_is_detected() {
        if programs::cross_available().is_err() || programs::picorv32_dir().is_err() {
            panic!(
                "this test needs the cross compiler and PicoRV32: {:?} / {:?}",
                programs::cross_available().err(),
                programs::picorv32_dir().err()
            );
        }
        let mut buffer = BufferConfig::from_toml_str(DEFAULT_BUFFER.1, DEFAULT_BUFFER.0).unwrap();
        buffer.sample_interval = 200;
        let mut phase = PhaseConfig::from_toml_str(DEFAULT_PHASE.1, DEFAULT_PHASE.0).unwrap();
        phase.interval = 500;
        let o = RunOptions {
            program: ProgramSource::Bundled(programs::Program::parse("crc").unwrap()),
            cfg: cfg(),
            buffer,
            phase,
            simulator: Simulator::Verilator,
            short: true,
            top: 5,
            cpu: Cpu::PicoRv32,
            policy: Policy::Stall,
            asynchronous: false,
            ratio: (1, 1),
            max_instructions: system::DEFAULT_MAX_INSTRUCTIONS,
            readout: Readout::Stream,
            report_fifo: DEFAULT_REPORT_FIFO,
            out: None,
        };
        let r = run(&o).unwrap();
        assert!(r.console.contains("crc checksum"), "{}", r.console);
        assert!(r.instructions > 2000, "{}", r.instructions);
        assert_every_block_matches(&r);
        let mut bad = r.buffer.hardware.clone();
        bad[1][3].taken ^= 1;
        assert_eq!(differences(&bad, &r.buffer.model), 1);
        let mut bad = r.phase.records.clone();
        bad[0].distance += 1;
        assert_eq!(differences(&bad, &r.phase.model), 1);
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

    #[test]
    fn serv_runs_a_short_program_with_the_models_matching() {
        if programs::cross_available().is_err() || Cpu::Serv.sources().is_err() {
            panic!(
                "this test needs the cross compiler and SERV: {:?} / {:?}",
                programs::cross_available().err(),
                Cpu::Serv.sources().err()
            );
        }
        let mut buffer = BufferConfig::from_toml_str(DEFAULT_BUFFER.1, DEFAULT_BUFFER.0).unwrap();
        buffer.sample_interval = 200;
        let mut phase = PhaseConfig::from_toml_str(DEFAULT_PHASE.1, DEFAULT_PHASE.0).unwrap();
        phase.interval = 5000;
        let o = RunOptions {
            cpu: Cpu::Serv,
            program: ProgramSource::Bundled(programs::Program::parse("crc").unwrap()),
            cfg: cfg(),
            buffer,
            phase,
            simulator: Simulator::Verilator,
            short: true,
            top: 5,
            policy: Policy::Stall,
            asynchronous: false,
            ratio: (1, 1),
            max_instructions: system::DEFAULT_MAX_INSTRUCTIONS,
            readout: Readout::Stream,
            report_fifo: DEFAULT_REPORT_FIFO,
            out: None,
        };
        // crc exits non-zero when its checksum is wrong: SERV ran the RV32I build correctly.
        let r = run(&o).unwrap();
        assert!(r.console.contains("crc checksum"), "{}", r.console);
        assert_eq!(r.exit_code, Some(0));
        assert!(r.instructions > 2000, "{}", r.instructions);
        // Bit-serial: tens of clocks an instruction, or this was not SERV.
        assert!(
            r.cycles > 20 * r.instructions,
            "{} cycles for {} instructions",
            r.cycles,
            r.instructions
        );
        assert_every_block_matches(&r);
        // multest's M instructions would be illegal on SERV: refused before anything runs.
        let multest = RunOptions {
            program: ProgramSource::Bundled(programs::Program::parse("multest").unwrap()),
            ..o
        };
        assert!(matches!(run(&multest), Err(SocError::Input(_))));
    }

    /// The bus readout on PicoRV32: the program's printout of what it read over the bus equals
    /// the models' reports. A FIFO of one report makes the slaves interrupt the program (cycles
    /// spent); one deep enough for the run leaves main's cycles within 1 % of the system without
    /// the profilers.
    #[test]
    fn the_program_reads_its_own_profile_over_the_bus() {
        let o = RunOptions {
            program: ProgramSource::Bundled(programs::Program::parse("crc").unwrap()),
            cfg: cfg(),
            buffer: BufferConfig::from_toml_str(DEFAULT_BUFFER.1, DEFAULT_BUFFER.0).unwrap(),
            phase: PhaseConfig::from_toml_str(DEFAULT_PHASE.1, DEFAULT_PHASE.0).unwrap(),
            simulator: Simulator::Verilator,
            short: true,
            top: 5,
            cpu: Cpu::PicoRv32,
            policy: Policy::Stall,
            asynchronous: false,
            ratio: (1, 1),
            max_instructions: system::DEFAULT_MAX_INSTRUCTIONS,
            readout: Readout::Bus,
            report_fifo: hwprof_hdl::readout::fifo_depth(&cfg()),
            out: None,
        };
        let small = run(&o).unwrap();
        assert!(small.console.contains("crc checksum"), "{}", small.console);
        assert!(!small.console.contains(system::TAG), "{}", small.console);
        assert!(small.value.reports > 0 && small.edge.reports > 0);
        assert_every_block_matches(&small);
        let interrupted = small.perturbation.unwrap();
        assert!(interrupted > 1.01, "{interrupted}");
        let deep = run(&RunOptions {
            report_fifo: DEFAULT_REPORT_FIFO,
            ..o.clone()
        })
        .unwrap();
        assert_every_block_matches(&deep);
        let p = deep.perturbation.unwrap();
        assert!((1.0..=1.01).contains(&p), "{p}");
        assert_eq!(deep.cycles_unprofiled, small.cycles_unprofiled);
        // Not with --async, nor an ELF linked elsewhere.
        let async_bus = RunOptions {
            asynchronous: true,
            ..o.clone()
        };
        assert!(matches!(run(&async_bus), Err(SocError::Input(_))));
    }
}
