//! Pop-freedom: the per-frame geometric change of the image that camera motion does not
//! explain (docs/bench.md, "Pop").
//!
//! Every terrain pixel of the previous frame is a surface point P (previous eye + distance ×
//! pixel ray). P is projected into the current camera at sub-pixel position q, where it
//! should be seen at distance e = |P − eye|. The current distance at q, d(q), is interpolated
//! bilinearly in 1/distance (exact on planar patches). If the surface did not change,
//! d(q) = e; otherwise the along-ray change Δ = d(q) − e is read as a move of the surface
//! along its own normal n at P, by Δ·|c| with c = ray · n (n from the previous frame's
//! neighbouring points; the radial up where they are missing), and the reported displacement
//! is how far that moves P on screen:
//!
//!   pop_px = |Δ| · |c| · √(1 − c²) / (e · pixel_angle)
//!
//! Over level ground n is the up vector and this is a height change. On a rock's flank near
//! its outline the ray grazes the surface (c → 0): a millimetre's change of the rock moves the
//! hit along the ray by centimetres but the rock's image by a fraction of a pixel, and read
//! with c = ray · up it would count as tens of pixels. Looking straight at a surface (c = 1),
//! its move along the ray shifts nothing sideways. A point is also matched against each of the
//! four current pixels around q, since interpolating across a small depth step gives a
//! distance no surface has ([`pop_at_corners`]). Where something nearer now hides P, the
//! hiding point is measured against the previous frame too and the smaller pop counts:
//! parallax occlusion by a surface that was already there is no pop. Where P is gone with
//! nothing nearer in front, the pop is at most how far away P's distance is drawn now
//! ([`contour_px`]): an outline's move, not the ray's jump past a crest to the ground behind.
//! Where a surface new at P's place hides it, the pop is at most how far from P that surface's
//! distance was drawn before: an outline moved over P (a crest drawn higher); a surface new in
//! the frame was drawn nowhere. Pixels at depth discontinuities — a sky 4-neighbour, or a
//! second difference of 1/distance above [`EDGE_TAU`] of its value, in either frame — are
//! left out: parallax legitimately uncovers and hides surface there.
//! Terrain that turns into sky away from edges is counted separately as `coverage_changed`,
//! and so is surface that appears where the previous frame saw sky (current points projected
//! back, [`compare_rows`]).

use engine::camera::ViewCamera;
use glam::DVec3;

/// Relative second difference of 1/distance above which a pixel is a depth edge. 1/distance
/// is affine across a planar patch in screen space, so smooth terrain stays far below; 0.1
/// flags occlusion steps of ~10 % of the distance and more.
pub const EDGE_TAU: f64 = 0.1;

/// The change between two frames.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Change {
    /// Largest and 99th-percentile pop over the compared pixels, px.
    pub max_px: f64,
    pub p99_px: f64,
    /// 99th percentile of |Δ| / e.
    pub depth_rel_p99: f64,
    /// Previous-frame surface points compared.
    pub compared: usize,
    /// Points left out at depth edges (either frame) or off screen.
    pub excluded: usize,
    /// Away from edges: terrain that became sky, plus sky that became terrain.
    pub coverage_changed: usize,
    /// Compared points whose pop exceeds 1 px (is a large max a speck or an area?).
    pub over_1px: usize,
}

/// Screen position (index space: pixel i's centre at i) of a camera-relative direction `v`,
/// or None behind the camera.
fn project(cam: &ViewCamera, v: DVec3) -> Option<(f64, f64)> {
    let z = v.dot(cam.forward);
    if z <= 0.0 {
        return None;
    }
    let t = (0.5 * cam.vfov).tan();
    let aspect = cam.width as f64 / cam.height as f64;
    let nx = v.dot(cam.right) / z / (t * aspect);
    let ny = -v.dot(cam.up) / z / t;
    Some((
        (nx + 1.0) * 0.5 * cam.width as f64 - 0.5,
        (ny + 1.0) * 0.5 * cam.height as f64 - 0.5,
    ))
}

/// Where previous-frame pixel `i`, seen at distance `d`, lands in `cur`: the pixel nearest to
/// its reprojection, and its distance from `cur`'s eye (where the current frame should see
/// it); None off screen or behind.
pub fn reprojected(prev: &ViewCamera, i: usize, d: f64, cur: &ViewCamera) -> Option<(usize, f64)> {
    let w = prev.width as usize;
    let (px, py) = ((i % w) as f64 + 0.5, (i / w) as f64 + 0.5);
    let v = prev.eye + engine::reference::pixel_ray(prev, px, py) * d - cur.eye;
    let (quad, fx, fy) = quad_at(cur, v)?;
    Some((
        quad[(fx > 0.5) as usize + 2 * (fy > 0.5) as usize],
        v.length(),
    ))
}

