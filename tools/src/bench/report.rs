//! The benchmark's results as data: written as `bench-<device>.json`, read back by
//! `--compare`. Units are in the field names (`_ms`, `_px`, `_gbps`).

pub use super::clock::ClockStats;
use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    pub device: String,
    pub driver: String,
    /// The commit the binary was built from (full hash, `-dirty` when a tracked file differed
    /// from it; tools/build.rs), or `unknown`.
    pub commit: String,
    pub command: String,
    pub scene: String,
    pub width: u32,
    pub height: u32,
    pub quick: bool,
    /// Who rasterised the leaves the compute rasteriser hands over: `hw` or `compute`
    /// (`--publish`, resolved for the device).
    #[serde(default)]
    pub publish: String,
    /// Parts of the frame left out to time their cost (`--skip`; empty: none): the images and
    /// accuracy of such a run are wrong by design.
    #[serde(default)]
    pub skips: String,
    #[serde(default)]
    pub validation: Validation,
    /// Timed frames per view.
    pub timed_frames: u32,
    pub limits: Limits,
    /// Tiles derived on every core before the views (prefetch.rs), and the seconds it took;
    /// 0 with `--no-prefetch` (first frames then derive their own, one at a time).
    pub prefetch_tiles: usize,
    pub prefetch_s: f64,
    pub views: Vec<ViewResult>,
    pub flights: Vec<Flight>,
    pub teleport: Option<Settle>,
    /// The flights' readiness: waits, missing levels, supply, teleports (readiness.rs).
    #[serde(default)]
    pub readiness: Option<Readiness>,
    /// The driver's statistics of every pipeline built (`--pipeline-stats`; `crate::pipeline_stats`).
    #[serde(default)]
    pub pipeline_stats_asked: bool,
    #[serde(default)]
    pub pipelines: Vec<crate::pipeline_stats::PipelineRow>,
    /// Seconds the whole run took.
    pub wall_s: f64,
}

/// Whether the Khronos validation layer watched the run, and what it said.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Validation {
    pub enabled: bool,
    /// Messages it reported over the whole run (the run fails when there are any, after
    /// writing the report).
    pub messages: u64,
}

/// Ceilings of the device measured in the same run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Limits {
    /// Device-local buffer copy by `vkCmdCopyBuffer`: bytes copied, GPU time, and (read +
    /// written) GB/s.
    pub copy_bytes: u64,
    pub copy_ms: f64,
    #[serde(default)]
    pub transfer_gbps: f64,
    /// The same by a compute shader (`bench.copy_compute`: 16-byte loads and stores,
    /// grid-stride) over at most one storage binding's range.
    #[serde(default)]
    pub compute_copy_bytes: u64,
    #[serde(default)]
    pub compute_copy_ms: f64,
    #[serde(default)]
    pub compute_gbps: f64,
    /// The faster of the two: the bandwidth the floors divide by.
    pub device_gbps: f64,
    /// Host-visible → device-local copy (the path `stream.upload` and `cbt.upload` take).
    pub upload_bytes: u64,
    pub upload_ms: f64,
    pub upload_gbps: f64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ViewResult {
    pub name: String,
    pub lat: f64,
    pub lon: f64,
    /// Camera height above the datum, m (resolved from `agl` with the ground query).
    pub alt_m: f64,
    pub heading: f64,
    pub pitch: f64,
    pub fov: f64,
    /// Renderer creation (GPU buffers, no frame), ms.
    pub setup_ms: f64,
    /// The first frame, host wall time (synchronous tile loads included) and GPU time.
    pub first_frame_ms: f64,
    pub first_frame_gpu_ms: f64,
    pub settle: Settle,
    pub timed: Timed,
    /// Per node, from the per-node pass (`--per-node`); empty without it.
    pub nodes: Vec<NodeStat>,
    pub score: Accuracy,
    pub mesh: Mesh,
    pub tiles: Tiles,
    pub raster_floor: RasterFloor,
    /// CPU reference ray cast of the scored frame, ms.
    pub reference_ms: f64,
    /// Level rings of the scored frame: where they lie and how far the surface steps across
    /// them (rings.rs, HORIZ-01).
    #[serde(default)]
    pub rings: super::rings::Rings,
    /// Surface walks `publish.resolve` took per terrain pixel of the scored frame.
    #[serde(default)]
    pub walks: Walks,
}

