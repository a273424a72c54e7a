//! The Vulkan instance and its debug messenger: [`MessageLog`] (what validation reported),
//! the messenger callback that fills it, and `create_instance`, which enables the Khronos
//! validation layer (with synchronization validation) when asked.
//!
//! The messenger is also chained into instance creation so that messages raised while the
//! instance itself is created or destroyed are logged too.

use super::ContextOptions;
use crate::error::{Error, Result, VkCheck};
use ash::vk;
use parking_lot::Mutex;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

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

/// The debug-utils instance functions and the messenger made with them.
pub(super) type DebugMessenger = (ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT);

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

/// Create the instance with the window system's extensions, debug utils where the loader has
/// them, and the validation layer when `opts.validation`; messages go to `messages`, which
/// must outlive the messenger (the context holds both).
pub(super) fn create_instance(
    entry: &ash::Entry,
    opts: &ContextOptions,
    messages: &Arc<MessageLog>,
) -> Result<(ash::Instance, Option<DebugMessenger>)> {
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
    let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
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
        .user_data(Arc::as_ptr(messages) as *mut c_void);
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
    let messenger = if debug_utils {
        let di = ash::ext::debug_utils::Instance::new(entry, &instance);
        let m = unsafe { di.create_debug_utils_messenger(&messenger_info, None) }
            .vk("vkCreateDebugUtilsMessengerEXT")?;
        Some((di, m))
    } else {
        None
    };
    Ok((instance, messenger))
}