/// Depth-edge mask: sky, a sky 4-neighbour, or a large second difference of 1/distance.
pub fn edges(d: &[Option<f64>], w: usize, h: usize) -> Vec<bool> {
    let inv = |x: usize, y: usize| d[y * w + x].map(|v| 1.0 / v.max(1e-9));
    let mut out = vec![true; w * h];
    for y in 1..h.saturating_sub(1) {
        for x in 1..w.saturating_sub(1) {
            let (Some(c), Some(l), Some(r), Some(u), Some(b)) = (
                inv(x, y),
                inv(x - 1, y),
                inv(x + 1, y),
                inv(x, y - 1),
                inv(x, y + 1),
            ) else {
                continue;
            };
            let second = (l + r - 2.0 * c).abs().max((u + b - 2.0 * c).abs());
            out[y * w + x] = second > EDGE_TAU * c;
        }
    }
    out
}

/// Per previous-frame pixel in a [`change_map`]: sky that stayed sky or was not compared.
pub const MAP_SKY: f32 = -1.0;
/// Per previous-frame pixel: a depth edge or off screen, left out.
pub const MAP_EXCLUDED: f32 = -2.0;
/// Per previous-frame pixel: coverage changed (terrain ↔ sky away from edges).
pub const MAP_COVERAGE: f32 = -3.0;

/// Change from `(prev_cam, prev)` to `(cur_cam, cur)`: distances per pixel (None = sky),
/// row-major, y down, both of the cameras' size.
pub fn change(
    prev_cam: &ViewCamera,
    prev: &[Option<f64>],
    cur_cam: &ViewCamera,
    cur: &[Option<f64>],
) -> Change {
    change_map(prev_cam, prev, cur_cam, cur).0
}

/// [`change`], plus where: per previous-frame pixel its pop in px, or one of `MAP_SKY`,
/// `MAP_EXCLUDED`, `MAP_COVERAGE` (`bench --pop-maps` draws it with [`map_rgba`]).
pub fn change_map(
    prev_cam: &ViewCamera,
    prev: &[Option<f64>],
    cur_cam: &ViewCamera,
    cur: &[Option<f64>],
) -> (Change, Vec<f32>) {
    let (w, h) = (cur_cam.width as usize, cur_cam.height as usize);
    assert_eq!((prev_cam.width as usize, prev_cam.height as usize), (w, h));
    assert!(prev.len() == w * h && cur.len() == w * h);
    let (pe, ce) = (edges(prev, w, h), edges(cur, w, h));
    let pa = cur_cam.pixel_angle();
    // Rows in bands over the machine's threads (a 1080p frame is 2 M points).
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let band = h.div_ceil(threads).max(1);
    let parts: Vec<Rows> = std::thread::scope(|s| {
        let (pe, ce) = (&pe, &ce);
        let jobs: Vec<_> = (0..h)
            .step_by(band)
            .map(|y0| {
                s.spawn(move || {
                    let rows = y0.max(1)..(y0 + band).min(h.saturating_sub(1));
                    compare_rows(rows, prev_cam, prev, pe, cur_cam, cur, ce, pa)
                })
            })
            .collect();
        jobs.into_iter()
            .map(|j| j.join().unwrap_or_default())
            .collect()
    });
    let mut out = Change::default();
    let (mut pops, mut rels) = (Vec::new(), Vec::new());
    // Bands cover rows 1..h-1 in order; the first and last rows are never compared.
    let mut map = vec![MAP_EXCLUDED; w];
    let mut appeared = Vec::new();
    for part in parts {
        out.excluded += part.counts.excluded;
        out.coverage_changed += part.counts.coverage_changed;
        pops.extend(part.pops);
        rels.extend(part.rels);
        map.extend(part.map);
        appeared.extend(part.appeared);
    }
    map.resize(w * h, MAP_EXCLUDED);
    for j in appeared {
        map[j] = MAP_COVERAGE;
    }
    out.compared = pops.len();
    out.over_1px = pops.iter().filter(|p| **p > 1.0).count();
    out.max_px = pops.iter().copied().fold(0.0, f64::max);
    out.p99_px = super::stats::quantile(&pops, 0.99);
    out.depth_rel_p99 = super::stats::quantile(&rels, 0.99);
    (out, map)
}

