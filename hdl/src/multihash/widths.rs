//! The stored widths of a configuration's hardware and its width class (docs/SPEC.md §5).
//!
//! **Stored widths.** A counter is cleared every interval and incremented at most once per event,
//! so it never exceeds min(2^counter_bits − 1, L); an accumulator count likewise stays within
//! min(2^count_bits − 1, L). L here is the longest interval the hardware may be set to
//! (`max_interval`). The RAMs store ⌈log2(that + 1)⌉ bits — the same counts as the model,
//! bit for bit, with fewer block RAMs when L is short. The counting words (counters, counts,
//! thresholds, their adders and comparators) are a const generic CB, one of [`WIDTH_CLASSES`]: the
//! smallest class that holds what the configuration stores ([`storage_widths`]).

use super::set_accumulator::TAG_BITS;
use crate::config::{ConfigFile, Organisation, ProfilerConfig, Replacement};

/// The widths of counting words the RTL is compiled for (bits), narrowest first.
pub const WIDTH_CLASSES: [usize; 4] = [16, 24, 32, 64];

/// The stored widths of a configuration's hardware (bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Widths {
    /// A table counter: holds min(2^counter_bits − 1, L).
    pub counter: usize,
    /// An accumulator count: holds min(2^count_bits − 1, L) and the largest T (`max_threshold`).
    pub count: usize,
    /// The width class CB of the counting words: holds every stored word (a set-associative
    /// entry's count with its two state bits) and T.
    pub class: usize,
}

impl Widths {
    /// The counters' saturation value in hardware: 2^counter_bits − 1, or the largest stored
    /// value when an interval cannot reach it (then neither saturates).
    pub fn counter_max(&self, cfg: &ProfilerConfig) -> u64 {
        cfg.counter_max().min((1 << self.counter) - 1)
    }

    /// The accumulator counts' saturation value in hardware, likewise.
    pub fn count_max(&self, cfg: &ProfilerConfig) -> u64 {
        cfg.accumulator_count_max().min((1 << self.count) - 1)
    }

    /// Whether a counter can reach [`Self::counter_max`] and still be incremented within an
    /// interval: not when 2^counter_bits − 1 >= L (a counter starts each interval at 0 and grows
    /// by at most one per event), and then the RTL has no saturation logic.
    pub fn counter_saturates(&self, cfg: &ProfilerConfig) -> bool {
        cfg.counter_max() < cfg.max_interval()
    }

    /// Whether an accumulator count can saturate within an interval, likewise (a count starts
    /// at most at the events seen so far and grows by at most one per event).
    pub fn count_saturates(&self, cfg: &ProfilerConfig) -> bool {
        cfg.accumulator_count_max() < cfg.max_interval()
    }
}

/// Bits to hold every value in 0..=v (at least 1).
pub fn bits_for(v: u64) -> usize {
    (64 - v.leading_zeros() as usize).max(1)
}

/// The widths of `cfg`'s hardware, or why it has none. Validates the configuration.
pub fn storage_widths(cfg: &ProfilerConfig) -> Result<Widths, String> {
    cfg.validate().map_err(|e| e.to_string())?;
    if cfg.accumulator.replacement == Replacement::Smallest
        && cfg.accumulator.organisation == Organisation::FullyAssociative
    {
        return Err(
            "accumulator.replacement = \"smallest\" needs organisation = \"set_associative\" in hardware (W count compares per set; a fully-associative accumulator would compare every pair of its entries)"
                .into(),
        );
    }
    let reach = |max: u64| max.min(cfg.max_interval());
    let counter = bits_for(reach(cfg.counter_max()));
    let count = bits_for(reach(cfg.accumulator_count_max()).max(cfg.max_threshold()));
    let acc = &cfg.accumulator;
    let word = match acc.organisation {
        Organisation::FullyAssociative => count.max(counter),
        Organisation::SetAssociative => {
            if acc.stash != 0 {
                return Err(format!(
                    "accumulator.stash = {}: the block-RAM accumulator RTL has no stash (stash = 0 only)",
                    acc.stash
                ));
            }
            if cfg.a_bits + cfg.b_bits > TAG_BITS as u32 {
                return Err(format!(
                    "a_bits + b_bits = {} exceeds the block-RAM accumulator's {TAG_BITS}-bit tags",
                    cfg.a_bits + cfg.b_bits
                ));
            }
            (count + 2).max(counter)
        }
    };
    let class = WIDTH_CLASSES
        .into_iter()
        .find(|&c| c >= word)
        .ok_or_else(|| format!("words of {word} bits exceed the RTL's widest class (64 bits)"))?;
    Ok(Widths {
        counter,
        count,
        class,
    })
}

