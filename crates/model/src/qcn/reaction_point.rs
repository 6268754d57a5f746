//! The QCN reaction point (RP): the host side that turns feedback packets into a sending rate.
//! A model for network-level studies and for reading the CP's output; there is no RTL of it.
//!
//! Spec §5.6 (P4QCN's RP, Eq. 2 and 3) and the 802.1Qau RP it extends:
//! * **rate decrease** on an FBP: `R_t = R_c`, then `R_c = R_c·(1 - β/2)` (P4QCN, [`Decrease::Beta`])
//!   or `R_c = R_c·(1 - Gd·Fb)` (802.1Qau, [`Decrease::Fb`]); the byte counter and the timer
//!   restart their cycle counts at 0;
//! * a **byte counter** completes a cycle every `bc_limit` bytes sent (half that once it has
//!   completed `n_fr` cycles), a **timer** every `timer_ns` (half that likewise);
//! * each completed cycle raises the rate by the state the two counts give:
//!   **fast recovery** while both counts are at most `n_fr`: `R_c = (R_t + R_c)/2`;
//!   **hyper-active increase** once both exceed `n_fr`: `R_t += (min(counts) - n_fr)·R_HAI` first;
//!   **active increase** otherwise: `R_t += R_AI` first;
//! * rates stay within `[min_rate, line_rate]`; once `R_c` is back at the line rate the RP is
//!   idle (no limiter) until the next FBP.
//!
//! With β = 1 and byte-counter cycles only, R_c after an FBP is R/2, then 0.75, 0.875, 0.9375,
//! 0.96875, 0.984375 × R_t over the five fast-recovery cycles (spec §7.5 Q5).

/// How an FBP decreases the rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decrease {
    /// P4QCN: `R_c·(1 - β/2)`, whatever Fb says; β in (0, 1] (1: halve).
    Beta(f64),
    /// 802.1Qau: `R_c·(1 - Gd·Fb)` with the quantised Fb (0..63); Gd = 1/128 caps the cut
    /// just below half.
    Fb { gd: f64 },
}

/// Parameters of one reaction point.
#[derive(Clone, Debug, PartialEq)]
pub struct RpConfig {
    /// The RP's link rate, bit/s: where it starts and the ceiling of every increase.
    pub line_rate_bps: f64,
    pub decrease: Decrease,
    /// Cycles of fast recovery (P4QCN's N = 5).
    pub n_fr: u32,
    /// Active-increase step, bit/s (the testbed's R_AI = 5 Mb/s).
    pub r_ai_bps: f64,
    /// Hyper-active-increase step, bit/s (802.1Qau: 50 Mb/s).
    pub r_hai_bps: f64,
    /// Bytes per byte-counter cycle (150 KB, 802.1Qau; spec §5.6 [S]).
    pub bc_limit_bytes: f64,
    /// Nanoseconds per timer cycle; 0 disables the timer (P4QCN's RP counts bytes only).
    pub timer_ns: f64,
    /// The floor of R_c, bit/s.
    pub min_rate_bps: f64,
}

impl RpConfig {
    /// The paper's testbed RP (§5.7): 7 Mb/s links, β = 1, N = 5, R_AI = 5 Mb/s, the byte
    /// counter only (its FSM has no timer), 150 KB cycles [S], floor 100 kb/s [S].
    pub fn testbed() -> RpConfig {
        RpConfig {
            line_rate_bps: 7e6,
            decrease: Decrease::Beta(1.0),
            n_fr: 5,
            r_ai_bps: 5e6,
            r_hai_bps: 50e6,
            bc_limit_bytes: 150_000.0,
            timer_ns: 0.0,
            min_rate_bps: 1e5,
        }
    }

    /// An 802.1Qau RP on a link of `line_rate_bps`: Gd = 1/128, N = 5, R_AI 5 Mb/s, R_HAI
    /// 50 Mb/s, 150 KB byte-counter cycles, a 15 ms timer [S], floor 10 Mb/s [S].
    pub fn qau(line_rate_bps: f64) -> RpConfig {
        RpConfig {
            line_rate_bps,
            decrease: Decrease::Fb { gd: 1.0 / 128.0 },
            n_fr: 5,
            r_ai_bps: 5e6,
            r_hai_bps: 50e6,
            bc_limit_bytes: 150_000.0,
            timer_ns: 15e6,
            min_rate_bps: 10e6,
        }
    }

    /// Checks the parameters; the error names the field and the rule.
    pub fn validate(&self) -> Result<(), String> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("{name} = {v}: must be a finite number above 0"))
            }
        };
        positive("line_rate_bps", self.line_rate_bps)?;
        positive("bc_limit_bytes", self.bc_limit_bytes)?;
        for (name, v) in [
            ("r_ai_bps", self.r_ai_bps),
            ("r_hai_bps", self.r_hai_bps),
            ("timer_ns", self.timer_ns),
            ("min_rate_bps", self.min_rate_bps),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{name} = {v}: must be a finite number, 0 or more"));
            }
        }
        if self.min_rate_bps > self.line_rate_bps {
            return Err(format!(
                "min_rate_bps = {}: must be at most line_rate_bps ({})",
                self.min_rate_bps, self.line_rate_bps
            ));
        }
        match self.decrease {
            Decrease::Beta(b) if !(b > 0.0 && b <= 1.0) => {
                Err(format!("beta = {b}: must be in (0, 1]"))
            }
            Decrease::Fb { gd } if !(gd > 0.0 && gd * 63.0 < 1.0) => Err(format!(
                "gd = {gd}: must be above 0 with gd x 63 below 1 (a cut below 100 %)"
            )),
            _ => Ok(()),
        }
    }
}

