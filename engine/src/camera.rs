//! The camera, f64 and planet-centred: a geographic [`Pose`] (what bookmarks, flight and the
//! command line speak) and the [`ViewCamera`] it becomes at a viewport size (what the renderer,
//! the CBT criterion and the reference ray caster use). The GPU only sees it camera-relative,
//! through `crate::frame_constants`.

use crate::planet::cube::latlon_to_dir;
use crate::planet::{dir_to_latlon, east_north, Body};
use glam::DVec3;

/// Where the camera is and where it looks (`docs/conventions.md`, Camera): degrees, and metres
/// above the datum of a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub lat: f64,
    pub lon: f64,
    /// Metres above the datum.
    pub alt: f64,
    /// Clockwise from north.
    pub heading: f64,
    /// 0 = horizon, −90 = straight down.
    pub pitch: f64,
    /// Vertical field of view.
    pub fov: f64,
}

impl Pose {
    /// The camera of this pose over `body` at a viewport of `width`×`height` px.
    pub fn camera(&self, body: Body, width: u32, height: u32) -> ViewCamera {
        ViewCamera::geo(
            self.lat,
            self.lon,
            body.radius + self.alt,
            self.heading,
            self.pitch,
            self.fov,
            width,
            height,
        )
    }

    /// Unit local vertical.
    pub fn up(&self) -> DVec3 {
        latlon_to_dir(self.lat, self.lon)
    }

    /// Re-derive the pose from an eye position and a view direction (heading/pitch in the new
    /// local frame, so travel along a great circle keeps looking the same way).
    pub fn from_eye(body: Body, eye: DVec3, forward: DVec3, fov: f64) -> Pose {
        let dist = eye.length();
        let up = eye / dist;
        let (lat, lon) = dir_to_latlon(up);
        let (east, north) = east_north(up);
        let f = forward.normalize();
        let pitch = f.dot(up).clamp(-1.0, 1.0).asin().to_degrees();
        let heading = f
            .dot(east)
            .atan2(f.dot(north))
            .to_degrees()
            .rem_euclid(360.0);
        Pose {
            lat,
            lon,
            alt: dist - body.radius,
            heading,
            pitch,
            fov,
        }
    }
}

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
        let (east, north) = east_north(up_local);
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

    /// A pose and the camera it becomes invert each other, on the body it was placed over:
    /// with a radius other than the Earth's, a pose that used a fixed radius would be off by
    /// the difference in altitude.
    #[test]
    fn pose_from_eye_inverts_camera_on_any_body() {
        let p = Pose {
            lat: 27.9,
            lon: 86.9,
            alt: 10_000.0,
            heading: 40.0,
            pitch: -10.0,
            fov: 60.0,
        };
        for body in [
            Body::EARTH,
            Body {
                radius: 1_737_400.0,
            },
        ] {
            let c = p.camera(body, 100, 100);
            assert!((c.eye.length() - body.radius - p.alt).abs() < 1e-6);
            let q = Pose::from_eye(body, c.eye, c.forward, p.fov);
            assert!((q.lat - p.lat).abs() < 1e-9 && (q.lon - p.lon).abs() < 1e-9);
            assert!((q.alt - p.alt).abs() < 1e-6);
            assert!((q.heading - p.heading).abs() < 1e-9 && (q.pitch - p.pitch).abs() < 1e-9);
        }
    }

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
