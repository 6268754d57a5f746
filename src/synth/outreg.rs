//! Packs the flip-flops that register a DP16KD's read data into the block RAM's own output
//! register (REGMODE OUTREG), in the yosys JSON netlist, before nextpnr-ecp5 places it.
//!
//! Without its output register a DP16KD's data appear 5.8 ns after the clock (nextpnr-ecp5,
//! speed grade 6), most of a 150 MHz cycle; with it, 1.0 ns. The Verilog says what the
//! hardware does: a register right behind the RAM's read data (a read latency of two edges).
//! Lattice's own synthesis packs such a register into the primitive; yosys `synth_ecp5` does
//! not (yosys issue 5814: it sets REGMODE only on a DP16KD the Verilog instantiates), so the
//! flow does it here. Function is unchanged: an OUTREG is a D flip-flop on the same clock.
//!
//! A port's data bits are packed only all together (REGMODE is per port) and only when each
//! used bit feeds exactly one TRELLIS_FF, on its D input, clocked by the port's clock, with no
//! clock enable, no set/reset and no global set/reset, and the port's own output clock enable
//! is 1 and its reset 0. Ports 18 bits wide or less only: in the 36-bit pseudo-dual-port mode
//! both ports' data pins carry the one read port's word, which this pass leaves alone.

use serde_json::Value;
use std::collections::BTreeMap;

/// Packs what it can in every module of `netlist`; returns the number of flip-flops packed.
pub fn absorb_output_registers(netlist: &mut Value) -> u64 {
    let Some(modules) = netlist.get_mut("modules").and_then(Value::as_object_mut) else {
        return 0;
    };
    modules.values_mut().map(absorb_in_module).sum()
}

/// A net's sinks: (cell, port), or ("", port name) for a module output.
fn sinks(module: &Value) -> BTreeMap<u64, Vec<(String, String)>> {
    let mut sinks: BTreeMap<u64, Vec<(String, String)>> = BTreeMap::new();
    for (name, cell) in obj(module, "cells") {
        for (port, bits) in obj(cell, "connections") {
            if cell["port_directions"][port.as_str()] != "output" {
                for bit in bits
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_u64)
                {
                    sinks
                        .entry(bit)
                        .or_default()
                        .push((name.clone(), port.clone()));
                }
            }
        }
    }
    for (port, p) in obj(module, "ports") {
        if p["direction"] != "input" {
            for bit in p["bits"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
            {
                sinks
                    .entry(bit)
                    .or_default()
                    .push((String::new(), port.clone()));
            }
        }
    }
    sinks
}

fn obj<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = (&'a String, &'a Value)> {
    v.get(key).and_then(Value::as_object).into_iter().flatten()
}

/// A parameter as yosys writes it (strings padded with a space when they could read as bits).
fn param<'a>(cell: &'a Value, name: &str) -> &'a str {
    cell["parameters"][name].as_str().unwrap_or("").trim_end()
}

/// An integer parameter (yosys writes them as binary strings).
fn int_param(cell: &Value, name: &str) -> Option<u64> {
    match &cell["parameters"][name] {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => u64::from_str_radix(s.trim(), 2).ok(),
        _ => None,
    }
}

/// The single bit on `port`: a net number, or a constant's text ("0", "1", "x").
fn pin(cell: &Value, port: &str) -> Option<Value> {
    match cell["connections"][port].as_array().map(Vec::as_slice) {
        Some([bit]) => Some(bit.clone()),
        _ => None,
    }
}

/// Whether `ff` is a plain D flip-flop on net `clock`: no enable, set/reset or GSR.
fn plain_ff_on(ff: &Value, clock: u64) -> bool {
    ff["type"] == "TRELLIS_FF"
        && param(ff, "GSR") == "DISABLED"
        && param(ff, "CLKMUX") == "CLK"
        && pin(ff, "CLK").and_then(|c| c.as_u64()) == Some(clock)
        && param(ff, "CEMUX") == "1"
        && pin(ff, "LSR").is_none_or(|l| l == "0")
}

