//! Event traces (docs/SPEC.md §8): valgrind lackey logs read as edge, load or branch tuples, a
//! plain text form, and a compact binary form; `.gz` input (any of them) is decompressed
//! transparently.
//!
//! - **edge** (`--trace-superblocks=yes`): lines `SB <hex>`; tuple = (previous SB, SB).
//! - **load** (`--trace-mem=yes`): `I  <hex>,<size>` sets the pc; ` L <hex>,<size>` and ` M …` give
//!   (pc, address); ` S …` is skipped.
//! - **branch** (`--trace-mem=yes`): a control transfer is an `I` whose successor `I` is not at
//!   address + size; every execution of a pc ever seen transferring gives (pc, taken ∈ {0, 1}).
//!   Needs the whole log first: two passes over a regular file, one pass held in memory otherwise.
//! - **text**: `a b` in hex per line (optional `0x`), `#` comments and blank lines ignored; a first
//!   line `# hwprof trace: kind <edge|load|branch> …` records what the tuples are.
//! - **binary**: magic [`BINARY_MAGIC`], a kind byte (0 unknown, 1 edge, 2 load, 3 branch), the
//!   event count as LEB128, then per event the zigzag delta of a and of b from the previous event,
//!   each LEB128 (about 3–6 bytes an event on real traces). Files with the older magic
//!   [`BINARY_MAGIC_V1`] have no kind byte and are still read.
//!
//! A trace is read from one open of its source, so pipes work: the path `-` is standard input, and
//! `/dev/stdin`, `<(zcat …)` and FIFOs are read like files; the format is recognised from the first
//! bytes and the first meaningful line. A kind asked for that contradicts what the file records (or,
//! for a lackey log, what it was recorded with) is an error.
//!
//! Lines starting `==` are valgrind's own and ignored. Anything else malformed is an error naming the
//! line (text forms) or byte offset (binary); a trace is never silently shortened.

use flate2::read::MultiGzDecoder;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// One profiling event: the tuple (a, b).
pub use crate::model::Tuple;

/// First bytes of the binary form; a kind byte follows.
pub const BINARY_MAGIC: &[u8; 8] = b"HWPTRC2\n";
/// First bytes of the older binary form, which has no kind byte.
pub const BINARY_MAGIC_V1: &[u8; 8] = b"HWPTRC1\n";
/// The start of the text form's first line; ` kind <name>` follows when the kind is known.
const TEXT_HEADER: &str = "# hwprof trace:";

/// The path that names standard input.
pub const STDIN: &str = "-";

/// How to read a valgrind lackey log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LackeyKind {
    Edge,
    Load,
    Branch,
}

impl LackeyKind {
    pub const ALL: [LackeyKind; 3] = [Self::Edge, Self::Load, Self::Branch];

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
    pub fn name(self) -> &'static str {
        match self {
            Self::Edge => "edge",
            Self::Load => "load",
            Self::Branch => "branch",
        }
    }
    /// The lackey flag that records this kind.
    pub fn valgrind_flag(self) -> &'static str {
        match self {
            Self::Edge => "--trace-superblocks=yes",
            Self::Load | Self::Branch => "--trace-mem=yes",
        }
    }
    /// The binary form's kind byte (0 is "unknown").
    fn byte(self) -> u8 {
        match self {
            Self::Edge => 1,
            Self::Load => 2,
            Self::Branch => 3,
        }
    }
    fn from_byte(b: u8) -> Option<Option<Self>> {
        match b {
            0 => Some(None),
            _ => Self::ALL.into_iter().find(|k| k.byte() == b).map(Some),
        }
    }
}

/// A trace problem: where (file, and line or byte offset) and what.
#[derive(Debug)]
pub struct TraceError {
    pub path: PathBuf,
    pub line: Option<u64>,
    pub offset: Option<u64>,
    pub msg: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path == Path::new(STDIN) {
            write!(f, "trace <stdin>")?;
        } else {
            write!(f, "trace {}", self.path.display())?;
        }
        if let Some(l) = self.line {
            write!(f, ": line {l}")?;
        }
        if let Some(o) = self.offset {
            write!(f, ": byte offset {o}")?;
        }
        write!(f, ": {}", self.msg)
    }
}

impl std::error::Error for TraceError {}

fn terr(path: &Path, line: Option<u64>, offset: Option<u64>, msg: impl Into<String>) -> TraceError {
    TraceError {
        path: path.to_path_buf(),
        line,
        offset,
        msg: msg.into(),
    }
}

