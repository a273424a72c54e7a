//! `planetfall bench`: the one-command benchmark and reference scorer (docs/bench.md).
//! No arguments: the full set of `captures/views.txt` on the Earth at 1920×1080. `--quick`:
//! the views tagged `quick`, on the analytic planet, tiny images, few frames, and a non-zero
//! exit when an accuracy bar fails. `--compare A.json B.json`: ratios per node and view.

use crate::bench::{self, flights::FlightPlan, report::Report, Options};
use crate::bookmarks;
use crate::device::GpuArgs;
use anyhow::{bail, Result};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    gpu: GpuArgs,
    /// Small lavapipe-friendly run (views tagged `quick`, 96×64, 3 timed frames) that fails
    /// unless see-through and covers-sky are ≤ 0.5 % in every view and nothing is NaN.
    #[arg(long)]
    quick: bool,
    /// Print B's node times over A's per view and node, and exit.
    #[arg(long, num_args = 2, value_names = ["A.json", "B.json"])]
    compare: Option<Vec<PathBuf>>,
    /// earth or analytic [default: earth; analytic with --quick].
    #[arg(long)]
    scene: Option<String>,
    /// Image size [default: 1920×1080; 96×64 with --quick].
    #[arg(long)]
    width: Option<u32>,
    #[arg(long)]
    height: Option<u32>,
    /// View file (bookmark format).
    #[arg(long, default_value = "captures/views.txt")]
    views: PathBuf,
    /// Only these views (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Timed frames per view, kept after the warm-up [default: 300; 3 with --quick].
    #[arg(long)]
    frames: Option<u32>,
    /// Frames run and dropped before the timed frames of each view, so that clocks and caches
    /// settle [default: 30; 2 with --quick].
    #[arg(long)]
    warmup: Option<u32>,
    /// Also run a second timed pass with GPU timestamps around every node, for the per-node
    /// and floor tables (those timestamps serialise the nodes: the frame time always comes
    /// from the pass without them).
    #[arg(long)]
    per_node: bool,
    /// Frames a view may take to settle [default: 300; 60 with --quick].
    #[arg(long)]
    max_settle_frames: Option<u32>,
    /// Frames of the descent [default: 120 (orbit → 2 m); 8 with --quick (orbit → 10 km)].
    #[arg(long)]
    descent_frames: Option<u32>,
    /// Fly the descent from this frame of its frames on (its low end alone: the flight settles
    /// at that pose first) [default: 0].
    #[arg(long, default_value_t = 0)]
    descent_from_frame: u32,
    /// Wall seconds a flight may settle before it starts, and hold its last pose for the
    /// finest wanted level after it [default: 120; the quick plan's with --quick].
    #[arg(long)]
    hold_max_s: Option<f64>,
    /// Speeds of the lateral flights, m/s, comma-separated [default: 100,300,1000].
    #[arg(long, value_delimiter = ',')]
    lateral_speeds: Vec<f64>,
    /// Pixels scored against the CPU reference per view at most: larger frames are scored in a
    /// 4×4 lattice of full-resolution windows.
    #[arg(long, default_value_t = 1 << 17)]
    score_pixels: usize,
    /// Do not derive the run's tiles on every core first: first frames then include their own
    /// (single-threaded) tile derivation.
    #[arg(long)]
    no_prefetch: bool,
    /// Derive the flights' tiles first as well and fly on that store (default: the flights
    /// run on a fresh, cold store, as a viewer's first flight does).
    #[arg(long)]
    prefetch_flights: bool,
    /// Skip the flights (pop) and the teleport.
    #[arg(long)]
    no_flights: bool,
    /// Only these flights (comma-separated: descent, lateral, turn, teleport) [default: all].
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    flights: Vec<String>,
    /// The flights' frames wait for every tile they want (as a still render's do), so that
    /// no frame misses a level: separates the feed's lateness from what pops anyway.
    #[arg(long)]
    flight_wait: bool,
    /// Frames run at each flight pose before the measured one, the clock standing still, so
    /// that the mesh catches up with the pose (an experiment: the mesh's lag) [default: 0].
    #[arg(long, default_value_t = 0)]
    flight_mesh_frames: u32,
    /// Mesh updates over which the flights' new vertices move onto the surface (0: at once)
    /// [default: engine::cbt::bisector::MORPH_UPDATES].
    #[arg(long, value_name = "N")]
    morph_updates: Option<u32>,
    /// Write a picture of where each flight frame pops over 1 px (and each flight's worst
    /// frame) into this directory: pop-<flight>-<frame>.png; and each view's scored frame
    /// with its level rings marked: rings-<view>.png.
    #[arg(long, value_name = "DIR")]
    pop_maps: Option<PathBuf>,
    /// With --pop-maps: also write each flight's worst frame and the frame before it as raw
    /// AOVs with both cameras, pop-<flight>-<frame>.dump (about 200 MB at 1080p; layout and a
    /// reader in tools/scripts/device/pop_dump.py).
    #[arg(long, requires = "pop_maps")]
    pop_dump: bool,
    /// At these flight frames (comma-separated), also measure the pop between the CPU
    /// reference's pictures of the same two cameras over the frame's tiles: with the levels
    /// blended by each eye's distance, and on a surface that does not move — the metric's floor
    /// (slow: the reference casts every pixel).
    #[arg(long, value_name = "FRAMES", value_delimiter = ',')]
    pop_reference: Vec<usize>,
    #[command(flatten)]
    sun: crate::camera::SunArgs,
    /// Output directory.
    #[arg(long, default_value = "captures/bench")]
    out: PathBuf,
}

