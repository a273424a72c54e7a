//! `planetfall bench`: views from `captures/views.txt` on fresh renderers (setup, first frame,
//! settle, timed frames with per-node GPU times, accuracy against the CPU reference), the
//! device's limits and each node's floor, pop along scripted flights and settling after a
//! teleport. Writes `bench-<device>.json`, `bench-<device>.md` and `bench-<device>.png` into one
//! directory (docs/bench.md).

pub mod accuracy;
pub mod clock;
pub mod flights;
pub mod floors;
pub mod frame;
pub mod limits;
pub mod markdown;
pub mod pop;
pub mod pop_reference;
pub mod prefetch;
pub mod readiness;
pub mod report;
pub mod rings;
pub mod scene;
pub mod sheet;
pub mod stats;
pub mod view;

use crate::bookmarks::Bookmark;
use anyhow::{Context as _, Result};
use report::Report;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The resolved settings of one run (full or `--quick`).
#[derive(Clone, Debug)]
pub struct Options {
    pub scene: String,
    pub views: Vec<Bookmark>,
    pub width: u32,
    pub height: u32,
    /// Timed frames per view, kept after `warmup` dropped ones.
    pub frames: u32,
    pub warmup: u32,
    /// Run the per-node timed pass too (`--per-node`).
    pub per_node: bool,
    /// Frames a view may take to settle before it is scored anyway.
    pub max_settle_frames: u32,
    pub plan: flights::FlightPlan,
    /// Bytes of the device copy and of the upload probe.
    pub copy_bytes: u64,
    pub upload_bytes: u64,
    /// Pixels scored against the reference at most (accuracy.rs windows).
    pub score_pixels: usize,
    pub flights: bool,
    /// Only the flights named here (`descent`, `lateral` for every lateral speed, `turn`,
    /// `teleport`); empty: all of them.
    pub only_flights: Vec<String>,
    /// Flights wait for every tile their frame wants (`--flight-wait`): no frame misses a
    /// level, so what still pops is not the feed's lateness.
    pub flight_wait: bool,
    /// Frames run at each flight pose before the measured one, on a clock that stands still
    /// (`--flight-mesh-frames`): the mesh catches up with the pose, so what still pops is
    /// not the mesh's lag behind the camera.
    pub flight_mesh_frames: u32,
    /// Updates a new vertex of the flights' meshes takes onto the surface (`--morph-updates`;
    /// None: `CbtParams`' default).
    pub morph_updates: Option<u32>,
    /// Write a pop map (pop.rs `map_rgba`) of every flight frame over 1 px here, and each
    /// view's scored frame with its level rings marked (rings.rs `mark`).
    pub pop_maps: Option<PathBuf>,
    /// With `pop_maps`: the worst frame's AOVs and cameras, raw (`flights::PopDump`).
    pub pop_dump: bool,
    /// Flight frames whose pop is also measured on the CPU reference's pictures of the same
    /// pair (`pop_reference::measure`).
    pub pop_reference: Vec<usize>,
    /// Derive every tile the views want on all cores first.
    pub prefetch: bool,
    /// Derive the flights' tiles too, and fly on that store instead of a fresh, cold one.
    pub prefetch_flights: bool,
    pub quick: bool,
    /// The sun of every view, local to the point under its camera (None: the renderer's).
    pub sun: crate::camera::SunArgs,
    pub out: PathBuf,
    pub command: String,
}

/// The accuracy bars `--quick` asserts: per view, see-through and covers-sky at most
/// 0.5 % of the pixels, and no non-finite value anywhere.
pub const QUICK_MAX_MISMATCH: f64 = 0.005;

/// Everything that fails the bars, one line each.
pub fn bar_failures(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    for v in &r.views {
        let a = &v.score;
        if a.see_through > QUICK_MAX_MISMATCH || a.covers_sky > QUICK_MAX_MISMATCH {
            out.push(format!(
                "{}: see-through {:.3} %, covers-sky {:.3} % (bar 0.5 %)",
                v.name,
                100.0 * a.see_through,
                100.0 * a.covers_sky
            ));
        }
        if a.non_finite > 0 {
            out.push(format!("{}: {} non-finite distances", v.name, a.non_finite));
        }
        if a.measured_nothing {
            out.push(format!(
                "{}: the reference sees terrain but no scored window holds any: the score measured nothing",
                v.name
            ));
        }
        let nums = [
            a.see_through,
            a.covers_sky,
            a.depth_rel_median,
            a.depth_rel_p95,
            a.silhouette_px_p95,
            a.incoherent,
            v.timed.gpu_median_ms,
        ];
        if nums.iter().any(|x| !x.is_finite()) {
            out.push(format!("{}: a non-finite metric ({nums:?})", v.name));
        }
    }
    for f in &r.flights {
        if f.per_frame
            .iter()
            .any(|p| !p.max_px.is_finite() || !p.p99_px.is_finite())
        {
            out.push(format!("flight {}: non-finite pop", f.name));
        }
    }
    out
}

