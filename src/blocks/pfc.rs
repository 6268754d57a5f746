//! PFC ingress: occupancy, XOFF/XON hysteresis and pause frames (docs/blocks/pfc.md).

use super::{def, generator, port_width, Block, FormalSettings, InputGenerator};
use crate::synth::{Ice40Resources, StateBits};
use switchcraft_core::csr::RegMap;
use switchcraft_core::{InputError, PortSchema};
use switchcraft_model::pfc::{self, Pfc, PfcConfig, PfcWorkload};
use switchcraft_rtl::export::Package;
use switchcraft_rtl::Tech;

#[derive(Clone, Copy, Debug)]
pub struct PfcBlock;

impl Block for PfcBlock {
    type Config = PfcConfig;
    type Model = Pfc;

    fn stem(&self) -> &'static str {
        "pfc"
    }

    fn presets(&self) -> &'static [&'static str] {
        pfc::PRESETS
    }

    fn preset(&self, name: &str) -> Option<PfcConfig> {
        PfcConfig::preset(name)
    }

    fn parse(&self, text: &str, name: &str) -> Result<PfcConfig, InputError> {
        PfcConfig::from_toml(text, name)
    }

    fn describe(&self, c: &PfcConfig) -> String {
        format!(
            "{} ports x {} priorities, {}-bit occupancy, XOFF/XON/MAX {}/{}/{} B",
            c.ports, c.priorities, c.occupancy_bits, c.xoff, c.xon, c.max
        )
    }

    fn schema(&self, c: &PfcConfig) -> PortSchema {
        pfc::port_schema(c)
    }

    fn regmap(&self, c: &PfcConfig) -> RegMap {
        pfc::regmap(c)
    }

    fn model(&self, c: &PfcConfig) -> Pfc {
        Pfc::new(c).expect("validated config")
    }

    fn package(&self, c: &PfcConfig, instance: &str, command: &str, tech: Tech) -> Package {
        switchcraft_rtl::pfc::package(c, instance, command, tech)
    }

    fn workload(&self, c: &PfcConfig, seed: u64) -> InputGenerator {
        let mut w = PfcWorkload::new(c, seed);
        generator(move || w.next_input())
    }

    /// The formal config (narrow data, formal/pfc/pfc_formal.toml): on `tiny`, the
    /// sequential-spec properties make each BMC step past 7 take minutes (docs/blocks/pfc.md).
    fn formal(&self) -> FormalSettings {
        // k = 8: the occupancy's input, read, operand and select stages and the decision's
        // registered tests put eight edges between an arbitrary pipeline state and the XOFF
        // state and events it decides. Depth 9: an event of step 1 and one four edges later on
        // its key (the last distance the operand lookup covers) both reach the select stage;
        // the RAM's distance, 5, is the directed co-simulation's (step 9 alone takes minutes).
        FormalSettings {
            depth: 9,
            k: 8,
            config: Some("formal/pfc/pfc_formal.toml"),
        }
    }

    fn formal_defines(&self, c: &PfcConfig) -> Vec<(String, String)> {
        let schema = pfc::port_schema(c);
        vec![
            def("SC_PB", port_width(&schema, "enq_port")),
            def("SC_QB", port_width(&schema, "enq_prio")),
            def("SC_LB", port_width(&schema, "enq_len")),
            def("SC_PORTS", c.ports),
            def("SC_PRIOS", c.priorities),
            def("SC_W_OCC", c.occupancy_bits),
        ]
    }

    fn simulate_rust_hdl(
        &self,
        c: &PfcConfig,
        reset_cycles: usize,
        inputs: &[Vec<u64>],
    ) -> Option<Vec<Vec<u64>>> {
        Some(switchcraft_rtl::pfc::simulate_rust_hdl(
            c,
            reset_cycles,
            inputs,
        ))
    }

    fn preset_timing(&self, preset: &str) -> Option<String> {
        let c = PfcConfig::preset(preset)?;
        Some(switchcraft_model::pfc::describe_preset_timing(
            preset, c.quanta, c.refresh, c.ports,
        ))
    }
    /// Each `enq` event is an arrival at the ingress buffer.
    fn packet_bus(&self) -> &'static str {
        "enq"
    }
    fn state_bits(&self, c: &PfcConfig, core: &Ice40Resources) -> StateBits {
        // crates/rtl/src/pfc.rs: keys {port, priority}, 2^(port_bits + prio_bits); on the
        // FPGA targets (the checked-in rtl/) the occupancy memory (`Ram2W2R`) keeps 4 RAM copies
        // (2 banks x 2 readers), a bank bit and a written-since-reset bit per key (on `asic`,
        // one copy that clears itself during reset); per key also the XOFF bit; the frame
        // generator's 2 dirty bits per physical port.
        let copies = 4u64;
        let occ = c.occupancy_bits as u64;
        let flags = 2 + 1;
        let physical_ports = 1u64 << c.port_bits();
        let physical = physical_ports << c.prio_bits();
        let keys = c.ports as u64 * c.priorities as u64;
        let per_physical = copies * occ + flags;
        let measured = core.dff + core.memory_bits;
        StateBits {
            keys,
            physical_keys: physical,
            measured_bits: measured,
            measured_per_key: measured as f64 / keys as f64,
            architectural_per_physical_key: per_physical,
            architectural_per_key: (per_physical * physical + 2 * physical_ports) as f64
                / keys as f64,
            asic_per_physical_key: Some(occ + 1),
            architecture: format!(
                "{copies} occupancy RAM copies x {occ} b + 3 flag bits (bank, written, xoff) \
                 = {per_physical} b per physical key, + 2 dirty bits per physical port; \
                 {physical} physical keys for {keys} (port, priority); on the asic target one \
                 copy and the xoff bit: {} b per physical key",
                occ + 1
            ),
            spec_per_key: Some(occ + 1),
            spec_note: format!(
                "§2.2/§2.3 of ../shared/spec/mechanisms.md: B_in (24 b there, {occ} b in \
                 this config) + I 1 b = {} b",
                occ + 1
            ),
        }
    }
}
