//! Amplified levels L10–L18 (TERRAIN.md §6, `docs/earth.md` "Above the data"). A sample of
//! level L ≥ 10 is a fixed function of the L9 samples around it and of its position on the
//! sphere; no amplified tile feeds another. L10 is the monotone cubic of L9 alone; bands
//! 11..=15 add detail scaled by the L9 surface's slope and curvature and by a climate; rocks
//! appear from L13; L16–L18 sample the L15 surface more finely. Measured water gets nothing.
//!
//! This is the definition in f64. `shaders/tiles/amplify.comp` mirrors it operation for
//! operation; the GPU tests hold the two within a centimetre.

use super::bands::{mix, perlin, shore_fade};
use super::climate::wet_belt;
use super::coast::catmull_rom;
use super::derive::{dir_from_tans, mean_sample, tan_of};
use super::etopo::monotone_cubic;
use super::rocks::{
    accepted_around, RockMemo, ROCK_BARE_SLOPE, ROCK_FULL_SLOPE, ROCK_MAX_RADIUS_M,
};
pub use super::rocks::{
    face_coord, rock_bump, rock_filtered, rock_height, rock_in_cell, rock_shape, Filtered, Rock,
    ROCKS_PER_CELL, ROCK_CELL_M, ROCK_FACETS,
};
use super::tile::{Cover, Tile};
use crate::params::{LAST_STORED_LEVEL, TILE_APRON, TILE_SAMPLES, TILE_STRIDE};
use crate::planet::tile::{canonical_sample, SampleRef};
use crate::planet::{Body, Face, TileId};
use glam::DVec3;
use std::cell::RefCell;
use std::sync::Arc;

/// The first level with a band of its own, and the last (L16–L18 resample L15).
pub const FIRST_BAND_LEVEL: u8 = 11;
pub const LAST_BAND_LEVEL: u8 = 15;
/// Gullies along the fall line up to this level; talus damping from `FIRST_TALUS_LEVEL`.
const LAST_GULLY_LEVEL: u8 = 13;
const FIRST_TALUS_LEVEL: u8 = 12;
/// Terraces up to this level, with a period of `TERRACE_PERIOD_TEXELS` of the band's level.
const LAST_TERRACE_LEVEL: u8 = 13;
const TERRACE_PERIOD_TEXELS: f64 = 6.0;
/// Rocks from this level on (hashed cells on the datum sphere, accepted once).
pub const FIRST_ROCK_LEVEL: u8 = 13;

/// A band's wavelength in texels of its level, its amplitude per wavelength on the steepest
/// ground, and the cap (§6: 3 texels, 0.10·λ, 0.30·λ).
const BAND_WAVELENGTH_TEXELS: f64 = 3.0;
const BAND_AMPLITUDE: f64 = 0.10;
const BAND_CAP: f64 = 0.30;
/// Slope (rise over run) at which a band reaches full amplitude, and the floor of its weight
/// on flat land (grass and sand still have texture at a metre).
const FULL_SLOPE: f64 = 0.3;
const FLAT_WEIGHT: f64 = 0.3;
/// The metre-scale bands (λ ≤ 7.2 m on Earth) on bare ground — where boulders lie: the rock
/// ramp's `ROCK_BARE_SLOPE`..`ROCK_FULL_SLOPE` — take at least the full weight and a ridged,
/// sharp-crested shape, whatever the L9 slope: a moraine or a scree-covered valley floor is as
/// rough at a metre as a steep face, while the 38 m slope weight alone gave the Khumbu's valley
/// floor (L9 slope 0.035–0.08) the flat weight, a few centimetres at L15, and a 2 m view
/// barely rougher in depth than the data's (`earth_contact`). Salt flats and plains (slope
/// under 0.005) keep the flat weight and the smooth noise. The amplitude rule and the cap are
/// §6's: the weight stays ≤ 1.
const FIRST_BARE_BAND: u8 = 13;
/// Curvature scale: an L9 Laplacian of a quarter texel (metres) counts as fully convex.
const CURVATURE_LAPLACIAN_TEXELS: f64 = 0.25;
/// The region field's lattice cell (§6: 20 km).
const REGION_CELL_M: f64 = 20_000.0;
/// Gullies run along the fall line: their noise is stretched this much along it.
const GULLY_STRETCH: f64 = 4.0;
/// Mean of 1 − 2|n| over Perlin noise n, so ridged and valley shapes move no low frequency
/// (measured by `ridged_shape_is_zero_mean`).
const RIDGE_MEAN: f64 = 0.56;

