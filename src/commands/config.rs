//! `hwprof config show`: a profiler configuration as every command resolves it.

use super::{config_json, load_config, print_json, CmdResult};
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum ConfigCommand {
    /// Print the resolved configuration: every field with its default filled in, the threshold T
    /// as a count, the accumulator size A, and the bits of memory (after any --set).
    Show {
        /// Profiler configuration (TOML), e.g. configs/paper-10k.toml
        file: PathBuf,
        /// Print one JSON object instead of text
        #[arg(long)]
        json: bool,
    },
}

pub fn run(c: ConfigCommand) -> CmdResult {
    let ConfigCommand::Show { file, json } = c;
    let cfg = load_config(&file)?;
    let v = config_json(&cfg);
    if json {
        return print_json(&v);
    }
    println!("# {}: {}", file.display(), cfg.summary());
    print_fields(&v, "");
    Ok(())
}

/// `key = value` lines, nested objects as dotted keys.
fn print_fields(v: &serde_json::Value, prefix: &str) {
    let Some(map) = v.as_object() else { return };
    for (k, v) in map {
        if k == "summary" {
            continue;
        }
        let key = format!("{prefix}{k}");
        match v {
            serde_json::Value::Object(_) => print_fields(v, &format!("{key}.")),
            _ => println!("{key:<28} = {v}"),
        }
    }
}
