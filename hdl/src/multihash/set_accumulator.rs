//! The set-associative accumulator of the multi-hash profiler in block RAM (docs/SPEC.md §4.2 steps
//! 1–3, §5.4, `organisation = "set_associative"`), for one event per clock.
//!
//! **Storage.** S = 2^k sets of W ways. Way w is two RAMs of S words read in parallel with the
//! other ways: `tags[w]` (the tuple, [`TAG_BITS`] bits) and `metas[w]` (the count in the low `count_width` bits, then
//! **locked**, then valid, then — the **predicates in block RAM**, where the RAMs have the two bits
//! spare ([`has_spare_bit`]) — count ≥ T and count ≥ T − 1, written with the word as the
//! forwarded words carry them). An entry is empty (not valid), locked, or
//! **replaceable** (valid, not locked: retained from the previous interval). Entry order — for
//! allocation and in the model — is set-major, way-minor: within a set, lowest way first.
//!
//! **Pipeline**, four stages, so that the one loop that cannot be pipelined — a set's words from
//! one op to the next — holds no tag compare and no address compare:
//! - stage 0: the event's set (`lookup_set`, hashed by the top) addresses every way's tag and
//!   meta RAMs whenever the event is offered, before it is accepted, and is compared with the
//!   sets of the ops that will be two and three ahead of it (`c_same2`, `c_same3`, registered);
//! - stage C: the W tags arrive and are compared with the event's tuple in 8-bit slices (two LUT4
//!   levels) or, with `narrow` (the configuration's `narrow_tag_compare`), 2-bit slices (one LUT4:
//!   two bits of the tag, two of the tuple), whose equalities are registered (stage D ANDs them),
//!   so that a block RAM's slow read output meets only the compare before a register. The read
//!   missed the tags the ops two (and, when stage W writes them, three) ahead wrote: for a way one
//!   of them allocated on this op's set (`a2`, `a3`, from `c_same2` / `c_same3` and the ways that
//!   op allocated, the younger winning) the tuple is compared with that op's instead (`fw_eq`,
//!   registered). The W metas arrive, the words the ops two and three ahead wrote take their place
//!   when one was on the same set (the read missed those writes; the younger wins), and they are
//!   registered with their threshold predicates (count ≥ T, count ≥ T − 1: compared on the RAM word
//!   or stored in it, carried with a forwarded one), so stage D compares no count read from a RAM
//!   or forwarded; the set and the tuple are compared with those of the op ahead (registered:
//!   `ahead1`, `key1`, with the op in D);
//! - stage D: **forwarding**: the metas are those the op one ahead wrote when it was on the same
//!   set (with the predicates of its words, which it registered from its own: see `n_ge`), taken
//!   at the last select, after the registered words have been through the set's rollover (that op
//!   wrote the set in this interval, so no rollover applies to its words): the set's loop from
//!   one op's words to the next op's hit is the select and one gate (`hit_near`); a tag
//!   changes only on allocation, so a way one of the three ops ahead allocated matches exactly
//!   when that op had the same tuple (`key1`, `fw_eq`, the younger winning), any other way by its
//!   registered slices. Hit (**shielding**),
//!   allocation (empty way first, else replaceable: the lowest way, or with **smallest
//!   replacement** the replaceable way of smallest count, lowest on ties — W² count compares)
//!   and locking follow docs/SPEC.md §4 within the set;
//! - stage W: every way's meta, and (`tags_in_w`, with the write stage; else stage D writes it on
//!   allocation) the tag of a way D allocated, are written back from registers, an allocated
//!   way's count being `alloc_min`, the event's `new_min` the counters finish in this stage from
//!   their registers (so neither the counters' minimum nor, with `tags_in_w`, the allocation
//!   decision drives a RAM write port in the clock it is computed).
//!
//! **Interval rollover without a sweep: per-set epochs.** Three bit-vectors in flip-flops, one bit
//! per set, say what a set's RAM words mean:
//! - `cur`: written in the current interval — the words are the entries;
//! - `prev` (and not `cur`): the words are the previous interval's final entries, so the entries
//!   now are their rollover: with **retaining** (P1) the reported ones (count ≥ T) replaceable
//!   with count 0, all others empty;
//! - neither: every entry is empty (two rollovers ago or never written).
//!
//! A fourth, `rep`, marks the sets written in the current interval that hold an entry with count
//! ≥ T (such an entry is locked, so it stays until the interval ends).
//!
//! At the end of an interval, in one clock: `prev` ← `cur`, `pend` ← `rep`, `cur`, `rep` ← 0. The
//! first op that reads a `prev` set in the new interval applies the rollover and writes it back.
//!
//! **Report.** `pend` marks the sets whose previous-interval entries with count ≥ T are not
//! reported yet; a set without such an entry has nothing to report and is never pending. A set is
//! **retired** — its entries with count ≥ T copied to the W-slot report staging buffer — by the
//! first event of the new interval that touches it, or else by the **scanner**, which walks the
//! sets on clocks when no event is offered (`lookup_offer`: an event waiting only for room in
//! the buffer keeps the read ports). The staging buffer streams out one entry
//! per clock (valid/ready); when every set is retired and the buffer is empty, a terminator word
//! (count 0, `report_last`) ends the report. So a report lists an interval's entries in the order
//! their sets were retired, lowest way first within a set; an empty report is the terminator
//! alone. `report_busy` is high until the terminator is taken.
//!
//! **When an event must wait** (`lookup_ok` low): its set still has a report pending — or it is
//! offered for the first time this clock (the set's flag is registered: it is known a clock after
//! the set is offered) — and the staging buffer is not free (it holds words, or a retirement is in
//! stage C or D). So while the buffer is busy, an event waits at least one clock. The top also
//! refuses the last event of an interval while `report_busy` (the previous report must be out):
//! the scanner then has the read ports, so this wait is at most one clock per set the interval
//! never touched, plus the report's words.

use super::accumulator::{accumulator, new_accumulator};
use super::primitives::{vec_of, Priority};
use super::threshold::CandidateThreshold;
use crate::block_ram::{address_bits, has_spare_bit, TableRam, ADDRESS_BITS};
use crate::util::u64_bits;
use rust_hdl::prelude::*;

/// Tag width: the tuple (a, b) packed as b << a_bits | a, so a_bits + b_bits <= 96. The tag RAMs
/// store a_bits + b_bits bits.
pub const TAG_BITS: usize = 96;
/// Stage C compares a read tag with the event's in slices of this many bits (see `ram_tag_part`),
/// or with `narrow` of [`NARROW_TAG_PART_BITS`].
pub const TAG_PART_BITS: usize = 8;
pub const TAG_PARTS: usize = TAG_BITS / TAG_PART_BITS;
pub const NARROW_TAG_PART_BITS: usize = 2;
pub const NARROW_TAG_PARTS: usize = TAG_BITS / NARROW_TAG_PART_BITS;
// The stage-C loops index the slices with these literals: keep them in step.
const _: () = assert!(
    TAG_PARTS == 12
        && TAG_PART_BITS == 8
        && NARROW_TAG_PARTS == 48
        && NARROW_TAG_PART_BITS == 2
        && TAG_PARTS * TAG_PART_BITS == TAG_BITS
        && NARROW_TAG_PARTS * NARROW_TAG_PART_BITS == TAG_BITS
);

