//! Hash unit of the multi-hash profiler (docs/SPEC.md §6): the index of every table for one tuple,
//! in one clock cycle (pure combinational logic).
//!
//! Both hash kinds are linear over GF(2) in the key bytes (see [`crate::hash`]), so each table's
//! index is realised in its **byte-linear form**: index_k = base_k xor (xor over the 16 key byte
//! positions p of `T_k,p[byte_p]`), one 256-entry ROM per position. The ROM contents are computed
//! from [`HashConstants::index`] — the definition — so the RTL reads the same R_k / Q_k,i
//! constants as the model and nothing is typed twice. For `tabulation`, T_k,p is R_k composed
//! with the fixed flip and xor-fold wiring of byte position p. Positions beyond the key widths
//! hold only zeros and are emitted as empty case statements (synthesis removes them).
//! `h3` is realised directly as xor trees over the masks Q_k,i ([`ParityHash`]), its ROMs empty.
//! [`TabulationRam`] holds the same tabulation ROMs in block RAM, registered (the configuration's
//! `hash_block_ram`).

use crate::block_ram::ADDRESS_BITS;
use crate::hash::HashConstants;
use crate::util::u64_bits;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// T_k,p[byte] of the byte-linear form: what `byte` at byte position `p` of key a (or of b with
/// `of_b`) adds to table k's index, h_k of that key alone xor h_k(0, 0). Both ROM blocks hold it.
fn position_term(h: &HashConstants, k: usize, of_b: bool, p: usize, byte: u64) -> u32 {
    let x = byte << (8 * p);
    let i = if of_b {
        h.index(k, 0, x)
    } else {
        h.index(k, x, 0)
    };
    i ^ h.index(k, 0, 0)
}

/// The index of one table: 8 ROMs over a's bytes, 8 over b's, xor-ed with a constant. Indices
/// are [`ADDRESS_BITS`] wide; bits above the table's index width are constant zero.
#[derive(LogicBlock)]
pub struct TableHash {
    /// Key a, already masked to `a_bits`.
    pub a: Signal<In, Bits<64>>,
    /// Key b, already masked to `b_bits`.
    pub b: Signal<In, Bits<64>>,
    /// h_k(a, b).
    pub index: Signal<Out, Bits<ADDRESS_BITS>>,
    rom_a: [ROM<Bits<ADDRESS_BITS>, 8>; 8],
    rom_b: [ROM<Bits<ADDRESS_BITS>, 8>; 8],
    base: Constant<Bits<ADDRESS_BITS>>,
    /// h3: the masks Q_k,i (all zero for tabulation).
    parity: ParityHash<ADDRESS_BITS>,
}

impl TableHash {
    /// Table `k` of `h`.
    pub fn new(h: &HashConstants, k: usize) -> Self {
        assert!(h.index_bits as usize <= ADDRESS_BITS, "hash index width");
        let base = h.index(k, 0, 0) as u64;
        let (h3, q) = match &h.tables[k] {
            crate::hash::TableHash::H3 { q } => (true, q.clone()),
            crate::hash::TableHash::Tabulation { .. } => (false, vec![]),
        };
        let rom = |of_a: bool, p: usize| {
            let mut m = BTreeMap::new();
            if h3 {
                return ROM::new(m);
            }
            for byte in 0..256u64 {
                let i = position_term(h, k, !of_a, p, byte) as u64;
                if i != 0 {
                    m.insert(Bits::<8>::from(byte), Bits::<ADDRESS_BITS>::from(i));
                }
            }
            ROM::new(m)
        };
        TableHash {
            a: Default::default(),
            b: Default::default(),
            index: Default::default(),
            rom_a: std::array::from_fn(|p| rom(true, p)),
            rom_b: std::array::from_fn(|p| rom(false, p)),
            base: Constant::new(Bits::<ADDRESS_BITS>::from(base)),
            parity: ParityHash::new(&q),
        }
    }
}

impl Logic for TableHash {
    #[hdl_gen]
    fn update(&mut self) {
        self.parity.a.next = self.a.val();
        self.parity.b.next = self.b.val();
        for p in 0..8 {
            self.rom_a[p].address.next = self.a.val().get_bits::<8>(p * 8);
            self.rom_b[p].address.next = self.b.val().get_bits::<8>(p * 8);
        }
        self.index.next = self.base.val()
            ^ self.parity.index.val()
            ^ self.rom_a[0].data.val()
            ^ self.rom_a[1].data.val()
            ^ self.rom_a[2].data.val()
            ^ self.rom_a[3].data.val()
            ^ self.rom_a[4].data.val()
            ^ self.rom_a[5].data.val()
            ^ self.rom_a[6].data.val()
            ^ self.rom_a[7].data.val()
            ^ self.rom_b[0].data.val()
            ^ self.rom_b[1].data.val()
            ^ self.rom_b[2].data.val()
            ^ self.rom_b[3].data.val()
            ^ self.rom_b[4].data.val()
            ^ self.rom_b[5].data.val()
            ^ self.rom_b[6].data.val()
            ^ self.rom_b[7].data.val();
    }
}

