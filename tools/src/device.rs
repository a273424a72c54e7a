//! Options every GPU subcommand shares, and the context they make.

use anyhow::{Context as _, Result};
use engine::publish::PublishMode;
use framegraph::{Context, ContextOptions};

#[derive(clap::Args, Clone, Debug, Default)]
pub struct GpuArgs {
    /// Vulkan device by index or name substring (default: prefer a discrete GPU).
    #[arg(long, env = "PLANETFALL_DEVICE")]
    pub device: Option<String>,
    /// Enable the Khronos validation layer with synchronization validation.
    #[arg(long, env = "PLANETFALL_VALIDATION")]
    pub validation: bool,
    /// Tiles a flying frame makes on the GPU at most (`tiles.derive`, `tiles.amplify.*`; the
    /// size of `tiles.out`); 0: the CPU workers make them. Default: 32 (the stream's landings
    /// a frame) on a GPU with f64 shaders, 0 on a CPU device (lavapipe). When it binds before
    /// the time budget, the HUD and the bench say so.
    #[arg(long, env = "PLANETFALL_GPU_TILES")]
    pub gpu_tiles: Option<usize>,
    /// GPU milliseconds a flying frame spends making tiles while the view has what it needs,
    /// against their measured cost per tile; while the view misses tiles the budget grows
    /// (doubling every 0.1 s) up to half the frame period, at most 50 ms
    /// (`engine::earth::gpu_budget`) [default: 2].
    #[arg(long, env = "PLANETFALL_GPU_TILE_BUDGET_MS")]
    pub gpu_tile_budget_ms: Option<f64>,
    /// Who rasterises the leaves the compute rasteriser hands over (near-plane crossers, big
    /// footprints): hw (`raster.hardware`), compute (`raster.compute.big`, no hardware raster)
    /// or auto (the device's rule, `engine::publish::PublishMode::resolve`).
    #[arg(long, env = "PLANETFALL_PUBLISH", default_value = "auto", value_parser = parse_publish)]
    pub publish: PublishMode,
    /// The largest pixel box one `raster.compute` thread rasterises; bigger leaves are handed
    /// over (a tuning knob: 0 hands every leaf over) [default: engine::publish::RASTER_MAX_BOX_PX].
    #[arg(long, env = "PLANETFALL_RASTER_MAX_BOX")]
    pub raster_max_box: Option<u32>,
    /// From this root search step on, a point within --resolve-late-scale times the
    /// correction's trigger is close enough (0: never) [default: engine::publish::RESOLVE_LATE_AFTER].
    #[arg(long, env = "PLANETFALL_RESOLVE_LATE_AFTER")]
    pub resolve_late_after: Option<u32>,
    /// See --resolve-late-after (≥ 1) [default: engine::publish::RESOLVE_LATE_SCALE].
    #[arg(long, env = "PLANETFALL_RESOLVE_LATE_SCALE")]
    pub resolve_late_scale: Option<f32>,
    /// Steps in all a root search still unaccepted after its sixth takes while its root is
    /// bracketed (6 or less: none, the chord is kept) [default: engine::publish::RESOLVE_RESCUE_STEPS].
    #[arg(long, env = "PLANETFALL_RESOLVE_RESCUE")]
    pub resolve_rescue: Option<u32>,
    /// Display value per unit of luminance before the tonemap: `auto` adapts it to the image
    /// (the geometric mean luminance at the key, within ±2 stops of 5; `engine::exposure`), or
    /// a fixed number (5 is the default scale).
    #[arg(long, env = "PLANETFALL_EXPOSURE", default_value = "auto")]
    pub exposure: engine::exposure::ExposureMode,
    /// Occlusion stamps in the compute raster: off (every leaf drawn in one pass, none
    /// stamped), stamp (one pass that stamps the leaves it draws, so the mesh knows those
    /// that won no pixel) or on (last frame's visible leaves first, then the rest culled where
    /// hidden behind them: slower on the H100 and H200, docs/bench.md "Hidden leaves kept from
    /// splitting"). The image is the same bits in every case (`engine::publish::Occlusion`).
    #[arg(long, env = "PLANETFALL_OCCLUSION", default_value = "off")]
    pub occlusion: engine::publish::Occlusion,
    /// With --occlusion stamp or on, which leaves that showed nothing in the last frame keep
    /// their level instead of splitting: `keep-culled` (those the cull found hidden behind
    /// nearer terrain; the default with on), `keep-unseen` (also those drawn on screen that won
    /// no pixel, but for outlines; the default with stamp) or `refine` (none: the image is the
    /// same bits as without stamps) (`engine::cbt::HiddenLeaves`).
    #[arg(long, env = "PLANETFALL_HIDDEN_LEAVES")]
    pub hidden_leaves: Option<engine::cbt::HiddenLeaves>,
    /// With --occlusion stamp: an unseen leaf is found hidden (kept from splitting even as an
    /// outline) where its chord, raised and lowered by this many times its largest
    /// edge-midpoint residual (at least a pixel), stays behind the finished image
    /// (`engine::publish::UNSEEN_RAISE`) [default: 4].
    #[arg(long, env = "PLANETFALL_UNSEEN_RAISE")]
    pub unseen_raise: Option<f32>,
    /// Samples `publish.resolve` takes back along a grazing ray for detail the mesh's chords
    /// pass under: 16 (engine::publish::RESOLVE_MARCH_SAMPLES) mends about 60 % of it, at up to
    /// 2.9 ms a frame on the H200 over rough ground [default: 0, none].
    #[arg(long, env = "PLANETFALL_RESOLVE_MARCH")]
    pub resolve_march: Option<u32>,
    /// Samples of the resolve's outline search at most, along rays that passed over a
    /// surface drawn beside them in front of their chord: 8
    /// (engine::publish::RESOLVE_OUTLINE_SAMPLES) turns it on [default: 0, none].
    #[arg(long, env = "PLANETFALL_RESOLVE_OUTLINE")]
    pub resolve_outline: Option<u32>,
    /// The resolve's root search bisects where regula falsi creeps (up to 14 steps once
    /// bracketed) [default: off].
    #[arg(long, env = "PLANETFALL_RESOLVE_BISECT")]
    pub resolve_bisect: bool,
    /// Pieces of the resolve's first-crossing search at most (at most 63): 16
    /// (engine::publish::RESOLVE_CROSSING_PIECES) turns it on; near the ground it draws the
    /// ray's first crossing where the chords lie past the root search's reach [default: 0,
    /// none].
    #[arg(long, env = "PLANETFALL_RESOLVE_CROSSING")]
    pub resolve_crossing: Option<u32>,
    /// The conservative shell: leaves whose chord may lie a pixel or more under the surface
    /// are also drawn as prisms raised this many times their largest edge-midpoint residual,
    /// and the resolve searches each ray from the nearest prism face for its first crossing
    /// (`engine::publish::PublishOptions::shell_k`; 0 off) [default: 0].
    #[arg(long, env = "PLANETFALL_RESOLVE_SHELL")]
    pub resolve_shell: Option<f32>,
    /// With --resolve-shell: the shell's rays searched in `publish.resolve.search` with every
    /// other pixel rather than handed to `publish.resolve.shell` (the same hits; to time the
    /// hand-over against).
    #[arg(long, env = "PLANETFALL_RESOLVE_SHELL_INLINE")]
    pub resolve_shell_inline: bool,
    /// Sky pixels next to terrain searched near their neighbours' chords for a crossing (a
    /// ridge's crest over its chord) by `publish.resolve.skyline`: on or off [default: on].
    #[arg(long, env = "PLANETFALL_RESOLVE_SKYLINE", value_parser = parse_on_off)]
    pub resolve_skyline: Option<bool>,
    /// With the skyline search: terrain pixels behind an outline (a neighbour's chord nearer
    /// by over 6 %, within this view depth, m) searched near the nearer chords too, for a crest
    /// in front of their hit, walking up each crest met; 0: none [default: 0].
    #[arg(long, env = "PLANETFALL_RESOLVE_SKYLINE_OUTLINES")]
    pub resolve_skyline_outlines: Option<f32>,
    /// With the outlines: each crest met walked up row by row (`publish.resolve.skyline.walk`),
    /// on or off [default: on].
    #[arg(long, env = "PLANETFALL_RESOLVE_SKYLINE_WALK", value_parser = parse_on_off)]
    pub resolve_skyline_walk: Option<bool>,
    /// The mesh's residual splits only triangles whose longest screen edge is over this many
    /// pixels (`engine::cbt::CbtParams::split_min_px`) [default: the engine's].
    #[arg(long, env = "PLANETFALL_SPLIT_MIN_PX")]
    pub split_min_px: Option<f64>,
    /// Leaves seen within this |cos| of grazing keep their own level's depth cap whatever the
    /// fine-detail gain: the outlines' chords (`engine::cbt::CbtParams::silhouette_cos`; 0 off)
    /// [default: the engine's].
    #[arg(long, env = "PLANETFALL_SILHOUETTE_COS")]
    pub silhouette_cos: Option<f64>,
    /// The residual target of far leaves seen nearly edge-on, the outlines, is up to this
    /// fraction tighter (`engine::cbt::CbtParams::outline_tighten`; 0 off) [default: the
    /// engine's].
    #[arg(long, env = "PLANETFALL_OUTLINE_TIGHTEN")]
    pub outline_tighten: Option<f64>,
    /// Tile slots of the stream's table and atlas (`engine::params::STREAM_SLOTS`, 1,024, the
    /// seed's; the wanted set's 700-tile cap grows with them, `engine::stream::wanted_cap`),
    /// at most the device's image array layers less 64 [default: 1024].
    #[arg(long, env = "PLANETFALL_TILE_SLOTS")]
    pub tile_slots: Option<u32>,
    /// Parts of the frame left out, to time what they cost (the image is wrong by design):
    /// a comma-separated list of root-search (the resolve's), aerial, footprint (the water and
    /// snow shares), climate, exposure-sum, light (sun and sky at the point), waves; or all
    /// (`engine::shade::Skips`) [default: none].
    #[arg(long, env = "PLANETFALL_SKIP", value_parser = engine::shade::Skips::parse)]
    pub skip: Option<engine::shade::Skips>,
    /// Ask the driver for every pipeline's statistics (registers, shared and local memory,
    /// instructions: VK_KHR_pipeline_executable_properties, where the device has it); the
    /// bench reports them ("## Pipelines"), `render` and `capture` print them at the end.
    #[arg(long, env = "PLANETFALL_PIPELINE_STATS")]
    pub pipeline_stats: bool,
}

