//! [`TileAtlas`]: the slot table, the lookup hash and the height atlas, refreshed each frame
//! by one `stream.upload` node on the async transfer queue. [`TileAtlas::prepare`] writes the
//! frame's records, lookup table and new payloads into the frame slot's staging buffer;
//! [`TileAtlas::declare`] only adds the copy node.

use super::slots::{Residency, SlotRecord};
use super::staging::StagingRing;
use crate::params::TILE_STRIDE;
use crate::planet::TileId;
use ash::vk;
use framegraph::graph::QueueKind;
use framegraph::{BufferDesc, BufferRef, Context, GpuBuffer, GpuImage, Graph, ImageDesc, ImageRef};
use glam::DVec3;
use std::collections::HashMap;
use std::mem::size_of;

/// Bytes of one page's payload: 520×520 16-bit codes.
pub const PAGE_BYTES: u64 = (TILE_STRIDE * TILE_STRIDE * size_of::<u16>() as u32) as u64;

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

/// What the prepare step staged for `stream.upload`.
#[derive(Default)]
struct Staged {
    frame_slot: usize,
    record_bytes: u64,
    lookup_bytes: u64,
    /// Page uploads, as copies out of the staging buffer.
    regions: Vec<vk::BufferImageCopy>,
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
    /// Which tile each page holds (so unchanged pages are never uploaded again).
    page_content: HashMap<u32, TileId>,
    staged: Staged,
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
            ImageDesc::d2_array(TILE_STRIDE, TILE_STRIDE, pages, vk::Format::R16_UINT),
            vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::TRANSFER_SRC,
        )?;
        let record_bytes = slot_capacity as u64 * size_of::<SlotRecord>() as u64;
        let slots = GpuBuffer::new(ctx, "tiles.slots", BufferDesc::gpu(record_bytes))?;
        let lookup_bytes = lookup_size as u64 * LOOKUP_ENTRY_BYTES;
        let lookup = GpuBuffer::new(ctx, "tiles.lookup", BufferDesc::gpu(lookup_bytes))?;
        Ok(TileAtlas {
            slot_capacity,
            pages,
            lookup_size,
            heights,
            slots,
            lookup,
            staging: StagingRing::new("tiles.staging", frames_in_flight.max(1)),
            page_content: HashMap::new(),
            staged: Staged::default(),
        })
    }

    /// Stage this frame's slot records (camera-relative from the f64 `eye`), lookup table and
    /// the payloads of pages whose content changed. `frame_slot` comes from
    /// `Executor::begin_frame`, so its staging buffer is no longer in use by the GPU.
    pub fn prepare(
        &mut self,
        ctx: &Context,
        frame_slot: usize,
        residency: &Residency,
        eye: DVec3,
        texel0: f64,
    ) -> framegraph::Result<()> {
        let records = residency.records(eye, self.slot_capacity as usize, texel0);
        let lookup = residency.lookup_table(self.lookup_size as usize);
        assert_eq!(
            lookup.len(),
            self.lookup_size as usize,
            "more resident tiles than slots"
        );
        let uploads: Vec<&super::slots::ResidentTile> = residency
            .tiles
            .iter()
            .filter(|t| self.page_content.get(&t.page) != Some(&t.id))
            .collect();
        let record_bytes = std::mem::size_of_val(records.as_slice()) as u64;
        let lookup_bytes = std::mem::size_of_val(lookup.as_slice()) as u64;
        let payload_at = record_bytes + lookup_bytes;
        let total = payload_at + uploads.len() as u64 * PAGE_BYTES;
        let staging = self.staging.get(ctx, frame_slot, total)?;
        let map = staging
            .mapped_mut()
            .ok_or_else(|| framegraph::Error::NotMapped("tiles.staging".into()))?;
        map[..record_bytes as usize].copy_from_slice(bytemuck::cast_slice(&records));
        map[record_bytes as usize..payload_at as usize]
            .copy_from_slice(bytemuck::cast_slice(&lookup));
        let mut regions = Vec::with_capacity(uploads.len());
        for (k, t) in uploads.iter().enumerate() {
            let off = payload_at + k as u64 * PAGE_BYTES;
            let dst: &mut [u16] =
                bytemuck::cast_slice_mut(&mut map[off as usize..(off + PAGE_BYTES) as usize]);
            for (i, c) in dst.iter_mut().enumerate() {
                *c = t.tile.code(i);
            }
            regions.push(page_copy(off, t.page));
        }
        for t in &uploads {
            self.page_content.insert(t.page, t.id);
        }
        self.staged = Staged {
            frame_slot,
            record_bytes,
            lookup_bytes,
            regions,
        };
        Ok(())
    }

    /// Pages the last prepared frame uploads.
    pub fn uploaded_tiles(&self) -> u32 {
        self.staged.regions.len() as u32
    }

    /// `stream.upload`: what [`TileAtlas::prepare`] staged into the slot table, the lookup
    /// hash and the atlas. Returns the handles the surface readers bind.
    pub fn declare(&self, g: &mut Graph<'_>) -> TileBindings {
        let s = &self.staged;
        let staging = self
            .staging
            .current(s.frame_slot)
            .expect("TileAtlas::declare after prepare");
        let src = g.import_buffer(staging);
        let mut slots = g.import_buffer(&self.slots);
        let mut lookup = g.import_buffer(&self.lookup);
        let mut heights = g.import_image(&self.heights);
        let mut node = g
            .transfer("stream.upload")
            .queue(QueueKind::AsyncTransfer)
            .copy_buffer(src, &mut slots, 0, 0, s.record_bytes)
            .copy_buffer(src, &mut lookup, s.record_bytes, 0, s.lookup_bytes);
        if !s.regions.is_empty() {
            node = node.copy_buffer_to_image(src, &mut heights, s.regions.clone());
        }
        let _ = node;
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