const SEED_REGION: u64 = 0xa5a5_0001;
const SEED_WET: u64 = 0xa5a5_0002;
const SEED_BEDDING: u64 = 0xa5a5_0003;

/// The most amplification moves a height away from the range of its L9 samples, metres: every
/// band at its cap plus the tallest rock.
pub fn max_detail_m(body: Body) -> f64 {
    let bands: f64 = (FIRST_BAND_LEVEL..=LAST_BAND_LEVEL)
        .map(|k| BAND_CAP * BAND_WAVELENGTH_TEXELS * body.texel(k))
        .sum();
    bands + ROCK_MAX_RADIUS_M * 0.9
}

#[inline]
fn band_seed(k: u8) -> u64 {
    mix(0xa3b1_0000 + k as u64)
}
#[inline]
fn gully_seed(k: u8) -> u64 {
    mix(0x6a11_0000 + k as u64)
}

/// Hermite smoothstep (edges may be given high to low).
#[inline]
pub(crate) fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The 4×4 L9 samples around a point and the point's fractions in the centre cell.
pub struct Stencil {
    pub h: [[f64; 4]; 4],
    pub fx: f64,
    pub fy: f64,
    /// L9 index of the stencil's first column and row (the centre cell is +1).
    pub i0: i64,
    pub j0: i64,
    /// What covers the centre cell's node nearest the point.
    pub nearest: Cover,
    /// Whether a land node of the stencil lies below the datum (only under a water mask).
    pub land_below_datum: bool,
    /// Where a node of the stencil is lake (only under a water mask): the lake indicator of the
    /// 16 nodes interpolated by Catmull-Rom at the point (the lake is where it is ≥ ½, the
    /// mask's own coastline rule, `WaterMask::water_cubic`, one level finer than the nearest
    /// node's 38 m staircase), and the level of the nearest lake node.
    pub lake: Option<(f64, f64)>,
}

/// The rocks `L9Samples::rocks_around` hands out.
pub type Rocks<'r, 'i> = &'i mut dyn Iterator<Item = &'r Rock>;

/// Where an amplified sample reads its L9 samples: the canonical stored L9 sample (I, J) of a
/// face, wherever it is held.
pub trait L9Samples {
    fn l9(&self, face: Face, i: i64, j: i64) -> f64;
    /// What covers the sample; by default the sign rule (sources without a water mask).
    fn l9_cover(&self, face: Face, i: i64, j: i64) -> Cover {
        Cover::below_datum(self.l9(face, i, j))
    }
    /// Hands `f` the accepted rocks of the 27 rock cells around `cell`, read against `face`'s
    /// L9 surface (`rocks::accepted_around`); a source that makes many samples near each
    /// other (a tile's patch) keeps them.
    fn rocks_around(&self, body: Body, face: Face, cell: [i64; 3], f: &mut dyn FnMut(Rocks))
    where
        Self: Sized,
    {
        fresh_rocks_around(self, body, face, cell, f);
    }
}

/// `L9Samples::rocks_around` without keeping anything: the rocks looked up afresh.
fn fresh_rocks_around(
    src: &impl L9Samples,
    body: Body,
    face: Face,
    cell: [i64; 3],
    f: &mut dyn FnMut(Rocks),
) {
    let mut rocks = Vec::new();
    accepted_around(src, body, face, cell, &mut rocks);
    f(&mut rocks.iter());
}

/// The L9 samples of the stored tiles, fetched once each per tile made.
pub struct L9Tiles<'a> {
    get: &'a (dyn Fn(TileId) -> Arc<Tile> + Sync),
    held: RefCell<Vec<Arc<Tile>>>,
}

impl<'a> L9Tiles<'a> {
    pub fn new(get: &'a (dyn Fn(TileId) -> Arc<Tile> + Sync)) -> Self {
        L9Tiles {
            get,
            held: RefCell::new(Vec::new()),
        }
    }

