//! The pipeline latency of a model, kept apart from its logic.
//!
//! A golden model computes the spec's results on the edge that samples the events, in the spec's
//! order; the RTL produces the same results some edges later, after its read, compute and write
//! stages. A [`DelayLine`] per output bus (and per hardware-set register bit) holds each edge's
//! results for the block's declared latency, so the model's logic stays the spec's logic and a
//! deeper RTL pipeline changes one number, not the model.

/// A fixed-depth FIFO that returns, on each push, the value pushed `depth` pushes earlier
/// (`T::default()` for the first `depth` pushes after a reset). Depth 0 passes values through.
#[derive(Clone, Debug)]
pub struct DelayLine<T> {
    slots: Vec<T>,
    /// The slot holding the oldest value, which the next push returns and replaces.
    head: usize,
}

impl<T: Copy + Default> DelayLine<T> {
    pub fn new(depth: u32) -> DelayLine<T> {
        DelayLine {
            slots: vec![T::default(); depth as usize],
            head: 0,
        }
    }

    /// Forgets every value in flight, as a synchronous reset of the pipeline registers does.
    pub fn reset(&mut self) {
        self.slots.fill(T::default());
        self.head = 0;
    }

    /// Pushes this edge's value and returns the one pushed `depth` edges ago.
    #[inline(always)]
    pub fn push(&mut self, value: T) -> T {
        let Some(slot) = self.slots.get_mut(self.head) else {
            return value;
        };
        let out = std::mem::replace(slot, value);
        self.head += 1;
        if self.head == self.slots.len() {
            self.head = 0;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_each_value_depth_pushes_later() {
        for depth in 0..5u32 {
            let mut d = DelayLine::<u32>::new(depth);
            let out: Vec<u32> = (1..=10).map(|v| d.push(v)).collect();
            let expect: Vec<u32> = (1..=10u32).map(|v| v.saturating_sub(depth)).collect();
            assert_eq!(out, expect, "depth {depth}");
        }
    }

    #[test]
    fn reset_drops_the_values_in_flight() {
        let mut d = DelayLine::<u32>::new(2);
        d.push(7);
        d.push(8);
        d.reset();
        assert_eq!(d.push(9), 0);
        assert_eq!(d.push(10), 0);
        assert_eq!(d.push(11), 9);
        assert_eq!(d.push(12), 10);
    }
}
