//! The phase classifier in RTL: one event `(pc, weight)` per clock, the classification of each
//! interval serially in the background. It matches `hwprof_sim::model::phase` bit for bit (the
//! module documentation there is the specification); this file adds only the schedule:
//!
//! - **Event path**, five stages so that every path starts at a register: *accept* (every clock
//!   `in_valid & in_ready`) decides whether the event ends the interval and registers it with its
//!   pc's bucket (h3); *read* issues the read of the bucket's count from the live accumulator
//!   bank (block RAM, registered read); *select* registers that count, or, if an event ahead has
//!   not written the same bucket yet, the count it wrote last clock or writes this clock (the
//!   RAM returned the data from before those writes); *accumulate* adds the weight, saturating,
//!   to that count — or, when the event just ahead has the same bucket, to the count it computed
//!   (a forward, so the loop is a select, a carry chain and, only where an interval can reach
//!   the maximum, the saturation); *write-back* stores the count in its bank. The accumulators
//!   are two RAM banks: the event that ends the interval is the last one of its bank, which
//!   becomes the snapshot; the events behind it use the other bank, clean, and select 0 while
//!   the end is ahead of them. The divider clears each snapshot bucket as it takes it, so the
//!   bank is clean when the next interval end makes it live again.
//! - **Classification** of the snapshot, serially: a settling clock, Σ (B clocks); the normalisation, a restoring
//!   divider computing floor(acc·2^Q / (Σ + 1)) in Q + 1 clocks a bucket; the Manhattan distance
//!   to every entry, a bucket per clock from the signature RAM (P·B + 2 clocks: read, absolute
//!   difference, sum and comparison, each from registers); the leader–follower
//!   decision, the entry's interval count and phase id, and the LRU update (3 clocks); the
//!   signature write (B + 2 clocks, skipped for a hit on a leader); the run-length Markov
//!   predictor (3 clocks); then one output record.
//! - **Record port**: a record is held on `out_*` with `out_valid` until the clock `out_ready` is
//!   high; the classification waits in its last step (Emit) while the record before it is still
//!   held, so a stalled consumer stalls the classification and, through it, the next interval end
//!   (below): no record is lost.
//! - **Stall** (the only times `in_ready` is low): while the predictor table and the
//!   accumulator banks clear after reset (`markov_entries` clocks, at least B), and while a classification is in progress (or an interval end is
//!   in the hash, select, accumulate or write-back stage) and the interval's count is within one maximal weight (2^WEIGHT_BITS − 1)
//!   of I, so that no interval can end before the previous one is classified. With I ≥ 255 × (classification clocks) it never happens.

use super::config::{PhaseConfig, COUNT_BITS, PHASE_ID_BITS, RUN_BITS, TRANSITION_ID, WEIGHT_BITS};
use crate::multihash::hash_unit::ParityHash;
use rust_hdl::prelude::*;

/// Bits of a predictor entry: valid, confident, tag phase, tag run, next phase (from the top).
pub const MARKOV_WORD: usize = 2 + PHASE_ID_BITS + RUN_BITS + PHASE_ID_BITS;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum PhaseState {
    Clear,
    Idle,
    Settle,
    Sum,
    Divide,
    Distance,
    Decide,
    Fetch,
    Touch,
    Write,
    Learn,
    Lookup,
    Emit,
}

