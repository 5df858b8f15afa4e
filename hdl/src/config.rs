//! Configuration of the multi-hash profiler (docs/SPEC.md §3): parsed from TOML, validated in one
//! place, and read by both the RTL generator and the reference model.
//!
//! Every parameter, its default and its rule:
//!
//! | key | meaning | rule |
//! |---|---|---|
//! | `interval` | L, events per interval | 1 ..= 2^40 |
//! | `max_interval` | the longest L the hardware can be set to at run time (the bus slave's `INTERVAL` register, [`crate::readout`]); the stored widths are sized for it. Default `interval` | `interval` ..= 2^40 |
//! | `threshold` | T, the candidate threshold: an integer count, or a string `"p%"` giving T = ceil(L·p/100) | 1 ..= L |
//! | `max_threshold` | the largest T the hardware can be set to at run time (the bus slave's `THRESHOLD` register, from `reset_value` + 1); the stored widths are sized for it. Absent, T is fixed: the hardware holds it as a constant (no registers, no compares with them) | `threshold` ..= `max_interval`, and 2^counter_bits − 1 ≥ it |
//! | `tables` | n, number of hash tables (n = 1 is the single-hash profiler) | 1 ..= 16 |
//! | `entries` | counters per table | power of two, 2 ..= 2^20 |
//! | `counter_bits` | width of every counter (tables and accumulator), saturating; default 24 | 1 ..= 32, and 2^bits − 1 ≥ T |
//! | `conservative_update` | C1 (true) / C0; default true | |
//! | `reset_on_promote` | R1 (true) / R0; default false | |
//! | `reset_value` | with R1, the value a promoted tuple's counters are written with; default 0 (the paper's reset). A value below T keeps part of what the tuples sharing those counters have counted | < T; needs `reset_on_promote = true` when > 0 |
//! | `retaining` | P1 (true) / P0; default true | |
//! | `hash` | `"tabulation"` (the paper's) or `"h3"`; default tabulation | |
//! | `seed` | seed of every random hash constant (see [`crate::hash`]); default 1 | |
//! | `a_bits`, `b_bits` | key widths; inputs are masked to them; default 48 | 1 ..= 64 |
//! | `write_stage` | hardware only, no effect on the profile: the block-RAM profiler's counter tables and the accumulator's tags register their write-back once more before the block RAMs, and the accumulator's hit selects the counters' written words a clock late (docs/SPEC.md §5.4), so neither the hit nor the allocation ends at a block RAM's pins: higher Fmax, for area (paper-10k-bram on the HX8K: 5 792 logic cells with it, which the UP5K cannot hold). Default true with a set-associative accumulator | set-associative accumulator only |
//! | `counter_output_register` | hardware only, no effect on the profile: the block-RAM profiler's counter tables are read through their block RAMs' output register (on the ECP5 the DP16KD's own, `REGMODE = "OUTREG"`; elsewhere a flip-flop stage), so no block RAM's clock-to-out is on a path into logic. The read is issued a clock before stage 0, at the indices of the event stage 0 takes if it is free, hashed a stage earlier (one more clock of latency); when stage 0 was held instead, its event is read again, so each wait of stage 0 lasts one clock longer (docs/SPEC.md §5.4). For the ECP5, where the DP16KD's clock-to-out is most of a 10 ns period (the ULX3S preset sets it). Default false | set-associative accumulator only |
//! | `refused_slot` | hardware only, no effect on the profile: an event the block-RAM profiler's stage 0 refuses waits in a second register of stage 0 (the refused slot), offered before the next event until it is accepted, instead of holding the stage before it; so the accept decision loads one flip-flop, not every register of that stage, and the input's skid register goes (docs/SPEC.md §5.4). The same wait bound. Faster where the accept's fan-out is on the critical path (paper-1m-bram on the ECP5-25K, which sets it: median 81.3 MHz, 79.4 without); slower on the HX8K (paper-10k-bram: 80.0 MHz with it, 82.7 without). Default false | set-associative accumulator only |
//! | `hash_block_ram` | hardware only, no effect on the profile: the block-RAM profiler's tabulation hash reads its byte tables from block RAM (one ROM per key byte, every table's field side by side) instead of computing them in logic — most of a tabulation profiler's logic — in a hash stage of its own before the one that holds the indices, whose output registers take the block RAMs' words (docs/SPEC.md §5.4). One more clock of latency, the same wait bound. For parts with block RAM to spare (paper-1m-bram on the ECP5-25K: 12 DP16KD). Default false | set-associative accumulator and `hash = "tabulation"` only |
//! | `hash_stage` | hardware only, no effect on the profile: the block-RAM profiler hashes in logic from a register — the stage F that `hash_block_ram` adds holds the masked event — instead of from the input port through the skid register's select, so the hash trees start at flip-flops (docs/SPEC.md §5.4). One more clock of latency, the same wait bound, a flip-flop per key bit and one more. Implied by `hash_block_ram`. Default false | set-associative accumulator only |
//! | `flag_rows` | hardware only, no effect on the profile: the set-associative accumulator's per-set flags (the epochs' `cur`, `prev`, `pend`, `rep`) are read through registered rows of √S flags, loaded a clock early at a row address known then (the offered event's set and the scanner's, whose rows stage C then chooses between, the scanner's next row, stage D's row), instead of S-to-1 selects at a register's set; `any_pend` is an OR over per-row flags (docs/SPEC.md §5.4). About 770 more LUT4 and 220 flip-flops at 256 sets. Faster where those selects are on the critical path (paper-1m-bram on the ECP5-25K, which sets it: median 97.8 MHz, 85.4 without); the UP5K preset does not fit with it. Default false | set-associative accumulator only (no effect below 4 sets) |
//! | `narrow_tag_compare` | hardware only, no effect on the profile: the set-associative accumulator compares the tags it reads with the event's tuple in 2-bit slices, one LUT4 between the tag RAM's read port and a register, instead of 8-bit slices (two levels); stage D ANDs four times as many registered slices. Faster where a tag block RAM's read output is on the critical path (paper-1m-bram on the ECP5-25K: median 100.1 MHz against 97.8; paper-10k-bram's HX8K and ECP5 sections), 36 more flip-flops per way at 96-bit tags and about as many iCE40 logic cells (a LUT shares its cell with the flip-flop after it); not where the tags are small LUT RAMs (the ULX3S board preset: 96.8 against 103.0) or the critical path is elsewhere (the UP5K preset: 29.2 against 30.1). Default false | set-associative accumulator only |
//! | `[target.<name>]` | hardware options of one synthesis target (`ice40-up5k`, `ice40-hx8k`, `ecp5-25k`, `ecp5-85k`): `write_stage`, `counter_output_register`, `refused_slot`, `hash_block_ram`, `hash_stage`, `flag_rows`, `narrow_tag_compare`, over the file's own for that target only ([`ProfilerConfig::for_target`]). No effect on the profile, so one preset carries the fastest hardware that fits each part | a known target; only those seven keys; the resolved configuration obeys every rule above |
//! | `[accumulator] entries` | A; default floor(L/T) | 1 ..= 65536 |
//! | `[accumulator] organisation` | `"fully_associative"` (default) or `"set_associative"` | |
//! | `[accumulator] ways` | ways per set (set-associative only); default 4 | ≥ 1, A/ways a power of two |
//! | `[accumulator] count_bits` | width of the accumulator's counts (saturating); default `counter_bits`. Table counters only need to reach T, accumulator counts measure the profile, so narrow table counters with wide counts buy more table entries per byte | `counter_bits` ..= 32 |
//! | `[accumulator] stash` | fully-associative overflow entries beside the sets (set-associative only); default 0 | 0 ..= 64 |
//! | `[accumulator] replacement` | which replaceable entry a promoted tuple takes when its set has no empty one: `"first"` (lowest index, default) or `"smallest"` (smallest count, lowest index on ties — Space-Saving's choice, W compares in a set; a retained tuple still counting towards T survives one that has gone cold). In hardware for a set-associative accumulator only (the RTL compares every pair of ways of the set) | |

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// A configuration error: which field broke which rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Where: a file path, or `<string>`.
    pub source: String,
    /// The offending field (dotted for sub-tables), empty when the file itself is the problem.
    pub field: String,
    /// The rule that was broken, with the value found.
    pub rule: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "config {}: {}", self.source, self.rule)
        } else {
            write!(
                f,
                "config {}: field `{}`: {}",
                self.source, self.field, self.rule
            )
        }
    }
}

