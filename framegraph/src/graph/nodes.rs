//! The node builders `Graph` hands out (`compute`, `raster`, `transfer`, `custom`): each
//! binds resources to its shader's reflected bindings, or declares its accesses directly, and
//! records the node's work.
//!
//! Holds [`ComputeNode`], [`RasterNode`], [`TransferNode`], [`CustomNode`] and [`BindTarget`].

use super::*;

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
    pub(super) g: &'g mut Graph<'a>,
    pub(super) node: usize,
    pub(super) shader: &'static Shader,
    pub(super) push: Vec<u8>,
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
    pub(super) g: &'g mut Graph<'a>,
    pub(super) node: usize,
    pub(super) vs: &'static Shader,
    pub(super) fs: &'static Shader,
    pub(super) state: RasterState,
    pub(super) push: Vec<u8>,
    pub(super) colors: Vec<(u32, LoadOp)>,
    pub(super) depth: Option<(u32, LoadOp)>,
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
    pub(super) g: &'g mut Graph<'a>,
    pub(super) node: usize,
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
        self,
        src: BufferRef,
        dst: &mut BufferRef,
        src_off: u64,
        dst_off: u64,
        size: u64,
    ) -> Self {
        let whole = self.whole(dst.id, dst_off, size);
        let region = vk::BufferCopy {
            src_offset: src_off,
            dst_offset: dst_off,
            size,
        };
        self.buffer_copy(src, dst, vec![region], !whole)
    }

    /// Several regions of `src` into `dst` in one `vkCmdCopyBuffer`; the rest of `dst` is
    /// kept (a partial write).
    pub fn copy_buffer_regions(
        self,
        src: BufferRef,
        dst: &mut BufferRef,
        regions: Vec<vk::BufferCopy>,
    ) -> Self {
        self.buffer_copy(src, dst, regions, true)
    }

    fn buffer_copy(
        mut self,
        src: BufferRef,
        dst: &mut BufferRef,
        regions: Vec<vk::BufferCopy>,
        partial: bool,
    ) -> Self {
        self.g
            .use_read(self.node, src.id, src.version, Access::TransferRead, None);
        dst.version = self.g.use_write(
            self.node,
            dst.id,
            dst.version,
            Access::TransferWrite,
            None,
            partial,
        );
        self.op(CopyOp::Buffer {
            src: src.id,
            dst: dst.id,
            regions,
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
    pub(super) g: &'g mut Graph<'a>,
    pub(super) node: usize,
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
