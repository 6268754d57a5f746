//! The pfcmac block's seeded random workload: input rows for co-simulation, tests and the demo,
//! shaped to reach every rule of the block (docs/blocks/pfcmac.md).
//!
//! TX: descriptors on about one cycle in eight, random class sets, pause times mostly short,
//! `tx_tready` low in bursts (back-pressure). RX: frames with random idle gaps between and
//! inside them: good PFC frames (short times, so timers expire and frames refresh them), each
//! kind of malformed PFC frame, and frames that are not PFC. CSR: rare writes of the step
//! (including steps above one quantum per cycle and 0), the source address and flag clears;
//! reads of every word.

use super::*;
use switchcraft_core::rng::SplitMix64;

pub struct PfcMacWorkload {
    cfg: PfcMacConfig,
    rng: SplitMix64,
    /// The received frame being sent as beats, and the next beat.
    rx_beats: Vec<Beat>,
    rx_next: usize,
    rx_tuser: bool,
    /// Idle cycles before the next received frame.
    rx_gap: u64,
    /// Cycles left in a back-pressure burst.
    stall: u64,
}

impl PfcMacWorkload {
    pub fn new(cfg: &PfcMacConfig, seed: u64) -> Self {
        PfcMacWorkload {
            cfg: cfg.clone(),
            rng: SplitMix64::new(seed),
            rx_beats: Vec::new(),
            rx_next: 0,
            rx_tuser: false,
            rx_gap: 0,
            stall: 0,
        }
    }

    fn time(&mut self) -> u16 {
        match self.rng.below(10) {
            0 => 0,
            1 => self.rng.below(1 << 16) as u16,
            _ => self.rng.range(1, 64) as u16,
        }
    }

    /// The bytes of the next received frame, and whether the MAC flags it.
    fn next_frame(&mut self) -> (Vec<u8>, bool) {
        let enable = self.rng.below(256) as u8;
        let mut times = [0u16; CLASSES];
        for t in &mut times {
            *t = self.time();
        }
        let src = self.rng.below(1 << 40);
        let mut f = frame(src, enable, &times, self.cfg.fcs);
        let mut tuser = false;
        match self.rng.below(20) {
            0 => f[self.rng.below(6) as usize] ^= 1 << self.rng.below(8),
            1 => {
                let k = self.rng.range(16, f.len() as u64 - 1) as usize;
                f[k] ^= 0x20;
            }
            2 => f.truncate(f.len() - 1 - self.rng.below(8) as usize),
            3 => f.extend((0..self.rng.range(1, 9)).map(|_| 0x55)),
            4 => tuser = true,
            5 => f[12] = 0x08,
            6 => f[15] = 0x00,
            7 => f.truncate(self.rng.range(1, 20) as usize),
            _ => {}
        }
        (f, tuser)
    }

    pub fn next_input(&mut self) -> PfcMacIn {
        let mut i = PfcMacIn::default();
        let lanes = self.cfg.lanes();
        // TX.
        if self.rng.chance(12) {
            i.frame_valid = 1;
            i.frame_class_enable = self.rng.below(256);
            i.frame_pause = self.rng.below(256);
            i.frame_quanta = self.time().into();
        }
        if self.stall == 0 && self.rng.chance(3) {
            self.stall = self.rng.range(1, 40);
        }
        if self.stall > 0 {
            self.stall -= 1;
        } else {
            i.tx_tready = u64::from(self.rng.chance(85));
        }
        // RX: a frame's beats, with idle cycles inside and between frames.
        if self.rx_next == self.rx_beats.len() {
            if self.rx_gap > 0 {
                self.rx_gap -= 1;
            } else {
                let (bytes, tuser) = self.next_frame();
                self.rx_beats = beats(&bytes, lanes);
                // Now and then a beat in the middle loses a lane: not packed.
                if self.rng.chance(3) && self.rx_beats.len() > 2 {
                    self.rx_beats[1].1 >>= 1;
                }
                self.rx_next = 0;
                self.rx_tuser = tuser;
                self.rx_gap = if self.rng.chance(30) {
                    0
                } else {
                    self.rng.range(1, 50)
                };
            }
        }
        if self.rx_next < self.rx_beats.len() && self.rng.chance(90) {
            let (data, keep, last) = self.rx_beats[self.rx_next];
            self.rx_next += 1;
            i.rx_tvalid = 1;
            i.rx_tdata = data;
            i.rx_tkeep = keep;
            i.rx_tlast = u64::from(last);
            i.rx_tuser = u64::from(last && self.rx_tuser);
        } else {
            // Idle bus: noise on the data lines, which the block must not look at.
            i.rx_tdata = self.rng.next_u64() & mask(self.cfg.data_bits);
            i.rx_tkeep = self.rng.below(1 << lanes);
        }
        // CSR.
        i.csr_addr = self.rng.below(12);
        if self.rng.chance(1) {
            i.csr_we = 1;
            i.csr_addr = match self.rng.below(4) {
                0 => u64::from(reg::QUANTA_STEP),
                1 => u64::from(reg::SRC_MAC_LO),
                2 => u64::from(reg::SRC_MAC_HI),
                _ => u64::from(reg::FLAGS),
            };
            i.csr_wdata = match self.rng.below(4) {
                0 => 0,
                1 => self.rng.range(0x1_0000, 0x40_0000),
                _ => self.rng.below(1 << 32),
            };
        }
        i
    }
}
