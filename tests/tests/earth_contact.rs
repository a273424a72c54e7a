//! Detail at contact (TERRAIN.md §6), on lavapipe under validation at 320×180: with the
//! amplified levels L10–L18 the ground at 2 m over the Khumbu and 50 m over the Grand Canyon is
//! textured in light and shadow, measured by an independent image metric (the mean absolute
//! 3×3 luminance Laplacian over the lower half of the frame; a flat shade scores 0); the
//! depth varies at metre scale (the relative second difference of 1/distance along image
//! columns, against the same view drawn from the data alone, L0–L9: at least 3× it); and the
//! CPU ground query at L18 agrees with the rendered depth under a 2 m camera looking straight
//! down.

use engine::camera::ViewCamera;
use engine::earth::Tile;
use engine::planet::{Body, TileId};
use engine::renderer::{PlanetRenderer, RendererOptions};
use engine::source::{Completion, EarthSource, TileSource};
use engine::stream::envelope::FeedSnapshot;
use engine::surface::LodParams;
use planetfall_tests::{earth_source, planet_frame, write_png, Gpu, PlanetFrame};
use std::sync::Arc;

/// The Earth drawn from the data alone: the same source with its finest level at L9.
struct DataOnly(Arc<EarthSource>);

impl TileSource for DataOnly {
    fn body(&self) -> Body {
        self.0.body()
    }
    fn finest_level(&self) -> u8 {
        engine::params::LAST_STORED_LEVEL
    }
    fn tile(&self, id: TileId) -> Arc<Tile> {
        self.0.tile(id)
    }
    fn max_relief(&self) -> f64 {
        self.0.max_relief()
    }
    fn is_async(&self) -> bool {
        self.0.is_async()
    }
    fn request(&self, tiles: &[(TileId, f32)]) {
        self.0.request(tiles)
    }
    fn cancel(&self, tiles: &[TileId]) {
        self.0.cancel(tiles)
    }
    fn poll(&self) -> Vec<Completion> {
        self.0.poll()
    }
    fn feed(&self) -> Option<FeedSnapshot> {
        self.0.feed()
    }
}

const W: u32 = 320;
const H: u32 = 180;

/// The settled frame of `cam` (waiting residency, as `planetfall render`).
fn settled(gpu: &mut Gpu, source: Arc<dyn TileSource>, cam: &ViewCamera) -> PlanetFrame {
    let mut opts = RendererOptions::for_device(&gpu.ctx);
    opts.pool_capacity = 1 << 17;
    let mut r = PlanetRenderer::new(&gpu.ctx, source, opts, gpu.exec.frames_in_flight()).unwrap();
    let mut f = planet_frame(gpu, &mut r, cam);
    for _ in 0..60 {
        if r.settled() {
            break;
        }
        f = planet_frame(gpu, &mut r, cam);
    }
    assert!(r.settled(), "the view settles within 60 frames");
    r.destroy(&gpu.ctx);
    f
}

/// Camera `agl` m above the ground (as the finest level holds it) at (lat, lon).
fn camera(lat: f64, lon: f64, agl: f64, heading: f64, pitch: f64, w: u32, h: u32) -> ViewCamera {
    let ground = engine::ground::height_at_latlon(&earth_source().oracle, lat, lon, 18).height_m;
    let r = Body::EARTH.radius;
    ViewCamera::geo(lat, lon, r + ground + agl, heading, pitch, 60.0, w, h)
}

/// Mean absolute 3×3 Laplacian (8·centre − the 8 neighbours) of Rec. 709 luminance, 0–255,
/// over the lower half of the frame.
fn laplacian(rgba: &[u8], w: u32, h: u32) -> f64 {
    let lum = |x: u32, y: u32| {
        let p = &rgba[4 * (y * w + x) as usize..];
        0.2126 * p[0] as f64 + 0.7152 * p[1] as f64 + 0.0722 * p[2] as f64
    };
    let (mut sum, mut n) = (0.0, 0);
    for y in h / 2..h - 1 {
        for x in 1..w - 1 {
            let mut l = 8.0 * lum(x, y);
            for (dx, dy) in [
                (-1, -1),
                (0, -1),
                (1, -1),
                (-1, 0),
                (1, 0),
                (-1, 1),
                (0, 1),
                (1, 1),
            ] {
                l -= lum((x as i32 + dx) as u32, (y as i32 + dy) as u32);
            }
            sum += l.abs();
            n += 1;
        }
    }
    sum / n as f64
}

