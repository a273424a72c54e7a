//! Unit tests of the pop metric (`pop.rs`).

use super::*;

/// Distances to the nearest of `spheres` (centre, radius) seen from `cam`.
fn spheres(cam: &ViewCamera, spheres: &[(DVec3, f64)]) -> Vec<Option<f64>> {
    let (w, h) = (cam.width, cam.height);
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let d = engine::reference::pixel_ray(cam, x as f64 + 0.5, y as f64 + 0.5);
            let hit = spheres
                .iter()
                .filter_map(|&(c, r)| {
                    let o = cam.eye - c;
                    let b = o.dot(d);
                    let disc = b * b - (o.length_squared() - r * r);
                    (disc >= 0.0 && -b - disc.sqrt() > 0.0).then(|| -b - disc.sqrt())
                })
                .reduce(f64::min);
            out.push(hit);
        }
    }
    out
}

/// Distances to a sphere of radius `r` (a smooth planet) seen from `cam`.
fn sphere(cam: &ViewCamera, r: f64) -> Vec<Option<f64>> {
    spheres(cam, &[(DVec3::ZERO, r)])
}

#[test]
fn parallax_occlusion_is_no_pop_and_a_new_boulder_is() {
    let r = 6_371_000.0;
    let a = ViewCamera::geo(10.0, 20.0, r + 1500.0, 30.0, -20.0, 60.0, 96, 64);
    // 60 m to the side: a boulder 800 m ahead slides ~4 px over the ground behind it.
    let b = ViewCamera {
        eye: a.eye + a.right * 60.0,
        ..a
    };
    let world = [(DVec3::ZERO, r), (a.eye + a.forward * 800.0, 60.0)];
    let c = change(&a, &spheres(&a, &world), &b, &spheres(&b, &world));
    assert!(c.compared > 2000, "{c:?}");
    assert!(
        c.max_px < 0.05,
        "ground hidden by a boulder that was there: {c:?}"
    );
    // The same boulder appearing from one frame to the next is a pop, of many pixels.
    let c = change(&a, &sphere(&a, r), &b, &spheres(&b, &world));
    assert!(c.max_px > 5.0 && c.over_1px > 20, "a new boulder: {c:?}");
}

#[test]
fn camera_motion_alone_is_no_pop_and_a_raised_surface_is() {
    let r = 6_371_000.0;
    let a = ViewCamera::geo(10.0, 20.0, r + 1500.0, 30.0, -20.0, 60.0, 96, 64);
    let b = ViewCamera::geo(10.001, 20.002, r + 1450.0, 32.0, -22.0, 60.0, 96, 64);
    let c = change(&a, &sphere(&a, r), &b, &sphere(&b, r));
    assert!(c.compared > 2000, "{c:?}");
    assert!(
        c.max_px < 0.02 && c.coverage_changed == 0,
        "motion over a sphere: {c:?}"
    );
    // The whole surface 1 m higher in the second frame: ~1 m / distance / pixel angle.
    let c = change(&a, &sphere(&a, r), &b, &sphere(&b, r + 1.0));
    let pa = b.pixel_angle();
    assert!(
        c.max_px > 0.5 / (10_000.0 * pa) && c.max_px < 1.0 / (1_000.0 * pa),
        "{c:?}"
    );
    // The same frame twice: nothing.
    let s = sphere(&a, r);
    assert!(change(&a, &s, &a, &s).max_px < 1e-9);
}

/// A boulder half sunk in the ground, seen from 2 m at a grazing angle: its lower outline
/// lies against ground a few per cent farther, a step below [`EDGE_TAU`].
fn boulder(cam: &ViewCamera, ahead: f64, radius: f64) -> Vec<Option<f64>> {
    let r = 6_371_000.0;
    let up = cam.eye.normalize();
    let flat = (cam.forward - up * cam.forward.dot(up)).normalize();
    let foot = (cam.eye + flat * ahead).normalize() * r;
    spheres(cam, &[(DVec3::ZERO, r), (foot, radius)])
}

/// 2 m above the ground looking 12° down, 480×320, and its centre pixel's angle.
fn grazing_camera() -> (ViewCamera, f64) {
    let cam = ViewCamera::geo(10.0, 20.0, 6_371_002.0, 30.0, -12.0, 60.0, 480, 320);
    let pa = cam.pixel_angle();
    (cam, pa)
}

