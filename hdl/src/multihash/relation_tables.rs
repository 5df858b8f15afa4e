//! The counter tables of the multi-hash profiler rebuilt around [`CounterRelations`] (docs/notes/
//! bits-in-d.md, "The rebuild, clock by clock"): their RAMs, the two banks, and the forwarding
//! of the words the events ahead wrote, for one event per clock and no stall after stage R.
//!
//! An event's stages, one clock each: **R** (its indices address both banks of every table, and
//! are compared with the indices of the events one to five slots ahead, registered), **M** (the
//! block RAM's output register: the DP16KD's own on the ECP5), **C1** (the early word merged and
//! the late mux, in [`CounterRelations`]), **C2**, **D** (the decision), **W** (the write, from
//! registers). A read in R sees the writes made before its clock, those of the events six or
//! more slots ahead; the nearer ones are forwarded:
//! - five, four and three ahead: the words they wrote (`w3_*`, `w2_*`) or are writing (W), taken
//!   in C1 instead of the RAM's, the youngest winning;
//! - two ahead: the late mux in C1, one ahead: the relations in C2 ([`CounterRelations`]).
//!
//! A slot without an event forwards nothing. An interval's events use its bank (interval i mod
//! 2); when the interval ends (`clear_start` in D, with its last event or an empty slot) the
//! bank is cleared from the clock after that slot's W, one word per clock on its idle write port
//! ([`BankClear`]), while the next interval runs on the other bank; an event may enter R only on
//! a clean bank (`clearing0`/`clearing1` low when it was accepted). T is taken at reset and with
//! `clear_start`, so the top must not let events of two intervals be in C2 and D together (it
//! drains at every interval end).

use super::counter_tables::UpdateRule;
use super::primitives::{vec_of, BankClear};
use super::relations::CounterRelations;
use super::threshold::{CandidateThreshold, THRESHOLD_BITS};
use crate::block_ram::{TableRam, ADDRESS_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RelationCounterTables<const CB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: clears both banks and forgets the events in flight.
    pub reset: Signal<In, Bit>,
    /// R: an event, its index in every table and its interval's bank (the bank also for an empty
    /// slot: the interval it belongs to).
    pub r_valid: Signal<In, Bit>,
    pub r_index: Vec<Signal<In, Bits<ADDRESS_BITS>>>,
    pub r_bank: Signal<In, Bit>,
    /// D: the event missed the accumulator, so its counters are updated.
    pub miss: Signal<In, Bit>,
    /// D: an interval ends with this slot: its bank is cleared after the slot's W, and T is
    /// taken from `threshold`.
    pub clear_start: Signal<In, Bit>,
    pub threshold: Signal<In, Bits<THRESHOLD_BITS>>,
    /// D: every counter of the event is at least T − 1: its new minimum reaches T.
    pub candidate: Signal<Out, Bit>,
    /// W (a clock after D): the event's new minimum.
    pub new_min_w: Signal<Out, Bits<CB>>,
    /// Bank 0 / bank 1 is being cleared: no event of that bank may be accepted.
    pub clearing0: Signal<Out, Bit>,
    pub clearing1: Signal<Out, Bit>,
    bank0: Vec<TableRam<CB>>,
    bank1: Vec<TableRam<CB>>,
    rel: CounterRelations<CB>,
    candidate_threshold: CandidateThreshold<CB>,
    clear0: BankClear,
    clear1: BankClear,
    /// Each stage's slot: an event, its bank and indices.
    m_valid: DFF<Bit>,
    m_bank: DFF<Bit>,
    m_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
    c1_valid: DFF<Bit>,
    c1_bank: DFF<Bit>,
    c1_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
    c2_valid: DFF<Bit>,
    c2_bank: DFF<Bit>,
    c2_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
    d_valid: DFF<Bit>,
    d_bank: DFF<Bit>,
    d_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
    w_valid: DFF<Bit>,
    w_bank: DFF<Bit>,
    w_last: DFF<Bit>,
    w_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
    /// Per table, R's event against the events 1–5 slots ahead (same bank and index), registered
    /// in M (`m_same1` … `m_same5`) and carried: C1 needs 2–5, C2 needs 1.
    m_same1: Vec<DFF<Bit>>,
    m_same2: Vec<DFF<Bit>>,
    m_same3: Vec<DFF<Bit>>,
    m_same4: Vec<DFF<Bit>>,
    m_same5: Vec<DFF<Bit>>,
    c1_same1: Vec<DFF<Bit>>,
    c1_same2: Vec<DFF<Bit>>,
    c1_same3: Vec<DFF<Bit>>,
    c1_same4: Vec<DFF<Bit>>,
    c1_same5: Vec<DFF<Bit>>,
    c2_same1: Vec<DFF<Bit>>,
    /// The words written one and two clocks ago (by the events four and five slots ahead of C1's),
    /// with their decrements and zero flags.
    w2_word: Vec<DFF<Bits<CB>>>,
    w2_word_m: Vec<DFF<Bits<CB>>>,
    w2_zero: Vec<DFF<Bit>>,
    w3_word: Vec<DFF<Bits<CB>>>,
    w3_word_m: Vec<DFF<Bits<CB>>>,
    w3_zero: Vec<DFF<Bit>>,
    /// C1: the word of C1's bank from the RAM, − 1, 0; and the early word.
    ram: Vec<Signal<Local, Bits<CB>>>,
    t0: Vec<Signal<Local, Bits<CB>>>,
    t0m: Vec<Signal<Local, Bits<CB>>>,
    t0z: Vec<Signal<Local, Bit>>,
    one: Constant<Bits<CB>>,
    zero: Constant<Bits<CB>>,
}

