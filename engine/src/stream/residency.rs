//! Residency: one frame of streaming on the CPU — the wanted set, the slot plan, fetching
//! payloads from a `source::TileSource` (the DEM oracle or the analytic planet), and the list
//! of payloads the GPU side copies (`stream.upload`).
//!
//! Synchronous when `wait_for_tiles` is set: the frame fetches every load
//! before it returns, so what the frame wants is what it draws. Otherwise at most
//! `fetch_per_frame` payloads are fetched per frame and the rest stay pending, fetched in the
//! current priority order of later frames (TERRAIN.md §5: completions by current priority, not
//! arrival); these fetches still block the frame. Either way parents are
//! fetched before children, so a resident tile's parent chain is always resident.
//!
//! With `prefetch` set to the oracle behind the source, every load is queued on its worker
//! pool first, so the blocking fetches overlap (the block cache loads a tile once however many
//! ask; the pool's completion list is drained and dropped here).

use super::cull::HeightRange;
use super::slots::{Eviction, SlotEntry, SlotState, SlotTable};
use super::wanted::{wanted_set, WantedParams, WantedSet};
use crate::camera::ViewCamera;
use crate::earth::Tile;
use crate::planet::{Body, TileId};
use crate::source::TileSource;
use crate::store::Oracle;
use std::sync::Arc;

/// Payload fetches per frame when frames do not wait (ours: bounds a frame's blocking time to
/// a few derivations when the source is cold; TERRAIN.md gives no number).
pub const DEFAULT_FETCH_PER_FRAME: usize = 16;

/// A payload to copy into a page; the slot record points at it from this frame on.
#[derive(Clone, Debug)]
pub struct Upload {
    pub tile: TileId,
    pub slot: u32,
    pub page: u32,
    pub parent_slot: Option<u32>,
    pub data: Arc<Tile>,
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
    /// Payloads that became resident this frame (= uploads).
    pub loaded_this_frame: usize,
    pub evicted: usize,
    /// Wanted tiles without a slot (table exhausted); their ancestors serve.
    pub missing: usize,
    /// Wanted tiles the cap left out (`WantedSet::trimmed`).
    pub trimmed: usize,
}

/// One frame's result for the GPU side. Apply `evictions` before `uploads` (a slot or page
/// freed here may be reused by an upload of the same frame).
#[derive(Clone, Debug)]
pub struct FrameResidency {
    pub report: ResidencyReport,
    pub evictions: Vec<Eviction>,
    /// In the current priority order (parents before children).
    pub uploads: Vec<Upload>,
    pub wanted: WantedSet,
}

/// The streaming state across frames: the slot table and its settings.
pub struct TileStream {
    pub body: Body,
    /// The wanted set's settings; `params.slots` is the table's size.
    pub params: WantedParams,
    /// True: a frame fetches all its loads before returning (synchronous mode).
    pub wait_for_tiles: bool,
    /// Fetches per frame when `wait_for_tiles` is false.
    pub fetch_per_frame: usize,
    /// The oracle to queue loads on before fetching (see the module notes).
    pub prefetch: Option<Arc<Oracle>>,
    table: SlotTable,
}

