//! The Vulkan context: instance, debug messenger, physical-device choice, queues, features we
//! rely on (checked up front), gpu-allocator, and the device limits sizes are derived from.

use crate::compile::QueueSetup;
use crate::error::{Error, Result, VkCheck};
use crate::resource::{alloc_desc, BufferDesc, ImageDesc};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, Allocator, AllocatorCreateDesc};
use parking_lot::Mutex;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicU64, Ordering};
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

/// Validation/debug messages seen so far. Under tests any message is an error.
#[derive(Default)]
pub struct MessageLog {
    count: AtomicU64,
    messages: Mutex<Vec<String>>,
}

impl MessageLog {
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
    pub fn messages(&self) -> Vec<String> {
        self.messages.lock().clone()
    }
    pub fn take(&self) -> Vec<String> {
        self.count.store(0, Ordering::Relaxed);
        std::mem::take(&mut *self.messages.lock())
    }
}

/// Device facts the rest of the program sizes itself from.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub name: String,
    pub kind: vk::PhysicalDeviceType,
    pub api_version: u32,
    pub driver: String,
    pub max_storage_buffer_range: u64,
    pub max_compute_workgroup_invocations: u32,
    pub max_compute_workgroup_count: [u32; 3],
    pub max_compute_shared_memory: u32,
    pub max_image_array_layers: u32,
    pub max_image_dimension_2d: u32,
    pub max_push_constants: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f64,
    pub wide_lines: bool,
    pub fill_mode_non_solid: bool,
}

pub struct Queue {
    pub family: u32,
    pub raw: vk::Queue,
    /// Valid bits of timestamps on this family (0: no timestamps).
    pub timestamp_bits: u32,
    pub lock: Mutex<()>,
}

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
    debug_instance: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    allocator: Mutex<Option<Allocator>>,
    pub messages: Arc<MessageLog>,
    pub validation: bool,
    /// Whether the device was created with VK_KHR_swapchain.
    pub swapchain: bool,
}

/// Features Planetfall relies on, each checked with a message naming it.
const REQUIRED: &[&str] = &[
    "shaderInt64",
    "shaderBufferInt64Atomics",
    "synchronization2",
    "timelineSemaphore",
    "dynamicRendering",
    "drawIndirectCount",
    "hostQueryReset",
    "fragmentStoresAndAtomics",
    "vertexPipelineStoresAndAtomics",
    "VK_KHR_push_descriptor",
];

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    let log = &*(user as *const MessageLog);
    let msg = if data.is_null() || (*data).p_message.is_null() {
        String::from("(no message)")
    } else {
        CStr::from_ptr((*data).p_message)
            .to_string_lossy()
            .into_owned()
    };
    let counted = severity.intersects(
        vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
            | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
    ) && !kind.contains(vk::DebugUtilsMessageTypeFlagsEXT::GENERAL);
    if counted {
        log::error!("vulkan {kind:?}: {msg}");
        log.count.fetch_add(1, Ordering::Relaxed);
        log.messages.lock().push(msg);
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        log::warn!("vulkan {kind:?}: {msg}");
    } else {
        log::debug!("vulkan {kind:?}: {msg}");
    }
    vk::FALSE
}

