//! How many GPU milliseconds a frame spends making tiles (`earth::gpu_feed`): a base budget
//! while the view has what it needs, growing while it misses tiles up to a catch-up cap.
//!
//! A fixed budget starves the feed whenever the GPU is slow: on the H200 at its idle clock
//! (450 MHz, the bench's flights are paced by their 1080p readback) a tile costs 0.3–0.7 ms,
//! so 2 ms admitted 3–4 tiles a frame and the descent missed a level in 76 of 120 frames
//! (docs/bench.md, 13b9f9f). A larger fixed budget would cost frame time when nothing is
//! missing. So the budget grows only while the feed's backlog holds tiles the current view
//! wants, and goes back to the base as soon as it holds none.
//!
//! Everything is in wall seconds, not frames, so the policy behaves the same at 30 and 144 Hz:
//! - growth: the budget doubles every `GROWTH_DOUBLING_S` of wall time while tiles are missing
//!   (2 ms → 50 ms in 0.46 s);
//! - cap: `CATCH_UP_SHARE` of the frame period (smoothed wall time between frames), at most
//!   `CATCH_UP_MAX_MS`, never below the base;
//! - the tile cap (`--gpu-tiles`, the size of `tiles.out`): when it, not the budget, bounded
//!   the last frame's tiles, the budget stops growing — a budget the frame cannot spend is not
//!   shown as if it were; the report says which one binds.

/// Share of the frame period the catch-up budget may take. A frame whose GPU is the bottleneck
/// and whose period P is R ms of rendering plus the tiles settles at P = R / (1 − share): at
/// 0.5 the frame rate at most halves while the view catches up (typically under a second), and
/// since the share is below 1 the period cannot run away. A frame paced by the host (the
/// H200's views: GPU idle 70–90 % of the time, docs/bench.md 13b9f9f) loses nothing.
pub const CATCH_UP_SHARE: f64 = 0.5;

/// The catch-up cap's ceiling, ms: a frame after a long stall (a 2 s hitch) does not plan a
/// second of tile work. At the H200's idle-clock cost (~0.5 ms a tile) 50 ms is ~100 tiles,
/// more than the default tile cap.
pub const CATCH_UP_MAX_MS: f64 = 50.0;

/// Wall seconds for the budget to double while tiles are missing: from the 2 ms base to
/// 8.3 ms (half a 60 Hz frame) in 0.2 s, to 50 ms in 0.46 s.
pub const GROWTH_DOUBLING_S: f64 = 0.1;

/// Time constant of the smoothed frame period, wall seconds: one slow frame moves the cap
/// only by its share of a quarter second.
const PERIOD_SMOOTHING_S: f64 = 0.25;

/// What bounded the last frame's tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BudgetLimit {
    /// The time budget (or nothing was queued).
    #[default]
    Budget,
    /// The tile cap (`--gpu-tiles`): more tiles were queued and the budget had room.
    Tiles,
}

/// What the HUD and the bench show of the budget.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct BudgetState {
    /// This frame's budget, ms.
    pub ms: f64,
    pub base_ms: f64,
    /// The catch-up cap now, ms.
    pub cap_ms: f64,
    /// Queued tiles the current view wants.
    pub needed: usize,
    /// What bounded this frame's tiles.
    pub limit: BudgetLimit,
}

/// The adaptive budget (see the module comment).
#[derive(Clone, Debug)]
pub struct TileBudget {
    base_ms: f64,
    ms: f64,
    /// Smoothed wall seconds between frames (None before the second frame).
    period_s: Option<f64>,
    needed: usize,
    limit: BudgetLimit,
    /// No frame stepped yet.
    first: bool,
    /// A camera cut's window is open (`stream::cut`): the catch-up cap is the ceiling.
    cut: bool,
}

