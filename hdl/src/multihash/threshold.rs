//! The **candidate threshold** T at run time, as the blocks that compare with it hold it: T and
//! the values derived from it, in flip-flops, loaded together.
//!
//! T is a setting like L ([`super::interval`]): [`super::interval::IntervalControl`] reads the
//! `threshold` input when an interval ends at the top's stage 0, and offers it as
//! `next_threshold`. Every block that decides events — the counter tables, the accumulator —
//! keeps its own copy and loads it when the interval whose events it decides ends *there*
//! (`load`: its own `end_interval`/`clear_start`, and reset), so each event is decided with the
//! T of its interval wherever it is in the pipeline. That holds because no top ends a second
//! interval at stage 0 before the first end has passed every deciding stage (each top's docs).
//!
//! The derived values are computed when T is loaded, not from it afterwards, so a compare with
//! T − 1 costs what a compare with a constant did: no subtractor on any event's path.

use rust_hdl::prelude::*;

/// Width of the `threshold` setting: T <= 2^counter_bits − 1 <= 2^32 − 1.
pub const THRESHOLD_BITS: usize = 32;

/// T of one deciding block and what it compares with, as of the last `load`.
#[derive(LogicBlock)]
pub struct CandidateThreshold<const CB: usize> {
    pub clock: Signal<In, Clock>,
    /// Take `value` now.
    pub load: Signal<In, Bit>,
    /// T of the interval that starts after the one ending when `load` is high (T >= 1).
    pub value: Signal<In, Bits<THRESHOLD_BITS>>,
    /// T.
    pub t: Signal<Out, Bits<CB>>,
    /// T − 1: a count at least this reaches T with one more event.
    pub t_minus_1: Signal<Out, Bits<CB>>,
    /// T − 2, 0 below.
    pub t_minus_2: Signal<Out, Bits<CB>>,
    /// T <= 1: a count of 0 is >= T − 1.
    pub t_at_most_1: Signal<Out, Bit>,
    /// `max` >= T: a value that saturates at `max` can reach T.
    pub reachable: Signal<Out, Bit>,
    /// The counters' **candidate floor** (`UpdateRule::candidate_floor`): T − 1 when `reachable`,
    /// else 0; and that minus one, 0 below; and whether it is 0.
    pub floor: Signal<Out, Bits<CB>>,
    pub floor_minus_1: Signal<Out, Bits<CB>>,
    pub floor_zero: Signal<Out, Bit>,
    /// `reset_value` >= the candidate floor.
    pub reset_reaches_floor: Signal<Out, Bit>,
    t_r: DFF<Bits<CB>>,
    t_minus_1_r: DFF<Bits<CB>>,
    t_minus_2_r: DFF<Bits<CB>>,
    t_at_most_1_r: DFF<Bit>,
    reachable_r: DFF<Bit>,
    floor_r: DFF<Bits<CB>>,
    floor_minus_1_r: DFF<Bits<CB>>,
    floor_zero_r: DFF<Bit>,
    reset_reaches_floor_r: DFF<Bit>,
    n: Signal<Local, Bits<CB>>,
    n_reachable: Signal<Local, Bit>,
    n_floor: Signal<Local, Bits<CB>>,
    /// The saturation value of what the owner compares with T; the counters' `reset_value`.
    max: Constant<Bits<THRESHOLD_BITS>>,
    reset_value: Constant<Bits<CB>>,
    one: Constant<Bits<CB>>,
    two: Constant<Bits<CB>>,
    zero: Constant<Bits<CB>>,
}

impl<const CB: usize> CandidateThreshold<CB> {
    /// For values that saturate at `max`; `reset_value` as the counters' rule has it (0
    /// elsewhere). `value` must hold T >= 1 that fits CB bits.
    pub fn new(max: u64, reset_value: u64) -> Self {
        assert!(CB <= 64 && (CB == 64 || reset_value < 1u64 << CB));
        CandidateThreshold {
            clock: Default::default(),
            load: Default::default(),
            value: Default::default(),
            t: Default::default(),
            t_minus_1: Default::default(),
            t_minus_2: Default::default(),
            t_at_most_1: Default::default(),
            reachable: Default::default(),
            floor: Default::default(),
            floor_minus_1: Default::default(),
            floor_zero: Default::default(),
            reset_reaches_floor: Default::default(),
            t_r: Default::default(),
            t_minus_1_r: Default::default(),
            t_minus_2_r: Default::default(),
            t_at_most_1_r: Default::default(),
            reachable_r: Default::default(),
            floor_r: Default::default(),
            floor_minus_1_r: Default::default(),
            floor_zero_r: Default::default(),
            reset_reaches_floor_r: Default::default(),
            n: Default::default(),
            n_reachable: Default::default(),
            n_floor: Default::default(),
            max: Constant::new(max.min(u32::MAX as u64).into()),
            reset_value: Constant::new(reset_value.into()),
            one: Constant::new(1.into()),
            two: Constant::new(2.into()),
            zero: Constant::new(0.into()),
        }
    }
}

impl<const CB: usize> Logic for CandidateThreshold<CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            t_r,
            t_minus_1_r,
            t_minus_2_r,
            t_at_most_1_r,
            reachable_r,
            floor_r,
            floor_minus_1_r,
            floor_zero_r,
            reset_reaches_floor_r
        );
        self.t.next = self.t_r.q.val();
        self.t_minus_1.next = self.t_minus_1_r.q.val();
        self.t_minus_2.next = self.t_minus_2_r.q.val();
        self.t_at_most_1.next = self.t_at_most_1_r.q.val();
        self.reachable.next = self.reachable_r.q.val();
        self.floor.next = self.floor_r.q.val();
        self.floor_minus_1.next = self.floor_minus_1_r.q.val();
        self.floor_zero.next = self.floor_zero_r.q.val();
        self.reset_reaches_floor.next = self.reset_reaches_floor_r.q.val();
        self.n.next = bit_cast::<CB, THRESHOLD_BITS>(self.value.val());
        self.n_reachable.next = self.value.val() <= self.max.val();
        self.n_floor.next = self.zero.val();
        if self.n_reachable.val() & (self.n.val() >= self.one.val()) {
            self.n_floor.next = self.n.val() - self.one.val();
        }
        if self.load.val() {
            self.t_r.d.next = self.n.val();
            self.reachable_r.d.next = self.n_reachable.val();
            self.t_at_most_1_r.d.next = self.n.val() <= self.one.val();
            self.t_minus_1_r.d.next = self.zero.val();
            if self.n.val() >= self.one.val() {
                self.t_minus_1_r.d.next = self.n.val() - self.one.val();
            }
            self.t_minus_2_r.d.next = self.zero.val();
            if self.n.val() >= self.two.val() {
                self.t_minus_2_r.d.next = self.n.val() - self.two.val();
            }
            self.floor_r.d.next = self.n_floor.val();
            self.floor_zero_r.d.next = self.n_floor.val() == self.zero.val();
            self.floor_minus_1_r.d.next = self.zero.val();
            if self.n_floor.val() >= self.one.val() {
                self.floor_minus_1_r.d.next = self.n_floor.val() - self.one.val();
            }
            self.reset_reaches_floor_r.d.next = self.reset_value.val() >= self.n_floor.val();
        }
    }
}