impl std::error::Error for ConfigError {}

/// The candidate threshold as written: a count or a percentage of the interval.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum ThresholdSpec {
    Count(u64),
    /// `"1%"`, `"0.1%"`: a decimal percentage, resolved exactly (no floating point).
    Percent(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HashKind {
    /// The paper's hash (§5.3): byte-wise random tables, flip, xor, xor-fold.
    Tabulation,
    /// H3: each index bit is the parity of the masked key.
    H3,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Organisation {
    FullyAssociative,
    SetAssociative,
}

/// Which replaceable accumulator entry a promotion takes (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Replacement {
    /// The lowest-index replaceable entry.
    First,
    /// The replaceable entry with the smallest count (lowest index on ties).
    Smallest,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct AccumulatorFile {
    entries: Option<u64>,
    organisation: Option<Organisation>,
    ways: Option<u64>,
    stash: Option<u64>,
    count_bits: Option<u64>,
    replacement: Option<Replacement>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfilerFile {
    interval: u64,
    max_interval: Option<u64>,
    threshold: ThresholdSpec,
    max_threshold: Option<u64>,
    tables: u64,
    entries: u64,
    counter_bits: Option<u64>,
    conservative_update: Option<bool>,
    reset_on_promote: Option<bool>,
    reset_value: Option<u64>,
    retaining: Option<bool>,
    hash: Option<HashKind>,
    seed: Option<u64>,
    a_bits: Option<u64>,
    b_bits: Option<u64>,
    accumulator: Option<AccumulatorFile>,
    write_stage: Option<bool>,
    counter_output_register: Option<bool>,
    refused_slot: Option<bool>,
    hash_block_ram: Option<bool>,
    hash_stage: Option<bool>,
    flag_rows: Option<bool>,
    narrow_tag_compare: Option<bool>,
    target: Option<BTreeMap<String, TargetOptions>>,
}

/// The synthesis targets a configuration's `[target.<name>]` sections may name.
pub const TARGETS: [&str; 4] = ["ice40-up5k", "ice40-hx8k", "ecp5-25k", "ecp5-85k"];

/// A `[target.<name>]` section: hardware options for one synthesis target, each over the file's
/// own when given. Only options without effect on the profile may differ between targets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetOptions {
    pub write_stage: Option<bool>,
    pub counter_output_register: Option<bool>,
    pub refused_slot: Option<bool>,
    pub hash_block_ram: Option<bool>,
    pub hash_stage: Option<bool>,
    pub flag_rows: Option<bool>,
    pub narrow_tag_compare: Option<bool>,
}

/// The accumulator table's shape, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccumulatorConfig {
    pub entries: usize,
    pub organisation: Organisation,
    /// Ways per set; equals `entries` for a fully-associative accumulator.
    pub ways: usize,
    /// Fully-associative overflow entries (set-associative only).
    pub stash: usize,
    /// Width of the accumulator's counts.
    pub count_bits: u32,
    pub replacement: Replacement,
}

impl AccumulatorConfig {
    pub fn sets(&self) -> usize {
        self.entries / self.ways
    }
}

/// A validated multi-hash profiler configuration. Construct with [`ProfilerConfig::from_toml_str`]
/// or [`ProfilerConfig::load`]; after editing fields of one, check it with
/// [`ProfilerConfig::validate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfilerConfig {
    pub interval: u64,
    /// The longest L the hardware may be set to at run time; `None`: `interval`
    /// ([`ProfilerConfig::max_interval`]).
    pub max_interval: Option<u64>,
    /// T, resolved to a count.
    pub threshold: u64,
    /// The largest T the hardware may be set to at run time; `None`: `threshold`
    /// ([`ProfilerConfig::max_threshold`]).
    pub max_threshold: Option<u64>,
    pub tables: usize,
    pub entries: usize,
    pub counter_bits: u32,
    pub conservative_update: bool,
    pub reset_on_promote: bool,
    /// With R1, what a promoted tuple's counters are written with (below T).
    pub reset_value: u64,
    pub retaining: bool,
    pub hash: HashKind,
    pub seed: u64,
    pub a_bits: u32,
    pub b_bits: u32,
    pub accumulator: AccumulatorConfig,
    /// The block-RAM profiler's write stage (hardware only; module docs).
    pub write_stage: bool,
    /// The block-RAM profiler's counter tables read through their RAMs' output register
    /// (hardware only; module docs).
    pub counter_output_register: bool,
    /// The block-RAM profiler's refused slot in stage 0 (hardware only; module docs).
    pub refused_slot: bool,
    /// The block-RAM profiler's tabulation byte tables in block RAM (hardware only; module docs).
    pub hash_block_ram: bool,
    /// The block-RAM profiler's hash from a register of its own stage (hardware only; module
    /// docs).
    pub hash_stage: bool,
    /// The set-associative accumulator's flags read through registered rows (hardware only;
    /// module docs).
    pub flag_rows: bool,
    /// The set-associative accumulator's tag compare in 2-bit slices (hardware only; module
    /// docs).
    pub narrow_tag_compare: bool,
    /// Hardware options per synthesis target, by name ([`TARGETS`]; apply with
    /// [`ProfilerConfig::for_target`]).
    pub targets: BTreeMap<String, TargetOptions>,
}

