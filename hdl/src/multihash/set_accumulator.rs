//! The set-associative accumulator of the multi-hash profiler in block RAM (docs/SPEC.md §4.2 steps
//! 1–3, §5.4, `organisation = "set_associative"`), for one event per clock.
//!
//! **Storage.** S = 2^SB sets of W ways. Way w is two RAMs of S words read in parallel with the
//! other ways: `tags[w]` (the tuple, [`TAG_BITS`] bits) and `metas[w]` (CB bits: the count in
//! bits 0..CB−2, **locked** at CB−2, valid at CB−1). An entry is empty (not valid), locked, or
//! **replaceable** (valid, not locked: retained from the previous interval). Entry order — for
//! allocation and in the model — is set-major, way-minor: within a set, lowest way first.
//!
//! **Pipeline** (as the fully-associative accumulator, but the table is in RAM):
//! - stage 0: the event's set (`lookup_set`, hashed by the top) addresses every way's RAMs;
//! - stage 1: the W words arrive; **forwarding**: when the op one cycle ahead wrote the same set,
//!   its written words are used instead (the RAM returns old data on a same-cycle read/write). Hit
//!   (**shielding**), allocation (empty way first, else replaceable, lowest way first) and
//!   locking follow docs/SPEC.md §4 within the set; every way of the set is written back.
//!
//! **Interval rollover without a sweep: per-set epochs.** Three bit-vectors in flip-flops, one bit
//! per set, say what a set's RAM words mean:
//! - `cur`: written in the current interval — the words are the entries;
//! - `prev` (and not `cur`): the words are the previous interval's final entries, so the entries
//!   now are their rollover: with **retaining** (P1) the reported ones (count ≥ T) replaceable
//!   with count 0, all others empty;
//! - neither: every entry is empty (two rollovers ago or never written).
//!
//! At the end of an interval, in one clock: `prev` ← `cur`, `pend` ← `cur`, `cur` ← 0. The first
//! op that reads a `prev` set in the new interval applies the rollover and writes it back.
//!
//! **Report.** `pend` marks the sets whose previous-interval entries are not reported yet. A set is
//! **retired** — its entries with count ≥ T copied to the W-slot report staging buffer — by the
//! first event of the new interval that touches it, or else by the **scanner**, which walks the
//! sets on clocks when no event uses the RAM read ports. The staging buffer streams out one entry
//! per clock (valid/ready); when every set is retired and the buffer is empty, a terminator word
//! (count 0, `report_last`) ends the report. So a report lists an interval's entries in the order
//! their sets were retired, lowest way first within a set; an empty report is the terminator
//! alone. `report_busy` is high until the terminator is taken.
//!
//! **When an event must wait** (`lookup_ok` low): its set still has a report pending and the
//! staging buffer is not free (it holds words, or a retirement is in stage 1). The top also
//! refuses the last event of an interval while `report_busy` (the previous report must be out):
//! the scanner then has the read ports, so this wait is at most one clock per set the interval
//! never touched, plus the report's words.

use crate::util::BitGather;
use rust_hdl::prelude::*;

/// Tag width: the tuple (a, b) packed as b << a_bits | a, so a_bits + b_bits <= 96.
pub const TAG_BITS: usize = 96;

