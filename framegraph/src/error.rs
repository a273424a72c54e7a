//! Errors of the frame-graph crate: [`Error`], [`Result`] and `VkCheck` (a failed Vulkan call
//! becomes `Error::Vk` naming the call).

use ash::vk;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the Vulkan loader (libvulkan.so.1) could not be loaded: {0}. On Debian: apt-get install libvulkan1 mesa-vulkan-drivers")]
    Loader(String),
    #[error("no Vulkan device found. On a machine without a GPU install lavapipe: apt-get install mesa-vulkan-drivers")]
    NoDevice,
    #[error("no Vulkan device matches `{wanted}`; devices here: {available}")]
    DeviceNotFound { wanted: String, available: String },
    #[error("device `{device}` lacks {feature}, which Planetfall needs")]
    MissingFeature {
        device: String,
        feature: &'static str,
    },
    #[error("the Khronos validation layer was requested but is not installed. On Debian: apt-get install vulkan-validationlayers")]
    NoValidationLayer,
    #[error("Vulkan call {call} failed: {result}")]
    Vk {
        call: &'static str,
        result: vk::Result,
    },
    #[error("GPU memory allocation for `{name}` failed: {message}")]
    Alloc { name: String, message: String },
    #[error("buffer `{0}` is not host-visible")]
    NotMapped(String),
    #[error("write past the end of `{resource}` (byte {end} of {size})")]
    OutOfRange {
        resource: String,
        end: u64,
        size: u64,
    },
    #[error("the device was lost during node `{node}` (frame {frame}); last node completed: {last_completed}")]
    DeviceLost {
        node: String,
        frame: u64,
        last_completed: String,
    },
    #[error(transparent)]
    Compile(#[from] crate::compile::CompileError),
    #[error("pipeline for `{shader}` could not be created: {result}")]
    Pipeline { shader: String, result: vk::Result },
    #[error("readback `{0}` does not exist in this frame")]
    NoReadback(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) trait VkCheck<T> {
    fn vk(self, call: &'static str) -> Result<T>;
}

impl<T> VkCheck<T> for std::result::Result<T, vk::Result> {
    fn vk(self, call: &'static str) -> Result<T> {
        self.map_err(|result| Error::Vk { call, result })
    }
}
