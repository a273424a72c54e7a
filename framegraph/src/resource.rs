//! GPU objects owned outside one frame: [`GpuBuffer`] and [`GpuImage`] (memory from the
//! context's gpu-allocator), and `Graph::import_buffer` / `Graph::import_image`, which declare
//! them in a graph.
//!
//! The importers live here, beside the owned objects, so that `graph` only ever names
//! descriptions and raw handles. The descriptions are re-exported from `desc` so that
//! `resource::BufferDesc` and its siblings keep working.

use crate::context::Context;
use crate::error::{Error, Result};
use crate::graph::{BufferRef, Graph, ImageRef};
use ash::vk;
use gpu_allocator::vulkan::Allocation;
use std::sync::Arc;

pub use crate::desc::{
    format_bytes, BufferDesc, ImageDesc, Memory, SharedState, TrackedState, ALL_BUFFER_USAGE,
};

/// A buffer owned outside the graph (persistent across frames).
pub struct GpuBuffer {
    pub name: String,
    pub desc: BufferDesc,
    pub raw: vk::Buffer,
    pub state: SharedState,
    allocation: Option<Allocation>,
    /// Device address when the buffer was created with it (0 otherwise).
    pub address: u64,
}

impl std::fmt::Debug for GpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuBuffer({}, {} bytes)", self.name, self.desc.size)
    }
}

impl GpuBuffer {
    pub fn new(ctx: &Context, name: &str, desc: BufferDesc) -> Result<GpuBuffer> {
        Self::with_usage(ctx, name, desc, ALL_BUFFER_USAGE)
    }

    pub fn with_usage(
        ctx: &Context,
        name: &str,
        desc: BufferDesc,
        usage: vk::BufferUsageFlags,
    ) -> Result<GpuBuffer> {
        let (raw, allocation) = ctx.create_buffer_raw(name, desc, usage)?;
        Ok(GpuBuffer {
            name: name.into(),
            desc,
            raw,
            state: Arc::default(),
            allocation: Some(allocation),
            address: 0,
        })
    }

    /// Mapped bytes (host-visible buffers only).
    pub fn mapped(&self) -> Option<&[u8]> {
        self.allocation.as_ref().and_then(|a| a.mapped_slice())
    }

    pub fn mapped_mut(&mut self) -> Option<&mut [u8]> {
        self.allocation.as_mut().and_then(|a| a.mapped_slice_mut())
    }

    /// Copy `data` into a host-visible buffer at `offset`.
    pub fn write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        let name = self.name.clone();
        let m = self
            .mapped_mut()
            .ok_or_else(|| Error::NotMapped(name.clone()))?;
        let end = offset + data.len();
        if end > m.len() {
            return Err(Error::OutOfRange {
                resource: name,
                end: end as u64,
                size: m.len() as u64,
            });
        }
        m[offset..end].copy_from_slice(data);
        Ok(())
    }

    pub fn destroy(mut self, ctx: &Context) {
        if let Some(a) = self.allocation.take() {
            ctx.destroy_buffer_raw(self.raw, a);
        }
    }
}

/// An image owned outside the graph.
pub struct GpuImage {
    pub name: String,
    pub desc: ImageDesc,
    pub raw: vk::Image,
    pub view: vk::ImageView,
    pub state: SharedState,
    allocation: Option<Allocation>,
}

impl GpuImage {
    pub fn new(
        ctx: &Context,
        name: &str,
        desc: ImageDesc,
        usage: vk::ImageUsageFlags,
    ) -> Result<GpuImage> {
        let (raw, view, allocation) = ctx.create_image_raw(name, desc, usage)?;
        Ok(GpuImage {
            name: name.into(),
            desc,
            raw,
            view,
            state: Arc::default(),
            allocation: Some(allocation),
        })
    }

    pub fn destroy(mut self, ctx: &Context) {
        if let Some(a) = self.allocation.take() {
            ctx.destroy_image_raw(self.raw, self.view, a);
        }
    }
}

impl Graph<'_> {
    /// Import a buffer that lives across frames, with the access state it was left in.
    pub fn import_buffer(&mut self, b: &GpuBuffer) -> BufferRef {
        self.import_buffer_raw(&b.name, b.desc, b.raw, b.state.clone())
    }

    /// Import an image that lives across frames, with the access state it was left in.
    pub fn import_image(&mut self, i: &GpuImage) -> ImageRef {
        self.import_image_raw(&i.name, i.desc, i.raw, i.view, i.state.clone(), false)
    }
}
