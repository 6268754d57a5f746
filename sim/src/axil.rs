//! AXI4-Lite co-simulation: a seeded bus-functional master with random wait states drives a
//! block's `<instance>_axil_top` and its model (`switchcraft_core::axil::AxilBlock`) in
//! lockstep, while the block's own events run on its other inputs.
//!
//! Every output is compared every cycle, as in [`crate::cosim`]. Independently of the model,
//! the master checks the slave against the AXI4-Lite rules (a response only for a request
//! whose handshakes are done, in order; `bvalid`/`rvalid` and their payload held until
//! `bready`/`rready`; valid low after reset) and against the register map (SLVERR exactly
//! where the access rules say, 0 read from an unmapped word, a constant word's value).

use crate::cosim::PortDiff;
use crate::error::SimError;
use crate::verilator::VerilatedModel;
use std::collections::VecDeque;
use switchcraft_core::axil::{AxilIn, AxilOut, Rules, ADDR_BITS, DECERR, OKAY, SLVERR};
use switchcraft_core::csr::{Access, RegMap};
use switchcraft_core::rng::SplitMix64;
use switchcraft_core::{mask, DynModel, PortSchema};

/// How often the master acts, in percent per cycle.
#[derive(Clone, Copy, Debug)]
pub struct MasterOptions {
    /// A new write (read) is issued on a cycle with this chance, when the previous one's
    /// address and data have been taken.
    pub write_percent: u64,
    pub read_percent: u64,
    /// `bready` (`rready`) is high on a cycle with this chance: the master's wait states.
    pub bready_percent: u64,
    pub rready_percent: u64,
    /// Largest delay, in cycles, before `awvalid` and before `wvalid` (drawn apart).
    pub max_valid_delay: u64,
}

impl Default for MasterOptions {
    fn default() -> Self {
        MasterOptions {
            write_percent: 20,
            read_percent: 25,
            bready_percent: 60,
            rready_percent: 60,
            max_valid_delay: 3,
        }
    }
}

/// What the master did and saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MasterCounts {
    pub writes_okay: u64,
    pub writes_refused: u64,
    pub reads_okay: u64,
    pub reads_refused: u64,
    /// Writes that strobed fewer byte lanes than their field occupies.
    pub partial_strobes: u64,
    /// Transactions to an address no slave decodes (answered DECERR; in the counts above too).
    pub decode_errors: u64,
}

/// A pending write: its address phase and data phase go separately.
#[derive(Clone, Copy, Debug)]
struct Write {
    addr: u64,
    data: u64,
    strb: u64,
    aw_delay: u64,
    w_delay: u64,
    aw_done: bool,
    w_done: bool,
}

#[derive(Clone, Copy, Debug)]
struct Read {
    addr: u64,
    delay: u64,
}

/// The expected response of a transaction whose handshakes are done.
#[derive(Clone, Copy, Debug)]
struct Expect {
    resp: u64,
    /// Read data the register map fixes (a constant word, 0 on an error); `None`: the model's.
    data: Option<u64>,
    addr: u64,
}

/// One slave in the master's address space: a block's register map at a base address.
struct Slave {
    base: u64,
    rules: Rules,
    /// Per word: the value a read must return when the map fixes it (constants).
    fixed: [Option<u64>; 64],
    /// Words of the map, for picking addresses.
    words: Vec<u64>,
}

/// The bus-functional AXI4-Lite master and protocol checker.
pub struct AxilMaster {
    rng: SplitMix64,
    opts: MasterOptions,
    slaves: Vec<Slave>,
    /// Width of the byte addresses it drives.
    addr_bits: u32,
    write: Option<Write>,
    read: Option<Read>,
    b_expected: VecDeque<Expect>,
    r_expected: VecDeque<Expect>,
    /// The slave's outputs and the master's ready in the previous cycle (stability checks).
    last_out: AxilOut,
    last_in: AxilIn,
    counts: MasterCounts,
}

impl AxilMaster {
    /// A master of one block's AXI4-Lite slave (`<instance>_axil_top`).
    pub fn new(map: &RegMap, seed: u64, opts: MasterOptions) -> Self {
        Self::with_slaves(&[(0, map)], ADDR_BITS, seed, opts)
    }

