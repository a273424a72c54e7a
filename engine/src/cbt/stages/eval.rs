//! `cbt.eval`: corner positions, midpoint residuals, screen measure and flags of one entry.
//! Runs over every live entry at iteration 0 and over `FLAG_DIRTY` ones after (and in FINISH).
//!
//! Reads: own path, depth, corners; the surface; the view.
//! Writes: own positions, r_hyp, r_leg, flags (clears `FLAG_DIRTY`).

use super::super::base::canonical;
use super::super::bisector::{Bisector, FLAG_CAPPED, FLAG_CULLED, FLAG_DRAW, FLAG_OFFSCREEN};
use super::super::criterion::{horizon_culled, offscreen, residual_px, store3, View};
use super::super::leb::{self, Corner, MAX_DEPTH};
use super::super::surface::Surface;
use crate::planet::cube::{fixed_to_unit, Face};
use glam::DVec3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EvalOut {
    pub positions: [f32; 9],
    pub r_hyp: f32,
    pub r_leg: f32,
    pub flags: u32,
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

pub fn eval_kernel<S: Surface + ?Sized>(b: &Bisector, surface: &S, view: &View) -> EvalOut {
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
    // finest available texel at the nearest corner.
    let near = (0..3)
        .min_by(|&i, &j| p[i].length().total_cmp(&p[j].length()))
        .unwrap_or(0);
    let (nf, nq) = canonical(face, c[near]);
    let texel = surface.finest_texel(
        Face(nf),
        fixed_to_unit(nq[0] as u64),
        fixed_to_unit(nq[1] as u64),
    );
    let child_leg = 0.5 * (p[2] - p[0]).length();
    let capped = b.depth >= MAX_DEPTH
        || leb::midpoint(c[0], c[2]).is_none()
        || child_leg < view.params.depth_cap_texel_fraction * texel;

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
    if !culled && !off {
        flags |= FLAG_DRAW;
    }
    let mut positions = [0f32; 9];
    for k in 0..3 {
        positions[3 * k] = p[k].x as f32;
        positions[3 * k + 1] = p[k].y as f32;
        positions[3 * k + 2] = p[k].z as f32;
    }
    EvalOut {
        positions,
        r_hyp: r_hyp as f32,
        r_leg: r_leg0.max(r_leg1) as f32,
        flags,
    }
}
