//! The refinement criterion and the culling tests, as pure functions of a triangle's three
//! camera-relative corner positions (as stored, f32) and its midpoint residuals.
//!
//! Why everything is a function of the *stored* values: a merging pair assembles its parent's
//! measure from the two children's stored corners and residuals, and that must be bit-for-bit
//! what the parent computes about itself once it is a leaf again — otherwise a pair could merge
//! into a parent that immediately wants to split (an oscillation the hysteresis cannot absorb
//! at the boundary). The children hold all of it: the parent's corners are theirs, its
//! hypotenuse midpoint is their shared apex, its leg midpoints are their hypotenuse midpoints.
//!
//! Screen distances are angles over the centre pixel's angle: exact on the view axis, up to
//! 1/cos²(fov/2) smaller than the projected distance at the frame edge (1.33× at 60°), and
//! independent of where the camera looks, so turning the camera changes only the frustum set.

use super::params::CbtParams;
use crate::camera::ViewCamera;
use glam::DVec3;

/// The per-frame constants every kernel reads (the GPU's uniform block; f32 there).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Planet-centred eye, metres (the CPU surface needs it; the GPU gets tile frames).
    pub eye: DVec3,
    /// Planet centre, camera-relative, metres.
    pub centre: DVec3,
    /// Datum radius, metres.
    pub radius: f64,
    /// Radians per pixel at the view centre.
    pub pixel_angle: f64,
    /// Inward frustum side-plane normals through the eye.
    pub planes: [DVec3; 4],
    pub params: CbtParams,
}

impl View {
    pub fn new(camera: &ViewCamera, radius: f64, params: CbtParams) -> View {
        View {
            eye: camera.eye,
            centre: -camera.eye,
            radius,
            pixel_angle: camera.pixel_angle(),
            planes: camera.frustum_planes(),
            params,
        }
    }
}

/// Rounds to what the GPU keeps (f32).
pub fn store(x: f64) -> f64 {
    x as f32 as f64
}

/// Rounds a position to the stored f32 triple.
pub fn store3(p: DVec3) -> DVec3 {
    DVec3::new(store(p.x), store(p.y), store(p.z))
}

/// Angle between two directions from the eye, radians (stable for tiny and obtuse angles).
pub fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

/// Screen distance between two camera-relative points, px.
pub fn px(a: DVec3, b: DVec3, view: &View) -> f64 {
    angle(a, b) / view.pixel_angle
}

/// Interpolation residual: screen distance between the surface point at an edge's midpoint
/// and the chord midpoint of the edge (a, b), px, rounded as stored.
pub fn residual_px(surface_mid: DVec3, a: DVec3, b: DVec3, view: &View) -> f64 {
    store(px(surface_mid, (a + b) * 0.5, view))
}

/// Longest screen edge, px.
pub fn edge_px(p: &[DVec3; 3], view: &View) -> f64 {
    px(p[0], p[1], view)
        .max(px(p[1], p[2], view))
        .max(px(p[2], p[0], view))
}

/// Distance to the nearest corner, metres.
pub fn nearest_distance(p: &[DVec3; 3]) -> f64 {
    p[0].length().min(p[1].length()).min(p[2].length())
}

fn smoothstep(a: f64, b: f64, x: f64) -> f64 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Split targets of a triangle, px.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Targets {
    pub residual_px: f64,
    pub edge_px: f64,
}

/// |cos| of the angle between the chord's normal and the view direction to its centroid (1 for
/// a degenerate triangle): 0 where the view grazes the chord.
pub fn incidence_cos(p: &[DVec3; 3]) -> f64 {
    let n = (p[1] - p[0]).cross(p[2] - p[0]);
    let g = p[0] + p[1] + p[2];
    if n.length() > 0.0 && g.length() > 0.0 {
        n.normalize().dot(g.normalize()).abs()
    } else {
        1.0
    }
}

