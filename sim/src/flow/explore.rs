//! Design-space exploration: every configuration of a sweep grid ([`crate::eval::sweep`]) scored on
//! traces with the model and synthesized for every target with the flow ([`crate::flow::run`]),
//! one task per (configuration, target), run by an executor ([`crate::exec`]: this machine or one
//! Slurm job array), then merged ([`collect`]) into one row per task with a Pareto flag.
//!
//! A task is the command `hwprof explore task DIR INDEX`; everything it needs is in DIR, so any
//! machine that sees DIR (a shared filesystem) can run it. Layout of DIR:
//!
//! | path | what |
//! |---|---|
//! | `plan.json` | the grid's text, the traces (absolute paths), targets, nextpnr seeds and clocks; a re-run must give the same plan |
//! | `points/<p>.json` | the accuracy of configuration p on the traces, shared by its targets' tasks |
//! | `tasks/<i>/row.json` | task i's row, written by renaming a finished file: present means complete |
//! | `tasks/<i>/task.log` | everything task i printed (the flow's steps, its error) |
//! | `tasks/<i>/synth/` | the flow's files: Verilog, Yosys and nextpnr logs and reports |
//! | `explore.json`, `explore.csv`, `pareto-<target>.md` | the merge |
//!
//! Task i is configuration i / targets, target i % targets. Seeds run inside a task, one after
//! another, as in `hwprof synth`. A row holds only what the task computed from the plan (and the
//! tool versions): the same task gives the same row on any machine with the same tools, except
//! the fields `wall_s`, `host`, `log`, `dir`.

use super::device::Target;
use super::throughput::{events_per_clock, profiler_cycles};
use super::tools::Preference;
use super::{Design, FlowOptions, SynthResult};
use crate::eval::sweep::shard::{load_traces, PlanTrace};
use crate::eval::sweep::{expand_grid, run, Job, RunOptions, Subject};
use crate::eval::trace::LackeyKind;
use crate::exec::{host, io, is_running, task_dir, why, write_atomic, RunningMark, LOG_FILE};
use hwprof_hdl::config::ProfilerConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

pub const PLAN_FILE: &str = "plan.json";
pub const ROW_FILE: &str = "row.json";

/// What an exploration runs: written once into DIR, read by every task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub grid: String,
    pub grid_source: String,
    pub traces: Vec<PlanTrace>,
    pub targets: Vec<String>,
    /// nextpnr seeds 1..=seeds of every task.
    pub seeds: u32,
    /// The clock constraint of each target, MHz.
    pub freq_mhz: BTreeMap<String, f64>,
    /// Each configuration's summary, for messages.
    pub points: Vec<String>,
}

impl Plan {
    /// A plan, validated: the grid expands to profiler configurations only (peers have no
    /// hardware), the traces exist, there is a target and a seed. Errors are the input's.
    pub fn new(
        grid: &str,
        grid_source: &str,
        traces: &[(PathBuf, Option<LackeyKind>)],
        targets: &[Target],
        seeds: u32,
        freq_mhz: Option<f64>,
    ) -> Result<Plan, String> {
        if targets.is_empty() {
            return Err("--target: give at least one target".into());
        }
        if seeds == 0 {
            return Err("--seeds must be at least 1".into());
        }
        if let Some(f) = freq_mhz.filter(|f| !(f.is_finite() && *f > 0.0)) {
            return Err(format!("--freq must be a positive number of MHz, got {f}"));
        }
        if traces.is_empty() {
            return Err("--trace: give at least one trace".into());
        }
        let configs = configurations(grid, grid_source)?;
        let plan_traces = PlanTrace::of(traces)?;
        let mut names = Vec::new();
        for t in targets {
            if names.contains(&t.name().to_string()) {
                return Err(format!("--target: {} given twice", t.name()));
            }
            names.push(t.name().to_string());
        }
        Ok(Plan {
            grid: grid.to_string(),
            grid_source: grid_source.to_string(),
            traces: plan_traces,
            freq_mhz: targets
                .iter()
                .map(|t| (t.name().to_string(), freq_mhz.unwrap_or(t.goal_mhz())))
                .collect(),
            targets: names,
            seeds,
            points: configs.iter().map(|c| c.summary()).collect(),
        })
    }

    pub fn tasks(&self) -> usize {
        self.points.len() * self.targets.len()
    }

