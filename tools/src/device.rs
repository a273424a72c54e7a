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
}

impl GpuArgs {
    pub fn context(&self) -> Result<Context> {
        let opts = ContextOptions {
            validation: self.validation,
            device: self.device.clone(),
            ..Default::default()
        };
        Context::new(&opts).context("creating the Vulkan context")
    }
}
