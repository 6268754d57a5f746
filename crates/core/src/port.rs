//! Port schema: the names, widths and directions of a block's top-level ports.
//!
//! One schema per (block, config) is shared by the golden model (value order of
//! [`crate::PortValues`]), the Verilog wrapper (`<b>_top` port list), the port manifest JSON and
//! the Verilator binding (drive by name). Every port is at most 64 bits wide.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    In,
    Out,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Port {
    pub name: String,
    pub width: u32,
    pub dir: Dir,
    /// One-line meaning, for the manifest and the docs.
    #[serde(default)]
    pub doc: String,
    /// Outputs: the pipeline latency in edges. The effect of events sampled at edge n appears
    /// on this port after edge n + latency at the earliest (arbitration may add more, which the
    /// block's docs state). Measured from the event buses; CSR writes are documented apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<u32>,
}

impl Port {
    pub fn input(name: &str, width: u32, doc: &str) -> Self {
        Self::new(name, width, Dir::In, doc)
    }

    pub fn output(name: &str, width: u32, doc: &str) -> Self {
        Self::new(name, width, Dir::Out, doc)
    }

    fn new(name: &str, width: u32, dir: Dir, doc: &str) -> Self {
        assert!(
            (1..=64).contains(&width),
            "port {name}: width {width} outside 1..=64"
        );
        Port {
            name: name.to_string(),
            width,
            dir,
            doc: doc.to_string(),
            latency: None,
        }
    }

    pub fn mask(&self) -> u64 {
        crate::mask(self.width)
    }
}

/// The ports of one block instance, clock and reset excluded (they are implicit: `clk`, `rst`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortSchema {
    pub block: String,
    pub ports: Vec<Port>,
}

impl PortSchema {
    pub fn new(block: &str, ports: Vec<Port>) -> Self {
        let mut seen = std::collections::HashSet::new();
        for p in &ports {
            assert!(seen.insert(p.name.clone()), "duplicate port {}", p.name);
        }
        PortSchema {
            block: block.to_string(),
            ports,
        }
    }

    pub fn inputs(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter().filter(|p| p.dir == Dir::In)
    }

    pub fn outputs(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter().filter(|p| p.dir == Dir::Out)
    }

    pub fn input_count(&self) -> usize {
        self.inputs().count()
    }

    pub fn output_count(&self) -> usize {
        self.outputs().count()
    }

    /// Position of input `name` in the input value order.
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.inputs().position(|p| p.name == name)
    }

    /// Position of output `name` in the output value order.
    pub fn output_index(&self, name: &str) -> Option<usize> {
        self.outputs().position(|p| p.name == name)
    }

    /// The bus an output belongs to: its name up to the first `_` (`xoff_valid` -> `xoff`).
    pub fn bus(name: &str) -> &str {
        name.split('_').next().unwrap_or(name)
    }

    /// Declares each output bus's pipeline latency in edges ([`Port::latency`]). A bus not
    /// listed is a status no event reaches (BFC's `ready`); tests/latency.rs checks both kinds
    /// against the model. Every listed bus must have an output.
    pub fn with_latencies(mut self, buses: &[(&str, u32)]) -> Self {
        for p in self.ports.iter_mut().filter(|p| p.dir == Dir::Out) {
            let bus = Self::bus(&p.name);
            p.latency = buses.iter().find(|(b, _)| *b == bus).map(|(_, l)| *l);
        }
        for (b, _) in buses {
            assert!(
                self.outputs().any(|p| Self::bus(&p.name) == *b),
                "{}: latency for {b}, which has no output",
                self.block
            );
        }
        self
    }

    /// The declared latency of output bus `bus` (`None`: no such bus, or a status no event
    /// reaches). Models size their delay lines from it, so the declaration is the one source.
    pub fn latency(&self, bus: &str) -> Option<u32> {
        self.outputs()
            .find(|p| Self::bus(&p.name) == bus)
            .and_then(|p| p.latency)
    }

    /// The output buses in schema order, each named by its port when it has one (`enq_drop`),
    /// else by its prefix and `_*` (`xoff_*`), with its declared latency (`None`: a status no
    /// event reaches).
    pub fn output_buses(&self) -> Vec<(String, Option<u32>)> {
        let mut buses: Vec<(&str, Vec<&str>, Option<u32>)> = Vec::new();
        for p in self.outputs() {
            let bus = Self::bus(&p.name);
            match buses.iter_mut().find(|(b, _, _)| *b == bus) {
                Some((_, ports, _)) => ports.push(&p.name),
                None => buses.push((bus, vec![&p.name], p.latency)),
            }
        }
        buses
            .into_iter()
            .map(|(bus, ports, l)| match ports.as_slice() {
                [one] => (one.to_string(), l),
                _ => (format!("{bus}_*"), l),
            })
            .collect()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("schema serializes") + "\n"
    }
}
