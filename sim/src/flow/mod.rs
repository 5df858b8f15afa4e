//! The synthesis flow (docs/SPEC.md §13.3): Verilog → Yosys (`synth_ice40` / `synth_ecp5`,
//! `stat -json`) → nextpnr (`--report`, one run per seed) → one [`SynthResult`] with area against
//! the device's capacity and Fmax (best and median over the seeds); optionally the bitstream
//! (icepack / ecppack).
//!
//! Every file a run makes stays in its output directory: the design and harness Verilog, the Yosys
//! script, log, statistics and netlist, and per seed the nextpnr log, report and placed design;
//! with a [`Floorplan`], `floorplan.txt` and the netlist nextpnr reads, `netlist-floorplan.json`.

pub mod compare;
pub mod counter_area;
pub mod device;
pub mod explore;
pub mod harness;
pub mod report;
pub mod throughput;
pub mod tools;

use device::{Capacity, Family, Target};
use report::{median, CriticalPath, PnrReport, YosysStat};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tools::{Preference, Tool, ToolPath};

/// A design to synthesize: Verilog text and its top module.
#[derive(Debug, Clone)]
pub struct Design {
    /// A name for reports (a preset, a file name).
    pub name: String,
    pub verilog: String,
    pub top: String,
    /// Events the design takes per clock, measured in simulation; gives events/s = Fmax × this.
    pub events_per_clock: Option<f64>,
}

/// How to run the flow.
#[derive(Debug, Clone)]
pub struct FlowOptions {
    pub target: Target,
    /// The clock constraint given to nextpnr, MHz.
    pub freq_mhz: f64,
    /// nextpnr seeds 1..=seeds, run one after another.
    pub seeds: u32,
    pub out_dir: PathBuf,
    /// Pin constraints (.pcf / .lpf). Without them the design is wrapped in the IO harness.
    pub constraints: Option<PathBuf>,
    /// Write the bitstream of the best seed (needs constraints).
    pub bitstream: bool,
    pub tools: Preference,
    /// Clock nets with a frequency of their own (net, MHz; `freq_mhz` holds the others): added
    /// to the pin constraints given to nextpnr, and each must be met for a bitstream.
    pub clock_targets: Vec<(String, f64)>,
    /// Cells held to sites before place and route (`floorplan.txt` in the output directory).
    pub floorplan: Option<Floorplan>,
}

/// Cells held to sites of the device: each cell of `cell_type` whose name starts with one of
/// `prefixes` takes the next of `sites` (cells in name order), as the `BEL` attribute nextpnr
/// honours. The YoWASP nextpnr-ecp5 has no Python, so no region constraints: holding a group's
/// block RAMs to one side of the die is what draws its logic there.
#[derive(Debug, Clone, PartialEq)]
pub struct Floorplan {
    /// What is held where and why, the first lines of `floorplan.txt`.
    pub note: String,
    pub cell_type: String,
    pub prefixes: Vec<String>,
    pub sites: Vec<String>,
}

impl Floorplan {
    /// The Yosys netlist `json` (module `top`) with the plan's `BEL` attributes, and the listing
    /// of `floorplan.txt`. Errors if more cells match than there are sites.
    pub fn apply(&self, json: &str, top: &str) -> Result<(String, String), String> {
        let mut netlist: serde_json::Value =
            serde_json::from_str(json).map_err(|e| format!("netlist.json: {e}"))?;
        let cells = netlist
            .get_mut("modules")
            .and_then(|m| m.get_mut(top))
            .and_then(|m| m.get_mut("cells"))
            .and_then(|c| c.as_object_mut())
            .ok_or_else(|| format!("netlist.json has no cells of module `{top}`"))?;
        let mut names: Vec<String> = cells
            .iter()
            .filter(|(name, c)| {
                c.get("type").and_then(|t| t.as_str()) == Some(self.cell_type.as_str())
                    && self.prefixes.iter().any(|p| name.starts_with(p.as_str()))
            })
            .map(|(name, _)| name.clone())
            .collect();
        names.sort();
        if names.len() > self.sites.len() {
            return Err(format!(
                "floorplan: {} {} cells match {:?}, {} sites",
                names.len(),
                self.cell_type,
                self.prefixes,
                self.sites.len()
            ));
        }
        let mut listing = String::new();
        for line in self.note.lines() {
            writeln!(listing, "# {line}").unwrap();
        }
        for (name, site) in names.iter().zip(&self.sites) {
            let attrs = cells[name.as_str()]
                .as_object_mut()
                .expect("a cell is an object")
                .entry("attributes")
                .or_insert_with(|| serde_json::json!({}));
            attrs
                .as_object_mut()
                .ok_or("a cell's attributes are not an object")?
                .insert("BEL".into(), serde_json::Value::String(site.clone()));
            writeln!(listing, "{site} {name}").unwrap();
        }
        Ok((netlist.to_string(), listing))
    }
}

