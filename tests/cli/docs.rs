//! Docs that cannot drift: what README.md, docs/*.md and every `--help` text name must exist.
//!
//! What counts as *named*, and is checked:
//! - **Paths.** In README.md and docs/*.md, every token of a code span (`` `…` ``) or a fenced code
//!   block that starts with a top-level entry of the repository followed by `/` (`sim/…`,
//!   `configs/…`, `scripts/…`, …) or is a top-level file (`Cargo.toml`); in every `--help` text,
//!   such tokens anywhere. The file or folder must exist. Placeholders are not paths: a token with
//!   `<`, `>`, `*`, `{`, `}`, `$`, `…` or `...`, or whose file name is written in capitals
//!   (`configs/buffer-C.toml`). Paths outside the repository (`../shared/…`, `/tmp/…`, output
//!   directories such as `DIR/…`) never start with a top-level entry, so they are not checked.
//! - **Links.** In README.md, docs/*.md and docs/notes/*.md, every relative Markdown link
//!   `[…](target)` must reach a file, and its `#anchor` (or a bare `#anchor`) a heading of the target
//!   (GitHub's slugs).
//! - **Commands.** In the same code of README.md and docs/*.md, and in the code spans of every
//!   `--help` text, each `hwprof …` (also `cargo run --release -- …`) up to a shell separator (`|`,
//!   `;`, `&&`, `)`, `>`, `<(`, `--`) and not in a `#` comment: the subcommands must exist (`a|b` alternatives each), and every option after them
//!   (`--x`, `-x`, `[--x]`, `--x=V`, `--x|--y`) must be one of that subcommand's or a global one.
//!   A token in capitals or with `<`, `...` ends the subcommand chain unchecked (`hwprof ARGS`).
//! - **Configurations in figure tables.** In docs/RESULTS.md, every table row's word of a preset
//!   family (`paper-…`, `best-…`, `board-…`, `buffer-…`, `soc-…`, `formal-…`, with or without
//!   `.toml`, not part of a path) must be a `configs/<name>.toml`.
//!
//! docs/notes/*.md record what was true when it was measured (files since moved, options since
//! renamed), so only their links are checked; prose outside code is never checked.

use crate::common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One `--help` page: its options and subcommands.
#[derive(Default)]
struct Help {
    options: BTreeSet<String>,
    subcommands: BTreeSet<String>,
    text: String,
}

/// Every command's help, by its path of subcommands (the root is the empty path).
struct Cli(BTreeMap<Vec<String>, Help>);

impl Cli {
    fn load() -> Cli {
        fn walk(path: Vec<String>, all: &mut BTreeMap<Vec<String>, Help>) {
            let mut args = path.clone();
            args.push("--help".into());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let text = hwprof_ok(&args);
            let mut help = Help {
                text: text.clone(),
                ..Help::default()
            };
            let mut section = "";
            for line in text.lines() {
                if !line.starts_with(' ') && line.ends_with(':') {
                    section = line;
                    continue;
                }
                let indent = line.len() - line.trim_start().len();
                let t = line.trim();
                match section {
                    "Commands:" if indent == 2 => {
                        let name = t.split_whitespace().next().unwrap();
                        if name != "help" {
                            help.subcommands.insert(name.to_string());
                        }
                    }
                    "Options:" if (2..=6).contains(&indent) && t.starts_with('-') => {
                        // `-o, --out <OUT>  Help`: the spec ends at the first double space.
                        let spec = t.split("  ").next().unwrap();
                        for part in spec.split([',', ' ']) {
                            if part.starts_with('-') {
                                help.options.insert(part.to_string());
                            }
                        }
                    }
                    _ => {}
                }
            }
            let subs: Vec<String> = help.subcommands.iter().cloned().collect();
            all.insert(path.clone(), help);
            for s in subs {
                let mut p = path.clone();
                p.push(s);
                walk(p, all);
            }
        }
        let mut all = BTreeMap::new();
        walk(vec![], &mut all);
        Cli(all)
    }
}

/// What a document is checked for.
#[derive(Clone, Copy)]
struct Rules {
    paths_and_commands: bool,
    config_tables: bool,
}

