//! [`TableRam`]: a table of any depth and stored width in one FPGA block RAM per slice, one read
//! and one write per clock, old data on a same-cycle read and write of one address (like
//! rust-hdl's `RAM`). Its size is chosen at construction, not by a const generic: the blocks'
//! shapes are run-time data, only the width of the data word is a type.
//!
//! **Read latency**: one clock (the read register every block RAM has), or two with the *output
//! register* ([`TableRam::with_output_register`]): the word passes a second register at the RAM's
//! output. On the ECP5 that register is the DP16KD's own (`REGMODE = "OUTREG"`), which takes the
//! block RAM's long clock-to-out off the path that follows; neither Yosys 0.23 nor 0.70 infers it,
//! so the exported Verilog instantiates DP16KD primitives when the macro [`ECP5_DEFINE`] is
//! defined (`hwprof synth` defines it for ECP5 targets) and describes the same behaviour for any
//! other tool. Elsewhere (iCE40, simulators) the second register is an ordinary flip-flop stage.
//!
//! **Forwarded tables** ([`TableRam::forwarded`]): a user that replaces every word read in the
//! clock of a write to the same address (by forwarding the written word) does not need the old
//! data there. The exported memory is then marked `(* no_rw_check *)`, so that Yosys drops the
//! logic it otherwise wraps around a block RAM to give old data on such a read (a comparator and
//! a multiplexer on every read bit, between the RAM and what it feeds). In simulation such a read
//! returns the old word with every stored bit inverted, so a co-simulation fails if any of them
//! is used.

use crate::util::u64_bits;
use rust_hdl::prelude::*;

/// Address width of every table port: up to 2^20 words (`config::MAX_ENTRIES`). Bits above a
/// table's own address width are constant zero (synthesis removes them).
pub const ADDRESS_BITS: usize = 20;

/// The Verilog macro under which a table with the output register instantiates ECP5 DP16KD
/// block RAMs (`yosys read_verilog -DHWPROF_ECP5`).
pub const ECP5_DEFINE: &str = "HWPROF_ECP5";

/// Words of one DP16KD at 18 bits per word (its widest true-dual-port shape).
const DP16KD_WORDS: usize = 1024;
const DP16KD_WIDTH: usize = 18;

/// Bit `i` of the write-data port of a `DW`-bit table (the port itself when it is one bit).
fn data_bit_of<const DW: usize>(i: usize) -> String {
    match DW {
        1 => "write_data".to_string(),
        _ => format!("write_data[{i}]"),
    }
}

/// log2 of the smallest power of two >= n (0 for n <= 1): the address bits of n words.
pub fn address_bits(n: usize) -> usize {
    n.next_power_of_two().trailing_zeros() as usize
}

/// Shapes (words, bits per word) of one iCE40 EBR (4 Kbit) and of one ECP5 DP16KD with one read
/// and one write port (18 Kbit), as Yosys maps a table onto them.
const ICE40_SHAPES: [(usize, usize); 4] = [(256, 16), (512, 8), (1024, 4), (2048, 2)];
const ECP5_SHAPES: [(usize, usize); 6] = [
    (512, 36),
    (1024, 18),
    (2048, 9),
    (4096, 4),
    (8192, 2),
    (16384, 1),
];

/// Block RAMs of a table of `depth` × `width` in the cheapest of `shapes`.
fn blocks(shapes: &[(usize, usize)], depth: usize, width: usize) -> usize {
    shapes
        .iter()
        .map(|&(d, w)| depth.div_ceil(d) * width.div_ceil(w))
        .min()
        .expect("a shape")
}

/// Whether a table of `depth` × `width` can store one more bit per word in the same number of
/// block RAMs on both the iCE40 and the ECP5 (a spare bit of the words the RAMs have anyway).
pub fn has_spare_bit(depth: usize, width: usize) -> bool {
    [&ICE40_SHAPES[..], &ECP5_SHAPES[..]]
        .iter()
        .all(|s| blocks(s, depth, width + 1) == blocks(s, depth, width))
}