/// What a file holds, as recognised from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Binary,
    Text,
    Lackey(LackeyKind),
}

/// A trace read into memory, with what its file says about it.
#[derive(Debug, Clone)]
pub struct Trace {
    pub events: Vec<Tuple>,
    pub format: Format,
    /// The kind of the tuples: asked for, recorded in the file, or implied by a lackey log.
    pub kind: Option<LackeyKind>,
}

/// Reads up to `n` bytes (fewer only at the end of the input): a pipe may deliver the first bytes
/// in several pieces.
fn peek(r: &mut impl Read, n: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// Opens the source once (`-` is standard input) and decompresses gzip, recognised by its magic.
fn open_raw(path: &Path) -> Result<Box<dyn BufRead>, TraceError> {
    let mut src: Box<dyn Read> = if path == Path::new(STDIN) {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(|e| terr(path, None, None, format!("cannot open: {e}")))?)
    };
    let head =
        peek(&mut src, 2).map_err(|e| terr(path, None, None, format!("cannot read: {e}")))?;
    let gz = head == [0x1f, 0x8b];
    let src = io::Cursor::new(head).chain(src);
    Ok(if gz {
        Box::new(BufReader::with_capacity(1 << 20, MultiGzDecoder::new(src)))
    } else {
        Box::new(BufReader::with_capacity(1 << 20, src))
    })
}

fn io_at(path: &Path, line: Option<u64>, e: io::Error) -> TraceError {
    let what = if e.kind() == io::ErrorKind::UnexpectedEof {
        "file ends early (truncated or corrupt compressed data)".to_string()
    } else {
        format!("read error: {e}")
    };
    terr(path, line, None, what)
}

fn trim(l: &[u8]) -> &[u8] {
    let s = l
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(l.len());
    let e = l
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(s, |e| e + 1);
    &l[s..e]
}

fn hex(s: &[u8]) -> Option<u64> {
    let s = s
        .strip_prefix(b"0x")
        .or_else(|| s.strip_prefix(b"0X"))
        .unwrap_or(s);
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    let mut v = 0u64;
    for &c in s {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | d as u64;
    }
    Some(v)
}

/// Splits a lackey memory line body `<hex>,<size>` into (address, size).
fn addr_size(body: &[u8]) -> Option<(u64, u64)> {
    let comma = body.iter().position(|&c| c == b',')?;
    let addr = hex(trim(&body[..comma]))?;
    let size = std::str::from_utf8(trim(&body[comma + 1..]))
        .ok()?
        .parse()
        .ok()?;
    Some((addr, size))
}

/// Calls `f(line_number, trimmed_line)` for every line of `r` that is not blank, a comment or
/// valgrind's; `first` is the number of lines of the source already consumed.
fn for_lines(
    path: &Path,
    r: &mut dyn BufRead,
    first: u64,
    mut f: impl FnMut(u64, &[u8]) -> Result<(), String>,
) -> Result<(), TraceError> {
    let mut line = Vec::with_capacity(128);
    let mut n = first;
    loop {
        line.clear();
        n += 1;
        if r.read_until(b'\n', &mut line)
            .map_err(|e| io_at(path, Some(n), e))?
            == 0
        {
            return Ok(());
        }
        let t = trim(&line);
        if t.is_empty() || t[0] == b'#' || t.starts_with(b"==") {
            continue;
        }
        f(n, t).map_err(|m| terr(path, Some(n), None, m))?;
    }
}

fn show(t: &[u8]) -> String {
    let s = String::from_utf8_lossy(&t[..t.len().min(60)]).into_owned();
    format!("{s:?}")
}

/// One lackey `--trace-mem` line: Some(('I'|'L'|'S'|'M', addr, size)).
fn mem_line(t: &[u8]) -> Result<(u8, u64, u64), String> {
    let tag = t[0];
    if !matches!(tag, b'I' | b'L' | b'S' | b'M') || t.len() < 2 || !t[1].is_ascii_whitespace() {
        return Err(format!(
            "expected a lackey --trace-mem line (I/L/S/M <hex>,<size>), got {}",
            show(t)
        ));
    }
    let (a, s) = addr_size(&t[1..]).ok_or_else(|| format!("bad address or size in {}", show(t)))?;
    Ok((tag, a, s))
}

