//! Golden-model tests of TCD: each asserts a rule of the spec (../shared/spec/mechanisms.md §1)
//! or of the contract in docs/blocks/tcd.md, with the expected values worked out here.

use switchcraft_core::CycleModel;
use switchcraft_model::tcd::{
    reg, Branch, LowCheck, Mode, Tcd, TcdConfig, TcdIn, TcdOut, TcdSpeed, TcdWorkload, CE, CONG,
    ECT0, ERR_INDEX, ID_WORD, MARK_LATENCY, MODE_IB, NONCONG, NOT_ECT, OPT_LOW_CHECK_AT_T_BOUNDARY,
    OPT_MARK_TRANSITION, UE, UND,
};

/// The spec's flowchart trace (§7.1 T12) at 10 cycles per microsecond: max(Ton) = T = 34.4 us
/// = 344 cycles, K = K_low = 40 KB.
fn cfg() -> TcdConfig {
    TcdConfig {
        ports: 4,
        priorities: 2,
        queue_bits: 20,
        time_bits: 16,
        mode: Mode::Cee,
        max_ton: 344,
        t_period: 344,
        k: 40_000,
        k_low: 40_000,
        low_check: LowCheck::EveryPacket,
        mark_transition: false,
        prio_enable: 0x3,
        entry_speed: Vec::new(),
        more_speeds: Vec::new(),
    }
}

/// cfg() with a second speed class: a link 4 times faster (max(Ton) and T a quarter, spec
/// §1.7's max(Ton) falls with the rate) and K = 20 KB, for port 1 (both priorities) and for
/// priority 1 of port 3 (a VL with its own bandwidth share, §1.8).
fn two_speeds() -> TcdConfig {
    TcdConfig {
        entry_speed: vec![0, 0, 1, 1, 0, 0, 0, 1],
        more_speeds: vec![TcdSpeed {
            max_ton: 86,
            t_period: 86,
            k: 20_000,
            k_low: 10_000,
        }],
        ..cfg()
    }
}

#[test]
fn each_entry_is_judged_with_its_speed_classes_max_ton_and_k() {
    // Spec §1.4: max_Ton, T, K and K_low are configured per port-speed class (and per VL).
    let mut b = Bench::new(&two_speeds());
    assert_eq!((b.m.entry_speed(1, 0), b.m.entry_speed(3, 1)), (1, 1));
    // Never paused: plain threshold marking at each class's K.
    let t = b.now();
    assert_eq!(b.deq_at(t, 0, 0, 30_000, ECT0), (ECT0, NONCONG));
    assert_eq!(b.deq_at(t + 2, 1, 0, 30_000, ECT0), (CE, CONG));
    assert_eq!(b.deq_at(t + 4, 3, 0, 30_000, ECT0), (ECT0, NONCONG));
    assert_eq!(b.deq_at(t + 6, 3, 1, 30_000, ECT0), (CE, CONG));
    // Released at the same time: an ON period of 100 cycles is short for class 0 (344) and
    // not for class 1 (86), which is then past its T and judges the queue against its K.
    let t0 = pause_resume(&mut b, 0, 1, 60_000);
    let t1 = pause_resume(&mut b, 1, 1, 60_000);
    assert_eq!(b.deq_at(t0 + 100, 0, 1, 60_000, ECT0), (UE, UND));
    assert_eq!(b.deq_at(t1 + 100, 1, 1, 60_000, ECT0), (CE, CONG));
}

