//! The tile surface the GPU meshes (`shaders/common/surface.glsl`), in f64 through its CPU mirror
//! `crate::surface`, as a CBT [`Surface`]: CPU-side checks of what the GPU built (criterion
//! oracle, GPU = model comparisons) measure the very surface the GPU evaluated.
//!
//! Also a small residency builder (tiles around a point down to a level, closed under
//! ancestors, the six roots always) for tests and tools until the streaming wanted set drives it.

use super::surface::Surface;
use crate::gpu::slots::{Residency, ResidentTile};
use crate::planet::cube::{dir_to_face, FIXED_BITS};
use crate::planet::{Body, Face, TileId};
use crate::source::TileSource;
use crate::surface::{canonical_vertex, surface_at_fixed, LodParams};
use glam::DVec3;

/// The blended tile surface of a fixed residency and level selection.
pub struct TileSurface<'r> {
    pub res: &'r Residency,
    pub body: Body,
    /// Must match the frame constants the GPU evaluated with (pixel angle, max level, bias).
    pub lod: LodParams,
}

/// Face coordinate → fixed point: exact for the coordinates the CBT probes (u = X·2⁻²⁹ − 1).
fn to_fixed(u: f64) -> u64 {
    ((u + 1.0) * (1u64 << (FIXED_BITS - 1)) as f64) as u64
}

impl Surface for TileSurface<'_> {
    fn radius(&self) -> f64 {
        self.body.radius
    }

    fn position(&self, face: Face, u: f64, v: f64, eye: DVec3) -> DVec3 {
        surface_at_fixed(
            self.res,
            &self.lod,
            self.body,
            eye,
            face,
            to_fixed(u),
            to_fixed(v),
        )
        .position
            - eye
    }

    /// The texel of the finest resident tile at the point, as the GPU reads it (the slot
    /// record's `texel_m`).
    fn finest_texel(&self, face: Face, u: f64, v: f64) -> f64 {
        let (f, x, y) = canonical_vertex(face, to_fixed(u), to_fixed(v));
        let t = self.res.finest(f, x, y, self.lod.max_level);
        (self.body.texel0() / (1u64 << t.id.level) as f64) as f32 as f64
    }
}

/// Tiles around the ground point under `dir`: at every level 1..=`max_level` the tile holding it
/// and its neighbours within `ring` tiles (folded across face edges), closed under ancestors, plus
/// the six roots. Slots and pages are assigned in order; tiles are generated on all cores.
pub fn residency_around(src: &dyn TileSource, dir: DVec3, max_level: u8, ring: i32) -> Residency {
    let (face, u, v) = dir_to_face(dir);
    let mut ids: Vec<TileId> = Face::ALL.iter().map(|&f| TileId::new(0, f, 0, 0)).collect();
    for level in 1..=max_level {
        let c = TileId::containing(level, face, u, v);
        for dy in -ring..=ring {
            for dx in -ring..=ring {
                let mut t = c.neighbour(dx, dy);
                while let Some(id) = t {
                    if ids.contains(&id) {
                        break;
                    }
                    ids.push(id);
                    t = id.parent();
                }
            }
        }
    }
    ids.sort_by_key(|t| (t.level, t.face, t.y, t.x));
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let chunk = ids.len().div_ceil(threads);
    let tiles: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = ids
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|&id| src.tile(id)).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("tile generation"))
            .collect()
    });
    let body = src.body();
    let resident = ids
        .iter()
        .zip(tiles)
        .enumerate()
        .map(|(i, (&id, t))| ResidentTile::new(id, i as u32, i as u32, 1.0, t, body))
        .collect();
    Residency::new(resident)
}
