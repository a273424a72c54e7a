//! Flight without stalls, on lavapipe under validation: frames that never wait for tiles keep
//! their pace with a slow tile producer, and a same-slot replacement moves the rendered depth
//! (and the CPU's drawn ground) by at most its cross-fade step per frame.

use ash::vk;
use engine::camera::ViewCamera;
use engine::cbt::surface::AnalyticSurface;
use engine::debug_view::DebugView;
use engine::earth::tile::{quantise, Tile};
use engine::params::TILE_STRIDE;
use engine::planet::{Body, Face, TileId};
use engine::renderer::{FrameRequest, PlanetRenderer, RendererOptions};
use engine::source::{AnalyticSource, Completion, TileSource};
use engine::stream::pool::Pooled;
use framegraph::{Graph, ImageDesc};
use planetfall_tests::{planet_frame, Gpu};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

const W: u32 = 128;
const H: u32 = 80;

fn options(ctx: &framegraph::Context) -> RendererOptions {
    let mut o = RendererOptions::for_device(ctx);
    o.slots = 256;
    o.pool_capacity = 1 << 15;
    o.wait_for_tiles = false;
    o
}

/// One frame; returns the host time (prepare + declare + compile + submit, not the GPU
/// wait) and the per-pixel distance along the ray (0 off the terrain, negative over water).
fn frame(gpu: &mut Gpu, r: &mut PlanetRenderer, cam: &ViewCamera) -> (f64, Vec<f32>) {
    let f = planet_frame(gpu, r, cam);
    let d = f
        .aov
        .iter()
        .map(|p| match (p.is_terrain(), p.is_water()) {
            (false, _) => 0.0,
            (true, false) => p.dist,
            (true, true) => -p.dist,
        })
        .collect();
    (f.host_s, d)
}

fn analytic(finest: u8) -> Arc<AnalyticSource> {
    let s = AnalyticSurface::earth();
    let relief = s.max_relief();
    Arc::new(AnalyticSource::new(s.body, finest, relief, move |d| {
        s.height(d)
    }))
}

/// The tests of this file run one at a time: the slow-producer test compares the pace and
/// the levels of two flights, which a heavy neighbouring test on the same cores distorts.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A descent over the analytic planet, 60 Hz clock, `frames` frames: host seconds per frame,
/// the finest resident level per frame, and whether any frame waited.
fn fly(
    gpu: &mut Gpu,
    source: Arc<dyn TileSource>,
    frames: u32,
    wait: bool,
) -> (Vec<f64>, Vec<u8>, bool) {
    let mut opts = options(&gpu.ctx);
    opts.wait_for_tiles = wait;
    let mut r = PlanetRenderer::new(&gpu.ctx, source, opts, 2).unwrap();
    r.set_frame_period(Some(1.0 / 60.0));
    let radius = r.body.radius;
    let (mut host, mut finest, mut waited) = (Vec::new(), Vec::new(), false);
    for k in 0..frames {
        let alt = 400_000.0 * (0.85f64).powi(k as i32);
        let cam = ViewCamera::geo(20.0, 30.0, radius + alt, 0.0, -60.0, 60.0, W, H);
        let (h, _) = frame(gpu, &mut r, &cam);
        host.push(h);
        finest.push(
            r.residency()
                .tiles
                .iter()
                .map(|t| t.id.level)
                .max()
                .unwrap(),
        );
        waited |= r.stats.residency.waited;
    }
    r.destroy(&gpu.ctx);
    (host, finest, waited)
}