    /// A master of an interconnect: each register map at its base address (a multiple of
    /// 2^`ADDR_BITS`), `addr_bits`-bit byte addresses. An address in no slave's window must be
    /// answered DECERR (read data 0).
    pub fn with_slaves(
        maps: &[(u64, &RegMap)],
        addr_bits: u32,
        seed: u64,
        opts: MasterOptions,
    ) -> Self {
        let window = 1u64 << ADDR_BITS;
        assert!(!maps.is_empty() && (ADDR_BITS..32).contains(&addr_bits));
        let slaves = maps
            .iter()
            .map(|&(base, map)| {
                assert!(
                    base % window == 0 && base < 1 << addr_bits,
                    "base {base:#x}"
                );
                let mut fixed = [None; 64];
                for r in map.regs.iter().filter(|r| r.access == Access::Const) {
                    fixed[r.index as usize] = Some(r.reset);
                }
                Slave {
                    base,
                    rules: Rules::new(map),
                    fixed,
                    words: map.regs.iter().map(|r| u64::from(r.index)).collect(),
                }
            })
            .collect();
        AxilMaster {
            rng: SplitMix64::new(seed),
            opts,
            slaves,
            addr_bits,
            write: None,
            read: None,
            b_expected: VecDeque::new(),
            r_expected: VecDeque::new(),
            last_out: AxilOut::default(),
            last_in: AxilIn::default(),
            counts: MasterCounts::default(),
        }
    }

    pub fn counts(&self) -> MasterCounts {
        self.counts
    }

    /// A byte address: mostly a register's word of some slave, sometimes any word of some
    /// slave (unmapped ones included), now and then any address at all; bits 1:0 random, which
    /// the slave ignores.
    fn pick_addr(&mut self) -> u64 {
        if self.slaves.len() > 1 && self.rng.chance(5) {
            return self.rng.below(1 << self.addr_bits);
        }
        let s = &self.slaves[self.rng.below(self.slaves.len() as u64) as usize];
        let word = if self.rng.chance(80) {
            s.words[self.rng.below(s.words.len() as u64) as usize]
        } else {
            self.rng.below(64)
        };
        s.base | word << 2 | self.rng.below(4)
    }

    /// What the slave must answer to an access of `addr`: the response, for a read the data
    /// the map fixes (`None`: the model's), and the address, for messages.
    fn expect(&mut self, addr: u64, write: Option<u64>) -> Expect {
        let window = addr >> ADDR_BITS << ADDR_BITS;
        let word = addr >> 2 & mask(ADDR_BITS - 2);
        let Some(s) = self.slaves.iter().find(|s| s.base == window) else {
            self.counts.decode_errors += 1;
            return Expect {
                resp: DECERR,
                data: Some(0),
                addr,
            };
        };
        match write {
            Some(strb) => {
                let ok = s.rules.write_ok(word, strb);
                let full = s.rules.readable >> word & 1 == 1 && s.rules.writable >> word & 1 == 1;
                if full && !ok {
                    self.counts.partial_strobes += 1;
                }
                Expect {
                    resp: if ok { OKAY } else { SLVERR },
                    data: None,
                    addr,
                }
            }
            None => {
                let ok = s.rules.read_ok(word);
                Expect {
                    resp: if ok { OKAY } else { SLVERR },
                    data: if ok { s.fixed[word as usize] } else { Some(0) },
                    addr,
                }
            }
        }
    }

    /// The inputs of this cycle, given the slave's outputs in it (those after the previous
    /// edge), after checking those outputs. The handshakes of this cycle are accounted here.
    pub fn drive(&mut self, out: &AxilOut) -> Result<AxilIn, String> {
        self.check(out)?;
        if self.write.is_none() && self.rng.chance(self.opts.write_percent) {
            let d = self.opts.max_valid_delay + 1;
            self.write = Some(Write {
                addr: self.pick_addr(),
                data: self.rng.next_u64() & 0xffff_ffff,
                strb: if self.rng.chance(80) {
                    0xf
                } else {
                    self.rng.below(16)
                },
                aw_delay: self.rng.below(d),
                w_delay: self.rng.below(d),
                aw_done: false,
                w_done: false,
            });
        }
        if self.read.is_none() && self.rng.chance(self.opts.read_percent) {
            self.read = Some(Read {
                addr: self.pick_addr(),
                delay: self.rng.below(self.opts.max_valid_delay + 1),
            });
        }
        let mut i = AxilIn {
            bready: self.rng.chance(self.opts.bready_percent),
            rready: self.rng.chance(self.opts.rready_percent),
            // Payloads when not valid are noise: the slave must not look at them.
            awaddr: self.rng.below(1 << self.addr_bits),
            wdata: self.rng.next_u64() & 0xffff_ffff,
            wstrb: self.rng.below(16),
            araddr: self.rng.below(1 << self.addr_bits),
            ..AxilIn::default()
        };
        if let Some(w) = &mut self.write {
            if !w.aw_done {
                if w.aw_delay == 0 {
                    i.awvalid = true;
                    i.awaddr = w.addr;
                } else {
                    w.aw_delay -= 1;
                }
            }
            if !w.w_done {
                if w.w_delay == 0 {
                    i.wvalid = true;
                    i.wdata = w.data;
                    i.wstrb = w.strb;
                } else {
                    w.w_delay -= 1;
                }
            }
            w.aw_done |= i.awvalid && out.awready;
            w.w_done |= i.wvalid && out.wready;
            if w.aw_done && w.w_done {
                let (addr, strb) = (w.addr, w.strb);
                self.write = None;
                let e = self.expect(addr, Some(strb));
                self.b_expected.push_back(e);
            }
        }
        if let Some(r) = &mut self.read {
            if r.delay == 0 {
                i.arvalid = true;
                i.araddr = r.addr;
            } else {
                r.delay -= 1;
            }
            if i.arvalid && out.arready {
                let addr = r.addr;
                self.read = None;
                let e = self.expect(addr, None);
                self.r_expected.push_back(e);
            }
        }
        if out.bvalid && i.bready {
            let e = self.b_expected.pop_front().expect("checked in check()");
            if e.resp == OKAY {
                self.counts.writes_okay += 1;
            } else {
                self.counts.writes_refused += 1;
            }
        }
        if out.rvalid && i.rready {
            let e = self.r_expected.pop_front().expect("checked in check()");
            if e.resp == OKAY {
                self.counts.reads_okay += 1;
            } else {
                self.counts.reads_refused += 1;
            }
        }
        self.last_out = *out;
        self.last_in = i;
        Ok(i)
    }

