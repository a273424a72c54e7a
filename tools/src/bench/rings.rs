//! Level rings (HORIZ-01): where the level the renderer chose changes between two vertically
//! neighbouring pixels, the blended surface must not step. From the rendered frame alone
//! (distance, level and shading normal per pixel: `shade.aov`), independent of the shader
//! code: along every image column, each pair of neighbouring rows (y, y+1) gets
//! - a depth step: the pair's change of 1/distance minus the mean change of the pairs on
//!   either side, J = Δg(y) − ½(Δg(y−1) + Δg(y+1)), g = 1/t — zero for any g quadratic in the
//!   row (a plane is linear: 1/depth is linear in screen y; the planet's curvature adds a
//!   smooth term) — over the mean change of its neighbours, so in pixels: how far the surface's
//!   image moves at the pair (a height step dh at distance t moves it by dh/(t·pixel angle));
//! - a normal step: the same stencil on the unit normal, |K| in degrees.
//!
//! A pair whose two levels differ is a ring pair. Which pairs a ring picks is not random: the
//! distance must cross the ring's between them, and a large jump of distance (the silhouette
//! of a rock against ground farther away) crosses more often than a small one, so on rough
//! ground ring pairs gather silhouettes. The surface's own variation is therefore measured on
//! pairs picked the same way where there is no ring: control pairs, with one level, whose
//! distance crosses lc = k ± ¼, ½ or ¾ (lc the design's continuous level of a distance, the
//! ring between levels k and k+1 at lc = k), both kinds only where the pair's distances lie
//! within `MATCHED_SPAN` levels of each other. The blend is continuous when the largest ring
//! step is no larger than the largest control step within a level of it. (Where ring and
//! control steps are alike, the ring's max exceeds the controls' with probability
//! n_ring / (n_ring + n_control), about 1/7 with six crossings per ring: a ratio just over 1
//! is noise; a step shows as a ratio of several.)

use super::stats::quantile;
use serde::{Deserialize, Serialize};

/// Pairs whose distances differ by this many levels (lc) or more are left out of the step
/// comparison, rings and controls alike: under a quarter level a pair crosses at most one
/// quarter point, so ring and control pairs are picked the same way whatever their jump (a
/// longer pair crosses an integer lc — a ring — more often than a quarter point without one).
/// Over flat ground seen from height h a quarter level is a height step of 0.19·h; the share
/// of large pairs at the ring against its controls' shows a step beyond that.
pub const MATCHED_SPAN: f64 = 0.25;

/// One pixel as the metric reads it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    /// Distance along the ray, m; `None` where no terrain.
    pub dist: Option<f64>,
    /// Level the renderer chose.
    pub level: i32,
    /// Unit shading normal.
    pub normal: [f64; 3],
}

/// The steps of one pair of levels across the image.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Ring {
    /// The coarser and the finer level.
    pub coarse: i32,
    pub fine: i32,
    /// Ring pairs found (one per column where the ring is crossed once), and those whose two
    /// distances differ by `MATCHED_SPAN` levels or more (left out of the steps below).
    pub pairs: usize,
    pub large_pairs: usize,
    /// Share of large pairs among the ring's, and among all pairs crossing its control
    /// points (a step at the ring too large to be matched shows as an excess here).
    pub large_share: f64,
    pub control_large_share: f64,
    /// Where the ring is: per image column, the row between the pair (y + 0.5; the first
    /// crossing from the top), `None` where the column does not cross it.
    pub rows: Vec<Option<f32>>,
    pub row_min: f32,
    pub row_median: f32,
    pub row_max: f32,
    /// Depth step of the ring pairs under `MATCHED_SPAN`, px.
    pub depth_px: Steps,
    /// Normal step of the ring pairs, degrees.
    pub normal_deg: Steps,
    /// The same of the control pairs: no level change, under `MATCHED_SPAN`, crossing a
    /// quarter-level distance (lc = k ± ¼, ½, ¾) within a level of the ring on either side.
    pub control_pairs: usize,
    pub control_depth_px: Steps,
    pub control_normal_deg: Steps,
    /// Ring max over control max, depth and normal (≤ 1: within the surface's own variation).
    pub depth_ratio: f64,
    pub normal_ratio: f64,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Steps {
    pub median: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

impl Steps {
    fn of(v: &[f64]) -> Steps {
        Steps {
            median: quantile(v, 0.5),
            p95: quantile(v, 0.95),
            p99: quantile(v, 0.99),
            max: v.iter().copied().fold(0.0, f64::max),
        }
    }
}

/// A view's rings, finest first.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Rings {
    pub rings: Vec<Ring>,
    /// The largest ring/control ratio over all rings, depth and normal.
    pub worst_depth_ratio: f64,
    pub worst_normal_ratio: f64,
}