#[derive(LogicBlock)]
pub struct SetAssociativeAccumulator<
    const SB: usize,
    const S: usize,
    const W: usize,
    const CB: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: every set empty, no report pending.
    pub reset: Signal<In, Bit>,
    /// Stage 0: an event is accepted this cycle, in set `lookup_set`.
    pub lookup: Signal<In, Bit>,
    pub lookup_set: Signal<In, Bits<SB>>,
    /// Stage 0: an event in `lookup_set` may be accepted (see "When an event must wait").
    pub lookup_ok: Signal<Out, Bit>,
    /// Stage 1 event: present, its tuple, its counters' new minimum.
    pub valid: Signal<In, Bit>,
    pub tag: Signal<In, Bits<TAG_BITS>>,
    pub new_min: Signal<In, Bits<CB>>,
    /// `new_min` >= T (the counters compute it off the minimum's carry chains).
    pub candidate: Signal<In, Bit>,
    /// The event is the last of its interval, numbered `interval`.
    pub end_interval: Signal<In, Bit>,
    pub interval: Signal<In, Bits<32>>,
    pub hit: Signal<Out, Bit>,
    pub promoted: Signal<Out, Bit>,
    pub report_valid: Signal<Out, Bit>,
    pub report_ready: Signal<In, Bit>,
    pub report_interval: Signal<Out, Bits<32>>,
    pub report_tag: Signal<Out, Bits<TAG_BITS>>,
    pub report_count: Signal<Out, Bits<32>>,
    pub report_last: Signal<Out, Bit>,
    pub report_busy: Signal<Out, Bit>,
    tags: [RAM<Bits<TAG_BITS>, SB>; W],
    metas: [RAM<Bits<CB>, SB>; W],
    cur: DFF<Bits<S>>,
    prev: DFF<Bits<S>>,
    pend: DFF<Bits<S>>,
    /// Stage 1 holds an op (an event or a scan) on set `s1_set`.
    s1_op: DFF<Bit>,
    s1_set: DFF<Bits<SB>>,
    scan_set: DFF<Bits<SB>>,
    fw_valid: DFF<Bit>,
    fw_set: DFF<Bits<SB>>,
    /// Forwarding of tags: a write changes a way's tag only when it allocates it, so the words
    /// the RAM returns (written up to two ops ahead) are right but for the way allocated one op
    /// ahead, which takes that op's tuple. Counts and states change on every write and are
    /// forwarded whole.
    fw_alloc: DFF<Bits<W>>,
    fw_tag: DFF<Bits<TAG_BITS>>,
    fw_meta: [DFF<Bits<CB>>; W],
    st_valid: DFF<Bits<W>>,
    st_tag: [DFF<Bits<TAG_BITS>>; W],
    st_count: [DFF<Bits<CB>>; W],
    /// The terminator of the previous interval's report is still to be sent.
    term: DFF<Bit>,
    rep_interval: DFF<Bits<32>>,
    // Stage 0.
    lookup_sel: Signal<Local, Bits<S>>,
    scan_sel: Signal<Local, Bits<S>>,
    scan_pend: Signal<Local, Bit>,
    scan: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    // Stage 1.
    set_sel: Signal<Local, Bits<S>>,
    s1_cur: Signal<Local, Bit>,
    s1_prev: Signal<Local, Bit>,
    s1_pend: Signal<Local, Bit>,
    raw_tag: [Signal<Local, Bits<TAG_BITS>>; W],
    raw_meta: [Signal<Local, Bits<CB>>; W],
    raw_count: [Signal<Local, Bits<CB>>; W],
    /// The entries as they are now (after a pending rollover): valid, locked, count.
    view_count: [Signal<Local, Bits<CB>>; W],
    n_tag: [Signal<Local, Bits<TAG_BITS>>; W],
    n_count: [Signal<Local, Bits<CB>>; W],
    n_meta: [Signal<Local, Bits<CB>>; W],
    raw_valid: BitGather<W>,
    raw_ge: BitGather<W>,
    view_valid: BitGather<W>,
    view_locked: BitGather<W>,
    hits: BitGather<W>,
    reported: Signal<Local, Bits<W>>,
    empty: Signal<Local, Bits<W>>,
    repl: Signal<Local, Bits<W>>,
    choose: Signal<Local, Bits<W>>,
    alloc: Signal<Local, Bits<W>>,
    st_cur: Signal<Local, Bits<W>>,
    rc: Signal<Local, Bits<CB>>,
    threshold: Constant<Bits<CB>>,
    count_max: Constant<Bits<CB>>,
    count_mask: Constant<Bits<CB>>,
    valid_flag: Constant<Bits<CB>>,
    locked_flag: Constant<Bits<CB>>,
    retaining: Constant<Bit>,
    set_one: Constant<Bits<S>>,
    set_none: Constant<Bits<S>>,
    sb_one: Constant<Bits<SB>>,
    way_one: Constant<Bits<W>>,
    way_none: Constant<Bits<W>>,
    one_c: Constant<Bits<CB>>,
    zero_c: Constant<Bits<CB>>,
}