    /// The slave's outputs of this cycle against the protocol and the register map.
    fn check(&self, out: &AxilOut) -> Result<(), String> {
        let (last, held_b, held_r) = (
            &self.last_out,
            self.last_out.bvalid && !self.last_in.bready,
            self.last_out.rvalid && !self.last_in.rready,
        );
        if held_b && (!out.bvalid || out.bresp != last.bresp) {
            return Err(format!(
                "bvalid/bresp changed before bready: was 1/{}, now {}/{}",
                last.bresp,
                u8::from(out.bvalid),
                out.bresp
            ));
        }
        if held_r && (!out.rvalid || out.rresp != last.rresp || out.rdata != last.rdata) {
            return Err(format!(
                "rvalid/rresp/rdata changed before rready: was 1/{}/{:#x}, now {}/{}/{:#x}",
                last.rresp,
                last.rdata,
                u8::from(out.rvalid),
                out.rresp,
                out.rdata
            ));
        }
        if out.bvalid {
            let Some(e) = self.b_expected.front() else {
                return Err("bvalid with no write whose handshakes are done".into());
            };
            if out.bresp != e.resp {
                return Err(format!(
                    "bresp {} for a write to {:#x}, the register map says {}",
                    out.bresp, e.addr, e.resp
                ));
            }
        }
        if out.rvalid {
            let Some(e) = self.r_expected.front() else {
                return Err("rvalid with no read whose address was taken".into());
            };
            if out.rresp != e.resp {
                return Err(format!(
                    "rresp {} for a read of {:#x}, the register map says {}",
                    out.rresp, e.addr, e.resp
                ));
            }
            if let Some(d) = e.data.filter(|&d| d != out.rdata) {
                return Err(format!(
                    "rdata {:#x} for a read of {:#x}, the register map says {d:#x}",
                    out.rdata, e.addr
                ));
            }
        }
        Ok(())
    }
}

/// The outcome of a lockstep run.
#[derive(Clone, Debug)]
pub struct AxilReport {
    pub cycles: u64,
    pub counts: MasterCounts,
    /// The first cycle where model and RTL differ, and each output that differs on it.
    pub mismatch: Option<(u64, Vec<PortDiff>)>,
    /// The first protocol or register-map violation, and its cycle.
    pub violation: Option<(u64, String)>,
}

impl AxilReport {
    pub fn passed(&self) -> bool {
        self.mismatch.is_none() && self.violation.is_none()
    }
}

/// Positions of the AXI4-Lite ports in a schema's value order.
fn axil_positions(schema: &PortSchema) -> (usize, usize) {
    (
        schema
            .input_index("s_axil_awvalid")
            .expect("AXI4-Lite schema"),
        schema
            .output_index("s_axil_awready")
            .expect("AXI4-Lite schema"),
    )
}

