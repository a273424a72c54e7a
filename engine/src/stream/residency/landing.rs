//! Landing: the payloads a frame has (arrivals, stand-ins, blocking fetches) made resident in
//! their slots, parents first, in the current priority order, and same-slot replacements of
//! stand-ins and changed tiles begun. Both modes' landing lives here, apart from `mod.rs`'s
//! bookkeeping of what is wanted, requested and arrived.

use super::{TileStream, Upload};
use crate::earth::Tile;
use crate::params::{LAST_STORED_LEVEL, STREAM_PROVISIONAL_MAX_LEVEL};
use crate::planet::TileId;
use crate::source::TileSource;
use crate::stream::cull::HeightRange;
use crate::stream::slots::SlotState;
use std::collections::HashMap;
use std::sync::Arc;

/// What one frame's landing hands back to `TileStream::update`.
#[derive(Default)]
pub(super) struct Landing {
    /// In the order landed (parents before children).
    pub(super) uploads: Vec<Upload>,
    /// The frame blocked on the source.
    pub(super) waited: bool,
}

impl TileStream {
    /// Non-waiting landing: arrivals in priority order, stand-ins for the coarse levels,
    /// replacements of stand-ins; blocking fetches only from a source without workers.
    pub(super) fn land(
        &mut self,
        pending: &[(f64, TileId)],
        now_s: f64,
        source: &dyn TileSource,
        out: &mut Landing,
    ) {
        // Stand-ins for the coarse levels that have not arrived, made together on every core.
        let wants_stand_in: Vec<TileId> = pending
            .iter()
            .map(|&(_, id)| id)
            .filter(|id| id.level <= STREAM_PROVISIONAL_MAX_LEVEL && !self.arrived.contains_key(id))
            .collect();
        let mut stand_ins: HashMap<TileId, Arc<Tile>> = wants_stand_in
            .iter()
            .copied()
            .zip(make_stand_ins(&wants_stand_in, source))
            .filter_map(|(id, t)| Some((id, t?)))
            .collect();
        // Parents first (the priority order ranks a parent at least as high as its children).
        let mut fetched = 0;
        let mut landed_new = 0;
        for &(_, id) in pending {
            if id
                .parent()
                .is_some_and(|p| self.table.state_of(p) != SlotState::Resident)
            {
                continue;
            }
            if self.arrived.contains_key(&id) {
                if landed_new < self.max_uploads {
                    let t = self.arrived.remove(&id).expect("checked");
                    self.land_one(id, t, now_s, false, out);
                    landed_new += 1;
                }
            } else if let Some(t) = stand_ins.remove(&id) {
                self.land_one(id, t, now_s, true, out);
            } else if !source.is_async() && (fetched < self.fetch_per_frame || id.level == 0) {
                fetched += 1;
                out.waited = true;
                let t = source.tile(id);
                self.land_one(id, t, now_s, false, out);
            }
        }
        // Exact tiles over their stand-ins and changed ones over the old, most urgent first,
        // while reserve pages last.
        let mut replace: Vec<TileId> = self
            .provisional
            .iter()
            .chain(&self.stale)
            .copied()
            .filter(|id| self.arrived.contains_key(id))
            .collect();
        replace.sort_by_key(|id| (id.level, *id));
        for id in replace {
            if landed_new >= self.max_uploads {
                break;
            }
            // A slot still cross-fading from the last replacement keeps its arrival for a
            // later frame.
            let data = self.arrived.remove(&id).expect("filtered on arrival");
            if let Err(data) = self.replace_one(id, data, now_s, out) {
                self.arrived.insert(id, data);
                continue;
            }
            landed_new += 1;
        }
        // A source without workers is asked for changed tiles here, within the fetch budget.
        if !source.is_async() {
            let mut stale: Vec<TileId> = self.stale.iter().copied().collect();
            stale.sort_by_key(|id| (id.level, *id));
            for id in stale {
                if fetched >= self.fetch_per_frame || landed_new >= self.max_uploads {
                    break;
                }
                fetched += 1;
                out.waited = true;
                if self.replace_one(id, source.tile(id), now_s, out).is_ok() {
                    landed_new += 1;
                }
            }
        }
    }

