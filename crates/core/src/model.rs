//! The cycle-model contract.
//!
//! One call of [`CycleModel::step`] is one rising clock edge: the inputs are those sampled at the
//! edge, the returned outputs are the block's registered outputs just after it. A block with
//! latency L returns, at step n, the results of the inputs of step n - L.

use crate::port::PortSchema;

/// A typed bundle of port values, convertible to and from the schema's value order.
pub trait PortValues: Default + Clone {
    /// Write the values in schema order (inputs or outputs, whichever this bundle is).
    fn to_values(&self, values: &mut [u64]);
    /// Read a bundle from values in schema order. Values are already masked to port width.
    fn from_values(values: &[u64]) -> Self;
}

pub trait CycleModel {
    type In: PortValues;
    type Out: PortValues;

    /// The port schema of this instance (depends on its config).
    fn ports(&self) -> &PortSchema;
    /// Synchronous reset: every register and RAM entry to its reset value.
    fn reset(&mut self);
    /// One rising clock edge. Implementations mark it `#[inline]` so that callers in other
    /// crates (the co-simulation's producer, the benchmark) can inline it: worth about 8% on
    /// PFC `tiny`.
    fn step(&mut self, inputs: &Self::In) -> Self::Out;
}

/// Object-safe view of a [`CycleModel`] over raw port values, for the CLI and co-simulation.
pub trait DynModel {
    fn ports(&self) -> &PortSchema;
    fn reset(&mut self);
    fn step_values(&mut self, inputs: &[u64], outputs: &mut [u64]);
}

impl<M: CycleModel> DynModel for M {
    fn ports(&self) -> &PortSchema {
        CycleModel::ports(self)
    }

    fn reset(&mut self) {
        CycleModel::reset(self)
    }

    fn step_values(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let out = self.step(&M::In::from_values(inputs));
        out.to_values(outputs);
    }
}