/// The classifier. Shape: B buckets (LB = log2 B), C-bit accumulators, Q-bit signatures, P entries
/// (LP = log2 P), SA = LP + LB signature-RAM address bits, D = Q + LB distance bits, DW = C + LB + 1
/// divider bits, LM = log2(markov_entries).
#[derive(LogicBlock)]
pub struct PhaseClassifier<
    const B: usize,
    const LB: usize,
    const C: usize,
    const Q: usize,
    const P: usize,
    const LP: usize,
    const SA: usize,
    const D: usize,
    const DW: usize,
    const LM: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_pc: Signal<In, Bits<64>>,
    /// Instructions the event stands for, saturated by the driver to WEIGHT_BITS.
    pub in_weight: Signal<In, Bits<WEIGHT_BITS>>,
    /// The record of a closed interval, held until taken (`out_valid & out_ready` at a clock).
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_interval: Signal<Out, Bits<32>>,
    pub out_phase: Signal<Out, Bits<PHASE_ID_BITS>>,
    pub out_distance: Signal<Out, Bits<D>>,
    pub out_predicted: Signal<Out, Bits<PHASE_ID_BITS>>,
    // Parameters.
    interval: Constant<Bits<32>>,
    /// WEIGHT_BITS as a shift: `remaining` splits into a low part the width of a weight and a
    /// high part (a maximal weight is 2^WEIGHT_BITS − 1, so "within one maximal weight of the end"
    /// is "high part 0").
    weight_shift: Constant<Bits<8>>,
    sample_last: Constant<Bits<17>>,
    threshold: Constant<Bits<D>>,
    moving_average: Constant<Bit>,
    /// `when_full` = `join_nearest`: with every entry valid (`fill` = P) the nearest is a hit.
    joins_nearest: Constant<Bit>,
    shift: Constant<Bits<4>>,
    round: Constant<Bits<Q>>,
    counter_max: Constant<Bits<C>>,
    markov_shift: Constant<Bits<4>>,
    entry_ids: [Constant<Bits<LP>>; P],
    last_bucket: Constant<Bits<LB>>,
    last_entry: Constant<Bits<LP>>,
    entry_count: Constant<Bits<8>>,
    last_markov: Constant<Bits<LM>>,
    q_steps: Constant<Bits<5>>,
    no_distance: Constant<Bits<D>>,
    run_max: Constant<Bits<RUN_BITS>>,
    lb_shift: Constant<Bits<8>>,
    valid_flag: Constant<Bits<MARKOV_WORD>>,
    confident_flag: Constant<Bits<MARKOV_WORD>>,
    held: DFF<Bits<MARKOV_WORD>>,
    confident: Signal<Local, Bit>,
    learned: Signal<Local, Bits<MARKOV_WORD>>,
    held_phase: Signal<Local, Bits<MARKOV_WORD>>,
    held_run: Signal<Local, Bits<MARKOV_WORD>>,
    word_phase: Signal<Local, Bits<MARKOV_WORD>>,
    word_run: Signal<Local, Bits<MARKOV_WORD>>,
    tag_phase_shift: Constant<Bits<8>>,
    tag_run_shift: Constant<Bits<8>>,
    go: Signal<Local, Bit>,
    // Event path.
    hash: ParityHash<LB>,
    /// The accumulators: two banks in block RAM, one live (read in the read stage, written in
    /// write-back) and one the snapshot being classified (read by Σ and the divider, cleared as
    /// the divider takes each bucket). An interval end swaps them.
    acc0: RAM<Bits<C>, LB>,
    acc1: RAM<Bits<C>, LB>,
    /// The bank of the next accepted event (it flips after the event that ends an interval), of
    /// the event in each stage, and of the snapshot being classified.
    bank: DFF<Bit>,
    a_bank: DFF<Bit>,
    h_bank: DFF<Bit>,
    s_bank: DFF<Bit>,
    w_bank: DFF<Bit>,
    c_bank: DFF<Bit>,
    /// Instructions left in the interval (I − count, in 1 ..= I). A weight is subtracted from the
    /// low part alone, its borrow choosing the high part or the high part − 1 (computed from the
    /// register in parallel): no 32-bit chain after the input.
    remaining: DFF<Bits<32>>,
    rem_high: Signal<Local, Bits<{ 32 - WEIGHT_BITS }>>,
    rem_high_dec: Signal<Local, Bits<{ 32 - WEIGHT_BITS }>>,
    rem_low: Signal<Local, Bits<{ WEIGHT_BITS + 1 }>>,
    borrow: Signal<Local, Bit>,
    sample: DFF<Bits<17>>,
    ends: Signal<Local, Bit>,
    sampled: Signal<Local, Bit>,
    /// Whether the high part of `remaining` is 0 (the interval ends within one weight),
    /// registered: `in_ready` waits on no reduction of `remaining`.
    near: DFF<Bit>,
    /// The high part is 1: `near` after a borrow.
    near_after_borrow: Signal<Local, Bit>,
    /// `near` for a fresh interval.
    interval_near: Constant<Bit>,
    /// An interval end is in the event pipeline or being classified, registered: the next end
    /// waits for it.
    blocked: DFF<Bit>,
    // The accepted event, registered with its pc's bucket (hashed from the input): the RAM read
    // address is a register, not the end of the hash.
    a_valid: DFF<Bit>,
    a_bucket: DFF<Bits<LB>>,
    a_weight: DFF<Bits<WEIGHT_BITS>>,
    a_ends: DFF<Bit>,
    a_sampled: DFF<Bit>,
    /// The event whose count is being read, registered.
    h_valid: DFF<Bit>,
    h_weight: DFF<Bits<WEIGHT_BITS>>,
    h_ends: DFF<Bit>,
    h_sampled: DFF<Bit>,
    /// The bucket of each stage's event as a number: every pc hits exactly one bucket, so two
    /// events share one when these are equal (no OR over B one-hot pairs).
    h_bucket: DFF<Bits<LB>>,
    /// The hashed event's accumulator as read from its bank (the read was issued in the read
    /// stage), and whether its bucket is the one the event ahead of it (in the select stage)
    /// updates this clock, the one in write-back writes this clock, or the one written last
    /// clock (the RAM read returned the data from before that write).
    h_cur: Signal<Local, Bits<C>>,
    h_same: Signal<Local, Bit>,
    h_same_w: Signal<Local, Bit>,
    h_same_x: Signal<Local, Bit>,
    /// The count written back last clock, for the forward above.
    x_write: DFF<Bit>,
    x_bucket: DFF<Bits<LB>>,
    x_sum: DFF<Bits<C>>,
    /// The selected event, registered: its bucket's count as the accumulators held it, and
    /// `s_fwd` when the event ahead updated that bucket since (then `last_sum` is the count).
    s_valid: DFF<Bit>,
    s_weight: DFF<Bits<WEIGHT_BITS>>,
    s_ends: DFF<Bit>,
    s_sampled: DFF<Bit>,
    s_bucket: DFF<Bits<LB>>,
    s_cur: DFF<Bits<C>>,
    s_fwd: DFF<Bit>,
    last_sum: DFF<Bits<C>>,
    /// The accumulated event, registered: the write-back stage stores `last_sum` in its bucket.
    w_valid: DFF<Bit>,
    w_ends: DFF<Bit>,
    w_sampled: DFF<Bit>,
    w_bucket: DFF<Bits<LB>>,
    /// Whether an accumulator can reach its maximum within an interval at all.
    saturates: Constant<Bit>,
    cur: Signal<Local, Bits<C>>,
    /// The count plus the weight with its carry out (DW > C bits), and C as a shift.
    wide: Signal<Local, Bits<DW>>,
    count_shift: Constant<Bits<8>>,
    sum: Signal<Local, Bits<C>>,
    // Classification.
    state: DFF<PhaseState>,
    busy: DFF<Bit>,
    b: DFF<Bits<LB>>,
    p: DFF<Bits<LP>>,
    step: DFF<Bits<5>>,
    /// `b` is the last bucket, `step` is 0, `step` is the last divider step: registered beside
    /// their counters, so the state machine's transitions wait on no comparator.
    b_last: DFF<Bit>,
    step_first: DFF<Bit>,
    step_last: DFF<Bit>,
    total: DFF<Bits<DW>>,
    rem: DFF<Bits<DW>>,
    quo: DFF<Bits<Q>>,
    /// The snapshot's bucket `b`, read from its bank (the read address is `b` as it will be next
    /// clock), and the divider taking it (its word is cleared: the bank is clean when it is
    /// live again).
    snap_rd: Signal<Local, Bits<C>>,
    snap_clear: Signal<Local, Bit>,
    rem2: Signal<Local, Bits<DW>>,
    /// 2·rem − (Σ + 1), wrapping: Σ + 1 < 2^(DW−1) and rem < Σ + 1, so its top bit is the
    /// borrow (one carry chain decides the quotient bit and gives the new remainder).
    rem_diff: Signal<Local, Bits<DW>>,
    top_shift: Constant<Bits<8>>,
    quo2: Signal<Local, Bits<Q>>,
    vram: RAM<Bits<Q>, LB>,
    sig: RAM<Bits<Q>, SA>,
    issuing: DFF<Bit>,
    rd_valid: DFF<Bit>,
    rd_first: DFF<Bit>,
    rd_last: DFF<Bit>,
    rd_p: DFF<Bits<LP>>,
    partial: DFF<Bits<D>>,
    diff: Signal<Local, Bits<Q>>,
    /// The absolute difference of one bucket, registered with its tags: the sum and the
    /// comparison with the best so far run a clock after the RAM data arrive.
    ad: DFF<Bits<Q>>,
    ad_valid: DFF<Bit>,
    ad_first: DFF<Bit>,
    ad_last: DFF<Bit>,
    ad_p: DFF<Bits<LP>>,
    dsum: Signal<Local, Bits<D>>,
    rd_valid_entry: Signal<Local, Bit>,
    /// An entry's whole distance is in `partial` the clock after its last bucket; the comparison
    /// with the best so far runs then, so the sum and the comparison are separate carry chains.
    cmp_valid: DFF<Bit>,
    cmp_entry: DFF<Bit>,
    cmp_p: DFF<Bits<LP>>,
    best_d: DFF<Bits<D>>,
    best_p: DFF<Bits<LP>>,
    found: DFF<Bit>,
    hit_now: Signal<Local, Bit>,
    /// A new signature joins the phase of its candidate (`best_p`): the distance is beyond the
    /// threshold but within `merge_threshold` and the candidate has an id (`merges` is constant
    /// false when merging is off, so the logic folds away).
    merges: Constant<Bit>,
    merge_threshold: Constant<Bits<D>>,
    merge_now: Signal<Local, Bit>,
    joined: DFF<Bit>,
    /// The candidate's phase id and whether it has one, selected at the decision; the id is
    /// registered then, before the new signature's entry (maybe the candidate) is touched.
    grp_hit: [Signal<Local, Bit>; P],
    grp_masked_id: [Signal<Local, Bits<PHASE_ID_BITS>>; P],
    grp_id_now: Signal<Local, Bits<PHASE_ID_BITS>>,
    grp_at_min_now: Signal<Local, Bit>,
    grp_id: DFF<Bits<PHASE_ID_BITS>>,
    valid: [DFF<Bit>; P],
    ids: [DFF<Bits<PHASE_ID_BITS>>; P],
    ages: [DFF<Bits<LP>>; P],
    /// Intervals each entry took since it took its signature, saturating at `min_count`: the
    /// entry has a phase id once it reaches `min_count`.
    counts: [DFF<Bits<COUNT_BITS>>; P],
    min_count: Constant<Bits<COUNT_BITS>>,
    /// The last phase id before ids wrap, and the transition phase's id.
    last_id: Constant<Bits<PHASE_ID_BITS>>,
    transition_id: Constant<Bits<PHASE_ID_BITS>>,
    min_is_one: Constant<Bit>,
    /// min_count − 1: an entry at it reaches min_count with this interval (a compare with a
    /// constant, no increment).
    min_less_one: Constant<Bits<COUNT_BITS>>,
    masked_count: [Signal<Local, Bits<COUNT_BITS>>; P],
    sel_count_now: Signal<Local, Bits<COUNT_BITS>>,
    /// Per entry: this interval would bring its count to `min_count` (count + 1 = min_count), or
    /// it is there already; and the same for the selected entry.
    next_min: [Signal<Local, Bit>; P],
    at_min: [Signal<Local, Bit>; P],
    sel_next_min_now: Signal<Local, Bit>,
    sel_at_min_now: Signal<Local, Bit>,
    /// Registered in the clock the entry is selected: this interval gives the entry its id
    /// (`promote`), the entry has an id after this interval (`reached`).
    promote: DFF<Bit>,
    reached: DFF<Bit>,
    /// The selected entry's count before (0 for a new signature) and after this interval, and
    /// the id after `next_id`.
    old_count: Signal<Local, Bits<COUNT_BITS>>,
    new_count: Signal<Local, Bits<COUNT_BITS>>,
    id_after: Signal<Local, Bits<PHASE_ID_BITS>>,
    fill: DFF<Bits<8>>,
    next_id: DFF<Bits<PHASE_ID_BITS>>,
    sel: DFF<Bits<LP>>,
    sel_age: DFF<Bits<LP>>,
    /// The selected entry's phase id and interval count, registered a clock before they are used.
    sel_id: DFF<Bits<PHASE_ID_BITS>>,
    sel_count: DFF<Bits<COUNT_BITS>>,
    /// AND-OR selects over the entries (one entry matches in each): the least recently used
    /// entry, and the age and phase id of the selected one.
    lru: Signal<Local, Bits<LP>>,
    masked_lru: [Signal<Local, Bits<LP>>; P],
    sel_hit: [Signal<Local, Bit>; P],
    masked_age: [Signal<Local, Bits<LP>>; P],
    masked_id: [Signal<Local, Bits<PHASE_ID_BITS>>; P],
    sel_age_now: Signal<Local, Bits<LP>>,
    sel_id_now: Signal<Local, Bits<PHASE_ID_BITS>>,
    hit: DFF<Bit>,
    phase: DFF<Bits<PHASE_ID_BITS>>,
    wr_valid: DFF<Bit>,
    wr_b: DFF<Bits<LB>>,
    /// The centre update in two clocks: |v − s| and the sign from the RAMs' outputs to
    /// registers, then one adder (s − ⌊d / 2^k⌋ − 1 is s + ¬⌊d / 2^k⌋) to the registered
    /// bucket that is written next.
    cd_valid: DFF<Bit>,
    cd_b: DFF<Bits<LB>>,
    cd_sv: DFF<Bits<Q>>,
    cd_vv: DFF<Bits<Q>>,
    cd_delta: DFF<Bits<Q>>,
    cd_down: DFF<Bit>,
    st_valid: DFF<Bit>,
    st_b: DFF<Bits<LB>>,
    st_data: DFF<Bits<Q>>,
    sv: Signal<Local, Bits<Q>>,
    vv: Signal<Local, Bits<Q>>,
    delta: Signal<Local, Bits<Q>>,
    centre_step: Signal<Local, Bits<Q>>,
    stepped: Signal<Local, Bits<Q>>,
    // Predictor.
    markov: RAM<Bits<MARKOV_WORD>, LM>,
    clear_addr: DFF<Bits<LM>>,
    mk_valid: DFF<Bit>,
    mk_phase: DFF<Bits<PHASE_ID_BITS>>,
    mk_run: DFF<Bits<RUN_BITS>>,
    mk_index: Signal<Local, Bits<16>>,
    word: Signal<Local, Bits<MARKOV_WORD>>,
    interval_no: DFF<Bits<32>>,
    o_valid: DFF<Bit>,
    o_phase: DFF<Bits<PHASE_ID_BITS>>,
    o_distance: DFF<Bits<D>>,
    o_predicted: DFF<Bits<PHASE_ID_BITS>>,
    o_interval: DFF<Bits<32>>,
}

