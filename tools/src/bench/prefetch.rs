//! Tile preparation before the views: the union of the wanted sets of every camera the run
//! will use, derived with every core (the renderer's own synchronous loads derive one tile at
//! a time). Reported separately, so first frames measure a store that holds its tiles — as
//! after `planetfall bake` — and `--no-prefetch` measures them cold.

use super::scene::Scene;
use engine::camera::ViewCamera;
use engine::planet::TileId;
use engine::stream::{wanted_set, HeightRange, WantedParams};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The tiles the renderer's stream would want for `cams` (its parameters: the source's finest
/// level and relief, the renderer's slot count).
pub fn wanted(scene: &Scene, cams: &[ViewCamera], slots: usize) -> Vec<TileId> {
    let source = scene.source();
    let relief = source.max_relief();
    let params = WantedParams {
        finest_level: source.finest_level(),
        slots,
        heights: HeightRange {
            min_m: -relief,
            max_m: relief,
        },
        ..WantedParams::default()
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for cam in cams {
        for t in wanted_set(cam, source.body(), &params).tiles {
            if seen.insert(t.id) {
                out.push(t.id);
            }
        }
    }
    // Coarse first: a fine tile's derivation may read its ancestors' sources.
    out.sort_by_key(|id| id.level);
    out
}

/// Make every tile of `ids` exist, on all cores; returns the seconds it took.
pub fn derive(scene: &Scene, ids: &[TileId]) -> f64 {
    let t = Instant::now();
    let source = scene.source();
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&id) = ids.get(i) else { break };
                drop(source.tile(id));
            });
        }
    });
    t.elapsed().as_secs_f64()
}
