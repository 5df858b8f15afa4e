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
//! `out_last` on the last word; each entry is cleared once its set has been read out.
//! **During the readout `ev_ready` is low** (no event is lost, none lands in the wrong sample):
//! for exactly `entries` + 4 cycles if `out_ready` stays high (three of them let the events in
//! the pipeline reach block RAM); with `ram_output_register`, `entries` + `sets` + 5 (one more
//! pipeline stage and one more clock of read latency to drain, and a clock between sets while the
//! next set's words arrive). `index` is the entry number
//! (set × ways + way); `tag` is 0 in the direct modes. An entry never used in the sample reads
//! (taken, not-taken) = (0, 0).
//!
//! Interface: one clock, synchronous active-high `reset` (hold it for one cycle after power-up:
//! it starts a sweep that empties the block RAM and sets the LRU ages, `entries` + 1 cycles with
//! `ev_ready` low; `entries` + `sets` with `ram_output_register`). Events on `ev_valid`/`ev_ready`; readout on `out_valid`/`out_ready`.
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
//! | `ram_output_register` | read the block RAMs through their output register: one more clock of read latency and one more forwarding distance, for a faster clock where the RAM's clock-to-out limits it (the ECP5's DP16KD); the counts are the same; default false | true or false |

use rust_hdl::prelude::*;
use serde::Deserialize;

use crate::block_ram::{TableRam, ADDRESS_BITS};
use crate::config::{err, parse_toml, toml_has_key, ConfigError, ConfigFile, Rules};

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
    ram_output_register: Option<bool>,
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
    /// The block RAMs are read through their output register (two clocks of read latency).
    pub ram_output_register: bool,
}

impl ConfigFile for BufferConfig {
    fn parse(text: &str, source: &str) -> Result<Self, ConfigError> {
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
            ram_output_register: f.ram_output_register.unwrap_or(false),
        };
        Ok(cfg)
    }

    fn check(&self, r: &Rules) -> Result<(), ConfigError> {
        let e = |field: &str, rule: String| r.fail(field, rule);
        r.power_of_two_in(
            "entries",
            self.entries as u64,
            MIN_ENTRIES as u64..=MAX_ENTRIES as u64,
        )?;
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
        r.in_range(
            "sample_interval",
            self.sample_interval,
            0..=(1u64 << SAMPLE_COUNT_BITS) - 1,
        )
    }
}

impl BufferConfig {
    /// Whether TOML text is a profile-buffer configuration (it has the `indexing` key, which no
    /// other configuration has).
    pub fn is_buffer_toml(text: &str) -> bool {
        toml_has_key(text, "indexing")
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
            "{} entries {} {}b shift {} S={}{}",
            self.entries,
            mode,
            self.counter_bits,
            self.pc_shift,
            self.sample_interval,
            if self.ram_output_register {
                " RAM output register"
            } else {
                ""
            }
        )
    }

    /// Address width of the block RAMs (one word per set): 8 (256 words, one iCE40 EBR of 16-bit
    /// words) up to 256 sets, else 10. The RAMs have 2^this words, so that synthesis maps even a
    /// small buffer to block RAM.
    pub fn ram_address_bits(&self) -> u32 {
        if self.sets() <= 256 {
            8
        } else {
            10
        }
    }

    /// The tag width of the RTL instance: the partial tag, or 1 unused bit in the direct modes.
    pub fn rtl_tag_width(&self) -> u32 {
        self.tag_bits.max(1)
    }
}

/// Low counter bits incremented inside the update loop; the high part's carry is resolved one
/// stage later (carry-save), so the loop holds a 4-bit increment, not a full-width one.
pub const LOW_BITS: usize = 4;
/// Per way in the meta RAM: the LRU age (low bits) and the valid flag (top bit).
pub const META_BITS: usize = AGE_BITS + 1;
/// Per way in the flags RAM, for each counter (taken, not-taken): its high part is full
/// (`counter_max` with the low bits zero) and its high part is one carry below full. Kept beside
/// the counts so no stage compares a block-RAM word.
pub const FLAG_BITS: usize = 4;
/// Cycles between a sampling point and the first readout read: the events still in the pipeline
/// (at most three) reach block RAM first.
pub const DRAIN_CYCLES: u64 = 3;
/// The same with the RAMs' output register: one more stage to drain (P), and the read itself
/// takes one more clock.
pub const DRAIN_CYCLES_OUTPUT_REGISTER: u64 = 5;

