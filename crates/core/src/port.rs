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

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("schema serializes") + "\n"
    }
}