/// `NVIDIA H200` → `nvidia-h200`.
pub fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    s.split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// Run the benchmark; returns the report and the paths written.
pub fn run(gpu_args: &crate::device::GpuArgs, o: &Options) -> Result<(Report, Vec<PathBuf>)> {
    let t0 = Instant::now();
    let scene = scene::Scene::open(&o.scene)?;
    let mut gpu = frame::Gpu::new(gpu_args.context()?)?;
    let info = &gpu.ctx.info;
    let mut r = Report {
        device: info.name.clone(),
        driver: info.driver.clone(),
        commit: env!("PLANETFALL_BUILD_COMMIT").into(),
        command: o.command.clone(),
        scene: scene.name().into(),
        width: o.width,
        height: o.height,
        quick: o.quick,
        // What the raster does with the occlusion stamps travels with the mode: the
        // environment can set it, so the command line alone does not say.
        publish: {
            let mode = gpu_args.publish.resolve(info).name();
            match gpu_args.occlusion {
                engine::publish::Occlusion::Off => mode.into(),
                occ => format!(
                    "{mode}, occlusion {} ({})",
                    occ.name(),
                    gpu_args.hidden_leaves().name()
                ),
            }
        },
        skips: gpu_args.skip.unwrap_or_default().names(),
        validation: report::Validation {
            enabled: gpu.ctx.validation,
            messages: 0,
        },
        timed_frames: o.frames,
        ..Default::default()
    };
    println!(
        "bench on {} ({}), {} views at {}×{}, scene {}, publish {}",
        r.device,
        r.driver,
        o.views.len(),
        o.width,
        o.height,
        r.scene,
        r.publish
    );
    r.limits = limits::measure(&mut gpu, o.copy_bytes, o.upload_bytes)?;
    println!(
        "limits: device copy {:.1} GB/s (vkCmdCopyBuffer {:.1}, compute {:.1}), upload {:.1} GB/s",
        r.limits.device_gbps, r.limits.transfer_gbps, r.limits.compute_gbps, r.limits.upload_gbps
    );
    if o.prefetch || (o.flights && o.prefetch_flights) {
        let radius = scene.source().body().radius;
        let mut cams: Vec<_> = if o.prefetch {
            o.views
                .iter()
                .map(|b| scene.camera(b, o.width, o.height))
                .collect()
        } else {
            Vec::new()
        };
        if o.flights && o.prefetch_flights {
            cams.extend(flights::cameras(&scene, radius, o));
        }
        let ids = prefetch::wanted(&scene, &cams, engine::params::STREAM_SLOTS);
        r.prefetch_tiles = ids.len();
        r.prefetch_s = prefetch::derive(&scene, &ids);
        println!(
            "prefetch: {} tiles wanted by the run ready in {:.1} s",
            r.prefetch_tiles, r.prefetch_s
        );
    }
    let mut frames = Vec::new();
    let mut clock = clock::ClockSampler::start();
    for b in &o.views {
        let (v, color) = view::run(&mut gpu, &scene, b, o, &r.limits, &clock)
            .with_context(|| format!("view {}", b.name))?;
        let t = &v.timed;
        println!(
            "{:6.1} s {:<26} setup {:7.1} ms  first {:8.1} ms  settled {:3} fr {:6.2} s  GPU {:8.3} ms (p95 {:.3}, wall {:.3}/frame) SM {}{}  terrain {:.1} %{}  see-through {:.3} %  covers-sky {:.3} %  sil p95 {:.2} px  leaves {}{}",
            t0.elapsed().as_secs_f64(), v.name, v.setup_ms, v.first_frame_ms, v.settle.frames_to_settled, v.settle.seconds_to_settled, t.gpu_median_ms, t.gpu_p95_ms, t.wall_per_frame_ms,
            markdown::clock_cell(t), if t.flags.is_empty() { String::new() } else { format!("  FLAGGED ({})", t.flags.join("; ")) },
            100.0 * v.score.terrain, if v.score.measured_nothing { " (MEASURED NOTHING)" } else { "" },
            100.0 * v.score.see_through, 100.0 * v.score.covers_sky, v.score.silhouette_px_p95, v.mesh.leaves,
            if v.mesh.early > 0 || v.mesh.hidden_kept > 0 { format!(" drawn {} occluded {}", v.mesh.drawn, markdown::occlusion_cell(&v.mesh)) } else { String::new() }
        );
        for g in &v.rings.rings {
            println!(
                "         ring {:>2}|{:<2} rows {:.1} ({:.1}–{:.1}): large {:.2} (controls {:.2}), depth step max {:.3} px (controls {:.3}), normal step max {:.3}° (controls {:.3}°)",
                g.coarse, g.fine, g.row_median, g.row_min, g.row_max, g.large_share, g.control_large_share, g.depth_px.max, g.control_depth_px.max, g.normal_deg.max, g.control_normal_deg.max
            );
        }
        frames.push((v.name.clone(), color));
        r.views.push(v);
        r.validation.messages = gpu.ctx.messages.count();
        // Results so far, so a run cut short still leaves its numbers.
        r.wall_s = t0.elapsed().as_secs_f64();
        write(&r, &frames, &o.out)?;
    }
    clock.stop();
    if o.flights {
        let flights::Flights {
            flights,
            teleport,
            readiness,
        } = flights::run(&mut gpu, &scene, o)?;
        for (f, rd) in flights.iter().zip(&readiness.flights) {
            println!(
                "flight {:<12} {} frames: pop max {:.3} px, max p99 {:.3} px, {} frames > 1 px; waited {}, missing a level {}, finest level waited {} frames ({:.2} s at 60 Hz, {:.2} s wall){}",
                f.name, f.frames, f.max_px, f.p99_max_px, f.frames_over_1px, rd.frames_waited, rd.missing_level_frames,
                rd.finest_wait_frames, rd.finest_wait_clock_s, rd.finest_wait_wall_s, if rd.finest_reached { "" } else { ", not reached" }
            );
        }
        let t = &readiness.teleport_still_s;
        println!(
            "teleport to a still image: cold store {:.2} s, warm {:.2} s; host ms per flight frame median {:.1}, p95 {:.1}, max {:.1}",
            t.cold, t.warm, readiness.host_ms.median, readiness.host_ms.p95, readiness.host_ms.max
        );
        r.readiness = Some(readiness);
        println!(
            "teleport: settled {} frames / {:.2} s, still {} frames / {:.2} s; frames held by {:?}",
            teleport.frames_to_settled,
            teleport.seconds_to_settled,
            teleport.frames_to_still,
            teleport.seconds_to_still,
            teleport.held_by
        );
        r.flights = flights;
        r.teleport = Some(teleport);
    }
    r.pipeline_stats_asked = gpu_args.pipeline_stats;
    r.pipelines = gpu.pipeline_stats();
    // The report records the messages even when they fail the run.
    let messages = gpu.ctx.messages.clone();
    let finished = gpu.finish();
    r.validation.messages = messages.count();
    r.wall_s = t0.elapsed().as_secs_f64();
    let paths = write(&r, &frames, &o.out)?;
    finished?;
    Ok((r, paths))
}

