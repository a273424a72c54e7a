//! Tile charts: tangent-plane (gnomonic) coordinates (a, b) of a tile's frame ↔ tile-local
//! texel coordinates (s, t), sample i at s = i + 0.5 (s ∈ [0, 512] over the interior).
//!
//! Two forms (formulas, coefficient order and stored values: `docs/conventions.md`, "Charts"):
//! - **exact** (levels < 5): plane → face angle offset from the tile centre by one `atan` of a
//!   ratio of linear forms; inverse by one `tan` and a ratio of linear forms. Evaluated in f32
//!   its error is ≤ 1e-3 texel at those levels.
//! - **cubic** (levels ≥ 5): per-tile polyU/polyV, nine monomials each (no constant: the
//!   centre maps to (256, 256)), least-squares fitted in f64; inverse = fitted inverse cubic
//!   + three Newton steps on the forward cubic, so both directions agree.
//!
//! `ChartGpu` is the 160-byte record the GPU reads; its `forward`/`inverse` methods are the
//! f32 reference the GLSL mirror must follow operation for operation.

use super::frame::TileFrame;
use super::tile::TileId;
use crate::params::{CUBIC_CHART_MIN_LEVEL, TILE_SAMPLES};
use bytemuck::{Pod, Zeroable};
use std::f64::consts::{FRAC_PI_4, PI};

/// Half the tile edge in texels: the centre sits at (256, 256).
const HALF: f64 = TILE_SAMPLES as f64 / 2.0;
/// Fit region in texels: the interior plus a margin covering the apron, [−8, 520]².
const FIT_MARGIN: f64 = 8.0;
/// Fit grid points per axis (625 samples for 9 unknowns).
const FIT_GRID: usize = 25;
/// Newton steps of the inverse (TERRAIN.md §2).
pub const NEWTON_STEPS: usize = 3;

/// GPU chart kinds (`ChartGpu::kind`).
pub const CHART_EXACT: u32 = 0;
pub const CHART_CUBIC: u32 = 1;

/// The chart of one tile in f64, with its frame.
#[derive(Clone, Debug)]
pub struct TileChart {
    pub tile: TileId,
    pub frame: TileFrame,
    /// Texels per radian of face angle: 1024·2^L/π (s − 256 = K·Δθ_u).
    pub k: f64,
    /// tan(π/4·u_c), tan(π/4·v_c) at the tile centre.
    pub tan_c: [f64; 2],
    /// Exact forward, per axis: [c1, c2, d1, d2] with N = c1·a + c2·b, D = 1 + d1·a + d2·b.
    pub exact_u: [f64; 4],
    pub exact_v: [f64; 4],
    /// Exact inverse: [g0..g5], a = (g0·δu + g1·δv)/(1 + g4·δu + g5·δv), b likewise g2, g3.
    pub exact_inv: [f64; 6],
    /// Plane half-width used to normalise the cubic: σ = π/(4·2^L).
    pub sigma: f64,
    /// Cubic coefficients (levels ≥ 5, else zero): monomials x, y, x², xy, y², x³, x²y, xy², y³
    /// of x = a/σ, y = b/σ give s − 256 (poly_u) and t − 256 (poly_v).
    pub poly_u: [f64; 9],
    pub poly_v: [f64; 9],
    /// Inverse cubic: same monomials of X = (s − 256)/256, Y = (t − 256)/256 give x and y.
    pub inv_u: [f64; 9],
    pub inv_v: [f64; 9],
}

/// The nine monomials, in the stored order.
fn monomials(x: f64, y: f64) -> [f64; 9] {
    let (xx, xy, yy) = (x * x, x * y, y * y);
    [x, y, xx, xy, yy, xx * x, xx * y, x * yy, yy * y]
}

