//! The amplification's promises on a synthetic L9 surface (a smooth function of the owner
//! sample's direction, so every canonical L9 sample is well defined on every face).

use super::amplify::*;
use super::bands::perlin;
use super::derive::{dir_from_tans, tan_of};
use crate::params::{LAST_STORED_LEVEL, MAX_LEVEL, TILE_APRON, TILE_SAMPLES, TILE_STRIDE};
use crate::planet::tile::{canonical_sample, samples_per_face, SampleRef};
use crate::planet::{Body, Face, TileId};
use glam::DVec3;

/// Hills of ±600 m around 900 m with a 10 km wavelength, or the sea when `offset` is −5 km.
pub(super) struct Synthetic {
    offset: f64,
}

impl Synthetic {
    fn owned(&self, f: Face, a: i64, b: i64) -> f64 {
        let d = dir_from_tans(
            f,
            tan_of(LAST_STORED_LEVEL, a),
            tan_of(LAST_STORED_LEVEL, b),
        );
        let h = self.offset + 900.0 + 600.0 * perlin(d * 1300.0, 3);
        (h / 0.3125).round() * 0.3125
    }
}

impl L9Samples for Synthetic {
    fn l9(&self, face: Face, i: i64, j: i64) -> f64 {
        match canonical_sample(LAST_STORED_LEVEL, face, i, j) {
            SampleRef::Owned(f, a, b) => self.owned(f, a, b),
            SampleRef::Corner(t) => {
                let v = t.map(|(f, a, b)| self.owned(f, a, b));
                ((v[0] + v[1]) + v[2]) / 3.0
            }
        }
    }
}

pub(super) const LAND: Synthetic = Synthetic { offset: 0.0 };

pub(super) fn earth() -> Body {
    Body::EARTH
}

#[test]
fn ridged_shape_is_zero_mean() {
    let n = 200_000;
    let mut sum = 0.0;
    for k in 0..n {
        let p = DVec3::new(
            k as f64 * 0.1731,
            (k % 101) as f64 * 0.377,
            (k % 17) as f64 * 1.31,
        );
        sum += 1.0 - 2.0 * perlin(p, 9).abs();
    }
    let mean = sum / n as f64;
    assert!((mean - 0.56).abs() < 0.02, "mean of 1 - 2|n| is {mean}");
}

#[test]
fn l10_is_the_cubic_of_l9_and_passes_through_its_nodes_bounds() {
    // An L10 sample lies between four L9 samples: the monotone cubic stays within the range of
    // the centre cell's nodes.
    let (f, a, b) = (Face(0), 200_001, 190_377);
    let h = amplified(&LAND, earth(), 10, f, a, b);
    let s = stencil(&LAND, f, l9_position(10, a), l9_position(10, b));
    let c = [s.h[1][1], s.h[1][2], s.h[2][1], s.h[2][2]];
    let (lo, hi) = c
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, u), &v| (l.min(v), u.max(v)));
    assert!(h >= lo - 1e-9 && h <= hi + 1e-9, "{h} outside {lo}..{hi}");
}

#[test]
fn water_gets_nothing() {
    let sea = Synthetic { offset: -5_000.0 };
    for level in [10, 12, 15, 18] {
        let (f, a, b) = (Face(2), 777 << (level - 9), 4242 << (level - 9));
        let s = stencil(&sea, f, l9_position(level, a), l9_position(level, b));
        let h0 = base(&s).h0;
        assert!(h0 < 0.0);
        assert_eq!(amplified(&sea, earth(), level, f, a, b), h0, "L{level}");
    }
}

#[test]
fn detail_grows_with_level_within_its_caps() {
    // Residual over the L10 cubic: nonzero on land from L11, bounded by the bands' caps (+ rocks).
    let f = Face(1);
    let mut rms = Vec::new();
    for level in [11u8, 13, 15] {
        let (mut sq, mut max) = (0.0f64, 0.0f64);
        let n = 400;
        for k in 0..n {
            let a = (90_000i64 << (level - 9)) + k * 7;
            let b = (31_000i64 << (level - 9)) + k * 3;
            let s = stencil(&LAND, f, l9_position(level, a), l9_position(level, b));
            let d = amplified(&LAND, earth(), level, f, a, b) - base(&s).h0;
            sq += d * d;
            max = max.max(d.abs());
        }
        let caps: f64 = (11..=level.min(15)).map(|k| 0.9 * earth().texel(k)).sum();
        let rocks = if level >= 13 { 8.0 * 0.25 * 0.9 } else { 0.0 };
        assert!(
            max <= caps + rocks + 1e-9,
            "L{level}: {max} > {caps} + {rocks}"
        );
        rms.push((sq / 400.0).sqrt());
    }
    assert!(rms[0] > 0.1, "no detail at L11: rms {}", rms[0]);
    assert!(rms.iter().all(|&r| r > 0.0));
}

