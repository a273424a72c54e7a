//! The blended terrain surface on the CPU, in f64: the same definition `shaders/common/surface.glsl`
//! evaluates on the GPU (level selection from ray distance, the weighted parent-chain walk with
//! edge bands and arrival fades, explicit bilinear gathers). Used as the reference the GPU is
//! tested against and by the reference ray caster.

use crate::atlas::slots::{Residency, ResidentTile};
use crate::planet::cube::{dir_to_face, fixed_to_unit, unit_to_fixed};
use crate::planet::{Body, Face};
use glam::DVec3;

/// How the level is chosen: what the GPU reads from the frame constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodParams {
    /// Texel size at L0, metres.
    pub texel0: f64,
    /// Angle of one pixel, radians.
    pub pixel_angle: f64,
    pub lod_bias: f64,
    /// Finest level the selection may choose.
    pub max_level: u8,
}

impl LodParams {
    /// The renderer's level selection for `cam` over `body`: no bias, every level up to
    /// `params::MAX_LEVEL`.
    pub fn for_camera(body: Body, cam: &crate::camera::ViewCamera) -> LodParams {
        LodParams {
            texel0: body.texel0(),
            pixel_angle: cam.pixel_angle(),
            lod_bias: 0.0,
            max_level: crate::params::MAX_LEVEL,
        }
    }

    /// lc = log2(texel0 / (t·pixelAngle)) + bias.
    pub fn lod(&self, t: f64) -> f64 {
        (self.texel0 / (t.max(1e-3) * self.pixel_angle)).log2() + self.lod_bias
    }
}

/// Level L and its weight over the parent, given the finest resident level `fl`.
pub fn select_level(lc: f64, fl: u8) -> (u8, f64) {
    let lw = lc.ceil() as i64;
    if lw > fl as i64 {
        (fl, 1.0)
    } else if lw <= 0 {
        (0, 1.0)
    } else {
        (lw as u8, (lc - (lw - 1) as f64).clamp(0.0, 1.0))
    }
}

/// Tile-local texel coordinates of fixed point (X, Y) in `t`.
pub fn fixed_to_st(t: &ResidentTile, x: i64, y: i64) -> (f64, f64) {
    let shift = 30 - t.id.level as u32;
    let scale = 2f64.powi(t.id.level as i32 - 21);
    (
        (x - ((t.id.x as i64) << shift)) as f64 * scale,
        (y - ((t.id.y as i64) << shift)) as f64 * scale,
    )
}

/// The tile's height at (s, t): its payload, cross-faded from the previous one during a
/// same-slot replacement (the mirror of `tile_height_grad` in tiles.glsl).
pub fn tile_height(t: &ResidentTile, s: f64, tt: f64) -> f64 {
    let h = payload_height(&t.tile, s, tt);
    match &t.from {
        Some((_, old)) if t.xfade < 1.0 => {
            let h0 = payload_height(old, s, tt);
            h0 + (h - h0) * t.xfade as f64
        }
        _ => h,
    }
}

/// Explicit bilinear gather of one payload's stored samples (sample i at s = i + 0.5).
fn payload_height(tile: &crate::earth::Tile, s: f64, tt: f64) -> f64 {
    let (gx, gy) = (s - 0.5, tt - 0.5);
    let (ix, iy) = (
        (gx.floor() as i64).clamp(-4, 514),
        (gy.floor() as i64).clamp(-4, 514),
    );
    let (fx, fy) = (gx - ix as f64, gy - iy as f64);
    let h = |i: i64, j: i64| tile.height(i, j) as f64;
    let a = h(ix, iy) + (h(ix + 1, iy) - h(ix, iy)) * fx;
    let b = h(ix, iy + 1) + (h(ix + 1, iy + 1) - h(ix, iy + 1)) * fx;
    a + (b - a) * fy
}

const EDGE_BAND: f64 = 16.0;