impl<
        const B: usize,
        const LB: usize,
        const C: usize,
        const Q: usize,
        const P: usize,
        const LP: usize,
        const SA: usize,
        const D: usize,
        const DW: usize,
        const LM: usize,
    > PhaseClassifier<B, LB, C, Q, P, LP, SA, D, DW, LM>
{
    /// The classifier of `cfg`, whose shape must be this one's.
    pub fn new(cfg: &PhaseConfig) -> Result<Self, String> {
        let shape = (
            cfg.buckets,
            cfg.bucket_bits() as usize,
            cfg.counter_bits as usize,
            cfg.q_bits as usize,
            cfg.entries,
            cfg.entry_bits() as usize,
            cfg.markov_bits() as usize,
        );
        if shape != (B, LB, C, Q, P, LP, LM)
            || SA != LP + LB
            || D != Q + LB
            || DW != C + LB + 1
            || C < WEIGHT_BITS
            || LB > LM
        {
            return Err(format!(
                "phase classifier RTL shape does not match {}",
                cfg.summary()
            ));
        }
        let masks: Vec<(u64, u64)> = cfg.bucket_masks().into_iter().map(|m| (m, 0)).collect();
        Ok(PhaseClassifier {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            in_pc: Default::default(),
            in_weight: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_interval: Default::default(),
            out_phase: Default::default(),
            out_distance: Default::default(),
            out_predicted: Default::default(),
            interval: c(cfg.interval),
            weight_shift: c(WEIGHT_BITS as u64),
            sample_last: c(cfg.sample_every - 1),
            threshold: c(cfg.threshold),
            moving_average: Constant::new(cfg.centre == super::CentreUpdate::MovingAverage),
            joins_nearest: Constant::new(cfg.when_full == super::WhenFull::JoinNearest),
            shift: c(cfg.centre_shift as u64),
            round: c((1u64 << cfg.centre_shift) - 1),
            counter_max: c(cfg.counter_max()),
            markov_shift: c(cfg.markov_bits().div_ceil(2) as u64),
            entry_ids: std::array::from_fn(|i| c(i as u64)),
            last_bucket: c(B as u64 - 1),
            last_entry: c(P as u64 - 1),
            entry_count: c(P as u64),
            last_markov: c((1u64 << LM) - 1),
            q_steps: c(Q as u64),
            no_distance: c(cfg.no_distance()),
            run_max: c((1u64 << RUN_BITS) - 1),
            lb_shift: c(LB as u64),
            valid_flag: c(1u64 << (MARKOV_WORD - 1)),
            confident_flag: c(1u64 << (MARKOV_WORD - 2)),
            held: Default::default(),
            confident: Default::default(),
            learned: Default::default(),
            held_phase: Default::default(),
            held_run: Default::default(),
            word_phase: Default::default(),
            word_run: Default::default(),
            tag_phase_shift: c((RUN_BITS + PHASE_ID_BITS) as u64),
            tag_run_shift: c(PHASE_ID_BITS as u64),
            go: Default::default(),
            hash: ParityHash::new(&masks),
            acc0: Default::default(),
            acc1: Default::default(),
            bank: Default::default(),
            a_bank: Default::default(),
            h_bank: Default::default(),
            s_bank: Default::default(),
            w_bank: Default::default(),
            c_bank: Default::default(),
            remaining: Default::default(),
            sample: Default::default(),
            ends: Default::default(),
            sampled: Default::default(),
            near: Default::default(),
            near_after_borrow: Default::default(),
            interval_near: Constant::new(cfg.interval >> WEIGHT_BITS == 0),
            blocked: Default::default(),
            h_bucket: Default::default(),
            s_bucket: Default::default(),
            w_bucket: Default::default(),
            rem_high: Default::default(),
            rem_high_dec: Default::default(),
            rem_low: Default::default(),
            borrow: Default::default(),
            a_valid: Default::default(),
            a_bucket: Default::default(),
            a_weight: Default::default(),
            a_ends: Default::default(),
            a_sampled: Default::default(),
            h_valid: Default::default(),
            h_weight: Default::default(),
            h_ends: Default::default(),
            h_sampled: Default::default(),
            h_cur: Default::default(),
            h_same: Default::default(),
            h_same_w: Default::default(),
            h_same_x: Default::default(),
            x_write: Default::default(),
            x_bucket: Default::default(),
            x_sum: Default::default(),
            s_valid: Default::default(),
            s_weight: Default::default(),
            s_ends: Default::default(),
            s_sampled: Default::default(),
            s_cur: Default::default(),
            s_fwd: Default::default(),
            last_sum: Default::default(),
            w_valid: Default::default(),
            w_ends: Default::default(),
            w_sampled: Default::default(),
            // An interval's weights sum to at most I − 1 plus one maximal weight.
            saturates: Constant::new(
                cfg.counter_max() < cfg.interval - 1 + PhaseConfig::weight_max(),
            ),
            cur: Default::default(),
            wide: Default::default(),
            count_shift: c(C as u64),
            sum: Default::default(),
            state: Default::default(),
            busy: Default::default(),
            b: Default::default(),
            p: Default::default(),
            step: Default::default(),
            b_last: Default::default(),
            step_first: Default::default(),
            step_last: Default::default(),
            total: Default::default(),
            rem: Default::default(),
            quo: Default::default(),
            snap_rd: Default::default(),
            snap_clear: Default::default(),
            rem2: Default::default(),
            rem_diff: Default::default(),
            top_shift: c(DW as u64 - 1),
            quo2: Default::default(),
            vram: Default::default(),
            sig: Default::default(),
            issuing: Default::default(),
            rd_valid: Default::default(),
            rd_first: Default::default(),
            rd_last: Default::default(),
            rd_p: Default::default(),
            partial: Default::default(),
            diff: Default::default(),
            ad: Default::default(),
            ad_valid: Default::default(),
            ad_first: Default::default(),
            ad_last: Default::default(),
            ad_p: Default::default(),
            dsum: Default::default(),
            rd_valid_entry: Default::default(),
            cmp_valid: Default::default(),
            cmp_entry: Default::default(),
            cmp_p: Default::default(),
            best_d: Default::default(),
            best_p: Default::default(),
            found: Default::default(),
            hit_now: Default::default(),
            merges: Constant::new(cfg.merges()),
            merge_threshold: c(cfg.merge_threshold),
            merge_now: Default::default(),
            joined: Default::default(),
            grp_hit: std::array::from_fn(|_| Default::default()),
            grp_masked_id: std::array::from_fn(|_| Default::default()),
            grp_id_now: Default::default(),
            grp_at_min_now: Default::default(),
            grp_id: Default::default(),
            valid: std::array::from_fn(|_| Default::default()),
            ids: std::array::from_fn(|_| Default::default()),
            ages: std::array::from_fn(|_| Default::default()),
            counts: std::array::from_fn(|_| Default::default()),
            min_count: c(cfg.min_count as u64),
            last_id: c(cfg.last_phase_id() as u64),
            transition_id: c(TRANSITION_ID as u64),
            min_is_one: Constant::new(cfg.min_count == 1),
            min_less_one: c(cfg.min_count as u64 - 1),
            masked_count: std::array::from_fn(|_| Default::default()),
            sel_count_now: Default::default(),
            next_min: std::array::from_fn(|_| Default::default()),
            at_min: std::array::from_fn(|_| Default::default()),
            sel_next_min_now: Default::default(),
            sel_at_min_now: Default::default(),
            reached: Default::default(),
            old_count: Default::default(),
            new_count: Default::default(),
            promote: Default::default(),
            id_after: Default::default(),
            fill: Default::default(),
            next_id: Default::default(),
            sel: Default::default(),
            sel_age: Default::default(),
            sel_id: Default::default(),
            sel_count: Default::default(),
            lru: Default::default(),
            masked_lru: std::array::from_fn(|_| Default::default()),
            sel_hit: std::array::from_fn(|_| Default::default()),
            masked_age: std::array::from_fn(|_| Default::default()),
            masked_id: std::array::from_fn(|_| Default::default()),
            sel_age_now: Default::default(),
            sel_id_now: Default::default(),
            hit: Default::default(),
            phase: Default::default(),
            wr_valid: Default::default(),
            wr_b: Default::default(),
            cd_valid: Default::default(),
            cd_b: Default::default(),
            cd_sv: Default::default(),
            cd_vv: Default::default(),
            cd_delta: Default::default(),
            cd_down: Default::default(),
            st_valid: Default::default(),
            st_b: Default::default(),
            st_data: Default::default(),
            sv: Default::default(),
            vv: Default::default(),
            delta: Default::default(),
            centre_step: Default::default(),
            stepped: Default::default(),
            markov: Default::default(),
            clear_addr: Default::default(),
            mk_valid: Default::default(),
            mk_phase: Default::default(),
            mk_run: Default::default(),
            mk_index: Default::default(),
            word: Default::default(),
            interval_no: Default::default(),
            o_valid: Default::default(),
            o_phase: Default::default(),
            o_distance: Default::default(),
            o_predicted: Default::default(),
            o_interval: Default::default(),
        })
    }
}