/// p90 over the lower half of |s(y−1) − 2 s(y) + s(y+1)| / s(y), s = 1/distance, along image
/// columns, where all three pixels are terrain.
fn depth_roughness(f: &PlanetFrame, w: u32, h: u32) -> f64 {
    let s = |x: u32, y: u32| {
        let p = &f.aov[(y * w + x) as usize];
        (p.is_terrain() && p.dist > 0.0).then(|| 1.0 / p.dist as f64)
    };
    let mut v = Vec::new();
    for x in 0..w {
        for y in h / 2..h - 1 {
            if let (Some(a), Some(b), Some(c)) = (s(x, y - 1), s(x, y), s(x, y + 1)) {
                v.push((a - 2.0 * b + c).abs() / b);
            }
        }
    }
    assert!(v.len() > (w * h / 4) as usize, "the lower half is terrain");
    v.sort_by(f64::total_cmp);
    v[v.len() * 9 / 10]
}

fn save(name: &str, f: &PlanetFrame) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    write_png(&dir.join(format!("{name}.png")), W, H, &f.rgba);
}

/// Ignored in the default run: three settled 320×180 frames whose amplified tiles the CPU
/// makes take 8–15 minutes on two cores (CI's whole budget is 30). Run it with
/// `cargo test -p planetfall-tests --test earth_contact -- --ignored --nocapture`.
#[test]
#[ignore = "8–15 min on 2 cores: cargo test -p planetfall-tests --test earth_contact -- --ignored"]
fn contact_views_are_textured_and_the_khumbu_depth_varies_at_metre_scale() {
    let mut gpu = Gpu::new();
    let earth = earth_source();
    let khumbu = camera(27.90, 86.83, 2.0, 20.0, -25.0, W, H);
    let canyon = camera(36.06, -112.14, 50.0, 0.0, -30.0, W, H);
    let k = settled(&mut gpu, earth.clone(), &khumbu);
    save("contact_khumbu_2m", &k);
    let c = settled(&mut gpu, earth.clone(), &canyon);
    save("contact_canyon_50m", &c);
    let k9 = settled(&mut gpu, Arc::new(DataOnly(earth.clone())), &khumbu);
    save("contact_khumbu_2m_data_only", &k9);
    let (lk, lc, l9) = (
        laplacian(&k.rgba, W, H),
        laplacian(&c.rgba, W, H),
        laplacian(&k9.rgba, W, H),
    );
    let (rk, r9) = (depth_roughness(&k, W, H), depth_roughness(&k9, W, H));
    println!(
        "Laplacian: Khumbu 2 m {lk:.2} (data only {l9:.2}), Grand Canyon 50 m {lc:.2}; \
         depth roughness p90: Khumbu {rk:.3e}, data only {r9:.3e} ({:.1}×)",
        rk / r9
    );
    assert!(lk >= 1.5, "Khumbu 2 m is textured: {lk:.2}");
    assert!(lc >= 1.5, "Grand Canyon 50 m is textured: {lc:.2}");
    // The contact goal: 3× the data-only figure. 1.5× while the valley floor's bands had the
    // flat weight (L9 slope 0.035–0.08 under the full-slope weight's 0.3); bare ground's
    // metre-scale bands now take the full weight and a ridged shape (docs/earth.md).
    assert!(rk >= 3.0 * r9, "metre-scale depth: {rk:.3e} vs {r9:.3e}");
    assert!(l9 < 0.5, "the data alone is one flat shade at 2 m: {l9:.2}");
}

#[test]
fn the_ground_query_at_l18_agrees_with_the_rendered_depth_under_a_2m_camera() {
    let mut gpu = Gpu::new();
    let (lat, lon) = (27.988, 86.925);
    let q = |_| engine::ground::height_at_latlon(&earth_source().oracle, lat, lon, 18).height_m;
    let (a, b) = (q(0), q(1));
    assert_eq!(a.to_bits(), b.to_bits(), "deterministic");
    // Odd sizes: the centre pixel's ray is the nadir.
    let (w, h) = (33, 25);
    let cam = camera(lat, lon, 2.0, 0.0, -90.0, w, h);
    let f = settled(&mut gpu, earth_source(), &cam);
    let nadir = &f.aov[(h / 2 * w + w / 2) as usize];
    assert!(nadir.is_terrain());
    println!(
        "L18 ground {a:.3} m; rendered nadir distance {:.4} m at level {:.2}",
        nadir.dist, nadir.level
    );
    assert!(
        (nadir.dist as f64 - 2.0).abs() <= 0.05,
        "rendered ground {:.4} m below a camera 2 m above the L18 ground",
        nadir.dist
    );
}

