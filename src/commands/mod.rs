//! One module per subcommand. Errors carry their exit code: 2 for bad input (config, trace,
//! command line), 1 for a failure of the tool or of an external program.

pub mod buffer;
pub mod config;
pub mod cosim;
pub mod counters;
pub mod demo;
pub mod executor;
pub mod explore;
pub mod formal;
pub mod model;
pub mod phase;
pub mod progress;
pub mod report;
pub mod soc;
pub mod sweep;
pub mod synth;
pub mod trace;
pub mod verilog;

use hwprof_hdl::ConfigFile;
use hwprof_sim::eval::trace::{read_trace_full, LackeyKind, Trace};
use hwprof_sim::flow::device::Target;
use hwprof_sim::hwprof_hdl::ProfilerConfig;
use std::path::Path;
use std::sync::OnceLock;

pub use hwprof_sim::eval::trace::Tuple;

/// Options given before or after any subcommand.
#[derive(Debug, Default)]
pub struct Globals {
    /// No progress display.
    pub quiet: bool,
    /// `--set key=value` overrides of every configuration file read.
    pub sets: Vec<(String, toml::Value)>,
}

static GLOBALS: OnceLock<Globals> = OnceLock::new();

/// Records the global options (once, at start-up).
pub fn set_globals(g: Globals) {
    let _ = GLOBALS.set(g);
}

pub fn globals() -> &'static Globals {
    GLOBALS.get_or_init(Globals::default)
}

/// Parses one `--set key=value`: a dotted key (`accumulator.entries`) and a TOML value, or a bare
/// word taken as a string (`hash=h3`).
pub fn parse_set(s: &str) -> Result<(String, toml::Value), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("expected key=value (e.g. interval=20000), got {s:?}"))?;
    let (k, v) = (k.trim(), v.trim());
    if k.is_empty() || k.split('.').any(|p| p.is_empty()) {
        return Err(format!("--set {s:?}: empty key"));
    }
    let value = match toml::from_str::<toml::Table>(&format!("v = {v}")) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(v.into())),
        Err(_) => toml::Value::String(v.into()),
    };
    Ok((k.to_string(), value))
}
#[derive(Debug)]
pub struct CliError {
    pub code: i32,
    pub message: String,
}

impl CliError {
    /// Bad input: exit code 2.
    pub fn input(message: impl ToString) -> Self {
        CliError {
            code: 2,
            message: message.to_string(),
        }
    }
    /// A failure that is not the input's fault: exit code 1.
    pub fn failure(message: impl ToString) -> Self {
        CliError {
            code: 1,
            message: message.to_string(),
        }
    }
}

pub type CmdResult = Result<(), CliError>;

/// `--kind` values, shared by every command that reads lackey logs.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum KindArg {
    /// (previous superblock, superblock) from a --trace-superblocks log
    Edge,
    /// (pc, address) of loads from a --trace-mem log
    Load,
    /// (pc, taken) of control transfers from a --trace-mem log
    Branch,
}

impl From<KindArg> for LackeyKind {
    fn from(k: KindArg) -> Self {
        match k {
            KindArg::Edge => LackeyKind::Edge,
            KindArg::Load => LackeyKind::Load,
            KindArg::Branch => LackeyKind::Branch,
        }
    }
}

/// A configuration file's text with the `--set` overrides applied, and its name for messages.
pub fn config_text(path: &Path) -> Result<(String, String), CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::input(format!("config {}: cannot read file: {e}", path.display()))
    })?;
    with_sets(text, path.display().to_string())
}

