//! A flat profile built from a profiler's interval reports, in the manner of gprof or perf: one
//! row per reported tuple, ranked by its count summed over the intervals that reported it, named
//! with the program's functions and source lines.
//!
//! Reports reach the host in several forms; all are read into [`ReportLine`]s:
//! - JSON lines, one interval report per line (`hwprof model --reports`, `soc run --out`), and
//!   optionally the exact count of each reported tuple over the whole stream, for an error column;
//! - the JSON of `hwprof soc run --json` (the hardware's reports of both modes);
//! - the text lines of the board tops' report format (a UART capture, or what a program that
//!   drains the profiler over its bus prints on its console), whose mode the caller names.

use crate::eval::symbols::Symbolizer;
use crate::model::board::report_format;
use crate::model::multihash::{IntervalReport, ReportEntry};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a tuple `(a, b)` of a report holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TupleKind {
    /// The pc of a load and the value it loaded (the SoC's value mode).
    Value,
    /// The pc of a load and the address it read (lackey load traces).
    Load,
    /// The pc of a control transfer and the pc it went to.
    Edge,
    /// The pc of a conditional branch and whether it was taken.
    Branch,
}

impl TupleKind {
    pub fn name(self) -> &'static str {
        match self {
            TupleKind::Value => "value",
            TupleKind::Load => "load",
            TupleKind::Edge => "edge",
            TupleKind::Branch => "branch",
        }
    }

    pub fn parse(s: &str) -> Option<TupleKind> {
        [
            TupleKind::Value,
            TupleKind::Load,
            TupleKind::Edge,
            TupleKind::Branch,
        ]
        .into_iter()
        .find(|k| k.name() == s)
    }
}

/// One line of a reports file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "lowercase")]
pub enum ReportLine {
    /// One interval's report: its number, the events it covered (L), the reported tuples.
    Interval {
        mode: TupleKind,
        interval: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        events: Option<u64>,
        entries: Vec<Entry>,
    },
    /// The exact count of a tuple over every reported interval of the stream.
    Exact {
        mode: TupleKind,
        a: u64,
        b: u64,
        count: u64,
    },
}

/// A reported tuple (the JSON form of [`ReportEntry`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub a: u64,
    pub b: u64,
    pub count: u64,
}

/// The lines of a run's reports of one mode, with the exact counts (over the same complete
/// intervals) of every tuple any interval reported, when the stream is known.
pub fn report_lines(
    mode: TupleKind,
    interval_events: u64,
    reports: &[IntervalReport],
    exact: Option<&dyn Fn(u64, u64) -> u64>,
) -> Vec<ReportLine> {
    let mut out: Vec<ReportLine> = reports
        .iter()
        .map(|r| ReportLine::Interval {
            mode,
            interval: r.interval,
            events: Some(interval_events),
            entries: r
                .entries
                .iter()
                .map(|e| Entry {
                    a: e.a,
                    b: e.b,
                    count: e.count,
                })
                .collect(),
        })
        .collect();
    if let Some(exact) = exact {
        let tuples: std::collections::BTreeSet<(u64, u64)> = reports
            .iter()
            .flat_map(|r| r.entries.iter().map(|e| (e.a, e.b)))
            .collect();
        out.extend(tuples.into_iter().map(|(a, b)| ReportLine::Exact {
            mode,
            a,
            b,
            count: exact(a, b),
        }));
    }
    out
}

/// The exact counts of tuples in the complete intervals of a stream (the ones a profiler reports).
pub fn exact_counts(
    events: &[(u64, u64)],
    interval: u64,
) -> rustc_hash::FxHashMap<(u64, u64), u64> {
    let complete = events.len() - events.len() % interval.max(1) as usize;
    let mut m = rustc_hash::FxHashMap::default();
    for &t in &events[..complete] {
        *m.entry(t).or_insert(0) += 1;
    }
    m
}

/// JSON lines of a reports file.
pub fn to_json_lines(lines: &[ReportLine]) -> String {
    lines
        .iter()
        .map(|l| serde_json::to_string(l).expect("report lines serialize") + "\n")
        .collect()
}

