//! Names of a program's addresses, read from its ELF in-process: functions and data objects
//! from the symbol table, source lines from the DWARF line tables. A profile is symbolized on the
//! host without the program's cross toolchain.

use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};
use std::borrow::Cow;
use std::path::Path;
use std::rc::Rc;

type Reader = gimli::EndianRcSlice<gimli::RunTimeEndian>;

/// A symbol of the ELF: start, size (0 when the ELF gives none) and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Symbol {
    start: u64,
    size: u64,
    name: String,
}

/// Where an address is in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    /// The file as the compiler named it (directory included when DWARF gives one).
    pub file: String,
    pub line: u32,
}

/// The symbols and source lines of one ELF.
pub struct Symbolizer {
    /// Functions, by address.
    functions: Vec<Symbol>,
    /// Data objects and functions, by address: what a loaded value may point into.
    objects: Vec<Symbol>,
    lines: Option<addr2line::Context<Reader>>,
}

impl std::fmt::Debug for Symbolizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Symbolizer")
            .field("functions", &self.functions.len())
            .field("objects", &self.objects.len())
            .field("lines", &self.lines.is_some())
            .finish()
    }
}

impl Symbolizer {
    /// Reads `elf`; an ELF without debug information still names functions.
    pub fn read(elf: &Path) -> Result<Symbolizer, String> {
        let bytes = std::fs::read(elf).map_err(|e| format!("{}: {e}", elf.display()))?;
        Symbolizer::parse(&bytes).map_err(|e| format!("{}: {e}", elf.display()))
    }

    pub fn parse(bytes: &[u8]) -> Result<Symbolizer, String> {
        let file = object::File::parse(bytes).map_err(|e| format!("not an ELF file: {e}"))?;
        let mut functions = Vec::new();
        let mut objects = Vec::new();
        for s in file.symbols() {
            let Ok(name) = s.name() else { continue };
            // Local labels of the assembler name no function.
            if name.is_empty() || name.starts_with(".L") || name.starts_with('$') {
                continue;
            }
            let sym = Symbol {
                start: s.address(),
                size: s.size(),
                name: name.to_string(),
            };
            // An assembler label without a type (`_start` of the start-up code) names code when
            // its section holds code.
            let in_code = s
                .section_index()
                .and_then(|i| file.section_by_index(i).ok())
                .is_some_and(|sec| sec.kind() == SectionKind::Text);
            match s.kind() {
                SymbolKind::Text | SymbolKind::Unknown | SymbolKind::Label if in_code => {
                    functions.push(sym.clone());
                    objects.push(sym);
                }
                SymbolKind::Data => objects.push(sym),
                _ => {}
            }
        }
        functions.sort();
        functions.dedup_by(|a, b| a.start == b.start);
        objects.sort();
        let lines = line_context(&file)?;
        Ok(Symbolizer {
            functions,
            objects,
            lines,
        })
    }

    /// The function an address is in, and the offset into it (the preceding function symbol).
    pub fn function(&self, addr: u64) -> Option<(&str, u64)> {
        match self.functions.partition_point(|s| s.start <= addr) {
            0 => None,
            i => {
                let s = &self.functions[i - 1];
                Some((&s.name, addr - s.start))
            }
        }
    }

    /// `function+offset` of an address, or the address in hex when no function precedes it.
    pub fn name(&self, addr: u64) -> String {
        match self.function(addr) {
            None => format!("{addr:#x}"),
            Some((f, 0)) => f.to_string(),
            Some((f, off)) => format!("{f}+{off:#x}"),
        }
    }

    /// `symbol+offset` of a value that points into a sized data object or function of the ELF.
    pub fn pointee(&self, value: u64) -> Option<String> {
        let i = self.objects.partition_point(|s| s.start <= value);
        self.objects[..i]
            .iter()
            .rev()
            .take_while(|s| value - s.start < 1 << 20)
            .find(|s| value < s.start + s.size.max(1))
            .map(|s| match value - s.start {
                0 => s.name.clone(),
                off => format!("{}+{off:#x}", s.name),
            })
    }

    /// The source line of an address: the innermost inlined location, where the code is written.
    pub fn line(&self, addr: u64) -> Option<SourceLine> {
        let loc = self.lines.as_ref()?.find_location(addr).ok()??;
        Some(SourceLine {
            file: loc.file?.to_string(),
            line: loc.line.filter(|&l| l > 0)?,
        })
    }

    /// `file:line` with the file's base name, or `??:?` (as `addr2line -s` prints).
    pub fn short_line(&self, addr: u64) -> String {
        match self.line(addr) {
            Some(l) => {
                let base = Path::new(&l.file)
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or(l.file);
                format!("{base}:{}", l.line)
            }
            None => "??:?".into(),
        }
    }
}

/// The DWARF line context of an ELF, or none when it carries no debug information.
fn line_context(file: &object::File) -> Result<Option<addr2line::Context<Reader>>, String> {
    if file.section_by_name(".debug_info").is_none() {
        return Ok(None);
    }
    let endian = if file.is_little_endian() {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    };
    let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
        let data: Cow<[u8]> = file
            .section_by_name(id.name())
            .and_then(|s| s.uncompressed_data().ok())
            .unwrap_or(Cow::Borrowed(&[]));
        Ok(gimli::EndianRcSlice::new(Rc::from(&*data), endian))
    };
    let dwarf = gimli::Dwarf::load(load).map_err(|e| format!("DWARF: {e}"))?;
    addr2line::Context::from_dwarf(dwarf)
        .map(Some)
        .map_err(|e| format!("DWARF: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(start: u64, size: u64, name: &str) -> Symbol {
        Symbol {
            start,
            size,
            name: name.into(),
        }
    }

    #[test]
    fn functions_name_addresses_by_the_preceding_one_and_values_by_the_object_they_point_into() {
        let s = Symbolizer {
            functions: vec![sym(0x100, 0x20, "main"), sym(0x200, 0x10, "f")],
            objects: vec![
                sym(0x100, 0x20, "main"),
                sym(0x200, 0x10, "f"),
                sym(0x1000, 0x40, "table"),
            ],
            lines: None,
        };
        assert_eq!(s.name(0x80), "0x80");
        assert_eq!(s.name(0x100), "main");
        assert_eq!(s.name(0x104), "main+0x4");
        assert_eq!(s.name(0x230), "f+0x30");
        assert_eq!(s.pointee(0x1008).as_deref(), Some("table+0x8"));
        assert_eq!(s.pointee(0x1040), None);
        assert_eq!(s.pointee(0x7), None);
        assert_eq!(s.line(0x100), None);
        assert_eq!(s.short_line(0x100), "??:?");
    }

    #[test]
    fn a_file_that_is_not_an_elf_is_refused() {
        assert!(Symbolizer::parse(b"not an elf")
            .unwrap_err()
            .contains("not an ELF"));
    }
}