/// RGBA8 picture of a [`change_map`]: compared points from black (no pop) through orange
/// (1 px) to white (≥ 2 px), every point over 1 px ringed in red so a speck is found; sky dark
/// blue, left-out edges grey, coverage changes magenta.
pub fn map_rgba(map: &[f32], w: usize, h: usize) -> Vec<u8> {
    let mut img = vec![0u8; w * h * 4];
    let over = |x: usize, y: usize| map[y * w + x] > 1.0;
    for y in 0..h {
        for x in 0..w {
            let v = map[y * w + x];
            let near_over = (y.saturating_sub(2)..(y + 3).min(h))
                .any(|yy| (x.saturating_sub(2)..(x + 3).min(w)).any(|xx| over(xx, yy)));
            let c = if v == MAP_SKY {
                [16, 24, 48]
            } else if v == MAP_EXCLUDED {
                [72, 72, 72]
            } else if v == MAP_COVERAGE {
                [255, 0, 255]
            } else if v <= 1.0 && near_over {
                [255, 0, 0]
            } else {
                let t = (v / 2.0).clamp(0.0, 1.0);
                let k = |a: f32| (255.0 * a.clamp(0.0, 1.0)) as u8;
                [k(2.0 * t), k(2.0 * t - 0.6), k(2.0 * t - 1.0)]
            };
            img[(y * w + x) * 4..][..4].copy_from_slice(&[c[0], c[1], c[2], 255]);
        }
    }
    img
}

/// One band's comparison.
#[derive(Default)]
struct Rows {
    counts: Change,
    /// Pops (px) and relative depth changes of the compared points.
    pops: Vec<f64>,
    rels: Vec<f64>,
    /// The band's rows of the map.
    map: Vec<f32>,
    /// Previous-frame pixels where surface appeared out of sky (the reverse check).
    appeared: Vec<usize>,
}

/// Sub-pixel position of `v` in `cam` with its 2×2 neighbourhood (row-major indices) and the
/// bilinear weights, or None off screen or behind.
fn quad_at(cam: &ViewCamera, v: DVec3) -> Option<([usize; 4], f64, f64)> {
    let (w, h) = (cam.width as usize, cam.height as usize);
    let (qx, qy) = project(cam, v)?;
    if qx < 0.0 || qy < 0.0 || qx >= (w - 1) as f64 || qy >= (h - 1) as f64 {
        return None;
    }
    let (x0, y0) = (qx.floor() as usize, qy.floor() as usize);
    let quad = [(x0, y0), (x0 + 1, y0), (x0, y0 + 1), (x0 + 1, y0 + 1)].map(|(a, b)| b * w + a);
    Some((quad, qx - x0 as f64, qy - y0 as f64))
}

/// Distance at sub-pixel (fx, fy) inside `quad`, bilinear in 1/distance (every pixel surface).
fn lerp_distance(d: &[Option<f64>], quad: [usize; 4], fx: f64, fy: f64) -> f64 {
    let inv = |j: usize| 1.0 / d[j].unwrap_or(f64::INFINITY).max(1e-9);
    let top = inv(quad[0]) * (1.0 - fx) + inv(quad[1]) * fx;
    let bottom = inv(quad[2]) * (1.0 - fx) + inv(quad[3]) * fx;
    1.0 / (top * (1.0 - fy) + bottom * fy)
}

/// Screen displacement (px) of a surface point seen along `v` (eye → point), with unit normal
/// `n`, when the distance along the ray changes by `delta` (pop.rs header).
fn pop_px(delta: f64, v: DVec3, n: DVec3, pa: f64) -> f64 {
    let e = v.length();
    let c = (v / e).dot(n);
    delta.abs() * c.abs() * (1.0 - c * c).max(0.0).sqrt() / (e * pa)
}

/// The surface's unit normal at pixel `i` of `cam`'s distances `d`, from the points of its four
/// neighbours (facing the camera), or None beside sky or at the border.
fn normal_at(cam: &ViewCamera, d: &[Option<f64>], i: usize) -> Option<DVec3> {
    let w = cam.width as usize;
    let (x, y) = (i % w, i / w);
    if x == 0 || y == 0 || x + 1 >= w || y + 1 >= cam.height as usize {
        return None;
    }
    let point = |j: usize| {
        let (px, py) = ((j % w) as f64 + 0.5, (j / w) as f64 + 0.5);
        d[j].map(|t| engine::reference::pixel_ray(cam, px, py) * t)
    };
    let (l, r, u, b) = (point(i - 1)?, point(i + 1)?, point(i - w)?, point(i + w)?);
    let n = (r - l).cross(b - u).normalize();
    if !n.is_finite() {
        return None;
    }
    let toward = -(l + r + u + b);
    Some(if n.dot(toward) < 0.0 { -n } else { n })
}