/// Reads reports in any of the forms of the module documentation; `mode` names what the tuples of
/// a text capture hold (the text format does not say). `what` names the input in messages.
pub fn read_reports(text: &str, mode: TupleKind, what: &str) -> Result<Vec<ReportLine>, String> {
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err(format!("{what}: empty: no report to profile"));
    }
    if trimmed.starts_with('{') {
        // One JSON document (soc run --json), or JSON lines.
        if let Ok(doc) = serde_json::from_str::<serde_json::Value>(trimmed) {
            if doc.get("record").is_none() {
                return soc_run_reports(&doc, what);
            }
        }
        return text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str::<ReportLine>(l)
                    .map_err(|e| format!("{what}:{}: not a report line: {e}", i + 1))
            })
            .collect();
    }
    if let Some(r) = bus_printout(text, what) {
        return r;
    }
    let reports = decode_text(text).map_err(|e| format!("{what}: {e}"))?;
    Ok(reports
        .into_iter()
        .map(|r| ReportLine::Interval {
            mode,
            interval: r.interval,
            events: None,
            entries: r
                .entries
                .iter()
                .map(|e| Entry {
                    a: e.a,
                    b: e.b,
                    count: e.count,
                })
                .collect(),
        })
        .collect())
}

/// What starts each report word a program prints after reading it over the bus
/// (sim/programs/readout.c): `@@hwprof W <V|E> <interval> <a> <b> <count> <last>`, in hex.
pub const BUS_WORD: &str = "@@hwprof W ";

/// One report word of a bus-readout printout line (without its line break): mode ('V' or 'E'),
/// interval, a, b, count, last; `None` when the line is not one.
pub fn parse_bus_word(line: &str) -> Option<Result<(char, u64, u64, u64, u64, bool), String>> {
    let rest = line.strip_prefix(BUS_WORD)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let hex =
        |s: &str| u64::from_str_radix(s, 16).map_err(|_| format!("bad hex {s:?} in {line:?}"));
    Some((|| {
        let [mode, interval, a, b, count, last] = f[..] else {
            return Err(format!("a report word has 6 fields: {line:?}"));
        };
        let mode = match mode {
            "V" => 'V',
            "E" => 'E',
            _ => return Err(format!("mode {mode:?} is not V or E in {line:?}")),
        };
        Ok((
            mode,
            hex(interval)?,
            hex(a)?,
            hex(b)?,
            hex(count)?,
            last == "1",
        ))
    })())
}

/// The reports of a bus-readout printout, both modes, in order; `None` if it has no word.
fn bus_printout(text: &str, what: &str) -> Option<Result<Vec<ReportLine>, String>> {
    let mut out = Vec::new();
    let mut open: [Option<(u64, Vec<Entry>)>; 2] = [None, None];
    let mut any = false;
    for (n, line) in text.lines().enumerate() {
        let Some(w) = parse_bus_word(line.trim_end()) else {
            continue;
        };
        any = true;
        let (mode, interval, a, b, count, last) = match w {
            Ok(w) => w,
            Err(e) => return Some(Err(format!("{what}:{}: {e}", n + 1))),
        };
        let k = usize::from(mode == 'E');
        let r = open[k].get_or_insert_with(|| (interval, Vec::new()));
        if count != 0 {
            r.1.push(Entry { a, b, count });
        }
        if last {
            let (interval, entries) = open[k].take().expect("open");
            out.push(ReportLine::Interval {
                mode: if k == 0 {
                    TupleKind::Value
                } else {
                    TupleKind::Edge
                },
                interval,
                events: None,
                entries,
            });
        }
    }
    any.then_some(Ok(out))
}

