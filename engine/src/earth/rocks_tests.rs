//! The rocks' promises (`rocks.rs`) on the amplification's synthetic L9 land: a rock keeps its
//! place, size and height on every level, its volume and wholeness on every lattice, its
//! hashed shape, and it stands only where the ground slopes.

use super::amplify::*;
use super::amplify_tests::{earth, Incline, LAND};
use super::derive::{dir_from_tans, tan_of};
use crate::params::MAX_LEVEL;
use crate::planet::tile::samples_per_face;
use crate::planet::{Body, Face};
use glam::DVec3;

/// The accepted rocks of the cells under an n×n grid of L13 samples `step` apart on face `f`
/// of the synthetic land (a rock may repeat when the grid is finer than its cells).
fn accepted_rocks(f: Face, body: Body, n: i64, step: i64) -> impl Iterator<Item = Rock> {
    (0..n * n).flat_map(move |k| {
        let d = dir_from_tans(
            f,
            tan_of(13, 2_000_000 + (k / n) * step),
            tan_of(13, 1_500_000 + (k % n) * step),
        );
        let p = (d * body.radius / ROCK_CELL_M).floor();
        (0..ROCKS_PER_CELL).filter_map(move |k| {
            rock_in_cell(body, p.x as i64, p.y as i64, p.z as i64, k)
                .filter(|r| rock_height(&LAND, body, 13, f, r.centre) > 0.0)
        })
    })
}

