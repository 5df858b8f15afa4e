//! Verilog that users can integrate: every exported design (profilers, counter banks, profile
//! buffers, board tops) goes through here, so that
//! - its top module is named after the design (`hwprof_<design>`) and every submodule carries that
//!   prefix, and several hwprof designs can sit in one FuseSoC, Verilator or Yosys project;
//! - it lints clean under `verilator --lint-only -Wall` with the one waiver file [`waiver_file`]
//!   (`hwprof.vlt`, shipped beside every export and in `verilog_out/`), whose waivers apply to
//!   hwprof's files only (`-file "*hwprof_*"`): the user's own code beside it is linted in full;
//! - literals that rust-hdl writes as 32 bits are sized to what they meet where that is plain
//!   ([`size_literals`]);
//! - it carries a header naming the generator and the configuration;
//! - its FuseSoC core ([`fusesoc_core`]) lists the design, the waivers and, where there is one, a
//!   self-checking simulation target.
//!
//! rust-hdl names the top module `top` and each submodule `top$<path>`; [`rename_top`] rewrites
//! exactly those names (module declarations and instantiations) to plain identifiers,
//! `<module>__<path>` (`$` is legal in Verilog but not in every tool's or user's flow).

use std::path::{Path, PathBuf};

/// Prefix of every exported top module.
pub const MODULE_PREFIX: &str = "hwprof_";

/// File name of the Verilator waiver file.
pub const WAIVER_FILE: &str = "hwprof.vlt";

/// Verilator lint waivers of every export, with the reason for each.
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    ("WIDTH", "rust-hdl writes every literal as 32 bits (e.g. `+ 32'h1`, `= 32'h0`); Verilog's sizing rules give the intended result"),
    ("DECLFILENAME", "rust-hdl writes every module of a design into one file, named after the design"),
    ("UNOPTFLAT", "rust-hdl writes each block's kernel as one always @(*) block; a block that feeds per-entry bits through a BitGather submodule and reads the gathered word back looks circular at that granularity, but no signal depends on itself (Yosys `check -assert` finds no logic loop)"),
    ("UNUSEDPARAM", "rust-hdl declares every state of an enum as a localparam in each module holding a register of that enum, also where the module only stores it"),
    ("UNUSEDSIGNAL", "bits of wide ports (64-bit keys, 128-bit tags, shared random words) above a configured width are masked off by constants"),
];

/// Files the waivers apply to: hwprof's exports and testbenches, all named `…hwprof_…`.
pub const WAIVED_FILES: &str = "*hwprof_*";

/// Separator of a submodule's path in its module name (`hwprof_d__acc__ram`).
pub const SUBMODULE_SEPARATOR: &str = "__";

/// The Verilator configuration file with [`LINT_WAIVERS`], each scoped to [`WAIVED_FILES`]; give
/// it to Verilator before the design (`verilator --lint-only -Wall hwprof.vlt design.v`).
pub fn waiver_file() -> String {
    let mut s = String::from(
        "`verilator_config\n// Lint waivers of the Verilog exported by hwprof (hwprof_hdl::export::LINT_WAIVERS); do not edit.\n\
         // Each applies to hwprof's files only: other files are linted in full.\n",
    );
    for (rule, reason) in LINT_WAIVERS {
        s.push_str(&format!(
            "// {rule}: {reason}\nlint_off -rule {rule} -file \"{WAIVED_FILES}\"\n"
        ));
    }
    s
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
/// [`module_name`]`(design)`, under a header naming what it is and how it was configured.
pub fn package(verilog: &str, design: &str, what: &str, configuration: &str) -> String {
    let module = module_name(design);
    let mut s = format!(
        "// hwprof {what}: module {module}, generated by hwprof; do not edit.\n\
         // configuration: {configuration}\n\
         // Lint with the waiver file beside it: verilator --lint-only -Wall {WAIVER_FILE} <this file>\n"
    );
    if verilog.contains(&format!("`ifdef {}", crate::block_ram::ECP5_DEFINE)) {
        s.push_str(&format!(
            "// ECP5: define {} (yosys read_verilog -D{}) to instantiate the DP16KD block RAMs with their output register.\n",
            crate::block_ram::ECP5_DEFINE,
            crate::block_ram::ECP5_DEFINE
        ));
    }
    s.push_str(&size_literals(&rename_top(verilog, &module)));
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// rust-hdl writes every literal as 32 bits (`= 32'h0` into a 20-bit register, `pos$q == 32'h0`
/// for an 8-bit `pos$q`). This sizes a literal to the width of the signal it meets where the
/// result is the same by Verilog's sizing rules, module by module from the declared widths:
/// - a literal assigned alone (`x = 32'h0;`, `x <= 32'h0;`);
/// - a literal compared with a lone signal (`(x == 32'h3)`, `x < 32'h3;`): both sides are extended
///   to the wider one, so a literal that fits the signal compares the same;
/// - a literal added to or subtracted from a lone signal as a whole right-hand side no wider than
///   it (`x = x + 32'h1;`): the low bits of a sum do not depend on the high ones.
///
/// A literal that does not fit keeps its size. Deterministic, and the identity on code without
/// such literals.
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
        width = hi.checked_sub(lo)? + 1;
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

fn size_line(line: &str, widths: &std::collections::HashMap<String, u32>) -> String {
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
                if let Some((x, lit)) = rhs.split_once(sign) {
                    if let (Some(w), Some(wx), Some((n, _, v))) =
                        (width(lhs), width(x), literal(lit))
                    {
                        if n == lit.len() && w <= wx && fits(v, wx) {
                            return format!("{indent}{lhs} {op} {x}{sign}{wx}'h{v:x};{newline}");
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

/// A FuseSoC CAPI2 core for an export: the design file `verilog_file` (text `verilog`) and the
/// waivers (`default` and `lint` targets, Verilator `-Wall`), each macro of [`defines`] a boolean
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
         filesets:\n  rtl:\n    files:\n      - {verilog_file}\n    file_type: verilogSource\n\
         \x20 waivers:\n    files:\n      - {WAIVER_FILE}\n    file_type: vlt\n",
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
        "targets:\n  default:\n    filesets: [waivers, rtl]\n{parameters}    toplevel: {module}\n\
         \x20 lint:\n    default_tool: verilator\n    filesets: [waivers, rtl]\n{parameters}    toplevel: {module}\n\
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
    fn the_waiver_file_lists_every_rule_once() {
        let w = waiver_file();
        assert!(w.starts_with("`verilator_config\n"));
        for (rule, _) in LINT_WAIVERS {
            assert_eq!(
                w.matches(&format!("lint_off -rule {rule} -file \"*hwprof_*\"\n"))
                    .count(),
                1
            );
        }
        assert_eq!(
            w.matches("lint_off").count(),
            LINT_WAIVERS.len(),
            "no global waiver"
        );
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
                 endmodule\nmodule n(a);\n    x = 32'h0;\n";
        assert_eq!(
            size_literals(v),
            "module m(a);\n    input wire [7:0] a;\n    reg [19:0] x;\n    reg [3:0] y;\n    reg z;\n\
             x = 20'h0;\n    y <= 32'h1f;\n    z = (a == 8'h3) & (a < 32'h100);\n    x = x + 20'h1;\n\
             y = a + 8'h1;\n    z = ~a == 32'h0;\n    z = a + y == 32'h0;\n    x = a << 32'h4;\n\
             endmodule\nmodule n(a);\n    x = 32'h0;\n",
            "too wide for y: kept; x is declared in m only"
        );
    }
}