#[test]
fn speed_classes_and_entry_classes_are_registers() {
    let mut b = Bench::new(&two_speeds());
    assert_eq!(b.csr_read(reg::SPEEDS), 2);
    // The four windows show class speed_sel.
    assert_eq!(b.csr_read(reg::MAX_TON), 344);
    b.csr_write(reg::SPEED_SEL, 1);
    assert_eq!(
        [reg::MAX_TON, reg::T_PERIOD, reg::K, reg::K_LOW].map(|r| b.csr_read(r)),
        [86, 86, 20_000, 10_000]
    );
    b.csr_write(reg::K, 25_000);
    assert_eq!(b.csr_read(reg::K), 25_000);
    // A class the block does not have reads 0 and ignores writes.
    b.csr_write(reg::SPEED_SEL, 2);
    assert_eq!(b.csr_read(reg::K), 0);
    b.csr_write(reg::K, 1);
    b.csr_write(reg::SPEED_SEL, 0);
    assert_eq!(b.csr_read(reg::K), 40_000);
    // entry_speed is a window on entry entry_index {port, priority[2:0]}.
    b.csr_write(reg::ENTRY_INDEX, 3 << 3 | 1);
    assert_eq!(b.csr_read(reg::ENTRY_SPEED), 1);
    b.csr_write(reg::ENTRY_SPEED, 0);
    assert_eq!(
        (b.csr_read(reg::ENTRY_SPEED), b.m.entry_speed(3, 1)),
        (0, 0)
    );
    b.csr_write(reg::ENTRY_SPEED, 2);
    assert_eq!(
        b.m.entry_speed(3, 1),
        0,
        "a class without constants is not stored"
    );
    // Moved to class 1, the entry is judged with class 1's K, as written above.
    b.csr_write(reg::ENTRY_INDEX, 2 << 3);
    b.csr_write(reg::ENTRY_SPEED, 1);
    let t = b.now();
    assert_eq!(b.deq_at(t, 2, 0, 25_000, ECT0), (ECT0, NONCONG));
    assert_eq!(b.deq_at(t + 2, 2, 0, 25_001, ECT0), (CE, CONG));
    // An index that names no entry (priority 2 of 2) reads 0.
    b.csr_write(reg::ENTRY_INDEX, 2);
    assert_eq!(b.csr_read(reg::ENTRY_SPEED), 0);
}

/// Drives a model event by event; `now()` is the timestamp the next event gets.
struct Bench {
    m: Tcd,
}

impl Bench {
    fn new(cfg: &TcdConfig) -> Bench {
        Bench {
            m: Tcd::new(cfg).unwrap(),
        }
    }

    /// The timestamp of an event given to the next `step`.
    fn now(&self) -> u64 {
        self.m.now() + 1
    }

    /// Idles until the next event is stamped `t`.
    fn wait_until(&mut self, t: u64) {
        assert!(self.now() <= t, "time {t} is past (now {})", self.now());
        while self.now() < t {
            self.m.step(&TcdIn::default());
        }
    }

    /// Steps `i`, then one idle edge; returns the results of `i`: the outputs `MARK_LATENCY`
    /// edges after `i`'s, read ahead on a copy of the model, so that the next event can come
    /// on the next edge but one, whatever the latency.
    fn apply(&mut self, i: TcdIn) -> TcdOut {
        self.m.step(&i);
        let mut ahead = self.m.clone();
        let mut o = TcdOut::default();
        for _ in 0..MARK_LATENCY {
            o = ahead.step(&TcdIn::default());
        }
        self.m.step(&TcdIn::default());
        o
    }

    fn rx(&mut self, port: u64, prio: u64, quanta: u64, qlen: u64) {
        self.apply(rx(port, prio, quanta, qlen));
    }

    /// Dequeues a packet of (port, prio) at time `t`; returns (ECN out, new LAST_STATE).
    fn deq_at(&mut self, t: u64, port: u64, prio: u64, q: u64, ecn: u64) -> (u64, u64) {
        self.wait_until(t);
        let o = self.apply(deq(port, prio, q, ecn));
        assert_eq!(o.mark_valid, 1);
        assert_eq!((o.mark_port, o.mark_prio), (port, prio));
        (o.mark_ecn, o.mark_state)
    }

    fn csr_write(&mut self, index: u32, value: u64) {
        self.m.step(&csr_write(index, value));
    }

    /// Reads register `index` over the bus.
    fn csr_read(&mut self, index: u32) -> u64 {
        self.m
            .step(&TcdIn {
                csr_addr: u64::from(index),
                ..Default::default()
            })
            .csr_rdata
    }
}

