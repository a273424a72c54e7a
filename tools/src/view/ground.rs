//! The ground under the camera, off the render thread: a probe thread answers the latest
//! request with `engine::ground::ground_at` (the function every command places views with) over
//! the scene's tile source — the one the renderer draws from ([`SharedSource`]: ETOPO read and
//! tiles derived once), waited for on the first query. The viewer uses the newest answer.
//! Without a source it says so once and reports the datum (height 0), so flight continues
//! over the sea-level sphere.

use super::planet::SharedSource;
use engine::ground::ground_at;
use engine::params::{FIRST_DERIVED_LEVEL, LAST_STORED_LEVEL};
use engine::source::TileSource;
use glam::DVec3;
use parking_lot::{Condvar, Mutex};
use std::sync::Arc;
use std::time::Duration;

/// What the probe stands on: the scene's shared source, or `None` for no ground query at all
/// (the datum everywhere: tests, `--no-ground`).
#[derive(Clone, Default)]
pub struct GroundConfig {
    pub source: Option<SharedSource>,
}

#[derive(Default)]
struct State {
    request: Option<(DVec3, u8)>,
    /// (direction, level, height m) of the newest answer.
    answer: Option<(DVec3, u8, f64)>,
    served: u64,
    stop: bool,
    /// Why there is no ground (shown on the HUD).
    problem: Option<String>,
}

