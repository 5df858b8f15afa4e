//! `MultiHashProfiler`: the multi-hash profiler of Narayanasamy et al. (HPCA 2003) as one
//! synthesizable block, bit-exact with the model `hwprof_sim::multihash` (SPEC §3, §9).
//!
//! **Ports** (one clock, synchronous active-high `reset`):
//! - event input stream: `in_valid`, `in_ready`, `in_a`, `in_b` (64 bits; masked to
//!   `a_bits`/`b_bits` inside);
//! - report output stream: `out_valid`, `out_ready`, `out_interval` (32 bits, wraps),
//!   `out_a`, `out_b`, `out_count` (32 bits), `out_last` (last word of the interval's report).
//!   Each interval's report is its entries in accumulator-entry order; an empty report is one
//!   marker word with `out_count` = 0 and `out_last` = 1.
//!
//! **Pipeline**: stage 0 accepts an event, hashes it ([`HashUnit`]) and issues the RAM reads;
//! stage 1 looks it up in the accumulator, updates counters or the entry, writes back. One event
//! per clock, sustained, for any input: counter read-after-write hazards are forwarded
//! ([`CounterTables`]), accumulator state is in registers read in the same stage that writes it.
//!
//! **When `in_ready` drops** (nothing is ever dropped; these are the only causes):
//! 1. during reset and for `entries` cycles after it (both counter banks are cleared);
//! 2. at the start of an interval whose counter bank is still being cleared — only when an
//!    interval is shorter than `entries` events (double banking, see [`CounterTables`]);
//! 3. **report back-pressure bound**: the last event of interval i+1 is refused while the report
//!    of interval i has not been fully sent. So the report consumer may stall for up to
//!    L − 1 − (report length) cycles per interval (at one event per clock) without ever
//!    slowing the input; beyond that input waits for it.
//!
//! **Configuration → hardware** (the rule): sizes are const generics, the rest `Constant`s.
//! A *shape* (NT tables, IB = log2(entries), A accumulator entries, CB counter storage bits) must
//! be one of [`SHAPES`], chosen at run time from the configuration by [`with_shape`]; any other
//! configuration is rejected with a message listing them. Everything else — L, T, counter_bits
//! (any value <= CB: saturation at 2^counter_bits − 1 is a constant), C/R/P, hash kind, seed,
//! key widths (keys are 64-bit ports masked by constants) — is a constant of the generated
//! hardware and needs no new shape. The accumulator must be `fully_associative`.

use crate::config::{Organisation, ProfilerConfig};
use crate::hash::HashConstants;
pub use crate::multihash_accumulator::FullyAssociativeAccumulator;
pub use crate::multihash_counters::CounterTables;
pub use crate::multihash_hash::HashUnit;
pub use crate::multihash_interval::IntervalControl;
use rust_hdl::prelude::*;

/// Counter storage width of every shape: configurations may use any `counter_bits` up to it.
pub const COUNTER_STORAGE_BITS: usize = 24;

/// The supported shapes: (tables, index bits, accumulator entries, counter storage bits).
/// The presets, and small shapes for the tests' adversarial co-simulations.
pub const SHAPES: &[(usize, usize, usize, usize)] = &[
    (4, 9, 100, 24),   // paper-10k: 4 x 512, L = 10 000, 1 %
    (1, 11, 100, 24),  // paper-10k-single: 1 x 2048
    (4, 9, 1000, 24),  // paper-1m: L = 1 000 000, 0.1 %
    (1, 11, 1000, 24), // paper-1m-single
    (2, 4, 4, 24),     // tests: 2 x 16, A = 4
    (1, 4, 4, 24),     // tests: single hash 16, A = 4
    (4, 4, 8, 24),     // tests: 4 x 16, A = 8
];

#[derive(LogicBlock)]
pub struct MultiHashProfiler<const NT: usize, const IB: usize, const A: usize, const CB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_a: Signal<In, Bits<64>>,
    pub in_b: Signal<In, Bits<64>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_interval: Signal<Out, Bits<32>>,
    pub out_a: Signal<Out, Bits<64>>,
    pub out_b: Signal<Out, Bits<64>>,
    pub out_count: Signal<Out, Bits<32>>,
    pub out_last: Signal<Out, Bit>,
    hash: HashUnit<NT, IB>,
    counters: CounterTables<NT, IB, CB>,
    acc: FullyAssociativeAccumulator<A, CB>,
    control: IntervalControl,
    s1_valid: DFF<Bit>,
    s1_key: DFF<Bits<128>>,
    s1_last: DFF<Bit>,
    a: Signal<Local, Bits<64>>,
    b: Signal<Local, Bits<64>>,
    accept: Signal<Local, Bit>,
    a_mask: Constant<Bits<64>>,
    b_mask: Constant<Bits<64>>,
    key_shift: Constant<Bits<8>>,
}

