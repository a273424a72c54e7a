//! The CPU's ground query under the camera (`PlanetRenderer::drawn_ground`: the resident
//! tiles' blended surface, levels, arrival fades and same-slot cross-fades as the frame drew
//! them) equals the rendered depth at the nadir pixel within 1 cm in every frame while the
//! finer levels arrive and fade in, with the nadir's level selection halfway across a level
//! and just either side of a level boundary; on lavapipe under validation, the clock driven
//! at 0.1 s a frame. (`earth_contact` checks the same over the Earth once the arrivals' fades
//! are over.)

use engine::camera::ViewCamera;
use engine::earth::Tile;
use engine::planet::cube::latlon_to_dir;
use engine::planet::{Body, TileId};
use engine::renderer::{PlanetRenderer, RendererOptions};
use engine::source::{AnalyticSource, Completion, TileSource};
use engine::surface::LodParams;
use glam::DVec3;
use planetfall_tests::{planet_frame, Gpu};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

const R: f64 = 6_371_000.0;
/// Odd sizes: the centre pixel's ray is the nadir.
const W: u32 = 33;
const H: u32 = 25;
/// The finest level the planet has, and the first level held back until the gate opens.
const FINEST: u8 = 14;
const HELD: u8 = 9;

/// Smooth hills with 50 m waves 2 m high on them: detail that only the finest levels hold
/// (the held-back levels' arrival moves the ground by metres, not millimetres).
fn height(d: DVec3) -> f64 {
    let k = std::f64::consts::TAU / 50.0;
    300.0 + 150.0 * (d.x * R / 2.0e5).sin() + 2.0 * (d.y * R * k).sin() * (d.z * R * k).cos()
}

/// The analytic planet with levels ≥ `HELD` held back until `open`: then they all complete at
/// once, and arrive and fade in on a camera that has not moved (no cut). Once `raised`, tiles
/// are made from `raised` (the planet 1 m higher): the tiles the renderer remakes then replace
/// their old payloads in their slots, cross-fading.
struct Gated {
    inner: Arc<AnalyticSource>,
    raised: Arc<AnalyticSource>,
    open: AtomicBool,
    raise: AtomicBool,
    asked: Mutex<Vec<TileId>>,
}

impl Gated {
    fn new(inner: Arc<AnalyticSource>, raised: Arc<AnalyticSource>) -> Gated {
        Gated {
            inner,
            raised,
            open: AtomicBool::new(false),
            raise: AtomicBool::new(false),
            asked: Mutex::new(Vec::new()),
        }
    }
}

impl TileSource for Gated {
    fn body(&self) -> Body {
        self.inner.body()
    }
    fn finest_level(&self) -> u8 {
        self.inner.finest_level()
    }
    fn tile(&self, id: TileId) -> Arc<Tile> {
        self.inner.tile(id)
    }
    fn max_relief(&self) -> f64 {
        self.inner.max_relief()
    }
    fn is_async(&self) -> bool {
        true
    }
    fn request(&self, tiles: &[(TileId, f32)]) {
        self.asked.lock().unwrap().extend(tiles.iter().map(|t| t.0));
    }
    fn cancel(&self, tiles: &[TileId]) {
        self.asked.lock().unwrap().retain(|t| !tiles.contains(t));
    }
    fn poll(&self) -> Vec<Completion> {
        let open = self.open.load(Ordering::Relaxed);
        let mut asked = self.asked.lock().unwrap();
        asked.sort();
        asked.dedup();
        let (ready, held): (Vec<TileId>, Vec<TileId>) =
            asked.iter().partition(|t| open || t.level < HELD);
        *asked = held;
        let from = if self.raise.load(Ordering::Relaxed) {
            &self.raised
        } else {
            &self.inner
        };
        ready
            .into_iter()
            .map(|id| (id, Ok(from.tile(id))))
            .collect()
    }
    fn provisional(&self, id: TileId) -> Option<Arc<Tile>> {
        self.inner.provisional(id)
    }
}

#[test]
fn the_drawn_ground_is_the_rendered_nadir_while_levels_fade_in() {
    let mut gpu = Gpu::new();
    let body = Body { radius: R };
    let inner = Arc::new(AnalyticSource::new(body, FINEST, 500.0, height));
    let raised = Arc::new(AnalyticSource::new(body, FINEST, 501.0, |d| {
        height(d) + 1.0
    }));
    let (lat, lon) = (20.0, 30.0);
    let up = latlon_to_dir(lat, lon);
    let ground = engine::ground::ground_height(&*inner, up);
    let cam_at = |agl: f64| ViewCamera::geo(lat, lon, R + ground + agl, 0.0, -90.0, 50.0, W, H);
    let lod = LodParams::for_camera(body, &cam_at(50.0));
    // Height above the ground at which the nadir's continuous level is `lc`: 40–70 m, where
    // the resolve's surface search converges well inside 1 cm (its trigger is 1e-4 of the
    // distance).
    let agl = |lc: f64| lod.texel0 / (lod.pixel_angle * (lc - lod.lod_bias).exp2());
    let mut compared = 0;
    for lc in [13.5, 12.98, 13.02] {
        let src = Arc::new(Gated::new(inner.clone(), raised.clone()));
        let mut opts = RendererOptions::for_device(&gpu.ctx);
        opts.slots = 256;
        opts.pool_capacity = 1 << 16;
        opts.wait_for_tiles = false;
        let mut r =
            PlanetRenderer::new(&gpu.ctx, src.clone(), opts, gpu.exec.frames_in_flight()).unwrap();
        r.set_frame_period(Some(0.1));
        let cam = cam_at(agl(lc));
        // Levels below HELD only, until nothing moves and the first frame's cut window (in
        // which arrivals show at once) has closed.
        for _ in 0..80 {
            planet_frame(&mut gpu, &mut r, &cam);
            if r.stats.mesh.quiet
                && r.stats.fading == 0
                && r.clock_s() > engine::params::STREAM_CUT_WINDOW_MAX_S + 0.5
            {
                break;
            }
        }
        assert!(r.stats.mesh.quiet && r.stats.fading == 0, "{:?}", r.stats);
        src.open.store(true, Ordering::Relaxed);
        let (frames, moved) = compare_until_settled(&mut gpu, &mut r, &cam, &format!("lc {lc}"));
        assert!(
            moved.abs() > 0.1,
            "lc {lc}: the arrivals moved the ground {moved:.3} m"
        );
        compared += frames;
        if lc == 13.5 {
            // The planet rises 1 m: the held-back levels are made again and cross-fade in
            // their slots over 1.5 s.
            src.raise.store(true, Ordering::Relaxed);
            assert!(r.remake_levels(HELD..=FINEST) > 0);
            let (frames, moved) = compare_until_settled(&mut gpu, &mut r, &cam, "raised");
            assert!(
                (moved - 1.0).abs() < 0.05,
                "the cross-fade moved the ground {moved:.3} m"
            );
            compared += frames;
        }
        r.destroy(&gpu.ctx);
    }
    println!("{compared} frames compared");
    gpu.assert_clean();
}