accumulator! {
    pub struct SetAssociativeAccumulator<const CB: usize> {
        lookup: {
            /// Stage 0: an event is offered in set `lookup_set` (it may still be refused): from
            /// flip-flops, so that the RAMs' read address does not wait for the accept decision.
            /// The offered event's set is read, and the scanner waits; `lookup` implies it.
            pub lookup_offer: Signal<In, Bit>,
            /// Stage 0: an event is accepted this cycle, in set `lookup_set` (only when offered).
            pub lookup: Signal<In, Bit>,
            pub lookup_set: Signal<In, Bits<ADDRESS_BITS>>,
            /// Stage 0: the event's tuple (the `valid` event's two clocks later).
            pub lookup_tag: Signal<In, Bits<TAG_BITS>>,
            /// Stage 0: an event in `lookup_set` may be accepted (see "When an event must wait").
            pub lookup_ok: Signal<Out, Bit>,
            /// Stage 0: the set offered next clock is this clock's `lookup_set` (the top holds its
            /// event); else it is read as pending for a clock.
            pub lookup_hold: Signal<In, Bit>,
        }
        event: {
            /// Stage W (a clock after the event's `valid`): its counters' new minimum, the count
            /// of a way it was allocated. The counters finish it from registers, so their
            /// minimum's compares end at flip-flops and no RAM write port waits for them.
            pub alloc_min: Signal<In, Bits<CB>>,
        }
        report: {
            pub report_tag: Signal<Out, Bits<TAG_BITS>>,
        }
        tags: Vec<TableRam<TAG_BITS>>,
        metas: Vec<TableRam<CB>>,
        epochs: SetEpochs,
        /// Stages C and D hold an op (an event or a scan) on set `c_set` / `d_set`, with tuple
        /// `c_tag` / `d_tag` (an event's).
        c_op: DFF<Bit>,
        c_set: DFF<Bits<ADDRESS_BITS>>,
        c_tag: DFF<Bits<TAG_BITS>>,
        d_op: DFF<Bit>,
        d_set: DFF<Bits<ADDRESS_BITS>>,
        d_tag: DFF<Bits<TAG_BITS>>,
        /// The tags read in stage 0, and whether each is stage C's tuple: [`TAG_PARTS`] registered
        /// equalities of [`TAG_PART_BITS`]-bit slices per way (way w's at w · TAG_PARTS + p), so
        /// that a block RAM's slow read output meets a two-level compare before a register and
        /// stage D ANDs the slices; with `narrow`, [`NARROW_TAG_PARTS`] of
        /// [`NARROW_TAG_PART_BITS`] bits per way (one level; see [`Self::narrow_parts`]).
        ram_tag: Vec<DFF<Bits<TAG_BITS>>>,
        ram_tag_part: Vec<DFF<Bit>>,
        /// The way's tag read in stage 0 is stage D's tuple.
        ram_tag_eq: Vec<Signal<Local, Bit>>,
        /// Stage C: way w's tag is the one the op two / three ahead allocated on this op's set (the
        /// read missed that write, which is in stage W or just past it).
        a2: Vec<Signal<Local, Bit>>,
        a3: Vec<Signal<Local, Bit>>,
        scan_set: DFF<Bits<ADDRESS_BITS>>,
        /// The event one ahead of stage D's op (`fw_*`, written last clock: present, set) and
        /// two ahead (`fw2_*`: tuple, metas written).
        fw_valid: DFF<Bit>,
        fw_set: DFF<Bits<ADDRESS_BITS>>,
        fw2_tag: DFF<Bits<TAG_BITS>>,
        fw2_word: Vec<DFF<Bits<CB>>>,
        /// Stage W writes the metas of the op one ahead from its registers: `fw_meta`, the count
        /// of a way it allocated taken from `alloc_min`.
        fw_word: Vec<Signal<Local, Bits<CB>>>,
        /// Stage D's op is on the set of the event one ahead (`ahead1`), and its tuple is that
        /// event's (`key1`); way w's tag is the one the event two / three ahead allocated on this
        /// op's set (`ahead2_alloc`, `ahead3_alloc`: `a2`, `a3` registered), and then it is the
        /// op's tuple when `fw_eq` (that event's tuple is the op's, compared in stage C).
        ahead1: DFF<Bit>,
        key1: DFF<Bit>,
        ahead2_alloc: Vec<DFF<Bit>>,
        ahead3_alloc: Vec<DFF<Bit>>,
        fw_eq: Vec<DFF<Bit>>,
        /// The ways the op two ahead (in W) allocated, a clock later; the tuple of the op three
        /// ahead of stage D.
        fw2_alloc: Vec<DFF<Bit>>,
        fw3_tag: DFF<Bits<TAG_BITS>>,
        /// Forwarding of tags: a write changes a way's tag only when it allocates it, so the words
        /// the RAM returns are right but for ways the ops ahead allocated after the read (one
        /// ahead: `key1`; two, and three when stage W writes the tags: `fw_eq`). Counts and states
        /// change on every write and are forwarded whole.
        fw_alloc: Vec<DFF<Bit>>,
        fw_tag: DFF<Bits<TAG_BITS>>,
        fw_meta: Vec<DFF<Bits<CB>>>,
        st_valid: Vec<DFF<Bit>>,
        st_tag: Vec<DFF<Bits<TAG_BITS>>>,
        st_count: Vec<DFF<Bits<CB>>>,
        /// The terminator of the previous interval's report is still to be sent.
        term: DFF<Bit>,
        rep_interval: DFF<Bits<32>>,
        // Stage 0.
        scan: Signal<Local, Bit>,
        /// The scanner moves to the next set (this one is not pending, or it is retired now).
        scan_advance: Signal<Local, Bit>,
        room: Signal<Local, Bit>,
        s0_set: Signal<Local, Bits<ADDRESS_BITS>>,
        // Stages C and D: the op retires a set.
        c_pend: Signal<Local, Bit>,
        d_pend: Signal<Local, Bit>,
        /// The set's words with every op ahead's write forwarded, for the retirement.
        raw_tag: Vec<Signal<Local, Bits<TAG_BITS>>>,
        raw_meta: Vec<Signal<Local, Bits<CB>>>,
        raw_count: Vec<Signal<Local, Bits<CB>>>,
        raw_valid: Vec<Signal<Local, Bit>>,
        /// The word's count is >= T (chosen with the word, not compared after it).
        raw_ge: Vec<Signal<Local, Bit>>,
        /// Stage C: the metas read in stage 0, with the write of the op two ahead (which the read
        /// missed) forwarded; registered for D with their threshold predicates.
        c_meta: Vec<Signal<Local, Bits<CB>>>,
        /// The word the op two or three ahead wrote on this set (the younger), with its predicates.
        c_fwd: Vec<Signal<Local, Bits<CB>>>,
        c_fwd_ge: Vec<Signal<Local, Bit>>,
        c_fwd_floor: Vec<Signal<Local, Bit>>,
        /// Stage C's op is on the set the op two / three ahead wrote (compared in stage 0).
        c_same2: DFF<Bit>,
        c_same3: DFF<Bit>,
        /// The threshold predicates of stage C's words, chosen with the words.
        c_ge: Vec<Signal<Local, Bit>>,
        c_floor: Vec<Signal<Local, Bit>>,
        /// The predicates in block RAM (see the module documentation): the bits of a meta word
        /// that hold count >= T (`ge_bit`) and count >= T − 1 (`floor_bit`), zero (and
        /// `predicates_in_ram` low) where they are not stored; `word_mask` keeps a word's count
        /// and state.
        predicates_in_ram: Constant<Bit>,
        ge_bit: Constant<Bits<CB>>,
        floor_bit: Constant<Bits<CB>>,
        word_mask: Constant<Bits<CB>>,
        /// Stage W: the predicate bits written with a way's meta.
        w_flags: Vec<Signal<Local, Bits<CB>>>,
        r_meta: Vec<DFF<Bits<CB>>>,
        r_ge: Vec<DFF<Bit>>,
        r_floor: Vec<DFF<Bit>>,
        /// Count >= T of the previous interval (`t_prev`), for a word of that interval: the same
        /// as `r_ge` where the predicate comes stored or forwarded with the word, compared with
        /// `t_prev` where it is compared on the RAM word; what retirement and retaining read.
        c_ge_prev: Vec<Signal<Local, Bit>>,
        r_ge_prev: Vec<DFF<Bit>>,
        old_ge: Vec<Signal<Local, Bit>>,
        /// The predicates of the metas the op one ahead wrote (`fw_word`): registered by that op
        /// from its own predicates (`n_ge`, `n_floor`), true for a way it allocated. No count is
        /// compared after a forwarding select: the one loop of the set's words carries no carry
        /// chain into the next op's hit and lock decisions.
        fw_ge: Vec<Signal<Local, Bit>>,
        fw_floor: Vec<Signal<Local, Bit>>,
        fw_ge_r: Vec<DFF<Bit>>,
        fw_floor_r: Vec<DFF<Bit>>,
        /// The predicates of `fw2_word`.
        fw2_ge: Vec<DFF<Bit>>,
        fw2_floor: Vec<DFF<Bit>>,
        /// The predicates of the entries as they are now, and of the counts written back:
        /// n >= T when the count was >= T or is incremented from >= T − 1; n >= T − 1 likewise
        /// from >= T − 1 or an increment from >= T − 2 (a compare, off the loop into the hit).
        view_ge: Vec<Signal<Local, Bit>>,
        view_floor: Vec<Signal<Local, Bit>>,
        inc: Vec<Signal<Local, Bit>>,
        n_ge: Vec<Signal<Local, Bit>>,
        n_floor: Vec<Signal<Local, Bit>>,
        /// The way's tuple is the event's, unless the op one ahead allocated the way (`key1` then).
        tag_eq: Vec<Signal<Local, Bit>>,
        /// The entries as they are now when the op one ahead was on another set: the registered
        /// words (`r_meta`) through the set's rollover. Everything the op one ahead wrote (the
        /// set's one loop) meets them at the last select, by `ahead1` (see `hit_near`).
        far_valid: Vec<Signal<Local, Bit>>,
        far_locked: Vec<Signal<Local, Bit>>,
        far_count: Vec<Signal<Local, Bits<CB>>>,
        far_ge: Vec<Signal<Local, Bit>>,
        far_floor: Vec<Signal<Local, Bit>>,
        far_lock: Vec<Signal<Local, Bit>>,
        /// A hit on the way: `hit_far` from those entries; `hit_near` from the words the op one
        /// ahead wrote on this set, as they are (it wrote the set in this interval, so no
        /// rollover applies).
        hit_far: Vec<Signal<Local, Bit>>,
        hit_near: Vec<Signal<Local, Bit>>,
        /// A hit on the way locks it: its count reaches T (count >= T − 1 before the increment).
        lock_on_hit: Vec<Signal<Local, Bit>>,
        /// The entries as they are now (after a pending rollover): valid, locked, count.
        view_valid: Vec<Signal<Local, Bit>>,
        view_locked: Vec<Signal<Local, Bit>>,
        view_count: Vec<Signal<Local, Bits<CB>>>,
        hit_e: Vec<Signal<Local, Bit>>,
        alloc: Vec<Signal<Local, Bit>>,
        n_count: Vec<Signal<Local, Bits<CB>>>,
        n_meta: Vec<Signal<Local, Bits<CB>>>,
        hits: Priority,
        empty: Priority,
        repl: Priority,
        /// Replaceable ways of the set's smallest replaceable count (smallest replacement).
        smallest: Priority,
        /// The way is replaceable and no replaceable way has a smaller count.
        minimal: Vec<Signal<Local, Bit>>,
        /// Allocation takes the smallest replaceable way instead of the lowest.
        replace_smallest: Constant<Bit>,
        /// Staging-buffer words still to be sent: the lowest way goes next.
        staged: Priority,
        rc: Signal<Local, Bits<CB>>,
        /// T of the ops in stages C and D: T − 1 (a hit locks from it), whether a hit can lock
        /// at all (`count_max` >= T), T − 2, and T <= 1 (a count of 0 is >= T − 1: a hit on an
        /// entry of count 0, a retained one after rollover, locks it); and the previous
        /// interval's T (`t_prev`): its sets are retired, and retained, after T changed.
        candidate_threshold: CandidateThreshold<CB>,
        lock_at_zero: Signal<Local, Bit>,
        count_max: Constant<Bits<CB>>,
        /// Counts can reach `count_max` within an interval (else no saturation logic).
        saturates: Constant<Bit>,
        count_mask: Constant<Bits<CB>>,
        valid_flag: Constant<Bits<CB>>,
        locked_flag: Constant<Bits<CB>>,
        retaining: Constant<Bit>,
        /// Tags are written in stage W, from registers (else in stage D, by the allocation).
        tags_in_w: Constant<Bit>,
        last_set: Constant<Bits<ADDRESS_BITS>>,
        set_one: Constant<Bits<ADDRESS_BITS>>,
        one_c: Constant<Bits<CB>>,
        zero_c: Constant<Bits<CB>>,
    }
}

