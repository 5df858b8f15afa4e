//! Leaf blocks whose size is chosen at construction, not by a const generic: the profiler's
//! shape (tables, table entries, accumulator entries, sets, ways, stored widths) is run-time data,
//! and only the widths of arithmetic words are compile-time width classes ([`crate::multihash::design`]).
//! Each leaf writes its own Verilog with the sizes of the instance and simulates the same behaviour.
//!
//! - [`Priority`]: over n one-bit requests, the lowest one (one-hot, `x & (~x + 1)` on the carry
//!   chain), whether any and whether more than one is set;
//! - [`BankClear`]: the sweep that writes zeros over a table, one word per clock.

use crate::block_ram::ADDRESS_BITS;
use crate::util::bits_u64;
use rust_hdl::prelude::*;

/// n default values: the ports, registers and wires of n entries, ways or tables.
pub fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// Over n request bits: `first` = the lowest one set (one-hot), `any`, `many` (two or more).
/// The lowest-one pick is x & (~x + 1), an adder (the carry chain of an FPGA).
#[derive(LogicBlock)]
pub struct Priority {
    pub bits: Vec<Signal<In, Bit>>,
    pub first: Vec<Signal<Out, Bit>>,
    pub any: Signal<Out, Bit>,
    pub many: Signal<Out, Bit>,
}

impl Priority {
    pub fn new(n: usize) -> Self {
        assert!(n >= 1);
        Priority {
            bits: vec_of(n),
            first: vec_of(n),
            any: Default::default(),
            many: Default::default(),
        }
    }
}

impl Logic for Priority {
    fn update(&mut self) {
        let mut seen = 0;
        for (b, f) in self.bits.iter().zip(self.first.iter_mut()) {
            f.next = b.val() && seen == 0;
            seen += b.val() as usize;
        }
        self.any.next = seen > 0;
        self.many.next = seen > 1;
    }

    fn connect(&mut self) {
        for f in &mut self.first {
            f.connect();
        }
        self.any.connect();
        self.many.connect();
    }

    fn hdl(&self) -> Verilog {
        let n = self.bits.len();
        let x: Vec<String> = (0..n).rev().map(|i| format!("bits${i}")).collect();
        let outs: String = (0..n)
            .map(|i| format!("   first${i} = f[{i}];\n"))
            .collect();
        Verilog::Custom(format!(
            "\
wire [{hi}:0] x = {{{x}}};
wire [{hi}:0] f = x & (~x + {n}'d1);

always @(*) begin
   any = |x;
   many = |(x & (x - {n}'d1));
{outs}end
",
            hi = n - 1,
            x = x.join(", "),
        ))
    }
}

/// Writes zeros over a table of `depth` words, one address per clock: `busy` for `depth` clocks
/// after `start` (which restarts a sweep in progress), `address` the word to clear.
#[derive(LogicBlock)]
pub struct BankClear {
    pub clock: Signal<In, Clock>,
    pub start: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    pub address: Signal<Out, Bits<ADDRESS_BITS>>,
    running: DFF<Bit>,
    next_address: DFF<Bits<ADDRESS_BITS>>,
    last: Constant<Bits<ADDRESS_BITS>>,
    one: Constant<Bits<ADDRESS_BITS>>,
}

impl BankClear {
    pub fn new(depth: usize) -> Self {
        assert!((1..=1 << ADDRESS_BITS).contains(&depth));
        BankClear {
            clock: Default::default(),
            start: Default::default(),
            busy: Default::default(),
            address: Default::default(),
            running: Default::default(),
            next_address: Default::default(),
            last: Constant::new(bits_u64(depth as u64 - 1)),
            one: Constant::new(1.into()),
        }
    }
}

impl Logic for BankClear {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, running, next_address);
        self.busy.next = self.running.q.val();
        self.address.next = self.next_address.q.val();
        if self.running.q.val() {
            self.next_address.d.next = self.next_address.q.val() + self.one.val();
            if self.next_address.q.val() == self.last.val() {
                self.running.d.next = false;
            }
        }
        if self.start.val() {
            self.running.d.next = true;
            self.next_address.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_picks_the_lowest_request_and_counts_to_two() {
        for n in 1..=5usize {
            for x in 0..1u32 << n {
                let mut p = Priority::new(n);
                p.connect_all();
                for i in 0..n {
                    p.bits[i].next = x >> i & 1 == 1;
                }
                // Inputs latch on the first pass, outputs follow on the second.
                p.update_all();
                p.update_all();
                let low = if x == 0 { 0 } else { x & x.wrapping_neg() };
                for i in 0..n {
                    assert_eq!(p.first[i].val(), low >> i & 1 == 1, "n {n} x {x:b} bit {i}");
                }
                assert_eq!(p.any.val(), x != 0);
                assert_eq!(p.many.val(), x.count_ones() > 1);
            }
        }
    }
}
