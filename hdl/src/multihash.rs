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
//!    of interval i has not been fully sent (or, when L = 1, is still being snapshotted). So the report consumer may stall for up to
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
                cfg.threshold,
                cfg.counter_max(),
                cfg.conservative_update,
                cfg.reset_on_promote,
            ),
            acc: FullyAssociativeAccumulator::new(
                cfg.threshold,
                cfg.accumulator_count_max(),
                cfg.retaining,
            ),
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
            & !(self.control.last.val()
                & (self.acc.report_busy.val() | (self.s1_valid.q.val() & self.s1_last.q.val())))
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
        self.acc.candidate.next = self.counters.candidate.val();
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

/// One report word on the output ports: (interval, a, b, count, last).
pub type ReportWord = (u64, u64, u64, u64, bool);

/// The stream ports every profiler top shares (the port list at the top of this file), so that
/// testbenches and exporters are written once for every design.
pub trait ProfilerTop: Block {
    /// Whether each report lists its entries in accumulator-entry order, like the model. A design
    /// that reports entries in another order (the set-associative one: in the order it retires
    /// sets) is compared with the model entry-set by entry-set.
    const ENTRY_ORDER: bool;
    /// Sets every input port: the clock level, reset, the offered event (if any), `out_ready`.
    fn drive(&mut self, clock: bool, reset: bool, offer: Option<(u64, u64)>, out_ready: bool);
    fn in_ready(&self) -> bool;
    /// The word on the report ports while `out_valid` is high.
    fn out_word(&self) -> Option<ReportWord>;
    /// Clocks within which a report starts after its interval's last event, at full speed, with
    /// slack: the testbenches' time-out.
    fn drain_bound(&self) -> u64;
}

/// Implements [`ProfilerTop`] for a top whose ports have the standard names.
macro_rules! impl_profiler_top {
    ($name:ident<$(const $g:ident),*>, entry_order = $eo:expr, drain_bound = $drain:expr) => {
        impl<$(const $g: usize),*> $crate::multihash::ProfilerTop for $name<$($g),*> {
            const ENTRY_ORDER: bool = $eo;
            fn drive(
                &mut self,
                clock: bool,
                reset: bool,
                offer: Option<(u64, u64)>,
                out_ready: bool,
            ) {
                use $crate::hdl_util::bits_u64;
                self.clock.next = Clock { clk: clock };
                self.reset.next = reset;
                self.in_valid.next = offer.is_some();
                let (a, b) = offer.unwrap_or((0, 0));
                self.in_a.next = bits_u64::<64>(a);
                self.in_b.next = bits_u64::<64>(b);
                self.out_ready.next = out_ready;
            }
            fn in_ready(&self) -> bool {
                self.in_ready.val()
            }
            fn out_word(&self) -> Option<$crate::multihash::ReportWord> {
                use $crate::hdl_util::u64_bits;
                self.out_valid.val().then(|| {
                    (
                        u64_bits(self.out_interval.val()),
                        u64_bits(self.out_a.val()),
                        u64_bits(self.out_b.val()),
                        u64_bits(self.out_count.val()),
                        self.out_last.val(),
                    )
                })
            }
            fn drain_bound(&self) -> u64 {
                $drain
            }
        }
    };
}
pub(crate) use impl_profiler_top;

impl_profiler_top!(
    MultiHashProfiler<const NT, const IB, const A, const CB>,
    entry_order = true,
    drain_bound = A as u64 + (1u64 << IB) + 64
);

/// Which design of a configuration: the pipelined profiler (one event per clock), or the
/// deliberately simple baseline it is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    Pipelined,
    Baseline,
}

/// The hardware of a configuration: which top, with which const generics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// [`MultiHashProfiler`]`<NT, IB, A, CB>`: fully-associative accumulator in flip-flops.
    Full(usize, usize, usize, usize),
    /// [`BramProfiler`]`<NT, IB, SB, S, W, CB>`: set-associative accumulator in block RAM.
    Sets(usize, usize, usize, usize, usize, usize),
}

fn check_widths(cfg: &ProfilerConfig, storage: usize) -> Result<(), String> {
    if cfg.counter_bits as usize > storage {
        return Err(format!(
            "counter_bits = {} exceeds the RTL's counter storage of {storage} bits",
            cfg.counter_bits
        ));
    }
    if cfg.accumulator.count_bits as usize > storage {
        return Err(format!(
            "accumulator.count_bits = {} exceeds the RTL's counter storage of {storage} bits",
            cfg.accumulator.count_bits
        ));
    }
    Ok(())
}