/// The board tops' report lines in a capture: a first line cut by the capture's start and text
/// after the last line break are left out; other text around the report lines (a program's own
/// output on the same console) is skipped.
pub fn decode_text(text: &str) -> Result<Vec<IntervalReport>, String> {
    let lines: Vec<&str> = text
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .map(|l| l.trim_end_matches('\n').trim_end_matches('\r'))
        .filter(|l| report_format::parse(&format!("{l}\r\n")).is_ok())
        .collect();
    if lines.is_empty() {
        return Err("no report line (`interval a b count`, in hex) in it".into());
    }
    let whole: String = lines.iter().map(|l| format!("{l}\r\n")).collect();
    report_format::parse(&whole)
}

/// The hardware's reports in `hwprof soc run --json`.
fn soc_run_reports(doc: &serde_json::Value, what: &str) -> Result<Vec<ReportLine>, String> {
    let mut out = Vec::new();
    for (key, mode) in [("value", TupleKind::Value), ("edge", TupleKind::Edge)] {
        let Some(m) = doc.get(key) else { continue };
        let Some(reports) = m.get("hardware_reports") else {
            return Err(format!(
                "{what}: `{key}` has no `hardware_reports`: not the JSON of `hwprof soc run --json`"
            ));
        };
        let events = m.get("interval_length").and_then(|v| v.as_u64());
        let reports: Vec<Report> = serde_json::from_value(reports.clone())
            .map_err(|e| format!("{what}: {key}.hardware_reports: {e}"))?;
        out.extend(reports.into_iter().map(|r| ReportLine::Interval {
            mode,
            interval: r.interval,
            events,
            entries: r.entries,
        }));
    }
    if out.is_empty() && doc.get("value").is_none() && doc.get("edge").is_none() {
        return Err(format!(
            "{what}: a JSON document without `value` or `edge` reports: give JSON lines of reports, `soc run --json`, or a UART capture"
        ));
    }
    Ok(out)
}

#[derive(Deserialize)]
struct Report {
    interval: u64,
    entries: Vec<Entry>,
}

/// Where an address is: `function+offset`, file and line.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Place {
    pub function: String,
    pub file: String,
    pub line: u32,
}

/// One row of a flat profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub rank: usize,
    pub mode: TupleKind,
    pub a: u64,
    pub b: u64,
    /// Percent of the events of its mode's reported intervals (of its mode's reported counts
    /// when the reports do not say how many events an interval had).
    pub share: f64,
    /// The count summed over the intervals that reported the tuple.
    pub count: u64,
    /// Intervals that reported it.
    pub intervals: u64,
    /// Where `a` is (the load, or the transfer's source).
    pub function: String,
    pub file: String,
    pub line: u32,
    /// Edge mode: where the transfer went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<Place>,
    /// Value and load modes: `b` in hex, and the ELF object it points into.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_symbol: Option<String>,
    /// The tuple's exact count over the same intervals, and the profile's relative error
    /// `(count - exact) / exact`, where the stream is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<f64>,
}

/// A flat profile.
#[derive(Debug, Clone, Serialize)]
pub struct FlatProfile {
    /// Reported intervals, and the events they covered (none when unknown).
    pub intervals: u64,
    pub events: Option<u64>,
    /// What `share` is a percentage of: "events" or "reported counts".
    pub share_of: &'static str,
    pub rows: Vec<Row>,
    /// Per row (same order), the count in each reported interval, for the heat map.
    #[serde(skip)]
    pub per_interval: Vec<Vec<u64>>,
    #[serde(skip)]
    pub interval_numbers: Vec<u64>,
}

/// Only the lines of one mode.
pub fn only_mode(lines: Vec<ReportLine>, only: TupleKind) -> Vec<ReportLine> {
    lines
        .into_iter()
        .filter(|l| match l {
            ReportLine::Interval { mode, .. } | ReportLine::Exact { mode, .. } => *mode == only,
        })
        .collect()
}

