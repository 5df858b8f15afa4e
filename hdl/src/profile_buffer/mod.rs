//! The arc-based **profile buffer** of Conte, Menezes and Hirsch (MICRO-29 1996) and Menezes's
//! thesis (1997, chapter 3), docs/SPEC.md §10: its configuration and its rust-hdl block
//! `ProfileBuffer`.
//!
//! Each entry holds two saturating counters, `num_taken` and `num_not_taken`. A resolved branch
//! (an *event*: pc, taken, optional index) updates one entry, chosen by the *indexing* mode:
//!
//! - `address` (the thesis's *address mapping*): entry = (pc >> `pc_shift`) mod entries.
//! - `compiler` (the thesis's *compiler indexing*): entry = the index carried with the event, mod
//!   entries (the compiler encodes it in the branch instruction).
//! - `set_associative`: set = (pc >> `pc_shift`) mod sets, sets = entries / ways; each way keeps a
//!   partial tag, tag = (pc >> (`pc_shift` + log2 sets)) mod 2^`tag_bits`. A hit counts in the hit
//!   way; a miss takes the set's least recently used way (empty ways are used first, lowest way
//!   first) and starts it at one count: the evicted way's counts are lost.
//!
//! **Sampling point**: after every `sample_interval` accepted events (0: never), or when the
//! `sample` strobe is high in a cycle where no readout is running (a strobe during a readout is
//! ignored). An event accepted in the same cycle still belongs to the closing sample. The contents
//! then stream out, one entry per word, entry 0 first: (index, tag, taken, not-taken), with
//! `out_last` on the last word; after the last word is accepted every entry is cleared.
//! **During the readout `ev_ready` is low** (no event is lost, none lands in the wrong sample):
//! for exactly `entries` cycles if `out_ready` stays high. `index` is the entry number
//! (set × ways + way); `tag` is 0 in the direct modes. An entry never used in the sample reads
//! (taken, not-taken) = (0, 0).
//!
//! Interface: one clock, synchronous active-high `reset` (hold it for one cycle after power-up:
//! the LRU ages start from it). Events on `ev_valid`/`ev_ready`; readout on `out_valid`/`out_ready`.
//!
//! Configuration keys (TOML):
//!
//! | key | meaning | rule |
//! |---|---|---|
//! | `entries` | entries in the buffer | power of two, 8 ..= 1024 |
//! | `indexing` | `"address"`, `"compiler"` or `"set_associative"` | |
//! | `ways` | ways per set (set-associative only); default 4 | power of two, 2 ..= 16, ≤ entries |
//! | `counter_bits` | width of each saturating counter; default 16 (the thesis's) | 8, 16, 24 or 32 |
//! | `tag_bits` | partial-tag width (set-associative only); default 16 | 8, 16, 24 or 32 |
//! | `pc_shift` | low pc bits skipped before indexing; default 0 | 0 ..= 63, and pc_shift + log2(sets) ≤ 63 |
//! | `sample_interval` | events between sampling points, 0 = only on the strobe; default 100000 | 0 ..= 2^32 − 1 |

use rust_hdl::prelude::*;
use serde::Deserialize;
use std::path::Path;

use crate::config::{err, parse_toml, read_config_file, ConfigError};

/// Width of the entry number (index in, index out): enough for the largest buffer.
pub const INDEX_BITS: usize = 10;
/// Width of an LRU age: enough for the most ways.
pub const AGE_BITS: usize = 4;
/// Width of the event counter of periodic sampling.
pub const SAMPLE_COUNT_BITS: usize = 32;
/// Width of the pc input.
pub const PC_BITS: usize = 64;

pub const MIN_ENTRIES: usize = 8;
pub const MAX_ENTRIES: usize = 1 << INDEX_BITS;
pub const MAX_WAYS: usize = 1 << AGE_BITS;
/// Counter and tag widths the RTL is instantiated for (rust-hdl widths are types).
pub const SUPPORTED_WIDTHS: [u32; 4] = [8, 16, 24, 32];

/// How a branch finds its entry (thesis §3.2, §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Indexing {
    /// Address mapping: low pc bits.
    Address,
    /// Compiler indexing: an index carried with the event.
    Compiler,
    /// N-way set-associative on pc bits, partial tags, LRU replacement.
    SetAssociative,
}

