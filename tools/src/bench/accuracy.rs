//! Scoring a settled frame against the CPU reference (engine::reference + engine::score).
//! The reference costs a ray march per pixel (~1 ms per grazing pixel on one core), so a large
//! frame is scored in full-resolution windows spread over the image (a 4×4 lattice from edge to
//! edge by default, its windows that would see no terrain moved onto the reference's
//! silhouette and terrain, found by a coarse reference pass): inside a window every metric is
//! exact; the view's fractions are
//! pixel-weighted over the windows, its depth percentiles the pixel-weighted mean of the
//! windows', its silhouette percentiles the mean over windows holding a reference silhouette
//! weighted by their mismatched pixels (mismatches in windows of all terrain or all sky are
//! `isolated`: holes or specks with no silhouette in sight).

use super::report::Accuracy;
use engine::atlas::slots::Residency;
use engine::camera::ViewCamera;
use engine::planet::Body;
use engine::reference::{cast, pixel_ray, RefPixel};
use engine::surface::LodParams;

/// A rectangle of the frame, px.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub x0: usize,
    pub y0: usize,
    pub w: usize,
    pub h: usize,
}

/// Windows covering a `w`×`h` frame with at most about `budget` pixels: the whole frame if it
/// fits, else an n×n lattice of equal squares from edge to edge (n = 4, or fewer when
/// the squares would fall under 32 px).
pub fn windows(w: usize, h: usize, budget: usize) -> Vec<Window> {
    if w * h <= budget {
        return vec![Window { x0: 0, y0: 0, w, h }];
    }
    let n = 4usize;
    let side = ((budget as f64 / (n * n) as f64).sqrt() as usize).clamp(32, w.min(h));
    let at = |k: usize, len: usize| if n > 1 { k * (len - side) / (n - 1) } else { 0 };
    (0..n * n)
        .map(|k| Window {
            x0: at(k % n, w),
            y0: at(k / n, h),
            w: side,
            h: side,
        })
        .collect()
}

/// Pixels between the coarse reference's samples (`seeing_terrain`): 1,800–2,100 rays at
/// 1080p, a few per cent of a window budget's.
pub const COARSE_STEP: usize = 32;

/// Where a coarse pass of the reference sees terrain: `terrain[j][i]` for the sample at pixel
/// (i·step + step/2, j·step + step/2).
pub struct Coarse {
    pub step: usize,
    pub terrain: Vec<Vec<bool>>,
}

impl Coarse {
    /// Samples showing terrain next to (4-neighbour) one that does not: the silhouette.
    fn silhouette(&self, i: usize, j: usize) -> bool {
        let t = &self.terrain;
        let at = |a: isize, b: isize| {
            (b >= 0 && a >= 0)
                .then(|| t.get(b as usize)?.get(a as usize).copied())
                .flatten()
        };
        let (i, j) = (i as isize, j as isize);
        t[j as usize][i as usize]
            && [(1, 0), (-1, 0), (0, 1), (0, -1)]
                .iter()
                .any(|(di, dj)| at(i + di, j + dj) == Some(false))
    }

    pub fn any_terrain(&self) -> bool {
        self.terrain.iter().flatten().any(|&t| t)
    }
}

/// The coarse pass: `is_terrain(x, y)` (the reference at pixel centre x, y) every `step` px.
pub fn coarse(
    w: usize,
    h: usize,
    step: usize,
    is_terrain: impl Fn(f64, f64) -> bool + Sync,
) -> Coarse {
    let (nx, ny) = (w.div_ceil(step), h.div_ceil(step));
    let rows: Vec<Vec<bool>> = std::thread::scope(|s| {
        let f = &is_terrain;
        let parts: Vec<_> = (0..ny)
            .map(|j| {
                s.spawn(move || {
                    (0..nx)
                        .map(|i| {
                            let x = ((i * step + step / 2).min(w - 1)) as f64 + 0.5;
                            let y = ((j * step + step / 2).min(h - 1)) as f64 + 0.5;
                            f(x, y)
                        })
                        .collect()
                })
            })
            .collect();
        parts
            .into_iter()
            .map(|p| p.join().expect("coarse row"))
            .collect()
    });
    Coarse {
        step,
        terrain: rows,
    }
}

