//! Hash functions of the multi-hash profiler (docs/SPEC.md §6) and the one generator of their
//! constants.
//!
//! **Generator.** Every random constant comes from [`SplitMix64`] seeded with the configuration's
//! `seed`, drawn in this fixed order: for table k = 0, 1, …, n−1:
//! - `tabulation`: R_k[0..256], one draw per byte, keeping the draw's low 8 bits;
//! - `h3`: for index bit i = 0, 1, …: Q_k,i as two draws, the a-half then the b-half, each masked
//!   to its key width;
//!
//! then, for a set-associative accumulator, its set-index masks ([`SetHash`]), two draws per bit
//! (a-half, b-half) as for h3.
//!
//! **tabulation** (the paper's §5.3): with W = ceil(max(a_bits, b_bits)/8) key bytes,
//! randomize_k(x) replaces each of the W bytes of x by `R_k[byte]`; flip(x) reverses the W bytes;
//! v = flip(randomize_k(a)) xor randomize_k(b); index = xor-fold(v): the xor of the index_bits-wide
//! chunks of v, lowest first (the last chunk zero-padded).
//!
//! **h3**: index bit i = parity((a & Qa_k,i) xor (b & Qb_k,i)).
//!
//! Both are linear over GF(2) in the looked-up bytes, so the fast model ([`ByteLinearHash`]) turns
//! either into one xor of per-byte-position lookups; a test proves it equal to the definitions.

use crate::config::{HashKind, ProfilerConfig};

/// SplitMix64 (Steele, Lea, Flood 2014): the documented generator of every hash constant.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The constants of one table's hash function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableHash {
    /// R_k: 256 random bytes.
    Tabulation { r: Box<[u8; 256]> },
    /// Q_k,i for each index bit i: (mask over a, mask over b).
    H3 { q: Vec<(u64, u64)> },
}

/// The hash constants of every table, derived from a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashConstants {
    pub tables: Vec<TableHash>,
    pub index_bits: u32,
    pub key_bytes: usize,
    pub a_mask: u64,
    pub b_mask: u64,
}

impl HashConstants {
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let mut g = SplitMix64(cfg.seed);
        let index_bits = cfg.index_bits();
        let tables = (0..cfg.tables)
            .map(|_| match cfg.hash {
                HashKind::Tabulation => {
                    let mut r = Box::new([0u8; 256]);
                    for x in r.iter_mut() {
                        *x = g.next_u64() as u8;
                    }
                    TableHash::Tabulation { r }
                }
                HashKind::H3 => TableHash::H3 {
                    q: (0..index_bits)
                        .map(|_| {
                            let qa = g.next_u64() & cfg.a_mask();
                            let qb = g.next_u64() & cfg.b_mask();
                            (qa, qb)
                        })
                        .collect(),
                },
            })
            .collect();
        HashConstants {
            tables,
            index_bits,
            key_bytes: cfg.key_bytes(),
            a_mask: cfg.a_mask(),
            b_mask: cfg.b_mask(),
        }
    }

    /// The index of table `k` for the tuple (a, b), straight from the definition (slow, clear).
    pub fn index(&self, k: usize, a: u64, b: u64) -> u32 {
        let (a, b) = (a & self.a_mask, b & self.b_mask);
        match &self.tables[k] {
            TableHash::Tabulation { r } => {
                let w = self.key_bytes;
                let randomize = |x: u64| -> u64 {
                    (0..w)
                        .map(|j| (r[((x >> (8 * j)) & 0xff) as usize] as u64) << (8 * j))
                        .sum()
                };
                let flip = |x: u64| -> u64 {
                    (0..w)
                        .map(|j| ((x >> (8 * j)) & 0xff) << (8 * (w - 1 - j)))
                        .sum()
                };
                xor_fold(
                    flip(randomize(a)) ^ randomize(b),
                    8 * w as u32,
                    self.index_bits,
                )
            }
            TableHash::H3 { q } => q
                .iter()
                .enumerate()
                .map(|(i, &(qa, qb))| (((a & qa) ^ (b & qb)).count_ones() & 1) << i)
                .sum(),
        }
    }
}

/// xor of the `chunk`-bit pieces of the low `width` bits of v, lowest first.
pub fn xor_fold(v: u64, width: u32, chunk: u32) -> u32 {
    let mask = crate::config::width_mask(chunk);
    let mut out = 0u64;
    let mut shift = 0;
    while shift < width {
        out ^= (v >> shift) & mask;
        shift += chunk;
    }
    out as u32
}

/// Fast form of either hash for the model: the indices of all tables, packed `per_word` to a u64,
/// are the xor of one lookup per key byte position.
#[derive(Debug, Clone)]
pub struct ByteLinearHash {
    /// lut[word][position][byte]; positions 0..8 are a's bytes, 8..16 b's.
    lut: Vec<Vec<[u64; 256]>>,
    a_mask: u64,
    b_mask: u64,
    a_positions: usize,
    b_positions: usize,
    pub index_bits: u32,
    pub per_word: usize,
    pub tables: usize,
}

