//! The set-associative accumulator rebuilt around [`SetRelations`] (docs/notes/bits-in-d.md, "The
//! accumulator, distance by distance"): its RAMs, the forwarding of the words the ops three to
//! five slots ahead wrote, the per-set epochs, retirement and the report, for one event per clock
//! and no stall after stage R. The rules are those of [`SetAssociativeAccumulator`] (docs/SPEC.md
//! §4.2, §5.4), with the lowest replaceable way taken (first replacement).
//!
//! An op's stages, one clock each, as the counters' ([`RelationCounterTables`]):
//! - **R**: an offered event's set (`lookup_set`, from the top's flip-flops, accepted or not), or
//!   else the scanner's, addresses every way's tag and meta RAM; the set and the tuple are compared
//!   with those of the events one to five slots ahead (registered, carried);
//! - **M**: the RAMs' output registers;
//! - **C1**: the early view of each way — the word the youngest event three to five ahead on the
//!   set wrote (in W now, or one or two clocks ago), else the RAM's through the set's rollover
//!   (its epochs: current, previous, or empty) — and the tuple compared with the way's tag (a tag
//!   changes only on allocation: the tuple of the youngest op three to five ahead that allocated
//!   the way, compared in R, else the RAM's tag). The op retires its set here when the set's report
//!   is pending: no op ahead touched it in this interval, so the RAM words are the previous
//!   interval's, complete;
//! - **C2**, **D**: [`SetRelations`] (distance 2 and 1 forwarded as bits); D's hit shields the
//!   counters, its miss updates them, and the counters' `candidate` allocates;
//! - **W**: every way's meta, and the tag of an allocated way, written from registers; the way's
//!   count ≥ T joins `rep` of the set (the epochs), and with the spare bit, the word.
//!
//! **Epochs, report and waits** are [`SetAssociativeAccumulator`]'s, with its stage 0 in R, its
//! stage C in M and its stage D in C1 (the epochs' flags of C1's set hold the retirements and
//! touches of every op ahead, which passed C1 before): an event waits in R while its set's report
//! is pending (or its flag is not known yet) and the staging buffer is not free (it holds words,
//! or an op in M or C1 retires). The top lets nothing into R while an interval's last event is in
//! M … W, and the last event waits for the previous report; the interval ends (`end_interval`)
//! with its last event in W, or with an empty slot there (a flush), so T changes after that W.
//!
//! [`SetAssociativeAccumulator`]: super::set_accumulator::SetAssociativeAccumulator
//! [`RelationCounterTables`]: super::relation_tables::RelationCounterTables