/// Builds the flat profile of `lines`; `elf` names the program's addresses.
pub fn flat_profile(lines: &[ReportLine], elf: Option<&Symbolizer>) -> Result<FlatProfile, String> {
    type Key = (TupleKind, u64, u64);
    let mut totals: BTreeMap<Key, (u64, u64)> = BTreeMap::new();
    let mut exact: BTreeMap<Key, u64> = BTreeMap::new();
    let mut seen: BTreeMap<(TupleKind, u64), Option<u64>> = BTreeMap::new();
    for l in lines {
        match *l {
            ReportLine::Interval {
                mode,
                interval,
                events,
                ref entries,
            } => {
                if seen.insert((mode, interval), events).is_some() {
                    return Err(format!(
                        "interval {interval} of {} mode is reported twice: reports of two runs mixed?",
                        mode.name()
                    ));
                }
                for e in entries.iter().filter(|e| e.count > 0) {
                    let t = totals.entry((mode, e.a, e.b)).or_default();
                    t.0 += e.count;
                    t.1 += 1;
                }
            }
            ReportLine::Exact { mode, a, b, count } => {
                exact.insert((mode, a, b), count);
            }
        }
    }
    if seen.is_empty() {
        return Err("no interval report: nothing to profile".into());
    }
    let events: Option<u64> = seen.values().copied().sum();
    // Shares are per mode: a value profile and an edge profile of one run count different events.
    let mut denominators: BTreeMap<TupleKind, u64> = BTreeMap::new();
    for (&(mode, _), &e) in &seen {
        *denominators.entry(mode).or_default() += e.unwrap_or(0);
    }
    if events.is_none() {
        denominators.clear();
        for (&(mode, _, _), t) in &totals {
            *denominators.entry(mode).or_default() += t.0;
        }
    }
    let share_of = if events.is_some() {
        "events"
    } else {
        "reported counts"
    };
    let mut ranked: Vec<(Key, (u64, u64))> = totals.into_iter().collect();
    ranked.sort_by(|x, y| y.1 .0.cmp(&x.1 .0).then(x.0.cmp(&y.0)));
    let mut interval_numbers: Vec<u64> = seen.keys().map(|k| k.1).collect();
    interval_numbers.sort_unstable();
    interval_numbers.dedup();
    let column: BTreeMap<u64, usize> = interval_numbers
        .iter()
        .enumerate()
        .map(|(i, &n)| (n, i))
        .collect();
    let row_of: BTreeMap<Key, usize> = ranked
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (*k, i))
        .collect();
    let mut per_interval = vec![vec![0u64; interval_numbers.len()]; ranked.len()];
    for l in lines {
        if let ReportLine::Interval {
            mode,
            interval,
            ref entries,
            ..
        } = *l
        {
            for e in entries {
                if let Some(&r) = row_of.get(&(mode, e.a, e.b)) {
                    per_interval[r][column[&interval]] += e.count;
                }
            }
        }
    }
    let place = |addr: u64| -> Place {
        match elf {
            None => Place {
                function: format!("{addr:#x}"),
                ..Place::default()
            },
            Some(s) => {
                let line = s.line(addr);
                Place {
                    function: s.name(addr),
                    file: line.as_ref().map(|l| l.file.clone()).unwrap_or_default(),
                    line: line.map(|l| l.line).unwrap_or(0),
                }
            }
        }
    };
    let rows = ranked
        .iter()
        .enumerate()
        .map(|(i, &((mode, a, b), (count, intervals)))| {
            let at = place(a);
            let pointer = matches!(mode, TupleKind::Value | TupleKind::Load);
            let ex = exact.get(&(mode, a, b)).copied();
            Row {
                rank: i + 1,
                mode,
                a,
                b,
                share: 100.0 * count as f64 / denominators[&mode].max(1) as f64,
                count,
                intervals,
                function: at.function,
                file: at.file,
                line: at.line,
                to: (mode == TupleKind::Edge).then(|| place(b)),
                value: pointer.then(|| format!("{b:#x}")),
                value_symbol: if pointer && b != 0 {
                    elf.and_then(|s| s.pointee(b))
                } else {
                    None
                },
                exact: ex,
                error: ex
                    .filter(|&x| x > 0)
                    .map(|x| (count as f64 - x as f64) / x as f64),
            }
        })
        .collect();
    Ok(FlatProfile {
        intervals: seen.len() as u64,
        events,
        share_of,
        rows,
        per_interval,
        interval_numbers,
    })
}

