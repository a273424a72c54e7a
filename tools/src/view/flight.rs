//! Flight: a geographic pose (f64), moved by WASD/QE along the view and the local vertical at
//! a speed proportional to the height above ground (so orbit → walking height takes the same
//! few seconds per decade), turned by mouse-look, and kept above the ground.

pub use engine::camera::Pose;
use engine::planet::Body;
use engine::stream::envelope::bounded_speed;
use glam::DVec3;

/// Eye height kept above the ground, metres (a standing person).
pub const EYE_HEIGHT_M: f64 = 1.8;
/// Speed per metre of height above ground at speed factor 1, 1/s: at 1,000 m, 1,000 m/s.
pub const SPEED_PER_AGL: f64 = 1.0;
/// Mouse-look, degrees per pixel of mouse motion.
pub const LOOK_DEG_PER_PX: f64 = 0.15;
/// Keyboard turning (arrow keys), degrees per second.
pub const TURN_DEG_PER_S: f64 = 60.0;
/// Pitch limit, degrees: ±90 would leave the heading undefined.
const PITCH_LIMIT: f64 = 89.5;

/// Keys and mouse held this frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct Controls {
    /// +1 forward (W), −1 back (S).
    pub forward: f64,
    /// +1 right (D), −1 left (A).
    pub right: f64,
    /// +1 up (E), −1 down (Q).
    pub up: f64,
    /// Turning from arrow keys: +1 right / up.
    pub yaw: f64,
    pub pitch: f64,
    /// Mouse motion while looking, px.
    pub look: [f64; 2],
}

/// The flying camera.
#[derive(Clone, Debug)]
pub struct Flight {
    pub pose: Pose,
    /// The planet flown over (its radius places the pose).
    pub body: Body,
    /// Multiplier on [`SPEED_PER_AGL`], changed by the scroll wheel (×1.25 per notch).
    pub speed_factor: f64,
    /// Metres above the datum of the ground under the camera (newest known).
    pub ground: f64,
    /// Speed of the last step, m/s.
    pub speed: f64,
    /// Bounded flight (`--bounded-flight`, F): manual speed held within 75 % of the lateral
    /// speed the tile feed sustains (TERRAIN.md §5).
    pub bounded: bool,
    /// The sustainable lateral speed, m/s, as last measured (None: unknown, no cap).
    pub sustainable: Option<f64>,
}

impl Flight {
    pub fn new(pose: Pose, body: Body) -> Flight {
        Flight {
            pose,
            body,
            speed_factor: 1.0,
            ground: 0.0,
            speed: 0.0,
            bounded: false,
            sustainable: None,
        }
    }

    pub fn agl(&self) -> f64 {
        self.pose.alt - self.ground
    }

    pub fn scroll(&mut self, notches: f64) {
        self.speed_factor = (self.speed_factor * 1.25f64.powf(notches)).clamp(1e-3, 1e3);
    }

    /// Advance by `dt` seconds.
    pub fn step(&mut self, c: &Controls, dt: f64) {
        let p = &mut self.pose;
        p.heading = (p.heading + c.look[0] * LOOK_DEG_PER_PX + c.yaw * TURN_DEG_PER_S * dt)
            .rem_euclid(360.0);
        p.pitch = (p.pitch - c.look[1] * LOOK_DEG_PER_PX + c.pitch * TURN_DEG_PER_S * dt)
            .clamp(-PITCH_LIMIT, PITCH_LIMIT);
        let moving = DVec3::new(c.forward, c.right, c.up);
        self.speed = 0.0;
        if moving.length_squared() > 0.0 && dt > 0.0 {
            let agl = (self.pose.alt - self.ground).max(EYE_HEIGHT_M);
            let mut speed = SPEED_PER_AGL * self.speed_factor * agl;
            let cam = self.pose.camera(self.body, 1, 1);
            let up = self.pose.up();
            let dir = cam.forward * c.forward + cam.right * c.right + up * c.up;
            if self.bounded {
                // The part of the motion that moves the point under the camera, as ground speed
                // at the datum (what the sustainable speed is measured in).
                let horizontal = (dir - dir.dot(up) * up).length() / dir.length();
                let lateral = horizontal * self.body.radius / cam.eye.length();
                speed = bounded_speed(speed, lateral, self.sustainable);
            }
            let eye = cam.eye + dir.normalize() * speed * dt;
            self.pose = Pose::from_eye(self.body, eye, cam.forward, self.pose.fov);
            self.speed = speed;
        }
        self.clamp_to_ground();
    }

