//! The stream's tiles made on the GPU, as nodes of the planet frame (TERRAIN.md §5–6).
//!
//! Two halves. [`GpuFeed`] is the [`TileSource`] the stream sees: `request` queues tiles by
//! priority, `poll` hands back finished ones, `feed` meters them per class (derived L0–L9,
//! amplified L10–L18), and the coarse stand-ins, faults and blocking fetches go to the CPU
//! source it wraps. [`GpuTileMaker`] is the renderer's GPU side: each frame it takes the most
//! urgent queued tiles (at most `per_frame`), declares `tiles.derive` / `tiles.amplify.*` for
//! them into one device buffer and `tiles.readback` into the frame slot's host buffer; when
//! that slot comes round again (its frame has finished) the tiles are read and completed.
//!
//! The tiles come back to the host because the host draws on them too: the CPU ground query
//! and every reprojection read the rendered blend from the resident payloads, and the wanted
//! set measures amplified tiles from their L9 ancestors' heights. A tile is 1.08 MB, so 2,000
//! tiles/s is about 2 GB/s each way, a small part of the host link (423 GB/s measured
//! host → device on the H200 machine). The copy back into an atlas page is the stream's own
//! `stream.upload`, the one path every payload takes.

use super::gpu::{DeriveJob, GpuTiles, GpuTilesError, JOB_FLOATS, MAX_JOBS};
use super::gpu_amplify::MAX_AMPLIFY_JOBS;
use super::gpu_budget::{BudgetState, TileBudget};
use super::tile::Tile;
use crate::params::LAST_STORED_LEVEL;
use crate::planet::{Body, TileId};
use crate::source::{Completion, TileSource};
use crate::stream::envelope::{FeedSnapshot, PerClass};
use crate::stream::WantedSet;
use framegraph::exec::timing::NodeTime;
use framegraph::{BufferDesc, Context, GpuBuffer, Graph};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

/// Tiles a frame makes on the GPU at most by default (the size of `tiles.out`: 35 MB, and as
/// much each way over the host link): the stream lands at most `DEFAULT_MAX_UPLOADS` (32)
/// arrivals a frame, so more made tiles would only wait on the host. The time budget
/// (`gpu_budget`) binds first at full clock; at the H200's idle clock (~0.5 ms a tile) its
/// catch-up cap admits more than this, and the budget's state says the tile cap binds.
pub const DEFAULT_GPU_TILES_PER_FRAME: usize = crate::stream::residency::DEFAULT_MAX_UPLOADS;

/// GPU milliseconds a frame spends making tiles by default while the view has what it needs
/// (the base of `gpu_budget::TileBudget`, which grows while tiles are missing). At the
/// H200's full-clock rates (docs/earth.md: ~0.11 ms an L9 tile, 0.24–0.33 ms an L13–L18 tile)
/// 2 ms is 6–8 amplified tiles a frame, ~400 tiles/s at 60 Hz: over 1 km/s of lateral flight
/// at 100 m clearance, while the frame keeps most of a 60 Hz interval.
pub const DEFAULT_GPU_TILE_BUDGET_MS: f64 = 2.0;

/// Weight of the newest measurement in the per-class cost estimate (a moving average over
/// ~4 frames: follows the GPU's clock ramping up within a fraction of a second).
const COST_WEIGHT: f64 = 0.25;

/// What the stream sees: the queue of tiles for the GPU and the tiles it finished.
pub struct GpuFeed {
    /// The CPU source (stand-ins, faults, blocking fetches, and the tiles `cpu_only` names);
    /// its workers are otherwise idle.
    inner: Arc<dyn TileSource>,
    /// Tiles the GPU cannot make exactly (under a water mask: coasts, lakes, land below the
    /// datum), requested from `inner` instead.
    cpu_only: Option<CpuOnly>,
    state: Mutex<FeedState>,
}

/// Which tiles go to the CPU source rather than the GPU.
pub type CpuOnly = Arc<dyn Fn(TileId) -> bool + Send + Sync>;

#[derive(Default)]
struct FeedState {
    /// Queued tiles and their latest priority.
    queued: HashMap<TileId, f32>,
    /// Tiles declared into a frame whose results are not back yet.
    in_flight: usize,
    done: Vec<Completion>,
    /// Tiles made so far: derived (L0–L9), amplified (L10+).
    made: [u64; 2],
}

