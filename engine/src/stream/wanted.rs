//! The wanted set (TERRAIN.md §5): which tiles this view needs resident, how urgently.
//!
//! Breadth-first walk from the six face roots. Each tile is culled by the horizon and the
//! frustum (`cull`); a survivor is emitted and refined (its children visited) while its level
//! is below its target level and the finest allowed level. Level by level, so when the cap
//! (700 tiles, and 75 % of the slots, ancestors included) is reached it trims the finest level
//! — the highest-priority tiles of that level are kept, the rest are served by their parents.
//!
//! The six L0 tiles are always in the set, culled or not (culled ones unrefined): every lookup
//! on the GPU (and the CPU ground query) ends at a resident root, for six slots.

use super::cull::{horizon_culled, Frustum, HeightRange, TileVolume};
use crate::camera::ViewCamera;
use crate::params::{
    LAST_STORED_LEVEL, STREAM_DEMAND_FRACTION, STREAM_MAX_WANTED_TILES, STREAM_SLOTS,
};
use crate::planet::{Body, Face, TileId};
use std::collections::HashMap;

/// What the walk may produce.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WantedParams {
    /// Finest level a tile may have (L9 for Earth's stored data; up to L18 with amplification).
    pub finest_level: u8,
    /// Most tiles in the set, ancestors included (700).
    pub max_tiles: usize,
    /// Slots in the table the set must fit …
    pub slots: usize,
    /// … at most this fraction of them (0.75).
    pub demand_fraction: f64,
    /// Ground heights assumed for a tile when the caller gives no per-tile bound.
    pub heights: HeightRange,
}

impl Default for WantedParams {
    fn default() -> Self {
        WantedParams {
            finest_level: LAST_STORED_LEVEL,
            max_tiles: STREAM_MAX_WANTED_TILES,
            slots: STREAM_SLOTS,
            demand_fraction: STREAM_DEMAND_FRACTION,
            heights: HeightRange::default(),
        }
    }
}

/// The wanted-set cap for a table of `slots` slots: the seed's 700 tiles at its 1,024 slots
/// (§5), and the same share of a larger table (a GPU with the memory for more tiles may want
/// more of them at once), never less than 700 where the demand bound allows it.
pub fn wanted_cap(slots: usize) -> usize {
    STREAM_MAX_WANTED_TILES.max(STREAM_MAX_WANTED_TILES * slots / STREAM_SLOTS)
}

impl WantedParams {
    /// Most tiles the set may hold: min(max_tiles, ⌊demand_fraction · slots⌋).
    pub fn limit(&self) -> usize {
        let by_slots = (self.demand_fraction * self.slots as f64).floor() as usize;
        self.max_tiles.min(by_slots)
    }
}

/// One tile of the set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WantedTile {
    pub id: TileId,
    /// Urgency: the largest of this tile's own `screen_error · view_weight` and its emitted
    /// children's priorities, so a parent always ranks at least as high as what it serves
    /// (and, with the id tie-break, comes first).
    pub priority: f64,
    /// texel(L) / footprint: texels of this level per pixel at the tile's nearest possible point.
    pub screen_error: f64,
    /// 0.5 + 0.5·axis², axis = cosine between the view axis and the eye→tile direction.
    pub view_weight: f64,
    /// ceil(log2(texel0 / footprint)), clamped to [0, finest].
    pub target_level: u8,
    /// This tile's level is the one needed on screen here (target or finest level reached):
    /// the walk did not refine it. A tile with `target == false` has children in the set unless
    /// the cap trimmed them or all of them were culled.
    pub target: bool,
}

/// The walk's result, ordered by priority (descending), then id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WantedSet {
    pub tiles: Vec<WantedTile>,
    /// Tiles visible and wanted at the finest level reached but left out by the cap.
    pub trimmed: usize,
    pub culled_horizon: usize,
    pub culled_frustum: usize,
    /// The cap that applied (`WantedParams::limit`).
    pub limit: usize,
    index: HashMap<TileId, usize>,
}