impl<const SB: usize, const S: usize, const W: usize, const CB: usize>
    SetAssociativeAccumulator<SB, S, W, CB>
{
    /// `threshold` and `count_max` must be below 2^(CB−2), the count field (the top checks).
    pub fn new(threshold: u64, count_max: u64, retaining: bool) -> Self {
        assert!(
            S == 1 << SB && CB > 2 && CB < 64,
            "S = 2^SB sets, 2 < CB < 64"
        );
        let field = (1u64 << (CB - 2)) - 1;
        assert!(
            threshold <= field && count_max <= field,
            "counts fit the count field"
        );
        SetAssociativeAccumulator {
            clock: Default::default(),
            reset: Default::default(),
            lookup: Default::default(),
            lookup_set: Default::default(),
            lookup_ok: Default::default(),
            valid: Default::default(),
            tag: Default::default(),
            new_min: Default::default(),
            candidate: Default::default(),
            end_interval: Default::default(),
            interval: Default::default(),
            hit: Default::default(),
            promoted: Default::default(),
            report_valid: Default::default(),
            report_ready: Default::default(),
            report_interval: Default::default(),
            report_tag: Default::default(),
            report_count: Default::default(),
            report_last: Default::default(),
            report_busy: Default::default(),
            tags: std::array::from_fn(|_| Default::default()),
            metas: std::array::from_fn(|_| Default::default()),
            cur: Default::default(),
            prev: Default::default(),
            pend: Default::default(),
            s1_op: Default::default(),
            s1_set: Default::default(),
            scan_set: Default::default(),
            fw_valid: Default::default(),
            fw_set: Default::default(),
            fw_alloc: Default::default(),
            fw_tag: Default::default(),
            fw_meta: std::array::from_fn(|_| Default::default()),
            st_valid: Default::default(),
            st_tag: std::array::from_fn(|_| Default::default()),
            st_count: std::array::from_fn(|_| Default::default()),
            term: Default::default(),
            rep_interval: Default::default(),
            lookup_sel: Default::default(),
            scan_sel: Default::default(),
            scan_pend: Default::default(),
            scan: Default::default(),
            room: Default::default(),
            set_sel: Default::default(),
            s1_cur: Default::default(),
            s1_prev: Default::default(),
            s1_pend: Default::default(),
            raw_tag: std::array::from_fn(|_| Default::default()),
            raw_meta: std::array::from_fn(|_| Default::default()),
            raw_count: std::array::from_fn(|_| Default::default()),
            view_count: std::array::from_fn(|_| Default::default()),
            n_tag: std::array::from_fn(|_| Default::default()),
            n_count: std::array::from_fn(|_| Default::default()),
            n_meta: std::array::from_fn(|_| Default::default()),
            raw_valid: Default::default(),
            raw_ge: Default::default(),
            view_valid: Default::default(),
            view_locked: Default::default(),
            hits: Default::default(),
            reported: Default::default(),
            empty: Default::default(),
            repl: Default::default(),
            choose: Default::default(),
            alloc: Default::default(),
            st_cur: Default::default(),
            rc: Default::default(),
            threshold: Constant::new(threshold.into()),
            count_max: Constant::new(count_max.into()),
            count_mask: Constant::new(field.into()),
            valid_flag: Constant::new((1u64 << (CB - 1)).into()),
            locked_flag: Constant::new((1u64 << (CB - 2)).into()),
            retaining: Constant::new(retaining),
            set_one: Constant::new(1.into()),
            set_none: Constant::new(0.into()),
            sb_one: Constant::new(1.into()),
            way_one: Constant::new(1.into()),
            way_none: Constant::new(0.into()),
            one_c: Constant::new(1.into()),
            zero_c: Constant::new(0.into()),
        }
    }
}

