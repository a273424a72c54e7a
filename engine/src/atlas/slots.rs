//! The resident tile set as the GPU sees it: 448-byte slot records (mirror of
//! `shaders/common/tiles.glsl` `SlotRecord`), the TileId → slot lookup hash, and the spatial
//! edge/corner weights that make both sides of a tile edge blend identically.

use crate::earth::tile::Tile;
use crate::planet::chart::{ChartGpu, TileChart};
use crate::planet::frame::TileFrame;
use crate::planet::{Body, TileId};
use bytemuck::{Pod, Zeroable};
use glam::DVec3;
use std::collections::HashMap;
use std::mem::{offset_of, size_of};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

pub const NO_SLOT: u32 = u32::MAX;

/// `SlotRecord::flags`: the slot holds a tile.
pub const SLOT_RESIDENT: u32 = 1;
/// `SlotRecord::flags`: no sample of the tile's payload is water (`ResidentTile::all_land`),
/// so its water weight is 0 everywhere and the shaders skip reading its covers (`water_in`:
/// four taps a pixel in `shade.terrain`, one in `publish.resolve`, each a quad of texels and
/// the parent's).
pub const SLOT_ALL_LAND: u32 = 2;
/// `SlotRecord::flags`: every sample of the tile's payload is water (`ResidentTile::all_water`),
/// so its water weight is 1 everywhere without reading its covers (the sea floor seen from
/// under the sea, a lake's interior).
pub const SLOT_ALL_WATER: u32 = 4;
/// `SlotRecord::flags`: no sample of the tile's payload is a lake (`ResidentTile::no_lake`): its
/// lake weight is 0 without reading its covers (the ocean's shading asks it every pixel).
pub const SLOT_NO_LAKE: u32 = 8;

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SlotRecord {
    pub level: u32,
    pub face: u32,
    pub x: u32,
    pub y: u32,
    pub parent: u32,
    pub page: u32,
    pub flags: u32,
    pub fade: f32,
    /// Datum point under the tile centre, camera-relative, metres (w unused).
    pub origin: [f32; 4],
    pub n: [f32; 4],
    pub e1: [f32; 4],
    pub e2: [f32; 4],
    pub chart: ChartGpu,
    /// Spatial weights at the −u, +u, −v, +v edges.
    pub edge_w: [f32; 4],
    /// At corners (s, t) = (0,0), (512,0), (0,512), (512,512).
    pub corner_w: [f32; 4],
    pub min_h: f32,
    pub max_h: f32,
    pub texel_m: f32,
    /// Page of the previous payload while cross-fading a replacement (NO_SLOT: none).
    pub page_from: u32,
    pub xfade: f32,
    /// The surface clock ([`crate::atlas::SurfaceClock`]) at which something a surface walk
    /// from this slot reads last changed: its own record (not its camera-relative origin), an
    /// ancestor's, or its set of resident children (which decides the finest slot). Set by
    /// `TileAtlas::prepare`; `cbt.eval`'s memo of a point in this slot holds while it is not
    /// newer than the memo.
    pub memo_stamp: u32,
    pub reserved: [u32; 34],
}

const _: () = assert!(std::mem::size_of::<SlotRecord>() == 448);

/// One resident tile.
#[derive(Clone, Debug)]
pub struct ResidentTile {
    pub id: TileId,
    pub slot: u32,
    pub page: u32,
    /// Arrival fade 0..1 (TERRAIN.md §5: 0.5 s).
    pub fade: f32,
    pub tile: Arc<Tile>,
    pub chart: ChartGpu,
    pub frame: TileFrame,
    pub min_h: f32,
    pub max_h: f32,
    /// No sample of the payload (nor, while cross-fading, of the previous one) is water:
    /// `SLOT_ALL_LAND` in the record.
    pub all_land: bool,
    /// Every sample of the payload (and, while cross-fading, of the previous one) is water:
    /// `SLOT_ALL_WATER` in the record.
    pub all_water: bool,
    /// No sample of the payload (nor, while cross-fading, of the previous one) is a lake:
    /// `SLOT_NO_LAKE` in the record.
    pub no_lake: bool,
    /// During a same-slot replacement: the previous payload and its page, cross-faded out
    /// as `xfade` (the new payload's weight) rises 0 → 1 over 1.5 s.
    pub from: Option<(u32, Arc<Tile>)>,
    pub xfade: f32,
}