impl ByteLinearHash {
    pub fn new(h: &HashConstants) -> Self {
        let ib = h.index_bits;
        let per_word = (64 / ib) as usize;
        let tables = h.tables.len();
        let words = tables.div_ceil(per_word);
        let a_positions = (64 - h.a_mask.leading_zeros() as usize).div_ceil(8);
        let b_positions = (64 - h.b_mask.leading_zeros() as usize).div_ceil(8);
        let mut lut = vec![vec![[0u64; 256]; 16]; words];
        for k in 0..tables {
            let (w, slot) = (k / per_word, (k % per_word) as u32 * ib);
            // Linearity: for tabulation, index(a, b) = index_part(a) ^ index_part(b) ^ index(0, 0)
            // per byte position; fold the constant into position 0 of b.
            let base = h.index(k, 0, 0) as u64;
            for p in 0..8 {
                for byte in 0..256u64 {
                    let a = byte << (8 * p);
                    let ia = (h.index(k, a, 0) as u64 ^ base) << slot;
                    let ib_ = (h.index(k, 0, a) as u64 ^ base) << slot;
                    lut[w][p][byte as usize] ^= ia;
                    lut[w][8 + p][byte as usize] ^= ib_;
                }
            }
            for byte in 0..256 {
                lut[w][8][byte] ^= base << slot;
            }
        }
        ByteLinearHash {
            lut,
            a_mask: h.a_mask,
            b_mask: h.b_mask,
            a_positions,
            b_positions,
            index_bits: ib,
            per_word,
            tables,
        }
    }

    /// Writes the index of every table for (a, b) into `out[..tables]`.
    #[inline]
    pub fn indices(&self, a: u64, b: u64, out: &mut [u32]) {
        let (a, b) = (a & self.a_mask, b & self.b_mask);
        let imask = (1u64 << self.index_bits) - 1;
        for (w, lut) in self.lut.iter().enumerate() {
            let mut v = lut[8][(b & 0xff) as usize];
            for p in 0..self.a_positions {
                v ^= lut[p][((a >> (8 * p)) & 0xff) as usize];
            }
            for p in 1..self.b_positions {
                v ^= lut[8 + p][((b >> (8 * p)) & 0xff) as usize];
            }
            let first = w * self.per_word;
            let last = (first + self.per_word).min(self.tables);
            for (slot, k) in (first..last).enumerate() {
                out[k] = ((v >> (slot as u32 * self.index_bits)) & imask) as u32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigFile;

    fn cfg(hash: &str, tables: usize, entries: usize, a_bits: u32, b_bits: u32) -> ProfilerConfig {
        ProfilerConfig::from_toml_str(
            &format!(
                "interval = 1000\nthreshold = 10\ntables = {tables}\nentries = {entries}\nhash = \"{hash}\"\n\
                 a_bits = {a_bits}\nb_bits = {b_bits}\nseed = 7\n"
            ),
            "t",
        )
        .unwrap()
    }

    #[test]
    fn splitmix_reference_values() {
        // First outputs of SplitMix64 seeded with 0, as published with the algorithm.
        let mut g = SplitMix64(0);
        assert_eq!(g.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(g.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn fast_hash_equals_definition() {
        let mut g = SplitMix64(99);
        for (hash, tables, entries, ab, bb) in [
            ("tabulation", 4, 512, 48, 48),
            ("tabulation", 1, 2048, 48, 48),
            ("tabulation", 16, 128, 20, 64),
            ("tabulation", 3, 2, 1, 9),
            ("h3", 4, 512, 48, 48),
            ("h3", 8, 65536, 64, 64),
            ("h3", 2, 4, 5, 33),
        ] {
            let c = cfg(hash, tables, entries, ab, bb);
            let h = HashConstants::new(&c);
            let f = ByteLinearHash::new(&h);
            let mut out = vec![0u32; tables];
            for _ in 0..2000 {
                let (a, b) = (g.next_u64(), g.next_u64());
                f.indices(a, b, &mut out);
                for (k, &got) in out.iter().enumerate() {
                    assert_eq!(got, h.index(k, a, b), "{hash} table {k} a={a:x} b={b:x}");
                    assert!(got < entries as u32);
                }
            }
        }
    }

    #[test]
    fn tables_are_independent_and_seeded() {
        let c = cfg("tabulation", 4, 512, 48, 48);
        let h = HashConstants::new(&c);
        assert_ne!(h.tables[0], h.tables[1]);
        let mut c2 = c.clone();
        c2.seed = 8;
        assert_ne!(HashConstants::new(&c2), h);
        assert_eq!(HashConstants::new(&c), h, "deterministic");
    }
}

/// The set index of a set-associative accumulator: an h3 hash over (a, b) whose masks are drawn
/// from the same [`SplitMix64`] stream right after every table constant of [`HashConstants`], so it
/// is independent of the counter-table hashes (a tuple's accumulator set says nothing about where
/// its counters alias).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetHash {
    /// (mask over a, mask over b) per set-index bit, lowest bit first.
    pub q: Vec<(u64, u64)>,
    pub a_mask: u64,
    pub b_mask: u64,
}

impl SetHash {
    pub fn new(cfg: &ProfilerConfig) -> Self {
        let mut g = SplitMix64(cfg.seed);
        // Replay the table constants' draws (see the generator order at the top of this file).
        let draws_per_table = match cfg.hash {
            HashKind::Tabulation => 256,
            HashKind::H3 => 2 * cfg.index_bits() as usize,
        };
        for _ in 0..cfg.tables * draws_per_table {
            g.next_u64();
        }
        let bits = cfg.accumulator.sets().trailing_zeros();
        let q = (0..bits)
            .map(|_| (g.next_u64() & cfg.a_mask(), g.next_u64() & cfg.b_mask()))
            .collect();
        SetHash {
            q,
            a_mask: cfg.a_mask(),
            b_mask: cfg.b_mask(),
        }
    }

    /// The set of the tuple (a, b).
    #[inline]
    pub fn set(&self, a: u64, b: u64) -> usize {
        let (a, b) = (a & self.a_mask, b & self.b_mask);
        self.q
            .iter()
            .enumerate()
            .map(|(i, &(qa, qb))| ((((a & qa) ^ (b & qb)).count_ones() & 1) as usize) << i)
            .sum()
    }
}