/// [`windows`], with every lattice window that holds no coarse terrain sample moved onto the
/// terrain: first centred on silhouette samples, then on other terrain samples, each at a
/// sample no window covers yet, spread over the frame (the candidates are taken in an order
/// that strides through them). A view with no terrain in the coarse pass keeps the lattice.
pub fn windows_seeing(w: usize, h: usize, budget: usize, c: &Coarse) -> Vec<Window> {
    let mut wins = windows(w, h, budget);
    if wins.len() == 1 || !c.any_terrain() {
        return wins;
    }
    let sample_px = |i: usize, j: usize| {
        (
            (i * c.step + c.step / 2).min(w - 1),
            (j * c.step + c.step / 2).min(h - 1),
        )
    };
    let inside = |win: &Window, (x, y): (usize, usize)| {
        (win.x0..win.x0 + win.w).contains(&x) && (win.y0..win.y0 + win.h).contains(&y)
    };
    let cells = || {
        c.terrain
            .iter()
            .enumerate()
            .flat_map(|(j, row)| row.iter().enumerate().map(move |(i, &t)| (i, j, t)))
    };
    let sees = |win: &Window| cells().any(|(i, j, t)| t && inside(win, sample_px(i, j)));
    let mut candidates: Vec<(usize, usize)> = cells()
        .filter(|&(i, j, _)| c.silhouette(i, j))
        .map(|(i, j, _)| sample_px(i, j))
        .collect();
    let terrain: Vec<(usize, usize)> = cells()
        .filter(|&(i, j, t)| t && !c.silhouette(i, j))
        .map(|(i, j, _)| sample_px(i, j))
        .collect();
    // Stride through each list so the moved windows spread along the silhouette.
    let spread = |v: Vec<(usize, usize)>| {
        let n = v.len();
        let stride = (n / 7).max(1);
        let mut out = Vec::with_capacity(n);
        for start in 0..stride {
            out.extend(v.iter().copied().skip(start).step_by(stride));
        }
        out
    };
    candidates = spread(candidates);
    candidates.extend(spread(terrain));
    let side = wins[0].w;
    let mut next = candidates.into_iter();
    for k in 0..wins.len() {
        if sees(&wins[k]) {
            continue;
        }
        let placed = next
            .by_ref()
            .find(|&p| !wins.iter().any(|win| inside(win, p)));
        if let Some((x, y)) = placed {
            wins[k] = Window {
                x0: x.saturating_sub(side / 2).min(w - side),
                y0: y.saturating_sub(side / 2).min(h - side),
                w: side,
                h: side,
            };
        }
    }
    wins
}

/// The reference for the pixels of `win` (row-major within the window), rows over the
/// machine's threads.
pub fn reference(
    res: &Residency,
    lod: &LodParams,
    body: Body,
    cam: &ViewCamera,
    relief: f64,
    win: Window,
) -> Vec<RefPixel> {
    let mut out = vec![None; win.w * win.h];
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let rows_per = win.h.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (k, chunk) in out.chunks_mut(rows_per * win.w).enumerate() {
            s.spawn(move || {
                for (i, px) in chunk.iter_mut().enumerate() {
                    let (x, y) = (win.x0 + i % win.w, win.y0 + k * rows_per + i / win.w);
                    let d = pixel_ray(cam, x as f64 + 0.5, y as f64 + 0.5);
                    *px = cast(res, lod, body, cam.eye, d, relief);
                }
            });
        }
    });
    out
}

