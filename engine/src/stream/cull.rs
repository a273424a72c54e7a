//! A tile's bounding volume on the ground shell and the two culls of the wanted-set walk
//! (TERRAIN.md §5): horizon (against the datum sphere, with the tile's highest possible point)
//! and frustum (the volume's hull against `ViewCamera::frustum_planes`). Both are conservative:
//! a tile any part of which can be seen is never culled.

use crate::camera::ViewCamera;
use crate::cbt::criterion::arc_max_cos;
use crate::params::{STREAM_MAX_HEIGHT_M, STREAM_MIN_HEIGHT_M};
use crate::planet::TileId;
use glam::DVec3;

/// The heights a tile's ground can take, metres above the datum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeightRange {
    pub min_m: f64,
    pub max_m: f64,
}

impl Default for HeightRange {
    /// The body-wide bound (`params::STREAM_MIN_HEIGHT_M` … `STREAM_MAX_HEIGHT_M`).
    fn default() -> Self {
        HeightRange {
            min_m: STREAM_MIN_HEIGHT_M,
            max_m: STREAM_MAX_HEIGHT_M,
        }
    }
}

/// Everything the walk needs about where a tile can be: the region {d·r : d in the tile's
/// spherical quad, r ∈ [R + min, R + max]}.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileVolume {
    /// Unit directions of the four corners, counter-clockwise seen from outside
    /// ((u0,v0), (u1,v0), (u1,v1), (u0,v1); `u_axis × v_axis = axis` on every face).
    pub corners: [DVec3; 4],
    /// Unit direction of the tile centre.
    pub n: DVec3,
    /// Bounding sphere of the region, planet-centred, metres.
    pub centre: DVec3,
    pub radius: f64,
    /// Eight points whose convex hull contains the region, planet-centred, metres (see `new`).
    pub hull: [DVec3; 8],
    /// Radius of the region's highest possible point, metres (≥ the datum: see `horizon_culled`).
    pub top_radius: f64,
}

impl TileVolume {
    /// The volume of `id` on a body of datum radius `radius` (metres) with ground in `h`.
    ///
    /// Tile edges are lines of constant u or v, which the equi-angular map sends to great
    /// circles; so the quad is a convex spherical polygon, its gnomonic image on the plane
    /// x·n = 1 is the convex quad of the corners' images g_k = c_k/(c_k·n), and d·n is smallest
    /// at a corner. Hence the region lies in the truncated pyramid {cone over g} ∩ {h0 ≤ x·n ≤
    /// r1} with h0 = r0·min_k(c_k·n): the hull of g_k·h0 and g_k·r1. The same facts put the
    /// farthest point from any centre on the n axis at a corner on the inner or outer shell, so
    /// the bounding sphere's radius is the largest of those eight distances.
    pub fn new(id: TileId, radius: f64, h: HeightRange) -> TileVolume {
        let t = id.tiles_per_edge() as f64;
        let u0 = 2.0 * id.x as f64 / t - 1.0;
        let v0 = 2.0 * id.y as f64 / t - 1.0;
        let (u1, v1) = (u0 + 2.0 / t, v0 + 2.0 / t);
        let f = id.face;
        let corners = [
            f.direction(u0, v0),
            f.direction(u1, v0),
            f.direction(u1, v1),
            f.direction(u0, v1),
        ];
        let n = id.centre_dir();
        let (r0, r1) = (radius + h.min_m, radius + h.max_m);
        let min_cos = corners.iter().map(|c| c.dot(n)).fold(1.0, f64::min);
        let h0 = r0 * min_cos;
        let centre = n * (0.5 * (h0 + r1));
        let far = corners
            .iter()
            .flat_map(|&c| [(c * r0 - centre).length(), (c * r1 - centre).length()])
            .fold(0.0, f64::max);
        let mut hull = [DVec3::ZERO; 8];
        for (k, &c) in corners.iter().enumerate() {
            let g = c / c.dot(n);
            hull[k] = g * h0;
            hull[k + 4] = g * r1;
        }
        TileVolume {
            corners,
            n,
            centre,
            radius: far,
            hull,
            top_radius: r1.max(radius),
        }
    }