/// The kind a text header line records, if it is one.
fn text_header_kind(t: &[u8]) -> Option<LackeyKind> {
    let rest = std::str::from_utf8(t).ok()?.strip_prefix(TEXT_HEADER)?;
    let rest = rest.trim_start().strip_prefix("kind")?;
    LackeyKind::parse(
        rest.split(|c: char| c.is_whitespace() || c == ';')
            .find(|w| !w.is_empty())?,
    )
}

/// What a lackey log's lines say about how it was recorded.
fn lackey_flavour(t: &[u8]) -> Option<LackeyKind> {
    if t.starts_with(b"SB ") {
        Some(LackeyKind::Edge)
    } else if [b"I ", b"L ", b"S ", b"M "]
        .iter()
        .any(|p| t.starts_with(*p))
    {
        Some(LackeyKind::Load)
    } else {
        None
    }
}

/// The kind asked for must agree with the kind the file records.
fn check_kind(
    path: &Path,
    asked: Option<LackeyKind>,
    recorded: Option<LackeyKind>,
    what: &str,
) -> Result<Option<LackeyKind>, TraceError> {
    match (asked, recorded) {
        (Some(a), Some(r)) if a != r => Err(terr(
            path,
            None,
            None,
            format!(
                "--kind {} asked for, but the file {what} {} tuples",
                a.name(),
                r.name()
            ),
        )),
        _ => Ok(asked.or(recorded)),
    }
}

/// Reads a whole trace into memory as tuples.
pub fn read_trace(path: &Path, kind: Option<LackeyKind>) -> Result<Vec<Tuple>, TraceError> {
    read_trace_full(path, kind).map(|t| t.events)
}

