//! CaPFC: PFC's ingress plus per-input egress counters, Stop-Max and Stop-Calibrate
//! (docs/blocks/capfc.md).

use super::{def, generator, Block, FormalSettings, InputGenerator};
use crate::synth::{Ice40Resources, StateBits};
use switchcraft_core::csr::RegMap;
use switchcraft_core::{InputError, PortSchema};
use switchcraft_model::capfc::{self, Capfc, CapfcConfig, CapfcWorkload};
use switchcraft_rtl::export::Package;
use switchcraft_rtl::Tech;

#[derive(Clone, Copy, Debug)]
pub struct CapfcBlock;

impl Block for CapfcBlock {
    type Config = CapfcConfig;
    type Model = Capfc;

    fn stem(&self) -> &'static str {
        "capfc"
    }

    fn presets(&self) -> &'static [&'static str] {
        capfc::PRESETS
    }

    fn preset(&self, name: &str) -> Option<CapfcConfig> {
        CapfcConfig::preset(name)
    }

    fn parse(&self, text: &str, name: &str) -> Result<CapfcConfig, InputError> {
        CapfcConfig::from_toml(text, name)
    }

    fn describe(&self, c: &CapfcConfig) -> String {
        format!(
            "{} ports x {} priorities, {}-bit occupancy, {}-bit counters, egress \
             MAX/XOFF/WARN/XON {}/{}/{}/{} B, {:?}, CUT {}/{}",
            c.ports,
            c.priorities,
            c.occupancy_bits,
            c.counter_bits,
            c.eg_max,
            c.eg_xoff,
            c.eg_warn,
            c.eg_xon,
            c.policy,
            c.cut_num,
            c.cut_den
        )
    }

    fn schema(&self, c: &CapfcConfig) -> PortSchema {
        capfc::port_schema(c)
    }

    fn regmap(&self, c: &CapfcConfig) -> RegMap {
        capfc::regmap(c)
    }

    fn model(&self, c: &CapfcConfig) -> Capfc {
        Capfc::new(c).expect("validated config")
    }

    fn package(&self, c: &CapfcConfig, instance: &str, command: &str, tech: Tech) -> Package {
        switchcraft_rtl::capfc::package(c, instance, command, tech)
    }

    fn workload(&self, c: &CapfcConfig, seed: u64) -> InputGenerator {
        let mut w = CapfcWorkload::new(c, seed);
        generator(move || w.next_input())
    }

    /// An egress event's E and D changes are five and six edges after it, so the BMC depth
    /// reaching calibration results is 11; the ghost counters make each step costly on `tiny`,
    /// hence a narrower config (formal/capfc/capfc_formal.toml; docs/blocks/capfc.md).
    fn formal(&self) -> FormalSettings {
        FormalSettings {
            depth: 12,
            k: 4,
            config: Some("formal/capfc/capfc_formal.toml"),
        }
    }

    fn formal_defines(&self, c: &CapfcConfig) -> Vec<(String, String)> {
        vec![
            def("SC_PB", c.port_bits()),
            def("SC_NB", c.prio_bits()),
            def("SC_LB", c.length_bits),
            def("SC_CB", c.counter_bits),
            def("SC_PORTS", c.ports),
            def("SC_PRIOS", c.priorities),
            def("SC_W_OCC", c.occupancy_bits),
        ]
    }

    fn preset_timing(&self, preset: &str) -> Option<String> {
        let c = CapfcConfig::preset(preset)?;
        Some(switchcraft_model::pfc::describe_preset_timing(
            preset, c.quanta, c.refresh, c.ports,
        ))
    }
    /// Each `in_enq` event is an arrival at an ingress buffer.
    fn packet_bus(&self) -> &'static str {
        "in_enq"
    }
    fn state_bits(&self, c: &CapfcConfig, core: &Ice40Resources) -> StateBits {
        // crates/rtl/src/capfc.rs, on the FPGA targets (the checked-in rtl/; on `asic` each
        // occupancy is one copy without the bank and written bits, 3 x occ + 2 bits less per
        // key): per physical key {port, priority}, as an ingress key: PFC's ingress (4
        // occupancy RAM copies, bank and written bits, I) and an E count of up to P - 1 (D is
        // computed from them; the frame generator keeps 2 dirty bits per physical port); as an
        // egress key: PFC's occupancy (4 copies, bank and written bits), a counter row of P - 1
        // counters with two read ports (one copy per port on the FPGAs, one array on `asic`),
        // row_live and pending bits, and an E row of P - 1 flip-flops (the other ports).
        let occ = c.occupancy_bits as u64;
        let (p, cb) = (c.ports as u64, c.counter_bits as u64);
        let count = u64::from(switchcraft_core::value_bits(p - 1));
        let ingress = 4 * occ + 3 + count;
        let egress = 4 * occ + 2 + 2 * (p - 1) * cb + 2 + (p - 1);
        let per_physical = ingress + egress;
        // On `asic` each of the two occupancies is one copy without bank and written bits,
        // and the counter row one array.
        let asic = per_physical - 2 * (3 * occ + 2) - (p - 1) * cb;
        let physical_ports = 1u64 << c.port_bits();
        let physical = physical_ports << c.prio_bits();
        let keys = p * c.priorities as u64;
        let measured = core.dff + core.memory_bits;
        let spec = 2 * occ + (p - 1) * cb + 2 * (p - 1) + 3;
        StateBits {
            keys,
            physical_keys: physical,
            measured_bits: measured,
            measured_per_key: measured as f64 / keys as f64,
            architectural_per_physical_key: per_physical,
            architectural_per_key: (per_physical * physical + 2 * physical_ports) as f64
                / keys as f64,
            asic_per_physical_key: Some(asic),
            architecture: format!(
                "ingress {ingress} b (4 x {occ} b occupancy, I, bank and written bits, {count} b \
                 E count) + egress {egress} b (4 x {occ} b occupancy, bank and written bits, 2 \
                 read-port copies of {} x {cb} b counters, live and pending bits, {} E \
                 flip-flops) = {per_physical} b per physical key, + 2 frame \
                 dirty bits per physical port; {physical} physical keys for {keys} (port, \
                 priority); on the asic target one occupancy copy without bank and written \
                 bits and one counter array: {} b per physical key",
                p - 1,
                p - 1,
                asic
            ),
            spec_per_key: Some(spec),
            spec_note: format!(
                "§2.2 of ../shared/spec/mechanisms.md with this config's widths: B_in and \
                 B_eg {occ} b each + I + C {} x {cb} b + E and E_in {} b each + D + \
                 pfc_state = {spec} b",
                p - 1,
                p - 1
            ),
        }
    }

    /// Its `paper` Verilog takes long to verilate.
    fn bench_presets(&self) -> &'static [&'static str] {
        &["tiny", "fpga"]
    }
}
