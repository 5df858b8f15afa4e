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
//! T − 1 costs what a compare with a constant did: no subtractor on any event's path. Each is
//! computed from T directly (one carry chain, then a select), never from another derived value:
//! the load path stays as short as an event's.
//!
//! A configuration without `max_threshold` keeps T fixed: the block's outputs are then constants
//! of the configuration's T (its registers are left unused, and synthesis removes them), so a
//! fixed T costs what it did before T could be set.

use rust_hdl::prelude::*;

/// Width of the `threshold` setting: T <= 2^counter_bits − 1 <= 2^32 − 1.
pub const THRESHOLD_BITS: usize = 32;

/// What the compares use of T, for values saturating at `max` and counters reset to
/// `reset_value`: the outputs of [`CandidateThreshold`], in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Derived {
    pub t: u64,
    pub t_minus_1: u64,
    pub t_minus_2: u64,
    pub t_minus_3: u64,
    pub t_at_most_1: bool,
    pub reachable: bool,
    pub floor: u64,
    pub floor_minus_1: u64,
    pub floor_zero: bool,
    pub reset_reaches_floor: bool,
}

impl Derived {
    pub fn of(t: u64, max: u64, reset_value: u64) -> Self {
        let reachable = max >= t;
        // The counters' candidate floor (`UpdateRule::candidate_floor`).
        let floor = if reachable { t.saturating_sub(1) } else { 0 };
        Derived {
            t,
            t_minus_1: t.saturating_sub(1),
            t_minus_2: t.saturating_sub(2),
            t_minus_3: t.saturating_sub(3),
            t_at_most_1: t <= 1,
            reachable,
            floor,
            floor_minus_1: floor.saturating_sub(1),
            floor_zero: floor == 0,
            reset_reaches_floor: reset_value >= floor,
        }
    }
}

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
    /// T − 2 and T − 3, 0 below.
    pub t_minus_2: Signal<Out, Bits<CB>>,
    pub t_minus_3: Signal<Out, Bits<CB>>,
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
    /// T as of the load before the last: the previous interval's, for what is judged after T
    /// changed (the set-associative accumulator's retiring sets).
    pub t_prev: Signal<Out, Bits<CB>>,
    t_r: DFF<Bits<CB>>,
    t_minus_1_r: DFF<Bits<CB>>,
    t_minus_2_r: DFF<Bits<CB>>,
    t_minus_3_r: DFF<Bits<CB>>,
    t_at_most_1_r: DFF<Bit>,
    reachable_r: DFF<Bit>,
    floor_r: DFF<Bits<CB>>,
    floor_minus_1_r: DFF<Bits<CB>>,
    floor_zero_r: DFF<Bit>,
    reset_reaches_floor_r: DFF<Bit>,
    t_prev_r: DFF<Bits<CB>>,
    n: Signal<Local, Bits<CB>>,
    n_reachable: Signal<Local, Bit>,
    /// T >= 1, T >= 2, T >= 3; T − 1, T − 2 and T − 3 where those hold.
    n_nonzero: Signal<Local, Bit>,
    n_above_1: Signal<Local, Bit>,
    n_above_2: Signal<Local, Bit>,
    n_minus_1: Signal<Local, Bits<CB>>,
    n_minus_2: Signal<Local, Bits<CB>>,
    n_minus_3: Signal<Local, Bits<CB>>,
    /// The saturation value of what the owner compares with T.
    max: Constant<Bits<THRESHOLD_BITS>>,
    /// `reset_value` + 1, and whether that exceeds every CB-bit T: `reset_value` >= T − 1.
    reset_plus_1: Constant<Bits<CB>>,
    reset_above_all: Constant<Bit>,
    /// Every bit but bit 0.
    above_1: Constant<Bits<CB>>,
    one: Constant<Bits<CB>>,
    two: Constant<Bits<CB>>,
    three: Constant<Bits<CB>>,
    zero: Constant<Bits<CB>>,
    /// T is fixed: the outputs are the `c_` constants.
    fixed: Constant<Bit>,
    c_t: Constant<Bits<CB>>,
    c_t_minus_1: Constant<Bits<CB>>,
    c_t_minus_2: Constant<Bits<CB>>,
    c_t_minus_3: Constant<Bits<CB>>,
    c_t_at_most_1: Constant<Bit>,
    c_reachable: Constant<Bit>,
    c_floor: Constant<Bits<CB>>,
    c_floor_minus_1: Constant<Bits<CB>>,
    c_floor_zero: Constant<Bit>,
    c_reset_reaches_floor: Constant<Bit>,
}

