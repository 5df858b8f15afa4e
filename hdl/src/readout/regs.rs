//! The register map of the Wishbone slave: one description from which the slave's read
//! multiplexer, the C header and the documentation table are generated.

use crate::config::ProfilerConfig;
use crate::export::module_name;
use std::fmt::Write as _;

/// `ID`'s value: "hwpf" in ASCII.
pub const ID: u32 = 0x6877_7066;
/// The register map's version; a change of the map changes it.
pub const VERSION: u32 = 4;

/// How software may access a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read only.
    Ro,
    /// Read and write.
    Rw,
    /// Read only; a read removes the head report word.
    RoPop,
}

impl Access {
    pub fn name(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::RoPop => "RO, pops",
        }
    }
}

/// A bit field of a register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
    pub doc: &'static str,
}

/// One 32-bit register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Register {
    pub name: &'static str,
    /// Byte offset from the slave's base address.
    pub offset: u32,
    pub access: Access,
    pub doc: String,
    pub fields: Vec<Field>,
    /// The value read, as a Verilog expression of the slave's signals (module `wishbone`).
    pub read: String,
}

fn field(name: &'static str, lsb: u32, width: u32, doc: &'static str) -> Field {
    Field {
        name,
        lsb,
        width,
        doc,
    }
}

/// The low 32 bits of a key field `[msb:lsb]` of the head word, zero-extended.
fn key_word(bits: u32, base: &str, half: u32) -> String {
    let lo = 32 * half;
    if bits <= lo {
        "32'd0".into()
    } else {
        let hi = bits.min(lo + 32);
        let pad = 32 - (hi - lo);
        let sel = format!("{base}[{}:{}]", hi - 1, lo);
        if pad == 0 {
            sel
        } else {
            format!("{{{pad}'d0, {sel}}}")
        }
    }
}

