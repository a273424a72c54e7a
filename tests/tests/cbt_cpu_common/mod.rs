//! Shared pieces of the CPU CBT tests: the Earth-sized analytic planet, cameras placed above
//! its ground, run-to-quiet, and the f64 criterion oracle.
#![allow(dead_code)]

use engine::camera::ViewCamera;
pub use engine::cbt::oracle::Oracle;
use engine::cbt::validate::{validate, MeshReport};
use engine::cbt::{update_frame, AnalyticSurface, CbtParams, FrameStats, Pool};
use engine::planet::cube::latlon_to_dir;

/// Viewport of every CPU test: small, so a frame costs milliseconds.
pub const W: u32 = 256;
pub const H: u32 = 256;
pub const FOV_DEG: f64 = 60.0;
/// A mountainous spot of the analytic planet (any spot works; fixed for reproducibility).
pub const LAT: f64 = 27.9;
pub const LON: f64 = 86.9;

pub fn planet() -> AnalyticSurface {
    AnalyticSurface::earth()
}

/// A camera `agl` metres above the analytic ground at (lat, lon).
pub fn camera(
    s: &AnalyticSurface,
    lat: f64,
    lon: f64,
    agl: f64,
    heading: f64,
    pitch: f64,
) -> ViewCamera {
    let ground = s.height(latlon_to_dir(lat, lon));
    ViewCamera::geo(
        lat,
        lon,
        s.body.radius + ground + agl,
        heading,
        pitch,
        FOV_DEG,
        W,
        H,
    )
}

/// The validator must pass; returns its report.
#[track_caller]
pub fn conforming(pool: &Pool, what: &str) -> MeshReport {
    match validate(pool) {
        Ok(r) => r,
        Err(e) => panic!("{what}: mesh invalid:\n  {}", e.join("\n  ")),
    }
}

/// Updates until a frame is quiet (its first iteration neither splits nor merges) with no
/// corner still morphing, the mesh's fixed point; returns the number of frames run and the
/// last frame's stats. Panics after `max_frames` plus the morphs' updates.
pub fn run_to_quiet(
    pool: &mut Pool,
    s: &AnalyticSurface,
    cam: &ViewCamera,
    p: &CbtParams,
    max_frames: usize,
    seed: u64,
) -> (usize, FrameStats) {
    let morph = engine::cbt::bisector::MORPH_UPDATES as usize;
    for f in 1..=max_frames + 2 * morph {
        let st = update_frame(pool, s, cam, p, seed);
        if st.quiet && st.morphing == 0 {
            return (f, st);
        }
    }
    panic!("not quiet after {max_frames} frames");
}

/// Relative tolerance of the oracle: stored positions and residuals are f32 (7 digits); the
/// measures move by ≈ 1e-6 relative, so 1e-3 separates rounding from a real miss.
pub const ORACLE_REL_TOL: f64 = 1e-3;

/// The f64 oracle (`engine::cbt::oracle`) on the analytic planet.
pub fn oracle(pool: &Pool, s: &AnalyticSurface, cam: &ViewCamera, p: &CbtParams) -> Oracle {
    engine::cbt::oracle::oracle(pool, s, cam, p, ORACLE_REL_TOL)
}