/// What the RP is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RpState {
    /// No FBP since R_c last reached the line rate: no limiter.
    Idle,
    FastRecovery,
    ActiveIncrease,
    HyperActiveIncrease,
}

/// Which counter completed a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    Bytes = 0,
    Timer = 1,
}

/// One rate change, for traces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateChange {
    /// What caused it: an FBP (`None`) or a counter's cycle.
    pub cause: Option<Counter>,
    /// The state the change was made in.
    pub state: RpState,
    pub current_bps: f64,
    pub target_bps: f64,
}

/// One reaction point.
#[derive(Clone, Debug)]
pub struct ReactionPoint {
    cfg: RpConfig,
    current: f64,
    target: f64,
    /// Per counter ([`Counter`] as the index): bytes or nanoseconds into its current cycle,
    /// and the cycles it completed since the last FBP.
    progress: [f64; 2],
    counts: [u32; 2],
    active: bool,
}

impl ReactionPoint {
    /// An idle RP at its line rate; `cfg` must pass [`RpConfig::validate`].
    pub fn new(cfg: &RpConfig) -> ReactionPoint {
        cfg.validate().expect("a validated RP config");
        ReactionPoint {
            cfg: cfg.clone(),
            current: cfg.line_rate_bps,
            target: cfg.line_rate_bps,
            progress: [0.0; 2],
            counts: [0; 2],
            active: false,
        }
    }

    /// R_c, bit/s.
    pub fn current_bps(&self) -> f64 {
        self.current
    }

    /// R_t, bit/s.
    pub fn target_bps(&self) -> f64 {
        self.target
    }

    pub fn state(&self) -> RpState {
        let n = self.cfg.n_fr;
        let [bc, timer] = self.counts;
        let (lo, hi) = (bc.min(timer), bc.max(timer));
        if !self.active {
            RpState::Idle
        } else if self.cfg.timer_ns > 0.0 {
            if lo > n {
                RpState::HyperActiveIncrease
            } else if hi > n {
                RpState::ActiveIncrease
            } else {
                RpState::FastRecovery
            }
        } else if bc > n {
            // Without a timer (P4QCN's FSM) there is no hyper-active increase.
            RpState::ActiveIncrease
        } else {
            RpState::FastRecovery
        }
    }

    /// An FBP with quantised feedback `fb` (0..63) arrives.
    pub fn on_fbp(&mut self, fb: u8) -> RateChange {
        let cut = match self.cfg.decrease {
            Decrease::Beta(beta) => beta / 2.0,
            Decrease::Fb { gd } => gd * f64::from(fb.min(63)),
        };
        self.target = self.current;
        self.current = (self.current * (1.0 - cut)).max(self.cfg.min_rate_bps);
        self.counts = [0; 2];
        self.progress = [0.0; 2];
        self.active = true;
        RateChange {
            cause: None,
            state: self.state(),
            current_bps: self.current,
            target_bps: self.target,
        }
    }

    /// The RP sent `bytes`: every byte-counter cycle they complete raises the rate.
    pub fn on_sent(&mut self, bytes: f64, changes: &mut Vec<RateChange>) {
        self.advance(Counter::Bytes, bytes, changes);
    }

    /// `ns` nanoseconds pass: every timer cycle they complete raises the rate.
    pub fn on_time(&mut self, ns: f64, changes: &mut Vec<RateChange>) {
        self.advance(Counter::Timer, ns, changes);
    }

    /// Adds `amount` to a counter's cycle; each cycle it completes (the full period for its
    /// first `n_fr` cycles, half of it after) counts and raises the rate. A period of 0
    /// disables the counter.
    fn advance(&mut self, counter: Counter, amount: f64, changes: &mut Vec<RateChange>) {
        let full = match counter {
            Counter::Bytes => self.cfg.bc_limit_bytes,
            Counter::Timer => self.cfg.timer_ns,
        };
        let c = counter as usize;
        if !self.active || full == 0.0 {
            return;
        }
        self.progress[c] += amount;
        while self.active {
            let halved = self.counts[c] >= self.cfg.n_fr;
            let period = if halved { full / 2.0 } else { full };
            if self.progress[c] < period {
                break;
            }
            self.progress[c] -= period;
            self.counts[c] += 1;
            changes.push(self.increase(counter));
        }
    }

    /// Sends at R_c for `ns` nanoseconds: the bytes, then the time.
    pub fn run(&mut self, ns: f64, changes: &mut Vec<RateChange>) {
        let bytes = self.current * ns / 8e9;
        self.on_sent(bytes, changes);
        self.on_time(ns, changes);
    }

    fn increase(&mut self, cause: Counter) -> RateChange {
        let state = self.state();
        let line = self.cfg.line_rate_bps;
        match state {
            RpState::HyperActiveIncrease => {
                let i = self.counts[0].min(self.counts[1]) - self.cfg.n_fr;
                self.target += f64::from(i) * self.cfg.r_hai_bps;
            }
            RpState::ActiveIncrease => self.target += self.cfg.r_ai_bps,
            RpState::FastRecovery | RpState::Idle => {}
        }
        self.target = self.target.min(line);
        self.current = ((self.target + self.current) / 2.0).min(line);
        let change = RateChange {
            cause: Some(cause),
            state,
            current_bps: self.current,
            target_bps: self.target,
        };
        if self.current >= line {
            self.active = false;
        }
        change
    }
}