impl<const CB: usize> RelationCounterTables<CB> {
    /// `rule.tables` tables of `entries` counters stored in `width` <= CB bits, updated by `rule`
    /// (not reset on promote: see [`CounterRelations::new`]).
    pub fn new(entries: usize, width: usize, rule: &UpdateRule) -> Self {
        let tables = rule.tables;
        assert!(
            width == 64 || rule.counter_max < 1u64 << width,
            "counters fit their storage"
        );
        // A word read in the clock of its write (five slots ahead) is replaced by a forwarded one.
        let ram = || TableRam::with_output_register(entries, width).forwarded();
        RelationCounterTables {
            clock: Default::default(),
            reset: Default::default(),
            r_valid: Default::default(),
            r_index: vec_of(tables),
            r_bank: Default::default(),
            miss: Default::default(),
            clear_start: Default::default(),
            threshold: Default::default(),
            candidate: Default::default(),
            new_min_w: Default::default(),
            clearing0: Default::default(),
            clearing1: Default::default(),
            bank0: (0..tables).map(|_| ram()).collect(),
            bank1: (0..tables).map(|_| ram()).collect(),
            rel: CounterRelations::new(rule),
            candidate_threshold: CandidateThreshold::new(
                rule.counter_max,
                0,
                rule.fixed_threshold.then_some(rule.threshold),
            ),
            clear0: BankClear::new(entries),
            clear1: BankClear::new(entries),
            m_valid: Default::default(),
            m_bank: Default::default(),
            m_index: vec_of(tables),
            c1_valid: Default::default(),
            c1_bank: Default::default(),
            c1_index: vec_of(tables),
            c2_valid: Default::default(),
            c2_bank: Default::default(),
            c2_index: vec_of(tables),
            d_valid: Default::default(),
            d_bank: Default::default(),
            d_index: vec_of(tables),
            w_valid: Default::default(),
            w_bank: Default::default(),
            w_last: Default::default(),
            w_index: vec_of(tables),
            m_same1: vec_of(tables),
            m_same2: vec_of(tables),
            m_same3: vec_of(tables),
            m_same4: vec_of(tables),
            m_same5: vec_of(tables),
            c1_same1: vec_of(tables),
            c1_same2: vec_of(tables),
            c1_same3: vec_of(tables),
            c1_same4: vec_of(tables),
            c1_same5: vec_of(tables),
            c2_same1: vec_of(tables),
            w2_word: vec_of(tables),
            w2_word_m: vec_of(tables),
            w2_zero: vec_of(tables),
            w3_word: vec_of(tables),
            w3_word_m: vec_of(tables),
            w3_zero: vec_of(tables),
            ram: vec_of(tables),
            t0: vec_of(tables),
            t0m: vec_of(tables),
            t0z: vec_of(tables),
            one: Constant::new(1.into()),
            zero: Constant::new(0.into()),
        }
    }
}

