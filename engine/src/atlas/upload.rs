//! [`TileAtlas`]: the slot table, the lookup hash and the height atlas, refreshed each frame.
//! [`TileAtlas::prepare`] writes the frame's records, lookup table and new payloads into the
//! frame slot's staging buffer; [`TileAtlas::declare`] only adds the copy nodes:
//!
//! - `stream.upload` (async transfer queue): this frame's new payloads, host staging → a
//!   device-local landing buffer. Nothing else in the frame reads that buffer, so the copy
//!   overlaps the frame's rendering; the graph's end-of-frame hand-off (`queue.acquire`) is the
//!   only wait on it. The tiles become visible in the next frame.
//! - `stream.place` (universal): the previous frame's landed payloads, landing → atlas layers,
//!   a device-local copy of a few MB at the start of the frame.
//! - `stream.records` (universal): the slot records that changed (camera-relative from f64,
//!   so all of them when the eye moved; none in a still frame) and the lookup hash when it
//!   changed; and payloads that must show this very frame (the first frame's roots, or more
//!   arrivals than the landing buffer holds), staging → atlas directly. Left out when there
//!   is nothing to copy.
//!
//! Two landing buffers alternate by frame, so this frame's upload never waits for the
//! placing of the last frame's.

use super::slots::{stamp_records, tick_surface_clock, Residency, ResidentTile, SlotRecord};
use super::staging::StagingRing;
use crate::params::TILE_STRIDE;
use crate::planet::TileId;
use ash::vk;
use framegraph::graph::QueueKind;
use framegraph::{BufferDesc, BufferRef, Context, GpuBuffer, GpuImage, Graph, ImageDesc, ImageRef};
use glam::DVec3;
use std::collections::HashMap;
use std::mem::size_of;

/// Bytes of one page's payload: 520×520 f32 heights (metres), each carrying what covers it in
/// its two low mantissa bits (`Tile::gpu_heights`). Float rather than the 16-bit
/// codes of the disk store: amplified levels carry detail far below the 0.3125 m code step
/// (an L15 band is ≤ 0.54 m), and a generating shader writes float storage images everywhere.
pub const PAGE_BYTES: u64 = (TILE_STRIDE * TILE_STRIDE * size_of::<f32>() as u32) as u64;

/// Bytes of one lookup-table entry (`shaders/common/tiles.glsl` `tile_lookup`).
const LOOKUP_ENTRY_BYTES: u64 = 4 * size_of::<u32>() as u64;

/// Graph handles of this frame's tile resources, for the nodes that read the surface.
#[derive(Clone, Copy, Debug)]
pub struct TileBindings {
    pub slots: BufferRef,
    pub lookup: BufferRef,
    pub heights: ImageRef,
}

/// What a node that evaluates the surface binds (`shaders/common/surface.glsl`, bindings
/// 16–19): this frame's constants beside the resident tiles.
#[derive(Clone, Copy, Debug)]
pub struct SurfaceBindings {
    pub frame: BufferRef,
    pub slots: BufferRef,
    pub lookup: BufferRef,
    pub heights: ImageRef,
}

impl SurfaceBindings {
    pub fn new(frame: BufferRef, tiles: TileBindings) -> SurfaceBindings {
        SurfaceBindings {
            frame,
            slots: tiles.slots,
            lookup: tiles.lookup,
            heights: tiles.heights,
        }
    }
}

/// The host mirror of the records and lookup table on the GPU, and the (residency
/// generation, eye bits) they were made for.
#[derive(Default)]
struct Shown {
    key: Option<(u64, [u64; 3])>,
    records: Vec<SlotRecord>,
    lookup: Vec<[u32; 4]>,
}

