//! A block's model and its Verilog stepped together on inputs a test computes cycle by cycle
//! (from the outputs so far: loopbacks, reactive stimuli), every output compared every cycle.

use switchcraft::BlockConfig;
use switchcraft_core::{DynModel, PortValues};
use switchcraft_sim::VerilatedModel;

pub struct Lockstep {
    model: Box<dyn DynModel + Send>,
    rtl: VerilatedModel,
    inputs: Vec<u64>,
    expected: Vec<u64>,
    actual: Vec<u64>,
    cycle: u64,
    what: String,
}

impl Lockstep {
    /// `cfg` exported as instance `<block>_<name>`, both sides reset; `what` names the run in
    /// a failure.
    pub fn new(cfg: &BlockConfig, name: &str, what: &str) -> Lockstep {
        let mut rtl = super::verilated(cfg, name);
        let mut model = cfg.model();
        let s = cfg.schema();
        model.reset();
        rtl.reset(1);
        Lockstep {
            model,
            rtl,
            inputs: vec![0; s.input_count()],
            expected: vec![0; s.output_count()],
            actual: vec![0; s.output_count()],
            cycle: 0,
            what: format!("{} {name} {what}", cfg.block()),
        }
    }

    /// One edge on both sides; panics, naming the cycle, if any output differs.
    pub fn step<I: PortValues, O: PortValues>(&mut self, i: &I) -> O {
        i.to_values(&mut self.inputs);
        self.model.step_values(&self.inputs, &mut self.expected);
        self.rtl.step(&self.inputs, &mut self.actual);
        assert_eq!(
            self.expected, self.actual,
            "{}, cycle {}: model vs RTL outputs (schema order)",
            self.what, self.cycle
        );
        self.cycle += 1;
        O::from_values(&self.actual)
    }
}