impl Indexing {
    pub fn name(self) -> &'static str {
        match self {
            Indexing::Address => "address",
            Indexing::Compiler => "compiler",
            Indexing::SetAssociative => "set_associative",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct BufferFile {
    entries: u64,
    indexing: Indexing,
    ways: Option<u64>,
    counter_bits: Option<u64>,
    tag_bits: Option<u64>,
    pc_shift: Option<u64>,
    sample_interval: Option<u64>,
}

/// A validated profile-buffer configuration, read by the RTL and the model alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferConfig {
    pub entries: usize,
    pub indexing: Indexing,
    /// Ways per set: 1 in the direct modes.
    pub ways: usize,
    pub counter_bits: u32,
    /// Partial-tag width; 0 in the direct modes (no tags).
    pub tag_bits: u32,
    pub pc_shift: u32,
    pub sample_interval: u64,
}

impl BufferConfig {
    /// Reads and validates a TOML file; errors name the file and the field.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let (text, source) = read_config_file(path)?;
        Self::from_toml_str(&text, &source)
    }

    /// Parses and validates TOML text; `source` names it in errors.
    pub fn from_toml_str(text: &str, source: &str) -> Result<Self, ConfigError> {
        let f: BufferFile = parse_toml(text, source)?;
        let assoc = f.indexing == Indexing::SetAssociative;
        if !assoc {
            if f.ways.is_some() {
                return Err(err(
                    source,
                    "ways",
                    "applies only to indexing = \"set_associative\"",
                ));
            }
            if f.tag_bits.is_some() {
                return Err(err(
                    source,
                    "tag_bits",
                    "applies only to indexing = \"set_associative\"",
                ));
            }
        }
        let clamp = |v: u64| v.min(u32::MAX as u64) as u32;
        let cfg = BufferConfig {
            entries: f.entries.min(1 << 40) as usize,
            indexing: f.indexing,
            ways: if assoc {
                f.ways.unwrap_or(4).min(1 << 40) as usize
            } else {
                1
            },
            counter_bits: clamp(f.counter_bits.unwrap_or(16)),
            tag_bits: if assoc {
                clamp(f.tag_bits.unwrap_or(16))
            } else {
                0
            },
            pc_shift: clamp(f.pc_shift.unwrap_or(0)),
            sample_interval: f.sample_interval.unwrap_or(100_000),
        };
        cfg.validate_named(source)?;
        Ok(cfg)
    }