#[test]
fn neighbours_agree_on_shared_apron_samples_across_faces_and_corners() {
    // Tiles at L12 touching face edges and a cube corner: every apron sample equals the
    // owner's own sample bit for bit (each is computed once, as the owner computes it).
    let level = 12u8;
    let n = samples_per_face(level);
    let a = TILE_APRON as i64;
    let last = (1u32 << level) - 1;
    for id in [
        TileId::new(level, Face(0), last, 5),
        TileId::new(level, Face(3), 0, last),
        TileId::new(level, Face(4), last, last),
    ] {
        for (i, j) in [
            (-a, 10),
            (TILE_SAMPLES as i64 + 2, 100),
            (7, -3),
            (-2, -2),
            (515, 515),
        ] {
            let (gi, gj) = (id.global_i(i), id.global_j(j));
            let here = sample(&LAND, earth(), level, id.face, gi, gj).0;
            match canonical_sample(level, id.face, gi, gj) {
                SampleRef::Owned(f, x, y) => {
                    assert!((0..n).contains(&x) && (0..n).contains(&y));
                    let there = sample(&LAND, earth(), level, f, x, y).0;
                    assert_eq!(here.to_bits(), there.to_bits(), "{id} ({i},{j})");
                }
                SampleRef::Corner(_) => assert!(here.is_finite()),
            }
        }
    }
}

/// A tile keeps the accepted rocks of the cells its samples visit (`RockMemo`); each sample
/// must still be the one definition's, `sample`, which looks every rock up afresh. Tiles on a
/// face's interior and across a face edge, at L13 (6 m cells over 2.4 m samples) and L17.
#[test]
fn a_tile_is_its_samples_with_the_rocks_it_keeps() {
    let mut rocky = 0;
    for id in [
        TileId::new(13, Face(1), 3 << 10, 5 << 9),
        TileId::new(17, Face(1), 3 << 14, 5 << 13),
        TileId::new(13, Face(0), (1 << 13) - 1, 77),
    ] {
        let tile = amplify_tile(id, earth(), &LAND);
        let stride = TILE_STRIDE as i64;
        let a = TILE_APRON as i64;
        // Every 7th sample of every 5th row: runs of neighbours, and rows far apart.
        for row in (0..stride).step_by(5) {
            for col in (0..stride).step_by(7) {
                let (gi, gj) = (id.global_i(col - a), id.global_j(row - a));
                let want = sample(&LAND, earth(), id.level, id.face, gi, gj).0;
                let got = tile.heights[(row * stride + col) as usize];
                assert_eq!(got.to_bits(), want.to_bits(), "{id} ({col},{row})");
                if let SampleRef::Owned(f, x, y) = canonical_sample(id.level, id.face, gi, gj) {
                    let dir = dir_from_tans(f, tan_of(id.level, x), tan_of(id.level, y));
                    rocky += (rock_height(&LAND, earth(), id.level, f, dir) > 0.0) as usize;
                }
            }
        }
    }
    // Rocks must have been drawn, or this compared the bands alone.
    assert!(rocky > 100, "{rocky} sampled points on a rock");
}

#[test]
fn fine_levels_resample_l15() {
    // L16–L18 add nothing of their own: the same point has the same height as at L15.
    let f = Face(5);
    for k in 0..50 {
        let a15 = 9_000_000 + k * 13;
        let b15 = 4_100_000 + k * 29;
        // The L15 sample and the L18 sample at the same position: L18 index 8a+3.5 is the
        // L15 sample's centre only between samples, so compare an L16 pair instead: L16
        // samples 2a and 2a+1 straddle the L15 centre; the L15 value lies between them on
        // smooth ground, and equals the function at that point exactly.
        let h15 = amplified(&LAND, earth(), 15, f, a15, b15);
        let dir = dir_from_tans(f, tan_of(15, a15), tan_of(15, b15));
        let _ = dir;
        for level in 16..=MAX_LEVEL {
            let s = 1i64 << (level - 15);
            let (a, b) = (a15 * s + s / 2, b15 * s + s / 2);
            let h = amplified(&LAND, earth(), level, f, a, b);
            // Within a small fraction of a metre of the L15 value at a point 1/2 fine texel away.
            assert!((h - h15).abs() < 0.5, "L{level}: {h} vs L15 {h15}");
        }
    }
}

#[test]
#[ignore = "timing: cargo test --release -p engine amplify_tile_time -- --ignored --nocapture"]
fn amplify_tile_time() {
    for level in [10u8, 13, 16] {
        let id = TileId::new(level, Face(1), 3 << (level - 3), 5 << (level - 4));
        let t = std::time::Instant::now();
        let tile = amplify_tile(id, earth(), &LAND);
        println!(
            "L{level}: {:.3} s ({})",
            t.elapsed().as_secs_f64(),
            tile.heights[1000]
        );
    }
}