impl<const CB: usize> Logic for RelationCounterTables<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, m_valid, m_bank, c1_valid, c1_bank, c2_valid, c2_bank, d_valid, d_bank,
            w_valid, w_bank, w_last
        );
        self.rel.clock.next = self.clock.val();
        self.rel.reset.next = self.reset.val();
        self.candidate_threshold.clock.next = self.clock.val();
        self.candidate_threshold.load.next = self.reset.val() | self.clear_start.val();
        self.candidate_threshold.value.next = self.threshold.val();
        self.rel.floor.next = self.candidate_threshold.floor.val();
        self.rel.floor_minus_1.next = self.candidate_threshold.floor_minus_1.val();
        self.rel.promotable.next = self.candidate_threshold.reachable.val();
        self.rel.miss.next = self.miss.val() & self.d_valid.q.val();
        self.candidate.next = self.rel.candidate.val();
        self.new_min_w.next = self.rel.new_min_w.val();
        // The slots move one stage a clock.
        self.m_valid.d.next = self.r_valid.val();
        self.m_bank.d.next = self.r_bank.val();
        self.c1_valid.d.next = self.m_valid.q.val();
        self.c1_bank.d.next = self.m_bank.q.val();
        self.c2_valid.d.next = self.c1_valid.q.val();
        self.c2_bank.d.next = self.c1_bank.q.val();
        self.d_valid.d.next = self.c2_valid.q.val();
        self.d_bank.d.next = self.c2_bank.q.val();
        self.w_valid.d.next = self.d_valid.q.val();
        self.w_bank.d.next = self.d_bank.q.val();
        self.w_last.d.next = self.clear_start.val();
        // Bank clears: after reset, and after an interval's last write.
        self.clear0.clock.next = self.clock.val();
        self.clear1.clock.next = self.clock.val();
        self.clear0.start.next = self.reset.val() | (self.w_last.q.val() & !self.w_bank.q.val());
        self.clear1.start.next = self.reset.val() | (self.w_last.q.val() & self.w_bank.q.val());
        self.clearing0.next = self.clear0.busy.val() | self.clear0.start.val();
        self.clearing1.next = self.clear1.busy.val() | self.clear1.start.val();
        for k in 0..self.bank0.len() {
            self.bank0[k].read_clock.next = self.clock.val();
            self.bank0[k].write_clock.next = self.clock.val();
            self.bank1[k].read_clock.next = self.clock.val();
            self.bank1[k].write_clock.next = self.clock.val();
            self.m_index[k].clock.next = self.clock.val();
            self.c1_index[k].clock.next = self.clock.val();
            self.c2_index[k].clock.next = self.clock.val();
            self.d_index[k].clock.next = self.clock.val();
            self.w_index[k].clock.next = self.clock.val();
            self.m_same1[k].clock.next = self.clock.val();
            self.m_same2[k].clock.next = self.clock.val();
            self.m_same3[k].clock.next = self.clock.val();
            self.m_same4[k].clock.next = self.clock.val();
            self.m_same5[k].clock.next = self.clock.val();
            self.c1_same1[k].clock.next = self.clock.val();
            self.c1_same2[k].clock.next = self.clock.val();
            self.c1_same3[k].clock.next = self.clock.val();
            self.c1_same4[k].clock.next = self.clock.val();
            self.c1_same5[k].clock.next = self.clock.val();
            self.c2_same1[k].clock.next = self.clock.val();
            self.w2_word[k].clock.next = self.clock.val();
            self.w2_word_m[k].clock.next = self.clock.val();
            self.w2_zero[k].clock.next = self.clock.val();
            self.w3_word[k].clock.next = self.clock.val();
            self.w3_word_m[k].clock.next = self.clock.val();
            self.w3_zero[k].clock.next = self.clock.val();
            self.m_index[k].d.next = self.r_index[k].val();
            self.c1_index[k].d.next = self.m_index[k].q.val();
            self.c2_index[k].d.next = self.c1_index[k].q.val();
            self.d_index[k].d.next = self.c2_index[k].q.val();
            self.w_index[k].d.next = self.d_index[k].q.val();
            // ---- R: read both banks; compare with the five slots ahead.
            self.bank0[k].read_address.next = self.r_index[k].val();
            self.bank1[k].read_address.next = self.r_index[k].val();
            self.m_same1[k].d.next = self.m_valid.q.val()
                & (self.r_bank.val() == self.m_bank.q.val())
                & (self.r_index[k].val() == self.m_index[k].q.val());
            self.m_same2[k].d.next = self.c1_valid.q.val()
                & (self.r_bank.val() == self.c1_bank.q.val())
                & (self.r_index[k].val() == self.c1_index[k].q.val());
            self.m_same3[k].d.next = self.c2_valid.q.val()
                & (self.r_bank.val() == self.c2_bank.q.val())
                & (self.r_index[k].val() == self.c2_index[k].q.val());
            self.m_same4[k].d.next = self.d_valid.q.val()
                & (self.r_bank.val() == self.d_bank.q.val())
                & (self.r_index[k].val() == self.d_index[k].q.val());
            self.m_same5[k].d.next = self.w_valid.q.val()
                & (self.r_bank.val() == self.w_bank.q.val())
                & (self.r_index[k].val() == self.w_index[k].q.val());
            self.c1_same1[k].d.next = self.m_same1[k].q.val();
            self.c1_same2[k].d.next = self.m_same2[k].q.val();
            self.c1_same3[k].d.next = self.m_same3[k].q.val();
            self.c1_same4[k].d.next = self.m_same4[k].q.val();
            self.c1_same5[k].d.next = self.m_same5[k].q.val();
            self.c2_same1[k].d.next = self.c1_same1[k].q.val();
            // ---- C1: the early word — the RAM's, or the youngest write three to five ahead.
            self.ram[k].next = self.bank0[k].read_data.val();
            if self.c1_bank.q.val() {
                self.ram[k].next = self.bank1[k].read_data.val();
            }
            self.t0[k].next = self.ram[k].val();
            self.t0m[k].next = self.ram[k].val() - self.one.val();
            self.t0z[k].next = self.ram[k].val() == self.zero.val();
            if self.c1_same5[k].q.val() {
                self.t0[k].next = self.w3_word[k].q.val();
                self.t0m[k].next = self.w3_word_m[k].q.val();
                self.t0z[k].next = self.w3_zero[k].q.val();
            }
            if self.c1_same4[k].q.val() {
                self.t0[k].next = self.w2_word[k].q.val();
                self.t0m[k].next = self.w2_word_m[k].q.val();
                self.t0z[k].next = self.w2_zero[k].q.val();
            }
            if self.c1_same3[k].q.val() {
                self.t0[k].next = self.rel.w_word[k].val();
                self.t0m[k].next = self.rel.w_word_m[k].val();
                self.t0z[k].next = self.rel.w_zero[k].val();
            }
            self.rel.t0[k].next = self.t0[k].val();
            self.rel.t0m[k].next = self.t0m[k].val();
            self.rel.t0z[k].next = self.t0z[k].val();
            self.rel.c1_same2[k].next = self.c1_same2[k].q.val();
            self.rel.c2_same1[k].next = self.c2_same1[k].q.val();
            // ---- W: the write, from registers; remembered two more clocks for C1.
            self.w2_word[k].d.next = self.rel.w_word[k].val();
            self.w2_word_m[k].d.next = self.rel.w_word_m[k].val();
            self.w2_zero[k].d.next = self.rel.w_zero[k].val();
            self.w3_word[k].d.next = self.w2_word[k].q.val();
            self.w3_word_m[k].d.next = self.w2_word_m[k].q.val();
            self.w3_zero[k].d.next = self.w2_zero[k].q.val();
            self.bank0[k].write_enable.next = false;
            self.bank0[k].write_address.next = self.clear0.address.val();
            self.bank0[k].write_data.next = self.zero.val();
            self.bank1[k].write_enable.next = false;
            self.bank1[k].write_address.next = self.clear1.address.val();
            self.bank1[k].write_data.next = self.zero.val();
            if self.w_valid.q.val() & !self.w_bank.q.val() {
                self.bank0[k].write_enable.next = true;
                self.bank0[k].write_address.next = self.w_index[k].q.val();
                self.bank0[k].write_data.next = self.rel.w_word[k].val();
            } else if self.clear0.busy.val() {
                self.bank0[k].write_enable.next = true;
            }
            if self.w_valid.q.val() & self.w_bank.q.val() {
                self.bank1[k].write_enable.next = true;
                self.bank1[k].write_address.next = self.w_index[k].q.val();
                self.bank1[k].write_data.next = self.rel.w_word[k].val();
            } else if self.clear1.busy.val() {
                self.bank1[k].write_enable.next = true;
            }
        }
        if self.reset.val() {
            self.m_valid.d.next = false;
            self.c1_valid.d.next = false;
            self.c2_valid.d.next = false;
            self.d_valid.d.next = false;
            self.w_valid.d.next = false;
            self.w_last.d.next = false;
        }
    }
}