/// A table of `depth` words of `width` <= DW bits in block RAM. Ports as rust-hdl's `RAM`, data
/// words DW bits wide: writes keep the low `width` bits, reads return them zero-extended, so the
/// RAM stores only the bits a configuration can use.
#[derive(LogicBlock)]
pub struct TableRam<const DW: usize> {
    pub read_address: Signal<In, Bits<ADDRESS_BITS>>,
    pub read_clock: Signal<In, Clock>,
    pub read_data: Signal<Out, Bits<DW>>,
    pub write_address: Signal<In, Bits<ADDRESS_BITS>>,
    pub write_clock: Signal<In, Clock>,
    pub write_data: Signal<In, Bits<DW>>,
    pub write_enable: Signal<In, Bit>,
    _width: usize,
    _mask: Bits<DW>,
    _mem: Vec<Bits<DW>>,
    /// With the output register: the word read at the last clock edge, shown after the next.
    _output_register: bool,
    _stage: Bits<DW>,
    /// See "Forwarded tables" in the module documentation.
    _forwarded: bool,
}

impl<const DW: usize> TableRam<DW> {
    /// One clock of read latency.
    pub fn new(depth: usize, width: usize) -> Self {
        assert!(
            (1..=1 << ADDRESS_BITS).contains(&depth) && (1..=DW).contains(&width),
            "table RAM of {depth} words of {width} <= {DW} bits"
        );
        let mut mask = Bits::<DW>::default();
        for i in 0..width {
            mask = mask.replace_bit(i, true);
        }
        TableRam {
            read_address: Default::default(),
            read_clock: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_clock: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _width: width,
            _mask: mask,
            _mem: vec![Bits::default(); depth],
            _output_register: false,
            _stage: Bits::default(),
            _forwarded: false,
        }
    }

    /// The same table, for a user that forwards every write to a word read in the same clock
    /// (see the module documentation).
    pub fn forwarded(self) -> Self {
        TableRam {
            _forwarded: true,
            ..self
        }
    }

    /// Two clocks of read latency: the output register (see the module documentation). Both
    /// ports must be on one clock.
    pub fn with_output_register(depth: usize, width: usize) -> Self {
        TableRam {
            _output_register: true,
            ..Self::new(depth, width)
        }
    }