/// Surface walks (locate + blended chain) per terrain pixel in `publish.resolve`: one for the
/// chord point, one per root-search step, the ocean test's: where the resolve's time goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Walks {
    pub mean: f64,
    pub p95: f64,
    pub max: f64,
    /// The mean over the frame's warps (8×4 pixel blocks holding terrain) of the most walks a
    /// pixel of the block took: what the resolve's time follows on a GPU that runs a warp's 32
    /// lanes in lock step until the slowest is done. Its ratio to `mean` is the divergence.
    #[serde(default)]
    pub warp_max_mean: f64,
}

/// The pixel block one warp of the resolve covers: its 8×8 workgroup's first or last 32
/// invocations, four rows of eight.
const WARP_BLOCK: (usize, usize) = (8, 4);

impl Walks {
    /// Walks of an AOV image `width` pixels wide, rows top first.
    pub fn of(aov: &[engine::shade::AovPixel], width: usize) -> Walks {
        let w: Vec<f64> = aov
            .iter()
            .filter(|p| p.is_terrain())
            .map(|p| p.walks as f64)
            .collect();
        if w.is_empty() || width == 0 {
            return Walks::default();
        }
        let height = aov.len() / width;
        let (bw, bh) = WARP_BLOCK;
        let mut warps = 0usize;
        let mut warp_sum = 0.0;
        for by in (0..height).step_by(bh) {
            for bx in (0..width).step_by(bw) {
                let most = (by..(by + bh).min(height))
                    .flat_map(|y| (bx..(bx + bw).min(width)).map(move |x| y * width + x))
                    .filter(|&i| aov[i].is_terrain())
                    .map(|i| aov[i].walks as f64)
                    .reduce(f64::max);
                if let Some(most) = most {
                    warps += 1;
                    warp_sum += most;
                }
            }
        }
        Walks {
            mean: w.iter().sum::<f64>() / w.len() as f64,
            p95: super::stats::quantile(&w, 0.95),
            max: w.iter().copied().fold(0.0, f64::max),
            warp_max_mean: warp_sum / warps as f64,
        }
    }
}

/// How long a fresh camera takes to stop changing.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Settle {
    /// Frames (counting the first) until the renderer reports settled (mesh quiet, no tile
    /// pending or uploaded), and their host wall time; `settled` false if the cap was hit.
    pub frames_to_settled: u32,
    pub seconds_to_settled: f64,
    pub settled: bool,
    /// The first frame of the still image and the wall time up to its end: the frame in which
    /// the renderer reported itself settled (frames without readback), when a readback pair
    /// after it shows the same image (pop max ≤ `STILL_PX`, no coverage change); else the
    /// last read-back frame that still changed.
    pub frames_to_still: u32,
    pub seconds_to_still: f64,
    /// Two read-back frames after the still point agreed (false: the caps ended it first).
    #[serde(default)]
    pub still_confirmed: bool,
    pub frames_run: u32,
    /// Of the frames before the settled one, how many each part of the renderer's unsettled
    /// state held (`PlanetRenderer::unsettled`: mesh, pending, provisional, stale, uploading,
    /// fading); a frame counts under every part that held it.
    #[serde(default)]
    pub held_by: std::collections::BTreeMap<String, u32>,
    /// Per frame before the settled one (teleports only): what the stream, the GPU feed and
    /// the mesh did, to see what holds a settle.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<SettleFrame>,
}