/// Interval reports of a reports file's lines of one mode (for comparisons with a model).
pub fn interval_reports(lines: &[ReportLine], mode: TupleKind) -> Vec<IntervalReport> {
    lines
        .iter()
        .filter_map(|l| match l {
            ReportLine::Interval {
                mode: m,
                interval,
                entries,
                ..
            } if *m == mode => Some(IntervalReport {
                interval: *interval,
                entries: entries
                    .iter()
                    .map(|e| ReportEntry {
                        a: e.a,
                        b: e.b,
                        count: e.count,
                    })
                    .collect(),
            }),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(interval: u64, entries: &[(u64, u64, u64)]) -> IntervalReport {
        IntervalReport {
            interval,
            entries: entries
                .iter()
                .map(|&(a, b, count)| ReportEntry { a, b, count })
                .collect(),
        }
    }

    #[test]
    fn rows_rank_by_summed_count_with_intervals_present_share_and_error() {
        let reports = [
            report(0, &[(0x10, 1, 40), (0x20, 2, 30)]),
            report(1, &[(0x20, 2, 50)]),
            report(2, &[]),
        ];
        let exact = |a: u64, _b: u64| if a == 0x20 { 100 } else { 40 };
        let lines = report_lines(TupleKind::Value, 100, &reports, Some(&exact));
        let text = to_json_lines(&lines);
        let back = read_reports(&text, TupleKind::Edge, "r.jsonl").unwrap();
        assert_eq!(back, lines);
        let p = flat_profile(&back, None).unwrap();
        assert_eq!(p.intervals, 3);
        assert_eq!(p.events, Some(300));
        assert_eq!(p.rows.len(), 2);
        let top = &p.rows[0];
        assert_eq!(
            (top.rank, top.a, top.count, top.intervals),
            (1, 0x20, 80, 2)
        );
        assert!((top.share - 100.0 * 80.0 / 300.0).abs() < 1e-9);
        assert_eq!(top.exact, Some(100));
        assert!((top.error.unwrap() + 0.2).abs() < 1e-9);
        assert_eq!(top.value.as_deref(), Some("0x2"));
        assert_eq!(p.per_interval[0], vec![30, 50, 0]);
        assert_eq!(p.rows[1].error, Some(0.0));
    }

    #[test]
    fn a_text_capture_is_read_with_the_mode_given_and_shares_of_reported_counts() {
        use crate::model::board::report_format::{format, words};
        let reports = [
            report(0, &[(0x100, 0x200, 7)]),
            report(1, &[(0x100, 0x200, 3)]),
        ];
        let text = format!("garbled lin\r\n{}", format(&words(&reports), 32, 32))
            + "hello from the program\r\n";
        let lines = read_reports(&text, TupleKind::Edge, "uart.txt").unwrap();
        let p = flat_profile(&lines, None).unwrap();
        assert_eq!(p.share_of, "reported counts");
        assert_eq!(p.rows.len(), 1);
        assert_eq!(p.rows[0].count, 10);
        assert_eq!(p.rows[0].mode, TupleKind::Edge);
        assert!(p.rows[0].to.is_some());
        assert!((p.rows[0].share - 100.0).abs() < 1e-9);
    }

    #[test]
    fn bad_input_is_named() {
        assert!(read_reports("", TupleKind::Value, "x")
            .unwrap_err()
            .contains("empty"));
        assert!(read_reports("hello\n", TupleKind::Value, "x")
            .unwrap_err()
            .contains("no report line"));
        let e =
            read_reports("{\"record\":\"interval\"}\n", TupleKind::Value, "r.jsonl").unwrap_err();
        assert!(e.starts_with("r.jsonl:1:"), "{e}");
        let twice = report_lines(
            TupleKind::Value,
            10,
            &[report(0, &[]), report(0, &[])],
            None,
        );
        assert!(flat_profile(&twice, None).unwrap_err().contains("twice"));
        assert!(read_reports("{\"instructions\": 3}", TupleKind::Value, "x")
            .unwrap_err()
            .contains("without"));
    }
}
