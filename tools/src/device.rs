//! Options every GPU subcommand shares, and the context they make.

use anyhow::{Context as _, Result};
use framegraph::{Context, ContextOptions};

#[derive(clap::Args, Clone, Debug, Default)]
pub struct GpuArgs {
    /// Vulkan device by index or name substring (default: prefer a discrete GPU).
    #[arg(long, env = "PLANETFALL_DEVICE")]
    pub device: Option<String>,
    /// Enable the Khronos validation layer with synchronization validation.
    #[arg(long, env = "PLANETFALL_VALIDATION")]
    pub validation: bool,
    /// Tiles a flying frame makes on the GPU (`tiles.derive`, `tiles.amplify.*`); 0: the CPU
    /// workers make them. Default: 16 on a GPU with f64 shaders, 0 on a CPU device (lavapipe).
    #[arg(long, env = "PLANETFALL_GPU_TILES")]
    pub gpu_tiles: Option<usize>,
}

/// `--gpu-tiles` as the last context was made with it.
static GPU_TILES: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();

/// Tiles a non-waiting frame makes on the GPU on `ctx`: `--gpu-tiles`, or the device default.
pub fn gpu_tiles_per_frame(ctx: &Context) -> usize {
    GPU_TILES
        .get()
        .copied()
        .flatten()
        .unwrap_or_else(|| engine::renderer::default_gpu_tiles_per_frame(ctx))
}

impl GpuArgs {
    pub fn context(&self) -> Result<Context> {
        let _ = GPU_TILES.set(self.gpu_tiles);
        let opts = ContextOptions {
            validation: self.validation,
            device: self.device.clone(),
            ..Default::default()
        };
        Context::new(&opts).context("creating the Vulkan context")
    }
}
