//! Residency: one frame of streaming on the CPU — the wanted set, the slot plan, payloads
//! from a `source::TileSource` (the DEM oracle, or any source behind `stream::pool::Pooled`),
//! and the list of payloads the GPU side copies (`stream.upload`).
//!
//! Two modes. **Waiting** (`wait_for_tiles`: `render`, `capture`, the bench's accuracy
//! views): the frame fetches every load before it returns, so what it wants is what it
//! draws; an asynchronous source gets every load queued first so the fetches overlap.
//! **Non-waiting** (the viewer, the bench's flights): the frame never blocks on a tile. Loads
//! are requested from the source's workers at their current priority; completions are kept
//! until they can land and land in the *current* priority order (TERRAIN.md §5), not in
//! arrival order, at most `max_uploads` per frame; a missing tile is served by its resident
//! ancestors. Levels ≤ `STREAM_PROVISIONAL_MAX_LEVEL` that have not arrived are drawn from the
//! source's provisional stand-in (made on every core in milliseconds), so the whole globe is
//! there from the first frame; when the exact tile arrives it replaces the stand-in in the
//! same slot, cross-fading over 1.5 s. A tile that fails is reported once and retried with
//! a growing wait; its ancestors serve meanwhile. Only a source without workers makes a
//! non-waiting frame block (at most `fetch_per_frame` tiles), and the report says it waited.
//!
//! Either way parents land before children, so a resident tile's parent chain is resident.
//! How a frame's payloads land in their slots, in either mode, is `landing.rs`.

use super::cull::HeightRange;
use super::cut::{is_cut, CutWindow};
use super::slots::{Eviction, SlotEntry, SlotState, SlotTable};
use super::wanted::{WantedCache, WantedParams, WantedSet};
use crate::camera::ViewCamera;
use crate::earth::amplify::max_detail_m;
use crate::earth::Tile;
use crate::params::LAST_STORED_LEVEL;
use crate::planet::{Body, TileId};
use crate::source::TileSource;
use glam::DVec3;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

mod landing;
use landing::Landing;

/// Payload fetches per frame from a source without workers when frames do not wait (ours:
/// bounds such a frame's blocking time to a few tiles; TERRAIN.md gives no number).
pub const DEFAULT_FETCH_PER_FRAME: usize = 16;

/// Payloads landing per frame when frames do not wait (ours: 32 pages are 17 MB of staging
/// and copies, well inside a frame on any device; the rest land next frame, by priority).
pub const DEFAULT_MAX_UPLOADS: usize = 32;

/// First retry of a failed tile after this long, doubling per failure up to `RETRY_MAX_S`.
const RETRY_FIRST_S: f64 = 1.0;
const RETRY_MAX_S: f64 = 30.0;

/// The L9 tile an amplified tile (level > 9) is made from.
fn l9_ancestor(id: TileId) -> TileId {
    let up = id.level - LAST_STORED_LEVEL;
    TileId::new(LAST_STORED_LEVEL, id.face, id.x >> up, id.y >> up)
}

/// A payload to copy into a page; the slot record points at it from this frame on.
#[derive(Clone, Debug)]
pub struct Upload {
    pub tile: TileId,
    pub slot: u32,
    pub page: u32,
    pub parent_slot: Option<u32>,
    pub data: Arc<Tile>,
    /// A provisional stand-in (the exact tile replaces it later).
    pub provisional: bool,
    /// Replaces the slot's resident payload, which cross-fades out from its old page.
    pub replaces: bool,
}

/// What one frame did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResidencyReport {
    /// Tiles in the wanted set.
    pub wanted: usize,
    /// Slots holding a resident payload after this frame.
    pub resident: usize,
    /// Slots assigned but still waiting for a payload.
    pub pending: usize,
    /// Payloads that became resident this frame (new tiles and replacements).
    pub loaded_this_frame: usize,
    pub evicted: usize,
    /// Wanted tiles without a slot (table exhausted); their ancestors serve.
    pub missing: usize,
    /// Wanted tiles the cap left out (`WantedSet::trimmed`).
    pub trimmed: usize,
    /// The frame blocked on tile production (waiting mode, or a source without workers).
    pub waited: bool,
    /// Resident tiles still drawn from a provisional stand-in.
    pub provisional: usize,
    /// Resident tiles whose changed content is on its way (`TileStream::refresh`).
    pub stale: usize,
    /// Same-slot replacements begun this frame, and slots cross-fading after it.
    pub replaced_this_frame: usize,
    pub crossfading: usize,
    /// Tiles whose production failed and that wait for a retry.
    pub failed: usize,
    /// Completed payloads kept for a later frame (parent missing or upload budget spent).
    pub arrived_waiting: usize,
    /// A camera cut's window was open in this frame: what landed shows at full weight at
    /// once (`stream::cut`).
    pub cut_window: bool,
}

