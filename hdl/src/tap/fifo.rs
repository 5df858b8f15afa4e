//! [`GrayFifo`]: a first-word-fall-through FIFO between two clock domains, in one block RAM.
//!
//! Each side keeps a binary pointer of [`FIFO_ADDRESS_BITS`] + 1 bits and publishes it Gray-coded
//! from a register, so that at most one bit changes per step; the other side takes it through two
//! flip-flops (the synchronizer) and converts it back to binary. A side therefore sees the other's
//! pointer two or three of its own clocks late, which errs on the safe side: the writer sees the
//! FIFO fuller than it is, the reader emptier. With one clock on both sides the FIFO is exact but
//! an entry becomes visible to the reader three clocks after its write.
//!
//! The read side looks ahead: the RAM's registered read is always addressed with the pointer the
//! reader will have after this clock, so `data_out` is the head entry whenever `empty` is low.
//! Every entry is written at least two reader clocks before the reader can see it, so the word
//! read is never one being written.

use rust_hdl::prelude::*;

/// Address bits of the FIFO's RAM: [`FIFO_DEPTH`] entries.
pub const FIFO_ADDRESS_BITS: usize = 4;
/// Entries of the FIFO.
pub const FIFO_DEPTH: u32 = 1 << FIFO_ADDRESS_BITS;
const PB: usize = FIFO_ADDRESS_BITS + 1;

/// Gray code of a pointer (the model and tests use it; the RTL computes the same xor).
pub fn to_gray(x: u32) -> u32 {
    x ^ (x >> 1)
}

/// Binary value of a Gray-coded pointer of [`FIFO_ADDRESS_BITS`] + 1 bits.
pub fn from_gray(g: u32) -> u32 {
    (0..PB).fold(0, |b, i| b ^ (g >> i))
}

/// The FIFO (module documentation). `D` is the entry.
#[derive(LogicBlock)]
pub struct GrayFifo<D: Synth> {
    // Write side, clocked by `write_clock`.
    pub write_clock: Signal<In, Clock>,
    pub write_reset: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    /// Entries the writer counts as taken (an upper bound of the true fill).
    pub write_fill: Signal<Out, Bits<PB>>,
    pub full: Signal<Out, Bit>,
    // Read side, clocked by `read_clock`.
    pub read_clock: Signal<In, Clock>,
    pub read_reset: Signal<In, Bit>,
    pub read: Signal<In, Bit>,
    pub data_out: Signal<Out, D>,
    pub empty: Signal<Out, Bit>,
    ram: RAM<D, FIFO_ADDRESS_BITS>,
    depth: Constant<Bits<PB>>,
    write_bin: DFF<Bits<PB>>,
    write_gray: DFF<Bits<PB>>,
    read_gray_meta: DFF<Bits<PB>>,
    read_gray_sync: DFF<Bits<PB>>,
    read_bin_at_write: Signal<Local, Bits<PB>>,
    write_next: Signal<Local, Bits<PB>>,
    read_bin: DFF<Bits<PB>>,
    read_gray: DFF<Bits<PB>>,
    write_gray_meta: DFF<Bits<PB>>,
    write_gray_sync: DFF<Bits<PB>>,
    write_bin_at_read: Signal<Local, Bits<PB>>,
    read_next: Signal<Local, Bits<PB>>,
    is_empty: Signal<Local, Bit>,
}

impl<D: Synth> Default for GrayFifo<D> {
    fn default() -> Self {
        GrayFifo {
            write_clock: Default::default(),
            write_reset: Default::default(),
            write: Default::default(),
            data_in: Default::default(),
            write_fill: Default::default(),
            full: Default::default(),
            read_clock: Default::default(),
            read_reset: Default::default(),
            read: Default::default(),
            data_out: Default::default(),
            empty: Default::default(),
            ram: Default::default(),
            depth: Constant::new((FIFO_DEPTH as u64).to_bits()),
            write_bin: Default::default(),
            write_gray: Default::default(),
            read_gray_meta: Default::default(),
            read_gray_sync: Default::default(),
            read_bin_at_write: Default::default(),
            write_next: Default::default(),
            read_bin: Default::default(),
            read_gray: Default::default(),
            write_gray_meta: Default::default(),
            write_gray_sync: Default::default(),
            write_bin_at_read: Default::default(),
            read_next: Default::default(),
            is_empty: Default::default(),
        }
    }
}

