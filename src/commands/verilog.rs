//! `hwprof verilog`: export the block of a configuration for integration: the multi-hash
//! profiler (and its wrappers and board tops), the phase classifier or the profile buffer.

use super::{config_json, create_out_dir, load_config_for, print_json, CliError, CmdResult};
use hwprof_sim::flow::device::{Board, Target};
use hwprof_sim::hwprof_hdl::board::top as board_top;
use hwprof_sim::hwprof_hdl::export as hwprof_export;
use hwprof_sim::hwprof_hdl::util::on_rtl_thread;
use hwprof_sim::verify::multihash::export;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct VerilogArgs {
    /// Configuration (TOML) of the block to export: a profiler's (e.g.
    /// configs/paper-10k-bram.toml), the phase classifier's (a [phase] table, configs/phase.toml),
    /// the profile buffer's (an `indexing` key, configs/buffer-address-64.toml) or a counter
    /// bank's (a [counters] table, configs/counters-morris.toml; module hwprof_<kind>_bank_<events>)
    #[arg(long)]
    pub config: PathBuf,
    /// Output directory (created): hwprof_<name>.v (top module hwprof_<name>, <name> from the
    /// config file name; its Verilator lint waivers inside it, from its first line to its last)
    /// and hwprof_<name>.core (FuseSoC: default and lint targets)
    #[arg(long)]
    pub out: PathBuf,
    /// Also write a self-checking testbench (tb_hwprof_<name>.v: a bundled event stream in, the
    /// model's results expected; with --wishbone a bus master reading the reports; with --rvfi a
    /// core retiring RVFI records and honouring `stall`) and the core's `sim` target that runs it
    /// under Icarus
    #[arg(long, conflicts_with = "board")]
    pub testbench: bool,
    /// Export the board top of this board (icebreaker or ulx3s) around the configuration's
    /// profiler instead (a name not starting with `board` gets `-board`): its .v
    /// and a FuseSoC core
    #[arg(long)]
    pub board: Option<String>,
    /// With --board: the clock the PLL makes from the board's oscillator, in MHz (default: the
    /// board preset's, iCEBreaker 30, ULX3S 100; the oscillator's own frequency means no PLL)
    #[arg(long, requires = "board")]
    pub clock_mhz: Option<f64>,
    /// Apply the hardware options of this synthesis target's `[target.<name>]` section
    /// (ice40-up5k, ice40-hx8k, ecp5-25k, ecp5-85k; with --board, the board's part by default)
    #[arg(long, value_parser = Target::parse)]
    pub target: Option<Target>,
    /// Export the profiler behind an RVFI tap instead: hwprof_<name>_rvfi.v (module
    /// hwprof_<name>_rvfi: RVFI inputs, the tap's FIFO, `stall` and `dropped`, the report stream),
    /// and a FuseSoC core; with --testbench a core retiring a random stream, honouring `stall`,
    /// and a consumer with random gaps, checked against the model
    #[arg(long, conflicts_with = "board")]
    pub rvfi: bool,
    /// Export the profiler with a Wishbone B4 slave instead: hwprof_<name>_wb.v (module
    /// hwprof_<name>_wb: the event stream in, reports read from registers, `irq`), the C header
    /// hwprof_<name>.h (register offsets and fields, a polling read) and a FuseSoC core
    #[arg(long, conflicts_with_all = ["board", "rvfi"])]
    pub wishbone: bool,
    /// With --wishbone: report words the slave's FIFO holds, a power of two (default: one whole
    /// report, the accumulator's entries and the end word, at least 16); a FIFO deep enough for a
    /// run's reports lets software read them after the profiled code
    #[arg(long, value_name = "WORDS", requires = "wishbone")]
    pub report_fifo: Option<u32>,
    /// With --rvfi: what the tap feeds the profiler, value (<pc, loaded value> of loads) or edge
    /// (<pc, next pc> of control transfers)
    #[arg(long, value_enum, default_value = "value", requires = "rvfi")]
    pub mode: RvfiModeArg,
    /// With --rvfi: stall (lossless: a `stall` output for the core) or drop (never touches the
    /// core; dropped events are counted)
    #[arg(long, value_enum, default_value = "stall", requires = "rvfi")]
    pub policy: super::soc::PolicyArg,
    /// With --rvfi: the profiler on a clock of its own (ports prof_clock, prof_reset) behind an
    /// asynchronous FIFO
    #[arg(long = "async", requires = "rvfi")]
    pub asynchronous: bool,
    /// With --rvfi: free FIFO entries at which `stall` rises (2 to 15): the core may retire
    /// skid - 2 instructions after `stall` rises
    #[arg(long, default_value_t = hwprof_sim::hwprof_hdl::tap::DEFAULT_SKID, requires = "rvfi")]
    pub skid: u32,
    /// Print the files written and the configuration's fields as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum RvfiModeArg {
    Value,
    Edge,
}