/// The profile buffer. `CW` = counter width, `TW` = tag width (1 and unused in the direct modes);
/// every other size comes from [`BufferConfig`] through `Constant`s and `Vec` lengths.
///
/// **Storage**: per way, five block RAMs of one word per set (num_taken, num_not_taken, partial
/// tag, meta = valid + LRU age, and the counters' saturation flags); one read and one write per
/// clock, registered read, old data on a same-address write ([`TableRam`]). A direct mode is one
/// way without tags (its tag and meta RAMs are optimised away).
///
/// **Output register** (`ram_output_register`): the words take one more clock to arrive, so an
/// event waits in *P* between accept and R, and R forwards from one more stage, *W3* (the event
/// four ahead wrote its set in the clock the RAM read this one's). Everything below is otherwise
/// the same; "the event offered now" then means the one in P.
///
/// **Pipeline** (one event per clock sustained): *accept* — the set's words are read, and the
/// set is compared with the events two and three ahead; *R* — the set as the events ahead left
/// it (*forwarded* whole from W or W2, else the RAM words) is registered, with its saturation
/// flags, the low bits' all-ones tests and its tag compared per way, and the set is compared with
/// the event one ahead; *S1* — the set from R, or from W when the event one ahead updated the
/// same set (the only one-clock loop: a 2:1 choice, the 4-bit increment and its flags), hit /
/// LRU victim, new ages, the counter's low bits incremented (carry-save: high part, low bits,
/// pending carry), and the hits of the event behind in the set this one leaves (its tags before
/// the update, the filled way holding this event's tag); *W* — the carry resolved,
/// the set written back; *W2* — the exact set kept one more clock, as the RAM read of an event
/// three behind returned old data.
///
/// **Age order**: beside the ages, each way of a set carries a row of bits, bit j = the way is
/// younger than way j. R computes the rows of RAM words (compares of two ages) or takes them
/// forwarded with the set; S1 reads "younger than the hit way" as the row AND the one-hot hit,
/// so the loop holds no age compare, and updates them (the target becomes the youngest).
///
/// **Decisions a clock ahead**: S1's target (the hit way, else the oldest) is a choice of
/// registered bits. Per source (the set from R, the set in W) the hits, "any way hit" and the
/// oldest way are registers: R decides them for the set it registers; S1 decides them for the
/// event behind in the set it leaves in W (the hits from the tags before the update, with the
/// replaced way holding this event's tag; the oldest from the updated age order). For that,
/// the event behind comes with its hits already known too: R and S1 compare the tag of the event
/// offered now (two behind) with the set they pass on.
///
/// **Saturation flags**: for each counter, F = its (resolved) high part is full and M = it is
/// one carry below full. A count saturates when F and the low bits are all ones; a carry out of
/// the low bits sets F exactly when M held. The flags travel with the counts (registers, RAM),
/// so the loop compares no wide word.
///
/// **Readout**: `DRAIN_CYCLES` after the sampling point, sets are read in order and each word
/// is held in the RAM's read register while `out_ready` is low (with the output register, a
/// clock without a word follows each set, as the next set's words arrive); when a set's last word is
/// accepted, the set is cleared (written with zero counts and the initial ages). Reset starts
/// the same sweep without output words, which empties the RAM.
#[derive(LogicBlock)]
pub struct ProfileBuffer<const CW: usize, const TW: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: ends any readout and empties the buffer (a sweep of `entries`
    /// + 1 cycles with `ev_ready` low follows).
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
    way_shift: Constant<Bits<8>>,
    way_mask: Constant<Bits<INDEX_BITS>>,
    last_entry: Constant<Bits<INDEX_BITS>>,
    max_age: Constant<Bits<META_BITS>>,
    age_mask: Constant<Bits<META_BITS>>,
    periodic: Constant<Bit>,
    /// `sample_interval` − 2 (wrapping; unused below 2) and whether `sample_interval` is at most 1.
    interval_m2: Constant<Bits<SAMPLE_COUNT_BITS>>,
    interval_m1_zero: Constant<Bit>,
    /// The counter's high part at saturation (counter_max with the low bits zero).
    high_max: Constant<Bits<CW>>,
    /// One carry into the high part: 2^LOW_BITS.
    carry_unit: Constant<Bits<CW>>,
    /// The high part one and two carries below saturation.
    high_below_max: Constant<Bits<CW>>,
    high_below_max2: Constant<Bits<CW>>,
    low_max: Constant<Bits<CW>>,
    /// The low bits one below all ones (an increment makes them all ones).
    low_below_max: Constant<Bits<CW>>,
    valid_flag: Constant<Bits<META_BITS>>,
    /// Bits of a flags word: taken F, taken M, not-taken F, not-taken M.
    flag_tf: Constant<Bits<FLAG_BITS>>,
    flag_tm: Constant<Bits<FLAG_BITS>>,
    flag_nf: Constant<Bits<FLAG_BITS>>,
    flag_nm: Constant<Bits<FLAG_BITS>>,
    way_id: Vec<Constant<Bits<INDEX_BITS>>>,
    meta0: Vec<Constant<Bits<META_BITS>>>,
    /// One bit per way (bit i of an age-order row or a way set), and all ways.
    way_bit: Vec<Constant<Bits<MAX_WAYS>>>,
    all_ways: Constant<Bits<MAX_WAYS>>,
    drain_cycles: Constant<Bits<3>>,
    /// The RAMs are read through their output register (the P stage and W3 are used).
    outreg: Constant<Bit>,
    // Block RAMs, one of each per way.
    ram_taken: Vec<TableRam<CW>>,
    ram_not_taken: Vec<TableRam<CW>>,
    ram_tag: Vec<TableRam<TW>>,
    ram_meta: Vec<TableRam<META_BITS>>,
    ram_flags: Vec<TableRam<FLAG_BITS>>,
    // Control.
    reading: DFF<Bit>,
    /// The sweep after reset: a readout without output words.
    silent: DFF<Bit>,
    drain: DFF<Bits<3>>,
    /// The RAM read register holds the word of entry `rd_ptr`.
    out_v: DFF<Bit>,
    rd_ptr: DFF<Bits<INDEX_BITS>>,
    /// `rd_ptr` + 1, registered beside it: the next read address waits on no carry chain.
    rd_ptr_next: DFF<Bits<INDEX_BITS>>,
    ev_count: DFF<Bits<SAMPLE_COUNT_BITS>>,
    /// `ev_count` is `sample_interval` − 1 (the next accepted event closes the sample), registered
    /// beside the count so the trigger waits on no 32-bit comparison; `count_next_last`: it is
    /// − 2 (`count_last` after one more event).
    count_last: DFF<Bit>,
    count_next_last: Signal<Local, Bit>,
    // P (output register only): the event whose set words are in the RAM's output register.
    p_v: DFF<Bit>,
    p_taken: DFF<Bit>,
    p_set: DFF<Bits<INDEX_BITS>>,
    p_tag: DFF<Bits<TW>>,
    // R: the event whose set words arrive from RAM; fw / fw2 / fw3: the event in W / W2 / W3
    // updated the same set (take its set instead).
    r_v: DFF<Bit>,
    r_taken: DFF<Bit>,
    r_set: DFF<Bits<INDEX_BITS>>,
    r_tag: DFF<Bits<TW>>,
    r_fw: DFF<Bit>,
    r_fw2: DFF<Bit>,
    r_fw3: DFF<Bit>,
    // S1: the event and its set as of R (exact counts and their flags); f1: the event in W
    // updated the same set (take it from W instead).
    s1_v: DFF<Bit>,
    s1_taken: DFF<Bit>,
    s1_set: DFF<Bits<INDEX_BITS>>,
    s1_tag: DFF<Bits<TW>>,
    s1_f1: DFF<Bit>,
    /// Copies of `s1_f1` for the tag and the two counters' selects, so the copy the hit and LRU
    /// decision reads drives few loads. Each differs in a don't-care (the next event in R
    /// invalid, reset), so synthesis does not merge them back into one register.
    s1_f1_tag: DFF<Bit>,
    s1_f1_t: DFF<Bit>,
    s1_f1_n: DFF<Bit>,
    /// Per way: the event's tag hits the set from R (decided in R) / the set the event one
    /// ahead leaves in W (decided in that event's S1, from the tags before its update).
    s1_hit_r: Vec<DFF<Bit>>,
    s1_hit_w: Vec<DFF<Bit>>,
    /// The event's tag hits some way of the set in W (decided with `s1_hit_w`).
    s1_any_w: DFF<Bit>,
    /// Per way: the oldest way (the LRU victim) of the set from R / of the set in W.
    s1_old_r: Vec<DFF<Bit>>,
    s1_old_w: Vec<DFF<Bit>>,
    /// The hits of the event behind (in R then), a clock ahead as well, so that S1 decides
    /// the `s1_hit_w`, `s1_any_w` of that event from registers: its tag against the set from R
    /// (decided in R) / against the set the event one ahead leaves in W (decided in that
    /// event's S1); and its tag equals this event's.
    s1_next_hit_r: Vec<DFF<Bit>>,
    s1_next_hit_w: Vec<DFF<Bit>>,
    s1_same_tag: DFF<Bit>,
    /// The low bits of each count are all ones (decided in R).
    s1_t_ones: Vec<DFF<Bit>>,
    s1_n_ones: Vec<DFF<Bit>>,
    s1_taken_count: Vec<DFF<Bits<CW>>>,
    s1_not_taken_count: Vec<DFF<Bits<CW>>>,
    s1_flags: Vec<DFF<Bits<FLAG_BITS>>>,
    s1_tag_of_way: Vec<DFF<Bits<TW>>>,
    s1_meta: Vec<DFF<Bits<META_BITS>>>,
    /// Age order of the set from R, per way: bit j = this way is younger than way j.
    s1_younger: Vec<DFF<Bits<MAX_WAYS>>>,
    // W: the updated set, counters carry-save (high part, low bits, pending carry) with F of the
    // resolved high part and `hm` = the high part register is one carry below full.
    w_v: DFF<Bit>,
    w_set: DFF<Bits<INDEX_BITS>>,
    w_t_high: Vec<DFF<Bits<CW>>>,
    w_t_low: Vec<DFF<Bits<CW>>>,
    w_t_carry: Vec<DFF<Bit>>,
    w_t_full: Vec<DFF<Bit>>,
    w_t_hm: Vec<DFF<Bit>>,
    /// The low bits are all ones (kept beside them, so the loop tests no 4-bit word).
    w_t_ones: Vec<DFF<Bit>>,
    w_n_high: Vec<DFF<Bits<CW>>>,
    w_n_low: Vec<DFF<Bits<CW>>>,
    w_n_carry: Vec<DFF<Bit>>,
    w_n_full: Vec<DFF<Bit>>,
    w_n_hm: Vec<DFF<Bit>>,
    w_n_ones: Vec<DFF<Bit>>,
    w_tag: Vec<DFF<Bits<TW>>>,
    w_meta: Vec<DFF<Bits<META_BITS>>>,
    /// The age order of the updated set (as `s1_younger`).
    w_younger: Vec<DFF<Bits<MAX_WAYS>>>,
    // W2: the set written one clock earlier, exact, with its flags.
    w2_v: DFF<Bit>,
    w2_set: DFF<Bits<INDEX_BITS>>,
    w2_taken: Vec<DFF<Bits<CW>>>,
    w2_not_taken: Vec<DFF<Bits<CW>>>,
    w2_flags: Vec<DFF<Bits<FLAG_BITS>>>,
    w2_tag: Vec<DFF<Bits<TW>>>,
    w2_meta: Vec<DFF<Bits<META_BITS>>>,
    w2_younger: Vec<DFF<Bits<MAX_WAYS>>>,
    // W3 (output register only): the set written two clocks earlier.
    w3_v: DFF<Bit>,
    w3_set: DFF<Bits<INDEX_BITS>>,
    w3_taken: Vec<DFF<Bits<CW>>>,
    w3_not_taken: Vec<DFF<Bits<CW>>>,
    w3_flags: Vec<DFF<Bits<FLAG_BITS>>>,
    w3_tag: Vec<DFF<Bits<TW>>>,
    w3_meta: Vec<DFF<Bits<META_BITS>>>,
    w3_younger: Vec<DFF<Bits<MAX_WAYS>>>,
    // Accept stage.
    accept: Signal<Local, Bit>,
    trigger: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    next_ptr: Signal<Local, Bits<INDEX_BITS>>,
    clear_set: Signal<Local, Bit>,
    read_set: Signal<Local, Bits<INDEX_BITS>>,
    rd_set: Signal<Local, Bits<INDEX_BITS>>,
    shifted_pc: Signal<Local, Bits<PC_BITS>>,
    tag_pc: Signal<Local, Bits<PC_BITS>>,
    set_index: Signal<Local, Bits<INDEX_BITS>>,
    /// The event that enters R at the next clock: the one accepted now, or the one in P.
    r_in_v: Signal<Local, Bit>,
    r_in_taken: Signal<Local, Bit>,
    r_in_set: Signal<Local, Bits<INDEX_BITS>>,
    r_in_tag: Signal<Local, Bits<TW>>,
    // W: exact values and the flags of what is written.
    w_t_exact: Vec<Signal<Local, Bits<CW>>>,
    w_n_exact: Vec<Signal<Local, Bits<CW>>>,
    w_t_resolved: Vec<Signal<Local, Bits<CW>>>,
    w_n_resolved: Vec<Signal<Local, Bits<CW>>>,
    /// M of the resolved high part (the pending carry taken into account).
    w_t_rm: Vec<Signal<Local, Bit>>,
    w_n_rm: Vec<Signal<Local, Bit>>,
    w_flags: Vec<Signal<Local, Bits<FLAG_BITS>>>,
    // S1: the set as it is, per way, and its update.
    /// The tag of the event offered now (in R next clock): `r_in_tag`.
    c_tag: Signal<Local, Bits<TW>>,
    /// The offered event's tag hits way i of the set in W.
    c_hit_w: Vec<Signal<Local, Bit>>,
    /// The offered event's tag hits way i of the set S1 chooses.
    c_hit: Vec<Signal<Local, Bit>>,
    /// The event in R hits way i of the set S1 chooses (before this event's update); some way;
    /// the oldest way.
    next_hit: Vec<Signal<Local, Bit>>,
    next_any: Signal<Local, Bit>,
    next_at_old: Signal<Local, Bit>,
    hit: Vec<Signal<Local, Bit>>,
    /// The oldest way of the set S1 chooses; the way this event replaces (a miss's victim).
    old: Vec<Signal<Local, Bit>>,
    repl: Vec<Signal<Local, Bit>>,
    any_hit_r: Signal<Local, Bit>,
    new_younger: Vec<Signal<Local, Bits<MAX_WAYS>>>,
    t_high: Vec<Signal<Local, Bits<CW>>>,
    t_low: Vec<Signal<Local, Bits<CW>>>,
    t_full: Vec<Signal<Local, Bit>>,
    /// M, valid where it matters: when the low bits are all ones (no carry pends then).
    t_hm: Vec<Signal<Local, Bit>>,
    /// M of the resolved high part, always valid (becomes the next W's `hm`).
    t_rm: Vec<Signal<Local, Bit>>,
    /// The low bits are all ones: decided per source, before the 2:1 choice.
    t_ones: Vec<Signal<Local, Bit>>,
    n_high: Vec<Signal<Local, Bits<CW>>>,
    n_low: Vec<Signal<Local, Bits<CW>>>,
    n_full: Vec<Signal<Local, Bit>>,
    n_hm: Vec<Signal<Local, Bit>>,
    n_rm: Vec<Signal<Local, Bit>>,
    n_ones: Vec<Signal<Local, Bit>>,
    tag: Vec<Signal<Local, Bits<TW>>>,
    meta: Vec<Signal<Local, Bits<META_BITS>>>,
    age: Vec<Signal<Local, Bits<META_BITS>>>,
    /// age + 1, per source before the 2:1 choice (no adder after it).
    age_inc: Vec<Signal<Local, Bits<META_BITS>>>,
    /// The age order of the RAM words in R, per way (as `s1_younger`).
    ram_younger: Vec<Signal<Local, Bits<MAX_WAYS>>>,
    /// The age order of the set S1 chooses.
    younger: Vec<Signal<Local, Bits<MAX_WAYS>>>,
    /// The hit ways and the target ways, one bit per way.
    hit_ways: Signal<Local, Bits<MAX_WAYS>>,
    target_ways: Signal<Local, Bits<MAX_WAYS>>,
    /// The way is younger than the hit way (false on a miss).
    younger_than_hit: Vec<Signal<Local, Bit>>,
    target: Vec<Signal<Local, Bit>>,
    new_age: Vec<Signal<Local, Bits<META_BITS>>>,
    any_hit: Signal<Local, Bit>,
    // Readout word of the way `rd_ptr` names.
    sel_taken: Signal<Local, Bits<CW>>,
    sel_not_taken: Signal<Local, Bits<CW>>,
    sel_tag: Signal<Local, Bits<TW>>,
}

