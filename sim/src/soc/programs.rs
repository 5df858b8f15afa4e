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
    ("readout.S", include_str!("../../programs/readout.S")),
    ("readout.c", include_str!("../../programs/readout.c")),
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

/// A program to run: one of [`PROGRAMS`], the user's C sources, or an ELF the user linked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramSource {
    Bundled(Program),
    /// C files compiled with this crate's start-up code and runtime like the kernels: `int
    /// main(void)`, whose return value is the exit status; freestanding headers and `soc.h`.
    C {
        files: Vec<PathBuf>,
        cflags: Vec<String>,
    },
    /// An ELF linked for the memory map: loadable segments in the RAM, entry 0.
    Elf(PathBuf),
}

impl ProgramSource {
    /// The name runs are reported under: a bundled program's, else the (first) file's stem.
    pub fn name(&self) -> String {
        let stem = |p: &Path| {
            p.file_stem()
                .map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into())
        };
        match self {
            ProgramSource::Bundled(p) => p.name.to_string(),
            ProgramSource::C { files, .. } => files.first().map_or_else(String::new, |f| stem(f)),
            ProgramSource::Elf(path) => stem(path),
        }
    }

    /// Whether `short` means anything: a bundled program's short input, or `SHORT` for C sources.
    pub fn has_short_input(&self) -> bool {
        match self {
            ProgramSource::Bundled(p) => p.has_short_input(),
            ProgramSource::C { .. } => true,
            ProgramSource::Elf(_) => false,
        }
    }

    /// Whether a nonzero exit status is an error: the bundled programs check themselves; a user
    /// program's status is only reported.
    pub fn status_is_checked(&self) -> bool {
        matches!(self, ProgramSource::Bundled(p) if p.returns_status())
    }
}

/// The system a program is built for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildTarget {
    /// RAM bytes from address 0; the stack starts at the top.
    pub ram_bytes: usize,
    /// The CPU's M extension (RV32IM, else RV32I).
    pub m: bool,
    /// The system's name in messages ("simulated system", "ulx3s system").
    pub system: String,
    /// The bus readout's start-up code for this CPU, and the header of its slaves (the register
    /// map of the system's profiler), or none.
    pub readout: Option<ReadoutBuild>,
}

/// What a program drains the profilers' Wishbone slaves with (sim/programs/readout.c).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadoutBuild {
    pub cpu: super::cpu::Cpu,
    /// `hwprof_soc_readout.h`, generated from the register map.
    pub header: String,
    /// The registers' names and offsets, for the handler in assembly.
    pub registers: Vec<(String, u32)>,
    /// The value the start-up code writes to the slaves' IRQ_LEVEL.
    pub irq_level: u32,
    /// The base address of a report writer ([`hwprof_hdl::readout::writer`]) that moves the
    /// reports into the buffer, or none: the program drains them on the slaves' interrupt.
    pub writer: Option<u32>,
}

/// A file the user named: it must be a readable file.
fn read_input(path: &Path) -> Result<Vec<u8>, SocError> {
    let bad = |why: String| SocError::Input(format!("{}: {why}", path.display()));
    if path.is_dir() {
        return Err(bad("a directory, not a file".into()));
    }
    std::fs::read(path).map_err(|e| bad(e.to_string()))
}

