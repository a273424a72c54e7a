//! The f64 view the CPU model refines for: eye, orientation, vertical field of view, viewport.
//! (The renderer's own camera lives elsewhere; this is the minimum the criterion needs.)

use crate::planet::cube::latlon_to_dir;
use glam::DVec3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewCamera {
    /// Planet-centred eye position, metres.
    pub eye: DVec3,
    /// Orthonormal basis: view direction, screen right, screen up.
    pub forward: DVec3,
    pub right: DVec3,
    pub up: DVec3,
    /// Vertical field of view, radians.
    pub vfov: f64,
    /// Viewport, px.
    pub width: u32,
    pub height: u32,
}

impl ViewCamera {
    /// Looks along `forward` with `up_hint` roughly up (must not be parallel to `forward`).
    pub fn look(
        eye: DVec3,
        forward: DVec3,
        up_hint: DVec3,
        vfov_deg: f64,
        width: u32,
        height: u32,
    ) -> ViewCamera {
        let forward = forward.normalize();
        let right = forward.cross(up_hint).normalize();
        let up = right.cross(forward);
        ViewCamera {
            eye,
            forward,
            right,
            up,
            vfov: vfov_deg.to_radians(),
            width,
            height,
        }
    }

    /// Geographic pose (`docs/conventions.md`, Camera): latitude/longitude in degrees,
    /// `dist` metres from the planet centre, heading clockwise from north, pitch 0 = horizon,
    /// −90 = straight down.
    #[allow(clippy::too_many_arguments)]
    pub fn geo(
        lat: f64,
        lon: f64,
        dist: f64,
        heading_deg: f64,
        pitch_deg: f64,
        vfov_deg: f64,
        width: u32,
        height: u32,
    ) -> ViewCamera {
        let up_local = latlon_to_dir(lat, lon);
        let (east, north) = crate::planet::east_north(up_local);
        let (h, p) = (heading_deg.to_radians(), pitch_deg.to_radians());
        let horizontal = h.cos() * north + h.sin() * east;
        let forward = p.cos() * horizontal + p.sin() * up_local;
        // Up hint: the local vertical, unless looking straight up or down.
        let hint = if forward.dot(up_local).abs() > 0.999 {
            horizontal
        } else {
            up_local
        };
        ViewCamera::look(up_local * dist, forward, hint, vfov_deg, width, height)
    }

    /// Focal length, px: the on-axis pixel subtends 1/focal radians.
    pub fn focal_px(&self) -> f64 {
        0.5 * self.height as f64 / (0.5 * self.vfov).tan()
    }

    /// Angle of one pixel at the centre of the view, radians.
    pub fn pixel_angle(&self) -> f64 {
        1.0 / self.focal_px()
    }

    /// Inward unit normals of the four side planes (all through the eye): a camera-relative
    /// point p is inside when n·p ≥ 0 for all four.
    pub fn frustum_planes(&self) -> [DVec3; 4] {
        let tan_v = (0.5 * self.vfov).tan();
        let tan_h = tan_v * self.width as f64 / self.height as f64;
        let f = self.forward;
        [
            (tan_h * f + self.right).normalize(),
            (tan_h * f - self.right).normalize(),
            (tan_v * f + self.up).normalize(),
            (tan_v * f - self.up).normalize(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geo_pose_conventions() {
        // At (0, 0) heading 0 looks north (+Z), heading 90 looks east (+Y).
        let c = ViewCamera::geo(0.0, 0.0, 7e6, 0.0, 0.0, 60.0, 256, 256);
        assert!((c.forward - DVec3::Z).length() < 1e-12);
        assert!((c.up - DVec3::X).length() < 1e-12);
        let c = ViewCamera::geo(0.0, 0.0, 7e6, 90.0, -90.0, 60.0, 256, 256);
        assert!((c.forward + DVec3::X).length() < 1e-12);
        let c = ViewCamera::geo(0.0, 0.0, 7e6, 90.0, 0.0, 60.0, 256, 256);
        assert!((c.forward - DVec3::Y).length() < 1e-12);
        assert!((c.eye - DVec3::X * 7e6).length() < 1e-6);
    }

    #[test]
    fn frustum_contains_axis_not_behind() {
        let c = ViewCamera::geo(10.0, 20.0, 7e6, 30.0, -10.0, 60.0, 256, 128);
        let planes = c.frustum_planes();
        assert!(planes.iter().all(|n| n.dot(c.forward) > 0.0));
        assert!(planes.iter().any(|n| n.dot(-c.forward) < 0.0));
        // A point just inside the top edge is in, just outside is out.
        let t = (0.5 * c.vfov).tan();
        assert!(planes
            .iter()
            .all(|n| n.dot(c.forward + c.up * t * 0.99) >= 0.0));
        assert!(planes
            .iter()
            .any(|n| n.dot(c.forward + c.up * t * 1.01) < 0.0));
        assert!((c.pixel_angle() * c.focal_px() - 1.0).abs() < 1e-15);
    }
}