/// An accepted rock whose centre carries its own filtered height at L13 (no taller neighbour).
fn accepted_rock(f: Face, body: Body) -> Rock {
    accepted_rocks(f, body, 40, 5)
        .find(|r| {
            let own = rock_bump(r, body, 13, r.centre);
            own > 0.0 && rock_height(&LAND, body, 13, f, r.centre) == own
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

/// The rock's own semi-axes (metres).
fn semi_axes(rock: &Rock) -> (f64, f64) {
    (
        rock.radius * rock.aspect.sqrt(),
        rock.radius / rock.aspect.sqrt(),
    )
}

/// The point `x` metres along the rock's long axis and `y` along its short one.
fn beside(rock: &Rock, body: Body, x: f64, y: f64) -> DVec3 {
    (rock.centre * body.radius + x * rock.long + y * rock.short).normalize()
}

#[test]
fn a_rock_keeps_its_place_size_and_height_from_l13_to_l18() {
    // The same rock (position, size, height) at every level from L13, shown on each lattice
    // pre-filtered: wider, lower and smoother on coarse lattices, its own size and shape on
    // the finest.
    let f = Face(0);
    let body = earth();
    let rock = accepted_rock(f, body);
    assert!(
        rock.radius > 0.6 && rock.radius < 2.1 && rock.height > 0.0,
        "{rock:?}"
    );
    let (a, b) = semi_axes(&rock);
    let mut last: Option<Filtered> = None;
    for level in 13..=MAX_LEVEL {
        let fl = rock_filtered(&rock, body, level);
        // Each semi-axis widened by at most two of the level's texels; narrowing, rising and
        // sharpening level by level.
        let w = 2.0 * body.texel(level);
        assert!(fl.long >= a && fl.long <= a + w && fl.short >= b && fl.short <= b + w);
        if let Some(p) = last {
            assert!(
                fl.long < p.long
                    && fl.short < p.short
                    && fl.height > p.height
                    && fl.sharp > p.sharp,
                "L{level}: {fl:?} after {p:?}"
            );
        }
        last = Some(fl);
        // The rock is in the surface: the sample nearest its centre carries its term.
        let (sa, sb) = nearest_sample(f, level, rock.centre);
        let dir = dir_from_tans(f, tan_of(level, sa), tan_of(level, sb));
        let d = (dir - rock.centre).length() * body.radius;
        assert!(
            d < fl.short,
            "L{level}: nearest sample {d} m from the centre"
        );
        let want = rock_bump(&rock, body, level, dir);
        let got = rock_height(&LAND, body, level, f, dir);
        assert!(want > 0.0 && got == want, "L{level}: {got} vs {want}");
        assert!(amplified(&LAND, body, level, f, sa, sb).is_finite());
    }
    // The finest level shows the rock near its own size and mostly its sharp shape (the
    // narrowest rocks, 0.4 m across their short axis, 7 % wider).
    let fl = rock_filtered(&rock, body, MAX_LEVEL);
    assert!(
        fl.long / a - 1.0 < 0.03 && fl.short / b - 1.0 < 0.07,
        "{fl:?}"
    );
    assert!(
        1.0 - fl.height / rock.height < 0.08 && fl.sharp > 0.85,
        "{fl:?}"
    );
}

/// The volume under one rock's term on `level`'s lattice (sample heights × their cells'
/// areas) and under its continuous shape on that level (a 240 × 240 midpoint rule over the
/// footprint's box).
fn rock_volumes(rock: &Rock, f: Face, body: Body, level: u8) -> (f64, f64) {
    let fl = rock_filtered(rock, body, level);
    let (ca, cb) = nearest_sample(f, level, rock.centre);
    let reach = (fl.long / body.texel(level)).ceil() as i64 + 1;
    let mut lattice = 0.0;
    for b in cb - reach..=cb + reach {
        for a in ca - reach..=ca + reach {
            let at = |a, b| dir_from_tans(f, tan_of(level, a), tan_of(level, b));
            let o = at(a, b);
            let cell = (at(a + 1, b) - o).cross(at(a, b + 1) - o).length();
            lattice += rock_bump(rock, body, level, o) * cell * body.radius.powi(2);
        }
    }
    let n = 240;
    let (dx, dy) = (2.0 * fl.long / n as f64, 2.0 * fl.short / n as f64);
    let mut shape = 0.0;
    for j in 0..n {
        for i in 0..n {
            let x = -fl.long + (i as f64 + 0.5) * dx;
            let y = -fl.short + (j as f64 + 0.5) * dy;
            shape += fl.height * rock_shape(rock, &fl, x, y) * dx * dy;
        }
    }
    (lattice, shape)
}

#[test]
fn a_rock_has_its_volume_on_every_lattice() {
    // Summed over each level's lattice, a rock holds the volume of its shape on that level,
    // from L13's 2.4 m texels to L18's 7.5 cm; and that volume changes little from level to
    // level (the filter holds the dome's volume; the sharp shape, which the finer levels
    // carry more of, holds about as much). Sampled without pre-filtering, a rock under a
    // metre across on L13's lattice sums to nothing or to a spike several times its volume
    // depending on where the lattice falls.
    let f = Face(0);
    let body = earth();
    let (mut checked, mut worst, mut worst_step) = (0, 0.0f64, 0.0f64);
    for rock in accepted_rocks(f, body, 60, 7) {
        let mut last: Option<f64> = None;
        for level in 13..=MAX_LEVEL {
            let (lattice, shape) = rock_volumes(&rock, f, body, level);
            assert!(
                (lattice / shape - 1.0).abs() < 0.1,
                "L{level}: {rock:?}: lattice volume {lattice:.3} m³ vs {shape:.3}"
            );
            worst = worst.max((lattice / shape - 1.0).abs());
            if let Some(v) = last {
                assert!(
                    (shape / v - 1.0).abs() < 0.2,
                    "L{level}: {rock:?}: volume {shape:.3} m³ after {v:.3}"
                );
                worst_step = worst_step.max((shape / v - 1.0).abs());
            }
            last = Some(shape);
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} accepted rocks");
    println!(
        "{checked} rocks, worst lattice volume error {:.1} %, worst change level to level {:.1} %",
        worst * 100.0,
        worst_step * 100.0
    );
}

#[test]
fn a_rock_is_whole_on_every_level() {
    // Every point of a rock's footprint finds it (its cell is among the 27 around the point),
    // so the surface there is at least the rock's own term: no rock is cut off by a cell
    // boundary, on L13's widest filter as on L18. Candidates from all 27 cells around a grid
    // of points, so rocks of the cells above and below the datum sphere are tried too, on
    // face 0 and where the sphere's normal is far from every lattice axis (face 2, the
    // Khumbu's tile).
    let body = earth();
    let mut checked = 0;
    for (f, i0, j0) in [
        (Face(0), 2_000_000, 1_500_000),
        (Face(2), 3_398_000, 2_244_000),
    ] {
        let mut rocks = Vec::new();
        for k in 0..400i64 {
            let d = dir_from_tans(
                f,
                tan_of(13, i0 + (k / 20) * 4),
                tan_of(13, j0 + (k % 20) * 4),
            );
            let c = (d * body.radius / ROCK_CELL_M).floor();
            for n in 0..27 * ROCKS_PER_CELL as i64 {
                let (n, k) = (
                    n / ROCKS_PER_CELL as i64,
                    (n % ROCKS_PER_CELL as i64) as u64,
                );
                let (x, y, z) = (
                    c.x as i64 + n % 3 - 1,
                    c.y as i64 + (n / 3) % 3 - 1,
                    c.z as i64 + n / 9 - 1,
                );
                if let Some(r) = rock_in_cell(body, x, y, z, k) {
                    let own = rock_bump(&r, body, 13, r.centre);
                    if own > 0.0 && rock_height(&LAND, body, 13, f, r.centre) >= own {
                        rocks.push(r);
                    }
                }
            }
        }
        rocks.dedup();
        assert!(rocks.len() > 20, "{} rocks", rocks.len());
        for rock in rocks {
            for level in [13u8, 15, 18] {
                let fl = rock_filtered(&rock, body, level);
                for k in 0..64 {
                    let (x, y) = rational(k);
                    let dir = beside(&rock, body, 0.97 * fl.long * x, 0.97 * fl.short * y);
                    let own = rock_bump(&rock, body, level, dir);
                    let got = rock_height(&LAND, body, level, f, dir);
                    assert!(
                        got >= own,
                        "L{level}: {got} under the rock's own {own} ({rock:?})"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 5000, "{checked}");
}

/// The k-th of 64 points spread over the unit disc (8 rings of 8).
fn rational(k: usize) -> (f64, f64) {
    let r = ((k / 8) as f64 + 0.5) / 8.0;
    let a = (k % 8) as f64 * std::f64::consts::FRAC_PI_4 + 0.3 * (k / 8) as f64;
    (r * a.cos(), r * a.sin())
}

#[test]
fn a_rocks_footprint_is_elongated_along_its_hashed_axis() {
    // On L18 the footprint reaches farthest along the rock's own long axis, by its aspect (a
    // dome's footprint is a circle), and the axes turn from rock to rock.
    let f = Face(0);
    let body = earth();
    let east = DVec3::Z.cross(f.axis()).normalize();
    let (mut checked, mut turns) = (0, Vec::new());
    for rock in accepted_rocks(f, body, 40, 9).filter(|r| r.aspect > 1.6) {
        // Extent of the footprint along 36 directions 5° apart, 1 cm steps.
        let extent = |ang: f64| {
            let (c, s) = (ang.cos(), ang.sin());
            (1..600)
                .map(|i| i as f64 * 0.01)
                .find(|&t| rock_bump(&rock, body, 18, beside(&rock, body, t * c, t * s)) == 0.0)
                .expect("the footprint ends")
        };
        let ext: Vec<f64> = (0..36)
            .map(|k| extent(k as f64 * 5f64.to_radians()))
            .collect();
        let longest = (0..36).max_by(|&a, &b| ext[a].total_cmp(&ext[b])).unwrap();
        // The long axis is 0° (or 180°, the same direction): within 10°.
        assert!(
            longest <= 2 || longest >= 34,
            "longest at {}°: {ext:?}",
            longest * 5
        );
        let fl = rock_filtered(&rock, body, 18);
        let ratio = ext[0] / ext[18];
        assert!(
            (ratio / (fl.long / fl.short) - 1.0).abs() < 0.05 && ratio > 1.45,
            "extent ratio {ratio} for aspect {}",
            rock.aspect
        );
        turns.push(
            rock.long
                .dot(east)
                .atan2(rock.long.dot(east.cross(rock.centre))),
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} elongated rocks");
    // Axis angles mod 180° spread over more than 90°.
    let a: Vec<f64> = turns
        .iter()
        .map(|t| t.rem_euclid(std::f64::consts::PI))
        .collect();
    let spread =
        a.iter().cloned().fold(f64::MIN, f64::max) - a.iter().cloned().fold(f64::MAX, f64::min);
    assert!(spread > std::f64::consts::FRAC_PI_2, "axes {a:?}");
}

#[test]
fn a_rocks_sharp_shape_has_plane_facets_a_flat_top_and_steep_sides() {
    // The shape the finest lattice tends to: along a line from the centre toward a facet,
    // heights are exactly linear over a stretch (a plane; a dome's second difference is never
    // zero off its centre); most of its footprint slopes gently (a flat top and facets: over
    // 60 %, the dome's 40 %); and its sides are steeper than the dome's, whose steepest slope
    // is 4 heights per semi-axis, at the rim.
    let f = Face(0);
    let body = earth();
    let (mut facets, mut flat, mut steep, mut n) = (0, 0, 0, 0);
    let mut shares = Vec::new();
    for rock in accepted_rocks(f, body, 40, 9).take(40) {
        let (a, b) = semi_axes(&rock);
        let fl = Filtered {
            long: a,
            short: b,
            height: rock.height,
            sharp: 1.0,
            rim: f64::INFINITY,
        };
        let at = |u: f64, v: f64| rock_shape(&rock, &fl, u * a, v * b);
        // A facet: 400 steps from the centre along each facet's direction.
        let planar = rock.facets.iter().any(|&[dx, dy, _, _]| {
            let h: Vec<f64> = (0..400)
                .map(|i| at(dx * i as f64 / 400.0, dy * i as f64 / 400.0))
                .collect();
            let mut run = 0;
            h.windows(3).any(|w| {
                let linear = w[1] > 0.0 && (w[0] - 2.0 * w[1] + w[2]).abs() < 1e-12;
                run = if linear { run + 1 } else { 0 };
                run >= 20
            })
        });
        facets += planar as u32;
        // Gentle ground: share of the footprint (a 200 × 200 grid) sloping under one height
        // per semi-axis; the dome's is 40 % (|d(1 − q⁴)/dq| < 1 for q < 0.63).
        let (mut inside, mut gentle) = (0.0, 0.0);
        for k in 0..40_000 {
            let (u, v) = (
                (k % 200) as f64 / 100.0 - 0.995,
                (k / 200) as f64 / 100.0 - 0.995,
            );
            let h = at(u, v);
            if h > 0.0 {
                let e = 1e-4;
                let (gu, gv) = ((at(u + e, v) - h) / e, (at(u, v + e) - h) / e);
                inside += 1.0;
                gentle += ((gu * gu + gv * gv).sqrt() < 1.0) as u32 as f64;
            }
        }
        flat += (gentle / inside > 0.6) as u32;
        shares.push(gentle / inside);
        // Steepest slope along the short axis, heights per semi-axis.
        let s = (0..1000)
            .map(|i| (at(0.0, i as f64 / 1000.0) - at(0.0, (i + 1) as f64 / 1000.0)) * 1000.0)
            .fold(0.0, f64::max);
        steep += (s > 8.0) as u32;
        n += 1;
    }
    println!("{n} rocks: {facets} with a plane facet, {flat} flat-topped, {steep} steep-sided");
    println!("gentle shares {shares:.2?}");
    assert!(n >= 20);
    assert!(facets * 2 >= n && flat * 2 >= n && steep * 4 >= 3 * n);
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
    let own = |r: &Rock| rock_bump(r, body, 13, r.centre);
    let steep = Incline { slope: 0.5 };
    let candidates: Vec<Rock> = (0..4000i64)
        .flat_map(|k| {
            let d = dir_from_tans(
                f,
                tan_of(13, 2_000_000 + (k / 64) * 9),
                tan_of(13, 1_500_000 + (k % 64) * 9),
            );
            let p = (d * body.radius / ROCK_CELL_M).floor();
            (0..ROCKS_PER_CELL)
                .filter_map(move |k| rock_in_cell(body, p.x as i64, p.y as i64, p.z as i64, k))
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