/// Builds `source` (`short`: the short inputs) in `dir` for `target`: the ELF (the user's for
/// [`ProgramSource::Elf`], else `dir/<name>.elf`) and the RAM image its loadable segments make.
pub fn build(
    source: &ProgramSource,
    short: bool,
    dir: &Path,
    target: &BuildTarget,
) -> Result<Built, SocError> {
    let elf = match source {
        ProgramSource::Elf(path) if target.readout.is_some() => {
            return Err(SocError::Input(format!(
                "{}: the bus readout is start-up code hwprof compiles into bundled and --c programs; \
                 an ELF linked elsewhere cannot have it (use --readout stream, or --c)",
                path.display()
            )))
        }
        ProgramSource::Elf(path) => path.clone(),
        _ => compile(source, short, dir, target)?,
    };
    let bytes = match source {
        ProgramSource::Elf(path) => read_input(path)?,
        _ => {
            std::fs::read(&elf).map_err(|e| SocError::Failure(format!("{}: {e}", elf.display())))?
        }
    };
    // Messages name the user's files, not an ELF in a scratch directory.
    let what = match source {
        ProgramSource::C { files, .. } => display_files(files),
        _ => elf.display().to_string(),
    };
    let words = load_elf(&what, &bytes, target)?;
    if let ProgramSource::C { files, .. } = source {
        if !has_main(&bytes) {
            return Err(SocError::Input(format!(
                "{}: no function `main`: a program defines `int main(void)`, whose return value is its exit status",
                display_files(files)
            )));
        }
    }
    Ok(Built { elf, words })
}

fn display_files(files: &[PathBuf]) -> String {
    let v: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    v.join(", ")
}

/// Whether an ELF defines the function `main`.
fn has_main(bytes: &[u8]) -> bool {
    use object::{Object, ObjectSymbol, SymbolKind};
    object::File::parse(bytes).is_ok_and(|f| {
        f.symbols()
            .any(|s| s.name() == Ok("main") && s.kind() == SymbolKind::Text)
    })
}

/// `EM_RISCV` of the ELF specification.
const EM_RISCV: u16 = 243;

/// The RAM image of an ELF: its loadable segments (`PT_LOAD`) at their physical addresses, gaps
/// zero-filled, up to the end of the last one's file data (the RAM starts zeroed and the start-up
/// code clears `.bss`); one little-endian word per entry. The ELF must be 32-bit little-endian
/// RISC-V, enter at 0 (the CPU's reset address), and fit the RAM whole (`.bss` included). `what`
/// names the program in messages.
pub fn load_elf(what: &str, bytes: &[u8], target: &BuildTarget) -> Result<Vec<u32>, SocError> {
    use object::elf::{FileHeader32, PT_LOAD};
    use object::read::elf::{FileHeader, ProgramHeader};
    use object::LittleEndian as LE;
    let bad = |why: String| SocError::Input(format!("{what}: {why}"));
    if bytes.len() < 20 || &bytes[..4] != b"\x7fELF" {
        return Err(bad("not an ELF file".into()));
    }
    let (class, little) = (bytes[4], bytes[5] == 1);
    let m = [bytes[18], bytes[19]];
    let machine = if little {
        u16::from_le_bytes(m)
    } else {
        u16::from_be_bytes(m)
    };
    if machine != EM_RISCV {
        return Err(bad(format!(
            "an ELF for machine {machine}, not RISC-V (EM_RISCV = {EM_RISCV})"
        )));
    }
    if class != 1 {
        return Err(bad(
            "a 64-bit RISC-V ELF: the CPU is RV32 (link with -march=rv32im -mabi=ilp32)".into(),
        ));
    }
    if !little {
        return Err(bad("a big-endian ELF: the system is little-endian".into()));
    }
    let header =
        FileHeader32::<LE>::parse(bytes).map_err(|e| bad(format!("malformed ELF: {e}")))?;
    let entry = header.e_entry(LE);
    if entry != 0 {
        return Err(bad(format!(
            "entry point {entry:#x}: the CPU starts at address 0, so the entry must be 0"
        )));
    }
    let segments = header
        .program_headers(LE, bytes)
        .map_err(|e| bad(format!("malformed ELF: {e}")))?;
    let ram = target.ram_bytes as u64;
    let (mut end, mut file_end) = (0u64, 0u64);
    let mut pieces: Vec<(u64, &[u8])> = Vec::new();
    for ph in segments {
        let memsz = u64::from(ph.p_memsz(LE));
        if ph.p_type(LE) != PT_LOAD || memsz == 0 {
            continue;
        }
        let data = ph
            .data(LE, bytes)
            .map_err(|()| bad("malformed ELF: a segment's data lies beyond the file".into()))?;
        if data.len() as u64 > memsz {
            return Err(bad(
                "malformed ELF: a segment's file size exceeds its memory size".into(),
            ));
        }
        // Where it is loaded and where it runs: both must be RAM.
        for start in [u64::from(ph.p_paddr(LE)), u64::from(ph.p_vaddr(LE))] {
            if start >= ram {
                return Err(bad(format!(
                    "a loadable segment at {start:#x}..{:#x} lies outside the RAM [0, {ram:#x}) of the {}",
                    start + memsz,
                    target.system
                )));
            }
            end = end.max(start + memsz);
        }
        let at = u64::from(ph.p_paddr(LE));
        file_end = file_end.max(at + data.len() as u64);
        pieces.push((at, data));
    }
    if pieces.is_empty() {
        return Err(bad("no loadable segment (PT_LOAD)".into()));
    }
    if end > ram {
        return Err(bad(format!(
            "the image takes {end} bytes (up to {end:#x}), more than the RAM of {ram} bytes of the {}",
            target.system
        )));
    }
    let mut image = vec![0u8; file_end as usize];
    for (at, data) in pieces {
        image[at as usize..at as usize + data.len()].copy_from_slice(data);
    }
    Ok(image
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect())
}

