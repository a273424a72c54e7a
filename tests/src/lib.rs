//! Shared helpers for Planetfall's integration tests.
//!
//! Every GPU test runs on whatever Vulkan device is present (lavapipe on CI) with the Khronos
//! validation layer and synchronization validation on; any validation message fails the test.

use framegraph::{Context, ContextOptions, Executor};

/// A validated GPU context plus an executor; checks the validation log when dropped.
pub struct Gpu {
    pub exec: Executor,
    pub ctx: Context,
}

impl Gpu {
    /// Panics with an actionable message when Vulkan or the validation layer is missing.
    pub fn new() -> Gpu {
        let _ = env_logger_init();
        let opts = ContextOptions {
            validation: true,
            device: std::env::var("PLANETFALL_DEVICE").ok(),
            ..Default::default()
        };
        let ctx = Context::new(&opts)
            .unwrap_or_else(|e| panic!("GPU tests need Vulkan with validation: {e}"));
        let exec = Executor::new(&ctx, 2).expect("executor");
        Gpu { exec, ctx }
    }

    /// Fail if the validation layer said anything so far.
    pub fn assert_clean(&self) {
        let msgs = self.ctx.messages.messages();
        assert!(
            msgs.is_empty(),
            "{} validation message(s):\n{}",
            msgs.len(),
            msgs.join("\n---\n")
        );
    }
}

impl Default for Gpu {
    fn default() -> Self {
        Gpu::new()
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        self.exec.destroy(&self.ctx);
        if !std::thread::panicking() {
            self.assert_clean();
        }
    }
}

fn env_logger_init() -> Result<(), ()> {
    // Tests share a process; only the first initialisation succeeds.
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = env_logger_try_init();
    });
    Ok(())
}

fn env_logger_try_init() -> Result<(), ()> {
    Ok(())
}

/// The Earth as tiles, through an oracle on the default tile store (the one `planetfall` uses,
/// `PLANETFALL_DATA` or the XDG cache): every test and tool of a run shares derived tiles.
/// Water by the sign rule (below the datum).
pub fn earth_source() -> std::sync::Arc<engine::source::EarthSource> {
    static SOURCE: std::sync::OnceLock<std::sync::Arc<engine::source::EarthSource>> =
        std::sync::OnceLock::new();
    SOURCE.get_or_init(|| earth_over(|s| s)).clone()
}

/// The Earth as tiles (water by the sign rule) through an oracle on the data directory `dir`:
/// a cold store of its own, for what a first start does.
pub fn earth_source_at(dir: &std::path::Path) -> std::sync::Arc<engine::source::EarthSource> {
    earth_in(dir.to_path_buf(), |s| s)
}

/// The Earth as tiles with water from the GSHHG mask (`docs/earth.md`, "Water"): the mask
/// of the default data directory (built once per machine, about 45 s) and the tiles derived
/// under it, which the store keeps apart from the sign rule's (`DATA/gshhg/`).
pub fn earth_source_with_water() -> std::sync::Arc<engine::source::EarthSource> {
    static SOURCE: std::sync::OnceLock<std::sync::Arc<engine::source::EarthSource>> =
        std::sync::OnceLock::new();
    SOURCE
        .get_or_init(|| {
            earth_over(|src| {
                let dir = engine::store::datadir::data_dir(None);
                let src = src.with_mask_at(&engine::earth::water::mask_path(None, &dir));
                assert!(
                    src.has_water_mask(),
                    "the water mask (apt-get install gmt gmt-gshhg-full)"
                );
                src
            })
        })
        .clone()
}

/// ETOPO5 as `water` sets it up, through an oracle on the default tile store.
fn earth_over(
    water: impl FnOnce(engine::earth::derive::Source) -> engine::earth::derive::Source,
) -> std::sync::Arc<engine::source::EarthSource> {
    earth_in(engine::store::datadir::data_dir(None), water)
}

/// ETOPO5 as `water` sets it up, through an oracle on the tile store in `data_dir`.
fn earth_in(
    data_dir: std::path::PathBuf,
    water: impl FnOnce(engine::earth::derive::Source) -> engine::earth::derive::Source,
) -> std::sync::Arc<engine::source::EarthSource> {
    use engine::store::oracle::{Oracle, OracleConfig};
    let body = engine::planet::Body::EARTH;
    let path = engine::earth::etopo::etopo_path(None);
    let src = engine::earth::derive::Source::open(&path, body).unwrap_or_else(|e| panic!("{e}"));
    let cfg = OracleConfig {
        data_dir: Some(data_dir),
        memory_fallback: true,
        ..Default::default()
    };
    let oracle = Oracle::new(std::sync::Arc::new(water(src)), cfg).expect("oracle");
    std::sync::Arc::new(engine::source::EarthSource {
        oracle: std::sync::Arc::new(oracle),
        body,
    })
}

/// Ground height (m) under (lat, lon) as the finest Earth level holds it.
pub fn earth_ground(lat: f64, lon: f64) -> f64 {
    engine::ground::height_at_latlon(&earth_source().oracle, lat, lon, 9).height_m
}

