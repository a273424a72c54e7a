//! Planetfall's declarative frame graph over raw Vulkan (ash).
//!
//! A frame is declared as nodes over typed, versioned resource handles ([`graph`]); compiling
//! it ([`compile`]) is pure — ordering, culling, synchronization2 barriers, queue hand-offs
//! and transient aliasing are decided without a device and unit-tested; executing it
//! ([`exec`]) records every node inside a debug label, a puffin scope and GPU timestamps.
//! This crate knows nothing about planets.

pub mod access;
pub mod compile;
pub mod context;
pub mod dump;
pub mod error;
pub mod exec;
pub mod graph;
pub mod pipeline;
pub mod resource;
pub mod shader;
pub mod swapchain;

pub use access::Access;
pub use compile::{CompiledGraph, QueueSetup};
pub use context::{Context, ContextOptions};
pub use error::{Error, Result};
pub use exec::{Executor, FrameOutput, FrameSync};
pub use graph::{BufferRef, Graph, ImageRef, LoadOp, QueueKind, RasterState};
pub use resource::{BufferDesc, GpuBuffer, GpuImage, ImageDesc, Memory};
pub use shader::{Shader, ShaderStage};
pub use swapchain::{Acquired, Swapchain, SwapchainError};
