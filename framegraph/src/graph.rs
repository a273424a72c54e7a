//! Declaring a frame: resources (imported or transient), nodes and how each node touches each
//! resource. Nothing here talks to the GPU; `Graph::compile` is a pure function of what was
//! declared (see `compile.rs`).

use crate::access::Access;
use crate::resource::{BufferDesc, ImageDesc, TrackedState};
use crate::shader::{BindingKind, Shader, ShaderStage};
use ash::vk;
use parking_lot::Mutex;
use std::marker::PhantomData;
use std::sync::Arc;

/// Which queue a node runs on. Where the device has no such family, the node runs on the
/// universal queue — same graph, same code path, no ownership transfers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QueueKind {
    Universal,
    AsyncTransfer,
}

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

    pub fn import_buffer(&mut self, b: &crate::resource::GpuBuffer) -> BufferRef {
        self.import_buffer_raw(&b.name, b.desc, b.raw, b.state.clone())
    }

    pub fn import_image(&mut self, i: &crate::resource::GpuImage) -> ImageRef {
        self.import_image_raw(&i.name, i.desc, i.raw, i.view, i.state.clone(), false)
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
            ResourceDesc::Image(d) => (d.extent, d.layers, crate::resource::format_bytes(d.format)),
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

/// Binding helper shared by compute and raster nodes: resolves the declared intent (read or
/// write) against the shader's reflected binding kind.
fn bind_access(
    g: &mut Graph<'_>,
    node: usize,
    shader: &'static Shader,
    binding: &str,
    write: bool,
) -> Option<Access> {
    let refl = match shader.reflect() {
        Ok(r) => r,
        Err(message) => {
            g.errors.push(GraphError::Reflection {
                shader: shader.name.into(),
                message,
            });
            return None;
        }
    };
    let Some(b) = refl.binding(binding) else {
        g.errors.push(GraphError::UnknownBinding {
            node: g.nodes[node].name.clone(),
            binding: binding.into(),
            shader: shader.name.into(),
        });
        return None;
    };
    let sampled = matches!(
        b.kind,
        BindingKind::SampledImage | BindingKind::CombinedImageSampler
    );
    Some(match (shader.stage, write) {
        (ShaderStage::Compute, _) if b.kind == BindingKind::UniformBuffer => Access::ComputeUniform,
        (ShaderStage::Compute, _) if sampled => Access::ComputeSampled,
        (ShaderStage::Compute, false) => Access::ComputeRead,
        (ShaderStage::Compute, true) => Access::ComputeWrite,
        (ShaderStage::Vertex, _) => Access::VertexShaderRead,
        (ShaderStage::Fragment, _) if sampled => Access::FragmentSampled,
        (ShaderStage::Fragment, false) => Access::FragmentRead,
        (ShaderStage::Fragment, true) => Access::FragmentWrite,
    })
}

/// Bind `h` to `binding` of `shader`, read and written (storage); bumps the handle's version.
fn bind_write<K>(
    g: &mut Graph<'_>,
    node: usize,
    shader: &'static Shader,
    binding: &str,
    h: &mut Handle<K>,
) {
    if let Some(a) = bind_access(g, node, shader, binding, true) {
        h.version = g.use_write(node, h.id, h.version, a, Some(binding.into()), true);
    }
}

pub struct ComputeNode<'g, 'a> {
    g: &'g mut Graph<'a>,
    node: usize,
    shader: &'static Shader,
    push: Vec<u8>,
}

impl<'g, 'a> ComputeNode<'g, 'a> {
    /// Bind `h` to the shader's `binding`, read only.
    pub fn read<K: BindTarget>(self, binding: &str, h: Handle<K>) -> Self {
        if let Some(a) = bind_access(self.g, self.node, self.shader, binding, false) {
            self.g
                .use_read(self.node, h.id, h.version, a, Some(binding.into()));
        }
        self
    }

    /// Bind `h` to `binding`, read and written (storage). Bumps the handle's version.
    pub fn write<K: BindTarget>(self, binding: &str, h: &mut Handle<K>) -> Self {
        bind_write(self.g, self.node, self.shader, binding, h);
        self
    }

    /// Push constants (must match the shader's block size).
    pub fn push<T: bytemuck::Pod>(mut self, data: &T) -> Self {
        self.push = bytemuck::bytes_of(data).to_vec();
        self
    }

    pub fn dispatch(self, groups: [u32; 3]) {
        self.finish(Dispatch::Groups(groups));
    }

    /// Dispatch enough workgroups to cover `threads` (rounded up; shaders guard `id < count`).
    pub fn dispatch_threads(self, threads: [u32; 3]) {
        let ls = self
            .shader
            .reflect()
            .map(|r| r.local_size)
            .unwrap_or([1, 1, 1]);
        let groups = [0, 1, 2].map(|i| threads[i].div_ceil(ls[i].max(1)));
        self.finish(Dispatch::Groups(groups));
    }

    /// Dispatch from GPU-written arguments (`VkDispatchIndirectCommand` at `offset`).
    pub fn dispatch_indirect(self, args: BufferRef, offset: u64) {
        self.g
            .use_read(self.node, args.id, args.version, Access::IndirectRead, None);
        self.finish(Dispatch::Indirect {
            args: args.id,
            offset,
        });
    }

    fn finish(self, dispatch: Dispatch) {
        let ComputeNode {
            g,
            node,
            shader,
            push,
        } = self;
        g.nodes[node].work = Work::Compute {
            shader,
            push,
            dispatch,
        };
    }
}

pub struct RasterNode<'g, 'a> {
    g: &'g mut Graph<'a>,
    node: usize,
    vs: &'static Shader,
    fs: &'static Shader,
    state: RasterState,
    push: Vec<u8>,
    colors: Vec<(u32, LoadOp)>,
    depth: Option<(u32, LoadOp)>,
}

impl<'g, 'a> RasterNode<'g, 'a> {
    fn stages_using(&self, binding: &str) -> Vec<&'static Shader> {
        [self.vs, self.fs]
            .into_iter()
            .filter(|s| {
                s.reflect()
                    .map(|r| r.binding(binding).is_some())
                    .unwrap_or(false)
            })
            .collect()
    }

    pub fn read<K: BindTarget>(self, binding: &str, h: Handle<K>) -> Self {
        let stages = self.stages_using(binding);
        // A binding neither stage uses is reported against the fragment shader.
        let shaders: Vec<_> = if stages.is_empty() {
            vec![self.fs]
        } else {
            stages
        };
        for s in shaders {
            if let Some(a) = bind_access(self.g, self.node, s, binding, false) {
                self.g
                    .use_read(self.node, h.id, h.version, a, Some(binding.into()));
            }
        }
        self
    }

    pub fn write<K: BindTarget>(self, binding: &str, h: &mut Handle<K>) -> Self {
        bind_write(self.g, self.node, self.fs, binding, h);
        self
    }

    pub fn push<T: bytemuck::Pod>(mut self, data: &T) -> Self {
        self.push = bytemuck::bytes_of(data).to_vec();
        self
    }

    pub fn state(mut self, state: RasterState) -> Self {
        self.state = state;
        self
    }

    pub fn color(mut self, img: &mut ImageRef, load: LoadOp) -> Self {
        let preserve = load == LoadOp::Load;
        img.version = self.g.use_write(
            self.node,
            img.id,
            img.version,
            Access::ColorAttachment,
            None,
            preserve,
        );
        self.colors.push((img.id, load));
        self
    }

    pub fn depth(mut self, img: &mut ImageRef, load: LoadOp) -> Self {
        let preserve = load == LoadOp::Load;
        img.version = self.g.use_write(
            self.node,
            img.id,
            img.version,
            Access::DepthAttachment,
            None,
            preserve,
        );
        self.depth = Some((img.id, load));
        self
    }

    /// An index buffer is not used by our passes (vertices are pulled from storage).
    pub fn draw(self, vertices: u32, instances: u32) {
        self.finish(Draw::Direct {
            vertices,
            instances,
        });
    }

    pub fn draw_indirect(self, args: BufferRef, offset: u64, draw_count: u32, stride: u32) {
        self.g
            .use_read(self.node, args.id, args.version, Access::IndirectRead, None);
        self.finish(Draw::Indirect {
            args: args.id,
            offset,
            draw_count,
            stride,
        });
    }

    pub fn draw_indirect_count(
        self,
        args: BufferRef,
        offset: u64,
        count: BufferRef,
        count_offset: u64,
        max_draws: u32,
        stride: u32,
    ) {
        self.g
            .use_read(self.node, args.id, args.version, Access::IndirectRead, None);
        if count.id != args.id {
            self.g.use_read(
                self.node,
                count.id,
                count.version,
                Access::IndirectRead,
                None,
            );
        }
        self.finish(Draw::IndirectCount {
            args: args.id,
            offset,
            count: count.id,
            count_offset,
            max_draws,
            stride,
        });
    }

    fn finish(self, draw: Draw) {
        let RasterNode {
            g,
            node,
            vs,
            fs,
            state,
            push,
            colors,
            depth,
        } = self;
        g.nodes[node].work = Work::Raster {
            vs,
            fs,
            state,
            push,
            colors,
            depth,
            draw,
        };
    }
}

