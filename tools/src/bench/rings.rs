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
//! A pair whose two levels differ is a ring pair; a pair whose four stencil rows share one
//! level is away from rings. Each ring (a pair of levels) is compared with the pairs away from
//! rings at its two levels, widened to the next finer levels (then coarser) until there are
//! `AWAY_PER_RING` times as many as ring pairs — near the horizon a level spans too few rows
//! to hold a stencil, and a larger sample keeps a step-free ring from failing by chance (its
//! max exceeds the away max with probability 1/(1 + AWAY_PER_RING) where ring and away steps
//! are alike). The blend is continuous when the largest ring step is no larger than the
//! largest step of the surface's own between neighbouring pixels there.

use super::stats::quantile;
use serde::{Deserialize, Serialize};

/// Away pairs wanted per ring pair (see the module's doc).
pub const AWAY_PER_RING: usize = 8;

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
    /// Ring pairs found (one per column where the ring is crossed once).
    pub pairs: usize,
    /// Where the ring is: per image column, the row between the pair (y + 0.5; the first
    /// crossing from the top), `None` where the column does not cross it.
    pub rows: Vec<Option<f32>>,
    pub row_min: f32,
    pub row_median: f32,
    pub row_max: f32,
    /// Depth step of the ring pairs, px.
    pub depth_px: Steps,
    /// Normal step of the ring pairs, degrees.
    pub normal_deg: Steps,
    /// The same of the pairs away from rings at levels `away_levels` (inclusive).
    pub away_levels: (i32, i32),
    pub away_pairs: usize,
    pub away_depth_px: Steps,
    pub away_normal_deg: Steps,
    /// Ring max over away max, depth and normal (≤ 1: within the surface's own variation).
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
    /// The largest ring/away ratio over all rings, depth and normal.
    pub worst_depth_ratio: f64,
    pub worst_normal_ratio: f64,
}

impl Rings {
    /// Every ring's largest step within the surface's own largest step away from rings.
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

/// The rings of a `w`×`h` frame (row-major, y down).
pub fn measure(px: &[Sample], w: usize, h: usize) -> Rings {
    assert_eq!(px.len(), w * h, "{w}×{h} frame");
    struct Acc {
        rows: Vec<Option<f32>>,
        depth: Vec<f64>,
        normal: Vec<f64>,
    }
    let mut rings: Vec<((i32, i32), Acc)> = Vec::new();
    // Away from rings, per level.
    let mut away: Vec<(i32, Vec<f64>, Vec<f64>)> = Vec::new();
    for x in 0..w {
        for y in 1..h.saturating_sub(2) {
            let Some((dp, nd)) = pair_steps(px, w, x, y) else {
                continue;
            };
            let lv = |r: usize| px[r * w + x].level;
            let (a, b) = (lv(y), lv(y + 1));
            if a != b {
                let key = (a.min(b), a.max(b));
                let i = match rings.iter().position(|r| r.0 == key) {
                    Some(i) => i,
                    None => {
                        let acc = Acc {
                            rows: vec![None; w],
                            depth: Vec::new(),
                            normal: Vec::new(),
                        };
                        rings.push((key, acc));
                        rings.len() - 1
                    }
                };
                let acc = &mut rings[i].1;
                acc.rows[x].get_or_insert(y as f32 + 0.5);
                acc.depth.push(dp);
                acc.normal.push(nd);
            } else if lv(y - 1) == a && lv(y + 2) == a {
                match away.iter_mut().find(|e| e.0 == a) {
                    Some(e) => {
                        e.1.push(dp);
                        e.2.push(nd);
                    }
                    None => away.push((a, vec![dp], vec![nd])),
                }
            }
        }
    }
    rings.sort_by_key(|r| std::cmp::Reverse(r.0 .1));
    let mut out = Rings::default();
    for ((coarse, fine), acc) in rings {
        let want = AWAY_PER_RING * acc.depth.len();
        let count = |lo: i32, hi: i32| -> usize {
            away.iter()
                .filter(|e| (lo..=hi).contains(&e.0))
                .map(|e| e.1.len())
                .sum()
        };
        let (finest, coarsest) = away
            .iter()
            .fold((fine, coarse), |(f, c), e| (f.max(e.0), c.min(e.0)));
        let (mut lo, mut hi) = (coarse, fine);
        while count(lo, hi) < want && (hi < finest || lo > coarsest) {
            if hi < finest {
                hi += 1;
            } else {
                lo -= 1;
            }
        }
        let (mut ad, mut an) = (Vec::new(), Vec::new());
        for e in away.iter().filter(|e| (lo..=hi).contains(&e.0)) {
            ad.extend_from_slice(&e.1);
            an.extend_from_slice(&e.2);
        }
        let rows: Vec<f64> = acc.rows.iter().flatten().map(|r| *r as f64).collect();
        let (depth_px, normal_deg) = (Steps::of(&acc.depth), Steps::of(&acc.normal));
        let (away_depth_px, away_normal_deg) = (Steps::of(&ad), Steps::of(&an));
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
            pairs: acc.depth.len(),
            row_min: rows.iter().copied().fold(f64::INFINITY, f64::min) as f32,
            row_median: quantile(&rows, 0.5) as f32,
            row_max: rows.iter().copied().fold(0.0, f64::max) as f32,
            rows: acc.rows,
            depth_ratio: ratio(depth_px.max, away_depth_px.max),
            normal_ratio: ratio(normal_deg.max, away_normal_deg.max),
            depth_px,
            normal_deg,
            away_levels: (lo, hi),
            away_pairs: ad.len(),
            away_depth_px,
            away_normal_deg,
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

    fn rings_of(px: &[Sample]) -> Rings {
        measure(px, 8, 400)
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
    fn a_rough_surface_without_steps_is_continuous() {
        let r = rings_of(&plane(8, 400, |_| 0.0, 0.01));
        assert!(r.continuous(), "{r:?}");
        assert!(r.rings.iter().all(|g| g.away_depth_px.max > 0.0));
    }

    #[test]
    fn a_height_step_at_a_ring_is_found() {
        // 5 cm between levels, against 1 cm of ripple.
        let r = rings_of(&plane(8, 400, |l| 0.05 * (l % 2) as f64, 0.01));
        assert!(!r.continuous(), "{r:?}");
        assert!(r.worst_depth_ratio > 2.0, "{r:?}");
        // On a smooth surface the same step stands out by orders of magnitude.
        let r = rings_of(&plane(8, 400, |l| 0.05 * (l % 2) as f64, 0.0));
        assert!(r.rings.iter().all(|g| g.depth_px.max > 1e-3), "{r:?}");
        assert!(r.worst_depth_ratio > 1e3, "{r:?}");
    }

    #[test]
    fn a_normal_step_at_a_ring_is_found() {
        let two = 2f64.to_radians();
        let r = rings_of(&surface(8, 400, |_| 0.0, 0.01, |l| two * (l % 2) as f64));
        assert!(!r.continuous(), "{r:?}");
        assert!(r.worst_normal_ratio > 3.0, "{r:?}");
        for ring in &r.rings {
            assert!((ring.normal_deg.max - 2.0).abs() < 0.5, "{ring:?}");
        }
    }

    #[test]
    fn pairs_next_to_sky_are_not_measured() {
        let mut px = plane(1, 10, |_| 0.0, 0.0);
        px[5].dist = None;
        let r = measure(&px, 1, 10);
        assert!(r.rings.is_empty() || r.rings.iter().all(|g| g.pairs <= 1));
    }
}
