//! `hwprof phase`: the phase classifier's model on a real trace, scored against the ground truth
//! and an offline SimPoint-style reference; optionally its RTL on the same stream, the similarity
//! matrix of the run, or a sweep of the design space around the configuration.

use super::{
    check_writable_file, config_text, create_out_dir, print_json, write_error, CliError, CmdResult,
    KindArg,
};
use hwprof_hdl::ConfigFile;
use hwprof_sim::eval::phase::{
    classify, evaluate, read_phase_trace, similarity_matrix, sweep, PhaseGrid, PhaseReport,
    PhaseRow, PhaseTrace, Truth,
};
use hwprof_sim::eval::plot;
use hwprof_sim::hwprof_hdl::phase::PhaseConfig;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum MetricArg {
    /// Miss rate of the simulated L1 data cache
    L1dMissRate,
    /// Memory operations per instruction
    MemOpsPerInstruction,
    /// Fraction of branches taken
    BranchTakenRate,
}

#[derive(clap::Args)]
pub struct PhaseArgs {
    /// Phase-classifier configuration (TOML with a [phase] table), e.g. configs/phase.toml
    #[arg(long)]
    pub config: PathBuf,
    /// valgrind lackey log (.gz read transparently)
    #[arg(long)]
    pub trace: PathBuf,
    /// Events: branches or loads of a --trace-mem log, superblocks of a --trace-superblocks log
    #[arg(long, value_enum)]
    pub kind: KindArg,
    /// The behaviour metric of cov_whole / ccov / reference_ccov
    #[arg(long, value_enum, default_value = "l1d-miss-rate")]
    pub metric: MetricArg,
    /// Also run the RTL under rust-hdl's simulator on the same stream; report mismatches
    #[arg(long)]
    pub cosim: bool,
    /// Also run the exported Verilog under Icarus on the same stream; report mismatches
    #[arg(long)]
    pub icarus: bool,
    /// Write the similarity matrix of the intervals (PNG), the phases found along it
    #[arg(long, value_name = "FILE.png")]
    pub similarity: Option<PathBuf>,
    /// Instead of one run, sweep threshold × buckets × Q × entries × centre × sampling around the
    /// configuration: DIR/phase-sweep.csv, DIR/phase-sweep.json, DIR/plots/
    #[arg(long, value_name = "DIR")]
    pub sweep: Option<PathBuf>,
    /// Print one JSON object instead of a table
    #[arg(long)]
    pub json: bool,
}

/// Cells per side of the similarity figure at most (more intervals are merged in groups).
const SIMILARITY_CELLS: usize = 240;

pub fn run(a: PhaseArgs) -> CmdResult {
    let (text, source) = config_text(&a.config)?;
    let cfg = PhaseConfig::from_toml_str(&text, &source).map_err(CliError::input)?;
    if let Some(p) = &a.similarity {
        if p.extension().and_then(|e| e.to_str()) != Some("png") {
            return Err(CliError::input(format!(
                "--similarity {}: the figure is a PNG; name it FILE.png",
                p.display()
            )));
        }
        check_writable_file(p)?;
    }
    if let Some(dir) = &a.sweep {
        create_out_dir(dir)?;
    }
    let trace = read_phase_trace(&a.trace, a.kind.into()).map_err(CliError::input)?;
    let records = classify(&cfg, &trace);
    if records.is_empty() {
        return Err(CliError::input(format!(
            "trace {}: no interval closes: {} instructions of events, interval = {}",
            a.trace.display(),
            trace.events.iter().map(|e| e.1).sum::<u64>(),
            cfg.interval
        )));
    }
    let metric = a.metric as usize;
    if let Some(dir) = &a.sweep {
        return run_sweep(&a, &cfg, &trace, metric, dir);
    }
    let mut report = evaluate(&cfg, &trace, metric, &records);
    if let Some(p) = &a.similarity {
        let m = similarity_matrix(&Truth::new(&cfg, &trace).intervals, SIMILARITY_CELLS);
        let name = a
            .trace
            .file_name()
            .map_or(a.trace.display().to_string(), |n| {
                n.to_string_lossy().into_owned()
            });
        let title = format!(
            "{name}: similarity of intervals, {} phases found",
            report.phases
        );
        plot::similarity(p, &title, &m, &report.phase_sequence).map_err(|e| write_error(p, e))?;
    }
    if a.cosim {
        report.mismatches = Some(
            hwprof_sim::verify::phase::cosim(&cfg, &trace.events, &records)
                .map_err(CliError::failure)?,
        );
    }
    if a.icarus {
        report.icarus_mismatches = Some(
            hwprof_sim::verify::phase::icarus(&cfg, &trace.events, &records)
                .map_err(CliError::failure)?,
        );
    }
    if a.json {
        print_json(&report)
    } else {
        print_table(&report);
        Ok(())
    }
}