/// Reads a whole trace, opening its source once; `kind` says how to read a lackey log (edge and
/// load are also recognised without it; branch must be asked for) and is checked against the kind
/// a binary or text trace records.
pub fn read_trace_full(path: &Path, kind: Option<LackeyKind>) -> Result<Trace, TraceError> {
    let mut r = open_raw(path)?;
    let head = peek(&mut r, BINARY_MAGIC.len()).map_err(|e| io_at(path, None, e))?;
    if head.as_slice() == BINARY_MAGIC || head.as_slice() == BINARY_MAGIC_V1 {
        let mut data = Vec::new();
        r.read_to_end(&mut data).map_err(|e| io_at(path, None, e))?;
        let v2 = head.as_slice() == BINARY_MAGIC;
        let (recorded, events) = read_binary(path, &data, v2)?;
        let kind = check_kind(path, kind, recorded, "records")?;
        return finish(path, events, Format::Binary, kind);
    }
    let mut r: Box<dyn BufRead> = Box::new(BufReader::new(io::Cursor::new(head).chain(r)));
    // The first meaningful line decides the format; a text header comment may come before it.
    let mut line = Vec::with_capacity(128);
    let mut n = 0u64;
    let mut recorded = None;
    let first = loop {
        line.clear();
        n += 1;
        if r.read_until(b'\n', &mut line)
            .map_err(|e| io_at(path, Some(n), e))?
            == 0
        {
            return Err(terr(path, None, None, "no events: the input is empty"));
        }
        let t = trim(&line);
        if n == 1 {
            recorded = text_header_kind(t);
        }
        if t.is_empty() || t.starts_with(b"#") || t.starts_with(b"==") {
            continue;
        }
        break t.to_vec();
    };
    let mut out = Vec::new();
    let lines = |f: &mut dyn FnMut(u64, &[u8]) -> Result<(), String>,
                 r: &mut dyn BufRead|
     -> Result<(), TraceError> {
        f(n, &first).map_err(|m| terr(path, Some(n), None, m))?;
        for_lines(path, r, n, f)
    };
    let format = match lackey_flavour(&first) {
        None => {
            let kind = check_kind(path, kind, recorded, "records")?;
            lines(
                &mut |_, t| {
                    let mut it = t
                        .split(|c| c.is_ascii_whitespace())
                        .filter(|s| !s.is_empty());
                    let (a, b) = (it.next(), it.next());
                    match (a.and_then(hex), b.and_then(hex), it.next()) {
                        (Some(a), Some(b), None) => {
                            out.push((a, b));
                            Ok(())
                        }
                        _ => Err(format!("expected two hex numbers `a b`, got {}", show(t))),
                    }
                },
                &mut r,
            )?;
            return finish(path, out, Format::Text, kind);
        }
        Some(LackeyKind::Edge) => {
            if let Some(k @ (LackeyKind::Load | LackeyKind::Branch)) = kind {
                return Err(terr(
                    path,
                    Some(n),
                    None,
                    format!(
                        "--kind {} needs a lackey --trace-mem log, but this is a \
                         --trace-superblocks log (edge tuples)",
                        k.name()
                    ),
                ));
            }
            LackeyKind::Edge
        }
        Some(_) => match kind {
            Some(LackeyKind::Edge) => {
                return Err(terr(
                    path,
                    Some(n),
                    None,
                    "--kind edge needs a lackey --trace-superblocks log, but this is a \
                     --trace-mem log (load or branch tuples)",
                ))
            }
            Some(k) => k,
            None => LackeyKind::Load,
        },
    };
    match format {
        LackeyKind::Edge => {
            let mut prev: Option<u64> = None;
            lines(
                &mut |_, t| {
                    let sb = t
                        .strip_prefix(b"SB")
                        .filter(|r| r.first().is_some_and(|c| c.is_ascii_whitespace()))
                        .and_then(|r| hex(trim(r)))
                        .ok_or_else(|| {
                            format!(
                                "expected `SB <hex>` (a --trace-superblocks log), got {}",
                                show(t)
                            )
                        })?;
                    if let Some(p) = prev {
                        out.push((p, sb));
                    }
                    prev = Some(sb);
                    Ok(())
                },
                &mut r,
            )?
        }
        LackeyKind::Load => {
            let mut pc: Option<u64> = None;
            lines(
                &mut |_, t| {
                    let (tag, addr, _) = mem_line(t)?;
                    match tag {
                        b'I' => pc = Some(addr),
                        b'L' | b'M' => {
                            let p = pc.ok_or("a load before any instruction line")?;
                            out.push((p, addr));
                        }
                        _ => {}
                    }
                    Ok(())
                },
                &mut r,
            )?
        }
        LackeyKind::Branch => {
            // Every pc ever seen transferring control, and (when the source cannot be read
            // twice) every instruction with its outcome, filtered once the set is known.
            let seekable =
                path != Path::new(STDIN) && std::fs::metadata(path).is_ok_and(|m| m.is_file());
            let mut transfers: HashSet<u64> = HashSet::new();
            let mut held: Vec<(u64, bool)> = Vec::new();
            let mut last: Option<(u64, u64)> = None;
            lines(
                &mut |_, t| {
                    let (tag, addr, size) = mem_line(t)?;
                    if tag == b'I' {
                        if let Some((p, s)) = last {
                            let taken = p.wrapping_add(s) != addr;
                            if taken {
                                transfers.insert(p);
                            }
                            if !seekable {
                                held.push((p, taken));
                            }
                        }
                        last = Some((addr, size));
                    }
                    Ok(())
                },
                &mut r,
            )?;
            if seekable {
                let mut last: Option<(u64, u64)> = None;
                let mut r2 = open_raw(path)?;
                for_lines(path, &mut r2, 0, |_, t| {
                    let (tag, addr, size) = mem_line(t)?;
                    if tag == b'I' {
                        if let Some((p, s)) = last {
                            if transfers.contains(&p) {
                                out.push((p, (p.wrapping_add(s) != addr) as u64));
                            }
                        }
                        last = Some((addr, size));
                    }
                    Ok(())
                })?;
            } else {
                out.extend(
                    held.into_iter()
                        .filter(|(p, _)| transfers.contains(p))
                        .map(|(p, taken)| (p, taken as u64)),
                );
            }
        }
    }
    finish(path, out, Format::Lackey(format), Some(format))
}

fn finish(
    path: &Path,
    events: Vec<Tuple>,
    format: Format,
    kind: Option<LackeyKind>,
) -> Result<Trace, TraceError> {
    if events.is_empty() {
        return Err(terr(path, None, None, "no events in the trace"));
    }
    Ok(Trace {
        events,
        format,
        kind,
    })
}