pub struct TransferNode<'g, 'a> {
    g: &'g mut Graph<'a>,
    node: usize,
}

impl<'g, 'a> TransferNode<'g, 'a> {
    pub fn queue(self, q: QueueKind) -> Self {
        self.g.nodes[self.node].queue = q;
        self
    }

    fn op(&mut self, op: CopyOp) {
        if let Work::Transfer(ops) = &mut self.g.nodes[self.node].work {
            ops.push(op);
        }
    }

    pub fn copy_buffer(
        mut self,
        src: BufferRef,
        dst: &mut BufferRef,
        src_off: u64,
        dst_off: u64,
        size: u64,
    ) -> Self {
        self.g
            .use_read(self.node, src.id, src.version, Access::TransferRead, None);
        let whole = self.whole(dst.id, dst_off, size);
        dst.version = self.g.use_write(
            self.node,
            dst.id,
            dst.version,
            Access::TransferWrite,
            None,
            !whole,
        );
        let region = vk::BufferCopy {
            src_offset: src_off,
            dst_offset: dst_off,
            size,
        };
        self.op(CopyOp::Buffer {
            src: src.id,
            dst: dst.id,
            regions: vec![region],
        });
        self
    }

    pub fn copy_buffer_to_image(
        mut self,
        src: BufferRef,
        dst: &mut ImageRef,
        regions: Vec<vk::BufferImageCopy>,
    ) -> Self {
        self.g
            .use_read(self.node, src.id, src.version, Access::TransferRead, None);
        dst.version = self.g.use_write(
            self.node,
            dst.id,
            dst.version,
            Access::TransferWrite,
            None,
            true,
        );
        self.op(CopyOp::BufferToImage {
            src: src.id,
            dst: dst.id,
            regions,
        });
        self
    }