/// JSON, Markdown and the contact sheet, named after the device.
fn write(r: &Report, frames: &[(String, Vec<u8>)], dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let stem = format!("bench-{}", slug(&r.device));
    let (json, md, png) = (
        dir.join(format!("{stem}.json")),
        dir.join(format!("{stem}.md")),
        dir.join(format!("{stem}.png")),
    );
    r.write(&json)?;
    std::fs::write(&md, markdown::render(r))
        .with_context(|| format!("writing {}", md.display()))?;
    let (w, h, img) = sheet::contact_sheet(frames, r.width, r.height);
    crate::image_out::write_rgba8(&png, w, h, &img)?;
    Ok(vec![json, md, png])
}

#[cfg(test)]
mod tests {
    use crate::bookmarks::{self, Height};

    #[test]
    fn the_view_file_holds_every_altitude_at_every_pitch_and_the_salt_flat() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../captures/views.txt");
        let views = bookmarks::load(&path).unwrap();
        let m = |h: &Height| match h {
            Height::Datum(a) | Height::Ground(a) => *a,
        };
        for alt in [2.0e7, 4.0e5, 1.0e4, 1.0e3, 100.0, 2.0] {
            for pitch in [0.0, -30.0, -60.0, -90.0] {
                let n = views
                    .iter()
                    .filter(|v| m(&v.height) == alt && v.pitch == pitch)
                    .count();
                // Two at 2 m and 0°: the grid's and the salt flat's (HORIZ-01).
                let want = if alt == 2.0 && pitch == 0.0 { 2 } else { 1 };
                assert_eq!(n, want, "{alt} m at {pitch}°");
            }
        }
        assert_eq!(views.len(), 25);
        assert!(views.iter().any(|v| v.name == "uyuni-2m-p0"));
        assert!(views.iter().filter(|v| v.has_tag("quick")).count() >= 3);
    }

    #[test]
    fn device_names_become_file_names() {
        assert_eq!(super::slug("NVIDIA H200"), "nvidia-h200");
        assert_eq!(
            super::slug("llvmpipe (LLVM 15.0.6, 256 bits)"),
            "llvmpipe-llvm-15-0-6-256-bits"
        );
    }
}