    /// The same-slot replacement of resident `id` by `data`: the old payload cross-fades out
    /// from a reserve page. Gives `data` back when the slot cannot take it now (still
    /// cross-fading, or no reserve page free).
    fn replace_one(
        &mut self,
        id: TileId,
        data: Arc<Tile>,
        now_s: f64,
        out: &mut Landing,
    ) -> Result<(), Arc<Tile>> {
        let Some((slot, page)) = self.table.replace(id, now_s) else {
            return Err(data);
        };
        self.provisional.remove(&id);
        self.stale.remove(&id);
        out.uploads.push(Upload {
            tile: id,
            slot,
            page,
            parent_slot: self.table.parent_slot(id),
            data,
            provisional: false,
            replaces: true,
        });
        Ok(())
    }

    /// Waiting landing: every load, parents first, fetched before the frame goes on.
    pub(super) fn land_waiting(
        &mut self,
        pending: &[(f64, TileId)],
        now_s: f64,
        source: &dyn TileSource,
        out: &mut Landing,
    ) {
        if source.is_async() {
            let all: Vec<(TileId, f32)> = pending.iter().map(|&(p, id)| (id, p as f32)).collect();
            source.request(&all);
        }
        for &(_, id) in pending {
            if id
                .parent()
                .is_some_and(|p| self.table.state_of(p) != SlotState::Resident)
            {
                continue;
            }
            let t = match self.arrived.remove(&id) {
                Some(t) => t,
                None => {
                    out.waited = true;
                    source.tile(id)
                }
            };
            self.land_one(id, t, now_s, false, out);
        }
        // Changed tiles, fetched now too; they still cross-fade in their slots.
        let mut stale: Vec<TileId> = self.stale.iter().copied().collect();
        stale.sort_by_key(|id| (id.level, *id));
        for id in stale {
            let t = self.arrived.remove(&id).unwrap_or_else(|| source.tile(id));
            out.waited = true;
            if let Err(t) = self.replace_one(id, t, now_s, out) {
                self.arrived.insert(id, t);
            }
        }
        // Completions of what this frame fetched itself: the cache keeps the tiles.
        let _ = source.poll();
        self.requested.clear();
    }

    /// Marks `id` resident in its slot and queues its payload's upload; an exact L9 tile's
    /// measured heights bound its amplified descendants from now on (`height_bound`).
    fn land_one(
        &mut self,
        id: TileId,
        data: Arc<Tile>,
        now_s: f64,
        provisional: bool,
        out: &mut Landing,
    ) {
        let slot = self
            .table
            .mark_resident(id, now_s)
            .expect("requested, parent resident");
        if id.level == LAST_STORED_LEVEL && !provisional {
            let (lo, hi) = data
                .heights
                .iter()
                .fold((f32::MAX, f32::MIN), |(l, h), &v| (l.min(v), h.max(v)));
            self.l9_heights.insert(
                id,
                HeightRange {
                    min_m: lo as f64,
                    max_m: hi as f64,
                },
            );
            self.l9_generation += 1;
        }
        if provisional {
            self.provisional.insert(id);
        }
        out.uploads.push(Upload {
            tile: id,
            slot,
            page: self.table.slot(slot).page,
            parent_slot: self.table.parent_slot(id),
            data,
            provisional,
            replaces: false,
        });
    }
}

/// Provisional stand-ins for `ids`, made on every core.
fn make_stand_ins(ids: &[TileId], source: &dyn TileSource) -> Vec<Option<Arc<Tile>>> {
    crate::stream::pool::map_on_every_core(ids, |_, &id| source.provisional(id))
}
