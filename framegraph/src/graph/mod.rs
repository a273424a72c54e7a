//! Declaring a frame: resources (imported or transient), nodes and how each node touches each
//! resource. Nothing here talks to the GPU; `Graph::compile` is a pure function of what was
//! declared (see `compile/mod.rs`, with barrier planning in `compile/barriers.rs`).
//!
//! Holds [`Graph`] and its resource and node declarations: the typed, versioned handles
//! ([`Handle`], [`BufferRef`], [`ImageRef`]), [`ResourceDecl`] / [`ResourceDesc`] / [`Origin`] /
//! [`RawResource`], [`NodeDecl`] / [`Use`] / [`NodeKind`], the work a node records ([`Work`],
//! [`Dispatch`], [`Draw`], [`CopyOp`], [`LoadOp`], [`RasterState`], [`RecordCtx`]) and
//! [`GraphError`]. The node builders are in `nodes.rs`; [`QueueKind`] is re-exported from
//! `queue`. Importing owned `GpuBuffer`s / `GpuImage`s is in `resource`, so that declarations
//! name only descriptions and raw handles.

use crate::access::Access;
use crate::desc::{format_bytes, BufferDesc, ImageDesc, TrackedState};
use crate::shader::{BindingKind, Shader, ShaderStage};
use ash::vk;
use parking_lot::Mutex;
use std::marker::PhantomData;
use std::sync::Arc;

mod nodes;
pub use nodes::{BindTarget, ComputeNode, CustomNode, RasterNode, TransferNode};

pub use crate::queue::QueueKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferKind;
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageKind;

/// A typed, versioned handle. Reads take it by value; writes take `&mut` and bump its version,
/// so a later read of the old value is caught at compile time.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Handle<K> {
    pub(crate) id: u32,
    pub(crate) version: u32,
    _kind: PhantomData<K>,
}
impl<K> Clone for Handle<K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K> Copy for Handle<K> {}
impl<K> Handle<K> {
    fn new(id: u32) -> Self {
        Handle {
            id,
            version: 0,
            _kind: PhantomData,
        }
    }
    pub fn id(&self) -> u32 {
        self.id
    }
    pub fn version(&self) -> u32 {
        self.version
    }
}
pub type BufferRef = Handle<BufferKind>;
pub type ImageRef = Handle<ImageKind>;

/// Where a resource comes from.
#[derive(Clone, Debug)]
pub enum Origin {
    /// Allocated by the graph for this frame (may alias others' memory).
    Transient,
    /// Owned outside the graph; keeps contents across frames. Writes to it are sinks.
    Imported {
        raw: RawResource,
        state: Arc<Mutex<TrackedState>>,
        external: bool,
    },
}

/// Raw Vulkan objects of an imported resource (null handles in GPU-less tests).
#[derive(Clone, Copy, Debug)]
pub enum RawResource {
    Buffer(vk::Buffer),
    Image {
        image: vk::Image,
        view: vk::ImageView,
    },
}

#[derive(Clone, Debug)]
pub enum ResourceDesc {
    Buffer(BufferDesc),
    Image(ImageDesc),
}

#[derive(Clone, Debug)]
pub struct ResourceDecl {
    pub name: String,
    pub desc: ResourceDesc,
    pub origin: Origin,
}

impl ResourceDecl {
    pub fn is_image(&self) -> bool {
        matches!(self.desc, ResourceDesc::Image(_))
    }
    pub fn is_transient(&self) -> bool {
        matches!(self.origin, Origin::Transient)
    }
}