fn edge_profile(along: f64, c0: f64, e: f64, c1: f64) -> f64 {
    let mix = |a: f64, b: f64, x: f64| a + (b - a) * x.clamp(0.0, 1.0);
    if along < EDGE_BAND {
        mix(c0, e, along / EDGE_BAND)
    } else if along > 512.0 - EDGE_BAND {
        mix(e, c1, (along - (512.0 - EDGE_BAND)) / EDGE_BAND)
    } else {
        e
    }
}

/// Weight of a tile over its parent at (s, t): its fade inside, the shared edge/corner weights
/// at its border, blended over a 16-texel band.
pub fn spatial_weight(res: &Residency, t: &ResidentTile, s: f64, tt: f64) -> f64 {
    let inner = t.fade as f64;
    // Past every edge's band each edge's mix is `inner` whole (surface.glsl takes the same
    // shortcut).
    let band = EDGE_BAND..=512.0 - EDGE_BAND;
    if band.contains(&s) && band.contains(&tt) {
        return inner.clamp(0.0, 1.0);
    }
    let (e, c) = res.weights(t);
    let (e, c) = (e.map(|x| x as f64), c.map(|x| x as f64));
    let mix = |a: f64, b: f64, x: f64| a + (b - a) * x.clamp(0.0, 1.0);
    let wl = mix(edge_profile(tt, c[0], e[0], c[2]), inner, s / EDGE_BAND);
    let wr = mix(
        edge_profile(tt, c[1], e[1], c[3]),
        inner,
        (512.0 - s) / EDGE_BAND,
    );
    let wb = mix(edge_profile(s, c[0], e[2], c[1]), inner, tt / EDGE_BAND);
    let wt = mix(
        edge_profile(s, c[2], e[3], c[3]),
        inner,
        (512.0 - tt) / EDGE_BAND,
    );
    wl.min(wr).min(wb.min(wt)).clamp(0.0, 1.0)
}

fn st_in_parent(t: &ResidentTile, s: f64, tt: f64) -> (f64, f64) {
    (
        (s + 512.0 * (t.id.x & 1) as f64) * 0.5,
        (tt + 512.0 * (t.id.y & 1) as f64) * 0.5,
    )
}

/// First tile's height and spatial weight, and the parents' blend (see surface.glsl `Blend`).
pub struct Blend {
    pub h_first: f64,
    pub ws: f64,
    pub h_rest: f64,
    pub level: u8,
}

impl Blend {
    pub fn height(&self, w: f64) -> f64 {
        if self.level == 0 {
            return self.h_first;
        }
        let wf = w * self.ws;
        wf * self.h_first + (1.0 - wf) * self.h_rest
    }
}

fn parent_of<'r>(res: &'r Residency, t: &ResidentTile) -> Option<&'r ResidentTile> {
    t.id.parent().and_then(|p| res.get(&p))
}

pub fn blend_chain(res: &Residency, t: &ResidentTile, s: f64, tt: f64) -> Blend {
    let h_first = tile_height(t, s, tt);
    let level = t.id.level;
    if level == 0 {
        return Blend {
            h_first,
            ws: 1.0,
            h_rest: h_first,
            level,
        };
    }
    let ws = spatial_weight(res, t, s, tt);
    let (mut h, mut rem) = (0.0, 1.0);
    let (mut ps, mut pt) = st_in_parent(t, s, tt);
    let mut cur = parent_of(res, t).expect("residency is closed under ancestors");
    loop {
        let root = cur.id.level == 0 || parent_of(res, cur).is_none();
        let w = if root {
            1.0
        } else {
            spatial_weight(res, cur, ps, pt)
        };
        h += rem * w * tile_height(cur, ps, pt);
        rem *= 1.0 - w;
        if rem <= 0.0 || root {
            break;
        }
        (ps, pt) = st_in_parent(cur, ps, pt);
        cur = parent_of(res, cur).expect("checked above");
    }
    Blend {
        h_first,
        ws,
        h_rest: h,
        level,
    }
}