    pub fn copy_image_to_buffer(
        mut self,
        src: ImageRef,
        dst: &mut BufferRef,
        regions: Vec<vk::BufferImageCopy>,
    ) -> Self {
        self.g
            .use_read(self.node, src.id, src.version, Access::TransferRead, None);
        dst.version = self.g.use_write(
            self.node,
            dst.id,
            dst.version,
            Access::TransferWrite,
            None,
            false,
        );
        self.op(CopyOp::ImageToBuffer {
            src: src.id,
            dst: dst.id,
            regions,
        });
        self
    }

    /// `vkCmdFillBuffer` (size `vk::WHOLE_SIZE` for all of it).
    pub fn fill(mut self, dst: &mut BufferRef, offset: u64, size: u64, value: u32) -> Self {
        let whole = self.whole(dst.id, offset, size);
        dst.version = self.g.use_write(
            self.node,
            dst.id,
            dst.version,
            Access::TransferWrite,
            None,
            !whole,
        );
        self.op(CopyOp::Fill {
            dst: dst.id,
            offset,
            size,
            value,
        });
        self
    }

    /// `vkCmdUpdateBuffer` with host data (≤ 65,536 bytes, multiple of 4).
    pub fn update(mut self, dst: &mut BufferRef, offset: u64, data: &[u8]) -> Self {
        let whole = self.whole(dst.id, offset, data.len() as u64);
        dst.version = self.g.use_write(
            self.node,
            dst.id,
            dst.version,
            Access::TransferWrite,
            None,
            !whole,
        );
        self.op(CopyOp::Update {
            dst: dst.id,
            offset,
            data: data.to_vec(),
        });
        self
    }

    /// Clear a colour image; `value` is the raw 32-bit pattern of each channel.
    pub fn clear_image(mut self, dst: &mut ImageRef, value: [u32; 4]) -> Self {
        dst.version = self.g.use_write(
            self.node,
            dst.id,
            dst.version,
            Access::TransferWrite,
            None,
            false,
        );
        self.op(CopyOp::ClearColor { dst: dst.id, value });
        self
    }

    fn whole(&self, res: u32, offset: u64, size: u64) -> bool {
        match &self.g.resources[res as usize].desc {
            ResourceDesc::Buffer(d) => offset == 0 && (size == vk::WHOLE_SIZE || size >= d.size),
            ResourceDesc::Image(_) => true,
        }
    }
}

pub struct CustomNode<'g, 'a> {
    g: &'g mut Graph<'a>,
    node: usize,
}

impl<'g, 'a> CustomNode<'g, 'a> {
    pub fn queue(self, q: QueueKind) -> Self {
        self.g.nodes[self.node].queue = q;
        self
    }

    pub fn read<K>(self, h: Handle<K>, access: Access) -> Self {
        self.g.use_read(self.node, h.id, h.version, access, None);
        self
    }

    /// Declare a write; `preserve` = the old contents are read too.
    pub fn write<K>(self, h: &mut Handle<K>, access: Access, preserve: bool) -> Self {
        h.version = self
            .g
            .use_write(self.node, h.id, h.version, access, None, preserve);
        self
    }

    /// Keep this node even if nothing reads what it writes.
    pub fn side_effect(self) -> Self {
        self.g.nodes[self.node].sink = true;
        self
    }

    pub fn record(self, f: impl FnOnce(&mut RecordCtx) + 'a) {
        self.g.nodes[self.node].work = Work::Custom(Box::new(f));
    }

    /// No commands: the node only declares accesses (tests, explicit transitions).
    pub fn declare_only(self) {}
}

/// Buffers and images can both be bound to shaders.
pub trait BindTarget {}
impl BindTarget for BufferKind {}
impl BindTarget for ImageKind {}