/// The CPU's drawn ground (`PlanetRenderer::drawn_ground`: the blended surface, levels, arrival
/// fades and stand-ins as the frame drew them) equals the rendered depth at the nadir pixel
/// within 1 cm in every frame once the mesh has caught up with the camera (before that the
/// pixel may show a coarse chord the resolve will not move 10 % of its distance), with the
/// nadir's level selection just below, just above and halfway across a level boundary. (On
/// this machine the arrivals' fades are over before the mesh catches up from a cold start, so
/// no compared frame is mid-fade: measured 0 of 15.)
#[test]
fn the_drawn_ground_is_the_rendered_ground_across_a_level_boundary() {
    let mut gpu = Gpu::new();
    let (lat, lon) = (27.988, 86.925);
    let (w, h) = (33, 25);
    let probe = camera(lat, lon, 5.0, 0.0, -90.0, w, h);
    let lod = LodParams::for_camera(Body::EARTH, &probe);
    // Height above the ground at which the nadir's continuous level is `lc`.
    let agl = |lc: f64| lod.texel0 / (lod.pixel_angle * (lc - lod.lod_bias).exp2());
    let mut opts = RendererOptions::for_device(&gpu.ctx);
    opts.pool_capacity = 1 << 16;
    let mut r =
        PlanetRenderer::new(&gpu.ctx, earth_source(), opts, gpu.exec.frames_in_flight()).unwrap();
    r.set_frame_period(Some(1.0 / 60.0));
    let mut compared = 0;
    for lc in [16.98, 17.02, 16.5] {
        let cam = camera(lat, lon, agl(lc), 0.0, -90.0, w, h);
        let up = cam.eye.normalize();
        let (mut caught_up, mut here) = (false, 0);
        for k in 0..120 {
            let f = planet_frame(&mut gpu, &mut r, &cam);
            caught_up |= r.stats.mesh.quiet;
            let drawn = r.drawn_ground(&cam, up).expect("tiles resident");
            if !caught_up {
                continue;
            }
            let nadir = &f.aov[(h / 2 * w + w / 2) as usize];
            assert!(nadir.is_terrain(), "lc {lc} frame {k}: nadir is terrain");
            let rendered = cam.eye.length() - nadir.dist as f64 - Body::EARTH.radius;
            assert!(
                (rendered - drawn).abs() <= 0.01,
                "lc {lc} frame {k}: rendered ground {rendered:.4} m, drawn ground {drawn:.4} m"
            );
            compared += 1;
            here += 1;
            if r.settled() && here >= 5 {
                break;
            }
        }
        assert!(here >= 5, "lc {lc}: only {here} frames compared");
    }
    r.destroy(&gpu.ctx);
    println!("{compared} frames compared");
}