/// The binary form after its magic (`body`); offsets in errors count from the start of the file.
fn read_binary(
    path: &Path,
    body: &[u8],
    with_kind: bool,
) -> Result<(Option<LackeyKind>, Vec<Tuple>), TraceError> {
    let magic = BINARY_MAGIC.len();
    let mut pos = 0usize;
    let at = |pos: usize| Some((pos + magic) as u64);
    let kind = if with_kind {
        let b = *body
            .first()
            .ok_or_else(|| terr(path, None, at(0), "file ends before the kind byte"))?;
        pos = 1;
        LackeyKind::from_byte(b).ok_or_else(|| {
            terr(
                path,
                None,
                at(0),
                format!("unknown kind byte {b} (expected 0..=3)"),
            )
        })?
    } else {
        None
    };
    let data = body;
    let varint = |pos: &mut usize| -> Result<u64, TraceError> {
        let start = *pos;
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let Some(&byte) = data.get(*pos) else {
                return Err(terr(
                    path,
                    None,
                    at(start),
                    "file ends inside a number (truncated)",
                ));
            };
            *pos += 1;
            if shift == 63 && byte > 1 {
                break;
            }
            v |= ((byte & 0x7f) as u64) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(terr(
            path,
            None,
            at(start),
            "malformed number (more than 64 bits)",
        ))
    };
    let mut out = Vec::new();
    let header = pos;
    let count = varint(&mut pos)?;
    // Guard the allocation against a corrupt count: every event takes at least two bytes.
    if count > (data.len() as u64) / 2 {
        return Err(terr(
            path,
            None,
            at(header),
            format!(
                "header says {count} events but the file has only {} bytes (truncated)",
                data.len() + magic
            ),
        ));
    }
    out.reserve(count as usize);
    let (mut a, mut b) = (0u64, 0u64);
    for _ in 0..count {
        a = a.wrapping_add(unzigzag(varint(&mut pos)?));
        b = b.wrapping_add(unzigzag(varint(&mut pos)?));
        out.push((a, b));
    }
    if pos != data.len() {
        return Err(terr(
            path,
            None,
            at(pos),
            "trailing bytes after the last event",
        ));
    }
    Ok((kind, out))
}

fn zigzag(d: u64) -> u64 {
    (d << 1) ^ (((d as i64) >> 63) as u64)
}

fn unzigzag(z: u64) -> u64 {
    (z >> 1) ^ (z & 1).wrapping_neg()
}

fn put_varint(w: &mut impl Write, mut v: u64) -> io::Result<()> {
    let mut buf = [0u8; 10];
    let mut n = 0;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            buf[n] = byte;
            n += 1;
            break;
        }
        buf[n] = byte | 0x80;
        n += 1;
    }
    w.write_all(&buf[..n])
}

/// Output form chosen from a file name: `.txt` (optionally `.txt.gz`) is text, anything else binary;
/// a trailing `.gz` compresses; `-` is standard output (binary). The kind of the tuples is unknown.
pub fn write_trace(path: &Path, events: &[Tuple]) -> io::Result<()> {
    write_trace_kind(path, events, None)
}

/// [`write_trace`], recording the kind of the tuples in the file.
pub fn write_trace_kind(path: &Path, events: &[Tuple], kind: Option<LackeyKind>) -> io::Result<()> {
    let name = path.to_string_lossy();
    let gz = name.ends_with(".gz");
    let text = name.trim_end_matches(".gz").ends_with(".txt");
    let sink: Box<dyn Write> = if path == Path::new(STDIN) {
        Box::new(io::stdout().lock())
    } else {
        Box::new(File::create(path)?)
    };
    let f = BufWriter::with_capacity(1 << 20, sink);
    let mut w: Box<dyn Write> = if gz {
        Box::new(flate2::write::GzEncoder::new(
            f,
            flate2::Compression::default(),
        ))
    } else {
        Box::new(f)
    };
    if text {
        match kind {
            Some(k) => writeln!(
                w,
                "{TEXT_HEADER} kind {}; one event `a b` (hex) per line",
                k.name()
            )?,
            None => writeln!(w, "{TEXT_HEADER} one event `a b` (hex) per line")?,
        }
        for &(a, b) in events {
            writeln!(w, "{a:x} {b:x}")?;
        }
    } else {
        w.write_all(BINARY_MAGIC)?;
        w.write_all(&[kind.map_or(0, LackeyKind::byte)])?;
        put_varint(&mut w, events.len() as u64)?;
        let (mut pa, mut pb) = (0u64, 0u64);
        for &(a, b) in events {
            put_varint(&mut w, zigzag(a.wrapping_sub(pa)))?;
            put_varint(&mut w, zigzag(b.wrapping_sub(pb)))?;
            (pa, pb) = (a, b);
        }
    }
    w.flush()
}

/// Summary of a trace: events, distinct tuples, the most frequent ones.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TraceStats {
    pub events: u64,
    pub distinct: u64,
    /// (a, b, count), most frequent first, ties by tuple.
    pub top: Vec<(u64, u64, u64)>,
}

