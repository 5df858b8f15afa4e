//! Counter tables of the multi-hash profiler in block RAM (docs/SPEC.md §4.2 step 2), with
//! **conservative update** (C1) and **reset on promote** (R1), for one event per clock.
//!
//! Timing (two stages, no stall):
//! - stage 0 (the cycle an event is accepted): `read_index[k]` addresses RAM table k of bank
//!   `read_bank`; the [`TableRam`] registers the read, so the words arrive in stage 1.
//! - stage 1: c_k = the word read, or — **forwarding** — the value written back by the event one
//!   cycle ahead when it wrote the same bank and index (the RAM returns old data on a same-cycle
//!   read/write). Whether it is the same bank and index is compared in stage 0 and registered
//!   (`fw_same`), so stage 1 starts from a one-hot select, not from an address compare.
//!   C1 increments the counters equal to min_k c_k, C0 all of them, saturating at
//!   `counter_max`; `new_min` = min_k c'_k goes to the accumulator, which answers `promoted`;
//!   with R1 a promoted tuple's counters are written as `reset_value`. `update` = 0 (an accumulator hit:
//!   shielding) writes the words back as read, so that the RAMs' write enable is the event's
//!   `valid` from a register and the hit decision only selects the data.
//!
//! **Registered read** ([`CounterTables::registered_read`]): the words read in stage 0 are
//! registered once more before stage 1 (stage M between them), so stage 1's arithmetic starts from
//! flip-flops, not from the block RAMs' slow outputs. The read then misses the writes of the two
//! events ahead: the one two ahead is forwarded in stage M (`m_same2`), the one ahead in stage 1
//! as before. The event's index is given a clock before its counters are needed.
//!
//! **Write stage** (with the registered read, the configuration's `write_stage`): the words stage
//! 1 writes back are registered before they reach the RAMs (stage W after it), so the
//! accumulator's late hit decision ends at a register, not at a block RAM's data pins. The read
//! then also misses the write of the event three ahead, forwarded in stage M too (`m_same3`, the
//! younger write winning), and a bank's clear starts a clock after its interval's last event left
//! stage 1 (after that event's write). It costs about 27 flip-flops per table (measured on paper-10k-bram).
//! With the write stage the accumulator's hit also leaves the counters' loop: the event ahead's
//! words are kept both ways, as read (`fw_c`) and updated (`fw_inc`), and its hit, registered
//! (`fw_upd`), picks the one it wrote a clock later. For the event right behind it on the same
//! counter (`same1`, compared in stage M) the word as read goes into stage M's register `r_c`
//! in place of the RAM's, and `fw_pick` (that, and the event ahead updated) selects `fw_inc`:
//! stage 1's compares start behind one 2:1 select of flip-flops.
//!
//! **Output register** (with the registered read, the configuration's `counter_output_register`):
//! the RAMs are read through a second register ([`TableRam::with_output_register`]; on the ECP5
//! the DP16KD's own), so that stage M's register is fed from a register with a short clock-to-out
//! instead of from the block RAM's long one. The read is then issued a clock earlier, in stage R:
//! `read_index` is the index of the event stage 0 is to hold a clock later (the profiler accepts
//! stage 0's event only when its read was issued in the clock before), and `read_bank` stays
//! stage 0's (both banks are read at the index). Stage 0's compares then start
//! from the registered index, and the read also misses the write made in stage R's clock, one
//! more forwarding distance in stage M (`m_same4`, the oldest; without the write stage it is the
//! distance `m_same3` covers with it). A bank reads as clearing for a clock after its last cleared
//! word (`was_clearing`), so an event read in stage R is accepted only on a clean bank.
//!
//! **The minimum a clock late** (`new_min_w`): an accumulator that needs `new_min` only as the
//! count of an entry it allocates, written a clock after its decision, takes it from registers —
//! per table "c_k is minimal" and sat(c_k + 1), registered in stage 1 — as their AND-OR. Stage 1's
//! compares then end at a flip-flop per table instead of passing a select per bit.
//!
//! **Candidate predicates travel with the words.** Every word entering stage 1 comes with "c_k ≥
//! T − 1": compared in stage M for a RAM word (registered read), and for a forwarded word computed
//! by the event that wrote it from its own operand ([`ConservativeUpdate::w_floor`]). The
//! candidate decision in stage 1 is then an AND of selected flags, with no compare after the
//! forwarding select: the word forwarded to the next event on the same counter carries no carry
//! chain into the accumulator's promotion. Without the registered read the RAM word is compared
//! in stage 1.
//!
//! **The predicate in block RAM.** Where the RAM words have a spare bit on both FPGA families
//! ([`has_spare_bit`]: 14-bit counters in 16-bit iCE40 words and 36-bit DP16KD words), each
//! counter is stored with its predicate above it, written with the word (`w_floor`), so the block
//! RAM's slow output meets no compare: a word read comes with its flag like a forwarded one.
//!
//! Interval rollover without a clearing stall: **double banking**. Each table has two RAM banks;
//! interval i uses bank i mod 2. When the last event of an interval leaves stage 1
//! (`clear_start`), its bank is cleared in the background, one word per clock on that bank's
//! otherwise idle write port, while the next interval runs on the other bank. An interval can
//! start only on a clean bank (`clearing[bank]` low), so input ready drops only when an interval
//! is shorter than `entries` events. After reset both banks are cleared (entries cycles). Each
//! bank's sweep is a [`BankClear`].