/// One frame's result for the GPU side. Apply `evictions` before `uploads` (a slot or page
/// freed here may be reused by an upload of the same frame).
#[derive(Clone, Debug)]
pub struct FrameResidency {
    pub report: ResidencyReport,
    pub evictions: Vec<Eviction>,
    /// In the current priority order (parents before children).
    pub uploads: Vec<Upload>,
    /// Slots whose cross-fade ended this frame (their old page is free).
    pub crossfades_done: Vec<u32>,
    /// Failures first seen this frame, one line each (each tile is reported once).
    pub failures: Vec<String>,
    pub wanted: WantedSet,
}

#[derive(Clone, Copy, Debug)]
struct Retry {
    at_s: f64,
    attempts: u32,
}

/// The streaming state across frames: the slot table and its settings.
pub struct TileStream {
    pub body: Body,
    /// The wanted set's settings; `params.slots` is the table's size.
    pub params: WantedParams,
    /// True: a frame fetches all its loads before returning (waiting mode).
    pub wait_for_tiles: bool,
    /// Blocking fetches per frame from a source without workers when frames do not wait.
    pub fetch_per_frame: usize,
    /// Payloads landing per frame when frames do not wait.
    pub max_uploads: usize,
    table: SlotTable,
    /// Completed payloads not resident yet.
    arrived: HashMap<TileId, Arc<Tile>>,
    /// Tiles queued on the source, at the priority last sent.
    requested: HashMap<TileId, f32>,
    /// Resident tiles drawn from a provisional stand-in.
    provisional: HashSet<TileId>,
    /// Resident exact tiles whose content changed at the source (the store rewritten
    /// underneath, the detail settings changed): drawn as they are until the new payload
    /// replaces them in their slot.
    stale: HashSet<TileId>,
    failed: HashMap<TileId, Retry>,
    /// Tiles already reported as failed (each is reported once).
    reported: HashSet<TileId>,
    /// Measured height range of each landed L9 tile (`height_bound`).
    l9_heights: HashMap<TileId, HeightRange>,
    /// The last frame's eye, for finding cuts (`cut::is_cut`).
    last_eye: Option<DVec3>,
    /// The open cut window, if any.
    cut: Option<CutWindow>,
    /// Counts changes of `l9_heights`: part of the wanted set's key.
    l9_generation: u64,
    /// The last wanted set, kept for a still camera.
    wanted_cache: WantedCache,
}

impl TileStream {
    pub fn new(body: Body, params: WantedParams, wait_for_tiles: bool) -> TileStream {
        TileStream {
            body,
            params,
            wait_for_tiles,
            fetch_per_frame: DEFAULT_FETCH_PER_FRAME,
            max_uploads: DEFAULT_MAX_UPLOADS,
            table: SlotTable::new(params.slots),
            arrived: HashMap::new(),
            requested: HashMap::new(),
            provisional: HashSet::new(),
            stale: HashSet::new(),
            failed: HashMap::new(),
            reported: HashSet::new(),
            l9_heights: HashMap::new(),
            l9_generation: 0,
            wanted_cache: WantedCache::default(),
            last_eye: None,
            cut: None,
        }
    }

    /// A camera cut at `now_s` (a teleport, a bookmark jump: the caller knows the view is
    /// new): until the wanted set is first complete, or `STREAM_CUT_WINDOW_MAX_S`, arrivals
    /// and replacements show at full weight at once. Jumps are also found from the eye
    /// (`cut::is_cut`) in `update`.
    pub fn cut(&mut self, now_s: f64) {
        self.cut = Some(CutWindow { since_s: now_s });
        self.table.set_at_once(true);
    }

