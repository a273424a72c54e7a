//! How many update iterations a frame records (docs/cbt.md §6, "Recorded iterations").
//!
//! Each recorded iteration is nine nodes, and every node costs a barrier and its timestamps
//! even when its indirect dispatch is empty, so a frame records only the iterations it is
//! likely to run: one after a quiet frame when the view has not changed, all of them otherwise.
//! The host decides from what it already has: the view, and the control block of its frame
//! slot's previous frame (read without a stall, frames in flight old).
//!
//! A frame records nothing at all when nothing the update reads has changed since a quiet frame
//! ([`still`]): the same view bit for bit, the same frame constants and the same resident
//! surface. The pool then already holds that view's fixed point — corner positions relative to
//! the same eye, the same draw list — so running the update again would rewrite every entry
//! with what it holds. A camera that moves at all, a tile that arrives or fades, or a change of
//! settings records the update again.
//!
//! Safe whatever it decides: every iteration leaves a conforming mesh (a split takes its whole
//! diamond, a merge its four leaves, or nothing happens), and an iteration that still finds
//! work leaves `pending` set, which the next read-back sees as a frame that was not quiet, so
//! fewer iterations only delay refinement, by at most the frames in flight.

use crate::camera::ViewCamera;
use crate::cbt::bisector::MAX_ITERATIONS;
use crate::cbt::params::CbtParams;
use glam::DVec3;

/// What the criterion depends on in a view: the eye, its orientation and the pixel size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewPose {
    /// Planet-centred eye, metres.
    pub eye: DVec3,
    pub forward: DVec3,
    pub up: DVec3,
    /// Angle of the centre pixel, radians.
    pub pixel_angle: f64,
    /// Eye height above the datum, metres.
    pub height: f64,
}

impl ViewPose {
    pub fn new(cam: &ViewCamera, datum_radius: f64) -> ViewPose {
        ViewPose {
            eye: cam.eye,
            forward: cam.forward,
            up: cam.up,
            pixel_angle: cam.pixel_angle(),
            height: cam.eye.length() - datum_radius,
        }
    }

    /// Whether `now` differs from this view by more than the quiet thresholds: turned (or
    /// rolled) by more than `quiet_turn_px` centre pixels, moved by more than
    /// `quiet_move_fraction` of the height above the datum (at least 1 cm, float noise), or
    /// zoomed by more than that fraction.
    pub fn changed(&self, now: &ViewPose, p: &CbtParams) -> bool {
        let angle = |a: DVec3, b: DVec3| a.angle_between(b);
        let turn = angle(self.forward, now.forward).max(angle(self.up, now.up));
        let moved = self.eye.distance(now.eye);
        let zoom = (now.pixel_angle / self.pixel_angle - 1.0).abs();
        turn > p.quiet_turn_px * self.pixel_angle.min(now.pixel_angle)
            || moved > (p.quiet_move_fraction * self.height.min(now.height)).max(0.01)
            || zoom > p.quiet_move_fraction
    }
}

/// A frame whose control block the host has read, and the view it was recorded for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seen {
    /// Its first iteration neither split nor merged (`FrameStats::quiet`) and no corner was
    /// still morphing (`FrameStats::morphing`).
    pub quiet: bool,
    pub view: ViewPose,
    /// Its index among the frames the mesh prepared.
    pub frame: u64,
}

/// Whether a frame may record no update: the latest frame read back was quiet, and the
/// update's inputs have not changed in any frame since that one was prepared
/// (`inputs_since`: the first frame prepared with the current inputs). Frames in between ran
/// with the same inputs after a quiet frame, so they too found nothing to do.
pub fn still(seen: Option<&Seen>, inputs_since: u64) -> bool {
    seen.is_some_and(|s| s.quiet && s.frame >= inputs_since)
}

/// Iterations to record (1..=`max_iterations`, at most `MAX_ITERATIONS`): one when the latest
/// frame read back (`seen`; None on the first frames of a pool) was quiet and the view has not
/// changed since it was recorded; all otherwise — the first frames, after a jump or a turn, and
/// after any frame that split or merged (it may have stopped only because it ran out of
/// iterations).
pub fn iterations_to_record(seen: Option<&Seen>, now: &ViewPose, p: &CbtParams) -> u32 {
    let max = p.max_iterations.clamp(1, MAX_ITERATIONS) as u32;
    match seen {
        Some(s) if s.quiet && !s.view.changed(now, p) => 1,
        _ => max,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: f64 = 6_371_000.0;

    fn view(agl: f64, heading: f64) -> ViewPose {
        ViewPose::new(
            &ViewCamera::geo(27.9, 86.9, R + agl, heading, -10.0, 60.0, 1920, 1080),
            R,
        )
    }

    #[test]
    fn one_iteration_only_after_a_quiet_frame_of_the_same_view() {
        let p = CbtParams::default();
        let v = view(300.0, 30.0);
        let quiet = Seen {
            quiet: true,
            view: v,
            frame: 0,
        };
        let busy = Seen {
            quiet: false,
            view: v,
            frame: 0,
        };
        assert_eq!(iterations_to_record(None, &v, &p), 4, "first frames");
        assert_eq!(iterations_to_record(Some(&busy), &v, &p), 4);
        assert_eq!(iterations_to_record(Some(&quiet), &v, &p), 1);
        let three = CbtParams {
            max_iterations: 3,
            ..p
        };
        assert_eq!(iterations_to_record(Some(&busy), &v, &three), 3);
    }

    #[test]
    fn turns_moves_and_zooms_past_the_thresholds_record_everything() {
        let p = CbtParams::default();
        let v = view(300.0, 30.0);
        let seen = Seen {
            quiet: true,
            view: v,
            frame: 0,
        };
        // 1080 px over 60°: a centre pixel is 2·tan 30° / 1080 rad = 0.0613°; half a pixel is
        // the threshold.
        let px_deg = v.pixel_angle.to_degrees();
        assert!((px_deg - 0.06126).abs() < 1e-4, "{px_deg}");
        for (heading, want) in [
            (30.0 + 0.4 * px_deg, 1),
            (30.0 + 0.6 * px_deg, 4),
            (33.0, 4),
        ] {
            assert_eq!(
                iterations_to_record(Some(&seen), &view(300.0, heading), &p),
                want,
                "heading {heading}"
            );
        }
        // 0.1 % of 300 m is 0.3 m.
        for (agl, want) in [(300.2, 1), (300.4, 4), (1000.0, 4)] {
            assert_eq!(
                iterations_to_record(Some(&seen), &view(agl, 30.0), &p),
                want,
                "agl {agl}"
            );
        }
        let mut zoomed = v;
        zoomed.pixel_angle *= 1.01;
        assert_eq!(iterations_to_record(Some(&seen), &zoomed, &p), 4);
    }

    #[test]
    fn nothing_is_recorded_only_after_a_quiet_frame_with_the_inputs_unchanged_since() {
        let v = view(300.0, 30.0);
        let seen = |quiet, frame| Seen {
            quiet,
            view: v,
            frame,
        };
        assert!(!still(None, 0), "nothing read back yet");
        // Frame 7 was read back quiet; the inputs last changed in frame 5, 7 or 8.
        assert!(still(Some(&seen(true, 7)), 5));
        assert!(still(Some(&seen(true, 7)), 7));
        assert!(
            !still(Some(&seen(true, 7)), 8),
            "changed after the frame read"
        );
        assert!(
            !still(Some(&seen(false, 7)), 5),
            "that frame split or merged"
        );
    }
}
