//! A view across a cube edge reads every hit on the face that owns it: over an analytic planet
//! with a valley across the edge between faces 0 and 2, each pixel's tile is on its hit's face
//! and the rendered depth agrees with the CPU reference (`engine::reference`, which reads every
//! point on its owning face) on both sides of the edge; on lavapipe under validation.

use engine::camera::ViewCamera;
use engine::planet::cube::face_of;
use engine::planet::{Body, Face};
use engine::reference::RefPixel;
use engine::renderer::{PlanetRenderer, RendererOptions};
use engine::source::{AnalyticSource, TileSource};
use glam::DVec3;
use planetfall_tests::{planet_frame, Gpu, PlanetFrame};
use std::sync::Arc;

const R: f64 = 6_371_000.0;

const W: u32 = 96;
const H: u32 = 64;

/// Signed distance (m) of direction `d` from the plane of the cube edge x = y between faces 0
/// and 2, positive on face 2's side.
fn from_edge(d: DVec3) -> f64 {
    R * ((d.y - d.x) / std::f64::consts::SQRT_2).asin()
}

/// A valley across the edge: its floor `FLOOR_M` past the edge on face 2, walls rising 2 km
/// over 5 km either side.
fn height(d: DVec3) -> f64 {
    const FLOOR_M: f64 = 3_000.0;
    let x = from_edge(d) - FLOOR_M;
    let q = (x / 5_000.0).powi(2);
    2_000.0 * q / (1.0 + q)
}