/// One declared access of a node.
#[derive(Clone, Debug)]
pub struct Use {
    pub res: u32,
    pub access: Access,
    /// Version read (None for a pure overwrite).
    pub reads: Option<u32>,
    /// Version produced (for writes).
    pub writes: Option<u32>,
    /// Descriptor binding name, if bound to a shader.
    pub binding: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoadOp {
    Load,
    Clear([f32; 4]),
    ClearUint([u32; 4]),
    DontCare,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RasterState {
    pub topology: vk::PrimitiveTopology,
    pub polygon_mode: vk::PolygonMode,
    pub cull_mode: vk::CullModeFlags,
    pub front_face: vk::FrontFace,
    pub depth_test: bool,
    pub depth_write: bool,
    /// Reverse-Z: GREATER passes.
    pub depth_compare: vk::CompareOp,
    pub alpha_blend: bool,
    pub line_width_x10: u32,
}

impl Default for RasterState {
    fn default() -> Self {
        RasterState {
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            polygon_mode: vk::PolygonMode::FILL,
            cull_mode: vk::CullModeFlags::NONE,
            front_face: vk::FrontFace::COUNTER_CLOCKWISE,
            depth_test: false,
            depth_write: false,
            depth_compare: vk::CompareOp::GREATER_OR_EQUAL,
            alpha_blend: false,
            line_width_x10: 10,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Dispatch {
    Groups([u32; 3]),
    Indirect { args: u32, offset: u64 },
}

#[derive(Clone, Copy, Debug)]
pub enum Draw {
    Direct {
        vertices: u32,
        instances: u32,
    },
    Indirect {
        args: u32,
        offset: u64,
        draw_count: u32,
        stride: u32,
    },
    IndirectCount {
        args: u32,
        offset: u64,
        count: u32,
        count_offset: u64,
        max_draws: u32,
        stride: u32,
    },
}

#[derive(Clone, Debug)]
pub enum CopyOp {
    Buffer {
        src: u32,
        dst: u32,
        regions: Vec<vk::BufferCopy>,
    },
    BufferToImage {
        src: u32,
        dst: u32,
        regions: Vec<vk::BufferImageCopy>,
    },
    ImageToBuffer {
        src: u32,
        dst: u32,
        regions: Vec<vk::BufferImageCopy>,
    },
    Fill {
        dst: u32,
        offset: u64,
        size: u64,
        value: u32,
    },
    Update {
        dst: u32,
        offset: u64,
        data: Vec<u8>,
    },
    ClearColor {
        dst: u32,
        value: [u32; 4],
    },
}

/// Context handed to custom record closures.
pub struct RecordCtx<'r> {
    pub device: &'r ash::Device,
    pub cmd: vk::CommandBuffer,
    pub(crate) buffers: &'r dyn Fn(u32) -> vk::Buffer,
    pub(crate) images: &'r dyn Fn(u32) -> (vk::Image, vk::ImageView),
}

impl RecordCtx<'_> {
    pub fn buffer(&self, h: BufferRef) -> vk::Buffer {
        (self.buffers)(h.id)
    }
    pub fn image(&self, h: ImageRef) -> (vk::Image, vk::ImageView) {
        (self.images)(h.id)
    }
}

pub type RecordFn<'a> = Box<dyn FnOnce(&mut RecordCtx) + 'a>;

pub enum Work<'a> {
    None,
    Compute {
        shader: &'static Shader,
        push: Vec<u8>,
        dispatch: Dispatch,
    },
    Raster {
        vs: &'static Shader,
        fs: &'static Shader,
        state: RasterState,
        push: Vec<u8>,
        colors: Vec<(u32, LoadOp)>,
        depth: Option<(u32, LoadOp)>,
        draw: Draw,
    },
    Transfer(Vec<CopyOp>),
    Custom(RecordFn<'a>),
}

impl std::fmt::Debug for Work<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Work::None => write!(f, "none"),
            Work::Compute { shader, .. } => write!(f, "compute {}", shader.path),
            Work::Raster { vs, fs, .. } => write!(f, "raster {} + {}", vs.path, fs.path),
            Work::Transfer(ops) => write!(f, "transfer ×{}", ops.len()),
            Work::Custom(_) => write!(f, "custom"),
        }
    }
}

/// What a node is, for checks and dumps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Compute,
    Raster,
    Transfer,
    Custom,
    Present,
}

#[derive(Debug)]
pub struct NodeDecl<'a> {
    pub name: String,
    pub kind: NodeKind,
    pub queue: QueueKind,
    pub uses: Vec<Use>,
    pub work: Work<'a>,
    /// Kept even if nothing reads its outputs (present, readback, explicit side effect).
    pub sink: bool,
}

/// A declaration error, reported by `compile` with the node's name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("node `{node}` reads `{resource}` version {got}, but version {current} was already written — read the newest handle or order the nodes")]
    StaleRead {
        node: String,
        resource: String,
        got: u32,
        current: u32,
    },
    #[error("node `{node}` binds `{binding}`, which shader `{shader}` does not use")]
    UnknownBinding {
        node: String,
        binding: String,
        shader: String,
    },
    #[error("node `{node}` does not bind `{binding}`, which shader `{shader}` uses (set {set}, binding {index})")]
    MissingBinding {
        node: String,
        binding: String,
        shader: String,
        set: u32,
        index: u32,
    },
    #[error(
        "node `{node}` binds `{binding}` as {declared}, but shader `{shader}` declares it {actual}"
    )]
    BindingMismatch {
        node: String,
        binding: String,
        shader: String,
        declared: String,
        actual: String,
    },
    #[error(
        "node `{node}` pushes {got} bytes of constants; shader `{shader}` declares {expected}"
    )]
    PushConstants {
        node: String,
        shader: String,
        got: usize,
        expected: u32,
    },
    #[error("node `{node}` touches `{resource}` in incompatible ways (two image layouts)")]
    Conflict { node: String, resource: String },
    #[error("node `{node}` declares no work")]
    NoWork { node: String },
    #[error("node `{node}` on the transfer queue makes a non-transfer access to `{resource}`")]
    QueueAccess { node: String, resource: String },
    #[error("shader `{shader}` could not be reflected: {message}")]
    Reflection { shader: String, message: String },
    #[error(
        "node `{node}` uses shader `{shader}` as a {stage:?} shader, but it is a {actual:?} shader"
    )]
    WrongStage {
        node: String,
        shader: String,
        stage: ShaderStage,
        actual: ShaderStage,
    },
}