    /// Largest cosine between unit direction `e` and any direction of the tile's quad (1 when
    /// `e` points into the quad).
    pub fn max_cos_to(&self, e: DVec3) -> f64 {
        let c = &self.corners;
        let inside = (0..4).all(|k| c[k].cross(c[(k + 1) % 4]).dot(e) >= 0.0);
        if inside {
            return 1.0;
        }
        (0..4)
            .map(|k| arc_max_cos(c[k], c[(k + 1) % 4], e))
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

/// Horizon cull: every point of the tile is hidden from `eye` by the datum sphere (radius
/// metres). A point at radius r ≥ R is visible over the sphere iff its angle from the eye's
/// direction is ≤ acos(R/|eye|) + acos(R/r) (the two tangent angles); that bound grows with r,
/// so the tile's highest possible point (`top_radius`) decides. Points below the datum are
/// treated as if at the datum (never culled for being low). An eye at or below the datum culls
/// nothing.
pub fn horizon_culled(vol: &TileVolume, eye: DVec3, radius: f64) -> bool {
    let d = eye.length();
    if d <= radius {
        return false;
    }
    let reach = (radius / d).acos() + (radius / vol.top_radius).min(1.0).acos();
    if reach >= std::f64::consts::PI {
        return false;
    }
    vol.max_cos_to(eye / d) < reach.cos()
}

/// The view frustum as a convex cone from the eye: four side planes and four edge rays.
#[derive(Clone, Copy, Debug)]
pub struct Frustum {
    pub eye: DVec3,
    /// Inward unit normals of the side planes (`ViewCamera::frustum_planes`).
    pub planes: [DVec3; 4],
    /// Directions of the four corner rays (the cone's edges).
    pub rays: [DVec3; 4],
}

impl Frustum {
    pub fn new(cam: &ViewCamera) -> Frustum {
        let tan_v = (0.5 * cam.vfov).tan();
        let tan_h = tan_v * cam.width as f64 / cam.height as f64;
        let (f, r, u) = (cam.forward, cam.right * tan_h, cam.up * tan_v);
        Frustum {
            eye: cam.eye,
            planes: cam.frustum_planes(),
            rays: [f + r + u, f - r + u, f - r - u, f + r - u],
        }
    }

    /// Frustum cull: the tile's hull and the cone are disjoint, decided by the separating-axis
    /// test over the cone's side planes, the hull's six faces and the cross products of the
    /// cone's edges with the hull's edge directions (exact for two convex polyhedra). Testing
    /// the side planes alone keeps tiles beside and below the camera whose hull straddles the
    /// backward extension of two planes — measured at 10 km over the Himalaya looking 20°
    /// down (1920×1080, 60°): 501 tiles with the planes alone, 293 with this, finest L12.
    pub fn culls(&self, vol: &TileVolume) -> bool {
        let q = vol.hull.map(|p| p - self.eye);
        let separates = |a: DVec3| {
            let (lo, hi) = q
                .iter()
                .map(|p| a.dot(*p))
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                    (l.min(x), h.max(x))
                });
            let (rl, rh) = self
                .rays
                .iter()
                .map(|r| a.dot(*r))
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                    (l.min(x), h.max(x))
                });
            // Two corner rays lie in each side plane: their projections on its normal are 0
            // give or take rounding, and a −1e-17 must not stop the plane from separating
            // (it did, at random from frame to frame, keeping tiles far outside the view).
            let tol = 1e-9 * a.length() * self.rays[0].length();
            (rl >= -tol && hi < 0.0) || (rh <= tol && lo > 0.0)
        };
        if self.planes.iter().any(|&n| separates(n)) {
            return true;
        }
        let g = [vol.hull[4], vol.hull[5], vol.hull[6], vol.hull[7]];
        let mut hull_edges = [DVec3::ZERO; 8];
        for k in 0..4 {
            // Top (and bottom, parallel) edges, then the lateral edges (along g_k from the
            // planet centre: the hull is a truncated pyramid with its apex there).
            hull_edges[k] = g[(k + 1) % 4] - g[k];
            hull_edges[k + 4] = g[k];
        }
        let faces = [
            vol.n,
            g[0].cross(g[1]),
            g[1].cross(g[2]),
            g[2].cross(g[3]),
            g[3].cross(g[0]),
        ];
        if faces.iter().any(|&a| separates(a)) {
            return true;
        }
        self.rays.iter().any(|r| {
            hull_edges.iter().any(|e| {
                let a = r.cross(*e);
                a.length_squared() > 1e-20 * r.length_squared() * e.length_squared() && separates(a)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planet::{latlon_to_dir, Body, Face};

    const R: f64 = 6_371_000.0;

    /// Dense samples of the region, for checks that must not trust the hull argument.
    fn samples(id: TileId, h: HeightRange) -> Vec<DVec3> {
        let t = id.tiles_per_edge() as f64;
        let mut out = vec![];
        for a in 0..=8 {
            for b in 0..=8 {
                let u = (2.0 * id.x as f64 + a as f64 / 8.0 * 2.0) / t - 1.0;
                let v = (2.0 * id.y as f64 + b as f64 / 8.0 * 2.0) / t - 1.0;
                let d = id.face.direction(u, v);
                for r in [R + h.min_m, R + 0.5 * (h.min_m + h.max_m), R + h.max_m] {
                    out.push(d * r);
                }
            }
        }
        out
    }

    #[test]
    fn volume_bounds_contain_dense_samples() {
        let h = HeightRange::default();
        for id in [
            TileId::new(0, Face(2), 0, 0),
            TileId::new(1, Face(5), 1, 0),
            TileId::new(4, Face(0), 15, 3),
            TileId::new(12, Face(3), 100, 4000),
        ] {
            let v = TileVolume::new(id, R, h);
            for p in samples(id, h) {
                assert!((p - v.centre).length() <= v.radius * (1.0 + 1e-12), "{id}");
                // Inside the hull: the slab along n and every side plane of the cone.
                let x = p.dot(v.n);
                assert!(x >= v.hull[0].dot(v.n) * (1.0 - 1e-12) && x <= v.hull[4].dot(v.n));
                for k in 0..4 {
                    let side = v.corners[k].cross(v.corners[(k + 1) % 4]);
                    assert!(side.dot(p) >= -1e-6 * p.length(), "{id} side {k}");
                }
            }
        }
    }

    /// A level-9 tile (≈ 20 km) whose centre lies `dist_m` along the ground due north of the
    /// point below the eye at (0°, 0°).
    fn tile_north(dist_m: f64) -> TileId {
        let dir = latlon_to_dir((dist_m / R).to_degrees(), 0.0);
        let (f, u, v) = crate::planet::dir_to_face(dir);
        TileId::containing(9, f, u, v)
    }

    #[test]
    fn horizon_culls_beyond_and_keeps_a_summit_above_the_line_of_sight() {
        // Eye 1 km up: datum horizon acos(R/(R+1 km)) = 112.9 km away (angle × R).
        let eye = latlon_to_dir(0.0, 0.0) * (R + 1_000.0);
        let horizon_m = (R / (R + 1_000.0)).acos() * R;
        assert!((horizon_m - 112_900.0).abs() < 100.0, "{horizon_m}");
        let datum_only = HeightRange {
            min_m: -100.0,
            max_m: 0.0,
        };
        // A tile whose nearest edge is ~30 km beyond the datum horizon, flat at sea level:
        // nothing of it can be seen.
        let id = tile_north(horizon_m + 40_000.0);
        let near_m = TileVolume::new(id, R, datum_only)
            .max_cos_to(eye.normalize())
            .acos()
            * R;
        assert!(near_m > horizon_m + 20_000.0, "{near_m}");
        assert!(horizon_culled(&TileVolume::new(id, R, datum_only), eye, R));
        // The same tile holding a 5 km summit: a 5 km peak is seen over the datum from up to
        // acos(R/(R+5 km))·R = 252 km beyond the eye's horizon — it rises above the line of
        // sight, so the tile is kept.
        let summit = HeightRange {
            min_m: 0.0,
            max_m: 5_000.0,
        };
        let reach_m = horizon_m + (R / (R + 5_000.0)).acos() * R;
        assert!(near_m < reach_m);
        assert!(!horizon_culled(&TileVolume::new(id, R, summit), eye, R));
        // Check the geometry by a line-of-sight test on the summit point nearest the eye:
        // the segment eye→peak stays outside the datum sphere.
        let peak = latlon_to_dir((near_m / R).to_degrees(), 0.0) * (R + 5_000.0);
        let (a, b) = (eye, peak);
        let t = (-(a.dot(b - a)) / (b - a).length_squared()).clamp(0.0, 1.0);
        assert!((a + (b - a) * t).length() > R, "the peak is in view");
        // The default body-wide bound (+9.3 km) reaches 344 km past the horizon; a tile 600 km
        // past it is culled even so.
        let far = tile_north(horizon_m + 600_000.0);
        assert!(horizon_culled(
            &TileVolume::new(far, R, HeightRange::default()),
            eye,
            R
        ));
        // A tile under the eye never is; an eye below the datum culls nothing.
        let under = tile_north(0.0);
        assert!(!horizon_culled(
            &TileVolume::new(under, R, datum_only),
            eye,
            R
        ));
        assert!(!horizon_culled(
            &TileVolume::new(far, R, datum_only),
            eye * (R - 10.0) / eye.length(),
            R
        ));
    }

    #[test]
    fn frustum_rejects_behind_and_beside_keeps_ahead() {
        let body = Body::EARTH;
        // 10 km up at (0°, 0°) looking north at the horizon.
        let cam = ViewCamera::geo(0.0, 0.0, body.radius + 10_000.0, 0.0, 0.0, 60.0, 320, 180);
        let fr = Frustum::new(&cam);
        let h = HeightRange::default();
        let at = |lat: f64, lon: f64| {
            let (f, u, v) = crate::planet::dir_to_face(latlon_to_dir(lat, lon));
            TileVolume::new(TileId::containing(10, f, u, v), body.radius, h)
        };
        assert!(!fr.culls(&at(0.5, 0.0)), "ahead");
        assert!(fr.culls(&at(-0.5, 0.0)), "behind");
        assert!(fr.culls(&at(0.1, 1.0)), "far to the side");
        // The tile under the eye straddles the eye plane: kept.
        assert!(!fr.culls(&at(0.0, 0.0)));
    }
}