/// The smallest pop that explains P by one of the current pixels `quad` around its position
/// `q` (index space): P seen inside that pixel's footprint, off the pixel's own sample by the
/// along-ray change there, plus how far q lies outside the footprint. Where a depth step too
/// small for [`EDGE_TAU`] crosses the quad (ground a few metres behind a rock's outline), the
/// 1/distance interpolated across it belongs to no surface: a ground point that the rock now
/// hides, or that is still seen beside it, reads as a jump of metres, and the hiding point
/// taken at that interpolated distance hangs in mid-air, so parallax occlusion counts tens of
/// pixels (`parallax_behind_a_rocks_low_outline_is_no_pop`). A surface that did change
/// changes at every corner, so this lowers its pop by at most the half pixel to a footprint.
#[allow(clippy::too_many_arguments)]
fn pop_at_corners(
    cam: &ViewCamera,
    cur: &[Option<f64>],
    quad: [usize; 4],
    (qx, qy): (f64, f64),
    v: DVec3,
    n: DVec3,
    pa: f64,
) -> f64 {
    let w = cam.width as usize;
    let outside = |a: f64| (a.abs() - 0.5).max(0.0);
    let mut best = f64::INFINITY;
    for j in quad {
        let Some(d) = cur[j] else { continue };
        let (cx, cy) = ((j % w) as f64, (j / w) as f64);
        let off = outside(qx - cx).hypot(outside(qy - cy));
        let ray = engine::reference::pixel_ray(cam, cx + 0.5, cy + 0.5);
        best = best.min(off + pop_px(d - v.dot(ray), v, n, pa));
    }
    best
}

/// How far from P's reprojection, px, [`contour_px`] looks for where P's distance is drawn.
pub const CONTOUR_RADIUS_PX: f64 = 8.0;

/// Screen distance, px, from `q` (index space) to the nearest place within
/// [`CONTOUR_RADIUS_PX`] where the distances `cur` seen by `cam` cross `e`: between two surface
/// 4-neighbours whose 1/distance lies on either side of 1/e, linearly in 1/distance; infinity
/// where there is none. When the surface that held P is still drawn but its outline moved —
/// a crest that the ray now passes over to the ground behind — P's distance is drawn again
/// that far away: the outline's move, which is what the image shows, while the ray's jump to
/// the ground behind reads as metres of height at a grazing crest (docs/bench.md "Outlines keep
/// the finest cap": 160 px for an outline 4 rows off).
fn contour_px(cam: &ViewCamera, cur: &[Option<f64>], (qx, qy): (f64, f64), e: f64) -> f64 {
    let (w, h) = (cam.width as i64, cam.height as i64);
    let r = CONTOUR_RADIUS_PX;
    let inv_e = 1.0 / e;
    let at = |x: i64, y: i64| -> Option<f64> {
        if x < 0 || y < 0 || x >= w || y >= h {
            return None;
        }
        cur[(y * w + x) as usize].map(|d| 1.0 / d.max(1e-9) - inv_e)
    };
    let mut best = f64::INFINITY;
    let (x0, x1) = ((qx - r).floor() as i64, (qx + r).ceil() as i64);
    let (y0, y1) = ((qy - r).floor() as i64, (qy + r).ceil() as i64);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let Some(a) = at(x, y) else { continue };
            for (dx, dy) in [(1, 0), (0, 1)] {
                let Some(b) = at(x + dx, y + dy) else {
                    continue;
                };
                if a * b > 0.0 || a == b {
                    continue;
                }
                let s = a / (a - b);
                let (cx, cy) = (x as f64 + s * dx as f64, y as f64 + s * dy as f64);
                best = best.min((cx - qx).hypot(cy - qy));
            }
        }
    }
    if best <= r {
        best
    } else {
        f64::INFINITY
    }
}