/// A frame's declarations.
#[derive(Default)]
pub struct Graph<'a> {
    pub(crate) resources: Vec<ResourceDecl>,
    pub(crate) versions: Vec<u32>,
    pub(crate) nodes: Vec<NodeDecl<'a>>,
    pub(crate) errors: Vec<GraphError>,
    pub(crate) readbacks: Vec<(String, u32)>,
}

impl<'a> Graph<'a> {
    pub fn new() -> Self {
        Graph::default()
    }

    fn add_resource(&mut self, name: &str, desc: ResourceDesc, origin: Origin) -> u32 {
        self.resources.push(ResourceDecl {
            name: name.to_string(),
            desc,
            origin,
        });
        self.versions.push(0);
        (self.resources.len() - 1) as u32
    }

    pub fn create_buffer(&mut self, name: &str, desc: BufferDesc) -> BufferRef {
        Handle::new(self.add_resource(name, ResourceDesc::Buffer(desc), Origin::Transient))
    }

    pub fn create_image(&mut self, name: &str, desc: ImageDesc) -> ImageRef {
        Handle::new(self.add_resource(name, ResourceDesc::Image(desc), Origin::Transient))
    }

    /// Import a buffer that lives across frames. `state` is its access state at the end of the
    /// previous frame; the executor updates it.
    pub fn import_buffer_raw(
        &mut self,
        name: &str,
        desc: BufferDesc,
        raw: vk::Buffer,
        state: Arc<Mutex<TrackedState>>,
    ) -> BufferRef {
        let origin = Origin::Imported {
            raw: RawResource::Buffer(raw),
            state,
            external: false,
        };
        Handle::new(self.add_resource(name, ResourceDesc::Buffer(desc), origin))
    }

    /// Import an image that lives across frames (or a swapchain image, `external`).
    pub fn import_image_raw(
        &mut self,
        name: &str,
        desc: ImageDesc,
        image: vk::Image,
        view: vk::ImageView,
        state: Arc<Mutex<TrackedState>>,
        external: bool,
    ) -> ImageRef {
        let origin = Origin::Imported {
            raw: RawResource::Image { image, view },
            state,
            external,
        };
        Handle::new(self.add_resource(name, ResourceDesc::Image(desc), origin))
    }

    pub fn resource_name(&self, id: u32) -> &str {
        &self.resources[id as usize].name
    }

    fn push_node(&mut self, name: &str, kind: NodeKind, work: Work<'a>) -> usize {
        self.nodes.push(NodeDecl {
            name: name.to_string(),
            kind,
            queue: QueueKind::Universal,
            uses: Vec::new(),
            work,
            sink: false,
        });
        self.nodes.len() - 1
    }

    /// Record a read of the newest version (checks staleness).
    fn use_read(
        &mut self,
        node: usize,
        res: u32,
        version: u32,
        access: Access,
        binding: Option<String>,
    ) {
        let current = self.versions[res as usize];
        if version != current {
            self.errors.push(GraphError::StaleRead {
                node: self.nodes[node].name.clone(),
                resource: self.resources[res as usize].name.clone(),
                got: version,
                current,
            });
        }
        self.nodes[node].uses.push(Use {
            res,
            access,
            reads: Some(version),
            writes: None,
            binding,
        });
    }

    /// Record a write; `preserve` says whether the old contents are read (read-modify-write,
    /// loads) or overwritten. Returns the new version.
    fn use_write(
        &mut self,
        node: usize,
        res: u32,
        version: u32,
        access: Access,
        binding: Option<String>,
        preserve: bool,
    ) -> u32 {
        let current = self.versions[res as usize];
        if version != current {
            self.errors.push(GraphError::StaleRead {
                node: self.nodes[node].name.clone(),
                resource: self.resources[res as usize].name.clone(),
                got: version,
                current,
            });
        }
        let new = current + 1;
        self.versions[res as usize] = new;
        let reads = preserve.then_some(current);
        self.nodes[node].uses.push(Use {
            res,
            access,
            reads,
            writes: Some(new),
            binding,
        });
        new
    }