impl GpuFeed {
    pub fn new(inner: Arc<dyn TileSource>) -> GpuFeed {
        GpuFeed {
            inner,
            cpu_only: None,
            state: Mutex::new(FeedState::default()),
        }
    }

    /// The same feed, sending the tiles `cpu_only` names to the CPU source.
    pub fn with_cpu_only(mut self, cpu_only: CpuOnly) -> GpuFeed {
        self.cpu_only = Some(cpu_only);
        self
    }

    /// Takes queued tiles, most urgent first (a parent ranks at least as high as its
    /// children, and coarser levels win ties), while their estimated cost fits `budget` (the
    /// first always goes) and at most `n`; counts them in flight. Also says whether `n`, not
    /// the budget, stopped it (a further tile was queued and would have fitted).
    fn take(&self, n: usize, cost: impl Fn(TileId) -> f64, budget: f64) -> (Vec<TileId>, bool) {
        let mut st = self.state.lock();
        let mut order: Vec<(f32, TileId)> = st.queued.iter().map(|(&id, &p)| (p, id)).collect();
        order.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(a.1.level.cmp(&b.1.level))
                .then(a.1.cmp(&b.1))
        });
        let mut amplified = 0;
        let mut spent = 0.0;
        let mut out = Vec::with_capacity(n.min(order.len()));
        let mut capped = false;
        for (_, id) in order {
            let c = cost(id);
            if !out.is_empty() && spent + c > budget {
                break;
            }
            if out.len() == n {
                capped = true;
                break;
            }
            spent += c;
            if id.level > LAST_STORED_LEVEL {
                if amplified == MAX_AMPLIFY_JOBS {
                    continue;
                }
                amplified += 1;
            }
            st.queued.remove(&id);
            out.push(id);
        }
        st.in_flight += out.len();
        (out, capped)
    }

    /// Queued tiles (not yet taken) that `wanted` holds: what the view is missing.
    pub fn needed(&self, wanted: &WantedSet) -> usize {
        let st = self.state.lock();
        wanted
            .tiles
            .iter()
            .filter(|t| st.queued.contains_key(&t.id))
            .count()
    }

    /// Hands back the tiles of a finished frame.
    fn complete(&self, tiles: Vec<Completion>) {
        let mut st = self.state.lock();
        st.in_flight -= tiles.len();
        for (id, t) in &tiles {
            if t.is_ok() {
                st.made[(id.level > LAST_STORED_LEVEL) as usize] += 1;
            }
        }
        st.done.extend(tiles);
    }

    /// Tiles queued and in flight.
    pub fn backlog(&self) -> usize {
        let st = self.state.lock();
        st.queued.len() + st.in_flight
    }
}

impl TileSource for GpuFeed {
    fn earth(&self) -> Option<Arc<crate::earth::Source>> {
        self.inner.earth()
    }
    fn data_dir(&self) -> Option<std::path::PathBuf> {
        self.inner.data_dir()
    }
    fn body(&self) -> Body {
        self.inner.body()
    }
    fn finest_level(&self) -> u8 {
        self.inner.finest_level()
    }
    fn tile(&self, id: TileId) -> Arc<Tile> {
        self.inner.tile(id)
    }
    fn max_relief(&self) -> f64 {
        self.inner.max_relief()
    }
    fn is_async(&self) -> bool {
        true
    }
    fn request(&self, tiles: &[(TileId, f32)]) {
        let mut cpu = Vec::new();
        {
            let mut st = self.state.lock();
            for &(id, p) in tiles {
                match &self.cpu_only {
                    Some(f) if f(id) => cpu.push((id, p)),
                    _ => {
                        st.queued.insert(id, p);
                    }
                }
            }
        }
        if !cpu.is_empty() {
            self.inner.request(&cpu);
        }
    }
    fn cancel(&self, tiles: &[TileId]) {
        let mut st = self.state.lock();
        for id in tiles {
            st.queued.remove(id);
        }
        drop(st);
        if self.cpu_only.is_some() {
            self.inner.cancel(tiles);
        }
    }
    fn poll(&self) -> Vec<Completion> {
        let mut done = std::mem::take(&mut self.state.lock().done);
        if self.cpu_only.is_some() {
            done.extend(self.inner.poll());
        }
        done
    }
    fn faults(&self) -> Option<String> {
        self.inner.faults()
    }
    fn provisional(&self, id: TileId) -> Option<Arc<Tile>> {
        self.inner.provisional(id)
    }
    fn updated_underneath(&self) -> Vec<TileId> {
        self.inner.updated_underneath()
    }
    fn invalidate(&self, tiles: &[TileId]) {
        self.inner.invalidate(tiles)
    }
    /// Derived and amplified tiles made on the GPU, plus what the CPU source made of the
    /// tiles sent to it.
    fn feed(&self) -> Option<FeedSnapshot> {
        let st = self.state.lock();
        let mut snap = FeedSnapshot {
            completed: PerClass([Some(st.made[0]), None, Some(st.made[1])]),
            backlog: (st.queued.len() + st.in_flight) as u64,
        };
        drop(st);
        if let Some(cpu) = self.cpu_only.as_ref().and(self.inner.feed()) {
            for (k, c) in cpu.completed.0.iter().enumerate() {
                if let Some(c) = c {
                    snap.completed.0[k] = Some(snap.completed.0[k].unwrap_or(0) + c);
                }
            }
            snap.backlog += cpu.backlog;
        }
        Some(snap)
    }
}

