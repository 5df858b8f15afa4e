//! Adversarial event streams for co-simulating the multi-hash profiler RTL against its model.
//! Each is built for a configuration (aliases come from its hash constants) and a seed.

use crate::eval::trace::Tuple;
use hwprof_hdl::hash::{ByteLinearHash, HashConstants, SplitMix64};
use hwprof_hdl::ProfilerConfig;

/// The adversarial stream kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// The same tuple every event.
    OneTuple,
    /// Tuples that share their index in every table (or in as many leading tables as a bounded
    /// search can match), interleaved: every event hits the same counters. At most L/(2T) of
    /// them, so that each can reach T.
    AliasStorm,
    /// min(2A + 3, L/T) distinct tuples round robin: more candidates than entries when A < L/T,
    /// else exactly a full accumulator.
    AccumulatorOverflow,
    /// A few very hot tuples among overflowing warm ones: counters and entries saturate when
    /// `counter_bits` is narrow.
    Saturation,
    /// Random keys over the full key widths: (almost) never a repeat.
    AllDistinct,
    /// A mix of hot, warm and noise tuples (with `--report-ready` it back-pressures reports).
    Mixed,
}

impl StreamKind {
    pub const ALL: [StreamKind; 6] = [
        StreamKind::OneTuple,
        StreamKind::AliasStorm,
        StreamKind::AccumulatorOverflow,
        StreamKind::Saturation,
        StreamKind::AllDistinct,
        StreamKind::Mixed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StreamKind::OneTuple => "one-tuple",
            StreamKind::AliasStorm => "alias-storm",
            StreamKind::AccumulatorOverflow => "accumulator-overflow",
            StreamKind::Saturation => "saturation",
            StreamKind::AllDistinct => "all-distinct",
            StreamKind::Mixed => "mixed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Up to `want` tuples that alias `base` in every table, or in the most leading tables a search
/// of `tries` random tuples can match (always at least table 0).
pub fn aliases(cfg: &ProfilerConfig, base: Tuple, want: usize, seed: u64) -> Vec<Tuple> {
    let h = ByteLinearHash::new(&HashConstants::new(cfg));
    let n = cfg.tables;
    let mut target = vec![0u32; n];
    h.indices(base.0, base.1, &mut target);
    let mut idx = vec![0u32; n];
    let mut g = SplitMix64(seed);
    let tries = 1usize << 22;
    // best[m] = tuples matching the first m+1 tables.
    let mut best: Vec<Vec<Tuple>> = vec![Vec::new(); n];
    for _ in 0..tries {
        let t = (g.next_u64() & cfg.a_mask(), g.next_u64() & cfg.b_mask());
        if t == base {
            continue;
        }
        h.indices(t.0, t.1, &mut idx);
        let m = idx.iter().zip(&target).take_while(|(x, y)| x == y).count();
        if m > 0 && best[m - 1].len() < want {
            best[m - 1].push(t);
            if m == n && best[n - 1].len() == want {
                break;
            }
        }
    }
    let mut out = Vec::new();
    for level in best.iter().rev() {
        for &t in level {
            if out.len() < want {
                out.push(t);
            }
        }
    }
    out
}

/// `n` events of `kind` for `cfg`.
pub fn stream(kind: StreamKind, cfg: &ProfilerConfig, n: usize, seed: u64) -> Vec<Tuple> {
    let mut g = SplitMix64(seed ^ 0x5EED);
    let (am, bm) = (cfg.a_mask(), cfg.b_mask());
    let mut rnd = move || (g.next_u64() & am, g.next_u64() & bm);
    let a = cfg.accumulator.entries;
    // Distinct tuples that can each still reach T within an interval.
    let fit = ((cfg.interval / cfg.threshold) as usize).max(2);
    match kind {
        StreamKind::OneTuple => {
            let t = rnd();
            vec![t; n]
        }
        StreamKind::AliasStorm => {
            let base = rnd();
            let mut set = vec![base];
            set.extend(aliases(cfg, base, (2 * a + 2).min(fit / 2), seed));
            (0..n).map(|i| set[i % set.len()]).collect()
        }
        StreamKind::AccumulatorOverflow => {
            // More candidates than entries where the configuration allows it (A < L/T), else
            // exactly L/T tuples of T events each: a full accumulator.
            let set: Vec<Tuple> = (0..(2 * a + 3).min(fit)).map(|_| rnd()).collect();
            (0..n).map(|i| set[i % set.len()]).collect()
        }
        StreamKind::Saturation => {
            let hot: Vec<Tuple> = (0..2).map(|_| rnd()).collect();
            let warm: Vec<Tuple> = (0..2 * a + 1).map(|_| rnd()).collect();
            (0..n)
                .map(|i| {
                    if i % 3 != 2 {
                        hot[i % 2]
                    } else {
                        warm[(i / 3) % warm.len()]
                    }
                })
                .collect()
        }
        StreamKind::AllDistinct => (0..n).map(|_| rnd()).collect(),
        StreamKind::Mixed => {
            let hot: Vec<Tuple> = (0..a / 2 + 1).map(|_| rnd()).collect();
            let warm: Vec<Tuple> = (0..3 * a).map(|_| rnd()).collect();
            let mut h = SplitMix64(seed);
            (0..n)
                .map(|_| match h.next_u64() % 8 {
                    0..=3 => hot[(h.next_u64() % hot.len() as u64) as usize],
                    4..=6 => warm[(h.next_u64() % warm.len() as u64) as usize],
                    _ => rnd(),
                })
                .collect()
        }
    }
}