impl GpuArgs {
    /// `--hidden-leaves`, or its default for `--occlusion`: stamps without a cull mark no
    /// leaf hidden, so there the leaves kept are the unseen.
    pub fn hidden_leaves(&self) -> engine::cbt::HiddenLeaves {
        use engine::cbt::HiddenLeaves;
        self.hidden_leaves.unwrap_or(match self.occlusion {
            engine::publish::Occlusion::Stamp => HiddenLeaves::KeepUnseen,
            _ => HiddenLeaves::KeepCulled,
        })
    }
}

pub fn parse_on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("expected on or off, not {s:?}")),
    }
}

pub fn parse_publish(s: &str) -> Result<PublishMode, String> {
    PublishMode::parse(s).ok_or_else(|| {
        format!(
            "unknown --publish {s:?}; known: {}",
            PublishMode::NAMES.join(", ")
        )
    })
}

/// The options the first context was made with: the renderers made later read them.
static ARGS: std::sync::OnceLock<GpuArgs> = std::sync::OnceLock::new();

/// Sets the options' GPU tile feed from `--gpu-tiles` and `--gpu-tile-budget-ms`, and the
/// rest as `publish_options`.
pub fn frame_options(ctx: &Context, o: &mut engine::renderer::RendererOptions) {
    o.gpu_tiles_per_frame = gpu_tiles_per_frame(ctx);
    if let Some(ms) = ARGS.get().and_then(|a| a.gpu_tile_budget_ms) {
        o.gpu_tile_budget_ms = ms;
    }
    publish_options(o);
}

