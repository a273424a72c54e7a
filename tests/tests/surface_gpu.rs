//! The GPU surface (shaders/common/surface.glsl) against the CPU reference (engine::surface):
//! heights agree within 1 cm at probes spanning levels, tile edges, face edges and level-blend
//! rings; both sides of a tile edge and of a level ring agree within 1 mm.

use engine::atlas::slots::{Residency, ResidentTile};
use engine::atlas::{SurfaceBindings, TileAtlas};
use engine::camera::ViewCamera;
use engine::frame_constants::{FrameConstantBuffers, FrameConstants};
use engine::planet::cube::{fixed_to_unit, FIXED_ONE};
use engine::planet::{Body, Face, TileId};
use engine::source::{AnalyticSource, TileSource};
use engine::surface::{height_at_fixed, surface_at_fixed, LodParams};
use framegraph::{BufferDesc, BufferRef, Graph};
use glam::DVec3;
use planetfall_tests::Gpu;

const R: f64 = 6_371_000.0;

/// Smooth relief with detail at several scales (metres).
fn relief(d: DVec3) -> f64 {
    let k = R / 1.0e5; // 100 km waves
    800.0 * (d.x * k).sin() * (d.y * k * 0.7).cos()
        + 120.0 * (d.z * k * 13.0).sin()
        + 30.0 * ((d.x + d.y) * k * 90.0).cos()
        + 200.0
}

/// Six roots plus, around `face`/(u, v), a chain down to `deep` with its 3×3 neighbourhood at
/// every level, and two tiles fading in.
fn residency(src: &AnalyticSource, face: Face, u: f64, v: f64, deep: u8) -> Residency {
    let body = src.body();
    let mut ids: Vec<TileId> = Face::ALL.iter().map(|&f| TileId::new(0, f, 0, 0)).collect();
    for level in 1..=deep {
        let c = TileId::containing(level, face, u, v);
        for dy in -1..=1 {
            for dx in -1..=1 {
                if let Some(n) = c.neighbour(dx, dy) {
                    // Keep residency closed under ancestors.
                    let mut a = Some(n);
                    while let Some(t) = a {
                        if !ids.contains(&t) {
                            ids.push(t);
                        }
                        a = t.parent();
                    }
                }
            }
        }
    }
    let deepest = TileId::containing(deep, face, u, v);
    ids.sort_by_key(|t| (t.level, t.face, t.y, t.x));
    let tiles = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            // The deepest centre tile and one neighbour are mid-fade.
            let fade = if id == deepest {
                0.4
            } else if Some(id) == deepest.neighbour(1, 0) {
                0.7
            } else {
                1.0
            };
            ResidentTile::new(id, i as u32, i as u32, fade, src.tile(id), body)
        })
        .collect();
    Residency::new(tiles)
}