use super::primitives::{vec_of, Priority};
use super::set_accumulator::{SetEpochs, TAG_BITS, TAG_PARTS};
use super::set_relations::SetRelations;
use super::threshold::{CandidateThreshold, THRESHOLD_BITS};
use crate::block_ram::{has_spare_bit, TableRam, ADDRESS_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RelationSetAccumulator<const CB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: every entry empty, no report pending, no op in flight.
    pub reset: Signal<In, Bit>,
    /// R: an event is offered in set `lookup_set` with tuple `lookup_tag` (from flip-flops; it may
    /// still be refused): its set is read and the scanner waits.
    pub lookup_offer: Signal<In, Bit>,
    /// R: the offered event is accepted (only when offered).
    pub lookup: Signal<In, Bit>,
    pub lookup_set: Signal<In, Bits<ADDRESS_BITS>>,
    pub lookup_tag: Signal<In, Bits<TAG_BITS>>,
    /// R: an event in `lookup_set` may be accepted (its set has no report pending, or there is
    /// room to retire it).
    pub lookup_ok: Signal<Out, Bit>,
    /// R: the set offered next clock is this clock's `lookup_set` (the top holds its event).
    pub lookup_hold: Signal<In, Bit>,
    /// D: the counters say the event's new minimum reaches T.
    pub candidate: Signal<In, Bit>,
    /// D: the event's tuple holds an entry (**shielding**: its counters are not updated), or it
    /// missed (they are), and whether it was allocated an entry.
    pub hit: Signal<Out, Bit>,
    pub miss: Signal<Out, Bit>,
    pub promoted: Signal<Out, Bit>,
    /// W: the new minimum of the event in W (the count of a way it was allocated).
    pub new_min_w: Signal<In, Bits<CB>>,
    /// W: the interval numbered `interval` ends with this slot (its last event, or no event: a
    /// flush); T of the next interval is taken from `threshold`.
    pub end_interval: Signal<In, Bit>,
    pub interval: Signal<In, Bits<32>>,
    pub threshold: Signal<In, Bits<THRESHOLD_BITS>>,
    /// The interval report, one entry per clock (valid/ready), a terminator (count 0,
    /// `report_last`) last; `report_busy` until the terminator is taken.
    pub report_valid: Signal<Out, Bit>,
    pub report_ready: Signal<In, Bit>,
    pub report_interval: Signal<Out, Bits<32>>,
    pub report_tag: Signal<Out, Bits<TAG_BITS>>,
    pub report_count: Signal<Out, Bits<32>>,
    pub report_last: Signal<Out, Bit>,
    pub report_busy: Signal<Out, Bit>,
    tags: Vec<TableRam<TAG_BITS>>,
    metas: Vec<TableRam<CB>>,
    epochs: SetEpochs,
    rel: SetRelations<CB>,
    candidate_threshold: CandidateThreshold<CB>,
    /// Each stage's slot: an op (an event or a scan) in M and C1, an event after; its set and
    /// tuple.
    m_op: DFF<Bit>,
    m_ev: DFF<Bit>,
    m_set: DFF<Bits<ADDRESS_BITS>>,
    m_tag: DFF<Bits<TAG_BITS>>,
    c1_op: DFF<Bit>,
    c1_ev: DFF<Bit>,
    c1_set: DFF<Bits<ADDRESS_BITS>>,
    c1_tag: DFF<Bits<TAG_BITS>>,
    c2_ev: DFF<Bit>,
    c2_set: DFF<Bits<ADDRESS_BITS>>,
    c2_tag: DFF<Bits<TAG_BITS>>,
    d_ev: DFF<Bit>,
    d_set: DFF<Bits<ADDRESS_BITS>>,
    d_tag: DFF<Bits<TAG_BITS>>,
    w_ev: DFF<Bit>,
    w_set: DFF<Bits<ADDRESS_BITS>>,
    w_tag: DFF<Bits<TAG_BITS>>,
    /// R's op against the events one to five slots ahead: on the same set (`same`), with the
    /// same tuple (`key`); registered in M and carried (C1 needs 2–5, C2 needs 1).
    m_same1: DFF<Bit>,
    m_same2: DFF<Bit>,
    m_same3: DFF<Bit>,
    m_same4: DFF<Bit>,
    m_same5: DFF<Bit>,
    m_key1: DFF<Bit>,
    m_key2: DFF<Bit>,
    m_key3: DFF<Bit>,
    m_key4: DFF<Bit>,
    m_key5: DFF<Bit>,
    c1_same1: DFF<Bit>,
    c1_same2: DFF<Bit>,
    c1_same3: DFF<Bit>,
    c1_same4: DFF<Bit>,
    c1_same5: DFF<Bit>,
    c1_key1: DFF<Bit>,
    c1_key2: DFF<Bit>,
    c1_key3: DFF<Bit>,
    c1_key4: DFF<Bit>,
    c1_key5: DFF<Bit>,
    c2_same1: DFF<Bit>,
    c2_key1: DFF<Bit>,
    /// The words W wrote one and two clocks ago (by the events four and five slots ahead of C1's):
    /// valid, locked, count, allocated.
    w2_valid: Vec<DFF<Bit>>,
    w2_locked: Vec<DFF<Bit>>,
    w2_count: Vec<DFF<Bits<CB>>>,
    w2_alloc: Vec<DFF<Bit>>,
    w3_valid: Vec<DFF<Bit>>,
    w3_locked: Vec<DFF<Bit>>,
    w3_count: Vec<DFF<Bits<CB>>>,
    w3_alloc: Vec<DFF<Bit>>,
    /// C1: the RAM's word (valid, locked, count, count ≥ T of the interval it was written in),
    /// and the early view of each way.
    ram_valid: Vec<Signal<Local, Bit>>,
    ram_count: Vec<Signal<Local, Bits<CB>>>,
    ram_ge: Vec<Signal<Local, Bit>>,
    e_valid: Vec<Signal<Local, Bit>>,
    e_locked: Vec<Signal<Local, Bit>>,
    e_count: Vec<Signal<Local, Bits<CB>>>,
    /// Slice p of the tuple against way w's tag, at w · [`TAG_PARTS`] + p.
    e_teq: Vec<Signal<Local, Bit>>,
    /// W: the meta word written, and its flags.
    w_word: Vec<Signal<Local, Bits<CB>>>,
    w_vf: Vec<Signal<Local, Bits<CB>>>,
    w_lf: Vec<Signal<Local, Bits<CB>>>,
    w_gf: Vec<Signal<Local, Bits<CB>>>,
    /// Retirement and the report, as [`SetAssociativeAccumulator`]'s.
    ///
    /// [`SetAssociativeAccumulator`]: super::set_accumulator::SetAssociativeAccumulator
    st_valid: Vec<DFF<Bit>>,
    st_tag: Vec<DFF<Bits<TAG_BITS>>>,
    st_count: Vec<DFF<Bits<CB>>>,
    term: DFF<Bit>,
    rep_interval: DFF<Bits<32>>,
    scan_set: DFF<Bits<ADDRESS_BITS>>,
    scan: Signal<Local, Bit>,
    scan_advance: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    r_set: Signal<Local, Bits<ADDRESS_BITS>>,
    m_pend: Signal<Local, Bit>,
    c1_pend: Signal<Local, Bit>,
    staged: Priority,
    rc: Signal<Local, Bits<CB>>,
    /// The meta word's fields; `ge_bit` holds count ≥ T where the RAMs have the bit spare
    /// (`predicates_in_ram`), else a retiring word is compared with the previous T.
    count_mask: Constant<Bits<CB>>,
    valid_flag: Constant<Bits<CB>>,
    locked_flag: Constant<Bits<CB>>,
    ge_bit: Constant<Bits<CB>>,
    predicates_in_ram: Constant<Bit>,
    retaining: Constant<Bit>,
    last_set: Constant<Bits<ADDRESS_BITS>>,
    set_one: Constant<Bits<ADDRESS_BITS>>,
    zero: Constant<Bits<CB>>,
}

