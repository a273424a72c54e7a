//! How a node touches a resource, and the synchronization2 masks and image layout that follow.
//!
//! vk-sync has no synchronization2 support, so this is our own table. Every access a node can
//! declare is one row; barriers are planned from rows only (see `compile::barriers`).
//!
//! Holds [`Access`] (the rows), [`AccessInfo`] (a row's masks and layout) and [`Usage`] (one
//! node's accesses to one resource, merged).

use ash::vk;

/// One way a node touches a resource. The graph derives stage/access masks, image layouts and
/// (for transients) usage flags from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Storage buffer/image read in a compute shader.
    ComputeRead,
    /// Storage buffer/image write (and read) in a compute shader.
    ComputeWrite,
    /// Sampled image read in a compute shader.
    ComputeSampled,
    /// Uniform buffer read in a compute shader.
    ComputeUniform,
    /// Indirect dispatch/draw arguments (and draw counts).
    IndirectRead,
    /// Vertex attribute buffer.
    VertexBuffer,
    /// Index buffer.
    IndexBuffer,
    /// Storage buffer/image read in a vertex shader.
    VertexShaderRead,
    /// Storage buffer/image read in a fragment shader.
    FragmentRead,
    /// Storage buffer/image write (and read) in a fragment shader.
    FragmentWrite,
    /// Sampled image read in a fragment shader.
    FragmentSampled,
    /// Colour attachment (loaded or cleared, then written).
    ColorAttachment,
    /// Depth attachment with depth writes.
    DepthAttachment,
    /// Source of a copy.
    TransferRead,
    /// Destination of a copy, fill, clear or update.
    TransferWrite,
    /// Read by the host after the frame's fence (readback buffers).
    HostRead,
    /// Handed to the presentation engine (swapchain images).
    Present,
}

/// The synchronization2 view of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessInfo {
    pub stage: vk::PipelineStageFlags2,
    pub access: vk::AccessFlags2,
    /// Layout an image must be in for this access (ignored for buffers).
    pub layout: vk::ImageLayout,
    /// Whether the access writes (WAR/WAW hazards follow).
    pub writes: bool,
}

impl Access {
    pub const ALL: [Access; 17] = [
        Access::ComputeRead,
        Access::ComputeWrite,
        Access::ComputeSampled,
        Access::ComputeUniform,
        Access::IndirectRead,
        Access::VertexBuffer,
        Access::IndexBuffer,
        Access::VertexShaderRead,
        Access::FragmentRead,
        Access::FragmentWrite,
        Access::FragmentSampled,
        Access::ColorAttachment,
        Access::DepthAttachment,
        Access::TransferRead,
        Access::TransferWrite,
        Access::HostRead,
        Access::Present,
    ];

    /// The table row.
    pub fn info(self) -> AccessInfo {
        use vk::AccessFlags2 as A;
        use vk::ImageLayout as L;
        use vk::PipelineStageFlags2 as S;
        let (stage, access, layout, writes) = match self {
            Access::ComputeRead => (S::COMPUTE_SHADER, A::SHADER_STORAGE_READ, L::GENERAL, false),
            Access::ComputeWrite => (
                S::COMPUTE_SHADER,
                A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE,
                L::GENERAL,
                true,
            ),
            Access::ComputeSampled => (
                S::COMPUTE_SHADER,
                A::SHADER_SAMPLED_READ,
                L::SHADER_READ_ONLY_OPTIMAL,
                false,
            ),
            Access::ComputeUniform => (S::COMPUTE_SHADER, A::UNIFORM_READ, L::UNDEFINED, false),
            Access::IndirectRead => (
                S::DRAW_INDIRECT,
                A::INDIRECT_COMMAND_READ,
                L::UNDEFINED,
                false,
            ),
            Access::VertexBuffer => (
                S::VERTEX_ATTRIBUTE_INPUT,
                A::VERTEX_ATTRIBUTE_READ,
                L::UNDEFINED,
                false,
            ),
            Access::IndexBuffer => (S::INDEX_INPUT, A::INDEX_READ, L::UNDEFINED, false),
            Access::VertexShaderRead => {
                (S::VERTEX_SHADER, A::SHADER_STORAGE_READ, L::GENERAL, false)
            }
            Access::FragmentRead => (
                S::FRAGMENT_SHADER,
                A::SHADER_STORAGE_READ,
                L::GENERAL,
                false,
            ),
            Access::FragmentWrite => (
                S::FRAGMENT_SHADER,
                A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE,
                L::GENERAL,
                true,
            ),
            Access::FragmentSampled => (
                S::FRAGMENT_SHADER,
                A::SHADER_SAMPLED_READ,
                L::SHADER_READ_ONLY_OPTIMAL,
                false,
            ),
            Access::ColorAttachment => (
                S::COLOR_ATTACHMENT_OUTPUT,
                A::COLOR_ATTACHMENT_READ | A::COLOR_ATTACHMENT_WRITE,
                L::COLOR_ATTACHMENT_OPTIMAL,
                true,
            ),
            Access::DepthAttachment => (
                S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS,
                A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE,
                L::DEPTH_ATTACHMENT_OPTIMAL,
                true,
            ),
            Access::TransferRead => (
                S::ALL_TRANSFER,
                A::TRANSFER_READ,
                L::TRANSFER_SRC_OPTIMAL,
                false,
            ),
            Access::TransferWrite => (
                S::ALL_TRANSFER,
                A::TRANSFER_WRITE,
                L::TRANSFER_DST_OPTIMAL,
                true,
            ),
            Access::HostRead => (S::HOST, A::HOST_READ, L::GENERAL, false),
            Access::Present => (S::NONE, A::NONE, L::PRESENT_SRC_KHR, false),
        };
        AccessInfo {
            stage,
            access,
            layout,
            writes,
        }
    }