/// A CPU stand-in for the Khumbu depth metric, fast enough to tune the amplification on (a
/// few seconds, no GPU): the same 2 m pose, rays of every 4th column of the lower half cast
/// against the L18 surface (bilinear between its samples, as the ground query), and the same
/// p90 relative second difference of 1/distance along columns. The rendered frame adds the
/// mesh's own faceting on top (the data-only view scores 5.6e-4 there, the L9 surface 6e-5
/// here), so the figure to compare is this one before and after a change of the rules.
/// `cargo test -p planetfall-tests --test earth_contact khumbu_depth_on_the_cpu -- --ignored --nocapture`
#[test]
#[ignore = "diagnostic: prints the CPU stand-in of the metre-scale depth metric"]
fn khumbu_depth_on_the_cpu() {
    use engine::earth::amplify::{sample, L9Tiles};
    use engine::ground::locate;
    use std::collections::HashMap;
    let oracle = &earth_source().oracle;
    let body = Body::EARTH;
    let get = |id: TileId| oracle.get(id);
    let l9 = L9Tiles::new(&get);
    let cam = camera(27.90, 86.83, 2.0, 20.0, -25.0, W, H);
    let mut memo: HashMap<(u8, u8, i64, i64), f64> = HashMap::new();
    let mut ground = |dir: glam::DVec3, level: u8| {
        let (id, s, t) = locate(dir, level);
        let (x, y) = (s - 0.5, t - 0.5);
        let (i0, j0) = (x.floor(), y.floor());
        let (fx, fy) = (x - i0, y - j0);
        let mut h = |i: i64, j: i64| {
            let key = (level, id.face.0, id.global_i(i), id.global_j(j));
            *memo
                .entry(key)
                .or_insert_with(|| sample(&l9, body, level, id.face, key.2, key.3).0 as f64)
        };
        let (i0, j0) = (i0 as i64, j0 as i64);
        let top = h(i0, j0) * (1.0 - fx) + h(i0 + 1, j0) * fx;
        let bot = h(i0, j0 + 1) * (1.0 - fx) + h(i0 + 1, j0 + 1) * fx;
        top * (1.0 - fy) + bot * fy
    };
    let f = cam.focal_px();
    let mut rows = Vec::new();
    let (mut on_rock, mut hits) = (0u32, 0u32);
    for level in [18u8, 9] {
        let mut v = Vec::new();
        for x in (0..W).step_by(4) {
            let mut col = Vec::new();
            for y in H / 2 - 1..H {
                let ray = (cam.forward + (x as f64 + 0.5 - W as f64 * 0.5) / f * cam.right
                    - (y as f64 + 0.5 - H as f64 * 0.5) / f * cam.up)
                    .normalize();
                let above = |t: f64, g: &mut dyn FnMut(glam::DVec3, u8) -> f64| {
                    let p = cam.eye + t * ray;
                    p.length() - body.radius - g(p.normalize(), level)
                };
                // March in 2 cm steps to the first crossing, then bisect to 0.1 mm.
                let (mut lo, mut hi) = (0.0, 0.0);
                let mut t = 0.5;
                while t < 60.0 {
                    if above(t, &mut ground) < 0.0 {
                        (lo, hi) = (t - 0.02, t);
                        break;
                    }
                    t += 0.02;
                }
                assert!(hi > 0.0, "ray ({x}, {y}) hits the ground");
                while hi - lo > 1e-4 {
                    let m = 0.5 * (lo + hi);
                    if above(m, &mut ground) < 0.0 {
                        hi = m;
                    } else {
                        lo = m;
                    }
                }
                let t = 0.5 * (lo + hi);
                if level == 18 {
                    let dir = (cam.eye + t * ray).normalize();
                    let face = locate(dir, 18).0.face;
                    on_rock += (engine::earth::amplify::rock_height(&l9, body, 18, face, dir) > 0.0)
                        as u32;
                    hits += 1;
                }
                col.push(1.0 / t);
            }
            for w in col.windows(3) {
                v.push((w[0] - 2.0 * w[1] + w[2]).abs() / w[1]);
            }
        }
        v.sort_by(f64::total_cmp);
        rows.push((
            level,
            v[v.len() / 2],
            v[v.len() * 9 / 10],
            v[v.len() * 99 / 100],
        ));
    }
    println!("{on_rock} of {hits} hits on rocks");
    // Rock cover of the ground around the view: a 120 × 120 grid 1.3 m apart.
    let up = cam.eye.normalize();
    let east = glam::DVec3::Z.cross(up).normalize();
    let north = up.cross(east);
    let mut covered = 0;
    for k in 0..120 * 120 {
        let (a, b) = ((k % 120) as f64 - 60.0, (k / 120) as f64 - 60.0);
        let dir = (up * body.radius + 1.3 * (a * east + b * north)).normalize();
        let face = locate(dir, 18).0.face;
        covered += (engine::earth::amplify::rock_height(&l9, body, 18, face, dir) > 0.0) as u32;
    }
    println!("rock cover {:.1} %", covered as f64 / 144.0);
    for (level, p50, p90, p99) in rows {
        println!("L{level}: relative second difference of 1/distance p50 {p50:.3e} p90 {p90:.3e} p99 {p99:.3e}");
    }
}