fn ancestor_at<'r>(
    res: &'r Residency,
    mut t: &'r ResidentTile,
    mut s: f64,
    mut tt: f64,
    level: u8,
) -> (&'r ResidentTile, f64, f64) {
    while t.id.level > level {
        match parent_of(res, t) {
            Some(p) => {
                (s, tt) = st_in_parent(t, s, tt);
                t = p;
            }
            None => break,
        }
    }
    (t, s, tt)
}

/// The face that owns the direction of planet-centred point `p`, and p's fixed-point
/// coordinates on it: where every reader of the surface at a point addresses it. The GPU's
/// `locate_abh` (surface.glsl) re-addresses a point past its hint's face onto this face, so a
/// fragment past its triangle's face reads the owning face's tiles, not the folded apron.
pub fn owning_fixed(p: DVec3) -> (Face, u64, u64) {
    let (face, u, v) = dir_to_face(p);
    (face, unit_to_fixed(u), unit_to_fixed(v))
}

/// The finest resident tile (level ≤ `max_level`) under planet-centred point `p`, on the face
/// that owns it, and p's texel coordinates in that tile (the CPU side of `locate_abh`).
pub fn locate(res: &Residency, max_level: u8, p: DVec3) -> (&ResidentTile, f64, f64) {
    let (face, x, y) = owning_fixed(p);
    let t = res.finest(face, x, y, max_level);
    let (s, tt) = fixed_to_st(t, x as i64, y as i64);
    (t, s, tt)
}

/// Blended height under planet-centred point `p` for ray distance `t_dist`, and the level
/// chosen.
pub fn height_at_point(res: &Residency, lod: &LodParams, p: DVec3, t_dist: f64) -> (f64, u8) {
    let (face, x, y) = owning_fixed(p);
    height_at_fixed(res, lod, face, x, y, t_dist)
}

/// Blended height at fixed point (X, Y) of `face` for ray distance `t_dist`.
pub fn height_at_fixed(
    res: &Residency,
    lod: &LodParams,
    face: Face,
    x: u64,
    y: u64,
    t_dist: f64,
) -> (f64, u8) {
    let fs = res.finest(face, x, y, lod.max_level);
    let (s, tt) = fixed_to_st(fs, x as i64, y as i64);
    let (level, w) = select_level(lod.lod(t_dist), fs.id.level);
    let (a, s2, t2) = ancestor_at(res, fs, s, tt, level);
    (blend_chain(res, a, s2, t2).height(w), level)
}

/// A surface point as `surface_at_fixed` computes it on the GPU (two-pass distance ↔ level),
/// with the exact f64 position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuSurfacePoint {
    /// Planet-centred position, metres.
    pub position: DVec3,
    pub height: f64,
    pub level: u8,
    pub lod: f64,
}

pub fn surface_at_fixed(
    res: &Residency,
    lod: &LodParams,
    body: Body,
    eye: DVec3,
    face: Face,
    x: u64,
    y: u64,
) -> CpuSurfacePoint {
    let (face, x, y) = canonical_vertex(face, x, y);
    let fs = res.finest(face, x, y, lod.max_level);
    let (s, tt) = fixed_to_st(fs, x as i64, y as i64);
    let dir = face.direction(fixed_to_unit(x), fixed_to_unit(y));
    let at = |h: f64| dir * (body.radius + h);
    let h0 = tile_height(fs, s, tt);
    let lc0 = lod.lod((at(h0) - eye).length());
    let (mut level, mut w) = select_level(lc0, fs.id.level);
    let (a, s2, t2) = ancestor_at(res, fs, s, tt, level);
    let mut blend = blend_chain(res, a, s2, t2);
    let h = blend.height(w);
    let lc1 = lod.lod((at(h) - eye).length());
    let (l1, w1) = select_level(lc1, fs.id.level);
    w = w1;
    if l1 != level {
        let (a, s2, t2) = ancestor_at(res, fs, s, tt, l1);
        blend = blend_chain(res, a, s2, t2);
        level = l1;
    }
    let h = blend.height(w);
    CpuSurfacePoint {
        position: at(h),
        height: h,
        level,
        lod: lc1,
    }
}