    /// Checks every rule of the table in the module documentation.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_named("<config>")
    }

    fn validate_named(&self, source: &str) -> Result<(), ConfigError> {
        let e = |field: &str, rule: String| Err(err(source, field, rule));
        if !self.entries.is_power_of_two() || !(MIN_ENTRIES..=MAX_ENTRIES).contains(&self.entries) {
            return e(
                "entries",
                format!(
                    "must be a power of two in {MIN_ENTRIES}..={MAX_ENTRIES}, got {}",
                    self.entries
                ),
            );
        }
        if !SUPPORTED_WIDTHS.contains(&self.counter_bits) {
            return e(
                "counter_bits",
                format!(
                    "must be one of {SUPPORTED_WIDTHS:?}, got {}",
                    self.counter_bits
                ),
            );
        }
        if self.indexing == Indexing::SetAssociative {
            if !self.ways.is_power_of_two()
                || !(2..=MAX_WAYS).contains(&self.ways)
                || self.ways > self.entries
            {
                return e(
                    "ways",
                    format!(
                        "must be a power of two in 2..={MAX_WAYS} and at most entries ({}), got {}",
                        self.entries, self.ways
                    ),
                );
            }
            if !SUPPORTED_WIDTHS.contains(&self.tag_bits) {
                return e(
                    "tag_bits",
                    format!("must be one of {SUPPORTED_WIDTHS:?}, got {}", self.tag_bits),
                );
            }
        } else if self.ways != 1 || self.tag_bits != 0 {
            return e(
                "ways",
                "the direct modes have one way and no tag".to_string(),
            );
        }
        if self.pc_shift > 63 || self.tag_shift() > 63 {
            return e(
                "pc_shift",
                format!(
                    "must be in 0..=63 with pc_shift + log2(sets) <= 63, got {}",
                    self.pc_shift
                ),
            );
        }
        if self.sample_interval > (1u64 << SAMPLE_COUNT_BITS) - 1 {
            return e(
                "sample_interval",
                format!(
                    "must be in 0..={}, got {}",
                    (1u64 << SAMPLE_COUNT_BITS) - 1,
                    self.sample_interval
                ),
            );
        }
        Ok(())
    }

    pub fn sets(&self) -> usize {
        self.entries / self.ways
    }

    /// log2(sets): the width of the set index.
    pub fn set_bits(&self) -> u32 {
        self.sets().trailing_zeros()
    }

    /// Where the partial tag starts in the pc.
    pub fn tag_shift(&self) -> u32 {
        self.pc_shift + self.set_bits()
    }

    /// Saturation value of each counter.
    pub fn counter_max(&self) -> u64 {
        crate::config::width_mask(self.counter_bits)
    }

    pub fn tag_mask(&self) -> u64 {
        if self.tag_bits == 0 {
            0
        } else {
            crate::config::width_mask(self.tag_bits)
        }
    }

    /// The set an event maps to (the entry itself in the direct modes).
    pub fn set_of(&self, pc: u64, index: u64) -> usize {
        let key = match self.indexing {
            Indexing::Compiler => index,
            _ => pc >> self.pc_shift,
        };
        (key as usize) & (self.sets() - 1)
    }

    /// The partial tag of a pc (0 in the direct modes).
    pub fn tag_of(&self, pc: u64) -> u64 {
        (pc >> self.tag_shift()) & self.tag_mask()
    }

    /// LRU age of way `w` after a clear: way 0 is the oldest, so empty ways fill lowest first.
    pub fn initial_age(&self, way: usize) -> u64 {
        (self.ways - 1 - way) as u64
    }

    /// A one-line summary such as `64 entries address 16b S=100000`.
    pub fn summary(&self) -> String {
        let mode = match self.indexing {
            Indexing::SetAssociative => {
                format!("set_associative {}-way tag {}b", self.ways, self.tag_bits)
            }
            m => m.name().to_string(),
        };
        format!(
            "{} entries {} {}b shift {} S={}",
            self.entries, mode, self.counter_bits, self.pc_shift, self.sample_interval
        )
    }

    /// The tag width of the RTL instance: the partial tag, or 1 unused bit in the direct modes.
    pub fn rtl_tag_width(&self) -> u32 {
        self.tag_bits.max(1)
    }
}

/// The profile buffer. `CW` = counter width, `TW` = tag width (1 and unused in the direct modes);
/// every other size comes from [`BufferConfig`] through `Constant`s and `Vec` lengths.
#[derive(LogicBlock)]
pub struct ProfileBuffer<const CW: usize, const TW: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the buffer and ends any readout.
    pub reset: Signal<In, Bit>,
    /// Event stream: a resolved branch.
    pub ev_valid: Signal<In, Bit>,
    pub ev_ready: Signal<Out, Bit>,
    pub ev_pc: Signal<In, Bits<PC_BITS>>,
    pub ev_taken: Signal<In, Bit>,
    /// The compiler's index (compiler indexing only).
    pub ev_index: Signal<In, Bits<INDEX_BITS>>,
    /// Sampling point on request (ignored during a readout).
    pub sample: Signal<In, Bit>,
    /// Readout stream: one word per entry at each sampling point.
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_index: Signal<Out, Bits<INDEX_BITS>>,
    pub out_tag: Signal<Out, Bits<TW>>,
    pub out_taken: Signal<Out, Bits<CW>>,
    pub out_not_taken: Signal<Out, Bits<CW>>,
    pub out_last: Signal<Out, Bit>,
    // Parameters.
    use_index: Constant<Bit>,
    direct: Constant<Bit>,
    pc_shift: Constant<Bits<8>>,
    tag_shift: Constant<Bits<8>>,
    set_mask: Constant<Bits<INDEX_BITS>>,
    last_entry: Constant<Bits<INDEX_BITS>>,
    max_age: Constant<Bits<AGE_BITS>>,
    periodic: Constant<Bit>,
    interval_m1: Constant<Bits<SAMPLE_COUNT_BITS>>,
    counter_max: Constant<Bits<CW>>,
    entry_id: Vec<Constant<Bits<INDEX_BITS>>>,
    entry_set: Vec<Constant<Bits<INDEX_BITS>>>,
    entry_age0: Vec<Constant<Bits<AGE_BITS>>>,
    // Entries: num_taken, num_not_taken, partial tag, valid, LRU age.
    num_taken: Vec<DFF<Bits<CW>>>,
    num_not_taken: Vec<DFF<Bits<CW>>>,
    tag: Vec<DFF<Bits<TW>>>,
    valid: Vec<DFF<Bit>>,
    age: Vec<DFF<Bits<AGE_BITS>>>,
    // Control.
    reading: DFF<Bit>,
    rd_ptr: DFF<Bits<INDEX_BITS>>,
    ev_count: DFF<Bits<SAMPLE_COUNT_BITS>>,
    accept: Signal<Local, Bit>,
    trigger: Signal<Local, Bit>,
    clear: Signal<Local, Bit>,
    shifted_pc: Signal<Local, Bits<PC_BITS>>,
    tag_pc: Signal<Local, Bits<PC_BITS>>,
    set_index: Signal<Local, Bits<INDEX_BITS>>,
    ev_tag: Signal<Local, Bits<TW>>,
    any_hit: Signal<Local, Bit>,
    hit_age: Signal<Local, Bits<AGE_BITS>>,
    hit: Vec<Signal<Local, Bit>>,
    in_set: Vec<Signal<Local, Bit>>,
    masked_age: Vec<Signal<Local, Bits<AGE_BITS>>>,
    pick: Vec<Signal<Local, Bit>>,
    masked_taken: Vec<Signal<Local, Bits<CW>>>,
    masked_not_taken: Vec<Signal<Local, Bits<CW>>>,
    masked_tag: Vec<Signal<Local, Bits<TW>>>,
    sel_taken: Signal<Local, Bits<CW>>,
    sel_not_taken: Signal<Local, Bits<CW>>,
    sel_tag: Signal<Local, Bits<TW>>,
    sel_count: Signal<Local, Bits<CW>>,
    inc_count: Signal<Local, Bits<CW>>,
    saturated: Signal<Local, Bit>,
}

