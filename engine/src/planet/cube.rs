//! Cube-sphere faces and the face ↔ direction map.
//!
//! World frame: +Z is the north pole, +X is (lat 0°, lon 0°), +Y is (lat 0°, lon 90° E).
//!
//! Each face has an outward `axis` and two tangent axes `u_axis`, `v_axis` with
//! `u_axis × v_axis = axis` (every face is counter-clockwise seen from outside).
//! Face coordinates (u, v) ∈ [−1, 1]².
//!
//! The map is **equi-angular**: direction ∝ axis + tan(π/4·u)·u_axis + tan(π/4·v)·v_axis.
//! Why: a plain gnomonic cube has a 5.2:1 texel-area ratio between face centre and corner;
//! the equi-angular warp brings it to ≈1.41:1 (and 1:1 in arc length along the face's centre
//! lines), its inverse is one `atan`, and grid lines of constant u continue across a face
//! edge as lines of constant u' on the neighbour (u' = 2 − u), which is what lets tile aprons
//! fold across face edges exactly (see `docs/conventions.md`).
//!
//! Fixed point (the CBT's corners): X ∈ [0, 2^30] per axis, u = X·2⁻²⁹ − 1.

use glam::DVec3;
use std::f64::consts::FRAC_PI_4;

/// Bits of the fixed-point face coordinate: one face edge is 2^30 units.
pub const FIXED_BITS: u32 = 30;
/// One face edge in fixed-point units.
pub const FIXED_ONE: u64 = 1 << FIXED_BITS;

/// The six faces in order; the index is the face id used everywhere (CPU, GPU, disk).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Face(pub u8);

/// (axis, u_axis, v_axis) per face. Mirrored in `shaders/common/cube.glsl`.
pub const FACE_AXES: [[[f64; 3]; 3]; 6] = [
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], // 0: +X
    [[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]], // 1: −X
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], // 2: +Y
    [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], // 3: −Y
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], // 4: +Z
    [[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], // 5: −Z
];

impl Face {
    pub const ALL: [Face; 6] = [Face(0), Face(1), Face(2), Face(3), Face(4), Face(5)];

    pub fn axis(self) -> DVec3 {
        DVec3::from_array(FACE_AXES[self.0 as usize][0])
    }
    pub fn u_axis(self) -> DVec3 {
        DVec3::from_array(FACE_AXES[self.0 as usize][1])
    }
    pub fn v_axis(self) -> DVec3 {
        DVec3::from_array(FACE_AXES[self.0 as usize][2])
    }

    /// Unit direction of face point (u, v); u, v may lie slightly outside [−1, 1]
    /// (aprons) — the map stays valid up to |u|, |v| < 2.
    pub fn direction(self, u: f64, v: f64) -> DVec3 {
        self.point_on_cube(u, v).normalize()
    }

    /// The un-normalised point axis + tan(π/4·u)·u_axis + tan(π/4·v)·v_axis.
    pub fn point_on_cube(self, u: f64, v: f64) -> DVec3 {
        self.axis() + (FRAC_PI_4 * u).tan() * self.u_axis() + (FRAC_PI_4 * v).tan() * self.v_axis()
    }

    /// Face coordinates of a direction projected onto this face's plane (valid for any
    /// direction with a positive component along the axis, also off the face).
    pub fn coords(self, dir: DVec3) -> (f64, f64) {
        let a = dir.dot(self.axis());
        let u = (dir.dot(self.u_axis()) / a).atan() / FRAC_PI_4;
        let v = (dir.dot(self.v_axis()) / a).atan() / FRAC_PI_4;
        (u, v)
    }
}

/// The face that owns a direction: the largest |component|; ties go to the lower-numbered
/// face (so a point on a cube edge is always evaluated on the same face from both sides).
pub fn face_of(dir: DVec3) -> Face {
    let mut best = Face(0);
    let mut best_dot = f64::NEG_INFINITY;
    for f in Face::ALL {
        let d = dir.dot(f.axis());
        if d > best_dot {
            best_dot = d;
            best = f;
        }
    }
    best
}