impl TileBudget {
    /// A budget of `base_ms` when nothing is missing.
    pub fn new(base_ms: f64) -> TileBudget {
        let base_ms = if base_ms.is_finite() {
            base_ms.max(0.0)
        } else {
            super::gpu_feed::DEFAULT_GPU_TILE_BUDGET_MS
        };
        TileBudget {
            base_ms,
            ms: base_ms,
            period_s: None,
            needed: 0,
            limit: BudgetLimit::Budget,
            first: true,
            cut: false,
        }
    }

    /// Whether the coming frames follow a camera cut whose view is not yet complete
    /// (`TileStream::in_cut_window`). After a cut the image is new anyway, and the frame rate
    /// while the view fills matters less than filling it: the budget goes at once to the
    /// ceiling, not half the frame period. At the H200's idle clock after a teleport, half of
    /// an 8 ms frame admitted 2–3 amplified tiles a frame: the cold teleport took 7.5 s to
    /// settle, 3.4 s with the ceiling (docs/bench.md).
    pub fn set_cut(&mut self, cut: bool) {
        self.cut = cut;
    }

    /// The catch-up cap for the smoothed period (the base until a period is known); the
    /// ceiling in a cut's window.
    fn cap_ms(&self) -> f64 {
        if self.cut {
            return CATCH_UP_MAX_MS.max(self.base_ms);
        }
        let share = self.period_s.map_or(0.0, |p| CATCH_UP_SHARE * p * 1e3);
        share.min(CATCH_UP_MAX_MS).max(self.base_ms)
    }

    /// One frame, `dt_s` wall seconds after the last: `needed` queued tiles the view wants;
    /// `tile_capped` whether the tile cap, not the budget, bounded the last frame's tiles.
    /// Returns this frame's budget, ms.
    pub fn step(&mut self, dt_s: f64, needed: usize, tile_capped: bool) -> f64 {
        // The first frame's interval runs from whenever the renderer was made: no period.
        let dt_s = if self.first {
            self.first = false;
            0.0
        } else {
            dt_s
        };
        if dt_s.is_finite() && dt_s > 0.0 {
            self.period_s = Some(match self.period_s {
                Some(p) => p + (1.0 - (-dt_s / PERIOD_SMOOTHING_S).exp()) * (dt_s - p),
                None => dt_s,
            });
        }
        self.needed = needed;
        let cap = self.cap_ms();
        self.ms = if needed == 0 {
            self.base_ms
        } else if self.cut {
            cap
        } else if tile_capped {
            self.ms.min(cap)
        } else {
            let grow = (dt_s.max(0.0) / GROWTH_DOUBLING_S).exp2();
            (self.ms.max(self.base_ms) * grow).min(cap)
        };
        self.ms
    }

    /// What bounded this frame's tiles, once they are taken: the tile cap (`tile_capped`) or
    /// the budget.
    pub fn record_take(&mut self, tile_capped: bool) {
        self.limit = if tile_capped {
            BudgetLimit::Tiles
        } else {
            BudgetLimit::Budget
        };
    }

    pub fn ms(&self) -> f64 {
        self.ms
    }