impl<const CW: usize, const TW: usize> ProfileBuffer<CW, TW> {
    /// Builds the block for `cfg`; panics if `CW`/`TW` disagree with it (use
    /// [`with_profile_buffer!`](crate::with_profile_buffer)).
    pub fn new(cfg: &BufferConfig) -> Self {
        assert_eq!(CW as u32, cfg.counter_bits, "counter width");
        assert_eq!(TW as u32, cfg.rtl_tag_width(), "tag width");
        cfg.validate().expect("valid profile-buffer config");
        let n = cfg.entries;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ev_valid: Default::default(),
            ev_ready: Default::default(),
            ev_pc: Default::default(),
            ev_taken: Default::default(),
            ev_index: Default::default(),
            sample: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_index: Default::default(),
            out_tag: Default::default(),
            out_taken: Default::default(),
            out_not_taken: Default::default(),
            out_last: Default::default(),
            use_index: Constant::new(cfg.indexing == Indexing::Compiler),
            direct: Constant::new(cfg.indexing != Indexing::SetAssociative),
            pc_shift: k(cfg.pc_shift as u64),
            tag_shift: k(cfg.tag_shift() as u64),
            set_mask: k(cfg.sets() as u64 - 1),
            last_entry: k(n as u64 - 1),
            max_age: k(cfg.ways as u64 - 1),
            periodic: Constant::new(cfg.sample_interval != 0),
            interval_m1: k(cfg.sample_interval.saturating_sub(1)),
            counter_max: k(cfg.counter_max()),
            entry_id: (0..n).map(|i| k(i as u64)).collect(),
            entry_set: (0..n).map(|i| k((i / cfg.ways) as u64)).collect(),
            entry_age0: (0..n).map(|i| k(cfg.initial_age(i % cfg.ways))).collect(),
            num_taken: (0..n).map(|_| Default::default()).collect(),
            num_not_taken: (0..n).map(|_| Default::default()).collect(),
            tag: (0..n).map(|_| Default::default()).collect(),
            valid: (0..n).map(|_| Default::default()).collect(),
            age: (0..n).map(|_| Default::default()).collect(),
            reading: Default::default(),
            rd_ptr: Default::default(),
            ev_count: Default::default(),
            accept: Default::default(),
            trigger: Default::default(),
            clear: Default::default(),
            shifted_pc: Default::default(),
            tag_pc: Default::default(),
            set_index: Default::default(),
            ev_tag: Default::default(),
            any_hit: Default::default(),
            hit_age: Default::default(),
            hit: (0..n).map(|_| Default::default()).collect(),
            in_set: (0..n).map(|_| Default::default()).collect(),
            masked_age: (0..n).map(|_| Default::default()).collect(),
            pick: (0..n).map(|_| Default::default()).collect(),
            masked_taken: (0..n).map(|_| Default::default()).collect(),
            masked_not_taken: (0..n).map(|_| Default::default()).collect(),
            masked_tag: (0..n).map(|_| Default::default()).collect(),
            sel_taken: Default::default(),
            sel_not_taken: Default::default(),
            sel_tag: Default::default(),
            sel_count: Default::default(),
            inc_count: Default::default(),
            saturated: Default::default(),
        }
    }
}

