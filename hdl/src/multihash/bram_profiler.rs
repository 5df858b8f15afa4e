//! `BramProfiler`: the multi-hash profiler with its accumulator in block RAM — set-associative
//! ([`SetAssociativeAccumulator`]), so the paper's 0.1 % configuration (1 000 entries) fits an
//! FPGA. Same ports and counter tables as [`MultiHashProfiler`], bit-exact
//! with the model `hwprof_sim::model::multihash` for `accumulator.organisation = "set_associative"`.
//!
//! Differences from the fully-associative top, all from the accumulator (see its docs):
//! - a report lists the interval's entries in the order the hardware retires their sets (lowest
//!   way first within a set), not in entry order; it always ends with a terminator word
//!   (count 0, `out_last`), which is the whole report when it is empty;
//! - reports leave during the *next* interval, and an event waits in stage 0 while its set still
//!   has a report pending (or for its first clock there, when its set's flag is not known yet) and
//!   the report staging buffer is busy, and the last event of an interval
//!   waits until the previous report is out;
//! - four stages after the hash stage: H (the masked tuple, its counter indices and its
//!   accumulator set, registered), 0 (the tag, meta and counter RAMs read at addresses from
//!   registers: H's, or the refused slot's), C (tag compare, and the metas and counters forwarded
//!   from the events ahead and registered) and D (decision and write-back; see
//!   [`SetAssociativeAccumulator`] and [`CounterTables`]'s registered read), and two clocks in
//!   which no event enters stage 0 after the last event of each interval (1 − 2/L events per
//!   clock at most). With the counters' output register the hash is a stage earlier (G, before
//!   H; see `stale`). With `hash_block_ram` a stage F comes first, whose event's bytes are read
//!   from the tabulation ROMs in block RAM ([`TabulationRam`]) for the hash stage to take; with
//!   `hash_stage` the same stage F holds the event for the hash in logic, so the hash starts from
//!   flip-flops instead of the input port and the skid register's select.
//!
//! **Back-pressure.** `in_ready` is a function of flip-flops and the counter bank of the input's
//! interval being clean, so neither the hash nor stage 0's decision reaches the input handshake.
//! Stage 0 refuses an event while its set's report is pending, an interval's last event is in C
//! or D, the previous report is still out, or its counter bank is still clearing; where the
//! refused event waits is the configuration's `refused_slot`:
//! - without it (the default), stage H holds its event, so the accept decision loads every
//!   register of stage H; the input takes one more event into a skid register (`s_*`), and
//!   `in_ready` (the skid register is empty) is low from the next clock until a clock after stage
//!   0 takes H's event (the skid register's event moves into H);
//! - with it, the refused event moves from stage H into the *refused slot* (`r_*`), a second
//!   register of stage 0 offered before stage H until it is accepted. Stage H loads whenever the
//!   slot is empty or H is (`h_take`, two flip-flops), so the accept decision loads one flip-flop
//!   (the slot's valid) instead of every register of stage H, and there is no skid register:
//!   `in_ready` is that the first stage loads. During a wait the slot holds the refused event and
//!   H the next one; `in_ready` is low from the clock after the refusal until a clock after stage
//!   0 takes the slot's event.
//!
//! Either way each wait of stage 0 shows at the input one clock later and ends there one clock
//! later: as many input stall clocks as stage 0 waits, at most one clock per set the interval
//! never touched plus the report's words per interval (before the last event), and the counter
//! banks' clearing after reset. With the counters' output register each wait of stage 0 lasts one
//! clock longer (`stale`: its event's read is issued again), so the bound grows by one clock per
//! wait.
//!
//! **Sizes.** Any number of tables and counters, any power-of-two number of sets, any ways
//! (chosen at construction); CB is the width class of the counting words ([`crate::multihash::design`]).
//! Counts never exceed L in an interval, so the stored widths only need to hold
//! min(2^counter_bits − 1, L) and min(2^count_bits − 1, L) (plus the entry's two state bits):
//! narrow words are what make `paper-10k-bram` fit the UP5K's 30 block RAMs.
//!
//! [`MultiHashProfiler`]: crate::multihash::profiler::MultiHashProfiler