impl<const CB: usize> SetAssociativeAccumulator<CB> {
    /// Stage C's 8-bit tag slices per way: [`TAG_PARTS`], or none with 2-bit ones. A loop bound
    /// (evaluated when the Verilog is written, like the ways'), so each form's Verilog holds
    /// only its own compare.
    fn wide_parts(&self) -> usize {
        match self.ram_tag_part.len() / self.tags.len() {
            TAG_PARTS => TAG_PARTS,
            _ => 0,
        }
    }

    /// Stage C's 2-bit tag slices per way: [`NARROW_TAG_PARTS`] with `narrow`, else none.
    fn narrow_parts(&self) -> usize {
        match self.ram_tag_part.len() / self.tags.len() {
            NARROW_TAG_PARTS => NARROW_TAG_PARTS,
            _ => 0,
        }
    }

    /// `sets` (a power of two) × `ways` entries; tags of `tag_width` bits; counts of
    /// `count_width` bits (the state takes two more, at most CB in all), saturating at `count_max`
    /// (reached within an interval only when `saturates`). A promotion into a full set takes
    /// the lowest replaceable way, or with `replace_smallest` the one of smallest count.
    /// `tags_in_w`: tags are written in stage W (module docs); `flag_rows`: the per-set flags are
    /// read from registered rows ([`SetEpochs`]); `narrow`: stage C compares the tags in 2-bit
    /// slices; `fixed_threshold`: T for good, else taken from the `threshold` input
    /// ([`CandidateThreshold`]).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        sets: usize,
        ways: usize,
        tag_width: usize,
        count_width: usize,
        count_max: u64,
        saturates: bool,
        retaining: bool,
        replace_smallest: bool,
        tags_in_w: bool,
        flag_rows: bool,
        narrow: bool,
        fixed_threshold: Option<u64>,
    ) -> Self {
        assert!(
            sets.is_power_of_two() && ways >= 1 && count_width + 2 <= CB.min(63),
            "2^k sets, count and state within CB bits"
        );
        let field = (1u64 << count_width) - 1;
        assert!(count_max <= field, "counts fit the count field");
        // A set's ways are written together, so a word read as a current or previous entry was
        // written, with its predicates, in that interval (under its T).
        let predicates_in_ram = count_width + 4 <= CB.min(63)
            && has_spare_bit(sets, count_width + 2)
            && has_spare_bit(sets, count_width + 3);
        let meta_width = count_width + 2 + 2 * predicates_in_ram as usize;
        new_accumulator!(SetAssociativeAccumulator {
            lookup_offer: Default::default(),
            lookup: Default::default(),
            lookup_set: Default::default(),
            lookup_tag: Default::default(),
            lookup_ok: Default::default(),
            lookup_hold: Default::default(),
            alloc_min: Default::default(),
            report_tag: Default::default(),
            // A word read in the clock of its write is replaced in stage C (metas: `c_same3`)
            // or D (tags: the allocation of the op two ahead).
            tags: (0..ways)
                .map(|_| TableRam::new(sets, tag_width).forwarded())
                .collect(),
            metas: (0..ways)
                .map(|_| TableRam::new(sets, meta_width).forwarded())
                .collect(),
            epochs: SetEpochs::new(sets, ways, flag_rows),
            c_op: Default::default(),
            c_set: Default::default(),
            c_tag: Default::default(),
            d_op: Default::default(),
            d_set: Default::default(),
            d_tag: Default::default(),
            ram_tag: vec_of(ways),
            ram_tag_part: vec_of(ways * if narrow { NARROW_TAG_PARTS } else { TAG_PARTS }),
            ram_tag_eq: vec_of(ways),
            a2: vec_of(ways),
            a3: vec_of(ways),
            scan_set: Default::default(),
            fw_valid: Default::default(),
            fw_set: Default::default(),
            fw2_tag: Default::default(),
            fw2_word: vec_of(ways),
            fw_word: vec_of(ways),
            ahead1: Default::default(),
            key1: Default::default(),
            ahead2_alloc: vec_of(ways),
            ahead3_alloc: vec_of(ways),
            fw_eq: vec_of(ways),
            fw2_alloc: vec_of(ways),
            fw3_tag: Default::default(),
            fw_alloc: vec_of(ways),
            fw_tag: Default::default(),
            fw_meta: vec_of(ways),
            st_valid: vec_of(ways),
            st_tag: vec_of(ways),
            st_count: vec_of(ways),
            term: Default::default(),
            rep_interval: Default::default(),
            scan: Default::default(),
            scan_advance: Default::default(),
            room: Default::default(),
            s0_set: Default::default(),
            c_pend: Default::default(),
            d_pend: Default::default(),
            raw_tag: vec_of(ways),
            raw_meta: vec_of(ways),
            raw_count: vec_of(ways),
            raw_valid: vec_of(ways),
            raw_ge: vec_of(ways),
            c_meta: vec_of(ways),
            predicates_in_ram: Constant::new(predicates_in_ram),
            ge_bit: Constant::new((predicates_in_ram as u64 * (1 << (count_width + 2))).into()),
            floor_bit: Constant::new((predicates_in_ram as u64 * (1 << (count_width + 3))).into()),
            word_mask: Constant::new(((1u64 << (count_width + 2)) - 1).into()),
            w_flags: vec_of(ways),
            c_fwd: vec_of(ways),
            c_fwd_ge: vec_of(ways),
            c_fwd_floor: vec_of(ways),
            c_same2: Default::default(),
            c_same3: Default::default(),
            r_meta: vec_of(ways),
            c_ge: vec_of(ways),
            c_floor: vec_of(ways),
            r_ge: vec_of(ways),
            r_floor: vec_of(ways),
            c_ge_prev: vec_of(ways),
            r_ge_prev: vec_of(ways),
            old_ge: vec_of(ways),
            fw_ge: vec_of(ways),
            fw_floor: vec_of(ways),
            fw_ge_r: vec_of(ways),
            fw_floor_r: vec_of(ways),
            fw2_ge: vec_of(ways),
            fw2_floor: vec_of(ways),
            view_ge: vec_of(ways),
            view_floor: vec_of(ways),
            inc: vec_of(ways),
            n_ge: vec_of(ways),
            n_floor: vec_of(ways),
            tag_eq: vec_of(ways),
            far_valid: vec_of(ways),
            far_locked: vec_of(ways),
            far_count: vec_of(ways),
            far_ge: vec_of(ways),
            far_floor: vec_of(ways),
            far_lock: vec_of(ways),
            hit_far: vec_of(ways),
            hit_near: vec_of(ways),
            lock_on_hit: vec_of(ways),
            view_valid: vec_of(ways),
            view_locked: vec_of(ways),
            view_count: vec_of(ways),
            hit_e: vec_of(ways),
            alloc: vec_of(ways),
            n_count: vec_of(ways),
            n_meta: vec_of(ways),
            hits: Priority::new(ways),
            empty: Priority::new(ways),
            repl: Priority::new(ways),
            smallest: Priority::new(ways),
            minimal: vec_of(ways),
            replace_smallest: Constant::new(replace_smallest),
            staged: Priority::new(ways),
            rc: Default::default(),
            candidate_threshold: CandidateThreshold::new(count_max, 0, fixed_threshold),
            lock_at_zero: Default::default(),
            count_max: Constant::new(count_max.into()),
            saturates: Constant::new(saturates),
            count_mask: Constant::new(field.into()),
            valid_flag: Constant::new((1u64 << (count_width + 1)).into()),
            locked_flag: Constant::new((1u64 << count_width).into()),
            retaining: Constant::new(retaining),
            tags_in_w: Constant::new(tags_in_w),
            last_set: Constant::new((sets as u64 - 1).into()),
            set_one: Constant::new(1.into()),
            one_c: Constant::new(1.into()),
            zero_c: Constant::new(0.into()),
        })
    }
}