#[test]
fn a_slow_tile_producer_does_not_slow_the_frames() {
    let _serial = serial();
    let mut gpu = Gpu::new();
    let frames = 14;
    // One analytic planet, its tiles made once by a first flight that waits for them (so
    // every tile the flight wants is made): the fast producer then
    // hands over finished tiles at once on any machine (a fast GPU flies 14 frames in less
    // time than the function takes to make a few tiles), and the slow one differs from it
    // only by its 200 ms per tile. One worker: with frames of up to a second on a loaded
    // lavapipe, two (10 tiles/s) kept up with the fast producer in every frame once tiles the
    // view stops wanting were no longer made.
    let planet: Arc<dyn TileSource> = analytic(8);
    let pool = |delay| -> Arc<dyn TileSource> { Arc::new(Pooled::new(planet.clone(), 1, delay)) };
    fly(&mut gpu, planet.clone(), frames, true);
    let (fast_host, fast_levels, fast_waited) = fly(&mut gpu, pool(Duration::ZERO), frames, false);
    let slow = pool(Duration::from_millis(200));
    let (slow_host, slow_levels, slow_waited) = fly(&mut gpu, slow, frames, false);
    assert!(!fast_waited && !slow_waited, "no frame may wait for a tile");
    // The first frames make the coarse stand-ins (the same work in both runs); the pace is
    // the rest. A frame that waited for one 200 ms tile would be far outside the bound.
    let (f, s) = (
        median(&mut fast_host[2..].to_vec()),
        median(&mut slow_host[2..].to_vec()),
    );
    eprintln!(
        "host s/frame: fast {f:.4}, slow {s:.4}; levels fast {fast_levels:?} slow {slow_levels:?}"
    );
    assert!(
        s <= 1.5 * f + 0.005,
        "slow producer: {s:.4} s/frame vs {f:.4} s/frame"
    );
    // (Frame 0 makes the stand-ins in both runs.)
    assert!(slow_host[1..].iter().all(|&h| h < 0.2), "{slow_host:?}");
    // Meanwhile the slow run draws coarser tiles than the fast one.
    let coarser = slow_levels
        .iter()
        .zip(&fast_levels)
        .filter(|(s, f)| s < f)
        .count();
    assert!(coarser >= 3, "slow {slow_levels:?} vs fast {fast_levels:?}");
    assert!(slow_levels.iter().zip(&fast_levels).all(|(s, f)| s <= f));
}

/// The analytic planet whose exact tiles are held back until `open`, and whose stand-ins
/// sit `offset_m` above it: the replacement is a visible, known change.
struct Gated {
    inner: Arc<AnalyticSource>,
    offset_m: f64,
    open: AtomicBool,
    asked: Mutex<Vec<TileId>>,
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
        self.inner.max_relief() + self.offset_m
    }
    fn is_async(&self) -> bool {
        true
    }
    fn request(&self, tiles: &[(TileId, f32)]) {
        self.asked.lock().unwrap().extend(tiles.iter().map(|t| t.0));
    }
    fn poll(&self) -> Vec<Completion> {
        if !self.open.load(Ordering::Relaxed) {
            return Vec::new();
        }
        let mut ids = std::mem::take(&mut *self.asked.lock().unwrap());
        ids.sort();
        ids.dedup();
        ids.into_iter()
            .map(|id| (id, Ok(self.inner.tile(id))))
            .collect()
    }
    fn provisional(&self, id: TileId) -> Option<Arc<Tile>> {
        let exact = self.inner.tile(id);
        let mut t = Tile::empty(id);
        for k in 0..(TILE_STRIDE * TILE_STRIDE) as usize {
            let h = exact.heights[k] as f64 + self.offset_m;
            t.set(k, quantise(h, h < 0.0));
        }
        Some(Arc::new(t))
    }
}

/// Nothing moves but what the replacement will move: the mesh quiet, every tile landed and
/// faded in (stand-ins allowed).
/// A renderer over `src` with 0.1 s frames (returned, with the 1.5 s cross-fade's step per
/// frame: 1/15), a camera 3,000 km over 20° N 30° E looking down, and three ground
/// probes in its view.
fn cross_fade_rig(
    gpu: &Gpu,
    src: Arc<dyn TileSource>,
) -> (PlanetRenderer, f64, f64, ViewCamera, Vec<glam::DVec3>) {
    let mut r = PlanetRenderer::new(&gpu.ctx, src, options(&gpu.ctx), 2).unwrap();
    let period = 0.1;
    r.set_frame_period(Some(period));
    let step = period / engine::params::STREAM_XFADE_S;
    let cam = ViewCamera::geo(20.0, 30.0, r.body.radius + 3.0e6, 0.0, -90.0, 50.0, W, H);
    let probes = [(20.0, 30.0), (15.0, 25.0), (25.0, 36.0)]
        .iter()
        .map(|&(la, lo)| engine::planet::cube::latlon_to_dir(la, lo))
        .collect();
    (r, period, step, cam, probes)
}

fn still(r: &PlanetRenderer) -> bool {
    r.stats.mesh.quiet && r.stats.residency.pending == 0 && r.stats.fading == 0
}