/// The code of a Markdown text: inline spans and fenced blocks, each with its line number. A
/// fenced block's lines ending in `\` are joined with the next.
fn code_of(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim_start().starts_with("```") {
            fence = match fence {
                None => Some((n + 1, String::new())),
                Some(_) => None,
            };
            continue;
        }
        if let Some((start, acc)) = fence.as_mut() {
            if let Some(head) = line.strip_suffix('\\') {
                acc.push_str(head);
                acc.push(' ');
            } else {
                acc.push_str(line);
                out.push((*start, std::mem::take(acc)));
                *start = n + 1;
            }
            continue;
        }
        // Inline spans: text between backtick runs of equal length.
        let b = line.as_bytes();
        let mut j = 0;
        while j < b.len() {
            if b[j] == b'`' {
                let run = b[j..].iter().take_while(|&&c| c == b'`').count();
                let delim = "`".repeat(run);
                if let Some(end) = line[j + run..].find(&delim) {
                    out.push((n, line[j + run..j + run + end].trim().to_string()));
                    j += run + end + run;
                    continue;
                }
                j += run;
            } else {
                j += 1;
            }
        }
    }
    out
}

fn is_placeholder(tok: &str) -> bool {
    tok.contains(['<', '>', '*', '{', '}', '$', '…']) || tok.contains("...")
}

/// A word written in capitals stands for something (`DIR`, `FILE.c`, `C`).
fn is_capitals(word: &str) -> bool {
    let stem = word.split('.').next().unwrap_or(word);
    !stem.is_empty()
        && stem.chars().any(|c| c.is_ascii_uppercase())
        && !stem.chars().any(|c| c.is_ascii_lowercase())
}

/// Repository paths named in a piece of code.
fn paths_in(code: &str, top: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for tok in code.split(|c: char| c.is_whitespace() || "`,;()[]\"'=:|".contains(c)) {
        let tok = tok.trim_end_matches(['.', ',']);
        let Some(first) = tok.split('/').next() else {
            continue;
        };
        let named = (tok.contains('/') && top.contains(first))
            || (!tok.contains('/') && top.contains(tok) && tok.contains('.') && tok != "..");
        if !named || is_placeholder(tok) {
            continue;
        }
        let last = tok.trim_end_matches('/').rsplit('/').next().unwrap_or("");
        if is_capitals(last) {
            continue;
        }
        out.push(tok.to_string());
    }
    out
}

/// The `hwprof` command lines in a piece of code: the arguments after the program name, up to a
/// shell separator.
fn commands_in(code: &str) -> Vec<Vec<String>> {
    // A quoted argument (`--cflags "-O1 -DN=4"`) is one value, not options of hwprof.
    let mut unquoted = String::new();
    let mut quote: Option<char> = None;
    for c in code.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                unquoted.push('Q');
            }
            None => unquoted.push(c),
        }
    }
    // A comment (`cmd  # what it does`, `# hwprof trace: …` as a file's header) names no command.
    let toks: Vec<&str> = unquoted
        .split_whitespace()
        .take_while(|t| !t.starts_with('#'))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let start = if toks[i] == "hwprof" {
            Some(i + 1)
        } else if toks[i] == "cargo" && toks.get(i + 1) == Some(&"run") {
            // `cargo run --release [-q] -- ARGS` is hwprof; `-p other --example` is not.
            let mut k = i + 2;
            while k < toks.len() && matches!(toks[k], "--release" | "-q") {
                k += 1;
            }
            (toks.get(k) == Some(&"--")).then_some(k + 1)
        } else {
            None
        };
        let Some(s) = start else {
            i += 1;
            continue;
        };
        let mut args = Vec::new();
        let mut k = s;
        while k < toks.len() {
            let t = toks[k];
            if matches!(t, "|" | ";" | "&&" | "||" | "--" | ")" | "<")
                || t.starts_with('#')
                || t.starts_with('>')
                || t.starts_with("2>")
                || t.starts_with("<(")
                || t.starts_with("$(")
            {
                break;
            }
            args.push(t.to_string());
            k += 1;
        }
        out.push(args);
        i = k.max(i + 1);
    }
    out
}