    /// Whether a cut's window is open.
    pub fn in_cut_window(&self) -> bool {
        self.cut.is_some()
    }

    /// Closes the cut's window, if open, when the view is `complete` or its time is up.
    fn close_cut_window(&mut self, now_s: f64, complete: bool) {
        if self.cut.is_some_and(|w| !w.stays_open(now_s, complete)) {
            self.cut = None;
            self.table.set_at_once(false);
        }
    }

    /// Settings from the source: its body, its finest level, and ±its relief as every tile's
    /// height bound; `slots` slots.
    pub fn for_source(source: &dyn TileSource, slots: usize, wait_for_tiles: bool) -> TileStream {
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
        TileStream::new(source.body(), params, wait_for_tiles)
    }

    pub fn table(&self) -> &SlotTable {
        &self.table
    }

    /// The resident tiles (tile → slot, page, parent slot, arrival), in slot order.
    pub fn resident(&self) -> Vec<SlotEntry> {
        self.table.resident()
    }

    /// Whether any resident tile is still a provisional stand-in.
    pub fn stream_has_stand_ins(&self) -> bool {
        !self.provisional.is_empty()
    }

    /// Whether a resident tile is still its provisional stand-in.
    pub fn is_provisional(&self, tile: TileId) -> bool {
        self.provisional.contains(&tile)
    }

    /// Marks resident tiles among `tiles` whose content changed at the source: each is asked
    /// for again and, when it arrives, replaces the old payload in the same slot with the
    /// 1.5 s cross-fade. Tiles not resident (or still stand-ins, which are being replaced
    /// anyway) are ignored: whatever lands next is the new content. Returns how many were
    /// marked.
    pub fn refresh(&mut self, tiles: &[TileId]) -> usize {
        let mut n = 0;
        for &id in tiles {
            if self.table.state_of(id) == SlotState::Resident && !self.provisional.contains(&id) {
                // A request on its way may carry the old content: ask again.
                self.requested.remove(&id);
                self.arrived.remove(&id);
                n += self.stale.insert(id) as usize;
            }
        }
        n
    }

    /// Resident tiles waiting for their changed content.
    pub fn stale(&self) -> usize {
        self.stale.len()
    }

    /// One frame: want, plan, request, land. `now_s` stamps arrivals (fades start there).
    pub fn update(
        &mut self,
        cam: &ViewCamera,
        now_s: f64,
        source: &dyn TileSource,
    ) -> FrameResidency {
        if let Some(prev) = self.last_eye.replace(cam.eye) {
            if is_cut(self.body.radius, prev, cam.eye) {
                self.cut(now_s);
            }
        }
        self.close_cut_window(now_s, false);
        let mut out = Landing::default();
        let mut wanted = self.wanted(cam);
        if self.wait_for_tiles {
            // A waiting frame over ground not yet measured chose its amplified tiles against
            // the planet-wide height bound: every tile within kilometres of the eye at the
            // finest level the cap allows, most of which the measured ground does not want
            // (a cold 2 m view: 700 tiles, 597 of them L13–L14; measured, it wants 344).
            // Those are made before the frame returns, so the frame first lands the rest,
            // L9 ancestors among it, and then wants again against their heights.
            let unmeasured = |id: TileId| {
                id.level > LAST_STORED_LEVEL && !self.l9_heights.contains_key(&l9_ancestor(id))
            };
            if wanted.tiles.iter().any(|t| unmeasured(t.id)) {
                let measured = wanted.without(unmeasured);
                let plan = self.table.plan(&measured);
                self.forget(&plan.evictions, source);
                let pending = self.pending_by_priority(&measured);
                self.land_waiting(&pending, now_s, source, &mut out);
                wanted = self.wanted(cam);
            }
        }
        let plan = self.table.plan(&wanted);
        self.forget(&plan.evictions, source);
        let crossfades_done = self.table.finish_crossfades(now_s);
        let failures = self.take_completions(source, now_s);
        let pending = self.pending_by_priority(&wanted);
        if self.wait_for_tiles {
            self.land_waiting(&pending, now_s, source, &mut out);
        } else {
            self.send_requests(&pending, &wanted, now_s, source);
            self.land(&pending, now_s, source, &mut out);
        }
        let report = ResidencyReport {
            wanted: wanted.len(),
            resident: self.table.count(SlotState::Resident),
            pending: self.table.count(SlotState::Requested),
            loaded_this_frame: out.uploads.len(),
            evicted: plan.evictions.len(),
            missing: plan.missing,
            trimmed: wanted.trimmed,
            waited: out.waited,
            provisional: self.provisional.len(),
            stale: self.stale.len(),
            replaced_this_frame: out.uploads.iter().filter(|u| u.replaces).count(),
            crossfading: self.table.crossfading(),
            failed: self.failed.len(),
            arrived_waiting: self.arrived.len(),
            cut_window: self.cut.is_some(),
        };
        // The window closes once the new pose's wanted set is complete: every wanted tile
        // has a slot and its exact payload.
        let complete = report.pending == 0 && report.provisional == 0 && report.missing == 0;
        self.close_cut_window(now_s, complete);
        FrameResidency {
            report,
            evictions: plan.evictions,
            uploads: out.uploads,
            crossfades_done,
            failures,
            wanted,
        }
    }

