//! The programs `hwprof soc` runs and how they are built: riscv64-unknown-elf-gcc for RV32IM
//! (`-march=rv32im -mabi=ilp32`), freestanding, with this crate's start-up code and linker script
//! (`programs/`), into an ELF and the RAM image the system loads.

use super::SocError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cross compiler's prefix (Debian package `gcc-riscv64-unknown-elf`).
pub const CROSS: &str = "riscv64-unknown-elf-";

pub(crate) const INSTALL_CROSS: &str =
    "install the RISC-V cross compiler (Debian: apt-get install gcc-riscv64-unknown-elf)";
pub(crate) const INSTALL_PICORV32: &str = "run `bash scripts/venv.sh` from the repository root: it installs PyPI pythondata-cpu-picorv32 into ./.venv (or point HWPROF_PICORV32 at a directory holding picorv32.v)";

/// Dhrystone's runs in a full run (the package's 100 with `short`): about 1.1 M instructions.
pub const DHRYSTONE_RUNS: u32 = 3000;

/// Where a program's sources come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Dhrystone from the PicoRV32 package (its own printf and heap, `stdlib.c`).
    Dhrystone,
    /// A test program of the PicoRV32 firmware (`firmware/<name>.c`), called from a `main`.
    Firmware,
    /// A kernel of this crate's `programs/`.
    Kernel,
}

/// A program `hwprof soc` can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program {
    pub name: &'static str,
    pub about: &'static str,
    origin: Origin,
}

/// Every program, in the order they are listed.
pub const PROGRAMS: &[Program] = &[
    Program {
        name: "dhrystone",
        about: "Dhrystone 2.1, 3000 runs, 100 with --short (PicoRV32 package)",
        origin: Origin::Dhrystone,
    },
    Program {
        name: "sieve",
        about: "sieve of Eratosthenes (PicoRV32 firmware)",
        origin: Origin::Firmware,
    },
    Program {
        name: "multest",
        about: "multiply/divide self-test (PicoRV32 firmware)",
        origin: Origin::Firmware,
    },
    Program {
        name: "stats",
        about: "cycle and instruction counters (PicoRV32 firmware)",
        origin: Origin::Firmware,
    },
    Program {
        name: "sort",
        about: "quicksort of pseudo-random arrays",
        origin: Origin::Kernel,
    },
    Program {
        name: "crc",
        about: "table-driven CRC-32 of a buffer",
        origin: Origin::Kernel,
    },
    Program {
        name: "matmul",
        about: "integer matrix multiply",
        origin: Origin::Kernel,
    },
    Program {
        name: "hash",
        about: "word counting in an open-addressing hash table",
        origin: Origin::Kernel,
    },
];

/// This crate's program sources, embedded so that the binary builds them from anywhere.
const SOURCES: &[(&str, &str)] = &[
    ("crt0.S", include_str!("../../programs/crt0.S")),
    ("link.ld", include_str!("../../programs/link.ld")),
    ("soc.h", include_str!("../../programs/soc.h")),
    ("runtime.c", include_str!("../../programs/runtime.c")),
    (
        "firmware_main.c",
        include_str!("../../programs/firmware_main.c"),
    ),
    ("sort.c", include_str!("../../programs/sort.c")),
    ("crc.c", include_str!("../../programs/crc.c")),
    ("matmul.c", include_str!("../../programs/matmul.c")),
    ("hash.c", include_str!("../../programs/hash.c")),
];

impl Program {
    pub fn parse(name: &str) -> Result<Program, SocError> {
        PROGRAMS
            .iter()
            .copied()
            .find(|p| p.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = PROGRAMS.iter().map(|p| p.name).collect();
                SocError::Input(format!(
                    "unknown program {name:?}: one of {}",
                    names.join(", ")
                ))
            })
    }

    /// Whether `short` changes the program (the kernels have short inputs; the package's
    /// programs are what they are).
    pub fn has_short_input(&self) -> bool {
        self.origin != Origin::Firmware
    }

    /// Whether `main` returns a status: Dhrystone's (pre-ANSI, no `return`) returns whatever is
    /// in a0.
    pub fn returns_status(&self) -> bool {
        self.origin != Origin::Dhrystone
    }
}

/// The directory of the PicoRV32 package's Verilog and programs: `HWPROF_PICORV32`, else the
/// package installed in the nearest `.venv` (from the working directory up, then the repository).
pub fn picorv32_dir() -> Result<PathBuf, SocError> {
    if let Some(d) = std::env::var_os("HWPROF_PICORV32") {
        let d = PathBuf::from(d);
        return if d.join("picorv32.v").is_file() {
            Ok(d)
        } else {
            Err(SocError::Missing(format!(
                "HWPROF_PICORV32={} holds no picorv32.v: {INSTALL_PICORV32}",
                d.display()
            )))
        };
    }
    if let Some(d) = venv_package("pythondata_cpu_picorv32", "picorv32.v") {
        return Ok(d);
    }
    Err(SocError::Missing(format!(
        "PicoRV32 (PyPI pythondata-cpu-picorv32) not found in a .venv: {INSTALL_PICORV32}"
    )))
}

