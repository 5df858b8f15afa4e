//! Hash unit of the multi-hash profiler (SPEC §4): the index of every table for one tuple, in one
//! clock cycle (pure combinational logic).
//!
//! Both hash kinds are linear over GF(2) in the key bytes (see [`crate::hash`]), so each table's
//! index is realised in its **byte-linear form**: index_k = base_k xor (xor over the 16 key byte
//! positions p of T_k,p[byte_p]), one 256-entry ROM per position. The ROM contents are computed
//! from [`HashConstants::index`] — the definition — so the RTL reads the same R_k / Q_k,i
//! constants as the model and nothing is typed twice. For `tabulation`, T_k,p is R_k composed
//! with the fixed flip and xor-fold wiring of byte position p; for `h3`, T_k,p holds the parities
//! of byte p against the masks Q_k,i. Positions beyond the key widths hold only zeros and are
//! emitted as empty case statements (synthesis removes them).

use crate::hash::HashConstants;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// The index of one table: 8 ROMs over a's bytes, 8 over b's, xor-ed with a constant.
#[derive(LogicBlock)]
pub struct TableHash<const IB: usize> {
    /// Key a, already masked to `a_bits`.
    pub a: Signal<In, Bits<64>>,
    /// Key b, already masked to `b_bits`.
    pub b: Signal<In, Bits<64>>,
    /// h_k(a, b).
    pub index: Signal<Out, Bits<IB>>,
    rom_a: [ROM<Bits<IB>, 8>; 8],
    rom_b: [ROM<Bits<IB>, 8>; 8],
    base: Constant<Bits<IB>>,
}

impl<const IB: usize> TableHash<IB> {
    /// Table `k` of `h` (whose `index_bits` must equal IB).
    pub fn new(h: &HashConstants, k: usize) -> Self {
        assert_eq!(h.index_bits as usize, IB, "hash index width vs RTL shape");
        let base = h.index(k, 0, 0) as u64;
        let rom = |of_a: bool, p: usize| {
            let mut m = BTreeMap::new();
            for byte in 0..256u64 {
                let x = byte << (8 * p);
                let i = if of_a {
                    h.index(k, x, 0)
                } else {
                    h.index(k, 0, x)
                } as u64
                    ^ base;
                if i != 0 {
                    m.insert(Bits::<8>::from(byte), Bits::<IB>::from(i));
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
            base: Constant::new(Bits::<IB>::from(base)),
        }
    }
}

impl<const IB: usize> Logic for TableHash<IB> {
    #[hdl_gen]
    fn update(&mut self) {
        for p in 0..8 {
            self.rom_a[p].address.next = self.a.val().get_bits::<8>(p * 8);
            self.rom_b[p].address.next = self.b.val().get_bits::<8>(p * 8);
        }
        self.index.next = self.base.val()
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

/// The hash unit: NT tables of IB-bit indices.
#[derive(LogicBlock)]
pub struct HashUnit<const NT: usize, const IB: usize> {
    pub a: Signal<In, Bits<64>>,
    pub b: Signal<In, Bits<64>>,
    /// index[k] = h_k(a, b).
    pub index: [Signal<Out, Bits<IB>>; NT],
    tables: [TableHash<IB>; NT],
}

impl<const NT: usize, const IB: usize> HashUnit<NT, IB> {
    pub fn new(h: &HashConstants) -> Self {
        assert_eq!(h.tables.len(), NT, "hash tables vs RTL shape");
        HashUnit {
            a: Default::default(),
            b: Default::default(),
            index: std::array::from_fn(|_| Default::default()),
            tables: std::array::from_fn(|k| TableHash::new(h, k)),
        }
    }
}

impl<const NT: usize, const IB: usize> Logic for HashUnit<NT, IB> {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..NT {
            self.tables[k].a.next = self.a.val();
            self.tables[k].b.next = self.b.val();
            self.index[k].next = self.tables[k].index.val();
        }
    }
}

/// The set index of a set-associative accumulator (SPEC §3, [`crate::hash::SetHash`]): bit i =
/// parity((a & Qa_i) xor (b & Qb_i)), one xor tree per bit, combinational.
#[derive(LogicBlock)]
pub struct SetHashUnit<const SB: usize> {
    /// Key a, already masked to `a_bits`.
    pub a: Signal<In, Bits<64>>,
    /// Key b, already masked to `b_bits`.
    pub b: Signal<In, Bits<64>>,
    pub set: Signal<Out, Bits<SB>>,
    qa: [Constant<Bits<64>>; SB],
    qb: [Constant<Bits<64>>; SB],
    bits: crate::hdl_util::BitGather<SB>,
}

impl<const SB: usize> SetHashUnit<SB> {
    pub fn new(h: &crate::hash::SetHash) -> Self {
        assert_eq!(h.q.len(), SB, "set-index bits vs RTL shape");
        SetHashUnit {
            a: Default::default(),
            b: Default::default(),
            set: Default::default(),
            qa: std::array::from_fn(|i| Constant::new(h.q[i].0.into())),
            qb: std::array::from_fn(|i| Constant::new(h.q[i].1.into())),
            bits: Default::default(),
        }
    }
}

impl<const SB: usize> Logic for SetHashUnit<SB> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..SB {
            self.bits.bits[i].next =
                ((self.a.val() & self.qa[i].val()) ^ (self.b.val() & self.qb[i].val())).xor();
        }
        self.set.next = self.bits.word.val();
    }
}