impl<const SB: usize, const S: usize, const W: usize, const CB: usize> Logic
    for SetAssociativeAccumulator<SB, S, W, CB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            cur,
            prev,
            pend,
            s1_op,
            s1_set,
            scan_set,
            fw_valid,
            fw_set,
            fw_alloc,
            fw_tag,
            st_valid,
            term,
            rep_interval
        );
        // ---- Stage 1: the set's words, forwarded, and what they mean now.
        self.set_sel.next = self.set_one.val() << self.s1_set.q.val();
        self.s1_cur.next = (self.cur.q.val() & self.set_sel.val()).any();
        self.s1_prev.next = (self.prev.q.val() & self.set_sel.val()).any();
        self.s1_pend.next = self.s1_op.q.val() & (self.pend.q.val() & self.set_sel.val()).any();
        for w in 0..W {
            self.tags[w].read_clock.next = self.clock.val();
            self.tags[w].write_clock.next = self.clock.val();
            self.metas[w].read_clock.next = self.clock.val();
            self.metas[w].write_clock.next = self.clock.val();
            self.fw_meta[w].clock.next = self.clock.val();
            self.st_tag[w].clock.next = self.clock.val();
            self.st_count[w].clock.next = self.clock.val();
            self.fw_meta[w].d.next = self.fw_meta[w].q.val();
            self.st_tag[w].d.next = self.st_tag[w].q.val();
            self.st_count[w].d.next = self.st_count[w].q.val();
            self.raw_tag[w].next = self.tags[w].read_data.val();
            self.raw_meta[w].next = self.metas[w].read_data.val();
            if self.fw_valid.q.val() & (self.fw_set.q.val() == self.s1_set.q.val()) {
                if self.fw_alloc.q.val().get_bit(w) {
                    self.raw_tag[w].next = self.fw_tag.q.val();
                }
                self.raw_meta[w].next = self.fw_meta[w].q.val();
            }
            self.raw_count[w].next = self.raw_meta[w].val() & self.count_mask.val();
            self.raw_valid.bits[w].next = (self.raw_meta[w].val() & self.valid_flag.val()).any();
            self.raw_ge.bits[w].next = self.raw_count[w].val() >= self.threshold.val();
            if self.s1_cur.val() {
                self.view_valid.bits[w].next = self.raw_valid.word.val().get_bit(w);
                self.view_locked.bits[w].next =
                    (self.raw_meta[w].val() & self.locked_flag.val()).any();
                self.view_count[w].next = self.raw_count[w].val();
            } else {
                // Rollover (or long empty): retained entries are replaceable with count 0.
                self.view_valid.bits[w].next = self.s1_prev.val()
                    & self.retaining.val()
                    & self.raw_valid.word.val().get_bit(w)
                    & self.raw_ge.word.val().get_bit(w);
                self.view_locked.bits[w].next = false;
                self.view_count[w].next = self.zero_c.val();
            }
            self.hits.bits[w].next =
                self.view_valid.word.val().get_bit(w) & (self.raw_tag[w].val() == self.tag.val());
        }
        // Lookup and allocation within the set (shielding; empty first, else replaceable).
        self.hit.next = self.valid.val() & self.hits.word.val().any();
        self.empty.next = !self.view_valid.word.val();
        self.repl.next = self.view_valid.word.val() & !self.view_locked.word.val();
        if self.empty.val().any() {
            self.choose.next = self.empty.val() & (!self.empty.val() + self.way_one.val());
        } else {
            self.choose.next = self.repl.val() & (!self.repl.val() + self.way_one.val());
        }
        self.promoted.next = self.valid.val()
            & !self.hits.word.val().any()
            & self.candidate.val()
            & (self.empty.val() | self.repl.val()).any();
        self.alloc.next = self.way_none.val();
        if self.promoted.val() {
            self.alloc.next = self.choose.val();
        }
        // Next words of every way, written back (the set is now of the current interval).
        for w in 0..W {
            self.n_tag[w].next = self.raw_tag[w].val();
            self.n_count[w].next = self.view_count[w].val();
            if self.hits.word.val().get_bit(w) & (self.view_count[w].val() < self.count_max.val()) {
                self.n_count[w].next = self.view_count[w].val() + self.one_c.val();
            }
            self.n_meta[w].next = self.n_count[w].val();
            if self.view_valid.word.val().get_bit(w) {
                self.n_meta[w].next = self.n_count[w].val() | self.valid_flag.val();
            }
            // A replaceable entry whose count reaches T becomes locked; locked stays locked.
            if self.view_locked.word.val().get_bit(w)
                | (self.hits.word.val().get_bit(w)
                    & (self.n_count[w].val() >= self.threshold.val()))
            {
                self.n_meta[w].next =
                    self.n_count[w].val() | self.valid_flag.val() | self.locked_flag.val();
            }
            if self.alloc.val().get_bit(w) {
                self.n_tag[w].next = self.tag.val();
                self.n_meta[w].next = (self.new_min.val() & self.count_mask.val())
                    | self.valid_flag.val()
                    | self.locked_flag.val();
            }
            self.tags[w].write_address.next = self.s1_set.q.val();
            self.metas[w].write_address.next = self.s1_set.q.val();
            self.tags[w].write_data.next = self.n_tag[w].val();
            self.metas[w].write_data.next = self.n_meta[w].val();
            self.tags[w].write_enable.next = self.valid.val();
            self.metas[w].write_enable.next = self.valid.val();
            if self.valid.val() {
                self.fw_meta[w].d.next = self.n_meta[w].val();
            }
        }
        self.fw_valid.d.next = self.valid.val();
        self.fw_set.d.next = self.s1_set.q.val();
        self.fw_alloc.d.next = self.alloc.val();
        self.fw_tag.d.next = self.tag.val();
        // ---- Stage 0: the event's set, or else the scanner's, addresses the RAMs.
        self.room.next = !self.st_valid.q.val().any() & !self.s1_pend.val();
        self.lookup_sel.next = self.set_one.val() << self.lookup_set.val();
        self.lookup_ok.next = !(self.pend.q.val() & self.lookup_sel.val()).any() | self.room.val();
        self.scan_sel.next = self.set_one.val() << self.scan_set.q.val();
        self.scan_pend.next = (self.pend.q.val() & self.scan_sel.val()).any();
        self.scan.next = !self.lookup.val() & self.scan_pend.val() & self.room.val();
        for w in 0..W {
            if self.lookup.val() {
                self.tags[w].read_address.next = self.lookup_set.val();
                self.metas[w].read_address.next = self.lookup_set.val();
            } else {
                self.tags[w].read_address.next = self.scan_set.q.val();
                self.metas[w].read_address.next = self.scan_set.q.val();
            }
        }
        self.s1_op.d.next = self.lookup.val() | self.scan.val();
        if self.lookup.val() {
            self.s1_set.d.next = self.lookup_set.val();
        } else {
            self.s1_set.d.next = self.scan_set.q.val();
        }
        if !self.lookup.val() & (!self.scan_pend.val() | self.scan.val()) {
            self.scan_set.d.next = self.scan_set.q.val() + self.sb_one.val();
        }
        // ---- Report: staging buffer out, lowest way first, then the terminator.
        self.st_cur.next = self.st_valid.q.val() & (!self.st_valid.q.val() + self.way_one.val());
        self.report_busy.next =
            self.pend.q.val().any() | self.st_valid.q.val().any() | self.term.q.val();
        self.report_valid.next =
            self.st_valid.q.val().any() | (self.term.q.val() & !self.pend.q.val().any());
        self.report_last.next = !self.st_valid.q.val().any();
        self.report_interval.next = self.rep_interval.q.val();
        self.report_tag.next = 0.into();
        self.rc.next = self.zero_c.val();
        for w in 0..W {
            if self.st_cur.val().get_bit(w) {
                self.report_tag.next = self.st_tag[w].q.val();
                self.rc.next = self.st_count[w].q.val();
            }
        }
        self.report_count.next = bit_cast::<32, CB>(self.rc.val());
        if self.report_ready.val() & self.report_valid.val() {
            if self.st_valid.q.val().any() {
                self.st_valid.d.next = self.st_valid.q.val() & !self.st_cur.val();
            } else {
                self.term.d.next = false;
            }
        }
        // Retirement: a pending set's entries with count >= T go to the staging buffer.
        self.reported.next = self.raw_valid.word.val() & self.raw_ge.word.val();
        if self.s1_pend.val() {
            self.st_valid.d.next = self.reported.val();
            for w in 0..W {
                self.st_tag[w].d.next = self.raw_tag[w].val();
                self.st_count[w].d.next = self.raw_count[w].val();
            }
        }
        // ---- Per-set epochs.
        if self.s1_op.q.val() {
            self.pend.d.next = self.pend.q.val() & !self.set_sel.val();
        }
        if self.valid.val() {
            self.cur.d.next = self.cur.q.val() | self.set_sel.val();
        }
        if self.valid.val() & self.end_interval.val() {
            self.cur.d.next = self.set_none.val();
            self.prev.d.next = self.cur.q.val() | self.set_sel.val();
            self.pend.d.next = self.cur.q.val() | self.set_sel.val();
            self.term.d.next = true;
            self.rep_interval.d.next = self.interval.val();
        }
        if self.reset.val() {
            self.cur.d.next = self.set_none.val();
            self.prev.d.next = self.set_none.val();
            self.pend.d.next = self.set_none.val();
            self.s1_op.d.next = false;
            self.fw_valid.d.next = false;
            self.st_valid.d.next = self.way_none.val();
            self.term.d.next = false;
        }
    }
}
