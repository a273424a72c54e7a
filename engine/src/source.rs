//! Where tiles come from: the Earth (the DEM oracle over ETOPO5 and its derived levels) or an
//! analytic test planet sampled into the same tiles. Everything downstream — residency, the GPU
//! surface, the CPU reference — sees only tiles, so the analytic planet exercises the very path
//! the Earth takes.

use crate::earth::tile::{quantise, Tile};
use crate::params::{TILE_APRON, TILE_STRIDE};
use crate::planet::tile::{canonical_sample, SampleRef};
use crate::planet::{Body, Face, TileId};
use crate::store::oracle::Oracle;
use crate::stream::envelope::{FeedSnapshot, PerClass};
use glam::DVec3;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

/// A finished request: the tile, or why it could not be made.
pub type Completion = (TileId, Result<Arc<Tile>, String>);

/// A provider of tiles.
pub trait TileSource: Send + Sync {
    fn body(&self) -> Body;
    /// Finest level this source provides.
    fn finest_level(&self) -> u8;
    /// The tile, blocking until it exists.
    fn tile(&self, id: TileId) -> Arc<Tile>;
    /// Largest |height| the source can produce, metres (culling bounds).
    fn max_relief(&self) -> f64;

    /// Whether `request`/`poll` produce tiles off the caller's thread. A source without
    /// workers is fetched with `tile` (which then blocks the frame: the stream says so).
    fn is_async(&self) -> bool {
        false
    }
    /// Queues `(tile, priority)` for production without blocking, higher priority first; a
    /// tile already queued takes the new priority (the view may have turned since).
    fn request(&self, _tiles: &[(TileId, f32)]) {}
    /// Drops queued requests for tiles no longer wanted (one already being made completes).
    fn cancel(&self, _tiles: &[TileId]) {}
    /// Tiles completed since the last call, in completion order. A tile that could not be
    /// made comes back as an error that says why.
    fn poll(&self) -> Vec<Completion> {
        Vec::new()
    }
    /// One line on the faults the source has met (store errors, failed tiles), or None.
    fn faults(&self) -> Option<String> {
        None
    }
    /// A stand-in for `id` made in milliseconds straight from the source, or None. The stream
    /// draws it until the exact tile arrives, then cross-fades to it in the same slot.
    fn provisional(&self, _id: TileId) -> Option<Arc<Tile>> {
        None
    }
    /// Tiles produced per feed class and the requests waiting (`stream::envelope`). Default:
    /// None, a source whose tiles cost nothing worth metering.
    fn feed(&self) -> Option<FeedSnapshot> {
        None
    }
    /// The Earth's ETOPO grids behind this source, when it has them: the renderer can then
    /// make its tiles on the GPU (`earth::gpu_feed`) instead of on the source's workers.
    fn earth(&self) -> Option<Arc<crate::earth::Source>> {
        None
    }
    /// The data directory where derived data (the tile store, the climate field) is kept,
    /// if the source has one.
    fn data_dir(&self) -> Option<std::path::PathBuf> {
        None
    }
    /// Tiles whose stored copy changed underneath since the source served them (another
    /// process writing the store), found with bounded work per call; the source already
    /// forgot its old copies. Default: a source without a store has none.
    fn updated_underneath(&self) -> Vec<TileId> {
        Vec::new()
    }
    /// Forget any kept copy of `tiles`, so the next request makes them again (a change of
    /// the settings they are made with). Default: nothing kept.
    fn invalidate(&self, _tiles: &[TileId]) {}
}

/// Stored blocks whose header `EarthSource::updated_underneath` re-reads per call (per frame):
/// 8 reads of 4 KB (ours: a frame's resident L0–L9 tiles sit in a few dozen blocks, so a
/// rewritten tile is noticed within a few frames, at well under a millisecond a frame).
pub const STORE_CHECK_BLOCKS_PER_CALL: usize = 8;

/// The Earth through the DEM oracle.
pub struct EarthSource {
    pub oracle: Arc<Oracle>,
    pub body: Body,
}