#[test]
fn a_same_slot_replacement_moves_depth_by_at_most_its_cross_fade_step() {
    let _serial = serial();
    let mut gpu = Gpu::new();
    let src = Arc::new(Gated {
        inner: analytic(2),
        offset_m: 2_000.0,
        open: AtomicBool::new(false),
        asked: Mutex::new(Vec::new()),
    });
    let (mut r, _, step, cam, probes) = cross_fade_rig(&gpu, src.clone());
    // Stand-ins only, until everything has faded in and the mesh is quiet.
    let mut before = Vec::new();
    for _ in 0..40 {
        before = frame(&mut gpu, &mut r, &cam).1;
        if still(&r) {
            break;
        }
    }
    assert!(
        r.stats.residency.provisional > 0 && still(&r),
        "{:?}",
        r.stats
    );
    let ground = |r: &PlanetRenderer| -> Vec<f64> {
        probes
            .iter()
            .map(|&d| r.drawn_ground(&cam, d).unwrap())
            .collect()
    };
    let g_before = ground(&r);
    // The exact tiles arrive: every stand-in is replaced in its slot and cross-fades.
    src.open.store(true, Ordering::Relaxed);
    let mut depths = vec![before.clone()];
    let mut grounds = vec![g_before.clone()];
    let mut replaced = 0;
    for _ in 0..30 {
        let (_, d) = frame(&mut gpu, &mut r, &cam);
        replaced += r.stats.residency.replaced_this_frame;
        depths.push(d);
        grounds.push(ground(&r));
        if r.settled() {
            break;
        }
    }
    assert!(r.settled(), "{:?}", r.stats.residency);
    assert!(replaced > 0);
    // Land throughout: over water the surface is the datum, which the replacement moves only
    // where the coast moves (the mask follows the blended heights, so the coast moves with
    // the surface).
    let land: Vec<bool> = (0..before.len())
        .map(|k| depths.iter().all(|d| d[k] > 0.0))
        .collect();
    let after = depths.last().unwrap().clone();
    // The whole change is the offset (seen along a near-vertical ray), spread over frames.
    let total: Vec<f64> = before
        .iter()
        .zip(&after)
        .map(|(a, b)| {
            if *a > 0.0 && *b > 0.0 {
                (*b - *a) as f64
            } else {
                0.0
            }
        })
        .collect();
    let moved = total.iter().filter(|t| t.abs() > 1_000.0).count();
    assert!(
        moved > (W * H / 4) as usize,
        "the offset shows in {moved} px"
    );
    let mut worst = (0.0f64, 0, 0, 0.0, 0.0);
    for (f, pair) in depths.windows(2).enumerate() {
        for (k, (a, b)) in pair[0].iter().zip(&pair[1]).enumerate() {
            if land[k] {
                let d = (*b - *a) as f64;
                let bound = 1.25 * step * total[k].abs() + 2.0;
                if d.abs() / bound > worst.0 {
                    worst = (d.abs() / bound, f, k, d, total[k]);
                }
            }
        }
    }
    eprintln!("worst (ratio, frame, pixel, step m, total m): {worst:?}");
    eprintln!(
        "its depths: {:?}",
        depths.iter().map(|d| d[worst.2]).collect::<Vec<_>>()
    );
    let worst = worst.0;
    assert!(
        worst <= 1.0,
        "a pixel moved {worst:.2}× its cross-fade step in one frame"
    );
    // The CPU's drawn ground follows the same blend: from 2,000 m up to exact, in steps.
    for (k, (g0, g1)) in g_before.iter().zip(grounds.last().unwrap()).enumerate() {
        assert!((g0 - g1 - 2_000.0).abs() < 1.0, "probe {k}: {g0} → {g1}");
        for pair in grounds.windows(2) {
            let d = (pair[1][k] - pair[0][k]).abs();
            assert!(
                d <= step * 2_000.0 + 0.5,
                "probe {k}: {d:.1} m in one frame"
            );
        }
    }
    r.destroy(&gpu.ctx);
}