/// The hash unit: one index per table of `h`.
#[derive(LogicBlock)]
pub struct HashUnit {
    pub a: Signal<In, Bits<64>>,
    pub b: Signal<In, Bits<64>>,
    /// index[k] = h_k(a, b).
    pub index: Vec<Signal<Out, Bits<ADDRESS_BITS>>>,
    tables: Vec<TableHash>,
}

impl HashUnit {
    pub fn new(h: &HashConstants) -> Self {
        HashUnit {
            a: Default::default(),
            b: Default::default(),
            index: h.tables.iter().map(|_| Default::default()).collect(),
            tables: (0..h.tables.len()).map(|k| TableHash::new(h, k)).collect(),
        }
    }
}

impl Logic for HashUnit {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..self.tables.len() {
            self.tables[k].a.next = self.a.val();
            self.tables[k].b.next = self.b.val();
            self.index[k].next = self.tables[k].index.val();
        }
    }
}

/// B parity bits of the key: bit i = parity((a & Qa_i) xor (b & Qb_i)), one xor tree per bit,
/// combinational. The `h3` table indices and the set index of a set-associative accumulator
/// ([`crate::hash::SetHash`]): xor trees cost a few LUTs per bit where a ROM of the same linear
/// function would cost a mux tree per bit (synthesis does not find the linearity).
#[derive(LogicBlock)]
pub struct ParityHash<const B: usize> {
    /// Key a, already masked to `a_bits`.
    pub a: Signal<In, Bits<64>>,
    /// Key b, already masked to `b_bits`.
    pub b: Signal<In, Bits<64>>,
    pub index: Signal<Out, Bits<B>>,
    qa: [Constant<Bits<64>>; B],
    qb: [Constant<Bits<64>>; B],
    bits: crate::util::BitGather<B>,
}

impl<const B: usize> ParityHash<B> {
    /// `q[i]` = (Qa_i, Qb_i); all-zero masks, and bits i >= `q.len()`, give the constant 0.
    pub fn new(q: &[(u64, u64)]) -> Self {
        assert!(q.len() <= B, "parity masks vs RTL width");
        let q = |i: usize| q.get(i).copied().unwrap_or((0, 0));
        ParityHash {
            a: Default::default(),
            b: Default::default(),
            index: Default::default(),
            qa: std::array::from_fn(|i| Constant::new(q(i).0.into())),
            qb: std::array::from_fn(|i| Constant::new(q(i).1.into())),
            bits: Default::default(),
        }
    }
}

impl<const B: usize> Logic for ParityHash<B> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..B {
            self.bits.bits[i].next =
                ((self.a.val() & self.qa[i].val()) ^ (self.b.val() & self.qb[i].val())).xor();
        }
        self.index.next = self.bits.word.val();
    }
}

/// The table indices of a tuple with the `tabulation` hash's byte tables in block RAM (the
/// configuration's `hash_block_ram`): for each key byte position p that a key width reaches, one
/// ROM of 256 words holding T_k,p for every table k side by side (`index_bits` bits each), read
/// at that byte of the key (one block RAM read port per position, registered, then an output
/// register in flip-flops), and `index[k]` = base_k xor the k-th field of every position's word.
/// Latency where [`HashUnit`] has none, in exchange for a mux tree per index bit and byte position
/// — the tabulation hash's arbitrary byte functions, which are most of a profiler's logic.
///
/// The indices of a key are valid two clock edges after it is presented: one with `read`, a
/// later one with `load`. The ROM contents are [`HashConstants::index`] of single bytes, as in
/// [`TableHash`] ([`position_term`]). Unused (`used` false) it has no ROMs and shows the bases.
#[derive(LogicBlock)]
pub struct TabulationRam {
    pub clock: Signal<In, Clock>,
    /// The key read at the next clock edge (masked to the key widths) when `read` is high: its
    /// words go to the block RAMs' read registers.
    pub a: Signal<In, Bits<64>>,
    pub b: Signal<In, Bits<64>>,
    pub read: Signal<In, Bit>,
    /// The read registers' words move to the output registers (flip-flops) at the next clock
    /// edge: so a block RAM's slow clock-to-out meets no logic.
    pub load: Signal<In, Bit>,
    /// index[k] = h_k of the key whose words are in the output registers.
    pub index: Vec<Signal<Out, Bits<ADDRESS_BITS>>>,
    /// The byte positions read: (of b, byte number).
    _positions: Vec<(bool, usize)>,
    /// _rom[p][byte][k] = T_k,p[byte]; _base[k] = h_k(0, 0).
    _rom: Vec<Vec<Vec<u32>>>,
    _base: Vec<u32>,
    _index_bits: usize,
    /// The byte of each position in the read registers and in the output registers.
    _r: Vec<usize>,
    _q: Vec<usize>,
}