fn rx(port: u64, prio: u64, quanta: u64, qlen: u64) -> TcdIn {
    TcdIn {
        rx_pfc_valid: 1,
        rx_pfc_port: port,
        rx_pfc_prio: prio,
        rx_pfc_quanta: quanta,
        rx_pfc_qlen: qlen,
        ..Default::default()
    }
}

fn credit(port: u64, vl: u64, ok: bool, qlen: u64) -> TcdIn {
    TcdIn {
        rx_credit_valid: 1,
        rx_credit_port: port,
        rx_credit_vl: vl,
        rx_credit_ok: u64::from(ok),
        rx_credit_qlen: qlen,
        ..Default::default()
    }
}

fn deq(port: u64, prio: u64, q: u64, ecn: u64) -> TcdIn {
    TcdIn {
        deq_valid: 1,
        deq_port: port,
        deq_prio: prio,
        deq_qlen: q,
        deq_ecn: ecn,
        ..Default::default()
    }
}

fn csr_write(index: u32, value: u64) -> TcdIn {
    TcdIn {
        csr_we: 1,
        csr_addr: u64::from(index),
        csr_wdata: value,
        ..Default::default()
    }
}

/// PAUSE then RESUME of (port, prio): the OFF period ends at the returned time.
fn pause_resume(b: &mut Bench, port: u64, prio: u64, q: u64) -> u64 {
    b.rx(port, prio, 0xFFFF, q);
    let t = b.now();
    b.rx(port, prio, 0, q);
    t
}

#[test]
fn a_port_never_paused_marks_like_a_lossy_queue() {
    let mut b = Bench::new(&cfg());
    let t = b.now();
    // D6 is strict: Q > K marks, Q == K does not.
    assert_eq!(b.deq_at(t, 1, 0, 40_001, ECT0), (CE, CONG));
    assert_eq!(b.deq_at(t + 2, 1, 0, 40_000, ECT0), (ECT0, NONCONG));
    // CE overwrites UE; a Not-ECT packet cannot carry a mark but the state still moves.
    assert_eq!(b.deq_at(t + 4, 1, 0, 50_000, UE), (CE, CONG));
    assert_eq!(b.deq_at(t + 6, 1, 0, 50_000, NOT_ECT), (NOT_ECT, CONG));
    assert_eq!(
        b.deq_at(t + 8, 1, 0, 0, CE),
        (CE, NONCONG),
        "CE is never removed"
    );
}

#[test]
fn an_on_period_shorter_than_max_ton_is_undetermined() {
    let mut b = Bench::new(&cfg());
    let t0 = pause_resume(&mut b, 2, 1, 1000);
    // Ton = 0 .. max_ton - 1: undetermined, UE whatever the queue.
    assert_eq!(b.deq_at(t0 + 2, 2, 1, 90_000, ECT0), (UE, UND));
    assert_eq!(b.deq_at(t0 + 100, 2, 1, 10, UE), (UE, UND));
    assert_eq!(
        b.deq_at(t0 + 200, 2, 1, 10, CE),
        (CE, UND),
        "UE never overwrites CE"
    );
    assert_eq!(b.deq_at(t0 + 342, 2, 1, 10, NOT_ECT), (NOT_ECT, UND));
    // Ton = max_ton: no longer ON-OFF. LAST_STATE is UND, T (= 344) expired since t0: a
    // T boundary with Q < K_low... every-packet D4 first: below K_low, non-congestion.
    assert_eq!(b.deq_at(t0 + 344, 2, 1, 10, ECT0), (ECT0, NONCONG));
    // The other priority of the port was never paused.
    assert_eq!(b.deq_at(t0 + 346, 2, 0, 50_000, ECT0), (CE, CONG));
}