impl Context {
    pub fn new(opts: &ContextOptions) -> Result<Context> {
        let entry = unsafe { ash::Entry::load() }.map_err(|e| Error::Loader(e.to_string()))?;
        let app = CString::new("planetfall").unwrap_or_default();
        let app_info = vk::ApplicationInfo::default()
            .application_name(&app)
            .engine_name(&app)
            .api_version(vk::API_VERSION_1_3);

        let layer_props = unsafe { entry.enumerate_instance_layer_properties() }
            .vk("vkEnumerateInstanceLayerProperties")?;
        let validation_name = c"VK_LAYER_KHRONOS_validation";
        let has_validation = layer_props.iter().any(|l| {
            l.layer_name_as_c_str()
                .map(|n| n == validation_name)
                .unwrap_or(false)
        });
        if opts.validation && !has_validation {
            return Err(Error::NoValidationLayer);
        }
        let ext_props = unsafe { entry.enumerate_instance_extension_properties(None) }
            .vk("vkEnumerateInstanceExtensionProperties")?;
        let has_ext = |n: &CStr| {
            ext_props
                .iter()
                .any(|e| e.extension_name_as_c_str().map(|x| x == n).unwrap_or(false))
        };
        let debug_utils = has_ext(ash::ext::debug_utils::NAME);

        let mut extensions: Vec<*const c_char> = opts
            .instance_extensions
            .iter()
            .map(|e| e.as_ptr())
            .collect();
        if debug_utils {
            extensions.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let layers: Vec<*const c_char> = if opts.validation {
            vec![validation_name.as_ptr()]
        } else {
            vec![]
        };
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let messages = Arc::new(MessageLog::default());
        let messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                    | vk::DebugUtilsMessageSeverityFlagsEXT::INFO,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(debug_callback))
            .user_data(Arc::as_ptr(&messages) as *mut c_void);
        let mut create = vk::InstanceCreateInfo::default()
            .application_info(&app_info)
            .enabled_extension_names(&extensions)
            .enabled_layer_names(&layers);
        if opts.validation {
            create = create.push_next(&mut features);
        }
        // The instance-creation chain gets its own copy: chaining rewrites its pNext.
        let mut chained_messenger = messenger_info;
        if debug_utils {
            create = create.push_next(&mut chained_messenger);
        }
        let instance = unsafe { entry.create_instance(&create, None) }.vk("vkCreateInstance")?;
        let debug_instance = if debug_utils {
            let di = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let m = unsafe { di.create_debug_utils_messenger(&messenger_info, None) }
                .vk("vkCreateDebugUtilsMessengerEXT")?;
            Some((di, m))
        } else {
            None
        };

        let physical = pick_device(&instance, opts.device.as_deref())?;
        let props = unsafe { instance.get_physical_device_properties(physical) };
        let name = props
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();

        // Features: query, check, enable exactly what we need.
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut f11)
            .push_next(&mut f12)
            .push_next(&mut f13);
        unsafe { instance.get_physical_device_features2(physical, &mut f2) };
        let base = f2.features;
        let dev_exts = unsafe { instance.enumerate_device_extension_properties(physical) }
            .vk("vkEnumerateDeviceExtensionProperties")?;
        let has_dev = |n: &CStr| {
            dev_exts
                .iter()
                .any(|e| e.extension_name_as_c_str().map(|x| x == n).unwrap_or(false))
        };
        let checks: [(bool, &'static str); 10] = [
            (base.shader_int64 != 0, REQUIRED[0]),
            (f12.shader_buffer_int64_atomics != 0, REQUIRED[1]),
            (f13.synchronization2 != 0, REQUIRED[2]),
            (f12.timeline_semaphore != 0, REQUIRED[3]),
            (f13.dynamic_rendering != 0, REQUIRED[4]),
            (f12.draw_indirect_count != 0, REQUIRED[5]),
            (f12.host_query_reset != 0, REQUIRED[6]),
            (base.fragment_stores_and_atomics != 0, REQUIRED[7]),
            (base.vertex_pipeline_stores_and_atomics != 0, REQUIRED[8]),
            (has_dev(ash::khr::push_descriptor::NAME), REQUIRED[9]),
        ];
        for (ok, feature) in checks {
            if !ok {
                return Err(Error::MissingFeature {
                    device: name.clone(),
                    feature,
                });
            }
        }
        // A capture layer may report Vulkan 1.2 over a 1.3 driver (RenderDoc 1.24, Debian 12):
        // then the 1.3 features we use come from their KHR extensions, and their commands are
        // loaded under the KHR names (the layer wraps those, not the core aliases).
        let khr13 = [
            ash::khr::synchronization2::NAME,
            ash::khr::dynamic_rendering::NAME,
        ];
        let via_khr = props.api_version < vk::API_VERSION_1_3;
        if via_khr
            && !(props.api_version >= vk::API_VERSION_1_2 && khr13.iter().all(|n| has_dev(n)))
        {
            return Err(Error::MissingFeature {
                device: name.clone(),
                feature: "Vulkan 1.3",
            });
        }
        if via_khr {
            log::info!("device `{name}` reports Vulkan 1.2 (a capture layer?): using VK_KHR_synchronization2 and VK_KHR_dynamic_rendering");
        }

        // Queues: the universal graphics+compute family, plus a transfer-only family if any.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let gc = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
        let universal_family = families
            .iter()
            .position(|f| f.queue_flags.contains(gc))
            .ok_or(Error::MissingFeature {
                device: name.clone(),
                feature: "a graphics+compute queue",
            })? as u32;
        let transfer_family = families
            .iter()
            .position(|f| {
                f.queue_flags.contains(vk::QueueFlags::TRANSFER)
                    && !f
                        .queue_flags
                        .intersects(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
            })
            .map(|i| i as u32)
            .filter(|_| std::env::var("PLANETFALL_SINGLE_QUEUE").is_err());
        let prio = [1.0f32];
        let mut queue_infos = vec![vk::DeviceQueueCreateInfo::default()
            .queue_family_index(universal_family)
            .queue_priorities(&prio)];
        if let Some(t) = transfer_family {
            queue_infos.push(
                vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(t)
                    .queue_priorities(&prio),
            );
        }

        let enabled = vk::PhysicalDeviceFeatures::default()
            .shader_int64(true)
            .fragment_stores_and_atomics(true)
            .vertex_pipeline_stores_and_atomics(true)
            .multi_draw_indirect(base.multi_draw_indirect != 0)
            .fill_mode_non_solid(base.fill_mode_non_solid != 0)
            .wide_lines(base.wide_lines != 0)
            .shader_float64(base.shader_float64 != 0)
            .shader_storage_image_write_without_format(
                base.shader_storage_image_write_without_format != 0,
            )
            .shader_storage_image_read_without_format(
                base.shader_storage_image_read_without_format != 0,
            );
        let mut e11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(f11.storage_buffer16_bit_access != 0);
        let mut e12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_buffer_int64_atomics(true)
            .shader_shared_int64_atomics(f12.shader_shared_int64_atomics != 0)
            .timeline_semaphore(true)
            .draw_indirect_count(true)
            .host_query_reset(true)
            .scalar_block_layout(f12.scalar_block_layout != 0)
            .shader_int8(f12.shader_int8 != 0)
            .storage_buffer8_bit_access(f12.storage_buffer8_bit_access != 0);
        let mut e13 = vk::PhysicalDeviceVulkan13Features::default()
            .synchronization2(true)
            .dynamic_rendering(true)
            .maintenance4(f13.maintenance4 != 0);
        let mut sync2 =
            vk::PhysicalDeviceSynchronization2Features::default().synchronization2(true);
        let mut rendering =
            vk::PhysicalDeviceDynamicRenderingFeatures::default().dynamic_rendering(true);
        let mut dev_ext_names: Vec<*const c_char> = vec![ash::khr::push_descriptor::NAME.as_ptr()];
        if opts.swapchain {
            dev_ext_names.push(ash::khr::swapchain::NAME.as_ptr());
        }
        let mut dci = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_infos)
            .enabled_features(&enabled)
            .push_next(&mut e11)
            .push_next(&mut e12);
        if via_khr {
            dev_ext_names.extend(khr13.iter().map(|n| n.as_ptr()));
            dci = dci.push_next(&mut sync2).push_next(&mut rendering);
        } else {
            dci = dci.push_next(&mut e13);
        }
        let dci = dci.enabled_extension_names(&dev_ext_names);
        let mut device =
            unsafe { instance.create_device(physical, &dci, None) }.vk("vkCreateDevice")?;
        if via_khr {
            // Same entry points, KHR names first (`vkCmdPipelineBarrier2KHR` for `…2`).
            let gdpa = instance.fp_v1_0().get_device_proc_addr;
            let handle = device.handle();
            device = unsafe {
                ash::Device::load_with(
                    |n| {
                        let khr = CString::new([n.to_bytes(), b"KHR"].concat()).unwrap_or_default();
                        match gdpa(handle, khr.as_ptr()).or_else(|| gdpa(handle, n.as_ptr())) {
                            Some(f) => f as *const c_void,
                            None => std::ptr::null(),
                        }
                    },
                    handle,
                )
            };
        }

        let ts_bits = |fam: u32| families[fam as usize].timestamp_valid_bits;
        let universal = Queue {
            family: universal_family,
            raw: unsafe { device.get_device_queue(universal_family, 0) },
            timestamp_bits: ts_bits(universal_family),
            lock: Mutex::new(()),
        };
        let transfer = transfer_family.map(|t| Queue {
            family: t,
            raw: unsafe { device.get_device_queue(t, 0) },
            timestamp_bits: ts_bits(t),
            lock: Mutex::new(()),
        });

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

        let l = props.limits;
        let driver = {
            let mut dp = vk::PhysicalDeviceDriverProperties::default();
            let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut dp);
            unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
            let n = dp
                .driver_name_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default();
            let i = dp
                .driver_info_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{n} {i}").trim().to_string()
        };
        let info = DeviceInfo {
            name: name.clone(),
            kind: props.device_type,
            api_version: props.api_version,
            driver,
            max_storage_buffer_range: l.max_storage_buffer_range as u64,
            max_compute_workgroup_invocations: l.max_compute_work_group_invocations,
            max_compute_workgroup_count: l.max_compute_work_group_count,
            max_compute_shared_memory: l.max_compute_shared_memory_size,
            max_image_array_layers: l.max_image_array_layers,
            max_image_dimension_2d: l.max_image_dimension2_d,
            max_push_constants: l.max_push_constants_size,
            timestamp_period: l.timestamp_period as f64,
            wide_lines: base.wide_lines != 0,
            fill_mode_non_solid: base.fill_mode_non_solid != 0,
        };
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