/// The widths of `cfg`'s hardware, which a top of width class CB is being built for: the
/// configuration has hardware and CB is its class (checked by [`crate::multihash::with_design`]).
pub fn widths_of_class<const CB: usize>(cfg: &ProfilerConfig) -> Widths {
    let w = storage_widths(cfg).expect("a configuration with hardware");
    assert_eq!(w.class, CB, "configuration vs width class");
    w
}

/// Whether `cfg` has hardware, and its widths; an error says why not.
pub fn rtl_shape(cfg: &ProfilerConfig) -> Result<Widths, String> {
    storage_widths(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(text: &str) -> ProfilerConfig {
        ProfilerConfig::from_toml_str(text, "t").unwrap()
    }

    #[test]
    fn stored_widths_hold_what_an_interval_can_reach() {
        // L = 20 000 < 2^15: 15-bit counters and counts whatever counter_bits says.
        let c = cfg("interval = 20000\nthreshold = 100\ntables = 2\nentries = 1024\ncounter_bits = 24\n[accumulator]\nentries = 200\n");
        assert_eq!(
            storage_widths(&c),
            Ok(Widths {
                counter: 15,
                count: 15,
                class: 16
            })
        );
        // Narrow counters saturate below L: their own width. Counts 24 bits: class 24.
        let c = cfg("interval = 1000000\nthreshold = 1000\ntables = 2\nentries = 2048\ncounter_bits = 12\n[accumulator]\nentries = 1000\ncount_bits = 24\n");
        assert_eq!(
            storage_widths(&c),
            Ok(Widths {
                counter: 12,
                count: 20,
                class: 24
            })
        );
        // A set-associative entry stores its count and two state bits.
        let c = cfg("interval = 16383\nthreshold = 4\ntables = 1\nentries = 16\n[accumulator]\norganisation = \"set_associative\"\nentries = 8\nways = 2\n");
        assert_eq!(storage_widths(&c).unwrap().class, 16);
        let c = cfg("interval = 16384\nthreshold = 4\ntables = 1\nentries = 16\n[accumulator]\norganisation = \"set_associative\"\nentries = 8\nways = 2\n");
        assert_eq!(storage_widths(&c).unwrap().class, 24);
    }

    #[test]
    fn smallest_replacement_has_hardware_only_when_set_associative() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/best-1m.toml");
        let best = ProfilerConfig::load(std::path::Path::new(path)).unwrap();
        assert_eq!(best.accumulator.organisation, Organisation::SetAssociative);
        // 10-bit counters, 20-bit counts + 2 state bits: the 24-bit class.
        assert_eq!(storage_widths(&best).unwrap().class, 24);
        let mut smallest = best.clone();
        smallest.accumulator.replacement = Replacement::Smallest;
        assert_eq!(storage_widths(&smallest).unwrap().class, 24);
        smallest.accumulator.organisation = Organisation::FullyAssociative;
        smallest.accumulator.ways = smallest.accumulator.entries;
        smallest.accumulator.stash = 0;
        smallest.write_stage = false;
        let e = storage_widths(&smallest).unwrap_err();
        assert!(
            e.contains("needs organisation = \"set_associative\""),
            "{e}"
        );
    }
}
