//! Tile agreement: every apron sample equals the neighbour's interior sample bit for bit
//! (across face edges and, by the documented rule, beyond cube corners), and the 2×2 mean of
//! level k equals level k−1 within the tolerance `docs/earth.md` documents.

mod earth_common;

use engine::earth::tile::quantise;
use engine::earth::Tile;
use engine::params::{HEIGHT_Q_STEP_M, TILE_APRON, TILE_SAMPLES};
use engine::planet::tile::{canonical_sample, sample_coord, samples_per_face, SampleRef};
use engine::planet::{latlon_to_dir, Body, Face, TileId};
use engine::store::Oracle;
use std::sync::{Arc, OnceLock};

fn oracle() -> &'static Oracle {
    static O: OnceLock<Oracle> = OnceLock::new();
    O.get_or_init(|| earth_common::oracle(None, 2, 8 << 30))
}

fn get(id: TileId) -> Arc<Tile> {
    oracle().get(id)
}

/// Checks every apron sample of `id`; returns how many were cube-corner samples.
fn check_apron(id: TileId) -> usize {
    let mut wanted = vec![id];
    wanted.extend(id.neighbours());
    oracle().request(&wanted, 1.0);
    oracle().wait_idle();
    let tile = get(id);
    let (a, n) = (TILE_APRON as i64, TILE_SAMPLES as i64);
    let nf = samples_per_face(id.level);
    let texel = std::f64::consts::FRAC_PI_2 / nf as f64;
    let mut corners = 0;
    for j in -a..n + a {
        for i in -a..n + a {
            if (0..n).contains(&i) && (0..n).contains(&j) {
                continue;
            }
            let (gi, gj) = (id.global_i(i), id.global_j(j));
            let here = (tile.height(i, j), tile.is_water(i, j));
            let owned = |f: Face, ii: i64, jj: i64| {
                let t = get(TileId::new(id.level, f, (ii / n) as u32, (jj / n) as u32));
                (t.height(ii % n, jj % n), t.is_water(ii % n, jj % n))
            };
            match canonical_sample(id.level, id.face, gi, gj) {
                SampleRef::Owned(f, ii, jj) => {
                    let there = owned(f, ii, jj);
                    assert_eq!(here.0.to_bits(), there.0.to_bits(), "{id} apron ({i},{j})");
                    assert_eq!(here.1, there.1, "{id} apron water ({i},{j})");
                    // The sample it copies lies within a few texels (the fold's mirror image).
                    let p = id
                        .face
                        .direction(sample_coord(id.level, gi), sample_coord(id.level, gj));
                    let q = f.direction(sample_coord(id.level, ii), sample_coord(id.level, jj));
                    assert!(
                        p.angle_between(q) < 9.5 * texel,
                        "{id} ({i},{j}) folds far away"
                    );
                }
                SampleRef::Corner(three) => {
                    corners += 1;
                    let v = three.map(|(f, ii, jj)| owned(f, ii, jj).0 as f64);
                    let mean = ((v[0] + v[1]) + v[2]) / 3.0;
                    let code = quantise(mean, mean < 0.0);
                    let want = engine::earth::tile::dequantise(code);
                    assert_eq!(here.0.to_bits(), want.to_bits(), "{id} corner ({i},{j})");
                    assert_eq!(here.1, mean < 0.0);
                }
            }
        }
    }
    corners
}

#[test]
fn aprons_match_neighbours_inside_faces_across_edges_and_corners() {
    // Cube-corner tiles at a reduction level (L1) and derived levels, face-edge tiles, and
    // an interior tile.
    let cases = [
        (TileId::new(1, Face(0), 0, 0), true),
        (TileId::new(2, Face(4), 3, 3), true),
        (TileId::new(6, Face(3), 63, 17), false),
        (TileId::new(9, Face(1), 511, 0), true),
        (TileId::new(9, Face(0), 100, 200), false),
    ];
    for (id, at_corner) in cases {
        let corners = check_apron(id);
        assert_eq!(corners, if at_corner { 16 } else { 0 }, "{id}");
    }
}

/// Max and RMS of |mean of 2×2 level-k samples − level-(k−1) sample| over a parent tile.
fn reduction_error(parent: TileId) -> (f64, f64) {
    let kids = parent.children();
    let mut wanted = vec![parent];
    wanted.extend(kids);
    oracle().request(&wanted, 2.0);
    oracle().wait_idle();
    let p = get(parent);
    let ch = kids.map(get);
    let (mut max, mut sq) = (0f64, 0f64);
    let n = TILE_SAMPLES as i64;
    for j in 0..n {
        for i in 0..n {
            let (cx, cy) = ((i >= n / 2) as usize, (j >= n / 2) as usize);
            let c = &ch[cy * 2 + cx];
            let (ci, cj) = (2 * (i - cx as i64 * n / 2), 2 * (j - cy as i64 * n / 2));
            let m = (c.height(ci, cj) as f64
                + c.height(ci + 1, cj) as f64
                + c.height(ci, cj + 1) as f64
                + c.height(ci + 1, cj + 1) as f64)
                / 4.0;
            let d = (m - p.height(i, j) as f64).abs();
            max = max.max(d);
            sq += d * d;
        }
    }
    (max, (sq / (n * n) as f64).sqrt())
}

#[test]
fn two_by_two_means_match_the_parent_level() {
    // Reductions (L0, L1) are quantised 2×2 means: equal within half a quantisation step,
    // one step where a mean just below sea level is stored at −0.3125 m to stay water.
    for parent in [TileId::new(0, Face(0), 0, 0), TileId::new(1, Face(0), 0, 0)] {
        let (max, rms) = reduction_error(parent);
        assert!(max <= HEIGHT_Q_STEP_M, "{parent}: {max}");
        assert!(rms <= HEIGHT_Q_STEP_M / 2.0, "{parent}: rms {rms}");
    }
    // Derived levels over the Himalaya (steepest relief, the worst case).
    let dir = latlon_to_dir(28.0, 86.9);
    let (face, u, v) = engine::planet::dir_to_face(dir);
    let body = Body::EARTH;
    let mut report = String::new();
    for k in [3u8, 5, 7, 9] {
        let parent = TileId::containing(k - 1, face, u, v);
        let (max, rms) = reduction_error(parent);
        // Documented tolerance (docs/earth.md): max ≤ 0.1 texel + one step, RMS ≤ 0.02 texel.
        assert!(
            max <= 0.1 * body.texel(k) + HEIGHT_Q_STEP_M,
            "L{k} max {max}"
        );
        assert!(rms <= 0.02 * body.texel(k), "L{k} rms {rms}");
        report += &format!(
            "L{k}: max {max:.2} m rms {rms:.3} m texel {:.1} m\n",
            body.texel(k)
        );
    }
    println!("{report}");
}