impl<const CW: usize, const TW: usize> Logic for ProfileBuffer<CW, TW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, reading, rd_ptr, ev_count);
        for i in 0..self.num_taken.len() {
            self.num_taken[i].clock.next = self.clock.val();
            self.num_not_taken[i].clock.next = self.clock.val();
            self.tag[i].clock.next = self.clock.val();
            self.valid[i].clock.next = self.clock.val();
            self.age[i].clock.next = self.clock.val();
            self.num_taken[i].d.next = self.num_taken[i].q.val();
            self.num_not_taken[i].d.next = self.num_not_taken[i].q.val();
            self.tag[i].d.next = self.tag[i].q.val();
            self.valid[i].d.next = self.valid[i].q.val();
            self.age[i].d.next = self.age[i].q.val();
        }
        // Events are taken only outside a readout.
        self.ev_ready.next = !self.reading.q.val() & !self.reset.val();
        self.accept.next = self.ev_valid.val() & !self.reading.q.val() & !self.reset.val();
        self.shifted_pc.next = self.ev_pc.val() >> self.pc_shift.val();
        self.tag_pc.next = self.ev_pc.val() >> self.tag_shift.val();
        self.ev_tag.next = self.tag_pc.val().get_bits::<TW>(0);
        if self.use_index.val() {
            self.set_index.next = self.ev_index.val() & self.set_mask.val();
        } else {
            self.set_index.next =
                self.shifted_pc.val().get_bits::<INDEX_BITS>(0) & self.set_mask.val();
        }
        // Lookup: a hit in the addressed set (always, in the direct modes) and its LRU age.
        self.any_hit.next = false;
        self.hit_age.next = 0.into();
        for i in 0..self.num_taken.len() {
            self.in_set[i].next = self.set_index.val() == self.entry_set[i].val();
            self.hit[i].next = self.in_set[i].val()
                & (self.direct.val()
                    | (self.valid[i].q.val() & (self.tag[i].q.val() == self.ev_tag.val())));
            self.any_hit.next = self.any_hit.val() | self.hit[i].val();
            self.masked_age[i].next = 0.into();
            if self.hit[i].val() {
                self.masked_age[i].next = self.age[i].q.val();
            }
            self.hit_age.next = self.hit_age.val() | self.masked_age[i].val();
        }
        // One shared read port (AND-OR over a one-hot pick): the entry being read out, else
        // the hit entry. It feeds the readout and the one shared saturating incrementer.
        self.sel_taken.next = 0.into();
        self.sel_not_taken.next = 0.into();
        self.sel_tag.next = 0.into();
        for i in 0..self.num_taken.len() {
            self.pick[i].next = self.hit[i].val();
            if self.reading.q.val() {
                self.pick[i].next = self.rd_ptr.q.val() == self.entry_id[i].val();
            }
            self.masked_taken[i].next = 0.into();
            self.masked_not_taken[i].next = 0.into();
            self.masked_tag[i].next = 0.into();
            if self.pick[i].val() {
                self.masked_taken[i].next = self.num_taken[i].q.val();
                self.masked_not_taken[i].next = self.num_not_taken[i].q.val();
                self.masked_tag[i].next = self.tag[i].q.val();
            }
            self.sel_taken.next = self.sel_taken.val() | self.masked_taken[i].val();
            self.sel_not_taken.next = self.sel_not_taken.val() | self.masked_not_taken[i].val();
            self.sel_tag.next = self.sel_tag.val() | self.masked_tag[i].val();
        }
        self.sel_count.next = self.sel_not_taken.val();
        if self.ev_taken.val() {
            self.sel_count.next = self.sel_taken.val();
        }
        self.saturated.next = self.sel_count.val() == self.counter_max.val();
        self.inc_count.next = self.sel_count.val() + 1;
        // Readout: one entry per accepted word; clear all after the last.
        self.out_valid.next = self.reading.q.val();
        self.out_index.next = self.rd_ptr.q.val();
        self.out_last.next = self.rd_ptr.q.val() == self.last_entry.val();
        self.out_tag.next = self.sel_tag.val();
        self.out_taken.next = self.sel_taken.val();
        self.out_not_taken.next = self.sel_not_taken.val();
        self.clear.next = self.reset.val();
        if self.reading.q.val() & self.out_ready.val() {
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
            if self.out_last.val() {
                self.reading.d.next = false;
                self.clear.next = true;
            }
        }
        // Sampling point: every `sample_interval` events, or on the strobe.
        self.trigger.next = self.sample.val() & !self.reading.q.val();
        if self.accept.val() {
            self.ev_count.d.next = self.ev_count.q.val() + 1;
            if self.periodic.val() & (self.ev_count.q.val() == self.interval_m1.val()) {
                self.trigger.next = true;
            }
        }
        if self.trigger.val() {
            self.reading.d.next = true;
            self.rd_ptr.d.next = 0.into();
            self.ev_count.d.next = 0.into();
        }
        // Update: count in the hit way, or replace the LRU way; ages follow LRU order.
        for i in 0..self.num_taken.len() {
            if self.accept.val() & self.in_set[i].val() {
                if self.any_hit.val() {
                    if self.hit[i].val() {
                        if !self.saturated.val() {
                            if self.ev_taken.val() {
                                self.num_taken[i].d.next = self.inc_count.val();
                            } else {
                                self.num_not_taken[i].d.next = self.inc_count.val();
                            }
                        }
                        self.valid[i].d.next = true;
                        self.age[i].d.next = 0.into();
                    } else if self.age[i].q.val() < self.hit_age.val() {
                        self.age[i].d.next = self.age[i].q.val() + 1;
                    }
                } else if self.age[i].q.val() == self.max_age.val() {
                    self.valid[i].d.next = true;
                    self.tag[i].d.next = self.ev_tag.val();
                    self.age[i].d.next = 0.into();
                    if self.ev_taken.val() {
                        self.num_taken[i].d.next = 1.into();
                        self.num_not_taken[i].d.next = 0.into();
                    } else {
                        self.num_taken[i].d.next = 0.into();
                        self.num_not_taken[i].d.next = 1.into();
                    }
                } else {
                    self.age[i].d.next = self.age[i].q.val() + 1;
                }
            }
            if self.clear.val() {
                self.num_taken[i].d.next = 0.into();
                self.num_not_taken[i].d.next = 0.into();
                self.tag[i].d.next = 0.into();
                self.valid[i].d.next = false;
                self.age[i].d.next = self.entry_age0[i].val();
            }
        }
        if self.reset.val() {
            self.reading.d.next = false;
            self.rd_ptr.d.next = 0.into();
            self.ev_count.d.next = 0.into();
        }
    }
}

