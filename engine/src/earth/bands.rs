//! Residual bands (`docs/earth.md`, "Derivation"): per level k ≥ 2, gradient noise hashed on
//! 3-D position on the unit sphere (so every face and tile that holds a sample agrees), with
//! an amplitude bounded by the level's texel size and scaled by the source's local relief.

use glam::DVec3;
use std::f64::consts::PI;

/// Peak band amplitude as a fraction of the level's texel size on the steepest ground.
/// 0.25 texel: at L2 (4.9 km texels) ≤ 1.2 km, the order of ETOPO5's own 3×3 relief in the
/// Himalaya (≈3 km over 18.5 km), so detail stays within what the source allows.
pub const BAND_AMPLITUDE_PER_TEXEL: f64 = 0.25;
/// Relief weight w = clamp(2·slope, W_MIN, 1), slope = 3×3 relief / (2 node spacings).
/// The floor keeps a little texture on flat land (0.01 → ±12 m at L2, ±0.1 m at L9).
pub const RELIEF_WEIGHT_MIN: f64 = 0.01;

/// 64-bit finaliser (splitmix64): a bijection with full avalanche.
#[inline]
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[inline]
pub(crate) fn hash3(x: i64, y: i64, z: i64, seed: u64) -> u64 {
    mix((x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (y as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
        ^ (z as u64).wrapping_mul(0x1656_67b1_9e37_79f9)
        ^ seed)
}

/// Perlin's 12 cube-edge gradients as (axis, sign, axis, sign): case 1 is −x + y.
const GRADIENTS: [(usize, f64, usize, f64); 12] = [
    (0, 1.0, 1, 1.0),
    (0, -1.0, 1, 1.0),
    (0, 1.0, 1, -1.0),
    (0, -1.0, 1, -1.0),
    (0, 1.0, 2, 1.0),
    (0, -1.0, 2, 1.0),
    (0, 1.0, 2, -1.0),
    (0, -1.0, 2, -1.0),
    (1, 1.0, 2, 1.0),
    (1, -1.0, 2, 1.0),
    (1, 1.0, 2, -1.0),
    (1, -1.0, 2, -1.0),
];

/// Dot of corner gradient (one of Perlin's 12 cube-edge directions) with offset (x, y, z).
/// A table, not a branch per case: the case is a hash, so a branch mispredicts about half the
/// time. The same bits as `shaders/common/earth.glsl`'s `grad` (±1 times a coordinate is
/// exact, and a + (−b) is a − b in IEEE arithmetic).
#[inline]
fn grad(h: u64, x: f64, y: f64, z: f64) -> f64 {
    let (a, sa, b, sb) = GRADIENTS[((h >> 32) % 12) as usize];
    let v = [x, y, z];
    sa * v[a] + sb * v[b]
}

#[inline]
fn fade(t: f64) -> f64 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

#[inline]
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t
}

/// Improved Perlin gradient noise at `p` (lattice cell 1), clamped to [−1, 1]; zero mean,
/// zero at lattice points, energy concentrated near a wavelength of 2 cells.
pub fn perlin(p: DVec3, seed: u64) -> f64 {
    let c = p.floor();
    let f = p - c;
    let (ix, iy, iz) = (c.x as i64, c.y as i64, c.z as i64);
    let (u, v, w) = (fade(f.x), fade(f.y), fade(f.z));
    let g = |dx: i64, dy: i64, dz: i64| {
        let h = hash3(ix + dx, iy + dy, iz + dz, seed);
        grad(h, f.x - dx as f64, f.y - dy as f64, f.z - dz as f64)
    };
    let x00 = lerp(g(0, 0, 0), g(1, 0, 0), u);
    let x10 = lerp(g(0, 1, 0), g(1, 1, 0), u);
    let x01 = lerp(g(0, 0, 1), g(1, 0, 1), u);
    let x11 = lerp(g(0, 1, 1), g(1, 1, 1), u);
    lerp(lerp(x00, x10, v), lerp(x01, x11, v), w).clamp(-1.0, 1.0)
}

/// Noise lattice cells per unit length on the unit sphere for band k: the cell is two level-k
/// texels (texel = π/2 / (512·2^k) radians), so the band's wavelength is ≈ 4 texels.
#[inline]
pub fn band_frequency(k: u8) -> f64 {
    (512u64 << k) as f64 / PI
}

/// Relief weight from the source's local slope (dimensionless).
#[inline]
pub fn relief_weight(slope: f64) -> f64 {
    (2.0 * slope).clamp(RELIEF_WEIGHT_MIN, 1.0)
}

/// Sum of bands first..=last at unit direction `dir`, each band k with amplitude
/// `unit_amp`·texel(k)/texel0 (metres). Returns (Σ bands, Σ amplitudes = the bound).
pub fn band_sum(dir: DVec3, first: u8, last: u8, unit_amp: f64) -> (f64, f64) {
    let (mut sum, mut bound) = (0.0, 0.0);
    for k in first..=last {
        let amp = unit_amp / (1u64 << k) as f64;
        let seed = mix(0x5eed_0000 + k as u64);
        sum += amp * perlin(dir * band_frequency(k), seed);
        bound += amp;
    }
    (sum, bound)
}

/// Shoreline fade f(x), x = r/S (reconstructed height over the band bound): f = x − x²/4 for
/// x < 2, 1 beyond. f ≤ x keeps r + f·D ≥ 0 for |D| ≤ S (land never becomes water), f(0) = 0
/// (no detail at the shoreline), and f is C¹ (f′(2) = 0).
#[inline]
pub fn shore_fade(x: f64) -> f64 {
    if x >= 2.0 {
        1.0
    } else {
        (x - 0.25 * x * x).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perlin_is_bounded_zero_mean_and_deterministic() {
        let mut sum = 0.0;
        let n = 20_000;
        for i in 0..n {
            let p = DVec3::new(
                i as f64 * 0.173,
                (i % 97) as f64 * 0.311,
                (i % 13) as f64 * 1.7,
            );
            let v = perlin(p, 7);
            assert!((-1.0..=1.0).contains(&v));
            assert_eq!(v, perlin(p, 7));
            sum += v;
        }
        assert!((sum / n as f64).abs() < 0.02, "mean {}", sum / n as f64);
        assert_eq!(perlin(DVec3::new(3.0, -4.0, 5.0), 1), 0.0);
    }

    /// The table gives each case's expression bit for bit (the shader keeps the switch).
    #[test]
    fn gradient_table_is_the_twelve_cases() {
        let cases: [fn(f64, f64, f64) -> f64; 12] = [
            |x, y, _| x + y,
            |x, y, _| -x + y,
            |x, y, _| x - y,
            |x, y, _| -x - y,
            |x, _, z| x + z,
            |x, _, z| -x + z,
            |x, _, z| x - z,
            |x, _, z| -x - z,
            |_, y, z| y + z,
            |_, y, z| -y + z,
            |_, y, z| y - z,
            |_, y, z| -y - z,
        ];
        let vals = [0.0, -0.0, 0.3, -0.7, 1.0, 1e-17];
        for (k, case) in cases.iter().enumerate() {
            for &x in &vals {
                for &y in &vals {
                    for &z in &vals {
                        let h = (k as u64 + 12 * 977) << 32;
                        assert_eq!(grad(h, x, y, z).to_bits(), case(x, y, z).to_bits());
                    }
                }
            }
        }
    }

    #[test]
    fn shore_fade_keeps_land_above_water() {
        for k in 0..=300 {
            let x = k as f64 / 100.0;
            assert!(shore_fade(x) <= x + 1e-15 && shore_fade(x) <= 1.0);
        }
        assert_eq!(shore_fade(0.0), 0.0);
        assert_eq!(shore_fade(2.0), 1.0);
    }
}
