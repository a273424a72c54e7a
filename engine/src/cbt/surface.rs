//! What EVAL samples: the `Surface` trait, and the analytic test planet, which the CPU model
//! samples directly and the GPU through tiles baked from it (`AnalyticSource::from_surface`).

use crate::planet::cube::Face;
use crate::planet::Body;
use glam::DVec3;

/// The terrain surface as the CBT sees it.
pub trait Surface {
    /// Datum radius, metres (the horizon cull's occluder).
    fn radius(&self) -> f64;
    /// Surface point over face coordinates (u, v) ∈ [−1, 1]², camera-relative: the planet-
    /// centred point minus `eye`, metres. Must be deterministic (same inputs, same bits).
    fn position(&self, face: Face, u: f64, v: f64, eye: DVec3) -> DVec3;
    /// Texel size of the finest level available at (u, v), metres (the depth cap's input).
    fn finest_texel(&self, face: Face, u: f64, v: f64) -> f64;
    /// The level of that texel.
    fn finest_level(&self, face: Face, u: f64, v: f64) -> u8;
}

/// One band-limited plane wave on the sphere: amp·sin(k·R·(dir·axis) + phase).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Wave {
    axis: DVec3,
    /// Wavenumber, radians per metre of arc (2π / wavelength).
    k: f64,
    amp: f64,
    phase: f64,
}

/// A test planet: a sphere plus a sum of sines, two per octave, wavelengths from 5,000 km down
/// to ≈ 2.4 m (22 octaves), amplitude 0.5 % of the wavelength capped at 600 m: each wave's
/// slope is ≤ 0.031, the sum's RMS slope ≈ 0.15 (≈ 8°, Earth-like land), heights within
/// ±8.8 km — relief at every scale the CBT refines for, from orbit to 2 m.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyticSurface {
    pub body: Body,
    /// The finest "resident" level the depth cap sees (a constant here).
    pub finest_level: u8,
    waves: Vec<Wave>,
}

impl AnalyticSurface {
    /// Longest wavelength, metres.
    pub const LONGEST_M: f64 = 5_000_000.0;
    pub const OCTAVES: u32 = 22;
    /// Amplitude / wavelength of each wave.
    pub const AMPLITUDE_RATIO: f64 = 0.005;
    /// Largest amplitude of one wave, metres.
    pub const AMPLITUDE_CAP_M: f64 = 600.0;

    pub fn new(radius: f64, finest_level: u8, seed: u64) -> AnalyticSurface {
        let mut s = seed ^ 0x9e37_79b9_7f4a_7c15;
        let mut rnd = move || {
            // splitmix64 → [0, 1)
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut waves = Vec::new();
        for o in 0..Self::OCTAVES {
            let lambda = Self::LONGEST_M / (1u64 << o) as f64;
            for _ in 0..2 {
                // Uniform direction on the sphere.
                let z = 2.0 * rnd() - 1.0;
                let a = std::f64::consts::TAU * rnd();
                let r = (1.0 - z * z).sqrt();
                waves.push(Wave {
                    axis: DVec3::new(r * a.cos(), r * a.sin(), z),
                    k: std::f64::consts::TAU / lambda,
                    amp: (Self::AMPLITUDE_RATIO * lambda).min(Self::AMPLITUDE_CAP_M),
                    phase: std::f64::consts::TAU * rnd(),
                });
            }
        }
        AnalyticSurface {
            body: Body { radius },
            finest_level,
            waves,
        }
    }

    /// Earth radius, L18 finest, fixed seed.
    pub fn earth() -> AnalyticSurface {
        AnalyticSurface::new(crate::params::EARTH_RADIUS_M, crate::params::MAX_LEVEL, 1)
    }

    /// Height above the datum along a unit direction, metres.
    pub fn height(&self, dir: DVec3) -> f64 {
        let r = self.body.radius;
        self.waves
            .iter()
            .map(|w| w.amp * (w.k * r * dir.dot(w.axis) + w.phase).sin())
            .sum()
    }

    /// Largest possible |height|, metres.
    pub fn max_relief(&self) -> f64 {
        self.waves.iter().map(|w| w.amp).sum()
    }

    /// Planet-centred surface point along a direction.
    pub fn point(&self, dir: DVec3) -> DVec3 {
        let d = dir.normalize();
        d * (self.body.radius + self.height(d))
    }
}

impl Surface for AnalyticSurface {
    fn radius(&self) -> f64 {
        self.body.radius
    }

    fn position(&self, face: Face, u: f64, v: f64, eye: DVec3) -> DVec3 {
        let d = face.direction(u, v);
        d * (self.body.radius + self.height(d)) - eye
    }

    fn finest_texel(&self, _face: Face, _u: f64, _v: f64) -> f64 {
        self.body.texel(self.finest_level)
    }

    fn finest_level(&self, _face: Face, _u: f64, _v: f64) -> u8 {
        self.finest_level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relief_is_earth_like_and_deterministic() {
        let s = AnalyticSurface::earth();
        assert!(
            s.max_relief() < 15_000.0 && s.max_relief() > 5_000.0,
            "{}",
            s.max_relief()
        );
        let d = DVec3::new(0.3, -0.4, 0.5).normalize();
        assert_eq!(s.height(d).to_bits(), s.height(d).to_bits());
        // Detail exists at metre scale: two points 1 m apart differ by millimetres or more.
        let d2 = (d * s.body.radius + DVec3::new(0.0, 0.0, 1.0)).normalize();
        assert!((s.height(d) - s.height(d2)).abs() > 1e-4);
        let p = s.position(Face(0), 0.1, 0.2, DVec3::ZERO);
        assert!((p.length() - s.body.radius).abs() <= s.max_relief());
    }
}
