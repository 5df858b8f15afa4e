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
    std::fs::write(path, s)
}

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
    available()?;
    let exe = dir.file("sim.vvp");
    let out = Command::new("iverilog")
        .arg("-g2012")
        .arg("-o")
        .arg(&exe)
        .arg("-s")
        .arg(top)
        .args(sources)
        .output()
        .map_err(|e| IcarusError(format!("cannot run iverilog: {e}")))?;
    if !out.status.success() {
        return Err(IcarusError(format!(
            "iverilog failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let start = std::time::Instant::now();
    let out = Command::new("vvp")
        .arg("-n")
        .arg(&exe)
        .current_dir(&dir.path)
        .output()
        .map_err(|e| IcarusError(format!("cannot run vvp: {e}")))?;
    let seconds = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(IcarusError(format!(
            "vvp failed:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok((stdout, seconds))
}