impl TileChart {
    pub fn new(tile: TileId, radius: f64) -> TileChart {
        let frame = TileFrame::new(tile, radius);
        let (uc, vc) = tile.centre_uv();
        let tan_c = [(FRAC_PI_4 * uc).tan(), (FRAC_PI_4 * vc).tan()];
        let (ax, ua, va) = (tile.face.axis(), tile.face.u_axis(), tile.face.v_axis());
        // d = n + a·e1 + b·e2; angle offset from the centre along u:
        // atan(β/α) − atan(Tc) = atan((β − α·Tc)/(α + β·Tc)), α = d·axis, β = d·u_axis.
        let exact_axis = |w: glam::DVec3, tc: f64| {
            let num = |e: glam::DVec3| e.dot(w) - tc * e.dot(ax);
            let den = |e: glam::DVec3| e.dot(ax) + tc * e.dot(w);
            let d0 = den(frame.n);
            // num(n) is 0 exactly in real arithmetic (n ∥ the centre's cube point); dropping
            // it puts the centre at s = 256 exactly in f32 too.
            [
                num(frame.e1) / d0,
                num(frame.e2) / d0,
                den(frame.e1) / d0,
                den(frame.e2) / d0,
            ]
        };
        let exact_u = exact_axis(ua, tan_c[0]);
        let exact_v = exact_axis(va, tan_c[1]);
        // Inverse: cube point P = Pc + δu·u_axis + δv·v_axis with Pc = |Pc|·n, so
        // P·e1 = δu·(u_axis·e1) + δv·(v_axis·e1) and P·n = |Pc| + δu·(u_axis·n) + δv·(v_axis·n).
        let pc = (ax + tan_c[0] * ua + tan_c[1] * va).length();
        let (e1, e2, n) = (frame.e1, frame.e2, frame.n);
        let exact_inv = [
            ua.dot(e1) / pc,
            va.dot(e1) / pc,
            ua.dot(e2) / pc,
            va.dot(e2) / pc,
            ua.dot(n) / pc,
            va.dot(n) / pc,
        ];
        let mut chart = TileChart {
            tile,
            frame,
            k: 1024.0 * (1u64 << tile.level) as f64 / PI,
            tan_c,
            exact_u,
            exact_v,
            exact_inv,
            sigma: FRAC_PI_4 / (1u64 << tile.level) as f64,
            poly_u: [0.0; 9],
            poly_v: [0.0; 9],
            inv_u: [0.0; 9],
            inv_v: [0.0; 9],
        };
        if tile.level >= CUBIC_CHART_MIN_LEVEL {
            chart.fit_cubic();
        }
        chart
    }

    /// Reference forward chart in f64 through the face map itself (independent of the
    /// tile-relative formulas): plane → direction → face (u, v) → texel.
    pub fn exact_forward(&self, a: f64, b: f64) -> (f64, f64) {
        let d = self.frame.n + a * self.frame.e1 + b * self.frame.e2;
        let (u, v) = self.tile.face.coords(d);
        let t = (1u64 << self.tile.level) as f64;
        let n = TILE_SAMPLES as f64;
        (
            ((u + 1.0) * 0.5 * t - self.tile.x as f64) * n,
            ((v + 1.0) * 0.5 * t - self.tile.y as f64) * n,
        )
    }

    /// Reference inverse in f64: texel → face (u, v) → direction → plane.
    pub fn exact_inverse(&self, s: f64, t: f64) -> (f64, f64) {
        let tiles = (1u64 << self.tile.level) as f64;
        let n = TILE_SAMPLES as f64;
        let u = 2.0 * (self.tile.x as f64 + s / n) / tiles - 1.0;
        let v = 2.0 * (self.tile.y as f64 + t / n) / tiles - 1.0;
        self.frame.dir_to_plane(self.tile.face.point_on_cube(u, v))
    }

