//! Scoring a rendered view against the reference ray cast (TERRAIN.md §7b, after the published
//! six-method terrain comparison): see-through, covers-sky, depth error where both see terrain,
//! silhouette displacement in pixels, and coherence.

use crate::reference::RefPixel;

/// Per-view accuracy numbers. Fractions are of all pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Score {
    pub pixels: usize,
    /// Reference terrain drawn as background.
    pub see_through: f64,
    /// Reference background drawn as terrain.
    pub covers_sky: f64,
    /// |d − d_ref| / d_ref where both see terrain: median and 95th percentile.
    pub depth_rel_median: f64,
    pub depth_rel_p95: f64,
    /// Distance (px) from each mismatched terrain/sky pixel to the nearest reference silhouette
    /// pixel: median and 95th percentile (0 when nothing mismatches).
    pub silhouette_px_median: f64,
    pub silhouette_px_p95: f64,
    /// Pixels whose depth disagrees with their 3×3 neighbourhood beyond the reference's own.
    pub incoherent: f64,
    /// NaN/Inf distances in the rendered image.
    pub non_finite: usize,
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() - 1) as f64 * p).round() as usize;
    v[i]
}

/// Relative deviation of pixel (x, y) from the median of its 3×3 neighbourhood (terrain only).
fn deviation(d: &[Option<f64>], w: usize, h: usize, x: usize, y: usize) -> Option<f64> {
    let c = d[y * w + x]?;
    let mut n: Vec<f64> = Vec::with_capacity(9);
    for yy in y.saturating_sub(1)..=(y + 1).min(h - 1) {
        for xx in x.saturating_sub(1)..=(x + 1).min(w - 1) {
            if let Some(v) = d[yy * w + xx] {
                n.push(v);
            }
        }
    }
    let m = percentile(&mut n, 0.5);
    Some((c - m).abs() / c.max(1e-6))
}

/// Score `gpu` (distance per pixel, None = background) against `reference`, both row-major
/// `w`×`h`.
pub fn score(gpu: &[Option<f64>], reference: &[RefPixel], w: usize, h: usize) -> Score {
    assert_eq!(gpu.len(), w * h);
    assert_eq!(reference.len(), w * h);
    let n = w * h;
    let non_finite = gpu.iter().flatten().filter(|d| !d.is_finite()).count();
    let gpu: Vec<Option<f64>> = gpu.iter().map(|d| d.filter(|v| v.is_finite())).collect();
    let (mut see, mut covers) = (0usize, 0usize);
    let mut rel = Vec::new();
    let mut mismatched = Vec::new();
    for i in 0..n {
        match (gpu[i], reference[i]) {
            (None, Some(_)) => {
                see += 1;
                mismatched.push(i);
            }
            (Some(_), None) => {
                covers += 1;
                mismatched.push(i);
            }
            (Some(g), Some(r)) => rel.push((g - r).abs() / r.max(1e-6)),
            (None, None) => {}
        }
    }
    // Reference silhouette: terrain pixels with a background 4-neighbour (or vice versa).
    let is_t = |i: usize| reference[i].is_some();
    let mut sil = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let edge = [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)]
                .iter()
                .any(|&(dx, dy)| {
                    let (xx, yy) = (x as i64 + dx, y as i64 + dy);
                    xx >= 0
                        && yy >= 0
                        && (xx as usize) < w
                        && (yy as usize) < h
                        && is_t(yy as usize * w + xx as usize) != is_t(i)
                });
            if edge {
                sil.push((x as f64, y as f64));
            }
        }
    }
    let mut disp: Vec<f64> = mismatched
        .iter()
        .map(|&i| {
            let (x, y) = ((i % w) as f64, (i / w) as f64);
            sil.iter()
                .map(|&(sx, sy)| ((sx - x).powi(2) + (sy - y).powi(2)).sqrt())
                .fold(f64::INFINITY, f64::min)
        })
        .map(|d| if d.is_finite() { d } else { (w + h) as f64 })
        .collect();
    let mut incoherent = 0usize;
    for y in 0..h {
        for x in 0..w {
            if let Some(dg) = deviation(&gpu, w, h, x, y) {
                let dr = deviation(reference, w, h, x, y).unwrap_or(0.0);
                // Beyond the reference's own roughness, with a 1 % floor for f32 depth noise.
                if dg > 2.0 * dr + 0.01 {
                    incoherent += 1;
                }
            }
        }
    }
    Score {
        pixels: n,
        see_through: see as f64 / n as f64,
        covers_sky: covers as f64 / n as f64,
        depth_rel_median: percentile(&mut rel.clone(), 0.5),
        depth_rel_p95: percentile(&mut rel, 0.95),
        silhouette_px_median: percentile(&mut disp.clone(), 0.5),
        silhouette_px_p95: percentile(&mut disp, 0.95),
        incoherent: incoherent as f64 / n as f64,
        non_finite,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_images_score_perfectly_and_a_hole_is_counted() {
        let (w, h) = (8, 6);
        let reference: Vec<RefPixel> = (0..w * h)
            .map(|i| {
                if i / w >= 3 {
                    Some(100.0 + i as f64)
                } else {
                    None
                }
            })
            .collect();
        let s = score(&reference, &reference, w, h);
        assert_eq!(
            (s.see_through, s.covers_sky, s.depth_rel_p95, s.non_finite),
            (0.0, 0.0, 0.0, 0)
        );
        let mut holed = reference.clone();
        holed[4 * w + 3] = None;
        let s = score(&holed, &reference, w, h);
        assert!((s.see_through - 1.0 / 48.0).abs() < 1e-12);
        assert_eq!(s.silhouette_px_p95, 1.0, "one pixel below the horizon row");
        let mut off = reference.clone();
        off[5 * w + 5] = Some(1000.0);
        assert!(score(&off, &reference, w, h).incoherent > 0.0);
    }
}