impl<const CB: usize> Logic for SetAssociativeAccumulator<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            c_op,
            c_same2,
            c_same3,
            c_set,
            c_tag,
            d_op,
            d_set,
            d_tag,
            scan_set,
            fw_valid,
            fw_set,
            fw_tag,
            fw2_tag,
            ahead1,
            key1,
            fw3_tag,
            term,
            rep_interval
        );
        self.candidate_threshold.clock.next = self.clock.val();
        self.candidate_threshold.load.next = self.reset.val() | self.end_interval.val();
        self.candidate_threshold.value.next = self.threshold.val();
        self.lock_at_zero.next =
            self.candidate_threshold.t_at_most_1.val() & self.candidate_threshold.reachable.val();
        self.epochs.clock.next = self.clock.val();
        self.epochs.reset.next = self.reset.val();
        // ---- Stage C: compare with the tags and with the ops ahead; read the metas.
        self.d_op.d.next = self.c_op.q.val();
        self.d_set.d.next = self.c_set.q.val();
        self.d_tag.d.next = self.c_tag.q.val();
        // When stage C's op reaches D, D's op is one ahead of it and the `fw` event two ahead.
        self.ahead1.d.next = self.valid.val() & (self.c_set.q.val() == self.d_set.q.val());
        self.key1.d.next = self.c_tag.q.val() == self.d_tag.q.val();
        self.epochs.c_set.next = self.c_set.q.val();
        self.c_pend.next = self.c_op.q.val() & self.epochs.c_pend.val();
        // ---- Stage D: the set's words, forwarded, and what they mean now.
        self.epochs.d_set.next = self.d_set.q.val();
        self.d_pend.next = self.d_op.q.val() & self.epochs.d_pend.val();
        for w in 0..self.tags.len() {
            self.ram_tag[w].clock.next = self.clock.val();
            self.ahead2_alloc[w].clock.next = self.clock.val();
            self.ahead3_alloc[w].clock.next = self.clock.val();
            self.fw2_alloc[w].clock.next = self.clock.val();
            self.a2[w].next = self.c_same2.q.val() & self.fw_alloc[w].q.val();
            self.a3[w].next =
                self.tags_in_w.val() & self.c_same3.q.val() & self.fw2_alloc[w].q.val();
            self.ahead2_alloc[w].d.next = self.a2[w].val();
            self.ahead3_alloc[w].d.next = self.a3[w].val();
            self.fw_eq[w].clock.next = self.clock.val();
            self.fw_eq[w].d.next = self.c_tag.q.val() == self.fw_tag.q.val();
            if self.tags_in_w.val() & !self.a2[w].val() {
                self.fw_eq[w].d.next = self.c_tag.q.val() == self.fw2_tag.q.val();
            }
            self.fw2_alloc[w].d.next = self.fw_alloc[w].q.val();
            self.ram_tag[w].d.next = self.tags[w].read_data.val();
            // Slice p of the tag (literals: TAG_PARTS = 12 slices of TAG_PART_BITS = 8 bits, or
            // NARROW_TAG_PARTS = 48 of NARROW_TAG_PART_BITS = 2; one of the two loops is empty).
            self.ram_tag_eq[w].next = true;
            for p in 0..self.wide_parts() {
                self.ram_tag_part[w * 12 + p].clock.next = self.clock.val();
                self.ram_tag_part[w * 12 + p].d.next =
                    self.tags[w].read_data.val().get_bits::<8>(p * 8)
                        == self.c_tag.q.val().get_bits::<8>(p * 8);
                if !self.ram_tag_part[w * 12 + p].q.val() {
                    self.ram_tag_eq[w].next = false;
                }
            }
            for p in 0..self.narrow_parts() {
                self.ram_tag_part[w * 48 + p].clock.next = self.clock.val();
                self.ram_tag_part[w * 48 + p].d.next =
                    self.tags[w].read_data.val().get_bits::<2>(p * 2)
                        == self.c_tag.q.val().get_bits::<2>(p * 2);
                if !self.ram_tag_part[w * 48 + p].q.val() {
                    self.ram_tag_eq[w].next = false;
                }
            }
            self.r_meta[w].clock.next = self.clock.val();
            self.r_ge[w].clock.next = self.clock.val();
            self.r_ge_prev[w].clock.next = self.clock.val();
            self.r_floor[w].clock.next = self.clock.val();
            self.fw2_word[w].clock.next = self.clock.val();
            self.fw_ge_r[w].clock.next = self.clock.val();
            self.fw_floor_r[w].clock.next = self.clock.val();
            self.fw2_ge[w].clock.next = self.clock.val();
            self.fw2_floor[w].clock.next = self.clock.val();
            self.fw_word[w].next = self.fw_meta[w].q.val();
            if self.fw_alloc[w].q.val() {
                self.fw_word[w].next =
                    self.fw_meta[w].q.val() | (self.alloc_min.val() & self.count_mask.val());
            }
            // A way the op one ahead allocated holds its `new_min`, >= T by the promotion rule
            // (and the count field holds every counter value): true without a compare.
            self.fw_ge[w].next = self.fw_alloc[w].q.val() | self.fw_ge_r[w].q.val();
            self.fw_floor[w].next = self.fw_alloc[w].q.val() | self.fw_floor_r[w].q.val();
            self.fw2_word[w].d.next = self.fw_word[w].val();
            self.fw2_ge[w].d.next = self.fw_ge[w].val();
            self.fw2_floor[w].d.next = self.fw_floor[w].val();
            // The forwarded words, younger first, then the RAM's at the last select: a block
            // RAM's output is the slowest input.
            self.c_fwd[w].next = self.fw2_word[w].q.val();
            self.c_fwd_ge[w].next = self.fw2_ge[w].q.val();
            self.c_fwd_floor[w].next = self.fw2_floor[w].q.val();
            if self.c_same2.q.val() {
                self.c_fwd[w].next = self.fw_word[w].val();
                self.c_fwd_ge[w].next = self.fw_ge[w].val();
                self.c_fwd_floor[w].next = self.fw_floor[w].val();
            }
            self.c_meta[w].next = self.metas[w].read_data.val() & self.word_mask.val();
            if self.predicates_in_ram.val() {
                self.c_ge[w].next = (self.metas[w].read_data.val() & self.ge_bit.val()).any();
                self.c_ge_prev[w].next = self.c_ge[w].val();
                self.c_floor[w].next = (self.metas[w].read_data.val() & self.floor_bit.val()).any();
            } else {
                self.c_ge[w].next = (self.metas[w].read_data.val() & self.count_mask.val())
                    >= self.candidate_threshold.t.val();
                self.c_ge_prev[w].next = (self.metas[w].read_data.val() & self.count_mask.val())
                    >= self.candidate_threshold.t_prev.val();
                self.c_floor[w].next = (self.metas[w].read_data.val() & self.count_mask.val())
                    >= self.candidate_threshold.t_minus_1.val();
            }
            if self.c_same3.q.val() | self.c_same2.q.val() {
                self.c_meta[w].next = self.c_fwd[w].val();
                self.c_ge[w].next = self.c_fwd_ge[w].val();
                self.c_ge_prev[w].next = self.c_fwd_ge[w].val();
                self.c_floor[w].next = self.c_fwd_floor[w].val();
            }
            self.r_meta[w].d.next = self.c_meta[w].val();
            self.r_ge[w].d.next = self.c_ge[w].val();
            self.r_ge_prev[w].d.next = self.c_ge_prev[w].val();
            self.r_floor[w].d.next = self.c_floor[w].val();
            self.tags[w].read_clock.next = self.clock.val();
            self.tags[w].write_clock.next = self.clock.val();
            self.metas[w].read_clock.next = self.clock.val();
            self.metas[w].write_clock.next = self.clock.val();
            self.fw_alloc[w].clock.next = self.clock.val();
            self.fw_meta[w].clock.next = self.clock.val();
            self.st_valid[w].clock.next = self.clock.val();
            self.st_tag[w].clock.next = self.clock.val();
            self.st_count[w].clock.next = self.clock.val();
            self.fw_alloc[w].d.next = self.fw_alloc[w].q.val();
            self.fw_meta[w].d.next = self.fw_meta[w].q.val();
            self.st_valid[w].d.next = self.st_valid[w].q.val();
            self.st_tag[w].d.next = self.st_tag[w].q.val();
            self.st_count[w].d.next = self.st_count[w].q.val();
            self.raw_tag[w].next = self.ram_tag[w].q.val();
            self.tag_eq[w].next = self.ram_tag_eq[w].val();
            if self.ahead3_alloc[w].q.val() {
                self.raw_tag[w].next = self.fw3_tag.q.val();
                self.tag_eq[w].next = self.fw_eq[w].q.val();
            }
            if self.ahead2_alloc[w].q.val() {
                self.raw_tag[w].next = self.fw2_tag.q.val();
                self.tag_eq[w].next = self.fw_eq[w].q.val();
            }
            self.raw_meta[w].next = self.r_meta[w].q.val();
            // A word not of this interval is the previous one's (retired or retained under its T).
            self.old_ge[w].next = self.r_ge_prev[w].q.val();
            if self.epochs.d_cur.val() {
                self.old_ge[w].next = self.r_ge[w].q.val();
            }
            self.raw_ge[w].next = self.old_ge[w].val();
            if self.ahead1.q.val() {
                if self.fw_alloc[w].q.val() {
                    self.raw_tag[w].next = self.fw_tag.q.val();
                }
                self.raw_meta[w].next = self.fw_word[w].val();
                self.raw_ge[w].next = self.fw_ge[w].val();
            }
            self.raw_count[w].next = self.raw_meta[w].val() & self.count_mask.val();
            self.raw_valid[w].next = (self.raw_meta[w].val() & self.valid_flag.val()).any();
            // The entries from the registered words, through the rollover.
            if self.epochs.d_cur.val() {
                self.far_valid[w].next = (self.r_meta[w].q.val() & self.valid_flag.val()).any();
                self.far_locked[w].next = (self.r_meta[w].q.val() & self.locked_flag.val()).any();
                self.far_count[w].next = self.r_meta[w].q.val() & self.count_mask.val();
                self.far_ge[w].next = self.r_ge[w].q.val();
                self.far_floor[w].next = self.r_floor[w].q.val();
                self.far_lock[w].next =
                    self.candidate_threshold.reachable.val() & self.r_floor[w].q.val();
            } else {
                // Rollover (or long empty): retained entries are replaceable with count 0.
                self.far_valid[w].next = self.epochs.d_prev.val()
                    & self.retaining.val()
                    & (self.r_meta[w].q.val() & self.valid_flag.val()).any()
                    & self.r_ge_prev[w].q.val();
                self.far_locked[w].next = false;
                self.far_count[w].next = self.zero_c.val();
                // T >= 1: a count of 0 is below T.
                self.far_ge[w].next = false;
                self.far_floor[w].next = self.candidate_threshold.t_at_most_1.val();
                self.far_lock[w].next = self.lock_at_zero.val();
            }
            self.hit_far[w].next = self.far_valid[w].val() & self.tag_eq[w].val();
            self.hit_near[w].next =
                (self.fw_meta[w].q.val() & self.valid_flag.val()).any() & self.tag_eq[w].val();
            if self.fw_alloc[w].q.val() {
                self.hit_near[w].next = self.key1.q.val();
            }
            // The op one ahead on this set: its words, last. It was in stage D a clock ago on
            // the same set, in this interval (nothing enters stage 0 while an interval's last
            // event is in C or D), so the set reads as current (`d_cur`): no rollover applies.
            self.view_valid[w].next = self.far_valid[w].val();
            self.view_locked[w].next = self.far_locked[w].val();
            self.view_count[w].next = self.far_count[w].val();
            self.view_ge[w].next = self.far_ge[w].val();
            self.view_floor[w].next = self.far_floor[w].val();
            self.lock_on_hit[w].next = self.far_lock[w].val();
            self.hit_e[w].next = self.hit_far[w].val();
            if self.ahead1.q.val() {
                self.view_valid[w].next = (self.fw_meta[w].q.val() & self.valid_flag.val()).any();
                self.view_locked[w].next = (self.fw_meta[w].q.val() & self.locked_flag.val()).any();
                self.view_count[w].next = self.fw_word[w].val() & self.count_mask.val();
                self.view_ge[w].next = self.fw_ge[w].val();
                self.view_floor[w].next = self.fw_floor[w].val();
                self.lock_on_hit[w].next =
                    self.candidate_threshold.reachable.val() & self.fw_floor[w].val();
                self.hit_e[w].next = self.hit_near[w].val();
            }
            self.hits.bits[w].next = self.hit_e[w].val();
            self.empty.bits[w].next = !self.view_valid[w].val();
            self.repl.bits[w].next = self.view_valid[w].val() & !self.view_locked[w].val();
        }
        for w in 0..self.tags.len() {
            self.minimal[w].next = self.view_valid[w].val() & !self.view_locked[w].val();
            for v in 0..self.tags.len() {
                if self.view_valid[v].val()
                    & !self.view_locked[v].val()
                    & (self.view_count[v].val() < self.view_count[w].val())
                {
                    self.minimal[w].next = false;
                }
            }
            self.smallest.bits[w].next = self.minimal[w].val();
        }
        // Lookup and allocation within the set (shielding; empty first, else replaceable).
        self.hit.next = self.valid.val() & self.hits.any.val();
        self.promoted.next = self.valid.val()
            & !self.hits.any.val()
            & self.candidate.val()
            & (self.empty.any.val() | self.repl.any.val());
        // Next words of every way, written back (the set is now of the current interval).
        for w in 0..self.tags.len() {
            self.alloc[w].next = self.promoted.val()
                & ((self.empty.any.val() & self.empty.first[w].val())
                    | (!self.empty.any.val()
                        & !self.replace_smallest.val()
                        & self.repl.first[w].val())
                    | (!self.empty.any.val()
                        & self.replace_smallest.val()
                        & self.smallest.first[w].val()));
            self.inc[w].next = self.hit_e[w].val()
                & (!self.saturates.val() | (self.view_count[w].val() < self.count_max.val()));
            self.n_count[w].next = self.view_count[w].val();
            if self.inc[w].val() {
                self.n_count[w].next = self.view_count[w].val() + self.one_c.val();
            }
            self.n_ge[w].next =
                self.view_ge[w].val() | (self.inc[w].val() & self.view_floor[w].val());
            self.n_floor[w].next = self.view_floor[w].val()
                | (self.inc[w].val()
                    & (self.view_count[w].val() >= self.candidate_threshold.t_minus_2.val()));
            self.n_meta[w].next = self.n_count[w].val();
            if self.view_valid[w].val() {
                self.n_meta[w].next = self.n_count[w].val() | self.valid_flag.val();
            }
            // A replaceable entry whose count reaches T becomes locked; locked stays locked.
            if self.view_locked[w].val() | (self.hit_e[w].val() & self.lock_on_hit[w].val()) {
                self.n_meta[w].next =
                    self.n_count[w].val() | self.valid_flag.val() | self.locked_flag.val();
            }
            // Allocated: its count, `new_min`, joins the word in stage W.
            if self.alloc[w].val() {
                self.n_meta[w].next = self.valid_flag.val() | self.locked_flag.val();
            }
            // Stage W: the tag of a way the op one ahead allocated, from registers; else the
            // allocation writes it.
            if self.tags_in_w.val() {
                self.tags[w].write_address.next = self.fw_set.q.val();
                self.tags[w].write_data.next = self.fw_tag.q.val();
                self.tags[w].write_enable.next = self.fw_alloc[w].q.val();
            } else {
                self.tags[w].write_address.next = self.d_set.q.val();
                self.tags[w].write_data.next = self.d_tag.q.val();
                self.tags[w].write_enable.next = self.alloc[w].val();
            }
            self.metas[w].write_address.next = self.fw_set.q.val();
            self.w_flags[w].next = self.zero_c.val();
            if self.fw_ge[w].val() & self.fw_floor[w].val() {
                self.w_flags[w].next = self.ge_bit.val() | self.floor_bit.val();
            } else if self.fw_ge[w].val() {
                self.w_flags[w].next = self.ge_bit.val();
            } else if self.fw_floor[w].val() {
                self.w_flags[w].next = self.floor_bit.val();
            }
            self.metas[w].write_data.next = self.fw_word[w].val() | self.w_flags[w].val();
            self.metas[w].write_enable.next = self.fw_valid.q.val();
            self.fw_ge_r[w].d.next = self.fw_ge_r[w].q.val();
            self.fw_floor_r[w].d.next = self.fw_floor_r[w].q.val();
            if self.valid.val() {
                self.fw_meta[w].d.next = self.n_meta[w].val();
                self.fw_ge_r[w].d.next = self.n_ge[w].val();
                self.fw_floor_r[w].d.next = self.n_floor[w].val();
            }
            self.fw_alloc[w].d.next = self.alloc[w].val();
            // The ways stage D's op leaves valid with count >= T (its set will have a report). An
            // allocated way holds `new_min` >= T (see `fw_ge`).
            self.epochs.hot[w].next =
                (self.view_valid[w].val() & self.n_ge[w].val()) | self.alloc[w].val();
        }
        self.fw_valid.d.next = self.valid.val();
        self.fw_set.d.next = self.d_set.q.val();
        self.fw_tag.d.next = self.d_tag.q.val();
        self.fw2_tag.d.next = self.fw_tag.q.val();
        self.fw3_tag.d.next = self.fw2_tag.q.val();
        // ---- Stage 0: the event's set, or else the scanner's, addresses the RAMs: an offered
        // event's, accepted or not, so the address comes from flip-flops.
        self.room.next = !self.staged.any.val() & !self.d_pend.val() & !self.c_pend.val();
        self.epochs.lookup_set.next = self.lookup_set.val();
        self.epochs.scan_set.next = self.scan_set.q.val();
        self.epochs.lookup.next = self.lookup_offer.val();
        self.epochs.lookup_hold.next = self.lookup_hold.val();
        self.lookup_ok.next = !self.epochs.lookup_pend.val() | self.room.val();
        self.scan.next = !self.lookup_offer.val() & self.epochs.scan_pend.val() & self.room.val();
        if self.lookup_offer.val() {
            self.s0_set.next = self.lookup_set.val();
        } else {
            self.s0_set.next = self.scan_set.q.val();
        }
        for w in 0..self.tags.len() {
            self.tags[w].read_address.next = self.s0_set.val();
            self.metas[w].read_address.next = self.s0_set.val();
        }
        self.c_op.d.next = self.lookup.val() | self.scan.val();
        // When this op is in C, the op now in D is in W (`fw`, two ahead) and the `fw` one is
        // `fw2` (three ahead). Both candidate sets are compared, the choice is made last.
        if self.lookup_offer.val() {
            self.c_same2.d.next = self.valid.val() & (self.lookup_set.val() == self.d_set.q.val());
            self.c_same3.d.next =
                self.fw_valid.q.val() & (self.lookup_set.val() == self.fw_set.q.val());
        } else {
            self.c_same2.d.next = self.valid.val() & (self.scan_set.q.val() == self.d_set.q.val());
            self.c_same3.d.next =
                self.fw_valid.q.val() & (self.scan_set.q.val() == self.fw_set.q.val());
        }
        self.c_set.d.next = self.s0_set.val();
        self.c_tag.d.next = self.lookup_tag.val();
        self.scan_advance.next =
            !self.lookup_offer.val() & (!self.epochs.scan_pend.val() | self.scan.val());
        self.epochs.scan_advance.next = self.scan_advance.val();
        if self.scan_advance.val() {
            self.scan_set.d.next = self.scan_set.q.val() + self.set_one.val();
            if self.scan_set.q.val() == self.last_set.val() {
                self.scan_set.d.next = 0.into();
            }
        }
        // ---- Report: staging buffer out, lowest way first, then the terminator.
        for w in 0..self.tags.len() {
            self.staged.bits[w].next = self.st_valid[w].q.val();
        }
        self.report_busy.next =
            self.epochs.any_pend.val() | self.staged.any.val() | self.term.q.val();
        // The terminator waits for the roll too: until it is applied, `any_pend` does not show
        // the new interval's pending sets.
        self.report_valid.next = self.staged.any.val()
            | (self.term.q.val() & !self.epochs.any_pend.val() & !self.epochs.rolling.val());
        self.report_last.next = !self.staged.any.val();
        self.report_interval.next = self.rep_interval.q.val();
        self.report_tag.next = 0.into();
        self.rc.next = self.zero_c.val();
        for w in 0..self.tags.len() {
            if self.staged.first[w].val() {
                self.report_tag.next = self.st_tag[w].q.val();
                self.rc.next = self.st_count[w].q.val();
            }
        }
        self.report_count.next = bit_cast::<32, CB>(self.rc.val());
        if self.report_ready.val() & self.report_valid.val() {
            if self.staged.any.val() {
                for w in 0..self.tags.len() {
                    self.st_valid[w].d.next =
                        self.st_valid[w].q.val() & !self.staged.first[w].val();
                }
            } else {
                self.term.d.next = false;
            }
        }
        // Retirement: a pending set's entries with count >= T go to the staging buffer.
        if self.d_pend.val() {
            for w in 0..self.tags.len() {
                self.st_valid[w].d.next = self.raw_valid[w].val() & self.raw_ge[w].val();
                self.st_tag[w].d.next = self.raw_tag[w].val();
                self.st_count[w].d.next = self.raw_count[w].val();
            }
        }
        // ---- Per-set epochs.
        self.epochs.retire.next = self.d_op.q.val();
        self.epochs.touch.next = self.valid.val();
        self.epochs.hot_valid.next = self.valid.val();
        self.epochs.hot_set.next = self.d_set.q.val();
        self.epochs.roll.next = self.end_interval.val();
        if self.end_interval.val() {
            self.term.d.next = true;
            self.rep_interval.d.next = self.interval.val();
        }
        if self.reset.val() {
            self.c_op.d.next = false;
            self.d_op.d.next = false;
            self.fw_valid.d.next = false;
            self.ahead1.d.next = false;
            self.c_same2.d.next = false;
            self.c_same3.d.next = false;
            for w in 0..self.tags.len() {
                self.st_valid[w].d.next = false;
                self.ahead2_alloc[w].d.next = false;
                self.ahead3_alloc[w].d.next = false;
                self.fw2_alloc[w].d.next = false;
            }
            self.term.d.next = false;
        }
    }
}