        let push_descriptor = ash::khr::push_descriptor::Device::new(&instance, &device);
        let debug_utils_dev = debug_instance
            .as_ref()
            .map(|_| ash::ext::debug_utils::Device::new(&instance, &device));
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
        })
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

    pub(crate) fn with_allocator<T>(&self, f: impl FnOnce(&mut Allocator) -> T) -> T {
        let mut guard = self.allocator.lock();
        f(guard
            .as_mut()
            .expect("allocator lives until the context drops"))
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
        let allocation = self
            .with_allocator(|a| a.allocate(&alloc_desc(name, req, desc.memory, true)))
            .map_err(|e| {
                unsafe { self.device.destroy_buffer(buffer, None) };
                Error::Alloc {
                    name: name.into(),
                    message: e.to_string(),
                }
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
        let allocation = self
            .with_allocator(|a| {
                a.allocate(&alloc_desc(name, req, crate::resource::Memory::Gpu, false))
            })
            .map_err(|e| {
                unsafe { self.device.destroy_image(image, None) };
                Error::Alloc {
                    name: name.into(),
                    message: e.to_string(),
                }
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

fn pick_device(instance: &ash::Instance, wanted: Option<&str>) -> Result<vk::PhysicalDevice> {
    let devices =
        unsafe { instance.enumerate_physical_devices() }.vk("vkEnumeratePhysicalDevices")?;
    if devices.is_empty() {
        return Err(Error::NoDevice);
    }
    let names: Vec<String> = devices
        .iter()
        .map(|&d| {
            let p = unsafe { instance.get_physical_device_properties(d) };
            p.device_name_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    if let Some(w) = wanted {
        if let Ok(i) = w.parse::<usize>() {
            if let Some(&d) = devices.get(i) {
                return Ok(d);
            }
        }
        let lw = w.to_lowercase();
        if let Some(i) = names.iter().position(|n| n.to_lowercase().contains(&lw)) {
            return Ok(devices[i]);
        }
        let available = names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i}: {n}"))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(Error::DeviceNotFound {
            wanted: w.into(),
            available,
        });
    }
    let rank = |d: vk::PhysicalDevice| match unsafe { instance.get_physical_device_properties(d) }
        .device_type
    {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    };
    Ok(*devices.iter().min_by_key(|&&d| rank(d)).expect("non-empty"))
}