impl Rings {
    /// Every ring's largest step within the surface's own largest step across its controls.
    pub fn continuous(&self) -> bool {
        self.worst_depth_ratio <= 1.0 && self.worst_normal_ratio <= 1.0
    }
}

/// The metric's view of `shade.aov`.
pub fn samples(aov: &[engine::shade::AovPixel]) -> Vec<Sample> {
    aov.iter()
        .map(|p| Sample {
            dist: p.is_terrain().then_some(p.dist as f64),
            level: p.level as i32,
            normal: p.normal.map(|c| c as f64),
        })
        .collect()
}

/// The steps of pair (y, y+1) in column `x`, or `None` unless rows y−1 … y+2 are terrain.
fn pair_steps(px: &[Sample], w: usize, x: usize, y: usize) -> Option<(f64, f64)> {
    if y == 0 {
        return None;
    }
    let at = |r: usize| px[r * w + x];
    let rows = [at(y - 1), at(y), at(y + 1), at(y + 2)];
    let mut g = [0.0; 4];
    for (k, s) in rows.iter().enumerate() {
        g[k] = 1.0 / s.dist.filter(|t| *t > 0.0 && t.is_finite())?;
    }
    let d = [g[1] - g[0], g[2] - g[1], g[3] - g[2]];
    let around = 0.5 * (d[0] + d[2]);
    let j = d[1] - around;
    // A pair whose neighbours do not change (a wall facing the camera, a crest) has no scale
    // to measure a step against: its step is that of the whole row.
    let depth_px = if around.abs() > 0.0 {
        (j / around).abs()
    } else {
        j.abs() / d[1].abs().max(f64::MIN_POSITIVE)
    };
    let n = |k: usize| rows[k].normal;
    let mut k2 = 0.0;
    for c in 0..3 {
        let dn = [n(1)[c] - n(0)[c], n(2)[c] - n(1)[c], n(3)[c] - n(2)[c]];
        let kc = dn[1] - 0.5 * (dn[0] + dn[2]);
        k2 += kc * kc;
    }
    Some((depth_px, k2.sqrt().to_degrees()))
}

/// The rings of a `w`×`h` frame (row-major, y down); `lod` is the design's continuous level
/// for a ray distance (TERRAIN.md §2: lc = log2(texel0 / (t·pixel angle)); a ring between
/// levels L and L+1 lies at lc = L), used only to place the control crossings.
pub fn measure(px: &[Sample], w: usize, h: usize, lod: &dyn Fn(f64) -> f64) -> Rings {
    assert_eq!(px.len(), w * h, "{w}×{h} frame");
    struct Acc {
        rows: Vec<Option<f32>>,
        depth: Vec<f64>,
        normal: Vec<f64>,
        large: usize,
    }
    let mut rings: Vec<((i32, i32), Acc)> = Vec::new();
    // Pairs without a level change, each with the control crossings (quarter lods, in
    // quarters) between its two pixels.
    let mut controls: Vec<(i32, f64, f64)> = Vec::new();
    // Every pair crossing a non-integer quarter point (ring or not): (q, large).
    let mut crossings: Vec<(i32, bool)> = Vec::new();
    for x in 0..w {
        for y in 1..h.saturating_sub(2) {
            let Some((dp, nd)) = pair_steps(px, w, x, y) else {
                continue;
            };
            let at = |r: usize| px[r * w + x];
            let (a, b) = (at(y), at(y + 1));
            let (la, lb) = (lod(a.dist.unwrap_or(0.0)), lod(b.dist.unwrap_or(0.0)));
            let (lo, hi) = (la.min(lb), la.max(lb));
            let large = hi - lo >= MATCHED_SPAN;
            // Quarter points q/4 with lo < q/4 ≤ hi, integers (ring lods) left out.
            let quarters = ((4.0 * lo).floor() as i32 + 1..=(4.0 * hi).floor() as i32)
                .filter(|q| q.rem_euclid(4) != 0);
            crossings.extend(quarters.clone().map(|q| (q, large)));
            if a.level != b.level {
                let key = (a.level.min(b.level), a.level.max(b.level));
                let i = match rings.iter().position(|r| r.0 == key) {
                    Some(i) => i,
                    None => {
                        let acc = Acc {
                            rows: vec![None; w],
                            depth: Vec::new(),
                            normal: Vec::new(),
                            large: 0,
                        };
                        rings.push((key, acc));
                        rings.len() - 1
                    }
                };
                let acc = &mut rings[i].1;
                acc.rows[x].get_or_insert(y as f32 + 0.5);
                if large {
                    acc.large += 1;
                } else {
                    acc.depth.push(dp);
                    acc.normal.push(nd);
                }
            } else if !large {
                controls.extend(quarters.map(|q| (q, dp, nd)));
            }
        }
    }
    rings.sort_by_key(|r| std::cmp::Reverse(r.0 .1));
    let mut out = Rings::default();
    for ((coarse, fine), acc) in rings {
        // Crossings within a level of the ring on either side: lc in (coarse − 1, fine).
        let (qlo, qhi) = (4 * (coarse - 1), 4 * fine);
        let (mut cd, mut cn) = (Vec::new(), Vec::new());
        for c in controls.iter().filter(|c| qlo < c.0 && c.0 < qhi) {
            cd.push(c.1);
            cn.push(c.2);
        }
        let near: Vec<bool> = crossings
            .iter()
            .filter(|c| qlo < c.0 && c.0 < qhi)
            .map(|c| c.1)
            .collect();
        let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
        let rows: Vec<f64> = acc.rows.iter().flatten().map(|r| *r as f64).collect();
        let (depth_px, normal_deg) = (Steps::of(&acc.depth), Steps::of(&acc.normal));
        let (control_depth_px, control_normal_deg) = (Steps::of(&cd), Steps::of(&cn));
        let ratio = |r: f64, a: f64| {
            if r == 0.0 {
                0.0
            } else if a > 0.0 {
                r / a
            } else {
                f64::INFINITY
            }
        };
        let ring = Ring {
            coarse,
            fine,
            pairs: acc.depth.len() + acc.large,
            large_pairs: acc.large,
            large_share: share(acc.large, acc.depth.len() + acc.large),
            control_large_share: share(near.iter().filter(|l| **l).count(), near.len()),
            row_min: rows.iter().copied().fold(f64::INFINITY, f64::min) as f32,
            row_median: quantile(&rows, 0.5) as f32,
            row_max: rows.iter().copied().fold(0.0, f64::max) as f32,
            rows: acc.rows,
            depth_ratio: ratio(depth_px.max, control_depth_px.max),
            normal_ratio: ratio(normal_deg.max, control_normal_deg.max),
            depth_px,
            normal_deg,
            control_pairs: cd.len(),
            control_depth_px,
            control_normal_deg,
        };
        out.worst_depth_ratio = out.worst_depth_ratio.max(ring.depth_ratio);
        out.worst_normal_ratio = out.worst_normal_ratio.max(ring.normal_ratio);
        out.rings.push(ring);
    }
    out
}

