//! The pipeline latency of a model, kept apart from its logic.
//!
//! A golden model computes the spec's results on the edge that samples the events, in the spec's
//! order; the RTL produces the same results some edges later, after its read, compute and write
//! stages. A [`DelayLine`] holds each edge's results, and every output bus reads them back at its
//! declared latency, so the model's logic stays the spec's logic and a deeper RTL pipeline
//! changes one number, not the model.

/// Pushes held: the deepest tap reads `CAPACITY - 1` pushes back. A power of two, so a tap is a
/// mask and the array index needs no bounds check (which costs the models about a tenth of
/// their speed when each output bus keeps its own copy of the results).
const CAPACITY: usize = 16;

/// A tapped delay line: each edge pushes its value once; [`DelayLine::tap`] returns the value
/// pushed `latency` pushes ago (`T::default()` before that many pushes since the reset).
#[derive(Clone, Debug)]
pub struct DelayLine<T> {
    slots: [T; CAPACITY],
    /// The slot of the latest push.
    head: usize,
}

impl<T: Copy + Default> DelayLine<T> {
    /// The deepest latency any tap will ask for.
    pub const MAX_LATENCY: u32 = CAPACITY as u32 - 1;

    pub fn new() -> DelayLine<T> {
        DelayLine {
            slots: [T::default(); CAPACITY],
            head: 0,
        }
    }

    /// Forgets every value in flight, as a synchronous reset of the pipeline registers does.
    pub fn reset(&mut self) {
        *self = DelayLine::new();
    }

    /// Records this edge's value.
    #[inline(always)]
    pub fn push(&mut self, value: T) {
        self.head = (self.head + 1) % CAPACITY;
        self.slots[self.head] = value;
    }

    /// The value pushed `latency` pushes ago (0: this edge's). `latency` must not exceed
    /// [`Self::MAX_LATENCY`]; blocks check their declared latencies against it when built.
    #[inline(always)]
    pub fn tap(&self, latency: u32) -> T {
        debug_assert!(
            latency <= Self::MAX_LATENCY,
            "latency {latency} beyond the delay line"
        );
        self.slots[(self.head + CAPACITY - latency as usize) % CAPACITY]
    }
}

impl<T: Copy + Default> Default for DelayLine<T> {
    fn default() -> Self {
        DelayLine::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tap_returns_the_value_pushed_latency_pushes_ago() {
        let mut d = DelayLine::<u32>::new();
        for v in 1..=40u32 {
            d.push(v);
            for latency in 0..=DelayLine::<u32>::MAX_LATENCY {
                assert_eq!(
                    d.tap(latency),
                    v.saturating_sub(latency),
                    "push {v}, tap {latency}"
                );
            }
        }
    }

    #[test]
    fn reset_drops_the_values_in_flight() {
        let mut d = DelayLine::<u32>::new();
        d.push(7);
        d.push(8);
        d.reset();
        d.push(9);
        assert_eq!((d.tap(0), d.tap(1), d.tap(2)), (9, 0, 0));
        d.push(10);
        assert_eq!((d.tap(0), d.tap(1), d.tap(2)), (10, 9, 0));
    }
}
