//! Pure resource descriptions and the access state the graph tracks: [`Memory`],
//! [`BufferDesc`], [`ImageDesc`], [`format_bytes`], [`ALL_BUFFER_USAGE`], [`TrackedState`] and
//! [`SharedState`].
//!
//! Nothing here owns a Vulkan object, so the declarations (`graph`) and the compiler
//! (`compile`) can use these without depending on a device.

use ash::vk;
use parking_lot::Mutex;
use std::sync::Arc;

/// Where a buffer's memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Memory {
    /// Device-local, not mapped.
    Gpu,
    /// Host-visible, written by the CPU (uploads, staging).
    Upload,
    /// Host-visible, read by the CPU (readbacks).
    Readback,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferDesc {
    pub size: u64,
    pub memory: Memory,
}

impl BufferDesc {
    pub fn gpu(size: u64) -> Self {
        BufferDesc {
            size,
            memory: Memory::Gpu,
        }
    }
    pub fn upload(size: u64) -> Self {
        BufferDesc {
            size,
            memory: Memory::Upload,
        }
    }
    pub fn readback(size: u64) -> Self {
        BufferDesc {
            size,
            memory: Memory::Readback,
        }
    }
    /// `n` `VkDispatchIndirectCommand`s / small argument records (16 bytes each).
    pub fn indirect(n: u64) -> Self {
        BufferDesc::gpu(16 * n)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageDesc {
    pub extent: [u32; 3],
    pub format: vk::Format,
    pub layers: u32,
}

impl ImageDesc {
    pub fn d2(width: u32, height: u32, format: vk::Format) -> Self {
        ImageDesc {
            extent: [width, height, 1],
            format,
            layers: 1,
        }
    }
    pub fn d2_array(width: u32, height: u32, layers: u32, format: vk::Format) -> Self {
        ImageDesc {
            extent: [width, height, 1],
            format,
            layers,
        }
    }
    pub fn is_depth(&self) -> bool {
        matches!(
            self.format,
            vk::Format::D32_SFLOAT | vk::Format::D24_UNORM_S8_UINT | vk::Format::D16_UNORM
        )
    }
    pub fn aspect(&self) -> vk::ImageAspectFlags {
        if self.is_depth() {
            vk::ImageAspectFlags::DEPTH
        } else {
            vk::ImageAspectFlags::COLOR
        }
    }
    pub fn view_type(&self) -> vk::ImageViewType {
        if self.extent[2] > 1 {
            vk::ImageViewType::TYPE_3D
        } else if self.layers > 1 {
            vk::ImageViewType::TYPE_2D_ARRAY
        } else {
            vk::ImageViewType::TYPE_2D
        }
    }
    pub fn range(&self) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange {
            aspect_mask: self.aspect(),
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: self.layers,
        }
    }
}

/// Bytes per texel of the formats we use.
pub fn format_bytes(f: vk::Format) -> u64 {
    use vk::Format as F;
    match f {
        F::R8_UNORM | F::R8_UINT => 1,
        F::R16_UNORM | F::R16_UINT | F::R16_SFLOAT => 2,
        F::R8G8B8A8_UNORM | F::R8G8B8A8_SRGB | F::B8G8R8A8_UNORM | F::B8G8R8A8_SRGB => 4,
        F::R32_UINT
        | F::R32_SFLOAT
        | F::D32_SFLOAT
        | F::R16G16_UINT
        | F::A2B10G10R10_UNORM_PACK32 => 4,
        F::R32G32_UINT | F::R32G32_SFLOAT | F::R16G16B16A16_SFLOAT | F::R16G16B16A16_UINT => 8,
        F::R64_UINT => 8,
        F::R32G32B32A32_UINT | F::R32G32B32A32_SFLOAT => 16,
        _ => 4,
    }
}

/// How a resource was last touched: what the next access must wait for. Kept across frames for
/// imported resources; the initial state of a new resource is the default (nothing pending).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrackedState {
    /// The last write (stage, access), if not yet known to be visible everywhere.
    pub write: Option<(vk::PipelineStageFlags2, vk::AccessFlags2)>,
    /// Reads since the last write (a later write must wait for them).
    pub read_stages: vk::PipelineStageFlags2,
    /// Stages/accesses the last write has already been made visible to.
    pub visible_stages: vk::PipelineStageFlags2,
    pub visible_access: vk::AccessFlags2,
    pub layout: vk::ImageLayout,
    /// Owning queue family (None: not owned yet / content undefined).
    pub family: Option<u32>,
}

impl Default for TrackedState {
    fn default() -> Self {
        TrackedState {
            write: None,
            read_stages: vk::PipelineStageFlags2::NONE,
            visible_stages: vk::PipelineStageFlags2::NONE,
            visible_access: vk::AccessFlags2::NONE,
            layout: vk::ImageLayout::UNDEFINED,
            family: None,
        }
    }
}

pub type SharedState = Arc<Mutex<TrackedState>>;

/// Every usage a buffer of ours may need; cheap on every driver we target.
pub const ALL_BUFFER_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::UNIFORM_BUFFER.as_raw()
        | vk::BufferUsageFlags::INDIRECT_BUFFER.as_raw()
        | vk::BufferUsageFlags::VERTEX_BUFFER.as_raw()
        | vk::BufferUsageFlags::INDEX_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);
