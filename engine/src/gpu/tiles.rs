//! Tiles on the GPU: the height atlas (one R16_UINT 520×520 layer per physical page), the slot
//! table, the lookup hash and the frame constants, refreshed each frame through one
//! `stream.upload` node on the async transfer queue.

use super::frame::FrameConstants;
use super::slots::{Residency, SlotRecord};
use crate::params::TILE_STRIDE;
use ash::vk;
use framegraph::graph::QueueKind;
use framegraph::{BufferDesc, BufferRef, Context, GpuBuffer, GpuImage, Graph, ImageDesc, ImageRef};
use std::collections::HashMap;

/// Bytes of one page's payload: 520×520 16-bit codes.
pub const PAGE_BYTES: u64 = (TILE_STRIDE * TILE_STRIDE * 2) as u64;

/// Graph handles of this frame's tile resources, for the nodes that read the surface.
#[derive(Clone, Copy, Debug)]
pub struct TileBindings {
    pub frame: BufferRef,
    pub slots: BufferRef,
    pub lookup: BufferRef,
    pub heights: ImageRef,
}

pub struct GpuTiles {
    pub slot_capacity: u32,
    pub pages: u32,
    pub lookup_size: u32,
    pub atlas: GpuImage,
    pub slots: GpuBuffer,
    pub lookup: GpuBuffer,
    staging: super::staging::StagingRing,
    constants: Vec<GpuBuffer>,
    /// Which tile each page holds (so unchanged pages are never uploaded again).
    page_content: HashMap<u32, crate::planet::TileId>,
    /// Payload bytes uploaded by the last declared frame.
    pub uploaded_bytes: u64,
    pub uploaded_tiles: u32,
}

impl GpuTiles {
    /// `slot_capacity` slots and `pages` physical pages (slots + the replacement reserve).
    pub fn new(
        ctx: &Context,
        slot_capacity: u32,
        pages: u32,
        frames_in_flight: usize,
    ) -> framegraph::Result<GpuTiles> {
        let lookup_size = (2 * slot_capacity).next_power_of_two().max(64);
        let atlas = GpuImage::new(
            ctx,
            "tiles.heights",
            ImageDesc::d2_array(TILE_STRIDE, TILE_STRIDE, pages, vk::Format::R16_UINT),
            vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::TRANSFER_SRC,
        )?;
        let slots = GpuBuffer::new(
            ctx,
            "tiles.slots",
            BufferDesc::gpu(slot_capacity as u64 * 448),
        )?;
        let lookup = GpuBuffer::new(
            ctx,
            "tiles.lookup",
            BufferDesc::gpu(lookup_size as u64 * 16),
        )?;
        let mut constants = Vec::new();
        for i in 0..frames_in_flight {
            constants.push(GpuBuffer::new(
                ctx,
                &format!("frame.constants{i}"),
                BufferDesc::upload(std::mem::size_of::<FrameConstants>() as u64),
            )?);
        }
        Ok(GpuTiles {
            slot_capacity,
            pages,
            lookup_size,
            atlas,
            slots,
            lookup,
            staging: super::staging::StagingRing::new("tiles.staging", frames_in_flight),
            constants,
            page_content: HashMap::new(),
            uploaded_bytes: 0,
            uploaded_tiles: 0,
        })
    }

    /// Write this frame's records, lookup table and new payloads into the frame slot's staging
    /// buffer and declare `stream.upload`. `frame_slot` comes from `Executor::begin_frame`, so
    /// the staging buffer is no longer in use by the GPU.
    /// With `ctx` None the nodes are only declared (graph dumps): nothing is written and the
    /// staging buffer is a null stand-in.
    pub fn declare<'a>(
        &mut self,
        ctx: Option<&Context>,
        g: &mut Graph<'a>,
        frame_slot: usize,
        residency: &Residency,
        eye: glam::DVec3,
        mut constants: FrameConstants,
    ) -> framegraph::Result<TileBindings> {
        let texel0 = constants.texel0 as f64;
        let records = residency.records(eye, self.slot_capacity as usize, texel0);
        let lookup = residency.lookup_table(self.lookup_size as usize);
        assert_eq!(
            lookup.len(),
            self.lookup_size as usize,
            "lookup table sized for the slot capacity"
        );
        constants.lookup_mask = self.lookup_size - 1;

        let uploads: Vec<&super::slots::ResidentTile> = residency
            .tiles
            .iter()
            .filter(|t| self.page_content.get(&t.page) != Some(&t.id))
            .collect();
        let rec_bytes = (records.len() * std::mem::size_of::<SlotRecord>()) as u64;
        let lut_bytes = (lookup.len() * 16) as u64;
        let total = rec_bytes + lut_bytes + uploads.len() as u64 * PAGE_BYTES;
        let mut regions = Vec::new();
        let src = match ctx {
            Some(ctx) => {
                let staging = self.staging.get(ctx, frame_slot, total)?;
                let map = staging
                    .mapped_mut()
                    .ok_or_else(|| framegraph::Error::NotMapped("tiles.staging".into()))?;
                map[..rec_bytes as usize].copy_from_slice(bytemuck::cast_slice(&records));
                map[rec_bytes as usize..(rec_bytes + lut_bytes) as usize]
                    .copy_from_slice(bytemuck::cast_slice(&lookup));
                for (k, t) in uploads.iter().enumerate() {
                    let off = (rec_bytes + lut_bytes + k as u64 * PAGE_BYTES) as usize;
                    let dst: &mut [u16] =
                        bytemuck::cast_slice_mut(&mut map[off..off + PAGE_BYTES as usize]);
                    for (i, c) in dst.iter_mut().enumerate() {
                        *c = t.tile.code(i);
                    }
                    regions.push(
                        vk::BufferImageCopy::default()
                            .buffer_offset(off as u64)
                            .image_subresource(
                                vk::ImageSubresourceLayers::default()
                                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                                    .base_array_layer(t.page)
                                    .layer_count(1),
                            )
                            .image_extent(vk::Extent3D {
                                width: TILE_STRIDE,
                                height: TILE_STRIDE,
                                depth: 1,
                            }),
                    );
                }
                for t in &uploads {
                    self.page_content.insert(t.page, t.id);
                }
                self.uploaded_tiles = uploads.len() as u32;
                self.uploaded_bytes = uploads.len() as u64 * PAGE_BYTES;
                self.constants[frame_slot].write(0, bytemuck::bytes_of(&constants))?;
                g.import_buffer(staging)
            }
            None => g.import_buffer_raw(
                "tiles.staging",
                BufferDesc::upload(total),
                vk::Buffer::null(),
                Default::default(),
            ),
        };
        let mut slots = g.import_buffer(&self.slots);
        let mut lut = g.import_buffer(&self.lookup);
        let mut heights = g.import_image(&self.atlas);
        let frame = g.import_buffer(&self.constants[frame_slot]);
        let mut node = g
            .transfer("stream.upload")
            .queue(QueueKind::AsyncTransfer)
            .copy_buffer(src, &mut slots, 0, 0, rec_bytes)
            .copy_buffer(src, &mut lut, rec_bytes, 0, lut_bytes);
        if !regions.is_empty() {
            node = node.copy_buffer_to_image(src, &mut heights, regions);
        }
        let _ = node;
        Ok(TileBindings {
            frame,
            slots,
            lookup: lut,
            heights,
        })
    }

    pub fn destroy(self, ctx: &Context) {
        self.atlas.destroy(ctx);
        self.slots.destroy(ctx);
        self.lookup.destroy(ctx);
        self.staging.destroy(ctx);
        for c in self.constants {
            c.destroy(ctx);
        }
    }
}
