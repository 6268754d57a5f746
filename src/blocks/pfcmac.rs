//! pfcmac: 802.1Qbb PFC frames on the wire for one link, TX from PFC's frame descriptors and RX
//! with per-class pause timers (docs/blocks/pfcmac.md).

use super::{def, generator, Block, FormalSettings, InputGenerator};
use crate::synth::{Ice40Resources, StateBits};
use switchcraft_core::csr::RegMap;
use switchcraft_core::{InputError, PortSchema};
use switchcraft_model::pfcmac::{self, PfcMac, PfcMacConfig, PfcMacWorkload, CLASSES};
use switchcraft_rtl::export::Package;
use switchcraft_rtl::Tech;

#[derive(Clone, Copy, Debug)]
pub struct PfcMacBlock;

impl Block for PfcMacBlock {
    type Config = PfcMacConfig;
    type Model = PfcMac;

    fn stem(&self) -> &'static str {
        "pfcmac"
    }

    fn presets(&self) -> &'static [&'static str] {
        pfcmac::PRESETS
    }

    fn preset(&self, name: &str) -> Option<PfcMacConfig> {
        PfcMacConfig::preset(name)
    }

    fn parse(&self, text: &str, name: &str) -> Result<PfcMacConfig, InputError> {
        PfcMacConfig::from_toml(text, name)
    }

    fn describe(&self, c: &PfcMacConfig) -> String {
        format!(
            "one link, {}-bit AXI-Stream, FCS {}, {:.4} quanta per cycle",
            c.data_bits,
            if c.fcs { "in the stream" } else { "by the MAC" },
            c.quanta_step as f64 / 65536.0
        )
    }

    fn schema(&self, c: &PfcMacConfig) -> PortSchema {
        pfcmac::port_schema(c)
    }

    fn regmap(&self, c: &PfcMacConfig) -> RegMap {
        pfcmac::regmap(c)
    }

    fn model(&self, c: &PfcMacConfig) -> PfcMac {
        PfcMac::new(c)
    }

    fn package(&self, c: &PfcMacConfig, instance: &str, command: &str, tech: Tech) -> Package {
        switchcraft_rtl::pfcmac::package(c, instance, command, tech)
    }

    fn workload(&self, c: &PfcMacConfig, seed: u64) -> InputGenerator {
        let mut w = PfcMacWorkload::new(c, seed);
        generator(move || w.next_input())
    }

    /// A 64-bit stream, so the BMC depth holds a whole frame (formal/pfcmac/pfcmac_formal.toml).
    fn formal(&self) -> FormalSettings {
        FormalSettings {
            config: Some("formal/pfcmac/pfcmac_formal.toml"),
            ..FormalSettings::DEFAULT
        }
    }

    fn formal_defines(&self, c: &PfcMacConfig) -> Vec<(String, String)> {
        vec![
            def("SC_W", c.data_bits),
            def("SC_L", c.lanes()),
            def("SC_BEATS", c.beats()),
            def("SC_LAST_KEEP", c.last_keep()),
            def("SC_FRAME_BYTES", c.frame_bytes()),
        ]
    }

    fn preset_timing(&self, preset: &str) -> Option<String> {
        Some(match preset {
            "tiny" => {
                "125 MHz clock, 8-bit stream (1 Gb/s): the link's rate would be a QUANTA_STEP \
                       of 0x400 (1/64 quantum per cycle); the preset's 0x4000 runs the timers 16 \
                       times fast, so random tests see many expiries"
                    .to_string()
            }
            "fpga" | "fpga-fcs" => {
                "156.25 MHz clock, 64-bit stream of a 10 Gb/s link: QUANTA_STEP \
                                    0x2000 is 1/8 quantum (51.2 ns) per cycle, and the longest \
                                    pause, 0xFFFF quanta, 3.36 ms"
                    .to_string()
            }
            _ => return None,
        })
    }

    fn key_name(&self) -> &'static str {
        "class"
    }

    /// A descriptor asks for one frame; the block takes one per cycle.
    fn packet_bus(&self) -> &'static str {
        "frame"
    }

    fn stream_bits(&self, c: &PfcMacConfig) -> Option<u32> {
        Some(c.data_bits)
    }

    fn state_bits(&self, c: &PfcMacConfig, core: &Ice40Resources) -> StateBits {
        // crates/rtl/src/pfcmac.rs, per class: TX pending bit and time (1 + 16), the frame in
        // flight's time (16); RX the received time (16), the timer (16), paused (1), a queued
        // event and its quanta (1 + 16). Per link (not per class): the frame's source address
        // and enable vector, beat counters, two CRC registers, the parser's flags, counters.
        let per_class = 1 + 16 + 16 + 16 + 16 + 1 + 1 + 16;
        let keys = CLASSES as u64;
        let measured = core.dff + core.memory_bits;
        let _ = c;
        StateBits {
            keys,
            physical_keys: keys,
            measured_bits: measured,
            measured_per_key: measured as f64 / keys as f64,
            architectural_per_physical_key: per_class,
            architectural_per_key: per_class as f64,
            asic_per_physical_key: Some(per_class),
            architecture: format!(
                "TX pending bit and time, frame time; RX received time, timer, paused, queued \
                 event and quanta: {per_class} b per class, plus per link the frame's source \
                 address and enable vector, beat counters, two CRC registers, parser flags and \
                 three 32-bit counters"
            ),
            spec_per_key: Some(1 + 16 + 16 + 1),
            spec_note: "IEEE 802.1Qbb per priority: the transmitter's pending request and its \
                        time (1 + 16 b), the receiver's pause timer (16 b) and paused state"
                .to_string(),
        }
    }

    fn bench_presets(&self) -> &'static [&'static str] {
        &["tiny", "fpga"]
    }
}