#[test]
fn the_spec_flowchart_trace_t12() {
    // RESUME at 0 with Q = 40 KB; a packet at 10 us is UE/UND; at 34.5 us with Q = 50 KB the T
    // period has expired, the queue did not decrease and is above K: congestion, no mark; the
    // next packet with Q > K is CE.
    let mut b = Bench::new(&cfg());
    b.rx(0, 0, 0xFFFF, 40_000);
    let t0 = b.now();
    b.rx(0, 0, 0, 40_000);
    assert_eq!(b.deq_at(t0 + 100, 0, 0, 45_000, ECT0), (UE, UND));
    assert_eq!(b.deq_at(t0 + 345, 0, 0, 50_000, ECT0), (ECT0, CONG));
    assert_eq!(b.deq_at(t0 + 347, 0, 0, 50_000, ECT0), (CE, CONG));
}

#[test]
fn a_released_port_is_judged_once_per_t_period() {
    let mut b = Bench::new(&cfg());
    let t0 = pause_resume(&mut b, 1, 1, 60_000);
    assert_eq!(b.deq_at(t0 + 10, 1, 1, 60_000, ECT0), (UE, UND));
    // Released (Ton >= max_ton, T = 400 so the first boundary is at t0 + 400).
    b.csr_write(reg::T_PERIOD, 400);
    assert_eq!(
        b.deq_at(t0 + 350, 1, 1, 70_000, ECT0),
        (ECT0, UND),
        "inside T"
    );
    // Boundary: 55 KB < Q_rec = 60 KB, the queue decreased: stays undetermined, the timer and
    // Q_rec restart (t_T = t0 + 400, Q_rec = 55 KB).
    assert_eq!(b.deq_at(t0 + 400, 1, 1, 55_000, ECT0), (ECT0, UND));
    assert_eq!(
        b.deq_at(t0 + 798, 1, 1, 99_000, ECT0),
        (ECT0, UND),
        "inside T"
    );
    // Next boundary: 55 KB is not a decrease from 55 KB and above K: congestion, no mark.
    assert_eq!(b.deq_at(t0 + 800, 1, 1, 55_000, ECT0), (ECT0, CONG));
    assert_eq!(b.deq_at(t0 + 802, 1, 1, 55_000, ECT0), (CE, CONG));
}

#[test]
fn at_a_boundary_an_increase_up_to_k_is_still_undetermined() {
    let mut b = Bench::new(&cfg());
    b.csr_write(reg::K_LOW, 30_000);
    let t0 = pause_resume(&mut b, 0, 1, 35_000);
    assert_eq!(b.deq_at(t0 + 2, 0, 1, 35_000, ECT0), (UE, UND));
    // Q = K: not decreased, but not above K either ((Q >= Q_rec) && (Q > K), spec §1.3).
    assert_eq!(b.deq_at(t0 + 344, 0, 1, 40_000, ECT0), (ECT0, UND));
    let branches = b.m.branch_counts();
    assert!(branches.contains(&(Branch::StillUndetermined, 1)));
}

#[test]
fn low_check_every_packet_vs_at_t_boundary() {
    for (option, expect_inside) in [(0, NONCONG), (OPT_LOW_CHECK_AT_T_BOUNDARY, UND)] {
        let mut b = Bench::new(&cfg());
        b.csr_write(reg::OPTIONS, option);
        b.csr_write(reg::T_PERIOD, 1000);
        let t0 = pause_resume(&mut b, 3, 0, 50_000);
        assert_eq!(b.deq_at(t0 + 2, 3, 0, 50_000, ECT0), (UE, UND));
        // Released, inside T, queue below K_low.
        assert_eq!(b.deq_at(t0 + 500, 3, 0, 1000, ECT0), (ECT0, expect_inside));
        if option != 0 {
            // Checked at the boundary instead.
            assert_eq!(b.deq_at(t0 + 1000, 3, 0, 1000, ECT0), (ECT0, NONCONG));
        }
    }
}

#[test]
fn the_transition_packet_is_ce_marked_only_when_the_option_says_so() {
    for (option, ecn) in [(0, ECT0), (OPT_MARK_TRANSITION, CE)] {
        let mut b = Bench::new(&cfg());
        b.csr_write(reg::OPTIONS, option);
        let t0 = pause_resume(&mut b, 0, 0, 40_000);
        assert_eq!(b.deq_at(t0 + 2, 0, 0, 40_000, ECT0), (UE, UND));
        assert_eq!(b.deq_at(t0 + 400, 0, 0, 50_000, ECT0), (ecn, CONG));
    }
}