impl<const CB: usize> RelationSetAccumulator<CB> {
    /// `sets` (a power of two) × `ways` entries; tags of `tag_width` <= [`TAG_BITS`] bits; counts
    /// of `count_width` bits (the state takes two more, at most CB in all) saturating at
    /// `count_max`; `retaining` (P1: reported entries stay replaceable at count 0); `fixed_threshold`:
    /// T for good, else taken from `threshold` at reset and at every interval end.
    pub fn new(
        sets: usize,
        ways: usize,
        tag_width: usize,
        count_width: usize,
        count_max: u64,
        retaining: bool,
        fixed_threshold: Option<u64>,
    ) -> Self {
        assert!(
            sets.is_power_of_two() && ways >= 1 && count_width + 2 <= CB.min(63),
            "2^k sets, count and state within CB bits"
        );
        assert!(tag_width <= TAG_BITS, "tags within {TAG_BITS} bits");
        let field = (1u64 << count_width) - 1;
        assert!(count_max <= field, "counts fit the count field");
        let predicates_in_ram =
            count_width + 3 <= CB.min(63) && has_spare_bit(sets, count_width + 2);
        let meta_width = count_width + 2 + predicates_in_ram as usize;
        // A word read in the clock of its write (five slots ahead) is replaced by a forwarded one.
        RelationSetAccumulator {
            clock: Default::default(),
            reset: Default::default(),
            lookup_offer: Default::default(),
            lookup: Default::default(),
            lookup_set: Default::default(),
            lookup_tag: Default::default(),
            lookup_ok: Default::default(),
            lookup_hold: Default::default(),
            candidate: Default::default(),
            hit: Default::default(),
            miss: Default::default(),
            promoted: Default::default(),
            new_min_w: Default::default(),
            end_interval: Default::default(),
            interval: Default::default(),
            threshold: Default::default(),
            report_valid: Default::default(),
            report_ready: Default::default(),
            report_interval: Default::default(),
            report_tag: Default::default(),
            report_count: Default::default(),
            report_last: Default::default(),
            report_busy: Default::default(),
            tags: (0..ways)
                .map(|_| TableRam::with_output_register(sets, tag_width).forwarded())
                .collect(),
            metas: (0..ways)
                .map(|_| TableRam::with_output_register(sets, meta_width).forwarded())
                .collect(),
            epochs: SetEpochs::new(sets, ways, false),
            rel: SetRelations::new(ways, count_max),
            candidate_threshold: CandidateThreshold::new(count_max, 0, fixed_threshold),
            m_op: Default::default(),
            m_ev: Default::default(),
            m_set: Default::default(),
            m_tag: Default::default(),
            c1_op: Default::default(),
            c1_ev: Default::default(),
            c1_set: Default::default(),
            c1_tag: Default::default(),
            c2_ev: Default::default(),
            c2_set: Default::default(),
            c2_tag: Default::default(),
            d_ev: Default::default(),
            d_set: Default::default(),
            d_tag: Default::default(),
            w_ev: Default::default(),
            w_set: Default::default(),
            w_tag: Default::default(),
            m_same1: Default::default(),
            m_same2: Default::default(),
            m_same3: Default::default(),
            m_same4: Default::default(),
            m_same5: Default::default(),
            m_key1: Default::default(),
            m_key2: Default::default(),
            m_key3: Default::default(),
            m_key4: Default::default(),
            m_key5: Default::default(),
            c1_same1: Default::default(),
            c1_same2: Default::default(),
            c1_same3: Default::default(),
            c1_same4: Default::default(),
            c1_same5: Default::default(),
            c1_key1: Default::default(),
            c1_key2: Default::default(),
            c1_key3: Default::default(),
            c1_key4: Default::default(),
            c1_key5: Default::default(),
            c2_same1: Default::default(),
            c2_key1: Default::default(),
            w2_valid: vec_of(ways),
            w2_locked: vec_of(ways),
            w2_count: vec_of(ways),
            w2_alloc: vec_of(ways),
            w3_valid: vec_of(ways),
            w3_locked: vec_of(ways),
            w3_count: vec_of(ways),
            w3_alloc: vec_of(ways),
            ram_valid: vec_of(ways),
            ram_count: vec_of(ways),
            ram_ge: vec_of(ways),
            e_valid: vec_of(ways),
            e_locked: vec_of(ways),
            e_count: vec_of(ways),
            e_teq: vec_of(ways * TAG_PARTS),
            w_word: vec_of(ways),
            w_vf: vec_of(ways),
            w_lf: vec_of(ways),
            w_gf: vec_of(ways),
            st_valid: vec_of(ways),
            st_tag: vec_of(ways),
            st_count: vec_of(ways),
            term: Default::default(),
            rep_interval: Default::default(),
            scan_set: Default::default(),
            scan: Default::default(),
            scan_advance: Default::default(),
            room: Default::default(),
            r_set: Default::default(),
            m_pend: Default::default(),
            c1_pend: Default::default(),
            staged: Priority::new(ways),
            rc: Default::default(),
            count_mask: Constant::new(field.into()),
            valid_flag: Constant::new((1u64 << (count_width + 1)).into()),
            locked_flag: Constant::new((1u64 << count_width).into()),
            ge_bit: Constant::new((predicates_in_ram as u64 * (1 << (count_width + 2))).into()),
            predicates_in_ram: Constant::new(predicates_in_ram),
            retaining: Constant::new(retaining),
            last_set: Constant::new((sets as u64 - 1).into()),
            set_one: Constant::new(1.into()),
            zero: Constant::new(0.into()),
        }
    }
}