use super::primitives::{vec_of, BankClear};
use super::threshold::{CandidateThreshold, THRESHOLD_BITS};
use super::widths::Widths;
use crate::block_ram::{has_spare_bit, TableRam, ADDRESS_BITS};
use crate::config::{width_mask, ProfilerConfig};
use crate::util::BitGather;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CounterTables<const CB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: starts the clearing of both banks.
    pub reset: Signal<In, Bit>,
    /// Stage 0: the tuple's index in every table, and its interval's bank.
    pub read_index: Vec<Signal<In, Bits<ADDRESS_BITS>>>,
    pub read_bank: Signal<In, Bit>,
    /// Stage 1: an event.
    pub valid: Signal<In, Bit>,
    /// Stage 1: the event missed the accumulator, so its counters are updated.
    pub update: Signal<In, Bit>,
    /// Stage 1: the accumulator allocated an entry for the tuple.
    pub promoted: Signal<In, Bit>,
    /// Stage 1: min_k c'_k, the tuple's count estimate after this event.
    pub new_min: Signal<Out, Bits<CB>>,
    /// Stage 1: the tuple is a **candidate**: `new_min` >= T, the candidate threshold. Computed
    /// beside `new_min`, not from it, to keep the promotion decision off the minimum's carry
    /// chains: sat(min c + 1) >= T exactly when every c_k >= T − 1 (and 2^counter_bits − 1 >= T).
    pub candidate: Signal<Out, Bit>,
    /// A clock after stage 1: that event's `new_min`, finished from registers — which tables
    /// were minimal (`min_r`) and their sat(c_k + 1) (`inc_r`) — so that the minimum's compares
    /// end at flip-flops and the rest is an AND-OR (every minimal table has the same value).
    pub new_min_w: Signal<Out, Bits<CB>>,
    /// Stage 1: an interval ends (with its last event, or with a flush's empty slot, whose
    /// `valid` is low): clear its bank from the next cycle on, and take `threshold`.
    pub clear_start: Signal<In, Bit>,
    /// T of the next interval, taken at reset and with `clear_start` ([`CandidateThreshold`]).
    pub threshold: Signal<In, Bits<THRESHOLD_BITS>>,
    /// Bank 0 / bank 1 is being cleared: no event of that bank may be accepted.
    pub clearing0: Signal<Out, Bit>,
    pub clearing1: Signal<Out, Bit>,
    bank0: Vec<TableRam<CB>>,
    bank1: Vec<TableRam<CB>>,
    s1_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
    s1_bank: DFF<Bit>,
    /// Table k: the event in stage 1 reads the bank and index the event ahead of it wrote (that
    /// event present: the select is one flip-flop).
    fw_same: Vec<DFF<Bit>>,
    /// Stage 1 writes back: an event, not in reset.
    writes: Signal<Local, Bit>,
    /// The low `width` bits: the written words keep only what the RAM stores, so the constant
    /// high bits shorten every compare and adder of a forwarded word.
    stored: Constant<Bits<CB>>,
    /// The event ahead's words both ways — as read (`fw_c`) and updated (`fw_inc`), with their
    /// predicates — and whether it updated them (`fw_upd`, the accumulator missed): the late hit
    /// decision ends at a flip-flop and selects `fw_word`, the word it wrote, a clock later from
    /// registers, so the counters' loop does not wait for the accumulator.
    fw_c: Vec<DFF<Bits<CB>>>,
    /// Without the write stage: the word the event ahead wrote (`wb`), with its predicate.
    fw_data: Vec<DFF<Bits<CB>>>,
    fw_floor: Vec<DFF<Bit>>,
    /// With the write stage (above): `fw_c[k]` >= T − 1; the updated word and its predicate; the
    /// event ahead's registered miss.
    fw_cfloor: Vec<DFF<Bit>>,
    fw_inc: Vec<DFF<Bits<CB>>>,
    fw_incfloor: Vec<DFF<Bit>>,
    fw_upd: DFF<Bit>,
    /// Registered read: the event entering stage 1 reads the index the event ahead of it writes
    /// (`same1`, compared in stage M), and then `r_c` holds that event's word as read; `fw_pick`:
    /// and the event ahead updated it, so stage 1 takes `fw_inc` instead. The counters' loop then
    /// has one 2:1 select in front of the minimum's compares.
    same1: Vec<Signal<Local, Bit>>,
    fw_pick: Vec<DFF<Bit>>,
    /// `r_c`, or `fw_inc` where `fw_pick`, with its predicate.
    picked: Vec<Signal<Local, Bits<CB>>>,
    picked_floor: Vec<Signal<Local, Bit>>,
    /// The word the event ahead wrote: `fw_data`, or with the write stage `fw_c` / `fw_inc`.
    fw_word: Vec<Signal<Local, Bits<CB>>>,
    /// `fw_word[k]` >= T − 1.
    fw_word_floor: Vec<Signal<Local, Bit>>,
    /// `fw_word` with its predicate bit: the RAM word stage W writes.
    fw_ram_word: Vec<Signal<Local, Bits<CB>>>,
    /// What an event writes back: the updated words, or the words as read when it is shielded
    /// (so the write enable is `valid`, a register, not the accumulator's late hit decision).
    wb: Vec<Signal<Local, Bits<CB>>>,
    wb_floor: Vec<Signal<Local, Bit>>,
    clear0: BankClear,
    clear1: BankClear,
    /// Stage M (registered read only): the event's bank and indices, whether it reads what the
    /// event two ahead wrote, and its words with that write forwarded, registered for stage 1.
    registered: Constant<Bit>,
    m_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
    m_bank: DFF<Bit>,
    m_same2: Vec<DFF<Bit>>,
    m_same3: Vec<DFF<Bit>>,
    /// Stage W (with the write stage, which needs the registered read): the event's write, a
    /// clock after stage 1 — whether there is one, its bank, indices and words (with the
    /// predicate bit), and whether it ends the interval; `fw2_*` the words the event before it
    /// wrote, for `m_same3`.
    write_stage: Constant<Bit>,
    w_valid: DFF<Bit>,
    w_bank: DFF<Bit>,
    w_last: DFF<Bit>,
    w_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
    fw2_data: Vec<DFF<Bits<CB>>>,
    fw2_floor: Vec<DFF<Bit>>,
    /// The write the RAMs take this clock: stage 1's, or stage W's with the write stage.
    ram_write: Signal<Local, Bit>,
    ram_bank: Signal<Local, Bit>,
    ram_index: Vec<Signal<Local, Bits<ADDRESS_BITS>>>,
    ram_word: Vec<Signal<Local, Bits<CB>>>,
    /// A bank clear starts (the last event's write is done or under way).
    clear_now: Signal<Local, Bit>,
    /// Stage M: the word forwarded to the event (from the events one, two or three ahead, the
    /// youngest winning) and whether there is one (`m_take`); `m_c` the word registered in `r_c`.
    m_fwd: Vec<Signal<Local, Bits<CB>>>,
    m_fwd_floor: Vec<Signal<Local, Bit>>,
    m_take: Vec<Signal<Local, Bit>>,
    m_c: Vec<Signal<Local, Bits<CB>>>,
    m_floor: Vec<Signal<Local, Bit>>,
    /// The word the RAM of the event's bank returns (stage M with the registered read, else
    /// stage 1), its counter and its predicate.
    read: Vec<Signal<Local, Bits<CB>>>,
    read_c: Vec<Signal<Local, Bits<CB>>>,
    read_floor: Vec<Signal<Local, Bit>>,
    /// The predicate is stored in the RAM word at `floor_bit` (module docs), and what is written.
    floor_in_ram: Constant<Bit>,
    floor_bit: Constant<Bits<CB>>,
    wb_word: Vec<Signal<Local, Bits<CB>>>,
    r_c: Vec<DFF<Bits<CB>>>,
    /// `r_c[k]` >= T − 1.
    r_floor: Vec<DFF<Bit>>,
    /// The output register (module docs): stage 0's index (`read_index` a clock late), or
    /// `read_index` without it; the write made in stage R's clock (`wx_*`: with the write stage
    /// the write stage W made a clock ago, else stage 1's a clock ago, which is stage W's
    /// registers), whether stage 0's event reads its index, and its words two clocks later; the
    /// banks' clearing a clock ago.
    output_register: Constant<Bit>,
    p_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
    s0_index: Vec<Signal<Local, Bits<ADDRESS_BITS>>>,
    wx_valid: DFF<Bit>,
    wx_bank: DFF<Bit>,
    wx_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
    m_same4: Vec<DFF<Bit>>,
    fw3_data: Vec<DFF<Bits<CB>>>,
    fw3_floor: Vec<DFF<Bit>>,
    was_clearing0: DFF<Bit>,
    was_clearing1: DFF<Bit>,
    /// T of the events in stage M and stage 1, with its candidate floor.
    candidate_threshold: CandidateThreshold<CB>,
    /// The update of the counters read (after forwarding).
    cu: ConservativeUpdate<CB>,
    /// `new_min_w` (above): the registers, `inc_r[k]` where `min_r[k]` else 0, and the OR of
    /// those picks (`min_or_w[k + 1]` = `min_or_w[k]` | `min_pick_w[k]`).
    min_r: Vec<DFF<Bit>>,
    inc_r: Vec<DFF<Bits<CB>>>,
    min_pick_w: Vec<Signal<Local, Bits<CB>>>,
    min_or_w: Vec<Signal<Local, Bits<CB>>>,
    min_all_w: Signal<Local, Bits<CB>>,
    zero: Constant<Bits<CB>>,
}