/// Largest supported values, chosen so that RTL widths stay sane.
pub const MAX_INTERVAL: u64 = 1 << 40;
pub const MAX_TABLES: u64 = 16;
pub const MAX_ENTRIES: u64 = 1 << 20;
pub const MAX_COUNTER_BITS: u64 = 32;
pub const MAX_ACCUMULATOR: u64 = 65536;
pub const MAX_STASH: u64 = 64;

/// A [`ConfigError`] for `field` of `source` (every configuration type of the crate uses it).
pub(crate) fn err(source: &str, field: &str, rule: impl Into<String>) -> ConfigError {
    ConfigError {
        source: source.to_string(),
        field: field.to_string(),
        rule: rule.into(),
    }
}

/// A configuration file type: TOML in, a validated value out, every error naming the file and,
/// where there is one, the field.
pub trait ConfigFile: Sized {
    /// Parses TOML text into a value whose rules are checked next; `source` names it in errors.
    fn parse(text: &str, source: &str) -> Result<Self, ConfigError>;

    /// Checks every rule of the type's documentation.
    fn check(&self, rules: &Rules) -> Result<(), ConfigError>;

    /// Parses and validates TOML text; `source` names it in errors.
    fn from_toml_str(text: &str, source: &str) -> Result<Self, ConfigError> {
        let cfg = Self::parse(text, source)?;
        cfg.check(&Rules { source })?;
        Ok(cfg)
    }