pub fn stats(events: &[Tuple], top: usize) -> TraceStats {
    let mut counts: HashMap<Tuple, u64> = HashMap::new();
    for &t in events {
        *counts.entry(t).or_default() += 1;
    }
    let mut v: Vec<(u64, u64, u64)> = counts.iter().map(|(&(a, b), &c)| (a, b, c)).collect();
    v.sort_unstable_by(|x, y| y.2.cmp(&x.2).then((x.0, x.1).cmp(&(y.0, y.1))));
    v.truncate(top);
    TraceStats {
        events: events.len() as u64,
        distinct: counts.len() as u64,
        top: v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str, content: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hwprof-trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, content).unwrap();
        p
    }

    #[test]
    fn edge_load_branch() {
        let p = tmp("e.lackey", b"==1== hi\nSB 10\nSB 20\n\nSB 10\n");
        assert_eq!(
            read_trace(&p, None).unwrap(),
            vec![(0x10, 0x20), (0x20, 0x10)]
        );
        let log = b"I  100,2\n L 5000,4\nI  102,3\n S 6000,8\n M 7000,4\nI  200,4\nI  100,2\nI  102,3\nI  105,1\n";
        let p = tmp("l.lackey", log);
        assert_eq!(
            read_trace(&p, Some(LackeyKind::Load)).unwrap(),
            vec![(0x100, 0x5000), (0x102, 0x7000)]
        );
        // 0x102 (size 3) jumps to 0x200 once, then falls through to 0x105; 0x200 jumps to 0x100.
        assert_eq!(
            read_trace(&p, Some(LackeyKind::Branch)).unwrap(),
            vec![(0x102, 1), (0x200, 1), (0x102, 0)]
        );
    }

    #[test]
    fn malformed_lines_are_named() {
        let p = tmp(
            "bad.lackey",
            b"SB 0401ab70\nSB 0401b7e7\nSB zzzz\nSB 0401b819\n",
        );
        let e = read_trace(&p, Some(LackeyKind::Edge)).unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
        let p = tmp("bad.txt", b"# c\n1 2\n3\n");
        assert_eq!(read_trace(&p, None).unwrap_err().line, Some(3));
        let p = tmp("bad2.lackey", b"I  100,2\n L 5000\n");
        assert_eq!(
            read_trace(&p, Some(LackeyKind::Load)).unwrap_err().line,
            Some(2)
        );
        let p = tmp("empty.txt", b"# nothing\n");
        assert!(read_trace(&p, None).is_err());
        assert!(read_trace(Path::new("/nonexistent/x"), None).is_err());
    }

    #[test]
    fn binary_and_gz_round_trip_and_truncation() {
        let ev: Vec<Tuple> = (0..1000u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15), u64::MAX - i * 3))
            .collect();
        for name in ["r.bin", "r.bin.gz", "r.txt", "r.txt.gz"] {
            let p = std::env::temp_dir().join(format!("hwprof-rt-{}-{name}", std::process::id()));
            write_trace(&p, &ev).unwrap();
            assert_eq!(read_trace(&p, None).unwrap(), ev, "{name}");
            let bytes = std::fs::read(&p).unwrap();
            let cut = tmp(&format!("cut-{name}"), &bytes[..bytes.len() * 2 / 3]);
            if name != "r.txt" {
                // A cut text file is still well-formed lines; every other form must notice.
                assert!(
                    read_trace(&cut, None).is_err(),
                    "{name} truncated must fail"
                );
            }
            let mut extra = bytes.clone();
            extra.push(0);
            if name == "r.bin" {
                assert!(read_trace(&tmp("x.bin", &extra), None)
                    .unwrap_err()
                    .offset
                    .is_some());
            }
        }
    }
}

/// A gzip writer (re-exported so the tool needs no compression crate of its own).
pub type GzWriter = flate2::write::GzEncoder<File>;

pub fn gz_writer(f: File) -> GzWriter {
    flate2::write::GzEncoder::new(f, flate2::Compression::default())
}

/// Calls `f(tag, address, size)` for every line of a lackey `--trace-mem` log (tag `I`, `L`, `S`
/// or `M`), in order; malformed lines and errors of `f` name the line.
pub fn for_each_mem_line(
    path: &Path,
    mut f: impl FnMut(u8, u64, u64) -> Result<(), String>,
) -> Result<(), TraceError> {
    let mut r = open_raw(path)?;
    for_lines(path, &mut r, 0, |_, t| {
        let (tag, addr, size) = mem_line(t)?;
        f(tag, addr, size)
    })
}