    fn owned_sample(&self, face: Face, a: i64, b: i64) -> (f64, Cover) {
        let n = TILE_SAMPLES as i64;
        let id = TileId::new(LAST_STORED_LEVEL, face, (a / n) as u32, (b / n) as u32);
        let mut held = self.held.borrow_mut();
        let t = match held.iter().find(|t| t.id == id) {
            Some(t) => t.clone(),
            None => {
                let t = (self.get)(id);
                held.push(t.clone());
                t
            }
        };
        (t.height(a % n, b % n) as f64, t.cover(a % n, b % n))
    }

    /// Canonical stored L9 sample (I, J) of `face`: height and cover.
    fn sample(&self, face: Face, i: i64, j: i64) -> (f64, Cover) {
        match canonical_sample(LAST_STORED_LEVEL, face, i, j) {
            SampleRef::Owned(g, a, b) => self.owned_sample(g, a, b),
            SampleRef::Corner(three) => {
                let v = three.map(|(g, a, b)| self.owned_sample(g, a, b));
                let (h, c) = mean_sample((v[0].0 + v[1].0) + v[2].0, &v.map(|s| s.1));
                (h as f64, c)
            }
        }
    }
}

impl L9Samples for L9Tiles<'_> {
    fn l9(&self, face: Face, i: i64, j: i64) -> f64 {
        self.sample(face, i, j).0
    }

    fn l9_cover(&self, face: Face, i: i64, j: i64) -> Cover {
        self.sample(face, i, j).1
    }
}

/// The L9 samples a tile of `face` reads, copied once into a patch of the face's (extended)
/// lattice; reads outside it go to `inner`.
struct Patch<'a, S: L9Samples> {
    inner: &'a S,
    face: Face,
    i0: i64,
    j0: i64,
    w: i64,
    h: i64,
    data: Vec<f64>,
    covers: Vec<Cover>,
    rocks: RefCell<RockMemo>,
}

impl<'a, S: L9Samples> Patch<'a, S> {
    fn new(inner: &'a S, face: Face, i: (i64, i64), j: (i64, i64)) -> Self {
        let (w, h) = (i.1 - i.0, j.1 - j.0);
        let mut data = Vec::with_capacity((w * h) as usize);
        let mut covers = Vec::with_capacity((w * h) as usize);
        for jj in j.0..j.1 {
            for ii in i.0..i.1 {
                data.push(inner.l9(face, ii, jj));
                covers.push(inner.l9_cover(face, ii, jj));
            }
        }
        Patch {
            inner,
            face,
            i0: i.0,
            j0: j.0,
            w,
            h,
            data,
            covers,
            rocks: RefCell::default(),
        }
    }
}

impl<S: L9Samples> L9Samples for Patch<'_, S> {
    fn l9(&self, face: Face, i: i64, j: i64) -> f64 {
        let (a, b) = (i - self.i0, j - self.j0);
        if face == self.face && (0..self.w).contains(&a) && (0..self.h).contains(&b) {
            self.data[(b * self.w + a) as usize]
        } else {
            self.inner.l9(face, i, j)
        }
    }

    fn l9_cover(&self, face: Face, i: i64, j: i64) -> Cover {
        let (a, b) = (i - self.i0, j - self.j0);
        if face == self.face && (0..self.w).contains(&a) && (0..self.h).contains(&b) {
            self.covers[(b * self.w + a) as usize]
        } else {
            self.inner.l9_cover(face, i, j)
        }
    }

    fn rocks_around(&self, body: Body, face: Face, cell: [i64; 3], f: &mut dyn FnMut(Rocks)) {
        if face == self.face {
            f(&mut self.rocks.borrow_mut().around(self, body, face, cell));
        } else {
            fresh_rocks_around(self, body, face, cell, f);
        }
    }
}

/// The L9 lattice position (continuous index, sample i at i) of face-global sample `a` of
/// `level` ≥ 9. Exact: a dyadic fraction.
#[inline]
pub fn l9_position(level: u8, a: i64) -> f64 {
    ((2 * a + 1) as f64 / (1i64 << (level - LAST_STORED_LEVEL)) as f64 - 1.0) * 0.5
}