    /// Task `i`'s configuration index and target.
    pub fn task(&self, i: usize) -> Result<(usize, Target), String> {
        if i >= self.tasks() {
            return Err(format!(
                "task {i}: the exploration has tasks 0..{}",
                self.tasks()
            ));
        }
        let t = &self.targets[i % self.targets.len()];
        Ok((i / self.targets.len(), Target::parse(t)?))
    }

    pub fn configurations(&self) -> Result<Vec<ProfilerConfig>, String> {
        configurations(&self.grid, &self.grid_source)
    }

    /// Writes the plan into `dir` with a directory per task; a directory holding another plan is
    /// refused (its rows would be mixed with this one's).
    pub fn install(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(PLAN_FILE);
        if path.exists() {
            let old = Plan::read(dir)?;
            if old != *self {
                return Err(format!(
                    "{} holds another exploration (its plan.json differs: grid, traces, targets, seeds \
                     or clocks); give another --out, or remove it",
                    dir.display()
                ));
            }
        } else {
            let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
            write_atomic(&path, &text)?;
        }
        for i in 0..self.tasks() {
            let d = task_dir(dir, i);
            std::fs::create_dir_all(&d).map_err(|e| io(&d, e))?;
        }
        let points = dir.join("points");
        std::fs::create_dir_all(&points).map_err(|e| io(&points, e))
    }

    pub fn read(dir: &Path) -> Result<Plan, String> {
        let path = dir.join(PLAN_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            io(
                &path,
                format!("{e} (not an exploration directory: `hwprof explore --out` makes one)"),
            )
        })?;
        serde_json::from_str(&text).map_err(|e| io(&path, e))
    }
}

/// The grid's profiler configurations.
fn configurations(grid: &str, source: &str) -> Result<Vec<ProfilerConfig>, String> {
    expand_grid(grid, source)?
        .into_iter()
        .map(|s| match s {
            Subject::Profiler(c) => Ok(c),
            _ => Err(format!(
                "grid {source}: field `peers`: peers have no hardware to explore; remove it"
            )),
        })
        .collect()
}

fn point_file(dir: &Path, p: usize) -> PathBuf {
    dir.join("points").join(format!("{p}.json"))
}

/// A configuration's accuracy on the traces of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointAccuracy {
    /// The largest net error over the traces (a configuration is chosen by its worst trace).
    pub net_error: f64,
    pub worst_trace: String,
    pub net_error_mean: f64,
    pub errors: BTreeMap<String, f64>,
    /// Of the worst trace.
    pub precision: f64,
    pub recall: f64,
    pub memory_bits: u64,
}

/// Computes the accuracy of configurations `points` not yet in `dir/points/` on the plan's traces
/// with the sweep's runner (`threads` threads), and writes each.
pub fn accuracies(dir: &Path, plan: &Plan, points: &[usize], threads: usize) -> Result<(), String> {
    let todo: Vec<usize> = points
        .iter()
        .copied()
        .filter(|&p| !point_file(dir, p).is_file())
        .collect();
    if todo.is_empty() {
        return Ok(());
    }
    let configs = plan.configurations()?;
    let traces = load_traces(&plan.traces)?;
    let jobs: Vec<Job> = todo
        .iter()
        .flat_map(|&p| (0..traces.len()).map(move |trace| (p, trace)))
        .map(|(p, trace)| Job {
            trace,
            subject: Subject::Profiler(configs[p].clone()),
        })
        .collect();
    let opts = RunOptions {
        threads: threads.max(1),
        stop: Arc::new(AtomicBool::new(false)),
        python: None,
    };
    let mut rows = Vec::new();
    run(&traces, &jobs, &opts, |r| rows.push(r.clone()), |_, _| {})?;
    for (k, &p) in todo.iter().enumerate() {
        let mine: Vec<_> = rows.iter().filter(|r| r.job / traces.len() == k).collect();
        let worst = mine
            .iter()
            .max_by(|a, b| {
                a.net_error
                    .total_cmp(&b.net_error)
                    .then(b.trace.cmp(&a.trace))
            })
            .ok_or_else(|| format!("configuration {p}: no accuracy row"))?;
        let acc = PointAccuracy {
            net_error: worst.net_error,
            worst_trace: worst.trace.clone(),
            net_error_mean: mine.iter().map(|r| r.net_error).sum::<f64>() / mine.len() as f64,
            errors: mine
                .iter()
                .map(|r| (r.trace.clone(), r.net_error))
                .collect(),
            precision: worst.precision,
            recall: worst.recall,
            memory_bits: worst.memory_bits,
        };
        let text = serde_json::to_string_pretty(&acc).map_err(|e| e.to_string())?;
        write_atomic(&point_file(dir, p), &text)?;
    }
    Ok(())
}