impl<const NT: usize, const IB: usize, const A: usize, const CB: usize>
    MultiHashProfiler<NT, IB, A, CB>
{
    /// The hardware of `cfg`, which must have this shape (see [`with_shape`]).
    pub fn new(cfg: &ProfilerConfig) -> Self {
        assert_eq!(shape_of(cfg), Ok((NT, IB, A, CB)), "configuration vs shape");
        let h = HashConstants::new(cfg);
        MultiHashProfiler {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            in_a: Default::default(),
            in_b: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_interval: Default::default(),
            out_a: Default::default(),
            out_b: Default::default(),
            out_count: Default::default(),
            out_last: Default::default(),
            hash: HashUnit::new(&h),
            counters: CounterTables::new(
                cfg.counter_max(),
                cfg.conservative_update,
                cfg.reset_on_promote,
            ),
            acc: FullyAssociativeAccumulator::new(cfg.threshold, cfg.counter_max(), cfg.retaining),
            control: IntervalControl::new(cfg.interval),
            s1_valid: Default::default(),
            s1_key: Default::default(),
            s1_last: Default::default(),
            a: Default::default(),
            b: Default::default(),
            accept: Default::default(),
            a_mask: Constant::new(cfg.a_mask().into()),
            b_mask: Constant::new(cfg.b_mask().into()),
            key_shift: Constant::new(64.into()),
        }
    }
}

impl<const NT: usize, const IB: usize, const A: usize, const CB: usize> Logic
    for MultiHashProfiler<NT, IB, A, CB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_key, s1_last);
        self.counters.clock.next = self.clock.val();
        self.acc.clock.next = self.clock.val();
        self.control.clock.next = self.clock.val();
        self.counters.reset.next = self.reset.val();
        self.acc.reset.next = self.reset.val();
        self.control.reset.next = self.reset.val();
        // Stage 0: mask, hash, read the counters, accept.
        self.a.next = self.in_a.val() & self.a_mask.val();
        self.b.next = self.in_b.val() & self.b_mask.val();
        self.hash.a.next = self.a.val();
        self.hash.b.next = self.b.val();
        for k in 0..NT {
            self.counters.read_index[k].next = self.hash.index[k].val();
        }
        self.counters.read_bank.next = self.control.bank.val();
        self.in_ready.next = !self.reset.val()
            & !(self.control.last.val() & self.acc.report_busy.val())
            & !((self.control.bank.val() & self.counters.clearing1.val())
                | (!self.control.bank.val() & self.counters.clearing0.val()));
        self.accept.next = self.in_valid.val() & self.in_ready.val();
        self.control.accept.next = self.accept.val();
        self.s1_valid.d.next = self.accept.val();
        self.s1_key.d.next = (bit_cast::<128, 64>(self.b.val()) << self.key_shift.val())
            | bit_cast::<128, 64>(self.a.val());
        self.s1_last.d.next = self.control.last.val();
        // Stage 1: accumulator, counter update, interval end.
        self.acc.valid.next = self.s1_valid.q.val();
        self.acc.key.next = self.s1_key.q.val();
        self.acc.new_min.next = self.counters.new_min.val();
        self.acc.end_interval.next = self.s1_last.q.val();
        self.acc.interval.next = self.control.interval.val();
        self.counters.update.next = self.s1_valid.q.val() & !self.acc.hit.val();
        self.counters.promoted.next = self.acc.promoted.val();
        self.counters.clear_start.next = self.s1_valid.q.val() & self.s1_last.q.val();
        self.control.finish.next = self.s1_valid.q.val() & self.s1_last.q.val();
        // Report stream.
        self.out_valid.next = self.acc.report_valid.val();
        self.acc.report_ready.next = self.out_ready.val();
        self.out_interval.next = self.acc.report_interval.val();
        self.out_a.next = self.acc.report_a.val();
        self.out_b.next = self.acc.report_b.val();
        self.out_count.next = self.acc.report_count.val();
        self.out_last.next = self.acc.report_last.val();
    }
}

/// The shape of `cfg`, or why it has none.
pub fn shape_of(cfg: &ProfilerConfig) -> Result<(usize, usize, usize, usize), String> {
    cfg.validate().map_err(|e| e.to_string())?;
    if cfg.accumulator.organisation != Organisation::FullyAssociative {
        return Err(
            "the MultiHashProfiler RTL implements accumulator.organisation = \"fully_associative\" only"
                .into(),
        );
    }
    if cfg.counter_bits as usize > COUNTER_STORAGE_BITS {
        return Err(format!(
            "counter_bits = {} exceeds the RTL's counter storage of {COUNTER_STORAGE_BITS} bits",
            cfg.counter_bits
        ));
    }
    let s = (
        cfg.tables,
        cfg.index_bits() as usize,
        cfg.accumulator.entries,
        COUNTER_STORAGE_BITS,
    );
    if SHAPES.contains(&s) {
        Ok(s)
    } else {
        let list: Vec<String> = SHAPES
            .iter()
            .map(|(t, ib, a, _)| format!("{t}x{} A={a}", 1usize << ib))
            .collect();
        Err(format!(
            "no RTL shape for tables = {}, entries = {}, accumulator.entries = {}; supported (tables x entries, accumulator): {} (add one to hwprof_hdl::multihash::SHAPES)",
            cfg.tables,
            cfg.entries,
            cfg.accumulator.entries,
            list.join(", ")
        ))
    }
}