/// Runs of consecutive slots whose record differs between `old` and `new` (all of `new` when
/// the lengths differ).
fn changed_runs(old: &[SlotRecord], new: &[SlotRecord]) -> Vec<std::ops::Range<usize>> {
    if old.len() != new.len() {
        return if new.is_empty() {
            Vec::new()
        } else {
            std::iter::once(0..new.len()).collect()
        };
    }
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, (a, b)) in old.iter().zip(new).enumerate() {
        if bytemuck::bytes_of(a) == bytemuck::bytes_of(b) {
            continue;
        }
        match runs.last_mut() {
            Some(r) if r.end == i => r.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    runs
}

/// Pages one landing buffer holds; more arrivals in one frame go straight to the atlas.
pub const LANDING_PAGES: u64 = 64;

/// What the prepare step staged for the copy nodes.
#[derive(Default)]
struct Staged {
    frame_slot: usize,
    /// Changed slot records: staging → `tiles.slots` (`stream.records`).
    records: Vec<vk::BufferCopy>,
    /// The lookup hash when it changed: (staging offset, bytes).
    lookup: Option<(u64, u64)>,
    /// Payloads shown this frame: staging → atlas (`stream.records`).
    direct: Vec<vk::BufferImageCopy>,
    /// Payloads landing for the next frame: bytes of the upload staging → landing[`landing`].
    landing_copy: Option<u64>,
    landing: usize,
    /// Last frame's landed payloads: landing[`landing` ^ 1] → atlas (`stream.place`).
    place: Vec<vk::BufferImageCopy>,
}

pub struct TileAtlas {
    pub slot_capacity: u32,
    pub pages: u32,
    /// Entries of the lookup hash (a power of two, at least twice the slots).
    pub lookup_size: u32,
    heights: GpuImage,
    slots: GpuBuffer,
    lookup: GpuBuffer,
    staging: StagingRing,
    /// Host staging of the payloads `stream.upload` lands (transfer queue only).
    upload_staging: StagingRing,
    landing: [GpuBuffer; 2],
    /// Frames prepared (picks the landing buffer).
    frames: u64,
    /// Which tile each page holds or is about to hold (so unchanged pages are never uploaded
    /// again).
    page_content: HashMap<u32, TileId>,
    staged: Staged,
    /// What `tiles.slots` and `tiles.lookup` hold once the staged copies have run.
    shown: Shown,
    /// Payloads landed this frame, placed by the next (landing-buffer offset → page).
    next_place: Vec<vk::BufferImageCopy>,
    /// The surface clock of the records staged last, and what [`TileAtlas::surface_clock`] was
    /// last keyed by.
    clock: SurfaceClock,
    clock_key: Option<u64>,
}

/// Where the surface clock stands for the prepared frame (the push constants of `cbt.eval`):
/// `now`, the value of its slot records' newest stamp or later, and `since`, before which a
/// kept memo is stale whatever the stamps say (its frame inputs changed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SurfaceClock {
    pub now: u32,
    pub since: u32,
}

impl TileAtlas {
    /// `slot_capacity` slots and `pages` physical pages (slots + the replacement reserve).
    pub fn new(
        ctx: &Context,
        slot_capacity: u32,
        pages: u32,
        frames_in_flight: usize,
    ) -> framegraph::Result<TileAtlas> {
        let lookup_size = (2 * slot_capacity).next_power_of_two().max(64);
        let heights = GpuImage::new(
            ctx,
            "tiles.heights",
            ImageDesc::d2_array(TILE_STRIDE, TILE_STRIDE, pages, vk::Format::R32_SFLOAT),
            vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::STORAGE
                | vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::TRANSFER_SRC,
        )?;
        let record_bytes = slot_capacity as u64 * size_of::<SlotRecord>() as u64;
        let slots = GpuBuffer::new(ctx, "tiles.slots", BufferDesc::gpu(record_bytes))?;
        let lookup_bytes = lookup_size as u64 * LOOKUP_ENTRY_BYTES;
        let lookup = GpuBuffer::new(ctx, "tiles.lookup", BufferDesc::gpu(lookup_bytes))?;
        let landing_bytes = LANDING_PAGES * PAGE_BYTES;
        let landing = [
            GpuBuffer::new(ctx, "tiles.landing0", BufferDesc::gpu(landing_bytes))?,
            GpuBuffer::new(ctx, "tiles.landing1", BufferDesc::gpu(landing_bytes))?,
        ];
        Ok(TileAtlas {
            slot_capacity,
            pages,
            lookup_size,
            heights,
            slots,
            lookup,
            staging: StagingRing::new("tiles.staging", frames_in_flight.max(1)),
            upload_staging: StagingRing::new("tiles.upload", frames_in_flight.max(1)),
            landing,
            frames: 0,
            page_content: HashMap::new(),
            staged: Staged::default(),
            shown: Shown::default(),
            next_place: Vec::new(),
            clock: SurfaceClock::default(),
            clock_key: None,
        })
    }