pub struct GroundProbe {
    shared: Arc<(Mutex<State>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Tile level for a query `agl` metres above the ground: texels (38 m at L9) no finer than
/// about a tenth of the height, within the levels the oracle derives directly.
pub fn level_for(agl: f64) -> u8 {
    let coarser = (agl.max(1.0) / 400.0).log2().max(0.0).floor() as i64;
    (LAST_STORED_LEVEL as i64 - coarser).clamp(FIRST_DERIVED_LEVEL as i64, LAST_STORED_LEVEL as i64)
        as u8
}

impl GroundProbe {
    pub fn start(cfg: GroundConfig) -> GroundProbe {
        let shared: Arc<(Mutex<State>, Condvar)> = Arc::default();
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("ground-probe".into())
            .spawn(move || probe_loop(s, cfg))
            .ok();
        GroundProbe { shared, thread }
    }

    /// Ask for the ground at `dir` (unit) at `level`; replaces any unanswered request.
    pub fn request(&self, dir: DVec3, level: u8) {
        let (m, cv) = &*self.shared;
        m.lock().request = Some((dir, level));
        cv.notify_all();
    }

    /// The newest answer: (direction it was for, height above the datum, m).
    pub fn latest(&self) -> Option<(DVec3, f64)> {
        self.shared.0.lock().answer.map(|(d, _, h)| (d, h))
    }

    /// Why the ground is the datum, if it is.
    pub fn problem(&self) -> Option<String> {
        self.shared.0.lock().problem.clone()
    }

    /// Ask and wait (bookmark jumps with a height above ground). Falls back to the datum
    /// after `timeout`.
    pub fn query_blocking(&self, dir: DVec3, level: u8, timeout: Duration) -> f64 {
        let (m, cv) = &*self.shared;
        let mut st = m.lock();
        st.request = Some((dir, level));
        let served = st.served;
        cv.notify_all();
        let deadline = std::time::Instant::now() + timeout;
        while st.served == served || st.answer.map(|a| (a.0, a.1)) != Some((dir, level)) {
            if cv.wait_until(&mut st, deadline).timed_out() {
                log::warn!(
                    "ground query timed out after {:.0} s; using the datum",
                    timeout.as_secs_f64()
                );
                return 0.0;
            }
        }
        st.answer.map(|a| a.2).unwrap_or(0.0)
    }
}

impl Drop for GroundProbe {
    fn drop(&mut self) {
        let (m, cv) = &*self.shared;
        m.lock().stop = true;
        cv.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn probe_loop(shared: Arc<(Mutex<State>, Condvar)>, cfg: GroundConfig) {
    let (m, cv) = &*shared;
    let mut source: Option<Result<Arc<dyn TileSource>, String>> = None;
    loop {
        let (dir, level) = {
            let mut st = m.lock();
            loop {
                if st.stop {
                    return;
                }
                if let Some(r) = st.request.take() {
                    break r;
                }
                cv.wait(&mut st);
            }
        };
        let src = source.get_or_insert_with(|| match &cfg.source {
            None => Err("ground query off (--no-ground): flying over the datum sphere".into()),
            Some(s) => s
                .wait()
                .map_err(|why| format!("no ground: {why}; flying over the datum sphere")),
        });
        let h = match src {
            Ok(s) => ground_at(s.as_ref(), dir, level).height_m,
            Err(why) => {
                let mut st = m.lock();
                if st.problem.is_none() {
                    log::warn!("{why}");
                    st.problem = Some(why.clone());
                }
                0.0
            }
        };
        let mut st = m.lock();
        st.answer = Some((dir, level, h));
        st.served += 1;
        cv.notify_all();
    }
}

/// Highest ground on Earth, metres above the datum (Everest 8,849 m, rounded up): a view
/// higher than this cannot be underground.
const HIGHEST_GROUND_M: f64 = 9_000.0;

/// The pose of a bookmark and the ground under it. The ground is queried (blocking) when it
/// matters: heights above ground, and views low enough to be underground.
pub fn place(probe: &GroundProbe, b: &crate::bookmarks::Bookmark) -> (super::flight::Pose, f64) {
    use crate::bookmarks::Height;
    // The finest level the source holds, as `engine::ground::ground_height` reads it.
    let query = |dir: DVec3| probe.query_blocking(dir, u8::MAX, Duration::from_secs(60));
    let mut ground = 0.0;
    let pose = crate::camera::pose_of(b, |dir| {
        ground = query(dir);
        ground
    });
    if let Height::Datum(a) = b.height {
        if a < HIGHEST_GROUND_M {
            ground = query(pose.up());
        }
    }
    (pose, ground)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_follows_height() {
        assert_eq!(level_for(2.0), LAST_STORED_LEVEL);
        assert_eq!(level_for(800.0), LAST_STORED_LEVEL - 1);
        assert_eq!(level_for(1e7), FIRST_DERIVED_LEVEL);
    }

    #[test]
    fn disabled_probe_answers_the_datum() {
        let p = GroundProbe::start(GroundConfig::default());
        assert_eq!(p.query_blocking(DVec3::X, 5, Duration::from_secs(5)), 0.0);
        assert!(p.problem().unwrap().contains("datum"));
    }

    #[test]
    fn probe_stands_on_the_shared_source() {
        // The analytic planet: its ground is known without ETOPO, and the probe must read it
        // from the very source it is handed (the renderer's), not open its own.
        let src = super::super::planet::analytic_source();
        let p = GroundProbe::start(GroundConfig {
            source: Some(SharedSource::ready(src.clone())),
        });
        let dir = DVec3::new(0.3, -0.5, 0.8).normalize();
        let want = ground_at(src.as_ref(), dir, 7).height_m;
        assert!(
            want.abs() > 1.0,
            "the analytic ground is not the datum here ({want} m)"
        );
        let got = p.query_blocking(dir, 7, Duration::from_secs(30));
        assert_eq!(got, want);
        assert!(p.problem().is_none());
    }

    #[test]
    fn probe_without_terrain_reports_why() {
        let p = GroundProbe::start(GroundConfig {
            source: Some(SharedSource::open("test", Default::default())),
        });
        assert_eq!(p.query_blocking(DVec3::Z, 5, Duration::from_secs(5)), 0.0);
        let why = p.problem().expect("a reason");
        assert!(why.contains("no terrain") && why.contains("datum"), "{why}");
    }
}