impl TabulationRam {
    pub fn new(h: &HashConstants, used: bool) -> Self {
        assert!(
            !used
                || h.tables
                    .iter()
                    .all(|t| matches!(t, crate::hash::TableHash::Tabulation { .. })),
            "the byte tables in block RAM are the tabulation hash's (the configuration checks it)"
        );
        // With one counter per table every index is 0: nothing to read.
        let used = used && h.index_bits > 0;
        let tables = h.tables.len();
        let base: Vec<u32> = (0..tables).map(|k| h.index(k, 0, 0)).collect();
        let mut positions = vec![];
        let mut rom = vec![];
        for of_b in [false, true] {
            let mask = if of_b { h.b_mask } else { h.a_mask };
            for p in 0..8 {
                if !used || (mask >> (8 * p)) & 0xff == 0 {
                    continue;
                }
                let words = (0..256u64)
                    .map(|byte| {
                        (0..tables)
                            .map(|k| position_term(h, k, of_b, p, byte))
                            .collect()
                    })
                    .collect();
                positions.push((of_b, p));
                rom.push(words);
            }
        }
        TabulationRam {
            clock: Default::default(),
            a: Default::default(),
            b: Default::default(),
            read: Default::default(),
            load: Default::default(),
            index: (0..tables).map(|_| Default::default()).collect(),
            _r: vec![0; positions.len()],
            _q: vec![0; positions.len()],
            _positions: positions,
            _rom: rom,
            _base: base,
            _index_bits: h.index_bits as usize,
        }
    }
}

impl Logic for TabulationRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.load.val() {
                self._q.clone_from(&self._r);
            }
            if self.read.val() {
                for (r, &(of_b, p)) in self._r.iter_mut().zip(&self._positions) {
                    let key = u64_bits(if of_b { self.b.val() } else { self.a.val() });
                    *r = ((key >> (8 * p)) & 0xff) as usize;
                }
            }
        }
        for k in 0..self.index.len() {
            let mut i = self._base[k];
            for (rom, &q) in self._rom.iter().zip(&self._q) {
                i ^= rom[q][k];
            }
            self.index[k].next = Bits::from(i as u64);
        }
    }

    fn connect(&mut self) {
        for i in &mut self.index {
            i.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let ib = self._index_bits;
        let w = ib * self.index.len();
        let mut v = String::new();
        for (p, (&(of_b, byte), rom)) in self._positions.iter().zip(&self._rom).enumerate() {
            let key = if of_b { "b" } else { "a" };
            v.push_str(&format!(
                "reg [{hi}:0] rom{p} [0:255];\nreg [{hi}:0] r{p};\nreg [{hi}:0] q{p};\ninitial begin\n",
                hi = w - 1
            ));
            for (x, word) in rom.iter().enumerate() {
                let packed = word
                    .iter()
                    .rev()
                    .map(|&t| format!("{t:0ib$b}"))
                    .collect::<String>();
                v.push_str(&format!("   rom{p}[{x}] = {w}'b{packed};\n"));
            }
            v.push_str(&format!(
                "end\nalways @(posedge clock) begin\n   if (read) r{p} <= rom{p}[{key}[{}:{}]];\n   if (load) q{p} <= r{p};\nend\n",
                8 * byte + 7,
                8 * byte
            ));
        }
        v.push_str("always @(*) begin\n");
        for (k, base) in self._base.iter().enumerate() {
            let mut e = format!("{ADDRESS_BITS}'d{base}");
            for p in 0..self._positions.len() {
                let field = format!("q{p}[{}:{}]", (k + 1) * ib - 1, k * ib);
                match ADDRESS_BITS - ib {
                    0 => e.push_str(&format!(" ^ {field}")),
                    pad => e.push_str(&format!(" ^ {{{pad}'d0, {field}}}")),
                }
            }
            v.push_str(&format!("   index${k} = {e};\n"));
        }
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}