    /// The surface clock for the prepared frame, `key` naming the frame inputs a surface walk
    /// reads besides the records (the finest level the selection may choose, the radius): a
    /// changed key makes every memo kept before now stale.
    pub fn surface_clock(&mut self, key: u64) -> SurfaceClock {
        if self.clock_key != Some(key) {
            self.clock_key = Some(key);
            self.clock.now = tick_surface_clock();
            self.clock.since = self.clock.now;
        }
        self.clock
    }

    /// Stage this frame's slot records (camera-relative from the f64 `eye`) and lookup table
    /// for the `visible` tiles, the payloads of visible pages whose content is not on the GPU
    /// yet (shown this frame), and the `incoming` payloads (landing now, shown next frame;
    /// beyond `LANDING_PAGES` they are copied straight away). `frame_slot` comes from
    /// `Executor::begin_frame`, so its staging buffer is no longer in use by the GPU.
    ///
    /// Only what differs from the records and table on the GPU is staged: the changed records
    /// alone (a still camera's arrivals and fades) or all of them (the eye moved: every origin
    /// is camera-relative). The copies run in submission order, so the host mirror is what
    /// the GPU holds when this frame's copy lands.
    pub fn prepare(
        &mut self,
        ctx: &Context,
        frame_slot: usize,
        visible: &Residency,
        incoming: &[ResidentTile],
        eye: DVec3,
        texel0: f64,
    ) -> framegraph::Result<()> {
        self.prepare_known(ctx, frame_slot, visible, None, incoming, eye, texel0)
    }

