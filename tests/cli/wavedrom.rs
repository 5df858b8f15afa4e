//! The timing diagrams (docs/wavedrom/*.json, rendered to *.svg by scripts/wavedrom.sh) name only
//! ports of the exported module each documents, and docs/SPEC.md shows each one.

use crate::common::*;

/// Each diagram and the `hwprof verilog` options of the export it documents (beside `--config`).
const DIAGRAMS: &[(&str, &[&str])] = &[
    ("event-handshake", &[]),
    ("report-stream", &[]),
    ("interval-end", &[]),
    ("rvfi-tap", &["--rvfi"]),
    ("wishbone-slave", &["--wishbone"]),
];

/// The ports of module `module` in a Verilog file, from its header `module NAME(a,b,...);` or
/// `module NAME(input wire [7:0] a, ...);`: each item's last word.
fn ports(verilog: &str, module: &str) -> Vec<String> {
    let start = verilog
        .find(&format!("module {module}("))
        .unwrap_or_else(|| panic!("no module {module}"))
        + format!("module {module}(").len();
    let end = start
        + verilog[start..]
            .find(");")
            .expect("the end of the port list");
    verilog[start..end]
        .split(',')
        .filter_map(|p| p.split_whitespace().last().map(str::to_string))
        .collect()
}

#[test]
fn diagrams_name_ports_of_their_exports() {
    let d = Scratch::new("wavedrom");
    let small = d.write("small-2x16.toml", SMALL_CONFIG);
    let dir = root().join("docs/wavedrom");
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.strip_suffix(".json").map(str::to_string)
        })
        .collect();
    found.sort();
    let mut listed: Vec<String> = DIAGRAMS.iter().map(|d| d.0.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "every diagram is checked");
    let spec = std::fs::read_to_string(root().join("docs/SPEC.md")).unwrap();
    for (name, options) in DIAGRAMS {
        let out = d.join(name);
        let mut args = vec![
            "verilog",
            "--config",
            &small,
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(*options);
        hwprof_ok(&args);
        let suffix = match options.first() {
            Some(&"--rvfi") => "_rvfi",
            Some(&"--wishbone") => "_wb",
            _ => "",
        };
        let module = format!("hwprof_small_2x16{suffix}");
        let v = std::fs::read_to_string(out.join(format!("{module}.v"))).unwrap();
        let ports = ports(&v, &module);
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap(),
        )
        .unwrap_or_else(|e| panic!("{name}.json: {e}"));
        let signals = json["signal"].as_array().expect("a signal list");
        assert!(!signals.is_empty());
        for s in signals {
            let Some(signal) = s["name"].as_str() else {
                continue;
            };
            assert!(
                ports.iter().any(|p| p == signal),
                "{name}.json: {signal} is not a port of {module}: {ports:?}"
            );
        }
        assert!(
            dir.join(format!("{name}.svg")).exists(),
            "{name}.svg: render it with scripts/wavedrom.sh"
        );
        assert!(
            spec.contains(&format!("wavedrom/{name}.svg")),
            "docs/SPEC.md shows {name}.svg"
        );
    }
}