    /// Never below the ground (plus eye height).
    pub fn clamp_to_ground(&mut self) {
        let floor = self.ground.max(-11_000.0) + EYE_HEIGHT_M;
        if self.pose.alt < floor {
            self.pose.alt = floor;
        }
    }
}

/// Speed over the ground between two eye positions `dt` seconds apart, m/s: the great-circle
/// distance at the datum between the points under them (climbing and diving add nothing).
pub fn lateral_speed(body: Body, from: DVec3, to: DVec3, dt: f64) -> f64 {
    if dt > 0.0 && from.length_squared() > 0.0 && to.length_squared() > 0.0 {
        from.angle_between(to) * body.radius / dt
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pose() -> Pose {
        Pose {
            lat: 27.9,
            lon: 86.9,
            alt: 10_000.0,
            heading: 40.0,
            pitch: -10.0,
            fov: 60.0,
        }
    }

    #[test]
    fn speed_scales_with_height_and_ground_holds() {
        let mut f = Flight::new(pose(), Body::EARTH);
        f.ground = 5_000.0;
        f.step(
            &Controls {
                forward: 1.0,
                ..Default::default()
            },
            0.1,
        );
        assert!(
            (f.speed - 5_000.0).abs() < 1e-6,
            "speed = agl at factor 1: {}",
            f.speed
        );
        // Fly straight down for a long time: stops at the ground + eye height.
        for _ in 0..200 {
            f.step(
                &Controls {
                    up: -1.0,
                    ..Default::default()
                },
                0.5,
            );
        }
        assert!(
            (f.pose.alt - (5_000.0 + EYE_HEIGHT_M)).abs() < 1e-6,
            "{}",
            f.pose.alt
        );
        f.scroll(2.0);
        assert!((f.speed_factor - 1.5625).abs() < 1e-12);
    }

    fn fly(f: &mut Flight, c: Controls) -> f64 {
        let before = f.pose.camera(f.body, 1, 1).eye;
        f.step(&c, 0.1);
        lateral_speed(f.body, before, f.pose.camera(f.body, 1, 1).eye, 0.1)
    }

    #[test]
    fn bounded_flight_holds_lateral_speed_to_three_quarters_of_the_sustainable() {
        let forward = Controls {
            forward: 1.0,
            ..Default::default()
        };
        let mut f = Flight::new(
            Pose {
                pitch: 0.0,
                ..pose()
            },
            Body::EARTH,
        );
        f.ground = 5_000.0; // agl 5 km: 5,000 m/s unbounded
        f.sustainable = Some(1_000.0);
        // Over the ground at the datum, 10 km below the camera.
        let ground =
            |v: f64, f: &Flight| v * Body::EARTH.radius / (Body::EARTH.radius + f.pose.alt);
        let free = fly(&mut f, forward);
        let want = ground(f.speed, &f);
        assert!(
            f.speed > 4_990.0 && (free - want).abs() < 0.5,
            "unbounded: {free} vs {want}"
        );
        f.bounded = true;
        let held = fly(&mut f, forward);
        assert!((held - 750.0).abs() < 0.5, "bounded level flight: {held}");
        // Unknown sustainable speed: no cap.
        f.sustainable = None;
        let unknown = fly(&mut f, forward);
        assert!(
            (unknown - ground(f.speed, &f)).abs() < 0.5 && f.speed > 4_990.0,
            "{unknown}"
        );
        // Climbing straight up is not lateral travel: not held.
        f.sustainable = Some(1_000.0);
        let up = Controls {
            up: 1.0,
            ..Default::default()
        };
        let alt = f.pose.alt;
        assert!(fly(&mut f, up) < 1e-3);
        assert!((f.pose.alt - alt - 0.1 * f.speed).abs() < 1e-3 && f.speed > 4_000.0);
    }
}
