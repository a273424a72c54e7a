//! The f64 criterion oracle: what a quiet mesh must satisfy, measured on the CPU from positions
//! evaluated afresh in f64 on any [`Surface`] (the analytic planet for the model's tests, the
//! tile surface for the GPU's): no visible, uncapped leaf above the split targets and no
//! four-leaf diamond whose parents both measure under the merge targets, beyond a stated
//! relative tolerance.

use super::bisector::{FLAG_CAPPED, FLAG_CULLED, FLAG_OFFSCREEN, INVALID};
use super::criterion::{edge_px, horizon_culled, offscreen, targets, under_merge_targets, View};
use super::leb;
use super::params::CbtParams;
use super::pool::Pool;
use super::stages::eval::corner_position;
use super::surface::Surface;
use crate::camera::ViewCamera;
use glam::DVec3;

/// What the f64 oracle found.
#[derive(Debug, Default)]
pub struct Oracle {
    /// Visible, uncapped leaves whose f64 criterion asks for a split beyond the tolerance.
    pub under_refined: Vec<(u64, f64, f64)>,
    /// Four-leaf diamonds whose two parents both measure under the hysteresis targets
    /// (beyond the tolerance) and none of whose leaves wants to split.
    pub mergeable: usize,
    /// Leaves the oracle skipped because they are hidden or capped (f64 or stored flags).
    pub excused: usize,
    pub checked: usize,
}

/// The f64 criterion over every leaf, from positions evaluated afresh in f64 (never the
/// stored f32 ones): residuals at the three edge midpoints, edge px, targets. `rel_tol` is the
/// relative slack on every measure (the f32 rounding of whoever built the mesh).
pub fn oracle<S: Surface + ?Sized>(
    pool: &Pool,
    s: &S,
    cam: &ViewCamera,
    p: &CbtParams,
    rel_tol: f64,
) -> Oracle {
    let view = View::new(cam, s.radius(), *p);
    let mut o = Oracle::default();
    let measure = |path: u64, c: leb::Corners| -> ([DVec3; 3], f64, f64, bool) {
        let face = leb::face_index(path);
        let pos = |k: leb::Corner| corner_position(s, face, k, &view);
        let q = [pos(c[0]), pos(c[1]), pos(c[2])];
        let res = |a: usize, b: usize| {
            let m = leb::midpoint(c[a], c[b]).unwrap_or_else(|| leb::midpoint_floor(c[a], c[b]));
            let mid = pos(m);
            let chord = (q[a] + q[b]) * 0.5;
            mid.cross(chord).length().atan2(mid.dot(chord)) / cam.pixel_angle()
        };
        let r_hyp = res(0, 2);
        let r_leg = res(0, 1).max(res(1, 2));
        let hidden = (p.horizon_cull && horizon_culled(&q, &view)) || offscreen(&q, &view);
        (q, r_hyp, r_leg, hidden)
    };
    let leaves: Vec<u32> = pool.leaves().collect();
    let mut wants = std::collections::HashSet::new();
    for &i in &leaves {
        let b = &pool.entries[i as usize];
        let (q, r_hyp, r_leg, hidden) = measure(b.path, leb::unpack(b.corners));
        let t = targets(&q, &view);
        let ratio = (r_hyp.max(r_leg) / t.residual_px).max(edge_px(&q, &view) / t.edge_px);
        if ratio > 1.0 {
            wants.insert(i);
        }
        // Excused: hidden or capped by either the f64 or the stored judgement (they may differ
        // on the boundary), or at the fixed-point depth limit.
        if hidden || b.flags & (FLAG_CAPPED | FLAG_CULLED | FLAG_OFFSCREEN) != 0 {
            o.excused += 1;
            continue;
        }
        o.checked += 1;
        if ratio > 1.0 + rel_tol {
            o.under_refined
                .push((b.path, r_hyp.max(r_leg), edge_px(&q, &view)));
        }
    }
    // Diamonds: from each even leaf with a leaf sibling and a facing leaf pair.
    for &i in &leaves {
        let b = &pool.entries[i as usize];
        if b.depth <= leb::BASE_DEPTH || !leb::is_even(b.path) {
            continue;
        }
        let s_ = b.neighbours[0];
        if s_ == INVALID || pool.entries[s_ as usize].path != b.path ^ 1 {
            continue;
        }
        let sb = &pool.entries[s_ as usize];
        let (a, c) = (b.neighbours[1], sb.neighbours[0]);
        let (ab, cb) = (&pool.entries[a as usize], &pool.entries[c as usize]);
        if ab.path != cb.path ^ 1 || ab.depth != b.depth || !leb::is_even(cb.path) {
            continue;
        }
        // Count each diamond once: from the even child with the smaller path.
        if b.path > cb.path {
            continue;
        }
        if [i, s_, a, c].iter().any(|x| wants.contains(x)) {
            continue;
        }
        let parent_mergeable = |path: u64| {
            let c = leb::corners_of(path).expect("valid parent path");
            let (q, r_hyp, r_leg, hidden) = measure(path, c);
            let shrink = 1.0 - rel_tol;
            hidden
                || under_merge_targets(&q, r_hyp / shrink, r_leg / shrink, &view)
                    && edge_px(&q, &view) < shrink * p.merge_hysteresis * targets(&q, &view).edge_px
        };
        if parent_mergeable(leb::parent(b.path)) && parent_mergeable(leb::parent(cb.path)) {
            o.mergeable += 1;
        }
    }
    o
}
