//! The CPU ground query: the height the tiles hold at a direction, for a level — bilinear in
//! f64 between the four samples around the point in the level-L tile of the owning face (the
//! GPU's explicit four-texel gather does the same).

use crate::earth::amplify::{self, L9Tiles};
use crate::earth::tile::Cover;
use crate::earth::Tile;
use crate::params::{LAST_STORED_LEVEL, TILE_SAMPLES};
use crate::planet::{dir_to_face, Body, TileId};
use crate::source::TileSource;
use crate::store::Oracle;
use glam::DVec3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundSample {
    /// Height above the datum, metres.
    pub height_m: f64,
    /// Water: the bilinear weight of water samples (ocean or lake, by the water mask) is at
    /// least one half.
    pub water: bool,
    /// The water's surface, metres above the datum, where `water`: 0 for the ocean (whose
    /// samples hold the sea floor), the level for a lake (whose samples hold its surface, so
    /// then `height_m` is the level too).
    pub water_level_m: Option<f64>,
}

/// Which tile holds `dir` at `level`, and the point's texel coordinates (s, t) in it.
pub fn locate(dir: DVec3, level: u8) -> (TileId, f64, f64) {
    let (face, u, v) = dir_to_face(dir);
    let id = TileId::containing(level, face, u, v);
    let n = TILE_SAMPLES as f64;
    let t = (1u64 << level) as f64;
    let s = ((u + 1.0) * 0.5 * t - id.x as f64) * n;
    let tt = ((v + 1.0) * 0.5 * t - id.y as f64) * n;
    (id, s.clamp(0.0, n), tt.clamp(0.0, n))
}

/// Bilinear sample of a tile at texel coordinates (s, t) ∈ [0, 512]²; sample i sits at
/// s = i + 0.5, so the four samples are i0 = ⌊s − 0.5⌋ ∈ [−1, 511] and i0 + 1 (aprons cover −1
/// and 512).
pub fn sample_tile(tile: &Tile, s: f64, t: f64) -> GroundSample {
    bilinear(&|i, j| (tile.height(i, j) as f64, tile.cover(i, j)), s, t)
}

/// Bilinear between the four samples around (s, t) of a tile whose sample (i, j) is `h(i, j)`
/// (height and cover, as stored tiles mark them).
fn bilinear(h: &dyn Fn(i64, i64) -> (f64, Cover), s: f64, t: f64) -> GroundSample {
    let (x, y) = (s - 0.5, t - 0.5);
    let (i0, j0) = (x.floor(), y.floor());
    let (fx, fy) = (x - i0, y - j0);
    let (i0, j0) = (i0 as i64, j0 as i64);
    let q = [h(i0, j0), h(i0 + 1, j0), h(i0, j0 + 1), h(i0 + 1, j0 + 1)];
    let lerp2 = |v: [f64; 4]| {
        let top = v[0] * (1.0 - fx) + v[1] * fx;
        let bot = v[2] * (1.0 - fx) + v[3] * fx;
        top * (1.0 - fy) + bot * fy
    };
    let weight = |c: Cover| lerp2(q.map(|v| (v.1 == c) as u8 as f64));
    let (ocean, lake) = (weight(Cover::Ocean), weight(Cover::Lake));
    let height_m = lerp2(q.map(|v| v.0));
    let water = ocean + lake >= 0.5;
    GroundSample {
        height_m,
        water,
        water_level_m: water.then_some(if lake > ocean { height_m } else { 0.0 }),
    }
}

/// The same four samples an amplified tile (level ≥ 10) holds around (s, t) of tile `id`,
/// made on the spot from the L9 tiles `l9` gives: the point costs four samples, not a tile.
fn amplified_point(
    l9: &(dyn Fn(TileId) -> std::sync::Arc<Tile> + Sync),
    body: Body,
    id: TileId,
    s: f64,
    t: f64,
) -> GroundSample {
    let src = L9Tiles::new(l9);
    bilinear(
        &|i, j| {
            let (h, c) = amplify::sample(
                &src,
                body,
                id.level,
                id.face,
                id.global_i(i),
                id.global_j(j),
            );
            (h as f64, c)
        },
        s,
        t,
    )
}

/// The ground at unit direction `dir` as `source`'s level-`level` tiles hold it (levels past
/// the source's finest read the finest).
pub fn ground_at(source: &dyn TileSource, dir: DVec3, level: u8) -> GroundSample {
    let (id, s, t) = locate(dir, level.min(source.finest_level()));
    if id.level > LAST_STORED_LEVEL {
        return amplified_point(&|l9| source.tile(l9), source.body(), id, s, t);
    }
    sample_tile(&source.tile(id), s, t)
}

/// What a view given "above the ground" stands on: the height (m above the datum) of the
/// source's finest tiles under `dir`, where the renderer draws the ground under the camera.
/// Every command places such views through this one function.
pub fn ground_height(source: &dyn TileSource, dir: DVec3) -> f64 {
    ground_at(source, dir, source.finest_level()).height_m
}

/// The ground at unit direction `dir` as the level-`level` tiles hold it.
pub fn height_at(oracle: &Oracle, dir: DVec3, level: u8) -> GroundSample {
    let (id, s, t) = locate(dir, level);
    if id.level > LAST_STORED_LEVEL {
        return amplified_point(&|l9| oracle.get(l9), oracle.cache().source().body, id, s, t);
    }
    sample_tile(&oracle.get(id), s, t)
}

/// The ground at geocentric latitude/longitude (degrees), as `planetfall height` prints it.
pub fn height_at_latlon(oracle: &Oracle, lat_deg: f64, lon_deg: f64, level: u8) -> GroundSample {
    height_at(
        oracle,
        crate::planet::latlon_to_dir(lat_deg, lon_deg),
        level,
    )
}