pub fn run(a: VerilogArgs) -> CmdResult {
    let block = if super::synth::is_phase_config(&a.config) {
        Some("the phase classifier")
    } else if super::synth::is_buffer_config(&a.config) {
        Some("the profile buffer")
    } else if super::synth::is_bank_config(&a.config) {
        Some("a counter bank")
    } else {
        None
    };
    if let Some(block) = block {
        return run_block(&a, block);
    }
    let board = a
        .board
        .as_deref()
        .map(Board::parse)
        .transpose()
        .map_err(CliError::input)?;
    let cfg = load_config_for(&a.config, a.target.or(board.map(Board::target)))?;
    let name = a
        .config
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "profiler".into());
    // A configuration without RTL is bad input; file-system failures are not.
    hwprof_sim::hwprof_hdl::multihash::widths::rtl_shape(&cfg)
        .map_err(|e| CliError::input(format!("config {}: {e}", a.config.display())))?;
    create_out_dir(&a.out)?;
    let written = match board {
        None if a.rvfi => {
            use hwprof_sim::hwprof_hdl::tap::{
                export::wrapper, export::wrapper_name, TapConfig, TapMode,
            };
            let tap = TapConfig {
                skid: a.skid,
                asynchronous: a.asynchronous,
                ..TapConfig::new(
                    match a.mode {
                        RvfiModeArg::Value => TapMode::Value,
                        RvfiModeArg::Edge => TapMode::Edge,
                    },
                    a.policy.into(),
                )
            };
            let v = on_rtl_thread(|| wrapper(&cfg, &tap, &name))
                .map_err(CliError::failure)?
                .map_err(|e| CliError::input(format!("config {}: {e}", a.config.display())))?;
            let top = wrapper_name(&name);
            let vfile = format!("{top}.v");
            let description = format!(
                "hwprof profiler behind an RVFI tap ({}): {}",
                hwprof_sim::hwprof_hdl::tap::export::summary(&tap),
                cfg.summary()
            );
            let (sim, tb_files) = if a.testbench {
                use hwprof_sim::verify::tap::{wrapper_sim_check, wrapper_sim_files};
                wrapper_sim_check(&cfg, &tap).map_err(CliError::input)?;
                let (sim, files) =
                    wrapper_sim_files(&cfg, &tap, &name).map_err(CliError::failure)?;
                (Some(sim), files)
            } else {
                (None, Vec::new())
            };
            let core = hwprof_export::fusesoc_core(
                &format!("{name}_rvfi"),
                &description,
                &vfile,
                &v,
                sim.as_ref(),
            );
            let mut files = vec![(vfile, v), (format!("{top}.core"), core)];
            files.extend(tb_files);
            hwprof_export::write_files(&a.out, &files)
        }
        None if a.wishbone => {
            use hwprof_sim::hwprof_hdl::readout;
            let depth = a.report_fifo.unwrap_or_else(|| readout::fifo_depth(&cfg));
            readout::check_slave(&cfg, depth).map_err(CliError::input)?;
            let v = on_rtl_thread(|| readout::exported(&cfg, &name, depth))
                .map_err(CliError::failure)?
                .map_err(|e| CliError::input(format!("config {}: {e}", a.config.display())))?;
            let top = readout::wrapper_name(&name);
            let vfile = format!("{top}.v");
            let description = format!(
                "hwprof profiler with a Wishbone B4 slave: {}",
                cfg.summary()
            );
            let (sim, tb_files) = if a.testbench {
                let (sim, files) = hwprof_sim::verify::readout::sim_files(&cfg, &name, depth)
                    .map_err(CliError::failure)?;
                (Some(sim), files)
            } else {
                (None, Vec::new())
            };
            let core = hwprof_export::fusesoc_core(
                &format!("{name}_wb"),
                &description,
                &vfile,
                &v,
                sim.as_ref(),
            );
            let header = readout::c_header(&cfg, &name, depth);
            let mut files = vec![
                (vfile, v),
                (format!("{}.h", hwprof_export::module_name(&name)), header),
                (format!("{top}.core"), core),
            ];
            files.extend(tb_files);
            hwprof_export::write_files(&a.out, &files)
        }
        None => export::write(&cfg, &name, &a.out, a.testbench),
        Some(board) => {
            let params = super::synth::board_params(board, a.clock_mhz)?;
            let name = if name.starts_with("board") {
                name
            } else {
                format!("{name}-board")
            };
            let [vfile, core_file, ..] = export::file_names(&name);
            let v = on_rtl_thread(|| board_top::exported(&cfg, &params, &name))
                .map_err(CliError::failure)?
                .map_err(|e| CliError::input(format!("config {}: {e}", a.config.display())))?;
            let description = format!("hwprof board top for {}: {}", board.name(), cfg.summary());
            let core = hwprof_export::fusesoc_core(&name, &description, &vfile, &v, None);
            hwprof_export::write_files(&a.out, &[(vfile.clone(), v), (core_file, core)])
        }
    };
    let written = written.map_err(CliError::failure)?;
    if a.json {
        return print_json(&serde_json::json!({
            "files": written,
            "board": a.board,
            "configuration": config_json(&cfg),
        }));
    }
    for p in written {
        println!("{}", p.display());
    }
    Ok(())
}

