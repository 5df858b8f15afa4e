//! [`RvfiTap`]: events of one retire channel of the RISC-V Formal Interface (RVFI), through a
//! [`GrayFifo`] into the clock domain of the block they feed. Its model is
//! `hwprof_sim::model::tap`; the decoding rules are in the parent module's documentation.
//!
//! **Pipeline.** A record is decoded in the clock it is valid, the event registered, and written
//! into the FIFO the clock after; the event leaves on `ev_*` (first word falls through) in the
//! consumer's clock domain.
//!
//! **Policies.** `stall`: the registered output `stall` is high while the writer counts at least
//! [`FIFO_DEPTH`] − `skid` entries taken; the integrator wires it to the core's stall or ready
//! input, and the core must retire no more than `skid` − 2 instructions after `stall` rises (one
//! clock of the `stall` register and one of the event register are already covered). `drop`:
//! `stall` stays low; an event that finds the FIFO full is dropped. In both policies a dropped
//! event is counted in `dropped` (saturating), so a core that breaks the stall contract is seen.
//! Each event carries in `ev_lost` the events dropped between it and the previous event that
//! entered (saturating), so the consumer's domain knows how many were lost before each event.

use super::fifo::{GrayFifo, FIFO_DEPTH};
use super::{Policy, TapConfig, TapMode, EVENT_B_BITS, LOST_BITS};
use crate::phase::config::WEIGHT_BITS;
use rust_hdl::prelude::*;

/// One FIFO entry: `lost` (high), `b`, `a` (low); the RTL's bit offsets are literals.
const ENTRY_BITS: usize = LOST_BITS + EVENT_B_BITS + 32;
const _: () = assert!(EVENT_B_BITS == 32 && ENTRY_BITS == 80);

/// The tap (module documentation).
#[derive(LogicBlock)]
pub struct RvfiTap {
    /// The core's clock and synchronous reset.
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rvfi_valid: Signal<In, Bit>,
    pub rvfi_order: Signal<In, Bits<64>>,
    pub rvfi_insn: Signal<In, Bits<32>>,
    pub rvfi_trap: Signal<In, Bit>,
    pub rvfi_pc_rdata: Signal<In, Bits<32>>,
    pub rvfi_pc_wdata: Signal<In, Bits<32>>,
    pub rvfi_rd_wdata: Signal<In, Bits<32>>,
    /// Stall policy: hold the core (registered). Low under the drop policy.
    pub stall: Signal<Out, Bit>,
    /// Events dropped since reset (saturating), in the core's domain.
    pub dropped: Signal<Out, Bits<32>>,
    /// The consumer's clock and synchronous reset (the core's for one clock domain).
    pub ev_clock: Signal<In, Clock>,
    pub ev_reset: Signal<In, Bit>,
    pub ev_valid: Signal<Out, Bit>,
    pub ev_ready: Signal<In, Bit>,
    /// The event: `a` is the pc; `b` the loaded value, next pc, taken bit or weight by mode.
    pub ev_a: Signal<Out, Bits<32>>,
    pub ev_b: Signal<Out, Bits<EVENT_B_BITS>>,
    /// Events dropped just before this one (saturating).
    pub ev_lost: Signal<Out, Bits<LOST_BITS>>,
    fifo: GrayFifo<Bits<ENTRY_BITS>>,
    // Generation-time choices, as constants (never const generics in the RTL).
    mode_value: Constant<Bit>,
    mode_edge: Constant<Bit>,
    mode_branch: Constant<Bit>,
    mode_phase: Constant<Bit>,
    drop_policy: Constant<Bit>,
    stall_fill: Constant<Bits<5>>,
    weight_max: Constant<Bits<64>>,
    lost_max: Constant<Bits<LOST_BITS>>,
    dropped_max: Constant<Bits<32>>,
    // Decode (combinational, the core's clock).
    opcode: Signal<Local, Bits<7>>,
    retired: Signal<Local, Bit>,
    is_load: Signal<Local, Bit>,
    is_branch: Signal<Local, Bit>,
    is_transfer: Signal<Local, Bit>,
    since: Signal<Local, Bits<64>>,
    take: Signal<Local, Bit>,
    b: Signal<Local, Bits<EVENT_B_BITS>>,
    // Registers of the core's domain.
    last_transfer: DFF<Bits<64>>,
    pending: DFF<Bit>,
    pending_a: DFF<Bits<32>>,
    pending_b: DFF<Bits<EVENT_B_BITS>>,
    lost: DFF<Bits<LOST_BITS>>,
    dropped_count: DFF<Bits<32>>,
    stall_q: DFF<Bit>,
}