/// The renderer's GPU side of the feed: the generating nodes and a host buffer per frame slot.
pub struct GpuTileMaker {
    pub feed: Arc<GpuFeed>,
    tiles: GpuTiles,
    /// Where a frame's tiles are made (device-local, `per_frame` tiles).
    out: GpuBuffer,
    /// Per frame slot: the host copy of that slot's last frame's tiles, and which tiles.
    readback: Vec<GpuBuffer>,
    in_slot: Vec<Vec<TileId>>,
    /// The slot whose frame uploads the ETOPO grids (their staging is freed once it is back).
    upload_slot: Option<usize>,
    per_frame: usize,
    /// GPU ms a frame may spend making tiles: a base, more while the view misses tiles.
    budget: TileBudget,
    /// Whether the tile cap, not the budget, bounded the last planned frame.
    tile_capped: bool,
    /// Measured GPU ms per tile, derived and amplified (None until measured).
    cost_ms: [Option<f64>; 2],
    /// This frame's tiles (set by `plan`, declared by `declare`).
    planned: Option<usize>,
}

impl GpuTileMaker {
    /// A maker of at most `per_frame` tiles and about `budget_ms` GPU ms a frame, over the CPU
    /// source `inner` whose ETOPO grids `src` holds.
    pub fn new(
        ctx: &Context,
        src: &Arc<super::Source>,
        inner: Arc<dyn TileSource>,
        per_frame: usize,
        budget_ms: f64,
        frames_in_flight: usize,
    ) -> Result<GpuTileMaker, GpuTilesError> {
        let per_frame = per_frame.clamp(1, MAX_JOBS);
        let bytes = 4 * JOB_FLOATS * per_frame as u64;
        if bytes > ctx.info.max_storage_buffer_range {
            return Err(GpuTilesError::TooLarge {
                what: "a frame's generated tiles",
                bytes,
                max: ctx.info.max_storage_buffer_range,
            });
        }
        let tiles = GpuTiles::new(ctx, src)?;
        let out = GpuBuffer::new(ctx, "tiles.out", BufferDesc::gpu(bytes))?;
        let readback = (0..frames_in_flight)
            .map(|k| {
                GpuBuffer::new(
                    ctx,
                    &format!("tiles.readback.{k}"),
                    BufferDesc::readback(bytes),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let feed = GpuFeed::new(inner);
        let feed = if src.has_water_mask() {
            // Judged once per L9 tile: the stream asks again for a pending tile every frame,
            // and every amplified tile below one L9 tile gets the same answer.
            let src = src.clone();
            let judged: Mutex<HashMap<TileId, bool>> = Mutex::new(HashMap::new());
            feed.with_cpu_only(Arc::new(move |id| {
                // An amplified tile is judged by its L9 tile; a derived one by itself.
                let mut key = id;
                while key.level > LAST_STORED_LEVEL {
                    key = key.parent().expect("an amplified tile has a parent");
                }
                !*judged
                    .lock()
                    .entry(key)
                    .or_insert_with(|| src.sign_rule_holds(key))
            }))
        } else {
            feed
        };
        Ok(GpuTileMaker {
            feed: Arc::new(feed),
            tiles,
            out,
            readback,
            in_slot: vec![Vec::new(); frames_in_flight],
            upload_slot: None,
            per_frame,
            budget: TileBudget::new(budget_ms),
            tile_capped: false,
            cost_ms: [None, None],
            planned: None,
        })
    }

    /// The GPU times of `slot`'s last frame (`FrameOutput::times`), before that slot's next
    /// `harvest`: updates the measured ms per tile of each class from the frame's `tiles.*`
    /// nodes. Without it (a caller that does not read GPU times) the maker keeps to one
    /// tile of each class a frame.
    pub fn observe(&mut self, slot: usize, times: &[NodeTime]) {
        let ids = &self.in_slot[slot];
        let amplified = ids.iter().filter(|id| id.level > LAST_STORED_LEVEL).count();
        let counts = [ids.len() - amplified, amplified];
        let mut ms = [0.0; 2];
        for t in times {
            if t.name == "tiles.derive" {
                ms[0] += t.duration_ms;
            } else if t.name.starts_with("tiles.amplify") {
                ms[1] += t.duration_ms;
            }
        }
        for k in 0..2 {
            if counts[k] > 0 && ms[k] > 0.0 {
                let m = ms[k] / counts[k] as f64;
                self.cost_ms[k] = Some(match self.cost_ms[k] {
                    Some(c) => c + COST_WEIGHT * (m - c),
                    None => m,
                });
            }
        }
    }

    /// Measured GPU ms per tile, derived and amplified.
    pub fn cost_ms(&self) -> [Option<f64>; 2] {
        self.cost_ms
    }

    /// Tiles a frame makes at most.
    pub fn per_frame(&self) -> usize {
        self.per_frame
    }

    /// Before the stream's update: the tiles `slot`'s last frame made (that frame has
    /// finished: `Executor::begin_frame` waited for it) become completions.
    pub fn harvest(&mut self, ctx: &Context, slot: usize) {
        if self.upload_slot == Some(slot) {
            self.tiles.release_staging(ctx);
            self.upload_slot = None;
        }
        let ids = std::mem::take(&mut self.in_slot[slot]);
        if ids.is_empty() {
            return;
        }
        let bytes = self.readback[slot]
            .mapped()
            .expect("readback buffers are host-visible");
        let heights: &[f32] = bytemuck::cast_slice(bytes);
        self.feed.complete(tiles_from(&ids, heights));
    }

    /// The time budget as of the last planned frame.
    pub fn budget(&self) -> BudgetState {
        self.budget.state()
    }

    /// After the stream's update (which queued this frame's requests and computed `wanted`,
    /// `dt_s` wall seconds after the last frame; `cut`: a camera cut's window is open): sets this
    /// frame's budget and picks its tiles for `slot`.
    pub fn plan(&mut self, slot: usize, wanted: &WantedSet, dt_s: f64, cut: bool) {
        let needed = self.feed.needed(wanted);
        self.budget.set_cut(cut);
        let budget = self.budget.step(dt_s, needed, self.tile_capped);
        // An unmeasured class costs the whole budget: one tile of it until it is measured.
        let cost = self.cost_ms;
        let (ids, capped) = self.feed.take(
            self.per_frame,
            |id| cost[(id.level > LAST_STORED_LEVEL) as usize].unwrap_or(budget),
            budget,
        );
        self.tile_capped = capped;
        self.budget.record_take(capped);
        self.planned = (!ids.is_empty()).then_some(slot);
        if !ids.is_empty() && self.upload_slot.is_none() && !self.tiles.grids_uploaded() {
            self.upload_slot = Some(slot);
        }
        self.in_slot[slot] = ids;
    }

    /// The planned tiles' nodes: `tiles.derive` / `tiles.amplify.*` into `tiles.out`, then
    /// `tiles.readback` into the slot's host buffer. Nothing when nothing is planned.
    pub fn declare(&self, g: &mut Graph<'_>) -> Result<(), GpuTilesError> {
        let Some(slot) = self.planned else {
            return Ok(());
        };
        let ids = &self.in_slot[slot];
        let jobs: Vec<DeriveJob> = ids
            .iter()
            .enumerate()
            .map(|(k, &tile)| DeriveJob {
                tile,
                out_index: k as u32,
            })
            .collect();
        let mut out = g.import_buffer(&self.out);
        self.tiles
            .declare(g, &jobs, &mut out, self.per_frame as u64)?;
        let mut rb = g.import_buffer(&self.readback[slot]);
        let size = 4 * JOB_FLOATS * ids.len() as u64;
        g.transfer("tiles.readback")
            .copy_buffer(out, &mut rb, 0, 0, size);
        Ok(())
    }

    pub fn destroy(self, ctx: &Context) {
        self.tiles.destroy(ctx);
        self.out.destroy(ctx);
        self.readback.into_iter().for_each(|b| b.destroy(ctx));
    }
}

/// Tiles from their heights as the GPU wrote them (water where a height is below the datum,
/// as `Tile::set_height`), split over every core: 16 tiles are 4.3 M samples. A tile with a
/// non-finite height (a full fallback list writes NaN) fails with the reason, and the stream
/// retries it.
fn tiles_from(ids: &[TileId], heights: &[f32]) -> Vec<Completion> {
    let n = JOB_FLOATS as usize;
    let make = |k: usize, id: TileId| -> Completion {
        let h = &heights[k * n..(k + 1) * n];
        if let Some(bad) = h.iter().position(|v| !v.is_finite()) {
            return (
                id,
                Err(format!(
                    "the GPU made a non-finite height at sample {bad} (a fallback list overflowed)"
                )),
            );
        }
        let mut t = Tile::empty(id);
        for (k, &v) in h.iter().enumerate() {
            t.set_height(k, v);
        }
        (id, Ok(Arc::new(t)))
    };
    crate::stream::pool::map_on_every_core(ids, |k, &id| make(k, id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::AnalyticSource;

    fn feed() -> GpuFeed {
        GpuFeed::new(Arc::new(AnalyticSource::from_surface(
            crate::cbt::surface::AnalyticSurface::earth(),
        )))
    }

    /// The most urgent first, a re-request takes the new priority, a cancel drops it, and
    /// what is taken counts as backlog until it completes.
    #[test]
    fn the_queue_hands_out_the_most_urgent_tiles_and_meters_them() {
        let f = feed();
        let face = crate::planet::Face(2);
        let a = TileId::new(3, face, 1, 1);
        let b = TileId::new(12, face, 5, 5);
        let c = TileId::new(4, face, 2, 2);
        f.request(&[(a, 1.0), (b, 5.0), (c, 2.0)]);
        f.request(&[(a, 9.0)]);
        f.cancel(&[c]);
        assert_eq!(f.backlog(), 2);
        let (got, capped) = f.take(1, |_| 0.0, 1.0);
        assert_eq!(got, vec![a]);
        assert!(capped, "the cap of 1 stopped it, not the budget");
        assert_eq!(f.backlog(), 2, "one queued, one in flight");
        f.complete(vec![(a, Ok(Arc::new(Tile::empty(a))))]);
        let (got, capped) = f.take(8, |_| 0.0, 1.0);
        assert_eq!(got, vec![b]);
        assert!(!capped);
        f.complete(vec![(b, Err("no".into()))]);
        assert_eq!(f.backlog(), 0);
        let polled = f.poll();
        assert_eq!(polled.len(), 2);
        let snap = f.feed().expect("metered");
        assert_eq!(
            snap.completed.0,
            [Some(1), None, Some(0)],
            "a failure is not supply"
        );
        assert!(f.poll().is_empty());
    }

    /// A CPU source that records what it is asked for and completes it on the next poll.
    struct Recorder {
        inner: AnalyticSource,
        asked: Mutex<Vec<TileId>>,
        cancelled: Mutex<Vec<TileId>>,
    }

    impl TileSource for Recorder {
        fn body(&self) -> Body {
            self.inner.body()
        }
        fn finest_level(&self) -> u8 {
            self.inner.finest_level()
        }
        fn tile(&self, id: TileId) -> Arc<Tile> {
            self.inner.tile(id)
        }
        fn max_relief(&self) -> f64 {
            self.inner.max_relief()
        }
        fn is_async(&self) -> bool {
            true
        }
        fn request(&self, tiles: &[(TileId, f32)]) {
            self.asked.lock().extend(tiles.iter().map(|t| t.0));
        }
        fn cancel(&self, tiles: &[TileId]) {
            self.cancelled.lock().extend_from_slice(tiles);
        }
        fn poll(&self) -> Vec<Completion> {
            let asked = std::mem::take(&mut *self.asked.lock());
            asked
                .into_iter()
                .map(|id| (id, Ok(Arc::new(Tile::empty(id)))))
                .collect()
        }
        fn feed(&self) -> Option<FeedSnapshot> {
            Some(FeedSnapshot {
                completed: PerClass([Some(3), Some(0), Some(2)]),
                backlog: 1,
            })
        }
    }

    /// Under a water mask the tiles the GPU cannot make exactly go to the CPU source: its
    /// requests, cancels, completions and supply pass through; the GPU queue never sees them.
    #[test]
    fn tiles_the_gpu_cannot_make_go_to_the_cpu_source() {
        let rec = Arc::new(Recorder {
            inner: AnalyticSource::from_surface(crate::cbt::surface::AnalyticSurface::earth()),
            asked: Mutex::new(Vec::new()),
            cancelled: Mutex::new(Vec::new()),
        });
        let face = crate::planet::Face(4);
        let coast = TileId::new(12, face, 7, 7);
        let inland = TileId::new(12, face, 8, 8);
        let f = GpuFeed::new(rec.clone()).with_cpu_only(Arc::new(move |id| id == coast));
        f.request(&[(coast, 2.0), (inland, 1.0)]);
        assert_eq!(*rec.asked.lock(), vec![coast]);
        assert_eq!(f.backlog(), 1, "only the inland tile is queued for the GPU");
        let (got, _) = f.take(8, |_| 0.0, 1.0);
        assert_eq!(got, vec![inland]);
        f.complete(vec![(inland, Ok(Arc::new(Tile::empty(inland))))]);
        let mut done: Vec<TileId> = f.poll().into_iter().map(|c| c.0).collect();
        done.sort();
        let mut want = vec![coast, inland];
        want.sort();
        assert_eq!(done, want, "both arrive: one from each maker");
        f.cancel(&[coast]);
        assert_eq!(*rec.cancelled.lock(), vec![coast]);
        let snap = f.feed().expect("metered");
        assert_eq!(snap.completed.0, [Some(3), Some(0), Some(3)]);
        assert_eq!(snap.backlog, 1);
    }

    /// The budget bounds a frame's tiles by their estimated cost; the first always goes.
    #[test]
    fn the_time_budget_bounds_a_frames_tiles() {
        let f = feed();
        let face = crate::planet::Face(1);
        let ids: Vec<TileId> = (0..6).map(|x| TileId::new(12, face, x, 0)).collect();
        f.request(&ids.iter().map(|&id| (id, 1.0)).collect::<Vec<_>>());
        let (two, capped) = f.take(16, |_| 0.4, 1.0);
        assert_eq!(
            (two.len(), capped),
            (2, false),
            "0.4 + 0.4 fits 1.0, a third does not"
        );
        let (one, capped) = f.take(16, |_| 5.0, 1.0);
        assert_eq!((one.len(), capped), (1, false), "over budget: one a frame");
        let (two, capped) = f.take(2, |_| 0.0, 1.0);
        assert_eq!((two.len(), capped), (2, true), "the cap binds, and says so");
        assert_eq!(f.backlog(), 6);
    }

    /// Heights come back as tiles with water below the datum; a NaN fails the tile.
    #[test]
    fn heights_become_tiles_and_a_nan_fails_its_tile() {
        let n = JOB_FLOATS as usize;
        let face = crate::planet::Face(0);
        let ids = [TileId::new(9, face, 0, 0), TileId::new(9, face, 1, 0)];
        let mut h = vec![0f32; 2 * n];
        h[7] = -3.0;
        h[8] = 12.5;
        h[n + 3] = f32::NAN;
        let out = tiles_from(&ids, &h);
        let t = out[0].1.as_ref().expect("finite");
        assert_eq!((t.heights[7], t.heights[8]), (-3.0, 12.5));
        assert_eq!(t.water[0] >> 7 & 1, 1);
        assert_eq!(t.water[0] >> 8 & 1, 0);
        assert!(out[1].1.as_ref().is_err_and(|e| e.contains("sample 3")));
    }
}
