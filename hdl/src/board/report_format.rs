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
    /// The output register: the character leaves from flip-flops, so the field selection and
    /// the hex digit are not in the UART's load path.
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<8>>,
    /// What the character at `pos` is, registered when `pos` moves (from the position before
    /// it), so that the character is a select among flip-flops and a 4-input table, not a chain
    /// of position compares: a digit of the interval, of a, of b or of the count (at most one),
    /// else the `fixed` character; and whether it ends the line.
    f_iv: DFF<Bit>,
    f_a: DFF<Bit>,
    f_b: DFF<Bit>,
    f_c: DFF<Bit>,
    fixed: DFF<Bits<8>>,
    f_lf: DFF<Bit>,
    /// Line layout: the position just before each field's first (so that the flags of the
    /// next position are compared on the current one); constants from the key widths.
    before_a: Constant<Bits<8>>,
    before_sp2: Constant<Bits<8>>,
    before_b: Constant<Bits<8>>,
    before_sp3: Constant<Bits<8>>,
    before_c: Constant<Bits<8>>,
    before_cr: Constant<Bits<8>>,
    before_lf: Constant<Bits<8>>,
    /// Left shifts that put the first printed digit of a / b in the top nibble.
    a_align: Constant<Bits<8>>,
    b_align: Constant<Bits<8>>,
    /// The 16 lowercase hex digits' ASCII codes, digit i in bits 8i .. 8i+7.
    hex: Constant<Bits<128>>,
    nibble: Signal<Local, Bits<4>>,
    /// The nibble's first bit in `hex`.
    digit_at: Signal<Local, Bits<7>>,
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
            f_iv: Default::default(),
            f_a: Default::default(),
            f_b: Default::default(),
            f_c: Default::default(),
            fixed: Default::default(),
            f_lf: Default::default(),
            before_a: c(p_a - 1),
            before_sp2: c(p_a + ad - 1),
            before_b: c(p_b - 1),
            before_sp3: c(p_b + bd - 1),
            before_c: c(p_c - 1),
            before_cr: c(p_c + WORD_DIGITS - 1),
            before_lf: c(p_c + WORD_DIGITS),
            a_align: c(64 - 4 * ad),
            b_align: c(64 - 4 * bd),
            hex: Constant::new({
                let mut t = Bits::<128>::default();
                for (i, ch) in b"0123456789abcdef".iter().enumerate() {
                    t.set_bits::<8>(8 * i, (*ch as u64).to_bits());
                }
                t
            }),
            nibble: Default::default(),
            digit_at: Default::default(),
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
        dff_setup!(
            self, clock, state, pos, iv, iv_keep, ka, kb, cnt, last, o_valid, o_data, f_iv, f_a,
            f_b, f_c, fixed, f_lf
        );
        self.in_ready.next = self.state.q.val() == FormatState::Idle;
        self.out_valid.next = self.o_valid.q.val();
        self.out_data.next = self.o_data.q.val();
        self.take.next = (self.state.q.val() != FormatState::Idle)
            & (!self.o_valid.q.val() | self.out_ready.val());
        if self.out_ready.val() {
            self.o_valid.d.next = false;
        }
        // The character at `pos`, from the registered flags.
        self.nibble.next = self.iv.q.val().get_bits::<4>(28);
        if self.f_a.q.val() {
            self.nibble.next = self.ka.q.val().get_bits::<4>(60);
        }
        if self.f_b.q.val() {
            self.nibble.next = self.kb.q.val().get_bits::<4>(60);
        }
        if self.f_c.q.val() {
            self.nibble.next = self.cnt.q.val().get_bits::<4>(28);
        }
        self.digit_at.next = bit_cast::<7, 4>(self.nibble.val()) << 3;
        self.digit.next = self.hex.val().get_bits::<8>(self.digit_at.val().index());
        self.is_digit.next =
            self.f_iv.q.val() | self.f_a.q.val() | self.f_b.q.val() | self.f_c.q.val();
        self.ch.next = self.fixed.q.val();
        if self.is_digit.val() {
            self.ch.next = self.digit.val();
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
                    if self.f_iv.q.val() {
                        self.iv.d.next = self.iv.q.val() << 4;
                    }
                    if self.f_a.q.val() {
                        self.ka.d.next = self.ka.q.val() << 4;
                    }
                    if self.f_b.q.val() {
                        self.kb.d.next = self.kb.q.val() << 4;
                    }
                    if self.f_c.q.val() {
                        self.cnt.d.next = self.cnt.q.val() << 4;
                    }
                    if self.f_lf.q.val() {
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
                    if self.f_iv.q.val() {
                        self.iv.d.next = self.iv.q.val() << 4;
                    }
                    if self.f_lf.q.val() {
                        self.state.d.next = FormatState::Idle;
                    }
                }
            }
        }
        // The flags of the next position: `pos + 1` when the character is taken, compared on
        // `pos` against the positions before the fields; position 0 (an interval digit) when a
        // line starts.
        if self.take.val() {
            self.f_iv.d.next = self.pos.q.val() < 7;
            self.f_a.d.next = false;
            self.f_b.d.next = false;
            self.f_c.d.next = false;
            self.fixed.d.next = 32.into();
            self.f_lf.d.next = false;
            if self.state.q.val() == FormatState::Entry {
                self.f_a.d.next = (self.pos.q.val() >= self.before_a.val())
                    & (self.pos.q.val() < self.before_sp2.val());
                self.f_b.d.next = (self.pos.q.val() >= self.before_b.val())
                    & (self.pos.q.val() < self.before_sp3.val());
                self.f_c.d.next = (self.pos.q.val() >= self.before_c.val())
                    & (self.pos.q.val() < self.before_cr.val());
                if self.pos.q.val() == self.before_cr.val() {
                    self.fixed.d.next = 13.into();
                }
                if self.pos.q.val() == self.before_lf.val() {
                    self.fixed.d.next = 10.into();
                    self.f_lf.d.next = true;
                }
            } else {
                // `IIIIIIII end` CR LF.
                if self.pos.q.val() == 8 {
                    self.fixed.d.next = 101.into();
                }
                if self.pos.q.val() == 9 {
                    self.fixed.d.next = 110.into();
                }
                if self.pos.q.val() == 10 {
                    self.fixed.d.next = 100.into();
                }
                if self.pos.q.val() == 11 {
                    self.fixed.d.next = 13.into();
                }
                if self.pos.q.val() == 12 {
                    self.fixed.d.next = 10.into();
                    self.f_lf.d.next = true;
                }
            }
        }
        if (self.take.val() & self.f_lf.q.val())
            | ((self.state.q.val() == FormatState::Idle) & self.in_valid.val())
        {
            self.f_iv.d.next = true;
            self.f_a.d.next = false;
            self.f_b.d.next = false;
            self.f_c.d.next = false;
            self.fixed.d.next = 32.into();
            self.f_lf.d.next = false;
        }
        if self.reset.val() {
            self.state.d.next = FormatState::Idle;
            self.o_valid.d.next = false;
        }
    }
}
