//! Device selection and creation: `pick_device` (by index, name or type), the features
//! Planetfall requires (checked up front, each failure naming the feature), the optional ones
//! enabled where present (`shaderFloat64` among them: only the GPU tile derivation needs it,
//! and it checks `DeviceInfo::shader_float64` with its own error, so a device without f64 still
//! renders), the logical device with its universal and transfer queues, and
//! [`DeviceInfo`], the limits the rest of the program sizes itself from.

use super::Queue;
use crate::error::{Error, Result, VkCheck};
use ash::vk;
use parking_lot::Mutex;
use std::ffi::{c_char, c_void, CStr, CString};

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
    /// `shaderFloat64`, enabled when present: the GPU tile derivation (`tiles.derive`) needs
    /// it and says so when it is missing; nothing else does.
    pub shader_float64: bool,
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

/// The 1.3 features we use, as extensions for a device that reports 1.2.
const KHR13: [&CStr; 2] = [
    ash::khr::synchronization2::NAME,
    ash::khr::dynamic_rendering::NAME,
];

/// What the chosen device supports, copied out of the feature query so the requirement
/// check and the enables read one plain value.
pub(super) struct Supported {
    pub props: vk::PhysicalDeviceProperties,
    pub name: String,
    pub base: vk::PhysicalDeviceFeatures,
    storage_buffer16_bit_access: bool,
    shader_shared_int64_atomics: bool,
    scalar_block_layout: bool,
    shader_int8: bool,
    storage_buffer8_bit_access: bool,
    maintenance4: bool,
    /// VK_KHR_pipeline_executable_properties with its `pipelineExecutableInfo` feature.
    pub pipeline_executable_info: bool,
    /// 1.3 features come from their KHR extensions (the device reports 1.2).
    pub via_khr: bool,
}

pub(super) fn pick_device(
    instance: &ash::Instance,
    wanted: Option<&str>,
) -> Result<vk::PhysicalDevice> {
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

/// Query the device's features and fail, naming the first missing one, unless it has every
/// feature in `REQUIRED` and Vulkan 1.3 (or 1.2 with the KHR extensions 1.3 absorbed).
pub(super) fn check_features(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> Result<Supported> {
    let props = unsafe { instance.get_physical_device_properties(physical) };
    let name = props
        .device_name_as_c_str()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();

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
    let via_khr = props.api_version < vk::API_VERSION_1_3;
    if via_khr && !(props.api_version >= vk::API_VERSION_1_2 && KHR13.iter().all(|n| has_dev(n))) {
        return Err(Error::MissingFeature {
            device: name.clone(),
            feature: "Vulkan 1.3",
        });
    }
    // The extension's feature is queried only where the extension exists (a feature struct of
    // an absent extension may not be chained).
    let pipeline_executable_info = has_dev(ash::khr::pipeline_executable_properties::NAME) && {
        let mut fe = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut fe);
        unsafe { instance.get_physical_device_features2(physical, &mut f2) };
        fe.pipeline_executable_info != 0
    };
    if via_khr {
        log::info!("device `{name}` reports Vulkan 1.2 (a capture layer?): using VK_KHR_synchronization2 and VK_KHR_dynamic_rendering");
    }
    Ok(Supported {
        props,
        name,
        base,
        storage_buffer16_bit_access: f11.storage_buffer16_bit_access != 0,
        shader_shared_int64_atomics: f12.shader_shared_int64_atomics != 0,
        scalar_block_layout: f12.scalar_block_layout != 0,
        shader_int8: f12.shader_int8 != 0,
        storage_buffer8_bit_access: f12.storage_buffer8_bit_access != 0,
        maintenance4: f13.maintenance4 != 0,
        pipeline_executable_info,
        via_khr,
    })
}

/// The logical device and its queues: the universal graphics+compute queue, and a dedicated
/// transfer queue where the device has a transfer-only family (unless `PLANETFALL_SINGLE_QUEUE`
/// is set). Enables exactly the required features plus the optional ones present.
pub(super) fn create_device(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    sup: &Supported,
    swapchain: bool,
    pipeline_statistics: bool,
) -> Result<(ash::Device, Queue, Option<Queue>)> {
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let gc = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
    let universal_family = families
        .iter()
        .position(|f| f.queue_flags.contains(gc))
        .ok_or(Error::MissingFeature {
            device: sup.name.clone(),
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

    let base = &sup.base;
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
        .storage_buffer16_bit_access(sup.storage_buffer16_bit_access);
    let mut e12 = vk::PhysicalDeviceVulkan12Features::default()
        .shader_buffer_int64_atomics(true)
        .shader_shared_int64_atomics(sup.shader_shared_int64_atomics)
        .timeline_semaphore(true)
        .draw_indirect_count(true)
        .host_query_reset(true)
        .scalar_block_layout(sup.scalar_block_layout)
        .shader_int8(sup.shader_int8)
        .storage_buffer8_bit_access(sup.storage_buffer8_bit_access);
    let mut e13 = vk::PhysicalDeviceVulkan13Features::default()
        .synchronization2(true)
        .dynamic_rendering(true)
        .maintenance4(sup.maintenance4);
    let mut sync2 = vk::PhysicalDeviceSynchronization2Features::default().synchronization2(true);
    let mut rendering =
        vk::PhysicalDeviceDynamicRenderingFeatures::default().dynamic_rendering(true);
    let mut dev_ext_names: Vec<*const c_char> = vec![ash::khr::push_descriptor::NAME.as_ptr()];
    if swapchain {
        dev_ext_names.push(ash::khr::swapchain::NAME.as_ptr());
    }
    let mut executable_info = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);
    if pipeline_statistics {
        dev_ext_names.push(ash::khr::pipeline_executable_properties::NAME.as_ptr());
    }
    let mut dci = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queue_infos)
        .enabled_features(&enabled)
        .push_next(&mut e11)
        .push_next(&mut e12);
    if sup.via_khr {
        dev_ext_names.extend(KHR13.iter().map(|n| n.as_ptr()));
        dci = dci.push_next(&mut sync2).push_next(&mut rendering);
    } else {
        dci = dci.push_next(&mut e13);
    }
    if pipeline_statistics {
        dci = dci.push_next(&mut executable_info);
    }
    let dci = dci.enabled_extension_names(&dev_ext_names);
    let mut device =
        unsafe { instance.create_device(physical, &dci, None) }.vk("vkCreateDevice")?;
    if sup.via_khr {
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
    Ok((device, universal, transfer))
}

/// The limits and names `DeviceInfo` reports, driver name and version included.
pub(super) fn device_info(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    sup: &Supported,
) -> DeviceInfo {
    let l = sup.props.limits;
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
    DeviceInfo {
        name: sup.name.clone(),
        kind: sup.props.device_type,
        api_version: sup.props.api_version,
        driver,
        max_storage_buffer_range: l.max_storage_buffer_range as u64,
        max_compute_workgroup_invocations: l.max_compute_work_group_invocations,
        max_compute_workgroup_count: l.max_compute_work_group_count,
        max_compute_shared_memory: l.max_compute_shared_memory_size,
        max_image_array_layers: l.max_image_array_layers,
        max_image_dimension_2d: l.max_image_dimension2_d,
        max_push_constants: l.max_push_constants_size,
        timestamp_period: l.timestamp_period as f64,
        wide_lines: sup.base.wide_lines != 0,
        fill_mode_non_solid: sup.base.fill_mode_non_solid != 0,
        shader_float64: sup.base.shader_float64 != 0,
    }
}