/// Past-face reads are rare in a rendered frame: a leaf's chord stays inside its face's cone,
/// so only the resolve's surface search (±10 % along the ray) or an ocean point can leave it;
/// with the old apron clamp this view had none (0 pixels on another face's slot, also with
/// the mesh 8× coarser and at grazing pitches). The ocean test below and `surface_gpu`'s
/// `a_point_past_its_face_is_read_on_the_owning_face` fail on the apron; this one guards the
/// whole frame over land: every pixel's tile is on the face that owns its hit, and the depth
/// agrees with the reference on both faces.
#[test]
fn a_view_across_a_cube_edge_reads_each_hit_on_its_owning_face() {
    let mut gpu = Gpu::new();
    let body = Body { radius: R };
    let src = Arc::new(AnalyticSource::new(body, 12, 2_100.0, height));
    // On face 0, 9 km short of the valley floor, 100 m up, looking east across the edge.
    let lon = 45.0 - (6_000.0 / R).to_degrees();
    let dir = engine::planet::cube::latlon_to_dir(0.0, lon);
    let cam = ViewCamera::geo(0.0, lon, R + height(dir) + 100.0, 90.0, -10.0, 60.0, W, H);
    let (r, f, reference) = settled_view(&mut gpu, src, &cam);
    let (mut both, mut on2, mut other_face, mut off, mut worst) = (0, 0, 0, 0, 0.0f64);
    for y in 0..H {
        for x in 0..W {
            let i = (y * W + x) as usize;
            let (a, c) = (&f.aov[i], reference[i]);
            let (true, Some(c)) = (a.is_terrain(), c) else {
                continue;
            };
            both += 1;
            let hit = DVec3::new(a.dir[0] as f64, a.dir[1] as f64, a.dir[2] as f64);
            on2 += (face_of(hit) == Face(2)) as u32;
            // The hit's tile is on the face that owns it (within a texel of the edge either
            // face's tile holds it: its apron).
            let tile = r
                .residency()
                .by_slot(a.slot as u32)
                .expect("a resident slot");
            if tile.id.face != face_of(hit) && from_edge(hit).abs() > body.texel(tile.id.level) {
                other_face += 1;
                println!("px {x},{y}: hit on {:?}, read {:?}", face_of(hit), tile.id);
            }
            let e = (a.dist as f64 - c).abs() / c;
            if e > 0.002 {
                off += 1;
            }
            worst = worst.max(e);
        }
    }
    println!(
        "{both} terrain px, {on2} on face 2, {other_face} read another face's tile, \
         {off} off the reference by > 0.2 % (worst {worst:.2e})"
    );
    assert!(
        on2 > W * H / 10 && both - on2 > W * H / 10,
        "the view shows both faces: {on2} of {both} px on face 2"
    );
    assert_eq!(other_face, 0, "pixels read on another face's tile");
    // Off the reference: only the grazing skyline of the far rim (one image row, measured 24
    // px at 12 %: a silhouette a pixel apart).
    assert!(off <= W, "{off} px off the reference by > 0.2 %");
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

/// A sea floor 20 m deep with a ridge along the cube edge x = y on face 2's side, its crest 3 m
/// under the sea 36 m past the edge: face 0's apron (four texels past its edge) holds the
/// ridge's rising flank.
fn sea_floor(d: DVec3) -> f64 {
    -20.0 + 17.0 * (-((from_edge(d) - 36.0) / 14.0).powi(2)).exp()
}

/// An ocean pixel whose visible leaf is sea floor on face 0 while the ray met the sea surface on
/// face 2 (a grazing ray under the sea crossing the edge): `publish.resolve` locates the
/// surface point with the leaf's face as its hint, and must read the floor under it on face 2,
/// which owns it. On the old apron clamp, face 0's apron continued the ridge's flank above the
/// datum there: no sea, and 192 pixels (two image rows) showed the floor beyond at 2.3 km
/// against the sea's 0.77 km (measured; 96 sea pixels read face 0's tile with a flat floor).
#[test]
fn an_ocean_pixel_past_its_leaf_face_reads_the_owning_face() {
    let mut gpu = Gpu::new();
    let body = Body { radius: R };
    let src = Arc::new(AnalyticSource::new(body, 14, 25.0, sea_floor));
    // On face 2, 700 m east of the edge, 10 m over the sea, looking west just below the horizon:
    // rays meet the sea 300–1,000 m out, pass over the ridge and meet the floor on face 0.
    let lon = 45.0 + (700.0 / R).to_degrees();
    let cam = ViewCamera::geo(0.0, lon, R + 10.0, 270.0, -1.5, 60.0, W, H);
    let (r, f, reference) = settled_view(&mut gpu, src, &cam);
    let (mut water2, mut other_face) = (0, 0);
    for (i, a) in f.aov.iter().enumerate() {
        if !a.is_terrain() || !a.is_water() {
            continue;
        }
        let hit = DVec3::new(a.dir[0] as f64, a.dir[1] as f64, a.dir[2] as f64);
        let tile = r
            .residency()
            .by_slot(a.slot as u32)
            .expect("a resident slot");
        let past = from_edge(hit);
        // Past the apron of face 0's tiles (4 texels) by a margin.
        if past > 8.0 * body.texel(tile.id.level) {
            water2 += 1;
            if tile.id.face != face_of(hit) {
                other_face += 1;
                if other_face <= 5 {
                    println!(
                        "px {i}: sea surface {past:.0} m past the edge read on {:?}",
                        tile.id
                    );
                }
            }
        }
    }
    // The depth is the reference's (the sea surface): on face 0's apron the sea floor past the
    // edge continues the ridge's rising flank above the datum, no sea, and the pixel would show
    // the floor beyond.
    let (mut off, mut worst) = (0, 0.0f64);
    for (i, (a, c)) in f.aov.iter().zip(&reference).enumerate() {
        let (true, Some(c)) = (a.is_terrain(), c) else {
            continue;
        };
        let e = (a.dist as f64 - c).abs() / c;
        worst = worst.max(e);
        if e > 0.01 {
            off += 1;
            if off <= 5 {
                println!("px {i}: depth {} m, reference {c:.1} m", a.dist);
            }
        }
    }
    println!(
        "{water2} sea px on face 2 past the apron, {other_face} read another face's tile, \
         {off} px off the reference by > 1 % (worst {worst:.2e})"
    );
    assert!(water2 > W, "the view shows the sea on face 2: {water2} px");
    assert_eq!(other_face, 0, "sea pixels read on another face's tile");
    assert_eq!(off, 0, "pixels off the reference by > 1 %");
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}

/// A renderer over `src` settled on `cam`, its last frame, and the CPU reference of that frame
/// over the same resident tiles.
fn settled_view(
    gpu: &mut Gpu,
    src: Arc<AnalyticSource>,
    cam: &ViewCamera,
) -> (PlanetRenderer, PlanetFrame, Vec<RefPixel>) {
    let mut opts = RendererOptions::for_device(&gpu.ctx);
    opts.slots = 256;
    opts.pool_capacity = 1 << 16;
    let relief = src.max_relief();
    let mut r = PlanetRenderer::new(&gpu.ctx, src, opts, gpu.exec.frames_in_flight()).unwrap();
    let mut f = planet_frame(gpu, &mut r, cam);
    for _ in 0..40 {
        if r.settled() {
            break;
        }
        f = planet_frame(gpu, &mut r, cam);
    }
    assert!(r.settled(), "{:?}", r.stats);
    let lod = r.lod_params(cam);
    let reference = engine::reference::render(r.residency(), &lod, r.body, cam, relief);
    (r, f, reference)
}