/// The analytic planet raised by `version · offset_m`: a change of its content stands for a
/// store rewritten underneath (the tiles it reports in `updated_underneath`) or for new detail
/// settings (the renderer's `remake_levels`). Tiles are made when polled, in the frame.
struct Versioned {
    inner: Arc<AnalyticSource>,
    offset_m: f64,
    version: std::sync::atomic::AtomicU32,
    asked: Mutex<Vec<TileId>>,
    rewritten: Mutex<Vec<TileId>>,
}

impl TileSource for Versioned {
    fn body(&self) -> Body {
        self.inner.body()
    }
    fn finest_level(&self) -> u8 {
        self.inner.finest_level()
    }
    fn tile(&self, id: TileId) -> Arc<Tile> {
        let exact = self.inner.tile(id);
        let lift = self.version.load(Ordering::Relaxed) as f64 * self.offset_m;
        let mut t = Tile::empty(id);
        for k in 0..(TILE_STRIDE * TILE_STRIDE) as usize {
            let h = exact.heights[k] as f64 + lift;
            t.set(k, quantise(h, h < 0.0));
        }
        Arc::new(t)
    }
    fn max_relief(&self) -> f64 {
        self.inner.max_relief() + 2.0 * self.offset_m
    }
    fn is_async(&self) -> bool {
        true
    }
    fn request(&self, tiles: &[(TileId, f32)]) {
        self.asked.lock().unwrap().extend(tiles.iter().map(|t| t.0));
    }
    fn poll(&self) -> Vec<Completion> {
        let mut ids = std::mem::take(&mut *self.asked.lock().unwrap());
        ids.sort();
        ids.dedup();
        ids.into_iter().map(|id| (id, Ok(self.tile(id)))).collect()
    }
    fn provisional(&self, id: TileId) -> Option<Arc<Tile>> {
        Some(self.tile(id))
    }
    fn updated_underneath(&self) -> Vec<TileId> {
        std::mem::take(&mut *self.rewritten.lock().unwrap())
    }
}

/// Both other triggers of a same-slot replacement — the store rewritten underneath, then the
/// detail settings changed — replace every resident tile in its own slot, with cross-fade
/// weights rising over 1.5 s, and move the rendered depth of a pixel (and the CPU's drawn
/// ground) by at most its cross-fade step per frame.
#[test]
fn the_store_rewritten_underneath_and_new_detail_settings_cross_fade_in_place() {
    let _serial = serial();
    let mut gpu = Gpu::new();
    let src = Arc::new(Versioned {
        inner: analytic(2),
        offset_m: 1_000.0,
        version: std::sync::atomic::AtomicU32::new(0),
        asked: Mutex::new(Vec::new()),
        rewritten: Mutex::new(Vec::new()),
    });
    let (mut r, period, step, cam, probes) = cross_fade_rig(&gpu, src.clone());
    let ground = |r: &PlanetRenderer| -> Vec<f64> {
        probes
            .iter()
            .map(|&d| r.drawn_ground(&cam, d).unwrap())
            .collect()
    };
    let slots = |r: &PlanetRenderer| -> std::collections::BTreeMap<TileId, u32> {
        r.residency().tiles.iter().map(|t| (t.id, t.slot)).collect()
    };
    let mut depth = Vec::new();
    for _ in 0..60 {
        depth = frame(&mut gpu, &mut r, &cam).1;
        if r.settled() {
            break;
        }
    }
    assert!(r.settled(), "{:?}", r.stats.residency);
    for (version, trigger) in [(1, "store rewritten"), (2, "detail settings")] {
        src.version.store(version, Ordering::Relaxed);
        let before = slots(&r);
        match version {
            1 => *src.rewritten.lock().unwrap() = before.keys().copied().collect(),
            // The analytic planet stops at L2: its "detail levels" here are all of them.
            _ => assert_eq!(r.remake_levels(0..=2), before.len(), "{trigger}"),
        }
        let mut depths = vec![depth.clone()];
        let mut grounds = vec![ground(&r)];
        let (mut replaced, mut frames) = (0, 0);
        let mut weights: Vec<f32> = Vec::new();
        for _ in 0..40 {
            depth = frame(&mut gpu, &mut r, &cam).1;
            frames += 1;
            replaced += r.stats.residency.replaced_this_frame;
            depths.push(depth.clone());
            grounds.push(ground(&r));
            let root = r
                .residency()
                .tiles
                .iter()
                .find(|t| t.id == TileId::new(0, Face(0), 0, 0));
            if let Some(t) = root.filter(|t| t.from.is_some()) {
                weights.push(t.xfade);
            }
            if r.settled() {
                break;
            }
        }
        assert!(r.settled(), "{trigger}: {:?}", r.stats.residency);
        assert_eq!(
            replaced,
            before.len(),
            "{trigger}: every resident tile once"
        );
        assert_eq!(slots(&r), before, "{trigger}: every tile kept its slot");
        // A cross-fade, not a pop: at least 1.5 s of frames, weights rising through (0, 1).
        assert!(
            frames as f64 * period >= 1.5,
            "{trigger}: settled in {frames} frames"
        );
        assert!(weights.len() >= 10, "{trigger}: weights {weights:?}");
        assert!(
            weights.windows(2).all(|w| w[1] > w[0]),
            "{trigger}: {weights:?}"
        );
        assert!(
            weights.iter().all(|&w| (0.0..=1.0).contains(&w)),
            "{weights:?}"
        );
        assert!(
            weights[0] < 0.1 && *weights.last().unwrap() > 0.9,
            "{weights:?}"
        );
        let total = check_cross_fade_steps(&depths, step, trigger);
        assert!(
            total > (W * H / 4) as usize,
            "{trigger}: the change shows in {total} px"
        );
        let (g0, g1) = (&grounds[0], grounds.last().unwrap());
        for (k, (a, b)) in g0.iter().zip(g1).enumerate() {
            assert!(
                (b - a - 1_000.0).abs() < 1.0,
                "{trigger} probe {k}: {a} → {b}"
            );
            for pair in grounds.windows(2) {
                let d = (pair[1][k] - pair[0][k]).abs();
                assert!(d <= step * 1_000.0 + 0.5, "{trigger} probe {k}: {d:.1} m");
            }
        }
    }
    r.destroy(&gpu.ctx);
}