impl<const CB: usize> CounterTables<CB> {
    /// The counter tables of `cfg`, stored in the widths `w` of its hardware.
    pub fn for_config(cfg: &ProfilerConfig, w: &Widths) -> Self {
        Self::new(cfg.entries, w.counter, &UpdateRule::of(cfg, w))
    }

    /// `rule.tables` tables of `entries` counters stored in `width` <= CB bits, updated by `rule`,
    /// whose `counter_max` must fit `width`.
    pub fn new(entries: usize, width: usize, rule: &UpdateRule) -> Self {
        Self::build(entries, width, rule, false, false, false)
    }

    /// As [`Self::for_config`], with a registered read (module docs): stage 1 comes two clocks
    /// after `read_index`; a write stage after stage 1 if `cfg.write_stage`; with
    /// `cfg.counter_output_register` the RAMs' output register, and `read_index` a clock earlier.
    pub fn registered_read(cfg: &ProfilerConfig, w: &Widths) -> Self {
        Self::new_registered(
            cfg.entries,
            w.counter,
            &UpdateRule::of(cfg, w),
            cfg.write_stage,
            cfg.counter_output_register,
        )
    }

    /// As [`Self::new`], with a registered read, a write stage if `write_stage`, and the RAMs'
    /// output register if `output_register` (then stage 1 comes three clocks after `read_index`,
    /// and `read_bank` is given in the clock between).
    pub fn new_registered(
        entries: usize,
        width: usize,
        rule: &UpdateRule,
        write_stage: bool,
        output_register: bool,
    ) -> Self {
        Self::build(entries, width, rule, true, write_stage, output_register)
    }