/// Whether nextpnr's clock domain `clock` is the net `net`: nextpnr-ecp5 prefixes the net's name
/// with `$glbnet$` once it is on a global network, nextpnr-ice40 appends `$glb_clk`.
pub fn is_clock_of(clock: &str, net: &str) -> bool {
    let c = clock.strip_prefix("$glbnet$").unwrap_or(clock);
    c == net || c.starts_with(&format!("{net}$"))
}

impl FlowOptions {
    /// The frequency the clock domain nextpnr names `clock` is held to, MHz: its net's own
    /// ([`FlowOptions::clock_targets`]), else `freq_mhz`.
    pub fn clock_target(&self, clock: &str) -> f64 {
        self.clock_targets
            .iter()
            .find(|(net, _)| is_clock_of(clock, net))
            .map_or(self.freq_mhz, |&(_, f)| f)
    }

    /// Pin constraints with the clock targets added, for `family`'s nextpnr.
    fn constraints_with_clocks(&self, text: &str, family: Family) -> String {
        let mut t = text.to_string();
        if !t.ends_with('\n') {
            t.push('\n');
        }
        for (net, mhz) in &self.clock_targets {
            match family {
                Family::Ice40 => writeln!(t, "set_frequency {net} {mhz}"),
                Family::Ecp5 => writeln!(t, "FREQUENCY NET \"{net}\" {mhz} MHZ;"),
            }
            .expect("a String takes writes");
        }
        t
    }
}

/// Why the flow stopped.
#[derive(Debug)]
pub enum FlowError {
    /// The request is wrong (bad option, missing file, bad Verilog): exit code 2 in the CLI.
    Input(String),
    /// A tool is missing or failed.
    Tool(String),
}

impl std::fmt::Display for FlowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FlowError::Input(m) | FlowError::Tool(m) => f.write_str(m),
        }
    }
}

/// One resource: used, the device's capacity, and the percentage.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Usage {
    pub used: u64,
    pub capacity: Option<u64>,
    pub percent: Option<f64>,
}

impl Usage {
    fn new(used: u64, capacity: Option<u64>) -> Usage {
        Usage {
            used,
            capacity,
            percent: capacity
                .filter(|&c| c > 0)
                .map(|c| 100.0 * used as f64 / c as f64),
        }
    }
    fn over(&self) -> bool {
        self.capacity.is_some_and(|c| self.used > c)
    }
}