impl WantedSet {
    /// A set from given tiles (tests, tools): sorted by priority then id, and indexed.
    pub fn from_tiles(tiles: Vec<WantedTile>, limit: usize) -> WantedSet {
        let mut set = WantedSet {
            tiles,
            trimmed: 0,
            culled_horizon: 0,
            culled_frustum: 0,
            limit,
            index: HashMap::new(),
        };
        set.sort_and_index();
        set
    }

    fn sort_and_index(&mut self) {
        self.tiles
            .sort_by(|a, b| b.priority.total_cmp(&a.priority).then(a.id.cmp(&b.id)));
        self.index = self
            .tiles
            .iter()
            .enumerate()
            .map(|(k, t)| (t.id, k))
            .collect();
    }

    pub fn get(&self, id: TileId) -> Option<&WantedTile> {
        self.index.get(&id).map(|&k| &self.tiles[k])
    }
    pub fn contains(&self, id: TileId) -> bool {
        self.index.contains_key(&id)
    }
    pub fn len(&self) -> usize {
        self.tiles.len()
    }
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }
    /// The set without the tiles `drop` picks (order, cap and counts kept). Dropping a tile
    /// must drop its descendants too, or a child would be wanted without its parent.
    pub fn without(&self, drop: impl Fn(TileId) -> bool) -> WantedSet {
        let mut set = WantedSet {
            tiles: self.tiles.iter().filter(|t| !drop(t.id)).copied().collect(),
            index: HashMap::new(),
            ..*self
        };
        set.sort_and_index();
        set
    }
    /// Finest level in the set.
    pub fn max_level(&self) -> u8 {
        self.tiles.iter().map(|t| t.id.level).max().unwrap_or(0)
    }
}

/// View weight from the cosine between the view axis and the direction to a tile:
/// 0.5 + 0.5·axis² (1 on the axis, 0.5 at right angles).
pub fn view_weight(axis: f64) -> f64 {
    0.5 + 0.5 * axis * axis
}

/// Target level for a footprint (metres per pixel): ceil(log2(texel0 / footprint)) in [0, finest].
pub fn target_level(texel0: f64, footprint: f64, finest: u8) -> u8 {
    let lc = (texel0 / footprint).log2().ceil();
    lc.clamp(0.0, finest as f64) as u8
}

/// Screen measures of one tile seen from `cam`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileMetrics {
    /// max(dist − bounding radius, 1 m) · pixelAngle, metres per pixel at the tile's nearest
    /// possible point (dist: eye to the centre of the bounding sphere of the tile's ground
    /// shell, TERRAIN §7b).
    pub footprint: f64,
    pub screen_error: f64,
    pub view_weight: f64,
    pub target_level: u8,
}

impl TileMetrics {
    pub fn new(vol: &TileVolume, level: u8, cam: &ViewCamera, body: Body, finest: u8) -> Self {
        let to = vol.centre - cam.eye;
        let dist = to.length();
        let footprint = (dist - vol.radius).max(1.0) * cam.pixel_angle();
        let axis = if dist > 0.0 {
            cam.forward.dot(to / dist)
        } else {
            1.0
        };
        TileMetrics {
            footprint,
            screen_error: body.texel(level) / footprint,
            view_weight: view_weight(axis),
            target_level: target_level(body.texel0(), footprint, finest),
        }
    }

    pub fn priority(&self) -> f64 {
        self.screen_error * self.view_weight
    }
}

/// The wanted set with the body-wide height bound (`params.heights`) for every tile.
pub fn wanted_set(cam: &ViewCamera, body: Body, params: &WantedParams) -> WantedSet {
    let h = params.heights;
    wanted_set_with(cam, body, params, &|_| h)
}

/// The last wanted set and what it was walked from: a still camera with the same settings
/// and height bounds wants the same set, and the walk (thousands of culled volumes near the
/// ground) is most of a still frame's streaming.
#[derive(Default)]
pub struct WantedCache {
    last: Option<(WantedKey, WantedSet)>,
}