/// One frame of a traced settle.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SettleFrame {
    pub wall_ms: f64,
    pub host_ms: f64,
    /// The frame's GPU span, and of it the `tiles.*` nodes.
    pub gpu_ms: f64,
    pub tiles_gpu_ms: f64,
    /// The stream's report (`ResidencyReport`).
    pub wanted: usize,
    pub resident: usize,
    pub pending: usize,
    pub loaded: usize,
    pub arrived_waiting: usize,
    pub missing: usize,
    pub failed: usize,
    pub provisional: usize,
    pub cut_window: bool,
    pub uploaded: u32,
    pub fading: u32,
    pub mesh_quiet: bool,
    pub leaves: u32,
    /// The GPU feed: this frame's budget (ms), the wanted tiles still queued, and the measured
    /// ms per tile (derived, amplified).
    pub budget_ms: f64,
    pub needed: usize,
    pub cost_ms: [Option<f64>; 2],
}

/// The timed frames of a view (docs/bench.md, "How frame time is measured").
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Timed {
    /// Frames kept, after `warmup` dropped ones, with `frames_in_flight` in flight.
    pub frames: u32,
    #[serde(default)]
    pub warmup: u32,
    #[serde(default)]
    pub frames_in_flight: u32,
    /// The frame span (one timestamp pair around the frame, no per-node timestamps): median
    /// and 95th percentile.
    pub gpu_median_ms: f64,
    pub gpu_p95_ms: f64,
    /// Host wall time per kept frame, frames in flight (throughput, not latency).
    #[serde(default)]
    pub wall_per_frame_ms: f64,
    /// The host's own work per kept frame (every stage but the wait for a frame slot): median
    /// and 95th percentile.
    #[serde(default)]
    pub host_busy_median_ms: f64,
    #[serde(default)]
    pub host_busy_p95_ms: f64,
    /// Host ms per stage of the kept frames (`frame::HostStages`), in loop order.
    #[serde(default)]
    pub host_stages: Vec<StageMs>,
    /// Whether the platform exposes the SM clock (`nvidia-smi` on PATH), and the clock over
    /// the kept frames (None: not exposed, or no sample fell inside them).
    #[serde(default)]
    pub clock_exposed: bool,
    #[serde(default)]
    pub clock: Option<ClockStats>,
    /// Why these timings are not plain medians (mixed clock states, p95 > 1.5× median);
    /// empty when they are.
    #[serde(default)]
    pub flags: Vec<String>,
    /// The per-node pass (`--per-node`), which fills `ViewResult::nodes`.
    #[serde(default)]
    pub per_node: Option<PerNodePass>,
}

/// One host stage of the timed frames.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct StageMs {
    pub stage: String,
    pub median_ms: f64,
    pub p95_ms: f64,
}

/// The second timed pass with a timestamp pair around every node (`bench --per-node`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PerNodePass {
    pub frames: u32,
    /// First node start to last node end, and the sum of the node durations: both larger than
    /// the frame-mode span, since per-node timestamps serialise the nodes.
    pub span_median_ms: f64,
    pub sum_median_ms: f64,
    pub wall_per_frame_ms: f64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct NodeStat {
    pub name: String,
    /// Times the node did work per frame, median (recorded CBT iterations beyond those the
    /// frame needed dispatch nothing and are not counted).
    pub instances: u32,
    pub median_ms: f64,
    pub p95_ms: f64,
    /// The floor: what the node must at least cost on this device, and how it was estimated.
    pub floor_ms: Option<f64>,
    pub floor_bytes: Option<u64>,
    pub floor_basis: String,
}

impl NodeStat {
    pub fn ratio(&self) -> Option<f64> {
        self.floor_ms
            .filter(|f| *f > 0.0)
            .map(|f| self.median_ms / f)
    }
}