use super::counter_tables::CounterTables;
use super::hash_unit::{HashUnit, ParityHash, TabulationRam};
use super::interval::IntervalControl;
use super::primitives::vec_of;
use super::set_accumulator::{SetAssociativeAccumulator, TAG_BITS};
use super::top::{impl_profiler_top, new_profiler_top, profiler_top};
use super::widths::widths_of_class;
use crate::block_ram::ADDRESS_BITS;
use crate::config::{ProfilerConfig, Replacement};
use crate::hash::{HashConstants, SetHash};
use rust_hdl::prelude::*;

profiler_top! {
    pub struct BramProfiler<const CB: usize> {
        hash: HashUnit,
        /// With `hash_block_ram`: the tabulation byte tables in block RAM, read when stage F
        /// loads, their words in the hash stage's output registers when that stage loads (see
        /// `ram_hash`); unused otherwise.
        tab: TabulationRam,
        /// The accumulator set of the tuple (h3, [`SetHash`]).
        set_hash: ParityHash<ADDRESS_BITS>,
        counters: CounterTables<CB>,
        acc: SetAssociativeAccumulator<CB>,
        control: IntervalControl,
        /// Without the refused slot, the input's skid register: the event taken while stage H was
        /// held (`in_ready` was already high), masked; `ready`: it is empty (a flip-flop, for
        /// `in_ready`).
        s_valid: DFF<Bit>,
        s_a: DFF<Bits<64>>,
        s_b: DFF<Bits<64>>,
        ready: DFF<Bit>,
        /// Stage H: an event, masked, with its counter indices and accumulator set.
        h_valid: DFF<Bit>,
        h_a: DFF<Bits<64>>,
        h_b: DFF<Bits<64>>,
        h_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
        h_set: DFF<Bits<ADDRESS_BITS>>,
        /// The refused slot (`slot`: the configuration's `refused_slot`): stage H's event that
        /// stage 0 refused, held here (and offered before H's) until it is accepted, so that
        /// stage H loads on flip-flops alone (`h_take`), never on the accept decision.
        slot: Constant<Bit>,
        r_valid: DFF<Bit>,
        r_tag: DFF<Bits<TAG_BITS>>,
        r_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
        r_set: DFF<Bits<ADDRESS_BITS>>,
        /// Stage 0 holds an event (the refused slot's, else stage H's).
        x_valid: Signal<Local, Bit>,
        /// Stage H loads: it is empty, or its event leaves (to stage C, or the refused slot).
        h_take: Signal<Local, Bit>,
        /// With the counters' output register (`early_read`) the counters are read a clock before
        /// stage 0 (see [`CounterTables`]), at the indices of the event offered next if this
        /// clock's is accepted — a guess, so that the read address is chosen by flip-flops, not
        /// by the accept decision. `stale`: the guess was wrong (the offered event was refused),
        /// so it was not read in the last clock; it is read again in this one and accepted from
        /// the next. Stage G then hashes before stage H (`g_*`, as `h_*`), so the address is a
        /// select of flip-flops, not the end of the hash.
        g_valid: DFF<Bit>,
        g_a: DFF<Bits<64>>,
        g_b: DFF<Bits<64>>,
        g_index: Vec<DFF<Bits<ADDRESS_BITS>>>,
        g_set: DFF<Bits<ADDRESS_BITS>>,
        /// With `ram_hash` (the configuration's `hash_block_ram`), stage F comes first: it holds
        /// the masked event whose byte tables are being read, so that the hash stage (G with
        /// `early_read`, else H) takes the words from the block RAMs' read registers into
        /// flip-flops (`tab`'s output registers, which stand for its index registers: `g_idx`,
        /// `h_idx`) and no block RAM's clock-to-out meets logic. `f_stage`: stage F is there,
        /// for `ram_hash` or for the configuration's `hash_stage` (the hash in logic from F's
        /// registers).
        ram_hash: Constant<Bit>,
        f_stage: Constant<Bit>,
        f_valid: DFF<Bit>,
        f_a: DFF<Bits<64>>,
        f_b: DFF<Bits<64>>,
        /// The first stage (F with `f_stage`, else G with `early_read`, else H) takes a new
        /// event; the hash stage takes one (`hash_take`): the event `e_*` with indices `e_index`.
        entry_free: Signal<Local, Bit>,
        hash_take: Signal<Local, Bit>,
        e_valid: Signal<Local, Bit>,
        e_a: Signal<Local, Bits<64>>,
        e_b: Signal<Local, Bits<64>>,
        e_index: Vec<Signal<Local, Bits<ADDRESS_BITS>>>,
        /// Stage G's and stage H's indices: their registers', or with `ram_hash` the hash
        /// stage's from `tab`.
        g_idx: Vec<Signal<Local, Bits<ADDRESS_BITS>>>,
        h_idx: Vec<Signal<Local, Bits<ADDRESS_BITS>>>,
        read_index: Vec<Signal<Local, Bits<ADDRESS_BITS>>>,
        early_read: Constant<Bit>,
        stale: DFF<Bit>,
        /// Stages C and D (see [`SetAssociativeAccumulator`]): an event; an interval's end (with
        /// the event, its last, or with none after a flush).
        c_valid: DFF<Bit>,
        c_end: DFF<Bit>,
        d_valid: DFF<Bit>,
        d_end: DFF<Bit>,
        /// The masked input, and the event hashed into the first stage (the skid register's if
        /// full).
        a: Signal<Local, Bits<64>>,
        b: Signal<Local, Bits<64>>,
        src_a: Signal<Local, Bits<64>>,
        src_b: Signal<Local, Bits<64>>,
        in_fire: Signal<Local, Bit>,
        /// Stage 0's event enters stage C.
        accept: Signal<Local, Bit>,
        /// Stage 0: an event is offered to the accumulator (accepted if it has room, and if it is
        /// not an interval's last event while a report is busy).
        offer: Signal<Local, Bit>,
        /// The accumulator's `report_busy` a clock ago: the offer waits on it, from a flip-flop.
        /// A stale low only offers a last event that the accept then refuses (the scanner waits
        /// a clock); a stale high delays the event a clock.
        busy_r: DFF<Bit>,
        /// The skid register holds an event after this clock.
        s_full: Signal<Local, Bit>,
        /// The input interval's counter bank is still clearing.
        clearing: Signal<Local, Bit>,
        h_tag: Signal<Local, Bits<TAG_BITS>>,
        /// The offered event's set and tuple.
        o_set: Signal<Local, Bits<ADDRESS_BITS>>,
        o_tag: Signal<Local, Bits<TAG_BITS>>,
        a_mask: Constant<Bits<64>>,
        b_mask: Constant<Bits<64>>,
        /// a_bits: the tag is b << a_bits | a.
        b_shift: Constant<Bits<8>>,
        _drain_bound: u64,
    }
}