#[test]
fn gpu_surface_matches_cpu_reference() {
    let body = Body { radius: R };
    let src = AnalyticSource::new(body, 12, 1200.0, relief);
    let (face, u, v) = (Face(0), 0.999, 0.31); // near the +u face edge (shared with face 2)
    let res = residency(&src, face, u, v, 7);
    let dir = face.direction(u, v);
    let ground = R + relief(dir);
    let cam = ViewCamera::look(
        dir * (ground + 3000.0),
        -dir + DVec3::Z * 0.3,
        DVec3::Z,
        60.0,
        256,
        256,
    );
    let lod = LodParams {
        texel0: body.texel0(),
        pixel_angle: cam.pixel_angle(),
        lod_bias: 0.0,
        max_level: engine::params::MAX_LEVEL,
    };

    // Probes: (face, X, Y, t).
    let one = FIXED_ONE;
    let fx = |x: f64| ((x + 1.0) * 0.5 * one as f64) as u64;
    let mut probes: Vec<(Face, u64, u64, f64)> = Vec::new();
    let mut rng = 0x1234_5678u64;
    let mut rnd = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 11) as f64 / (1u64 << 53) as f64
    };
    let (cx, cy) = (fx(u), fx(v));
    // Random points around the chain at varied distances (crossing level rings).
    for _ in 0..200 {
        let x = (cx as f64 + (rnd() - 0.7) * 4.0e6).clamp(0.0, one as f64) as u64;
        let y = (cy as f64 + (rnd() - 0.5) * 4.0e6) as u64;
        probes.push((face, x, y, 100.0 * 2f64.powf(rnd() * 12.0)));
    }
    // Tile edges at L7 and L6 (both sides), the face edge (X = 2^30) and just inside it.
    let edge7 = (cy >> 23) << 23;
    let edge6 = (cx >> 24) << 24;
    let mut pairs = Vec::new();
    for &t in &[500.0, 3000.0, 20_000.0] {
        for k in 0..8u64 {
            let x = cx - 3_000_000 + k * 700_000;
            pairs.push(((face, x, edge7 - 1, t), (face, x, edge7 + 1, t)));
            let y = cy - 2_000_000 + k * 500_000;
            pairs.push(((face, edge6 - 1, y, t), (face, edge6 + 1, y, t)));
        }
        for k in 0..8u64 {
            probes.push((face, one, cy - 2_000_000 + k * 500_000, t));
            probes.push((face, one - 1, cy - 2_000_000 + k * 500_000, t));
        }
    }
    // Level rings: t where lc is an integer, approached from both sides.
    let mut rings = Vec::new();
    for level in 2..=7u8 {
        let t_ring = body.texel0() / (lod.pixel_angle * 2f64.powi(level as i32));
        let x = cx - 100_000 * level as u64;
        rings.push((
            (face, x, cy, t_ring * (1.0 - 1e-6)),
            (face, x, cy, t_ring * (1.0 + 1e-6)),
        ));
    }
    let first_pair = probes.len();
    for (a, b) in pairs.iter().chain(&rings) {
        probes.push(*a);
        probes.push(*b);
    }
    let mut gpu = Gpu::new();
    let r = run_probes(&mut gpu, &res, &cam, &probes);

    let mut worst = 0.0f64;
    let mut worst_pos = 0.0f64;
    let mut levels = std::collections::BTreeSet::new();
    for (i, &(f, x, y, t)) in probes.iter().enumerate() {
        let (h_cpu, level) = height_at_fixed(&res, &lod, f, x, y, t as f32 as f64);
        let h_gpu = r[3 * i][0] as f64;
        assert_eq!(r[3 * i][1] as u8, level, "probe {i}: level");
        levels.insert(level);
        worst = worst.max((h_gpu - h_cpu).abs());
        assert!(
            (h_gpu - h_cpu).abs() < 0.01,
            "probe {i} {f:?} ({x},{y}) t={t}: GPU {h_gpu} CPU {h_cpu}"
        );
        // The two-pass vertex path: same height; position within the chart's precision.
        let sp = surface_at_fixed(&res, &lod, body, cam.eye, f, x, y);
        let gp = r[3 * i + 1];
        let st_err = locate_error(&res, sp.position, r[3 * i + 2]);
        assert!(
            st_err < 2e-3,
            "probe {i}: locate() found st {st_err} texel off"
        );
        assert!(
            r[3 * i + 2][3].abs() < 0.05,
            "probe {i}: locate() height {} m off",
            r[3 * i + 2][3]
        );
        assert!(
            (gp[3] as f64 - sp.height).abs() < 0.01,
            "probe {i}: vertex height GPU {} CPU {}",
            gp[3],
            sp.height
        );
        let pos = DVec3::new(gp[0] as f64, gp[1] as f64, gp[2] as f64);
        let err = (pos - (sp.position - cam.eye)).length();
        let texel = body.texel(sp.level.max(res.finest(f, x, y, 18).id.level));
        worst_pos = worst_pos.max(err / texel);
        assert!(
            err < 0.01 + 2e-4 * texel + 1e-6 * (sp.position - cam.eye).length(),
            "probe {i}: position off by {err} m"
        );
    }
    // Continuity across tile edges and level rings: paired probes 2 fixed units apart.
    for k in 0..(pairs.len() + rings.len()) {
        let (a, b) = (
            r[3 * (first_pair + 2 * k)][0],
            r[3 * (first_pair + 2 * k + 1)][0],
        );
        assert!((a - b).abs() < 1e-3, "pair {k}: {a} vs {b}");
    }
    assert!(worst < 0.01, "worst height difference {worst} m");
    println!("worst height difference {worst:.2e} m, worst vertex position {worst_pos:.2e} texel, levels {levels:?}");
    assert!(levels.len() >= 5, "probes must span levels: {levels:?}");
    let _ = fixed_to_unit(0);
    gpu.assert_clean();
}