/// An inclined plane of L9 heights: `slope` metres per metre along the face's u axis, 500 m up
/// at its edge.
pub(super) struct Incline {
    pub(super) slope: f64,
}

impl L9Samples for Incline {
    fn l9(&self, _face: Face, i: i64, _j: i64) -> f64 {
        500.0 + self.slope * Body::EARTH.texel(LAST_STORED_LEVEL) * i as f64
    }
}

/// Land at 1,000 m with a lake at 990 m where the L9 node's column exceeds its row plus
/// `SHORE_OFFSET` (a 45° shore across the lattice).
struct DiagonalLake;

const LAKE_LEVEL_M: f64 = 990.0;
const SHORE_OFFSET: i64 = 10;

impl DiagonalLake {
    fn is_lake(i: i64, j: i64) -> bool {
        i - j > SHORE_OFFSET
    }
}

impl L9Samples for DiagonalLake {
    fn l9(&self, _face: Face, i: i64, j: i64) -> f64 {
        if Self::is_lake(i, j) {
            LAKE_LEVEL_M
        } else {
            1_000.0
        }
    }
    fn l9_cover(&self, _face: Face, i: i64, j: i64) -> super::tile::Cover {
        if Self::is_lake(i, j) {
            super::tile::Cover::Lake
        } else {
            super::tile::Cover::Land
        }
    }
}

#[test]
fn amplified_lakes_follow_a_smooth_shore_and_land_stays_above_them() {
    // Along rows of L12 samples crossing the shore, the first lake sample's L9 column minus
    // row should sit on the straight shore (the L9 lattice's midline i − j = 10.5)
    // within a fraction of an L9 texel; the nearest-node rule made a staircase a whole texel
    // tall. Land samples stay at or above the lake's level.
    let (f, body, level) = (Face(0), earth(), 12u8);
    let scale = (1i64 << (level - LAST_STORED_LEVEL)) as f64;
    let mut worst: f64 = 0.0;
    for row in 0..64i64 {
        let b = 100_000 * scale as i64 + row;
        let y9 = l9_position(level, b);
        let mut crossing = None;
        let a0 = b + SHORE_OFFSET * scale as i64;
        for a in (a0 - 40)..(a0 + 40) {
            let (h, cover) = amplified_cover(&DiagonalLake, body, level, f, a, b);
            if cover == super::tile::Cover::Lake {
                assert_eq!(h, LAKE_LEVEL_M);
                crossing.get_or_insert(l9_position(level, a));
            } else {
                assert!(h >= LAKE_LEVEL_M, "land at {h} m beside a lake at 990 m");
            }
        }
        let x9 = crossing.expect("the row crosses the shore");
        worst = worst.max((x9 - y9 - (SHORE_OFFSET as f64 + 0.5)).abs() - 0.5 / scale);
    }
    assert!(worst < 0.2, "shore {worst} L9 texels off the straight line");
}

#[test]
fn bare_ground_is_rough_at_a_metre_and_sediment_flats_are_not() {
    // The metre-scale bands take the full weight and a ridged shape on ground that carries
    // boulders, whatever its L9 slope: along rows of L15 samples (0.6 m apart) on a plane of
    // slope 0.05 (the Khumbu's valley floor), the second difference of the height, away from
    // rocks, is several times that on a plane of slope 0.003 (a salt flat), where the flat
    // weight and the smooth noise stay. The two planes differ in nothing else the bands see
    // (both under the full-slope weight's floor; no curvature, gullies or terraces).
    let f = Face(3);
    let body = earth();
    let rms = |slope: f64| {
        let src = Incline { slope };
        let (mut sq, mut n) = (0.0, 0);
        for row in 0..40i64 {
            let b = 11_000_000 + row * 37;
            let h: Vec<Option<f64>> = (0..200i64)
                .map(|k| {
                    let a = 12_000_000 + k;
                    let dir = dir_from_tans(f, tan_of(15, a), tan_of(15, b));
                    (rock_height(&src, body, 15, f, dir) == 0.0)
                        .then(|| amplified(&src, body, 15, f, a, b))
                })
                .collect();
            for w in h.windows(3) {
                if let [Some(x), Some(y), Some(z)] = *w {
                    sq += (x - 2.0 * y + z).powi(2);
                    n += 1;
                }
            }
        }
        assert!(n > 4000, "{n} rock-free triples");
        (sq / n as f64).sqrt()
    };
    let (bare, flat) = (rms(0.05), rms(0.003));
    println!("RMS second difference at L15: bare {bare:.4} m, salt flat {flat:.4} m");
    assert!(bare > 3.0 * flat, "bare {bare} vs flat {flat}");
}
