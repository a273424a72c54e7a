//! Planetfall's declarative frame graph over raw Vulkan (ash).
//!
//! A frame is declared as nodes over typed, versioned resource handles ([`graph`]); compiling
//! it ([`compile`]) is pure — ordering, culling, synchronization2 barriers, queue hand-offs
//! and transient aliasing are decided without a device and unit-tested; executing it
//! ([`exec`]) records every node inside a debug label, a puffin scope and GPU timestamps.
//! This crate knows nothing about planets.
//!
//! The modules form two layers. Pure ones — descriptions ([`desc`], [`queue`], [`access`],
//! [`shader`]), declarations ([`graph`]), the compiler ([`compile`]), [`dump`] and [`error`] —
//! own no Vulkan object. Owning ones — [`context`], [`resource`], [`pipeline`], [`exec`],
//! [`swapchain`] — build on them, never the other way round, so compiling needs no device in
//! its imports either. `tests/module_layers.rs` reads the sources and fails on a module cycle
//! or on a pure module that reaches an owning one.

// Pure: descriptions, declarations and the compiler. None of these imports a module below.
pub mod access;
pub mod compile;
pub mod desc;
pub mod dump;
pub mod error;
pub mod graph;
pub mod queue;
pub mod shader;

// Owning Vulkan objects: these build on the pure modules, never the other way round.
pub mod context;
pub mod exec;
pub mod pipeline;
pub mod resource;
pub mod swapchain;

pub use access::Access;
pub use compile::CompiledGraph;
pub use context::{Context, ContextOptions};
pub use desc::{BufferDesc, ImageDesc, Memory};
pub use error::{Error, Result};
pub use exec::{Executor, FrameOutput, FrameSync};
pub use graph::{BufferRef, Graph, ImageRef, LoadOp, RasterState};
pub use queue::{QueueKind, QueueSetup};
pub use resource::{GpuBuffer, GpuImage};
pub use shader::{Shader, ShaderStage};
pub use swapchain::{Acquired, Swapchain, SwapchainError};