    /// Reads and validates a TOML file.
    fn load(path: &Path) -> Result<Self, ConfigError> {
        let source = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| err(&source, "", format!("cannot read file: {e}")))?;
        Self::from_toml_str(&text, &source)
    }

    /// Checks the rules of a value built in code.
    fn validate(&self) -> Result<(), ConfigError> {
        self.check(&Rules { source: "<config>" })
    }
}

/// The rule checks of one configuration; a failure names its `source` and the field.
pub struct Rules<'a> {
    pub source: &'a str,
}

impl Rules<'_> {
    /// `field` breaks `rule`.
    pub fn fail(&self, field: &str, rule: impl Into<String>) -> Result<(), ConfigError> {
        Err(err(self.source, field, rule))
    }

    /// `value` must lie in `range`.
    pub fn in_range<T: PartialOrd + fmt::Display>(
        &self,
        field: &str,
        value: T,
        range: std::ops::RangeInclusive<T>,
    ) -> Result<(), ConfigError> {
        if range.contains(&value) {
            return Ok(());
        }
        let (lo, hi) = range.into_inner();
        self.fail(field, format!("must be in {lo}..={hi}, got {value}"))
    }

    /// `value` must be a power of two in `range`.
    pub fn power_of_two_in(
        &self,
        field: &str,
        value: u64,
        range: std::ops::RangeInclusive<u64>,
    ) -> Result<(), ConfigError> {
        if value.is_power_of_two() && range.contains(&value) {
            return Ok(());
        }
        let (lo, hi) = range.into_inner();
        self.fail(
            field,
            format!("must be a power of two in {lo}..={hi}, got {value}"),
        )
    }
}

/// Whether TOML text has the top-level key `key` (how the configuration kinds tell each other
/// apart).
pub(crate) fn toml_has_key(text: &str, key: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key(key))
}

/// Deserializes TOML (unknown fields are rejected by each file type); the error names `source`.
pub(crate) fn parse_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    source: &str,
) -> Result<T, ConfigError> {
    toml::from_str(text)
        .map_err(|e| err(source, "", e.to_string().trim_end().replace('\n', "\n  ")))
}

/// T = ceil(L·p/100) for a decimal percentage string `"p%"`, computed exactly.
fn resolve_percent(source: &str, interval: u64, text: &str) -> Result<u64, ConfigError> {
    let bad = || {
        err(
            source,
            "threshold",
            format!("expected a count or a percentage such as \"1%\" or \"0.1%\", got {text:?}"),
        )
    };
    let num = text.trim().strip_suffix('%').ok_or_else(bad)?.trim();
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|c| c.is_ascii_digit())
        || !frac.bytes().all(|c| c.is_ascii_digit())
        || frac.len() > 12
        || int.len() > 3
    {
        return Err(bad());
    }
    let scale = 10u128.pow(frac.len() as u32);
    let mantissa: u128 = format!("{int}{frac}").parse().map_err(|_| bad())?;
    if mantissa == 0 || mantissa > 100 * scale {
        return Err(err(
            source,
            "threshold",
            format!("percentage must be in (0, 100], got {text:?}"),
        ));
    }
    let den = 100 * scale;
    Ok(((interval as u128 * mantissa).div_ceil(den)) as u64)
}

