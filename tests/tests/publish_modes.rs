//! The publish's two paths for the leaves `raster.compute` hands over (near-plane crossers, big
//! footprints): `raster.hardware` and `raster.compute.big`. Synthetic triangles are rasterised
//! both ways and checked against an f64 ray cast of the same triangles (the clip at the near
//! plane included); settled planet views are published both ways and their hit records
//! compared, and against the CPU reference for holes. On lavapipe under validation.

mod publish_common;
use engine::camera::ViewCamera;
use engine::frame_constants::NEAR_M;
use engine::publish::{PublishMode, PublishOptions};
use engine::renderer::PlanetRenderer;
use engine::shade::AovPixel;
use engine::source::TileSource;
use glam::DVec3;
use planetfall_tests::{
    aov_with, earth_ground, earth_source, planet_frame, settled_planet, test_renderer_options, Gpu,
};
use publish_common::*;

/// The nearest of `tris` along the ray through screen point (x, y) px whose view depth is at
/// least the near plane: (leaf, view depth), in f64 (Möller–Trumbore).
fn cast(cam: &ViewCamera, tris: &[[DVec3; 3]], x: f64, y: f64) -> Option<(u32, f64)> {
    let d = engine::reference::pixel_ray(cam, x, y);
    let mut best: Option<(u32, f64)> = None;
    for (i, [a, b, c]) in tris.iter().enumerate() {
        let (e1, e2) = (*b - *a, *c - *a);
        let p = d.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-18 {
            continue;
        }
        let s = -*a;
        let u = s.dot(p) / det;
        let q = s.cross(e1);
        let v = d.dot(q) / det;
        let t = e2.dot(q) / det;
        let depth = t * d.dot(cam.forward);
        if u >= 0.0
            && v >= 0.0
            && u + v <= 1.0
            && depth >= NEAR_M
            && best.is_none_or(|b| depth < b.1)
        {
            best = Some((i as u32, depth));
        }
    }
    best
}

/// What the CPU expects at pixel (x, y): the leaf and its key depth (1 / z_ndc = depth / NEAR),
/// or None when nothing covers it — and whether that is certain: the same leaf (or none)
/// 0.01 px away on either side in x and y, so no edge, near-plane crossing or depth tie
/// passes within 0.01 px of the centre.
fn expect(cam: &ViewCamera, tris: &[[DVec3; 3]], x: u32, y: u32) -> (Option<(u32, f64)>, bool) {
    let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
    let c = cast(cam, tris, cx, cy);
    let leaf = |h: Option<(u32, f64)>| h.map(|h| h.0);
    let certain = [(0.01, 0.0), (-0.01, 0.0), (0.0, 0.01), (0.0, -0.01)]
        .iter()
        .all(|(dx, dy)| leaf(cast(cam, tris, cx + dx, cy + dy)) == leaf(c));
    (c.map(|(l, d)| (l, d / NEAR_M)), certain)
}

fn key_of(v: u64) -> Option<(u32, f64)> {
    (v != u64::MAX).then(|| (v as u32, f32::from_bits((v >> 32) as u32) as f64))
}