    fn build(
        entries: usize,
        width: usize,
        rule: &UpdateRule,
        registered: bool,
        write_stage: bool,
        output_register: bool,
    ) -> Self {
        assert!(
            registered || !(write_stage | output_register),
            "the write stage and the output register need the registered read"
        );
        let tables = rule.tables;
        assert!(
            width == 64 || rule.counter_max < 1u64 << width,
            "counters fit their storage"
        );
        let floor_in_ram = width < CB && has_spare_bit(entries, width);
        let floor_bit = match floor_in_ram {
            true => 1u64 << width,
            false => 0,
        };
        let ram_width = width + floor_in_ram as usize;
        // A word read in the clock of its write is replaced by a forwarded one (`fw_same`,
        // `m_same2` ...).
        let ram = || match output_register {
            true => TableRam::with_output_register(entries, ram_width).forwarded(),
            false => TableRam::new(entries, ram_width).forwarded(),
        };
        CounterTables {
            clock: Default::default(),
            reset: Default::default(),
            read_index: vec_of(tables),
            read_bank: Default::default(),
            valid: Default::default(),
            update: Default::default(),
            promoted: Default::default(),
            new_min: Default::default(),
            candidate: Default::default(),
            new_min_w: Default::default(),
            clear_start: Default::default(),
            threshold: Default::default(),
            clearing0: Default::default(),
            clearing1: Default::default(),
            bank0: (0..tables).map(|_| ram()).collect(),
            bank1: (0..tables).map(|_| ram()).collect(),
            s1_index: vec_of(tables),
            s1_bank: Default::default(),
            fw_same: vec_of(tables),
            writes: Default::default(),
            stored: Constant::new(width_mask(width as u32).into()),
            fw_c: vec_of(tables),
            fw_data: vec_of(tables),
            fw_floor: vec_of(tables),
            fw_cfloor: vec_of(tables),
            fw_inc: vec_of(tables),
            fw_incfloor: vec_of(tables),
            fw_upd: Default::default(),
            same1: vec_of(tables),
            fw_pick: vec_of(tables),
            picked: vec_of(tables),
            picked_floor: vec_of(tables),
            fw_word: vec_of(tables),
            fw_word_floor: vec_of(tables),
            fw_ram_word: vec_of(tables),
            wb: vec_of(tables),
            wb_floor: vec_of(tables),
            clear0: BankClear::new(entries),
            clear1: BankClear::new(entries),
            registered: Constant::new(registered),
            m_index: vec_of(tables),
            m_bank: Default::default(),
            m_same2: vec_of(tables),
            m_same3: vec_of(tables),
            write_stage: Constant::new(write_stage),
            w_valid: Default::default(),
            w_bank: Default::default(),
            w_last: Default::default(),
            w_index: vec_of(tables),
            fw2_data: vec_of(tables),
            fw2_floor: vec_of(tables),
            ram_write: Default::default(),
            ram_bank: Default::default(),
            ram_index: vec_of(tables),
            ram_word: vec_of(tables),
            clear_now: Default::default(),
            m_fwd: vec_of(tables),
            m_fwd_floor: vec_of(tables),
            m_take: vec_of(tables),
            m_c: vec_of(tables),
            m_floor: vec_of(tables),
            read: vec_of(tables),
            read_c: vec_of(tables),
            read_floor: vec_of(tables),
            floor_in_ram: Constant::new(floor_in_ram),
            floor_bit: Constant::new(floor_bit.into()),
            wb_word: vec_of(tables),
            r_c: vec_of(tables),
            r_floor: vec_of(tables),
            output_register: Constant::new(output_register),
            p_index: vec_of(tables),
            s0_index: vec_of(tables),
            wx_valid: Default::default(),
            wx_bank: Default::default(),
            wx_index: vec_of(tables),
            m_same4: vec_of(tables),
            fw3_data: vec_of(tables),
            fw3_floor: vec_of(tables),
            was_clearing0: Default::default(),
            was_clearing1: Default::default(),
            candidate_threshold: CandidateThreshold::new(
                rule.counter_max,
                rule.reset_value,
                rule.fixed_threshold.then_some(rule.threshold),
            ),
            cu: ConservativeUpdate::new(rule),
            min_r: vec_of(tables),
            inc_r: vec_of(tables),
            min_pick_w: vec_of(tables),
            min_or_w: vec_of(tables + 1),
            min_all_w: Default::default(),
            zero: Constant::new(0.into()),
        }
    }
}