impl TileSource for EarthSource {
    fn body(&self) -> Body {
        self.body
    }
    fn finest_level(&self) -> u8 {
        crate::params::MAX_LEVEL
    }
    fn tile(&self, id: TileId) -> Arc<Tile> {
        self.oracle.get(id)
    }
    fn max_relief(&self) -> f64 {
        // ETOPO5 spans −10,376 … +7,833 m; bands add a few hundred metres at most.
        11_250.0
    }
    fn is_async(&self) -> bool {
        true
    }
    fn request(&self, tiles: &[(TileId, f32)]) {
        self.oracle.request_each(tiles);
    }
    fn cancel(&self, tiles: &[TileId]) {
        self.oracle.cancel(tiles);
    }
    fn poll(&self) -> Vec<Completion> {
        self.oracle
            .collect()
            .into_iter()
            .map(|(id, t)| (id, t.map_err(|e| e.to_string())))
            .collect()
    }
    fn faults(&self) -> Option<String> {
        self.oracle.faults().line()
    }
    fn provisional(&self, id: TileId) -> Option<Arc<Tile>> {
        Some(Arc::new(self.oracle.cache().source().provisional_tile(id)))
    }
    fn earth(&self) -> Option<Arc<crate::earth::Source>> {
        Some(self.oracle.cache().source().clone())
    }
    fn data_dir(&self) -> Option<std::path::PathBuf> {
        self.oracle.data_dir().map(|d| d.to_path_buf())
    }
    fn updated_underneath(&self) -> Vec<TileId> {
        self.oracle
            .cache()
            .changed_on_disk(STORE_CHECK_BLOCKS_PER_CALL)
    }
    fn invalidate(&self, tiles: &[TileId]) {
        self.oracle.cache().forget(tiles);
    }
    /// Derived, stored and amplified tiles from the oracle's counters (stored only with a data
    /// directory: without one nothing is ever read back). The
    /// backlog is the oracle's queue, whichever class ends up serving it.
    fn feed(&self) -> Option<FeedSnapshot> {
        let c = self.oracle.counters();
        let stored = self.oracle.data_dir().map(|_| c.stored.tiles);
        Some(FeedSnapshot {
            completed: PerClass([Some(c.derived.tiles), stored, Some(c.amplified.tiles)]),
            backlog: self.oracle.outstanding() as u64,
        })
    }
}

/// A planet whose height is a function of direction, sampled at tile sample positions (same
/// folded aprons and cube-corner rule as the Earth) and quantised like every stored height.
pub struct AnalyticSource {
    pub body: Body,
    pub finest: u8,
    height: Box<dyn Fn(DVec3) -> f64 + Send + Sync>,
    relief: f64,
    cache: Mutex<HashMap<TileId, Arc<Tile>>>,
}