fn read_point(dir: &Path, p: usize) -> Result<PointAccuracy, String> {
    let path = point_file(dir, p);
    let text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
    serde_json::from_str(&text).map_err(|e| io(&path, e))
}

/// One (configuration, target): the model's accuracy and the hardware's area and speed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExploreRow {
    pub index: usize,
    pub point: usize,
    pub target: String,
    pub device: String,
    pub config: String,
    pub interval: u64,
    pub threshold: u64,
    pub tables: usize,
    pub entries: usize,
    pub counter_bits: u32,
    pub hash: String,
    /// The hash constants' seed.
    pub seed: u64,
    pub a_bits: u32,
    pub b_bits: u32,
    pub accumulator: usize,
    /// Ways of a set-associative accumulator; 0 for a fully associative one.
    pub ways: usize,
    /// The hardware options on for this target (after its `[target.<name>]` section).
    pub hardware: Vec<String>,
    pub memory_bits: u64,
    pub net_error: f64,
    pub worst_trace: String,
    pub net_error_mean: f64,
    pub errors: BTreeMap<String, f64>,
    pub precision: f64,
    pub recall: f64,
    pub fits: bool,
    pub not_fit_reason: Option<String>,
    pub cells: u64,
    pub luts: u64,
    pub ffs: u64,
    pub carry: u64,
    pub brams: u64,
    pub dsps: u64,
    pub freq_mhz: f64,
    /// nextpnr seeds 1..=seeds, run inside the task.
    pub seeds: u32,
    pub fmax_mhz: Option<f64>,
    pub fmax_median_mhz: Option<f64>,
    pub fmax_per_seed: Vec<f64>,
    pub events_per_clock: Option<f64>,
    pub events_per_s: Option<f64>,
    /// Each tool and its version.
    pub tools: BTreeMap<String, String>,
    /// On the Pareto front of its target (set by [`collect`]).
    pub pareto: bool,
    /// Wall time of the task, seconds (machine-dependent, like the next three).
    pub wall_s: f64,
    pub host: String,
    pub log: PathBuf,
    pub dir: PathBuf,
}

fn hardware_options(c: &ProfilerConfig) -> Vec<String> {
    [
        ("write_stage", c.write_stage),
        ("counter_output_register", c.counter_output_register),
        ("refused_slot", c.refused_slot),
        ("hash_block_ram", c.hash_block_ram),
        ("hash_stage", c.hash_stage),
        ("flag_rows", c.flag_rows),
        ("narrow_tag_compare", c.narrow_tag_compare),
    ]
    .into_iter()
    .filter(|o| o.1)
    .map(|o| o.0.to_string())
    .collect()
}

impl ExploreRow {
    fn new(
        index: usize,
        point: usize,
        cfg: &ProfilerConfig,
        acc: PointAccuracy,
        r: &SynthResult,
        seeds: u32,
        dir: &Path,
    ) -> ExploreRow {
        let a = &cfg.accumulator;
        ExploreRow {
            index,
            point,
            target: r.target.name().to_string(),
            device: r.device.to_string(),
            config: cfg.summary(),
            interval: cfg.interval,
            threshold: cfg.threshold,
            tables: cfg.tables,
            entries: cfg.entries,
            counter_bits: cfg.counter_bits,
            hash: format!("{:?}", cfg.hash).to_lowercase(),
            seed: cfg.seed,
            a_bits: cfg.a_bits,
            b_bits: cfg.b_bits,
            accumulator: a.entries,
            ways: match a.organisation {
                hwprof_hdl::Organisation::SetAssociative => a.ways,
                hwprof_hdl::Organisation::FullyAssociative => 0,
            },
            hardware: hardware_options(cfg),
            memory_bits: acc.memory_bits,
            net_error: acc.net_error,
            worst_trace: acc.worst_trace,
            net_error_mean: acc.net_error_mean,
            errors: acc.errors,
            precision: acc.precision,
            recall: acc.recall,
            fits: r.fits,
            not_fit_reason: r.not_fit_reason.clone(),
            cells: r.cells,
            luts: r.luts,
            ffs: r.ffs,
            carry: r.carry,
            brams: r.brams,
            dsps: r.dsps,
            freq_mhz: r.freq_mhz,
            seeds,
            fmax_mhz: r.fmax_mhz,
            fmax_median_mhz: r.fmax_median_mhz,
            fmax_per_seed: r.fmax_per_seed.clone(),
            events_per_clock: r.events_per_clock,
            events_per_s: r.events_per_s,
            tools: r.tools.iter().cloned().collect(),
            pareto: false,
            wall_s: 0.0,
            host: host(),
            log: dir.join(LOG_FILE),
            dir: dir.to_path_buf(),
        }
    }
}

