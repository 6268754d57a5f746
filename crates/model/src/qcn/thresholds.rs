//! P4QCN's threshold formulas (spec §5.5): how far the PFC and feedback thresholds can go in a
//! buffer of `B` bytes shared by `n` ports of `k` priorities, with `Q_flight` bytes in flight per
//! (port, priority) while a PAUSE takes effect.
//!
//! * `Q_PFC <= (B - k·n·Q_flight) / (k·n)`;
//! * static partitioning: `Q_P4QCN <= Q_PFC - Q_flight`;
//! * dynamic thresholds (DCQCN-style, α = 8): `Q_P4QCN < α·(B - k·n·Q_flight) / (k·n·(α + 1))`.
//!
//! The paper writes k = 8 (its priorities); here k is the config's priority count. A bound at or
//! below 0 is an infeasible configuration and is refused, naming the rule.

use super::QcnConfig;

/// The buffer a switch divides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Buffer {
    /// Total buffer B, bytes.
    pub bytes: f64,
    /// Ports n.
    pub ports: u32,
    /// Priorities k per port (the paper's 8).
    pub priorities: u32,
    /// In-flight data per (port, priority), bytes: the network's BDP.
    pub q_flight_bytes: f64,
    /// The dynamic-threshold factor α (8; unrelated to the P_fb slope α_p).
    pub alpha: f64,
}

/// Which bound the feedback threshold takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Static per-queue partitioning: `Q_P4QCN <= Q_PFC - Q_flight`.
    Static,
    /// Dynamic thresholds: the α-form.
    Dynamic,
}

/// The three bounds of spec §5.5, bytes, unrounded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub q_pfc: f64,
    /// `Q_PFC - Q_flight`: negative when static partitioning is infeasible.
    pub q_p4qcn_static: f64,
    pub q_p4qcn_dynamic: f64,
}

impl Buffer {
    /// Checks the inputs; the error names the parameter and the rule.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [("buffer", self.bytes), ("q-flight", self.q_flight_bytes)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{name} = {v}: must be a number of bytes above 0"));
            }
        }
        if !(1..=1024).contains(&self.ports) {
            return Err(format!("ports = {}: must be in 1..=1024", self.ports));
        }
        if !(1..=8).contains(&self.priorities) {
            return Err(format!(
                "priorities = {}: must be in 1..=8",
                self.priorities
            ));
        }
        if !(self.alpha.is_finite() && self.alpha > 0.0) {
            return Err(format!("alpha = {}: must be a number above 0", self.alpha));
        }
        Ok(())
    }

    /// The bounds, or an error when even Q_PFC is at or below 0.
    pub fn bounds(&self) -> Result<Bounds, String> {
        self.validate()?;
        let queues = f64::from(self.ports) * f64::from(self.priorities);
        let spare = self.bytes - queues * self.q_flight_bytes;
        let q_pfc = spare / queues;
        if q_pfc <= 0.0 {
            return Err(format!(
                "infeasible: Q_PFC <= (B - {k}n x Q_flight) / ({k}n) = {q_pfc:.1} B is not above 0 \
                 (spec §5.5): {b} B cannot hold Q_flight = {f} B for each of the {queues} \
                 (port, priority) queues",
                k = self.priorities,
                b = self.bytes,
                f = self.q_flight_bytes,
            ));
        }
        Ok(Bounds {
            q_pfc,
            q_p4qcn_static: q_pfc - self.q_flight_bytes,
            q_p4qcn_dynamic: self.alpha * spare / (queues * (self.alpha + 1.0)),
        })
    }
}

impl Bounds {
    /// Q_PFC in whole bytes (`<=`: rounded down).
    pub fn q_pfc_bytes(&self) -> u64 {
        self.q_pfc.floor() as u64
    }

    /// Q_P4QCN in whole bytes for `mode`: the static bound rounded down, the dynamic one the
    /// largest whole number strictly below it. Refuses the static mode when its bound is not
    /// above 0 (spec §5.5's configuration check).
    pub fn q_p4qcn_bytes(&self, mode: Mode) -> Result<u64, String> {
        match mode {
            Mode::Static if self.q_p4qcn_static <= 0.0 => Err(format!(
                "infeasible static configuration: Q_P4QCN <= Q_PFC - Q_flight = {:.1} B is not \
                 above 0 (spec §5.5: reject when Q_PFC - Q_flight <= 0); use the dynamic-threshold \
                 bound (--mode dynamic), which is {:.1} B here, or a larger buffer",
                self.q_p4qcn_static, self.q_p4qcn_dynamic
            )),
            Mode::Static => Ok(self.q_p4qcn_static.floor() as u64),
            Mode::Dynamic => {
                let below = self.q_p4qcn_dynamic.ceil() as u64 - 1;
                if below == 0 {
                    Err(format!(
                        "infeasible: the dynamic bound Q_P4QCN < {:.1} B leaves no whole byte",
                        self.q_p4qcn_dynamic
                    ))
                } else {
                    Ok(below)
                }
            }
        }
    }
}

/// `base` with its thresholds set from `buffer` for `mode`: Q_PFC and its MAX (Q_PFC + Q_flight,
/// the headroom for the data in flight), the P_fb ramp from Q_P4QCN to Q_PFC with Q_eq at
/// Q_P4QCN [S], and the P_fb table's bucket width that covers the ramp. The ports and priorities
/// come from `buffer`. The result is validated; an error names the field and the rule.
pub fn apply(base: &QcnConfig, buffer: &Buffer, mode: Mode) -> Result<QcnConfig, String> {
    let b = buffer.bounds()?;
    let q_pfc = b.q_pfc_bytes();
    let q_p4qcn = b.q_p4qcn_bytes(mode)?;
    let mut c = base.clone();
    c.ports = buffer.ports;
    c.priorities = buffer.priorities;
    c.q_min = q_p4qcn;
    c.q_eq = q_p4qcn;
    c.q_max = q_pfc;
    c.pfb_shift = (0..=c.depth_bits)
        .find(|s| u64::from(c.pfb_entries - 1) << s >= q_pfc)
        .unwrap_or(c.depth_bits);
    c.pfc.q_pfc = q_pfc;
    c.pfc.max = (b.q_pfc + buffer.q_flight_bytes).floor() as u64;
    c.validate()
        .map_err(|e| format!("the derived config is not valid: {e}"))?;
    Ok(c)
}