/// What `--sweep` prints and writes besides the rows.
#[derive(serde::Serialize)]
struct SweepReport<'a> {
    base: String,
    reference_phases: usize,
    reference_ccov: Option<f64>,
    cov_whole: Option<f64>,
    rows: &'a [PhaseRow],
    files: Vec<PathBuf>,
}

fn run_sweep(
    a: &PhaseArgs,
    cfg: &PhaseConfig,
    trace: &PhaseTrace,
    metric: usize,
    dir: &Path,
) -> CmdResult {
    let rows = sweep(cfg, trace, &PhaseGrid::default(), metric);
    let csv_path = dir.join("phase-sweep.csv");
    let mut w = csv::Writer::from_path(&csv_path).map_err(|e| write_error(&csv_path, e))?;
    for r in &rows {
        w.serialize(r.csv_record())
            .map_err(|e| write_error(&csv_path, e))?;
    }
    w.flush().map_err(|e| write_error(&csv_path, e))?;
    let first = rows.first();
    let mut report = SweepReport {
        base: cfg.summary(),
        reference_phases: first.map_or(0, |r| r.quality.reference_phases),
        reference_ccov: first.and_then(|r| r.quality.reference_ccov),
        cov_whole: first.and_then(|r| r.quality.cov_whole),
        rows: &rows,
        files: vec![csv_path],
    };
    if let (Some(rc), Some(cw)) = (report.reference_ccov, report.cov_whole) {
        let by_sampling = |x: fn(&PhaseRow) -> f64| -> Vec<(String, Vec<(f64, f64)>)> {
            let mut s: Vec<(String, Vec<(f64, f64)>)> = vec![];
            for r in &rows {
                let name = match r.run.sample_every {
                    1 => "hardware, every event (dense)".to_string(),
                    n => format!("hardware, 1 in {n} events sampled"),
                };
                let p = (x(r), r.quality.ccov.unwrap_or(f64::NAN));
                match s.iter_mut().find(|e| e.0 == name) {
                    Some(e) => e.1.push(p),
                    None => s.push((name, vec![p])),
                }
            }
            s
        };
        let level = Some((format!("whole program CoV {cw:.3}"), cw));
        let plots = dir.join("plots");
        let mut s = by_sampling(|r| r.run.phases as f64);
        s.push((
            "offline reference (SimPoint)".into(),
            vec![(report.reference_phases as f64, rc)],
        ));
        let files = plot::scatter(
            &plots.join("ccov-vs-phases"),
            "CCoV against the number of phases",
            ("phases", "CCoV"),
            false,
            &s,
            level.clone(),
        )
        .map_err(|e| write_error(&plots, e))?;
        report.files.extend(files);
        let files = plot::scatter(
            &plots.join("ccov-vs-bits"),
            "CCoV against the classifier's state",
            ("state (bits)", "CCoV"),
            true,
            &by_sampling(|r| r.run.storage_bits as f64),
            level,
        )
        .map_err(|e| write_error(&plots, e))?;
        report.files.extend(files);
    }
    let json_path = dir.join("phase-sweep.json");
    let text = serde_json::to_string_pretty(&report).map_err(CliError::failure)?;
    std::fs::write(&json_path, text).map_err(|e| write_error(&json_path, e))?;
    report.files.push(json_path);
    if a.json {
        return print_json(&report);
    }
    println!("base        {}", report.base);
    println!("configs     {}", rows.len());
    println!(
        "reference   {} phases, CCoV {}; whole program CoV {}",
        report.reference_phases,
        opt(report.reference_ccov),
        opt(report.cov_whole)
    );
    let mut best: Vec<&PhaseRow> = rows.iter().filter(|r| r.quality.ccov.is_some()).collect();
    best.sort_by(|x, y| {
        x.quality
            .ccov
            .partial_cmp(&y.quality.ccov)
            .unwrap()
            .then(x.run.storage_bits.cmp(&y.run.storage_bits))
    });
    println!("lowest CCoV:");
    println!(
        "  {:>5} {:>3} {:>2} {:>3} {:<14} {:>3} {:>7} {:>6} {:>7} {:>6}",
        "T", "B", "Q", "P", "centre", "N", "bits", "phases", "ccov", "pred"
    );
    for PhaseRow { run: r, quality: q } in best.iter().take(10) {
        println!(
            "  {:>5} {:>3} {:>2} {:>3} {:<14} {:>3} {:>7} {:>6} {:>7.4} {:>6.3}",
            r.threshold,
            r.buckets,
            r.q_bits,
            r.entries,
            r.centre,
            r.sample_every,
            r.storage_bits,
            r.phases,
            q.ccov.unwrap_or(f64::NAN),
            q.prediction_accuracy
        );
    }
    for f in &report.files {
        println!("wrote {}", f.display());
    }
    Ok(())
}