/// Sets the options' publish mode from `--publish`, the compute raster's hand-over box
/// from `--raster-max-box` (for frames that make no GPU tiles), occlusion culling from
/// `--occlusion`, the exposure from `--exposure`, the march from `--resolve-march`, the
/// outline search from `--resolve-outline` and `--resolve-bisect`, the shell from
/// `--resolve-shell`, the skyline search from `--resolve-skyline`, the mesh's smallest residual split from
/// `--split-min-px`, the outlines' depth cap from `--silhouette-cos`, the tile slots from
/// `--tile-slots` and the parts left out from `--skip`.
pub fn publish_options(o: &mut engine::renderer::RendererOptions) {
    let Some(a) = ARGS.get() else {
        o.publish.mode = PublishMode::default();
        return;
    };
    o.publish.mode = a.publish;
    o.publish.occlusion = a.occlusion;
    o.cbt.hidden_leaves = a.hidden_leaves();
    o.exposure = a.exposure;
    if let Some(px) = a.raster_max_box {
        o.publish.max_box_px = px;
    }
    if let Some(n) = a.resolve_late_after {
        o.publish.late_after = n;
    }
    if let Some(x) = a.resolve_late_scale {
        o.publish.late_scale = x;
    }
    if let Some(n) = a.resolve_rescue {
        o.publish.rescue_steps = n;
    }
    if let Some(n) = a.resolve_march {
        o.publish.march_samples = n;
    }
    if let Some(n) = a.resolve_outline {
        o.publish.outline_samples = n;
    }
    o.publish.root_bisect |= a.resolve_bisect;
    if let Some(n) = a.resolve_crossing {
        o.publish.crossing_pieces = n.min(63);
    }
    o.publish.shell_inline = a.resolve_shell_inline;
    if let Some(m) = a.resolve_skyline_outlines {
        o.publish.skyline_outline_m = m;
    }
    if let Some(on) = a.resolve_skyline_walk {
        o.publish.skyline_walk = on;
    }
    if let Some(on) = a.resolve_skyline {
        o.publish.skyline = on;
    }
    if let Some(k) = a.resolve_shell {
        o.publish.shell_k = k;
    }
    if let Some(k) = a.unseen_raise {
        o.publish.unseen_raise = k;
    }
    if let Some(px) = a.split_min_px {
        o.cbt.split_min_px = px;
    }
    if let Some(c) = a.silhouette_cos {
        o.cbt.silhouette_cos = c;
    }
    if let Some(t) = a.outline_tighten {
        o.cbt.outline_tighten = t;
    }
    if let Some(n) = a.tile_slots {
        o.slots = n;
    }
    if let Some(s) = a.skip {
        o.skips = s;
    }
}