#[test]
fn a_resume_and_a_dequeue_in_one_cycle_see_ton_zero() {
    let mut b = Bench::new(&cfg());
    b.rx(0, 1, 7, 0);
    // Far outside any earlier ON period: without the RESUME this packet would be CE.
    b.wait_until(5000);
    let mut i = rx(0, 1, 0, 41_000);
    i.deq_valid = 1;
    (i.deq_port, i.deq_prio, i.deq_qlen, i.deq_ecn) = (0, 1, 41_000, ECT0);
    let o = b.apply(i);
    assert_eq!((o.mark_ecn, o.mark_state), (UE, UND));
}

#[test]
fn a_resume_while_not_paused_does_not_start_an_on_period() {
    let mut b = Bench::new(&cfg());
    b.rx(1, 0, 0, 0);
    let t = b.now();
    assert_eq!(b.deq_at(t, 1, 0, 41_000, ECT0), (CE, CONG));
    // A second PAUSE and a repeated RESUME: only the first RESUME ends the OFF period.
    let t0 = pause_resume(&mut b, 1, 0, 0);
    b.wait_until(t0 + 300);
    b.rx(1, 0, 0, 0);
    // Had the repeat restarted the ON period, this packet would be UE.
    assert_eq!(b.deq_at(t0 + 344, 1, 0, 41_000, ECT0), (CE, CONG));
}

#[test]
fn infiniband_resets_only_on_the_unblocking_credit_update() {
    let mut c = cfg();
    c.mode = Mode::Ib;
    let mut b = Bench::new(&c);
    // Credit updates arrive every Tc whether or not the VL was blocked: not an ON period.
    b.apply(credit(2, 1, true, 0));
    let t = b.now();
    assert_eq!(b.deq_at(t, 2, 1, 41_000, ECT0), (CE, CONG));
    // Blocked for lack of credits, then unblocked: the ON period starts.
    b.apply(credit(2, 1, false, 41_000));
    let t0 = b.now();
    b.apply(credit(2, 1, true, 41_000));
    b.apply(credit(2, 1, true, 41_000)); // a later periodic update changes nothing
    assert_eq!(b.deq_at(t0 + 343, 2, 1, 41_000, ECT0), (UE, UND));
    // In IB mode PFC frames are ignored, and in CEE mode credit updates are.
    b.rx(3, 0, 0xFFFF, 0);
    let t1 = b.now();
    b.rx(3, 0, 0, 0);
    assert_eq!(b.deq_at(t1 + 5, 3, 0, 41_000, ECT0), (CE, CONG));
    b.csr_write(reg::MODE, 0);
    b.apply(credit(3, 1, false, 0));
    let t2 = b.now();
    b.apply(credit(3, 1, true, 0));
    assert_eq!(b.deq_at(t2 + 5, 3, 1, 41_000, ECT0), (CE, CONG));
    assert_eq!(b.csr_read(reg::MODE), 0);
    b.csr_write(reg::MODE, MODE_IB);
    assert_eq!(b.csr_read(reg::MODE), MODE_IB);
}

#[test]
fn timestamps_are_exact_across_counter_wraps() {
    // 8-bit time: the hardware counter wraps every 256 cycles; the model's time does not.
    let mut c = cfg();
    c.time_bits = 8;
    c.max_ton = 100;
    c.t_period = 100;
    let mut b = Bench::new(&c);
    let t0 = pause_resume(&mut b, 0, 0, 50_000);
    // 256 cycles later the low 8 bits of now equal t0's plus 10: a modular Ton would be 10.
    assert_eq!(b.deq_at(t0 + 266, 0, 0, 50_000, ECT0).1, CONG);
    let t1 = pause_resume(&mut b, 0, 1, 50_000);
    assert_eq!(b.deq_at(t1 + 99, 0, 1, 50_000, ECT0), (UE, UND));
    // Released; a T boundary long after (over two wraps): expired, not "10 cycles in".
    assert_eq!(b.deq_at(t1 + 99 + 522, 0, 1, 60_000, ECT0), (ECT0, CONG));
}