/// The shape of `cfg`, or why it has none.
pub fn rtl_shape(cfg: &ProfilerConfig) -> Result<Shape, String> {
    cfg.validate().map_err(|e| e.to_string())?;
    match cfg.accumulator.organisation {
        Organisation::FullyAssociative => {
            check_widths(cfg, COUNTER_STORAGE_BITS)?;
            let s = (
                cfg.tables,
                cfg.index_bits() as usize,
                cfg.accumulator.entries,
                COUNTER_STORAGE_BITS,
            );
            if SHAPES.contains(&s) {
                return Ok(Shape::Full(s.0, s.1, s.2, s.3));
            }
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
        Organisation::SetAssociative => crate::multihash_bram::shape_of(cfg),
    }
}

/// The shape of a configuration with a fully-associative accumulator (the board top's), or why
/// it has none.
pub fn shape_of(cfg: &ProfilerConfig) -> Result<(usize, usize, usize, usize), String> {
    match rtl_shape(cfg)? {
        Shape::Full(nt, ib, a, cb) => Ok((nt, ib, a, cb)),
        Shape::Sets(..) => {
            Err("this block needs accumulator.organisation = \"fully_associative\"".into())
        }
    }
}

/// Code generic over the fully-associative shapes, run by [`with_shape`] (the board top).
pub trait ShapeVisitor {
    type Output;
    fn visit<const NT: usize, const IB: usize, const A: usize, const CB: usize>(
        self,
        cfg: &ProfilerConfig,
    ) -> Self::Output;
}

/// Code generic over the profiler top, run by [`with_design`] with the design of a configuration.
pub trait DesignVisitor {
    type Output;
    fn visit<T: ProfilerTop>(self, uut: T, cfg: &ProfilerConfig) -> Self::Output;
}

/// rust-hdl blocks are built by value, and a 1000-entry accumulator is several megabytes: RTL
/// code runs on a thread with a large stack.
fn on_rtl_thread<R: Send>(f: impl FnOnce() -> R + Send) -> Result<R, String> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("hwprof-rtl".into())
            .stack_size(1 << 30)
            .spawn_scoped(s, f)
            .map_err(|e| format!("cannot start the RTL thread: {e}"))?
            .join()
            .map_err(|_| "the RTL thread panicked".to_string())
    })
}

/// Runs `v` with the const generics of `cfg`'s (fully-associative) shape; an error names the
/// supported shapes.
pub fn with_shape<V: ShapeVisitor + Send>(cfg: &ProfilerConfig, v: V) -> Result<V::Output, String>
where
    V::Output: Send,
{
    let shape = shape_of(cfg)?;
    on_rtl_thread(move || dispatch(shape, cfg, v))
}

/// Runs `v` with the top of `design` for `cfg`, built and connected; an error says why the
/// configuration has no such hardware.
pub fn with_design<V: DesignVisitor + Send>(
    cfg: &ProfilerConfig,
    design: Design,
    v: V,
) -> Result<V::Output, String>
where
    V::Output: Send,
{
    let shape = rtl_shape(cfg)?;
    match (design, shape) {
        (Design::Pipelined, Shape::Full(..)) => {
            let shape = shape_of(cfg)?;
            on_rtl_thread(move || dispatch(shape, cfg, Pipelined(v)))
        }
        (Design::Pipelined, Shape::Sets(..)) => {
            on_rtl_thread(move || crate::multihash_bram::dispatch(shape, cfg, v))
        }
        (Design::Baseline, Shape::Full(..)) => with_shape(cfg, crate::baseline::Build(v)),
        (Design::Baseline, Shape::Sets(..)) => Err(
            "the baseline profiler exists for fully-associative accumulators only (accumulator.organisation = \"fully_associative\")"
                .into(),
        ),
    }
}

struct EntryOrder;

impl DesignVisitor for EntryOrder {
    type Output = bool;
    fn visit<T: ProfilerTop>(self, _: T, _: &ProfilerConfig) -> bool {
        T::ENTRY_ORDER
    }
}

/// Whether `design` of `cfg` reports entries in accumulator-entry order ([`ProfilerTop::ENTRY_ORDER`]).
pub fn entry_order(cfg: &ProfilerConfig, design: Design) -> Result<bool, String> {
    with_design(cfg, design, EntryOrder)
}

/// Adapts a [`DesignVisitor`] to the pipelined fully-associative tops.
struct Pipelined<V>(V);

impl<V: DesignVisitor> ShapeVisitor for Pipelined<V> {
    type Output = V::Output;
    fn visit<const NT: usize, const IB: usize, const A: usize, const CB: usize>(
        self,
        cfg: &ProfilerConfig,
    ) -> Self::Output {
        let mut uut = MultiHashProfiler::<NT, IB, A, CB>::new(cfg);
        uut.connect_all();
        self.0.visit(uut, cfg)
    }
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

impl DesignVisitor for VerilogOf {
    type Output = String;
    fn visit<T: ProfilerTop>(self, uut: T, _: &ProfilerConfig) -> String {
        generate_verilog(&uut)
    }
}

/// The complete Verilog of the profiler for `cfg` (top module `top`), deterministic: the same
/// configuration gives the same bytes. Errors for configurations without an RTL shape.
pub fn verilog(cfg: &ProfilerConfig) -> Result<String, String> {
    verilog_of(cfg, Design::Pipelined)
}

/// The complete Verilog of `design` for `cfg` (top module `top`), deterministic.
pub fn verilog_of(cfg: &ProfilerConfig, design: Design) -> Result<String, String> {
    let body = with_design(cfg, design, VerilogOf)?;
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
        cfg.accumulator.count_bits = 30;
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
