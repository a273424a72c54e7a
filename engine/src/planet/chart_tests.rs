//! The chart must-shows: at every level L0–L18, on random points of random tiles,
//! f32 forward∘inverse round trip < 1e-3 texel and GPU chart vs f64 exact < 0.01 texel.

use super::*;
use crate::planet::cube::Face;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn random_tile(rng: &mut Rng, level: u8) -> TileId {
    let t = 1u64 << level;
    // Bias half the tiles to the face edge and corner, where the warp is strongest.
    let pick = |r: &mut Rng| {
        let v = (r.next() * t as f64) as u64;
        if r.next() < 0.5 {
            if r.next() < 0.5 {
                0
            } else {
                t - 1
            }
        } else {
            v.min(t - 1)
        }
    };
    let face = Face((rng.next() * 6.0) as u8 % 6);
    TileId::new(level, face, pick(rng) as u32, pick(rng) as u32)
}

#[test]
fn charts_meet_the_bars_at_every_level() {
    let mut rng = Rng(0x243f_6a88_85a3_08d3);
    let mut report = String::new();
    for level in 0..=crate::params::MAX_LEVEL {
        let (mut worst_fit, mut worst_trip) = (0f64, 0f64);
        for _ in 0..12 {
            let tile = random_tile(&mut rng, level);
            let chart = TileChart::new(tile, 6_371_000.0);
            let gpu = chart.gpu();
            for _ in 0..200 {
                // Points over the interior and the apron margin the fit covers.
                let s = -4.0 + 520.0 * rng.next();
                let t = -4.0 + 520.0 * rng.next();
                let (a, b) = chart.exact_inverse(s, t);
                let (fs, ft) = chart.exact_forward(a, b);
                assert!(
                    (fs - s).abs() < 1e-6 && (ft - t).abs() < 1e-6,
                    "f64 exact pair"
                );
                let (gs, gt) = gpu.forward(a as f32, b as f32);
                let fit = (gs as f64 - s).abs().max((gt as f64 - t).abs());
                let (ia, ib) = gpu.inverse(s as f32, t as f32);
                let (rs, rt) = gpu.forward(ia, ib);
                let trip = (rs as f64 - s).abs().max((rt as f64 - t).abs());
                worst_fit = worst_fit.max(fit);
                worst_trip = worst_trip.max(trip);
            }
        }
        report += &format!("L{level}: fit {worst_fit:.2e} trip {worst_trip:.2e}\n");
        assert!(
            worst_fit < 0.01,
            "L{level} chart vs exact {worst_fit}\n{report}"
        );
        assert!(
            worst_trip < 1e-3,
            "L{level} round trip {worst_trip}\n{report}"
        );
    }
    println!("{report}");
}

#[test]
fn centre_maps_to_256_and_gpu_record_is_160_bytes() {
    assert_eq!(std::mem::size_of::<ChartGpu>(), 160);
    for level in [0u8, 4, 5, 12, 18] {
        let tile = TileId::new(level, Face(2), (1 << level) - 1, 0);
        let g = TileChart::new(tile, 6_371_000.0).gpu();
        assert_eq!(g.forward(0.0, 0.0), (256.0, 256.0));
    }
}
