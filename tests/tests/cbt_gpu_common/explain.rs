//! Why a GPU decision differs from the model's: every flag and wish is a threshold test on
//! measures that the GPU evaluates in f32 and the model in f64. A difference is explained when
//! the model's own f64 measure sits at that threshold within the measurement error (positions
//! agree to `POS_TOL` of their distance; residuals to the two sides' actual difference).

use engine::camera::ViewCamera;
use engine::cbt::base::canonical;
use engine::cbt::bisector::{
    Bisector, FLAG_CAPPED, FLAG_CULLED, FLAG_DRAW, FLAG_FINE, FLAG_OFFSCREEN,
};
use engine::cbt::criterion::{edge_px, residual_px, targets, View};
use engine::cbt::leb;
use engine::cbt::stages::eval::DepthCap;
use engine::cbt::stages::positions;
use engine::cbt::{Pool, Surface};
use engine::planet::cube::{fixed_to_unit, Face};
use glam::DVec3;

/// Relative position agreement of GPU and model (measured ≤ 1e-4 of distance at 2 m above the
/// ground, ≤ 3e-6 above 100 m: `cbt_gpu_model`).
pub const POS_TOL: f64 = 2e-4;

#[derive(Debug)]
pub struct Diff {
    pub index: u32,
    pub what: String,
    /// At its threshold within the measurement error.
    pub near: bool,
}

/// Signed margins of the depth cap and of the fine-detail cap (L14's), metres: child leg −
/// fraction × the cap's texel (< 0: capped, or fine), and the tolerance.
fn cap_margin(b: &Bisector, s: &dyn Surface, view: &View) -> (f64, f64, f64) {
    let p = positions(b);
    let c = leb::unpack(b.corners);
    let near = (0..3)
        .min_by(|&i, &j| p[i].length().total_cmp(&p[j].length()))
        .unwrap_or(0);
    let (f, q) = canonical(leb::face_index(b.path), c[near]);
    let (u, v) = (fixed_to_unit(q[0] as u64), fixed_to_unit(q[1] as u64));
    let cap = DepthCap::new(
        s.finest_texel(Face(f), u, v),
        s.finest_level(Face(f), u, v),
        &view.params,
    );
    let leg = 0.5 * (p[2] - p[0]).length();
    let frac = view.params.depth_cap_texel_fraction;
    (
        leg - frac * cap.texel,
        leg - frac * cap.fine_texel,
        POS_TOL * p[0].length().max(p[2].length()),
    )
}

/// Signed margin of the frustum test, metres: min over planes of n·g + r (< 0: offscreen).
fn frustum_margin(p: &[DVec3; 3], view: &View) -> (f64, f64) {
    let g = (p[0] + p[1] + p[2]) / 3.0;
    let r = (0..3).map(|k| (p[k] - g).length()).fold(0.0, f64::max) * view.params.frustum_inflate;
    let m = view
        .planes
        .iter()
        .map(|n| n.dot(g) + r)
        .fold(f64::MAX, f64::min);
    (
        m,
        POS_TOL * (0..3).map(|k| p[k].length()).fold(0.0, f64::max),
    )
}

/// Whether the horizon test is at one of its boundaries: a corner's line of sight grazing the
/// datum, or the datum patch touching the visible cap, within the position error.
fn horizon_near(p: &[DVec3; 3], view: &View) -> bool {
    let c = view.centre;
    let r = view.radius;
    let e = (-c).normalize();
    let cap = (r / c.length()).acos();
    for &q in p {
        let t = (c.dot(q) / q.length_squared()).clamp(0.0, 1.0);
        let miss = (c - q * t).length() - r;
        if miss.abs() <= POS_TOL * q.length() {
            return true;
        }
        let ang = (q - c).normalize().dot(e).clamp(-1.0, 1.0).acos();
        if (ang - cap).abs() <= POS_TOL * q.length() / r {
            return true;
        }
    }
    // The patch's edges: the arc closest to the eye's direction.
    for k in 0..3 {
        let (a, b) = ((p[k] - c).normalize(), (p[(k + 1) % 3] - c).normalize());
        let n = a.cross(b).normalize();
        let ang = (e.dot(n)).abs().asin();
        let tol = POS_TOL * p[k].length().max(p[(k + 1) % 3].length()) / r;
        if (ang - 0.0).abs() <= tol || (ang - (std::f64::consts::FRAC_PI_2 - cap)).abs() <= tol {
            return true;
        }
    }
    false
}

/// Split measure of a leaf from its stored values: max(residual / target, edge / target).
pub fn split_ratio(b: &Bisector, view: &View) -> f64 {
    let p = positions(b);
    let t = targets(&p, view);
    ((b.r_hyp.max(b.r_leg) as f64) / t.residual_px).max(edge_px(&p, view) / t.edge_px)
}