impl AnalyticSource {
    pub fn new(
        body: Body,
        finest: u8,
        relief: f64,
        height: impl Fn(DVec3) -> f64 + Send + Sync + 'static,
    ) -> Self {
        AnalyticSource {
            body,
            finest,
            height: Box::new(height),
            relief,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The CBT's analytic test planet (sum of band-limited sines) as tiles.
    pub fn from_surface(s: crate::cbt::surface::AnalyticSurface) -> Self {
        let relief = s.max_relief();
        let body = s.body;
        let finest = s.finest_level;
        AnalyticSource::new(body, finest, relief, move |d| s.height(d))
    }

    fn sample_height(&self, level: u8, face: Face, i: i64, j: i64) -> f64 {
        let at = |f: Face, i: i64, j: i64| {
            let t = TileId {
                level,
                face: f,
                x: 0,
                y: 0,
            };
            let (u, v) = t.sample_uv(i, j);
            (self.height)(f.direction(u, v))
        };
        match canonical_sample(level, face, i, j) {
            SampleRef::Owned(f, i, j) => at(f, i, j),
            SampleRef::Corner(three) => {
                let h: Vec<f64> = three.iter().map(|&(f, i, j)| at(f, i, j)).collect();
                ((h[0] + h[1]) + h[2]) / 3.0
            }
        }
    }

    /// The tile from samples every `step` samples (aprons included), bilinear between them.
    fn coarse(&self, id: TileId, step: usize) -> Tile {
        let n = TILE_STRIDE as usize;
        let a = TILE_APRON as i64;
        let nodes = (n - 1).div_ceil(step) + 1;
        let at = |k: usize| (k * step).min(n - 1) as i64;
        let mut grid = vec![0.0f64; nodes * nodes];
        for r in 0..nodes {
            for c in 0..nodes {
                grid[r * nodes + c] = self.sample_height(
                    id.level,
                    id.face,
                    id.global_i(at(c) - a),
                    id.global_j(at(r) - a),
                );
            }
        }
        // Node k sits at sample at(k); the last node may be closer than `step` to its neighbour.
        let locate = |x: usize| {
            let k = (x / step).min(nodes - 2);
            let (x0, x1) = (at(k) as f64, at(k + 1) as f64);
            (k, (x as f64 - x0) / (x1 - x0))
        };
        let mut tile = Tile::empty(id);
        for row in 0..n {
            let (r, fy) = locate(row);
            for col in 0..n {
                let (c, fx) = locate(col);
                let g = |dr: usize, dc: usize| grid[(r + dr) * nodes + c + dc];
                let top = g(0, 0) + (g(0, 1) - g(0, 0)) * fx;
                let bot = g(1, 0) + (g(1, 1) - g(1, 0)) * fx;
                let h = top + (bot - top) * fy;
                tile.set(row * n + col, quantise(h, h < 0.0));
            }
        }
        tile
    }

    fn make(&self, id: TileId) -> Tile {
        let mut tile = Tile::empty(id);
        let a = TILE_APRON as i64;
        for row in 0..TILE_STRIDE as i64 {
            for col in 0..TILE_STRIDE as i64 {
                let h = self.sample_height(
                    id.level,
                    id.face,
                    id.global_i(col - a),
                    id.global_j(row - a),
                );
                tile.set(
                    (row * TILE_STRIDE as i64 + col) as usize,
                    quantise(h, h < 0.0),
                );
            }
        }
        tile
    }
}

impl TileSource for AnalyticSource {
    fn body(&self) -> Body {
        self.body
    }
    fn finest_level(&self) -> u8 {
        self.finest
    }
    fn tile(&self, id: TileId) -> Arc<Tile> {
        if let Some(t) = self.cache.lock().get(&id) {
            return t.clone();
        }
        let t = Arc::new(self.make(id));
        self.cache.lock().insert(id, t.clone());
        t
    }
    fn max_relief(&self) -> f64 {
        self.relief
    }
    /// The function sampled on every 8th sample (1/64 of the work) and read bilinearly between:
    /// a stand-in made in milliseconds, however costly the function.
    fn provisional(&self, id: TileId) -> Option<Arc<Tile>> {
        Some(Arc::new(self.coarse(id, 8)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_analytic_stand_in_is_the_function_at_its_nodes_and_close_between() {
        let src = AnalyticSource::new(Body { radius: 1.0e6 }, 6, 100.0, |d| {
            100.0 * (d.x * 3.0).sin() * (d.y * 2.0 + d.z).cos()
        });
        let id = TileId::new(2, Face(1), 2, 3);
        let (exact, coarse) = (src.tile(id), src.provisional(id).unwrap());
        let n = TILE_STRIDE as usize;
        let mut sum = 0.0;
        for row in 0..n {
            for col in 0..n {
                let k = row * n + col;
                if row % 8 == 0 && col % 8 == 0 {
                    assert_eq!(coarse.code(k), exact.code(k), "node {row},{col}");
                }
                sum += (coarse.heights[k] - exact.heights[k]).abs() as f64;
            }
        }
        let mean = sum / (n * n) as f64;
        assert!(mean > 0.0 && mean < 1.0, "mean |stand-in − exact| {mean} m");
    }

    #[test]
    fn analytic_tiles_agree_across_tile_and_face_edges() {
        let src = AnalyticSource::new(Body { radius: 1.0e6 }, 6, 100.0, |d| {
            100.0 * (d.x * 3.0).sin() * (d.y * 2.0 + d.z).cos()
        });
        // Inside a face: the +u neighbour's first interior column is this tile's apron column 512.
        let t = TileId::new(3, Face(2), 4, 5);
        let n = t.neighbour(1, 0).unwrap();
        let (a, b) = (src.tile(t), src.tile(n));
        for j in 0..512 {
            assert_eq!(a.height(512, j), b.height(0, j));
        }
        // Across a face edge: the folded apron equals the neighbour face's samples.
        let edge = TileId::new(2, Face(0), 3, 1);
        let across = edge.neighbour(1, 0).unwrap();
        assert_ne!(across.face, edge.face);
        let (e, x) = (src.tile(edge), src.tile(across));
        for j in 0..512 {
            let SampleRef::Owned(f, gi, gj) =
                canonical_sample(2, Face(0), edge.global_i(512), edge.global_j(j))
            else {
                panic!("an edge apron sample has an owner");
            };
            assert_eq!(f, across.face);
            let (li, lj) = (gi - 512 * across.x as i64, gj - 512 * across.y as i64);
            assert!((0..512).contains(&li) && (0..512).contains(&lj));
            assert_eq!(e.height(512, j), x.height(li, lj), "row {j}");
        }
    }
}
