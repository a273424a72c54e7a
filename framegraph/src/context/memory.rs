//! Device memory through gpu-allocator: the `Context` methods that create and destroy raw
//! buffers, images and views with their allocations, `alloc_desc` (what gpu-allocator is asked
//! for), and the allocator report used for leak checks.

use super::Context;
use crate::desc::{BufferDesc, ImageDesc, Memory};
use crate::error::{Error, Result, VkCheck};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};
use gpu_allocator::MemoryLocation;

impl Context {
    pub(crate) fn with_allocator<T>(&self, f: impl FnOnce(&mut Allocator) -> T) -> T {
        let mut guard = self.allocator.lock();
        f(guard
            .as_mut()
            .expect("allocator lives until the context drops"))
    }

    /// Memory for an object with requirements `req`; on failure `undo` destroys the object, so
    /// a failed allocation leaks nothing.
    fn allocate(
        &self,
        name: &str,
        req: vk::MemoryRequirements,
        memory: Memory,
        linear: bool,
        undo: impl FnOnce(),
    ) -> Result<Allocation> {
        self.with_allocator(|a| a.allocate(&alloc_desc(name, req, memory, linear)))
            .map_err(|e| {
                undo();
                Error::Alloc {
                    name: name.into(),
                    message: e.to_string(),
                }
            })
    }

    pub fn create_buffer_raw(
        &self,
        name: &str,
        desc: BufferDesc,
        usage: vk::BufferUsageFlags,
    ) -> Result<(vk::Buffer, Allocation)> {
        let info = vk::BufferCreateInfo::default()
            .size(desc.size.max(4))
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let buffer = unsafe { self.device.create_buffer(&info, None) }.vk("vkCreateBuffer")?;
        let req = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let allocation = self.allocate(name, req, desc.memory, true, || unsafe {
            self.device.destroy_buffer(buffer, None)
        })?;
        unsafe {
            self.device
                .bind_buffer_memory(buffer, allocation.memory(), allocation.offset())
        }
        .vk("vkBindBufferMemory")?;
        self.name_object(buffer, name);
        Ok((buffer, allocation))
    }

    pub fn destroy_buffer_raw(&self, buffer: vk::Buffer, allocation: Allocation) {
        let _ = self.with_allocator(|a| a.free(allocation));
        unsafe { self.device.destroy_buffer(buffer, None) };
    }

    pub fn image_create_info(
        desc: &ImageDesc,
        usage: vk::ImageUsageFlags,
    ) -> vk::ImageCreateInfo<'static> {
        vk::ImageCreateInfo::default()
            .image_type(if desc.extent[2] > 1 {
                vk::ImageType::TYPE_3D
            } else {
                vk::ImageType::TYPE_2D
            })
            .format(desc.format)
            .extent(vk::Extent3D {
                width: desc.extent[0],
                height: desc.extent[1],
                depth: desc.extent[2],
            })
            .mip_levels(1)
            .array_layers(desc.layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
    }

    pub fn create_view(
        &self,
        image: vk::Image,
        desc: &ImageDesc,
        name: &str,
    ) -> Result<vk::ImageView> {
        let info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(desc.view_type())
            .format(desc.format)
            .subresource_range(desc.range());
        let view = unsafe { self.device.create_image_view(&info, None) }.vk("vkCreateImageView")?;
        self.name_object(view, name);
        Ok(view)
    }

    pub fn create_image_raw(
        &self,
        name: &str,
        desc: ImageDesc,
        usage: vk::ImageUsageFlags,
    ) -> Result<(vk::Image, vk::ImageView, Allocation)> {
        let image = unsafe {
            self.device
                .create_image(&Self::image_create_info(&desc, usage), None)
        }
        .vk("vkCreateImage")?;
        let req = unsafe { self.device.get_image_memory_requirements(image) };
        let allocation = self.allocate(name, req, Memory::Gpu, false, || unsafe {
            self.device.destroy_image(image, None)
        })?;
        unsafe {
            self.device
                .bind_image_memory(image, allocation.memory(), allocation.offset())
        }
        .vk("vkBindImageMemory")?;
        self.name_object(image, name);
        let view = self.create_view(image, &desc, name)?;
        Ok((image, view, allocation))
    }

    pub fn destroy_image_raw(&self, image: vk::Image, view: vk::ImageView, allocation: Allocation) {
        let _ = self.with_allocator(|a| a.free(allocation));
        unsafe {
            self.device.destroy_image_view(view, None);
            self.device.destroy_image(image, None);
        }
    }

    /// Bytes of device memory gpu-allocator holds for us (leak checks at shutdown).
    pub fn allocated_bytes(&self) -> u64 {
        self.with_allocator(|a| a.generate_report().total_allocated_bytes)
    }
}

/// Where gpu-allocator places memory of each kind.
fn location(memory: Memory) -> MemoryLocation {
    match memory {
        Memory::Gpu => MemoryLocation::GpuOnly,
        Memory::Upload => MemoryLocation::CpuToGpu,
        Memory::Readback => MemoryLocation::GpuToCpu,
    }
}

pub(crate) fn alloc_desc<'n>(
    name: &'n str,
    req: vk::MemoryRequirements,
    memory: Memory,
    linear: bool,
) -> AllocationCreateDesc<'n> {
    AllocationCreateDesc {
        name,
        requirements: req,
        location: location(memory),
        linear,
        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
    }
}