/// The data directory (`data_location`) of the PyPI package `module` installed in the nearest
/// `.venv` (from the working directory up, then the repository), if it holds `marker`.
pub(crate) fn venv_package(module: &str, marker: &str) -> Option<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        roots.extend(cwd.ancestors().map(Path::to_path_buf));
    }
    roots.extend(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .map(Path::to_path_buf),
    );
    for root in roots {
        let python = root.join(".venv/bin/python");
        if !python.is_file() {
            continue;
        }
        let out = Command::new(&python)
            .args([
                "-c",
                &format!("import {module} as p; print(p.data_location)"),
            ])
            .output();
        if let Ok(o) = out {
            let d = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            if o.status.success() && d.join(marker).is_file() {
                return Some(d);
            }
        }
    }
    None
}

/// Checks that the cross compiler runs; the error names the package to install.
pub fn cross_available() -> Result<(), SocError> {
    match Command::new(format!("{CROSS}gcc"))
        .arg("--version")
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err(SocError::Missing(format!(
            "`{CROSS}gcc` not found on PATH: {INSTALL_CROSS}"
        ))),
    }
}

/// A built program: its ELF (for symbols) and the RAM image, one little-endian word per entry.
#[derive(Debug, Clone)]
pub struct Built {
    pub elf: PathBuf,
    pub words: Vec<u32>,
}