/// Terrain pixels of the Khumbu at walking height whose published distance is off the CPU
/// reference's first crossing (`engine::reference`, every ray cast against the blended
/// surface) by more than 0.5 %, past it, and all compared, for each setting in turn: the
/// pieces of the resolve's first-crossing search (0: none) and the root search's rescue steps
/// (`PublishOptions::rescue_steps`; 0: none). One settled view serves them all: both are push
/// constants of the resolve, so the mesh, the tiles and the reference stay the same and only
/// the resolve's frame is drawn again.
fn off_the_first_crossing(settings: &[(u32, u32)]) -> Vec<(usize, usize, usize)> {
    let mut gpu = Gpu::new();
    // The descent's low end (the bench's Khumbu descent: heading 10°, pitch −10° at the
    // bottom), 2.5 m up, with a 1080p frame's pixel angle (60° over 1,080 rows).
    let (w, h) = (96u32, 54u32);
    let vfov = 2.0
        * ((30f64).to_radians().tan() * h as f64 / 1080.0)
            .atan()
            .to_degrees();
    let cam = {
        let c = camera(27.90, 86.83, 2.5, 10.0, -10.0, w, h);
        ViewCamera::geo(27.90, 86.83, c.eye.length(), 10.0, -10.0, vfov, w, h)
    };
    let src = earth_source();
    let mut opts = RendererOptions::for_device(&gpu.ctx);
    opts.pool_capacity = 1 << 17;
    (opts.publish.crossing_pieces, opts.publish.rescue_steps) = settings[0];
    // Legs no shorter than a quarter of L14's texel, as in a 1080p descent, where the
    // fine-detail gain holds the depth cap at L14's while the surface carries L15–L18 detail
    // (at this image size the mesh would follow the detail to L18's cap).
    opts.cbt.depth_cap_texel_fraction = 2.0;
    let mut r =
        PlanetRenderer::new(&gpu.ctx, src.clone(), opts, gpu.exec.frames_in_flight()).unwrap();
    let mut f = planet_frame(&mut gpu, &mut r, &cam);
    for _ in 0..60 {
        if r.settled() {
            break;
        }
        f = planet_frame(&mut gpu, &mut r, &cam);
    }
    assert!(r.settled(), "the view settles within 60 frames");
    let lod = r.lod_params(&cam);
    let reference = engine::reference::render(r.residency(), &lod, r.body, &cam, src.max_relief());
    let mut out = Vec::new();
    for (k, &set) in settings.iter().enumerate() {
        if k > 0 {
            (r.opts.publish.crossing_pieces, r.opts.publish.rescue_steps) = set;
            f = planet_frame(&mut gpu, &mut r, &cam);
            assert!(r.settled(), "the view stays settled");
        }
        let pairs = f.terrain_against(&reference);
        let off = pairs
            .iter()
            .filter(|(t, c)| (t - c).abs() > 0.005 * c)
            .count();
        let past = pairs.iter().filter(|(t, c)| t - c > 0.005 * c).count();
        out.push((off, past, pairs.len()));
    }
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
    out
}

/// At walking height the mesh's chords lie a decimetre or more off the amplified bands, a
/// tenth of the eye's height, past the reach of the root search beside the chord (10 % of the
/// distance): whole patches stayed on the chord, a different set each frame (the descent's
/// pops at 2–4 m, docs/bench.md "The search's reach"). The first-crossing search (off by
/// default, docs/bench.md "The first-crossing search") draws the ground where the reference's
/// rays first meet it: 224 of 5,184 px off without it, 22 with it. The root search's rescue
/// (on by default) carries on the searches that bracketed their root and gave up after six
/// steps: 55 px off with it.
#[test]
fn at_walking_height_the_published_ground_is_the_first_crossing() {
    let pieces = engine::publish::RESOLVE_CROSSING_PIECES;
    let rescue = engine::publish::RESOLVE_RESCUE_STEPS;
    let runs = off_the_first_crossing(&[(0, 0), (pieces, 0), (0, rescue)]);
    let ((off0, past0, n0), (off, past, n), (off_r, past_r, _)) = (runs[0], runs[1], runs[2]);
    println!(
        "off the reference by > 0.5 %: {off0} of {n0} px ({past0} past it) with neither \
         search, {off} of {n} px ({past}) with the first crossing's {pieces} pieces, {off_r} \
         ({past_r}) with the rescue's {rescue} steps"
    );
    assert!(n > 96 * 54 / 2, "the view is mostly ground: {n} px");
    // The fault must show without the search, or this test proves nothing.
    assert!(
        off0 * 50 > n0,
        "the chords' hits are off the ground: {off0} of {n0} px"
    );
    assert!(
        off * 3 < off0,
        "the first crossing: {off} vs {off0} px off the ground"
    );
    // 55 px: the searches that bracketed their root and gave up are most of the rest.
    assert!(
        off_r * 2 < off0,
        "the rescue: {off_r} vs {off0} px off the ground"
    );
}
