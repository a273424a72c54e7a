//! Residency: one frame of streaming on the CPU — the wanted set, the slot plan, fetching from
//! the DEM oracle, and the list of payloads the GPU side copies (`stream.upload`).
//!
//! Synchronous when `wait_for_tiles` is set (issue 5 allows it): the frame blocks until every
//! load has landed, so what the frame wants is what it draws. Otherwise requests stay in
//! flight and whatever has landed is promoted each frame; parents always land first (a child
//! whose parent is not resident waits in the inbox), and completions are handed back in the
//! current priority order, not arrival order (TERRAIN.md §5).

use super::slots::{Eviction, ResidentTile, SlotState, SlotTable};
use super::wanted::{wanted_set, WantedParams, WantedSet};
use crate::cbt::camera::ViewCamera;
use crate::earth::Tile;
use crate::planet::{Body, TileId};
use crate::store::Oracle;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where payloads come from: the DEM oracle, or a stand-in in tests.
pub trait TileSource {
    /// Queue tiles at `priority` (higher first); must not block.
    fn request(&self, ids: &[TileId], priority: f32);
    /// Tiles completed since the last call.
    fn collect(&self) -> Vec<(TileId, Arc<Tile>)>;
    /// Block until everything requested has completed.
    fn wait_idle(&self);
}

/// Residency owns the oracle's request/collect channel: other users of the same oracle should
/// use `Oracle::get`, or their completions are taken (and dropped) here.
impl TileSource for Oracle {
    fn request(&self, ids: &[TileId], priority: f32) {
        Oracle::request(self, ids, priority)
    }
    fn collect(&self) -> Vec<(TileId, Arc<Tile>)> {
        Oracle::collect(self)
    }
    fn wait_idle(&self) {
        Oracle::wait_idle(self)
    }
}

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

pub struct Residency {
    pub body: Body,
    /// The wanted set's settings; `params.slots` is the table's size.
    pub params: WantedParams,
    /// True: a frame waits until its tiles have landed (synchronous mode).
    pub wait_for_tiles: bool,
    table: SlotTable,
    /// Landed payloads not yet promoted (their parent is not resident yet).
    inbox: BTreeMap<TileId, Arc<Tile>>,
}

impl Residency {
    pub fn new(body: Body, params: WantedParams, wait_for_tiles: bool) -> Residency {
        Residency {
            body,
            params,
            wait_for_tiles,
            table: SlotTable::new(params.slots),
            inbox: BTreeMap::new(),
        }
    }

    pub fn table(&self) -> &SlotTable {
        &self.table
    }

    /// The resident tiles (tile → slot, page, parent slot, arrival), in slot order.
    pub fn resident(&self) -> Vec<ResidentTile> {
        self.table.resident()
    }

    /// One frame: want, plan, fetch, promote. `now_s` stamps arrivals (fades).
    pub fn update(
        &mut self,
        cam: &ViewCamera,
        now_s: f64,
        source: &dyn TileSource,
    ) -> FrameResidency {
        let wanted = wanted_set(cam, self.body, &self.params);
        let plan = self.table.plan(&wanted);
        for e in &plan.evictions {
            self.inbox.remove(&e.tile);
        }
        for l in &plan.loads {
            source.request(&[l.tile], l.priority as f32);
        }
        if self.wait_for_tiles && !plan.loads.is_empty() {
            source.wait_idle();
        }
        for (id, tile) in source.collect() {
            // Tiles evicted while in flight, or asked for by someone else, are dropped.
            if self.table.state_of(id) == SlotState::Requested {
                self.inbox.insert(id, tile);
            }
        }
        let uploads = self.promote(&wanted, now_s);
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

    /// Landed payloads whose parent is resident become resident, in the current priority
    /// order (wanted tiles first; a tile no longer wanted after, coarsest first). A parent
    /// ranks before its children in that order, so one pass promotes whole chains.
    fn promote(&mut self, wanted: &WantedSet, now_s: f64) -> Vec<Upload> {
        let mut order: Vec<(f64, TileId)> = self
            .inbox
            .keys()
            .map(|&id| (wanted.get(id).map_or(f64::NEG_INFINITY, |w| w.priority), id))
            .collect();
        order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut uploads = Vec::new();
        for (_, id) in order {
            let Ok(slot) = self.table.mark_resident(id, now_s) else {
                continue; // parent not resident yet: stays in the inbox
            };
            let data = self.inbox.remove(&id).expect("listed from the inbox");
            uploads.push(Upload {
                tile: id,
                slot,
                page: self.table.slot(slot).page,
                parent_slot: self.table.parent_slot(id),
                data,
            });
        }
        uploads
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;

    /// Hands back requested tiles (empty payloads), at most `per_collect` per call, newest
    /// first — the opposite of priority order — so ordering is the residency's doing.
    struct Fake {
        queue: Mutex<Vec<TileId>>,
        per_collect: usize,
    }
    impl TileSource for Fake {
        fn request(&self, ids: &[TileId], _priority: f32) {
            self.queue.lock().extend_from_slice(ids);
        }
        fn collect(&self) -> Vec<(TileId, Arc<Tile>)> {
            let mut q = self.queue.lock();
            let n = q.len().min(self.per_collect);
            let start = q.len() - n;
            q.drain(start..)
                .rev()
                .map(|id| (id, Arc::new(Tile::empty(id))))
                .collect()
        }
        fn wait_idle(&self) {}
    }

    fn params() -> WantedParams {
        WantedParams {
            slots: 64,
            finest_level: 12,
            ..WantedParams::default()
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

    #[test]
    fn synchronous_frames_have_their_tiles() {
        let src = Fake {
            queue: Mutex::new(vec![]),
            per_collect: usize::MAX,
        };
        let mut r = Residency::new(Body::EARTH, params(), true);
        let f = r.update(&cam(50_000.0, 0.0), 0.0, &src);
        let rep = f.report;
        assert!(rep.wanted > 0 && rep.wanted <= 48, "{rep:?}");
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
        let pr: Vec<f64> = f
            .uploads
            .iter()
            .map(|u| f.wanted.get(u.tile).expect("wanted").priority)
            .collect();
        assert!(pr.windows(2).all(|w| w[0] >= w[1]));
        // The same view again: nothing to do.
        let g = r.update(&cam(50_000.0, 0.0), 1.0, &src);
        assert_eq!((g.report.loaded_this_frame, g.report.evicted), (0, 0));
        // Turn around: what is no longer wanted makes room, every wanted tile lands.
        let h = r.update(&cam(50_000.0, 180.0), 2.0, &src);
        assert!(h.report.evicted > 0);
        assert_eq!((h.report.pending, h.report.missing), (0, 0));
        assert_eq!(h.report.resident, r.resident().len());
        r.table().validate().expect("invariants");
        for t in r.resident() {
            assert!(t.arrival_s <= 2.0);
        }
    }

    #[test]
    fn background_arrivals_promote_parents_first_in_priority_order() {
        let src = Fake {
            queue: Mutex::new(vec![]),
            per_collect: 5,
        };
        let mut r = Residency::new(Body::EARTH, params(), false);
        let c = cam(20_000.0, 90.0);
        let mut frames = 0;
        loop {
            let f = r.update(&c, frames as f64 * 0.016, &src);
            r.table().validate().expect("invariants");
            let pr: Vec<f64> = f
                .uploads
                .iter()
                .map(|u| f.wanted.get(u.tile).expect("wanted").priority)
                .collect();
            assert!(
                pr.windows(2).all(|w| w[0] >= w[1]),
                "handed back by priority"
            );
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