/// Exports the phase classifier or the profile buffer (`block`) of `a.config`.
fn run_block(a: &VerilogArgs, block: &str) -> CmdResult {
    if a.board.is_some() || a.rvfi || a.wishbone || a.target.is_some() {
        return Err(CliError::input(format!(
            "config {} is {block}'s: --board, --rvfi, --wishbone and --target are the profiler's",
            a.config.display()
        )));
    }
    let name = a
        .config
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "block".into());
    let files = if super::synth::is_phase_config(&a.config) {
        let cfg: hwprof_sim::hwprof_hdl::phase::PhaseConfig = super::load(&a.config)?;
        on_rtl_thread(|| hwprof_sim::verify::ip::phase_files(&cfg, &name, a.testbench))
            .map_err(CliError::failure)?
            .map_err(|e| CliError::input(format!("config {}: {e}", a.config.display())))?
    } else if super::synth::is_bank_config(&a.config) {
        use hwprof_sim::verify::ip::{bank_files, bank_name};
        let cfg: hwprof_sim::flow::counter_area::BankConfig = super::load(&a.config)?;
        let file = format!(
            "{}.v",
            hwprof_export::module_name(&bank_name(cfg.kind, cfg.events))
        );
        bank_files(
            cfg.kind,
            cfg.events,
            cfg.seed,
            cfg.family,
            &file,
            a.testbench,
        )
        .map_err(CliError::failure)?
    } else {
        let cfg: hwprof_sim::hwprof_hdl::profile_buffer::BufferConfig = super::load(&a.config)?;
        on_rtl_thread(|| hwprof_sim::verify::ip::buffer_files(&cfg, &name, a.testbench))
            .map_err(CliError::failure)?
    };
    create_out_dir(&a.out)?;
    let written = hwprof_export::write_files(&a.out, &files).map_err(CliError::failure)?;
    if a.json {
        return print_json(&serde_json::json!({ "files": written }));
    }
    for p in written {
        println!("{}", p.display());
    }
    Ok(())
}