impl<
        const B: usize,
        const LB: usize,
        const C: usize,
        const Q: usize,
        const P: usize,
        const LP: usize,
        const SA: usize,
        const D: usize,
        const DW: usize,
        const LM: usize,
    > Logic for PhaseClassifier<B, LB, C, Q, P, LP, SA, D, DW, LM>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            remaining,
            near,
            blocked,
            h_bucket,
            s_bucket,
            w_bucket,
            bank,
            a_bank,
            h_bank,
            s_bank,
            w_bank,
            c_bank,
            x_write,
            x_bucket,
            x_sum,
            a_valid,
            a_bucket,
            a_weight,
            a_ends,
            a_sampled,
            h_valid,
            h_weight,
            h_ends,
            h_sampled,
            s_valid,
            s_weight,
            s_ends,
            s_sampled,
            s_cur,
            s_fwd,
            last_sum,
            w_valid,
            w_ends,
            w_sampled,
            sample,
            state,
            busy,
            b,
            p,
            step,
            b_last,
            step_first,
            step_last,
            total,
            rem,
            quo,
            issuing,
            rd_valid,
            rd_first,
            rd_last,
            rd_p,
            ad,
            ad_valid,
            ad_first,
            ad_last,
            ad_p,
            partial,
            cmp_valid,
            cmp_entry,
            cmp_p,
            best_d,
            best_p,
            found,
            fill,
            next_id,
            sel,
            sel_age,
            sel_id,
            sel_count,
            promote,
            reached,
            hit,
            joined,
            grp_id,
            phase,
            wr_valid,
            wr_b,
            cd_valid,
            cd_b,
            cd_sv,
            cd_vv,
            cd_delta,
            cd_down,
            st_valid,
            st_b,
            st_data,
            clear_addr,
            mk_valid,
            mk_phase,
            mk_run,
            interval_no,
            held,
            o_valid,
            o_phase,
            o_distance,
            o_predicted,
            o_interval
        );
        for i in 0..P {
            self.valid[i].clock.next = self.clock.val();
            self.valid[i].d.next = self.valid[i].q.val();
            self.ids[i].clock.next = self.clock.val();
            self.ids[i].d.next = self.ids[i].q.val();
            self.ages[i].clock.next = self.clock.val();
            self.ages[i].d.next = self.ages[i].q.val();
            self.counts[i].clock.next = self.clock.val();
            self.counts[i].d.next = self.counts[i].q.val();
        }
        self.acc0.read_clock.next = self.clock.val();
        self.acc0.write_clock.next = self.clock.val();
        self.acc1.read_clock.next = self.clock.val();
        self.acc1.write_clock.next = self.clock.val();
        self.vram.read_clock.next = self.clock.val();
        self.vram.write_clock.next = self.clock.val();
        self.sig.read_clock.next = self.clock.val();
        self.sig.write_clock.next = self.clock.val();
        self.markov.read_clock.next = self.clock.val();
        self.markov.write_clock.next = self.clock.val();
        self.vram.write_enable.next = false;
        self.sig.write_enable.next = false;
        self.markov.write_enable.next = false;
        self.vram.write_address.next = self.b.q.val();
        self.vram.read_address.next = self.b.q.val();
        self.sig.read_address.next = (bit_cast::<SA, LP>(self.p.q.val()) << self.lb_shift.val())
            | bit_cast::<SA, LB>(self.b.q.val());
        self.sig.write_address.next = (bit_cast::<SA, LP>(self.sel.q.val()) << self.lb_shift.val())
            | bit_cast::<SA, LB>(self.st_b.q.val());
        self.markov.write_address.next = self.clear_addr.q.val();
        self.markov.write_data.next = 0.into();
        self.o_valid.d.next = self.o_valid.q.val() & !self.out_ready.val();
        self.snap_clear.next = false;
        self.out_valid.next = self.o_valid.q.val();
        self.out_phase.next = self.o_phase.q.val();
        self.out_distance.next = self.o_distance.q.val();
        self.out_predicted.next = self.o_predicted.q.val();
        self.out_interval.next = self.o_interval.q.val();

        // ---- Event path ----
        // Accept: the interval's end is decided here, from the weight and `remaining`; the
        // accumulate stage one clock later works from the registered event.
        self.rem_high.next =
            bit_cast::<{ 32 - WEIGHT_BITS }, 32>(self.remaining.q.val() >> self.weight_shift.val());
        self.rem_high_dec.next = self.rem_high.val() - 1;
        self.near_after_borrow.next = self.rem_high.val() == 1;
        self.rem_low.next = bit_cast::<{ WEIGHT_BITS + 1 }, WEIGHT_BITS>(
            bit_cast::<WEIGHT_BITS, 32>(self.remaining.q.val()),
        ) - bit_cast::<{ WEIGHT_BITS + 1 }, WEIGHT_BITS>(self.in_weight.val());
        self.borrow.next = (self.rem_low.val() >> self.weight_shift.val()).any();
        self.in_ready.next =
            (self.state.q.val() != PhaseState::Clear) & !(self.blocked.q.val() & self.near.q.val());
        self.go.next = self.in_valid.val() & self.in_ready.val();
        self.sampled.next = self.sample.q.val() == self.sample_last.val();
        // weight ≥ remaining: the high part is 0 and the low part does not exceed the weight.
        self.ends.next = self.near.q.val()
            & (self.borrow.val()
                | (bit_cast::<WEIGHT_BITS, { WEIGHT_BITS + 1 }>(self.rem_low.val()) == 0));
        self.a_valid.d.next = self.go.val();
        self.hash.a.next = self.in_pc.val();
        self.hash.b.next = 0.into();
        self.a_bucket.d.next = self.hash.index.val();
        self.a_weight.d.next = self.in_weight.val();
        self.a_ends.d.next = self.ends.val();
        self.a_sampled.d.next = self.sampled.val();
        self.a_bank.d.next = self.bank.q.val();
        if self.go.val() & self.ends.val() {
            self.bank.d.next = !self.bank.q.val();
        }
        if self.go.val() {
            if self.sampled.val() {
                self.sample.d.next = 0.into();
            } else {
                self.sample.d.next = self.sample.q.val() + 1;
            }
            if self.ends.val() {
                self.remaining.d.next = self.interval.val();
                self.near.d.next = self.interval_near.val();
            } else {
                self.remaining.d.next = (bit_cast::<32, { 32 - WEIGHT_BITS }>(self.rem_high.val())
                    << self.weight_shift.val())
                    | bit_cast::<32, WEIGHT_BITS>(bit_cast::<WEIGHT_BITS, { WEIGHT_BITS + 1 }>(
                        self.rem_low.val(),
                    ));
                if self.borrow.val() {
                    self.near.d.next = self.near_after_borrow.val();
                    self.remaining.d.next =
                        (bit_cast::<32, { 32 - WEIGHT_BITS }>(self.rem_high_dec.val())
                            << self.weight_shift.val())
                            | bit_cast::<32, WEIGHT_BITS>(bit_cast::<
                                WEIGHT_BITS,
                                { WEIGHT_BITS + 1 },
                            >(
                                self.rem_low.val()
                            ));
                }
            }
        }
        // Read: the bucket's count is read from the event's bank (the address is `a_bucket`).
        self.h_valid.d.next = self.a_valid.q.val();
        self.h_weight.d.next = self.a_weight.q.val();
        self.h_ends.d.next = self.a_ends.q.val();
        self.h_sampled.d.next = self.a_sampled.q.val();
        self.h_bank.d.next = self.a_bank.q.val();
        self.s_bank.d.next = self.h_bank.q.val();
        self.w_bank.d.next = self.s_bank.q.val();
        // Select: the bucket's count as its bank returned it, registered. Three events ahead
        // had not written their buckets when it was read: the one written last clock (`x_sum`),
        // the one in the write-back stage (`last_sum` now; taken here if it is this bucket) and
        // the one in the accumulate stage (its count is known only next clock: `s_fwd` makes the
        // accumulate stage take it). If one in the pipeline ends the interval, this event is in
        // the other bank, which is clean: the count is 0 (an ending event that wrote last clock
        // is not forwarded).
        self.h_cur.next = self.acc0.read_data.val();
        if self.h_bank.q.val() {
            self.h_cur.next = self.acc1.read_data.val();
        }
        self.h_bucket.d.next = self.a_bucket.q.val();
        self.s_bucket.d.next = self.h_bucket.q.val();
        self.w_bucket.d.next = self.s_bucket.q.val();
        self.x_bucket.d.next = self.w_bucket.q.val();
        self.x_sum.d.next = self.last_sum.q.val();
        self.x_write.d.next = self.w_valid.q.val() & self.w_sampled.q.val() & !self.w_ends.q.val();
        self.h_same.next = self.h_bucket.q.val() == self.s_bucket.q.val();
        self.h_same_w.next = self.h_bucket.q.val() == self.w_bucket.q.val();
        self.h_same_x.next = self.h_bucket.q.val() == self.x_bucket.q.val();
        self.s_valid.d.next = self.h_valid.q.val();
        self.s_weight.d.next = self.h_weight.q.val();
        self.s_ends.d.next = self.h_ends.q.val();
        self.s_sampled.d.next = self.h_sampled.q.val();
        self.s_cur.d.next = self.h_cur.val();
        if self.x_write.q.val() & self.h_same_x.val() {
            self.s_cur.d.next = self.x_sum.q.val();
        }
        if self.w_valid.q.val() & self.w_sampled.q.val() & self.h_same_w.val() {
            self.s_cur.d.next = self.last_sum.q.val();
        }
        if (self.s_valid.q.val() & self.s_ends.q.val())
            | (self.w_valid.q.val() & self.w_ends.q.val())
        {
            self.s_cur.d.next = 0.into();
        }
        self.s_fwd.d.next = self.s_valid.q.val()
            & self.s_sampled.q.val()
            & !self.s_ends.q.val()
            & self.h_same.val();
        // Accumulate: the count plus the weight, saturating (the loop: a select, a carry chain
        // and the saturation, which vanishes when no interval can reach the maximum).
        self.cur.next = self.s_cur.q.val();
        if self.s_fwd.q.val() {
            self.cur.next = self.last_sum.q.val();
        }
        self.wide.next =
            bit_cast::<DW, C>(self.cur.val()) + bit_cast::<DW, WEIGHT_BITS>(self.s_weight.q.val());
        self.sum.next = bit_cast::<C, DW>(self.wide.val());
        if self.saturates.val() & (self.wide.val() >> self.count_shift.val()).any() {
            self.sum.next = self.counter_max.val();
        }
        self.last_sum.d.next = self.sum.val();
        self.w_valid.d.next = self.s_valid.q.val();
        self.w_ends.d.next = self.s_ends.q.val();
        self.w_sampled.d.next = self.s_sampled.q.val();
        // Write-back: the count to its bucket in its bank; after an interval end that bank is
        // the snapshot (the next events use the other, clean bank).
        self.acc0.write_address.next = self.w_bucket.q.val();
        self.acc0.write_data.next = self.last_sum.q.val();
        self.acc0.write_enable.next =
            self.w_valid.q.val() & self.w_sampled.q.val() & !self.w_bank.q.val();
        self.acc1.write_address.next = self.w_bucket.q.val();
        self.acc1.write_data.next = self.last_sum.q.val();
        self.acc1.write_enable.next =
            self.w_valid.q.val() & self.w_sampled.q.val() & self.w_bank.q.val();
        if self.w_valid.q.val() & self.w_ends.q.val() {
            self.c_bank.d.next = self.w_bank.q.val();
        }
        self.snap_rd.next = self.acc0.read_data.val();
        if self.c_bank.q.val() {
            self.snap_rd.next = self.acc1.read_data.val();
        }

        // ---- Classification ----
        // Restoring division step: the remainder doubles, the divisor is Σ + 1.
        self.rem_diff.next = (self.rem.q.val() << 1) - self.total.q.val();
        self.rem2.next = self.rem.q.val() << 1;
        self.quo2.next = self.quo.q.val() << 1;
        if !(self.rem_diff.val() >> self.top_shift.val()).any() {
            self.rem2.next = self.rem_diff.val();
            self.quo2.next = (self.quo.q.val() << 1) + 1;
        }
        // Distance datapath (one clock after the reads were issued).
        self.diff.next = self.vram.read_data.val() - self.sig.read_data.val();
        if self.sig.read_data.val() > self.vram.read_data.val() {
            self.diff.next = self.sig.read_data.val() - self.vram.read_data.val();
        }
        self.ad.d.next = self.diff.val();
        self.ad_valid.d.next = self.rd_valid.q.val();
        self.ad_first.d.next = self.rd_first.q.val();
        self.ad_last.d.next = self.rd_last.q.val();
        self.ad_p.d.next = self.rd_p.q.val();
        self.dsum.next = self.partial.q.val() + bit_cast::<D, Q>(self.ad.q.val());
        if self.ad_first.q.val() {
            self.dsum.next = bit_cast::<D, Q>(self.ad.q.val());
        }
        self.rd_valid_entry.next = false;
        self.lru.next = 0.into();
        self.sel_age_now.next = 0.into();
        self.sel_id_now.next = 0.into();
        self.sel_count_now.next = 0.into();
        self.sel_next_min_now.next = false;
        self.sel_at_min_now.next = false;
        self.grp_id_now.next = 0.into();
        self.grp_at_min_now.next = false;
        for i in 0..P {
            self.rd_valid_entry.next = self.rd_valid_entry.val()
                | ((self.ad_p.q.val() == self.entry_ids[i].val()) & self.valid[i].q.val());
            self.masked_lru[i].next = 0.into();
            if self.ages[i].q.val() == self.last_entry.val() {
                self.masked_lru[i].next = self.entry_ids[i].val();
            }
            self.lru.next = self.lru.val() | self.masked_lru[i].val();
            self.sel_hit[i].next = self.sel.q.val() == self.entry_ids[i].val();
            self.masked_age[i].next = 0.into();
            self.masked_id[i].next = 0.into();
            self.masked_count[i].next = 0.into();
            if self.sel_hit[i].val() {
                self.masked_age[i].next = self.ages[i].q.val();
                self.masked_id[i].next = self.ids[i].q.val();
                self.masked_count[i].next = self.counts[i].q.val();
            }
            self.sel_age_now.next = self.sel_age_now.val() | self.masked_age[i].val();
            self.sel_id_now.next = self.sel_id_now.val() | self.masked_id[i].val();
            self.sel_count_now.next = self.sel_count_now.val() | self.masked_count[i].val();
            self.next_min[i].next = self.counts[i].q.val() == self.min_less_one.val();
            self.at_min[i].next = self.counts[i].q.val() == self.min_count.val();
            self.sel_next_min_now.next =
                self.sel_next_min_now.val() | (self.sel_hit[i].val() & self.next_min[i].val());
            self.sel_at_min_now.next =
                self.sel_at_min_now.val() | (self.sel_hit[i].val() & self.at_min[i].val());
            self.grp_hit[i].next = self.best_p.q.val() == self.entry_ids[i].val();
            self.grp_masked_id[i].next = 0.into();
            if self.grp_hit[i].val() {
                self.grp_masked_id[i].next = self.ids[i].q.val();
            }
            self.grp_id_now.next = self.grp_id_now.val() | self.grp_masked_id[i].val();
            self.grp_at_min_now.next =
                self.grp_at_min_now.val() | (self.grp_hit[i].val() & self.at_min[i].val());
        }
        // The entry's count: restarted by a new signature, saturating at min_count; reaching
        // min_count gives the entry the next id.
        self.old_count.next = 0.into();
        if self.hit.q.val() | self.joined.q.val() {
            self.old_count.next = self.sel_count.q.val();
        }
        self.new_count.next = self.old_count.val() + 1;
        if self.old_count.val() == self.min_count.val() {
            self.new_count.next = self.old_count.val();
        }
        self.id_after.next = self.next_id.q.val() + 1;
        if self.next_id.q.val() == self.last_id.val() {
            self.id_after.next = 0.into();
        }
        self.hit_now.next = self.found.q.val()
            & ((self.best_d.q.val() <= self.threshold.val())
                | (self.joins_nearest.val() & (self.fill.q.val() == self.entry_count.val())));
        self.merge_now.next = self.merges.val()
            & self.found.q.val()
            & !self.hit_now.val()
            & self.grp_at_min_now.val()
            & (self.best_d.q.val() <= self.merge_threshold.val());
        // Centre step: s + floor((v − s) / 2^k).
        self.sv.next = self.sig.read_data.val();
        self.vv.next = self.vram.read_data.val();
        self.delta.next = self.vv.val() - self.sv.val();
        if self.sv.val() > self.vv.val() {
            self.delta.next = self.sv.val() - self.vv.val();
        }
        self.cd_sv.d.next = self.sv.val();
        self.cd_vv.d.next = self.vv.val();
        self.cd_delta.d.next = self.delta.val();
        self.cd_down.d.next = self.sv.val() > self.vv.val();
        self.centre_step.next = self.cd_delta.q.val() >> self.shift.val();
        self.stepped.next = self.cd_sv.q.val() + self.centre_step.val();
        if self.cd_down.q.val() {
            self.stepped.next = self.cd_sv.q.val() - self.centre_step.val();
            if (self.cd_delta.q.val() & self.round.val()).any() {
                self.stepped.next = self.cd_sv.q.val() + !self.centre_step.val();
            }
        }
        if !self.hit.q.val() {
            self.stepped.next = self.cd_vv.q.val();
        }
        // RAM write data after the locals that feed them (rust-hdl's loop check reads in order).
        self.vram.write_data.next = self.quo2.val();
        self.sig.write_data.next = self.st_data.q.val();
        // Predictor index of the state (mk_phase, mk_run).
        self.mk_index.next = bit_cast::<16, PHASE_ID_BITS>(self.mk_phase.q.val())
            ^ (bit_cast::<16, RUN_BITS>(self.mk_run.q.val()) << self.markov_shift.val());
        self.markov.read_address.next = self.mk_index.val().get_bits::<LM>(0);
        self.word.next = self.markov.read_data.val();
        self.learned.next = self.valid_flag.val()
            | (bit_cast::<MARKOV_WORD, PHASE_ID_BITS>(self.mk_phase.q.val())
                << self.tag_phase_shift.val())
            | (bit_cast::<MARKOV_WORD, RUN_BITS>(self.mk_run.q.val()) << self.tag_run_shift.val())
            | bit_cast::<MARKOV_WORD, PHASE_ID_BITS>(self.phase.q.val());
        // The entry of the current state, as looked up at the previous interval end (only the
        // learning write since touched the table, and it came before that lookup).
        // Verilog cannot slice an expression: the shifted words are signals of their own.
        self.held_phase.next = self.held.q.val() >> self.tag_phase_shift.val();
        self.held_run.next = self.held.q.val() >> self.tag_run_shift.val();
        self.word_phase.next = self.word.val() >> self.tag_phase_shift.val();
        self.word_run.next = self.word.val() >> self.tag_run_shift.val();
        self.confident.next = (self.held.q.val() & self.valid_flag.val()).any()
            & (self.held_phase.val().get_bits::<PHASE_ID_BITS>(0) == self.mk_phase.q.val())
            & (self.held_run.val().get_bits::<RUN_BITS>(0) == self.mk_run.q.val())
            & (self.held.q.val().get_bits::<PHASE_ID_BITS>(0) == self.phase.q.val());

        match self.state.q.val() {
            PhaseState::Clear => {
                // Both accumulator banks clear too (B <= markov_entries).
                self.markov.write_enable.next = true;
                self.acc0.write_enable.next = true;
                self.acc0.write_address.next = self.clear_addr.q.val().get_bits::<LB>(0);
                self.acc0.write_data.next = 0.into();
                self.acc1.write_enable.next = true;
                self.acc1.write_address.next = self.clear_addr.q.val().get_bits::<LB>(0);
                self.acc1.write_data.next = 0.into();
                self.clear_addr.d.next = self.clear_addr.q.val() + 1;
                if self.clear_addr.q.val() == self.last_markov.val() {
                    self.state.d.next = PhaseState::Idle;
                }
            }
            PhaseState::Idle => {}
            PhaseState::Settle => {
                self.state.d.next = PhaseState::Sum;
            }
            PhaseState::Sum => {
                self.total.d.next = self.total.q.val() + bit_cast::<DW, C>(self.snap_rd.val());
                self.b.d.next = self.b.q.val() + 1;
                if self.b_last.q.val() {
                    self.state.d.next = PhaseState::Divide;
                    self.step.d.next = 0.into();
                }
            }
            PhaseState::Divide => {
                if self.step_first.q.val() {
                    self.snap_clear.next = true;
                    self.rem.d.next = bit_cast::<DW, C>(self.snap_rd.val());
                    self.quo.d.next = 0.into();
                    self.step.d.next = 1.into();
                } else {
                    self.rem.d.next = self.rem2.val();
                    self.quo.d.next = self.quo2.val();
                    self.step.d.next = self.step.q.val() + 1;
                    if self.step_last.q.val() {
                        self.vram.write_enable.next = true;
                        self.step.d.next = 0.into();
                        self.b.d.next = self.b.q.val() + 1;
                        if self.b_last.q.val() {
                            self.state.d.next = PhaseState::Distance;
                            self.p.d.next = 0.into();
                            self.issuing.d.next = true;
                            self.best_d.d.next = self.no_distance.val();
                            self.found.d.next = false;
                            self.rd_valid.d.next = false;
                        }
                    }
                }
            }
            PhaseState::Distance => {
                // Issue: signature (p, b) and vector bucket b; their data arrive next clock.
                self.rd_valid.d.next = self.issuing.q.val();
                self.rd_first.d.next = self.b.q.val() == 0;
                self.rd_last.d.next = self.b_last.q.val();
                self.rd_p.d.next = self.p.q.val();
                if self.issuing.q.val() {
                    self.b.d.next = self.b.q.val() + 1;
                    if self.b_last.q.val() {
                        self.p.d.next = self.p.q.val() + 1;
                        if self.p.q.val() == self.last_entry.val() {
                            self.issuing.d.next = false;
                        }
                    }
                }
                self.cmp_valid.d.next = self.ad_valid.q.val() & self.ad_last.q.val();
                self.cmp_entry.d.next = self.rd_valid_entry.val();
                self.cmp_p.d.next = self.ad_p.q.val();
                if self.ad_valid.q.val() {
                    self.partial.d.next = self.dsum.val();
                    if self.ad_last.q.val() & (self.ad_p.q.val() == self.last_entry.val()) {
                        self.rd_valid.d.next = false;
                        self.ad_valid.d.next = false;
                    }
                }
                if self.cmp_valid.q.val() {
                    if self.cmp_entry.q.val() & (self.partial.q.val() < self.best_d.q.val()) {
                        self.best_d.d.next = self.partial.q.val();
                        self.best_p.d.next = self.cmp_p.q.val();
                        self.found.d.next = true;
                    }
                    if self.cmp_p.q.val() == self.last_entry.val() {
                        self.state.d.next = PhaseState::Decide;
                        self.cmp_valid.d.next = false;
                    }
                }
            }
            PhaseState::Decide => {
                self.hit.d.next = self.hit_now.val();
                self.joined.d.next = self.merge_now.val();
                self.grp_id.d.next = self.grp_id_now.val();
                self.sel.d.next = self.best_p.q.val();
                if !self.hit_now.val() {
                    self.sel.d.next = self.lru.val();
                    if self.fill.q.val() < self.entry_count.val() {
                        self.sel.d.next = self.fill.q.val().get_bits::<LP>(0);
                    }
                }
                self.state.d.next = PhaseState::Fetch;
            }
            PhaseState::Fetch => {
                self.sel_age.d.next = self.sel_age_now.val();
                self.sel_id.d.next = self.sel_id_now.val();
                self.sel_count.d.next = self.sel_count_now.val();
                // A new signature's count goes from 0 to 1; a count never exceeds min_count.
                self.promote.d.next = self.min_is_one.val();
                self.reached.d.next = self.min_is_one.val();
                if self.hit.q.val() {
                    self.promote.d.next = self.sel_next_min_now.val();
                    self.reached.d.next = self.sel_next_min_now.val() | self.sel_at_min_now.val();
                }
                // A new signature in its candidate's phase has that id, its count at min_count.
                if self.joined.q.val() {
                    self.sel_id.d.next = self.grp_id.q.val();
                    self.sel_count.d.next = self.min_count.val();
                    self.promote.d.next = false;
                    self.reached.d.next = true;
                }
                for i in 0..P {
                    if self.sel_hit[i].val() & !self.hit.q.val() {
                        self.valid[i].d.next = true;
                    }
                }
                if !self.hit.q.val() & (self.fill.q.val() < self.entry_count.val()) {
                    self.fill.d.next = self.fill.q.val() + 1;
                }
                self.state.d.next = PhaseState::Touch;
            }
            PhaseState::Touch => {
                // The entry's count and id from flags registered at its selection: a select, an
                // increment and a compare in one clock would cost the classifier its clock.
                self.phase.d.next = self.transition_id.val();
                if self.reached.q.val() {
                    self.phase.d.next = self.sel_id.q.val();
                }
                if self.promote.q.val() {
                    self.phase.d.next = self.next_id.q.val();
                    self.next_id.d.next = self.id_after.val();
                }
                for i in 0..P {
                    if self.ages[i].q.val() < self.sel_age.q.val() {
                        self.ages[i].d.next = self.ages[i].q.val() + 1;
                    }
                    if self.sel_hit[i].val() {
                        self.ages[i].d.next = 0.into();
                        self.counts[i].d.next = self.new_count.val();
                        if self.joined.q.val() {
                            self.ids[i].d.next = self.sel_id.q.val();
                        }
                        if self.promote.q.val() {
                            self.ids[i].d.next = self.next_id.q.val();
                        }
                    }
                }
                self.b.d.next = 0.into();
                self.p.d.next = self.sel.q.val();
                self.issuing.d.next = true;
                self.wr_valid.d.next = false;
                self.cd_valid.d.next = false;
                self.st_valid.d.next = false;
                if self.hit.q.val() & !self.moving_average.val() {
                    self.state.d.next = PhaseState::Learn;
                } else {
                    self.state.d.next = PhaseState::Write;
                }
            }
            PhaseState::Write => {
                self.wr_valid.d.next = self.issuing.q.val();
                self.wr_b.d.next = self.b.q.val();
                if self.issuing.q.val() {
                    self.b.d.next = self.b.q.val() + 1;
                    if self.b_last.q.val() {
                        self.issuing.d.next = false;
                    }
                }
                self.cd_valid.d.next = self.wr_valid.q.val();
                self.cd_b.d.next = self.wr_b.q.val();
                self.st_valid.d.next = self.cd_valid.q.val();
                self.st_b.d.next = self.cd_b.q.val();
                self.st_data.d.next = self.stepped.val();
                if self.st_valid.q.val() {
                    self.sig.write_enable.next = true;
                    if self.st_b.q.val() == self.last_bucket.val() {
                        self.state.d.next = PhaseState::Learn;
                    }
                }
            }
            PhaseState::Learn => {
                // The previous state's entry learns the new phase; the state advances.
                if self.mk_valid.q.val() {
                    self.markov.write_enable.next = true;
                    self.markov.write_address.next = self.mk_index.val().get_bits::<LM>(0);
                    self.markov.write_data.next = self.learned.val();
                    if self.confident.val() {
                        self.markov.write_data.next =
                            self.learned.val() | self.confident_flag.val();
                    }
                }
                self.mk_run.d.next = 1.into();
                if self.mk_valid.q.val() & (self.mk_phase.q.val() == self.phase.q.val()) {
                    if self.mk_run.q.val() != self.run_max.val() {
                        self.mk_run.d.next = self.mk_run.q.val() + 1;
                    } else {
                        self.mk_run.d.next = self.mk_run.q.val();
                    }
                }
                self.mk_phase.d.next = self.phase.q.val();
                self.mk_valid.d.next = true;
                self.state.d.next = PhaseState::Lookup;
            }
            PhaseState::Lookup => {
                // The read address (the new state's index) is registered by the RAM now.
                self.state.d.next = PhaseState::Emit;
            }
            PhaseState::Emit => {
                // Waits while the record before is held and not taken this clock.
                if !self.o_valid.q.val() | self.out_ready.val() {
                    self.o_valid.d.next = true;
                    self.o_interval.d.next = self.interval_no.q.val();
                    self.o_phase.d.next = self.phase.q.val();
                    self.o_distance.d.next = self.best_d.q.val();
                    self.o_predicted.d.next = self.phase.q.val();
                    self.held.d.next = self.word.val();
                    if (self.word.val() & self.valid_flag.val()).any()
                        & (self.word.val() & self.confident_flag.val()).any()
                        & (self.word_phase.val().get_bits::<PHASE_ID_BITS>(0) == self.phase.q.val())
                        & (self.word_run.val().get_bits::<RUN_BITS>(0) == self.mk_run.q.val())
                    {
                        self.o_predicted.d.next = self.word.val().get_bits::<PHASE_ID_BITS>(0);
                    }
                    self.interval_no.d.next = self.interval_no.q.val() + 1;
                    self.busy.d.next = false;
                    self.state.d.next = PhaseState::Idle;
                }
            }
        }
        // An interval end starts the classification of the snapshot (never while busy: in_ready).
        // The sum starts at 1: it is the divisor Σ + 1 without an adder in the divider's loop.
        if self.w_valid.q.val() & self.w_ends.q.val() {
            self.busy.d.next = true;
            self.state.d.next = PhaseState::Settle;
            self.b.d.next = 0.into();
            self.total.d.next = 1.into();
        }

        // Read ports: the live bank (that of the event in the read stage) reads its bucket; the
        // other reads the bucket the sum or the divider takes next clock. The snapshot's last
        // write (the event that ends the interval) is a clock before the settling clock, whose
        // read is the sum's first.
        self.acc0.read_address.next = self.a_bucket.q.val();
        self.acc1.read_address.next = self.b.d.val();
        if self.a_bank.q.val() {
            self.acc0.read_address.next = self.b.d.val();
            self.acc1.read_address.next = self.a_bucket.q.val();
        }
        // The divider's clear of the bucket it took (its bank has no event write: the next
        // interval end, which would swap the banks back, waits for this classification).
        if self.snap_clear.val() {
            if self.c_bank.q.val() {
                self.acc1.write_enable.next = true;
                self.acc1.write_address.next = self.b.q.val();
                self.acc1.write_data.next = 0.into();
            } else {
                self.acc0.write_enable.next = true;
                self.acc0.write_address.next = self.b.q.val();
                self.acc0.write_data.next = 0.into();
            }
        }

        self.b_last.d.next = self.b.d.val() == self.last_bucket.val();
        self.step_first.d.next = self.step.d.val() == 0;
        self.step_last.d.next = self.step.d.val() == self.q_steps.val();
        self.blocked.d.next = self.busy.d.val()
            | (self.go.val() & self.ends.val())
            | (self.a_valid.q.val() & self.a_ends.q.val())
            | (self.h_valid.q.val() & self.h_ends.q.val())
            | (self.s_valid.q.val() & self.s_ends.q.val());

        if self.reset.val() {
            self.state.d.next = PhaseState::Clear;
            self.near.d.next = self.interval_near.val();
            self.blocked.d.next = false;
            self.bank.d.next = false;
            self.clear_addr.d.next = 0.into();
            self.busy.d.next = false;
            self.remaining.d.next = self.interval.val();
            self.a_valid.d.next = false;
            self.h_valid.d.next = false;
            self.s_valid.d.next = false;
            self.w_valid.d.next = false;
            self.sample.d.next = 0.into();
            self.fill.d.next = 0.into();
            self.next_id.d.next = 0.into();
            self.mk_valid.d.next = false;
            self.mk_run.d.next = 0.into();
            self.mk_phase.d.next = 0.into();
            self.interval_no.d.next = 0.into();
            self.o_valid.d.next = false;
            self.rd_valid.d.next = false;
            self.ad_valid.d.next = false;
            self.wr_valid.d.next = false;
            self.cd_valid.d.next = false;
            self.st_valid.d.next = false;
            self.issuing.d.next = false;
            for i in 0..P {
                self.valid[i].d.next = false;
                self.ages[i].d.next = self.entry_ids[i].val();
                self.counts[i].d.next = 0.into();
            }
        }
    }
}

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.to_bits())
}

