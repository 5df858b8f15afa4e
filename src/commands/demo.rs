//! `hwprof demo`: the README's first command. Runs on the trace bundled in the binary and sets up
//! what else it needs (the synthesis tools, as YoWASP packages in the project's `.venv`, when no
//! native ones are found), so a fresh clone needs only the Rust toolchain and Python.

use super::progress::Progress;
use super::{
    create_out_dir,
    model::{print_table, print_trailing},
    write_error, CliError, CmdResult,
};
use hwprof_hdl::ConfigFile;
use hwprof_sim::eval::metric::evaluate;
use hwprof_sim::eval::trace::read_trace;
use hwprof_sim::hwprof_hdl::ProfilerConfig;
use std::path::{Path, PathBuf};

/// A real load trace (valgrind lackey, `gzip -9` of a small binary), compact binary form.
const BUNDLED_TRACE: &[u8] = include_bytes!("../../traces/gzip_load.hwpt.gz");
const PRESETS: [(&str, &str); 2] = [
    (
        "paper-10k (multi-hash 4x512, C1R0P1)",
        include_str!("../../configs/paper-10k.toml"),
    ),
    (
        "paper-10k-single (single hash 2048, R1P1)",
        include_str!("../../configs/paper-10k-single.toml"),
    ),
];

/// The paper preset whose area and Fmax the demo reports: the paper's 4 x 512 profiler with its
/// accumulator in block RAM, sized for the iCE40 UP5K (the fully-associative paper-10k fits no
/// target); the UP5K needs only Debian's yosys and nextpnr-ice40.
const SYNTH_PRESET: (&str, &str) = (
    "paper-10k-bram",
    include_str!("../../configs/paper-10k-bram.toml"),
);

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Skip the synthesis of the paper preset's hardware (paper-10k-bram on the iCE40 UP5K with
    /// Yosys and nextpnr, one seed, a few minutes), and the installation of the tools it needs.
    #[arg(long)]
    no_synth: bool,
    /// Directory for everything the demo writes (the bundled trace, the Verilog, the synthesis
    /// reports and tool logs)
    #[arg(long, default_value = "hwprof-demo")]
    out: PathBuf,
}

pub fn run(args: DemoArgs) -> CmdResult {
    create_out_dir(&args.out)?;
    let path = args.out.join("gzip_load.hwpt.gz");
    std::fs::write(&path, BUNDLED_TRACE).map_err(|e| write_error(&path, e))?;
    let events = read_trace(&path, None).map_err(CliError::failure)?;
    println!(
        "== hwprof demo: bundled trace traces/gzip_load.hwpt.gz, {} load events\n",
        events.len()
    );
    let mut errors = Vec::new();
    for (name, text) in PRESETS {
        let cfg = ProfilerConfig::from_toml_str(text, name).map_err(CliError::failure)?;
        let ev = evaluate(&cfg, &events).map_err(CliError::failure)?;
        println!("-- {name}");
        print_table(&ev);
        print_trailing(events.len() as u64 % cfg.interval, cfg.interval);
        println!();
        errors.push(ev.net_error);
    }
    println!(
        "multi-hash net error {:.3} % vs single hash {:.3} %",
        100.0 * errors[0],
        100.0 * errors[1]
    );
    rtl_demo(&events, &args.out)?;
    synth_demo(!args.no_synth, &args.out)?;
    println!("\n(everything the demo wrote is in {})", args.out.display());
    Ok(())
}

/// The synthesis tools the demo needs, found or (YoWASP, into the project's `.venv`) installed.
fn demo_tools(pref: hwprof_sim::flow::tools::Preference) -> CmdResult {
    use hwprof_sim::flow::tools;
    let needed = [tools::Tool::Yosys, tools::Tool::NextpnrIce40];
    let missing = |p| {
        needed
            .into_iter()
            .filter(|&t| tools::find(t, p).is_err())
            .count()
    };
    if missing(pref) == 0 {
        return Ok(());
    }
    if pref == tools::Preference::Native {
        let errors: Vec<String> = needed
            .into_iter()
            .filter_map(|t| tools::find(t, pref).err())
            .collect();
        return Err(CliError::failure(format!(
            "a synthesis tool is missing and {}=native forbids installing YoWASP:\n  {}\n\
             (or run the demo with --no-synth)",
            tools::TOOLS_ENV,
            errors.join("\n  ")
        )));
    }
    let venv = tools::venv_dir();
    println!(
        "   no native yosys/nextpnr-ice40: installing YoWASP into {} (once; needs python3 and PyPI)",
        venv.display()
    );
    let spinner = Progress::spinner("installing the YoWASP synthesis tools");
    let installed = tools::install(&venv, |l| spinner.step("tools", l));
    spinner.finish();
    installed.map_err(|e| {
        CliError::failure(format!(
            "could not install the synthesis tools: {e}\n(install them with `hwprof tools install` \
             or Debian's yosys and nextpnr-ice40, or run the demo with --no-synth)"
        ))
    })?;
    if missing(pref) > 0 {
        return Err(CliError::failure(
            "the YoWASP install finished but a tool is still not found: see `hwprof tools status`",
        ));
    }
    Ok(())
}