impl ResidentTile {
    pub fn new(
        id: TileId,
        slot: u32,
        page: u32,
        fade: f32,
        tile: Arc<Tile>,
        body: Body,
    ) -> ResidentTile {
        let (min_h, max_h) = height_bounds(&tile);
        ResidentTile {
            all_land: all_land(&tile),
            all_water: all_water(&tile),
            no_lake: no_lake(&tile),
            id,
            slot,
            page,
            fade,
            tile,
            chart: TileChart::new(id, body.radius).gpu(),
            frame: TileFrame::new(id, body.radius),
            min_h,
            max_h,
            from: None,
            xfade: 1.0,
        }
    }

    /// This tile with `tile` as its new payload on `page`, cross-fading from the current
    /// one (weight 0 now); the height bounds cover both payloads while they blend.
    pub fn replaced(&self, page: u32, tile: Arc<Tile>) -> ResidentTile {
        let (lo, hi) = height_bounds(&tile);
        ResidentTile {
            page,
            min_h: self.min_h.min(lo),
            max_h: self.max_h.max(hi),
            all_land: self.all_land && all_land(&tile),
            all_water: self.all_water && all_water(&tile),
            no_lake: self.no_lake && no_lake(&tile),
            from: Some((self.page, self.tile.clone())),
            xfade: 0.0,
            tile,
            ..self.clone()
        }
    }

    /// The cross-fade is over: the old payload is dropped and the bounds are the new ones.
    pub fn end_crossfade(&mut self) {
        self.from = None;
        self.xfade = 1.0;
        (self.min_h, self.max_h) = height_bounds(&self.tile);
        self.all_land = all_land(&self.tile);
        self.all_water = all_water(&self.tile);
        self.no_lake = no_lake(&self.tile);
    }
}

/// Whether no sample of `tile`, apron included, is water (ocean or lake).
fn all_land(tile: &Tile) -> bool {
    tile.water.iter().all(|&w| w == 0)
}

/// Whether no sample of `tile`, apron included, is a lake.
fn no_lake(tile: &Tile) -> bool {
    tile.lake.iter().all(|&w| w == 0)
}

/// Whether every sample of `tile`, apron included, is water.
fn all_water(tile: &Tile) -> bool {
    let ones: usize = tile.water.iter().map(|w| w.count_ones() as usize).sum();
    ones == tile.heights.len()
}

fn height_bounds(tile: &Tile) -> (f32, f32) {
    tile.heights
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)))
}

/// The resident set: tiles by slot and by id. Residency is closed under ancestors (every
/// resident tile's parent is resident); all six L0 tiles are always resident.
#[derive(Clone, Debug, Default)]
pub struct Residency {
    pub tiles: Vec<ResidentTile>,
    by_id: HashMap<TileId, usize>,
    by_slot: HashMap<u32, usize>,
}

impl Residency {
    pub fn new(tiles: Vec<ResidentTile>) -> Residency {
        let by_id = tiles.iter().enumerate().map(|(i, t)| (t.id, i)).collect();
        let by_slot = tiles.iter().enumerate().map(|(i, t)| (t.slot, i)).collect();
        Residency {
            tiles,
            by_id,
            by_slot,
        }
    }

    pub fn get(&self, id: &TileId) -> Option<&ResidentTile> {
        self.by_id.get(id).map(|&i| &self.tiles[i])
    }

    pub fn by_slot(&self, slot: u32) -> Option<&ResidentTile> {
        self.by_slot.get(&slot).map(|&i| &self.tiles[i])
    }

    pub fn slot_of(&self, id: &TileId) -> Option<u32> {
        self.get(id).map(|t| t.slot)
    }

    /// Deepest resident tile with level ≤ `max_level` containing face point (X, Y) (fixed).
    pub fn finest(
        &self,
        face: crate::planet::Face,
        x: u64,
        y: u64,
        max_level: u8,
    ) -> &ResidentTile {
        let mut best = None;
        for level in 0..=max_level {
            let n = 1u64 << level;
            let shift = 30 - level as u32;
            let (tx, ty) = (
                (x >> shift).min(n - 1) as u32,
                (y >> shift).min(n - 1) as u32,
            );
            match self.get(&TileId {
                level,
                face,
                x: tx,
                y: ty,
            }) {
                Some(t) => best = Some(t),
                None => break,
            }
        }
        best.expect("every face's L0 tile is resident")
    }