/// What is wrong with one `hwprof` command line.
fn check_command(args: &[String], cli: &Cli) -> Vec<String> {
    let mut bad = Vec::new();
    let global = &cli.0[&Vec::new()].options;
    let mut path: Vec<String> = Vec::new();
    let mut chain_open = true;
    let mut k = 0;
    let opt_ok = |path: &Vec<String>, o: &str| {
        cli.0.get(path).is_some_and(|h| h.options.contains(o)) || global.contains(o)
    };
    while k < args.len() {
        let raw = args[k].as_str();
        k += 1;
        let t = raw.trim_matches(['[', ']', '(', ')', ',', '`', '"', '\'']);
        if t.is_empty() {
            continue;
        }
        if t.starts_with('-') && t.len() > 1 {
            for alt in t.split('|').filter(|a| a.starts_with('-') && a.len() > 1) {
                let name = alt
                    .split('=')
                    .next()
                    .unwrap()
                    .trim_end_matches(['.', ',', ':']);
                if name == "--set" {
                    k += 1;
                }
                if !opt_ok(&path, name) {
                    bad.push(format!("`hwprof {}` has no option {name}", path.join(" ")));
                }
            }
            continue;
        }
        // Options may give alternatives of a value (`--program sort|--c FILE.c`): check those.
        for alt in t.split('|').skip(1).filter(|a| a.starts_with("--")) {
            if !opt_ok(&path, alt) {
                bad.push(format!("`hwprof {}` has no option {alt}", path.join(" ")));
            }
        }
        if !chain_open {
            continue;
        }
        let subs = &cli.0[&path].subcommands;
        if subs.is_empty() {
            chain_open = false;
            continue;
        }
        if is_placeholder(t) || is_capitals(t) || t.contains('/') || t.contains('.') {
            chain_open = false;
            continue;
        }
        let alts: Vec<&str> = t.split('|').collect();
        if alts.iter().all(|a| subs.contains(*a)) {
            path.push(alts[0].to_string());
        } else {
            // A command that takes arguments as well as subcommands (`explore --grid …` beside
            // `explore collect DIR`) has none of them as its first word, so a word that is not a
            // subcommand is one only where the command needs a subcommand: at the root, or where
            // the help lists no options of its own beyond `--help`.
            let needs_sub = path.is_empty()
                || cli.0[&path]
                    .options
                    .iter()
                    .all(|o| matches!(o.as_str(), "-h" | "--help" | "-V" | "--version"));
            if needs_sub {
                for a in alts.iter().filter(|a| !subs.contains(**a)) {
                    bad.push(format!("`hwprof {}` has no subcommand {a}", path.join(" ")));
                }
                // The options after an unknown subcommand belong to nothing known.
                return bad;
            }
            chain_open = false;
        }
    }
    bad
}

/// GitHub's anchor of a heading.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let s = slug(line.trim_start_matches('#'));
        let n = seen.entry(s.clone()).or_insert(0);
        out.insert(if *n == 0 {
            s.clone()
        } else {
            format!("{s}-{n}")
        });
        *n += 1;
    }
    out
}

/// Relative Markdown link targets with their line numbers.
fn links_in(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(p) = rest.find("](") {
            let after = &rest[p + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
                out.push((i + 1, target.to_string()));
            }
            rest = &after[end..];
        }
    }
    out
}

/// Preset names in the table rows of a figure page.
fn table_configs(text: &str) -> Vec<(usize, String)> {
    const FAMILIES: [&str; 6] = ["paper-", "best-", "board-", "buffer-", "soc-", "formal-"];
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if !line.starts_with('|') {
            continue;
        }
        for w in line.split(|c: char| !(c.is_ascii_alphanumeric() || "._/-".contains(c))) {
            let w = w.trim_end_matches('.');
            let stem = w.strip_suffix(".toml").unwrap_or(w);
            if w.contains('/')
                || stem.contains('.')
                || !FAMILIES.iter().any(|f| stem.starts_with(f))
            {
                continue;
            }
            let tail = &stem[stem.find('-').unwrap() + 1..];
            if tail.is_empty()
                || !tail
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            {
                continue;
            }
            out.push((i + 1, stem.to_string()));
        }
    }
    out
}