/// Only the six roots resident (as from orbit): the exact L0 charts across whole faces.
#[test]
fn roots_only_surface_matches_on_every_face() {
    let body = Body { radius: R };
    let src = AnalyticSource::new(body, 12, 1200.0, relief);
    let tiles: Vec<ResidentTile> = Face::ALL
        .iter()
        .enumerate()
        .map(|(i, &f)| {
            ResidentTile::new(
                TileId::new(0, f, 0, 0),
                i as u32,
                i as u32,
                1.0,
                src.tile(TileId::new(0, f, 0, 0)),
                body,
            )
        })
        .collect();
    let res = Residency::new(tiles);
    let cam = ViewCamera::geo(20.0, 70.0, R + 2.0e7, 0.0, -90.0, 60.0, 128, 128);
    let lod = LodParams {
        texel0: body.texel0(),
        pixel_angle: cam.pixel_angle(),
        lod_bias: 0.0,
        max_level: engine::params::MAX_LEVEL,
    };
    let mut probes = Vec::new();
    for f in Face::ALL {
        for k in 0..25u64 {
            let (x, y) = ((k % 5) * (FIXED_ONE / 4), (k / 5) * (FIXED_ONE / 4));
            probes.push((f, x.min(FIXED_ONE), y.min(FIXED_ONE), 2.0e7));
        }
    }
    let mut gpu = Gpu::new();
    let r = run_probes(&mut gpu, &res, &cam, &probes);
    for (i, &(f, x, y, _)) in probes.iter().enumerate() {
        let sp = surface_at_fixed(&res, &lod, body, cam.eye, f, x, y);
        let gp = r[3 * i + 1];
        let pos = DVec3::new(gp[0] as f64, gp[1] as f64, gp[2] as f64);
        let err = (pos - (sp.position - cam.eye)).length();
        // L0 texels are 19.5 km; the exact chart in f32 is good to ~1e-3 texel.
        assert!(
            err < 40.0,
            "probe {i} {f:?} ({x},{y}): position off by {err} m"
        );
        let st_err = locate_error(&res, sp.position, r[3 * i + 2]);
        assert!(
            st_err < 2e-3,
            "probe {i} {f:?}: locate() {st_err} texel off"
        );
    }
    gpu.assert_clean();
}

/// A point past its hint's face (a publish resolve's chord or ocean point can be: the hint is
/// its leaf's face) is read on the face that owns it — the tile and texel the CPU's
/// `engine::surface::locate` finds — not on the hint's face, whose folded apron holds four
/// texels of the neighbour and then repeats its last sample.
#[test]
fn a_point_past_its_face_is_read_on_the_owning_face() {
    let body = Body { radius: R };
    let src = AnalyticSource::new(body, 12, 1200.0, relief);
    let (face, u, v) = (Face(0), 0.999, 0.31); // the chain reaches over the +u edge to face 2
    let res = residency(&src, face, u, v, 7);
    let dir = face.direction(u, v);
    let cam = ViewCamera::look(
        dir * (R + relief(dir) + 3000.0),
        -dir + DVec3::Z * 0.3,
        DVec3::Z,
        60.0,
        256,
        256,
    );
    // L7 texels (153 m) past the edge, 30 m above the ground: half a texel (inside the apron) to
    // 300 texels, along the edge around the chain.
    let texel7 = body.texel(7);
    let mut points = Vec::new();
    for (k, past) in [0.6, 2.0, 5.0, 12.0, 40.0, 120.0, 300.0].iter().enumerate() {
        for dv in [-0.002, 0.0, 0.0015] {
            let d = face.direction(
                1.0 + past * texel7 / (0.25 * std::f64::consts::PI * R),
                v + dv,
            );
            let p = d * (R + relief(d) + 30.0 + k as f64);
            points.push(p);
        }
    }
    let hint_y = ((v + 1.0) * 0.5 * FIXED_ONE as f64) as u32;
    let n = points.len();
    let pos: Vec<[f32; 4]> = points
        .iter()
        .map(|p| {
            let q = *p - cam.eye;
            [q.x as f32, q.y as f32, q.z as f32, 0.0]
        })
        .collect();
    let hints: Vec<[u32; 4]> = vec![[face.0 as u32, FIXED_ONE as u32, hint_y, 0]; n];
    let mut gpu = Gpu::new();
    let r = run_surface_frame(&mut gpu, &res, &cam, |g, b| {
        let mut input = g.create_buffer("test.points", BufferDesc::gpu(16 * n as u64));
        let mut hint = g.create_buffer("test.hints", BufferDesc::gpu(16 * n as u64));
        let mut output = g.create_buffer("test.results", BufferDesc::gpu(16 * n as u64));
        g.transfer("test.points.upload")
            .update(&mut input, 0, bytemuck::cast_slice(&pos))
            .update(&mut hint, 0, bytemuck::cast_slice(&hints));
        g.compute("test.locate_probe", &shaders::TEST_LOCATE_PROBE)
            .read("frame", b.frame)
            .read("slots", b.slots)
            .read("tile_lookup", b.lookup)
            .read("probes_in", input)
            .read("hints_in", hint)
            .write("results_out", &mut output)
            .push(&(n as u32))
            .dispatch_threads([n as u32, 1, 1]);
        output
    });
    let mut worst = 0.0f64;
    for (i, p) in points.iter().enumerate() {
        let (tile, s, t) = engine::surface::locate(&res, engine::params::MAX_LEVEL, *p);
        assert_ne!(tile.id.face, face, "point {i} lies on the neighbour face");
        let g = r[i];
        let found = res.by_slot(g[0] as u32).map(|t| t.id);
        assert_eq!(
            found,
            Some(tile.id),
            "point {i}: GPU read slot {} ({found:?}), the owning face's tile is {:?}",
            g[0],
            tile.id
        );
        let st_err = ((g[1] as f64 - s).powi(2) + (g[2] as f64 - t).powi(2)).sqrt();
        worst = worst.max(st_err);
        assert!(st_err < 0.01, "point {i}: st off by {st_err} texel");
        let h = p.length() - R;
        assert!(
            (g[3] as f64 - h).abs() < 0.05,
            "point {i}: height {} m, CPU {h} m",
            g[3]
        );
    }
    println!("{n} points past the face edge, worst st {worst:.2e} texel");
    gpu.assert_clean();
}