    fn fade_of(&self, id: Option<TileId>) -> f32 {
        id.and_then(|i| self.get(&i)).map(|t| t.fade).unwrap_or(0.0)
    }

    /// Edge weights (−u, +u, −v, +v) and corner weights ((0,0), (512,0), (0,512), (512,512)):
    /// minima of the fades of the tiles sharing the edge or corner (0 where one is missing),
    /// identical from every tile that shares them.
    pub fn weights(&self, t: &ResidentTile) -> ([f32; 4], [f32; 4]) {
        let id = t.id;
        let f = t.fade;
        let n = |dx: i32, dy: i32| self.fade_of(id.neighbour(dx, dy));
        let edge = [
            f.min(n(-1, 0)),
            f.min(n(1, 0)),
            f.min(n(0, -1)),
            f.min(n(0, 1)),
        ];
        let corner = |dx: i32, dy: i32| {
            let diag = id.neighbour(dx, dy);
            // Beyond a cube corner three tiles meet: no diagonal.
            let d = if diag.is_some() {
                self.fade_of(diag)
            } else {
                1.0
            };
            f.min(n(dx, 0)).min(n(0, dy)).min(d)
        };
        (
            edge,
            [corner(-1, -1), corner(1, -1), corner(-1, 1), corner(1, 1)],
        )
    }

    /// Slot records for this frame: frames refreshed camera-relative from f64.
    pub fn records(&self, eye: DVec3, capacity: usize, texel0: f64) -> Vec<SlotRecord> {
        let mut out = vec![SlotRecord::zeroed(); capacity];
        for r in out.iter_mut() {
            r.parent = NO_SLOT;
            r.page = NO_SLOT;
            r.page_from = NO_SLOT;
        }
        for t in &self.tiles {
            let (edge_w, corner_w) = self.weights(t);
            let f = &t.frame;
            let o = f.origin - eye;
            let v4 = |v: DVec3| [v.x as f32, v.y as f32, v.z as f32, 0.0];
            let parent =
                t.id.parent()
                    .and_then(|p| self.slot_of(&p))
                    .unwrap_or(NO_SLOT);
            out[t.slot as usize] = SlotRecord {
                level: t.id.level as u32,
                face: t.id.face.0 as u32,
                x: t.id.x,
                y: t.id.y,
                parent,
                page: t.page,
                flags: SLOT_RESIDENT
                    | if t.all_land { SLOT_ALL_LAND } else { 0 }
                    | if t.all_water { SLOT_ALL_WATER } else { 0 }
                    | if t.no_lake { SLOT_NO_LAKE } else { 0 },
                fade: t.fade,
                origin: v4(o),
                n: v4(f.n),
                e1: v4(f.e1),
                e2: v4(f.e2),
                chart: t.chart,
                edge_w,
                corner_w,
                min_h: t.min_h,
                max_h: t.max_h,
                texel_m: (texel0 / (1u64 << t.id.level) as f64) as f32,
                page_from: t.from.as_ref().map_or(NO_SLOT, |f| f.0),
                xfade: t.xfade,
                memo_stamp: 0,
                reserved: [0; 34],
            };
        }
        out
    }

    /// The open-addressing lookup table (key lo, key hi, slot, 0), size a power of two ≥ twice
    /// the resident count; empty entries hold NO_SLOT.
    pub fn lookup_table(&self, min_size: usize) -> Vec<[u32; 4]> {
        let size = (2 * self.tiles.len()).max(min_size).next_power_of_two();
        let mask = size - 1;
        let mut table = vec![[0, 0, NO_SLOT, 0]; size];
        for t in &self.tiles {
            let key = tile_key(&t.id);
            let mut i = lookup_hash(key) as usize & mask;
            while table[i][2] != NO_SLOT {
                i = (i + 1) & mask;
            }
            table[i] = [key as u32, (key >> 32) as u32, t.slot, 0];
        }
        table
    }
}

/// The surface clock: one process-wide count, advanced whenever some atlas's slot records change
/// in what a surface walk reads (and when a memo's frame inputs change,
/// [`crate::atlas::TileAtlas::surface_clock`]). Never reset, so a stamp of a new atlas or a
/// reused slot is newer than any memo kept before it.
static SURFACE_CLOCK: AtomicU32 = AtomicU32::new(0);

