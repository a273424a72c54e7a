//! `bench --pop-reference`: a flight frame pair measured against the CPU reference's
//! pictures of the same two cameras, to tell the renderer's pops from the metric's floor
//! (docs/bench.md "The pop metric's floor").

use super::pop;
use super::report::PopReference;
use engine::camera::ViewCamera;
use engine::reference::{pixel_ray, render_from, LodEye, Target};
use engine::renderer::PlanetRenderer;
use std::time::Instant;

/// A flight frame and its predecessor as the renderer drew them, with their pop.
pub struct FramePair<'a> {
    pub prev_cam: &'a ViewCamera,
    pub prev: &'a [Option<f64>],
    pub cam: &'a ViewCamera,
    pub cur: &'a [Option<f64>],
    pub map: &'a [f32],
    pub change: &'a pop::Change,
}

/// `--pop-reference`: the same frame pair drawn by the CPU reference over this frame's tiles,
/// once with the levels blended by each eye's own ray distance (the surface the renderer means
/// to draw, which moves as distances change) and once with both blended by distance from the
/// previous eye (a surface that does not move: what the metric reads when nothing changed).
/// The renderer's pop less the first is what the mesh, the resolve and the tiles' arrivals add;
/// the first less the second is the level blend's own motion.
pub fn measure(
    r: &PlanetRenderer,
    name: &str,
    k: usize,
    pair: &FramePair,
    relief: f64,
) -> PopReference {
    let (pcam, cam, gpu) = (pair.prev_cam, pair.cam, pair.change);
    let t = Instant::now();
    let (res, lod) = (r.residency(), r.lod_params(cam));
    let before = render_from(res, &lod, r.body, LodEye::Ray, pcam, relief);
    let moving = render_from(res, &lod, r.body, LodEye::Ray, cam, relief);
    let fixed = render_from(res, &lod, r.body, LodEye::Fixed(pcam.eye), cam, relief);
    let blend = pop::change(pcam, &before, cam, &moving);
    let (still, still_map) = pop::change_map(pcam, &before, cam, &fixed);
    // Per previous pixel compared in both, the renderer's pop over the floor's there.
    let excess: Vec<f64> = pair
        .map
        .iter()
        .zip(&still_map)
        .filter(|(g, f)| **g >= 0.0 && **f >= 0.0)
        .map(|(g, f)| (*g - *f).max(0.0) as f64)
        .collect();
    let excess_max = excess.iter().copied().fold(0.0, f64::max);
    let excess_p99 = super::stats::quantile(&excess, 0.99);
    let both = |c: &pop::Change| format!("{:.3} / {:.3}", c.max_px, c.p99_px);
    println!(
        "  {name} frame {k}: pop max / p99 px: renderer {}; reference {}; reference on a \
         surface that does not move {}; the renderer's over that, point by point, \
         {excess_max:.3} / {excess_p99:.3} ({:.1} s)",
        both(gpu),
        both(&blend),
        both(&still),
        t.elapsed().as_secs_f64()
    );
    let surface = Target {
        res,
        lod: &lod,
        body: r.body,
        at: LodEye::Ray,
    };
    print_worst_point(pair, &before, &moving, &fixed, &surface);
    PopReference {
        max_px: blend.max_px,
        p99_px: blend.p99_px,
        floor_max_px: still.max_px,
        floor_p99_px: still.p99_px,
        excess_max_px: excess_max,
        excess_p99_px: excess_p99,
    }
}

/// Where the renderer's worst point was: its distance in both frames against the reference's
/// (at the previous pixel, and around the pixel nearest its reprojection), so that the frame
/// whose surface is off shows; the previous ray's clearance over `surface` there, and the
/// tiles under the point.
fn print_worst_point(
    pair: &FramePair,
    before: &[Option<f64>],
    moving: &[Option<f64>],
    fixed: &[Option<f64>],
    surface: &Target,
) {
    let (pcam, cam) = (pair.prev_cam, pair.cam);
    let worst = pair
        .map
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .filter(|(_, p)| **p > 0.0);
    if let Some((i, p)) = worst {
        let w = pcam.width as usize;
        let m = |v: Option<f64>| v.map_or("sky".to_string(), |d| format!("{d:.3} m"));
        let now = pair.prev[i].and_then(|d| pop::reprojected(pcam, i, d, cam));
        let at = |v: &[Option<f64>]| now.map_or("off screen".to_string(), |(j, _)| m(v[j]));
        println!(
            "    worst point ({}, {}), {p:.3} px: before {} (reference {}), now {} expected, \
             {} drawn (reference {}, on the unmoving surface {}) at the nearest pixel{}",
            i % w,
            i / w,
            m(pair.prev[i]),
            m(before[i]),
            m(now.map(|(_, e)| e)),
            at(pair.cur),
            at(moving),
            at(fixed),
            now.map_or(String::new(), |(j, _)| format!(" ({}, {})", j % w, j / w))
        );
        // The previous ray between the renderer's point and the reference's, sampled every
        // millimetre: a crossing there the reference's march stepped over (clearance < 0) makes
        // the renderer right; a clearance of centimetres makes its point off the surface.
        let ray = pixel_ray(pcam, (i % w) as f64 + 0.5, (i / w) as f64 + 0.5);
        if let (Some(a), Some(b)) = (pair.prev[i], before[i]) {
            let range = ((a.min(b) - 0.05).max(0.0), a.max(b) + 0.05);
            let (t, c) = surface.least_clearance(pcam.eye, ray, range, 1e-3);
            println!(
                "      its previous ray: clearance {:.4} m at the renderer's point; least {c:.4} m \
                 at {t:.3} m",
                surface.clearance(pcam.eye + ray * a, a)
            );
        }
        if let Some(a) = pair.prev[i] {
            // The tiles under it, finest first: a fade under way moves the surface between the
            // frames, and the reference draws both frames with this frame's fades.
            let (res, max_level) = (surface.res, surface.lod.max_level);
            let (mut t, _, _) = engine::surface::locate(res, max_level, pcam.eye + ray * a);
            let mut chain = Vec::new();
            loop {
                chain.push(format!(
                    "L{} fade {:.3} xfade {:.3}",
                    t.id.level, t.fade, t.xfade
                ));
                match t.id.parent().and_then(|id| res.get(&id)) {
                    Some(p) if chain.len() < 6 => t = p,
                    _ => break,
                }
            }
            println!("      tiles under it: {}", chain.join(", "));
        }
        // The 3×3 pixels around the reprojection, drawn / reference (m): where the renderer's
        // surface differs from the reference's near the point, an outline a row off shows.
        if let Some((j, _)) = now {
            let (x, y) = ((j % w) as i64, (j / w) as i64);
            for dy in -1..=1 {
                let row: Vec<String> = (-1..=1)
                    .map(|dx| {
                        let (u, v) = (x + dx, y + dy);
                        if u < 0 || v < 0 || u >= w as i64 || v >= cam.height as i64 {
                            return "-".to_string();
                        }
                        let q = v as usize * w + u as usize;
                        let f = |d: Option<f64>| d.map_or("sky".to_string(), |d| format!("{d:.3}"));
                        format!("{}/{}", f(pair.cur[q]), f(moving[q]))
                    })
                    .collect();
                println!("      {}", row.join("  "));
            }
        }
    }
}