/// Everything one flow run measured. The JSON of `hwprof synth --json`.
#[derive(Debug, Clone, Serialize)]
pub struct SynthResult {
    pub design: String,
    pub top: String,
    pub target: Target,
    pub device: &'static str,
    /// Placed and routed, and within every capacity.
    pub fits: bool,
    /// Logic cells (iCE40) / LUT4s (ECP5): nextpnr's placed count when place-and-route ran,
    /// else Yosys's LUT4 count.
    pub cells: u64,
    pub luts: u64,
    pub ffs: u64,
    pub carry: u64,
    pub brams: u64,
    pub dsps: u64,
    pub usage: Resources,
    /// Flip-flops of the IO harness, included in `ffs` and `cells` (0 with board constraints).
    pub harness_ffs: u64,
    pub freq_mhz: f64,
    /// Best Fmax over the seeds, MHz (None when nothing was placed and routed).
    pub fmax_mhz: Option<f64>,
    pub fmax_median_mhz: Option<f64>,
    pub fmax_per_seed: Vec<f64>,
    /// Per clock domain (nextpnr's clock net), Fmax per seed, MHz.
    pub fmax_per_clock: std::collections::BTreeMap<String, Vec<f64>>,
    pub best_seed: Option<u32>,
    pub events_per_clock: Option<f64>,
    /// Best Fmax × events per clock.
    pub events_per_s: Option<f64>,
    pub critical_path: Option<CriticalPath>,
    /// Why the design does not fit, when it does not.
    pub not_fit_reason: Option<String>,
    pub yosys_cells_by_type: std::collections::BTreeMap<String, u64>,
    pub tools: Vec<(String, String)>,
    pub out_dir: PathBuf,
    pub bitstream: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Resources {
    pub cells: Usage,
    pub ffs: Usage,
    pub carry: Usage,
    pub brams: Usage,
    pub dsps: Usage,
}

fn write(path: &Path, text: &str) -> Result<(), FlowError> {
    std::fs::write(path, text)
        .map_err(|e| FlowError::Input(format!("cannot write {}: {e}", path.display())))
}

/// Runs a tool with its output streamed into `log` (readable while a long run goes on); returns
/// whether it succeeded.
fn run_logged(tool: &ToolPath, args: &[String], dir: &Path, log: &Path) -> Result<bool, FlowError> {
    let file = std::fs::File::create(log)
        .map_err(|e| FlowError::Tool(format!("cannot write {}: {e}", log.display())))?;
    let err = file
        .try_clone()
        .map_err(|e| FlowError::Tool(format!("{}: {e}", log.display())))?;
    let status = tool
        .command()
        .args(args)
        .current_dir(dir)
        .stdout(file)
        .stderr(err)
        .status()
        .map_err(|e| FlowError::Tool(format!("cannot run {}: {e}", tool.program.display())))?;
    Ok(status.success())
}

fn log_tail(log: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn need(tool: Tool, pref: Preference) -> Result<ToolPath, FlowError> {
    tools::find(tool, pref).map_err(FlowError::Tool)
}

/// Messages with which nextpnr gives up on a design too large for the device.
const NOT_FIT_MESSAGES: [&str; 6] = [
    "no BELs remaining",
    // nextpnr-ice40's analytic placer, when the logic cells are all taken.
    "Failed to expand region",
    "Unable to place",
    "utilisation limit",
    "too many",
    "but only",
];

/// Runs the flow on `design`; `progress` gets one line per step (for stderr).
pub fn run(
    design: &Design,
    opts: &FlowOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<SynthResult, FlowError> {
    if opts.seeds == 0 {
        return Err(FlowError::Input("--seeds must be at least 1".into()));
    }
    if !(opts.freq_mhz.is_finite() && opts.freq_mhz > 0.0) {
        return Err(FlowError::Input(format!(
            "--freq must be a positive number of MHz, got {}",
            opts.freq_mhz
        )));
    }
    if opts.bitstream && opts.constraints.is_none() {
        return Err(FlowError::Input("a bitstream needs pin constraints".into()));
    }
    let target = opts.target;
    let family = target.family();
    let yosys = need(Tool::Yosys, opts.tools)?;
    let nextpnr = need(
        match family {
            Family::Ice40 => Tool::NextpnrIce40,
            Family::Ecp5 => Tool::NextpnrEcp5,
        },
        opts.tools,
    )?;
    let packer = if opts.bitstream {
        Some(need(
            match family {
                Family::Ice40 => Tool::Icepack,
                Family::Ecp5 => Tool::Ecppack,
            },
            opts.tools,
        )?)
    } else {
        None
    };
    let dir = &opts.out_dir;
    std::fs::create_dir_all(dir)
        .map_err(|e| FlowError::Input(format!("cannot create {}: {e}", dir.display())))?;
    let dir = &dir
        .canonicalize()
        .map_err(|e| FlowError::Input(format!("{}: {e}", dir.display())))?;
    let constraints = match &opts.constraints {
        Some(c) => {
            let c = c
                .canonicalize()
                .map_err(|e| FlowError::Input(format!("constraint file {}: {e}", c.display())))?;
            if opts.clock_targets.is_empty() {
                Some(c)
            } else {
                let text = std::fs::read_to_string(&c).map_err(|e| {
                    FlowError::Input(format!("constraint file {}: {e}", c.display()))
                })?;
                let name = c
                    .file_name()
                    .map_or("constraints".into(), |n| n.to_string_lossy().to_string());
                let derived = dir.join(format!("clocks-{name}"));
                write(&derived, &opts.constraints_with_clocks(&text, family))?;
                Some(derived)
            }
        }
        None => None,
    };
    // Without pin constraints the design is measured inside the IO harness.
    let Synthesized {
        stat, harness_ffs, ..
    } = synthesize(design, target, &yosys, dir, constraints.is_none(), progress)?;

    let netlist = match &opts.floorplan {
        None => "netlist.json",
        Some(plan) => {
            let json = std::fs::read_to_string(dir.join("netlist.json"))
                .map_err(|e| FlowError::Tool(format!("netlist.json: {e}")))?;
            let (held, listing) = plan.apply(&json, &design.top).map_err(FlowError::Input)?;
            write(&dir.join("floorplan.txt"), &listing)?;
            write(&dir.join("netlist-floorplan.json"), &held)?;
            "netlist-floorplan.json"
        }
    };
    let cap = target.capacity();
    let pre = resources(target, &stat, stat.luts, &cap);
    let mut not_fit = over_capacity(&pre);
    let mut seeds_fmax = Vec::new();
    let mut fmax_per_clock: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    let mut best: Option<(u32, PnrReport)> = None;
    if not_fit.is_none() {
        for seed in 1..=opts.seeds {
            progress(&format!(
                "{} seed {seed}/{} ({})",
                nextpnr.tool.name(),
                opts.seeds,
                nextpnr.program.display()
            ));
            let mut args: Vec<String> = target
                .nextpnr_args()
                .iter()
                .map(|s| s.to_string())
                .collect();
            args.extend([
                "--json".into(),
                netlist.into(),
                "--freq".into(),
                format!("{}", opts.freq_mhz),
                "--seed".into(),
                seed.to_string(),
                "--report".into(),
                format!("report-seed{seed}.json"),
                // Fmax is what is measured: a run that misses --freq still reports it.
                "--timing-allow-fail".into(),
            ]);
            match family {
                Family::Ice40 => {
                    args.extend(["--asc".into(), format!("seed{seed}.asc")]);
                    if let Some(c) = &constraints {
                        args.extend(["--pcf".into(), c.display().to_string()]);
                    }
                }
                Family::Ecp5 => {
                    args.extend(["--textcfg".into(), format!("seed{seed}.config")]);
                    if let Some(c) = &constraints {
                        args.extend(["--lpf".into(), c.display().to_string()]);
                    }
                }
            }
            let plog = dir.join(format!("nextpnr-seed{seed}.log"));
            if !run_logged(&nextpnr, &args, dir, &plog)? {
                let text = std::fs::read_to_string(&plog).unwrap_or_default();
                if let Some(m) = NOT_FIT_MESSAGES.iter().find(|m| text.contains(*m)) {
                    let line = text.lines().find(|l| l.contains(m)).unwrap_or(m).trim();
                    not_fit = Some(format!("nextpnr: {line}"));
                    break;
                }
                return Err(FlowError::Tool(format!(
                    "{} failed (log {}):\n{}",
                    nextpnr.tool.name(),
                    plog.display(),
                    log_tail(&plog, 15)
                )));
            }
            let rtext = std::fs::read_to_string(dir.join(format!("report-seed{seed}.json")))
                .map_err(|e| FlowError::Tool(format!("nextpnr wrote no report: {e}")))?;
            let r = PnrReport::parse(&rtext).map_err(FlowError::Tool)?;
            seeds_fmax.push(r.fmax_mhz);
            for (c, &f) in &r.clocks {
                fmax_per_clock.entry(c.clone()).or_default().push(f);
            }
            if best.as_ref().map_or(true, |(_, b)| r.fmax_mhz > b.fmax_mhz) {
                best = Some((seed, r));
            }
        }
    }

    let cells = best
        .as_ref()
        .and_then(|(_, r)| r.logic(family))
        .map_or(stat.luts, |(used, _)| used);
    let usage = resources(target, &stat, cells, &cap);
    if not_fit.is_none() {
        not_fit = over_capacity(&usage);
    }
    let fits = not_fit.is_none() && best.is_some();

    // A bitstream must run at the board clock: the best seed must meet it in every domain.
    let timing_met = best
        .as_ref()
        .is_some_and(|(_, r)| r.clocks.iter().all(|(c, &f)| f >= opts.clock_target(c)));
    if packer.is_some() && fits && !timing_met {
        let missed = best.as_ref().map_or(String::new(), |(_, r)| {
            r.clocks
                .iter()
                .filter(|(c, &f)| f < opts.clock_target(c))
                .map(|(c, f)| format!("{c} {f:.2} MHz of {} MHz", opts.clock_target(c)))
                .collect::<Vec<_>>()
                .join(", ")
        });
        return Err(FlowError::Tool(format!(
            "timing not met on the best of {} seed(s): {missed} (reports in {}); no bitstream",
            opts.seeds,
            dir.display()
        )));
    }
    let bitstream = match (&packer, &best, fits) {
        (Some(packer), Some((seed, _)), true) => {
            let (input, output, args) = match family {
                Family::Ice40 => (
                    format!("seed{seed}.asc"),
                    "bitstream.bin",
                    vec![format!("seed{seed}.asc"), "bitstream.bin".into()],
                ),
                Family::Ecp5 => (
                    format!("seed{seed}.config"),
                    "bitstream.bit",
                    vec![
                        "--input".into(),
                        format!("seed{seed}.config"),
                        "--bit".into(),
                        "bitstream.bit".into(),
                    ],
                ),
            };
            progress(&format!("{} {input} → {output}", packer.tool.name()));
            let log = dir.join("pack.log");
            if !run_logged(packer, &args, dir, &log)? {
                return Err(FlowError::Tool(format!(
                    "{} failed (log {}):\n{}",
                    packer.tool.name(),
                    log.display(),
                    log_tail(&log, 15)
                )));
            }
            Some(dir.join(output))
        }
        _ => None,
    };

    let fmax = best.as_ref().map(|(_, r)| r.fmax_mhz);
    let mut tools_used = vec![
        (yosys.tool.name().to_string(), yosys.version()),
        (nextpnr.tool.name().to_string(), nextpnr.version()),
    ];
    if let Some(p) = &packer {
        tools_used.push((p.tool.name().to_string(), p.program.display().to_string()));
    }
    let result = SynthResult {
        design: design.name.clone(),
        top: design.top.clone(),
        target,
        device: target.device(),
        fits,
        cells,
        luts: stat.luts,
        ffs: stat.ffs,
        carry: stat.carry,
        brams: stat.brams,
        dsps: stat.dsps,
        usage,
        harness_ffs,
        freq_mhz: opts.freq_mhz,
        fmax_mhz: fmax,
        fmax_median_mhz: median(&seeds_fmax),
        fmax_per_seed: seeds_fmax,
        fmax_per_clock,
        best_seed: best.as_ref().map(|(s, _)| *s),
        events_per_clock: design.events_per_clock,
        events_per_s: fmax.zip(design.events_per_clock).map(|(f, e)| f * 1e6 * e),
        critical_path: best.and_then(|(_, r)| r.critical_path),
        not_fit_reason: not_fit,
        yosys_cells_by_type: stat.cells_by_type,
        tools: tools_used,
        out_dir: dir.clone(),
        bitstream,
    };
    write(
        &dir.join("result.json"),
        &serde_json::to_string_pretty(&result).expect("serializable"),
    )?;
    write(&dir.join("result.md"), &markdown(&[&result]))?;
    Ok(result)
}

/// What Yosys made of a design.
#[derive(Debug, Clone)]
pub struct Synthesized {
    pub stat: YosysStat,
    /// The module synthesized: the design's top, or the IO harness around it.
    pub top: String,
    /// Flip-flops of the IO harness (0 without it).
    pub harness_ffs: u64,
}

/// Yosys on `design` for `target` in `dir` (which keeps the Verilog, script, log, statistics and
/// netlist `netlist.json`), inside the IO harness when `harness`: the one Yosys run of every
/// synthesis, area-only or followed by place and route.
pub fn synthesize(
    design: &Design,
    target: Target,
    yosys: &ToolPath,
    dir: &Path,
    harness: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Synthesized, FlowError> {
    let family = target.family();
    write(&dir.join("design.v"), &design.verilog)?;
    // The IO harness needs the top's ports: elaborate once and read them back.
    let (top, harness_ffs, sources) = if harness {
        progress(&format!("yosys: reading the ports of `{}`", design.top));
        let script = format!(
            "read_verilog design.v\nhierarchy -top {}\nproc\nwrite_json ports.json\n",
            design.top
        );
        write(&dir.join("ports.ys"), &script)?;
        let ok = run_logged(
            yosys,
            &["-q".into(), "-s".into(), "ports.ys".into()],
            dir,
            &dir.join("yosys-ports.log"),
        )?;
        if !ok {
            return Err(FlowError::Input(format!(
                "yosys could not elaborate `{}` (log {}):\n{}",
                design.top,
                dir.join("yosys-ports.log").display(),
                log_tail(&dir.join("yosys-ports.log"), 15)
            )));
        }
        let json = std::fs::read_to_string(dir.join("ports.json"))
            .map_err(|e| FlowError::Tool(format!("ports.json: {e}")))?;
        let _ = std::fs::remove_file(dir.join("ports.json"));
        let ports = harness::ports_from_yosys_json(&json, &design.top).map_err(FlowError::Input)?;
        let h = harness::generate(&design.top, &ports).map_err(FlowError::Input)?;
        write(&dir.join("harness.v"), &h.verilog)?;
        (
            harness::HARNESS_TOP.to_string(),
            h.ffs,
            "design.v harness.v",
        )
    } else {
        (design.top.clone(), 0, "design.v")
    };

    progress(&format!(
        "yosys {} ({}): {}",
        target.yosys_synth(),
        yosys.program.display(),
        design.name
    ));
    let script = format!(
        "{} {sources}\n{} -top {top} -json netlist.json\ntee -q -o stat.json stat -json\n",
        target.yosys_read_verilog(),
        target.yosys_synth()
    );
    write(&dir.join("synth.ys"), &script)?;
    let ylog = dir.join("yosys.log");
    if !run_logged(yosys, &["-s".into(), "synth.ys".into()], dir, &ylog)? {
        return Err(FlowError::Tool(format!(
            "yosys failed (log {}):\n{}",
            ylog.display(),
            log_tail(&ylog, 15)
        )));
    }
    let stat_text = std::fs::read_to_string(dir.join("stat.json"))
        .map_err(|e| FlowError::Tool(format!("yosys wrote no stat.json: {e}")))?;
    let stat = YosysStat::parse(&stat_text, family).map_err(FlowError::Tool)?;
    Ok(Synthesized {
        stat,
        top,
        harness_ffs,
    })
}

/// Yosys alone (no place and route, no harness) on `design` in a fresh directory under `dir`:
/// the cell counts of `hwprof counters area`.
pub fn yosys_area(
    design: &Design,
    target: Target,
    dir: &Path,
    pref: Preference,
    progress: &mut dyn FnMut(&str),
) -> Result<YosysStat, FlowError> {
    let yosys = need(Tool::Yosys, pref)?;
    std::fs::create_dir_all(dir)
        .map_err(|e| FlowError::Input(format!("cannot create {}: {e}", dir.display())))?;
    Ok(synthesize(design, target, &yosys, dir, false, progress)?.stat)
}

fn resources(target: Target, s: &YosysStat, cells: u64, cap: &Capacity) -> Resources {
    // iCE40: one carry per logic cell; ECP5: a CCU2C is two bits of one slice (two LUT4s).
    let carry_cap = match target.family() {
        Family::Ice40 => cap.cells,
        Family::Ecp5 => cap.cells / 2,
    };
    Resources {
        cells: Usage::new(cells, Some(cap.cells)),
        ffs: Usage::new(s.ffs, Some(cap.ffs)),
        carry: Usage::new(s.carry, Some(carry_cap)),
        brams: Usage::new(s.brams, Some(cap.brams)),
        dsps: Usage::new(s.dsps, Some(cap.dsps)),
    }
}

fn over_capacity(r: &Resources) -> Option<String> {
    [
        ("logic cells", r.cells),
        ("flip-flops", r.ffs),
        ("carry cells", r.carry),
        ("block RAMs", r.brams),
        ("DSPs", r.dsps),
    ]
    .iter()
    .find(|(_, u)| u.over())
    .map(|(n, u)| {
        format!(
            "{n}: {} used, the device has {}",
            u.used,
            u.capacity.unwrap_or(0)
        )
    })
}

fn fmt_opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

fn fmt_rate(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{:.1} M", x / 1e6))
}

/// The rows of the table: (label, value per result).
fn rows(results: &[&SynthResult]) -> Vec<(String, Vec<String>)> {
    let usage = |u: &Usage| {
        format!(
            "{} / {} ({})",
            u.used,
            u.capacity.map_or("-".into(), |c| c.to_string()),
            u.percent.map_or("-".into(), |p| format!("{p:.1} %"))
        )
    };
    let mut r: Vec<(String, Vec<String>)> = Vec::new();
    let mut row = |label: &str, f: &dyn Fn(&SynthResult) -> String| {
        r.push((label.to_string(), results.iter().map(|x| f(x)).collect()));
    };
    row("target", &|x| format!("{} ({})", x.target.name(), x.device));
    row("logic cells / LUT4", &|x| usage(&x.usage.cells));
    row("flip-flops", &|x| usage(&x.usage.ffs));
    row("  of which IO harness", &|x| x.harness_ffs.to_string());
    row("carry", &|x| usage(&x.usage.carry));
    row("block RAMs", &|x| usage(&x.usage.brams));
    row("DSPs", &|x| usage(&x.usage.dsps));
    row("fits", &|x| {
        if x.fits {
            "yes".into()
        } else {
            format!(
                "no: {}",
                x.not_fit_reason.as_deref().unwrap_or("not placed")
            )
        }
    });
    row("Fmax asked (MHz)", &|x| format!("{}", x.freq_mhz));
    row("Fmax best (MHz)", &|x| fmt_opt(x.fmax_mhz, 1));
    row("Fmax median (MHz)", &|x| {
        format!(
            "{} over {} seed(s)",
            fmt_opt(x.fmax_median_mhz, 1),
            x.fmax_per_seed.len()
        )
    });
    row("events / clock", &|x| fmt_opt(x.events_per_clock, 3));
    row("events / s (best Fmax)", &|x| fmt_rate(x.events_per_s));
    r
}

fn critical_path(x: &SynthResult) -> String {
    x.critical_path.as_ref().map_or("-".into(), |c| {
        format!("{} → {} ({} logic levels)", c.from, c.to, c.logic_levels)
    })
}

/// A plain-text table of one or more results side by side.
pub fn table(results: &[&SynthResult]) -> String {
    let rows = rows(results);
    let lw = rows
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    let mut widths = vec![0; results.len()];
    for (_, vals) in &rows {
        for (w, v) in widths.iter_mut().zip(vals) {
            *w = (*w).max(v.chars().count());
        }
    }
    let mut s = String::new();
    let head: Vec<String> = results
        .iter()
        .zip(&widths)
        .map(|(x, w)| format!("{:<w$}", x.design, w = *w))
        .collect();
    let _ = writeln!(s, "{:<lw$}  {}", "", head.join("  "));
    for (l, vals) in rows {
        let cells: Vec<String> = vals
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:<w$}", w = *w))
            .collect();
        let _ = writeln!(s, "{l:<lw$}  {}", cells.join("  ").trim_end());
    }
    for x in results {
        let _ = writeln!(
            s,
            "critical path ({}, {}): {}",
            x.design,
            x.target.name(),
            critical_path(x)
        );
    }
    s
}

/// The same table in Markdown.
pub fn markdown(results: &[&SynthResult]) -> String {
    let mut s = String::new();
    let head: Vec<&str> = results.iter().map(|x| x.design.as_str()).collect();
    let _ = writeln!(s, "| | {} |", head.join(" | "));
    let _ = writeln!(s, "|---|{}", "---|".repeat(results.len()));
    for (l, vals) in rows(results) {
        let _ = writeln!(s, "| {} | {} |", l.trim(), vals.join(" | "));
    }
    let paths: Vec<String> = results
        .iter()
        .map(|x| format!("`{}`", critical_path(x)))
        .collect();
    let _ = writeln!(s, "| critical path | {} |", paths.join(" | "));
    s
}

#[cfg(test)]
mod clock_target_tests {
    use super::*;

    #[test]
    fn clock_nets_of_their_own_are_held_to_their_frequency_and_constrained() {
        let opts = FlowOptions {
            target: Target::Ice40Up5k,
            freq_mhz: 12.0,
            seeds: 1,
            out_dir: PathBuf::new(),
            constraints: None,
            bitstream: false,
            tools: Preference::Native,
            clock_targets: vec![("prof_clock".into(), 18.0)],
            floorplan: None,
        };
        assert_eq!(opts.clock_target("prof_clock"), 18.0);
        assert_eq!(opts.clock_target("prof_clock$glb_clk"), 18.0);
        assert_eq!(opts.clock_target("$glbnet$prof_clock"), 18.0);
        assert_eq!(opts.clock_target("$glbnet$clk$TRELLIS_IO_IN"), 12.0);
        assert_eq!(opts.clock_target("prof_clock_b"), 12.0);
        assert_eq!(opts.clock_target("clk$SB_IO_IN_$glb_clk"), 12.0);
        let pcf = opts.constraints_with_clocks("set_io clk 35", Family::Ice40);
        assert_eq!(pcf, "set_io clk 35\nset_frequency prof_clock 18\n");
        let lpf = opts.constraints_with_clocks("", Family::Ecp5);
        assert!(
            lpf.ends_with("FREQUENCY NET \"prof_clock\" 18 MHZ;\n"),
            "{lpf}"
        );
    }
}

#[cfg(test)]
mod floorplan_tests {
    use super::*;

    #[test]
    fn the_plans_cells_take_its_sites_in_name_order_and_others_are_left_free() {
        let json = r#"{"modules": {"top": {"cells": {
            "system.p.b": {"type": "DP16KD", "attributes": {}},
            "system.p.a": {"type": "DP16KD"},
            "system.p.c": {"type": "LUT4", "attributes": {}},
            "ram.0": {"type": "DP16KD", "attributes": {}}}}}}"#;
        let plan = Floorplan {
            note: "why".into(),
            cell_type: "DP16KD".into(),
            prefixes: vec!["system.p.".into()],
            sites: vec!["X1/Y2/EBR0".into(), "X3/Y2/EBR1".into()],
        };
        let (held, listing) = plan.apply(json, "top").unwrap();
        assert_eq!(
            listing,
            "# why\nX1/Y2/EBR0 system.p.a\nX3/Y2/EBR1 system.p.b\n"
        );
        let v: serde_json::Value = serde_json::from_str(&held).unwrap();
        let cells = &v["modules"]["top"]["cells"];
        assert_eq!(cells["system.p.a"]["attributes"]["BEL"], "X1/Y2/EBR0");
        assert_eq!(cells["system.p.b"]["attributes"]["BEL"], "X3/Y2/EBR1");
        assert!(cells["system.p.c"]["attributes"].get("BEL").is_none());
        assert!(cells["ram.0"]["attributes"].get("BEL").is_none());
        let short = Floorplan {
            sites: vec!["X1/Y2/EBR0".into()],
            ..plan
        };
        assert!(short.apply(json, "top").is_err());
    }
}