/// Both modes against the CPU at every certain pixel, and against each other at ≥ 99.9 % of
/// all pixels. Returns the number of covered pixels.
fn check(gpu: &mut Gpu, name: &str, tris: &[[DVec3; 3]]) -> usize {
    let cam = camera();
    let mode = |mode| PublishOptions {
        mode,
        ..Default::default()
    };
    let hw = rasterise(gpu, &cam, tris, mode(PublishMode::Hardware));
    let cs = rasterise(gpu, &cam, tris, mode(PublishMode::Compute));
    // Every leaf through raster.compute.big: the one-thread path (row spans) and the tiled
    // path share the coverage rule, so the keys are the same bits in every pixel.
    let all_big = rasterise(
        gpu,
        &cam,
        tris,
        PublishOptions {
            max_box_px: 0,
            ..mode(PublishMode::Compute)
        },
    );
    let differ = (0..cs.len()).filter(|&i| cs[i] != all_big[i]).count();
    assert_eq!(
        differ, 0,
        "{name}: one thread per leaf vs all tiled: {differ} px differ"
    );
    let (mut covered, mut certain, mut agree, mut worst_rel) = (0, 0, 0, 0.0f64);
    for y in 0..H {
        for x in 0..W {
            let i = (y * W + x) as usize;
            let (want, sure) = expect(&cam, tris, x, y);
            let (h, c) = (key_of(hw[i]), key_of(cs[i]));
            covered += want.is_some() as usize;
            let same = match (h, c) {
                (None, None) => true,
                (Some(a), Some(b)) => a.0 == b.0 && (a.1 - b.1).abs() <= 1e-5 * a.1,
                _ => false,
            };
            agree += same as usize;
            if !sure {
                continue;
            }
            certain += 1;
            for (mode, got) in [("hw", h), ("compute", c)] {
                match (want, got) {
                    (None, None) => {}
                    (Some(w), Some(g)) => {
                        assert_eq!(g.0, w.0, "{name} {mode}: leaf at ({x}, {y})");
                        let rel = (g.1 - w.1).abs() / w.1;
                        worst_rel = worst_rel.max(rel);
                        assert!(
                            rel <= 1e-5,
                            "{name} {mode}: key depth {} at ({x}, {y}), CPU {}",
                            g.1,
                            w.1
                        );
                    }
                    _ => panic!("{name} {mode}: ({x}, {y}) drawn {got:?}, CPU {want:?}"),
                }
            }
        }
    }
    let n = (W * H) as usize;
    println!(
        "{name}: {covered} px covered, {certain} certain, hw = compute at {agree} of {n}, \
         worst key depth error {worst_rel:.2e}"
    );
    assert!(
        certain * 10 >= n * 9,
        "{name}: most pixels are certain ({certain})"
    );
    assert!(
        agree * 1000 >= n * 999,
        "{name}: hw = compute at {agree} of {n} px"
    );
    gpu.assert_clean();
    covered
}

/// A wavy ground 1.5 m below the eye, 2 m quads from 6 m behind the camera to 40 m ahead: the
/// rows under and behind the eye cross the near plane, the near ones are big on screen, the far
/// ones small. Shared edges everywhere: a crack would show as an uncovered certain pixel.
fn ground(cam: &ViewCamera) -> Vec<[DVec3; 3]> {
    let y = |x: f64, z: f64| -1.5 + 0.3 * (0.7 * x).sin() * (0.5 * z).cos();
    let p = |x: f64, z: f64| at(cam, x, y(x, z), z);
    let mut tris = Vec::new();
    for i in -10..10 {
        for j in -3..20 {
            let (x0, z0) = (2.0 * i as f64, 2.0 * j as f64);
            let (x1, z1) = (x0 + 2.0, z0 + 2.0);
            tris.push([p(x0, z0), p(x1, z0), p(x1, z1)]);
            tris.push([p(x0, z0), p(x1, z1), p(x0, z1)]);
        }
    }
    tris
}