    pub fn state(&self) -> BudgetState {
        BudgetState {
            ms: self.ms,
            base_ms: self.base_ms,
            cap_ms: self.cap_ms(),
            needed: self.needed,
            limit: self.limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `seconds` of frames at `hz` with `needed(t)` tiles missing; the budget per frame.
    fn run(hz: f64, seconds: f64, needed: impl Fn(f64) -> usize) -> Vec<(f64, f64)> {
        let mut b = TileBudget::new(2.0);
        let dt = 1.0 / hz;
        let frames = (seconds * hz).round() as usize;
        (0..frames)
            .map(|k| {
                let t = k as f64 / hz;
                (t, b.step(dt, needed(t), false))
            })
            .collect()
    }

    /// The budget at time `t` of a run (the last frame at or before it).
    fn at(v: &[(f64, f64)], t: f64) -> f64 {
        v.iter().rfind(|f| f.0 <= t + 1e-9).expect("a frame").1
    }

    /// A synthetic backlog: missing tiles from 1 s to 2 s, none before and after. The budget
    /// holds the base, grows by 2^(t/0.1 s) to half the frame period, returns to the base the
    /// frame the backlog empties — at the same wall times at 30 and 144 Hz.
    #[test]
    fn the_budget_grows_in_wall_time_while_tiles_are_missing_and_returns_when_caught_up() {
        let backlog = |t: f64| if (1.0..2.0).contains(&t) { 40 } else { 0 };
        for hz in [30.0, 60.0, 144.0] {
            let v = run(hz, 3.0, backlog);
            let half_frame = 0.5 * 1e3 / hz;
            assert_eq!(at(&v, 0.9), 2.0, "{hz} Hz: base while nothing is missing");
            // 0.1 s into the backlog: doubled, and one frame's growth more (the first frame of
            // the backlog grows by its own interval), unless the cap binds: the same wall-time
            // law at every rate.
            let first = v.iter().find(|f| f.0 >= 1.0 - 1e-9).expect("frame").0;
            let want = (2.0 * ((0.1 + 1.0 / hz) / GROWTH_DOUBLING_S).exp2()).min(half_frame);
            let got = at(&v, first + 0.1);
            assert!((got - want).abs() < 1e-6 * want, "{hz} Hz: {got} vs {want}");
            // Monotone while missing, and at the cap (half the frame period) by 1.9 s.
            let during: Vec<f64> = v
                .iter()
                .filter(|f| (1.0..2.0).contains(&f.0))
                .map(|f| f.1)
                .collect();
            assert!(during.windows(2).all(|w| w[1] >= w[0]), "{hz} Hz");
            assert!((at(&v, 1.9) - half_frame.max(2.0)).abs() < 1e-9, "{hz} Hz");
            assert_eq!(at(&v, 2.0), 2.0, "{hz} Hz: back to the base when caught up");
        }
    }

    /// A slow frame period (the bench's 250 ms frames) caps at `CATCH_UP_MAX_MS`, not 125 ms.
    #[test]
    fn the_cap_is_a_share_of_the_period_up_to_a_ceiling() {
        let v = run(4.0, 3.0, |_| 10);
        assert_eq!(v.last().expect("frames").1, CATCH_UP_MAX_MS);
        let v = run(60.0, 1.0, |_| 10);
        assert!((v.last().expect("frames").1 - 0.5e3 / 60.0).abs() < 1e-9);
    }

    /// In a cut's window the budget is the ceiling at once, whatever the frame period; when
    /// the window closes it is the catch-up law again.
    #[test]
    fn a_cut_takes_the_ceiling_at_once() {
        let mut b = TileBudget::new(2.0);
        let dt = 1.0 / 120.0;
        b.step(dt, 0, false);
        b.set_cut(true);
        assert_eq!(b.step(dt, 40, false), CATCH_UP_MAX_MS);
        assert_eq!(b.step(dt, 40, false), CATCH_UP_MAX_MS);
        assert_eq!(b.step(dt, 0, false), 2.0, "nothing missing: the base");
        b.set_cut(false);
        assert!(
            b.step(dt, 40, false) <= 0.5e3 / 120.0 + 1e-9,
            "half the period again"
        );
    }

    /// When the tile cap bounded the last frame, the budget does not grow past it, and the
    /// state says the tile cap binds.
    #[test]
    fn a_binding_tile_cap_stops_the_growth() {
        let mut b = TileBudget::new(2.0);
        let dt = 1.0 / 60.0;
        for _ in 0..3 {
            b.step(dt, 5, false);
        }
        let before = b.ms();
        assert!(before > 2.0);
        b.record_take(true);
        assert_eq!(b.state().limit, BudgetLimit::Tiles);
        assert_eq!(b.step(dt, 5, true), before);
        assert_eq!(b.step(dt, 0, true), 2.0, "caught up: the base");
    }
}