impl<const CB: usize> Logic for CounterTables<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_bank,
            m_bank,
            w_valid,
            w_bank,
            w_last,
            fw_upd,
            wx_valid,
            wx_bank,
            was_clearing0,
            was_clearing1
        );
        self.fw_upd.d.next = self.update.val();
        self.writes.next = self.valid.val() & !self.reset.val();
        self.w_valid.d.next = self.writes.val();
        self.w_bank.d.next = self.s1_bank.q.val();
        self.w_last.d.next = self.clear_start.val() & !self.reset.val();
        self.candidate_threshold.clock.next = self.clock.val();
        self.candidate_threshold.load.next = self.reset.val() | self.clear_start.val();
        self.candidate_threshold.value.next = self.threshold.val();
        self.cu.promotable.next = self.candidate_threshold.reachable.val();
        self.cu.incremented_floor.next = self.candidate_threshold.floor_minus_1.val();
        self.cu.reset_floor.next = self.candidate_threshold.reset_reaches_floor.val();
        // Which write the RAMs take, and when the written bank's clear starts: with the write
        // stage, the clear waits for the last event's write (and the bank reads as clearing
        // meanwhile, as it did when the clear started with the write).
        self.ram_write.next = self.valid.val();
        self.ram_bank.next = self.s1_bank.q.val();
        self.clear_now.next = self.clear_start.val();
        if self.write_stage.val() {
            self.ram_write.next = self.w_valid.q.val();
            self.ram_bank.next = self.w_bank.q.val();
            self.clear_now.next = self.w_last.q.val();
        }
        self.clear0.clock.next = self.clock.val();
        self.clear1.clock.next = self.clock.val();
        self.clear0.start.next = self.reset.val() | (self.clear_now.val() & !self.ram_bank.val());
        self.clear1.start.next = self.reset.val() | (self.clear_now.val() & self.ram_bank.val());
        self.clearing0.next = self.clear0.busy.val();
        self.clearing1.next = self.clear1.busy.val();
        // Busy now or a clock ago, from one flip-flop: a sweep is busy from the clock after its
        // start.
        self.was_clearing0.d.next = self.clear0.busy.val() | self.clear0.start.val();
        self.was_clearing1.d.next = self.clear1.busy.val() | self.clear1.start.val();
        if self.output_register.val() {
            self.clearing0.next = self.was_clearing0.q.val();
            self.clearing1.next = self.was_clearing1.q.val();
        }
        // The write stage R's read missed with the output register (module docs).
        self.wx_valid.d.next = self.w_valid.q.val();
        self.wx_bank.d.next = self.w_bank.q.val();
        if self.write_stage.val() & self.w_last.q.val() {
            if self.w_bank.q.val() {
                self.clearing1.next = true;
            } else {
                self.clearing0.next = true;
            }
        }
        self.m_bank.d.next = self.read_bank.val();
        self.s1_bank.d.next = self.read_bank.val();
        if self.registered.val() {
            self.s1_bank.d.next = self.m_bank.q.val();
        }
        // Stage 1: forwarded counter values.
        for k in 0..self.bank0.len() {
            self.bank0[k].read_clock.next = self.clock.val();
            self.bank0[k].write_clock.next = self.clock.val();
            self.bank1[k].read_clock.next = self.clock.val();
            self.bank1[k].write_clock.next = self.clock.val();
            self.s1_index[k].clock.next = self.clock.val();
            self.fw_same[k].clock.next = self.clock.val();
            self.fw_pick[k].clock.next = self.clock.val();
            self.fw_c[k].clock.next = self.clock.val();
            self.fw_cfloor[k].clock.next = self.clock.val();
            self.fw_inc[k].clock.next = self.clock.val();
            self.fw_incfloor[k].clock.next = self.clock.val();
            self.fw_data[k].clock.next = self.clock.val();
            self.fw_floor[k].clock.next = self.clock.val();
            self.fw_word[k].next = self.fw_data[k].q.val();
            self.fw_word_floor[k].next = self.fw_floor[k].q.val();
            if self.write_stage.val() {
                self.fw_word[k].next = self.fw_c[k].q.val();
                self.fw_word_floor[k].next = self.fw_cfloor[k].q.val();
                if self.fw_upd.q.val() {
                    self.fw_word[k].next = self.fw_inc[k].q.val();
                    self.fw_word_floor[k].next = self.fw_incfloor[k].q.val();
                }
            }
            self.r_floor[k].clock.next = self.clock.val();
            self.m_index[k].clock.next = self.clock.val();
            self.m_same2[k].clock.next = self.clock.val();
            self.m_same3[k].clock.next = self.clock.val();
            self.w_index[k].clock.next = self.clock.val();
            self.fw2_data[k].clock.next = self.clock.val();
            self.fw2_floor[k].clock.next = self.clock.val();
            self.r_c[k].clock.next = self.clock.val();
            self.p_index[k].clock.next = self.clock.val();
            self.wx_index[k].clock.next = self.clock.val();
            self.m_same4[k].clock.next = self.clock.val();
            self.fw3_data[k].clock.next = self.clock.val();
            self.fw3_floor[k].clock.next = self.clock.val();
            self.bank0[k].read_address.next = self.read_index[k].val();
            self.bank1[k].read_address.next = self.read_index[k].val();
            self.p_index[k].d.next = self.read_index[k].val();
            self.s0_index[k].next = self.read_index[k].val();
            if self.output_register.val() {
                self.s0_index[k].next = self.p_index[k].q.val();
            }
            self.wx_index[k].d.next = self.w_index[k].q.val();
            self.m_index[k].d.next = self.s0_index[k].val();
            self.s1_index[k].d.next = self.s0_index[k].val();
            // Stage 0 vs stage 1: stage 1's event is the one ahead when stage 0's reaches it
            // (registered read: two ahead, and stage M vs stage 1 is the one ahead).
            self.fw_same[k].d.next = self.writes.val()
                & (self.read_bank.val() == self.s1_bank.q.val())
                & (self.s0_index[k].val() == self.s1_index[k].q.val());
            self.m_same2[k].d.next = self.writes.val()
                & (self.read_bank.val() == self.s1_bank.q.val())
                & (self.s0_index[k].val() == self.s1_index[k].q.val());
            // Stage 0 vs stage W's registers: with the write stage three ahead; without it, the
            // write stage R's read missed with the output register.
            self.m_same3[k].d.next = (self.write_stage.val() | self.output_register.val())
                & self.w_valid.q.val()
                & (self.read_bank.val() == self.w_bank.q.val())
                & (self.s0_index[k].val() == self.w_index[k].q.val());
            // Stage 0 vs the write a clock after stage W's (write stage and output register).
            self.m_same4[k].d.next = self.write_stage.val()
                & self.output_register.val()
                & self.wx_valid.q.val()
                & (self.read_bank.val() == self.wx_bank.q.val())
                & (self.s0_index[k].val() == self.wx_index[k].q.val());
            self.same1[k].next = self.writes.val()
                & (self.m_bank.q.val() == self.s1_bank.q.val())
                & (self.m_index[k].q.val() == self.s1_index[k].q.val());
            self.fw_pick[k].d.next =
                self.write_stage.val() & self.same1[k].val() & self.update.val();
            if self.registered.val() {
                self.s1_index[k].d.next = self.m_index[k].q.val();
                self.fw_same[k].d.next = !self.write_stage.val() & self.same1[k].val();
            }
            self.read[k].next = self.bank0[k].read_data.val();
            if (self.registered.val() & self.m_bank.q.val())
                | (!self.registered.val() & self.s1_bank.q.val())
            {
                self.read[k].next = self.bank1[k].read_data.val();
            }
            self.read_c[k].next = self.read[k].val() & self.stored.val();
            self.read_floor[k].next = self.read[k].val() >= self.candidate_threshold.floor.val();
            // A cleared word's predicate is 0: it holds for every word when the floor is 0.
            if self.floor_in_ram.val() {
                self.read_floor[k].next = (self.read[k].val() & self.floor_bit.val()).any()
                    | self.candidate_threshold.floor_zero.val();
            }
            // Assigned once: a child's input written twice in one pass makes Icarus re-run the
            // tables' logic for every glitch.
            self.picked[k].next = self.r_c[k].q.val();
            self.picked_floor[k].next = self.r_floor[k].q.val();
            if self.fw_pick[k].q.val() {
                self.picked[k].next = self.fw_inc[k].q.val();
                self.picked_floor[k].next = self.fw_incfloor[k].q.val();
            }
            if self.fw_same[k].q.val() {
                self.cu.c[k].next = self.fw_word[k].val();
                self.cu.floor[k].next = self.fw_word_floor[k].val();
            } else if self.registered.val() {
                self.cu.c[k].next = self.picked[k].val();
                self.cu.floor[k].next = self.picked_floor[k].val();
            } else {
                self.cu.c[k].next = self.read_c[k].val();
                self.cu.floor[k].next = self.read_floor[k].val();
            }
            // Stage M's register: the forwarded words, youngest first, then the RAM's word at the
            // last select, because a block RAM's output is the slowest input. After `cu.c` is
            // assigned: the generated always block reads it once, settled.
            self.m_fwd[k].next = self.fw3_data[k].q.val();
            self.m_fwd_floor[k].next = self.fw3_floor[k].q.val();
            if self.m_same3[k].q.val() {
                self.m_fwd[k].next = self.fw2_data[k].q.val();
                self.m_fwd_floor[k].next = self.fw2_floor[k].q.val();
            }
            if self.m_same2[k].q.val() {
                self.m_fwd[k].next = self.fw_word[k].val();
                self.m_fwd_floor[k].next = self.fw_word_floor[k].val();
            }
            self.m_take[k].next =
                self.m_same4[k].q.val() | self.m_same3[k].q.val() | self.m_same2[k].q.val();
            if self.write_stage.val() & self.same1[k].val() {
                self.m_fwd[k].next = self.cu.c[k].val() & self.stored.val();
                self.m_fwd_floor[k].next = self.cu.floor[k].val();
                self.m_take[k].next = true;
            }
            self.m_c[k].next = self.read_c[k].val();
            self.m_floor[k].next = self.read_floor[k].val();
            if self.m_take[k].val() {
                self.m_c[k].next = self.m_fwd[k].val();
                self.m_floor[k].next = self.m_fwd_floor[k].val();
            }
            self.r_c[k].d.next = self.m_c[k].val();
            self.r_floor[k].d.next = self.m_floor[k].val();
        }
        self.cu.promoted.next = self.promoted.val();
        self.new_min.next = self.cu.new_min.val();
        self.candidate.next = self.cu.candidate.val();
        self.min_or_w[0].next = self.zero.val();
        for k in 0..self.bank0.len() {
            self.min_r[k].clock.next = self.clock.val();
            self.inc_r[k].clock.next = self.clock.val();
            self.min_r[k].d.next = self.cu.minimal[k].val();
            self.inc_r[k].d.next = self.cu.inc[k].val();
            self.min_pick_w[k].next = self.zero.val();
            if self.min_r[k].q.val() {
                self.min_pick_w[k].next = self.inc_r[k].q.val();
            }
            self.min_or_w[k + 1].next = self.min_or_w[k].val() | self.min_pick_w[k].val();
            self.min_all_w.next = self.min_or_w[k + 1].val();
        }
        self.new_min_w.next = self.min_all_w.val();
        // Write back (stage 1) or clear (idle bank), and remember the write for forwarding.
        for k in 0..self.bank0.len() {
            self.wb[k].next = self.cu.c[k].val() & self.stored.val();
            self.wb_floor[k].next = self.cu.floor[k].val();
            if self.update.val() {
                self.wb[k].next = self.cu.w[k].val() & self.stored.val();
                self.wb_floor[k].next = self.cu.w_floor[k].val();
            }
            self.fw_data[k].d.next = self.wb[k].val();
            self.fw_floor[k].d.next = self.wb_floor[k].val();
            self.fw_c[k].d.next = self.cu.c[k].val() & self.stored.val();
            self.fw_cfloor[k].d.next = self.cu.floor[k].val();
            self.fw_inc[k].d.next = self.cu.w[k].val() & self.stored.val();
            self.fw_incfloor[k].d.next = self.cu.w_floor[k].val();
            self.fw2_data[k].d.next = self.fw_word[k].val();
            self.fw2_floor[k].d.next = self.fw_word_floor[k].val();
            self.fw3_data[k].d.next = self.fw2_data[k].q.val();
            self.fw3_floor[k].d.next = self.fw2_floor[k].q.val();
            self.fw_ram_word[k].next = self.fw_word[k].val();
            if self.fw_word_floor[k].val() {
                self.fw_ram_word[k].next = self.fw_word[k].val() | self.floor_bit.val();
            }
            self.wb_word[k].next = self.wb[k].val();
            if self.wb_floor[k].val() {
                self.wb_word[k].next = self.wb[k].val() | self.floor_bit.val();
            }
            self.w_index[k].d.next = self.s1_index[k].q.val();
            self.ram_index[k].next = self.s1_index[k].q.val();
            self.ram_word[k].next = self.wb_word[k].val();
            if self.write_stage.val() {
                self.ram_index[k].next = self.w_index[k].q.val();
                self.ram_word[k].next = self.fw_ram_word[k].val();
            }
            self.bank0[k].write_enable.next = false;
            self.bank0[k].write_address.next = self.clear0.address.val();
            self.bank0[k].write_data.next = self.zero.val();
            self.bank1[k].write_enable.next = false;
            self.bank1[k].write_address.next = self.clear1.address.val();
            self.bank1[k].write_data.next = self.zero.val();
            if self.ram_write.val() & !self.ram_bank.val() {
                self.bank0[k].write_enable.next = true;
                self.bank0[k].write_address.next = self.ram_index[k].val();
                self.bank0[k].write_data.next = self.ram_word[k].val();
            } else if self.clear0.busy.val() {
                self.bank0[k].write_enable.next = true;
            }
            if self.ram_write.val() & self.ram_bank.val() {
                self.bank1[k].write_enable.next = true;
                self.bank1[k].write_address.next = self.ram_index[k].val();
                self.bank1[k].write_data.next = self.ram_word[k].val();
            } else if self.clear1.busy.val() {
                self.bank1[k].write_enable.next = true;
            }
        }
    }
}