impl<const CB: usize> BramProfiler<CB> {
    /// The hardware of `cfg` (set associative), whose width class must be CB (see
    /// [`crate::multihash::with_design`]).
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let w = widths_of_class::<CB>(cfg);
        let acc = &cfg.accumulator;
        new_profiler_top!(
            cfg,
            BramProfiler {
                hash: HashUnit::new(&HashConstants::new(cfg)),
                tab: TabulationRam::new(&HashConstants::new(cfg), cfg.hash_block_ram),
                set_hash: ParityHash::new(&SetHash::new(cfg).q),
                // Read in stage 0 with the tags, registered through C: D starts from flip-flops.
                counters: CounterTables::registered_read(cfg, &w),
                acc: SetAssociativeAccumulator::new(
                    acc.sets(),
                    acc.ways,
                    (cfg.a_bits + cfg.b_bits) as usize,
                    w.count,
                    w.count_max(cfg),
                    w.count_saturates(cfg),
                    cfg.retaining,
                    acc.replacement == Replacement::Smallest,
                    cfg.write_stage,
                    cfg.flag_rows,
                    cfg.narrow_tag_compare,
                    cfg.fixed_threshold(),
                ),
                control: Default::default(),
                s_valid: Default::default(),
                s_a: Default::default(),
                s_b: Default::default(),
                ready: Default::default(),
                h_valid: Default::default(),
                h_a: Default::default(),
                h_b: Default::default(),
                h_index: vec_of(cfg.tables),
                h_set: Default::default(),
                slot: Constant::new(cfg.refused_slot),
                r_valid: Default::default(),
                r_tag: Default::default(),
                r_index: vec_of(cfg.tables),
                r_set: Default::default(),
                x_valid: Default::default(),
                h_take: Default::default(),
                read_index: vec_of(cfg.tables),
                stale: Default::default(),
                g_valid: Default::default(),
                g_a: Default::default(),
                g_b: Default::default(),
                g_index: vec_of(cfg.tables),
                g_set: Default::default(),
                entry_free: Default::default(),
                ram_hash: Constant::new(cfg.hash_block_ram),
                f_stage: Constant::new(cfg.hash_block_ram | cfg.hash_stage),
                f_valid: Default::default(),
                f_a: Default::default(),
                f_b: Default::default(),
                hash_take: Default::default(),
                e_valid: Default::default(),
                e_a: Default::default(),
                e_b: Default::default(),
                e_index: vec_of(cfg.tables),
                g_idx: vec_of(cfg.tables),
                h_idx: vec_of(cfg.tables),
                early_read: Constant::new(cfg.counter_output_register),
                c_valid: Default::default(),
                c_end: Default::default(),
                d_valid: Default::default(),
                d_end: Default::default(),
                a: Default::default(),
                b: Default::default(),
                src_a: Default::default(),
                src_b: Default::default(),
                in_fire: Default::default(),
                accept: Default::default(),
                offer: Default::default(),
                busy_r: Default::default(),
                s_full: Default::default(),
                clearing: Default::default(),
                h_tag: Default::default(),
                o_set: Default::default(),
                o_tag: Default::default(),
                a_mask: Constant::new(cfg.a_mask().into()),
                b_mask: Constant::new(cfg.b_mask().into()),
                b_shift: Constant::new(u64::from(cfg.a_bits).into()),
                _drain_bound: (acc.sets() * (acc.ways + 2) + cfg.entries) as u64 + 66,
            }
        )
    }
}

