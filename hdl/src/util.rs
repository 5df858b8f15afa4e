//! Small helpers for writing `#[hdl_gen]` kernels.

use rust_hdl::prelude::*;

/// `x.next.set_bit(i, v)` inside `#[hdl_gen]` becomes a one-bit slice assignment in Verilog;
/// rust-hdl 0.46's `Bits` has no such method, so this trait gives it one for the simulation.
pub trait SetBit {
    fn set_bit(&mut self, index: usize, value: bool);
}

impl<const N: usize> SetBit for Bits<N> {
    fn set_bit(&mut self, index: usize, value: bool) {
        *self = self.replace_bit(index, value);
    }
}

/// A `Bits<N>` from a u64 (the low bits; N may exceed 64).
pub fn bits_u64<const N: usize>(v: u64) -> Bits<N> {
    let mut x = Bits::<N>::default();
    for i in 0..N.min(64) {
        x = x.replace_bit(i, (v >> i) & 1 == 1);
    }
    x
}

/// The low 64 bits of a `Bits<N>` as a u64.
pub fn u64_bits<const N: usize>(x: Bits<N>) -> u64 {
    let mut v = 0u64;
    for i in 0..N.min(64) {
        if x.get_bit(i) {
            v |= 1 << i;
        }
    }
    v
}

/// Gathers N one-bit signals into one `Bits<N>` word (`word[i] = bits[i]`), so that `#[hdl_gen]`
/// kernels can apply vector operations (priority pick `x & (~x + 1)`, `any`, `all`) to per-entry
/// conditions computed in loops. (rust-hdl 0.46's `set_bit` does not translate to Verilog.)
#[derive(LogicBlock)]
pub struct BitGather<const N: usize> {
    pub bits: [Signal<In, Bit>; N],
    pub word: Signal<Out, Bits<N>>,
}

impl<const N: usize> Default for BitGather<N> {
    fn default() -> Self {
        BitGather {
            bits: std::array::from_fn(|_| Default::default()),
            word: Default::default(),
        }
    }
}

impl<const N: usize> Logic for BitGather<N> {
    fn update(&mut self) {
        let mut w = Bits::<N>::default();
        for (i, b) in self.bits.iter().enumerate() {
            if b.val() {
                w = w.replace_bit(i, true);
            }
        }
        self.word.next = w;
    }

    fn connect(&mut self) {
        self.word.connect();
    }

    fn hdl(&self) -> Verilog {
        let parts: Vec<String> = (0..N).rev().map(|i| format!("bits${i}")).collect();
        Verilog::Custom(format!("always @(*) word = {{{}}};", parts.join(", ")))
    }
}

/// rust-hdl blocks are built by value, and a 1000-entry accumulator is several megabytes: RTL
/// code runs on a thread with a large stack.
pub fn on_rtl_thread<R: Send>(f: impl FnOnce() -> R + Send) -> Result<R, String> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("hwprof-rtl".into())
            .stack_size(1 << 30)
            .spawn_scoped(s, f)
            .map_err(|e| format!("cannot start the RTL thread: {e}"))?
            .join()
            .map_err(|_| "the RTL thread panicked".to_string())
    })
}

/// A D flip-flop with no power-up value, for state that a synchronous reset sets to non-zero
/// values (rust-hdl's `DFF` declares `initial q = 0`). ECP5 flip-flops take a synchronous set or
/// reset only when it agrees with the power-up value (one REGSET fixes both), so with a zero
/// `initial` a reset to ones costs a LUT per bit; without one, Yosys uses the flip-flop's own
/// set/reset and clock enable on both families. The block's reset must be asserted before use,
/// as every hwprof block requires anyway.
#[derive(Clone, Debug, LogicBlock, Default)]
pub struct ResetDFF<T: Synth> {
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    pub clock: Signal<In, Clock>,
}

impl<T: Synth> Logic for ResetDFF<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = self.d.val()
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "\
always @(posedge clock) begin
   q <= d;
end
"
            .into(),
        )
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "dff".into(),
            clock: "clock".into(),
            inputs: vec!["d".into()],
            outputs: vec!["q".into()],
        }]
    }
}