/// The arithmetic of docs/SPEC.md §4.2 step 2 on the counters c_k of one tuple, combinational:
/// **conservative update** (C1: only the counters equal to the minimum are incremented; C0: all),
/// saturating at 2^counter_bits − 1; the written words w_k (`reset_value` after a promotion under
/// **reset on promote**); `new_min` = min_k c'_k; and `candidate` = `new_min` >= T, the candidate threshold,
/// computed beside `new_min` rather than from it so the promotion decision stays off the minimum's
/// carry chains: sat(min c + 1) >= T exactly when every c_k >= T − 1 (and 2^counter_bits − 1 >= T).
/// The predicates c_k >= T − 1 come in with the counters (`floor`: the caller compares them where
/// the words come from) and go out with the written words (`w_floor`), so that a word forwarded
/// to the next event carries its predicate and the candidate decision needs no compare.
/// Used by [`CounterTables`] and by the baseline profiler.
#[derive(LogicBlock)]
pub struct ConservativeUpdate<const CB: usize> {
    /// The tuple's counters as read.
    pub c: Vec<Signal<In, Bits<CB>>>,
    /// c_k >= [`UpdateRule::candidate_floor`].
    pub floor: Vec<Signal<In, Bit>>,
    /// The accumulator allocated an entry for the tuple.
    pub promoted: Signal<In, Bit>,
    /// Of T, the **candidate threshold**, from the caller's [`CandidateThreshold`]: whether the
    /// counters can reach it at all; the candidate floor minus one (0 below), for an incremented
    /// word's `w_floor`; whether `reset_value` reaches the floor.
    pub promotable: Signal<In, Bit>,
    pub incremented_floor: Signal<In, Bits<CB>>,
    pub reset_floor: Signal<In, Bit>,
    /// The words to write back.
    pub w: Vec<Signal<Out, Bits<CB>>>,
    /// w_k >= [`UpdateRule::candidate_floor`]: `floor` where w_k = c_k, c_k >= T − 2 where w_k =
    /// c_k + 1, a constant where w_k is `reset_value`.
    pub w_floor: Vec<Signal<Out, Bit>>,
    pub new_min: Signal<Out, Bits<CB>>,
    pub candidate: Signal<Out, Bit>,
    /// c_k is minimal (c_k <= c_j for every table j), and sat(c_k + 1): `new_min` is the `inc`
    /// of any minimal k. Out so that a caller can register them and finish `new_min` a clock
    /// later from flip-flops.
    pub minimal: Vec<Signal<Out, Bit>>,
    pub inc: Vec<Signal<Out, Bits<CB>>>,
    /// c'_k: after the (conservative) increment.
    c_inc: Vec<Signal<Local, Bits<CB>>>,
    /// `inc`, assigned once to the output (a port written twice in a pass glitches under Icarus).
    sat_inc: Vec<Signal<Local, Bits<CB>>>,
    /// `inc[k]` where c_k is minimal, else 0; `min_or[k + 1]` = `min_or[k]` | `min_pick[k]`. Every
    /// minimal counter has the same `inc`, so `new_min` is the OR of the picks: a flat AND-OR
    /// after the compares, not a chain of selects.
    min_pick: Vec<Signal<Local, Bits<CB>>>,
    min_or: Vec<Signal<Local, Bits<CB>>>,
    /// The last of `min_or`: the OR of every pick.
    min_all: Signal<Local, Bits<CB>>,
    /// Bit k: c_k >= T − 1 (bits of absent tables set).
    floor_gather: BitGather<16>,
    /// le[16k + j] = c_k <= c_j (16 = the most tables a configuration may have).
    le_gather: BitGather<256>,
    le: Signal<Local, Bits<256>>,
    /// 2^counter_bits − 1, from the configuration.
    counter_max: Constant<Bits<CB>>,
    /// The counters can reach `counter_max` within an interval (else no saturation logic).
    saturates: Constant<Bit>,
    one: Constant<Bits<CB>>,
    zero: Constant<Bits<CB>>,
    /// What a promoted tuple's counters are written with under R1 (below T, so never more than
    /// they held: the saturation bound above still holds).
    reset_value: Constant<Bits<CB>>,
    /// Bits j >= tables of a row of `le`: tables that do not exist never bound the minimum.
    absent_tables: Constant<Bits<16>>,
    conservative_update: Constant<Bit>,
    reset_on_promote: Constant<Bit>,
}