fn opt(x: Option<f64>) -> String {
    x.map_or("n/a (no behaviour metrics in this log)".into(), |v| {
        format!("{v:.4}")
    })
}

fn print_table(r: &PhaseReport) {
    let q = &r.quality;
    println!("config               {}", r.config);
    println!(
        "state                {} bits ({} bytes)",
        r.storage_bits,
        r.storage_bits.div_ceil(8)
    );
    println!(
        "events               {} ({} instructions)",
        r.events, r.instructions
    );
    println!("intervals            {}", r.intervals);
    println!(
        "phases               {} ({} transitions)",
        r.phases, r.transitions
    );
    if r.transition_intervals > 0 {
        println!(
            "transition phase     {} intervals (charged cov_whole in ccov)",
            r.transition_intervals
        );
    }
    println!(
        "reference phases     {} (ARI {:.3})",
        q.reference_phases, q.ari
    );
    println!("metric               {}", r.metric.unwrap_or("none"));
    println!("cov_whole            {}", opt(q.cov_whole));
    println!("ccov                 {}", opt(q.ccov));
    if r.transition_intervals > 0 {
        println!(
            "ccov, transition as a phase {}",
            opt(q.ccov_transition_as_phase)
        );
    }
    println!("reference_ccov       {}", opt(q.reference_ccov));
    for m in &r.by_metric {
        println!(
            "  {:<24} cov_whole {:.4}  ccov {:.4}  reference {:.4}",
            m.metric, m.cov_whole, m.ccov, m.reference_ccov
        );
    }
    println!(
        "prediction accuracy  {:.4} (last phase {:.4})",
        q.prediction_accuracy, q.last_phase_accuracy
    );
    if let Some(c) = &r.cache {
        println!("L1D                  {c}");
    }
    if let Some(m) = r.mismatches {
        println!("rust-hdl mismatches  {m}");
    }
    if let Some(m) = r.icarus_mismatches {
        println!("icarus mismatches    {m}");
    }
}