fn options(a: &Args) -> Result<Options> {
    let q = a.quick;
    let all = bookmarks::load(&a.views)?;
    let views: Vec<bookmarks::Bookmark> = if !a.only.is_empty() {
        a.only
            .iter()
            .map(|n| bookmarks::find(&all, n, &a.views).cloned())
            .collect::<Result<_>>()?
    } else if q {
        all.into_iter().filter(|b| b.has_tag("quick")).collect()
    } else {
        all
    };
    if views.is_empty() {
        bail!(
            "{}: no views{}",
            a.views.display(),
            if q { " tagged `quick`" } else { "" }
        );
    }
    let (width, height) = (
        a.width.unwrap_or(if q { 96 } else { 1920 }),
        a.height.unwrap_or(if q { 64 } else { 1080 }),
    );
    if !(8..=16384).contains(&width) || !(8..=16384).contains(&height) {
        bail!("--width/--height must be 8..=16384 (got {width}×{height})");
    }
    let frames = a.frames.unwrap_or(if q { 3 } else { 300 });
    if frames == 0 {
        bail!("--frames must be at least 1");
    }
    Ok(Options {
        scene: a
            .scene
            .clone()
            .unwrap_or_else(|| if q { "analytic" } else { "earth" }.into()),
        views,
        width,
        height,
        frames,
        warmup: a.warmup.unwrap_or(if q { 2 } else { 30 }),
        per_node: a.per_node,
        max_settle_frames: a.max_settle_frames.unwrap_or(if q { 60 } else { 300 }),
        plan: {
            let mut p = if q {
                FlightPlan::quick()
            } else {
                FlightPlan::full()
            };
            p.descent_frames = a.descent_frames.unwrap_or(p.descent_frames).max(2);
            if a.descent_from_frame.saturating_add(2) > p.descent_frames {
                bail!(
                    "--descent-from-frame {} leaves fewer than 2 of the descent's {} frames",
                    a.descent_from_frame,
                    p.descent_frames
                );
            }
            p.descent_first_frame = a.descent_from_frame;
            if a.pop_reference.contains(&0) {
                bail!("--pop-reference: a flight's frame 0 has no frame before it to compare with (frames count from 1)");
            }
            if let Some(h) = a.hold_max_s {
                if !(h.is_finite() && h >= 0.0) {
                    bail!("--hold-max-s must be a number of seconds ≥ 0 (got {h})");
                }
                p.hold_max_wall_s = h;
            }
            if !a.lateral_speeds.is_empty() {
                if a.lateral_speeds
                    .iter()
                    .any(|v| !(v.is_finite() && *v > 0.0))
                {
                    bail!("--lateral-speeds must be positive m/s");
                }
                p.lateral_speeds_mps = a.lateral_speeds.clone();
            }
            p
        },
        copy_bytes: if q { 32 << 20 } else { 1 << 30 },
        upload_bytes: if q { 16 << 20 } else { 256 << 20 },
        score_pixels: a.score_pixels.max(1024),
        flights: !a.no_flights,
        only_flights: {
            const NAMES: [&str; 4] = ["descent", "lateral", "turn", "teleport"];
            if let Some(n) = a.flights.iter().find(|n| !NAMES.contains(&n.as_str())) {
                bail!("--flights: unknown flight {n:?} (expected some of {NAMES:?})");
            }
            a.flights.clone()
        },
        flight_wait: a.flight_wait,
        flight_mesh_frames: a.flight_mesh_frames,
        morph_updates: a.morph_updates,
        pop_maps: a.pop_maps.clone(),
        pop_dump: a.pop_dump,
        pop_reference: a.pop_reference.clone(),
        prefetch: !a.no_prefetch,
        prefetch_flights: a.prefetch_flights,
        sun: {
            a.sun.check()?;
            a.sun
        },
        quick: q,
        out: a.out.clone(),
        command: std::env::args()
            .map(|s| if s.contains(' ') { format!("{s:?}") } else { s })
            .collect::<Vec<_>>()
            .join(" "),
    })
}

pub fn run(a: Args) -> Result<()> {
    if let Some(files) = &a.compare {
        let (x, y) = (Report::read(&files[0])?, Report::read(&files[1])?);
        print!("{}", bench::report::compare(&x, &y));
        return Ok(());
    }
    let o = options(&a)?;
    let (report, paths) = bench::run(&a.gpu, &o)?;
    for p in &paths {
        println!("wrote {}", p.display());
    }
    if o.quick {
        let failures = bench::bar_failures(&report);
        if !failures.is_empty() {
            bail!("accuracy bars failed:\n  {}", failures.join("\n  "));
        }
        println!(
            "quick: accuracy bars met in {} views (see-through and covers-sky ≤ 0.5 %, no NaN)",
            report.views.len()
        );
    }
    Ok(())
}
