//! Report line formatter for the board tops: turns the profiler's report stream (one word per
//! reported entry, `last` on the interval's final word, an empty report being one word with
//! count 0) into ASCII lines for the UART. The model is `hwprof_sim::model::board::report_format`.
//!
//! **Line format** (lowercase hex, fixed width, CR LF; what a terminal shows):
//! - one line per reported entry: `IIIIIIII AAAA.. BBBB.. CCCCCCCC` — interval number (8 digits,
//!   wraps at 2^32), a and b (ceil(a_bits/4) and ceil(b_bits/4) digits), count (8 digits);
//! - after an interval's last word: `IIIIIIII end`.
//!
//! E.g. an interval 0x2a reporting two tuples:
//! ```text
//! 0000002a 00401000 7fee0000 00000b3c
//! 0000002a 00401001 7fee0010 0000039a
//! 0000002a end
//! ```

use rust_hdl::prelude::*;

/// Hex digits of the interval number and of the count.
pub const WORD_DIGITS: u64 = 8;

/// Digits printed for a key of `bits` bits.
pub fn key_digits(bits: u32) -> u64 {
    (bits as u64).div_ceil(4)
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum FormatState {
    Idle,
    /// Sending the entry line.
    Entry,
    /// Sending the `end` line.
    End,
}

/// The formatter. Synchronous active-high reset.
#[derive(LogicBlock)]
pub struct ReportFormat {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Report word in (the profiler's `out_*` stream).
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_interval: Signal<In, Bits<32>>,
    pub in_a: Signal<In, Bits<64>>,
    pub in_b: Signal<In, Bits<64>>,
    pub in_count: Signal<In, Bits<32>>,
    pub in_last: Signal<In, Bit>,
    /// Characters out (to the UART).
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_data: Signal<Out, Bits<8>>,
    state: DFF<FormatState>,
    /// Character position in the current line.
    pos: DFF<Bits<8>>,
    /// Nibble shift registers (next digit in the top nibble) and the interval for the end line.
    iv: DFF<Bits<32>>,
    iv_keep: DFF<Bits<32>>,
    ka: DFF<Bits<64>>,
    kb: DFF<Bits<64>>,
    cnt: DFF<Bits<32>>,
    last: DFF<Bit>,
    /// The output register: the character computed from `pos` leaves from flip-flops, so the
    /// field selection and the hex digit's adder are not in the UART's load path.
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<8>>,
    /// Line layout: first position of each field (constants from the key widths).
    p_a: Constant<Bits<8>>,
    p_sp2: Constant<Bits<8>>,
    p_b: Constant<Bits<8>>,
    p_sp3: Constant<Bits<8>>,
    p_c: Constant<Bits<8>>,
    p_cr: Constant<Bits<8>>,
    p_lf: Constant<Bits<8>>,
    /// Left shifts that put the first printed digit of a / b in the top nibble.
    a_align: Constant<Bits<8>>,
    b_align: Constant<Bits<8>>,
    nibble: Signal<Local, Bits<4>>,
    digit: Signal<Local, Bits<8>>,
    is_digit: Signal<Local, Bit>,
    /// The character at `pos`.
    ch: Signal<Local, Bits<8>>,
    /// The character at `pos` goes into the output register this clock.
    take: Signal<Local, Bit>,
}

impl ReportFormat {
    /// A formatter printing `a_bits` / `b_bits` wide keys (1..=64).
    pub fn new(a_bits: u32, b_bits: u32) -> Result<Self, String> {
        for (n, b) in [("a_bits", a_bits), ("b_bits", b_bits)] {
            if !(1..=64).contains(&b) {
                return Err(format!("report format: {n} must be in 1..=64, got {b}"));
            }
        }
        let (ad, bd) = (key_digits(a_bits), key_digits(b_bits));
        let c = |v: u64| Constant::new(v.to_bits());
        let p_a = WORD_DIGITS + 1;
        let p_b = p_a + ad + 1;
        let p_c = p_b + bd + 1;
        Ok(ReportFormat {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            in_interval: Default::default(),
            in_a: Default::default(),
            in_b: Default::default(),
            in_count: Default::default(),
            in_last: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_data: Default::default(),
            state: Default::default(),
            pos: Default::default(),
            iv: Default::default(),
            iv_keep: Default::default(),
            ka: Default::default(),
            kb: Default::default(),
            cnt: Default::default(),
            last: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            p_a: c(p_a),
            p_sp2: c(p_a + ad),
            p_b: c(p_b),
            p_sp3: c(p_b + bd),
            p_c: c(p_c),
            p_cr: c(p_c + WORD_DIGITS),
            p_lf: c(p_c + WORD_DIGITS + 1),
            a_align: c(64 - 4 * ad),
            b_align: c(64 - 4 * bd),
            nibble: Default::default(),
            digit: Default::default(),
            is_digit: Default::default(),
            ch: Default::default(),
            take: Default::default(),
        })
    }
}

/// The Verilog of a formatter (module `top`).
pub fn verilog(a_bits: u32, b_bits: u32) -> Result<String, String> {
    let mut uut = ReportFormat::new(a_bits, b_bits)?;
    uut.connect_all();
    Ok(generate_verilog(&uut))
}

impl Logic for ReportFormat {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, pos, iv, iv_keep, ka, kb, cnt, last, o_valid, o_data);
        self.in_ready.next = self.state.q.val() == FormatState::Idle;
        self.out_valid.next = self.o_valid.q.val();
        self.out_data.next = self.o_data.q.val();
        self.take.next = (self.state.q.val() != FormatState::Idle)
            & (!self.o_valid.q.val() | self.out_ready.val());
        if self.out_ready.val() {
            self.o_valid.d.next = false;
        }
        // Which field the position is in, and its next nibble.
        self.nibble.next = self.iv.q.val().get_bits::<4>(28);
        self.is_digit.next = self.pos.q.val() < 8;
        if self.state.q.val() == FormatState::Entry {
            if (self.pos.q.val() >= self.p_a.val()) & (self.pos.q.val() < self.p_sp2.val()) {
                self.nibble.next = self.ka.q.val().get_bits::<4>(60);
                self.is_digit.next = true;
            }
            if (self.pos.q.val() >= self.p_b.val()) & (self.pos.q.val() < self.p_sp3.val()) {
                self.nibble.next = self.kb.q.val().get_bits::<4>(60);
                self.is_digit.next = true;
            }
            if (self.pos.q.val() >= self.p_c.val()) & (self.pos.q.val() < self.p_cr.val()) {
                self.nibble.next = self.cnt.q.val().get_bits::<4>(28);
                self.is_digit.next = true;
            }
        }
        if self.nibble.val() < 10 {
            self.digit.next = bit_cast::<8, 4>(self.nibble.val()) + 48;
        } else {
            self.digit.next = bit_cast::<8, 4>(self.nibble.val()) + 87;
        }
        // Characters that are not digits.
        self.ch.next = 32.into();
        if self.is_digit.val() {
            self.ch.next = self.digit.val();
        } else if self.state.q.val() == FormatState::Entry {
            if self.pos.q.val() == self.p_cr.val() {
                self.ch.next = 13.into();
            }
            if self.pos.q.val() == self.p_lf.val() {
                self.ch.next = 10.into();
            }
        } else {
            // End line: "IIIIIIII end\r\n"
            if self.pos.q.val() == 9 {
                self.ch.next = 101.into();
            }
            if self.pos.q.val() == 10 {
                self.ch.next = 110.into();
            }
            if self.pos.q.val() == 11 {
                self.ch.next = 100.into();
            }
            if self.pos.q.val() == 12 {
                self.ch.next = 13.into();
            }
            if self.pos.q.val() == 13 {
                self.ch.next = 10.into();
            }
        }
        if self.take.val() {
            self.o_valid.d.next = true;
            self.o_data.d.next = self.ch.val();
        }
        match self.state.q.val() {
            FormatState::Idle => {
                if self.in_valid.val() {
                    self.iv.d.next = self.in_interval.val();
                    self.iv_keep.d.next = self.in_interval.val();
                    self.ka.d.next = self.in_a.val() << self.a_align.val();
                    self.kb.d.next = self.in_b.val() << self.b_align.val();
                    self.cnt.d.next = self.in_count.val();
                    self.last.d.next = self.in_last.val();
                    self.pos.d.next = 0.into();
                    if self.in_last.val() & (self.in_count.val() == 0) {
                        self.state.d.next = FormatState::End;
                    } else {
                        self.state.d.next = FormatState::Entry;
                    }
                }
            }
            FormatState::Entry => {
                if self.take.val() {
                    self.pos.d.next = self.pos.q.val() + 1;
                    if self.pos.q.val() < 8 {
                        self.iv.d.next = self.iv.q.val() << 4;
                    }
                    if (self.pos.q.val() >= self.p_a.val()) & (self.pos.q.val() < self.p_sp2.val())
                    {
                        self.ka.d.next = self.ka.q.val() << 4;
                    }
                    if (self.pos.q.val() >= self.p_b.val()) & (self.pos.q.val() < self.p_sp3.val())
                    {
                        self.kb.d.next = self.kb.q.val() << 4;
                    }
                    if (self.pos.q.val() >= self.p_c.val()) & (self.pos.q.val() < self.p_cr.val()) {
                        self.cnt.d.next = self.cnt.q.val() << 4;
                    }
                    if self.pos.q.val() == self.p_lf.val() {
                        self.pos.d.next = 0.into();
                        self.iv.d.next = self.iv_keep.q.val();
                        if self.last.q.val() {
                            self.state.d.next = FormatState::End;
                        } else {
                            self.state.d.next = FormatState::Idle;
                        }
                    }
                }
            }
            FormatState::End => {
                if self.take.val() {
                    self.pos.d.next = self.pos.q.val() + 1;
                    if self.pos.q.val() < 8 {
                        self.iv.d.next = self.iv.q.val() << 4;
                    }
                    if self.pos.q.val() == 13 {
                        self.state.d.next = FormatState::Idle;
                    }
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = FormatState::Idle;
            self.o_valid.d.next = false;
        }
    }
}
