//! `hwprof trace record|convert|stats`.

use super::{load_trace, print_json, CliError, CmdResult, KindArg};
use hwprof_sim::eval::trace::{read_trace, stats, write_trace, LackeyKind};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(clap::Subcommand)]
pub enum TraceCommand {
    /// Run a program under valgrind's lackey tool and write its trace.
    ///
    /// The output form follows the name: `.lackey` / `.lackey.gz` keep valgrind's log as it is,
    /// `.txt` writes text tuples, anything else the compact binary form; `.gz` compresses.
    Record {
        #[arg(long, value_enum)]
        kind: KindArg,
        #[arg(short, long)]
        out: PathBuf,
        /// The program and its arguments (after `--`)
        #[arg(last = true, required = true)]
        program: Vec<String>,
    },
    /// Convert a trace to another form (chosen by OUT's name, as for `record`).
    Convert {
        input: PathBuf,
        output: PathBuf,
        #[arg(long, value_enum)]
        kind: Option<KindArg>,
    },
    /// Events, distinct tuples and the ten most frequent tuples of a trace.
    Stats {
        file: PathBuf,
        #[arg(long, value_enum)]
        kind: Option<KindArg>,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(c: TraceCommand) -> CmdResult {
    match c {
        TraceCommand::Record { kind, out, program } => record(kind.into(), &out, &program),
        TraceCommand::Convert {
            input,
            output,
            kind,
        } => {
            let ev = load_trace(&input, kind)?;
            write_trace(&output, &ev).map_err(|e| {
                CliError::failure(format!("cannot write {}: {e}", output.display()))
            })?;
            println!("{}: {} events", output.display(), ev.len());
            Ok(())
        }
        TraceCommand::Stats { file, kind, json } => {
            let ev = load_trace(&file, kind)?;
            let s = stats(&ev, 10);
            if json {
                return print_json(&s);
            }
            println!("events    {}", s.events);
            println!("distinct  {}", s.distinct);
            println!("top 10:");
            for (a, b, c) in &s.top {
                println!(
                    "  {a:>16x} {b:>16x} {c:>10}  {:.3} %",
                    100.0 * *c as f64 / s.events as f64
                );
            }
            Ok(())
        }
    }
}

fn record(kind: LackeyKind, out: &Path, program: &[String]) -> CmdResult {
    if Command::new("valgrind").arg("--version").output().is_err() {
        return Err(CliError::failure(
            "valgrind not found on PATH: install it (Debian: apt-get install valgrind)",
        ));
    }
    let log = out.with_extension("lackey-log.tmp");
    let status = Command::new("valgrind")
        .arg("--tool=lackey")
        .arg(kind.valgrind_flag())
        .arg(format!("--log-file={}", log.display()))
        .args(program)
        .status()
        .map_err(|e| CliError::failure(format!("cannot run valgrind: {e}")))?;
    let result = (|| {
        if !status.success() {
            eprintln!(
                "note: {} exited with {status}; keeping the trace of what it ran",
                program[0]
            );
        }
        let name = out.to_string_lossy();
        if name.trim_end_matches(".gz").ends_with(".lackey") {
            let raw = std::fs::read(&log)
                .map_err(|e| CliError::failure(format!("valgrind wrote no log: {e}")))?;
            let write = |w: &mut dyn std::io::Write| w.write_all(&raw);
            let f = std::fs::File::create(out)
                .map_err(|e| CliError::failure(format!("{}: {e}", out.display())))?;
            let r = if name.ends_with(".gz") {
                let mut gz = hwprof_sim::eval::trace::gz_writer(f);
                write(&mut gz).and_then(|_| gz.finish().map(|_| ()))
            } else {
                let mut f = f;
                write(&mut f)
            };
            r.map_err(|e| CliError::failure(format!("{}: {e}", out.display())))?;
            read_trace(out, Some(kind))
                .map(|e| e.len())
                .map_err(CliError::failure)
        } else {
            let ev = read_trace(&log, Some(kind)).map_err(CliError::failure)?;
            write_trace(out, &ev)
                .map_err(|e| CliError::failure(format!("{}: {e}", out.display())))?;
            Ok(ev.len())
        }
    })();
    let _ = std::fs::remove_file(&log);
    let n = result?;
    println!(
        "{}: {n} {} events from `{}`",
        out.display(),
        kind.name(),
        program.join(" ")
    );
    Ok(())
}
