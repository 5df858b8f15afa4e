//! `hwprof trace record|convert|stats`.

use super::progress::announce;
use super::{
    check_writable_file, load_trace_full, print_json, write_error, CliError, CmdResult, KindArg,
};
use hwprof_sim::eval::trace::{read_trace_full, stats, write_trace_kind, LackeyKind, STDIN};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

#[derive(clap::Subcommand)]
pub enum TraceCommand {
    /// Run a program under valgrind's lackey tool and write its trace.
    ///
    /// The output form follows the name: `.lackey` / `.lackey.gz` keep valgrind's log as it is,
    /// `.txt` writes text tuples, anything else the compact binary form; `.gz` compresses. The
    /// program's own output is left as it is; the summary goes to stderr (or stdout with --json),
    /// and the program's exit status is passed on.
    Record {
        /// What to record: edge (superblock edges), load (pc, address), branch (pc, taken)
        #[arg(long, value_enum)]
        kind: KindArg,
        /// Output trace file; checked writable before the program runs
        #[arg(short, long)]
        out: PathBuf,
        /// Print the summary as one JSON object on stdout
        #[arg(long)]
        json: bool,
        /// The program and its arguments (after `--`)
        #[arg(last = true, required = true)]
        program: Vec<String>,
    },
    /// Convert a trace to another form (chosen by OUTPUT's name, as for `record`; `-` writes the
    /// binary form to stdout). The kind of the tuples is recorded in the output.
    Convert {
        /// Input trace (lackey log, text or binary, .gz read transparently; `-` reads stdin)
        input: PathBuf,
        /// Output trace (.txt for text, anything else binary; .gz compresses; `-` is stdout)
        output: PathBuf,
        /// How to read a lackey log (checked against the kind a text or binary trace records)
        #[arg(long, value_enum)]
        kind: Option<KindArg>,
        /// Print the summary as one JSON object
        #[arg(long)]
        json: bool,
    },
    /// Events, distinct tuples and the ten most frequent tuples of a trace.
    Stats {
        /// Trace (lackey log, text or binary, .gz read transparently; `-` reads stdin)
        file: PathBuf,
        /// How to read a lackey log (checked against the kind a text or binary trace records)
        #[arg(long, value_enum)]
        kind: Option<KindArg>,
        /// Print one JSON object instead of text
        #[arg(long)]
        json: bool,
    },
}

/// What `record` and `convert` report.
#[derive(serde::Serialize)]
struct Written<'a> {
    output: String,
    events: usize,
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    program: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    program_exit_code: Option<i32>,
}

pub fn run(c: TraceCommand) -> CmdResult {
    match c {
        TraceCommand::Record {
            kind,
            out,
            json,
            program,
        } => record(kind.into(), &out, &program, json),
        TraceCommand::Convert {
            input,
            output,
            kind,
            json,
        } => {
            check_writable_file(&output)?;
            let t = load_trace_full(&input, kind)?;
            write_trace_kind(&output, &t.events, t.kind).map_err(|e| write_error(&output, e))?;
            let w = Written {
                output: output.display().to_string(),
                events: t.events.len(),
                kind: t.kind.map(LackeyKind::name),
                input: Some(input.display().to_string()),
                program: None,
                program_exit_code: None,
            };
            if json && output != Path::new(STDIN) {
                return print_json(&w);
            }
            let line = format!(
                "{}: {} {}events",
                w.output,
                w.events,
                w.kind.map_or(String::new(), |k| format!("{k} "))
            );
            if output == Path::new(STDIN) {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
            Ok(())
        }
        TraceCommand::Stats { file, kind, json } => {
            let t = load_trace_full(&file, kind)?;
            let s = stats(&t.events, 10);
            if json {
                let mut v = serde_json::to_value(&s).map_err(CliError::failure)?;
                v["kind"] = t.kind.map(LackeyKind::name).into();
                return print_json(&v);
            }
            println!("events    {}", s.events);
            println!("distinct  {}", s.distinct);
            if let Some(k) = t.kind {
                println!("kind      {}", k.name());
            }
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

fn record(kind: LackeyKind, out: &Path, program: &[String], json: bool) -> CmdResult {
    if Command::new("valgrind").arg("--version").output().is_err() {
        return Err(CliError::failure(
            "valgrind not found on PATH: install it (Debian: apt-get install valgrind)",
        ));
    }
    // Refuse an output that cannot be written before the (possibly long) run.
    let existed = out.exists();
    check_writable_file(out)?;
    let log = std::env::temp_dir().join(format!("hwprof-record-{}.lackey", std::process::id()));
    // The program owns the terminal while it runs: one line before it, no spinner over it.
    announce(
        "record",
        &format!(
            "running `{}` under valgrind lackey (tens of times slower than native)",
            program.join(" ")
        ),
    );
    let status = Command::new("valgrind")
        .arg("--tool=lackey")
        .arg(kind.valgrind_flag())
        .arg(format!("--log-file={}", log.display()))
        .args(program)
        .status()
        .map_err(|e| CliError::failure(format!("cannot run valgrind: {e}")));
    let result = status.and_then(|status| write_recorded(kind, &log, out).map(|n| (n, status)));
    let _ = std::fs::remove_file(&log);
    let (n, status) = match result {
        Ok(r) => r,
        Err(e) => {
            if !existed && out != Path::new(STDIN) {
                let _ = std::fs::remove_file(out);
            }
            return Err(e);
        }
    };
    let w = Written {
        output: out.display().to_string(),
        events: n,
        kind: Some(kind.name()),
        input: None,
        program: Some(program),
        program_exit_code: status.code(),
    };
    if json {
        print_json(&w)?;
    } else {
        eprintln!(
            "{}: {n} {} events from `{}`",
            w.output,
            kind.name(),
            program.join(" ")
        );
    }
    pass_on(status, &program[0])
}

/// The traced program's exit status becomes ours (128 + signal if it was killed).
fn pass_on(status: ExitStatus, program: &str) -> CmdResult {
    use std::os::unix::process::ExitStatusExt;
    if status.success() {
        return Ok(());
    }
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    Err(CliError {
        code,
        message: format!("{program} exited with {status}; the trace of what it ran is written"),
    })
}

/// Writes the trace of valgrind's log `log` to `out`; returns its events.
fn write_recorded(kind: LackeyKind, log: &Path, out: &Path) -> Result<usize, CliError> {
    let name = out.to_string_lossy();
    if name.trim_end_matches(".gz").ends_with(".lackey") {
        let raw = std::fs::read(log)
            .map_err(|e| CliError::failure(format!("valgrind wrote no log: {e}")))?;
        let f = std::fs::File::create(out).map_err(|e| write_error(out, e))?;
        let r = if name.ends_with(".gz") {
            let mut gz = hwprof_sim::eval::trace::gz_writer(f);
            std::io::Write::write_all(&mut gz, &raw).and_then(|_| gz.finish().map(|_| ()))
        } else {
            let mut f = f;
            std::io::Write::write_all(&mut f, &raw)
        };
        r.map_err(|e| write_error(out, e))?;
        read_trace_full(out, Some(kind))
            .map(|t| t.events.len())
            .map_err(CliError::failure)
    } else {
        let t = read_trace_full(log, Some(kind)).map_err(CliError::failure)?;
        write_trace_kind(out, &t.events, Some(kind)).map_err(|e| write_error(out, e))?;
        Ok(t.events.len())
    }
}