impl ConfigFile for ProfilerConfig {
    fn parse(text: &str, source: &str) -> Result<Self, ConfigError> {
        let file: ProfilerFile = parse_toml(text, source)?;
        let interval = file.interval;
        if !(1..=MAX_INTERVAL).contains(&interval) {
            return Err(err(
                source,
                "interval",
                format!("must be in 1..={MAX_INTERVAL}, got {interval}"),
            ));
        }
        let threshold = match &file.threshold {
            ThresholdSpec::Count(t) => *t,
            ThresholdSpec::Percent(p) => resolve_percent(source, interval, p)?,
        };
        let acc = file.accumulator.clone();
        let organisation = acc
            .as_ref()
            .and_then(|a| a.organisation)
            .unwrap_or(Organisation::FullyAssociative);
        let acc_entries = acc
            .as_ref()
            .and_then(|a| a.entries)
            .unwrap_or(if threshold == 0 {
                0
            } else {
                interval / threshold
            });
        let ways = match organisation {
            Organisation::FullyAssociative => acc_entries,
            Organisation::SetAssociative => acc.as_ref().and_then(|a| a.ways).unwrap_or(4),
        };
        let stash = acc.as_ref().and_then(|a| a.stash).unwrap_or(0);
        let counter_bits = file.counter_bits.unwrap_or(24).min(u32::MAX as u64) as u32;
        let count_bits = acc
            .as_ref()
            .and_then(|a| a.count_bits)
            .map_or(counter_bits, |b| b.min(u32::MAX as u64) as u32);
        let cfg = ProfilerConfig {
            interval,
            max_interval: file.max_interval,
            threshold,
            max_threshold: file.max_threshold,
            tables: file.tables as usize,
            entries: file.entries as usize,
            counter_bits,
            conservative_update: file.conservative_update.unwrap_or(true),
            reset_on_promote: file.reset_on_promote.unwrap_or(false),
            reset_value: file.reset_value.unwrap_or(0),
            retaining: file.retaining.unwrap_or(true),
            hash: file.hash.unwrap_or(HashKind::Tabulation),
            seed: file.seed.unwrap_or(1),
            a_bits: file.a_bits.unwrap_or(48).min(u32::MAX as u64) as u32,
            b_bits: file.b_bits.unwrap_or(48).min(u32::MAX as u64) as u32,
            accumulator: AccumulatorConfig {
                entries: acc_entries as usize,
                organisation,
                ways: ways as usize,
                stash: stash as usize,
                count_bits,
                replacement: acc
                    .as_ref()
                    .and_then(|a| a.replacement)
                    .unwrap_or(Replacement::First),
            },
            write_stage: file
                .write_stage
                .unwrap_or(organisation == Organisation::SetAssociative),
            counter_output_register: file.counter_output_register.unwrap_or(false),
            refused_slot: file.refused_slot.unwrap_or(false),
            hash_block_ram: file.hash_block_ram.unwrap_or(false),
            hash_stage: file.hash_stage.unwrap_or(false),
            flag_rows: file.flag_rows.unwrap_or(false),
            narrow_tag_compare: file.narrow_tag_compare.unwrap_or(false),
            targets: file.target.clone().unwrap_or_default(),
        };
        if organisation == Organisation::FullyAssociative {
            if let Some(a) = &acc {
                if a.ways.is_some() || a.stash.is_some() {
                    return Err(err(
                        source,
                        "accumulator.ways",
                        "`ways` and `stash` apply only to organisation = \"set_associative\"",
                    ));
                }
            }
        }
        Ok(cfg)
    }