/// Calls `$f::<CW, TW>(cfg, args…)` for the RTL widths of `cfg` (validated configs only).
#[macro_export]
macro_rules! with_profile_buffer {
    ($cfg:expr, $f:ident $(, $arg:expr)*) => {{
        let cfg: &$crate::profile_buffer::BufferConfig = $cfg;
        match (cfg.counter_bits, cfg.rtl_tag_width()) {
            (8, 1) => $f::<8, 1>(cfg $(, $arg)*),
            (16, 1) => $f::<16, 1>(cfg $(, $arg)*),
            (24, 1) => $f::<24, 1>(cfg $(, $arg)*),
            (32, 1) => $f::<32, 1>(cfg $(, $arg)*),
            (8, 8) => $f::<8, 8>(cfg $(, $arg)*),
            (8, 16) => $f::<8, 16>(cfg $(, $arg)*),
            (8, 24) => $f::<8, 24>(cfg $(, $arg)*),
            (8, 32) => $f::<8, 32>(cfg $(, $arg)*),
            (16, 8) => $f::<16, 8>(cfg $(, $arg)*),
            (16, 16) => $f::<16, 16>(cfg $(, $arg)*),
            (16, 24) => $f::<16, 24>(cfg $(, $arg)*),
            (16, 32) => $f::<16, 32>(cfg $(, $arg)*),
            (24, 8) => $f::<24, 8>(cfg $(, $arg)*),
            (24, 16) => $f::<24, 16>(cfg $(, $arg)*),
            (24, 24) => $f::<24, 24>(cfg $(, $arg)*),
            (24, 32) => $f::<24, 32>(cfg $(, $arg)*),
            (32, 8) => $f::<32, 8>(cfg $(, $arg)*),
            (32, 16) => $f::<32, 16>(cfg $(, $arg)*),
            (32, 24) => $f::<32, 24>(cfg $(, $arg)*),
            (32, 32) => $f::<32, 32>(cfg $(, $arg)*),
            (c, t) => panic!("no RTL instance for counter_bits {c}, tag width {t}: validate the config"),
        }
    }};
}

