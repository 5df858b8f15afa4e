//! Cross-simulation of exported Verilog under Icarus Verilog (`iverilog` + `vvp`).
//!
//! rust-hdl's simulator runs the Rust description, not the Verilog it writes; these helpers run the
//! Verilog itself. Each block writes its own testbench (stimulus from `$readmemh` files, results
//! printed with `$display`) and compares what Icarus prints with its reference model.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why Icarus could not be used, or what it said.
#[derive(Debug)]
pub struct IcarusError(pub String);

impl std::fmt::Display for IcarusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IcarusError {}

/// Checks that `iverilog` and `vvp` are on PATH; the error says how to install them.
pub fn available() -> Result<(), IcarusError> {
    for tool in ["iverilog", "vvp"] {
        let ok = Command::new(tool)
            .arg("-V")
            .output()
            .map(|o| o.status.success() || !o.stdout.is_empty());
        if !matches!(ok, Ok(true)) {
            return Err(IcarusError(format!(
                "`{tool}` not found on PATH: install Icarus Verilog (Debian: apt-get install iverilog)"
            )));
        }
    }
    Ok(())
}

/// A scratch directory for one cross-simulation, removed on drop unless `HWPROF_KEEP_SIM` is set.
pub struct SimDir {
    pub path: PathBuf,
}

impl SimDir {
    pub fn new(tag: &str) -> std::io::Result<Self> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "hwprof-icarus-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path)?;
        Ok(SimDir { path })
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for SimDir {
    fn drop(&mut self) {
        if std::env::var_os("HWPROF_KEEP_SIM").is_none() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Writes a `$readmemh` file: one word per line, each `width` bits, from the given values
/// (`values[i]` is a list of u64 limbs, least significant first, for words wider than 64 bits).
pub fn write_memh(
    path: &Path,
    width: usize,
    values: impl IntoIterator<Item = Vec<u64>>,
) -> std::io::Result<()> {
    std::fs::write(path, memh(width, values))
}

/// The text of a `$readmemh` file (see [`write_memh`]).
pub fn memh(width: usize, values: impl IntoIterator<Item = Vec<u64>>) -> String {
    let digits = width.div_ceil(4);
    let mut s = String::new();
    for limbs in values {
        let mut hex = String::new();
        for limb in limbs.iter().rev() {
            write!(hex, "{limb:016x}").unwrap();
        }
        let hex = if hex.len() >= digits {
            hex[hex.len() - digits..].to_string()
        } else {
            format!("{hex:0>digits$}")
        };
        s.push_str(&hex);
        s.push('\n');
    }
    s
}

/// An external simulator of exported Verilog. Icarus is the reference cross-check; a Verilator
/// binary (`verilator --binary`) is the fast one, for designs Icarus evaluates too slowly (rust-hdl
/// writes one large `always @(*)` per module, which Icarus re-runs on every input change).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulator {
    Icarus,
    Verilator,
}

/// The longest a simulation may run before it is reported as hung rather than waited on forever.
const SIMULATION_LIMIT: std::time::Duration = std::time::Duration::from_secs(1800);

/// Compiles `sources` (the design and its testbench, `top` the testbench module) with
/// `iverilog -g2012` and runs it with `vvp`; returns what the simulation printed.
pub fn run(dir: &SimDir, sources: &[PathBuf], top: &str) -> Result<String, IcarusError> {
    run_timed(dir, sources, top).map(|(stdout, _)| stdout)
}

/// [`run`], also returning the seconds `vvp` took (compilation excluded): the simulator's speed.
pub fn run_timed(
    dir: &SimDir,
    sources: &[PathBuf],
    top: &str,
) -> Result<(String, f64), IcarusError> {
    run_with(Simulator::Icarus, dir, sources, top)
}

/// Compiles and runs `sources` under `simulator`; returns what the simulation printed and the
/// seconds the simulation itself took (compilation excluded).
pub fn run_with(
    simulator: Simulator,
    dir: &SimDir,
    sources: &[PathBuf],
    top: &str,
) -> Result<(String, f64), IcarusError> {
    let exe = match simulator {
        Simulator::Icarus => {
            available()?;
            let exe = dir.file("sim.vvp");
            let mut c = Command::new("iverilog");
            c.arg("-g2012")
                .arg("-o")
                .arg(&exe)
                .arg("-s")
                .arg(top)
                .args(sources);
            compile(c, "iverilog")?;
            let mut run = Command::new("vvp");
            run.arg("-n").arg(exe);
            run
        }
        Simulator::Verilator => {
            verilator_available()?;
            let obj = dir.file("obj");
            let mut c = Command::new("verilator");
            c.args([
                "--binary",
                "--timing",
                "-O1",
                "-Wno-fatal",
                "-Wno-lint",
                "-Wno-style",
            ])
            .arg("--top-module")
            .arg(top)
            .arg("-Mdir")
            .arg(&obj)
            .args(sources);
            compile(c, "verilator")?;
            Command::new(obj.join(format!("V{top}")))
        }
    };
    let mut run = exe;
    run.current_dir(&dir.path);
    let start = std::time::Instant::now();
    let (ok, stdout, stderr) = output_within(run, SIMULATION_LIMIT)?;
    let seconds = start.elapsed().as_secs_f64();
    if !ok {
        return Err(IcarusError(format!(
            "{simulator:?} simulation failed:\n{stdout}{stderr}"
        )));
    }
    Ok((stdout, seconds))
}

/// Checks that `verilator` is on PATH; the error says how to install it.
pub fn verilator_available() -> Result<(), IcarusError> {
    match Command::new("verilator").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err(IcarusError(
            "`verilator` not found on PATH: install Verilator 5 (Debian: apt-get install verilator)"
                .into(),
        )),
    }
}

fn compile(mut c: Command, tool: &str) -> Result<(), IcarusError> {
    let out = c
        .output()
        .map_err(|e| IcarusError(format!("cannot run {tool}: {e}")))?;
    if !out.status.success() {
        return Err(IcarusError(format!(
            "{tool} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(())
}

/// Runs `c` to completion, or kills it after `limit`: a hung simulation is an error, not a wait.
fn output_within(
    mut c: Command,
    limit: std::time::Duration,
) -> Result<(bool, String, String), IcarusError> {
    use std::io::Read;
    use std::process::Stdio;
    let name = c.get_program().to_string_lossy().into_owned();
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| IcarusError(format!("cannot run {name}: {e}")))?;
    // Readers drain the pipes while we wait, so a chatty simulation cannot block on a full pipe.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            String::from_utf8_lossy(&v).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped")));
    let err = drain(Box::new(child.stderr.take().expect("piped")));
    let start = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(IcarusError(format!(
                    "{name} still running after {} s: killed (a hung or far too long simulation)",
                    limit.as_secs()
                )));
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(20)),
            Err(e) => return Err(IcarusError(format!("waiting for {name}: {e}"))),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Ok((status.success(), stdout, stderr))
}
