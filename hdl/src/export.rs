//! Verilog that users can integrate: every exported design (profilers, counter banks, profile
//! buffers, board tops) goes through here, so that
//! - its top module is named after the design (`hwprof_<design>`) and every submodule carries that
//!   prefix, and several hwprof designs can sit in one FuseSoC, Verilator or Yosys project;
//! - it lints clean under `verilator --lint-only -Wall` as it is: the waivers it needs
//!   ([`LINT_WAIVERS`]) are switched off at its first line and on again at its last, so they
//!   hold in that file whatever it is named, and the user's own code beside it is linted in full;
//! - literals that rust-hdl writes as 32 bits are sized to what they meet where that is plain
//!   ([`size_literals`]);
//! - it carries a header naming the generator and the configuration;
//! - its FuseSoC core ([`fusesoc_core`]) lists the design and, where there is one, a
//!   self-checking simulation target.
//!
//! rust-hdl names the top module `top` and each submodule `top$<path>`; [`rename_top`] rewrites
//! exactly those names (module declarations and instantiations) to plain identifiers,
//! `<module>__<path>` (`$` is legal in Verilog but not in every tool's or user's flow).

use std::path::{Path, PathBuf};

/// Prefix of every exported top module.
pub const MODULE_PREFIX: &str = "hwprof_";

/// Verilator lint waivers of every export, with the reason for each; each is a metacomment pair
/// around the exported file's modules ([`package`]).
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    ("WIDTH", "rust-hdl writes every literal as 32 bits (e.g. `+ 32'h1`, `= 32'h0`); Verilog's sizing rules give the intended result"),
    ("DECLFILENAME", "rust-hdl writes every module of a design into one file, named after the design"),
    ("UNOPTFLAT", "rust-hdl writes each block's kernel as one always @(*) block; a block that feeds per-entry bits through a BitGather submodule and reads the gathered word back looks circular at that granularity, but no signal depends on itself (Yosys `check -assert` finds no logic loop)"),
    ("UNUSEDPARAM", "rust-hdl declares every state of an enum as a localparam in each module holding a register of that enum, also where the module only stores it"),
    ("UNUSEDSIGNAL", "bits of wide ports (64-bit keys, 128-bit tags, shared random words) above a configured width are masked off by constants"),
];

/// Separator of a submodule's path in its module name (`hwprof_d__acc__ram`).
pub const SUBMODULE_SEPARATOR: &str = "__";

/// The metacomments switching every rule of [`LINT_WAIVERS`] off (`on` false, each with its
/// reason) or on again.
fn waivers(on: bool) -> String {
    LINT_WAIVERS
        .iter()
        .map(|(rule, reason)| {
            if on {
                format!("/* verilator lint_on {rule} */\n")
            } else {
                format!("// {rule}: {reason}\n/* verilator lint_off {rule} */\n")
            }
        })
        .collect()
}

/// The macros an exported file tests with `` `ifdef `` (each a FuseSoC `vlogdefine` parameter of
/// its core).
pub fn defines(verilog: &str) -> Vec<&'static str> {
    [crate::block_ram::ECP5_DEFINE]
        .into_iter()
        .filter(|d| verilog.contains(&format!("`ifdef {d}")))
        .collect()
}

/// The top module name of `design`: `hwprof_` and the design name in lowercase letters, digits
/// and `_` (anything else becomes `_`), e.g. `paper-10k-bram` → `hwprof_paper_10k_bram`.
pub fn module_name(design: &str) -> String {
    let body: String = design
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if body.starts_with(MODULE_PREFIX) {
        body
    } else {
        format!("{MODULE_PREFIX}{body}")
    }
}

/// Renames rust-hdl's top module `top` and its submodules `top$a$b` to `module` and
/// `module__a__b`. Only module declarations and instantiations (the first word of a line) are
/// touched.
pub fn rename_top(verilog: &str, module: &str) -> String {
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 50);
    for line in verilog.split_inclusive('\n') {
        let indent = line.len() - line.trim_start().len();
        let (lead, rest) = line.split_at(indent);
        out.push_str(lead);
        let (keyword, rest) = match rest.strip_prefix("module ") {
            Some(r) => ("module ", r),
            None => ("", rest),
        };
        let word_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(rest.len());
        let (word, tail) = rest.split_at(word_end);
        let path = if keyword.is_empty() {
            word.strip_prefix("top$")
        } else {
            word.strip_prefix("top$").or((word == "top").then_some(""))
        };
        out.push_str(keyword);
        match path {
            Some(path) => {
                out.push_str(module);
                if !path.is_empty() {
                    out.push_str(SUBMODULE_SEPARATOR);
                    out.push_str(&path.replace('$', SUBMODULE_SEPARATOR));
                }
                out.push_str(tail);
            }
            None => out.push_str(rest),
        }
    }
    out
}