/// What the wanted set is a function of; `generation` counts changes of the height bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
struct WantedKey {
    cam: ViewCamera,
    params: WantedParams,
    generation: u64,
}

impl WantedCache {
    /// [`wanted_set_with`], or the last set when `cam`, `params` and `generation` are the
    /// last call's.
    pub fn get(
        &mut self,
        cam: &ViewCamera,
        body: Body,
        params: &WantedParams,
        generation: u64,
        heights: &dyn Fn(TileId) -> HeightRange,
    ) -> WantedSet {
        let key = WantedKey {
            cam: *cam,
            params: *params,
            generation,
        };
        match &self.last {
            Some((k, set)) if *k == key => set.clone(),
            _ => {
                let set = wanted_set_with(cam, body, params, heights);
                self.last = Some((key, set.clone()));
                set
            }
        }
    }
}

/// The wanted set with a per-tile height bound (a child's bound must lie within its parent's,
/// as with any bound derived from the data, so a culled parent hides its children).
pub fn wanted_set_with(
    cam: &ViewCamera,
    body: Body,
    params: &WantedParams,
    heights: &dyn Fn(TileId) -> HeightRange,
) -> WantedSet {
    let limit = params.limit();
    let frustum = Frustum::new(cam);
    let mut set = WantedSet {
        tiles: Vec::new(),
        trimmed: 0,
        culled_horizon: 0,
        culled_frustum: 0,
        limit,
        index: HashMap::new(),
    };
    let mut frontier: Vec<TileId> = Face::ALL.iter().map(|&f| TileId::new(0, f, 0, 0)).collect();
    while !frontier.is_empty() {
        // Measure this level's visible candidates, most urgent first.
        // (A culled root is still emitted, unrefined: the six L0 tiles are pinned.)
        let mut level: Vec<(TileId, TileMetrics, bool)> = Vec::with_capacity(frontier.len());
        for id in frontier.drain(..) {
            let vol = TileVolume::new(id, body.radius, heights(id));
            let culled = if horizon_culled(&vol, cam.eye, body.radius) {
                set.culled_horizon += 1;
                true
            } else if frustum.culls(&vol) {
                set.culled_frustum += 1;
                true
            } else {
                false
            };
            if !culled || id.level == 0 {
                let m = TileMetrics::new(&vol, id.level, cam, body, params.finest_level);
                level.push((id, m, culled));
            }
        }
        level.sort_by(|a, b| {
            b.1.priority()
                .total_cmp(&a.1.priority())
                .then(a.0.cmp(&b.0))
        });
        let room = limit
            .saturating_sub(set.tiles.len())
            .max(if set.tiles.is_empty() { 6 } else { 0 });
        if level.len() > room {
            set.trimmed += level.len() - room;
            level.truncate(room);
        }
        for (id, m, culled) in level {
            let refine = !culled && id.level < m.target_level && id.level < params.finest_level;
            if refine {
                frontier.extend(id.children());
            }
            set.tiles.push(WantedTile {
                id,
                priority: m.priority(),
                screen_error: m.screen_error,
                view_weight: m.view_weight,
                target_level: m.target_level,
                target: !refine,
            });
        }
        if set.trimmed > 0 {
            break;
        }
    }
    // Parents inherit their most urgent child's priority (children follow parents in the walk,
    // so one backward pass carries it up the whole chain).
    let pos: HashMap<TileId, usize> = set
        .tiles
        .iter()
        .enumerate()
        .map(|(k, t)| (t.id, k))
        .collect();
    for k in (0..set.tiles.len()).rev() {
        let t = set.tiles[k];
        if let Some(&p) = t.id.parent().and_then(|p| pos.get(&p)) {
            set.tiles[p].priority = set.tiles[p].priority.max(t.priority);
        }
    }
    set.sort_and_index();
    set
}

#[cfg(test)]
#[path = "wanted_tests.rs"]
mod tests;