/// Targets at this triangle's distance and incidence: edge cap 24 → 48 px over 5 → 20 km;
/// both up to 25 % tighter for grazing triangles, blended in over 2 → 5 km; the residual a
/// further [`CbtParams::outline_tighten`] tighter for the far outlines.
pub fn targets(p: &[DVec3; 3], view: &View) -> Targets {
    let k = &view.params;
    let d = nearest_distance(p);
    let grow =
        ((d - k.edge_grow_start_m) / (k.edge_grow_end_m - k.edge_grow_start_m)).clamp(0.0, 1.0);
    let edge = k.edge_px_near + (k.edge_px_far - k.edge_px_near) * grow;
    let cos_i = incidence_cos(p);
    let graze = ((k.grazing_cos_start - cos_i) / (k.grazing_cos_start - k.grazing_cos_full))
        .clamp(0.0, 1.0);
    let far = smoothstep(k.grazing_blend_start_m, k.grazing_blend_end_m, d);
    let outline =
        ((k.grazing_cos_full - cos_i) / (k.grazing_cos_full - k.outline_cos_full)).clamp(0.0, 1.0);
    let f = 1.0 - k.grazing_tighten * graze * far;
    let fr = f * (1.0 - k.outline_tighten * outline * far);
    Targets {
        residual_px: k.residual_px * fr,
        edge_px: edge * f,
    }
}

/// The split criterion (before flags: culled, offscreen and capped leaves never split): the
/// residual over its target on a triangle whose longest edge is over `split_min_px`, or the
/// edge over its target.
pub fn wants_split(p: &[DVec3; 3], r_hyp: f64, r_leg: f64, view: &View) -> bool {
    let t = targets(p, view);
    let e = edge_px(p, view);
    (r_hyp.max(r_leg) > t.residual_px && e > view.params.split_min_px) || e > t.edge_px
}

/// The merge side of the hysteresis: this triangle (a would-be parent) measures under
/// `merge_hysteresis` × the edge target, and under that fraction of the residual target or of
/// `split_min_px`.
pub fn under_merge_targets(p: &[DVec3; 3], r_hyp: f64, r_leg: f64, view: &View) -> bool {
    let t = targets(p, view);
    let h = view.params.merge_hysteresis;
    let e = edge_px(p, view);
    (r_hyp.max(r_leg) < h * t.residual_px || e < h * view.params.split_min_px) && e < h * t.edge_px
}

/// Outside the frustum: the corners' bounding sphere (inflated) lies behind a side plane.
pub fn offscreen(p: &[DVec3; 3], view: &View) -> bool {
    let g = (p[0] + p[1] + p[2]) / 3.0;
    let r = (p[0] - g)
        .length()
        .max((p[1] - g).length())
        .max((p[2] - g).length())
        * view.params.frustum_inflate;
    view.planes.iter().any(|n| n.dot(g) < -r)
}

/// True when the segment from the eye to p dips below the datum sphere (p itself may be the
/// lowest point: a corner under the datum is hidden behind it too).
fn line_of_sight_below(c: DVec3, p: DVec3, r2: f64) -> bool {
    let t = (c.dot(p) / p.length_squared()).clamp(0.0, 1.0);
    (c - p * t).length_squared() < r2
}

/// Largest cosine to `e` along the great-circle arc a → b (unit vectors, arc < π).
/// Public so other sphere culling (the streaming walk) can share it rather than copy it.
pub fn arc_max_cos(a: DVec3, b: DVec3, e: DVec3) -> f64 {
    let ends = a.dot(e).max(b.dot(e));
    let n = a.cross(b);
    if n.length_squared() < 1e-30 {
        return ends;
    }
    let n = n.normalize();
    let q = e - n * e.dot(n);
    if q.length_squared() < 1e-30 {
        return ends;
    }
    let q = q.normalize();
    if a.cross(q).dot(n) >= 0.0 && q.cross(b).dot(n) >= 0.0 {
        q.dot(e)
    } else {
        ends
    }
}