/// Over land pixels (terrain in every frame), no frame moves the depth by more than 1.25× its
/// cross-fade step of the whole change (+2 m of f32 noise), but for grazing pixels (below).
/// Returns the pixels that moved by more than 500 m in all.
fn check_cross_fade_steps(depths: &[Vec<f32>], step: f64, what: &str) -> usize {
    let (first, last) = (&depths[0], depths.last().unwrap());
    let land: Vec<bool> = (0..first.len())
        .map(|k| depths.iter().all(|d| d[k] > 0.0))
        .collect();
    let total: Vec<f64> = (0..first.len())
        .map(|k| {
            if land[k] {
                (last[k] - first[k]) as f64
            } else {
                0.0
            }
        })
        .collect();
    let mut worst = (0.0f64, 0, 0);
    let mut over = Vec::new();
    for (f, pair) in depths.windows(2).enumerate() {
        for k in (0..first.len()).filter(|&k| land[k]) {
            let d = (pair[1][k] - pair[0][k]) as f64;
            let ratio = d.abs() / (1.25 * step * total[k].abs() + 2.0);
            if ratio > 1.0 {
                over.push((f, k / W as usize, k % W as usize, ratio as f32));
            }
            if ratio > worst.0 {
                worst = (ratio, f, k);
            }
        }
    }
    let n_land = land.iter().filter(|&&l| l).count();
    eprintln!(
        "{what}: worst (ratio, frame, pixel): {worst:?}, its depths {:?}; over the bound \
         (frame, row, column, ratio): {over:?} of {n_land} land px",
        depths.iter().map(|d| d[worst.2]).collect::<Vec<_>>()
    );
    // The blend moves every surface height by exactly one step a frame (the CPU ground
    // probes check that), but a pixel whose ray grazes a slope sees its hit move
    // non-linearly with height: measured, 1 pixel in 6,177 at 1.11× in the first frame of the
    // store trigger. Allowed: 0.1 % of pixels, none over 1.5×.
    assert!(
        over.len() * 1000 <= n_land && worst.0 <= 1.5,
        "{what}: {} pixels moved more than their cross-fade step in one frame (worst {:.2}×)",
        over.len(),
        worst.0
    );
    total.iter().filter(|t| t.abs() > 500.0).count()
}