/// A configuration's text with the `--set` overrides applied, and its name for messages.
fn with_sets(text: String, name: String) -> Result<(String, String), CliError> {
    let sets = &globals().sets;
    if sets.is_empty() {
        return Ok((text, name));
    }
    let mut table: toml::Table = toml::from_str(&text)
        .map_err(|e| CliError::input(format!("config {name}: {}", e.message())))?;
    for (key, value) in sets {
        let mut t = &mut table;
        let parts: Vec<&str> = key.split('.').collect();
        for p in &parts[..parts.len() - 1] {
            t = t
                .entry(p.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                .as_table_mut()
                .ok_or_else(|| CliError::input(format!("--set {key}: {p} is not a table")))?;
        }
        t.insert(parts[parts.len() - 1].to_string(), value.clone());
        // A top-level option on the command line is meant for every target.
        if let [key] = parts.as_slice() {
            if let Some(targets) = table.get_mut("target").and_then(|t| t.as_table_mut()) {
                for (_, section) in targets.iter_mut() {
                    if let Some(section) = section.as_table_mut() {
                        section.remove(*key);
                    }
                }
            }
        }
    }
    let names: Vec<String> = sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
    Ok((
        table.to_string(),
        format!("{name} (with --set {})", names.join(", ")),
    ))
}

/// A built-in profiler configuration (`source`, `text`) with the `--set` overrides applied, as
/// a file's would be.
pub fn built_in_config(source: &str, text: &str) -> Result<ProfilerConfig, CliError> {
    let (text, name) = with_sets(text.to_string(), format!("{source} (built in)"))?;
    ProfilerConfig::from_toml_str(&text, &name).map_err(CliError::input)
}

/// Any configuration file (profiler, buffer, phase classifier) with the `--set` overrides applied.
pub fn load<C: ConfigFile>(path: &Path) -> Result<C, CliError> {
    let (text, source) = config_text(path)?;
    C::from_toml_str(&text, &source).map_err(CliError::input)
}

pub fn load_config(path: &Path) -> Result<ProfilerConfig, CliError> {
    load(path)
}

/// A profiler configuration with the hardware options of `target`'s `[target.<name>]` section,
/// if one is named.
pub fn load_config_for(path: &Path, target: Option<Target>) -> Result<ProfilerConfig, CliError> {
    let cfg = load_config(path)?;
    Ok(match target {
        Some(t) => cfg.for_target(t.name()),
        None => cfg,
    })
}

/// The resolved configuration as JSON fields, with its bits of memory.
pub fn config_json(cfg: &ProfilerConfig) -> serde_json::Value {
    use hwprof_sim::hwprof_hdl::config::{HashKind, Organisation, Replacement};
    serde_json::json!({
        "summary": cfg.summary(),
        "interval": cfg.interval,
        "max_interval": cfg.max_interval(),
        "threshold": cfg.threshold,
        "tables": cfg.tables,
        "entries": cfg.entries,
        "counter_bits": cfg.counter_bits,
        "conservative_update": cfg.conservative_update,
        "reset_on_promote": cfg.reset_on_promote,
        "reset_value": cfg.reset_value,
        "retaining": cfg.retaining,
        "hash": match cfg.hash { HashKind::Tabulation => "tabulation", HashKind::H3 => "h3" },
        "seed": cfg.seed,
        "a_bits": cfg.a_bits,
        "b_bits": cfg.b_bits,
        "accumulator": {
            "entries": cfg.accumulator.entries,
            "organisation": match cfg.accumulator.organisation {
                Organisation::FullyAssociative => "fully_associative",
                Organisation::SetAssociative => "set_associative",
            },
            "ways": cfg.accumulator.ways,
            "stash": cfg.accumulator.stash,
            "count_bits": cfg.accumulator.count_bits,
            "replacement": match cfg.accumulator.replacement {
                Replacement::First => "first",
                Replacement::Smallest => "smallest",
            },
        },
        "write_stage": cfg.write_stage,
        "counter_output_register": cfg.counter_output_register,
        "refused_slot": cfg.refused_slot,
        "hash_block_ram": cfg.hash_block_ram,
        "hash_stage": cfg.hash_stage,
        "flag_rows": cfg.flag_rows,
        "narrow_tag_compare": cfg.narrow_tag_compare,
        // Each section's target resolved: its hardware options as that target's designs get them.
        "target": cfg.targets.keys().map(|name| {
            let t = cfg.for_target(name);
            (name.clone(), serde_json::json!({
                "write_stage": t.write_stage,
                "counter_output_register": t.counter_output_register,
                "refused_slot": t.refused_slot,
                "hash_block_ram": t.hash_block_ram,
                "hash_stage": t.hash_stage,
                "flag_rows": t.flag_rows,
                "narrow_tag_compare": t.narrow_tag_compare,
            }))
        }).collect::<serde_json::Map<_, _>>(),
        "memory_bits": hwprof_sim::eval::sweep::profiler_bits(cfg),
        "memory_split_bits": {
            "counters": cfg.counter_storage_bits(),
            "accumulator": hwprof_sim::eval::sweep::profiler_bits(cfg) - cfg.counter_storage_bits(),
        },
    })
}

/// A result as JSON with the configuration as fields and the events of a trailing partial
/// interval (not scored, not compared).
pub fn json_with_config(
    r: &impl serde::Serialize,
    cfg: &ProfilerConfig,
    trailing: u64,
) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.insert("configuration".into(), config_json(cfg));
        o.insert("trailing_events".into(), trailing.into());
    }
    v
}

/// Reads a trace (`-` is standard input), checking `--kind` against what the file records.
pub fn load_trace_full(path: &Path, kind: Option<KindArg>) -> Result<Trace, CliError> {
    read_trace_full(path, kind.map(Into::into)).map_err(CliError::input)
}

pub fn load_trace(path: &Path, kind: Option<KindArg>) -> Result<Vec<Tuple>, CliError> {
    load_trace_full(path, kind).map(|t| t.events)
}

/// An output that cannot be written is the command line's fault: exit code 2.
pub fn write_error(path: &Path, e: impl std::fmt::Display) -> CliError {
    CliError::input(format!("cannot write {}: {e}", path.display()))
}

/// Refuses an output file that cannot be created, before any long work: creates it (empty) if
/// absent, and leaves an existing one as it is.
pub fn check_writable_file(path: &Path) -> CmdResult {
    if path == Path::new(hwprof_sim::eval::trace::STDIN) {
        return Ok(());
    }
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map(|_| ())
        .map_err(|e| write_error(path, e))
}

/// Creates an output directory (and its parents) or refuses it with exit code 2.
pub fn create_out_dir(dir: &Path) -> CmdResult {
    std::fs::create_dir_all(dir).map_err(|e| write_error(dir, e))?;
    let probe = dir.join(format!(".hwprof-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|e| write_error(dir, e))
}

/// Pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(v: &T) -> CmdResult {
    println!(
        "{}",
        serde_json::to_string_pretty(v).map_err(CliError::failure)?
    );
    Ok(())
}