/// `engine::score::Score`, as data, over the scored pixels (accuracy.rs). Fractions are of the
/// scored pixels.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Accuracy {
    pub pixels: usize,
    pub see_through: f64,
    pub covers_sky: f64,
    pub depth_rel_median: f64,
    pub depth_rel_p95: f64,
    pub silhouette_px_median: f64,
    pub silhouette_px_p95: f64,
    pub incoherent: f64,
    pub non_finite: usize,
    /// Mismatched pixels in windows without a reference silhouette (holes, specks).
    pub isolated: f64,
    /// Terrain pixels in the reference.
    pub terrain: f64,
    /// The coarse reference pass saw terrain somewhere in the frame.
    #[serde(default)]
    pub reference_sees_terrain: bool,
    /// The reference sees terrain but the scored windows hold none: the score measured
    /// nothing (flagged in the report).
    #[serde(default)]
    pub measured_nothing: bool,
}

/// The mesh counters of the scored frame.
pub type Mesh = engine::cbt::MeshStats;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Tiles {
    pub resident: usize,
    pub wanted: usize,
    pub pending: usize,
    pub missing: usize,
    pub trimmed: usize,
}

/// The raster floor of `raster.hardware`: a full-screen grid of the same triangle count.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RasterFloor {
    pub triangles: u64,
    pub grid_ms: f64,
    pub tris_per_s: f64,
}

/// A scripted flight: per-frame pop (pop.rs) after settling at its first pose.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Flight {
    pub name: String,
    pub description: String,
    pub frames: u32,
    /// Largest pop of any frame, the largest per-frame 99th percentile, the median per-frame
    /// max, px.
    pub max_px: f64,
    pub p99_max_px: f64,
    pub frame_max_median_px: f64,
    pub worst_frame: u32,
    /// Frames whose max pop exceeds 1 px.
    pub frames_over_1px: u32,
    pub coverage_changed: usize,
    /// Most points over 1 px in any frame.
    #[serde(default)]
    pub max_points_over_1px: usize,
    pub per_frame: Vec<PopFrame>,
    pub wall_s: f64,
}

/// `--pop-reference`: a frame pair's pop on the CPU reference's pictures (`flights.rs`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PopReference {
    /// Max and p99, px: the levels blended by each eye's own distance (the surface the
    /// renderer means to draw).
    pub max_px: f64,
    pub p99_px: f64,
    /// The same with one surface for both eyes: what the metric reads when nothing moved.
    pub floor_max_px: f64,
    pub floor_p99_px: f64,
    /// Per previous-frame pixel compared in both, the renderer's pop less the floor's there
    /// (0 where under it): max and p99, px.
    pub excess_max_px: f64,
    pub excess_p99_px: f64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PopFrame {
    /// Set where `--pop-reference` named this frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<PopReference>,
    pub agl_m: f64,
    pub max_px: f64,
    pub p99_px: f64,
    pub compared: usize,
    pub coverage_changed: usize,
    /// Points whose pop exceeds 1 px.
    #[serde(default)]
    pub over_1px: usize,
    pub iterations: usize,
    pub leaves: u32,
    /// Tiles that landed, were evicted, and were left out by the wanted-set cap this frame.
    #[serde(default)]
    pub loaded: usize,
    #[serde(default)]
    pub evicted: usize,
    #[serde(default)]
    pub trimmed: usize,
    /// The frame's CPU side (prepare, declare, compile, submit) and its whole wall time, ms.
    #[serde(default)]
    pub host_ms: f64,
    #[serde(default)]
    pub wall_ms: f64,
    /// The frame blocked on tile production (`ResidencyReport::waited`).
    #[serde(default)]
    pub waited: bool,
    /// A level the camera needs was missing (readiness.rs `FrameNeed`).
    #[serde(default)]
    pub missing_level: bool,
    /// Every wanted tile of the finest wanted level held its exact payload.
    #[serde(default)]
    pub finest_ready: bool,
    #[serde(default)]
    pub finest_level: u8,
}