/// The exported form of a design: `verilog` (rust-hdl's output, top module `top`) renamed to
/// [`module_name`]`(design)`, under a header naming what it is and how it was configured, between
/// the lint waivers' metacomments.
pub fn package(verilog: &str, design: &str, what: &str, configuration: &str) -> String {
    let module = module_name(design);
    let mut s = format!(
        "// hwprof {what}: module {module}, generated by hwprof; do not edit.\n\
         // configuration: {configuration}\n"
    );
    if verilog.contains(&format!("`ifdef {}", crate::block_ram::ECP5_DEFINE)) {
        s.push_str(&format!(
            "// ECP5: define {} (yosys read_verilog -D{}) to instantiate the DP16KD block RAMs with their output register.\n",
            crate::block_ram::ECP5_DEFINE,
            crate::block_ram::ECP5_DEFINE
        ));
    }
    s.push_str(&waivers(false));
    s.push_str(&size_literals(&rename_top(verilog, &module)));
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(&waivers(true));
    s
}

/// rust-hdl writes every literal as 32 bits (`= 32'h0` into a 20-bit register, `pos$q == 32'h0`
/// for an 8-bit `pos$q`). This sizes a literal to the width of the signal it meets where the
/// result is the same by Verilog's sizing rules, module by module from the declared widths:
/// - a literal assigned alone (`x = 32'h0;`, `x <= 32'h0;`);
/// - a literal compared with a lone signal (`(x == 32'h3)`, `x < 32'h3;`): both sides are extended
///   to the wider one, so a literal that fits the signal compares the same;
/// - a literal added to a sum of signals (each alone or zero-extended, `{2'h0, y}`), or subtracted
///   from a lone signal, as a whole right-hand side no wider than the widest term
///   (`x = x + 32'h1;`, `c = a + {2'h0, y} + 32'h1;`): the low bits of a sum do not depend on the
///   high ones.
///
/// A literal that does not fit keeps its size. Deterministic, and the identity on code without
/// such literals.
///
/// A width change (`bits::<N>()`, `resize()`) is written as a mask of all ones, `((x) & 16'hffff)`
/// for a 32-bit `x`; it becomes the part select `x[15:0]`, the zero extension `{16'h0, x}`, or
/// `(x)` where the widths agree: the same bits, with both sides of every operator the same width.
pub fn size_literals(verilog: &str) -> String {
    let mut out = String::with_capacity(verilog.len());
    let mut widths: std::collections::HashMap<String, u32> = Default::default();
    for line in verilog.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("module ") {
            widths.clear();
        }
        if let Some((name, w)) = declaration(t) {
            widths.insert(name.to_string(), w);
            out.push_str(line);
            continue;
        }
        out.push_str(&size_line(line, &widths));
    }
    out
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// `(name, width)` of a signal declaration (`input wire [7:0] x;`, `reg y;`); not of memories.
fn declaration(t: &str) -> Option<(&str, u32)> {
    let mut rest = t;
    let mut keyword = false;
    for k in ["input ", "output ", "wire ", "reg "] {
        if let Some(r) = rest.strip_prefix(k) {
            rest = r.trim_start();
            keyword = true;
        }
    }
    if !keyword {
        return None;
    }
    let mut width = 1;
    if let Some(r) = rest.strip_prefix('[') {
        let (range, r) = r.split_once(']')?;
        let (hi, lo) = range.split_once(':')?;
        let (hi, lo): (u32, u32) = (hi.trim().parse().ok()?, lo.trim().parse().ok()?);
        // rust-hdl numbers bits from 0; a part select `x[w-1:0]` relies on it.
        if lo != 0 {
            return None;
        }
        width = hi + 1;
        rest = r.trim_start();
    }
    let name = rest.strip_suffix(';').or(rest.strip_suffix(";\n"))?.trim();
    name.bytes()
        .all(is_ident_char)
        .then_some((name, width))
        .filter(|(n, _)| !n.is_empty())
}