/// The ports of a classifier of any shape, for testbenches and exports.
pub trait PhaseTop: Block + Send + 'static {
    fn drive(&mut self, reset: bool, valid: bool, pc: u64, weight: u64);
    /// Whether the consumer takes the record offered this clock.
    fn set_out_ready(&mut self, ready: bool);
    fn set_clock(&mut self, high: bool);
    fn ready(&self) -> bool;
    /// The output record if `out_valid`: (interval, phase, distance, predicted).
    fn record(&self) -> Option<(u64, u64, u64, u64)>;
}

impl<
        const B: usize,
        const LB: usize,
        const C: usize,
        const Q: usize,
        const P: usize,
        const LP: usize,
        const SA: usize,
        const D: usize,
        const DW: usize,
        const LM: usize,
    > PhaseTop for PhaseClassifier<B, LB, C, Q, P, LP, SA, D, DW, LM>
{
    fn drive(&mut self, reset: bool, valid: bool, pc: u64, weight: u64) {
        self.reset.next = reset;
        self.in_valid.next = valid;
        self.in_pc.next = pc.to_bits();
        self.in_weight.next = weight.min(PhaseConfig::weight_max()).to_bits();
    }
    fn set_out_ready(&mut self, ready: bool) {
        self.out_ready.next = ready;
    }
    fn set_clock(&mut self, high: bool) {
        self.clock.next = Clock { clk: high };
    }
    fn ready(&self) -> bool {
        self.in_ready.val()
    }
    fn record(&self) -> Option<(u64, u64, u64, u64)> {
        self.out_valid.val().then(|| {
            (
                self.out_interval.val().to_u64(),
                self.out_phase.val().to_u64(),
                self.out_distance.val().to_u64(),
                self.out_predicted.val().to_u64(),
            )
        })
    }
}