/// The next value of the surface clock (≥ 1: a memo kept at 0 was never kept).
pub fn tick_surface_clock() -> u32 {
    SURFACE_CLOCK.fetch_add(1, Ordering::Relaxed) + 1
}

/// Sets each record's `memo_stamp` in `next` against `prev` (the records the GPU holds, empty
/// at first): a slot whose record changed other than in its camera-relative origin, whose
/// ancestor's did, or whose set of resident children changed (the finest slot of its points)
/// gets a new clock value from `tick`; the others keep theirs. Returns the new value, if any.
pub fn stamp_records(
    prev: &[SlotRecord],
    next: &mut [SlotRecord],
    tick: impl FnOnce() -> u32,
) -> Option<u32> {
    let n = next.len();
    // The record's bytes but its camera-relative origin and the stamp itself.
    let o = offset_of!(SlotRecord, origin);
    let o_end = o + size_of::<[f32; 4]>();
    let m = offset_of!(SlotRecord, memo_stamp);
    let same_surface = |a: &SlotRecord, b: &SlotRecord| {
        let (a, b) = (bytemuck::bytes_of(a), bytemuck::bytes_of(b));
        a[..o] == b[..o] && a[o_end..m] == b[o_end..m] && a[m + 4..] == b[m + 4..]
    };
    let tile =
        |r: &SlotRecord| (r.flags & SLOT_RESIDENT != 0).then_some((r.level, r.face, r.x, r.y));
    // own: what a walk through the slot reads changed (seen by its descendants too);
    // children: which tiles lie under it changed (seen by points whose finest slot it is).
    let mut own = vec![prev.len() != n; n];
    let mut children = vec![false; n];
    if prev.len() == n {
        for (s, (a, b)) in prev.iter().zip(next.iter()).enumerate() {
            own[s] = !same_surface(a, b);
            if tile(a) != tile(b) {
                for p in [a.parent, b.parent] {
                    if let Some(c) = children.get_mut(p as usize) {
                        *c = true;
                    }
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&s| tile(&next[s]).is_some()).collect();
    order.sort_by_key(|&s| next[s].level);
    for s in order {
        let p = next[s].parent as usize;
        if p < n && own[p] {
            own[s] = true;
        }
    }
    if !own.iter().chain(&children).any(|&c| c) {
        for (b, a) in next.iter_mut().zip(prev) {
            b.memo_stamp = a.memo_stamp;
        }
        return None;
    }
    let now = tick();
    for s in 0..n {
        next[s].memo_stamp = if own[s] || children[s] {
            now
        } else {
            prev[s].memo_stamp
        };
    }
    Some(now)
}

/// (level, face, x, y) packed as the shaders pack it.
pub fn tile_key(id: &TileId) -> u64 {
    ((id.level as u64) << 40) | ((id.face.0 as u64) << 37) | ((id.x as u64) << 18) | id.y as u64
}

/// Mirror of `tile_hash` in tiles.glsl: Fibonacci hashing, upper 32 bits.
pub fn lookup_hash(key: u64) -> u32 {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planet::Face;

    fn fake(id: TileId, slot: u32, fade: f32) -> ResidentTile {
        ResidentTile::new(
            id,
            slot,
            slot,
            fade,
            Arc::new(Tile::empty(id)),
            Body { radius: 1.0e6 },
        )
    }

    /// The flags of `t`'s slot record, `t` resident alone.
    fn flags_of(t: &ResidentTile) -> u32 {
        let r = Residency::new(vec![t.clone()]);
        r.records(DVec3::ZERO, 8, 1.0)[t.slot as usize].flags
    }

    /// The six L0 tiles in slots 0–5, arrived.
    fn roots() -> Vec<ResidentTile> {
        Face::ALL
            .iter()
            .enumerate()
            .map(|(i, &f)| fake(TileId::new(0, f, 0, 0), i as u32, 1.0))
            .collect()
    }

    #[test]
    fn shared_edges_and_corners_get_identical_weights() {
        // Level-1 tiles of face 0 and the tile across its +u edge on face 2.
        let mut tiles = roots();
        let a = TileId::new(1, Face(0), 1, 0);
        let b = a.neighbour(1, 0).unwrap();
        let c = TileId::new(1, Face(0), 0, 0);
        tiles.push(fake(a, 10, 0.5));
        tiles.push(fake(b, 11, 0.8));
        tiles.push(fake(c, 12, 1.0));
        let r = Residency::new(tiles);
        let (wa, _) = r.weights(r.get(&a).unwrap());
        let (wb, _) = r.weights(r.get(&b).unwrap());
        assert_eq!(wa[1], 0.5, "a's +u edge: min(0.5, 0.8)");
        // b's edge towards a: whichever of b's edges has a as neighbour.
        let dirs = [(-1, 0), (1, 0), (0, -1), (0, 1)];
        let k = dirs
            .iter()
            .position(|&(dx, dy)| b.neighbour(dx, dy) == Some(a))
            .unwrap();
        assert_eq!(wb[k], wa[1]);
        // a's −u edge touches c (fade 1): min(0.5, 1) = 0.5; its −v edge has no resident tile.
        assert_eq!(wa[0], 0.5);
        assert_eq!(wa[2], 0.0);
    }

    /// The flag follows the payload's water bits, apron included, and holds through a
    /// cross-fade only while both payloads are all land.
    #[test]
    fn all_land_follows_every_sample_and_both_payloads_of_a_crossfade() {
        let id = TileId::new(3, Face(1), 2, 5);
        let body = Body { radius: 1.0e6 };
        let land = Arc::new(Tile::empty(id));
        let mut wet = Tile::empty(id);
        // The last sample of the apron's last row.
        let k = wet.heights.len() - 1;
        wet.set_height_cover(k, -5.0, crate::earth::tile::Cover::Ocean);
        let wet = Arc::new(wet);
        let a = ResidentTile::new(id, 0, 0, 1.0, land.clone(), body);
        assert!(a.all_land);
        assert_eq!(flags_of(&a), SLOT_RESIDENT | SLOT_ALL_LAND | SLOT_NO_LAKE);
        let b = ResidentTile::new(id, 0, 0, 1.0, wet.clone(), body);
        assert!(!b.all_land);
        assert_eq!(flags_of(&b), SLOT_RESIDENT | SLOT_NO_LAKE);
        let mut fading = b.replaced(1, land.clone());
        assert!(!fading.all_land, "the old payload still shows its water");
        fading.end_crossfade();
        assert!(fading.all_land);
        assert!(!a.replaced(1, wet.clone()).all_land);
        assert!(
            !a.all_water && !b.all_water,
            "one sample of water is not all water"
        );
    }

    /// The all-water flag likewise: every sample, apron included, and both payloads of a
    /// cross-fade.
    #[test]
    fn all_water_follows_every_sample_and_both_payloads_of_a_crossfade() {
        let id = TileId::new(3, Face(1), 2, 5);
        let body = Body { radius: 1.0e6 };
        let mut sea = Tile::empty(id);
        for k in 0..sea.heights.len() {
            sea.set_height_cover(k, -5.0, crate::earth::tile::Cover::Ocean);
        }
        let mut almost = sea.clone();
        // The first sample of the apron's first row: land.
        almost.set_height_cover(0, 5.0, crate::earth::tile::Cover::Land);
        let (sea, almost) = (Arc::new(sea), Arc::new(almost));
        let a = ResidentTile::new(id, 0, 0, 1.0, sea.clone(), body);
        assert!(a.all_water && !a.all_land);
        assert_eq!(flags_of(&a), SLOT_RESIDENT | SLOT_ALL_WATER | SLOT_NO_LAKE);
        let b = ResidentTile::new(id, 0, 0, 1.0, almost.clone(), body);
        assert!(!b.all_water);
        assert_eq!(flags_of(&b), SLOT_RESIDENT | SLOT_NO_LAKE);
        let mut fading = b.replaced(1, sea.clone());
        assert!(!fading.all_water, "the old payload still shows its land");
        fading.end_crossfade();
        assert!(fading.all_water);
        // One lake sample clears the no-lake flag, through a cross-fade too.
        let mut lake = Tile::empty(id);
        let k = lake.heights.len() / 2;
        lake.set_height_cover(k, 100.0, crate::earth::tile::Cover::Lake);
        let lake = ResidentTile::new(id, 0, 0, 1.0, Arc::new(lake), body);
        assert!(!lake.no_lake && !lake.all_water && !lake.all_land);
        assert_eq!(flags_of(&lake), SLOT_RESIDENT);
        assert!(!lake.replaced(1, sea.clone()).no_lake);
    }

    #[test]
    fn lookup_finds_every_tile() {
        let mut tiles = Vec::new();
        let mut slot = 0;
        for f in Face::ALL {
            for l in 0..4u8 {
                let id = TileId::new(l, f, (1u32 << l) - 1, 0);
                tiles.push(fake(id, slot, 1.0));
                slot += 1;
            }
        }
        let r = Residency::new(tiles);
        let table = r.lookup_table(64);
        let mask = table.len() - 1;
        for t in &r.tiles {
            let key = tile_key(&t.id);
            let mut i = lookup_hash(key) as usize & mask;
            while table[i][2] != NO_SLOT
                && (table[i][0], table[i][1]) != (key as u32, (key >> 32) as u32)
            {
                i = (i + 1) & mask;
            }
            assert_eq!(table[i][2], t.slot);
        }
    }

    /// The memo stamps: a moved eye changes none; a fade changes the tile and everything below
    /// it; an arrival or an eviction changes the parent (its points' finest slot) and the slot,
    /// not the parent's other children; nothing else.
    #[test]
    fn memo_stamps_follow_what_a_walk_reads() {
        let mut tiles = roots();
        let a = TileId::new(1, Face(0), 0, 0);
        let b = TileId::new(2, Face(0), 0, 0);
        let e = TileId::new(1, Face(0), 1, 1);
        let d = TileId::new(2, Face(0), 3, 3);
        tiles.push(fake(a, 10, 1.0));
        tiles.push(fake(b, 11, 1.0));
        tiles.push(fake(e, 12, 1.0));
        let records = |tiles: &[ResidentTile], eye: DVec3| {
            Residency::new(tiles.to_vec()).records(eye, 16, 1.0)
        };
        let mut clock = 100;
        let mut tick = || {
            clock += 1;
            clock
        };
        let mut shown = records(&tiles, DVec3::ZERO);
        assert_eq!(stamp_records(&[], &mut shown, &mut tick), Some(101));
        assert!(
            shown.iter().all(|r| r.memo_stamp == 101),
            "first frame: all"
        );
        let stamps = |r: &[SlotRecord]| r.iter().map(|r| r.memo_stamp).collect::<Vec<_>>();

        // A moved eye: only origins differ.
        let mut next = records(&tiles, DVec3::new(3.0, -2.0, 7.0));
        assert_ne!(
            bytemuck::cast_slice::<_, u8>(&next),
            bytemuck::cast_slice::<_, u8>(&shown)
        );
        assert_eq!(stamp_records(&shown, &mut next, &mut tick), None);
        assert_eq!(stamps(&next), stamps(&shown));
        shown = next;

        // a fades: a and its child b (e, a's diagonal neighbour, has its corner weight at 0
        // already: the tiles beside both are not resident).
        tiles[6].fade = 0.5;
        let mut next = records(&tiles, DVec3::ZERO);
        assert_eq!(stamp_records(&shown, &mut next, &mut tick), Some(102));
        let changed: Vec<usize> = (0..16).filter(|&s| next[s].memo_stamp == 102).collect();
        assert_eq!(changed, vec![10, 11]);
        shown = next;

        // d arrives under e: e (its children) and d's slot; not a, b or the L0 tile.
        tiles.push(fake(d, 13, 1.0));
        let mut next = records(&tiles, DVec3::ZERO);
        assert_eq!(stamp_records(&shown, &mut next, &mut tick), Some(103));
        let changed: Vec<usize> = (0..16).filter(|&s| next[s].memo_stamp == 103).collect();
        assert_eq!(changed, vec![12, 13]);
        shown = next;

        // b is evicted: its slot and its parent a.
        tiles.retain(|t| t.id != b);
        let mut next = records(&tiles, DVec3::ZERO);
        assert_eq!(stamp_records(&shown, &mut next, &mut tick), Some(104));
        let changed: Vec<usize> = (0..16).filter(|&s| next[s].memo_stamp == 104).collect();
        assert_eq!(changed, vec![10, 11]);
        assert_eq!(next[0].memo_stamp, 101, "the L0 tile kept its first stamp");
    }
}