/// Frames of `r` for `cam` until it settles, each comparing the drawn ground with the rendered
/// depth at the nadir pixel; at least two of them with the nadir's finest tile mid-fade or
/// mid-cross-fade. Returns the frames compared and how far the drawn ground moved.
fn compare_until_settled(
    gpu: &mut Gpu,
    r: &mut PlanetRenderer,
    cam: &ViewCamera,
    what: &str,
) -> (u32, f64) {
    let up = cam.eye.normalize();
    let before = r.drawn_ground(cam, up).unwrap();
    let (mut mid_fade, mut frames, mut after) = (0, 0, before);
    for k in 0..60 {
        let f = planet_frame(gpu, r, cam);
        let drawn = r.drawn_ground(cam, up).unwrap();
        let nadir = &f.aov[(H / 2 * W + W / 2) as usize];
        assert!(nadir.is_terrain(), "{what} frame {k}: nadir is terrain");
        let rendered = cam.eye.length() - nadir.dist as f64 - R;
        // The finest resident tile under the nadir: fading in, or cross-fading in its slot?
        let (tile, _, _) = engine::surface::locate(r.residency(), FINEST, up);
        let (id, fade, xfade) = (tile.id, tile.fade, tile.xfade);
        println!(
            "{what} frame {k}: {id:?} fade {fade:.2} xfade {xfade:.2}, rendered {rendered:.4} m, drawn {drawn:.4} m"
        );
        assert!(
            (rendered - drawn).abs() <= 0.01,
            "{what} frame {k} ({id:?}, fade {fade:.2}, xfade {xfade:.2}): rendered ground {rendered:.4} m, drawn ground {drawn:.4} m"
        );
        mid_fade += (fade < 1.0 || xfade < 1.0) as u32;
        frames += 1;
        after = drawn;
        if r.settled() {
            break;
        }
    }
    assert!(r.settled(), "{what}: {:?}", r.stats);
    assert!(mid_fade >= 2, "{what}: {mid_fade} frames mid-fade");
    (frames, after - before)
}

/// The hit record carries the surface walks `publish.resolve` took (the bench's cost probe):
/// none on sky; on terrain one for the chord point plus one per root-search step (at most 6)
/// (no sea here, so no ocean test; the march is off by default).
#[test]
fn the_resolve_counts_its_surface_walks() {
    let mut gpu = Gpu::new();
    let body = Body { radius: R };
    let src = Arc::new(AnalyticSource::new(body, FINEST, 500.0, height));
    let (lat, lon) = (20.0, 30.0);
    let ground = engine::ground::ground_height(&*src, latlon_to_dir(lat, lon));
    // Grazing from 100 m: the upper half is sky, the lower half ground whose 2 m waves the
    // chords cut, so the search runs.
    let cam = ViewCamera::geo(lat, lon, R + ground + 100.0, 0.0, -5.0, 50.0, W, H);
    let mut opts = RendererOptions::for_device(&gpu.ctx);
    opts.slots = 256;
    opts.pool_capacity = 1 << 16;
    let mut r = PlanetRenderer::new(&gpu.ctx, src, opts, gpu.exec.frames_in_flight()).unwrap();
    let mut f = planet_frame(&mut gpu, &mut r, &cam);
    for _ in 0..40 {
        f = planet_frame(&mut gpu, &mut r, &cam);
        if r.stats.mesh.quiet {
            break;
        }
    }
    let (mut sky, mut terrain, mut walks) = (0, 0, 0.0);
    for p in &f.aov {
        if p.is_terrain() {
            assert!((1.0..=7.0).contains(&p.walks), "{} walks", p.walks);
            terrain += 1;
            walks += p.walks as f64;
        } else {
            assert_eq!(p.walks, 0.0);
            sky += 1;
        }
    }
    assert!(sky > 0 && terrain > 0, "sky {sky}, terrain {terrain}");
    let mean = walks / terrain as f64;
    println!("{terrain} terrain pixels, {mean:.2} walks each");
    assert!(mean > 1.0, "the search never ran: {mean}");
    r.destroy(&gpu.ctx);
    gpu.assert_clean();
}
