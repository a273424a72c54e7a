//! The fine-detail gain (TERRAIN.md §6): a global g ∈ [0, 1], starting at 1, that moves the
//! mesh's depth cap from the finest available level back towards `FINE_DETAIL_LEVEL` (L14).
//! Each frame whose read-back counters show any split wish only the finer levels allow
//! (`Control::fine_split_wishes`) multiplies g by 0.8, and g snaps to 0 below 1 %. Nothing but a
//! settings change or an explicit reset raises it again: a gain that recovered would let the
//! same splits back and attenuate again, pumping (docs/earth.md "Fine-detail gain").

use crate::params::{FINE_GAIN_DECAY, FINE_GAIN_SNAP};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FineDetailGain {
    value: f64,
    /// Frames that attenuated it since the last reset.
    attenuations: u32,
}

impl Default for FineDetailGain {
    fn default() -> Self {
        FineDetailGain {
            value: 1.0,
            attenuations: 0,
        }
    }
}

impl FineDetailGain {
    pub fn value(&self) -> f64 {
        self.value
    }

    pub fn attenuations(&self) -> u32 {
        self.attenuations
    }

    /// One read-back frame's count of split wishes that only levels finer than L14 allow.
    /// Returns whether the gain changed.
    pub fn observe(&mut self, fine_split_wishes: u32) -> bool {
        if fine_split_wishes == 0 || self.value == 0.0 {
            return false;
        }
        self.attenuations += 1;
        let g = self.value * FINE_GAIN_DECAY;
        self.value = if g < FINE_GAIN_SNAP { 0.0 } else { g };
        true
    }

    /// Back to 1 (a settings change or the user's reset).
    pub fn reset(&mut self) {
        *self = FineDetailGain::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attenuates_by_exactly_0_8_per_frame_with_fine_splits() {
        let mut g = FineDetailGain::default();
        assert_eq!(g.value(), 1.0);
        let mut expect = 1.0f64;
        for n in 1..=20 {
            assert!(g.observe(n));
            expect *= 0.8;
            assert_eq!(g.value(), expect, "frame {n}");
        }
        // 0.8^20 = 0.0115 ≥ 1 %; the 21st (0.0092) snaps to exactly 0.
        assert!((g.value() - 0.011529215046068483).abs() < 1e-15);
        assert!(g.observe(7));
        assert_eq!(g.value(), 0.0);
        assert_eq!(g.attenuations(), 21);
        // Zero stays zero, and is not counted again.
        assert!(!g.observe(100));
        assert_eq!((g.value(), g.attenuations()), (0.0, 21));
    }

    #[test]
    fn holds_its_value_without_fine_splits_and_never_rises() {
        let mut g = FineDetailGain::default();
        g.observe(3);
        g.observe(1);
        let held = g.value();
        assert_eq!(held, 0.8 * 0.8);
        for _ in 0..1000 {
            assert!(!g.observe(0));
        }
        assert_eq!(g.value(), held);
        // Alternating frames with and without: monotone, never up.
        let mut last = g.value();
        for n in 0..40u32 {
            g.observe(n % 2);
            assert!(g.value() <= last);
            last = g.value();
        }
        assert_eq!(g.value(), 0.0);
        g.reset();
        assert_eq!((g.value(), g.attenuations()), (1.0, 0));
    }
}
