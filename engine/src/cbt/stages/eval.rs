//! `cbt.eval`: corner positions, midpoint residuals, screen measure and flags of one entry.
//! Runs over every live entry at iteration 0 and over `FLAG_DIRTY` ones after (and in FINISH).
//!
//! Reads: own path, depth, corners, births; the surface; the view; the update count.
//! Writes: own positions, r_hyp, r_leg, flags (clears `FLAG_DIRTY`), births (a corner whose
//! morph is over is settled).
//!
//! Measures, flags and the depth cap come from the surface positions; the stored positions
//! (what the raster and the resolve draw) are the morphed ones: a corner born less than
//! `MORPH_UPDATES` updates ago lies between its birth edge's chord midpoint and the surface.

use super::super::base::canonical;
use super::super::bisector::{
    birth_of, morph_weight, with_birth, Bisector, FLAG_CAPPED, FLAG_CULLED, FLAG_DRAW, FLAG_FINE,
    FLAG_OFFSCREEN,
};
use super::super::criterion::{
    horizon_culled, incidence_cos, offscreen, residual_px, store3, View,
};
use super::super::leb::{self, Corner, MAX_DEPTH};
use super::super::params::CbtParams;
use super::super::surface::Surface;
use crate::planet::cube::{fixed_to_unit, Face};
use glam::DVec3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EvalOut {
    pub positions: [f32; 9],
    pub r_hyp: f32,
    pub r_leg: f32,
    pub flags: u32,
    pub births: u32,
}

/// Surface position of a fixed-point point, named canonically (a point on a cube edge is
/// evaluated on the lowest-numbered face that holds it, so shared corners are bit-identical).
pub fn corner_position<S: Surface + ?Sized>(
    surface: &S,
    face: u8,
    c: Corner,
    view: &View,
) -> DVec3 {
    let (f, q) = canonical(face, c);
    surface.position(
        Face(f),
        fixed_to_unit(q[0] as u64),
        fixed_to_unit(q[1] as u64),
        view.eye,
    )
}

/// `frame`: the update count (`Control::frame`), the clock of the corners' morphs.
pub fn eval_kernel<S: Surface + ?Sized>(
    b: &Bisector,
    surface: &S,
    view: &View,
    frame: u32,
) -> EvalOut {
    let face = leb::face_index(b.path);
    let c = leb::unpack(b.corners);
    // Six surface evaluations: three corners, three edge midpoints. Stored values are f32;
    // every measure below is computed from the stored values (see criterion.rs for why).
    let p = [0, 1, 2].map(|k| store3(corner_position(surface, face, c[k], view)));
    let probe = |a: Corner, b: Corner| {
        let m = leb::midpoint(a, b).unwrap_or_else(|| leb::midpoint_floor(a, b));
        store3(corner_position(surface, face, m, view))
    };
    let r_hyp = residual_px(probe(c[0], c[2]), p[0], p[2], view);
    let r_leg0 = residual_px(probe(c[0], c[1]), p[0], p[1], view);
    let r_leg1 = residual_px(probe(c[1], c[2]), p[1], p[2], view);

    let culled = view.params.horizon_cull && horizon_culled(&p, view);
    let off = offscreen(&p, view);
    // Depth cap: the children's legs (half this hypotenuse) must stay ≥ a quarter of the
    // finest available texel at the nearest corner — of a coarser level's when the fine-detail
    // gain is below 1.
    let near = (0..3)
        .min_by(|&i, &j| p[i].length().total_cmp(&p[j].length()))
        .unwrap_or(0);
    let (nf, nq) = canonical(face, c[near]);
    let (u, v) = (fixed_to_unit(nq[0] as u64), fixed_to_unit(nq[1] as u64));
    let own_texel = surface.finest_texel(Face(nf), u, v);
    let cap = DepthCap::new(
        own_texel,
        surface.finest_level(Face(nf), u, v),
        &view.params,
    )
    .outline(incidence_cos(&p) < view.params.silhouette_cos, own_texel);
    let child_leg = 0.5 * (p[2] - p[0]).length();
    let frac = view.params.depth_cap_texel_fraction;
    let capped =
        b.depth >= MAX_DEPTH || leb::midpoint(c[0], c[2]).is_none() || child_leg < frac * cap.texel;
    let fine = cap.fine && child_leg < frac * cap.fine_texel;

    let mut flags = 0;
    if culled {
        flags |= FLAG_CULLED;
    }
    if off {
        flags |= FLAG_OFFSCREEN;
    }
    if capped {
        flags |= FLAG_CAPPED;
    }
    if fine {
        flags |= FLAG_FINE;
    }
    if !culled && !off {
        flags |= FLAG_DRAW;
    }
    let mut positions = [0f32; 9];
    let mut births = b.births;
    for k in 0..3 {
        let shown = match morphed(
            surface,
            face,
            c[k],
            p[k],
            birth_of(b.births, k),
            frame,
            view,
        ) {
            Some(q) => q,
            None => {
                births = with_birth(births, k, 0);
                p[k].as_vec3()
            }
        };
        positions[3 * k..3 * k + 3].copy_from_slice(&shown.to_array());
    }
    EvalOut {
        positions,
        r_hyp: r_hyp as f32,
        r_leg: r_leg0.max(r_leg1) as f32,
        flags,
        births,
    }
}