impl<const CB: usize> Logic for RelationSetAccumulator<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            m_op,
            m_ev,
            m_set,
            m_tag,
            c1_op,
            c1_ev,
            c1_set,
            c1_tag,
            c2_ev,
            c2_set,
            c2_tag,
            d_ev,
            d_set,
            d_tag,
            w_ev,
            w_set,
            w_tag,
            m_same1,
            m_same2,
            m_same3,
            m_same4,
            m_same5,
            m_key1,
            m_key2,
            m_key3,
            m_key4,
            m_key5,
            c1_same1,
            c1_same2,
            c1_same3,
            c1_same4,
            c1_same5,
            c1_key1,
            c1_key2,
            c1_key3,
            c1_key4,
            c1_key5,
            c2_same1,
            c2_key1,
            term,
            rep_interval,
            scan_set
        );
        self.candidate_threshold.clock.next = self.clock.val();
        self.candidate_threshold.load.next = self.reset.val() | self.end_interval.val();
        self.candidate_threshold.value.next = self.threshold.val();
        self.rel.clock.next = self.clock.val();
        self.rel.reset.next = self.reset.val();
        self.rel.t.next = self.candidate_threshold.t.val();
        self.rel.t_minus_1.next = self.candidate_threshold.t_minus_1.val();
        self.rel.t_minus_2.next = self.candidate_threshold.t_minus_2.val();
        self.rel.t_minus_3.next = self.candidate_threshold.t_minus_3.val();
        self.rel.reachable.next = self.candidate_threshold.reachable.val();
        self.rel.cand.next = self.candidate.val();
        self.rel.new_min_w.next = self.new_min_w.val();
        self.hit.next = self.rel.hit.val();
        self.miss.next = self.rel.miss.val();
        self.promoted.next = false;
        for w in 0..self.tags.len() {
            if self.rel.alloc[w].val() {
                self.promoted.next = true;
            }
        }
        self.epochs.clock.next = self.clock.val();
        self.epochs.reset.next = self.reset.val();
        // ---- The slots move one stage a clock.
        self.c1_op.d.next = self.m_op.q.val();
        self.c1_ev.d.next = self.m_ev.q.val();
        self.c1_set.d.next = self.m_set.q.val();
        self.c1_tag.d.next = self.m_tag.q.val();
        self.c2_ev.d.next = self.c1_ev.q.val();
        self.c2_set.d.next = self.c1_set.q.val();
        self.c2_tag.d.next = self.c1_tag.q.val();
        self.d_ev.d.next = self.c2_ev.q.val();
        self.d_set.d.next = self.c2_set.q.val();
        self.d_tag.d.next = self.c2_tag.q.val();
        self.w_ev.d.next = self.d_ev.q.val();
        self.w_set.d.next = self.d_set.q.val();
        self.w_tag.d.next = self.d_tag.q.val();
        self.c1_same1.d.next = self.m_same1.q.val();
        self.c1_same2.d.next = self.m_same2.q.val();
        self.c1_same3.d.next = self.m_same3.q.val();
        self.c1_same4.d.next = self.m_same4.q.val();
        self.c1_same5.d.next = self.m_same5.q.val();
        self.c1_key1.d.next = self.m_key1.q.val();
        self.c1_key2.d.next = self.m_key2.q.val();
        self.c1_key3.d.next = self.m_key3.q.val();
        self.c1_key4.d.next = self.m_key4.q.val();
        self.c1_key5.d.next = self.m_key5.q.val();
        self.c2_same1.d.next = self.c1_same1.q.val();
        self.c2_key1.d.next = self.c1_key1.q.val();
        // ---- R: the offered event's set, or else the scanner's, addresses the RAMs; the set and
        // the tuple against the events one to five ahead (in M, C1, C2, D, W now).
        // The ops in M and C1 that retire their sets (the epochs' stages C and D).
        self.m_pend.next = self.m_op.q.val() & self.epochs.c_pend.val();
        self.c1_pend.next = self.c1_op.q.val() & self.epochs.d_pend.val();
        self.room.next = !self.staged.any.val() & !self.m_pend.val() & !self.c1_pend.val();
        self.lookup_ok.next = !self.epochs.lookup_pend.val() | self.room.val();
        self.scan.next = !self.lookup_offer.val() & self.epochs.scan_pend.val() & self.room.val();
        if self.lookup_offer.val() {
            self.r_set.next = self.lookup_set.val();
        } else {
            self.r_set.next = self.scan_set.q.val();
        }
        self.m_op.d.next = self.lookup.val() | self.scan.val();
        self.m_ev.d.next = self.lookup.val();
        self.m_set.d.next = self.r_set.val();
        self.m_tag.d.next = self.lookup_tag.val();
        // Only an event's relations are used (a scan takes the RAM's words), so they compare the
        // offered set, not R's address after the scanner's mux.
        self.m_same1.d.next = self.m_ev.q.val() & (self.lookup_set.val() == self.m_set.q.val());
        self.m_same2.d.next = self.c1_ev.q.val() & (self.lookup_set.val() == self.c1_set.q.val());
        self.m_same3.d.next = self.c2_ev.q.val() & (self.lookup_set.val() == self.c2_set.q.val());
        self.m_same4.d.next = self.d_ev.q.val() & (self.lookup_set.val() == self.d_set.q.val());
        self.m_same5.d.next = self.w_ev.q.val() & (self.lookup_set.val() == self.w_set.q.val());
        self.m_key1.d.next = self.lookup_tag.val() == self.m_tag.q.val();
        self.m_key2.d.next = self.lookup_tag.val() == self.c1_tag.q.val();
        self.m_key3.d.next = self.lookup_tag.val() == self.c2_tag.q.val();
        self.m_key4.d.next = self.lookup_tag.val() == self.d_tag.q.val();
        self.m_key5.d.next = self.lookup_tag.val() == self.w_tag.q.val();
        self.epochs.lookup_set.next = self.lookup_set.val();
        self.epochs.scan_set.next = self.scan_set.q.val();
        self.epochs.lookup.next = self.lookup_offer.val();
        self.epochs.lookup_hold.next = self.lookup_hold.val();
        self.scan_advance.next =
            !self.lookup_offer.val() & (!self.epochs.scan_pend.val() | self.scan.val());
        self.epochs.scan_advance.next = self.scan_advance.val();
        if self.scan_advance.val() {
            self.scan_set.d.next = self.scan_set.q.val() + self.set_one.val();
            if self.scan_set.q.val() == self.last_set.val() {
                self.scan_set.d.next = 0.into();
            }
        }
        // ---- M: the epochs' stage C; an op here retires its set next clock if it is pending.
        self.epochs.c_set.next = self.m_set.q.val();
        // ---- C1: the epochs' stage D: the op retires its set, an event touches it.
        self.epochs.d_set.next = self.c1_set.q.val();
        self.epochs.retire.next = self.c1_op.q.val();
        self.epochs.touch.next = self.c1_ev.q.val();
        self.rel.c1_ev.next = self.c1_ev.q.val();
        self.rel.c1_ahead2.next = self.c1_same2.q.val();
        self.rel.c1_key2.next = self.c1_key2.q.val();
        self.rel.c2_ahead1.next = self.c2_same1.q.val();
        self.rel.c2_key1.next = self.c2_key1.q.val();
        for w in 0..self.tags.len() {
            self.tags[w].read_clock.next = self.clock.val();
            self.tags[w].write_clock.next = self.clock.val();
            self.metas[w].read_clock.next = self.clock.val();
            self.metas[w].write_clock.next = self.clock.val();
            self.tags[w].read_address.next = self.r_set.val();
            self.metas[w].read_address.next = self.r_set.val();
            self.w2_valid[w].clock.next = self.clock.val();
            self.w2_locked[w].clock.next = self.clock.val();
            self.w2_count[w].clock.next = self.clock.val();
            self.w2_alloc[w].clock.next = self.clock.val();
            self.w3_valid[w].clock.next = self.clock.val();
            self.w3_locked[w].clock.next = self.clock.val();
            self.w3_count[w].clock.next = self.clock.val();
            self.w3_alloc[w].clock.next = self.clock.val();
            self.st_valid[w].clock.next = self.clock.val();
            self.st_tag[w].clock.next = self.clock.val();
            self.st_count[w].clock.next = self.clock.val();
            // The RAM's word, and whether its count reached the T of the interval it was
            // written in (stored, or compared: such a word is the previous interval's).
            self.ram_valid[w].next = (self.metas[w].read_data.val() & self.valid_flag.val()).any();
            self.ram_count[w].next = self.metas[w].read_data.val() & self.count_mask.val();
            if self.predicates_in_ram.val() {
                self.ram_ge[w].next = (self.metas[w].read_data.val() & self.ge_bit.val()).any();
            } else {
                self.ram_ge[w].next =
                    self.ram_count[w].val() >= self.candidate_threshold.t_prev.val();
            }
            // Through the set's rollover: a word of this interval is the entry; of the previous
            // one, a reported entry retained at count 0 (P1), else empty; older, empty.
            self.e_valid[w].next = false;
            self.e_locked[w].next = false;
            self.e_count[w].next = self.zero.val();
            if self.epochs.d_cur.val() {
                self.e_valid[w].next = self.ram_valid[w].val();
                self.e_locked[w].next =
                    (self.metas[w].read_data.val() & self.locked_flag.val()).any();
                self.e_count[w].next = self.ram_count[w].val();
            } else if self.epochs.d_prev.val() {
                self.e_valid[w].next =
                    self.retaining.val() & self.ram_valid[w].val() & self.ram_ge[w].val();
            }
            // The tag compare by slices (literals: TAG_PARTS = 12 of TAG_PART_BITS = 8 bits).
            for p in 0..12 {
                self.e_teq[w * 12 + p].next = self.tags[w].read_data.val().get_bits::<8>(p * 8)
                    == self.c1_tag.q.val().get_bits::<8>(p * 8);
            }
            // The words of the events five, four and three ahead on this set, the youngest last
            // (they wrote the set in this interval: no rollover applies); a tag is theirs only
            // where they allocated the way.
            if self.c1_same5.q.val() {
                self.e_valid[w].next = self.w3_valid[w].q.val();
                self.e_locked[w].next = self.w3_locked[w].q.val();
                self.e_count[w].next = self.w3_count[w].q.val();
                if self.w3_alloc[w].q.val() {
                    for p in 0..12 {
                        self.e_teq[w * 12 + p].next = self.c1_key5.q.val();
                    }
                }
            }
            if self.c1_same4.q.val() {
                self.e_valid[w].next = self.w2_valid[w].q.val();
                self.e_locked[w].next = self.w2_locked[w].q.val();
                self.e_count[w].next = self.w2_count[w].q.val();
                if self.w2_alloc[w].q.val() {
                    for p in 0..12 {
                        self.e_teq[w * 12 + p].next = self.c1_key4.q.val();
                    }
                }
            }
            if self.c1_same3.q.val() {
                self.e_valid[w].next = self.rel.w_valid[w].val();
                self.e_locked[w].next = self.rel.w_locked[w].val();
                self.e_count[w].next = self.rel.w_count[w].val();
                if self.rel.w_alloc[w].val() {
                    for p in 0..12 {
                        self.e_teq[w * 12 + p].next = self.c1_key3.q.val();
                    }
                }
            }
            self.rel.e_valid[w].next = self.e_valid[w].val();
            self.rel.e_locked[w].next = self.e_locked[w].val();
            self.rel.e_count[w].next = self.e_count[w].val();
            for p in 0..12 {
                self.rel.e_teq[w * 12 + p].next = self.e_teq[w * 12 + p].val();
            }
            // ---- W: the words of the event in W, from registers, remembered two more clocks.
            self.w2_valid[w].d.next = self.rel.w_valid[w].val();
            self.w2_locked[w].d.next = self.rel.w_locked[w].val();
            self.w2_count[w].d.next = self.rel.w_count[w].val();
            self.w2_alloc[w].d.next = self.rel.w_alloc[w].val();
            self.w3_valid[w].d.next = self.w2_valid[w].q.val();
            self.w3_locked[w].d.next = self.w2_locked[w].q.val();
            self.w3_count[w].d.next = self.w2_count[w].q.val();
            self.w3_alloc[w].d.next = self.w2_alloc[w].q.val();
            self.w_vf[w].next = self.zero.val();
            if self.rel.w_valid[w].val() {
                self.w_vf[w].next = self.valid_flag.val();
            }
            self.w_lf[w].next = self.zero.val();
            if self.rel.w_locked[w].val() {
                self.w_lf[w].next = self.locked_flag.val();
            }
            self.w_gf[w].next = self.zero.val();
            if self.rel.w_hot[w].val() {
                self.w_gf[w].next = self.ge_bit.val();
            }
            self.w_word[w].next = (self.rel.w_count[w].val() & self.count_mask.val())
                | self.w_vf[w].val()
                | self.w_lf[w].val()
                | self.w_gf[w].val();
            self.metas[w].write_address.next = self.w_set.q.val();
            self.metas[w].write_data.next = self.w_word[w].val();
            self.metas[w].write_enable.next = self.w_ev.q.val();
            self.tags[w].write_address.next = self.w_set.q.val();
            self.tags[w].write_data.next = self.w_tag.q.val();
            self.tags[w].write_enable.next = self.w_ev.q.val() & self.rel.w_alloc[w].val();
            self.epochs.hot[w].next = self.rel.w_hot[w].val() & self.rel.w_valid[w].val();
        }
        self.epochs.hot_valid.next = self.w_ev.q.val();
        self.epochs.hot_set.next = self.w_set.q.val();
        self.epochs.roll.next = self.end_interval.val();
        // ---- Report: staging buffer out, lowest way first, then the terminator.
        for w in 0..self.tags.len() {
            self.st_valid[w].d.next = self.st_valid[w].q.val();
            self.st_tag[w].d.next = self.st_tag[w].q.val();
            self.st_count[w].d.next = self.st_count[w].q.val();
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
        self.rc.next = self.zero.val();
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
        // Retirement in C1: a pending set's entries with count >= T go to the staging buffer.
        if self.c1_pend.val() {
            for w in 0..self.tags.len() {
                self.st_valid[w].d.next = self.ram_valid[w].val() & self.ram_ge[w].val();
                self.st_tag[w].d.next = self.tags[w].read_data.val();
                self.st_count[w].d.next = self.ram_count[w].val();
            }
        }
        if self.end_interval.val() {
            self.term.d.next = true;
            self.rep_interval.d.next = self.interval.val();
        }
        if self.reset.val() {
            self.m_op.d.next = false;
            self.m_ev.d.next = false;
            self.c1_op.d.next = false;
            self.c1_ev.d.next = false;
            self.c2_ev.d.next = false;
            self.d_ev.d.next = false;
            self.w_ev.d.next = false;
            self.term.d.next = false;
            for w in 0..self.tags.len() {
                self.st_valid[w].d.next = false;
            }
        }
    }
}
