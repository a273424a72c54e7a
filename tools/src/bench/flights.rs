//! Scripted flights for pop-freedom, and a teleport for settling (docs/bench.md, "Pop" and
//! "Settle"): each flight first settles at its first pose, then measures every frame's pop
//! against the frame before (pop.rs).

use super::frame::Gpu;
use super::pop;
use super::report::{Flight, PopFrame, Settle};
use super::scene::Scene;
use super::stats::median;
use super::view::{renderer, settle};
use super::Options;
use anyhow::Result;
use engine::camera::ViewCamera;
use engine::renderer::PlanetRenderer;
use std::time::Instant;

/// Where and how the flights go.
#[derive(Clone, Debug)]
pub struct FlightPlan {
    /// Descent: place (lat, lon), from `top` m above the datum to `bottom` m above the ground,
    /// pitch from .0 to .1 degrees.
    pub descent_at: (f64, f64),
    pub descent_top_m: f64,
    pub descent_bottom_agl_m: f64,
    pub descent_pitch: (f64, f64),
    pub descent_frames: u32,
    /// Lateral: level flight east from the place at `agl` m above its ground.
    pub lateral_at: (f64, f64),
    pub lateral_agl_m: f64,
    pub lateral_pitch: f64,
    pub lateral_step_m: f64,
    pub lateral_frames: u32,
    /// The teleport after the lateral flight (same renderer).
    pub teleport_to: (f64, f64),
    pub teleport_agl_m: f64,
    pub teleport_pitch: f64,
}

impl FlightPlan {
    /// The Khumbu valley below Everest (the Earth tests' descent) from 20,000 km to 2 m, the
    /// Grand Canyon's South Rim at 500 m, then a teleport to the Alps.
    pub fn full() -> FlightPlan {
        FlightPlan {
            descent_at: (27.90, 86.83),
            descent_top_m: 2.0e7,
            descent_bottom_agl_m: 2.0,
            descent_pitch: (-90.0, -10.0),
            descent_frames: 120,
            lateral_at: (36.06, -112.14),
            lateral_agl_m: 500.0,
            lateral_pitch: -20.0,
            lateral_step_m: 10.0,
            lateral_frames: 60,
            teleport_to: (45.83, 6.86),
            teleport_agl_m: 10_000.0,
            teleport_pitch: -60.0,
        }
    }

    /// Lavapipe-sized: where the quick views already brought the tiles (a low view wants
    /// hundreds of tiles, minutes of derivation on two cores) — orbit → 10 km straight down
    /// over Gibraltar, a lateral flight at 10 km there, a teleport to the Alps at 400 km.
    pub fn quick() -> FlightPlan {
        FlightPlan {
            descent_at: (36.0, -5.6),
            descent_bottom_agl_m: 10_000.0,
            descent_pitch: (-90.0, -90.0),
            descent_frames: 8,
            lateral_at: (36.0, -5.6),
            lateral_agl_m: 10_000.0,
            lateral_pitch: -60.0,
            lateral_step_m: 50.0,
            lateral_frames: 6,
            teleport_to: (45.83, 6.86),
            teleport_agl_m: 400_000.0,
            teleport_pitch: -30.0,
            ..FlightPlan::full()
        }
    }
}

/// The flights run on a 60 Hz clock (`PlanetRenderer::set_frame_period`): fades advance as a
/// 60 Hz display would show them, whatever the device's frame time, so pops compare across
/// devices (on a slow device a wall-clock fade would finish within one frame).
const FLIGHT_FRAME_PERIOD_S: f64 = 1.0 / 60.0;

/// Pop maps written per flight at most (`--pop-maps`).
const MAX_POP_MAPS: usize = 24;

/// Fly `cams` (the first one settled first); one PopFrame per later frame. With
/// `--pop-maps`, frames over 1 px (and the worst) are drawn as `pop-<name>-<frame>.png`.
fn fly(
    gpu: &mut Gpu,
    r: &mut PlanetRenderer,
    name: &str,
    cams: &[(ViewCamera, f64)],
    o: &Options,
) -> Result<(Vec<PopFrame>, f64)> {
    let Some((first, _)) = cams.first() else {
        return Ok((Vec::new(), 0.0));
    };
    settle(gpu, r, first, o.max_settle_frames)?;
    r.set_frame_period(Some(FLIGHT_FRAME_PERIOD_S));
    let res = fly_settled(gpu, r, name, cams, o);
    r.set_frame_period(None);
    res
}

