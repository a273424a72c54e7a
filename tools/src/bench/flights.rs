//! Scripted flights for pop-freedom and readiness, and teleports for settling (docs/bench.md,
//! "Pop", "Readiness" and "Settle"): each flight runs non-waiting frames on a fresh renderer
//! over the flights' store (cold unless `--prefetch-flights`), first settles at its first pose,
//! then measures every frame's pop against the frame before (pop.rs) and what it had of the
//! tiles its camera needs (readiness.rs), and holds its last pose until its finest wanted
//! level is resident.

use super::frame::Gpu;
use super::pop;
use super::pop_reference;
use super::readiness::{self, Feed, Supply};
use super::report::{Flight, FlightReadiness, HostStats, PopFrame, Readiness, Settle};
use super::scene::Scene;
use super::stats::median;
use super::view::settle;
use super::Options;
use anyhow::Result;
use engine::camera::ViewCamera;
use engine::renderer::{PlanetRenderer, RendererOptions};
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
    /// The descent is flown from this frame of its `descent_frames` (0: from the top): its low
    /// end alone, where the pops are, at resolutions where the whole descent would take hours.
    pub descent_first_frame: u32,
    /// Lateral flights: east from the place at `agl` m above the ground under each frame
    /// (terrain-following), one flight per speed (m/s at the 60 Hz flight clock).
    pub lateral_at: (f64, f64),
    pub lateral_agl_m: f64,
    pub lateral_pitch: f64,
    pub lateral_speeds_mps: Vec<f64>,
    pub lateral_frames: u32,
    /// A fast turn in place: `turn_deg` of heading (from east) in `turn_frames` frames.
    pub turn_at: (f64, f64),
    pub turn_agl_m: f64,
    pub turn_pitch: f64,
    pub turn_deg: f64,
    pub turn_frames: u32,
    /// The teleports (fresh renderers, cold and warm store).
    pub teleport_to: (f64, f64),
    pub teleport_agl_m: f64,
    pub teleport_pitch: f64,
    /// After a flight its last pose is held until the finest wanted level is resident, for at
    /// most this many frames and seconds of wall time.
    pub hold_max_frames: u32,
    pub hold_max_wall_s: f64,
}

impl FlightPlan {
    /// The Khumbu valley below Everest (the Earth tests' descent) from 20,000 km to 2 m;
    /// Yosemite Valley east at 100 m above the ground at 100, 300 and 1,000 m/s for 2 s each
    /// (valley floor, then the walls and domes east of it); a 180° turn in 0.5 s at 1 km there;
    /// then a teleport to the Alps.
    pub fn full() -> FlightPlan {
        FlightPlan {
            descent_at: (27.90, 86.83),
            descent_top_m: 2.0e7,
            descent_bottom_agl_m: 2.0,
            descent_pitch: (-90.0, -10.0),
            descent_frames: 120,
            descent_first_frame: 0,
            lateral_at: (37.73, -119.60),
            lateral_agl_m: 100.0,
            lateral_pitch: -10.0,
            lateral_speeds_mps: vec![100.0, 300.0, 1000.0],
            lateral_frames: 120,
            turn_at: (37.73, -119.60),
            turn_agl_m: 1000.0,
            turn_pitch: -20.0,
            turn_deg: 180.0,
            turn_frames: 30,
            teleport_to: (45.83, 6.86),
            teleport_agl_m: 10_000.0,
            teleport_pitch: -60.0,
            hold_max_frames: 600,
            hold_max_wall_s: 120.0,
        }
    }

    /// Lavapipe-sized: a handful of frames per flight where few tiles are wanted (a low view
    /// wants hundreds, minutes of derivation on two cores) — orbit → 100 km straight down over
    /// Gibraltar, lateral flights and a 180° turn at 100 km there, a teleport to the Alps at
    /// 2,000 km.
    pub fn quick() -> FlightPlan {
        FlightPlan {
            descent_at: (36.0, -5.6),
            descent_bottom_agl_m: 100_000.0,
            descent_pitch: (-90.0, -90.0),
            descent_frames: 8,
            lateral_at: (36.0, -5.6),
            lateral_agl_m: 100_000.0,
            lateral_pitch: -60.0,
            lateral_frames: 6,
            turn_at: (36.0, -5.6),
            turn_agl_m: 100_000.0,
            turn_pitch: -60.0,
            turn_frames: 6,
            teleport_to: (45.83, 6.86),
            teleport_agl_m: 2_000_000.0,
            teleport_pitch: -30.0,
            hold_max_frames: 600,
            hold_max_wall_s: 20.0,
            ..FlightPlan::full()
        }
    }
}