/// The per-set epochs (the module docs): four flags per set, `cur`, `prev`, `pend` and `rep`, read
/// at four sets at once (stage D's, stage C's, the lookup's and the scanner's) and updated at the
/// clock edge: `retire` clears `pend` of stage D's set, `touch` sets its `cur`; `hot` (with
/// `hot_valid`) sets `rep` of `hot_set` (stage D's set here; a later stage's in a deeper pipeline); `roll` (the interval's last event is in stage D) moves `cur` into `prev`
/// and `rep` into `pend` and clears both; `reset` clears all. Any number of sets, in flip-flops.
///
/// `hot` comes late in stage D (after the tag compare, the hit and the new counts), so it is
/// registered with its set and written into `rep` at the next edge — a bit per way, ORed after
/// the register, so that no OR over the ways follows the allocation in stage D; the roll waits for it, one
/// clock after the last event (`rolling` is high in that clock), so that no flag is ever computed
/// from the `hot` of the same clock. In the clock the roll is applied, stage D must hold no op and
/// no report may be pending (the top lets nothing into stage 0 while the last event is in C or
/// D, and the last event waited for the previous report): nothing retires or touches a set then.
///
/// Stage D's flags (`d_cur`, `d_prev`, `d_pend`) come from registers: they are read at stage C's
/// set and registered with the update of the op then in D applied (the op in C is the next in D),
/// so stage D starts from three flip-flops instead of three S-way multiplexers. Likewise stage C's
/// `c_pend` (read at the set stage 0 sends to C) and `any_pend`, so that no S-way multiplexer
/// or S-input OR lies between a register and stage 0's accept. The lookup's flag is registered
/// too, read at the set offered while the top holds its event (`lookup_hold`); a set offered for
/// the first time reads as pending for that one clock (`lookup_pend` high), which only makes the
/// event wait when the report staging buffer is busy.
///
/// The S-to-1 selects are most of this block's logic, so the Verilog has seven where the flags
/// once took eleven: the lookup's and the scanner's flags read one vector that already holds the
/// roll (`pend`, or `rep` while the roll is applied), this clock's retire and `hot` being gates
/// after the select; `any_pend` is an OR over that vector with stage D's bit masked, not a
/// select; the set decoders are compares per bit (fewer LUTs than a shifted one-hot).
///
/// With `rows` (the configuration's `flag_rows`), no S-to-1 select is left: every flag is read in
/// two steps, each √S-to-1. Every clock, the row of each vector holding the lookup's set and the
/// one holding the scanner's (√S flags, with this clock's updates applied) are registered; a
/// clock later, stage C's row is the lookup's if `lookup` chose it, else the scanner's, and
/// stage C's flags (`c_pend`, and stage D's, registered with the update of the op in D) are the
/// bits of that row at the low bits of `c_set`; the lookup's flag is the bit of its row at the
/// low bits of the set offered last clock, which is the set offered now when `lookup_hold` was
/// high. The scanner's flags likewise: its row and the next are registered (it moves by at most
/// one set a clock), and its bits are picked from those. Whether any set is pending is an OR over
/// a flag per row of `pend` (and of `rep`, for the roll) and over stage D's row of `pend`,
/// registered at stage C's set: 2√S bits, not S.
#[derive(LogicBlock)]
pub struct SetEpochs {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub d_set: Signal<In, Bits<ADDRESS_BITS>>,
    pub lookup_set: Signal<In, Bits<ADDRESS_BITS>>,
    pub scan_set: Signal<In, Bits<ADDRESS_BITS>>,
    /// The scanner's set after this clock is `scan_set + 1` (wrapping), else `scan_set`.
    pub scan_advance: Signal<In, Bit>,
    /// Stage C's set: always last clock's `lookup_set` if `lookup` was high, else `scan_set`.
    pub c_set: Signal<In, Bits<ADDRESS_BITS>>,
    /// Stage 0 takes the lookup's set (else the scanner's) to stage C: an offered event's, so
    /// that the choice comes from flip-flops.
    pub lookup: Signal<In, Bit>,
    /// The set offered next clock is `lookup_set` again.
    pub lookup_hold: Signal<In, Bit>,
    pub retire: Signal<In, Bit>,
    pub touch: Signal<In, Bit>,
    /// With `hot_valid`, a bit per way: the op on `hot_set` leaves that way valid with count >= T.
    pub hot_valid: Signal<In, Bit>,
    pub hot_set: Signal<In, Bits<ADDRESS_BITS>>,
    pub hot: Vec<Signal<In, Bit>>,
    pub roll: Signal<In, Bit>,
    pub d_cur: Signal<Out, Bit>,
    pub d_prev: Signal<Out, Bit>,
    pub d_pend: Signal<Out, Bit>,
    pub lookup_pend: Signal<Out, Bit>,
    pub scan_pend: Signal<Out, Bit>,
    pub c_pend: Signal<Out, Bit>,
    /// Some set has a report pending.
    pub any_pend: Signal<Out, Bit>,
    /// The roll is applied at the end of this clock (`pend` and `any_pend` do not show it yet).
    pub rolling: Signal<Out, Bit>,
    _cur: Vec<bool>,
    _prev: Vec<bool>,
    _pend: Vec<bool>,
    _rep: Vec<bool>,
    /// Stage D's flags, registered (see above).
    _d: [bool; 3],
    /// Registered (see above): the flag read at last clock's lookup set, whether the set offered
    /// now is that one (`lookup_hold` was high), stage C's flag, and whether any set is pending.
    _lookup: bool,
    _known: bool,
    _c: bool,
    _any: bool,
    /// Registered: the flag of the scanner's set after this clock (`scan_advance` picks it), so
    /// the scanner's decision starts from a flip-flop, not an S-to-1 select.
    _scan: bool,
    /// Last clock's `hot_valid & hot` and `hot_set` then; last clock's `roll`.
    _hq: bool,
    _sq: usize,
    _rq: bool,
    /// The Verilog reads the flags from rows (four sets or more).
    _rows: bool,
    /// The set stage 0 sent to C last clock, and last clock's `c_set`, to check that `c_set` and
    /// `d_set` follow them.
    _c_next: u64,
    _c_last: u64,
    /// The scanner's set after last clock, to check that `scan_set` follows `scan_advance`.
    _scan_next: Option<u64>,
}

