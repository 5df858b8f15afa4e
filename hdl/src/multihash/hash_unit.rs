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

use crate::block_ram::ADDRESS_BITS;
use crate::hash::HashConstants;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

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
                let x = byte << (8 * p);
                let i = if of_a {
                    h.index(k, x, 0)
                } else {
                    h.index(k, 0, x)
                } as u64
                    ^ base;
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