/// A constant of any width from a u64 (the value fits: the config was validated).
fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.to_bits())
}

fn verilog_of<const CW: usize, const TW: usize>(cfg: &BufferConfig) -> String {
    let mut uut = ProfileBuffer::<CW, TW>::new(cfg);
    uut.connect_all();
    generate_verilog(&uut)
}

/// The Verilog of the profile buffer for `cfg` (top module `top`). Deterministic.
pub fn verilog(cfg: &BufferConfig) -> String {
    with_profile_buffer!(cfg, verilog_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<BufferConfig, ConfigError> {
        BufferConfig::from_toml_str(text, "t.toml")
    }

    #[test]
    fn defaults() {
        let c = parse("entries = 64\nindexing = \"address\"\n").unwrap();
        assert_eq!((c.ways, c.counter_bits, c.tag_bits), (1, 16, 0));
        assert_eq!(c.sample_interval, 100_000);
        let c = parse("entries = 64\nindexing = \"set_associative\"\n").unwrap();
        assert_eq!(
            (c.ways, c.sets(), c.tag_bits, c.tag_shift()),
            (4, 16, 16, 4)
        );
        assert_eq!(c.set_of(0x1234_5678, 0), 0x8);
        assert_eq!(c.tag_of(0x1234_5678), 0x4567);
    }

    #[test]
    fn rules_name_the_field() {
        let cases = [
            ("entries = 4\nindexing = \"address\"", "entries"),
            ("entries = 48\nindexing = \"address\"", "entries"),
            ("entries = 2048\nindexing = \"address\"", "entries"),
            (
                "entries = 64\nindexing = \"address\"\ncounter_bits = 12",
                "counter_bits",
            ),
            ("entries = 64\nindexing = \"address\"\nways = 4", "ways"),
            (
                "entries = 64\nindexing = \"compiler\"\ntag_bits = 8",
                "tag_bits",
            ),
            (
                "entries = 64\nindexing = \"set_associative\"\nways = 3",
                "ways",
            ),
            (
                "entries = 64\nindexing = \"set_associative\"\nways = 32",
                "ways",
            ),
            (
                "entries = 8\nindexing = \"set_associative\"\nways = 16",
                "ways",
            ),
            (
                "entries = 64\nindexing = \"set_associative\"\ntag_bits = 7",
                "tag_bits",
            ),
            (
                "entries = 64\nindexing = \"address\"\npc_shift = 64",
                "pc_shift",
            ),
            (
                "entries = 64\nindexing = \"address\"\npc_shift = 60",
                "pc_shift",
            ),
            (
                "entries = 64\nindexing = \"address\"\nsample_interval = 4294967296",
                "sample_interval",
            ),
        ];
        for (text, field) in cases {
            let e = parse(text).expect_err(text);
            assert_eq!(e.field, field, "{text}: {e}");
        }
    }

    #[test]
    fn unknown_field_and_mode_rejected() {
        let e = parse("entries = 64\nindexing = \"address\"\nbogus = 1\n").unwrap_err();
        assert!(e.to_string().contains("bogus"), "{e}");
        let e = parse("entries = 64\nindexing = \"hashed\"\n").unwrap_err();
        assert!(e.to_string().contains("hashed"), "{e}");
    }

    #[test]
    fn verilog_is_deterministic_and_has_no_generic_names() {
        let c =
            parse("entries = 8\nindexing = \"set_associative\"\nways = 2\ntag_bits = 8\n").unwrap();
        let a = verilog(&c);
        assert_eq!(a, verilog(&c));
        assert!(a.contains("module top"), "top module");
        assert!(
            !a.contains("CW") && !a.contains("TW"),
            "const generic leaked"
        );
    }
}