/// The area/Fmax part of the demo: the paper preset through Yosys and nextpnr (installed first if
/// needed), unless `--no-synth`.
fn synth_demo(run_it: bool, out: &Path) -> CmdResult {
    use hwprof_sim::flow::{self, device::Target, tools, FlowOptions};
    let (name, text) = SYNTH_PRESET;
    let target = Target::Ice40Up5k;
    println!(
        "\n-- Area/Fmax of {name} on {} (Yosys + nextpnr, 1 seed)",
        target.name()
    );
    let pref = tools::Preference::from_env().map_err(CliError::input)?;
    if !run_it {
        println!(
            "   not run (--no-synth); without it the demo synthesizes it here (a few minutes),"
        );
        println!("   or see docs/RESULTS.md for the figures of every preset and target");
        return Ok(());
    }
    demo_tools(pref)?;
    let cfg = ProfilerConfig::from_toml_str(text, name).map_err(CliError::failure)?;
    let verilog = hwprof_sim::hwprof_hdl::multihash::verilog(&cfg).map_err(CliError::failure)?;
    let spinner = Progress::spinner(format!("synthesizing {name} for {}", target.name()));
    let progress = |l: &str| spinner.step("demo synth", l);
    // Two intervals and the rollover between them, as `hwprof synth --config` measures it.
    let cycles = 2 * cfg.interval + cfg.entries as u64 + 100;
    progress(&format!("icarus: events per clock over {cycles} cycles"));
    let settings =
        hwprof_sim::hwprof_hdl::multihash::top::fixed_settings_ports(&cfg, "unused_flush_pending");
    let epc = flow::throughput::events_per_clock(&verilog, "top", &settings, cycles)
        .map_err(CliError::failure)?;
    let design = flow::Design {
        name: name.into(),
        verilog,
        top: "top".into(),
        events_per_clock: Some(epc),
    };
    let opts = FlowOptions {
        target,
        freq_mhz: 40.0,
        seeds: 1,
        out_dir: out.join("synth").join(name),
        constraints: None,
        bitstream: false,
        tools: pref,
        clock_targets: Vec::new(),
        floorplan: None,
    };
    let r = flow::run(&design, &opts, &mut |l| progress(l))
        .map_err(|e| CliError::failure(e.to_string()))?;
    spinner.finish();
    print!("{}", flow::table(&[&r]));
    println!("   (tool logs in {})", opts.out_dir.display());
    Ok(())
}

/// The RTL part of the demo: a short co-simulation of the paper preset's hardware against the
/// model (interval shortened to 2000 so that reports come quickly), and its Verilog export.
fn rtl_demo(events: &[hwprof_sim::eval::trace::Tuple], out: &Path) -> CmdResult {
    use hwprof_sim::verify::multihash::cosim::{cosim, CosimOptions};
    let text = PRESETS[0].1.replace("interval = 10000", "interval = 2000");
    let cfg =
        ProfilerConfig::from_toml_str(&text, "paper-10k, L = 2000").map_err(CliError::failure)?;
    let n = events.len().min(6000);
    let spinner = Progress::spinner(format!("co-simulating {n} events (rust-hdl)"));
    let r = cosim(&cfg, &events[..n], &CosimOptions::default()).map_err(CliError::failure)?;
    spinner.finish();
    println!(
        "\n-- RTL co-simulation (rust-hdl) of {}: {} events, {} reports compared, {} mismatches, {:.4} events/clock",
        r.config, r.events, r.reports_compared, r.mismatches, r.events_per_cycle
    );
    let (name, text) = SYNTH_PRESET;
    let fits = ProfilerConfig::from_toml_str(text, name).map_err(CliError::failure)?;
    let dir = out.join("verilog").join(name);
    let files = hwprof_sim::verify::multihash::export::write(&fits, name, &dir, true)
        .map_err(CliError::failure)?;
    println!("-- Verilog of {name} written: {}", files[0].display());
    if r.mismatches != 0 {
        return Err(CliError::failure("the RTL differs from the model"));
    }
    Ok(())
}