/// Readiness over the flights (docs/bench.md, "Readiness").
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Readiness {
    /// Whether the flights started on a fresh, cold store (false: `--prefetch-flights`).
    pub cold_store: bool,
    /// Flight frames that blocked on tile production, over every flight.
    pub frames_waited: u32,
    /// Flight frames in which a level the camera needs was missing, over every flight.
    pub missing_level_frames: u32,
    pub flights: Vec<FlightReadiness>,
    /// Seconds of wall time to a still image after a teleport on a fresh renderer: with a
    /// cold store, and with the store that cold teleport filled.
    pub teleport_still_s: TeleportStill,
    /// Where the teleports land.
    pub teleport: String,
    pub teleport_cold: Settle,
    pub teleport_warm: Settle,
    /// Tiles completed per second of flight while the store had a backlog, per feed class.
    pub supply_tiles_per_s: Supply,
    /// What made the flights' tiles: the GPU (`tiles.*` nodes) or the store's CPU workers.
    #[serde(default)]
    pub feed_maker: String,
    /// GPU ms per flight frame spent making tiles (the `tiles.*` nodes): median, p95, max.
    #[serde(default)]
    pub tile_gpu_ms: HostStats,
    /// Host time (the CPU side) of every flight frame, ms.
    pub host_ms: HostStats,
    /// The feed envelope at the lateral flights' clearance and the bench's pixel angle: demand
    /// from the closed form (TERRAIN.md §5, `engine::stream::envelope`), supply as measured.
    #[serde(default)]
    pub sustainable: SustainableReport,
}

/// Sustainable lateral speed per feed class = supply / demand; the binding class is the slowest.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SustainableReport {
    pub clearance_m: f64,
    /// Radians per pixel (vertical field of view / height).
    pub pixel_angle: f64,
    /// Tiles per km of lateral travel asked of each class.
    pub demand_tiles_per_km: Supply,
    /// m/s each class sustains (None: no supply figure).
    pub speed_m_s: Supply,
    /// The class that binds, and its speed.
    pub binding: Option<String>,
    pub sustainable_m_s: Option<f64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FlightReadiness {
    pub name: String,
    pub frames: u32,
    pub frames_waited: u32,
    pub missing_level_frames: u32,
    /// The finest wanted level's longest wait: consecutive frames (flight and the hold after
    /// it) without all its tiles resident, in frames, at the 60 Hz flight clock and in wall
    /// seconds; `finest_reached` false when the hold's cap ended it first.
    pub finest_wait_frames: u32,
    pub finest_wait_clock_s: f64,
    pub finest_wait_wall_s: f64,
    pub finest_reached: bool,
    /// Frames held at the last pose after the flight until the finest level was resident.
    pub hold_frames: u32,
    pub host_ms: HostStats,
    /// The GPU tile feed's time budget over the flight frames (None: the CPU workers made
    /// the tiles).
    #[serde(default)]
    pub tile_budget: Option<TileBudgetStats>,
}

/// The adaptive GPU tile budget over a flight (`engine::earth::gpu_budget`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TileBudgetStats {
    /// The budget per flight frame, ms: median, p95, max.
    pub ms: HostStats,
    /// The base it returns to when the view has what it needs, ms.
    pub base_ms: f64,
    /// Flight frames in which the view missed queued tiles (the budget grows).
    pub needed_frames: u32,
    /// Flight frames whose tiles the tile cap (`--gpu-tiles`), not the budget, bounded.
    pub tile_cap_frames: u32,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct TeleportStill {
    pub warm: f64,
    pub cold: f64,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Supply {
    /// Derived from the source (ETOPO5 or the analytic function); None: never a backlog.
    pub derived: Option<f64>,
    /// Read from the store on disk (the analytic planet has none).
    pub stored: Option<f64>,
    /// Made above the data (L10–L18, TERRAIN.md §6); None: none was made.
    #[serde(default)]
    pub amplified: Option<f64>,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct HostStats {
    pub median: f64,
    pub p95: f64,
    pub max: f64,
}

impl Report {
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).context("encoding the report")?;
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
    }

    pub fn read(path: &Path) -> Result<Report> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{}: not a planetfall bench report", path.display()))
    }
}