impl TileStream {
    pub fn new(body: Body, params: WantedParams, wait_for_tiles: bool) -> TileStream {
        TileStream {
            body,
            params,
            wait_for_tiles,
            fetch_per_frame: DEFAULT_FETCH_PER_FRAME,
            prefetch: None,
            table: SlotTable::new(params.slots),
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

    /// One frame: want, plan, fetch. `now_s` stamps arrivals (fades start there).
    pub fn update(
        &mut self,
        cam: &ViewCamera,
        now_s: f64,
        source: &dyn TileSource,
    ) -> FrameResidency {
        let wanted = wanted_set(cam, self.body, &self.params);
        let plan = self.table.plan(&wanted);
        let pending = self.pending_by_priority(&wanted);
        if let Some(o) = &self.prefetch {
            for &(p, id) in &pending {
                o.request(&[id], p as f32);
            }
        }
        let budget = if self.wait_for_tiles {
            usize::MAX
        } else {
            self.fetch_per_frame
        };
        let mut uploads = Vec::new();
        for &(_, id) in &pending {
            if uploads.len() == budget {
                break;
            }
            // Parents come first in this order; a parent left pending keeps its children so.
            if id
                .parent()
                .is_some_and(|p| self.table.state_of(p) != SlotState::Resident)
            {
                continue;
            }
            let data = source.tile(id);
            let slot = self
                .table
                .mark_resident(id, now_s)
                .expect("requested, parent resident");
            uploads.push(Upload {
                tile: id,
                slot,
                page: self.table.slot(slot).page,
                parent_slot: self.table.parent_slot(id),
                data,
            });
        }
        if let Some(o) = &self.prefetch {
            drop(o.collect()); // the cache keeps what we fetch; the list would only grow
        }
        let report = ResidencyReport {
            wanted: wanted.len(),
            resident: self.table.count(SlotState::Resident),
            pending: self.table.count(SlotState::Requested),
            loaded_this_frame: uploads.len(),
            evicted: plan.evictions.len(),
            missing: plan.missing,
            trimmed: wanted.trimmed,
        };
        FrameResidency {
            report,
            evictions: plan.evictions,
            uploads,
            wanted,
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
mod tests {
    use super::*;
    use parking_lot::Mutex;

    /// Empty payloads; counts fetches.
    struct Fake {
        fetched: Mutex<Vec<TileId>>,
    }
    impl TileSource for Fake {
        fn body(&self) -> Body {
            Body::EARTH
        }
        fn finest_level(&self) -> u8 {
            12
        }
        fn tile(&self, id: TileId) -> Arc<Tile> {
            self.fetched.lock().push(id);
            Arc::new(Tile::empty(id))
        }
        fn max_relief(&self) -> f64 {
            9_000.0
        }
    }

    fn fake() -> Fake {
        Fake {
            fetched: Mutex::new(vec![]),
        }
    }

    fn cam(alt: f64, heading: f64) -> ViewCamera {
        ViewCamera::geo(
            46.5,
            8.0,
            Body::EARTH.radius + alt,
            heading,
            -30.0,
            60.0,
            640,
            360,
        )
    }

    fn priorities(f: &FrameResidency) -> Vec<f64> {
        f.uploads
            .iter()
            .map(|u| f.wanted.get(u.tile).expect("wanted").priority)
            .collect()
    }

    #[test]
    fn synchronous_frames_have_their_tiles() {
        let src = fake();
        let mut r = TileStream::for_source(&src, 64, true);
        assert_eq!(r.params.finest_level, 12);
        assert_eq!(r.params.heights.max_m, 9_000.0);
        let f = r.update(&cam(50_000.0, 0.0), 0.0, &src);
        let rep = f.report;
        assert!(rep.wanted > 6 && rep.wanted <= 48, "{rep:?}");
        assert_eq!((rep.resident, rep.pending, rep.missing), (rep.wanted, 0, 0));
        assert_eq!(rep.loaded_this_frame, rep.wanted);
        for u in &f.uploads {
            assert_eq!(u.data.id, u.tile);
            assert_eq!(
                u.parent_slot,
                u.tile.parent().and_then(|p| r.table().slot_of(p))
            );
            assert_eq!(r.table().slot(u.slot).page, u.page);
        }
        // Uploads come in priority order.
        assert!(priorities(&f).windows(2).all(|w| w[0] >= w[1]));
        // The same view again: nothing to do.
        let g = r.update(&cam(50_000.0, 0.0), 1.0, &src);
        assert_eq!((g.report.loaded_this_frame, g.report.evicted), (0, 0));
        // Turn around: what is no longer wanted makes room, every wanted tile lands.
        let h = r.update(&cam(50_000.0, 180.0), 2.0, &src);
        assert!(h.report.evicted > 0);
        assert_eq!((h.report.pending, h.report.missing), (0, 0));
        assert_eq!(h.report.resident, r.resident().len());
        r.table().validate().expect("invariants");
        // Each payload was fetched once per load.
        let loads = f.uploads.len() + h.uploads.len();
        assert_eq!(src.fetched.lock().len(), loads);
    }

    #[test]
    fn frames_that_do_not_wait_fetch_a_budget_parents_first_by_priority() {
        let src = fake();
        let mut r = TileStream::for_source(&src, 64, false);
        r.fetch_per_frame = 5;
        let c = cam(20_000.0, 90.0);
        let mut frames = 0;
        loop {
            let f = r.update(&c, frames as f64 * 0.016, &src);
            r.table().validate().expect("invariants");
            assert!(f.uploads.len() <= 5);
            assert!(priorities(&f).windows(2).all(|w| w[0] >= w[1]));
            frames += 1;
            if f.report.pending == 0 && f.report.missing == 0 && f.report.loaded_this_frame == 0 {
                assert_eq!(f.report.resident, f.report.wanted);
                break;
            }
            assert!(frames < 100, "{:?}", f.report);
        }
        assert!(frames > 3, "arrivals were spread over frames");
    }
}

/// Cold first frames over the real Earth (ETOPO5, no data directory): `cargo test --release -p
/// engine earth_cold_frames -- --ignored --nocapture`. Ignored: tens of seconds, needs ETOPO5.
#[cfg(test)]
mod earth_timing {
    use super::*;
    use crate::earth::{etopo_path, Source};
    use crate::source::EarthSource;
    use crate::store::OracleConfig;

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
        ts.prefetch = Some(oracle.clone());
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