/// A sized hexadecimal literal at the start of `s`: (its length in bytes, size, value).
fn literal(s: &str) -> Option<(usize, u32, u128)> {
    let (size, rest) = s.split_once("'h")?;
    if size.is_empty() || !size.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let digits = rest.bytes().take_while(|c| c.is_ascii_hexdigit()).count();
    let value = u128::from_str_radix(&rest[..digits], 16).ok()?;
    Some((size.len() + 2 + digits, size.parse().ok()?, value))
}

fn fits(value: u128, width: u32) -> bool {
    width >= 128 || value >> width == 0
}

/// `((x) & N'h<N ones>)` with `x` a declared signal, as a part select, zero extension or `(x)`.
fn width_casts(line: &str, widths: &std::collections::HashMap<String, u32>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find("((") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let cast = after.split_once(") & ").and_then(|(x, tail)| {
            let w = *widths.get(x)?;
            let (n, size, v) = literal(tail)?;
            let ones = size <= 128 && v == u128::MAX >> (128 - size);
            (ones && tail[n..].starts_with(')')).then_some((x, w, size, x.len() + 4 + n + 1))
        });
        match cast {
            Some((x, w, size, len)) => {
                out.push_str(&match w.cmp(&size) {
                    std::cmp::Ordering::Equal => format!("({x})"),
                    std::cmp::Ordering::Greater => format!("{x}[{}:0]", size - 1),
                    std::cmp::Ordering::Less => format!("{{{}'h0, {x}}}", size - w),
                });
                rest = &after[len..];
            }
            None => {
                out.push('(');
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The width of `x` or of `{N'h0, x}`, `x` a declared signal.
fn term_width(t: &str, widths: &std::collections::HashMap<String, u32>) -> Option<u32> {
    if let Some(inner) = t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        let (zeros, x) = inner.split_once(", ")?;
        let (n, size, v) = literal(zeros)?;
        return (n == zeros.len() && v == 0)
            .then(|| Some(size + widths.get(x)?))
            .flatten();
    }
    widths.get(t).copied()
}

fn size_line(line: &str, widths: &std::collections::HashMap<String, u32>) -> String {
    let line = &width_casts(line, widths);
    let t = line.trim();
    let indent = &line[..line.len() - line.trim_start().len()];
    let newline = if line.ends_with('\n') { "\n" } else { "" };
    let width = |name: &str| widths.get(name).copied();
    // `lhs = literal;`, `lhs = ident + literal;`, `lhs = ident - literal;` (or `<=`).
    if let Some(body) = t.strip_suffix(';') {
        let assign = body
            .split_once(" <= ")
            .or_else(|| body.split_once(" = "))
            .filter(|(l, _)| !l.is_empty() && l.bytes().all(is_ident_char));
        if let Some((lhs, rhs)) = assign {
            let op = if body.contains(" <= ") { "<=" } else { "=" };
            if let (Some(w), Some((n, _, v))) = (width(lhs), literal(rhs)) {
                if n == rhs.len() && fits(v, w) {
                    return format!("{indent}{lhs} {op} {w}'h{v:x};{newline}");
                }
            }
            for sign in [" + ", " - "] {
                if let Some((terms, lit)) = rhs.rsplit_once(sign) {
                    // A difference of one term; a sum of any, each a signal or a zero-extended one.
                    let widths: Option<Vec<u32>> = if sign == " - " {
                        width(terms).map(|w| vec![w])
                    } else {
                        terms.split(" + ").map(|t| term_width(t, widths)).collect()
                    };
                    let wx = widths.and_then(|ws| ws.into_iter().max());
                    if let (Some(w), Some(wx), Some((n, _, v))) = (width(lhs), wx, literal(lit)) {
                        if n == lit.len() && w <= wx && fits(v, wx) {
                            return format!(
                                "{indent}{lhs} {op} {terms}{sign}{wx}'h{v:x};{newline}"
                            );
                        }
                    }
                }
            }
        }
    }
    // `ident OP literal` with OP a comparison, the ident alone on its side, the literal alone on
    // its.
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        let Some((n, _, v)) = (b[i].is_ascii_digit() && (i == 0 || !is_ident_char(b[i - 1])))
            .then(|| literal(&line[i..]))
            .flatten()
        else {
            i += 1;
            continue;
        };
        let after = line[i + n..].trim_start().bytes().next();
        let before = line[..i].trim_end();
        let op = ["==", "!=", "<=", ">=", "<", ">"]
            .into_iter()
            .find(|op| before.ends_with(op));
        let sized = op.and_then(|op| {
            let lhs = before[..before.len() - op.len()].trim_end();
            let start = lhs
                .bytes()
                .rposition(|c| !is_ident_char(c))
                .map_or(0, |p| p + 1);
            let ident = &lhs[start..];
            let prev = lhs[..start].trim_end();
            // A `<=` after a lone identifier at the start of a statement is an assignment.
            let statement = prev.is_empty() || prev.ends_with("begin");
            let alone_before = prev.ends_with('(')
                || prev.ends_with("&&")
                || prev.ends_with("||")
                || (prev.ends_with('=') && !prev.ends_with("==") && !prev.ends_with("!="));
            let alone_after = matches!(after, Some(b')' | b';' | b'&' | b'|' | b'?' | b':'));
            let w = width(ident)?;
            (!statement && alone_before && alone_after && fits(v, w)).then_some(w)
        });
        if let Some(w) = sized {
            out.push_str(&line[copied..i]);
            out.push_str(&format!("{w}'h{v:x}"));
            copied = i + n;
        }
        i += n;
    }
    out.push_str(&line[copied..]);
    out
}

/// A self-checking simulation of an export: the testbench module and the files it reads.
pub struct SimTarget {
    /// The testbench's top module.
    pub toplevel: String,
    /// Testbench source and its data files (`$readmemh`), by file name.
    pub files: Vec<String>,
}

/// A FuseSoC CAPI2 core for an export: the design file `verilog_file` (text `verilog`; `default`
/// and `lint` targets, Verilator `-Wall`), each macro of [`defines`] a boolean
/// `vlogdefine` parameter of every target (unset by default: FuseSoC passes a boolean as 0 or 1,
/// and `` `ifdef `` sees either as defined), and with `sim` an Icarus target running the testbench.
pub fn fusesoc_core(
    design: &str,
    description: &str,
    verilog_file: &str,
    verilog: &str,
    sim: Option<&SimTarget>,
) -> String {
    let module = module_name(design);
    let core = module.trim_start_matches(MODULE_PREFIX);
    let mut s = format!(
        "CAPI=2:\n\
         # Generated by hwprof (hwprof_hdl::export::fusesoc_core); do not edit.\n\
         name: hwprof:designs:{core}:0.1.0\n\
         description: \"{}\"\n\
         filesets:\n  rtl:\n    files:\n      - {verilog_file}\n    file_type: verilogSource\n",
        description.replace('"', "'")
    );
    if let Some(t) = sim {
        s.push_str("  tb:\n    files:\n");
        for f in &t.files {
            let kind = if f.ends_with(".v") {
                "verilogSource"
            } else {
                "user"
            };
            s.push_str(&format!(
                "      - {f}: {{file_type: {kind}, copyto: {f}}}\n"
            ));
        }
    }
    let defines = defines(verilog);
    let mut parameters = String::new();
    if !defines.is_empty() {
        s.push_str("parameters:\n");
        for d in &defines {
            s.push_str(&format!(
                "  {d}:\n    datatype: bool\n    paramtype: vlogdefine\n    description: \"set (--{d}) to instantiate ECP5 DP16KD block RAMs\"\n"
            ));
        }
        parameters = format!("    parameters: [{}]\n", defines.join(", "));
    }
    s.push_str(&format!(
        "targets:\n  default:\n    filesets: [rtl]\n{parameters}    toplevel: {module}\n\
         \x20 lint:\n    default_tool: verilator\n    filesets: [rtl]\n{parameters}    toplevel: {module}\n\
         \x20   tools:\n      verilator:\n        mode: lint-only\n        verilator_options: [-Wall]\n"
    ));
    if let Some(t) = sim {
        s.push_str(&format!(
            "  sim:\n    default_tool: icarus\n    filesets: [rtl, tb]\n{parameters}    toplevel: {}\n\
             \x20   tools:\n      icarus:\n        iverilog_options: [-g2012]\n",
            t.toplevel
        ));
    }
    s
}

/// Writes `files` (name, text) into `dir`, created if needed; returns the paths written.
pub fn write_files(dir: &Path, files: &[(String, String)]) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    files
        .iter()
        .map(|(name, text)| {
            let p = dir.join(name);
            std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            Ok(p)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_are_verilog_identifiers_with_the_prefix() {
        assert_eq!(module_name("paper-10k-bram"), "hwprof_paper_10k_bram");
        assert_eq!(module_name("Morris bank"), "hwprof_morris_bank");
        assert_eq!(module_name("hwprof_x"), "hwprof_x");
    }

    #[test]
    fn only_module_names_are_renamed() {
        let v = "module top(clock,top);\n    top$acc acc(\n      .top(top));\nendmodule\nmodule top$acc(clock);\n  wire top$x;\nendmodule\n";
        let r = rename_top(v, "hwprof_d");
        assert_eq!(
            r,
            "module hwprof_d(clock,top);\n    hwprof_d__acc acc(\n      .top(top));\nendmodule\nmodule hwprof_d__acc(clock);\n  wire top$x;\nendmodule\n"
        );
    }

    #[test]
    fn the_waivers_hold_from_the_first_line_to_the_last_only() {
        let v = package("module top(clock);\nendmodule\n", "d", "test", "none");
        let first = v.find("\nmodule ").unwrap();
        let last = v.rfind("endmodule").unwrap();
        for (rule, _) in LINT_WAIVERS {
            let off = format!("/* verilator lint_off {rule} */\n");
            let on = format!("/* verilator lint_on {rule} */\n");
            assert_eq!(v.matches(&off).count(), 1, "{rule}");
            assert_eq!(v.matches(&on).count(), 1, "{rule}");
            assert!(v.find(&off).unwrap() < first && v.find(&on).unwrap() > last);
        }
        assert_eq!(v.matches("lint_off").count(), LINT_WAIVERS.len());
        assert!(v.ends_with("*/\n"), "nothing after the waivers end");
    }

    #[test]
    fn nested_submodules_get_plain_names() {
        let v = "module top$a$b(clock);\n    top$a$b$c c(\n";
        assert_eq!(
            rename_top(v, "hwprof_d"),
            "module hwprof_d__a__b(clock);\n    hwprof_d__a__b__c c(\n"
        );
    }

    #[test]
    fn literals_are_sized_where_the_result_is_the_same() {
        let v = "module m(a);\n    input wire [7:0] a;\n    reg [19:0] x;\n    reg [3:0] y;\n    reg z;\n\
                 x = 32'h0;\n    y <= 32'h1f;\n    z = (a == 32'h3) & (a < 32'h100);\n    x = x + 32'h1;\n\
                 y = a + 32'h1;\n    z = ~a == 32'h0;\n    z = a + y == 32'h0;\n    x = a << 32'h4;\n\
                 y = y + {4'h0, y} + 32'h1;\n    y = y + {4'h1, y} + 32'h1;\n    x = x - a - 32'h1;\n\
                 endmodule\nmodule n(a);\n    x = 32'h0;\n";
        assert_eq!(
            size_literals(v),
            "module m(a);\n    input wire [7:0] a;\n    reg [19:0] x;\n    reg [3:0] y;\n    reg z;\n\
             x = 20'h0;\n    y <= 32'h1f;\n    z = (a == 8'h3) & (a < 32'h100);\n    x = x + 20'h1;\n\
             y = a + 8'h1;\n    z = ~a == 32'h0;\n    z = a + y == 32'h0;\n    x = a << 32'h4;\n\
             y = y + {4'h0, y} + 8'h1;\n    y = y + {4'h1, y} + 32'h1;\n    x = x - a - 32'h1;\n\
             endmodule\nmodule n(a);\n    x = 32'h0;\n",
            "too wide for y: kept; x is declared in m only"
        );
    }

    #[test]
    fn width_casts_become_selects_and_extensions() {
        let v = "module m(a);\n    input wire [31:0] a;\n    reg [15:0] b;\n    reg [127:0] k;\n\
                 b = ((a) & 16'hffff);\n    a = ((b) & 32'hffffffff);\n    b = ((b) & 16'hffff);\n\
                 k = (((b) & 128'hffffffffffffffffffffffffffffffff) << s) | ((a) & 128'hffffffffffffffffffffffffffffffff);\n\
                 b = ((a) & 16'hfff);\n    b = ((c) & 16'hffff);\n    b = ((a + a) & 16'hffff);\n";
        assert_eq!(
            size_literals(v),
            "module m(a);\n    input wire [31:0] a;\n    reg [15:0] b;\n    reg [127:0] k;\n\
             b = a[15:0];\n    a = {16'h0, b};\n    b = (b);\n\
             k = ({112'h0, b} << s) | {96'h0, a};\n\
             b = ((a) & 16'hfff);\n    b = ((c) & 16'hffff);\n    b = ((a + a) & 16'hffff);\n",
            "not all ones, an undeclared signal, an expression: kept"
        );
    }
}