#[test]
fn snapshot_reads_an_entry_and_its_timestamp_ages() {
    let mut c = cfg();
    c.time_bits = 8;
    c.max_ton = 100;
    c.t_period = 100;
    let mut b = Bench::new(&c);
    let index = 2 << 3 | 1;
    let snapshot = |b: &mut Bench| {
        b.csr_write(reg::ENTRY_INDEX, index);
        assert_eq!(b.csr_read(reg::ENTRY_STATUS), 1, "busy until read");
        assert_eq!(
            b.csr_read(reg::ENTRY_STATUS),
            1,
            "busy while the RAMs are read"
        );
        for merge in ["dequeues two edges older", "the dequeue one edge older"] {
            assert_eq!(
                b.csr_read(reg::ENTRY_STATUS),
                1,
                "busy while the writes of {merge} the read missed are merged"
            );
        }
        assert_eq!(b.csr_read(reg::ENTRY_STATUS), 0);
        (
            b.csr_read(reg::ENTRY_T_ON),
            b.csr_read(reg::ENTRY_T_T),
            b.csr_read(reg::ENTRY_Q_REC),
            b.csr_read(reg::ENTRY_STATE),
        )
    };
    // Never set: ages 3, everything else 0.
    assert_eq!(snapshot(&mut b), (0, 0, 0, 3 << 4 | 3 << 6));
    b.rx(2, 1, 5, 777);
    assert_eq!(snapshot(&mut b).3, 3 << 4 | 3 << 6 | 1 << 2, "paused");
    // RESUME at 383 = 256 + 127, just below a half-wrap (384), so the ages step soon.
    b.wait_until(383);
    b.rx(2, 1, 0, 777);
    let (t_on, t_t, q_rec, state) = snapshot(&mut b);
    assert_eq!((t_on, t_t, q_rec), (127, 127, 777));
    assert_eq!(state, 1 << 4 | 1 << 6, "one half-wrap since the RESUME");
    assert_eq!(b.deq_at(433, 2, 1, 50_000, ECT0), (UE, UND));
    b.wait_until(583);
    assert_eq!(
        snapshot(&mut b).3,
        UND | 2 << 4 | 2 << 6,
        "older than half a wrap"
    );
    // Released; the T boundary restarts t_T and records the queue.
    let t = b.now();
    assert_eq!(b.deq_at(t, 2, 1, 50_000, ECT0), (ECT0, CONG));
    let (t_on, t_t, q_rec, state) = snapshot(&mut b);
    assert_eq!((t_on, t_t, q_rec), (127, t % 256, 50_000));
    assert_eq!(state & 3, CONG);
    assert_eq!(state >> 4 & 3, 2);
    assert!(state >> 6 & 3 <= 1);
}

#[test]
fn a_snapshot_waits_for_a_cycle_without_a_dequeue() {
    let mut b = Bench::new(&cfg());
    b.rx(0, 0, 1, 0);
    b.csr_write(reg::ENTRY_INDEX, 0);
    for _ in 0..10 {
        b.m.step(&TcdIn {
            csr_addr: u64::from(reg::ENTRY_STATUS),
            ..deq(1, 1, 5, ECT0)
        });
    }
    assert_eq!(b.csr_read(reg::ENTRY_STATUS), 1, "read port still busy");
    assert_eq!(b.csr_read(reg::ENTRY_STATUS), 1);
    assert_eq!(b.csr_read(reg::ENTRY_STATUS), 1);
    assert_eq!(b.csr_read(reg::ENTRY_STATUS), 1);
    assert_eq!(b.csr_read(reg::ENTRY_STATUS), 0);
    assert_eq!(b.csr_read(reg::ENTRY_STATE) >> 2 & 1, 1, "paused");
    // An index that names no entry (priority 3 of 2) reads as zero.
    b.csr_write(reg::ENTRY_INDEX, 3);
    for _ in 0..4 {
        b.m.step(&TcdIn::default());
    }
    assert_eq!(b.csr_read(reg::ENTRY_STATE), 0);
}