/// Runs `model` (an `AxilBlock`) and `rtl` (its `<instance>_axil_top`) for `cycles` cycles:
/// `events` fills each cycle's row of the block's own inputs (`block` schema order; its CSR
/// inputs are ignored), `master` drives the AXI4-Lite ports. Stops at the first mismatch or
/// violation. Both sides are reset first (`reset_cycles` of `rst` for the RTL).
pub fn run_lockstep(
    model: &mut dyn DynModel,
    rtl: &mut VerilatedModel,
    block: &PortSchema,
    events: &mut dyn FnMut(&mut [u64]),
    master: &mut AxilMaster,
    cycles: u64,
    reset_cycles: u32,
) -> Result<AxilReport, SimError> {
    crate::cosim::check_schemas(model.ports(), rtl.schema())?;
    let schema = model.ports().clone();
    let (ax_in, ax_out) = axil_positions(&schema);
    // Per input of the AXI4-Lite schema: its position in the block's row (None: AXI4-Lite).
    let from_block: Vec<Option<usize>> = schema
        .inputs()
        .map(|p| block.input_index(&p.name))
        .collect();
    let names: Vec<String> = schema.outputs().map(|p| p.name.clone()).collect();
    let mut row = vec![0u64; block.input_count()];
    let mut inputs = vec![0u64; schema.input_count()];
    let (mut expected, mut actual) = (
        vec![0u64; schema.output_count()],
        vec![0u64; schema.output_count()],
    );
    model.reset();
    rtl.reset(reset_cycles);
    let mut report = AxilReport {
        cycles: 0,
        counts: MasterCounts::default(),
        mismatch: None,
        violation: None,
    };
    // Valid outputs are low after reset: the master sees all-zero outputs first.
    let mut out = AxilOut::default();
    for cycle in 0..cycles {
        events(&mut row);
        for (k, from) in from_block.iter().enumerate() {
            if let Some(b) = from {
                inputs[k] = row[*b];
            }
        }
        let i = match master.drive(&out) {
            Ok(i) => i,
            Err(v) => {
                report.violation = Some((cycle, v));
                break;
            }
        };
        inputs[ax_in..ax_in + 9].copy_from_slice(&i.to_values());
        model.step_values(&inputs, &mut expected);
        rtl.step(&inputs, &mut actual);
        report.cycles = cycle + 1;
        if expected != actual {
            let diffs = (0..names.len())
                .filter(|&k| expected[k] != actual[k])
                .map(|k| PortDiff {
                    port: names[k].clone(),
                    expected: expected[k],
                    actual: actual[k],
                })
                .collect();
            report.mismatch = Some((cycle, diffs));
            break;
        }
        out = AxilOut::from_values(&actual[ax_out..ax_out + 8]);
    }
    report.counts = master.counts();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchcraft_core::axil::{Bridge, Phase};
    use switchcraft_core::csr::{CsrFile, Reg};

    fn map() -> RegMap {
        let reg = |name, index, width, access, reset| Reg {
            name,
            index,
            width,
            access,
            reset,
            doc: "",
        };
        RegMap::new(
            "t",
            vec![
                reg("id", 0, 32, Access::Const, 0xabcd),
                reg("a", 1, 12, Access::Rw, 0),
                reg("s", 2, 8, Access::Ro, 0),
            ],
        )
    }

    /// The master against the model bridge on a register file; `tamper` may corrupt the
    /// bridge's outputs before the master sees them.
    fn run(cycles: u64, tamper: impl Fn(u64, &mut AxilOut, Phase)) -> Result<MasterCounts, String> {
        let map = map();
        let mut bridge = Bridge::new(Rules::new(&map));
        let mut csr = CsrFile::new(&map);
        let mut master = AxilMaster::new(&map, 7, MasterOptions::default());
        let (mut out, mut rdata) = (AxilOut::default(), 0);
        for cycle in 0..cycles {
            let i = master.drive(&out)?;
            let d = bridge.csr();
            bridge.edge(&i, rdata);
            rdata = csr.access(d.we, d.addr, d.wdata);
            out = bridge.outputs();
            tamper(cycle, &mut out, bridge.phase());
        }
        Ok(master.counts())
    }

    #[test]
    fn the_model_bridge_passes_every_check_and_every_kind_of_access_happens() {
        let c = run(20_000, |_, _, _| {}).unwrap();
        assert!(c.writes_okay > 100 && c.writes_refused > 100, "{c:?}");
        assert!(c.reads_okay > 100 && c.reads_refused > 50, "{c:?}");
        assert!(c.partial_strobes > 20, "{c:?}");
    }

    #[test]
    fn the_checker_catches_each_broken_rule() {
        let dropped_b = run(20_000, |c, o, p| {
            if p == Phase::WriteResp && c % 2 == 1 {
                o.bvalid = false;
            }
        });
        assert!(dropped_b.is_err_and(|e| e.contains("before bready")));
        let spurious_r = run(20_000, |c, o, _| o.rvalid |= c == 5);
        assert!(spurious_r.is_err_and(|e| e.contains("rvalid with no read")));
        let wrong_resp = run(20_000, |_, o, _| o.bresp = OKAY);
        assert!(wrong_resp.is_err_and(|e| e.contains("bresp 0")));
        let wrong_id = run(20_000, |_, o, _| {
            if o.rdata == 0xabcd {
                o.rdata = 0xabce;
            }
        });
        assert!(wrong_id.is_err_and(|e| e.contains("rdata 0xabce")));
        let unstable = run(20_000, |c, o, _| o.rdata ^= c & 1);
        assert!(unstable.is_err());
    }
}