/// The stencil around L9 position (x, y) of `face`.
pub fn stencil(src: &impl L9Samples, face: Face, x: f64, y: f64) -> Stencil {
    let (ci, cj) = (x.floor(), y.floor());
    let (i0, j0) = (ci as i64 - 1, cj as i64 - 1);
    let mut h = [[0.0; 4]; 4];
    let mut lake_nodes = [[false; 4]; 4];
    let mut land_below_datum = false;
    for (r, row) in h.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = src.l9(face, i0 + c as i64, j0 + r as i64);
            let cover = src.l9_cover(face, i0 + c as i64, j0 + r as i64);
            land_below_datum |= *v < 0.0 && cover == Cover::Land;
            lake_nodes[r][c] = cover == Cover::Lake;
        }
    }
    let (fx, fy) = (x - ci, y - cj);
    let near = |f: f64| if f < 0.5 { 1 } else { 2 };
    let nearest = src.l9_cover(face, i0 + near(fx), j0 + near(fy));
    let lake = lake_nodes.iter().flatten().any(|&l| l).then(|| {
        let (wx, wy) = (catmull_rom(fx), catmull_rom(fy));
        let mut indicator = 0.0;
        let mut closest = (f64::INFINITY, 0.0);
        for r in 0..4 {
            for c in 0..4 {
                if lake_nodes[r][c] {
                    indicator += wx[c] * wy[r];
                    let (dx, dy) = (c as f64 - 1.0 - fx, r as f64 - 1.0 - fy);
                    let d2 = dx * dx + dy * dy;
                    if d2 < closest.0 {
                        closest = (d2, h[r][c]);
                    }
                }
            }
        }
        (indicator, closest.1)
    });
    Stencil {
        h,
        fx,
        fy,
        i0,
        j0,
        nearest,
        land_below_datum,
        lake,
    }
}

/// The surface quantities at a point from its stencil: height h0 (monotone cubic), gradient
/// (metres per L9 texel along i and j) and Laplacian (metres), the last two bilinear between
/// the centre cell's four nodes.
pub struct Base {
    pub h0: f64,
    pub gx: f64,
    pub gy: f64,
    pub lap: f64,
}

pub fn base(s: &Stencil) -> Base {
    let h = &s.h;
    let rows = [0, 1, 2, 3].map(|r| monotone_cubic(h[r], s.fx));
    let h0 = monotone_cubic(rows, s.fy);
    let node = |r: usize, c: usize| {
        (
            (h[r][c + 1] - h[r][c - 1]) * 0.5,
            (h[r + 1][c] - h[r - 1][c]) * 0.5,
            (h[r][c - 1] + h[r][c + 1]) + (h[r - 1][c] + h[r + 1][c]) - 4.0 * h[r][c],
        )
    };
    let (a, b, c, d) = (node(1, 1), node(1, 2), node(2, 1), node(2, 2));
    let bl = |p: f64, q: f64, r: f64, t: f64| {
        let lo = p + (q - p) * s.fx;
        let hi = r + (t - r) * s.fx;
        lo + (hi - lo) * s.fy
    };
    Base {
        h0,
        gx: bl(a.0, b.0, c.0, d.0),
        gy: bl(a.1, b.1, c.1, d.1),
        lap: bl(a.2, b.2, c.2, d.2),
    }
}

/// Staircase residual of x (periods), zero at the risers' feet, ≈ zero mean: the flat treads
/// take 70 % of each period, the riser the rest.
#[inline]
fn terrace(x: f64) -> f64 {
    let f = x - x.floor();
    smoothstep(0.7, 1.0, f) - f + 0.35
}

/// Gully shape at noise position `p` for band `k`: valley noise stretched along the fall line
/// of each of the centre cell's four L9 nodes, blended bilinearly (each node's orientation is
/// fixed in space, so the blend is continuous where a per-sample orientation would shear).
fn gully(face: Face, s: &Stencil, p: DVec3, k: u8) -> f64 {
    let h = &s.h;
    let mut sum = 0.0;
    for (r, c, w) in [
        (1, 1, (1.0 - s.fx) * (1.0 - s.fy)),
        (1, 2, s.fx * (1.0 - s.fy)),
        (2, 1, (1.0 - s.fx) * s.fy),
        (2, 2, s.fx * s.fy),
    ] {
        let gx = (h[r][c + 1] - h[r][c - 1]) * 0.5;
        let gy = (h[r + 1][c] - h[r - 1][c]) * 0.5;
        let node = dir_from_tans(
            face,
            tan_of(LAST_STORED_LEVEL, s.i0 + c as i64),
            tan_of(LAST_STORED_LEVEL, s.j0 + r as i64),
        );
        let down = -(gx * face.u_axis() + gy * face.v_axis());
        let fall = down - down.dot(node) * node;
        let len = fall.length();
        let n = if len > 1e-9 {
            let f = fall / len;
            perlin(
                p - (1.0 - 1.0 / GULLY_STRETCH) * p.dot(f) * f,
                gully_seed(k),
            )
        } else {
            perlin(p, gully_seed(k))
        };
        sum += w * (2.0 * n.abs() - 1.0 + RIDGE_MEAN);
    }
    sum
}

