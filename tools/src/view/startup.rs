//! Start-up timing: seconds since the process started, for the viewer's log lines
//! ("first frame presented in …") and the steps before it. A cold start is dominated by a few
//! one-off costs (ETOPO load, Vulkan context, pipelines, the first tiles); naming each with
//! its time is how `docs/streaming.md`'s cold-start numbers are measured.

use std::sync::OnceLock;
use std::time::Instant;

static START: OnceLock<Instant> = OnceLock::new();

/// Fix the start; `main` calls it first thing (later calls keep the first instant).
pub fn begin() {
    START.get_or_init(Instant::now);
}

/// Seconds since [`begin`] (0 if it was never called: tests, other entry points).
pub fn seconds() -> f64 {
    START.get().map_or(0.0, |t| t.elapsed().as_secs_f64())
}

/// Log that start-up step `what` finished now, and how long it took from `since`.
pub fn step(what: &str, since: Instant) {
    log::info!(
        "start-up: {what} took {:.2} s (at {:.2} s)",
        since.elapsed().as_secs_f64(),
        seconds()
    );
}