impl SetEpochs {
    /// `sets` flags per vector (a power of two); with `rows`, the Verilog reads them from
    /// registered rows (see above).
    pub fn new(sets: usize, ways: usize, rows: bool) -> Self {
        assert!(sets >= 1 && ways >= 1);
        SetEpochs {
            clock: Default::default(),
            reset: Default::default(),
            d_set: Default::default(),
            lookup_set: Default::default(),
            scan_set: Default::default(),
            scan_advance: Default::default(),
            c_set: Default::default(),
            lookup: Default::default(),
            lookup_hold: Default::default(),
            retire: Default::default(),
            touch: Default::default(),
            hot_valid: Default::default(),
            hot_set: Default::default(),
            hot: vec_of(ways),
            roll: Default::default(),
            d_cur: Default::default(),
            d_prev: Default::default(),
            d_pend: Default::default(),
            lookup_pend: Default::default(),
            scan_pend: Default::default(),
            c_pend: Default::default(),
            any_pend: Default::default(),
            rolling: Default::default(),
            _cur: vec![false; sets],
            _prev: vec![false; sets],
            _pend: vec![false; sets],
            _rep: vec![false; sets],
            _d: [false; 3],
            _lookup: false,
            _known: false,
            _c: false,
            _any: false,
            _scan: false,
            _hq: false,
            _sq: 0,
            _rq: false,
            _rows: rows,
            _c_next: 0,
            _c_last: 0,
            _scan_next: None,
        }
    }
}