#[test]
fn compute_publish_clips_at_the_near_plane_like_the_hardware() {
    let mut gpu = Gpu::new();
    let cam = camera();
    let p = |x, y, z| at(&cam, x, y, z);
    // One corner behind the eye: the clipped polygon is a quad, its clipped corners hundreds
    // of pixels off screen.
    let quad = [[p(0.0, -1.5, -2.0), p(-4.0, -1.5, 6.0), p(4.0, -1.5, 6.0)]];
    assert!(check(&mut gpu, "crossing, one corner behind", &quad) > 300);
    // Two corners behind: a clipped triangle over most of the screen.
    let tri = [[
        p(-50.0, -30.0, -1.0),
        p(50.0, -30.0, -1.0),
        p(0.0, 60.0, 40.0),
    ]];
    assert!(check(&mut gpu, "crossing, two corners behind", &tri) > (W * H / 2) as usize);
    // Wholly behind the eye, and wholly between the eye and the near plane: nothing.
    let behind = [
        [p(-1.0, 0.0, -1.0), p(1.0, 0.0, -1.0), p(0.0, 1.0, -2.0)],
        [p(-0.01, 0.0, 0.02), p(0.01, 0.0, 0.03), p(0.0, 0.01, 0.01)],
    ];
    assert_eq!(check(&mut gpu, "behind the near plane", &behind), 0);
    // Wholly in front: big (over MAX_BOX px) and small.
    let front = [
        [p(-3.0, -2.0, 5.0), p(3.0, -2.0, 5.0), p(0.0, 2.0, 5.5)],
        [p(-0.1, -0.1, 4.0), p(0.1, -0.1, 4.0), p(0.0, 0.1, 4.0)],
    ];
    assert!(check(&mut gpu, "in front, big and small", &front) > 1024);
    let g = ground(&cam);
    assert!(check(&mut gpu, "wavy ground", &g) > (W * H / 3) as usize);
    // 300 overlapping triangles at 5–12 m, most of them over MAX_BOX px: a long hand-over list
    // (the search for a tile's leaf takes several rounds).
    let stack: Vec<[DVec3; 3]> = (0..300)
        .map(|i| {
            let cx = ((i * 37) % 50) as f64 / 50.0 * 6.0 - 3.0;
            let cy = ((i * 53) % 40) as f64 / 40.0 * 4.0 - 2.0;
            let z = 5.0 + (i % 17) as f64 * 0.4 + i as f64 * 0.001;
            [
                p(cx - 2.0, cy - 1.5, z),
                p(cx + 2.0, cy - 1.5, z + 0.3),
                p(cx, cy + 2.0, z + 0.1),
            ]
        })
        .collect();
    assert!(check(&mut gpu, "a stack of big triangles", &stack) > (W * H / 2) as usize);
}
/// The renderer runs a concrete mode: the one asked for, or auto's choice for the device.
#[test]
fn the_renderer_resolves_the_publish_mode() {
    let gpu = Gpu::new();
    for (asked, runs) in [
        (PublishMode::Compute, PublishMode::Compute),
        (PublishMode::Hardware, PublishMode::Hardware),
        (PublishMode::Auto, PublishMode::Compute),
    ] {
        let mut o = test_renderer_options(&gpu.ctx);
        o.publish.mode = asked;
        let r =
            PlanetRenderer::new(&gpu.ctx, earth_source(), o, gpu.exec.frames_in_flight()).unwrap();
        assert_eq!(r.publish_mode(), runs, "{asked:?}");
        r.destroy(&gpu.ctx);
    }
}

/// A settled view: its hit records (through the AOV) in hardware and compute mode.
struct Both {
    cam: ViewCamera,
    hw: Vec<AovPixel>,
    compute: Vec<AovPixel>,
    /// The CPU reference (distance or None per pixel).
    reference: Vec<Option<f64>>,
}

fn publish_both(gpu: &mut Gpu, cam: ViewCamera, frames: u32) -> Both {
    let src = earth_source();
    let mut r = PlanetRenderer::new(
        &gpu.ctx,
        src.clone(),
        test_renderer_options(&gpu.ctx),
        gpu.exec.frames_in_flight(),
    )
    .unwrap();
    r.set_publish_mode(&gpu.ctx, PublishMode::Hardware);
    for _ in 0..frames {
        planet_frame(gpu, &mut r, &cam);
        if r.settled() {
            break;
        }
    }
    // Two frames in flight: the last ones of the settled mesh, in each mode.
    let mut hw = Vec::new();
    for _ in 0..2 {
        let next = planet_frame(gpu, &mut r, &cam).aov;
        if !hw.is_empty() {
            assert!(
                same(&hw, &next),
                "the settled view repeats in hardware mode"
            );
        }
        hw = next;
    }
    r.set_publish_mode(&gpu.ctx, PublishMode::Compute);
    let compute = planet_frame(gpu, &mut r, &cam).aov;
    r.set_publish_mode(&gpu.ctx, PublishMode::Hardware);
    assert!(
        same(&hw, &planet_frame(gpu, &mut r, &cam).aov),
        "the mesh did not move"
    );
    let lod = r.lod_params(&cam);
    let reference = engine::reference::render(r.residency(), &lod, r.body, &cam, src.max_relief());
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
    Both {
        cam,
        hw,
        compute,
        reference,
    }
}

fn same(a: &[AovPixel], b: &[AovPixel]) -> bool {
    a.iter()
        .zip(b)
        .all(|(a, b)| bytemuck::bytes_of(a) == bytemuck::bytes_of(b))
}

/// Pixels where the reference sees terrain and the frame does not although terrain shows
/// higher in the same column (a hole, not the silhouette).
fn holes(aov: &[AovPixel], reference: &[Option<f64>]) -> usize {
    let (w, h) = (W as usize, H as usize);
    let terrain = |x: usize, y: usize| aov[y * w + x].is_terrain();
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            reference[y * w + x].is_some() && !terrain(x, y) && (0..y).any(|yy| terrain(x, yy))
        })
        .count()
}

