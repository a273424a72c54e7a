//! The slot table (TERRAIN.md §2, §5): N tile slots the shaders index (1,024 by default) and
//! N + 64 physical pages. Each tile holds one page; the 64 beyond the slot count hold the
//! previous payloads of same-slot replacements while they cross-fade (`replace`, 1.5 s), so a
//! replacement never waits for an eviction and at most 64 run at once. Each frame `plan` gives wanted-but-missing tiles free slots in priority order,
//! parents before children, and evicts resident tiles no longer wanted — least recently
//! wanted first, never one with a child in the table, never more than the loads need. A
//! requested tile no longer wanted is released at once (it has no payload worth keeping).
//!
//! Invariants (`validate`, tested): a tile in the table has its parent in the table; a resident
//! tile has its parent resident; no two tiles share a slot or a page (cross-fade pages
//! included); occupancy ≤ N; pages free + pages cross-fading ≥ 64. Free slots and pages are handed out lowest first, so a plan is a pure
//! function of the table and the wanted set.

use super::wanted::WantedSet;
use crate::params::{STREAM_FADE_S, STREAM_RESERVED_PAGES, STREAM_XFADE_S};
use crate::planet::TileId;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotState {
    Empty,
    /// Assigned by a plan; the payload has not arrived (or its parent is not resident yet).
    Requested,
    /// The payload is on the GPU (or about to be copied this frame).
    Resident,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slot {
    pub tile: Option<TileId>,
    /// Physical page holding the payload (valid when `tile` is set).
    pub page: u32,
    pub state: SlotState,
    /// When the payload's fade began, seconds on the caller's clock: its arrival, or one
    /// whole fade before it when it arrived at full weight (`SlotTable::set_at_once`).
    pub arrival_s: f64,
    /// Last frame (`SlotTable::frame`) whose wanted set held the tile.
    pub last_wanted: u64,
    /// The previous payload's page and when the cross-fade to `page` began (`replace`; one
    /// whole cross-fade before the replacement when it was at full weight at once).
    pub from: Option<(u32, f64)>,
}

const EMPTY: Slot = Slot {
    tile: None,
    page: 0,
    state: SlotState::Empty,
    arrival_s: 0.0,
    last_wanted: 0,
    from: None,
};

/// A tile to fetch into `slot`/`page`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Load {
    pub tile: TileId,
    pub slot: u32,
    pub page: u32,
    /// The wanted set's priority (requests to the oracle use it).
    pub priority: f64,
}

/// A tile leaving the table; its slot and page are free again (a load of the same plan may
/// reuse them, so apply evictions before loads).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eviction {
    pub tile: TileId,
    pub slot: u32,
    pub page: u32,
    /// False when the tile was still in flight (requested, never resident).
    pub was_resident: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    pub loads: Vec<Load>,
    pub evictions: Vec<Eviction>,
    /// Wanted tiles left without a slot (the table is full of wanted tiles or their parents
    /// could not be placed): their nearest ancestor in the table serves.
    pub missing: usize,
}

/// One occupied slot as the GPU side sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlotEntry {
    pub tile: TileId,
    pub slot: u32,
    pub page: u32,
    /// The parent's slot (None at L0): the shaders' parent-chain walk follows it.
    pub parent_slot: Option<u32>,
    pub arrival_s: f64,
    pub state: SlotState,
    /// The page being cross-faded from, during a same-slot replacement.
    pub page_from: Option<u32>,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SlotError {
    #[error("tile {0} has no requested slot")]
    NotRequested(TileId),
    #[error("tile {0} cannot become resident before its parent")]
    ParentNotResident(TileId),
}

pub struct SlotTable {
    slots: Vec<Slot>,
    /// Per slot: how many of its tile's children are in the table (eviction needs 0).
    children: Vec<u8>,
    map: BTreeMap<TileId, u32>,
    free_slots: BTreeSet<u32>,
    free_pages: BTreeSet<u32>,
    pages: usize,
    frame: u64,
    /// Arrivals and replacements show at full weight at once (a camera cut's window).
    at_once: bool,
}