impl Logic for SetEpochs {
    fn update(&mut self) {
        let at = |v: &Vec<bool>, s: Bits<ADDRESS_BITS>| {
            v.get(u64_bits(s) as usize).copied().unwrap_or(false)
        };
        if self.clock.pos_edge() {
            // With rows, the Verilog reads stage C's flags from rows registered at the lookup's
            // set or the scanner's, chosen by `lookup` a clock later.
            assert_eq!(
                u64_bits(self.c_set.val()),
                self._c_next,
                "set epochs: c_set is not the set stage 0 sent to C"
            );
            self._c_next = u64_bits(if self.lookup.val() {
                self.lookup_set.val()
            } else {
                self.scan_set.val()
            });
            // ... stage D's row of `pend` from one registered at `c_set` ...
            assert_eq!(
                u64_bits(self.d_set.val()),
                self._c_last,
                "set epochs: d_set is not last clock's c_set"
            );
            self._c_last = u64_bits(self.c_set.val());
            // ... and the scanner's from rows registered at `scan_set` and the one after it.
            if let Some(next) = self._scan_next {
                assert_eq!(
                    u64_bits(self.scan_set.val()),
                    next,
                    "set epochs: scan_set moved other than by scan_advance"
                );
            }
            let sets = self._cur.len() as u64;
            self._scan_next =
                Some((u64_bits(self.scan_set.val()) + u64::from(self.scan_advance.val())) % sets);
            let low = self._cur.len() as u64 - 1;
            let s = (u64_bits(self.d_set.val()) & low) as usize;
            if self.reset.val() {
                self._cur.fill(false);
                self._prev.fill(false);
                self._pend.fill(false);
                self._rep.fill(false);
            } else if self._rq {
                // What the top guarantees (see above); the hardware would drop either silently.
                assert!(
                    !self.retire.val() && !self.touch.val() && !self._pend.contains(&true),
                    "set epochs: an op in stage D or a pending report while the roll is applied"
                );
                let n = self._prev.len();
                self._prev = std::mem::replace(&mut self._cur, vec![false; n]);
                self._pend = std::mem::replace(&mut self._rep, vec![false; n]);
                if self._hq {
                    self._pend[self._sq] = true;
                }
            } else {
                if self._hq {
                    self._rep[self._sq] = true;
                }
                if self.retire.val() {
                    self._pend[s] = false;
                }
                if self.touch.val() {
                    self._cur[s] = true;
                }
            }
            // The flags registered here are those after this edge.
            let c = self.c_set.val();
            self._d = [at(&self._cur, c), at(&self._prev, c), at(&self._pend, c)];
            let c_next = if self.lookup.val() {
                self.lookup_set.val()
            } else {
                self.scan_set.val()
            };
            self._lookup = at(&self._pend, self.lookup_set.val());
            self._known = !self.reset.val() & self.lookup_hold.val();
            self._c = at(&self._pend, c_next);
            self._any = self._pend.iter().any(|&p| p);
            let n = self._pend.len();
            let scan = (u64_bits(self.scan_set.val()) & low) as usize;
            self._scan = self._pend[(scan + usize::from(self.scan_advance.val())) % n];
            self._hq = !self.reset.val() & self.hot_valid.val() & self.hot.iter().any(|h| h.val());
            self._sq = (u64_bits(self.hot_set.val()) & low) as usize;
            self._rq = !self.reset.val() & self.roll.val();
        }
        [self.d_cur.next, self.d_prev.next, self.d_pend.next] = self._d;
        self.lookup_pend.next = !self._known | self._lookup;
        self.scan_pend.next = self._scan;
        self.c_pend.next = self._c;
        self.any_pend.next = self._any;
        self.rolling.next = self._rq;
    }

    fn connect(&mut self) {
        self.d_cur.connect();
        self.d_prev.connect();
        self.d_pend.connect();
        self.lookup_pend.connect();
        self.scan_pend.connect();
        self.c_pend.connect();
        self.any_pend.connect();
        self.rolling.connect();
    }