/// Score `gpu` (the whole frame's distances) in `wins`; `reference` gives each window's.
pub fn score(
    gpu: &[Option<f64>],
    frame_w: usize,
    wins: &[Window],
    mut reference: impl FnMut(Window) -> Vec<RefPixel>,
) -> Accuracy {
    let mut acc = Accuracy::default();
    let (mut terrain, mut total, mut isolated, mut sil_weight) = (0usize, 0usize, 0usize, 0.0);
    for &win in wins {
        let r = reference(win);
        let g: Vec<Option<f64>> = (0..win.h)
            .flat_map(|y| (0..win.w).map(move |x| (x, y)))
            .map(|(x, y)| gpu[(win.y0 + y) * frame_w + win.x0 + x])
            .collect();
        let s = engine::score::score(&g, &r, win.w, win.h);
        let n = s.pixels as f64;
        terrain += r.iter().filter(|p| p.is_some()).count();
        total += s.pixels;
        acc.see_through += s.see_through * n;
        acc.covers_sky += s.covers_sky * n;
        acc.depth_rel_median += s.depth_rel_median * n;
        acc.depth_rel_p95 += s.depth_rel_p95 * n;
        // Silhouette distances only where the window holds a reference silhouette (else
        // engine::score falls back to w + h): weighted by the window's mismatched pixels.
        let mismatched = ((s.see_through + s.covers_sky) * n).round();
        let ref_terrain = r.iter().filter(|p| p.is_some()).count();
        if ref_terrain == 0 || ref_terrain == r.len() {
            isolated += mismatched as usize;
        } else {
            acc.silhouette_px_median += s.silhouette_px_median * mismatched;
            acc.silhouette_px_p95 += s.silhouette_px_p95 * mismatched;
            sil_weight += mismatched;
        }
        acc.incoherent += s.incoherent * n;
        acc.non_finite += s.non_finite;
    }
    let n = total.max(1) as f64;
    for v in [
        &mut acc.see_through,
        &mut acc.covers_sky,
        &mut acc.depth_rel_median,
        &mut acc.depth_rel_p95,
        &mut acc.incoherent,
    ] {
        *v /= n;
    }
    if sil_weight > 0.0 {
        acc.silhouette_px_median /= sil_weight;
        acc.silhouette_px_p95 /= sil_weight;
    }
    acc.isolated = isolated as f64 / n;
    acc.pixels = total;
    acc.terrain = terrain as f64 / n;
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lattice_windows_that_miss_a_small_planet_move_onto_it() {
        // A planet disk of 150 px at the centre of a 1080p frame, seen in the coarse pass.
        let (w, h) = (1920usize, 1080usize);
        let disk = |x: f64, y: f64| (x - 960.0).powi(2) + (y - 540.0).powi(2) < 150.0f64.powi(2);
        let c = coarse(w, h, COARSE_STEP, disk);
        let plain = windows(w, h, 1 << 17);
        let seen = |wins: &[Window]| {
            wins.iter()
                .map(|win| {
                    (win.y0..win.y0 + win.h)
                        .flat_map(|y| (win.x0..win.x0 + win.w).map(move |x| (x, y)))
                        .filter(|&(x, y)| disk(x as f64 + 0.5, y as f64 + 0.5))
                        .count()
                })
                .sum::<usize>()
        };
        assert_eq!(seen(&plain), 0, "the plain lattice misses the disk");
        let moved = windows_seeing(w, h, 1 << 17, &c);
        assert_eq!(moved.len(), plain.len());
        assert!(moved
            .iter()
            .all(|win| win.x0 + win.w <= w && win.y0 + win.h <= h));
        // Every window now holds disk pixels, and together they see much of it and its edge.
        let edge_windows = moved
            .iter()
            .filter(|win| {
                let px = (win.y0..win.y0 + win.h)
                    .flat_map(|y| (win.x0..win.x0 + win.w).map(move |x| (x, y)))
                    .filter(|&(x, y)| disk(x as f64 + 0.5, y as f64 + 0.5))
                    .count();
                px > 0 && px < win.w * win.h
            })
            .count();
        assert!(seen(&moved) > 30_000, "{} disk px seen", seen(&moved));
        assert!(
            edge_windows >= 8,
            "{edge_windows} windows on the silhouette"
        );
        // No terrain at all: the lattice stays.
        let empty = coarse(w, h, COARSE_STEP, |_, _| false);
        assert_eq!(windows_seeing(w, h, 1 << 17, &empty), plain);
    }

    #[test]
    fn small_frames_are_scored_whole_and_large_ones_in_a_lattice() {
        assert_eq!(
            windows(96, 64, 1 << 18),
            vec![Window {
                x0: 0,
                y0: 0,
                w: 96,
                h: 64
            }]
        );
        let w = windows(1920, 1080, 1 << 18);
        assert_eq!(w.len(), 16);
        assert!(w
            .iter()
            .all(|x| x.w == 128 && x.x0 + x.w <= 1920 && x.y0 + x.h <= 1080));
        assert_eq!(
            (w[0].x0, w[0].y0, w[15].x0 + 128, w[15].y0 + 128),
            (0, 0, 1920, 1080)
        );
    }

    #[test]
    fn windowed_score_matches_the_whole_frame_score_of_its_windows() {
        // A 40×30 frame: terrain below row 12 at 100 m; the GPU misses one terrain pixel.
        let (w, h) = (40, 30);
        let reference: Vec<RefPixel> = (0..w * h).map(|i| (i / w >= 12).then_some(100.0)).collect();
        let mut gpu = reference.clone();
        gpu[20 * w + 5] = None;
        let whole = score(&gpu, w, &[Window { x0: 0, y0: 0, w, h }], |_| {
            reference.clone()
        });
        assert!((whole.see_through - 1.0 / 1200.0).abs() < 1e-12 && whole.terrain == 0.6);
        let halves = [
            Window {
                x0: 0,
                y0: 0,
                w: 20,
                h,
            },
            Window {
                x0: 20,
                y0: 0,
                w: 20,
                h,
            },
        ];
        let cut = |win: Window| {
            (0..win.h)
                .flat_map(|y| (0..win.w).map(move |x| y * w + win.x0 + x))
                .map(|i| reference[i])
                .collect()
        };
        let split = score(&gpu, w, &halves, cut);
        assert!((split.see_through - whole.see_through).abs() < 1e-12 && split.pixels == 1200);
        // A window of terrain only: its hole has no silhouette in sight and is `isolated`.
        let low = [Window {
            x0: 0,
            y0: 14,
            w: 40,
            h: 16,
        }];
        let below = score(&gpu, w, &low, |win| {
            (0..win.w * win.h).map(|_| Some(100.0)).collect()
        });
        assert_eq!(
            (below.silhouette_px_p95, below.isolated),
            (0.0, 1.0 / 640.0)
        );
        assert!(whole.isolated == 0.0 && whole.silhouette_px_p95 > 0.0);
    }
}