fn fly_settled(
    gpu: &mut Gpu,
    r: &mut PlanetRenderer,
    name: &str,
    cams: &[(ViewCamera, f64)],
    o: &Options,
) -> Result<(Vec<PopFrame>, f64)> {
    let first = &cams[0].0;
    let t = Instant::now();
    let mut prev = (
        *first,
        gpu.frame(r, first, true, false)?
            .distances()
            .unwrap_or_default(),
    );
    let mut out = Vec::new();
    let mut worst: Option<(f64, usize, Vec<f32>)> = None;
    let mut written = 0;
    for (k, (cam, agl)) in cams.iter().enumerate().skip(1) {
        let d = gpu
            .frame(r, cam, true, false)?
            .distances()
            .unwrap_or_default();
        let (c, map) = pop::change_map(&prev.0, &prev.1, cam, &d);
        if let Some(dir) = &o.pop_maps {
            if c.max_px > 1.0 && written < MAX_POP_MAPS {
                write_pop_map(dir, name, k, cam, &map)?;
                written += 1;
            } else if worst.as_ref().is_none_or(|w| c.max_px > w.0) {
                worst = Some((c.max_px, k, map));
            }
        }
        out.push(PopFrame {
            agl_m: *agl,
            max_px: c.max_px,
            p99_px: c.p99_px,
            compared: c.compared,
            coverage_changed: c.coverage_changed,
            over_1px: c.over_1px,
            iterations: r.stats.mesh.iterations,
            leaves: r.stats.mesh.leaves,
            loaded: r.stats.residency.loaded_this_frame,
            evicted: r.stats.residency.evicted,
            trimmed: r.stats.residency.trimmed,
        });
        prev = (*cam, d);
    }
    let wall = t.elapsed().as_secs_f64();
    if let (Some(dir), Some((_, k, map)), 0) = (&o.pop_maps, worst, written) {
        write_pop_map(dir, name, k, &cams[k].0, &map)?;
    }
    Ok((out, wall))
}

fn write_pop_map(
    dir: &std::path::Path,
    name: &str,
    frame: usize,
    cam: &ViewCamera,
    map: &[f32],
) -> Result<()> {
    let (w, h) = (cam.width, cam.height);
    let path = dir.join(format!("pop-{name}-{frame:03}.png"));
    crate::image_out::write_rgba8(&path, w, h, &pop::map_rgba(map, w as usize, h as usize))?;
    println!("wrote {}", path.display());
    Ok(())
}

fn summarise(name: &str, description: String, frames: Vec<PopFrame>, wall_s: f64) -> Flight {
    let maxes: Vec<f64> = frames.iter().map(|f| f.max_px).collect();
    let worst = maxes
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i as u32 + 1)
        .unwrap_or(0);
    Flight {
        name: name.into(),
        description,
        frames: frames.len() as u32,
        max_px: maxes.iter().copied().fold(0.0, f64::max),
        p99_max_px: frames.iter().map(|f| f.p99_px).fold(0.0, f64::max),
        frame_max_median_px: median(&maxes),
        worst_frame: worst,
        frames_over_1px: maxes.iter().filter(|m| **m > 1.0).count() as u32,
        coverage_changed: frames.iter().map(|f| f.coverage_changed).sum(),
        max_points_over_1px: frames.iter().map(|f| f.over_1px).max().unwrap_or(0),
        per_frame: frames,
        wall_s,
    }
}

/// Down from the top to the bottom height in `frames` frames, the height above the ground
/// falling geometrically (the same factor every frame), the pitch changing linearly.
fn descent(scene: &Scene, radius: f64, o: &Options) -> Vec<(ViewCamera, f64)> {
    let p = &o.plan;
    let (lat, lon) = p.descent_at;
    let ground = scene.ground(lat, lon);
    let (top, bottom) = (
        (p.descent_top_m - ground).max(p.descent_bottom_agl_m),
        p.descent_bottom_agl_m,
    );
    let frames = p.descent_frames.max(2);
    (0..frames)
        .map(|i| {
            let k = i as f64 / (frames - 1) as f64;
            let agl = bottom * (top / bottom).powf(1.0 - k);
            let pitch = p.descent_pitch.0 + (p.descent_pitch.1 - p.descent_pitch.0) * k;
            (
                ViewCamera::geo(
                    lat,
                    lon,
                    radius + ground + agl,
                    10.0,
                    pitch,
                    60.0,
                    o.width,
                    o.height,
                ),
                agl,
            )
        })
        .collect()
}