impl<const CW: usize, const TW: usize> ProfileBuffer<CW, TW> {
    /// Builds the block for `cfg`; panics if `CW`/`TW` disagree with it (use
    /// [`with_profile_buffer!`](crate::with_profile_buffer)).
    pub fn new(cfg: &BufferConfig) -> Self {
        assert_eq!(CW as u32, cfg.counter_bits, "counter width");
        assert_eq!(TW as u32, cfg.rtl_tag_width(), "tag width");
        cfg.validate().expect("valid profile-buffer config");
        let w = cfg.ways;
        let words = 1usize << cfg.ram_address_bits();
        fn rams<const D: usize>(
            cfg: &BufferConfig,
            words: usize,
            width: usize,
        ) -> Vec<TableRam<D>> {
            (0..cfg.ways)
                .map(|_| match cfg.ram_output_register {
                    true => TableRam::with_output_register(words, width),
                    false => TableRam::new(words, width),
                })
                .collect()
        }
        let low_max = (1u64 << LOW_BITS) - 1;
        let high_max = cfg.counter_max() & !low_max;
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
            way_shift: k(w.trailing_zeros() as u64),
            way_mask: k(w as u64 - 1),
            last_entry: k(cfg.entries as u64 - 1),
            max_age: k(w as u64 - 1),
            age_mask: k((1 << AGE_BITS) - 1),
            periodic: Constant::new(cfg.sample_interval != 0),
            interval_m2: k(cfg.sample_interval.wrapping_sub(2) & ((1u64 << SAMPLE_COUNT_BITS) - 1)),
            interval_m1_zero: Constant::new(cfg.sample_interval.saturating_sub(1) == 0),
            high_max: k(high_max),
            carry_unit: k(1 << LOW_BITS),
            high_below_max: k(high_max - (1 << LOW_BITS)),
            high_below_max2: k(high_max - (2 << LOW_BITS)),
            low_max: k(low_max),
            low_below_max: k(low_max - 1),
            valid_flag: k(1 << AGE_BITS),
            flag_tf: k(1),
            flag_tm: k(2),
            flag_nf: k(4),
            flag_nm: k(8),
            way_id: (0..w).map(|i| k(i as u64)).collect(),
            meta0: (0..w).map(|i| k(cfg.initial_age(i))).collect(),
            way_bit: (0..w).map(|i| k(1 << i)).collect(),
            all_ways: k((1 << w) - 1),
            drain_cycles: k(if cfg.ram_output_register {
                DRAIN_CYCLES_OUTPUT_REGISTER
            } else {
                DRAIN_CYCLES
            }),
            outreg: Constant::new(cfg.ram_output_register),
            ram_taken: rams(cfg, words, CW),
            ram_not_taken: rams(cfg, words, CW),
            ram_tag: rams(cfg, words, TW),
            ram_meta: rams(cfg, words, META_BITS),
            ram_flags: rams(cfg, words, FLAG_BITS),
            reading: Default::default(),
            silent: Default::default(),
            drain: Default::default(),
            out_v: Default::default(),
            rd_ptr: Default::default(),
            rd_ptr_next: Default::default(),
            ev_count: Default::default(),
            count_last: Default::default(),
            count_next_last: Default::default(),
            p_v: Default::default(),
            p_taken: Default::default(),
            p_set: Default::default(),
            p_tag: Default::default(),
            r_v: Default::default(),
            r_taken: Default::default(),
            r_set: Default::default(),
            r_tag: Default::default(),
            r_fw: Default::default(),
            r_fw2: Default::default(),
            r_fw3: Default::default(),
            s1_v: Default::default(),
            s1_taken: Default::default(),
            s1_set: Default::default(),
            s1_tag: Default::default(),
            s1_f1: Default::default(),
            s1_f1_tag: Default::default(),
            s1_f1_t: Default::default(),
            s1_f1_n: Default::default(),
            s1_hit_r: per_way(w),
            s1_hit_w: per_way(w),
            s1_any_w: Default::default(),
            s1_old_r: per_way(w),
            s1_old_w: per_way(w),
            s1_next_hit_r: per_way(w),
            s1_next_hit_w: per_way(w),
            s1_same_tag: Default::default(),
            s1_t_ones: per_way(w),
            s1_n_ones: per_way(w),
            s1_taken_count: per_way(w),
            s1_not_taken_count: per_way(w),
            s1_flags: per_way(w),
            s1_tag_of_way: per_way(w),
            s1_meta: per_way(w),
            s1_younger: per_way(w),
            w_v: Default::default(),
            w_set: Default::default(),
            w_t_high: per_way(w),
            w_t_low: per_way(w),
            w_t_carry: per_way(w),
            w_t_full: per_way(w),
            w_t_hm: per_way(w),
            w_t_ones: per_way(w),
            w_n_high: per_way(w),
            w_n_low: per_way(w),
            w_n_carry: per_way(w),
            w_n_full: per_way(w),
            w_n_hm: per_way(w),
            w_n_ones: per_way(w),
            w_tag: per_way(w),
            w_meta: per_way(w),
            w_younger: per_way(w),
            w2_v: Default::default(),
            w2_set: Default::default(),
            w2_taken: per_way(w),
            w2_not_taken: per_way(w),
            w2_flags: per_way(w),
            w2_tag: per_way(w),
            w2_meta: per_way(w),
            w2_younger: per_way(w),
            w3_v: Default::default(),
            w3_set: Default::default(),
            w3_taken: per_way(w),
            w3_not_taken: per_way(w),
            w3_flags: per_way(w),
            w3_tag: per_way(w),
            w3_meta: per_way(w),
            w3_younger: per_way(w),
            accept: Default::default(),
            trigger: Default::default(),
            advance: Default::default(),
            next_ptr: Default::default(),
            clear_set: Default::default(),
            read_set: Default::default(),
            rd_set: Default::default(),
            shifted_pc: Default::default(),
            tag_pc: Default::default(),
            set_index: Default::default(),
            r_in_v: Default::default(),
            r_in_taken: Default::default(),
            r_in_set: Default::default(),
            r_in_tag: Default::default(),
            w_t_exact: per_way(w),
            w_n_exact: per_way(w),
            w_t_resolved: per_way(w),
            w_n_resolved: per_way(w),
            w_t_rm: per_way(w),
            w_n_rm: per_way(w),
            w_flags: per_way(w),
            c_tag: Default::default(),
            c_hit_w: per_way(w),
            c_hit: per_way(w),
            next_hit: per_way(w),
            next_any: Default::default(),
            next_at_old: Default::default(),
            hit: per_way(w),
            old: per_way(w),
            repl: per_way(w),
            any_hit_r: Default::default(),
            new_younger: per_way(w),
            t_high: per_way(w),
            t_low: per_way(w),
            t_full: per_way(w),
            t_hm: per_way(w),
            t_rm: per_way(w),
            t_ones: per_way(w),
            n_high: per_way(w),
            n_low: per_way(w),
            n_full: per_way(w),
            n_hm: per_way(w),
            n_rm: per_way(w),
            n_ones: per_way(w),
            tag: per_way(w),
            meta: per_way(w),
            age: per_way(w),
            age_inc: per_way(w),
            ram_younger: per_way(w),
            younger: per_way(w),
            hit_ways: Default::default(),
            target_ways: Default::default(),
            younger_than_hit: per_way(w),
            target: per_way(w),
            new_age: per_way(w),
            any_hit: Default::default(),
            sel_taken: Default::default(),
            sel_not_taken: Default::default(),
            sel_tag: Default::default(),
        }
    }
}