    fn hdl(&self) -> Verilog {
        let n = self._cur.len();
        let ab = address_bits(n);
        // A set port's bits, and `x == y` on them (always true with one set).
        let set = |port: &str| match ab {
            0 => "0".to_string(),
            _ => format!("{port}[{}:0]", ab - 1),
        };
        let eq = |x: &str, y: &str| match ab {
            0 => "1'b1".to_string(),
            _ => format!("{} == {}", set(x), set(y)),
        };
        // Stage D's set and last clock's (`sq`) decoded: a compare per bit, which maps to fewer
        // LUTs than a shifted one-hot.
        let (sq_decl, sq_load, decode) = match ab {
            0 => (
                String::new(),
                String::new(),
                "assign sel = 1'b1;\nassign selq = 1'b1;\n".to_string(),
            ),
            _ => (
                format!("reg [{}:0] sq;\n", ab - 1),
                format!("      sq <= {};\n", set("hot_set")),
                format!(
                    "\
genvar i;
generate for (i = 0; i < {n}; i = i + 1) begin : decode
   assign sel[i] = {d} == i;
   assign selq[i] = sq == i;
end endgenerate
",
                    d = set("d_set")
                ),
            ),
        };
        // The scanner's next set, and the rotated vector read there (no adder before the select).
        let (scan1_decl, x_rot) = match ab {
            0 => (String::new(), "x".to_string()),
            _ => (
                format!(
                    "wire [{m}:0] scan1 = {s} + 1'b1;\n",
                    m = ab - 1,
                    s = set("scan_set")
                ),
                format!("{{x[0], x[{}:1]}}", n - 1),
            ),
        };
        let scan1_eq = |y: &str| match ab {
            0 => "1'b1".to_string(),
            _ => format!("scan1 == {}", set(y)),
        };
        // Flags read in two steps (see above): rows of `1 << lo` flags; a row of each vector is
        // registered, with this clock's updates, at a row address known a clock early.
        let lo = ab / 2;
        let w = 1usize << lo;
        let rows_on = self._rows && lo >= 1;
        let high = |port: &str| format!("{port}[{}:{lo}]", ab - 1);
        // Registers `{v}_{tag}` (v in `vectors`): the row `addr` of each vector after this edge.
        let rows = |tag: &str, addr: &str, vectors: &[&str]| {
            let base = format!("{{{addr}, {lo}'d0}}");
            let in_row = |row: &str, port: &str| format!("{row} & ({port}[{}:0] == i)", lo - 1);
            let mut decl = format!(
                "\
wire {tag}_d = {d_high} == {addr};
wire {tag}_q = {q_high} == {addr};
wire [{wh}:0] {tag}_sel;
wire [{wh}:0] {tag}_selq;
generate for (i = 0; i < {w}; i = i + 1) begin : {tag}_decode
   assign {tag}_sel[i] = {sel_i};
   assign {tag}_selq[i] = {selq_i};
end endgenerate
",
                d_high = high("d_set"),
                q_high = high("sq"),
                wh = w - 1,
                sel_i = in_row(&format!("{tag}_d"), "d_set"),
                selq_i = in_row(&format!("{tag}_q"), "sq"),
            );
            let (mut reset, mut load) = (String::new(), String::new());
            // The rows each register's update reads.
            fn read(v: &str) -> Vec<&str> {
                match v {
                    "prev" => vec!["cur", "prev"],
                    "pend" => vec!["pend", "rep"],
                    _ => vec![v],
                }
            }
            for v in ["cur", "prev", "pend", "rep"] {
                if !vectors.iter().any(|u| read(u).contains(&v)) {
                    continue;
                }
                decl += &format!("wire [{}:0] {v}_{tag}_row = {v}[{base} +: {w}];\n", w - 1);
            }
            for v in vectors {
                let r = |u: &str| format!("{u}_{tag}_row");
                let next = match *v {
                    "cur" => format!("rq ? {w}'d0 : {} | (touch ? {tag}_sel : {w}'d0)", r("cur")),
                    "prev" => format!("rq ? {} : {}", r("cur"), r("prev")),
                    "pend" => format!(
                        "rq ? {} | (hq ? {tag}_selq : {w}'d0) : (retire ? {} & ~{tag}_sel : {})",
                        r("rep"),
                        r("pend"),
                        r("pend")
                    ),
                    _ => format!("rq ? {w}'d0 : {} | (hq ? {tag}_selq : {w}'d0)", r("rep")),
                };
                decl += &format!("reg [{}:0] {v}_{tag};\n", w - 1);
                reset += &format!("      {v}_{tag} <= {w}'d0;\n");
                load += &format!("      {v}_{tag} <= {next};\n");
            }
            (decl, reset, load)
        };
        // Stage C's flags: with rows, the row registered at the lookup's set or the one at the
        // scanner's (`c_l`: stage 0 sent the lookup's set to C), the bit at `c_set`'s low bits; the
        // lookup's flag is the bit of its row at its set's low bits (`l_low`), a clock later.
        let (c_rows, c_reset, c_load, at_c) = match rows_on {
            false => (
                String::new(),
                String::new(),
                String::new(),
                ["cur", "prev", "pend", "rep"].map(|v| format!("{v}[{}]", set("c_set"))),
            ),
            true => {
                let (decl, reset, load) =
                    rows("l", &high("lookup_set"), &["cur", "prev", "pend", "rep"]);
                let mut decl = format!(
                    "// The lookup's row; stage C's is it or the scanner's.\n{decl}reg c_l;\nreg [{l}:0] l_low;\n",
                    l = lo - 1
                );
                for v in ["cur", "prev", "pend", "rep"] {
                    decl += &format!("wire [{}:0] {v}_c = c_l ? {v}_l : {v}_s;\n", w - 1);
                }
                let bit = format!("c_set[{}:0]", lo - 1);
                (
                    decl,
                    format!("{reset}      c_l <= 1'b0;\n      l_low <= {lo}'d0;\n"),
                    format!(
                        "{load}      c_l <= lookup;\n      l_low <= lookup_set[{}:0];\n",
                        lo - 1
                    ),
                    ["cur", "prev", "pend", "rep"].map(|v| format!("{v}_c[{bit}]")),
                )
            }
        };
        // The scanner's flags (at `scan_set` and the set after it): its row and the next, as the
        // scanner moves by at most one set a clock; `s_cross` says it moved into the next row at
        // the last edge. Without rows, selects of the rotated vector. Its row holds `cur` and
        // `prev` too, for stage C.
        let (s_rows, s_reset, s_load, s_x, s1_x) = match rows_on {
            false => (
                String::new(),
                String::new(),
                String::new(),
                format!("x[{}]", set("scan_set")),
                format!("x_rot[{}]", set("scan_set")),
            ),
            true => {
                let (d0, r0, l0) = rows("s", &high("scan_set"), &["cur", "prev", "pend", "rep"]);
                let (d1, r1, l1) = rows("s1", "scan_row1", &["pend", "rep"]);
                let decl = format!(
                    "\
// The scanner's row and the next.
wire [{h}:0] scan_row1 = {scan_high} + 1'b1;
{d0}{d1}reg s_cross;
wire [{lo}:0] s_off = {{s_cross, scan_set[{l}:0]}};
wire [{ww}:0] s_pend = {{pend_s1, pend_s}};
wire [{ww}:0] s_rep = {{rep_s1, rep_s}};
// The bits after `s_off`: the two rows rotated by one, so that no adder precedes the pick.
wire [{ww}:0] s_pend1 = {{s_pend[0], s_pend[{ww}:1]}};
wire [{ww}:0] s_rep1 = {{s_rep[0], s_rep[{ww}:1]}};
",
                    h = ab - lo - 1,
                    scan_high = high("scan_set"),
                    l = lo - 1,
                    ww = 2 * w - 1,
                );
                (
                    decl,
                    format!("{r0}{r1}      s_cross <= 1'b0;\n"),
                    format!(
                        "{l0}{l1}      s_cross <= scan_advance & (scan_set[{l}:0] == {lo}'d{m});\n",
                        l = lo - 1,
                        m = w - 1
                    ),
                    "(rq ? s_rep[s_off] : s_pend[s_off])".to_string(),
                    "(rq ? s_rep1[s_off] : s_pend1[s_off])".to_string(),
                )
            }
        };
        // Whether any set is pending: with rows, from a flag per row of `pend` and of `rep` and stage
        // D's row of `pend` (registered at stage C's set, which D holds next): ORs of √S bits, not S.
        let (a_rows, a_reset, a_load, any) = match rows_on {
            false => (
                String::new(),
                String::new(),
                String::new(),
                format!("(|(x & ~(sel & {{{n}{{kill}}}}))) | put"),
            ),
            true => {
                let (d, r, l) = rows("d", &high("c_set"), &["pend"]);
                let rh = (1usize << (ab - lo)) - 1;
                let decl = format!(
                    "\
// Which rows of `pend` and `rep` hold a flag, and stage D's row of `pend`.
reg [{rh}:0] pend_any;
reg [{rh}:0] rep_any;
wire [{rh}:0] d_row;
wire [{rh}:0] q_row;
generate for (i = 0; i <= {rh}; i = i + 1) begin : any_decode
   assign d_row[i] = {d_high} == i;
   assign q_row[i] = {q_high} == i;
end endgenerate
{d}wire [{wh}:0] d_bit;
generate for (i = 0; i <= {wh}; i = i + 1) begin : d_bit_decode
   assign d_bit[i] = d_set[{l}:0] == i;
end endgenerate
// Stage D's row holds a pending flag other than its set's.
wire d_rest = |(pend_d & ~d_bit);
",
                    d_high = high("d_set"),
                    q_high = high("sq"),
                    wh = w - 1,
                    l = lo - 1,
                );
                (
                    decl,
                    format!("{r}      pend_any <= {}'d0;\n      rep_any <= {}'d0;\n", rh + 1, rh + 1),
                    format!(
                        "{l}      pend_any <= rq ? rep_any | (hq ? q_row : {z}) : (retire ? (pend_any & ~d_row) | (d_rest ? d_row : {z}) : pend_any);\n      rep_any <= rq ? {z} : rep_any | (hq ? q_row : {z});\n",
                        z = format!("{}'d0", rh + 1)
                    ),
                    "rq ? (|rep_any) | hq : (|(pend_any & ~(retire ? d_row : {z}))) | (retire & d_rest)"
                        .replace("{z}", &format!("{}'d0", rh + 1)),
                )
            }
        };
        // The lookup's flag and stage C's: without rows, S-to-1 selects registered (`lookup_r`,
        // `c_pend_r`) of one vector that already holds the roll; with rows, picks from the rows.
        let (l_regs, c_regs, x_decl, l_decl, l_reset, l_load, l_out) = match rows_on {
            false => (
                "reg lookup_r;\n",
                "reg c_pend_r;\n",
                format!(
                    "\
// `pend` after this edge but for this clock's retire: while the roll is applied, `rep`. The
// lookup's and the scanner's flags are one select of it each, not one per vector.
wire [{hi}:0] x = rq ? rep : pend;
wire [{hi}:0] x_rot = {x_rot};
",
                    hi = n - 1
                ),
                format!(
                    "\
// pend after this edge at the lookup's and the scanner's sets, and anywhere.
wire l_next = (x[{}] & ~(kill & ({}))) | (put & ({}));
",
                    set("lookup_set"),
                    eq("lookup_set", "d_set"),
                    eq("lookup_set", "sq")
                ),
                ("      lookup_r <= 1'b0;\n", "      c_pend_r <= 1'b0;\n"),
                (
                    "      lookup_r <= l_next;\n",
                    "      c_pend_r <= lookup ? l_next : s_next;\n",
                ),
                ("~known_r | lookup_r".to_string(), "c_pend_r".to_string()),
            ),
            true => (
                "",
                "",
                String::new(),
                "// pend after this edge at the scanner's sets, and anywhere.\n".to_string(),
                ("", ""),
                ("", ""),
                (
                    "~known_r | pend_l[l_low]".to_string(),
                    format!("pend_c[c_set[{}:0]]", lo - 1),
                ),
            ),
        };
        Verilog::Custom(format!(
            "\
reg [{hi}:0] cur;
reg [{hi}:0] prev;
reg [{hi}:0] pend;
reg [{hi}:0] rep;
reg d_cur_r;
reg d_prev_r;
reg d_pend_r;
{l_regs}reg known_r;
{c_regs}reg any_pend_r;
reg scan_r;
reg [{wh}:0] hot_r;
wire hq = |hot_r;
reg rq;
{sq_decl}wire [{hi}:0] sel;
wire [{hi}:0] selq;
{decode}{x_decl}{scan1_decl}wire kill = retire & ~rq;
wire put = rq & hq;
{l_decl}{s_rows}wire s_next = ({s_x} & ~(kill & ({s_d}))) | (put & ({s_q}));
wire s1_next = ({s1_x} & ~(kill & ({s1_d}))) | (put & ({s1_q}));
{a_rows}wire any_next = {any};
{c_rows}
always @(posedge clock) begin
   if (reset) begin
      cur <= {n}'d0;
      prev <= {n}'d0;
      pend <= {n}'d0;
      rep <= {n}'d0;
      d_cur_r <= 1'b0;
      d_prev_r <= 1'b0;
      d_pend_r <= 1'b0;
{l_reset0}      known_r <= 1'b0;
{l_reset1}      any_pend_r <= 1'b0;
      scan_r <= 1'b0;
      hot_r <= {ways}'d0;
      rq <= 1'b0;
{c_reset}{s_reset}{a_reset}   end else begin
      if (rq) begin
         cur <= {n}'d0;
         prev <= cur;
         pend <= rep | (hq ? selq : {n}'d0);
         rep <= {n}'d0;
      end else begin
         if (retire) pend <= pend & ~sel;
         if (touch) cur <= cur | sel;
         if (hq) rep <= rep | selq;
      end
{c_load}{s_load}{a_load}      // Stage D's flags: stage C's set's, with this clock's updates.
      d_cur_r <= ~rq & ({cur_c} | (touch & ({c_d})));
      d_prev_r <= rq ? {cur_c} : {prev_c};
      d_pend_r <= rq ? ({rep_c} | (hq & ({c_q}))) : ({pend_c} & ~(retire & ({c_d})));
{l_load0}      known_r <= lookup_hold;
{l_load1}      any_pend_r <= any_next;
      scan_r <= scan_advance ? s1_next : s_next;
      hot_r <= hot_valid ? {{{hot}}} : {ways}'d0;
      rq <= roll;
{sq_load}   end
end

always @(*) begin
   d_cur = d_cur_r;
   d_prev = d_prev_r;
   d_pend = d_pend_r;
   lookup_pend = {l_out0};
   scan_pend = scan_r;
   c_pend = {l_out1};
   any_pend = any_pend_r;
   rolling = rq;
end
",
            hi = n - 1,
            wh = self.hot.len() - 1,
            ways = self.hot.len(),
            hot = (0..self.hot.len())
                .rev()
                .map(|i| format!("hot${i}"))
                .collect::<Vec<_>>()
                .join(", "),
            l_reset0 = l_reset.0,
            l_reset1 = l_reset.1,
            l_load0 = l_load.0,
            l_load1 = l_load.1,
            l_out0 = l_out.0,
            l_out1 = l_out.1,
            cur_c = at_c[0],
            prev_c = at_c[1],
            pend_c = at_c[2],
            rep_c = at_c[3],
            s_d = eq("scan_set", "d_set"),
            c_d = eq("c_set", "d_set"),
            s_q = eq("scan_set", "sq"),
            c_q = eq("c_set", "sq"),
            s1_d = scan1_eq("d_set"),
            s1_q = scan1_eq("sq"),
        ))
    }
}