fn absorb_in_module(module: &mut Value) -> u64 {
    let sinks = sinks(module);
    let mut rams: Vec<String> = obj(module, "cells")
        .filter(|(_, c)| c["type"] == "DP16KD")
        .map(|(n, _)| n.clone())
        .collect();
    rams.sort();
    let mut packed = 0;
    for ram_name in rams {
        for side in ["A", "B"] {
            let cells = &module["cells"];
            let ram = &cells[ram_name.as_str()];
            let narrow = ["DATA_WIDTH_A", "DATA_WIDTH_B"]
                .iter()
                .all(|p| int_param(ram, p).is_some_and(|w| w <= 18));
            let clock = pin(ram, &format!("CLK{side}")).and_then(|c| c.as_u64());
            let (Some(clock), true) = (clock, narrow) else {
                continue;
            };
            if param(ram, &format!("REGMODE_{side}")) != "NOREG"
                || param(ram, &format!("CLK{side}MUX")) != format!("CLK{side}")
                || pin(ram, &format!("OCE{side}")) != Some("1".into())
                || pin(ram, &format!("RST{side}")) != Some("0".into())
            {
                continue;
            }
            // (data pin, flip-flop) for every used data bit, or None if one is not packable.
            let mut moves = Vec::new();
            let all_packable = (0..18).all(|i| {
                let data = format!("DO{side}{i}");
                let Some(net) = pin(ram, &data).and_then(|b| b.as_u64()) else {
                    return true;
                };
                match sinks.get(&net).map(Vec::as_slice) {
                    None | Some([]) => true,
                    Some([(ff, port)])
                        if port == "DI" && plain_ff_on(&cells[ff.as_str()], clock) =>
                    {
                        moves.push((data, ff.clone()));
                        true
                    }
                    Some(_) => false,
                }
            });
            if !all_packable || moves.is_empty() {
                continue;
            }
            let cells = module["cells"]
                .as_object_mut()
                .expect("cells were listed above");
            for (data, ff) in &moves {
                let q = cells[ff.as_str()]["connections"]["Q"].clone();
                cells[ram_name.as_str()]["connections"][data.as_str()] = q;
                cells.remove(ff.as_str());
            }
            cells[ram_name.as_str()]["parameters"][format!("REGMODE_{side}")] = "OUTREG".into();
            packed += moves.len() as u64;
        }
    }
    packed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A DP16KD (x18 both ports, clock net 2) whose port B bits 0 and 1 drive nets 10 and 11,
    /// each registered by a flip-flop into nets 20 and 21; `ff1` overrides the second one.
    fn netlist(ff1: Value, ram_params: Value) -> Value {
        let mut params = json!({
            "DATA_WIDTH_A": "00000000000000000000000000010010",
            "DATA_WIDTH_B": "00000000000000000000000000010010",
            "REGMODE_A": "NOREG", "REGMODE_B": "NOREG", "CLKAMUX": "CLKA", "CLKBMUX": "CLKB"
        });
        for (k, v) in ram_params.as_object().unwrap() {
            params[k] = v.clone();
        }
        let ff = |d: u64, q: u64| {
            json!({
                "type": "TRELLIS_FF",
                "parameters": {"CEMUX": "1 ", "CLKMUX": "CLK", "GSR": "DISABLED", "LSRMUX": "LSR"},
                "port_directions": {"CLK": "input", "LSR": "input", "DI": "input", "Q": "output"},
                "connections": {"CLK": [2], "LSR": ["0"], "DI": [d], "Q": [q]}
            })
        };
        let mut ff1_cell = ff(11, 21);
        for (k, v) in ff1.as_object().unwrap() {
            ff1_cell[k] = v.clone();
        }
        json!({"modules": {"top": {
            "ports": {"q": {"direction": "output", "bits": [20, 21]}},
            "cells": {
                "ram": {
                    "type": "DP16KD",
                    "parameters": params,
                    "port_directions": {"CLKA": "input", "CLKB": "input", "OCEA": "input",
                        "OCEB": "input", "RSTA": "input", "RSTB": "input",
                        "DOB0": "output", "DOB1": "output", "DOB2": "output"},
                    "connections": {"CLKA": [2], "CLKB": [2], "OCEA": ["1"], "OCEB": ["1"],
                        "RSTA": ["0"], "RSTB": ["0"], "DOB0": [10], "DOB1": [11], "DOB2": [12]}
                },
                "ff0": ff(10, 20),
                "ff1": ff1_cell
            }
        }}})
    }

    fn regmode_b(n: &Value) -> &str {
        n["modules"]["top"]["cells"]["ram"]["parameters"]["REGMODE_B"]
            .as_str()
            .unwrap()
    }

    #[test]
    fn registers_behind_a_port_become_its_output_register() {
        let mut n = netlist(json!({}), json!({}));
        assert_eq!(absorb_output_registers(&mut n), 2);
        let top = &n["modules"]["top"];
        assert_eq!(regmode_b(&n), "OUTREG");
        assert_eq!(top["cells"]["ram"]["connections"]["DOB0"], json!([20]));
        assert_eq!(top["cells"]["ram"]["connections"]["DOB1"], json!([21]));
        // The unused bit stays where it was; the flip-flops are gone.
        assert_eq!(top["cells"]["ram"]["connections"]["DOB2"], json!([12]));
        assert!(top["cells"].get("ff0").is_none() && top["cells"].get("ff1").is_none());
        assert_eq!(top["cells"]["ram"]["parameters"]["REGMODE_A"], "NOREG");
    }

    #[test]
    fn a_port_is_left_alone_unless_every_used_bit_is_packable() {
        let not_packable = [
            // another clock, an enable, a reset, a global set/reset
            json!({"connections": {"CLK": [3], "LSR": ["0"], "DI": [11], "Q": [21]}}),
            json!({"parameters": {"CEMUX": "CE", "CLKMUX": "CLK", "GSR": "DISABLED"}}),
            json!({"connections": {"CLK": [2], "LSR": [4], "DI": [11], "Q": [21]}}),
            json!({"parameters": {"CEMUX": "1", "CLKMUX": "CLK", "GSR": "ENABLED"}}),
            // not a flip-flop at all: the data bit goes through logic first
            json!({"type": "LUT4"}),
        ];
        for ff1 in not_packable {
            let mut n = netlist(ff1.clone(), json!({}));
            assert_eq!(absorb_output_registers(&mut n), 0, "{ff1}");
            assert_eq!(regmode_b(&n), "NOREG", "{ff1}");
            assert!(n["modules"]["top"]["cells"].get("ff0").is_some(), "{ff1}");
        }
    }

    #[test]
    fn a_data_bit_with_a_second_sink_is_not_packable() {
        let mut n = netlist(json!({}), json!({}));
        n["modules"]["top"]["ports"]["raw"] = json!({"direction": "output", "bits": [10]});
        assert_eq!(absorb_output_registers(&mut n), 0);
        assert_eq!(regmode_b(&n), "NOREG");
    }

    #[test]
    fn ports_already_registered_wide_or_inverted_are_left_alone() {
        for params in [
            json!({"REGMODE_B": "OUTREG"}),
            json!({"DATA_WIDTH_B": "00000000000000000000000000100100"}),
            json!({"CLKBMUX": "INV"}),
        ] {
            let mut n = netlist(json!({}), params.clone());
            assert_eq!(absorb_output_registers(&mut n), 0, "{params}");
        }
    }
}
