//! `hwprof demo`: the README's main job. Runs on the trace bundled in the binary, so it needs
//! nothing but the Rust toolchain.

use super::{model::print_table, CliError, CmdResult};
use hwprof_sim::eval::metric::evaluate;
use hwprof_sim::eval::trace::read_trace;
use hwprof_sim::hwprof_hdl::ProfilerConfig;

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
    /// Yosys and nextpnr, one seed, about two minutes), which otherwise runs when the tools are there.
    #[arg(long)]
    no_synth: bool,
}

pub fn run(args: DemoArgs) -> CmdResult {
    let path = std::env::temp_dir().join(format!("hwprof-demo-{}.hwpt.gz", std::process::id()));
    std::fs::write(&path, BUNDLED_TRACE).map_err(CliError::failure)?;
    let events = read_trace(&path, None).map_err(CliError::failure);
    let _ = std::fs::remove_file(&path);
    let events = events?;
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
        println!();
        errors.push(ev.net_error);
    }
    println!(
        "multi-hash net error {:.3} % vs single hash {:.3} %",
        100.0 * errors[0],
        100.0 * errors[1]
    );
    rtl_demo(&events)?;
    synth_demo(!args.no_synth)
}

/// The area/Fmax part of the demo: the paper preset through Yosys and nextpnr when the
/// tools are there (unless `--no-synth`); otherwise says how to get them.
fn synth_demo(run_it: bool) -> CmdResult {
    use hwprof_sim::flow::{self, device::Target, tools, FlowOptions};
    let (name, text) = SYNTH_PRESET;
    let target = Target::Ice40Up5k;
    println!(
        "\n-- Area/Fmax of {name} on {} (Yosys + nextpnr, 1 seed)",
        target.name()
    );
    let pref = tools::Preference::from_env().map_err(CliError::input)?;
    let missing: Vec<String> = [tools::Tool::Yosys, tools::Tool::NextpnrIce40]
        .into_iter()
        .filter_map(|t| tools::find(t, pref).err())
        .collect();
    if !missing.is_empty() {
        println!("   skipped, a synthesis tool is missing:");
        for m in missing {
            println!("   {m}");
        }
        println!("   then run `cargo run --release -- demo` again");
        return Ok(());
    }
    if !run_it {
        println!(
            "   skipped (--no-synth); without it the demo synthesizes it here (about {SYNTH_MINUTES} minutes),"
        );
        println!(
            "   or see docs/RESULTS.md (\"Issue 4\") for the figures of every preset and target"
        );
        return Ok(());
    }
    let cfg = ProfilerConfig::from_toml_str(text, name).map_err(CliError::failure)?;
    let verilog = hwprof_sim::hwprof_hdl::multihash::verilog(&cfg).map_err(CliError::failure)?;
    let progress = |l: &str| eprintln!("[demo synth] {l}");
    // Two intervals and the rollover between them, as `hwprof synth --config` measures it.
    let cycles = 2 * cfg.interval + cfg.entries as u64 + 100;
    progress(&format!("icarus: events per clock over {cycles} cycles"));
    let epc =
        flow::throughput::events_per_clock(&verilog, "top", cycles).map_err(CliError::failure)?;
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
        out_dir: std::env::temp_dir().join("hwprof-demo-synth").join(name),
        constraints: None,
        bitstream: false,
        tools: pref,
    };
    let r = flow::run(&design, &opts, &mut |l| progress(l))
        .map_err(|e| CliError::failure(e.to_string()))?;
    print!("{}", flow::table(&[&r]));
    println!("   (tool logs in {})", opts.out_dir.display());
    Ok(())
}

/// Wall time of the demo's synthesis on the development machine, for the hint printed without it.
const SYNTH_MINUTES: u32 = 2;

/// The RTL part of the demo: a short co-simulation of the paper preset's hardware against the
/// model (interval shortened to 2000 so that reports come quickly), and its Verilog export.
fn rtl_demo(events: &[hwprof_sim::eval::trace::Tuple]) -> CmdResult {
    use hwprof_sim::verify::multihash::cosim::{cosim, CosimOptions};
    let text = PRESETS[0].1.replace("interval = 10000", "interval = 2000");
    let cfg =
        ProfilerConfig::from_toml_str(&text, "paper-10k, L = 2000").map_err(CliError::failure)?;
    let n = events.len().min(6000);
    let r = cosim(&cfg, &events[..n], &CosimOptions::default()).map_err(CliError::failure)?;
    println!(
        "\n-- RTL co-simulation (rust-hdl) of {}: {} events, {} reports compared, {} mismatches, {:.4} events/clock",
        r.config, r.events, r.reports_compared, r.mismatches, r.events_per_cycle
    );
    let (name, text) = SYNTH_PRESET;
    let fits = ProfilerConfig::from_toml_str(text, name).map_err(CliError::failure)?;
    let dir = std::env::temp_dir().join("hwprof-demo-verilog").join(name);
    let files = hwprof_sim::verify::multihash::export::write(&fits, name, &dir, true)
        .map_err(CliError::failure)?;
    println!("-- Verilog of {name} written: {}", files[0].display());
    if r.mismatches != 0 {
        return Err(CliError::failure("the RTL differs from the model"));
    }
    Ok(())
}