/// Height of owned sample (a, b) of `face` at amplified `level` (≥ 10), metres.
pub fn amplified(src: &impl L9Samples, body: Body, level: u8, face: Face, a: i64, b: i64) -> f64 {
    amplified_cover(src, body, level, face, a, b).0
}

/// Height (metres) of owned sample (a, b) at amplified `level`, and what covers it.
pub fn amplified_cover(
    src: &impl L9Samples,
    body: Body,
    level: u8,
    face: Face,
    a: i64,
    b: i64,
) -> (f64, Cover) {
    let dir = dir_from_tans(face, tan_of(level, a), tan_of(level, b));
    let s = stencil(src, face, l9_position(level, a), l9_position(level, b));
    let b = base(&s);
    // A lake is flat at its level. The ocean is where the surface is below the datum, unless
    // the nearest node is land and land below the datum is near (Qattara, polders: only under
    // a water mask; without one this is the sign rule the GPU's `tiles.amplify` follows).
    if let Some((indicator, level)) = s.lake {
        if indicator >= 0.5 {
            return (level, Cover::Lake);
        }
    }
    let sign_rule = s.nearest == Cover::Ocean || !s.land_below_datum;
    if b.h0 < 0.0 && sign_rule {
        return (b.h0, Cover::Ocean);
    }
    let h = detail(src, body, level, face, dir, &s, &b);
    let cover = if h < 0.0 && sign_rule {
        Cover::Ocean
    } else {
        Cover::Land
    };
    (h, cover)
}

/// The amplified height of land at `dir` from its stencil's surface quantities (TERRAIN.md
/// §6).
fn detail(
    src: &impl L9Samples,
    body: Body,
    level: u8,
    face: Face,
    dir: DVec3,
    s: &Stencil,
    b: &Base,
) -> f64 {
    if level < FIRST_BAND_LEVEL {
        return b.h0;
    }
    let t9 = body.texel(LAST_STORED_LEVEL);
    let slope = (b.gx * b.gx + b.gy * b.gy).sqrt() / t9;
    let curv = (-b.lap / (CURVATURE_LAPLACIAN_TEXELS * t9)).clamp(-1.0, 1.0);
    let region_p = dir * (body.radius / REGION_CELL_M);
    let region = perlin(region_p, SEED_REGION);
    let z2 = dir.z * dir.z;
    let wet = (wet_belt(z2) + 0.3 * perlin(region_p, SEED_WET)).clamp(0.0, 1.0);
    // Sea-level temperature by latitude, lapse-corrected at 6.5 °C/km.
    let temp = 28.0 - 42.0 * z2 - 0.0065 * b.h0;
    let weight = (slope / FULL_SLOPE).clamp(FLAT_WEIGHT, 1.0);
    let bare = smoothstep(ROCK_BARE_SLOPE, ROCK_FULL_SLOPE, slope);
    let fine_weight = weight.max(bare);
    let talus = (-curv).max(0.0) * smoothstep(4.0, -4.0, temp).max(1.0 - wet);
    let gullies = wet * smoothstep(0.3, 0.9, slope) * smoothstep(-2.0, 8.0, temp);
    let strata = smoothstep(0.0, 0.4, region) * smoothstep(0.5, 1.2, slope);
    let bedding = 40.0 * perlin(region_p, SEED_BEDDING);
    let convex = curv.abs();
    let (mut d, mut bound) = (0.0, 0.0);
    for k in FIRST_BAND_LEVEL..=level.min(LAST_BAND_LEVEL) {
        let lambda = BAND_WAVELENGTH_TEXELS * body.texel(k);
        let cap = BAND_CAP * lambda;
        let w = if k >= FIRST_BARE_BAND {
            fine_weight
        } else {
            weight
        };
        let mut amp =
            (BAND_AMPLITUDE * lambda * w * (1.0 + 0.35 * curv) * (0.82 + 0.42 * wet)).min(cap);
        if k >= FIRST_TALUS_LEVEL {
            amp *= 1.0 - 0.6 * talus;
        }
        // Lattice cell λ/2: Perlin's energy sits near two cells.
        let p = dir * (2.0 * body.radius / lambda);
        let n = perlin(p, band_seed(k));
        let ridged = 1.0 - 2.0 * n.abs() - RIDGE_MEAN;
        let mut shape = (1.0 - convex) * n + convex * if curv > 0.0 { ridged } else { -ridged };
        if k >= FIRST_BARE_BAND {
            shape = (1.0 - bare) * shape + bare * ridged;
        }
        if k <= LAST_GULLY_LEVEL && gullies > 0.0 {
            shape = (1.0 - gullies) * shape + gullies * gully(face, s, p, k);
        }
        let mut band = amp * shape;
        if k <= LAST_TERRACE_LEVEL && strata > 0.0 {
            let period = TERRACE_PERIOD_TEXELS * body.texel(k);
            band += strata * terrace((b.h0 + bedding) / period) * period;
        }
        d += band.clamp(-cap, cap);
        bound += cap;
    }
    // Detail fades toward the datum contour, and toward a lake's level beside one, so land
    // never dips below the water it borders (its L9 shore nodes stand above the level:
    // `water::coastal_land`).
    let above_water = match s.lake {
        Some((_, level)) => b.h0.abs().min((b.h0 - level).max(0.0)),
        None => b.h0.abs(),
    };
    let mut h = b.h0 + shore_fade(above_water / bound) * d;
    if level >= FIRST_ROCK_LEVEL {
        h += rock_height(src, body, level, face, dir);
    }
    h
}