/// `stream.upload` overlaps the frame's rendering: compiled for a device with a transfer
/// family, nothing that renders waits for the upload's batch — only the end-of-frame
/// hand-off does — and the landed tiles are placed by the next frame.
#[test]
fn the_upload_of_a_frame_does_not_hold_up_its_rendering() {
    let _serial = serial();
    use framegraph::{QueueKind, QueueSetup};
    let mut gpu = Gpu::new();
    // Everything asked for completes at once, so arrivals land over consecutive frames.
    let src = Arc::new(Gated {
        inner: analytic(6),
        offset_m: 0.0,
        open: AtomicBool::new(true),
        asked: Mutex::new(Vec::new()),
    });
    let mut opts = options(&gpu.ctx);
    opts.max_uploads = 4;
    let mut r = PlanetRenderer::new(&gpu.ctx, src, opts, 2).unwrap();
    let radius = r.body.radius;
    let cam = ViewCamera::geo(20.0, 30.0, radius + 200_000.0, 0.0, -60.0, 60.0, W, H);
    let dual = QueueSetup {
        universal: 0,
        transfer: Some(1),
    };
    let (mut checked, mut placed_checked, mut landed_before) = (0, 0, false);
    for k in 0..60 {
        let (slot, _) = gpu.exec.begin_frame(&gpu.ctx).unwrap();
        let req = FrameRequest {
            cam,
            frame_slot: slot,
            view: DebugView::Shaded,
            aov: false,
        };
        r.prepare(&gpu.ctx, req).unwrap();
        if k > 0 && r.stats.uploaded_tiles > 0 {
            let mut g = Graph::new();
            let mut target =
                g.create_image("target", ImageDesc::d2(W, H, vk::Format::R8G8B8A8_UNORM));
            r.declare(&mut g, &mut target).unwrap();
            g.readback_image("color", target);
            let c = g.compile(dual).unwrap();
            let batch_of = |name: &str| {
                let n = c
                    .nodes
                    .iter()
                    .position(|n| n.name == name)
                    .unwrap_or_else(|| {
                        panic!(
                            "{name} not in {:?}",
                            c.nodes.iter().map(|n| &n.name).collect::<Vec<_>>()
                        )
                    });
                c.nodes[n].batch
            };
            let up = batch_of("stream.upload");
            assert_eq!(c.batches[up].queue, QueueKind::AsyncTransfer);
            // Batches that depend on the upload, directly or through another batch.
            let mut after = vec![false; c.batches.len()];
            for (b, batch) in c.batches.iter().enumerate() {
                after[b] = batch.waits.iter().any(|&w| w == up || after[w]);
            }
            // `stream.records` is there when records changed (last frame's arrivals drawn).
            let records = c.nodes.iter().any(|n| n.name == "stream.records");
            assert!(records || !landed_before, "drawn arrivals change records");
            let nodes = [
                "stream.records",
                "cbt.eval",
                "publish.resolve",
                "shade.terrain",
            ];
            for node in nodes.into_iter().skip(!records as usize) {
                let b = batch_of(node);
                assert!(!after[b], "{node} waits for stream.upload");
                assert!(
                    b > up,
                    "{node} is submitted after the upload, to overlap it"
                );
            }
            assert!(
                after.iter().any(|&a| a),
                "the end-of-frame hand-off waits for the upload"
            );
            // What the last frame landed is placed at the start of this one, not waited for.
            let placed = c.nodes.iter().any(|n| n.name == "stream.place");
            assert_eq!(placed, landed_before, "stream.place follows a landing");
            if placed {
                let b = batch_of("stream.place");
                assert!(!after[b] && c.batches[b].queue == QueueKind::Universal);
                placed_checked += 1;
            }
            checked += 1;
        }
        landed_before = k > 0 && r.stats.uploaded_tiles > 0;
        // Run the frame on the real device (one queue on lavapipe), under validation.
        let mut g = Graph::new();
        let mut target = g.create_image("target", ImageDesc::d2(W, H, vk::Format::R8G8B8A8_UNORM));
        r.declare(&mut g, &mut target).unwrap();
        g.readback_image("color", target);
        gpu.exec
            .run(&gpu.ctx, g.compile(gpu.ctx.queue_setup()).unwrap())
            .unwrap();
        if checked >= 3 && placed_checked >= 1 {
            break;
        }
    }
    assert!(
        checked >= 3 && placed_checked >= 1,
        "checked {checked}, placed {placed_checked}"
    );
    r.destroy(&gpu.ctx);
}