impl<const CB: usize> Logic for BramProfiler<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s_valid, s_a, s_b, ready, h_valid, h_a, h_b, h_set, r_valid, r_tag, r_set,
            c_valid, c_end, d_valid, d_end, busy_r, stale, g_valid, g_a, g_b, g_set, f_valid, f_a,
            f_b
        );
        self.tab.clock.next = self.clock.val();
        self.counters.clock.next = self.clock.val();
        self.acc.clock.next = self.clock.val();
        self.control.clock.next = self.clock.val();
        self.counters.reset.next = self.reset.val();
        self.acc.reset.next = self.reset.val();
        self.control.reset.next = self.reset.val();
        self.control.length.next = self.interval_length.val();
        self.control.threshold.next = self.threshold.val();
        self.counters.threshold.next = self.control.next_threshold.val();
        self.acc.threshold.next = self.control.next_threshold.val();
        self.control.flush.next = self.flush.val();
        self.flush_pending.next = self.control.flush_pending.val();
        for k in 0..self.h_index.len() {
            self.h_index[k].clock.next = self.clock.val();
            self.h_index[k].d.next = self.h_index[k].q.val();
            self.g_index[k].clock.next = self.clock.val();
            self.g_index[k].d.next = self.g_index[k].q.val();
            self.r_index[k].clock.next = self.clock.val();
            self.r_index[k].d.next = self.r_index[k].q.val();
        }
        for k in 0..self.h_index.len() {
            self.g_idx[k].next = self.g_index[k].q.val();
            self.h_idx[k].next = self.h_index[k].q.val();
            if self.ram_hash.val() & self.early_read.val() {
                self.g_idx[k].next = self.tab.index[k].val();
            }
            if self.ram_hash.val() & !self.early_read.val() {
                self.h_idx[k].next = self.tab.index[k].val();
            }
        }
        self.clearing.next = (self.control.bank.val() & self.counters.clearing1.val())
            | (!self.control.bank.val() & self.counters.clearing0.val());
        // Stage 0 offers the refused slot's event, else stage H's (both registered), and reads
        // at its set. Nothing enters while an interval's last event is in stage C or D: the
        // accumulator applies the interval's rollover a clock after that event's stage D, with
        // stage D empty, and checks an event's set against the reports pending only after it.
        self.h_tag.next = (bit_cast::<TAG_BITS, 64>(self.h_b.q.val()) << self.b_shift.val())
            | bit_cast::<TAG_BITS, 64>(self.h_a.q.val());
        self.x_valid.next = self.r_valid.q.val() | self.h_valid.q.val();
        self.o_set.next = self.h_set.q.val();
        self.o_tag.next = self.h_tag.val();
        if self.r_valid.q.val() {
            self.o_set.next = self.r_set.q.val();
            self.o_tag.next = self.r_tag.q.val();
        }
        self.acc.lookup_set.next = self.o_set.val();
        self.acc.lookup_tag.next = self.o_tag.val();
        self.counters.read_bank.next = self.control.bank.val();
        // Every condition but the accumulator's room, from flip-flops: the accumulator's RAMs
        // are addressed with an offered event's set before the accept decision. The report's
        // state is a clock old here; the accept checks it again.
        self.offer.next = self.x_valid.val()
            & !self.reset.val()
            & !self.c_end.q.val()
            & !self.d_end.q.val()
            & !(self.control.last.val() & self.busy_r.q.val())
            & !self.clearing.val();
        self.busy_r.d.next = self.acc.report_busy.val();
        // A stale event (its counters read again this clock) keeps the accumulator's read ports
        // but is not accepted.
        self.accept.next = self.offer.val()
            & !self.stale.q.val()
            & self.acc.lookup_ok.val()
            & !(self.control.last.val() & self.acc.report_busy.val());
        self.acc.lookup_offer.next = self.offer.val();
        self.acc.lookup.next = self.accept.val();
        self.control.accept.next = self.accept.val();
        self.c_valid.d.next = self.accept.val();
        self.c_end.d.next =
            (self.accept.val() & self.control.last.val()) | self.control.null_end.val();
        self.d_valid.d.next = self.c_valid.q.val();
        self.d_end.d.next = self.c_end.q.val();
        // A flush's empty slot waits for every event taken before it to enter stage C, and for
        // the conditions of an interval's last event.
        self.control.end_ok.next = !(self.s_valid.q.val()
            | self.f_valid.q.val()
            | self.g_valid.q.val()
            | self.h_valid.q.val()
            | self.r_valid.q.val()
            | self.c_end.q.val()
            | self.d_end.q.val()
            | self.busy_r.q.val()
            | self.acc.report_busy.val()
            | self.reset.val());
        // A refused event stays in stage 0, and so does its set: in stage H, or in the refused
        // slot (holding it, or taking stage H's), whose valid is then the accept's only load.
        self.r_valid.d.next = self.slot.val() & self.x_valid.val() & !self.accept.val();
        self.acc.lookup_hold.next = self.x_valid.val() & !self.accept.val();
        // With the slot, stage H's event leaves whenever the slot is empty: it is accepted or
        // the slot takes it, so stage H loads on flip-flops alone.
        self.h_take.next = !self.h_valid.q.val() | self.accept.val();
        if self.slot.val() {
            self.h_take.next = !(self.r_valid.q.val() & self.h_valid.q.val());
        }
        if !self.r_valid.q.val() {
            self.r_tag.d.next = self.h_tag.val();
            self.r_set.d.next = self.h_set.q.val();
            for k in 0..self.h_index.len() {
                self.r_index[k].d.next = self.h_idx[k].val();
            }
        }
        // Stage H (stage G with the output register): mask and hash (counter indices, accumulator
        // set) the skid register's event if it holds one, else the input's. `in_ready` is a
        // function of flip-flops — the skid register is empty, or with the slot the first stage
        // loads — and the input interval's counter bank is clean (so the clearing after reset
        // holds the input); neither the hash nor stage 0's decision reaches the input handshake.
        self.hash_take.next = self.h_take.val();
        if self.early_read.val() {
            self.hash_take.next = !self.g_valid.q.val() | self.h_take.val();
        }
        self.entry_free.next = self.hash_take.val();
        if self.f_stage.val() {
            self.entry_free.next = !self.f_valid.q.val() | self.hash_take.val();
        }
        self.in_ready.next =
            self.ready.q.val() & !self.clearing.val() & !self.control.flush_pending.val();
        if self.slot.val() {
            self.in_ready.next = self.entry_free.val()
                & !self.clearing.val()
                & !self.reset.val()
                & !self.control.flush_pending.val();
        }
        self.in_fire.next = self.in_valid.val() & self.in_ready.val();
        self.a.next = self.in_a.val() & self.a_mask.val();
        self.b.next = self.in_b.val() & self.b_mask.val();
        self.src_a.next = self.a.val();
        self.src_b.next = self.b.val();
        if self.s_valid.q.val() {
            self.src_a.next = self.s_a.q.val();
            self.src_b.next = self.s_b.q.val();
        }
        // The event entering the hash stage: the input's (or the skid register's) hashed in
        // logic, or stage F's: hashed in logic from its registers, or with its byte tables read.
        self.e_valid.next = self.s_valid.q.val() | self.in_fire.val();
        self.e_a.next = self.src_a.val();
        self.e_b.next = self.src_b.val();
        if self.f_stage.val() {
            self.e_valid.next = self.f_valid.q.val();
            self.e_a.next = self.f_a.q.val();
            self.e_b.next = self.f_b.q.val();
        }
        self.hash.a.next = self.e_a.val();
        self.hash.b.next = self.e_b.val();
        self.set_hash.a.next = self.e_a.val();
        self.set_hash.b.next = self.e_b.val();
        for k in 0..self.h_index.len() {
            self.e_index[k].next = self.hash.index[k].val();
        }
        self.tab.a.next = self.src_a.val();
        self.tab.b.next = self.src_b.val();
        self.tab.read.next = self.ram_hash.val() & self.entry_free.val();
        self.tab.load.next = self.ram_hash.val() & self.hash_take.val();
        if self.early_read.val() & self.hash_take.val() {
            self.g_valid.d.next = self.e_valid.val();
            self.g_a.d.next = self.e_a.val();
            self.g_b.d.next = self.e_b.val();
            self.g_set.d.next = self.set_hash.index.val();
            for k in 0..self.h_index.len() {
                self.g_index[k].d.next = self.e_index[k].val();
            }
        }
        self.s_full.next = self.s_valid.q.val() | self.in_fire.val();
        if self.entry_free.val() {
            if self.f_stage.val() {
                self.f_valid.d.next = self.s_valid.q.val() | self.in_fire.val();
                self.f_a.d.next = self.src_a.val();
                self.f_b.d.next = self.src_b.val();
            }
            // The skid register's event (if any) moved on; the input's went straight in.
            self.s_valid.d.next = false;
            self.s_full.next = false;
        } else if self.in_fire.val() & !self.slot.val() {
            self.s_valid.d.next = true;
            self.s_a.d.next = self.a.val();
            self.s_b.d.next = self.b.val();
        }
        self.ready.d.next = !self.s_full.val();
        if self.h_take.val() {
            if self.early_read.val() {
                self.h_valid.d.next = self.g_valid.q.val();
                self.h_a.d.next = self.g_a.q.val();
                self.h_b.d.next = self.g_b.q.val();
                self.h_set.d.next = self.g_set.q.val();
                for k in 0..self.h_index.len() {
                    self.h_index[k].d.next = self.g_idx[k].val();
                }
            } else {
                self.h_valid.d.next = self.e_valid.val();
                self.h_a.d.next = self.e_a.val();
                self.h_b.d.next = self.e_b.val();
                self.h_set.d.next = self.set_hash.index.val();
                for k in 0..self.h_index.len() {
                    self.h_index[k].d.next = self.e_index[k].val();
                }
            }
        }
        // The counters are read at the offered event's indices; with the output register a clock
        // earlier, at those of the event offered next if this clock's moves on: stage H's if it
        // is held behind the refused slot, else the one stage H takes (a choice of flip-flops,
        // not of the accept). After a wrong guess the offered event is read again: it cannot be
        // accepted in that clock, so it is offered next.
        for k in 0..self.h_index.len() {
            self.read_index[k].next = self.h_idx[k].val();
            if self.r_valid.q.val() {
                self.read_index[k].next = self.r_index[k].q.val();
            }
            if self.early_read.val() & !self.stale.q.val() & (self.h_take.val() | !self.slot.val())
            {
                self.read_index[k].next = self.g_idx[k].val();
            }
            if self.early_read.val() & !self.stale.q.val() & !self.h_take.val() & self.slot.val() {
                self.read_index[k].next = self.h_idx[k].val();
            }
            self.counters.read_index[k].next = self.read_index[k].val();
        }
        // The guess is wrong if the offered event is refused; after a wrong one, the event read
        // again is offered next unless stage 0 was empty (stage H then takes an unread event).
        if self.stale.q.val() {
            self.stale.d.next = self.early_read.val() & !self.reset.val() & !self.x_valid.val();
        } else {
            self.stale.d.next =
                self.early_read.val() & !self.reset.val() & self.x_valid.val() & !self.accept.val();
        }
        if self.reset.val() {
            self.s_valid.d.next = false;
            self.ready.d.next = false;
            self.g_valid.d.next = false;
            self.f_valid.d.next = false;
            self.h_valid.d.next = false;
            self.r_valid.d.next = false;
        }
        // Stage D: accumulator, counter update, interval end.
        self.acc.valid.next = self.d_valid.q.val();
        self.acc.alloc_min.next = self.counters.new_min_w.val();
        self.acc.candidate.next = self.counters.candidate.val();
        self.acc.end_interval.next = self.d_end.q.val();
        self.acc.interval.next = self.control.interval.val();
        self.counters.valid.next = self.d_valid.q.val();
        self.counters.update.next = self.d_valid.q.val() & !self.acc.hit.val();
        self.counters.promoted.next = self.acc.promoted.val();
        self.counters.clear_start.next = self.d_end.q.val();
        self.control.finish.next = self.d_end.q.val();
        // Report stream: the tag unpacked into a and b.
        self.out_valid.next = self.acc.report_valid.val();
        self.acc.report_ready.next = self.out_ready.val();
        self.out_interval.next = self.acc.report_interval.val();
        self.out_a.next = bit_cast::<64, TAG_BITS>(self.acc.report_tag.val()) & self.a_mask.val();
        self.out_b.next = bit_cast::<64, TAG_BITS>(self.acc.report_tag.val() >> self.b_shift.val())
            & self.b_mask.val();
        self.out_count.next = self.acc.report_count.val();
        self.out_last.next = self.acc.report_last.val();
    }
}

impl_profiler_top!(
    BramProfiler<const CB>,
    entry_order = false,
    stages_before_accept = true
);
