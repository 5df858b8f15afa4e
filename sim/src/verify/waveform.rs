//! Waveforms on demand for every rust-hdl simulation of a block against its model: set
//! `HWPROF_VCD=DIR` and each run writes `DIR/<name>.vcd`. One place, so every block behaves alike.
//! (`hwprof cosim --vcd FILE` asks for one file explicitly.)

use rust_hdl::prelude::{Block, Simulation};

/// Runs `sim` on `uut` for at most `max_time`, writing `$HWPROF_VCD/<name>.vcd` when asked.
pub fn run<T: Send + 'static + Block>(
    mut sim: Simulation<T>,
    uut: T,
    max_time: u64,
    name: &str,
) -> Result<(), String> {
    let r = match std::env::var_os("HWPROF_VCD") {
        Some(dir) => {
            let path = std::path::Path::new(&dir).join(format!("{name}.vcd"));
            sim.run_to_file(Box::new(uut), max_time, &path.to_string_lossy())
        }
        None => sim.run(Box::new(uut), max_time),
    };
    r.map_err(|e| format!("rust-hdl simulation of {name} failed: {e:?}"))
}