/// The stored value of face-global sample (I, J) of `face` at amplified `level`, which may lie
/// in an apron beyond the face (the owner's value; cube-corner rule: mean of three).
pub fn sample(
    src: &impl L9Samples,
    body: Body,
    level: u8,
    face: Face,
    i: i64,
    j: i64,
) -> (f32, Cover) {
    match canonical_sample(level, face, i, j) {
        SampleRef::Owned(f, a, b) => {
            let (h, c) = amplified_cover(src, body, level, f, a, b);
            (h as f32, c)
        }
        SampleRef::Corner(three) => {
            let v = three.map(|(f, a, b)| amplified_cover(src, body, level, f, a, b));
            let h = v.map(|s| s.0 as f32 as f64);
            let m = (((h[0] + h[1]) + h[2]) / 3.0) as f32;
            // Covered as the stored levels' corner rule (`derive::mean_sample`) decides.
            let cover = mean_sample((h[0] + h[1]) + h[2], &v.map(|s| s.1)).1;
            (
                m,
                if cover == Cover::Ocean && m >= 0.0 {
                    Cover::Land
                } else {
                    cover
                },
            )
        }
    }
}

/// Makes amplified tile `id` (level ≥ 10) from the L9 samples of `src`.
pub fn amplify_tile(id: TileId, body: Body, src: &impl L9Samples) -> Tile {
    debug_assert!(id.level > LAST_STORED_LEVEL);
    let a = TILE_APRON as i64;
    let stride = TILE_STRIDE as i64;
    let span = |first: i64, last: i64| {
        (
            l9_position(id.level, first).floor() as i64 - 1,
            l9_position(id.level, last).floor() as i64 + 3,
        )
    };
    let patch = Patch::new(
        src,
        id.face,
        span(id.global_i(-a), id.global_i(stride - a - 1)),
        span(id.global_j(-a), id.global_j(stride - a - 1)),
    );
    let mut tile = Tile::empty(id);
    for row in 0..stride {
        let j = id.global_j(row - a);
        for col in 0..stride {
            let i = id.global_i(col - a);
            let (h, cover) = match canonical_sample(id.level, id.face, i, j) {
                SampleRef::Owned(f, x, y) if f == id.face => {
                    let (h, c) = amplified_cover(&patch, body, id.level, f, x, y);
                    (h as f32, c)
                }
                _ => sample(src, body, id.level, id.face, i, j),
            };
            tile.set_height_cover((row * stride + col) as usize, h, cover);
        }
    }
    tile
}