/// Code generic over the shape, run by [`with_shape`] with the shape of a configuration.
pub trait ShapeVisitor {
    type Output;
    fn visit<const NT: usize, const IB: usize, const A: usize, const CB: usize>(
        self,
        cfg: &ProfilerConfig,
    ) -> Self::Output;
}

/// Runs `v` with the const generics of `cfg`'s shape; an error names the supported shapes.
/// It runs on a thread with a large stack: rust-hdl blocks are built by value, and a
/// 1000-entry accumulator is several megabytes.
pub fn with_shape<V: ShapeVisitor + Send>(cfg: &ProfilerConfig, v: V) -> Result<V::Output, String>
where
    V::Output: Send,
{
    let shape = shape_of(cfg)?;
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("hwprof-rtl".into())
            .stack_size(1 << 30)
            .spawn_scoped(s, move || dispatch(shape, cfg, v))
            .map_err(|e| format!("cannot start the RTL thread: {e}"))?
            .join()
            .map_err(|_| "the RTL thread panicked".to_string())
    })
}

fn dispatch<V: ShapeVisitor>(
    shape: (usize, usize, usize, usize),
    cfg: &ProfilerConfig,
    v: V,
) -> V::Output {
    match shape {
        (4, 9, 100, 24) => v.visit::<4, 9, 100, 24>(cfg),
        (1, 11, 100, 24) => v.visit::<1, 11, 100, 24>(cfg),
        (4, 9, 1000, 24) => v.visit::<4, 9, 1000, 24>(cfg),
        (1, 11, 1000, 24) => v.visit::<1, 11, 1000, 24>(cfg),
        (2, 4, 4, 24) => v.visit::<2, 4, 4, 24>(cfg),
        (1, 4, 4, 24) => v.visit::<1, 4, 4, 24>(cfg),
        (4, 4, 8, 24) => v.visit::<4, 4, 8, 24>(cfg),
        s => unreachable!("shape {s:?} listed in SHAPES but not dispatched"),
    }
}

/// Verilator lint waivers of the exported Verilog, with the reason for each; written as
/// `lint_off` comments at the top of the file, so the one .v file lints clean on its own.
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    ("WIDTH", "rust-hdl writes every literal as 32 bits (e.g. `+ 32'h1`, `= 32'h0`); Verilog's sizing rules give the intended result"),
    ("DECLFILENAME", "rust-hdl writes every module of the design into one file, named after the design"),
    ("UNOPTFLAT", "rust-hdl writes each block's kernel as one always @(*) block; a block that feeds per-entry bits through a BitGather submodule and reads the gathered word back looks circular at that granularity, but no signal depends on itself (Yosys `check -assert` finds no logic loop)"),
    ("UNUSEDSIGNAL", "bits of the 64-bit key ports and of the 128-bit tags above a_bits/b_bits are masked off by constants"),
];

struct VerilogOf;

impl ShapeVisitor for VerilogOf {
    type Output = String;
    fn visit<const NT: usize, const IB: usize, const A: usize, const CB: usize>(
        self,
        cfg: &ProfilerConfig,
    ) -> String {
        let mut uut = MultiHashProfiler::<NT, IB, A, CB>::new(cfg);
        uut.connect_all();
        generate_verilog(&uut)
    }
}

/// The complete Verilog of the profiler for `cfg` (top module `top`), deterministic: the same
/// configuration gives the same bytes. Errors for configurations without an RTL shape.
pub fn verilog(cfg: &ProfilerConfig) -> Result<String, String> {
    let body = with_shape(cfg, VerilogOf)?;
    let mut s = String::new();
    s.push_str("// hwprof multi-hash profiler, generated by hwprof_hdl::multihash::verilog; do not edit.\n");
    s.push_str(&format!("// configuration: {}\n", cfg.summary()));
    s.push_str("// Lint waivers for Verilator (hwprof_hdl::multihash::LINT_WAIVERS), each with its reason:\n");
    for (rule, reason) in LINT_WAIVERS {
        s.push_str(&format!(
            "// verilator lint_off {rule}\n//   {rule}: {reason}\n"
        ));
    }
    s.push_str(&body);
    if !s.ends_with('\n') {
        s.push('\n');
    }
    Ok(s)
}