#[test]
fn an_outlines_sub_pixel_move_is_no_pop_and_a_grown_boulder_is() {
    let (cam, pa) = grazing_camera();
    let a = boulder(&cam, 6.0, 0.5);
    // 1 cm larger: its outline moves 0.01 / ~6 m / pa ≈ 0.5 px.
    let grown_px = |dr: f64| dr / 6.0 / pa;
    let c = change(&cam, &a, &cam, &boulder(&cam, 6.0, 0.51));
    assert!(grown_px(0.01) < 0.6 && c.compared > 50_000, "{c:?}");
    assert!(c.max_px < 1.0, "a sub-pixel move of the outline: {c:?}");
    // 15 cm larger (~7 px): a pop, of several pixels, over many points.
    let c = change(&cam, &a, &cam, &boulder(&cam, 6.0, 0.65));
    assert!(grown_px(0.15) > 6.0, "{}", grown_px(0.15));
    assert!(c.max_px > 3.0 && c.over_1px > 100, "a grown boulder: {c:?}");
}

/// A crest 4 m ahead of the grazing camera drawn with radius `from`, then `to` (4 cm apart
/// at ~3.5 m): its top outline moves about 0.04 / 3.5 / pa px, and the pop must read as
/// that move — a pop, but not the ray's jump across a grazing crest.
fn assert_crest_pops_by_its_outlines_move(from: f64, to: f64) {
    let (cam, pa) = grazing_camera();
    let moved = 0.04 / 3.5 / pa;
    let c = change(
        &cam,
        &boulder(&cam, 4.0, from),
        &cam,
        &boulder(&cam, 4.0, to),
    );
    println!("outline moved ≈ {moved:.2} px: {c:?}");
    assert!(c.max_px > 1.0, "a real move is a pop: {c:?}");
    assert!(
        c.max_px < 2.5 * moved,
        "reported as the outline's move, not the ray's jump: {c:?}"
    );
}

/// A crest seen edge-on that the chords now draw a few centimetres lower (the H200 descent
/// at 2 m, docs/bench.md "Outlines keep the finest cap"): the points on its top that the
/// ray now passes over to the ground behind moved as far as the outline did, a few pixels —
/// not the metres of height their ray's jump would read as at a grazing crest.
#[test]
fn a_crest_drawn_lower_pops_by_its_outlines_move() {
    assert_crest_pops_by_its_outlines_move(0.5, 0.46);
}

/// The same crest drawn a few centimetres higher (the H200 descent at 8 m, docs/bench.md
/// "The pop metric's mirror case"): the ground points just behind its top are hidden now by
/// a surface that was not there before, but was drawn a few pixels away: the image moved by
/// the outline's move. (A boulder new in the frame was drawn nowhere near:
/// `parallax_occlusion_is_no_pop_and_a_new_boulder_is`.)
#[test]
fn a_crest_drawn_higher_pops_by_its_outlines_move() {
    assert_crest_pops_by_its_outlines_move(0.46, 0.5);
}

/// Two 64×64 px windows of an H200 descent (1920×1080, binary 4a689ab, frames 102 → 103
/// of `bench --flights descent` over the Khumbu: 20.0 → 17.5 m above the ground; rendered
/// with `render --lat 27.90 --lon 86.83 --alt … --heading 10 --pitch … --fov 60
/// --depth-out`), laid into otherwise empty frames: ground ~49 m away behind a rock's back
/// outline, a step of 9 % (under [`EDGE_TAU`]). As the camera sinks, the rock rises over
/// the ground behind it by a few pixels: parallax occlusion, no pop.
#[test]
fn parallax_behind_a_rocks_low_outline_is_no_pop() {
    let (w, h, s) = (1920usize, 1080usize, 64usize);
    let bytes = include_bytes!("testdata/descent-102-103-khumbu.bin");
    let f: Vec<f32> = bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let frame = |window: &[f32], (x0, y0): (usize, usize)| {
        let mut d = vec![None; w * h];
        for y in 0..s {
            for x in 0..s {
                let v = window[y * s + x];
                d[(y0 + y) * w + x0 + x] = (v > 0.0).then_some(v as f64);
            }
        }
        d
    };
    let (a, b) = (
        frame(&f[..s * s], (700, 484)),
        frame(&f[s * s..], (696, 447)),
    );
    let r = engine::params::EARTH_RADIUS_M;
    let cam = |agl: f64, pitch: f64| {
        ViewCamera::geo(
            27.90,
            86.83,
            r + 5712.85 + agl,
            10.0,
            pitch,
            60.0,
            1920,
            1080,
        )
    };
    let (ca, cb) = (cam(20.0, -21.428571), cam(17.467, -20.756303));
    let c = change(&ca, &a, &cb, &b);
    // Read across the step, the ground points behind the rock counted up to 21 px (72 over
    // 1 px); matched to the pixels around them, they do not move.
    assert!(c.compared > 3000, "{c:?}");
    assert!(c.max_px < 1.0 && c.over_1px == 0, "{c:?}");
}