    /// [`TileAtlas::prepare`], where `generation` (when given) changes whenever `visible`
    /// does: with the generation and the eye of the last frame, nothing is rebuilt or staged.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare_known(
        &mut self,
        ctx: &Context,
        frame_slot: usize,
        visible: &Residency,
        generation: Option<u64>,
        incoming: &[ResidentTile],
        eye: DVec3,
        texel0: f64,
    ) -> framegraph::Result<()> {
        let key = generation.map(|g| (g, eye.to_array().map(f64::to_bits)));
        let (mut runs, mut lookup) = (Vec::new(), None);
        if key.is_none() || self.shown.key != key {
            let mut records = visible.records(eye, self.slot_capacity as usize, texel0);
            if let Some(now) = stamp_records(&self.shown.records, &mut records, tick_surface_clock)
            {
                self.clock.now = now;
            }
            let table = visible.lookup_table(self.lookup_size as usize);
            assert_eq!(
                table.len(),
                self.lookup_size as usize,
                "more resident tiles than slots"
            );
            runs = changed_runs(&self.shown.records, &records);
            if table != self.shown.lookup {
                lookup = Some(table);
            }
            self.shown.records = records;
            if let Some(t) = &lookup {
                self.shown.lookup.clone_from(t);
            }
            self.shown.key = key;
        }
        let mut direct: Vec<&ResidentTile> = visible
            .tiles
            .iter()
            .filter(|t| self.page_content.get(&t.page) != Some(&t.id))
            .collect();
        let land_n = incoming.len().min(LANDING_PAGES as usize);
        direct.extend(&incoming[land_n..]);
        let landing: Vec<&ResidentTile> = incoming[..land_n].iter().collect();
        let record_size = size_of::<SlotRecord>();
        let record_bytes = runs.iter().map(|r| r.len()).sum::<usize>() * record_size;
        let lookup_bytes = lookup
            .as_ref()
            .map_or(0, |t| std::mem::size_of_val(t.as_slice()));
        let payload_at = (record_bytes + lookup_bytes) as u64;
        let total = payload_at + direct.len() as u64 * PAGE_BYTES;
        // Heights with the cover in their low mantissa bits (`Tile::gpu_heights`).
        let write = |map: &mut [u8], off: u64, t: &ResidentTile| {
            t.tile.gpu_heights(bytemuck::cast_slice_mut(
                &mut map[off as usize..(off + PAGE_BYTES) as usize],
            ));
        };
        let staging = self.staging.get(ctx, frame_slot, total)?;
        let map = staging
            .mapped_mut()
            .ok_or_else(|| framegraph::Error::NotMapped("tiles.staging".into()))?;
        let mut record_regions = Vec::with_capacity(runs.len());
        let mut at = 0;
        for run in &runs {
            let bytes: &[u8] = bytemuck::cast_slice(&self.shown.records[run.clone()]);
            map[at..at + bytes.len()].copy_from_slice(bytes);
            record_regions.push(vk::BufferCopy {
                src_offset: at as u64,
                dst_offset: (run.start * record_size) as u64,
                size: bytes.len() as u64,
            });
            at += bytes.len();
        }
        if let Some(t) = &lookup {
            map[record_bytes..payload_at as usize].copy_from_slice(bytemuck::cast_slice(t));
        }
        let mut direct_regions = Vec::with_capacity(direct.len());
        for (k, t) in direct.iter().enumerate() {
            let off = payload_at + k as u64 * PAGE_BYTES;
            write(map, off, t);
            direct_regions.push(page_copy(off, t.page));
        }
        // The transfer queue's payloads have their own staging buffer: a buffer used by two
        // queue families would need an ownership hand-off, which would order the two.
        let mut next_place = Vec::with_capacity(landing.len());
        if !landing.is_empty() {
            let bytes = landing.len() as u64 * PAGE_BYTES;
            let up = self.upload_staging.get(ctx, frame_slot, bytes)?;
            let map = up
                .mapped_mut()
                .ok_or_else(|| framegraph::Error::NotMapped("tiles.upload".into()))?;
            for (k, t) in landing.iter().enumerate() {
                write(map, k as u64 * PAGE_BYTES, t);
                next_place.push(page_copy(k as u64 * PAGE_BYTES, t.page));
            }
        }
        for t in direct.iter().chain(&landing) {
            self.page_content.insert(t.page, t.id);
        }
        // What landed last frame is placed now; what lands now is placed next frame.
        let place = std::mem::take(&mut self.next_place);
        self.next_place = next_place;
        let parity = (self.frames % 2) as usize;
        self.frames += 1;
        self.staged = Staged {
            frame_slot,
            records: record_regions,
            lookup: lookup.map(|_| (record_bytes as u64, lookup_bytes as u64)),
            direct: direct_regions,
            landing_copy: (!landing.is_empty()).then(|| landing.len() as u64 * PAGE_BYTES),
            landing: parity,
            place,
        };
        Ok(())
    }

    /// Slot records the last prepared frame copies to the GPU (0 when nothing changed).
    pub fn staged_records(&self) -> u32 {
        let bytes: u64 = self.staged.records.iter().map(|r| r.size).sum();
        (bytes / size_of::<SlotRecord>() as u64) as u32
    }

    /// Pages the last prepared frame copies into the atlas or lands for the next one.
    pub fn uploaded_tiles(&self) -> u32 {
        let landed = self.staged.landing_copy.map_or(0, |n| n / PAGE_BYTES);
        self.staged.direct.len() as u32 + landed as u32
    }

    /// `stream.upload` → `stream.place` → `stream.records`: what [`TileAtlas::prepare`]
    /// staged (see the module notes). Returns the handles the surface readers bind.
    pub fn declare(&self, g: &mut Graph<'_>) -> TileBindings {
        let s = &self.staged;
        // Declared first, so the compiled order puts the transfer batch ahead of the frame's
        // universal work, which does not wait for it.
        if let Some(len) = s.landing_copy {
            let up = self
                .upload_staging
                .current(s.frame_slot)
                .expect("staged with the landing copy");
            let up = g.import_buffer(up);
            let mut dst = g.import_buffer(&self.landing[s.landing]);
            g.transfer("stream.upload")
                .queue(QueueKind::AsyncTransfer)
                .copy_buffer(up, &mut dst, 0, 0, len);
        }
        let mut slots = g.import_buffer(&self.slots);
        let mut lookup = g.import_buffer(&self.lookup);
        let mut heights = g.import_image(&self.heights);
        if !s.place.is_empty() {
            let landed = g.import_buffer(&self.landing[s.landing ^ 1]);
            g.transfer("stream.place")
                .copy_buffer_to_image(landed, &mut heights, s.place.clone());
        }
        // A frame whose records, table and shown pages are all on the GPU already copies
        // nothing: `stream.records` is left out.
        if !s.records.is_empty() || s.lookup.is_some() || !s.direct.is_empty() {
            let staging = self
                .staging
                .current(s.frame_slot)
                .expect("TileAtlas::declare after prepare");
            let src = g.import_buffer(staging);
            let mut node = g.transfer("stream.records");
            if !s.records.is_empty() {
                node = node.copy_buffer_regions(src, &mut slots, s.records.clone());
            }
            if let Some((at, len)) = s.lookup {
                node = node.copy_buffer(src, &mut lookup, at, 0, len);
            }
            if !s.direct.is_empty() {
                node = node.copy_buffer_to_image(src, &mut heights, s.direct.clone());
            }
            let _ = node;
        }
        TileBindings {
            slots,
            lookup,
            heights,
        }
    }

    pub fn destroy(self, ctx: &Context) {
        self.heights.destroy(ctx);
        self.slots.destroy(ctx);
        self.lookup.destroy(ctx);
        self.staging.destroy(ctx);
        self.upload_staging.destroy(ctx);
        for b in self.landing {
            b.destroy(ctx);
        }
    }
}