    fn check(&self, r: &Rules) -> Result<(), ConfigError> {
        let e = |field: &str, rule: String| r.fail(field, rule);
        r.in_range("interval", self.interval, 1..=MAX_INTERVAL)?;
        if let Some(m) = self.max_interval {
            r.in_range("max_interval", m, self.interval..=MAX_INTERVAL)?;
        }
        if self.threshold == 0 {
            return e("threshold", "must be at least 1 (got 0)".into());
        }
        if self.threshold > self.interval {
            return e(
                "threshold",
                format!(
                    "must not exceed the interval {} (got {})",
                    self.interval, self.threshold
                ),
            );
        }
        r.in_range("tables", self.tables as u64, 1..=MAX_TABLES)?;
        r.power_of_two_in("entries", self.entries as u64, 2..=MAX_ENTRIES)?;
        r.in_range(
            "counter_bits",
            self.counter_bits as u64,
            1..=MAX_COUNTER_BITS,
        )?;
        if self.counter_max() < self.threshold {
            return e(
                "counter_bits",
                format!(
                    "{} bits saturate at {}, below the threshold {}: counters could never reach it",
                    self.counter_bits,
                    self.counter_max(),
                    self.threshold
                ),
            );
        }
        if let Some(m) = self.max_threshold {
            r.in_range("max_threshold", m, self.threshold..=self.max_interval())?;
            if self.counter_max() < m {
                return e(
                    "max_threshold",
                    format!(
                        "{m} is above {}, where counter_bits = {} saturate: counters could never reach it",
                        self.counter_max(),
                        self.counter_bits
                    ),
                );
            }
        }
        if self.reset_value > 0 && !self.reset_on_promote {
            return e(
                "reset_value",
                format!(
                    "is used only with reset_on_promote = true (got {} with reset_on_promote = false)",
                    self.reset_value
                ),
            );
        }
        if self.reset_value >= self.threshold {
            return e(
                "reset_value",
                format!(
                    "must be below the threshold {} (got {}): a promoted tuple's counters would \
                     promote the next tuple sharing them at once",
                    self.threshold, self.reset_value
                ),
            );
        }
        r.in_range("a_bits", self.a_bits, 1..=64)?;
        r.in_range("b_bits", self.b_bits, 1..=64)?;
        let acc = &self.accumulator;
        if !(self.counter_bits as u64..=MAX_COUNTER_BITS).contains(&(acc.count_bits as u64)) {
            return e(
                "accumulator.count_bits",
                format!(
                    "must be in counter_bits..={MAX_COUNTER_BITS} ({}..={MAX_COUNTER_BITS}: a promoted entry \
                     starts from the table counters' value), got {}",
                    self.counter_bits, acc.count_bits
                ),
            );
        }
        r.in_range(
            "accumulator.entries",
            acc.entries as u64,
            1..=MAX_ACCUMULATOR,
        )?;
        match acc.organisation {
            Organisation::FullyAssociative => {
                if acc.ways != acc.entries || acc.stash != 0 {
                    return e(
                        "accumulator.ways",
                        "a fully-associative accumulator has one set: ways = entries, stash = 0"
                            .into(),
                    );
                }
            }
            Organisation::SetAssociative => {
                if acc.ways == 0
                    || acc.entries % acc.ways != 0
                    || !(acc.entries / acc.ways).is_power_of_two()
                {
                    return e(
                        "accumulator.ways",
                        format!(
                            "must divide accumulator.entries ({}) into a power-of-two number of sets, got {}",
                            acc.entries, acc.ways
                        ),
                    );
                }
                r.in_range("accumulator.stash", acc.stash as u64, 0..=MAX_STASH)?;
            }
        }
        // The block-RAM profiler's hardware options, and what each is in it.
        let block_ram_options = [
            (
                self.write_stage,
                "write_stage",
                "a stage of the block-RAM profiler",
            ),
            (
                self.counter_output_register,
                "counter_output_register",
                "a register of the block-RAM profiler's counter tables",
            ),
            (
                self.refused_slot,
                "refused_slot",
                "a register of the block-RAM profiler's stage 0",
            ),
            (
                self.hash_block_ram,
                "hash_block_ram",
                "a stage of the block-RAM profiler",
            ),
            (
                self.hash_stage,
                "hash_stage",
                "a stage of the block-RAM profiler",
            ),
            (
                self.flag_rows,
                "flag_rows",
                "a form of the set-associative accumulator's flags",
            ),
            (
                self.narrow_tag_compare,
                "narrow_tag_compare",
                "a form of the set-associative accumulator's tag compare",
            ),
        ];
        for (on, field, what) in block_ram_options {
            if on && acc.organisation != Organisation::SetAssociative {
                return e(
                    field,
                    format!("is {what}: it needs accumulator.organisation = \"set_associative\""),
                );
            }
        }
        if self.hash_block_ram && self.hash != HashKind::Tabulation {
            return e(
                "hash_block_ram",
                "puts the tabulation hash's byte tables in block RAM: it needs hash = \"tabulation\" (h3 is a few xor gates per index bit)"
                    .into(),
            );
        }
        for name in self.targets.keys() {
            if !TARGETS.contains(&name.as_str()) {
                return e(
                    &format!("target.{name}"),
                    format!("unknown target: expected one of {}", TARGETS.join(", ")),
                );
            }
            // The resolved configuration's failure is the section's: name its field there.
            self.for_target(name).check(r).map_err(|mut err| {
                err.field = format!("target.{name}.{}", err.field);
                err
            })?;
        }
        Ok(())
    }
}

impl ProfilerConfig {
    /// The configuration for synthesis target `target`: its `[target.<name>]` options over the
    /// file's own (none for a target without a section). The result has no target sections.
    pub fn for_target(&self, target: &str) -> ProfilerConfig {
        let mut c = self.clone();
        c.targets.clear();
        if let Some(o) = self.targets.get(target) {
            c.write_stage = o.write_stage.unwrap_or(c.write_stage);
            c.counter_output_register = o
                .counter_output_register
                .unwrap_or(c.counter_output_register);
            c.refused_slot = o.refused_slot.unwrap_or(c.refused_slot);
            c.hash_block_ram = o.hash_block_ram.unwrap_or(c.hash_block_ram);
            c.hash_stage = o.hash_stage.unwrap_or(c.hash_stage);
            c.flag_rows = o.flag_rows.unwrap_or(c.flag_rows);
            c.narrow_tag_compare = o.narrow_tag_compare.unwrap_or(c.narrow_tag_compare);
        }
        c
    }

    /// The longest interval the hardware may be set to at run time: `max_interval`, or L.
    pub fn max_interval(&self) -> u64 {
        self.max_interval.unwrap_or(self.interval)
    }

    /// The largest T the hardware may be set to at run time: `max_threshold`, or T.
    pub fn max_threshold(&self) -> u64 {
        self.max_threshold.unwrap_or(self.threshold)
    }