    /// Least-squares fit of the forward and inverse cubics on a 25×25 grid over [−8, 520]².
    fn fit_cubic(&mut self) {
        let mut fwd = Lsq::default();
        let mut inv = Lsq::default();
        let span = TILE_SAMPLES as f64 + 2.0 * FIT_MARGIN;
        for j in 0..FIT_GRID {
            for i in 0..FIT_GRID {
                let s = -FIT_MARGIN + span * i as f64 / (FIT_GRID - 1) as f64;
                let t = -FIT_MARGIN + span * j as f64 / (FIT_GRID - 1) as f64;
                let (a, b) = self.exact_inverse(s, t);
                let (x, y) = (a / self.sigma, b / self.sigma);
                fwd.add(monomials(x, y), [s - HALF, t - HALF]);
                inv.add(monomials((s - HALF) / HALF, (t - HALF) / HALF), [x, y]);
            }
        }
        [self.poly_u, self.poly_v] = fwd.solve();
        [self.inv_u, self.inv_v] = inv.solve();
    }

    /// The f32 record the GPU reads.
    pub fn gpu(&self) -> ChartGpu {
        let f = |c: &[f64]| {
            let mut o = [0f32; 9];
            for (d, s) in o.iter_mut().zip(c) {
                *d = *s as f32;
            }
            o
        };
        if self.tile.level >= CUBIC_CHART_MIN_LEVEL {
            ChartGpu {
                kind: CHART_CUBIC,
                scale: (1.0 / self.sigma) as f32,
                inv_scale: self.sigma as f32,
                pad: 0.0,
                fwd_u: f(&self.poly_u),
                fwd_v: f(&self.poly_v),
                inv_u: f(&self.inv_u),
                inv_v: f(&self.inv_v),
            }
        } else {
            let eu = self.exact_u;
            let ev = self.exact_v;
            ChartGpu {
                kind: CHART_EXACT,
                scale: self.k as f32,
                inv_scale: (1.0 / self.k) as f32,
                pad: 0.0,
                fwd_u: f(&[eu[0], eu[1], eu[2], eu[3], self.tan_c[0]]),
                fwd_v: f(&[ev[0], ev[1], ev[2], ev[3], self.tan_c[1]]),
                inv_u: f(&self.exact_inv),
                inv_v: [0.0; 9],
            }
        }
    }
}

/// Normal equations for two right-hand sides over the nine monomials.
#[derive(Default)]
struct Lsq {
    ata: [[f64; 9]; 9],
    atb: [[f64; 2]; 9],
}

impl Lsq {
    fn add(&mut self, m: [f64; 9], rhs: [f64; 2]) {
        for r in 0..9 {
            for c in 0..9 {
                self.ata[r][c] += m[r] * m[c];
            }
            self.atb[r][0] += m[r] * rhs[0];
            self.atb[r][1] += m[r] * rhs[1];
        }
    }

    /// Gauss–Jordan with partial pivoting (the Gram matrix of monomials on [−1, 1]² is well
    /// conditioned: ~1e3, so normal equations lose only ~3 of f64's 16 digits).
    fn solve(mut self) -> [[f64; 9]; 2] {
        for col in 0..9 {
            let p = (col..9)
                .max_by(|&a, &b| self.ata[a][col].abs().total_cmp(&self.ata[b][col].abs()))
                .unwrap_or(col);
            self.ata.swap(col, p);
            self.atb.swap(col, p);
            let d = self.ata[col][col];
            for r in 0..9 {
                if r != col {
                    let f = self.ata[r][col] / d;
                    for c in 0..9 {
                        self.ata[r][c] -= f * self.ata[col][c];
                    }
                    self.atb[r][0] -= f * self.atb[col][0];
                    self.atb[r][1] -= f * self.atb[col][1];
                }
            }
        }
        let coef = |rhs: usize| std::array::from_fn(|r| self.atb[r][rhs] / self.ata[r][r]);
        [coef(0), coef(1)]
    }
}

/// The chart as the GPU holds it: 160 bytes, f32. Layout (`docs/conventions.md`, "Charts"):
/// - `kind` = CHART_EXACT: `scale` = K (texels per radian), `inv_scale` = 1/K,
///   `fwd_u` = [c1, c2, d1, d2, tan(π/4·u_c)], `fwd_v` likewise for v, `inv_u` = [g0..g5].
/// - `kind` = CHART_CUBIC: `scale` = 1/σ, `inv_scale` = σ, `fwd_u`/`fwd_v` = polyU/polyV,
///   `inv_u`/`inv_v` = inverse cubic.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct ChartGpu {
    pub kind: u32,
    pub scale: f32,
    pub inv_scale: f32,
    pub pad: f32,
    pub fwd_u: [f32; 9],
    pub fwd_v: [f32; 9],
    pub inv_u: [f32; 9],
    pub inv_v: [f32; 9],
}