/// How far (texels) the GPU's `locate` result (s, t, slot) lies from where the CPU's
/// `engine::surface::locate` finds planet-centred point `p`; infinite for another tile.
fn locate_error(res: &Residency, p: DVec3, gpu: [f32; 4]) -> f64 {
    let (tile, s, t) = engine::surface::locate(res, engine::params::MAX_LEVEL, p);
    if gpu[2] as u32 != tile.slot {
        return f64::INFINITY;
    }
    ((gpu[0] as f64 - s).powi(2) + (gpu[1] as f64 - t).powi(2)).sqrt()
}

/// Run the probe shader over `probes` (face, X, Y, ray distance) with `res` resident; three
/// vec4 per probe (see `shaders/test/surface_probe.comp`).
fn run_probes(
    gpu: &mut Gpu,
    res: &Residency,
    cam: &ViewCamera,
    probes: &[(Face, u64, u64, f64)],
) -> Vec<[f32; 4]> {
    let n = probes.len();
    let words: Vec<[u32; 4]> = probes
        .iter()
        .map(|&(f, x, y, t)| [f.0 as u32, x as u32, y as u32, (t as f32).to_bits()])
        .collect();
    run_surface_frame(gpu, res, cam, |g, b| {
        let mut input = g.create_buffer("test.probes", BufferDesc::gpu(16 * n as u64));
        let mut output = g.create_buffer("test.results", BufferDesc::gpu(48 * n as u64));
        g.transfer("test.probes.upload")
            .update(&mut input, 0, bytemuck::cast_slice(&words));
        g.compute("test.surface_probe", &shaders::TEST_SURFACE_PROBE)
            .read("frame", b.frame)
            .read("slots", b.slots)
            .read("tile_lookup", b.lookup)
            .read("tile_heights", b.heights)
            .read("probes_in", input)
            .write("results_out", &mut output)
            .push(&(n as u32))
            .dispatch_threads([n as u32, 1, 1]);
        output
    })
}

/// One frame with `res` resident and `cam`'s frame constants: `declare` adds the test's nodes
/// over the surface bindings and returns the buffer to read back.
fn run_surface_frame(
    gpu: &mut Gpu,
    res: &Residency,
    cam: &ViewCamera,
    declare: impl FnOnce(&mut Graph<'_>, SurfaceBindings) -> BufferRef,
) -> Vec<[f32; 4]> {
    let body = Body { radius: R };
    let lod = LodParams::for_camera(body, cam);
    let (slot, _) = gpu.exec.begin_frame(&gpu.ctx).unwrap();
    let cap = (res.tiles.len() as u32 + 8).next_power_of_two();
    let mut tiles = TileAtlas::new(&gpu.ctx, cap, cap, gpu.exec.frames_in_flight()).unwrap();
    let mut constants = FrameConstantBuffers::new(&gpu.ctx, gpu.exec.frames_in_flight()).unwrap();
    let sun = DVec3::new(1.0, 0.5, 0.2);
    let consts = FrameConstants::new(cam, body, sun, &lod, tiles.lookup_size);
    constants.write(slot, &consts).unwrap();
    tiles
        .prepare(&gpu.ctx, slot, res, &[], cam.eye, body.texel0())
        .unwrap();
    let mut g = Graph::new();
    let frame = constants.import(&mut g, slot);
    let b = SurfaceBindings::new(frame, tiles.declare(&mut g));
    let output = declare(&mut g, b);
    g.readback("results", output);
    let out = gpu
        .exec
        .run(&gpu.ctx, g.compile(gpu.ctx.queue_setup()).unwrap())
        .unwrap();
    let r: Vec<[f32; 4]> = bytemuck::cast_slice(out.readback("results").unwrap()).to_vec();
    tiles.destroy(&gpu.ctx);
    constants.destroy(&gpu.ctx);
    r
}
