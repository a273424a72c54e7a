//! The renderer's clock (fades, animation): wall time, or a fixed period per frame for
//! measurements that must see what a display at that rate would. Its own file so that the
//! switch between the two, and its continuity, are tested alone.

/// The renderer's time: wall time, or a fixed period per frame.
pub(super) struct FrameClock {
    /// The renderer's time, seconds (0 when it was made).
    pub(super) now: f64,
    last_wall: std::time::Instant,
    /// Wall seconds between the last two ticks.
    pub(super) wall_dt: f64,
    /// The fixed period per frame, seconds, or None: wall time.
    pub(super) period: Option<f64>,
}

impl FrameClock {
    pub(super) fn new() -> FrameClock {
        FrameClock {
            now: 0.0,
            last_wall: std::time::Instant::now(),
            wall_dt: 0.0,
            period: None,
        }
    }

    /// Advance by one frame: the fixed period, or the wall time since the last tick.
    pub(super) fn tick(&mut self) {
        let wall = std::time::Instant::now();
        let dt = (wall - self.last_wall).as_secs_f64();
        self.last_wall = wall;
        self.wall_dt = dt;
        self.now += self.period.unwrap_or(dt);
    }
}

#[cfg(test)]
mod tests {
    use super::FrameClock;

    #[test]
    fn a_fixed_period_clock_advances_by_the_period_and_stays_continuous() {
        let mut c = FrameClock::new();
        c.period = Some(0.25);
        for _ in 0..4 {
            c.tick();
        }
        assert_eq!(c.now, 1.0);
        // Back to wall time: it goes on from where it was, by a small wall step.
        c.period = None;
        c.tick();
        assert!(c.now >= 1.0 && c.now < 1.5, "{}", c.now);
    }
}
