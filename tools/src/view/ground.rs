//! The ground under the camera, off the render thread: a probe thread owns a tile source of the
//! viewer's scene (built lazily on the first query: opening ETOPO takes seconds) and answers
//! the latest request with `engine::ground::ground_at`, the function every command places
//! views with; the viewer uses the newest answer. Without ETOPO it says so once and reports
//! the datum (height 0), so flight continues over the sea-level sphere.

use engine::ground::ground_at;
use engine::params::{FIRST_DERIVED_LEVEL, LAST_STORED_LEVEL};
use engine::planet::Body;
use engine::source::{EarthSource, TileSource};
use engine::store::{Oracle, OracleConfig};
use glam::DVec3;
use parking_lot::{Condvar, Mutex};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What the probe stands on: the scene's source, ETOPO and the tile store from `--etopo` and
/// `--data` for the Earth.
#[derive(Clone, Debug, Default)]
pub struct GroundConfig {
    /// `--scene`: "earth" (default), "analytic"; the test scene has no terrain (the datum).
    pub scene: String,
    pub etopo: Option<PathBuf>,
    pub data: Option<PathBuf>,
    /// No oracle at all: the datum everywhere (tests, `--no-ground`).
    pub disabled: bool,
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

fn open_source(cfg: &GroundConfig) -> Result<Arc<dyn TileSource>, String> {
    match cfg.scene.as_str() {
        "analytic" => Ok(super::planet::analytic_source()),
        "test" => Err("the test scene has no terrain: flying over the datum sphere".into()),
        _ => Ok(Arc::new(EarthSource {
            oracle: Arc::new(open_oracle(cfg)?),
            body: Body::EARTH,
        })),
    }
}

fn open_oracle(cfg: &GroundConfig) -> Result<Oracle, String> {
    let path = engine::earth::etopo_path(cfg.etopo.as_deref());
    let source = engine::earth::Source::open(&path, Body::EARTH).map_err(|e| {
        format!("no ground: ETOPO relief not readable at {} ({e}); flying over the datum sphere. Install it with `apt-get install ferret-datasets` or pass --etopo FILE", path.display())
    })?;
    let cfg = OracleConfig {
        data_dir: Some(engine::store::data_dir(cfg.data.as_deref())),
        memory_fallback: true,
        // The probe produces tiles in its own thread (`get`); no worker pool needed.
        threads: 1,
        cache_bytes: 256 << 20,
    };
    Oracle::new(Arc::new(source), cfg)
        .map_err(|e| format!("no ground: {e}; flying over the datum sphere"))
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
        let src = source.get_or_insert_with(|| {
            if cfg.disabled {
                Err("ground query off (--no-ground): flying over the datum sphere".into())
            } else {
                open_source(&cfg)
            }
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
        let p = GroundProbe::start(GroundConfig {
            disabled: true,
            ..Default::default()
        });
        assert_eq!(p.query_blocking(DVec3::X, 5, Duration::from_secs(5)), 0.0);
        assert!(p.problem().unwrap().contains("datum"));
    }
}