#[test]
fn a_disabled_priority_passes_packets_unchanged_and_keeps_its_state() {
    let mut b = Bench::new(&cfg());
    let t = b.now();
    assert_eq!(b.deq_at(t, 0, 1, 50_000, ECT0), (CE, CONG));
    b.csr_write(reg::PRIO_ENABLE, 0x1);
    let t = b.now();
    assert_eq!(
        b.deq_at(t, 0, 1, 0, ECT0),
        (ECT0, CONG),
        "unchanged, state kept"
    );
    // State tracking still runs: a RESUME while disabled starts the ON period.
    let t0 = pause_resume(&mut b, 0, 1, 0);
    b.csr_write(reg::PRIO_ENABLE, 0x3);
    assert_eq!(b.deq_at(t0 + 50, 0, 1, 0, ECT0), (UE, UND));
}

#[test]
fn out_of_range_events_are_ignored_flagged_and_passed_through() {
    let mut b = Bench::new(&cfg());
    let o = b.apply(deq(4, 0, 50_000, UE));
    assert_eq!(
        (o.mark_valid, o.mark_port, o.mark_ecn, o.mark_state),
        (1, 4, UE, 0)
    );
    assert_eq!(b.csr_read(reg::ERR), ERR_INDEX);
    b.csr_write(reg::ERR, ERR_INDEX);
    assert_eq!(b.csr_read(reg::ERR), 0);
    b.rx(1, 2, 0xFFFF, 0);
    assert_eq!(b.csr_read(reg::ERR), ERR_INDEX);
    // A credit update is not an active-mode frame in CEE mode: ignored without a flag.
    b.csr_write(reg::ERR, ERR_INDEX);
    b.apply(credit(7, 0, true, 0));
    assert_eq!(b.csr_read(reg::ERR), 0);
}

#[test]
fn csr_reset_values_masks_and_the_time_counter() {
    let c = cfg();
    let mut b = Bench::new(&c);
    assert_eq!(b.csr_read(reg::ID), ID_WORD);
    assert_eq!(b.csr_read(reg::PARAMS), 4 | 2 << 8 | 20 << 16 | 16 << 24);
    assert_eq!(b.csr_read(reg::MAX_TON), 344);
    assert_eq!(b.csr_read(reg::T_PERIOD), 344);
    assert_eq!(b.csr_read(reg::K), 40_000);
    assert_eq!(b.csr_read(reg::K_LOW), 40_000);
    assert_eq!(b.csr_read(reg::PRIO_ENABLE), 3);
    assert_eq!(b.csr_read(reg::OPTIONS), 0);
    // Time registers hold half a wrap at most; queue registers queue_bits.
    b.csr_write(reg::MAX_TON, 0xFFFF_FFFF);
    assert_eq!(b.csr_read(reg::MAX_TON), 0x7FFF);
    b.csr_write(reg::K, 0xFFFF_FFFF);
    assert_eq!(b.csr_read(reg::K), 0xF_FFFF);
    b.csr_write(reg::ID, 0);
    assert_eq!(b.csr_read(reg::ID), ID_WORD, "read-only");
    // `now` reads the counter of the cycle before the read's edge, one more per edge.
    let a = b.csr_read(reg::NOW);
    let c2 = b.csr_read(reg::NOW);
    assert_eq!(c2, a + 1);
}

#[test]
fn csr_writes_apply_to_events_of_the_same_edge() {
    let mut b = Bench::new(&cfg());
    let mut i = deq(0, 0, 30_000, ECT0);
    (i.csr_we, i.csr_addr, i.csr_wdata) = (1, u64::from(reg::K), 20_000);
    let o = b.apply(i);
    assert_eq!((o.mark_ecn, o.mark_state), (CE, CONG));
}