    pub fn writes(self) -> bool {
        self.info().writes
    }

    /// Buffer usage a transient needs for this access.
    pub fn buffer_usage(self) -> vk::BufferUsageFlags {
        use vk::BufferUsageFlags as U;
        match self {
            Access::ComputeRead
            | Access::ComputeWrite
            | Access::VertexShaderRead
            | Access::FragmentRead
            | Access::FragmentWrite => U::STORAGE_BUFFER,
            Access::ComputeUniform => U::UNIFORM_BUFFER,
            Access::IndirectRead => U::INDIRECT_BUFFER,
            Access::VertexBuffer => U::VERTEX_BUFFER,
            Access::IndexBuffer => U::INDEX_BUFFER,
            Access::TransferRead => U::TRANSFER_SRC,
            Access::TransferWrite => U::TRANSFER_DST,
            _ => U::empty(),
        }
    }

    /// Image usage a transient needs for this access.
    pub fn image_usage(self) -> vk::ImageUsageFlags {
        use vk::ImageUsageFlags as U;
        match self {
            Access::ComputeRead
            | Access::ComputeWrite
            | Access::VertexShaderRead
            | Access::FragmentRead
            | Access::FragmentWrite => U::STORAGE,
            Access::ComputeSampled | Access::FragmentSampled => U::SAMPLED,
            Access::ColorAttachment => U::COLOR_ATTACHMENT,
            Access::DepthAttachment => U::DEPTH_STENCIL_ATTACHMENT,
            Access::TransferRead => U::TRANSFER_SRC,
            Access::TransferWrite => U::TRANSFER_DST,
            _ => U::empty(),
        }
    }

    /// Whether this access can run on a transfer-only queue.
    pub fn transfer_queue_ok(self) -> bool {
        matches!(self, Access::TransferRead | Access::TransferWrite)
    }
}

/// Several accesses of one resource within a node, merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    pub stage: vk::PipelineStageFlags2,
    pub access: vk::AccessFlags2,
    pub layout: vk::ImageLayout,
    pub writes: bool,
}

impl Usage {
    pub fn of(a: Access) -> Usage {
        let i = a.info();
        Usage {
            stage: i.stage,
            access: i.access,
            layout: i.layout,
            writes: i.writes,
        }
    }

    /// Merge another access of the same resource by the same node. Images need one layout;
    /// GENERAL absorbs the read-only layouts it is compatible with. Buffers have no layout.
    pub fn merge(self, other: Usage, image: bool) -> Option<Usage> {
        let layout = if !image {
            vk::ImageLayout::UNDEFINED
        } else if self.layout == other.layout || other.layout == vk::ImageLayout::UNDEFINED {
            self.layout
        } else if self.layout == vk::ImageLayout::UNDEFINED {
            other.layout
        } else if self.layout == vk::ImageLayout::GENERAL
            || other.layout == vk::ImageLayout::GENERAL
        {
            // A storage access plus a sampled read of one image: GENERAL serves both.
            let ro = [
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                vk::ImageLayout::GENERAL,
            ];
            if ro.contains(&self.layout) && ro.contains(&other.layout) {
                vk::ImageLayout::GENERAL
            } else {
                return None;
            }
        } else {
            return None;
        };
        Some(Usage {
            stage: self.stage | other.stage,
            access: self.access | other.access,
            layout,
            writes: self.writes || other.writes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_write_has_a_write_access_bit() {
        let write_bits = vk::AccessFlags2::SHADER_STORAGE_WRITE
            | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE
            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE
            | vk::AccessFlags2::TRANSFER_WRITE;
        for a in Access::ALL {
            let i = a.info();
            assert_eq!(i.writes, i.access.intersects(write_bits), "{a:?}");
        }
    }

    #[test]
    fn merge_storage_and_sampled_goes_general() {
        let u = Usage::of(Access::ComputeRead)
            .merge(Usage::of(Access::ComputeSampled), true)
            .unwrap();
        assert_eq!(u.layout, vk::ImageLayout::GENERAL);
        assert!(Usage::of(Access::ColorAttachment)
            .merge(Usage::of(Access::ComputeRead), true)
            .is_none());
        assert!(Usage::of(Access::TransferWrite)
            .merge(Usage::of(Access::ComputeWrite), false)
            .is_some());
    }
}
