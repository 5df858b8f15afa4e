//! **Space-Saving** (Metwally, Agrawal, El Abbadi, ICDT 2005): the standard deterministic
//! heavy-hitter sketch, as a peer of the profiler on the same intervals and memory.
//!
//! k monitored (tuple, count, error) entries. A monitored tuple's count += 1. An unmonitored tuple
//! takes a free entry with count 1, or else replaces the entry of minimum count m: its count becomes
//! m + 1 and its error m (the most it may be overestimated by). Guarantees: count ≥ true count,
//! count − error ≤ true count, and every tuple occurring more than N/k times is monitored.
//!
//! The minimum is found with an indexed binary min-heap (O(log k) per replacement; an increment moves
//! an entry down the heap). Per interval of L events: the report is every entry with count ≥ T (the
//! count is the estimate), then the sketch is emptied.

use crate::eval::trace::Tuple;
use crate::model::multihash::{IntervalClock, IntervalReport, ReportEntry};
use rustc_hash::FxHashMap as FxMap;

/// The Space-Saving sketch.
#[derive(Debug, Clone)]
pub struct SpaceSaving {
    capacity: usize,
    pub keys: Vec<Tuple>,
    pub counts: Vec<u64>,
    pub errors: Vec<u64>,
    /// Entry ids as a min-heap on count.
    heap: Vec<u32>,
    /// Position of each entry in `heap`.
    pos: Vec<u32>,
    map: FxMap<Tuple, u32>,
}

impl SpaceSaving {
    /// A sketch of `capacity` ≥ 1 entries.
    pub fn new(capacity: usize) -> Self {
        assert!(capacity >= 1, "Space-Saving needs at least one entry");
        SpaceSaving {
            capacity,
            keys: Vec::with_capacity(capacity),
            counts: Vec::with_capacity(capacity),
            errors: Vec::with_capacity(capacity),
            heap: Vec::with_capacity(capacity),
            pos: Vec::with_capacity(capacity),
            map: FxMap::default(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Estimated count of `t` (0 when not monitored).
    pub fn estimate(&self, t: Tuple) -> u64 {
        self.map.get(&t).map_or(0, |&i| self.counts[i as usize])
    }

    #[inline]
    pub fn offer(&mut self, t: Tuple) {
        if let Some(&i) = self.map.get(&t) {
            self.counts[i as usize] += 1;
            self.sift_down(self.pos[i as usize] as usize);
        } else if self.keys.len() < self.capacity {
            let i = self.keys.len() as u32;
            self.keys.push(t);
            self.counts.push(1);
            self.errors.push(0);
            self.pos.push(self.heap.len() as u32);
            self.heap.push(i);
            self.map.insert(t, i);
            self.sift_up(self.heap.len() - 1);
        } else {
            let i = self.heap[0] as usize;
            self.map.remove(&self.keys[i]);
            self.keys[i] = t;
            self.errors[i] = self.counts[i];
            self.counts[i] += 1;
            self.map.insert(t, i as u32);
            self.sift_down(0);
        }
    }

    pub fn clear(&mut self) {
        self.keys.clear();
        self.counts.clear();
        self.errors.clear();
        self.heap.clear();
        self.pos.clear();
        self.map.clear();
    }

    fn swap(&mut self, x: usize, y: usize) {
        self.heap.swap(x, y);
        self.pos[self.heap[x] as usize] = x as u32;
        self.pos[self.heap[y] as usize] = y as u32;
    }

    fn key(&self, h: usize) -> u64 {
        self.counts[self.heap[h] as usize]
    }

    fn sift_up(&mut self, mut h: usize) {
        while h > 0 {
            let p = (h - 1) / 2;
            if self.key(p) <= self.key(h) {
                break;
            }
            self.swap(p, h);
            h = p;
        }
    }

    fn sift_down(&mut self, mut h: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * h + 1, 2 * h + 2);
            let mut m = h;
            if l < n && self.key(l) < self.key(m) {
                m = l;
            }
            if r < n && self.key(r) < self.key(m) {
                m = r;
            }
            if m == h {
                return;
            }
            self.swap(m, h);
            h = m;
        }
    }
}

/// Space-Saving run in intervals of L events, reporting entries with count ≥ T.
#[derive(Debug, Clone)]
pub struct SpaceSavingProfiler {
    pub sketch: SpaceSaving,
    interval: u64,
    threshold: u64,
    a_mask: u64,
    b_mask: u64,
    clock: IntervalClock,
}

impl SpaceSavingProfiler {
    pub fn new(capacity: usize, interval: u64, threshold: u64, a_mask: u64, b_mask: u64) -> Self {
        SpaceSavingProfiler {
            sketch: SpaceSaving::new(capacity),
            interval,
            threshold,
            a_mask,
            b_mask,
            clock: IntervalClock::default(),
        }
    }

