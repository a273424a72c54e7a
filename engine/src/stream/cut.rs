//! Camera cuts: a new view with nothing on screen to be continuous with.
//!
//! The 0.5 s arrival fade and the 1.5 s same-slot cross-fade exist so that what is on screen
//! does not jump. After a cut — a teleport, a bookmark jump, the first pose of a bench
//! teleport — the image is new anyway, and fading the new pose's tiles in only delays the
//! still image. So a cut opens a window ([`CutWindow`]) in which arrivals and replacements
//! show at full weight at once; it closes when the wanted set at the new pose is first
//! complete, or after `STREAM_CUT_WINDOW_MAX_S`, and fades resume.
//!
//! A cut is found from successive eyes ([`is_cut`]) or declared by a caller that knows
//! (`TileStream::cut`, `PlanetRenderer::cut`).

use crate::params::{STREAM_CUT_JUMP_HEIGHTS, STREAM_CUT_MIN_HEIGHT_M, STREAM_CUT_WINDOW_MAX_S};
use glam::DVec3;

/// Whether the eye moved from `prev` to `eye` (world metres, planet centre at the origin) by
/// more than the view can be continuous with: farther than `STREAM_CUT_JUMP_HEIGHTS` times the
/// lower eye's height above the datum of radius `radius` (at least `STREAM_CUT_MIN_HEIGHT_M`).
/// A turn on the spot is never a cut (no camera that keeps its eye jumps).
pub fn is_cut(radius: f64, prev: DVec3, eye: DVec3) -> bool {
    let height = |e: DVec3| e.length() - radius;
    let h = height(prev).min(height(eye)).max(STREAM_CUT_MIN_HEIGHT_M);
    let jump = (eye - prev).length();
    jump.is_finite() && jump > STREAM_CUT_JUMP_HEIGHTS * h
}

/// An open cut window: since when, on the stream's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CutWindow {
    pub since_s: f64,
}

impl CutWindow {
    /// Whether the window stays open after a frame at `now_s` that left the wanted set
    /// `complete` (every wanted tile resident with its exact payload).
    pub fn stays_open(&self, now_s: f64, complete: bool) -> bool {
        !complete && now_s - self.since_s < STREAM_CUT_WINDOW_MAX_S
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: f64 = 6_371_000.0;

    fn at(lat_deg: f64, lon_deg: f64, height: f64) -> DVec3 {
        let (la, lo) = (lat_deg.to_radians(), lon_deg.to_radians());
        DVec3::new(la.cos() * lo.cos(), la.cos() * lo.sin(), la.sin()) * (R + height)
    }

    /// Flights at every frame rate from 10 to 144 Hz are never cuts: the bench's descent
    /// (20,000 km → 2 m, 14 % of the height a frame), lateral flights at 1,000 m/s at 2 m and
    /// 100 m over the datum, a turn on the spot.
    #[test]
    fn flights_are_never_cuts() {
        for hz in [10.0, 30.0, 60.0, 144.0] {
            // Descent: 120 frames at 60 Hz; at a lower rate each frame covers more of it.
            let frames = (120.0 * hz / 60.0) as usize;
            let k = (2.0 / 2.0e7_f64).powf(1.0 / frames as f64);
            let mut h = 2.0e7;
            for _ in 0..frames {
                let next = h * k;
                assert!(!is_cut(R, at(27.9, 86.9, h), at(27.9, 86.9, next)), "{h}");
                h = next;
            }
            for height in [2.0, 100.0, 5_000.0] {
                let step = 1_000.0 / hz; // metres a frame
                let dlon = (step / (R + height)).to_degrees();
                assert!(!is_cut(
                    R,
                    at(0.0, 10.0, height),
                    at(0.0, 10.0 + dlon, height)
                ));
            }
        }
        let p = at(37.7, -119.6, 1_000.0);
        assert!(!is_cut(R, p, p));
    }

    /// Jumps that leave the old view behind are cuts: Khumbu to the Alps at 10 km, orbit to
    /// the ground and back, 1 km sideways at 100 m.
    #[test]
    fn teleports_are_cuts() {
        assert!(is_cut(R, at(27.9, 86.9, 100.0), at(46.5, 8.0, 10_000.0)));
        assert!(is_cut(R, at(0.0, 0.0, 2.0e7), at(0.0, 0.0, 2.0)));
        assert!(is_cut(R, at(0.0, 0.0, 2.0), at(0.0, 0.0, 2.0e7)));
        let d = (1_000.0 / R).to_degrees();
        assert!(is_cut(R, at(0.0, 0.0, 100.0), at(0.0, d, 100.0)));
        // The threshold is 4 heights (at least 400 m): 390 m at 2 m is not a cut.
        let d = (390.0 / R).to_degrees();
        assert!(!is_cut(R, at(0.0, 0.0, 2.0), at(0.0, d, 2.0)));
    }

    #[test]
    fn the_window_closes_when_complete_or_after_its_bound() {
        let w = CutWindow { since_s: 10.0 };
        assert!(w.stays_open(10.5, false));
        assert!(!w.stays_open(10.5, true));
        assert!(!w.stays_open(10.0 + STREAM_CUT_WINDOW_MAX_S, false));
    }
}