#[test]
fn the_workload_reaches_every_path() {
    // 3 x 3: buses wide enough to name entries that do not exist.
    let odd = TcdConfig {
        ports: 3,
        priorities: 3,
        time_bits: 10,
        ..TcdConfig::preset("tiny").unwrap()
    };
    for (preset, c) in [
        ("tiny", TcdConfig::preset("tiny").unwrap()),
        ("fpga", TcdConfig::preset("fpga").unwrap()),
        ("odd", odd),
    ] {
        // With power-of-two sizes every index the buses can carry exists.
        let exact = c.ports.is_power_of_two() && c.priorities.is_power_of_two();
        let mut m = Tcd::new(&c).unwrap();
        let mut w = TcdWorkload::new(&c, 7);
        for _ in 0..400_000 {
            m.step(&w.next_input());
        }
        for (branch, n) in m.branch_counts() {
            if branch == Branch::BadIndex && exact {
                continue;
            }
            assert!(n >= 10, "{preset}: {branch:?} reached only {n} times");
        }
    }
}

#[test]
fn config_rules_are_enforced_with_clear_errors() {
    let bad = |f: &dyn Fn(&mut TcdConfig), field: &str| {
        let mut c = cfg();
        f(&mut c);
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, field, "{e}");
    };
    bad(&|c| c.k_low = c.k + 1, "k_low");
    bad(&|c| c.max_ton = 0, "max_ton");
    bad(&|c| c.t_period = 0, "t_period");
    bad(&|c| c.max_ton = 1 << 15, "max_ton");
    bad(&|c| c.k = 1 << 20, "k");
    bad(&|c| c.prio_enable = 0x4, "prio_enable");
    bad(&|c| c.ports = 0, "ports");
    bad(&|c| c.time_bits = 40, "time_bits");
    bad(&|c| c.entry_speed = vec![0; 3], "entry_speed");
    bad(
        &|c| c.entry_speed = vec![0, 0, 0, 1, 0, 0, 0, 0],
        "entry_speed[3]",
    );
    let class = TcdSpeed {
        max_ton: 10,
        t_period: 10,
        k: 100,
        k_low: 100,
    };
    bad(&|c| c.more_speeds = vec![class; 4], "more_speeds");
    bad(
        &|c| {
            c.more_speeds = vec![
                class,
                TcdSpeed {
                    k_low: 101,
                    ..class
                },
            ]
        },
        "more_speeds[1].k_low",
    );
    bad(
        &|c| {
            c.more_speeds = vec![TcdSpeed {
                max_ton: 0,
                ..class
            }]
        },
        "more_speeds[0].max_ton",
    );
    two_speeds().validate().unwrap();
    for preset in switchcraft_model::tcd::PRESETS {
        TcdConfig::preset(preset).unwrap().validate().unwrap();
    }
    let text = toml::to_string(&cfg())
        .unwrap()
        .replace("\"cee\"", "\"fddi\"");
    let e = TcdConfig::from_toml(&text, "x.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("x.toml") && e.contains("mode") && e.contains("fddi"),
        "{e}"
    );
}

/// The sized presets state their clock and link, and their max(Ton) = T is the paper's 34.4 us
/// at 40 Gb/s (spec §7.1 T1) in cycles of that clock: 100 MHz for `fpga`, 1 GHz for `paper`.
#[test]
fn sized_presets_hold_the_papers_max_ton_at_their_clock() {
    use switchcraft_model::tcd::max_ton::preset_timing;
    for (name, mhz, cycles) in [("fpga", 100.0, 3_440), ("paper", 1000.0, 34_400)] {
        let t = preset_timing(name).unwrap();
        assert_eq!((t.clock_mhz, t.rate_bps), (mhz, 40e9), "{name}");
        let c = TcdConfig::preset(name).unwrap();
        assert_eq!((c.max_ton, c.t_period), (cycles, cycles), "{name}");
    }
    assert!(preset_timing("tiny").is_none());
}
