//! On-chip event source for the board tops: a skewed stream of (a, b) tuples driven by a 32-bit
//! xorshift LFSR, so that a flashed board has something to profile. Its model is
//! `hwprof_sim::model::board::event_source`; the constants below feed both.
//!
//! **Generator.** State s (32 bits, never 0), advanced once per event taken by Marsaglia's
//! xorshift32 (13, 17, 5): s ^= s << 13; s ^= s >> 17; s ^= s << 5 — a linear feedback shift
//! register over GF(2) with period 2^32 − 1 (Marsaglia 2003), cheap in logic (one xor tree).
//!
//! **Tuple of state s.** *hot* when `s[31:29]` ≠ 0 (7 of 8 states): idx = `s[3:0] & s[7:4]`, giving
//! a skewed distribution over 16 hot tuples (idx 0 about 32 % of hot events, each one-bit idx about
//! 10.5 %, two bits 3.5 %, three bits 1.2 %, 15 about 0.4 %), and (a, b) = (HOT_A | idx, HOT_B |
//! idx << 4). Otherwise *cold*: (a, b) = (s, s rotated by 16), almost never repeating.

use rust_hdl::prelude::*;

/// The xorshift32 shifts.
pub const XORSHIFT: (u32, u32, u32) = (13, 17, 5);
/// The hot tuples' bases (low nibble / bits 7:4 free for idx).
pub const HOT_A: u32 = 0x0040_1000;
pub const HOT_B: u32 = 0x7fee_0000;
/// The default seed (any non-zero value).
pub const DEFAULT_SEED: u32 = 0x2545_f491;

/// The state after `s` (the model and the tests use this; the RTL computes the same xor tree).
pub fn next_state(s: u32) -> u32 {
    let (x, y, z) = XORSHIFT;
    let mut s = s;
    s ^= s << x;
    s ^= s >> y;
    s ^= s << z;
    s
}

/// The tuple of state `s` (see the module documentation).
pub fn tuple_of(s: u32) -> (u32, u32) {
    if s >> 29 != 0 {
        let idx = s & (s >> 4) & 0xf;
        (HOT_A | idx, HOT_B | (idx << 4))
    } else {
        (s, s.rotate_left(16))
    }
}

/// The event source: `valid` from the cycle after reset on, one new tuple per `valid & ready`.
#[derive(LogicBlock)]
pub struct EventSource {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The consumer takes the tuple this cycle.
    pub ready: Signal<In, Bit>,
    pub valid: Signal<Out, Bit>,
    pub a: Signal<Out, Bits<32>>,
    pub b: Signal<Out, Bits<32>>,
    seed: Constant<Bits<32>>,
    hot_a: Constant<Bits<32>>,
    hot_b: Constant<Bits<32>>,
    nibble: Constant<Bits<32>>,
    state: DFF<Bits<32>>,
    running: DFF<Bit>,
    s1: Signal<Local, Bits<32>>,
    s2: Signal<Local, Bits<32>>,
    idx: Signal<Local, Bits<32>>,
}

impl EventSource {
    /// A source starting from `seed` (non-zero) after reset.
    pub fn new(seed: u32) -> Result<Self, String> {
        if seed == 0 {
            return Err(
                "event source: seed must be non-zero (an all-zero xorshift state never changes)"
                    .into(),
            );
        }
        Ok(EventSource {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            valid: Default::default(),
            a: Default::default(),
            b: Default::default(),
            seed: Constant::new((seed as u64).to_bits()),
            hot_a: Constant::new((HOT_A as u64).to_bits()),
            hot_b: Constant::new((HOT_B as u64).to_bits()),
            nibble: Constant::new(15u64.to_bits()),
            state: Default::default(),
            running: Default::default(),
            s1: Default::default(),
            s2: Default::default(),
            idx: Default::default(),
        })
    }
}

/// The Verilog of an event source (module `top`).
pub fn verilog(seed: u32) -> Result<String, String> {
    let mut uut = EventSource::new(seed)?;
    uut.connect_all();
    Ok(generate_verilog(&uut))
}

impl Logic for EventSource {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, running);
        // xorshift32 (13, 17, 5); the shift amounts are those of XORSHIFT.
        self.s1.next = self.state.q.val() ^ (self.state.q.val() << 13);
        self.s2.next = self.s1.val() ^ (self.s1.val() >> 17);
        self.valid.next = self.running.q.val();
        self.idx.next = self.state.q.val() & (self.state.q.val() >> 4) & self.nibble.val();
        if (self.state.q.val() >> 29).any() {
            self.a.next = self.hot_a.val() | self.idx.val();
            self.b.next = self.hot_b.val() | (self.idx.val() << 4);
        } else {
            self.a.next = self.state.q.val();
            self.b.next = (self.state.q.val() << 16) | (self.state.q.val() >> 16);
        }
        if self.running.q.val() & self.ready.val() {
            self.state.d.next = self.s2.val() ^ (self.s2.val() << 5);
        }
        if self.reset.val() {
            self.state.d.next = self.seed.val();
            self.running.d.next = false;
        } else {
            self.running.d.next = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift32_reference_and_skew() {
        // Marsaglia's xorshift32 from 2463534242 gives 723471715 first.
        assert_eq!(next_state(2463534242), 723471715);
        let mut s = DEFAULT_SEED;
        let mut hot0 = 0;
        let n = 100_000;
        for _ in 0..n {
            s = next_state(s);
            if tuple_of(s) == (HOT_A, HOT_B) {
                hot0 += 1;
            }
        }
        // P(hot, idx 0) = 7/8 · (3/4)^4 ≈ 0.277
        let f = hot0 as f64 / n as f64;
        assert!((0.26..0.29).contains(&f), "{f}");
        assert!(EventSource::new(0).is_err());
    }
}