    /// The DP16KD instances of a table with the output register: ⌈width / 18⌉ blocks side by
    /// side, port A writes, port B reads through its output register; `None` when the table is
    /// deeper than one DP16KD (then the behavioural description is used on the ECP5 as well).
    fn dp16kd(&self) -> Option<String> {
        let (depth, w) = (self._mem.len(), self._width);
        if depth > DP16KD_WORDS {
            return None;
        }
        let ab = address_bits(depth);
        let slices = w.div_ceil(DP16KD_WIDTH);
        let data_bit = data_bit_of::<DW>;
        let mut v = format!("wire [{}:0] dob;\n", slices * DP16KD_WIDTH - 1);
        // Word address on AD13..AD4; AD1..AD0 are the write byte enables at 18 bits.
        let address = |port: &str, pin: &str| -> String {
            let mut s =
                format!("      .{pin}0(1'b1), .{pin}1(1'b1), .{pin}2(1'b0), .{pin}3(1'b0),\n");
            for i in 0..10 {
                let bit = if i < ab {
                    format!("{port}[{i}]")
                } else {
                    "1'b0".to_string()
                };
                s.push_str(&format!("      .{pin}{}({bit}),\n", i + 4));
            }
            s
        };
        for k in 0..slices {
            let mut pins = String::new();
            for b in 0..DP16KD_WIDTH {
                let i = k * DP16KD_WIDTH + b;
                let din = if i < w {
                    data_bit(i)
                } else {
                    "1'b0".to_string()
                };
                pins.push_str(&format!(
                    "      .DIA{b}({din}), .DIB{b}(1'b0), .DOB{b}(dob[{i}]),\n"
                ));
            }
            v.push_str(&format!(
                "\
DP16KD #(
      .DATA_WIDTH_A(18), .DATA_WIDTH_B(18),
      .REGMODE_A(\"NOREG\"), .REGMODE_B(\"OUTREG\"),
      .RESETMODE(\"SYNC\"), .ASYNC_RESET_RELEASE(\"SYNC\"),
      .CSDECODE_A(\"0b000\"), .CSDECODE_B(\"0b000\"),
      .WRITEMODE_A(\"NORMAL\"), .WRITEMODE_B(\"NORMAL\"),
      .GSR(\"AUTO\")
   ) slice{k} (
      .CLKA(write_clock), .CEA(1'b1), .OCEA(1'b1), .WEA(write_enable), .RSTA(1'b0),
      .CSA0(1'b0), .CSA1(1'b0), .CSA2(1'b0),
{wa}      .CLKB(read_clock), .CEB(1'b1), .OCEB(1'b1), .WEB(1'b0), .RSTB(1'b0),
      .CSB0(1'b0), .CSB1(1'b0), .CSB2(1'b0),
{ra}{pins}      .DOA0()
   );
",
                wa = address("write_address", "ADA"),
                ra = address("read_address", "ADB"),
            ));
        }
        let word = if w == DW {
            format!("dob[{}:0]", w - 1)
        } else {
            format!("{{{}'d0, dob[{}:0]}}", DW - w, w - 1)
        };
        v.push_str(&format!("always @(*) begin\n   read_data = {word};\nend\n"));
        Some(v)
    }
}

impl<const DW: usize> Logic for TableRam<DW> {
    fn update(&mut self) {
        if self.read_clock.pos_edge() {
            let a = u64_bits(self.read_address.val()) as usize;
            let mut word = self._mem.get(a).copied().unwrap_or_default();
            if self._forwarded
                && self.write_clock.pos_edge()
                && self.write_enable.val()
                && u64_bits(self.write_address.val()) as usize == a
            {
                word = word ^ self._mask;
            }
            if self._output_register {
                self.read_data.next = self._stage;
                self._stage = word;
            } else {
                self.read_data.next = word;
            }
        }
        if self.write_clock.pos_edge() && self.write_enable.val() {
            let a = u64_bits(self.write_address.val()) as usize;
            if let Some(w) = self._mem.get_mut(a) {
                *w = self.write_data.val() & self._mask;
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let (depth, w) = (self._mem.len(), self._width);
        let ab = address_bits(depth);
        let addr = |port: &str| match ab {
            0 => "0".to_string(),
            _ => format!("{port}[{}:0]", ab - 1),
        };
        let word = format!("mem[{}]", addr("read_address"));
        let read = if w == DW {
            word
        } else {
            format!("{{{}'d0, {word}}}", DW - w)
        };
        // A one-bit port is a scalar in Verilog: no part select.
        let data = match DW {
            1 => "write_data".to_string(),
            _ => format!("write_data[{}:0]", w - 1),
        };
        let write = format!(
            "\
always @(posedge write_clock) begin
   if (write_enable) begin
      mem[{wa}] <= {data};
   end
end
",
            wa = addr("write_address"),
        );
        let attribute = match self._forwarded {
            true => "(* no_rw_check *)\n",
            false => "",
        };
        let memory = format!("{attribute}reg [{}:0] mem [0:{}];\n", w - 1, depth - 1);
        if !self._output_register {
            return Verilog::Custom(format!(
                "{memory}\nalways @(posedge read_clock) begin\n   read_data <= {read};\nend\n\n{write}"
            ));
        }
        let behaviour = format!(
            "\
{memory}reg [{hi}:0] stage;

always @(posedge read_clock) begin
   stage <= {read};
   read_data <= stage;
end

{write}",
            hi = DW - 1,
        );
        Verilog::Custom(match self.dp16kd() {
            Some(prim) => format!("`ifdef {ECP5_DEFINE}\n{prim}`else\n{behaviour}`endif\n"),
            None => behaviour,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spare_bit_is_one_the_block_rams_have_anyway() {
        // 512 x 14: two 512 x 8 EBRs (16 bits), one 512 x 36 DP16KD.
        assert!(has_spare_bit(512, 14) && has_spare_bit(512, 15));
        // 512 x 16: a 17th bit takes a third EBR.
        assert!(!has_spare_bit(512, 16));
        // 1024 x 18 fills a DP16KD; 2048 x 14 takes seven 2048 x 2 EBRs, a 15th bit an eighth.
        assert!(!has_spare_bit(1024, 18));
        assert!(!has_spare_bit(2048, 14) && has_spare_bit(2048, 15) && !has_spare_bit(2048, 16));
        assert!(has_spare_bit(16, 4));
    }

    #[test]
    fn table_ram_verilog_stores_only_the_configured_width() {
        let mut r = TableRam::<24>::new(512, 13);
        r.connect_all();
        let v = generate_verilog(&r);
        assert!(v.contains("reg [12:0] mem [0:511]"), "{v}");
        assert!(v.contains("{11'd0, mem[read_address[8:0]]}"), "{v}");
        assert!(!v.contains("DP16KD"), "{v}");
    }

    #[test]
    fn the_output_register_is_a_dp16kd_outreg_on_the_ecp5_and_a_stage_elsewhere() {
        let mut r = TableRam::<24>::with_output_register(256, 20);
        r.connect_all();
        let v = generate_verilog(&r);
        assert_eq!(v.matches("DP16KD #(").count(), 2, "two 18-bit slices: {v}");
        assert!(v.contains(".REGMODE_B(\"OUTREG\")"), "{v}");
        assert!(v.contains(&format!("`ifdef {ECP5_DEFINE}")), "{v}");
        assert!(v.contains("stage <= {4'd0, mem[read_address[7:0]]}"), "{v}");
        assert!(v.contains("read_data <= stage"), "{v}");
        // Word bits 20..35 (the second slice's DIA2..DIA17) carry zeros; address bits above 8
        // are zero.
        assert!(
            v.contains(".DIA1(write_data[19])") && v.contains(".DIA2(1'b0)"),
            "{v}"
        );
        assert!(
            v.contains(".ADA11(write_address[7])") && v.contains(".ADB12(1'b0)"),
            "{v}"
        );
        // Deeper than one DP16KD: the behaviour alone.
        let mut deep = TableRam::<8>::with_output_register(2048, 8);
        deep.connect_all();
        assert!(!generate_verilog(&deep).contains("DP16KD"));
    }

    /// One clock edge (both ports on one clock), settled.
    fn clock(r: &mut TableRam<8>) {
        for level in [true, false] {
            r.read_clock.next = Clock { clk: level };
            r.write_clock.next = Clock { clk: level };
            r.update_all();
            r.update_all();
        }
    }

    /// The simulated latency: a word written is read back one clock after the read with the read
    /// register alone, two with the output register; a read in the cycle of the write sees the
    /// old word.
    #[test]
    fn read_latency_is_one_or_two_clocks() {
        for (outreg, latency) in [(false, 1usize), (true, 2)] {
            let mut r = if outreg {
                TableRam::<8>::with_output_register(16, 8)
            } else {
                TableRam::<8>::new(16, 8)
            };
            r.connect_all();
            r.write_address.next = 3.into();
            r.write_data.next = 0x5a.into();
            r.write_enable.next = true;
            r.read_address.next = 3.into();
            clock(&mut r);
            r.write_enable.next = false;
            let mut seen = vec![u64_bits(r.read_data.val())];
            for _ in 0..3 {
                clock(&mut r);
                seen.push(u64_bits(r.read_data.val()));
            }
            // seen[0]: the read in the write's cycle (old data); the first read after it shows
            // after `latency` clocks.
            let first = seen.iter().position(|&x| x == 0x5a).unwrap();
            assert_eq!(first, latency, "output register {outreg}: {seen:?}");
            assert_eq!(seen[0], 0);
        }
    }

    /// A forwarded table: a read in the cycle of a write to its address returns the old word
    /// inverted (a user must not take it), any other read the word; the memory is exported with
    /// `no_rw_check`, a plain one without.
    #[test]
    fn a_forwarded_table_poisons_reads_that_meet_a_write() {
        let mut r = TableRam::<8>::new(16, 6).forwarded();
        r.connect_all();
        let v = generate_verilog(&r);
        let at = v.find("(* no_rw_check *)").expect("the attribute");
        assert!(
            v[at + "(* no_rw_check *)".len()..]
                .trim_start()
                .starts_with("reg [5:0] mem [0:15];"),
            "{v}"
        );
        let mut plain = TableRam::<8>::new(16, 6);
        plain.connect_all();
        assert!(!generate_verilog(&plain).contains("no_rw_check"));
        let step = |r: &mut TableRam<8>, write: Option<(u64, u64)>, read: u64| {
            r.write_enable.next = write.is_some();
            let (wa, wd) = write.unwrap_or_default();
            r.write_address.next = wa.into();
            r.write_data.next = wd.into();
            r.read_address.next = read.into();
            clock(r);
            u64_bits(r.read_data.val())
        };
        assert_eq!(step(&mut r, Some((3, 0x15)), 4), 0);
        assert_eq!(step(&mut r, None, 3), 0x15);
        // The read of word 3 meets the write of 0x0f there: 0x15 inverted in 6 bits.
        assert_eq!(step(&mut r, Some((3, 0x0f)), 3), 0x2a);
        assert_eq!(step(&mut r, Some((3, 0x01)), 3), 0x30);
        assert_eq!(
            step(&mut r, Some((5, 0x07)), 3),
            0x01,
            "another address: the word"
        );
    }
}