/// What [`ConservativeUpdate`] does to the counters of one tuple, in the stored widths.
#[derive(Clone, Copy, Debug)]
pub struct UpdateRule {
    /// Counters per tuple, 1..=16.
    pub tables: usize,
    /// T, the candidate threshold (>= 1), as configured: the hardware takes T at run time
    /// ([`CandidateThreshold`]) unless `fixed_threshold`.
    pub threshold: u64,
    /// T is `threshold` for good (the configuration has no `max_threshold`).
    pub fixed_threshold: bool,
    /// The saturation value, below 2^CB.
    pub counter_max: u64,
    /// False when an interval cannot reach `counter_max` (a counter grows by at most one per
    /// event and starts every interval at 0, so min(2^counter_bits − 1, L) is never exceeded):
    /// then there is no saturation logic.
    pub saturates: bool,
    pub conservative_update: bool,
    pub reset_on_promote: bool,
    /// With R1, the value a promoted tuple's counters are written with (below `threshold`).
    pub reset_value: u64,
}

impl UpdateRule {
    /// The counters are candidates when every c_k is at least this before the event: T − 1, or 0
    /// when they cannot reach T (then no tuple is ever a candidate).
    pub fn candidate_floor(&self) -> u64 {
        if self.counter_max >= self.threshold {
            self.threshold - 1
        } else {
            0
        }
    }