/// Tiles a non-waiting frame makes on the GPU on `ctx`: `--gpu-tiles`, or the device default.
pub fn gpu_tiles_per_frame(ctx: &Context) -> usize {
    ARGS.get()
        .and_then(|a| a.gpu_tiles)
        .unwrap_or_else(|| engine::renderer::default_gpu_tiles_per_frame(ctx))
}

impl GpuArgs {
    pub fn context(&self) -> Result<Context> {
        if let Some(ms) = self.gpu_tile_budget_ms {
            if !(ms.is_finite() && ms >= 0.0) {
                anyhow::bail!(
                    "--gpu-tile-budget-ms must be a number of milliseconds ≥ 0 (got {ms})"
                );
            }
        }
        if let Some(px) = self.split_min_px {
            if !(px.is_finite() && px >= 0.0) {
                anyhow::bail!("--split-min-px must be a number of pixels ≥ 0 (got {px})");
            }
        }
        if let Some(x) = self.resolve_late_scale {
            if !(x >= 1.0 && x.is_finite()) {
                anyhow::bail!("--resolve-late-scale must be a number ≥ 1 (got {x})");
            }
        }
        if let Some(k) = self.unseen_raise {
            if !(k.is_finite() && k >= 0.0) {
                anyhow::bail!("--unseen-raise must be a number ≥ 0 (got {k})");
            }
        }
        if let Some(c) = self.silhouette_cos {
            if !(0.0..=1.0).contains(&c) {
                anyhow::bail!("--silhouette-cos must be a cosine in [0, 1] (got {c})");
            }
        }
        if let Some(t) = self.outline_tighten {
            if !(0.0..1.0).contains(&t) {
                anyhow::bail!("--outline-tighten must be a fraction in [0, 1) (got {t})");
            }
        }
        let _ = ARGS.set(self.clone());
        let opts = ContextOptions {
            validation: self.validation,
            device: self.device.clone(),
            pipeline_cache: Some(pipeline_cache_path()),
            pipeline_statistics: self.pipeline_stats,
            ..Default::default()
        };
        Context::new(&opts).context("creating the Vulkan context")
    }
}

/// Where every command keeps the Vulkan pipeline cache: the data directory
/// (`PLANETFALL_DATA`, else the user's cache directory), one file per machine; a file of
/// another device or driver is ignored (`framegraph::context::pipeline_cache`).
pub fn pipeline_cache_path() -> std::path::PathBuf {
    engine::store::data_dir(None).join("pipeline-cache.bin")
}