    /// The smallest T the hardware may be set to at run time: above `reset_value` (so a
    /// promoted tuple's counters never promote the next tuple sharing them at once), at least 1;
    /// T itself when T is fixed.
    pub fn min_threshold(&self) -> u64 {
        match self.fixed_threshold() {
            Some(t) => t,
            None => self.reset_value + 1,
        }
    }

    /// T, when the hardware holds it as a constant: the configuration has no `max_threshold`
    /// (T at run time costs registers and compares with them, which a fixed T does not).
    pub fn fixed_threshold(&self) -> Option<u64> {
        self.max_threshold.is_none().then_some(self.threshold)
    }

    /// log2(entries): the width of a table index.
    pub fn index_bits(&self) -> u32 {
        self.entries.trailing_zeros()
    }

    /// The saturation value of every counter: 2^counter_bits − 1.
    pub fn counter_max(&self) -> u64 {
        (1u64 << self.counter_bits) - 1
    }

    /// The saturation value of the accumulator's counts: 2^accumulator.count_bits − 1.
    pub fn accumulator_count_max(&self) -> u64 {
        (1u64 << self.accumulator.count_bits) - 1
    }

    pub fn a_mask(&self) -> u64 {
        width_mask(self.a_bits)
    }

    pub fn b_mask(&self) -> u64 {
        width_mask(self.b_bits)
    }

    /// Bytes of each key that the tabulation hash reads: ceil(max(a_bits, b_bits) / 8).
    pub fn key_bytes(&self) -> usize {
        (self.a_bits.max(self.b_bits) as usize).div_ceil(8)
    }

    /// Total bits of hash-table counters (tables × entries × counter_bits).
    pub fn counter_storage_bits(&self) -> u64 {
        self.tables as u64 * self.entries as u64 * self.counter_bits as u64
    }

    /// A one-line summary such as `4x512x24b C1R0P1 tabulation L=10000 T=100 A=100`.
    pub fn summary(&self) -> String {
        format!(
            "{}x{}x{}b C{}R{}P{} {} L={}{} T={}{} A={}{}{}{}{}",
            self.tables,
            self.entries,
            self.counter_bits,
            self.conservative_update as u8,
            self.reset_on_promote as u8,
            self.retaining as u8,
            match self.hash {
                HashKind::Tabulation => "tabulation",
                HashKind::H3 => "h3",
            },
            self.interval,
            match self.max_interval {
                Some(m) if m > self.interval => format!(" (max {m})"),
                _ => String::new(),
            },
            self.threshold,
            match self.max_threshold {
                Some(m) if m > self.threshold => format!(" (max {m})"),
                _ => String::new(),
            },
            self.accumulator.entries,
            if self.accumulator.count_bits != self.counter_bits {
                format!(" count {}b", self.accumulator.count_bits)
            } else {
                String::new()
            },
            match self.accumulator.organisation {
                Organisation::FullyAssociative => String::new(),
                Organisation::SetAssociative => format!(
                    " ({}-way, stash {})",
                    self.accumulator.ways, self.accumulator.stash
                ),
            },
            match self.accumulator.replacement {
                Replacement::First => "",
                Replacement::Smallest => " replace smallest",
            },
            if self.reset_value > 0 {
                format!(" reset to {}", self.reset_value)
            } else {
                String::new()
            }
        )
    }
}

