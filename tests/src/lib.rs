//! Shared helpers for Planetfall's integration tests.
//!
//! Every GPU test runs on whatever Vulkan device is present (lavapipe on CI) with the Khronos
//! validation layer and synchronization validation on; any validation message fails the test.

use framegraph::{Context, ContextOptions, Executor};

/// A validated GPU context plus an executor; checks the validation log when dropped.
pub struct Gpu {
    pub exec: Executor,
    pub ctx: Context,
}

impl Gpu {
    /// Panics with an actionable message when Vulkan or the validation layer is missing.
    pub fn new() -> Gpu {
        let _ = env_logger_init();
        let opts = ContextOptions { validation: true, device: std::env::var("PLANETFALL_DEVICE").ok(), ..Default::default() };
        let ctx = Context::new(&opts).unwrap_or_else(|e| panic!("GPU tests need Vulkan with validation: {e}"));
        let exec = Executor::new(&ctx, 2).expect("executor");
        Gpu { exec, ctx }
    }

    /// Fail if the validation layer said anything so far.
    pub fn assert_clean(&self) {
        let msgs = self.ctx.messages.messages();
        assert!(msgs.is_empty(), "{} validation message(s):\n{}", msgs.len(), msgs.join("\n---\n"));
    }
}

impl Default for Gpu {
    fn default() -> Self {
        Gpu::new()
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        self.exec.destroy(&self.ctx);
        if !std::thread::panicking() {
            self.assert_clean();
        }
    }
}

fn env_logger_init() -> Result<(), ()> {
    // Tests share a process; only the first initialisation succeeds.
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = env_logger_try_init();
    });
    Ok(())
}

fn env_logger_try_init() -> Result<(), ()> {
    Ok(())
}
