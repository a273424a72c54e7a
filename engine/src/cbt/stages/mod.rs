//! The update stages as per-entry kernels. Each kernel is a pure function of the pool as it
//! stands when the stage starts (it reads only fields no kernel of the same stage writes) and
//! returns the writes for its own entry (plus, for a splitting entry, the child slot it owns
//! through RESERVE) and any atomics. `update.rs` runs every kernel of a stage in a shuffled
//! order, applying each result at once, so an accidental same-stage read-after-write shows up
//! as a seed-dependent pool. The GLSL kernels (`shaders/cbt/*.comp`) transliterate these
//! line by line; reads and writes per stage are tabulated in `docs/cbt.md`.

pub mod commit;
pub mod decide;
pub mod eval;
pub mod finish;
pub mod neighbours;
pub mod reserve;
pub mod resolve;

use super::bisector::Bisector;
use glam::DVec3;

/// The stored corner positions, promoted to f64 exactly.
pub fn positions(b: &Bisector) -> [DVec3; 3] {
    let p = &b.positions;
    [
        DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64),
        DVec3::new(p[3] as f64, p[4] as f64, p[5] as f64),
        DVec3::new(p[6] as f64, p[7] as f64, p[8] as f64),
    ]
}