#[test]
fn a_hole_is_a_coverage_change() {
    let r = 6_371_000.0;
    let a = ViewCamera::geo(0.0, 0.0, r + 5000.0, 0.0, -60.0, 60.0, 48, 32);
    let s = sphere(&a, r);
    let mut holed = s.clone();
    for y in 10..14 {
        for x in 20..24 {
            holed[y * 48 + x] = None;
        }
    }
    let (c, map) = change_map(&a, &s, &a, &holed);
    assert!(c.coverage_changed >= 4, "{c:?}");
    // The map says where: the hole's inner pixels changed coverage, the rest did not pop.
    assert_eq!(map.len(), 48 * 32);
    assert_eq!(map[12 * 48 + 22], MAP_COVERAGE);
    assert!(map[20 * 48 + 30] >= 0.0 && map[20 * 48 + 30] < 1e-6);
    assert!(map[0] == MAP_EXCLUDED && map[31 * 48 + 5] == MAP_EXCLUDED);
    let img = map_rgba(&map, 48, 32);
    assert_eq!(&img[(12 * 48 + 22) * 4..][..4], &[255, 0, 255, 255]);
    // The other way, the hole filling in: surface where the previous frame saw sky (the
    // reverse check), once per current pixel that reprojects inside the hole's sky.
    let (c, map) = change_map(&a, &holed, &a, &s);
    assert!(c.coverage_changed >= 4 && c.coverage_changed <= 16, "{c:?}");
    assert_eq!(map[12 * 48 + 22], MAP_COVERAGE);
    assert!(!edges(&s, 48, 32)[12 * 48 + 30] && edges(&holed, 48, 32)[12 * 48 + 24]);
}

/// A pixel's point found again: on itself from the same camera, further left from a camera
/// moved right, at its distance from each eye.
#[test]
fn a_reprojected_pixel_is_where_its_point_is_seen() {
    let r = 6_371_000.0;
    let a = ViewCamera::geo(0.0, 0.0, r + 5000.0, 0.0, -60.0, 60.0, 48, 32);
    let d = sphere(&a, r);
    let i = 20 * 48 + 30;
    let (j, e) = reprojected(&a, i, d[i].unwrap(), &a).expect("on screen");
    assert!(j == i && (e - d[i].unwrap()).abs() < 1e-6, "{j} {e}");
    let b = ViewCamera {
        eye: a.eye + a.right * 1000.0,
        ..a
    };
    let (j, e) = reprojected(&a, i, d[i].unwrap(), &b).expect("on screen");
    // 5.8 km away (5 km up, 60° down), 1 km to the side: 0.17 rad, about 5 px.
    assert!(j / 48 == 20 && (24..=26).contains(&(j % 48)), "{j} {e}");
    // An eye moved 1 km along the pixel's own ray sees the point on the same pixel, 1 km nearer.
    let ray = engine::reference::pixel_ray(&a, 30.5, 20.5);
    let n = ViewCamera {
        eye: a.eye + ray * 1000.0,
        ..a
    };
    let (j, e) = reprojected(&a, i, d[i].unwrap(), &n).expect("on screen");
    assert!(
        j == i && (e - (d[i].unwrap() - 1000.0)).abs() < 1e-6,
        "{j} {e}"
    );
    // Behind the moved camera: none.
    let c = ViewCamera {
        eye: a.eye + a.forward * 20_000.0,
        ..a
    };
    assert_eq!(reprojected(&a, i, d[i].unwrap(), &c), None);
}