impl RvfiTap {
    pub fn new(cfg: &TapConfig) -> Result<RvfiTap, String> {
        cfg.validate()?;
        let bit = |b: bool| Constant::new(b);
        Ok(RvfiTap {
            clock: Default::default(),
            reset: Default::default(),
            rvfi_valid: Default::default(),
            rvfi_order: Default::default(),
            rvfi_insn: Default::default(),
            rvfi_trap: Default::default(),
            rvfi_pc_rdata: Default::default(),
            rvfi_pc_wdata: Default::default(),
            rvfi_rd_wdata: Default::default(),
            stall: Default::default(),
            dropped: Default::default(),
            ev_clock: Default::default(),
            ev_reset: Default::default(),
            ev_valid: Default::default(),
            ev_ready: Default::default(),
            ev_a: Default::default(),
            ev_b: Default::default(),
            ev_lost: Default::default(),
            fifo: Default::default(),
            mode_value: bit(cfg.mode == TapMode::Value),
            mode_edge: bit(cfg.mode == TapMode::Edge),
            mode_branch: bit(cfg.mode == TapMode::Branch),
            mode_phase: bit(cfg.mode == TapMode::Phase),
            drop_policy: bit(cfg.policy == Policy::Drop),
            stall_fill: Constant::new(((FIFO_DEPTH - cfg.skid) as u64).to_bits()),
            weight_max: Constant::new(((1u64 << WEIGHT_BITS) - 1).to_bits()),
            lost_max: Constant::new(((1u64 << LOST_BITS) - 1).to_bits()),
            dropped_max: Constant::new((u32::MAX as u64).to_bits()),
            opcode: Default::default(),
            retired: Default::default(),
            is_load: Default::default(),
            is_branch: Default::default(),
            is_transfer: Default::default(),
            since: Default::default(),
            take: Default::default(),
            b: Default::default(),
            last_transfer: Default::default(),
            pending: Default::default(),
            pending_a: Default::default(),
            pending_b: Default::default(),
            lost: Default::default(),
            dropped_count: Default::default(),
            stall_q: Default::default(),
        })
    }
}

impl Logic for RvfiTap {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            last_transfer,
            pending,
            pending_a,
            pending_b,
            lost,
            dropped_count,
            stall_q
        );
        self.fifo.write_clock.next = self.clock.val();
        self.fifo.write_reset.next = self.reset.val();
        self.fifo.read_clock.next = self.ev_clock.val();
        self.fifo.read_reset.next = self.ev_reset.val();
        // Decode.
        self.opcode.next = self.rvfi_insn.val().get_bits::<7>(0);
        self.retired.next = self.rvfi_valid.val() & !self.rvfi_trap.val();
        self.is_load.next = self.retired.val() & (self.opcode.val() == 0x03);
        self.is_branch.next = self.retired.val() & (self.opcode.val() == 0x63);
        self.is_transfer.next = self.is_branch.val()
            | (self.retired.val() & ((self.opcode.val() == 0x6f) | (self.opcode.val() == 0x67)));
        // Instructions since the previous transfer, this one included (rvfi_order counts them).
        self.since.next = self.rvfi_order.val() - self.last_transfer.q.val();
        if self.is_transfer.val() {
            self.last_transfer.d.next = self.rvfi_order.val();
        }
        self.take.next = false;
        self.b.next = 0.into();
        if self.mode_value.val() {
            self.take.next = self.is_load.val();
            self.b.next = self.rvfi_rd_wdata.val();
        }
        if self.mode_edge.val() {
            self.take.next = self.is_transfer.val();
            self.b.next = bit_cast::<EVENT_B_BITS, 32>(self.rvfi_pc_wdata.val());
        }
        if self.mode_branch.val() {
            self.take.next = self.is_branch.val();
            if self.rvfi_pc_wdata.val() != self.rvfi_pc_rdata.val() + 4 {
                self.b.next = 1.into();
            }
        }
        if self.mode_phase.val() {
            self.take.next = self.is_transfer.val();
            self.b.next = bit_cast::<EVENT_B_BITS, 64>(self.since.val());
            if self.since.val() > self.weight_max.val() {
                self.b.next = bit_cast::<EVENT_B_BITS, 64>(self.weight_max.val());
            }
        }
        // The event register, then the FIFO.
        self.pending.d.next = self.take.val();
        self.pending_a.d.next = self.rvfi_pc_rdata.val();
        self.pending_b.d.next = self.b.val();
        self.fifo.write.next = self.pending.q.val();
        self.fifo.data_in.next = bit_cast::<ENTRY_BITS, 32>(self.pending_a.q.val())
            | (bit_cast::<ENTRY_BITS, EVENT_B_BITS>(self.pending_b.q.val()) << 32)
            | (bit_cast::<ENTRY_BITS, LOST_BITS>(self.lost.q.val()) << 64);
        if self.pending.q.val() & self.fifo.full.val() {
            if self.lost.q.val() != self.lost_max.val() {
                self.lost.d.next = self.lost.q.val() + 1;
            }
            if self.dropped_count.q.val() != self.dropped_max.val() {
                self.dropped_count.d.next = self.dropped_count.q.val() + 1;
            }
        }
        if self.pending.q.val() & !self.fifo.full.val() {
            self.lost.d.next = 0.into();
        }
        self.dropped.next = self.dropped_count.q.val();
        self.stall_q.d.next =
            !self.drop_policy.val() & (self.fifo.write_fill.val() >= self.stall_fill.val());
        self.stall.next = self.stall_q.q.val();
        if self.reset.val() {
            self.last_transfer.d.next = 0xffff_ffff_ffff_ffffu64.into();
            self.pending.d.next = false;
            self.lost.d.next = 0.into();
            self.dropped_count.d.next = 0.into();
            self.stall_q.d.next = false;
        }
        // The consumer's side.
        self.ev_valid.next = !self.fifo.empty.val();
        self.fifo.read.next = self.ev_ready.val();
        self.ev_a.next = self.fifo.data_out.val().get_bits::<32>(0);
        self.ev_b.next = self.fifo.data_out.val().get_bits::<EVENT_B_BITS>(32);
        self.ev_lost.next = self.fifo.data_out.val().get_bits::<LOST_BITS>(64);
    }
}