/// Where a corner born with stamp `stamp` is drawn in update `frame`: between its birth edge's
/// chord midpoint (the surface positions of the edge's ends, as the leaf it split showed it)
/// and its surface position `p`, in f32 as the GPU computes it. None once the morph is over.
fn morphed<S: Surface + ?Sized>(
    surface: &S,
    face: u8,
    v: Corner,
    p: DVec3,
    stamp: u32,
    frame: u32,
    view: &View,
) -> Option<glam::Vec3> {
    let w = morph_weight(stamp, frame, view.params.morph_updates);
    if w >= 1.0 {
        return None;
    }
    let (a, b) = leb::birth_edge(v)?;
    let end = |e: Corner| store3(corner_position(surface, face, e, view)).as_vec3();
    let mid = (end(a) + end(b)) * 0.5;
    Some(mid + (p.as_vec3() - mid) * w)
}

/// The depth cap at a point whose finest available texel is `texel` (of level `level`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthCap {
    /// The texel the cap is a fraction of, metres.
    pub texel: f64,
    /// The level is finer than `fine_detail_level` (F) …
    pub fine: bool,
    /// … whose texel is this, metres (= `texel` otherwise).
    pub fine_texel: f64,
}

impl DepthCap {
    /// Level L > F caps at the texel of level F + g·(L − F): texel(F)·2^(−g·(L − F)), exact
    /// powers of two at g = 1 (L's own texel) and g = 0 (F's). The GPU computes the same in
    /// f32 (`shaders/common/cbt_eval.glsl`).
    pub fn new(texel: f64, level: u8, params: &CbtParams) -> DepthCap {
        let f = params.fine_detail_level;
        if level <= f {
            return DepthCap {
                texel,
                fine: false,
                fine_texel: texel,
            };
        }
        let k = (level - f) as f64;
        let fine_texel = texel * k.exp2();
        DepthCap {
            texel: fine_texel * (-params.fine_detail_gain * k).exp2(),
            fine: true,
            fine_texel,
        }
    }

    /// An outline's leaf (CbtParams::silhouette_cos) caps at its own level's texel and is
    /// never fine.
    pub fn outline(self, outline: bool, own_texel: f64) -> DepthCap {
        if !outline {
            return self;
        }
        DepthCap {
            texel: own_texel,
            fine: false,
            fine_texel: own_texel,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planet::Body;

    #[test]
    fn depth_cap_follows_the_gain_between_l14_and_the_finest_level() {
        let b = Body::EARTH;
        let at = |g: f64, level: u8| {
            let p = CbtParams {
                fine_detail_gain: g,
                ..CbtParams::default()
            };
            DepthCap::new(b.texel(level), level, &p)
        };
        // L14 and coarser: the level's own texel whatever the gain, never fine.
        for g in [0.0, 0.3, 1.0] {
            assert_eq!(
                at(g, 14),
                DepthCap {
                    texel: b.texel(14),
                    fine: false,
                    fine_texel: b.texel(14)
                }
            );
            assert_eq!(at(g, 9).texel, b.texel(9));
        }
        // L18: g = 1 its own texel, g = 0 L14's, g = ½ L16's — exactly (powers of two).
        assert_eq!(at(1.0, 18).texel, b.texel(18));
        assert_eq!(at(0.0, 18).texel, b.texel(14));
        assert_eq!(at(0.5, 18).texel, b.texel(16));
        assert_eq!(at(0.5, 18).fine_texel, b.texel(14));
        assert!(at(0.5, 18).fine);
        // In between, log-linear: level 14 + 4g.
        let t = at(0.3, 18).texel;
        assert!((t / b.texel(14) - 2f64.powf(-1.2)).abs() < 1e-12);
    }

    #[test]
    fn an_outline_caps_at_its_own_level_and_is_never_fine() {
        let b = Body::EARTH;
        let p = CbtParams {
            fine_detail_gain: 0.0,
            ..CbtParams::default()
        };
        let cap = DepthCap::new(b.texel(18), 18, &p);
        assert_eq!(cap.texel, b.texel(14));
        assert_eq!(cap.outline(false, b.texel(18)), cap);
        assert_eq!(
            cap.outline(true, b.texel(18)),
            DepthCap {
                texel: b.texel(18),
                fine: false,
                fine_texel: b.texel(18)
            }
        );
    }
}