impl<D: Synth> Logic for GrayFifo<D> {
    #[hdl_gen]
    fn update(&mut self) {
        // Write side.
        self.write_bin.clock.next = self.write_clock.val();
        self.write_gray.clock.next = self.write_clock.val();
        self.read_gray_meta.clock.next = self.write_clock.val();
        self.read_gray_sync.clock.next = self.write_clock.val();
        self.read_gray_meta.d.next = self.read_gray.q.val();
        self.read_gray_sync.d.next = self.read_gray_meta.q.val();
        self.read_bin_at_write.next = self.read_gray_sync.q.val()
            ^ (self.read_gray_sync.q.val() >> 1)
            ^ (self.read_gray_sync.q.val() >> 2)
            ^ (self.read_gray_sync.q.val() >> 3)
            ^ (self.read_gray_sync.q.val() >> 4);
        self.write_fill.next = self.write_bin.q.val() - self.read_bin_at_write.val();
        self.full.next = self.write_fill.val() == self.depth.val();
        self.ram.write_clock.next = self.write_clock.val();
        self.ram.write_address.next = self.write_bin.q.val().get_bits::<FIFO_ADDRESS_BITS>(0);
        self.ram.write_data.next = self.data_in.val();
        self.ram.write_enable.next = self.write.val() & !self.full.val();
        self.write_next.next = self.write_bin.q.val();
        if self.write.val() & !self.full.val() {
            self.write_next.next = self.write_bin.q.val() + 1;
        }
        self.write_bin.d.next = self.write_next.val();
        self.write_gray.d.next = self.write_next.val() ^ (self.write_next.val() >> 1);
        if self.write_reset.val() {
            self.write_bin.d.next = 0.into();
            self.write_gray.d.next = 0.into();
        }
        // Read side.
        self.read_bin.clock.next = self.read_clock.val();
        self.read_gray.clock.next = self.read_clock.val();
        self.write_gray_meta.clock.next = self.read_clock.val();
        self.write_gray_sync.clock.next = self.read_clock.val();
        self.write_gray_meta.d.next = self.write_gray.q.val();
        self.write_gray_sync.d.next = self.write_gray_meta.q.val();
        self.write_bin_at_read.next = self.write_gray_sync.q.val()
            ^ (self.write_gray_sync.q.val() >> 1)
            ^ (self.write_gray_sync.q.val() >> 2)
            ^ (self.write_gray_sync.q.val() >> 3)
            ^ (self.write_gray_sync.q.val() >> 4);
        self.is_empty.next = self.read_bin.q.val() == self.write_bin_at_read.val();
        self.empty.next = self.is_empty.val();
        self.read_next.next = self.read_bin.q.val();
        if self.read.val() & !self.is_empty.val() {
            self.read_next.next = self.read_bin.q.val() + 1;
        }
        if self.read_reset.val() {
            self.read_next.next = 0.into();
        }
        self.read_bin.d.next = self.read_next.val();
        self.read_gray.d.next = self.read_next.val() ^ (self.read_next.val() >> 1);
        self.ram.read_clock.next = self.read_clock.val();
        self.ram.read_address.next = self.read_next.val().get_bits::<FIFO_ADDRESS_BITS>(0);
        self.data_out.next = self.ram.read_data.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gray_codes_round_trip_and_change_one_bit_per_step() {
        for x in 0..(2 * FIFO_DEPTH) {
            assert_eq!(from_gray(to_gray(x)), x);
            let next = (x + 1) % (2 * FIFO_DEPTH);
            assert_eq!((to_gray(x) ^ to_gray(next)).count_ones(), 1, "{x}");
        }
    }
}