/// The comparison over `rows` (pop.rs header). Forward: each previous surface point away from
/// edges, found again in the current frame (pop) or gone to sky (coverage). Reverse: each
/// current surface point away from edges that the previous frame saw as sky (coverage) — the
/// forward pass cannot see that, as sky has no depth to reproject.
#[allow(clippy::too_many_arguments)]
fn compare_rows(
    rows: std::ops::Range<usize>,
    prev_cam: &ViewCamera,
    prev: &[Option<f64>],
    pe: &[bool],
    cur_cam: &ViewCamera,
    cur: &[Option<f64>],
    ce: &[bool],
    pa: f64,
) -> Rows {
    let w = cur_cam.width as usize;
    let mut out = Rows {
        map: vec![MAP_EXCLUDED; rows.len() * w],
        ..Rows::default()
    };
    let y0 = rows.start;
    for y in rows {
        for x in 1..w.saturating_sub(1) {
            let i = y * w + x;
            let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
            // Reverse: surface now where the previous frame, away from its edges, saw sky.
            if let (Some(d), false) = (cur[i], ce[i]) {
                let p = cur_cam.eye + engine::reference::pixel_ray(cur_cam, px, py) * d;
                if let Some((quad, fx, fy)) = quad_at(prev_cam, p - prev_cam.eye) {
                    if quad.iter().all(|&j| prev[j].is_none()) {
                        out.counts.coverage_changed += 1;
                        let near = quad[(fx > 0.5) as usize + 2 * (fy > 0.5) as usize];
                        out.appeared.push(near);
                    }
                }
            }
            let m = &mut out.map[(y - y0) * w + x];
            let Some(d) = prev[i] else {
                *m = MAP_SKY;
                continue;
            };
            if pe[i] {
                out.counts.excluded += 1;
                continue;
            }
            let p = prev_cam.eye + engine::reference::pixel_ray(prev_cam, px, py) * d;
            let v = p - cur_cam.eye;
            let Some((quad, fx, fy)) = quad_at(cur_cam, v) else {
                out.counts.excluded += 1;
                continue;
            };
            let (qx, qy) = ((quad[0] % w) as f64 + fx, (quad[0] / w) as f64 + fy);
            if quad.iter().all(|&j| cur[j].is_none()) {
                // A surface point away from any edge now shows sky.
                out.counts.coverage_changed += 1;
                *m = MAP_COVERAGE;
                continue;
            }
            if !quad.iter().all(|&j| cur[j].is_some() && !ce[j]) {
                out.counts.excluded += 1;
                continue;
            }
            let d_now = lerp_distance(cur, quad, fx, fy);
            let e = v.length();
            let delta = d_now - e;
            let normal = |cam: &ViewCamera, d: &[Option<f64>], j: usize, at: DVec3| {
                normal_at(cam, d, j).unwrap_or_else(|| at.normalize())
            };
            let n = normal(prev_cam, prev, i, p);
            let mut pop = pop_px(delta, v, n, pa);
            if pop > 0.5 {
                pop = pop.min(pop_at_corners(cur_cam, cur, quad, (qx, qy), v, n, pa));
            }
            if delta < 0.0 {
                // Something nearer hides P now. Parallax occlusion if that surface point Q was
                // already there in the previous frame: its own change against the previous
                // frame is small. A surface that rose is new in both P's and Q's measure.
                let q =
                    cur_cam.eye + engine::reference::pixel_ray(cur_cam, qx + 0.5, qy + 0.5) * d_now;
                let vq = q - prev_cam.eye;
                match quad_at(prev_cam, vq) {
                    Some((pq, gx, gy)) if pq.iter().all(|&j| prev[j].is_some() && !pe[j]) => {
                        let dq = lerp_distance(prev, pq, gx, gy) - vq.length();
                        let near = pq[(gx > 0.5) as usize + 2 * (gy > 0.5) as usize];
                        pop = pop.min(pop_px(dq, vq, normal(prev_cam, prev, near, q), pa));
                        if pop > 1.0 {
                            // Q is new. Was its distance drawn near P before? Then an
                            // occluder's outline moved over P (a crest drawn higher), by
                            // about that far; a surface new in the frame was drawn nowhere.
                            let (x, y) = (x as f64, y as f64);
                            pop = pop.min(contour_px(prev_cam, prev, (x, y), vq.length()));
                        }
                    }
                    _ => {
                        // Q sits on an edge of the previous frame: an occluder's rim.
                        out.counts.excluded += 1;
                        continue;
                    }
                }
            }
            if delta > 0.0 && pop > 1.0 {
                // P gone with nothing nearer in front: where is its distance drawn now?
                pop = pop.min(contour_px(cur_cam, cur, (qx, qy), e));
            }
            *m = pop as f32;
            out.pops.push(pop);
            out.rels.push(delta.abs() / e);
        }
    }
    out
}

#[cfg(test)]
#[path = "pop_tests.rs"]
mod tests;