/// Merge measure of the parent of (even, odd) from their stored values, over the hysteresis.
fn merge_ratio(even: &Bisector, odd: &Bisector, view: &View) -> ([DVec3; 3], f64) {
    let (pe, po) = (positions(even), positions(odd));
    let p = [pe[2], pe[0], po[0]];
    let r_hyp = residual_px(pe[1], p[0], p[2], view);
    let r_leg = (even.r_hyp as f64).max(odd.r_hyp as f64);
    let t = targets(&p, view);
    let h = view.params.merge_hysteresis;
    (
        p,
        (r_hyp.max(r_leg) / (h * t.residual_px)).max(edge_px(&p, view) / (h * t.edge_px)),
    )
}

/// Decisions (flags, wishes, pushes) of `gpu` that differ from the model's `cpu`, each
/// classified as at its threshold or not.
pub fn decisions(
    gpu: &[Bisector],
    cpu: &Pool,
    s: &dyn Surface,
    view: &View,
    _cam: &ViewCamera,
) -> Vec<Diff> {
    let mut out = Vec::new();
    let mut pushed = Vec::new();
    for i in cpu.leaves() {
        let (a, b) = (&gpu[i as usize], &cpu.entries[i as usize]);
        let p = positions(b);
        let flags = a.flags ^ b.flags;
        let mut flag_near = true;
        if flags & FLAG_CAPPED != 0 {
            let (m, _, tol) = cap_margin(b, s, view);
            flag_near &= m.abs() <= tol;
            out.push(Diff {
                index: i,
                what: format!(
                    "entry {i} capped {} vs {} (margin {m:.2e} m, tol {tol:.1e})",
                    a.flags & FLAG_CAPPED != 0,
                    b.flags & FLAG_CAPPED != 0
                ),
                near: m.abs() <= tol,
            });
        }
        if flags & FLAG_FINE != 0 {
            let (_, m, tol) = cap_margin(b, s, view);
            flag_near &= m.abs() <= tol;
            out.push(Diff {
                index: i,
                what: format!("entry {i} fine differs (margin {m:.2e} m, tol {tol:.1e})"),
                near: m.abs() <= tol,
            });
        }
        if flags & FLAG_OFFSCREEN != 0 {
            let (m, tol) = frustum_margin(&p, view);
            flag_near &= m.abs() <= tol;
            out.push(Diff {
                index: i,
                what: format!("entry {i} offscreen (margin {m:.2e} m, tol {tol:.1e})"),
                near: m.abs() <= tol,
            });
        }
        if flags & FLAG_CULLED != 0 {
            let near = horizon_near(&p, view);
            flag_near &= near;
            out.push(Diff {
                index: i,
                what: format!("entry {i} horizon-culled differs"),
                near,
            });
        }
        if flags & FLAG_DRAW != 0 && flags & (FLAG_CULLED | FLAG_OFFSCREEN) == 0 {
            out.push(Diff {
                index: i,
                what: format!("entry {i} draw flag alone"),
                near: false,
            });
        }
        if a.wish != b.wish {
            let ratio = split_ratio(b, view);
            let ratio_gpu = split_ratio(a, view);
            let err = (ratio - ratio_gpu).abs() + 1e-5;
            let mut near = flags != 0 && flag_near || (ratio - 1.0).abs() <= err;
            let mut what = format!(
                "entry {i} wish {} vs {} (split ratio {ratio:.6} vs GPU's {ratio_gpu:.6})",
                a.wish, b.wish
            );
            if let Some(sib) = engine::cbt::stages::decide::leaf_sibling(cpu, b) {
                let (e, o) = if leb::is_even(b.path) {
                    (i, sib)
                } else {
                    (sib, i)
                };
                let (pp, m) = merge_ratio(&cpu.entries[e as usize], &cpu.entries[o as usize], view);
                let (_, m_gpu) = merge_ratio(&gpu[e as usize], &gpu[o as usize], view);
                let hidden_near = horizon_near(&pp, view)
                    || frustum_margin(&pp, view).0.abs() <= frustum_margin(&pp, view).1;
                near |= (m - 1.0).abs() <= (m - m_gpu).abs() + 1e-5 || hidden_near;
                what += &format!(", parent merge ratio {m:.6} vs GPU's {m_gpu:.6}");
            }
            out.push(Diff {
                index: i,
                what,
                near,
            });
        }
        if a.pushed != b.pushed {
            pushed.push(i);
        }
    }
    // A push follows a split wish down the twin chain: explained when a wish differs too.
    let wishes_explained = out.iter().any(|d| d.what.contains("wish") && d.near);
    for i in pushed {
        out.push(Diff {
            index: i,
            what: format!("entry {i} pushed (chain of a differing wish)"),
            near: wishes_explained,
        });
    }
    out
}