/// One page's payload at `offset` in the staging buffer into atlas layer `page`.
fn page_copy(offset: u64, page: u32) -> vk::BufferImageCopy {
    vk::BufferImageCopy::default()
        .buffer_offset(offset)
        .image_subresource(
            vk::ImageSubresourceLayers::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .base_array_layer(page)
                .layer_count(1),
        )
        .image_extent(vk::Extent3D {
            width: TILE_STRIDE,
            height: TILE_STRIDE,
            depth: 1,
        })
}

#[cfg(test)]
mod tests {
    use super::{changed_runs, SlotRecord};
    use bytemuck::Zeroable;

    fn records(levels: &[u32]) -> Vec<SlotRecord> {
        levels
            .iter()
            .map(|&level| SlotRecord {
                level,
                ..SlotRecord::zeroed()
            })
            .collect()
    }

    #[test]
    fn only_changed_records_are_copied_in_runs() {
        let old = records(&[0, 1, 2, 3, 4, 5, 6]);
        assert!(
            changed_runs(&old, &old).is_empty(),
            "a still frame copies nothing"
        );
        let new = records(&[0, 9, 9, 3, 4, 9, 6]);
        assert_eq!(changed_runs(&old, &new), vec![1..3, 5..6]);
        // A changed byte anywhere in the record counts (here the last reserved word).
        let mut tail = old.clone();
        tail[6].reserved[33] = 1;
        assert_eq!(changed_runs(&old, &tail), vec![6..7]);
        // Nothing on the GPU yet: everything.
        assert_eq!(changed_runs(&[], &new), vec![0..7]);
    }
}