/// RGBA8 `color` with every ring pair marked: the lower pixel of the pair drawn in a colour
/// per ring (red for the finest, then orange, yellow, green, cyan, blue, magenta, white).
pub fn mark(color: &[u8], w: usize, h: usize, px: &[Sample]) -> Vec<u8> {
    const COLOURS: [[u8; 3]; 8] = [
        [255, 0, 0],
        [255, 128, 0],
        [255, 255, 0],
        [0, 255, 0],
        [0, 255, 255],
        [0, 64, 255],
        [255, 0, 255],
        [255, 255, 255],
    ];
    let mut img = color.to_vec();
    img.resize(w * h * 4, 0);
    for x in 0..w {
        for y in 0..h.saturating_sub(1) {
            let (a, b) = (px[y * w + x], px[(y + 1) * w + x]);
            if a.dist.is_none() || b.dist.is_none() || a.level == b.level {
                continue;
            }
            let fine = a.level.max(b.level);
            let c = COLOURS[(18 - fine).clamp(0, 7) as usize];
            img[((y + 1) * w + x) * 4..][..4].copy_from_slice(&[c[0], c[1], c[2], 255]);
        }
    }
    img
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2 m over a flat plane, looking at the horizon: 1/t = sin(angle below the horizon)/2,
    /// rows of 0.2° from the top; the level is 20 − ⌊log2(t)⌋ (rings at t = 2^k m), each
    /// level's height raised by `step(level)` m, a ripple of `rough` m on the height and a
    /// tilt of the normal with it (1 mrad at the ripple's crest), plus `tilt(level)` radians.
    fn surface(
        w: usize,
        h: usize,
        step: impl Fn(i32) -> f64,
        rough: f64,
        tilt: impl Fn(i32) -> f64,
    ) -> Vec<Sample> {
        let mut px = vec![Sample::default(); w * h];
        for y in 0..h {
            for x in 0..w {
                let below = (y as f64 + 0.5) * 0.2f64.to_radians();
                let t0 = 2.0 / below.sin();
                let level = 20 - t0.log2().floor() as i32;
                let phase = ((x * 7 + y * 13) as f64 * 0.9).sin();
                // A height dh raises the ground: the ray meets it at t·(2 − dh)/2.
                let dh = step(level) + rough * phase;
                let t = t0 * (2.0 - dh) / 2.0;
                let a = tilt(level) + if rough > 0.0 { 1e-3 * phase } else { 0.0 };
                px[y * w + x] = Sample {
                    dist: (y > 0).then_some(t),
                    level,
                    normal: [a.sin(), 0.0, a.cos()],
                };
            }
        }
        px
    }

    fn plane(w: usize, h: usize, step: impl Fn(i32) -> f64, rough: f64) -> Vec<Sample> {
        surface(w, h, step, rough, |_| 0.0)
    }

    /// The plane's levels: L = ⌈lc⌉ with lc = 20 − log2(t).
    fn lod(t: f64) -> f64 {
        20.0 - t.log2()
    }

    fn rings_of(px: &[Sample]) -> Rings {
        measure(px, 8, 400, &lod)
    }

    #[test]
    fn a_smooth_surface_has_rings_without_steps() {
        let r = rings_of(&plane(8, 400, |_| 0.0, 0.0));
        assert!(r.rings.len() >= 4, "{r:?}");
        for ring in &r.rings {
            assert_eq!(ring.fine, ring.coarse + 1);
            assert_eq!(ring.pairs, 8, "one pair per column");
            assert!(ring.depth_px.max < 1e-3, "{ring:?}");
            assert!(ring.normal_deg.max < 1e-9, "{ring:?}");
        }
        // Rings at t = 2^k m lie at sin(angle) = 2/2^k: rows of 0.2° from the top.
        let ring = r.rings.iter().find(|g| g.fine == 15).unwrap();
        let want = (2.0f64 / 64.0).asin().to_degrees() / 0.2;
        assert!(
            (ring.row_median as f64 - want).abs() < 1.0,
            "{ring:?} {want}"
        );
        assert!(ring.rows.iter().all(|r| r.is_some()));
    }

    #[test]
    fn a_rough_surface_without_steps_stays_near_its_controls() {
        let r = rings_of(&plane(8, 400, |_| 0.0, 0.01));
        // Max against max of alike steps: near 1 either side (module doc), far below a step's.
        assert!(r.worst_depth_ratio < 1.5, "{r:?}");
        assert!(r.worst_normal_ratio < 1.5, "{r:?}");
        assert!(r
            .rings
            .iter()
            .all(|g| g.control_depth_px.max > 0.0 && g.control_pairs >= g.pairs));
    }

    #[test]
    fn a_height_step_at_a_ring_is_found() {
        // 5 cm between levels, against 1 cm of ripple.
        let r = rings_of(&plane(8, 400, |l| 0.05 * (l % 2) as f64, 0.01));
        assert!(!r.continuous(), "{r:?}");
        assert!(r.worst_depth_ratio > 2.0, "{r:?}");
        // On a smooth surface the same step stands out by orders of magnitude.
        let r = rings_of(&plane(8, 400, |l| 0.05 * (l % 2) as f64, 0.0));
        let matched: Vec<&Ring> = r.rings.iter().filter(|g| g.pairs > g.large_pairs).collect();
        assert!(matched.len() >= 4, "{r:?}");
        assert!(matched.iter().all(|g| g.depth_px.max > 1e-3), "{r:?}");
        assert!(r.worst_depth_ratio > 1e3, "{r:?}");
    }

    #[test]
    fn a_step_too_large_to_match_shows_in_the_large_share() {
        // 0.6 m between levels from 2 m: the distance jumps 30 %, over a quarter level.
        let r = rings_of(&plane(8, 400, |l| 0.6 * (l % 2) as f64, 0.0));
        let g = r.rings.iter().find(|g| g.fine == 17).unwrap();
        assert_eq!(g.large_pairs, g.pairs, "{g:?}");
        assert!(g.large_share > 2.0 * g.control_large_share, "{g:?}");
        // Without the step the ring's share is its controls'.
        let r = rings_of(&plane(8, 400, |_| 0.0, 0.0));
        let g = r.rings.iter().find(|g| g.fine == 17).unwrap();
        assert_eq!((g.large_share, g.control_large_share), (0.0, 0.0), "{g:?}");
    }

    #[test]
    fn a_normal_step_at_a_ring_is_found() {
        let two = 2f64.to_radians();
        let r = rings_of(&surface(8, 400, |_| 0.0, 0.01, |l| two * (l % 2) as f64));
        assert!(!r.continuous(), "{r:?}");
        assert!(r.worst_normal_ratio > 3.0, "{r:?}");
        for ring in r.rings.iter().filter(|g| g.pairs > g.large_pairs) {
            assert!((ring.normal_deg.max - 2.0).abs() < 0.5, "{ring:?}");
        }
    }

    #[test]
    fn pairs_next_to_sky_are_not_measured() {
        let mut px = plane(1, 10, |_| 0.0, 0.0);
        px[5].dist = None;
        let r = measure(&px, 1, 10, &lod);
        assert!(r.rings.is_empty() || r.rings.iter().all(|g| g.pairs <= 1));
    }
}