    /// A compute node running `shader`.
    pub fn compute(&mut self, name: &str, shader: &'static Shader) -> ComputeNode<'_, 'a> {
        let node = self.push_node(name, NodeKind::Compute, Work::None);
        if shader.stage != ShaderStage::Compute {
            self.errors.push(GraphError::WrongStage {
                node: name.into(),
                shader: shader.name.into(),
                stage: ShaderStage::Compute,
                actual: shader.stage,
            });
        }
        ComputeNode {
            g: self,
            node,
            shader,
            push: Vec::new(),
        }
    }

    /// A raster node with a vertex and a fragment shader (dynamic rendering).
    pub fn raster(
        &mut self,
        name: &str,
        vs: &'static Shader,
        fs: &'static Shader,
    ) -> RasterNode<'_, 'a> {
        let node = self.push_node(name, NodeKind::Raster, Work::None);
        for (s, want) in [(vs, ShaderStage::Vertex), (fs, ShaderStage::Fragment)] {
            if s.stage != want {
                self.errors.push(GraphError::WrongStage {
                    node: name.into(),
                    shader: s.name.into(),
                    stage: want,
                    actual: s.stage,
                });
            }
        }
        RasterNode {
            g: self,
            node,
            vs,
            fs,
            state: RasterState::default(),
            push: Vec::new(),
            colors: Vec::new(),
            depth: None,
        }
    }

    /// A node of copies/fills/updates; `.queue(QueueKind::AsyncTransfer)` moves it off the
    /// universal queue where the device allows.
    pub fn transfer(&mut self, name: &str) -> TransferNode<'_, 'a> {
        let node = self.push_node(name, NodeKind::Transfer, Work::Transfer(Vec::new()));
        TransferNode { g: self, node }
    }

    /// A node recorded by a closure, over explicitly declared accesses.
    pub fn custom(&mut self, name: &str) -> CustomNode<'_, 'a> {
        let node = self.push_node(name, NodeKind::Custom, Work::None);
        CustomNode { g: self, node }
    }

    /// Copy `buf` into a host-visible buffer; its bytes are available from the executed frame
    /// under `name`. The copy node is a sink.
    pub fn readback(&mut self, name: &str, buf: BufferRef) {
        let size = match &self.resources[buf.id as usize].desc {
            ResourceDesc::Buffer(d) => d.size,
            ResourceDesc::Image(_) => 0,
        };
        let mut dst = self.create_buffer(&format!("{name}.host"), BufferDesc::readback(size));
        let node_name = format!("readback.{name}");
        self.transfer(&node_name)
            .copy_buffer(buf, &mut dst, 0, 0, size);
        self.host_read(name, dst);
    }

    /// Copy an image into a host-visible buffer (tightly packed rows), read back under `name`.
    pub fn readback_image(&mut self, name: &str, img: ImageRef) {
        let (extent, layers, texel) = match &self.resources[img.id as usize].desc {
            ResourceDesc::Image(d) => (d.extent, d.layers, format_bytes(d.format)),
            ResourceDesc::Buffer(_) => ([0; 3], 1, 0),
        };
        let size = extent[0] as u64 * extent[1] as u64 * extent[2] as u64 * layers as u64 * texel;
        let mut dst = self.create_buffer(&format!("{name}.host"), BufferDesc::readback(size));
        let node_name = format!("readback.{name}");
        let region = vk::BufferImageCopy::default()
            .image_subresource(
                vk::ImageSubresourceLayers::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .layer_count(layers),
            )
            .image_extent(vk::Extent3D {
                width: extent[0],
                height: extent[1],
                depth: extent[2],
            });
        self.transfer(&node_name)
            .copy_image_to_buffer(img, &mut dst, vec![region]);
        self.host_read(name, dst);
    }

    /// The host reads `dst` after the frame: a command-less sink node whose barrier makes
    /// the copy visible to the host.
    fn host_read(&mut self, name: &str, dst: BufferRef) {
        let n = self.push_node(
            &format!("readback.{name}.host"),
            NodeKind::Custom,
            Work::None,
        );
        self.use_read(n, dst.id, dst.version, Access::HostRead, None);
        self.nodes[n].sink = true;
        self.readbacks.push((name.to_string(), dst.id));
    }

    /// Hand a (swapchain) image to the presentation engine at the end of the frame.
    pub fn present(&mut self, img: ImageRef) {
        let n = self.push_node("present", NodeKind::Present, Work::None);
        self.use_read(n, img.id, img.version, Access::Present, None);
        self.nodes[n].sink = true;
    }

    /// Mark the last node declared as a sink (kept even if nothing reads its outputs).
    pub fn keep_last(&mut self) {
        if let Some(n) = self.nodes.last_mut() {
            n.sink = true;
        }
    }
}