fn run_tool(c: &mut Command, what: &str) -> Result<(), SocError> {
    let out = c
        .output()
        .map_err(|e| SocError::Missing(format!("cannot run {what}: {e}: {INSTALL_CROSS}")))?;
    if !out.status.success() {
        return Err(SocError::Failure(format!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(())
}

/// Compiles `program` in `dir` (`short`: the kernels' short inputs) into `dir/<name>.elf` and its
/// RAM image for RV32IM, linked for a RAM of `ram_bytes` (the stack at its top), which bounds the
/// image.
pub fn build(
    program: Program,
    short: bool,
    dir: &Path,
    ram_bytes: usize,
) -> Result<Built, SocError> {
    build_for(program, short, dir, ram_bytes, true)
}

/// [`build`] for RV32IM (`m`) or RV32I: without the M extension, multiplications and divisions
/// are libgcc calls, and a program that uses M instructions itself (multest) is refused.
pub fn build_for(
    program: Program,
    short: bool,
    dir: &Path,
    ram_bytes: usize,
    m: bool,
) -> Result<Built, SocError> {
    if !m && program.name == "multest" {
        return Err(SocError::Input(
            "multest tests the M extension's instructions, which this CPU is built without".into(),
        ));
    }
    if ram_bytes % 1024 != 0 {
        return Err(SocError::Failure(format!(
            "a RAM of {ram_bytes} bytes: not a whole number of KiB"
        )));
    }
    cross_available()?;
    let src = dir.join("src");
    std::fs::create_dir_all(&src)
        .map_err(|e| SocError::Failure(format!("{}: {e}", src.display())))?;
    for (name, text) in SOURCES {
        let text = if *name == "link.ld" {
            text.replace("LENGTH = 256K", &format!("LENGTH = {}K", ram_bytes / 1024))
        } else {
            text.to_string()
        };
        std::fs::write(src.join(name), text)
            .map_err(|e| SocError::Failure(format!("{}: {e}", src.display())))?;
    }
    let elf = dir.join(format!("{}.elf", program.name));
    let mut gcc = Command::new(format!("{CROSS}gcc"));
    gcc.args([
        if m { "-march=rv32im" } else { "-march=rv32i" },
        "-mabi=ilp32",
        "-O2",
        "-g",
        "-ffreestanding",
        "-nostdlib",
    ])
    .arg(format!("-I{}", src.display()))
    .arg("-T")
    .arg(src.join("link.ld"))
    .args(["-Wl,--gc-sections", "-Wl,--no-warn-rwx-segments", "-o"])
    .arg(&elf)
    .arg(src.join("crt0.S"))
    .arg(src.join("runtime.c"));
    if short {
        gcc.arg("-DSHORT");
    }
    match program.origin {
        Origin::Kernel => {
            gcc.arg(src.join(format!("{}.c", program.name)));
        }
        Origin::Dhrystone => {
            let d = picorv32_dir()?.join("dhrystone");
            // The package fixes 100 runs (about 60 k instructions); the copy built here runs more.
            let main = std::fs::read_to_string(d.join("dhry_1.c")).map_err(|e| {
                SocError::Missing(format!("{}: {e}: {INSTALL_PICORV32}", d.display()))
            })?;
            let runs = if short { 100 } else { DHRYSTONE_RUNS };
            let fixed = "Number_Of_Runs = 100;";
            if !main.contains(fixed) {
                return Err(SocError::Failure(format!(
                    "{}/dhry_1.c no longer sets `{fixed}`: the run count cannot be set",
                    d.display()
                )));
            }
            let patched = src.join("dhry_1.c");
            std::fs::write(
                &patched,
                main.replace(fixed, &format!("Number_Of_Runs = {runs};")),
            )
            .map_err(|e| SocError::Failure(format!("{}: {e}", patched.display())))?;
            gcc.args(["-DUSE_MYSTDLIB", "-DTIME", "-DRISCV"])
                .arg(format!("-I{}", d.display()))
                .args(["-Wno-implicit-int", "-Wno-implicit-function-declaration"])
                .arg(patched)
                .args(["dhry_2.c", "stdlib.c"].map(|f| d.join(f)));
        }
        Origin::Firmware => {
            let d = picorv32_dir()?.join("firmware");
            gcc.arg(format!("-DFIRMWARE_PROGRAM={}", program.name))
                .arg(format!("-I{}", d.display()))
                .arg(src.join("firmware_main.c"))
                .arg(d.join(format!("{}.c", program.name)))
                .arg(d.join("print.c"));
        }
    }
    gcc.arg("-lgcc");
    run_tool(&mut gcc, &format!("{CROSS}gcc ({})", program.name))?;
    let bin = dir.join(format!("{}.bin", program.name));
    run_tool(
        Command::new(format!("{CROSS}objcopy"))
            .args(["-O", "binary"])
            .arg(&elf)
            .arg(&bin),
        &format!("{CROSS}objcopy"),
    )?;
    let bytes =
        std::fs::read(&bin).map_err(|e| SocError::Failure(format!("{}: {e}", bin.display())))?;
    if bytes.len() > ram_bytes {
        return Err(SocError::Failure(format!(
            "{}: image of {} bytes exceeds the system's RAM of {ram_bytes}",
            program.name,
            bytes.len()
        )));
    }
    let words = bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect();
    Ok(Built { elf, words })
}

/// Function symbols of an ELF (`nm -n`), sorted by address, to name program counters.
#[derive(Debug, Clone, Default)]
pub struct Symbols(Vec<(u64, String)>);

impl Symbols {
    pub fn read(elf: &Path) -> Result<Symbols, SocError> {
        let out = Command::new(format!("{CROSS}nm"))
            .arg("-n")
            .arg(elf)
            .output()
            .map_err(|e| {
                SocError::Missing(format!("cannot run {CROSS}nm: {e}: {INSTALL_CROSS}"))
            })?;
        if !out.status.success() {
            return Err(SocError::Failure(format!(
                "{CROSS}nm {}: {}",
                elf.display(),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(Symbols::parse(&String::from_utf8_lossy(&out.stdout)))
    }

    /// Parses `nm -n` lines (`address type name`), keeping text symbols.
    pub fn parse(nm: &str) -> Symbols {
        let mut v: Vec<(u64, String)> = nm
            .lines()
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                let (addr, kind, name) = (it.next()?, it.next()?, it.next()?);
                let text = matches!(kind, "T" | "t") && !name.starts_with(".L");
                text.then(|| Some((u64::from_str_radix(addr, 16).ok()?, name.to_string())))?
            })
            .collect();
        v.sort();
        Symbols(v)
    }

    /// `function+offset` of an address, or the address in hex when no symbol precedes it.
    pub fn name(&self, addr: u64) -> String {
        match self.0.partition_point(|(a, _)| *a <= addr) {
            0 => format!("{addr:#x}"),
            i => {
                let (base, name) = &self.0[i - 1];
                if addr == *base {
                    name.clone()
                } else {
                    format!("{name}+{:#x}", addr - base)
                }
            }
        }
    }
}

/// `file:line` of each address (`addr2line -s`; `??:?` where the ELF has no line for it).
pub fn source_lines(elf: &Path, addrs: &[u64]) -> Result<Vec<String>, SocError> {
    if addrs.is_empty() {
        return Ok(Vec::new());
    }
    let out = Command::new(format!("{CROSS}addr2line"))
        .arg("-s")
        .arg("-e")
        .arg(elf)
        .args(addrs.iter().map(|a| format!("{a:#x}")))
        .output()
        .map_err(|e| {
            SocError::Missing(format!("cannot run {CROSS}addr2line: {e}: {INSTALL_CROSS}"))
        })?;
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        // addr2line appends " (discriminator N)" to some lines.
        .map(|l| l.split(" (").next().unwrap_or(l).to_string())
        .collect();
    if !out.status.success() || lines.len() != addrs.len() {
        return Err(SocError::Failure(format!(
            "{CROSS}addr2line {}: {}",
            elf.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_name_addresses_by_the_preceding_function() {
        let s = Symbols::parse(
            "00000000 T _start\n00000040 t hard_mul\n00000100 T main\n00000200 D data\n",
        );
        assert_eq!(s.name(0x100), "main");
        assert_eq!(s.name(0x108), "main+0x8");
        assert_eq!(s.name(0x44), "hard_mul+0x4");
        assert_eq!(s.name(0x300), "main+0x200");
    }

    #[test]
    fn unknown_programs_are_refused_with_the_list() {
        let e = Program::parse("nope").unwrap_err();
        assert!(
            matches!(&e, SocError::Input(m) if m.contains("dhrystone") && m.contains("crc")),
            "{e}"
        );
    }
}