    /// The wanted set for `cam`: the last one when nothing it depends on changed.
    fn wanted(&mut self, cam: &ViewCamera) -> WantedSet {
        let mut cache = std::mem::take(&mut self.wanted_cache);
        let set = cache.get(cam, self.body, &self.params, self.l9_generation, &|id| {
            self.height_bound(id)
        });
        self.wanted_cache = cache;
        set
    }

    /// Heights tile `id` lies within: an amplified tile within its L9 ancestor's measured
    /// range widened by the most detail amplification adds (the monotone cubic stays within
    /// the L9 samples), so fine tiles near the ground are measured from their own ground and
    /// not from the planet-wide shell (whose 20 km would make every tile within 10 km want
    /// the finest level); any other tile, or one whose L9 ancestor has not landed, the
    /// source-wide bound. Every amplified descendant of an L9 tile gets the same range, so a
    /// child's bound lies within its parent's.
    fn height_bound(&self, id: TileId) -> HeightRange {
        if id.level > LAST_STORED_LEVEL {
            if let Some(r) = self.l9_heights.get(&l9_ancestor(id)) {
                let m = max_detail_m(self.body);
                return HeightRange {
                    min_m: (r.min_m - m).max(self.params.heights.min_m),
                    max_m: (r.max_m + m).min(self.params.heights.max_m),
                };
            }
        }
        self.params.heights
    }

    /// Drops what evicted tiles left behind and cancels their queued requests.
    fn forget(&mut self, evictions: &[Eviction], source: &dyn TileSource) {
        let mut cancel = Vec::new();
        for e in evictions {
            if self.l9_heights.remove(&e.tile).is_some() {
                self.l9_generation += 1;
            }
            self.arrived.remove(&e.tile);
            self.provisional.remove(&e.tile);
            self.stale.remove(&e.tile);
            self.failed.remove(&e.tile);
            if self.requested.remove(&e.tile).is_some() {
                cancel.push(e.tile);
            }
        }
        if !cancel.is_empty() {
            source.cancel(&cancel);
        }
    }

    /// Takes the source's completions: payloads still in the table are kept until they land;
    /// failures wait for a retry. Returns the failures not reported before.
    fn take_completions(&mut self, source: &dyn TileSource, now_s: f64) -> Vec<String> {
        let mut failures = Vec::new();
        for (id, made) in source.poll() {
            self.requested.remove(&id);
            let in_table = match self.table.state_of(id) {
                SlotState::Requested => true,
                SlotState::Resident => self.provisional.contains(&id) || self.stale.contains(&id),
                SlotState::Empty => false,
            };
            match made {
                Ok(t) if in_table => {
                    self.failed.remove(&id);
                    self.arrived.insert(id, t);
                }
                Ok(_) => {}
                Err(why) => {
                    let attempts = self.failed.get(&id).map_or(0, |r| r.attempts) + 1;
                    let wait = (RETRY_FIRST_S * 2f64.powi(attempts as i32 - 1)).min(RETRY_MAX_S);
                    self.failed.insert(
                        id,
                        Retry {
                            at_s: now_s + wait,
                            attempts,
                        },
                    );
                    if self.reported.insert(id) {
                        let msg = format!(
                            "tile {id} could not be made: {why}; its ancestors serve, retrying"
                        );
                        log::warn!("{msg}");
                        failures.push(msg);
                    }
                }
            }
        }
        failures
    }

