//! Reference model of the exact 64-bit counter bank (`hwprof_hdl::counters::exact`).

/// E saturating 64-bit counters.
pub struct ExactBank {
    pub counts: Vec<u64>,
}

impl ExactBank {
    pub fn new(events: usize) -> Self {
        ExactBank {
            counts: vec![0; events],
        }
    }

    pub fn clock(&mut self, inc: u64) {
        for (i, c) in self.counts.iter_mut().enumerate() {
            if inc >> i & 1 == 1 {
                *c = c.saturating_add(1);
            }
        }
    }

    /// n events of type i at once.
    pub fn events(&mut self, i: usize, n: u64) {
        self.counts[i] = self.counts[i].saturating_add(n);
    }

    pub fn estimate(&self, i: usize) -> u64 {
        self.counts[i]
    }
}