/// The lowest-numbered face holding a cube-edge/corner vertex, exactly (mirror of
/// `canonical_vertex` in planet.glsl).
pub fn canonical_vertex(face: Face, x: u64, y: u64) -> (Face, u64, u64) {
    let one = 1u64 << 30;
    if face.0 == 0 || !(x == 0 || x == one || y == 0 || y == one) {
        return (face, x, y);
    }
    let h = 1i64 << 29;
    let c = face.axis() * h as f64
        + face.u_axis() * (x as i64 - h) as f64
        + face.v_axis() * (y as i64 - h) as f64;
    for f in Face::ALL.into_iter().take(face.0 as usize) {
        if c.dot(f.axis()) == h as f64 {
            let u = c.dot(f.u_axis()) as i64 + h;
            let v = c.dot(f.v_axis()) as i64 + h;
            return (f, u as u64, v as u64);
        }
    }
    (face, x, y)
}

/// The tile surface as the CBT's CPU model sees it (`cbt::surface::Surface`): the same blended
/// surface the GPU meshes, so CPU-side criterion checks and the CPU mesh path agree with it.
pub struct TileSurface<'r> {
    pub res: &'r Residency,
    pub lod: LodParams,
    pub body: Body,
}

impl crate::cbt::surface::Surface for TileSurface<'_> {
    fn radius(&self) -> f64 {
        self.body.radius
    }

    fn position(&self, face: Face, u: f64, v: f64, eye: DVec3) -> DVec3 {
        // u, v come from fixed point (fixed_to_unit is exact), so this inverse is exact.
        let fx = |w: f64| ((w + 1.0) * (1u64 << 29) as f64).round() as u64;
        surface_at_fixed(self.res, &self.lod, self.body, eye, face, fx(u), fx(v)).position - eye
    }

    fn finest_texel(&self, face: Face, u: f64, v: f64) -> f64 {
        self.body
            .texel(crate::cbt::surface::Surface::finest_level(self, face, u, v))
    }

    fn finest_level(&self, face: Face, u: f64, v: f64) -> u8 {
        let fx = |w: f64| ((w + 1.0) * (1u64 << 29) as f64).round() as u64;
        let (face, x, y) = canonical_vertex(face, fx(u), fx(v));
        self.res.finest(face, x, y, self.lod.max_level).id.level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_selection_is_continuous_at_ring_boundaries() {
        // Just below and above an integer lod the blended weights meet.
        let (l1, w1) = select_level(4.0 - 1e-9, 9);
        let (l2, w2) = select_level(4.0 + 1e-9, 9);
        assert_eq!((l1, l2), (4, 5));
        assert!((w1 - 1.0).abs() < 1e-6 && w2 < 1e-6);
        assert_eq!(select_level(7.5, 5), (5, 1.0));
        assert_eq!(select_level(-2.0, 5), (0, 1.0));
    }

    #[test]
    fn canonical_vertex_moves_edge_points_to_the_lowest_face() {
        let one = 1u64 << 30;
        // Face 2 (+Y) point on its v = −1 edge (y = 0): shared with face 0? (+Y face's v axis is +X).
        for f in Face::ALL {
            for (x, y) in [
                (0, one / 3),
                (one, one / 5),
                (one / 7, 0),
                (one / 2, one),
                (0, 0),
                (one, one),
            ] {
                let (g, gx, gy) = canonical_vertex(f, x, y);
                assert!(g.0 <= f.0);
                let a = f.direction(fixed_to_unit(x), fixed_to_unit(y));
                let b = g.direction(fixed_to_unit(gx), fixed_to_unit(gy));
                assert!(
                    (a - b).length() < 1e-15,
                    "{f:?} ({x},{y}) -> {g:?} ({gx},{gy})"
                );
            }
        }
    }
}
