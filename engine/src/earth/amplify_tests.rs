//! The amplification's promises on a synthetic L9 surface (a smooth function of the owner
//! sample's direction, so every canonical L9 sample is well defined on every face).

use super::amplify::*;
use super::bands::perlin;
use super::derive::{dir_from_tans, tan_of};
use crate::params::{LAST_STORED_LEVEL, MAX_LEVEL, TILE_APRON, TILE_SAMPLES};
use crate::planet::tile::{canonical_sample, samples_per_face, SampleRef};
use crate::planet::{Body, Face, TileId};
use glam::DVec3;

/// Hills of ±600 m around 900 m with a 10 km wavelength, or the sea when `offset` is −5 km.
struct Synthetic {
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

const LAND: Synthetic = Synthetic { offset: 0.0 };

fn earth() -> Body {
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

/// The accepted rocks of the cells under an n×n grid of L13 samples `step` apart on face `f`
/// of the synthetic land (a rock may repeat when the grid is finer than its cells).
fn accepted_rocks(f: Face, body: Body, n: i64, step: i64) -> impl Iterator<Item = Rock> {
    (0..n * n).filter_map(move |k| {
        let d = dir_from_tans(
            f,
            tan_of(13, 2_000_000 + (k / n) * step),
            tan_of(13, 1_500_000 + (k % n) * step),
        );
        let p = d * body.radius / 8.0;
        rock_in_cell(p.x.floor() as i64, p.y.floor() as i64, p.z.floor() as i64)
            .filter(|r| rock_height(&LAND, body, 13, f, r.centre) > 0.0)
    })
}

/// An accepted rock whose centre carries its own filtered height at L13 (no taller neighbour).
fn accepted_rock(f: Face, body: Body) -> Rock {
    accepted_rocks(f, body, 40, 5)
        .find(|r| {
            let (_, h) = rock_filtered(r, body, 13);
            (rock_height(&LAND, body, 13, f, r.centre) - h).abs() < 1e-9
        })
        .expect("an accepted rock")
}

/// Level `level`'s sample (a, b) nearest `dir` on face `f`.
fn nearest_sample(f: Face, level: u8, dir: DVec3) -> (i64, i64) {
    let n = samples_per_face(level) as f64;
    let at = |s: f64| (((s + 1.0) * n - 1.0) * 0.5).round() as i64;
    (
        at(face_coord(dir, f, f.u_axis())),
        at(face_coord(dir, f, f.v_axis())),
    )
}

#[test]
fn a_rock_keeps_its_place_size_and_height_from_l13_to_l18() {
    // The same rock (position, radius, height) at every level from L13, shown on each lattice
    // pre-filtered: wider and lower on coarse lattices, its own size on the finest.
    let f = Face(0);
    let body = earth();
    let rock = accepted_rock(f, body);
    assert!(
        rock.radius > 0.6 && rock.radius < 2.1 && rock.height > 0.0,
        "{rock:?}"
    );
    let mut last = (f64::INFINITY, 0.0);
    for level in 13..=MAX_LEVEL {
        let (radius, height) = rock_filtered(&rock, body, level);
        // Widened by at most two of the level's texels, narrowing and rising level by level.
        assert!(radius >= rock.radius && radius <= rock.radius + 2.0 * body.texel(level));
        assert!(
            radius < last.0 && height > last.1,
            "L{level}: {radius} {height}"
        );
        last = (radius, height);
        let (a, b) = nearest_sample(f, level, rock.centre);
        let dir = dir_from_tans(f, tan_of(level, a), tan_of(level, b));
        let d = (dir - rock.centre).length() * body.radius;
        assert!(d < radius, "L{level}: nearest sample {d} m from the centre");
        let q = d / radius;
        let want = height * (1.0 - q.powi(4));
        let got = rock_height(&LAND, body, level, f, dir);
        assert!((got - want).abs() < 1e-9, "L{level}: {got} vs {want}");
        // And the rock is in the sample's height: it stands on the banded surface.
        let with = amplified(&LAND, body, level, f, a, b);
        assert!(with.is_finite());
    }
    // The finest level shows the rock near its own size (the smallest rocks 3 % wider).
    let (radius, height) = rock_filtered(&rock, body, MAX_LEVEL);
    assert!((radius / rock.radius - 1.0) < 0.03 && (1.0 - height / rock.height) < 0.06);
}

#[test]
fn a_rock_has_its_volume_on_every_lattice() {
    // Summed over each level's lattice (sample heights × the sample cells' areas), the rock
    // holds the volume of the rock itself, ⅔·π·r²·h, from L13's 2.4 m texels to L18's 7.5 cm.
    // Sampled without pre-filtering, a rock under a metre across on L13's lattice sums to
    // nothing or to a spike several times its volume depending on where the lattice falls.
    let f = Face(0);
    let body = earth();
    let (mut checked, mut worst) = (0, 0.0f64);
    for rock in accepted_rocks(f, body, 60, 7) {
        let want = 2.0 / 3.0 * std::f64::consts::PI * rock.radius.powi(2) * rock.height;
        for level in 13..=MAX_LEVEL {
            let (radius, height) = rock_filtered(&rock, body, level);
            let (ca, cb) = nearest_sample(f, level, rock.centre);
            let reach = (radius / body.texel(level)).ceil() as i64 + 1;
            let mut vol = 0.0;
            for b in cb - reach..=cb + reach {
                for a in ca - reach..=ca + reach {
                    let at = |a, b| dir_from_tans(f, tan_of(level, a), tan_of(level, b));
                    let o = at(a, b);
                    let cell = (at(a + 1, b) - o).cross(at(a, b + 1) - o).length();
                    // This rock's term alone: neighbours may share the lattice.
                    let dist = (o - rock.centre).length() * body.radius;
                    if dist < radius {
                        vol += height * rock_profile(dist / radius) * cell * body.radius.powi(2);
                    }
                }
            }
            assert!(
                (vol / want - 1.0).abs() < 0.1,
                "L{level}: rock r {:.2} m h {:.2} m: lattice volume {vol:.3} m³ vs {want:.3}",
                rock.radius,
                rock.height
            );
            worst = worst.max((vol / want - 1.0).abs());
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} accepted rocks");
    println!(
        "{checked} rocks, worst lattice volume error {:.1} %",
        worst * 100.0
    );
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
struct Incline {
    slope: f64,
}

impl L9Samples for Incline {
    fn l9(&self, _face: Face, i: i64, _j: i64) -> f64 {
        500.0 + self.slope * Body::EARTH.texel(LAST_STORED_LEVEL) * i as f64
    }
}

#[test]
fn rocks_need_a_slope_and_appear_as_it_rises() {
    // Salt flats and plains carry no boulders: none below the bare slope, every candidate
    // from the full one, about half between; and the set only grows with the slope, so a
    // rock never vanishes from ground that steepens.
    let f = Face(0);
    let body = earth();
    // Candidates that are the tallest rock at their own centre once every rock is accepted:
    // there, the surface carries the rock's own height exactly when the rock is accepted.
    let own = |r: &Rock| rock_filtered(r, body, 13).1;
    let steep = Incline { slope: 0.5 };
    let candidates: Vec<Rock> = (0..4000i64)
        .filter_map(|k| {
            let d = dir_from_tans(
                f,
                tan_of(13, 2_000_000 + (k / 64) * 9),
                tan_of(13, 1_500_000 + (k % 64) * 9),
            );
            let p = d * body.radius / 8.0;
            rock_in_cell(p.x.floor() as i64, p.y.floor() as i64, p.z.floor() as i64)
        })
        .filter(|r| rock_height(&steep, body, 13, f, r.centre) == own(r))
        .collect();
    assert!(candidates.len() > 500, "{} candidates", candidates.len());
    let accepted = |slope: f64| -> Vec<bool> {
        let src = Incline { slope };
        candidates
            .iter()
            .map(|r| rock_height(&src, body, 13, f, r.centre) == own(r))
            .collect()
    };
    let share = |a: &[bool]| a.iter().filter(|&&x| x).count() as f64 / a.len() as f64;
    let mut last = vec![false; candidates.len()];
    for (slope, lo, hi) in [
        (0.0, 0.0, 0.0),
        (0.004, 0.0, 0.0),
        (0.010, 0.15, 0.35),
        (0.015, 0.4, 0.6),
        (0.020, 0.65, 0.85),
        (0.030, 1.0, 1.0),
        (0.5, 1.0, 1.0),
    ] {
        let a = accepted(slope);
        let s = share(&a);
        assert!(
            s >= lo && s <= hi,
            "slope {slope}: {s:.3} of candidates accepted"
        );
        assert!(
            last.iter().zip(&a).all(|(&was, &now)| !was || now),
            "slope {slope}: a rock vanished as the ground steepened"
        );
        last = a;
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