/// All-ones in the low `bits` bits (bits in 1..=64).
pub fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "interval = 10000\nthreshold = \"1%\"\ntables = 4\nentries = 512\n";

    fn parse(extra: &str) -> Result<ProfilerConfig, ConfigError> {
        ProfilerConfig::from_toml_str(&format!("{BASE}{extra}"), "t.toml")
    }

    #[test]
    fn defaults_and_percent() {
        let c = parse("").unwrap();
        assert_eq!(c.threshold, 100);
        assert_eq!(c.accumulator.entries, 100);
        assert_eq!(c.counter_bits, 24);
        assert!(c.conservative_update && !c.reset_on_promote && c.retaining);
        assert!(
            !c.write_stage,
            "fully associative: no block-RAM counter pipeline"
        );
        let c =
            parse("[accumulator]\norganisation = \"set_associative\"\nentries = 128\n").unwrap();
        assert!(
            c.write_stage,
            "the block-RAM profiler has the write stage by default"
        );
        let c = ProfilerConfig::from_toml_str(
            "interval = 1000000\nthreshold = \"0.1%\"\ntables = 1\nentries = 2048\n",
            "x",
        )
        .unwrap();
        assert_eq!(c.threshold, 1000, "exact decimal, no float rounding up");
        assert_eq!(c.accumulator.entries, 1000);
        let c = ProfilerConfig::from_toml_str(
            "interval = 333\nthreshold = \"1%\"\ntables = 1\nentries = 2\n",
            "x",
        )
        .unwrap();
        assert_eq!(c.threshold, 4, "ceil(3.33)");
    }

    #[test]
    fn hash_block_ram_needs_the_tabulation_hash() {
        let set = "[accumulator]\norganisation = \"set_associative\"\nentries = 8\nways = 2\n";
        let c = ProfilerConfig::from_toml_str(
            &format!("interval = 100\nthreshold = 4\ntables = 2\nentries = 16\nhash_block_ram = true\n{set}"),
            "t",
        )
        .unwrap();
        assert!(c.hash_block_ram);
        let h3 = ProfilerConfig::from_toml_str(
            &format!("interval = 100\nthreshold = 4\ntables = 2\nentries = 16\nhash = \"h3\"\nhash_block_ram = true\n{set}"),
            "t",
        )
        .unwrap_err();
        assert_eq!(h3.field, "hash_block_ram");
        assert!(h3.to_string().contains("tabulation"), "{h3}");
        // In a target's section, the resolved configuration's rule names the section.
        let section = ProfilerConfig::from_toml_str(
            &format!("interval = 100\nthreshold = 4\ntables = 2\nentries = 16\nhash = \"h3\"\n[target.ecp5-25k]\nhash_block_ram = true\n{set}"),
            "t",
        )
        .unwrap_err();
        assert_eq!(section.field, "target.ecp5-25k.hash_block_ram");
    }

    #[test]
    fn rules_name_the_field() {
        let cases = [
            ("tables = 0", "tables"),
            ("entries = 500", "entries"),
            ("threshold = 0", "threshold"),
            ("threshold = 10001", "threshold"),
            ("threshold = \"abc\"", "threshold"),
            ("counter_bits = 6", "counter_bits"),
            ("a_bits = 0", "a_bits"),
            ("b_bits = 65", "b_bits"),
            ("write_stage = true", "write_stage"),
            ("counter_output_register = true", "counter_output_register"),
            ("refused_slot = true", "refused_slot"),
            ("hash_block_ram = true", "hash_block_ram"),
            ("hash_stage = true", "hash_stage"),
            ("flag_rows = true", "flag_rows"),
            ("narrow_tag_compare = true", "narrow_tag_compare"),
            ("[accumulator]\nentries = 0", "accumulator.entries"),
            ("[accumulator]\ncount_bits = 20", "accumulator.count_bits"),
            ("[accumulator]\ncount_bits = 33", "accumulator.count_bits"),
            ("[accumulator]\nreplacement = \"largest\"", ""),
            (
                "[accumulator]\norganisation = \"set_associative\"\nentries = 100\nways = 3",
                "accumulator.ways",
            ),
        ];
        for (extra, field) in cases {
            // Later keys override: rebuild the base without the key being replaced.
            let key = extra.split([' ', '\n']).next().unwrap();
            let base: String = BASE
                .lines()
                .filter(|l| !l.starts_with(key))
                .map(|l| format!("{l}\n"))
                .collect();
            let r = ProfilerConfig::from_toml_str(&format!("{base}{extra}\n"), "t.toml");
            let e = r.expect_err(extra);
            assert_eq!(e.field, field, "{extra}: {e}");
        }
    }

    #[test]
    fn target_sections_resolve_per_target() {
        let sa = "[accumulator]\norganisation = \"set_associative\"\nentries = 128\nways = 2\n";
        let c = parse(&format!(
            "write_stage = false\n{sa}[target.ice40-hx8k]\nwrite_stage = true\n\
             [target.ecp5-85k]\ncounter_output_register = true\nrefused_slot = true\n"
        ))
        .unwrap();
        assert!(!c.write_stage && !c.counter_output_register && !c.refused_slot);
        let hx = c.for_target("ice40-hx8k");
        assert!(hx.write_stage && !hx.counter_output_register && hx.targets.is_empty());
        let ecp = c.for_target("ecp5-85k");
        assert!(!ecp.write_stage && ecp.counter_output_register && ecp.refused_slot);
        let up = c.for_target("ice40-up5k");
        assert_eq!(
            up,
            ProfilerConfig {
                targets: Default::default(),
                ..c.clone()
            }
        );
        // Everything but the hardware options is the same for every target.
        assert_eq!(hx.summary(), c.summary());
        let e = parse(&format!("{sa}[target.ice40-hx9k]\nwrite_stage = true\n")).unwrap_err();
        assert_eq!(e.field, "target.ice40-hx9k", "{e}");
        assert!(e.rule.contains("ice40-hx8k"), "{e}");
        let e = parse("[target.ice40-up5k]\nwrite_stage = true\n").unwrap_err();
        assert_eq!(e.field, "target.ice40-up5k.write_stage", "{e}");
        let e = parse(&format!("{sa}[target.ice40-up5k]\ninterval = 5\n")).unwrap_err();
        assert!(e.to_string().contains("interval"), "{e}");
    }

    #[test]
    fn unknown_field_rejected() {
        let e = parse("bogus_field = 3\n").unwrap_err();
        assert!(e.to_string().contains("bogus_field"), "{e}");
    }
}
