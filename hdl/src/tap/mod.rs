//! The RVFI tap: hwprof's blocks on the retire stream of any RISC-V core that implements one
//! channel of the RISC-V Formal Interface. [`rvfi::RvfiTap`] decodes retired instructions into
//! events, [`fifo::GrayFifo`] carries them into the consumer's clock domain, and
//! [`export::wrapper`] puts a tap in front of a profiler as the module `hwprof_<name>_rvfi`.
//!
//! **Events by mode** (a record counts when `rvfi_valid` is high and `rvfi_trap` low; the opcode is
//! `rvfi_insn[6:0]`; `a` is always `rvfi_pc_rdata`):
//! - `value`: loads (LOAD), `b` = the loaded value as the destination register receives it,
//!   `rvfi_rd_wdata` (0 for a load into x0). Not `rvfi_mem_rdata`: cores differ in how they fill
//!   it and `rvfi_mem_rmask` for a byte or half-word load (PicoRV32 reports the whole word with
//!   every lane enabled, so the loaded byte cannot be told from it), the register write is exact;
//! - `edge`: control transfers (BRANCH, taken or not, JAL, JALR), `b` = `rvfi_pc_wdata`;
//! - `branch`: conditional branches (BRANCH), `b` = 1 when taken (`rvfi_pc_wdata` ≠ pc + 4);
//! - `phase`: control transfers, `b` = the instructions retired since the previous transfer, this
//!   one included (`rvfi_order` difference; the first counts from order 0), saturating at
//!   2^[`WEIGHT_BITS`] − 1.

pub mod export;
pub mod fifo;
pub mod rvfi;

pub use crate::phase::config::WEIGHT_BITS;
use fifo::FIFO_DEPTH;

/// Width of an event's `b` (values and pcs are 32-bit).
pub const EVENT_B_BITS: usize = 32;
/// Width of the count of events lost before an event.
pub const LOST_BITS: usize = 16;

/// What the tap takes from the retire stream (module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TapMode {
    Value,
    Edge,
    Branch,
    Phase,
}

impl TapMode {
    pub const ALL: [TapMode; 4] = [
        TapMode::Value,
        TapMode::Edge,
        TapMode::Branch,
        TapMode::Phase,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TapMode::Value => "value",
            TapMode::Edge => "edge",
            TapMode::Branch => "branch",
            TapMode::Phase => "phase",
        }
    }
}

/// What happens when the FIFO fills ([`rvfi::RvfiTap`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Lossless: `stall` holds the core.
    Stall,
    /// Never touches the core: events finding the FIFO full are dropped and counted.
    Drop,
}

impl Policy {
    pub fn name(self) -> &'static str {
        match self {
            Policy::Stall => "stall",
            Policy::Drop => "drop",
        }
    }
}

/// A tap's generation-time choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TapConfig {
    pub mode: TapMode,
    pub policy: Policy,
    /// Free FIFO entries at which `stall` rises: the events that may still arrive after it (two
    /// of the tap's own registers plus what the core retires before it stops). 2 to
    /// [`FIFO_DEPTH`] − 1.
    pub skid: u32,
    /// Whether the consumer has a clock of its own (`ev_clock` ≠ `clock`): the wrapper then has
    /// a `prof_clock` and `prof_reset` port.
    pub asynchronous: bool,
}

/// The default skid: a core with one instruction in flight (PicoRV32, SERV) and slack.
pub const DEFAULT_SKID: u32 = 4;

impl TapConfig {
    pub fn new(mode: TapMode, policy: Policy) -> TapConfig {
        TapConfig {
            mode,
            policy,
            skid: DEFAULT_SKID,
            asynchronous: false,
        }
    }

    /// Rejects a skid the FIFO cannot give.
    pub fn validate(&self) -> Result<(), String> {
        if !(2..FIFO_DEPTH).contains(&self.skid) {
            return Err(format!(
                "tap skid {}: must be 2 to {} (the FIFO has {FIFO_DEPTH} entries)",
                self.skid,
                FIFO_DEPTH - 1
            ));
        }
        Ok(())
    }
}

/// The Verilog of a tap (module `top`), deterministic.
pub fn verilog(cfg: &TapConfig) -> Result<String, String> {
    use rust_hdl::prelude::*;
    let mut uut = rvfi::RvfiTap::new(cfg)?;
    uut.connect_all();
    Ok(generate_verilog(&uut))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verilog_is_deterministic_and_depends_on_the_choices() {
        let c = TapConfig::new(TapMode::Value, Policy::Stall);
        let v = verilog(&c).unwrap();
        assert_eq!(v, verilog(&c).unwrap());
        assert_ne!(
            v,
            verilog(&TapConfig::new(TapMode::Edge, Policy::Stall)).unwrap()
        );
        assert!(!v.contains("EVENT_B_BITS") && !v.contains("LOST_BITS"));
        let mut bad = c;
        bad.skid = 1;
        assert!(verilog(&bad).unwrap_err().contains("skid"));
        if let Ok(dir) = std::env::var("HWPROF_DUMP_TAP") {
            std::fs::write(format!("{dir}/tap.v"), v).unwrap();
        }
    }
}