/// The flights run on a 60 Hz clock (`PlanetRenderer::set_frame_period`): fades advance as a
/// 60 Hz display would show them, whatever the device's frame time, so pops compare across
/// devices (on a slow device a wall-clock fade would finish within one frame).
const FLIGHT_FRAME_PERIOD_S: f64 = 1.0 / 60.0;

/// Clock step of the frames a pose's mesh catches up in (`--flight-mesh-frames`), s: a
/// microsecond, so that 1,000 of them move fades by 1/500 of a 60 Hz frame.
const MESH_CATCH_UP_PERIOD_S: f64 = 1e-6;

/// Pop maps written per flight at most (`--pop-maps`): those of the largest pops.
const MAX_POP_MAPS: usize = 24;

/// A flight's frames and readiness.
struct Flown {
    frames: Vec<PopFrame>,
    wall_s: f64,
    readiness: FlightReadiness,
    /// Host ms of every flight frame.
    host_ms: Vec<f64>,
    /// GPU ms of every flight frame spent making tiles (the `tiles.*` nodes).
    tile_ms: Vec<f64>,
}

/// GPU ms frame `f` spent making tiles: its `tiles.*` nodes (0 when the CPU makes them).
fn tile_gpu_ms(f: &super::frame::Frame) -> f64 {
    f.times
        .iter()
        .filter(|t| t.name.starts_with("tiles."))
        .map(|t| t.duration_ms)
        .sum::<f64>()
        // An empty float sum is −0.0.
        .max(0.0)
}

/// A renderer whose frames never wait for tiles (the viewer's), on `feed`; with `wait`, one
/// whose frames do (`--flight-wait`).
fn flight_renderer(gpu: &Gpu, feed: &Feed, wait: bool, o: &Options) -> Result<PlanetRenderer> {
    let mut opts = RendererOptions::for_device(&gpu.ctx);
    opts.wait_for_tiles = wait;
    if let Some(n) = o.morph_updates {
        opts.cbt.morph_updates = n;
    }
    crate::device::frame_options(&gpu.ctx, &mut opts);
    Ok(PlanetRenderer::new(
        &gpu.ctx,
        feed.source.clone(),
        opts,
        gpu.exec.frames_in_flight(),
    )?)
}

/// Settle a non-waiting renderer: its frames are fast and tiles arrive on the store's time,
/// so the frame cap is ten times the views' and the wall-time cap is the hold's.
fn settle_on_feed(
    gpu: &mut Gpu,
    r: &mut PlanetRenderer,
    cam: &ViewCamera,
    o: &Options,
    trace: bool,
) -> Result<Settle> {
    let cap = o.max_settle_frames.saturating_mul(10);
    Ok(settle(gpu, r, cam, cap, o.plan.hold_max_wall_s, trace)?.0)
}

/// Fly `cams` (the first one settled first) on the 60 Hz clock; one PopFrame per later
/// frame, then hold the last pose until its finest wanted level is resident. With
/// `--pop-maps`, the frames of the largest pops over 1 px (at most 24; the worst frame where
/// none is) are drawn as `pop-<name>-<frame>.png`.
fn fly(
    gpu: &mut Gpu,
    r: &mut PlanetRenderer,
    name: &str,
    cams: &[(ViewCamera, f64)],
    o: &Options,
    feed: &Feed,
    supply: &mut Supply,
) -> Result<Flown> {
    let Some((first, _)) = cams.first() else {
        return Ok(Flown {
            frames: Vec::new(),
            wall_s: 0.0,
            readiness: FlightReadiness::default(),
            host_ms: Vec::new(),
            tile_ms: Vec::new(),
        });
    };
    settle_on_feed(gpu, r, first, o, false)?;
    r.set_frame_period(Some(FLIGHT_FRAME_PERIOD_S));
    let res = fly_settled(gpu, r, name, cams, o, feed, supply);
    r.set_frame_period(None);
    supply.pause();
    res
}

