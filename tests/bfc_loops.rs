//! The hand-written kernel of loops/bfc_search.v (BFC's queue search, which `switchcraft synth
//! --loops` measures on each device) under Verilator against the golden model's search
//! (`first_set_from`, the rule `pick_new_queue` applies), every output on every cycle. A speed
//! bound measured on the kernel says something about BFC only if the kernel is BFC's search.

mod common;

use std::collections::VecDeque;
use switchcraft_core::rng::SplitMix64;
use switchcraft_model::bfc::first_set_from;

const QUEUES: u32 = 8;
const CYCLES: u64 = 40_000;

/// How often each case occurred, so a run that never reaches one fails.
#[derive(Default, Debug)]
struct Seen {
    found: u64,
    none_empty: u64,
    /// The queue found lies below the start: the search wrapped.
    wrapped: u64,
    /// The queue found was emptied by the departure of the same cycle.
    emptied_now: u64,
}

#[test]
fn search_loop_equals_the_model() {
    check("bfc_search_loop");
}

#[test]
fn thermometer_search_loop_equals_the_model() {
    check("bfc_search_loop_thermometer");
}

fn check(top: &str) {
    let (k, _, mut rtl) = common::verilated_kernel(top);
    let seed = common::seed();
    let mut rng = SplitMix64::new(seed);
    // The model's state for one egress port: the empty queues and the rotating start.
    let (mut empty, mut start) = ((1u128 << QUEUES) - 1, 0u32);
    let mut seen = Seen::default();
    let mut expected: VecDeque<([u64; 3], [u64; 4])> = VecDeque::new();
    let mut outputs = vec![0u64; 3];
    let mut drain = 50;
    for cycle in 0..CYCLES {
        if cycle % 500 == 0 {
            drain = rng.range(10, 90);
        }
        let a_valid = rng.chance(85);
        // A class of consecutive queues (as the class registers describe), now and then any
        // set of queues or none.
        let a_class = if rng.chance(90) {
            let first = rng.below(u64::from(QUEUES));
            let count = rng.range(1, u64::from(QUEUES) - first);
            ((1u64 << count) - 1) << first
        } else {
            rng.below(256)
        };
        let d_valid = rng.chance(drain);
        let d_q = rng.below(u64::from(QUEUES));
        // The model: the departure empties its queue, then the arrival takes one.
        if d_valid {
            empty |= 1 << d_q;
        }
        let cand = empty & u128::from(a_class);
        let (mut found, mut q) = (0, 0);
        if a_valid && cand != 0 {
            let pick = first_set_from(cand, start, QUEUES);
            seen.found += 1;
            seen.wrapped += u64::from(pick < start);
            seen.emptied_now += u64::from(d_valid && u64::from(pick) == d_q);
            empty &= !(1 << pick);
            start = if pick + 1 == QUEUES { 0 } else { pick + 1 };
            (found, q) = (1, pick);
        } else if a_valid {
            seen.none_empty += 1;
        }
        let inputs = [a_valid as u64, a_class, d_valid as u64, d_q];
        expected.push_back(([found, u64::from(q), u64::from(start)], inputs));
        rtl.step(&inputs, &mut outputs);
        if expected.len() > k.latency {
            let (want, event) = expected.pop_front().unwrap();
            assert_eq!(
                outputs, want,
                "{top}: cycle {cycle}: (found, q, start) differ from the model for the inputs \
                 sampled {} edges earlier (a_valid, a_class, d_valid, d_q: {event:?}) \
                 (SWITCHCRAFT_SEED={seed})",
                k.latency
            );
        }
    }
    println!("{top}: {seen:?}");
    // Every case, many times over (SWITCHCRAFT_SEED={seed}).
    assert!(seen.found > 10_000, "too few queues found: {seen:?}");
    assert!(seen.none_empty > 2_000, "too few full classes: {seen:?}");
    assert!(seen.wrapped > 2_000, "too few wrapped searches: {seen:?}");
    assert!(
        seen.emptied_now > 500,
        "too few same-cycle departures: {seen:?}"
    );
}