/// Runs task `index` of the exploration in `dir` (nothing if its row is there) and writes its
/// row. `progress` gets the flow's steps.
pub fn run_task(
    dir: &Path,
    index: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<ExploreRow, String> {
    let start = Instant::now();
    let plan = Plan::read(dir)?;
    let (point, target) = plan.task(index)?;
    let tdir = task_dir(dir, index);
    if let Ok(row) = read_row(&tdir) {
        progress("already complete");
        return Ok(row);
    }
    let _running = RunningMark::new(dir, index)?;
    progress(&format!("accuracy of configuration {point}"));
    accuracies(dir, &plan, &[point], 1)?;
    let acc = read_point(dir, point)?;
    let cfg = plan.configurations()?[point].for_target(target.name());
    progress(&format!("{} on {}", cfg.summary(), target.name()));
    let verilog = {
        let cfg = cfg.clone();
        hwprof_hdl::util::on_rtl_thread(move || hwprof_hdl::multihash::verilog(&cfg))??
    };
    let cycles = profiler_cycles(cfg.interval, cfg.entries as u64);
    progress(&format!("icarus: events per clock over {cycles} cycles"));
    let settings = hwprof_hdl::multihash::top::fixed_settings_ports(&cfg, "unused_flush_pending");
    let epc = events_per_clock(&verilog, "top", &settings, cycles)?;
    let design = Design {
        name: format!("point{point}"),
        verilog,
        top: "top".into(),
        events_per_clock: Some(epc),
    };
    let opts = FlowOptions {
        target,
        freq_mhz: plan.freq_mhz[target.name()],
        seeds: plan.seeds,
        out_dir: tdir.join("synth"),
        constraints: None,
        bitstream: false,
        tools: Preference::from_env()?,
        clock_targets: Vec::new(),
        floorplan: None,
    };
    let result = super::run(&design, &opts, progress).map_err(|e| e.to_string())?;
    let mut row = ExploreRow::new(index, point, &cfg, acc, &result, plan.seeds, &tdir);
    row.wall_s = start.elapsed().as_secs_f64();
    let text = serde_json::to_string_pretty(&row).map_err(|e| e.to_string())?;
    write_atomic(&tdir.join(ROW_FILE), &text)?;
    Ok(row)
}

fn read_row(tdir: &Path) -> Result<ExploreRow, String> {
    let path = tdir.join(ROW_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
    serde_json::from_str(&text).map_err(|e| io(&path, e))
}

/// The tasks of `plan` in `dir` without a row.
pub fn incomplete(dir: &Path, plan: &Plan) -> Vec<usize> {
    (0..plan.tasks())
        .filter(|&i| read_row(&task_dir(dir, i)).is_err())
        .collect()
}

/// A task that ran and left no row.
#[derive(Debug, Clone, Serialize)]
pub struct FailedTask {
    pub index: usize,
    pub target: String,
    pub config: String,
    pub log: PathBuf,
    /// The log's `error:` line, or its last line.
    pub error: String,
}

/// The merge of an exploration directory.
#[derive(Debug, Clone, Serialize)]
pub struct Collected {
    pub tasks: usize,
    pub rows: Vec<ExploreRow>,
    pub failed: Vec<FailedTask>,
    /// Tasks that never started (no log).
    pub pending: Vec<usize>,
    /// Tasks still at work ([`crate::exec::is_running`]).
    pub running: Vec<usize>,
}

/// Merges the rows in `dir`, marks each target's Pareto front, and lists the tasks without a
/// row: still running, failed (they left a log) or pending. A failed task leaves the other rows
/// as they are.
pub fn collect(dir: &Path) -> Result<Collected, String> {
    let plan = Plan::read(dir)?;
    let mut out = Collected {
        tasks: plan.tasks(),
        rows: vec![],
        failed: vec![],
        pending: vec![],
        running: vec![],
    };
    for i in 0..plan.tasks() {
        let tdir = task_dir(dir, i);
        match read_row(&tdir) {
            Ok(r) => out.rows.push(r),
            Err(_) if is_running(dir, i) => out.running.push(i),
            Err(e) => {
                let log = tdir.join(LOG_FILE);
                let (point, target) = plan.task(i)?;
                if log.is_file() || tdir.join(ROW_FILE).is_file() {
                    out.failed.push(FailedTask {
                        index: i,
                        target: target.name().to_string(),
                        config: plan.points[point].clone(),
                        error: if tdir.join(ROW_FILE).is_file() {
                            e
                        } else {
                            why(&log)
                        },
                        log,
                    });
                } else {
                    out.pending.push(i);
                }
            }
        }
    }
    mark_pareto(&mut out.rows);
    Ok(out)
}

/// Whether `a` dominates `b`: no worse in net error, logic cells and median Fmax, better in one.
/// A row that was not placed and routed has no Fmax and counts as 0 MHz.
fn dominates(a: &ExploreRow, b: &ExploreRow) -> bool {
    let (fa, fb) = (
        a.fmax_median_mhz.unwrap_or(0.0),
        b.fmax_median_mhz.unwrap_or(0.0),
    );
    a.net_error <= b.net_error
        && a.cells <= b.cells
        && fa >= fb
        && (a.net_error < b.net_error || a.cells < b.cells || fa > fb)
}

/// Sets `pareto` on the rows no other row of the same target dominates (error, logic cells,
/// median Fmax). Rows that do not fit stay in the comparison, at 0 MHz: such a row is on the
/// front only where no fitting one is as accurate or as small, which shows what a larger part
/// would buy (its `fits` says it is not an option on this one).
pub fn mark_pareto(rows: &mut [ExploreRow]) {
    let flags: Vec<bool> = rows
        .iter()
        .map(|r| !rows.iter().any(|o| o.target == r.target && dominates(o, r)))
        .collect();
    for (r, f) in rows.iter_mut().zip(flags) {
        r.pareto = f;
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// The Pareto front of `target` as a Markdown table, by ascending error.
pub fn pareto_markdown(rows: &[ExploreRow], target: &str) -> String {
    let mut front: Vec<&ExploreRow> = rows
        .iter()
        .filter(|r| r.pareto && r.target == target)
        .collect();
    front.sort_by(|a, b| {
        a.net_error
            .total_cmp(&b.net_error)
            .then(a.cells.cmp(&b.cells))
            .then(a.index.cmp(&b.index))
    });
    let fitting = rows.iter().filter(|r| r.target == target && r.fits).count();
    let all = rows.iter().filter(|r| r.target == target).count();
    let mut s = format!(
        "Pareto front on {target} (net error, logic cells, median Fmax): {} of {all} \
         configurations ({fitting} fit)\n\n\
         | configuration | keys a/b bits | fits | error (worst trace) % | cells | FFs | BRAMs | Fmax median MHz | events/clock | Mevents/s |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
        front.len()
    );
    for r in front {
        s += &format!(
            "| {} | {}/{} | {} | {:.3} | {} | {} | {} | {} | {} | {} |\n",
            r.config,
            r.a_bits,
            r.b_bits,
            if r.fits { "yes" } else { "no" },
            100.0 * r.net_error,
            r.cells,
            r.ffs,
            r.brams,
            opt(r.fmax_median_mhz, 1),
            opt(r.events_per_clock, 3),
            opt(r.events_per_s.map(|e| e / 1e6), 1)
        );
    }
    s
}

/// Writes `explore.json`, `explore.csv` and `pareto-<target>.md` into `dir`; returns their paths.
pub fn write_merge(dir: &Path, c: &Collected, targets: &[String]) -> Result<Vec<PathBuf>, String> {
    let json = dir.join("explore.json");
    write_atomic(
        &json,
        &serde_json::to_string_pretty(c).map_err(|e| e.to_string())?,
    )?;
    let csv_path = dir.join("explore.csv");
    let mut w = csv::Writer::from_path(&csv_path).map_err(|e| io(&csv_path, e))?;
    let header = [
        "index",
        "target",
        "config",
        "hardware",
        "net_error",
        "net_error_mean",
        "memory_bits",
        "fits",
        "cells",
        "ffs",
        "brams",
        "fmax_mhz",
        "fmax_median_mhz",
        "events_per_clock",
        "events_per_s",
        "pareto",
        "seeds",
        "tools",
        "wall_s",
    ];
    w.write_record(header).map_err(|e| io(&csv_path, e))?;
    let o = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
    for r in &c.rows {
        let tools: Vec<String> = r.tools.iter().map(|(k, v)| format!("{k} {v}")).collect();
        w.write_record([
            r.index.to_string(),
            r.target.clone(),
            r.config.clone(),
            r.hardware.join(" "),
            r.net_error.to_string(),
            r.net_error_mean.to_string(),
            r.memory_bits.to_string(),
            r.fits.to_string(),
            r.cells.to_string(),
            r.ffs.to_string(),
            r.brams.to_string(),
            o(r.fmax_mhz),
            o(r.fmax_median_mhz),
            o(r.events_per_clock),
            o(r.events_per_s),
            r.pareto.to_string(),
            r.seeds.to_string(),
            tools.join("; "),
            r.wall_s.to_string(),
        ])
        .map_err(|e| io(&csv_path, e))?;
    }
    w.flush().map_err(|e| io(&csv_path, e))?;
    let mut files = vec![json, csv_path];
    for t in targets {
        let md = dir.join(format!("pareto-{t}.md"));
        write_atomic(&md, &pareto_markdown(&c.rows, t))?;
        files.push(md);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(target: &str, error: f64, cells: u64, fmax: Option<f64>) -> ExploreRow {
        let fits = fmax.is_some();
        ExploreRow {
            index: 0,
            point: 0,
            target: target.into(),
            device: String::new(),
            config: String::new(),
            interval: 1,
            threshold: 1,
            tables: 1,
            entries: 2,
            counter_bits: 8,
            hash: "h3".into(),
            seed: 1,
            a_bits: 48,
            b_bits: 48,
            accumulator: 1,
            ways: 0,
            hardware: vec![],
            memory_bits: 0,
            net_error: error,
            worst_trace: String::new(),
            net_error_mean: error,
            errors: BTreeMap::new(),
            precision: 1.0,
            recall: 1.0,
            fits,
            not_fit_reason: None,
            cells,
            luts: cells,
            ffs: 0,
            carry: 0,
            brams: 0,
            dsps: 0,
            freq_mhz: 100.0,
            seeds: 1,
            fmax_mhz: fmax,
            fmax_median_mhz: fmax,
            fmax_per_seed: fmax.into_iter().collect(),
            events_per_clock: None,
            events_per_s: None,
            tools: BTreeMap::new(),
            pareto: false,
            wall_s: 0.0,
            host: String::new(),
            log: PathBuf::new(),
            dir: PathBuf::new(),
        }
    }

    #[test]
    fn pareto_front_per_target() {
        let mut rows = vec![
            row("a", 0.10, 1000, Some(100.0)), // dominated by the fourth (faster)
            row("a", 0.05, 2000, Some(100.0)), // front: lowest error that fits
            row("a", 0.10, 2000, Some(90.0)),  // dominated
            row("a", 0.10, 1000, Some(120.0)), // front: fewest cells, fastest
            row("a", 0.01, 5000, None),        // front: does not fit, but the most accurate
            row("a", 0.20, 3000, None),        // does not fit, worse everywhere
            row("b", 0.50, 9000, Some(10.0)),  // alone on its target
        ];
        mark_pareto(&mut rows);
        let flags: Vec<bool> = rows.iter().map(|r| r.pareto).collect();
        assert_eq!(flags, [false, true, false, true, true, false, true]);
        let md = pareto_markdown(&rows, "a");
        assert!(md.contains("3 of 6 configurations (4 fit)"), "{md}");
        assert!(md.contains("| no | 1.000 | 5000 |"), "{md}");
    }
}