/// Renderer options for a test frame on lavapipe: 256 tile slots and a 2¹⁶-entry bisector
/// pool, ample for the small images the tests render.
pub fn test_renderer_options(ctx: &framegraph::Context) -> engine::renderer::RendererOptions {
    let mut o = engine::renderer::RendererOptions::for_device(ctx);
    o.slots = 256;
    o.pool_capacity = 1 << 16;
    o
}

/// A planet renderer over Earth with the test options, run at `cam` until settled (at most
/// `frames` frames).
pub fn settled_planet(
    gpu: &mut Gpu,
    cam: &engine::camera::ViewCamera,
    frames: u32,
) -> engine::renderer::PlanetRenderer {
    let mut r = engine::renderer::PlanetRenderer::new(
        &gpu.ctx,
        earth_source(),
        test_renderer_options(&gpu.ctx),
        gpu.exec.frames_in_flight(),
    )
    .unwrap();
    for _ in 0..frames {
        planet_frame(gpu, &mut r, cam);
        if r.settled() {
            break;
        }
    }
    r
}

/// Tightly packed RGBA8 rows as a PNG (for looking at test renders).
pub fn write_png(path: &std::path::Path, width: u32, height: u32, rgba: &[u8]) {
    let file = std::fs::File::create(path).expect("create png");
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()
        .and_then(|mut w| w.write_image_data(rgba))
        .expect("write png");
}

/// One shaded frame of the planet renderer with its AOV read back.
pub struct PlanetFrame {
    /// Host seconds: prepare, declare, compile (not the submit-and-wait).
    pub host_s: f64,
    pub rgba: Vec<u8>,
    pub aov: Vec<engine::shade::AovPixel>,
}

impl PlanetFrame {
    /// (published distance, reference distance) for every pixel that both the frame and the
    /// CPU reference see as terrain, in pixel order.
    pub fn terrain_against(&self, reference: &[Option<f64>]) -> Vec<(f64, f64)> {
        self.aov
            .iter()
            .zip(reference)
            .filter_map(|(a, c)| match (a.is_terrain(), c) {
                (true, Some(c)) => Some((a.dist as f64, *c)),
                _ => None,
            })
            .collect()
    }
}

/// The AOV of one frame of `r` for `cam` with the publish options `opts`.
pub fn aov_with(
    gpu: &mut Gpu,
    r: &mut engine::renderer::PlanetRenderer,
    cam: &engine::camera::ViewCamera,
    opts: engine::publish::PublishOptions,
) -> Vec<engine::shade::AovPixel> {
    r.set_publish_options(&gpu.ctx, opts);
    planet_frame(gpu, r, cam).aov
}

/// One frame per frame in flight with `opts` but the surface correction off, so that every
/// frame slot's hit records are chord points: a pass that later fails to publish a pixel leaves
/// such a record. Each frame must differ from `want` in at least `at_least` pixels, or a
/// comparison after it proves nothing.
pub fn chords_in_every_slot(
    gpu: &mut Gpu,
    r: &mut engine::renderer::PlanetRenderer,
    cam: &engine::camera::ViewCamera,
    opts: engine::publish::PublishOptions,
    want: &[engine::shade::AovPixel],
    at_least: usize,
) {
    for _ in 0..gpu.exec.frames_in_flight() {
        let opts = engine::publish::PublishOptions {
            no_correction: true,
            ..opts
        };
        let chords = aov_with(gpu, r, cam, opts);
        let n = records_differ(want, &chords);
        assert!(n >= at_least, "uncorrected differs in {n} px");
    }
}

/// Pixels whose AOV records differ in any bit.
pub fn records_differ(a: &[engine::shade::AovPixel], b: &[engine::shade::AovPixel]) -> usize {
    a.iter()
        .zip(b)
        .filter(|(a, b)| bytemuck::bytes_of(*a) != bytemuck::bytes_of(*b))
        .count()
}

/// Prepare, declare and run one frame of `r` for `cam`, reading back colour and AOV.
pub fn planet_frame(
    gpu: &mut Gpu,
    r: &mut engine::renderer::PlanetRenderer,
    cam: &engine::camera::ViewCamera,
) -> PlanetFrame {
    use framegraph::{Graph, ImageDesc};
    let t0 = std::time::Instant::now();
    let (slot, _) = gpu.exec.begin_frame(&gpu.ctx).unwrap();
    let req = engine::renderer::FrameRequest {
        cam: *cam,
        frame_slot: slot,
        view: engine::debug_view::DebugView::Shaded,
        aov: true,
    };
    r.prepare(&gpu.ctx, req).unwrap();
    let mut g = Graph::new();
    let mut target = g.create_image(
        "target",
        ImageDesc::d2(cam.width, cam.height, ash::vk::Format::R8G8B8A8_UNORM),
    );
    let aov = r.declare(&mut g, &mut target).unwrap().unwrap();
    g.readback_image("color", target);
    g.readback("aov", aov);
    let compiled = g.compile(gpu.ctx.queue_setup()).unwrap();
    let host_s = t0.elapsed().as_secs_f64();
    let out = gpu.exec.run(&gpu.ctx, compiled).unwrap();
    r.observe_gpu_times(slot, &out.times);
    PlanetFrame {
        host_s,
        rgba: out.readback("color").unwrap().to_vec(),
        aov: bytemuck::cast_slice(out.readback("aov").unwrap()).to_vec(),
    }
}