/// Horizon cull (TERRAIN.md §3): all three corners' lines of sight pass below the datum
/// sphere. Guard (ours): the triangle's patch projected onto the datum must also miss the cap
/// the eye sees, so a large triangle whose corners are all beyond the horizon but which spans
/// the view (the eye above its interior) is never dropped. A camera at or below the datum culls
/// nothing.
pub fn horizon_culled(p: &[DVec3; 3], view: &View) -> bool {
    let c = view.centre;
    let r2 = view.radius * view.radius;
    if c.length_squared() <= r2 {
        return false;
    }
    if !p.iter().all(|&q| line_of_sight_below(c, q, r2)) {
        return false;
    }
    // Datum patch vs the visible cap {x̂ : x̂·ê ≥ R/|E|}, ê the eye's direction from the centre.
    let e = (-c).normalize();
    let cos_h = view.radius / c.length();
    let d = [
        (p[0] - c).normalize(),
        (p[1] - c).normalize(),
        (p[2] - c).normalize(),
    ];
    let arcs_clear = (0..3).all(|k| arc_max_cos(d[k], d[(k + 1) % 3], e) < cos_h);
    let eye_inside = (0..3).all(|k| d[k].cross(d[(k + 1) % 3]).dot(e) >= 0.0);
    arcs_clear && !eye_inside
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view_at(alt: f64) -> View {
        let cam = ViewCamera::geo(0.0, 0.0, 6_371_000.0 + alt, 0.0, -20.0, 60.0, 256, 256);
        View::new(&cam, 6_371_000.0, CbtParams::default())
    }

    #[test]
    fn edge_cap_grows_with_distance() {
        let v = view_at(1000.0);
        let tri = |d: f64| {
            [
                DVec3::new(d, 0.0, 0.0),
                DVec3::new(d, 1.0, 0.0),
                DVec3::new(d, 0.0, 1.0),
            ]
        };
        // Facing the eye (no grazing): 24 px near, 48 px far, 36 px half way.
        assert_eq!(targets(&tri(1000.0), &v).edge_px, 24.0);
        assert_eq!(targets(&tri(30_000.0), &v).edge_px, 48.0);
        assert!((targets(&tri(12_500.0), &v).edge_px - 36.0).abs() < 1e-9);
        assert_eq!(targets(&tri(1000.0), &v).residual_px, 0.5);
    }

    #[test]
    fn grazing_tightens_far_only() {
        let v = view_at(1000.0);
        // A triangle seen edge-on (normal ⟂ view direction).
        let edge_on = |d: f64| {
            [
                DVec3::new(d, 0.0, 0.0),
                DVec3::new(d + 1.0, 0.0, 0.0),
                DVec3::new(d, 1.0, 0.0),
            ]
        };
        let (near, far) = (
            targets(&edge_on(1000.0), &v),
            targets(&edge_on(10_000.0), &v),
        );
        assert_eq!((near.residual_px, near.edge_px), (0.5, 24.0));
        // 10 km: the edge cap has grown to 24 + 24 × (5 / 15) = 32 px, then 25 % tighter; the
        // residual 25 % and then two thirds tighter (an outline's sag): 0.5 × 0.75 / 3.
        assert!((far.residual_px - 0.125).abs() < 1e-12, "{far:?}");
        assert!((far.edge_px - 0.75 * 32.0).abs() < 1e-9, "{far:?}");
        // Seen 8° from edge-on (between the grazing ramp's 15° and 5°): both targets the same
        // fraction tighter, no outline tightening.
        let a = 8f64.to_radians();
        let tilted = [
            DVec3::new(10_000.0, 0.0, 0.0),
            DVec3::new(10_000.0 + a.cos(), 0.0, a.sin()),
            DVec3::new(10_000.0, 1.0, 0.0),
        ];
        let t = targets(&tilted, &v);
        assert!((incidence_cos(&tilted) - a.sin()).abs() < 1e-3);
        assert!(
            t.residual_px < 0.5 && (t.residual_px / 0.5 - t.edge_px / 32.0).abs() < 1e-12,
            "{t:?}"
        );
    }

    #[test]
    fn hysteresis_band_is_disjoint() {
        let v = view_at(1000.0);
        let tri = [
            DVec3::new(1000.0, 0.0, 0.0),
            DVec3::new(1000.0, 1.0, 0.0),
            DVec3::new(1000.0, 0.0, 1.0),
        ];
        for r in [0.0, 0.1, 0.29, 0.31, 0.5, 0.6] {
            assert!(!(wants_split(&tri, r, 0.0, &v) && under_merge_targets(&tri, r, 0.0, &v)));
        }
        assert!(
            under_merge_targets(&tri, 0.29, 0.0, &v) && !under_merge_targets(&tri, 0.31, 0.0, &v)
        );
    }

    #[test]
    fn the_residual_splits_only_triangles_over_split_min_px() {
        let mut v = view_at(1000.0);
        v.params.split_min_px = 2.0;
        // A triangle facing the eye whose longest edge (the hypotenuse) is `px` pixels.
        let tri = |px: f64| {
            let leg = px * v.pixel_angle * 1000.0 / 2f64.sqrt();
            [
                DVec3::new(1000.0, 0.0, 0.0),
                DVec3::new(1000.0, leg, 0.0),
                DVec3::new(1000.0, 0.0, leg),
            ]
        };
        let (small, large) = (tri(1.5), tri(2.5));
        assert!((edge_px(&large, &v) - 2.5).abs() < 1e-3);
        // A 3 px residual: the 2.5 px triangle splits, the 1.5 px one does not; as a parent the
        // 1.5 px one stays (not under 0.6 × 2 px), a 1.1 px one merges.
        assert!(wants_split(&large, 3.0, 0.0, &v));
        assert!(!wants_split(&small, 3.0, 0.0, &v));
        assert!(!under_merge_targets(&small, 3.0, 0.0, &v));
        assert!(under_merge_targets(&tri(1.1), 3.0, 0.0, &v));
        for px in [0.5, 1.1, 1.3, 1.5, 2.0, 2.5, 5.0] {
            for r in [0.0, 0.2, 0.4, 3.0] {
                let t = tri(px);
                assert!(!(wants_split(&t, r, 0.0, &v) && under_merge_targets(&t, r, 0.0, &v)));
            }
        }
        // Off (0), the residual splits at any size.
        v.params.split_min_px = 0.0;
        assert!(wants_split(&small, 3.0, 0.0, &v));
    }

    #[test]
    fn horizon_cull_far_side_only() {
        let r = 6_371_000.0;
        let v = view_at(1000.0);
        let eye = v.eye;
        let on = |lat: f64, lon: f64, h: f64| {
            crate::planet::cube::latlon_to_dir(lat, lon) * (r + h) - eye
        };
        // A small triangle 5° away (≈ 556 km, beyond the 113 km horizon at 1 km): culled.
        let far = [on(5.0, 0.0, 0.0), on(5.0, 0.01, 0.0), on(5.01, 0.0, 0.0)];
        assert!(horizon_culled(&far, &v));
        // The same place 30 km up clears the datum horizon (a summit survives).
        let high = [
            on(5.0, 0.0, 30_000.0),
            on(5.0, 0.01, 30_000.0),
            on(5.01, 0.0, 30_000.0),
        ];
        assert!(!horizon_culled(&high, &v));
        // Under the eye: never.
        let near = [on(0.0, 0.0, 0.0), on(0.0, 0.01, 0.0), on(0.01, 0.0, 0.0)];
        assert!(!horizon_culled(&near, &v));
        // A huge triangle with all corners beyond the horizon but the eye above it: kept.
        let big = [
            on(-20.0, -20.0, 0.0),
            on(-20.0, 20.0, 0.0),
            on(25.0, 0.0, 0.0),
        ];
        assert!(!horizon_culled(&big, &v));
    }
}