impl SlotTable {
    /// A table of `slots` slots and `slots + STREAM_RESERVED_PAGES` pages, all free.
    pub fn new(slots: usize) -> SlotTable {
        let pages = slots + STREAM_RESERVED_PAGES;
        SlotTable {
            slots: vec![EMPTY; slots],
            children: vec![0; slots],
            map: BTreeMap::new(),
            free_slots: (0..slots as u32).collect(),
            free_pages: (0..pages as u32).collect(),
            pages,
            frame: 0,
            at_once: false,
        }
    }

    /// From now on, arrivals (`mark_resident`) and replacements (`replace`) show at full
    /// weight at once (`true`: a camera cut's window, `stream::cut`), or fade in (`false`).
    pub fn set_at_once(&mut self, at_once: bool) {
        self.at_once = at_once;
    }

    /// Whether arrivals show at full weight at once.
    pub fn at_once(&self) -> bool {
        self.at_once
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
    pub fn page_count(&self) -> usize {
        self.pages
    }
    pub fn free_pages(&self) -> usize {
        self.free_pages.len()
    }
    /// Frames planned so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }
    /// Occupied slots (requested or resident).
    pub fn occupied(&self) -> usize {
        self.map.len()
    }
    pub fn count(&self, state: SlotState) -> usize {
        self.slots.iter().filter(|s| s.state == state).count()
    }
    pub fn slot(&self, slot: u32) -> &Slot {
        &self.slots[slot as usize]
    }
    pub fn slot_of(&self, tile: TileId) -> Option<u32> {
        self.map.get(&tile).copied()
    }
    pub fn state_of(&self, tile: TileId) -> SlotState {
        self.slot_of(tile)
            .map_or(SlotState::Empty, |s| self.slots[s as usize].state)
    }
    /// The slot of the tile's parent (None at L0 or when the parent is not in the table).
    pub fn parent_slot(&self, tile: TileId) -> Option<u32> {
        tile.parent().and_then(|p| self.slot_of(p))
    }

    /// Fade-in weight of a resident slot at `now_s`: 0 on arrival → 1 after `STREAM_FADE_S`.
    pub fn fade(&self, slot: u32, now_s: f64) -> f64 {
        let s = &self.slots[slot as usize];
        match s.state {
            SlotState::Resident => ((now_s - s.arrival_s) / STREAM_FADE_S).clamp(0.0, 1.0),
            _ => 0.0,
        }
    }

    /// Weight of the new payload of a replacement at `now_s`: 0 when it began → 1 after
    /// `STREAM_XFADE_S`; 1 when the slot is not cross-fading.
    pub fn xfade(&self, slot: u32, now_s: f64) -> f64 {
        match self.slots[slot as usize].from {
            Some((_, t0)) => ((now_s - t0) / STREAM_XFADE_S).clamp(0.0, 1.0),
            None => 1.0,
        }
    }

    /// Slots cross-fading now.
    pub fn crossfading(&self) -> usize {
        self.slots.iter().filter(|s| s.from.is_some()).count()
    }

    /// Same-slot replacement of resident `tile` at `now_s`: its payload moves to a free page
    /// and the current one is kept to cross-fade from. Returns (slot, new page), or None when
    /// the tile is not resident, is already cross-fading, or no page is free (the caller
    /// tries again next frame). The tile's arrival fade is untouched. In a cut's window the
    /// cross-fade is over at once; the old page is freed by the next `finish_crossfades`.
    pub fn replace(&mut self, tile: TileId, now_s: f64) -> Option<(u32, u32)> {
        let slot = self.slot_of(tile)?;
        let s = &self.slots[slot as usize];
        // At most the 64 reserve pages cross-fade, so every slot can still get a page.
        if s.state != SlotState::Resident
            || s.from.is_some()
            || self.crossfading() >= STREAM_RESERVED_PAGES
        {
            return None;
        }
        let page = self.free_pages.pop_first()?;
        let begun = if self.at_once {
            now_s - STREAM_XFADE_S
        } else {
            now_s
        };
        let s = &mut self.slots[slot as usize];
        s.from = Some((s.page, begun));
        s.page = page;
        Some((slot, page))
    }

    /// Ends the cross-fades complete at `now_s`, freeing their old pages; returns the slots.
    pub fn finish_crossfades(&mut self, now_s: f64) -> Vec<u32> {
        let mut done = Vec::new();
        for (k, s) in self.slots.iter_mut().enumerate() {
            if let Some((page, t0)) = s.from {
                if now_s - t0 >= STREAM_XFADE_S {
                    s.from = None;
                    self.free_pages.insert(page);
                    done.push(k as u32);
                }
            }
        }
        done
    }

    /// Every occupied slot, in slot order.
    pub fn entries(&self) -> Vec<SlotEntry> {
        let mut out: Vec<SlotEntry> = self
            .map
            .iter()
            .map(|(&tile, &slot)| {
                let s = &self.slots[slot as usize];
                SlotEntry {
                    tile,
                    slot,
                    page: s.page,
                    parent_slot: self.parent_slot(tile),
                    arrival_s: s.arrival_s,
                    state: s.state,
                    page_from: s.from.map(|f| f.0),
                }
            })
            .collect();
        out.sort_by_key(|e| e.slot);
        out
    }

    /// The resident slots, in slot order.
    pub fn resident(&self) -> Vec<SlotEntry> {
        let mut e = self.entries();
        e.retain(|e| e.state == SlotState::Resident);
        e
    }

    /// Plans one frame against `wanted` (ordered by priority, parents first — as `wanted_set`
    /// returns it). Loaded tiles enter as `Requested`; call `mark_resident` as payloads land.
    pub fn plan(&mut self, wanted: &WantedSet) -> Plan {
        self.frame += 1;
        let now = self.frame;
        for t in &wanted.tiles {
            if let Some(&s) = self.map.get(&t.id) {
                self.slots[s as usize].last_wanted = now;
            }
        }
        let mut plan = Plan::default();
        // A requested tile the view no longer wants gives its slot back at once: it holds no
        // payload to keep, and making it would spend the feed on what nothing draws (a
        // teleport's first wanted set, taken against the planet-wide height bounds, is ~5×
        // the one its landed L9 tiles then give). Finer levels first: an unwanted tile's
        // descendants are unwanted too (a wanted set holds its ancestors), and none can be
        // resident under a requested parent.
        let mut unwanted: Vec<TileId> = self
            .map
            .iter()
            .filter(|(_, &s)| {
                let s = &self.slots[s as usize];
                s.state == SlotState::Requested && s.last_wanted < now
            })
            .map(|(&t, _)| t)
            .collect();
        unwanted.sort_by_key(|t| (Reverse(t.level), *t));
        for t in unwanted {
            if self.children[self.map[&t] as usize] == 0 {
                plan.evictions.push(self.remove(t));
            }
        }
        // Evictable: not wanted this frame and no child in the table. Least recently wanted
        // first; then finer levels, then id (deterministic).
        let key = |s: &Slot, t: TileId| (s.last_wanted, Reverse(t.level), t);
        let mut candidates: BTreeSet<(u64, Reverse<u8>, TileId)> = self
            .map
            .iter()
            .filter(|(_, &s)| {
                self.slots[s as usize].last_wanted < now && self.children[s as usize] == 0
            })
            .map(|(&t, &s)| key(&self.slots[s as usize], t))
            .collect();
        for w in &wanted.tiles {
            if self.map.contains_key(&w.id) {
                continue;
            }
            if w.id.parent().is_some_and(|p| !self.map.contains_key(&p)) {
                continue; // the parent found no slot: it serves from further up
            }
            if self.free_slots.is_empty() {
                let Some((_, _, victim)) = candidates.pop_first() else {
                    continue; // exhausted: only wanted tiles (and their parents) remain
                };
                let ev = self.remove(victim);
                plan.evictions.push(ev);
                if let Some(ps) = self.parent_slot(victim) {
                    let p = &self.slots[ps as usize];
                    if self.children[ps as usize] == 0 && p.last_wanted < now {
                        candidates.insert(key(p, p.tile.expect("occupied")));
                    }
                }
            }
            let slot = self.free_slots.pop_first().expect("a slot was freed");
            let page = self
                .free_pages
                .pop_first()
                .expect("pages exceed slots by the reserve");
            self.slots[slot as usize] = Slot {
                tile: Some(w.id),
                page,
                state: SlotState::Requested,
                arrival_s: 0.0,
                last_wanted: now,
                from: None,
            };
            self.map.insert(w.id, slot);
            if let Some(ps) = self.parent_slot(w.id) {
                self.children[ps as usize] += 1;
                // Wanted sets hold their ancestors, so the parent is wanted and not a
                // candidate; this keeps the rule for any caller-built set too.
                let p = &self.slots[ps as usize];
                candidates.remove(&key(p, p.tile.expect("occupied")));
            }
            plan.loads.push(Load {
                tile: w.id,
                slot,
                page,
                priority: w.priority,
            });
        }
        plan.missing = wanted
            .tiles
            .iter()
            .filter(|t| !self.map.contains_key(&t.id))
            .count();
        plan
    }

    fn remove(&mut self, tile: TileId) -> Eviction {
        let slot = self
            .map
            .remove(&tile)
            .expect("evicting a tile in the table");
        let s = std::mem::replace(&mut self.slots[slot as usize], EMPTY);
        debug_assert_eq!(self.children[slot as usize], 0);
        if let Some(ps) = self.parent_slot(tile) {
            self.children[ps as usize] -= 1;
        }
        self.free_slots.insert(slot);
        self.free_pages.insert(s.page);
        if let Some((from, _)) = s.from {
            self.free_pages.insert(from);
        }
        Eviction {
            tile,
            slot,
            page: s.page,
            was_resident: s.state == SlotState::Resident,
        }
    }

    /// The payload of a requested tile has landed at `now_s`: it becomes resident (its fade
    /// starts, or is already over in a cut's window). Its parent must already be resident (parents land first).
    pub fn mark_resident(&mut self, tile: TileId, now_s: f64) -> Result<u32, SlotError> {
        let slot = match self.slot_of(tile) {
            Some(s) if self.slots[s as usize].state == SlotState::Requested => s,
            _ => return Err(SlotError::NotRequested(tile)),
        };
        if tile
            .parent()
            .is_some_and(|p| self.state_of(p) != SlotState::Resident)
        {
            return Err(SlotError::ParentNotResident(tile));
        }
        let begun = if self.at_once {
            now_s - STREAM_FADE_S
        } else {
            now_s
        };
        let s = &mut self.slots[slot as usize];
        s.state = SlotState::Resident;
        s.arrival_s = begun;
        Ok(slot)
    }

    /// Checks every invariant; the first broken one is described.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.slots.len();
        if self.map.len() > n {
            return Err(format!("{} tiles in {n} slots", self.map.len()));
        }
        let mut pages = BTreeSet::new();
        let mut children = vec![0u8; n];
        for (&t, &s) in &self.map {
            let e = &self.slots[s as usize];
            if e.tile != Some(t) || e.state == SlotState::Empty {
                return Err(format!("map says {t} is in slot {s}, the slot says {e:?}"));
            }
            for p in std::iter::once(e.page).chain(e.from.map(|f| f.0)) {
                if p as usize >= self.pages || !pages.insert(p) || self.free_pages.contains(&p) {
                    return Err(format!("page {p} of {t} out of range, shared or also free"));
                }
            }
            if e.from.is_some() && e.state != SlotState::Resident {
                return Err(format!("{t} cross-fades but is not resident"));
            }
            if self.free_slots.contains(&s) {
                return Err(format!("slot {s} of {t} is also free"));
            }
            if let Some(p) = t.parent() {
                let Some(ps) = self.slot_of(p) else {
                    return Err(format!("{t} is in the table without its parent"));
                };
                children[ps as usize] += 1;
                if e.state == SlotState::Resident && self.state_of(p) != SlotState::Resident {
                    return Err(format!("{t} is resident, its parent is not"));
                }
            }
        }
        let empty = self.slots.iter().filter(|s| s.tile.is_none()).count();
        if empty != self.free_slots.len() || self.map.len() + empty != n {
            return Err("free-slot list disagrees with the slots".into());
        }
        if self.free_pages.len() + pages.len() != self.pages {
            return Err("free-page list disagrees with the pages in use".into());
        }
        if self.free_pages.len() + self.crossfading() < STREAM_RESERVED_PAGES {
            return Err(format!(
                "only {} pages free with {} cross-fading",
                self.free_pages.len(),
                self.crossfading()
            ));
        }
        if children != self.children {
            return Err("child counts are stale".into());
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "slots_tests.rs"]
mod tests;