/// Something to do with the classifier of a configuration, whatever its shape.
pub trait ShapeVisitor {
    type Output;
    fn visit<T: PhaseTop>(self, uut: T) -> Self::Output;
}

macro_rules! shapes {
    ($cfg:expr, $v:expr; $( ($b:literal, $lb:literal, $c:literal, $q:literal, $p:literal, $lp:literal, $lm:literal) ),* ) => {{
        let cfg: &PhaseConfig = $cfg;
        let key = (cfg.buckets, cfg.counter_bits as usize, cfg.q_bits as usize, cfg.entries, cfg.markov_entries);
        match key {
            $( ($b, $c, $q, $p, m) if m == 1 << $lm => {
                let mut uut = PhaseClassifier::<$b, $lb, $c, $q, $p, $lp, { $lp + $lb }, { $q + $lb }, { $c + $lb + 1 }, $lm>::new(cfg)?;
                uut.connect_all();
                Ok($v.visit(uut))
            } )*
            _ => Err(format!(
                "no RTL shape for buckets = {}, counter_bits = {}, q_bits = {}, entries = {}, markov_entries = {} \
                 (the model runs any configuration; RTL shapes: {})",
                key.0, key.1, key.2, key.3, key.4, SHAPES
            )),
        }
    }};
}

/// The RTL shapes generated (buckets/counter_bits/q_bits/entries/markov_entries); every other
/// parameter is free.
pub const SHAPES: &str = "32/18/8/16/32 (configs/phase.toml), 32/18/8/8/32, 16/18/8/16/32, 32/18/6/16/32, 8/8/4/4/8 (tests)";

/// Calls `v` with the classifier of `cfg`; an error names the supported shapes.
pub fn with_shape<V: ShapeVisitor>(cfg: &PhaseConfig, v: V) -> Result<V::Output, String> {
    shapes!(cfg, v;
        (32, 5, 18, 8, 16, 4, 5),
        (32, 5, 18, 8, 8, 3, 5),
        (16, 4, 18, 8, 16, 4, 5),
        (32, 5, 18, 6, 16, 4, 5),
        (8, 3, 8, 4, 4, 2, 3))
}

struct VerilogOf;

impl ShapeVisitor for VerilogOf {
    type Output = String;
    fn visit<T: PhaseTop>(self, uut: T) -> String {
        generate_verilog(&uut)
    }
}

/// The Verilog of the classifier of `cfg` (top module `top`), deterministic.
pub fn verilog(cfg: &PhaseConfig) -> Result<String, String> {
    with_shape(cfg, VerilogOf)
}