fn fly_settled(
    gpu: &mut Gpu,
    r: &mut PlanetRenderer,
    name: &str,
    cams: &[(ViewCamera, f64)],
    o: &Options,
    feed: &Feed,
    supply: &mut Supply,
) -> Result<Flown> {
    let t = Instant::now();
    let mut out = Vec::new();
    // The largest pops' maps (pop, frame, map), drawn once the flight is over.
    let mut kept: Vec<(f64, usize, Vec<f32>)> = Vec::new();
    let mut prev: Option<(ViewCamera, Vec<Option<f64>>)> = None;
    // --pop-dump: the worst frame's and its predecessor's AOVs and cameras, for analysis off
    // the machine.
    let dump = o.pop_maps.is_some() && o.pop_dump;
    let mut prev_aov: Option<Vec<engine::shade::AovPixel>> = None;
    let mut worst_dump: Option<PopDump> = None;
    let mut rd = FlightReadiness {
        name: name.into(),
        frames: cams.len() as u32,
        ..Default::default()
    };
    // (finest level ready, wall ms) per frame, flight and hold; host ms per flight frame.
    let (mut ready, mut host, mut tile_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut budgets = Vec::new();
    for (k, (cam, agl)) in cams.iter().enumerate() {
        supply.sample(feed, r);
        if o.flight_mesh_frames > 0 {
            // The clock all but stands still: fades do not advance while the mesh catches up.
            r.set_frame_period(Some(MESH_CATCH_UP_PERIOD_S));
            for _ in 0..o.flight_mesh_frames {
                gpu.frame(r, cam, false, false)?;
            }
            r.set_frame_period(Some(
                FLIGHT_FRAME_PERIOD_S - o.flight_mesh_frames as f64 * MESH_CATCH_UP_PERIOD_S,
            ));
        }
        let mut f = gpu.frame(r, cam, true, false)?;
        if o.flight_mesh_frames > 0 {
            r.set_frame_period(Some(FLIGHT_FRAME_PERIOD_S));
        }
        budgets.extend(r.gpu_tile_budget());
        let need = readiness::need(r);
        let waited = r.stats.residency.waited;
        rd.frames_waited += waited as u32;
        rd.missing_level_frames += need.missing_level as u32;
        ready.push((need.finest_ready, f.wall_ms));
        host.push(f.host_ms);
        tile_ms.push(tile_gpu_ms(&f));
        let d = f.distances().unwrap_or_default();
        let cur_aov = if dump { f.aov.take() } else { None };
        let before_aov = std::mem::replace(&mut prev_aov, cur_aov);
        let Some((pcam, pd)) = prev.replace((*cam, d)) else {
            continue;
        };
        let d = &prev.as_ref().expect("just set").1;
        let (c, map) = pop::change_map(&pcam, &pd, cam, d);
        let reference = o.pop_reference.contains(&k).then(|| {
            let pair = pop_reference::FramePair {
                prev_cam: &pcam,
                prev: &pd,
                cam,
                cur: d,
                map: &map,
                change: &c,
            };
            pop_reference::measure(r, name, k, &pair, feed.source.max_relief())
        });
        if let (Some(before), Some(now)) = (before_aov, &prev_aov) {
            if worst_dump.as_ref().is_none_or(|w| w.max_px < c.max_px) {
                worst_dump = Some(PopDump {
                    max_px: c.max_px,
                    frame: k,
                    cams: [pcam, *cam],
                    aovs: [before, now.clone()],
                    map: map.clone(),
                });
            }
        }
        if o.pop_maps.is_some() {
            if kept.len() < MAX_POP_MAPS {
                kept.push((c.max_px, k, map));
            } else if let Some(least) = kept
                .iter_mut()
                .filter(|m| m.0 < c.max_px)
                .min_by(|a, b| a.0.total_cmp(&b.0))
            {
                *least = (c.max_px, k, map);
            }
        }
        let rs = &r.stats.residency;
        out.push(PopFrame {
            reference,
            agl_m: *agl,
            max_px: c.max_px,
            p99_px: c.p99_px,
            compared: c.compared,
            coverage_changed: c.coverage_changed,
            over_1px: c.over_1px,
            iterations: r.stats.mesh.iterations,
            leaves: r.stats.mesh.leaves,
            loaded: rs.loaded_this_frame,
            evicted: rs.evicted,
            trimmed: rs.trimmed,
            host_ms: f.host_ms,
            wall_ms: f.wall_ms,
            waited,
            missing_level: need.missing_level,
            finest_ready: need.finest_ready,
            finest_level: need.finest_level,
        });
    }
    let wall = t.elapsed().as_secs_f64();
    // Hold the last pose until the finest wanted level is resident (or the hold's cap).
    let last = &cams[cams.len() - 1].0;
    let hold = Instant::now();
    while ready.last().is_some_and(|r| !r.0)
        && rd.hold_frames < o.plan.hold_max_frames
        && hold.elapsed().as_secs_f64() < o.plan.hold_max_wall_s
    {
        supply.sample(feed, r);
        let f = gpu.frame(r, last, false, false)?;
        ready.push((readiness::need(r).finest_ready, f.wall_ms));
        rd.hold_frames += 1;
    }
    (
        rd.finest_wait_frames,
        rd.finest_wait_clock_s,
        rd.finest_wait_wall_s,
    ) = readiness::longest_wait(&ready, FLIGHT_FRAME_PERIOD_S);
    rd.finest_reached = ready.last().is_some_and(|r| r.0);
    let (m, p, x) = readiness::host_stats(&host);
    rd.host_ms = HostStats {
        median: m,
        p95: p,
        max: x,
    };
    rd.tile_budget = readiness::budget_stats(&budgets);
    if let Some(dir) = &o.pop_maps {
        // Every kept frame over 1 px, or the worst frame where none is.
        kept.sort_by(|a, b| b.0.total_cmp(&a.0));
        let over = kept.iter().filter(|m| m.0 > 1.0).count().max(1);
        for (_, k, map) in kept.iter().take(over) {
            write_pop_map(dir, name, *k, &cams[*k].0, map)?;
        }
        if let Some(w) = &worst_dump {
            let path = dir.join(format!("pop-{name}-{:03}.dump", w.frame));
            std::fs::write(path, w.bytes())?;
        }
    }
    Ok(Flown {
        frames: out,
        wall_s: wall,
        readiness: rd,
        host_ms: host,
        tile_ms,
    })
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
    (p.descent_first_frame.min(frames - 2)..frames)
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

/// Terrain-following flight east at `speed` m/s on the 60 Hz clock, `agl` m above the ground
/// under each frame.
fn lateral(scene: &Scene, radius: f64, o: &Options, speed: f64) -> Vec<(ViewCamera, f64)> {
    let p = &o.plan;
    let (lat, lon) = p.lateral_at;
    let metres_per_degree = radius * lat.to_radians().cos() * std::f64::consts::PI / 180.0;
    let step = speed * FLIGHT_FRAME_PERIOD_S;
    (0..p.lateral_frames.max(2))
        .map(|i| {
            let lon_i = lon + i as f64 * step / metres_per_degree;
            let alt = scene.ground(lat, lon_i) + p.lateral_agl_m;
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

/// A turn in place: the heading from east through `turn_deg` in `turn_frames` frames.
fn turn(scene: &Scene, radius: f64, o: &Options) -> Vec<(ViewCamera, f64)> {
    let p = &o.plan;
    let (lat, lon) = p.turn_at;
    let alt = scene.ground(lat, lon) + p.turn_agl_m;
    let n = p.turn_frames.max(1);
    (0..=n)
        .map(|i| {
            let heading = 90.0 + p.turn_deg * i as f64 / n as f64;
            (
                ViewCamera::geo(
                    lat,
                    lon,
                    radius + alt,
                    heading,
                    p.turn_pitch,
                    60.0,
                    o.width,
                    o.height,
                ),
                p.turn_agl_m,
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

/// The flights: name, description, cameras.
/// A flight's name, description and cameras (with their heights above the ground).
type Planned = (String, String, Vec<(ViewCamera, f64)>);

fn plan(scene: &Scene, radius: f64, o: &Options) -> Vec<Planned> {
    let p = &o.plan;
    let mut out = Vec::new();
    let cams = descent(scene, radius, o);
    out.push(("descent".to_string(), format!(
        "{:.0} km above the datum → {} m above the ground at {:.2}, {:.2} in {} frames, geometric, pitch {}° → {}°{}",
        p.descent_top_m / 1e3, p.descent_bottom_agl_m, p.descent_at.0, p.descent_at.1, p.descent_frames, p.descent_pitch.0, p.descent_pitch.1,
        if cams.len() < p.descent_frames as usize {
            format!(", flown from frame {} ({:.1} m above the ground): {} frames", p.descent_frames as usize - cams.len(), cams[0].1, cams.len())
        } else {
            String::new()
        }
    ), cams));
    for &speed in &p.lateral_speeds_mps {
        let cams = lateral(scene, radius, o, speed);
        out.push((format!("lateral-{speed:.0}"), format!(
            "east at {speed:.0} m/s ({:.2} m per 60 Hz frame), {} m above the ground under each frame, from {:.2}, {:.2}, pitch {}°, {} frames",
            speed * FLIGHT_FRAME_PERIOD_S, p.lateral_agl_m, p.lateral_at.0, p.lateral_at.1, p.lateral_pitch, cams.len()
        ), cams));
    }
    let cams = turn(scene, radius, o);
    out.push(("turn".to_string(), format!(
        "{}° turn in {} frames ({:.2} s at 60 Hz) at {} m above the ground at {:.2}, {:.2}, pitch {}°",
        p.turn_deg, cams.len() - 1, (cams.len() - 1) as f64 * FLIGHT_FRAME_PERIOD_S, p.turn_agl_m, p.turn_at.0, p.turn_at.1, p.turn_pitch
    ), cams));
    out
}

/// Whether `--flights` chose the flight `name` (`lateral` chooses every `lateral-<speed>`).
fn chosen(o: &Options, name: &str) -> bool {
    o.only_flights.is_empty()
        || o.only_flights
            .iter()
            .any(|n| n == name.split('-').next().unwrap_or(name))
}

/// Every camera the flights will use (`--prefetch-flights`).
pub fn cameras(scene: &Scene, radius: f64, o: &Options) -> Vec<ViewCamera> {
    let mut cams: Vec<ViewCamera> = plan(scene, radius, o)
        .into_iter()
        .flat_map(|f| f.2)
        .map(|c| c.0)
        .collect();
    cams.push(teleport(scene, radius, o));
    cams
}

/// What the flights measured.
pub struct Flights {
    pub flights: Vec<Flight>,
    /// The warm teleport (a fresh renderer over a store that holds the tiles).
    pub teleport: Settle,
    pub readiness: Readiness,
}

/// Every flight on a fresh non-waiting renderer over one store (fresh and cold unless
/// `--prefetch-flights`), then teleports on fresh renderers: one over a fresh cold store,
/// one over the store it filled (warm).
pub fn run(gpu: &mut Gpu, scene: &Scene, o: &Options) -> Result<Flights> {
    let feed = if o.prefetch_flights {
        Feed::shared(scene)
    } else {
        Feed::cold(scene)?
    };
    let radius = scene.source().body().radius;
    let mut supply = Supply::for_feed(&feed);
    let p = &o.plan;
    let mut rd = Readiness {
        cold_store: !o.prefetch_flights,
        teleport: format!(
            "to {:.2}, {:.2} at {} m above the ground, pitch {}°",
            p.teleport_to.0, p.teleport_to.1, p.teleport_agl_m, p.teleport_pitch
        ),
        ..Default::default()
    };
    let (mut flights, mut host, mut tile_ms) = (Vec::new(), Vec::new(), Vec::new());
    for (name, description, cams) in plan(scene, radius, o) {
        if !chosen(o, &name) {
            continue;
        }
        let mut r = flight_renderer(gpu, &feed, o.flight_wait, o)?;
        let res = fly(gpu, &mut r, &name, &cams, o, &feed, &mut supply);
        let cost = r.gpu_tile_cost_ms();
        r.destroy(&gpu.ctx);
        let f = res?;
        let rdy = &f.readiness;
        let med = |v: &[f64]| super::stats::median(v);
        let per_tile = |c: Option<f64>| c.map_or("-".to_string(), |c| format!("{c:.3}"));
        let budget = rdy.tile_budget.as_ref().map_or(String::new(), |b| {
            format!(
                "; GPU tile budget median {:.1} ms, max {:.1} (base {:.1}), grew in {} frames, tile cap bound {}",
                b.ms.median, b.ms.max, b.base_ms, b.needed_frames, b.tile_cap_frames
            )
        });
        eprintln!(
            "  flight {name}: {} frames in {:.1} s (host {:.1} ms, tiles {:.2} GPU ms a frame, medians; GPU ms a tile derived {} amplified {}); missing a level in {}, waited in {}; held {} frames for the finest level{budget}",
            rdy.frames, f.wall_s, med(&f.host_ms), med(&f.tile_ms), per_tile(cost[0]), per_tile(cost[1]),
            rdy.missing_level_frames, rdy.frames_waited, rdy.hold_frames
        );
        host.extend(f.host_ms);
        tile_ms.extend(f.tile_ms);
        rd.flights.push(f.readiness);
        flights.push(summarise(&name, description, f.frames, f.wall_s));
    }
    let cam = teleport(scene, radius, o);
    let cold_feed = Feed::cold(scene)?;
    let mut still = Vec::new();
    for _ in 0..2 {
        if !chosen(o, "teleport") {
            still.push(Settle::default());
            continue;
        }
        let mut r = flight_renderer(gpu, &cold_feed, false, o)?;
        // A teleport: nothing on screen to be continuous with, so no arrival fades in.
        r.cut();
        let res = settle_on_feed(gpu, &mut r, &cam, o, true);
        r.destroy(&gpu.ctx);
        still.push(res?);
    }
    readiness::finish(&mut rd, &supply, &still[0], &still[1], &host);
    (
        rd.tile_gpu_ms.median,
        rd.tile_gpu_ms.p95,
        rd.tile_gpu_ms.max,
    ) = readiness::host_stats(&tile_ms);
    let pixel_angle = 60f64.to_radians() / o.height as f64;
    rd.sustainable = readiness::sustainable(
        scene.source().body(),
        o.plan.lateral_agl_m,
        pixel_angle,
        &rd.supply_tiles_per_s,
    );
    Ok(Flights {
        flights,
        teleport: still[1].clone(),
        readiness: rd,
    })
}

/// The worst frame of a flight with the frame before it, for `--pop-dump`.
struct PopDump {
    max_px: f64,
    frame: usize,
    /// Previous, current.
    cams: [ViewCamera; 2],
    aovs: [Vec<engine::shade::AovPixel>; 2],
    map: Vec<f32>,
}

impl PopDump {
    /// The raw record, little-endian: per camera (previous, current) 15 f64 — eye, forward,
    /// right, up (planet-centred, metres), vertical fov (radians), width, height; then both
    /// frames' `AovPixel`s (12 f32 each, row-major), then the pop map (f32 per previous-frame
    /// pixel: `pop::change_map`'s values). `tools/scripts/device/pop_dump.py` reads it.
    fn bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        for c in &self.cams {
            for v in [c.eye, c.forward, c.right, c.up] {
                bytes.extend_from_slice(bytemuck::cast_slice(&v.to_array()));
            }
            let rest = [c.vfov, c.width as f64, c.height as f64];
            bytes.extend_from_slice(bytemuck::cast_slice(&rest));
        }
        for a in &self.aovs {
            bytes.extend_from_slice(bytemuck::cast_slice(a));
        }
        bytes.extend_from_slice(bytemuck::cast_slice(&self.map));
        bytes
    }
}