/// Every drift in one document.
fn check_doc(name: &str, text: &str, rules: Rules, cli: &Cli, root: &Path) -> Vec<String> {
    let top = top_level(root);
    let dir = Path::new(name).parent().unwrap_or(Path::new(""));
    let mut bad = Vec::new();
    if rules.paths_and_commands {
        for (n, code) in code_of(text) {
            for p in paths_in(&code, &top) {
                if !root.join(&p).exists() {
                    bad.push(format!("{name}:{n}: path {p} does not exist"));
                }
            }
            for c in commands_in(&code) {
                for b in check_command(&c, cli) {
                    bad.push(format!("{name}:{n}: {b}"));
                }
            }
        }
    }
    for (n, target) in links_in(text) {
        let (file, anchor) = match target.split_once('#') {
            Some((f, a)) => (f, Some(a)),
            None => (target.as_str(), None),
        };
        let resolved = root.join(dir).join(file);
        if !file.is_empty() && !resolved.exists() {
            bad.push(format!("{name}:{n}: link {target} reaches nothing"));
            continue;
        }
        if let Some(a) = anchor {
            let body = if file.is_empty() {
                text.to_string()
            } else {
                std::fs::read_to_string(&resolved).unwrap_or_default()
            };
            if !anchors(&body).contains(a) {
                bad.push(format!("{name}:{n}: link {target}: no heading #{a}"));
            }
        }
    }
    if rules.config_tables {
        for (n, c) in table_configs(text) {
            if !root.join("configs").join(format!("{c}.toml")).exists() {
                bad.push(format!("{name}:{n}: configuration {c} is not in configs/"));
            }
        }
    }
    bad
}

/// The repository's top-level files and folders (what a named path starts with).
fn top_level(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "target" && n != ".git")
        .collect()
}

fn markdown_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn docs_and_help_name_only_what_exists() {
    let root = root();
    let cli = Cli::load();
    let full = Rules {
        paths_and_commands: true,
        config_tables: false,
    };
    let mut docs: Vec<(String, Rules)> = vec![("README.md".into(), full)];
    for d in markdown_files(&root.join("docs")) {
        let config_tables = d == "docs/RESULTS.md";
        docs.push((
            d,
            Rules {
                config_tables,
                ..full
            },
        ));
    }
    for d in markdown_files(&root.join("docs/notes")) {
        docs.push((
            d,
            Rules {
                paths_and_commands: false,
                config_tables: false,
            },
        ));
    }
    let mut bad = Vec::new();
    for (name, rules) in &docs {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        bad.extend(check_doc(name, &text, *rules, &cli, &root));
    }
    let top = top_level(&root);
    for (path, help) in &cli.0 {
        let name = format!("`hwprof {} --help`", path.join(" "));
        for line in help.text.lines() {
            for p in paths_in(line, &top) {
                if !root.join(&p).exists() {
                    bad.push(format!("{name}: path {p} does not exist"));
                }
            }
            // As in the docs, a command is named in a code span; help prose says "any hwprof
            // board top".
            for (_, code) in code_of(line) {
                for c in commands_in(&code) {
                    for b in check_command(&c, &cli) {
                        bad.push(format!("{name}: {b}"));
                    }
                }
            }
        }
    }
    assert!(
        docs.len() > 5 && cli.0.len() > 10,
        "too little read to mean anything"
    );
    assert!(
        bad.is_empty(),
        "the docs name what does not exist:\n{}",
        bad.join("\n")
    );
}

/// The checker finds each kind of drift it is for (so a clean run above means something).
#[test]
fn planted_drift_is_found() {
    let root = root();
    let cli = Cli::load();
    let doc = "# Page\n\n## A table\n\n\
        See `sim/src/no_such_file.rs` and [the table](#a-table), [gone](#no-such-heading).\n\n\
        ```sh\nhwprof model --config configs/paper-10k.toml --no-such-option\nhwprof no-such-command --json\n```\n\n\
        | preset | figure |\n|---|---|\n| `paper-10k` | 1 |\n| `paper-99k` | 2 |\n";
    let rules = Rules {
        paths_and_commands: true,
        config_tables: true,
    };
    let bad = check_doc("docs/PLANTED.md", doc, rules, &cli, &root);
    let expect = [
        "path sim/src/no_such_file.rs",
        "no heading #no-such-heading",
        "no option --no-such-option",
        "no subcommand no-such-command",
        "configuration paper-99k",
    ];
    for e in expect {
        assert!(bad.iter().any(|b| b.contains(e)), "not found: {e}\n{bad:?}");
    }
    assert_eq!(bad.len(), expect.len(), "{bad:?}");
}