/// Compiles a bundled program or C sources in `dir` into `dir/<name>.elf` for `target`: RV32IM
/// or RV32I (without the M extension multiplications and divisions are libgcc calls, and a
/// program that uses M instructions itself, multest, is refused), the stack at the RAM's top.
fn compile(
    source: &ProgramSource,
    short: bool,
    dir: &Path,
    target: &BuildTarget,
) -> Result<PathBuf, SocError> {
    let m = target.m;
    if let ProgramSource::Bundled(p) = source {
        if !m && p.name == "multest" {
            return Err(SocError::Input(
                "multest tests the M extension's instructions, which this CPU is built without"
                    .into(),
            ));
        }
    }
    if let ProgramSource::C { files, .. } = source {
        if files.is_empty() {
            return Err(SocError::Input("no C file given".into()));
        }
        for f in files {
            read_input(f)?;
        }
    }
    cross_available()?;
    let src = dir.join("src");
    std::fs::create_dir_all(&src)
        .map_err(|e| SocError::Failure(format!("{}: {e}", src.display())))?;
    for (name, text) in SOURCES {
        std::fs::write(src.join(name), text)
            .map_err(|e| SocError::Failure(format!("{}: {e}", src.display())))?;
    }
    let name = source.name();
    let elf = dir.join(format!("{name}.elf"));
    let mut gcc = Command::new(format!("{CROSS}gcc"));
    gcc.args([
        if m { "-march=rv32im" } else { "-march=rv32i" },
        "-mabi=ilp32",
        "-O2",
        "-g",
        "-ffreestanding",
        "-nostdlib",
    ]);
    if let ProgramSource::C { files, cflags } = source {
        // The user's include directories first, then this crate's (soc.h); their flags last, to
        // override ours.
        let mut dirs: Vec<PathBuf> = Vec::new();
        for f in files {
            let d = f.parent().filter(|d| !d.as_os_str().is_empty());
            let d = d.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
        gcc.args(dirs.iter().map(|d| format!("-I{}", d.display())));
        gcc.args(cflags);
    }
    gcc.arg(format!("-I{}", src.display()))
        .arg("-T")
        .arg(src.join("link.ld"))
        .arg(format!("-Wl,--defsym=__stack_top={}", target.ram_bytes))
        .args(["-Wl,--gc-sections", "-Wl,--no-warn-rwx-segments", "-o"])
        .arg(&elf)
        .arg(src.join("crt0.S"))
        .arg(src.join("runtime.c"));
    if let Some(r) = &target.readout {
        let header = src.join("hwprof_soc_readout.h");
        std::fs::write(&header, &r.header)
            .map_err(|e| SocError::Failure(format!("{}: {e}", header.display())))?;
        use super::cpu::{Cpu, MAIN_END_PORT, READOUT_BASE};
        let cpu = match r.cpu {
            Cpu::PicoRv32 => "HWPROF_CPU_PICORV32",
            Cpu::Serv => "HWPROF_CPU_SERV",
        };
        gcc.args([
            "-DHWPROF_READOUT".to_string(),
            format!("-D{cpu}"),
            format!("-DHWPROF_READOUT_BASE={READOUT_BASE:#x}"),
            format!("-DHWPROF_MAIN_END={MAIN_END_PORT:#x}"),
            format!("-DHWPROF_IRQ_LEVEL={}u", r.irq_level),
        ])
        .args(
            r.registers
                .iter()
                .map(|(name, off)| format!("-DHWPROF_REG_{name}={off:#x}")),
        )
        .args(
            r.writer
                .map(hwprof_hdl::readout::writer::c_defines)
                .unwrap_or_default(),
        )
        .arg(src.join("readout.S"))
        .arg(src.join("readout.c"));
    }
    if short {
        gcc.arg("-DSHORT");
    }
    let program = match source {
        ProgramSource::Bundled(p) => *p,
        ProgramSource::C { files, .. } => {
            gcc.args(files).arg("-lgcc");
            let out = gcc.output().map_err(|e| {
                SocError::Missing(format!("cannot run {CROSS}gcc: {e}: {INSTALL_CROSS}"))
            })?;
            if !out.status.success() {
                let text = String::from_utf8_lossy(&out.stderr);
                let why = if text.contains("undefined reference to `main'") {
                    "no function `main` (a program defines `int main(void)`, whose return value is its exit status)"
                } else {
                    "does not compile"
                };
                return Err(SocError::Input(format!(
                    "{}: {why}:\n{text}",
                    display_files(files)
                )));
            }
            return Ok(elf);
        }
        ProgramSource::Elf(path) => {
            return Err(SocError::Failure(format!(
                "{}: an ELF is loaded, not compiled",
                path.display()
            )))
        }
    };
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
    Ok(elf)
}

/// The names and source lines of a built program's addresses.
pub fn symbols(elf: &Path) -> Result<crate::eval::symbols::Symbolizer, SocError> {
    crate::eval::symbols::Symbolizer::read(elf).map_err(SocError::Failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> BuildTarget {
        BuildTarget {
            ram_bytes: 256 * 1024,
            m: true,
            system: "test system".into(),
            readout: None,
        }
    }

    /// Builds C source `text` (as `name`) for [`target`] in a scratch directory.
    fn build_c(name: &str, text: &str) -> (crate::verify::icarus::SimDir, Result<Built, SocError>) {
        cross_available().expect("these tests need the cross compiler");
        let dir = crate::verify::icarus::SimDir::new("programs-test").unwrap();
        let file = dir.file(name);
        std::fs::write(&file, text).unwrap();
        let source = ProgramSource::C {
            files: vec![file],
            cflags: vec!["-DSTEPS=3".into()],
        };
        let r = build(&source, false, &dir.path, &target());
        (dir, r)
    }

    /// The message of an input error, or a failure of the test.
    fn input_error(r: Result<Built, SocError>) -> String {
        match r {
            Err(SocError::Input(m)) => m,
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    const TINY: &str = "#include \"soc.h\"\nstatic int zeros[1000];\n\
        int main(void) { int s = 0; for (int i = 0; i < STEPS; i++) s += zeros[i]; return s; }\n";

    #[test]
    fn a_c_program_loads_from_its_segments_without_its_bss() {
        let (_dir, r) = build_c("tiny.c", TINY);
        let built = r.unwrap();
        // The first instruction of crt0.S: li x1, 0 (addi x1, x0, 0).
        assert_eq!(built.words[0], 0x0000_0093);
        // The image ends with the file's data: the 4000 bytes of zeros are .bss.
        assert!(built.words.len() < 1000, "{} words", built.words.len());
        let bytes = std::fs::read(&built.elf).unwrap();
        assert!(has_main(&bytes));
        // The same ELF given as a user's ELF loads to the same image.
        let again = build(
            &ProgramSource::Elf(built.elf.clone()),
            false,
            Path::new("/"),
            &target(),
        );
        assert_eq!(again.unwrap().words, built.words);
    }

    #[test]
    fn elfs_that_are_not_for_the_system_are_refused_with_the_reason() {
        let (dir, r) = build_c("tiny.c", TINY);
        let good = std::fs::read(r.unwrap().elf).unwrap();
        let load = |bytes: &[u8]| {
            let path = dir.file("patched.elf");
            std::fs::write(&path, bytes).unwrap();
            input_error(build(
                &ProgramSource::Elf(path),
                false,
                &dir.path,
                &target(),
            ))
        };
        // This test's own binary: an ELF for the host.
        let host = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        assert!(load(&host).contains("not RISC-V"), "{}", load(&host));
        assert!(load(b"#!/bin/sh\n").contains("not an ELF"));
        let patched = |at: usize, value: &[u8]| {
            let mut b = good.clone();
            b[at..at + value.len()].copy_from_slice(value);
            load(&b)
        };
        assert!(patched(4, &[2]).contains("64-bit"));
        // Big-endian: the machine field reads byte-swapped, which is not RISC-V either.
        assert!(patched(5, &[2]).contains("not RISC-V"));
        let e = patched(24, &0x100u32.to_le_bytes());
        assert!(e.contains("entry point 0x100"), "{e}");
        let missing = dir.file("missing.elf");
        let e = input_error(build(
            &ProgramSource::Elf(missing.clone()),
            false,
            &dir.path,
            &target(),
        ));
        assert!(e.contains(&missing.display().to_string()), "{e}");
    }

    #[test]
    fn a_segment_outside_the_ram_is_refused() {
        cross_available().expect("this test needs the cross compiler");
        let dir = crate::verify::icarus::SimDir::new("programs-test").unwrap();
        let src = dir.file("far.c");
        std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
        let elf = dir.file("far.elf");
        let out = Command::new(format!("{CROSS}gcc"))
            .args([
                "-march=rv32i",
                "-mabi=ilp32",
                "-nostdlib",
                "-Wl,-Ttext=0x80000000",
            ])
            .args(["-Wl,--entry=0", "-o"])
            .arg(&elf)
            .arg(&src)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let e = input_error(build(&ProgramSource::Elf(elf), false, &dir.path, &target()));
        assert!(
            e.contains("far.elf: a loadable segment at 0x7")
                && e.contains("outside the RAM [0, 0x40000) of the test system"),
            "{e}"
        );
    }

    #[test]
    fn c_programs_too_large_without_main_or_not_compiling_are_refused() {
        let big = "static volatile char big[300 * 1024];\nint main(void) { return big[7]; }\n";
        let e = input_error(build_c("big.c", big).1);
        assert!(
            e.contains("big.c")
                && e.contains("bytes")
                && e.contains("262144 bytes of the test system"),
            "{e}"
        );
        let e = input_error(build_c("nomain.c", "int f(void) { return 0; }\n").1);
        assert!(e.contains("nomain.c: no function `main`"), "{e}");
        // `main` defined, but not as a function.
        let e = input_error(build_c("datamain.c", "int main = 3;\n").1);
        assert!(e.contains("datamain.c: no function `main`"), "{e}");
        let e = input_error(build_c("bad.c", "int main(void) { return undeclared_y; }\n").1);
        assert!(
            e.contains("bad.c: does not compile") && e.contains("undeclared_y"),
            "{e}"
        );
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