/// File name of the exported Verilog in an export directory.
pub const VERILOG_FILE: &str = "multihash_profiler.v";
/// File name of the FuseSoC core description beside it.
pub const CORE_FILE: &str = "multihash_profiler.core";

/// The FuseSoC CAPI2 core file listing the exported Verilog; `name` becomes part of the core's
/// VLNV name (letters, digits, `_`; anything else becomes `_`).
pub fn fusesoc_core(cfg: &ProfilerConfig, name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    format!(
        "CAPI=2:\n\
         # Generated by hwprof (hwprof_hdl::multihash::fusesoc_core); do not edit.\n\
         name: hwprof:profiler:multihash_{name}:0.1.0\n\
         description: \"multi-hash profiler {}\"\n\
         filesets:\n  rtl:\n    files:\n      - {VERILOG_FILE}\n    file_type: verilogSource\n\
         targets:\n  default:\n    filesets: [rtl]\n    toplevel: top\n  lint:\n    default_tool: verilator\n    filesets: [rtl]\n    toplevel: top\n    tools:\n      verilator:\n        mode: lint-only\n        verilator_options: [-Wall]\n",
        cfg.summary()
    )
}

/// Writes the Verilog and the FuseSoC core of `cfg` into `dir` (created if needed); returns the
/// paths written.
pub fn export(
    cfg: &ProfilerConfig,
    name: &str,
    dir: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, String> {
    let v = verilog(cfg)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut out = Vec::new();
    for (file, text) in [(VERILOG_FILE, v), (CORE_FILE, fusesoc_core(cfg, name))] {
        let p = dir.join(file);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        out.push(p);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    fn small() -> ProfilerConfig {
        ProfilerConfig::from_toml_str(
            "interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\nentries = 4\n",
            "t",
        )
        .unwrap()
    }

    #[test]
    fn verilog_out_is_fresh() {
        for name in ["paper-10k", "paper-1m"] {
            let cfg = ProfilerConfig::load(&root().join(format!("configs/{name}.toml"))).unwrap();
            let dir = root().join("verilog_out").join(name);
            let fix = format!(
                "verilog_out/{name} is stale: run `hwprof verilog --config configs/{name}.toml --out verilog_out/{name}`"
            );
            let v = std::fs::read_to_string(dir.join(VERILOG_FILE)).expect(&fix);
            assert!(v == verilog(&cfg).unwrap(), "{fix}");
            let c = std::fs::read_to_string(dir.join(CORE_FILE)).expect(&fix);
            assert!(c == fusesoc_core(&cfg, name), "{fix}");
        }
    }

    #[test]
    fn verilog_is_deterministic_and_depends_on_the_config() {
        let cfg = small();
        let v = verilog(&cfg).unwrap();
        assert_eq!(v, verilog(&cfg).unwrap());
        let mut other = cfg.clone();
        other.seed = 2;
        assert_ne!(
            v,
            verilog(&other).unwrap(),
            "hash constants come from the seed"
        );
        assert!(v.contains("module top(") && v.contains("lint_off UNOPTFLAT"));
    }

    #[test]
    fn unsupported_configurations_are_rejected() {
        let mut cfg = small();
        cfg.tables = 3;
        let e = verilog(&cfg).unwrap_err();
        assert!(e.contains("no RTL shape") && e.contains("2x16 A=4"), "{e}");
        let mut cfg = small();
        cfg.counter_bits = 30;
        assert!(verilog(&cfg).unwrap_err().contains("counter storage"));
    }

    /// The exported Verilog lints clean with `verilator -Wall` (waivers are in the file) and
    /// elaborates in Yosys without latches or net problems. Tools come from scripts/test.sh.
    #[test]
    fn exported_verilog_lints_clean() {
        let dir = std::env::temp_dir().join(format!("hwprof-lint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let v = dir.join(VERILOG_FILE);
        std::fs::write(&v, verilog(&small()).unwrap()).unwrap();
        let run = |tool: &str, args: &[&str]| {
            let out = Command::new(tool).args(args).output().unwrap_or_else(|e| {
                panic!("cannot run {tool} ({e}): run scripts/test.sh, which installs it")
            });
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.status.success(), "{tool} failed:\n{text}");
            text
        };
        let vs = v.to_str().unwrap();
        run("verilator", &["--lint-only", "-Wall", vs]);
        let script = format!(
            "read_verilog {vs}; hierarchy -top top; proc; check -assert; \
             select -assert-none t:$dlatch t:$adlatch t:$dlatchsr"
        );
        let log = run("yosys", &["-q", "-p", &script]);
        assert!(!log.to_lowercase().contains("latch"), "{log}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