/// The register map of the slave of `cfg`.
pub fn registers(cfg: &ProfilerConfig, depth: u32) -> Vec<Register> {
    let ro = |name, offset, doc: String, read: String| Register {
        name,
        offset,
        access: Access::Ro,
        doc,
        fields: vec![],
        read,
    };
    let c = |v: u64| format!("32'd{}", v.min(u32::MAX as u64));
    vec![
        ro(
            "ID",
            0x00,
            format!("{ID:#010x} (\"hwpf\")"),
            format!("32'h{ID:08x}"),
        ),
        ro(
            "VERSION",
            0x04,
            format!("the register map's version, {VERSION}"),
            c(VERSION as u64),
        ),
        ro(
            "TABLES",
            0x08,
            "counter tables".into(),
            c(cfg.tables as u64),
        ),
        ro(
            "TABLE_ENTRIES",
            0x0c,
            "counters per table".into(),
            c(cfg.entries as u64),
        ),
        ro(
            "ACC_ENTRIES",
            0x10,
            "accumulator entries".into(),
            c(cfg.accumulator.entries as u64),
        ),
        Register {
            fields: vec![
                field("A_BITS", 0, 8, "width of a (the load's or transfer's pc)"),
                field(
                    "B_BITS",
                    8,
                    8,
                    "width of b (the value loaded, or the next pc)",
                ),
            ],
            ..ro(
                "KEY_BITS",
                0x14,
                "key widths".into(),
                format!("32'd{}", cfg.a_bits | cfg.b_bits << 8),
            )
        },
        Register {
            name: "INTERVAL",
            offset: 0x18,
            access: Access::Rw,
            doc: "L, events per interval, for the intervals that start after the write (the open \
                  one keeps its L); reset value the configuration's L. A write of all four bytes \
                  within 1 ..= MAX_INTERVAL is taken, any other ignored: read back to check"
                .into(),
            fields: vec![],
            read: "length".into(),
        },
        Register {
            name: "THRESHOLD",
            offset: 0x1c,
            access: Access::Rw,
            doc: "T, the candidate threshold (a count), for the intervals that start after the \
                  write (the open one keeps its T); reset value the configuration's T. A write of \
                  all four bytes within MIN_THRESHOLD ..= MAX_THRESHOLD is taken, any other \
                  ignored: read back to check"
                .into(),
            fields: vec![],
            read: "threshold".into(),
        },
        Register {
            name: "CTRL",
            offset: 0x20,
            access: Access::Rw,
            doc: "control; reset value 0x1".into(),
            fields: vec![
                field(
                    "ENABLE",
                    0,
                    1,
                    "events reach the profiler (cleared: discarded)",
                ),
                field("IRQ_ENABLE", 1, 1, "`irq` is on (see IRQ_LEVEL)"),
                field(
                    "FLUSH",
                    2,
                    1,
                    "write 1: end the open interval after the events taken so far and report it \
                     (nothing if it has no event); STATUS.FLUSH_PENDING until it has ended. A \
                     FLUSH written while one is pending is merged into it: wait for the bit to \
                     clear between flushes. Reads 0",
                ),
                field(
                    "CLEAR",
                    3,
                    1,
                    "write 1: start over: the profiler's counts and every report word not yet \
                     read are discarded, intervals are numbered from 0 again, the settings stay. \
                     Reads 0",
                ),
            ],
            read: "{30'd0, irq_enable, enable}".into(),
        },
        Register {
            fields: vec![
                field("READY", 0, 1, "a report word is in the REPORT registers"),
                field(
                    "FLUSH_PENDING",
                    1,
                    1,
                    "a FLUSH waits for its interval to end; no event is taken meanwhile",
                ),
                field("LEVEL", 16, 16, "report words waiting, the head included"),
            ],
            ..ro(
                "STATUS",
                0x24,
                "report FIFO status".into(),
                "{level, 14'd0, flush || flush_pending, head_valid}".into(),
            )
        },
        ro(
            "DROPPED",
            0x28,
            "events an upstream tap dropped (`in_dropped`)".into(),
            "in_dropped".into(),
        ),
        ro(
            "FIFO_DEPTH",
            0x2c,
            "report words the FIFO holds behind the head word".into(),
            c(depth as u64),
        ),
        ro(
            "REPORT_INTERVAL",
            0x30,
            "head word: the interval's number".into(),
            "head_interval".into(),
        ),
        ro(
            "REPORT_A_LO",
            0x34,
            "head word: a, bits 31:0".into(),
            key_word(cfg.a_bits, "head_a", 0),
        ),
        ro(
            "REPORT_A_HI",
            0x38,
            "head word: a, bits 63:32".into(),
            key_word(cfg.a_bits, "head_a", 1),
        ),
        ro(
            "REPORT_B_LO",
            0x3c,
            "head word: b, bits 31:0".into(),
            key_word(cfg.b_bits, "head_b", 0),
        ),
        ro(
            "REPORT_B_HI",
            0x40,
            "head word: b, bits 63:32".into(),
            key_word(cfg.b_bits, "head_b", 1),
        ),
        ro(
            "REPORT_COUNT",
            0x44,
            "head word: the count (0: not an entry, the report's end word)".into(),
            "head_count".into(),
        ),
        Register {
            name: "REPORT_POP",
            offset: 0x48,
            access: Access::RoPop,
            doc: "removes the head word; read it last".into(),
            fields: vec![
                field("LAST", 0, 1, "the word ended its interval's report"),
                field("VALID", 1, 1, "there was a word (else nothing was removed)"),
            ],
            read: "{30'd0, head_valid, head_last}".into(),
        },
        Register {
            fields: vec![field(
                "LEVEL",
                0,
                16,
                "`irq` is high while STATUS.LEVEL >= LEVEL (and CTRL.IRQ_ENABLE); 0 acts as 1",
            )],
            ..Register {
                name: "IRQ_LEVEL",
                offset: 0x4c,
                access: Access::Rw,
                doc: "the interrupt's watermark; reset value 1 (a report word is ready): a higher \
                      one lets software drain many words per interrupt"
                    .into(),
                fields: vec![],
                read: "{16'd0, irq_level}".into(),
            }
        },
        ro(
            "MAX_INTERVAL",
            0x50,
            "the largest L that INTERVAL takes (`max_interval`)".into(),
            c(cfg.max_interval()),
        ),
        ro(
            "MAX_THRESHOLD",
            0x54,
            "the largest T that THRESHOLD takes (`max_threshold`)".into(),
            c(cfg.max_threshold()),
        ),
        ro(
            "MIN_THRESHOLD",
            0x58,
            "the smallest T that THRESHOLD takes: `reset_value` + 1, or T where the configuration \
             fixes it (no `max_threshold`)"
                .into(),
            c(cfg.min_threshold()),
        ),
    ]
}

