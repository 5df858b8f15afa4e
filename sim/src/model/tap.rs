//! Model of the RVFI tap (`hwprof_hdl::tap`): the events each mode takes from a stream of
//! retire records, and what the drop policy may do to them.

use hwprof_hdl::tap::{TapMode, WEIGHT_BITS};

/// One RVFI retire record (the fields the tap reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RvfiRecord {
    pub order: u64,
    pub insn: u32,
    pub trap: bool,
    pub pc_rdata: u32,
    pub pc_wdata: u32,
    pub rd_wdata: u32,
}

const LOAD: u32 = 0x03;
const BRANCH: u32 = 0x63;
const JAL: u32 = 0x6f;
const JALR: u32 = 0x67;

impl RvfiRecord {
    fn opcode(&self) -> u32 {
        self.insn & 0x7f
    }
    pub fn is_load(&self) -> bool {
        !self.trap && self.opcode() == LOAD
    }
    pub fn is_branch(&self) -> bool {
        !self.trap && self.opcode() == BRANCH
    }
    pub fn is_transfer(&self) -> bool {
        !self.trap && matches!(self.opcode(), BRANCH | JAL | JALR)
    }
}

/// The events of `mode` in `records` (retirement order), as (a, b).
pub fn events(mode: TapMode, records: &[RvfiRecord]) -> Vec<(u64, u64)> {
    let weight_max = (1u64 << WEIGHT_BITS) - 1;
    // The order of the previous transfer; the first transfer counts from order 0.
    let mut last = u64::MAX;
    let mut out = Vec::new();
    for r in records {
        let pc = r.pc_rdata as u64;
        let b = match mode {
            TapMode::Value => r.is_load().then_some(r.rd_wdata as u64),
            TapMode::Edge => r.is_transfer().then_some(r.pc_wdata as u64),
            TapMode::Branch => r
                .is_branch()
                .then_some((r.pc_wdata != r.pc_rdata.wrapping_add(4)) as u64),
            TapMode::Phase => r
                .is_transfer()
                .then(|| r.order.wrapping_sub(last).min(weight_max)),
        };
        if r.is_transfer() {
            last = r.order;
        }
        if let Some(b) = b {
            out.push((pc, b));
        }
    }
    out
}

/// Checks that `taken` (what a consumer received under the drop policy, each event with the
/// count lost just before it) is `all` with `dropped` events left out: each event taken must be
/// the retired event that follows the previous one taken and the `lost` it announces (at least
/// `lost_max` when the count saturated). Returns the events left out after the last one taken.
/// An error names the first event that breaks the rule.
pub fn check_drops(
    all: &[(u64, u64)],
    taken: &[((u64, u64), u64)],
    dropped: u64,
    lost_max: u64,
) -> Result<u64, String> {
    let mut i = 0usize;
    for (k, &(ev, lost)) in taken.iter().enumerate() {
        i += lost as usize;
        if lost == lost_max {
            // Saturated: at least that many were lost.
            while i < all.len() && all[i] != ev {
                i += 1;
            }
        }
        match all.get(i) {
            Some(&e) if e == ev => i += 1,
            Some(&e) => {
                return Err(format!(
                    "event {k} taken is {ev:x?}, but the retired event after {lost} lost is {e:x?}"
                ))
            }
            None => {
                return Err(format!(
                    "event {k} taken, {ev:x?}, lies beyond the {} retired events",
                    all.len()
                ))
            }
        }
    }
    let tail = (all.len() - i) as u64;
    let left_out = (all.len() - taken.len()) as u64;
    if left_out != dropped {
        return Err(format!(
            "{} events retired, {} taken: {left_out} left out, but the tap counted {dropped} dropped",
            all.len(),
            taken.len()
        ));
    }
    Ok(tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(order: u64, insn: u32, pc: u32, next: u32, rd: u32) -> RvfiRecord {
        RvfiRecord {
            order,
            insn,
            trap: false,
            pc_rdata: pc,
            pc_wdata: next,
            rd_wdata: rd,
        }
    }

    #[test]
    fn each_mode_takes_its_instructions() {
        let r = vec![
            rec(0, 0x0000_2083, 0x100, 0x104, 7), // lw
            rec(1, 0x0000_0013, 0x104, 0x108, 0), // addi
            rec(2, 0x0000_0063, 0x108, 0x200, 0), // beq, taken
            rec(3, 0x0000_0063, 0x200, 0x204, 0), // beq, not taken
            rec(4, 0x0000_006f, 0x204, 0x300, 0), // jal
            rec(5, 0x0000_8067, 0x300, 0x208, 0), // jalr
        ];
        assert_eq!(events(TapMode::Value, &r), vec![(0x100, 7)]);
        assert_eq!(
            events(TapMode::Edge, &r),
            vec![
                (0x108, 0x200),
                (0x200, 0x204),
                (0x204, 0x300),
                (0x300, 0x208)
            ]
        );
        assert_eq!(events(TapMode::Branch, &r), vec![(0x108, 1), (0x200, 0)]);
        assert_eq!(
            events(TapMode::Phase, &r),
            vec![(0x108, 3), (0x200, 1), (0x204, 1), (0x300, 1)]
        );
        let mut trapped = r.clone();
        trapped[0].trap = true;
        assert!(events(TapMode::Value, &trapped).is_empty());
    }

    #[test]
    fn phase_weights_saturate() {
        let r = vec![rec(1000, 0x0000_006f, 0, 8, 0)];
        assert_eq!(events(TapMode::Phase, &r), vec![(0, 255)]);
    }

    #[test]
    fn drops_are_checked() {
        let all = vec![(1, 1), (2, 2), (3, 3), (4, 4)];
        assert_eq!(
            check_drops(&all, &[((1, 1), 0), ((3, 3), 1)], 2, 65535),
            Ok(1)
        );
        assert!(check_drops(&all, &[((1, 1), 0), ((3, 3), 0)], 2, 65535).is_err());
        assert!(check_drops(&all, &[((3, 3), 2), ((1, 1), 0)], 2, 65535).is_err());
        assert!(check_drops(&all, &[((1, 1), 0)], 2, 65535).is_err());
    }
}