fn compare(name: &str, b: &Both) {
    let n = b.hw.len();
    let agree =
        b.hw.iter()
            .zip(&b.compute)
            .filter(|(h, c)| {
                h.is_terrain() == c.is_terrain()
                    && (!h.is_terrain()
                        || (h.dist - c.dist).abs() <= 1e-4 * h.dist && h.level == c.level)
            })
            .count();
    let terrain = b.hw.iter().filter(|p| p.is_terrain()).count();
    let (hh, hc) = (holes(&b.hw, &b.reference), holes(&b.compute, &b.reference));
    println!(
        "{name} ({:.1} m above the datum): {terrain} terrain px, hw = compute at {agree} of {n}, holes hw {hh}, compute {hc}",
        b.cam.eye.length() - 6_371_000.0
    );
    assert!(terrain > n / 20, "{name}: the view shows terrain");
    assert!(
        agree * 1000 >= n * 999,
        "{name}: hw = compute at {agree} of {n} px"
    );
    assert!(
        hc <= hh,
        "{name}: compute has {hc} holes against the reference, hw {hh}"
    );
}

const R: f64 = 6_371_000.0;

#[test]
fn two_metres_above_the_ground_compute_publish_equals_hardware() {
    let mut gpu = Gpu::new();
    // Khumbu valley looking north at the horizon, and a Hawaiian slope looking 30° down: the
    // leaves under the eye cross the near plane.
    for (name, lat, lon, heading, pitch) in [
        ("khumbu 2 m, level", 27.90, 86.83, 10.0, 0.0),
        ("hawaii 2 m, −30°", 19.64, -156.0, 270.0, -30.0),
    ] {
        let eye = R + earth_ground(lat, lon) + 2.0;
        let cam = ViewCamera::geo(lat, lon, eye, heading, pitch, 60.0, W, H);
        compare(name, &publish_both(&mut gpu, cam, 30));
    }
}

#[test]
fn from_orbit_compute_publish_equals_hardware() {
    let mut gpu = Gpu::new();
    let cam = ViewCamera::geo(5.0, 20.0, R + 20_000_000.0, 0.0, -90.0, 60.0, W, H);
    compare("africa orbit", &publish_both(&mut gpu, cam, 10));
}

/// The root search's late steps stop within a looser trigger (from step 2, four times it): over
/// the Khumbu's rough ground seen at a grazing angle many searches take more than one step, and
/// the looser trigger ends some of them sooner, while every pixel still shows terrain.
#[test]
fn the_late_trigger_ends_long_searches_sooner() {
    let mut gpu = Gpu::new();
    let (lat, lon) = (27.90, 86.83);
    let eye = R + earth_ground(lat, lon) + 2.0;
    let cam = ViewCamera::geo(lat, lon, eye, 10.0, -5.0, 60.0, W, H);
    let mut r = settled_planet(&mut gpu, &cam, 30);
    let base = r.publish_options();
    let mut walks_by_late = Vec::new();
    for (late_after, late_scale) in [(0, 1.0), (2, 4.0)] {
        let opts = PublishOptions {
            late_after,
            late_scale,
            ..base
        };
        aov_with(&mut gpu, &mut r, &cam, opts);
        let got = aov_with(&mut gpu, &mut r, &cam, opts);
        let terrain = got.iter().filter(|p| p.is_terrain()).count();
        // Pixels whose search took two steps or more after the chord point's walk.
        let long = got.iter().filter(|p| p.walks >= 3.0).count();
        let walks: f64 = got.iter().map(|p| p.walks as f64).sum();
        println!(
            "khumbu 2 m, late steps from {late_after} at {late_scale}x: {terrain} terrain px, \
             {long} searched two steps or more, {walks} walks"
        );
        assert!(terrain > got.len() / 2, "the view shows terrain");
        assert!(long > 20, "some searches run long ({long})");
        walks_by_late.push((walks, terrain));
    }
    assert!(
        walks_by_late[1].0 < walks_by_late[0].0,
        "walks with the late trigger {} against {}",
        walks_by_late[1].0,
        walks_by_late[0].0
    );
    assert_eq!(
        walks_by_late[1].1, walks_by_late[0].1,
        "the same terrain pixels"
    );
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}
