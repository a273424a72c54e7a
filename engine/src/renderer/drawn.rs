//! The drawn set: one frame of the stream (`TileStream::update`) turned into the tiles the
//! frame draws, with their arrival fades and same-slot cross-fades, and the generations that
//! tell the atlas and the mesh whether anything they read changed. The step of
//! [`PlanetRenderer::prepare`](super::PlanetRenderer::prepare) that owns residency, apart from
//! the frame's other host work.

use super::PlanetRenderer;
use crate::atlas::slots::{Residency, ResidentTile};
use crate::camera::ViewCamera;

impl PlanetRenderer {
    /// Streaming for this camera: evictions, then uploads (new tiles and same-slot
    /// replacements); fades from arrival times, cross-fades from replacement times.
    pub(super) fn update_residency(&mut self, cam: &ViewCamera) {
        let now = self.clock.now;
        // The store rewritten underneath (a concurrent `planetfall bake`): the source has
        // forgotten its old copies; the stream asks again and replaces them in their slots.
        let changed = self.source.updated_underneath();
        if !changed.is_empty() {
            let n = self.stream.refresh(&changed);
            log::info!(
                "tile store: {} tiles rewritten underneath, {n} resident ones replaced",
                changed.len()
            );
        }
        if std::mem::take(&mut self.cut_next) {
            self.stream.cut(now);
        }
        let fr = self.stream.update(cam, now, self.source.as_ref());
        // Last frame's arrivals are placed by this frame's `stream.place`: drawn from now on.
        let arrived = !self.incoming.is_empty();
        for t in self.incoming.drain(..) {
            self.resident.insert(t.id, t);
        }
        for e in &fr.evictions {
            self.resident.remove(&e.tile);
        }
        // Until something is drawn (the first frame) arrivals show at once; after that they
        // land during this frame and show in the next (`TileAtlas`: the upload overlaps the
        // frame's rendering).
        let at_once = self.resident.is_empty();
        let mut surface_changed = arrived || !fr.evictions.is_empty();
        for u in &fr.uploads {
            let t = match self.resident.get(&u.tile) {
                Some(old) if u.replaces => old.replaced(u.page, u.data.clone()),
                _ => ResidentTile::new(u.tile, u.slot, u.page, 0.0, u.data.clone(), self.body),
            };
            if at_once {
                self.resident.insert(u.tile, t);
                surface_changed = true;
            } else {
                self.incoming.push(t);
            }
        }
        let table = self.stream.table();
        let mut fading = 0;
        // Whether any drawn tile's weights or payloads changed (fades, cross-fades ending).
        let mut weights_changed = false;
        for t in self.resident.values_mut() {
            // Arrivals fade in over 0.5 s against their parent (TERRAIN.md §5), also when the
            // frame waited for them: a tile appearing at full weight is a pop.
            let fade = if t.id.level == 0 {
                1.0
            } else {
                table.fade(t.slot, now) as f32
            };
            weights_changed |= fade != t.fade;
            t.fade = fade;
            if t.from.is_some() {
                t.xfade = table.xfade(t.slot, now) as f32;
                if table.slot(t.slot).from.is_none() {
                    t.end_crossfade();
                }
                weights_changed = true;
            }
            fading += (t.fade < 1.0 || t.from.is_some()) as u32;
        }
        self.stats.fading = fading;
        if surface_changed || fading > 0 {
            self.surface_generation += 1;
        }
        self.stats.failures.extend(fr.failures);
        let over = self.stats.failures.len().saturating_sub(64);
        self.stats.failures.drain(..over);
        // The drawn set is rebuilt only when it changed: a still frame keeps it (and the
        // atlas then finds its records unchanged).
        if surface_changed || weights_changed || self.residency.tiles.len() != self.resident.len() {
            let mut tiles: Vec<ResidentTile> = self.resident.values().cloned().collect();
            tiles.sort_by_key(|t| t.slot);
            self.residency = Residency::new(tiles);
            self.residency_generation += 1;
        }
        self.stats.residency = fr.report;
        self.wanted = fr.wanted;
    }
}