impl<const CB: usize> CandidateThreshold<CB> {
    /// For values that saturate at `max`; `reset_value` as the counters' rule has it (0
    /// elsewhere). `value` must hold T >= 1 that fits CB bits. `fixed`: T for good (`load` and
    /// `value` are then ignored).
    pub fn new(max: u64, reset_value: u64, fixed: Option<u64>) -> Self {
        assert!(CB <= 64 && (CB == 64 || reset_value < 1u64 << CB));
        let c = Derived::of(fixed.unwrap_or(1), max, reset_value);
        CandidateThreshold {
            clock: Default::default(),
            load: Default::default(),
            value: Default::default(),
            t: Default::default(),
            t_minus_1: Default::default(),
            t_minus_2: Default::default(),
            t_minus_3: Default::default(),
            t_at_most_1: Default::default(),
            reachable: Default::default(),
            floor: Default::default(),
            floor_minus_1: Default::default(),
            floor_zero: Default::default(),
            reset_reaches_floor: Default::default(),
            t_prev: Default::default(),
            t_r: Default::default(),
            t_minus_1_r: Default::default(),
            t_minus_2_r: Default::default(),
            t_minus_3_r: Default::default(),
            t_at_most_1_r: Default::default(),
            reachable_r: Default::default(),
            floor_r: Default::default(),
            floor_minus_1_r: Default::default(),
            floor_zero_r: Default::default(),
            reset_reaches_floor_r: Default::default(),
            t_prev_r: Default::default(),
            n: Default::default(),
            n_reachable: Default::default(),
            n_nonzero: Default::default(),
            n_above_1: Default::default(),
            n_above_2: Default::default(),
            n_minus_1: Default::default(),
            n_minus_2: Default::default(),
            n_minus_3: Default::default(),
            max: Constant::new(max.min(u32::MAX as u64).into()),
            reset_plus_1: Constant::new((reset_value + 1).into()),
            reset_above_all: Constant::new(CB < 64 && reset_value + 1 >= 1u64 << CB),
            above_1: Constant::new(Bits::<CB>::mask() - Bits::<CB>::from(1u64)),
            one: Constant::new(1.into()),
            two: Constant::new(2.into()),
            three: Constant::new(3.into()),
            zero: Constant::new(0.into()),
            fixed: Constant::new(fixed.is_some()),
            c_t: Constant::new(c.t.into()),
            c_t_minus_1: Constant::new(c.t_minus_1.into()),
            c_t_minus_2: Constant::new(c.t_minus_2.into()),
            c_t_minus_3: Constant::new(c.t_minus_3.into()),
            c_t_at_most_1: Constant::new(c.t_at_most_1),
            c_reachable: Constant::new(c.reachable),
            c_floor: Constant::new(c.floor.into()),
            c_floor_minus_1: Constant::new(c.floor_minus_1.into()),
            c_floor_zero: Constant::new(c.floor_zero),
            c_reset_reaches_floor: Constant::new(c.reset_reaches_floor),
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
            t_minus_3_r,
            t_at_most_1_r,
            reachable_r,
            floor_r,
            floor_minus_1_r,
            floor_zero_r,
            reset_reaches_floor_r,
            t_prev_r
        );
        if self.fixed.val() {
            self.t.next = self.c_t.val();
            self.t_minus_1.next = self.c_t_minus_1.val();
            self.t_minus_2.next = self.c_t_minus_2.val();
            self.t_minus_3.next = self.c_t_minus_3.val();
            self.t_at_most_1.next = self.c_t_at_most_1.val();
            self.reachable.next = self.c_reachable.val();
            self.floor.next = self.c_floor.val();
            self.floor_minus_1.next = self.c_floor_minus_1.val();
            self.floor_zero.next = self.c_floor_zero.val();
            self.reset_reaches_floor.next = self.c_reset_reaches_floor.val();
            self.t_prev.next = self.c_t.val();
        } else {
            self.t.next = self.t_r.q.val();
            self.t_minus_1.next = self.t_minus_1_r.q.val();
            self.t_minus_2.next = self.t_minus_2_r.q.val();
            self.t_minus_3.next = self.t_minus_3_r.q.val();
            self.t_at_most_1.next = self.t_at_most_1_r.q.val();
            self.reachable.next = self.reachable_r.q.val();
            self.floor.next = self.floor_r.q.val();
            self.floor_minus_1.next = self.floor_minus_1_r.q.val();
            self.floor_zero.next = self.floor_zero_r.q.val();
            self.reset_reaches_floor.next = self.reset_reaches_floor_r.q.val();
            self.t_prev.next = self.t_prev_r.q.val();
        }
        self.n.next = bit_cast::<CB, THRESHOLD_BITS>(self.value.val());
        self.n_reachable.next = self.value.val() <= self.max.val();
        self.n_nonzero.next = self.n.val().any();
        self.n_above_1.next = (self.n.val() & self.above_1.val()).any();
        self.n_above_2.next = self.n_above_1.val() & (self.n.val() != self.two.val());
        self.n_minus_1.next = self.zero.val();
        if self.n_nonzero.val() {
            self.n_minus_1.next = self.n.val() - self.one.val();
        }
        self.n_minus_2.next = self.zero.val();
        if self.n_above_1.val() {
            self.n_minus_2.next = self.n.val() - self.two.val();
        }
        self.n_minus_3.next = self.zero.val();
        if self.n_above_2.val() {
            self.n_minus_3.next = self.n.val() - self.three.val();
        }
        if self.load.val() {
            self.t_prev_r.d.next = self.t_r.q.val();
            self.t_r.d.next = self.n.val();
            self.reachable_r.d.next = self.n_reachable.val();
            self.t_at_most_1_r.d.next = !self.n_above_1.val();
            self.t_minus_1_r.d.next = self.n_minus_1.val();
            self.t_minus_2_r.d.next = self.n_minus_2.val();
            self.t_minus_3_r.d.next = self.n_minus_3.val();
            // The candidate floor is T − 1 where T is reachable, else 0.
            self.floor_r.d.next = self.zero.val();
            self.floor_minus_1_r.d.next = self.zero.val();
            if self.n_reachable.val() {
                self.floor_r.d.next = self.n_minus_1.val();
                self.floor_minus_1_r.d.next = self.n_minus_2.val();
            }
            self.floor_zero_r.d.next = !self.n_reachable.val() | !self.n_above_1.val();
            // reset_value >= T − 1 <=> T <= reset_value + 1 (T >= 1).
            self.reset_reaches_floor_r.d.next = !self.n_reachable.val()
                | self.reset_above_all.val()
                | (self.n.val() <= self.reset_plus_1.val());
        }
    }
}