/// Level flight east at a fixed height above the start's ground.
fn lateral(scene: &Scene, radius: f64, o: &Options) -> Vec<(ViewCamera, f64)> {
    let p = &o.plan;
    let (lat, lon) = p.lateral_at;
    let alt = scene.ground(lat, lon) + p.lateral_agl_m;
    let metres_per_degree = radius * lat.to_radians().cos() * std::f64::consts::PI / 180.0;
    (0..p.lateral_frames.max(2))
        .map(|i| {
            let lon_i = lon + i as f64 * p.lateral_step_m / metres_per_degree;
            (
                ViewCamera::geo(
                    lat,
                    lon_i,
                    radius + alt,
                    90.0,
                    p.lateral_pitch,
                    60.0,
                    o.width,
                    o.height,
                ),
                p.lateral_agl_m,
            )
        })
        .collect()
}

/// Where the teleport lands.
fn teleport(scene: &Scene, radius: f64, o: &Options) -> ViewCamera {
    let p = &o.plan;
    let (lat, lon) = p.teleport_to;
    let alt = scene.ground(lat, lon) + p.teleport_agl_m;
    ViewCamera::geo(
        lat,
        lon,
        radius + alt,
        0.0,
        p.teleport_pitch,
        60.0,
        o.width,
        o.height,
    )
}

/// Every camera the flights will use (tile preparation).
pub fn cameras(scene: &Scene, radius: f64, o: &Options) -> Vec<ViewCamera> {
    let mut cams: Vec<ViewCamera> = descent(scene, radius, o)
        .into_iter()
        .chain(lateral(scene, radius, o))
        .map(|c| c.0)
        .collect();
    cams.push(teleport(scene, radius, o));
    cams
}

/// The descent, the lateral flight and then a teleport on the lateral flight's renderer.
pub fn run(gpu: &mut Gpu, scene: &Scene, o: &Options) -> Result<(Vec<Flight>, Settle)> {
    let p = &o.plan;
    let mut flights = Vec::new();
    let mut r = renderer(gpu, scene)?;
    let cams = descent(scene, r.body.radius, o);
    let res = fly(gpu, &mut r, "descent", &cams, o);
    r.destroy(&gpu.ctx);
    let (frames, wall) = res?;
    let d = format!(
        "{:.0} km above the datum → {} m above the ground at {:.2}, {:.2} in {} frames, geometric, pitch {}° → {}°",
        p.descent_top_m / 1e3, p.descent_bottom_agl_m, p.descent_at.0, p.descent_at.1, cams.len(), p.descent_pitch.0, p.descent_pitch.1
    );
    flights.push(summarise("descent", d, frames, wall));

    let mut r = renderer(gpu, scene)?;
    let cams = lateral(scene, r.body.radius, o);
    let res = fly(gpu, &mut r, "lateral", &cams, o).and_then(|(frames, wall)| {
        let cam = teleport(scene, r.body.radius, o);
        let (s, _, _) = settle(gpu, &mut r, &cam, o.max_settle_frames)?;
        Ok((frames, wall, s))
    });
    r.destroy(&gpu.ctx);
    let (frames, wall, teleport) = res?;
    let d = format!(
        "level flight east at {} m above the ground at {:.2}, {:.2}, pitch {}°, {} m per frame, {} frames; then a teleport to {:.2}, {:.2} at {} m above the ground, pitch {}°",
        p.lateral_agl_m, p.lateral_at.0, p.lateral_at.1, p.lateral_pitch, p.lateral_step_m, cams.len(), p.teleport_to.0, p.teleport_to.1, p.teleport_agl_m, p.teleport_pitch
    );
    flights.push(summarise("lateral", d, frames, wall));
    Ok((flights, teleport))
}
