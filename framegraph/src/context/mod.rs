//! The Vulkan context: [`Context`] (instance, device, queues, allocator, debug names),
//! [`ContextOptions`] and [`Queue`]. The parts live by responsibility:
//! - `instance.rs`: the instance, validation layer and debug messenger ([`MessageLog`]);
//! - `device.rs`: device choice, required-feature checks, device and queue creation,
//!   [`DeviceInfo`];
//! - `memory.rs`: buffers, images and views with gpu-allocator memory.

mod device;
mod instance;
mod memory;
mod pipeline_cache;

pub use device::DeviceInfo;
pub use instance::MessageLog;
pub(crate) use memory::alloc_desc;

use crate::error::{Error, Result};
use crate::queue::QueueSetup;
use ash::vk;
use device::{check_features, create_device, device_info, pick_device};
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use instance::{create_instance, DebugMessenger};
use parking_lot::Mutex;
use std::ffi::{CStr, CString};
use std::sync::Arc;

/// How to create the context.
#[derive(Clone, Debug, Default)]
pub struct ContextOptions {
    /// Enable the Khronos validation layer with synchronization validation.
    pub validation: bool,
    /// Pick a device by index or by (case-insensitive) name substring.
    pub device: Option<String>,
    /// Instance extensions a window system needs (from ash-window).
    pub instance_extensions: Vec<&'static CStr>,
    /// Enable VK_KHR_swapchain on the device.
    pub swapchain: bool,
    /// A file to keep the pipeline cache in across processes (loaded if it is this device's
    /// and whole, saved when the context is dropped; `pipeline_cache.rs`).
    pub pipeline_cache: Option<std::path::PathBuf>,
    /// Ask the driver for every pipeline's statistics (registers, memory, instructions;
    /// `pipeline::stats`), where it has VK_KHR_pipeline_executable_properties.
    pub pipeline_statistics: bool,
}

impl ContextOptions {
    /// Validation on when `PLANETFALL_VALIDATION` is set to anything but 0.
    pub fn from_env() -> Self {
        let validation = std::env::var("PLANETFALL_VALIDATION")
            .map(|v| v != "0")
            .unwrap_or(false);
        let device = std::env::var("PLANETFALL_DEVICE").ok();
        ContextOptions {
            validation,
            device,
            ..Default::default()
        }
    }
}

/// One device queue. Vulkan queues are externally synchronised, so submissions take `lock`.
pub struct Queue {
    pub family: u32,
    pub raw: vk::Queue,
    /// Valid bits of timestamps on this family (0: no timestamps).
    pub timestamp_bits: u32,
    pub lock: Mutex<()>,
}

/// The device and everything created with it; owners of GPU objects borrow it to create and
/// destroy them.
pub struct Context {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub physical: vk::PhysicalDevice,
    pub device: ash::Device,
    pub info: DeviceInfo,
    pub universal: Queue,
    /// Dedicated transfer queue family, where the device has one.
    pub transfer: Option<Queue>,
    pub push_descriptor: ash::khr::push_descriptor::Device,
    pub debug_utils: Option<ash::ext::debug_utils::Device>,
    debug_instance: Option<DebugMessenger>,
    allocator: Mutex<Option<Allocator>>,
    pub messages: Arc<MessageLog>,
    pub validation: bool,
    /// Whether the device was created with VK_KHR_swapchain.
    pub swapchain: bool,
    /// Every pipeline is created through it (`ContextOptions::pipeline_cache`).
    pub pipeline_cache: vk::PipelineCache,
    pipeline_cache_path: Option<std::path::PathBuf>,
    /// The cache started from a file of an earlier process.
    pub pipeline_cache_loaded: bool,
    /// Present where statistics were asked for and the device has the extension: every
    /// pipeline is then created to capture them (`pipeline::stats`).
    pub pipeline_executable: Option<ash::khr::pipeline_executable_properties::Device>,
}