/// The table of docs/SPEC.md.
pub fn markdown_table(cfg: &ProfilerConfig, depth: u32) -> String {
    let mut s =
        String::from("| offset | register | access | fields / value |\n|---|---|---|---|\n");
    for r in registers(cfg, depth) {
        let fields = if r.fields.is_empty() {
            r.doc.clone()
        } else {
            let f: Vec<String> = r
                .fields
                .iter()
                .map(|f| {
                    let bits = if f.width == 1 {
                        format!("{}", f.lsb)
                    } else {
                        format!("{}:{}", f.lsb + f.width - 1, f.lsb)
                    };
                    format!("[{bits}] {}: {}", f.name, f.doc)
                })
                .collect();
            format!("{}; {}", r.doc, f.join("; "))
        };
        let _ = writeln!(
            s,
            "| {:#04x} | {} | {} | {} |",
            r.offset,
            r.name,
            r.access.name(),
            fields
        );
    }
    s
}

/// `hwprof_<name>.h`: the register offsets and fields, and a polling read of one report word.
pub fn c_header(cfg: &ProfilerConfig, name: &str, depth: u32) -> String {
    let m = module_name(name);
    let up = m.to_ascii_uppercase();
    let mut s = format!(
        "/* {m}.h: the registers of {m}_wb (Wishbone slave), generated by hwprof; do not edit.\n \
         * configuration: {}\n */\n#ifndef {up}_H\n#define {up}_H\n\n#include <stdint.h>\n\n/* What ID reads. */\n#define {up}_ID_VALUE 0x{ID:08x}u\n\n",
        cfg.summary()
    );
    for r in registers(cfg, depth) {
        let _ = writeln!(
            s,
            "#define {up}_{:<16} 0x{:02x}u /* {}: {} */",
            r.name,
            r.offset,
            r.access.name(),
            r.doc
        );
        for f in &r.fields {
            let mask = if f.width == 32 {
                u32::MAX
            } else {
                ((1u32 << f.width) - 1) << f.lsb
            };
            let _ = writeln!(
                s,
                "#define {up}_{}_{}_SHIFT {}u\n#define {up}_{}_{}_MASK 0x{mask:08x}u /* {} */",
                r.name, f.name, f.lsb, r.name, f.name, f.doc
            );
        }
    }
    let _ = write!(
        s,
        r#"
#define {up}_REG(base, off) (*(volatile uint32_t *)((uintptr_t)(base) + (off)))

/* One report word. count == 0: not an entry, the end of an (possibly empty) report. */
typedef struct {{
	uint32_t interval;
	uint64_t a, b;
	uint32_t count;
	int last;
}} {m}_word;

/* Reads and removes the head report word into *w if there is one: 1, else 0. */
static inline int {m}_read(uintptr_t base, {m}_word *w)
{{
	if (!({up}_REG(base, {up}_STATUS) & {up}_STATUS_READY_MASK))
		return 0;
	w->interval = {up}_REG(base, {up}_REPORT_INTERVAL);
	w->a = (uint64_t){up}_REG(base, {up}_REPORT_A_HI) << 32 | {up}_REG(base, {up}_REPORT_A_LO);
	w->b = (uint64_t){up}_REG(base, {up}_REPORT_B_HI) << 32 | {up}_REG(base, {up}_REPORT_B_LO);
	w->count = {up}_REG(base, {up}_REPORT_COUNT);
	w->last = ({up}_REG(base, {up}_REPORT_POP) & {up}_REPORT_POP_LAST_MASK) != 0;
	return 1;
}}

/* Ends the open interval now, so that its report follows (nothing if it has no event), and
 * waits until it has ended. CTRL's other bits are kept. */
static inline void {m}_flush(uintptr_t base)
{{
	uint32_t keep = {up}_REG(base, {up}_CTRL) & ({up}_CTRL_ENABLE_MASK | {up}_CTRL_IRQ_ENABLE_MASK);
	{up}_REG(base, {up}_CTRL) = keep | {up}_CTRL_FLUSH_MASK;
	while ({up}_REG(base, {up}_STATUS) & {up}_STATUS_FLUSH_PENDING_MASK)
		;
}}

/* Sets L for the intervals that start from now on: 1 if taken, 0 if outside 1 ..= MAX_INTERVAL. */
static inline int {m}_set_interval(uintptr_t base, uint32_t length)
{{
	{up}_REG(base, {up}_INTERVAL) = length;
	return {up}_REG(base, {up}_INTERVAL) == length;
}}

/* Sets T for the intervals that start from now on: 1 if taken, 0 if outside
 * MIN_THRESHOLD ..= MAX_THRESHOLD. */
static inline int {m}_set_threshold(uintptr_t base, uint32_t threshold)
{{
	{up}_REG(base, {up}_THRESHOLD) = threshold;
	return {up}_REG(base, {up}_THRESHOLD) == threshold;
}}

#endif
"#
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ConfigFile;

    fn cfg() -> ProfilerConfig {
        ProfilerConfig::from_toml_str(
            "interval = 1000\nthreshold = 10\ntables = 2\nentries = 64\na_bits = 32\nb_bits = 20\n[accumulator]\nentries = 8\n",
            "t.toml",
        )
        .unwrap()
    }

    #[test]
    fn offsets_are_distinct_word_aligned_and_fields_fit() {
        let r = registers(&cfg(), 16);
        let mut offs: Vec<u32> = r.iter().map(|r| r.offset).collect();
        offs.sort_unstable();
        offs.dedup();
        assert_eq!(offs.len(), r.len());
        assert!(offs.iter().all(|o| o % 4 == 0 && *o < 0x100));
        for reg in &r {
            let mut used = 0u64;
            for f in &reg.fields {
                assert!(f.lsb + f.width <= 32, "{}", reg.name);
                let m = ((1u64 << f.width) - 1) << f.lsb;
                assert_eq!(used & m, 0, "{}: fields overlap", reg.name);
                used |= m;
            }
        }
    }

    #[test]
    fn keys_narrower_than_a_word_are_zero_extended_and_the_high_words_read_zero() {
        let r = registers(&cfg(), 16);
        let read = |n: &str| r.iter().find(|r| r.name == n).unwrap().read.clone();
        assert_eq!(read("REPORT_A_LO"), "head_a[31:0]");
        assert_eq!(read("REPORT_A_HI"), "32'd0");
        assert_eq!(read("REPORT_B_LO"), "{12'd0, head_b[19:0]}");
        assert_eq!(read("KEY_BITS"), format!("32'd{}", 32 | 20 << 8));
    }

    #[test]
    fn header_and_table_name_every_register() {
        let h = c_header(&cfg(), "soc-bram", 16);
        let t = markdown_table(&cfg(), 16);
        for r in registers(&cfg(), 16) {
            assert!(
                h.contains(&format!("HWPROF_SOC_BRAM_{} ", r.name)),
                "{}",
                r.name
            );
            assert!(t.contains(&format!("| {} |", r.name)), "{}", r.name);
        }
        assert!(h.contains("static inline int hwprof_soc_bram_read("));
        assert!(h.contains("static inline int hwprof_soc_bram_set_threshold("));
    }
}

#[cfg(test)]
mod spec {
    use super::*;

    /// docs/SPEC.md holds the generated table between its two markers.
    #[test]
    fn the_specs_register_table_is_the_generated_one() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/SPEC.md");
        let spec = std::fs::read_to_string(path).unwrap();
        let start = "<!-- register table: generated from hwprof_hdl::readout::registers; a test keeps it equal -->\n";
        let end = "<!-- end of register table -->";
        let a = spec.find(start).expect("start marker") + start.len();
        let b = spec[a..].find(end).expect("end marker") + a;
        use crate::ConfigFile;
        // The table's text depends on no configuration value.
        let cfg = ProfilerConfig::from_toml_str(
            "interval = 100\nthreshold = 2\ntables = 2\nentries = 16\n",
            "any.toml",
        )
        .unwrap();
        let table = markdown_table(&cfg, 16);
        assert_eq!(
            &spec[a..b],
            table,
            "docs/SPEC.md's register table is stale; it must read:\n{table}"
        );
    }
}