/// `--compare A B`: per view and node, B's median over A's (below 1: B is faster).
pub fn compare(a: &Report, b: &Report) -> String {
    let mut s = format!(
        "# {} ({}) → {} ({})\n",
        a.device, a.commit, b.device, b.commit
    );
    s += &format!(
        "{:<28} {:<24} {:>10} {:>10} {:>8}\n",
        "view", "node", "A ms", "B ms", "B/A"
    );
    let ratio = |x: f64, y: f64| {
        if x > 0.0 {
            format!("{:.3}", y / x)
        } else {
            "-".into()
        }
    };
    for vb in &b.views {
        let Some(va) = a.views.iter().find(|v| v.name == vb.name) else {
            s += &format!("{:<28} (not in A)\n", vb.name);
            continue;
        };
        let (x, y) = (va.timed.gpu_median_ms, vb.timed.gpu_median_ms);
        let flagged = !(va.timed.flags.is_empty() && vb.timed.flags.is_empty());
        s += &format!(
            "{:<28} {:<24} {:>10.4} {:>10.4} {:>8}\n",
            vb.name,
            if flagged {
                "frame (GPU, flagged)"
            } else {
                "frame (GPU)"
            },
            x,
            y,
            ratio(x, y)
        );
        for nb in &vb.nodes {
            match va.nodes.iter().find(|n| n.name == nb.name) {
                Some(na) => {
                    s += &format!(
                        "{:<28} {:<24} {:>10.4} {:>10.4} {:>8}\n",
                        "",
                        nb.name,
                        na.median_ms,
                        nb.median_ms,
                        ratio(na.median_ms, nb.median_ms)
                    )
                }
                None => {
                    s += &format!(
                        "{:<28} {:<24} {:>10} {:>10.4} {:>8}\n",
                        "", nb.name, "-", nb.median_ms, "new"
                    )
                }
            }
        }
        for na in va
            .nodes
            .iter()
            .filter(|n| !vb.nodes.iter().any(|m| m.name == n.name))
        {
            s += &format!(
                "{:<28} {:<24} {:>10.4} {:>10} {:>8}\n",
                "", na.name, na.median_ms, "-", "gone"
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::shade::AovPixel;

    fn px(level: f32, walks: f32) -> AovPixel {
        AovPixel {
            level,
            walks,
            ..bytemuck::Zeroable::zeroed()
        }
    }

    #[test]
    fn walks_are_counted_over_terrain_pixels_only() {
        // Sky (level −1) is left out; 20 terrain pixels: eighteen 1s, a 3 and a 7.
        let mut aov = vec![px(-1.0, 0.0); 5];
        aov.extend((0..18).map(|_| px(12.0, 1.0)));
        aov.push(px(12.0, 3.0));
        aov.push(px(12.0, 7.0));
        let w = Walks::of(&aov, 25);
        assert_eq!(w.mean, 28.0 / 20.0);
        assert_eq!((w.p95, w.max), (3.0, 7.0));
        assert_eq!(Walks::of(&aov[..5], 5), Walks::default());
    }

    #[test]
    fn a_warp_counts_its_slowest_terrain_pixel() {
        // 16×8 pixels: four warps of 8×4. The top left holds one pixel of 5 walks among 1s;
        // the top right is all 2s; the bottom left is sky but for one pixel of 3; the bottom
        // right is sky, and a sky pixel's walks (say 9) are not the warp's.
        let (w, h) = (16, 8);
        let mut aov = vec![px(-1.0, 9.0); w * h];
        for y in 0..4 {
            for x in 0..16 {
                aov[y * w + x] = px(10.0, if x < 8 { 1.0 } else { 2.0 });
            }
        }
        aov[2 * w + 3] = px(10.0, 5.0);
        aov[6 * w + 1] = px(10.0, 3.0);
        let walks = Walks::of(&aov, w);
        assert_eq!(walks.warp_max_mean, (5.0 + 2.0 + 3.0) / 3.0);
        // Per pixel: 31 ones, a 5, 32 twos and a 3 over 65 terrain pixels.
        assert_eq!(walks.mean, (31.0 + 5.0 + 64.0 + 3.0) / 65.0);
    }
}