    /// The rule of `cfg` in the widths `w` of its hardware.
    pub fn of(cfg: &ProfilerConfig, w: &Widths) -> Self {
        UpdateRule {
            tables: cfg.tables,
            threshold: cfg.threshold,
            fixed_threshold: cfg.fixed_threshold().is_some(),
            counter_max: w.counter_max(cfg),
            saturates: w.counter_saturates(cfg),
            conservative_update: cfg.conservative_update,
            reset_on_promote: cfg.reset_on_promote,
            reset_value: cfg.reset_value,
        }
    }
}

impl<const CB: usize> ConservativeUpdate<CB> {
    pub fn new(rule: &UpdateRule) -> Self {
        let &UpdateRule {
            tables,
            counter_max,
            saturates,
            conservative_update,
            reset_on_promote,
            reset_value,
            ..
        } = rule;
        assert!(
            (1..=16).contains(&tables)
                && (CB == 64 || counter_max < (1u64 << CB))
                && reset_value <= counter_max
        );
        ConservativeUpdate {
            c: vec_of(tables),
            floor: vec_of(tables),
            promoted: Default::default(),
            w: vec_of(tables),
            w_floor: vec_of(tables),
            new_min: Default::default(),
            candidate: Default::default(),
            minimal: vec_of(tables),
            inc: vec_of(tables),
            c_inc: vec_of(tables),
            sat_inc: vec_of(tables),
            min_pick: vec_of(tables),
            min_or: vec_of(tables + 1),
            min_all: Default::default(),
            floor_gather: Default::default(),
            le_gather: Default::default(),
            le: Default::default(),
            promotable: Default::default(),
            incremented_floor: Default::default(),
            reset_floor: Default::default(),
            counter_max: Constant::new(counter_max.into()),
            saturates: Constant::new(saturates),
            one: Constant::new(1.into()),
            zero: Constant::new(0.into()),
            reset_value: Constant::new(reset_value.into()),
            absent_tables: Constant::new((0xffffu64 & !((1u64 << tables) - 1)).into()),
            conservative_update: Constant::new(conservative_update),
            reset_on_promote: Constant::new(reset_on_promote),
        }
    }
}

impl<const CB: usize> Logic for ConservativeUpdate<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        // The minimum, without a chain: c_k is minimal when c_k <= c_j for every table j.
        for i in 0..256 {
            self.le_gather.bits[i].next = false;
        }
        for k in 0..self.c.len() {
            for j in 0..self.c.len() {
                self.le_gather.bits[k * 16 + j].next = self.c[k].val() <= self.c[j].val();
            }
        }
        self.le.next = self.le_gather.word.val();
        // Every minimal counter is incremented under C1 and C0 alike, so min c' = sat(min c + 1).
        for i in 0..16 {
            self.floor_gather.bits[i].next = true;
        }
        self.min_or[0].next = self.zero.val();
        for k in 0..self.c.len() {
            self.sat_inc[k].next = self.c[k].val();
            if !self.saturates.val() | (self.c[k].val() < self.counter_max.val()) {
                self.sat_inc[k].next = self.c[k].val() + self.one.val();
            }
            self.inc[k].next = self.sat_inc[k].val();
            self.floor_gather.bits[k].next = self.floor[k].val();
            self.minimal[k].next =
                (self.le.val().get_bits::<16>(k * 16) | self.absent_tables.val()).all();
            self.min_pick[k].next = self.zero.val();
            if self.minimal[k].val() {
                self.min_pick[k].next = self.sat_inc[k].val();
            }
            self.min_or[k + 1].next = self.min_or[k].val() | self.min_pick[k].val();
            self.min_all.next = self.min_or[k + 1].val();
        }
        // Assigned once: an output written in every pass of the loop glitches under Icarus.
        self.new_min.next = self.min_all.val();
        self.candidate.next = self.promotable.val() & self.floor_gather.word.val().all();
        for k in 0..self.c.len() {
            self.c_inc[k].next = self.c[k].val();
            self.w_floor[k].next = self.floor[k].val();
            if (!self.saturates.val() | (self.c[k].val() < self.counter_max.val()))
                & (!self.conservative_update.val() | self.minimal[k].val())
            {
                self.c_inc[k].next = self.c[k].val() + self.one.val();
                self.w_floor[k].next = self.c[k].val() >= self.incremented_floor.val();
            }
            if self.promoted.val() & self.reset_on_promote.val() {
                self.w[k].next = self.reset_value.val();
                self.w_floor[k].next = self.reset_floor.val();
            } else {
                self.w[k].next = self.c_inc[k].val();
            }
        }
    }
}
