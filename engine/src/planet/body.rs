//! A spherical body: radius and the level → texel-size ladder.

use crate::params::EARTH_RADIUS_M;
use std::f64::consts::PI;

/// A planet as the tile hierarchy sees it: a sphere (the datum) of `radius` metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Datum radius, metres.
    pub radius: f64,
}

impl Body {
    pub const EARTH: Body = Body {
        radius: EARTH_RADIUS_M,
    };

    /// Texel size at L0, metres: a quarter great circle (one face edge, π/2·R) over 512
    /// texels = R·π/1024 (19.54 km for Earth).
    pub fn texel0(&self) -> f64 {
        self.radius * PI / 1024.0
    }

    /// Texel size at level `level`, metres (halves per level).
    pub fn texel(&self, level: u8) -> f64 {
        self.texel0() / (1u64 << level) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earth_texel_ladder_matches_design() {
        let e = Body::EARTH;
        assert!((e.texel0() - 19_545.9).abs() < 1.0, "{}", e.texel0());
        assert!((e.texel(9) - 38.18).abs() < 0.01);
        assert!((e.texel(18) - 0.0746).abs() < 1e-3);
    }
}