impl<const CW: usize, const TW: usize> Logic for ProfileBuffer<CW, TW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            reading,
            silent,
            drain,
            out_v,
            rd_ptr,
            rd_ptr_next,
            ev_count,
            count_last,
            p_v,
            p_taken,
            p_set,
            p_tag,
            r_v,
            r_taken,
            r_set,
            r_tag,
            r_fw,
            r_fw2,
            r_fw3,
            s1_v,
            s1_taken,
            s1_set,
            s1_tag,
            s1_f1,
            s1_f1_tag,
            s1_f1_t,
            s1_f1_n,
            s1_any_w,
            s1_same_tag,
            w_v,
            w_set,
            w2_v,
            w2_set,
            w3_v,
            w3_set
        );
        for i in 0..self.ram_taken.len() {
            self.s1_hit_r[i].clock.next = self.clock.val();
            self.s1_hit_w[i].clock.next = self.clock.val();
            self.s1_old_r[i].clock.next = self.clock.val();
            self.s1_old_w[i].clock.next = self.clock.val();
            self.s1_next_hit_r[i].clock.next = self.clock.val();
            self.s1_next_hit_w[i].clock.next = self.clock.val();
            self.s1_t_ones[i].clock.next = self.clock.val();
            self.s1_n_ones[i].clock.next = self.clock.val();
            self.w_t_ones[i].clock.next = self.clock.val();
            self.w_n_ones[i].clock.next = self.clock.val();
            self.s1_taken_count[i].clock.next = self.clock.val();
            self.s1_not_taken_count[i].clock.next = self.clock.val();
            self.s1_flags[i].clock.next = self.clock.val();
            self.s1_tag_of_way[i].clock.next = self.clock.val();
            self.s1_meta[i].clock.next = self.clock.val();
            self.s1_younger[i].clock.next = self.clock.val();
            self.w_younger[i].clock.next = self.clock.val();
            self.w2_younger[i].clock.next = self.clock.val();
            self.w3_taken[i].clock.next = self.clock.val();
            self.w3_not_taken[i].clock.next = self.clock.val();
            self.w3_flags[i].clock.next = self.clock.val();
            self.w3_tag[i].clock.next = self.clock.val();
            self.w3_meta[i].clock.next = self.clock.val();
            self.w3_younger[i].clock.next = self.clock.val();
            self.w_t_high[i].clock.next = self.clock.val();
            self.w_t_low[i].clock.next = self.clock.val();
            self.w_t_carry[i].clock.next = self.clock.val();
            self.w_t_full[i].clock.next = self.clock.val();
            self.w_t_hm[i].clock.next = self.clock.val();
            self.w_n_high[i].clock.next = self.clock.val();
            self.w_n_low[i].clock.next = self.clock.val();
            self.w_n_carry[i].clock.next = self.clock.val();
            self.w_n_full[i].clock.next = self.clock.val();
            self.w_n_hm[i].clock.next = self.clock.val();
            self.w_tag[i].clock.next = self.clock.val();
            self.w_meta[i].clock.next = self.clock.val();
            self.w2_taken[i].clock.next = self.clock.val();
            self.w2_not_taken[i].clock.next = self.clock.val();
            self.w2_flags[i].clock.next = self.clock.val();
            self.w2_tag[i].clock.next = self.clock.val();
            self.w2_meta[i].clock.next = self.clock.val();
            self.ram_taken[i].read_clock.next = self.clock.val();
            self.ram_taken[i].write_clock.next = self.clock.val();
            self.ram_not_taken[i].read_clock.next = self.clock.val();
            self.ram_not_taken[i].write_clock.next = self.clock.val();
            self.ram_tag[i].read_clock.next = self.clock.val();
            self.ram_tag[i].write_clock.next = self.clock.val();
            self.ram_meta[i].read_clock.next = self.clock.val();
            self.ram_meta[i].write_clock.next = self.clock.val();
            self.ram_flags[i].read_clock.next = self.clock.val();
            self.ram_flags[i].write_clock.next = self.clock.val();
        }
        // Accept: events are taken only outside a readout (and its drain, and the reset sweep).
        self.ev_ready.next = !self.reading.q.val() & !self.reset.val();
        self.accept.next = self.ev_valid.val() & !self.reading.q.val() & !self.reset.val();
        self.shifted_pc.next = self.ev_pc.val() >> self.pc_shift.val();
        self.tag_pc.next = self.ev_pc.val() >> self.tag_shift.val();
        if self.use_index.val() {
            self.set_index.next = self.ev_index.val() & self.set_mask.val();
        } else {
            self.set_index.next =
                self.shifted_pc.val().get_bits::<INDEX_BITS>(0) & self.set_mask.val();
        }
        self.p_v.d.next = self.accept.val();
        self.p_taken.d.next = self.ev_taken.val();
        self.p_set.d.next = self.set_index.val();
        self.p_tag.d.next = self.tag_pc.val().get_bits::<TW>(0);
        self.r_in_v.next = self.accept.val();
        self.r_in_taken.next = self.ev_taken.val();
        self.r_in_set.next = self.set_index.val();
        self.r_in_tag.next = self.tag_pc.val().get_bits::<TW>(0);
        if self.outreg.val() {
            self.r_in_v.next = self.p_v.q.val();
            self.r_in_taken.next = self.p_taken.q.val();
            self.r_in_set.next = self.p_set.q.val();
            self.r_in_tag.next = self.p_tag.q.val();
        }
        self.r_v.d.next = self.r_in_v.val();
        self.r_taken.d.next = self.r_in_taken.val();
        self.r_set.d.next = self.r_in_set.val();
        self.c_tag.next = self.r_in_tag.val();
        self.r_tag.d.next = self.c_tag.val();
        // The events two, three and four ahead are in S1, W and W2 now: in W, W2 and W3 while
        // this one is in R.
        self.r_fw.d.next = self.s1_v.q.val() & (self.s1_set.q.val() == self.r_in_set.val());
        self.r_fw2.d.next = self.w_v.q.val() & (self.w_set.q.val() == self.r_in_set.val());
        self.r_fw3.d.next =
            self.outreg.val() & self.w2_v.q.val() & (self.w2_set.q.val() == self.r_in_set.val());

        // Readout: the RAM read register shows entry rd_ptr's set while out_v; it advances
        // when the word is taken (always, in the silent sweep).
        self.advance.next = self.out_v.q.val() & (self.out_ready.val() | self.silent.q.val());
        self.next_ptr.next = self.rd_ptr.q.val();
        if self.advance.val() {
            self.next_ptr.next = self.rd_ptr_next.q.val();
        }
        self.out_valid.next = self.out_v.q.val() & !self.silent.q.val();
        self.out_index.next = self.rd_ptr.q.val();
        self.out_last.next = self.rd_ptr.q.val() == self.last_entry.val();
        self.clear_set.next = self.advance.val()
            & ((self.rd_ptr.q.val() & self.way_mask.val()) == self.way_mask.val());
        self.rd_set.next = self.rd_ptr.q.val() >> self.way_shift.val();
        self.read_set.next = self.set_index.val();
        if self.reading.q.val() {
            self.read_set.next = self.next_ptr.val() >> self.way_shift.val();
            if self.drain.q.val() != 0 {
                self.drain.d.next = self.drain.q.val() - 1;
            } else {
                // With the output register the next set's words arrive a clock later.
                self.out_v.d.next = !(self.outreg.val() & self.clear_set.val());
                self.rd_ptr.d.next = self.next_ptr.val();
                if self.advance.val() & self.out_last.val() {
                    self.reading.d.next = false;
                    self.silent.d.next = false;
                    self.out_v.d.next = false;
                }
            }
        }
        // Sampling point: every `sample_interval` events, or on the strobe.
        self.trigger.next = self.sample.val() & !self.reading.q.val();
        self.count_next_last.next = self.ev_count.q.val() == self.interval_m2.val();
        if self.accept.val() {
            self.ev_count.d.next = self.ev_count.q.val() + 1;
            self.count_last.d.next = self.count_next_last.val();
            if self.periodic.val() & self.count_last.q.val() {
                self.trigger.next = true;
            }
        }
        if self.trigger.val() {
            self.reading.d.next = true;
            self.drain.d.next = self.drain_cycles.val();
            self.rd_ptr.d.next = 0.into();
            self.ev_count.d.next = 0.into();
            self.count_last.d.next = self.interval_m1_zero.val();
        }

        // W: resolve the pending carries; the exact set and its flags go to RAM and on to W2.
        self.w2_v.d.next = self.w_v.q.val();
        self.w2_set.d.next = self.w_set.q.val();
        self.w3_v.d.next = self.w2_v.q.val();
        self.w3_set.d.next = self.w2_set.q.val();
        for i in 0..self.ram_taken.len() {
            self.w_t_resolved[i].next = self.w_t_high[i].q.val();
            self.w_t_rm[i].next = self.w_t_hm[i].q.val();
            if self.w_t_carry[i].q.val() {
                self.w_t_resolved[i].next = self.w_t_high[i].q.val() + self.carry_unit.val();
                self.w_t_rm[i].next = self.w_t_high[i].q.val() == self.high_below_max2.val();
            }
            self.w_n_resolved[i].next = self.w_n_high[i].q.val();
            self.w_n_rm[i].next = self.w_n_hm[i].q.val();
            if self.w_n_carry[i].q.val() {
                self.w_n_resolved[i].next = self.w_n_high[i].q.val() + self.carry_unit.val();
                self.w_n_rm[i].next = self.w_n_high[i].q.val() == self.high_below_max2.val();
            }
            self.w_t_exact[i].next = self.w_t_resolved[i].val() | self.w_t_low[i].q.val();
            self.w_n_exact[i].next = self.w_n_resolved[i].val() | self.w_n_low[i].q.val();
            self.w_flags[i].next = 0.into();
            if self.w_t_full[i].q.val() {
                self.w_flags[i].next = self.w_flags[i].val() | self.flag_tf.val();
            }
            if self.w_t_rm[i].val() {
                self.w_flags[i].next = self.w_flags[i].val() | self.flag_tm.val();
            }
            if self.w_n_full[i].q.val() {
                self.w_flags[i].next = self.w_flags[i].val() | self.flag_nf.val();
            }
            if self.w_n_rm[i].val() {
                self.w_flags[i].next = self.w_flags[i].val() | self.flag_nm.val();
            }
            self.w2_taken[i].d.next = self.w_t_exact[i].val();
            self.w2_not_taken[i].d.next = self.w_n_exact[i].val();
            self.w2_flags[i].d.next = self.w_flags[i].val();
            self.w2_tag[i].d.next = self.w_tag[i].q.val();
            self.w2_meta[i].d.next = self.w_meta[i].q.val();
            self.w2_younger[i].d.next = self.w_younger[i].q.val();
            self.w3_taken[i].d.next = self.w2_taken[i].q.val();
            self.w3_not_taken[i].d.next = self.w2_not_taken[i].q.val();
            self.w3_flags[i].d.next = self.w2_flags[i].q.val();
            self.w3_tag[i].d.next = self.w2_tag[i].q.val();
            self.w3_meta[i].d.next = self.w2_meta[i].q.val();
            self.w3_younger[i].d.next = self.w2_younger[i].q.val();
            // The one write port: the event in W, else the clearing of a set read out.
            self.ram_taken[i].write_address.next =
                bit_cast::<ADDRESS_BITS, INDEX_BITS>(self.w_set.q.val());
            self.ram_taken[i].write_data.next = self.w_t_exact[i].val();
            self.ram_not_taken[i].write_data.next = self.w_n_exact[i].val();
            self.ram_tag[i].write_data.next = self.w_tag[i].q.val();
            self.ram_meta[i].write_data.next = self.w_meta[i].q.val();
            self.ram_flags[i].write_data.next = self.w_flags[i].val();
            if !self.w_v.q.val() {
                self.ram_taken[i].write_address.next =
                    bit_cast::<ADDRESS_BITS, INDEX_BITS>(self.rd_set.val());
                self.ram_taken[i].write_data.next = 0.into();
                self.ram_not_taken[i].write_data.next = 0.into();
                self.ram_tag[i].write_data.next = 0.into();
                self.ram_meta[i].write_data.next = self.meta0[i].val();
                self.ram_flags[i].write_data.next = 0.into();
            }
            self.ram_not_taken[i].write_address.next = self.ram_taken[i].write_address.val();
            self.ram_tag[i].write_address.next = self.ram_taken[i].write_address.val();
            self.ram_meta[i].write_address.next = self.ram_taken[i].write_address.val();
            self.ram_flags[i].write_address.next = self.ram_taken[i].write_address.val();
            self.ram_taken[i].write_enable.next = self.w_v.q.val() | self.clear_set.val();
            self.ram_not_taken[i].write_enable.next = self.ram_taken[i].write_enable.val();
            self.ram_tag[i].write_enable.next = self.ram_taken[i].write_enable.val();
            self.ram_meta[i].write_enable.next = self.ram_taken[i].write_enable.val();
            self.ram_flags[i].write_enable.next = self.ram_taken[i].write_enable.val();
            self.ram_taken[i].read_address.next =
                bit_cast::<ADDRESS_BITS, INDEX_BITS>(self.read_set.val());
            self.ram_not_taken[i].read_address.next =
                bit_cast::<ADDRESS_BITS, INDEX_BITS>(self.read_set.val());
            self.ram_tag[i].read_address.next =
                bit_cast::<ADDRESS_BITS, INDEX_BITS>(self.read_set.val());
            self.ram_meta[i].read_address.next =
                bit_cast::<ADDRESS_BITS, INDEX_BITS>(self.read_set.val());
            self.ram_flags[i].read_address.next =
                bit_cast::<ADDRESS_BITS, INDEX_BITS>(self.read_set.val());
        }

        // R: the set as the events two, three (and four) ahead leave it (from W, W2, W3, else RAM),
        // registered whole with its flags (set-level forwarding).
        self.s1_v.d.next = self.r_v.q.val();
        self.s1_taken.d.next = self.r_taken.q.val();
        self.s1_set.d.next = self.r_set.q.val();
        self.s1_tag.d.next = self.r_tag.q.val();
        self.s1_same_tag.d.next = self.r_tag.q.val() == self.c_tag.val();
        // The event one ahead is in S1 now: in W while this one is in S1.
        self.s1_f1.d.next = self.s1_v.q.val() & (self.s1_set.q.val() == self.r_set.q.val());
        self.s1_f1_tag.d.next =
            self.s1_v.q.val() & (self.s1_set.q.val() == self.r_set.q.val()) & self.r_v.q.val();
        self.s1_f1_t.d.next = self.s1_v.q.val() & (self.s1_set.q.val() == self.r_set.q.val());
        self.s1_f1_n.d.next =
            self.s1_v.q.val() & (self.s1_set.q.val() == self.r_set.q.val()) & self.r_v.q.val();
        // The age order of the RAM words: a forwarded set brings its own.
        for i in 0..self.ram_taken.len() {
            self.ram_younger[i].next = 0.into();
            for j in 0..self.ram_taken.len() {
                if (self.ram_meta[i].read_data.val() & self.age_mask.val())
                    < (self.ram_meta[j].read_data.val() & self.age_mask.val())
                {
                    self.ram_younger[i].next = self.ram_younger[i].val() | self.way_bit[j].val();
                }
            }
        }
        for i in 0..self.ram_taken.len() {
            self.c_hit_w[i].next = (self.w_meta[i].q.val() & self.valid_flag.val()).any()
                & (self.w_tag[i].q.val() == self.c_tag.val());
            if self.r_fw.q.val() {
                self.s1_old_r[i].d.next =
                    (self.w_meta[i].q.val() & self.age_mask.val()) == self.max_age.val();
                self.s1_next_hit_r[i].d.next = self.c_hit_w[i].val();
                self.s1_taken_count[i].d.next = self.w_t_exact[i].val();
                self.s1_not_taken_count[i].d.next = self.w_n_exact[i].val();
                self.s1_flags[i].d.next = self.w_flags[i].val();
                self.s1_tag_of_way[i].d.next = self.w_tag[i].q.val();
                self.s1_meta[i].d.next = self.w_meta[i].q.val();
                self.s1_younger[i].d.next = self.w_younger[i].q.val();
                self.s1_hit_r[i].d.next = (self.w_meta[i].q.val() & self.valid_flag.val()).any()
                    & (self.w_tag[i].q.val() == self.r_tag.q.val());
                self.s1_t_ones[i].d.next = self.w_t_ones[i].q.val();
                self.s1_n_ones[i].d.next = self.w_n_ones[i].q.val();
            } else if self.r_fw2.q.val() {
                self.s1_old_r[i].d.next =
                    (self.w2_meta[i].q.val() & self.age_mask.val()) == self.max_age.val();
                self.s1_next_hit_r[i].d.next = (self.w2_meta[i].q.val() & self.valid_flag.val())
                    .any()
                    & (self.w2_tag[i].q.val() == self.c_tag.val());
                self.s1_taken_count[i].d.next = self.w2_taken[i].q.val();
                self.s1_not_taken_count[i].d.next = self.w2_not_taken[i].q.val();
                self.s1_flags[i].d.next = self.w2_flags[i].q.val();
                self.s1_tag_of_way[i].d.next = self.w2_tag[i].q.val();
                self.s1_meta[i].d.next = self.w2_meta[i].q.val();
                self.s1_younger[i].d.next = self.w2_younger[i].q.val();
                self.s1_hit_r[i].d.next = (self.w2_meta[i].q.val() & self.valid_flag.val()).any()
                    & (self.w2_tag[i].q.val() == self.r_tag.q.val());
                self.s1_t_ones[i].d.next =
                    (self.w2_taken[i].q.val() & self.low_max.val()) == self.low_max.val();
                self.s1_n_ones[i].d.next =
                    (self.w2_not_taken[i].q.val() & self.low_max.val()) == self.low_max.val();
            } else if self.r_fw3.q.val() {
                self.s1_old_r[i].d.next =
                    (self.w3_meta[i].q.val() & self.age_mask.val()) == self.max_age.val();
                self.s1_next_hit_r[i].d.next = (self.w3_meta[i].q.val() & self.valid_flag.val())
                    .any()
                    & (self.w3_tag[i].q.val() == self.c_tag.val());
                self.s1_taken_count[i].d.next = self.w3_taken[i].q.val();
                self.s1_not_taken_count[i].d.next = self.w3_not_taken[i].q.val();
                self.s1_flags[i].d.next = self.w3_flags[i].q.val();
                self.s1_tag_of_way[i].d.next = self.w3_tag[i].q.val();
                self.s1_meta[i].d.next = self.w3_meta[i].q.val();
                self.s1_younger[i].d.next = self.w3_younger[i].q.val();
                self.s1_hit_r[i].d.next = (self.w3_meta[i].q.val() & self.valid_flag.val()).any()
                    & (self.w3_tag[i].q.val() == self.r_tag.q.val());
                self.s1_t_ones[i].d.next =
                    (self.w3_taken[i].q.val() & self.low_max.val()) == self.low_max.val();
                self.s1_n_ones[i].d.next =
                    (self.w3_not_taken[i].q.val() & self.low_max.val()) == self.low_max.val();
            } else {
                self.s1_old_r[i].d.next =
                    (self.ram_meta[i].read_data.val() & self.age_mask.val()) == self.max_age.val();
                self.s1_next_hit_r[i].d.next =
                    (self.ram_meta[i].read_data.val() & self.valid_flag.val()).any()
                        & (self.ram_tag[i].read_data.val() == self.c_tag.val());
                self.s1_taken_count[i].d.next = self.ram_taken[i].read_data.val();
                self.s1_not_taken_count[i].d.next = self.ram_not_taken[i].read_data.val();
                self.s1_flags[i].d.next = self.ram_flags[i].read_data.val();
                self.s1_tag_of_way[i].d.next = self.ram_tag[i].read_data.val();
                self.s1_meta[i].d.next = self.ram_meta[i].read_data.val();
                self.s1_younger[i].d.next = self.ram_younger[i].val();
                self.s1_hit_r[i].d.next =
                    (self.ram_meta[i].read_data.val() & self.valid_flag.val()).any()
                        & (self.ram_tag[i].read_data.val() == self.r_tag.q.val());
                self.s1_t_ones[i].d.next =
                    (self.ram_taken[i].read_data.val() & self.low_max.val()) == self.low_max.val();
                self.s1_n_ones[i].d.next = (self.ram_not_taken[i].read_data.val()
                    & self.low_max.val())
                    == self.low_max.val();
            }
        }

        // S1, per way: the set from R, or from W (the one-clock loop); the hits were decided a
        // clock earlier.
        for i in 0..self.ram_taken.len() {
            if self.s1_f1.q.val() {
                self.hit[i].next = self.s1_hit_w[i].q.val();
                self.old[i].next = self.s1_old_w[i].q.val();
                self.next_hit[i].next = self.s1_next_hit_w[i].q.val();
                self.c_hit[i].next = self.c_hit_w[i].val();
                self.meta[i].next = self.w_meta[i].q.val();
                self.age_inc[i].next = (self.w_meta[i].q.val() & self.age_mask.val()) + 1;
                self.younger[i].next = self.w_younger[i].q.val();
            } else {
                self.hit[i].next = self.s1_hit_r[i].q.val();
                self.old[i].next = self.s1_old_r[i].q.val();
                self.next_hit[i].next = self.s1_next_hit_r[i].q.val();
                self.c_hit[i].next = (self.s1_meta[i].q.val() & self.valid_flag.val()).any()
                    & (self.s1_tag_of_way[i].q.val() == self.c_tag.val());
                self.meta[i].next = self.s1_meta[i].q.val();
                self.age_inc[i].next = (self.s1_meta[i].q.val() & self.age_mask.val()) + 1;
                self.younger[i].next = self.s1_younger[i].q.val();
            }
            self.tag[i].next = self.s1_tag_of_way[i].q.val();
            if self.s1_f1_tag.q.val() {
                self.tag[i].next = self.w_tag[i].q.val();
            }
            if self.s1_f1_t.q.val() {
                self.t_high[i].next = self.w_t_resolved[i].val();
                self.t_low[i].next = self.w_t_low[i].q.val();
                self.t_full[i].next = self.w_t_full[i].q.val();
                self.t_hm[i].next = self.w_t_hm[i].q.val();
                self.t_rm[i].next = self.w_t_rm[i].val();
                self.t_ones[i].next = self.w_t_ones[i].q.val();
            } else {
                self.t_high[i].next = self.s1_taken_count[i].q.val() & self.high_max.val();
                self.t_low[i].next = self.s1_taken_count[i].q.val() & self.low_max.val();
                self.t_full[i].next = (self.s1_flags[i].q.val() & self.flag_tf.val()).any();
                self.t_hm[i].next = (self.s1_flags[i].q.val() & self.flag_tm.val()).any();
                self.t_rm[i].next = self.t_hm[i].val();
                self.t_ones[i].next = self.s1_t_ones[i].q.val();
            }
            if self.s1_f1_n.q.val() {
                self.n_high[i].next = self.w_n_resolved[i].val();
                self.n_low[i].next = self.w_n_low[i].q.val();
                self.n_full[i].next = self.w_n_full[i].q.val();
                self.n_hm[i].next = self.w_n_hm[i].q.val();
                self.n_rm[i].next = self.w_n_rm[i].val();
                self.n_ones[i].next = self.w_n_ones[i].q.val();
            } else {
                self.n_high[i].next = self.s1_not_taken_count[i].q.val() & self.high_max.val();
                self.n_low[i].next = self.s1_not_taken_count[i].q.val() & self.low_max.val();
                self.n_full[i].next = (self.s1_flags[i].q.val() & self.flag_nf.val()).any();
                self.n_hm[i].next = (self.s1_flags[i].q.val() & self.flag_nm.val()).any();
                self.n_rm[i].next = self.n_hm[i].val();
                self.n_ones[i].next = self.s1_n_ones[i].q.val();
            }
            // A direct mode always hits its one way; no tag, no age (their RAMs go unused).
            if self.direct.val() {
                self.hit[i].next = true;
                self.tag[i].next = 0.into();
                self.meta[i].next = 0.into();
            }
            self.age[i].next = self.meta[i].val() & self.age_mask.val();
        }
        // Hit way, else the LRU victim (the oldest way, registered per source like the hits
        // and "any way hit", so the target is a choice of registered bits). The ages are a
        // permutation, so on a miss every other way ages by one; on a hit, those younger than
        // the hit way: read from the age order with the one-hot hit (no age compare).
        self.any_hit_r.next = false;
        self.hit_ways.next = 0.into();
        for i in 0..self.ram_taken.len() {
            self.any_hit_r.next = self.any_hit_r.val() | self.s1_hit_r[i].q.val();
            if self.hit[i].val() {
                self.hit_ways.next = self.hit_ways.val() | self.way_bit[i].val();
            }
        }
        self.any_hit.next = self.any_hit_r.val();
        if self.s1_f1.q.val() {
            self.any_hit.next = self.s1_any_w.q.val();
        }
        if self.direct.val() {
            self.any_hit.next = true;
        }
        self.target_ways.next = 0.into();
        for i in 0..self.ram_taken.len() {
            self.younger_than_hit[i].next = (self.younger[i].val() & self.hit_ways.val()).any();
            self.repl[i].next = !self.any_hit.val() & self.old[i].val();
            self.target[i].next = self.hit[i].val() | self.repl[i].val();
            if self.target[i].val() {
                self.target_ways.next = self.target_ways.val() | self.way_bit[i].val();
            }
        }
        // The next event's hits in the set this one leaves in W: a way this one fills holds
        // this event's tag; any other keeps its tag and valid bit. The valid ways of a set hold
        // distinct tags, so the next event hits at most one way: it hits some way unless the
        // only one it hits is the one replaced.
        self.next_any.next = false;
        self.next_at_old.next = false;
        for i in 0..self.ram_taken.len() {
            self.next_any.next = self.next_any.val() | self.next_hit[i].val();
            self.next_at_old.next =
                self.next_at_old.val() | (self.next_hit[i].val() & self.old[i].val());
            self.s1_hit_w[i].d.next = self.next_hit[i].val();
            if self.repl[i].val() {
                self.s1_hit_w[i].d.next = self.s1_same_tag.q.val();
            }
            // And the offered event's (two behind) in the same set.
            self.s1_next_hit_w[i].d.next = self.c_hit[i].val();
            if self.repl[i].val() {
                self.s1_next_hit_w[i].d.next = self.s1_tag.q.val() == self.c_tag.val();
            }
        }
        self.s1_any_w.d.next = self.s1_same_tag.q.val()
            | (self.next_any.val() & !(!self.any_hit.val() & self.next_at_old.val()));
        // The updated set, counters carry-save: a counting way increments its low bits (its
        // carry pends into the high part) unless saturated (F and all ones); a carry sets F
        // where M held. A replaced way starts at one count.
        self.w_v.d.next = self.s1_v.q.val();
        self.w_set.d.next = self.s1_set.q.val();
        for i in 0..self.ram_taken.len() {
            self.new_age[i].next = self.age[i].val();
            if !self.any_hit.val() | self.younger_than_hit[i].val() {
                self.new_age[i].next = self.age_inc[i].val();
            }
            // The target becomes the youngest; the others keep their order. The oldest way
            // is younger than none.
            self.new_younger[i].next = self.younger[i].val() & !self.target_ways.val();
            if self.target[i].val() {
                self.new_younger[i].next = self.all_ways.val() & !self.way_bit[i].val();
            }
            self.w_younger[i].d.next = self.new_younger[i].val();
            // Masked to the configured ways: the bits above them are zero, but only the mask
            // lets synthesis drop them from the compare.
            self.s1_old_w[i].d.next = (self.new_younger[i].val() & self.all_ways.val()) == 0;
            self.w_t_high[i].d.next = self.t_high[i].val();
            self.w_t_low[i].d.next = self.t_low[i].val();
            self.w_t_carry[i].d.next = false;
            self.w_t_full[i].d.next = self.t_full[i].val();
            self.w_t_hm[i].d.next = self.t_rm[i].val();
            self.w_t_ones[i].d.next = self.t_ones[i].val();
            self.w_n_high[i].d.next = self.n_high[i].val();
            self.w_n_low[i].d.next = self.n_low[i].val();
            self.w_n_carry[i].d.next = false;
            self.w_n_full[i].d.next = self.n_full[i].val();
            self.w_n_hm[i].d.next = self.n_rm[i].val();
            self.w_n_ones[i].d.next = self.n_ones[i].val();
            self.w_tag[i].d.next = self.tag[i].val();
            self.w_meta[i].d.next = self.meta[i].val();
            // The hit way counts (the target on a hit is the hit way: no wait on `any_hit`); on
            // a miss the target is replaced; every other way ages.
            if self.hit[i].val() {
                self.w_meta[i].d.next = self.valid_flag.val();
                if self.s1_taken.q.val() {
                    if !(self.t_full[i].val() & self.t_ones[i].val()) {
                        self.w_t_low[i].d.next = (self.t_low[i].val() + 1) & self.low_max.val();
                        self.w_t_carry[i].d.next = self.t_ones[i].val();
                        self.w_t_ones[i].d.next = self.t_low[i].val() == self.low_below_max.val();
                        self.w_t_full[i].d.next =
                            self.t_full[i].val() | (self.t_ones[i].val() & self.t_hm[i].val());
                    }
                } else if !(self.n_full[i].val() & self.n_ones[i].val()) {
                    self.w_n_low[i].d.next = (self.n_low[i].val() + 1) & self.low_max.val();
                    self.w_n_carry[i].d.next = self.n_ones[i].val();
                    self.w_n_ones[i].d.next = self.n_low[i].val() == self.low_below_max.val();
                    self.w_n_full[i].d.next =
                        self.n_full[i].val() | (self.n_ones[i].val() & self.n_hm[i].val());
                }
            } else if self.repl[i].val() {
                self.w_meta[i].d.next = self.valid_flag.val();
                self.w_tag[i].d.next = self.s1_tag.q.val();
                self.w_t_high[i].d.next = 0.into();
                self.w_t_low[i].d.next = 0.into();
                self.w_t_full[i].d.next = false;
                self.w_t_hm[i].d.next = false;
                self.w_t_ones[i].d.next = false;
                self.w_n_high[i].d.next = 0.into();
                self.w_n_low[i].d.next = 0.into();
                self.w_n_full[i].d.next = false;
                self.w_n_hm[i].d.next = false;
                self.w_n_ones[i].d.next = false;
                if self.s1_taken.q.val() {
                    self.w_t_low[i].d.next = 1.into();
                } else {
                    self.w_n_low[i].d.next = 1.into();
                }
            } else {
                self.w_meta[i].d.next =
                    (self.meta[i].val() & self.valid_flag.val()) | self.new_age[i].val();
            }
        }

        // The readout word: way rd_ptr mod ways of the set in the RAM read register.
        self.sel_taken.next = 0.into();
        self.sel_not_taken.next = 0.into();
        self.sel_tag.next = 0.into();
        for i in 0..self.ram_taken.len() {
            if (self.rd_ptr.q.val() & self.way_mask.val()) == self.way_id[i].val() {
                self.sel_taken.next = self.ram_taken[i].read_data.val();
                self.sel_not_taken.next = self.ram_not_taken[i].read_data.val();
                self.sel_tag.next = self.ram_tag[i].read_data.val();
            }
        }
        self.out_taken.next = self.sel_taken.val();
        self.out_not_taken.next = self.sel_not_taken.val();
        self.out_tag.next = 0.into();
        if !self.direct.val() {
            self.out_tag.next = self.sel_tag.val();
        }

        if self.reset.val() {
            self.reading.d.next = true;
            self.silent.d.next = true;
            self.drain.d.next = 0.into();
            self.out_v.d.next = false;
            self.rd_ptr.d.next = 0.into();
            self.ev_count.d.next = 0.into();
            self.count_last.d.next = self.interval_m1_zero.val();
            self.p_v.d.next = false;
            self.r_v.d.next = false;
            self.s1_v.d.next = false;
            self.w_v.d.next = false;
            self.w2_v.d.next = false;
            self.w3_v.d.next = false;
            self.s1_f1_t.d.next = false;
            self.s1_f1_n.d.next = false;
        }
        // rd_ptr + 1, from registers only: the trigger and reset reach it through a last select.
        if self.reading.q.val() & (self.drain.q.val() == 0) & self.advance.val() {
            self.rd_ptr_next.d.next = self.rd_ptr_next.q.val() + 1;
        }
        if self.trigger.val() | self.reset.val() {
            self.rd_ptr_next.d.next = 1.into();
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

/// `n` default values: one per way.
fn per_way<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
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
        assert!(BufferConfig::is_buffer_toml(
            "entries = 64\nindexing = \"address\"\n"
        ));
        assert!(!BufferConfig::is_buffer_toml("entries = 64\n[phase]\n"));
        assert_eq!((c.ram_address_bits(), c.rtl_tag_width()), (8, 16));
        let c = parse("entries = 1024\nindexing = \"compiler\"\n").unwrap();
        assert_eq!((c.ram_address_bits(), c.rtl_tag_width()), (10, 1));
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