    /// Queues what is still wanted and not on its way at its current priority; a tile whose
    /// priority moved by more than a quarter is re-ranked (so after a turn the view being
    /// looked at is made first, without re-sending every tile every frame).
    fn send_requests(
        &mut self,
        pending: &[(f64, TileId)],
        wanted: &WantedSet,
        now_s: f64,
        source: &dyn TileSource,
    ) {
        if !source.is_async() {
            return;
        }
        let replacing = self
            .provisional
            .iter()
            .chain(&self.stale)
            .map(|&id| (wanted.get(id).map_or(0.0, |w| w.priority), id));
        let mut send = Vec::new();
        for (p, id) in pending.iter().copied().chain(replacing) {
            if self.arrived.contains_key(&id)
                || self.failed.get(&id).is_some_and(|r| r.at_s > now_s)
            {
                continue;
            }
            let p = if p.is_finite() { p as f32 } else { 0.0 };
            let moved = match self.requested.get(&id) {
                None => true,
                Some(&q) => (p - q).abs() > 0.25 * q.abs().max(p.abs()),
            };
            if moved {
                self.requested.insert(id, p);
                send.push((id, p));
            }
        }
        if !send.is_empty() {
            source.request(&send);
        }
    }

    /// Requested slots in the current priority order: wanted tiles by priority (parents rank
    /// at least as high as their children and win ties by id), then tiles no longer wanted
    /// but not yet evicted, coarsest first.
    fn pending_by_priority(&self, wanted: &WantedSet) -> Vec<(f64, TileId)> {
        let mut order: Vec<(f64, TileId)> = self
            .table
            .entries()
            .into_iter()
            .filter(|e| e.state == SlotState::Requested)
            .map(|e| {
                let p = wanted.get(e.tile).map_or(f64::NEG_INFINITY, |w| w.priority);
                (p, e.tile)
            })
            .collect();
        order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        order
    }
}

#[cfg(test)]
mod tests;

/// Cold first frames over the real Earth (ETOPO5, no data directory): `cargo test --release -p
/// engine earth_cold_frames -- --ignored --nocapture`. Ignored: tens of seconds, needs ETOPO5.
#[cfg(test)]
mod earth_timing {
    use super::*;
    use crate::earth::{etopo_path, Source};
    use crate::source::EarthSource;
    use crate::store::{Oracle, OracleConfig};

    #[test]
    #[ignore]
    fn earth_cold_frames() {
        let src = Arc::new(Source::open(&etopo_path(None), Body::EARTH).expect("ETOPO5"));
        let oracle = Arc::new(Oracle::new(src, OracleConfig::default()).expect("oracle"));
        let es = EarthSource {
            oracle: oracle.clone(),
            body: Body::EARTH,
        };
        let mut ts = TileStream::for_source(&es, 1024, true);
        for (name, lat, lon, alt, pitch) in [
            ("orbit 20,000 km", 5.0, 20.0, 20_000_000.0, -90.0),
            ("10 km", 28.0, 86.9, 10_000.0, -20.0),
            ("2 m (4,998 m ground)", 28.0, 86.9, 5_000.0, 0.0),
        ] {
            let r = Body::EARTH.radius;
            let cam = ViewCamera::geo(lat, lon, r + alt, 0.0, pitch, 60.0, 1920, 1080);
            let t0 = std::time::Instant::now();
            let f = ts.update(&cam, 0.0, &es);
            let c = oracle.counters();
            eprintln!(
                "{name:22} {:?} in {:.2} s; derived so far {} tiles ({} threads)",
                f.report,
                t0.elapsed().as_secs_f64(),
                c.derived.tiles,
                oracle.threads()
            );
            assert_eq!(f.report.pending, 0);
        }
    }
}