impl Context {
    /// Create the instance, pick and check a device, create it with its queues and the
    /// allocator. Fails with the name of the first missing requirement.
    pub fn new(opts: &ContextOptions) -> Result<Context> {
        let entry = unsafe { ash::Entry::load() }.map_err(|e| Error::Loader(e.to_string()))?;
        let messages = Arc::new(MessageLog::default());
        let (instance, debug_instance) = create_instance(&entry, opts, &messages)?;
        let physical = pick_device(&instance, opts.device.as_deref())?;
        let supported = check_features(&instance, physical)?;
        let want_stats = opts.pipeline_statistics && supported.pipeline_executable_info;
        if opts.pipeline_statistics && !want_stats {
            log::warn!(
                "pipeline statistics asked for, but `{}` lacks VK_KHR_pipeline_executable_properties",
                supported.name
            );
        }
        let (device, universal, transfer) =
            create_device(&instance, physical, &supported, opts.swapchain, want_stats)?;

        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        })
        .map_err(|e| Error::Alloc {
            name: "allocator".into(),
            message: e.to_string(),
        })?;

        let info = device_info(&instance, physical, &supported);
        log::info!(
            "vulkan device: {} ({:?}, api {}.{}.{}, {}); transfer queue: {}",
            info.name,
            info.kind,
            vk::api_version_major(info.api_version),
            vk::api_version_minor(info.api_version),
            vk::api_version_patch(info.api_version),
            info.driver,
            if transfer.is_some() {
                "dedicated"
            } else {
                "shared (single family)"
            }
        );

        let props = unsafe { instance.get_physical_device_properties(physical) };
        let initial = match &opts.pipeline_cache {
            Some(path) if path.exists() => match pipeline_cache::load(path, &props) {
                Ok(data) => data,
                Err(why) => {
                    log::info!("pipeline cache {} ignored: {why}", path.display());
                    Vec::new()
                }
            },
            _ => Vec::new(),
        };
        let pipeline_cache_loaded = !initial.is_empty();
        let cache_info = vk::PipelineCacheCreateInfo::default().initial_data(&initial);
        let pipeline_cache =
            unsafe { device.create_pipeline_cache(&cache_info, None) }.map_err(|result| {
                Error::Vk {
                    call: "vkCreatePipelineCache",
                    result,
                }
            })?;

        let push_descriptor = ash::khr::push_descriptor::Device::new(&instance, &device);
        let debug_utils_dev = debug_instance
            .as_ref()
            .map(|_| ash::ext::debug_utils::Device::new(&instance, &device));
        let pipeline_executable = want_stats
            .then(|| ash::khr::pipeline_executable_properties::Device::new(&instance, &device));
        Ok(Context {
            entry,
            instance,
            physical,
            device,
            info,
            universal,
            transfer,
            push_descriptor,
            debug_utils: debug_utils_dev,
            debug_instance,
            allocator: Mutex::new(Some(allocator)),
            messages,
            validation: opts.validation,
            swapchain: opts.swapchain,
            pipeline_cache,
            pipeline_cache_path: opts.pipeline_cache.clone(),
            pipeline_cache_loaded,
            pipeline_executable,
        })
    }

    /// Write the pipeline cache to its file (done when the context is dropped). A failure is
    /// returned (and logged by the drop): the next process only builds its pipelines again.
    pub fn save_pipeline_cache(&self) -> std::io::Result<()> {
        let Some(path) = &self.pipeline_cache_path else {
            return Ok(());
        };
        let data = unsafe { self.device.get_pipeline_cache_data(self.pipeline_cache) }
            .map_err(|e| std::io::Error::other(format!("vkGetPipelineCacheData: {e}")))?;
        pipeline_cache::save(path, &data)
    }

    /// The queue families as the frame-graph compiler sees them.
    pub fn queue_setup(&self) -> QueueSetup {
        QueueSetup {
            universal: self.universal.family,
            transfer: self.transfer.as_ref().map(|q| q.family),
        }
    }

    pub fn queue(&self, family: u32) -> &Queue {
        match &self.transfer {
            Some(t) if t.family == family => t,
            _ => &self.universal,
        }
    }

    /// Attach a debug name to a Vulkan object (shows in RenderDoc and validation messages).
    pub fn name_object<H: vk::Handle>(&self, handle: H, name: &str) {
        if let Some(du) = &self.debug_utils {
            if let Ok(c) = CString::new(name) {
                let info = vk::DebugUtilsObjectNameInfoEXT::default()
                    .object_handle(handle)
                    .object_name(&c);
                unsafe {
                    let _ = du.set_debug_utils_object_name(&info);
                }
            }
        }
    }

    pub fn wait_idle(&self) {
        unsafe {
            let _ = self.device.device_wait_idle();
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        unsafe {
            let _ = self.device.device_wait_idle();
            if let Err(e) = self.save_pipeline_cache() {
                log::warn!("pipeline cache not saved: {e}");
            }
            self.device
                .destroy_pipeline_cache(self.pipeline_cache, None);
            if let Some(a) = self.allocator.lock().take() {
                let report = a.generate_report();
                if report.total_allocated_bytes > 0 {
                    log::warn!(
                        "{} bytes of GPU memory still allocated at shutdown",
                        report.total_allocated_bytes
                    );
                }
                drop(a);
            }
            self.device.destroy_device(None);
            if let Some((di, m)) = self.debug_instance.take() {
                di.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}