/// Σ c_k·m_k in stored order, summed left to right (the GLSL mirror sums in the same order).
fn poly(c: &[f32; 9], m: &[f32; 9]) -> f32 {
    let mut s = 0.0f32;
    for k in 0..9 {
        s += c[k] * m[k];
    }
    s
}

fn monomials_f32(x: f32, y: f32) -> [f32; 9] {
    let (xx, xy, yy) = (x * x, x * y, y * y);
    [x, y, xx, xy, yy, xx * x, xx * y, x * yy, yy * y]
}

/// ∂/∂x and ∂/∂y of the nine monomials.
fn monomials_dx_dy_f32(x: f32, y: f32) -> ([f32; 9], [f32; 9]) {
    let (xx, xy, yy) = (x * x, x * y, y * y);
    (
        [1.0, 0.0, 2.0 * x, y, 0.0, 3.0 * xx, 2.0 * xy, yy, 0.0],
        [0.0, 1.0, 0.0, x, 2.0 * y, 0.0, xx, 2.0 * xy, 3.0 * yy],
    )
}

impl ChartGpu {
    /// Plane (a, b) → texel (s, t), f32, as the shader does it.
    pub fn forward(&self, a: f32, b: f32) -> (f32, f32) {
        if self.kind == CHART_CUBIC {
            let m = monomials_f32(a * self.scale, b * self.scale);
            (256.0 + poly(&self.fwd_u, &m), 256.0 + poly(&self.fwd_v, &m))
        } else {
            let axis = |c: &[f32; 9]| {
                let num = c[0] * a + c[1] * b;
                let den = 1.0 + c[2] * a + c[3] * b;
                256.0 + self.scale * (num / den).atan()
            };
            (axis(&self.fwd_u), axis(&self.fwd_v))
        }
    }

    /// Texel (s, t) → plane (a, b), f32, as the shader does it.
    pub fn inverse(&self, s: f32, t: f32) -> (f32, f32) {
        if self.kind == CHART_CUBIC {
            let (sx, ty) = (s - 256.0, t - 256.0);
            let m = monomials_f32(sx * (1.0 / 256.0), ty * (1.0 / 256.0));
            let (mut x, mut y) = (poly(&self.inv_u, &m), poly(&self.inv_v, &m));
            for _ in 0..NEWTON_STEPS {
                let m = monomials_f32(x, y);
                let (mx, my) = monomials_dx_dy_f32(x, y);
                let r0 = poly(&self.fwd_u, &m) - sx;
                let r1 = poly(&self.fwd_v, &m) - ty;
                let (j00, j01) = (poly(&self.fwd_u, &mx), poly(&self.fwd_u, &my));
                let (j10, j11) = (poly(&self.fwd_v, &mx), poly(&self.fwd_v, &my));
                let det = j00 * j11 - j01 * j10;
                x -= (j11 * r0 - j01 * r1) / det;
                y -= (j00 * r1 - j10 * r0) / det;
            }
            (x * self.inv_scale, y * self.inv_scale)
        } else {
            let g = &self.inv_u;
            let delta = |st: f32, tc: f32| {
                let tau = ((st - 256.0) * self.inv_scale).tan();
                tau * (1.0 + tc * tc) / (1.0 - tc * tau)
            };
            let du = delta(s, self.fwd_u[4]);
            let dv = delta(t, self.fwd_v[4]);
            let den = 1.0 + g[4] * du + g[5] * dv;
            ((g[0] * du + g[1] * dv) / den, (g[2] * du + g[3] * dv) / den)
        }
    }
}

#[cfg(test)]
#[path = "chart_tests.rs"]
mod tests;
