//! VCD writer over the `vcd` crate: one scope per block, one wire per port, plus `clk`.
//!
//! Time unit 1 ns, one cycle = 10 ns; step n's rising edge is at 10n + 5 and its port values
//! change at that edge. GTKWave shows the sampled inputs and the registered outputs of each step
//! aligned on the same edge.

use crate::port::{Dir, PortSchema};
use std::io::Write;
use vcd::{IdCode, TimescaleUnit, Value};

pub struct VcdWriter<W: Write> {
    w: vcd::Writer<W>,
    clk: IdCode,
    inputs: Vec<(IdCode, u32)>,
    outputs: Vec<(IdCode, u32)>,
    last_in: Vec<Option<u64>>,
    last_out: Vec<Option<u64>>,
    /// Cycle number of the first step written (for windows of a long run).
    first_cycle: u64,
}

impl<W: Write> VcdWriter<W> {
    pub fn new(out: W, schema: &PortSchema, first_cycle: u64) -> std::io::Result<Self> {
        let mut w = vcd::Writer::new(out);
        w.timescale(1, TimescaleUnit::NS)?;
        w.add_module(&schema.block)?;
        let clk = w.add_wire(1, "clk")?;
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        for p in &schema.ports {
            let id = w.add_wire(p.width, &p.name)?;
            match p.dir {
                Dir::In => inputs.push((id, p.width)),
                Dir::Out => outputs.push((id, p.width)),
            }
        }
        w.upscope()?;
        w.enddefinitions()?;
        let (ni, no) = (inputs.len(), outputs.len());
        Ok(VcdWriter {
            w,
            clk,
            inputs,
            outputs,
            last_in: vec![None; ni],
            last_out: vec![None; no],
            first_cycle,
        })
    }

    /// Records step `cycle`: its inputs and the outputs after its edge.
    pub fn step(&mut self, cycle: u64, inputs: &[u64], outputs: &[u64]) -> std::io::Result<()> {
        let t = 10 * (cycle.saturating_sub(self.first_cycle));
        self.w.timestamp(t)?;
        self.w.change_scalar(self.clk, Value::V0)?;
        self.w.timestamp(t + 5)?;
        self.w.change_scalar(self.clk, Value::V1)?;
        for (k, &v) in inputs.iter().enumerate() {
            if self.last_in[k] != Some(v) {
                let (id, width) = self.inputs[k];
                self.w.change_vector(id, bits(v, width))?;
                self.last_in[k] = Some(v);
            }
        }
        for (k, &v) in outputs.iter().enumerate() {
            if self.last_out[k] != Some(v) {
                let (id, width) = self.outputs[k];
                self.w.change_vector(id, bits(v, width))?;
                self.last_out[k] = Some(v);
            }
        }
        Ok(())
    }

    pub fn finish(mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

fn bits(v: u64, width: u32) -> impl Iterator<Item = Value> {
    (0..width).rev().map(move |i| {
        if (v >> i) & 1 == 1 {
            Value::V1
        } else {
            Value::V0
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::Port;

    #[test]
    fn vcd_has_one_scope_and_changes_only() {
        let s = PortSchema::new(
            "blk",
            vec![Port::input("a", 2, ""), Port::output("y", 1, "")],
        );
        let mut buf = Vec::new();
        let mut v = VcdWriter::new(&mut buf, &s, 0).unwrap();
        v.step(0, &[1], &[0]).unwrap();
        v.step(1, &[1], &[1]).unwrap();
        v.finish().unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains("$scope module blk $end"));
        assert!(text.contains("$var wire 2"));
        assert_eq!(text.matches("b01 ").count(), 1, "{text}");
    }
}

/// A GTKWave save file (`.gtkw`) that shows `clk` and every port of `schema` in one group per
/// bus (ports that share the prefix before the first `_`: `enq_valid`, `enq_port` ...), 1-bit
/// ports in binary, ports up to 16 bits in decimal, wider ones in hex. `scope` is where the
/// ports sit in the VCD: the block name for [`VcdWriter`]'s files, `TOP` for Verilator traces.
/// `comment` lines go in the file's header.
pub fn gtkw_save_file(schema: &PortSchema, scope: &str, comment: &[&str]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for line in comment {
        let _ = writeln!(s, "[*] {line}");
    }
    s.push_str("[timestart] 0\n[size] 1600 900\n[signals_width] 240\n[sst_expanded] 1\n");
    let _ = writeln!(s, "[treeopen] {scope}.");
    let _ = writeln!(s, "@28\n{scope}.clk");
    let mut group = "";
    for p in &schema.ports {
        let bus = p.name.split('_').next().unwrap_or(&p.name);
        if bus != group {
            group = bus;
            let dir = match p.dir {
                Dir::In => "in",
                Dir::Out => "out",
            };
            let _ = writeln!(s, "@200\n-{bus} ({dir})");
        }
        let (flags, name) = match p.width {
            1 => ("28", p.name.clone()),
            2..=16 => ("24", format!("{}[{}:0]", p.name, p.width - 1)),
            _ => ("22", format!("{}[{}:0]", p.name, p.width - 1)),
        };
        let _ = writeln!(s, "@{flags}\n{scope}.{name}");
    }
    s
}

#[cfg(test)]
mod gtkw_tests {
    use super::*;
    use crate::port::Port;

    #[test]
    fn save_file_groups_buses_and_names_ranges() {
        let schema = PortSchema::new(
            "blk",
            vec![
                Port::input("enq_valid", 1, ""),
                Port::input("enq_port", 5, ""),
                Port::output("csr_rdata", 32, ""),
            ],
        );
        let s = gtkw_save_file(&schema, "TOP", &["hello"]);
        assert!(s.starts_with("[*] hello\n"));
        let body: Vec<&str> = s.lines().skip_while(|l| !l.starts_with('@')).collect();
        assert_eq!(
            body,
            [
                "@28",
                "TOP.clk",
                "@200",
                "-enq (in)",
                "@28",
                "TOP.enq_valid",
                "@24",
                "TOP.enq_port[4:0]",
                "@200",
                "-csr (out)",
                "@22",
                "TOP.csr_rdata[31:0]"
            ]
        );
    }
}
