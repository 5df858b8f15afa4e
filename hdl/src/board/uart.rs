//! UART transmitter, 8N1 (one start bit, eight data bits LSB first, one stop bit), for the board
//! tops' report line. Its cycle-exact model and a line decoder are `hwprof_sim::model::board::uart`.
//!
//! Timing: a byte taken in cycle c (`valid & ready`) drives the start bit from cycle c+1; each of
//! the ten bits lasts `clocks_per_bit` cycles; `ready` is high again in cycle c+1+10·clocks_per_bit.
//! `tx` is a flip-flop output (idle high), so the line has no glitches.

use rust_hdl::prelude::*;

/// The widest bit period, in clocks (16-bit divider).
pub const MAX_CLOCKS_PER_BIT: u64 = 65535;
/// Largest accepted baud-rate error of the integer divider, in percent (8N1 tolerates about 4 %).
pub const MAX_BAUD_ERROR_PERCENT: f64 = 2.0;
/// The frame of one byte: start bit, 8 data bits, stop bit.
pub const FRAME_BITS: u64 = 10;

/// Clocks per bit for `baud` at `clock_hz`, rounded; rejects dividers out of range or too coarse.
pub fn clocks_per_bit(clock_hz: u64, baud: u64) -> Result<u64, String> {
    if baud == 0 || clock_hz == 0 {
        return Err(format!(
            "UART: clock {clock_hz} Hz and baud {baud} must both be positive"
        ));
    }
    let cpb = (clock_hz + baud / 2) / baud;
    if !(2..=MAX_CLOCKS_PER_BIT).contains(&cpb) {
        return Err(format!(
            "UART: {clock_hz} Hz / {baud} baud = {cpb} clocks per bit, must be in 2..={MAX_CLOCKS_PER_BIT}"
        ));
    }
    let actual = clock_hz as f64 / cpb as f64;
    let error = 100.0 * (actual - baud as f64).abs() / baud as f64;
    if error > MAX_BAUD_ERROR_PERCENT {
        return Err(format!(
            "UART: {clock_hz} Hz / {cpb} = {actual:.0} baud, {error:.1} % off {baud} (limit {MAX_BAUD_ERROR_PERCENT} %)"
        ));
    }
    Ok(cpb)
}

/// The transmitter. Synchronous active-high reset.
#[derive(LogicBlock)]
pub struct UartTx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The byte to send, taken when `valid & ready`.
    pub data: Signal<In, Bits<8>>,
    pub valid: Signal<In, Bit>,
    /// High when idle: a byte offered with `valid` is taken this cycle.
    pub ready: Signal<Out, Bit>,
    /// The serial line, idle high.
    pub tx: Signal<Out, Bit>,
    /// The bit period minus one, in clocks.
    period_m1: Constant<Bits<16>>,
    /// Stop bit (and idle level) shifted in from the top.
    stop_fill: Constant<Bits<10>>,
    idle_frame: Constant<Bits<10>>,
    /// The frame being sent, LSB on the line.
    shift: DFF<Bits<10>>,
    /// Bits of the frame still to send (0 = idle).
    bits_left: DFF<Bits<4>>,
    /// Clocks left in the current bit.
    tick: DFF<Bits<16>>,
}

impl UartTx {
    /// A transmitter with a bit period of `clocks_per_bit` clocks (see [`clocks_per_bit`]).
    pub fn new(clocks_per_bit: u64) -> Result<Self, String> {
        if !(2..=MAX_CLOCKS_PER_BIT).contains(&clocks_per_bit) {
            return Err(format!(
                "UART: clocks per bit must be in 2..={MAX_CLOCKS_PER_BIT}, got {clocks_per_bit}"
            ));
        }
        Ok(UartTx {
            clock: Default::default(),
            reset: Default::default(),
            data: Default::default(),
            valid: Default::default(),
            ready: Default::default(),
            tx: Default::default(),
            period_m1: Constant::new((clocks_per_bit - 1).to_bits()),
            stop_fill: Constant::new(0x200u64.to_bits()),
            idle_frame: Constant::new(0x3ffu64.to_bits()),
            shift: DFF::default(),
            bits_left: DFF::default(),
            tick: DFF::default(),
        })
    }
}

/// The Verilog of a transmitter (module `top`).
pub fn verilog(clocks_per_bit: u64) -> Result<String, String> {
    let mut uut = UartTx::new(clocks_per_bit)?;
    uut.connect_all();
    Ok(generate_verilog(&uut))
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, shift, bits_left, tick);
        self.ready.next = self.bits_left.q.val() == 0;
        self.tx.next = self.shift.q.val().get_bit(0);
        if self.bits_left.q.val() == 0 {
            if self.valid.val() {
                // start bit 0 in bit 0, data in bits 8..1, stop bit 1 in bit 9
                self.shift.d.next =
                    (bit_cast::<10, 8>(self.data.val()) << 1) | self.stop_fill.val();
                self.bits_left.d.next = 10.into();
                self.tick.d.next = self.period_m1.val();
            }
        } else if self.tick.q.val() == 0 {
            self.shift.d.next = (self.shift.q.val() >> 1) | self.stop_fill.val();
            self.bits_left.d.next = self.bits_left.q.val() - 1;
            self.tick.d.next = self.period_m1.val();
        } else {
            self.tick.d.next = self.tick.q.val() - 1;
        }
        if self.reset.val() {
            self.shift.d.next = self.idle_frame.val();
            self.bits_left.d.next = 0.into();
            self.tick.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divider_rules() {
        assert_eq!(clocks_per_bit(12_000_000, 115_200), Ok(104));
        assert_eq!(clocks_per_bit(25_000_000, 115_200), Ok(217));
        assert!(clocks_per_bit(100_000, 115_200).is_err());
        assert!(clocks_per_bit(300_000, 115_200)
            .unwrap_err()
            .contains("off"));
        assert!(UartTx::new(1).is_err());
    }
}