    /// Bits of one entry in hardware terms: the tag plus a count wide enough for L.
    pub fn entry_bits(a_bits: u32, b_bits: u32, interval: u64) -> u64 {
        (a_bits + b_bits + (64 - interval.leading_zeros())) as u64
    }

    #[inline]
    pub fn event(&mut self, a: u64, b: u64) -> Option<IntervalReport> {
        self.sketch.offer((a & self.a_mask, b & self.b_mask));
        if !self.clock.tick(self.interval) {
            return None;
        }
        let s = &self.sketch;
        let mut entries: Vec<ReportEntry> = (0..s.keys.len())
            .filter(|&i| s.counts[i] >= self.threshold)
            .map(|i| ReportEntry {
                a: s.keys[i].0,
                b: s.keys[i].1,
                count: s.counts[i],
            })
            .collect();
        entries.sort_unstable_by_key(|e| (e.a, e.b));
        self.sketch.clear();
        Some(self.clock.close(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn guarantees_on_a_skewed_stream() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let k = 32;
        let mut s = SpaceSaving::new(k);
        let mut exact: FxMap<Tuple, u64> = FxMap::default();
        let n = 20_000u64;
        for _ in 0..n {
            // A few heavy tuples among many light ones.
            let t = if rng.gen_bool(0.5) {
                (rng.gen_range(0..5u64), 1)
            } else {
                (rng.gen_range(0..5000u64), 2)
            };
            s.offer(t);
            *exact.entry(t).or_default() += 1;
        }
        assert_eq!(s.keys.len(), k);
        assert_eq!(s.counts.iter().sum::<u64>(), n, "counts always sum to N");
        for i in 0..k {
            let f = exact[&s.keys[i]];
            assert!(s.counts[i] >= f && s.counts[i] - s.errors[i] <= f);
        }
        for (t, &f) in &exact {
            if f > n / k as u64 {
                assert!(
                    s.estimate(*t) >= f,
                    "heavy tuple {t:?} ({f}) must be monitored"
                );
            }
        }
        let min = *s.counts.iter().min().unwrap();
        assert_eq!(s.key(0), min, "heap root is the minimum");
    }

    #[test]
    fn intervals_report_and_clear() {
        let mut p = SpaceSavingProfiler::new(4, 10, 3, u64::MAX, u64::MAX);
        let ev = [
            (1, 1),
            (1, 1),
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 4),
            (5, 5),
            (1, 1),
            (2, 2),
            (6, 6),
        ];
        let mut reps: Vec<_> = ev.iter().filter_map(|&(a, b)| p.event(a, b)).collect();
        reps.extend(ev.iter().filter_map(|&(a, b)| p.event(a, b)));
        assert_eq!(reps.len(), 2);
        assert_eq!((reps[0].interval, reps[1].interval), (0, 1));
        assert_eq!(
            reps[0].entries, reps[1].entries,
            "the sketch starts empty each interval"
        );
        assert!(reps[0]
            .entries
            .iter()
            .any(|e| (e.a, e.b, e.count) == (1, 1, 4)));
    }
}