/// Direction → (face, u, v) on its owning face.
pub fn dir_to_face(dir: DVec3) -> (Face, f64, f64) {
    let f = face_of(dir);
    let (u, v) = f.coords(dir);
    (f, u.clamp(-1.0, 1.0), v.clamp(-1.0, 1.0))
}

/// Fixed-point face coordinate → u or v in [−1, 1] (exact in f64 for X ≤ 2^30).
pub fn fixed_to_unit(x: u64) -> f64 {
    x as f64 * (1.0 / (1u64 << (FIXED_BITS - 1)) as f64) - 1.0
}

/// u or v in [−1, 1] → the nearest fixed-point face coordinate (inverse of `fixed_to_unit`).
pub fn unit_to_fixed(u: f64) -> u64 {
    let half = (1u64 << (FIXED_BITS - 1)) as f64;
    ((u.clamp(-1.0, 1.0) + 1.0) * half).round() as u64
}

/// Latitude/longitude (degrees, geocentric on the sphere) → unit direction.
pub fn latlon_to_dir(lat_deg: f64, lon_deg: f64) -> DVec3 {
    let (lat, lon) = (lat_deg.to_radians(), lon_deg.to_radians());
    DVec3::new(lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin())
}

/// Local east and north at unit direction `up` (the ground's tangent frame for headings).
/// East is undefined at the poles; +Y stands in there.
pub fn east_north(up: DVec3) -> (DVec3, DVec3) {
    let east = DVec3::Z.cross(up);
    let east = if east.length() < 1e-9 {
        DVec3::Y
    } else {
        east.normalize()
    };
    (east, up.cross(east))
}

/// Unit direction → (latitude, longitude) in degrees, longitude in (−180, 180].
pub fn dir_to_latlon(dir: DVec3) -> (f64, f64) {
    let d = dir.normalize();
    let lat = d.z.clamp(-1.0, 1.0).asin().to_degrees();
    let lon = d.y.atan2(d.x).to_degrees();
    (lat, lon)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_are_right_handed_and_orthonormal() {
        for f in Face::ALL {
            assert!(
                (f.u_axis().cross(f.v_axis()) - f.axis()).length() < 1e-15,
                "face {f:?}"
            );
            assert_eq!(f.axis().dot(f.u_axis()), 0.0);
        }
    }

    #[test]
    fn direction_round_trips_and_owns_its_face() {
        let mut s = 0x9e3779b97f4a7c15u64;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for f in Face::ALL {
            for _ in 0..1000 {
                let (u, v) = (rnd() * 0.999, rnd() * 0.999);
                let d = f.direction(u, v);
                let (g, u2, v2) = dir_to_face(d);
                assert_eq!(g, f);
                assert!((u - u2).abs() < 1e-12 && (v - v2).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn constant_u_lines_continue_across_face_edges() {
        // Face 0 (+X) u = 1 + δ must be face 2 (+Y) with its +X coordinate (v) at 1 − δ.
        let d = Face(0).direction(1.05, 0.3);
        let (u2, v2) = Face(2).coords(d);
        assert!((v2 - 0.95).abs() < 1e-12, "v' = {v2}");
        assert!(u2.abs() < 1.5);
    }

    #[test]
    fn latlon_conventions() {
        assert!((latlon_to_dir(0.0, 0.0) - DVec3::X).length() < 1e-15);
        assert!((latlon_to_dir(0.0, 90.0) - DVec3::Y).length() < 1e-15);
        assert!((latlon_to_dir(90.0, 0.0) - DVec3::Z).length() < 1e-15);
        let (lat, lon) = dir_to_latlon(latlon_to_dir(27.988, 86.925));
        assert!((lat - 27.988).abs() < 1e-12 && (lon - 86.925).abs() < 1e-12);
    }

    #[test]
    fn fixed_point_ends() {
        assert_eq!(fixed_to_unit(0), -1.0);
        assert_eq!(fixed_to_unit(FIXED_ONE), 1.0);
        assert_eq!(fixed_to_unit(FIXED_ONE / 2), 0.0);
    }
}
